/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_CACHES_H
#define KMT_ANALYSIS_CACHES_H

#include <stdint.h>

/* a cache of the caches view: a name from the events, or a kmalloc class */
struct kmt_cache_row {
	uint64_t key;		/* the three below in one word */
	uint32_t cache;		/* interned name; 0 for kmalloc classes, and
				 * for kernels that do not name caches */
	uint32_t kmalloc_size;	/* kmalloc: bytes_alloc, UINT32_MAX large */
	int accounted;		/* kmalloc: memcg accounted (kmalloc-cg-) */
	uint64_t objects;	/* allocations, failed ones too */
	uint64_t bytes;		/* bytes_alloc */
	uint64_t requested;	/* bytes_req */
	uint64_t frees;		/* frees of objects allocated here */
	uint64_t free_only;	/* kmem_cache_free naming it, object not seen */
	uint64_t failed;
	int64_t live;
	int64_t live_bytes;
};

/* for tests: the row of a named cache or kmalloc class, or NULL */
const struct kmt_cache_row *kmt_caches_find(const void *ctx, uint32_t cache,
					    uint32_t kmalloc_size,
					    int accounted);

#endif
