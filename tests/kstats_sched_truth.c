// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: the scheduler's truth for kstats' runqlat, cpudist and offcpu
 * pairs (tests/guest/61-truth.sh). Four kthreads of known names:
 *   ktruth_nap   sleeps N times in kstats_truth_nap_short() (short_us),
 *                then in kstats_truth_nap_long() (long_us);
 *   ktruth_spin  on CPU 0: N bursts of burst_us on the CPU, each followed
 *                by a sleep of short_us;
 *   ktruth_wait  on CPU 1: N sleeps of short_us, each waking behind
 *   ktruth_hog   which spins on CPU 1 until ktruth_wait is done.
 * Its own probes on sched_switch, sched_wakeup and sched_wakeup_new time,
 * for each of them, every run-queue wait (a wakeup, or a switch-out while
 * runnable, to the next switch-in), on-CPU interval (switch-in to
 * switch-out) and off-CPU interval (switch-out to switch-in), as the
 * lines of kstats runqlat, cpudist and offcpu pair them, with the
 * off-CPU ones also by the function that the thread slept in.
 *
 * debugfs kstats_sched_truth/ctl:
 *   prepare N SHORT_US LONG_US BURST_US  create the threads (not started)
 *   run        record, start them (the napper, then the spinner, then
 *              the waiter and the hog), and return once all have exited
 * kstats_sched_truth/results: "pid NAME PID" for each thread, after a run
 * "KIND COMM count C median NS lo NS hi NS mean NS trim NS" (KIND: runq,
 * oncpu, offcpu) for each, and "offcpu_in FUNCTION ..." for the two naps.
 */
#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

/* Samples kept per series; more are counted, and the median says so. */
#define TRUTH_MAX	512

enum { TRUTH_NAP, TRUTH_SPIN, TRUTH_WAIT, TRUTH_HOG, TRUTH_THREADS };
enum { TRUTH_IN_OTHER, TRUTH_IN_SHORT, TRUTH_IN_LONG, TRUTH_PHASES };

static const char * const truth_comm[TRUTH_THREADS] = {
	"ktruth_nap", "ktruth_spin", "ktruth_wait", "ktruth_hog",
};

static const char * const truth_phase_fn[TRUTH_PHASES] = {
	NULL, "kstats_truth_nap_short", "kstats_truth_nap_long",
};

struct truth_series {
	unsigned int n;
	u64 v[TRUTH_MAX];
};

struct truth_thread {
	struct task_struct *task;
	/* Pending starts, 0 for none: a wakeup, a switch-in, a switch-out. */
	u64 t_wake, t_in, t_out;
	/* What the thread sleeps in now, and what it slept in at t_out. */
	int phase, out_phase;
	bool dead;
	struct truth_series runq, oncpu, offcpu;
	struct truth_series off_in[TRUTH_PHASES];
};

static struct truth_thread *truth;
static unsigned int truth_n, truth_short_us, truth_long_us, truth_burst_us;
static bool truth_recording, truth_ran, truth_hog_stop;
static DEFINE_RAW_SPINLOCK(truth_lock);
static DEFINE_MUTEX(truth_mutex);
static struct tracepoint *truth_tp_switch, *truth_tp_wakeup, *truth_tp_wakeup_new;
static struct dentry *truth_dir;

static void truth_add(struct truth_series *s, u64 v)
{
	if (s->n < TRUTH_MAX)
		s->v[s->n] = v;
	s->n++;
}

static struct truth_thread *truth_of(struct task_struct *p)
{
	int i;

	for (i = 0; i < TRUTH_THREADS; i++)
		if (truth[i].task == p)
			return &truth[i];
	return NULL;
}

/* Ends first, then starts, as kstats' probe of a joined pair does. */
static void truth_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	struct truth_thread *p, *n;
	u64 now = ktime_get_mono_fast_ns();
	unsigned long flags;

	if (!READ_ONCE(truth_recording))
		return;
	raw_spin_lock_irqsave(&truth_lock, flags);
	p = truth_of(prev);
	n = truth_of(next);
	if (!READ_ONCE(truth_recording) || (!p && !n))
		goto out;
	if (n) {
		if (n->t_wake)
			truth_add(&n->runq, now - n->t_wake);
		if (n->t_out) {
			truth_add(&n->offcpu, now - n->t_out);
			truth_add(&n->off_in[n->out_phase], now - n->t_out);
		}
		n->t_wake = 0;
		n->t_out = 0;
		n->t_in = now;
	}
	if (p) {
		if (p->t_in)
			truth_add(&p->oncpu, now - p->t_in);
		p->t_in = 0;
		p->t_out = now;
		p->out_phase = READ_ONCE(p->phase);
		if (prev_state == TASK_RUNNING)
			p->t_wake = now;
		if (prev_state & TASK_DEAD)
			WRITE_ONCE(p->dead, true);
	}
out:
	raw_spin_unlock_irqrestore(&truth_lock, flags);
}

static void truth_wakeup(void *data, struct task_struct *t)
{
	struct truth_thread *w;
	unsigned long flags;

	if (!READ_ONCE(truth_recording))
		return;
	raw_spin_lock_irqsave(&truth_lock, flags);
	w = truth_of(t);
	if (w && READ_ONCE(truth_recording))
		w->t_wake = ktime_get_mono_fast_ns();
	raw_spin_unlock_irqrestore(&truth_lock, flags);
}

/* A sleep of @us to @us + 1/8: a timer's slack, which its truth includes. */
static void truth_sleep(unsigned int us)
{
	usleep_range(us, us + us / 8);
}

static noinline __noclone void kstats_truth_nap_short(struct truth_thread *t)
{
	WRITE_ONCE(t->phase, TRUTH_IN_SHORT);
	truth_sleep(truth_short_us);
	WRITE_ONCE(t->phase, TRUTH_IN_OTHER);
}

static noinline __noclone void kstats_truth_nap_long(struct truth_thread *t)
{
	WRITE_ONCE(t->phase, TRUTH_IN_LONG);
	truth_sleep(truth_long_us);
	WRITE_ONCE(t->phase, TRUTH_IN_OTHER);
}

static int truth_nap_fn(void *arg)
{
	unsigned int i;

	for (i = 0; i < truth_n; i++) {
		kstats_truth_nap_short(arg);
		kstats_truth_nap_long(arg);
	}
	return 0;
}

static int truth_spin_fn(void *arg)
{
	unsigned int i;
	u64 t0;

	for (i = 0; i < truth_n; i++) {
		t0 = ktime_get_mono_fast_ns();
		while (ktime_get_mono_fast_ns() - t0 < truth_burst_us * NSEC_PER_USEC)
			cpu_relax();
		truth_sleep(truth_short_us);
	}
	return 0;
}

static int truth_wait_fn(void *arg)
{
	unsigned int i;

	for (i = 0; i < truth_n; i++)
		truth_sleep(truth_short_us);
	WRITE_ONCE(truth_hog_stop, true);
	return 0;
}

static int truth_hog_fn(void *arg)
{
	while (!READ_ONCE(truth_hog_stop))
		cond_resched();
	return 0;
}

static int (* const truth_fn[TRUTH_THREADS])(void *) = {
	truth_nap_fn, truth_spin_fn, truth_wait_fn, truth_hog_fn,
};

/* The CPU of each thread, -1 for any. */
static const int truth_cpu[TRUTH_THREADS] = { -1, 0, 1, 1 };

static void truth_put_threads(void)
{
	int i;

	for (i = 0; i < TRUTH_THREADS; i++) {
		if (!truth[i].task)
			continue;
		/* Created and never started: its function never runs. */
		if (!truth_ran)
			kthread_stop(truth[i].task);
		put_task_struct(truth[i].task);
	}
	raw_spin_lock_irq(&truth_lock);
	memset(truth, 0, sizeof(*truth) * TRUTH_THREADS);
	raw_spin_unlock_irq(&truth_lock);
}

static int truth_prepare(unsigned int n, unsigned int s, unsigned int l,
			 unsigned int b)
{
	struct task_struct *t;
	int i;

	if (!n || !s || !l || !b || n > TRUTH_MAX / 4 || l > 1000000 || b > 1000000)
		return -EINVAL;
	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		return -ENODEV;
	truth_put_threads();
	truth_n = n;
	truth_short_us = s;
	truth_long_us = l;
	truth_burst_us = b;
	truth_ran = false;
	truth_hog_stop = false;
	for (i = 0; i < TRUTH_THREADS; i++) {
		t = kthread_create(truth_fn[i], &truth[i], "%s", truth_comm[i]);
		if (IS_ERR(t)) {
			truth_put_threads();
			return PTR_ERR(t);
		}
		get_task_struct(t);
		if (truth_cpu[i] >= 0)
			kthread_bind(t, truth_cpu[i]);
		raw_spin_lock_irq(&truth_lock);
		truth[i].task = t;
		raw_spin_unlock_irq(&truth_lock);
	}
	return 0;
}

/* The threads of each step of a run, one step after the other. */
static const unsigned long truth_steps[] = {
	BIT(TRUTH_NAP), BIT(TRUTH_SPIN), BIT(TRUTH_WAIT) | BIT(TRUTH_HOG),
};

/*
 * One step at a time, so that at most one CPU spins: QEMU's TCG runs
 * the vCPUs of a guest in turn (thread=single), and two that both spin
 * take 100-ms turns, each of them seeing time jump meanwhile.
 */
static int truth_run(void)
{
	unsigned int s;
	int i, done;

	if (!truth[0].task || truth_ran)
		return -EINVAL;
	WRITE_ONCE(truth_recording, true);
	truth_ran = true;
	for (s = 0; s < ARRAY_SIZE(truth_steps); s++) {
		for_each_set_bit(i, &truth_steps[s], TRUTH_THREADS)
			wake_up_process(truth[i].task);
		/* Until each thread's last switch-out, which its exit makes. */
		do {
			msleep(20);
			done = 1;
			for_each_set_bit(i, &truth_steps[s], TRUTH_THREADS)
				done &= READ_ONCE(truth[i].dead);
		} while (!done);
	}
	WRITE_ONCE(truth_recording, false);
	return 0;
}

static ssize_t truth_ctl_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	unsigned int n, s, l, b;
	char buf[64];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	mutex_lock(&truth_mutex);
	if (sscanf(buf, "prepare %u %u %u %u", &n, &s, &l, &b) == 4)
		ret = truth_prepare(n, s, l, b);
	else if (sysfs_streq(buf, "run"))
		ret = truth_run();
	else
		ret = -EINVAL;
	mutex_unlock(&truth_mutex);
	return ret ?: len;
}

static int truth_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The lower median (the ceil(n/2)-th smallest sample), the samples two
 * ranks below and above it, the mean, and the mean without the largest
 * sample (which one turn of the other vCPU between two probes' clock
 * reads can stretch by milliseconds).
 */
static void truth_show_series(struct seq_file *m, const char *kind,
			      const char *what, struct truth_series *s)
{
	unsigned int i, r, n = s->n;
	u64 sum = 0;

	seq_printf(m, "%s %s count %u", kind, what, n);
	if (!n || n > TRUTH_MAX) {
		seq_puts(m, " median - lo - hi - mean - trim -\n");
		return;
	}
	sort(s->v, n, sizeof(u64), truth_cmp, NULL);
	for (i = 0; i < n; i++)
		sum += s->v[i];
	r = (n - 1) / 2;
	seq_printf(m, " median %llu lo %llu hi %llu mean %llu trim %llu\n",
		   s->v[r], s->v[r >= 2 ? r - 2 : 0], s->v[min(r + 2, n - 1)],
		   div_u64(sum, n),
		   n > 1 ? div_u64(sum - s->v[n - 1], n - 1) : sum);
}

static int truth_results_show(struct seq_file *m, void *v)
{
	struct truth_thread *t;
	int i, p;

	mutex_lock(&truth_mutex);
	for (i = 0; i < TRUTH_THREADS; i++)
		if (truth[i].task)
			seq_printf(m, "pid %s %d\n", truth_comm[i], truth[i].task->pid);
	for (i = 0; truth_ran && !READ_ONCE(truth_recording) && i < TRUTH_THREADS; i++) {
		t = &truth[i];
		truth_show_series(m, "runq", truth_comm[i], &t->runq);
		truth_show_series(m, "oncpu", truth_comm[i], &t->oncpu);
		truth_show_series(m, "offcpu", truth_comm[i], &t->offcpu);
		for (p = TRUTH_IN_SHORT; i == TRUTH_NAP && p < TRUTH_PHASES; p++)
			truth_show_series(m, "offcpu_in", truth_phase_fn[p], &t->off_in[p]);
	}
	mutex_unlock(&truth_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(truth_results);

static const struct file_operations truth_ctl_fops = {
	.owner = THIS_MODULE,
	.write = truth_ctl_write,
	.llseek = noop_llseek,
};

static void truth_find_tp(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "sched_switch"))
		truth_tp_switch = tp;
	else if (!strcmp(tp->name, "sched_wakeup"))
		truth_tp_wakeup = tp;
	else if (!strcmp(tp->name, "sched_wakeup_new"))
		truth_tp_wakeup_new = tp;
}

static void truth_unregister(void)
{
	if (truth_tp_switch)
		tracepoint_probe_unregister(truth_tp_switch, truth_switch, NULL);
	if (truth_tp_wakeup)
		tracepoint_probe_unregister(truth_tp_wakeup, truth_wakeup, NULL);
	if (truth_tp_wakeup_new)
		tracepoint_probe_unregister(truth_tp_wakeup_new, truth_wakeup, NULL);
	tracepoint_synchronize_unregister();
}

static int __init truth_init(void)
{
	int ret;

	truth = kvcalloc(TRUTH_THREADS, sizeof(*truth), GFP_KERNEL);
	if (!truth)
		return -ENOMEM;
	for_each_kernel_tracepoint(truth_find_tp, NULL);
	if (!truth_tp_switch || !truth_tp_wakeup || !truth_tp_wakeup_new) {
		ret = -ENOENT;
		goto free;
	}
	ret = tracepoint_probe_register(truth_tp_switch, truth_switch, NULL);
	if (!ret)
		ret = tracepoint_probe_register(truth_tp_wakeup, truth_wakeup, NULL);
	if (!ret)
		ret = tracepoint_probe_register(truth_tp_wakeup_new, truth_wakeup, NULL);
	if (ret)
		goto unregister;
	truth_dir = debugfs_create_dir("kstats_sched_truth", NULL);
	debugfs_create_file("ctl", 0200, truth_dir, NULL, &truth_ctl_fops);
	debugfs_create_file("results", 0400, truth_dir, NULL, &truth_results_fops);
	return 0;
unregister:
	truth_unregister();
free:
	kvfree(truth);
	return ret;
}

static void __exit truth_exit(void)
{
	debugfs_remove(truth_dir);
	truth_put_threads();
	truth_unregister();
	kvfree(truth);
}

module_init(truth_init);
module_exit(truth_exit);
MODULE_DESCRIPTION("kstats test: scheduler intervals of known threads, timed by its own probes");
MODULE_LICENSE("GPL");
