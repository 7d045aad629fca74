/* SPDX-License-Identifier: GPL-2.0 */
/* kstats_cycles.h on x86-64: the TSC. */
#ifndef _KSTATS_CYCLES_X86_H
#define _KSTATS_CYCLES_X86_H

#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#define KSTATS_HAVE_CYCLES
#define KSTATS_CYCLES_NAME	"tsc"
#define KSTATS_CYCLES_UNUSABLE	"this kernel has marked its TSC unstable, or has none"

static __always_inline u64 kstats_cycles(void)
{
	return rdtsc_ordered();
}

/*
 * The kernel found the TSCs in step when it brought the CPUs up, and has
 * not marked the TSC unstable since (which it does when they drift apart,
 * stop in idle or change rate).
 */
static inline bool kstats_cycles_usable(void)
{
	return boot_cpu_has(X86_FEATURE_TSC) && tsc_khz && !check_tsc_unstable();
}

/* Once marked unstable, TSCs of two CPUs may disagree. */
static __always_inline bool kstats_cycles_unstable(void)
{
	return check_tsc_unstable();
}

static inline unsigned int kstats_cycles_khz(void)
{
	return tsc_khz;
}

#endif /* _KSTATS_CYCLES_X86_H */
