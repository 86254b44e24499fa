/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_LEAKS_H
#define KMT_ANALYSIS_LEAKS_H

#include <stdint.h>

/* the leaks view's figures after finish, for tests */
struct kmt_leaks_totals {
	uint64_t end_ts;	/* ages are measured to here */
	uint64_t objects;	/* slab objects outstanding */
	uint64_t slab_bytes;
	uint64_t pages;		/* page blocks outstanding */
	uint64_t page_bytes;
	uint64_t shown_objects;	/* those alive at least --older-than */
	uint64_t shown_slab_bytes;
	uint64_t shown_pages;
	uint64_t shown_page_bytes;
	uint64_t with_stack;	/* shown objects that have a stack */
	uint64_t percpu;	/* percpu objects outstanding */
	uint64_t percpu_bytes;	/* all CPUs' copies */
	uint64_t percpu_no_bytes; /* of them, of a size not recorded */
	uint64_t vmaps;		/* vmalloc areas outstanding */
	uint64_t vmalloc_bytes;
	uint64_t shown_percpu;
	uint64_t shown_percpu_bytes;
	uint64_t shown_vmaps;
	uint64_t shown_vmalloc_bytes;
};

void kmt_leaks_get_totals(const void *ctx, struct kmt_leaks_totals *out);

#endif
