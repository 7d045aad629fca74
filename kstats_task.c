// SPDX-License-Identifier: GPL-2.0
/*
 * kstats key task: the pending starts of a pair, one per task, in a
 * lockless open-addressed table.
 *
 * A task is known by its address and its start_time together, so a new
 * task at a recycled address never inherits a start. Every slot of a task
 * goes when the task is freed (sched_process_free), which also covers
 * starts hit after sched_process_exit, such as the last sched_switch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include "kstats_internal.h"
#include "kstats_probe.h"

/* Slots a task may use, from the one at its hash on. */
#define KSTATS_TASK_PROBES	32
/* Smallest default table, see kstats_task_default_slots(). */
#define KSTATS_TASK_MIN		1024

/*
 * One pending start; @task is 0 when the slot is free. @epoch is the
 * entry's epoch at the start: an end in another epoch (the entry was
 * stopped and started in between) does not pair with it.
 */
struct kstats_task_slot {
	unsigned long task;
	u64 start_time;
	u64 t0;
	u32 epoch;
};

struct kstats_task_table {
	unsigned int bits;
	struct kstats_task_slot slots[];
};

static struct tracepoint *kstats_free_tp;	/* sched_process_free */

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
	t = kvzalloc(struct_size(t, slots, slots),
		     GFP_KERNEL | __GFP_RETRY_MAYFAIL);
	if (t)
		t->bits = ilog2(slots);
	return t;
}

void kstats_task_table_free(struct kstats_task_table *t)
{
	kvfree(t);
}

unsigned int kstats_task_table_size(const struct kstats_task_table *t)
{
	return 1U << t->bits;
}

static __always_inline struct kstats_task_slot *
kstats_task_slot(struct kstats_task_table *t, unsigned long task,
		 unsigned int i)
{
	return &t->slots[(hash_long(task, t->bits) + i) & ((1U << t->bits) - 1)];
}

static __always_inline bool kstats_task_owns(struct kstats_task_slot *s,
					     unsigned long me, u64 start_time)
{
	return READ_ONCE(s->task) == me && READ_ONCE(s->start_time) == start_time;
}

/*
 * The current task hit X at @now. Returns false if its slots are all
 * taken. Called in task context with preemption disabled: a task never
 * races with itself, so one task never holds two slots.
 */
notrace bool kstats_task_start(struct kstats_task_table *t, u64 now, u32 epoch)
{
	unsigned long me = (unsigned long)current;
	u64 born = current->start_time;
	unsigned int i, first = KSTATS_TASK_PROBES;
	struct kstats_task_slot *s;

	for (i = 0; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, me, i);
		if (kstats_task_owns(s, me, born)) {
			/* A second start restarts the measurement. */
			WRITE_ONCE(s->t0, now);
			WRITE_ONCE(s->epoch, epoch);
			return true;
		}
		if (first == KSTATS_TASK_PROBES && !READ_ONCE(s->task))
			first = i;
	}
	/* Another task may take the first free slot first: try the next ones. */
	for (i = first; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, me, i);
		if (!READ_ONCE(s->task) && !cmpxchg(&s->task, 0, me)) {
			WRITE_ONCE(s->start_time, born);
			WRITE_ONCE(s->t0, now);
			WRITE_ONCE(s->epoch, epoch);
			return true;
		}
	}
	return false;
}

static __always_inline void kstats_task_release(struct kstats_task_slot *s)
{
	WRITE_ONCE(s->t0, 0);
	WRITE_ONCE(s->start_time, 0);
	/* The next owner must not see our t0. */
	smp_store_release(&s->task, 0);
}

/*
 * Takes the current task's start out of the table; 0 if it had none, or
 * if it was from another epoch than @epoch.
 */
notrace u64 kstats_task_take(struct kstats_task_table *t, u32 epoch)
{
	unsigned long me = (unsigned long)current;
	u64 born = current->start_time;
	struct kstats_task_slot *s;
	unsigned int i;
	u64 t0;

	for (i = 0; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, me, i);
		if (kstats_task_owns(s, me, born)) {
			t0 = READ_ONCE(s->epoch) == epoch ? READ_ONCE(s->t0) : 0;
			kstats_task_release(s);
			return t0;
		}
	}
	return 0;
}

/* @tsk is being freed: every slot with its address goes. */
void kstats_task_forget(struct kstats_task_table *t, struct task_struct *tsk)
{
	struct kstats_task_slot *s;
	unsigned int i;

	for (i = 0; i < KSTATS_TASK_PROBES; i++) {
		s = kstats_task_slot(t, (unsigned long)tsk, i);
		if (READ_ONCE(s->task) == (unsigned long)tsk)
			kstats_task_release(s);
	}
}

/* sched_process_free probe; @data is the entry. */
static notrace void kstats_task_freed(void *data, struct task_struct *tsk)
{
	struct kstats_probe *p = data;

	kstats_task_forget(p->tasks, tsk);
}

int kstats_task_hook(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	int ret;

	if (!kstats_free_tp)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "key task needs the sched_process_free tracepoint");
	ret = tracepoint_probe_register(kstats_free_tp, kstats_task_freed, p);
	if (ret)
		return kstats_fail(cmd, ret, "sched_process_free refused (error %d)",
				   ret);
	return 0;
}

/* The caller runs tracepoint_synchronize_unregister() afterwards. */
void kstats_task_unhook(struct kstats_probe *p)
{
	tracepoint_probe_unregister(kstats_free_tp, kstats_task_freed, p);
}

int kstats_task_init(void)
{
	struct module *mod;

	mutex_lock(&kstats_control_mutex);
	kstats_free_tp = kstats_find_tp("sched_process_free", &mod);
	mutex_unlock(&kstats_control_mutex);
	return 0;
}
