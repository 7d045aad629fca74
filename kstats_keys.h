/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers (the record hook inlined into handlers).
 * Calls the record core.
 *
 * Per-key histograms, "trace ... by comm|pid|tid|cpu|cgroup|retval|syscall
 * [keys N]" (of a key argN pair: of the task at its start):
 * each sample goes into the histogram of its key, found or inserted
 * without a lock in a table of at most N keys fixed at trace time;
 * samples of later keys go into one histogram "other" and are counted in
 * keys_dropped. The entry's own lines are the sum of them all. The
 * common hit is inline here: a key of one or two loads, found at its home
 * position. Keys read out of line, the search, the inserts, the _control
 * side and the table's making are in kstats_keys.c, the text of
 * _keys/NAME in kstats_keys_fs.c.
 */
#ifndef _KSTATS_KEYS_H
#define _KSTATS_KEYS_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/types.h>
#include "kstats_internal.h"
#include "kstats_outliers.h"
#include "kstats_probe.h"
#include "kstats_stack.h"

/* "keys N": the default and the most keys of one entry. */
#define KSTATS_KEYS_DEFAULT	32
#define KSTATS_KEYS_MAX		1024

struct kstats_cmd;
struct seq_file;

/* Low bits of a position's state; the rest is the key's hash. */
#define KSTATS_KEY_CLAIMED	1UL	/* its key is being written, or past N */
#define KSTATS_KEY_READY	2UL
#define KSTATS_KEY_PHASE	3UL

struct kstats_key {
	unsigned long state;	/* 0: free, else hash << 2 | phase */
	u64 k[2];		/* a number in k[0], or a comm's 16 bytes */
	struct kstats *hist;	/* NULL: claimed past N, samples go to other */
};

/*
 * by stack: a key's frames, innermost first, kstats' own left out; its
 * k[0] and k[1] are two hashes of them.
 */
#define KSTATS_KEY_STACK_DEPTH	16
struct kstats_key_stack {
	unsigned int nr;
	unsigned long ip[KSTATS_KEY_STACK_DEPTH];
};

/*
 * The source of the keys read before the sample's hook, by argN's (at
 * FUNC's entry, at a pair's start) and every key of key argN pairs (at
 * the start, in the task that issued the request): they come with the
 * sample, as the address of their two words in its "ret"
 * (kstats_keys_start_key()).
 */
#define KSTATS_BY_START	KSTATS_BY_NONE
/* A key the start could not read (a cgroup where RCU does not watch). */
#define KSTATS_KEY_UNREAD	U64_MAX

/*
 * The table of an entry's keys, made at trace time (kstats_keys.c); the
 * record path below reads it.
 */
struct kstats_keys {
	enum kstats_cmd_by by;
	enum kstats_cmd_by src;		/* by, or KSTATS_BY_START */
	u64 kmask;			/* by retval, argN: the type's mask, */
	u8 kbits;			/* bits, */
	bool ksigned;			/* and whether it is signed */
	u8 kstr;			/* by argN->NAME: a char array's bytes */
	u8 site;			/* of a pair: where by argN|stack is read */
	struct kstats_path path;	/* by argN->MEMBER: the pair follows it */
	unsigned int max;		/* keys N */
	unsigned int mask;		/* positions - 1 */
	atomic_t nr;			/* histograms handed out */
	bool frozen;			/* a reset is under way */
	u8 frozen_shape;		/* see kstats_keys_lean() */
	u8 *shape;
	struct mutex resetting;		/* one reset at a time */
	unsigned long __percpu *dropped;	/* samples into other */
	struct kstats *other;
	struct kstats **hists;		/* the N histograms */
	struct kstats_key_stack *stacks;	/* by stack: each position's */
	struct kstats_stack_memos __percpu *memos;	/* by stack's walks */
	struct kstats_parts parts;	/* the entry's view: hists and other */
	struct kstats_key pos[];
};

/*
 * The hash of a key of two words, hash_64() of one where @k1 is 0. One
 * instruction mixes them in (x86-64's lea): a collision costs a probe, as
 * the lookups compare both words.
 */
static __always_inline u32 kstats_key_hash(u64 k0, u64 k1)
{
	return hash_64(k0 + 2 * k1, 32);
}

/*
 * The key of this hit by @src into @k0, @k1 (scalars, kept in registers)
 * and its hash, where it is one or two loads: comm, pid, tid, cpu, retval
 * (@ret, FUNC's return value) and a key the start read (@ret, its
 * address). False for the others, which kstats_keys.c reads out of line,
 * and for a start's key that could not be read.
 */
static __always_inline bool kstats_key_quick(const struct kstats_keys *t,
					     enum kstats_cmd_by src,
					     unsigned long ret, u64 *k0,
					     u64 *k1, u32 *hash)
{
	*k1 = 0;
	switch (src) {
	case KSTATS_BY_START:
		*k0 = ((const u64 *)ret)[0];
		*k1 = ((const u64 *)ret)[1];
		if (*k1 == KSTATS_KEY_UNREAD)
			return false;
		*hash = kstats_key_hash(*k0, *k1);
		return true;
	case KSTATS_BY_COMM:
		/*
		 * Two loads, no string copy: set_task_comm() pads the name
		 * with NULs, and fork() copies it whole.
		 */
		BUILD_BUG_ON(sizeof(current->comm) < 2 * sizeof(u64));
		memcpy(k0, current->comm, sizeof(*k0));
		memcpy(k1, current->comm + sizeof(*k0), sizeof(*k1));
		*hash = kstats_key_hash(*k0, *k1);
		return true;
	case KSTATS_BY_PID:
		*k0 = task_tgid_nr(current);
		break;
	case KSTATS_BY_TID:
		*k0 = task_pid_nr(current);
		break;
	case KSTATS_BY_CPU:
		*k0 = raw_smp_processor_id();
		break;
	case KSTATS_BY_RETVAL:
		/* The register's bits above the type are undefined. */
		*k0 = kstats_int_cut(ret, t->kbits, t->ksigned, t->kmask);
		break;
	default:
		return false;
	}
	*hash = kstats_key_hash(*k0, 0);
	return true;
}

/*
 * Out of line: a key not read by kstats_key_quick(), or not found at its
 * home position (another position, a new key, other). Few arguments, so
 * that none goes on the stack of the handlers that inline the calls.
 */
void kstats_keys_record_slow(struct kstats_probe *p, u64 val,
			     unsigned long ret, unsigned long to);
void kstats_keys_record_miss(struct kstats_keys *t, u64 val, u64 k0, u64 k1,
			     u32 hash);

/*
 * A sample of @p (which has keys) into its key's histogram, at @pos:
 * the entry shows the sum of its keys' histograms (struct kstats_parts),
 * so the sample goes into no other. Inline for the keys that
 * kstats_key_quick() reads, found at their home position: one position's
 * state and key compared, one histogram sampled. For a caller that has
 * seen the table thawed: see kstats_keys_record_src().
 */
static __always_inline void kstats_keys_record_thawed(struct kstats_probe *p,
						      u64 val,
						      struct kstats_pos pos,
						      unsigned long ret,
						      unsigned long to,
						      enum kstats_cmd_by src)
{
	struct kstats_keys *t = p->keys;
	const struct kstats_key *e;
	u64 k0, k1;
	u32 hash;

	if (unlikely(!kstats_key_quick(t, src, ret, &k0, &k1, &hash))) {
		kstats_keys_record_slow(p, val, ret, to);
		return;
	}
	e = &t->pos[hash & t->mask];
	/* A ready state comes with its key: see kstats_keys_fill(). */
	if (likely(smp_load_acquire(&e->state) ==
		   ((unsigned long)hash << 2 | KSTATS_KEY_READY) &&
		   e->k[0] == k0 && e->k[1] == k1))
		__kstats_add_at(e->hist, val, pos);
	else
		kstats_keys_record_miss(t, val, k0, k1, hash);
}

/*
 * The same, during a reset of the keys into the entry's own slots.
 * Preemption is off from the check of @frozen to the sample, so that
 * kstats_keys_reset() can wait for it. (A lean direct entry's end tests
 * its shape instead, with preemption on: see kstats_keys_lean().)
 * Where RCU does not watch (the edges of idle), that wait does not cover
 * a hit: a sample there during a reset may land in the histogram of a
 * key the reset dropped, which a new key then takes; the histograms
 * themselves live as long as the entry.
 */
static __always_inline void kstats_keys_record_src(struct kstats_probe *p,
						   u64 val, struct kstats_pos pos,
						   unsigned long ret,
						   unsigned long to,
						   enum kstats_cmd_by src)
{
	/* Thawed: the table a reset cleared is seen clear. */
	if (unlikely(smp_load_acquire(&p->keys->frozen))) {
		__kstats_add_at(p->ks, val, pos);
		return;
	}
	kstats_keys_record_thawed(p, val, pos, ret, to, src);
}

/* The same, for the source of @p's keys, read here. */
static __always_inline void kstats_keys_record(struct kstats_probe *p,
					       u64 val, struct kstats_pos pos,
					       unsigned long ret,
					       unsigned long to)
{
	kstats_keys_record_src(p, val, pos, ret, to, p->keys->src);
}

/*
 * A sample of @p, with @ret, FUNC's return value where the hook has one:
 * into the entry, or where it has keys into its key's histogram, which
 * the entry's lines include. @to: where an outlier's stack starts (see
 * kstats_outliers_add()).
 */
static __always_inline void kstats_probe_record_to(struct kstats_probe *p,
						   u64 val, unsigned long ret,
						   unsigned long to)
{
	struct kstats *ks = p->ks;
	struct kstats_pos pos;

	if (!READ_ONCE(ks->active))
		return;
	pos = kstats_pos_of(val, ks->frac_bits);
	/* Keep all updates on one CPU; each is irq-safe on its own. */
	preempt_disable_notrace();
	if (unlikely(p->keys))
		kstats_keys_record(p, val, pos, ret, to);
	else
		__kstats_add_at(ks, val, pos);
	preempt_enable_notrace();
	if (unlikely(p->outliers))
		kstats_outliers_record(p, val, ret, to);
}

/* The same, with the whole stack for an outlier. */
static __always_inline void kstats_probe_record_ret(struct kstats_probe *p,
						    u64 val, unsigned long ret)
{
	kstats_probe_record_to(p, val, ret, 0);
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
/* What that table takes, its histograms' counters included: 0 without. */
size_t kstats_keys_memory(const struct kstats_cmd *cmd);
/* Once no handler of @p runs. */
void kstats_keys_free(struct kstats_probe *p);
/* Forget every key and clear their histograms; may sleep. */
void kstats_keys_reset(struct kstats_keys *t);

/*
 * @t is recorded into by the handlers of an entry of a lean shape (a
 * direct entry's end), which test the byte at @shape instead of @frozen,
 * and sample with preemption on: a reset writes @frozen_shape there
 * while it clears, waits for every task that read the shape before,
 * and writes back what it read. At attach, before any hit.
 */
static inline void kstats_keys_lean(struct kstats_keys *t, u8 *shape,
				    u8 frozen_shape)
{
	t->shape = shape;
	t->frozen_shape = frozen_shape;
}

#if IS_ENABLED(CONFIG_KUNIT)
void kstats_keys_clear(struct kstats_keys *t);
#endif
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
 * Whether the key of @p's samples is read before the sample, by the hook:
 * by argN's (at FUNC's entry, at a pair's start or end), a pair's by
 * stack, and any key of a key argN pair (at its start: the issuing
 * task's, as the end may run in any task).
 */
static __always_inline bool kstats_keys_at_start(const struct kstats_probe *p)
{
	return p->by_arg || p->key == KSTATS_KEY_ARG || p->by_hook;
}

/* by argN: the key of a call whose argument N is @v; @p has keys. */
static __always_inline u64 kstats_keys_arg_key(const struct kstats_probe *p,
					       unsigned long v)
{
	const struct kstats_keys *t = p->keys;

	/* The register's bits above the type are undefined. */
	return kstats_int_cut(v, t->kbits, t->ksigned, t->kmask);
}

/*
 * There, the key (@v being by argN's argument, or for a char array its
 * address) into @k, for the sample, which passes @k's address as its
 * @ret; @p has keys, not by stack.
 */
void kstats_keys_start_key(const struct kstats_probe *p, unsigned long v,
			   u64 k[2]);
void kstats_keys_stack_key(struct kstats_keys *t,
			   const struct kstats_key_stack *s, u64 k[2]);

/*
 * A pair's key at its site, as kstats_keys_start_key() reads it; by
 * stack, its frames from where the hook returns to, @to, if not 0, else
 * from the first that is not kstats', into the table here. Inline: the
 * stack walk goes through every frame below it, one more per call level.
 */
static __always_inline void kstats_keys_site_key(const struct kstats_probe *p,
						 unsigned long v,
						 unsigned long to, u64 k[2])
{
	struct kstats_key_stack s;

	if (p->keys->by != KSTATS_BY_STACK) {
		kstats_keys_start_key(p, v, k);
		return;
	}
	s.nr = kstats_stack_save_from(p->keys->memos, s.ip,
				      KSTATS_KEY_STACK_DEPTH, to, true);
	kstats_keys_stack_key(p->keys, &s, k);
}

void kstats_keys_print(struct seq_file *m, const struct kstats_keys *t,
		       const u64 k[2]);
void kstats_print_comm(struct seq_file *m, const char *comm, size_t len);

#endif /* _KSTATS_KEYS_H */
