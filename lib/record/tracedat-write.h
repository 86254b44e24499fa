/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORD_TRACEDAT_WRITE_H
#define KMT_RECORD_TRACEDAT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "source/tracedat-format.h"

/*
 * Writes trace.dat version 6 files, the format `trace-cmd report` and
 * libtracecmd read: the tracing metadata (ring-buffer headers, event
 * formats, kallsyms, printk formats, cmdlines, options) followed by the
 * "flyrecord" section, each CPU's raw ring-buffer pages contiguous and
 * page aligned.  The writer takes bytes, not paths, so it can be tested
 * without tracefs; numbers are written in the host's byte order and the
 * file says which.  The option ids are source/tracedat-format.h's.
 */

struct kmt_blob {
	const void *data;
	size_t len;
};

struct kmt_tdw_system {
	const char *name;
	const struct kmt_blob *formats;	/* events/<system>/<event>/format */
	size_t nr_formats;
};

struct kmt_tdw_option {
	uint16_t id;			/* enum kmt_td_option_id */
	struct kmt_blob val;
};

struct kmt_tdw_header {
	unsigned int page_size;		/* ring-buffer sub-buffer size */
	struct kmt_blob header_page;	/* events/header_page */
	struct kmt_blob header_event;	/* events/header_event */
	const struct kmt_blob *ftrace_formats;	/* events/ftrace/<event>/format */
	size_t nr_ftrace_formats;
	const struct kmt_tdw_system *systems;
	size_t nr_systems;
	struct kmt_blob kallsyms;	/* /proc/kallsyms; len 0: none */
	struct kmt_blob printk_formats;	/* printk_formats */
	struct kmt_blob cmdlines;	/* "pid comm\n" lines */
	const struct kmt_tdw_option *options;
	size_t nr_options;
	int nr_cpus;
};

/* bytes of the header up to the end of the flyrecord CPU table */
uint64_t kmt_tdw_header_size(const struct kmt_tdw_header *h);

/* where the first CPU's data starts: the header size rounded to a page */
uint64_t kmt_tdw_data_offset(const struct kmt_tdw_header *h);

/*
 * Writes the header at offset 0 of fd and zero-pads it up to
 * kmt_tdw_data_offset.  cpu_size[i] is the number of bytes of CPU i's
 * data (whole pages), which the caller places contiguously from the data
 * offset in CPU order.  Returns 0 or -errno, with a message in err.
 */
int kmt_tdw_write_header(int fd, const struct kmt_tdw_header *h,
			 const uint64_t *cpu_size, char *err, size_t errlen);
/*
 * The same header written where fd stands, front to back, for a pipe or
 * a device (record -o -): the caller then streams the CPUs' data with
 * KMT_TDW_COPY_STREAM, in CPU order, right after.
 */
int kmt_tdw_stream_header(int fd, const struct kmt_tdw_header *h,
			  const uint64_t *cpu_size, char *err, size_t errlen);

enum kmt_tdw_copy_flags {
	/*
	 * Frees each copied chunk of the source as it goes (a hole is
	 * punched), so that assembling a recording never needs much more
	 * disk space than the recording itself.
	 */
	KMT_TDW_COPY_PUNCH = 1 << 0,
	/* out is a stream (a pipe, a device): written where it stands */
	KMT_TDW_COPY_STREAM = 1 << 1,
};

/*
 * Copies len bytes from in at in_off to out at out_off, inside the kernel
 * where it can (copy_file_range), else through a small buffer.  Returns
 * the bytes copied; fewer than len only with *errp set to the errno that
 * stopped it (ENOSPC when the disk filled).
 */
uint64_t kmt_tdw_copy(int out, uint64_t out_off, int in, uint64_t in_off,
		      uint64_t len, unsigned int flags, int *errp);

/*
 * Calls fn for each option of the trace.dat version 6 open on fd (its
 * offset is left anywhere).  fn returns non-zero to stop the walk.
 * Returns 0, fn's non-zero return, -EPROTONOSUPPORT for other versions,
 * or -EINVAL/-errno for a damaged header.
 */
typedef int (*kmt_tdw_option_fn)(void *ctx, uint16_t id, const char *data,
				 size_t len);
int kmt_tdw_read_options(int fd, kmt_tdw_option_fn fn, void *ctx);

#endif
