// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/report.h"
#include "util/duration.h"
#include "util/json.h"

/* text of lines as an array of them; a stack's without their indentation */
static void json_lines(struct kmt_json *j, const char *key, const char *text,
		       int unindent)
{
	const char *p = text ? text : "";

	kmt_json_arr_open(j, key);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p), len = n;
		const char *s = p;

		while (unindent && len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		kmt_json_strn(j, NULL, s, len);
		p += n + (nl ? 1 : 0);
	}
	kmt_json_arr_close(j);
}

void kmt_render_json_val(struct kmt_json *j, const char *key,
			 enum kmt_val_type type, const union kmt_val *v)
{
	char buf[32];
	size_t i;

	switch (type) {
	case KMT_V_U64:
	case KMT_V_DURATION:
	case KMT_V_TIME:
		kmt_json_u64(j, key, v->u);
		break;
	case KMT_V_S64:
		kmt_json_s64(j, key, v->s);
		break;
	case KMT_V_DOUBLE:
	case KMT_V_PCT:
		kmt_json_double(j, key, v->d);
		break;
	case KMT_V_STR:
		kmt_json_str(j, key, v->str);
		break;
	case KMT_V_HEX:
		snprintf(buf, sizeof(buf), "%#" PRIx64, v->u);
		kmt_json_str(j, key, buf);
		break;
	case KMT_V_BOOL:
		kmt_json_bool(j, key, !!v->u);
		break;
	case KMT_V_LINES:
	case KMT_V_STACK:
		json_lines(j, key, v->str, type == KMT_V_STACK);
		break;
	case KMT_V_LIST:
		kmt_json_arr_open(j, key);
		for (i = 0; v->list && i < v->list->n; i++)
			kmt_json_s64(j, NULL, v->list->v[i]);
		kmt_json_arr_close(j);
		break;
	}
}

void kmt_render_json_missing(struct kmt_json *j, const struct kmt_missing *m)
{
	size_t i;

	kmt_json_arr_open(j, "events");
	for (i = 0; i < m->nr_events; i++)
		kmt_json_str(j, NULL, m->events[i]);
	kmt_json_arr_close(j);
	kmt_json_str(j, "record_with", m->record_with);
	if (m->what)
		kmt_json_str(j, "what", m->what);
}

void kmt_render_json_unrecorded(struct kmt_json *j, const struct kmt_table *t)
{
	size_t c;

	if (t->unrecorded_kind) {
		kmt_json_obj_open(j, "rows");
		kmt_json_str(j, t->cols[t->unrecorded_col].key,
			     t->unrecorded_kind);
		kmt_json_obj_close(j);
	} else {
		kmt_json_arr_open(j, "columns");
		for (c = 0; c < t->ncols; c++) {
			if (t->unrecorded >> c & 1)
				kmt_json_str(j, NULL, t->cols[c].key);
		}
		kmt_json_arr_close(j);
	}
	kmt_render_json_missing(j, t->missing);
}

/* a table's columns or rows not recorded, "<key>_not_recorded": {...} */
static void json_unrecorded(struct kmt_json *j, const char *key,
			    const struct kmt_table *t)
{
	char member[96];

	if ((!t->unrecorded && !t->unrecorded_kind) || !t->missing)
		return;
	snprintf(member, sizeof(member), "%s_%s", key,
		 t->missing->known ? "not_recorded" : "none_seen");
	kmt_json_obj_open(j, member);
	kmt_render_json_unrecorded(j, t);
	kmt_json_obj_close(j);
}

/* a value, or null in a column not recorded */
static void json_cell(struct kmt_json *j, const struct kmt_table *t,
		      size_t c, const union kmt_val *v)
{
	if (t->unrecorded >> c & 1)
		kmt_json_null(j, t->style == KMT_TABLE_SERIES ? NULL :
							      t->cols[c].key);
	else
		kmt_render_json_val(j, t->style == KMT_TABLE_SERIES ? NULL :
							   t->cols[c].key,
			 t->cols[c].type, v);
}

/* a series table column by column: {"col": [v0, v1, ...], ...} */
static void json_series(struct kmt_json *j, const char *key,
			const struct kmt_table *t)
{
	union kmt_val *buf = calloc(t->ncols ? t->ncols : 1, sizeof(*buf));
	size_t r, c;

	if (!buf)
		return;
	kmt_json_obj_open(j, key);
	for (c = 0; c < t->ncols; c++) {
		if (t->cols[c].flags & (KMT_COL_TEXT_ONLY | KMT_COL_ABSENT))
			continue;
		kmt_json_arr_open(j, t->cols[c].key);
		for (r = 0; r < t->nrows; r++)
			json_cell(j, t, c, &kmt_table_row(t, r, buf)[c]);
		kmt_json_arr_close(j);
	}
	kmt_json_obj_close(j);
	free(buf);
	json_unrecorded(j, key, t);
}

/* the length of "x" in a column key "x.y" (a member of object x), or 0 */
static size_t object_len(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot ? (size_t)(dot - key) : 0;
}

/* key is one of names (NULL-terminated; NULL: none) */
static int named(const char *key, const char *const *names);

void kmt_render_json_cells(struct kmt_json *j, const struct kmt_table *t,
			   const union kmt_val *row, const char *const *taken)
{
	int ac = kmt_table_col_flagged(t, KMT_COL_ABSENT);
	uint64_t absent = kmt_row_absent(row, ac);
	const char *open = NULL;	/* the object the last member went in */
	size_t open_len = 0, c;
	char name[64], renamed[80];

	for (c = 0; c < t->ncols; c++) {
		const char *key = t->cols[c].key;
		size_t n;

		if (named(key, taken)) {
			snprintf(renamed, sizeof(renamed), "row_%s", key);
			key = renamed;
		}

		if ((t->cols[c].flags & (KMT_COL_TEXT_ONLY | KMT_COL_ABSENT)) ||
		    kmt_cell_absent(absent, c))
			continue;
		n = object_len(key);
		if (open && (n != open_len || strncmp(key, open, n))) {
			kmt_json_obj_close(j);
			open = NULL;
		}
		if (n && !open) {
			snprintf(name, sizeof(name), "%.*s", (int)n, key);
			kmt_json_obj_open(j, name);
			open = key;
			open_len = n;
		}
		if (t->unrecorded >> c & 1)
			kmt_json_null(j, key + (n ? n + 1 : 0));
		else
			kmt_render_json_val(j, key + (n ? n + 1 : 0),
					    t->cols[c].type, &row[c]);
	}
	if (open)
		kmt_json_obj_close(j);
}

static void json_table(struct kmt_json *j, const char *key,
		       const struct kmt_table *t)
{
	union kmt_val *buf;
	size_t r;

	if (t->style == KMT_TABLE_SERIES) {
		json_series(j, key, t);
		return;
	}
	buf = calloc(t->ncols ? t->ncols : 1, sizeof(*buf));
	if (!buf)
		return;
	kmt_json_arr_open(j, key);
	for (r = 0; r < t->nrows; r++) {
		kmt_json_obj_open(j, NULL);
		kmt_render_json_cells(j, t, kmt_table_row(t, r, buf), NULL);
		kmt_json_obj_close(j);
	}
	kmt_json_arr_close(j);
	free(buf);
	if (t->total_rows > t->nrows) {
		char omitted[96];

		snprintf(omitted, sizeof(omitted), "%s_omitted", key);
		kmt_json_u64(j, omitted, t->total_rows - t->nrows);
	}
	json_unrecorded(j, key, t);
}

void kmt_render_json_summary(struct kmt_json *j, const struct kmt_summary *s)
{
	kmt_render_json_summary_except(j, s, NULL);
}

/* key is one of names (NULL-terminated; NULL: none) */
static int named(const char *key, const char *const *names)
{
	for (; key && names && *names; names++) {
		if (!strcmp(key, *names))
			return 1;
	}
	return 0;
}

void kmt_render_json_summary_except(struct kmt_json *j,
				    const struct kmt_summary *s,
				    const char *const *skip)
{
	size_t i, depth = 0;

	for (i = 0; i < s->nr; i++) {
		const struct kmt_sum_item *it = &s->items[i];

		if (it->kind == KMT_SUM_BEGIN)
			depth++;
		else if (it->kind == KMT_SUM_END && depth)
			depth--;
		else if (!depth && named(it->key, skip))
			continue;
		if (it->missing && it->kind != KMT_SUM_BLANK &&
		    it->kind != KMT_SUM_NOTE && it->kind != KMT_SUM_BEGIN &&
		    it->kind != KMT_SUM_END &&
		    it->kind != KMT_SUM_NOTE_VALUE) {
			kmt_json_null(j, it->key);
			continue;
		}
		switch (it->kind) {
		case KMT_SUM_VALUE:
			kmt_render_json_val(j, it->key, it->type, &it->v);
			break;
		case KMT_SUM_BEGIN:
			kmt_json_obj_open(j, it->key);
			break;
		case KMT_SUM_END:
			kmt_json_obj_close(j);
			break;
		case KMT_SUM_RATIO:
			kmt_json_obj_open(j, it->key);
			kmt_json_u64(j, "count", it->v.u);
			kmt_json_u64(j, "of", it->v2.u);
			kmt_json_obj_close(j);
			break;
		case KMT_SUM_PAGES:
			kmt_json_obj_open(j, it->key);
			kmt_json_u64(j, "requests", it->v.u);
			kmt_json_u64(j, "bytes", it->v2.u);
			kmt_json_obj_close(j);
			break;
		case KMT_SUM_BLANK:
		case KMT_SUM_NOTE:
		case KMT_SUM_NOTE_VALUE:
			break;
		}
	}
}

static void json_unreadable(struct kmt_json *j,
			    const struct kmt_report_meta *m)
{
	size_t i;

	kmt_json_u64(j, "unreadable_records", m->unreadable);
	kmt_json_arr_open(j, "unreadable");
	for (i = 0; i < m->nr_notes; i++) {
		kmt_json_obj_open(j, NULL);
		if (m->notes[i].unit)
			kmt_json_u64(j, m->notes[i].unit, m->notes[i].where);
		kmt_json_str(j, "why", m->notes[i].why);
		kmt_json_obj_close(j);
	}
	kmt_json_arr_close(j);
}

void kmt_render_json_start(struct kmt_json *j,
			   const struct kmt_report_meta *m)
{
	char when[64];

	kmt_json_str(j, "boot_id", m->boot_id && *m->boot_id ? m->boot_id :
							       NULL);
	if (m->has_start) {
		kmt_json_str(j, "start_time",
			     kmt_utc_text(m->start_unix_ns, 1, when,
					    sizeof(when)));
		kmt_json_u64(j, "start_unix_ns", m->start_unix_ns);
	} else {
		kmt_json_null(j, "start_time");
		kmt_json_null(j, "start_unix_ns");
	}
}

static void json_meta(struct kmt_json *j, const struct kmt_report_meta *m)
{
	size_t i;

	kmt_json_str(j, "input", m->input);
	kmt_json_str(j, "format", m->format);
	if (m->snapshot) {
		json_unreadable(j, m);
		return;
	}
	kmt_json_str(j, "kernel", m->kernel && *m->kernel ? m->kernel : NULL);
	kmt_json_u64(j, "cpus", (uint64_t)m->nr_cpus);
	kmt_json_u64(j, "first_ts_ns", m->first_ts);
	kmt_json_u64(j, "last_ts_ns", m->last_ts);
	kmt_json_u64(j, "span_ns", m->last_ts >= m->first_ts ?
				   m->last_ts - m->first_ts : 0);
	kmt_render_json_start(j, m);
	if (m->time_start || m->time_end) {
		kmt_json_obj_open(j, "window");
		kmt_json_u64(j, "start_ns", m->time_start);
		kmt_json_u64(j, "end_ns", m->time_end);
		kmt_json_obj_close(j);
	}
	kmt_json_obj_open(j, "events");
	for (i = 0; i < m->nr_event_types; i++)
		kmt_json_u64(j, m->events[i].name, m->events[i].count);
	kmt_json_obj_close(j);
	kmt_json_u64(j, "other_events", m->other_events);
	if (m->nr_formats) {
		kmt_json_u64(j, "unusable_formats", m->nr_formats);
		kmt_json_arr_open(j, "unusable_format");
		for (i = 0; i < m->nr_formats && i < KMT_META_FORMATS; i++) {
			kmt_json_obj_open(j, NULL);
			kmt_json_str(j, "event", m->formats[i].name);
			kmt_json_str(j, "why", m->formats[i].why);
			kmt_json_u64(j, "records", m->formats[i].records);
			kmt_json_obj_close(j);
		}
		kmt_json_arr_close(j);
	}
	kmt_json_u64(j, "lost_events", m->lost_events);
	kmt_json_u64(j, "lost_records", m->lost_records);
	json_unreadable(j, m);
	kmt_json_u64(j, "out_of_order_events", m->out_of_order);
	if (m->matches_nothing)
		kmt_json_str(j, "matches_nothing", m->matches_nothing);
	kmt_json_bool(j, "has_stacks", m->has_stacks);
	/* null: the input does not say which event types it holds */
	if (m->types_known) {
		kmt_json_arr_open(j, "recorded_events");
		for (i = 0; i < m->nr_recorded; i++)
			kmt_json_str(j, NULL, m->recorded[i]);
		kmt_json_arr_close(j);
	} else {
		kmt_json_null(j, "recorded_events");
	}
}

/* a section as a member of its group's object (or of the document) */
static void json_section(struct kmt_json *j, const struct kmt_section *sec)
{
	if (sec->kind == KMT_SEC_TABLE) {
		json_table(j, sec->key, &sec->table);
	} else if (sec->kind == KMT_SEC_MISSING) {
		kmt_json_obj_open(j, sec->key);
		kmt_json_str(j, "view", sec->missing.view);
		kmt_render_json_missing(j, &sec->missing.why);
		kmt_json_obj_close(j);
	} else if (!*sec->group || !*sec->key) {
		kmt_render_json_summary(j, &sec->summary);
	} else {
		kmt_json_obj_open(j, sec->key);
		kmt_render_json_summary(j, &sec->summary);
		kmt_json_obj_close(j);
	}
}

int kmt_render_json(const struct kmt_report *r, FILE *out)
{
	/* a report of a series is a line of a stream of them */
	return kmt_render_json_except(r, out, NULL, !r->meta.seq);
}

int kmt_render_json_except(const struct kmt_report *r, FILE *out,
			   const struct kmt_section *skip, int pretty)
{
	struct kmt_json j;
	size_t i, k;

	kmt_json_init(&j, out, pretty);
	kmt_json_obj_open(&j, NULL);
	if (!r->meta.bare)
		json_meta(&j, &r->meta);
	/*
	 * One object per group, in the order groups first appear; the
	 * sections of the top level (group "") where they are
	 */
	for (i = 0; i < r->nr; i++) {
		const struct kmt_section *sec = r->sections[i];
		const char *group = sec->group;
		int seen = 0;

		if (sec->flags & KMT_SEC_TEXT_ONLY)
			continue;
		if (!*group) {
			if (sec != skip)
				json_section(&j, sec);
			continue;
		}
		for (k = 0; k < i && !seen; k++)
			seen = !strcmp(r->sections[k]->group, group) &&
			       !(r->sections[k]->flags & KMT_SEC_TEXT_ONLY);
		if (seen)
			continue;
		kmt_json_obj_open(&j, group);
		for (k = i; k < r->nr; k++) {
			sec = r->sections[k];
			if (!strcmp(sec->group, group) && sec != skip &&
			    !(sec->flags & KMT_SEC_TEXT_ONLY))
				json_section(&j, sec);
		}
		kmt_json_obj_close(&j);
	}
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
	return ferror(out) ? -1 : 0;
}
