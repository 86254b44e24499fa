// SPDX-License-Identifier: GPL-2.0
/* The procs view: Mel Gorman's columns, runs, slab bytes, by pid and comm. */
#include "analysis/procs.h"
#include "views-fixture.h"

#define REFILL (KMT_EVF_HAS_REFILL | KMT_EVF_PERCPU_REFILL)

static void feed(struct vf *f)
{
	vf_comm(f, 1, "bash");
	vf_comm(f, 2, "kswapd0");
	vf_comm(f, 3, "bash");
	vf_page_alloc(f, 100, 0, 1, 0x10, 0);
	vf_page_alloc(f, 110, 0, 1, 0x20, 1);
	/* a refill run of three, broken by an allocation, then one of two */
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, 120, 0, 1, 0x40, 0, 0, REFILL);
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, 121, 0, 1, 0x41, 0, 0, REFILL);
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, 122, 0, 1, 0x42, 0, 0, REFILL);
	vf_page_alloc(f, 123, 0, 1, 0x30, 0);
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, 124, 0, 1, 0x43, 0, 0, REFILL);
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, 125, 0, 1, 0x44, 0, 0, REFILL);
	/* under the zone lock, not a refill */
	vf_page(f, KMT_EV_PAGE_ZONE_LOCKED, 126, 0, 1, 0x45, 3, 0,
		KMT_EVF_HAS_REFILL);
	/* one drain run of four: another process between does not end it */
	vf_page(f, KMT_EV_PCPU_DRAIN, 130, 0, 1, 0x50, 0, 0, 0);
	vf_page_free(f, 131, 1, 2, 0x10, 0);
	vf_page(f, KMT_EV_PCPU_DRAIN, 132, 0, 1, 0x51, 0, 0, 0);
	vf_page(f, KMT_EV_PCPU_DRAIN, 133, 0, 1, 0x52, 0, 0, 0);
	vf_page(f, KMT_EV_PCPU_DRAIN, 134, 0, 1, 0x53, 0, 0, 0);
	/* severe, moderate, not fragmenting */
	vf_extfrag(f, 140, 0, 1, 0, 2, 0, 1, 1, 1);
	vf_extfrag(f, 141, 0, 1, 0, 5, 0, 1, 1, 0);
	vf_extfrag(f, 142, 0, 1, 3, 9, 1, 0, 0, 0);
	vf_kmalloc(f, 150, 0, 1, 0x100, 0xa0, 100, 128);
	vf_kmalloc(f, 151, 0, 1, 0x100, 0xb0, 64, 64);
	vf_page(f, KMT_EV_PAGE_FREE_BATCHED, 160, 1, 2, 0x60, 0, -1, 0);
	vf_kfree(f, 170, 1, 2, 0x200, 0xa0);
	vf_kmalloc(f, 180, 1, 3, 0x100, 0xc0, 32, 32);
}

static void test_columns(void)
{
	const struct kmt_proc_row *p;
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_procs);
	feed(&f);
	vf_finish(&f);

	p = kmt_procs_find(f.ctx, 1);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_U64(p->page_allocs, 3);
		CHECK_EQ_U64(p->page_alloc_bytes, 16384);
		CHECK_EQ_U64(p->zone_locked, 6);
		CHECK_EQ_U64(p->pcpu_refills, 2);
		CHECK_EQ_U64(p->pcpu_drained, 4);
		CHECK_EQ_U64(p->pcpu_drains, 1);
		CHECK_EQ_U64(p->freed_direct, 0);
		CHECK_EQ_U64(p->fallbacks, 3);
		CHECK_EQ_U64(p->fragmenting, 2);
		CHECK_EQ_U64(p->mt_changed, 1);
		CHECK_EQ_U64(p->severe, 1);
		CHECK_EQ_U64(p->moderate, 1);
		CHECK_EQ_U64(p->slab_allocs, 2);
		CHECK_EQ_U64(p->slab_alloc_bytes, 192);
		CHECK_EQ_U64(p->slab_freed_bytes, 0);
		/* what others freed of it leaves its outstanding bytes */
		CHECK_EQ_U64(p->slab_live, 64);
		CHECK_EQ_U64(p->page_live, 12288);
	}
	p = kmt_procs_find(f.ctx, 2);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ_U64(p->freed_direct, 1);
		CHECK_EQ_U64(p->freed_batched, 1);
		CHECK_EQ_U64(p->slab_frees, 1);
		CHECK_EQ_U64(p->slab_freed_bytes, 128);
		CHECK_EQ_U64(p->slab_live, 0);
		CHECK_EQ_U64(p->page_allocs, 0);
	}

	t = vf_table(&f, "procs", "processes");
	CHECK_EQ_U64(t->nrows, 3);
	/* page_allocs, then slab_alloc_bytes */
	CHECK_STR(vf_s(t, 0, "process"), "bash-1");
	CHECK_STR(vf_s(t, 1, "process"), "bash-3");
	CHECK_STR(vf_s(t, 2, "process"), "kswapd0-2");
	CHECK_EQ_U64(vf_u(t, 0, "pid"), 1);
	CHECK_STR(vf_s(t, 2, "comm"), "kswapd0");
	CHECK_EQ_U64(vf_u(t, 0, "page_allocs"), 3);
	CHECK_EQ_U64(vf_u(t, 0, "zone_locked"), 6);
	CHECK_EQ_U64(vf_u(t, 0, "pcpu_drained"), 4);
	CHECK_EQ_U64(vf_u(t, 0, "pcpu_drains"), 1);
	CHECK_EQ_U64(vf_u(t, 0, "pcpu_refills"), 2);
	CHECK_EQ_U64(vf_u(t, 0, "fallbacks"), 3);
	CHECK_EQ_U64(vf_u(t, 0, "fragmenting"), 2);
	CHECK_EQ_U64(vf_u(t, 0, "mt_changed"), 1);
	CHECK_EQ_U64(vf_u(t, 0, "severe"), 1);
	CHECK_EQ_U64(vf_u(t, 0, "moderate"), 1);
	CHECK_EQ_U64(vf_u(t, 0, "slab_alloc_bytes"), 192);
	CHECK_EQ_U64(vf_u(t, 0, "outstanding_bytes"), 64 + 12288);
	CHECK_EQ_U64(vf_u(t, 1, "outstanding_bytes"), 32);
	CHECK_EQ_U64(vf_u(t, 2, "freed_direct"), 1);
	CHECK_EQ_U64(vf_u(t, 2, "freed_batched"), 1);
	CHECK_EQ_U64(vf_u(t, 2, "slab_freed_bytes"), 128);

	CHECK_EQ_U64(vf_sum(&f, "procs", "totals", "processes"), 3);
	CHECK_EQ_U64(vf_sum(&f, "procs", "totals", "page_allocs"), 3);
	CHECK_EQ_U64(vf_sum(&f, "procs", "totals", "freed_direct"), 1);
	CHECK_EQ_U64(vf_sum(&f, "procs", "totals", "slab_alloc_bytes"), 224);
	CHECK_EQ_U64(vf_sum(&f, "procs", "totals", "slab_freed_bytes"), 128);
	CHECK_EQ_U64(vf_sum(&f, "procs", "totals", "slab_outstanding_bytes"),
		     96);
	CHECK_EQ_U64(vf_sum(&f, "procs", "totals", "page_outstanding_bytes"),
		     12288);
	vf_renders(&f, "kswapd0-2", "\"pcpu_refills\": 2");
	vf_free(&f);
}

static void test_by_comm_and_sort(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	f.opts.by_comm = 1;
	f.opts.sort = "freed_direct";
	vf_create(&f, &kmt_analysis_procs);
	feed(&f);
	vf_finish(&f);
	t = vf_table(&f, "procs", "processes");
	CHECK_EQ_U64(t->nrows, 2);
	CHECK_STR(vf_s(t, 0, "process"), "kswapd0");
	CHECK_STR(vf_s(t, 1, "process"), "bash");
	CHECK_EQ_U64(vf_u(t, 1, "slab_alloc_bytes"), 224);
	CHECK_EQ_U64(vf_u(t, 1, "outstanding_bytes"), 96 + 12288);
	CHECK_EQ_U64(vf_u(t, 1, "pcpu_refills"), 2);
	vf_free(&f);
}

/* kernels without percpu_refill: every zone-locked page is a refill */
static void test_old_refill(void)
{
	const struct kmt_proc_row *p;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_procs);
	vf_page(&f, KMT_EV_PAGE_ZONE_LOCKED, 10, 0, 1, 0x40, 0, 0, 0);
	vf_page(&f, KMT_EV_PAGE_ZONE_LOCKED, 11, 0, 1, 0x41, 0, 0, 0);
	vf_page_alloc(&f, 12, 0, 1, 0x40, 0);
	vf_page(&f, KMT_EV_PAGE_ZONE_LOCKED, 13, 0, 1, 0x42, 0, 0, 0);
	vf_finish(&f);
	p = kmt_procs_find(f.ctx, 1);
	CHECK(p && p->pcpu_refills == 2 && p->zone_locked == 3);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_columns), KMT_TEST(test_by_comm_and_sort),
	  KMT_TEST(test_old_refill))
