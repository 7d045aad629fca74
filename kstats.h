/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: record core, public API. Calls nothing of kstats but the
 * core (kstats_core.c).
 *
 * kstats: per-CPU log-linear histograms of kernel-side values, typically
 * runtimes or latencies in nanoseconds, exported as text in debugfs.
 *
 * See Documentation/kstats.rst for the output format and usage.
 */
#ifndef _KSTATS_H
#define _KSTATS_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/types.h>

struct dentry;
struct kstats_extremes;
struct kstats_parts;
struct kstats_probe;
struct kstats_slot;

/* Largest accepted @frac_bits: 1 + 5 significant bits per slot. */
#define KSTATS_MAX_FRAC_BITS	5
/* Longest entry name, without the terminating NUL. */
#define KSTATS_NAME_MAX		63

/* Who created an entry, and so who may delete it. */
enum kstats_origin {
	KSTATS_ORIGIN_KERNEL,	/* kernel code, through kstats_new() */
	KSTATS_ORIGIN_CONTROL,	/* a "trace" command written to _control */
};

/**
 * struct kstats - one histogram
 * @active: whether kstats_record() counts samples; read inline by callers.
 *
 * Everything else is private to kstats.
 */
struct kstats {
	bool active;
	/* private: */
	u8 frac_bits;
	u16 nr_slots;
	u32 epoch;		/* bumped by kstats_start(): pairs never span a stop */
	enum kstats_origin origin;
	struct kstats_probe *probe;	/* for KSTATS_ORIGIN_CONTROL */
	struct kstats_slot __percpu *slots;
	struct kstats_extremes __percpu *ext;	/* min, max: after the slots */
	size_t mem;		/* bytes charged to max_memory, given back by its free */
	const struct kstats_parts *parts;	/* by KEY: its keys' histograms */
	struct dentry *dentry;
	struct dentry *keys_dentry;	/* _keys/NAME of by KEY, or NULL */
	struct dentry *outliers_dentry;	/* _outliers/NAME, or NULL */
	struct list_head list;
	char name[KSTATS_NAME_MAX + 1];
};

/**
 * kstats_new() - create a histogram and its file /sys/kernel/debug/kstats/@name
 * @name: 1 to %KSTATS_NAME_MAX characters from [A-Za-z0-9_.:-], not starting
 *	with '_' (reserved for kstats's own files) and neither "." nor "..".
 * @frac_bits: extra significant bits per power of two, 0 to
 *	%KSTATS_MAX_FRAC_BITS. Each slot then spans at most 2^-@frac_bits of
 *	its lower edge, and values below 2^(@frac_bits + 1) get a slot each.
 *
 * The new entry is running: kstats_record() counts samples at once.
 * Must be called from process context; it may sleep.
 *
 * Return: the new entry, or an ERR_PTR(): -EINVAL for a bad @name or
 * @frac_bits, -EEXIST if an entry called @name exists, -ENOMEM, or the
 * error from debugfs. Never NULL.
 */
struct kstats *kstats_new(const char *name, u8 frac_bits);

/**
 * kstats_delete() - remove the file of @ks and free it
 * @ks: entry from kstats_new(); NULL or an ERR_PTR() is a no-op.
 *
 * Readers and writers of the file that are inside a read() or write() are
 * waited for; later calls on files still open return -EIO. The caller must
 * make sure that nobody calls kstats_record() on @ks any more. May sleep.
 */
void kstats_delete(struct kstats *ks);

void __kstats_record(struct kstats *ks, u64 val);

/**
 * kstats_record() - add one sample to the histogram of @ks
 * @ks: entry from kstats_new().
 * @val: the sample, any u64; no value is dropped.
 *
 * Counts @val in the slot of the current CPU, with this_cpu_add(), so it is
 * safe in process, softirq and hardirq context and never sleeps or takes a
 * lock. The state check is inline, so a stopped entry costs its caller one
 * load and a predicted branch; a running one adds a call. From NMI context
 * it is safe where this_cpu_add() is a single instruction (x86): a
 * concurrent kstats_reset() may then drop that sample's mean contribution.
 */
static __always_inline void kstats_record(struct kstats *ks, u64 val)
{
	if (READ_ONCE(ks->active))
		__kstats_record(ks, val);
}

/**
 * kstats_start() - make kstats_record() count samples on @ks again
 * @ks: entry from kstats_new().
 *
 * Same as writing "start" into the entry's file.
 */
void kstats_start(struct kstats *ks);

/**
 * kstats_stop() - make kstats_record() ignore samples on @ks
 * @ks: entry from kstats_new().
 *
 * Counters are kept, so the file can still be read. Samples already inside
 * kstats_record() on another CPU may still land. Same as writing "stop".
 */
void kstats_stop(struct kstats *ks);

/**
 * kstats_reset() - zero all counters of @ks on every CPU
 * @ks: entry from kstats_new().
 *
 * Each CPU clears its own counters with interrupts off, so a sample is
 * either fully counted or fully dropped unless it was interrupted between
 * its count and its sum updates: then its count survives and the slot mean
 * is low by at most that sample's offset, never outside the slot.
 * Same as writing "reset". May sleep; not from atomic context.
 */
void kstats_reset(struct kstats *ks);

#endif /* _KSTATS_H */
