/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: record core (slot math, entry lifetime), with the
 * prototypes by which the layers above reach each other.
 *
 * kstats internals shared by the histogram core, the debugfs front end and
 * the KUnit test. Not part of the API.
 */
#ifndef _KSTATS_INTERNAL_H
#define _KSTATS_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include "kstats.h"
#include "kstats_pcpu.h"

struct seq_file;

/*
 * Each sample adds its offset from the slot's lower edge to the slot sum,
 * shifted right just enough to stay below 2^KSTATS_SUM_BITS. The mean is
 * thus exact for values below 2^(KSTATS_SUM_BITS + 1 + frac_bits), keeps
 * at least KSTATS_SUM_BITS significant bits above, and a sum cannot
 * overflow before 2^(64 - KSTATS_SUM_BITS) samples land in one slot.
 */
#define KSTATS_SUM_BITS		20

struct kstats_slot {
	u64 sum;	/* scaled offsets from the slot's lower edge */
	u64 count;
};

/* Bucket of @val: 0 for the linear region, else 1 + (msb - frac_bits). */
static inline unsigned int kstats_bucket(u64 val, unsigned int frac_bits)
{
	return fls64(val >> frac_bits);
}

/*
 * Slot of @val: in bucket 0 the value itself, else the bucket followed by
 * the frac_bits bits below the most significant one.
 */
static inline unsigned int kstats_bucket_slot(u64 val, unsigned int bucket,
					      unsigned int frac_bits)
{
	if (!bucket)
		return val;
	return (bucket << frac_bits) |
	       ((val >> (bucket - 1)) & ((1U << frac_bits) - 1));
}

static inline unsigned int kstats_slot(u64 val, unsigned int frac_bits)
{
	return kstats_bucket_slot(val, kstats_bucket(val, frac_bits), frac_bits);
}

/* Buckets run from 0 to 64 - frac_bits, each with 2^frac_bits slots. */
static inline unsigned int kstats_nr_slots(unsigned int frac_bits)
{
	return (65 - frac_bits) << frac_bits;
}

/* Smallest value that maps to @slot. */
static inline u64 kstats_slot_lo(unsigned int slot, unsigned int frac_bits)
{
	unsigned int bucket = slot >> frac_bits;
	u64 mantissa = (1U << frac_bits) | (slot & ((1U << frac_bits) - 1));

	if (!bucket)
		return slot;
	return mantissa << (bucket - 1);
}

/* Number of distinct values that map to @slot. */
static inline u64 kstats_slot_width(unsigned int slot, unsigned int frac_bits)
{
	unsigned int bucket = slot >> frac_bits;

	return bucket ? BIT_ULL(bucket - 1) : 1;
}

/* Right shift applied to offsets in @bucket before they enter the sum. */
static inline unsigned int kstats_sum_shift(unsigned int bucket)
{
	return bucket > KSTATS_SUM_BITS + 1 ? bucket - 1 - KSTATS_SUM_BITS : 0;
}

/*
 * The exact smallest and largest sample of a CPU. The minimum is kept
 * inverted, so that both only grow and zeroed memory (allocation, reset)
 * holds none: both 0 means no sample, since a sample of 0 sets @not_min
 * and any other sets @max.
 */
struct kstats_extremes {
	u64 max;
	u64 not_min;	/* ~min */
};

/*
 * Raise *@p, a reference to this CPU's copy (kstats_pcpu.h), to @val:
 * one compare once the extremes settle. The compare-exchange keeps a
 * sample from an interrupt in between.
 */
static __always_inline void kstats_raise(__kstats_pcpu u64 *p, u64 val)
{
	u64 cur = kstats_pcpu_read(p), prev;

	while (unlikely(val > cur)) {
		prev = kstats_pcpu_cmpxchg(p, cur, val);
		if (prev == cur)
			break;
		cur = prev;
	}
}

/* Where a sample goes: its slot, and what it adds to the slot's sum. */
struct kstats_pos {
	unsigned int slot;
	u64 offset;
};

/*
 * kstats_bucket_slot() and the offset in one pass, for the hot path: with
 * @s the bits that the slot drops below the msb (0 in buckets 0 and 1;
 * else bucket - 1), the slot is (s << frac_bits) + (val >> s), and its
 * lower edge (val >> s) << s.
 */
static __always_inline struct kstats_pos kstats_pos_of(u64 val,
						       unsigned int frac_bits)
{
	/* fls64(val) - 1, but 0 for 0: the same s, without a test for 0. */
	int s = max_t(int, (int)__fls(val | 1) - (int)frac_bits, 0);
	u64 q = val >> s;
	struct kstats_pos pos;

	pos.slot = ((unsigned int)s << frac_bits) + (unsigned int)q;
	/* kstats_sum_shift(s + 1) */
	pos.offset = (val - (q << s)) >> max_t(int, s - KSTATS_SUM_BITS, 0);
	return pos;
}

/*
 * The recording hot path, after the state check (kstats_record_inline());
 * inlined into __kstats_record(), the probe handlers and, to weigh a call
 * against inlining, the benchmark: sample @val at @pos (kstats_pos_of()
 * for @ks's frac_bits; a histogram of the same bits, such as a key's,
 * takes the same @pos).
 * __kstats_add_at() is for callers that keep preemption off around it,
 * or that accept a sample split over two CPUs if the task moves between
 * its updates (a lean direct entry's end, kstats_direct.c; on arm64 it
 * holds the CPU itself, kstats_pcpu.h).
 * The sum is updated before the count, and kstats_reset() clears a CPU's
 * slots from that CPU with interrupts off: a sample cut in two by a reset
 * leaves at worst a count without its offset, which keeps the mean inside
 * the slot.
 */
static __always_inline void __kstats_add_at(struct kstats *ks, u64 val,
					    struct kstats_pos pos)
{
	/* Loaded once: the per-CPU updates below may alias any memory. */
	__kstats_pcpu struct kstats_slot *slot;
	__kstats_pcpu struct kstats_extremes *ext;

	kstats_pcpu_hold();
	slot = kstats_pcpu_ref(ks->slots + pos.slot);
	ext = kstats_pcpu_ref(ks->ext);
	kstats_pcpu_add(&slot->sum, pos.offset);
	kstats_pcpu_add(&slot->count, 1);
	kstats_raise(&ext->max, val);
	kstats_raise(&ext->not_min, ~val);
	kstats_pcpu_release();
}

static __always_inline void kstats_add_at(struct kstats *ks, u64 val,
					  struct kstats_pos pos)
{
	/* Keep all updates on one CPU; each is irq-safe on its own. */
	preempt_disable_notrace();
	__kstats_add_at(ks, val, pos);
	preempt_enable_notrace();
}

/* Sample @val into @ks at its own position; as __kstats_add_at(). */
static __always_inline void __kstats_add_sample(struct kstats *ks, u64 val)
{
	__kstats_add_at(ks, val, kstats_pos_of(val, ks->frac_bits));
}

static __always_inline void kstats_add_sample(struct kstats *ks, u64 val)
{
	kstats_add_at(ks, val, kstats_pos_of(val, ks->frac_bits));
}

/*
 * Per CPU, the context of the innermost probe handler running there, or
 * 0: see kstats_guard_enter() in kstats_handler.h.
 */
DECLARE_PER_CPU(unsigned int, kstats_busy);

/*
 * kstats_record() without its call, for __kstats_record() and for the
 * probe handlers, which inline it: the state check, then the sample.
 */
static __always_inline void kstats_record_inline(struct kstats *ks, u64 val)
{
	if (READ_ONCE(ks->active))
		kstats_add_sample(ks, val);
}

/*
 * Mean of @count samples in @slot whose scaled offsets add up to @sum.
 * Clamped to the slot, since a lockless copy may hold the sum of a sample
 * whose count is not there yet.
 */
static inline u64 kstats_slot_mean(unsigned int slot, unsigned int frac_bits,
				   u64 sum, u64 count)
{
	u64 lo = kstats_slot_lo(slot, frac_bits);
	u64 width = kstats_slot_width(slot, frac_bits);
	unsigned int shift = kstats_sum_shift(slot >> frac_bits);
	u64 q;

	if (!count)
		return lo;
	q = div64_u64(sum, count);
	if (q >= width >> shift)
		return lo + width - 1;
	/* The remainder is below count, so this cannot overflow. */
	return lo + (q << shift) +
	       mul_u64_u64_div_u64(sum - q * count, BIT_ULL(shift), count);
}

/*
 * The parts of a histogram (by KEY: one per key, and other): each of its
 * samples goes into one of them instead, and what it shows (its lines,
 * its extremes) is its own slots and theirs summed, the same sums and
 * counts as if every sample had gone into it. @part are handed out in
 * order; @rest is always one. Set before its first sample, they live as
 * long as it does.
 */
struct kstats_parts {
	struct kstats *const *part;
	const atomic_t *used;		/* handed out; may pass @max */
	unsigned int max;
	struct kstats *rest;
};

/*
 * The histograms whose sum @ks shows: @ks itself for @i 0, then its
 * parts; NULL past the last.
 */
static inline const struct kstats *kstats_view(const struct kstats *ks,
					       unsigned int i)
{
	const struct kstats_parts *v = ks->parts;
	unsigned int n;

	if (!i)
		return ks;
	if (!v)
		return NULL;
	n = min_t(unsigned int, atomic_read(v->used), v->max);
	if (i <= n)
		return v->part[i - 1];
	return i == n + 1 ? v->rest : NULL;
}

/*
 * Exact smallest and largest sample over all CPUs; false if none. Read
 * without stopping anyone: a sample landing meanwhile may or may not be
 * in them.
 */
bool kstats_extremes(const struct kstats *ks, u64 *lo, u64 *hi);
/* " min N max N" for the _control line, nothing if there is no sample. */
void kstats_show_extremes(struct seq_file *m, const struct kstats *ks);

/* Entry lifetime, in kstats_core.c. */
bool kstats_name_valid(const char *name);
/* clock tsc: ns = cycles * *@mult >> *@shift for a TSC of @khz. */
void kstats_tsc_scale(unsigned int khz, u32 *mult, u32 *shift);
void kstats_tsc_scale_now(u32 *mult, u32 *shift);
/* Entry called @name, or NULL; the caller holds kstats_mutex. */
struct kstats *kstats_find(const char *name);
/*
 * kstats_new() in two steps, for _control: an entry that kstats_record()
 * counts into but nobody sees yet, then its file and its place in the list
 * (-EEXIST if the name is taken, or the error from debugfs). An entry that
 * was never published goes with kstats_free(), a published one with
 * kstats_delete().
 */
struct kstats *kstats_alloc(const char *name, u8 frac_bits);
int kstats_publish(struct kstats *ks);
void kstats_free(struct kstats *ks);
/* Zero every CPU's slots of an entry that nobody records into. */
void kstats_clear(struct kstats *ks);
void kstats_core_init(void);
void kstats_core_exit(void);
/*
 * The memory budget (max_memory): take @bytes of it, or -ENOSPC; give
 * them back; the reason of a refusal into @why. kstats_free() gives back
 * an entry's ks->mem.
 */
int kstats_mem_charge(size_t bytes);
void kstats_mem_uncharge(size_t bytes);
void kstats_mem_why(char *why, size_t len, size_t bytes);
/* What the counters of an entry of @frac_bits take, on every possible CPU. */
size_t kstats_bytes(u8 frac_bits);
/*
 * How the core gives a published entry its files, and takes them away:
 * handed down by the front end (kstats_fs_init()), never called up to.
 */
struct kstats_files {
	int (*add)(struct kstats *ks);
	void (*remove)(struct kstats *ks);
};

void kstats_core_set_files(const struct kstats_files *files);

/* Front end, in kstats_fs.c. */
struct kstats_snapshot;
/*
 * A copy of @ks's counters as the lines of its file (NULL: no memory),
 * freed with kvfree(); kstats_snapshot_show() writes them, each after
 * @prefix.
 */
struct kstats_snapshot *kstats_snapshot(struct kstats *ks);
bool kstats_snapshot_empty(const struct kstats_snapshot *snap);
void kstats_snapshot_show(struct seq_file *m,
			  const struct kstats_snapshot *snap,
			  void (*prefix)(struct seq_file *m, const void *arg),
			  const void *arg);
/* _keys/NAME of an entry with keys, in kstats_keys_fs.c. */
struct dentry;
struct file;
struct dentry *kstats_keys_fs_init(struct dentry *root);
int kstats_keys_fs_add(struct dentry *dir, struct kstats *ks);
struct dentry *kstats_outliers_fs_init(struct dentry *root);
int kstats_outliers_fs_add(struct dentry *dir, struct kstats *ks);
int kstats_fs_init(void);
void kstats_fs_exit(void);
/* A reader of the _control listing (a seq_file), for /dev/kstats too. */
int kstats_control_open(struct inode *inode, struct file *file);
/*
 * One command line from user space through @via ("_control" or
 * "/dev/kstats"), in kstats_command.c: @count, or a negative errno.
 */
ssize_t kstats_command_write(const char __user *ubuf, size_t count,
			     const char *via);
/*
 * May the opener of @file write commands (0, or -EPERM logged as coming
 * through @via)? May it read what shows other tasks, @what (0 or
 * -EACCES)? Both in kstats_command.c.
 */
int kstats_may_command(struct file *file, const char *via);
int kstats_may_see_tasks(struct file *file, const char *what);
/*
 * Whether confidentiality lockdown hides the values of @ks (some may be
 * addresses); reading them then gets -EPERM, logged for file @what of
 * the entry ("" for its own, "_keys/"...).
 */
bool kstats_values_hidden(const struct kstats *ks);
int kstats_may_show_values(const struct kstats *ks, const char *what);
/* /dev/kstats, in kstats_dev.c. */
int kstats_dev_init(void);
void kstats_dev_exit(void);

/* Run-time attachment, in kstats_control.c. */
struct kstats_cmd;
int kstats_control_init(void);
void kstats_control_exit(void);
int kstats_probe_command(struct kstats_cmd *cmd);
/*
 * start, stop and reset, in kstats_state.c: written into the entry's
 * file (@op KSTATS_CMD_START, _STOP or _RESET of kstats_parse.h), or
 * "start NAME" and so on (kstats_control_mutex held).
 */
int kstats_state_file(struct kstats *ks, int op);
int kstats_state_command(struct kstats_cmd *cmd);
/* The _control line of an entry of a command, in kstats_listing.c. */
void kstats_probe_show(struct seq_file *m, const struct kstats *ks);
/* Calibration lines of _control, in kstats_calibrate.c; kstats_mutex held. */
unsigned int kstats_calibration_lines(void);
void kstats_calibration_show(struct seq_file *m, unsigned int i);

/* All entries, for the _control listing; see kstats_core.c. */
extern struct list_head kstats_list;
extern struct mutex kstats_mutex;

#endif /* _KSTATS_INTERNAL_H */
