// SPDX-License-Identifier: GPL-2.0
/*
 * --format of every command but report: the formats that draw any
 * report sections and whose documents can follow one another (a series
 * of top's refreshes), chosen as report chooses, --json kept as the
 * alias it is.  They come from the renderers' table: html draws report's
 * views whole and pprof and folded its profile, so neither is one.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "render/render.h"

static int draws_sections(const struct kmt_renderer *rd)
{
	return !rd->group && !rd->all_views;
}

void kmt_list_section_formats(FILE *out, int help)
{
	const struct kmt_renderer *rd;
	size_t i;

	if (help)
		fputs("\nformats (--format):", out);
	for (i = 0; (rd = kmt_renderer_at(i)); i++) {
		if (draws_sections(rd))
			fprintf(out, help ? " %s" : "%s\n", rd->name);
	}
	if (help)
		fputc('\n', out);
}

int kmt_choose_section_format(const char *format, int json,
			      const struct kmt_renderer **rd)
{
	const struct kmt_renderer *known;
	char names[256];
	size_t i, o = 0;

	if (format && json)
		return kmt_usage_error("--format and --json exclude each other");
	if (!format)
		format = json ? "json" : "text";
	*rd = kmt_renderer_find(format);
	if (*rd && draws_sections(*rd)) {
		/* as with --json: an error is one JSON object on stdout too */
		if (!strcmp(format, "json"))
			kmt_errors_as_json(1);
		return 0;
	}
	names[0] = '\0';
	for (i = 0; (known = kmt_renderer_at(i)) && o < sizeof(names); i++) {
		if (draws_sections(known))
			o += (size_t)snprintf(names + o, sizeof(names) - o,
					      "%s%s", o ? ", " : "", known->name);
	}
	return kmt_usage_error("unknown format '%s': the formats are %s",
			       format, names);
}
