// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only helper: drives the kstats kernel API from shell tests.
 *
 * Commands written to /sys/kernel/debug/kstats_helper/cmd, one per write:
 *   new NAME BITS            kstats_new(NAME, BITS)
 *   record NAME VALUE COUNT  kstats_record(NAME, VALUE) COUNT times
 *   start|stop|reset NAME    kstats_start/stop/reset(NAME)
 *   delete NAME              kstats_delete(NAME)
 *   work K NS [NAME]         K calls of kstats_helper_work(), each busy for
 *                            NS ns, with preemption off from
 *                            kstats_helper_mark_start() to
 *                            kstats_helper_mark_end(), and the tracepoints
 *                            kstats_helper_start and kstats_helper_end
 *                            just inside those; with NAME, the time of each
 *                            call as its caller sees it goes to entry NAME
 *                            (from "new"), to weigh what probes add
 *   nest K NS                the same, but each call of kstats_helper_work()
 *                            first calls itself once (K outer, K inner calls)
 *   migrate K NS             the same, preemptible, and each call of
 *                            kstats_helper_work() first moves the caller to
 *                            another CPU (needs two online CPUs); the
 *                            caller's CPU mask is restored at the end
 *   sleep K NS               the same, preemptible, and each call of
 *                            kstats_helper_work() sleeps NS ns (rounded to
 *                            us) instead of busy waiting
 *   irqend K NS              K times: tracepoint kstats_helper_start, then
 *                            kstats_helper_end from a hardirq (irq_work),
 *                            then NS ns of busy waiting and
 *                            kstats_helper_end from the task
 *   start, end               tracepoint kstats_helper_start or
 *                            kstats_helper_end once
 *   req K NS                 K requests (K <= 256), request i started by the
 *                            writer on its CPU (kstats_helper_req_start(rq,
 *                            i), then tracepoint kstats_helper_start(i)),
 *                            with name "rq" and i % 4 written into rq,
 *                            then ended by a kworker on another CPU, each
 *                            after NS ns of busy waiting
 *                            (kstats_helper_req_end(rq, i), then
 *                            kstats_helper_end(i)); needs two online CPUs
 *   reqstart K, reqend K     only the starts, or only the ends (on another
 *                            CPU), of requests 0 to K-1
 *   reqpeek K                K calls of kstats_helper_req_peek(rq, i), rq
 *                            request i's for even i, NULL for odd i (a
 *                            field path through it faults)
 *   value V COUNT            COUNT calls of kstats_helper_value(i, V), a
 *                            long function that returns V (signed)
 *   ivalue V COUNT           the same with kstats_helper_ivalue(i, V), an
 *                            int function
 *   narrow A B C D E         one call of kstats_helper_narrow(A, B, C, D,
 *                            E), an int, u16, s8, bool and u32 function,
 *                            through a prototype of u64 words: each
 *                            register holds the value in its low bits and
 *                            garbage above them, as the ABI allows
 *   iret X                   one call of kstats_helper_iret(X), an int
 *                            function that leaves X's upper half (hex) in
 *                            rax above its int
 *   fault N                  maps N fresh pages into the caller and calls
 *                            kstats_helper_fault(), which writes into each
 *                            (N page faults), between
 *                            kstats_helper_mark_start() and _end()
 *   naps N                   one call of kstats_helper_naps(), which
 *                            sleeps N times (1 to 2 jiffies each; a nap
 *                            that did not leave the CPU is taken again)
 * For "via direct" (kstats_helper_direct.h):
 *   args K                   K calls of kstats_helper_args6() and of
 *                            kstats_helper_pair(), each result checked
 *                            (EIO if wrong); also once kstats_helper_args7()
 *                            and kstats_helper_byval(), which need the stack
 *   block                    kstats_helper_block() sleeps until "wake"
 *   wake                     wakes it (neither takes the helper's mutex)
 *   irq K                    K calls of kstats_helper_in_irq() from hardirq
 *   stack                    kstats_helper_stack_caller() calls
 *                            kstats_helper_stack(), which logs its stack
 *   fns K                    one call of each of kstats_helper_fn0 ..
 *                            kstats_helper_fnK-1 (K <= 20)
 *   kthread                  a kernel thread runs kstats_helper_dies(),
 *                            which ends the thread: it never returns
 * Closing a file descriptor of /sys/kernel/debug/kstats_helper/start_on_close
 * hits tracepoint kstats_helper_start; at exit that happens after
 * sched_process_exit, from the exiting task.
 * A failing kernel call returns its errno to write(2).
 *
 * kstats_helper_work() and the marks are targets for _control traces with
 * exactly known call counts; their busy wait is timed with the clock of the
 * kstats handlers, so every traced sample is at least NS.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include "../kstats.h"

#define CREATE_TRACE_POINTS
#include "kstats_helper_trace.h"

#define HELPER_MAX_ENTRIES	64
#define HELPER_CMD_MAX		256

struct helper_entry {
	char name[128];
	struct kstats *ks;
};

static struct helper_entry entries[HELPER_MAX_ENTRIES];
static DEFINE_MUTEX(helper_mutex);
static struct dentry *helper_dir;

enum helper_how {
	HELPER_PLAIN,
	HELPER_NEST,	/* call itself once first */
	HELPER_MIGRATE,	/* move to another CPU first */
	HELPER_SLEEP,	/* sleep instead of busy waiting */
};

/*
 * Side effects of the marks, so that their calls stay, and different ones,
 * so that the compiler does not fold them into one function.
 */
static unsigned int helper_started, helper_ended;

/* Move the current task to an online CPU other than this one. */
static void helper_hop(void)
{
	unsigned int cpu = cpumask_any_but(cpu_online_mask,
					   raw_smp_processor_id());

	if (cpu < nr_cpu_ids)
		set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

/*
 * The traced function. noinline and __noclone keep one out-of-line copy,
 * called by that name; the busy wait uses the handlers' clock.
 */
static noinline __noclone void kstats_helper_work(unsigned int ns,
						  enum helper_how how)
{
	u64 end;

	if (how == HELPER_NEST)
		kstats_helper_work(ns, HELPER_PLAIN);
	else if (how == HELPER_MIGRATE)
		helper_hop();
	if (how == HELPER_SLEEP) {
		usleep_range(ns / NSEC_PER_USEC, ns / NSEC_PER_USEC + 1);
		return;
	}
	end = ktime_get_mono_fast_ns() + ns;
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

static noinline __noclone void kstats_helper_mark_start(unsigned int i)
{
	WRITE_ONCE(helper_started, i);
}

static noinline __noclone void kstats_helper_mark_end(unsigned int i)
{
	WRITE_ONCE(helper_ended, i);
}

/*
 * Targets of "value arg2" and "value retval": argument 1 is the call's
 * index, argument 2 the value, returned as a long or an int.
 */
static unsigned long helper_values;

static noinline __noclone long kstats_helper_value(unsigned int i, long v)
{
	WRITE_ONCE(helper_values, i);
	return v;
}

static noinline __noclone int kstats_helper_ivalue(unsigned int i, int v)
{
	WRITE_ONCE(helper_values, i + 1);
	return v;
}

static int helper_value(const char *buf, bool is_int)
{
	unsigned int i, count;
	long v, sum = 0;

	if (sscanf(buf, "%*s %ld %u", &v, &count) != 2)
		return -EINVAL;
	if (is_int && (v < INT_MIN || v > INT_MAX))
		return -ERANGE;
	for (i = 0; i < count; i++) {
		sum += is_int ? kstats_helper_ivalue(i, v) : kstats_helper_value(i, v);
		cond_resched();
	}
	/* The returns are used, so the calls and their values stay. */
	return sum == (long)count * v ? 0 : -EIO;
}

/*
 * Targets of value entries of narrow types (75-values.sh). The x86-64
 * ABI leaves the bits of a register above its argument's or return
 * value's type undefined: the callers here fill them with garbage.
 */
static unsigned long helper_narrow_sum;

static noinline __noclone void kstats_helper_narrow(int a, u16 b, s8 c, bool d,
						    u32 e)
{
	WRITE_ONCE(helper_narrow_sum, a + b + c + d + e);
}

/* The int in eax (w0), and @x's upper half above it in rax (x0). */
static noinline __noclone int kstats_helper_iret(u64 x)
{
#ifdef CONFIG_ARM64
	register u64 x0 asm("x0");

	asm volatile("mov %0, %1" : "=r" (x0) : "r" (x));
	return (int)x0;
#else
	int r;

	asm volatile("movq %1, %%rax" : "=a" (r) : "r" (x));
	return r;
#endif
}

typedef void (*helper_words5_t)(u64, u64, u64, u64, u64);

/* @v in the low @bits of a word, garbage above. */
static u64 helper_word(long long v, unsigned int bits)
{
	return (0xdeadbeefcafef00dULL << bits) | (v & GENMASK_ULL(bits - 1, 0));
}

static int helper_narrow(const char *buf)
{
	helper_words5_t words = (helper_words5_t)(void *)kstats_helper_narrow;
	long long a, b, c, d, e;

	if (sscanf(buf, "%*s %lld %lld %lld %lld %lld", &a, &b, &c, &d, &e) != 5)
		return -EINVAL;
	words(helper_word(a, 32), helper_word(b, 16), helper_word(c, 8),
	      helper_word(!!d, 8), helper_word(e, 32));
	return 0;
}

static int helper_iret(const char *buf)
{
	u64 x;

	if (sscanf(buf, "%*s %llx", &x) != 1)
		return -EINVAL;
	return kstats_helper_iret(x) == (int)x ? 0 : -EIO;
}

/*
 * Target of "counter page-faults": one write into each of @n fresh pages
 * at @addr, each a page fault. Returns how many writes failed.
 */
static noinline __noclone int kstats_helper_fault(unsigned long addr,
						  unsigned int n)
{
	unsigned int i;
	int bad = 0;

	for (i = 0; i < n; i++)
		bad += !!put_user((u8)1, (u8 __user *)(addr + i * PAGE_SIZE));
	return bad;
}

/*
 * Write-only pages: unlike the caller's other anonymous memory (read and
 * write), they merge with no neighbour into a mapping that could take a
 * transparent huge page, which would fault in all of them at once.
 */
static int helper_fault(unsigned int n)
{
	unsigned long addr;
	int bad;

	if (!n || n > 256)
		return -EINVAL;
	addr = vm_mmap(NULL, 0, n * PAGE_SIZE, PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr))
		return addr;
	kstats_helper_mark_start(n);
	bad = kstats_helper_fault(addr, n);
	kstats_helper_mark_end(n);
	vm_munmap(addr, n * PAGE_SIZE);
	return bad ? -EFAULT : 0;
}

/*
 * Target of "counter context-switches": @n sleeps of one to two jiffies,
 * long enough that each one leaves the CPU (a short usleep_range() may
 * find its timer expired before it schedules, and then does not).
 */
static noinline __noclone void kstats_helper_naps(unsigned int n)
{
	unsigned long start = current->nvcsw;

	/*
	 * A nap whose timer expired before schedule() (a vCPU that the host
	 * did not run for 2 jiffies) never left the CPU: nap again, until
	 * the task has slept n times.
	 */
	while (current->nvcsw - start < n)
		schedule_timeout_uninterruptible(2);
}

/* irqend: the end tracepoint from hardirq context. */
static atomic_t helper_irq_done;

static void helper_irq_end(struct irq_work *w)
{
	trace_kstats_helper_end(0);
	atomic_set(&helper_irq_done, 1);
}

static struct irq_work helper_irq_work;

/*
 * Queue @w on this CPU, preemption off, and spin until it set @done.
 * Interrupts are on: the IPI (or the next tick) runs it.
 */
static int helper_irq_wait(struct irq_work *w, atomic_t *done)
{
	unsigned int spins;

	atomic_set(done, 0);
	irq_work_queue(w);
	for (spins = 0; !atomic_read(done); spins++) {
		if (spins > 100000000)
			return -ETIMEDOUT;
		cpu_relax();
	}
	return 0;
}

static int helper_irqend(unsigned int k, unsigned int ns)
{
	unsigned int i;
	u64 end;

	for (i = 0; i < k; i++) {
		preempt_disable();
		trace_kstats_helper_start(i);
		if (helper_irq_wait(&helper_irq_work, &helper_irq_done)) {
			preempt_enable();
			return -ETIMEDOUT;
		}
		end = ktime_get_mono_fast_ns() + ns;
		while (ktime_get_mono_fast_ns() < end)
			cpu_relax();
		trace_kstats_helper_end(i);
		preempt_enable();
		cond_resched();
	}
	return 0;
}

/* req: a request is started in one task and ended in another. */
#define HELPER_REQS	256

struct helper_req {
	unsigned int id;
	bool done;
	char name[16];		/* "rq" and id % 4: a string key */
};

static struct helper_req helper_reqs[HELPER_REQS];

static noinline __noclone void
kstats_helper_req_start(struct helper_req *rq, unsigned int id)
{
	WRITE_ONCE(rq->id, id);
	WRITE_ONCE(rq->done, false);
	snprintf(rq->name, sizeof(rq->name), "rq%u", id % 4);
}

static noinline __noclone void
kstats_helper_req_end(struct helper_req *rq, unsigned int id)
{
	WRITE_ONCE(rq->done, true);
}

/* Looks at nothing: its arguments are for field paths to follow. */
static noinline __noclone void
kstats_helper_req_peek(struct helper_req *rq, unsigned int id)
{
	barrier();
}

struct helper_req_ends {
	struct work_struct work;
	unsigned int k, ns;
};

static void helper_req_end_fn(struct work_struct *work)
{
	struct helper_req_ends *e = container_of(work, struct helper_req_ends,
						 work);
	unsigned int i;
	u64 end;

	for (i = 0; i < e->k; i++) {
		end = ktime_get_mono_fast_ns() + e->ns;
		while (ktime_get_mono_fast_ns() < end)
			cpu_relax();
		kstats_helper_req_end(&helper_reqs[i], i);
		trace_kstats_helper_end(i);
	}
}

static int helper_req(const char *cmd, unsigned int k, unsigned int ns)
{
	struct helper_req_ends e = { .k = k, .ns = ns };
	unsigned int i, cpu, other;

	if (k > HELPER_REQS)
		return -EINVAL;
	cpu = get_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	if (other >= nr_cpu_ids) {
		put_cpu();
		return -ENODEV;
	}
	for (i = 0; strcmp(cmd, "reqend") && i < k; i++) {
		kstats_helper_req_start(&helper_reqs[i], i);
		trace_kstats_helper_start(i);
	}
	put_cpu();
	if (!strcmp(cmd, "reqstart"))
		return 0;
	INIT_WORK_ONSTACK(&e.work, helper_req_end_fn);
	schedule_work_on(other, &e.work);
	flush_work(&e.work);
	destroy_work_on_stack(&e.work);
	return 0;
}

static int helper_work(const char *cmd, unsigned int k, unsigned int ns,
		       struct kstats *caller)
{
	enum helper_how how = HELPER_PLAIN;
	cpumask_var_t saved;
	unsigned int i;

	if (!strcmp(cmd, "nest"))
		how = HELPER_NEST;
	if (!strcmp(cmd, "sleep"))
		how = HELPER_SLEEP;
	if (!strcmp(cmd, "migrate")) {
		how = HELPER_MIGRATE;
		if (num_online_cpus() < 2)
			return -ENODEV;
	}
	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, current->cpus_ptr);
	for (i = 0; i < k; i++) {
		/* No migration inside an iteration, unless asked for. */
		if (how != HELPER_MIGRATE && how != HELPER_SLEEP)
			preempt_disable();
		kstats_helper_mark_start(i);
		trace_kstats_helper_start(i);
		if (caller) {
			u64 t0 = ktime_get_mono_fast_ns();

			kstats_helper_work(ns, how);
			kstats_record(caller, ktime_get_mono_fast_ns() - t0);
		} else {
			kstats_helper_work(ns, how);
		}
		trace_kstats_helper_end(i);
		kstats_helper_mark_end(i);
		if (how != HELPER_MIGRATE && how != HELPER_SLEEP)
			preempt_enable();
		cond_resched();
	}
	if (how == HELPER_MIGRATE)
		set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	return 0;
}

static struct helper_entry *helper_find(const char *name)
{
	int i;

	for (i = 0; i < HELPER_MAX_ENTRIES; i++)
		if (entries[i].ks && !strcmp(entries[i].name, name))
			return &entries[i];
	return NULL;
}

static int helper_new(const char *name, unsigned int bits)
{
	struct kstats *ks;
	int i;

	for (i = 0; i < HELPER_MAX_ENTRIES && entries[i].ks; i++)
		;
	if (i == HELPER_MAX_ENTRIES)
		return -ENOSPC;
	/* Out-of-range bits must reach kstats_new() unclipped. */
	if (bits > U8_MAX)
		return -ERANGE;
	ks = kstats_new(name, bits);
	if (IS_ERR(ks))
		return PTR_ERR(ks);
	strscpy(entries[i].name, name, sizeof(entries[i].name));
	entries[i].ks = ks;
	return 0;
}

#include "kstats_helper_direct.h"

static int helper_run(char *buf)
{
	char cmd[16], name[128];
	unsigned long long a = 0, b = 0;
	struct helper_entry *e;
	unsigned int nr, i;
	int n;

	n = sscanf(buf, "%15s %127s %llu %llu", cmd, name, &a, &b);
	if (n == 1 && !strcmp(cmd, "start")) {
		trace_kstats_helper_start(0);
		return 0;
	}
	if (n == 1 && !strcmp(cmd, "end")) {
		trace_kstats_helper_end(0);
		return 0;
	}
	if (n >= 1 && helper_is_direct_cmd(cmd))
		return helper_direct_run(cmd, n >= 2 ? name : "");
	if (n < 2)
		return -EINVAL;
	if (!strcmp(cmd, "value") || !strcmp(cmd, "ivalue"))
		return helper_value(buf, cmd[0] == 'i');
	if (!strcmp(cmd, "narrow"))
		return helper_narrow(buf);
	if (!strcmp(cmd, "iret"))
		return helper_iret(buf);
	if (!strcmp(cmd, "fault") && n == 2 && !kstrtouint(name, 10, &nr))
		return helper_fault(nr);
	if (!strcmp(cmd, "naps") && n == 2 && !kstrtouint(name, 10, &nr)) {
		kstats_helper_naps(nr);
		return 0;
	}
	if (!strcmp(cmd, "reqpeek") && n == 2 && !kstrtouint(name, 10, &nr)) {
		for (i = 0; i < nr && i < HELPER_REQS; i++)
			kstats_helper_req_peek(i % 2 ? NULL : &helper_reqs[i], i);
		return 0;
	}
	if (!strcmp(cmd, "req") || !strcmp(cmd, "reqstart") ||
	    !strcmp(cmd, "reqend")) {
		unsigned int k, ns = 0;

		if (sscanf(buf, "%15s %u %u", cmd, &k, &ns) < 2)
			return -EINVAL;
		return helper_req(cmd, k, ns);
	}
	if (!strcmp(cmd, "irqend")) {
		unsigned int k, ns;

		if (sscanf(buf, "%15s %u %u", cmd, &k, &ns) != 3)
			return -EINVAL;
		return helper_irqend(k, ns);
	}
	if (!strcmp(cmd, "work") || !strcmp(cmd, "nest") ||
	    !strcmp(cmd, "migrate") || !strcmp(cmd, "sleep")) {
		unsigned int k, ns;

		n = sscanf(buf, "%15s %u %u %127s", cmd, &k, &ns, name);
		if (n < 3)
			return -EINVAL;
		e = n == 4 ? helper_find(name) : NULL;
		if (n == 4 && !e)
			return -ENOENT;
		return helper_work(cmd, k, ns, e ? e->ks : NULL);
	}
	if (!strcmp(cmd, "new"))
		return n == 3 ? helper_new(name, a) : -EINVAL;

	e = helper_find(name);
	if (!e)
		return -ENOENT;
	if (!strcmp(cmd, "record") && n == 4) {
		while (b--) {
			kstats_record(e->ks, a);
			cond_resched();
		}
	} else if (!strcmp(cmd, "start") && n == 2) {
		kstats_start(e->ks);
	} else if (!strcmp(cmd, "stop") && n == 2) {
		kstats_stop(e->ks);
	} else if (!strcmp(cmd, "reset") && n == 2) {
		kstats_reset(e->ks);
	} else if (!strcmp(cmd, "delete") && n == 2) {
		kstats_delete(e->ks);
		e->ks = NULL;
	} else {
		return -EINVAL;
	}
	return 0;
}

static ssize_t helper_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char *buf;
	int ret;

	if (count >= HELPER_CMD_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (helper_direct_unlocked(buf)) {
		ret = helper_block_or_wake(buf);
		kfree(buf);
		return ret ? ret : count;
	}
	mutex_lock(&helper_mutex);
	ret = helper_run(buf);
	mutex_unlock(&helper_mutex);
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations helper_fops = {
	.owner = THIS_MODULE,
	.write = helper_write,
};

static int helper_close_start(struct inode *inode, struct file *file)
{
	trace_kstats_helper_start(0);
	return 0;
}

static const struct file_operations helper_close_fops = {
	.owner = THIS_MODULE,
	.release = helper_close_start,
};

static int __init helper_init(void)
{
	helper_dir = debugfs_create_dir("kstats_helper", NULL);
	if (IS_ERR(helper_dir))
		return PTR_ERR(helper_dir);
	debugfs_create_file("cmd", 0200, helper_dir, NULL, &helper_fops);
	debugfs_create_file("start_on_close", 0444, helper_dir, NULL,
			    &helper_close_fops);
	init_irq_work(&helper_irq_work, helper_irq_end);
	init_irq_work(&helper_direct_irq_work, helper_direct_irq);
	return 0;
}

static void __exit helper_exit(void)
{
	int i;

	debugfs_remove(helper_dir);
	irq_work_sync(&helper_irq_work);
	irq_work_sync(&helper_direct_irq_work);
	for (i = 0; i < HELPER_MAX_ENTRIES; i++)
		kstats_delete(entries[i].ks);
}

module_init(helper_init);
module_exit(helper_exit);
MODULE_DESCRIPTION("kstats test helper: drives the kernel API from shell");
MODULE_LICENSE("GPL");
