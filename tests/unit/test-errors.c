// SPDX-License-Identifier: GPL-2.0
/* The errors view: every kind of misuse, once, with known callsites. */
#include "analysis/errors.h"
#include "views-fixture.h"

static void feed_misuse(struct vf *f)
{
	vf_cache_alloc(f, 100, 0, 1, 0x10, 0xa0, 64, 64, "dentry");
	vf_kfree(f, 110, 0, 1, 0x20, 0xa0);			/* kfree of cache obj */
	vf_kmalloc(f, 120, 0, 1, 0x11, 0xb0, 64, 64);
	vf_cache_free(f, 130, 0, 1, 0x21, 0xb0, "kmalloc-64");	/* wrong function */
	vf_cache_alloc(f, 140, 0, 1, 0x12, 0xc0, 64, 64, "dentry");
	vf_cache_free(f, 150, 0, 1, 0x22, 0xc0, "inode_cache");	/* wrong cache */
	vf_cache_alloc(f, 160, 0, 1, 0x13, 0xd0, 64, 64, "filp");
	vf_cache_free(f, 170, 0, 1, 0x23, 0xd0, "filp");
	vf_cache_free(f, 180, 1, 2, 0x24, 0xd0, "filp");	/* double free */
	vf_kfree(f, 190, 0, 1, 0x25, 0xe0);			/* never allocated */
	vf_kmalloc(f, 200, 0, 1, 0x14, 0xf0, 100, 64);		/* alloc < req */
	vf_kmalloc(f, 210, 0, 1, 0x15, 0, 32, 32);		/* failed */
	vf_kmalloc(f, 220, 0, 1, 0x15, 0, 32, 32);		/* failed */
	vf_page_alloc(f, 230, 0, 1, 0x10, 0);
	vf_page_free(f, 240, 0, 1, 0x10, 0);
	vf_page_free(f, 250, 0, 1, 0x10, 0);			/* page twice */
	vf_page_free(f, 260, 0, 1, 0x99, 0);			/* page never seen */
	vf_page_alloc(f, 270, 0, 1, KMT_PFN_NONE, 3);		/* page failed */
	vf_kfree(f, 280, 0, 1, 0x26, 0);			/* kfree(NULL): fine */
	vf_kmalloc(f, 290, 0, 1, 0x16, 0x100, 8, 8);
	vf_kmalloc(f, 300, 0, 1, 0x16, 0x100, 8, 8);		/* free lost */
}

static void test_every_kind(void)
{
	struct kmt_errors_totals t;
	const struct kmt_table *tab;
	struct vf f;
	int i;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_errors);
	feed_misuse(&f);
	vf_finish(&f);
	kmt_errors_get_totals(f.ctx, &t);
	for (i = 0; i < KMT_ERR_NR; i++)
		CHECK_EQ_U64(t.count[i], i == KMT_ERR_FAILED ? 2 : 1);
	CHECK_EQ_U64(t.warmup[0], 0);
	CHECK_EQ_U64(t.free_null, 1);
	CHECK_EQ_U64(t.alloc_over_live, 1);

	tab = vf_table(&f, "errors", "callsites");
	CHECK_EQ_U64(tab->nrows, KMT_ERR_NR);
	/* in the order of the kinds */
	CHECK_STR(vf_s(tab, 0, "kind"), "kfree_of_cache_object");
	CHECK_EQ_U64(vf_u(tab, 0, "address"), 0x20);
	CHECK_EQ_U64(vf_u(tab, 0, "other_address"), 0x10);
	CHECK_STR(vf_s(tab, 0, "other_is"), "alloc");
	CHECK_STR(vf_s(tab, 0, "detail"), "cache dentry");
	CHECK_EQ_U64(vf_u(tab, 0, "first_ts_ns"), 110);
	CHECK_EQ_U64(vf_u(tab, 0, "first_ptr"), 0xa0);

	CHECK_STR(vf_s(tab, 1, "kind"), "cache_free_of_kmalloc_object");
	CHECK_EQ_U64(vf_u(tab, 1, "address"), 0x21);
	CHECK_EQ_U64(vf_u(tab, 1, "other_address"), 0x11);
	CHECK_STR(vf_s(tab, 1, "detail"), "freed to kmalloc-64");

	CHECK_STR(vf_s(tab, 2, "kind"), "cache_mismatch");
	CHECK_EQ_U64(vf_u(tab, 2, "address"), 0x22);
	CHECK_STR(vf_s(tab, 2, "detail"),
		  "allocated from dentry, freed to inode_cache");

	CHECK_STR(vf_s(tab, 3, "kind"), "double_free");
	CHECK_EQ_U64(vf_u(tab, 3, "address"), 0x24);
	CHECK_EQ_U64(vf_u(tab, 3, "other_address"), 0x23);
	CHECK_STR(vf_s(tab, 3, "other_is"), "first free");
	CHECK_EQ_U64(vf_u(tab, 3, "first_ts_ns"), 180);

	CHECK_STR(vf_s(tab, 4, "kind"), "unknown_free");
	CHECK_EQ_U64(vf_u(tab, 4, "address"), 0x25);
	CHECK_STR(vf_s(tab, 4, "other_callsite"), "");
	CHECK_EQ_U64(vf_u(tab, 4, "first_ptr"), 0xe0);

	CHECK_STR(vf_s(tab, 5, "kind"), "page_double_free");
	CHECK_EQ_U64(vf_u(tab, 5, "first_ptr"), 0x10);
	CHECK_EQ_U64(vf_u(tab, 5, "first_ts_ns"), 250);
	CHECK_STR(vf_s(tab, 6, "kind"), "page_unknown_free");
	CHECK_EQ_U64(vf_u(tab, 6, "first_ptr"), 0x99);

	CHECK_STR(vf_s(tab, 7, "kind"), "alloc_below_req");
	CHECK_EQ_U64(vf_u(tab, 7, "address"), 0x14);
	CHECK_STR(vf_s(tab, 8, "kind"), "failed_alloc");
	CHECK_EQ_U64(vf_u(tab, 8, "count"), 2);
	CHECK_EQ_U64(vf_u(tab, 8, "first_ts_ns"), 210);
	CHECK_STR(vf_s(tab, 9, "kind"), "page_failed_alloc");
	CHECK_STR(vf_s(tab, 9, "detail"), "order 3");

	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "double_free"), 1);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "failed_alloc"), 2);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "alloc_over_live"), 1);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "lost_events"), 0);
	vf_renders(&f, "allocated from dentry, freed to inode_cache",
		   "\"kind\": \"page_failed_alloc\"");
	vf_free(&f);
}

/* early frees of unknown pointers are what a recording starts with */
static void test_warmup(void)
{
	struct kmt_errors_totals t;
	struct vf f;

	vf_init(&f);
	f.opts.warmup = 1000;
	vf_create(&f, &kmt_analysis_errors);
	feed_misuse(&f);			/* starts at t = 100 */
	vf_kfree(&f, 1099, 0, 1, 0x27, 0xe8);	/* still warming up */
	vf_kfree(&f, 1100, 0, 1, 0x27, 0xe9);	/* past it */
	vf_finish(&f);
	kmt_errors_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.warmup[0], 2);		/* 0xe0 and 0xe8 */
	CHECK_EQ_U64(t.warmup[1], 1);		/* page 0x99 */
	CHECK_EQ_U64(t.count[KMT_ERR_UNKNOWN_FREE], 1);
	CHECK_EQ_U64(t.count[KMT_ERR_PAGE_UNKNOWN_FREE], 0);
	/* a double free is one whenever it comes */
	CHECK_EQ_U64(t.count[KMT_ERR_DOUBLE_FREE], 1);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "unknown_free_warmup"), 2);
	vf_free(&f);
}

/*
 * The quarantine keeps recent frees only, so memory stays bounded: after
 * four times its slots of other frees, the first is forgotten.
 */
static void test_quarantine_bounded(void)
{
	struct kmt_errors_totals t;
	uint64_t i, n = 4 << 18;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_errors);
	vf_kmalloc(&f, 10, 0, 1, 0x10, 0x5000, 8, 8);
	vf_kfree(&f, 11, 0, 1, 0x20, 0x5000);
	vf_kfree(&f, 12, 0, 1, 0x20, 0x5000);	/* double: still in it */
	for (i = 0; i < n; i++) {
		vf_kmalloc(&f, 20 + 2 * i, 0, 1, 0x10, 0x100000 + 16 * i, 8, 8);
		vf_kfree(&f, 21 + 2 * i, 0, 1, 0x20, 0x100000 + 16 * i);
	}
	vf_kfree(&f, 30 + 2 * n, 0, 1, 0x20, 0x5000);	/* forgotten */
	vf_finish(&f);
	kmt_errors_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.count[KMT_ERR_DOUBLE_FREE], 1);
	CHECK_EQ_U64(t.count[KMT_ERR_UNKNOWN_FREE], 1);
	vf_free(&f);
}

/* with events lost, double and unknown frees are unsure and say so */
static void test_lost_events(void)
{
	const struct kmt_table *tab;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_errors);
	feed_misuse(&f);
	f.s.nr_lost = 5;
	vf_finish(&f);
	tab = vf_table(&f, "errors", "callsites");
	CHECK_STR(vf_s(tab, 3, "detail"), "unsure: events were lost");
	CHECK_STR(vf_s(tab, 6, "detail"), "unsure: events were lost");
	CHECK_STR(vf_s(tab, 0, "detail"), "cache dentry");
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "lost_events"), 5);
	vf_renders(&f, "may be allocations that were lost", NULL);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_every_kind), KMT_TEST(test_warmup),
	  KMT_TEST(test_quarantine_bounded), KMT_TEST(test_lost_events))
