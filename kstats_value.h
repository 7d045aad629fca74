/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers (bodies inlined into handlers).
 *
 * Value entries, "trace FUNC value argN|retval": handler bodies that
 * sample an argument or the return value instead of the time. They read
 * no clock; the _control side is in kstats_value.c.
 */
#ifndef _KSTATS_VALUE_H
#define _KSTATS_VALUE_H

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include "kstats.h"
#include "kstats_keys.h"
#include "kstats_probe.h"

struct kstats_cmd;
struct seq_file;

/* The value of a register holding @p's argument or return value. */
static __always_inline u64 kstats_value_norm(const struct kstats_probe *p,
					     u64 v)
{
	return kstats_int_cut(v, p->vbits, p->vsigned, p->vmask);
}

/* value argN: FUNC was entered with @v, the register of argument N. */
static __always_inline void kstats_value_arg(struct kstats_probe *p,
					     unsigned long v)
{
	kstats_probe_record(p, kstats_value_norm(p, v));
}

/*
 * An error return: -1 to -MAX_ERRNO as a long (or ERR_PTR()), or as a
 * 32-bit value, masked (u32) or sign-extended (s32).
 */
static __always_inline bool kstats_value_is_error(unsigned long v)
{
	return IS_ERR_VALUE(v) ||
	       (!upper_32_bits(v) &&
		IS_ERR_VALUE((unsigned long)(s32)lower_32_bits(v)));
}

/*
 * value retval: FUNC returned @v to @to (see kstats_probe_record_to());
 * errors are counted, not binned, for types of 32 bits and more.
 */
static __always_inline void kstats_value_ret(struct kstats_probe *p,
					     unsigned long v, unsigned long to)
{
	unsigned long ret = v;

	v = kstats_value_norm(p, v);
	if (p->verrors && kstats_value_is_error(v))
		this_cpu_inc(p->stats->errors);
	else
		kstats_probe_record_to(p, v, ret, to);
}

/*
 * The type of the value of @p, from BTF or @cmd's "type", at trace time;
 * -EOPNOTSUPP with the reason in @cmd->why for one that is not an
 * integer (a pointer), -EINVAL for no BTF and no type, or a type that
 * BTF contradicts.
 */
int kstats_value_setup(struct kstats_probe *p, struct kstats_cmd *cmd);
/* The same for argument @arg, or the return value (0), into @type. */
struct kstats_btf_int;
int kstats_value_type(struct kstats_probe *p, struct kstats_cmd *cmd,
		      unsigned int arg, struct kstats_btf_int *type);

/*
 * The type of argument @arg (1-based) at @site, FUNC or a pair's side
 * (@what in refusals): from BTF, a function's prototype or a tracepoint's
 * btf_trace_ typedef, else @cmd's "type", whose width BTF must not
 * contradict; an integer, or a pointer too if @ptr_ok. @opt ("key",
 * "by") names the option in refusals. With a field @path (NULL: none),
 * the type of the member it reaches, and its offsets: BTF only.
 */
struct kstats_site;
struct kstats_btf_path;
int kstats_site_arg_type(struct kstats_cmd *cmd, struct kstats_site *site,
			 const char *what, const char *opt, unsigned int arg,
			 struct kstats_btf_path *path, bool ptr_ok,
			 struct kstats_btf_int *type);

/* @path as BTF resolved it, ending in a member of @bytes bytes. */
struct kstats_path;
void kstats_path_set(struct kstats_path *pth,
		     const struct kstats_btf_path *path, u8 bytes);

/* "value argN" or "value retval errors N" for the _control listing. */
void kstats_value_show(struct seq_file *m, const struct kstats_probe *p,
		       unsigned long errors);

#endif /* _KSTATS_VALUE_H */
