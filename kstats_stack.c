// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the trampolines' module only.
 *
 * Which frames of a hit's stack are kstats' own (kstats_stack.h). Its
 * handlers' and the trampolines' frames sit atop the stack, and are
 * looked up in the module tables; below them, a frame of a call traced
 * by a direct trampoline is one of the trampolines' return addresses,
 * which a range check rules out for nearly every frame.
 */
#include <linux/module.h>
#include "kstats_compat.h"
#include "kstats_stack.h"
#ifdef KSTATS_HAVE_DIRECT
#include "kstats_tramp.h"
#endif

/*
 * Whether @addr is in kstats' own code: its handlers, and the direct
 * trampolines' text. Such frames sit atop every stack a hit takes.
 */
static notrace bool kstats_stack_own(unsigned long addr)
{
	if (within_module(addr, THIS_MODULE))
		return true;
#ifdef KSTATS_HAVE_DIRECT
	return kstats_tramp_text(addr);
#else
	return false;
#endif
}

/*
 * Whether frame @i of @ip is a direct trampoline's, where the traced
 * call's body returns, or the traced function's ftrace site under it
 * (FUNC's body runs inside the trampoline, and the trampoline returns
 * into that site: no caller).
 */
static __always_inline bool kstats_stack_traced(const unsigned long *ip,
						unsigned int i)
{
#ifdef KSTATS_HAVE_DIRECT
	return kstats_tramp_ret(ip[i]) || (i && kstats_tramp_ret(ip[i - 1]));
#else
	return false;
#endif
}

/* Frame @i of @ip: kstats' own, or the traced site under a trampoline. */
static bool kstats_stack_ours(const unsigned long *ip, unsigned int i)
{
#ifdef KSTATS_HAVE_DIRECT
	if (i && kstats_tramp_text(ip[i - 1]))
		return true;
#endif
	return kstats_stack_own(ip[i]);
}

notrace unsigned int kstats_stack_first(const unsigned long *ip,
					unsigned int n)
{
	unsigned int i = 0;

	while (i < n && kstats_stack_ours(ip, i))
		i++;
	return i;
}

/* The frames that kstats_stack_save() keeps, of the @n walked. */
notrace unsigned int kstats_stack_trim(unsigned long *ip, unsigned int max,
				       const unsigned long *stack,
				       unsigned int n, unsigned long to,
				       bool skip_own)
{
	unsigned int i = 0, k = 0;

	if (to) {
		while (i < n && stack[i] != to)
			i++;
		if (i == n)
			i = 0;
	}
	/* kstats' own frames are atop the stack only: they end at the first. */
	if (skip_own && !i)
		i = kstats_stack_first(stack, n);
	for (; i < n && k < max; i++)
		if (!skip_own || !kstats_stack_traced(stack, i))
			ip[k++] = stack[i];
	return k;
}
