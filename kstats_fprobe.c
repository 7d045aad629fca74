// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: mechanisms. Calls the shared probe helpers and the
 * record core.
 *
 * kstats mechanism: fprobes (an ftrace callback at the function entry and
 * a return hook), for trace FUNC and trace pcpu:FUNC on kernels with
 * CONFIG_FPROBE from 6.5 on. Built only there (Kbuild defines
 * KSTATS_HAVE_FPROBE); kstats_compat.h hides the registers' type of 6.14.
 * "value argN" hooks no return (its entry handler says so).
 *
 * From 6.14 fprobe keeps the struct fprobe * of each pending call on the
 * task's shadow stack and, when the call returns, calls the exit handler
 * of whichever fprobe is registered at that address then: an fprobe
 * allocated where a removed one was gets the removed one's pending
 * returns, with its entry data (and no exit handler is a call to NULL).
 * So there the entry data of each call begins with its probe's tag,
 * unique across the fprobes of every load of kstats: an exit whose data
 * carries another tag is not one of its calls, and is dropped. And
 * value argN's fprobe, the one without an exit handler, lives apart: in
 * vmalloc space (struct kstats_fp_alone), where no fprobe with an exit
 * handler can have been; those of kstats are inside their entries, which
 * kzalloc() places in the direct map. (An exit handler that does nothing
 * would do too, but fprobe then takes the function graph tracer's path
 * for every call: +200 instructions per hit on 7.3.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/error-injection.h>
#include <linux/fprobe.h>
#include <linux/minmax.h>
#include <linux/ptrace.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/vmalloc.h>
#include "kstats_compat.h"
#include "kstats_filter.h"
#include "kstats_handler.h"
#include "kstats_mech.h"
#include "kstats_probe.h"
#include "kstats_target.h"
#include "kstats_value.h"

/* value argN's fprobe from 6.14, and its probe: see the top. */
struct kstats_fp_alone {
	struct fprobe fp;
	struct kstats_probe *p;
};

/* Its probe: the fprobe on FUNC (@fp, or @alone's), its calls' tag. */
struct kstats_fp_probe {
	struct kstats_probe p;
	struct fprobe fp;
	struct kstats_fp_alone *alone;
	u64 tag;
};

#ifdef KSTATS_FPROBE_FREGS
/* The tag before each call's own data. */
#define KSTATS_FP_TAG_SIZE	sizeof(u64)

/* Under kstats_control_mutex; a random start, so that loads differ. */
static u64 kstats_fp_last_tag;

static void kstats_fp_new_tag(struct kstats_fp_probe *f)
{
	if (!kstats_fp_last_tag)
		kstats_fp_last_tag = get_random_u64();
	f->tag = ++kstats_fp_last_tag;
}

static __always_inline u64 kstats_fp_tag_of(struct fprobe *fp)
{
	return container_of(fp, struct kstats_fp_probe, fp)->tag;
}

/* At the entry: tag the call's data; the handler's own part follows. */
static __always_inline void *kstats_fp_tag(struct fprobe *fp, void *data)
{
	*(u64 *)data = kstats_fp_tag_of(fp);
	return data + KSTATS_FP_TAG_SIZE;
}

/*
 * At the exit: the handler's own part of the data, or NULL where the call
 * is not this probe's (a removed fprobe's, or one without data).
 */
static __always_inline void *kstats_fp_mine(struct fprobe *fp, void *data)
{
	if (unlikely(!data || *(u64 *)data != kstats_fp_tag_of(fp)))
		return NULL;
	return data + KSTATS_FP_TAG_SIZE;
}
#else
/* Before 6.14 a removed fprobe's rethook goes with its pending returns. */
#define KSTATS_FP_TAG_SIZE	0

static void kstats_fp_new_tag(struct kstats_fp_probe *f)
{
}

static __always_inline void *kstats_fp_tag(struct fprobe *fp, void *data)
{
	return data;
}

/* Non-NULL for a handler without data (value retval). */
static __always_inline void *kstats_fp_mine(struct fprobe *fp, void *data)
{
	return data ?: fp;
}
#endif

static __always_inline struct kstats_probe *kstats_fp_probe(struct fprobe *fp)
{
	return &container_of(fp, struct kstats_fp_probe, fp)->p;
}

static struct fprobe *kstats_fp_fp(const struct kstats_probe *p)
{
	struct kstats_fp_probe *f = container_of(p, struct kstats_fp_probe, p);

	return f->alone ? &f->alone->fp : &f->fp;
}

/* The probe of value argN's fprobe. */
static __always_inline struct kstats_probe *kstats_fp_arg_probe(struct fprobe *fp)
{
	if (KSTATS_FP_TAG_SIZE)
		return container_of(fp, struct kstats_fp_alone, fp)->p;
	return kstats_fp_probe(fp);
}

static notrace int kstats_fp_entry(struct fprobe *fp, unsigned long ip,
				   unsigned long ret_ip, struct kstats_fp_regs *regs,
				   void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_timed tm;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_timed_begin(p, &tm);
	kstats_call_begin(p, kstats_fp_tag(fp, data));
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	return 0;
}

static notrace void kstats_fp_exit(struct fprobe *fp, unsigned long ip,
				   unsigned long ret_ip, struct kstats_fp_regs *regs,
				   void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_timed tm;

	data = kstats_fp_mine(fp, data);
	if (!data)
		return;
	kstats_timed_begin(p, &tm);
	kstats_call_end(p, *(u64 *)data, kstats_fp_retval(regs), ret_ip);
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
}

/* by argN: the argument at the entry is the call's key. */
static notrace int kstats_fp_by_entry(struct fprobe *fp, unsigned long ip,
				      unsigned long ret_ip,
				      struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_call_by *c;
	struct kstats_timed tm;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	/* No registers, no key: the call is not measured. */
	if (unlikely(!regs)) {
		this_cpu_inc(p->stats->skipped);
		return 1;
	}
	kstats_timed_begin(p, &tm);
	c = kstats_fp_tag(fp, data);
	kstats_call_begin_by(p, c, kstats_fp_arg(regs, p->by_arg - 1));
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	return 0;
}

static notrace void kstats_fp_by_exit(struct fprobe *fp, unsigned long ip,
				      unsigned long ret_ip,
				      struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_call_by *c = kstats_fp_mine(fp, data);
	struct kstats_timed tm;

	if (!c)
		return;
	kstats_timed_begin(p, &tm);
	kstats_call_end_by(p, c, ret_ip);
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
}

static notrace int kstats_fp_pcpu_entry(struct fprobe *fp, unsigned long ip,
					unsigned long ret_ip,
					struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_timed tm;
	bool hook;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_timed_begin(p, &tm);
	hook = kstats_pcpu_begin(p, kstats_fp_tag(fp, data), regs ? kstats_fp_sp(regs) :
					    current_stack_pointer);
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	/* Non-zero: the exit handler is not called for this call. */
	return hook ? 0 : 1;
}

static notrace void kstats_fp_pcpu_exit(struct fprobe *fp, unsigned long ip,
					unsigned long ret_ip,
					struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_timed tm;

	data = kstats_fp_mine(fp, data);
	if (!data)
		return;
	kstats_timed_begin(p, &tm);
	kstats_pcpu_end(p, data, kstats_fp_retval(regs));
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
}

/* counter: the counter at entry; calls that migrate are not measured. */
static notrace int kstats_fp_counter_entry(struct fprobe *fp, unsigned long ip,
					   unsigned long ret_ip,
					   struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_timed tm;
	bool hook;

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_timed_begin(p, &tm);
	hook = kstats_counter_begin(p, kstats_fp_tag(fp, data));
	kstats_timed_end(p, KSTATS_SIDE_BEGIN, &tm);
	return hook ? 0 : 1;
}

static notrace void kstats_fp_counter_exit(struct fprobe *fp, unsigned long ip,
					   unsigned long ret_ip,
					   struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);
	struct kstats_timed tm;

	data = kstats_fp_mine(fp, data);
	if (!data)
		return;
	kstats_timed_begin(p, &tm);
	kstats_counter_end(p, data);
	kstats_timed_end(p, KSTATS_SIDE_END, &tm);
}

/* value argN: the argument registers are saved (pt_regs or ftrace_regs). */
static notrace int kstats_fp_value_arg(struct fprobe *fp, unsigned long ip,
				       unsigned long ret_ip,
				       struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_arg_probe(fp);

	if (regs && !kstats_stopped(p) && kstats_filter_pass(p))
		kstats_value_arg(p, kstats_fp_arg(regs, p->arg - 1));
	return 0;
}

/* value retval: non-zero leaves the return of this call unhooked. */
static notrace int kstats_fp_value_entry(struct fprobe *fp, unsigned long ip,
					 unsigned long ret_ip,
					 struct kstats_fp_regs *regs, void *data)
{
	struct kstats_probe *p = kstats_fp_probe(fp);

	if (kstats_stopped(p) || !kstats_filter_pass(p))
		return 1;
	kstats_fp_tag(fp, data);
	return 0;
}

static notrace void kstats_fp_value_exit(struct fprobe *fp, unsigned long ip,
					 unsigned long ret_ip,
					 struct kstats_fp_regs *regs, void *data)
{
	if (kstats_fp_mine(fp, data))
		kstats_value_ret(kstats_fp_probe(fp),
				 kstats_fp_retval(regs), ret_ip);
}

static void kstats_fprobe_handlers(struct kstats_probe *p)
{
	struct fprobe *fp = kstats_fp_fp(p);

	if (p->value == KSTATS_VALUE_ARG) {
		fp->entry_handler = kstats_fp_value_arg;
	} else if (p->value == KSTATS_VALUE_RETVAL) {
		fp->entry_handler = kstats_fp_value_entry;
		fp->exit_handler = kstats_fp_value_exit;
	} else if (p->counter && !p->pcpu) {
		fp->entry_handler = kstats_fp_counter_entry;
		fp->exit_handler = kstats_fp_counter_exit;
		fp->entry_data_size = sizeof(struct kstats_counter_call);
	} else if (p->pcpu) {
		fp->entry_handler = kstats_fp_pcpu_entry;
		fp->exit_handler = kstats_fp_pcpu_exit;
		fp->entry_data_size = sizeof(struct kstats_pcpu_call);
	} else if (p->by_arg) {
		fp->entry_handler = kstats_fp_by_entry;
		fp->exit_handler = kstats_fp_by_exit;
		fp->entry_data_size = sizeof(struct kstats_call_by);
	} else {
		fp->entry_handler = kstats_fp_entry;
		fp->exit_handler = kstats_fp_exit;
		fp->entry_data_size = sizeof(u64);
	}
	if (fp->exit_handler)
		fp->entry_data_size += KSTATS_FP_TAG_SIZE;
}

/* value argN's fprobe where it must live apart (see the top). */
static int kstats_fp_set_alone(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kstats_fp_probe *f = container_of(p, struct kstats_fp_probe, p);

	f->alone = NULL;
	if (!KSTATS_FP_TAG_SIZE || p->value != KSTATS_VALUE_ARG)
		return 0;
	f->alone = vzalloc(sizeof(*f->alone));
	if (!f->alone)
		return kstats_fail(cmd, -ENOMEM, "no memory for the fprobe of %s",
				   p->start.target.sym);
	f->alone->p = p;
	return 0;
}

/* Once it is unregistered, or was never: its missed count stays. */
static void kstats_fp_free_alone(struct kstats_probe *p)
{
	struct kstats_fp_probe *f = container_of(p, struct kstats_fp_probe, p);

	if (!f->alone)
		return;
	f->fp.nmissed = f->alone->fp.nmissed;
	vfree(f->alone);
	f->alone = NULL;
}

/* Register a disabled fprobe on FUNC at p->addr. */
static int kstats_fprobe_register(struct kstats_probe *p,
				  struct kstats_cmd *cmd)
{
	struct fprobe *fp;
	int ret;

	p->ops = &kstats_fprobe_ops;
	if (!p->addr) {
		ret = kstats_resolve(cmd, "trace", &p->start.target, &p->addr);
		if (ret)
			return ret;
	}
	ret = kstats_fp_set_alone(p, cmd);
	if (ret)
		return ret;
	fp = kstats_fp_fp(p);
	memset(fp, 0, sizeof(*fp));
	kstats_fp_new_tag(container_of(p, struct kstats_fp_probe, p));
	fp->flags = FPROBE_FL_DISABLED;
	kstats_fprobe_handlers(p);
	kstats_fp_maxactive(fp, max_t(int, 20, 2 * num_possible_cpus()));
	ret = register_fprobe_ips(fp, &p->addr, 1);
	if (ret)
		kstats_fp_free_alone(p);
	if (ret == -ENOENT || ret == -EINVAL)
		return kstats_fail(cmd, -EINVAL, "ftrace cannot trace %s",
				   p->start.target.sym);
	if (ret)
		return kstats_fail(cmd, ret, "fprobe on %s failed (error %d)",
				   p->start.target.sym, ret);
	p->registered = true;
	return 0;
}

/* Without "via", a FUNC that ftrace cannot trace passes on to kprobes. */
static int kstats_fprobe_attach(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	int ret = kstats_fprobe_register(p, cmd);

	if (ret == -EINVAL && cmd->via == KSTATS_VIA_AUTO && !p->registered) {
		cmd->why[0] = '\0';
		return 1;
	}
	return ret;
}

static int kstats_fprobe_enable(struct kstats_probe *p)
{
	enable_fprobe(kstats_fp_fp(p));
	return 0;
}

/*
 * A flag that fprobe's own ftrace callback tests: the function still
 * calls it, but no entry handler, return hook or clock read runs.
 */
static void kstats_fprobe_disable(struct kstats_probe *p)
{
	disable_fprobe(kstats_fp_fp(p));
}

/*
 * unregister_fprobe() stops its rethook before the ftrace shutdown, whose
 * RCU wait an explicit synchronize_rcu() doubles for exit handlers. If it
 * fails, handlers may still run: the probe is kept (registered stays true,
 * and the caller must not free it).
 */
/*
 * A function of its own, so that fail_function can make it fail
 * (tests/guest/95-detach-fail.sh): the failure must keep the probe.
 */
static noinline __noclone int kstats_fprobe_unregister(struct fprobe *fp)
{
	return unregister_fprobe(fp);
}
ALLOW_ERROR_INJECTION(kstats_fprobe_unregister, ERRNO);

static void kstats_fprobe_detach(struct kstats_probe *p)
{
	int ret;

	if (!p->registered)
		return;
	ret = kstats_fprobe_unregister(kstats_fp_fp(p));
	if (ret) {
		pr_err("%s: unregister_fprobe() failed (error %d): its probe is kept, and kstats stays loaded\n",
		       p->ks->name, ret);
		return;
	}
	p->registered = false;
	synchronize_rcu();
	kstats_fp_free_alone(p);
}

static unsigned long kstats_fprobe_missed(const struct kstats_probe *p)
{
	return READ_ONCE(kstats_fp_fp(p)->nmissed);
}

static const char *kstats_fprobe_name(const struct kstats_probe *p)
{
	return p->pcpu ? "pcpu-fprobe" : "fprobe";
}

static void kstats_fprobe_cal_rows(const struct kstats_probe *p,
				   enum kstats_cal_mech rows[2])
{
	rows[0] = p->pcpu ? KSTATS_CAL_PCPU_FPROBE : KSTATS_CAL_FPROBE;
	rows[1] = rows[0];
}

const struct kstats_mech_ops kstats_fprobe_ops = {
	.cmds = KSTATS_FUNC_CMDS,
	.via = KSTATS_VIA_FPROBE,
	.size = KSTATS_MECH_SIZE(struct kstats_fp_probe),
	.name = kstats_fprobe_name,
	.attach = kstats_fprobe_attach,
	.enable = kstats_fprobe_enable,
	.disable = kstats_fprobe_disable,
	.detach = kstats_fprobe_detach,
	.missed = kstats_fprobe_missed,
	.cal_rows = kstats_fprobe_cal_rows,
	.uses = kstats_func_uses,
};
