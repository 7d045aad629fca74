// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: shared probe helpers. Calls the record core.
 *
 * Per-key histograms: the table of an entry's keys, its record path past
 * the inline hit of kstats_keys.h, and its _control side.
 *
 * The table has twice N positions, so that a key is found in a few
 * probes. A position is claimed with one cmpxchg of its state from 0 to
 * the key's hash and "claimed", then gets the key and the next of the N
 * histograms made at trace time, and is published "ready" with a
 * release store: no lock, so any context may insert, NMI included. A
 * lookup that meets its hash still being written (another CPU, or the
 * context it interrupted) records into "other" rather than insert the
 * key twice.
 *
 * A key argN pair ends wherever its request completes (an interrupt, a
 * kworker): its key is read at the start, in the task that issued the
 * request, kept with the pending start (kstats_req.c) and handed to the
 * end's sample.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include "kstats_btf.h"
#include "kstats_compat.h"
#include "kstats_keys.h"
#include "kstats_parse.h"
#include "kstats_stack.h"
#include "kstats_value.h"

static const char * const kstats_by_names[] = {
	[KSTATS_BY_COMM] = "comm",
	[KSTATS_BY_PID] = "pid",
	[KSTATS_BY_TID] = "tid",
	[KSTATS_BY_CPU] = "cpu",
	[KSTATS_BY_CGROUP] = "cgroup",
	[KSTATS_BY_RETVAL] = "retval",
	[KSTATS_BY_SYSCALL] = "syscall",
	[KSTATS_BY_ARG] = "arg",
	[KSTATS_BY_STACK] = "stack",
};

/* The cgroup v2 id of the current task; RCU is watching, preemption off. */
static __always_inline u64 kstats_cgroup_now(void)
{
#ifdef CONFIG_CGROUPS
	return cgroup_id(rcu_dereference_raw(current->cgroups)->dfl_cgrp);
#else
	return 0;
#endif
}

/*
 * The key of this hit by @src, in @k0 and @k1, and its hash; @ret is
 * FUNC's return value where the hook has one, or for KSTATS_BY_START the
 * address of the key the start read.
 */
static __always_inline u32 kstats_key_of(const struct kstats_keys *t,
					 enum kstats_cmd_by src,
					 unsigned long ret, u64 *k0, u64 *k1)
{
	u32 hash;

	if (kstats_key_quick(t, src, ret, k0, k1, &hash))
		return hash;
	switch (src) {
	case KSTATS_BY_START:
		/* Not read at the start: kstats_key_readable() is false. */
		break;
	case KSTATS_BY_SYSCALL:
		/* At sys_exit, in the task: its syscall's saved registers. */
		*k0 = (s64)syscall_get_nr(current, task_pt_regs(current));
		break;
	default:
		*k0 = kstats_cgroup_now();
		break;
	}
	return kstats_key_hash(*k0, 0);
}

/*
 * A cgroup is read only where RCU watches; every other key anywhere. A
 * key read at the start comes with the sample, unless it was a cgroup
 * the start could not read.
 */
static __always_inline bool kstats_key_readable(const struct kstats_keys *t,
						enum kstats_cmd_by src,
						unsigned long ret)
{
	if (src == KSTATS_BY_START)
		return ((const u64 *)ret)[1] != KSTATS_KEY_UNREAD;
	return src != KSTATS_BY_CGROUP || rcu_is_watching();
}

/*
 * Position @e was claimed for @k: give it a histogram, publish it. A key
 * past N, claimed in a race with the last one's, stays claimed: never
 * ready, it sends its samples to other, and a ready position always has
 * a histogram, which kstats_keys_record() then need not test.
 */
static struct kstats *kstats_keys_fill(struct kstats_keys *t,
				       struct kstats_key *e, u64 k0, u64 k1,
				       unsigned long tag,
				       const struct kstats_key_stack *s)
{
	unsigned int i = atomic_inc_return(&t->nr) - 1;

	e->k[0] = k0;
	e->k[1] = k1;
	if (i >= t->max)
		return NULL;
	if (s)
		t->stacks[e - t->pos] = *s;
	e->hist = t->hists[i];
	/* Ready with its key and histogram: pairs with the lookups' acquire. */
	smp_store_release(&e->state, tag | KSTATS_KEY_READY);
	return e->hist;
}

/*
 * The histogram of key @k0, @k1 (hash @hash), inserted if new, with its
 * frames @stack for by stack (a stack key given without them is looked
 * up only); NULL: other.
 */
static struct kstats *kstats_keys_find(struct kstats_keys *t,
				       u64 k0, u64 k1, u32 hash,
				       const struct kstats_key_stack *stack)
{
	unsigned long tag = (unsigned long)hash << 2, s;
	unsigned int i = hash & t->mask, n;
	struct kstats_key *e;

	for (n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
		e = &t->pos[i];
		/* A ready state comes with its key: see kstats_keys_fill(). */
		s = smp_load_acquire(&e->state);
		if (!s) {
			/* A stack's key is new only with its frames. */
			if (atomic_read(&t->nr) >= t->max || (t->stacks && !stack))
				return NULL;
			s = cmpxchg(&e->state, 0, tag | KSTATS_KEY_CLAIMED);
			if (!s)
				return kstats_keys_fill(t, e, k0, k1, tag,
							stack);
		}
		if ((s & ~KSTATS_KEY_PHASE) != tag)
			continue;
		if ((s & KSTATS_KEY_PHASE) != KSTATS_KEY_READY)
			return NULL;
		if (e->k[0] == k0 && e->k[1] == k1)
			return e->hist;
	}
	return NULL;
}

/* A sample into @h, the histogram of its key, or into other if NULL. */
static __always_inline void kstats_keys_add(struct kstats_keys *t,
					    struct kstats *h, u64 val)
{
	if (unlikely(!h)) {
		h = t->other;
		this_cpu_inc(*t->dropped);
	}
	__kstats_add_sample(h, val);
}

/* Preemption is off, or @t is lean: see kstats_keys_record_src(). */
notrace void kstats_keys_record_miss(struct kstats_keys *t, u64 val, u64 k0,
				     u64 k1, u32 hash)
{
	kstats_keys_add(t, kstats_keys_find(t, k0, k1, hash, NULL), val);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_record_miss);

/*
 * by stack: the key of the frames @s, two hashes of them (a collision of
 * both merges two stacks).
 */
static __always_inline void kstats_keys_stack_hash(const struct kstats_key_stack *s,
						   u64 k[2])
{
	unsigned int f;

	k[0] = s->nr;
	k[1] = 0;
	for (f = 0; f < s->nr; f++) {
		k[0] = hash_64(k[0] ^ s->ip[f], 64);
		k[1] = (k[1] ^ s->ip[f]) * GOLDEN_RATIO_64 + f;
	}
}

/*
 * by stack at FUNC's return: the frames from where FUNC returns to (@to,
 * where the hook knows it), else from the first that is not kstats'.
 */
static __always_inline void kstats_keys_record_stack(struct kstats_keys *t,
						     u64 val, unsigned long to)
{
	struct kstats_key_stack s;
	u64 k[2];

	s.nr = kstats_stack_save_from(t->memos, s.ip, KSTATS_KEY_STACK_DEPTH,
				      to, true);
	kstats_keys_stack_hash(&s, k);
	kstats_keys_add(t, kstats_keys_find(t, k[0], k[1],
					    kstats_key_hash(k[0], k[1]), &s),
			val);
}

/* A cgroup is read only where RCU watches; elsewhere the hit goes to other. */
notrace void kstats_keys_record_slow(struct kstats_probe *p, u64 val,
				     unsigned long ret, unsigned long to)
{
	struct kstats_keys *t = p->keys;
	u64 k0, k1;
	u32 hash;

	if (t->src == KSTATS_BY_STACK) {
		kstats_keys_record_stack(t, val, to);
		return;
	}
	if (unlikely(!kstats_key_readable(t, t->src, ret))) {
		kstats_keys_add(t, NULL, val);
		return;
	}
	hash = kstats_key_of(t, t->src, ret, &k0, &k1);
	kstats_keys_record_miss(t, val, k0, k1, hash);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_record_slow);

int kstats_parse_keys(struct kstats_cmd *cmd, const char *key,
		      const char *val)
{
	unsigned int i, n;

	if (!strcasecmp(key, "keys")) {
		if (cmd->keys)
			return kstats_fail(cmd, -EINVAL, "keys given twice");
		if (kstrtouint(val, 10, &n) || !n || n > KSTATS_KEYS_MAX)
			return kstats_fail(cmd, -EINVAL, "keys must be 1 to %u",
					   KSTATS_KEYS_MAX);
		cmd->keys = n;
		return 0;
	}
	if (strcasecmp(key, "by"))
		return -ENOENT;
	if (cmd->by)
		return kstats_fail(cmd, -EINVAL, "by given twice");
	for (i = KSTATS_BY_COMM; i < ARRAY_SIZE(kstats_by_names); i++)
		if (i != KSTATS_BY_ARG && !strcasecmp(val, kstats_by_names[i])) {
			cmd->by = i;
			return 0;
		}
	if (!kstats_parse_arg(val, &cmd->by_arg)) {
		cmd->by = KSTATS_BY_ARG;
		return 0;
	}
	return kstats_fail(cmd, -EINVAL,
			   "by: KEY is comm, pid, tid, cpu, cgroup, retval, syscall, stack or arg1 to arg%d",
			   KSTATS_REG_ARGS);
}

/* Bytes of a histogram: its slots and extremes on every possible CPU. */
static size_t kstats_hist_bytes(const struct kstats *ks)
{
	return sizeof(*ks) + kstats_bytes(ks->frac_bits);
}

static size_t kstats_keys_bytes(const struct kstats_keys *t)
{
	return struct_size(t, pos, t->mask + 1) +
	       t->max * sizeof(*t->hists) +
	       (t->stacks ? (t->mask + 1) * sizeof(*t->stacks) +
			    kstats_stack_memo_bytes() : 0) +
	       (t->max + 1) * kstats_hist_bytes(t->other) +
	       num_possible_cpus() * sizeof(unsigned long);
}

static void kstats_keys_destroy(struct kstats_keys *t)
{
	unsigned int i;

	if (t->hists)
		for (i = 0; i < t->max && t->hists[i]; i++)
			kstats_free(t->hists[i]);
	kfree(t->hists);
	kvfree(t->stacks);
	kstats_stack_memo_free(t->memos);
	if (!IS_ERR_OR_NULL(t->other))
		kstats_free(t->other);
	free_percpu(t->dropped);
	mutex_destroy(&t->resetting);
	kvfree(t);
}

/* Which keys the command's hits have where the sample is recorded. */
static int kstats_keys_check(struct kstats_cmd *cmd)
{
	if (cmd->op == KSTATS_CMD_TRACE_GAP)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by: a gap spans two hits of any tasks; no key");
	/*
	 * With key cpu, the end may run in another task (an interrupt); an
	 * argument is read at the start.
	 */
	if (cmd->op == KSTATS_CMD_TRACE_PAIR && cmd->key == KSTATS_KEY_CPU &&
	    cmd->by != KSTATS_BY_CPU && cmd->by != KSTATS_BY_ARG &&
	    cmd->by != KSTATS_BY_STACK)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by %s: a pair keyed by cpu may end in another task; use key task",
				   kstats_by_names[cmd->by]);
	if (cmd->by == KSTATS_BY_RETVAL &&
	    ((cmd->op != KSTATS_CMD_TRACE && cmd->op != KSTATS_CMD_TRACE_PCPU &&
	      cmd->op != KSTATS_CMD_TRACE_USER) ||
	     cmd->value == KSTATS_VALUE_ARG || cmd->counter))
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by retval: only trace FUNC, pcpu:FUNC and PATH:SYMBOL, of time or value retval, see a return");
	/* The end runs at the syscall's exit, in its task (see kstats_key_of()). */
	if (cmd->by == KSTATS_BY_SYSCALL &&
	    (cmd->op != KSTATS_CMD_TRACE_PAIR || cmd->key != KSTATS_KEY_TASK ||
	     !cmd->end.tracepoint || strcmp(cmd->end.sym, "sys_exit")))
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by syscall: only for a key task pair that ends at __tracepoint_sys_exit");
	/* Read at the hook's entry, kept for its return or end. */
	if (cmd->by == KSTATS_BY_ARG &&
	    ((cmd->op != KSTATS_CMD_TRACE && cmd->op != KSTATS_CMD_TRACE_PAIR &&
	      cmd->op != KSTATS_CMD_TRACE_USER) ||
	     cmd->value != KSTATS_VALUE_TIME || cmd->counter))
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by argN: only trace FUNC and PATH:SYMBOL of time, and pairs");
	/* FUNC's entry keeps one word per call: no field path, no string. */
	if (cmd->by == KSTATS_BY_ARG && cmd->by_path[0] &&
	    cmd->op != KSTATS_CMD_TRACE_PAIR)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by argN->MEMBER: only at a pair's start or end (not yet trace FUNC)");
	if (cmd->by == KSTATS_BY_STACK && cmd->outliers)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by stack with outliers: each outlier has its stack already");
	if (!IS_ENABLED(CONFIG_CGROUPS) && cmd->by == KSTATS_BY_CGROUP)
		return kstats_fail(cmd, -EOPNOTSUPP,
				   "by cgroup: this kernel has no cgroups");
	return 0;
}

/*
 * by retval: the type of FUNC's return value, which BTF or "type" give
 * (value retval has it already); a void function has none. by argN: the
 * argument's, at FUNC or the pair's start; no pointer (keys are shown).
 */
static int kstats_keys_ret_type(struct kstats_probe *p, struct kstats_cmd *cmd,
				struct kstats_btf_path *path,
				struct kstats_btf_int *type)
{
	bool end = cmd->by_site == KSTATS_SIDE_END;

	if (cmd->by == KSTATS_BY_ARG)
		return kstats_site_arg_type(cmd, end ? &p->end : &p->start,
					    cmd->op == KSTATS_CMD_TRACE ?
					    "FUNC" : end ? "end" : "start",
					    "by", cmd->by_arg,
					    path->names[0] ? path : NULL, false,
					    type);
	if (cmd->by != KSTATS_BY_RETVAL)
		return 0;
	if (p->value == KSTATS_VALUE_RETVAL) {
		type->bytes = p->vbits / 8;
		type->is_signed = p->vsigned;
		return 0;
	}
	return kstats_value_type(p, cmd, 0, type);
}

size_t kstats_keys_memory(const struct kstats_cmd *cmd)
{
	unsigned int n = cmd->keys ?: KSTATS_KEYS_DEFAULT;
	size_t size = roundup_pow_of_two(2 * n);
	struct kstats_keys *t;

	if (cmd->by == KSTATS_BY_NONE)
		return 0;
	return struct_size(t, pos, size) + n * sizeof(*t->hists) +
	       (cmd->by == KSTATS_BY_STACK ?
		size * sizeof(*t->stacks) + kstats_stack_memo_bytes() : 0) +
	       (n + 1) * kstats_bytes(cmd->bits) +
	       num_possible_cpus() * sizeof(unsigned long);
}

int kstats_keys_setup(struct kstats_probe *p, struct kstats_cmd *cmd)
{
	unsigned int n = cmd->keys ?: KSTATS_KEYS_DEFAULT, size, i;
	struct kstats_btf_path path = { .names = cmd->by_path, .str_ok = true };
	struct kstats_btf_int type = { .bytes = 8 };
	struct kstats_keys *t;
	int ret;

	if (cmd->by == KSTATS_BY_NONE)
		return 0;
	ret = kstats_keys_check(cmd) ?:
	      kstats_keys_ret_type(p, cmd, &path, &type);
	if (ret)
		return ret;
	/* A name's bytes are compared and shown, not cut to a width. */
	if (path.str)
		type.bytes = 8;
	size = roundup_pow_of_two(2 * n);
	t = kvzalloc(struct_size(t, pos, size), GFP_KERNEL);
	if (!t)
		goto nomem;
	mutex_init(&t->resetting);
	t->by = cmd->by;
	p->by_arg = cmd->by_arg;
	p->by_hook = cmd->op == KSTATS_CMD_TRACE_PAIR &&
		     cmd->by == KSTATS_BY_STACK;
	t->src = kstats_keys_at_start(p) ? KSTATS_BY_START : cmd->by;
	t->site = cmd->by_site;
	t->kstr = path.str;
	if (path.n)
		kstats_path_set(&t->path, &path, type.bytes);
	t->kbits = type.bytes * 8;
	t->ksigned = type.is_signed;
	t->kmask = kstats_int_mask(t->kbits);
	t->max = n;
	t->mask = size - 1;
	t->hists = kcalloc(n, sizeof(*t->hists), GFP_KERNEL);
	t->dropped = alloc_percpu(unsigned long);
	t->other = kstats_alloc(cmd->name, cmd->bits);
	if (!t->hists || !t->dropped || IS_ERR(t->other))
		goto nomem;
	if (cmd->by == KSTATS_BY_STACK) {
		t->stacks = kvcalloc(size, sizeof(*t->stacks), GFP_KERNEL);
		if (!t->stacks)
			goto nomem;
#ifdef KSTATS_HAVE_STACK_MEMO
		t->memos = kstats_stack_memo_alloc();
		if (!t->memos)
			goto nomem;
#endif
	}
	for (i = 0; i < n; i++) {
		t->hists[i] = kstats_alloc(cmd->name, cmd->bits);
		if (IS_ERR(t->hists[i])) {
			t->hists[i] = NULL;
			goto nomem;
		}
	}
	t->parts.part = t->hists;
	t->parts.used = &t->nr;
	t->parts.max = n;
	t->parts.rest = t->other;
	p->keys = t;
	/* The entry shows its keys' samples: it gets none of its own. */
	p->ks->parts = &t->parts;
	return 0;
nomem:
	if (t)
		kstats_keys_destroy(t);
	return kstats_fail(cmd, -ENOMEM, "keys %u: out of memory", n);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_setup);

void kstats_keys_free(struct kstats_probe *p)
{
	if (p->keys)
		kstats_keys_destroy(p->keys);
	p->keys = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_free);

/* The table, its histograms and counts cleared; frozen, under resetting. */
VISIBLE_IF_KUNIT void kstats_keys_clear(struct kstats_keys *t)
{
	unsigned int i;
	int cpu;

	KUNIT_STATIC_STUB_REDIRECT(kstats_keys_clear, t);
	memset(t->pos, 0, (t->mask + 1) * sizeof(t->pos[0]));
	for (i = 0; i < t->max; i++) {
		kstats_clear(t->hists[i]);
		cond_resched();
	}
	kstats_clear(t->other);
	for_each_possible_cpu(cpu)
		per_cpu(*t->dropped, cpu) = 0;
	atomic_set(&t->nr, 0);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_clear);

void kstats_keys_reset(struct kstats_keys *t)
{
	u8 shape = 0;

	/*
	 * Another reset's thaw must not let hits insert keys while this one
	 * clears the table: two keys would share a histogram.
	 */
	mutex_lock(&t->resetting);
	WRITE_ONCE(t->frozen, true);
	if (t->shape) {
		shape = READ_ONCE(*t->shape);
		WRITE_ONCE(*t->shape, t->frozen_shape);
	}
	/* Each hit that saw it thawed has left kstats_keys_record(). */
	synchronize_rcu();
	/* And each task that read the shape, preemptible since. */
	if (t->shape)
		synchronize_rcu_tasks();
	kstats_keys_clear(t);
	if (t->shape) {
		/* The cleared table before the thaw, for a lean entry's end, */
		smp_store_release(t->shape, shape);
	}
	/* and for kstats_keys_record_src()'s acquire. */
	smp_store_release(&t->frozen, false);
	mutex_unlock(&t->resetting);
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_reset);

void kstats_keys_show(struct seq_file *m, const struct kstats_probe *p)
{
	const struct kstats_keys *t = p->keys;
	unsigned long dropped = 0;
	int cpu;

	if (!t)
		return;
	for_each_possible_cpu(cpu)
		dropped += READ_ONCE(per_cpu(*t->dropped, cpu));
	seq_printf(m, " by %s", kstats_by_names[t->by]);
	if (t->by == KSTATS_BY_ARG && t->kstr)
		seq_printf(m, "%u%s type string", p->by_arg, t->path.names);
	else if (t->by == KSTATS_BY_ARG)
		seq_printf(m, "%u%s type %c%u", p->by_arg, t->path.names,
			   t->ksigned ? 's' : 'u', t->kbits);
	if (t->site == KSTATS_SIDE_END)
		seq_puts(m, " at end");
	seq_printf(m, " keys %u keys_max %u keys_dropped %lu bytes %zu",
		   min_t(unsigned int, atomic_read(&t->nr), t->max), t->max,
		   dropped, kstats_hist_bytes(p->ks) + kstats_keys_bytes(t));
}

unsigned int kstats_keys_size(const struct kstats_keys *t)
{
	return t->mask + 1;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_size);

struct kstats *kstats_keys_hist(const struct kstats_keys *t, unsigned int i)
{
	const struct kstats_key *e = &t->pos[i];

	/* Its key and histogram are written before it is ready. */
	if ((smp_load_acquire(&e->state) & KSTATS_KEY_PHASE) != KSTATS_KEY_READY)
		return NULL;
	return e->hist;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_hist);

struct kstats *kstats_keys_other(const struct kstats_keys *t)
{
	return t->other;
}
EXPORT_SYMBOL_IF_KUNIT(kstats_keys_other);

/*
 * A comm with every byte that is not printable ASCII, a space or a
 * backslash written as \ooo, so that a key is one word of its line.
 */
void kstats_keys_print(struct seq_file *m, const struct kstats_keys *t,
		       const u64 k[2])
{
	if (((t->by == KSTATS_BY_RETVAL || t->by == KSTATS_BY_ARG) &&
	     t->ksigned) || t->by == KSTATS_BY_SYSCALL)
		seq_printf(m, "%lld", (s64)k[0]);
	else if (t->by != KSTATS_BY_COMM && !t->kstr)
		seq_printf(m, "%llu", k[0]);
	else
		kstats_print_comm(m, (const char *)k, 2 * sizeof(u64));
}

void kstats_print_comm(struct seq_file *m, const char *comm, size_t len)
{
	const unsigned char *c = (const unsigned char *)comm;
	unsigned int j;

	for (j = 0; j < len && (c[j] || !j); j++) {
		if (c[j] > ' ' && c[j] < 0x7f && c[j] != '\\')
			seq_putc(m, c[j]);
		else
			seq_printf(m, "\\%03o", c[j]);
	}
}

/*
 * A stack key: its frames outermost first, joined by ';' (the folded form
 * of flame graphs), each SYMBOL+OFFSET, its module in brackets after it.
 */
static void kstats_keys_stack_name(struct seq_file *m,
				   const struct kstats_key_stack *s)
{
	char sym[KSYM_SYMBOL_LEN], *c;
	unsigned int f;

	if (!s->nr)
		seq_putc(m, '-');
	for (f = s->nr; f--; ) {
		sprint_symbol(sym, s->ip[f]);
		if (str_has_prefix(sym, "0x")) {
			seq_putc(m, '?');
		} else {
			c = strchr(sym, '/');
			seq_write(m, sym, c ? c - sym : strcspn(sym, " "));
			c = strchr(sym, '[');
			if (c)
				seq_write(m, c, strcspn(c, " "));
		}
		if (f)
			seq_putc(m, ';');
	}
}

void kstats_keys_name(struct seq_file *m, const struct kstats_keys *t,
		      unsigned int i)
{
	if (t->by == KSTATS_BY_STACK)
		kstats_keys_stack_name(m, &t->stacks[i]);
	else
		kstats_keys_print(m, t, t->pos[i].k);
}

void kstats_keys_key(const struct kstats_probe *p, unsigned long ret,
		     u64 k[2])
{
	const struct kstats_keys *t = p->keys;

	if (kstats_key_readable(t, t->src, ret))
		kstats_key_of(t, t->src, ret, &k[0], &k[1]);
}

/*
 * by argN->NAME: the char array at @v, up to its first NUL, into @k (the
 * rest zero, its last byte too); false if the read faults.
 */
static notrace bool kstats_keys_str(const struct kstats_keys *t,
				    unsigned long v, u64 k[2])
{
	char *c = (char *)k;
	size_t len;

	k[0] = 0;
	k[1] = 0;
	if (copy_from_kernel_nofault(c, (void *)v, t->kstr))
		return false;
	len = strnlen(c, KSTATS_STR_KEY - 1);
	memset(c + len, 0, KSTATS_STR_KEY - len);
	return true;
}

/*
 * A pair's by stack, at its site: the frames @s go into the table now,
 * the hashes into @k, with the sample, as the sample has only those. Not
 * during a reset, which waits for this (preemption is off) and forgets
 * the key.
 */
notrace void kstats_keys_stack_key(struct kstats_keys *t,
				   const struct kstats_key_stack *s, u64 k[2])
{
	kstats_keys_stack_hash(s, k);
	/* Thawed: the table a reset cleared is seen clear. */
	if (!smp_load_acquire(&t->frozen))
		kstats_keys_find(t, k[0], k[1], kstats_key_hash(k[0], k[1]), s);
}

notrace void kstats_keys_start_key(const struct kstats_probe *p,
				   unsigned long v, u64 k[2])
{
	struct kstats_keys *t = p->keys;

	if (t->kstr) {
		if (!kstats_keys_str(t, v, k)) {
			this_cpu_inc(p->stats->faulted);
			k[1] = KSTATS_KEY_UNREAD;
		}
	} else if (t->by == KSTATS_BY_ARG) {
		k[0] = kstats_keys_arg_key(p, v);
		k[1] = 0;
	} else if (kstats_key_readable(t, t->by, 0)) {
		kstats_key_of(t, t->by, 0, &k[0], &k[1]);
	} else {
		k[0] = 0;
		k[1] = KSTATS_KEY_UNREAD;
	}
}
