/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers, below the mechanisms (kstats_target.c):
 * where a target is, the tracepoints of the kernel and its modules, and
 * code going away.
 */
#ifndef _KSTATS_TARGET_H
#define _KSTATS_TARGET_H

#include <linux/mutex.h>
#include "kstats_parse.h"

struct module;
struct seq_file;
struct tracepoint;

/*
 * Serialises control operations: the commands, the mechanisms' attach,
 * enable, disable and detach, and the module notifiers.
 */
extern struct mutex kstats_control_mutex;

/* Address of @t, through a kprobe that is registered but never armed. */
int kstats_resolve(struct kstats_cmd *cmd, const char *what,
		   const struct kstats_target *t, unsigned long *addr);
/* Explain an error of register_kprobe() and friends in @cmd->why. */
int kstats_kprobe_error(struct kstats_cmd *cmd, const char *what,
			const struct kstats_target *t, int err);
/* The tracepoint @name, of the kernel or of *@mod; under the mutex. */
struct tracepoint *kstats_find_tp(const char *name, struct module **mod);
struct kstats_probe;
/*
 * The addresses of FUNC, or of X and Y, before anything is hooked; then
 * the refusal of any in kstats itself, checked again after attach.
 */
int kstats_resolve_targets(struct kstats_probe *p, struct kstats_cmd *cmd);
int kstats_check_addrs(struct kstats_probe *p, struct kstats_cmd *cmd);
/* The same refusal for one more site, @what at @addr (0: none). */
int kstats_check_addr(struct kstats_cmd *cmd, const char *what,
		      unsigned long addr);
/* @t as written in a command. */
void kstats_show_target(struct seq_file *m, const struct kstats_target *t);

/*
 * The module notifiers call @gone, under kstats_control_mutex, for code
 * of @mod going away: its text, or (@tracepoints) its tracepoints. The
 * commands hand it down at module init: the one call upwards, through a
 * pointer, as a notifier is.
 */
typedef void (*kstats_gone_fn)(struct module *mod, bool tracepoints);
int kstats_target_init(kstats_gone_fn gone);
void kstats_target_exit(void);

#endif /* _KSTATS_TARGET_H */
