/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RENDER_RENDER_H
#define KMT_RENDER_RENDER_H

#include <stdio.h>

struct kmt_report;

/*
 * Renderers draw a whole report model to a stream.  Each output format is
 * one file and one row of the table below; all take the same model.
 *
 * A format whose sections follow one another with nothing around them
 * can also draw a report in parts: render_more draws the sections of a
 * report that continues one drawn before it (no header, the separators
 * of sections that follow others), so that render(A) then
 * render_more(B) is render of A's sections followed by B's.  The parts
 * can then be drawn at the same time, into different streams.  NULL
 * where the format is one document (JSON).
 */
struct kmt_renderer {
	const char *name;
	int (*render)(const struct kmt_report *r, FILE *out);
	int (*render_more)(const struct kmt_report *r, FILE *out);
};

int kmt_render_text(const struct kmt_report *r, FILE *out);
int kmt_render_text_more(const struct kmt_report *r, FILE *out);
int kmt_render_json(const struct kmt_report *r, FILE *out);
int kmt_render_csv(const struct kmt_report *r, FILE *out);
int kmt_render_csv_more(const struct kmt_report *r, FILE *out);

/* the renderer called name ("text", "json", "csv"), or NULL */
const struct kmt_renderer *kmt_renderer_find(const char *name);

#endif
