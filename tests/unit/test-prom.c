// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus renderer (render/prom.c): families, label escaping,
 * absent cells, the OpenMetrics form, and sections of other groups left
 * out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "drawn.h"
#include "render/render.h"
#include "report/report.h"

static const struct kmt_col cols[] = {
	{ "kind", "Kind", KMT_V_STR, 0 },
	{ "callsite", "Callsite", KMT_V_STR, 0 },
	{ "kmemtrace_allocations_total", "Allocations.", KMT_V_U64, 0 },
	{ "kmemtrace_live_bytes", "Live \\ bytes\nnow.", KMT_V_S64, 0 },
	{ "absent", "", KMT_V_U64, KMT_COL_ABSENT },
};

static void make(struct kmt_report *r)
{
	struct kmt_table *t;
	struct kmt_summary *s;
	union kmt_val *v;

	kmt_report_init(r);
	t = kmt_report_add_table(r, "metrics", "callsites", NULL, cols, 5,
				 KMT_TABLE_PLAIN);
	CHECK(t != NULL);
	v = kmt_table_add_row(t);
	v[0].str = "slab";
	v[1].str = "a\\b\"c\nd";
	v[2].u = 18446744073709551615ULL;
	v[3].s = -5;
	v = kmt_table_add_row(t);
	v[0].str = "page";
	v[1].str = "";
	v[2].u = 7;
	v[3].s = 3;
	v[4].u = 1ULL << 3;	/* no live bytes */
	/* not metrics: never drawn */
	t = kmt_report_add_table(r, "other", "t", NULL, cols, 5,
				 KMT_TABLE_PLAIN);
	v = kmt_table_add_row(t);
	v[0].str = "x";
	v[2].u = 99;
	s = kmt_report_add_summary(r, "metrics", "", NULL);
	CHECK(s && !kmt_summary_u64(s, "Sampling: 1 in n.",
				    "kmemtrace_sampling", 16));
}

static void test_text_format(void)
{
	struct kmt_report r;
	char *text;

	make(&r);
	text = drawn(&r, kmt_render_prom);
	CHECK_STR(text,
		  "# HELP kmemtrace_allocations_total Allocations.\n"
		  "# TYPE kmemtrace_allocations_total counter\n"
		  "kmemtrace_allocations_total{kind=\"slab\",callsite=\"a\\\\b\\\"c\\nd\"} 18446744073709551615\n"
		  "kmemtrace_allocations_total{kind=\"page\"} 7\n"
		  "# HELP kmemtrace_live_bytes Live \\\\ bytes\\nnow.\n"
		  "# TYPE kmemtrace_live_bytes gauge\n"
		  "kmemtrace_live_bytes{kind=\"slab\",callsite=\"a\\\\b\\\"c\\nd\"} -5\n"
		  "# HELP kmemtrace_sampling Sampling: 1 in n.\n"
		  "# TYPE kmemtrace_sampling gauge\n"
		  "kmemtrace_sampling 16\n");
	free(text);
	kmt_report_free(&r);
}

static void test_openmetrics(void)
{
	struct kmt_report r;
	char *text;

	make(&r);
	text = drawn(&r, kmt_render_openmetrics);
	CHECK(text != NULL);
	if (text) {
		/* the family is named without _total, its samples with */
		CHECK(strstr(text, "# TYPE kmemtrace_allocations counter\n") != NULL);
		CHECK(strstr(text, "# HELP kmemtrace_allocations Allocations.\n") != NULL);
		CHECK(strstr(text, "\nkmemtrace_allocations_total{kind=\"page\"} 7\n") != NULL);
		CHECK(strstr(text, "# TYPE kmemtrace_live_bytes gauge\n") != NULL);
		CHECK(!strstr(text, "99"));
		CHECK(strlen(text) > 6 &&
		      !strcmp(text + strlen(text) - 6, "# EOF\n"));
	}
	free(text);
	kmt_report_free(&r);
}

KMT_TESTS(KMT_TEST(test_text_format), KMT_TEST(test_openmetrics))
