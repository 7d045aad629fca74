// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: record core. Calls the kernel only; a published entry's file
 * is made and removed by the front end through the functions that it
 * hands down at init (kstats_core_set_files()), so that kstats_new() of
 * the public API makes the file with the entry without the core naming
 * what is above it.
 *
 * kstats histogram core: entry lifetime and the recording hot path.
 *
 * Samples go into per-CPU log-linear slots: a power-of-two bucket given
 * by fls64(value >> frac_bits), split into 2^frac_bits linear slots, so
 * that every slot spans at most 2^-frac_bits of its lower edge.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/cpu.h>
#include <linux/string.h>
#include "kstats_compat.h"
#include "kstats_internal.h"

DEFINE_PER_CPU(unsigned int, kstats_busy);
LIST_HEAD(kstats_list);
/* Protects kstats_list, hence the uniqueness of names. */
DEFINE_MUTEX(kstats_mutex);

/*
 * At most this many entries at once (kernel code and _control together):
 * each costs up to 30 KiB per possible CPU (frac_bits 5), and a runaway
 * script must not eat the machine's memory. kstats_new() and "trace" get
 * -ENOSPC beyond it.
 */
static unsigned int max_entries = 1024;
module_param(max_entries, uint, 0444);
MODULE_PARM_DESC(max_entries, "most entries at once (default 1024)");

/*
 * One budget, in bytes, for what the entries take together: their
 * histograms' counters (per possible CPU, the keys' too), and their
 * tables (keys, outliers, pending starts). 0 at load: a sixteenth of the
 * RAM. Past it, kstats_new() and "trace" get -ENOSPC.
 */
static unsigned long max_memory;
module_param(max_memory, ulong, 0444);
MODULE_PARM_DESC(max_memory,
		 "bytes that all entries may take together (default 0: a sixteenth of the RAM at load)");
static atomic_long_t kstats_mem_used;

void kstats_core_init(void)
{
	if (!max_memory)
		max_memory = (totalram_pages() >> 4) << PAGE_SHIFT;
}

int kstats_mem_charge(size_t bytes)
{
	long used = atomic_long_read(&kstats_mem_used);

	do {
		if (bytes > max_memory || used > max_memory - bytes)
			return -ENOSPC;
	} while (!atomic_long_try_cmpxchg(&kstats_mem_used, &used,
					  used + bytes));
	return 0;
}

void kstats_mem_uncharge(size_t bytes)
{
	atomic_long_sub(bytes, &kstats_mem_used);
}

void kstats_mem_why(char *why, size_t len, size_t bytes)
{
	snprintf(why, len,
		 "memory budget: the entry takes %zu bytes, %ld of max_memory=%lu are in use",
		 bytes, atomic_long_read(&kstats_mem_used), max_memory);
}

size_t kstats_bytes(u8 frac_bits)
{
	return num_possible_cpus() *
	       (kstats_nr_slots(frac_bits) * sizeof(struct kstats_slot) +
		sizeof(struct kstats_extremes));
}

/* The front end's: an entry's files, made and removed under kstats_mutex. */
static const struct kstats_files *kstats_files;

void kstats_core_set_files(const struct kstats_files *files)
{
	mutex_lock(&kstats_mutex);
	kstats_files = files;
	mutex_unlock(&kstats_mutex);
}

bool kstats_name_valid(const char *name)
{
	size_t len = strnlen(name, KSTATS_NAME_MAX + 1);
	size_t i;

	if (!len || len > KSTATS_NAME_MAX || name[0] == '_')
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	/* The kernel's isalnum() also takes Latin-1 letters (0xc0-0xff). */
	for (i = 0; i < len; i++)
		if (!isascii(name[i]) ||
		    (!isalnum(name[i]) && !strchr("_.:-", name[i])))
			return false;
	return true;
}

struct kstats *kstats_find(const char *name)
{
	struct kstats *ks;

	lockdep_assert_held(&kstats_mutex);
	list_for_each_entry(ks, &kstats_list, list)
		if (!strcmp(ks->name, name))
			return ks;
	return NULL;
}

void kstats_free(struct kstats *ks)
{
	kstats_mem_uncharge(ks->mem);
	free_percpu(ks->slots);
	kfree(ks);
}

struct kstats *kstats_alloc(const char *name, u8 frac_bits)
{
	struct kstats *ks;

	if (!name || !kstats_name_valid(name) ||
	    frac_bits > KSTATS_MAX_FRAC_BITS)
		return ERR_PTR(-EINVAL);

	ks = kzalloc_obj(*ks, GFP_KERNEL);
	if (!ks)
		return ERR_PTR(-ENOMEM);
	strscpy(ks->name, name, sizeof(ks->name));
	ks->frac_bits = frac_bits;
	ks->nr_slots = kstats_nr_slots(frac_bits);
	/* The extremes right after the slots: one allocation, as before them. */
	ks->slots = __alloc_percpu(ks->nr_slots * sizeof(struct kstats_slot) +
				   sizeof(struct kstats_extremes),
				   __alignof__(struct kstats_slot));
	if (!ks->slots) {
		kfree(ks);
		return ERR_PTR(-ENOMEM);
	}
	ks->ext = (struct kstats_extremes __percpu *)(ks->slots + ks->nr_slots);
	ks->active = true;
	return ks;
}

/* Number of published entries; the caller holds kstats_mutex. */
static unsigned int kstats_count(void)
{
	unsigned int n = 0;
	struct kstats *ks;

	lockdep_assert_held(&kstats_mutex);
	list_for_each_entry(ks, &kstats_list, list)
		n++;
	return n;
}

int kstats_publish(struct kstats *ks)
{
	int ret;

	mutex_lock(&kstats_mutex);
	if (kstats_find(ks->name)) {
		ret = -EEXIST;
		goto out;
	}
	/* _control logs why; kstats_new() returns it to its caller. */
	if (kstats_count() >= max_entries) {
		ret = -ENOSPC;
		goto out;
	}
	ret = kstats_files ? kstats_files->add(ks) : -ENODEV;
	if (ret)
		goto out;
	list_add_tail(&ks->list, &kstats_list);
out:
	mutex_unlock(&kstats_mutex);
	return ret;
}

struct kstats *kstats_new(const char *name, u8 frac_bits)
{
	struct kstats *ks;
	char why[128];
	size_t mem;
	int ret;

	/* Checks @frac_bits, which the size is computed from. */
	ks = kstats_alloc(name, frac_bits);
	if (IS_ERR(ks))
		return ks;
	mem = kstats_bytes(frac_bits);
	ret = kstats_mem_charge(mem);
	if (ret) {
		kstats_mem_why(why, sizeof(why), mem);
		pr_warn_ratelimited("%s: %s\n", name, why);
		kstats_free(ks);
		return ERR_PTR(ret);
	}
	ks->mem = mem;
	ret = kstats_publish(ks);
	if (ret) {
		kstats_free(ks);
		return ERR_PTR(ret);
	}
	return ks;
}
EXPORT_SYMBOL_GPL(kstats_new);

void kstats_delete(struct kstats *ks)
{
	if (IS_ERR_OR_NULL(ks))
		return;
	/*
	 * The file goes before the name is free: a new entry of the same
	 * name must not find the old file still in debugfs. File operations
	 * in flight are waited for (they never take kstats_mutex); later
	 * ones get -EIO.
	 */
	mutex_lock(&kstats_mutex);
	kstats_files->remove(ks);
	list_del(&ks->list);
	mutex_unlock(&kstats_mutex);
	kstats_free(ks);
}
EXPORT_SYMBOL_GPL(kstats_delete);

/*
 * Out of line part of kstats_record(). It checks the state again, for
 * callers that come here directly. notrace: kstats must never trace itself.
 */
notrace void __kstats_record(struct kstats *ks, u64 val)
{
	kstats_record_inline(ks, val);
}
EXPORT_SYMBOL_GPL(__kstats_record);

void kstats_start(struct kstats *ks)
{
	/* A key task pair started before a stop ends in no later run. */
	WRITE_ONCE(ks->epoch, ks->epoch + 1);
	WRITE_ONCE(ks->active, true);
}
EXPORT_SYMBOL_GPL(kstats_start);

void kstats_stop(struct kstats *ks)
{
	WRITE_ONCE(ks->active, false);
}
EXPORT_SYMBOL_GPL(kstats_stop);

static void kstats_clear_cpu(struct kstats *ks, int cpu)
{
	memset(per_cpu_ptr(ks->slots, cpu), 0,
	       ks->nr_slots * sizeof(struct kstats_slot));
	memset(per_cpu_ptr(ks->ext, cpu), 0, sizeof(struct kstats_extremes));
}

static void kstats_reset_local(void *arg)
{
	kstats_clear_cpu(arg, smp_processor_id());
}

void kstats_clear(struct kstats *ks)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kstats_clear_cpu(ks, cpu);
}

void kstats_reset(struct kstats *ks)
{
	int cpu;

	might_sleep();
	cpus_read_lock();
	on_each_cpu(kstats_reset_local, ks, 1);
	/* Nobody records on an offline CPU. */
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			kstats_clear_cpu(ks, cpu);
	cpus_read_unlock();
}
EXPORT_SYMBOL_GPL(kstats_reset);

bool kstats_extremes(const struct kstats *ks, u64 *lo, u64 *hi)
{
	const struct kstats *h;
	u64 top = 0, not_lo = 0;
	unsigned int i;
	int cpu;

	for (i = 0; (h = kstats_view(ks, i)); i++)
		for_each_possible_cpu(cpu) {
			const struct kstats_extremes *e =
				per_cpu_ptr(h->ext, cpu);

			top = max(top, READ_ONCE(e->max));
			not_lo = max(not_lo, READ_ONCE(e->not_min));
		}
	*lo = ~not_lo;
	*hi = top;
	return top || not_lo;
}

void kstats_show_extremes(struct seq_file *m, const struct kstats *ks)
{
	u64 lo, hi;

	if (kstats_extremes(ks, &lo, &hi))
		seq_printf(m, " min %llu max %llu", lo, hi);
}

/* Module exit: API users hold a module reference; only leaks remain. */
void kstats_core_exit(void)
{
	struct kstats *ks, *tmp;

	list_for_each_entry_safe(ks, tmp, &kstats_list, list) {
		pr_warn("%s: entry was not deleted by its creator\n", ks->name);
		kstats_delete(ks);
	}
}
