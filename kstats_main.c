// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: top. Module init and exit: the layers start bottom up, each
 * ready before the one that calls it, and stop top down. The front end
 * (debugfs) starts last, so no command arrives before the layers below
 * it are up; module exit removes the entries of _control before the
 * notifiers go, then the leaked entries of kernel code, then debugfs.
 */
#include <linux/init.h>
#include <linux/module.h>
#include "kstats_btf.h"
#include "kstats_internal.h"
#include "kstats_probe.h"

static int __init kstats_init(void)
{
	int ret;

	kstats_core_init();
	ret = kstats_task_init();
	if (ret)
		return ret;
	ret = kstats_btf_init();
	if (ret)
		return ret;
	ret = kstats_control_init();
	if (ret)
		goto fail_btf;
	ret = kstats_fs_init();
	if (ret)
		goto fail_control;
	ret = kstats_dev_init();
	if (ret)
		goto fail_fs;
	return 0;
fail_fs:
	kstats_fs_exit();
fail_control:
	kstats_control_exit();
fail_btf:
	kstats_btf_exit();
	return ret;
}

static void __exit kstats_exit(void)
{
	kstats_dev_exit();
	kstats_control_exit();
	kstats_btf_exit();
	kstats_core_exit();
	kstats_fs_exit();
}

module_init(kstats_init);
module_exit(kstats_exit);
MODULE_DESCRIPTION("Per-CPU log-linear histograms of kernel code runtimes");
MODULE_AUTHOR("The kstats developers");
MODULE_LICENSE("GPL");
