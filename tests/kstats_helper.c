// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only helper: drives the kstats kernel API from shell tests.
 *
 * Commands written to /sys/kernel/debug/kstats_helper/cmd, one per write:
 *   new NAME BITS            kstats_new(NAME, BITS)
 *   record NAME VALUE COUNT  kstats_record(NAME, VALUE) COUNT times
 *   start|stop|reset NAME    kstats_start/stop/reset(NAME)
 *   delete NAME              kstats_delete(NAME)
 * A failing kernel call returns its errno to write(2).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "../kstats.h"

#define HELPER_MAX_ENTRIES	32
#define HELPER_CMD_MAX		256

struct helper_entry {
	char name[128];
	struct kstats *ks;
};

static struct helper_entry entries[HELPER_MAX_ENTRIES];
static DEFINE_MUTEX(helper_mutex);
static struct dentry *helper_dir;

static struct helper_entry *helper_find(const char *name)
{
	int i;

	for (i = 0; i < HELPER_MAX_ENTRIES; i++)
		if (entries[i].ks && !strcmp(entries[i].name, name))
			return &entries[i];
	return NULL;
}

static int helper_new(const char *name, unsigned int bits)
{
	struct kstats *ks;
	int i;

	for (i = 0; i < HELPER_MAX_ENTRIES && entries[i].ks; i++)
		;
	if (i == HELPER_MAX_ENTRIES)
		return -ENOSPC;
	/* Out-of-range bits must reach kstats_new() unclipped. */
	if (bits > U8_MAX)
		return -ERANGE;
	ks = kstats_new(name, bits);
	if (IS_ERR(ks))
		return PTR_ERR(ks);
	strscpy(entries[i].name, name, sizeof(entries[i].name));
	entries[i].ks = ks;
	return 0;
}

static int helper_run(char *buf)
{
	char cmd[16], name[128];
	unsigned long long a = 0, b = 0;
	struct helper_entry *e;
	int n;

	n = sscanf(buf, "%15s %127s %llu %llu", cmd, name, &a, &b);
	if (n < 2)
		return -EINVAL;
	if (!strcmp(cmd, "new"))
		return n == 3 ? helper_new(name, a) : -EINVAL;

	e = helper_find(name);
	if (!e)
		return -ENOENT;
	if (!strcmp(cmd, "record") && n == 4) {
		while (b--) {
			kstats_record(e->ks, a);
			cond_resched();
		}
	} else if (!strcmp(cmd, "start") && n == 2) {
		kstats_start(e->ks);
	} else if (!strcmp(cmd, "stop") && n == 2) {
		kstats_stop(e->ks);
	} else if (!strcmp(cmd, "reset") && n == 2) {
		kstats_reset(e->ks);
	} else if (!strcmp(cmd, "delete") && n == 2) {
		kstats_delete(e->ks);
		e->ks = NULL;
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t helper_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char *buf;
	int ret;

	if (count >= HELPER_CMD_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&helper_mutex);
	ret = helper_run(buf);
	mutex_unlock(&helper_mutex);
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations helper_fops = {
	.owner = THIS_MODULE,
	.write = helper_write,
};

static int __init helper_init(void)
{
	helper_dir = debugfs_create_dir("kstats_helper", NULL);
	if (IS_ERR(helper_dir))
		return PTR_ERR(helper_dir);
	debugfs_create_file("cmd", 0200, helper_dir, NULL, &helper_fops);
	return 0;
}

static void __exit helper_exit(void)
{
	int i;

	debugfs_remove(helper_dir);
	for (i = 0; i < HELPER_MAX_ENTRIES; i++)
		kstats_delete(entries[i].ks);
}

module_init(helper_init);
module_exit(helper_exit);
MODULE_DESCRIPTION("kstats test helper: drives the kernel API from shell");
MODULE_LICENSE("GPL");
