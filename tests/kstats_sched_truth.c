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
 * Each tracepoint has two of its probes, one called before those of
 * default priority (kstats') and one after them, so each interval is
 * timed twice: inner, from the last probe's start to the first probe's
 * end, and outer, from the first's start to the last's end. kstats'
 * sample of it lies between the two, however long the guest stalls
 * between the probes (QEMU's TCG runs one vCPU at a time, and a turn of
 * the other lasts up to 100 ms).
 *
 * debugfs kstats_sched_truth/ctl:
 *   prepare N SHORT_US LONG_US BURST_US  create the threads (not started)
 *   run        record, start them (the napper, then the spinner, then
 *              the waiter and the hog), and return once all have exited
 * kstats_sched_truth/results: "pid NAME PID" for each thread, after a run
 * "KIND COMM count C lo NS hi NS sum_lo NS sum_hi NS top2_lo NS top2_hi NS"
 * (KIND: runq, oncpu, offcpu) for each, and "offcpu_in FUNCTION ..." for
 * the two naps (truth_show_series() says what each figure is).
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

/* Which of a tracepoint's two probes: before kstats', or after. */
enum { TRUTH_FIRST, TRUTH_LAST, TRUTH_PROBES };

/* Each interval's inner and outer length. */
struct truth_series {
	unsigned int n;
	u64 inner[TRUTH_MAX], outer[TRUTH_MAX];
};

/*
 * A pending interval: its start as each probe saw it (0: none), and its
 * end as the first probe saw it, which the last one completes.
 */
struct truth_pending {
	u64 start[TRUTH_PROBES];
	u64 end_first;
};

struct truth_thread {
	struct task_struct *task;
	/* A wakeup's wait, a switch-in's on-CPU time, a switch-out's off. */
	struct truth_pending wake, in, out;
	/* What the thread sleeps in now, and what it slept in at out. */
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

static void truth_add(struct truth_series *s, u64 in, u64 out)
{
	if (s->n < TRUTH_MAX) {
		s->inner[s->n] = in;
		s->outer[s->n] = out;
	}
	s->n++;
}

static void truth_start(struct truth_pending *p, int probe, u64 now)
{
	if (probe == TRUTH_FIRST)
		p->start[TRUTH_LAST] = 0;
	p->start[probe] = now;
	p->end_first = 0;
}

/*
 * The end of @p's interval as @probe sees it: the last probe adds it to
 * @s and to @s2 if not NULL. Two probes of one event run on one CPU in a
 * row, and a thread's events are ordered by its run queue's lock.
 */
static void truth_end(struct truth_pending *p, int probe, u64 now,
		      struct truth_series *s, struct truth_series *s2)
{
	u64 in, out;

	if (probe == TRUTH_FIRST) {
		p->end_first = p->start[TRUTH_FIRST] ? now : 0;
		return;
	}
	if (p->start[TRUTH_FIRST] && p->start[TRUTH_LAST] && p->end_first) {
		in = p->end_first - p->start[TRUTH_LAST];
		out = now - p->start[TRUTH_FIRST];
		truth_add(s, in, out);
		if (s2)
			truth_add(s2, in, out);
	}
	memset(p, 0, sizeof(*p));
}

static struct truth_thread *truth_of(struct task_struct *p)
{
	int i;

	for (i = 0; i < TRUTH_THREADS; i++)
		if (truth[i].task == p)
			return &truth[i];
	return NULL;
}

/*
 * Ends first, then starts, as kstats' probe of a joined pair does. @data
 * is the probe's TRUTH_FIRST or TRUTH_LAST.
 */
static void truth_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	int probe = (long)data;
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
		truth_end(&n->wake, probe, now, &n->runq, NULL);
		truth_end(&n->out, probe, now, &n->offcpu,
			  &n->off_in[n->out_phase]);
		truth_start(&n->in, probe, now);
	}
	if (p) {
		truth_end(&p->in, probe, now, &p->oncpu, NULL);
		truth_start(&p->out, probe, now);
		if (probe == TRUTH_FIRST)
			p->out_phase = READ_ONCE(p->phase);
		if (prev_state == TASK_RUNNING)
			truth_start(&p->wake, probe, now);
		if (probe == TRUTH_LAST && (prev_state & TASK_DEAD))
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
		truth_start(&w->wake, (long)data, ktime_get_mono_fast_ns());
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
	for (i = 0; i < TRUTH_THREADS; i++)
		memset(&truth[i], 0, sizeof(truth[i]));
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
 * What bounds kstats' samples of a series, C of them, the lower median
 * of rank r = ceil(C/2): "lo", the inner lengths' sample of rank r - 2,
 * and "hi", the outer lengths' of rank r + 2 (two starts dropped either
 * way); "sum_lo" and "sum_hi", the sums of the inner and of the outer
 * lengths; "top2_lo" and "top2_hi", the sums of the two largest of each
 * (what two samples more or fewer can move the sums by).
 */
static void truth_show_series(struct seq_file *m, const char *kind,
			      const char *what, struct truth_series *s)
{
	unsigned int i, r, n = s->n;
	u64 sum_in = 0, sum_out = 0;

	seq_printf(m, "%s %s count %u", kind, what, n);
	if (!n || n > TRUTH_MAX) {
		seq_puts(m, " lo - hi - sum_lo - sum_hi - top2_lo - top2_hi -\n");
		return;
	}
	sort(s->inner, n, sizeof(u64), truth_cmp, NULL);
	sort(s->outer, n, sizeof(u64), truth_cmp, NULL);
	for (i = 0; i < n; i++) {
		sum_in += s->inner[i];
		sum_out += s->outer[i];
	}
	r = (n - 1) / 2;
	seq_printf(m, " lo %llu hi %llu sum_lo %llu sum_hi %llu top2_lo %llu top2_hi %llu\n",
		   s->inner[r >= 2 ? r - 2 : 0], s->outer[min(r + 2, n - 1)],
		   sum_in, sum_out,
		   s->inner[n - 1] + (n > 1 ? s->inner[n - 2] : 0),
		   s->outer[n - 1] + (n > 1 ? s->outer[n - 2] : 0));
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

/* Before the probes of default priority, and after them. */
static const int truth_prio[TRUTH_PROBES] = {
	TRACEPOINT_DEFAULT_PRIO + 1, TRACEPOINT_DEFAULT_PRIO - 1,
};

static void truth_unregister(void)
{
	long i;

	for (i = 0; i < TRUTH_PROBES; i++) {
		tracepoint_probe_unregister(truth_tp_switch, truth_switch, (void *)i);
		tracepoint_probe_unregister(truth_tp_wakeup, truth_wakeup, (void *)i);
		tracepoint_probe_unregister(truth_tp_wakeup_new, truth_wakeup, (void *)i);
	}
	tracepoint_synchronize_unregister();
}

static int truth_register(void)
{
	long i;
	int ret = 0;

	for (i = 0; !ret && i < TRUTH_PROBES; i++) {
		ret = tracepoint_probe_register_prio(truth_tp_switch, truth_switch,
						     (void *)i, truth_prio[i]);
		if (!ret)
			ret = tracepoint_probe_register_prio(truth_tp_wakeup,
							     truth_wakeup, (void *)i,
							     truth_prio[i]);
		if (!ret)
			ret = tracepoint_probe_register_prio(truth_tp_wakeup_new,
							     truth_wakeup, (void *)i,
							     truth_prio[i]);
	}
	return ret;
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
	ret = truth_register();
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
