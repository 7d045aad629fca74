// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the target helpers
 * (kstats_target.c) and the kernel.
 *
 * kstats key task: the pending starts of a pair, one per task, in a
 * lockless table. The pair owns the table; the table knows nothing of
 * the pair but the counters it drops starts into.
 *
 * A task's home slot is its pid modulo the table size: live tasks have
 * distinct pids, and pids are handed out in sequence, so they rarely share
 * a home and a start or an end touches one slot. The idle tasks, pid 0
 * on every CPU, go by a hash of their address instead. A task whose home is
 * taken uses one of the next KSTATS_TASK_PROBES - 1 slots and counts
 * itself in the home's @displaced, so that only homes with displaced
 * starts are ever searched further.
 *
 * A task is known by its address and its start_time together, so a new
 * task with a recycled pid or address never inherits a start. Every slot
 * of a task goes when the task is freed (sched_process_free), which also
 * covers starts hit after sched_process_exit, such as the last
 * sched_switch. A thread other than the leader that calls exec takes the
 * leader's pid and start_time (de_thread()): its start moves to its new
 * home at sched_process_exec. The old leader, which dies there, leaves
 * with the exec'ing thread's old pid: sched_process_free would look for
 * its start under that pid, so its start goes at the exec, found by the
 * start_time it shares with the exec'ing thread.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <kunit/visibility.h>
#include <linux/binfmts.h>
#include <linux/cache.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include "kstats_internal.h"
#include "kstats_probe.h"
#include "kstats_target.h"

/* Slots a task may use, its home and the ones after it. */
#define KSTATS_TASK_PROBES	32
/* Smallest default table, see kstats_task_default_slots(). */
#define KSTATS_TASK_MIN		1024

/*
 * One pending start; @task is 0 when the slot is free. @epoch is the
 * entry's epoch at the start: an end in another epoch (the entry was
 * stopped and started in between) does not pair with it. @displaced
 * counts the starts of tasks whose home this slot is, held in later
 * slots. A cache line each: tasks on different CPUs write their own.
 */
struct kstats_task_slot {
	unsigned long task;
	u64 start_time;
	u64 t0;
	u32 epoch;
	atomic_t displaced;
	u64 by[2];		/* the key of its histogram, read at the start */
} ____cacheline_aligned_in_smp;

struct kstats_task_table {
	unsigned int bits;
	struct kstats_probe_stats __percpu *stats;	/* its entry's */
	struct kstats_task_slot slots[];
};

static struct tracepoint *kstats_free_tp;	/* sched_process_free */
static struct tracepoint *kstats_exec_tp;	/* sched_process_exec */

/*
 * The kernel's default limit on threads (kernel/fork.c, set_max_threads())
 * is what fits in an eighth of memory: a table with that many slots can
 * hold a start for every thread the machine can have.
 */
static unsigned int kstats_task_default_slots(void)
{
	u64 threads = div64_u64((u64)totalram_pages() << PAGE_SHIFT,
				8ULL * THREAD_SIZE);

	threads = clamp_t(u64, threads, KSTATS_TASK_MIN, KSTATS_TASK_SLOTS_MAX);
	return roundup_pow_of_two(threads);
}

size_t kstats_task_table_bytes(unsigned int slots)
{
	struct kstats_task_table *t;

	return struct_size(t, slots,
			   roundup_pow_of_two(slots ?: kstats_task_default_slots()));
}

struct kstats_task_table *kstats_task_table_alloc(unsigned int slots)
{
	struct kstats_task_table *t;

	if (!slots)
		slots = kstats_task_default_slots();
	slots = roundup_pow_of_two(slots);
	/*
	 * Physically contiguous where the allocator can (up to its 4 MiB):
	 * every hit touches the table, and vmalloc's 4 KiB pages cost TLB
	 * misses that the direct map's large pages do not.
	 */
	t = kvzalloc(kstats_task_table_bytes(slots),
		     GFP_KERNEL | __GFP_RETRY_MAYFAIL);
	if (t)
		t->bits = ilog2(slots);
	return t;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_task_table_alloc);

void kstats_task_table_free(struct kstats_task_table *t)
{
	kvfree(t);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_task_table_free);

unsigned int kstats_task_table_size(const struct kstats_task_table *t)
{
	return 1U << t->bits;
}

/*
 * The key of @tsk's home: its pid; for an idle task (pid 0, one per CPU,
 * which would all share home 0) a hash of its address.
 */
static __always_inline unsigned int kstats_task_key(const struct task_struct *tsk)
{
	return likely(tsk->pid) ? tsk->pid : hash_ptr(tsk, 32);
}

static __always_inline struct kstats_task_slot *
kstats_task_slot(struct kstats_task_table *t, unsigned int key, unsigned int i)
{
	return &t->slots[(key + i) & ((1U << t->bits) - 1)];
}

/* The home slot of @tsk in @t, for the KUnit suite. */
unsigned int kstats_task_home(const struct kstats_task_table *t,
			      const struct task_struct *tsk)
{
	return kstats_task_key(tsk) & ((1U << t->bits) - 1);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_task_home);

static __always_inline bool kstats_task_owns(struct kstats_task_slot *s,
					     unsigned long me, u64 start_time)
{
	return READ_ONCE(s->task) == me && READ_ONCE(s->start_time) == start_time;
}

static __always_inline void kstats_task_fill(struct kstats_task_slot *s,
					     u64 born, u64 now, u32 epoch,
					     const u64 by[2])
{
	WRITE_ONCE(s->start_time, born);
	WRITE_ONCE(s->t0, now);
	WRITE_ONCE(s->epoch, epoch);
	s->by[0] = by[0];
	s->by[1] = by[1];
}

static __always_inline void kstats_task_release(struct kstats_task_slot *s)
{
	WRITE_ONCE(s->t0, 0);
	WRITE_ONCE(s->start_time, 0);
	/* The next owner must not see our t0. */
	smp_store_release(&s->task, 0);
}

/*
 * The slot after the current task's home that holds its start, or NULL.
 * Only called when the home counts displaced starts.
 */
static struct kstats_task_slot *kstats_task_find(struct kstats_task_table *t,
						 unsigned long me, u64 born)
{
	struct kstats_task_slot *s;
	unsigned int i;

	for (i = 1; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, kstats_task_key(current), i);
		if (kstats_task_owns(s, me, born))
			return s;
	}
	return NULL;
}

/*
 * The current task hit X at @now. Returns false if its slots are all
 * taken. Called in task context with preemption disabled: a task never
 * races with itself, so one task never holds two slots.
 */
notrace bool kstats_task_start(struct kstats_task_table *t, u64 now, u32 epoch,
			       const u64 by[2])
{
	unsigned long me = (unsigned long)current;
	u64 born = current->start_time;
	struct kstats_task_slot *home = kstats_task_slot(t, kstats_task_key(current), 0);
	struct kstats_task_slot *s;
	unsigned int i;

	/* A second start restarts the measurement. */
	if (kstats_task_owns(home, me, born)) {
		kstats_task_fill(home, born, now, epoch, by);
		return true;
	}
	if (atomic_read(&home->displaced)) {
		s = kstats_task_find(t, me, born);
		if (s) {
			kstats_task_fill(s, born, now, epoch, by);
			return true;
		}
	}
	if (!READ_ONCE(home->task) && !cmpxchg(&home->task, 0, me)) {
		kstats_task_fill(home, born, now, epoch, by);
		return true;
	}
	/* Another task may take a free slot first: try the next ones. */
	for (i = 1; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, kstats_task_key(current), i);
		if (!READ_ONCE(s->task) && !cmpxchg(&s->task, 0, me)) {
			kstats_task_fill(s, born, now, epoch, by);
			atomic_inc(&home->displaced);
			return true;
		}
	}
	return false;
}

/*
 * Takes the current task's start out of the table, and its @by; 0 if it
 * had none, or if it was from another epoch than @epoch.
 */
notrace u64 kstats_task_take(struct kstats_task_table *t, u32 epoch,
			     u64 by[2])
{
	unsigned long me = (unsigned long)current;
	u64 born = current->start_time;
	struct kstats_task_slot *home = kstats_task_slot(t, kstats_task_key(current), 0);
	struct kstats_task_slot *s = home;
	u64 t0;

	if (!kstats_task_owns(s, me, born)) {
		if (!atomic_read(&home->displaced))
			return 0;
		s = kstats_task_find(t, me, born);
		if (!s)
			return 0;
	}
	t0 = READ_ONCE(s->epoch) == epoch ? READ_ONCE(s->t0) : 0;
	by[0] = s->by[0];
	by[1] = s->by[1];
	kstats_task_release(s);
	if (s != home)
		atomic_dec(&home->displaced);
	return t0;
}

/* @tsk is being freed: every slot with its address goes. */
void kstats_task_forget(struct kstats_task_table *t, struct task_struct *tsk)
{
	struct kstats_task_slot *home = kstats_task_slot(t, kstats_task_key(tsk), 0);
	struct kstats_task_slot *s;
	unsigned int i;

	if (READ_ONCE(home->task) == (unsigned long)tsk)
		kstats_task_release(home);
	if (!atomic_read(&home->displaced))
		return;
	for (i = 1; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, kstats_task_key(tsk), i);
		if (READ_ONCE(s->task) == (unsigned long)tsk) {
			kstats_task_release(s);
			atomic_dec(&home->displaced);
		}
	}
}

/*
 * The slot that holds a start of the task at @me among those of key @pid,
 * or NULL. By address alone: a task's slots go when it is freed, so a slot
 * with a live task's address is that task's.
 */
static struct kstats_task_slot *kstats_task_held(struct kstats_task_table *t,
						 pid_t pid, unsigned long me)
{
	struct kstats_task_slot *s = kstats_task_slot(t, pid, 0);
	unsigned int i;

	if (READ_ONCE(s->task) == me)
		return s;
	if (!atomic_read(&s->displaced))
		return NULL;
	for (i = 1; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, pid, i);
		if (READ_ONCE(s->task) == me)
			return s;
	}
	return NULL;
}

/*
 * The current task took its dead leader's pid and start_time in exec: a
 * start of the leader, filed under that pid by the leader's address and
 * that start_time, goes (no other task has both that home and that
 * start_time).
 */
static notrace void kstats_task_drop_leader(struct kstats_task_table *t)
{
	unsigned long me = (unsigned long)current;
	u64 born = current->start_time;
	struct kstats_task_slot *home = kstats_task_slot(t, kstats_task_key(current), 0);
	struct kstats_task_slot *s;
	unsigned int i;

	for (i = 0; i < KSTATS_TASK_PROBES; i++) {
		if (i && !atomic_read(&home->displaced))
			return;
		s = kstats_task_slot(t, kstats_task_key(current), i);
		if (READ_ONCE(s->task) && READ_ONCE(s->task) != me &&
		    READ_ONCE(s->start_time) == born) {
			kstats_task_release(s);
			if (i)
				atomic_dec(&home->displaced);
			return;
		}
	}
}

/*
 * The current task, which was @old_pid, took its leader's pid and
 * start_time in exec: its start, filed under @old_pid, goes to the slots
 * of its new pid, unless it hit a start there since. Returns false if it
 * found no room there.
 */
static notrace bool kstats_task_move(struct kstats_task_table *t, pid_t old_pid)
{
	unsigned long me = (unsigned long)current;
	struct kstats_task_slot *s = kstats_task_held(t, old_pid, me);
	u64 t0, by[2];
	u32 epoch;

	if (!s)
		return true;
	t0 = READ_ONCE(s->t0);
	epoch = READ_ONCE(s->epoch);
	by[0] = s->by[0];
	by[1] = s->by[1];
	kstats_task_release(s);
	if (s != kstats_task_slot(t, old_pid, 0))
		atomic_dec(&kstats_task_slot(t, old_pid, 0)->displaced);
	if (kstats_task_held(t, kstats_task_key(current), me))
		return true;
	return kstats_task_start(t, t0, epoch, by);
}

/* sched_process_exec probe; @data is the table. */
static notrace void kstats_task_execed(void *data, struct task_struct *tsk,
				       pid_t old_pid, struct linux_binprm *bprm)
{
	struct kstats_task_table *t = data;

	if (old_pid == tsk->pid)
		return;
	kstats_task_drop_leader(t);
	if (!kstats_task_move(t, old_pid))
		this_cpu_inc(t->stats->dropped);
}

/* sched_process_free probe; @data is the table. */
static notrace void kstats_task_freed(void *data, struct task_struct *tsk)
{
	kstats_task_forget(data, tsk);
}

/*
 * noinline: tests/kstats_task_hold.c parks the writer here, with @t's
 * free probe registered, while a call of that probe is held on another
 * CPU, and makes it fail (tests/guest/98-task-hook-fail.sh).
 */
static noinline __noclone int kstats_task_hook_exec(struct kstats_task_table *t)
{
	return tracepoint_probe_register(kstats_exec_tp, kstats_task_execed, t);
}

/* Keep @t's starts across exec and exit; @stats count what it drops. */
int kstats_task_hook(struct kstats_task_table *t,
		     struct kstats_probe_stats __percpu *stats,
		     struct kstats_cmd *cmd)
{
	int ret;

	if (!kstats_free_tp || !kstats_exec_tp)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "key task needs the sched_process_free and sched_process_exec tracepoints");
	t->stats = stats;
	ret = tracepoint_probe_register(kstats_free_tp, kstats_task_freed, t);
	if (ret)
		return kstats_fail(cmd, ret, "sched_process_free refused (error %d)",
				   ret);
	ret = kstats_task_hook_exec(t);
	if (ret) {
		tracepoint_probe_unregister(kstats_free_tp, kstats_task_freed, t);
		/* A free probe may be running on @t, which the caller frees. */
		tracepoint_synchronize_unregister();
		return kstats_fail(cmd, ret, "sched_process_exec refused (error %d)",
				   ret);
	}
	return 0;
}

/* The caller runs tracepoint_synchronize_unregister() afterwards. */
void kstats_task_unhook(struct kstats_task_table *t)
{
	tracepoint_probe_unregister(kstats_exec_tp, kstats_task_execed, t);
	tracepoint_probe_unregister(kstats_free_tp, kstats_task_freed, t);
}

int kstats_task_init(void)
{
	struct module *mod;

	/*
	 * kCFI checks a probe's prototype at each call: the compiler checks
	 * it here (never called: registration goes by lookup).
	 */
	if (0) {
		register_trace_sched_process_free(kstats_task_freed, NULL);
		register_trace_sched_process_exec(kstats_task_execed, NULL);
	}

	mutex_lock(&kstats_control_mutex);
	kstats_free_tp = kstats_find_tp("sched_process_free", &mod);
	kstats_exec_tp = kstats_find_tp("sched_process_exec", &mod);
	mutex_unlock(&kstats_control_mutex);
	return 0;
}
