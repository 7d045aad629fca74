/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstats: the differences between the kernels kstats builds on, in one
 * place. Each names the upstream change behind it; a feature test where
 * the headers offer one, a version number only where they do not. Kbuild
 * keeps those that choose which objects to build (KSTATS_HAVE_FPROBE,
 * KSTATS_HAVE_DIRECT, KSTATS_DIRECT_OPS).
 */
#ifndef _KSTATS_COMPAT_H
#define _KSTATS_COMPAT_H

#include <linux/stddef.h>
#include <linux/tracepoint.h>
#include <linux/version.h>
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
 * 6.13, "module: Convert symbol namespace to string literal": the
 * namespace of MODULE_IMPORT_NS() is a string. No macro tells.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define KSTATS_IMPORT_NS(ns)	MODULE_IMPORT_NS(#ns)
#else
#define KSTATS_IMPORT_NS(ns)	MODULE_IMPORT_NS(ns)
#endif

/*
 * 7.1 grew struct btf_header from 24 to 32 bytes (layout_off, layout_len),
 * while the pahole that distributions build with still writes 24-byte
 * headers: hdr_len says which. kstats reads the fields up to str_len,
 * which both have.
 */
#define KSTATS_BTF_HDR_MIN	offsetofend(struct btf_header, str_len)

#endif /* _KSTATS_COMPAT_H */
