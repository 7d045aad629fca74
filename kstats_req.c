// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * key argN: the pending starts of a pair, one per key (the value of the
 * start's Nth argument: a request pointer, an id), in a lockless table.
 * Start and end may run on any CPU and in any context, NMI included, so
 * nothing here waits: a slot is taken for an update by one cmpxchg (free
 * or pending to busy) and handed back by a release store. A hit that
 * meets its slot busy on another CPU does not wait for it: its start is
 * dropped, or its end finds no start (unpaired), and is counted so.
 *
 * A key's home is a hash of it; its start is in one of the
 * KSTATS_REQ_PROBES slots from there on, so an end looks at those
 * only. A start that finds its key pending restarts it. One that misses
 * it (busy on another CPU, or written by another start at the same time)
 * writes a second copy, which would pair with a later end: so each start
 * looks at the key's slots again once its own is written, and removes
 * the other copies, the lowest one staying. It does not wait for a busy
 * one either: its holder frees it, or writes it and looks again. Only a
 * copy busy then for a sweep or for another key's check is missed: it
 * stays till its end or its expiry. Starts never ended (a request that
 * the driver dropped, a start whose end was filtered out) are freed after
 * the table's expiry, by kstats_req_expire() and by a start that finds
 * its slots full. Keys are only compared, never shown.
 * A home slot's reach bounds the probes that its keys ever used, so that
 * in a table that is not crowded a start or an end looks at one or two
 * slots, not all KSTATS_REQ_PROBES. It only grows, before the slot that
 * grew it is pending: an end that follows its start (on any CPU, once
 * the start is done) sees it.
 * With a start goes the key of its histogram (by KEY: the task that
 * issued the request), read at the start and given back at the end.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include "kstats_req.h"

/* Slots a key may use: its home and the ones after it. */
#define KSTATS_REQ_PROBES	16

enum {
	KSTATS_REQ_SLOT_FREE,
	KSTATS_REQ_SLOT_BUSY,		/* being written by one CPU */
	KSTATS_REQ_SLOT_PENDING,	/* holds a start */
};

/* One pending start; its fields are written only while the slot is busy. */
struct kstats_req_slot {
	atomic_t state;
	atomic_t reach;		/* as a home: 1 + the furthest probe used */
	u32 epoch;		/* the entry's epoch at the start */
	u64 key;
	u64 t0;			/* the start's reading of the entry's clock */
	unsigned long born;	/* jiffies at the start, for the expiry */
	u64 by[2];		/* the key of the start's histogram */
};

struct kstats_req_table {
	unsigned int bits;
	unsigned int expire_s;
	unsigned long expire;		/* in jiffies */
	struct kstats_req_slot slots[];
};

size_t kstats_req_table_bytes(unsigned int slots)
{
	struct kstats_req_table *t;

	return struct_size(t, slots,
			   roundup_pow_of_two(slots ?: KSTATS_REQ_SLOTS_DEFAULT));
}

struct kstats_req_table *kstats_req_table_alloc(unsigned int slots,
						unsigned int expire_s)
{
	struct kstats_req_table *t;

	slots = roundup_pow_of_two(slots ?: KSTATS_REQ_SLOTS_DEFAULT);
	t = kvzalloc(kstats_req_table_bytes(slots),
		     GFP_KERNEL | __GFP_RETRY_MAYFAIL);
	if (!t)
		return NULL;
	t->bits = ilog2(slots);
	t->expire_s = expire_s ?: KSTATS_REQ_EXPIRE_DEFAULT;
	t->expire = t->expire_s * HZ;
	return t;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_table_alloc);

void kstats_req_table_free(struct kstats_req_table *t)
{
	kvfree(t);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_table_free);

unsigned int kstats_req_table_size(const struct kstats_req_table *t)
{
	return 1U << t->bits;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_table_size);

unsigned int kstats_req_expire_s(const struct kstats_req_table *t)
{
	return t->expire_s;
}

/* The slot of @key's probe @i. */
static __always_inline unsigned int
kstats_req_index(const struct kstats_req_table *t, u64 key, unsigned int i)
{
	return (hash_64(key, t->bits) + i) & ((1U << t->bits) - 1);
}

static __always_inline struct kstats_req_slot *
kstats_req_slot(struct kstats_req_table *t, u64 key, unsigned int i)
{
	return &t->slots[kstats_req_index(t, key, i)];
}

/* The probes of @key that a start may have used. */
static __always_inline unsigned int
kstats_req_reach(struct kstats_req_table *t, u64 key)
{
	return atomic_read(&kstats_req_slot(t, key, 0)->reach);
}

/* Probe @i of @key is about to be used: its home's reach covers it. */
static __always_inline void kstats_req_reach_to(struct kstats_req_table *t,
						u64 key, unsigned int i)
{
	atomic_t *reach = &kstats_req_slot(t, key, 0)->reach;
	int n = atomic_read(reach);

	while (n <= i && !atomic_try_cmpxchg(reach, &n, i + 1))
		;
}

/* Takes @s from state @from for an update; false if another CPU has it. */
static __always_inline bool kstats_req_lock(struct kstats_req_slot *s, int from)
{
	return atomic_read(&s->state) == from &&
	       atomic_cmpxchg_acquire(&s->state, from,
				      KSTATS_REQ_SLOT_BUSY) == from;
}

static __always_inline void kstats_req_unlock(struct kstats_req_slot *s,
					      int to)
{
	atomic_set_release(&s->state, to);
}

static __always_inline void kstats_req_fill(struct kstats_req_slot *s,
					    u64 key, u64 now, u32 epoch,
					    const u64 by[2])
{
	WRITE_ONCE(s->key, key);
	WRITE_ONCE(s->t0, now);
	WRITE_ONCE(s->epoch, epoch);
	WRITE_ONCE(s->born, jiffies);
	WRITE_ONCE(s->by[0], by[0]);
	WRITE_ONCE(s->by[1], by[1]);
}

static __always_inline bool kstats_req_old(const struct kstats_req_table *t,
					   const struct kstats_req_slot *s)
{
	return time_after(jiffies, READ_ONCE(s->born) + t->expire);
}

/* The busy slot @s holds a start of @key; else it goes back to pending. */
static __always_inline bool kstats_req_holds(struct kstats_req_slot *s, u64 key)
{
	if (READ_ONCE(s->key) == key)
		return true;
	kstats_req_unlock(s, KSTATS_REQ_SLOT_PENDING);
	return false;
}

/*
 * The start of @key just written at probe @k removes the other copies of
 * @key, left by starts on other CPUs that missed this one as it missed
 * them (each met the other's slot busy, or not yet written). The lowest
 * copy stays, so that two of them never free each other's: this start
 * frees the ones above its own, and moves into one below (its own still
 * pending, and freed then), and looks again from there. True if it met
 * another copy.
 */
static __always_inline bool kstats_req_dedup(struct kstats_req_table *t,
					     u64 key, unsigned int k, u64 now,
					     u32 epoch, const u64 by[2])
{
	struct kstats_req_slot *s, *own;
	bool met = false;
	unsigned int i, n;

again:
	/* Of two starts at once, one at least sees the other's copy. */
	smp_mb();
	n = kstats_req_reach(t, key);
	for (i = 0; i < n; i++) {
		s = kstats_req_slot(t, key, i);
		if (i == k ||
		    atomic_read(&s->state) != KSTATS_REQ_SLOT_PENDING ||
		    READ_ONCE(s->key) != key ||
		    !kstats_req_lock(s, KSTATS_REQ_SLOT_PENDING) ||
		    !kstats_req_holds(s, key))
			continue;
		met = true;
		if (i > k) {
			kstats_req_unlock(s, KSTATS_REQ_SLOT_FREE);
			continue;
		}
		/*
		 * Ours first: taken by an end meanwhile, it was this start's
		 * pair, and the lower copy stays as it is.
		 */
		own = kstats_req_slot(t, key, k);
		if (!kstats_req_lock(own, KSTATS_REQ_SLOT_PENDING) ||
		    !kstats_req_holds(own, key)) {
			kstats_req_unlock(s, KSTATS_REQ_SLOT_PENDING);
			return met;
		}
		kstats_req_fill(s, key, now, epoch, by);
		kstats_req_unlock(s, KSTATS_REQ_SLOT_PENDING);
		kstats_req_unlock(own, KSTATS_REQ_SLOT_FREE);
		/* All again, as for a new copy: each move is down, so few. */
		k = i;
		goto again;
	}
	return met;
}

notrace enum kstats_req_start kstats_req_start(struct kstats_req_table *t,
					       u64 key, u64 now, u32 epoch,
					       const u64 by[2])
{
	struct kstats_req_slot *s;
	enum kstats_req_start r;
	unsigned int i, n = kstats_req_reach(t, key);

	/* The key may be pending past a slot freed since: look at its reach. */
	for (i = 0; i < n; i++) {
		s = kstats_req_slot(t, key, i);
		if (atomic_read(&s->state) != KSTATS_REQ_SLOT_PENDING ||
		    READ_ONCE(s->key) != key ||
		    !kstats_req_lock(s, KSTATS_REQ_SLOT_PENDING) ||
		    !kstats_req_holds(s, key))
			continue;
		r = KSTATS_REQ_RESTARTED;
		goto fill;
	}
	for (i = 0; i < KSTATS_REQ_PROBES; i++) {
		s = kstats_req_slot(t, key, i);
		if (kstats_req_lock(s, KSTATS_REQ_SLOT_FREE)) {
			r = KSTATS_REQ_NEW;
			goto fill;
		}
	}
	/* Full: an expired start gives up its slot. */
	for (i = 0; i < KSTATS_REQ_PROBES; i++) {
		s = kstats_req_slot(t, key, i);
		if (!kstats_req_old(t, s) ||
		    !kstats_req_lock(s, KSTATS_REQ_SLOT_PENDING))
			continue;
		if (kstats_req_old(t, s)) {
			r = KSTATS_REQ_REPLACED;
			goto fill;
		}
		kstats_req_unlock(s, KSTATS_REQ_SLOT_PENDING);
	}
	return KSTATS_REQ_FULL;
fill:
	kstats_req_reach_to(t, key, i);
	kstats_req_fill(s, key, now, epoch, by);
	kstats_req_unlock(s, KSTATS_REQ_SLOT_PENDING);
	/* A new start that met another's copy restarted it. */
	if (kstats_req_dedup(t, key, i, now, epoch, by) &&
	    r == KSTATS_REQ_NEW)
		r = KSTATS_REQ_RESTARTED;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_start);

notrace u64 kstats_req_take(struct kstats_req_table *t, u64 key, u32 epoch,
			    u64 by[2])
{
	struct kstats_req_slot *s;
	unsigned int i, n = kstats_req_reach(t, key);
	u64 t0;

	for (i = 0; i < n; i++) {
		s = kstats_req_slot(t, key, i);
		if (atomic_read(&s->state) != KSTATS_REQ_SLOT_PENDING ||
		    READ_ONCE(s->key) != key ||
		    !kstats_req_lock(s, KSTATS_REQ_SLOT_PENDING) ||
		    !kstats_req_holds(s, key))
			continue;
		/* A start of an earlier epoch (a stop in between) is no pair. */
		t0 = READ_ONCE(s->epoch) == epoch ? READ_ONCE(s->t0) : 0;
		by[0] = READ_ONCE(s->by[0]);
		by[1] = READ_ONCE(s->by[1]);
		kstats_req_unlock(s, KSTATS_REQ_SLOT_FREE);
		return t0;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_take);

unsigned int kstats_req_expire(struct kstats_req_table *t)
{
	unsigned int i, n = 0;
	struct kstats_req_slot *s;

	for (i = 0; i < kstats_req_table_size(t); i++) {
		s = &t->slots[i];
		if (!(i % 1024))
			cond_resched();
		if (!kstats_req_old(t, s))
			continue;
		/* Not preempted while the slot is busy: hits do not wait. */
		preempt_disable();
		if (kstats_req_lock(s, KSTATS_REQ_SLOT_PENDING)) {
			/* Restarted meanwhile: it stays. */
			if (kstats_req_old(t, s)) {
				kstats_req_unlock(s, KSTATS_REQ_SLOT_FREE);
				n++;
			} else {
				kstats_req_unlock(s, KSTATS_REQ_SLOT_PENDING);
			}
		}
		preempt_enable();
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_expire);

unsigned int kstats_req_pending(const struct kstats_req_table *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < kstats_req_table_size(t); i++)
		n += atomic_read(&t->slots[i].state) == KSTATS_REQ_SLOT_PENDING;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_pending);

unsigned int kstats_req_pending_key(const struct kstats_req_table *t, u64 key)
{
	const struct kstats_req_slot *s;
	unsigned int i, n = 0;

	for (i = 0; i < KSTATS_REQ_PROBES; i++) {
		s = &t->slots[kstats_req_index(t, key, i)];
		n += atomic_read(&s->state) == KSTATS_REQ_SLOT_PENDING &&
		     READ_ONCE(s->key) == key;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_req_pending_key);
