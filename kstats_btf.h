/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers.
 *
 * The kernel's BTF as kstats reads it (kstats_btf.c): prototypes of
 * traced functions, for the direct mechanism (kstats_direct.c) and for
 * the width and signedness of value entries (kstats_value.c).
 */
#ifndef _KSTATS_BTF_H
#define _KSTATS_BTF_H

#include <linux/types.h>
#include "kstats_parse.h"

/* What a value of an argument or a return value is, from BTF. */
struct kstats_btf_int {
	u8 bytes;	/* 1, 2, 4 or 8 */
	bool is_signed;
};

/*
 * The integer type of argument @arg (1-based) of @func, or of its return
 * value if @arg is 0, in module @mod (NULL: vmlinux). Returns 0; -ENOENT
 * if there is no BTF for @func (its type is unknown); -EOPNOTSUPP with
 * the reason in @why for a type that is not an integer (a pointer, a
 * struct, void, floating point) or an argument not in register @arg.
 */
int kstats_btf_value_type(const char *func, const char *mod, unsigned int arg,
			  struct kstats_btf_int *type, char *why, size_t len);

/*
 * A field path from an argument: @names as written ("->a->b", or "" for
 * the argument itself); once resolved, the byte offset of each step's
 * member, each step but the last through a pointer.
 */
struct kstats_btf_path {
	const char *names;
	bool str_ok;		/* a char array may end it (by argN->MEMBER) */
	u8 n;
	u8 str;			/* it ends in a char array: bytes read, else 0 */
	u32 off[KSTATS_PATH_STEPS];
};

/*
 * The type of argument @arg (1-based) of function @sym, or of tracepoint
 * @sym if @tracepoint, or of the member that @path (NULL: none) reaches
 * from it: an integer, or a pointer if @ptr_ok (key argN only compares
 * it). Each step must go through a pointer to a struct or union that has
 * the member (in an anonymous member too), no bitfield. Returns as
 * kstats_btf_value_type() does, and @path's offsets.
 */
int kstats_btf_key_type(const char *sym, const char *mod, bool tracepoint,
			unsigned int arg, struct kstats_btf_path *path,
			bool ptr_ok, struct kstats_btf_int *type, char *why,
			size_t len);

/*
 * Whether every argument of @func (in module @mod, or vmlinux if NULL)
 * travels in a register, from BTF: 0, or -EOPNOTSUPP with the reason in
 * @why.
 */
int kstats_btf_regs_only(const char *func, const char *mod, char *why,
			 size_t len);

/* Module of the code at @addr, in @buf (KSYM_SYMBOL_LEN), or NULL: vmlinux. */
const char *kstats_btf_module_of(unsigned long addr, char *buf);

/* The cache of parsed BTF: its module notifier, and everything freed. */
int kstats_btf_init(void);
void kstats_btf_exit(void);

#endif /* _KSTATS_BTF_H */
