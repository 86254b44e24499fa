// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc/allocinfo reader and its tables: the fields of a line,
 * modules, accurate:no, negative sizes, malformed lines with their
 * numbers, tag identity across snapshots, grouping and growth.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/allocinfo.h"
#include "check.h"
#include "drawn.h"
#include "render/render.h"
#include "report/report.h"
#include "source/allocinfo.h"

static int parse(struct kmt_allocinfo *ai, const char *text)
{
	return kmt_allocinfo_parse(ai, text, strlen(text), "t");
}

static void test_fields(void)
{
	struct kmt_strtab names;
	struct kmt_allocinfo ai;
	const struct kmt_ai_tag *t;

	kmt_strtab_init(&names);
	kmt_allocinfo_init(&ai, &names);
	CHECK_EQ_U64(parse(&ai,
		"allocinfo - version: 2.0\n"
		"#     <size>  <calls> <tag info>\n"
		"        4096        1 mm/a.c:12 func:a_alloc \n"
		"         -64        2 drivers/x/y.c:7 [xmod] func:y_init accurate:no \n"
		"\n"
		"          32        1 lib/z.c:3 func:z new:field\n"), 0);
	CHECK_STR(ai.version, "2.0");
	CHECK_EQ_U64(ai.nr, 3);
	CHECK_EQ_U64(ai.nr_malformed, 0);
	CHECK_EQ_U64(ai.nr_inaccurate, 1);
	CHECK_EQ_U64(ai.nr_lines, 6);
	t = &ai.tags[0];
	CHECK_EQ_U64(t->bytes, 4096);
	CHECK_EQ_U64(t->calls, 1);
	CHECK_EQ_U64(t->line, 12);
	CHECK_EQ_U64(t->lineno, 3);
	CHECK_STR(kmt_allocinfo_name(&ai, t->file), "mm/a.c");
	CHECK_STR(kmt_allocinfo_name(&ai, t->func), "a_alloc");
	CHECK_STR(kmt_allocinfo_name(&ai, t->module), "");
	CHECK_STR(kmt_allocinfo_name(&ai, t->key), "mm/a.c:12 func:a_alloc");
	t = &ai.tags[1];
	CHECK(t->bytes == -64);
	CHECK(t->inaccurate);
	CHECK_STR(kmt_allocinfo_name(&ai, t->module), "xmod");
	CHECK_STR(kmt_allocinfo_name(&ai, t->key),
		  "drivers/x/y.c:7 [xmod] func:y_init");
	CHECK_EQ_U64(ai.tags[2].lineno, 6);
	kmt_allocinfo_free(&ai);
	kmt_strtab_free(&names);
}

static void test_malformed(void)
{
	struct kmt_strtab names;
	struct kmt_allocinfo ai;

	kmt_strtab_init(&names);
	kmt_allocinfo_init(&ai, &names);
	CHECK_EQ_U64(parse(&ai,
		"allocinfo - version: 1.0\n"
		"1 1 a.c:1\n"			/* no func: */
		"x 1 a.c:1 func:f\n"		/* no size */
		"1 1 a.c func:f\n"		/* no line number */
		"1 1 a.c:1 word func:f\n"	/* a word not key:value */
		"99999999999999999999 1 a.c:1 func:f\n"	/* too big */
		"1 2 a.c:9 func:ok\n"
		"1 1 a.c:2 func:f1\n"
		"1 1 a.c:3\n"),			/* the sixth: counted only */
		0);
	CHECK_EQ_U64(ai.nr, 2);
	CHECK_EQ_U64(ai.nr_malformed, 6);
	CHECK_EQ_U64(ai.nr_notes, KMT_AI_NOTES);
	CHECK_EQ_U64(ai.notes[0].line, 2);
	CHECK_STR(ai.notes[0].why, "no func:");
	CHECK_STR(ai.notes[1].why, "no size");
	CHECK_STR(ai.notes[2].why, "no file:line");
	CHECK_STR(ai.notes[3].why, "a word that is not key:value");
	CHECK_EQ_U64(ai.notes[4].line, 6);
	/* no header and nothing readable: not allocinfo */
	kmt_allocinfo_reset(&ai);
	CHECK(parse(&ai, "root:x:0:0:root:/root:/bin/sh\n") == -EINVAL);
	CHECK(strstr(ai.errmsg, "is not /proc/allocinfo text") != NULL);
	kmt_allocinfo_reset(&ai);
	CHECK(kmt_allocinfo_parse(&ai, "", 0, "t") == -EINVAL);
	kmt_allocinfo_free(&ai);
	kmt_strtab_free(&names);
}

static const struct kmt_section *section(const struct kmt_report *r,
					 const char *key)
{
	return kmt_report_section(r, "allocinfo", key);
}

static void test_tables(void)
{
	struct kmt_ai_opts o = { .by = KMT_AI_BY_MODULE };
	struct kmt_allocinfo a, b;
	const struct kmt_section *sec;
	struct kmt_strtab names;
	struct kmt_report r;
	const union kmt_val *v;

	kmt_strtab_init(&names);
	kmt_allocinfo_init(&a, &names);
	kmt_allocinfo_init(&b, &names);
	CHECK_EQ_U64(parse(&a, "10 1 a.c:1 func:f\n20 2 b.c:2 [m] func:g\n"
			       "5 1 c.c:3 [m] func:h\n"), 0);
	CHECK_EQ_U64(parse(&b, "30 3 a.c:1 func:f\n7 1 d.c:4 func:k\n"), 0);
	/* one snapshot per module; ties by name */
	kmt_report_init(&r);
	CHECK_EQ_U64(kmt_ai_report(&r, &a, &o), 0);
	sec = section(&r, "modules");
	CHECK(sec && sec->table.nrows == 2);
	if (sec && sec->table.nrows == 2) {
		v = sec->table.vals;
		CHECK_STR(v[0].str, "m");
		CHECK_EQ_U64(v[1].u, 2);
		CHECK_EQ_U64(v[2].s, 25);
		CHECK_STR(v[4].str, "(built in)");
	}
	kmt_report_free(&r);
	/* growth: a tag in both, one gone, one new; sorted by growth */
	o.by = KMT_AI_BY_TAG;
	o.sort = KMT_AI_SORT_GROWTH;
	kmt_report_init(&r);
	CHECK_EQ_U64(kmt_ai_report_diff(&r, &a, &b, &o, "allocinfo", "diff",
					"t", 1), 0);
	sec = section(&r, "diff");
	CHECK(sec && sec->table.nrows == 4);
	if (sec && sec->table.nrows == 4) {
		size_t n = sec->table.ncols;

		v = sec->table.vals;
		CHECK_STR(v[8].str, "f");
		CHECK_EQ_U64(v[2].s, 20);
		CHECK_STR(v[7].str, "both");
		CHECK_STR(v[n + 8].str, "k");
		CHECK_STR(v[n + 7].str, "B only");
		CHECK_STR(v[3 * n + 8].str, "g");
		CHECK_STR(v[3 * n + 7].str, "A only");
		CHECK(v[3 * n + 2].s == -20);
	}
	kmt_report_free(&r);
	kmt_allocinfo_free(&a);
	kmt_allocinfo_free(&b);
	kmt_strtab_free(&names);
}

/*
 * serve's metrics: the top tags by bytes, the rest in "(other)" with
 * their sums, the totals; without a file, only that it was not read
 */
static void test_metrics(void)
{
	struct kmt_allocinfo a;
	struct kmt_strtab names;
	struct kmt_report r;
	char *text;

	kmt_strtab_init(&names);
	kmt_allocinfo_init(&a, &names);
	CHECK_EQ_U64(parse(&a, "allocinfo - version: 1.0\n"
			       "10 1 a.c:1 func:f\n20 2 b.c:2 [m] func:g\n"
			       "5 1 c.c:3 [m] func:h\n-3 4 d.c:4 func:k\n"), 0);
	kmt_report_init(&r);
	CHECK_EQ_U64(kmt_ai_metrics(&r, &a, 2), 0);
	text = drawn(&r, kmt_render_prom);
	CHECK_STR(text,
		  "# HELP kmemtrace_allocinfo_up Whether /proc/allocinfo was read for this scrape (allocation profiling, kernels since 6.10).\n"
		  "# TYPE kmemtrace_allocinfo_up gauge\n"
		  "kmemtrace_allocinfo_up 1\n"
		  "# HELP kmemtrace_allocinfo_total_bytes Bytes all allocation tags hold now, by /proc/allocinfo.\n"
		  "# TYPE kmemtrace_allocinfo_total_bytes gauge\n"
		  "kmemtrace_allocinfo_total_bytes 32\n"
		  "# HELP kmemtrace_allocinfo_tags Allocation tags /proc/allocinfo lists.\n"
		  "# TYPE kmemtrace_allocinfo_tags gauge\n"
		  "kmemtrace_allocinfo_tags 4\n"
		  "# HELP kmemtrace_allocinfo_malformed_lines Lines of /proc/allocinfo that could not be read.\n"
		  "# TYPE kmemtrace_allocinfo_malformed_lines gauge\n"
		  "kmemtrace_allocinfo_malformed_lines 0\n"
		  "# HELP kmemtrace_allocinfo_bytes Bytes the allocation tag holds now, by /proc/allocinfo.\n"
		  "# TYPE kmemtrace_allocinfo_bytes gauge\n"
		  "kmemtrace_allocinfo_bytes{function=\"g\",location=\"b.c:2\",module=\"m\"} 20\n"
		  "kmemtrace_allocinfo_bytes{function=\"f\",location=\"a.c:1\"} 10\n"
		  "kmemtrace_allocinfo_bytes{function=\"(other)\"} 2\n"
		  "# HELP kmemtrace_allocinfo_calls Allocations the tag holds now, by /proc/allocinfo.\n"
		  "# TYPE kmemtrace_allocinfo_calls gauge\n"
		  "kmemtrace_allocinfo_calls{function=\"g\",location=\"b.c:2\",module=\"m\"} 2\n"
		  "kmemtrace_allocinfo_calls{function=\"f\",location=\"a.c:1\"} 1\n"
		  "kmemtrace_allocinfo_calls{function=\"(other)\"} 5\n");
	free(text);
	kmt_report_free(&r);
	kmt_report_init(&r);
	CHECK_EQ_U64(kmt_ai_metrics(&r, NULL, 2), 0);
	text = drawn(&r, kmt_render_prom);
	CHECK(text && strstr(text, "\nkmemtrace_allocinfo_up 0\n") &&
	      !strstr(text, "kmemtrace_allocinfo_bytes"));
	free(text);
	kmt_report_free(&r);
	kmt_allocinfo_free(&a);
	kmt_strtab_free(&names);
}

KMT_TESTS(
	KMT_TEST(test_fields),
	KMT_TEST(test_malformed),
	KMT_TEST(test_tables),
	KMT_TEST(test_metrics)
)
