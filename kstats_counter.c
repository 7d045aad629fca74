// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * Counter entries: "trace ... counter EVENT" samples, per call or pair,
 * how much a perf counter of the CPU grew between start and end instead
 * of the time. Only where start and end run on one CPU: trace pcpu:FUNC,
 * pairs with key cpu, and trace FUNC, whose calls that migrate are
 * counted in migrated and not measured.
 *
 * The counters are CPU counters, one per CPU online at attach, pinned
 * (never multiplexed), counting every task in user and kernel mode: a
 * call that sleeps counts what ran on its CPU meanwhile. They live from
 * attach to the entry's removal (or rmmod), running while it is stopped;
 * a CPU brought online later has none, and one taken offline loses its
 * counter (perf detaches it): calls there count in uncounted.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "kstats_counter.h"
#include "kstats_parse.h"
#include "kstats_mech.h"
#include "kstats_probe.h"

struct kstats_counter_event {
	const char *name;
	u32 type;
	u64 config;
};

static const struct kstats_counter_event kstats_counter_events[] = {
	[KSTATS_COUNTER_CYCLES] = {
		"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[KSTATS_COUNTER_INSTRUCTIONS] = {
		"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	[KSTATS_COUNTER_CACHE_MISSES] = {
		"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	[KSTATS_COUNTER_BRANCH_MISSES] = {
		"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	[KSTATS_COUNTER_CONTEXT_SWITCHES] = {
		"context-switches", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CONTEXT_SWITCHES },
	[KSTATS_COUNTER_PAGE_FAULTS] = {
		"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

static_assert(ARRAY_SIZE(kstats_counter_events) == KSTATS_NR_COUNTERS);

int kstats_parse_counter(struct kstats_cmd *cmd, const char *val)
{
	unsigned int i;

	if (cmd->counter)
		return kstats_fail(cmd, -EINVAL, "counter given twice");
	for (i = KSTATS_COUNTER_NONE + 1; i < KSTATS_NR_COUNTERS; i++) {
		if (!strcasecmp(val, kstats_counter_events[i].name)) {
			cmd->counter = i;
			return 0;
		}
	}
	return kstats_fail(cmd, -EINVAL,
			   "counter must be cycles, instructions, cache-misses, branch-misses, context-switches or page-faults");
}

int kstats_parse_counter_check(struct kstats_cmd *cmd)
{
	if (!cmd->counter)
		return 0;
	if (cmd->op == KSTATS_CMD_TRACE_PAIR && cmd->key != KSTATS_KEY_CPU)
		return kstats_fail(cmd, -EINVAL,
				   "counter needs start and end on one CPU: key cpu, not key task or argN");
	if (cmd->via == KSTATS_VIA_DIRECT)
		return kstats_fail(cmd, -EINVAL, "counter is not for via direct");
	if (cmd->op == KSTATS_CMD_TRACE_GAP)
		return kstats_fail(cmd, -EINVAL, "a gap is a time: no counter");
	if (cmd->value != KSTATS_VALUE_TIME)
		return kstats_fail(cmd, -EINVAL, "counter and value exclude each other");
	if (cmd->clock != KSTATS_CLOCK_DEFAULT)
		return kstats_fail(cmd, -EINVAL, "a counter entry reads no clock");
	return 0;
}

#ifdef CONFIG_PERF_EVENTS
/* Why perf refused a counter; a hardware event may have no PMU here. */
static int kstats_counter_error(struct kstats_cmd *cmd, unsigned int cpu,
				int err)
{
	const struct kstats_counter_event *ev = &kstats_counter_events[cmd->counter];

	if (ev->type == PERF_TYPE_HARDWARE &&
	    (err == -ENOENT || err == -ENODEV || err == -EOPNOTSUPP))
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "counter %s: no PMU counts it on CPU %u (perf error %d)",
				   ev->name, cpu, err);
	return kstats_fail(cmd, err, "counter %s: perf refused CPU %u (error %d)",
			   ev->name, cpu, err);
}

int kstats_counter_create(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	const struct kstats_counter_event *ev;
	struct perf_event_attr attr = {};
	struct perf_event *e;
	unsigned int cpu;
	int ret = 0;

	if (!cmd->counter)
		return 0;
	ev = &kstats_counter_events[cmd->counter];
	p->events = alloc_percpu(struct perf_event *);
	if (!p->events)
		return kstats_fail(cmd, -ENOMEM, "out of memory");
	p->counter = cmd->counter;
	attr.type = ev->type;
	attr.size = sizeof(attr);
	attr.config = ev->config;
	/* Never multiplexed: it counts all the time or not at all. */
	attr.pinned = 1;
	/* No CPU comes or goes while the counters are made. */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		e = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(e)) {
			ret = kstats_counter_error(cmd, cpu, PTR_ERR(e));
			break;
		}
		*per_cpu_ptr(p->events, cpu) = e;
		/* A pinned counter the PMU has no room for never counts. */
		if (READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR) {
			ret = kstats_fail(cmd, -EBUSY,
					  "counter %s: the PMU of CPU %u has no room for it",
					  ev->name, cpu);
			break;
		}
	}
	cpus_read_unlock();
	return ret;
}

void kstats_counter_free(struct kstats_probe *p)
{
	struct perf_event *e;
	unsigned int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu) {
		e = *per_cpu_ptr(p->events, cpu);
		if (e)
			perf_event_release_kernel(e);
	}
	free_percpu(p->events);
	p->events = NULL;
}
#else
int kstats_counter_create(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	if (!cmd->counter)
		return 0;
	return kstats_fail(cmd, -EOPNOTSUPP,
			   "counter: this kernel has no perf events (CONFIG_PERF_EVENTS)");
}

void kstats_counter_free(struct kstats_probe *p)
{
}
#endif

void kstats_counter_show(struct seq_file *m, const struct kstats_probe *p)
{
	unsigned long migrated = 0, uncounted = 0;
	unsigned int cpu;

	if (!p->counter)
		return;
	for_each_possible_cpu(cpu) {
		const struct kstats_probe_stats *s = per_cpu_ptr(p->stats, cpu);

		migrated += READ_ONCE(s->migrated);
		uncounted += READ_ONCE(s->uncounted);
	}
	seq_printf(m, " counter %s", kstats_counter_events[p->counter].name);
	/* pcpu: counts the calls that leave their CPU in skipped. */
	if (!p->ops->paired && !p->pcpu)
		seq_printf(m, " migrated %lu", migrated);
	seq_printf(m, " uncounted %lu", uncounted);
}
