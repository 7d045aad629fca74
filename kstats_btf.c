// SPDX-License-Identifier: GPL-2.0
/*
 * kstats mechanism "direct": may a trampoline call FUNC? The trampoline
 * restores all six argument registers before it calls FUNC's body, but
 * its own frame sits between the caller's stack arguments and the body:
 * FUNC must take every argument in registers (x86-64 SysV: at most six
 * integer or pointer words, no struct or union by value, no floating
 * point, no variadic list). The prototype comes from the kernel's BTF in
 * /sys/kernel/btf (modules get no in-kernel BTF lookup: btf_type_by_id()
 * is exported, but nothing that finds vmlinux's or a module's BTF). A
 * function without BTF is refused: its frame cannot be known.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/btf.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "kstats_compat.h"
#include "kstats_direct.h"

/* Integer argument registers of the x86-64 calling convention. */
#define KSTATS_ARG_REGS		6
/* Largest return value that comes back in rax:rdx. */
#define KSTATS_RET_REGS_SIZE	16

/* One BTF blob: vmlinux's, or a module's split on top of it. */
struct kstats_btf_blob {
	void *data;
	const char *strs;
	u32 strs_len;
	u32 first_id;	/* id of its first type */
	u32 nr;		/* types in it */
};

/* Both blobs and the types of both, by id (0 is void). */
struct kstats_btf {
	struct kstats_btf_blob base, mod;
	const struct btf_type **types;
	u32 nr;		/* ids 1 .. nr - 1 are valid */
};

/* Bytes of kind-specific data after a struct btf_type; <0 if unknown. */
static long kstats_btf_extra(const struct btf_type *t)
{
	u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	default:
		return -1;
	}
}

/*
 * Walk the types of @b: once to count them, then with @types to index
 * them from b->first_id. -EINVAL for a kind unknown here.
 */
static int kstats_btf_walk(struct kstats_btf_blob *b,
			   const struct btf_type **types)
{
	const struct btf_header *h = b->data;
	const u8 *p = (const u8 *)b->data + h->hdr_len + h->type_off;
	const u8 *end = p + h->type_len;
	u32 n = 0;

	while (p + sizeof(struct btf_type) <= end) {
		const struct btf_type *t = (const struct btf_type *)p;
		long extra = kstats_btf_extra(t);

		if (extra < 0)
			return -EINVAL;
		if (types)
			types[b->first_id + n] = t;
		n++;
		p += sizeof(*t) + extra;
	}
	if (p != end)
		return -EINVAL;
	b->nr = n;
	return 0;
}

/*
 * Read /sys/kernel/btf/@name, check its header and count its types. Not
 * with kernel_read_file(), whose LSM hook (IPE) warns about reads of no
 * known purpose.
 */
static int kstats_btf_load(struct kstats_btf_blob *b, const char *name,
			   u32 first_id)
{
	char path[64 + MODULE_NAME_LEN];
	const struct btf_header *h;
	struct file *f;
	loff_t pos = 0;
	ssize_t len;
	loff_t size;

	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", name);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	size = i_size_read(file_inode(f));
	if (size < (loff_t)KSTATS_BTF_HDR_MIN || size > INT_MAX) {
		filp_close(f, NULL);
		return -EINVAL;
	}
	b->data = vmalloc(size);
	len = b->data ? 0 : -ENOMEM;
	/* sysfs hands out a page per read. */
	while (len >= 0 && pos < size) {
		len = kernel_read(f, b->data + pos, size - pos, &pos);
		if (!len)
			len = -EIO;
	}
	filp_close(f, NULL);
	if (len < 0)
		return len;
	len = size;
	h = b->data;
	if (h->magic != BTF_MAGIC ||
	    h->hdr_len < KSTATS_BTF_HDR_MIN || h->hdr_len > len ||
	    (u64)h->type_off + h->type_len > len - h->hdr_len ||
	    (u64)h->str_off + h->str_len > len - h->hdr_len || !h->str_len)
		return -EINVAL;
	b->strs = (const char *)b->data + h->hdr_len + h->str_off;
	b->strs_len = h->str_len;
	b->first_id = first_id;
	return kstats_btf_walk(b, NULL);
}

static void kstats_btf_free(struct kstats_btf *btf)
{
	vfree(btf->base.data);
	vfree(btf->mod.data);
	kvfree(btf->types);
}

/* vmlinux's BTF and, for a module's function, the module's on top. */
static int kstats_btf_open(struct kstats_btf *btf, const char *mod)
{
	int ret;

	ret = kstats_btf_load(&btf->base, "vmlinux", 1);
	if (!ret && mod)
		ret = kstats_btf_load(&btf->mod, mod, 1 + btf->base.nr);
	if (ret)
		return ret;
	btf->nr = 1 + btf->base.nr + btf->mod.nr;
	btf->types = kvcalloc(btf->nr, sizeof(*btf->types), GFP_KERNEL);
	if (!btf->types)
		return -ENOMEM;
	kstats_btf_walk(&btf->base, btf->types);
	if (mod)
		kstats_btf_walk(&btf->mod, btf->types);
	return 0;
}

static const struct btf_type *kstats_btf_type(const struct kstats_btf *btf,
					      u32 id)
{
	return id && id < btf->nr ? btf->types[id] : NULL;
}

/* Name of @t: its string in whichever blob holds it. */
static const char *kstats_btf_name(const struct kstats_btf *btf,
				   const struct btf_type *t, u32 id)
{
	const struct kstats_btf_blob *b = id >= btf->mod.first_id &&
					  btf->mod.data ? &btf->mod : &btf->base;
	u32 off = t->name_off;

	/* Split BTF: a module's string offsets continue vmlinux's. */
	if (b == &btf->mod) {
		if (off < btf->base.strs_len)
			b = &btf->base;
		else
			off -= btf->base.strs_len;
	}
	return off < b->strs_len ? b->strs + off : "";
}

/* @id without typedefs and qualifiers; NULL for void or a bad id. */
static const struct btf_type *kstats_btf_resolve(const struct kstats_btf *btf,
						 u32 id)
{
	const struct btf_type *t;
	int hops;

	for (hops = 0; hops < 32; hops++) {
		t = kstats_btf_type(btf, id);
		if (!t)
			return NULL;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return t;
		}
	}
	return NULL;
}

/* Registers that an argument of type @id takes, or -1 if not only registers. */
static int kstats_btf_arg_regs(const struct kstats_btf *btf, u32 id)
{
	const struct btf_type *t = kstats_btf_resolve(btf, id);

	if (!t)
		return -1;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR:
		return 1;
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (t->size <= 8)
			return 1;
		return t->size == 16 ? 2 : -1;
	default:
		/* struct or union by value, floating point, ... */
		return -1;
	}
}

/* Check the prototype of FUNC type @t; 0 or -EOPNOTSUPP with @why. */
static int kstats_btf_check_func(const struct kstats_btf *btf,
				 const struct btf_type *t, const char *func,
				 char *why, size_t len)
{
	const struct btf_type *proto = kstats_btf_type(btf, t->type);
	const struct btf_param *args;
	const struct btf_type *ret;
	int regs = 0, n, i, k;

	if (!proto || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
		goto bad;
	/* A struct returned in memory: its address comes in rdi. */
	ret = kstats_btf_resolve(btf, proto->type);
	if (ret && (BTF_INFO_KIND(ret->info) == BTF_KIND_STRUCT ||
		    BTF_INFO_KIND(ret->info) == BTF_KIND_UNION) &&
	    ret->size > KSTATS_RET_REGS_SIZE)
		regs++;
	if (ret && BTF_INFO_KIND(ret->info) == BTF_KIND_FLOAT) {
		snprintf(why, len, "%s returns floating point", func);
		return -EOPNOTSUPP;
	}
	args = (const struct btf_param *)(proto + 1);
	n = BTF_INFO_VLEN(proto->info);
	for (i = 0; i < n; i++) {
		if (!args[i].type) {
			snprintf(why, len, "%s takes a variable argument list",
				 func);
			return -EOPNOTSUPP;
		}
		k = kstats_btf_arg_regs(btf, args[i].type);
		if (k < 0) {
			snprintf(why, len,
				 "%s: argument %d is not passed in registers",
				 func, i + 1);
			return -EOPNOTSUPP;
		}
		regs += k;
	}
	if (regs > KSTATS_ARG_REGS) {
		snprintf(why, len,
			 "%s takes %d argument registers, more than %d: some on the stack",
			 func, regs, KSTATS_ARG_REGS);
		return -EOPNOTSUPP;
	}
	return 0;
bad:
	snprintf(why, len, "%s: bad BTF prototype", func);
	return -EOPNOTSUPP;
}

int kstats_btf_regs_only(const char *func, const char *mod, char *why,
			 size_t len)
{
	struct kstats_btf btf = {};
	const struct btf_type *t;
	int ret, found = 0;
	u32 id;

	ret = kstats_btf_open(&btf, mod);
	if (ret) {
		snprintf(why, len, "no BTF for %s (/sys/kernel/btf/%s: error %d)",
			 func, mod ?: "vmlinux", ret);
		ret = -EOPNOTSUPP;
		goto out;
	}
	/* Every FUNC of that name must qualify: static ones may repeat. */
	for (id = mod ? btf.mod.first_id : 1; id < btf.nr; id++) {
		t = btf.types[id];
		if (BTF_INFO_KIND(t->info) != BTF_KIND_FUNC ||
		    strcmp(kstats_btf_name(&btf, t, id), func))
			continue;
		found++;
		ret = kstats_btf_check_func(&btf, t, func, why, len);
		if (ret)
			goto out;
	}
	if (!found) {
		snprintf(why, len, "no BTF prototype for %s", func);
		ret = -EOPNOTSUPP;
	}
out:
	kstats_btf_free(&btf);
	return ret;
}
