// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. Calls the parser and the commands (kstats_control.c).
 *
 * One command line written into debugfs _control or /dev/kstats: parsed,
 * checked against lockdown, run, or refused with one rate-limited line in
 * the log naming the file it came through.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include "kstats_compat.h"
#include "kstats_internal.h"
#include "kstats_parse.h"
#include "kstats_probe.h"

/*
 * As perf_event_open() asks of a system-wide profiler: CAP_PERFMON or
 * CAP_SYS_ADMIN in the initial user namespace, whatever the file's mode
 * says, with the credentials that opened @file (a descriptor opened
 * without them gives nothing to the task it is passed to).
 */
int kstats_may_command(struct file *file, const char *via)
{
	if (file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	    file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return 0;
	pr_warn_ratelimited("%s: command refused: needs CAP_PERFMON or CAP_SYS_ADMIN\n",
			    via);
	return -EPERM;
}

/*
 * Other tasks' stacks, comms and pids: for CAP_SYS_ADMIN, as the kernel
 * asks of a reader of /proc/PID/stack, with the opener's credentials.
 */
int kstats_may_see_tasks(struct file *file, const char *what)
{
	if (file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return 0;
	pr_warn_ratelimited("%s: open refused: it shows other tasks, for CAP_SYS_ADMIN only\n",
			    what);
	return -EACCES;
}

/*
 * Confidentiality lockdown keeps kernel memory from user space: the
 * values and keys of an entry that were typed by "type T" where no BTF
 * said what they are may be addresses (a pointer argument, read as u64),
 * and are not shown then.
 */
bool kstats_values_hidden(const struct kstats *ks)
{
	return ks->origin == KSTATS_ORIGIN_CONTROL && ks->probe->raw &&
	       security_locked_down(LOCKDOWN_KPROBES);
}

int kstats_may_show_values(const struct kstats *ks, const char *what)
{
	if (!kstats_values_hidden(ks))
		return 0;
	pr_warn_ratelimited("%s%s: its values may be addresses (typed without BTF): not shown under confidentiality lockdown\n",
			    what, ks->name);
	return -EPERM;
}

/*
 * Confidentiality lockdown forbids kprobes, hence every trace. debugfs
 * only checks lockdown at open, and /dev/kstats not at all, so it is
 * checked here, on each command. A start arms probes again: it is
 * checked where it does (kstats_state.c).
 */
static int kstats_command_allowed(struct kstats_cmd *cmd)
{
	int ret;

	switch (cmd->op) {
	case KSTATS_CMD_REMOVE:
	case KSTATS_CMD_START:
	case KSTATS_CMD_STOP:
	case KSTATS_CMD_RESET:
		return 0;
	default:
		/* calibrate registers probes too. */
		break;
	}
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret)
		snprintf(cmd->why, sizeof(cmd->why),
			 "kernel locked down (confidentiality): no probes; boot without lockdown=confidentiality to trace");
	return ret;
}

/*
 * The refusals share one rate limit, the kernel's default (10 lines per
 * 5 s) unless log_burst says otherwise: a script that writes many
 * commands, or a glob of functions, may need every reason, as
 * net.core.message_burst serves net_ratelimit(). A new value starts a
 * new window.
 */
static struct ratelimit_state kstats_refusal_rs =
	RATELIMIT_STATE_INIT(kstats_refusal_rs, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);

static int kstats_log_burst_set(const char *val, const struct kernel_param *kp)
{
	unsigned int burst;
	int ret;

	ret = kstrtouint(val, 0, &burst);
	if (ret)
		return ret;
	if (!burst || burst > INT_MAX)
		return -EINVAL;
	kstats_ratelimit_restart(&kstats_refusal_rs, burst);
	return 0;
}

static int kstats_log_burst_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(kstats_refusal_rs.burst));
}

static const struct kernel_param_ops kstats_log_burst_ops = {
	.set = kstats_log_burst_set,
	.get = kstats_log_burst_get,
};
module_param_cb(log_burst, &kstats_log_burst_ops, NULL, 0644);
MODULE_PARM_DESC(log_burst, "refusals logged per 5 s (default 10)");

ssize_t kstats_command_write(const char __user *ubuf, size_t count,
			     const char *via)
{
	struct kstats_cmd *cmd;
	char *buf;
	int len, ret;

	if (count > KSTATS_CMD_LEN) {
		if (__ratelimit(&kstats_refusal_rs))
			pr_warn("%s: command refused: longer than %d bytes (%zu)\n",
				via, KSTATS_CMD_LEN, count);
		return -EINVAL;
	}
	buf = memdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	cmd = kmalloc_obj(*cmd, GFP_KERNEL);
	if (!cmd) {
		kfree(buf);
		return -ENOMEM;
	}
	ret = kstats_parse(buf, count, cmd);
	if (!ret)
		ret = kstats_command_allowed(cmd);
	if (!ret)
		ret = kstats_probe_command(cmd);
	if (ret) {
		len = count;
		if (len && buf[len - 1] == '\n')
			len--;
		if (__ratelimit(&kstats_refusal_rs))
			pr_warn("%s: '%*pE' refused: %s\n", via, len, buf,
				cmd->why[0] ? cmd->why : "error");
	}
	kfree(cmd);
	kfree(buf);
	return ret ? ret : count;
}
