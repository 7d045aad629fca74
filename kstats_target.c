// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers, below the mechanisms. Target resolution,
 * tracepoint lookup, the _control form of a target, and the module
 * notifiers that report code going away. Calls the kernel only; reports
 * upwards through the function that module init handed down.
 *
 * Lock order: tracepoint_module_list_mutex (tracepoint module notifier) ->
 * kstats_control_mutex -> kprobe/ftrace/tracepoint locks, kstats_mutex.
 * Hence both notifiers are registered and unregistered without
 * kstats_control_mutex held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "kstats_compat.h"
#include "kstats_probe.h"
#include "kstats_target.h"
#include "kstats_tramp.h"

/* A module in one of the lists below. */
struct kstats_module_ref {
	struct list_head node;
	struct module *mod;
};

/* Also protects the lists below. */
DEFINE_MUTEX(kstats_control_mutex);
/* Modules with tracepoints, from the tracepoint module notifier. */
static LIST_HEAD(kstats_tp_modules);
/*
 * Modules loaded since kstats, until they go: a target in one's init
 * text, which is freed once it has initialised, is refused.
 */
static LIST_HEAD(kstats_new_modules);
static kstats_gone_fn kstats_gone_cb;

struct kstats_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void kstats_tp_match(struct tracepoint *tp, void *priv)
{
	struct kstats_tp_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

struct tracepoint *kstats_find_tp(const char *name, struct module **mod)
{
	struct kstats_tp_lookup l = { .name = name };
	struct kstats_module_ref *m;
	unsigned int i;

	lockdep_assert_held(&kstats_control_mutex);
	*mod = NULL;
	for_each_kernel_tracepoint(kstats_tp_match, &l);
	if (l.tp)
		return l.tp;
	list_for_each_entry(m, &kstats_tp_modules, node) {
		for (i = 0; i < m->mod->num_tracepoints; i++) {
			kstats_tp_match(tracepoint_ptr_deref(&m->mod->tracepoints_ptrs[i]),
					&l);
			if (l.tp) {
				*mod = m->mod;
				return l.tp;
			}
		}
	}
	return NULL;
}

int kstats_kprobe_error(struct kstats_cmd *cmd, const char *what,
			const struct kstats_target *t, int err)
{
	if (err == -ENOENT)
		return kstats_fail(cmd, err, "%s: no symbol %s", what, t->sym);
	if (err == -EILSEQ)
		return kstats_fail(cmd, err, "%s: %s+%u is not an instruction boundary",
				   what, t->sym, t->offset);
	/* Blacklisted, not code, or (kretprobe) not a function entry. */
	return kstats_fail(cmd, err, "%s: kprobes refused %s+%u (error %d)",
			   what, t->sym, t->offset, err);
}

int kstats_resolve(struct kstats_cmd *cmd, const char *what,
		   const struct kstats_target *t, unsigned long *addr)
{
	struct kprobe kp = {
		.symbol_name = t->sym,
		.offset = t->offset,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret;

	/*
	 * arm64's instructions are 4 bytes: an offset inside one is no
	 * boundary, as x86's kprobes say (EILSEQ); arm64's say EINVAL.
	 */
	if (IS_ENABLED(CONFIG_ARM64) && t->offset % 4)
		return kstats_kprobe_error(cmd, what, t, -EILSEQ);
	ret = register_kprobe(&kp);
	if (ret)
		return kstats_kprobe_error(cmd, what, t, ret);
	*addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

/*
 * No probe on kstats itself, its trampolines' module included: its
 * handlers would recurse. None in a module's init text either: freed
 * once the module has initialised, it would leave a probe, or a direct
 * call's site, on freed text.
 */
int kstats_check_addr(struct kstats_cmd *cmd, const char *what,
		      unsigned long addr)
{
	struct kstats_module_ref *m;

	if (!addr)
		return 0;
	if (within_module(addr, THIS_MODULE))
		return kstats_fail(cmd, -EINVAL, "%s is part of kstats itself",
				   what);
	/* The trampolines call kstats' hooks: theirs would recurse too. */
	if (kstats_tramp_text(addr))
		return kstats_fail(cmd, -EINVAL,
				   "%s is part of kstats itself (kstats_tramp, its trampolines)",
				   what);
	lockdep_assert_held(&kstats_control_mutex);
	list_for_each_entry(m, &kstats_new_modules, node)
		if (within_module_init(addr, m->mod))
			return kstats_fail(cmd, -EOPNOTSUPP,
					   "%s is in the init text of module %s, freed once it has initialised",
					   what, m->mod->name);
	return 0;
}

/* Before attach and after: every address known by then. */
int kstats_check_addrs(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	return kstats_check_addr(cmd, p->start.target.sym, p->addr) ?:
	       kstats_check_addr(cmd, "start", p->start.addr) ?:
	       kstats_check_addr(cmd, "end", p->end.addr);
}

/*
 * The addresses of FUNC, or of X and Y, before anything is hooked: the
 * refusal of kstats' own code must come before a hook that could fire
 * on it. Tracepoints have none.
 */
int kstats_resolve_targets(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	int ret;

	switch (cmd->op) {
	case KSTATS_CMD_TRACE_PAIR:
		if (!p->end.target.tracepoint) {
			ret = kstats_resolve(cmd, "end", &p->end.target,
					     &p->end.addr);
			if (ret)
				return ret;
		}
		fallthrough;
	case KSTATS_CMD_TRACE_GAP:
		if (p->start.target.tracepoint)
			return 0;
		ret = kstats_resolve(cmd, cmd->op == KSTATS_CMD_TRACE_GAP ?
				     "gap" : "start", &p->start.target,
				     &p->start.addr);
		p->addr = p->start.addr;
		return ret;
	case KSTATS_CMD_TRACE_USER:
		/* Its mechanism finds it in the file. */
		return 0;
	default:
		return kstats_resolve(cmd, "trace", &p->start.target, &p->addr);
	}
}

void kstats_show_target(struct seq_file *m, const struct kstats_target *t)
{
	if (t->tracepoint)
		seq_printf(m, KSTATS_TP_PREFIX "%s", t->sym);
	else if (t->offset)
		seq_printf(m, "%s+%u", t->sym, t->offset);
	else
		seq_puts(m, t->sym);
}

/*
 * kprobes mark theirs gone by themselves, but fprobes would keep the
 * address in their filter, and a pair is useless with one side gone.
 */
static void kstats_forget_module(struct list_head *list, struct module *mod)
{
	struct kstats_module_ref *m, *tmp;

	list_for_each_entry_safe(m, tmp, list, node) {
		if (!mod || m->mod == mod) {
			list_del(&m->node);
			kfree(m);
		}
	}
}

static int kstats_module_notify(struct notifier_block *nb,
				unsigned long action, void *data)
{
	struct kstats_module_ref *m;

	if (action != MODULE_STATE_GOING && action != MODULE_STATE_COMING)
		return NOTIFY_DONE;
	mutex_lock(&kstats_control_mutex);
	if (action == MODULE_STATE_COMING) {
		/* Without it, only this module's init text is not refused. */
		m = kmalloc_obj(*m, GFP_KERNEL);
		if (m) {
			m->mod = data;
			list_add_tail(&m->node, &kstats_new_modules);
		}
	} else {
		kstats_forget_module(&kstats_new_modules, data);
		kstats_gone_cb(data, false);
	}
	mutex_unlock(&kstats_control_mutex);
	return NOTIFY_OK;
}

static struct notifier_block kstats_module_nb = {
	.notifier_call = kstats_module_notify,
};

/*
 * Modules with tracepoints. COMING is replayed for loaded modules when the
 * notifier is registered, GOING when it is unregistered; a module's GOING
 * comes before the tracepoint core checks that its tracepoints have no
 * probe left.
 */
static int kstats_tp_module_notify(struct notifier_block *nb,
				   unsigned long action, void *data)
{
	struct module *mod = ((struct tp_module *)data)->mod;
	struct kstats_module_ref *m;

	mutex_lock(&kstats_control_mutex);
	if (action == MODULE_STATE_COMING) {
		m = kmalloc_obj(*m, GFP_KERNEL);
		if (m) {
			m->mod = mod;
			list_add_tail(&m->node, &kstats_tp_modules);
		}
	} else if (action == MODULE_STATE_GOING) {
		kstats_forget_module(&kstats_tp_modules, mod);
		kstats_gone_cb(mod, true);
	}
	mutex_unlock(&kstats_control_mutex);
	return NOTIFY_OK;
}

static struct notifier_block kstats_tp_module_nb = {
	.notifier_call = kstats_tp_module_notify,
};

int kstats_target_init(kstats_gone_fn gone)
{
	int ret;

	kstats_gone_cb = gone;
	ret = register_module_notifier(&kstats_module_nb);
	if (ret)
		return ret;
	ret = register_tracepoint_module_notifier(&kstats_tp_module_nb);
	if (ret)
		unregister_module_notifier(&kstats_module_nb);
	return ret;
}

/*
 * Replays GOING for the modules in kstats_tp_modules: frees them. The
 * module notifier replays nothing: its list is freed here.
 */
void kstats_target_exit(void)
{
	unregister_tracepoint_module_notifier(&kstats_tp_module_nb);
	unregister_module_notifier(&kstats_module_nb);
	mutex_lock(&kstats_control_mutex);
	kstats_forget_module(&kstats_new_modules, NULL);
	mutex_unlock(&kstats_control_mutex);
}
