// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: mechanisms. Calls the shared probe helpers (the task table, the
 * ELF lookup) and the record core.
 *
 * kstats mechanism "uprobe", for trace PATH:SYMBOL and trace PATH:0xOFFSET:
 * a uprobe consumer with an entry and a return handler on a function of
 * an ELF file, in every process that maps it. SYMBOL is looked up in the
 * file itself (kstats_elf.c). The start time waits in a task table, one
 * start per task (kstats_task.c, as for a pair keyed by task): a second
 * entry before the return, a recursive call, restarts it, so only the
 * innermost call of a nesting is measured and the outer returns count as
 * unpaired. The table's tracepoints drop a task's start when it exits or
 * execs inside a call.
 *
 * The handlers run in the traced task, from its breakpoint and from its
 * return trampoline, preemptible. Unregistering waits for the handlers in
 * flight; a call still running after it returns through the kernel's
 * trampoline, which no longer calls this consumer: nothing of kstats.ko
 * is left for it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/namei.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uprobes.h>
#include "kstats_compat.h"
#include "kstats_elf.h"
#include "kstats_filter.h"
#include "kstats_handler.h"
#include "kstats_mech.h"
#include "kstats_probe.h"
#include "kstats_target.h"
#include "kstats_value.h"

/* Its probe: the consumer, the file's inode and the function's offset. */
struct kstats_up_probe {
	struct kstats_probe p;
	struct uprobe_consumer uc;
	struct path path;		/* holds the inode while registered */
	struct inode *inode;		/* the one registered */
	loff_t offset;
	struct kstats_task_table *tasks;
#ifdef KSTATS_UPROBE_PTR
	struct uprobe *uprobe;
#endif
	bool hooked;			/* the task table's tracepoints */
	char file[KSTATS_UPATH_MAX + 1];
};

static struct kstats_up_probe *kstats_up(const struct kstats_probe *p)
{
	return container_of(p, struct kstats_up_probe, p);
}

/* ---------------------------------------------------------------------- */
/* Called by the kernel's uprobes, in the traced task. */

static notrace int kstats_up_entry(KSTATS_UP_ENTRY_PARAMS)
{
	struct kstats_up_probe *up = container_of(uc, struct kstats_up_probe, uc);
	struct kstats_probe *p = &up->p;
	struct kstats_timed tm;
	u64 t0, by[2] = {};

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return KSTATS_UPROBE_NO_RETURN;
	/* One CPU from the clock's read to the per-CPU counters. */
	preempt_disable_notrace();
	kstats_timed_begin(p, &tm);
	/* by argN: the key, kept with the start for the sample. */
	if (p->by_arg)
		kstats_keys_start_key(p, regs_get_kernel_argument(regs,
								  p->by_arg - 1),
				      by);
	kstats_call_begin(p, &t0);
	if (!kstats_task_start(up->tasks, t0, READ_ONCE(p->ks->epoch), by))
		this_cpu_inc(p->stats->dropped);
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	preempt_enable_notrace();
	return 0;
}

static notrace int kstats_up_return(KSTATS_UP_RET_PARAMS)
{
	struct kstats_up_probe *up = container_of(uc, struct kstats_up_probe, uc);
	struct kstats_probe *p = &up->p;
	struct kstats_timed tm;
	u64 t0, by[2];

	preempt_disable_notrace();
	kstats_timed_begin(p, &tm);
	t0 = kstats_task_take(up->tasks, READ_ONCE(p->ks->epoch), by);
	/*
	 * The trampoline has put the caller's address back (outliers' @to).
	 * No start: an outer call of a recursion, or one entered stopped.
	 */
	if (t0)
		kstats_call_end(p, t0, p->by_arg ? (unsigned long)by :
				regs_return_value(regs),
				instruction_pointer(regs));
	else if (!kstats_stopped(p) && kstats_filter_pass(p))
		this_cpu_inc(p->stats->unpaired);
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
	preempt_enable_notrace();
	return 0;
}

/* value argN: the argument at each entry; no return hooked, no clock. */
static notrace int kstats_up_value_arg(KSTATS_UP_ENTRY_PARAMS)
{
	struct kstats_probe *p = &container_of(uc, struct kstats_up_probe, uc)->p;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 0;
	preempt_disable_notrace();
	kstats_value_arg(p, regs_get_kernel_argument(regs, p->arg - 1));
	preempt_enable_notrace();
	return 0;
}

/* value retval: the return of each call entered while it ran. */
static notrace int kstats_up_value_entry(KSTATS_UP_ENTRY_PARAMS)
{
	struct kstats_probe *p = &container_of(uc, struct kstats_up_probe, uc)->p;

	return kstats_stopped(p) || !kstats_filter_pass(p) ?
	       KSTATS_UPROBE_NO_RETURN : 0;
}

static notrace int kstats_up_value_ret(KSTATS_UP_RET_PARAMS)
{
	struct kstats_probe *p = &container_of(uc, struct kstats_up_probe, uc)->p;

	/* Before 6.13 every return comes here: the entry's test again. */
	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 0;
	preempt_disable_notrace();
	kstats_value_ret(p, regs_return_value(regs), instruction_pointer(regs));
	preempt_enable_notrace();
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Control: under kstats_control_mutex. */

/* A reason for @cmd's refusal of @up's file, which names it. */
#define kstats_up_fail(cmd, err, up, fmt, ...)				\
	kstats_fail(cmd, err, "%s: " fmt, (up)->file, ##__VA_ARGS__)

/* @up's function: its offset in the file, from SYMBOL unless given. */
static int kstats_up_lookup(struct kstats_up_probe *up, struct kstats_cmd *cmd)
{
	struct kstats_elf_sym sym;
	char why[96] = "";
	struct file *f;
	int ret;

	if (!cmd->start.sym[0]) {
		up->offset = cmd->uoffset;
		return 0;
	}
	f = dentry_open(&up->path, O_RDONLY | O_LARGEFILE, current_cred());
	if (IS_ERR(f))
		return kstats_up_fail(cmd, PTR_ERR(f), up,
				      "cannot be read (error %ld)", PTR_ERR(f));
	ret = kstats_elf_find_file(f, cmd->start.sym, &sym, why, sizeof(why));
	fput(f);
	if (ret)
		return kstats_up_fail(cmd, ret, up, "%s", why[0] ? why :
				      "no function of that name");
	up->offset = sym.offset;
	return 0;
}

/* Register @up's consumer: the breakpoints go into every process mapping it. */
static int kstats_up_register(struct kstats_up_probe *up)
{
#ifdef KSTATS_UPROBE_PTR
	struct uprobe *u = uprobe_register(up->inode, up->offset, 0, &up->uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	up->uprobe = u;
	return 0;
#else
	return uprobe_register(up->inode, up->offset, &up->uc);
#endif
}

/* Unregister it and wait for its handlers in flight. */
static void kstats_up_unregister(struct kstats_up_probe *up)
{
#ifdef KSTATS_UPROBE_PTR
	uprobe_unregister_nosync(up->uprobe, &up->uc);
	uprobe_unregister_sync();
	up->uprobe = NULL;
#else
	uprobe_unregister(up->inode, up->offset, &up->uc);
#endif
}

static int kstats_uprobe_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kstats_up_probe *up = kstats_up(p);
	struct inode *inode;
	int ret;

	p->ops = &kstats_uprobe_ops;
	strscpy(up->file, cmd->upath, sizeof(up->file));
	ret = kern_path(up->file, LOOKUP_FOLLOW, &up->path);
	if (ret) {
		up->path.dentry = NULL;
		return kstats_up_fail(cmd, ret, up, "no such file (error %d)",
				      ret);
	}
	inode = d_real_inode(up->path.dentry);
	up->inode = inode;
	if (!S_ISREG(inode->i_mode))
		return kstats_up_fail(cmd, -EINVAL, up, "not a regular file");
	/*
	 * uprobes copy the instruction through the page cache: they take
	 * files whose mapping reads folios, or shmem's (uprobe_register()
	 * refuses the others too; here first, with a reason).
	 */
	if (!inode->i_mapping->a_ops->read_folio &&
	    inode->i_sb->s_magic != TMPFS_MAGIC)
		return kstats_up_fail(cmd, -EOPNOTSUPP, up,
				      "a file of %s, which uprobes cannot read",
				      inode->i_sb->s_type->name);
	ret = kstats_up_lookup(up, cmd);
	if (ret)
		return ret;
	if (p->value == KSTATS_VALUE_ARG) {
		up->uc.handler = kstats_up_value_arg;
	} else if (p->value == KSTATS_VALUE_RETVAL) {
		up->uc.handler = kstats_up_value_entry;
		up->uc.ret_handler = kstats_up_value_ret;
	} else {
		/* Time: each task's start waits in the table. */
		up->tasks = kstats_task_table_alloc(0);
		if (!up->tasks)
			return kstats_fail(cmd, -ENOMEM, "out of memory");
		ret = kstats_task_hook(up->tasks, p->stats, cmd);
		if (ret)
			return ret;
		up->hooked = true;
		up->uc.handler = kstats_up_entry;
		up->uc.ret_handler = kstats_up_return;
	}
	ret = kstats_up_register(up);
	if (ret)
		return kstats_up_fail(cmd, ret, up,
				      "uprobes refused offset 0x%llx (error %d)",
				      (u64)up->offset, ret);
	p->registered = true;
	return 0;
}

/*
 * A stopped entry's processes take no breakpoint: stop unregisters the
 * consumer (uprobe_apply(), which would keep it, is not exported), start
 * registers it again. A call in flight at the stop returns through the
 * kernel's trampoline without kstats; its start, of the epoch before,
 * is never paired.
 */
static int kstats_uprobe_enable(struct kstats_probe *p)
{
	int ret;

	if (p->registered)
		return 0;
	ret = kstats_up_register(kstats_up(p));
	if (!ret)
		p->registered = true;
	return ret;
}

static void kstats_uprobe_disable(struct kstats_probe *p)
{
	if (!p->registered)
		return;
	kstats_up_unregister(kstats_up(p));
	p->registered = false;
}

static void kstats_uprobe_detach(struct kstats_probe *p)
{
	struct kstats_up_probe *up = kstats_up(p);

	kstats_uprobe_disable(p);
	if (up->hooked) {
		kstats_task_unhook(up->tasks);
		tracepoint_synchronize_unregister();
		up->hooked = false;
	}
}

static void kstats_uprobe_free(struct kstats_probe *p)
{
	struct kstats_up_probe *up = kstats_up(p);

	kstats_task_table_free(up->tasks);
	up->tasks = NULL;
	if (up->path.dentry)
		path_put(&up->path);
	up->path.dentry = NULL;
}

static size_t kstats_uprobe_memory(const struct kstats_cmd *cmd)
{
	return cmd->value == KSTATS_VALUE_TIME ? kstats_task_table_bytes(0) : 0;
}

static const char *kstats_uprobe_name(const struct kstats_probe *p)
{
	return "uprobe";
}

static void kstats_uprobe_show(struct seq_file *m, const struct kstats_probe *p)
{
	const struct kstats_up_probe *up = kstats_up(p);

	if (p->start.target.sym[0])
		seq_printf(m, " targets %s:%s", up->file, p->start.target.sym);
	else
		seq_printf(m, " targets %s:0x%llx", up->file, (u64)up->offset);
	seq_printf(m, " offset 0x%llx", (u64)up->offset);
}

static void kstats_uprobe_show_counts(struct seq_file *m,
				      const struct kstats_probe *p,
				      const struct kstats_probe_stats *sum)
{
	seq_printf(m, " unpaired %lu dropped %lu", sum->unpaired, sum->dropped);
}

/* A user function is no code of a module. */
static bool kstats_uprobe_uses(const struct kstats_probe *p,
			       struct module *mod, bool tracepoints)
{
	return false;
}

const struct kstats_mech_ops kstats_uprobe_ops = {
	.cmds = BIT(KSTATS_CMD_TRACE_USER),
	.via = KSTATS_VIA_AUTO,
	.size = KSTATS_MECH_SIZE(struct kstats_up_probe),
	.memory = kstats_uprobe_memory,
	.name = kstats_uprobe_name,
	.attach = kstats_uprobe_attach,
	.enable = kstats_uprobe_enable,
	.disable = kstats_uprobe_disable,
	.detach = kstats_uprobe_detach,
	.show = kstats_uprobe_show,
	.show_counts = kstats_uprobe_show_counts,
	.uses = kstats_uprobe_uses,
	.free = kstats_uprobe_free,
};
