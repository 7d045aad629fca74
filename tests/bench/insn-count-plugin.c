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

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insns;
static FILE *out;
static const unsigned char marker_x86[] = { 0x66, 0x87, 0xdb };
static const unsigned char marker_arm64[] = { 0xff, 0x2f, 0x03, 0xd5 };
static const unsigned char *marker;
static size_t marker_len;

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

static void on_marker(unsigned int vcpu, void *udata)
{
	fprintf(out, "%llu\n", (unsigned long long)insns);
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

		if (qemu_plugin_insn_size(insn) == marker_len &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, marker_len))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
						QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
	fprintf(out, "# total %llu\n", (unsigned long long)insns);
	fclose(out);
	if (prof)
		fclose(prof);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	if (argc < 1 || argc > 2 || strncmp(argv[0], "out=", 4) ||
	    (argc == 2 && strncmp(argv[1], "prof=", 5)))
		return -1;
	if (!strcmp(info->target_name, "x86_64")) {
		marker = marker_x86;
		marker_len = sizeof(marker_x86);
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
	if (argc == 2) {
		prof = fopen(argv[1] + 5, "w");
		if (!prof)
			return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
	return 0;
}
