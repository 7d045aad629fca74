// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: commands. The _control commands trace, remove, calibrate
 * (kstats_calibrate.c) and start, stop and reset (kstats_state.c), and
 * what is left of an entry whose code went away. Calls the mechanisms through
 * kstats_mech.h, the shared probe helpers and the record core; the front
 * end (kstats_fs.c) calls in here, never the other way.
 *
 * Every control operation, and the module notifiers, run under
 * kstats_control_mutex (kstats_target.c, with the lock order). Handlers
 * take no lock and never sleep: they read the clock, touch per-CPU or
 * per-call storage (or the lockless task table) and call kstats_record().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include "kstats_counter.h"
#include "kstats_filter.h"
#include "kstats_handler.h"
#include "kstats_internal.h"
#include "kstats_keys.h"
#include "kstats_outliers.h"
#include "kstats_mech.h"
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_refuse.h"
#include "kstats_target.h"
#include "kstats_value.h"

/* The entries of _control; under kstats_control_mutex. */
static LIST_HEAD(kstats_probes);

/*
 * @p could not be unregistered: its handlers may still run, so neither
 * @p nor kstats' text may go. Outside module exit, kstats keeps a
 * reference on itself until a later remove succeeds; in module exit,
 * which cannot be refused, kstats_control_exit() tries again. Logged
 * once per entry.
 */
static void kstats_pin(struct kstats_probe *p)
{
	if (p->pinned || p->stuck)
		return;
	p->stuck = true;
	p->pinned = try_module_get(THIS_MODULE);
	pr_err("%s: its probes could not be unregistered; %s\n", p->ks->name,
	       p->pinned ? "kstats stays loaded" :
	       "module exit tries again until they are");
}

/* ---------------------------------------------------------------------- */
/* Commands; under kstats_control_mutex. */

static bool kstats_name_taken(const char *name)
{
	bool taken;

	mutex_lock(&kstats_mutex);
	taken = kstats_find(name);
	mutex_unlock(&kstats_mutex);
	return taken;
}

static int kstats_destroy(struct kstats_probe *p);

static int kstats_trace(struct kstats_cmd *cmd)
{
	struct kstats_probe *p;
	struct kstats *ks;
	size_t mem;
	int ret;

	lockdep_assert_held(&kstats_control_mutex);
	ret = kstats_filter_check(cmd) ?: kstats_refuse(cmd);
	if (ret)
		return ret;
	if (kstats_name_taken(cmd->name))
		return kstats_fail(cmd, -EEXIST, "entry %s exists", cmd->name);

	/* Before anything is allocated; the entry's kstats_free() gives it back. */
	mem = kstats_probe_memory(cmd);
	ret = kstats_mem_charge(mem);
	if (ret) {
		kstats_mem_why(cmd->why, sizeof(cmd->why), mem);
		return ret;
	}
	p = kstats_probe_alloc(cmd);
	if (!p) {
		kstats_mem_uncharge(mem);
		return kstats_fail(cmd, -ENOMEM, "out of memory");
	}
	ret = kstats_counter_create(p, cmd) ?: kstats_filter_get(p, cmd);
	if (ret) {
		kstats_mem_uncharge(mem);
		kstats_probe_free(p);
		return ret;
	}
	ks = kstats_alloc(cmd->name, cmd->bits);
	if (IS_ERR(ks)) {
		kstats_mem_uncharge(mem);
		kstats_probe_free(p);
		return kstats_fail(cmd, PTR_ERR(ks), "cannot create entry %s",
				   cmd->name);
	}
	ks->mem = mem;
	ks->origin = KSTATS_ORIGIN_CONTROL;
	ks->probe = p;
	p->ks = ks;
	/* Hooks live from attach on (ftrace, tracepoints) find it stopped. */
	kstats_stop(ks);

	ret = kstats_resolve_targets(p, cmd);
	if (!ret)
		ret = kstats_check_addrs(p, cmd);
	if (!ret)
		ret = kstats_value_setup(p, cmd) ?: kstats_keys_setup(p, cmd) ?:
		      kstats_outliers_setup(p, cmd);
	p->raw = cmd->raw;
	if (!ret)
		ret = kstats_attach(p, cmd);
	/* Where a mechanism moved the address (past an endbr, say). */
	if (!ret)
		ret = kstats_check_addrs(p, cmd);
	if (!ret) {
		/* Checked: counting starts as the entry becomes visible. */
		kstats_start(ks);
		ret = kstats_publish(ks);
		if (ret)
			kstats_fail(cmd, ret, "cannot create entry %s (error %d)",
				    cmd->name, ret);
	}
	if (ret) {
		kstats_detach(p);
		if (!p->registered) {
			kstats_free(ks);
			kstats_probe_free(p);
		} else {
			kstats_pin(p);
		}
		return ret;
	}

	/* Visible now: let the disabled probes fire. */
	ret = kstats_enable(p);
	list_add_tail(&p->node, &kstats_probes);
	if (ret) {
		kstats_fail(cmd, ret, "cannot arm the probes of %s (error %d)",
			    cmd->name, ret);
		if (kstats_destroy(p))
			return -EBUSY;
	}
	return ret;
}

/*
 * Detach and delete a control entry. If its probes cannot be unregistered
 * the entry stays, detached from nothing, in state gone: its handlers may
 * still run and use it.
 */
static int kstats_destroy(struct kstats_probe *p)
{
	/* Ends the wait of a start or stop: see kstats_state_file(). */
	WRITE_ONCE(p->dying, true);
	kstats_detach(p);
	if (p->registered) {
		WRITE_ONCE(p->gone, true);
		kstats_pin(p);
		return -EBUSY;
	}
	/* A remove that failed before has succeeded now. */
	if (p->pinned) {
		pr_info("%s: its probes are unregistered now; kstats may go\n",
			p->ks->name);
		module_put(THIS_MODULE);
	}
	list_del(&p->node);
	/* Waits for readers and writers of its file. */
	kstats_delete(p->ks);
	kstats_probe_free(p);
	return 0;
}

static int kstats_remove(struct kstats_cmd *cmd)
{
	enum kstats_origin origin = KSTATS_ORIGIN_KERNEL;
	struct kstats *ks;

	lockdep_assert_held(&kstats_control_mutex);
	/* A kernel entry may go as soon as kstats_mutex is released. */
	mutex_lock(&kstats_mutex);
	ks = kstats_find(cmd->name);
	if (ks)
		origin = ks->origin;
	mutex_unlock(&kstats_mutex);
	if (!ks)
		return kstats_fail(cmd, -ENOENT, "no entry %s", cmd->name);
	if (origin != KSTATS_ORIGIN_CONTROL)
		return kstats_fail(cmd, -EPERM,
				   "entry %s belongs to the kernel code that created it",
				   cmd->name);
	/* Control entries only go under kstats_control_mutex. */
	if (kstats_destroy(ks->probe))
		return kstats_fail(cmd, -EBUSY,
				   "entry %s: its probes could not be unregistered",
				   cmd->name);
	return 0;
}

int kstats_probe_command(struct kstats_cmd *cmd)
{
	int ret;

	mutex_lock(&kstats_control_mutex);
	switch (cmd->op) {
	case KSTATS_CMD_REMOVE:
		ret = kstats_remove(cmd);
		break;
	case KSTATS_CMD_CALIBRATE:
		ret = kstats_calibrate(cmd);
		break;
	case KSTATS_CMD_START:
	case KSTATS_CMD_STOP:
	case KSTATS_CMD_RESET:
		ret = kstats_state_command(cmd);
		break;
	default:
		ret = kstats_trace(cmd);
		break;
	}
	mutex_unlock(&kstats_control_mutex);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Code going away: detach the entries that use it. */

static void kstats_gone(struct kstats_probe *p, struct module *mod)
{
	kstats_detach(p);
	WRITE_ONCE(p->gone, true);
	if (p->registered)
		kstats_pin(p);
	pr_info("%s: module %s unloaded, probes detached\n", p->ks->name,
		mod->name);
}

/* From the module notifiers of kstats_target.c, the mutex held. */
static void kstats_control_gone(struct module *mod, bool tracepoints)
{
	struct kstats_probe *p;

	list_for_each_entry(p, &kstats_probes, node)
		if (!p->gone && kstats_mech_uses(p, mod, tracepoints))
			kstats_gone(p, mod);
}

int kstats_control_init(void)
{
	return kstats_target_init(kstats_control_gone);
}

/* Module exit: every control entry goes, then the notifiers. */
/* How often module exit tries again to unregister an entry's probes. */
#define KSTATS_EXIT_RETRY_MS	100

void kstats_control_exit(void)
{
	struct kstats_probe *p, *tmp;

	mutex_lock(&kstats_control_mutex);
	/*
	 * Module exit cannot be refused, and kstats' text and an entry must
	 * not go while the kernel may still call them: an unregister that
	 * failed (unregister_fprobe() may on an allocation) is tried again.
	 */
	list_for_each_entry_safe(p, tmp, &kstats_probes, node)
		while (kstats_destroy(p))
			msleep(KSTATS_EXIT_RETRY_MS);
	mutex_unlock(&kstats_control_mutex);
	kstats_mech_exit();
	kstats_target_exit();
}
