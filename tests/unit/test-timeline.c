// SPDX-License-Identifier: GPL-2.0
/* The timeline view: outstanding memory per step, top callsites. */
#include "analysis/timeline.h"
#include "views-fixture.h"

#define SITE_A 0x100
#define SITE_B 0x200

static void test_steps_and_top(void)
{
	const struct kmt_timeline_step *st;
	const struct kmt_table *t;
	uint64_t step;
	size_t n;
	struct vf f;

	vf_init(&f);
	f.opts.step = 1000;
	f.opts.top = 2;
	vf_create(&f, &kmt_analysis_timeline);
	vf_kmalloc(&f, 1000, 0, 1, SITE_A, 0xa0, 100, 100);	/* step 0 */
	vf_kmalloc(&f, 1500, 0, 1, SITE_B, 0xb0, 50, 50);
	vf_kfree(&f, 2500, 0, 1, 0x999, 0xa0);			/* step 1 */
	vf_page_alloc(&f, 2600, 0, 1, 0x1, 0);
	vf_kmalloc(&f, 4200, 0, 1, SITE_B, 0xb1, 50, 50);	/* step 3 */
	vf_finish(&f);

	st = kmt_timeline_steps(f.ctx, &n, &step);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(step, 1000);
	CHECK_EQ_U64(st[0].slab_bytes, 150);
	CHECK_EQ_U64(st[0].slab_alloc, 150);
	CHECK_EQ_U64(st[0].slab_peak, 150);
	CHECK_EQ_U64(st[1].slab_bytes, 50);
	CHECK_EQ_U64(st[1].slab_freed, 100);
	CHECK_EQ_U64(st[1].page_bytes, 4096);
	CHECK_EQ_U64(st[1].page_alloc, 4096);
	CHECK_EQ_U64(st[1].slab_peak, 150);	/* before the free */
	CHECK_EQ_U64(st[2].slab_bytes, 50);	/* nothing happened */
	CHECK_EQ_U64(st[2].slab_alloc, 0);
	CHECK_EQ_U64(st[2].slab_peak, 50);
	CHECK_EQ_U64(st[3].slab_bytes, 100);

	t = vf_table(&f, "timeline", "callsites");
	CHECK_EQ_U64(t->nrows, 2);
	CHECK_EQ_U64(t->total_rows, 3);
	CHECK_STR(vf_s(t, 0, "series"), "#1");
	CHECK_STR(vf_s(t, 0, "kind"), "page");
	CHECK_EQ_U64(vf_u(t, 0, "peak_bytes"), 4096);
	/* B and A both peaked at 100: B holds it at the end */
	CHECK_EQ_U64(vf_u(t, 1, "address"), SITE_B);
	CHECK_EQ_U64(vf_u(t, 1, "final_bytes"), 100);

	t = vf_table(&f, "timeline", "series");
	CHECK_EQ_U64(t->nrows, 4);
	CHECK_EQ_U64(vf_u(t, 3, "offset_ns"), 3000);
	CHECK_EQ_U64(vf_u(t, 0, "slab_bytes"), 150);
	CHECK_EQ_U64(vf_u(t, 0, "site_1"), 0);
	CHECK_EQ_U64(vf_u(t, 1, "site_1"), 4096);
	CHECK_EQ_U64(vf_u(t, 0, "site_2"), 50);
	CHECK_EQ_U64(vf_u(t, 3, "site_2"), 100);

	CHECK_EQ_U64(vf_sum(&f, "timeline", "summary", "steps"), 4);
	CHECK_EQ_U64(vf_sum(&f, "timeline", "summary", "slab_peak_bytes"), 150);
	CHECK_EQ_U64(vf_sum(&f, "timeline", "summary", "slab_final_bytes"), 100);
	CHECK_EQ_U64(vf_sum(&f, "timeline", "summary", "page_final_bytes"), 4096);
	CHECK_EQ_U64(vf_sum(&f, "timeline", "summary", "callsites"), 3);
	/* rows in text, series in JSON */
	vf_renders(&f, " Time  Slab  Pages", "\"site_2\": [\n");
	vf_free(&f);
}

/* too many steps for --step: it doubles, the samples merge */
static void test_steps_grow(void)
{
	const struct kmt_timeline_step *st;
	uint64_t step;
	size_t n;
	struct vf f;

	vf_init(&f);
	f.opts.step = 1;
	vf_create(&f, &kmt_analysis_timeline);
	vf_kmalloc(&f, 1000, 0, 1, SITE_A, 0xa0, 10, 10);
	vf_kmalloc(&f, 5999, 0, 1, SITE_A, 0xa1, 20, 20);	/* step 4999 */
	vf_kfree(&f, 13000, 0, 1, 0x999, 0xa0);		/* 12000 ns on */
	vf_finish(&f);
	st = kmt_timeline_steps(f.ctx, &n, &step);
	CHECK_EQ_U64(step, 4);
	CHECK_EQ_U64(n, 3001);
	CHECK_EQ_U64(st[0].slab_bytes, 10);
	CHECK_EQ_U64(st[0].slab_alloc, 10);
	CHECK_EQ_U64(st[1248].slab_bytes, 10);
	CHECK_EQ_U64(st[1249].slab_bytes, 30);
	CHECK_EQ_U64(st[1249].slab_alloc, 20);
	CHECK_EQ_U64(st[1249].slab_peak, 30);
	CHECK_EQ_U64(st[2999].slab_bytes, 30);
	CHECK_EQ_U64(st[3000].slab_bytes, 20);
	CHECK_EQ_U64(st[3000].slab_freed, 10);
	vf_free(&f);
}

/* no --step: span / 50 rounded, here 10 s -> 200 ms */
static void test_auto_step(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_timeline);
	vf_kmalloc(&f, 1000000000ULL, 0, 1, SITE_A, 0xa0, 10, 10);
	vf_kfree(&f, 11000000000ULL, 0, 1, 0x999, 0xa0);
	vf_finish(&f);
	CHECK_EQ_U64(vf_sum(&f, "timeline", "summary", "step_ns"), 200000000);
	t = vf_table(&f, "timeline", "series");
	CHECK_EQ_U64(t->nrows, 51);
	CHECK_EQ_U64(vf_u(t, 0, "slab_bytes"), 10);
	CHECK_EQ_U64(vf_u(t, 49, "site_1"), 10);
	CHECK_EQ_U64(vf_u(t, 50, "slab_bytes"), 0);
	CHECK_EQ_U64(vf_u(t, 50, "slab_freed_bytes"), 10);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_steps_and_top), KMT_TEST(test_steps_grow),
	  KMT_TEST(test_auto_step))
