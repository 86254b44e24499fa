/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RENDER_PROFILE_COLS_H
#define KMT_RENDER_PROFILE_COLS_H

#include <string.h>

#include "report/report.h"

/*
 * The formats that draw the allocation profile (pprof, folded) find it
 * in the report by its group and its columns by their keys, so that the
 * analysis can add columns without breaking them.
 */
static inline const struct kmt_table *kmt_profile_table(
	const struct kmt_report *r)
{
	const struct kmt_section *sec = kmt_report_section(r, "profile",
							   "samples");

	return sec && sec->kind == KMT_SEC_TABLE ? &sec->table : NULL;
}

/* the index of column key in t, or -1 */
static inline int kmt_table_col(const struct kmt_table *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if (!strcmp(t->cols[i].key, key))
			return (int)i;
	}
	return -1;
}

#endif
