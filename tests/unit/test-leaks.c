// SPDX-License-Identifier: GPL-2.0
/* The leaks view on hand-written events with known answers. */
#include "analysis/leaks.h"
#include "event/stacks.h"
#include "views-fixture.h"

#define SITE_A 0x100
#define SITE_B 0x200
#define SITE_C 0x300

/*
 * Live at the end (t = 3000):
 *   slab 0xa100  A  32 bytes  since 2500 (allocated over a live object)
 *   slab 0xb000  B  64 bytes  since 1200  dentry
 *   slab 0xb100  B  64 bytes  since 1300  dentry
 *   slab 0xc000  C   8 bytes  since 3000
 *   page 0x100   order 2, 16384 bytes since 1600
 *   page 0x201   the rest of an order-1 block freed at order 0: 4096 bytes
 *                since 1700
 * and not: 0xa000 (freed), 0xdead (allocated before the recording), the
 * failed allocation, page 0x200 (freed).
 */
static void feed(struct vf *f, uint32_t stack)
{
	struct kmt_event ev;

	vf_kmalloc(f, 1000, 0, 1, SITE_A, 0xa000, 10, 16);
	vf_kmalloc(f, 1100, 0, 1, SITE_A, 0xa100, 20, 32);
	kmt_event_init(&ev);
	ev.type = KMT_EV_CACHE_ALLOC;
	ev.ts = 1200;
	ev.pid = 1;
	ev.call_site = SITE_B;
	ev.ptr = 0xb000;
	ev.bytes_req = ev.bytes_alloc = 64;
	ev.cache = vf_str(f, "dentry");
	ev.stack = stack;
	vf_ev(f, &ev);
	ev.ts = 1300;
	ev.ptr = 0xb100;
	vf_ev(f, &ev);
	vf_kfree(f, 1400, 0, 1, 0x999, 0xdead);
	vf_kmalloc(f, 1500, 0, 1, SITE_A, 0, 8, 8);
	vf_page_alloc(f, 1600, 0, 1, 0x100, 2);
	vf_page_alloc(f, 1700, 0, 1, 0x200, 1);
	vf_page_free(f, 1800, 0, 1, 0x200, 0);
	vf_kfree(f, 2000, 1, 2, 0x999, 0xa000);
	vf_kmalloc(f, 2500, 0, 1, SITE_A, 0xa100, 20, 32);
	vf_kmalloc(f, 3000, 0, 1, SITE_C, 0xc000, 8, 8);
}

static void test_totals_and_callsites(void)
{
	struct kmt_leaks_totals t;
	const struct kmt_table *tab;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_leaks);
	feed(&f, 0);
	vf_finish(&f);
	kmt_leaks_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.end_ts, 3000);
	CHECK_EQ_U64(t.objects, 4);
	CHECK_EQ_U64(t.slab_bytes, 168);
	CHECK_EQ_U64(t.pages, 2);
	CHECK_EQ_U64(t.page_bytes, 20480);
	CHECK_EQ_U64(t.with_stack, 0);

	tab = vf_table(&f, "leaks", "callsites");
	CHECK_EQ_U64(tab->nrows, 4);
	/* by bytes: the pages, B, A, C */
	CHECK_STR(vf_s(tab, 0, "kind"), "page");
	CHECK_STR(vf_s(tab, 0, "callsite"), "(unknown)");
	CHECK_EQ_U64(vf_u(tab, 0, "count"), 2);
	CHECK_EQ_U64(vf_u(tab, 0, "bytes"), 20480);
	CHECK_EQ_U64(vf_u(tab, 0, "min_age_ns"), 1300);
	CHECK_EQ_U64(vf_u(tab, 0, "avg_age_ns"), 1350);
	CHECK_EQ_U64(vf_u(tab, 0, "max_age_ns"), 1400);

	CHECK_STR(vf_s(tab, 1, "kind"), "slab");
	CHECK_EQ_U64(vf_u(tab, 1, "address"), SITE_B);
	CHECK_EQ_U64(vf_u(tab, 1, "count"), 2);
	CHECK_EQ_U64(vf_u(tab, 1, "bytes"), 128);
	CHECK_EQ_U64(vf_u(tab, 1, "min_age_ns"), 1700);
	CHECK_EQ_U64(vf_u(tab, 1, "avg_age_ns"), 1750);
	CHECK_EQ_U64(vf_u(tab, 1, "max_age_ns"), 1800);
	CHECK_STR(vf_s(tab, 1, "cache"), "dentry");

	CHECK_EQ_U64(vf_u(tab, 2, "address"), SITE_A);
	CHECK_EQ_U64(vf_u(tab, 2, "count"), 1);
	CHECK_EQ_U64(vf_u(tab, 2, "bytes"), 32);
	CHECK_EQ_U64(vf_u(tab, 2, "min_age_ns"), 500);
	CHECK_EQ_U64(vf_u(tab, 2, "max_age_ns"), 500);
	CHECK_STR(vf_s(tab, 2, "cache"), "kmalloc-32");

	CHECK_EQ_U64(vf_u(tab, 3, "address"), SITE_C);
	CHECK_EQ_U64(vf_u(tab, 3, "bytes"), 8);
	CHECK_EQ_U64(vf_u(tab, 3, "max_age_ns"), 0);
	CHECK_STR(vf_s(tab, 3, "cache"), "kmalloc-8");

	CHECK_EQ_U64(vf_sum(&f, "leaks", "summary", "slab_bytes"), 168);
	CHECK_EQ_U64(vf_sum(&f, "leaks", "summary", "page_bytes"), 20480);
	CHECK_EQ_U64(vf_sum(&f, "leaks", "summary", "end_ts_ns"), 3000);
	vf_renders(&f, "kmalloc-32", "\"max_age_ns\": 1800");
	vf_free(&f);
}

static void test_older_than(void)
{
	struct kmt_leaks_totals t;
	const struct kmt_table *tab;
	struct vf f;

	vf_init(&f);
	f.opts.older_than = 1000;
	vf_create(&f, &kmt_analysis_leaks);
	feed(&f, 0);
	vf_finish(&f);
	kmt_leaks_get_totals(f.ctx, &t);
	/* all outstanding still counted, only the old ones shown */
	CHECK_EQ_U64(t.slab_bytes, 168);
	CHECK_EQ_U64(t.shown_objects, 2);
	CHECK_EQ_U64(t.shown_slab_bytes, 128);
	CHECK_EQ_U64(t.shown_pages, 2);
	CHECK_EQ_U64(t.shown_page_bytes, 20480);
	tab = vf_table(&f, "leaks", "callsites");
	CHECK_EQ_U64(tab->nrows, 2);
	CHECK_EQ_U64(vf_u(tab, 1, "address"), SITE_B);
	CHECK_EQ_U64(vf_sum(&f, "leaks", "summary", "older_slab_bytes"), 128);
	CHECK_EQ_U64(vf_sum(&f, "leaks", "summary", "older_than_ns"), 1000);
	vf_renders(&f, "Shown: alive at least 1.00us", NULL);
	vf_free(&f);
}

/* the --time window: ages run to its end, not to the last event */
static void test_window_end(void)
{
	struct kmt_leaks_totals t;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_leaks);
	feed(&f, 0);
	f.s.last_ts = 9000;	/* the recording went on ... */
	f.s.time_end = 5000;	/* ... past the window */
	vf_finish(&f);
	kmt_leaks_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.end_ts, 5000);
	vf_free(&f);
}

static void test_stacks(void)
{
	const uint64_t ips[] = { 0xf00, SITE_B, 0x999 };
	const struct kmt_table *tab;
	struct kmt_leaks_totals t;
	uint32_t stack;
	struct vf f;

	vf_init(&f);
	stack = kmt_stacks_intern(&f.s.stacks, ips, 3);
	CHECK(stack != 0);
	vf_create(&f, &kmt_analysis_leaks);
	feed(&f, stack);
	vf_finish(&f);
	kmt_leaks_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.with_stack, 2);
	tab = vf_table(&f, "leaks", "stacks");
	CHECK_EQ_U64(tab->nrows, 1);
	CHECK_EQ_U64(vf_u(tab, 0, "count"), 2);
	CHECK_EQ_U64(vf_u(tab, 0, "bytes"), 128);
	/* from the callsite's frame on */
	CHECK_STR(vf_s(tab, 0, "stack"), "0x200 <- 0x999");
	vf_free(&f);
}

static void test_sort_by_age(void)
{
	const struct kmt_table *tab;
	struct vf f;

	vf_init(&f);
	f.opts.sort = "age";
	f.opts.lines = 2;
	vf_create(&f, &kmt_analysis_leaks);
	feed(&f, 0);
	vf_finish(&f);
	tab = vf_table(&f, "leaks", "callsites");
	CHECK_EQ_U64(tab->nrows, 2);
	CHECK_EQ_U64(tab->total_rows, 4);
	CHECK_EQ_U64(vf_u(tab, 0, "address"), SITE_B);
	CHECK_STR(vf_s(tab, 1, "kind"), "page");
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_totals_and_callsites), KMT_TEST(test_older_than),
	  KMT_TEST(test_window_end), KMT_TEST(test_stacks),
	  KMT_TEST(test_sort_by_age))
