// SPDX-License-Identifier: GPL-2.0
/*
 * Newline-delimited JSON: one object per table row, for the engines a
 * fleet loads rows into as they are (ClickHouse's JSONEachRow, DuckDB's
 * read_json, sqlite's JSON functions).  Each row carries where it comes
 * from, so files of many hosts load into one table: the host and kernel
 * of the recording, its input and span, its boot and wall-clock start
 * where it records them (null where not: an engine's NULL, never a made
 * up time), and the table it is a row of ("slab.callsites"); then the
 * row's own columns, as --json names them (a column named as one of the
 * origin's, errors.callsites' first_ts_ns, as row_<name>: one member of
 * a name per row, as the engines require).
 * A time series (--timeline) gives a row per step.  Whatever else
 * --json's groups hold is a row too, named as --json names it, for a
 * fleet that only has these rows has nothing else: a summary
 * ("slab.summary"), a view not recorded ("pcpu.not_recorded"), a
 * table's columns or rows not recorded ("leaks.callsites_not_recorded")
 * and the rows -l or --top left out ("timeline.callsites_omitted").
 * A summary's item named as a column every row carries (check's
 * "kernel", "boot_id") is left out of its row, which has it already:
 * one member of a name per row, as the engines require.
 *
 * A report of a
 * series (top's refreshes, watch's intervals) says which one in every
 * row, "seq" from 1, its span_ns the time from the series' start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/report.h"
#include "util/json.h"

/* the members row_open gives every row */
static const char *const row_columns[] = {
	"host", "kernel", "input", "first_ts_ns", "span_ns", "boot_id",
	"start_time", "start_unix_ns", "table", NULL
};

/* a row's start: where it comes from, and its table, "group.key<suffix>" */
static void row_open(struct kmt_json *j, FILE *out,
		     const struct kmt_report_meta *m,
		     const struct kmt_section *sec, const char *suffix)
{
	char table[160];

	kmt_json_init(j, out, 0);
	kmt_json_obj_open(j, NULL);
	kmt_json_str(j, "host", m->host && *m->host ? m->host : NULL);
	kmt_json_str(j, "kernel", m->kernel && *m->kernel ? m->kernel : NULL);
	kmt_json_str(j, "input", m->input);
	kmt_json_u64(j, "first_ts_ns", m->first_ts);
	kmt_json_u64(j, "span_ns", m->last_ts >= m->first_ts ?
				   m->last_ts - m->first_ts : 0);
	kmt_render_json_start(j, m);
	snprintf(table, sizeof(table), "%s%s%s%s", sec->group,
		 *sec->group && *sec->key ? "." : "", sec->key, suffix);
	kmt_json_str(j, "table", table);
	if (m->seq)
		kmt_json_u64(j, "seq", m->seq);
}

static void row_close(struct kmt_json *j)
{
	kmt_json_obj_close(j);
	kmt_json_finish(j);
}

static void table_rows(const struct kmt_report_meta *m,
		       const struct kmt_section *sec, union kmt_val *buf,
		       FILE *out)
{
	const struct kmt_table *t = &sec->table;
	struct kmt_json j;
	size_t row;

	for (row = 0; row < t->nrows; row++) {
		row_open(&j, out, m, sec, "");
		/* the columns as --json has them: null where not recorded */
		kmt_render_json_cells(&j, t, kmt_table_row(t, row, buf),
				      row_columns);
		row_close(&j);
	}
	if (t->total_rows > t->nrows) {
		row_open(&j, out, m, sec, "_omitted");
		kmt_json_u64(&j, "count", t->total_rows - t->nrows);
		row_close(&j);
	}
	if ((t->unrecorded || t->unrecorded_kind) && t->missing) {
		row_open(&j, out, m, sec, t->missing->known ? "_not_recorded" :
							      "_none_seen");
		kmt_render_json_unrecorded(&j, t);
		row_close(&j);
	}
}

/* a summary of text lines alone (blank lines, notes) has no row to give */
static int summary_has_json(const struct kmt_summary *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (s->items[i].kind != KMT_SUM_BLANK &&
		    s->items[i].kind != KMT_SUM_NOTE &&
		    s->items[i].kind != KMT_SUM_NOTE_VALUE)
			return 1;
	}
	return 0;
}

int kmt_render_ndjson(const struct kmt_report *r, FILE *out)
{
	size_t i, most = 1;
	union kmt_val *buf;
	struct kmt_json j;

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

		if (sec->flags & KMT_SEC_TEXT_ONLY)
			continue;
		switch (sec->kind) {
		case KMT_SEC_TABLE:
			table_rows(&r->meta, sec, buf, out);
			break;
		case KMT_SEC_SUMMARY:
			if (!summary_has_json(&sec->summary))
				break;
			row_open(&j, out, &r->meta, sec, "");
			kmt_render_json_summary_except(&j, &sec->summary,
						       row_columns);
			row_close(&j);
			break;
		case KMT_SEC_MISSING:
			row_open(&j, out, &r->meta, sec, "");
			kmt_json_str(&j, "view", sec->missing.view);
			kmt_render_json_missing(&j, &sec->missing.why);
			row_close(&j);
			break;
		}
	}
	free(buf);
	return ferror(out) ? -1 : 0;
}
