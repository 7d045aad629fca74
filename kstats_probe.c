// SPDX-License-Identifier: GPL-2.0
/*
 * kstats run-time attachment: entries created by "trace" commands written
 * to _control, fed by kretprobes, fprobes, kprobes and tracepoints.
 *
 * Every control operation, and the module notifiers that detach probes
 * from code going away, run under kstats_control_mutex. Handlers take no
 * lock and never sleep: they read the clock, touch per-CPU or per-call
 * storage (or the lockless task table) and call kstats_record().
 *
 * Lock order: tracepoint_module_list_mutex (tracepoint module notifier) ->
 * kstats_control_mutex -> kprobe/ftrace/tracepoint locks, kstats_mutex.
 * Hence both notifiers are registered and unregistered without
 * kstats_control_mutex held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include "kstats_internal.h"
#include "kstats_parse.h"

/*
 * Kbuild defines KSTATS_HAVE_FPROBE on kernels with CONFIG_FPROBE whose
 * fprobe callbacks have the form used here (6.5 to 6.13); elsewhere kstats
 * behaves as if the kernel had no fprobe.
 */
#ifdef KSTATS_HAVE_FPROBE
#include <linux/fprobe.h>
#endif

/*
 * Tracepoint probes are registered with a function that takes only the
 * data pointer and ignores the tracepoint's arguments: harmless with the
 * x86-64 calling convention, but refused by kCFI.
 */
#ifdef CONFIG_CFI_CLANG
#define KSTATS_HAVE_TP_PROBES 0
#else
#define KSTATS_HAVE_TP_PROBES 1
#endif

/* key task: slots of the task table, and how many a task may try. */
#define KSTATS_TASK_BITS	10
#define KSTATS_TASK_SLOTS	BIT(KSTATS_TASK_BITS)
#define KSTATS_TASK_PROBES	32

enum kstats_mech {
	KSTATS_MECH_KRETPROBE,
	KSTATS_MECH_FPROBE,
	KSTATS_MECH_PAIR,
};

/* Per-CPU event counters of an entry, summed for the listing. */
struct kstats_probe_stats {
	unsigned long skipped;	/* pcpu: nested or migrated calls */
	unsigned long dropped;	/* key task: table full */
	unsigned long unpaired;	/* pairs: end without a start */
};

/* key task: one pending start; @task is 0 when the slot is free. */
struct kstats_task_slot {
	unsigned long task;
	u64 t0;
};

/* X or Y of a pair: a kprobe, or a tracepoint of the kernel or a module. */
struct kstats_endpoint {
	struct kstats_target target;
	struct kprobe kp;
	struct tracepoint *tp;
	struct module *tp_mod;	/* owner of @tp, NULL if built in */
	bool registered;
};

struct kstats_probe {
	struct list_head node;		/* in kstats_probes */
	struct kstats *ks;
	enum kstats_mech mech;
	bool pcpu;			/* trace pcpu:FUNC */
	enum kstats_cmd_key key;
	bool registered;		/* @rp or @fp */
	bool exit_hook;			/* key task: sched_process_exit probe */
	bool gone;			/* detached: code it used went away */
	unsigned long addr;		/* FUNC's address */
	struct kstats_endpoint start;	/* FUNC, or X of a pair */
	struct kstats_endpoint end;	/* Y of a pair */
	u64 __percpu *t0;		/* pcpu, and pairs keyed by CPU */
	struct kstats_task_slot *tasks;	/* pairs keyed by task */
	struct kstats_probe_stats __percpu *stats;
	union {
		struct kretprobe rp;
#ifdef KSTATS_HAVE_FPROBE
		struct fprobe fp;
#endif
	};
};

/* A module with tracepoints, from the tracepoint module notifier. */
struct kstats_tp_module {
	struct list_head node;
	struct module *mod;
};

/* Serialises control operations; protects the two lists below. */
static DEFINE_MUTEX(kstats_control_mutex);
static LIST_HEAD(kstats_probes);
static LIST_HEAD(kstats_tp_modules);
static struct tracepoint *kstats_exit_tp;	/* sched_process_exit */

#define kstats_fail(cmd, err, fmt, ...)					\
	({								\
		snprintf((cmd)->why, sizeof((cmd)->why), fmt, ##__VA_ARGS__); \
		(err);							\
	})

/* ---------------------------------------------------------------------- */
/*
 * Handler bodies, one place each, shared by every mechanism. They run with
 * preemption disabled (kprobe, rethook, ftrace and tracepoint callers all
 * disable it), never sleep and take no lock.
 */

/*
 * The clock of all handlers: NMI-safe, no seqcount retry loop, monotonic
 * across CPUs (see Documentation/kstats.rst). It is non-zero once modules
 * can load, so 0 can mean "no start".
 */
static __always_inline u64 kstats_now(void)
{
	return ktime_get_mono_fast_ns();
}

/* Time since @t0; 0 if the clock went back (across a clock update). */
static __always_inline u64 kstats_since(u64 now, u64 t0)
{
	return now > t0 ? now - t0 : 0;
}

/* trace FUNC: FUNC was entered; @t0 is storage of this call. */
static notrace void kstats_call_begin(u64 *t0)
{
	*t0 = kstats_now();
}

/* trace FUNC: FUNC returns. */
static notrace void kstats_call_end(struct kstats_probe *p, u64 t0)
{
	kstats_record(p->ks, kstats_since(kstats_now(), t0));
}

/*
 * trace pcpu:FUNC: FUNC was entered. Takes this CPU's start slot if it is
 * free, and says whether the return is to be hooked; @cpu is storage of
 * this call.
 */
static notrace bool kstats_pcpu_begin(struct kstats_probe *p, int *cpu)
{
	u64 *t0 = this_cpu_ptr(p->t0);

	if (READ_ONCE(*t0)) {
		/* A call of FUNC is pending on this CPU: nested. */
		this_cpu_inc(p->stats->skipped);
		return false;
	}
	WRITE_ONCE(*t0, kstats_now());
	*cpu = smp_processor_id();
	return true;
}

/* trace pcpu:FUNC: FUNC, entered on @cpu, returns. */
static notrace void kstats_pcpu_end(struct kstats_probe *p, int cpu)
{
	u64 now = kstats_now();
	u64 *t0 = per_cpu_ptr(p->t0, cpu);

	if (cpu != smp_processor_id()) {
		/* Migrated: no sample, but free the slot of @cpu. */
		this_cpu_inc(p->stats->skipped);
	} else {
		kstats_record(p->ks, kstats_since(now, READ_ONCE(*t0)));
	}
	WRITE_ONCE(*t0, 0);
}

/*
 * key task: the slots that the current task may use start at its hash;
 * a task's slot can be anywhere among them, so lookups see all of them.
 */
static __always_inline struct kstats_task_slot *
kstats_task_slot(struct kstats_probe *p, unsigned long me, unsigned int i)
{
	return &p->tasks[(hash_long(me, KSTATS_TASK_BITS) + i) &
			 (KSTATS_TASK_SLOTS - 1)];
}

static notrace void kstats_task_start(struct kstats_probe *p, u64 now)
{
	unsigned long me = (unsigned long)current;
	struct kstats_task_slot *s;
	unsigned int i;

	for (i = 0; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(p, me, i);
		if (READ_ONCE(s->task) == me) {
			/* A second start restarts the measurement. */
			WRITE_ONCE(s->t0, now);
			return;
		}
	}
	for (i = 0; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(p, me, i);
		if (!READ_ONCE(s->task) && !cmpxchg(&s->task, 0, me)) {
			WRITE_ONCE(s->t0, now);
			return;
		}
	}
	this_cpu_inc(p->stats->dropped);
}

/* Takes the current task's start out of the table; 0 if it had none. */
static notrace u64 kstats_task_take(struct kstats_probe *p)
{
	unsigned long me = (unsigned long)current;
	struct kstats_task_slot *s;
	unsigned int i;
	u64 t0;

	for (i = 0; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(p, me, i);
		if (READ_ONCE(s->task) == me) {
			t0 = READ_ONCE(s->t0);
			WRITE_ONCE(s->t0, 0);
			/* The next owner must not see our t0. */
			smp_store_release(&s->task, 0);
			return t0;
		}
	}
	return 0;
}

/* Pairs: X was hit. A second X before Y restarts the measurement. */
static notrace void kstats_pair_start(struct kstats_probe *p)
{
	u64 now = kstats_now();

	if (p->key == KSTATS_KEY_TASK)
		kstats_task_start(p, now);
	else
		this_cpu_write(*p->t0, now);
}

/* Pairs: Y was hit. */
static notrace void kstats_pair_end(struct kstats_probe *p)
{
	u64 now = kstats_now();
	u64 t0;

	if (p->key == KSTATS_KEY_TASK)
		t0 = kstats_task_take(p);
	else
		t0 = this_cpu_xchg(*p->t0, 0);
	if (!t0) {
		this_cpu_inc(p->stats->unpaired);
		return;
	}
	kstats_record(p->ks, kstats_since(now, t0));
}

/* ---------------------------------------------------------------------- */
/* Mechanism glue: each calls one of the bodies above. */

static notrace int kstats_krp_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	kstats_call_begin((u64 *)ri->data);
	return 0;
}

static notrace int kstats_krp_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct kstats_probe *p = container_of(get_kretprobe(ri),
					      struct kstats_probe, rp);

	kstats_call_end(p, *(u64 *)ri->data);
	return 0;
}

static notrace int kstats_krp_pcpu_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	struct kstats_probe *p = container_of(get_kretprobe(ri),
					      struct kstats_probe, rp);

	/* Non-zero: the return of this call is not hooked. */
	return kstats_pcpu_begin(p, (int *)ri->data) ? 0 : 1;
}

static notrace int kstats_krp_pcpu_ret(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct kstats_probe *p = container_of(get_kretprobe(ri),
					      struct kstats_probe, rp);

	kstats_pcpu_end(p, *(int *)ri->data);
	return 0;
}

#ifdef KSTATS_HAVE_FPROBE
static notrace int kstats_fp_entry(struct fprobe *fp, unsigned long ip,
				   unsigned long ret_ip, struct pt_regs *regs,
				   void *data)
{
	kstats_call_begin(data);
	return 0;
}

static notrace void kstats_fp_exit(struct fprobe *fp, unsigned long ip,
				   unsigned long ret_ip, struct pt_regs *regs,
				   void *data)
{
	kstats_call_end(container_of(fp, struct kstats_probe, fp),
			*(u64 *)data);
}

static notrace int kstats_fp_pcpu_entry(struct fprobe *fp, unsigned long ip,
					unsigned long ret_ip,
					struct pt_regs *regs, void *data)
{
	struct kstats_probe *p = container_of(fp, struct kstats_probe, fp);

	/* Non-zero: the exit handler is not called for this call. */
	return kstats_pcpu_begin(p, data) ? 0 : 1;
}

static notrace void kstats_fp_pcpu_exit(struct fprobe *fp, unsigned long ip,
					unsigned long ret_ip,
					struct pt_regs *regs, void *data)
{
	kstats_pcpu_end(container_of(fp, struct kstats_probe, fp),
			*(int *)data);
}
#endif

static notrace int kstats_kp_start(struct kprobe *kp, struct pt_regs *regs)
{
	kstats_pair_start(container_of(kp, struct kstats_probe, start.kp));
	return 0;
}

static notrace int kstats_kp_end(struct kprobe *kp, struct pt_regs *regs)
{
	kstats_pair_end(container_of(kp, struct kstats_probe, end.kp));
	return 0;
}

/* Tracepoint probes: @data is the entry; the tracepoint's args are unused. */
static notrace void kstats_tp_start(void *data)
{
	kstats_pair_start(data);
}

static notrace void kstats_tp_end(void *data)
{
	kstats_pair_end(data);
}

/* key task: a task that exits with a start pending frees its slot. */
static notrace void kstats_tp_task_exit(void *data)
{
	kstats_task_take(data);
}

/* ---------------------------------------------------------------------- */
/* Lookups, attach and detach; all under kstats_control_mutex. */

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

/* Tracepoint @name of the kernel or of a loaded module; @mod its owner. */
static struct tracepoint *kstats_find_tp(const char *name, struct module **mod)
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

static const char *kstats_mech_name(const struct kstats_probe *p)
{
	switch (p->mech) {
	case KSTATS_MECH_KRETPROBE:
		return p->pcpu ? "pcpu-kretprobe" : "kretprobe";
	case KSTATS_MECH_FPROBE:
		return p->pcpu ? "pcpu-fprobe" : "fprobe";
	default:
		return "pair";
	}
}

/* No probe on kstats itself: its handlers would recurse. */
static int kstats_check_addr(struct kstats_cmd *cmd, const char *what,
			     unsigned long addr)
{
	if (within_module(addr, THIS_MODULE))
		return kstats_fail(cmd, -EINVAL, "%s is part of kstats itself",
				   what);
	return 0;
}

/* Explain an error of register_kprobe() and friends. */
static int kstats_kprobe_error(struct kstats_cmd *cmd, const char *what,
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

/* Register a disabled kretprobe on FUNC; enabled once the entry is seen. */
static int kstats_attach_kretprobe(struct kstats_probe *p,
				   struct kstats_cmd *cmd)
{
	struct kretprobe *rp = &p->rp;
	int ret;

	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = p->start.target.sym;
	rp->kp.flags = KPROBE_FLAG_DISABLED;
	rp->entry_handler = p->pcpu ? kstats_krp_pcpu_entry : kstats_krp_entry;
	rp->handler = p->pcpu ? kstats_krp_pcpu_ret : kstats_krp_ret;
	rp->data_size = p->pcpu ? sizeof(int) : sizeof(u64);
	rp->maxactive = max_t(int, 20, 2 * num_possible_cpus());
	ret = register_kretprobe(rp);
	if (ret)
		return kstats_kprobe_error(cmd, "trace", &p->start.target, ret);
	p->registered = true;
	p->addr = (unsigned long)rp->kp.addr;
	return kstats_check_addr(cmd, p->start.target.sym, p->addr);
}

#ifdef KSTATS_HAVE_FPROBE
/* Address of @t through a kprobe that is registered but never armed. */
static int kstats_resolve(struct kstats_cmd *cmd, const char *what,
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
	return kstats_check_addr(cmd, what, *addr);
}

/* Register a disabled fprobe on FUNC at p->addr. */
static int kstats_attach_fprobe(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct fprobe *fp = &p->fp;
	int ret;

	memset(fp, 0, sizeof(*fp));
	fp->flags = FPROBE_FL_DISABLED;
	fp->entry_handler = p->pcpu ? kstats_fp_pcpu_entry : kstats_fp_entry;
	fp->exit_handler = p->pcpu ? kstats_fp_pcpu_exit : kstats_fp_exit;
	fp->entry_data_size = p->pcpu ? sizeof(int) : sizeof(u64);
	fp->nr_maxactive = max_t(int, 20, 2 * num_possible_cpus());
	ret = register_fprobe_ips(fp, &p->addr, 1);
	if (ret == -ENOENT || ret == -EINVAL)
		return kstats_fail(cmd, -EINVAL, "ftrace cannot trace %s",
				   p->start.target.sym);
	if (ret)
		return kstats_fail(cmd, ret, "fprobe on %s failed (error %d)",
				   p->start.target.sym, ret);
	p->registered = true;
	return 0;
}
#endif

/* trace FUNC and trace pcpu:FUNC: fprobe if there is, else kretprobe. */
static int kstats_attach_func(struct kstats_probe *p, struct kstats_cmd *cmd)
{
#ifdef KSTATS_HAVE_FPROBE
	int ret;
#endif

	if (cmd->via == KSTATS_VIA_KRETPROBE) {
		p->mech = KSTATS_MECH_KRETPROBE;
		return kstats_attach_kretprobe(p, cmd);
	}
#ifdef KSTATS_HAVE_FPROBE
	p->mech = KSTATS_MECH_FPROBE;
	ret = kstats_resolve(cmd, "trace", &p->start.target, &p->addr);
	if (ret)
		return ret;
	ret = kstats_attach_fprobe(p, cmd);
	if (ret == -EINVAL && cmd->via == KSTATS_VIA_AUTO) {
		/* Not traceable by ftrace: kprobes may still do it. */
		p->mech = KSTATS_MECH_KRETPROBE;
		return kstats_attach_kretprobe(p, cmd);
	}
	return ret;
#else
	if (cmd->via == KSTATS_VIA_FPROBE)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "this kernel has no fprobe (CONFIG_FPROBE)");
	p->mech = KSTATS_MECH_KRETPROBE;
	return kstats_attach_kretprobe(p, cmd);
#endif
}

/* X or Y of a pair: a disabled kprobe, or a live tracepoint probe. */
static int kstats_attach_endpoint(struct kstats_probe *p,
				  struct kstats_endpoint *ep, bool start,
				  struct kstats_cmd *cmd)
{
	const char *what = start ? "start" : "end";
	struct kprobe *kp = &ep->kp;
	int ret;

	if (ep->target.tracepoint) {
		if (!KSTATS_HAVE_TP_PROBES)
			return kstats_fail(cmd, -EOPNOTSUPP,
					   "%s: tracepoints are not supported with CONFIG_CFI_CLANG",
					   what);
		ep->tp = kstats_find_tp(ep->target.sym, &ep->tp_mod);
		if (!ep->tp)
			return kstats_fail(cmd, -ENOENT, "%s: no tracepoint %s",
					   what, ep->target.sym);
		ret = tracepoint_probe_register(ep->tp, start ?
						(void *)kstats_tp_start :
						(void *)kstats_tp_end, p);
		if (ret)
			return kstats_fail(cmd, ret, "%s: tracepoint %s refused (error %d)",
					   what, ep->target.sym, ret);
		ep->registered = true;
		return 0;
	}

	kp->symbol_name = ep->target.sym;
	kp->offset = ep->target.offset;
	kp->flags = KPROBE_FLAG_DISABLED;
	kp->pre_handler = start ? kstats_kp_start : kstats_kp_end;
	ret = register_kprobe(kp);
	if (ret)
		return kstats_kprobe_error(cmd, what, &ep->target, ret);
	ep->registered = true;
	return kstats_check_addr(cmd, what, (unsigned long)kp->addr);
}

static void kstats_detach_endpoint(struct kstats_probe *p,
				   struct kstats_endpoint *ep, bool start,
				   bool *tp_sync)
{
	if (!ep->registered)
		return;
	ep->registered = false;
	if (ep->tp) {
		tracepoint_probe_unregister(ep->tp, start ?
					    (void *)kstats_tp_start :
					    (void *)kstats_tp_end, p);
		*tp_sync = true;
	} else {
		/* Waits for pre-handlers in flight. */
		unregister_kprobe(&ep->kp);
	}
}

/*
 * Unregister every probe of @p. When this returns, no handler of @p runs
 * or will run: unregister_kprobe() and unregister_kretprobe() wait for
 * handlers in flight, and returns still pending find their rethook
 * stopped; tracepoints need tracepoint_synchronize_unregister(); and
 * unregister_fprobe() stops its rethook before the ftrace shutdown, whose
 * RCU wait an explicit synchronize_rcu() doubles for exit handlers.
 */
static void kstats_detach(struct kstats_probe *p)
{
	bool tp_sync = false;

	if (p->registered) {
		p->registered = false;
		if (p->mech == KSTATS_MECH_KRETPROBE) {
			unregister_kretprobe(&p->rp);
#ifdef KSTATS_HAVE_FPROBE
		} else if (p->mech == KSTATS_MECH_FPROBE) {
			unregister_fprobe(&p->fp);
			synchronize_rcu();
#endif
		}
	}
	kstats_detach_endpoint(p, &p->start, true, &tp_sync);
	kstats_detach_endpoint(p, &p->end, false, &tp_sync);
	if (p->exit_hook) {
		p->exit_hook = false;
		tracepoint_probe_unregister(kstats_exit_tp,
					    (void *)kstats_tp_task_exit, p);
		tp_sync = true;
	}
	if (tp_sync)
		tracepoint_synchronize_unregister();
}

static void kstats_probe_free(struct kstats_probe *p)
{
	free_percpu(p->t0);
	free_percpu(p->stats);
	kvfree(p->tasks);
	kfree(p);
}

static struct kstats_probe *kstats_probe_alloc(const struct kstats_cmd *cmd)
{
	struct kstats_probe *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	p->pcpu = cmd->op == KSTATS_CMD_TRACE_PCPU;
	p->key = cmd->key;
	p->start.target = cmd->start;
	p->end.target = cmd->end;
	p->stats = alloc_percpu(struct kstats_probe_stats);
	if (!p->stats)
		goto fail;
	if (p->pcpu || (cmd->op == KSTATS_CMD_TRACE_PAIR &&
			cmd->key == KSTATS_KEY_CPU)) {
		p->t0 = alloc_percpu(u64);
		if (!p->t0)
			goto fail;
	}
	if (cmd->op == KSTATS_CMD_TRACE_PAIR && cmd->key == KSTATS_KEY_TASK) {
		p->tasks = kvcalloc(KSTATS_TASK_SLOTS, sizeof(*p->tasks),
				    GFP_KERNEL);
		if (!p->tasks)
			goto fail;
	}
	return p;
fail:
	kstats_probe_free(p);
	return NULL;
}

/* Attach the probes of a pair; kprobes stay disabled. */
static int kstats_attach_pair(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	int ret;

	p->mech = KSTATS_MECH_PAIR;
	if (p->key == KSTATS_KEY_TASK) {
		if (!kstats_exit_tp)
			return kstats_fail(cmd, -EOPNOTSUPP,
					   "key task needs the sched_process_exit tracepoint");
		ret = tracepoint_probe_register(kstats_exit_tp,
						(void *)kstats_tp_task_exit, p);
		if (ret)
			return kstats_fail(cmd, ret, "sched_process_exit refused (error %d)",
					   ret);
		p->exit_hook = true;
	}
	/* The end first, so that no start waits for an end not yet there. */
	ret = kstats_attach_endpoint(p, &p->end, false, cmd);
	if (!ret)
		ret = kstats_attach_endpoint(p, &p->start, true, cmd);
	return ret;
}

static bool kstats_name_taken(const char *name)
{
	bool taken;

	mutex_lock(&kstats_mutex);
	taken = kstats_find(name);
	mutex_unlock(&kstats_mutex);
	return taken;
}

static int kstats_trace(struct kstats_cmd *cmd)
{
	struct kstats_probe *p;
	struct kstats *ks;
	int ret;

	lockdep_assert_held(&kstats_control_mutex);
	if (kstats_name_taken(cmd->name))
		return kstats_fail(cmd, -EEXIST, "entry %s exists", cmd->name);

	p = kstats_probe_alloc(cmd);
	if (!p)
		return kstats_fail(cmd, -ENOMEM, "out of memory");
	ks = kstats_alloc(cmd->name, cmd->bits);
	if (IS_ERR(ks)) {
		kstats_probe_free(p);
		return kstats_fail(cmd, PTR_ERR(ks), "cannot create entry %s",
				   cmd->name);
	}
	ks->origin = KSTATS_ORIGIN_CONTROL;
	ks->probe = p;
	p->ks = ks;

	if (cmd->op == KSTATS_CMD_TRACE_PAIR)
		ret = kstats_attach_pair(p, cmd);
	else
		ret = kstats_attach_func(p, cmd);
	if (!ret) {
		ret = kstats_publish(ks);
		if (ret)
			kstats_fail(cmd, ret, "cannot create entry %s (error %d)",
				    cmd->name, ret);
	}
	if (ret) {
		kstats_detach(p);
		kstats_free(ks);
		kstats_probe_free(p);
		return ret;
	}

	/* Visible now: let the disabled probes fire. End before start. */
	if (p->end.registered && !p->end.tp)
		enable_kprobe(&p->end.kp);
	if (p->start.registered && !p->start.tp)
		enable_kprobe(&p->start.kp);
	if (p->mech == KSTATS_MECH_KRETPROBE)
		enable_kprobe(&p->rp.kp);
#ifdef KSTATS_HAVE_FPROBE
	if (p->mech == KSTATS_MECH_FPROBE)
		enable_fprobe(&p->fp);
#endif
	list_add_tail(&p->node, &kstats_probes);
	return 0;
}

/* Detach and delete a control entry. */
static void kstats_destroy(struct kstats_probe *p)
{
	list_del(&p->node);
	kstats_detach(p);
	/* Waits for readers and writers of its file. */
	kstats_delete(p->ks);
	kstats_probe_free(p);
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
	kstats_destroy(ks->probe);
	return 0;
}

int kstats_probe_command(struct kstats_cmd *cmd)
{
	int ret;

	mutex_lock(&kstats_control_mutex);
	if (cmd->op == KSTATS_CMD_REMOVE)
		ret = kstats_remove(cmd);
	else
		ret = kstats_trace(cmd);
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

void kstats_probe_show(struct seq_file *m, const struct kstats *ks)
{
	const struct kstats_probe *p = ks->probe;
	struct kstats_probe_stats sum = {};
	unsigned long missed = 0;
	const char *state;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct kstats_probe_stats *s = per_cpu_ptr(p->stats, cpu);

		sum.skipped += READ_ONCE(s->skipped);
		sum.dropped += READ_ONCE(s->dropped);
		sum.unpaired += READ_ONCE(s->unpaired);
	}
	if (p->mech == KSTATS_MECH_KRETPROBE)
		missed = READ_ONCE(p->rp.nmissed) + READ_ONCE(p->rp.kp.nmissed);
#ifdef KSTATS_HAVE_FPROBE
	else if (p->mech == KSTATS_MECH_FPROBE)
		missed = READ_ONCE(p->fp.nmissed);
#endif
	else
		missed = READ_ONCE(p->start.kp.nmissed) +
			 READ_ONCE(p->end.kp.nmissed);

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
	}
	seq_printf(m, " bits %u state %s missed %lu", ks->frac_bits, state,
		   missed);
	if (p->pcpu)
		seq_printf(m, " skipped %lu", sum.skipped);
	if (p->mech == KSTATS_MECH_PAIR)
		seq_printf(m, " dropped %lu unpaired %lu", sum.dropped,
			   sum.unpaired);
	seq_putc(m, '\n');
}

/* ---------------------------------------------------------------------- */
/* Code going away: detach the entries that use it. */

static void kstats_gone(struct kstats_probe *p, struct module *mod)
{
	kstats_detach(p);
	WRITE_ONCE(p->gone, true);
	pr_info("%s: module %s unloaded, probes detached\n", p->ks->name,
		mod->name);
}

static bool kstats_uses_text(struct kstats_probe *p, struct module *mod)
{
	if (p->mech != KSTATS_MECH_PAIR)
		return within_module(p->addr, mod);
	return (p->start.registered && !p->start.tp &&
		within_module((unsigned long)p->start.kp.addr, mod)) ||
	       (p->end.registered && !p->end.tp &&
		within_module((unsigned long)p->end.kp.addr, mod));
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
	struct module *mod;
	int ret;

	mutex_lock(&kstats_control_mutex);
	kstats_exit_tp = kstats_find_tp("sched_process_exit", &mod);
	mutex_unlock(&kstats_control_mutex);

	ret = register_module_notifier(&kstats_module_nb);
	if (ret)
		return ret;
	ret = register_tracepoint_module_notifier(&kstats_tp_module_nb);
	if (ret)
		unregister_module_notifier(&kstats_module_nb);
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
	/* Replays GOING for the modules in kstats_tp_modules: frees them. */
	unregister_tracepoint_module_notifier(&kstats_tp_module_nb);
	unregister_module_notifier(&kstats_module_nb);
}
