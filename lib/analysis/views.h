/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_VIEWS_H
#define KMT_ANALYSIS_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "report/sort.h"

struct kmt_rows;

struct kmt_report;
struct kmt_session;

/* What the views of `report` (leaks.c, errors.c, ...) share. */

#define KMT_NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Recordings whose extfrag events lack "fragmenting": a fallback is
 * fragmenting when its order is below the pageblock order, 9 on x86-64.
 */
#define KMT_PAGEBLOCK_ORDER_GUESS 9

/*
 * An address for the JSON "address" columns: 0 for the stand-ins text
 * input gets for symbol names (symbols.h), which mean nothing outside.
 */
uint64_t kmt_view_addr(uint64_t addr);

/*
 * The kinds of memory the views tell apart, each with the events that
 * record it: slab objects, page blocks, percpu objects (the percpu
 * allocator, not the page allocator's per-CPU lists) and vmalloc areas.
 */
enum kmt_view_kind_id {
	KMT_KIND_SLAB,
	KMT_KIND_PAGE,
	KMT_KIND_PERCPU,
	KMT_KIND_VMALLOC,
	KMT_NR_KINDS
};

struct kmt_view_kind_def {
	const char *name;	/* "slab", "page", "percpu", "vmalloc" */
	uint32_t bits;		/* its events (KMT_EV_BIT) */
	unsigned int alloc;	/* its allocation's event type */
};

extern const struct kmt_view_kind_def kmt_view_kinds[KMT_NR_KINDS];

/* the kind of an event or live-object type */
static inline enum kmt_view_kind_id kmt_view_kind_of(unsigned int type)
{
	return kmt_ev_is_slab(type) ? KMT_KIND_SLAB :
	       kmt_ev_is_percpu(type) ? KMT_KIND_PERCPU :
	       kmt_ev_is_vmalloc(type) ? KMT_KIND_VMALLOC : KMT_KIND_PAGE;
}

/* "slab", "page", "percpu" or "vmalloc" for an event or live-object type */
const char *kmt_view_kind(unsigned int type);

struct kmt_missing;

/*
 * The views of every kind alike (--leaks, --lifetimes, --timeline) on a
 * recording of some kinds only: what to say of each kind's part
 * (unrec[KMT_KIND_...]) in place of its numbers, NULL for a kind
 * recorded, whose 0s are true, or when the input cannot tell.
 * 0, or -ENOMEM.
 */
int kmt_view_kinds_unrecorded(const struct kmt_session *s,
			      struct kmt_report *r,
			      const struct kmt_missing *unrec[KMT_NR_KINDS]);

/*
 * Whether a view shows kind k at all: slab and page always (their 0s or
 * "not recorded"); percpu and vmalloc, newer than most recordings, when
 * the recording has their events or lists them among its types, so
 * that the views of recordings made before them stay as they were
 * (--percpu and --vmalloc themselves say "not recorded").
 */
int kmt_view_kind_shown(const struct kmt_session *s, enum kmt_view_kind_id k);

struct kmt_table;

/*
 * A table of such a view, whose "kind" column says slab or page: the
 * rows of the kind unrec names were not recorded (a note under it).
 * The table holds one such note: slab's or page's, whose rows these
 * views always have (percpu and vmalloc say so in their summaries).
 * 0, or -EINVAL when t has no "kind" column.
 */
int kmt_view_mark_kind_rows(struct kmt_table *t,
			    const struct kmt_missing *const unrec[KMT_NR_KINDS]);

/*
 * The sort chain from -s: the keys of this view, in the order given;
 * def when -s names none of them.  Ties fall to tiebreak.
 */
void kmt_view_sort(struct kmt_sort_chain *chain, const char *spec,
		   const char *def, const struct kmt_sort_key *keys,
		   size_t nr_keys, kmt_cmp_fn tiebreak);

/*
 * --by tgid: rows kept by task (a uint64_t pid first in each row) made
 * rows by process, each task's counts added (add) to its thread group's
 * row, keyed by the tgid the recording gives.  A task whose group the
 * recording does not name stays a row of its own, counted in *alone.
 * The tasks in all go to *tasks.  0, or -ENOMEM (rows then unchanged).
 */
int kmt_view_by_tgid(const struct kmt_session *s, struct kmt_rows *rows,
		     void (*add)(void *dst, const void *src),
		     uint64_t *tasks, uint64_t *alone);

/* "comm-pid" as Mel Gorman's report names a process, "-pid" unknown */
const char *kmt_view_proc(struct kmt_session *s, struct kmt_report *r,
			  int32_t pid);

/*
 * The frames of a stack, innermost first, joined by " <- ", from the
 * frame at callsite on when the stack has it: the tracing and allocator
 * frames inside it say nothing the callsite does not.
 */
const char *kmt_view_stack(struct kmt_session *s, struct kmt_report *r,
			   uint32_t stack, uint64_t callsite, int raw_ip);

/*
 * A kmalloc size class as the kernel names its caches: kmalloc-96,
 * kmalloc-1k, kmalloc-cg-64 when memcg accounted; sizes past two pages
 * come from the page allocator: kmalloc-large.
 */
const char *kmt_view_kmalloc_cache(struct kmt_report *r, uint64_t size,
				   int accounted, uint32_t page_size);

/* the migratetype name of mt, "UNKNOWN(n)" for numbers the kernel lacks */
const char *kmt_view_migratetype(struct kmt_session *s, struct kmt_report *r,
				 int mt);

#endif
