// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: mechanisms. Calls the shared probe helpers and the
 * record core.
 *
 * kstats mechanism: kretprobes, for trace FUNC and trace pcpu:FUNC on
 * kernels without a usable fprobe, or with "via kretprobe". The start time
 * lives in the kretprobe instance of each call. "value argN" needs no
 * return: its kretprobe's kprobe is registered alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/ptrace.h>
#include "kstats_filter.h"
#include "kstats_handler.h"
#include "kstats_mech.h"
#include "kstats_probe.h"
#include "kstats_target.h"
#include "kstats_value.h"

/* Its probe: the kretprobe on FUNC, or for value argN its kprobe alone. */
struct kstats_krp_probe {
	struct kstats_probe p;
	struct kretprobe rp;
};

static __always_inline struct kstats_probe *
kstats_krp_probe(struct kretprobe_instance *ri)
{
	return &container_of(get_kretprobe(ri), struct kstats_krp_probe, rp)->p;
}

static struct kretprobe *kstats_krp_rp(const struct kstats_probe *p)
{
	return &container_of(p, struct kstats_krp_probe, p)->rp;
}

static notrace int kstats_krp_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_timed tm;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_timed_begin(p, &tm);
	kstats_call_begin(p, (u64 *)ri->data);
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	return 0;
}

static notrace int kstats_krp_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_timed tm;

	kstats_timed_begin(p, &tm);
	kstats_call_end(p, *(u64 *)ri->data, regs_return_value(regs),
			get_kretprobe_retaddr(ri));
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
	return 0;
}

/* by argN: the argument at the entry is the call's key. */
static notrace int kstats_krp_by_entry(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_timed tm;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_timed_begin(p, &tm);
	kstats_call_begin_by(p, (struct kstats_call_by *)ri->data,
			     regs_get_kernel_argument(regs, p->by_arg - 1));
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	return 0;
}

static notrace int kstats_krp_by_ret(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_call_by *c = (struct kstats_call_by *)ri->data;
	struct kstats_timed tm;

	kstats_timed_begin(p, &tm);
	kstats_call_end_by(p, c, get_kretprobe_retaddr(ri));
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
	return 0;
}

static notrace int kstats_krp_pcpu_entry(struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_timed tm;
	bool hook;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_timed_begin(p, &tm);
	hook = kstats_pcpu_begin(p, (struct kstats_pcpu_call *)ri->data,
				 kernel_stack_pointer(regs));
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	/* Non-zero: the return of this call is not hooked. */
	return hook ? 0 : 1;
}

static notrace int kstats_krp_pcpu_ret(struct kretprobe_instance *ri,
				       struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_timed tm;

	kstats_timed_begin(p, &tm);
	kstats_pcpu_end(p, (struct kstats_pcpu_call *)ri->data,
			regs_return_value(regs));
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
	return 0;
}

/* counter: the counter at entry; calls that migrate are not measured. */
static notrace int kstats_krp_counter_entry(struct kretprobe_instance *ri,
					    struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_timed tm;
	bool hook;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_timed_begin(p, &tm);
	hook = kstats_counter_begin(p, (struct kstats_counter_call *)ri->data);
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	return hook ? 0 : 1;
}

static notrace int kstats_krp_counter_ret(struct kretprobe_instance *ri,
					  struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);
	struct kstats_timed tm;

	kstats_timed_begin(p, &tm);
	kstats_counter_end(p, (struct kstats_counter_call *)ri->data);
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
	return 0;
}

/* value argN: a kprobe, no return hooked, no clock read. */
static notrace int kstats_kp_value_arg(struct kprobe *kp, struct pt_regs *regs)
{
	struct kstats_probe *p =
		&container_of(kp, struct kstats_krp_probe, rp.kp)->p;

	if (!kstats_stopped(p) && kstats_filter_pass(p))
		kstats_value_arg(p, regs_get_kernel_argument(regs, p->arg - 1));
	return 0;
}

/* value retval: the return is hooked only for the hits measured. */
static notrace int kstats_krp_value_entry(struct kretprobe_instance *ri,
					  struct pt_regs *regs)
{
	struct kstats_probe *p = kstats_krp_probe(ri);

	return kstats_stopped(p) || !kstats_filter_pass(p);
}

static notrace int kstats_krp_value_ret(struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
	kstats_value_ret(kstats_krp_probe(ri), regs_return_value(regs),
			 get_kretprobe_retaddr(ri));
	return 0;
}

static void kstats_kretprobe_handlers(struct kstats_probe *p)
{
	struct kretprobe *rp = kstats_krp_rp(p);

	if (p->value == KSTATS_VALUE_ARG) {
		rp->kp.pre_handler = kstats_kp_value_arg;
	} else if (p->value == KSTATS_VALUE_RETVAL) {
		rp->entry_handler = kstats_krp_value_entry;
		rp->handler = kstats_krp_value_ret;
	} else if (p->counter && !p->pcpu) {
		rp->entry_handler = kstats_krp_counter_entry;
		rp->handler = kstats_krp_counter_ret;
		rp->data_size = sizeof(struct kstats_counter_call);
	} else if (p->pcpu) {
		rp->entry_handler = kstats_krp_pcpu_entry;
		rp->handler = kstats_krp_pcpu_ret;
		rp->data_size = sizeof(struct kstats_pcpu_call);
	} else if (p->by_arg) {
		rp->entry_handler = kstats_krp_by_entry;
		rp->handler = kstats_krp_by_ret;
		rp->data_size = sizeof(struct kstats_call_by);
	} else {
		rp->entry_handler = kstats_krp_entry;
		rp->handler = kstats_krp_ret;
		rp->data_size = sizeof(u64);
	}
}

/*
 * Register a disabled kretprobe on FUNC, at p->addr if it is known; for
 * value argN its kprobe alone.
 */
static int kstats_kretprobe_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kretprobe *rp = kstats_krp_rp(p);
	int ret;

	p->ops = &kstats_kretprobe_ops;
	memset(rp, 0, sizeof(*rp));
	if (p->addr)
		rp->kp.addr = (kprobe_opcode_t *)p->addr;
	else
		rp->kp.symbol_name = p->start.target.sym;
	rp->kp.flags = KPROBE_FLAG_DISABLED;
	kstats_kretprobe_handlers(p);
	rp->maxactive = max_t(int, 20, 2 * num_possible_cpus());
	if (p->value == KSTATS_VALUE_ARG)
		ret = register_kprobe(&rp->kp);
	else
		ret = register_kretprobe(rp);
	if (ret)
		return kstats_kprobe_error(cmd, "trace", &p->start.target, ret);
	p->registered = true;
	p->addr = (unsigned long)rp->kp.addr;
	return 0;
}

/* Fails if the kprobe cannot be armed (its ftrace or int3 site). */
static int kstats_kretprobe_enable(struct kstats_probe *p)
{
	return enable_kprobe(&kstats_krp_rp(p)->kp);
}

/* Calls in flight keep their return hook, which finds the entry stopped. */
static void kstats_kretprobe_disable(struct kstats_probe *p)
{
	disable_kprobe(&kstats_krp_rp(p)->kp);
}

/*
 * unregister_kretprobe() waits for handlers in flight; returns still
 * pending find their rethook stopped.
 */
static void kstats_kretprobe_detach(struct kstats_probe *p)
{
	if (!p->registered)
		return;
	p->registered = false;
	if (p->value == KSTATS_VALUE_ARG)
		unregister_kprobe(&kstats_krp_rp(p)->kp);
	else
		unregister_kretprobe(kstats_krp_rp(p));
}

static unsigned long kstats_kretprobe_missed(const struct kstats_probe *p)
{
	const struct kretprobe *rp = kstats_krp_rp(p);

	return READ_ONCE(rp->nmissed) + READ_ONCE(rp->kp.nmissed);
}

static const char *kstats_kretprobe_name(const struct kstats_probe *p)
{
	if (p->value == KSTATS_VALUE_ARG)
		return "kprobe";
	return p->pcpu ? "pcpu-kretprobe" : "kretprobe";
}

static void kstats_kretprobe_cal_rows(const struct kstats_probe *p,
				      enum kstats_cal_mech rows[2])
{
	rows[0] = p->pcpu ? KSTATS_CAL_PCPU_KRETPROBE : KSTATS_CAL_KRETPROBE;
	rows[1] = rows[0];
}

const struct kstats_mech_ops kstats_kretprobe_ops = {
	.cmds = KSTATS_FUNC_CMDS,
	.via = KSTATS_VIA_KRETPROBE,
	.size = KSTATS_MECH_SIZE(struct kstats_krp_probe),
	.name = kstats_kretprobe_name,
	.attach = kstats_kretprobe_attach,
	.enable = kstats_kretprobe_enable,
	.disable = kstats_kretprobe_disable,
	.detach = kstats_kretprobe_detach,
	.missed = kstats_kretprobe_missed,
	.cal_rows = kstats_kretprobe_cal_rows,
	.uses = kstats_func_uses,
};
