/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RENDER_RENDER_H
#define KMT_RENDER_RENDER_H

#include <stdio.h>

struct kmt_report;

/*
 * Renderers draw a whole report model to a stream.  Each output format is
 * one file and one row of the table below; all take the same model.
 */
struct kmt_renderer {
	const char *name;
	int (*render)(const struct kmt_report *r, FILE *out);
};

int kmt_render_text(const struct kmt_report *r, FILE *out);
int kmt_render_json(const struct kmt_report *r, FILE *out);
int kmt_render_csv(const struct kmt_report *r, FILE *out);

/* the renderer called name ("text", "json", "csv"), or NULL */
const struct kmt_renderer *kmt_renderer_find(const char *name);

#endif
