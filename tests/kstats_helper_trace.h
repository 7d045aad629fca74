/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the kstats test helper, hit around each call of
 * kstats_helper_work() by the "work" commands.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kstats_helper

#if !defined(_KSTATS_HELPER_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KSTATS_HELPER_TRACE_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(kstats_helper_class,
	TP_PROTO(unsigned int i),
	TP_ARGS(i),
	TP_STRUCT__entry(
		__field(unsigned int, i)
	),
	TP_fast_assign(
		__entry->i = i;
	),
	TP_printk("i=%u", __entry->i)
);

/* Before call @i of kstats_helper_work(). */
DEFINE_EVENT(kstats_helper_class, kstats_helper_start,
	TP_PROTO(unsigned int i),
	TP_ARGS(i)
);

/* After call @i of kstats_helper_work(). */
DEFINE_EVENT(kstats_helper_class, kstats_helper_end,
	TP_PROTO(unsigned int i),
	TP_ARGS(i)
);

#endif /* _KSTATS_HELPER_TRACE_H */

/* Out of tree: the header is found through -I in Kbuild. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kstats_helper_trace
#include <trace/define_trace.h>
