// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "render/render.h"

static const struct kmt_renderer renderers[] = {
	{ "text", kmt_render_text, kmt_render_text_more },
	{ "json", kmt_render_json, NULL },
	{ "csv", kmt_render_csv, kmt_render_csv_more },
};

const struct kmt_renderer *kmt_renderer_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++) {
		if (!strcmp(renderers[i].name, name))
			return &renderers[i];
	}
	return NULL;
}
