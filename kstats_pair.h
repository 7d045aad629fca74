/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: mechanisms. The probe of a pair (kstats_pair.c) and of a gap
 * (kstats_gap.c), which hooks its X as a pair hooks a side; no other
 * layer includes this.
 */
#ifndef _KSTATS_PAIR_H
#define _KSTATS_PAIR_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/workqueue.h>
#include "kstats_probe.h"

/* How one side of a pair is hooked. */
enum kstats_hook {
	KSTATS_HOOK_FTRACE,	/* SYMBOL: an ftrace_ops callback at its entry */
	KSTATS_HOOK_KPROBE,	/* SYMBOL+OFFSET, or SYMBOL that ftrace lacks */
	KSTATS_HOOK_TRACEPOINT,	/* __tracepoint_NAME */
};

/*
 * The handlers of an endpoint, one for each way to hook it; @what names
 * the side in refusals ("start", "end", "gap").
 */
struct kstats_hooks {
	const char *what;
	ftrace_func_t ftrace;
	kprobe_pre_handler_t kprobe;
	void *tracepoint;		/* void (*)(void *data) */
};

/*
 * The hook of X or Y of a pair, or X of a gap, on its @site: ftrace, a
 * kprobe, or a tracepoint of the kernel or a module.
 */
struct kstats_endpoint {
	struct kstats_site *site;	/* the entry's start or end */
	enum kstats_hook hook;
	const struct kstats_hooks *fn;	/* set before attaching */
	struct ftrace_ops ops;
	struct kprobe kp;
	void *tp_data;			/* its tracepoint probe's data */
	struct kstats_pair_probe *pp;	/* of another start: its pair, */
	u8 idx;				/* and its site (kstats_parse.h) */
	bool registered;
	bool disarmed;		/* ftrace or tracepoint hook taken off */
	bool joined;		/* a start run by the end's tracepoint probe */
};

/* A pair of the lean shape (enum kstats_shape) keyed by CPU or task. */
enum kstats_pair_lean {
	KSTATS_PAIR_FULL,	/* any other: kstats_pair_take() */
	KSTATS_PAIR_LEAN_CPU,
	KSTATS_PAIR_LEAN_TASK,
};

/*
 * "if EXPR OP NUMBER" of one side, as set up: @mask the value's width,
 * @bits that width, @is_signed from BTF or "type". For "if EXPR OP
 * "STRING"" (EXPR a char array), @str and its NUL, @str_len bytes, which
 * the field path's reading compares the array's first bytes with: the
 * value then is 1 if they are equal, and @val 1.
 */
struct kstats_pair_cond {
	u8 op;				/* enum kstats_cond_op; 0: none */
	u8 arg;				/* N, 1-based */
	u8 bits;
	bool is_signed;
	u8 str_len;
	char str[KSTATS_STR_KEY];
	u64 mask;
	s64 val;
	struct kstats_path path;
};

/*
 * Its handlers reach it from @start's or @end's hook by container_of, and
 * from another start's through that endpoint's @pp. Per site (start,
 * end, then @more: kstats_parse.h) its key argN, its width and "if".
 */
struct kstats_pair_probe {
	struct kstats_probe p;
	struct kstats_endpoint start;
	struct kstats_endpoint end;		/* pairs only */
	struct kstats_endpoint more[KSTATS_MORE_STARTS];	/* other starts */
	struct kstats_site more_site[KSTATS_MORE_STARTS];
	u8 nr_more;
	struct kstats_cpu_start __percpu *t0;	/* pairs keyed by CPU, gaps */
	struct kstats_task_table *tasks;	/* pairs keyed by task */
	struct kstats_req_table *reqs;		/* pairs keyed by an argument */
	struct delayed_work expire_work;	/* frees @reqs' old starts */
	unsigned int key_arg[KSTATS_PAIR_SITES];	/* key argN: N */
	u8 lean;				/* enum kstats_pair_lean */
	u64 key_mask[KSTATS_PAIR_SITES];	/* its width */
	struct kstats_path key_path[KSTATS_PAIR_SITES];
	u8 deref[KSTATS_PAIR_SITES];		/* a field path to follow */
	bool cond_key[KSTATS_PAIR_SITES];	/* "if" reads the key's field */
	struct kstats_pair_cond cond[KSTATS_PAIR_SITES];
	u8 by_site;		/* by argN, by stack: where read (start, end) */
	u8 joined;		/* a start on the end's tracepoint: its site + 1 */
	struct kstats_hooks join_fn;	/* then the end's, with both probes */
};

static inline struct kstats_pair_probe *kstats_pair(const struct kstats_probe *p)
{
	return container_of(p, struct kstats_pair_probe, p);
}

/* The pair's operations that a gap shares. */
int kstats_endpoint_attach(struct kstats_pair_probe *pp,
			   struct kstats_endpoint *ep, struct kstats_site *site,
			   struct kstats_cmd *cmd);
int kstats_pair_enable(struct kstats_probe *p);
void kstats_pair_disable(struct kstats_probe *p);
void kstats_pair_detach(struct kstats_probe *p);
unsigned long kstats_pair_missed(const struct kstats_probe *p);
void kstats_pair_free(struct kstats_probe *p);
const char *kstats_hook_name(const struct kstats_endpoint *ep);

#endif /* _KSTATS_PAIR_H */
