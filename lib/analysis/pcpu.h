/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_PCPU_H
#define KMT_ANALYSIS_PCPU_H

#include <stdint.h>

/* one CPU of the pcpu view */
struct kmt_pcpu_row {
	uint64_t refill_runs;	/* runs of per-CPU refill events */
	uint64_t refill_pages;
	uint64_t drain_runs;	/* runs of mm_page_pcpu_drain events */
	uint64_t drain_pages;
	uint64_t remote_frees;	/* blocks freed here, allocated elsewhere */
	uint64_t drained_foreign; /* pages drained here, refilled elsewhere */
	uint64_t zone_locked;	/* zone-locked allocations, not refills */
	uint64_t page_allocs;
	uint64_t page_frees;
	uint8_t last;		/* the run the CPU is in */
	uint8_t seen;		/* had page events */
};

/* for tests: the row of cpu, NULL if none */
const struct kmt_pcpu_row *kmt_pcpu_cpu(const void *ctx, int cpu);
uint64_t kmt_pcpu_drained_unseen(const void *ctx);

#endif
