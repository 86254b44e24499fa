// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/report.h"

#include "render/render.h"

static const struct kmt_renderer renderers[] = {
	{ "text", kmt_render_text, kmt_render_text_more, kmt_render_text_head,
	  kmt_render_text_layout, kmt_render_text_piece,
	  kmt_render_text_layout_free, NULL, 0 },
	{ "json", kmt_render_json, NULL, NULL, NULL, NULL, NULL, NULL, 0 },
	{ "csv", kmt_render_csv, kmt_render_csv_more, kmt_render_csv_head,
	  kmt_render_csv_layout, kmt_render_csv_piece,
	  kmt_render_csv_layout_free, NULL, 0 },
	{ "ndjson", kmt_render_ndjson, NULL, NULL, NULL, NULL, NULL, NULL, 0 },
	{ "html", kmt_render_html, NULL, NULL, NULL, NULL, NULL, NULL, 1 },
	{ "pprof", kmt_render_pprof, NULL, NULL, NULL, NULL, NULL, "profile",
	  0 },
	{ "folded", kmt_render_folded, NULL, NULL, NULL, NULL, NULL,
	  "profile", 0 },
};

size_t kmt_render_section_rows(const struct kmt_report *r, size_t i)
{
	const struct kmt_section *sec = r->sections[i];

	return sec->kind == KMT_SEC_TABLE ? sec->table.nrows : 0;
}

int kmt_render_pieces(const struct kmt_renderer *rd,
		      const struct kmt_report *r, int more, FILE *out)
{
	struct kmt_layout *lay = rd->layout(r, more);
	size_t i;
	int ret = 0;

	if (!lay) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < r->nr && !ret; i++)
		ret = rd->piece(lay, i, 0, kmt_render_section_rows(r, i), out);
	rd->layout_free(lay);
	return ret;
}


const struct kmt_renderer *kmt_renderer_at(size_t i)
{
	return i < sizeof(renderers) / sizeof(renderers[0]) ? &renderers[i] :
							      NULL;
}

const struct kmt_renderer *kmt_renderer_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++) {
		if (!strcmp(renderers[i].name, name))
			return &renderers[i];
	}
	return NULL;
}
