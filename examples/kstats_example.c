// SPDX-License-Identifier: GPL-2.0
/*
 * kstats example: a module that instruments its own code.
 *
 * It times a memset() of a buffer whose size cycles through powers of two
 * from 64 bytes to 64 KiB, and records each runtime in nanoseconds into
 * the entry "example_memset". Loading it runs @loops iterations; writing
 * a number N into /sys/kernel/debug/kstats_example/run runs N more.
 *
 *   insmod kstats_example.ko loops=20000
 *   grep CPUS /sys/kernel/debug/kstats/example_memset
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "../kstats.h"

#define EXAMPLE_BUF_SIZE	SZ_64K

static unsigned int loops = 10000;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "iterations to run at load time");

static struct kstats *example_ks;
static struct dentry *example_dir;
static void *example_buf;

static void example_run(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t size = 64 << (i % 11);	/* 64 B .. 64 KiB */
		u64 t0 = ktime_get_ns();

		memset(example_buf, i, size);
		kstats_record(example_ks, ktime_get_ns() - t0);
		cond_resched();
	}
}

static ssize_t example_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	example_run(n);
	return count;
}

static const struct file_operations example_fops = {
	.owner = THIS_MODULE,
	.write = example_write,
};

static int __init example_init(void)
{
	example_buf = kmalloc(EXAMPLE_BUF_SIZE, GFP_KERNEL);
	if (!example_buf)
		return -ENOMEM;
	example_ks = kstats_new("example_memset", 4);
	if (IS_ERR(example_ks)) {
		kfree(example_buf);
		return PTR_ERR(example_ks);
	}
	example_dir = debugfs_create_dir("kstats_example", NULL);
	debugfs_create_file("run", 0200, example_dir, NULL, &example_fops);
	example_run(loops);
	return 0;
}

static void __exit example_exit(void)
{
	debugfs_remove(example_dir);
	kstats_delete(example_ks);
	kfree(example_buf);
}

module_init(example_init);
module_exit(example_exit);
MODULE_DESCRIPTION("kstats example: time memset() with kstats_record()");
MODULE_LICENSE("GPL");
