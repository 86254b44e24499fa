/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_EXTFRAG_H
#define KMT_ANALYSIS_EXTFRAG_H

#include <stdint.h>

/* what the extfrag view counts in every row */
struct kmt_extfrag_counts {
	uint64_t events;	/* mm_page_alloc_extfrag */
	uint64_t fragmenting;	/* fallback split a block below a pageblock */
	uint64_t severe;	/* fragmenting, fallback order <= 3 */
	uint64_t moderate;	/* fragmenting, fallback order > 3 */
	uint64_t changed;	/* the pageblock changed migratetype */
};

void kmt_extfrag_get_totals(const void *ctx, struct kmt_extfrag_counts *out);

#endif
