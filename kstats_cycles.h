/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers. The CPU's cycle counter that "clock tsc"
 * (x86-64) or "clock cntvct" (arm64) reads raw, scaled per sample: one
 * header per arch behind one interface.
 *
 *   KSTATS_HAVE_CYCLES         defined where there is one
 *   KSTATS_CYCLES_NAME         its name after "clock"
 *   KSTATS_CYCLES_UNUSABLE     why it may not be used, where it may not
 *   kstats_cycles()            an ordered read
 *   kstats_cycles_begin()      a read that what follows waits for, for
 *                              the start of an interval
 *   kstats_cycles_end()        a read ordered after what precedes it, for
 *                              the end of an interval
 *   kstats_cycles_usable()     whether readings of two CPUs may be
 *                              subtracted; checked when an entry picks it
 *   kstats_cycles_unstable()   whether this sample may not be used
 *   kstats_cycles_refresh()    takes a mark of the counter as unstable
 *                              from the kernel, where the handlers read
 *                              a copy of it
 *   kstats_cycles_khz()        its rate
 */
#ifndef _KSTATS_CYCLES_H
#define _KSTATS_CYCLES_H

#if defined(CONFIG_X86_TSC)
#include "kstats_cycles_x86.h"
#elif defined(CONFIG_ARM64) && defined(CONFIG_ARM_ARCH_TIMER)
#include "kstats_cycles_arm64.h"
#else
#define KSTATS_CYCLES_NAME	"tsc"
#define KSTATS_CYCLES_UNUSABLE	"this kernel has no cycle counter that kstats reads"
#endif

#endif /* _KSTATS_CYCLES_H */
