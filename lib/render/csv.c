// SPDX-License-Identifier: GPL-2.0
/*
 * CSV, one table for the whole report, "long": a row per value,
 *
 *	table,row,column,value
 *	meta,0,input,perf.data
 *	slab.callers,0,callsite,alloc_inode+0x2c
 *	slab.callers,0,total_alloc,65536
 *
 * so that every CSV reader loads a report in one call, however many
 * tables of whatever columns it holds (pandas.read_csv, Python's csv
 * module, sqlite's .import), and one table is a filter and a pivot
 * away.  table is the JSON path of the table (group.key, or key at the
 * top level), row its row from 0, column the JSON member (object.member
 * in a summary's nested object); <path>_rows says how many rows were
 * drawn and how many there were before -l.  A value whose events were not
 * recorded is empty, and the table <path>_not_recorded says which and
 * how to record them; a view not recorded at all is the table
 * <group>.not_recorded (none_seen for text inputs).  The report's
 * header is the table meta (meta.events, meta.recorded_events,
 * meta.unreadable).  A summary's members nested in an object (top's
 * totals) are columns "object.member".  The reports of a series (top's
 * refreshes, watch's intervals) are one table too, each line led by the
 * report's number, seq,table,row,column,value.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/report.h"
#include "util/duration.h"

/* RFC 4180: quote fields holding a comma, quote or line break */
static void csv_str(FILE *out, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_val(FILE *out, enum kmt_val_type type, const union kmt_val *v)
{
	size_t i;

	switch (type) {
	case KMT_V_U64:
	case KMT_V_DURATION:
	case KMT_V_TIME:
		fprintf(out, "%" PRIu64, v->u);
		break;
	case KMT_V_S64:
		fprintf(out, "%" PRId64, v->s);
		break;
	case KMT_V_DOUBLE:
	case KMT_V_PCT:
		fprintf(out, "%.6f", v->d);
		break;
	case KMT_V_STR:
	case KMT_V_LINES:
	case KMT_V_STACK:
		csv_str(out, v->str);
		break;
	case KMT_V_HEX:
		fprintf(out, "%#" PRIx64, v->u);
		break;
	case KMT_V_BOOL:
		fputc(v->u ? '1' : '0', out);
		break;
	case KMT_V_LIST:
		for (i = 0; v->list && i < v->list->n; i++)
			fprintf(out, "%s%" PRId64, i ? " " : "", v->list->v[i]);
		break;
	}
}

/*
 * "table,row,column," before a value, after the report's seq in a
 * series; suffix is added to the table, group.key, or either alone
 * where the other is "" (or key NULL)
 */
static void cell_head(FILE *out, uint64_t seq, const char *group,
		      const char *key, const char *suffix, size_t row,
		      const char *column)
{
	if (seq)
		fprintf(out, "%" PRIu64 ",", seq);
	/* a section at the document's top level (group "") is its key */
	if (!key)
		key = "";
	fprintf(out, "%s%s%s%s,%zu,", group, *group && *key ? "." : "", key,
		suffix, row);
	csv_str(out, column);
	fputc(',', out);
}

static void cell_str(FILE *out, uint64_t seq, const char *group,
		     const char *key, const char *suffix, size_t row,
		     const char *column, const char *val)
{
	cell_head(out, seq, group, key, suffix, row, column);
	csv_str(out, val);
	fputc('\n', out);
}

static void cell_u64(FILE *out, uint64_t seq, const char *group,
		     const char *key, const char *suffix, size_t row,
		     const char *column, uint64_t val)
{
	cell_head(out, seq, group, key, suffix, row, column);
	fprintf(out, "%" PRIu64 "\n", val);
}

/* what a view or columns need and how to record them, in table path */
static void csv_missing(FILE *out, uint64_t seq, const char *group,
			const char *key, const char *suffix, size_t row,
			const struct kmt_missing *m)
{
	size_t i;

	/* a row per event, so that (row, column) names one value */
	for (i = 0; i < m->nr_events; i++)
		cell_str(out, seq, group, key, suffix, row + i, "event",
			 m->events[i]);
	cell_str(out, seq, group, key, suffix, row, "record_with",
		 m->record_with);
	if (m->what)
		cell_str(out, seq, group, key, suffix, row, "what", m->what);
}

static void csv_table(FILE *out, uint64_t seq, const struct kmt_section *sec,
		      size_t r0, size_t r1, union kmt_val *buf)
{
	const struct kmt_table *t = &sec->table;
	int ac = kmt_table_col_flagged(t, KMT_COL_ABSENT);
	size_t k, c;

	for (k = r0; k < r1; k++) {
		const union kmt_val *row = kmt_table_row(t, k, buf);
		uint64_t absent = kmt_row_absent(row, ac);

		for (c = 0; c < t->ncols; c++) {
			if ((t->cols[c].flags & (KMT_COL_TEXT_ONLY |
						 KMT_COL_ABSENT)) ||
			    kmt_cell_absent(absent, c))
				continue;
			cell_head(out, seq, sec->group, sec->key, "", k,
				  t->cols[c].key);
			if (!(t->unrecorded >> c & 1))
				csv_val(out, t->cols[c].type, &row[c]);
			fputc('\n', out);
		}
	}
	if (r1 < t->nrows)
		return;
	/* an empty table is there too, and what -l left out is said */
	cell_u64(out, seq, sec->group, sec->key, "_rows", 0, "drawn",
		 t->nrows);
	cell_u64(out, seq, sec->group, sec->key, "_rows", 0, "total",
		 t->total_rows > t->nrows ? t->total_rows : t->nrows);
	if (t->unrecorded && t->missing) {
		const char *suffix = t->missing->known ? "_not_recorded" :
							 "_none_seen";

		size_t n = 0;

		for (c = 0; c < t->ncols; c++) {
			if (t->unrecorded >> c & 1)
				cell_str(out, seq, sec->group, sec->key, suffix,
					 n++, "column", t->cols[c].key);
		}
		csv_missing(out, seq, sec->group, sec->key, suffix, 0,
			    t->missing);
	} else if (t->unrecorded_kind && t->missing) {
		const char *suffix = t->missing->known ? "_not_recorded" :
							 "_none_seen";

		/* "leaks.callsites_not_recorded,0,kind,page" */
		cell_str(out, seq, sec->group, sec->key, suffix, 0,
			 t->cols[t->unrecorded_col].key, t->unrecorded_kind);
		csv_missing(out, seq, sec->group, sec->key, suffix, 0,
			    t->missing);
	}
}

static void csv_summary(FILE *out, uint64_t seq,
			const struct kmt_section *sec)
{
	/* the objects (KMT_SUM_BEGIN) the items are in: "outer.inner." */
	char col[160], in[128] = "";
	size_t k, n;

	for (k = 0; k < sec->summary.nr; k++) {
		const struct kmt_sum_item *it = &sec->summary.items[k];
		const char *a = it->kind == KMT_SUM_PAGES ? "requests" : "count";
		const char *b = it->kind == KMT_SUM_PAGES ? "bytes" : "of";

		if (it->kind == KMT_SUM_BLANK || it->kind == KMT_SUM_NOTE ||
		    it->kind == KMT_SUM_NOTE_VALUE)
			continue;
		if (it->kind == KMT_SUM_BEGIN) {
			n = strlen(in);
			snprintf(in + n, sizeof(in) - n, "%s.", it->key);
			continue;
		}
		if (it->kind == KMT_SUM_END) {
			/* back to the dot before the last object's name */
			n = strlen(in);
			if (n)
				n--;
			while (n && in[n - 1] != '.')
				n--;
			in[n] = '\0';
			continue;
		}
		if (it->kind == KMT_SUM_VALUE) {
			snprintf(col, sizeof(col), "%s%s", in, it->key);
			cell_head(out, seq, sec->group, sec->key, "", 0, col);
			if (!it->missing)
				csv_val(out, it->type, &it->v);
			fputc('\n', out);
			continue;
		}
		/* as JSON nests them: key.count and key.of */
		snprintf(col, sizeof(col), "%s%s.%s", in, it->key, a);
		cell_head(out, seq, sec->group, sec->key, "", 0, col);
		if (!it->missing)
			csv_val(out, it->type, &it->v);
		fputc('\n', out);
		snprintf(col, sizeof(col), "%s%s.%s", in, it->key, b);
		cell_head(out, seq, sec->group, sec->key, "", 0, col);
		if (!it->missing)
			fprintf(out, "%" PRIu64, it->v2.u);
		fputc('\n', out);
	}
}

/* a piece: rows [r0, r1) of section i, a summary whole */
int kmt_render_csv_piece(const struct kmt_layout *lay, size_t i,
			  size_t r0, size_t r1, FILE *out)
{
	const struct kmt_section *sec = lay->r->sections[i];
	uint64_t seq = lay->r->meta.seq;
	union kmt_val *buf;

	if (sec->flags & KMT_SEC_TEXT_ONLY)
		return 0;
	switch (sec->kind) {
	case KMT_SEC_TABLE:
		buf = calloc(sec->table.ncols ? sec->table.ncols : 1,
			     sizeof(*buf));
		if (!buf)
			return -1;
		csv_table(out, seq, sec, r0, r1, buf);
		free(buf);
		break;
	case KMT_SEC_SUMMARY:
		csv_summary(out, seq, sec);
		break;
	case KMT_SEC_MISSING:
		cell_str(out, seq, sec->group, sec->key, "", 0, "view",
			 sec->missing.view);
		csv_missing(out, seq, sec->group, sec->key, "", 0,
			    &sec->missing.why);
		break;
	}
	return ferror(out) ? -1 : 0;
}

/* the heading, and the table meta: what the text prints as its header */
int kmt_render_csv_head(const struct kmt_report *r, FILE *out)
{
	const struct kmt_report_meta *m = &r->meta;
	uint64_t seq = m->seq;
	size_t i;

	fputs(seq ? "seq,table,row,column,value\n" : "table,row,column,value\n",
	      out);
	if (m->bare)
		return ferror(out) ? -1 : 0;
	cell_str(out, seq, "meta", NULL, "", 0, "input", m->input);
	cell_str(out, seq, "meta", NULL, "", 0, "format", m->format);
	/* a snapshot says what JSON's meta says of it: what was unread */
	if (m->snapshot) {
		cell_u64(out, seq, "meta", NULL, "", 0, "unreadable_records",
			 m->unreadable);
		goto notes;
	}
	cell_str(out, seq, "meta", NULL, "", 0, "kernel",
		 m->kernel ? m->kernel : "");
	cell_u64(out, seq, "meta", NULL, "", 0, "cpus", (uint64_t)m->nr_cpus);
	cell_u64(out, seq, "meta", NULL, "", 0, "first_ts_ns", m->first_ts);
	cell_u64(out, seq, "meta", NULL, "", 0, "last_ts_ns", m->last_ts);
	if (m->boot_id && *m->boot_id)
		cell_str(out, seq, "meta", NULL, "", 0, "boot_id", m->boot_id);
	if (m->has_start) {
		char when[64];

		cell_str(out, seq, "meta", NULL, "", 0, "start_time",
			 kmt_utc_text(m->start_unix_ns, 1, when,
					sizeof(when)));
		cell_u64(out, seq, "meta", NULL, "", 0, "start_unix_ns",
			 m->start_unix_ns);
	}
	if (m->time_start || m->time_end) {
		cell_u64(out, seq, "meta", NULL, "", 0, "window_start_ns",
			 m->time_start);
		cell_u64(out, seq, "meta", NULL, "", 0, "window_end_ns",
			 m->time_end);
	}
	cell_u64(out, seq, "meta", NULL, "", 0, "other_events",
		 m->other_events);
	cell_u64(out, seq, "meta", NULL, "", 0, "lost_events", m->lost_events);
	cell_u64(out, seq, "meta", NULL, "", 0, "lost_records",
		 m->lost_records);
	cell_u64(out, seq, "meta", NULL, "", 0, "unreadable_records",
		 m->unreadable);
	cell_u64(out, seq, "meta", NULL, "", 0, "out_of_order_events",
		 m->out_of_order);
	cell_u64(out, seq, "meta", NULL, "", 0, "has_stacks",
		 !!m->has_stacks);
	cell_u64(out, seq, "meta", NULL, "", 0, "event_types_known",
		 !!m->types_known);
	if (m->matches_nothing)
		cell_str(out, seq, "meta", NULL, "", 0, "matches_nothing",
			 m->matches_nothing);
	for (i = 0; i < m->nr_event_types; i++) {
		cell_str(out, seq, "meta", NULL, ".events", i, "event",
			 m->events[i].name);
		cell_u64(out, seq, "meta", NULL, ".events", i, "count",
			 m->events[i].count);
	}
	for (i = 0; i < m->nr_recorded; i++)
		cell_str(out, seq, "meta", NULL, ".recorded_events", i, "event",
			 m->recorded[i]);
notes:
	for (i = 0; i < m->nr_notes; i++) {
		if (m->notes[i].unit)
			cell_u64(out, seq, "meta", NULL, ".unreadable", i,
				 m->notes[i].unit, m->notes[i].where);
		cell_str(out, seq, "meta", NULL, ".unreadable", i, "why",
			 m->notes[i].why);
	}
	return ferror(out) ? -1 : 0;
}

/* CSV pieces share nothing but the report */
struct kmt_layout *kmt_render_csv_layout(const struct kmt_report *r,
					  int more)
{
	struct kmt_layout *lay = calloc(1, sizeof(*lay));

	if (lay) {
		lay->r = r;
		lay->more = more;
	}
	return lay;
}

void kmt_render_csv_layout_free(struct kmt_layout *lay)
{
	free(lay);
}

int kmt_render_csv(const struct kmt_report *r, FILE *out)
{
	if (kmt_render_csv_head(r, out))
		return -1;
	return kmt_render_pieces(kmt_renderer_find("csv"), r, 0, out);
}

int kmt_render_csv_more(const struct kmt_report *r, FILE *out)
{
	return kmt_render_pieces(kmt_renderer_find("csv"), r, 1, out);
}
