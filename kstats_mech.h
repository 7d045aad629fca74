/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: mechanisms. The operations of one mechanism (kstats_direct.c,
 * kstats_fprobe.c, kstats_kretprobe.c, kstats_pair.c, kstats_gap.c,
 * kstats_uprobe.c), and
 * the table that the commands go through (kstats_mech.c). Control-time
 * operations only: handlers are called by the kernel's hooks directly,
 * never through these.
 */
#ifndef _KSTATS_MECH_H
#define _KSTATS_MECH_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include "kstats_parse.h"

struct kstats_probe;
struct kstats_probe_stats;
struct module;
struct seq_file;

/* The rows of the calibration, kstats_calibrate.c. */
enum kstats_cal_mech {
	KSTATS_CAL_CLOCK,
	KSTATS_CAL_CLOCK_LOCAL,
	KSTATS_CAL_CLOCK_TSC,	/* where the TSC is usable */
	KSTATS_CAL_MANUAL,
	KSTATS_CAL_KRETPROBE,
	KSTATS_CAL_FPROBE,
	KSTATS_CAL_PCPU_KRETPROBE,
	KSTATS_CAL_PCPU_FPROBE,
	KSTATS_CAL_FTRACE_CPU,
	KSTATS_CAL_FTRACE_TASK,
	KSTATS_CAL_KPROBE_CPU,
	KSTATS_CAL_KPROBE_TASK,
	KSTATS_CAL_TP_CPU,
	KSTATS_CAL_TP_TASK,
	KSTATS_CAL_DIRECT,	/* where the kernel has direct calls */
	KSTATS_CAL_NR,
};

/* The commands of the mechanisms that time a function: trace, pcpu:. */
#define KSTATS_FUNC_CMDS	(BIT(KSTATS_CMD_TRACE) | BIT(KSTATS_CMD_TRACE_PCPU))

/**
 * struct kstats_mech_ops - one way to hook code, under kstats_control_mutex
 * @cmds: the commands it serves, BIT(enum kstats_cmd_op).
 * @via: what "via" forces it; %KSTATS_VIA_AUTO if nothing does.
 * @absent: set where Kbuild left the mechanism out: why "via" fails.
 * @paired: start and end are two hooks, not one call (counter: no
 *	"migrated").
 * @size: the size of its probe, a struct that begins with struct
 *	kstats_probe (KSTATS_MECH_SIZE()); 0 for struct kstats_probe alone.
 *	A command's probe has the largest size of the mechanisms that may
 *	take it, so that one that passes it on (attach returns 1, having
 *	registered and allocated nothing) hands the next one room for its
 *	own part.
 * @memory: what its attach allocates for @cmd besides the probe (tables
 *	of pending starts), charged to max_memory before; NULL: nothing.
 * @name: the listing's "mechanism" of @p.
 * @attach: register the probes disabled (an ftrace callback or a
 *	tracepoint probe is live at once but finds the entry stopped until
 *	it is published). Without "via", 1 passes the command on to the
 *	next mechanism of the table, with @cmd->why empty.
 * @enable: let them fire, or fail. NULL: nothing to do.
 * @disable: disarm them while the entry is stopped. NULL: nothing to do.
 * @detach: unregister whatever attach registered; returns only when no
 *	handler runs or will run, unless it leaves p->registered set.
 * @missed: the mechanism's own count of hits it did not report, or NULL.
 * @show: the listing's " targets ..." part, or NULL for FUNC alone.
 * @show_counts: counts of its own in the listing, or NULL.
 * @cal_rows: the calibration rows whose bias applies to @p (both the
 *	same, or the two sides of a pair); NULL if none does.
 * @uses: whether @p hooks the text (or, with @tracepoints, a tracepoint)
 *	of @mod, going away.
 * @free: free what attach allocated in @p, which may have failed
 *	part way; or NULL.
 * @exit: module exit, after every entry went; or NULL.
 */
struct kstats_mech_ops {
	unsigned int cmds;
	enum kstats_cmd_via via;
	const char *absent;
	bool paired;
	size_t size;
	size_t (*memory)(const struct kstats_cmd *cmd);
	const char *(*name)(const struct kstats_probe *p);
	int (*attach)(struct kstats_probe *p, struct kstats_cmd *cmd);
	int (*enable)(struct kstats_probe *p);
	void (*disable)(struct kstats_probe *p);
	void (*detach)(struct kstats_probe *p);
	unsigned long (*missed)(const struct kstats_probe *p);
	void (*show)(struct seq_file *m, const struct kstats_probe *p);
	void (*show_counts)(struct seq_file *m, const struct kstats_probe *p,
			    const struct kstats_probe_stats *sum);
	void (*cal_rows)(const struct kstats_probe *p,
			 enum kstats_cal_mech rows[2]);
	bool (*uses)(const struct kstats_probe *p, struct module *mod,
		     bool tracepoints);
	void (*free)(struct kstats_probe *p);
	void (*exit)(void);
};

/* @type's member p, its struct kstats_probe, is first: kfree() frees both. */
#define KSTATS_MECH_SIZE(type)	\
	(sizeof(type) + BUILD_BUG_ON_ZERO(offsetof(type, p)))

/* One line each in the table of kstats_mech.c. */
extern const struct kstats_mech_ops kstats_direct_ops;
extern const struct kstats_mech_ops kstats_fprobe_ops;
extern const struct kstats_mech_ops kstats_kretprobe_ops;
extern const struct kstats_mech_ops kstats_pair_ops;
extern const struct kstats_mech_ops kstats_gap_ops;
extern const struct kstats_mech_ops kstats_uprobe_ops;

/* The commands' side, kstats_mech.c. */
/*
 * What an entry of @cmd takes at most, whichever mechanism takes it: its
 * probe, histograms, keys, outliers and tables; charged to max_memory.
 */
size_t kstats_probe_memory(const struct kstats_cmd *cmd);
struct kstats_probe *kstats_probe_alloc(const struct kstats_cmd *cmd);
void kstats_probe_free(struct kstats_probe *p);
int kstats_attach(struct kstats_probe *p, struct kstats_cmd *cmd);
int kstats_enable(struct kstats_probe *p);
void kstats_disable(struct kstats_probe *p);
void kstats_detach(struct kstats_probe *p);
unsigned long kstats_missed(const struct kstats_probe *p);
bool kstats_mech_uses(const struct kstats_probe *p, struct module *mod,
		      bool tracepoints);
void kstats_mech_exit(void);

/* The targets of a FUNC mechanism, and whether @mod holds FUNC. */
void kstats_show_func(struct seq_file *m, const struct kstats_probe *p);
bool kstats_func_uses(const struct kstats_probe *p, struct module *mod,
		      bool tracepoints);

#endif /* _KSTATS_MECH_H */
