/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_tramp.ko (see kstats_tramp.h). Calls kstats_tramp_begin() and
 * kstats_tramp_end() only, in the same module.
 *
 * kstats mechanism "direct": KSTATS_DIRECT_MAX trampolines, each reached
 * by an ftrace direct call from the fentry site of one traced function
 * (kstats_tramp_slots.c hands them out, to kstats_direct.c). On entry
 * the stack holds the return address into FUNC's body (just after its
 * fentry call) and above it the return address into FUNC's caller.
 *
 * A trampoline first looks at its entry's active flag: stopped, it
 * returns into FUNC's body at once. Otherwise it saves the six argument
 * registers in the call's record (struct kstats_tramp_call, in its
 * frame), asks kstats_tramp_begin() whether to measure (the entry may
 * have stopped or gone since, or kstats.ko unhooked), and if not returns
 * into FUNC's body as if nothing had happened. Otherwise it calls the
 * body with the argument registers restored, keeps rax:rdx, hands the
 * call's record and the return value to kstats_tramp_end() and returns
 * to FUNC's caller. The body is entered by a return (push; RET,
 * kstats_direct_enter): it is not an indirect branch target (no ENDBR
 * there), and a return needs none. Arguments passed on the stack would
 * be seen at the wrong offset by the body: kstats_btf.c refuses such
 * functions before a trampoline is used.
 *
 * Other caller-saved registers (r10, r11) are clobbered as by any ftrace
 * callback reached from an fentry site; rax carries no argument once
 * variadic functions are refused.
 *
 * The frame is a plain rbp frame that objtool describes in ORC, so a
 * stack trace from FUNC shows FUNC, the trampoline, FUNC's fentry site
 * (unwound as the function entry it is) and then FUNC's caller.
 */
#include <linux/cfi_types.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include "kstats_tramp.h"
#include "kstats_tramp_tables.S"

/*
 * Frame below rbp: the call's record, struct kstats_tramp_call (start
 * time, the six argument registers, key), at rsp.
 */
#define KSTATS_FRAME	64
#define KSTATS_CALL	-KSTATS_FRAME
#define KSTATS_T0	(KSTATS_CALL + KSTATS_TRAMP_CALL_T0)
#define KSTATS_REG(i)	(KSTATS_CALL + KSTATS_TRAMP_CALL_REGS + 8 * (i))
#define KSTATS_KEY	(KSTATS_CALL + KSTATS_TRAMP_CALL_KEY)

.set kstats_direct_tramps, 0

/*
 * Typed: the trampolines' addresses are taken (kstats_direct_tramp_table),
 * so they begin with ENDBR, which SYM_FUNC_START() no longer adds since
 * 6.15 ("x86/cfi: Clean up linkage"); SYM_TYPED_FUNC_START() has on every
 * kernel kstats builds on.
 */
.macro KSTATS_DIRECT_TRAMP n
.set kstats_direct_tramps, kstats_direct_tramps + 1
SYM_TYPED_FUNC_START(kstats_direct_tramp_\n)
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || defined(CONFIG_CALL_DEPTH_TRACKING)
	/*
	 * The fentry site called here without the call depth accounting:
	 * both ways out below end in a RET.
	 */
	CALL_DEPTH_ACCOUNT
#endif
	/* Stopped or not enabled: straight into FUNC's body, no frame. */
	movq kstats_direct_active + 8 * \n(%rip), %rax
	cmpb $0, (%rax)
	jne .Lrun_\n
	RET
.Lrun_\n:
	pushq %rbp
	movq %rsp, %rbp
	subq $KSTATS_FRAME, %rsp
	movq %rdi, KSTATS_REG(0)(%rbp)
	movq %rsi, KSTATS_REG(1)(%rbp)
	movq %rdx, KSTATS_REG(2)(%rbp)
	movq %rcx, KSTATS_REG(3)(%rbp)
	movq %r8, KSTATS_REG(4)(%rbp)
	movq %r9, KSTATS_REG(5)(%rbp)
	movq $0, KSTATS_KEY(%rbp)
	movl $\n, %edi
	movq %rsp, %rsi
	call kstats_tramp_begin
	movq %rax, KSTATS_T0(%rbp)
	movq KSTATS_REG(0)(%rbp), %rdi
	movq KSTATS_REG(1)(%rbp), %rsi
	movq KSTATS_REG(2)(%rbp), %rdx
	movq KSTATS_REG(3)(%rbp), %rcx
	movq KSTATS_REG(4)(%rbp), %r8
	movq KSTATS_REG(5)(%rbp), %r9
	testq %rax, %rax
	jz .Lbody_\n
	/* Into FUNC's body, after its fentry call; rax is no argument. */
	movq 8(%rbp), %rax
	call kstats_direct_enter
.Lret_\n:
	/* FUNC returned: rax:rdx hold its return value. */
	movq %rax, KSTATS_REG(0)(%rbp)
	movq %rdx, KSTATS_REG(1)(%rbp)
	movq %rax, %rdx
	movl $\n, %edi
	movq %rsp, %rsi
	call kstats_tramp_end
	movq KSTATS_REG(0)(%rbp), %rax
	movq KSTATS_REG(1)(%rbp), %rdx
	leave
	/* Drop the return address into the body: back to FUNC's caller. */
	addq $8, %rsp
	UNWIND_HINT_FUNC
	RET
.Lbody_\n:
	/* Not measured: into the body with the stack FUNC was entered with. */
	leave
	RET
SYM_FUNC_END(kstats_direct_tramp_\n)
.endm

	.text
/*
 * Jump to rax, keeping the return address into the trampoline as the
 * return address of the code there: so FUNC's body returns to it.
 */
SYM_FUNC_START_LOCAL(kstats_direct_enter)
	pushq %rax
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(kstats_direct_enter)

	KSTATS_DIRECT_TRAMPS
