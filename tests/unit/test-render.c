// SPDX-License-Identifier: GPL-2.0
/*
 * The text renderer's own number formatting against printf's, and tables
 * whose rows are made on demand against the same rows held in the report.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "check.h"
#include "event/event.h"
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

/*
 * Column widths.  The renderer measures a cell without making its text;
 * here each width is checked against the text printf makes of the value.
 * A case is a one-column table with an empty heading: the rule under the
 * heading is one dash longer than the column is wide, and each row is the
 * text right-aligned to that width.
 */
#define WIDTH_MAX_ROWS 4
#define CELL_REF 512

struct width_case {
	enum kmt_val_type type;
	unsigned int flags;
	size_t n;
	union kmt_val v[WIDTH_MAX_ROWS];
};

/*
 * The text of a value, by printf, and its length: numbers printed with
 * printf are cut at 255 bytes, as the renderer makes them in 256.
 */
static size_t ref_text(char *buf, size_t size, const struct width_case *c,
		       size_t i)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" } };
	const union kmt_val *v = &c->v[i];
	char tmp[64];
	size_t k, n, o;

	buf[0] = '\0';
	switch (c->type) {
	case KMT_V_U64:
		if ((c->flags & KMT_COL_DOT_ZERO) && !v->u) {
			snprintf(buf, size, ".");
		} else if (c->flags & KMT_COL_GROUPED) {
			n = (size_t)snprintf(tmp, sizeof(tmp), "%" PRIu64, v->u);
			for (k = 0, o = 0; k < n; k++) {
				if (k && (n - k) % 3 == 0)
					buf[o++] = ',';
				buf[o++] = tmp[k];
			}
			buf[o] = '\0';
		} else {
			snprintf(buf, size, "%" PRIu64, v->u);
		}
		break;
	case KMT_V_S64:
		snprintf(buf, size, "%" PRId64, v->s);
		break;
	case KMT_V_DOUBLE:
		snprintf(buf, size, "%.3f", v->d);
		break;
	case KMT_V_PCT:
		snprintf(buf, size, "%.3f%%", v->d);
		break;
	case KMT_V_STR:
	case KMT_V_LINES:
	case KMT_V_STACK:
		snprintf(buf, size, "%s", v->str ? v->str : "");
		break;
	case KMT_V_HEX:
		snprintf(buf, size, "%#" PRIx64, v->u);
		break;
	case KMT_V_BOOL:
		snprintf(buf, size, "%s", v->u ? "yes" : "no");
		break;
	case KMT_V_DURATION:
		for (k = 0; k < 3; k++) {
			if (v->u >= units[k].div) {
				snprintf(buf, size, "%.2f%s",
					 (double)v->u / (double)units[k].div,
					 units[k].unit);
				break;
			}
		}
		if (k == 3)
			snprintf(buf, size, "%" PRIu64 "ns", v->u);
		break;
	case KMT_V_TIME:
		snprintf(buf, size, "%" PRIu64 ".%06" PRIu64,
			 v->u / 1000000000, v->u / 1000 % 1000000);
		break;
	case KMT_V_LIST:
		for (k = 0, o = 0; v->list && k < v->list->n && o < size; k++)
			o += (size_t)snprintf(buf + o, size - o, "%s%" PRId64,
					      k ? " " : "", v->list->v[k]);
		break;
	}
	n = strlen(buf);
	if ((c->type == KMT_V_DOUBLE || c->type == KMT_V_PCT) && n > 255)
		n = 255;
	return n;
}

struct width_cases {
	struct width_case *c;
	size_t nr, alloc;
};

static void add_case(struct width_cases *wc, enum kmt_val_type type,
		     unsigned int flags, size_t n, const union kmt_val *v)
{
	struct width_case *c;

	if (wc->nr == wc->alloc) {
		size_t alloc = wc->alloc ? 2 * wc->alloc : 1024;
		struct width_case *p = realloc(wc->c, alloc * sizeof(*p));

		CHECK(p != NULL);
		if (!p)
			return;
		wc->c = p;
		wc->alloc = alloc;
	}
	c = &wc->c[wc->nr++];
	memset(c, 0, sizeof(*c));
	c->type = type;
	c->flags = flags;
	c->n = n;
	memcpy(c->v, v, n * sizeof(*v));
}

static void add_one(struct width_cases *wc, enum kmt_val_type type,
		    unsigned int flags, union kmt_val v)
{
	add_case(wc, type, flags, 1, &v);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* the cases of one chunk drawn and checked; the number of failures */
static size_t check_widths(const struct width_case *cases, size_t nr)
{
	struct kmt_col *cols = calloc(nr ? nr : 1, sizeof(*cols));
	char (*titles)[32] = calloc(nr ? nr : 1, sizeof(*titles));
	struct kmt_report r;
	size_t i, k, bad = 0;
	char *text;

	kmt_report_init(&r);
	CHECK(cols && titles);
	if (!cols || !titles)
		goto out;
	for (i = 0; i < nr; i++) {
		struct kmt_table *t;

		snprintf(titles[i], sizeof(titles[i]), "case %zu", i);
		cols[i].key = "v";
		cols[i].title = "";
		cols[i].type = cases[i].type;
		cols[i].flags = cases[i].flags;
		t = kmt_report_add_table(&r, "g", "t", titles[i], &cols[i], 1,
					 KMT_TABLE_PLAIN);
		CHECK(t != NULL);
		if (!t)
			goto out;
		for (k = 0; k < cases[i].n; k++) {
			union kmt_val *v = kmt_table_add_row(t);

			CHECK(v != NULL);
			if (!v)
				goto out;
			*v = cases[i].v[k];
		}
	}
	text = render(&r, kmt_render_text);
	CHECK(text != NULL);
	for (i = 0; text && i < nr; i++) {
		const struct width_case *c = &cases[i];
		char marker[48], want[CELL_REF + 16], cell[CELL_REF];
		size_t len[WIDTH_MAX_ROWS], w = 0, o;
		const char *p, *eol;

		for (k = 0; k < c->n; k++) {
			len[k] = ref_text(cell, sizeof(cell), c, k);
			if (len[k] > w)
				w = len[k];
		}
		snprintf(marker, sizeof(marker), "\n%s\n\n", titles[i]);
		p = strstr(text, marker);
		CHECK(p != NULL);
		if (!p)
			break;
		p += strlen(marker);
		/* the rule: one dash more than the column's width */
		eol = strchr(p, '\n');
		if (!eol || (size_t)(eol - p) != w + 1) {
			fprintf(stderr, "case %zu (type %d, flags %#x): width "
				"%td, text %zu\n", i, (int)c->type, c->flags,
				eol ? eol - p - 1 : -1, w);
			bad++;
			continue;
		}
		p = eol + 1;
		for (k = 0; k < c->n; k++) {
			ref_text(cell, sizeof(cell), c, k);
			cell[len[k]] = '\0';
			o = (size_t)snprintf(want, sizeof(want), " %*s", (int)w,
					     cell);
			if (c->flags & KMT_COL_LEFT)
				o = (size_t)snprintf(want, sizeof(want),
						     " %-*s", (int)w, cell);
			while (o && want[o - 1] == ' ')
				want[--o] = '\0';
			eol = strchr(p, '\n');
			if (!eol || (size_t)(eol - p) != o ||
			    memcmp(p, want, o)) {
				fprintf(stderr, "case %zu row %zu: \"%.*s\" vs "
					"\"%s\"\n", i, k,
					eol ? (int)(eol - p) : 0, p, want);
				bad++;
				break;
			}
			p = eol + 1;
		}
	}
	free(text);
out:
	kmt_report_free(&r);
	free(cols);
	free(titles);
	return bad;
}

static void test_widths(void)
{
	static const unsigned int u64_flags[] = {
		0, KMT_COL_DOT_ZERO, KMT_COL_GROUPED,
		KMT_COL_DOT_ZERO | KMT_COL_GROUPED, KMT_COL_LEFT,
	};
	static const double doubles[] = {
		0.0, -0.0, 9.0, 9.9995, 9.9996, 9.99949, 9.99951, 99.9995,
		99.9994, 99.99951, 99.99949999, 999.9995, 0.0005, 0.0004999,
		0.0015, 2.0005, 12.3455, 100.0, 37.5, 1e-9, 1e11,
		999999999999.9994, 999999999999.9996, 1e12, 5e12, 1e15,
		1e300, -1e300, -1.5, -0.0004, -0.0006, -9.9996,
		4.9406564584124654e-324, 2.2250738585072014e-308,
		33.333333333, 66.666666667,
	};
	static char long_str[300];
	static const char *const strs[] = {
		"", "a", "kmalloc_trace+0x1a/0x300", long_str,
	};
	struct width_cases wc = { NULL, 0, 0 };
	uint64_t u[400], seed = 0x9e3779b97f4a7c15ULL;
	size_t nu = 0, i, j, bad = 0;
	union kmt_val v, g[WIDTH_MAX_ROWS];

	memset(long_str, 'x', sizeof(long_str) - 1);
	/* every power of ten and of two, one each side, and the ends */
	for (i = 0, v.u = 1; i < 20; i++, v.u *= 10) {
		u[nu++] = v.u - 1;
		u[nu++] = v.u;
		u[nu++] = v.u + 1;
	}
	for (i = 1; i < 64; i++) {
		u[nu++] = (1ULL << i) - 1;
		u[nu++] = 1ULL << i;
		u[nu++] = (1ULL << i) + 1;
	}
	u[nu++] = UINT64_MAX;
	u[nu++] = UINT64_MAX - 1;
	u[nu++] = (uint64_t)INT64_MAX;
	u[nu++] = (uint64_t)INT64_MAX + 1;
	while (nu < sizeof(u) / sizeof(u[0]))
		u[nu++] = xorshift(&seed) >> (xorshift(&seed) % 64);

	for (i = 0; i < nu; i++) {
		v.u = u[i];
		for (j = 0; j < sizeof(u64_flags) / sizeof(u64_flags[0]); j++)
			add_one(&wc, KMT_V_U64, u64_flags[j], v);
		add_one(&wc, KMT_V_HEX, 0, v);
		add_one(&wc, KMT_V_HEX, KMT_COL_LEFT, v);
		add_one(&wc, KMT_V_TIME, 0, v);
		add_one(&wc, KMT_V_DURATION, 0, v);
		add_one(&wc, KMT_V_S64, 0, v);
		v.s = -(int64_t)(u[i] >> 1);
		add_one(&wc, KMT_V_S64, 0, v);
		v.s = (int64_t)(0 - u[i]);
		add_one(&wc, KMT_V_S64, KMT_COL_LEFT, v);
	}
	v.s = INT64_MIN;
	add_one(&wc, KMT_V_S64, 0, v);
	/* durations where the hundredths carry, or just do not */
	for (i = 1000; i <= 1000000000; i *= 1000) {
		static const int64_t near[] = {
			-6, -5, -4, -1, 0, 1, 5,
		};

		for (j = 0; j < sizeof(near) / sizeof(near[0]); j++) {
			uint64_t k;

			for (k = 1; k <= 100000; k *= 10) {
				/* k - 0.005 units, and around it */
				v.u = k * i - i / 200 + (uint64_t)near[j];
				add_one(&wc, KMT_V_DURATION, 0, v);
			}
		}
	}
	for (i = 0; i < 2000; i++) {
		v.u = xorshift(&seed) >> (20 + xorshift(&seed) % 44);
		add_one(&wc, KMT_V_DURATION, 0, v);
	}
	for (i = 0; i < 8; i++) {
		v.u = (1ULL << 44) - 4 + i;
		add_one(&wc, KMT_V_DURATION, 0, v);
	}
	/* percentages and doubles: rounding that carries, and out of range */
	for (i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++) {
		v.d = doubles[i];
		add_one(&wc, KMT_V_DOUBLE, 0, v);
		/* -0.0 is drawn "0.000%", printf's "-0.000%": not a width */
		if (!signbit(v.d) || v.d != 0.0)
			add_one(&wc, KMT_V_PCT, 0, v);
	}
	v.d = NAN;
	add_one(&wc, KMT_V_PCT, 0, v);
	add_one(&wc, KMT_V_DOUBLE, 0, v);
	v.d = INFINITY;
	add_one(&wc, KMT_V_PCT, 0, v);
	v.d = -INFINITY;
	add_one(&wc, KMT_V_PCT, 0, v);
	for (i = 0; i < 13; i++) {
		v.d = pow(10.0, (double)i) - 0.0005;
		add_one(&wc, KMT_V_PCT, 0, v);
		v.d = pow(10.0, (double)i) - 0.00049;
		add_one(&wc, KMT_V_PCT, 0, v);
		v.d = pow(10.0, (double)i) - 0.00051;
		add_one(&wc, KMT_V_PCT, 0, v);
	}
	for (i = 0; i < 3000; i++) {
		v.d = (double)(xorshift(&seed) % 100000000) / 1e6;
		add_one(&wc, KMT_V_PCT, i % 2 ? KMT_COL_LEFT : 0, v);
	}
	v.str = NULL;
	add_one(&wc, KMT_V_STR, 0, v);
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		v.str = strs[i];
		add_one(&wc, KMT_V_STR, 0, v);
		add_one(&wc, KMT_V_STR, KMT_COL_LEFT, v);
	}
	/* several rows: the widest may be the most negative, not the largest */
	{
		static const int64_t s[][2] = {
			{ 5, -3 }, { -100, 99999 }, { INT64_MIN, 1 },
			{ -9, 10 }, { -10, 9 }, { 0, 0 }, { -1, 0 },
			{ INT64_MAX, INT64_MIN }, { -99, 100 },
		};

		for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
			g[0].s = s[i][0];
			g[1].s = s[i][1];
			add_case(&wc, KMT_V_S64, 0, 2, g);
		}
	}
	for (i = 0; i < 2000; i++) {
		static const enum kmt_val_type types[] = {
			KMT_V_U64, KMT_V_S64, KMT_V_HEX, KMT_V_TIME,
			KMT_V_DURATION,
		};
		enum kmt_val_type type = types[i % 5];

		for (j = 0; j < WIDTH_MAX_ROWS; j++)
			g[j].u = xorshift(&seed) >> (xorshift(&seed) % 64);
		add_case(&wc, type, type == KMT_V_U64 ? u64_flags[i / 5 % 5] : 0,
			 WIDTH_MAX_ROWS, g);
	}

	for (i = 0; i < wc.nr; i += 2000)
		bad += check_widths(wc.c + i, wc.nr - i < 2000 ? wc.nr - i : 2000);
	if (bad)
		fprintf(stderr, "%zu of %zu cases drawn at a wrong width\n", bad,
			wc.nr);
	CHECK_EQ_U64(bad, 0);
	CHECK(wc.nr > 10000);
	free(wc.c);
}

/*
 * Lines near and past the longest the renderer makes (4095 bytes and the
 * newline): rows whose widths leave the blanks' slack (drawn unchecked)
 * and rows that do not (checked, and cut at 4095 bytes), against lines
 * made by printf, cut, and stripped of trailing blanks.
 */
static const struct kmt_col long_cols[] = {
	{ "name", "Name", KMT_V_STR, KMT_COL_LEFT },
	{ "n", "N", KMT_V_U64, 0 },
	{ "site", "Site", KMT_V_STR, KMT_COL_LEFT },
};

#define LONG_TEXT_MAX 4095

static void long_line(char *out, size_t w0, size_t w1, const char *name,
		      uint64_t n, const char *site)
{
	static char full[3 * 8192];
	size_t len;

	snprintf(full, sizeof(full), " %-*s  %*" PRIu64 "  %s", (int)w0, name,
		 (int)w1, n, site);
	len = strlen(full);
	if (len > LONG_TEXT_MAX)
		len = LONG_TEXT_MAX;
	while (len && full[len - 1] == ' ')
		len--;
	memcpy(out, full, len);
	out[len] = '\n';
	out[len + 1] = '\0';
}

static void test_long_lines(void)
{
	static const size_t lens[] = {
		10, 4000, 4029, 4030, 4031, 4032, 4033, 4060, 4085, 4086,
		4087, 4090, 4100, 5000, 8000,
	};
	/* rows padded by these many blanks: about the slack, and far more */
	static const size_t pads[] = { 0, 1, 31, 32, 33, 2000 };
#define NPADS (sizeof(pads) / sizeof(pads[0]))
	static char name[NPADS][8192], want[3 * 8192 * NPADS];
	size_t i, k, bad = 0;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct kmt_report r;
		struct kmt_table *t;
		char *text, *rows;
		size_t w0 = lens[i] - 10, w = 0;

		/* no narrower than the heading */
		if (w0 < strlen("Name"))
			w0 = strlen("Name");
		kmt_report_init(&r);
		t = kmt_report_add_table(&r, "g", "long", NULL, long_cols, 3,
					 KMT_TABLE_PLAIN);
		CHECK(t != NULL);
		for (k = 0; t && k < NPADS; k++) {
			size_t n = pads[k] < w0 ? w0 - pads[k] : 0;
			union kmt_val *v = kmt_table_add_row(t);

			memset(name[k], 'x', n);
			name[k][n] = '\0';
			v[0].str = name[k];
			v[1].u = k ? k : 1234567;
			v[2].str = k % 2 ? "b" : "site_a+0x1";
			long_line(want + w, w0, 7, name[k], v[1].u, v[2].str);
			w += strlen(want + w);
		}
		text = t ? render(&r, kmt_renderer_find("text")->render_more) :
			   NULL;
		/* the rows follow the heading and its rule */
		rows = text ? strstr(text, "\n-") : NULL;
		rows = rows ? strchr(rows + 1, '\n') : NULL;
		CHECK(rows != NULL);
		if (rows && strcmp(rows + 1, want)) {
			fprintf(stderr, "a table %zu bytes wide drawn wrong\n",
				lens[i]);
			bad++;
		}
		free(text);
		kmt_report_free(&r);
	}
	CHECK_EQ_U64(bad, 0);
}

/*
 * Trailing blanks: the padding after a line's last text is dropped, the
 * blanks a text ends with too, and nothing else, whichever column comes
 * last and however its cells are written (text, numbers, the separator)
 */
static const struct kmt_col tail_cols[] = {
	{ "name", "Name", KMT_V_STR, KMT_COL_LEFT },
	{ "site", "Site", KMT_V_STR, KMT_COL_LEFT },
	{ "n", "N", KMT_V_U64, 0 },
};

static void test_trailing_blanks(void)
{
	static const char *const names[] = { "a", "name  ", "", "longer name" };
	static const char *const sites[] = {
		"s", "", "a site that is much wider than the others+0x10",
		"ends in blanks   ",
	};
	static const uint64_t ns[] = { 1, 22, 333333, 4 };
	/* the columns in this order: n last, then site last */
	static const int orders[2][3] = { { 0, 1, 2 }, { 0, 2, 1 } };
	size_t o, k, bad = 0;

	for (o = 0; o < 2; o++) {
		struct kmt_col cols[3];
		struct kmt_report r;
		struct kmt_table *t;
		char want[4096], line[512], *text, *rows;
		size_t w = 0, c, wd[3] = { 0, 0, 0 };

		for (c = 0; c < 3; c++)
			cols[c] = tail_cols[orders[o][c]];
		kmt_report_init(&r);
		t = kmt_report_add_table(&r, "g", "tail", NULL, cols, 3,
					 KMT_TABLE_PLAIN);
		CHECK(t != NULL);
		for (c = 0; c < 3; c++)
			wd[c] = strlen(cols[c].title);
		for (k = 0; t && k < 4; k++) {
			union kmt_val *v = kmt_table_add_row(t);

			for (c = 0; c < 3; c++) {
				char num[32];
				size_t n;

				switch (orders[o][c]) {
				case 0:
					v[c].str = names[k];
					n = strlen(names[k]);
					break;
				case 1:
					v[c].str = sites[k];
					n = strlen(sites[k]);
					break;
				default:
					v[c].u = ns[k];
					n = (size_t)snprintf(num, sizeof(num),
							     "%" PRIu64, ns[k]);
					break;
				}
				if (n > wd[c])
					wd[c] = n;
			}
		}
		for (k = 0; k < 4; k++) {
			size_t len = 0;

			for (c = 0; c < 3; c++) {
				int col = orders[o][c];

				const char *sep = c ? "  " : " ";

				if (col == 2)
					len += (size_t)snprintf(line + len,
						sizeof(line) - len, "%s%*" PRIu64,
						sep, (int)wd[c], ns[k]);
				else
					len += (size_t)snprintf(line + len,
						sizeof(line) - len, "%s%-*s", sep,
						(int)wd[c],
						col ? sites[k] : names[k]);
			}
			while (len && line[len - 1] == ' ')
				len--;
			memcpy(want + w, line, len);
			w += len;
			want[w++] = '\n';
		}
		want[w] = '\0';
		text = t ? render(&r, kmt_renderer_find("text")->render_more) :
			   NULL;
		rows = text ? strstr(text, "\n-") : NULL;
		rows = rows ? strchr(rows + 1, '\n') : NULL;
		CHECK(rows != NULL);
		if (rows && strcmp(rows + 1, want)) {
			fprintf(stderr, "order %zu drawn:\n%s\nwanted:\n%s\n", o,
				rows + 1, want);
			bad++;
		}
		free(text);
		kmt_report_free(&r);
	}
	CHECK_EQ_U64(bad, 0);
}

/* sections k..k+n of the standard set: tables, a summary, an empty table */
static void add_sections(struct kmt_report *r, size_t k, size_t n,
			 size_t *offset)
{
	size_t i;

	for (i = k; i < k + n; i++) {
		struct kmt_summary *s;
		struct kmt_table *t;

		switch (i % 4) {
		case 0:
		case 2:
			t = kmt_report_add_table(r, "g", i ? "t2" : "t0", NULL,
						 mixed_cols, NMIXED,
						 i ? KMT_TABLE_PLAIN :
						     KMT_TABLE_PERF);
			if (t)
				kmt_table_set_row_fn(t, 40 + i, 50 + i,
						     mixed_row, offset);
			break;
		case 1:
			s = kmt_report_add_summary(r, "g", "sum", "SUMMARY (test)");
			if (s) {
				kmt_summary_u64(s, "Total bytes requested:",
						"requested", 1234 + i);
				kmt_summary_blank(s);
				kmt_summary_pct(s, "Internal fragmentation:",
						"frag", 12.5);
			}
			break;
		default:
			kmt_report_add_table(r, "h", "none", "Empty table",
					     mixed_cols, NMIXED, KMT_TABLE_PLAIN);
			break;
		}
	}
}

/*
 * A report drawn in two parts, the second with render_more, reads as the
 * whole drawn at once, for every split; JSON, one document, has no parts.
 */
static void test_parts(void)
{
	static const char *const formats[] = { "text", "csv" };
	size_t f, split, offset = 1;

	CHECK(kmt_renderer_find("json")->render_more == NULL);
	for (f = 0; f < 2; f++) {
		const struct kmt_renderer *rd = kmt_renderer_find(formats[f]);

		for (split = 1; split < 8; split++) {
			struct kmt_report whole, head, tail;
			char *all, *a, *b;

			kmt_report_init(&whole);
			kmt_report_init(&head);
			kmt_report_init(&tail);
			whole.meta.input = head.meta.input = "in.data";
			whole.meta.format = head.meta.format = "perf.data";
			add_sections(&whole, 0, 8, &offset);
			add_sections(&head, 0, split, &offset);
			add_sections(&tail, split, 8 - split, &offset);
			all = render(&whole, rd->render);
			a = render(&head, rd->render);
			b = render(&tail, rd->render_more);
			CHECK(all && a && b);
			if (all && a && b) {
				CHECK(strlen(b) > 0);
				CHECK_EQ_U64(strlen(a) + strlen(b), strlen(all));
				CHECK(!strncmp(all, a, strlen(a)));
				CHECK_STR(all + strlen(a), b);
			}
			free(all);
			free(a);
			free(b);
			kmt_report_free(&whole);
			kmt_report_free(&head);
			kmt_report_free(&tail);
		}
	}
}

/*
 * The pieces of a report, drawn last to first into separate streams
 * from one layout and joined in order, read as render_more, for pieces
 * of every size.
 */
static void test_pieces(void)
{
	static const char *const formats[] = { "text", "csv" };
	static const size_t sizes[] = { 1, 3, 7, 40, 1000 };
	static struct {
		size_t sec, r0, r1;
		char *text;
		size_t len;
	} pc[512];
	size_t f, z, offset = 1;

	for (f = 0; f < 2; f++) {
		const struct kmt_renderer *rd = kmt_renderer_find(formats[f]);

		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			struct kmt_report r;
			struct kmt_layout *lay;
			char *whole, *joined = NULL;
			size_t n = 0, i, r0, len = 0;
			FILE *j;

			kmt_report_init(&r);
			add_sections(&r, 0, 8, &offset);
			whole = render(&r, rd->render_more);
			lay = rd->layout(&r, 1);
			CHECK(whole && lay);
			/* the pieces as the report's threads cut them */
			for (i = 0; lay && i < r.nr; i++) {
				size_t rows = kmt_render_section_rows(&r, i);

				r0 = 0;
				do {
					pc[n].sec = i;
					pc[n].r0 = r0;
					pc[n].r1 = rows - r0 > sizes[z] ?
						   r0 + sizes[z] : rows;
					r0 = pc[n++].r1;
				} while (r0 < rows && n < 512);
			}
			CHECK(n < 512);
			/* drawn last to first, each into its own stream */
			for (i = n; i-- > 0; ) {
				FILE *p = open_memstream(&pc[i].text, &pc[i].len);

				CHECK(p != NULL);
				if (!p)
					continue;
				CHECK(!rd->piece(lay, pc[i].sec, pc[i].r0,
						 pc[i].r1, p));
				fclose(p);
			}
			j = open_memstream(&joined, &len);
			for (i = 0; i < n; i++) {
				if (j && pc[i].text)
					fwrite(pc[i].text, 1, pc[i].len, j);
				free(pc[i].text);
				pc[i].text = NULL;
			}
			if (j)
				fclose(j);
			CHECK(joined && whole);
			if (joined && whole)
				CHECK_STR(joined, whole);
			free(joined);
			free(whole);
			if (lay)
				rd->layout_free(lay);
			kmt_report_free(&r);
		}
	}
}

/*
 * A name the report has no memory to copy comes back "" (its callers use
 * it at once) and marks the report, which kmemtrace report then fails
 * rather than print blank names.
 */
static void test_strdup_out_of_memory(void)
{
	struct kmt_report r;

	kmt_report_init(&r);
	CHECK_STR(kmt_report_strdup(&r, "kmalloc-64"), "kmalloc-64");
	CHECK(!r.oom);
	kmt_report_free(&r);
	kmt_report_init(&r);
	/* the arena's first chunk asks for more than there is */
	r.arena.chunk_size = SIZE_MAX / 4;
	CHECK_STR(kmt_report_printf(&r, "%s+%x", "kfree", 0x10), "");
	CHECK(r.oom);
	kmt_report_free(&r);
}

/* test_strdup_out_of_memory's malloc fails: NULL, not an abort, in ASan */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/*
 * Signed byte columns grouped as unsigned ones; "1 CPU"; a view not
 * recorded and a column not recorded in text, JSON and CSV.
 */
static void test_grouped_and_missing(void)
{
	static const struct kmt_col cols[] = {
		{ "name", "Name", KMT_V_STR, KMT_COL_LEFT },
		{ "bytes", "Bytes", KMT_V_S64, KMT_COL_GROUPED },
		{ "drains", "Drains", KMT_V_U64, 0 },
	};
	struct kmt_report r;
	struct kmt_table *t;
	union kmt_val *v;
	char *text, *json, *csv;

	kmt_report_init(&r);
	r.meta.input = "in.data";
	r.meta.format = "perf.data";
	r.meta.nr_cpus = 1;
	r.meta.types_known = 1;
	t = kmt_report_add_table(&r, "g", "t", "T", cols, 3, KMT_TABLE_PLAIN);
	CHECK(t != NULL);
	if (!t)
		return;
	v = kmt_table_add_row(t);
	v[0].str = "a";
	v[1].s = -1234567;
	v[2].u = 0;
	v = kmt_table_add_row(t);
	v[0].str = "b";
	v[1].s = 1234;
	t->unrecorded = 1 << 2;
	t->missing = kmt_report_missing(&r, 1U << KMT_EV_PCPU_DRAIN, 1);
	CHECK(!kmt_report_add_missing(&r, "pcpu", "--pcpu",
				      1U << KMT_EV_PCPU_DRAIN, 1));
	text = render(&r, kmt_render_text);
	json = render(&r, kmt_render_json);
	csv = render(&r, kmt_render_csv);
	CHECK(text && json && csv);
	if (text && json && csv) {
		CHECK(strstr(text, "(perf.data, 1 CPU)\n") != NULL);
		CHECK(strstr(text, " a     -1,234,567  not recorded\n") != NULL);
		CHECK(strstr(text, " b          1,234  not recorded\n") != NULL);
		CHECK(strstr(text, " not recorded: Drains: the recording has no "
				   "kmem:mm_page_pcpu_drain events (record them "
				   "with: kmemtrace record --pcpu)\n") != NULL);
		CHECK(strstr(text, "\n--pcpu: not recorded: the recording has no "
				   "kmem:mm_page_pcpu_drain events (record them "
				   "with: kmemtrace record --pcpu)\n") != NULL);
		CHECK(strstr(json, "\"drains\": null") != NULL);
		CHECK(strstr(json, "\"t_not_recorded\"") != NULL);
		CHECK(strstr(json, "\"not_recorded\": {") != NULL);
		CHECK(!strncmp(csv, "table,row,column,value\n", 23));
		CHECK(strstr(csv, "\ng.t,0,bytes,-1234567\ng.t,0,drains,\n") != NULL);
		CHECK(strstr(csv, "\ng.t_not_recorded,0,column,drains\n") != NULL);
		CHECK(strstr(csv, "\npcpu.not_recorded,0,view,--pcpu\n") != NULL);
	}
	free(text);
	free(json);
	free(csv);
	kmt_report_free(&r);
}

/*
 * Rows of a kind not recorded: nothing drawn for them, so the table says
 * why under its rows in text, JSON and CSV; a kind recorded, or an input
 * that cannot tell, marks nothing.
 */
static void test_kind_missing(void)
{
	static const struct kmt_col cols[] = {
		{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
		{ "bytes", "Bytes", KMT_V_U64, 0 },
	};
	static const char *const keys[] = { "page_bytes" };
	uint32_t slab = 1U << KMT_EV_KMALLOC, page = 1U << KMT_EV_PAGE_ALLOC;
	const struct kmt_missing *m;
	struct kmt_summary *s;
	struct kmt_report r;
	struct kmt_table *t;
	union kmt_val *v;
	char *text, *json, *csv;

	kmt_report_init(&r);
	r.meta.input = "in.data";
	r.meta.format = "perf.data";
	r.meta.types_known = 1;
	CHECK(kmt_report_unrecorded(&r, page, slab | page, 1) == NULL);
	CHECK(kmt_report_unrecorded(&r, page, slab, 0) == NULL);
	m = kmt_report_unrecorded(&r, page, slab, 1);
	CHECK(m != NULL);
	t = kmt_report_add_table(&r, "g", "t", "T", cols, 2, KMT_TABLE_PLAIN);
	s = kmt_report_add_summary(&r, "g", "summary", "S");
	CHECK(t && s);
	if (!t || !s || !m)
		return;
	v = kmt_table_add_row(t);
	v[0].str = "slab";
	v[1].u = 64;
	CHECK(!kmt_summary_u64(s, "Page bytes:", "page_bytes", 0));
	CHECK(!kmt_summary_u64(s, "Slab bytes:", "slab_bytes", 64));
	CHECK(kmt_table_mark_kind_unrecorded(t, "nope", "page", m) == -EINVAL);
	CHECK(!kmt_table_mark_kind_unrecorded(t, "kind", "page", NULL));
	CHECK(t->unrecorded_kind == NULL);
	CHECK(!kmt_table_mark_kind_unrecorded(t, "kind", "page", m));
	kmt_summary_mark_unrecorded(s, keys, 1, m);
	text = render(&r, kmt_render_text);
	json = render(&r, kmt_render_json);
	csv = render(&r, kmt_render_csv);
	CHECK(text && json && csv);
	if (text && json && csv) {
		CHECK(strstr(text, " slab     64\n not recorded: page rows: the "
				   "recording has no kmem:mm_page_alloc events "
				   "(record them with: kmemtrace record --page)\n")
		      != NULL);
		CHECK(strstr(text, "Page bytes: not recorded\n") != NULL);
		CHECK(strstr(text, "Slab bytes: 64\n") != NULL);
		CHECK(strstr(json, "\"t_not_recorded\": {\n"
				   "      \"rows\": {\n"
				   "        \"kind\": \"page\"\n") != NULL);
		CHECK(strstr(json, "\"page_bytes\": null") != NULL);
		CHECK(strstr(csv, "\ng.t_not_recorded,0,kind,page\n") != NULL);
		CHECK(strstr(csv, "\ng.summary,0,page_bytes,\n") != NULL);
	}
	free(text);
	free(json);
	free(csv);
	kmt_report_free(&r);
}


/* how many top-level fields numbered field a gzipped protobuf holds */
static int pb_count(const char *gz, size_t gzlen, unsigned int field)
{
	static unsigned char out[1 << 20];
	const unsigned char *p = out, *end;
	z_stream z;
	int n = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)gz;
	z.avail_in = (unsigned int)gzlen;
	z.next_out = out;
	z.avail_out = sizeof(out);
	if (inflate(&z, Z_FINISH) != Z_STREAM_END) {
		inflateEnd(&z);
		return -1;
	}
	end = out + z.total_out;
	inflateEnd(&z);
	while (p < end) {
		uint64_t key = 0, v = 0;
		int sh = 0;

		while (p < end && *p & 0x80)
			key |= (uint64_t)(*p++ & 0x7f) << sh, sh += 7;
		if (p < end)
			key |= (uint64_t)*p++ << sh;
		if ((key >> 3) == field)
			n++;
		switch (key & 7) {
		case 0:
			while (p < end && *p++ & 0x80)
				;
			break;
		case 2:
			for (sh = 0; p < end && *p & 0x80; sh += 7)
				v |= (uint64_t)(*p++ & 0x7f) << sh;
			if (p < end)
				v |= (uint64_t)*p++ << sh;
			p += v;
			break;
		case 1:
			p += 8;
			break;
		case 5:
			p += 4;
			break;
		default:
			return -1;
		}
	}
	return n;
}

/*
 * diff --pprof: one address named differently on the two sides (two
 * kernel builds) makes two locations, not the base's name on both.
 */
static void test_pprof_sides_apart(void)
{
	static const struct kmt_col cols[] = {
		{ "kind", "", KMT_V_STR, 0 }, { "comm", "", KMT_V_STR, 0 },
		{ "pid", "", KMT_V_S64, 0 }, { "cache", "", KMT_V_STR, 0 },
		{ "order", "", KMT_V_S64, 0 },
		{ "alloc_objects", "", KMT_V_S64, 0 },
		{ "alloc_space", "", KMT_V_S64, 0 },
		{ "inuse_objects", "", KMT_V_S64, 0 },
		{ "inuse_space", "", KMT_V_S64, 0 },
		{ "stack", "", KMT_V_STR, 0 }, { "stack_ips", "", KMT_V_STR, 0 },
		{ "gfp", "", KMT_V_STR, 0 }, { "base", "", KMT_V_STR, 0 },
	};
	static const char *const names[] = { "foo", "bar", "bar" };
	struct kmt_report r;
	struct kmt_table *t;
	char *buf = NULL;
	size_t len = 0, i, c;
	FILE *f;

	kmt_report_init(&r);
	r.meta.input = "a and b";
	r.meta.format = "test";
	r.meta.kernel = "";
	t = kmt_report_add_table(&r, "profile", "samples", NULL, cols,
				 sizeof(cols) / sizeof(cols[0]),
				 KMT_TABLE_PLAIN);
	CHECK(t != NULL);
	for (i = 0; t && i < 3; i++) {
		union kmt_val *v = kmt_table_add_row(t);

		CHECK(v != NULL);
		if (!v)
			break;
		v[0].str = "slab";
		v[1].str = "x";
		v[2].s = 1;
		v[3].str = "kmalloc-64";
		v[4].s = -1;
		for (c = 5; c < 9; c++)
			v[c].s = i ? 64 : -64;
		v[9].str = names[i];
		v[10].str = "0xffffffff81000010";
		v[11].str = "";
		v[12].str = i ? "" : "true";
	}
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (f) {
		CHECK(kmt_render_pprof(&r, f) == 0);
		fclose(f);
		/* Profile: 2 sample, 4 location, 5 function */
		CHECK(pb_count(buf, len, 2) == 3);
		CHECK(pb_count(buf, len, 4) == 2);
		CHECK(pb_count(buf, len, 5) == 2);
	}
	free(buf);
	kmt_report_free(&r);
}

/*
 * A bare report of the shapes a command that is its sections alone
 * draws: fixed widths as printf's, records of many lines, sections for
 * text only or for all but text, top-level sections where they were
 * added, a group's own summary (key ""), yes/no and lines of text.
 */
static void test_fixed_and_blocks(void)
{
	static const unsigned int widths[] = { 6, 5, 6 };
	static const struct kmt_col fixed_cols[] = {
		{ "name", "name", KMT_V_STR, KMT_COL_LEFT },
		{ "n", "n", KMT_V_U64, KMT_COL_GROUPED },
		{ "share", "share", KMT_V_PCT, KMT_COL_TENTHS | KMT_COL_TEXT_ONLY },
	};
	static const struct kmt_col block_cols[] = {
		{ "times", "", KMT_V_U64, 0 },
		{ "ok", "ok", KMT_V_BOOL, KMT_COL_NO_TEXT },
		{ "stack", " times:\n", KMT_V_STACK, 0 },
		{ "extra", "", KMT_V_LINES, 0 },
		{ "end", "<end", KMT_V_STR, KMT_COL_TEXT_ONLY },
	};
	struct kmt_sum_item flag = {
		.kind = KMT_SUM_VALUE, .label = "flag", .key = "flag",
		.type = KMT_V_BOOL, .v.u = 1,
	};
	struct kmt_report r;
	struct kmt_summary *s;
	struct kmt_table *t;
	union kmt_val *v;
	char *text, *json, *csv, *nd;

	kmt_report_init(&r);
	r.meta.input = "in.txt";
	r.meta.format = "page_owner";
	r.meta.bare = 1;
	s = kmt_report_add_summary(&r, "", "head", NULL);
	CHECK(s && !kmt_summary_u64(s, "count:", "count", 7));
	kmt_report_last(&r)->flags = KMT_SEC_TEXT_ONLY;
	s = kmt_report_add_summary(&r, "", "summary", NULL);
	CHECK(s && !kmt_summary_u64(s, "input", "input", 1) &&
	      !kmt_summary_u64(s, "total", "total", 3));
	kmt_report_last(&r)->flags = KMT_SEC_NO_TEXT;
	s = kmt_report_add_summary(&r, "flags", "", NULL);
	CHECK(s && !kmt_summary_add(s, &flag));
	t = kmt_report_add_table(&r, "", "fixed", NULL, fixed_cols, 3,
				 KMT_TABLE_WIDTHS);
	CHECK(t != NULL);
	if (!s || !t)
		goto out;
	t->widths = widths;
	v = kmt_table_add_row(t);
	v[0].str = "a";
	v[1].u = 1234;
	v[2].d = 40.0;
	v = kmt_table_add_row(t);
	v[0].str = "longer name";
	v[1].u = 5;
	v[2].d = NAN;
	t = kmt_report_add_table(&r, "", "empty", "Empty", fixed_cols, 3,
				 KMT_TABLE_WIDTHS);
	CHECK(t != NULL);
	if (!t)
		goto out;
	t->widths = widths;
	t = kmt_report_add_table(&r, "", "blocks", NULL, block_cols, 5,
				 KMT_TABLE_BLOCK);
	CHECK(t != NULL);
	if (!t)
		goto out;
	v = kmt_table_add_row(t);
	v[0].u = 3;
	v[1].u = 0;
	v[2].str = " f+0x1/0x2\n\tg+0x3/0x4\n";
	v[3].str = "after\n  kept\n";
	v[4].str = "";

	text = render(&r, kmt_render_text);
	json = render(&r, kmt_render_json);
	csv = render(&r, kmt_render_csv);
	nd = render(&r, kmt_render_ndjson);
	CHECK(text && json && csv && nd);
	if (text && json && csv && nd) {
		CHECK_STR(text, "count: 7\n"
				"flag yes\n"
				"\n"
				"name       n  share\n"
				"a      1,234  40.0%\n"
				"longer name     5      -\n"
				"3 times:\n f+0x1/0x2\n\tg+0x3/0x4\n"
				"after\n  kept\n<end\n");
		CHECK_STR(json, "{\n"
				"  \"input\": 1,\n"
				"  \"total\": 3,\n"
				"  \"flags\": {\n"
				"    \"flag\": true\n"
				"  },\n"
				"  \"fixed\": [\n"
				"    {\n"
				"      \"name\": \"a\",\n"
				"      \"n\": 1234\n"
				"    },\n"
				"    {\n"
				"      \"name\": \"longer name\",\n"
				"      \"n\": 5\n"
				"    }\n"
				"  ],\n"
				"  \"empty\": [],\n"
				"  \"blocks\": [\n"
				"    {\n"
				"      \"times\": 3,\n"
				"      \"ok\": false,\n"
				"      \"stack\": [\n"
				"        \"f+0x1/0x2\",\n"
				"        \"g+0x3/0x4\"\n"
				"      ],\n"
				"      \"extra\": [\n"
				"        \"after\",\n"
				"        \"  kept\"\n"
				"      ]\n"
				"    }\n"
				"  ]\n"
				"}\n");
		CHECK(!strncmp(csv, "table,row,column,value\nsummary,0,input,1\n"
				    "summary,0,total,3\nflags,0,flag,1\n"
				    "fixed,0,name,a\n", 87));
		CHECK(strstr(csv, "\nblocks,0,ok,0\n") != NULL);
		CHECK(strstr(csv, "\nblocks,0,stack,\" f+0x1/0x2\n\tg+0x3/0x4\n\"\n") != NULL);
		CHECK(!strstr(csv, "head") && !strstr(csv, "share") &&
		      !strstr(csv, "end"));
		/* the row's own input, not the summary's */
		CHECK(strstr(nd, "\"table\":\"summary\",\"total\":3}\n") != NULL);
		CHECK(strstr(nd, "\"table\":\"flags\",\"flag\":true}\n") != NULL);
		CHECK(strstr(nd, "\"stack\":[\"f+0x1/0x2\",\"g+0x3/0x4\"],"
				 "\"extra\":[\"after\",\"  kept\"]}\n") != NULL);
		CHECK(!strstr(nd, "head"));
	}
	free(text);
	free(json);
	free(csv);
	free(nd);
out:
	kmt_report_free(&r);
}

KMT_TESTS(KMT_TEST(test_pprof_sides_apart),
	  KMT_TEST(test_grouped_and_missing), KMT_TEST(test_kind_missing),
	  KMT_TEST(test_strdup_out_of_memory), KMT_TEST(test_pct_as_printf), KMT_TEST(test_rows_on_demand),
	  KMT_TEST(test_widths), KMT_TEST(test_long_lines),
	  KMT_TEST(test_trailing_blanks),
	  KMT_TEST(test_parts), KMT_TEST(test_pieces),
	  KMT_TEST(test_fixed_and_blocks))
