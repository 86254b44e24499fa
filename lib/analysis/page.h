/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_PAGE_H
#define KMT_ANALYSIS_PAGE_H

#include <stdint.h>

#define KMT_PAGE_MAX_ORDER 64	/* orders tallied in the matrix; more is odd */
#define KMT_PAGE_MT_COLS 7	/* migratetypes 0..5 and "unknown" */

/* the page analysis' figures, for tests and other analyses */
struct kmt_page_totals {
	/* as perf kmem counts them */
	uint64_t allocs, alloc_bytes;
	uint64_t frees, free_bytes;
	uint64_t nomatch, nomatch_bytes;	/* frees perf cannot match */
	uint64_t fails, fail_bytes;
	/* beyond perf */
	uint64_t free_only, free_only_bytes;	/* truly unmatched frees */
	uint64_t split_frees;		/* freed at a smaller order than allocated */
	uint64_t split_part_frees;	/* later frees of the rest of such a block */
	uint64_t larger_order_frees;
	uint64_t alloc_over_live;
	uint64_t batched_frees;
	uint64_t zone_locked;
	uint64_t pcpu_drains;
	uint64_t extfrag, extfrag_fragmenting;
	uint64_t unknown_mt;
	uint64_t odd_order;		/* negative or >= KMT_PAGE_MAX_ORDER */
	uint64_t gfp_zero;
	uint64_t no_stack;
	uint64_t live_pages, live_bytes;
	uint64_t matrix[KMT_PAGE_MAX_ORDER][KMT_PAGE_MT_COLS];
	int max_order;			/* highest order tallied */
};

void kmt_page_get_totals(const void *ctx, struct kmt_page_totals *out);

#endif
