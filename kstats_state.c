// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: commands. start, stop and reset of an entry, written into its
 * file or given by name ("start NAME" into _control or /dev/kstats).
 * A traced entry's probes follow its state: disarmed while stopped.
 * Calls the mechanisms through kstats_mech.h and the record core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include "kstats_handler.h"
#include "kstats_internal.h"
#include "kstats_keys.h"
#include "kstats_outliers.h"
#include "kstats_mech.h"
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_target.h"

/*
 * A traced entry is about to start (or start again): calls of FUNC that
 * entered before now, and so before any stop, are not measured at their
 * return (kstats_call_end()), nor a lean pair's starts before now at its
 * end (kstats_pair.c). Before the entry is active, so that every call
 * measured after the start began after this.
 */
static void kstats_state_resume(struct kstats *ks)
{
	struct kstats_probe *p = ks->probe;

	WRITE_ONCE(p->resumed, kstats_clock(p));
	/* Seen before the state that kstats_start() then writes. */
	smp_wmb();
}

/*
 * A traced entry stops: the end of a call in flight measures nothing
 * (kstats_call_end_lean() reads this, not the state), until a start
 * moves @resumed again.
 */
static void kstats_state_halt(struct kstats *ks)
{
	if (ks->origin == KSTATS_ORIGIN_CONTROL)
		WRITE_ONCE(ks->probe->resumed, U64_MAX);
	kstats_stop(ks);
}

static void kstats_state_apply(struct kstats *ks, enum kstats_cmd_op op)
{
	switch (op) {
	case KSTATS_CMD_START:
		if (ks->origin == KSTATS_ORIGIN_CONTROL)
			kstats_state_resume(ks);
		kstats_start(ks);
		break;
	case KSTATS_CMD_STOP:
		kstats_state_halt(ks);
		break;
	default:
		/*
		 * The keys first: the samples their reset turns away go into
		 * the entry's own slots, cleared next.
		 */
		if (ks->origin == KSTATS_ORIGIN_CONTROL && ks->probe->keys)
			kstats_keys_reset(ks->probe->keys);
		kstats_reset(ks);
		if (ks->origin == KSTATS_ORIGIN_CONTROL && ks->probe->outliers)
			kstats_outliers_reset(ks->probe->outliers);
		break;
	}
}

/*
 * Arm or disarm the probes of @p to follow its entry's state, under
 * kstats_control_mutex. A stop already makes the handlers do nothing;
 * this makes a stopped entry cost nothing, or next to it (an fprobe
 * keeps its ftrace callback), and a start returns with the probes armed.
 * Confidentiality lockdown forbids probes: a start is refused there.
 */
static int kstats_state_follow(struct kstats_probe *p)
{
	bool want = READ_ONCE(p->ks->active);
	int ret = 0;

	lockdep_assert_held(&kstats_control_mutex);
	if (p->gone || p->dying || want == p->armed)
		return 0;
	if (!want) {
		kstats_disable(p);
		return 0;
	}
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (!ret)
		ret = kstats_enable(p);
	/* Not armed again: say so by the state and the error. */
	if (!p->armed)
		kstats_state_halt(p->ks);
	return ret;
}

int kstats_state_file(struct kstats *ks, int op)
{
	struct kstats_probe *p = ks->probe;
	int ret;

	kstats_state_apply(ks, op);
	if (op == KSTATS_CMD_RESET || ks->origin != KSTATS_ORIGIN_CONTROL)
		return 0;
	/*
	 * Not blocking on kstats_control_mutex: "remove" holds it while it
	 * waits for writers of the entry's file to finish, and marks the
	 * entry dying first, which ends the wait here.
	 */
	while (!mutex_trylock(&kstats_control_mutex)) {
		if (READ_ONCE(p->dying) || fatal_signal_pending(current))
			return 0;
		usleep_range(500, 1000);
	}
	ret = kstats_state_follow(p);
	mutex_unlock(&kstats_control_mutex);
	return ret;
}

int kstats_state_command(struct kstats_cmd *cmd)
{
	struct kstats *ks;
	int ret;

	lockdep_assert_held(&kstats_control_mutex);
	mutex_lock(&kstats_mutex);
	ks = kstats_find(cmd->name);
	if (ks && ks->origin != KSTATS_ORIGIN_CONTROL) {
		/* Its owner deletes it under kstats_mutex only. */
		kstats_state_apply(ks, cmd->op);
		mutex_unlock(&kstats_mutex);
		return 0;
	}
	mutex_unlock(&kstats_mutex);
	if (!ks)
		return kstats_fail(cmd, -ENOENT, "no entry %s", cmd->name);
	/* A control entry goes under kstats_control_mutex only, held here. */
	kstats_state_apply(ks, cmd->op);
	if (cmd->op == KSTATS_CMD_RESET)
		return 0;
	ret = kstats_state_follow(ks->probe);
	if (ret == -EPERM)
		return kstats_fail(cmd, ret,
				   "kernel locked down (confidentiality): no probes; entry %s stays stopped",
				   cmd->name);
	if (ret)
		return kstats_fail(cmd, ret,
				   "entry %s: its probes could not be armed (error %d); it stays stopped",
				   cmd->name, ret);
	return 0;
}
