// SPDX-License-Identifier: GPL-2.0
/*
 * kstats_tramp.ko, x86-64: the return addresses on the current task's
 * stack, by the kernel's unwinder (ORC describes the trampolines' frames).
 */
#include <linux/sched.h>
#include <asm/unwind.h>
#include "kstats_tramp.h"

notrace void kstats_tramp_walk_current(void (*found)(unsigned long addr))
{
	struct unwind_state state;

	for (unwind_start(&state, current, NULL, NULL); !unwind_done(&state);
	     unwind_next_frame(&state))
		found(unwind_get_return_address(&state));
}
