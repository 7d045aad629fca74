// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: front end. Calls the parser, the commands
 * (kstats_control.c, kstats_calibrate.c), the listing and the core.
 *
 * kstats debugfs front end: one text file per entry, plus _control.
 *
 * Opening an entry copies its counters once; the whole read is then
 * formatted from that copy, so totals and CDFs agree with each other
 * while recording goes on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "kstats_compat.h"
#include "kstats_internal.h"
#include "kstats_parse.h"

#define KSTATS_P_SCALE	1000000	/* p is printed with six decimals */
#define KSTATS_CMD_MAX	16	/* longest entry command, with newline */
/*
 * Files are 0444 although they take commands: under lockdown, debugfs
 * refuses to open a file whose mode has more than 0444, even for reading
 * (debugfs_locked_down()). Root still writes them (CAP_DAC_OVERRIDE) when
 * the kernel is not locked down; under lockdown debugfs refuses every
 * write open itself. Whatever the mode, a write is a command only from
 * an opener that may trace (kstats_may_command()).
 */
#define KSTATS_FILE_MODE	0444

static struct dentry *kstats_root;
static struct dentry *kstats_keys_dir;
static struct dentry *kstats_outliers_dir;

/* One output line: a (slot, CPU) pair, or a slot total when cpu < 0. */
struct kstats_line {
	u16 slot;
	s16 cpu;
	u64 count;
	u64 avg;
	u64 p;		/* cumulative fraction, in KSTATS_P_SCALE units */
};

struct kstats_snapshot {
	unsigned int nr_lines;
	unsigned int nr_cpus;	/* possible CPUs, for the totals lines */
	struct kstats_line lines[];
};

/*
 * Copy the counters of every possible CPU, summed over the histograms
 * @ks shows (kstats_view()), then build the output lines: for each
 * non-empty slot, its CPU lines in CPU order, then its total.
 */
struct kstats_snapshot *kstats_snapshot(struct kstats *ks)
{
	unsigned int nr_slots = ks->nr_slots, ncpu = 0, n = 0, i, c, slot;
	struct kstats_snapshot *snap = NULL;
	struct kstats_slot *raw;
	u64 *cpu_total, *cpu_cum, total = 0, cum = 0;
	int *cpu_id;
	int cpu;

	raw = kvcalloc(array_size(num_possible_cpus(), nr_slots),
		       sizeof(*raw), GFP_KERNEL);
	cpu_total = kcalloc(num_possible_cpus(), sizeof(u64), GFP_KERNEL);
	cpu_cum = kcalloc(num_possible_cpus(), sizeof(u64), GFP_KERNEL);
	cpu_id = kcalloc(num_possible_cpus(), sizeof(int), GFP_KERNEL);
	if (!raw || !cpu_total || !cpu_cum || !cpu_id)
		goto out;

	for_each_possible_cpu(cpu) {
		struct kstats_slot *dst = raw + ncpu * nr_slots;
		const struct kstats *h;

		for (i = 0; (h = kstats_view(ks, i)); i++) {
			const struct kstats_slot *src = per_cpu_ptr(h->slots, cpu);

			for (slot = 0; slot < nr_slots; slot++) {
				/* Sum first, as the writer adds it first. */
				dst[slot].sum += READ_ONCE(src[slot].sum);
				dst[slot].count += READ_ONCE(src[slot].count);
			}
			/* keys 1024: over a thousand histograms per CPU. */
			cond_resched();
		}
		for (slot = 0; slot < nr_slots; slot++) {
			cpu_total[ncpu] += dst[slot].count;
			if (dst[slot].count)
				n++;
		}
		total += cpu_total[ncpu];
		cpu_id[ncpu++] = cpu;
	}

	/* Each non-empty slot also gets a totals line. */
	for (slot = 0; slot < nr_slots; slot++)
		for (c = 0; c < ncpu; c++)
			if (raw[c * nr_slots + slot].count) {
				n++;
				break;
			}

	snap = kvzalloc(struct_size(snap, lines, n), GFP_KERNEL);
	if (!snap)
		goto out;
	snap->nr_cpus = ncpu;

	for (i = 0, slot = 0; slot < nr_slots; slot++) {
		u64 slot_count = 0, slot_sum = 0;

		for (c = 0; c < ncpu; c++) {
			struct kstats_slot *s = &raw[c * nr_slots + slot];
			struct kstats_line *l;

			if (!s->count)
				continue;
			cpu_cum[c] += s->count;
			slot_count += s->count;
			slot_sum += s->sum;
			l = &snap->lines[i++];
			l->slot = slot;
			l->cpu = cpu_id[c];
			l->count = s->count;
			l->avg = kstats_slot_mean(slot, ks->frac_bits,
						  s->sum, s->count);
			l->p = mul_u64_u64_div_u64(cpu_cum[c], KSTATS_P_SCALE,
						   cpu_total[c]);
		}
		if (slot_count) {
			struct kstats_line *l = &snap->lines[i++];

			cum += slot_count;
			l->slot = slot;
			l->cpu = -1;
			l->count = slot_count;
			l->avg = kstats_slot_mean(slot, ks->frac_bits,
						  slot_sum, slot_count);
			l->p = mul_u64_u64_div_u64(cum, KSTATS_P_SCALE, total);
		}
	}
	snap->nr_lines = i;
out:
	kfree(cpu_id);
	kfree(cpu_cum);
	kfree(cpu_total);
	kvfree(raw);
	return snap;
}

static void *kstats_seq_start(struct seq_file *m, loff_t *pos)
{
	struct kstats_snapshot *snap = m->private;

	return *pos < snap->nr_lines ? &snap->lines[*pos] : NULL;
}

static void *kstats_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return kstats_seq_start(m, pos);
}

static void kstats_seq_stop(struct seq_file *m, void *v)
{
}

static void kstats_line_show(struct seq_file *m,
			     const struct kstats_snapshot *snap,
			     const struct kstats_line *l)
{
	bool totals = l->cpu < 0;

	seq_printf(m, "slot %-3u CPU%c %-4u count %8llu avg %8llu p %c.%06llu\n",
		   l->slot, totals ? 'S' : ' ',
		   totals ? snap->nr_cpus : l->cpu, l->count, l->avg,
		   l->p >= KSTATS_P_SCALE ? '1' : '0',
		   l->p % KSTATS_P_SCALE);
}

static int kstats_seq_show(struct seq_file *m, void *v)
{
	kstats_line_show(m, m->private, v);
	return 0;
}

bool kstats_snapshot_empty(const struct kstats_snapshot *snap)
{
	return !snap->nr_lines;
}

void kstats_snapshot_show(struct seq_file *m,
			  const struct kstats_snapshot *snap,
			  void (*prefix)(struct seq_file *m, const void *arg),
			  const void *arg)
{
	unsigned int i;

	for (i = 0; i < snap->nr_lines; i++) {
		prefix(m, arg);
		kstats_line_show(m, snap, &snap->lines[i]);
	}
}

static const struct seq_operations kstats_seq_ops = {
	.start = kstats_seq_start,
	.next = kstats_seq_next,
	.stop = kstats_seq_stop,
	.show = kstats_seq_show,
};

static int kstats_open(struct inode *inode, struct file *file)
{
	struct kstats_snapshot *snap;
	int ret;

	/* A write-only open needs no copy. */
	if (!(file->f_mode & FMODE_READ))
		return 0;
	ret = kstats_may_show_values(inode->i_private, "");
	if (ret)
		return ret;
	snap = kstats_snapshot(inode->i_private);
	if (!snap)
		return -ENOMEM;
	ret = seq_open(file, &kstats_seq_ops);
	if (ret) {
		kvfree(snap);
		return ret;
	}
	((struct seq_file *)file->private_data)->private = snap;
	return 0;
}

/* Runs even after the entry is gone: it must only touch the file's data. */
static int kstats_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	if (!(file->f_mode & FMODE_READ))
		return 0;
	kvfree(m->private);
	return seq_release(inode, file);
}

static ssize_t kstats_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct kstats *ks = file_inode(file)->i_private;
	char buf[KSTATS_CMD_MAX];
	size_t len = count;
	int op, ret;

	ret = kstats_may_command(file, ks->name);
	if (ret)
		return ret;
	if (count >= sizeof(buf)) {
		pr_warn_ratelimited("%s: command too long (%zu bytes)\n",
				    ks->name, count);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	/* As _control: a NUL must not hide what follows it. */
	if (strlen(buf) != len) {
		pr_warn_ratelimited("%s: command refused: NUL byte in '%*pE'\n",
				    ks->name, (int)len, buf);
		return -EINVAL;
	}

	if (!strcasecmp(buf, "reset")) {
		op = KSTATS_CMD_RESET;
	} else if (!strcasecmp(buf, "start")) {
		op = KSTATS_CMD_START;
	} else if (!strcasecmp(buf, "stop")) {
		op = KSTATS_CMD_STOP;
	} else {
		pr_warn_ratelimited("%s: unknown command '%*pE', expected start, stop or reset\n",
				    ks->name, (int)len, buf);
		return -EINVAL;
	}
	/* One whose probes cannot be armed again stays stopped: an error. */
	ret = kstats_state_file(ks, op);
	return ret ? ret : count;
}

static loff_t kstats_llseek(struct file *file, loff_t offset, int whence)
{
	if (!(file->f_mode & FMODE_READ))
		return -ESPIPE;
	return seq_lseek(file, offset, whence);
}

static ssize_t kstats_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	return seq_read(file, ubuf, count, ppos);
}

static const struct file_operations kstats_entry_fops = {
	.owner = THIS_MODULE,
	.open = kstats_open,
	.read = kstats_read,
	.write = kstats_write,
	.llseek = kstats_llseek,
	.release = kstats_release,
};

static void kstats_fs_remove(struct kstats *ks);

static int kstats_fs_add(struct kstats *ks)
{
	struct dentry *d;

	/* debugfs's full proxy gives the removal protection we rely on. */
	d = debugfs_create_file(ks->name, KSTATS_FILE_MODE, kstats_root, ks,
				&kstats_entry_fops);
	if (IS_ERR(d))
		return PTR_ERR(d);
	ks->dentry = d;
	if (ks->origin == KSTATS_ORIGIN_CONTROL) {
		int ret = kstats_keys_fs_add(kstats_keys_dir, ks) ?:
			  kstats_outliers_fs_add(kstats_outliers_dir, ks);

		if (ret) {
			kstats_fs_remove(ks);
			return ret;
		}
	}
	return 0;
}

static void kstats_fs_remove(struct kstats *ks)
{
	debugfs_remove(ks->outliers_dentry);
	debugfs_remove(ks->keys_dentry);
	debugfs_remove(ks->dentry);
	ks->outliers_dentry = NULL;
	ks->keys_dentry = NULL;
	ks->dentry = NULL;
}

static const struct kstats_files kstats_fs_files = {
	.add = kstats_fs_add,
	.remove = kstats_fs_remove,
};

/*
 * _control: one line per entry, "name N origin kernel bits B state S" and
 * " min N max N" once it has samples, or
 * for entries of _control the line of kstats_probe_show(); then the lines
 * of the last calibration. Positions past the entries are calibration
 * lines; the entry count at start() tells them apart, in m->private.
 */
static void *kstats_control_at(struct seq_file *m, loff_t pos)
{
	struct list_head *l = seq_list_start(&kstats_list, pos);
	unsigned long n;

	if (l)
		return l;
	n = (unsigned long)m->private;
	if (pos - n < kstats_calibration_lines())
		return SEQ_START_TOKEN;
	return NULL;
}

static void *kstats_control_start(struct seq_file *m, loff_t *pos)
{
	struct list_head *l;
	unsigned long n = 0;

	mutex_lock(&kstats_mutex);
	list_for_each(l, &kstats_list)
		n++;
	m->private = (void *)n;
	return kstats_control_at(m, *pos);
}

static void *kstats_control_next(struct seq_file *m, void *v, loff_t *pos)
{
	return kstats_control_at(m, ++*pos);
}

static void kstats_control_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kstats_mutex);
}

static int kstats_control_show(struct seq_file *m, void *v)
{
	const struct kstats *ks;

	if (v == SEQ_START_TOKEN) {
		kstats_calibration_show(m, m->index - (unsigned long)m->private);
		return 0;
	}
	ks = list_entry(v, struct kstats, list);
	if (ks->origin == KSTATS_ORIGIN_CONTROL) {
		kstats_probe_show(m, ks);
		return 0;
	}
	seq_printf(m, "name %s origin kernel bits %u state %s", ks->name,
		   ks->frac_bits, READ_ONCE(ks->active) ? "running" : "stopped");
	kstats_show_extremes(m, ks);
	seq_printf(m, " memory %zu\n", ks->mem);
	return 0;
}

static const struct seq_operations kstats_control_sops = {
	.start = kstats_control_start,
	.next = kstats_control_next,
	.stop = kstats_control_stop,
	.show = kstats_control_show,
};

int kstats_control_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &kstats_control_sops);
}

/* One command per write; see kstats_command.c. */
static ssize_t kstats_control_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	int ret = kstats_may_command(file, "_control");

	return ret ?: kstats_command_write(ubuf, count, "_control");
}

static const struct file_operations kstats_control_fops = {
	.owner = THIS_MODULE,
	.open = kstats_control_open,
	.read = seq_read,
	.write = kstats_control_write,
	.llseek = seq_lseek,
	.release = seq_release,
};

int kstats_fs_init(void)
{
	struct dentry *d;

	/* debugfs refuses write opens itself; say what that means here. */
	if (security_locked_down(LOCKDOWN_DEBUGFS))
		pr_notice("kernel is locked down: debugfs files are read-only; write commands into /dev/kstats\n");
	kstats_root = debugfs_create_dir("kstats", NULL);
	if (IS_ERR(kstats_root))
		return PTR_ERR(kstats_root);
	d = debugfs_create_file("_control", KSTATS_FILE_MODE, kstats_root, NULL,
				&kstats_control_fops);
	if (IS_ERR(d)) {
		debugfs_remove(kstats_root);
		return PTR_ERR(d);
	}
	kstats_keys_dir = kstats_keys_fs_init(kstats_root);
	kstats_outliers_dir = kstats_outliers_fs_init(kstats_root);
	if (IS_ERR(kstats_keys_dir) || IS_ERR(kstats_outliers_dir)) {
		debugfs_remove(kstats_root);
		return IS_ERR(kstats_keys_dir) ? PTR_ERR(kstats_keys_dir) :
						 PTR_ERR(kstats_outliers_dir);
	}
	kstats_core_set_files(&kstats_fs_files);
	return 0;
}

void kstats_fs_exit(void)
{
	debugfs_remove(kstats_root);
}
