// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * The kernel's BTF, read by kstats: may a direct trampoline call FUNC,
 * and how wide and signed is a value entry's argument or return value?
 *
 * Direct: the trampoline restores all six argument registers before it
 * calls FUNC's body, but its own frame sits between the caller's stack
 * arguments and the body: FUNC must take every argument in registers
 * (at most six integer or pointer words, no struct or union by value, no
 * floating point, no variadic list: x86-64 SysV's rule, which arm64's
 * AAPCS64, with eight argument registers, meets too). A function without BTF
 * is refused: its frame cannot be known.
 *
 * Modules get no in-kernel BTF lookup (btf_type_by_id() is exported, but
 * nothing that finds vmlinux's or a module's BTF, and a module's .BTF is
 * dropped after its init), so the blobs are read from /sys/kernel/btf,
 * opened from the root of PID 1 (init): the writer of _control may be in
 * another mount namespace. Not with kernel_read_file_from_path_initns(),
 * whose LSM hook warns on reads of no known purpose (IPE, Debian 6.12:
 * "no rule setup for kernel_read_file enum 0"). Parsed blobs are cached:
 * vmlinux's until kstats goes, a module's until that module goes.
 *
 * What BTF says decides memory safety (the frame a trampoline builds,
 * the width of a value read), so a file is read only if it is the
 * kernel's own: sysfs's node /kernel/btf/NAME, not whatever root mounted
 * over /sys/kernel/btf (a tmpfs, a bind mount of another file), which
 * under integrity lockdown would hand root a way to corrupt the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/btf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kallsyms.h>
#include <linux/kernfs.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "kstats_btf.h"
#include "kstats_compat.h"

/* Integer argument registers of x86-64 (arm64 has eight: six are used). */
#define KSTATS_ARG_REGS		6
/* Largest return value that comes back in rax:rdx. */
#define KSTATS_RET_REGS_SIZE	16

/*
 * One parsed BTF blob: vmlinux's, or a module's split on top of it, with
 * its types indexed from @first_id.
 */
struct kstats_btf_blob {
	struct list_head node;	/* modules: in kstats_btf_mods */
	char name[MODULE_NAME_LEN];
	void *data;
	const char *strs;
	u32 strs_len;
	u32 first_id;	/* id of its first type */
	u32 nr;		/* types in it */
	const struct btf_type **types;	/* [id - first_id] */
};

/* A view of vmlinux's blob and, for a module's function, the module's. */
struct kstats_btf {
	const struct kstats_btf_blob *base, *mod;
	u32 nr;		/* ids 1 .. nr - 1 are valid */
};

/* The cache; the blobs are used under the mutex only. */
static DEFINE_MUTEX(kstats_btf_mutex);
static struct kstats_btf_blob *kstats_btf_vmlinux;
static LIST_HEAD(kstats_btf_mods);
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
 * them from 0. -EINVAL for a kind unknown here.
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
			types[n] = t;
		n++;
		p += sizeof(*t) + extra;
	}
	if (p != end)
		return -EINVAL;
	b->nr = n;
	return 0;
}

/*
 * Check the header of the @len bytes of @b->data and find its strings.
 * -EINVAL if it is not BTF or does not fit.
 */
static int kstats_btf_parse_header(struct kstats_btf_blob *b, size_t len)
{
	const struct btf_header *h = b->data;

	/* 24 bytes, or 32 from 7.1 on: see KSTATS_BTF_HDR_MIN. */
	if (len < KSTATS_BTF_HDR_MIN || h->magic != BTF_MAGIC ||
	    h->hdr_len < KSTATS_BTF_HDR_MIN || h->hdr_len > len ||
	    (u64)h->type_off + h->type_len > len - h->hdr_len ||
	    (u64)h->str_off + h->str_len > len - h->hdr_len || !h->str_len)
		return -EINVAL;
	b->strs = (const char *)b->data + h->hdr_len + h->str_off;
	b->strs_len = h->str_len;
	/* Every name is read as a C string: the last one must end. */
	if (b->strs[b->strs_len - 1])
		return -EINVAL;
	return 0;
}

/* Open /sys/kernel/btf/@name from the root of PID 1 (init). */
static struct file *kstats_btf_open_initns(const char *name)
{
	char path[64 + MODULE_NAME_LEN];
	struct task_struct *init;
	struct path root;
	bool has_root;
	struct file *f;

	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", name);
	/*
	 * PID 1's root, not init_task's: from 7.x the latter may be an
	 * empty root below the one that init mounted (ENOENT on 7.3).
	 */
	rcu_read_lock();
	init = pid_task(find_pid_ns(1, &init_pid_ns), PIDTYPE_PID);
	if (init)
		get_task_struct(init);
	rcu_read_unlock();
	if (!init)
		return ERR_PTR(-ESRCH);
	task_lock(init);
	has_root = init->fs;
	if (has_root)
		get_fs_root(init->fs, &root);
	task_unlock(init);
	put_task_struct(init);
	if (!has_root)
		return ERR_PTR(-ESRCH);
	f = file_open_root(&root, path, O_RDONLY, 0);
	path_put(&root);
	return f;
}

/*
 * Whether @f is sysfs's /kernel/btf/@name, the kernel's own BTF: 0, or
 * -EPERM, logged. A sysfs inode's i_private is its kernfs node.
 */
static int kstats_btf_trusted(struct file *f, const char *name)
{
	char want[32 + MODULE_NAME_LEN], path[sizeof(want)];
	struct inode *inode = file_inode(f);

	snprintf(want, sizeof(want), "/kernel/btf/%s", name);
	if (inode->i_sb->s_magic == SYSFS_MAGIC && inode->i_private &&
	    kernfs_path(inode->i_private, path, sizeof(path)) > 0 &&
	    !strcmp(path, want))
		return 0;
	pr_warn_ratelimited("/sys/kernel/btf/%s is not the kernel's BTF (not sysfs's node): not read\n",
			    name);
	return -EPERM;
}

/* Read /sys/kernel/btf/@name into @b, check it and count its types. */
static int kstats_btf_read(struct kstats_btf_blob *b, const char *name,
			   u32 first_id)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t len;
	loff_t size;
	int ret;

	f = kstats_btf_open_initns(name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = kstats_btf_trusted(f, name);
	if (ret) {
		fput(f);
		return ret;
	}
	size = i_size_read(file_inode(f));
	if (size < (loff_t)KSTATS_BTF_HDR_MIN || size > INT_MAX) {
		fput(f);
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
	fput(f);
	if (len < 0)
		return len;
	ret = kstats_btf_parse_header(b, size);
	if (ret)
		return ret;
	b->first_id = first_id;
	ret = kstats_btf_walk(b, NULL);
	if (ret)
		return ret;
	b->types = kvcalloc(b->nr, sizeof(*b->types), GFP_KERNEL);
	if (!b->types)
		return -ENOMEM;
	return kstats_btf_walk(b, b->types);
}

static void kstats_btf_blob_free(struct kstats_btf_blob *b)
{
	if (!b)
		return;
	vfree(b->data);
	kvfree(b->types);
	kfree(b);
}

/* Parse /sys/kernel/btf/@name: a new blob, or an ERR_PTR(). */
static struct kstats_btf_blob *kstats_btf_blob_load(const char *name,
						    u32 first_id)
{
	struct kstats_btf_blob *b = kzalloc(sizeof(*b), GFP_KERNEL);
	int ret;

	if (!b)
		return ERR_PTR(-ENOMEM);
	strscpy(b->name, name, sizeof(b->name));
	ret = kstats_btf_read(b, name, first_id);
	if (ret) {
		kstats_btf_blob_free(b);
		return ERR_PTR(ret);
	}
	return b;
}

/*
 * vmlinux's BTF and, for a module's function, the module's on top, from
 * the cache or read into it; under kstats_btf_mutex.
 */
static int kstats_btf_get(struct kstats_btf *btf, const char *mod)
{
	struct kstats_btf_blob *b;

	lockdep_assert_held(&kstats_btf_mutex);
	if (!kstats_btf_vmlinux) {
		b = kstats_btf_blob_load("vmlinux", 1);
		if (IS_ERR(b))
			return PTR_ERR(b);
		kstats_btf_vmlinux = b;
	}
	btf->base = kstats_btf_vmlinux;
	btf->mod = NULL;
	btf->nr = 1 + btf->base->nr;
	if (!mod)
		return 0;
	list_for_each_entry(b, &kstats_btf_mods, node) {
		if (!strcmp(b->name, mod)) {
			btf->mod = b;
			btf->nr += b->nr;
			return 0;
		}
	}
	b = kstats_btf_blob_load(mod, btf->nr);
	if (IS_ERR(b))
		return PTR_ERR(b);
	list_add(&b->node, &kstats_btf_mods);
	btf->mod = b;
	btf->nr += b->nr;
	return 0;
}

/* Drop the cached BTF of module @name, if any; under kstats_btf_mutex. */
static void kstats_btf_drop(const char *name)
{
	struct kstats_btf_blob *b, *tmp;

	list_for_each_entry_safe(b, tmp, &kstats_btf_mods, node) {
		if (!strcmp(b->name, name)) {
			list_del(&b->node);
			kstats_btf_blob_free(b);
		}
	}
}

/*
 * A module that comes or goes: its BTF, if cached, was another module's
 * of that name, or is about to go. Coming too, for a blob read while the
 * module of that name was going.
 */
static int kstats_btf_module_notify(struct notifier_block *nb,
				    unsigned long action, void *data)
{
	struct module *mod = data;

	if (action != MODULE_STATE_GOING && action != MODULE_STATE_COMING)
		return NOTIFY_DONE;
	mutex_lock(&kstats_btf_mutex);
	kstats_btf_drop(mod->name);
	mutex_unlock(&kstats_btf_mutex);
	return NOTIFY_OK;
}

static struct notifier_block kstats_btf_module_nb = {
	.notifier_call = kstats_btf_module_notify,
};

int kstats_btf_init(void)
{
	return register_module_notifier(&kstats_btf_module_nb);
}

void kstats_btf_exit(void)
{
	struct kstats_btf_blob *b, *tmp;

	unregister_module_notifier(&kstats_btf_module_nb);
	mutex_lock(&kstats_btf_mutex);
	list_for_each_entry_safe(b, tmp, &kstats_btf_mods, node) {
		list_del(&b->node);
		kstats_btf_blob_free(b);
	}
	kstats_btf_blob_free(kstats_btf_vmlinux);
	kstats_btf_vmlinux = NULL;
	mutex_unlock(&kstats_btf_mutex);
}

static const struct btf_type *kstats_btf_type(const struct kstats_btf *btf,
					      u32 id)
{
	if (!id || id >= btf->nr)
		return NULL;
	if (id < btf->base->first_id + btf->base->nr)
		return btf->base->types[id - btf->base->first_id];
	return btf->mod->types[id - btf->mod->first_id];
}

/*
 * The string at @off of the blob that holds type @id. Split BTF: a
 * module's string offsets continue vmlinux's.
 */
static const char *kstats_btf_str(const struct kstats_btf *btf, u32 off, u32 id)
{
	const struct kstats_btf_blob *b = btf->base;

	if (btf->mod && id >= btf->mod->first_id && off >= btf->base->strs_len) {
		b = btf->mod;
		off -= btf->base->strs_len;
	}
	return off < b->strs_len ? b->strs + off : "";
}

/* Name of @t: its string in whichever blob holds it. */
static const char *kstats_btf_name(const struct kstats_btf *btf,
				   const struct btf_type *t, u32 id)
{
	return kstats_btf_str(btf, t->name_off, id);
}

/* @id without typedefs and qualifiers, as an id; 0 for a bad one. */
static u32 kstats_btf_resolved_id(const struct kstats_btf *btf, u32 id)
{
	const struct btf_type *t;
	int hops;

	for (hops = 0; hops < 32; hops++) {
		t = kstats_btf_type(btf, id);
		if (!t)
			return 0;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

/* @id without typedefs and qualifiers; NULL for void or a bad id. */
static const struct btf_type *kstats_btf_resolve(const struct kstats_btf *btf,
						 u32 id)
{
	return kstats_btf_type(btf, kstats_btf_resolved_id(btf, id));
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

/*
 * The next FUNC called @func after id @id (0: from the start) in the
 * blob where @func must be: the module's for a module's function. 0 if
 * none. Static functions of one name may repeat.
 */
static u32 kstats_btf_next_func(const struct kstats_btf *btf, const char *func,
				u32 id)
{
	const struct btf_type *t;

	if (!id)
		id = btf->mod ? btf->mod->first_id - 1 : 0;
	for (id++; id < btf->nr; id++) {
		t = kstats_btf_type(btf, id);
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    !strcmp(kstats_btf_name(btf, t, id), func))
			return id;
	}
	return 0;
}

/*
 * A visit of every FUNC called @func in one BTF blob: @fn is called on
 * each, @found counts them, until @fn fails.
 */
struct kstats_btf_visit {
	const char *func;
	int (*fn)(const struct kstats_btf *btf, const struct btf_type *t,
		  struct kstats_btf_visit *v);
	unsigned int found;
	int btf_err;		/* the blob could not be had */
	char *why;
	size_t len;
};

/* Under kstats_btf_mutex: the blob stays while @v->fn looks at it. */
static int kstats_btf_visit_funcs(const char *mod, struct kstats_btf_visit *v)
{
	struct kstats_btf btf;
	u32 id = 0;
	int ret;

	mutex_lock(&kstats_btf_mutex);
	v->found = 0;
	ret = kstats_btf_get(&btf, mod);
	v->btf_err = ret;
	while (!ret && (id = kstats_btf_next_func(&btf, v->func, id))) {
		v->found++;
		ret = v->fn(&btf, kstats_btf_type(&btf, id), v);
	}
	mutex_unlock(&kstats_btf_mutex);
	return ret;
}

static int kstats_btf_regs_cb(const struct kstats_btf *btf,
			      const struct btf_type *t,
			      struct kstats_btf_visit *v)
{
	return kstats_btf_check_func(btf, t, v->func, v->why, v->len);
}

/* Every FUNC of that name must qualify. */
int kstats_btf_regs_only(const char *func, const char *mod, char *why,
			 size_t len)
{
	struct kstats_btf_visit v = {
		.func = func, .fn = kstats_btf_regs_cb, .why = why, .len = len,
	};
	int ret = kstats_btf_visit_funcs(mod, &v);

	if (v.btf_err) {
		snprintf(why, len, "no BTF for %s (/sys/kernel/btf/%s: error %d)",
			 func, mod ?: "vmlinux", v.btf_err);
		return -EOPNOTSUPP;
	}
	if (ret)
		return ret;
	if (!v.found) {
		snprintf(why, len, "no BTF prototype for %s", func);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The integer that type @id is, or -EOPNOTSUPP with @why; a pointer too
 * (an unsigned long) if @ptr_ok.
 */
static int kstats_btf_int_of(const struct kstats_btf *btf, u32 id,
			     const char *what, bool ptr_ok,
			     struct kstats_btf_int *type, char *why, size_t len)
{
	const struct btf_type *t = kstats_btf_resolve(btf, id);
	u32 enc;

	if (!t) {
		snprintf(why, len, "%s is void", what);
		return -EOPNOTSUPP;
	}
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		enc = *(const u32 *)(t + 1);
		type->is_signed = BTF_INT_ENCODING(enc) & BTF_INT_SIGNED;
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		/* The kind flag marks signed enums (pahole 1.24 on). */
		type->is_signed = BTF_INFO_KFLAG(t->info);
		break;
	case BTF_KIND_PTR:
		if (ptr_ok) {
			type->bytes = sizeof(void *);
			type->is_signed = false;
			return 0;
		}
		/* Kernel and user addresses, in files every user reads. */
		snprintf(why, len, "%s is a pointer: its histogram would show addresses",
			 what);
		return -EOPNOTSUPP;
	default:
		snprintf(why, len, "%s is not an integer", what);
		return -EOPNOTSUPP;
	}
	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8) {
		snprintf(why, len, "%s is a %u-byte integer", what, t->size);
		return -EOPNOTSUPP;
	}
	type->bytes = t->size;
	return 0;
}

/*
 * Member @name (@nlen bytes) of struct or union @sid, or of an anonymous
 * struct or union in it (at most @depth deep): its type into @tid, its
 * byte offset added to @off. 0, -ENOENT, or -EOPNOTSUPP for a bitfield.
 */
static int kstats_btf_member(const struct kstats_btf *btf, u32 sid,
			     const char *name, size_t nlen, int depth,
			     u32 *tid, u32 *off)
{
	const struct btf_type *st = kstats_btf_type(btf, sid);
	const struct btf_type *mt;
	const struct btf_member *m;
	u32 bits, i, inner;
	int ret;

	if (!st)
		return -ENOENT;
	m = (const struct btf_member *)(st + 1);
	for (i = 0; i < BTF_INFO_VLEN(st->info); i++, m++) {
		const char *mname = kstats_btf_str(btf, m->name_off, sid);

		bits = BTF_INFO_KFLAG(st->info) ? BTF_MEMBER_BIT_OFFSET(m->offset) :
						  m->offset;
		if (mname[0]) {
			if (strlen(mname) != nlen || strncmp(mname, name, nlen))
				continue;
			if ((BTF_INFO_KFLAG(st->info) &&
			     BTF_MEMBER_BITFIELD_SIZE(m->offset)) || bits % 8)
				return -EOPNOTSUPP;
			*tid = m->type;
			*off += bits / 8;
			return 0;
		}
		mt = kstats_btf_resolve(btf, m->type);
		if (depth <= 0 || !mt ||
		    (BTF_INFO_KIND(mt->info) != BTF_KIND_STRUCT &&
		     BTF_INFO_KIND(mt->info) != BTF_KIND_UNION) || bits % 8)
			continue;
		inner = *off + bits / 8;
		ret = kstats_btf_member(btf, kstats_btf_resolved_id(btf, m->type),
					name, nlen, depth - 1, tid, &inner);
		if (ret != -ENOENT) {
			*off = inner;
			return ret;
		}
	}
	return -ENOENT;
}

/*
 * Whether type @id is an array of 1-byte integers (a name: a task's comm,
 * a disk's disk_name): its first KSTATS_STR_KEY bytes at most into @bytes.
 */
static bool kstats_btf_chars(const struct kstats_btf *btf, u32 id, u8 *bytes)
{
	const struct btf_type *t = kstats_btf_resolve(btf, id), *et;
	const struct btf_array *a;

	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_ARRAY)
		return false;
	a = (const struct btf_array *)(t + 1);
	et = kstats_btf_resolve(btf, a->type);
	if (!et || BTF_INFO_KIND(et->info) != BTF_KIND_INT || et->size != 1 ||
	    !a->nelems)
		return false;
	*bytes = min_t(u32, a->nelems, KSTATS_STR_KEY);
	return true;
}

/*
 * Type @id of argument @arg of @of (a function, or "tracepoint NAME"),
 * then the members that @path names, each through a pointer to a struct
 * or union: the last one's integer type (@what names it in refusals).
 */
static int kstats_btf_expr_of(const struct kstats_btf *btf, u32 id,
			      const char *of, unsigned int arg,
			      const char *what, struct kstats_btf_path *path,
			      bool ptr_ok, struct kstats_btf_int *type,
			      char *why, size_t len)
{
	const char *s = path ? path->names : "", *name;
	const struct btf_type *t;
	size_t nlen;
	int ret;

	if (path)
		path->n = 0;
	while (*s) {
		if (path->n == KSTATS_PATH_STEPS) {
			snprintf(why, len, "a field path of at most %d members",
				 KSTATS_PATH_STEPS);
			return -EOPNOTSUPP;
		}
		name = s + 2;	/* past "->", as the parser checked */
		nlen = strcspn(name, "-");
		t = kstats_btf_resolve(btf, id);
		if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_PTR) {
			snprintf(why, len, "arg%u%.*s of %s is no pointer: ->%.*s cannot follow it",
				 arg, (int)(s - path->names), path->names, of,
				 (int)nlen, name);
			return -EOPNOTSUPP;
		}
		id = kstats_btf_resolved_id(btf, t->type);
		t = kstats_btf_type(btf, id);
		if (!t || (BTF_INFO_KIND(t->info) != BTF_KIND_STRUCT &&
			   BTF_INFO_KIND(t->info) != BTF_KIND_UNION)) {
			snprintf(why, len, "arg%u%.*s of %s points to no struct or union",
				 arg, (int)(s - path->names), path->names, of);
			return -EOPNOTSUPP;
		}
		path->off[path->n] = 0;
		ret = kstats_btf_member(btf, id, name, nlen, 4, &id,
					&path->off[path->n]);
		if (ret) {
			snprintf(why, len, ret == -ENOENT ?
				 "arg%u%.*s of %s has no member %.*s" :
				 "arg%u%.*s of %s: member %.*s is a bitfield",
				 arg, (int)(s - path->names), path->names, of,
				 (int)nlen, name);
			return -EOPNOTSUPP;
		}
		path->n++;
		s = name + nlen;
	}
	if (path && path->n && path->str_ok && kstats_btf_chars(btf, id, &path->str)) {
		type->bytes = path->str;
		type->is_signed = false;
		return 0;
	}
	return kstats_btf_int_of(btf, id, what, ptr_ok, type, why, len);
}

/*
 * The type of argument @arg (0: the return value) of FUNC type @t. The
 * argument must be in register @arg: every argument before it takes one
 * register, and no struct returned in memory takes rdi.
 */
static int kstats_btf_func_value(const struct kstats_btf *btf,
				 const struct btf_type *t, const char *func,
				 unsigned int arg, struct kstats_btf_path *path,
				 bool ptr_ok, struct kstats_btf_int *type,
				 char *why, size_t len)
{
	const struct btf_type *proto = kstats_btf_type(btf, t->type);
	const struct btf_type *ret;
	const struct btf_param *args;
	char what[KSYM_NAME_LEN + 32];
	unsigned int i, n;

	if (!proto || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO) {
		snprintf(why, len, "%s: bad BTF prototype", func);
		return -EOPNOTSUPP;
	}
	n = BTF_INFO_VLEN(proto->info);
	if (!arg) {
		snprintf(what, sizeof(what), "the return value of %s", func);
		return kstats_btf_int_of(btf, proto->type, what, false, type,
					 why, len);
	}
	args = (const struct btf_param *)(proto + 1);
	if (arg > n || !args[arg - 1].type) {
		snprintf(why, len, "%s has no argument %u", func, arg);
		return -EOPNOTSUPP;
	}
	ret = kstats_btf_resolve(btf, proto->type);
	if (ret && (BTF_INFO_KIND(ret->info) == BTF_KIND_STRUCT ||
		    BTF_INFO_KIND(ret->info) == BTF_KIND_UNION) &&
	    ret->size > KSTATS_RET_REGS_SIZE) {
		snprintf(why, len, "%s returns a struct in memory: argument %u is in register %u",
			 func, arg, arg + 1);
		return -EOPNOTSUPP;
	}
	for (i = 0; i + 1 < arg; i++) {
		if (kstats_btf_arg_regs(btf, args[i].type) != 1) {
			snprintf(why, len, "%s: argument %u is not in register %u",
				 func, arg, arg);
			return -EOPNOTSUPP;
		}
	}
	if (path && path->names[0])
		snprintf(what, sizeof(what), "arg%u%s of %s", arg, path->names,
			 func);
	else
		snprintf(what, sizeof(what), "argument %u of %s", arg, func);
	return kstats_btf_expr_of(btf, args[arg - 1].type, func, arg, what,
				  path, ptr_ok, type, why, len);
}

struct kstats_btf_value_visit {
	struct kstats_btf_visit v;
	unsigned int arg;
	struct kstats_btf_path *path;
	bool ptr_ok;
	struct kstats_btf_int *type;
};

/* Static functions of one name must agree. */
static int kstats_btf_value_cb(const struct kstats_btf *btf,
			       const struct btf_type *t,
			       struct kstats_btf_visit *v)
{
	struct kstats_btf_value_visit *vv =
		container_of(v, struct kstats_btf_value_visit, v);
	struct kstats_btf_path one_path = {};
	struct kstats_btf_int one;
	int ret;

	if (vv->path) {
		one_path.names = vv->path->names;
		one_path.str_ok = vv->path->str_ok;
	}
	ret = kstats_btf_func_value(btf, t, v->func, vv->arg,
				    vv->path ? &one_path : NULL, vv->ptr_ok,
				    &one, v->why, v->len);
	if (ret)
		return ret;
	if (v->found > 1 && (one.bytes != vv->type->bytes ||
			     one.is_signed != vv->type->is_signed ||
			     (vv->path && (memcmp(one_path.off, vv->path->off,
						  sizeof(one_path.off)) ||
					   one_path.str != vv->path->str)))) {
		snprintf(v->why, v->len, "%s has several prototypes that disagree",
			 v->func);
		return -EOPNOTSUPP;
	}
	*vv->type = one;
	if (vv->path)
		*vv->path = one_path;
	return 0;
}

static int kstats_btf_func_type(const char *func, const char *mod,
				unsigned int arg, struct kstats_btf_path *path,
				bool ptr_ok, struct kstats_btf_int *type,
				char *why, size_t len)
{
	struct kstats_btf_value_visit vv = {
		.v = { .func = func, .fn = kstats_btf_value_cb, .why = why,
		       .len = len },
		.arg = arg,
		.path = path,
		.ptr_ok = ptr_ok,
		.type = type,
	};
	int ret = kstats_btf_visit_funcs(mod, &vv.v);

	if (vv.v.btf_err)
		return -ENOENT;
	if (ret)
		return ret;
	return vv.v.found ? 0 : -ENOENT;
}

int kstats_btf_value_type(const char *func, const char *mod, unsigned int arg,
			  struct kstats_btf_int *type, char *why, size_t len)
{
	return kstats_btf_func_type(func, mod, arg, NULL, false, type, why, len);
}

/*
 * Argument @arg of tracepoint @tp from its btf_trace_@tp typedef, the
 * prototype of its probes: their data first, then the tracepoint's
 * arguments, each in a register of its own.
 */
static int kstats_btf_tp_arg(const struct kstats_btf *btf, const char *tp,
			     unsigned int arg, struct kstats_btf_path *path,
			     bool ptr_ok, struct kstats_btf_int *type, char *why,
			     size_t len)
{
	const struct btf_type *t = NULL, *proto;
	const struct btf_param *args;
	char what[KSYM_NAME_LEN + 32], of[160];
	unsigned int i;
	u32 id;

	for (id = btf->mod ? btf->mod->first_id : 1; id < btf->nr; id++) {
		t = kstats_btf_type(btf, id);
		if (BTF_INFO_KIND(t->info) == BTF_KIND_TYPEDEF &&
		    str_has_prefix(kstats_btf_name(btf, t, id), "btf_trace_") &&
		    !strcmp(kstats_btf_name(btf, t, id) + 10, tp))
			break;
	}
	if (id >= btf->nr)
		return -ENOENT;
	t = kstats_btf_resolve(btf, t->type);
	proto = t && BTF_INFO_KIND(t->info) == BTF_KIND_PTR ?
		kstats_btf_type(btf, t->type) : NULL;
	if (!proto || BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO) {
		snprintf(why, len, "tracepoint %s: bad BTF prototype", tp);
		return -EOPNOTSUPP;
	}
	args = (const struct btf_param *)(proto + 1);
	if (arg >= BTF_INFO_VLEN(proto->info)) {
		snprintf(why, len, "tracepoint %s has no argument %u", tp, arg);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < arg; i++) {
		if (kstats_btf_arg_regs(btf, args[i].type) != 1 ||
		    i + 1 >= KSTATS_ARG_REGS) {
			snprintf(why, len, "tracepoint %s: argument %u is not in a register",
				 tp, arg);
			return -EOPNOTSUPP;
		}
	}
	if (path && path->names[0])
		snprintf(what, sizeof(what), "arg%u%s of tracepoint %s", arg,
			 path->names, tp);
	else
		snprintf(what, sizeof(what), "argument %u of tracepoint %s",
			 arg, tp);
	snprintf(of, sizeof(of), "tracepoint %.140s", tp);
	return kstats_btf_expr_of(btf, args[arg].type, of, arg, what, path,
				  ptr_ok, type, why, len);
}

int kstats_btf_key_type(const char *sym, const char *mod, bool tracepoint,
			unsigned int arg, struct kstats_btf_path *path,
			bool ptr_ok, struct kstats_btf_int *type, char *why,
			size_t len)
{
	struct kstats_btf btf;
	int ret;

	if (!tracepoint)
		return kstats_btf_func_type(sym, mod, arg, path, ptr_ok, type,
					    why, len);
	mutex_lock(&kstats_btf_mutex);
	ret = kstats_btf_get(&btf, mod);
	if (ret)
		ret = -ENOENT;
	else
		ret = kstats_btf_tp_arg(&btf, sym, arg, path, ptr_ok, type,
					why, len);
	mutex_unlock(&kstats_btf_mutex);
	return ret;
}

const char *kstats_btf_module_of(unsigned long addr, char *buf)
{
	char *mod, *end;

	sprint_symbol(buf, addr);
	mod = strchr(buf, '[');
	if (!mod)
		return NULL;
	end = strchr(++mod, ']');
	if (end)
		*end = '\0';
	return mod;
}
