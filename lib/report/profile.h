/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_REPORT_PROFILE_H
#define KMT_REPORT_PROFILE_H

#include "report/report.h"

/*
 * The allocation profile's part of the report model: what its analysis
 * (analysis/profile.c) fills and the formats that draw it (pprof,
 * folded, html) read.  Report group "profile", table "samples" (one row
 * per origin: kind, comm, pid, cache, order, the four values below,
 * "stack" and "stack_ips": frames outermost first, joined by ';',
 * "weight": the value --weight chose, "gfp") and summary "summary" (the
 * values' totals).  The formats find the columns by their keys
 * (kmt_table_col), so that the analysis can add columns without
 * breaking them.
 */
enum kmt_profile_value {
	KMT_PROFILE_ALLOC_OBJECTS,
	KMT_PROFILE_ALLOC_SPACE,
	KMT_PROFILE_INUSE_OBJECTS,
	KMT_PROFILE_INUSE_SPACE,
	KMT_PROFILE_NR_VALUES
};

/*
 * Each value's column key, which is its pprof sample type, and its
 * unit: "alloc_space", "bytes"
 */
extern const char *const kmt_profile_values[KMT_PROFILE_NR_VALUES][2];

/* the value called name, or -1 */
int kmt_profile_value(const char *name);

/* the profile's table in r, or NULL */
static inline const struct kmt_table *kmt_profile_table(
	const struct kmt_report *r)
{
	const struct kmt_section *sec = kmt_report_section(r, "profile",
							   "samples");

	return sec && sec->kind == KMT_SEC_TABLE ? &sec->table : NULL;
}

#endif
