// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. Calls the key table (kstats_keys.c) and the
 * snapshots of kstats_fs.c.
 *
 * /sys/kernel/debug/kstats/_keys/NAME, for an entry traced "by KEY": for
 * each key with samples, "key K min N max N", then the lines of the
 * entry's file for that key alone, each after "key K "; then the same
 * for the keys past N, after "other ". K is one word (kstats_keys_name()).
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "kstats_internal.h"
#include "kstats_keys.h"
#include "kstats_probe.h"

/* The _keys directory holds no entries: names starting with '_' are none. */
#define KSTATS_KEYS_DIR		"_keys"

struct kstats_key_at {
	const struct kstats_keys *t;
	unsigned int i;			/* its table position; ~0: other */
};

static void kstats_key_prefix(struct seq_file *m, const void *arg)
{
	const struct kstats_key_at *at = arg;

	if (at->i == ~0U) {
		seq_puts(m, "other ");
		return;
	}
	seq_puts(m, "key ");
	kstats_keys_name(m, at->t, at->i);
	seq_putc(m, ' ');
}

/* The lines of one key's histogram @h; -ENOMEM without a copy. */
static int kstats_key_show(struct seq_file *m, struct kstats *h,
			   const struct kstats_key_at *at)
{
	struct kstats_snapshot *snap = kstats_snapshot(h);
	u64 lo, hi;

	if (!snap)
		return -ENOMEM;
	if (!kstats_snapshot_empty(snap)) {
		kstats_key_prefix(m, at);
		if (kstats_extremes(h, &lo, &hi))
			seq_printf(m, "min %llu max %llu\n", lo, hi);
		else
			seq_puts(m, "min - max -\n");
		kstats_snapshot_show(m, snap, kstats_key_prefix, at);
	}
	kvfree(snap);
	return 0;
}

static int kstats_keys_seq_show(struct seq_file *m, void *v)
{
	const struct kstats *ks = m->private;
	const struct kstats_keys *t = ks->probe->keys;
	struct kstats_key_at at = { .t = t };
	struct kstats *h;
	int ret;

	for (at.i = 0; at.i < kstats_keys_size(t); at.i++) {
		h = kstats_keys_hist(t, at.i);
		if (!h)
			continue;
		ret = kstats_key_show(m, h, &at);
		if (ret)
			return ret;
		cond_resched();
	}
	at.i = ~0U;
	return kstats_key_show(m, kstats_keys_other(t), &at);
}

static int kstats_keys_open(struct inode *inode, struct file *file)
{
	int ret = kstats_may_see_tasks(file, "_keys") ?:
		  kstats_may_show_values(inode->i_private, "_keys/");

	return ret ?: single_open(file, kstats_keys_seq_show, inode->i_private);
}

static const struct file_operations kstats_keys_fops = {
	.owner = THIS_MODULE,
	.open = kstats_keys_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

struct dentry *kstats_keys_fs_init(struct dentry *root)
{
	return debugfs_create_dir(KSTATS_KEYS_DIR, root);
}

int kstats_keys_fs_add(struct dentry *dir, struct kstats *ks)
{
	struct dentry *d;

	if (!ks->probe->keys)
		return 0;
	d = debugfs_create_file(ks->name, 0400, dir, ks, &kstats_keys_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	ks->keys_dentry = d;
	return 0;
}
