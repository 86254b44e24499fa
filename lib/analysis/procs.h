/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_PROCS_H
#define KMT_ANALYSIS_PROCS_H

#include <stdint.h>

/* one process (or command name) of the procs view */
struct kmt_proc_row {
	/*
	 * pid, or comm id with --by comm; --by cgroup: pid, with above it
	 * 1 + its entry in the cgroup map (a task moved has a row for each
	 * cgroup it was in)
	 */
	uint64_t key;
	uint64_t page_allocs;		/* mm_page_alloc events */
	uint64_t zone_locked;		/* mm_page_alloc_zone_locked events */
	uint64_t freed_direct;		/* mm_page_free events */
	uint64_t freed_batched;		/* mm_page_free_batched events */
	uint64_t pcpu_drained;		/* mm_page_pcpu_drain events */
	uint64_t pcpu_drains;		/* runs of them */
	uint64_t pcpu_refills;		/* runs of per-CPU refill events */
	uint64_t fallbacks;		/* mm_page_alloc_extfrag events */
	uint64_t fragmenting;		/* of them, fragmenting */
	uint64_t mt_changed;		/* of them, changing the block's type */
	uint64_t severe;		/* fragmenting, fallback order <= 3 */
	uint64_t moderate;		/* fragmenting, fallback order > 3 */
	uint64_t slab_allocs;
	uint64_t slab_alloc_bytes;
	uint64_t slab_frees;		/* frees matched, by the freeing process */
	uint64_t slab_freed_bytes;
	uint64_t page_alloc_bytes;
	int64_t slab_live;		/* bytes it allocated still allocated */
	int64_t page_live;
	/*
	 * Bytes allocated that the memcg was charged with (slab: accounted;
	 * pages and others: __GFP_ACCOUNT), and those it was not; those of
	 * allocations the recording cannot tell of are in neither.
	 */
	uint64_t charged_bytes;
	uint64_t uncharged_bytes;
	/* --by cgroup: the cgroup (0 not recorded), and when it holds */
	uint64_t cg_from, cg_until;
	uint32_t cg;
	uint32_t tasks;			/* --by cgroup: tasks in the row */
	uint8_t last;			/* the run it is in */
};

/* the row of key, or NULL (for tests) */
const struct kmt_proc_row *kmt_procs_find(const void *ctx, uint64_t key);

#endif
