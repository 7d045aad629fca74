// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. Calls kstats_command.c and the _control listing of
 * kstats_fs.c.
 *
 * /dev/kstats, a misc device of mode 0600: the _control of machines whose
 * kernel is locked down (Secure Boot), where debugfs refuses every open
 * for writing but a character device is not refused. Reads give the
 * _control listing; each write is one _control command. kstats itself
 * checks that the writer may trace, whatever the file's mode says
 * (kstats_may_command(), as for _control).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/seq_file.h>
#include "kstats_internal.h"

#define KSTATS_DEV_NAME	"/dev/kstats"

static ssize_t kstats_dev_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	int ret = kstats_may_command(file, KSTATS_DEV_NAME);

	return ret ?: kstats_command_write(ubuf, count, KSTATS_DEV_NAME);
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
