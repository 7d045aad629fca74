// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * "trace PATH:SYMBOL": the file offset of function SYMBOL of the ELF file
 * PATH, which is what uprobe_register() takes. The symbol comes from
 * .symtab, else from .dynsym (a stripped file keeps only the latter); its
 * address, from the executable PT_LOAD segment that holds it, as the
 * kernel's uprobe_events expect.
 *
 * PATH is any file its writer names: a truncated download, a file made to
 * hurt the kernel. Nothing in it is trusted: each offset, size, count and
 * index is checked against the file's size, without overflow, before it
 * is read or used, and each name before it is compared. Only the headers
 * and one string table are read whole, each under a cap, and the symbols
 * a chunk at a time, so that no file, whatever its size, costs more than
 * a bounded amount of memory. Section names are not read: a symbol table
 * is known by its type.
 */
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include "kstats_elf.h"

/* Symbols read at a time: 6 KiB. */
#define KSTATS_ELF_SYM_CHUNK	256
/* Not in the kernel's elf.h: GNU's indirect function. */
#define KSTATS_STT_GNU_IFUNC	10

/* One lookup: the file, what it holds so far, and where a refusal goes. */
struct kstats_elf {
	kstats_elf_read_fn read;
	void *ctx;
	u64 size;
	const char *name;
	size_t name_len;
	struct elf64_shdr *sh;	/* every section header */
	struct elf64_phdr *ph;	/* every program header, or NULL */
	unsigned int shnum, phnum;
	bool tables;		/* a symbol table was seen */
	bool refused;		/* a match was no function: @why says why */
	char *why;
	size_t why_len;
};

/* Say why in @e->why; returns @err. */
static __printf(3, 4) int kstats_elf_fail(struct kstats_elf *e, int err,
					  const char *fmt, ...)
{
	va_list args;

	if (e->why_len) {
		va_start(args, fmt);
		vsnprintf(e->why, e->why_len, fmt, args);
		va_end(args);
	}
	return err;
}

/* Whether @len bytes at @off lie inside the file. */
static bool kstats_elf_inside(const struct kstats_elf *e, u64 off, u64 len)
{
	u64 end;

	return !check_add_overflow(off, len, &end) && end <= e->size;
}

/* Read @len bytes at @off, which the caller found inside the file. */
static int kstats_elf_read(struct kstats_elf *e, void *dst, size_t len,
			   u64 off, const char *what)
{
	int ret = e->read(e->ctx, dst, len, off);

	if (!ret)
		return 0;
	if (ret == -ENOEXEC)
		return kstats_elf_fail(e, ret, "%s: short read", what);
	/* A read callback returns 0 or an errno: anything else is an I/O error. */
	if (ret > 0)
		ret = -EIO;
	return kstats_elf_fail(e, ret, "%s: read error %d", what, ret);
}

/*
 * @num entries of @entsize bytes at @off, the @what, read into a new
 * buffer (kvfree() it), or an ERR_PTR(). The caller has capped @num.
 */
static void *kstats_elf_load(struct kstats_elf *e, u64 off, u64 num,
			     u64 entsize, const char *what)
{
	void *buf;
	u64 len;
	int ret;

	if (check_mul_overflow(num, entsize, &len) ||
	    !kstats_elf_inside(e, off, len))
		return ERR_PTR(kstats_elf_fail(e, -ENOEXEC,
					       "%s past the end of the file",
					       what));
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(kstats_elf_fail(e, -ENOMEM, "no memory for the %s",
					       what));
	ret = kstats_elf_read(e, buf, len, off, what);
	if (ret) {
		kvfree(buf);
		return ERR_PTR(ret);
	}
	return buf;
}

/* The identity of the file: an ELF64 program or library of this machine. */
static int kstats_elf_check_ident(struct kstats_elf *e,
				  const struct elf64_hdr *eh)
{
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return kstats_elf_fail(e, -ENOEXEC, "not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return kstats_elf_fail(e, -ENOEXEC, "not a 64-bit ELF file");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return kstats_elf_fail(e, -ENOEXEC, "not a little-endian ELF file");
	if (eh->e_ident[EI_VERSION] != EV_CURRENT ||
	    eh->e_version != EV_CURRENT)
		return kstats_elf_fail(e, -ENOEXEC, "unknown ELF version");
	/* Relocatable objects and core files hold no code that runs. */
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return kstats_elf_fail(e, -ENOEXEC,
				       "not an executable or shared object (e_type %u)",
				       eh->e_type);
#ifdef KSTATS_ELF_MACHINE
	if (eh->e_machine != KSTATS_ELF_MACHINE)
		return kstats_elf_fail(e, -ENOEXEC,
				       "machine %u, not this kernel's (%u)",
				       eh->e_machine, KSTATS_ELF_MACHINE);
	return 0;
#else
	return kstats_elf_fail(e, -ENOEXEC, "unsupported machine");
#endif
}

/* The ELF header, then the section and program headers, read whole. */
static int kstats_elf_headers(struct kstats_elf *e)
{
	struct elf64_hdr eh;
	int ret;

	if (e->size < sizeof(eh))
		return kstats_elf_fail(e, -ENOEXEC, "shorter than an ELF header");
	ret = kstats_elf_read(e, &eh, sizeof(eh), 0, "ELF header");
	if (ret)
		return ret;
	ret = kstats_elf_check_ident(e, &eh);
	if (ret)
		return ret;
	/* No e_shnum is none, or more than the cap (extended numbering). */
	if (!eh.e_shnum || !eh.e_shoff)
		return kstats_elf_fail(e, -ENOEXEC, "no section headers");
	if (eh.e_shnum > KSTATS_ELF_MAX_SHNUM)
		return kstats_elf_fail(e, -EFBIG,
				       "%u section headers, more than %u",
				       eh.e_shnum, KSTATS_ELF_MAX_SHNUM);
	if (eh.e_shentsize != sizeof(struct elf64_shdr))
		return kstats_elf_fail(e, -ENOEXEC,
				       "section header size %u, not %zu",
				       eh.e_shentsize, sizeof(struct elf64_shdr));
	if (eh.e_phnum > KSTATS_ELF_MAX_PHNUM)
		return kstats_elf_fail(e, -EFBIG,
				       "%u program headers, more than %u",
				       eh.e_phnum, KSTATS_ELF_MAX_PHNUM);
	if (eh.e_phnum && eh.e_phentsize != sizeof(struct elf64_phdr))
		return kstats_elf_fail(e, -ENOEXEC,
				       "program header size %u, not %zu",
				       eh.e_phentsize, sizeof(struct elf64_phdr));
	e->sh = kstats_elf_load(e, eh.e_shoff, eh.e_shnum, sizeof(*e->sh),
				"section headers");
	if (IS_ERR(e->sh)) {
		ret = PTR_ERR(e->sh);
		e->sh = NULL;
		return ret;
	}
	e->shnum = eh.e_shnum;
	/* None: then no segment holds the function, which is said later. */
	if (!eh.e_phnum)
		return 0;
	e->ph = kstats_elf_load(e, eh.e_phoff, eh.e_phnum, sizeof(*e->ph),
				"program headers");
	if (IS_ERR(e->ph)) {
		ret = PTR_ERR(e->ph);
		e->ph = NULL;
		return ret;
	}
	e->phnum = eh.e_phnum;
	return 0;
}

/* Why match @s of the name is no function we can probe, into @e->why. */
static void kstats_elf_refuse(struct kstats_elf *e, const struct elf64_sym *s)
{
	static const char * const types[] = {
		[STT_NOTYPE] = "has no type",
		[STT_OBJECT] = "is an object",
		[STT_SECTION] = "is a section",
		[STT_FILE] = "is a file",
		[STT_COMMON] = "is a common block",
		[STT_TLS] = "is thread-local data",
		/* Its address is the resolver's, which runs once at load. */
		[KSTATS_STT_GNU_IFUNC] = "is an indirect function (STT_GNU_IFUNC)",
	};
	unsigned int type = ELF64_ST_TYPE(s->st_info);

	e->refused = true;
	if (s->st_shndx == SHN_UNDEF)
		kstats_elf_fail(e, 0, "symbol %s is undefined in this file",
				e->name);
	else if (type == STT_FUNC)
		kstats_elf_fail(e, 0, "symbol %s is a function without an address",
				e->name);
	else if (type < ARRAY_SIZE(types) && types[type])
		kstats_elf_fail(e, 0, "symbol %s %s, not a function", e->name,
				types[type]);
	else
		kstats_elf_fail(e, 0, "symbol %s is of type %u, not a function",
				e->name, type);
}

/*
 * The first defined function called @e->name among the @n symbols of
 * @syms (@first the index of the first): 0 and its value in @value, or
 * -ENOENT.
 */
static int kstats_elf_match(struct kstats_elf *e, const struct elf64_sym *syms,
			    u64 first, unsigned int n, const char *strtab,
			    u64 strsz, const char *what,
			    struct kstats_elf_sym *out, u64 *value)
{
	const struct elf64_sym *s;
	unsigned int i;

	for (i = 0; i < n; i++) {
		s = &syms[i];
		if (s->st_name >= strsz)
			return kstats_elf_fail(e, -ENOEXEC,
					       "%s: name of symbol %llu past its string table",
					       what, first + i);
		/* The name and its NUL, inside the table. */
		if (strsz - s->st_name <= e->name_len ||
		    memcmp(strtab + s->st_name, e->name, e->name_len + 1))
			continue;
		if (ELF64_ST_TYPE(s->st_info) == STT_FUNC &&
		    s->st_shndx != SHN_UNDEF && s->st_value) {
			out->size = s->st_size;
			*value = s->st_value;
			return 0;
		}
		if (!e->refused)
			kstats_elf_refuse(e, s);
	}
	return -ENOENT;
}

/*
 * Look @e->name up in the first section of type @type (SHT_SYMTAB or
 * SHT_DYNSYM): 0, @out's size and dynsym and the value in @value; -ENOENT
 * if there is no such section or no function of that name in it.
 */
static int kstats_elf_search(struct kstats_elf *e, u32 type,
			     struct kstats_elf_sym *out, u64 *value)
{
	const char *what = type == SHT_SYMTAB ? ".symtab" : ".dynsym";
	const struct elf64_shdr *st = NULL, *ss;
	struct elf64_sym *syms = NULL;
	u64 i, nsyms, strsz;
	unsigned int j, n;
	char *strtab;
	int ret = -ENOENT;

	for (j = 0; j < e->shnum && !st; j++)
		if (e->sh[j].sh_type == type)
			st = &e->sh[j];
	if (!st)
		return -ENOENT;
	e->tables = true;
	if (st->sh_entsize != sizeof(struct elf64_sym) ||
	    st->sh_size % sizeof(struct elf64_sym))
		return kstats_elf_fail(e, -ENOEXEC,
				       "%s: entry size %llu and size %llu, not in symbols of %zu bytes",
				       what, st->sh_entsize, st->sh_size,
				       sizeof(struct elf64_sym));
	if (!kstats_elf_inside(e, st->sh_offset, st->sh_size))
		return kstats_elf_fail(e, -ENOEXEC,
				       "%s past the end of the file", what);
	if (st->sh_link >= e->shnum ||
	    e->sh[st->sh_link].sh_type != SHT_STRTAB)
		return kstats_elf_fail(e, -ENOEXEC,
				       "%s: its link %u is not a string table",
				       what, st->sh_link);
	ss = &e->sh[st->sh_link];
	strsz = ss->sh_size;
	if (!strsz)
		return kstats_elf_fail(e, -ENOEXEC, "%s: empty string table",
				       what);
	if (strsz > KSTATS_ELF_MAX_STRTAB)
		return kstats_elf_fail(e, -EFBIG,
				       "%s: string table of %llu bytes, more than %u",
				       what, strsz, KSTATS_ELF_MAX_STRTAB);
	strtab = kstats_elf_load(e, ss->sh_offset, strsz, 1,
				 type == SHT_SYMTAB ? ".symtab's string table" :
						      ".dynsym's string table");
	if (IS_ERR(strtab))
		return PTR_ERR(strtab);
	/* Then each name in it ends in it. */
	if (strtab[strsz - 1]) {
		kvfree(strtab);
		return kstats_elf_fail(e, -ENOEXEC,
				       "%s: string table not NUL-terminated",
				       what);
	}
	nsyms = st->sh_size / sizeof(struct elf64_sym);
	if (nsyms) {
		syms = kmalloc_array(min_t(u64, nsyms, KSTATS_ELF_SYM_CHUNK),
				     sizeof(*syms), GFP_KERNEL);
		if (!syms)
			ret = kstats_elf_fail(e, -ENOMEM, "no memory for %s",
					      what);
	}
	for (i = 0; syms && i < nsyms; i += n) {
		n = min_t(u64, nsyms - i, KSTATS_ELF_SYM_CHUNK);
		ret = kstats_elf_read(e, syms, n * sizeof(*syms),
				      st->sh_offset + i * sizeof(*syms), what);
		if (!ret)
			ret = kstats_elf_match(e, syms, i, n, strtab, strsz,
					       what, out, value);
		if (ret != -ENOENT)
			break;
		/* A file's table may hold millions of symbols. */
		cond_resched();
	}
	kfree(syms);
	kvfree(strtab);
	if (!ret)
		out->dynsym = type == SHT_DYNSYM;
	return ret;
}

/* The file offset of address @value: in an executable PT_LOAD segment. */
static int kstats_elf_offset(struct kstats_elf *e, u64 value,
			     struct kstats_elf_sym *out)
{
	const struct elf64_phdr *p;
	unsigned int i;

	for (i = 0; i < e->phnum; i++) {
		p = &e->ph[i];
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X) ||
		    value < p->p_vaddr || value - p->p_vaddr >= p->p_filesz)
			continue;
		if (!kstats_elf_inside(e, p->p_offset, p->p_filesz))
			return kstats_elf_fail(e, -ENOEXEC,
					       "segment %u past the end of the file",
					       i);
		/* Below the file's size, which is a loff_t. */
		out->offset = p->p_offset + (value - p->p_vaddr);
		return 0;
	}
	return kstats_elf_fail(e, -ENOEXEC,
			       "symbol %s at %#llx is not in an executable segment",
			       e->name, value);
}

/**
 * kstats_elf_find() - Find a function in an ELF image.
 * @read: reads bytes of the image (0, or a negative errno; -ENOEXEC for a
 *	short read)
 * @ctx: passed to @read
 * @size: the image's size in bytes
 * @name: the function's symbol, compared exactly
 * @out: the function's file offset, size and table, on success
 * @why: a short reason on failure (NUL-terminated, if @why_len)
 * @why_len: size of @why, may be 0
 *
 * Looks @name up in the image's SHT_SYMTAB section, then, if no function
 * of that name is there, in its SHT_DYNSYM section: the first defined
 * STT_FUNC symbol of that name with a nonzero value wins. Its file offset
 * is the value's offset in the executable PT_LOAD segment that holds it.
 * The image is read through @read only, within @size, a chunk at a time
 * for the symbols: any image may be given, forged or truncated.
 *
 * Context: Process context; may sleep.
 * Return: 0, with @out filled; -ENOEXEC if the image is no ELF64 file of
 * this kernel's machine and byte order of type ET_EXEC or ET_DYN, or is
 * malformed (an offset, size or index out of bounds, a string table not
 * NUL-terminated, the function in no executable segment, ...); -ENOENT if
 * there is no symbol @name; -EINVAL if there are only symbols @name that
 * are no defined function (an object, an undefined symbol, an
 * STT_GNU_IFUNC); -EFBIG if a table is larger than kstats reads;
 * -ENOMEM; or the error of @read.
 */
int kstats_elf_find(kstats_elf_read_fn read, void *ctx, loff_t size,
		    const char *name, struct kstats_elf_sym *out,
		    char *why, size_t why_len)
{
	struct kstats_elf e = {
		.read = read,
		.ctx = ctx,
		.size = max_t(loff_t, size, 0),
		.name = name,
		.name_len = strlen(name),
		.why = why,
		.why_len = why ? why_len : 0,
	};
	struct kstats_elf_sym sym = {};
	u64 value = 0;
	int ret;

	if (e.why_len)
		why[0] = '\0';
	if (!e.name_len)
		return kstats_elf_fail(&e, -ENOENT, "no symbol name");
	ret = kstats_elf_headers(&e);
	if (ret)
		goto out;
	ret = kstats_elf_search(&e, SHT_SYMTAB, &sym, &value);
	if (ret == -ENOENT)
		ret = kstats_elf_search(&e, SHT_DYNSYM, &sym, &value);
	if (ret == -ENOENT) {
		/* A match that is no function says why it was refused. */
		if (e.refused)
			ret = -EINVAL;
		else if (!e.tables)
			kstats_elf_fail(&e, ret, "no symbol table (.symtab or .dynsym)");
		else
			kstats_elf_fail(&e, ret, "no symbol %s", name);
	}
	if (!ret)
		ret = kstats_elf_offset(&e, value, &sym);
	if (!ret) {
		*out = sym;
		if (e.why_len)
			why[0] = '\0';
	}
out:
	kvfree(e.ph);
	kvfree(e.sh);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_elf_find);

/* kstats_elf_read_fn on a struct file: kernel_read() until @len bytes. */
static int kstats_elf_file_read(void *ctx, void *dst, size_t len, loff_t pos)
{
	struct file *f = ctx;
	u8 *p = dst;
	ssize_t n;

	while (len) {
		n = kernel_read(f, p, len, &pos);
		if (n < 0)
			return n;
		/* The file shrank below the size it had. */
		if (!n)
			return -ENOEXEC;
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * kstats_elf_find_file() - Find a function in an open ELF file.
 * @f: the file, opened for reading
 * @name: the function's symbol
 * @out: the function's file offset, size and table, on success
 * @why: a short reason on failure
 * @why_len: size of @why
 *
 * kstats_elf_find() on @f, read with kernel_read(), of the size that
 * i_size_read() gives.
 *
 * Context: Process context; may sleep.
 * Return: as kstats_elf_find(); a read error of @f as kernel_read() gives it.
 */
int kstats_elf_find_file(struct file *f, const char *name,
			 struct kstats_elf_sym *out, char *why, size_t why_len)
{
	return kstats_elf_find(kstats_elf_file_read, f,
			       i_size_read(file_inode(f)), name, out, why,
			       why_len);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_elf_find_file);
