/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers.
 *
 * A function of a user-space ELF file, as "trace PATH:SYMBOL" names it,
 * turned into the file offset that uprobe_register() takes (kstats_elf.c).
 */
#ifndef _KSTATS_ELF_H
#define _KSTATS_ELF_H

#include <linux/elf.h>
#include <linux/types.h>

struct file;

/*
 * The machine whose files kstats reads: this kernel's, little-endian
 * only. Elsewhere every file is refused ("unsupported machine").
 */
#if defined(CONFIG_X86_64)
#define KSTATS_ELF_MACHINE	EM_X86_64
#elif defined(CONFIG_ARM64) && !defined(CONFIG_CPU_BIG_ENDIAN)
#define KSTATS_ELF_MACHINE	EM_AARCH64
#endif

/* Most section headers (every index below SHN_LORESERVE) and program headers. */
#define KSTATS_ELF_MAX_SHNUM	(SHN_LORESERVE - 1)
#define KSTATS_ELF_MAX_PHNUM	4096
/* Largest string table of a symbol table, read whole. */
#define KSTATS_ELF_MAX_STRTAB	(16 << 20)

/*
 * Reads @len bytes at @pos of the file behind @ctx into @dst: 0, or a
 * negative errno (short read: -ENOEXEC).
 */
typedef int (*kstats_elf_read_fn)(void *ctx, void *dst, size_t len, loff_t pos);

/* A function found in an ELF file. */
struct kstats_elf_sym {
	loff_t offset;		/* file offset of the function, as uprobes take it */
	u64 size;		/* st_size */
	bool dynsym;		/* found in .dynsym (else .symtab) */
};

int kstats_elf_find(kstats_elf_read_fn read, void *ctx, loff_t size,
		    const char *name, struct kstats_elf_sym *out,
		    char *why, size_t why_len);
int kstats_elf_find_file(struct file *f, const char *name,
			 struct kstats_elf_sym *out, char *why, size_t why_len);

#endif /* _KSTATS_ELF_H */
