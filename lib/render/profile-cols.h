/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RENDER_PROFILE_COLS_H
#define KMT_RENDER_PROFILE_COLS_H

#include "report/report.h"

/*
 * The formats that draw the allocation profile (pprof, folded, html)
 * find it in the report by its group and its columns by their keys
 * (kmt_table_col), so that the analysis can add columns without breaking
 * them.
 */
static inline const struct kmt_table *kmt_profile_table(
	const struct kmt_report *r)
{
	const struct kmt_section *sec = kmt_report_section(r, "profile",
							   "samples");

	return sec && sec->kind == KMT_SEC_TABLE ? &sec->table : NULL;
}

#endif
