/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_TIMELINE_H
#define KMT_ANALYSIS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

/* one step of the timeline */
struct kmt_timeline_step {
	int64_t slab_bytes;	/* outstanding at the end of the step */
	int64_t page_bytes;
	int64_t slab_peak;	/* the most outstanding during the step */
	int64_t page_peak;
	uint64_t slab_alloc;	/* bytes allocated in the step */
	uint64_t slab_freed;
	uint64_t page_alloc;
	uint64_t page_freed;
};

/* for tests, after finish: the steps and the step's length */
const struct kmt_timeline_step *kmt_timeline_steps(const void *ctx,
						   size_t *nr, uint64_t *step);

#endif
