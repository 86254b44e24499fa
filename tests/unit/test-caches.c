// SPDX-License-Identifier: GPL-2.0
/* The caches view: named caches, kmalloc size classes, outstanding. */
#include "analysis/caches.h"
#include "views-fixture.h"

static void feed(struct vf *f)
{
	struct kmt_event ev;

	vf_cache_alloc(f, 10, 0, 1, 0x10, 0xa0, 192, 192, "dentry");
	vf_cache_alloc(f, 11, 0, 1, 0x10, 0xa1, 192, 192, "dentry");
	vf_cache_free(f, 12, 0, 1, 0x20, 0xa0, "dentry");
	vf_kmalloc(f, 13, 0, 1, 0x11, 0xb0, 50, 64);
	kmt_event_init(&ev);			/* memcg accounted */
	ev.type = KMT_EV_KMALLOC;
	ev.ts = 14;
	ev.pid = 1;
	ev.call_site = 0x12;
	ev.ptr = 0xb1;
	ev.bytes_req = 60;
	ev.bytes_alloc = 64;
	ev.flags = KMT_EVF_ACCOUNTED;
	vf_ev(f, &ev);
	vf_kfree(f, 15, 0, 1, 0x21, 0xb0);
	vf_kmalloc(f, 16, 0, 1, 0x13, 0xc0, 9000, 12288);	/* pages */
	vf_kmalloc(f, 17, 0, 1, 0x14, 0xd0, 1000, 1024);
	vf_cache_free(f, 18, 0, 1, 0x22, 0xe0, "filp");	/* not seen */
	vf_kfree(f, 19, 0, 1, 0x23, 0xe1);			/* not seen */
	vf_kmalloc(f, 20, 0, 1, 0x15, 0, 32, 32);		/* failed */
	vf_cache_alloc(f, 21, 0, 1, 0x10, 0xa1, 192, 192, "dentry"); /* over */
}

static void test_caches(void)
{
	const struct kmt_cache_row *row;
	const struct kmt_table *t;
	struct vf f;
	uint32_t dentry;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_caches);
	feed(&f);
	dentry = vf_str(&f, "dentry");
	row = kmt_caches_find(f.ctx, dentry, 0, 0);
	CHECK(row != NULL);
	if (row) {
		CHECK_EQ_U64(row->objects, 3);
		CHECK_EQ_U64(row->bytes, 576);
		CHECK_EQ_U64(row->frees, 1);
		CHECK_EQ_U64(row->live, 1);
		CHECK_EQ_U64(row->live_bytes, 192);
	}
	row = kmt_caches_find(f.ctx, 0, 64, 1);
	CHECK(row && row->objects == 1 && row->requested == 60 &&
	      row->live == 1);
	row = kmt_caches_find(f.ctx, 0, 64, 0);
	CHECK(row && row->frees == 1 && row->live == 0);
	vf_finish(&f);

	t = vf_table(&f, "caches", "caches");
	CHECK_EQ_U64(t->nrows, 7);
	CHECK_STR(vf_s(t, 0, "cache"), "kmalloc-large");
	CHECK_EQ_U64(vf_u(t, 0, "bytes"), 12288);
	CHECK_EQ_U64(vf_u(t, 0, "requested"), 9000);
	CHECK_EQ_U64(vf_u(t, 0, "waste"), 3288);
	CHECK_STR(vf_s(t, 1, "cache"), "kmalloc-1k");
	CHECK_STR(vf_s(t, 2, "cache"), "dentry");
	CHECK_STR(vf_s(t, 2, "from"), "event");
	CHECK_EQ_U64(vf_u(t, 2, "objects"), 3);
	CHECK_EQ_U64(vf_u(t, 2, "object_size"), 192);
	CHECK_EQ_U64(vf_u(t, 2, "frees"), 1);
	CHECK_EQ_U64(vf_u(t, 2, "live_objects"), 1);
	CHECK_EQ_U64(vf_u(t, 2, "live_bytes"), 192);
	CHECK_STR(vf_s(t, 3, "cache"), "kmalloc-64");
	CHECK_STR(vf_s(t, 3, "from"), "kmalloc size");
	CHECK_EQ_U64(vf_u(t, 3, "waste"), 14);
	CHECK(vf_cell(t, 3, "waste_pct")->d > 21.87 &&
	      vf_cell(t, 3, "waste_pct")->d < 21.88);
	CHECK_STR(vf_s(t, 4, "cache"), "kmalloc-cg-64");
	CHECK_STR(vf_s(t, 5, "cache"), "kmalloc-32");
	CHECK_EQ_U64(vf_u(t, 5, "failed"), 1);
	CHECK_EQ_U64(vf_u(t, 5, "live_objects"), 0);
	CHECK_STR(vf_s(t, 6, "cache"), "filp");
	CHECK_EQ_U64(vf_u(t, 6, "objects"), 0);
	CHECK_EQ_U64(vf_u(t, 6, "free_only"), 1);

	CHECK_EQ_U64(vf_sum(&f, "caches", "summary", "caches"), 7);
	CHECK_EQ_U64(vf_sum(&f, "caches", "summary", "objects"), 8);
	CHECK_EQ_U64(vf_sum(&f, "caches", "summary", "bytes"), 14048);
	CHECK_EQ_U64(vf_sum(&f, "caches", "summary", "frees"), 2);
	CHECK_EQ_U64(vf_sum(&f, "caches", "summary", "live_objects"), 4);
	CHECK_EQ_U64(vf_sum(&f, "caches", "summary", "live_bytes"), 13568);
	CHECK_EQ_U64(vf_sum(&f, "caches", "summary", "kfree_unknown"), 1);
	vf_renders(&f, "kmalloc-cg-64", "\"cache\": \"kmalloc-large\"");
	vf_free(&f);
}

static void test_sort_objects(void)
{
	const struct kmt_table *t;
	struct vf f;

	vf_init(&f);
	f.opts.sort = "objects";
	vf_create(&f, &kmt_analysis_caches);
	feed(&f);
	vf_finish(&f);
	t = vf_table(&f, "caches", "caches");
	CHECK_STR(vf_s(t, 0, "cache"), "dentry");
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_caches), KMT_TEST(test_sort_objects))
