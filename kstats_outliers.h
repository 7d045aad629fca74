/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers (the record hook inlined into handlers).
 * Calls the key table for a sample's key.
 *
 * "trace ... outliers N": besides the histograms, the N largest samples
 * since the last reset, each with its time, CPU, task, key and kernel
 * stack. Each CPU keeps its own N, so a sample is kept without a lock or
 * an atomic shared between CPUs; only a sample above the least one its
 * CPU keeps leaves the fast path. The text of _outliers/NAME merges the
 * CPUs (kstats_outliers_fs.c).
 */
#ifndef _KSTATS_OUTLIERS_H
#define _KSTATS_OUTLIERS_H

#include <linux/compiler.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/smp.h>
#include <linux/types.h>
#include "kstats_probe.h"

/* "outliers N": the most samples kept. */
#define KSTATS_OUTLIERS_MAX	256
/* Frames of a sample's kernel stack kept. */
#define KSTATS_OUTLIER_DEPTH	16

struct kstats_cmd;
struct seq_file;

/* One sample kept, as _outliers/NAME prints it. */
struct kstats_outlier {
	u64 value;
	u64 time;		/* CLOCK_REALTIME, ns */
	u64 mono;		/* CLOCK_MONOTONIC, ns */
	u64 key[2];		/* by KEY: the sample's key */
	pid_t pid, tid;
	u32 cpu;
	u32 nr_stack;
	char comm[TASK_COMM_LEN];
	unsigned long stack[KSTATS_OUTLIER_DEPTH];
};

/*
 * One CPU's samples: @n of them. @busy keeps an NMI out of an update it
 * interrupted (the sample is counted in @missed); @seq lets a reader copy
 * them whole.
 */
struct kstats_outliers_cpu {
	seqcount_t seq;
	unsigned int n;
	int busy;
	atomic_long_t missed;
	struct kstats_outlier o[];
};

struct kstats_outliers {
	unsigned int max;		/* N */
	bool frozen;			/* a reset is under way */
	bool user;			/* a user function's: its caller only */
	struct mutex resetting;		/* one reset at a time */
	struct kstats_outliers_cpu **cpu;	/* per possible CPU */
	u64 __percpu *floor;	/* a CPU's least sample once all N are taken */
};

/*
 * @to: the address FUNC returns to, where the sample's stack starts (the
 * frames of the probe machinery above it left out); 0: the whole stack.
 * A user function's sample keeps @to alone: the kernel's stack is the
 * trap's, and a process's is not the kernel's to walk.
 */
void kstats_outliers_add(struct kstats_probe *p, u64 val, unsigned long ret,
			 unsigned long to);

/* Whether a sample @val of @p is kept: its CPU keeps fewer or smaller. */
static __always_inline bool kstats_outliers_due(const struct kstats_probe *p,
						u64 val)
{
	return unlikely(val > this_cpu_read(*p->outliers->floor));
}

/* A sample of @p: kept if its CPU keeps fewer or smaller ones. */
static __always_inline void kstats_outliers_record(struct kstats_probe *p,
						   u64 val, unsigned long ret,
						   unsigned long to)
{
	if (kstats_outliers_due(p, val))
		kstats_outliers_add(p, val, ret, to);
}

/* The samples' store of @cmd's entry @p, at trace time; none without it. */
int kstats_outliers_setup(struct kstats_probe *p, struct kstats_cmd *cmd);
/* What that store takes: 0 without. */
size_t kstats_outliers_memory(const struct kstats_cmd *cmd);
/* Once no handler of @p runs. */
void kstats_outliers_free(struct kstats_probe *p);
/* Forget every sample; may sleep. */
void kstats_outliers_reset(struct kstats_outliers *t);
#if IS_ENABLED(CONFIG_KUNIT)
void kstats_outliers_clear(struct kstats_outliers *t);
#endif
/* " outliers N outliers_missed M" for the listing. */
void kstats_outliers_show(struct seq_file *m, const struct kstats_probe *p);
/*
 * Copies of the samples kept, largest first, into @out (room for N times
 * the possible CPUs); returns how many, or -ENOMEM.
 */
int kstats_outliers_copy(const struct kstats_outliers *t,
			 struct kstats_outlier *out, unsigned int room);

#endif /* _KSTATS_OUTLIERS_H */
