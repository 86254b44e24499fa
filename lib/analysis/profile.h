/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_PROFILE_H
#define KMT_ANALYSIS_PROFILE_H

/*
 * The allocation profile (profile.c): report group "profile", table
 * "samples" (one row per origin: kind, comm, pid, cache, order, the four
 * values below, "stack" and "stack_ips": frames outermost first, joined
 * by ';') and summary "summary" (the values' totals).
 */
enum kmt_profile_value {
	KMT_PROFILE_ALLOC_OBJECTS,
	KMT_PROFILE_ALLOC_SPACE,
	KMT_PROFILE_INUSE_OBJECTS,
	KMT_PROFILE_INUSE_SPACE,
	KMT_PROFILE_NR_VALUES
};

/* each value's pprof sample type and unit: "alloc_space", "bytes" */
extern const char *const kmt_profile_values[KMT_PROFILE_NR_VALUES][2];

/* the value called name, or -1 */
int kmt_profile_value(const char *name);

#endif
