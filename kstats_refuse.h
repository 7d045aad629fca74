/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: shared probe helpers. Targets kstats refuses before hooking
 * anything, kstats_refuse.c.
 */
#ifndef _KSTATS_REFUSE_H
#define _KSTATS_REFUSE_H

struct kstats_cmd;

/*
 * 0, or -EOPNOTSUPP with @cmd->why set: a target of @cmd is on kstats'
 * own record path, or never returns and @cmd waits for its return.
 */
int kstats_refuse(struct kstats_cmd *cmd);

#endif /* _KSTATS_REFUSE_H */
