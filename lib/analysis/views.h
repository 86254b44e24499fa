/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_VIEWS_H
#define KMT_ANALYSIS_VIEWS_H

#include <stddef.h>
#include <stdint.h>

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

/* "slab" or "page" for an event or live-object type */
const char *kmt_view_kind(unsigned int type);

struct kmt_missing;

/*
 * The views of slab objects and page blocks alike (--leaks, --lifetimes,
 * --timeline) on a recording of one kind only: what to say of the slab
 * (unrec[0]) and page (unrec[1]) half in place of its numbers, NULL for
 * a kind recorded, whose 0s are true, or when the input cannot tell.
 * 0, or -ENOMEM.
 */
int kmt_view_kinds_unrecorded(const struct kmt_session *s,
			      struct kmt_report *r,
			      const struct kmt_missing *unrec[2]);

struct kmt_table;

/*
 * A table of such a view, whose "kind" column says slab or page: the
 * rows of the kind unrec names were not recorded (a note under it).
 * 0, or -EINVAL when t has no "kind" column.
 */
int kmt_view_mark_kind_rows(struct kmt_table *t,
			    const struct kmt_missing *const unrec[2]);

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
