/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats_cycles.h on arm64: the generic timer's virtual counter,
 * CNTVCT_EL0, at the rate firmware sets in CNTFRQ_EL0. The architecture
 * keeps it in step across CPUs; a CPU whose timer needs one of the
 * kernel's errata workarounds (timer_unstable_counter_workaround, set as
 * it comes up) reads it through that workaround, and a raw read there
 * may be wrong: then it is not used.
 */
#ifndef _KSTATS_CYCLES_ARM64_H
#define _KSTATS_CYCLES_ARM64_H

#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <asm/arch_timer.h>

#define KSTATS_HAVE_CYCLES
#define KSTATS_CYCLES_NAME	"cntvct"
#define KSTATS_CYCLES_UNUSABLE	"no rate in CNTFRQ_EL0, or a CPU reads it through an erratum's workaround"

static __always_inline u64 kstats_cycles(void)
{
	return __arch_counter_get_cntvct();
}

/*
 * The start of an interval: what follows waits for the read (the kernel's
 * dependency on its value, arch_counter_enforce_ordering()), but the read
 * may run before what precedes it (no ISB), which only adds a few of the
 * trampoline's instructions to the interval.
 */
static __always_inline u64 kstats_cycles_begin(void)
{
	u64 cnt = read_sysreg(cntvct_el0);

	arch_counter_enforce_ordering(cnt);
	return cnt;
}

/*
 * The end of an interval: after every instruction before it (the ISB of
 * the read), but nothing after it needs to wait for it, so without the
 * dependency on the value.
 */
static __always_inline u64 kstats_cycles_end(void)
{
	return arch_timer_read_cntvct_el0();
}

static __always_inline bool kstats_cycles_unstable(void)
{
#ifdef CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND
	return raw_cpu_read(timer_unstable_counter_workaround);
#else
	return false;
#endif
}

/* The workaround is read per sample, inline: nothing to refresh. */
static inline void kstats_cycles_refresh(void)
{
}

static inline bool kstats_cycles_usable(void)
{
#ifdef CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND
	int cpu;

	for_each_possible_cpu(cpu)
		if (per_cpu(timer_unstable_counter_workaround, cpu))
			return false;
#endif
	return arch_timer_get_cntfrq() >= 1000;
}

static inline unsigned int kstats_cycles_khz(void)
{
	return arch_timer_get_cntfrq() / 1000;
}

#endif /* _KSTATS_CYCLES_ARM64_H */
