/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: front end; struct kstats_cmd is the command that
 * every layer below reads.
 *
 * Parser of the commands written to /sys/kernel/debug/kstats/_control.
 * Pure: it reads one line and fills a struct kstats_cmd, without looking
 * up symbols or touching any entry, so that KUnit tests it on its own.
 * Documentation/kstats.rst has the grammar.
 */
#ifndef _KSTATS_PARSE_H
#define _KSTATS_PARSE_H

#include <linux/bits.h>
#include <linux/types.h>
#include "kstats.h"

/* Longest command accepted, in bytes, with the trailing newline. */
#define KSTATS_CMD_LEN		256
/* Longest PATH of trace PATH:SYMBOL. */
#define KSTATS_UPATH_MAX	200
/* Longest symbol or tracepoint name, without "__tracepoint_". */
#define KSTATS_SYM_MAX		127
/* Default frac_bits of an entry created through _control. */
#define KSTATS_DEFAULT_BITS	4
/* Prefix of a tracepoint in start/end targets, as in the kernel's symbols. */
#define KSTATS_TP_PREFIX	"__tracepoint_"
/* Prefix of the per-CPU mode of "trace FUNC". */
#define KSTATS_PCPU_PREFIX	"pcpu:"
/* Bounds of "slots N" (key task), rounded up to a power of two. */
#define KSTATS_TASK_SLOTS_MIN	64
#define KSTATS_TASK_SLOTS_MAX	BIT(22)
/* Calls that "calibrate" times per mechanism: default and bounds. */
#define KSTATS_CALIB_SAMPLES	2000
#define KSTATS_CALIB_MIN	100
#define KSTATS_CALIB_MAX	100000

enum kstats_cmd_op {
	KSTATS_CMD_TRACE,	/* trace FUNC: runtime of FUNC */
	KSTATS_CMD_TRACE_PCPU,	/* trace pcpu:FUNC: same, one call per CPU */
	KSTATS_CMD_TRACE_PAIR,	/* trace NAME start X end Y: X to Y */
	KSTATS_CMD_TRACE_GAP,	/* trace NAME gap X: X to the next X on its CPU */
	KSTATS_CMD_REMOVE,	/* remove NAME */
	KSTATS_CMD_CALIBRATE,	/* calibrate [samples N] */
	KSTATS_CMD_START,	/* start NAME: as "start" into its file */
	KSTATS_CMD_STOP,	/* stop NAME */
	KSTATS_CMD_RESET,	/* reset NAME */
	KSTATS_CMD_TRACE_USER,	/* trace PATH:SYMBOL: a function of a file */
};

/* Mechanism asked for with "via"; only for KSTATS_CMD_TRACE. */
enum kstats_cmd_via {
	KSTATS_VIA_AUTO,	/* the cheapest the kernel has */
	KSTATS_VIA_KRETPROBE,
	KSTATS_VIA_FPROBE,
	KSTATS_VIA_DIRECT,	/* x86-64 ftrace direct call, kstats_direct.c */
};

/* How a pair matches a start with its end. */
enum kstats_cmd_key {
	KSTATS_KEY_CPU,		/* same CPU (default) */
	KSTATS_KEY_TASK,	/* same task */
	KSTATS_KEY_ARG,		/* the start's key argN equal to the end's */
};

/* The sides of a call or a pair; a command's options per side. */
enum kstats_side {
	KSTATS_SIDE_BEGIN,	/* function entry, or X of a pair */
	KSTATS_SIDE_END,	/* function return, or Y of a pair */
	KSTATS_NR_SIDES,
};

/*
 * The sites of a pair: its start and end (enum kstats_side), then the
 * starts written after the first; a command's side[] is indexed so.
 */
#define KSTATS_MORE_STARTS	3
#define KSTATS_PAIR_SITES	(KSTATS_NR_SIDES + KSTATS_MORE_STARTS)

/* EXPR's field path, argN->a->b: at most this many members and bytes. */
#define KSTATS_PATH_STEPS	4
#define KSTATS_PATH_LEN		64
/* A key that is a char array (by argN->comm): its first bytes at most. */
#define KSTATS_STR_KEY		16

/* The comparison of "if argN OP NUMBER". */
enum kstats_cond_op {
	KSTATS_COND_NONE,
	KSTATS_COND_EQ,		/* == */
	KSTATS_COND_NE,		/* != */
	KSTATS_COND_LT,		/* < */
	KSTATS_COND_GT,		/* > */
};

/* Each OP as written, by enum kstats_cond_op (the parser's, the listing's). */
extern const char * const kstats_cond_ops[];

/**
 * struct kstats_cmd_side - what a pair's start or end reads there
 * @key_arg: its key argN, 1-based; 0 unless the pair is %KSTATS_KEY_ARG.
 * @key_path: the field path after argN ("->a->b"), or "".
 * @cond: "if argN OP NUMBER" written after it: the hits whose argument
 *	compares so are taken, the others left alone.
 * @cond_arg: that N, 1-based.
 * @cond_path: the field path after it, or "".
 * @cond_val: that NUMBER.
 * @cond_neg: NUMBER was written with a '-'.
 * @cond_str: or the "STRING" that a char array (argN->comm) is compared
 *	with (== or !=), without its quotes; "" for a NUMBER.
 */
struct kstats_cmd_side {
	unsigned int key_arg;
	char key_path[KSTATS_PATH_LEN];
	enum kstats_cond_op cond;
	unsigned int cond_arg;
	char cond_path[KSTATS_PATH_LEN];
	s64 cond_val;
	bool cond_neg;
	char cond_str[KSTATS_STR_KEY];
};

/* "by KEY": the key of per-key histograms (kstats_keys.h); NONE: no keys. */
enum kstats_cmd_by {
	KSTATS_BY_NONE,
	KSTATS_BY_COMM,
	KSTATS_BY_PID,
	KSTATS_BY_TID,
	KSTATS_BY_CPU,
	KSTATS_BY_CGROUP,
	KSTATS_BY_RETVAL,	/* FUNC's return value, of its BTF type */
	KSTATS_BY_SYSCALL,	/* the syscall a sys_enter/sys_exit pair timed */
	KSTATS_BY_ARG,		/* argument @by_arg at FUNC's entry, X's hit */
	KSTATS_BY_STACK,	/* the kernel stack where FUNC returns to */
};

/* The clock of an entry, "clock local|mono|tsc". */
enum kstats_cmd_clock {
	KSTATS_CLOCK_DEFAULT,	/* tsc where usable, else mono */
	KSTATS_CLOCK_MONO,	/* ktime_get_mono_fast_ns() */
	KSTATS_CLOCK_LOCAL,	/* local_clock() */
	KSTATS_CLOCK_TSC,	/* the TSC, raw, scaled per sample */
};

/*
 * Filters: which hits are measured (all of those given must match).
 * @flags: the KSTATS_FILTER_* given; 0 measures every hit.
 * @pid: process (thread group) id, in the initial pid namespace.
 * @tid: thread id, likewise.
 * @cpu: CPU number; checked against the possible CPUs at attach time.
 * @comm: task name, NUL-terminated, compared whole.
 * @cgroup_id: "cgroup ID", a cgroup v2 id; 0 with "cgroup PATH", whose
 *	path is in the command (struct kstats_cmd).
 * @cgroup: the cgroup, found at trace time and held by the entry: tasks
 *	in it or below it are measured. NULL in a parsed command.
 */
#define KSTATS_FILTER_PID	BIT(0)
#define KSTATS_FILTER_TID	BIT(1)
#define KSTATS_FILTER_COMM	BIT(2)
#define KSTATS_FILTER_CPU	BIT(3)
#define KSTATS_FILTER_CGROUP	BIT(4)
/* Same as the kernel's TASK_COMM_LEN, without pulling in sched.h. */
#define KSTATS_COMM_LEN		16

struct cgroup;

struct kstats_filter {
	unsigned int flags;
	int pid;
	int tid;
	unsigned int cpu;
	char comm[KSTATS_COMM_LEN];
	u64 cgroup_id;
	struct cgroup *cgroup;
};

/* "cgroup PATH": a path below the cgroup v2 root, at most this long. */
#define KSTATS_CGROUP_PATH_MAX	200

/* What a trace FUNC entry samples, "value argN|retval"; time if none. */
enum kstats_cmd_value {
	KSTATS_VALUE_TIME,	/* the runtime, no "value" */
	KSTATS_VALUE_ARG,	/* argument @arg of FUNC at its entry */
	KSTATS_VALUE_RETVAL,	/* the return value of FUNC */
};

/* What a counter entry counts, "counter EVENT"; none: not a counter entry. */
enum kstats_cmd_counter {
	KSTATS_COUNTER_NONE,
	KSTATS_COUNTER_CYCLES,		/* hardware events */
	KSTATS_COUNTER_INSTRUCTIONS,
	KSTATS_COUNTER_CACHE_MISSES,
	KSTATS_COUNTER_BRANCH_MISSES,
	KSTATS_COUNTER_CONTEXT_SWITCHES,	/* software events */
	KSTATS_COUNTER_PAGE_FAULTS,
	KSTATS_NR_COUNTERS,
};

/*
 * Arguments passed in registers, the ones regs_get_kernel_argument()
 * reads reliably: "value argN" takes N from 1 to this.
 */
#if defined(CONFIG_X86_64)
#define KSTATS_REG_ARGS		6
#elif defined(CONFIG_ARM64)
#define KSTATS_REG_ARGS		8
#else
#define KSTATS_REG_ARGS		0
#endif
/*
 * Arguments of a tracepoint that its probe takes (kstats_pair.c), on
 * every architecture: key argN and by argN of a tracepoint take N from 1
 * to this.
 */
#define KSTATS_TP_ARGS		5

/* A place in the kernel: a function, an offset in it, or a tracepoint. */
struct kstats_target {
	bool tracepoint;	/* @sym is a tracepoint name, without prefix */
	unsigned int offset;	/* bytes after @sym; 0 for tracepoints */
	char sym[KSTATS_SYM_MAX + 1];
};

/**
 * struct kstats_cmd - one parsed _control command
 * @op: the command.
 * @name: entry name: NAME of a pair or of "as NAME", else FUNC.
 * @bits: frac_bits of the new entry, %KSTATS_DEFAULT_BITS unless given.
 * @via: mechanism for %KSTATS_CMD_TRACE.
 * @key: pairing for %KSTATS_CMD_TRACE_PAIR.
 * @clock: the clock asked for with "clock".
 * @side: per site of a pair (start, end, then @more), its key argN and
 *	condition. "key argN" and "if" written after "start SITE" or "end
 *	SITE" are that site's; a key written before every site keys every
 *	site without its own, and else the end's a start without its own,
 *	and the starts' (if they agree) an end without its own.
 * @slots: table size for %KSTATS_KEY_TASK and %KSTATS_KEY_ARG; 0 for the
 *	default.
 * @expire: seconds after which a start of %KSTATS_KEY_ARG not ended is
 *	freed; 0 for the default.
 * @samples: calls per mechanism for %KSTATS_CMD_CALIBRATE.
 * @filter: the hits measured (pid, tid, comm, cpu, cgroup).
 * @cgroup_path: the PATH of "cgroup PATH", or "".
 * @value: what is sampled: time, an argument or the return value.
 * @arg: the argument of %KSTATS_VALUE_ARG, 1-based.
 * @vbytes: the width in bytes of the value, the return value (by retval)
 *	or the key argument (key argN) given with "type"; 0 if none.
 * @vsigned: whether the type given is signed.
 * @raw: a value or key that is shown was typed by "type" where no BTF
 *	said what it is: it may be an address (set at trace time).
 * @counter: the perf event counted instead of the time, or none.
 * @by: the key of per-key histograms, or %KSTATS_BY_NONE.
 * @by_arg: the argument of %KSTATS_BY_ARG, 1-based.
 * @by_path: the field path after it ("->a->b"), or "".
 * @by_site: the site of a pair whose hits read by argN or by stack: the
 *	one it was written after (a bare argN after the end: the start's,
 *	as it always was); %KSTATS_SIDE_BEGIN for the others.
 * @keys: "keys N", at most N keys; 0 for the default.
 * @outliers: "outliers N", the N largest samples kept; 0 for none.
 * @upath: PATH of trace PATH:SYMBOL, an absolute path.
 * @uoffset: OFFSET of trace PATH:0xOFFSET, in the file; @start's symbol
 *	is then empty.
 * @start: FUNC, X of a pair, or X of a gap; SYMBOL of PATH:SYMBOL.
 * @end: Y of a pair.
 * @more: the starts of a pair written after the first.
 * @nr_more: how many.
 * @why: on error, why the line was refused, for the kernel log.
 */
struct kstats_cmd {
	enum kstats_cmd_op op;
	char name[KSTATS_NAME_MAX + 1];
	u8 bits;
	enum kstats_cmd_via via;
	enum kstats_cmd_key key;
	struct kstats_cmd_side side[KSTATS_PAIR_SITES];
	enum kstats_cmd_clock clock;
	unsigned int slots;
	unsigned int expire;
	unsigned int samples;
	struct kstats_filter filter;
	char cgroup_path[KSTATS_CGROUP_PATH_MAX + 1];
	enum kstats_cmd_value value;
	unsigned int arg;
	u8 vbytes;
	bool vsigned;
	bool raw;
	enum kstats_cmd_counter counter;
	enum kstats_cmd_by by;
	unsigned int by_arg;
	char by_path[KSTATS_PATH_LEN];
	unsigned int by_site;
	unsigned int keys;
	unsigned int outliers;
	char upath[KSTATS_UPATH_MAX + 1];
	u64 uoffset;
	struct kstats_target start;
	struct kstats_target end;
	struct kstats_target more[KSTATS_MORE_STARTS];
	unsigned int nr_more;
	char why[256];
};

/*
 * Parse @len bytes of @line (no NUL needed; one trailing newline allowed)
 * into @cmd. Returns 0, or -EINVAL with @cmd->why set.
 */
int kstats_parse(const char *line, size_t len, struct kstats_cmd *cmd);

/*
 * Options of kstats_parse_trace() that select hits and samples, in
 * kstats_filter.c and kstats_value.c. kstats_parse_filter() returns
 * -ENOENT, with nothing set, if @key is no filter keyword.
 */
int kstats_parse_filter(struct kstats_cmd *cmd, const char *key,
			const char *val);
int kstats_parse_value(struct kstats_cmd *cmd, const char *val);
/* "argN", N from 1 to KSTATS_REG_ARGS, into @arg; 0 or -EINVAL. */
int kstats_parse_arg(const char *val, unsigned int *arg);
int kstats_parse_value_type(struct kstats_cmd *cmd, const char *val);
/* "by KEY" and "keys N", in kstats_keys.c; -ENOENT for other keywords. */
int kstats_parse_keys(struct kstats_cmd *cmd, const char *key,
		      const char *val);
/* "outliers N", in kstats_outliers.c; -ENOENT for other keywords. */
int kstats_parse_outliers(struct kstats_cmd *cmd, const char *key,
			  const char *val);
/*
 * "counter EVENT", in kstats_counter.c; kstats_parse_counter_check()
 * refuses, once every option is read, the modes whose start and end may
 * be on two CPUs or that sample something else.
 */
int kstats_parse_counter(struct kstats_cmd *cmd, const char *val);
int kstats_parse_counter_check(struct kstats_cmd *cmd);

#endif /* _KSTATS_PARSE_H */
