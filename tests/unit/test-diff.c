// SPDX-License-Identifier: GPL-2.0
/*
 * The comparison engine (run/diff.h) without the command: a recording
 * against itself, against another, a page_owner dump, the sort key
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/report.h"
#include "run/diff.h"

/* path of a file of the test data, as kmt_test_read_data finds it */
static const char *data(const char *rel, char *buf, size_t len)
{
	const char *dir = getenv("KMT_TEST_DATA");

	snprintf(buf, len, "%s/%s", dir && *dir ? dir : "tests/data", rel);
	return buf;
}

static struct kmt_diff *load(enum kmt_diff_what what, const char *a,
			     const char *b, char (*paths)[4096])
{
	struct kmt_diff_spec spec = { .what = what };
	enum kmt_run_status st;
	struct kmt_diff *d;
	char msg[1024];

	d = kmt_diff_create(&spec, &st, msg, sizeof(msg));
	CHECK(d && st == KMT_RUN_OK);
	if (!d)
		return NULL;
	CHECK(kmt_diff_load(d, 0, data(a, paths[0], sizeof(paths[0]))) ==
	      KMT_RUN_OK);
	CHECK(kmt_diff_load(d, 1, data(b, paths[1], sizeof(paths[1]))) ==
	      KMT_RUN_OK);
	return d;
}

/* every row of every table of rep: in both, a == b, no difference */
static size_t check_same(const struct kmt_report *rep)
{
	size_t i, r, rows = 0;

	for (i = 0; i < rep->nr; i++) {
		const struct kmt_section *sec = rep->sections[i];
		const struct kmt_table *t;
		union kmt_val *buf;
		int a, b, diff, in, ch;

		if (sec->kind != KMT_SEC_TABLE)
			continue;
		t = &sec->table;
		a = kmt_table_col(t, "a");
		b = kmt_table_col(t, "b");
		diff = kmt_table_col(t, "diff");
		in = kmt_table_col(t, "in");
		ch = kmt_table_col(t, "change");
		CHECK(a >= 0 && b >= 0 && diff >= 0 && in >= 0 && ch >= 0);
		buf = calloc(t->ncols, sizeof(*buf));
		CHECK(buf != NULL);
		for (r = 0; buf && r < t->nrows; r++) {
			const union kmt_val *v = kmt_table_row(t, r, buf);

			CHECK_STR(v[in].str, "both");
			CHECK_STR(v[ch].str, "=");
			CHECK(v[a].s == v[b].s);
			CHECK(v[diff].s == 0);
			rows++;
		}
		free(buf);
	}
	return rows;
}

static void test_recording_with_itself(void)
{
	char paths[2][4096];
	struct kmt_diff *d = load(KMT_DIFF_RECORDINGS, "capture.dat",
				  "capture.dat", paths);
	struct kmt_report rep;
	size_t dim, tables = 0;

	if (!d)
		return;
	CHECK(kmt_diff_warning(d, 0) == NULL);
	kmt_report_init(&rep);
	CHECK(kmt_diff_report(d, &rep) == 0);
	CHECK(check_same(&rep) > 0);
	CHECK(!kmt_diff_rates(d));
	CHECK(kmt_diff_span(d, 0) == kmt_diff_span(d, 1));
	for (dim = 0; dim < kmt_diff_nr_dims(d); dim++) {
		CHECK(kmt_diff_has(d, 0, dim) == kmt_diff_has(d, 1, dim));
		if (kmt_diff_has(d, 0, dim)) {
			CHECK(kmt_report_section(&rep, "", kmt_diff_dim(d, dim)));
			tables++;
		}
	}
	CHECK(tables > 0);
	CHECK_STR(kmt_diff_dim(d, 0), "callsites");
	CHECK_STR(kmt_diff_sort_title(d, 0), "bytes allocated");
	/* stacks have only what is live: sorted by the bytes live */
	CHECK_STR(kmt_diff_sort_title(d, 3), "bytes live at the end");
	kmt_report_free(&rep);
	kmt_diff_free(d);
}

static void test_two_recordings(void)
{
	char paths[2][4096];
	struct kmt_diff *d = load(KMT_DIFF_RECORDINGS, "capture.dat",
				  "page-only.dat", paths);
	struct kmt_report rep;
	const struct kmt_section *sec;

	if (!d)
		return;
	kmt_report_init(&rep);
	CHECK(kmt_diff_report(d, &rep) == 0);
	CHECK_STR(rep.meta.format, "kmemtrace diff");
	sec = kmt_report_section(&rep, "", "callsites");
	CHECK(sec && sec->kind == KMT_SEC_TABLE && sec->table.nrows > 0);
	kmt_report_free(&rep);
	kmt_diff_free(d);
}

static void test_pageowner_with_itself(void)
{
	char paths[2][4096];
	struct kmt_diff *d = load(KMT_DIFF_PAGEOWNER, "pageowner/current.txt",
				  "pageowner/current.txt", paths);
	struct kmt_report rep;

	if (!d)
		return;
	kmt_report_init(&rep);
	CHECK(kmt_diff_report(d, &rep) == 0);
	CHECK(check_same(&rep) > 0);
	CHECK(kmt_diff_span(d, 0) == 0);
	kmt_report_free(&rep);
	kmt_diff_free(d);
}

static void test_malformed_warnings(void)
{
	char paths[2][4096];
	struct kmt_diff *d = load(KMT_DIFF_PAGEOWNER, "pageowner/current.txt",
				  "pageowner/malformed.txt", paths);
	const char *w;

	if (!d)
		return;
	/* the last load's: B's skipped records, each said */
	w = kmt_diff_warning(d, 0);
	CHECK(w && strstr(w, "malformed.txt' line ") &&
	      strstr(w, "; record skipped"));
	kmt_diff_free(d);
}

static void test_sort_key(void)
{
	struct kmt_diff_spec spec = { .what = KMT_DIFF_RECORDINGS,
				      .sort = "nosuch" };
	enum kmt_run_status st;
	char msg[256];

	CHECK(kmt_diff_create(&spec, &st, msg, sizeof(msg)) == NULL);
	CHECK(st == KMT_RUN_E_SPEC);
	CHECK_STR(msg, "unknown sort key 'nosuch': the keys are allocs, bytes, "
		  "wasted, live, live_bytes");
	CHECK_STR(kmt_diff_key_name(KMT_DIFF_PAGEOWNER, 1), "records");
	CHECK(kmt_diff_key_name(KMT_DIFF_PAGEOWNER, 2) == NULL);
}

static void test_missing_input(void)
{
	struct kmt_diff_spec spec = { .what = KMT_DIFF_RECORDINGS };
	enum kmt_run_status st;
	struct kmt_diff *d = kmt_diff_create(&spec, &st, NULL, 0);

	CHECK(d != NULL);
	if (!d)
		return;
	st = kmt_diff_load(d, 0, "/nonexistent/kmt-diff-test");
	CHECK(st == KMT_RUN_E_INPUT || st == KMT_RUN_E_READ);
	CHECK(*kmt_diff_error(d));
	kmt_diff_free(d);
}

KMT_TESTS(KMT_TEST(test_recording_with_itself), KMT_TEST(test_two_recordings),
	  KMT_TEST(test_pageowner_with_itself), KMT_TEST(test_malformed_warnings),
	  KMT_TEST(test_sort_key), KMT_TEST(test_missing_input))
