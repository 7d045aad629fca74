/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_tramp.ko (see kstats_tramp.h), arm64. Calls the hooks that
 * kstats_tramp_hooks points to only (kstats.ko's, or this module's stubs).
 *
 * kstats mechanism "direct": KSTATS_DIRECT_MAX trampolines, each reached
 * from the patched entry of one traced function ("mov x9, x30; bl ..."),
 * directly or through ftrace_caller's branch by x17 (BTI C). On entry x9
 * holds the return address into FUNC's caller and x30 the one into FUNC's
 * body; x0-x7 carry the arguments and x8 the address of a returned
 * structure; x9-x17 are free, as in any ftrace callback.
 *
 * As on x86-64 (kstats_tramp_x86.S): stopped, back into FUNC's body at
 * once; else save the argument registers in the call's record, ask
 * the hooks' begin, and if it measures, call the body with them
 * restored, keep x0:x1, hand the record to the hooks' end and return to
 * FUNC's caller. The hooks are loaded and called here, not through a C
 * function: one would keep its frame and make a call (about 14
 * instructions a call, both ends).
 *
 * The body is entered by RET to a register, as by ftrace itself: BTI
 * checks no return, and the body after the patched entry is no landing
 * pad. Pointer authentication: the return addresses here are plain, as
 * at a patched entry (FUNC signs its return address after it, in its
 * prologue): the body signs the trampoline's return address with its own
 * stack pointer and checks it before returning, and the return to FUNC's
 * caller uses the address that x9 brought, unsigned.
 *
 * The frame is two frame records, so the frame pointer chain of a stack
 * trace from the body reads: the trampoline, FUNC (its entry), FUNC's
 * caller. Arguments on the stack would be seen at the wrong offset by the
 * body: kstats_btf.c refuses such functions before a trampoline is used.
 */
#include <linux/linkage.h>
#include "kstats_tramp.h"
#include "kstats_tramp_tables.S"

/*
 * Frame, from sp: record of the trampoline {fp, lr = into the body},
 * record of FUNC's entry {caller's fp, lr = into the caller}, the call's
 * record (struct kstats_tramp_call: start time, x0-x8, key).
 */
#define KSTATS_FRAME	128
#define KSTATS_ENTRY	16
#define KSTATS_CALL	32
#define KSTATS_T0	(KSTATS_CALL + KSTATS_TRAMP_CALL_T0)
#define KSTATS_X(i)	(KSTATS_CALL + KSTATS_TRAMP_CALL_REGS + 8 * (i))

.set kstats_direct_tramps, 0

/* Call the hook at offset \off of *kstats_tramp_hooks (x10: scratch). */
.macro KSTATS_CALL_HOOK off
	adrp	x10, kstats_tramp_hooks
	ldr	x10, [x10, #:lo12:kstats_tramp_hooks]
	ldr	x10, [x10, #\off]
	blr	x10
.endm

.macro KSTATS_DIRECT_TRAMP n
.set kstats_direct_tramps, kstats_direct_tramps + 1
SYM_CODE_START(kstats_direct_tramp_\n)
	hint	34			/* BTI C */
	/* Stopped or not enabled: straight into FUNC's body, no frame. */
	adrp	x10, kstats_direct_active + 8 * \n
	ldr	x10, [x10, #:lo12:kstats_direct_active + 8 * \n]
	ldrb	w10, [x10]
	cbnz	w10, .Lrun_\n
	mov	x10, x30
	mov	x30, x9
	ret	x10
.Lrun_\n:
	sub	sp, sp, #KSTATS_FRAME
	stp	x29, x9, [sp, #KSTATS_ENTRY]
	add	x29, sp, #KSTATS_ENTRY
	stp	x29, x30, [sp]
	mov	x29, sp
	stp	x0, x1, [sp, #KSTATS_X(0)]
	stp	x2, x3, [sp, #KSTATS_X(2)]
	stp	x4, x5, [sp, #KSTATS_X(4)]
	stp	x6, x7, [sp, #KSTATS_X(6)]
	stp	x8, xzr, [sp, #KSTATS_X(8)]	/* and the key */
	mov	w0, #\n
	add	x1, sp, #KSTATS_CALL
	KSTATS_CALL_HOOK KSTATS_TRAMP_HOOK_BEGIN
	str	x0, [sp, #KSTATS_T0]
	mov	x10, x0
	ldp	x0, x1, [sp, #KSTATS_X(0)]
	ldp	x2, x3, [sp, #KSTATS_X(2)]
	ldp	x4, x5, [sp, #KSTATS_X(4)]
	ldp	x6, x7, [sp, #KSTATS_X(6)]
	ldr	x8, [sp, #KSTATS_X(8)]
	cbz	x10, .Lbody_\n
	/* Into FUNC's body, returning here. */
	ldr	x10, [sp, #8]
	adr	x30, .Lret_\n
	ret	x10
.Lret_\n:
	/* FUNC returned: x0:x1 hold its return value. */
	stp	x0, x1, [sp, #KSTATS_X(0)]
	mov	x2, x0
	add	x1, sp, #KSTATS_CALL
	mov	w0, #\n
	KSTATS_CALL_HOOK KSTATS_TRAMP_HOOK_END
	ldp	x0, x1, [sp, #KSTATS_X(0)]
	/* Back to FUNC's caller, with the caller's frame pointer. */
	ldp	x29, x30, [sp, #KSTATS_ENTRY]
	add	sp, sp, #KSTATS_FRAME
	ret
.Lbody_\n:
	/* Not measured: into the body with the registers FUNC was entered with. */
	ldr	x10, [sp, #8]
	ldp	x29, x30, [sp, #KSTATS_ENTRY]
	add	sp, sp, #KSTATS_FRAME
	ret	x10
SYM_CODE_END(kstats_direct_tramp_\n)
.endm

	KSTATS_DIRECT_TRAMPS
