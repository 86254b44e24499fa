// SPDX-License-Identifier: GPL-2.0
/*
 * The report's group "metrics" as Prometheus metrics: the text
 * exposition format 0.0.4 that every Prometheus scrapes, or OpenMetrics
 * 1.0.0 when the scraper asks for it.  Each table of the group is a set
 * of metric families sharing labels: its string columns are the labels
 * (an empty value is no label), every number column a family named by
 * its key, HELP its title, a counter when the key ends in "_total" and
 * a gauge otherwise; a row is one sample of each family (none where its
 * KMT_COL_ABSENT column says so).  A summary of the group gives samples
 * without labels, one an item.  Family names are the model's: no two
 * columns of the group may share one, since a family is written once.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"
#include "report/report.h"

#define PROM_GROUP	"metrics"

static int is_counter(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, "_total");
}

static int is_number(enum kmt_val_type t)
{
	return t == KMT_V_U64 || t == KMT_V_S64 || t == KMT_V_DOUBLE;
}

/*
 * A label value: backslash, double quote and newline escaped, as both
 * formats want; HELP text escapes backslash and newline (and in
 * OpenMetrics the quote too)
 */
static void put_escaped(FILE *out, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && quote)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

static void put_value(FILE *out, enum kmt_val_type t, const union kmt_val *v)
{
	if (t == KMT_V_U64)
		fprintf(out, "%" PRIu64, v->u);
	else if (t == KMT_V_S64)
		fprintf(out, "%" PRId64, v->s);
	else if (isnan(v->d))
		fputs("NaN", out);
	else if (isinf(v->d))
		fputs(v->d > 0 ? "+Inf" : "-Inf", out);
	else
		fprintf(out, "%.17g", v->d);
}

/* "# HELP" and "# TYPE" of a family; OpenMetrics names a counter bare */
static void put_family(FILE *out, const char *name, const char *help,
		       int om)
{
	int counter = is_counter(name);
	int len = (int)strlen(name) - (om && counter ? 6 : 0);

	fprintf(out, "# HELP %.*s ", len, name);
	put_escaped(out, help ? help : "", om);
	fprintf(out, "\n# TYPE %.*s %s\n", len, name,
		counter ? "counter" : "gauge");
}

static void put_table(FILE *out, const struct kmt_table *t, int om)
{
	int ac = kmt_table_col_flagged(t, KMT_COL_ABSENT);
	size_t c, i, l;

	for (c = 0; c < t->ncols; c++) {
		const struct kmt_col *col = &t->cols[c];

		if ((int)c == ac || !is_number(col->type))
			continue;
		put_family(out, col->key, col->title, om);
		for (i = 0; i < t->nrows; i++) {
			union kmt_val buf[64];
			const union kmt_val *v = kmt_table_row(t, i, buf);
			int first = 1;

			if (kmt_cell_absent(kmt_row_absent(v, ac), c))
				continue;
			fputs(col->key, out);
			for (l = 0; l < t->ncols; l++) {
				if (t->cols[l].type != KMT_V_STR ||
				    !v[l].str || !*v[l].str)
					continue;
				fprintf(out, "%s%s=\"", first ? "{" : ",",
					t->cols[l].key);
				put_escaped(out, v[l].str, 1);
				fputc('"', out);
				first = 0;
			}
			fputs(first ? " " : "} ", out);
			put_value(out, col->type, &v[c]);
			fputc('\n', out);
		}
	}
}

static void put_summary(FILE *out, const struct kmt_summary *s, int om)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		const struct kmt_sum_item *it = &s->items[i];

		if (it->kind != KMT_SUM_VALUE || !it->key ||
		    !is_number(it->type))
			continue;
		put_family(out, it->key, it->label, om);
		fprintf(out, "%s ", it->key);
		put_value(out, it->type, &it->v);
		fputc('\n', out);
	}
}

static int render(const struct kmt_report *r, FILE *out, int om)
{
	size_t i;

	if (r->oom) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < r->nr; i++) {
		const struct kmt_section *sec = r->sections[i];

		if (strcmp(sec->group, PROM_GROUP))
			continue;
		if (sec->kind == KMT_SEC_TABLE)
			put_table(out, &sec->table, om);
		else if (sec->kind == KMT_SEC_SUMMARY)
			put_summary(out, &sec->summary, om);
	}
	if (om)
		fputs("# EOF\n", out);
	return ferror(out) ? -1 : 0;
}

int kmt_render_prom(const struct kmt_report *r, FILE *out)
{
	return render(r, out, 0);
}

int kmt_render_openmetrics(const struct kmt_report *r, FILE *out)
{
	return render(r, out, 1);
}
