// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * Filters of an entry: "pid N", "tid N", "comm NAME", "cpu N" and
 * "cgroup PATH|ID" in a trace command, combined with AND. pid is the
 * process (thread group) as in perf's --pid, tid the thread as in perf's
 * --tid, both in the initial pid namespace; cgroup a cgroup v2 group, by
 * its path below the root or its id (the inode number of its directory),
 * with every group below it, as in bpftrace's cgroup filters. The handlers
 * check them first (kstats_filter.h); for a pair only the start is
 * checked.
 */
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/err.h>
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

/* "cgroup /a/b" (below the cgroup v2 root) or "cgroup ID" (non-zero). */
static int kstats_parse_cgroup(struct kstats_cmd *cmd, const char *val)
{
	if (val[0] == '/') {
		if (strlen(val) > KSTATS_CGROUP_PATH_MAX)
			return kstats_fail(cmd, -EINVAL,
					   "cgroup: a path of at most %d characters",
					   KSTATS_CGROUP_PATH_MAX);
		strscpy(cmd->cgroup_path, val, sizeof(cmd->cgroup_path));
		return 0;
	}
	if (kstrtou64(val, 10, &cmd->filter.cgroup_id) || !cmd->filter.cgroup_id)
		return kstats_fail(cmd, -EINVAL,
				   "cgroup: a path from / or a cgroup id (its directory's inode number)");
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
	else if (!strcasecmp(key, "cgroup"))
		flag = KSTATS_FILTER_CGROUP;
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
	case KSTATS_FILTER_CGROUP:
		ret = kstats_parse_cgroup(cmd, val);
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

#ifdef CONFIG_CGROUPS
int kstats_filter_get(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct cgroup *cgrp;

	if (!(cmd->filter.flags & KSTATS_FILTER_CGROUP))
		return 0;
	if (cmd->cgroup_path[0])
		cgrp = cgroup_get_from_path(cmd->cgroup_path);
	else
		cgrp = cgroup_get_from_id(cmd->filter.cgroup_id);
	if (IS_ERR_OR_NULL(cgrp)) {
		if (cmd->cgroup_path[0])
			return kstats_fail(cmd, -ENOENT, "cgroup %s: no such cgroup v2 group",
					   cmd->cgroup_path);
		return kstats_fail(cmd, -ENOENT, "cgroup %llu: no such cgroup v2 group",
				   cmd->filter.cgroup_id);
	}
	p->filter.cgroup = cgrp;
	p->filter.cgroup_id = cgroup_id(cgrp);
	return 0;
}

void kstats_filter_put(struct kstats_probe *p)
{
	if (p->filter.cgroup)
		cgroup_put(p->filter.cgroup);
	p->filter.cgroup = NULL;
}
#else
int kstats_filter_get(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	if (!(cmd->filter.flags & KSTATS_FILTER_CGROUP))
		return 0;
	return kstats_fail(cmd, -EOPNOTSUPP,
			   "cgroup: this kernel has no cgroups (CONFIG_CGROUPS)");
}

void kstats_filter_put(struct kstats_probe *p)
{
}
#endif

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
	if (f->flags & KSTATS_FILTER_CGROUP)
		seq_printf(m, " cgroup %llu", f->cgroup_id);
	seq_printf(m, " filtered %lu", filtered);
}
