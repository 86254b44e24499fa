// SPDX-License-Identifier: GPL-2.0
/*
 * The folded stack format of flamegraph.pl, inferno and speedscope: one
 * line per stack, "frame;frame;...;frame weight", the outermost frame
 * first.  Each line is a row of the allocation profile
 * (report/profile.h) under a first frame that says which allocator it
 * went to ("slab", "page"), so one graph shows both apart; the weight is
 * the value --weight chose, so the lines add up to that value's total.
 * Rows of weight 0 are left out, as the format has no use for them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "render/render.h"
#include "report/profile.h"

int kmt_render_folded(const struct kmt_report *r, FILE *out)
{
	const struct kmt_table *t = kmt_profile_table(r);
	int kind, stack, weight;
	size_t i;

	if (!t) {
		errno = EINVAL;
		return -1;
	}
	kind = kmt_table_col(t, "kind");
	stack = kmt_table_col(t, "stack");
	weight = kmt_table_col(t, "weight");
	if (kind < 0 || stack < 0 || weight < 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < t->nrows; i++) {
		union kmt_val buf[32];
		const union kmt_val *v = kmt_table_row(t, i, buf);

		if (!v[weight].u)
			continue;
		fprintf(out, "%s;%s %" PRIu64 "\n", v[kind].str, v[stack].str,
			v[weight].u);
	}
	return ferror(out) ? -1 : 0;
}
