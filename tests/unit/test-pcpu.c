// SPDX-License-Identifier: GPL-2.0
/* The pcpu view: runs of refills and drains per CPU, and the imbalance. */
#include "analysis/pcpu.h"
#include "views-fixture.h"

#define REFILL (KMT_EVF_HAS_REFILL | KMT_EVF_PERCPU_REFILL)

static void refill(struct vf *f, uint64_t ts, int cpu, uint64_t pfn, int order)
{
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, ts, cpu, 1, pfn, order, 0, REFILL);
}

static void drain(struct vf *f, uint64_t ts, int cpu, uint64_t pfn, int order)
{
	vf_page(f, KMT_EV_PCPU_DRAIN, ts, cpu, 1, pfn, order, 0, 0);
}

static void feed(struct vf *f)
{
	refill(f, 100, 0, 0x10, 0);
	refill(f, 101, 0, 0x11, 0);
	refill(f, 102, 0, 0x12, 0);
	vf_page_alloc(f, 103, 0, 1, 0x400, 0);		/* ends the run */
	refill(f, 104, 0, 0x13, 1);
	refill(f, 105, 0, 0x15, 0);
	drain(f, 110, 1, 0x10, 0);			/* refilled on CPU 0 */
	drain(f, 111, 1, 0x11, 0);
	drain(f, 112, 1, 0x99, 0);			/* refill not seen */
	vf_kmalloc(f, 113, 1, 1, 0x10, 0xa0, 8, 8);	/* ends the run */
	drain(f, 114, 1, 0x13, 1);
	drain(f, 120, 0, 0x15, 0);			/* back where it came */
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, 121, 0, 1, 0x500, 4, 0,
		KMT_EVF_HAS_REFILL);			/* not a refill */
	vf_page_alloc(f, 130, 0, 1, 0x200, 0);
	vf_page_free(f, 131, 1, 2, 0x200, 0);		/* freed elsewhere */
	vf_page_alloc(f, 132, 1, 1, 0x300, 0);
	vf_page_free(f, 133, 1, 1, 0x300, 0);
}

static void test_runs_and_imbalance(void)
{
	const struct kmt_pcpu_row *c0, *c1;
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_pcpu);
	feed(&f);
	vf_finish(&f);
	c0 = kmt_pcpu_cpu(f.ctx, 0);
	c1 = kmt_pcpu_cpu(f.ctx, 1);
	CHECK(c0 && c1);
	if (!c0 || !c1)
		return;
	CHECK_EQ_U64(c0->refill_runs, 2);
	CHECK_EQ_U64(c0->refill_pages, 6);
	CHECK_EQ_U64(c0->drain_runs, 1);
	CHECK_EQ_U64(c0->drain_pages, 1);
	CHECK_EQ_U64(c0->drained_foreign, 0);
	CHECK_EQ_U64(c0->zone_locked, 1);
	CHECK_EQ_U64(c0->page_allocs, 2);
	CHECK_EQ_U64(c1->refill_runs, 0);
	CHECK_EQ_U64(c1->drain_runs, 2);
	CHECK_EQ_U64(c1->drain_pages, 5);
	CHECK_EQ_U64(c1->drained_foreign, 4);
	CHECK_EQ_U64(c1->remote_frees, 1);
	CHECK_EQ_U64(c1->page_frees, 2);
	CHECK_EQ_U64(kmt_pcpu_drained_unseen(f.ctx), 1);

	t = vf_table(&f, "pcpu", "cpus");
	CHECK_EQ_U64(t->nrows, 2);
	CHECK_EQ_U64(vf_u(t, 0, "cpu"), 0);
	CHECK(vf_cell(t, 0, "pages_per_refill")->d == 3.0);
	CHECK(vf_cell(t, 1, "pages_per_drain")->d == 2.5);
	CHECK(vf_cell(t, 0, "net_pages")->s == 5);
	CHECK(vf_cell(t, 1, "net_pages")->s == -5);
	CHECK_EQ_U64(vf_u(t, 1, "drained_foreign"), 4);
	CHECK_EQ_U64(vf_u(t, 1, "remote_frees"), 1);

	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "refills"), 2);
	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "refill_pages"), 6);
	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "drains"), 3);
	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "drain_pages"), 6);
	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "imbalance_pages"), 5);
	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "remote_frees"), 1);
	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "drained_foreign"), 4);
	CHECK_EQ_U64(vf_sum(&f, "pcpu", "summary", "drained_unseen"), 1);
	vf_renders(&f, "Imbalance (pages refilled on one CPU, drained on another): 5/6",
		   "\"pages_per_drain\": 2.5");
	vf_free(&f);
}

/* a CPU with only slab events has no row */
static void test_slab_only_cpu(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_pcpu);
	vf_kmalloc(&f, 10, 3, 1, 0x10, 0xa0, 8, 8);
	vf_page_alloc(&f, 11, 1, 1, 0x10, 0);
	/* a recording without per-CPU list events says "not recorded" */
	drain(&f, 12, 1, 0x20, 0);
	vf_finish(&f);
	t = vf_table(&f, "pcpu", "cpus");
	CHECK_EQ_U64(t->nrows, 1);
	CHECK_EQ_U64(vf_u(t, 0, "cpu"), 1);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_runs_and_imbalance), KMT_TEST(test_slab_only_cpu))
