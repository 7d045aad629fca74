// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the probe effect for "make bench": the same mechanisms
 * that kstats uses or could use, with empty handlers, so the bench can
 * subtract what the mechanism costs from what kstats adds on top.
 *
 *   echo 'MECH TARGET' > /sys/kernel/debug/kstats_floor/attach
 *   echo off > /sys/kernel/debug/kstats_floor/attach
 *
 * MECH: kprobe, kretprobe, fprobe, fprobe-entry (entry handler only),
 * ftrace (a plain ftrace_ops callback), direct (an ftrace direct call to a
 * trampoline that returns at once), tracepoint (TARGET is a tracepoint
 * name). One attachment at a time; a kernel without the mechanism gives
 * EOPNOTSUPP.
 */
#include <linux/debugfs.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/linkage.h>
#ifdef CONFIG_X86_64
#include <asm/ibt.h>
#endif
#include "../kstats_compat.h"

enum floor_mech {
	FLOOR_OFF, FLOOR_KPROBE, FLOOR_KRETPROBE, FLOOR_FPROBE,
	FLOOR_FPROBE_ENTRY, FLOOR_FTRACE, FLOOR_DIRECT, FLOOR_TRACEPOINT,
};

static const char * const floor_names[] = {
	"off", "kprobe", "kretprobe", "fprobe", "fprobe-entry", "ftrace",
	"direct", "tracepoint",
};

static DEFINE_MUTEX(floor_mutex);
static enum floor_mech floor_cur;
static struct dentry *floor_dir;

static int floor_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static int floor_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int floor_kret_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe floor_kp;
static struct kretprobe floor_krp;

#ifdef KSTATS_HAVE_FPROBE
static int floor_fprobe_entry(struct fprobe *fp, unsigned long ip,
			      unsigned long ret_ip, struct kstats_fp_regs *regs,
			      void *data)
{
	return 0;
}

static void floor_fprobe_exit(struct fprobe *fp, unsigned long ip,
			      unsigned long ret_ip, struct kstats_fp_regs *regs,
			      void *data)
{
}

static struct fprobe floor_fp;
#endif

static void floor_ftrace_cb(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

/*
 * ftrace_free_filter() leaves the ops pointing at the hashes it freed:
 * each attachment starts from a zeroed ops, which ftrace initialises anew.
 */
static struct ftrace_ops floor_ops;

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/*
 * Reached by a call from the traced function's fentry site instead of
 * __fentry__: returns straight into the function, the least a direct
 * call can do. x86-64: ENDBR, its address is taken (IBT kernels). arm64:
 * x9 holds the return address into the caller, x30 the one into the
 * function's body; BTI C (hint 34), for ftrace's indirect branch here.
 */
void kstats_floor_tramp(void);
asm(".pushsection .text, \"ax\"\n"
	    ".globl kstats_floor_tramp\n"
	    ".type kstats_floor_tramp, %function\n"
	    "kstats_floor_tramp:\n"
#ifdef CONFIG_X86_64
	    ASM_ENDBR
	    ASM_RET
#else
	    "hint 34\n"
	    "mov x10, x30\n"
	    "mov x30, x9\n"
	    "ret x10\n"
#endif
	    ".size kstats_floor_tramp, .-kstats_floor_tramp\n"
	    ".popsection\n");

#ifdef KSTATS_FLOOR_DIRECT_OPS	/* 6.5 on: the ftrace_ops-based API */
static struct ftrace_ops floor_direct_ops;

static int floor_direct_on(unsigned long ip)
{
	int ret;

	memset(&floor_direct_ops, 0, sizeof(floor_direct_ops));
	ret = ftrace_set_filter_ip(&floor_direct_ops, ip, 0, 0);
	if (!ret)
		ret = register_ftrace_direct(&floor_direct_ops,
					     (unsigned long)kstats_floor_tramp);
	if (ret)
		ftrace_free_filter(&floor_direct_ops);
	return ret;
}

static void floor_direct_off(void)
{
	unregister_ftrace_direct(&floor_direct_ops,
				 (unsigned long)kstats_floor_tramp, true);
}
#else
static unsigned long floor_direct_ip;

static int floor_direct_on(unsigned long ip)
{
	int ret = register_ftrace_direct(ip, (unsigned long)kstats_floor_tramp);

	if (!ret)
		floor_direct_ip = ip;
	return ret;
}

static void floor_direct_off(void)
{
	unregister_ftrace_direct(floor_direct_ip,
				 (unsigned long)kstats_floor_tramp);
}
#endif
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS */

/* Tracepoint probes get (data, args...); empty ones ignore them all. */
static void floor_tp_probe(void *data)
{
}

static struct tracepoint *floor_tp;

static void floor_find_tp(struct tracepoint *tp, void *name)
{
	if (!strcmp(tp->name, name))
		floor_tp = tp;
}

/* The address of FUNC, through a kprobe (kallsyms_lookup_name is not exported). */
static unsigned long floor_addr(const char *func)
{
	struct kprobe kp = { .symbol_name = func };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

static int floor_attach(enum floor_mech m, const char *target)
{
	unsigned long addr;
	int ret;

	switch (m) {
	case FLOOR_KPROBE:
		memset(&floor_kp, 0, sizeof(floor_kp));
		floor_kp.symbol_name = target;
		floor_kp.pre_handler = floor_kprobe_pre;
		return register_kprobe(&floor_kp);
	case FLOOR_KRETPROBE:
		memset(&floor_krp, 0, sizeof(floor_krp));
		floor_krp.kp.symbol_name = target;
		floor_krp.entry_handler = floor_kret_entry;
		floor_krp.handler = floor_kret_ret;
		floor_krp.data_size = sizeof(u64);
		floor_krp.maxactive = 20;
		return register_kretprobe(&floor_krp);
#ifdef KSTATS_HAVE_FPROBE
	case FLOOR_FPROBE:
	case FLOOR_FPROBE_ENTRY:
		memset(&floor_fp, 0, sizeof(floor_fp));
		floor_fp.entry_handler = floor_fprobe_entry;
		if (m == FLOOR_FPROBE) {
			floor_fp.exit_handler = floor_fprobe_exit;
			floor_fp.entry_data_size = sizeof(u64);
		}
		return register_fprobe(&floor_fp, target, NULL);
#endif
	case FLOOR_FTRACE:
		memset(&floor_ops, 0, sizeof(floor_ops));
		floor_ops.func = floor_ftrace_cb;
		ret = ftrace_set_filter(&floor_ops, (unsigned char *)target,
					strlen(target), 1);
		if (!ret)
			ret = register_ftrace_function(&floor_ops);
		if (ret)
			ftrace_free_filter(&floor_ops);
		return ret;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	case FLOOR_DIRECT:
		addr = floor_addr(target);
		return addr ? floor_direct_on(addr) : -ENOENT;
#endif
	case FLOOR_TRACEPOINT:
		floor_tp = NULL;
		for_each_kernel_tracepoint(floor_find_tp, (void *)target);
		if (!floor_tp)
			return -ENOENT;
		return tracepoint_probe_register(floor_tp, floor_tp_probe, NULL);
	default:
		return -EOPNOTSUPP;
	}
}

static void floor_detach(void)
{
	switch (floor_cur) {
	case FLOOR_KPROBE:
		unregister_kprobe(&floor_kp);
		break;
	case FLOOR_KRETPROBE:
		unregister_kretprobe(&floor_krp);
		break;
#ifdef KSTATS_HAVE_FPROBE
	case FLOOR_FPROBE:
	case FLOOR_FPROBE_ENTRY:
		unregister_fprobe(&floor_fp);
		break;
#endif
	case FLOOR_FTRACE:
		unregister_ftrace_function(&floor_ops);
		ftrace_free_filter(&floor_ops);
		break;
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	case FLOOR_DIRECT:
		floor_direct_off();
		break;
#endif
	case FLOOR_TRACEPOINT:
		tracepoint_probe_unregister(floor_tp, floor_tp_probe, NULL);
		tracepoint_synchronize_unregister();
		break;
	default:
		break;
	}
	floor_cur = FLOOR_OFF;
}

static ssize_t floor_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	static char target[KSYM_NAME_LEN];
	char buf[KSYM_NAME_LEN + 32], *arg, *p;
	enum floor_mech m;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = 0;
	p = strim(buf);
	arg = strsep(&p, " ");
	for (m = FLOOR_OFF; m <= FLOOR_TRACEPOINT; m++)
		if (!strcmp(arg, floor_names[m]))
			break;
	if (m > FLOOR_TRACEPOINT || (m != FLOOR_OFF && (!p || !*p)))
		return -EINVAL;
	mutex_lock(&floor_mutex);
	floor_detach();
	ret = 0;
	if (m != FLOOR_OFF) {
		strscpy(target, skip_spaces(p), sizeof(target));
		ret = floor_attach(m, target);
		if (!ret)
			floor_cur = m;
	}
	mutex_unlock(&floor_mutex);
	return ret ? ret : count;
}

static const struct file_operations floor_fops = {
	.owner = THIS_MODULE,
	.write = floor_write,
};

static int __init floor_init(void)
{
	floor_dir = debugfs_create_dir("kstats_floor", NULL);
	debugfs_create_file("attach", 0200, floor_dir, NULL, &floor_fops);
	return 0;
}

static void __exit floor_exit(void)
{
	debugfs_remove(floor_dir);
	mutex_lock(&floor_mutex);
	floor_detach();
	mutex_unlock(&floor_mutex);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_DESCRIPTION("kstats bench: mechanisms with empty handlers");
MODULE_LICENSE("GPL");
