/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers (bodies inlined into handlers).
 *
 * Filters of an entry (pid, tid, comm, cpu, cgroup): the check that the
 * handlers make first, before any clock read, and the _control side in
 * kstats_filter.c.
 */
#ifndef _KSTATS_FILTER_H
#define _KSTATS_FILTER_H

#include <linux/cgroup.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include "kstats_parse.h"
#include "kstats_probe.h"

struct seq_file;

/* Whole names, compared up to the NUL; no library call in a handler. */
static __always_inline bool kstats_comm_eq(const char *comm, const char *want)
{
	unsigned int i;

	for (i = 0; i < KSTATS_COMM_LEN; i++) {
		if (comm[i] != want[i])
			return false;
		if (!want[i])
			return true;
	}
	return true;
}

/*
 * Whether the current task is in cgroup @want or below it (cgroup v2).
 * Its css_set, which a migration may replace and free after a grace
 * period, is read with preemption off, an RCU reader; RCU does not wait
 * for a CPU where it is not watching (the idle loop, the edges of user
 * mode), so such a hit does not match. No rcu_read_lock() nor
 * task_dfl_cgroup(): the filter runs before the handlers' recursion
 * guard, and __rcu_read_lock() and lockdep's checks may be traced.
 */
static __always_inline bool kstats_cgroup_in(struct cgroup *want)
{
#ifdef CONFIG_CGROUPS
	struct css_set *cset;
	bool in;

	if (!rcu_is_watching())
		return false;
	preempt_disable_notrace();
	cset = rcu_dereference_raw(current->cgroups);
	in = cgroup_is_descendant(cset->dfl_cgrp, want);
	preempt_enable_notrace();
	return in;
#else
	return false;	/* never set up: kstats_filter_get() refuses */
#endif
}

/*
 * Whether the current hit is to be measured; one not matching every
 * filter is counted in filtered. The CPU is read without pinning: the
 * handlers run with preemption off, but a preemptible tracepoint (6.13
 * syscalls) may move right after the check.
 */
static __always_inline bool kstats_filter_pass(struct kstats_probe *p)
{
	const struct kstats_filter *f = &p->filter;
	unsigned int flags = f->flags;

	if (likely(!flags))
		return true;
	if ((!(flags & KSTATS_FILTER_PID) || task_tgid_nr(current) == f->pid) &&
	    (!(flags & KSTATS_FILTER_TID) || task_pid_nr(current) == f->tid) &&
	    (!(flags & KSTATS_FILTER_CPU) || raw_smp_processor_id() == f->cpu) &&
	    (!(flags & KSTATS_FILTER_COMM) || kstats_comm_eq(current->comm, f->comm)) &&
	    (!(flags & KSTATS_FILTER_CGROUP) || kstats_cgroup_in(f->cgroup)))
		return true;
	this_cpu_inc(p->stats->filtered);
	return false;
}

/* Refuse filters the running machine cannot match (a CPU it lacks). */
int kstats_filter_check(struct kstats_cmd *cmd);
/*
 * The cgroup of "cgroup PATH|ID", found and held for @p; released by
 * kstats_filter_put(), from kstats_probe_free().
 */
int kstats_filter_get(struct kstats_probe *p, struct kstats_cmd *cmd);
void kstats_filter_put(struct kstats_probe *p);
/* The filters as the grammar writes them, and the filtered count. */
void kstats_filter_show(struct seq_file *m, const struct kstats_filter *f,
			unsigned long filtered);

#endif /* _KSTATS_FILTER_H */
