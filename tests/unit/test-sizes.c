// SPDX-License-Identifier: GPL-2.0
/* The sizes view: requested sizes in powers of two, with waste. */
#include "analysis/sizes.h"
#include "views-fixture.h"

static void test_histogram(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_sizes);
	vf_kmalloc(&f, 10, 0, 1, 0x10, 0xa0, 0, 8);
	vf_kmalloc(&f, 11, 0, 1, 0x10, 0xa1, 1, 8);
	vf_kmalloc(&f, 12, 0, 1, 0x10, 0xa2, 8, 8);
	vf_cache_alloc(&f, 13, 0, 1, 0x10, 0xa3, 9, 16, "x");
	vf_kmalloc(&f, 14, 0, 1, 0x10, 0xa4, 16, 16);
	vf_kmalloc(&f, 15, 0, 1, 0x10, 0xa5, 100, 128);
	vf_kmalloc(&f, 16, 0, 1, 0x10, 0xa6, 100, 64);	/* below req */
	vf_kfree(&f, 17, 0, 1, 0x10, 0xa6);
	vf_page_alloc(&f, 18, 0, 1, 0x10, 0);
	CHECK_EQ_U64(kmt_sizes_bucket(f.ctx, 9)->allocs, 2);
	CHECK_EQ_U64(kmt_sizes_bucket(f.ctx, 16)->waste, 7);
	CHECK_EQ_U64(kmt_sizes_bucket(f.ctx, 65)->allocs, 2);
	vf_finish(&f);

	t = vf_table(&f, "sizes", "histogram");
	CHECK_EQ_U64(t->nrows, 9);	/* 0 .. 65-128, empty ones too */
	CHECK_STR(vf_s(t, 0, "range"), "0");
	CHECK_EQ_U64(vf_u(t, 0, "waste"), 8);
	CHECK_STR(vf_s(t, 1, "range"), "1");
	CHECK_EQ_U64(vf_u(t, 1, "waste"), 7);
	CHECK_STR(vf_s(t, 2, "range"), "2");
	CHECK_EQ_U64(vf_u(t, 2, "allocs"), 0);
	CHECK_STR(vf_s(t, 3, "range"), "3-4");
	CHECK_STR(vf_s(t, 4, "range"), "5-8");
	CHECK_EQ_U64(vf_u(t, 4, "min_bytes"), 5);
	CHECK_EQ_U64(vf_u(t, 4, "max_bytes"), 8);
	CHECK_EQ_U64(vf_u(t, 4, "waste"), 0);
	CHECK_STR(vf_s(t, 5, "range"), "9-16");
	CHECK_EQ_U64(vf_u(t, 5, "allocs"), 2);
	CHECK_EQ_U64(vf_u(t, 5, "requested"), 25);
	CHECK_EQ_U64(vf_u(t, 5, "allocated"), 32);
	CHECK_EQ_U64(vf_u(t, 5, "waste"), 7);
	CHECK(vf_cell(t, 5, "allocs_pct")->d > 28.571 &&
	      vf_cell(t, 5, "allocs_pct")->d < 28.572);
	CHECK(vf_cell(t, 5, "waste_pct")->d == 21.875);
	CHECK_STR(vf_s(t, 8, "range"), "65-128");
	CHECK_EQ_U64(vf_u(t, 8, "allocs"), 2);
	CHECK_EQ_U64(vf_u(t, 8, "requested"), 200);
	CHECK_EQ_U64(vf_u(t, 8, "allocated"), 192);
	CHECK_EQ_U64(vf_u(t, 8, "waste"), 28);

	CHECK_EQ_U64(vf_sum(&f, "sizes", "summary", "allocs"), 7);
	CHECK_EQ_U64(vf_sum(&f, "sizes", "summary", "requested"), 234);
	CHECK_EQ_U64(vf_sum(&f, "sizes", "summary", "allocated"), 248);
	CHECK_EQ_U64(vf_sum(&f, "sizes", "summary", "waste"), 50);
	vf_renders(&f, "65-128", "\"range\": \"9-16\"");
	vf_free(&f);
}

static void test_huge_request(void)
{
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_sizes);
	vf_kmalloc(&f, 10, 0, 1, 0x10, 0xa0, UINT64_MAX, UINT64_MAX);
	CHECK_EQ_U64(kmt_sizes_bucket(f.ctx, UINT64_MAX)->allocs, 1);
	vf_finish(&f);
	vf_renders(&f, "9223372036854775809-18446744073709551615", NULL);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_histogram), KMT_TEST(test_huge_request))
