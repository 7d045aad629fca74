// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only kprobe with a post_handler on the function named by "func":
 * at a function entry that ftrace serves, such a kprobe modifies the
 * return address of the fentry call (IPMODIFY), as a livepatch does.
 * "hits" counts the calls it saw (tests/guest/87-coexist.sh).
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static char *func = "vfs_read";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "function to probe (default vfs_read)");

static atomic_t kstats_kpp_hits = ATOMIC_INIT(0);

static int kstats_kpp_hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&kstats_kpp_hits));
}

static const struct kernel_param_ops kstats_kpp_hits_ops = {
	.get = kstats_kpp_hits_get,
};
module_param_cb(hits, &kstats_kpp_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "calls of func seen by the post_handler");

static int kstats_kpp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

static void kstats_kpp_post(struct kprobe *kp, struct pt_regs *regs,
			    unsigned long flags)
{
	atomic_inc(&kstats_kpp_hits);
}

static struct kprobe kstats_kpp = {
	.pre_handler = kstats_kpp_pre,
	.post_handler = kstats_kpp_post,
};

static int __init kstats_kpp_init(void)
{
	kstats_kpp.symbol_name = func;
	return register_kprobe(&kstats_kpp);
}

static void __exit kstats_kpp_exit(void)
{
	unregister_kprobe(&kstats_kpp);
}

module_init(kstats_kpp_init);
module_exit(kstats_kpp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstats test: a kprobe with a post_handler");
