/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: none; included by any layer.
 *
 * kstats: the differences between the kernels kstats builds on, in one
 * place. Each names the upstream change behind it; a feature test where
 * the headers offer one, a version number only where they do not. Kbuild
 * keeps those that choose which objects to build (KSTATS_HAVE_FPROBE,
 * KSTATS_HAVE_DIRECT, KSTATS_DIRECT_OPS).
 */
#ifndef _KSTATS_COMPAT_H
#define _KSTATS_COMPAT_H

#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/tracepoint.h>
#include <uapi/linux/btf.h>

/*
 * 6.16: tracepoints made with DECLARE_TRACE() get a _tp suffix
 * ("tracepoint: Have tracepoints created with DECLARE_TRACE() have _tp
 * suffix"); DECLARE_TRACE_EVENT(), new then, keeps the name. kstats' own
 * tracepoints keep their names everywhere.
 */
#ifdef DECLARE_TRACE_EVENT
#define KSTATS_DECLARE_TRACE(name, proto, args) \
	DECLARE_TRACE_EVENT(name, PARAMS(proto), PARAMS(args))
#else
#define KSTATS_DECLARE_TRACE(name, proto, args) \
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#endif

/*
 * KUnit's static stubs (6.2 on; Kbuild tests for the header): kstats_test.c
 * redirects a call that names itself with KUNIT_STATIC_STUB_REDIRECT(),
 * to hold a reset inside its critical section. Without the header, and
 * without KUnit, nothing.
 */
#ifdef KSTATS_HAVE_STATIC_STUB
#include <kunit/static_stub.h>
#else
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) ((void)(real_fn_name))
#endif

/*
 * kstats_ratelimit_restart() gives @rs a new burst and a new window,
 * from its next line on. The ratelimit rework (in 6.18's headers, not in
 * 6.12's; Kbuild tests for it) counts a window's lines down in rs_n_left,
 * set from burst while RATELIMIT_INITIALIZED is clear; before, ->printed
 * counted them up and a ->begin of 0 began a window.
 */
static inline void kstats_ratelimit_restart(struct ratelimit_state *rs,
					    int burst)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rs->lock, flags);
	WRITE_ONCE(rs->burst, burst);
#ifdef KSTATS_RATELIMIT_N_LEFT
	rs->flags &= ~RATELIMIT_INITIALIZED;
	atomic_set(&rs->rs_n_left, burst);
#else
	rs->begin = 0;
	rs->printed = 0;
#endif
	raw_spin_unlock_irqrestore(&rs->lock, flags);
}

/*
 * The kmalloc_obj() family sizes an allocation by the type of what it is
 * for (in 7.3's <linux/slab.h>, not in 6.18's; 7.x's checkpatch asks for
 * it). Before, the same by sizeof.
 */
#ifndef kmalloc_obj
#define kmalloc_obj(p, gfp)	kmalloc(sizeof(p), gfp)
#define kzalloc_obj(p, gfp)	kzalloc(sizeof(p), gfp)
#endif

/*
 * 6.13, "module: Convert symbol namespace to string literal": the
 * namespace of MODULE_IMPORT_NS() is a string. No macro tells; Kbuild
 * defines KSTATS_NS_IDENT where <linux/module.h> still stringifies it.
 */
#ifdef KSTATS_NS_IDENT
#define KSTATS_IMPORT_NS(ns)	MODULE_IMPORT_NS(ns)
#else
#define KSTATS_IMPORT_NS(ns)	MODULE_IMPORT_NS(#ns)
#endif

/*
 * 7.1 grew struct btf_header from 24 to 32 bytes (layout_off, layout_len),
 * while the pahole that distributions build with still writes 24-byte
 * headers: hdr_len says which. kstats reads the fields up to str_len,
 * which both have.
 */
#define KSTATS_BTF_HDR_MIN	offsetofend(struct btf_header, str_len)

/*
 * 6.14 rebuilt fprobe on the function graph tracer ("fprobe: Rewrite
 * fprobe on function-graph tracer"): its handlers get a struct
 * ftrace_regs instead of a struct pt_regs, and nr_maxactive went with the
 * rethook it sized. Kbuild defines KSTATS_FPROBE_FREGS where
 * <linux/fprobe.h>'s callbacks take a struct ftrace_regs.
 */
#ifdef KSTATS_FPROBE_FREGS
#define kstats_fp_regs		ftrace_regs
#define kstats_fp_sp(r)		ftrace_regs_get_stack_pointer(r)
#define kstats_fp_arg(r, n)	ftrace_regs_get_argument(r, n)
#define kstats_fp_retval(r)	ftrace_regs_get_return_value(r)
#else
#define kstats_fp_regs		pt_regs
#define kstats_fp_sp(r)		kernel_stack_pointer(r)
#define kstats_fp_arg(r, n)	regs_get_kernel_argument(r, n)
#define kstats_fp_retval(r)	regs_return_value(r)
#endif

/*
 * 7.x: an ftrace_ops' ops_func also gets the ip of the site whose direct
 * call is shared (ftrace_ops_func_t). Kbuild defines KSTATS_OPS_FUNC_IP
 * where <linux/ftrace.h> says so.
 */
#ifdef KSTATS_OPS_FUNC_IP
#define KSTATS_OPS_FUNC_IP_ARG	unsigned long ip,
#else
#define KSTATS_OPS_FUNC_IP_ARG
#endif

/*
 * sched_process_exit also tells whether the thread group died on newer
 * kernels (7.3 has it, 6.12 not). Kbuild defines KSTATS_EXIT_GROUP_DEAD
 * where <trace/events/sched.h> says so: a probe takes exactly the
 * tracepoint's arguments, which kCFI checks.
 */
#ifdef KSTATS_EXIT_GROUP_DEAD
#define KSTATS_EXIT_TP_PARAMS	void *data, struct task_struct *tsk, bool group_dead
#else
#define KSTATS_EXIT_TP_PARAMS	void *data, struct task_struct *tsk
#endif

#ifdef KSTATS_HAVE_FPROBE
#include <linux/fprobe.h>

static inline void kstats_fp_maxactive(struct fprobe *fp, int n)
{
#ifndef KSTATS_FPROBE_FREGS
	fp->nr_maxactive = n;
#endif
}
#endif

/*
 * uprobes (kstats_uprobe.c): from 6.12 uprobe_register() returns the
 * uprobe, which unregistering takes, in two steps (Kbuild defines
 * KSTATS_UPROBE_PTR); from 6.13 the handlers take a word per call
 * (KSTATS_UPROBE_DATA), and an entry handler may ask for no return.
 */
#ifdef KSTATS_UPROBE_DATA
#define KSTATS_UP_ENTRY_PARAMS	struct uprobe_consumer *uc, struct pt_regs *regs, \
				__u64 *data
#define KSTATS_UP_RET_PARAMS	struct uprobe_consumer *uc, unsigned long func, \
				struct pt_regs *regs, __u64 *data
#else
#define KSTATS_UP_ENTRY_PARAMS	struct uprobe_consumer *uc, struct pt_regs *regs
#define KSTATS_UP_RET_PARAMS	struct uprobe_consumer *uc, unsigned long func, \
				struct pt_regs *regs
#endif
#ifdef UPROBE_HANDLER_IGNORE
#define KSTATS_UPROBE_NO_RETURN	UPROBE_HANDLER_IGNORE
#else
#define KSTATS_UPROBE_NO_RETURN	0
#endif

#endif /* _KSTATS_COMPAT_H */
