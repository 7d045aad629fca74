/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers: the common part of an entry, as every
 * layer from the commands down sees it. What only one mechanism needs is
 * in that mechanism's file (struct kstats_probe, below).
 *
 * kstats run-time attachment, shared by the control layer (kstats_control.c),
 * the mechanisms (kstats_kretprobe.c, kstats_fprobe.c, kstats_direct.c,
 * kstats_pair.c, kstats_gap.c), the key task table (kstats_task.c) and calibration
 * (kstats_calibrate.c).
 *
 * Data path: a mechanism's handler calls one of the bodies of
 * kstats_handler.h, which reads the clock and feeds kstats_record().
 */
#ifndef _KSTATS_PROBE_H
#define _KSTATS_PROBE_H

#include <linux/bitops.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/types.h>
#include "kstats_parse.h"

/*
 * Kbuild defines KSTATS_HAVE_FPROBE on kernels with CONFIG_FPROBE whose
 * fprobe callbacks have the form used here (6.5 to 6.13); elsewhere kstats
 * behaves as if the kernel had no fprobe.
 */
#ifdef KSTATS_HAVE_FPROBE
#define KSTATS_HAVE_FPROBES 1
#else
#define KSTATS_HAVE_FPROBES 0
#endif

/*
 * Tracepoint probes are registered with a function that takes only the
 * data pointer and ignores the tracepoint's arguments: harmless with the
 * x86-64 calling convention, but refused by kCFI (CONFIG_CFI_CLANG, named
 * CONFIG_CFI from 6.18; check.sh checks the kernel's name of it).
 */
#if defined(CONFIG_CFI_CLANG) || defined(CONFIG_CFI)
#define KSTATS_HAVE_TP_PROBES 0
#else
#define KSTATS_HAVE_TP_PROBES 1
#endif

struct kstats;
struct kstats_keys;
struct kstats_outliers;
struct kstats_mech_ops;
struct kstats_task_table;
struct module;
struct perf_event;
struct task_struct;
struct seq_file;
struct tracepoint;

/* Per-CPU event counters of an entry, summed for the listing. */
struct kstats_probe_stats {
	unsigned long hits;	/* handler calls, to pick those timed */
	unsigned long skipped;	/* pcpu: calls not measured */
	unsigned long dropped;	/* key task, key argN: table full */
	unsigned long unpaired;	/* pairs: end without a start */
	unsigned long restarted;	/* key argN: a start of a pending key */
	unsigned long expired;	/* key argN: starts never ended, freed */
	unsigned long notask;	/* key task: hits outside task context */
	unsigned long filtered;	/* hits the filters left out */
	unsigned long errors;	/* value retval: error returns */
	unsigned long unstable;	/* clock tsc: samples once it went unstable */
	unsigned long migrated;	/* counter, trace FUNC: calls that moved */
	unsigned long uncounted;	/* counter: reads without a counter */
	unsigned long recursed;	/* hits inside a kstats handler, skipped */
	unsigned long faulted;	/* pairs: a field path that could not be read */
	u64 handler_ns[KSTATS_NR_SIDES];	/* time in timed handlers */
	unsigned long timed[KSTATS_NR_SIDES];	/* how many were timed */
};

/*
 * trace pcpu:FUNC: the call that holds a CPU. A later call on the CPU
 * runs inside it (nested) only if it comes from the same task, with no
 * context switch since, deeper on the stack or in an interrupt above it.
 */
struct kstats_pcpu_owner {
	unsigned long task;	/* 0: no call holds the CPU */
	unsigned long switches;	/* the task's nvcsw + nivcsw at the call */
	unsigned long sp;	/* stack pointer at the call */
	unsigned int level;	/* context: task, softirq, hardirq, NMI */
	unsigned int seq;	/* bumped by every call that takes the CPU */
};

/*
 * key cpu: the pending start of a CPU, with the entry's epoch then, so
 * that no pair spans a stop (kstats_start() bumps the epoch).
 */
struct kstats_cpu_start {
	u64 t0;
	u32 epoch;
	u64 by[2];		/* the key of its histogram, read at the start */
};

/* trace pcpu:FUNC: per-call storage of the mechanism. */
struct kstats_pcpu_call {
	u64 t0;
	unsigned int cpu;
	unsigned int seq;
	u32 epoch;		/* the entry's at the call: none spans a stop */
};

/*
 * A field path, argN->a->b, as set up: the offset of each member, every
 * step but the last through a pointer, and the last one's width; or, for
 * a char array (@str), its address, which the key then copies from.
 */
struct kstats_path {
	u8 n;				/* steps; 0: the argument itself */
	u8 bytes;
	bool str;
	u32 off[KSTATS_PATH_STEPS];
	char names[KSTATS_PATH_LEN];	/* as written, for the listing */
};

/*
 * What an entry hooks, as the commands resolve it before attach: FUNC, or
 * X or Y of a pair, or X of a gap.
 */
struct kstats_site {
	struct kstats_target target;
	unsigned long addr;	/* its address if known, else by symbol */
	struct tracepoint *tp;	/* a tracepoint, once looked up */
	struct module *tp_mod;	/* owner of @tp, NULL if built in */
	bool no_ftrace;		/* calibration: a kprobe even at an entry */
};

/*
 * The part of an entry that the commands, the listing, calibration and
 * the record path share. A mechanism that holds more (a kretprobe, an
 * fprobe, a trampoline slot) embeds it first in a struct of its own file,
 * of kstats_mech_ops.size, and its handlers reach that struct by
 * container_of: no load more than before.
 */
/*
 * The shapes of an entry that handlers specialise on, as ftrace picks a
 * trampoline per ops: the lean ones read the cycle counter, sample time,
 * and have no filter, counter or by argN; each pays for what it has, and
 * a lean entry's handlers test the shape once instead of every option.
 */
enum kstats_shape {
	KSTATS_SHAPE_FULL,	/* any other: each option tested per hit */
	KSTATS_SHAPE_LEAN,	/* none of the options */
	KSTATS_SHAPE_OUTLIERS,	/* outliers N */
	KSTATS_SHAPE_KEYS,	/* by pid|tid|cpu|retval, read at the end */
	KSTATS_SHAPE_COMM,	/* by comm, the same */
	KSTATS_SHAPE_KEYS_FROZEN,	/* either, while its keys reset */
};

struct kstats_probe {
	struct list_head node;		/* in the list of control entries */
	struct kstats *ks;
	const struct kstats_mech_ops *ops;	/* its mechanism, set by attach */
	bool pcpu;			/* trace pcpu:FUNC */
	enum kstats_cmd_clock clock;	/* never DEFAULT, see kstats_clock() */
	u32 tsc_mult, tsc_shift;	/* clock tsc: ns = cycles * mult >> shift */
	enum kstats_cmd_key key;
	struct kstats_filter filter;	/* hits measured, see kstats_filter.h */
	enum kstats_cmd_value value;	/* time, or what else is sampled */
	unsigned int arg;		/* value argN: N */
	/*
	 * A value's type, from BTF or "type" (kstats_value.c): the register
	 * is cut to @vbits, sign-extended if @vsigned, else masked with
	 * @vmask; errors counted apart if @verrors.
	 */
	u64 vmask;
	u8 vbits;
	bool vsigned;
	bool verrors;
	enum kstats_cmd_counter counter;	/* counted instead of time */
	struct perf_event * __percpu *events;	/* its counter per CPU */
	struct kstats_keys *keys;	/* by KEY: per-key histograms, or NULL */
	unsigned int by_arg;		/* by argN: N, else 0 */
	bool by_hook;			/* by stack of a pair: read by its hook */
	struct kstats_outliers *outliers;	/* outliers N, or NULL */
	bool registered;		/* its mechanism's probes */
	bool gone;			/* detached: code it used went away */
	bool armed;			/* its hooks fire (control mutex) */
	bool dying;			/* being removed */
	bool stuck;			/* an unregister failed (logged) */
	bool pinned;			/* stuck registered: holds kstats */
	unsigned long addr;		/* FUNC's address */
	u64 resumed;			/* trace FUNC, lean pairs: last start's clock */
	u8 shape;			/* enum kstats_shape, set at attach */
	bool own_code;			/* calibrate's: no BTF needed */
	bool raw;			/* values or keys that may be addresses */
	struct kstats_site start;	/* FUNC, or X of a pair or gap */
	struct kstats_site end;		/* Y of a pair */
	struct kstats_pcpu_owner __percpu *owner;	/* pcpu */
	struct kstats_probe_stats __percpu *stats;
};

/* The mask of an unsigned integer type of @bits (8 to 64) bits. */
static inline u64 kstats_int_mask(unsigned int bits)
{
	return bits == 64 ? ~0ULL : BIT_ULL(bits) - 1;
}

/*
 * A register holding an integer of @bits bits (@mask: kstats_int_mask()),
 * signed or not: the x86-64 ABI leaves the bits above a narrower type
 * undefined (a caller may pass an int in a register whose upper half
 * holds anything).
 */
static __always_inline u64 kstats_int_cut(u64 v, unsigned int bits,
					  bool is_signed, u64 mask)
{
	return is_signed ? sign_extend64(v, bits - 1) : v & mask;
}

/* Clocks, kstats_clock.c. */
bool kstats_tsc_usable(void);
int kstats_clock_pick(struct kstats_probe *p, struct kstats_cmd *cmd);
const char *kstats_clock_name(const struct kstats_probe *p);

#define kstats_fail(cmd, err, fmt, ...)					\
	({								\
		snprintf((cmd)->why, sizeof((cmd)->why), fmt, ##__VA_ARGS__); \
		(err);							\
	})

/*
 * key task: the table of pending starts, kstats_task.c; what one of
 * @slots (0: the default for the threads there are) takes.
 */
size_t kstats_task_table_bytes(unsigned int slots);
struct kstats_task_table *kstats_task_table_alloc(unsigned int slots);
void kstats_task_table_free(struct kstats_task_table *t);
unsigned int kstats_task_table_size(const struct kstats_task_table *t);
unsigned int kstats_task_home(const struct kstats_task_table *t,
			      const struct task_struct *tsk);
/* @by: the key of the start's histogram, given back by the take. */
bool kstats_task_start(struct kstats_task_table *t, u64 now, u32 epoch,
		       const u64 by[2]);
u64 kstats_task_take(struct kstats_task_table *t, u32 epoch, u64 by[2]);
void kstats_task_forget(struct kstats_task_table *t, struct task_struct *tsk);
int kstats_task_init(void);
int kstats_task_hook(struct kstats_task_table *t,
		     struct kstats_probe_stats __percpu *stats,
		     struct kstats_cmd *cmd);
void kstats_task_unhook(struct kstats_task_table *t);

/* Calibration, kstats_calibrate.c. */
int kstats_calibrate(struct kstats_cmd *cmd);
void kstats_show_bias(struct seq_file *m, const struct kstats_probe *p);

#endif /* _KSTATS_PROBE_H */
