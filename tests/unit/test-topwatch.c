// SPDX-License-Identifier: GPL-2.0
/*
 * top's and watch's refreshes drawn through the report model and the
 * renderers: for the fixed snapshots of topwatch-fixture.h, text and
 * JSON byte for byte what the commands' own printers printed
 * (tests/data/live), and the other formats agreeing with JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/render.h"
#include "report/report.h"
#include "topwatch-fixture.h"

/* the line the live view adds under the header (src/cmd-top.c) */
#define KEYS "keys: q quit; views c callsite, k cache, P process, s stack (C cgroup with --view cgroup); sort a f b o l g w p"

static char *draw(const struct kmt_report *r, const char *format)
{
	const struct kmt_renderer *rd = kmt_renderer_find(format);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f || !rd)
		return NULL;
	CHECK(!rd->render(r, f));
	fclose(f);
	return buf;
}

/* a screen's lines as the terminal gets them: cut to width, "\e[K\r\n" */
static char *screen_lines(const char *text, int width)
{
	size_t n = strlen(text), len = 0;
	char *out = malloc(n * 4 + 1), *nl;

	if (!out)
		return NULL;
	for (; (nl = strchr(text, '\n')); text = nl + 1) {
		size_t w = (size_t)(nl - text);

		if (width > 0 && w > (size_t)width)
			w = (size_t)width;
		memcpy(out + len, text, w);
		len += w;
		memcpy(out + len, "\033[K\r\n", 5);
		len += 5;
	}
	out[len] = 0;
	return out;
}

static void check_golden(const char *name, const char *got)
{
	char rel[128], *want;
	size_t len;

	snprintf(rel, sizeof(rel), "live/%s", name);
	want = kmt_test_read_data(rel, &len);
	CHECK(want && got);
	if (want && got && strcmp(want, got)) {
		fprintf(stderr, "%s differs; got:\n%s\n", name, got);
		kmt_test_failed = 1;
	}
	free(want);
}

static void top_report(struct tw_fix *f, const struct tw_top_case *c,
		       struct kmt_report *r)
{
	struct kmt_top_show sh = {
		.view = c->view, .sort = c->sort, .target = "system wide",
		.limit = (size_t)(c->screen ? c->screen : c->limit),
		.screen = c->screen > 0,
	};

	kmt_report_init(r);
	kmt_report_meta_here(r, "live", "bpf");
	r->meta.bare = 1;
	r->meta.seq = 1;
	CHECK(!kmt_top_report(&f->top, &sh, r));
	if (c->screen) {
		struct kmt_section *sec = kmt_report_section(r, "", "refresh");
		struct kmt_sum_item keys = { .kind = KMT_SUM_NOTE, .label = KEYS };

		CHECK(sec && !kmt_summary_add(&sec->summary, &keys));
	}
}

static void test_top_as_before(void)
{
	size_t i;

	for (i = 0; i < sizeof(tw_top_cases) / sizeof(*tw_top_cases); i++) {
		const struct tw_top_case *c = &tw_top_cases[i];
		struct kmt_report r;
		struct tw_fix f;
		char *got, *lines;

		CHECK(!tw_fix_init(&f) && !tw_top_fill(&f, c->variant));
		top_report(&f, c, &r);
		got = draw(&r, c->json ? "json" : "text");
		lines = c->screen && got ? screen_lines(got, c->width) : NULL;
		check_golden(c->name, c->screen ? lines : got);
		free(lines);
		free(got);
		kmt_report_free(&r);
		tw_fix_free(&f);
	}
}

static void watch_report(struct tw_fix *f, const struct tw_watch_case *c,
			 struct kmt_report *r)
{
	struct kmt_watch_show sh = {
		.target = "process 4242", .limit = (size_t)c->limit,
		.frames = c->frames, .final = c->final,
	};

	kmt_report_init(r);
	kmt_report_meta_here(r, "live", "bpf");
	r->meta.bare = 1;
	r->meta.seq = 3;
	CHECK(!kmt_watch_report(&f->watch, &sh, r));
}

static void test_watch_as_before(void)
{
	size_t i;

	for (i = 0; i < sizeof(tw_watch_cases) / sizeof(*tw_watch_cases); i++) {
		const struct tw_watch_case *c = &tw_watch_cases[i];
		struct kmt_report r;
		struct tw_fix f;
		char *got;

		CHECK(!tw_fix_init(&f) && !tw_watch_fill(&f, c->variant));
		watch_report(&f, c, &r);
		got = draw(&r, c->json ? "json" : "text");
		check_golden(c->name, got);
		free(got);
		kmt_report_free(&r);
		tw_fix_free(&f);
	}
}

/* how often needle is in hay */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/*
 * ndjson: a row per table row with the machine's columns and seq; the
 * summaries a row each; the text-only summary none.  CSV: led by seq,
 * the members of the header's objects as "object.member".
 */
static void test_top_rows(void)
{
	static const struct tw_top_case c = {
		"", 0, KMT_TOP_PROCESS, KMT_TOP_BYTES, 0, 3, 0, 0,
	};
	struct kmt_report r;
	struct tw_fix f;
	char *nd, *csv;

	CHECK(!tw_fix_init(&f) && !tw_top_fill(&f, 0));
	top_report(&f, &c, &r);
	nd = draw(&r, "ndjson");
	csv = draw(&r, "csv");
	CHECK(nd && csv);
	if (nd && csv) {
		CHECK_EQ_U64(count(nd, "\n"), 5);
		CHECK_EQ_U64(count(nd, "\"table\":\"rows\",\"seq\":1,"), 3);
		CHECK_EQ_U64(count(nd, "\"table\":\"refresh\",\"seq\":1,"), 1);
		CHECK_EQ_U64(count(nd, "\"table\":\"rows_omitted\",\"seq\":1,\"rows_omitted\":4}"), 1);
		CHECK_EQ_U64(count(nd, "\"span_ns\":12500000000,"), 5);
		CHECK(strstr(nd, "\"process\":\"0\",\"pid\":0,\"allocs\":2007,"));
		CHECK(strstr(nd, "\"totals\":{\"events\":987654321,"));
		CHECK(!strstr(nd, "_text"));
		CHECK(!strncmp(csv, "seq,table,row,column,value\n", 27));
		CHECK(strstr(csv, "\n1,refresh,0,totals.events,987654321\n"));
		CHECK(strstr(csv, "\n1,refresh,0,live_estimated,1\n"));
		CHECK(strstr(csv, "\n1,rows,2,pages,20 2 0 4\n"));
		CHECK(strstr(csv, "\n1,rows,2,pages_estimated,0\n"));
		CHECK(strstr(csv, "\n1,rows_omitted,0,rows_omitted,4\n"));
		CHECK(!strstr(csv, "_text"));
	}
	free(nd);
	free(csv);
	kmt_report_free(&r);
	tw_fix_free(&f);
}

/* the members some rows lack are left out of ndjson and CSV too */
static void test_watch_rows(void)
{
	static const struct tw_watch_case c = { "", 0, 0, 0, 0, 0 };
	struct kmt_report r;
	struct tw_fix f;
	char *nd, *csv;

	CHECK(!tw_fix_init(&f) && !tw_watch_fill(&f, 0));
	watch_report(&f, &c, &r);
	nd = draw(&r, "ndjson");
	csv = draw(&r, "csv");
	CHECK(nd && csv);
	if (nd && csv) {
		/* the interval, 7 stacks, the stacks left out, 4 callsites */
		CHECK_EQ_U64(count(nd, "\n"), 13);
		CHECK_EQ_U64(count(nd, "\"table\":\"stacks\",\"seq\":3,"), 7);
		CHECK_EQ_U64(count(nd, "\"order\":"), 2);
		CHECK_EQ_U64(count(nd, "\"stack\":"), 2);
		CHECK_EQ_U64(count(nd, "\"stack_error\":"), 3);
		CHECK_EQ_U64(count(nd, "\"absent\""), 0);
		CHECK(!strstr(nd, "\"table\":\"end\""));
		CHECK(strstr(nd, "\"trend\":[10,12,15,15,20,26,30,41],\"growing\":true}"));
		CHECK(strstr(csv, "\n3,stacks,1,order,2\n"));
		CHECK(!strstr(csv, "\n3,stacks,0,order,"));
		CHECK(strstr(csv, "\n3,stacks,3,stack_error,-12\n"));
		CHECK(strstr(csv, "\n3,callsites,3,stacks,123456\n"));
		CHECK(strstr(csv, "\n3,interval,0,counters.stacks given back,2\n"));
		CHECK(!strstr(csv, "absent"));
	}
	free(nd);
	free(csv);
	kmt_report_free(&r);
	tw_fix_free(&f);
}

KMT_TESTS(KMT_TEST(test_top_as_before), KMT_TEST(test_watch_as_before),
	  KMT_TEST(test_top_rows), KMT_TEST(test_watch_rows))
