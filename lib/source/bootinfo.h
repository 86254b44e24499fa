/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_BOOTINFO_H
#define KMT_SOURCE_BOOTINFO_H

#include <stddef.h>
#include <stdint.h>

/*
 * Which boot a recording is of, and when it was made: what kmemtrace
 * record keeps in a trace.dat option of its own (KMT_TD_OPT_BOOT, which
 * trace-cmd skips), so that rows of many hosts say "which boot" and
 * "when".  The option is text, NUL-terminated:
 *
 *	kmemtrace boot
 *	boot_id fe29cf62-bcd5-4bad-b3e4-9bebd41093f2
 *	realtime_ns 1795842322262206000
 *	trace_ns 10536425243000
 *
 * realtime_ns (CLOCK_REALTIME) and trace_ns (the instance's trace clock)
 * were read together; the clock lines are absent when the trace clock
 * could not be read.  Lines of other keys are skipped, for what a later
 * version adds.
 */
#define KMT_BOOTINFO_MAGIC "kmemtrace boot\n"

struct kmt_bootinfo {
	char boot_id[40];	/* /proc/sys/kernel/random/boot_id, "" unknown */
	int has_clock;		/* the pair below was read */
	uint64_t realtime_ns;
	uint64_t trace_ns;	/* the trace clock at the same moment */
};

/*
 * Parses the option's text (len bytes, a NUL or the end stops it).  A
 * field that is missing or malformed is left unknown; a line cut short
 * (no newline) is not trusted.  Returns 0, or -EINVAL without the magic
 * line (b is then all unknown).
 */
int kmt_bootinfo_parse(struct kmt_bootinfo *b, const char *data, size_t len);

/* the option's text into buf; its length, or 0 when buf is too small */
size_t kmt_bootinfo_format(const struct kmt_bootinfo *b, char *buf,
			   size_t len);

/*
 * A boot id as the kernel writes it (36 characters: hex and dashes),
 * copied into b->boot_id; 0, or -EINVAL when it is not one.
 */
int kmt_bootinfo_set_id(struct kmt_bootinfo *b, const char *id, size_t len);

/*
 * The "now ts:" line of a ring buffer's per_cpu/cpuN/stats, in ns: the
 * kernel prints seconds.microseconds for the clocks that count ns, and
 * a bare count for the others (counter, x86-tsc), which have no ns to
 * give.  Returns 0, or -EINVAL.
 */
int kmt_bootinfo_stats_now(const char *stats, uint64_t *ns);

#endif
