// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_tramp.ko, arm64: the return addresses on the current task's
 * stack, by its chain of frame records (the kernel is built with frame
 * pointers; the unwinder is not exported). A record saved by a function
 * that signs its return address holds it signed: the code bits are
 * recovered before the address is compared. The chain ends where a
 * record leaves the task's stack or does not move up it; nothing is
 * read outside the stack.
 */
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/compiler.h>
#include "kstats_tramp.h"

notrace void kstats_tramp_walk_current(void (*found)(unsigned long addr))
{
	unsigned long low = (unsigned long)task_stack_page(current);
	unsigned long high = low + THREAD_SIZE;
	unsigned long fp = (unsigned long)__builtin_frame_address(0);
	const unsigned long *rec;

	while (fp >= low && fp <= high - 2 * sizeof(long) &&
	       IS_ALIGNED(fp, sizeof(long))) {
		rec = (const unsigned long *)fp;
		found(ptrauth_strip_kernel_insn_pac(READ_ONCE_NOCHECK(rec[1])));
		if (READ_ONCE_NOCHECK(rec[0]) <= fp)
			break;
		fp = READ_ONCE_NOCHECK(rec[0]);
	}
}
