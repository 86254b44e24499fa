// SPDX-License-Identifier: GPL-2.0
/*
 * Newline-delimited JSON: one object per table row, for the engines a
 * fleet loads rows into as they are (ClickHouse's JSONEachRow, DuckDB's
 * read_json, sqlite's JSON functions).  Each row carries where it comes
 * from, so files of many hosts load into one table: the host and kernel
 * of the recording, its input and span, its boot and wall-clock start
 * where it records them (null where not: an engine's NULL, never a made
 * up time), and the table it is a row of ("slab.callsites"); then the
 * row's own columns, as --json names them.
 * A time series (--timeline) gives a row per step.  Summaries are not
 * rows: --json has them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "render/render.h"
#include "report/report.h"
#include "util/json.h"

static void origin(struct kmt_json *j, const struct kmt_report_meta *m,
		   const struct kmt_section *sec)
{
	char table[128];

	kmt_json_str(j, "host", m->host && *m->host ? m->host : NULL);
	kmt_json_str(j, "kernel", m->kernel && *m->kernel ? m->kernel : NULL);
	kmt_json_str(j, "input", m->input);
	kmt_json_u64(j, "first_ts_ns", m->first_ts);
	kmt_json_u64(j, "span_ns", m->last_ts >= m->first_ts ?
				   m->last_ts - m->first_ts : 0);
	kmt_render_json_start(j, m);
	snprintf(table, sizeof(table), "%s.%s", sec->group, sec->key);
	kmt_json_str(j, "table", table);
}

int kmt_render_ndjson(const struct kmt_report *r, FILE *out)
{
	size_t i, row, c, most = 1;
	union kmt_val *buf;

	for (i = 0; i < r->nr; i++) {
		if (r->sections[i]->kind == KMT_SEC_TABLE &&
		    r->sections[i]->table.ncols > most)
			most = r->sections[i]->table.ncols;
	}
	buf = calloc(most, sizeof(*buf));
	if (!buf)
		return -1;
	for (i = 0; i < r->nr; i++) {
		const struct kmt_section *sec = r->sections[i];
		const struct kmt_table *t = &sec->table;

		if (sec->kind != KMT_SEC_TABLE)
			continue;
		for (row = 0; row < t->nrows; row++) {
			const union kmt_val *v = kmt_table_row(t, row, buf);
			struct kmt_json j;

			kmt_json_init(&j, out, 0);
			kmt_json_obj_open(&j, NULL);
			origin(&j, &r->meta, sec);
			/* the columns as --json has them: null where not recorded */
			for (c = 0; c < t->ncols; c++) {
				if (t->cols[c].flags & KMT_COL_TEXT_ONLY)
					continue;
				if (t->unrecorded >> c & 1)
					kmt_json_null(&j, t->cols[c].key);
				else
					kmt_render_json_val(&j, t->cols[c].key,
							    t->cols[c].type, &v[c]);
			}
			kmt_json_obj_close(&j);
			kmt_json_finish(&j);
		}
	}
	free(buf);
	return ferror(out) ? -1 : 0;
}
