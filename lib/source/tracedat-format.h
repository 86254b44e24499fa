/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_TRACEDAT_FORMAT_H
#define KMT_SOURCE_TRACEDAT_FORMAT_H

/*
 * Facts of the trace.dat format (trace-cmd.dat(5)), for its reader
 * (source/tracedat.c) and its writer (record/tracedat-write.c) alike, so
 * that what one writes the other reads by the same names: the magic, the
 * tags before the options and the CPU tables, the option ids, and the
 * text options kmemtrace record adds.
 */

/* the file's first bytes, and those of perf.data's tracing data */
#define KMT_TD_MAGIC		"\x17\x08\x44" "tracing"
#define KMT_TD_MAGIC_LEN	10

/* v6: the tags, NUL and space padded to KMT_TD_TAG_LEN bytes */
#define KMT_TD_TAG_OPTIONS	"options  "
#define KMT_TD_TAG_FLYRECORD	"flyrecord"
#define KMT_TD_TAG_LATENCY	"latency  "
#define KMT_TD_TAG_LEN		10

/* option ids, as trace-cmd 3.1 numbers them; 0 ends a v6 option list */
enum kmt_td_option_id {
	KMT_TD_OPT_DATE		= 1,	/* moves record times */
	KMT_TD_OPT_CPUSTAT	= 2,	/* per-CPU ring-buffer stats text */
	KMT_TD_OPT_BUFFER	= 3,	/* offset and name of an instance */
	KMT_TD_OPT_TRACECLOCK	= 4,	/* contents of trace_clock */
	KMT_TD_OPT_UNAME	= 5,	/* "sysname nodename release machine" */
	KMT_TD_OPT_HOOK		= 6,
	KMT_TD_OPT_OFFSET	= 7,	/* moves record times */
	KMT_TD_OPT_CPUCOUNT	= 8,
	KMT_TD_OPT_VERSION	= 9,	/* the recorder's version */
	KMT_TD_OPT_PROCMAPS	= 10,
	KMT_TD_OPT_TRACEID	= 11,
	KMT_TD_OPT_TIME_SHIFT	= 12,	/* moves record times */
	KMT_TD_OPT_TSC2NSEC	= 14,	/* scales record times */
	KMT_TD_OPT_STRINGS	= 15,
	/* v7: where the metadata sections are, in this order */
	KMT_TD_OPT_HEADER_INFO	= 16,
	KMT_TD_OPT_FTRACE_EVENTS = 17,
	KMT_TD_OPT_EVENT_FORMATS = 18,
	KMT_TD_OPT_KALLSYMS	= 19,
	KMT_TD_OPT_PRINTK	= 20,
	KMT_TD_OPT_CMDLINES	= 21,
	KMT_TD_OPT_BUFFER_TEXT	= 22,	/* a latency tracer's text */
	/*
	 * kmemtrace's own: the pid -> tgid map, text: the magic line, then
	 * "pid tgid\n" lines, NUL-terminated.  trace-cmd skips ids it does
	 * not know; this one is far above its own, which count up from 1.
	 */
	KMT_TD_OPT_TGIDS	= 0x4b54,
	/*
	 * kmemtrace's own: the boot id and a wall-clock reading with the
	 * trace clock's, text (source/bootinfo.h has its lines)
	 */
	KMT_TD_OPT_BOOT		= 0x4b55,
	/*
	 * kmemtrace's own: the CPUs of each NUMA node, text: the magic
	 * line, then "node cpulist\n" lines (sysfs's node<N>/cpulist,
	 * "0-3,8"), NUL-terminated
	 */
	KMT_TD_OPT_NODES	= 0x4b56,
	/*
	 * kmemtrace's own: the kernel's counters (slabinfo, meminfo,
	 * vmallocinfo) at the start and the end, text (event/kcounters.h
	 * has its layout), NUL-terminated
	 */
	KMT_TD_OPT_COUNTERS	= 0x4b58,
	/*
	 * kmemtrace's own: which memory cgroup each task was in, from
	 * when, text (event/cgroups.h has its lines), NUL-terminated
	 */
	KMT_TD_OPT_CGROUPS	= 0x4b57,
};

#define KMT_TD_TGIDS_MAGIC "kmemtrace tgids\n"
#define KMT_TD_NODES_MAGIC "kmemtrace nodes\n"

#endif
