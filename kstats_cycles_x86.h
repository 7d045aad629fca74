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

/* The start and the end of an interval: the same ordered read. */
static __always_inline u64 kstats_cycles_begin(void)
{
	return rdtsc_ordered();
}

static __always_inline u64 kstats_cycles_end(void)
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

/*
 * Once marked unstable, TSCs of two CPUs may disagree. The handlers read
 * kstats' copy of the mark, which calls nothing: kstats_cycles_refresh()
 * takes it from the kernel when an entry picks its clock and on each
 * call that kstats_timed_due() picks, one in 64 per CPU.
 */
extern bool kstats_tsc_marked;

static __always_inline bool kstats_cycles_unstable(void)
{
	return READ_ONCE(kstats_tsc_marked);
}

static inline void kstats_cycles_refresh(void)
{
	if (unlikely(check_tsc_unstable()))
		WRITE_ONCE(kstats_tsc_marked, true);
}

static inline unsigned int kstats_cycles_khz(void)
{
	return tsc_khz;
}

#endif /* _KSTATS_CYCLES_X86_H */
