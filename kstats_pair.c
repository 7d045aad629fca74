// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: mechanisms. Calls the shared probe helpers (target,
 * key task) and the record core.
 *
 * kstats mechanism: pairs, trace NAME start X end Y. Each side is an
 * ftrace_ops callback without register saving (SYMBOL, at a function
 * entry that ftrace can trace), a kprobe pre-handler (SYMBOL+OFFSET, or a
 * SYMBOL that ftrace cannot trace) or a tracepoint probe; the start time
 * is kept per CPU (key cpu), per task (key task, kstats_task.c) or per
 * value of an argument (key argN, kstats_req.c). The hooks, the starts
 * and the tables are in struct kstats_pair_probe (kstats_pair.h), which
 * the gap shares.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include "kstats_btf.h"
#include "kstats_filter.h"
#include "kstats_handler.h"
#include "kstats_mech.h"
#include "kstats_nofault.h"
#include "kstats_pair.h"
#include "kstats_probe.h"
#include "kstats_req.h"
#include "kstats_target.h"
#include "kstats_value.h"

/*
 * key argN at an ftrace callback: the argument registers, which ftrace
 * saves without FTRACE_OPS_FL_SAVE_REGS where it has
 * DYNAMIC_FTRACE_WITH_ARGS (x86-64 and arm64), in struct ftrace_regs; x86's
 * 6.1 has no accessor for them yet, arm64's is an inline, not a macro.
 */
#if defined(ftrace_regs_get_argument) || defined(CONFIG_ARM64)
#define kstats_ft_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#else
#define kstats_ft_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Pairs: X was hit. A second X before Y restarts the measurement. Under
 * key task a hit outside task context is no task's: it is counted apart.
 * Preemption is disabled here, not by the caller: from 6.13 syscall
 * tracepoints call their probes preemptible, and the clock read and the
 * per-CPU store must be on one CPU.
 */
static __always_inline void kstats_pair_start(struct kstats_pair_probe *pp,
					      u64 key, unsigned long byv,
					      unsigned long to, const u64 *at)
{
	struct kstats_probe *p = &pp->p;
	u64 now, by[2] = { 0, 0 };

	preempt_disable_notrace();
	/* A CPU without a counter has no start (nor end). */
	if (at && *at)
		now = *at;
	else if (!kstats_read(p, &now))
		now = 0;
	/*
	 * by argN's key or stack, read here, and under key argN the issuing
	 * task's: kept with the start.
	 */
	if (p->keys && kstats_keys_at_start(p) &&
	    pp->by_site == KSTATS_SIDE_BEGIN)
		kstats_keys_site_key(p, byv, to, by);
	if (p->key == KSTATS_KEY_CPU) {
		/* An end in an interrupt in between sees the new t0 unpaired. */
		this_cpu_write(pp->t0->by[0], by[0]);
		this_cpu_write(pp->t0->by[1], by[1]);
		this_cpu_write(pp->t0->t0, now);
		this_cpu_write(pp->t0->epoch, READ_ONCE(p->ks->epoch));
	} else if (p->key == KSTATS_KEY_ARG) {
		switch (kstats_req_start(pp->reqs, key, now,
					 READ_ONCE(p->ks->epoch), by)) {
		case KSTATS_REQ_RESTARTED:
			this_cpu_inc(p->stats->restarted);
			break;
		case KSTATS_REQ_REPLACED:
			this_cpu_inc(p->stats->expired);
			break;
		case KSTATS_REQ_FULL:
			this_cpu_inc(p->stats->dropped);
			break;
		default:
			break;
		}
	} else if (!in_task()) {
		this_cpu_inc(p->stats->notask);
	} else if (!kstats_task_start(pp->tasks, now, READ_ONCE(p->ks->epoch),
				      by)) {
		this_cpu_inc(p->stats->dropped);
	}
	preempt_enable_notrace();
}

/*
 * Pairs: Y was hit. The key of the start's histogram, where the start
 * read it (kstats_keys_record()), or the end's by argN or stack (from
 * @byv), goes to the sample in place of a return value, which no pair
 * has. Under key cpu, a start in an interrupt just after the take may
 * give its key instead.
 */
static __always_inline void kstats_pair_end(struct kstats_pair_probe *pp,
					    u64 key, unsigned long byv,
					    unsigned long to, u64 *at)
{
	struct kstats_probe *p = &pp->p;
	u64 now, t0, by[2];

	preempt_disable_notrace();
	if (at && *at)
		now = *at;
	else if (!kstats_read(p, &now))
		goto out;
	if (at)
		*at = now;
	if (p->key == KSTATS_KEY_CPU) {
		t0 = this_cpu_xchg(pp->t0->t0, 0);
		if (this_cpu_read(pp->t0->epoch) != READ_ONCE(p->ks->epoch))
			t0 = 0;
		by[0] = this_cpu_read(pp->t0->by[0]);
		by[1] = this_cpu_read(pp->t0->by[1]);
	} else if (p->key == KSTATS_KEY_ARG) {
		t0 = kstats_req_take(pp->reqs, key, READ_ONCE(p->ks->epoch),
				     by);
	} else if (!in_task()) {
		this_cpu_inc(p->stats->notask);
		goto out;
	} else {
		t0 = kstats_task_take(pp->tasks, READ_ONCE(p->ks->epoch), by);
	}
	if (t0 && pp->by_site == KSTATS_SIDE_END)
		kstats_keys_site_key(p, byv, to, by);
	if (t0)
		kstats_record_since(p, now, t0, (unsigned long)by, 0);
	else
		this_cpu_inc(p->stats->unpaired);
out:
	preempt_enable_notrace();
}

/*
 * A pair of the lean shape (enum kstats_shape: the cycle counter, time,
 * no filter, counter, keys or outliers) keyed by CPU or task: its untimed
 * hits read the counter inline and test no option. They take no guard:
 * what they call (the task table's, notrace) calls nothing that ftrace,
 * kprobes or tracepoints can hook, so nothing re-enters them. A start
 * leaves the per-CPU epoch alone: an end takes only a start after
 * @resumed, which every start of the entry sets to its time and a stop
 * past every start (kstats_state.c); 0, no start, is never after it.
 */
static __always_inline void kstats_pair_lean_end(struct kstats_probe *p,
						 u64 now, u64 t0)
{
	if (unlikely(t0 <= READ_ONCE(p->resumed)))
		this_cpu_inc(p->stats->unpaired);
	else
		kstats_add_cycles_lean(p, kstats_since(now, t0));
}

/* @at: as kstats_pair_take()'s, for a joined probe's two sides. */
static __always_inline void kstats_pair_lean_run(struct kstats_pair_probe *pp,
						 enum kstats_side side,
						 enum kstats_pair_lean lean,
						 u64 *at)
{
	static const u64 no_key[2];
	struct kstats_probe *p = &pp->p;
	u64 now, t0, by[2];

	preempt_disable_notrace();
	now = at && *at ? *at : kstats_cycles_lean();
	if (at)
		*at = now;
	if (lean == KSTATS_PAIR_LEAN_CPU) {
		if (side == KSTATS_SIDE_BEGIN)
			this_cpu_write(pp->t0->t0, now);
		else
			kstats_pair_lean_end(p, now,
					     this_cpu_xchg(pp->t0->t0, 0));
	} else if (!in_task()) {
		this_cpu_inc(p->stats->notask);
	} else if (side == KSTATS_SIDE_BEGIN) {
		if (!kstats_task_start(pp->tasks, now, READ_ONCE(p->ks->epoch),
				       no_key))
			this_cpu_inc(p->stats->dropped);
	} else {
		t0 = kstats_task_take(pp->tasks, READ_ONCE(p->ks->epoch), by);
		kstats_pair_lean_end(p, now, t0);
	}
	preempt_enable_notrace();
}

/* A lean pair's hit timed for overhead_ns: the timing's clocks may be traced. */
static noinline notrace void kstats_pair_lean_timed(struct kstats_pair_probe *pp,
						    enum kstats_side side)
{
	struct kstats_probe *p = &pp->p;
	struct kstats_timed tm;
	unsigned int saved;

	preempt_disable_notrace();
	if (kstats_guard_enter(p, &saved)) {
		kstats_timed_arm(&tm);
		kstats_pair_lean_run(pp, side, pp->lean, NULL);
		kstats_timed_end(p, side, &tm);
		kstats_guard_exit(saved);
	}
	preempt_enable_notrace();
}

static __always_inline void kstats_pair_lean_hit(struct kstats_pair_probe *pp,
						 enum kstats_side side,
						 enum kstats_pair_lean lean,
						 u64 *at)
{
	if (kstats_stopped(&pp->p))
		return;
	if (unlikely(kstats_timed_due(&pp->p)))
		kstats_pair_lean_timed(pp, side);
	else
		kstats_pair_lean_run(pp, side, lean, at);
}

/*
 * A lean pair's tracepoint probes, one per side and key, picked at attach
 * as ftrace picks a trampoline per ops; its ftrace callbacks and kprobe
 * pre-handlers are the others' and test @lean first.
 */
static notrace void kstats_tp_cpu_start(void *data)
{
	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_BEGIN,
			     KSTATS_PAIR_LEAN_CPU, NULL);
}

static notrace void kstats_tp_cpu_end(void *data)
{
	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_END,
			     KSTATS_PAIR_LEAN_CPU, NULL);
}

static notrace void kstats_tp_task_start(void *data)
{
	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_BEGIN,
			     KSTATS_PAIR_LEAN_TASK, NULL);
}

static notrace void kstats_tp_task_end(void *data)
{
	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_END,
			     KSTATS_PAIR_LEAN_TASK, NULL);
}

/*
 * The same for a lean pair whose start and end share a tracepoint: one
 * clock read, the end's time the start's.
 */
static notrace void kstats_tp_cpu_end_start(void *data)
{
	u64 now = 0;

	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_END,
			     KSTATS_PAIR_LEAN_CPU, &now);
	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_BEGIN,
			     KSTATS_PAIR_LEAN_CPU, &now);
}

static notrace void kstats_tp_task_end_start(void *data)
{
	u64 now = 0;

	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_END,
			     KSTATS_PAIR_LEAN_TASK, &now);
	kstats_pair_lean_hit(kstats_pair(data), KSTATS_SIDE_BEGIN,
			     KSTATS_PAIR_LEAN_TASK, &now);
}

/* Those of the other starts: @data is their endpoint. */
static notrace void kstats_tp_cpu_more(void *data)
{
	kstats_pair_lean_hit(((struct kstats_endpoint *)data)->pp,
			     KSTATS_SIDE_BEGIN, KSTATS_PAIR_LEAN_CPU, NULL);
}

static notrace void kstats_tp_task_more(void *data)
{
	kstats_pair_lean_hit(((struct kstats_endpoint *)data)->pp,
			     KSTATS_SIDE_BEGIN, KSTATS_PAIR_LEAN_TASK, NULL);
}

static __always_inline bool kstats_pair_keyed(const struct kstats_pair_probe *pp)
{
	return pp->p.key == KSTATS_KEY_ARG;
}

/*
 * "if argN OP NUMBER" of a side: whether a hit whose argument N is @arg
 * is taken. The argument is cut to its width first (the register's bits
 * above may be anything), and sign-extended if it is signed.
 */
static __always_inline bool kstats_cond_pass(const struct kstats_pair_cond *c,
					     unsigned long arg)
{
	u64 v = arg & c->mask;

	switch (c->op) {
	case KSTATS_COND_EQ:
		return v == ((u64)c->val & c->mask);
	case KSTATS_COND_NE:
		return v != ((u64)c->val & c->mask);
	case KSTATS_COND_LT:
		return c->is_signed ? sign_extend64(v, c->bits - 1) < c->val :
				      v < (u64)c->val;
	default:
		return c->is_signed ? sign_extend64(v, c->bits - 1) > c->val :
				      v > (u64)c->val;
	}
}

/*
 * Follow @pth from @v: every step but the last through a pointer; false
 * if a read faults (a NULL or stale pointer).
 */
static __always_inline bool kstats_path_follow(const struct kstats_path *pth,
					       unsigned long *v)
{
	unsigned long x = *v, y;
	unsigned int i;

	for (i = 0; i < pth->n; i++) {
		/* A char array: its address, for the key to copy from. */
		if (pth->str && i + 1 == pth->n) {
			x += pth->off[i];
			break;
		}
		y = 0;
		/* Little-endian: a narrower last member fills y's low bytes. */
		if (!kstats_read_nofault(&y, x + pth->off[i],
					 i + 1 < pth->n ? sizeof(y) :
					 pth->bytes))
			return false;
		x = y;
	}
	*v = x;
	return true;
}

/*
 * "if argN->NAME OP "STRING"": @cv, the char array's address, becomes 1
 * if its first bytes are the string and its NUL, else 0; false if the
 * read faults.
 */
static noinline notrace bool kstats_cond_str(const struct kstats_pair_cond *c,
					     unsigned long *cv)
{
	char buf[KSTATS_STR_KEY];

	if (copy_from_kernel_nofault(buf, (void *)*cv, c->str_len))
		return false;
	*cv = !memcmp(buf, c->str, c->str_len);
	return true;
}

/*
 * The field paths of site @idx, from the condition's argument @cv, the
 * key's @kv and by argN's @byv, under kstats' guard (where the reads are
 * a call, it may be traced, by this very pair too). A read that faults
 * leaves the hit out, counted in faulted. The hit's time is read first,
 * into @at unless it has one: the reads that follow must not be in the
 * interval (they are not at its other end).
 */
static noinline notrace bool kstats_pair_deref(struct kstats_pair_probe *pp,
					       unsigned int idx,
					       unsigned long *cv,
					       unsigned long *kv,
					       unsigned long *byv, u64 *at)
{
	const struct kstats_keys *t = pp->p.keys;
	bool ok;

	if (!*at && !kstats_read(&pp->p, at))
		*at = 0;
	ok = (pp->cond_key[idx] ||
	      (kstats_path_follow(&pp->cond[idx].path, cv) &&
	       (!pp->cond[idx].str_len ||
		kstats_cond_str(&pp->cond[idx], cv)))) &&
	     (!kstats_pair_keyed(pp) ||
	      kstats_path_follow(&pp->key_path[idx], kv)) &&
	     (!t || idx != pp->by_site || kstats_path_follow(&t->path, byv));
	if (!ok)
		this_cpu_inc(pp->p.stats->faulted);
	else if (pp->cond_key[idx])
		*cv = *kv;
	return ok;
}

/*
 * X or Y was hit at site @idx, whatever hooks it, with the argument of
 * its condition @cv, of its key @kv and of by argN @byv (at its site
 * only) as the hook read them: their field paths followed and the
 * condition tested, a start or an end. A stopped pair does nothing:
 * starts carry the entry's epoch, so none pairs across a stop. A running
 * one times one call in KSTATS_TIMED_EVERY for overhead_ns. Filters apply
 * to the start only: the end of a start left out finds no start
 * (unpaired). @to: where the hook returns to if it knows (by stack
 * starts there), else 0. @at: NULL, or the hit's time if already read
 * (not 0), where an end leaves the time it read for the start that a
 * joined probe runs after it.
 */
static __always_inline void kstats_pair_take(struct kstats_pair_probe *pp,
					     enum kstats_side side,
					     unsigned int idx, unsigned long cv,
					     unsigned long kv, unsigned long byv,
					     unsigned long to, u64 *at)
{
	const struct kstats_pair_cond *c = &pp->cond[idx];
	struct kstats_probe *p = &pp->p;
	struct kstats_timed tm;
	unsigned int saved;
	u64 key, own = 0;

	/*
	 * A condition on an argument itself first: it reads nothing, and
	 * it fails at most hits of a site that has it (sched_switch's
	 * "if arg4 == 0" for runqlat's preempted tasks).
	 */
	if (unlikely(c->op) && !c->path.n && !kstats_cond_pass(c, cv))
		return;
	if (kstats_stopped(p) ||
	    (side == KSTATS_SIDE_BEGIN && !kstats_filter_pass(p)))
		return;
	preempt_disable_notrace();
	if (!kstats_guard_enter(p, &saved))
		goto out;
	if (unlikely(pp->deref[idx])) {
		if (!at)
			at = &own;
		if (!kstats_pair_deref(pp, idx, &cv, &kv, &byv, at))
			goto exit;
	}
	if (unlikely(c->op) && c->path.n && !kstats_cond_pass(c, cv))
		goto exit;
	key = kstats_pair_keyed(pp) ? kv & pp->key_mask[idx] : 0;
	kstats_timed_begin(p, &tm);
	if (side == KSTATS_SIDE_BEGIN)
		kstats_pair_start(pp, key, byv, to, at);
	else
		kstats_pair_end(pp, key, byv, to, at);
	kstats_timed_end(p, side, &tm);
exit:
	kstats_guard_exit(saved);
out:
	preempt_enable_notrace();
}

/* Argument @n (1 to KSTATS_TP_ARGS, as kstats_site_arg_type() checks). */
static __always_inline unsigned long kstats_tp_arg(unsigned int n,
						   unsigned long a1,
						   unsigned long a2,
						   unsigned long a3,
						   unsigned long a4,
						   unsigned long a5)
{
	switch (n) {
	case 1:
		return a1;
	case 2:
		return a2;
	case 3:
		return a3;
	case 4:
		return a4;
	default:
		return a5;
	}
}

/*
 * Tracepoint probes: @data is the entry (or another start's endpoint),
 * then come the tracepoint's arguments, in registers
 * (kstats_site_arg_type() checks that key argN's and by argN's are);
 * those past the tracepoint's own are never read. @idx is the site's.
 */
static __always_inline void kstats_tp_hit(struct kstats_pair_probe *pp,
					  enum kstats_side side, unsigned int idx,
					  unsigned long a1, unsigned long a2,
					  unsigned long a3, unsigned long a4,
					  unsigned long a5, unsigned long to,
					  u64 *at)
{
	const struct kstats_pair_cond *c = &pp->cond[idx];
	unsigned int by = pp->p.by_arg;
	unsigned long byv = 0, cv = 0, kv = 0;

	if (unlikely(c->op))
		cv = kstats_tp_arg(c->arg, a1, a2, a3, a4, a5);
	if (kstats_pair_keyed(pp))
		kv = kstats_tp_arg(pp->key_arg[idx], a1, a2, a3, a4, a5);
	if (unlikely(by) && side == pp->by_site)
		byv = kstats_tp_arg(by, a1, a2, a3, a4, a5);
	kstats_pair_take(pp, side, idx, cv, kv, byv, to, at);
}

static notrace void kstats_tp_start(void *data, unsigned long a1,
				    unsigned long a2, unsigned long a3,
				    unsigned long a4, unsigned long a5)
{
	kstats_tp_hit(kstats_pair(data), KSTATS_SIDE_BEGIN, KSTATS_SIDE_BEGIN,
		      a1, a2, a3, a4, a5, _RET_IP_, NULL);
}

static notrace void kstats_tp_end(void *data, unsigned long a1,
				  unsigned long a2, unsigned long a3,
				  unsigned long a4, unsigned long a5)
{
	kstats_tp_hit(kstats_pair(data), KSTATS_SIDE_END, KSTATS_SIDE_END,
		      a1, a2, a3, a4, a5, _RET_IP_, NULL);
}

static notrace void kstats_tp_more(void *data, unsigned long a1,
				   unsigned long a2, unsigned long a3,
				   unsigned long a4, unsigned long a5)
{
	struct kstats_endpoint *ep = data;

	kstats_tp_hit(ep->pp, KSTATS_SIDE_BEGIN, ep->idx, a1, a2, a3, a4, a5,
		      _RET_IP_, NULL);
}

/*
 * A tracepoint that is the end and a start of one pair (sched_switch:
 * the end for next, a start for prev) runs one probe, the end's: the end
 * first, as two probes registered end first would run, both at one time,
 * the first that either reads (had the start read its own clock, after
 * the end's work, every interval that it began would come out short by
 * that work: 20 to 30 us under TCG, tests/guest/61-truth.sh).
 */
static notrace void kstats_tp_end_start(void *data, unsigned long a1,
					unsigned long a2, unsigned long a3,
					unsigned long a4, unsigned long a5)
{
	struct kstats_pair_probe *pp = kstats_pair(data);
	u64 now = 0;

	/* One CPU's clock or counter for both (probes may be preemptible). */
	preempt_disable_notrace();
	kstats_tp_hit(pp, KSTATS_SIDE_END, KSTATS_SIDE_END, a1, a2, a3, a4, a5,
		      _RET_IP_, &now);
	kstats_tp_hit(pp, KSTATS_SIDE_BEGIN, pp->joined - 1, a1, a2, a3, a4,
		      a5, _RET_IP_, &now);
	preempt_enable_notrace();
}

/* A kprobe's hit: the arguments from its registers. */
static __always_inline void kstats_kp_hit(struct kstats_pair_probe *pp,
					  enum kstats_side side, unsigned int idx,
					  struct pt_regs *regs)
{
	const struct kstats_pair_cond *c = &pp->cond[idx];
	unsigned int by = pp->p.by_arg;

	if (pp->lean) {
		kstats_pair_lean_hit(pp, side, pp->lean, NULL);
		return;
	}
	kstats_pair_take(pp, side, idx,
			 c->op ? regs_get_kernel_argument(regs, c->arg - 1) : 0,
			 kstats_pair_keyed(pp) ?
			 regs_get_kernel_argument(regs, pp->key_arg[idx] - 1) : 0,
			 by && side == pp->by_site ?
			 regs_get_kernel_argument(regs, by - 1) : 0, 0, NULL);
}

static notrace int kstats_kp_start(struct kprobe *kp, struct pt_regs *regs)
{
	kstats_kp_hit(container_of(kp, struct kstats_pair_probe, start.kp),
		      KSTATS_SIDE_BEGIN, KSTATS_SIDE_BEGIN, regs);
	return 0;
}

static notrace int kstats_kp_end(struct kprobe *kp, struct pt_regs *regs)
{
	kstats_kp_hit(container_of(kp, struct kstats_pair_probe, end.kp),
		      KSTATS_SIDE_END, KSTATS_SIDE_END, regs);
	return 0;
}

static notrace int kstats_kp_more(struct kprobe *kp, struct pt_regs *regs)
{
	struct kstats_endpoint *ep = container_of(kp, struct kstats_endpoint, kp);

	kstats_kp_hit(ep->pp, KSTATS_SIDE_BEGIN, ep->idx, regs);
	return 0;
}

/* An ftrace callback's hit: the arguments from its ftrace_regs. */
static __always_inline void kstats_ft_hit(struct kstats_pair_probe *pp,
					  enum kstats_side side, unsigned int idx,
					  struct ftrace_regs *fregs)
{
	const struct kstats_pair_cond *c = &pp->cond[idx];
	unsigned int by = pp->p.by_arg;

	if (pp->lean) {
		kstats_pair_lean_hit(pp, side, pp->lean, NULL);
		return;
	}
	kstats_pair_take(pp, side, idx,
			 c->op ? kstats_ft_arg(fregs, c->arg - 1) : 0,
			 kstats_pair_keyed(pp) ?
			 kstats_ft_arg(fregs, pp->key_arg[idx] - 1) : 0,
			 by && side == pp->by_site ?
			 kstats_ft_arg(fregs, by - 1) : 0, 0, NULL);
}

/* ftrace callbacks, called directly (see kstats_attach_ftrace()). */
static notrace void kstats_ft_start(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops,
				    struct ftrace_regs *fregs)
{
	kstats_ft_hit(container_of(ops, struct kstats_pair_probe, start.ops),
		      KSTATS_SIDE_BEGIN, KSTATS_SIDE_BEGIN, fregs);
}

static notrace void kstats_ft_end(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct ftrace_regs *fregs)
{
	kstats_ft_hit(container_of(ops, struct kstats_pair_probe, end.ops),
		      KSTATS_SIDE_END, KSTATS_SIDE_END, fregs);
}

static notrace void kstats_ft_more(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *ops,
				   struct ftrace_regs *fregs)
{
	struct kstats_endpoint *ep = container_of(ops, struct kstats_endpoint,
						  ops);

	kstats_ft_hit(ep->pp, KSTATS_SIDE_BEGIN, ep->idx, fregs);
}

static const struct kstats_hooks kstats_start_hooks = {
	.what = "start",
	.ftrace = kstats_ft_start,
	.kprobe = kstats_kp_start,
	.tracepoint = (void *)kstats_tp_start,
};

static const struct kstats_hooks kstats_end_hooks = {
	.what = "end",
	.ftrace = kstats_ft_end,
	.kprobe = kstats_kp_end,
	.tracepoint = (void *)kstats_tp_end,
};

static const struct kstats_hooks kstats_cpu_start_hooks = {
	.what = "start",
	.ftrace = kstats_ft_start,
	.kprobe = kstats_kp_start,
	.tracepoint = (void *)kstats_tp_cpu_start,
};

static const struct kstats_hooks kstats_cpu_end_hooks = {
	.what = "end",
	.ftrace = kstats_ft_end,
	.kprobe = kstats_kp_end,
	.tracepoint = (void *)kstats_tp_cpu_end,
};

static const struct kstats_hooks kstats_task_start_hooks = {
	.what = "start",
	.ftrace = kstats_ft_start,
	.kprobe = kstats_kp_start,
	.tracepoint = (void *)kstats_tp_task_start,
};

static const struct kstats_hooks kstats_task_end_hooks = {
	.what = "end",
	.ftrace = kstats_ft_end,
	.kprobe = kstats_kp_end,
	.tracepoint = (void *)kstats_tp_task_end,
};

/* The other starts': by key, as the first start's above. */
static const struct kstats_hooks kstats_more_hooks[] = {
	[KSTATS_PAIR_FULL] = {
		.what = "start",
		.ftrace = kstats_ft_more,
		.kprobe = kstats_kp_more,
		.tracepoint = (void *)kstats_tp_more,
	},
	[KSTATS_PAIR_LEAN_CPU] = {
		.what = "start",
		.ftrace = kstats_ft_more,
		.kprobe = kstats_kp_more,
		.tracepoint = (void *)kstats_tp_cpu_more,
	},
	[KSTATS_PAIR_LEAN_TASK] = {
		.what = "start",
		.ftrace = kstats_ft_more,
		.kprobe = kstats_kp_more,
		.tracepoint = (void *)kstats_tp_task_more,
	},
};

/* The end's tracepoint probe, by key, where a start shares it. */
static const void * const kstats_end_start_probes[] = {
	[KSTATS_PAIR_FULL] = kstats_tp_end_start,
	[KSTATS_PAIR_LEAN_CPU] = kstats_tp_cpu_end_start,
	[KSTATS_PAIR_LEAN_TASK] = kstats_tp_task_end_start,
};

/*
 * SYMBOL at a function entry: a live ftrace_ops callback, which costs far
 * less than a kprobe (no register saving, no int3 or kprobe dispatch).
 * Returns -EOPNOTSUPP, with nothing registered, where ftrace cannot.
 */
static int kstats_attach_ftrace(struct kstats_endpoint *ep,
				struct kstats_cmd *cmd)
{
	struct kstats_site *site = ep->site;
	const char *what = ep->fn->what;
	int ret;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE) || site->target.offset ||
	    site->no_ftrace)
		return -EOPNOTSUPP;
	if (!site->addr) {
		ret = kstats_resolve(cmd, what, &site->target, &site->addr);
		if (ret)
			return ret;
	}
	ep->ops.func = ep->fn->ftrace;
	/*
	 * No FTRACE_OPS_FL_RECURSION for time entries: its wrapper costs
	 * more than the rest of the handler, and the handlers have their own
	 * guard (kstats_guard_enter()) against what they call that ftrace
	 * traces (a clocksource's read). A counter entry's handlers call the
	 * PMU's read, much of kernel/events/: ftrace guards them too.
	 */
	ep->ops.flags = cmd->counter ? FTRACE_OPS_FL_RECURSION : 0;
	if (ftrace_set_filter_ip(&ep->ops, site->addr, 0, 0))
		return -EOPNOTSUPP;	/* not traceable: a kprobe may be */
	ret = register_ftrace_function(&ep->ops);
	if (ret) {
		ftrace_free_filter(&ep->ops);
		return kstats_fail(cmd, ret, "%s: ftrace refused %s (error %d)",
				   what, site->target.sym, ret);
	}
	ep->hook = KSTATS_HOOK_FTRACE;
	ep->registered = true;
	return 0;
}

/*
 * X or Y of a pair, or X of a gap, on @site: a live ftrace callback, a
 * disabled kprobe, or a live tracepoint probe. A tracepoint is looked up
 * by name unless @site->tp is set already.
 */
int kstats_endpoint_attach(struct kstats_pair_probe *pp,
			   struct kstats_endpoint *ep, struct kstats_site *site,
			   struct kstats_cmd *cmd)
{
	const char *what = ep->fn->what;
	struct kprobe *kp = &ep->kp;
	int ret;

	ep->site = site;

	if (site->target.tracepoint) {
		ep->hook = KSTATS_HOOK_TRACEPOINT;
		/* Run by the end's probe (kstats_pair_join()). */
		if (ep->joined)
			return 0;
		if (!KSTATS_HAVE_TP_PROBES)
			return kstats_fail(cmd, -EOPNOTSUPP,
					   "%s: tracepoints are not supported with kCFI (CONFIG_CFI)",
					   what);
		if (!site->tp)
			site->tp = kstats_find_tp(site->target.sym, &site->tp_mod);
		if (!site->tp)
			return kstats_fail(cmd, -ENOENT, "%s: no tracepoint %s",
					   what, site->target.sym);
		if (!ep->tp_data)
			ep->tp_data = &pp->p;
		ret = tracepoint_probe_register(site->tp, ep->fn->tracepoint,
						ep->tp_data);
		if (ret)
			return kstats_fail(cmd, ret, "%s: tracepoint %s refused (error %d)",
					   what, site->target.sym, ret);
		ep->registered = true;
		return 0;
	}

	ret = kstats_attach_ftrace(ep, cmd);
	if (ret != -EOPNOTSUPP)
		return ret;
	ep->hook = KSTATS_HOOK_KPROBE;
	if (site->addr) {
		kp->addr = (kprobe_opcode_t *)site->addr;
	} else {
		kp->symbol_name = site->target.sym;
		kp->offset = site->target.offset;
	}
	kp->flags = KPROBE_FLAG_DISABLED;
	kp->pre_handler = ep->fn->kprobe;
	ret = register_kprobe(kp);
	if (ret)
		return kstats_kprobe_error(cmd, what, &site->target, ret);
	ep->registered = true;
	site->addr = (unsigned long)kp->addr;
	return 0;
}

/* Returns true if a tracepoint probe went, which needs a sync. */
static bool kstats_detach_endpoint(struct kstats_probe *p,
				   struct kstats_endpoint *ep)
{
	if (!ep->registered)
		return false;
	ep->registered = false;
	if (ep->hook == KSTATS_HOOK_FTRACE) {
		/* Waits until no callback runs. */
		if (!ep->disarmed)
			unregister_ftrace_function(&ep->ops);
		ftrace_free_filter(&ep->ops);
		return false;
	}
	if (ep->site->tp) {
		/* Taken off by a stop or now: callers in flight need the sync. */
		if (!ep->disarmed)
			tracepoint_probe_unregister(ep->site->tp,
						    ep->fn->tracepoint,
						    ep->tp_data);
		return true;
	}
	/* Waits for pre-handlers in flight. */
	unregister_kprobe(&ep->kp);
	return false;
}

/* The endpoint of site @i (kstats_parse.h: start, end, the other starts). */
static const struct kstats_endpoint *
kstats_pair_ep(const struct kstats_pair_probe *pp, unsigned int i)
{
	if (i == KSTATS_SIDE_BEGIN)
		return &pp->start;
	if (i == KSTATS_SIDE_END)
		return &pp->end;
	return &pp->more[i - KSTATS_NR_SIDES];
}

/* Site @i's place: its endpoint's, set before anything is looked up. */
static struct kstats_site *kstats_pair_site(const struct kstats_pair_probe *pp,
					    unsigned int i)
{
	return kstats_pair_ep(pp, i)->site;
}

static const char *kstats_site_what(unsigned int i)
{
	return i == KSTATS_SIDE_END ? "end" : "start";
}

/*
 * key argN: the width of argument N at @site, from BTF or "type", into
 * @mask. The parser allows a function's entry or a tracepoint only (where
 * the arguments are); a tracepoint's probe takes its data first.
 */
static int kstats_pair_key_type(struct kstats_pair_probe *pp, unsigned int i,
				struct kstats_cmd *cmd)
{
	struct kstats_btf_path path = { .names = cmd->side[i].key_path };
	struct kstats_btf_int type = {};
	int ret;

	ret = kstats_site_arg_type(cmd, kstats_pair_site(pp, i),
				   kstats_site_what(i), "key", pp->key_arg[i],
				   &path, true, &type);
	if (ret)
		return ret;
	/* Only compared: the sign does not matter, the garbage above does. */
	pp->key_mask[i] = kstats_int_mask(type.bytes * 8);
	kstats_path_set(&pp->key_path[i], &path, type.bytes);
	pp->deref[i] |= path.n;
	return 0;
}

/*
 * "if argN->NAME OP "STRING"" into @c: @path, as BTF resolved it, must end
 * in a char array with room for the string and its NUL.
 */
static int kstats_pair_cond_str(struct kstats_cmd *cmd,
				const struct kstats_cmd_side *sd,
				const struct kstats_btf_path *path,
				struct kstats_pair_cond *c)
{
	size_t len = strlen(sd->cond_str) + 1;

	if (!path->str)
		return kstats_fail(cmd, -EINVAL,
				   "if arg%u%s: not a char array (a name), which a \"STRING\" compares with",
				   sd->cond_arg, sd->cond_path);
	if (len > path->str)
		return kstats_fail(cmd, -EINVAL,
				   "if arg%u%s: \"%s\" and its NUL are longer than its %u bytes",
				   sd->cond_arg, sd->cond_path, sd->cond_str,
				   path->str);
	c->bits = 1;
	c->mask = 1;
	c->val = 1;
	c->str_len = len;
	memcpy(c->str, sd->cond_str, len);
	return 0;
}

/*
 * "if argN OP NUMBER" into @c: the argument's width and sign @type, from
 * BTF or "type". A NUMBER that no value of that type equals, or a negative
 * one against an unsigned argument, is refused: the condition would be
 * constant.
 */
static int kstats_pair_cond_num(struct kstats_cmd *cmd,
				const struct kstats_cmd_side *sd,
				const struct kstats_btf_int *type,
				struct kstats_pair_cond *c, const char *what,
				const struct kstats_site *site)
{
	bool fits;

	c->bits = type->bytes * 8;
	c->is_signed = type->is_signed;
	c->mask = kstats_int_mask(c->bits);
	c->val = sd->cond_val;
	/* A NUMBER written without '-' above S64_MAX reads as negative. */
	if (c->is_signed)
		fits = sd->cond_neg == (c->val < 0) &&
		       c->val >= -(s64)(c->mask >> 1) - 1 &&
		       c->val <= (s64)(c->mask >> 1);
	else
		fits = !sd->cond_neg && !((u64)c->val & ~c->mask);
	if (!fits)
		return kstats_fail(cmd, -EINVAL,
				   "if arg%u: %s%llu is no %c%u value (%s %s)",
				   c->arg, sd->cond_neg ? "-" : "",
				   sd->cond_neg ? -(u64)c->val : (u64)c->val,
				   c->is_signed ? 's' : 'u', c->bits, what,
				   site->target.sym);
	return 0;
}

/*
 * The condition of site @side at @site, a NUMBER or a "STRING" (a char
 * array's field path: BTF gives its bytes as the type's).
 */
static int kstats_pair_cond_setup(struct kstats_pair_probe *pp,
				  unsigned int side, struct kstats_cmd *cmd)
{
	struct kstats_site *site = kstats_pair_site(pp, side);
	const char *what = kstats_site_what(side);
	const struct kstats_cmd_side *sd = &cmd->side[side];
	struct kstats_btf_path path = { .names = sd->cond_path };
	struct kstats_pair_cond *c = &pp->cond[side];
	struct kstats_btf_int type = {};
	int ret;

	if (!sd->cond)
		return 0;
	path.str_ok = sd->cond_str[0];
	ret = kstats_site_arg_type(cmd, site, what, "if", sd->cond_arg, &path,
				   true, &type);
	if (ret)
		return ret;
	c->arg = sd->cond_arg;
	if (sd->cond_str[0])
		ret = kstats_pair_cond_str(cmd, sd, &path, c);
	else
		ret = kstats_pair_cond_num(cmd, sd, &type, c, what, site);
	if (ret)
		return ret;
	kstats_path_set(&c->path, &path, type.bytes);
	pp->deref[side] |= path.n;
	c->op = sd->cond;
	return 0;
}

/*
 * Whether site @i's condition reads the very field that its key does
 * ("key arg3->pid if arg3->pid != 0"): the hit then reads it once.
 */
static bool kstats_pair_cond_is_key(const struct kstats_pair_probe *pp,
				    unsigned int i)
{
	const struct kstats_pair_cond *c = &pp->cond[i];
	const struct kstats_path *k = &pp->key_path[i];

	return c->op && !c->str_len && c->arg == pp->key_arg[i] &&
	       c->path.n && c->path.n == k->n && c->path.bytes == k->bytes &&
	       !memcmp(c->path.off, k->off, k->n * sizeof(k->off[0]));
}

/* Frees the starts never ended, every half of the expiry. */
static unsigned long kstats_pair_expire_period(struct kstats_pair_probe *pp)
{
	return max(kstats_req_expire_s(pp->reqs) * HZ / 2, 1UL);
}

static void kstats_pair_expire_work(struct work_struct *work)
{
	struct kstats_pair_probe *pp = container_of(to_delayed_work(work),
						    struct kstats_pair_probe,
						    expire_work);
	unsigned int n = kstats_req_expire(pp->reqs);

	if (n)
		this_cpu_add(pp->p.stats->expired, n);
	schedule_delayed_work(&pp->expire_work, kstats_pair_expire_period(pp));
}

static int kstats_pair_key_setup(struct kstats_pair_probe *pp,
				 struct kstats_cmd *cmd)
{
	int ret;

	unsigned int i;

	for (i = 0; i < KSTATS_NR_SIDES + pp->nr_more; i++) {
		pp->key_arg[i] = cmd->side[i].key_arg;
		ret = kstats_pair_key_type(pp, i, cmd);
		if (ret)
			return ret;
		pp->cond_key[i] = kstats_pair_cond_is_key(pp, i);
	}
	pp->reqs = kstats_req_table_alloc(cmd->slots, cmd->expire);
	if (!pp->reqs)
		return kstats_fail(cmd, -ENOMEM, "out of memory");
	INIT_DELAYED_WORK(&pp->expire_work, kstats_pair_expire_work);
	schedule_delayed_work(&pp->expire_work, kstats_pair_expire_period(pp));
	return 0;
}

/*
 * The starts after the first: their addresses, and the refusal of kstats'
 * own code, before anything is hooked (kstats_resolve_targets() and
 * kstats_check_addrs() do the first start's and the end's).
 */
static int kstats_pair_more_sites(struct kstats_pair_probe *pp,
				  struct kstats_cmd *cmd)
{
	struct kstats_site *site;
	unsigned int i;
	int ret;

	pp->nr_more = cmd->nr_more;
	for (i = 0; i < pp->nr_more; i++) {
		site = &pp->more_site[i];
		site->target = cmd->more[i];
		pp->more[i].site = site;
		pp->more[i].pp = pp;
		pp->more[i].idx = KSTATS_NR_SIDES + i;
		pp->more[i].tp_data = &pp->more[i];
		if (site->target.tracepoint)
			continue;
		ret = kstats_resolve(cmd, "start", &site->target, &site->addr) ?:
		      kstats_check_addr(cmd, "start", site->addr);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A start on the end's tracepoint (sched_switch in runqlat's and cpudist's
 * pairs) is run by the end's probe after the end: one probe call per hit,
 * not two (and with one probe, the tracepoint's static call goes straight
 * to it). The first such start only; before attach.
 */
static void kstats_pair_join(struct kstats_pair_probe *pp)
{
	const struct kstats_target *end = &pp->end.site->target;
	struct kstats_endpoint *ep;
	unsigned int i;

	if (!end->tracepoint)
		return;
	for (i = 0; i < KSTATS_NR_SIDES + pp->nr_more; i++) {
		if (i == KSTATS_SIDE_END)
			continue;
		ep = i == KSTATS_SIDE_BEGIN ? &pp->start :
		     &pp->more[i - KSTATS_NR_SIDES];
		if (!ep->site->target.tracepoint ||
		    strcmp(ep->site->target.sym, end->sym))
			continue;
		pp->joined = i + 1;
		pp->join_fn = *pp->end.fn;
		pp->join_fn.tracepoint = (void *)kstats_end_start_probes[pp->lean];
		pp->end.fn = &pp->join_fn;
		ep->joined = true;
		return;
	}
}

/* Attach the probes of a pair; kprobes stay disabled. */
static int kstats_pair_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kstats_pair_probe *pp = kstats_pair(p);
	unsigned int i;
	int ret;

	p->ops = &kstats_pair_ops;
	pp->start.site = &p->start;
	pp->end.site = &p->end;
	ret = kstats_pair_more_sites(pp, cmd);
	for (i = 0; !ret && i < KSTATS_NR_SIDES + pp->nr_more; i++)
		ret = kstats_pair_cond_setup(pp, i, cmd);
	if (ret)
		return ret;
	if (p->key == KSTATS_KEY_ARG) {
		ret = kstats_pair_key_setup(pp, cmd);
		if (ret)
			return ret;
	} else if (p->key == KSTATS_KEY_TASK) {
		pp->tasks = kstats_task_table_alloc(cmd->slots);
		if (!pp->tasks)
			return kstats_fail(cmd, -ENOMEM, "out of memory");
		ret = kstats_task_hook(pp->tasks, p->stats, cmd);
		if (ret)
			return ret;
		p->registered = true;
	} else {
		pp->t0 = alloc_percpu(struct kstats_cpu_start);
		if (!pp->t0)
			return kstats_fail(cmd, -ENOMEM, "out of memory");
	}
	/* by argN, by stack: at the end, or at the starts. */
	pp->by_site = cmd->by_site;
	if (p->keys)
		pp->deref[pp->by_site] |= p->keys->path.n;
	pp->start.fn = &kstats_start_hooks;
	pp->end.fn = &kstats_end_hooks;
	if (p->shape == KSTATS_SHAPE_LEAN && p->key == KSTATS_KEY_CPU) {
		pp->lean = KSTATS_PAIR_LEAN_CPU;
		pp->start.fn = &kstats_cpu_start_hooks;
		pp->end.fn = &kstats_cpu_end_hooks;
	} else if (p->shape == KSTATS_SHAPE_LEAN && p->key == KSTATS_KEY_TASK) {
		pp->lean = KSTATS_PAIR_LEAN_TASK;
		pp->start.fn = &kstats_task_start_hooks;
		pp->end.fn = &kstats_task_end_hooks;
	}
	for (i = 0; i < pp->nr_more; i++)
		pp->more[i].fn = &kstats_more_hooks[pp->lean];
	kstats_pair_join(pp);
	/* The end first, so that no start waits for an end not yet there. */
	ret = kstats_endpoint_attach(pp, &pp->end, &p->end, cmd);
	if (!ret)
		ret = kstats_endpoint_attach(pp, &pp->start, &p->start, cmd);
	for (i = 0; !ret && i < pp->nr_more; i++)
		ret = kstats_endpoint_attach(pp, &pp->more[i], &pp->more_site[i],
					     cmd);
	return ret;
}

/* What attach allocated; kstats_probe_free() frees the rest. */
void kstats_pair_free(struct kstats_probe *p)
{
	struct kstats_pair_probe *pp = kstats_pair(p);

	free_percpu(pp->t0);
	kstats_task_table_free(pp->tasks);
	if (pp->reqs) {
		cancel_delayed_work_sync(&pp->expire_work);
		kstats_req_table_free(pp->reqs);
	}
}

/*
 * Arm a side: enable its kprobe (disabled since attach or a stop), or
 * put back the ftrace callback or tracepoint probe that a stop took off.
 */
static int kstats_arm_endpoint(struct kstats_probe *p,
			       struct kstats_endpoint *ep)
{
	int ret = 0;

	if (!ep->registered)
		return 0;
	if (ep->hook == KSTATS_HOOK_KPROBE)
		return enable_kprobe(&ep->kp);
	if (!ep->disarmed)
		return 0;
	if (ep->hook == KSTATS_HOOK_FTRACE)
		ret = register_ftrace_function(&ep->ops);
	else
		ret = tracepoint_probe_register(ep->site->tp, ep->fn->tracepoint,
						ep->tp_data);
	if (!ret)
		ep->disarmed = false;
	return ret;
}

/*
 * Take a side's hook off while the entry is stopped: the kprobe is
 * disabled, the ftrace callback and the tracepoint probe unregistered
 * (the filter, the probe and its tables stay for the next start).
 */
static void kstats_disarm_endpoint(struct kstats_probe *p,
				   struct kstats_endpoint *ep)
{
	if (!ep->registered || ep->disarmed)
		return;
	if (ep->hook == KSTATS_HOOK_KPROBE) {
		disable_kprobe(&ep->kp);
		return;
	}
	if (ep->hook == KSTATS_HOOK_FTRACE) {
		if (unregister_ftrace_function(&ep->ops))
			return;
	} else if (tracepoint_probe_unregister(ep->site->tp, ep->fn->tracepoint,
					       ep->tp_data)) {
		return;
	}
	ep->disarmed = true;
}

/* End before start, as in attach. */
int kstats_pair_enable(struct kstats_probe *p)
{
	struct kstats_pair_probe *pp = kstats_pair(p);
	unsigned int i;
	int ret;

	ret = kstats_arm_endpoint(p, &pp->end) ?:
	      kstats_arm_endpoint(p, &pp->start);
	for (i = 0; !ret && i < pp->nr_more; i++)
		ret = kstats_arm_endpoint(p, &pp->more[i]);
	return ret;
}

/* Start before end: no end is left waiting for a start that cannot come. */
void kstats_pair_disable(struct kstats_probe *p)
{
	struct kstats_pair_probe *pp = kstats_pair(p);
	unsigned int i;

	for (i = 0; i < pp->nr_more; i++)
		kstats_disarm_endpoint(p, &pp->more[i]);
	kstats_disarm_endpoint(p, &pp->start);
	kstats_disarm_endpoint(p, &pp->end);
}

/*
 * unregister_kprobe() waits for pre-handlers in flight; tracepoint probes,
 * and the sched_process_free probe of key task, need
 * tracepoint_synchronize_unregister().
 */
void kstats_pair_detach(struct kstats_probe *p)
{
	struct kstats_pair_probe *pp = kstats_pair(p);
	bool sync = false;
	unsigned int i;

	for (i = 0; i < pp->nr_more; i++)
		sync |= kstats_detach_endpoint(p, &pp->more[i]);
	sync |= kstats_detach_endpoint(p, &pp->start);
	sync |= kstats_detach_endpoint(p, &pp->end);
	if (p->registered) {
		p->registered = false;
		kstats_task_unhook(pp->tasks);
		sync = true;
	}
	if (sync)
		tracepoint_synchronize_unregister();
}

static unsigned long kstats_endpoint_missed(const struct kstats_endpoint *ep)
{
	return ep->hook == KSTATS_HOOK_KPROBE ? READ_ONCE(ep->kp.nmissed) : 0;
}

unsigned long kstats_pair_missed(const struct kstats_probe *p)
{
	const struct kstats_pair_probe *pp = kstats_pair(p);
	unsigned long n = kstats_endpoint_missed(&pp->start) +
			  kstats_endpoint_missed(&pp->end);
	unsigned int i;

	for (i = 0; i < pp->nr_more; i++)
		n += kstats_endpoint_missed(&pp->more[i]);
	return n;
}

const char *kstats_hook_name(const struct kstats_endpoint *ep)
{
	if (ep->joined)
		return "joined";
	switch (ep->hook) {
	case KSTATS_HOOK_FTRACE:
		return "ftrace";
	case KSTATS_HOOK_KPROBE:
		return "kprobe";
	default:
		return "tracepoint";
	}
}

static const char *kstats_pair_name(const struct kstats_probe *p)
{
	return "pair";
}

/*
 * The listing's per-site words: the starts joined by '|', then ',' and
 * the end, in the order of kstats_parse.h's sites.
 */
static void kstats_pair_sep(struct seq_file *m, const struct kstats_pair_probe *pp,
			    unsigned int n)
{
	if (n + 1 < KSTATS_NR_SIDES + pp->nr_more)
		seq_putc(m, n == pp->nr_more ? ',' : '|');
}

/* Site @n of the listing's order: the first start, the others, the end. */
static unsigned int kstats_pair_nth(const struct kstats_pair_probe *pp,
				    unsigned int n)
{
	if (!n)
		return KSTATS_SIDE_BEGIN;
	return n <= pp->nr_more ? KSTATS_NR_SIDES + n - 1 : KSTATS_SIDE_END;
}

/* " if -|arg4==0,-": each site's condition, "-" for none. */
static void kstats_pair_show_conds(struct seq_file *m,
				   const struct kstats_pair_probe *pp)
{
	const char * const *ops = kstats_cond_ops;
	unsigned int n, sites = KSTATS_NR_SIDES + pp->nr_more;
	const struct kstats_pair_cond *c;

	for (n = 0; n < sites && !pp->cond[n].op; n++)
		;
	if (n == sites)
		return;
	seq_puts(m, " if ");
	for (n = 0; n < sites; n++) {
		c = &pp->cond[kstats_pair_nth(pp, n)];
		if (!c->op)
			seq_putc(m, '-');
		else if (c->str_len)
			seq_printf(m, "arg%u%s%s\"%s\"", c->arg, c->path.names,
				   ops[c->op], c->str);
		else if (c->is_signed)
			seq_printf(m, "arg%u%s%s%lld", c->arg, c->path.names,
				   ops[c->op], c->val);
		else
			seq_printf(m, "arg%u%s%s%llu", c->arg, c->path.names,
				   ops[c->op], (u64)c->val & c->mask);
		kstats_pair_sep(m, pp, n);
	}
}

/* " key arg1" where every site has one N, else " key arg1|arg2,arg3". */
static void kstats_pair_show_key(struct seq_file *m,
				 const struct kstats_pair_probe *pp)
{
	unsigned int i, n, sites = KSTATS_NR_SIDES + pp->nr_more;

	if (pp->p.key != KSTATS_KEY_ARG) {
		seq_printf(m, " key %s",
			   pp->p.key == KSTATS_KEY_TASK ? "task" : "cpu");
		return;
	}
	for (n = 1; n < sites && pp->key_arg[n] == pp->key_arg[0] &&
	     !strcmp(pp->key_path[n].names, pp->key_path[0].names); n++)
		;
	if (n == sites) {
		seq_printf(m, " key arg%u%s", pp->key_arg[0],
			   pp->key_path[0].names);
		return;
	}
	seq_puts(m, " key ");
	for (n = 0; n < sites; n++) {
		i = kstats_pair_nth(pp, n);
		seq_printf(m, "arg%u%s", pp->key_arg[i], pp->key_path[i].names);
		kstats_pair_sep(m, pp, n);
	}
}

static void kstats_pair_show(struct seq_file *m, const struct kstats_probe *p)
{
	const struct kstats_pair_probe *pp = kstats_pair(p);
	unsigned int n, sites = KSTATS_NR_SIDES + pp->nr_more;

	kstats_pair_show_key(m, pp);
	seq_puts(m, " targets ");
	for (n = 0; n < sites; n++) {
		kstats_show_target(m, &kstats_pair_site(pp, kstats_pair_nth(pp, n))->target);
		kstats_pair_sep(m, pp, n);
	}
	seq_puts(m, " hooks ");
	for (n = 0; n < sites; n++) {
		seq_puts(m, kstats_hook_name(kstats_pair_ep(pp, kstats_pair_nth(pp, n))));
		kstats_pair_sep(m, pp, n);
	}
	kstats_pair_show_conds(m, pp);
}

static void kstats_pair_show_counts(struct seq_file *m,
				    const struct kstats_probe *p,
				    const struct kstats_probe_stats *sum)
{
	const struct kstats_pair_probe *pp = kstats_pair(p);
	const struct kstats_task_table *tasks = pp->tasks;
	const struct kstats_req_table *reqs = pp->reqs;

	seq_printf(m, " dropped %lu unpaired %lu", sum->dropped, sum->unpaired);
	if (memchr_inv(pp->deref, 0, sizeof(pp->deref)))
		seq_printf(m, " faulted %lu", sum->faulted);
	if (tasks)
		seq_printf(m, " notask %lu slots %u", sum->notask,
			   kstats_task_table_size(tasks));
	if (reqs)
		seq_printf(m, " restarted %lu expired %lu slots %u expire %u",
			   sum->restarted, sum->expired,
			   kstats_req_table_size(reqs),
			   kstats_req_expire_s(reqs));
}

/* The calibration of one side of a pair: its kind and its key. */
static enum kstats_cal_mech kstats_cal_side(const struct kstats_probe *p,
					    const struct kstats_endpoint *ep)
{
	bool task = p->key == KSTATS_KEY_TASK;

	switch (ep->hook) {
	case KSTATS_HOOK_TRACEPOINT:
		return task ? KSTATS_CAL_TP_TASK : KSTATS_CAL_TP_CPU;
	case KSTATS_HOOK_FTRACE:
		return task ? KSTATS_CAL_FTRACE_TASK : KSTATS_CAL_FTRACE_CPU;
	default:
		return task ? KSTATS_CAL_KPROBE_TASK : KSTATS_CAL_KPROBE_CPU;
	}
}

/* A pair hooked two ways (ftrace, kprobe, tracepoint): both kinds. */
static void kstats_pair_cal_rows(const struct kstats_probe *p,
				 enum kstats_cal_mech rows[2])
{
	rows[0] = kstats_cal_side(p, &kstats_pair(p)->start);
	rows[1] = kstats_cal_side(p, &kstats_pair(p)->end);
}

static bool kstats_pair_uses(const struct kstats_probe *p, struct module *mod,
			     bool tracepoints)
{
	const struct kstats_pair_probe *pp = kstats_pair(p);
	const struct kstats_endpoint *ep;
	const struct kstats_site *site;
	unsigned int i;

	for (i = 0; i < KSTATS_NR_SIDES + pp->nr_more; i++) {
		ep = kstats_pair_ep(pp, i);
		site = ep->site;
		if (tracepoints ? site->tp_mod == mod :
		    ep->registered && !site->tp && within_module(site->addr, mod))
			return true;
	}
	return false;
}

/* The pending starts: a request table, a task table or one per CPU. */
static size_t kstats_pair_memory(const struct kstats_cmd *cmd)
{
	if (cmd->key == KSTATS_KEY_ARG)
		return kstats_req_table_bytes(cmd->slots);
	if (cmd->key == KSTATS_KEY_TASK)
		return kstats_task_table_bytes(cmd->slots);
	return num_possible_cpus() * sizeof(struct kstats_cpu_start);
}

const struct kstats_mech_ops kstats_pair_ops = {
	.cmds = BIT(KSTATS_CMD_TRACE_PAIR),
	.paired = true,
	.size = KSTATS_MECH_SIZE(struct kstats_pair_probe),
	.memory = kstats_pair_memory,
	.name = kstats_pair_name,
	.attach = kstats_pair_attach,
	.enable = kstats_pair_enable,
	.disable = kstats_pair_disable,
	.detach = kstats_pair_detach,
	.missed = kstats_pair_missed,
	.show = kstats_pair_show,
	.show_counts = kstats_pair_show_counts,
	.cal_rows = kstats_pair_cal_rows,
	.uses = kstats_pair_uses,
	.free = kstats_pair_free,
};
