/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which draining trampoline slots may be freed (kstats_tramp_slots.c):
 * an inline of its own, so that the KUnit suite runs the same order with
 * counts and a grace period of its own making.
 */
#ifndef _KSTATS_TRAMP_REAP_H
#define _KSTATS_TRAMP_REAP_H

#include <linux/bitops.h>
#include <linux/types.h>

/**
 * struct kstats_tramp_reap_ops - what kstats_tramp_reapable() reads and waits for
 * @in_flight: the calls of slot @slot still in flight
 * @grace: wait for an RCU-tasks grace period
 */
struct kstats_tramp_reap_ops {
	long (*in_flight)(unsigned int slot, void *arg);
	void (*grace)(void *arg);
};

/**
 * kstats_tramp_reapable() - the draining slots no task can be in any more
 * @draining: the draining slots, a bit each
 * @ops: reads the counts, waits for the grace period
 * @arg: passed to @ops
 * @busy: set to whether a slot of @draining still has calls in flight
 *
 * A count falls when a call has returned through kstats_tramp_end(), a
 * few instructions before its task leaves the trampoline. Every count is
 * read first, then one grace period covers the tasks that were on those
 * last instructions at the reads. A slot whose count reaches 0 during the
 * grace period waits for the next pass: its last task may have been
 * preempted there after the grace period began.
 *
 * Return: the slots of @draining that read 0 before the grace period.
 */
static inline unsigned long
kstats_tramp_reapable(unsigned long draining,
		      const struct kstats_tramp_reap_ops *ops, void *arg,
		      bool *busy)
{
	unsigned long done = 0;
	unsigned int i;

	*busy = false;
	for_each_set_bit(i, &draining, BITS_PER_LONG) {
		if (ops->in_flight(i, arg))
			*busy = true;
		else
			__set_bit(i, &done);
	}
	if (done)
		ops->grace(arg);
	return done;
}

#endif /* _KSTATS_TRAMP_REAP_H */
