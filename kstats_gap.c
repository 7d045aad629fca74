// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: mechanisms. Calls the pair's hooks (kstats_pair.c, whose
 * struct kstats_pair_probe it shares), the shared probe helpers and the
 * record core.
 *
 * kstats mechanism: inter-arrival gaps, trace NAME gap X. X is hooked as
 * one side of a pair (kstats_pair.c: an ftrace_ops callback at a function
 * entry, a kprobe, or a tracepoint probe), with one handler: the time
 * since the previous hit of X on this CPU. Stop and start are those of a
 * pair: a stop takes the hook off, a start puts it back and bumps the
 * entry's epoch, so the first hit after it records nothing.
 */
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include "kstats_filter.h"
#include "kstats_gap.h"
#include "kstats_handler.h"
#include "kstats_mech.h"
#include "kstats_pair.h"
#include "kstats_probe.h"
#include "kstats_target.h"

/*
 * X was hit. The previous hit of the CPU is read and replaced with
 * interrupts off: a hit in an interrupt in between would otherwise pair
 * its time with another epoch's. The gap goes to this CPU's slots, so
 * preemption stays off until it is recorded (from 6.13 syscall
 * tracepoints call their probes preemptible). Filters apply first: a hit
 * left out is no arrival.
 */
static __always_inline void kstats_gap_hit(struct kstats_pair_probe *pp)
{
	struct kstats_probe *p = &pp->p;
	struct kstats_timed tm;
	unsigned long flags;
	unsigned int saved;
	bool have;
	u64 gap;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return;
	preempt_disable_notrace();
	if (!kstats_guard_enter(p, &saved))
		goto out;
	kstats_timed_begin(p, &tm);
	local_irq_save(flags);
	have = kstats_gap_step(this_cpu_ptr(pp->t0), kstats_clock(p),
			       READ_ONCE(p->ks->epoch), &gap);
	local_irq_restore(flags);
	if (have)
		kstats_record_delta(p, gap, 0, 0);
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	kstats_guard_exit(saved);
out:
	preempt_enable_notrace();
}

/* Tracepoint probe: @data is the entry; the tracepoint's args are unused. */
static notrace void kstats_gap_tp(void *data)
{
	kstats_gap_hit(kstats_pair(data));
}

static notrace int kstats_gap_kp(struct kprobe *kp, struct pt_regs *regs)
{
	kstats_gap_hit(container_of(kp, struct kstats_pair_probe, start.kp));
	return 0;
}

/* ftrace callback, called directly (see kstats_attach_ftrace()). */
static notrace void kstats_gap_ft(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *ops,
				  struct ftrace_regs *fregs)
{
	kstats_gap_hit(container_of(ops, struct kstats_pair_probe, start.ops));
}

static const struct kstats_hooks kstats_gap_hooks = {
	.what = "gap",
	.ftrace = kstats_gap_ft,
	.kprobe = kstats_gap_kp,
	.tracepoint = (void *)kstats_gap_tp,
};

/* Hook X; the previous hit of each CPU starts as none (zeroed). */
static int kstats_gap_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kstats_pair_probe *pp = kstats_pair(p);
	int ret;

	p->ops = &kstats_gap_ops;
	pp->t0 = alloc_percpu(struct kstats_cpu_start);
	if (!pp->t0)
		return kstats_fail(cmd, -ENOMEM, "out of memory");
	pp->start.fn = &kstats_gap_hooks;
	ret = kstats_endpoint_attach(pp, &pp->start, &p->start, cmd);
	/* What the checks of trace FUNC look at: kstats itself, modules. */
	p->addr = p->start.addr;
	return ret;
}

static const char *kstats_gap_name(const struct kstats_probe *p)
{
	return "gap";
}

static void kstats_gap_show(struct seq_file *m, const struct kstats_probe *p)
{
	seq_puts(m, " targets ");
	kstats_show_target(m, &p->start.target);
	seq_printf(m, " hooks %s", kstats_hook_name(&kstats_pair(p)->start));
}

static bool kstats_gap_uses(const struct kstats_probe *p, struct module *mod,
			    bool tracepoints)
{
	if (tracepoints)
		return p->start.tp_mod == mod;
	return within_module(p->addr, mod);
}

/*
 * Stop and start are a pair's. No calibration row: a gap is between two
 * hits that the hook delays alike, with no bias.
 */
/* The previous hit of each CPU. */
static size_t kstats_gap_memory(const struct kstats_cmd *cmd)
{
	return num_possible_cpus() * sizeof(struct kstats_cpu_start);
}

const struct kstats_mech_ops kstats_gap_ops = {
	.cmds = BIT(KSTATS_CMD_TRACE_GAP),
	.size = KSTATS_MECH_SIZE(struct kstats_pair_probe),
	.memory = kstats_gap_memory,
	.name = kstats_gap_name,
	.attach = kstats_gap_attach,
	.enable = kstats_pair_enable,
	.disable = kstats_pair_disable,
	.detach = kstats_pair_detach,
	.missed = kstats_pair_missed,
	.show = kstats_gap_show,
	.uses = kstats_gap_uses,
	.free = kstats_pair_free,
};
