// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. Calls the outliers' store (kstats_outliers.c).
 *
 * /sys/kernel/debug/kstats/_outliers/NAME, for an entry traced with
 * "outliers N": its N largest samples since the last reset, largest
 * first, each as one line
 *   outlier I value V time S.NNNNNNNNN mono NS cpu C pid P tid T comm NAME [key K]
 * then its kernel stack, innermost first, one line per frame:
 *   outlier I stack SYMBOL+OFFSET/SIZE [MODULE]
 * (the frames of kstats itself left out; "?" for a frame without a
 * symbol). time is CLOCK_REALTIME, mono CLOCK_MONOTONIC in ns.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "kstats_internal.h"
#include "kstats_keys.h"
#include "kstats_outliers.h"
#include "kstats_probe.h"
#include "kstats_stack.h"

/* The _outliers directory holds no entries: names starting with '_' are none. */
#define KSTATS_OUTLIERS_DIR	"_outliers"

/*
 * A frame as %pS writes it; "?" where no symbol is (ftrace's
 * trampolines): never an address.
 */
static void kstats_outlier_frame(struct seq_file *m, unsigned int i,
				 unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	seq_printf(m, "outlier %u stack %s\n", i,
		   str_has_prefix(sym, "0x") ? "?" : sym);
}

static void kstats_outlier_print(struct seq_file *m, const struct kstats_probe *p,
				 const struct kstats_outlier *o, unsigned int i)
{
	unsigned int f;
	u32 ns;
	u64 s = div_u64_rem(o->time, NSEC_PER_SEC, &ns);

	seq_printf(m, "outlier %u value %llu time %llu.%09u mono %llu cpu %u pid %d tid %d comm ",
		   i, o->value, s, ns, o->mono, o->cpu, o->pid, o->tid);
	kstats_print_comm(m, o->comm, sizeof(o->comm));
	if (p->keys) {
		seq_puts(m, " key ");
		kstats_keys_print(m, p->keys, o->key);
	}
	seq_putc(m, '\n');
	/* A user function's caller: an address of its process, no symbol. */
	if (p->outliers->user) {
		if (o->nr_stack)
			seq_printf(m, "outlier %u stack user 0x%lx\n", i,
				   o->stack[0]);
		return;
	}
	for (f = kstats_stack_first(o->stack, o->nr_stack); f < o->nr_stack; f++)
		kstats_outlier_frame(m, i, o->stack[f]);
}

static int kstats_outliers_seq_show(struct seq_file *m, void *v)
{
	const struct kstats *ks = m->private;
	const struct kstats_probe *p = ks->probe;
	unsigned int room = p->outliers->max * num_possible_cpus();
	struct kstats_outlier *o;
	int i, n;

	o = kvmalloc_array(room, sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	n = kstats_outliers_copy(p->outliers, o, room);
	for (i = 0; i < n; i++)
		kstats_outlier_print(m, p, &o[i], i + 1);
	kvfree(o);
	return n < 0 ? n : 0;
}

static int kstats_outliers_open(struct inode *inode, struct file *file)
{
	int ret = kstats_may_see_tasks(file, "_outliers") ?:
		  kstats_may_show_values(inode->i_private, "_outliers/");

	return ret ?: single_open(file, kstats_outliers_seq_show, inode->i_private);
}

static const struct file_operations kstats_outliers_fops = {
	.owner = THIS_MODULE,
	.open = kstats_outliers_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

struct dentry *kstats_outliers_fs_init(struct dentry *root)
{
	return debugfs_create_dir(KSTATS_OUTLIERS_DIR, root);
}

int kstats_outliers_fs_add(struct dentry *dir, struct kstats *ks)
{
	struct dentry *d;

	if (!ks->probe->outliers)
		return 0;
	d = debugfs_create_file(ks->name, 0400, dir, ks, &kstats_outliers_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	ks->outliers_dentry = d;
	return 0;
}
