/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers (the record hook inlined into handlers).
 * Calls the record core.
 *
 * Per-key histograms, "trace ... by comm|pid|tid|cpu|cgroup|retval|syscall
 * [keys N]" (of a key argN pair: of the task at its start):
 * besides the entry's own histogram, each sample goes into the histogram
 * of its key, found or inserted without a lock in a table of at most N
 * keys fixed at trace time; samples of later keys go into one histogram
 * "other" and are counted in keys_dropped. The _control side and the
 * table are in kstats_keys.c, the text of _keys/NAME in kstats_keys_fs.c.
 */
#ifndef _KSTATS_KEYS_H
#define _KSTATS_KEYS_H

#include <linux/compiler.h>
#include <linux/types.h>
#include "kstats_internal.h"
#include "kstats_outliers.h"
#include "kstats_probe.h"

/* "keys N": the default and the most keys of one entry. */
#define KSTATS_KEYS_DEFAULT	32
#define KSTATS_KEYS_MAX		1024

struct kstats_cmd;
struct kstats_keys;
struct seq_file;

void kstats_keys_record(struct kstats_probe *p, u64 val, struct kstats_pos pos,
			unsigned long ret);

/*
 * A sample of @p, with @ret, FUNC's return value where the hook has one:
 * into the entry, and into its key's histogram, at the same slot, where
 * the entry has keys (one load and one branch more when it has none).
 */
static __always_inline void kstats_probe_record_ret(struct kstats_probe *p,
						    u64 val, unsigned long ret)
{
	struct kstats *ks = p->ks;
	struct kstats_pos pos;

	if (!READ_ONCE(ks->active))
		return;
	pos = kstats_pos_of(val, ks->frac_bits);
	kstats_add_at(ks, val, pos);
	if (unlikely(p->keys))
		kstats_keys_record(p, val, pos, ret);
	if (unlikely(p->outliers))
		kstats_outliers_record(p, val, ret);
}

/* A sample of a hook that sees no return (by retval refuses those). */
static __always_inline void kstats_probe_record(struct kstats_probe *p,
						u64 val)
{
	kstats_probe_record_ret(p, val, 0);
}

/* "by KEY", "keys N" of a trace command; -ENOENT if @key is neither. */
int kstats_parse_keys(struct kstats_cmd *cmd, const char *key,
		      const char *val);
/* The table of @cmd's keys for @p, at trace time; none without "by". */
int kstats_keys_setup(struct kstats_probe *p, struct kstats_cmd *cmd);
/* Once no handler of @p runs. */
void kstats_keys_free(struct kstats_probe *p);
/* Forget every key and clear their histograms; may sleep. */
void kstats_keys_reset(struct kstats_keys *t);
/* " by KEY keys N keys_max N keys_dropped N bytes N" for the listing. */
void kstats_keys_show(struct seq_file *m, const struct kstats_probe *p);

/*
 * For the text of _keys/NAME: the histogram of table position @i (0 to
 * kstats_keys_size() - 1) and its key, written into @m by
 * kstats_keys_name(); NULL where no key with its own histogram is.
 */
unsigned int kstats_keys_size(const struct kstats_keys *t);
struct kstats *kstats_keys_hist(const struct kstats_keys *t, unsigned int i);
void kstats_keys_name(struct seq_file *m, const struct kstats_keys *t,
		      unsigned int i);
/* The histogram of the samples of the keys past the table's N. */
struct kstats *kstats_keys_other(const struct kstats_keys *t);
/*
 * The key of a hit of @p (which has keys) into @k, for outliers: left 0
 * where a cgroup cannot be read. kstats_keys_print() writes such a key
 * as _keys/NAME does; kstats_print_comm() a task name so, one word.
 */
void kstats_keys_key(const struct kstats_probe *p, unsigned long ret,
		     u64 k[2]);
/*
 * Whether the key of @p's samples is read before the sample: by argN's
 * (at FUNC's entry or a pair's start), and any key of a key argN pair
 * (at its start: the issuing task's, as the end may run in any task).
 */
static __always_inline bool kstats_keys_at_start(const struct kstats_probe *p)
{
	return p->by_arg || p->key == KSTATS_KEY_ARG;
}

/*
 * There, the key (@v being by argN's argument) into @k, for the sample,
 * which passes @k's address as its @ret; @p has keys.
 */
void kstats_keys_start_key(const struct kstats_probe *p, unsigned long v,
			   u64 k[2]);
void kstats_keys_print(struct seq_file *m, const struct kstats_keys *t,
		       const u64 k[2]);
void kstats_print_comm(struct seq_file *m, const char *comm, size_t len);

#endif /* _KSTATS_KEYS_H */
