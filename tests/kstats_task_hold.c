// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: a free probe of a key task pair running on its task table
 * at the moment the pair's exec probe fails to register, and the table
 * is freed (tests/guest/98-task-hook-fail.sh).
 *
 * "hook" and "freed" are the addresses of kstats_task_hook_exec() and
 * kstats_task_freed() (from /proc/kallsyms). "state", written by the
 * script and by the probes here:
 *   1  armed: the next call of hook goes to kstats_task_hold_fail()
 *      instead, which parks its caller, the control writer, with the
 *      table's free probe registered (2);
 *   2  parked: the next call of freed on that table, on CPU "cpu", is
 *      held there (3),
 *      spinning in a kprobe handler as a preempted or interrupted probe
 *      would stay, until released (5); no clock bounds either wait;
 *   4  go: the parked writer returns ENOMEM, as a failed registration;
 *   5  release: the held call of freed goes on.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/smp.h>

enum {
	KSTATS_TH_OFF, KSTATS_TH_ARMED, KSTATS_TH_PARKED, KSTATS_TH_HELD,
	KSTATS_TH_GO, KSTATS_TH_RELEASE, KSTATS_TH_SENT,
};

static unsigned long hook;
module_param(hook, ulong, 0444);
MODULE_PARM_DESC(hook, "address of kstats_task_hook_exec()");

static unsigned long freed;
module_param(freed, ulong, 0444);
MODULE_PARM_DESC(freed, "address of kstats_task_freed()");

static int cpu = 1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "the CPU whose call of freed is held");

static int state;
module_param(state, int, 0644);
MODULE_PARM_DESC(state, "1 arm, 2 parked, 3 held, 4 go, 5 release");

/* Writers in kstats_task_hold_fail(), which module exit waits for. */
static atomic_t kstats_th_parked;
/* The table of the parked writer: only a call on it is held. */
static void *kstats_th_table;

/* In place of kstats_task_hook_exec(), with its prototype. */
static int kstats_task_hold_fail(void *table)
{
	atomic_inc(&kstats_th_parked);
	WRITE_ONCE(kstats_th_table, table);
	smp_wmb();	/* the table before the state, for the free probe */
	WRITE_ONCE(state, KSTATS_TH_PARKED);
	while (READ_ONCE(state) != KSTATS_TH_GO &&
	       READ_ONCE(state) != KSTATS_TH_RELEASE)
		msleep(20);
	atomic_dec(&kstats_th_parked);
	return -ENOMEM;
}

static int kstats_th_hook_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (cmpxchg(&state, KSTATS_TH_ARMED, KSTATS_TH_SENT) != KSTATS_TH_ARMED)
		return 0;
	/* Resume in the stand-in, with the call's arguments and return. */
	instruction_pointer_set(regs, (unsigned long)kstats_task_hold_fail);
	return 1;
}

/* kstats_task_freed(data, task): held only on @data, the parked table. */
static int kstats_th_freed_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (smp_processor_id() != cpu || READ_ONCE(state) != KSTATS_TH_PARKED)
		return 0;
	smp_rmb();	/* the state before the table */
	if (regs_get_kernel_argument(regs, 0) !=
	    (unsigned long)READ_ONCE(kstats_th_table) ||
	    cmpxchg(&state, KSTATS_TH_PARKED, KSTATS_TH_HELD) !=
	    KSTATS_TH_PARKED)
		return 0;
	while (READ_ONCE(state) != KSTATS_TH_RELEASE)
		cpu_relax();
	return 0;
}

/*
 * Never called (the pre handler that changes the address returns 1): a
 * post handler makes a kprobe on an ftrace site an IPMODIFY user, which
 * a changed address needs.
 */
static void kstats_th_hook_post(struct kprobe *kp, struct pt_regs *regs,
				unsigned long flags)
{
}

static struct kprobe kstats_th_hook_kp = {
	.pre_handler = kstats_th_hook_pre,
	.post_handler = kstats_th_hook_post,
};

static struct kprobe kstats_th_freed_kp = {
	.pre_handler = kstats_th_freed_pre,
};

static int __init kstats_th_init(void)
{
	int ret;

	if (!hook || !freed)
		return -EINVAL;
	kstats_th_hook_kp.addr = (kprobe_opcode_t *)hook;
	kstats_th_freed_kp.addr = (kprobe_opcode_t *)freed;
	ret = register_kprobe(&kstats_th_hook_kp);
	if (ret)
		return ret;
	ret = register_kprobe(&kstats_th_freed_kp);
	if (ret)
		unregister_kprobe(&kstats_th_hook_kp);
	return ret;
}

/* A held call and a parked writer are let go first. */
static void __exit kstats_th_exit(void)
{
	WRITE_ONCE(state, KSTATS_TH_RELEASE);
	unregister_kprobe(&kstats_th_freed_kp);
	unregister_kprobe(&kstats_th_hook_kp);
	while (atomic_read(&kstats_th_parked))
		msleep(20);
}

module_init(kstats_th_init);
module_exit(kstats_th_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstats test: a free probe held while a key task pair's hook fails");
