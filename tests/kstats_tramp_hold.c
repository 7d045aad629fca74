// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: hold a task on the last instructions of a kstats direct
 * trampoline, after its call of the end hook has counted the call out
 * (tests/guest/96-tramp-exit.sh). A task preempted there still runs
 * module text although no call is in flight any more; kstats_tramp must
 * not free the trampoline's slot, or drop its reference on itself, before
 * an RCU-tasks grace period has seen the task leave.
 *
 * "tramp" and "callee" are the addresses of the trampoline and, on
 * x86-64, of kstats_tramp_end() (from /proc/kallsyms), which calls the
 * hook; arm64's trampoline loads the end hook and calls it itself. The
 * kprobe goes on the instruction after that call. "hold": write 1
 * to arm it; the next time task "pid" reaches the probe, it sets "hold"
 * to 2 and spins there, preemption and interrupts off as in any kprobe
 * handler, until 0 is written (or the module unloads): no clock bounds
 * it, so a slow host cannot end the hold before the script has looked.
 * No RCU-tasks grace period can end while it spins.
 */
#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* How far into the trampoline its call of the callee is looked for. */
#define KSTATS_HOLD_SCAN	512
/* x86-64: a CALL rel32. */
#define KSTATS_HOLD_CALL_LEN	5
/* The function padding that holds call thunks (FUNCTION_PADDING_BYTES). */
#define KSTATS_HOLD_PADDING	16

static unsigned long tramp;
module_param(tramp, ulong, 0444);
MODULE_PARM_DESC(tramp, "address of the trampoline");

static unsigned long callee;
module_param(callee, ulong, 0444);
MODULE_PARM_DESC(callee, "address of the function whose call ends the count");

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "the task to hold (others pass)");

enum { KSTATS_HOLD_OFF, KSTATS_HOLD_ARMED, KSTATS_HOLD_HOLDING };
static int hold;
module_param(hold, int, 0644);
MODULE_PARM_DESC(hold, "1: hold pid when it next comes; 2 while held; 0: release");

static int kstats_hold_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current->pid != pid ||
	    cmpxchg(&hold, KSTATS_HOLD_ARMED, KSTATS_HOLD_HOLDING) !=
	    KSTATS_HOLD_ARMED)
		return 0;
	while (READ_ONCE(hold) == KSTATS_HOLD_HOLDING)
		cpu_relax();
	WRITE_ONCE(hold, KSTATS_HOLD_OFF);
	return 0;
}

static struct kprobe kstats_hold_kp = {
	.pre_handler = kstats_hold_pre,
};

#ifdef CONFIG_ARM64
/* kstats_tramp_arm64.S's KSTATS_CALL_HOOK of the end hook (offset 8). */
#define KSTATS_HOLD_LDR_END	0xf940054a	/* ldr x10, [x10, #8] */
#define KSTATS_HOLD_BLR		0xd63f0140	/* blr x10 */

/* The instruction after the trampoline's call of the end hook. */
static unsigned long kstats_hold_find(void)
{
	static __le32 text[KSTATS_HOLD_SCAN / 4];
	unsigned int i;

	if (copy_from_kernel_nofault(text, (void *)tramp, sizeof(text)))
		return 0;
	for (i = 1; i < ARRAY_SIZE(text); i++)
		if (le32_to_cpu(text[i - 1]) == KSTATS_HOLD_LDR_END &&
		    le32_to_cpu(text[i]) == KSTATS_HOLD_BLR)
			return tramp + 4 * i + 4;
	return 0;
}
#else
/*
 * The instruction after the first call in the trampoline whose target is
 * within @pad bytes before the callee.
 */
static unsigned long kstats_hold_scan(const u8 *text, size_t len,
				      unsigned long pad)
{
	unsigned int off;

	for (off = 0; off + KSTATS_HOLD_CALL_LEN <= len; off++) {
		unsigned long next = tramp + off + KSTATS_HOLD_CALL_LEN, to;
		s32 rel;

		if (text[off] != 0xe8)
			continue;
		memcpy(&rel, &text[off + 1], sizeof(rel));
		to = next + rel;
		if (to <= callee && callee - to <= pad)
			return next;
	}
	return 0;
}

/*
 * The instruction after the trampoline's direct call of the callee, or,
 * where call depth tracking patched the call, of its call thunk in the
 * padding just before it. The exact call first: without that padding,
 * the trampoline's other callee, called before, may end closer than the
 * padding's size before this one.
 */
static unsigned long kstats_hold_find(void)
{
	static u8 text[KSTATS_HOLD_SCAN];

	if (copy_from_kernel_nofault(text, (void *)tramp, sizeof(text)))
		return 0;
	return kstats_hold_scan(text, sizeof(text), 0) ?:
	       kstats_hold_scan(text, sizeof(text), KSTATS_HOLD_PADDING);
}
#endif

static int __init kstats_hold_init(void)
{
	unsigned long at;

	if (!tramp || (!IS_ENABLED(CONFIG_ARM64) && !callee))
		return -EINVAL;
	at = kstats_hold_find();
	if (!at)
		return -ENOENT;
	/* register_kprobe() checks that it is an instruction of module text. */
	kstats_hold_kp.addr = (kprobe_opcode_t *)at;
	return register_kprobe(&kstats_hold_kp);
}

/* A held task is let go first: unregister_kprobe() waits for it. */
static void __exit kstats_hold_exit(void)
{
	WRITE_ONCE(hold, KSTATS_HOLD_OFF);
	unregister_kprobe(&kstats_hold_kp);
}

module_init(kstats_hold_init);
module_exit(kstats_hold_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstats test: hold a task on a direct trampoline's last instructions");
