// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace stat's report: a fixed count set (stat-fixture.h) drawn
 * through lib/render must give, byte for byte, what stat's own printer
 * gave before it had a report (tests/data/stat/, made by that printer:
 * text and JSON, a whole run, three intervals, a run of no time); and
 * CSV and ndjson draw the same counts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "analysis/counts.h"
#include "record/counter.h"
#include "render/render.h"
#include "report/report.h"
#include "stat-fixture.h"

struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
}

/* closes m and compares what it holds with the file rel of the data */
static void mem_check(struct mem *m, const char *rel)
{
	size_t len = 0;
	char *want = kmt_test_read_data(rel, &len);

	fclose(m->f);
	CHECK(want != NULL);
	if (want && (m->len != len || memcmp(m->buf, want, len))) {
		fprintf(stderr, "%s differs; drawn:\n%s", rel, m->buf);
		kmt_test_failed = 1;
	}
	free(want);
	free(m->buf);
}

static void counters(struct kmt_counters *c)
{
	int e;

	memset(c, 0, sizeof(*c));
	c->nr_events = NR_FIX;
	for (e = 0; e < NR_FIX; e++)
		c->names[e] = (char *)fix_names[e];
}

/* a bare report, as stat makes it: no header of an input */
static void report(struct kmt_report *r)
{
	kmt_report_init(r);
	r->meta.input = "live";
	r->meta.format = "counters";
	r->meta.host = "box";
	r->meta.kernel = "6.18.0";
	r->meta.boot_id = "0f0e";
	r->meta.bare = 1;
}

/* format: "text" or "json" (compact, a line a report, as stat draws it) */
static void draw(const struct kmt_report *r, const char *format, int more,
		 FILE *f)
{
	const struct kmt_renderer *rd = kmt_renderer_find(format);

	if (!strcmp(format, "json"))
		CHECK(!kmt_render_json_except(r, f, NULL, 0));
	else if (more && rd->render_more)
		CHECK(!rd->render_more(r, f));
	else
		CHECK(!rd->render(r, f));
}

static void whole(const char *format, const char *target, double secs,
		  const char *rel)
{
	struct kmt_counters c;
	struct kmt_counts k = {
		.target = target, .values = fix_final, .seconds = secs,
		.at = -1,
	};
	struct kmt_report r;
	struct mem m;

	counters(&c);
	report(&r);
	CHECK(!kmt_counters_report(&r, &c, &k));
	mem_open(&m);
	draw(&r, format, 0, m.f);
	mem_check(&m, rel);
	kmt_report_free(&r);
}

static void intervals(const char *format, const char *rel)
{
	struct kmt_counters c;
	struct kmt_report r;
	struct mem m;
	int i, json = !strcmp(format, "json");

	counters(&c);
	mem_open(&m);
	/* the heading, drawn once by the formats that continue */
	if (!json) {
		report(&r);
		CHECK(!kmt_counters_report_heading(&r));
		draw(&r, format, 0, m.f);
		kmt_report_free(&r);
	}
	for (i = 0; i < NR_INTERVALS; i++) {
		struct kmt_counts k = {
			.target = "system wide", .values = fix_delta[i],
			.seconds = fix_secs[i], .at = fix_at[i],
		};

		report(&r);
		CHECK(!kmt_counters_report(&r, &c, &k));
		draw(&r, format, 1, m.f);
		kmt_report_free(&r);
	}
	mem_check(&m, rel);
}

static void test_text(void)
{
	whole("text", fix_target, fix_final_secs, "stat/final.txt");
	whole("text", "process 1,2", 0, "stat/zero.txt");
	intervals("text", "stat/interval.txt");
}

static void test_json(void)
{
	whole("json", fix_target, fix_final_secs, "stat/final.json");
	whole("json", "process 1,2", 0, "stat/zero.json");
	intervals("json", "stat/interval.json");
}

/* how many lines of buf start with prefix */
static size_t lines_with(const char *buf, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);
	const char *p = buf;

	while (p && *p) {
		n += !strncmp(p, prefix, len);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

static void test_csv_ndjson(void)
{
	struct kmt_counters c;
	struct kmt_counts k = {
		.target = "system wide", .values = fix_delta[1], .seconds = 1.0,
		.at = 1.100810973,
	};
	struct kmt_report r;
	struct mem m;

	counters(&c);
	report(&r);
	CHECK(!kmt_counters_report(&r, &c, &k));
	mem_open(&m);
	CHECK(!kmt_render_csv(&r, m.f));
	fclose(m.f);
	CHECK(!strncmp(m.buf, "table,row,column,value\nsummary,0,target,system wide\n"
		       "summary,0,time,1.100811\nsummary,0,seconds,1.000000\n",
		       strlen("table,row,column,value\nsummary,0,target,system wide\n"
			      "summary,0,time,1.100811\nsummary,0,seconds,1.000000\n")));
	CHECK(strstr(m.buf, "\nevents,4,event,kmem:mm_page_alloc\n"
		      "events,4,count,12345678901\nevents,4,rate,12345678901.000000\n"));
	CHECK(strstr(m.buf, "\nevents_rows,0,drawn,14\n"));
	/* the text-only columns are not there */
	CHECK(!strstr(m.buf, "count_text") && !strstr(m.buf, ",time,1.100811\nevents"));
	CHECK_EQ_U64(lines_with(m.buf, "events,"), 14 * 3);
	free(m.buf);

	mem_open(&m);
	CHECK(!kmt_render_ndjson(&r, m.f));
	fclose(m.f);
	/* a row for the summary, one per event: no row of text lines */
	CHECK_EQ_U64(lines_with(m.buf, "{\"host\":\"box\",\"kernel\":\"6.18.0\","
				"\"input\":\"live\""), 15);
	CHECK(strstr(m.buf, "\"boot_id\":\"0f0e\",\"start_time\":null,"
		      "\"start_unix_ns\":null,\"table\":\"summary\","
		      "\"target\":\"system wide\",\"time\":1.100810973,"
		      "\"seconds\":1}\n"));
	CHECK(strstr(m.buf, "\"table\":\"events\",\"event\":\"kmem:kfree\","
		      "\"count\":1000000,\"rate\":1000000}\n"));
	free(m.buf);
	kmt_report_free(&r);

	/* the heading is text alone: CSV's header line, no ndjson row */
	report(&r);
	CHECK(!kmt_counters_report_heading(&r));
	mem_open(&m);
	CHECK(!kmt_render_ndjson(&r, m.f));
	CHECK(!kmt_render_csv(&r, m.f));
	fclose(m.f);
	CHECK_STR(m.buf, "table,row,column,value\n");
	free(m.buf);
	kmt_report_free(&r);
}

KMT_TESTS(KMT_TEST(test_text), KMT_TEST(test_json), KMT_TEST(test_csv_ndjson))
