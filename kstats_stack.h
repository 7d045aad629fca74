/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers. Calls the kernel's unwinder.
 *
 * A hit's kernel stack, as outliers and by stack keep it: the frames from
 * the caller of what was hit outwards, without kstats' own. The unwinder
 * walks every frame from where it is called, each of kstats' too, and a
 * module's frame costs it a search of the module tree: so the walk is
 * inlined into the hook that asks for it, one frame fewer per call level.
 */
#ifndef _KSTATS_STACK_H
#define _KSTATS_STACK_H

#include <linux/kernel.h>
#include <linux/stacktrace.h>
#include <linux/types.h>

/* Frames walked: those kept and, atop them, the probe machinery's. */
#define KSTATS_STACK_WALK	28

/*
 * The first of the @n frames of @ip that is neither kstats' own nor the
 * traced function's ftrace site under a direct trampoline: its caller's.
 */
unsigned int kstats_stack_first(const unsigned long *ip, unsigned int n);
unsigned int kstats_stack_trim(unsigned long *ip, unsigned int max,
			       const unsigned long *stack, unsigned int n,
			       unsigned long to, bool skip_own);

/*
 * The stack of this hit into @ip (at most @max frames): from the frame
 * that returns to @to where the hook knows it and the unwinder meets it
 * (the probe machinery's frames above it left out), else whole; if
 * @skip_own, without kstats' frames atop it and without a direct
 * trampoline's frame, with the traced site under it, anywhere in it.
 * The number of frames.
 */
static __always_inline unsigned int kstats_stack_save(unsigned long *ip,
						      unsigned int max,
						      unsigned long to,
						      bool skip_own)
{
	unsigned long stack[KSTATS_STACK_WALK];
	unsigned int n = stack_trace_save(stack, ARRAY_SIZE(stack), 0);

	return kstats_stack_trim(ip, max, stack, n, to, skip_own);
}

/*
 * by stack's walks, remembered per CPU where the unwinder is ORC's
 * (kstats_stack_memo.c): kstats_stack_save_memo() gives the frames that
 * stack_trace_save() would, from its caller's on, without walking a stack
 * whose frames are where they were at a walk from the same place.
 */
struct kstats_stack_memos;
#ifdef KSTATS_HAVE_STACK_MEMO
struct kstats_stack_memos __percpu *kstats_stack_memo_alloc(void);
void kstats_stack_memo_free(struct kstats_stack_memos __percpu *m);
size_t kstats_stack_memo_bytes(void);
unsigned int kstats_stack_save_memo(struct kstats_stack_memos __percpu *memos,
				    unsigned long *ip, unsigned int max);
unsigned int kstats_stack_memo_kept(struct kstats_stack_memos __percpu *m,
				    unsigned long *hits, bool *fixed);
#else
static inline void kstats_stack_memo_free(struct kstats_stack_memos __percpu *m)
{
}

static inline size_t kstats_stack_memo_bytes(void)
{
	return 0;
}
#endif

/* kstats_stack_save(), through @memos where there are any. */
static __always_inline unsigned int
kstats_stack_save_from(struct kstats_stack_memos __percpu *memos,
		       unsigned long *ip, unsigned int max, unsigned long to,
		       bool skip_own)
{
#ifdef KSTATS_HAVE_STACK_MEMO
	unsigned long stack[KSTATS_STACK_WALK];
	unsigned int n;

	if (memos) {
		n = kstats_stack_save_memo(memos, stack, ARRAY_SIZE(stack));
		return kstats_stack_trim(ip, max, stack, n, to, skip_own);
	}
#endif
	return kstats_stack_save(ip, max, to, skip_own);
}

#endif /* _KSTATS_STACK_H */
