// SPDX-License-Identifier: GPL-2.0
/*
 * The errors view: every kind of misuse, once, with known callsites; and
 * the rules that judge each finding certain, possible or legal.
 */
#include "analysis/errors.h"
#include "util/hash.h"
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

static void kernel(struct vf *f, const char *release)
{
	snprintf(f->s.kernel_release, sizeof(f->s.kernel_release), "%s",
		 release);
}

/* the row of kind, or (size_t)-1 */
static size_t kind_row(const struct kmt_table *tab, const char *kind)
{
	return vf_row(tab, "kind", kind);
}

static const char *class_of(const struct kmt_table *tab, const char *kind)
{
	size_t r = kind_row(tab, kind);

	return r == (size_t)-1 ? "(no row)" : vf_s(tab, r, "class");
}

static void test_every_kind(void)
{
	struct kmt_errors_totals t;
	const struct kmt_table *tab;
	struct vf f;
	size_t r;
	int i;

	vf_init(&f);
	kernel(&f, "5.10.0-28-amd64");	/* kfree of cache objects was misuse */
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
	r = kind_row(tab, "kfree_of_cache_object");
	CHECK_STR(vf_s(tab, r, "class"), "certain");
	CHECK_STR(vf_s(tab, r, "reason"),
		  "kfree() of a kmem_cache_alloc() object before 6.4");
	CHECK_EQ_U64(vf_u(tab, r, "address"), 0x20);
	CHECK_EQ_U64(vf_u(tab, r, "other_address"), 0x10);
	CHECK_STR(vf_s(tab, r, "other_is"), "alloc");
	CHECK_STR(vf_s(tab, r, "detail"), "cache dentry");
	CHECK_EQ_U64(vf_u(tab, r, "first_ts_ns"), 110);
	CHECK_EQ_U64(vf_u(tab, r, "first_ptr"), 0xa0);

	r = kind_row(tab, "cache_free_of_kmalloc_object");
	CHECK_EQ_U64(vf_u(tab, r, "address"), 0x21);
	CHECK_EQ_U64(vf_u(tab, r, "other_address"), 0x11);
	CHECK_STR(vf_s(tab, r, "detail"), "freed to kmalloc-64");

	r = kind_row(tab, "cache_mismatch");
	CHECK_EQ_U64(vf_u(tab, r, "address"), 0x22);
	CHECK_STR(vf_s(tab, r, "detail"),
		  "allocated from dentry, freed to inode_cache");

	r = kind_row(tab, "double_free");
	CHECK_EQ_U64(vf_u(tab, r, "address"), 0x24);
	CHECK_EQ_U64(vf_u(tab, r, "other_address"), 0x23);
	CHECK_STR(vf_s(tab, r, "other_is"), "first free");
	CHECK_STR(vf_s(tab, r, "detail"), "cache filp");
	CHECK_EQ_U64(vf_u(tab, r, "first_ts_ns"), 180);

	r = kind_row(tab, "unknown_free");
	CHECK_EQ_U64(vf_u(tab, r, "address"), 0x25);
	CHECK_STR(vf_s(tab, r, "other_callsite"), "");
	CHECK_EQ_U64(vf_u(tab, r, "first_ptr"), 0xe0);

	r = kind_row(tab, "page_double_free");
	CHECK_EQ_U64(vf_u(tab, r, "first_ptr"), 0x10);
	CHECK_EQ_U64(vf_u(tab, r, "first_ts_ns"), 250);
	r = kind_row(tab, "page_unknown_free");
	CHECK_EQ_U64(vf_u(tab, r, "first_ptr"), 0x99);

	r = kind_row(tab, "alloc_below_req");
	CHECK_EQ_U64(vf_u(tab, r, "address"), 0x14);
	r = kind_row(tab, "failed_alloc");
	CHECK_EQ_U64(vf_u(tab, r, "count"), 2);
	CHECK_EQ_U64(vf_u(tab, r, "first_ts_ns"), 210);
	r = kind_row(tab, "page_failed_alloc");
	CHECK_STR(vf_s(tab, r, "detail"), "order 3");

	/* on 5.10, with nothing lost: misuse, but for what is innocent too */
	for (i = 0; i < (int)tab->nrows; i++) {
		const char *kind = vf_s(tab, (size_t)i, "kind");
		int possible = !strcmp(kind, "page_unknown_free") ||
			       !strcmp(kind, "failed_alloc") ||
			       !strcmp(kind, "page_failed_alloc");

		CHECK_STR(vf_s(tab, (size_t)i, "class"),
			  possible ? "possible" : "certain");
		/* certain findings first */
		if (i < 7)
			CHECK_STR(vf_s(tab, (size_t)i, "class"), "certain");
	}
	CHECK_EQ_U64(t.by_class[KMT_ERR_DOUBLE_FREE][KMT_ERR_CERTAIN], 1);
	CHECK_EQ_U64(t.by_class[KMT_ERR_FAILED][KMT_ERR_POSSIBLE], 2);

	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "double_free"), 1);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "failed_alloc"), 2);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "alloc_over_live"), 1);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "lost_events"), 0);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "certain"), 7);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "possible"), 4);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "legal"), 0);
	tab = vf_table(&f, "errors", "classes");
	CHECK_EQ_U64(tab->nrows, KMT_ERR_NR);
	CHECK_STR(vf_s(tab, 3, "kind"), "double_free");
	CHECK_EQ_U64(vf_u(tab, 3, "certain"), 1);
	CHECK_EQ_U64(vf_u(tab, 8, "possible"), 2);
	vf_renders(&f, "allocated from dentry, freed to inode_cache",
		   "\"class\": \"certain\"");
	vf_free(&f);
}

/* kfree() of a kmem_cache object is legal since 6.4 */
static void test_kfree_by_kernel(void)
{
	static const struct {
		const char *release;
		int all;
		const char *cls;	/* NULL: not listed */
	} cases[] = {
		{ "6.18.44-fc-v657", 0, NULL },
		{ "6.18.44-fc-v657", 1, "legal" },
		{ "6.4.0", 0, NULL },
		{ "6.3.13", 0, "certain" },
		{ "5.10.0", 0, "certain" },
		{ "", 0, "possible" },	/* not said: text input */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct kmt_table *tab;
		struct kmt_errors_totals t;
		struct vf f;

		vf_init(&f);
		kernel(&f, cases[i].release);
		f.opts.all_findings = cases[i].all;
		vf_create(&f, &kmt_analysis_errors);
		vf_cache_alloc(&f, 100, 0, 1, 0x10, 0xa0, 64, 64, "maple_node");
		vf_kfree(&f, 110, 0, 1, 0x20, 0xa0);
		vf_finish(&f);
		tab = vf_table(&f, "errors", "callsites");
		kmt_errors_get_totals(f.ctx, &t);
		CHECK_EQ_U64(t.count[KMT_ERR_CACHE_KFREE], 1);
		if (!cases[i].cls) {
			CHECK_EQ_U64(tab->nrows, 0);
			CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "legal"), 1);
			vf_renders(&f, "Legal on this kernel (--all-findings lists them): 1",
				   NULL);
		} else {
			CHECK_STR(class_of(tab, "kfree_of_cache_object"),
				  cases[i].cls);
		}
		vf_free(&f);
	}
}

/* lost events explain what needs every event, not a kfree on 5.10 */
static void test_lost_events(void)
{
	const struct kmt_table *tab;
	struct vf f;
	size_t r;

	vf_init(&f);
	kernel(&f, "5.10.0");
	vf_create(&f, &kmt_analysis_errors);
	feed_misuse(&f);
	f.s.nr_lost = 5;
	vf_finish(&f);
	tab = vf_table(&f, "errors", "callsites");
	r = kind_row(tab, "double_free");
	CHECK_STR(vf_s(tab, r, "class"), "possible");
	CHECK_STR(vf_s(tab, r, "reason"),
		  "events were lost: what explains it may be among them");
	CHECK_STR(class_of(tab, "unknown_free"), "possible");
	CHECK_STR(class_of(tab, "page_double_free"), "possible");
	CHECK_STR(class_of(tab, "cache_mismatch"), "possible");
	CHECK_STR(class_of(tab, "cache_free_of_kmalloc_object"), "possible");
	CHECK_STR(class_of(tab, "kfree_of_cache_object"), "certain");
	CHECK_STR(class_of(tab, "alloc_below_req"), "certain");
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "lost_events"), 5);
	vf_renders(&f, "may be allocations that were lost", NULL);
	vf_free(&f);
}

/* a kmemtrace recording leaves tasks out, and their interrupts */
static void test_recorder_hides(void)
{
	const struct kmt_table *tab;
	struct vf f;
	size_t r;

	vf_init(&f);
	kernel(&f, "5.10.0");
	snprintf(f.s.recorder, sizeof(f.s.recorder), "kmemtrace 0.1");
	vf_create(&f, &kmt_analysis_errors);
	feed_misuse(&f);
	vf_finish(&f);
	tab = vf_table(&f, "errors", "callsites");
	r = kind_row(tab, "double_free");
	CHECK_STR(vf_s(tab, r, "class"), "possible");
	CHECK(strstr(vf_s(tab, r, "reason"), "recorder leaves out") != NULL);
	CHECK_STR(class_of(tab, "unknown_free"), "possible");
	CHECK_STR(class_of(tab, "page_double_free"), "possible");
	/* what does not need every event stays certain */
	CHECK_STR(class_of(tab, "cache_mismatch"), "certain");
	CHECK_STR(class_of(tab, "kfree_of_cache_object"), "certain");
	vf_free(&f);

	/* trace-cmd hides nothing */
	vf_init(&f);
	kernel(&f, "5.10.0");
	snprintf(f.s.recorder, sizeof(f.s.recorder), "trace-cmd 3.1.6");
	vf_create(&f, &kmt_analysis_errors);
	feed_misuse(&f);
	vf_finish(&f);
	tab = vf_table(&f, "errors", "callsites");
	CHECK_STR(class_of(tab, "double_free"), "certain");
	vf_free(&f);
}

/* sk_buffs come in bulk for the NAPI cache since 5.12, without events */
static void test_bulk_caches(void)
{
	static const struct {
		const char *release, *cache, *cls;
	} cases[] = {
		{ "6.18.0", "skbuff_head_cache", "possible" },
		{ "5.12.0", "skbuff_head_cache", "possible" },
		{ "5.10.0", "skbuff_head_cache", "certain" },
		{ "6.6.0", "maple_node", "possible" },
		{ "6.18.0", "maple_node", "certain" },	/* sheaves: events */
		{ "6.18.0", "filp", "certain" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct kmt_table *tab;
		struct vf f;

		vf_init(&f);
		kernel(&f, cases[i].release);
		vf_create(&f, &kmt_analysis_errors);
		vf_cache_alloc(&f, 100, 0, 1, 0x10, 0xa0, 224, 256,
			       cases[i].cache);
		vf_cache_free(&f, 110, 0, 1, 0x20, 0xa0, cases[i].cache);
		vf_cache_free(&f, 120, 0, 1, 0x21, 0xa0, cases[i].cache);
		vf_finish(&f);
		tab = vf_table(&f, "errors", "callsites");
		CHECK_STR(class_of(tab, "double_free"), cases[i].cls);
		vf_free(&f);
	}
}

/*
 * A free of a pointer never seen is of an object older than the
 * recording when its callsite or cache freed such objects in the
 * warm-up, or when it is freed where things are torn down.
 */
static void test_older_objects(void)
{
	const struct kmt_table *tab;
	struct vf f;
	size_t r;

	vf_init(&f);
	kernel(&f, "6.18.0");
	CHECK(!kmt_symtab_add(&f.s.syms, 0x1000, "put_files_struct.part.0",
			      23, NULL, 0));
	CHECK(!kmt_symtab_add(&f.s.syms, 0x2000, "bogus_free", 10, NULL, 0));
	CHECK(!kmt_symtab_add(&f.s.syms, 0x3000, "old_free", 8, NULL, 0));
	f.opts.warmup = 1000;
	vf_create(&f, &kmt_analysis_errors);
	vf_kfree(&f, 100, 0, 1, 0x3010, 0xa0);		/* warm-up: counted */
	vf_cache_free(&f, 200, 0, 1, 0x2010, 0xa8, "dentry");
	vf_kfree(&f, 2000, 0, 1, 0x3010, 0xb0);		/* its site did before */
	vf_cache_free(&f, 2100, 0, 1, 0x2020, 0xb8, "dentry"); /* its cache did */
	vf_kfree(&f, 2200, 0, 1, 0x1010, 0xc0);		/* teardown */
	vf_kfree(&f, 2300, 0, 1, 0x2030, 0xc8);		/* nothing says older */
	vf_finish(&f);
	tab = vf_table(&f, "errors", "callsites");
	CHECK_EQ_U64(tab->nrows, 4);
	/* certain first */
	CHECK_STR(vf_s(tab, 0, "class"), "certain");
	CHECK_STR(vf_s(tab, 0, "callsite"), "bogus_free+30");
	r = vf_row(tab, "callsite", "old_free+10");
	CHECK_STR(vf_s(tab, r, "class"), "possible");
	CHECK(strstr(vf_s(tab, r, "reason"), "in the warm-up") != NULL);
	r = vf_row(tab, "callsite", "bogus_free+20");
	CHECK_STR(vf_s(tab, r, "class"), "possible");
	r = vf_row(tab, "callsite", "put_files_struct.part.0+10");
	CHECK_STR(vf_s(tab, r, "class"), "possible");
	CHECK(strstr(vf_s(tab, r, "reason"), "torn down") != NULL);
	vf_free(&f);
}

/* 6.18 frees maple nodes through kfree_rcu() sheaves, without events */
static void test_over_live_untraced(void)
{
	struct kmt_errors_totals t;
	struct vf f;

	vf_init(&f);
	kernel(&f, "6.18.0");
	vf_create(&f, &kmt_analysis_errors);
	vf_cache_alloc(&f, 100, 0, 1, 0x10, 0xa0, 256, 256, "maple_node");
	vf_cache_alloc(&f, 110, 0, 1, 0x10, 0xa0, 256, 256, "maple_node");
	vf_cache_alloc(&f, 120, 0, 1, 0x11, 0xb0, 256, 256, "filp");
	vf_cache_alloc(&f, 130, 0, 1, 0x11, 0xb0, 256, 256, "filp");
	vf_finish(&f);
	kmt_errors_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.alloc_over_live, 2);
	CHECK_EQ_U64(t.alloc_over_live_untraced, 1);
	CHECK_EQ_U64(vf_sum(&f, "errors", "summary", "alloc_over_live_untraced"), 1);
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
	/* its callsite freed older objects in the warm-up */
	CHECK_EQ_U64(t.by_class[KMT_ERR_UNKNOWN_FREE][KMT_ERR_POSSIBLE], 1);
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

/*
 * The quarantine starts small and doubles where a free would push out
 * another: it must keep exactly what a table of all 131,072 slots keeps.
 * 40,000 frees, then each address freed again: the double frees found are
 * the addresses a full-size direct-mapped table still holds.
 */
static void test_quarantine_grows_losslessly(void)
{
	enum { FULL = 1 << 17, N = 40000 };
	static uint64_t table[FULL];
	struct kmt_errors_totals t;
	uint64_t i, ts = 10, kept = 0;
	struct vf f;

	vf_init(&f);
	vf_create(&f, &kmt_analysis_errors);
	for (i = 0; i < N; i++) {
		uint64_t ptr = 0x100000 + 64 * i;

		vf_kmalloc(&f, ts++, 0, 1, 0x10, ptr, 8, 8);
		vf_kfree(&f, ts++, 0, 1, 0x20, ptr);
		table[kmt_hash_mix(ptr) & (FULL - 1)] = ptr;
	}
	for (i = 0; i < N; i++) {
		uint64_t ptr = 0x100000 + 64 * i;

		kept += table[kmt_hash_mix(ptr) & (FULL - 1)] == ptr;
	}
	/* the second frees do not disturb the first ones still to be met */
	for (i = N; i-- > 0;)
		vf_kfree(&f, ts++, 0, 1, 0x30, 0x100000 + 64 * i);
	vf_finish(&f);
	kmt_errors_get_totals(f.ctx, &t);
	CHECK(kept > N / 2 && kept < N);
	CHECK_EQ_U64(t.count[KMT_ERR_DOUBLE_FREE], kept);
	vf_free(&f);
}

KMT_TESTS(KMT_TEST(test_every_kind), KMT_TEST(test_kfree_by_kernel),
	  KMT_TEST(test_lost_events), KMT_TEST(test_recorder_hides),
	  KMT_TEST(test_bulk_caches), KMT_TEST(test_older_objects),
	  KMT_TEST(test_over_live_untraced), KMT_TEST(test_warmup),
	  KMT_TEST(test_quarantine_bounded),
	  KMT_TEST(test_quarantine_grows_losslessly))
