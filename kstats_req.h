/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers.
 *
 * key argN: the pending starts of a pair, found by the value of an
 * argument (a request pointer, an id), in a bounded lockless table
 * (kstats_req.c) that any context may use, NMI included.
 */
#ifndef _KSTATS_REQ_H
#define _KSTATS_REQ_H

#include <linux/types.h>

/* Bounds and default of "expire N", in seconds. */
#define KSTATS_REQ_EXPIRE_MIN		1
#define KSTATS_REQ_EXPIRE_MAX		3600
#define KSTATS_REQ_EXPIRE_DEFAULT	30
/* Default table size (slots N takes the bounds of key task). */
#define KSTATS_REQ_SLOTS_DEFAULT	4096

struct kstats_req_table;

/* What a start did. */
enum kstats_req_start {
	KSTATS_REQ_NEW,		/* the key was not pending */
	KSTATS_REQ_RESTARTED,	/* it was: the start time is the new one */
	KSTATS_REQ_REPLACED,	/* in the slot of an expired start */
	KSTATS_REQ_FULL,	/* no slot for it: dropped */
};

/* What the table of @slots (0: the default) takes, and the table. */
size_t kstats_req_table_bytes(unsigned int slots);
struct kstats_req_table *kstats_req_table_alloc(unsigned int slots,
						unsigned int expire_s);
void kstats_req_table_free(struct kstats_req_table *t);
unsigned int kstats_req_table_size(const struct kstats_req_table *t);
unsigned int kstats_req_expire_s(const struct kstats_req_table *t);

/*
 * A start of @key at @now (the entry's clock) in epoch @epoch; @by is the
 * key of its histogram, kept with it.
 */
enum kstats_req_start kstats_req_start(struct kstats_req_table *t, u64 key,
				       u64 now, u32 epoch, const u64 by[2]);
/*
 * The end of @key: its start, taken from the table, and its @by; 0 if
 * none pending (@by is then left as it was).
 */
u64 kstats_req_take(struct kstats_req_table *t, u64 key, u32 epoch,
		    u64 by[2]);
/* Frees the starts older than the table's expiry; returns how many. */
unsigned int kstats_req_expire(struct kstats_req_table *t);
/* Starts pending now, for the KUnit suite. */
unsigned int kstats_req_pending(const struct kstats_req_table *t);
/* Starts of @key pending in its slots, for the KUnit suite. */
unsigned int kstats_req_pending_key(const struct kstats_req_table *t, u64 key);

#endif /* _KSTATS_REQ_H */
