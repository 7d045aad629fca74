// SPDX-License-Identifier: GPL-2.0
/*
 * kstats hot-path benchmark: the cost of one sample through kstats_record()
 * (inline state check, then a call), through a plain call of
 * __kstats_record() (check inside), and fully inlined, on a running and on
 * a stopped entry, against an empty loop. Figures only:
 * no threshold, compare them as ratios measured in one boot.
 *
 *   echo 1000000 > /sys/kernel/debug/kstats_bench/run
 *   cat /sys/kernel/debug/kstats_bench/run
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include "../kstats_internal.h"

#define BENCH_CHUNK	10000	/* iterations per interrupts-off stretch */

enum bench_case {
	BENCH_EMPTY,
	BENCH_RECORD,		/* kstats_record(): inline check + call */
	BENCH_CALL,		/* __kstats_record(): call, check inside */
	BENCH_INLINE,		/* everything inline */
	BENCH_RECORD_STOPPED,	/* from here on the entry is stopped */
	BENCH_CALL_STOPPED,
	BENCH_INLINE_STOPPED,
	BENCH_NR,
};

static const char * const bench_names[BENCH_NR] = {
	"empty_loop", "record", "call", "inline",
	"record_stopped", "call_stopped", "inline_stopped",
};

static u64 bench_ns[BENCH_NR];
static u64 bench_loops;
static DEFINE_MUTEX(bench_mutex);
static struct kstats *bench_ks;
static struct dentry *bench_dir;

/* Values spread over 64 slots, as a real distribution would be. */
static inline u64 bench_value(unsigned int i)
{
	return 1000 + (i & 63) * 97;
}

static noinline u64 bench_one(enum bench_case c, unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		switch (c) {
		case BENCH_RECORD:
		case BENCH_RECORD_STOPPED:
			kstats_record(bench_ks, bench_value(i));
			break;
		case BENCH_CALL:
		case BENCH_CALL_STOPPED:
			__kstats_record(bench_ks, bench_value(i));
			break;
		case BENCH_INLINE:
		case BENCH_INLINE_STOPPED:
			if (READ_ONCE(bench_ks->active))
				kstats_add_sample(bench_ks, bench_value(i));
			break;
		default:
			/* Keep the empty loop from being optimised away. */
			barrier();
			break;
		}
	}
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	return t1 - t0;
}

static void bench_run(u64 loops)
{
	enum bench_case c;
	u64 done;

	memset(bench_ns, 0, sizeof(bench_ns));
	/* Interleave the cases so that drifts hit all of them alike. */
	for (done = 0; done < loops; done += BENCH_CHUNK) {
		for (c = 0; c < BENCH_NR; c++) {
			if (c == BENCH_RECORD_STOPPED)
				kstats_stop(bench_ks);
			bench_ns[c] += bench_one(c, BENCH_CHUNK);
		}
		kstats_start(bench_ks);
		cond_resched();
	}
	bench_loops = done;
}

static int bench_show(struct seq_file *m, void *v)
{
	enum bench_case c;

	mutex_lock(&bench_mutex);
	for (c = 0; c < BENCH_NR && bench_loops; c++)
		seq_printf(m, "case %-22s loops %llu ps_per_op %llu\n",
			   bench_names[c], bench_loops,
			   div64_u64(bench_ns[c] * 1000, bench_loops));
	mutex_unlock(&bench_mutex);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, NULL);
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	u64 loops;
	int ret;

	ret = kstrtou64_from_user(ubuf, count, 0, &loops);
	if (ret)
		return ret;
	if (!loops || loops > 100000000)
		return -EINVAL;
	mutex_lock(&bench_mutex);
	bench_run(loops);
	mutex_unlock(&bench_mutex);
	return count;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = bench_write,
};

static int __init bench_init(void)
{
	bench_ks = kstats_new("bench", 4);
	if (IS_ERR(bench_ks))
		return PTR_ERR(bench_ks);
	bench_dir = debugfs_create_dir("kstats_bench", NULL);
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove(bench_dir);
	kstats_delete(bench_ks);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("kstats hot-path benchmark");
MODULE_LICENSE("GPL");
