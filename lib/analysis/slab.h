/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_SLAB_H
#define KMT_ANALYSIS_SLAB_H

#include <stdint.h>

/* the slab analysis' figures, for tests and other analyses */
struct kmt_slab_totals {
	uint64_t nr_allocs;
	uint64_t nr_kmalloc;
	uint64_t nr_cache_alloc;
	uint64_t requested;
	uint64_t allocated;
	uint64_t freed;		/* bytes of matched frees */
	/*
	 * Bytes freed as perf kmem counts them (with --alloc only, which
	 * keeps every pointer): perf never forgets a pointer, so a free of
	 * one freed before (no allocation seen between) adds its last
	 * allocation's bytes again, and so does a free of NULL once an
	 * allocation returned NULL (tools/perf/builtin-kmem.c
	 * evsel__process_free_event, perf 6.1).
	 */
	uint64_t perf_freed;
	uint64_t null_alloc;	/* bytes_alloc of the last failed allocation */
	int null_seen;		/* an allocation returned NULL */
	uint64_t frees_matched;
	uint64_t nr_kfree;
	uint64_t nr_cache_free;
	uint64_t free_only;	/* frees of pointers not seen allocated */
	uint64_t free_null;
	uint64_t failed;	/* allocations returning NULL */
	/* node asked != node of the CPU; 0 where the recording has no map */
	uint64_t cross_node;
	uint64_t cross_cpu_frees;
	uint64_t alloc_over_live;
	uint64_t alloc_below_req;
	uint64_t cache_obj_kfreed;
	uint64_t kmalloc_obj_cache_freed;
	uint64_t live;
	uint64_t live_bytes;
};

void kmt_slab_get_totals(const void *ctx, struct kmt_slab_totals *out);

#endif
