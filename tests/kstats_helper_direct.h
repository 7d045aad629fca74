/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Part of tests/kstats_helper.c: functions for "via direct" (kstats
 * mechanism direct), whose frames, return values and stack traces the
 * guest test 66-direct.sh checks through the trampoline.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/printk.h>
#include <linux/stacktrace.h>
#include <linux/wait.h>

/* Two words returned in rax:rdx. */
struct helper_pair {
	u64 lo, hi;
};

/* Passed by value: on the stack, where a trampoline frame shifts it. */
struct helper_triple {
	u64 a, b, c;
};

/* Distinct weights: any swapped or lost argument changes the sum. */
static noinline __noclone u64 kstats_helper_args6(u64 a, u64 b, u64 c, u64 d,
						  u64 e, u64 f)
{
	return a * 3 + b * 5 + c * 7 + d * 11 + e * 13 + f * 17;
}

static noinline __noclone u64 kstats_helper_args7(u64 a, u64 b, u64 c, u64 d,
						  u64 e, u64 f, u64 g)
{
	return a * 3 + b * 5 + c * 7 + d * 11 + e * 13 + f * 17 + g * 19;
}

static noinline __noclone u64 kstats_helper_byval(struct helper_triple t)
{
	return t.a + t.b * 2 + t.c * 3;
}

static noinline __noclone struct helper_pair kstats_helper_pair(u64 x)
{
	struct helper_pair p = { .lo = x * 31, .hi = ~x };

	return p;
}

static int helper_args(unsigned int k)
{
	/*
	 * Arguments from k, not constants: gcc 14's IPA-CP folds a call of a
	 * noinline function whose every caller passes the same constants
	 * (kstats_helper_args7(1, ...) became "75", and no call was left).
	 */
	struct helper_triple t = { k, k + 1, k + 2 };
	struct helper_pair p;
	unsigned int i;
	u64 sum;

	for (i = 0; i < k; i++) {
		u64 x = 1000 + i;

		sum = kstats_helper_args6(x, x + 1, x + 2, x + 3, x + 4, x + 5);
		if (sum != x * 56 + 5 + 14 + 33 + 52 + 85)
			return -EIO;
		p = kstats_helper_pair(x);
		if (p.lo != x * 31 || p.hi != ~x)
			return -EIO;
	}
	if (kstats_helper_args7(k, k, k, k, k, k, k) != (u64)k * (56 + 19) ||
	    kstats_helper_byval(t) != (u64)k * 6 + 8)
		return -EIO;
	return 0;
}

/* block/wake: a task asleep inside a traced function. */
static DECLARE_WAIT_QUEUE_HEAD(helper_block_wq);
static atomic_t helper_woken = ATOMIC_INIT(0);

static noinline __noclone int kstats_helper_block(int unused)
{
	return wait_event_interruptible(helper_block_wq,
					atomic_xchg(&helper_woken, 0));
}

static bool helper_direct_unlocked(const char *buf)
{
	return !strncmp(buf, "block", 5) || !strncmp(buf, "wake", 4);
}

static int helper_block_or_wake(const char *buf)
{
	if (!strncmp(buf, "wake", 4)) {
		atomic_set(&helper_woken, 1);
		wake_up(&helper_block_wq);
		return 0;
	}
	return kstats_helper_block(0);
}

/* irq: calls from hardirq context. */
static unsigned int helper_in_irq_calls;

static noinline __noclone void kstats_helper_in_irq(unsigned int i)
{
	WRITE_ONCE(helper_in_irq_calls, i);
}

static atomic_t helper_direct_irq_done;

static void helper_direct_irq(struct irq_work *w)
{
	kstats_helper_in_irq(1);
	atomic_set(&helper_direct_irq_done, 1);
}

static struct irq_work helper_direct_irq_work;

static int helper_irq(unsigned int k)
{
	unsigned int i;
	int ret;

	for (i = 0; i < k; i++) {
		preempt_disable();
		ret = helper_irq_wait(&helper_direct_irq_work,
				      &helper_direct_irq_done);
		preempt_enable();
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * stack: a stack trace from inside a traced function, as the unwinder
 * walks it (no guessed entries), one line per frame.
 */
#define HELPER_STACK_DEPTH	16

static noinline __noclone void kstats_helper_stack(int depth)
{
	unsigned long entries[HELPER_STACK_DEPTH];
	unsigned int i, n;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		pr_info("stack %u: %pS\n", i, (void *)entries[i]);
}

static noinline __noclone void kstats_helper_stack_caller(void)
{
	kstats_helper_stack(1);
	/* Not a tail call: the caller stays on the stack. */
	barrier();
}

/* fns: distinct functions, one trampoline each. */
static unsigned int helper_fn_calls;

#define HELPER_FN(n)							\
static noinline __noclone void kstats_helper_fn##n(unsigned int i)	\
{									\
	WRITE_ONCE(helper_fn_calls, helper_fn_calls + i + (n));	\
}

HELPER_FN(0) HELPER_FN(1) HELPER_FN(2) HELPER_FN(3) HELPER_FN(4)
HELPER_FN(5) HELPER_FN(6) HELPER_FN(7) HELPER_FN(8) HELPER_FN(9)
HELPER_FN(10) HELPER_FN(11) HELPER_FN(12) HELPER_FN(13) HELPER_FN(14)
HELPER_FN(15) HELPER_FN(16) HELPER_FN(17) HELPER_FN(18) HELPER_FN(19)

static void (* const helper_fns[])(unsigned int) = {
	kstats_helper_fn0, kstats_helper_fn1, kstats_helper_fn2,
	kstats_helper_fn3, kstats_helper_fn4, kstats_helper_fn5,
	kstats_helper_fn6, kstats_helper_fn7, kstats_helper_fn8,
	kstats_helper_fn9, kstats_helper_fn10, kstats_helper_fn11,
	kstats_helper_fn12, kstats_helper_fn13, kstats_helper_fn14,
	kstats_helper_fn15, kstats_helper_fn16, kstats_helper_fn17,
	kstats_helper_fn18, kstats_helper_fn19,
};

/*
 * kthread: a kernel thread whose function ends it from inside itself, as
 * kthread() does: a call that never returns to a trampoline.
 */
static DECLARE_COMPLETION(helper_kthread_done);

static noinline __noclone int kstats_helper_dies(void *unused)
{
	kthread_complete_and_exit(&helper_kthread_done, 0);
}

static int helper_kthread(void)
{
	struct task_struct *t;

	reinit_completion(&helper_kthread_done);
	t = kthread_run(kstats_helper_dies, NULL, "kstats_dies");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wait_for_completion(&helper_kthread_done);
	return 0;
}

static bool helper_is_direct_cmd(const char *cmd)
{
	return !strcmp(cmd, "args") || !strcmp(cmd, "irq") ||
	       !strcmp(cmd, "stack") || !strcmp(cmd, "fns") ||
	       !strcmp(cmd, "kthread");
}

static int helper_direct_run(const char *cmd, const char *arg)
{
	unsigned int k = 0, i;

	if (!strcmp(cmd, "kthread"))
		return helper_kthread();
	if (strcmp(cmd, "stack") && kstrtouint(arg, 10, &k))
		return -EINVAL;
	if (!strcmp(cmd, "args"))
		return helper_args(k);
	if (!strcmp(cmd, "irq"))
		return helper_irq(k);
	if (!strcmp(cmd, "stack")) {
		kstats_helper_stack_caller();
		return 0;
	}
	if (k > ARRAY_SIZE(helper_fns))
		return -EINVAL;
	for (i = 0; i < k; i++)
		helper_fns[i](i);
	return 0;
}
