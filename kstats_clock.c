// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * kstats clocks: the clock an entry reads ("clock mono|local|tsc", cntvct
 * for tsc on arm64, or the default) and the scale of raw cycle counter
 * readings (kstats_cycles.h). The handlers read them in kstats_handler.h.
 * See "Clock" in Documentation/kstats.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/clocksource.h>
#include <linux/module.h>
#include <linux/time64.h>
#include "kstats_handler.h"
#include "kstats_internal.h"
#include "kstats_probe.h"

#include "kstats_cycles.h"

#if defined(KSTATS_HAVE_CYCLES) && defined(CONFIG_X86_TSC)
bool kstats_tsc_marked __read_mostly;
#endif

/*
 * Whether raw cycle counter readings of two CPUs may be subtracted
 * (kstats_cycles.h). The handlers check each sample again.
 */
bool kstats_tsc_usable(void)
{
#ifdef KSTATS_HAVE_CYCLES
	kstats_cycles_refresh();
	return kstats_cycles_usable();
#else
	return false;
#endif
}

/* The cycle counter's scale, into @mult and @shift. */
void kstats_tsc_scale_now(u32 *mult, u32 *shift)
{
#ifdef KSTATS_HAVE_CYCLES
	kstats_tsc_scale(kstats_cycles_khz(), mult, shift);
#endif
}

/*
 * ns = cycles * mult >> shift for a TSC of @khz. The product is taken in
 * 128 bits (mul_u64_u32_shr()), so no range limits the shift: the
 * largest that keeps mult in 32 bits, for the finest scale.
 */
void kstats_tsc_scale(unsigned int khz, u32 *mult, u32 *shift)
{
	clocks_calc_mult_shift(mult, shift, khz, NSEC_PER_MSEC, 1);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_tsc_scale);

const char *kstats_clock_name(const struct kstats_probe *p)
{
	switch (p->clock) {
	case KSTATS_CLOCK_LOCAL:
		return "local";
	case KSTATS_CLOCK_TSC:
		return KSTATS_CYCLES_NAME;
	default:
		return "mono";
	}
}

/*
 * The clock of @p: the one asked for, else the cycle counter where it may
 * be used across CPUs, else mono. clock tsc where it may not: EOPNOTSUPP.
 */
int kstats_clock_pick(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	bool tsc = kstats_tsc_usable();

	/* A counter entry reads no clock: its differences are not scaled. */
	if (cmd->counter) {
		p->clock = KSTATS_CLOCK_MONO;
		return 0;
	}
	if (cmd->clock == KSTATS_CLOCK_TSC && !tsc)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "clock %s: %s", KSTATS_CYCLES_NAME,
				   KSTATS_CYCLES_UNUSABLE);
	p->clock = cmd->clock;
	if (p->clock == KSTATS_CLOCK_DEFAULT)
		p->clock = tsc ? KSTATS_CLOCK_TSC : KSTATS_CLOCK_MONO;
	if (p->clock == KSTATS_CLOCK_TSC)
		kstats_tsc_scale_now(&p->tsc_mult, &p->tsc_shift);
	return 0;
}
