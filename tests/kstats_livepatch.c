// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only livepatch: /proc/cmdline shows a fixed line instead of the
 * kernel's command line, so that tests/guest/87-coexist.sh can see that a
 * patch takes effect on a function kstats traces, in either order.
 */
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/seq_file.h>

static int kstats_lp_cmdline_show(struct seq_file *m, void *v)
{
	seq_puts(m, "kstats livepatch\n");
	return 0;
}

static struct klp_func kstats_lp_funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = kstats_lp_cmdline_show,
	}, { }
};

static struct klp_object kstats_lp_objs[] = {
	{
		/* NULL name: vmlinux */
		.funcs = kstats_lp_funcs,
	}, { }
};

static struct klp_patch kstats_lp_patch = {
	.mod = THIS_MODULE,
	.objs = kstats_lp_objs,
};

static int __init kstats_lp_init(void)
{
	return klp_enable_patch(&kstats_lp_patch);
}

static void __exit kstats_lp_exit(void)
{
}

module_init(kstats_lp_init);
module_exit(kstats_lp_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("kstats test: livepatch of cmdline_proc_show");
