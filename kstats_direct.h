/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: mechanisms.
 *
 * kstats mechanism "direct": the trampolines of kstats_direct_tramp.S and
 * the C functions they call, kstats_direct.c.
 */
#ifndef _KSTATS_DIRECT_H
#define _KSTATS_DIRECT_H

/*
 * Trampolines are static module text, one per direct entry: at most this
 * many direct entries exist at once, counting removed ones whose calls
 * are still in flight (see kstats_direct.c). Past it, ENOSPC.
 */
#define KSTATS_DIRECT_MAX	16

#ifndef __ASSEMBLY__
#include <linux/types.h>

/*
 * Per slot, the active flag of its entry (struct kstats), or a false one:
 * read by the trampoline before anything else.
 */
extern const bool *kstats_direct_active[KSTATS_DIRECT_MAX];

/* Address of the trampoline of each slot, kstats_direct_tramp.S. */
extern const unsigned long kstats_direct_tramp_table[KSTATS_DIRECT_MAX];

/*
 * Called by trampoline @slot at FUNC's entry: the call's start time
 * (never 0 once modules load, see kstats_now()) to measure it, or 0 to
 * go straight into FUNC.
 */
u64 kstats_direct_begin(unsigned int slot);
/* Called by trampoline @slot when a measured call of FUNC returned. */
void kstats_direct_end(unsigned int slot, u64 t0);

/*
 * Whether every argument of @func (in module @mod, or vmlinux if NULL)
 * travels in a register, from BTF: 0, or -EOPNOTSUPP with the reason in
 * @why. kstats_btf.c.
 */
int kstats_btf_regs_only(const char *func, const char *mod, char *why,
			 size_t len);
#endif

#endif /* _KSTATS_DIRECT_H */
