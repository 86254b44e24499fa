// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "render/render.h"

static const struct kmt_renderer renderers[] = {
	{ "text", kmt_render_text },
	{ "json", kmt_render_json },
	{ "csv", kmt_render_csv },
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
