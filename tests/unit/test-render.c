// SPDX-License-Identifier: GPL-2.0
/*
 * The text renderer's own number formatting against printf's, and tables
 * whose rows are made on demand against the same rows held in the report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/render.h"
#include "report/report.h"

static const struct kmt_col pct_cols[] = {
	{ "pct", "Pct", KMT_V_PCT, 0 },
};

/* the text of a report, NUL-terminated; free() it */
static char *render(const struct kmt_report *r,
		    int (*fn)(const struct kmt_report *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(r, f);
	fclose(f);
	return buf;
}

/*
 * Percentages as the frag columns make them (100 - 100 * req / alloc),
 * printed without printf, must read exactly as "%.3f%%" prints them.
 */
static void test_pct_as_printf(void)
{
	static const double fixed[] = {
		0.0, 100.0, 37.5, 0.0005, 0.0015, 2.0005, 99.9995, 12.3455,
		1e-9, 33.333333333, 66.666666667, 0.125, 1e11, 5e12, -1.5,
	};
	struct kmt_report r;
	struct kmt_table *t;
	char *text, *want;
	size_t i, n = 0, cap = 1 << 20;
	uint32_t req, alloc;

	kmt_report_init(&r);
	t = kmt_report_add_table(&r, "g", "t", NULL, pct_cols, 1,
				 KMT_TABLE_PLAIN);
	want = malloc(cap);
	CHECK(t && want);
	if (!t || !want) {
		free(want);
		kmt_report_free(&r);
		return;
	}
	n += snprintf(want + n, cap - n, "\n Pct\n");
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 20000; i++) {
		union kmt_val *v = kmt_table_add_row(t);
		double d;

		if (i < sizeof(fixed) / sizeof(fixed[0])) {
			d = fixed[i];
		} else {
			req = (uint32_t)(i * 2654435761u) % 4096 + 1;
			alloc = req + (uint32_t)(i * 40503u) % 4096;
			d = 100.0 - 100.0 * (double)req / (double)alloc;
		}
		CHECK(v != NULL);
		if (!v)
			break;
		v->d = d;
	}
	/* the column is as wide as its widest cell: find that first */
	{
		size_t w = 3, k;
		char cellbuf[64];

		for (k = 0; k < t->nrows; k++) {
			size_t l = (size_t)snprintf(cellbuf, sizeof(cellbuf),
						    "%.3f%%", t->vals[k].d);

			if (l > w)
				w = l;
		}
		n = (size_t)snprintf(want, cap, "\n %*s\n", (int)w, "Pct");
		for (k = 0; k < w + 1; k++)
			want[n++] = '-';
		want[n++] = '\n';
		for (k = 0; k < t->nrows && n < cap - 64; k++)
			n += (size_t)snprintf(want + n, cap - n, " %*.3f%%\n",
					      (int)w - 1, t->vals[k].d);
		want[n] = '\0';
	}
	/* the table ends the text, after the lines about the input */
	text = render(&r, kmt_render_text);
	CHECK(text != NULL && strlen(text) > n);
	if (text && strlen(text) > n && strcmp(text + strlen(text) - n, want)) {
		const char *got = text + strlen(text) - n;
		size_t k = 0;

		while (got[k] && got[k] == want[k])
			k++;
		fprintf(stderr, "text differs from printf at byte %zu: "
			"\"%.40s\" vs \"%.40s\"\n", k, got + k, want + k);
		CHECK(0);
	}
	free(text);
	free(want);
	kmt_report_free(&r);
}

static const struct kmt_col mixed_cols[] = {
	{ "name", "Name", KMT_V_STR, KMT_COL_LEFT },
	{ "bytes", "Total/Per", KMT_V_U64, KMT_COL_JOIN_NEXT },
	{ "per", "", KMT_V_U64, KMT_COL_LEFT },
	{ "addr", "Address", KMT_V_HEX, 0 },
	{ "delta", "Delta", KMT_V_S64, 0 },
	{ "pct", "Frag", KMT_V_PCT, 0 },
	{ "hidden", "Hidden", KMT_V_U64, KMT_COL_NO_TEXT },
};

#define NMIXED (sizeof(mixed_cols) / sizeof(mixed_cols[0]))

static void mixed_row(void *ctx, size_t i, union kmt_val *v)
{
	static const char *const names[] = { "alpha", "b", "gamma_delta" };
	const size_t *offset = ctx;
	size_t k = i + *offset;

	v[0].str = names[k % 3];
	v[1].u = k * 1000;
	v[2].u = k;
	v[3].u = k ? 0xffff000000000000ULL + k : 0;
	v[4].s = (int64_t)k - 3;
	v[5].d = (double)k / 7.0;
	v[6].u = k;
}

/* a table drawn from a row function reads as the same rows stored */
static void test_rows_on_demand(void)
{
	int (*const renderers[])(const struct kmt_report *, FILE *) = {
		kmt_render_text, kmt_render_json, kmt_render_csv,
	};
	struct kmt_report held, lazy;
	struct kmt_table *a, *b;
	size_t i, offset = 2;

	kmt_report_init(&held);
	kmt_report_init(&lazy);
	a = kmt_report_add_table(&held, "g", "t", NULL, mixed_cols, NMIXED,
				 KMT_TABLE_PERF);
	b = kmt_report_add_table(&lazy, "g", "t", NULL, mixed_cols, NMIXED,
				 KMT_TABLE_PERF);
	CHECK(a && b);
	if (!a || !b)
		goto out;
	/* 5 rows shown of 9: rows 2..6 of the function's numbering */
	for (i = 0; i < 5; i++) {
		union kmt_val *v = kmt_table_add_row(a);

		CHECK(v != NULL);
		if (v)
			mixed_row(&offset, i, v);
	}
	a->total_rows = 9;
	kmt_table_set_row_fn(b, 5, 9, mixed_row, &offset);
	CHECK_EQ_U64(b->nrows, 5);
	CHECK_EQ_U64(b->total_rows, 9);
	for (i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++) {
		char *x = render(&held, renderers[i]);
		char *y = render(&lazy, renderers[i]);

		CHECK(x && y);
		if (x && y)
			CHECK_STR(y, x);
		/* the held rows print what they hold */
		if (x && i == 0)
			CHECK(strstr(x, "gamma_delta") && strstr(x, "4000/4") &&
			      strstr(x, "0xffff000000000006") &&
			      strstr(x, " -1 ") && strstr(x, "0.857%") &&
			      strstr(x, "... 4 more rows"));
		free(x);
		free(y);
	}
out:
	kmt_report_free(&held);
	kmt_report_free(&lazy);
}

KMT_TESTS(KMT_TEST(test_pct_as_printf), KMT_TEST(test_rows_on_demand))
