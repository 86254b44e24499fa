// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "report/report.h"

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
		csv_str(out, v->str);
		break;
	case KMT_V_HEX:
		fprintf(out, "%#" PRIx64, v->u);
		break;
	}
}

/*
 * Every table as its own block: "# group.key", a heading of JSON keys,
 * the rows; summaries as "key,value" rows.  Blocks are separated by an
 * empty line so that each can be cut out for a spreadsheet: after the
 * blocks of another part (more set), the first one too.
 */
int kmt_render_csv_piece(const struct kmt_layout *lay, size_t i,
			  size_t r0, size_t r1, FILE *out)
{
	const struct kmt_section *sec = lay->r->sections[i];
	size_t k, c;

	if (!r0) {
		if (i || lay->more)
			fputc('\n', out);
		fprintf(out, "# %s.%s\n", sec->group, sec->key);
	}
	if (sec->kind == KMT_SEC_TABLE) {
		const struct kmt_table *t = &sec->table;
		union kmt_val *buf = calloc(t->ncols ? t->ncols : 1,
					    sizeof(*buf));

		if (!buf)
			return -1;
		if (!r0) {
			for (c = 0; c < t->ncols; c++)
				fprintf(out, "%s%s", c ? "," : "",
					t->cols[c].key);
			fputc('\n', out);
		}
		for (k = r0; k < r1; k++) {
			const union kmt_val *row = kmt_table_row(t, k, buf);

			for (c = 0; c < t->ncols; c++) {
				if (c)
					fputc(',', out);
				csv_val(out, t->cols[c].type, &row[c]);
			}
			fputc('\n', out);
		}
		free(buf);
		return ferror(out) ? -1 : 0;
	}
	fprintf(out, "key,value,detail\n");
	for (k = 0; k < sec->summary.nr; k++) {
		const struct kmt_sum_item *it = &sec->summary.items[k];

		if (it->kind == KMT_SUM_BLANK || it->kind == KMT_SUM_NOTE)
			continue;
		fprintf(out, "%s,", it->key);
		csv_val(out, it->type, &it->v);
		if (it->kind != KMT_SUM_VALUE)
			fprintf(out, ",%" PRIu64, it->v2.u);
		fputc('\n', out);
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
	return kmt_render_pieces(kmt_renderer_find("csv"), r, 0, out);
}

int kmt_render_csv_more(const struct kmt_report *r, FILE *out)
{
	return kmt_render_pieces(kmt_renderer_find("csv"), r, 1, out);
}
