/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: record core. How a sample's per-CPU updates are made, each safe
 * against an interrupt that records on the same CPU.
 *
 * x86-64: this_cpu ops, one instruction each with the CPU's base in %gs;
 * a reference to this CPU's copy is the per-CPU pointer itself.
 *
 * arm64: a this_cpu op reads the CPU's offset each time, and the LSE form
 * of an add keeps three NOPs of room for its LL/SC form: six
 * instructions with its address, and on a preemptible kernel a
 * preemption section of its own. Instead the task holds its CPU
 * (kstats_pcpu_hold(): free on a kernel without kernel preemption, as
 * Debian's 6.12), takes the addresses of this CPU's copies once, with
 * raw_cpu_ptr(), and makes each update a relaxed atomic at its address
 * (atomic against an interrupt; nothing orders it against other memory,
 * as nothing does a this_cpu op): for an add, a NOP (the patched test for
 * LSE) and the LSE atomic, the LL/SC form out of line.
 *
 *   __kstats_pcpu                  the qualifier of a reference, written
 *                                  first in a declaration
 *   kstats_pcpu_hold()             keep the task on its CPU (arm64)
 *   kstats_pcpu_release()          the end of that
 *   kstats_pcpu_ref(p)             a reference to this CPU's copy of *@p,
 *                                  for as long as it is held
 *   kstats_pcpu_read(r)            *@r
 *   kstats_pcpu_add(r, v)          *@r += @v
 *   kstats_pcpu_cmpxchg(r, o, n)   *@r from @o to @n; the old value
 *
 * and, as this_cpu_add() of a long or a u64, and the same returning the
 * value before the add:
 *
 *   kstats_this_cpu_add(pcp, v)
 *   kstats_this_cpu_fetch_add(pcp, v)
 */
#ifndef _KSTATS_PCPU_H
#define _KSTATS_PCPU_H

#include <linux/percpu.h>
#include <linux/preempt.h>

#ifdef CONFIG_ARM64
#include <linux/atomic.h>

#define __kstats_pcpu
#define kstats_pcpu_hold()		preempt_disable_notrace()
#define kstats_pcpu_release()		preempt_enable_notrace()
#define kstats_pcpu_ref(p)		raw_cpu_ptr(p)
#define kstats_pcpu_read(r)		READ_ONCE(*(r))
#define kstats_pcpu_add(r, v)		atomic64_add((v), (atomic64_t *)(r))
#define kstats_pcpu_cmpxchg(r, o, n) \
	((u64)atomic64_cmpxchg_relaxed((atomic64_t *)(r), (o), (n)))

#define kstats_this_cpu_fetch_add(pcp, v)				\
({									\
	typeof(pcp) __ret;						\
									\
	kstats_pcpu_hold();						\
	__ret = atomic64_fetch_add_relaxed((v),			\
				(atomic64_t *)kstats_pcpu_ref(&(pcp)));	\
	kstats_pcpu_release();						\
	__ret;								\
})
#else
#define __kstats_pcpu			__percpu
#define kstats_pcpu_hold()		do { } while (0)
#define kstats_pcpu_release()		do { } while (0)
#define kstats_pcpu_ref(p)		(p)
#define kstats_pcpu_read(r)		this_cpu_read(*(r))
#define kstats_pcpu_add(r, v)		this_cpu_add(*(r), (v))
#define kstats_pcpu_cmpxchg(r, o, n)	this_cpu_cmpxchg(*(r), (o), (n))
/*
 * xadd gives the old value, which the compiler takes back from the new
 * one; typeof() would keep the per-CPU address space (7.x's %gs).
 */
#define kstats_this_cpu_fetch_add(pcp, v)				\
({									\
	typeof(v) __v = (v);						\
									\
	this_cpu_add_return(pcp, __v) - __v;				\
})
#endif

#define kstats_this_cpu_add(pcp, v)					\
do {									\
	kstats_pcpu_hold();						\
	kstats_pcpu_add(kstats_pcpu_ref(&(pcp)), (v));			\
	kstats_pcpu_release();						\
} while (0)

#endif /* _KSTATS_PCPU_H */
