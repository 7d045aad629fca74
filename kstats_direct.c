// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: mechanisms. Calls the shared probe helpers, the
 * BTF helpers, the record core and kstats_tramp.ko.
 *
 * kstats mechanism "direct", for trace FUNC with "via direct" on x86-64:
 * an ftrace direct call from FUNC's fentry site to one of the static
 * trampolines of kstats_tramp.ko (kstats_tramp.h), which calls FUNC's
 * body itself and so sees it return (fexit-class: no return hook, no
 * per-call storage outside the trampoline's own frame). Built where the
 * kernel has CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS (Kbuild defines
 * KSTATS_HAVE_DIRECT).
 *
 * The trampolines and their slots are kstats_tramp.ko's: a task asleep
 * inside a measured call of FUNC returns into its trampoline, and the
 * slot drains there, with its calls counted and tasks that die inside
 * counted out, while kstats.ko may go: the trampolines call the hooks
 * here (kstats_direct_begin() and kstats_direct_end()) until module
 * exit unhooks them. So rmmod detaches direct entries as it does the
 * others', and a removed entry's sleepers keep only kstats_tramp.ko.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/error-injection.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/rcupdate_wait.h>
#include <linux/string.h>
#include "kstats_compat.h"
#include "kstats_btf.h"
#include "kstats_handler.h"
#include "kstats_mech.h"
#include "kstats_probe.h"
#include "kstats_target.h"
#include "kstats_tramp.h"

/* What kstats.ko keeps of a slot of kstats_tramp.ko. */
struct kstats_direct_slot {
	unsigned long ip;		/* FUNC's fentry site, as registered */
	struct ftrace_ops ops;
};

/* Under kstats_control_mutex. */
static struct kstats_direct_slot kstats_direct_slots[KSTATS_DIRECT_MAX];
/* Whether kstats_tramp.ko calls the hooks below: from the first attach. */
static bool kstats_direct_hooked;
/*
 * The entry of each slot, read by the hooks (an array of pointers, not a
 * slot field: one indexed load); NULL: calls go straight to FUNC. Read
 * mostly, and so in a section of its own here: arm64 then addresses it
 * from its own page offset, not from an anchor shared with those above.
 */
static struct kstats_probe *kstats_direct_probes[KSTATS_DIRECT_MAX] __read_mostly;

/* ---------------------------------------------------------------------- */
/* Called by the trampolines. */

/*
 * The trampoline's caller may be preemptible, and these may run
 * preemptible too: kstats_direct_detach() waits for an RCU-tasks grace
 * period (tasks preempted here, which never sleep here) and an RCU one
 * (interrupts) before the probe may go; kstats_tramp_unhook() the same
 * before kstats.ko may. kstats_tramp.ko counts the calls in flight.
 */

/* The calls timed for overhead_ns, out of line: the others stay lean. */
static noinline notrace u64 kstats_direct_begin_timed(struct kstats_probe *p)
{
	struct kstats_timed tm;
	u64 t0;

	kstats_timed_arm(&tm);
	kstats_call_begin(p, &t0);
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	return t0;
}

/*
 * trace FUNC by argN: the key read at FUNC's entry stands in for the
 * return value (kstats_call_end_by()).
 */
static noinline notrace void
kstats_direct_end_by(struct kstats_probe *p, const struct kstats_tramp_call *c)
{
	struct kstats_call_by by = { .t0 = c->t0, .by = c->key };

	kstats_call_end_by(p, &by, 0);
}

static __always_inline void kstats_direct_call_end(struct kstats_probe *p,
						   const struct kstats_tramp_call *c,
						   unsigned long ret)
{
	if (unlikely(p->by_arg))
		kstats_direct_end_by(p, c);
	else
		kstats_call_end(p, c->t0, ret, 0);
}

static noinline notrace void
kstats_direct_end_timed(struct kstats_probe *p,
			const struct kstats_tramp_call *c, unsigned long ret)
{
	struct kstats_timed tm;

	kstats_timed_arm(&tm);
	kstats_direct_call_end(p, c, ret);
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
}

/*
 * The guarded start, where it reads a clock that calls out or is timed
 * for overhead_ns: what it calls may be traced, and re-enter here. An
 * inline clock comes here only for a timed call (kstats_direct_begin()
 * has counted it in kstats_timed_due() already).
 */
static noinline notrace u64
kstats_direct_begin_guarded(struct kstats_probe *p)
{
	unsigned int saved;
	u64 t0;

	preempt_disable_notrace();
	if (unlikely(!kstats_guard_enter(p, &saved))) {
		t0 = 0;
		goto out;
	}
	if (kstats_clock_inline(p) || kstats_timed_due(p))
		t0 = kstats_direct_begin_timed(p);
	else
		kstats_call_begin(p, &t0);
	kstats_guard_exit(saved);
out:
	preempt_enable_notrace();
	return t0;
}

/*
 * @c->key of a lean entry's call (which has no by argN key): whether its
 * end goes the lean way (0), or the other one, timed or in the idle task.
 */
#define KSTATS_DIRECT_TIMED	1UL	/* timed for overhead_ns */
#define KSTATS_DIRECT_IDLE	2UL	/* the idle task's, counted apart */

/*
 * The start of a call that is not a lean entry's untimed one in a task:
 * the guard where a clock calls out or the call is timed for overhead_ns;
 * by argN reads its key.
 */
static noinline notrace u64 kstats_direct_begin_other(struct kstats_probe *p,
						      unsigned int slot,
						      struct kstats_tramp_call *c,
						      bool timed)
{
	u64 t0;

	BUILD_BUG_ON(KSTATS_REG_ARGS > KSTATS_TRAMP_REGS);
	if (kstats_stopped(p))
		return 0;
	if (p->shape != KSTATS_SHAPE_FULL) {
		c->key = (timed ? KSTATS_DIRECT_TIMED : 0) |
			 (is_idle_task(current) ? KSTATS_DIRECT_IDLE : 0);
		t0 = timed ? kstats_direct_begin_guarded(p) :
			kstats_call_begin_lean();
	} else {
		c->key = p->by_arg ?
			kstats_keys_arg_key(p, c->regs[p->by_arg - 1]) : 0;
		if (likely(kstats_clock_inline(p)) && likely(!kstats_timed_due(p)))
			t0 = kstats_clock(p);
		else
			t0 = kstats_direct_begin_guarded(p);
	}
	if (likely(t0))
		kstats_tramp_count_in(slot);
	return t0;
}

/*
 * 0: FUNC's body runs unmeasured, and no kstats_direct_end() follows.
 * A start time of 0 cannot happen once modules load (see kstats_now());
 * a TSC reading of 0 would only lose that one sample.
 *
 * With an inline clock (the TSC), a start that is not timed calls
 * nothing: nothing can re-enter it, so it takes no guard, and no
 * preemption off (each per-CPU update is one instruction). The untimed
 * start of an entry of a lean shape (enum kstats_shape) in a task reads
 * the cycle counter, tests nothing else and calls nothing: the others are
 * a tail call away, and leaves @c->key 0, as the trampoline wrote it. Its
 * state it leaves to the trampoline, which has just read it, and to the
 * end, which reads it again.
 */
static notrace u64 kstats_direct_begin(unsigned long slot,
				       struct kstats_tramp_call *c)
{
	struct kstats_probe *p = READ_ONCE(kstats_direct_probes[slot]);
	bool timed;
	u64 t0;

	if (!p)
		return 0;
	if (unlikely(p->shape == KSTATS_SHAPE_FULL))
		return kstats_direct_begin_other(p, slot, c, false);
	timed = kstats_timed_due(p);
	if (unlikely(timed || is_idle_task(current)))
		return kstats_direct_begin_other(p, slot, c, timed);
	t0 = kstats_call_begin_lean();
	if (likely(t0))
		kstats_tramp_count_in_task(slot);
	return t0;
}

/*
 * The end of every call but a lean entry's untimed ones: guarded, as
 * what it calls (a clock, the keys, the outliers' stack walk) may be
 * traced and re-enter here.
 */
static noinline notrace void
kstats_direct_end_other(struct kstats_probe *p, unsigned int slot,
			const struct kstats_tramp_call *c, unsigned long ret)
{
	unsigned int saved;
	bool timed;

	/* NULL: the entry was removed while the call ran. */
	if (p) {
		timed = p->shape != KSTATS_SHAPE_FULL ?
			c->key & KSTATS_DIRECT_TIMED : kstats_timed_due(p);
		preempt_disable_notrace();
		if (likely(kstats_guard_enter(p, &saved))) {
			if (timed)
				kstats_direct_end_timed(p, c, ret);
			else
				kstats_direct_call_end(p, c, ret);
			kstats_guard_exit(saved);
		}
		preempt_enable_notrace();
	}
	kstats_tramp_count_out(slot);
}

/* A sample of an outliers entry above its CPU's floor, guarded. */
static noinline notrace void kstats_direct_outlier(struct kstats_probe *p,
						   u64 d, unsigned long ret)
{
	unsigned int saved;

	preempt_disable_notrace();
	if (likely(kstats_guard_enter(p, &saved))) {
		kstats_outliers_add(p, d, ret, 0);
		kstats_guard_exit(saved);
	}
	preempt_enable_notrace();
}

/*
 * A sample of an entry with keys that the end reads. Its shape was not
 * KSTATS_SHAPE_KEYS_FROZEN: the keys are not being reset, or the reset
 * waits for this task (kstats_keys_lean()). Preemption stays on, as for
 * the plain sample.
 */
static noinline notrace void kstats_direct_keyed(struct kstats_probe *p, u64 d,
						 unsigned long ret)
{
	kstats_keys_record_thawed(p, d, kstats_pos_of(d, p->ks->frac_bits),
				  ret, 0, p->keys->src);
}

/* The same by comm, the most used key: the key's source is known. */
static noinline notrace void kstats_direct_by_comm(struct kstats_probe *p,
						   u64 d, unsigned long ret)
{
	kstats_keys_record_thawed(p, d, kstats_pos_of(d, p->ks->frac_bits),
				  ret, 0, KSTATS_BY_COMM);
}

/*
 * The untimed ends of the lean shapes but the plain one: the sample, and
 * what the shape adds to it a tail call away. The call is counted out
 * first: what follows runs in this module, which its unhook waits for.
 * One function each, so that none keeps a frame for another's needs.
 */
static __always_inline void
kstats_direct_end_keyed_by(struct kstats_probe *p, unsigned int slot,
			   const struct kstats_tramp_call *c, unsigned long ret,
			   void (*keyed)(struct kstats_probe *p, u64 d,
					 unsigned long ret))
{
	bool taken;
	u64 d;

	taken = kstats_call_end_lean(p, c->t0, &d);
	kstats_tramp_count_out_task(slot);
	if (taken)
		keyed(p, d, ret);
}

static noinline notrace void
kstats_direct_end_comm(struct kstats_probe *p, unsigned int slot,
		       const struct kstats_tramp_call *c, unsigned long ret)
{
	kstats_direct_end_keyed_by(p, slot, c, ret, kstats_direct_by_comm);
}

static noinline notrace void
kstats_direct_end_outliers(struct kstats_probe *p, unsigned int slot,
			   const struct kstats_tramp_call *c, unsigned long ret)
{
	u64 d;

	if (kstats_call_end_lean(p, c->t0, &d))
		__kstats_add_sample(p->ks, d);
	else
		d = 0;
	kstats_tramp_count_out_task(slot);
	if (kstats_outliers_due(p, d))
		kstats_direct_outlier(p, d, ret);
}

static noinline notrace void
kstats_direct_end_keys(struct kstats_probe *p, unsigned int slot,
		       const struct kstats_tramp_call *c, unsigned long ret)
{
	kstats_direct_end_keyed_by(p, slot, c, ret, kstats_direct_keyed);
}

/* Into the entry's own slots, which the reset of its keys clears next. */
static noinline notrace void
kstats_direct_end_frozen(struct kstats_probe *p, unsigned int slot,
			 const struct kstats_tramp_call *c)
{
	u64 d;

	if (kstats_call_end_lean(p, c->t0, &d))
		__kstats_add_sample(p->ks, d);
	kstats_tramp_count_out_task(slot);
}

static noinline notrace void
kstats_direct_end_shaped(struct kstats_probe *p, unsigned int slot,
			 const struct kstats_tramp_call *c, unsigned long ret)
{
	/* The cleared keys before the thaw: see kstats_keys_reset(). */
	u8 shape = smp_load_acquire(&p->shape);

	if (shape == KSTATS_SHAPE_COMM)
		kstats_direct_end_comm(p, slot, c, ret);
	else if (shape == KSTATS_SHAPE_OUTLIERS)
		kstats_direct_end_outliers(p, slot, c, ret);
	else if (shape == KSTATS_SHAPE_KEYS)
		kstats_direct_end_keys(p, slot, c, ret);
	else if (shape == KSTATS_SHAPE_KEYS_FROZEN)
		kstats_direct_end_frozen(p, slot, c);
	else
		kstats_direct_end_other(p, slot, c, ret);
}

/*
 * An untimed call of a lean entry in a task ends calling nothing, so, as
 * its start, without a guard. The plain shape's end is here, the others a tail call
 * away. Preemption stays on: each update of the sample is one irq-safe
 * instruction, and a task moved between them leaves its sum and its count
 * on two CPUs, which kstats_slot_mean() clamps (the sums of all CPUs stay
 * exact).
 */
static notrace void kstats_direct_end(unsigned long slot,
				      const struct kstats_tramp_call *c,
				      unsigned long ret)
{
	struct kstats_probe *p = READ_ONCE(kstats_direct_probes[slot]);
	u64 d;

	if (unlikely(!p || c->key)) {
		kstats_direct_end_other(p, slot, c, ret);
		return;
	}
	if (unlikely(p->shape != KSTATS_SHAPE_LEAN)) {
		kstats_direct_end_shaped(p, slot, c, ret);
		return;
	}
	if (kstats_call_end_lean(p, c->t0, &d))
		__kstats_add_sample(p->ks, d);
	kstats_tramp_count_out_task(slot);
}

static const struct kstats_tramp_hooks kstats_direct_hooks = {
	.begin = kstats_direct_begin,
	.end = kstats_direct_end,
};

/* ---------------------------------------------------------------------- */
/* Slots; under kstats_control_mutex. */

static int kstats_direct_get_slot(struct kstats_cmd *cmd)
{
	unsigned int draining = 0;
	int ret;

	if (!kstats_direct_hooked) {
		ret = kstats_tramp_hook(&kstats_direct_hooks);
		if (ret)
			return kstats_fail(cmd, ret,
					   "direct: kstats_tramp serves another user (error %d)",
					   ret);
		kstats_direct_hooked = true;
	}
	ret = kstats_tramp_get(&draining);
	if (ret == -EOPNOTSUPP)
		return kstats_fail(cmd, ret,
				   "direct needs the sched_process_exit tracepoint and a CPU hotplug state (tasks that die inside a call)");
	if (ret < 0)
		return kstats_fail(cmd, ret,
				   "direct: all %d trampolines in use (%u draining)",
				   KSTATS_DIRECT_MAX, draining);
	return ret;
}

/*
 * A livepatch, or a kprobe with a post_handler, on FUNC modifies the
 * return address of FUNC's fentry call (IPMODIFY); ftrace then reaches
 * the trampoline through its regs caller, with that return address
 * changed. The trampoline calls whatever that address is, as BPF's does
 * with BPF_TRAMP_F_ORIG_STACK: it shares the site as it is, in either
 * order of registration.
 */
static int kstats_direct_ops_func(struct ftrace_ops *ops,
				  KSTATS_OPS_FUNC_IP_ARG enum ftrace_ops_cmd cmd)
{
	return 0;
}

#ifdef KSTATS_DIRECT_OPS	/* 6.5 on: an ftrace_ops per direct caller */
#define kstats_register_direct(ops, addr)	register_ftrace_direct(ops, addr)
#define kstats_unregister_direct(ops, addr)	\
	unregister_ftrace_direct(ops, addr, false)
#else				/* 5.16 to 6.4: the same, named _multi */
#define kstats_register_direct(ops, addr)	\
	register_ftrace_direct_multi(ops, addr)
#define kstats_unregister_direct(ops, addr)	\
	unregister_ftrace_direct_multi(ops, addr)
#endif

static int kstats_direct_register(struct kstats_direct_slot *s,
				  unsigned long tramp)
{
	int ret;

	memset(&s->ops, 0, sizeof(s->ops));
	s->ops.ops_func = kstats_direct_ops_func;
	ret = ftrace_set_filter_ip(&s->ops, s->ip, 0, 0);
	if (!ret)
		ret = kstats_register_direct(&s->ops, tramp);
	if (ret)
		ftrace_free_filter(&s->ops);
	return ret;
}

/*
 * noinline for fail_function (tests/guest/95-detach-fail.sh): a failure
 * must keep the trampoline and the probe.
 */
static noinline __noclone int
kstats_direct_unregister(struct kstats_direct_slot *s, unsigned long tramp)
{
	int ret = kstats_unregister_direct(&s->ops, tramp);

	if (!ret)
		ftrace_free_filter(&s->ops);
	return ret;
}
ALLOW_ERROR_INJECTION(kstats_direct_unregister, ERRNO);

/* Its probe: which trampoline, of kstats_direct_slots[], calls it. */
struct kstats_direct_probe {
	struct kstats_probe p;
	unsigned int slot;
};

static unsigned int kstats_direct_slot_of(const struct kstats_probe *p)
{
	return container_of(p, struct kstats_direct_probe, p)->slot;
}

/*
 * ftrace gives a function one direct caller: a plain trace FUNC that took
 * it leaves none to a BPF fentry/fexit program attached later. N keeps
 * plain traces off the direct site; "via direct" still takes it.
 */
static bool auto_direct = true;
module_param(auto_direct, bool, 0644);
MODULE_PARM_DESC(auto_direct,
		 "trace FUNC without via tries direct first (default Y; N leaves functions' direct-call site to BPF fentry/fexit)");

static bool kstats_direct_may_serve(const struct kstats_probe *p,
				    const struct kstats_cmd *cmd)
{
	return !p->pcpu && cmd->value == KSTATS_VALUE_TIME &&
	       !cmd->filter.flags && !cmd->counter && !p->start.target.offset;
}

/*
 * Check FUNC's prototype, take a slot and register its trampoline on
 * FUNC's fentry site. The slot's probe is published by enable.
 */
static int kstats_direct_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	char sym[KSYM_SYMBOL_LEN];
	struct kstats_direct_slot *s;
	const char *mod;
	int ret, slot;

	p->ops = &kstats_direct_ops;
	if (p->pcpu)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "via direct is only for trace FUNC");
	/* The trampoline has neither a filter check nor a value sampler. */
	if (cmd->value != KSTATS_VALUE_TIME || cmd->filter.flags)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "via direct samples runtimes only, without filters");
	if (!kstats_tramp_unwinder_exact())
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "direct: this kernel's unwinder guesses (UNWINDER_GUESS): the calls of a task dying inside FUNC could not be counted out");
	if (!p->addr) {
		ret = kstats_resolve(cmd, "trace", &p->start.target, &p->addr);
		if (ret)
			return ret;
	}
	if (p->start.target.offset)
		return kstats_fail(cmd, -EINVAL, "direct: not a function entry");
	/*
	 * calibrate's empty function takes one integer: its frame is known
	 * here, so the direct row exists where kstats.ko has no BTF too.
	 */
	if (!p->own_code) {
		mod = kstats_btf_module_of(p->addr, sym);
		ret = kstats_btf_regs_only(p->start.target.sym, mod, cmd->why,
					   sizeof(cmd->why));
		if (ret)
			return ret;
	}
	slot = kstats_direct_get_slot(cmd);
	if (slot < 0)
		return slot;
	s = &kstats_direct_slots[slot];
	s->ip = p->addr;
	ret = kstats_direct_register(s, kstats_tramp_addr(slot));
	if (ret) {
		/* Never called: it drains at once. */
		kstats_tramp_put(slot);
		if (ret == -EBUSY)
			return kstats_fail(cmd, ret,
					   "direct: %s already has a direct caller (another entry, BPF, ...)",
					   p->start.target.sym);
		return kstats_fail(cmd, ret,
				   "direct: ftrace cannot call a trampoline from %s (error %d)",
				   p->start.target.sym, ret);
	}
	container_of(p, struct kstats_direct_probe, p)->slot = slot;
	/* kstats_direct_keyed(), kstats_direct_by_comm() */
	if (p->keys && p->shape != KSTATS_SHAPE_FULL)
		kstats_keys_lean(p->keys, &p->shape, KSTATS_SHAPE_KEYS_FROZEN);
	p->registered = true;
	return 0;
}

static int kstats_direct_enable(struct kstats_probe *p)
{
	unsigned int slot = kstats_direct_slot_of(p);

	WRITE_ONCE(kstats_direct_probes[slot], p);
	kstats_tramp_set_active(slot, &p->ks->active);
	return 0;
}

/*
 * After unregistering, no new call enters the trampoline; the grace
 * periods let every task (RCU tasks) and interrupt (RCU) that may still
 * use @p, or @p's active flag, between the trampoline's entry and the
 * end of kstats_direct_begin(), or in kstats_direct_end(), through.
 * Calls still in flight then find no probe; the slot drains in
 * kstats_tramp.ko, which stays loaded until they have returned. A slot
 * that cannot be unregistered stays this entry's (the caller keeps it).
 */
static void kstats_direct_detach(struct kstats_probe *p)
{
	unsigned int slot = kstats_direct_slot_of(p);
	struct kstats_direct_slot *s = &kstats_direct_slots[slot];
	long n;
	int ret;

	if (!p->registered)
		return;
	ret = kstats_direct_unregister(s, kstats_tramp_addr(slot));
	if (ret) {
		pr_err("%s: unregister_ftrace_direct() failed (error %d): its trampoline is kept, and kstats stays loaded\n",
		       p->ks->name, ret);
		return;
	}
	p->registered = false;
	kstats_tramp_set_active(slot, NULL);
	WRITE_ONCE(kstats_direct_probes[slot], NULL);
	synchronize_rcu_tasks();
	synchronize_rcu();
	n = kstats_tramp_in_flight(slot);
	kstats_tramp_put(slot);
	if (n > 0)
		pr_info("%s: %ld calls in flight in trampoline %u; kstats_tramp stays loaded until they return\n",
			p->ks->name, n, slot);
}

/*
 * Module exit, after every entry went: the trampolines call kstats.ko no
 * more once this returns.
 */
static void kstats_direct_exit(void)
{
	if (kstats_direct_hooked)
		kstats_tramp_unhook();
	kstats_direct_hooked = false;
}

/*
 * trace FUNC without "via": 0 if direct serves; 1 to pass the command on
 * (fprobe or kretprobe), with the reason logged; or the error of a FUNC
 * that no mechanism traces (no such symbol, blacklisted).
 */
static int kstats_direct_take(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	int ret;

	if (cmd->via == KSTATS_VIA_DIRECT)
		return kstats_direct_attach(p, cmd);
	if (!READ_ONCE(auto_direct) || !kstats_direct_may_serve(p, cmd))
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

static const char *kstats_direct_name(const struct kstats_probe *p)
{
	return "direct";
}

static void kstats_direct_cal_rows(const struct kstats_probe *p,
				   enum kstats_cal_mech rows[2])
{
	rows[0] = KSTATS_CAL_DIRECT;
	rows[1] = rows[0];
}

/* Stopped, the trampoline returns into FUNC after one test: no disable. */
const struct kstats_mech_ops kstats_direct_ops = {
	.cmds = KSTATS_FUNC_CMDS,
	.via = KSTATS_VIA_DIRECT,
	.size = KSTATS_MECH_SIZE(struct kstats_direct_probe),
	.name = kstats_direct_name,
	.attach = kstats_direct_take,
	.enable = kstats_direct_enable,
	.detach = kstats_direct_detach,
	.cal_rows = kstats_direct_cal_rows,
	.uses = kstats_func_uses,
	.exit = kstats_direct_exit,
};
