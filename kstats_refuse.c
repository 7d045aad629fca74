// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the kernel only.
 *
 * Targets that kstats refuses before it hooks anything: the code of its
 * own record path, and, for the modes that wait for a return, functions
 * that never return. Layer: shared probe helpers, called by the _control
 * commands; calls nothing of kstats.
 *
 * The record path is refused where it can be named: the clocksources'
 * read functions (the current one is called by every kstats_now()),
 * sched_clock and the TSC checks. The recursion guard of the handlers
 * (kstats_guard_enter()) still covers whatever is not listed here, such
 * as a clocksource of an architecture or driver not named below.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_refuse.h"

/* Read by kstats_now(), local_clock() or the TSC checks of every sample. */
static const char *const kstats_record_path[] = {
	/* clocksource reads (x86, ACPI, virtual machines, arm64) */
	"read_hpet", "acpi_pm_read", "acpi_pm_read_slow",
	"acpi_pm_read_verified", "read_tsc", "pit_read", "jiffies_read",
	"kvm_clock_read", "kvm_clock_get_cycles", "kvm_sched_clock_read",
	"pvclock_clocksource_read", "pvclock_clocksource_read_nowd",
	"__pvclock_clocksource_read", "pvclock_read_flags",
	"read_hv_clock_tsc", "read_hv_clock_tsc_cs", "read_hv_clock_msr",
	"read_hv_clock_msr_cs", "read_hv_sched_clock_tsc",
	"read_hv_sched_clock_msr", "hv_read_tsc_page", "hv_read_tsc_page_tsc",
	"xen_clocksource_read", "xen_clocksource_get_cycles",
	"xen_sched_clock", "vmware_sched_clock", "arch_counter_read",
	"arch_counter_get_cntvct", "arch_counter_get_cntpct",
	"arch_counter_get_cntvct_stable", "arch_counter_get_cntpct_stable",
	/* the clocks themselves, where a kernel traces them */
	"ktime_get_mono_fast_ns", "ktime_get_raw_fast_ns", "local_clock",
	"local_clock_noinstr", "sched_clock", "sched_clock_cpu",
	"sched_clock_noinstr", "native_sched_clock", "paravirt_sched_clock",
	"check_tsc_unstable", "unsynchronized_tsc",
	/* preempt_enable() of a handler, with CONFIG_PREEMPT or DEBUG_PREEMPT */
	"preempt_schedule", "preempt_schedule_notrace", "preempt_count_add",
	"preempt_count_sub",
};

/*
 * Sanitizer hooks: on a kernel built with them, kstats' own handlers are
 * instrumented and call them on every sample.
 */
static const char *const kstats_record_prefixes[] = {
	"__asan_", "__kasan_", "kasan_", "__kcsan_", "kcsan_", "__kmsan_",
	"kmsan_", "__tsan_", "__ubsan_", "__sanitizer_cov_",
};

/*
 * Never return to their caller: a return hook, an instance or a
 * trampoline frame of theirs would never be released (BPF refuses fexit
 * on the same functions), or would be found on another task's stack.
 */
static const char *const kstats_noreturn[] = {
	"do_exit", "do_group_exit", "do_task_dead", "make_task_dead",
	"kthread_exit", "kthread_complete_and_exit",
	"__module_put_and_kthread_exit", "complete_and_exit",
	"__x64_sys_exit", "__x64_sys_exit_group", "__ia32_sys_exit",
	"__ia32_sys_exit_group", "__se_sys_exit", "__se_sys_exit_group",
	"__do_sys_exit", "__do_sys_exit_group", "__arm64_sys_exit",
	"__arm64_sys_exit_group", "rewind_stack_and_make_dead",
	"rewind_stack_do_exit", "panic", "nmi_panic", "vpanic",
	"cpu_startup_entry", "cpu_idle_loop", "start_secondary",
	"secondary_start_kernel",
	"rest_init", "machine_power_off", "kernel_power_off",
	"kernel_halt", "kernel_restart", "machine_halt", "machine_restart",
	"emergency_restart", "do_kernel_power_off", "ret_from_fork",
	"ret_from_fork_asm",
	/*
	 * Return to another task's stack: a return hook of the kernel
	 * (rethook) finds no return address of its own there and BUG()s.
	 */
	"__switch_to", "__switch_to_asm", "cpu_switch_to",
};

/* @sym without a compiler suffix (".isra.0", ".cold", ".part.1") in @list */
static bool kstats_listed(const char *const *list, size_t n, const char *sym)
{
	size_t len = strcspn(sym, ".");
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(list[i], sym, len))
			return true;
	return false;
}

static bool kstats_prefixed(const char *sym)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kstats_record_prefixes); i++)
		if (!strncmp(sym, kstats_record_prefixes[i],
			     strlen(kstats_record_prefixes[i])))
			return true;
	return false;
}

/* One endpoint: @what names it in the reason, @duration: a return is hooked. */
static int kstats_refuse_one(struct kstats_cmd *cmd, const char *what,
			     const struct kstats_target *t, bool duration)
{
	if (t->tracepoint || !t->sym[0])
		return 0;
	if (kstats_listed(kstats_record_path, ARRAY_SIZE(kstats_record_path),
			  t->sym))
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "%s: %s is on kstats' record path (clock read): its handler would recurse",
				   what, t->sym);
	if (kstats_prefixed(t->sym))
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "%s: %s is a sanitizer hook, on kstats' record path: its handler would recurse",
				   what, t->sym);
	if (duration && !t->offset &&
	    kstats_listed(kstats_noreturn, ARRAY_SIZE(kstats_noreturn), t->sym))
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "%s: %s never returns to its caller: use gap or a pair's start",
				   what, t->sym);
	return 0;
}

int kstats_refuse(struct kstats_cmd *cmd)
{
	unsigned int i;
	int ret;

	switch (cmd->op) {
	case KSTATS_CMD_TRACE_PAIR:
		for (i = 0; i < cmd->nr_more; i++) {
			ret = kstats_refuse_one(cmd, "start", &cmd->more[i], false);
			if (ret)
				return ret;
		}
		return kstats_refuse_one(cmd, "start", &cmd->start, false) ?:
		       kstats_refuse_one(cmd, "end", &cmd->end, false);
	case KSTATS_CMD_TRACE_GAP:
		return kstats_refuse_one(cmd, "gap", &cmd->start, false);
	case KSTATS_CMD_TRACE_USER:
		/* A process's code: none of the kernel's is hooked. */
		return 0;
	default:
		/* trace FUNC and pcpu:FUNC wait for the return, but argN. */
		return kstats_refuse_one(cmd, "trace", &cmd->start,
					 cmd->value != KSTATS_VALUE_ARG);
	}
}
