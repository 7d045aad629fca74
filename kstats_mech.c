// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: mechanisms, their table. The commands (kstats_control.c,
 * kstats_calibrate.c) reach a mechanism only through here; this file
 * calls the mechanisms' operations and the shared probe helpers below
 * them (kstats_target.c, kstats_task.c, kstats_counter.c, kstats_clock.c),
 * never the commands or the front end.
 *
 * Adding a mechanism: a file that defines its struct kstats_mech_ops, and
 * its line in kstats_mechs[].
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "kstats_counter.h"
#include "kstats_filter.h"
#include "kstats_handler.h"
#include "kstats_internal.h"
#include "kstats_mech.h"
#include "kstats_keys.h"
#include "kstats_probe.h"
#include "kstats_target.h"

#ifndef KSTATS_HAVE_DIRECT
static const struct kstats_mech_ops kstats_no_direct_ops = {
	.cmds = KSTATS_FUNC_CMDS,
	.via = KSTATS_VIA_DIRECT,
	.absent = "this kernel has no ftrace direct calls (x86-64 and arm64 only)",
};
#endif

#ifndef KSTATS_HAVE_FPROBE
/* Kbuild leaves fprobe out without CONFIG_FPROBE, and before 6.5. */
static const struct kstats_mech_ops kstats_no_fprobe_ops = {
	.cmds = KSTATS_FUNC_CMDS,
	.via = KSTATS_VIA_FPROBE,
	.absent = IS_ENABLED(CONFIG_FPROBE) ?
		  "kstats uses fprobe from 6.5 on only" :
		  "this kernel has no fprobe (CONFIG_FPROBE)",
};
#endif

#ifndef KSTATS_HAVE_UPROBE
static const struct kstats_mech_ops kstats_no_uprobe_ops = {
	.cmds = BIT(KSTATS_CMD_TRACE_USER),
	.via = KSTATS_VIA_AUTO,
	.absent = "this kernel has no uprobes (CONFIG_UPROBES)",
};
#endif

/*
 * In the order of preference. trace FUNC: direct where it can serve
 * (fexit-class, the cheapest), else fprobe if there is, else kretprobe;
 * trace pcpu:FUNC: fprobe, else kretprobe; trace PATH:SYMBOL: uprobes
 * only. "via" forces one. See
 * "Mechanisms" in Documentation/kstats.rst.
 */
static const struct kstats_mech_ops *const kstats_mechs[] = {
#ifdef KSTATS_HAVE_DIRECT
	&kstats_direct_ops,
#else
	&kstats_no_direct_ops,
#endif
#ifdef KSTATS_HAVE_FPROBE
	&kstats_fprobe_ops,
#else
	&kstats_no_fprobe_ops,
#endif
	&kstats_kretprobe_ops,
	&kstats_pair_ops,
	&kstats_gap_ops,
#ifdef KSTATS_HAVE_UPROBE
	&kstats_uprobe_ops,
#else
	&kstats_no_uprobe_ops,
#endif
};

/* Whether @ops may take @cmd: it serves the command, and "via" allows it. */
static bool kstats_mech_may_take(const struct kstats_mech_ops *ops,
				 const struct kstats_cmd *cmd)
{
	return (ops->cmds & BIT(cmd->op)) &&
	       (cmd->via == KSTATS_VIA_AUTO || cmd->via == ops->via);
}

/* Room for the probe of any mechanism that may take @cmd. */
static size_t kstats_probe_size(const struct kstats_cmd *cmd)
{
	size_t size = sizeof(struct kstats_probe);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kstats_mechs); i++)
		if (kstats_mech_may_take(kstats_mechs[i], cmd))
			size = max(size, kstats_mechs[i]->size);
	return size;
}

size_t kstats_probe_memory(const struct kstats_cmd *cmd)
{
	const struct kstats_mech_ops *ops;
	size_t mech = 0, bytes;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kstats_mechs); i++) {
		ops = kstats_mechs[i];
		if (kstats_mech_may_take(ops, cmd))
			mech = max(mech, ops->memory ? ops->memory(cmd) : 0);
	}
	bytes = num_possible_cpus() * sizeof(struct kstats_probe_stats);
	if (cmd->op == KSTATS_CMD_TRACE_PCPU)
		bytes += num_possible_cpus() * sizeof(struct kstats_pcpu_owner);
	return kstats_probe_size(cmd) + mech + bytes + kstats_bytes(cmd->bits) +
	       kstats_keys_memory(cmd) + kstats_outliers_memory(cmd);
}

void kstats_probe_free(struct kstats_probe *p)
{
	if (p->ops && p->ops->free)
		p->ops->free(p);
	kstats_counter_free(p);
	kstats_filter_put(p);
	kstats_keys_free(p);
	kstats_outliers_free(p);
	free_percpu(p->owner);
	free_percpu(p->stats);
	kfree(p);
}

struct kstats_probe *kstats_probe_alloc(const struct kstats_cmd *cmd)
{
	struct kstats_probe *p = kzalloc(kstats_probe_size(cmd), GFP_KERNEL);

	if (!p)
		return NULL;
	p->pcpu = cmd->op == KSTATS_CMD_TRACE_PCPU;
	p->key = cmd->key;
	p->filter = cmd->filter;
	p->value = cmd->value;
	p->arg = cmd->arg;
	p->start.target = cmd->start;
	p->end.target = cmd->end;
	p->stats = alloc_percpu(struct kstats_probe_stats);
	if (!p->stats)
		goto fail;
	if (p->pcpu) {
		p->owner = alloc_percpu(struct kstats_pcpu_owner);
		if (!p->owner)
			goto fail;
	}
	return p;
fail:
	kstats_probe_free(p);
	return NULL;
}

/* The shape of @p (enum kstats_shape), once its options are set up. */
static enum kstats_shape kstats_shape_of(const struct kstats_probe *p,
					 const struct kstats_cmd *cmd)
{
	if (!kstats_clock_inline(p) || p->value != KSTATS_VALUE_TIME ||
	    p->filter.flags || cmd->counter || kstats_keys_at_start(p) ||
	    (p->keys && p->outliers) || cmd->side[KSTATS_SIDE_BEGIN].cond ||
	    cmd->side[KSTATS_SIDE_END].cond)
		return KSTATS_SHAPE_FULL;
	if (p->outliers)
		return KSTATS_SHAPE_OUTLIERS;
	if (!p->keys)
		return KSTATS_SHAPE_LEAN;
	/* The keys that kstats_key_quick() reads, calling nothing. */
	switch (p->keys->src) {
	case KSTATS_BY_COMM:
		return KSTATS_SHAPE_COMM;
	case KSTATS_BY_PID:
	case KSTATS_BY_TID:
	case KSTATS_BY_CPU:
	case KSTATS_BY_RETVAL:
		return KSTATS_SHAPE_KEYS;
	default:
		return KSTATS_SHAPE_FULL;
	}
}

/*
 * Register the probes of @p, disabled, with the first mechanism of the
 * table that serves the command and takes it; kstats_detach() undoes a
 * failure.
 */
int kstats_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	const struct kstats_mech_ops *ops;
	unsigned int i;
	int ret = kstats_clock_pick(p, cmd);

	if (ret)
		return ret;
	p->shape = kstats_shape_of(p, cmd);
	for (i = 0; i < ARRAY_SIZE(kstats_mechs); i++) {
		ops = kstats_mechs[i];
		if (!kstats_mech_may_take(ops, cmd))
			continue;
		if (ops->absent) {
			if (cmd->via == KSTATS_VIA_AUTO)
				continue;
			return kstats_fail(cmd, -EOPNOTSUPP, "%s", ops->absent);
		}
		ret = ops->attach(p, cmd);
		if (ret <= 0)
			return ret;
	}
	return kstats_fail(cmd, -EOPNOTSUPP, "no mechanism for this command");
}

/*
 * Let the probes of @p fire; under kstats_control_mutex. An error (the
 * kernel failed to arm a kprobe, to register an ftrace callback or a
 * tracepoint probe again) leaves @p unarmed, and says so once.
 */
int kstats_enable(struct kstats_probe *p)
{
	int ret = p->ops->enable ? p->ops->enable(p) : 0;

	if (ret) {
		pr_warn_ratelimited("%s: cannot arm its probes (error %d)\n",
				    p->ks->name, ret);
		return ret;
	}
	p->armed = true;
	return 0;
}

/* Disarm the probes of a stopped entry; under kstats_control_mutex. */
void kstats_disable(struct kstats_probe *p)
{
	if (p->ops->disable)
		p->ops->disable(p);
	p->armed = false;
}

/*
 * Unregister every probe of @p. Afterwards no handler of @p runs or will
 * run, unless p->registered is still set: a mechanism could not
 * unregister, and @p must then never be freed. @p may have no mechanism
 * yet (a command refused before attach).
 */
void kstats_detach(struct kstats_probe *p)
{
	if (p->ops)
		p->ops->detach(p);
}

unsigned long kstats_missed(const struct kstats_probe *p)
{
	return p->ops->missed ? p->ops->missed(p) : 0;
}

bool kstats_mech_uses(const struct kstats_probe *p, struct module *mod,
		      bool tracepoints)
{
	return p->ops && p->ops->uses(p, mod, tracepoints);
}

/* Module exit, once every entry went. */
void kstats_mech_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kstats_mechs); i++)
		if (kstats_mechs[i]->exit)
			kstats_mechs[i]->exit();
}

/* The FUNC mechanisms: direct, fprobe, kretprobe. */
void kstats_show_func(struct seq_file *m, const struct kstats_probe *p)
{
	seq_puts(m, " targets ");
	kstats_show_target(m, &p->start.target);
}

bool kstats_func_uses(const struct kstats_probe *p, struct module *mod,
		      bool tracepoints)
{
	return !tracepoints && within_module(p->addr, mod);
}
