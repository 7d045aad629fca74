/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: mechanisms.
 *
 * Inter-arrival gaps, "trace NAME gap X": per CPU, the time from one hit
 * of X to the next. The step below is pure, for KUnit; the handlers and
 * the attachment are in kstats_gap.c.
 */
#ifndef _KSTATS_GAP_H
#define _KSTATS_GAP_H

#include <linux/types.h>
#include "kstats_probe.h"

/**
 * kstats_gap_step() - X was hit on this CPU at @now, in @epoch
 * @last: the CPU's previous hit (time 0: none yet); it becomes this one.
 * @now: the time of this hit, from the entry's clock.
 * @epoch: the entry's epoch, which every start bumps.
 * @gap: where the time since the previous hit goes.
 *
 * The first hit of a CPU, and its first in a new epoch (after a stop and
 * start), have no previous hit: no gap spans a stop. A clock that reads
 * below the previous hit (a timekeeper update, or a hit that interrupted
 * the handler of an earlier one) gives 0, as for any sample.
 *
 * Return: whether @gap was set.
 */
static __always_inline bool kstats_gap_step(struct kstats_cpu_start *last,
					    u64 now, u32 epoch, u64 *gap)
{
	u64 prev = last->t0;
	bool same = last->epoch == epoch;

	last->t0 = now;
	last->epoch = epoch;
	if (!prev || !same)
		return false;
	*gap = now > prev ? now - prev : 0;
	return true;
}

#endif /* _KSTATS_GAP_H */
