/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers (bodies inlined into handlers).
 *
 * Counter entries, "trace ... counter EVENT": each sample is the
 * difference of a perf counter of the CPU between start and end instead
 * of the time. One pinned kernel counter per online CPU, counting every
 * task and both user and kernel mode; the _control side is in
 * kstats_counter.c.
 */
#ifndef _KSTATS_COUNTER_H
#define _KSTATS_COUNTER_H

#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include "kstats_parse.h"
#include "kstats_probe.h"

struct seq_file;

/*
 * This CPU's counter of @p plus one (0 stays "no start" for pairs), as
 * perf_event_read_local() reads it, which is not exported to modules: a
 * pinned CPU counter counts only while it is on this CPU (oncpu), and
 * interrupts off keep it there while the PMU is read. False, counted in
 * uncounted, if this CPU has no counter: offline at attach, taken offline
 * since (perf then detaches it), or a pinned hardware counter that the
 * PMU could not place.
 */
static __always_inline bool kstats_counter_read(struct kstats_probe *p,
						u64 *v)
{
#ifdef CONFIG_PERF_EVENTS
	struct perf_event *e = this_cpu_read(*p->events);
	unsigned long flags;
	bool on;

	local_irq_save(flags);
	on = e && READ_ONCE(e->oncpu) == smp_processor_id();
	if (on) {
		e->pmu->read(e);
		*v = local64_read(&e->count) + 1;
	}
	local_irq_restore(flags);
	if (unlikely(!on))
		this_cpu_inc(p->stats->uncounted);
	return on;
#else
	return false;	/* kstats_counter_create() refuses every counter */
#endif
}

/* trace FUNC: per-call storage of a counter entry. */
struct kstats_counter_call {
	u64 start;		/* counter at entry, plus one */
	u64 migrations;		/* the task's migrations then */
	u32 epoch;		/* the entry's then: none spans a stop */
};

/*
 * trace FUNC with a counter: FUNC was entered. False if nothing is to
 * be measured (no counter here): the return is then not hooked.
 */
static __always_inline bool kstats_counter_begin(struct kstats_probe *p,
						 struct kstats_counter_call *c)
{
	c->migrations = current->se.nr_migrations;
	c->epoch = READ_ONCE(p->ks->epoch);
	return kstats_counter_read(p, &c->start);
}

/*
 * trace FUNC with a counter: FUNC returns. A call whose task moved to
 * another CPU in between (even if it came back) read two counters, or
 * missed what it did elsewhere: it is counted in migrated, not measured.
 */
static __always_inline void kstats_counter_end(struct kstats_probe *p,
					       const struct kstats_counter_call *c)
{
	u64 now;

	if (unlikely(c->epoch != READ_ONCE(p->ks->epoch)))
		return;
	if (current->se.nr_migrations != c->migrations) {
		this_cpu_inc(p->stats->migrated);
		return;
	}
	if (kstats_counter_read(p, &now))
		kstats_record(p->ks, now > c->start ? now - c->start : 0);
}

/*
 * Create the counters of @cmd->counter, if any, for @p; -EOPNOTSUPP
 * for a hardware event where no PMU counts it. kstats_counter_free()
 * releases them, once no handler of @p can run.
 */
int kstats_counter_create(struct kstats_probe *p, struct kstats_cmd *cmd);
void kstats_counter_free(struct kstats_probe *p);
/* " counter EVENT [migrated N] uncounted N" for the _control listing. */
void kstats_counter_show(struct seq_file *m, const struct kstats_probe *p);

#endif /* _KSTATS_COUNTER_H */
