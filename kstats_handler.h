/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: mechanisms (inlined into their handlers). Calls the
 * helpers (filters, values, counters, clocks) and the record core.
 *
 * Handler bodies, one place each, shared by every mechanism and inlined
 * into each mechanism's handlers. They run with preemption disabled (the
 * pair bodies disable it themselves, for callers that do not), never
 * sleep and take no lock.
 */
#ifndef _KSTATS_HANDLER_H
#define _KSTATS_HANDLER_H

#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include "kstats.h"
#include "kstats_cycles.h"
#include "kstats_counter.h"
#include "kstats_internal.h"
#include "kstats_keys.h"
#include "kstats_probe.h"

/* One handler call in this many, per CPU, is timed for overhead_ns. */
#define KSTATS_TIMED_EVERY	64

/*
 * The clock of all handlers: NMI-safe, no seqcount retry loop, monotonic
 * across CPUs (see Documentation/kstats.rst). It is non-zero once modules
 * can load, so 0 can mean "no start".
 */
static __always_inline u64 kstats_now(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * The clock of an entry (see kstats_clock.c): the raw TSC where the
 * kernel keeps it in step across CPUs (clock tsc, the default there),
 * kstats_now(), or with "clock local" (only where start and end are on
 * one CPU by construction: trace pcpu:FUNC, key cpu) local_clock(),
 * cheaper where the clocksource is slow to read but only as good as the
 * machine's sched_clock().
 */
static __always_inline u64 kstats_clock(const struct kstats_probe *p)
{
#ifdef KSTATS_HAVE_CYCLES
	if (p->clock == KSTATS_CLOCK_TSC)
		return kstats_cycles();
#endif
	return p->clock == KSTATS_CLOCK_LOCAL ? local_clock() : kstats_now();
}

/* True where reading @p's clock calls no function (the cycle counter). */
static __always_inline bool kstats_clock_inline(const struct kstats_probe *p)
{
#ifdef KSTATS_HAVE_CYCLES
	return p->clock == KSTATS_CLOCK_TSC;
#else
	return false;
#endif
}

/*
 * The start or end reading of pcpu: and pair entries: the clock, or with
 * "counter" this CPU's counter; false if the CPU has none (counted).
 */
static __always_inline bool kstats_read(struct kstats_probe *p, u64 *v)
{
	if (unlikely(p->counter))
		return kstats_counter_read(p, v);
	*v = kstats_clock(p);
	return true;
}

/* Time since @t0; 0 if the clock went back (across a clock update). */
static __always_inline u64 kstats_since(u64 now, u64 t0)
{
	return now > t0 ? now - t0 : 0;
}

#ifdef KSTATS_HAVE_CYCLES
/*
 * @d, a difference of two cycle counter readings of @p, into ns; false,
 * and counted apart, once the kernel has marked the counter unstable
 * (TSCs of two CPUs may then disagree). kstats_tsc_scale() gives shifts
 * below 64: said so, the product's shift is one instruction.
 */
static __always_inline bool kstats_cycles_ns(struct kstats_probe *p, u64 *d)
{
	if (unlikely(kstats_cycles_unstable())) {
		this_cpu_inc(p->stats->unstable);
		return false;
	}
	*d = mul_u64_u32_shr(*d, p->tsc_mult, p->tsc_shift & 63);
	return true;
}
#endif

/*
 * Records @d, a difference of two readings of @p's clock, in ns, with
 * @ret, FUNC's return value where there is one (by retval). A TSC
 * difference is scaled here; once the kernel has marked the TSC unstable,
 * TSCs of two CPUs may disagree, and the sample is counted apart.
 */
static __always_inline void kstats_record_delta(struct kstats_probe *p, u64 d,
						unsigned long ret,
						unsigned long to)
{
#ifdef KSTATS_HAVE_CYCLES
	if (p->clock == KSTATS_CLOCK_TSC && !kstats_cycles_ns(p, &d))
		return;
#endif
	kstats_probe_record_to(p, d, ret, to);
}

/*
 * Records the time from @t0 to @now, two readings of @p's clock; @to as
 * for kstats_probe_record_to().
 */
static __always_inline void kstats_record_since(struct kstats_probe *p,
						u64 now, u64 t0,
						unsigned long ret,
						unsigned long to)
{
	kstats_record_delta(p, kstats_since(now, t0), ret, to);
}

/*
 * overhead_ns: every KSTATS_TIMED_EVERY-th handler call on a CPU reads the
 * clock before and after its body, with interrupts off in between so that
 * only the handler is timed. @tm->t stays 0 for the calls not timed.
 */
struct kstats_timed {
	u64 t;
	unsigned long flags;
};

/* Counts a handler call; true for the one in KSTATS_TIMED_EVERY timed. */
static __always_inline bool kstats_timed_due(struct kstats_probe *p)
{
	return unlikely(!(kstats_this_cpu_fetch_add(p->stats->hits, 1) %
			  KSTATS_TIMED_EVERY));
}

/*
 * Starts timing a handler call that kstats_timed_due() picked; such a
 * call also takes the cycle counter's mark from the kernel.
 */
static __always_inline void kstats_timed_arm(struct kstats_timed *tm)
{
#ifdef KSTATS_HAVE_CYCLES
	kstats_cycles_refresh();
#endif
	local_irq_save(tm->flags);
	tm->t = local_clock();
}

static __always_inline void kstats_timed_begin(struct kstats_probe *p,
					       struct kstats_timed *tm)
{
	tm->t = 0;
	if (kstats_timed_due(p))
		kstats_timed_arm(tm);
}

static __always_inline void kstats_timed_end(struct kstats_probe *p,
					     enum kstats_side side,
					     struct kstats_timed *tm)
{
	if (likely(!tm->t))
		return;
	this_cpu_add(p->stats->handler_ns[side], kstats_since(local_clock(), tm->t));
	this_cpu_inc(p->stats->timed[side]);
	local_irq_restore(tm->flags);
}

/*
 * A stopped entry's handlers only check its state: trace FUNC hooks no
 * return and reads no clock.
 */
static __always_inline bool kstats_stopped(struct kstats_probe *p)
{
	return !READ_ONCE(p->ks->active);
}

/* trace FUNC: FUNC was entered; @t0 is storage of this call. */
static __always_inline void kstats_call_begin(const struct kstats_probe *p,
					      u64 *t0)
{
	*t0 = kstats_clock(p);
}

/*
 * trace FUNC: FUNC returns @ret to @to (0 where the hook does not say,
 * see kstats_probe_record_to()). A call that entered before the entry's
 * last start, so before a stop, is not measured: its time would include
 * the stop. Three instructions (load, compare, branch); the clock of trace
 * FUNC is the same on every CPU (tsc or mono, never local).
 */
static __always_inline void kstats_call_end(struct kstats_probe *p, u64 t0,
					    unsigned long ret, unsigned long to)
{
	if (unlikely(t0 < READ_ONCE(p->resumed)))
		return;
	kstats_record_since(p, kstats_clock(p), t0, ret, to);
}

/* The clock of a lean entry: the cycle counter (0 where there is none). */
static __always_inline u64 kstats_cycles_lean(void)
{
#ifdef KSTATS_HAVE_CYCLES
	return kstats_cycles();
#else
	return 0;
#endif
}

/*
 * The start time of a lean entry's call, which kstats_call_end_lean()
 * ends: the read of kstats_cycles_begin() (0 where there is none).
 */
static __always_inline u64 kstats_call_begin_lean(void)
{
#ifdef KSTATS_HAVE_CYCLES
	return kstats_cycles_begin();
#else
	return 0;
#endif
}

/*
 * kstats_call_end() of an entry of a lean shape (enum kstats_shape), up
 * to the sample: false if none is taken, else its value in @d. It calls
 * nothing, so that the caller may be a leaf (whose code that a traced
 * function runs cannot re-enter) or call out only in tail calls: GCC
 * realigns the stack of any function that keeps kstats_cycles_ns()'s
 * product and makes another call.
 */
static __always_inline bool kstats_call_end_lean(struct kstats_probe *p,
						 u64 t0, u64 *d)
{
#ifdef KSTATS_HAVE_CYCLES
	u64 now = kstats_cycles_end();

	/* A stop moves @resumed past every start (kstats_state.c). */
	if (unlikely(t0 < READ_ONCE(p->resumed)))
		return false;
	*d = kstats_since(now, t0);
	return kstats_cycles_ns(p, d);
#else
	return false;
#endif
}

/* A lean entry's sample of @d cycles, scaled, or counted as unstable. */
static __always_inline void kstats_add_cycles_lean(struct kstats_probe *p, u64 d)
{
#ifdef KSTATS_HAVE_CYCLES
	if (kstats_cycles_ns(p, &d))
		__kstats_add_sample(p->ks, d);
#endif
}

/*
 * trace FUNC by argN: per call, the start time and the key read at FUNC's
 * entry, which the return hands to the sample in place of the return
 * value (kstats_keys_start_key()). Two words: fprobe's data per call is
 * bounded, per fprobe and, from 6.14, for all fprobes on a function.
 */
struct kstats_call_by {
	u64 t0;
	u64 by;
};

static __always_inline void kstats_call_begin_by(const struct kstats_probe *p,
						 struct kstats_call_by *c,
						 unsigned long v)
{
	u64 k[2];

	kstats_keys_start_key(p, v, k);
	c->by = k[0];
	kstats_call_begin(p, &c->t0);
}

static __always_inline void kstats_call_end_by(struct kstats_probe *p,
					       const struct kstats_call_by *c,
					       unsigned long to)
{
	u64 k[2] = { c->by, 0 };

	kstats_call_end(p, c->t0, (unsigned long)k, to);
}

/* Interrupt level of the current context, higher above lower. */
static __always_inline unsigned int kstats_context_level(void)
{
	if (in_nmi())
		return 3;
	if (in_hardirq())
		return 2;
	return in_serving_softirq() ? 1 : 0;
}

/*
 * Recursion guard of the hooks that the kernel does not guard itself
 * (direct trampolines, ftrace_ops callbacks without
 * FTRACE_OPS_FL_RECURSION, tracepoint probes). Per CPU, kstats_busy holds
 * the context of the innermost kstats handler running there (the NMI,
 * hardirq and serving-softirq bits of preempt_count(), plus one), or 0.
 * Interrupts nest: a handler keeps the value it found and puts it back at
 * exit. A hit in the same context as the innermost handler comes from
 * code that handler called, such as a traced clocksource read: it is
 * skipped and counted in missed. kprobes, kretprobes and fprobes have the
 * kernel's own guard, which counts in their nmissed. Callers keep
 * preemption disabled from enter to exit, so that the value is put back
 * on the CPU that holds it.
 */
static __always_inline bool kstats_guard_enter(struct kstats_probe *p,
					       unsigned int *saved)
{
	unsigned int ctx = (preempt_count() &
			    (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)) + 1;
	unsigned int cur = __this_cpu_read(kstats_busy);

	if (unlikely(cur == ctx)) {
		this_cpu_inc(p->stats->recursed);
		return false;
	}
	__this_cpu_write(kstats_busy, ctx);
	barrier();
	*saved = cur;
	return true;
}

static __always_inline void kstats_guard_exit(unsigned int saved)
{
	barrier();
	__this_cpu_write(kstats_busy, saved);
}

/* Changes whenever the current task leaves its CPU. */
static __always_inline unsigned long kstats_switches(void)
{
	return current->nvcsw + current->nivcsw;
}

/*
 * trace pcpu:FUNC: FUNC was entered with stack pointer @sp; @c is storage
 * of this call. A call pending on this CPU that still runs beneath this
 * one makes this one nested: it is skipped and its return not hooked.
 * Any other pending call has left the CPU (slept, was preempted or
 * migrated, or exited inside FUNC) and loses the CPU to this one; its
 * return, if it ever comes, finds that out.
 *
 * Every access to the owner is from its own CPU; an interrupt that comes
 * between two of them sees the call as pending and nests, or takes the
 * CPU, which the interrupted call then sees by its sequence number.
 */
static __always_inline bool kstats_pcpu_begin(struct kstats_probe *p,
					      struct kstats_pcpu_call *c,
					      unsigned long sp)
{
	struct kstats_pcpu_owner *o = this_cpu_ptr(p->owner);
	unsigned long me = (unsigned long)current;
	unsigned int level = kstats_context_level();

	if (READ_ONCE(o->task) == me && o->switches == kstats_switches() &&
	    (level > o->level || (level == o->level && sp < o->sp))) {
		this_cpu_inc(p->stats->skipped);
		return false;
	}
	WRITE_ONCE(o->task, 0);
	barrier();
	o->switches = kstats_switches();
	o->sp = sp;
	o->level = level;
	c->seq = ++o->seq;
	c->cpu = smp_processor_id();
	c->epoch = READ_ONCE(p->ks->epoch);
	barrier();
	WRITE_ONCE(o->task, me);
	if (likely(kstats_read(p, &c->t0)))
		return true;
	WRITE_ONCE(o->task, 0);
	return false;
}

/*
 * trace pcpu:FUNC: FUNC returns @ret. Measured only if it returns on its CPU,
 * still holding it, and its task never left the CPU in between, and no
 * start (so no stop) came in between: its epoch, not its time, since
 * clock local is not comparable with a start on another CPU.
 */
static __always_inline void kstats_pcpu_end(struct kstats_probe *p,
					    const struct kstats_pcpu_call *c,
					    unsigned long ret)
{
	struct kstats_pcpu_owner *o;
	bool mine, undisturbed, read;
	u64 now;

	read = kstats_read(p, &now);
	if (c->cpu != smp_processor_id()) {
		/* Migrated: the next call on c->cpu takes that CPU. */
		this_cpu_inc(p->stats->skipped);
		return;
	}
	o = this_cpu_ptr(p->owner);
	mine = o->seq == c->seq && READ_ONCE(o->task) == (unsigned long)current;
	undisturbed = mine && o->switches == kstats_switches();
	if (mine)
		WRITE_ONCE(o->task, 0);
	if (undisturbed && read) {
		if (likely(c->epoch == READ_ONCE(p->ks->epoch)))
			kstats_record_since(p, now, c->t0, ret, 0);
	} else if (read) {
		this_cpu_inc(p->stats->skipped);
	}
}

#endif /* _KSTATS_HANDLER_H */
