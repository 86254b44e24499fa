/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_ALLOCINFO_H
#define KMT_ANALYSIS_ALLOCINFO_H

#include <stddef.h>

#include "event/event.h"
#include "report/report.h"
#include "source/allocinfo.h"
#include "util/hash.h"

struct kmt_session;

/*
 * What a recording traced of slab allocations, per callsite address
 * while it is read, then per function: the join with allocinfo's tags,
 * whose counters are kept per function that called the allocator, as a
 * slab event's call_site is.
 */
struct kmt_ai_traced_fn {
	uint64_t allocs;
	uint64_t bytes_req;
	uint64_t bytes_alloc;
};

KMT_HASH_TYPE(kmt_ai_traced, struct kmt_ai_traced_fn)

struct kmt_ai_join {
	struct kmt_ai_traced by_addr;	/* call_site -> figures */
	struct kmt_ai_traced by_func;	/* function's id in the names -> figures */
	uint64_t unnamed;		/* callsites no symbol covers */
};

void kmt_ai_join_init(struct kmt_ai_join *j);
void kmt_ai_join_free(struct kmt_ai_join *j);
/* a session's consumer (ctx: the join): counts slab allocations */
int kmt_ai_join_event(void *ctx, const struct kmt_event *ev);
/*
 * After the read: the callsites named by the session's symbols, into
 * by_func keyed by their ids in names.  0 or -ENOMEM.
 */
int kmt_ai_join_resolve(struct kmt_ai_join *j, struct kmt_session *s,
			struct kmt_strtab *names);

/*
 * /proc/allocinfo snapshots made into report tables: one snapshot's top
 * tags (or their totals per module, file or function), or the growth
 * from one snapshot to another (--diff, and each -I interval).
 */
enum kmt_ai_by {
	KMT_AI_BY_TAG,
	KMT_AI_BY_MODULE,
	KMT_AI_BY_FILE,
	KMT_AI_BY_FUNC,
};

enum kmt_ai_sort {
	KMT_AI_SORT_BYTES,	/* bytes held (in the later snapshot) */
	KMT_AI_SORT_CALLS,	/* calls; their growth between two snapshots */
	KMT_AI_SORT_GROWTH,	/* bytes gained between two snapshots */
};

struct kmt_ai_opts {
	enum kmt_ai_by by;
	enum kmt_ai_sort sort;
	size_t limit;		/* rows drawn, 0 all */
	/*
	 * comma-separated fnmatch(3) patterns, any of which keeps a tag;
	 * NULL keeps all
	 */
	const char *module, *file, *func;
	/* growth: leave out rows whose bytes and calls did not change */
	int changed_only;
	/*
	 * A recording's figures per function: the tags and functions
	 * tables get its allocations and bytes beside each row
	 */
	const struct kmt_ai_join *join;
};

/* the names of the words, i from 0 on; NULL past the last */
const char *kmt_ai_by_name(size_t i);
const char *kmt_ai_sort_name(size_t i);
/* the word's value, or -1 when name is none of them */
int kmt_ai_by_parse(const char *name);
int kmt_ai_sort_parse(const char *name);

/*
 * Adds to r, in group "allocinfo", the table of ai's tags ("tags",
 * "modules", "files" or "functions") and the summary "totals".
 * 0 or -ENOMEM.
 */
int kmt_ai_report(struct kmt_report *r, const struct kmt_allocinfo *ai,
		  const struct kmt_ai_opts *o);

/*
 * Adds to r the growth from a to b (both read into one string table),
 * as table group.key titled title, every tag marked when it is in one
 * snapshot only, and its summary as group.<key>_totals when totals is
 * set.  0 or -ENOMEM.
 */
int kmt_ai_report_diff(struct kmt_report *r, const struct kmt_allocinfo *a,
		       const struct kmt_allocinfo *b,
		       const struct kmt_ai_opts *o, const char *group,
		       const char *key, const char *title, int totals);

/*
 * Adds to r's group "metrics" (render/prom.c) the summary "allocinfo"
 * (kmemtrace_allocinfo_up: whether ai was read; with ai, the total
 * bytes, the tags and the lines that could not be read) and, with ai,
 * the table "allocinfo_tags": the top_n tags by bytes held, and one
 * "(other)" row for the rest, so that a scrape stays bounded.  ai NULL:
 * the kernel has no /proc/allocinfo, or it could not be read.  0 or
 * -ENOMEM.
 */
int kmt_ai_metrics(struct kmt_report *r, const struct kmt_allocinfo *ai,
		   size_t top_n);

#endif
