// SPDX-License-Identifier: GPL-2.0
/*
 * --format of the commands whose output is their report sections alone
 * (check, allocinfo): the formats that draw any sections, chosen as
 * report chooses, --json kept as the alias it is.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "render/render.h"

/* html draws report's views, pprof and folded its profile: not these */
static const char *const section_formats[] = {
	"text", "json", "csv", "ndjson", NULL
};

void kmt_list_section_formats(FILE *out, int help)
{
	size_t i;

	if (help)
		fputs("\nformats (--format):", out);
	for (i = 0; section_formats[i]; i++)
		fprintf(out, help ? " %s" : "%s\n", section_formats[i]);
	if (help)
		fputc('\n', out);
}

int kmt_choose_section_format(const char *format, int json,
			      const struct kmt_renderer **rd)
{
	char names[64];
	size_t i, o = 0;

	if (format && json)
		return kmt_usage_error("--format and --json exclude each other");
	if (!format)
		format = json ? "json" : "text";
	for (i = 0; section_formats[i]; i++) {
		if (!strcmp(format, section_formats[i]))
			break;
	}
	if (!section_formats[i]) {
		for (i = 0; section_formats[i] && o < sizeof(names); i++)
			o += (size_t)snprintf(names + o, sizeof(names) - o,
					      "%s%s", i ? ", " : "",
					      section_formats[i]);
		return kmt_usage_error("unknown format '%s': the formats are %s",
				       format, names);
	}
	*rd = kmt_renderer_find(format);
	/* as with --json: an error is one JSON object on stdout too */
	if (!strcmp(format, "json"))
		kmt_errors_as_json(1);
	return 0;
}
