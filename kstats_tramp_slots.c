// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_tramp.ko: the slots of the direct trampolines (kstats_tramp.h).
 *
 * Each trampoline (kstats_tramp_ARCH.S) calls the hooks' begin at FUNC's
 * entry and their end when a measured call returns (on x86-64 through
 * kstats_tramp_begin() and kstats_tramp_end()): kstats.ko's, which count
 * the calls in flight per slot, per CPU, in this module's counters
 * (kstats_tramp.h). Once kstats.ko has
 * unhooked (module exit), they call stubs of this module: a call asleep
 * in FUNC then returns through its trampoline, is counted out there and
 * calls nothing outside this module.
 *
 * A slot is free, used by a direct entry, or draining: its entry is gone
 * and calls are still in flight. A draining slot is free again once the
 * sum is 0 and an RCU-tasks grace period after that has let every task
 * leave the trampoline's last instructions. Each slot not free holds a
 * reference on this module: it unloads only when no task can be in, or
 * return to, its text.
 *
 * A task that exits inside a measured call (exit(), a fatal signal, the
 * end of a kernel thread: every way into do_exit()) never returns to the
 * trampoline. The sched_process_exit tracepoint, which do_exit() passes
 * for every task, finds each such call by its return address into a
 * trampoline on the dying task's stack (kstats_tramp_stack_ARCH.c walks
 * it) and counts it out: so no function, named or not, keeps a slot past
 * the tasks inside it. Without that tracepoint no slot is handed out.
 *
 * The idle task of a CPU taken offline does not exit: it stops inside
 * do_idle() for good, and the CPU, if it comes back, starts its idle task
 * afresh on its stack. An idle task's calls are counted apart, on its own
 * CPU (it never migrates), and counted out once that CPU is dead.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/cpuhotplug.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/rcupdate_wait.h>
#include <linux/sched.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>
#include "kstats_compat.h"
#include "kstats_tramp.h"
#include "kstats_tramp_reap.h"

enum kstats_tramp_state {
	KSTATS_TRAMP_FREE,
	KSTATS_TRAMP_USED,	/* a direct entry's */
	KSTATS_TRAMP_DRAINING,	/* entry gone, calls still in flight */
};

/* Serialises the slots' states, the hooks and the drain. */
static DEFINE_MUTEX(kstats_tramp_mutex);
static enum kstats_tramp_state kstats_tramp_state[KSTATS_DIRECT_MAX];
/* Slots not free; read without the mutex by the exit probe. */
static unsigned int kstats_tramp_busy;
DEFINE_PER_CPU(long[KSTATS_DIRECT_MAX], kstats_tramp_inflight);
EXPORT_PER_CPU_SYMBOL_GPL(kstats_tramp_inflight);
DEFINE_PER_CPU(long[KSTATS_DIRECT_MAX], kstats_tramp_idle_inflight);
EXPORT_PER_CPU_SYMBOL_GPL(kstats_tramp_idle_inflight);

static const bool kstats_tramp_off;
const bool *kstats_direct_active[KSTATS_DIRECT_MAX] = {
	[0 ... KSTATS_DIRECT_MAX - 1] = &kstats_tramp_off,
};

/* sched_process_exit, or NULL where the kernel has none. */
static struct tracepoint *kstats_tramp_exit_tp;
/* The CPU hotplug state whose teardown counts out a dead CPU's idle task. */
static int kstats_tramp_hp_state;

static void kstats_tramp_drain_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(kstats_tramp_drain, kstats_tramp_drain_work);
/* How often a draining slot is looked at. */
#define KSTATS_TRAMP_DRAIN_PERIOD	(HZ / 10)

/* ---------------------------------------------------------------------- */
/* Called by the trampolines. */

/* The trampolines' frame layout (kstats_tramp_ARCH.S). */
static_assert(offsetof(struct kstats_tramp_call, key) == KSTATS_TRAMP_CALL_KEY);
static_assert(offsetof(struct kstats_tramp_call, t0) == KSTATS_TRAMP_CALL_T0);
static_assert(offsetof(struct kstats_tramp_call, regs) ==
	      KSTATS_TRAMP_CALL_REGS);

static notrace u64 kstats_tramp_no_begin(unsigned long slot,
					 struct kstats_tramp_call *c)
{
	return 0;
}

/* A call that kstats.ko's hooks counted in, returning after the unhook. */
static notrace void kstats_tramp_no_end(unsigned long slot,
					const struct kstats_tramp_call *c,
					unsigned long ret)
{
	kstats_tramp_count_out(slot);
}

static const struct kstats_tramp_hooks kstats_tramp_no_hooks = {
	.begin = kstats_tramp_no_begin,
	.end = kstats_tramp_no_end,
};

const struct kstats_tramp_hooks *kstats_tramp_hooks = &kstats_tramp_no_hooks;

/* The trampolines' assembly reads the hooks at these offsets. */
static_assert(offsetof(struct kstats_tramp_hooks, begin) == KSTATS_TRAMP_HOOK_BEGIN);
static_assert(offsetof(struct kstats_tramp_hooks, end) == KSTATS_TRAMP_HOOK_END);

#ifndef CONFIG_ARM64
/*
 * Preemptible or not, in any context: this_cpu ops are preemption-safe.
 * Not traceable (notrace, NOKPROBE): a hook here would recurse.
 */
notrace u64 kstats_tramp_begin(unsigned long slot, struct kstats_tramp_call *c)
{
	return READ_ONCE(kstats_tramp_hooks)->begin(slot, c);
}
NOKPROBE_SYMBOL(kstats_tramp_begin);

notrace void kstats_tramp_end(unsigned long slot,
			      const struct kstats_tramp_call *c,
			      unsigned long ret)
{
	READ_ONCE(kstats_tramp_hooks)->end(slot, c, ret);
}
NOKPROBE_SYMBOL(kstats_tramp_end);
#endif

/* ---------------------------------------------------------------------- */
/* Tasks that exit inside a measured call. */

/*
 * The lowest and highest of the trampolines' return addresses: most
 * frames of a dying task are outside, and need no look at each slot.
 */
static unsigned long kstats_tramp_ret_lo __ro_after_init;
static unsigned long kstats_tramp_ret_hi __ro_after_init;

/* Where trampoline @i's call of FUNC's body returns to. */
static unsigned long kstats_tramp_ret_addr(unsigned int i)
{
	return kstats_direct_tramp_table[i] + kstats_direct_ret_offset[i];
}

/* The slot whose trampoline FUNC's body returns to at @addr, or -1. */
static notrace int kstats_tramp_slot_at(unsigned long addr)
{
	unsigned int i;

	if (addr < kstats_tramp_ret_lo || addr > kstats_tramp_ret_hi)
		return -1;
	for (i = 0; i < KSTATS_DIRECT_MAX; i++)
		if (addr == kstats_tramp_ret_addr(i))
			return i;
	return -1;
}

/* A return address on a dying task's stack: into a trampoline? */
static notrace void kstats_tramp_exit_ret(unsigned long addr)
{
	int slot = kstats_tramp_slot_at(addr);

	if (slot >= 0)
		this_cpu_dec(kstats_tramp_inflight[slot]);
}

/*
 * sched_process_exit, in do_exit() of the dying task itself: it never
 * returns into the trampolines its stack names, so their calls are
 * counted out here. A frame the unwinder misses keeps its count (the slot
 * stays draining); none is counted out that is not there.
 */
static notrace void kstats_tramp_task_exit(KSTATS_EXIT_TP_PARAMS)
{
	if (!READ_ONCE(kstats_tramp_busy) || tsk != current)
		return;
	kstats_tramp_walk_current(kstats_tramp_exit_ret);
}

/*
 * The teardown of a dynamic BP state runs on a control CPU once @cpu is
 * dead: its idle task, inside play_dead() on a stack that is never
 * returned to, runs nothing more, and the calls it has in flight are
 * counted out.
 */
static int kstats_tramp_cpu_dead(unsigned int cpu)
{
	long *idle = per_cpu(kstats_tramp_idle_inflight, cpu);
	bool any = false;
	unsigned int i;

	for (i = 0; i < KSTATS_DIRECT_MAX; i++) {
		if (!idle[i])
			continue;
		WRITE_ONCE(idle[i], 0);
		any = true;
	}
	if (any)
		mod_delayed_work(system_wq, &kstats_tramp_drain, 0);
	return 0;
}

static void kstats_tramp_find_exit_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		*(struct tracepoint **)priv = tp;
}

/* ---------------------------------------------------------------------- */
/* Slots. */

long kstats_tramp_in_flight(unsigned int slot)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(kstats_tramp_inflight, cpu)[slot]) +
		       READ_ONCE(per_cpu(kstats_tramp_idle_inflight, cpu)[slot]);
	return sum;
}
EXPORT_SYMBOL_GPL(kstats_tramp_in_flight);

static long kstats_tramp_reap_in_flight(unsigned int slot, void *arg)
{
	return kstats_tramp_in_flight(slot);
}

static void kstats_tramp_reap_grace(void *arg)
{
	synchronize_rcu_tasks();
}

static const struct kstats_tramp_reap_ops kstats_tramp_reap_ops = {
	.in_flight = kstats_tramp_reap_in_flight,
	.grace = kstats_tramp_reap_grace,
};

/*
 * Free the draining slots whose calls have all returned, each dropping
 * its reference on this module; under the mutex. Each count only falls
 * once its slot is unhooked from ftrace, so a sum of 0 means no call is
 * left. Return: whether a slot still drains.
 */
static bool kstats_tramp_reap(void)
{
	unsigned long draining = 0, done;
	bool busy;
	unsigned int i;

	BUILD_BUG_ON(KSTATS_DIRECT_MAX > BITS_PER_LONG);
	for (i = 0; i < KSTATS_DIRECT_MAX; i++)
		if (kstats_tramp_state[i] == KSTATS_TRAMP_DRAINING)
			__set_bit(i, &draining);
	done = kstats_tramp_reapable(draining, &kstats_tramp_reap_ops, NULL,
				     &busy);
	for_each_set_bit(i, &done, KSTATS_DIRECT_MAX) {
		kstats_tramp_state[i] = KSTATS_TRAMP_FREE;
		WRITE_ONCE(kstats_tramp_busy, kstats_tramp_busy - 1);
		module_put(THIS_MODULE);
	}
	return busy;
}

static void kstats_tramp_drain_work(struct work_struct *work)
{
	bool again;

	mutex_lock(&kstats_tramp_mutex);
	again = kstats_tramp_reap();
	mutex_unlock(&kstats_tramp_mutex);
	if (again)
		schedule_delayed_work(&kstats_tramp_drain,
				      KSTATS_TRAMP_DRAIN_PERIOD);
}

/**
 * kstats_tramp_get() - take a free slot
 * @draining: set to the number of draining slots when none is free
 *
 * Return: the slot, -ENOSPC if every slot is used or draining, or
 * -EOPNOTSUPP where the kernel has no sched_process_exit tracepoint, or
 * no CPU hotplug state was left (a task that died inside a call, or the
 * idle task of a CPU taken offline, could not be counted out).
 */
int kstats_tramp_get(unsigned int *draining)
{
	unsigned int i;
	int ret = -ENOSPC;

	mutex_lock(&kstats_tramp_mutex);
	if (!kstats_tramp_exit_tp) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	kstats_tramp_reap();
	*draining = 0;
	for (i = 0; i < KSTATS_DIRECT_MAX; i++) {
		if (kstats_tramp_state[i] == KSTATS_TRAMP_FREE) {
			kstats_tramp_state[i] = KSTATS_TRAMP_USED;
			WRITE_ONCE(kstats_tramp_busy, kstats_tramp_busy + 1);
			__module_get(THIS_MODULE);
			ret = i;
			goto out;
		}
		*draining += kstats_tramp_state[i] == KSTATS_TRAMP_DRAINING;
	}
out:
	mutex_unlock(&kstats_tramp_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(kstats_tramp_get);

/**
 * kstats_tramp_put() - give back a slot that ftrace no longer calls
 * @slot: from kstats_tramp_get()
 *
 * The caller has unhooked the slot from ftrace and cleared its active
 * flag, then waited for an RCU-tasks and an RCU grace period. The slot
 * drains: free once its calls in flight have returned (or their tasks
 * have died).
 */
void kstats_tramp_put(unsigned int slot)
{
	bool again;

	mutex_lock(&kstats_tramp_mutex);
	kstats_tramp_state[slot] = KSTATS_TRAMP_DRAINING;
	again = kstats_tramp_reap();
	mutex_unlock(&kstats_tramp_mutex);
	if (again)
		schedule_delayed_work(&kstats_tramp_drain,
				      KSTATS_TRAMP_DRAIN_PERIOD);
}
EXPORT_SYMBOL_GPL(kstats_tramp_put);

/* The trampoline of @slot, for register_ftrace_direct(). */
unsigned long kstats_tramp_addr(unsigned int slot)
{
	return kstats_direct_tramp_table[slot];
}
EXPORT_SYMBOL_GPL(kstats_tramp_addr);

/* @active: the entry's flag; NULL: the trampoline goes straight to FUNC. */
void kstats_tramp_set_active(unsigned int slot, const bool *active)
{
	WRITE_ONCE(kstats_direct_active[slot], active ?: &kstats_tramp_off);
}
EXPORT_SYMBOL_GPL(kstats_tramp_set_active);

/*
 * Whether @addr is where a trampoline's call of FUNC's body returns: the
 * frame of a traced call, anywhere in a stack. Cheap, as a hit's stack
 * asks it of each of its frames.
 */
notrace bool kstats_tramp_ret(unsigned long addr)
{
	return kstats_tramp_slot_at(addr) >= 0;
}
EXPORT_SYMBOL_GPL(kstats_tramp_ret);

/* Whether @addr is in this module: a frame of the trampolines' own. */
bool kstats_tramp_text(unsigned long addr)
{
	return within_module(addr, THIS_MODULE);
}
EXPORT_SYMBOL_GPL(kstats_tramp_text);

/**
 * kstats_tramp_hook() - the trampolines call @hooks from now on
 * @hooks: kstats.ko's; stays valid until kstats_tramp_unhook()
 *
 * Return: 0, or -EBUSY if another user has hooked.
 */
int kstats_tramp_hook(const struct kstats_tramp_hooks *hooks)
{
	int ret = 0;

	mutex_lock(&kstats_tramp_mutex);
	if (kstats_tramp_hooks != &kstats_tramp_no_hooks)
		ret = -EBUSY;
	else
		WRITE_ONCE(kstats_tramp_hooks, hooks);
	mutex_unlock(&kstats_tramp_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(kstats_tramp_hook);

/**
 * kstats_tramp_unhook() - the trampolines call the hooks no more
 *
 * On return no task or interrupt is inside the hooks or can enter them:
 * an RCU-tasks grace period for tasks preempted between a trampoline's
 * read of the hooks and their return (the hooks never sleep), an RCU one
 * for interrupts. The hooks' module may go then.
 */
void kstats_tramp_unhook(void)
{
	mutex_lock(&kstats_tramp_mutex);
	WRITE_ONCE(kstats_tramp_hooks, &kstats_tramp_no_hooks);
	mutex_unlock(&kstats_tramp_mutex);
	synchronize_rcu_tasks();
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(kstats_tramp_unhook);

static int __init kstats_tramp_init(void)
{
	struct tracepoint *tp = NULL;
	unsigned int i;
	int ret;

	kstats_tramp_ret_lo = ULONG_MAX;
	for (i = 0; i < KSTATS_DIRECT_MAX; i++) {
		kstats_tramp_ret_lo = min(kstats_tramp_ret_lo,
					  kstats_tramp_ret_addr(i));
		kstats_tramp_ret_hi = max(kstats_tramp_ret_hi,
					  kstats_tramp_ret_addr(i));
	}
	/*
	 * kCFI checks a probe's prototype at each call: the compiler checks
	 * it here (never called: registration goes by lookup).
	 */
	if (0)
		register_trace_sched_process_exit(kstats_tramp_task_exit, NULL);
	for_each_kernel_tracepoint(kstats_tramp_find_exit_tp, &tp);
	if (!tp) {
		pr_info("no sched_process_exit tracepoint: direct is refused\n");
		return 0;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"kstats_tramp:dead", NULL,
					kstats_tramp_cpu_dead);
	if (ret < 0) {
		pr_info("no CPU hotplug state left (%d): direct is refused\n",
			ret);
		return 0;
	}
	kstats_tramp_hp_state = ret;
	ret = tracepoint_probe_register(tp, kstats_tramp_task_exit, NULL);
	if (ret) {
		cpuhp_remove_state_nocalls(kstats_tramp_hp_state);
		return ret;
	}
	kstats_tramp_exit_tp = tp;
	return 0;
}

/* Every slot is free: each other one holds a reference on this module. */
static void __exit kstats_tramp_exit(void)
{
	unsigned int i;

	for (i = 0; i < KSTATS_DIRECT_MAX; i++)
		WARN_ON_ONCE(kstats_tramp_state[i] != KSTATS_TRAMP_FREE);
	if (kstats_tramp_exit_tp) {
		cpuhp_remove_state_nocalls(kstats_tramp_hp_state);
		tracepoint_probe_unregister(kstats_tramp_exit_tp,
					    kstats_tramp_task_exit, NULL);
		tracepoint_synchronize_unregister();
	}
	cancel_delayed_work_sync(&kstats_tramp_drain);
}

module_init(kstats_tramp_init);
module_exit(kstats_tramp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstats: the trampolines of its direct mechanism");
