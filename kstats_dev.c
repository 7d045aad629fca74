// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. Calls kstats_command.c and the _control listing of
 * kstats_fs.c.
 *
 * /dev/kstats, a misc device of mode 0600: the _control of machines whose
 * kernel is locked down (Secure Boot), where debugfs refuses every open
 * for writing but a character device is not refused. Reads give the
 * _control listing; each write is one _control command. kstats itself
 * checks that the writer may trace, whatever the file's mode says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/seq_file.h>
#include <linux/user_namespace.h>
#include "kstats_internal.h"

#define KSTATS_DEV_NAME	"/dev/kstats"

/*
 * As perf_event_open() asks of a system-wide profiler: CAP_PERFMON or
 * CAP_SYS_ADMIN in the initial user namespace, with the credentials that
 * opened the file (a descriptor passed to a less privileged task gives
 * it nothing more).
 */
static bool kstats_dev_may_write(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

static ssize_t kstats_dev_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	if (!kstats_dev_may_write(file)) {
		pr_warn_ratelimited("%s: command refused: needs CAP_PERFMON or CAP_SYS_ADMIN\n",
				    KSTATS_DEV_NAME);
		return -EPERM;
	}
	return kstats_command_write(ubuf, count, KSTATS_DEV_NAME);
}

/* misc_open() left the device in private_data, where seq_open() goes. */
static int kstats_dev_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return kstats_control_open(inode, file);
}

static const struct file_operations kstats_dev_fops = {
	.owner = THIS_MODULE,
	.open = kstats_dev_open,
	.read = seq_read,
	.write = kstats_dev_write,
	.llseek = seq_lseek,
	.release = seq_release,
};

static struct miscdevice kstats_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kstats",
	.fops = &kstats_dev_fops,
	.mode = 0600,
};

int kstats_dev_init(void)
{
	return misc_register(&kstats_dev);
}

void kstats_dev_exit(void)
{
	misc_deregister(&kstats_dev);
}
