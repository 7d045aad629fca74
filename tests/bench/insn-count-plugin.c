// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU TCG plugin (plugin API version 1, QEMU 7.2): counts the guest
 * instructions executed and, each time the guest executes the marker,
 * appends the running count to the file given by out=PATH, one decimal
 * number a line. The marker is a no-op on hardware that nothing else
 * executes, chosen by QEMU's target: x86 "xchg %bx,%bx" (66 87 db);
 * arm64 "hint #0x7f" (0xd5032fff, little-endian ff 2f 03 d5), a hint of
 * the unallocated space, which the architecture and QEMU execute as a NOP
 * (and Debian's arm64 kernels and busybox do not contain).
 * Run QEMU with -smp 1 and -accel tcg,thread=single: one counter.
 *
 * With prof=PATH as well, each marker also appends to PATH a profile of
 * the code run since the previous one: "mark K", then for each block of
 * kernel code that ran, "VADDR INSNS EXECUTIONS" (tests/bench/profile.py
 * names the functions).
 *
 * With noirq=1 as well, the instructions run from the entry of an
 * interrupt to the next return from an exception or system call, nested
 * entries included, are left out of the count: a timer tick's handler,
 * and whatever it switches to, runs in as many iterations as the guest's
 * clock lets it, and that clock follows the host's, so its share of an
 * iteration moves with the host's speed. On arm64 an interrupt enters at
 * the vector table's IRQ slot of the current EL (offset 0x280, its first
 * instruction "sub sp, sp, #PT_REGS_SIZE") or of 64-bit EL0 (0x480, "b"
 * over the next two; 0x484 from KPTI's trampoline, "mrs x30,
 * tpidrro_el0"): the table is 2 KB aligned, and Linux's kernel_ventry
 * starts so; every return is an "eret". x86-64's interrupt entries share
 * no first instruction that the exceptions' lack, so the host names them,
 * irq=ADDR each (hexadecimal, from the /proc/kallsyms of a first boot of
 * the same kernel; both boots with nokaslr); the returns are "iretq" and
 * "sysretq". The exit line gives
 * the entries seen and the instructions left out, so that a kernel whose
 * entries differ shows as none.
 *
 * The count is added when a translation block starts, so a marker sees
 * its whole block counted; that offset is the same at every marker of the
 * same code and cancels in differences. Debian ships no plugin header, so
 * the few functions used are declared here from QEMU's qemu-plugin.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	_Bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*exit_cb_t)(qemu_plugin_id_t, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *,
					      enum qemu_plugin_op, void *,
					      uint64_t);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *,
					    udata_cb_t,
					    enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, exit_cb_t, void *);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *,
						 size_t);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insns;
static FILE *out;
static const unsigned char marker_x86[] = { 0x66, 0x87, 0xdb };
static const unsigned char marker_arm64[] = { 0xff, 0x2f, 0x03, 0xd5 };
static const unsigned char *marker;
static size_t marker_len;

/* noirq=1: open entries, the count at the outermost, and the totals. */
static int noirq;
static int x86;
static uint64_t irq_addr[64];
static size_t n_irq_addr;
static unsigned int irq_depth;
static uint64_t irq_start, irq_insns, irq_entries;

/* One translated block's executions, for prof=. */
struct block {
	uint64_t vaddr, insns, count;
};
static FILE *prof;
static struct block **blocks;
static size_t nblocks, maxblocks;
static unsigned long marks;

/* Kernel blocks (the upper half) that ran since the last marker. */
static void profile(void)
{
	size_t i;

	fprintf(prof, "mark %lu\n", marks++);
	for (i = 0; i < nblocks; i++) {
		struct block *b = blocks[i];

		if (b->count && b->vaddr >> 63)
			fprintf(prof, "%llx %llu %llu\n",
				(unsigned long long)b->vaddr,
				(unsigned long long)b->insns,
				(unsigned long long)b->count);
		b->count = 0;
	}
	fflush(prof);
}

static void on_irq_entry(unsigned int vcpu, void *udata)
{
	irq_entries++;
	if (!irq_depth++)
		irq_start = insns;
}

/*
 * Any return from an exception closes the innermost open entry: a fault
 * taken within a handler only ends the exclusion early, and a handler
 * that switched tasks ends it at the next return of whichever task runs.
 */
static void on_exception_return(unsigned int vcpu, void *udata)
{
	if (irq_depth && !--irq_depth)
		irq_insns += insns - irq_start;
}

static uint32_t insn_word(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);

	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Whether insn returns from an exception, an interrupt or a system call. */
static int exception_return(struct qemu_plugin_insn *insn)
{
	static const unsigned char iretq[] = { 0x48, 0xcf };
	static const unsigned char sysretq[] = { 0x48, 0x0f, 0x07 };
	const void *data = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn);

	if (!x86)
		return len == 4 && insn_word(insn) == 0xd69f03e0;	/* eret */
	return (len == sizeof(iretq) && !memcmp(data, iretq, len)) ||
	       (len == sizeof(sysretq) && !memcmp(data, sysretq, len));
}

/*
 * Whether insn, the i-th of its block, enters an interrupt: an arm64 IRQ
 * vector's first, or an x86-64 entry named by irq=.
 */
static int irq_vector(struct qemu_plugin_insn *insn, size_t i)
{
	uint64_t va = qemu_plugin_insn_vaddr(insn);
	uint32_t w;
	size_t k;

	if (x86) {
		for (k = 0; k < n_irq_addr; k++)
			if (va == irq_addr[k])
				return 1;
		return 0;
	}
	if (i || !(va >> 63) || qemu_plugin_insn_size(insn) != 4)
		return 0;
	w = insn_word(insn);
	switch (va & 0x7ff) {
	case 0x280:
		return (w & 0xff8003ff) == 0xd10003ff;	/* sub sp, sp, #imm */
	case 0x480:
		return w == 0x14000003;			/* b .+12 */
	case 0x484:
		return w == 0xd53bd07e;		/* mrs x30, tpidrro_el0 */
	}
	return 0;
}

static void on_marker(unsigned int vcpu, void *udata)
{
	fprintf(out, "%llu\n", (unsigned long long)(insns - irq_insns));
	fflush(out);
	if (prof)
		profile();
}

static void count_block(struct qemu_plugin_tb *tb, size_t n)
{
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		return;
	if (nblocks == maxblocks) {
		size_t m = maxblocks ? 2 * maxblocks : 4096;
		struct block **bs = realloc(blocks, m * sizeof(*bs));

		if (!bs) {
			free(b);
			return;
		}
		blocks = bs;
		maxblocks = m;
	}
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	blocks[nblocks++] = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insns, n);
	if (prof)
		count_block(tb, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t len = qemu_plugin_insn_size(insn);
		const void *data = qemu_plugin_insn_data(insn);

		if (len == marker_len && !memcmp(data, marker, marker_len))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
						QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (!noirq)
			continue;
		if (exception_return(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
						on_exception_return,
						QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (irq_vector(insn, i))
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
						on_irq_entry,
						QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
	fprintf(out, "# total %llu\n", (unsigned long long)insns);
	if (noirq)
		fprintf(out, "# irq entries %llu, instructions left out %llu\n",
			(unsigned long long)irq_entries,
			(unsigned long long)irq_insns);
	fclose(out);
	if (prof)
		fclose(prof);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	const char *prof_path = NULL;
	int i;

	if (argc < 1 || strncmp(argv[0], "out=", 4))
		return -1;
	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "prof=", 5))
			prof_path = argv[i] + 5;
		else if (!strcmp(argv[i], "noirq=1"))
			noirq = 1;
		else if (!strncmp(argv[i], "irq=", 4) && n_irq_addr < 64)
			irq_addr[n_irq_addr++] = strtoull(argv[i] + 4, NULL, 16);
		else
			return -1;
	}
	if (!strcmp(info->target_name, "x86_64")) {
		marker = marker_x86;
		marker_len = sizeof(marker_x86);
		x86 = 1;
		if (noirq && !n_irq_addr) {
			fprintf(stderr, "insn-count-plugin: noirq=1 on x86-64 needs irq=ADDR\n");
			return -1;
		}
	} else if (!strcmp(info->target_name, "aarch64")) {
		marker = marker_arm64;
		marker_len = sizeof(marker_arm64);
	} else {
		fprintf(stderr, "insn-count-plugin: no marker for target %s\n",
			info->target_name);
		return -1;
	}
	out = fopen(argv[0] + 4, "w");
	if (!out)
		return -1;
	if (prof_path) {
		prof = fopen(prof_path, "w");
		if (!prof)
			return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
