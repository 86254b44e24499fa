/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RENDER_RENDER_H
#define KMT_RENDER_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

struct kmt_json;

/*
 * Renderers draw a whole report model to a stream.  Each output format is
 * one file and one row of the table below; all take the same model.
 * Text leaves out the sections flagged KMT_SEC_NO_TEXT, every other
 * format those flagged KMT_SEC_TEXT_ONLY (report.h).
 *
 * A format whose sections follow one another with nothing around them
 * can also draw a report in parts: render_more draws the sections of a
 * report that continues one drawn before it (no header, the separators
 * of sections that follow others), so that render(A) then
 * render_more(B) is render of A's sections followed by B's.  NULL where
 * the format is one document (JSON), as are layout, piece and
 * layout_free below; head is NULL where nothing goes before the
 * sections.
 *
 * Such a format also draws a report's sections in pieces, so that two
 * threads can share the drawing of one report: piece (i, r0, r1) is
 * section i's rows [r0, r1), a summary being one piece (i, 0, 0).  A
 * table's first piece (r0 0) carries what goes before its rows, its
 * last (r1 its row count) what goes after.  The pieces of every section
 * in order read as render_more (more set) or as render's sections.
 * layout() first works out what pieces share (the text's column widths,
 * a pass over every row), which they then only read: pieces can be
 * drawn at once into different streams and joined after.
 */
struct kmt_layout {
	const struct kmt_report *r;
	int more;		/* the report continues one drawn before */
	void **sec;		/* the format's own, per section, or NULL */
};

struct kmt_renderer {
	const char *name;
	int (*render)(const struct kmt_report *r, FILE *out);
	int (*render_more)(const struct kmt_report *r, FILE *out);
	/*
	 * What render draws before the sections (NULL if nothing): render
	 * is head, then the pieces of every section.  0, or -1.
	 */
	int (*head)(const struct kmt_report *r, FILE *out);
	/* NULL when out of memory */
	struct kmt_layout *(*layout)(const struct kmt_report *r, int more);
	/* 0, or -1 (errno set) when the piece could not be drawn */
	int (*piece)(const struct kmt_layout *lay, size_t sec, size_t r0,
		     size_t r1, FILE *out);
	void (*layout_free)(struct kmt_layout *lay);
	/*
	 * The one group of sections the format draws ("profile": pprof and
	 * folded draw the allocation profile), which the command then makes
	 * alone; NULL: it draws every section.
	 */
	const char *group;
	/* it draws every view, the profile too: the command runs them all */
	int all_views;
};

/* every section of r whole, in order, by pieces; 0 or -1 (errno set) */
int kmt_render_pieces(const struct kmt_renderer *rd,
		      const struct kmt_report *r, int more, FILE *out);

/* the rows of section i a piece can hold: a table's, 0 for a summary */
size_t kmt_render_section_rows(const struct kmt_report *r, size_t i);

int kmt_render_text(const struct kmt_report *r, FILE *out);
int kmt_render_text_more(const struct kmt_report *r, FILE *out);
int kmt_render_text_head(const struct kmt_report *r, FILE *out);
struct kmt_layout *kmt_render_text_layout(const struct kmt_report *r,
					  int more);
int kmt_render_text_piece(const struct kmt_layout *lay, size_t sec,
			  size_t r0, size_t r1, FILE *out);
void kmt_render_text_layout_free(struct kmt_layout *lay);
int kmt_render_json(const struct kmt_report *r, FILE *out);
/* the JSON of every section but skip (NULL: all), pretty or compact */
int kmt_render_json_except(const struct kmt_report *r, FILE *out,
			   const struct kmt_section *skip, int pretty);
int kmt_render_html(const struct kmt_report *r, FILE *out);
/* text as HTML writes it: <, >, & and " escaped */
void kmt_render_html_text(const char *s, FILE *out);
int kmt_render_csv(const struct kmt_report *r, FILE *out);
int kmt_render_csv_more(const struct kmt_report *r, FILE *out);
int kmt_render_csv_head(const struct kmt_report *r, FILE *out);
struct kmt_layout *kmt_render_csv_layout(const struct kmt_report *r,
					 int more);
int kmt_render_csv_piece(const struct kmt_layout *lay, size_t sec,
			 size_t r0, size_t r1, FILE *out);
void kmt_render_csv_layout_free(struct kmt_layout *lay);

int kmt_render_ndjson(const struct kmt_report *r, FILE *out);
int kmt_render_pprof(const struct kmt_report *r, FILE *out);
int kmt_render_folded(const struct kmt_report *r, FILE *out);
/*
 * The group "metrics" (prom.c says its shape) in Prometheus' text
 * format 0.0.4, or in OpenMetrics 1.0.0 (ends in "# EOF"); not in the
 * table of formats below, since only serve's model has such a group
 */
int kmt_render_prom(const struct kmt_report *r, FILE *out);
int kmt_render_openmetrics(const struct kmt_report *r, FILE *out);

/*
 * The members of a table's row as --json has them (json.c): null where
 * not recorded, none for text-only or absent cells, and a column keyed
 * "x.y" as member y of object x, which the columns after it of keys
 * "x.*" share ({"allocs": {"a": 1, "b": 2}}).  A column named as one of
 * taken (NULL-terminated, or NULL), members the row has already, is
 * "row_<name>": ndjson's errors.callsites "row_first_ts_ns".
 */
void kmt_render_json_cells(struct kmt_json *j, const struct kmt_table *t,
			   const union kmt_val *row, const char *const *taken);

/* a value of a table or summary as JSON, by its type (json.c) */
void kmt_render_json_val(struct kmt_json *j, const char *key,
			 enum kmt_val_type type, const union kmt_val *v);

/*
 * The members --json gives, for ndjson's rows (json.c): a summary's
 * items; what a view or columns need, "events" and "record_with"; a
 * table's columns or rows not recorded, "columns" or "rows", and why.
 */
void kmt_render_json_summary(struct kmt_json *j, const struct kmt_summary *s);
/* the same but for the items (outside nested objects) named in skip */
void kmt_render_json_summary_except(struct kmt_json *j,
				    const struct kmt_summary *s,
				    const char *const *skip);
void kmt_render_json_missing(struct kmt_json *j, const struct kmt_missing *m);
void kmt_render_json_unrecorded(struct kmt_json *j,
				const struct kmt_table *t);

/*
 * The recording's boot and wall-clock start, as "boot_id", "start_time"
 * and "start_unix_ns", null where it does not say (json.c)
 */
void kmt_render_json_start(struct kmt_json *j,
			   const struct kmt_report_meta *m);


/* the renderer called name ("text", "json", "csv"), or NULL */
const struct kmt_renderer *kmt_renderer_find(const char *name);
/* the i-th renderer, NULL past the last: for listing the formats */
const struct kmt_renderer *kmt_renderer_at(size_t i);

#endif
