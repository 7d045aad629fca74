/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_tramp.ko: the trampolines of kstats mechanism "direct", in a
 * module of their own (kstats_tramp_slots.c, kstats_tramp_ARCH.S and
 * kstats_tramp_stack_ARCH.c for x86 and arm64).
 *
 * A call that entered FUNC through a trampoline returns into it, however
 * long it sleeps: the trampolines' text must stay until the last such
 * call has returned, or its task has died. Kept out of kstats.ko, it lets
 * kstats.ko unload (and load again) while calls still sleep there: once
 * kstats.ko has unhooked, a trampoline's return path calls nothing
 * outside this module. This module stays loaded, holding a reference on
 * itself, while any slot is in use or draining.
 *
 * kstats.ko (kstats_direct.c) is its one user: it hooks its begin and end
 * functions, takes a slot per direct entry, points ftrace's direct call
 * at the slot's trampoline, and puts the slot back when the entry goes.
 */
#ifndef _KSTATS_TRAMP_H
#define _KSTATS_TRAMP_H

/*
 * Trampolines are static module text, one per direct entry: at most this
 * many direct entries exist at once, counting removed ones whose calls
 * are still in flight. Past it, ENOSPC.
 */
#define KSTATS_DIRECT_MAX	16

/*
 * A trampoline's record of one call, in its frame (struct
 * kstats_tramp_call): byte offsets, for the trampolines. The registers
 * saved at FUNC's entry: x86-64 the six argument registers, arm64 x0-x7
 * and x8 (the address of a returned structure). The key follows them,
 * so that arm64's trampoline clears it in the store of the last one.
 */
#ifdef CONFIG_ARM64
#define KSTATS_TRAMP_REGS	9
#else
#define KSTATS_TRAMP_REGS	6
#endif
#define KSTATS_TRAMP_CALL_T0	0
#define KSTATS_TRAMP_CALL_REGS	8
#define KSTATS_TRAMP_CALL_KEY	(KSTATS_TRAMP_CALL_REGS + 8 * KSTATS_TRAMP_REGS)

/* The hooks (struct kstats_tramp_hooks), for arm64's trampolines. */
#define KSTATS_TRAMP_HOOK_BEGIN	0
#define KSTATS_TRAMP_HOOK_END	8

#ifndef __ASSEMBLY__
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "kstats_pcpu.h"

/**
 * struct kstats_tramp_call - one call through a trampoline, in its frame
 * @t0: the start time @begin returned
 * @regs: FUNC's argument registers at its entry, argument N in
 *	@regs[N - 1]
 * @key: 0 when @begin is called; whatever @begin keeps for @end
 *	(kstats.ko: by argN's key, or how the call ends)
 */
struct kstats_tramp_call {
	u64 t0;
	unsigned long regs[KSTATS_TRAMP_REGS];
	u64 key;
};

/**
 * struct kstats_tramp_hooks - what a trampoline calls in kstats.ko
 * @begin: at FUNC's entry: the start time, or 0 to run FUNC unmeasured
 *	(and no @end follows). May run in any context, preemptible too.
 *	It may write @c->key, which it finds 0. A call it measures it counts in, with
 *	kstats_tramp_count_in().
 * @end: when a measured call returns @ret, with @c as @begin left it
 *	and @c->t0 its start time. It counts the call out, with
 *	kstats_tramp_count_out(), last.
 *
 * The trampolines reach the hooks directly (arm64) or through a tail
 * call each (x86-64): counting in the hooks spares each call a frame of
 * this module. @slot is a register's width: no hook extends it.
 */
struct kstats_tramp_hooks {
	u64 (*begin)(unsigned long slot, struct kstats_tramp_call *c);
	void (*end)(unsigned long slot, const struct kstats_tramp_call *c,
		    unsigned long ret);
};

/*
 * Per slot, the active flag of its entry, or a false one: read by the
 * trampoline before anything else. Written by kstats.ko.
 */
extern const bool *kstats_direct_active[KSTATS_DIRECT_MAX];

int kstats_tramp_hook(const struct kstats_tramp_hooks *hooks);
void kstats_tramp_unhook(void);
int kstats_tramp_get(unsigned int *draining);
void kstats_tramp_put(unsigned int slot);
unsigned long kstats_tramp_addr(unsigned int slot);
long kstats_tramp_in_flight(unsigned int slot);
void kstats_tramp_set_active(unsigned int slot, const bool *active);
bool kstats_tramp_text(unsigned long addr);
bool kstats_tramp_ret(unsigned long addr);

/* kstats_tramp_ARCH.S: the trampolines' addresses, by slot. */
extern const unsigned long kstats_direct_tramp_table[KSTATS_DIRECT_MAX];
/*
 * Offset in each trampoline of the return address of FUNC's body: on the
 * stack of every task with a measured call in flight there.
 */
extern const u32 kstats_direct_ret_offset[KSTATS_DIRECT_MAX];
/*
 * kstats_tramp_stack_ARCH.c: each return address on the current task's
 * stack to @found, from the innermost frame out.
 */
void kstats_tramp_walk_current(void (*found)(unsigned long addr));

/*
 * Whether that walk finds exactly the frames on the stack: ORC or frame
 * pointers on x86-64, arm64's frame records. x86-64's guess unwinder
 * also reports stale words of calls that already returned: counted out
 * too, they would let this module go while a call still sleeps in FUNC.
 */
static inline bool kstats_tramp_unwinder_exact(void)
{
#ifdef KSTATS_TEST_UNWINDER_GUESS
	/* A test build, as on a kernel that guesses (tests/variant/). */
	return false;
#endif
	return IS_ENABLED(CONFIG_ARM64) || IS_ENABLED(CONFIG_UNWINDER_ORC) ||
	       IS_ENABLED(CONFIG_UNWINDER_FRAME_POINTER);
}

/*
 * The calls in flight in each slot, per CPU (a call may end on another
 * CPU than it began; only the sum means something); those of a CPU's
 * idle task apart, on its own CPU, as it never migrates.
 */
DECLARE_PER_CPU(long[KSTATS_DIRECT_MAX], kstats_tramp_inflight);
DECLARE_PER_CPU(long[KSTATS_DIRECT_MAX], kstats_tramp_idle_inflight);

/* The count of a call known not to be the idle task's, in and out. */
static __always_inline void kstats_tramp_count_in_task(unsigned long slot)
{
	kstats_this_cpu_add(kstats_tramp_inflight[slot], 1);
}

static __always_inline void kstats_tramp_count_out_task(unsigned long slot)
{
	kstats_this_cpu_add(kstats_tramp_inflight[slot], -1);
}

static __always_inline void kstats_tramp_count_in(unsigned long slot)
{
	if (unlikely(is_idle_task(current)))
		this_cpu_inc(kstats_tramp_idle_inflight[slot]);
	else
		kstats_tramp_count_in_task(slot);
}

static __always_inline void kstats_tramp_count_out(unsigned long slot)
{
	if (unlikely(is_idle_task(current)))
		this_cpu_dec(kstats_tramp_idle_inflight[slot]);
	else
		kstats_tramp_count_out_task(slot);
}

/*
 * The hooks in use: kstats.ko's, or this module's stubs once it has
 * unhooked. x86-64's trampolines call them through kstats_tramp_begin()
 * and kstats_tramp_end(), tail calls; arm64's load them and call them
 * themselves, as a function there keeps its frame and calls, not jumps.
 */
extern const struct kstats_tramp_hooks *kstats_tramp_hooks;
#ifndef CONFIG_ARM64
u64 kstats_tramp_begin(unsigned long slot, struct kstats_tramp_call *c);
void kstats_tramp_end(unsigned long slot, const struct kstats_tramp_call *c,
		      unsigned long ret);
#endif
#endif

#endif /* _KSTATS_TRAMP_H */
