// SPDX-License-Identifier: GPL-2.0
/* The lifetimes view: log2 buckets of nanoseconds, per callsite. */
#include "analysis/lifetimes.h"
#include "views-fixture.h"

static void feed(struct vf *f)
{
	vf_kmalloc(f, 1000, 0, 1, 0x10, 0xa0, 8, 8);
	vf_kmalloc(f, 1000, 0, 1, 0x10, 0xb0, 8, 8);
	vf_kmalloc(f, 1000, 0, 1, 0x10, 0xc0, 8, 8);
	vf_kmalloc(f, 1000, 0, 1, 0x20, 0xd0, 16, 16);
	vf_page_alloc(f, 1000, 0, 1, 0x40, 0);
	vf_kmalloc(f, 1000, 0, 1, 0x30, 0xe0, 8, 8);	/* never freed */
	vf_kfree(f, 1000, 0, 1, 0x99, 0xa0);		/* 0 ns */
	vf_kfree(f, 1001, 0, 1, 0x99, 0xb0);		/* 1 ns */
	vf_kfree(f, 1100, 0, 1, 0x99, 0xc0);		/* 100 ns */
	vf_page_free(f, 1500, 0, 1, 0x40, 0);		/* 500 ns */
	vf_kfree(f, 2024, 0, 1, 0x99, 0xd0);		/* 1024 ns */
	vf_kfree(f, 2100, 0, 1, 0x99, 0xf0);		/* not seen */
}

static void test_histogram(void)
{
	const struct kmt_life_hist *h;
	const struct kmt_table *t;
	struct vf f;

	CHECK_EQ_U64(kmt_life_bucket(0), 0);
	CHECK_EQ_U64(kmt_life_bucket(1), 1);
	CHECK_EQ_U64(kmt_life_bucket(1023), 10);
	CHECK_EQ_U64(kmt_life_bucket(1024), 11);
	CHECK_EQ_U64(kmt_life_bucket(UINT64_MAX), 64);

	vf_init(&f);
	vf_create(&f, &kmt_analysis_lifetimes);
	feed(&f);
	vf_finish(&f);
	h = kmt_lifetimes_slab(f.ctx);
	CHECK_EQ_U64(h->count, 4);
	CHECK_EQ_U64(h->min, 0);
	CHECK_EQ_U64(h->max, 1024);
	CHECK_EQ_U64(h->n[0], 1);
	CHECK_EQ_U64(h->n[1], 1);
	CHECK_EQ_U64(h->n[7], 1);
	CHECK_EQ_U64(h->n[11], 1);
	CHECK_EQ_U64(h->bytes[11], 16);
	h = kmt_lifetimes_page(f.ctx);
	CHECK_EQ_U64(h->count, 1);
	CHECK_EQ_U64(h->n[9], 1);
	CHECK_EQ_U64(h->bytes[9], 4096);

	t = vf_table(&f, "lifetimes", "histogram");
	CHECK_EQ_U64(t->nrows, 12);
	CHECK_EQ_U64(vf_u(t, 0, "from_ns"), 0);
	CHECK_EQ_U64(vf_u(t, 0, "to_ns"), 1);
	CHECK_EQ_U64(vf_u(t, 7, "from_ns"), 64);
	CHECK_EQ_U64(vf_u(t, 7, "to_ns"), 128);
	CHECK_EQ_U64(vf_u(t, 7, "slab_frees"), 1);
	CHECK(vf_cell(t, 7, "slab_cum_pct")->d == 75.0);
	CHECK_EQ_U64(vf_u(t, 9, "page_frees"), 1);
	CHECK_EQ_U64(vf_u(t, 9, "page_bytes"), 4096);
	CHECK(vf_cell(t, 9, "page_cum_pct")->d == 100.0);
	CHECK_EQ_U64(vf_u(t, 11, "slab_bytes"), 16);

	CHECK_EQ_U64(vf_sum(&f, "lifetimes", "summary", "slab_frees"), 4);
	CHECK_EQ_U64(vf_sum(&f, "lifetimes", "summary", "slab_avg_ns"), 281);
	CHECK_EQ_U64(vf_sum(&f, "lifetimes", "summary", "slab_p50_ns"), 2);
	CHECK_EQ_U64(vf_sum(&f, "lifetimes", "summary", "slab_p90_ns"), 1024);
	CHECK_EQ_U64(vf_sum(&f, "lifetimes", "summary", "slab_max_ns"), 1024);
	CHECK_EQ_U64(vf_sum(&f, "lifetimes", "summary", "page_min_ns"), 500);
	vf_renders(&f, "1.02us", "\"slab_p50_ns\": 2");
	vf_free(&f);
}

static void test_per_callsite(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	f.opts.caller = 1;
	vf_create(&f, &kmt_analysis_lifetimes);
	feed(&f);
	vf_finish(&f);
	t = vf_table(&f, "lifetimes", "callsites");
	CHECK_EQ_U64(t->nrows, 3);
	CHECK_EQ_U64(vf_u(t, 0, "address"), 0x10);
	CHECK_EQ_U64(vf_u(t, 0, "frees"), 3);
	CHECK_EQ_U64(vf_u(t, 0, "min_ns"), 0);
	CHECK_EQ_U64(vf_u(t, 0, "avg_ns"), 34);
	CHECK_EQ_U64(vf_u(t, 0, "p50_ns"), 2);
	CHECK_EQ_U64(vf_u(t, 0, "p90_ns"), 100);
	CHECK_EQ_U64(vf_u(t, 0, "max_ns"), 100);
	CHECK_STR(vf_s(t, 1, "kind"), "page");
	CHECK_EQ_U64(vf_u(t, 1, "max_ns"), 500);
	CHECK_EQ_U64(vf_u(t, 2, "address"), 0x20);
	CHECK_EQ_U64(vf_u(t, 2, "p99_ns"), 1024);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_histogram), KMT_TEST(test_per_callsite))
