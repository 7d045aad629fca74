// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: a module whose init waits, so that a trace can aim at its
 * init text while it initialises (tests/guest/63-probe-lifetime.sh).
 * Its init function sleeps until "go" is written 1, then calls
 * kstats_init_wait_fn(), in init text, freed once the module is live.
 */
#include <linux/delay.h>
#include <linux/module.h>

static bool go;
module_param(go, bool, 0644);
MODULE_PARM_DESC(go, "1: let the module's init go on and end");

static noinline __noclone int __init kstats_init_wait_fn(int x)
{
	return x + 1;
}

static int __init kstats_init_wait_init(void)
{
	while (!READ_ONCE(go))
		msleep(20);
	return kstats_init_wait_fn(go) == 2 ? 0 : -EINVAL;
}

static void __exit kstats_init_wait_exit(void)
{
}

module_init(kstats_init_wait_init);
module_exit(kstats_init_wait_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstats test: a module that waits in its init");
