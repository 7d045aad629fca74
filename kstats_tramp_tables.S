/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_tramp.ko: what the trampolines of each arch share, included by
 * kstats_tramp_ARCH.S (not built alone), whose macro KSTATS_DIRECT_TRAMP N
 * defines kstats_direct_tramp_N, with the label .Lret_N where FUNC's body
 * returns to, and counts itself in kstats_direct_tramps.
 */
#ifndef _KSTATS_TRAMP_TABLES_S
#define _KSTATS_TRAMP_TABLES_S

/* One per slot: 0 .. KSTATS_DIRECT_MAX - 1. */
#define KSTATS_SLOTS	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15

.macro KSTATS_DIRECT_TRAMPS
	.text
	.irp n, KSTATS_SLOTS
	KSTATS_DIRECT_TRAMP \n
	.endr
.if kstats_direct_tramps != KSTATS_DIRECT_MAX
	.error "KSTATS_SLOTS does not list KSTATS_DIRECT_MAX trampolines"
.endif

/*
 * Where FUNC's body returns to in each trampoline, from its start: the
 * return address that each measured call in flight has on its task's
 * stack (kstats_tramp_slots.c counts out a task that exits inside). Label
 * differences: constants, no relocation into the middle of the text.
 */
	.section .rodata
	.balign 4
SYM_DATA_START(kstats_direct_ret_offset)
	.irp n, KSTATS_SLOTS
	.long .Lret_\n - kstats_direct_tramp_\n
	.endr
SYM_DATA_END(kstats_direct_ret_offset)

/* Their addresses by slot. */
	.balign 8
SYM_DATA_START(kstats_direct_tramp_table)
	.irp n, KSTATS_SLOTS
	.quad kstats_direct_tramp_\n
	.endr
SYM_DATA_END(kstats_direct_tramp_table)
.endm

#endif /* _KSTATS_TRAMP_TABLES_S */
