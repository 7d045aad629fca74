// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel's ORC unwinder (x86-64).
 *
 * by stack's walks, remembered (kstats_stack.h). A task blocks where it
 * blocked before (a pipe's read, a futex's wait): the same frames, at the
 * same places of its stack but for the random offset that each system
 * call's entry puts under its frame (RANDOMIZE_KSTACK_OFFSET, on in
 * Debian's kernels). ORC gives a frame's size by its return address, so
 * a walk that finds each return address where the remembered one read it,
 * at the same distance from where the walk begins, reads the same frames:
 * a remembered walk is checked with a load and a compare a frame, where
 * ORC's walk costs some 400 instructions a frame (Documentation/kstats.rst,
 * "Off-CPU time by stack").
 *
 * Frames that ORC finds through their frame pointer (functions that
 * realign their stack or allocate on it: on Debian's 6.12, the hook and
 * __schedule()) have no fixed size. Where the function below such a frame
 * keeps a frame pointer too (this one does, for the hook), it saved the
 * frame's pointer under its return address: a chain of frame pointers,
 * which the check follows as the unwinder does. The entry's call into C
 * (do_syscall_64() allocates the offset) returns from under the task's
 * registers, checked there. A walk through any other such frame is taken
 * only from the same place of the stack.
 * Not remembered: a walk through an interrupt's registers (a register
 * that was saved places the frame above), one whose frames the unwinder
 * took from elsewhere than their slot (a return trampoline's: kretprobes,
 * the graph tracer), one that leaves the task's stack. The memos are per
 * CPU, the last 8 walks of any tasks, looked at in task context with
 * preemption off: an interrupt's probe walks without them.
 */
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <asm/unwind.h>
#include <kunit/visibility.h>
#include "kstats_stack.h"

/*
 * 8 a CPU, any task's: a task that blocks in a read is also switched out
 * on its way back to user space (preempted by the task its write woke),
 * and the tasks that switch in turn are few.
 */
#define KSTATS_STACK_MEMO_WAYS	8

/*
 * A walk of the stack that ends at @top, @nr frames. Frame 0 returns into
 * the hook, from this function's frame; frame i > 0 was read @at[i] bytes
 * from the top of the frame under it that was found last by its frame
 * pointer (@chain's bit i: that frame's) or, for @entry, from @top.
 */
struct kstats_stack_memo {
	unsigned long top;		/* 0: none */
	unsigned long fp;		/* where it began, if @fixed */
	unsigned int nr;
	int entry;			/* the entry's frame, or -1 */
	u32 chain;			/* frames by the frame pointer chain */
	bool fixed;			/* another is: from @fp only */
	unsigned long ip[KSTATS_STACK_WALK];
	long at[KSTATS_STACK_WALK];
};

struct kstats_stack_memos {
	struct kstats_stack_memo way[KSTATS_STACK_MEMO_WAYS];
	unsigned long hits;		/* walks given unwalked, for KUnit */
	unsigned int next;		/* the way to replace */
};

struct kstats_stack_memos __percpu *kstats_stack_memo_alloc(void)
{
	return alloc_percpu(struct kstats_stack_memos);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_stack_memo_alloc);

void kstats_stack_memo_free(struct kstats_stack_memos __percpu *m)
{
	free_percpu(m);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_stack_memo_free);

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * The walks that this CPU's memos of @m keep, and have given, into @hits;
 * into @fixed, whether one of them is taken from its place only.
 */
unsigned int kstats_stack_memo_kept(struct kstats_stack_memos __percpu *m,
				    unsigned long *hits, bool *fixed)
{
	const struct kstats_stack_memo *w;
	unsigned int i, n = 0;

	*fixed = false;
	for (i = 0; i < KSTATS_STACK_MEMO_WAYS; i++) {
		w = &this_cpu_ptr(m)->way[i];
		n += !!w->top;
		*fixed |= w->top && w->fixed;
	}
	*hits = this_cpu_read(m->hits);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_stack_memo_kept);
#endif

size_t kstats_stack_memo_bytes(void)
{
	return num_possible_cpus() * sizeof(struct kstats_stack_memos);
}

/* A word of this task's stack, which the unwinder reads likewise. */
static __always_inline unsigned long kstats_stack_word(unsigned long at)
{
	return READ_ONCE_NOCHECK(*(unsigned long *)at);
}

/*
 * Whether @m, a walk of this stack, which ends at @top, is the walk from
 * this function's frame (@fp: its frame pointer, where the hook's was
 * saved): each frame's slot, above the last one's and below @top, holds
 * its frame.
 */
static __always_inline bool kstats_stack_memo_holds(const struct kstats_stack_memo *m,
						    unsigned long fp,
						    unsigned long top)
{
	unsigned long at = fp + sizeof(long), base = at + sizeof(long), prev;
	unsigned int i;

	if ((m->fixed && m->fp != fp) || kstats_stack_word(at) != m->ip[0])
		return false;
	for (i = 1; i < m->nr; i++) {
		prev = at;
		/* The frame's pointer, which its callee saved under prev. */
		if (m->chain & BIT(i))
			base = kstats_stack_word(prev - sizeof(long)) +
			       2 * sizeof(long);
		at = (i == m->entry ? top : base) + m->at[i];
		if (at <= prev || at > top - sizeof(long) ||
		    kstats_stack_word(at) != m->ip[i])
			return false;
	}
	return true;
}

/*
 * Walk from the caller of kstats_stack_save_memo() into @ip (at most @max,
 * KSTATS_STACK_WALK, frames), and into @m if @keep, which becomes false if
 * @m cannot keep the walk (above): @fp is this function's frame pointer,
 * @entry where the entry's return address would be, under the task's
 * registers, @top the stack's end.
 */
static __always_inline unsigned int kstats_stack_memo_walk(struct kstats_stack_memo *m,
							   unsigned long fp,
							   unsigned long entry,
							   unsigned long top,
							   unsigned long *ip,
							   unsigned int max,
							   bool *keep)
{
	unsigned long addr, at, last = fp, base = fp + 2 * sizeof(long);
	unsigned long bp = fp, bp_below = 0;
	struct unwind_state st;
	unsigned int n = 0;

	for (unwind_start(&st, current, NULL, NULL);
	     !unwind_done(&st) && n < max; unwind_next_frame(&st)) {
		addr = unwind_get_return_address(&st);
		if (!addr)
			break;
		ip[n] = addr;
		if (*keep) {
			/* Where the unwinder read it, above the last one. */
			at = st.sp - sizeof(long);
			/*
			 * The frame under it found by its pointer: chained if
			 * its callee keeps a frame pointer (saved it under
			 * the frame's return address, last).
			 */
			if (n && st.sp == bp + 2 * sizeof(long)) {
				if (bp_below == last - sizeof(long)) {
					m->chain |= BIT(n);
					base = st.sp;
				} else if (at == entry) {
					m->entry = n;
				} else {
					m->fixed = true;
				}
			}
			if (st.regs || at <= last ||
			    (!n && at != fp + sizeof(long)) ||
			    at > top - sizeof(long) ||
			    kstats_stack_word(at) != addr)
				*keep = false;
			m->at[n] = at - (n == m->entry ? top : base);
			last = at;
			bp_below = bp;
			bp = st.bp;
		}
		n++;
	}
	return n;
}

notrace unsigned int kstats_stack_save_memo(struct kstats_stack_memos __percpu *memos,
					    unsigned long *ip, unsigned int max)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0);
	unsigned long top = (unsigned long)task_stack_page(current) + THREAD_SIZE;
	struct kstats_stack_memos *c;
	struct kstats_stack_memo *m;
	unsigned int n, w;
	bool keep = false;

	max = min_t(unsigned int, max, KSTATS_STACK_WALK);
	/* On the task's stack, which no other context uses. */
	if (!in_task() || top - fp > THREAD_SIZE)
		return kstats_stack_memo_walk(NULL, fp, 0, top, ip, max, &keep);
	preempt_disable_notrace();
	c = this_cpu_ptr(memos);
	for (w = 0; w < KSTATS_STACK_MEMO_WAYS; w++) {
		m = &c->way[w];
		if (m->top == top && m->nr <= max &&
		    kstats_stack_memo_holds(m, fp, top)) {
			n = m->nr;
			memcpy(ip, m->ip, n * sizeof(*ip));
			c->hits++;
			goto out;
		}
	}
	/* The ways in turn. */
	m = &c->way[c->next];
	c->next = (c->next + 1) % KSTATS_STACK_MEMO_WAYS;
	m->top = 0;
	m->entry = -1;
	m->chain = 0;
	m->fixed = false;
	m->fp = fp;
	keep = true;
	n = kstats_stack_memo_walk(m, fp,
				   (unsigned long)task_pt_regs(current) -
				   sizeof(long), top, ip, max, &keep);
	if (keep && n) {
		memcpy(m->ip, ip, n * sizeof(*ip));
		m->nr = n;
		m->top = top;
	}
out:
	preempt_enable_notrace();
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_stack_save_memo);
