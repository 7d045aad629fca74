// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the key table (a sample's key) and
 * the kernel.
 *
 * "outliers N": each CPU keeps the N largest samples it recorded since the
 * last reset, in a store of its own (kstats_outliers.h). A sample above
 * its CPU's least one replaces it: the store is taken with a CPU-local
 * cmpxchg of @busy, so an NMI that interrupts an update leaves it alone
 * (and counts the sample as missed), and its seqcount lets a reader on
 * another CPU copy it whole. The time, CPU, task and stack are those of
 * the hit that recorded the sample: a function's return, a pair's end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>
#include "kstats_compat.h"
#include "kstats_keys.h"
#include "kstats_outliers.h"
#include "kstats_parse.h"
#include "kstats_probe.h"
#include "kstats_stack.h"

int kstats_parse_outliers(struct kstats_cmd *cmd, const char *key,
			  const char *val)
{
	unsigned int n;

	if (strcasecmp(key, "outliers"))
		return -ENOENT;
	if (cmd->outliers)
		return kstats_fail(cmd, -EINVAL, "outliers given twice");
	if (kstrtouint(val, 10, &n) || !n || n > KSTATS_OUTLIERS_MAX)
		return kstats_fail(cmd, -EINVAL, "outliers must be 1 to %u",
				   KSTATS_OUTLIERS_MAX);
	cmd->outliers = n;
	return 0;
}

static void kstats_outliers_destroy(struct kstats_outliers *t)
{
	int cpu;

	if (t->cpu)
		for_each_possible_cpu(cpu)
			kvfree(t->cpu[cpu]);
	kfree(t->cpu);
	free_percpu(t->floor);
	mutex_destroy(&t->resetting);
	kfree(t);
}

size_t kstats_outliers_memory(const struct kstats_cmd *cmd)
{
	struct kstats_outliers_cpu *c;

	if (!cmd->outliers)
		return 0;
	return sizeof(struct kstats_outliers) + nr_cpu_ids * sizeof(c) +
	       num_possible_cpus() * (struct_size(c, o, cmd->outliers) +
				      sizeof(u64));
}

int kstats_outliers_setup(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	struct kstats_outliers_cpu *c;
	struct kstats_outliers *t;
	int cpu;

	if (!cmd->outliers)
		return 0;
	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		goto nomem;
	mutex_init(&t->resetting);
	t->max = cmd->outliers;
	t->user = cmd->op == KSTATS_CMD_TRACE_USER;
	t->cpu = kcalloc(nr_cpu_ids, sizeof(*t->cpu), GFP_KERNEL);
	t->floor = alloc_percpu(u64);
	if (!t->cpu || !t->floor)
		goto nomem;
	for_each_possible_cpu(cpu) {
		c = kvzalloc_node(struct_size(c, o, t->max), GFP_KERNEL,
				  cpu_to_node(cpu));
		if (!c)
			goto nomem;
		seqcount_init(&c->seq);
		t->cpu[cpu] = c;
	}
	p->outliers = t;
	return 0;
nomem:
	if (t)
		kstats_outliers_destroy(t);
	return kstats_fail(cmd, -ENOMEM, "out of memory");
}
EXPORT_SYMBOL_IF_KUNIT(kstats_outliers_setup);

void kstats_outliers_free(struct kstats_probe *p)
{
	if (p->outliers)
		kstats_outliers_destroy(p->outliers);
	p->outliers = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_outliers_free);

/* Where a new sample goes: a free place, else the least sample's. */
static unsigned int kstats_outliers_place(const struct kstats_outliers_cpu *c,
					  unsigned int max)
{
	unsigned int i, least = 0;

	if (c->n < max)
		return c->n;
	for (i = 1; i < max; i++)
		if (c->o[i].value < c->o[least].value)
			least = i;
	return least;
}

static u64 kstats_outliers_least(const struct kstats_outliers_cpu *c,
				 unsigned int max)
{
	unsigned int i;
	u64 least = U64_MAX;

	if (c->n < max)
		return 0;
	for (i = 0; i < max; i++)
		least = min(least, c->o[i].value);
	return least;
}

notrace void kstats_outliers_add(struct kstats_probe *p, u64 val,
				 unsigned long ret, unsigned long to)
{
	struct kstats_outliers *t = p->outliers;
	struct kstats_outliers_cpu *c;
	struct kstats_outlier *o;

	preempt_disable_notrace();
	c = t->cpu[smp_processor_id()];
	/* Thawed: the store a reset cleared is seen clear. */
	if (unlikely(smp_load_acquire(&t->frozen)))
		goto out;
	/* This CPU's own: no lock prefix, atomic against its NMIs. */
	if (cmpxchg_local(&c->busy, 0, 1)) {
		atomic_long_inc(&c->missed);
		goto out;
	}
	if (val > __this_cpu_read(*t->floor)) {
		raw_write_seqcount_begin(&c->seq);
		o = &c->o[kstats_outliers_place(c, t->max)];
		if (c->n < t->max)
			c->n++;
		o->value = val;
		o->time = ktime_get_real_fast_ns();
		o->mono = ktime_get_mono_fast_ns();
		o->key[0] = 0;
		o->key[1] = 0;
		if (p->keys)
			kstats_keys_key(p, ret, o->key);
		o->pid = task_tgid_nr(current);
		o->tid = task_pid_nr(current);
		o->cpu = smp_processor_id();
		memcpy(o->comm, current->comm, sizeof(o->comm));
		if (t->user) {
			o->stack[0] = to;
			o->nr_stack = !!to;
		} else {
			o->nr_stack = kstats_stack_save(o->stack,
							KSTATS_OUTLIER_DEPTH,
							to, false);
		}
		this_cpu_write(*t->floor, kstats_outliers_least(c, t->max));
		raw_write_seqcount_end(&c->seq);
	}
	barrier();
	WRITE_ONCE(c->busy, 0);
out:
	preempt_enable_notrace();
}
EXPORT_SYMBOL_IF_KUNIT(kstats_outliers_add);

/* Every CPU's store cleared; frozen, under resetting. */
VISIBLE_IF_KUNIT void kstats_outliers_clear(struct kstats_outliers *t)
{
	struct kstats_outliers_cpu *c;
	int cpu;

	KUNIT_STATIC_STUB_REDIRECT(kstats_outliers_clear, t);
	for_each_possible_cpu(cpu) {
		c = t->cpu[cpu];
		/* No reader may spin on a writer that was preempted. */
		preempt_disable();
		raw_write_seqcount_begin(&c->seq);
		c->n = 0;
		WRITE_ONCE(*per_cpu_ptr(t->floor, cpu), 0);
		atomic_long_set(&c->missed, 0);
		raw_write_seqcount_end(&c->seq);
		preempt_enable();
	}
}
EXPORT_SYMBOL_IF_KUNIT(kstats_outliers_clear);

void kstats_outliers_reset(struct kstats_outliers *t)
{
	/*
	 * Two resets at once would both write the seqcounts (an increment
	 * lost leaves one odd, and its readers spinning for good), and the
	 * first one's thaw would let samples in while the second clears.
	 */
	mutex_lock(&t->resetting);
	WRITE_ONCE(t->frozen, true);
	/* Each hit that saw it thawed has left kstats_outliers_add(). */
	synchronize_rcu();
	kstats_outliers_clear(t);
	/* The cleared stores before the thaw: see kstats_outliers_add(). */
	smp_store_release(&t->frozen, false);
	mutex_unlock(&t->resetting);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_outliers_reset);

void kstats_outliers_show(struct seq_file *m, const struct kstats_probe *p)
{
	const struct kstats_outliers *t = p->outliers;
	unsigned long missed = 0;
	int cpu;

	if (!t)
		return;
	for_each_possible_cpu(cpu)
		missed += atomic_long_read(&t->cpu[cpu]->missed);
	seq_printf(m, " outliers %u outliers_missed %lu", t->max, missed);
}

static int kstats_outlier_cmp(const void *a, const void *b)
{
	const struct kstats_outlier *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

int kstats_outliers_copy(const struct kstats_outliers *t,
			 struct kstats_outlier *out, unsigned int room)
{
	const struct kstats_outliers_cpu *c;
	unsigned int n = 0, k, seq;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = t->cpu[cpu];
		if (n + t->max > room)
			return -ENOMEM;
		do {
			seq = read_seqcount_begin(&c->seq);
			k = min(READ_ONCE(c->n), t->max);
			memcpy(out + n, c->o, k * sizeof(*out));
		} while (read_seqcount_retry(&c->seq, seq));
		n += k;
		cond_resched();
	}
	sort(out, n, sizeof(*out), kstats_outlier_cmp, NULL);
	return min(n, t->max);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_outliers_copy);
