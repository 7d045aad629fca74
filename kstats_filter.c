// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * Filters of an entry: "pid N", "tid N", "comm NAME" and "cpu N" in a
 * trace command, combined with AND. pid is the process (thread group) as
 * in perf's --pid, tid the thread as in perf's --tid, both in the initial
 * pid namespace. The handlers check them first (kstats_filter.h); for a
 * pair only the start is checked.
 */
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/threads.h>
#include "kstats_filter.h"
#include "kstats_parse.h"

static_assert(KSTATS_COMM_LEN == TASK_COMM_LEN);

/* A pid or tid: 0 (the idle tasks) to PID_MAX_LIMIT, decimal. */
static int kstats_parse_id(struct kstats_cmd *cmd, const char *key,
			   const char *val, int *id)
{
	if (kstrtoint(val, 10, id) || *id < 0 || *id > PID_MAX_LIMIT)
		return kstats_fail(cmd, -EINVAL, "%s must be 0 to %d", key,
				   (int)PID_MAX_LIMIT);
	return 0;
}

/* A task name as /proc/PID/comm shows it, minus what splits words. */
static int kstats_parse_comm(struct kstats_cmd *cmd, const char *val)
{
	size_t i, len = strlen(val);

	if (len >= KSTATS_COMM_LEN)
		return kstats_fail(cmd, -EINVAL, "comm is at most %d characters",
				   KSTATS_COMM_LEN - 1);
	for (i = 0; i < len; i++)
		if (!isascii(val[i]) || !isgraph(val[i]))
			return kstats_fail(cmd, -EINVAL, "comm: printable ASCII only");
	strscpy(cmd->filter.comm, val, sizeof(cmd->filter.comm));
	return 0;
}

int kstats_parse_filter(struct kstats_cmd *cmd, const char *key,
			const char *val)
{
	struct kstats_filter *f = &cmd->filter;
	unsigned int flag;
	int ret;

	if (!strcasecmp(key, "pid"))
		flag = KSTATS_FILTER_PID;
	else if (!strcasecmp(key, "tid"))
		flag = KSTATS_FILTER_TID;
	else if (!strcasecmp(key, "comm"))
		flag = KSTATS_FILTER_COMM;
	else if (!strcasecmp(key, "cpu"))
		flag = KSTATS_FILTER_CPU;
	else
		return -ENOENT;
	if (f->flags & flag)
		return kstats_fail(cmd, -EINVAL, "%s given twice", key);
	switch (flag) {
	case KSTATS_FILTER_PID:
		ret = kstats_parse_id(cmd, "pid", val, &f->pid);
		break;
	case KSTATS_FILTER_TID:
		ret = kstats_parse_id(cmd, "tid", val, &f->tid);
		break;
	case KSTATS_FILTER_COMM:
		ret = kstats_parse_comm(cmd, val);
		break;
	default:
		ret = kstrtouint(val, 10, &f->cpu) ?
		      kstats_fail(cmd, -EINVAL, "cpu must be a CPU number") : 0;
		break;
	}
	if (!ret)
		f->flags |= flag;
	return ret;
}

int kstats_filter_check(struct kstats_cmd *cmd)
{
	const struct kstats_filter *f = &cmd->filter;

	if ((f->flags & KSTATS_FILTER_CPU) &&
	    (f->cpu >= nr_cpu_ids || !cpu_possible(f->cpu)))
		return kstats_fail(cmd, -EINVAL, "cpu %u: no such CPU (0 to %u)",
				   f->cpu, nr_cpu_ids - 1);
	return 0;
}

void kstats_filter_show(struct seq_file *m, const struct kstats_filter *f,
			unsigned long filtered)
{
	if (!f->flags)
		return;
	if (f->flags & KSTATS_FILTER_PID)
		seq_printf(m, " pid %d", f->pid);
	if (f->flags & KSTATS_FILTER_TID)
		seq_printf(m, " tid %d", f->tid);
	if (f->flags & KSTATS_FILTER_COMM)
		seq_printf(m, " comm %s", f->comm);
	if (f->flags & KSTATS_FILTER_CPU)
		seq_printf(m, " cpu %u", f->cpu);
	seq_printf(m, " filtered %lu", filtered);
}
