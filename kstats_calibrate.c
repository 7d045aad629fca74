// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: commands. Calls the mechanisms through their table
 * (kstats_mech.c) and the record core.
 *
 * kstats calibration: "calibrate" in _control times kstats's own empty
 * functions under every mechanism the kernel has, so that the listing can
 * say how much of a sample is the probe.
 *
 * For each mechanism, N calls of empty code are made twice, once bare and
 * once probed, each call timed by its caller. The probe's entry measures
 * the empty code as its bias (p50 and p99: what an empty call measures
 * as); the caller's median grows by the probe's cost. "clock" is two
 * back-to-back reads of ktime_get_mono_fast_ns(), "clock-local" of
 * local_clock(), "clock-tsc" of the cycle counter where entries may use
 * it ("clock-cntvct" on arm64), "manual" a kstats_record() hook around
 * the empty function. Each mechanism runs with the default clock (the
 * cycle counter where usable, else mono), and its bias is shown only on
 * entries with that clock. "direct" calls kstats_calib_empty() through a
 * trampoline on every kernel with direct calls: its prototype is known
 * here, no BTF of kstats.ko needed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/tracepoint.h>
#include "kstats_compat.h"
#include "kstats_handler.h"
#include "kstats_internal.h"
#include "kstats_mech.h"
#include "kstats_probe.h"
#include "kstats_target.h"

/* Calls per stretch with interrupts off; then a chance to reschedule. */
#define KSTATS_CAL_CHUNK	64
/* frac_bits of the calibration entries: slots at most 3% wide. */
#define KSTATS_CAL_BITS		5

static const char * const kstats_cal_names[KSTATS_CAL_NR] = {
	[KSTATS_CAL_CLOCK] = "clock",
	[KSTATS_CAL_CLOCK_LOCAL] = "clock-local",
	[KSTATS_CAL_CLOCK_TSC] = "clock-" KSTATS_CYCLES_NAME,
	[KSTATS_CAL_MANUAL] = "manual",
	[KSTATS_CAL_KRETPROBE] = "kretprobe",
	[KSTATS_CAL_FPROBE] = "fprobe",
	[KSTATS_CAL_PCPU_KRETPROBE] = "pcpu-kretprobe",
	[KSTATS_CAL_PCPU_FPROBE] = "pcpu-fprobe",
	[KSTATS_CAL_FTRACE_CPU] = "pair-ftrace-cpu",
	[KSTATS_CAL_FTRACE_TASK] = "pair-ftrace-task",
	[KSTATS_CAL_KPROBE_CPU] = "pair-kprobe-cpu",
	[KSTATS_CAL_KPROBE_TASK] = "pair-kprobe-task",
	[KSTATS_CAL_TP_CPU] = "pair-tracepoint-cpu",
	[KSTATS_CAL_TP_TASK] = "pair-tracepoint-task",
	[KSTATS_CAL_DIRECT] = "direct",
};

/* What the caller runs and times for a mechanism. */
enum kstats_cal_code {
	KSTATS_CAL_NOTHING,	/* two mono clock reads back to back */
	KSTATS_CAL_NOTHING_LOCAL,	/* the same with local_clock() */
	KSTATS_CAL_NOTHING_TSC,		/* the same with the TSC, scaled */
	KSTATS_CAL_HOOKED,	/* the empty function inside a manual hook */
	KSTATS_CAL_FUNC,	/* the empty function */
	KSTATS_CAL_MARKS,	/* the two marks, one after the other */
	KSTATS_CAL_TPS,		/* the two tracepoints, one after the other */
};

/* Codes that time two clock reads and nothing else. */
static bool kstats_cal_clock_only(enum kstats_cal_code code)
{
	return code == KSTATS_CAL_NOTHING || code == KSTATS_CAL_NOTHING_LOCAL ||
	       code == KSTATS_CAL_NOTHING_TSC;
}

struct kstats_cal_result {
	bool valid;
	u64 bias_p50;
	u64 bias_p99;
	u64 cost;
	unsigned int samples;
	enum kstats_cmd_clock clock;	/* of the entry calibrated */
};

/* Written and read under kstats_mutex. */
static struct kstats_cal_result kstats_cal[KSTATS_CAL_NR];

/* Side effects that keep the calls, and keep the marks two functions. */
static unsigned int kstats_cal_a, kstats_cal_b, kstats_cal_c;

/*
 * The calibrated code: empty, out of line, traceable. Its arguments all
 * travel in registers, which "direct" takes for granted (own_code).
 */
static noinline __noclone void kstats_calib_empty(unsigned int i)
{
	WRITE_ONCE(kstats_cal_c, i);
}

static noinline __noclone void kstats_calib_mark_a(unsigned int i)
{
	WRITE_ONCE(kstats_cal_a, i);
}

static noinline __noclone void kstats_calib_mark_b(unsigned int i)
{
	WRITE_ONCE(kstats_cal_b, i);
}

KSTATS_DECLARE_TRACE(kstats_calib_start, TP_PROTO(unsigned int i), TP_ARGS(i));
KSTATS_DECLARE_TRACE(kstats_calib_end, TP_PROTO(unsigned int i), TP_ARGS(i));
DEFINE_TRACE(kstats_calib_start, TP_PROTO(unsigned int i), TP_ARGS(i));
DEFINE_TRACE(kstats_calib_end, TP_PROTO(unsigned int i), TP_ARGS(i));

#ifdef KSTATS_HAVE_CYCLES
/* The cycle counter's scale for "clock-tsc", set before it runs. */
static u32 kstats_cal_tsc_mult, kstats_cal_tsc_shift;
#endif

/* One call of @code as its caller sees it, in ns. */
static __always_inline u64 kstats_cal_call(enum kstats_cal_code code,
					   struct kstats *hook, unsigned int i)
{
	u64 t0, t1, h;

	if (code == KSTATS_CAL_NOTHING_LOCAL) {
		t0 = local_clock();
		return kstats_since(local_clock(), t0);
	}
#ifdef KSTATS_HAVE_CYCLES
	if (code == KSTATS_CAL_NOTHING_TSC) {
		t0 = kstats_cycles();
		return mul_u64_u32_shr(kstats_since(kstats_cycles(), t0),
				       kstats_cal_tsc_mult, kstats_cal_tsc_shift);
	}
#endif
	t0 = kstats_now();
	switch (code) {
	case KSTATS_CAL_HOOKED:
		h = kstats_now();
		kstats_calib_empty(i);
		kstats_record(hook, kstats_since(kstats_now(), h));
		break;
	case KSTATS_CAL_FUNC:
		kstats_calib_empty(i);
		break;
	case KSTATS_CAL_MARKS:
		kstats_calib_mark_a(i);
		kstats_calib_mark_b(i);
		break;
	case KSTATS_CAL_TPS:
		trace_kstats_calib_start(i);
		trace_kstats_calib_end(i);
		break;
	default:
		break;
	}
	t1 = kstats_now();
	return kstats_since(t1, t0);
}

static int kstats_cal_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * @n calls of @code, each time in @ns, sorted; -EINTR if a fatal signal
 * came.
 */
static int kstats_cal_run(enum kstats_cal_code code, struct kstats *hook,
			  u64 *ns, unsigned int n)
{
	unsigned long flags;
	unsigned int i, j;

	for (i = 0; i < n; i += KSTATS_CAL_CHUNK) {
		local_irq_save(flags);
		for (j = i; j < n && j < i + KSTATS_CAL_CHUNK; j++)
			ns[j] = kstats_cal_call(code, hook, j);
		local_irq_restore(flags);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	sort(ns, n, sizeof(*ns), kstats_cal_cmp, NULL);
	return 0;
}

/* The @per_mille-th value of @n sorted samples. */
static u64 kstats_cal_quantile(const u64 *ns, unsigned int n,
			       unsigned int per_mille)
{
	return ns[min(n - 1, n * per_mille / 1000)];
}

/*
 * The @per_mille-th sample of @ks, as the mean of the slot it falls in,
 * all CPUs together. Only the calibration reads it, once its probes are
 * gone, so the counters hold still.
 */
static u64 kstats_cal_entry_quantile(struct kstats *ks, unsigned int per_mille)
{
	u64 total = 0, rank, cum = 0;
	unsigned int slot;
	int cpu;

	for (slot = 0; slot < ks->nr_slots; slot++)
		for_each_possible_cpu(cpu)
			total += per_cpu_ptr(ks->slots, cpu)[slot].count;
	if (!total)
		return 0;
	rank = div_u64(total * per_mille, 1000) + 1;
	for (slot = 0; slot < ks->nr_slots; slot++) {
		u64 count = 0, sum = 0;

		for_each_possible_cpu(cpu) {
			count += per_cpu_ptr(ks->slots, cpu)[slot].count;
			sum += per_cpu_ptr(ks->slots, cpu)[slot].sum;
		}
		cum += count;
		if (count && cum >= rank)
			return kstats_slot_mean(slot, ks->frac_bits, sum, count);
	}
	return 0;
}

/* Address of @fn where a kprobe at its entry goes (after an endbr). */
static unsigned long kstats_cal_addr(void *fn)
{
	struct kprobe kp = {
		.addr = fn,
		.flags = KPROBE_FLAG_DISABLED,
	};

	if (register_kprobe(&kp))
		return 0;
	unregister_kprobe(&kp);
	return (unsigned long)kp.addr;
}

/* The command that a user would write for @mech, on kstats's own code. */
static enum kstats_cal_code kstats_cal_cmd(enum kstats_cal_mech mech,
					   struct kstats_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->bits = KSTATS_CAL_BITS;
	strscpy(c->name, "calibration", sizeof(c->name));
	switch (mech) {
	case KSTATS_CAL_KRETPROBE:
	case KSTATS_CAL_FPROBE:
	case KSTATS_CAL_PCPU_KRETPROBE:
	case KSTATS_CAL_PCPU_FPROBE:
		c->op = (mech == KSTATS_CAL_PCPU_KRETPROBE ||
			 mech == KSTATS_CAL_PCPU_FPROBE) ?
			KSTATS_CMD_TRACE_PCPU : KSTATS_CMD_TRACE;
		c->via = (mech == KSTATS_CAL_FPROBE ||
			  mech == KSTATS_CAL_PCPU_FPROBE) ?
			 KSTATS_VIA_FPROBE : KSTATS_VIA_KRETPROBE;
		strscpy(c->start.sym, "kstats_calib_empty", sizeof(c->start.sym));
		return KSTATS_CAL_FUNC;
	case KSTATS_CAL_DIRECT:
		c->op = KSTATS_CMD_TRACE;
		c->via = KSTATS_VIA_DIRECT;
		strscpy(c->start.sym, "kstats_calib_empty", sizeof(c->start.sym));
		return KSTATS_CAL_FUNC;
	case KSTATS_CAL_FTRACE_CPU:
	case KSTATS_CAL_FTRACE_TASK:
	case KSTATS_CAL_KPROBE_CPU:
	case KSTATS_CAL_KPROBE_TASK:
		c->op = KSTATS_CMD_TRACE_PAIR;
		c->key = (mech == KSTATS_CAL_KPROBE_TASK ||
			  mech == KSTATS_CAL_FTRACE_TASK) ? KSTATS_KEY_TASK :
							    KSTATS_KEY_CPU;
		strscpy(c->start.sym, "kstats_calib_mark_a", sizeof(c->start.sym));
		strscpy(c->end.sym, "kstats_calib_mark_b", sizeof(c->end.sym));
		return KSTATS_CAL_MARKS;
	case KSTATS_CAL_TP_CPU:
	case KSTATS_CAL_TP_TASK:
		c->op = KSTATS_CMD_TRACE_PAIR;
		c->key = mech == KSTATS_CAL_TP_TASK ? KSTATS_KEY_TASK :
						      KSTATS_KEY_CPU;
		c->start.tracepoint = true;
		c->end.tracepoint = true;
		strscpy(c->start.sym, "kstats_calib_start", sizeof(c->start.sym));
		strscpy(c->end.sym, "kstats_calib_end", sizeof(c->end.sym));
		return KSTATS_CAL_TPS;
	case KSTATS_CAL_CLOCK_LOCAL:
		return KSTATS_CAL_NOTHING_LOCAL;
	case KSTATS_CAL_CLOCK_TSC:
		return KSTATS_CAL_NOTHING_TSC;
	case KSTATS_CAL_MANUAL:
		return KSTATS_CAL_HOOKED;
	default:
		return KSTATS_CAL_NOTHING;
	}
}

/* Probe of @mech on kstats's own code, like kstats_trace() without a file. */
static struct kstats_probe *kstats_cal_attach(enum kstats_cal_mech mech,
					      struct kstats_cmd *c,
					      struct kstats *ks)
{
	struct kstats_probe *p = kstats_probe_alloc(c);
	int ret;

	if (!p)
		return ERR_PTR(-ENOMEM);
	ks->origin = KSTATS_ORIGIN_CONTROL;
	ks->probe = p;
	p->ks = ks;
	if (c->op != KSTATS_CMD_TRACE_PAIR) {
		p->addr = kstats_cal_addr(kstats_calib_empty);
		p->own_code = true;
	} else if (c->start.tracepoint) {
		p->start.tp = &__tracepoint_kstats_calib_start;
		p->end.tp = &__tracepoint_kstats_calib_end;
	} else {
		p->start.addr = kstats_cal_addr(kstats_calib_mark_a);
		p->end.addr = kstats_cal_addr(kstats_calib_mark_b);
		/* The same marks, through kprobes rather than ftrace. */
		p->start.no_ftrace = mech == KSTATS_CAL_KPROBE_CPU ||
				     mech == KSTATS_CAL_KPROBE_TASK;
		p->end.no_ftrace = p->start.no_ftrace;
	}
	ret = kstats_attach(p, c);
	if (ret) {
		kstats_detach(p);
		if (p->registered)
			return ERR_PTR(-EBUSY);	/* leaked, see kstats_detach() */
		kstats_probe_free(p);
		return ERR_PTR(ret);
	}
	ret = kstats_enable(p);
	if (ret) {
		kstats_detach(p);
		if (p->registered)
			return ERR_PTR(-EBUSY);
		kstats_probe_free(p);
		return ERR_PTR(ret);
	}
	return p;
}

/*
 * Calibrate @mech with @n calls each way, @ns and @bare being room for
 * @n samples. Returns -EOPNOTSUPP where the kernel lacks the mechanism;
 * another error with its reason in @why (if any is known).
 */
static int kstats_cal_one(enum kstats_cal_mech mech, unsigned int n,
			  u64 *ns, u64 *bare, struct kstats_cal_result *r,
			  char *why, size_t len)
{
	struct kstats_probe *p = NULL;
	enum kstats_cal_code code;
	struct kstats_cmd *c;
	struct kstats *ks;
	u64 bare_p50;
	int ret;

	if (!KSTATS_HAVE_FPROBES &&
	    (mech == KSTATS_CAL_FPROBE || mech == KSTATS_CAL_PCPU_FPROBE))
		return -EOPNOTSUPP;
	if (!KSTATS_HAVE_TP_PROBES &&
	    (mech == KSTATS_CAL_TP_CPU || mech == KSTATS_CAL_TP_TASK))
		return -EOPNOTSUPP;
	if (mech == KSTATS_CAL_CLOCK_TSC) {
		if (!kstats_tsc_usable())
			return -EOPNOTSUPP;
		kstats_tsc_scale_now(&kstats_cal_tsc_mult,
				     &kstats_cal_tsc_shift);
	}
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	code = kstats_cal_cmd(mech, c);
	ks = kstats_alloc(c->name, c->bits);
	if (IS_ERR(ks)) {
		kfree(c);
		return PTR_ERR(ks);
	}

	/* The bare code first, then the same with the probe or hook. */
	ret = kstats_cal_run(code == KSTATS_CAL_HOOKED ? KSTATS_CAL_FUNC : code,
			     NULL, bare, n);
	if (ret)
		goto out;
	bare_p50 = kstats_cal_quantile(bare, n, 500);
	if (code == KSTATS_CAL_FUNC || code == KSTATS_CAL_MARKS ||
	    code == KSTATS_CAL_TPS) {
		p = kstats_cal_attach(mech, c, ks);
		if (IS_ERR(p)) {
			ret = PTR_ERR(p);
			strscpy(why, c->why, len);
			if (ret == -EBUSY)
				ks = NULL;	/* its probe may still use it */
			p = NULL;
			goto out;
		}
	}
	if (!kstats_cal_clock_only(code))
		ret = kstats_cal_run(code, ks, ns, n);
	if (p) {
		kstats_detach(p);
		if (p->registered) {
			ret = -EBUSY;
			ks = NULL;
			p = NULL;
			goto out;
		}
	}
	if (ret)
		goto out;

	r->samples = n;
	r->clock = p ? p->clock : KSTATS_CLOCK_DEFAULT;
	if (kstats_cal_clock_only(code)) {
		r->bias_p50 = bare_p50;
		r->bias_p99 = kstats_cal_quantile(bare, n, 990);
		r->cost = bare_p50;
	} else {
		r->bias_p50 = kstats_cal_entry_quantile(ks, 500);
		r->bias_p99 = kstats_cal_entry_quantile(ks, 990);
		r->cost = kstats_cal_quantile(ns, n, 500);
		r->cost = r->cost > bare_p50 ? r->cost - bare_p50 : 0;
	}
	r->valid = true;
out:
	if (p)
		kstats_probe_free(p);
	if (ks)
		kstats_free(ks);
	kfree(c);
	return ret;
}

/* "calibrate [samples N]", under kstats_control_mutex. */
int kstats_calibrate(struct kstats_cmd *cmd)
{
	struct kstats_cal_result *res;
	unsigned int n = cmd->samples;
	u64 *ns, *bare;
	int mech, ret = 0;

	lockdep_assert_held(&kstats_control_mutex);
	res = kcalloc(KSTATS_CAL_NR, sizeof(*res), GFP_KERNEL);
	ns = kvmalloc_array(n, sizeof(*ns), GFP_KERNEL);
	bare = kvmalloc_array(n, sizeof(*bare), GFP_KERNEL);
	if (!res || !ns || !bare) {
		ret = kstats_fail(cmd, -ENOMEM, "out of memory");
		goto out;
	}
	/*
	 * A mechanism that fails (all direct trampolines in use: ENOSPC) is
	 * left out, with its reason logged; the others are kept.
	 */
	for (mech = 0; mech < KSTATS_CAL_NR; mech++) {
		cmd->why[0] = '\0';
		ret = kstats_cal_one(mech, n, ns, bare, &res[mech], cmd->why,
				     sizeof(cmd->why));
		if (ret == -EINTR) {
			kstats_fail(cmd, ret, "calibrate: interrupted");
			goto out;
		}
		if (ret && ret != -EOPNOTSUPP)
			pr_warn_ratelimited("calibrate: %s not measured: %s (error %d)\n",
					    kstats_cal_names[mech],
					    cmd->why[0] ? cmd->why : "failed",
					    ret);
		ret = 0;
	}
	cmd->why[0] = '\0';
	mutex_lock(&kstats_mutex);
	memcpy(kstats_cal, res, sizeof(kstats_cal));
	mutex_unlock(&kstats_mutex);
out:
	kvfree(bare);
	kvfree(ns);
	kfree(res);
	return ret;
}

unsigned int kstats_calibration_lines(void)
{
	return KSTATS_CAL_NR;
}

/* Line @i of the calibration table, if that mechanism was calibrated. */
void kstats_calibration_show(struct seq_file *m, unsigned int i)
{
	const struct kstats_cal_result *r;

	lockdep_assert_held(&kstats_mutex);
	if (i >= KSTATS_CAL_NR || !kstats_cal[i].valid)
		return;
	r = &kstats_cal[i];
	seq_printf(m, "calibration mechanism %s bias_ns %llu bias_p99_ns %llu cost_ns %llu samples %u\n",
		   kstats_cal_names[i], r->bias_p50, r->bias_p99, r->cost,
		   r->samples);
}

/*
 * " bias_ns B bias_p99_ns Q" of an entry, from the calibration of its
 * mechanism; for a pair hooked two ways (ftrace, kprobe, tracepoint), the
 * mean of both kinds. "-" before any calibration.
 */
void kstats_show_bias(struct seq_file *m, const struct kstats_probe *p)
{
	const struct kstats_cal_result *a, *b;
	enum kstats_cal_mech rows[2];

	lockdep_assert_held(&kstats_mutex);
	p->ops->cal_rows(p, rows);
	a = &kstats_cal[rows[0]];
	b = &kstats_cal[rows[1]];
	/* Another clock than the calibration's has another bias. */
	if (!a->valid || !b->valid || a->clock != p->clock ||
	    b->clock != p->clock) {
		seq_puts(m, " bias_ns - bias_p99_ns -");
		return;
	}
	seq_printf(m, " bias_ns %llu bias_p99_ns %llu",
		   (a->bias_p50 + b->bias_p50) / 2,
		   (a->bias_p99 + b->bias_p99) / 2);
}
