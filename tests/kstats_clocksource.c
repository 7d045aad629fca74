// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only clocksource "kstats_test": the cycle counter (the TSC, arm64's
 * CNTVCT: ../kstats_cycles.h), read through a traceable function of this
 * module that no list of kstats names. Made current
 * through sysfs, it puts kstats_test_cs_read() on the read path of every
 * clock of the kernel, so that tracing it shows whether kstats' handlers
 * survive a hook that their own clock read hits (tests/guest/86-safety.sh).
 */
#include <linux/clocksource.h>
#include <linux/compiler.h>
#include <linux/module.h>
#include "../kstats_cycles.h"

static noinline __noclone u64 kstats_test_cs_read(struct clocksource *cs)
{
	return kstats_cycles();
}

static struct clocksource kstats_test_cs = {
	.name = "kstats_test",
	/* Never picked by the kernel itself, only when asked through sysfs. */
	.rating = 1,
	.read = kstats_test_cs_read,
	.mask = CLOCKSOURCE_MASK(64),
	.flags = CLOCK_SOURCE_IS_CONTINUOUS | CLOCK_SOURCE_VALID_FOR_HRES,
};

static int __init kstats_test_cs_init(void)
{
	if (!kstats_cycles_khz())
		return -ENODEV;
	return clocksource_register_khz(&kstats_test_cs, kstats_cycles_khz());
}

static void __exit kstats_test_cs_exit(void)
{
	clocksource_unregister(&kstats_test_cs);
}

module_init(kstats_test_cs_init);
module_exit(kstats_test_cs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstats test: a clocksource read by a traceable function");
