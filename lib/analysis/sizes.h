/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_SIZES_H
#define KMT_ANALYSIS_SIZES_H

#include <stdint.h>

/* bucket 0: 0 bytes; bucket b: 2^(b-2) < bytes_req <= 2^(b-1) */
#define KMT_SIZE_BUCKETS 66

struct kmt_size_bucket {
	uint64_t allocs;
	uint64_t requested;
	uint64_t allocated;
	uint64_t waste;		/* bytes_alloc - bytes_req, where positive */
};

/* for tests: the bucket a request of req bytes falls in */
const struct kmt_size_bucket *kmt_sizes_bucket(const void *ctx, uint64_t req);

#endif
