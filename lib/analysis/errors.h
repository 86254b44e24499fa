/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_ERRORS_H
#define KMT_ANALYSIS_ERRORS_H

#include <stdint.h>

/* the kinds of misuse, in the order the view lists them */
enum kmt_err_kind {
	KMT_ERR_CACHE_KFREE,		/* kmem_cache_alloc, then kfree */
	KMT_ERR_KMALLOC_CACHE_FREE,	/* kmalloc, then kmem_cache_free */
	KMT_ERR_CACHE_MISMATCH,		/* kmem_cache_free names another cache */
	KMT_ERR_DOUBLE_FREE,
	KMT_ERR_UNKNOWN_FREE,		/* never seen, after the warm-up */
	KMT_ERR_PAGE_DOUBLE_FREE,
	KMT_ERR_PAGE_UNKNOWN_FREE,
	KMT_ERR_BELOW_REQ,		/* bytes_alloc < bytes_req */
	KMT_ERR_FAILED,			/* slab: NULL */
	KMT_ERR_PAGE_FAILED,		/* page: pfn -1 */
	KMT_ERR_NR
};

/*
 * How sure a finding is (errors.c has the rules that decide it):
 * certain, when nothing but misuse explains it; possible, when the
 * kernel or the recording explains it innocently as well; legal, when
 * the traced kernel allows it.  Listed in this order; legal findings
 * only with --all-findings.
 */
enum kmt_err_class {
	KMT_ERR_CERTAIN,
	KMT_ERR_POSSIBLE,
	KMT_ERR_LEGAL,
	KMT_ERR_NR_CLASSES
};

struct kmt_errors_totals {
	uint64_t count[KMT_ERR_NR];
	/* by kind and class: known once the view is finished */
	uint64_t by_class[KMT_ERR_NR][KMT_ERR_NR_CLASSES];
	/* [0] slab, [1] page */
	uint64_t warmup[2];		/* unknown frees in the warm-up */
	uint64_t alloc_over_live;	/* not misuse: a lost or untraced free */
	uint64_t alloc_over_live_untraced; /* ... of caches with free paths
					    * without events (when finished) */
	uint64_t page_alloc_over_live;
	uint64_t free_null;
};

void kmt_errors_get_totals(const void *ctx, struct kmt_errors_totals *out);

#endif
