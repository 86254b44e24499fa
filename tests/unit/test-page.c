// SPDX-License-Identifier: GPL-2.0
/* The page analysis and the page callsite rule on hand-written events. */
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/page.h"
#include "event/callsite.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "check.h"

/* the value in row r, column c of a table, however it holds its rows */
static union kmt_val cell(const struct kmt_table *t, size_t r, size_t c)
{
	union kmt_val buf[32];

	if (t->ncols > 32 || r >= t->nrows || c >= t->ncols)
		return (union kmt_val){ .str = "(no such cell)" };
	return kmt_table_row(t, r, buf)[c];
}

static void test_callsite_rule(void)
{
	static const char *const allocator[] = {
		"__alloc_pages", "alloc_pages_current", "__alloc_pages_nodemask",
		"__get_free_pages", "get_zeroed_page", "alloc_pages_vma",
		"__alloc_frozen_pages_noprof", "alloc_pages_mpol",
		"alloc_pages_mpol_noprof", "alloc_pages_noprof",
		"folio_alloc_noprof", "__folio_alloc_noprof",
		"vma_alloc_folio_noprof", "get_free_pages_noprof",
		"alloc_pages_bulk_noprof", "get_page_from_freelist",
		"rmqueue_bulk", "__rmqueue_pcplist", "post_alloc_hook",
		"trace_event_raw_event_mm_page_alloc", "perf_trace_mm_page_alloc",
		"__trace_stack", "event_triggers_call", "ftrace_trace_stack",
		"__traceiter_mm_page_alloc",
	};
	static const char *const callers[] = {
		"__page_cache_alloc", "new_slab", "allocate_slab",
		"alloc_slab_page", "pte_alloc_one", "__pollwait",
		"anon_pipe_write", "__filemap_get_folio", "pgd_alloc",
		"do_anonymous_page", "alloc_anon_folio", "filemap_alloc_folio_noprof",
		"kmalloc_large_node_noprof", "__vmalloc_area_node",
	};
	size_t i;

	for (i = 0; i < sizeof(allocator) / sizeof(*allocator); i++) {
		if (!kmt_callsite_is_page_allocator(allocator[i]))
			fprintf(stderr, "not allocator: %s\n", allocator[i]);
		CHECK(kmt_callsite_is_page_allocator(allocator[i]));
	}
	for (i = 0; i < sizeof(callers) / sizeof(*callers); i++) {
		if (kmt_callsite_is_page_allocator(callers[i]))
			fprintf(stderr, "allocator: %s\n", callers[i]);
		CHECK(!kmt_callsite_is_page_allocator(callers[i]));
	}
}

/* a real stack of this kernel: callsite is the first non-allocator frame */
static void test_callsite_from_stack(void)
{
	static const char kallsyms[] =
		"ffffffff8161f700 T __alloc_frozen_pages_noprof\n"
		"ffffffff81658c00 T alloc_pages_mpol\n"
		"ffffffff81658f00 T alloc_pages_noprof\n"
		"ffffffff816c7200 t anon_pipe_write\n"
		"ffffffff816b9500 T vfs_write\n";
	struct kmt_callsite_cache cache;
	struct kmt_session s;
	uint64_t ips[] = {
		0xffffffff8161f78bULL, 0xffffffff81658d16ULL,
		0xffffffff81658fdcULL, 0xffffffff816c7278ULL,
		0xffffffff816b95d8ULL,
	};
	uint64_t only_alloc[] = { 0xffffffff8161f78bULL, 0xffffffff81658d16ULL };
	uint32_t id, id2;
	uint64_t site, off;
	const char *name;

	CHECK(!kmt_session_init(&s));
	CHECK(kmt_symtab_load_kallsyms(&s.syms, kallsyms, strlen(kallsyms)) == 5);
	kmt_callsite_cache_init(&cache);
	id = kmt_stacks_intern(&s.stacks, ips, 5);
	site = kmt_page_callsite(&cache, &s, id);
	CHECK_EQ_U64(site, 0xffffffff816c7278ULL);
	name = kmt_symtab_lookup(&s.syms, site, &off);
	CHECK_STR(name, "anon_pipe_write");
	CHECK_EQ_U64(off, 0x78);
	/* memoised: same answer again */
	CHECK_EQ_U64(kmt_page_callsite(&cache, &s, id), site);
	/* all allocator: the outermost frame */
	id2 = kmt_stacks_intern(&s.stacks, only_alloc, 2);
	CHECK_EQ_U64(kmt_page_callsite(&cache, &s, id2), 0xffffffff81658d16ULL);
	CHECK_EQ_U64(kmt_page_callsite(&cache, &s, 0), 0);
	kmt_callsite_cache_free(&cache);
	kmt_session_free(&s);
}

struct fixture {
	struct kmt_session s;
	struct kmt_report_opts opts;
	void *ctx;
	uint64_t ts;
};

static void setup(struct fixture *f, int live)
{
	CHECK(!kmt_session_init(&f->s));
	strcpy(f->s.kernel_release, "6.18.0");
	f->opts = (struct kmt_report_opts){ .caller = 1, .alloc = 1,
					    .live = live };
	f->ctx = kmt_analysis_page.create(&f->s, &f->opts);
	CHECK(f->ctx != NULL);
	f->ts = 1;
}

static void teardown(struct fixture *f)
{
	kmt_analysis_page.destroy(f->ctx);
	kmt_session_free(&f->s);
}

static void page_ev(struct fixture *f, int type, uint64_t pfn, int order,
		    int mt, uint64_t gfp)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = type;
	ev.ts = f->ts++;
	ev.ptr = pfn;
	ev.order = order;
	ev.migratetype = mt;
	ev.gfp = gfp;
	if (type == KMT_EV_PAGE_ALLOC)
		ev.flags |= KMT_EVF_HAS_GFP;
	ev.cpu = 0;
	CHECK(!kmt_analysis_page.on_event(f->ctx, &ev));
}

static void test_page_totals(void)
{
	struct kmt_page_totals t;
	struct fixture f;

	setup(&f, 0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 100, 0, 0, 0xcc0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 200, 2, 1, 0x140cca);
	page_ev(&f, KMT_EV_PAGE_ALLOC, KMT_PFN_NONE, 3, 0, 0xcc0);	/* failed */
	page_ev(&f, KMT_EV_PAGE_ALLOC, 300, 12, 9, 0);	/* odd order, mt, gfp */
	page_ev(&f, KMT_EV_PAGE_FREE, 100, 0, -1, 0);
	page_ev(&f, KMT_EV_PAGE_FREE, 999, 0, -1, 0);	/* free-only */
	page_ev(&f, KMT_EV_PAGE_FREE, 200, 0, -1, 0);	/* split: 201..203 live */
	page_ev(&f, KMT_EV_PAGE_FREE, 201, 0, -1, 0);
	page_ev(&f, KMT_EV_PAGE_FREE_BATCHED, 201, 0, -1, 0);
	page_ev(&f, KMT_EV_PAGE_ZONE_LOCKED, 5, 0, 1, 0);
	page_ev(&f, KMT_EV_PCPU_DRAIN, 6, 0, 1, 0);
	kmt_page_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.allocs, 4);
	CHECK_EQ_U64(t.alloc_bytes, 4096 * (1 + 4 + 8 + 4096));
	CHECK_EQ_U64(t.fails, 1);
	CHECK_EQ_U64(t.fail_bytes, 4096 * 8);
	CHECK_EQ_U64(t.frees, 4);
	CHECK_EQ_U64(t.free_bytes, 4 * 4096);
	/* perf counts 999 and the split part 201 as unmatched */
	CHECK_EQ_U64(t.nomatch, 2);
	CHECK_EQ_U64(t.free_only, 1);
	CHECK_EQ_U64(t.split_frees, 1);
	CHECK_EQ_U64(t.split_part_frees, 1);
	CHECK_EQ_U64(t.batched_frees, 1);
	CHECK_EQ_U64(t.zone_locked, 1);
	CHECK_EQ_U64(t.pcpu_drains, 1);
	CHECK_EQ_U64(t.unknown_mt, 1);
	CHECK_EQ_U64(t.gfp_zero, 1);
	CHECK_EQ_U64(t.no_stack, 3);
	/* 202, 203 of the split block and the order-12 block */
	CHECK_EQ_U64(t.live_pages, 2 + 4096);
	CHECK_EQ_U64(t.matrix[0][0], 1);
	CHECK_EQ_U64(t.matrix[2][1], 1);
	CHECK_EQ_U64(t.matrix[12][6], 1);
	CHECK(t.max_order == 12);
	teardown(&f);
}

static void test_page_live(void)
{
	struct kmt_page_totals t;
	struct kmt_report r;
	struct kmt_table *callers = NULL, *allocs = NULL;
	struct fixture f;
	size_t i;

	setup(&f, 1);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 100, 0, 0, 0xcc0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 101, 0, 0, 0xcc0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 102, 1, 1, 0xcc0);
	page_ev(&f, KMT_EV_PAGE_FREE, 101, 0, -1, 0);
	kmt_page_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.matrix[0][0], 1);	/* live mode counts down */
	CHECK_EQ_U64(t.matrix[1][1], 1);
	kmt_report_init(&r);
	CHECK(!kmt_analysis_page.finish(f.ctx, &r));
	for (i = 0; i < r.nr; i++) {
		if (r.sections[i]->kind != KMT_SEC_TABLE)
			continue;
		if (!callers)
			callers = &r.sections[i]->table;
		else if (!allocs)
			allocs = &r.sections[i]->table;
	}
	CHECK(callers && allocs);
	if (callers && allocs) {
		/* bytes,hit: the order-1 row (8 KB) first, then 1 live page */
		CHECK_EQ_U64(callers->nrows, 2);
		CHECK_EQ_U64(cell(callers, 0, 0).u, 8);
		CHECK_EQ_U64(cell(callers, 1, 0).u, 4);
		CHECK_EQ_U64(cell(callers, 1, 1).u, 1);
		CHECK_STR(cell(callers, 0, 3).str, "MOVABLE");
		CHECK_EQ_U64(allocs->nrows, 2);
	}
	kmt_report_free(&r);
	teardown(&f);
}

/*
 * --alloc: a page's rows by class (order, migratetype, gfp), hits and
 * frees charged to the row of the block that was live, lost frees and
 * split blocks among them.
 */
static void test_page_alloc_rows(void)
{
	struct kmt_page_totals t;
	struct kmt_report r;
	const struct kmt_section *sec;
	const struct kmt_table *allocs;
	struct fixture f;
	size_t i;

	setup(&f, 0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 100, 0, 0, 0xcc0);	/* A */
	page_ev(&f, KMT_EV_PAGE_FREE, 100, 0, -1, 0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 100, 1, 1, 0x140cca);	/* B */
	page_ev(&f, KMT_EV_PAGE_FREE, 100, 1, -1, 0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 100, 0, 0, 0xcc0);	/* A again */
	page_ev(&f, KMT_EV_PAGE_ALLOC, 100, 0, 0, 0xcc0);	/* free lost */
	page_ev(&f, KMT_EV_PAGE_FREE, 100, 0, -1, 0);
	page_ev(&f, KMT_EV_PAGE_FREE, 100, 0, -1, 0);		/* not live */
	page_ev(&f, KMT_EV_PAGE_ALLOC, 200, 2, 1, 0xcc0);	/* C */
	page_ev(&f, KMT_EV_PAGE_FREE, 200, 0, -1, 0);		/* split */
	page_ev(&f, KMT_EV_PAGE_FREE, 201, 0, -1, 0);		/* its part */
	page_ev(&f, KMT_EV_PAGE_ALLOC, 202, 1, 1, 0x140cca);	/* over a part */
	kmt_page_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.alloc_over_live, 2);
	CHECK_EQ_U64(t.free_only, 1);
	CHECK_EQ_U64(t.split_frees, 1);
	CHECK_EQ_U64(t.split_part_frees, 1);
	/* 203 of the split block, 202-203 of the last one (over 202) */
	CHECK_EQ_U64(t.live_pages, 1 + 2);

	kmt_report_init(&r);
	CHECK(!kmt_analysis_page.finish(f.ctx, &r));
	sec = kmt_report_section(&r, "page", "allocs");
	allocs = sec && sec->kind == KMT_SEC_TABLE ? &sec->table : NULL;
	CHECK(allocs != NULL);
	if (allocs) {
		static const uint64_t want[][5] = {
			/* pfn, KB, hits, order, frees; by bytes, hits */
			{ 200, 16, 1, 2, 1 },
			{ 100, 12, 3, 0, 2 },
			{ 100, 8, 1, 1, 1 },
			{ 202, 8, 1, 1, 0 },
		};

		CHECK_EQ_U64(allocs->nrows, 4);
		for (i = 0; i < allocs->nrows && i < 4; i++) {
			CHECK_EQ_U64(cell(allocs, i, 0).u, want[i][0]);
			CHECK_EQ_U64(cell(allocs, i, 1).u, want[i][1]);
			CHECK_EQ_U64(cell(allocs, i, 2).u, want[i][2]);
			CHECK_EQ_U64(cell(allocs, i, 3).s, want[i][3]);
			CHECK_EQ_U64(cell(allocs, i, 8).u, want[i][4]);
		}
		CHECK_STR(cell(allocs, 2, 4).str, "MOVABLE");
	}
	kmt_report_free(&r);
	teardown(&f);
}

/*
 * The report's two threads draw the rows of one page table at once: once
 * the report is made, drawing its rows must change nothing (no names
 * made and memorised on first sight, as they were).
 */
static void test_page_rows_read_only(void)
{
	struct kmt_report r;
	struct fixture f;
	size_t i, k, c, arena, memo;
	int tables = 0;

	setup(&f, 0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 100, 0, 0, 0xcc0);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 300, 1, 1, 0x140cca);
	page_ev(&f, KMT_EV_PAGE_ALLOC, 500, 2, 7, 0xcc0);
	page_ev(&f, KMT_EV_PAGE_FREE, 100, 0, -1, 0);
	kmt_report_init(&r);
	CHECK(!kmt_analysis_page.finish(f.ctx, &r));
	arena = r.arena.total;
	memo = kmt_report_texts_count(&r.sym_memo[0]) +
	       kmt_report_texts_count(&r.sym_memo[1]);
	for (i = 0; i < r.nr; i++) {
		const struct kmt_table *t = &r.sections[i]->table;

		if (r.sections[i]->kind != KMT_SEC_TABLE)
			continue;
		tables++;
		for (k = 0; k < t->nrows; k++) {
			for (c = 0; c < t->ncols; c++)
				(void)cell(t, k, c);
		}
	}
	/* callsites, pages, and the order by migratetype counts */
	CHECK_EQ_U64(tables, 3);
	CHECK_EQ_U64(r.arena.total, arena);
	CHECK_EQ_U64(kmt_report_texts_count(&r.sym_memo[0]) +
		     kmt_report_texts_count(&r.sym_memo[1]), memo);
	CHECK(memo > 0);
	kmt_report_free(&r);
	teardown(&f);
}

/* a damaged recording's split is counted, its 2^40 parts not tracked */
static void test_page_split_of_damaged_order(void)
{
	struct kmt_page_totals t;
	int alloc;

	for (alloc = 0; alloc < 2; alloc++) {
		struct fixture f;

		setup(&f, 0);
		f.opts.alloc = alloc;
		kmt_analysis_page.destroy(f.ctx);
		f.ctx = kmt_analysis_page.create(&f.s, &f.opts);
		page_ev(&f, KMT_EV_PAGE_ALLOC, 0x500, 40, 0, 0xcc0);
		page_ev(&f, KMT_EV_PAGE_FREE, 0x500, 0, -1, 0);
		page_ev(&f, KMT_EV_PAGE_FREE, 0x501, 0, -1, 0);
		kmt_page_get_totals(f.ctx, &t);
		CHECK_EQ_U64(t.split_frees, 1);
		CHECK_EQ_U64(t.odd_order, 0);
		CHECK_EQ_U64(t.free_only, 1);
		teardown(&f);
	}
}

static void test_migratetype_names_by_kernel(void)
{
	struct kmt_session s;

	CHECK(!kmt_session_init(&s));
	CHECK_STR(kmt_session_migratetype_name(&s, 1), "MOVABLE");
	strcpy(s.kernel_release, "4.3.0");
	CHECK_STR(kmt_session_migratetype_name(&s, 1), "RECLAIMABLE");
	CHECK_STR(kmt_session_migratetype_name(&s, 3), "RESERVE");
	strcpy(s.kernel_release, "4.4.0");
	CHECK_STR(kmt_session_migratetype_name(&s, 3), "HIGHATOMIC");
	CHECK(kmt_session_migratetype_name(&s, 17) == NULL);
	kmt_session_free(&s);
}

KMT_TESTS(KMT_TEST(test_callsite_rule), KMT_TEST(test_callsite_from_stack),
	  KMT_TEST(test_page_totals), KMT_TEST(test_page_live),
	  KMT_TEST(test_page_alloc_rows),
	  KMT_TEST(test_page_rows_read_only),
	  KMT_TEST(test_page_split_of_damaged_order),
	  KMT_TEST(test_migratetype_names_by_kernel))
