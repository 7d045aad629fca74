// SPDX-License-Identifier: GPL-2.0
/*
 * Outside the layers: KUnit, built on the debug kernel only,
 * calls into any of them.
 *
 * KUnit suite "kstats".
 *
 * Covers, for every frac_bits from 0 to KSTATS_MAX_FRAC_BITS: the slot of
 * 0, 1, 2^k - 1, 2^k, 2^k + 1 and U64_MAX against slots computed from the
 * msb of the value, monotonicity, slot edges, widths and reachability; the
 * scaled slot sums and kstats_slot_mean() (exact below 2^(21 + frac_bits),
 * 20 significant bits above, clamped to the slot for inconsistent sums).
 * Then the API: per-CPU counting from kthreads bound to each online CPU,
 * start/stop/reset, the text of an entry's debugfs file parsed back line by
 * line and compared with exact expected lines, commands written to that
 * file, every error path of kstats_new() and kstats_delete(), the
 * _control listing, the step of inter-arrival gaps, and the homes of
 * idle tasks in the key task table.
 *
 * KUnit suite "kstats_parse": the _control command parser on its own, from
 * a table of valid lines with the struct kstats_cmd they give and invalid
 * lines with their errno.
 *
 * KUnit suite "kstats_elf": the lookup of a function in an ELF file
 * (kstats_elf.c), on an image built in memory: each name's offset or
 * refusal, the image cut at every length, a table of forged headers and
 * tables, a deterministic fuzz of changed bytes, and the same through a
 * file. The read callback fails any read past the image's end; KASAN
 * watches the parser's own buffers.
 *
 * The debugfs files are read and written through their own file operations
 * with a buffer in a KUnit-provided user address space: kernel_read() and
 * kernel_write() need ->read_iter and ->write_iter, which the debugfs file
 * proxy of 6.12 does not have, and vfs_read() is not exported.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hash.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "kstats_compat.h"
#include "kstats_elf.h"
#include "kstats_gap.h"
#include "kstats_internal.h"
#include "kstats_keys.h"
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_outliers.h"
#include "kstats_req.h"
#include "kstats_stack.h"
#include "kstats_tramp_reap.h"

#define KT_DIR		"/sys/kernel/debug/kstats/"
/* Size of the file buffers; no file read by this suite comes close. */
#define KT_BUF_SIZE	32768
/* Read files in small pieces, so that seq_file has to resume mid-line. */
#define KT_READ_CHUNK	100
#define KT_MAX_LINES	512
#define KT_P_SCALE	1000000ULL
/*
 * The documented precision of slot means: exact below 2^(21 + frac_bits),
 * 20 significant bits above. Spelled out rather than KSTATS_SUM_BITS, so
 * that a smaller sum width fails the tests.
 */
#define KT_MEAN_BITS	20
/* Format of one line of an entry's file, from the documentation. */
#define KT_LINE_FMT	"slot %-3u CPU%c %-4u count %8llu avg %8llu p %c.%06llu\n"
/* Its scanf counterpart. */
#define KT_SCAN_FMT	"slot %u CPU%c %u count %llu avg %llu p %c.%6llu%n"

KUNIT_DEFINE_ACTION_WRAPPER(kt_delete_action, kstats_delete, struct kstats *);

/* ---------------------------------------------------------------------- */
/* Slot math from the definition                                          */
/* ---------------------------------------------------------------------- */

static const unsigned int kt_frac_bits[] = { 0, 1, 2, 3, 4, 5 };

static void kt_frac_bits_desc(const unsigned int *f, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "frac_bits=%u", *f);
}

KUNIT_ARRAY_PARAM(kt_frac, kt_frac_bits, kt_frac_bits_desc);

static unsigned int kt_param(struct kunit *test)
{
	return *(const unsigned int *)test->param_value;
}

/* Position of the most significant set bit of @v, which is not 0. */
static unsigned int kt_msb(u64 v)
{
	unsigned int m = 0;

	while (v >>= 1)
		m++;
	return m;
}

/*
 * The slot of @v by definition: below 2^(f + 1) every value has its own
 * slot; above, each power of two 2^m adds 2^f slots, selected by the f bits
 * below the msb, so slot = (m - f) * 2^f + (v >> (m - f)).
 */
static unsigned int kt_slot(u64 v, unsigned int f)
{
	unsigned int m;

	if (v < (2ULL << f))
		return v;
	m = kt_msb(v);
	return ((m - f) << f) + (unsigned int)(v >> (m - f));
}

/*
 * The slot of @v, and what the hot path's kstats_pos_of() makes of it:
 * the same slot, and the offset from the slot's lower edge scaled down by
 * the slot's sum shift.
 */
static void kt_check_slot(struct kunit *test, u64 v, unsigned int f)
{
	unsigned int s = kt_slot(v, f);
	struct kstats_pos pos = kstats_pos_of(v, f);

	KUNIT_EXPECT_EQ_MSG(test, kstats_slot(v, f), s,
			    "slot of %llu (0x%llx), frac_bits %u", v, v, f);
	KUNIT_EXPECT_EQ_MSG(test, pos.slot, s,
			    "kstats_pos_of() slot of %llu, frac_bits %u", v, f);
	KUNIT_EXPECT_EQ_MSG(test, pos.offset,
			    (v - kstats_slot_lo(s, f)) >> kstats_sum_shift(s >> f),
			    "kstats_pos_of() offset of %llu, frac_bits %u", v, f);
}

static void kt_slot_exact(struct kunit *test)
{
	/* (65 - f) << f, spelled out. */
	static const unsigned int nr_slots[] = { 65, 128, 252, 496, 976, 1920 };
	unsigned int f = kt_param(test), nr = kstats_nr_slots(f), k;

	KUNIT_ASSERT_EQ(test, nr, nr_slots[f]);
	KUNIT_EXPECT_EQ(test, kstats_slot(0, f), 0);
	KUNIT_EXPECT_EQ(test, kstats_slot(1, f), 1);
	KUNIT_EXPECT_EQ_MSG(test, kstats_slot(U64_MAX, f), nr - 1,
			    "U64_MAX must be in the last slot");
	KUNIT_EXPECT_EQ(test, kt_slot(U64_MAX, f), nr - 1);

	for (k = 1; k < 64; k++) {
		u64 p = BIT_ULL(k);
		/* 2^k starts bucket k - f + 1, or is linear for k <= f. */
		unsigned int sp = k <= f ? (unsigned int)p : (k - f + 1) << f;

		KUNIT_EXPECT_EQ_MSG(test, kstats_slot(p, f), sp,
				    "slot of 2^%u, frac_bits %u", k, f);
		/* 2^k - 1 ends the slot just below. */
		KUNIT_EXPECT_EQ_MSG(test, kstats_slot(p - 1, f), sp - 1,
				    "slot of 2^%u - 1, frac_bits %u", k, f);
		/* 2^k + 1 has a slot of its own only for k <= f. */
		KUNIT_EXPECT_EQ_MSG(test, kstats_slot(p + 1, f),
				    sp + (k <= f ? 1 : 0),
				    "slot of 2^%u + 1, frac_bits %u", k, f);
		kt_check_slot(test, p - 1, f);
		kt_check_slot(test, p, f);
		kt_check_slot(test, p + 1, f);
	}
}

static void kt_slot_monotonic(struct kunit *test)
{
	unsigned int f = kt_param(test), prev = 0, k, j, s, next;
	u64 v;

	/* Every value below 4096... */
	for (v = 0; v < 4096; v++) {
		s = kstats_slot(v, f);
		KUNIT_EXPECT_GE_MSG(test, s, prev, "slot of %llu decreases", v);
		KUNIT_EXPECT_EQ_MSG(test, s, kt_slot(v, f), "slot of %llu", v);
		prev = s;
	}
	/* ...then 512 values spread over each power of two, and its end. */
	for (k = 12; k < 64; k++) {
		u64 end = BIT_ULL(k) - 1 + BIT_ULL(k);

		for (j = 0; j < 512; j++) {
			v = BIT_ULL(k) + j * BIT_ULL(k - 9);
			s = kstats_slot(v, f);
			next = kstats_slot(v + 1, f);
			KUNIT_EXPECT_GE_MSG(test, s, prev, "slot of %llu decreases",
					    v);
			/* One more moves at most to the next slot. */
			KUNIT_EXPECT_TRUE_MSG(test, next == s || next == s + 1,
					      "slots of %llu and %llu: %u, %u",
					      v, v + 1, s, next);
			kt_check_slot(test, v, f);
			prev = s;
		}
		s = kstats_slot(end, f);
		KUNIT_EXPECT_GE_MSG(test, s, prev, "slot of %llu decreases", end);
		kt_check_slot(test, end, f);
		prev = s;
		/* 2^(k + 1) starts a new slot. */
		if (k < 63)
			KUNIT_EXPECT_EQ_MSG(test, kstats_slot(end + 1, f), s + 1,
					    "slot of 2^%u", k + 1);
	}
}

static void kt_slot_edges(struct kunit *test)
{
	unsigned int f = kt_param(test), nr = kstats_nr_slots(f), s;
	u64 prev_lo = 0;

	KUNIT_EXPECT_EQ(test, kstats_slot_lo(0, f), 0);
	for (s = 0; s < nr; s++) {
		u64 lo = kstats_slot_lo(s, f), w = kstats_slot_width(s, f);
		u64 hi = lo + (w - 1);

		if (s)
			KUNIT_EXPECT_GT_MSG(test, lo, prev_lo,
					    "lower edges not increasing at slot %u", s);
		prev_lo = lo;
		/* Both edges map to the slot, by definition and in kstats. */
		KUNIT_EXPECT_EQ_MSG(test, kt_slot(lo, f), s, "lo of slot %u", s);
		KUNIT_EXPECT_EQ_MSG(test, kstats_slot(lo, f), s, "lo of slot %u", s);
		KUNIT_EXPECT_EQ_MSG(test, kt_slot(hi, f), s, "hi of slot %u", s);
		KUNIT_EXPECT_EQ_MSG(test, kstats_slot(hi, f), s, "hi of slot %u", s);
		if (s) {
			KUNIT_EXPECT_EQ_MSG(test, kt_slot(lo - 1, f), s - 1,
					    "lo - 1 of slot %u", s);
			KUNIT_EXPECT_EQ_MSG(test, kstats_slot(lo - 1, f), s - 1,
					    "lo - 1 of slot %u", s);
		}
		/* The slots tile the u64 range. */
		if (s + 1 < nr)
			KUNIT_EXPECT_EQ_MSG(test, hi + 1, kstats_slot_lo(s + 1, f),
					    "slot %u does not end where %u starts",
					    s, s + 1);
		else
			KUNIT_EXPECT_EQ(test, hi, U64_MAX);

		if (lo < (2ULL << f)) {
			/* Linear region: one value per slot. */
			KUNIT_EXPECT_EQ_MSG(test, lo, (u64)s, "linear slot %u", s);
			KUNIT_EXPECT_EQ_MSG(test, w, 1, "linear slot %u", s);
		} else {
			/* width / lo <= 2^-f, equal at each power of two. */
			KUNIT_EXPECT_LE_MSG(test, w << f, lo,
					    "slot %u: width %llu too wide for lo %llu",
					    s, w, lo);
			KUNIT_EXPECT_TRUE_MSG(test,
					      ((w << f) == lo) == !(lo & (lo - 1)),
					      "slot %u: width %llu, lo %llu", s, w, lo);
		}
	}
}

static void kt_slot_linear(struct kunit *test)
{
	unsigned int f = kt_param(test);
	u64 v;

	for (v = 0; v < (2ULL << f); v++) {
		KUNIT_EXPECT_EQ(test, kstats_slot(v, f), (unsigned int)v);
		KUNIT_EXPECT_EQ(test, kstats_slot_lo(v, f), v);
		KUNIT_EXPECT_EQ(test, kstats_slot_width(v, f), 1);
	}
	/* The first slot above is two values wide. */
	KUNIT_EXPECT_EQ(test, kstats_slot(2ULL << f, f), 2U << f);
	KUNIT_EXPECT_EQ(test, kstats_slot((2ULL << f) + 1, f), 2U << f);
	KUNIT_EXPECT_EQ(test, kstats_slot_width(2U << f, f), 2);
}

/* ---------------------------------------------------------------------- */
/* Entries, per-CPU counters, recording from bound kthreads               */
/* ---------------------------------------------------------------------- */

static struct kstats *kt_new(struct kunit *test, const char *name, u8 bits)
{
	struct kstats *ks = kstats_new(name, bits);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_OR_NULL(ks),
			       "kstats_new(\"%s\", %u): %pe", name, bits, ks);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, kt_delete_action, ks));
	return ks;
}

/* Delete @ks now rather than at the end of the test. */
static void kt_delete(struct kunit *test, struct kstats *ks)
{
	kunit_release_action(test, kt_delete_action, ks);
}

static void kt_record_n(struct kstats *ks, u64 v, unsigned int n)
{
	while (n--)
		kstats_record(ks, v);
}

/* Count and scaled sum of @slot, added over all possible CPUs. */
static void kt_slot_totals(struct kstats *ks, unsigned int slot,
			   u64 *sum, u64 *count)
{
	int cpu;

	*sum = 0;
	*count = 0;
	for_each_possible_cpu(cpu) {
		const struct kstats_slot *s = per_cpu_ptr(ks->slots, cpu) + slot;

		*sum += s->sum;
		*count += s->count;
	}
}

static u64 kt_total_count(struct kstats *ks)
{
	u64 total = 0;
	unsigned int s;
	int cpu;

	for_each_possible_cpu(cpu)
		for (s = 0; s < ks->nr_slots; s++)
			total += per_cpu_ptr(ks->slots, cpu)[s].count;
	return total;
}

/* Number of non-zero counters and sums over all CPUs and slots. */
static unsigned int kt_nonzero(struct kstats *ks)
{
	unsigned int s, n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		for (s = 0; s < ks->nr_slots; s++) {
			const struct kstats_slot *sl = per_cpu_ptr(ks->slots, cpu) + s;

			n += !!sl->count + !!sl->sum;
		}
	return n;
}

struct kt_sample {
	u64 val;
	unsigned int n;
};

#define KT_MAX_SAMPLES	4

/* What one kthread bound to @cpu records, after what @fn does. */
struct kt_worker {
	struct kstats *ks;
	unsigned int cpu;
	unsigned int nr_samples;
	struct kt_sample samples[KT_MAX_SAMPLES];
	void (*fn)(struct kt_worker *w);
	void *arg;
	bool wrong_cpu;
	struct completion done;
	struct task_struct *task;
};

static int kt_worker_fn(void *arg)
{
	struct kt_worker *w = arg;
	unsigned int i, n;

	if (w->fn)
		w->fn(w);
	for (i = 0; i < w->nr_samples; i++) {
		for (n = 0; n < w->samples[i].n; n++) {
			kstats_record(w->ks, w->samples[i].val);
			if (raw_smp_processor_id() != w->cpu)
				w->wrong_cpu = true;
		}
	}
	complete(&w->done);
	return 0;
}

/*
 * Run @nr workers, each in a kthread bound to its CPU, all at the same
 * time, and wait for them. The CPUs must be online.
 */
static void kt_run_workers(struct kunit *test, struct kt_worker *w,
			   unsigned int nr)
{
	unsigned int i, j;

	for (i = 0; i < nr; i++) {
		struct task_struct *t;

		init_completion(&w[i].done);
		w[i].wrong_cpu = false;
		t = kthread_create_on_cpu(kt_worker_fn, &w[i], w[i].cpu,
					  "kstats_test/%u");
		if (IS_ERR(t)) {
			/* Never woken: they exit without running. */
			for (j = 0; j < i; j++)
				kthread_stop_put(w[j].task);
			KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, t,
							 "kthread_create_on_cpu(CPU %u)",
							 w[i].cpu);
		}
		get_task_struct(t);
		w[i].task = t;
	}
	for (i = 0; i < nr; i++)
		wake_up_process(w[i].task);
	for (i = 0; i < nr; i++) {
		wait_for_completion(&w[i].done);
		KUNIT_EXPECT_EQ(test, kthread_stop_put(w[i].task), 0);
		KUNIT_EXPECT_FALSE_MSG(test, w[i].wrong_cpu,
				       "worker of CPU %u ran elsewhere", w[i].cpu);
	}
}

/* One worker per online CPU, from an array sized for all possible CPUs. */
static struct kt_worker *kt_online_workers(struct kunit *test,
					   struct kstats *ks,
					   unsigned int *nr)
{
	struct kt_worker *w;
	int cpu;

	w = kunit_kcalloc(test, num_possible_cpus(), sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	*nr = 0;
	for_each_online_cpu(cpu) {
		w[*nr].ks = ks;
		w[*nr].cpu = cpu;
		(*nr)++;
	}
	return w;
}

/* ---------------------------------------------------------------------- */
/* Reading, writing and parsing the debugfs files                         */
/* ---------------------------------------------------------------------- */

/* The test's user buffer, mapped on first use, unmapped with its mm. */
static char __user *kt_ubuf(struct kunit *test)
{
	unsigned long addr;

	if (test->priv)
		return (char __user *)test->priv;
	addr = kunit_vm_mmap(test, NULL, 0, KT_BUF_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "cannot map a user buffer");
	KUNIT_ASSERT_LT_MSG(test, addr, (unsigned long)TASK_SIZE,
			    "cannot map a user buffer: %ld", (long)addr);
	test->priv = (void *)addr;
	return (char __user *)addr;
}

static char *kt_path(struct kunit *test, const char *name)
{
	char *path = kunit_kzalloc(test, sizeof(KT_DIR) + KSTATS_NAME_MAX + 1,
				   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, path);
	snprintf(path, sizeof(KT_DIR) + KSTATS_NAME_MAX + 1, KT_DIR "%s", name);
	return path;
}

/* Close @f now, so that the file's release has run on return. */
static void kt_close(struct file *f)
{
	filp_close(f, NULL);
	flush_delayed_fput();
}

/*
 * Open @path as seen by PID 1, which mounted debugfs. A KUnit thread
 * resolves paths from the kernel's own root, which is not PID 1's where
 * kernel threads have a private, empty nullfs root (7.3 has it).
 */
static struct file *kt_filp_open(const char *path, int flags)
{
	struct task_struct *init;
	struct file *f = ERR_PTR(-ESRCH);
	struct path root = {};
	struct pid *pid;

	pid = find_get_pid(1);
	init = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!init)
		return f;
	task_lock(init);
	if (init->fs)
		get_fs_root(init->fs, &root);
	task_unlock(init);
	put_task_struct(init);
	if (root.mnt) {
		f = file_open_root(&root, path, flags, 0);
		path_put(&root);
	}
	return f;
}

static struct file *kt_open(struct kunit *test, const char *name, int flags)
{
	char *path = kt_path(test, name);
	struct file *f = kt_filp_open(path, flags);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f),
			       "cannot open %s: %pe (debugfs must be mounted on /sys/kernel/debug)",
			       path, f);
	return f;
}

/* Read all of open file @f from offset 0 into the user buffer. */
static ssize_t kt_read_file(struct file *f, char __user *ubuf)
{
	size_t len = 0;
	loff_t pos = 0;
	ssize_t ret;

	if (!f->f_op->read)
		return -EINVAL;
	do {
		size_t chunk = min_t(size_t, KT_READ_CHUNK,
				     KT_BUF_SIZE - 1 - len);

		if (!chunk)
			return -EFBIG;
		ret = f->f_op->read(f, ubuf + len, chunk, &pos);
		if (ret < 0)
			return ret;
		len += ret;
	} while (ret);
	return len;
}

/* Contents of /sys/kernel/debug/kstats/@name, NUL-terminated. */
static char *kt_read(struct kunit *test, const char *name)
{
	char __user *ubuf = kt_ubuf(test);
	char *buf = kunit_kzalloc(test, KT_BUF_SIZE, GFP_KERNEL);
	struct file *f;
	ssize_t len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	f = kt_open(test, name, O_RDONLY);
	len = kt_read_file(f, ubuf);
	kt_close(f);
	KUNIT_ASSERT_GE_MSG(test, len, 0, "reading %s: %pe", name,
			    ERR_PTR(len));
	KUNIT_ASSERT_EQ(test, copy_from_user(buf, ubuf, len), 0);
	buf[len] = '\0';
	return buf;
}

/* Write @len bytes of @cmd into the file of @name in one write(). */
static ssize_t kt_write(struct kunit *test, const char *name,
			const char *cmd, size_t len)
{
	char __user *ubuf = kt_ubuf(test);
	struct file *f;
	loff_t pos = 0;
	ssize_t ret;

	KUNIT_ASSERT_LT(test, len, KT_BUF_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(ubuf, cmd, len), 0);
	f = kt_open(test, name, O_WRONLY);
	ret = f->f_op->write ? f->f_op->write(f, ubuf, len, &pos) : -EINVAL;
	kt_close(f);
	return ret;
}

struct kt_line {
	unsigned int slot;
	char kind;		/* ' ' for a CPU, 'S' for the slot's CPUS line */
	unsigned int cpu;	/* the CPU, or the number of CPUs for 'S' */
	u64 count;
	u64 avg;
	u64 p;			/* in millionths */
};

/*
 * Split @text into lines and parse each with the documented format; each
 * line must print back to exactly itself. Returns the number of lines.
 */
static unsigned int kt_parse(struct kunit *test, char *text,
			     struct kt_line *lines)
{
	char again[128];
	unsigned int n = 0;

	while (*text) {
		char *nl = strchr(text, '\n');
		struct kt_line *l = &lines[n];
		int ret, used = -1;
		size_t len;
		char pint;

		KUNIT_ASSERT_NOT_NULL_MSG(test, nl, "line %u has no newline: '%s'",
					  n + 1, text);
		KUNIT_ASSERT_LT_MSG(test, n, KT_MAX_LINES, "too many lines");
		len = nl - text + 1;
		*nl = '\0';
		ret = sscanf(text, KT_SCAN_FMT, &l->slot, &l->kind, &l->cpu,
			     &l->count, &l->avg, &pint, &l->p, &used);
		KUNIT_ASSERT_EQ_MSG(test, ret, 7, "line %u: cannot parse '%s'",
				    n + 1, text);
		KUNIT_EXPECT_EQ_MSG(test, used, (int)len - 1,
				    "line %u: trailing characters in '%s'",
				    n + 1, text);
		KUNIT_ASSERT_TRUE_MSG(test, l->kind == ' ' || l->kind == 'S',
				      "line %u: bad CPU column in '%s'", n + 1, text);
		KUNIT_ASSERT_TRUE_MSG(test, pint == '0' || pint == '1',
				      "line %u: bad p in '%s'", n + 1, text);
		KUNIT_ASSERT_LT_MSG(test, l->p, KT_P_SCALE,
				    "line %u: bad p in '%s'", n + 1, text);
		if (pint == '1') {
			KUNIT_EXPECT_EQ_MSG(test, l->p, 0,
					    "line %u: p above 1 in '%s'",
					    n + 1, text);
			l->p += KT_P_SCALE;
		}
		snprintf(again, sizeof(again), KT_LINE_FMT, l->slot, l->kind,
			 l->cpu, l->count, l->avg, pint, l->p % KT_P_SCALE);
		KUNIT_EXPECT_TRUE_MSG(test, strlen(again) == len &&
				      !strncmp(again, text, len - 1),
				      "line %u: '%s' is not formatted as '%s'",
				      n + 1, text, again);
		text = nl + 1;
		n++;
	}
	return n;
}

/*
 * Check the structure of the parsed lines of an entry with @frac_bits:
 * slots ascending; for each slot its CPU lines in CPU order, then one CPUS
 * line whose count is their sum; averages inside the slot; p is the exact
 * cumulative fraction of its CPU, or of all CPUs, so it grows and ends at
 * 1. Returns the total count.
 */
static u64 kt_check_lines(struct kunit *test, const struct kt_line *lines,
			  unsigned int n, unsigned int frac_bits)
{
	u64 *cpu_total, *cpu_cum, *cpu_last_p, total = 0, cum = 0, group = 0;
	unsigned int i, ncpu = nr_cpu_ids;
	int prev_slot = -1, prev_cpu = -1;
	u64 prev_p = 0;

	cpu_total = kunit_kcalloc(test, ncpu, sizeof(u64), GFP_KERNEL);
	cpu_cum = kunit_kcalloc(test, ncpu, sizeof(u64), GFP_KERNEL);
	cpu_last_p = kunit_kcalloc(test, ncpu, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cpu_total);
	KUNIT_ASSERT_NOT_NULL(test, cpu_cum);
	KUNIT_ASSERT_NOT_NULL(test, cpu_last_p);

	for (i = 0; i < n; i++) {
		if (lines[i].kind == 'S') {
			total += lines[i].count;
			continue;
		}
		KUNIT_ASSERT_LT_MSG(test, lines[i].cpu, ncpu,
				    "line %u: no such CPU", i + 1);
		KUNIT_EXPECT_TRUE_MSG(test, cpu_possible(lines[i].cpu),
				      "line %u: CPU %u is not possible",
				      i + 1, lines[i].cpu);
		cpu_total[lines[i].cpu] += lines[i].count;
	}

	for (i = 0; i < n; i++) {
		const struct kt_line *l = &lines[i];
		u64 lo = kstats_slot_lo(l->slot, frac_bits);

		KUNIT_ASSERT_LT_MSG(test, l->slot, (unsigned int)kstats_nr_slots(frac_bits),
				    "line %u: no such slot", i + 1);
		KUNIT_EXPECT_GT_MSG(test, l->count, 0, "line %u: empty", i + 1);
		KUNIT_EXPECT_GE_MSG(test, l->avg, lo, "line %u: avg below slot",
				    i + 1);
		KUNIT_EXPECT_LE_MSG(test, l->avg - lo,
				    kstats_slot_width(l->slot, frac_bits) - 1,
				    "line %u: avg above slot", i + 1);
		if (l->kind == ' ') {
			/* A new slot, or the same slot on a later CPU. */
			if (prev_cpu < 0) {
				KUNIT_EXPECT_GT_MSG(test, (int)l->slot, prev_slot,
						    "line %u: slots not ascending",
						    i + 1);
				prev_slot = l->slot;
			} else {
				KUNIT_EXPECT_EQ_MSG(test, (int)l->slot, prev_slot,
						    "line %u: slot %u has no CPUS line",
						    i + 1, prev_slot);
				KUNIT_EXPECT_GT_MSG(test, (int)l->cpu, prev_cpu,
						    "line %u: CPUs not ascending",
						    i + 1);
			}
			prev_cpu = l->cpu;
			group += l->count;
			cpu_cum[l->cpu] += l->count;
			KUNIT_EXPECT_EQ_MSG(test, l->p,
					    div64_u64(cpu_cum[l->cpu] * KT_P_SCALE,
						      cpu_total[l->cpu]),
					    "line %u: p of CPU %u", i + 1, l->cpu);
			KUNIT_EXPECT_GE_MSG(test, l->p, cpu_last_p[l->cpu],
					    "line %u: CDF of CPU %u decreasing",
					    i + 1, l->cpu);
			cpu_last_p[l->cpu] = l->p;
			continue;
		}
		/* The CPUS line closes the slot's group. */
		KUNIT_EXPECT_GE_MSG(test, prev_cpu, 0,
				    "line %u: CPUS line without CPU lines", i + 1);
		KUNIT_EXPECT_EQ_MSG(test, (int)l->slot, prev_slot,
				    "line %u: CPUS line of another slot", i + 1);
		KUNIT_EXPECT_EQ_MSG(test, l->cpu, num_possible_cpus(),
				    "line %u: CPUS column", i + 1);
		KUNIT_EXPECT_EQ_MSG(test, l->count, group,
				    "line %u: total is not the sum of its CPUs",
				    i + 1);
		cum += l->count;
		KUNIT_EXPECT_EQ_MSG(test, l->p, div64_u64(cum * KT_P_SCALE, total),
				    "line %u: p of the totals", i + 1);
		KUNIT_EXPECT_GE_MSG(test, l->p, prev_p,
				    "line %u: CDF decreasing", i + 1);
		prev_p = l->p;
		prev_cpu = -1;
		group = 0;
	}
	if (n) {
		KUNIT_EXPECT_EQ_MSG(test, lines[n - 1].kind, 'S',
				    "the last line is not a CPUS line");
		KUNIT_EXPECT_EQ_MSG(test, lines[n - 1].p, KT_P_SCALE,
				    "p of the last CPUS line is not 1.000000");
	}
	for (i = 0; i < ncpu; i++)
		if (cpu_total[i])
			KUNIT_EXPECT_EQ_MSG(test, cpu_last_p[i], KT_P_SCALE,
					    "CDF of CPU %u does not end at 1", i);
	return total;
}

/* Read, parse and check the file of @ks; returns the number of lines. */
static unsigned int kt_read_lines(struct kunit *test, struct kstats *ks,
				  struct kt_line **linesp, u64 *totalp)
{
	struct kt_line *lines;
	unsigned int n;
	u64 total;

	lines = kunit_kcalloc(test, KT_MAX_LINES, sizeof(*lines), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lines);
	n = kt_parse(test, kt_read(test, ks->name), lines);
	total = kt_check_lines(test, lines, n, ks->frac_bits);
	if (linesp)
		*linesp = lines;
	if (totalp)
		*totalp = total;
	return n;
}

/* Number of lines of @text that are exactly @line. */
static unsigned int kt_count_line(const char *text, const char *line)
{
	size_t len = strlen(line);
	unsigned int n = 0;

	while (*text) {
		const char *nl = strchrnul(text, '\n');

		if (nl - text == len && !strncmp(text, line, len))
			n++;
		text = *nl ? nl + 1 : nl;
	}
	return n;
}

static void kt_expect_line(struct kunit *test, const char *text,
			   unsigned int times, const char *line)
{
	KUNIT_EXPECT_EQ_MSG(test, kt_count_line(text, line), times,
			    "line '%s' in:\n%s", line, text);
}

/* What an entry of @bits takes of max_memory: its counters, every CPU's. */
static size_t kt_entry_memory(unsigned int bits)
{
	return num_possible_cpus() *
	       (kstats_nr_slots(bits) * sizeof(struct kstats_slot) +
		sizeof(struct kstats_extremes));
}

/* kt_expect_line() of a kernel entry of @bits: @line, then its memory. */
static void kt_expect_entry(struct kunit *test, const char *text,
			    unsigned int times, unsigned int bits,
			    const char *line)
{
	char full[160];

	snprintf(full, sizeof(full), "%s memory %zu", line,
		 kt_entry_memory(bits));
	kt_expect_line(test, text, times, full);
}

/* ---------------------------------------------------------------------- */
/* Slot sums and means                                                    */
/* ---------------------------------------------------------------------- */

/* floor(sum of @v / @n), exactly and without overflow. */
static u64 kt_mean(const u64 *v, unsigned int n)
{
	u64 q = 0, r = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		q += div64_u64(v[i], n);
		r += v[i] - div64_u64(v[i], n) * n;
	}
	return q + div64_u64(r, n);
}

/*
 * Record the @n values @v, which must share a slot, into @ks after a
 * reset, and check the slot's count and mean: exact if @exact, else within
 * 2^-20 of the true mean; always inside the slot. Returns the slot.
 */
static unsigned int kt_check_mean(struct kunit *test, struct kstats *ks,
				  const u64 *v, unsigned int n, bool exact)
{
	unsigned int f = ks->frac_bits, slot = kt_slot(v[0], f), i;
	u64 lo = kstats_slot_lo(slot, f), w = kstats_slot_width(slot, f);
	u64 *off, sum, count, mean, truth;

	off = kunit_kcalloc(test, n, sizeof(*off), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, off);
	kstats_reset(ks);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ_MSG(test, kt_slot(v[i], f), slot,
				    "test values %llu and %llu in different slots",
				    v[0], v[i]);
		off[i] = v[i] - lo;
		kstats_record(ks, v[i]);
	}
	truth = lo + kt_mean(off, n);
	kt_slot_totals(ks, slot, &sum, &count);
	KUNIT_EXPECT_EQ(test, count, n);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), n);
	mean = kstats_slot_mean(slot, f, sum, count);
	KUNIT_EXPECT_GE_MSG(test, mean, lo, "slot %u, frac_bits %u", slot, f);
	KUNIT_EXPECT_LE_MSG(test, mean - lo, w - 1, "slot %u, frac_bits %u",
			    slot, f);
	if (exact)
		KUNIT_EXPECT_EQ_MSG(test, mean, truth,
				    "inexact mean of %u values from %llu, frac_bits %u",
				    n, v[0], f);
	else
		KUNIT_EXPECT_LE_MSG(test, mean > truth ? mean - truth : truth - mean,
				    truth >> KT_MEAN_BITS,
				    "mean %llu of %u values from %llu is not %llu to 20 bits, frac_bits %u",
				    mean, n, v[0], truth, f);
	return slot;
}

/* Four values in every slot; the mean is checked in every slot. */
static void kt_mean_every_slot(struct kunit *test)
{
	unsigned int f = kt_param(test), nr = kstats_nr_slots(f), s, i;
	u64 exact_below = BIT_ULL(KT_MEAN_BITS + 1 + f);
	struct kstats *ks;
	char name[32];

	snprintf(name, sizeof(name), "kunit_mean_all_%u", f);
	ks = kt_new(test, name, f);
	for (s = 0; s < nr; s++) {
		u64 lo = kstats_slot_lo(s, f), w = kstats_slot_width(s, f);
		u64 off[4] = { 0, w - 1, w / 3, w > 1 ? (w / 2) | 1 : 0 };

		for (i = 0; i < ARRAY_SIZE(off); i++)
			kstats_record(ks, lo + off[i]);
	}
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 4ULL * nr);
	for (s = 0; s < nr; s++) {
		u64 lo = kstats_slot_lo(s, f), w = kstats_slot_width(s, f);
		u64 off[4] = { 0, w - 1, w / 3, w > 1 ? (w / 2) | 1 : 0 };
		u64 truth = lo + kt_mean(off, 4), sum, count, mean;

		kt_slot_totals(ks, s, &sum, &count);
		KUNIT_EXPECT_EQ_MSG(test, count, 4, "slot %u", s);
		mean = kstats_slot_mean(s, f, sum, count);
		if (lo < exact_below) {
			KUNIT_EXPECT_EQ_MSG(test, mean, truth,
					    "slot %u below 2^(21 + %u) must be exact",
					    s, f);
		} else {
			KUNIT_EXPECT_GE_MSG(test, mean, lo, "slot %u", s);
			KUNIT_EXPECT_LE_MSG(test, mean - lo, w - 1, "slot %u", s);
			KUNIT_EXPECT_LE_MSG(test,
					    mean > truth ? mean - truth : truth - mean,
					    truth >> KT_MEAN_BITS,
					    "slot %u: mean %llu, true mean %llu",
					    s, mean, truth);
		}
	}
}

static void kt_mean_huge(struct kunit *test)
{
	unsigned int f = kt_param(test), slot, n, i;
	u64 top = BIT_ULL(63), tw = BIT_ULL(63 - f);
	u64 last_lo = U64_MAX - tw + 1, g = BIT_ULL(40);
	u64 x = BIT_ULL(KT_MEAN_BITS + 1 + f);	/* first inexact value */
	u64 xlo = x - BIT_ULL(KT_MEAN_BITS);	/* its slot below */
	const u64 set_top[] = { top, top + 1, top + 3, top + 0x123456789ULL,
				top + tw - 1, top + tw / 2 + 12345 };
	const u64 set_max[] = { U64_MAX };
	const u64 set_last[] = { U64_MAX, last_lo, last_lo + 1, U64_MAX - 12345,
				 U64_MAX - tw / 2, last_lo + 0x5555555555ULL };
	const u64 set_2_40[] = { g + 1, g + 3, g + 5, g + 0xfffff, g + 0x12345,
				 g + BIT_ULL(40 - f) - 1, g + 0x7654321 };
	const u64 set_exact[] = { xlo, xlo + 1, xlo + 0xfffff, xlo + 777,
				  xlo + 0x55555, x - 1 };
	const u64 set_above[] = { x, x + 1, x + 3, x + 0xfffff };
	const u64 set_single[] = { x - 3 };
	struct kt_line *lines;
	struct kstats *ks;
	char name[32];
	u64 total;

	snprintf(name, sizeof(name), "kunit_mean_huge_%u", f);
	ks = kt_new(test, name, f);

	kt_check_mean(test, ks, set_top, ARRAY_SIZE(set_top), false);
	slot = kt_check_mean(test, ks, set_max, ARRAY_SIZE(set_max), false);
	KUNIT_EXPECT_EQ(test, slot, kstats_nr_slots(f) - 1);
	kt_check_mean(test, ks, set_last, ARRAY_SIZE(set_last), false);
	kt_check_mean(test, ks, set_2_40, ARRAY_SIZE(set_2_40), false);
	kt_check_mean(test, ks, set_exact, ARRAY_SIZE(set_exact), true);
	kt_check_mean(test, ks, set_above, ARRAY_SIZE(set_above), false);

	/* A mixture of slots, each checked from the file. */
	kstats_reset(ks);
	for (i = 0; i < ARRAY_SIZE(set_top); i++)
		kstats_record(ks, set_top[i]);
	kstats_record(ks, U64_MAX);
	kt_record_n(ks, g + 1, 3);
	n = kt_read_lines(test, ks, NULL, &total);
	KUNIT_EXPECT_GE(test, n, 4);
	KUNIT_EXPECT_EQ(test, total, ARRAY_SIZE(set_top) + 4);

	/* A single value below 2^(21 + f) prints exactly, on both lines. */
	slot = kt_check_mean(test, ks, set_single, 1, true);
	n = kt_read_lines(test, ks, &lines, NULL);
	KUNIT_ASSERT_EQ(test, n, 2);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, lines[i].slot, slot);
		KUNIT_EXPECT_EQ(test, lines[i].count, 1);
		KUNIT_EXPECT_EQ(test, lines[i].avg, x - 3);
		KUNIT_EXPECT_EQ(test, lines[i].p, KT_P_SCALE);
	}
}

static void kt_mean_clamp(struct kunit *test)
{
	unsigned int f = kt_param(test), nr = kstats_nr_slots(f), s, i;
	/* Sums that samples of these counts cannot have added up to. */
	static const struct { u64 sum, count; } bad[] = {
		{ U64_MAX, 1 }, { U64_MAX, 2 }, { U64_MAX, 3 },
		{ U64_MAX - 1, 1000 }, { BIT_ULL(KT_MEAN_BITS), 1 },
		{ 7 * BIT_ULL(KT_MEAN_BITS) + 5, 7 },
		{ 7 * BIT_ULL(KT_MEAN_BITS) - 1, 7 },
		{ BIT_ULL(63) + 12345, 2 },
	};

	for (s = 0; s < nr; s++) {
		u64 lo = kstats_slot_lo(s, f), w = kstats_slot_width(s, f);

		KUNIT_EXPECT_EQ_MSG(test, kstats_slot_mean(s, f, 0, 0), lo,
				    "empty slot %u", s);
		KUNIT_EXPECT_EQ_MSG(test, kstats_slot_mean(s, f, U64_MAX, 0), lo,
				    "empty slot %u with a sum", s);
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			u64 m = kstats_slot_mean(s, f, bad[i].sum, bad[i].count);

			KUNIT_EXPECT_TRUE_MSG(test, m >= lo && m - lo <= w - 1,
					      "slot %u [%llu, +%llu): sum %llu count %llu gives %llu",
					      s, lo, w, bad[i].sum, bad[i].count, m);
		}
		/* A sum far too large clamps to the top of the slot. */
		KUNIT_EXPECT_EQ_MSG(test, kstats_slot_mean(s, f, U64_MAX, 1),
				    lo + (w - 1), "slot %u", s);
	}
}

/* ---------------------------------------------------------------------- */
/* The API and the files                                                  */
/* ---------------------------------------------------------------------- */

/* Values are below 2^(21 + frac_bits): every mean is exact. */
static void kt_percpu(struct kunit *test)
{
	const unsigned int f = 3, ncpu = nr_cpu_ids;
	unsigned int nr = kstats_nr_slots(f), nw, i, j, s, len = 0, nl = 0;
	u64 *count, *vsum, *cpu_total, *cpu_cum, total = 0, cum = 0;
	struct kt_worker *w;
	struct kstats *ks;
	char *expected;
	int cpu;

	ks = kt_new(test, "kunit_percpu", f);
	w = kt_online_workers(test, ks, &nw);
	for (i = 0; i < nw; i++) {
		w[i].samples[0].val = 1000ULL * (w[i].cpu + 1) + 7;
		w[i].samples[0].n = 1000 * (w[i].cpu + 1);
		/* A slot that all CPUs share. */
		w[i].samples[1].val = 5;
		w[i].samples[1].n = w[i].cpu + 1;
		w[i].nr_samples = 2;
	}
	kt_run_workers(test, w, nw);

	/* The model: counts and value sums per CPU and slot. */
	count = kunit_kcalloc(test, ncpu * nr, sizeof(u64), GFP_KERNEL);
	vsum = kunit_kcalloc(test, ncpu * nr, sizeof(u64), GFP_KERNEL);
	cpu_total = kunit_kcalloc(test, ncpu, sizeof(u64), GFP_KERNEL);
	cpu_cum = kunit_kcalloc(test, ncpu, sizeof(u64), GFP_KERNEL);
	expected = kunit_kzalloc(test, KT_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, count);
	KUNIT_ASSERT_NOT_NULL(test, vsum);
	KUNIT_ASSERT_NOT_NULL(test, cpu_total);
	KUNIT_ASSERT_NOT_NULL(test, cpu_cum);
	KUNIT_ASSERT_NOT_NULL(test, expected);
	for (i = 0; i < nw; i++)
		for (j = 0; j < w[i].nr_samples; j++) {
			const struct kt_sample *sm = &w[i].samples[j];

			s = kt_slot(sm->val, f);
			count[w[i].cpu * nr + s] += sm->n;
			vsum[w[i].cpu * nr + s] += sm->val * sm->n;
			cpu_total[w[i].cpu] += sm->n;
			total += sm->n;
		}

	/* The raw per-CPU counters, of every possible CPU. */
	for_each_possible_cpu(cpu) {
		const struct kstats_slot *sl = per_cpu_ptr(ks->slots, cpu);

		for (s = 0; s < nr; s++) {
			u64 c = count[cpu * nr + s];
			u64 off = vsum[cpu * nr + s] - c * kstats_slot_lo(s, f);

			KUNIT_EXPECT_EQ_MSG(test, sl[s].count, c,
					    "count of CPU %d slot %u", cpu, s);
			KUNIT_EXPECT_EQ_MSG(test, sl[s].sum, off,
					    "sum of CPU %d slot %u", cpu, s);
		}
	}

	/* The whole file, built from the model. */
	for (s = 0; s < nr; s++) {
		u64 sc = 0, sv = 0, p;

		for_each_possible_cpu(cpu) {
			u64 c = count[cpu * nr + s];

			if (!c)
				continue;
			sc += c;
			sv += vsum[cpu * nr + s];
			cpu_cum[cpu] += c;
			p = div64_u64(cpu_cum[cpu] * KT_P_SCALE, cpu_total[cpu]);
			len += scnprintf(expected + len, KT_BUF_SIZE - len,
					 KT_LINE_FMT, s, ' ', cpu, c,
					 div64_u64(vsum[cpu * nr + s], c),
					 p == KT_P_SCALE ? '1' : '0',
					 p % KT_P_SCALE);
		}
		if (!sc)
			continue;
		cum += sc;
		p = div64_u64(cum * KT_P_SCALE, total);
		len += scnprintf(expected + len, KT_BUF_SIZE - len, KT_LINE_FMT,
				 s, 'S', num_possible_cpus(), sc,
				 div64_u64(sv, sc), p == KT_P_SCALE ? '1' : '0',
				 p % KT_P_SCALE);
	}
	KUNIT_EXPECT_STREQ(test, kt_read(test, ks->name), expected);

	/* And the same file through the generic checks. */
	for (i = 0; i < len; i++)
		nl += expected[i] == '\n';
	KUNIT_EXPECT_GE(test, nl, 3 * nw + 1);
	KUNIT_EXPECT_EQ(test, kt_read_lines(test, ks, NULL, &cum), nl);
	KUNIT_EXPECT_EQ(test, cum, total);
}

static void kt_start_stop_reset(struct kunit *test)
{
	const unsigned int f = 1;
	struct kt_worker *w;
	struct kstats *ks;
	unsigned int nw, i;
	u64 sum, count;
	int cpu;

	ks = kt_new(test, "kunit_ssr", f);
	w = kt_online_workers(test, ks, &nw);
	for (i = 0; i < nw; i++) {
		w[i].samples[0].val = 1000 + w[i].cpu;	/* not on a slot edge */
		w[i].samples[0].n = 10;
		w[i].nr_samples = 1;
	}

	/* A new entry runs. */
	kt_record_n(ks, 10, 3);
	kt_slot_totals(ks, kt_slot(10, f), &sum, &count);
	KUNIT_EXPECT_EQ(test, count, 3);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 3);

	/* Stopped, it ignores samples from every CPU. */
	kstats_stop(ks);
	kt_record_n(ks, 10, 5);
	kt_run_workers(test, w, nw);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 3);

	/* Started again, it counts. */
	kstats_start(ks);
	KUNIT_ASSERT_NE(test, kt_slot(16, f), kt_slot(10, f));
	kstats_record(ks, 16);
	kt_slot_totals(ks, kt_slot(16, f), &sum, &count);
	KUNIT_EXPECT_EQ(test, count, 1);
	kt_run_workers(test, w, nw);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 4 + 10ULL * nw);
	for (i = 0; i < nw; i++) {
		const struct kstats_slot *sl = per_cpu_ptr(ks->slots, w[i].cpu);

		KUNIT_EXPECT_GE_MSG(test, sl[kt_slot(1000 + w[i].cpu, f)].count,
				    10, "CPU %u", w[i].cpu);
	}
	KUNIT_EXPECT_GT(test, kt_nonzero(ks), 0);

	/* Reset clears every counter and sum of every possible CPU. */
	kstats_reset(ks);
	KUNIT_EXPECT_EQ(test, kt_nonzero(ks), 0);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_TRUE_MSG(test,
				      !memchr_inv(per_cpu_ptr(ks->slots, cpu), 0,
						  ks->nr_slots * sizeof(struct kstats_slot)),
				      "CPU %d not cleared", cpu);
	KUNIT_EXPECT_STREQ(test, kt_read(test, ks->name), "");

	/* It still works after. */
	kt_record_n(ks, 12, 2);
	kt_slot_totals(ks, kt_slot(12, f), &sum, &count);
	KUNIT_EXPECT_EQ(test, count, 2);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 2);
	kt_run_workers(test, w, nw);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 2 + 10ULL * nw);

	/* A reset keeps a stopped entry stopped. */
	kstats_stop(ks);
	kstats_reset(ks);
	kt_record_n(ks, 12, 2);
	KUNIT_EXPECT_EQ(test, kt_nonzero(ks), 0);
	kstats_start(ks);
	kstats_record(ks, 12);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 1);
}

/* A small data set on two CPUs, and the file's exact text. */
static void kt_file_text(struct kunit *test)
{
	struct kt_worker *w;
	struct kt_line *lines;
	struct kstats *ks;
	unsigned int c0, c1, np = num_possible_cpus(), n, i;
	u64 total;
	char *expected;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	c0 = cpumask_first(cpu_online_mask);
	c1 = cpumask_next(c0, cpu_online_mask);

	/* With frac_bits 2: 3 and 7 are linear, 100 and 101 are in slot
	 * 22 = [96, 112), 2^40 + 1 in slot 156 = [2^40, 2^40 + 2^38).
	 */
	KUNIT_ASSERT_EQ(test, kt_slot(100, 2), 22);
	KUNIT_ASSERT_EQ(test, kt_slot(101, 2), 22);
	KUNIT_ASSERT_EQ(test, kt_slot(BIT_ULL(40) + 1, 2), 156);

	ks = kt_new(test, "kunit_text", 2);
	w = kunit_kcalloc(test, 2, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w[0] = (struct kt_worker){
		.ks = ks, .cpu = c0, .nr_samples = 3,
		.samples = { { 3, 5 }, { 100, 3 }, { 101, 2 } },
	};
	w[1] = (struct kt_worker){
		.ks = ks, .cpu = c1, .nr_samples = 3,
		.samples = { { 3, 5 }, { 7, 10 }, { BIT_ULL(40) + 1, 5 } },
	};
	kt_run_workers(test, w, 2);

	expected = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, expected);
	snprintf(expected, 1024,
		 "slot 3   CPU  %-4u count        5 avg        3 p 0.500000\n"
		 "slot 3   CPU  %-4u count        5 avg        3 p 0.250000\n"
		 "slot 3   CPUS %-4u count       10 avg        3 p 0.333333\n"
		 "slot 7   CPU  %-4u count       10 avg        7 p 0.750000\n"
		 "slot 7   CPUS %-4u count       10 avg        7 p 0.666666\n"
		 "slot 22  CPU  %-4u count        5 avg      100 p 1.000000\n"
		 "slot 22  CPUS %-4u count        5 avg      100 p 0.833333\n"
		 "slot 156 CPU  %-4u count        5 avg 1099511627776 p 1.000000\n"
		 "slot 156 CPUS %-4u count        5 avg 1099511627776 p 1.000000\n",
		 c0, c1, np, c1, np, c0, np, c1, np);
	KUNIT_EXPECT_STREQ(test, kt_read(test, ks->name), expected);
	/* The same with both CPUs spelled out, in the usual two-CPU guest. */
	if (c0 == 0 && c1 == 1 && np == 2) {
		char *text = kt_read(test, ks->name);

		kt_expect_line(test, text, 1,
			       "slot 3   CPU  0    count        5 avg        3 p 0.500000");
		kt_expect_line(test, text, 1,
			       "slot 3   CPUS 2    count       10 avg        3 p 0.333333");
		kt_expect_line(test, text, 1,
			       "slot 156 CPU  1    count        5 avg 1099511627776 p 1.000000");
	}

	n = kt_read_lines(test, ks, &lines, &total);
	KUNIT_ASSERT_EQ(test, n, 9);
	KUNIT_EXPECT_EQ(test, total, 30);
	KUNIT_EXPECT_EQ(test, lines[8].p, KT_P_SCALE);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, lines[i].cpu,
				lines[i].kind == 'S' ? np : (i == 0 || i == 5 ? c0 : c1));
}

static void kt_file_commands(struct kunit *test)
{
	static const char * const good[] = { "start\n", "STOP", "Reset\n",
					     "stop\n", "START", "reset" };
	char big[64];
	static const struct { const char *cmd; size_t len; } bad[] = {
		{ "bogus", 5 }, { "", 0 }, { "\n", 1 }, { "stopx", 5 },
		{ "startstartstart\n", 16 },
	};
	struct kstats *ks;
	unsigned int i;
	int state;
	u64 n;

	memset(big, 'a', sizeof(big));
	memcpy(big, "reset", 5);
	ks = kt_new(test, "kunit_cmd", 0);

	kt_record_n(ks, 42, 3);
	KUNIT_EXPECT_EQ(test, kt_write(test, ks->name, "STOP", 4), 4);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(ks->active));
	kt_record_n(ks, 42, 3);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 3);
	KUNIT_EXPECT_EQ(test, kt_write(test, ks->name, "start\n", 6), 6);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ks->active));
	kstats_record(ks, 42);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 4);
	KUNIT_EXPECT_EQ(test, kt_write(test, ks->name, "Reset\n", 6), 6);
	KUNIT_EXPECT_EQ(test, kt_nonzero(ks), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ks->active));
	kt_record_n(ks, 42, 2);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 2);

	/* Every spelling in one go, ending running and empty. */
	for (i = 0; i < ARRAY_SIZE(good); i++)
		KUNIT_EXPECT_EQ_MSG(test, kt_write(test, ks->name, good[i],
						   strlen(good[i])),
				    (ssize_t)strlen(good[i]), "command %u", i);
	KUNIT_EXPECT_EQ(test, kt_nonzero(ks), 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ks->active));

	/* Bad commands fail and change nothing, running or stopped. */
	for (state = 1; state >= 0; state--) {
		if (state)
			kstats_start(ks);
		else
			kstats_stop(ks);
		kstats_reset(ks);
		if (state)
			kt_record_n(ks, 42, 2);
		n = kt_total_count(ks);
		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			KUNIT_EXPECT_EQ_MSG(test, kt_write(test, ks->name,
							   bad[i].cmd, bad[i].len),
					    -EINVAL, "bad command %u", i);
			KUNIT_EXPECT_EQ(test, READ_ONCE(ks->active), !!state);
			KUNIT_EXPECT_EQ(test, kt_total_count(ks), n);
		}
		KUNIT_EXPECT_EQ(test, kt_write(test, ks->name, big, sizeof(big)),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, kt_write(test, ks->name, big, 16), -EINVAL);
		KUNIT_EXPECT_EQ(test, READ_ONCE(ks->active), !!state);
		KUNIT_EXPECT_EQ(test, kt_total_count(ks), n);
	}
	/* The longest command that fits: 15 bytes, still unknown. */
	KUNIT_EXPECT_EQ(test, kt_write(test, ks->name, big, 15), -EINVAL);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(ks->active));
}

static void kt_expect_new_fails(struct kunit *test, const char *name,
				unsigned int bits, long err)
{
	struct kstats *ks = kstats_new(name, bits);
	int len = name ? strlen(name) : 0;

	/* Names are shown in hex: some are not printable. */
	if (!IS_ERR_OR_NULL(ks)) {
		KUNIT_FAIL(test, "kstats_new() of name [%*ph], bits %u succeeded",
			   len, name, bits);
		kstats_delete(ks);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(ks), err,
			    "kstats_new() of name %s[%*ph], bits %u",
			    name ? "" : "NULL ", len, name ?: "", bits);
}

static void kt_bad_names(struct kunit *test)
{
	static const char * const names[] = {
		"", "_x", "_control", "_", ".", "..", "a b", " ab", "ab ",
		"a/b", "/", "a\tb", "a\nb", "a*b", "a%b", "a\\b", "a,b",
		"a\x7f", "x\xe9", "\xc0", "\xdf", "\xff", "a\x80",
		"\xc3\xa9t\xc3\xa9", "k\xd0\x90", "kunit_\xe2\x82\xac",
	};
	char longname[KSTATS_NAME_MAX + 2];
	unsigned int i;

	char line[128], *control;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		kt_expect_new_fails(test, names[i], 0, -EINVAL);
	kt_expect_new_fails(test, NULL, 0, -EINVAL);

	/* 64 characters: one too many. */
	memset(longname, 'a', KSTATS_NAME_MAX + 1);
	longname[KSTATS_NAME_MAX + 1] = '\0';
	kt_expect_new_fails(test, longname, 0, -EINVAL);

	/* None of them is listed. */
	control = kt_read(test, "_control");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(line, sizeof(line),
			 "name %s origin kernel bits 0 state running memory %zu",
			 names[i], kt_entry_memory(0));
		KUNIT_EXPECT_EQ_MSG(test, kt_count_line(control, line), 0,
				    "bad name %u listed", i);
	}
}

static void kt_good_names(struct kunit *test)
{
	static const char * const names[] = {
		/* 63 characters: every letter, digit and '_'. */
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_",
		"kunit_a.b:c-d", ".x", "...", "x..", "-", ":", "0", "kunit_._",
	};
	char longname[KSTATS_NAME_MAX + 1];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, strlen(names[0]), KSTATS_NAME_MAX);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct kstats *ks = kt_new(test, names[i], 0);

		KUNIT_EXPECT_STREQ(test, ks->name, names[i]);
		KUNIT_EXPECT_STREQ(test, kt_read(test, names[i]), "");
		kstats_record(ks, 1);
		KUNIT_EXPECT_EQ(test, kt_read_lines(test, ks, NULL, NULL), 2);
		kt_delete(test, ks);
	}
	memset(longname, 'z', KSTATS_NAME_MAX);
	longname[KSTATS_NAME_MAX] = '\0';
	kt_new(test, longname, KSTATS_MAX_FRAC_BITS);
	KUNIT_EXPECT_STREQ(test, kt_read(test, longname), "");
}

static void kt_bad_bits(struct kunit *test)
{
	struct kstats *ks;
	unsigned int f;

	kt_expect_new_fails(test, "kunit_bits", KSTATS_MAX_FRAC_BITS + 1, -EINVAL);
	kt_expect_new_fails(test, "kunit_bits", 6, -EINVAL);
	kt_expect_new_fails(test, "kunit_bits", 255, -EINVAL);
	/* The name is still free, and every valid value works. */
	for (f = 0; f <= KSTATS_MAX_FRAC_BITS; f++) {
		ks = kt_new(test, "kunit_bits", f);
		KUNIT_EXPECT_EQ(test, ks->frac_bits, f);
		KUNIT_EXPECT_EQ(test, ks->nr_slots, kstats_nr_slots(f));
		kt_delete(test, ks);
	}
}

static void kt_duplicate(struct kunit *test)
{
	struct kstats *ks = kt_new(test, "kunit_dup", 2);
	struct kt_line *lines;
	unsigned int f;
	char *text;

	kt_record_n(ks, 9, 4);
	for (f = 0; f <= KSTATS_MAX_FRAC_BITS; f++)
		kt_expect_new_fails(test, "kunit_dup", f, -EEXIST);
	/* Bad bits are reported before the duplicate. */
	kt_expect_new_fails(test, "kunit_dup", 6, -EINVAL);

	/* The original is unchanged, and still works. */
	KUNIT_EXPECT_EQ(test, ks->frac_bits, 2);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(ks->active));
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 4);
	KUNIT_ASSERT_EQ(test, kt_read_lines(test, ks, &lines, NULL), 2);
	KUNIT_EXPECT_EQ(test, lines[1].slot, kt_slot(9, 2));
	KUNIT_EXPECT_EQ(test, lines[1].count, 4);
	KUNIT_EXPECT_EQ(test, lines[1].avg, 9);
	text = kt_read(test, "_control");
	kt_expect_entry(test, text, 1, 2,
			"name kunit_dup origin kernel bits 2 state running min 9 max 9");
	kstats_record(ks, 9);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 5);
}

static void kt_delete_cases(struct kunit *test)
{
	char __user *ubuf = kt_ubuf(test);
	struct file *rf, *wf;
	struct kstats *ks;
	char *path;
	loff_t pos = 0;

	/* No-ops. */
	kstats_delete(NULL);
	kstats_delete(ERR_PTR(-EINVAL));
	kstats_delete(ERR_PTR(-ENOMEM));

	/* The file goes with the entry, and the name can be used again. */
	ks = kt_new(test, "kunit_del", 1);
	kstats_record(ks, 3);
	path = kt_path(test, "kunit_del");
	kt_close(kt_open(test, "kunit_del", O_RDONLY));
	kt_delete(test, ks);
	rf = kt_filp_open(path, O_RDONLY);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(rf), -ENOENT);
	if (!IS_ERR(rf))
		kt_close(rf);
	kt_expect_entry(test, kt_read(test, "_control"), 0, 1,
			"name kunit_del origin kernel bits 1 state running");

	/* Files still open when the entry goes fail with -EIO. */
	ks = kt_new(test, "kunit_del", 1);
	kstats_record(ks, 3);
	rf = kt_open(test, "kunit_del", O_RDONLY);
	wf = kt_filp_open(path, O_WRONLY);
	if (IS_ERR(wf)) {
		kt_close(rf);
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, wf, "cannot open %s", path);
	}
	kt_delete(test, ks);
	KUNIT_EXPECT_EQ(test, rf->f_op->read(rf, ubuf, 100, &pos), -EIO);
	KUNIT_EXPECT_EQ(test, wf->f_op->write(wf, ubuf, 4, &pos), -EIO);
	kt_close(rf);
	kt_close(wf);
}

static void kt_control(struct kunit *test)
{
	struct kstats *a = kt_new(test, "kunit_ctl_a", 5);
	struct kstats *b = kt_new(test, "kunit_ctl_b", 0);
	char *text;

	kstats_stop(b);
	text = kt_read(test, "_control");
	kt_expect_entry(test, text, 1, 5,
			"name kunit_ctl_a origin kernel bits 5 state running");
	kt_expect_entry(test, text, 1, 0,
			"name kunit_ctl_b origin kernel bits 0 state stopped");

	kstats_start(b);
	kstats_stop(a);
	text = kt_read(test, "_control");
	kt_expect_entry(test, text, 1, 5,
			"name kunit_ctl_a origin kernel bits 5 state stopped");
	kt_expect_entry(test, text, 1, 0,
			"name kunit_ctl_b origin kernel bits 0 state running");

	/* Through the entry's file too. */
	KUNIT_EXPECT_EQ(test, kt_write(test, "kunit_ctl_a", "start\n", 6), 6);
	KUNIT_EXPECT_EQ(test, kt_write(test, "kunit_ctl_b", "stop\n", 5), 5);
	text = kt_read(test, "_control");
	kt_expect_entry(test, text, 1, 5,
			"name kunit_ctl_a origin kernel bits 5 state running");
	kt_expect_entry(test, text, 1, 0,
			"name kunit_ctl_b origin kernel bits 0 state stopped");

	kt_delete(test, a);
	text = kt_read(test, "_control");
	kt_expect_entry(test, text, 0, 5,
			"name kunit_ctl_a origin kernel bits 5 state running");
	kt_expect_entry(test, text, 1, 0,
			"name kunit_ctl_b origin kernel bits 0 state stopped");
}

/*
 * trace NAME gap X: the first hit of a CPU, and its first after a start
 * (a new epoch), record nothing; a clock that went back gives 0.
 */
static void kt_gap_step(struct kunit *test)
{
	struct kstats_cpu_start last = {};
	u64 gap = 12345;

	KUNIT_EXPECT_FALSE(test, kstats_gap_step(&last, 100, 1, &gap));
	KUNIT_EXPECT_EQ(test, gap, 12345ULL);
	KUNIT_EXPECT_EQ(test, last.t0, 100ULL);
	KUNIT_EXPECT_EQ(test, last.epoch, 1U);
	KUNIT_EXPECT_TRUE(test, kstats_gap_step(&last, 250, 1, &gap));
	KUNIT_EXPECT_EQ(test, gap, 150ULL);
	KUNIT_EXPECT_TRUE(test, kstats_gap_step(&last, 250, 1, &gap));
	KUNIT_EXPECT_EQ(test, gap, 0ULL);
	KUNIT_EXPECT_TRUE(test, kstats_gap_step(&last, 240, 1, &gap));
	KUNIT_EXPECT_EQ(test, gap, 0ULL);
	KUNIT_EXPECT_TRUE(test, kstats_gap_step(&last, 1000, 1, &gap));
	KUNIT_EXPECT_EQ(test, gap, 760ULL);
	KUNIT_EXPECT_EQ(test, last.t0, 1000ULL);

	/* A start in between: no gap spans it. */
	gap = 12345;
	KUNIT_EXPECT_FALSE(test, kstats_gap_step(&last, 5000, 2, &gap));
	KUNIT_EXPECT_EQ(test, gap, 12345ULL);
	KUNIT_EXPECT_TRUE(test, kstats_gap_step(&last, 5007, 2, &gap));
	KUNIT_EXPECT_EQ(test, gap, 7ULL);
	last.epoch = U32_MAX;
	KUNIT_EXPECT_FALSE(test, kstats_gap_step(&last, 6000, 0, &gap));
	KUNIT_EXPECT_TRUE(test, kstats_gap_step(&last, U64_MAX, 0, &gap));
	KUNIT_EXPECT_EQ(test, gap, U64_MAX - 6000);
}

/* Entry commands with a NUL byte are refused, as _control refuses them. */
static void kt_file_nul(struct kunit *test)
{
	static const struct { const char *cmd; size_t len; } bad[] = {
		{ "start\0junk", 10 }, { "start\0", 6 }, { "stop\0\n", 6 },
		{ "reset\0x", 7 }, { "\0start", 6 }, { "START\0junk\n", 11 },
	};
	struct kstats *ks = kt_new(test, "kunit_nul", 0);
	unsigned int i;

	kstats_stop(ks);
	kt_record_n(ks, 42, 3);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, kt_write(test, ks->name, bad[i].cmd,
						   bad[i].len),
				    -EINVAL, "command %u", i);
		KUNIT_EXPECT_FALSE(test, READ_ONCE(ks->active));
	}
	kstats_start(ks);
	kt_record_n(ks, 42, 3);
	KUNIT_EXPECT_EQ(test, kt_write(test, ks->name, "reset\0", 6), -EINVAL);
	KUNIT_EXPECT_EQ(test, kt_total_count(ks), 3);
}

/* ---------------------------------------------------------------------- */
/* Long runs: a slot at its documented limits                             */
/* ---------------------------------------------------------------------- */

/* Samples a slot takes, over all CPUs, before its sum may overflow. */
#define KT_SUM_LIMIT	BIT_ULL(64 - KT_MEAN_BITS)

/* The lines of @ks's file are exactly @a and @b (each with its newline). */
static void kt_expect_file(struct kunit *test, struct kstats *ks,
			   const char *a, const char *b)
{
	char *text = kt_read(test, ks->name);

	KUNIT_EXPECT_EQ(test, strlen(text), strlen(a) + strlen(b) + 2);
	kt_expect_line(test, text, 1, a);
	kt_expect_line(test, text, 1, b);
}

static char *kt_line_text(struct kunit *test, unsigned int slot, bool totals,
			  unsigned int cpu, u64 count, u64 avg)
{
	char *line = kunit_kzalloc(test, 128, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, line);
	snprintf(line, 128, "slot %-3u CPU%c %-4u count %8llu avg %8llu p 1.000000",
		 slot, totals ? 'S' : ' ', cpu, count, avg);
	return line;
}

/*
 * The counters of a slot are set to what a very long run leaves, then
 * kstats_record() adds one more sample: 2^44 - 1 samples at the top of a
 * slot (the largest sum), U64_MAX - 1 samples at its bottom (the largest
 * count), and 2^44 - 1 top samples spread over the possible CPUs (the
 * totals line adds their sums). The file must show the exact count and
 * the mean of a single such sample.
 */
static void kt_slot_limits(struct kunit *test)
{
	unsigned int f = kt_param(test), np = num_possible_cpus(), n = 0;
	struct kstats *ks = kt_new(test, "kunit_limits", f);
	unsigned int slot = kt_slot(BIT_ULL(40), f);
	u64 lo = kstats_slot_lo(slot, f), w = kstats_slot_width(slot, f);
	unsigned int shift = kstats_sum_shift(slot >> f);
	u64 top = lo + w - 1, off = (w - 1) >> shift, one, count;
	struct kstats_slot *sl;
	int cpu;

	/* One sample at the top of the slot: its scaled offset is 2^20 - 1. */
	one = kstats_slot_mean(slot, f, off, 1);
	KUNIT_EXPECT_EQ(test, off, BIT_ULL(KT_MEAN_BITS) - 1);
	KUNIT_EXPECT_EQ(test, one, top & ~(BIT_ULL(shift) - 1));

	/* The largest sum, on one CPU. */
	cpu = get_cpu();
	sl = per_cpu_ptr(ks->slots, cpu) + slot;
	sl->count = KT_SUM_LIMIT - 1;
	sl->sum = (KT_SUM_LIMIT - 1) * off;
	kstats_record(ks, top);
	put_cpu();
	KUNIT_EXPECT_EQ(test, sl->count, KT_SUM_LIMIT);
	KUNIT_EXPECT_EQ(test, sl->sum, KT_SUM_LIMIT * off);
	kt_expect_file(test, ks,
		       kt_line_text(test, slot, false, cpu, KT_SUM_LIMIT, one),
		       kt_line_text(test, slot, true, np, KT_SUM_LIMIT, one));

	/* The largest count, at the bottom of the slot. */
	kstats_reset(ks);
	cpu = get_cpu();
	sl = per_cpu_ptr(ks->slots, cpu) + slot;
	sl->count = U64_MAX - 1;
	kstats_record(ks, lo);
	put_cpu();
	KUNIT_EXPECT_EQ(test, sl->count, U64_MAX);
	KUNIT_EXPECT_EQ(test, sl->sum, 0);
	kt_expect_file(test, ks,
		       kt_line_text(test, slot, false, cpu, U64_MAX, lo),
		       kt_line_text(test, slot, true, np, U64_MAX, lo));

	/* The largest sum over all CPUs together, in the totals line. */
	kstats_reset(ks);
	count = KT_SUM_LIMIT - 1;
	for_each_possible_cpu(cpu) {
		u64 c = ++n < np ? count / np : count - (np - 1) * (count / np);

		sl = per_cpu_ptr(ks->slots, cpu) + slot;
		sl->count = c;
		sl->sum = c * off;
	}
	kt_expect_line(test, kt_read(test, ks->name), 1,
		       kt_line_text(test, slot, true, np, count, one));
}

/*
 * clock tsc: cycles scale to ns within 1 ns plus 1 in 10^8, from 10 ms to
 * ten minutes and beyond, for TSCs from 100 MHz to 10 GHz.
 */
static void kt_tsc_scale(struct kunit *test)
{
	static const unsigned int khz[] = {
		100000, 1000000, 2300000, 2299999, 2893567, 3000000, 10000000,
	};
	static const u64 ms[] = { 10, 1000, 600000, 86400000 };
	unsigned int i, j;
	u32 mult, shift;

	for (i = 0; i < ARRAY_SIZE(khz); i++) {
		kstats_tsc_scale(khz[i], &mult, &shift);
		for (j = 0; j < ARRAY_SIZE(ms); j++) {
			u64 want = ms[j] * NSEC_PER_MSEC;
			u64 got = mul_u64_u32_shr(ms[j] * khz[i], mult, shift);
			u64 err = got > want ? got - want : want - got;

			KUNIT_EXPECT_LE_MSG(test, err, 1 + div64_u64(want, 100000000),
					    "%u kHz, %llu ms: %llu ns", khz[i],
					    ms[j], got);
		}
	}
}

/*
 * key task: the idle tasks, pid 0 on every CPU, do not all share the home
 * of pid 0 (init_task is CPU 0's, the others stand in for the other
 * CPUs'); any other task's home is its pid.
 */
static void kt_task_idle_homes(struct kunit *test)
{
	struct kstats_task_table *t = kstats_task_table_alloc(1 << 16);
	struct task_struct *idle;
	unsigned int i, j, home0, same = 0, shared = 0, zero = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	idle = kunit_kcalloc(test, 8, sizeof(*idle), GFP_KERNEL);
	if (!idle)
		kstats_task_table_free(t);
	KUNIT_ASSERT_NOT_NULL(test, idle);
	/*
	 * Eight pid-0 tasks hashed by address into 65,536 homes: two share
	 * one with a chance of 28 in 65,536, three or more far less; a home
	 * by pid alone would put all nine (with init_task) on home 0.
	 */
	home0 = kstats_task_home(t, &init_task);
	for (i = 0; i < 8; i++) {
		same += kstats_task_home(t, &idle[i]) == home0;
		zero += kstats_task_home(t, &idle[i]) == 0;
		for (j = 0; j < i; j++)
			shared += kstats_task_home(t, &idle[i]) ==
				  kstats_task_home(t, &idle[j]);
	}
	KUNIT_EXPECT_LE(test, same, 1U);
	KUNIT_EXPECT_LE(test, zero, 1U);
	KUNIT_EXPECT_LE(test, shared, 1U);
	KUNIT_EXPECT_EQ(test, kstats_task_home(t, current),
			(unsigned int)current->pid & ((1U << 16) - 1));
	kstats_task_table_free(t);
}

/*
 * key argN: a start pairs with the end of its key only, a second start
 * restarts it (with its own key of the histogram, by KEY), an end of
 * another epoch finds no pair, and a full table
 * drops starts, each of which then has no end; nothing stays pending.
 */
static void kt_req_pairs(struct kunit *test)
{
	struct kstats_req_table *t = kstats_req_table_alloc(64, 1);
	unsigned int i, kept = 0, full = 0;
	enum kstats_req_start r;
	u64 by[2] = { 1, 2 };

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, kstats_req_table_size(t), 64U);
	KUNIT_EXPECT_EQ(test, kstats_req_start(t, 0xa0, 100, 1, by), KSTATS_REQ_NEW);
	KUNIT_EXPECT_EQ(test, kstats_req_start(t, 0xb0, 150, 1, by), KSTATS_REQ_NEW);
	by[0] = 3;
	by[1] = 4;
	KUNIT_EXPECT_EQ(test, kstats_req_start(t, 0xa0, 200, 1, by),
			KSTATS_REQ_RESTARTED);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), 2U);
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, 0xc0, 1, by), 0ULL);
	by[0] = 0;
	by[1] = 0;
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, 0xa0, 1, by), 200ULL);
	/* The restart's key of its histogram comes back with it. */
	KUNIT_EXPECT_EQ(test, by[0], 3ULL);
	KUNIT_EXPECT_EQ(test, by[1], 4ULL);
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, 0xa0, 1, by), 0ULL);
	/* A stop and start in between: no pair, and the start is gone. */
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, 0xb0, 2, by), 0ULL);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), 0U);

	for (i = 1; i <= 200; i++) {
		r = kstats_req_start(t, i * 8, i, 1, by);
		kept += r == KSTATS_REQ_NEW;
		full += r == KSTATS_REQ_FULL;
	}
	KUNIT_EXPECT_EQ(test, kept + full, 200U);
	KUNIT_EXPECT_LE(test, kept, 64U);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), kept);
	/* Nothing is old yet. */
	KUNIT_EXPECT_EQ(test, kstats_req_expire(t), 0U);
	for (i = 1; i <= 200; i++)
		kept -= kstats_req_take(t, i * 8, 1, by) == i;
	KUNIT_EXPECT_EQ(test, kept, 0U);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), 0U);
	kstats_req_table_free(t);
}

/*
 * key argN: three keys of one home take its first three probes; with the
 * first one's slot freed, the third is still found past it, by a restart
 * and by its end, and the second by its end.
 */
static void kt_req_reach(struct kunit *test)
{
	struct kstats_req_table *t = kstats_req_table_alloc(64, 1);
	u64 k[3], key, by[2] = {};
	unsigned int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (key = 1; n < ARRAY_SIZE(k); key++)
		if (hash_64(key, 6) == hash_64(1, 6))
			k[n++] = key;
	for (n = 0; n < ARRAY_SIZE(k); n++)
		KUNIT_EXPECT_EQ(test, kstats_req_start(t, k[n], 10 + n, 1, by),
				KSTATS_REQ_NEW);
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, k[0], 1, by), 10ULL);
	KUNIT_EXPECT_EQ(test, kstats_req_start(t, k[2], 20, 1, by),
			KSTATS_REQ_RESTARTED);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), 2U);
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, k[2], 1, by), 20ULL);
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, k[1], 1, by), 11ULL);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), 0U);
	kstats_req_table_free(t);
}

/*
 * key argN: starts older than the expiry go, in a sweep or in the slot of
 * a start that finds its slots full.
 */
static void kt_req_expire(struct kunit *test)
{
	struct kstats_req_table *t = kstats_req_table_alloc(64, 1);
	unsigned int i, full_key = 0, kept = 0;
	enum kstats_req_start r;
	u64 by[2] = {};

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 1; i <= 200; i++) {
		r = kstats_req_start(t, i * 8, i, 1, by);
		kept += r == KSTATS_REQ_NEW;
		if (r == KSTATS_REQ_FULL && !full_key)
			full_key = i * 8;
	}
	KUNIT_ASSERT_NE(test, full_key, 0U);
	/* At least the expiry (time_after(): one jiffy more) passes. */
	schedule_timeout_uninterruptible(HZ + 2);
	/* Its slots are all old now: it takes one. */
	KUNIT_EXPECT_EQ(test, kstats_req_start(t, full_key, 7, 1, by),
			KSTATS_REQ_REPLACED);
	KUNIT_EXPECT_EQ(test, kstats_req_expire(t), kept - 1);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), 1U);
	KUNIT_EXPECT_EQ(test, kstats_req_take(t, full_key, 1, by), 7ULL);
	kstats_req_table_free(t);
}

KUNIT_DEFINE_ACTION_WRAPPER(kt_req_free_action, kstats_req_table_free,
			    struct kstats_req_table *);

#define KT_REQ_KEY	0x5eedULL
#define KT_REQ_RUNS	100000

/* A worker's starts of KT_REQ_KEY, with preemption off as in a probe. */
static void kt_req_starts(struct kt_worker *w)
{
	u64 by[2] = { w->cpu, 0 };
	unsigned int i;

	for (i = 1; i <= KT_REQ_RUNS; i++) {
		by[1] = i;
		preempt_disable();
		kstats_req_start(w->arg, KT_REQ_KEY, i, 1, by);
		w->wrong_cpu |= raw_smp_processor_id() != w->cpu;
		preempt_enable();
	}
}

/* A worker's ends of KT_REQ_KEY. */
static void kt_req_takes(struct kt_worker *w)
{
	unsigned int i;
	u64 by[2];

	for (i = 0; i < KT_REQ_RUNS; i++) {
		preempt_disable();
		kstats_req_take(w->arg, KT_REQ_KEY, 1, by);
		w->wrong_cpu |= raw_smp_processor_id() != w->cpu;
		preempt_enable();
	}
}

/*
 * key argN: starts of one key on two CPUs at once leave it pending once,
 * not twice (the second copy would pair with a later end), also while
 * ends take it meanwhile.
 */
static void kt_req_concurrent(struct kunit *test)
{
	struct kstats_req_table *t;
	unsigned int c0, c1, i;
	struct kt_worker *w;
	u64 by[2] = {};

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	c0 = cpumask_first(cpu_online_mask);
	c1 = cpumask_next(c0, cpu_online_mask);
	w = kunit_kcalloc(test, 3, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* Nothing expires during the test. */
	t = kstats_req_table_alloc(64, KSTATS_REQ_EXPIRE_MAX);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, kt_req_free_action, t));
	for (i = 0; i < 3; i++) {
		w[i].cpu = i == 1 ? c1 : c0;
		w[i].fn = i < 2 ? kt_req_starts : kt_req_takes;
		w[i].arg = t;
	}

	kt_run_workers(test, w, 2);
	KUNIT_EXPECT_EQ(test, kstats_req_pending_key(t, KT_REQ_KEY), 1U);
	KUNIT_EXPECT_NE(test, kstats_req_take(t, KT_REQ_KEY, 1, by), 0ULL);
	KUNIT_EXPECT_EQ(test, kstats_req_pending(t), 0U);

	/* The same with a third worker ending it meanwhile. */
	kt_run_workers(test, w, 3);
	KUNIT_EXPECT_LE(test, kstats_req_pending_key(t, KT_REQ_KEY), 1U);
	preempt_disable();
	kstats_req_start(t, KT_REQ_KEY, 1, 1, by);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kstats_req_pending_key(t, KT_REQ_KEY), 1U);
}

/* Counts of calls in flight, and what happens during a grace period. */
struct kt_reap {
	long count[4];
	int graces;
	int returns_in_grace;	/* this slot's last call returns in it */
};

static long kt_reap_in_flight(unsigned int slot, void *arg)
{
	return ((struct kt_reap *)arg)->count[slot];
}

static void kt_reap_grace(void *arg)
{
	struct kt_reap *r = arg;

	r->graces++;
	if (r->returns_in_grace >= 0)
		r->count[r->returns_in_grace] = 0;
	r->returns_in_grace = -1;
}

static const struct kstats_tramp_reap_ops kt_reap_ops = {
	.in_flight = kt_reap_in_flight,
	.grace = kt_reap_grace,
};

/*
 * Draining trampoline slots: freed only if they read 0 before the grace
 * period. Slot 1's last call returns during the grace period that slot
 * 0's 0 asked for: its task may be preempted on the trampoline's last
 * instructions after that grace period began, so slot 1 waits for the
 * next pass. (The first version waited for one grace period at the first
 * 0 it read and freed every later 0 after it: slots 0 and 1 here.)
 */
static void kt_tramp_reap(struct kunit *test)
{
	struct kt_reap r = { .count = { 0, 1, 2, 0 }, .returns_in_grace = 1 };
	bool busy;

	/* Slot 3 is not draining: never read, never freed. */
	KUNIT_EXPECT_EQ(test, kstats_tramp_reapable(0x7, &kt_reap_ops, &r,
						    &busy), 0x1UL);
	KUNIT_EXPECT_TRUE(test, busy);
	KUNIT_EXPECT_EQ(test, r.graces, 1);
	/* Next pass: slot 1 read 0 before its own grace period. */
	KUNIT_EXPECT_EQ(test, kstats_tramp_reapable(0x6, &kt_reap_ops, &r,
						    &busy), 0x2UL);
	KUNIT_EXPECT_TRUE(test, busy);
	KUNIT_EXPECT_EQ(test, r.graces, 2);
	/* No slot at 0: no grace period to wait for. */
	KUNIT_EXPECT_EQ(test, kstats_tramp_reapable(0x4, &kt_reap_ops, &r,
						    &busy), 0UL);
	KUNIT_EXPECT_TRUE(test, busy);
	KUNIT_EXPECT_EQ(test, r.graces, 2);
	r.count[2] = 0;
	KUNIT_EXPECT_EQ(test, kstats_tramp_reapable(0x4, &kt_reap_ops, &r,
						    &busy), 0x4UL);
	KUNIT_EXPECT_FALSE(test, busy);
	KUNIT_EXPECT_EQ(test, r.graces, 3);
}

/*
 * @p with a store of @n outliers per CPU, and room for a copy of them all
 * (@room of them); kstats_outliers_free(@p) at the end.
 */
static struct kstats_outlier *kt_outliers_new(struct kunit *test,
					      struct kstats_probe *p,
					      unsigned int n, unsigned int *room)
{
	struct kstats_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	struct kstats_outlier *o;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	cmd->outliers = n;
	KUNIT_ASSERT_EQ(test, kstats_outliers_setup(p, cmd), 0);
	*room = n * num_possible_cpus();
	o = kunit_kcalloc(test, *room, sizeof(*o), GFP_KERNEL);
	if (!o)
		kstats_outliers_free(p);
	KUNIT_ASSERT_NOT_NULL(test, o);
	return o;
}

/*
 * outliers N: a CPU's store keeps its N largest, largest first when
 * copied, also before it is full; a reset empties it.
 */
static void kt_outliers_store(struct kunit *test)
{
	static const u64 in[] = { 5, 1, 9, 3, 7 };
	struct kstats_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct kstats_outlier *o;
	unsigned int i, room;

	KUNIT_ASSERT_NOT_NULL(test, p);
	o = kt_outliers_new(test, p, 3, &room);
	/* On one CPU: the stores are per CPU. */
	preempt_disable();
	kstats_outliers_add(p, in[0], 0, 0);
	kstats_outliers_add(p, in[1], 0, 0);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kstats_outliers_copy(p->outliers, o, room), 2);
	KUNIT_EXPECT_EQ(test, o[0].value, 5ULL);
	KUNIT_EXPECT_EQ(test, o[1].value, 1ULL);
	KUNIT_EXPECT_EQ(test, o[0].pid, task_tgid_nr(current));
	preempt_disable();
	for (i = 2; i < ARRAY_SIZE(in); i++)
		kstats_outliers_add(p, in[i], 0, 0);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kstats_outliers_copy(p->outliers, o, room), 3);
	KUNIT_EXPECT_EQ(test, o[0].value, 9ULL);
	KUNIT_EXPECT_EQ(test, o[1].value, 7ULL);
	KUNIT_EXPECT_EQ(test, o[2].value, 5ULL);
	KUNIT_EXPECT_GT(test, o[0].nr_stack, 0U);
	kstats_outliers_reset(p->outliers);
	KUNIT_EXPECT_EQ(test, kstats_outliers_copy(p->outliers, o, room), 0);
	kstats_outliers_free(p);
}

/* A hit whose hook says where FUNC returns to: this function's caller. */
static noinline void kt_outlier_returning(struct kstats_probe *p, u64 val,
					  unsigned long *to)
{
	*to = (unsigned long)__builtin_return_address(0);
	kstats_outliers_add(p, val, 0, *to);
	barrier();
}

/*
 * The stack of an outlier whose hook knows the address FUNC returns to
 * (kretprobe, fprobe) starts there, the frames above it left out; one
 * whose hook does not starts where the hit was.
 */
static void kt_outliers_stack_to(struct kunit *test)
{
	struct kstats_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned long to = 0;
	struct kstats_outlier *o;
	unsigned int room;

	KUNIT_ASSERT_NOT_NULL(test, p);
	o = kt_outliers_new(test, p, 2, &room);
	preempt_disable();
	kt_outlier_returning(p, 20, &to);
	kstats_outliers_add(p, 10, 0, 0);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kstats_outliers_copy(p->outliers, o, room), 2);
	KUNIT_EXPECT_EQ(test, o[0].value, 20ULL);
	KUNIT_EXPECT_GT(test, o[0].nr_stack, 0U);
	KUNIT_EXPECT_EQ(test, o[0].stack[0], to);
	/* The whole stack: this function's frame below the hit's. */
	KUNIT_EXPECT_GT(test, o[1].nr_stack, 1U);
	KUNIT_EXPECT_NE(test, o[1].stack[0], to);
	kstats_outliers_free(p);
}

#ifdef KSTATS_HAVE_STACK_MEMO
/* A walk from one place of this stack whichever call site it came by. */
static noinline unsigned int kt_memo_site(struct kstats_stack_memos __percpu *m,
					  unsigned long *ip)
{
	unsigned int n = kstats_stack_save_memo(m, ip, KSTATS_STACK_WALK);

	barrier();	/* a frame of its own: no tail call */
	return n;
}

/* The same walk as the kernel's, from another function. */
static noinline unsigned int kt_trace_site(unsigned long *ip)
{
	unsigned int n = stack_trace_save(ip, KSTATS_STACK_WALK, 0);

	barrier();
	return n;
}

/* A walk from a function that keeps a frame pointer. */
static noinline unsigned int kt_memo_fp(struct kstats_stack_memos __percpu *m,
					unsigned long *ip)
{
	void *fp = __builtin_frame_address(0);
	unsigned int n;

	OPTIMIZER_HIDE_VAR(fp);
	n = kstats_stack_save_memo(m, ip, KSTATS_STACK_WALK);
	barrier();
	return n;
}

/*
 * Through a frame that allocates on the stack, which ORC finds through its
 * frame pointer: its size is not its return address's. Under it, a
 * function that keeps a frame pointer (@fp), or kt_memo_site().
 */
static noinline unsigned int kt_memo_alloca(struct kstats_stack_memos __percpu *m,
					    unsigned long *ip, size_t bytes,
					    bool fp)
{
	u8 *buf = __builtin_alloca(bytes);
	unsigned int n;

	OPTIMIZER_HIDE_VAR(buf);
	n = fp ? kt_memo_fp(m, ip) : kt_memo_site(m, ip);
	barrier_data(buf);
	return n;
}

/*
 * by stack's memos: a second walk from a call site is remembered and
 * gives the frames of the first, which are the kernel's walk's; a walk
 * from the same place of the stack by another call site (one frame
 * differs) is not taken for it.
 */
static void kt_stack_memo(struct kunit *test)
{
	struct kstats_stack_memos __percpu *m = kstats_stack_memo_alloc();
	unsigned long a[2][KSTATS_STACK_WALK], b[KSTATS_STACK_WALK];
	unsigned long t[KSTATS_STACK_WALK];
	unsigned int na[2], nb, nt, kept[3], i, two = 2;
	unsigned long hits[3];
	bool fixed;

	KUNIT_ASSERT_TRUE(test, m);
	/* One call site for the walks of a loop: no unrolling. */
	OPTIMIZER_HIDE_VAR(two);
	/* One CPU's memos. */
	preempt_disable();
	for (i = 0; i < two; i++) {
		na[i] = kt_memo_site(m, a[i]);
		kept[i] = kstats_stack_memo_kept(m, &hits[i], &fixed);
	}
	nb = kt_memo_site(m, b);
	kept[2] = kstats_stack_memo_kept(m, &hits[2], &fixed);
	nt = kt_trace_site(t);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kept[0], 1U);
	KUNIT_EXPECT_EQ(test, hits[0], 0UL);
	KUNIT_EXPECT_EQ(test, kept[1], 1U);
	KUNIT_EXPECT_EQ(test, hits[1], 1UL);
	/* Another walk: the site's is kept too. */
	KUNIT_EXPECT_EQ(test, kept[2], 2U);
	KUNIT_EXPECT_EQ(test, hits[2], 1UL);
	KUNIT_ASSERT_GT(test, na[0], 2U);
	KUNIT_EXPECT_EQ(test, na[1], na[0]);
	KUNIT_EXPECT_EQ(test, memcmp(a[1], a[0], na[0] * sizeof(a[0][0])), 0);
	/* Into kt_memo_site() alike, then into this function at another call. */
	KUNIT_ASSERT_EQ(test, nb, na[0]);
	KUNIT_EXPECT_EQ(test, b[0], a[0][0]);
	KUNIT_EXPECT_NE(test, b[1], a[0][1]);
	KUNIT_EXPECT_EQ(test, memcmp(b + 2, a[0] + 2,
				     (nb - 2) * sizeof(b[0])), 0);
	KUNIT_ASSERT_EQ(test, nt, na[0]);
	KUNIT_EXPECT_EQ(test, memcmp(t + 2, a[0] + 2,
				     (nt - 2) * sizeof(t[0])), 0);
	kstats_stack_memo_free(m);
}

/*
 * A walk through a frame that allocates on the stack (its frames move with
 * its size): taken where the chain of frame pointers places the frames
 * above it, else where they are where they were only.
 */
static void kt_stack_memo_moved(struct kunit *test)
{
	unsigned long c[3][KSTATS_STACK_WALK], hits[3];
	unsigned int nc[3], kept[3], i, fp, three = 3;
	struct kstats_stack_memos __percpu *m;
	bool fixed[3];

	OPTIMIZER_HIDE_VAR(three);
	for (fp = 0; fp < 2; fp++) {
		m = kstats_stack_memo_alloc();
		KUNIT_ASSERT_TRUE(test, m);
		/* 16 bytes, then 64 twice: the frames above it move, once. */
		preempt_disable();
		for (i = 0; i < three; i++) {
			nc[i] = kt_memo_alloca(m, c[i], i ? 64 : 16, fp);
			kept[i] = kstats_stack_memo_kept(m, &hits[i], &fixed[i]);
		}
		preempt_enable();
		kstats_stack_memo_free(m);
		KUNIT_EXPECT_EQ(test, kept[0], 1U);
		KUNIT_EXPECT_EQ(test, kept[2], fixed[0] ? 2U : 1U);
		KUNIT_EXPECT_EQ(test, hits[0], 0UL);
		KUNIT_EXPECT_EQ(test, hits[2] - hits[1], 1UL);
		/*
		 * Moved: taken through the chain, unless a frame on the way
		 * (kt_memo_alloca()'s under kt_memo_site(), or one of the
		 * many that KASAN realigns) is found by a pointer that its
		 * callee did not save under its return address.
		 */
		KUNIT_EXPECT_EQ(test, hits[1], fixed[0] ? 0UL : 1UL);
		kunit_info(test, "under a frame pointer %u: moved walk %s\n",
			   fp, fixed[0] ? "from its place only" : "taken");
		KUNIT_ASSERT_GT(test, nc[0], 3U);
		for (i = 1; i < 3; i++) {
			KUNIT_ASSERT_EQ(test, nc[i], nc[0]);
			KUNIT_EXPECT_EQ(test, memcmp(c[i], c[0],
						     nc[0] * sizeof(c[0][0])), 0);
		}
		/* Into the function under it, then kt_memo_alloca(). */
		KUNIT_EXPECT_LT(test, c[0][0] - (fp ? (unsigned long)kt_memo_fp :
					       (unsigned long)kt_memo_site),
				256UL);
		KUNIT_EXPECT_LT(test, c[0][1] - (unsigned long)kt_memo_alloca,
				256UL);
	}
}
#endif

/* by retval: the key of a sample, its count, summed over all CPUs. */
static u64 kt_key_count(struct kstats_keys *t, u64 key)
{
	unsigned int i;

	for (i = 0; i < kstats_keys_size(t); i++)
		if (kstats_keys_hist(t, i) && t->pos[i].k[0] == key)
			return kt_total_count(kstats_keys_hist(t, i));
	return 0;
}

static void kt_keys_sample(struct kstats_probe *p, u64 key, unsigned int n)
{
	while (n--)
		kstats_probe_record_ret(p, 100, key);
}

/* The samples that the file of entry @name shows: its totals lines. */
static u64 kt_file_total(struct kunit *test, const char *name)
{
	char *text = kt_read(test, name), *line;
	unsigned long long count;
	unsigned int slot, cpus;
	u64 total = 0;

	while ((line = strsep(&text, "\n")))
		if (sscanf(line, "slot %u CPUS %u count %llu", &slot, &cpus,
			   &count) == 3)
			total += count;
	return total;
}

/*
 * keys 4 (8 positions): a key at its home position (the inline hit), a
 * key whose home another holds (found past it, out of line), the fifth
 * key into other; the entry's file shows them all; a reset forgets them.
 */
/*
 * A "value retval by retval keys @keys" entry @name, made by @cmd (which
 * the caller may add options to first), with its keys table.
 */
static struct kstats_probe *kt_retval_keys(struct kunit *test,
					   struct kstats_cmd *cmd,
					   const char *name, unsigned int keys)
{
	struct kstats_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	cmd->op = KSTATS_CMD_TRACE;
	cmd->by = KSTATS_BY_RETVAL;
	cmd->keys = keys;
	strscpy(cmd->name, name, sizeof(cmd->name));
	p->value = KSTATS_VALUE_RETVAL;
	p->vbits = 64;
	p->ks = kt_new(test, cmd->name, 0);
	KUNIT_ASSERT_EQ(test, kstats_keys_setup(p, cmd), 0);
	return p;
}

static void kt_keys_table(struct kunit *test)
{
	struct kstats_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	u64 a = 1, b, c, d, e;
	unsigned long dropped = 0;
	struct kstats_probe *p;
	struct kstats_keys *t;
	unsigned int home;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	p = kt_retval_keys(test, cmd, "kt_keys", 4);
	t = p->keys;
	KUNIT_EXPECT_EQ(test, kstats_keys_size(t), 8U);
	home = hash_64(a, 32) & 7;
	for (b = a + 1; (hash_64(b, 32) & 7) != home; b++)
		;
	for (c = b + 1; (hash_64(c, 32) & 7) == home; c++)
		;
	for (d = c + 1; (hash_64(d, 32) & 7) == home; d++)
		;
	e = d + 1;
	kt_keys_sample(p, a, 1);
	kt_keys_sample(p, b, 3);
	kt_keys_sample(p, a, 2);
	kt_keys_sample(p, c, 1);
	kt_keys_sample(p, d, 4);
	kt_keys_sample(p, e, 5);
	kt_keys_sample(p, b, 1);
	KUNIT_EXPECT_EQ(test, t->pos[home].k[0], a);
	KUNIT_EXPECT_EQ(test, kt_key_count(t, a), 3ULL);
	KUNIT_EXPECT_EQ(test, kt_key_count(t, b), 4ULL);
	KUNIT_EXPECT_EQ(test, kt_key_count(t, c), 1ULL);
	KUNIT_EXPECT_EQ(test, kt_key_count(t, d), 4ULL);
	KUNIT_EXPECT_EQ(test, kt_key_count(t, e), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_total_count(kstats_keys_other(t)), 5ULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->nr), 4);
	for_each_possible_cpu(cpu)
		dropped += per_cpu(*t->dropped, cpu);
	KUNIT_EXPECT_EQ(test, dropped, 5UL);
	KUNIT_EXPECT_EQ(test, kt_total_count(p->ks), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_file_total(test, cmd->name), 17ULL);
	kstats_keys_reset(t);
	KUNIT_EXPECT_EQ(test, kt_key_count(t, a), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_total_count(kstats_keys_other(t)), 0ULL);
	KUNIT_EXPECT_EQ(test, kt_file_total(test, cmd->name), 0ULL);
	kt_keys_sample(p, e, 2);
	KUNIT_EXPECT_EQ(test, kt_key_count(t, e), 2ULL);
	KUNIT_EXPECT_EQ(test, kt_file_total(test, cmd->name), 2ULL);
	/* The file goes first: it reads the keys' histograms. */
	kt_delete(test, p->ks);
	kstats_keys_free(p);
}

/* A kthread that resets one store @n times, beside the test's samples. */
struct kt_resetter {
	void (*reset)(void *store);
	void *store;
	unsigned int n;
	struct completion done;
	struct task_struct *task;
};

static int kt_resetter_fn(void *arg)
{
	struct kt_resetter *r = arg;
	unsigned int i;

	for (i = 0; i < r->n; i++)
		r->reset(r->store);
	complete(&r->done);
	return 0;
}

static void kt_reset_keys(void *store)
{
	kstats_keys_reset(store);
}

static void kt_reset_outliers(void *store)
{
	kstats_outliers_reset(store);
}

#define KT_RESETS	40

/*
 * Two kthreads reset @store KT_RESETS times each, at once, while this
 * task records samples of @p with a new key each (a retval key), until
 * both are done.
 */
static void kt_race_resets(struct kunit *test, struct kstats_probe *p,
			   void (*reset)(void *store), void *store)
{
	struct kt_resetter *r = kunit_kcalloc(test, 2, sizeof(*r), GFP_KERNEL);
	unsigned long key = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < 2; i++) {
		r[i].reset = reset;
		r[i].store = store;
		r[i].n = KT_RESETS;
		init_completion(&r[i].done);
		r[i].task = kthread_run(kt_resetter_fn, &r[i], "kstats_reset/%u", i);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r[i].task);
	}
	while (!completion_done(&r[0].done) || !completion_done(&r[1].done)) {
		kstats_probe_record_ret(p, 1000 + key % 1000, key);
		key++;
		if (!(key % 64))
			cond_resched();
	}
	/* They exited by themselves: nothing to stop. */
}

/*
 * An entry of kt_retval_keys() that also keeps its 4 slowest samples per
 * CPU (cmd->outliers); NULL, the test failed, if the outliers are not.
 */
static struct kstats_probe *kt_keys_outliers(struct kunit *test,
					     struct kstats_cmd *cmd,
					     const char *name, unsigned int keys)
{
	struct kstats_probe *p;

	cmd->outliers = 4;
	p = kt_retval_keys(test, cmd, name, keys);
	if (kstats_outliers_setup(p, cmd)) {
		kt_delete(test, p->ks);
		kstats_keys_free(p);
		KUNIT_FAIL(test, "kstats_outliers_setup()");
		return NULL;
	}
	return p;
}

static void kt_keys_outliers_free(struct kunit *test, struct kstats_probe *p)
{
	kt_delete(test, p->ks);
	kstats_outliers_free(p);
	kstats_keys_free(p);
}

/*
 * Two resets of one entry at once (its file's "reset" beside "reset
 * NAME") are one after the other: the keys table ends with no two keys
 * on one histogram, and every outliers store's seqcount even, with
 * every sample gone after one more reset.
 */
static void kt_reset_concurrent(struct kunit *test)
{
	struct kstats_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	unsigned int i, j, room, shared = 0;
	struct kstats_outlier *o;
	struct kstats_probe *p;
	struct kstats_keys *t;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	p = kt_keys_outliers(test, cmd, "kt_reset", 64);
	if (!p)
		return;
	t = p->keys;
	kt_race_resets(test, p, kt_reset_keys, t);
	for (i = 0; i < kstats_keys_size(t); i++)
		for (j = i + 1; j < kstats_keys_size(t); j++)
			if (t->pos[i].hist && t->pos[i].hist == t->pos[j].hist)
				shared++;
	KUNIT_EXPECT_EQ_MSG(test, shared, 0U, "keys on one histogram");

	kt_race_resets(test, p, kt_reset_outliers, p->outliers);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ_MSG(test,
				    raw_read_seqcount(&p->outliers->cpu[cpu]->seq) & 1,
				    0U, "CPU %d's outliers seqcount odd", cpu);
	kstats_outliers_reset(p->outliers);
	room = cmd->outliers * num_possible_cpus();
	o = kunit_kcalloc(test, room, sizeof(*o), GFP_KERNEL);
	if (o)
		KUNIT_EXPECT_EQ(test, kstats_outliers_copy(p->outliers, o, room), 0);
	kt_keys_outliers_free(test, p);
}

/*
 * A reset held inside its critical section (a static stub in place of
 * the clearing that kstats_keys_clear() or kstats_outliers_clear() does),
 * and a second reset of the same store started: it must wait until the
 * first is done. Without the store's resetting mutex it ran inside the
 * first one, whose thaw then let samples in while it cleared (two keys
 * on one histogram; an outliers seqcount left odd, its readers spinning
 * for good). One interleaving, forced, where kt_reset_concurrent can only
 * hope for it.
 */
struct kt_held_reset {
	struct kunit *test;
	void (*reset)(void *store);
	void *store;
	atomic_t inside;		/* resets that reached the clearing */
	struct completion first_in, go, done[2];
};

static struct kt_held_reset *kt_held;

/* The stub: count the reset in; hold the first until the test says go. */
static void kt_hold_inside(void)
{
	if (atomic_inc_return(&kt_held->inside) == 1) {
		complete(&kt_held->first_in);
		wait_for_completion(&kt_held->go);
	}
}

static void kt_keys_clear_held(struct kstats_keys *t)
{
	kt_hold_inside();
}

static void kt_outliers_clear_held(struct kstats_outliers *t)
{
	kt_hold_inside();
}

static int kt_held_reset_fn(void *arg)
{
	struct completion *done = arg;

	/* Static stubs apply to the test's tasks: this is one. */
	current->kunit_test = kt_held->test;
	kt_held->reset(kt_held->store);
	current->kunit_test = NULL;
	complete(done);
	return 0;
}

static void kt_reset_held(struct kunit *test, void (*reset)(void *store),
			  void *store)
{
	struct kt_held_reset *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct task_struct *task;
	unsigned int i, ms;

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->test = test;
	h->reset = reset;
	h->store = store;
	atomic_set(&h->inside, 0);
	init_completion(&h->first_in);
	init_completion(&h->go);
	for (i = 0; i < 2; i++)
		init_completion(&h->done[i]);
	kt_held = h;
	task = kthread_run(kt_held_reset_fn, &h->done[0], "kstats_reset/a");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	if (!wait_for_completion_timeout(&h->first_in, 30 * HZ)) {
		complete(&h->go);
		KUNIT_FAIL(test, "the first reset never reached the clearing");
		wait_for_completion(&h->done[0]);
		return;
	}
	task = kthread_run(kt_held_reset_fn, &h->done[1], "kstats_reset/b");
	if (IS_ERR(task)) {
		complete(&h->go);
		wait_for_completion(&h->done[0]);
		KUNIT_FAIL(test, "kthread_run(): %ld", PTR_ERR(task));
		return;
	}
	/* Time for the second to get inside, were it let in (a grace period). */
	for (ms = 0; ms < 2000 && atomic_read(&h->inside) < 2; ms += 20)
		msleep(20);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&h->inside), 1,
			    "a second reset cleared inside the first");
	KUNIT_EXPECT_FALSE(test, completion_done(&h->done[1]));
	complete(&h->go);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&h->done[i], 30 * HZ));
	KUNIT_EXPECT_EQ(test, atomic_read(&h->inside), 2);
}

static void kt_reset_exclusive(struct kunit *test)
{
	struct kstats_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	struct kstats_probe *p;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	p = kt_keys_outliers(test, cmd, "kt_excl", 8);
	if (!p)
		return;
	kunit_activate_static_stub(test, kstats_keys_clear, kt_keys_clear_held);
	kt_reset_held(test, kt_reset_keys, p->keys);
	kunit_deactivate_static_stub(test, kstats_keys_clear);
	kunit_activate_static_stub(test, kstats_outliers_clear, kt_outliers_clear_held);
	kt_reset_held(test, kt_reset_outliers, p->outliers);
	kunit_deactivate_static_stub(test, kstats_outliers_clear);
	kt_keys_outliers_free(test, p);
}

/*
 * A table recorded into with preemption on (a lean direct entry's keys,
 * kstats_keys_lean()): a task preempted between its test of the shape
 * and its sample holds a reset back until it is done, so that its sample
 * lands before the clearing, never in a histogram that a new key then
 * takes. The task here spins, preemptible and never asleep; on a
 * preemptible kernel synchronize_rcu() alone let the reset clear under it.
 */
struct kt_preempted {
	struct kstats_keys *t;
	u8 shape;
	atomic_t stage;			/* 1: past the test; 2: go on */
	struct completion done, reset_done;
};

static int kt_preempted_fn(void *arg)
{
	struct kt_preempted *w = arg;

	/* As kstats_direct_end_shaped() reads it: see kstats_keys_reset(). */
	if (smp_load_acquire(&w->shape) != KSTATS_SHAPE_KEYS_FROZEN) {
		atomic_set(&w->stage, 1);
		while (atomic_read(&w->stage) != 2)
			cpu_relax();
		kstats_keys_record_miss(w->t, 100, 7, 0, kstats_key_hash(7, 0));
	}
	complete(&w->done);
	return 0;
}

static int kt_preempted_reset_fn(void *arg)
{
	struct kt_preempted *w = arg;

	kstats_keys_reset(w->t);
	complete(&w->reset_done);
	return 0;
}

static void kt_keys_reset_preempted(struct kunit *test)
{
	struct kstats_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	struct kt_preempted *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *task;
	struct kstats_probe *p;
	unsigned long done;
	unsigned int ms;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, w);
	if (!preempt_model_preemptible())
		kunit_skip(test, "the kernel does not preempt tasks in the kernel");
	p = kt_retval_keys(test, cmd, "kt_preempted", 4);
	w->t = p->keys;
	w->shape = KSTATS_SHAPE_COMM;
	kstats_keys_lean(w->t, &w->shape, KSTATS_SHAPE_KEYS_FROZEN);
	atomic_set(&w->stage, 0);
	init_completion(&w->done);
	init_completion(&w->reset_done);
	task = kthread_run(kt_preempted_fn, w, "kstats_preempted");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	for (ms = 0; ms < 30000 && !atomic_read(&w->stage); ms += 20)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->stage), 1);
	task = kthread_run(kt_preempted_reset_fn, w, "kstats_reset");
	if (IS_ERR(task)) {
		KUNIT_FAIL(test, "kthread_run(): %ld", PTR_ERR(task));
		complete(&w->reset_done);
	}
	/* A grace period of RCU's, many times over, under TCG. */
	done = wait_for_completion_timeout(&w->reset_done, HZ);
	KUNIT_EXPECT_EQ_MSG(test, done, 0UL, "the reset cleared with a task inside");
	atomic_set(&w->stage, 2);
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&w->done, 30 * HZ));
	if (!done)
		KUNIT_EXPECT_TRUE(test,
				  wait_for_completion_timeout(&w->reset_done, 30 * HZ));
	/* Its sample came before the clearing: no key is left. */
	KUNIT_EXPECT_EQ(test, atomic_read(&p->keys->nr), 0);
	KUNIT_EXPECT_EQ(test, kt_key_count(p->keys, 7), 0ULL);
	KUNIT_EXPECT_EQ(test, w->shape, KSTATS_SHAPE_COMM);
	kt_delete(test, p->ks);
	kstats_keys_free(p);
}

static struct kunit_case kstats_test_cases[] = {
	KUNIT_CASE_PARAM(kt_slot_exact, kt_frac_gen_params),
	KUNIT_CASE_PARAM(kt_slot_monotonic, kt_frac_gen_params),
	KUNIT_CASE_PARAM(kt_slot_edges, kt_frac_gen_params),
	KUNIT_CASE_PARAM(kt_slot_linear, kt_frac_gen_params),
	KUNIT_CASE_PARAM(kt_mean_every_slot, kt_frac_gen_params),
	KUNIT_CASE_PARAM(kt_mean_huge, kt_frac_gen_params),
	KUNIT_CASE_PARAM(kt_mean_clamp, kt_frac_gen_params),
	KUNIT_CASE(kt_percpu),
	KUNIT_CASE(kt_start_stop_reset),
	KUNIT_CASE(kt_file_text),
	KUNIT_CASE(kt_file_commands),
	KUNIT_CASE(kt_bad_names),
	KUNIT_CASE(kt_good_names),
	KUNIT_CASE(kt_bad_bits),
	KUNIT_CASE(kt_duplicate),
	KUNIT_CASE(kt_delete_cases),
	KUNIT_CASE(kt_control),
	KUNIT_CASE(kt_file_nul),
	KUNIT_CASE(kt_gap_step),
	KUNIT_CASE_PARAM(kt_slot_limits, kt_frac_gen_params),
	KUNIT_CASE(kt_tsc_scale),
	KUNIT_CASE(kt_task_idle_homes),
	KUNIT_CASE(kt_req_pairs),
	KUNIT_CASE(kt_req_reach),
	KUNIT_CASE(kt_req_expire),
	KUNIT_CASE(kt_req_concurrent),
	KUNIT_CASE(kt_outliers_store),
	KUNIT_CASE(kt_keys_table),
	KUNIT_CASE(kt_reset_concurrent),
	KUNIT_CASE(kt_reset_exclusive),
	KUNIT_CASE(kt_keys_reset_preempted),
	KUNIT_CASE(kt_outliers_stack_to),
#ifdef KSTATS_HAVE_STACK_MEMO
	KUNIT_CASE(kt_stack_memo),
	KUNIT_CASE(kt_stack_memo_moved),
#endif
	KUNIT_CASE(kt_tramp_reap),
	{}
};

/* test->priv caches the user buffer; it is not reset between parameters. */
static int kt_init(struct kunit *test)
{
	test->priv = NULL;
	return 0;
}

static struct kunit_suite kstats_test_suite = {
	.name = "kstats",
	.init = kt_init,
	.test_cases = kstats_test_cases,
};

/* ---------------------------------------------------------------------- */
/* The _control parser                                                    */
/* ---------------------------------------------------------------------- */

/*
 * One line and what kstats_parse() makes of it. For errors only @err
 * counts; targets are written as in the grammar, offsets in decimal.
 */
struct kt_parse_case {
	const char *line;
	int err;
	enum kstats_cmd_op op;
	const char *name;
	u8 bits;
	enum kstats_cmd_via via;
	enum kstats_cmd_key key;
	const char *start;
	const char *end;
	unsigned int slots;
	unsigned int samples;
	enum kstats_cmd_clock clock;
	struct kstats_filter filter;
	enum kstats_cmd_value value;
	unsigned int arg;
	u8 vbytes;
	bool vsigned;
	enum kstats_cmd_counter counter;
	const char *cgroup;	/* the PATH of "cgroup PATH"; NULL: "" */
	enum kstats_cmd_by by;
	unsigned int by_arg;
	const char *by_path;		/* by argN's field path; NULL: "" */
	unsigned int by_site;		/* where by argN|stack is read */
	unsigned int keys;
	unsigned int key_arg;		/* the start's; the end's too ... */
	unsigned int end_key_arg;	/* ... unless this is set */
	const char *kpath;		/* the start's key field path */
	const char *end_kpath;		/* the end's, if not the start's */
	unsigned int more[KSTATS_MORE_STARTS];	/* the other starts' keys */
	unsigned int nr_more;		/* other starts: c, d, e in order */
	struct kstats_cmd_side cond[KSTATS_PAIR_SITES];	/* "if" only */
	unsigned int expire;
	unsigned int outliers;
};

#define KT_OK(l, o, n, b, v, k, s, e)					\
	{ .line = l, .op = KSTATS_CMD_##o, .name = n, .bits = b,	\
	  .via = KSTATS_VIA_##v, .key = KSTATS_KEY_##k, .start = s, .end = e }
#define KT_SLOTS(l, n)							\
	{ .line = l, .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4, \
	  .key = KSTATS_KEY_TASK, .start = "a", .end = "b", .slots = n }
#define KT_CAL(l, n)							\
	{ .line = l, .op = KSTATS_CMD_CALIBRATE, .name = "", .bits = 4,	\
	  .start = "", .end = "", .samples = n }
#define KT_BAD(l)	{ .line = l, .err = -EINVAL }
/* trace f with filters: flags (P pid, T tid, C comm, U cpu) and values */
#define KT_FILTER(l, fl, p, t, c, u)					\
	{ .line = l, .op = KSTATS_CMD_TRACE, .name = "f", .bits = 4,	\
	  .start = "f", .end = "", .filter = { .flags = fl, .pid = p,	\
	  .tid = t, .cpu = u, .comm = c } }
#define KT_P	KSTATS_FILTER_PID
#define KT_T	KSTATS_FILTER_TID
#define KT_C	KSTATS_FILTER_COMM
#define KT_U	KSTATS_FILTER_CPU
#define KT_G	KSTATS_FILTER_CGROUP
/* trace f value ...: what is sampled */
#define KT_VALUE(l, n, val, a)						\
	{ .line = l, .op = KSTATS_CMD_TRACE, .name = n, .bits = 4,	\
	  .start = "f", .end = "", .value = KSTATS_VALUE_##val, .arg = a }

/* trace NAME gap X */
#define KT_GAP(l, n, b, x)						\
	{ .line = l, .op = KSTATS_CMD_TRACE_GAP, .name = n, .bits = b,	\
	  .start = x, .end = "" }

/* A long valid command: 28 words, options, filters and keys. */
#define KT_ALLOPTS	"trace l start a end b bits 1 key task slots 64 clock mono"
#define KT_ALL		KT_ALLOPTS " pid 1 tid 2 comm c cpu 3 cgroup 5 by pid keys 9"
/* The longest: 34 words (by is refused later, not by the grammar) */
#define KT_ALLARG	"trace l start a end b bits 1 key arg1 slots 64 expire 9 " \
			"type u64 clock mono pid 1 tid 2 comm c cpu 3 cgroup 5 by pid keys 9 " \
			"outliers 256"

#define KT_NAME63	"f23456789012345678901234567890123456789012345678901234567890123"
#define KT_SYM127	KT_NAME63 KT_NAME63 "x"

static const struct kt_parse_case kt_parse_cases[] = {
	/* trace FUNC */
	KT_OK("trace vfs_read", TRACE, "vfs_read", 4, AUTO, CPU, "vfs_read", ""),
	KT_OK("trace vfs_read\n", TRACE, "vfs_read", 4, AUTO, CPU, "vfs_read", ""),
	KT_OK(" \tTRACE  vfs_read\tbits 0\n", TRACE, "vfs_read", 0, AUTO, CPU,
	      "vfs_read", ""),
	KT_OK("remove x \t", REMOVE, "x", 4, AUTO, CPU, "", ""),
	KT_OK("trace vfs_read bits 5 via kretprobe", TRACE, "vfs_read", 5,
	      KRETPROBE, CPU, "vfs_read", ""),
	KT_OK("Trace vfs_read VIA FProbe Bits 03", TRACE, "vfs_read", 3,
	      FPROBE, CPU, "vfs_read", ""),
	KT_OK("trace vfs_read via Direct", TRACE, "vfs_read", 4, DIRECT, CPU,
	      "vfs_read", ""),
	KT_OK("trace foo.isra.0", TRACE, "foo.isra.0", 4, AUTO, CPU,
	      "foo.isra.0", ""),
	KT_OK("trace " KT_NAME63, TRACE, KT_NAME63, 4, AUTO, CPU, KT_NAME63, ""),
	/* as NAME: for functions that are no entry name, or to rename */
	KT_OK("trace __x64_sys_read as sys_read", TRACE, "sys_read", 4, AUTO,
	      CPU, "__x64_sys_read", ""),
	KT_OK("trace vfs_read AS r bits 2 via fprobe", TRACE, "r", 2, FPROBE,
	      CPU, "vfs_read", ""),
	KT_OK("trace pcpu:_raw_spin_lock as lock", TRACE_PCPU, "lock", 4, AUTO,
	      CPU, "_raw_spin_lock", ""),
	KT_OK("trace " KT_SYM127 " as long", TRACE, "long", 4, AUTO, CPU,
	      KT_SYM127, ""),
	/* trace pcpu:FUNC: the entry is called FUNC */
	KT_OK("trace pcpu:vfs_read", TRACE_PCPU, "vfs_read", 4, AUTO, CPU,
	      "vfs_read", ""),
	KT_OK("trace PCPU:vfs_read bits 2", TRACE_PCPU, "vfs_read", 2, AUTO,
	      CPU, "vfs_read", ""),
	/* trace PATH:SYMBOL, PATH:0xOFFSET: a function of a file */
	KT_OK("trace /usr/bin/ls:main", TRACE_USER, "main", 4, AUTO, CPU,
	      "main", ""),
	KT_OK("trace /lib/x86_64-linux-gnu/libc.so.6:malloc as m bits 2",
	      TRACE_USER, "m", 2, AUTO, CPU, "malloc", ""),
	KT_OK("trace /a:b:c", TRACE_USER, "c", 4, AUTO, CPU, "c", ""),
	KT_OK("trace /a:0x1F0 as off", TRACE_USER, "off", 4, AUTO, CPU, "", ""),
	/* A user function's registers, typed by "type": no BTF for them */
	{ .line = "trace /a:b by arg1 type u64", .op = KSTATS_CMD_TRACE_USER,
	  .name = "b", .bits = 4, .start = "b", .end = "", .vbytes = 8,
	  .by = KSTATS_BY_ARG, .by_arg = 1 },
	{ .line = "trace /a:b by retval type s32", .op = KSTATS_CMD_TRACE_USER,
	  .name = "b", .bits = 4, .start = "b", .end = "", .vbytes = 4,
	  .vsigned = true, .by = KSTATS_BY_RETVAL },
	{ .line = "trace /a:b value arg2 type u32 as v",
	  .op = KSTATS_CMD_TRACE_USER, .name = "v", .bits = 4, .start = "b",
	  .end = "", .value = KSTATS_VALUE_ARG, .arg = 2, .vbytes = 4 },
	{ .line = "trace /a:b outliers 4", .op = KSTATS_CMD_TRACE_USER,
	  .name = "b", .bits = 4, .start = "b", .end = "", .outliers = 4 },
	{ .line = "trace /a:b value retval type s64 by pid",
	  .op = KSTATS_CMD_TRACE_USER, .name = "b", .bits = 4, .start = "b",
	  .end = "", .value = KSTATS_VALUE_RETVAL, .vbytes = 8,
	  .vsigned = true, .by = KSTATS_BY_PID },
	/* trace NAME start X end Y */
	KT_OK("trace lat start a end b", TRACE_PAIR, "lat", 4, AUTO, CPU,
	      "a", "b"),
	KT_OK("trace lat end b start a key task bits 1", TRACE_PAIR, "lat", 1,
	      AUTO, TASK, "a", "b"),
	KT_OK("trace lat start a+16 end b+0x10 key CPU", TRACE_PAIR, "lat", 4,
	      AUTO, CPU, "a+16", "b+16"),
	KT_OK("trace lat start a+0 end b", TRACE_PAIR, "lat", 4, AUTO, CPU,
	      "a", "b"),
	/* Offsets are decimal, or hex after 0x: a leading 0 is not octal. */
	KT_OK("trace lat start a+010 end b+0X1f", TRACE_PAIR, "lat", 4, AUTO,
	      CPU, "a+10", "b+31"),
	KT_OK("trace lat start a+08 end b+00", TRACE_PAIR, "lat", 4, AUTO, CPU,
	      "a+8", "b"),
	KT_OK("trace sys start __tracepoint_sys_enter end __tracepoint_sys_exit key TASK",
	      TRACE_PAIR, "sys", 4, AUTO, TASK, "__tracepoint_sys_enter",
	      "__tracepoint_sys_exit"),
	KT_OK("trace a:b-c.d start x end x", TRACE_PAIR, "a:b-c.d", 4, AUTO,
	      CPU, "x", "x"),
	KT_OK("trace l start __kstats_record end " KT_SYM127, TRACE_PAIR, "l",
	      4, AUTO, CPU, "__kstats_record", KT_SYM127),
	KT_OK("trace l start a end b bits 1 key cpu", TRACE_PAIR, "l", 1, AUTO,
	      CPU, "a", "b"),
	/* slots N: the key task table, rounded up to a power of two later */
	KT_SLOTS("trace l start a end b key task slots 64", 64),
	KT_SLOTS("trace l slots 4194304 key TASK start a end b", 4194304),
	KT_SLOTS("trace l start a end b key task slots 5000", 5000),
	/* clock */
	{ .line = "trace pcpu:f clock LOCAL", .op = KSTATS_CMD_TRACE_PCPU,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .clock = KSTATS_CLOCK_LOCAL },
	{ .line = "trace f clock mono", .op = KSTATS_CMD_TRACE, .name = "f",
	  .bits = 4, .start = "f", .end = "", .clock = KSTATS_CLOCK_MONO },
	{ .line = "trace f clock TSC", .op = KSTATS_CMD_TRACE, .name = "f",
	  .bits = 4, .start = "f", .end = "", .clock = KSTATS_CLOCK_TSC },
	{ .line = "trace l start a end b clock local", .op = KSTATS_CMD_TRACE_PAIR,
	  .name = "l", .bits = 4, .start = "a", .end = "b",
	  .clock = KSTATS_CLOCK_LOCAL },
	{ .line = "trace l start a+1 end b+2 bits 1 key task slots 64 clock mono",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 1,
	  .key = KSTATS_KEY_TASK, .start = "a+1", .end = "b+2", .slots = 64,
	  .clock = KSTATS_CLOCK_MONO },
	/* Filters, in any order and combination, each at most once */
	KT_FILTER("trace f pid 42", KT_P, 42, 0, "", 0),
	KT_FILTER("trace f PID 0 tid 4194304", KT_P | KT_T, 0, 4194304, "", 0),
	KT_FILTER("trace f comm kworker/0:1H", KT_C, 0, 0, "kworker/0:1H", 0),
	KT_FILTER("trace f Comm 0123456789abcde", KT_C, 0, 0, "0123456789abcde", 0),
	KT_FILTER("trace f cpu 1 comm sh", KT_C | KT_U, 0, 0, "sh", 1),
	KT_FILTER("trace f cpu 4096 pid 1 tid 2 comm Sh bits 4",
		  KT_P | KT_T | KT_C | KT_U, 1, 2, "Sh", 4096),
	{ .line = "trace pcpu:f cpu 0", .op = KSTATS_CMD_TRACE_PCPU,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .filter = { .flags = KT_U } },
	/* Long commands: 28 and 34 words */
	{ .line = KT_ALL,
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 1,
	  .key = KSTATS_KEY_TASK, .start = "a", .end = "b", .slots = 64,
	  .clock = KSTATS_CLOCK_MONO, .filter = { .flags = KT_P | KT_T | KT_C |
	  KT_U | KT_G, .pid = 1, .tid = 2, .comm = "c", .cpu = 3,
	  .cgroup_id = 5 }, .by = KSTATS_BY_PID, .keys = 9 },
	{ .line = KT_ALLARG,
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 1,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .expire = 9, .vbytes = 8,
	  .start = "a", .end = "b", .slots = 64, .outliers = 256,
	  .clock = KSTATS_CLOCK_MONO, .filter = { .flags = KT_P | KT_T | KT_C |
	  KT_U | KT_G, .pid = 1, .tid = 2, .comm = "c", .cpu = 3,
	  .cgroup_id = 5 }, .by = KSTATS_BY_PID, .keys = 9 },
	/* outliers N: every form */
	{ .line = "trace f outliers 10", .op = KSTATS_CMD_TRACE, .name = "f",
	  .bits = 4, .start = "f", .end = "", .outliers = 10 },
	{ .line = "trace pcpu:f OUTLIERS 1", .op = KSTATS_CMD_TRACE_PCPU,
	  .name = "f", .bits = 4, .start = "f", .end = "", .outliers = 1 },
	{ .line = "trace g gap f outliers 3", .op = KSTATS_CMD_TRACE_GAP,
	  .name = "g", .bits = 4, .start = "f", .end = "", .outliers = 3 },
	/* key argN: a request's pair, found by an argument's value */
	{ .line = "trace bio start __tracepoint_rq_issue end __tracepoint_rq_done key arg1",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "bio", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1,
	  .start = "__tracepoint_rq_issue", .end = "__tracepoint_rq_done" },
	{ .line = "trace l start a end b KEY ARG6 expire 3600 type u32 slots 5000",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 6, .expire = 3600, .vbytes = 4,
	  .slots = 5000, .start = "a", .end = "b" },
	/* key argN and if argN OP NUMBER after start or end: that side's */
	{ .line = "trace l start a key arg2 end b key arg1",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 2, .end_key_arg = 1,
	  .start = "a", .end = "b" },
	{ .line = "trace l start a key arg2 end b",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 2, .start = "a", .end = "b" },
	{ .line = "trace l key arg3 start a end b",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 3, .start = "a", .end = "b" },
	{ .line = "trace l key arg3 start a end b key arg4",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 3, .end_key_arg = 4, .start = "a",
	  .end = "b" },
	{ .line = "trace l start a key arg2 if arg2 < 64 end b key arg1 if arg1 != 0x5",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 2, .end_key_arg = 1,
	  .start = "a", .end = "b",
	  .cond = { { .cond = KSTATS_COND_LT, .cond_arg = 2, .cond_val = 64 },
		    { .cond = KSTATS_COND_NE, .cond_arg = 1, .cond_val = 5 } } },
	{ .line = "trace l start a if arg1 > -3 end b key task",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_TASK, .start = "a", .end = "b",
	  .cond = { { .cond = KSTATS_COND_GT, .cond_arg = 1, .cond_val = -3,
		      .cond_neg = true } } },
	{ .line = "trace l start a end b if arg4 == 18446744073709551615",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .start = "a", .end = "b",
	  .cond = { {}, { .cond = KSTATS_COND_EQ, .cond_arg = 4,
			  .cond_val = -1 } } },
	{ .line = "trace l start a key arg2->pid end b key arg3->pid if arg3->comm == \"kt_wait\"",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 2, .end_key_arg = 3,
	  .kpath = "->pid", .end_kpath = "->pid", .start = "a", .end = "b",
	  .cond = { {}, { .cond = KSTATS_COND_EQ, .cond_arg = 3,
			  .cond_path = "->comm", .cond_str = "kt_wait" } } },
	{ .line = "trace l start a if arg1->name != \"0123456789abcde\" end b",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .start = "a", .end = "b",
	  .cond = { { .cond = KSTATS_COND_NE, .cond_arg = 1,
		      .cond_path = "->name", .cond_str = "0123456789abcde" } } },
	/* EXPR: argN->MEMBER... */
	{ .line = "trace l start a key arg1->pid end b key arg3->se->vruntime",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .end_key_arg = 3,
	  .kpath = "->pid", .end_kpath = "->se->vruntime",
	  .start = "a", .end = "b" },
	{ .line = "trace l start a end b key arg1->q->disk->_x9 if arg2->cmd_flags != 0",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .kpath = "->q->disk->_x9",
	  .start = "a", .end = "b",
	  .cond = { {}, { .cond = KSTATS_COND_NE, .cond_arg = 2,
			  .cond_path = "->cmd_flags" } } },
	{ .line = "trace l start a key arg1 start c end b key arg3",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .end_key_arg = 3,
	  .more = { 3 }, .nr_more = 1, .start = "a", .end = "b" },
	{ .line = "trace l start a key arg1 start c key arg1 if arg4 == 0 start d end b",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .more = { 1, 1 }, .nr_more = 2,
	  .start = "a", .end = "b",
	  .cond = { {}, {}, { .cond = KSTATS_COND_EQ, .cond_arg = 4 } } },
	{ .line = "trace l start a start c start d start e end b key task",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_TASK, .nr_more = 3, .start = "a", .end = "b" },
	/* value argN|retval: trace FUNC only, N within the register arguments */
	KT_VALUE("trace f value arg1", "f", ARG, 1),
	KT_VALUE("trace f VALUE ARG6", "f", ARG, 6),
	KT_VALUE("trace f value arg02", "f", ARG, 2),
	KT_VALUE("trace f value retval as r", "r", RETVAL, 0),
	KT_VALUE("trace f as r value RetVal", "r", RETVAL, 0),
	{ .line = "trace f value arg3 via kretprobe pid 7 bits 0",
	  .op = KSTATS_CMD_TRACE, .name = "f", .bits = 0,
	  .via = KSTATS_VIA_KRETPROBE, .start = "f", .end = "",
	  .value = KSTATS_VALUE_ARG, .arg = 3,
	  .filter = { .flags = KT_P, .pid = 7 } },
	/* cgroup PATH|ID: a cgroup v2 group and those below it */
	{ .line = "trace f cgroup /kstats-latency-7/x", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .filter = { .flags = KT_G }, .cgroup = "/kstats-latency-7/x" },
	{ .line = "trace f CGROUP 4242 pid 3", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .filter = { .flags = KT_G | KT_P, .pid = 3, .cgroup_id = 4242 } },
	{ .line = "trace f cgroup /", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .filter = { .flags = KT_G }, .cgroup = "/" },
	/* by KEY [keys N]: per-key histograms */
	{ .line = "trace f by comm", .op = KSTATS_CMD_TRACE, .name = "f",
	  .bits = 4, .start = "f", .end = "", .by = KSTATS_BY_COMM },
	{ .line = "trace f BY Cgroup keys 1024 pid 3", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .filter = { .flags = KT_P, .pid = 3 },
	  .by = KSTATS_BY_CGROUP, .keys = 1024 },
	{ .line = "trace pcpu:f keys 1 by tid", .op = KSTATS_CMD_TRACE_PCPU,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .by = KSTATS_BY_TID, .keys = 1 },
	{ .line = "trace l start a end b key task by pid",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_TASK, .start = "a", .end = "b",
	  .by = KSTATS_BY_PID },
	{ .line = "trace f value arg2 type s32 by cpu keys 9",
	  .op = KSTATS_CMD_TRACE, .name = "f", .bits = 4, .start = "f",
	  .end = "", .value = KSTATS_VALUE_ARG, .arg = 2, .vbytes = 4,
	  .vsigned = true, .by = KSTATS_BY_CPU, .keys = 9 },
	{ .line = "trace f by retval type s32", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "", .vbytes = 4,
	  .vsigned = true, .by = KSTATS_BY_RETVAL },
	{ .line = "trace f by ARG6 type u16", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "", .vbytes = 2,
	  .by = KSTATS_BY_ARG, .by_arg = 6 },
	{ .line = "trace l start a end b key arg2 by arg1",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 2, .start = "a", .end = "b",
	  .by = KSTATS_BY_ARG, .by_arg = 1 },
	/* by after a site is read there; a bare argN after the end: X's */
	{ .line = "trace l start a key arg1 end b by arg1->q->disk->disk_name",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .start = "a", .end = "b",
	  .by = KSTATS_BY_ARG, .by_arg = 1, .by_path = "->q->disk->disk_name",
	  .by_site = KSTATS_SIDE_END },
	{ .line = "trace l start a by arg2->id end b key arg1",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .start = "a", .end = "b",
	  .by = KSTATS_BY_ARG, .by_arg = 2, .by_path = "->id" },
	/* a key before every site keys the starts without one of their own */
	{ .line = "trace l key arg1->pid start a start c key arg2 start d end b key arg3->pid",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 1, .end_key_arg = 3,
	  .kpath = "->pid", .start = "a", .end = "b", .nr_more = 2,
	  .more = { 2, 1 } },
	{ .line = "trace l start a start c end b by arg1",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .start = "a", .end = "b", .nr_more = 1, .by = KSTATS_BY_ARG,
	  .by_arg = 1, .by_site = KSTATS_SIDE_END },
	{ .line = "trace l start a key arg2->pid by stack end b key arg3->pid",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_ARG, .key_arg = 2, .end_key_arg = 3,
	  .kpath = "->pid", .start = "a", .end = "b", .by = KSTATS_BY_STACK },
	{ .line = "trace l start a end b key task by stack",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4,
	  .key = KSTATS_KEY_TASK, .start = "a", .end = "b",
	  .by = KSTATS_BY_STACK, .by_site = KSTATS_SIDE_END },
	{ .line = "trace f by stack", .op = KSTATS_CMD_TRACE, .name = "f",
	  .bits = 4, .start = "f", .end = "", .by = KSTATS_BY_STACK },
	/* type: the value's type, where BTF cannot say it */
	{ .line = "trace f value arg2 type s32", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .value = KSTATS_VALUE_ARG, .arg = 2, .vbytes = 4, .vsigned = true },
	{ .line = "trace f TYPE U8 value retval", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .value = KSTATS_VALUE_RETVAL, .vbytes = 1 },
	{ .line = "trace f value arg1 type u64", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .value = KSTATS_VALUE_ARG, .arg = 1, .vbytes = 8 },
	{ .line = "trace f value arg6 type S16", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .value = KSTATS_VALUE_ARG, .arg = 6, .vbytes = 2, .vsigned = true },
	/* trace NAME gap X: X as a side of a pair; clock and filters */
	KT_GAP("trace irqs gap handle_irq_event", "irqs", 4, "handle_irq_event"),
	KT_GAP("TRACE g GAP f+0x10 bits 2\n", "g", 2, "f+16"),
	KT_GAP("trace g bits 0 gap __tracepoint_irq_handler_entry", "g", 0,
	       "__tracepoint_irq_handler_entry"),
	{ .line = "trace g gap f clock local cpu 1 comm sh",
	  .op = KSTATS_CMD_TRACE_GAP, .name = "g", .bits = 4, .start = "f",
	  .end = "", .clock = KSTATS_CLOCK_LOCAL,
	  .filter = { .flags = KT_U | KT_C, .cpu = 1, .comm = "sh" } },
	/* counter EVENT: modes whose start and end are on one CPU */
	{ .line = "trace f counter page-faults", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .counter = KSTATS_COUNTER_PAGE_FAULTS },
	{ .line = "trace pcpu:f COUNTER Context-Switches",
	  .op = KSTATS_CMD_TRACE_PCPU, .name = "f", .bits = 4, .start = "f",
	  .end = "", .counter = KSTATS_COUNTER_CONTEXT_SWITCHES },
	{ .line = "trace f counter instructions via kretprobe",
	  .op = KSTATS_CMD_TRACE, .name = "f", .bits = 4,
	  .via = KSTATS_VIA_KRETPROBE, .start = "f", .end = "",
	  .counter = KSTATS_COUNTER_INSTRUCTIONS },
	{ .line = "trace l start a end b key cpu counter cycles",
	  .op = KSTATS_CMD_TRACE_PAIR, .name = "l", .bits = 4, .start = "a",
	  .end = "b", .counter = KSTATS_COUNTER_CYCLES },
	{ .line = "trace f counter branch-misses pid 3", .op = KSTATS_CMD_TRACE,
	  .name = "f", .bits = 4, .start = "f", .end = "",
	  .counter = KSTATS_COUNTER_BRANCH_MISSES,
	  .filter = { .flags = KT_P, .pid = 3 } },
	/* calibrate */
	KT_CAL("calibrate", KSTATS_CALIB_SAMPLES),
	KT_CAL("CALIBRATE samples 100\n", 100),
	KT_CAL("calibrate Samples 100000", 100000),
	/* remove NAME: any name up to the length limit */
	KT_OK("remove vfs_read", REMOVE, "vfs_read", 4, AUTO, CPU, "", ""),
	KT_OK("REMOVE _control\n", REMOVE, "_control", 4, AUTO, CPU, "", ""),
	/* start, stop, reset NAME: as written into the entry's file */
	KT_OK("start lat", START, "lat", 4, AUTO, CPU, "", ""),
	KT_OK("Stop lat\n", STOP, "lat", 4, AUTO, CPU, "", ""),
	KT_OK("RESET " KT_NAME63, RESET, KT_NAME63, 4, AUTO, CPU, "", ""),
	/* Commands */
	KT_BAD(""),
	KT_BAD("\n"),
	KT_BAD(" \t "),
	KT_BAD("bogus"),
	/*
	 * PATH:SYMBOL: an absolute PATH, a SYMBOL or 0xOFFSET; a register
	 * read needs its type; no outliers, counter, stack or field path
	 */
	KT_BAD("trace usr/bin/ls:main"),
	KT_BAD("trace /usr/bin/ls"),
	KT_BAD("trace /usr/bin/ls:"),
	KT_BAD("trace /:main"),
	KT_BAD("trace /a:0x10"),
	KT_BAD("trace /a:0xzz as x"),
	KT_BAD("trace /a:b-c as x"),
	KT_BAD("trace pcpu:/a:b"),
	KT_BAD("trace /a:b via direct"),
	KT_BAD("trace /a:b value arg1"),
	KT_BAD("trace /a:b value retval"),
	KT_BAD("trace /a:b by retval"),
	KT_BAD("trace /a:b by arg1"),
	KT_BAD("trace /a:b by stack"),
	KT_BAD("trace /a:b by syscall"),
	KT_BAD("trace /a:b by arg1->x type u64"),
	KT_BAD("trace /a:b counter context-switches"),
	KT_BAD("trace /a:b clock local"),
	KT_BAD("trace l start /a:b end c"),
	KT_BAD("traces vfs_read"),
	KT_BAD("trace"),
	KT_BAD("trace\n"),
	KT_BAD("remove"),
	KT_BAD("remove a b"),
	KT_BAD("remove " KT_NAME63 "4"),
	KT_BAD("start"),
	KT_BAD("stop a b"),
	KT_BAD("reset a bits 4"),
	KT_BAD("reset " KT_NAME63 "4"),
	KT_BAD("restart a"),
	/* Options */
	KT_BAD("trace vfs_read bits"),
	KT_BAD("trace vfs_read bits 6"),
	KT_BAD("trace vfs_read bits -1"),
	KT_BAD("trace vfs_read bits 1x"),
	KT_BAD("trace vfs_read bits 4294967300"),
	KT_BAD("trace vfs_read bits 1 bits 1"),
	KT_BAD("trace vfs_read via"),
	KT_BAD("trace vfs_read via uprobe"),
	KT_BAD("trace vfs_read via kretprobe via fprobe"),
	KT_BAD("trace vfs_read key task"),
	KT_BAD("trace vfs_read bogus 1"),
	KT_BAD("trace vfs_read vfs_write"),
	/* FUNC */
	KT_BAD("trace _x"),
	KT_BAD("trace __x64_sys_read"),
	KT_BAD("trace __tracepoint_sys_enter"),
	KT_BAD("trace 9abc"),
	KT_BAD("trace f(x)"),
	KT_BAD("trace vfs_read+4"),
	KT_BAD("trace " KT_NAME63 "4"),
	KT_BAD("trace " KT_SYM127),
	/* as NAME */
	KT_BAD("trace vfs_read as"),
	KT_BAD("trace vfs_read as _r"),
	KT_BAD("trace vfs_read as a/b"),
	KT_BAD("trace vfs_read as " KT_NAME63 "4"),
	KT_BAD("trace vfs_read as a as b"),
	KT_BAD("trace __x as"),
	KT_BAD("trace pcpu:__x"),
	KT_BAD("trace l start a end b as m"),
	/* pcpu: */
	KT_BAD("trace pcpu:"),
	KT_BAD("trace pcpu:_x"),
	KT_BAD("trace pcpu:vfs_read via kretprobe"),
	KT_BAD("trace pcpu:vfs_read key cpu"),
	KT_BAD("trace pcpu:x start a end b"),
	/* Pairs */
	KT_BAD("trace l start a"),
	KT_BAD("trace l end b"),
	KT_BAD("trace l start a end b start c start d start e start f"),
	KT_BAD("trace l start a key arg1 start c key arg2 end b"),
	KT_BAD("trace l start a start c+4 key arg1 end b"),
	KT_BAD("trace l start a by arg1 start c end b"),
	KT_BAD("trace l start a by arg1->id start c end b"),
	KT_BAD("trace l start a end b by arg1->"),
	KT_BAD("trace l start a end b by arg1->id by pid"),
	KT_BAD("trace l start a end b by pid by arg1->id"),
	KT_BAD("trace l start a end b by arg9->id"),
	KT_BAD("trace l start a end b end c"),
	KT_BAD("trace l start a end b key"),
	KT_BAD("trace l start a end b key node"),
	KT_BAD("trace l start a end b key cpu key task"),
	KT_BAD("trace l start a key arg1 key arg2 end b"),
	KT_BAD("trace l start a end b key arg1->"),
	KT_BAD("trace l start a end b key arg1->1x"),
	KT_BAD("trace l start a end b key arg1-->x"),
	KT_BAD("trace l start a end b key arg1->a.b"),
	KT_BAD("trace l start a end b key arg1->a->b->c->d->e"),
	KT_BAD("trace l start a end b key arg0->a"),
	KT_BAD("trace l start a end b key argx->a"),
	KT_BAD("trace l start a key arg1->pid start c key arg1 end b"),
	KT_BAD("trace l start a if arg1-> == 0 end b"),
	KT_BAD("trace l start a end b key arg1 key arg1"),
	KT_BAD("trace l key arg1 key arg2 start a end b"),
	KT_BAD("trace l key cpu start a key arg1 end b"),
	KT_BAD("trace l start a key arg1 end b key task"),
	KT_BAD("trace l if arg1 == 0 start a end b"),
	KT_BAD("trace l start a if arg1 = 0 end b"),
	KT_BAD("trace l start a if arg1 =< 0 end b"),
	KT_BAD("trace l start a if arg0 == 0 end b"),
	KT_BAD("trace l start a if arg1 == x end b"),
	KT_BAD("trace l start a if arg1 == -x end b"),
	KT_BAD("trace l start a if arg1 == 18446744073709551616 end b"),
	KT_BAD("trace l start a if arg1 == 1 if arg1 == 2 end b"),
	/* "STRING": 1 to 15 printable bytes in quotes, == or != only */
	KT_BAD("trace l start a if arg1->comm < \"dd\" end b"),
	KT_BAD("trace l start a if arg1->comm > \"dd\" end b"),
	KT_BAD("trace l start a if arg1->comm == \"\" end b"),
	KT_BAD("trace l start a if arg1->comm == \" end b"),
	KT_BAD("trace l start a if arg1->comm == \"dd end b"),
	KT_BAD("trace l start a if arg1->comm == \"0123456789abcdef\" end b"),
	KT_BAD("trace l start a if arg1->comm == \"a,b\" end b"),
	KT_BAD("trace l start a if arg1->comm == \"a|b\" end b"),
	KT_BAD("trace l start a if arg1->comm == \"a\"b\" end b"),
	KT_BAD("trace l start a if arg1->comm == \"a\tb\" end b"),
	KT_BAD("trace l start a end b if arg1 =="),
	KT_BAD("trace l start a end b if arg1"),
	KT_BAD("trace l start a+4 if arg1 == 0 end b"),
	KT_BAD("trace f if arg1 == 0 x"),
	KT_BAD("trace g gap f if arg1 == 0"),
	KT_BAD("trace l start a end b via fprobe"),
	KT_BAD("trace l start a end b bits 9"),
	KT_BAD("trace _l start a end b"),
	KT_BAD("trace . start a end b"),
	KT_BAD("trace a/b start x end y"),
	KT_BAD("trace " KT_NAME63 "4 start a end b"),
	KT_BAD("trace l start __tracepoint_x+1 end b"),
	KT_BAD("trace l start __tracepoint_ end b"),
	KT_BAD("trace l start __tracepoint_a.b end b"),
	KT_BAD("trace l start a+ end b"),
	KT_BAD("trace l start +4 end b"),
	KT_BAD("trace l start a+x end b"),
	KT_BAD("trace l start a+4294967296 end b"),
	KT_BAD("trace l start a-b end c"),
	KT_BAD("trace l start a end " KT_SYM127 "x"),
	KT_BAD("trace l start a end b bits 1 key cpu x"),
	KT_BAD("trace l start a end b bits 1 key cpu x y"),
	KT_BAD("trace l start a+0x end b"),
	KT_BAD("trace l start a+0x-1 end b"),
	KT_BAD("trace l start a+0b1 end b"),
	KT_BAD("trace l start a end b bits 1 key task slots 64 x"),
	/* slots */
	KT_BAD("trace l start a end b slots 64"),
	KT_BAD("trace l start a end b key cpu slots 64"),
	KT_BAD("trace l start a end b key task slots 63"),
	KT_BAD("trace l start a end b key task slots 4194305"),
	KT_BAD("trace l start a end b key task slots 0x100"),
	KT_BAD("trace l start a end b key task slots 64 slots 64"),
	KT_BAD("trace vfs_read slots 64"),
	KT_BAD("trace pcpu:vfs_read slots 64"),
	/* calibrate */
	KT_BAD("calibrate 100"),
	KT_BAD("calibrate samples"),
	KT_BAD("calibrate samples 99"),
	KT_BAD("calibrate samples 100001"),
	KT_BAD("calibrate samples 100 samples 100"),
	KT_BAD("calibrate bits 4"),
	KT_BAD("trace f clock local"),
	KT_BAD("trace l start a end b key task clock local"),
	KT_BAD("trace f clock"),
	KT_BAD("trace f clock cycles"),
	KT_BAD("trace pcpu:f clock mono clock mono"),
	KT_BAD("trace l start a+1 end b+2 bits 1 key task slots 64 clock mono x"),
	/* Filters */
	KT_BAD("trace f pid"),
	KT_BAD("trace f pid -1"),
	KT_BAD("trace f pid 4194305"),
	KT_BAD("trace f pid 1x"),
	KT_BAD("trace f pid 0x10"),
	KT_BAD("trace f pid 1 pid 1"),
	KT_BAD("trace f tid 99999999999"),
	KT_BAD("trace f tid 1 tid 2"),
	KT_BAD("trace f comm"),
	KT_BAD("trace f comm 0123456789abcdef"),
	KT_BAD("trace f comm \xc3\xa9t\xc3\xa9"),
	KT_BAD("trace f comm a comm b"),
	KT_BAD("trace f cpu -1"),
	KT_BAD("trace f cpu x"),
	KT_BAD("trace f cpu 4294967296"),
	KT_BAD("trace f cpu 1 cpu 1"),
	KT_BAD("trace f uid 0"),
	KT_BAD(KT_ALL " x"),
	KT_BAD(KT_ALL " x y"),
	KT_BAD(KT_ALLARG " x"),
	KT_BAD(KT_ALLARG " x y"),
	/* outliers N */
	KT_BAD("trace f outliers 0"),
	KT_BAD("trace f outliers 257"),
	KT_BAD("trace f outliers -1"),
	KT_BAD("trace f outliers x"),
	KT_BAD("trace f outliers 1 outliers 2"),
	KT_BAD("trace f outliers"),
	/* key argN */
	KT_BAD("trace l start a end b key arg0"),
	KT_BAD("trace l start a end b key arg7"),
	KT_BAD("trace l start a end b key arg"),
	KT_BAD("trace l start a end b key arg1x"),
	KT_BAD("trace l start a end b key arg-1"),
	KT_BAD("trace l start a end b key arg1 expire 0"),
	KT_BAD("trace l start a end b key arg1 expire 3601"),
	KT_BAD("trace l start a end b key arg1 expire 1 expire 1"),
	KT_BAD("trace l start a end b key task expire 5"),
	KT_BAD("trace l start a end b expire 5"),
	KT_BAD("trace l start a+4 end b key arg1"),
	KT_BAD("trace l start a end b+4 key arg1"),
	KT_BAD("trace l start a end b key arg1 clock local"),
	KT_BAD("trace l start a end b key arg1 counter cycles"),
	KT_BAD("trace f key arg1"),
	KT_BAD("trace g gap f key arg1"),
	KT_BAD("trace l start a end b type u32"),
	/* value */
	KT_BAD("trace f value"),
	KT_BAD("trace f value arg"),
	KT_BAD("trace f value arg0"),
	KT_BAD("trace f value arg7"),
	KT_BAD("trace f value argx"),
	KT_BAD("trace f value arg+1"),
	KT_BAD("trace f value arg-1"),
	KT_BAD("trace f value ret"),
	KT_BAD("trace f value 1"),
	KT_BAD("trace f value retval value arg1"),
	KT_BAD("trace f value arg1 value arg1"),
	KT_BAD("trace f type u32"),
	KT_BAD("trace f by"),
	KT_BAD("trace f by argN"),
	KT_BAD("trace f by arg0"),
	KT_BAD("trace f by arg7"),
	KT_BAD("trace f+4 by arg1"),
	KT_BAD("trace l start a+4 end b by arg1"),
	KT_BAD("trace f by pid type s32"),
	KT_BAD("trace f by comm by pid"),
	KT_BAD("trace f by comm keys 0"),
	KT_BAD("trace f by comm keys 1025"),
	KT_BAD("trace f by comm keys -1"),
	KT_BAD("trace f by comm keys 2 keys 2"),
	KT_BAD("trace f keys 2"),
	KT_BAD("trace f cgroup 0"),
	KT_BAD("trace f cgroup a/b"),
	KT_BAD("trace f cgroup -1"),
	KT_BAD("trace f cgroup 18446744073709551616"),
	KT_BAD("trace f cgroup /a cgroup /a"),
	KT_BAD("trace f cgroup /" KT_SYM127 KT_NAME63 "0123456789"),
	KT_BAD("trace f value arg1 type"),
	KT_BAD("trace f value arg1 type u32 type u32"),
	KT_BAD("trace f value arg1 type reg"),
	KT_BAD("trace f value arg1 type int"),
	KT_BAD("trace f value arg1 type u"),
	KT_BAD("trace f value arg1 type u0"),
	KT_BAD("trace f value arg1 type u24"),
	KT_BAD("trace f value arg1 type s128"),
	KT_BAD("trace f value arg1 type u+8"),
	KT_BAD("trace f value arg1 type u08x"),
	KT_BAD("trace l start a end b type u32"),
	KT_BAD("trace pcpu:f type u32"),
	KT_BAD("trace pcpu:f value arg1"),
	KT_BAD("trace l start a end b value retval"),
	KT_BAD("trace f value arg1 clock mono"),
	KT_BAD("trace f counter"),
	KT_BAD("trace f counter cpu-cycles"),
	KT_BAD("trace f counter page-faults counter cycles"),
	KT_BAD("trace l start a end b key task counter page-faults"),
	KT_BAD("trace f via direct counter page-faults"),
	KT_BAD("trace f counter page-faults value retval"),
	KT_BAD("trace pcpu:f counter page-faults clock local"),
	KT_BAD("trace f clock mono counter instructions"),
	KT_BAD("trace f clock mono value retval"),
	/* gap */
	KT_BAD("trace g gap"),
	KT_BAD("trace g gap f gap h"),
	KT_BAD("trace g gap f start a end b"),
	KT_BAD("trace g start a end b gap f"),
	KT_BAD("trace g gap f end b"),
	KT_BAD("trace g gap f value arg1"),
	KT_BAD("trace g gap f value retval"),
	KT_BAD("trace g gap f via direct"),
	KT_BAD("trace g gap f via fprobe"),
	KT_BAD("trace g gap f key task"),
	KT_BAD("trace g gap f key cpu"),
	KT_BAD("trace g gap f slots 64"),
	KT_BAD("trace g gap f as h"),
	KT_BAD("trace g gap f counter page-faults"),
	KT_BAD("trace f counter page-faults clock tsc"),
	KT_BAD("trace pcpu:f gap g"),
	KT_BAD("trace _g gap f"),
	KT_BAD("trace g gap 9f"),
	KT_BAD("trace g gap f+"),
	KT_BAD("trace g gap __tracepoint_x+1"),
	KT_BAD("trace g gap f clock cycles"),
	KT_BAD("trace g gap f pid -1"),
};

/* KTAP descriptions are one line: escape what the lines hold. */
static void kt_parse_desc(const struct kt_parse_case *c, char *desc)
{
	unsigned int i, n = 0;

	for (i = 0; c->line[i] && n + 5 < KUNIT_PARAM_DESC_SIZE; i++) {
		char ch = c->line[i];

		if (ch == '\n' || ch == '\t') {
			desc[n++] = '\\';
			desc[n++] = ch == '\n' ? 'n' : 't';
		} else if (!isascii(ch) || !isprint(ch)) {
			n += scnprintf(desc + n, 5, "\\x%02x", (u8)ch);
		} else {
			desc[n++] = ch;
		}
	}
	if (!n)
		desc[n++] = '-';
	desc[n] = '\0';
}

KUNIT_ARRAY_PARAM(kt_parse, kt_parse_cases, kt_parse_desc);

/* A target the way the grammar writes it, offsets in decimal. */
static const char *kt_target(struct kunit *test, const struct kstats_target *t)
{
	size_t len = sizeof(t->sym) + 32;
	char *buf = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	if (t->tracepoint)
		snprintf(buf, len, KSTATS_TP_PREFIX "%s", t->sym);
	else if (t->offset)
		snprintf(buf, len, "%s+%u", t->sym, t->offset);
	else
		snprintf(buf, len, "%s", t->sym);
	return buf;
}

static void kt_parse_table(struct kunit *test)
{
	const struct kt_parse_case *c = test->param_value;
	struct kstats_cmd *cmd;
	int i, ret;

	cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	ret = kstats_parse(c->line, strlen(c->line), cmd);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "why: %s", cmd->why);
	if (c->err) {
		KUNIT_EXPECT_NE_MSG(test, cmd->why[0], '\0',
				    "a refusal must say why");
		return;
	}
	KUNIT_EXPECT_EQ(test, cmd->why[0], '\0');
	KUNIT_EXPECT_EQ(test, cmd->op, c->op);
	KUNIT_EXPECT_STREQ(test, cmd->name, c->name);
	KUNIT_EXPECT_EQ(test, cmd->bits, c->bits);
	KUNIT_EXPECT_EQ(test, cmd->via, c->via);
	KUNIT_EXPECT_EQ(test, cmd->key, c->key);
	KUNIT_EXPECT_STREQ(test, kt_target(test, &cmd->start), c->start);
	KUNIT_EXPECT_STREQ(test, kt_target(test, &cmd->end), c->end);
	KUNIT_EXPECT_EQ(test, cmd->slots, c->slots);
	KUNIT_EXPECT_EQ(test, cmd->samples, c->samples);
	KUNIT_EXPECT_EQ(test, cmd->clock, c->clock);
	KUNIT_EXPECT_EQ(test, cmd->filter.flags, c->filter.flags);
	KUNIT_EXPECT_EQ(test, cmd->filter.pid, c->filter.pid);
	KUNIT_EXPECT_EQ(test, cmd->filter.tid, c->filter.tid);
	KUNIT_EXPECT_EQ(test, cmd->filter.cpu, c->filter.cpu);
	KUNIT_EXPECT_STREQ(test, cmd->filter.comm, c->filter.comm);
	KUNIT_EXPECT_EQ(test, cmd->value, c->value);
	KUNIT_EXPECT_EQ(test, cmd->arg, c->arg);
	KUNIT_EXPECT_EQ(test, cmd->filter.cgroup_id, c->filter.cgroup_id);
	KUNIT_EXPECT_STREQ(test, cmd->cgroup_path, c->cgroup ?: "");
	KUNIT_EXPECT_PTR_EQ(test, cmd->filter.cgroup, NULL);
	KUNIT_EXPECT_EQ(test, cmd->vbytes, c->vbytes);
	KUNIT_EXPECT_EQ(test, cmd->vsigned, c->vsigned);
	KUNIT_EXPECT_EQ(test, cmd->counter, c->counter);
	KUNIT_EXPECT_EQ(test, cmd->by, c->by);
	KUNIT_EXPECT_EQ(test, cmd->by_arg, c->by_arg);
	KUNIT_EXPECT_STREQ(test, cmd->by_path, c->by_path ?: "");
	KUNIT_EXPECT_EQ(test, cmd->by_site, c->by_site);
	KUNIT_EXPECT_EQ(test, cmd->keys, c->keys);
	KUNIT_EXPECT_EQ(test, cmd->side[KSTATS_SIDE_BEGIN].key_arg, c->key_arg);
	KUNIT_EXPECT_EQ(test, cmd->side[KSTATS_SIDE_END].key_arg,
			c->end_key_arg ?: c->key_arg);
	KUNIT_EXPECT_STREQ(test, cmd->side[KSTATS_SIDE_BEGIN].key_path,
			   c->kpath ?: "");
	KUNIT_EXPECT_STREQ(test, cmd->side[KSTATS_SIDE_END].key_path,
			   c->end_kpath ?: c->kpath ?: "");
	KUNIT_EXPECT_EQ(test, cmd->nr_more, c->nr_more);
	for (i = 0; i < c->nr_more; i++) {
		KUNIT_EXPECT_EQ(test, cmd->more[i].sym[0], 'c' + i);
		KUNIT_EXPECT_EQ(test, cmd->side[KSTATS_NR_SIDES + i].key_arg,
				c->more[i]);
	}
	for (i = 0; i < KSTATS_PAIR_SITES; i++) {
		KUNIT_EXPECT_EQ(test, cmd->side[i].cond, c->cond[i].cond);
		KUNIT_EXPECT_EQ(test, cmd->side[i].cond_arg, c->cond[i].cond_arg);
		KUNIT_EXPECT_EQ(test, cmd->side[i].cond_val, c->cond[i].cond_val);
		KUNIT_EXPECT_EQ(test, cmd->side[i].cond_neg, c->cond[i].cond_neg);
		KUNIT_EXPECT_STREQ(test, cmd->side[i].cond_path,
				   c->cond[i].cond_path);
		KUNIT_EXPECT_STREQ(test, cmd->side[i].cond_str,
				   c->cond[i].cond_str);
	}
	KUNIT_EXPECT_EQ(test, cmd->expire, c->expire);
	KUNIT_EXPECT_EQ(test, cmd->outliers, c->outliers);
}

/* Lengths: 256 bytes parse, 257 do not; NUL bytes and @len are honoured. */
static void kt_parse_lengths(struct kunit *test)
{
	struct kstats_cmd *cmd;
	char *line;

	cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	line = kunit_kzalloc(test, KSTATS_CMD_LEN + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, line);

	memset(line, ' ', KSTATS_CMD_LEN + 1);
	memcpy(line, "remove x", 8);
	line[KSTATS_CMD_LEN - 1] = '\n';
	KUNIT_EXPECT_EQ(test, kstats_parse(line, KSTATS_CMD_LEN, cmd), 0);
	KUNIT_EXPECT_STREQ(test, cmd->name, "x");
	KUNIT_EXPECT_EQ(test, kstats_parse(line, KSTATS_CMD_LEN + 1, cmd),
			-EINVAL);

	/* Only @len bytes count, with or without a NUL after them. */
	KUNIT_EXPECT_EQ(test, kstats_parse("remove abc", 8, cmd), 0);
	KUNIT_EXPECT_STREQ(test, cmd->name, "a");
	KUNIT_EXPECT_EQ(test, kstats_parse("remove a\0bc", 11, cmd), -EINVAL);
	KUNIT_EXPECT_EQ(test, kstats_parse("trace\0", 6, cmd), -EINVAL);
}

static struct kunit_case kstats_parse_cases[] = {
	KUNIT_CASE_PARAM(kt_parse_table, kt_parse_gen_params),
	KUNIT_CASE(kt_parse_lengths),
	{}
};

static struct kunit_suite kstats_parse_suite = {
	.name = "kstats_parse",
	.test_cases = kstats_parse_cases,
};

/* ---------------------------------------------------------------------- */
/* ELF symbol lookup (kstats_elf.c)                                       */
/* ---------------------------------------------------------------------- */

/*
 * The test image: an ELF header, two PT_LOAD segments (the headers, read
 * only; .text, executable), section headers, then .text, .symtab,
 * .strtab, .dynsym, .dynstr and .shstrtab, in that order, so that a
 * truncation cuts the tables one by one and .shstrtab, never read, last.
 */
#define KT_ELF_BASE		0x400000ULL
/* .text's address: one page above its file offset, from KT_ELF_BASE. */
#define KT_ELF_TEXT_GAP		0x1000
#define KT_ELF_TEXT_SIZE	0x40
/* Offsets in .text: kt_fn, kt_ifunc, kt_dyn, kt_obj. */
#define KT_ELF_FN		0x10
#define KT_ELF_FN_SIZE		0x20
#define KT_ELF_IFUNC		0x20
#define KT_ELF_DYN		0x30
#define KT_ELF_DYN_SIZE		0x08
#define KT_ELF_OBJ		0x38
#define KT_ELF_WHY		160
/* Fuzz: images and changed bytes per image (1 to this many). */
#define KT_ELF_FUZZ_RUNS	2000
#define KT_ELF_FUZZ_BYTES	4
/* Elsewhere every file is refused: nothing to test. */
#ifdef KSTATS_ELF_MACHINE
#define KT_ELF_MACHINE		KSTATS_ELF_MACHINE
#else
#define KT_ELF_MACHINE		EM_NONE
#endif
/* shmem_kernel_file_setup()'s flags: a vma_flags_t on 7.x (Kbuild). */
#ifdef KSTATS_SHMEM_VMA_FLAGS
#define KT_SHMEM_FLAGS		EMPTY_VMA_FLAGS
#else
#define KT_SHMEM_FLAGS		0
#endif
#define KT_ST_INFO(bind, type)	(((bind) << 4) | (type))
#define KT_STT_GNU_IFUNC	10

/* Sections, and the symbols of .symtab and .dynsym (0: the null one). */
enum {
	KT_SH_NULL, KT_SH_TEXT, KT_SH_SYMTAB, KT_SH_STRTAB, KT_SH_DYNSYM,
	KT_SH_DYNSTR, KT_SH_SHSTRTAB, KT_SH_NR
};

enum { KT_SYM_FN = 1, KT_SYM_OBJ, KT_SYM_UNDEF, KT_SYM_IFUNC, KT_SYM_NR };

enum { KT_DSYM_DYN = 1, KT_DSYM_FN, KT_DSYM_UNDEF, KT_DSYM_NR };

static const char kt_elf_strtab[] = "\0kt_fn\0kt_obj\0kt_undef\0kt_ifunc";
static const char kt_elf_dynstr[] = "\0kt_dyn\0kt_fn\0kt_undef";
static const char kt_elf_shstrtab[] =
	"\0.text\0.symtab\0.strtab\0.dynsym\0.dynstr\0.shstrtab";

struct kt_elf {
	u8 *buf;
	u8 *pristine;		/* the image as built */
	size_t len;		/* its size */
	size_t size;		/* what kt_elf_read() serves: @len or less */
	bool bad_read;		/* a read outside @size was asked for */
	struct elf64_hdr *eh;
	struct elf64_phdr *ph;	/* [0] the headers, [1] .text */
	struct elf64_shdr *sh;	/* [KT_SH_*] */
	struct elf64_sym *sym, *dsym;
	u8 *strtab, *dynstr;
	size_t text_off;
	/* Bytes that a lookup of kt_fn (.symtab) and of kt_dyn needs. */
	size_t need_fn, need_dyn;
};

/* kstats_elf_read_fn over the image; a read past @size is a bug. */
static int kt_elf_read(void *ctx, void *dst, size_t len, loff_t pos)
{
	struct kt_elf *im = ctx;

	if (pos < 0 || pos > im->size || len > im->size - pos) {
		im->bad_read = true;
		return -ENOEXEC;
	}
	memcpy(dst, im->buf + pos, len);
	return 0;
}

/* Offset of string @s in table @tab of @len bytes. */
static u32 kt_elf_str(const char *tab, size_t len, const char *s)
{
	size_t i;

	for (i = 1; i < len; i += strlen(tab + i) + 1)
		if (!strcmp(tab + i, s))
			return i;
	return 0;
}

/* Room for @len bytes at the next multiple of @align after @end. */
static size_t kt_elf_place(size_t *end, size_t len, size_t align)
{
	size_t off = ALIGN(*end, align);

	*end = off + len;
	return off;
}

static void kt_elf_section(struct kt_elf *im, unsigned int i, const char *name,
			   u32 type, u64 off, u64 size, u32 link, u64 entsize)
{
	struct elf64_shdr *s = &im->sh[i];

	s->sh_name = kt_elf_str(kt_elf_shstrtab, sizeof(kt_elf_shstrtab), name);
	s->sh_type = type;
	s->sh_offset = off;
	s->sh_size = size;
	s->sh_link = link;
	s->sh_entsize = entsize;
	s->sh_addralign = entsize ?: 1;
	if (type == SHT_DYNSYM || type == SHT_SYMTAB)
		s->sh_info = 1;		/* the first global symbol */
}

static void kt_elf_symbol(struct elf64_sym *s, const char *strs, size_t len,
			  const char *name, u8 type, u16 shndx, u64 value,
			  u64 size)
{
	s->st_name = kt_elf_str(strs, len, name);
	s->st_info = KT_ST_INFO(STB_GLOBAL, type);
	s->st_shndx = shndx;
	s->st_value = value;
	s->st_size = size;
}

/* Lay out and fill the image. */
static struct kt_elf *kt_elf_build(struct kunit *test)
{
	struct kt_elf *im = kunit_kzalloc(test, sizeof(*im), GFP_KERNEL);
	size_t end = sizeof(struct elf64_hdr), ph, sh, sym, str, dsym, dstr;
	size_t shstr;
	u64 text;

	KUNIT_ASSERT_NOT_NULL(test, im);
	if (KT_ELF_MACHINE == EM_NONE)
		kunit_skip(test, "kstats reads no ELF file on this machine");
	ph = kt_elf_place(&end, 2 * sizeof(struct elf64_phdr), 8);
	sh = kt_elf_place(&end, KT_SH_NR * sizeof(struct elf64_shdr), 8);
	im->text_off = kt_elf_place(&end, KT_ELF_TEXT_SIZE, 16);
	sym = kt_elf_place(&end, KT_SYM_NR * sizeof(struct elf64_sym), 8);
	str = kt_elf_place(&end, sizeof(kt_elf_strtab), 1);
	im->need_fn = end;
	dsym = kt_elf_place(&end, KT_DSYM_NR * sizeof(struct elf64_sym), 8);
	dstr = kt_elf_place(&end, sizeof(kt_elf_dynstr), 1);
	im->need_dyn = end;
	shstr = kt_elf_place(&end, sizeof(kt_elf_shstrtab), 1);
	im->len = end;
	im->size = end;
	im->buf = kunit_kzalloc(test, end, GFP_KERNEL);
	im->pristine = kunit_kzalloc(test, end, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, im->buf);
	KUNIT_ASSERT_NOT_NULL(test, im->pristine);
	im->eh = (struct elf64_hdr *)im->buf;
	im->ph = (struct elf64_phdr *)(im->buf + ph);
	im->sh = (struct elf64_shdr *)(im->buf + sh);
	im->sym = (struct elf64_sym *)(im->buf + sym);
	im->dsym = (struct elf64_sym *)(im->buf + dsym);
	im->strtab = im->buf + str;
	im->dynstr = im->buf + dstr;
	text = KT_ELF_BASE + KT_ELF_TEXT_GAP + im->text_off;

	memcpy(im->eh->e_ident, ELFMAG, SELFMAG);
	im->eh->e_ident[EI_CLASS] = ELFCLASS64;
	im->eh->e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh->e_ident[EI_VERSION] = EV_CURRENT;
	im->eh->e_type = ET_EXEC;
	im->eh->e_machine = KT_ELF_MACHINE;
	im->eh->e_version = EV_CURRENT;
	im->eh->e_entry = text;
	im->eh->e_phoff = ph;
	im->eh->e_shoff = sh;
	im->eh->e_ehsize = sizeof(struct elf64_hdr);
	im->eh->e_phentsize = sizeof(struct elf64_phdr);
	im->eh->e_phnum = 2;
	im->eh->e_shentsize = sizeof(struct elf64_shdr);
	im->eh->e_shnum = KT_SH_NR;
	im->eh->e_shstrndx = KT_SH_SHSTRTAB;

	im->ph[0].p_type = PT_LOAD;
	im->ph[0].p_flags = PF_R;
	im->ph[0].p_vaddr = KT_ELF_BASE;
	im->ph[0].p_filesz = im->text_off;
	im->ph[0].p_memsz = im->text_off;
	im->ph[0].p_align = 0x1000;
	im->ph[1].p_type = PT_LOAD;
	im->ph[1].p_flags = PF_R | PF_X;
	im->ph[1].p_offset = im->text_off;
	im->ph[1].p_vaddr = text;
	im->ph[1].p_filesz = KT_ELF_TEXT_SIZE;
	im->ph[1].p_memsz = KT_ELF_TEXT_SIZE;
	im->ph[1].p_align = 0x1000;

	kt_elf_section(im, KT_SH_TEXT, ".text", SHT_PROGBITS, im->text_off,
		       KT_ELF_TEXT_SIZE, 0, 0);
	im->sh[KT_SH_TEXT].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	im->sh[KT_SH_TEXT].sh_addr = text;
	kt_elf_section(im, KT_SH_SYMTAB, ".symtab", SHT_SYMTAB, sym,
		       KT_SYM_NR * sizeof(struct elf64_sym), KT_SH_STRTAB,
		       sizeof(struct elf64_sym));
	kt_elf_section(im, KT_SH_STRTAB, ".strtab", SHT_STRTAB, str,
		       sizeof(kt_elf_strtab), 0, 0);
	kt_elf_section(im, KT_SH_DYNSYM, ".dynsym", SHT_DYNSYM, dsym,
		       KT_DSYM_NR * sizeof(struct elf64_sym), KT_SH_DYNSTR,
		       sizeof(struct elf64_sym));
	kt_elf_section(im, KT_SH_DYNSTR, ".dynstr", SHT_STRTAB, dstr,
		       sizeof(kt_elf_dynstr), 0, 0);
	kt_elf_section(im, KT_SH_SHSTRTAB, ".shstrtab", SHT_STRTAB, shstr,
		       sizeof(kt_elf_shstrtab), 0, 0);

	/* int3 (x86-64), never code that runs. */
	memset(im->buf + im->text_off, 0xcc, KT_ELF_TEXT_SIZE);
	memcpy(im->strtab, kt_elf_strtab, sizeof(kt_elf_strtab));
	memcpy(im->dynstr, kt_elf_dynstr, sizeof(kt_elf_dynstr));
	memcpy(im->buf + shstr, kt_elf_shstrtab, sizeof(kt_elf_shstrtab));
	kt_elf_symbol(&im->sym[KT_SYM_FN], kt_elf_strtab, sizeof(kt_elf_strtab),
		      "kt_fn", STT_FUNC, KT_SH_TEXT, text + KT_ELF_FN,
		      KT_ELF_FN_SIZE);
	/* In the executable segment: refused for its type alone. */
	kt_elf_symbol(&im->sym[KT_SYM_OBJ], kt_elf_strtab, sizeof(kt_elf_strtab),
		      "kt_obj", STT_OBJECT, KT_SH_TEXT, text + KT_ELF_OBJ, 8);
	kt_elf_symbol(&im->sym[KT_SYM_UNDEF], kt_elf_strtab,
		      sizeof(kt_elf_strtab), "kt_undef", STT_FUNC, SHN_UNDEF,
		      0, 0);
	kt_elf_symbol(&im->sym[KT_SYM_IFUNC], kt_elf_strtab,
		      sizeof(kt_elf_strtab), "kt_ifunc", KT_STT_GNU_IFUNC,
		      KT_SH_TEXT, text + KT_ELF_IFUNC, 8);
	kt_elf_symbol(&im->dsym[KT_DSYM_DYN], kt_elf_dynstr,
		      sizeof(kt_elf_dynstr), "kt_dyn", STT_FUNC, KT_SH_TEXT,
		      text + KT_ELF_DYN, KT_ELF_DYN_SIZE);
	/* Also in .dynsym, as an exported function is: .symtab comes first. */
	kt_elf_symbol(&im->dsym[KT_DSYM_FN], kt_elf_dynstr,
		      sizeof(kt_elf_dynstr), "kt_fn", STT_FUNC, KT_SH_TEXT,
		      text + KT_ELF_FN, KT_ELF_FN_SIZE);
	kt_elf_symbol(&im->dsym[KT_DSYM_UNDEF], kt_elf_dynstr,
		      sizeof(kt_elf_dynstr), "kt_undef", STT_FUNC, SHN_UNDEF,
		      0, 0);
	memcpy(im->pristine, im->buf, im->len);
	return im;
}

/* Look @name up in the image's first @im->size bytes. */
static int kt_elf_lookup(struct kunit *test, struct kt_elf *im,
			 const char *name, struct kstats_elf_sym *sym,
			 char *why)
{
	int ret;

	im->bad_read = false;
	memset(sym, 0, sizeof(*sym));
	ret = kstats_elf_find(kt_elf_read, im, im->size, name, sym, why,
			      KT_ELF_WHY);
	KUNIT_EXPECT_FALSE_MSG(test, im->bad_read,
			       "%s: read outside the %zu bytes of the file",
			       name, im->size);
	return ret;
}

/* A lookup in the valid image and what it gives. */
struct kt_elf_case {
	const char *name;
	int err;
	u64 off;		/* the function's offset in .text */
	u64 size;
	bool dynsym;
	const char *why;	/* the refusal, exactly */
};

static const struct kt_elf_case kt_elf_cases[] = {
	{ "kt_fn", 0, KT_ELF_FN, KT_ELF_FN_SIZE, false },
	{ "kt_dyn", 0, KT_ELF_DYN, KT_ELF_DYN_SIZE, true },
	{ "kt_nope", -ENOENT, .why = "no symbol kt_nope" },
	/* Names compare exactly. */
	{ "kt_f", -ENOENT, .why = "no symbol kt_f" },
	{ "kt_fnx", -ENOENT, .why = "no symbol kt_fnx" },
	{ "", -ENOENT, .why = "no symbol name" },
	/* Section names are no symbols. */
	{ ".text", -ENOENT, .why = "no symbol .text" },
	{ "kt_obj", -EINVAL, .why = "symbol kt_obj is an object, not a function" },
	{ "kt_undef", -EINVAL, .why = "symbol kt_undef is undefined in this file" },
	{ "kt_ifunc", -EINVAL,
	  .why = "symbol kt_ifunc is an indirect function (STT_GNU_IFUNC), not a function" },
};

static void kt_elf_expect(struct kunit *test, struct kt_elf *im,
			  const struct kt_elf_case *c)
{
	struct kstats_elf_sym sym;
	char why[KT_ELF_WHY];
	int ret;

	ret = kt_elf_lookup(test, im, c->name, &sym, why);
	KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "%s: %s", c->name, why);
	if (c->err) {
		if (c->why)
			KUNIT_EXPECT_STREQ(test, why, c->why);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, sym.offset, (loff_t)(im->text_off + c->off),
			    "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, sym.size, c->size, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, sym.dynsym, c->dynsym, "%s", c->name);
	KUNIT_EXPECT_STREQ(test, why, "");
}

/*
 * Each name of the valid image: offsets of functions of .symtab and
 * .dynsym, each refusal with its reason; as ET_DYN too; without .symtab
 * (stripped); without either table.
 */
static void kt_elf_find(struct kunit *test)
{
	struct kt_elf *im = kt_elf_build(test);
	struct kstats_elf_sym sym;
	char why[KT_ELF_WHY];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kt_elf_cases); i++)
		kt_elf_expect(test, im, &kt_elf_cases[i]);

	/* No room for a reason is no error either; a reason is cut to fit. */
	KUNIT_EXPECT_EQ(test, kstats_elf_find(kt_elf_read, im, im->size,
					      "kt_obj", &sym, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kstats_elf_find(kt_elf_read, im, im->size,
					      "kt_fn", &sym, why, 0), 0);
	KUNIT_EXPECT_EQ(test, sym.offset, (loff_t)(im->text_off + KT_ELF_FN));
	KUNIT_EXPECT_EQ(test, kstats_elf_find(kt_elf_read, im, im->size,
					      "kt_obj", &sym, why, 7), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "symbol");

	/* A position-independent executable or a library: the same. */
	im->eh->e_type = ET_DYN;
	for (i = 0; i < ARRAY_SIZE(kt_elf_cases); i++)
		kt_elf_expect(test, im, &kt_elf_cases[i]);

	/* Stripped: .dynsym alone. */
	im->sh[KT_SH_SYMTAB].sh_type = SHT_PROGBITS;
	kt_elf_expect(test, im, &(struct kt_elf_case){
		"kt_fn", 0, KT_ELF_FN, KT_ELF_FN_SIZE, true });
	kt_elf_expect(test, im, &(struct kt_elf_case){
		"kt_obj", -ENOENT, .why = "no symbol kt_obj" });
	kt_elf_expect(test, im, &(struct kt_elf_case){
		"kt_undef", -EINVAL,
		.why = "symbol kt_undef is undefined in this file" });

	im->sh[KT_SH_DYNSYM].sh_type = SHT_PROGBITS;
	kt_elf_expect(test, im, &(struct kt_elf_case){
		"kt_fn", -ENOENT, .why = "no symbol table (.symtab or .dynsym)" });
}

/*
 * The image cut at every length: a lookup that has all it reads (the
 * headers, its symbol tables and their strings, .text's segment)
 * succeeds with the right offset; one that has not fails with -ENOEXEC.
 * Never a read past the cut.
 */
static void kt_elf_truncated(struct kunit *test)
{
	struct kt_elf *im = kt_elf_build(test);
	static const struct {
		const char *name;
		u64 off;
	} looks[] = { { "kt_fn", KT_ELF_FN }, { "kt_dyn", KT_ELF_DYN } };
	struct kstats_elf_sym sym;
	char why[KT_ELF_WHY];
	unsigned int i;
	size_t need;
	int ret;

	for (i = 0; i < ARRAY_SIZE(looks); i++) {
		need = i ? im->need_dyn : im->need_fn;
		for (im->size = 0; im->size < im->len; im->size++) {
			ret = kt_elf_lookup(test, im, looks[i].name, &sym, why);
			KUNIT_ASSERT_EQ_MSG(test, ret, im->size >= need ? 0 : -ENOEXEC,
					    "%s in %zu of %zu bytes (it needs %zu): %s",
					    looks[i].name, im->size, im->len, need,
					    why);
			if (!ret)
				KUNIT_ASSERT_EQ_MSG(test, sym.offset,
						    (loff_t)(im->text_off + looks[i].off),
						    "%s in %zu bytes",
						    looks[i].name, im->size);
		}
	}
}

/* One forged image: what is changed, the name looked up, the refusal. */
struct kt_elf_forgery {
	const char *what;
	const char *name;
	int err;
	const char *why;	/* in the refusal */
};

enum {
	KT_F_MAGIC, KT_F_CLASS, KT_F_DATA, KT_F_VERSION, KT_F_TYPE,
	KT_F_MACHINE, KT_F_SHOFF_END, KT_F_SHOFF_WRAP, KT_F_SHNUM_0,
	KT_F_SHNUM_CAP, KT_F_SHNUM_END, KT_F_SHENTSIZE, KT_F_PHENTSIZE,
	KT_F_PHNUM_CAP, KT_F_PHOFF_END, KT_F_PHOFF_WRAP, KT_F_LINK_RANGE,
	KT_F_LINK_TYPE, KT_F_LINK_SELF, KT_F_SYMTAB_END, KT_F_SYMTAB_WRAP,
	KT_F_SYMTAB_HUGE, KT_F_SYMTAB_SIZE, KT_F_ENTSIZE, KT_F_ENTSIZE_0,
	KT_F_STRTAB_END, KT_F_STRTAB_WRAP, KT_F_STRTAB_NUL, KT_F_STRTAB_EMPTY,
	KT_F_STRTAB_CAP, KT_F_STRTAB_HUGE, KT_F_ST_NAME, KT_F_ST_NAME_HUGE,
	KT_F_NOT_X, KT_F_NOT_LOAD, KT_F_PHNUM_0, KT_F_SEG_VADDR, KT_F_SEG_SIZE,
	KT_F_SEG_END, KT_F_SEG_WRAP, KT_F_SYM_IN_R, KT_F_SYMTAB_BAD_DYN,
	KT_F_DYN_LINK, KT_F_DYN_NUL, KT_F_DYN_ST_NAME, KT_F_NR
};

static const struct kt_elf_forgery kt_elf_forgeries[KT_F_NR] = {
	[KT_F_MAGIC] = { "bad magic", "kt_fn", -ENOEXEC, "not an ELF file" },
	[KT_F_CLASS] = { "ELFCLASS32", "kt_fn", -ENOEXEC, "not a 64-bit" },
	[KT_F_DATA] = { "big-endian", "kt_fn", -ENOEXEC, "not a little-endian" },
	[KT_F_VERSION] = { "e_version 2", "kt_fn", -ENOEXEC, "unknown ELF version" },
	[KT_F_TYPE] = { "ET_REL", "kt_fn", -ENOEXEC,
			"not an executable or shared object (e_type 1)" },
	[KT_F_MACHINE] = { "another machine", "kt_fn", -ENOEXEC, "not this kernel's" },
	[KT_F_SHOFF_END] = { "e_shoff at the end", "kt_fn", -ENOEXEC,
			     "section headers past the end" },
	[KT_F_SHOFF_WRAP] = { "e_shoff + e_shnum * 64 overflows", "kt_fn", -ENOEXEC,
			      "section headers past the end" },
	[KT_F_SHNUM_0] = { "e_shnum 0", "kt_fn", -ENOEXEC, "no section headers" },
	[KT_F_SHNUM_CAP] = { "e_shnum SHN_LORESERVE", "kt_fn", -EFBIG,
			     "65280 section headers, more than 65279" },
	[KT_F_SHNUM_END] = { "e_shnum 1000", "kt_fn", -ENOEXEC,
			     "section headers past the end" },
	[KT_F_SHENTSIZE] = { "e_shentsize 40", "kt_fn", -ENOEXEC,
			     "section header size 40, not 64" },
	[KT_F_PHENTSIZE] = { "e_phentsize 32", "kt_fn", -ENOEXEC,
			     "program header size 32, not 56" },
	[KT_F_PHNUM_CAP] = { "e_phnum PN_XNUM", "kt_fn", -EFBIG,
			     "65535 program headers, more than 4096" },
	[KT_F_PHOFF_END] = { "e_phoff near the end", "kt_fn", -ENOEXEC,
			     "program headers past the end" },
	[KT_F_PHOFF_WRAP] = { "e_phoff + e_phnum * 56 overflows", "kt_fn", -ENOEXEC,
			      "program headers past the end" },
	[KT_F_LINK_RANGE] = { "sh_link past the sections", "kt_fn", -ENOEXEC,
			      ".symtab: its link 7 is not a string table" },
	[KT_F_LINK_TYPE] = { "sh_link to .text", "kt_fn", -ENOEXEC,
			     ".symtab: its link 1 is not a string table" },
	[KT_F_LINK_SELF] = { "sh_link to .symtab", "kt_fn", -ENOEXEC,
			     ".symtab: its link 2 is not a string table" },
	[KT_F_SYMTAB_END] = { ".symtab past the end", "kt_fn", -ENOEXEC,
			      ".symtab past the end" },
	[KT_F_SYMTAB_WRAP] = { ".symtab's sh_offset + sh_size overflows", "kt_fn",
			       -ENOEXEC, ".symtab past the end" },
	[KT_F_SYMTAB_HUGE] = { ".symtab of 2^58 symbols", "kt_fn", -ENOEXEC,
			       ".symtab past the end" },
	[KT_F_SYMTAB_SIZE] = { ".symtab's sh_size not in symbols", "kt_fn", -ENOEXEC,
			       ".symtab: entry size 24 and size 121" },
	[KT_F_ENTSIZE] = { "sh_entsize 16", "kt_fn", -ENOEXEC,
			   ".symtab: entry size 16" },
	[KT_F_ENTSIZE_0] = { "sh_entsize 0", "kt_fn", -ENOEXEC,
			     ".symtab: entry size 0" },
	[KT_F_STRTAB_END] = { ".strtab at the end", "kt_fn", -ENOEXEC,
			      ".symtab's string table past the end" },
	[KT_F_STRTAB_WRAP] = { ".strtab's sh_offset + sh_size overflows", "kt_fn",
			       -ENOEXEC, ".symtab's string table past the end" },
	[KT_F_STRTAB_NUL] = { ".strtab without a final NUL", "kt_fn", -ENOEXEC,
			      ".symtab: string table not NUL-terminated" },
	[KT_F_STRTAB_EMPTY] = { ".strtab empty", "kt_fn", -ENOEXEC,
				".symtab: empty string table" },
	[KT_F_STRTAB_CAP] = { ".strtab of 16 MiB + 1", "kt_fn", -EFBIG,
			      "string table of 16777217 bytes, more than 16777216" },
	[KT_F_STRTAB_HUGE] = { ".strtab of 2^64 - 1 bytes", "kt_fn", -EFBIG,
			       "more than 16777216" },
	[KT_F_ST_NAME] = { "kt_fn's st_name at the end of .strtab", "kt_fn", -ENOEXEC,
			   ".symtab: name of symbol 1 past its string table" },
	[KT_F_ST_NAME_HUGE] = { "kt_obj's st_name 2^32 - 1", "kt_dyn", -ENOEXEC,
				".symtab: name of symbol 2 past its string table" },
	[KT_F_NOT_X] = { ".text's segment without PF_X", "kt_fn", -ENOEXEC,
			 "not in an executable segment" },
	[KT_F_NOT_LOAD] = { ".text's segment PT_NOTE", "kt_fn", -ENOEXEC,
			    "not in an executable segment" },
	[KT_F_PHNUM_0] = { "e_phnum 0", "kt_fn", -ENOEXEC,
			   "not in an executable segment" },
	[KT_F_SEG_VADDR] = { ".text's segment above kt_fn", "kt_fn", -ENOEXEC,
			     "not in an executable segment" },
	[KT_F_SEG_SIZE] = { ".text's segment ends at kt_fn", "kt_fn", -ENOEXEC,
			    "not in an executable segment" },
	[KT_F_SEG_END] = { ".text's segment past the end", "kt_fn", -ENOEXEC,
			   "segment 1 past the end" },
	[KT_F_SEG_WRAP] = { ".text's segment's p_offset + p_filesz overflows", "kt_fn",
			    -ENOEXEC, "segment 1 past the end" },
	[KT_F_SYM_IN_R] = { "kt_fn in the read-only segment", "kt_fn", -ENOEXEC,
			    "not in an executable segment" },
	[KT_F_SYMTAB_BAD_DYN] = { "bad .symtab, kt_dyn in .dynsym", "kt_dyn", -ENOEXEC,
				  ".symtab: entry size 16" },
	[KT_F_DYN_LINK] = { ".dynsym's sh_link to .symtab", "kt_dyn", -ENOEXEC,
			    ".dynsym: its link 2 is not a string table" },
	[KT_F_DYN_NUL] = { ".dynstr without a final NUL", "kt_dyn", -ENOEXEC,
			   ".dynsym: string table not NUL-terminated" },
	[KT_F_DYN_ST_NAME] = { "kt_dyn's st_name past .dynstr", "kt_dyn", -ENOEXEC,
			       ".dynsym: name of symbol 1 past its string table" },
};

static void kt_elf_forge(struct kt_elf *im, unsigned int f)
{
	struct elf64_shdr *symtab = &im->sh[KT_SH_SYMTAB];
	struct elf64_shdr *strtab = &im->sh[KT_SH_STRTAB];
	struct elf64_phdr *text = &im->ph[1];
	struct elf64_hdr *eh = im->eh;

	switch (f) {
	case KT_F_MAGIC:
		eh->e_ident[EI_MAG1] = 'X';
		break;
	case KT_F_CLASS:
		eh->e_ident[EI_CLASS] = ELFCLASS32;
		break;
	case KT_F_DATA:
		eh->e_ident[EI_DATA] = ELFDATA2MSB;
		break;
	case KT_F_VERSION:
		eh->e_version = EV_CURRENT + 1;
		break;
	case KT_F_TYPE:
		eh->e_type = ET_REL;
		break;
	case KT_F_MACHINE:
		/* The other arch's. */
		eh->e_machine = EM_X86_64 + EM_AARCH64 - KT_ELF_MACHINE;
		break;
	case KT_F_SHOFF_END:
		eh->e_shoff = im->len;
		break;
	case KT_F_SHOFF_WRAP:
		eh->e_shoff = U64_MAX - sizeof(struct elf64_shdr) + 1;
		break;
	case KT_F_SHNUM_0:
		eh->e_shnum = 0;
		break;
	case KT_F_SHNUM_CAP:
		eh->e_shnum = SHN_LORESERVE;
		break;
	case KT_F_SHNUM_END:
		eh->e_shnum = 1000;
		break;
	case KT_F_SHENTSIZE:
		eh->e_shentsize = 40;
		break;
	case KT_F_PHENTSIZE:
		eh->e_phentsize = 32;
		break;
	case KT_F_PHNUM_CAP:
		eh->e_phnum = PN_XNUM;
		break;
	case KT_F_PHOFF_END:
		eh->e_phoff = im->len - sizeof(struct elf64_phdr);
		break;
	case KT_F_PHOFF_WRAP:
		eh->e_phoff = U64_MAX - sizeof(struct elf64_phdr);
		break;
	case KT_F_LINK_RANGE:
		symtab->sh_link = KT_SH_NR;
		break;
	case KT_F_LINK_TYPE:
		symtab->sh_link = KT_SH_TEXT;
		break;
	case KT_F_LINK_SELF:
		symtab->sh_link = KT_SH_SYMTAB;
		break;
	case KT_F_SYMTAB_END:
		symtab->sh_offset = im->len - sizeof(struct elf64_sym);
		break;
	case KT_F_SYMTAB_WRAP:
		symtab->sh_offset = U64_MAX - sizeof(struct elf64_sym) + 1;
		break;
	case KT_F_SYMTAB_HUGE:
		symtab->sh_size = sizeof(struct elf64_sym) << 58;
		break;
	case KT_F_SYMTAB_SIZE:
		symtab->sh_size++;
		break;
	case KT_F_ENTSIZE:
	case KT_F_SYMTAB_BAD_DYN:
		symtab->sh_entsize = 16;
		break;
	case KT_F_ENTSIZE_0:
		symtab->sh_entsize = 0;
		break;
	case KT_F_STRTAB_END:
		strtab->sh_offset = im->len;
		break;
	case KT_F_STRTAB_WRAP:
		strtab->sh_offset = U64_MAX - 1;
		break;
	case KT_F_STRTAB_NUL:
		im->strtab[sizeof(kt_elf_strtab) - 1] = 'x';
		break;
	case KT_F_STRTAB_EMPTY:
		strtab->sh_size = 0;
		break;
	case KT_F_STRTAB_CAP:
		strtab->sh_size = KSTATS_ELF_MAX_STRTAB + 1;
		break;
	case KT_F_STRTAB_HUGE:
		strtab->sh_size = U64_MAX;
		break;
	case KT_F_ST_NAME:
		im->sym[KT_SYM_FN].st_name = sizeof(kt_elf_strtab);
		break;
	case KT_F_ST_NAME_HUGE:
		im->sym[KT_SYM_OBJ].st_name = U32_MAX;
		break;
	case KT_F_NOT_X:
		text->p_flags = PF_R;
		break;
	case KT_F_NOT_LOAD:
		text->p_type = PT_NOTE;
		break;
	case KT_F_PHNUM_0:
		eh->e_phnum = 0;
		break;
	case KT_F_SEG_VADDR:
		text->p_vaddr += KT_ELF_FN + 1;
		break;
	case KT_F_SEG_SIZE:
		text->p_filesz = KT_ELF_FN;
		break;
	case KT_F_SEG_END:
		text->p_filesz = im->len;
		break;
	case KT_F_SEG_WRAP:
		text->p_offset = U64_MAX - 8;
		break;
	case KT_F_SYM_IN_R:
		im->sym[KT_SYM_FN].st_value = KT_ELF_BASE + 8;
		break;
	case KT_F_DYN_LINK:
		im->sh[KT_SH_DYNSYM].sh_link = KT_SH_SYMTAB;
		break;
	case KT_F_DYN_NUL:
		im->dynstr[sizeof(kt_elf_dynstr) - 1] = 'x';
		break;
	case KT_F_DYN_ST_NAME:
		im->dsym[KT_DSYM_DYN].st_name = sizeof(kt_elf_dynstr);
		break;
	}
}

static void kt_elf_forgery_desc(const struct kt_elf_forgery *f, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", f->what);
}

KUNIT_ARRAY_PARAM(kt_elf_forged, kt_elf_forgeries, kt_elf_forgery_desc);

/*
 * Each forgery of kt_elf_forgeries: refused, with its errno and reason,
 * and no read outside the file.
 */
static void kt_elf_forged(struct kunit *test)
{
	const struct kt_elf_forgery *f = test->param_value;
	struct kt_elf *im = kt_elf_build(test);
	struct kstats_elf_sym sym;
	char why[KT_ELF_WHY];
	int ret;

	kt_elf_forge(im, f - kt_elf_forgeries);
	ret = kt_elf_lookup(test, im, f->name, &sym, why);
	KUNIT_EXPECT_EQ_MSG(test, ret, f->err, "%s: %s", f->what, why);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, f->why),
				  "%s: the reason \"%s\" lacks \"%s\"", f->what,
				  why, f->why);
}

static u32 kt_xorshift32(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Whether byte @pos is of the program headers, or their offset, size or count. */
static bool kt_elf_hits_ph(const struct kt_elf *im, size_t pos)
{
	size_t ph = (u8 *)im->ph - im->buf;

	return (pos >= offsetof(struct elf64_hdr, e_phoff) &&
		pos < offsetof(struct elf64_hdr, e_phoff) + sizeof(u64)) ||
	       (pos >= offsetof(struct elf64_hdr, e_phentsize) &&
		pos < offsetof(struct elf64_hdr, e_shentsize)) ||
	       (pos >= ph && pos < ph + 2 * sizeof(struct elf64_phdr));
}

/*
 * KT_ELF_FUZZ_RUNS images, each the valid one with 1 to
 * KT_ELF_FUZZ_BYTES bytes of its headers or tables (not of .text)
 * changed, from a fixed seed. A lookup, of kt_fn in one image and of
 * kt_dyn (both tables) in the next, finds its function inside the
 * image, in .text while the program headers are intact, or fails with a
 * documented errno and says why; never a read past the image (KASAN
 * watches the rest).
 */
static void kt_elf_fuzz(struct kunit *test)
{
	static const char * const names[] = { "kt_fn", "kt_dyn" };
	unsigned int run, i, n, found = 0, refused = 0;
	struct kt_elf *im = kt_elf_build(test);
	struct kstats_elf_sym sym;
	char why[KT_ELF_WHY];
	const char *name;
	bool ph_hit;
	size_t pos;
	u32 seed = 0x4b535441, r;
	int ret;

	for (run = 0; run < KT_ELF_FUZZ_RUNS; run++) {
		memcpy(im->buf, im->pristine, im->len);
		n = 1 + kt_xorshift32(&seed) % KT_ELF_FUZZ_BYTES;
		ph_hit = false;
		for (i = 0; i < n; i++) {
			r = kt_xorshift32(&seed);
			pos = r % (im->len - KT_ELF_TEXT_SIZE);
			if (pos >= im->text_off)
				pos += KT_ELF_TEXT_SIZE;
			/* One bit, or a byte: near misses and wild values. */
			if (r & BIT(31))
				im->buf[pos] ^= BIT((r >> 28) & 7);
			else
				im->buf[pos] = r >> 20;
			ph_hit |= kt_elf_hits_ph(im, pos);
		}
		name = names[run % ARRAY_SIZE(names)];
		ret = kt_elf_lookup(test, im, name, &sym, why);
		if (!ret) {
			found++;
			KUNIT_EXPECT_GE_MSG(test, sym.offset,
					    ph_hit ? 0 : (loff_t)im->text_off,
					    "run %u: %s", run, name);
			KUNIT_EXPECT_LT_MSG(test, sym.offset,
					    ph_hit ? (loff_t)im->len :
					    (loff_t)(im->text_off + KT_ELF_TEXT_SIZE),
					    "run %u: %s", run, name);
			continue;
		}
		refused++;
		KUNIT_EXPECT_TRUE_MSG(test, ret == -ENOEXEC || ret == -ENOENT ||
				      ret == -EINVAL || ret == -EFBIG ||
				      ret == -ENOMEM,
				      "run %u: %s: error %d (%s)", run, name,
				      ret, why);
		KUNIT_EXPECT_NE_MSG(test, why[0], '\0',
				    "run %u: %s: a refusal says why", run, name);
	}
	/* The fuzz reached past the first check, and broke images. */
	KUNIT_EXPECT_GT(test, found, 0U);
	KUNIT_EXPECT_GT(test, refused, 0U);
	kunit_info(test, "%u images: %u lookups found their function, %u refused\n",
		   KT_ELF_FUZZ_RUNS, found, refused);
}

/* A shmem file that holds the image's first @len bytes. */
static struct file *kt_elf_shmem(struct kunit *test, struct kt_elf *im,
				 size_t len)
{
	struct file *f = shmem_kernel_file_setup("kt_elf", len, KT_SHMEM_FLAGS);
	loff_t pos = 0;
	ssize_t n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	n = kernel_write(f, im->buf, len, &pos);
	if (n != (ssize_t)len) {
		fput(f);
		KUNIT_FAIL_AND_ABORT(test, "kernel_write() of %zu bytes: %zd",
				     len, n);
	}
	return f;
}

/*
 * kstats_elf_find_file(): the image in a file, then the image cut
 * before .dynsym (.symtab still serves).
 */
static void kt_elf_file(struct kunit *test)
{
	struct kt_elf *im = kt_elf_build(test);
	struct kstats_elf_sym sym;
	char why[KT_ELF_WHY];
	struct file *f;

	f = kt_elf_shmem(test, im, im->len);
	KUNIT_EXPECT_EQ_MSG(test, kstats_elf_find_file(f, "kt_fn", &sym, why,
						       sizeof(why)), 0, "%s", why);
	KUNIT_EXPECT_EQ(test, sym.offset, (loff_t)(im->text_off + KT_ELF_FN));
	KUNIT_EXPECT_EQ(test, sym.size, (u64)KT_ELF_FN_SIZE);
	KUNIT_EXPECT_FALSE(test, sym.dynsym);
	KUNIT_EXPECT_EQ_MSG(test, kstats_elf_find_file(f, "kt_dyn", &sym, why,
						       sizeof(why)), 0, "%s", why);
	KUNIT_EXPECT_EQ(test, sym.offset, (loff_t)(im->text_off + KT_ELF_DYN));
	KUNIT_EXPECT_TRUE(test, sym.dynsym);
	KUNIT_EXPECT_EQ(test, kstats_elf_find_file(f, "kt_obj", &sym, why,
						   sizeof(why)), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "symbol kt_obj is an object, not a function");
	fput(f);

	f = kt_elf_shmem(test, im, im->need_fn);
	KUNIT_EXPECT_EQ_MSG(test, kstats_elf_find_file(f, "kt_fn", &sym, why,
						       sizeof(why)), 0, "%s", why);
	KUNIT_EXPECT_EQ(test, sym.offset, (loff_t)(im->text_off + KT_ELF_FN));
	KUNIT_EXPECT_EQ(test, kstats_elf_find_file(f, "kt_dyn", &sym, why,
						   sizeof(why)), -ENOEXEC);
	KUNIT_EXPECT_STREQ(test, why, ".dynsym past the end of the file");
	fput(f);
}

static struct kunit_case kstats_elf_cases[] = {
	KUNIT_CASE(kt_elf_find),
	KUNIT_CASE(kt_elf_truncated),
	KUNIT_CASE_PARAM(kt_elf_forged, kt_elf_forged_gen_params),
	KUNIT_CASE(kt_elf_fuzz),
	KUNIT_CASE(kt_elf_file),
	{}
};

static struct kunit_suite kstats_elf_suite = {
	.name = "kstats_elf",
	.test_cases = kstats_elf_cases,
};

kunit_test_suites(&kstats_test_suite, &kstats_parse_suite, &kstats_elf_suite);

KSTATS_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

MODULE_DESCRIPTION("KUnit tests for kstats");
MODULE_LICENSE("GPL");
