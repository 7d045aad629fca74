// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel parts of the experiments of "make bench" (tests/bench/):
 *
 *   clocks   echo N > clocks: N back-to-back reads of each clock
 *            (local_clock, ktime_get_ns, ktime_get_mono_fast_ns, the
 *            TSC) and N kstats_record() calls, hot and cold (a 4 MiB
 *            buffer walked before each), timed with the TSC; reading
 *            prints p10 p50 p90 p99 p99.9 in ns.
 *   empty    echo N > empty: N calls of kstats_bench_exp_empty(), an
 *            empty function that the bench traces by each mechanism,
 *            each call timed with the TSC; reading prints the
 *            percentiles in ns.
 *   loop     echo 'BODY MODE N' > loop: N iterations of BODY (empty, or
 *            memcpy of 4096 bytes) with no kstats_record() (MODE none)
 *            or one on entry "bench_loop" (MODE record; stop or start
 *            that entry through its file); or N reads of a clock (BODY
 *            mono, local or tsc, MODE none), whose instructions the
 *            bench counts; reading prints ns per loop.
 *
 * Uses kstats only through kstats.h, as any instrumented kernel code.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include "../kstats.h"

#define EXP_MAX		1000000
#define EXP_COLD_BYTES	(4 << 20)

enum exp_probe { EXP_LOCAL, EXP_KTIME, EXP_MONO_FAST, EXP_TSC, EXP_RECORD,
		 EXP_NR };

static const char * const exp_probe_names[EXP_NR] = {
	"local_clock", "ktime_get_ns", "ktime_get_mono_fast_ns", "rdtsc",
	"kstats_record",
};

/* Percentiles in ns, per probe, hot and cold; then the empty function. */
static u64 exp_pct[EXP_NR][2][5];
static u64 exp_empty_pct[5];
static u64 exp_empty_n, exp_clock_n;
static u64 exp_loop_ns_x1000, exp_loop_n;
static char exp_loop_desc[48];
static u64 *exp_buf;
static u8 *exp_cold, exp_src[4096], exp_dst[4096];
static struct kstats *exp_ks;
static struct dentry *exp_dir;
static DEFINE_MUTEX(exp_mutex);

static const unsigned int exp_pmille[5] = { 100, 500, 900, 990, 999 };

/* Traced by the bench: its runtime under each mechanism. */
static noinline void kstats_bench_exp_empty(void)
{
	barrier();
}

static int exp_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 exp_cycles_to_ns(u64 cycles)
{
	return tsc_khz ? div64_u64(cycles * 1000000, tsc_khz) : cycles;
}

/* Sorts exp_buf[0..n) and stores its percentiles, in ns, into pct. */
static void exp_percentiles(u64 n, u64 *pct)
{
	int i;

	sort(exp_buf, n, sizeof(*exp_buf), exp_cmp, NULL);
	for (i = 0; i < 5; i++)
		pct[i] = exp_cycles_to_ns(exp_buf[div64_u64(n * exp_pmille[i], 1000)]);
}

/* Evict the caches: walk a buffer larger than the last level cache. */
static void exp_walk_cold(void)
{
	unsigned int i;

	for (i = 0; i < EXP_COLD_BYTES; i += 64)
		WRITE_ONCE(exp_cold[i], exp_cold[i] + 1);
}

static u64 exp_one(enum exp_probe p)
{
	u64 t0, t1;

	t0 = rdtsc_ordered();
	switch (p) {
	case EXP_LOCAL:
		t1 = local_clock();
		break;
	case EXP_KTIME:
		t1 = ktime_get_ns();
		break;
	case EXP_MONO_FAST:
		t1 = ktime_get_mono_fast_ns();
		break;
	case EXP_TSC:
		t1 = rdtsc_ordered();
		break;
	default:
		kstats_record(exp_ks, t0 & 0xfff);
		t1 = 0;
		break;
	}
	OPTIMIZER_HIDE_VAR(t1);
	return rdtsc_ordered() - t0;
}

static void exp_clocks(u64 n)
{
	enum exp_probe p;
	unsigned long flags;
	int cold;
	u64 i;

	for (p = 0; p < EXP_NR; p++) {
		for (cold = 0; cold < 2; cold++) {
			for (i = 0; i < n; i++) {
				if (cold)
					exp_walk_cold();
				local_irq_save(flags);
				exp_buf[i] = exp_one(p);
				local_irq_restore(flags);
				if (!(i & 1023))
					cond_resched();
			}
			exp_percentiles(n, exp_pct[p][cold]);
		}
	}
	exp_clock_n = n;
}

static void exp_empty(u64 n)
{
	u64 i, t0;

	for (i = 0; i < n; i++) {
		t0 = rdtsc_ordered();
		kstats_bench_exp_empty();
		exp_buf[i] = rdtsc_ordered() - t0;
		if (!(i & 1023))
			cond_resched();
	}
	exp_percentiles(n, exp_empty_pct);
	exp_empty_n = n;
}

/* The loops of the markers microbenchmark, kept apart so objdump can size them. */
static noinline void exp_loop_empty_none(u64 n)
{
	for (; n; n--)
		barrier();
}

static noinline void exp_loop_empty_record(u64 n)
{
	for (; n; n--) {
		barrier();
		kstats_record(exp_ks, n & 0xfff);
	}
}

/* Nothing reads exp_dst: hide it from the compiler, or the copy goes. */
static noinline void exp_loop_memcpy_none(u64 n)
{
	u8 *dst = exp_dst;

	OPTIMIZER_HIDE_VAR(dst);
	for (; n; n--)
		memcpy(dst, exp_src, sizeof(exp_dst));
}

static noinline void exp_loop_memcpy_record(u64 n)
{
	u8 *dst = exp_dst;

	OPTIMIZER_HIDE_VAR(dst);
	for (; n; n--) {
		memcpy(dst, exp_src, sizeof(exp_dst));
		kstats_record(exp_ks, n & 0xfff);
	}
}

/* Clock loops: the sum keeps the reads. */
static u64 exp_clock_sum;

static noinline void exp_loop_mono_none(u64 n)
{
	u64 sum = 0;

	for (; n; n--)
		sum += ktime_get_mono_fast_ns();
	WRITE_ONCE(exp_clock_sum, sum);
}

static noinline void exp_loop_local_none(u64 n)
{
	u64 sum = 0;

	for (; n; n--)
		sum += local_clock();
	WRITE_ONCE(exp_clock_sum, sum);
}

static noinline void exp_loop_tsc_none(u64 n)
{
	u64 sum = 0;

	for (; n; n--)
		sum += rdtsc_ordered();
	WRITE_ONCE(exp_clock_sum, sum);
}

static const struct {
	const char *body;
	void (*fn)(u64 n);
} exp_clock_loops[] = {
	{ "mono", exp_loop_mono_none },
	{ "local", exp_loop_local_none },
	{ "tsc", exp_loop_tsc_none },
};

static int exp_loop(char *cmd)
{
	char *body = strsep(&cmd, " "), *mode = strsep(&cmd, " ");
	void (*fn)(u64 n) = NULL;
	unsigned long flags;
	u64 n, t0, t1;
	unsigned int i;

	if (!body || !mode || !cmd || kstrtou64(cmd, 0, &n) || !n ||
	    n > 100000000)
		return -EINVAL;
	if (!strcmp(body, "empty"))
		fn = strcmp(mode, "none") ? exp_loop_empty_record : exp_loop_empty_none;
	else if (!strcmp(body, "memcpy"))
		fn = strcmp(mode, "none") ? exp_loop_memcpy_record : exp_loop_memcpy_none;
	for (i = 0; i < ARRAY_SIZE(exp_clock_loops); i++)
		if (!strcmp(body, exp_clock_loops[i].body) && !strcmp(mode, "none"))
			fn = exp_clock_loops[i].fn;
	if (!fn || (strcmp(mode, "none") && strcmp(mode, "record")))
		return -EINVAL;
	local_irq_save(flags);
	t0 = ktime_get_ns();
	fn(n);
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	exp_loop_ns_x1000 = div64_u64((t1 - t0) * 1000, n);
	exp_loop_n = n;
	snprintf(exp_loop_desc, sizeof(exp_loop_desc), "%s %s", body, mode);
	return 0;
}

static void exp_show_pct(struct seq_file *m, const u64 *pct)
{
	seq_printf(m, " p10 %llu p50 %llu p90 %llu p99 %llu p99.9 %llu\n",
		   pct[0], pct[1], pct[2], pct[3], pct[4]);
}

static int exp_show(struct seq_file *m, void *v)
{
	const char *what = m->private;
	enum exp_probe p;

	mutex_lock(&exp_mutex);
	if (!strcmp(what, "clocks") && exp_clock_n) {
		for (p = 0; p < EXP_NR; p++) {
			seq_printf(m, "probe %s hot n %llu", exp_probe_names[p],
				   exp_clock_n);
			exp_show_pct(m, exp_pct[p][0]);
			seq_printf(m, "probe %s cold n %llu", exp_probe_names[p],
				   exp_clock_n);
			exp_show_pct(m, exp_pct[p][1]);
		}
	} else if (!strcmp(what, "empty") && exp_empty_n) {
		seq_printf(m, "empty n %llu", exp_empty_n);
		exp_show_pct(m, exp_empty_pct);
	} else if (!strcmp(what, "loop") && exp_loop_n) {
		seq_printf(m, "loop %s n %llu ps_per_iter %llu\n", exp_loop_desc,
			   exp_loop_n, exp_loop_ns_x1000);
	}
	mutex_unlock(&exp_mutex);
	return 0;
}

static int exp_open(struct inode *inode, struct file *file)
{
	return single_open(file, exp_show, inode->i_private);
}

static ssize_t exp_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	const char *what = file_inode(file)->i_private;
	char buf[64], *cmd;
	u64 n;
	int ret = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = 0;
	cmd = strim(buf);
	mutex_lock(&exp_mutex);
	if (!strcmp(what, "loop"))
		ret = exp_loop(cmd);
	else if (kstrtou64(cmd, 0, &n) || !n || n > EXP_MAX)
		ret = -EINVAL;
	else if (!strcmp(what, "clocks"))
		exp_clocks(n);
	else
		exp_empty(n);
	mutex_unlock(&exp_mutex);
	return ret ? ret : count;
}

static const struct file_operations exp_fops = {
	.owner = THIS_MODULE,
	.open = exp_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = exp_write,
};

static int __init exp_init(void)
{
	exp_buf = vmalloc(EXP_MAX * sizeof(*exp_buf));
	exp_cold = vzalloc(EXP_COLD_BYTES);
	exp_ks = kstats_new("bench_loop", 4);
	if (!exp_buf || !exp_cold || IS_ERR(exp_ks)) {
		vfree(exp_buf);
		vfree(exp_cold);
		return IS_ERR(exp_ks) ? PTR_ERR(exp_ks) : -ENOMEM;
	}
	exp_dir = debugfs_create_dir("kstats_bench_exp", NULL);
	debugfs_create_file("clocks", 0600, exp_dir, "clocks", &exp_fops);
	debugfs_create_file("empty", 0600, exp_dir, "empty", &exp_fops);
	debugfs_create_file("loop", 0600, exp_dir, "loop", &exp_fops);
	return 0;
}

static void __exit exp_exit(void)
{
	debugfs_remove(exp_dir);
	kstats_delete(exp_ks);
	vfree(exp_buf);
	vfree(exp_cold);
}

module_init(exp_init);
module_exit(exp_exit);
MODULE_DESCRIPTION("kstats bench: clocks, empty function and markers loop");
MODULE_LICENSE("GPL");
