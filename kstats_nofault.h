/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers. Calls nothing on x86-64.
 *
 * A field path's fault-safe reads (argN->FIELD...), up to four a hit.
 * copy_from_kernel_nofault() is two calls, its range check and its copy,
 * either of which a user can trace. On x86-64 the same load is inline:
 * only an address of the kernel half that is canonical (a load from a
 * non-canonical one raises #GP, which the fixup warns about) and not the
 * vsyscall page (which some CPUs fault on in ways not fixed up), loaded
 * through the exception table with page faults off. Elsewhere, the call.
 */
#ifndef _KSTATS_NOFAULT_H
#define _KSTATS_NOFAULT_H

#include <linux/types.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86_64
#include <asm/processor.h>
#include <asm/vsyscall.h>
#endif

#ifdef CONFIG_X86_64
/* Bits 63 to virt_bits - 1 all set: the kernel half, canonical. */
static __always_inline bool kstats_nofault_addr(unsigned long a)
{
	return (long)a >> (boot_cpu_data.x86_virt_bits - 1) == -1L &&
	       (a & PAGE_MASK) != VSYSCALL_ADDR;
}

/*
 * Read @size bytes (1, 2, 4 or 8) at kernel address @src into @dst;
 * false if @src is not a kernel address or the load faults.
 */
static __always_inline bool kstats_read_nofault(void *dst, unsigned long src,
						unsigned int size)
{
	if (!kstats_nofault_addr(src))
		return false;
	pagefault_disable();
	switch (size) {
	case 1:
		__get_kernel_nofault(dst, (void *)src, u8, fault);
		break;
	case 2:
		__get_kernel_nofault(dst, (void *)src, u16, fault);
		break;
	case 4:
		__get_kernel_nofault(dst, (void *)src, u32, fault);
		break;
	default:
		__get_kernel_nofault(dst, (void *)src, u64, fault);
		break;
	}
	pagefault_enable();
	return true;
fault:
	pagefault_enable();
	return false;
}
#else
static __always_inline bool kstats_read_nofault(void *dst, unsigned long src,
						unsigned int size)
{
	return !copy_from_kernel_nofault(dst, (void *)src, size);
}
#endif

#endif /* _KSTATS_NOFAULT_H */
