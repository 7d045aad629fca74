/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Value entries, "trace FUNC value argN|retval": handler bodies that
 * sample an argument or the return value instead of the time. They read
 * no clock; the _control side is in kstats_value.c.
 */
#ifndef _KSTATS_VALUE_H
#define _KSTATS_VALUE_H

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include "kstats.h"
#include "kstats_probe.h"

struct seq_file;

/* value argN: FUNC was entered with @v as argument N. */
static __always_inline void kstats_value_arg(struct kstats_probe *p,
					     unsigned long v)
{
	kstats_record(p->ks, v);
}

/*
 * An error return: -1 to -MAX_ERRNO as a long (or ERR_PTR()), or as an
 * int, whose upper register half the callee leaves zero on x86-64.
 */
static __always_inline bool kstats_value_is_error(unsigned long v)
{
	return IS_ERR_VALUE(v) ||
	       (!upper_32_bits(v) &&
		IS_ERR_VALUE((unsigned long)(s32)lower_32_bits(v)));
}

/* value retval: FUNC returned @v; errors are counted, not binned. */
static __always_inline void kstats_value_ret(struct kstats_probe *p,
					     unsigned long v)
{
	if (kstats_value_is_error(v))
		this_cpu_inc(p->stats->errors);
	else
		kstats_record(p->ks, v);
}

/* "value argN" or "value retval errors N" for the _control listing. */
void kstats_value_show(struct seq_file *m, const struct kstats_probe *p,
		       unsigned long errors);

#endif /* _KSTATS_VALUE_H */
