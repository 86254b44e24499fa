/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_CHECK_H
#define KMT_ANALYSIS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct kmt_event;
struct kmt_report;
struct kmt_session;

/*
 * Is a recording whole?  Its events are watched as it is read (each
 * CPU's must go forward in time), then what the reader and the watching
 * found makes a verdict.  Lost events are counted, not held against the
 * file: the kernel dropped them, the file did not.  A reader error,
 * records out of order, unknown event ids or undecodable records make it
 * damaged.
 */
struct kmt_check {
	struct kmt_hash_u64 last_ts;	/* cpu -> its last timestamp */
	uint64_t out_of_order;
	int oom;
};

void kmt_check_init(struct kmt_check *c);
void kmt_check_free(struct kmt_check *c);
/* a session's consumer (ctx: the check); -ENOMEM sets c->oom */
int kmt_check_event(void *ctx, const struct kmt_event *ev);

struct kmt_check_verdict {
	uint64_t out_of_order;
	uint64_t unknown_ids;
	uint64_t bad_records;
	size_t cpus_seen;	/* CPUs with an event */
	int damaged;
	/* whole, but without one kmem event: nothing to report on */
	int empty;
};

/* the verdict on s, read by the reader that returned read_ret */
void kmt_check_verdict(const struct kmt_check *c, const struct kmt_session *s,
		       int read_ret, struct kmt_check_verdict *v);
/* "ok", "damaged" or "no-kmem-events" */
const char *kmt_check_status(const struct kmt_check_verdict *v);

/*
 * Adds to r, at its top level (group ""), the verdict on s read from
 * path as "key: value" lines: the summary "recording" (the file, its
 * format, kernel, boot and start, the events of each type in the
 * object "by_type"), the table "unusable_formats" where the reader left
 * formats out, and the summary "verdict" (losses, what is damaged, the
 * CPUs, the span, the status, and error, the reader's message or NULL,
 * in JSON).  0 or -ENOMEM.
 */
int kmt_check_report(struct kmt_report *r, const struct kmt_session *s,
		     const char *path, const struct kmt_check_verdict *v,
		     const char *error);

#endif
