/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SOURCE_TEXT_H
#define KMT_SOURCE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

/*
 * The pure part of the ftrace text reader, exposed for the unit tests:
 * what one line of tracefs `trace`/`trace_pipe` (also with
 * options/fields, options/latency-format or the function_graph tracer),
 * `trace-cmd report` (also -l) or `perf script` output says.
 */
struct kmt_session;

enum kmt_text_kind {
	KMT_TEXT_BLANK,
	KMT_TEXT_HEADER,	/* "# ..." lines, "cpus=2", "version = 6" */
	KMT_TEXT_EVENT,		/* ev, comm, tgid and name are set */
	KMT_TEXT_STACK,		/* "<stack trace>": kernel frames follow */
	KMT_TEXT_USER_STACK,	/* "<user stack trace>": user frames follow */
	KMT_TEXT_FRAME,		/* " => sym+0x1a/0x80", "\tffff... sym+0x1a (dso)" */
	KMT_TEXT_LOST,		/* "CPU:1 [LOST 12 EVENTS]", "CPU:1 [12 EVENTS DROPPED]" */
	KMT_TEXT_SWITCH,	/* function_graph's " 1) sh-12 => bash-1234":
				 * ev.cpu now runs ev.pid (comm) */
	KMT_TEXT_SIDEBAND,	/* perf script's own records, "PERF_RECORD_MMAP2 ..." */
	KMT_TEXT_BAD,		/* looks like an event, does not parse; why says why */
	KMT_TEXT_OTHER,		/* anything else */
};

enum kmt_text_style {
	KMT_TEXT_FTRACE,	/* comm-pid [cpu] flags ts: name: fields */
	KMT_TEXT_REPORT,	/* trace-cmd report: [buffer:] comm-pid [cpu] ts: name: */
	KMT_TEXT_PERF,		/* perf script: comm pid [cpu] ts: kmem:name: */
	KMT_TEXT_GRAPH,		/* function_graph: "cpu) ...", the event in a C comment */
};

struct kmt_text_line {
	unsigned int kind;	/* enum kmt_text_kind */
	unsigned int style;	/* enum kmt_text_style, of event and stack lines */
	struct kmt_event ev;	/* of an event: type NONE for other subsystems;
				 * cpu of stack and lost lines; pid -1 when
				 * the line has none (function_graph) */
	int no_ts;		/* the line has no time (function_graph
				 * without funcgraph-abstime): ev.ts is 0 */
	const char *comm;	/* into the line; NULL when unknown ("<...>") */
	size_t comm_len;
	int32_t tgid;		/* -1 when the line has none */
	const char *name;	/* event name, without a "kmem:" prefix */
	size_t name_len;
	const char *frame;	/* of a frame: the symbol text, "name+0x1a" */
	size_t frame_len;
	uint64_t frame_addr;	/* of a frame that prints its address, else 0 */
	int frame_user;		/* a user-space frame of a perf call chain */
	int frame_inlined;	/* perf's "(inlined)": no address of its own */
	int64_t lost;		/* of a lost line: the count, -1 unknown */
	const char *why;	/* of a bad line: a value that does not parse */
	const char *missing;	/* of a bad line: the name of a field its
				 * event cannot be read without */
};

/*
 * Parses one line (without its newline) into out.  Strings are interned
 * in s (cache names, gfp text, call-site symbols).  style_hint is the
 * style the input has shown so far (a "cpus=" header means trace-cmd
 * report), used to tell a report's "buffer:" prefix from a comm.
 * Returns out->kind.
 */
unsigned int kmt_text_parse_line(struct kmt_session *s, const char *line,
				 size_t len, unsigned int style_hint,
				 struct kmt_text_line *out);

#endif
