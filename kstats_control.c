// SPDX-License-Identifier: GPL-2.0
/*
 * kstats run-time attachment: the commands written to _control (trace,
 * remove, calibrate), the _control lines of their entries, and the module
 * notifiers that detach probes from code going away. The mechanisms are in
 * kstats_kretprobe.c, kstats_fprobe.c, kstats_direct.c, kstats_pair.c and
 * kstats_gap.c.
 *
 * Every control operation, and the module notifiers, run under
 * kstats_control_mutex. Handlers take no lock and never sleep: they read
 * the clock, touch per-CPU or per-call storage (or the lockless task
 * table) and call kstats_record().
 *
 * Lock order: tracepoint_module_list_mutex (tracepoint module notifier) ->
 * kstats_control_mutex -> kprobe/ftrace/tracepoint locks, kstats_mutex.
 * Hence both notifiers are registered and unregistered without
 * kstats_control_mutex held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "kstats_btf.h"
#include "kstats_counter.h"
#include "kstats_filter.h"
#include "kstats_handler.h"
#include "kstats_internal.h"
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_refuse.h"
#include "kstats_value.h"

/* A module with tracepoints, from the tracepoint module notifier. */
struct kstats_tp_module {
	struct list_head node;
	struct module *mod;
};

/* Serialises control operations; protects the two lists below. */
DEFINE_MUTEX(kstats_control_mutex);
static LIST_HEAD(kstats_probes);
static LIST_HEAD(kstats_tp_modules);

/* ---------------------------------------------------------------------- */
/* Lookups; under kstats_control_mutex. */

struct kstats_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void kstats_tp_match(struct tracepoint *tp, void *priv)
{
	struct kstats_tp_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

struct tracepoint *kstats_find_tp(const char *name, struct module **mod)
{
	struct kstats_tp_lookup l = { .name = name };
	struct kstats_tp_module *m;
	unsigned int i;

	lockdep_assert_held(&kstats_control_mutex);
	*mod = NULL;
	for_each_kernel_tracepoint(kstats_tp_match, &l);
	if (l.tp)
		return l.tp;
	list_for_each_entry(m, &kstats_tp_modules, node) {
		for (i = 0; i < m->mod->num_tracepoints; i++) {
			kstats_tp_match(tracepoint_ptr_deref(&m->mod->tracepoints_ptrs[i]),
					&l);
			if (l.tp) {
				*mod = m->mod;
				return l.tp;
			}
		}
	}
	return NULL;
}

int kstats_kprobe_error(struct kstats_cmd *cmd, const char *what,
			const struct kstats_target *t, int err)
{
	if (err == -ENOENT)
		return kstats_fail(cmd, err, "%s: no symbol %s", what, t->sym);
	if (err == -EILSEQ)
		return kstats_fail(cmd, err, "%s: %s+%u is not an instruction boundary",
				   what, t->sym, t->offset);
	/* Blacklisted, not code, or (kretprobe) not a function entry. */
	return kstats_fail(cmd, err, "%s: kprobes refused %s+%u (error %d)",
			   what, t->sym, t->offset, err);
}

int kstats_resolve(struct kstats_cmd *cmd, const char *what,
		   const struct kstats_target *t, unsigned long *addr)
{
	struct kprobe kp = {
		.symbol_name = t->sym,
		.offset = t->offset,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return kstats_kprobe_error(cmd, what, t, ret);
	*addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

static const char *kstats_mech_name(const struct kstats_probe *p)
{
	switch (p->mech) {
	case KSTATS_MECH_KRETPROBE:
		if (p->value == KSTATS_VALUE_ARG)
			return "kprobe";
		return p->pcpu ? "pcpu-kretprobe" : "kretprobe";
	case KSTATS_MECH_FPROBE:
		return p->pcpu ? "pcpu-fprobe" : "fprobe";
	case KSTATS_MECH_DIRECT:
		return "direct";
	case KSTATS_MECH_GAP:
		return "gap";
	default:
		return "pair";
	}
}

/* ---------------------------------------------------------------------- */
/* Probes: allocation, and the attach/detach interface of the mechanisms. */

void kstats_probe_free(struct kstats_probe *p)
{
	kstats_counter_free(p);
	free_percpu(p->t0);
	free_percpu(p->owner);
	free_percpu(p->stats);
	kstats_task_table_free(p->tasks);
	kfree(p);
}

struct kstats_probe *kstats_probe_alloc(const struct kstats_cmd *cmd)
{
	struct kstats_probe *p = kzalloc(sizeof(*p), GFP_KERNEL);
	bool pair = cmd->op == KSTATS_CMD_TRACE_PAIR;

	if (!p)
		return NULL;
	p->pcpu = cmd->op == KSTATS_CMD_TRACE_PCPU;
	p->key = cmd->key;
	p->filter = cmd->filter;
	p->value = cmd->value;
	p->arg = cmd->arg;
	p->start.target = cmd->start;
	p->end.target = cmd->end;
	p->stats = alloc_percpu(struct kstats_probe_stats);
	if (!p->stats)
		goto fail;
	if (p->pcpu) {
		p->owner = alloc_percpu(struct kstats_pcpu_owner);
		if (!p->owner)
			goto fail;
	}
	if (pair && cmd->key == KSTATS_KEY_CPU) {
		p->t0 = alloc_percpu(struct kstats_cpu_start);
		if (!p->t0)
			goto fail;
	}
	if (pair && cmd->key == KSTATS_KEY_TASK) {
		p->tasks = kstats_task_table_alloc(cmd->slots);
		if (!p->tasks)
			goto fail;
	}
	return p;
fail:
	kstats_probe_free(p);
	return NULL;
}

#ifdef KSTATS_HAVE_DIRECT
/*
 * trace FUNC without "via": 0 if direct serves; 1 to take fprobe or
 * kretprobe, with the reason logged; or the error of a FUNC that no
 * mechanism traces (no such symbol, blacklisted).
 */
static int kstats_try_direct(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	int ret;

	if (!kstats_direct_may_serve(p, cmd))
		return 1;
	if (!p->addr) {
		ret = kstats_resolve(cmd, "trace", &p->start.target, &p->addr);
		if (ret)
			return ret;
	}
	if (!kstats_direct_attach(p, cmd))
		return 0;
	pr_info_ratelimited("%s: not direct (%s)\n", cmd->name, cmd->why);
	cmd->why[0] = '\0';
	return 1;
}
#endif

/*
 * trace FUNC: direct where it can serve (fexit-class, the cheapest), else
 * fprobe if there is, else kretprobe; trace pcpu:FUNC: fprobe, else
 * kretprobe. "via" forces one. See "Mechanisms" in Documentation/kstats.rst.
 */
static int kstats_attach_func(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	if (cmd->via == KSTATS_VIA_DIRECT) {
#ifdef KSTATS_HAVE_DIRECT
		return kstats_direct_attach(p, cmd);
#else
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "this kernel has no ftrace direct calls on x86-64");
#endif
	}
#ifdef KSTATS_HAVE_DIRECT
	if (cmd->via == KSTATS_VIA_AUTO) {
		int ret = kstats_try_direct(p, cmd);

		if (ret <= 0)
			return ret;
	}
#endif
#ifdef KSTATS_HAVE_FPROBE
	int ret;

	if (cmd->via == KSTATS_VIA_KRETPROBE)
		return kstats_kretprobe_attach(p, cmd);
	ret = kstats_fprobe_attach(p, cmd);
	if (ret == -EINVAL && cmd->via == KSTATS_VIA_AUTO && !p->registered) {
		/* Not traceable by ftrace: kprobes may still do it. */
		cmd->why[0] = '\0';
		return kstats_kretprobe_attach(p, cmd);
	}
	return ret;
#else
	/* Kbuild leaves fprobe out without CONFIG_FPROBE, and before 6.5. */
	if (cmd->via == KSTATS_VIA_FPROBE)
		return kstats_fail(cmd, -EOPNOTSUPP, IS_ENABLED(CONFIG_FPROBE) ?
				   "kstats uses fprobe from 6.5 on only" :
				   "this kernel has no fprobe (CONFIG_FPROBE)");
	return kstats_kretprobe_attach(p, cmd);
#endif
}

/* Register the probes of @p, disabled; kstats_detach() undoes a failure. */
int kstats_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	int ret = kstats_clock_pick(p, cmd);

	if (ret)
		return ret;
	if (cmd->op == KSTATS_CMD_TRACE_PAIR)
		return kstats_pair_attach(p, cmd);
	if (cmd->op == KSTATS_CMD_TRACE_GAP)
		return kstats_gap_attach(p, cmd);
	return kstats_attach_func(p, cmd);
}

/*
 * Let the probes of @p fire; under kstats_control_mutex. An error (the
 * kernel failed to arm a kprobe, to register an ftrace callback or a
 * tracepoint probe again) leaves @p unarmed, and says so once.
 */
int kstats_enable(struct kstats_probe *p)
{
	int ret = 0;

	switch (p->mech) {
	case KSTATS_MECH_KRETPROBE:
		ret = kstats_kretprobe_enable(p);
		break;
#ifdef KSTATS_HAVE_FPROBE
	case KSTATS_MECH_FPROBE:
		kstats_fprobe_enable(p);
		break;
#endif
#ifdef KSTATS_HAVE_DIRECT
	case KSTATS_MECH_DIRECT:
		kstats_direct_enable(p);
		break;
#endif
	default:
		ret = kstats_pair_enable(p);
		break;
	}
	if (ret) {
		pr_warn_ratelimited("%s: cannot arm its probes (error %d)\n",
				    p->ks->name, ret);
		return ret;
	}
	p->armed = true;
	return 0;
}

/* Disarm the probes of a stopped entry; under kstats_control_mutex. */
static void kstats_disable(struct kstats_probe *p)
{
	switch (p->mech) {
	case KSTATS_MECH_KRETPROBE:
		kstats_kretprobe_disable(p);
		break;
#ifdef KSTATS_HAVE_FPROBE
	case KSTATS_MECH_FPROBE:
		kstats_fprobe_disable(p);
		break;
#endif
	case KSTATS_MECH_DIRECT:
		/* Stopped, the trampoline returns into FUNC after one test. */
		break;
	default:
		kstats_pair_disable(p);
		break;
	}
	p->armed = false;
}

/*
 * @ks, a control entry, was started or stopped through its file: arm or
 * disarm its probes to follow. A stop already makes the handlers do
 * nothing; this makes a stopped entry cost nothing, or next to it (an
 * fprobe keeps its ftrace callback), and a start returns with the probes
 * armed. The write must not block on kstats_control_mutex: "remove"
 * holds it while it waits for writers of the entry's file to finish, and
 * marks the entry dying first, which ends the wait here.
 */
int kstats_control_state(struct kstats *ks)
{
	struct kstats_probe *p = ks->probe;
	int ret = 0;
	bool want;

	while (!mutex_trylock(&kstats_control_mutex)) {
		if (READ_ONCE(p->dying) || fatal_signal_pending(current))
			return 0;
		usleep_range(500, 1000);
	}
	want = READ_ONCE(ks->active);
	if (!p->gone && !p->dying && want != p->armed) {
		if (want)
			ret = kstats_enable(p);
		else
			kstats_disable(p);
		/* Not armed again: say so by the state and the write's error. */
		if (want && !p->armed)
			kstats_stop(ks);
	}
	mutex_unlock(&kstats_control_mutex);
	return ret;
}

/*
 * A traced entry is about to start (or start again): calls of FUNC that
 * entered before now, and so before any stop, are not measured at their
 * return (kstats_call_end()). Before the entry is active, so that every
 * call measured after the start began after this.
 */
void kstats_control_resume(struct kstats *ks)
{
	struct kstats_probe *p = ks->probe;

	WRITE_ONCE(p->resumed, kstats_clock(p));
	/* Seen before the state that kstats_start() then writes. */
	smp_wmb();
}

/*
 * Unregister every probe of @p. Afterwards no handler of @p runs or will
 * run, unless p->registered is still set: a mechanism could not
 * unregister, and @p must then never be freed.
 */
void kstats_detach(struct kstats_probe *p)
{
	switch (p->mech) {
	case KSTATS_MECH_KRETPROBE:
		kstats_kretprobe_detach(p);
		break;
#ifdef KSTATS_HAVE_FPROBE
	case KSTATS_MECH_FPROBE:
		kstats_fprobe_detach(p);
		break;
#endif
#ifdef KSTATS_HAVE_DIRECT
	case KSTATS_MECH_DIRECT:
		kstats_direct_detach(p);
		break;
#endif
	default:
		kstats_pair_detach(p);
		break;
	}
}

static unsigned long kstats_missed(const struct kstats_probe *p)
{
	switch (p->mech) {
	case KSTATS_MECH_KRETPROBE:
		return kstats_kretprobe_missed(p);
#ifdef KSTATS_HAVE_FPROBE
	case KSTATS_MECH_FPROBE:
		return kstats_fprobe_missed(p);
#endif
	case KSTATS_MECH_DIRECT:
		return 0;
	default:
		return kstats_pair_missed(p);
	}
}

/*
 * @p could not be unregistered: its handlers may still run, so neither
 * @p nor kstats' text may go. Outside module exit, kstats keeps a
 * reference on itself for good; in module exit that is too late, and
 * only the log says so.
 */
static void kstats_pin(struct kstats_probe *p)
{
	if (p->pinned)
		return;
	p->pinned = try_module_get(THIS_MODULE);
	pr_err("%s: its probes could not be unregistered; %s\n", p->ks->name,
	       p->pinned ? "kstats stays loaded" : "kstats is going anyway");
}

/* ---------------------------------------------------------------------- */
/* Commands; under kstats_control_mutex. */

/* No probe on kstats itself: its handlers would recurse. */
static int kstats_check_addr(struct kstats_cmd *cmd, const char *what,
			     unsigned long addr)
{
	if (addr && within_module(addr, THIS_MODULE))
		return kstats_fail(cmd, -EINVAL, "%s is part of kstats itself",
				   what);
	return 0;
}

/* Before attach and after: every address known by then. */
static int kstats_check_addrs(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	return kstats_check_addr(cmd, p->start.target.sym, p->addr) ?:
	       kstats_check_addr(cmd, "start", p->start.addr) ?:
	       kstats_check_addr(cmd, "end", p->end.addr);
}

/*
 * The addresses of FUNC, or of X and Y, before anything is hooked: the
 * refusal of kstats' own code must come before a hook that could fire
 * on it. Tracepoints have none.
 */
static int kstats_resolve_targets(struct kstats_probe *p,
				  struct kstats_cmd *cmd)
{
	int ret;

	switch (cmd->op) {
	case KSTATS_CMD_TRACE_PAIR:
		if (!p->end.target.tracepoint) {
			ret = kstats_resolve(cmd, "end", &p->end.target,
					     &p->end.addr);
			if (ret)
				return ret;
		}
		fallthrough;
	case KSTATS_CMD_TRACE_GAP:
		if (p->start.target.tracepoint)
			return 0;
		ret = kstats_resolve(cmd, cmd->op == KSTATS_CMD_TRACE_GAP ?
				     "gap" : "start", &p->start.target,
				     &p->start.addr);
		p->addr = p->start.addr;
		return ret;
	default:
		return kstats_resolve(cmd, "trace", &p->start.target, &p->addr);
	}
}

static bool kstats_name_taken(const char *name)
{
	bool taken;

	mutex_lock(&kstats_mutex);
	taken = kstats_find(name);
	mutex_unlock(&kstats_mutex);
	return taken;
}

static int kstats_destroy(struct kstats_probe *p);

static int kstats_trace(struct kstats_cmd *cmd)
{
	struct kstats_probe *p;
	struct kstats *ks;
	int ret;

	lockdep_assert_held(&kstats_control_mutex);
	ret = kstats_filter_check(cmd) ?: kstats_refuse(cmd);
	if (ret)
		return ret;
	if (kstats_name_taken(cmd->name))
		return kstats_fail(cmd, -EEXIST, "entry %s exists", cmd->name);

	p = kstats_probe_alloc(cmd);
	if (!p)
		return kstats_fail(cmd, -ENOMEM, "out of memory");
	ret = kstats_counter_create(p, cmd);
	if (ret) {
		kstats_probe_free(p);
		return ret;
	}
	ks = kstats_alloc(cmd->name, cmd->bits);
	if (IS_ERR(ks)) {
		kstats_probe_free(p);
		return kstats_fail(cmd, PTR_ERR(ks), "cannot create entry %s",
				   cmd->name);
	}
	ks->origin = KSTATS_ORIGIN_CONTROL;
	ks->probe = p;
	p->ks = ks;
	/* Hooks live from attach on (ftrace, tracepoints) find it stopped. */
	kstats_stop(ks);

	ret = kstats_resolve_targets(p, cmd);
	if (!ret)
		ret = kstats_check_addrs(p, cmd);
	if (!ret)
		ret = kstats_value_setup(p, cmd);
	if (!ret)
		ret = kstats_attach(p, cmd);
	/* Where a mechanism moved the address (past an endbr, say). */
	if (!ret)
		ret = kstats_check_addrs(p, cmd);
	if (!ret) {
		/* Checked: counting starts as the entry becomes visible. */
		kstats_start(ks);
		ret = kstats_publish(ks);
		if (ret)
			kstats_fail(cmd, ret, "cannot create entry %s (error %d)",
				    cmd->name, ret);
	}
	if (ret) {
		kstats_detach(p);
		if (!p->registered) {
			kstats_free(ks);
			kstats_probe_free(p);
		} else {
			kstats_pin(p);
		}
		return ret;
	}

	/* Visible now: let the disabled probes fire. */
	ret = kstats_enable(p);
	list_add_tail(&p->node, &kstats_probes);
	if (ret) {
		kstats_fail(cmd, ret, "cannot arm the probes of %s (error %d)",
			    cmd->name, ret);
		if (kstats_destroy(p))
			return -EBUSY;
	}
	return ret;
}

/*
 * Detach and delete a control entry. If its probes cannot be unregistered
 * the entry stays, detached from nothing, in state gone: its handlers may
 * still run and use it.
 */
static int kstats_destroy(struct kstats_probe *p)
{
	/* Ends the wait of a start or stop: see kstats_control_state(). */
	WRITE_ONCE(p->dying, true);
	kstats_detach(p);
	if (p->registered) {
		WRITE_ONCE(p->gone, true);
		kstats_pin(p);
		return -EBUSY;
	}
	list_del(&p->node);
	/* Waits for readers and writers of its file. */
	kstats_delete(p->ks);
	kstats_probe_free(p);
	return 0;
}

static int kstats_remove(struct kstats_cmd *cmd)
{
	enum kstats_origin origin = KSTATS_ORIGIN_KERNEL;
	struct kstats *ks;

	lockdep_assert_held(&kstats_control_mutex);
	/* A kernel entry may go as soon as kstats_mutex is released. */
	mutex_lock(&kstats_mutex);
	ks = kstats_find(cmd->name);
	if (ks)
		origin = ks->origin;
	mutex_unlock(&kstats_mutex);
	if (!ks)
		return kstats_fail(cmd, -ENOENT, "no entry %s", cmd->name);
	if (origin != KSTATS_ORIGIN_CONTROL)
		return kstats_fail(cmd, -EPERM,
				   "entry %s belongs to the kernel code that created it",
				   cmd->name);
	/* Control entries only go under kstats_control_mutex. */
	if (kstats_destroy(ks->probe))
		return kstats_fail(cmd, -EBUSY,
				   "entry %s: its probes could not be unregistered",
				   cmd->name);
	return 0;
}

int kstats_probe_command(struct kstats_cmd *cmd)
{
	int ret;

	mutex_lock(&kstats_control_mutex);
	switch (cmd->op) {
	case KSTATS_CMD_REMOVE:
		ret = kstats_remove(cmd);
		break;
	case KSTATS_CMD_CALIBRATE:
		ret = kstats_calibrate(cmd);
		break;
	default:
		ret = kstats_trace(cmd);
		break;
	}
	mutex_unlock(&kstats_control_mutex);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* _control listing, under kstats_mutex. */

static void kstats_show_target(struct seq_file *m,
			       const struct kstats_target *t)
{
	if (t->tracepoint)
		seq_printf(m, KSTATS_TP_PREFIX "%s", t->sym);
	else if (t->offset)
		seq_printf(m, "%s+%u", t->sym, t->offset);
	else
		seq_puts(m, t->sym);
}

static const char *kstats_hook_name(const struct kstats_endpoint *ep)
{
	switch (ep->hook) {
	case KSTATS_HOOK_FTRACE:
		return "ftrace";
	case KSTATS_HOOK_KPROBE:
		return "kprobe";
	default:
		return "tracepoint";
	}
}

/* Mean time in the handlers of one hit, from the timed ones; or "-". */
static void kstats_show_overhead(struct seq_file *m,
				 const struct kstats_probe_stats *sum)
{
	u64 ns = 0;
	int side;

	if (!sum->timed[KSTATS_SIDE_BEGIN] && !sum->timed[KSTATS_SIDE_END]) {
		seq_puts(m, " overhead_ns -");
		return;
	}
	for (side = 0; side < KSTATS_NR_SIDES; side++)
		if (sum->timed[side])
			ns += div64_ul(sum->handler_ns[side], sum->timed[side]);
	seq_printf(m, " overhead_ns %llu", ns);
}

void kstats_probe_show(struct seq_file *m, const struct kstats *ks)
{
	const struct kstats_probe *p = ks->probe;
	struct kstats_probe_stats sum = {};
	const char *state;
	int cpu, side;

	for_each_possible_cpu(cpu) {
		const struct kstats_probe_stats *s = per_cpu_ptr(p->stats, cpu);

		sum.skipped += READ_ONCE(s->skipped);
		sum.dropped += READ_ONCE(s->dropped);
		sum.unpaired += READ_ONCE(s->unpaired);
		sum.notask += READ_ONCE(s->notask);
		sum.filtered += READ_ONCE(s->filtered);
		sum.errors += READ_ONCE(s->errors);
		sum.unstable += READ_ONCE(s->unstable);
		sum.recursed += READ_ONCE(s->recursed);
		for (side = 0; side < KSTATS_NR_SIDES; side++) {
			sum.handler_ns[side] += READ_ONCE(s->handler_ns[side]);
			sum.timed[side] += READ_ONCE(s->timed[side]);
		}
	}

	if (READ_ONCE(p->gone))
		state = "gone";
	else
		state = READ_ONCE(ks->active) ? "running" : "stopped";

	seq_printf(m, "name %s origin control mechanism %s", ks->name,
		   kstats_mech_name(p));
	if (p->mech == KSTATS_MECH_PAIR)
		seq_printf(m, " key %s",
			   p->key == KSTATS_KEY_TASK ? "task" : "cpu");
	seq_puts(m, " targets ");
	kstats_show_target(m, &p->start.target);
	if (p->mech == KSTATS_MECH_PAIR) {
		seq_putc(m, ',');
		kstats_show_target(m, &p->end.target);
		seq_printf(m, " hooks %s,%s", kstats_hook_name(&p->start),
			   kstats_hook_name(&p->end));
	} else if (p->mech == KSTATS_MECH_GAP) {
		seq_printf(m, " hooks %s", kstats_hook_name(&p->start));
	}
	seq_printf(m, " bits %u", ks->frac_bits);
	/* A value or counter entry reads no clock. */
	if (p->value == KSTATS_VALUE_TIME && !p->counter)
		seq_printf(m, " clock %s", kstats_clock_name(p));
	kstats_value_show(m, p, sum.errors);
	kstats_counter_show(m, p);
	seq_printf(m, " state %s missed %lu", state,
		   kstats_missed(p) + sum.recursed);
	if (p->pcpu)
		seq_printf(m, " skipped %lu", sum.skipped);
	if (p->mech == KSTATS_MECH_PAIR)
		seq_printf(m, " dropped %lu unpaired %lu", sum.dropped,
			   sum.unpaired);
	if (p->tasks)
		seq_printf(m, " notask %lu slots %u", sum.notask,
			   kstats_task_table_size(p->tasks));
	kstats_filter_show(m, &p->filter, sum.filtered);
	/* clock tsc: samples left out once the kernel found the TSC unstable. */
	if (sum.unstable)
		seq_printf(m, " unstable %lu", sum.unstable);
	/* A gap is between two hits that the hook delays alike: no bias. */
	if (p->value == KSTATS_VALUE_TIME && p->mech != KSTATS_MECH_GAP &&
	    !p->counter)
		kstats_show_bias(m, p);
	else
		seq_puts(m, " bias_ns - bias_p99_ns -");
	kstats_show_overhead(m, &sum);
	kstats_show_extremes(m, ks);
	seq_putc(m, '\n');
}

/* ---------------------------------------------------------------------- */
/* Code going away: detach the entries that use it. */

static void kstats_gone(struct kstats_probe *p, struct module *mod)
{
	kstats_detach(p);
	WRITE_ONCE(p->gone, true);
	if (p->registered)
		kstats_pin(p);
	pr_info("%s: module %s unloaded, probes detached\n", p->ks->name,
		mod->name);
}

static bool kstats_uses_text(struct kstats_probe *p, struct module *mod)
{
	if (p->mech != KSTATS_MECH_PAIR)
		return within_module(p->addr, mod);
	return (p->start.registered && !p->start.tp &&
		within_module(p->start.addr, mod)) ||
	       (p->end.registered && !p->end.tp &&
		within_module(p->end.addr, mod));
}

/*
 * kprobes mark theirs gone by themselves, but fprobes would keep the
 * address in their filter, and a pair is useless with one side gone.
 */
static int kstats_module_notify(struct notifier_block *nb,
				unsigned long action, void *data)
{
	struct kstats_probe *p;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kstats_control_mutex);
	list_for_each_entry(p, &kstats_probes, node)
		if (!p->gone && kstats_uses_text(p, data))
			kstats_gone(p, data);
	mutex_unlock(&kstats_control_mutex);
	return NOTIFY_OK;
}

static struct notifier_block kstats_module_nb = {
	.notifier_call = kstats_module_notify,
};

/*
 * Modules with tracepoints. COMING is replayed for loaded modules when the
 * notifier is registered, GOING when it is unregistered; a module's GOING
 * comes before the tracepoint core checks that its tracepoints have no
 * probe left.
 */
static int kstats_tp_module_notify(struct notifier_block *nb,
				   unsigned long action, void *data)
{
	struct module *mod = ((struct tp_module *)data)->mod;
	struct kstats_tp_module *m, *tmp;
	struct kstats_probe *p;

	mutex_lock(&kstats_control_mutex);
	if (action == MODULE_STATE_COMING) {
		m = kmalloc(sizeof(*m), GFP_KERNEL);
		if (m) {
			m->mod = mod;
			list_add_tail(&m->node, &kstats_tp_modules);
		}
	} else if (action == MODULE_STATE_GOING) {
		list_for_each_entry_safe(m, tmp, &kstats_tp_modules, node) {
			if (m->mod == mod) {
				list_del(&m->node);
				kfree(m);
			}
		}
		list_for_each_entry(p, &kstats_probes, node)
			if (!p->gone && (p->start.tp_mod == mod ||
					 p->end.tp_mod == mod))
				kstats_gone(p, mod);
	}
	mutex_unlock(&kstats_control_mutex);
	return NOTIFY_OK;
}

static struct notifier_block kstats_tp_module_nb = {
	.notifier_call = kstats_tp_module_notify,
};

int kstats_probe_init(void)
{
	int ret;

	ret = kstats_task_init();
	if (ret)
		return ret;
	ret = kstats_btf_init();
	if (ret)
		return ret;
	ret = register_module_notifier(&kstats_module_nb);
	if (ret)
		goto fail_btf;
	ret = register_tracepoint_module_notifier(&kstats_tp_module_nb);
	if (ret)
		goto fail_mod;
	return 0;
fail_mod:
	unregister_module_notifier(&kstats_module_nb);
fail_btf:
	kstats_btf_exit();
	return ret;
}

/* Module exit: every control entry goes, then the notifiers. */
void kstats_probe_exit(void)
{
	struct kstats_probe *p, *tmp;

	mutex_lock(&kstats_control_mutex);
	list_for_each_entry_safe(p, tmp, &kstats_probes, node)
		kstats_destroy(p);
	mutex_unlock(&kstats_control_mutex);
#ifdef KSTATS_HAVE_DIRECT
	kstats_direct_exit();
#endif
	/* Replays GOING for the modules in kstats_tp_modules: frees them. */
	unregister_tracepoint_module_notifier(&kstats_tp_module_nb);
	unregister_module_notifier(&kstats_module_nb);
	kstats_btf_exit();
}
