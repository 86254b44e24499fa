/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_LIFETIMES_H
#define KMT_ANALYSIS_LIFETIMES_H

#include <stdint.h>

/* bucket 0: 0 ns; bucket b: 2^(b-1) <= ns < 2^b */
#define KMT_LIFE_BUCKETS 65

struct kmt_life_hist {
	uint64_t n[KMT_LIFE_BUCKETS];
	uint64_t bytes[KMT_LIFE_BUCKETS];
	uint64_t count;
	uint64_t min, max;
	double sum;
};

unsigned int kmt_life_bucket(uint64_t ns);

/* for tests: the whole-recording histograms */
const struct kmt_life_hist *kmt_lifetimes_slab(const void *ctx);
const struct kmt_life_hist *kmt_lifetimes_page(const void *ctx);

#endif
