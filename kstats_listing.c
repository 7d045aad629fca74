// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. The _control line of an entry that a command made:
 * the state and counts of its probe, read through the mechanism's
 * operations (kstats_mech.h) and the helpers below them, under
 * kstats_mutex. kstats_fs.c prints it; nothing here changes anything.
 */
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include "kstats_counter.h"
#include "kstats_filter.h"
#include "kstats_internal.h"
#include "kstats_mech.h"
#include "kstats_keys.h"
#include "kstats_probe.h"
#include "kstats_value.h"

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

static void kstats_sum_stats(const struct kstats_probe *p,
			     struct kstats_probe_stats *sum)
{
	int cpu, side;

	for_each_possible_cpu(cpu) {
		const struct kstats_probe_stats *s = per_cpu_ptr(p->stats, cpu);

		sum->skipped += READ_ONCE(s->skipped);
		sum->dropped += READ_ONCE(s->dropped);
		sum->unpaired += READ_ONCE(s->unpaired);
		sum->notask += READ_ONCE(s->notask);
		sum->restarted += READ_ONCE(s->restarted);
		sum->faulted += READ_ONCE(s->faulted);
		sum->expired += READ_ONCE(s->expired);
		sum->filtered += READ_ONCE(s->filtered);
		sum->errors += READ_ONCE(s->errors);
		sum->unstable += READ_ONCE(s->unstable);
		sum->recursed += READ_ONCE(s->recursed);
		for (side = 0; side < KSTATS_NR_SIDES; side++) {
			sum->handler_ns[side] += READ_ONCE(s->handler_ns[side]);
			sum->timed[side] += READ_ONCE(s->timed[side]);
		}
	}
}

void kstats_probe_show(struct seq_file *m, const struct kstats *ks)
{
	const struct kstats_probe *p = ks->probe;
	const struct kstats_mech_ops *ops = p->ops;
	struct kstats_probe_stats sum = {};
	const char *state;

	kstats_sum_stats(p, &sum);
	if (READ_ONCE(p->gone))
		state = "gone";
	else
		state = READ_ONCE(ks->active) ? "running" : "stopped";

	seq_printf(m, "name %s origin control mechanism %s", ks->name,
		   ops->name(p));
	if (ops->show)
		ops->show(m, p);
	else
		kstats_show_func(m, p);
	seq_printf(m, " bits %u", ks->frac_bits);
	/* A value or counter entry reads no clock. */
	if (p->value == KSTATS_VALUE_TIME && !p->counter)
		seq_printf(m, " clock %s", kstats_clock_name(p));
	kstats_value_show(m, p, sum.errors);
	kstats_counter_show(m, p);
	seq_printf(m, " state %s missed %lu", state,
		   kstats_missed(p) + sum.recursed);
	/* pcpu: calls not on one CPU; by argN: fprobe calls without registers. */
	if (p->pcpu || p->by_arg)
		seq_printf(m, " skipped %lu", sum.skipped);
	if (ops->show_counts)
		ops->show_counts(m, p, &sum);
	kstats_filter_show(m, &p->filter, sum.filtered);
	kstats_keys_show(m, p);
	kstats_outliers_show(m, p);
	/* clock tsc: samples left out once the kernel found the TSC unstable. */
	if (sum.unstable)
		seq_printf(m, " unstable %lu", sum.unstable);
	/* A gap is between two hits that the hook delays alike: no bias. */
	if (p->value == KSTATS_VALUE_TIME && ops->cal_rows && !p->counter)
		kstats_show_bias(m, p);
	else
		seq_puts(m, " bias_ns - bias_p99_ns -");
	kstats_show_overhead(m, &sum);
	if (!kstats_values_hidden(ks))
		kstats_show_extremes(m, ks);
	/* What it takes of max_memory. */
	seq_printf(m, " memory %zu\n", ks->mem);
}
