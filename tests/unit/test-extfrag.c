// SPDX-License-Identifier: GPL-2.0
/* The extfrag view: fallbacks of each kind, by process, over time. */
#include "analysis/extfrag.h"
#include "views-fixture.h"

static void feed(struct vf *f)
{
	vf_comm(f, 1, "a");
	vf_comm(f, 2, "b");
	/* order, fallback order, migratetypes, fragmenting, change_owner */
	vf_extfrag(f, 1000, 0, 1, 0, 2, 0, 1, 1, 1);	/* severe, changed */
	vf_extfrag(f, 2000, 0, 1, 0, 2, 0, 1, 1, 0);	/* severe */
	vf_extfrag(f, 3000, 1, 2, 0, 5, 0, 2, 1, 0);	/* moderate */
	vf_extfrag(f, 4000, 1, 2, 3, 9, 1, 0, 0, 1);	/* not fragmenting */
}

static void test_tables(void)
{
	struct kmt_extfrag_counts n;
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	f.opts.step = 1000;
	vf_create(&f, &kmt_analysis_extfrag);
	feed(&f);
	vf_finish(&f);
	kmt_extfrag_get_totals(f.ctx, &n);
	CHECK_EQ_U64(n.events, 4);
	CHECK_EQ_U64(n.fragmenting, 3);
	CHECK_EQ_U64(n.severe, 2);
	CHECK_EQ_U64(n.moderate, 1);
	CHECK_EQ_U64(n.changed, 2);

	t = vf_table(&f, "extfrag", "fallbacks");
	CHECK_EQ_U64(t->nrows, 3);
	CHECK_EQ_U64(vf_u(t, 0, "alloc_order"), 0);
	CHECK_EQ_U64(vf_u(t, 0, "fallback_order"), 2);
	CHECK_STR(vf_s(t, 0, "alloc_migratetype"), "UNMOVABLE");
	CHECK_STR(vf_s(t, 0, "fallback_migratetype"), "MOVABLE");
	CHECK_EQ_U64(vf_u(t, 0, "events"), 2);
	CHECK_EQ_U64(vf_u(t, 0, "fragmenting"), 2);
	CHECK_EQ_U64(vf_u(t, 0, "severe"), 2);
	CHECK_EQ_U64(vf_u(t, 0, "moderate"), 0);
	CHECK_EQ_U64(vf_u(t, 0, "changed_owner"), 1);
	CHECK_EQ_U64(vf_u(t, 1, "fallback_order"), 5);
	CHECK_STR(vf_s(t, 1, "fallback_migratetype"), "RECLAIMABLE");
	CHECK_EQ_U64(vf_u(t, 1, "moderate"), 1);
	CHECK_EQ_U64(vf_u(t, 2, "alloc_order"), 3);
	CHECK_EQ_U64(vf_u(t, 2, "fragmenting"), 0);
	CHECK_EQ_U64(vf_u(t, 2, "changed_owner"), 1);

	t = vf_table(&f, "extfrag", "processes");
	CHECK_EQ_U64(t->nrows, 2);
	CHECK_STR(vf_s(t, 0, "process"), "a-1");
	CHECK_EQ_U64(vf_u(t, 0, "severe"), 2);
	CHECK_EQ_U64(vf_u(t, 0, "changed_owner"), 1);
	CHECK_STR(vf_s(t, 1, "process"), "b-2");
	CHECK_EQ_U64(vf_u(t, 1, "events"), 2);
	CHECK_EQ_U64(vf_u(t, 1, "fragmenting"), 1);
	CHECK_EQ_U64(vf_u(t, 1, "moderate"), 1);

	t = vf_table(&f, "extfrag", "timeline");
	CHECK_EQ_U64(t->nrows, 4);
	CHECK_EQ_U64(vf_u(t, 1, "offset_ns"), 1000);
	CHECK_EQ_U64(vf_u(t, 0, "changed_owner"), 1);
	CHECK_EQ_U64(vf_u(t, 1, "severe"), 1);
	CHECK_EQ_U64(vf_u(t, 2, "moderate"), 1);
	CHECK_EQ_U64(vf_u(t, 3, "fragmenting"), 0);
	CHECK_EQ_U64(vf_u(t, 3, "events"), 1);

	CHECK_EQ_U64(vf_sum(&f, "extfrag", "summary", "not_fragmenting"), 1);
	CHECK_EQ_U64(vf_sum(&f, "extfrag", "summary", "step_ns"), 1000);
	/* a series in JSON: one array per column */
	vf_renders(&f, "Owner changed", "\"severe\": [\n");
	vf_free(&f);
}

static void test_by_comm(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	f.opts.by_comm = 1;
	vf_create(&f, &kmt_analysis_extfrag);
	vf_comm(&f, 3, "a");
	feed(&f);
	vf_extfrag(&f, 5000, 0, 3, 0, 1, 0, 1, 1, 0);
	vf_finish(&f);
	t = vf_table(&f, "extfrag", "processes");
	CHECK_EQ_U64(t->nrows, 2);
	CHECK_STR(vf_s(t, 0, "process"), "a");
	CHECK_EQ_U64(vf_u(t, 0, "events"), 3);
	vf_free(&f);
}

/* no --step: span / 50, rounded to 1, 2 or 5 times a power of ten */
static void test_auto_step(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_extfrag);
	vf_kmalloc(&f, 1000000000ULL, 0, 1, 0x10, 0xa0, 8, 8);
	vf_extfrag(&f, 6000000000ULL, 0, 1, 0, 2, 0, 1, 1, 0);
	vf_kmalloc(&f, 11000000000ULL, 0, 1, 0x10, 0xb0, 8, 8);
	vf_finish(&f);
	CHECK_EQ_U64(vf_sum(&f, "extfrag", "summary", "step_ns"), 200000000);
	CHECK_EQ_U64(vf_sum(&f, "extfrag", "summary", "start_ns"), 1000000000);
	t = vf_table(&f, "extfrag", "timeline");
	CHECK_EQ_U64(t->nrows, 51);
	CHECK_EQ_U64(vf_u(t, 25, "events"), 1);
	CHECK_EQ_U64(vf_u(t, 25, "offset_ns"), 5000000000ULL);
	CHECK_EQ_U64(vf_u(t, 24, "events"), 0);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_tables), KMT_TEST(test_by_comm),
	  KMT_TEST(test_auto_step))
