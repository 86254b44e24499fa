// SPDX-License-Identifier: GPL-2.0
/* The slab analysis on hand-written events with known answers. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/slab.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "check.h"

struct fixture {
	struct kmt_session s;
	struct kmt_report_opts opts;
	void *ctx;
	uint64_t ts;
};

static void setup(struct fixture *f, int alloc)
{
	CHECK(!kmt_session_init(&f->s));
	f->opts = (struct kmt_report_opts){ .caller = 1, .alloc = alloc };
	f->ctx = kmt_analysis_slab.create(&f->s, &f->opts);
	CHECK(f->ctx != NULL);
	f->ts = 1000;
}

static void teardown(struct fixture *f)
{
	kmt_analysis_slab.destroy(f->ctx);
	kmt_session_free(&f->s);
}

static void ev_alloc(struct fixture *f, int type, uint64_t site, uint64_t ptr,
		     uint64_t req, uint64_t alloc, int cpu, int node)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = type;
	ev.ts = f->ts++;
	ev.call_site = site;
	ev.ptr = ptr;
	ev.bytes_req = req;
	ev.bytes_alloc = alloc;
	ev.cpu = cpu;
	ev.node = node;
	CHECK(!kmt_analysis_slab.on_event(f->ctx, &ev));
}

static void ev_free(struct fixture *f, int type, uint64_t ptr, int cpu)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = type;
	ev.ts = f->ts++;
	ev.call_site = 0xffffffff81000000ULL;
	ev.ptr = ptr;
	ev.cpu = cpu;
	CHECK(!kmt_analysis_slab.on_event(f->ctx, &ev));
}

/* the value in row r, column c of a table, however it holds its rows */
static union kmt_val cell(const struct kmt_table *t, size_t r, size_t c)
{
	union kmt_val buf[32];

	if (t->ncols > 32 || r >= t->nrows || c >= t->ncols)
		return (union kmt_val){ .str = "(no such cell)" };
	return kmt_table_row(t, r, buf)[c];
}

static void totals(int alloc)
{
	struct kmt_slab_totals t;
	struct fixture f;

	setup(&f, alloc);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa000, 10, 16, 0, -1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa100, 20, 32, 0, -1);
	ev_alloc(&f, KMT_EV_CACHE_ALLOC, 0x20, 0xb000, 64, 64, 1, 0);
	ev_free(&f, KMT_EV_KFREE, 0xa000, 0);		/* same CPU */
	ev_free(&f, KMT_EV_CACHE_FREE, 0xb000, 0);	/* cross CPU */
	ev_free(&f, KMT_EV_KFREE, 0xdead, 1);		/* free-only */
	ev_free(&f, KMT_EV_KFREE, 0, 1);		/* kfree(NULL) */
	ev_alloc(&f, KMT_EV_KMALLOC, 0x30, 0, 8, 8, 0, -1); /* failed */
	kmt_slab_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.nr_allocs, 4);
	CHECK_EQ_U64(t.nr_kmalloc, 3);
	CHECK_EQ_U64(t.nr_cache_alloc, 1);
	CHECK_EQ_U64(t.requested, 102);
	CHECK_EQ_U64(t.allocated, 120);
	CHECK_EQ_U64(t.freed, 80);
	CHECK_EQ_U64(t.frees_matched, 2);
	CHECK_EQ_U64(t.nr_kfree, 3);
	CHECK_EQ_U64(t.nr_cache_free, 1);
	CHECK_EQ_U64(t.free_only, 1);
	CHECK_EQ_U64(t.free_null, 1);
	CHECK_EQ_U64(t.failed, 1);
	CHECK_EQ_U64(t.cross_cpu_frees, 1);
	/*
	 * node 0 asked on CPU 1, but no CPU-to-node map: nothing counted
	 * against a guessed node 0
	 */
	CHECK_EQ_U64(t.cross_node, 0);
	CHECK_EQ_U64(t.live, 1);
	CHECK_EQ_U64(t.live_bytes, 32);
	teardown(&f);
}

/* with --alloc, live state lives in the pointer table: the same answers */
static void test_totals(void)
{
	totals(0);
	totals(1);
}

/* the summary's item called key */
static const struct kmt_sum_item *sum_item(const struct kmt_report *r,
					   const char *key)
{
	const struct kmt_section *sec = kmt_report_section(r, "slab",
							   "summary");
	size_t i;

	for (i = 0; sec && i < sec->summary.nr; i++) {
		if (sec->summary.items[i].key &&
		    !strcmp(sec->summary.items[i].key, key))
			return &sec->summary.items[i];
	}
	return NULL;
}

static void test_cross_node_uses_cpu_topology(void)
{
	const struct kmt_sum_item *it;
	struct kmt_slab_totals t;
	struct kmt_report r;
	struct fixture f;

	setup(&f, 0);
	/* node 0: CPU 0; node 1: CPU 1; CPU 2 on none */
	CHECK(!kmt_session_set_node_cpus(&f.s, 0, "0", 1));
	CHECK(!kmt_session_set_node_cpus(&f.s, 1, "1", 1));
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa000, 8, 8, 1, 0);	/* remote */
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa100, 8, 8, 1, 1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa200, 8, 8, 0, -1);
	ev_alloc(&f, KMT_EV_CACHE_ALLOC, 0x10, 0xa300, 8, 8, 0, 1); /* remote */
	ev_alloc(&f, KMT_EV_CACHE_ALLOC, 0x10, 0xa400, 8, 8, 0, 0);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa500, 8, 8, 2, 0);	/* no node */
	kmt_slab_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.cross_node, 2);
	kmt_report_init(&r);
	CHECK(!kmt_analysis_slab.finish(f.ctx, &r));
	it = sum_item(&r, "cross_node_allocations");
	CHECK(it && !it->missing && it->v.u == 2 && it->v2.u == 6);
	kmt_report_free(&r);
	teardown(&f);
}

/* no CPU-to-node map: the figure is not recorded, never 0 or a guess */
static void test_cross_node_not_recorded(void)
{
	const struct kmt_sum_item *it;
	struct kmt_report r;
	struct fixture f;

	setup(&f, 0);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa000, 8, 8, 1, 1);
	kmt_report_init(&r);
	CHECK(!kmt_analysis_slab.finish(f.ctx, &r));
	it = sum_item(&r, "cross_node_allocations");
	CHECK(it && it->missing && it->missing->known &&
	      it->missing->what && it->v.u == 0);
	kmt_report_free(&r);
	teardown(&f);
}

static void misuse_and_lost_free(int alloc)
{
	struct kmt_slab_totals t;
	struct fixture f;

	setup(&f, alloc);
	ev_alloc(&f, KMT_EV_CACHE_ALLOC, 0x10, 0xa000, 8, 8, 0, -1);
	ev_free(&f, KMT_EV_KFREE, 0xa000, 0);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa100, 8, 8, 0, -1);
	ev_free(&f, KMT_EV_CACHE_FREE, 0xa100, 0);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa200, 8, 8, 0, -1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x20, 0xa200, 16, 16, 0, -1);
	ev_free(&f, KMT_EV_KFREE, 0xa100, 0);		/* double free */
	kmt_slab_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.cache_obj_kfreed, 1);
	CHECK_EQ_U64(t.kmalloc_obj_cache_freed, 1);
	CHECK_EQ_U64(t.alloc_over_live, 1);
	CHECK_EQ_U64(t.live, 1);
	CHECK_EQ_U64(t.live_bytes, 16);
	CHECK_EQ_U64(t.free_only, 1);
	teardown(&f);
}

/* the misuse counts, with and without --alloc */
static void test_misuse_and_lost_free(void)
{
	misuse_and_lost_free(0);
	misuse_and_lost_free(1);
}

/* the tables: rows, order by the default keys, per-hit figures */
static void test_tables(void)
{
	struct kmt_report r;
	struct kmt_table *callers = NULL, *allocs = NULL;
	struct fixture f;
	size_t i;

	setup(&f, 1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa000, 10, 16, 0, -1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa100, 10, 16, 0, -1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x20, 0xb000, 30, 32, 0, -1);
	ev_free(&f, KMT_EV_KFREE, 0xa000, 1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x20, 0xa000, 32, 32, 0, -1);
	kmt_report_init(&r);
	CHECK(!kmt_analysis_slab.finish(f.ctx, &r));
	for (i = 0; i < r.nr; i++) {
		if (r.sections[i]->kind != KMT_SEC_TABLE)
			continue;
		if (!callers)
			callers = &r.sections[i]->table;
		else
			allocs = &r.sections[i]->table;
	}
	CHECK(callers && allocs);
	if (callers && allocs) {
		/* frag: 0x10 37.5%, 0x20 3.125% */
		CHECK_EQ_U64(callers->nrows, 2);
		CHECK_STR(cell(callers, 0, 0).str, "0x10");
		CHECK_EQ_U64(cell(callers, 0, 1).u, 32);
		CHECK_EQ_U64(cell(callers, 0, 2).u, 16);
		CHECK_EQ_U64(cell(callers, 0, 5).u, 2);
		CHECK_EQ_U64(cell(callers, 0, 6).u, 1);	/* ping-pong */
		CHECK(cell(callers, 0, 7).d > 37.49 &&
		      cell(callers, 0, 7).d < 37.51);
		CHECK_STR(cell(callers, 1, 0).str, "0x20");
		/* 0xa000 held two allocations: 16 + 32 bytes */
		CHECK_EQ_U64(allocs->nrows, 3);
		CHECK_EQ_U64(cell(allocs, 0, 0).u, 0xa100);
		CHECK_EQ_U64(cell(allocs, 1, 0).u, 0xa000);
		CHECK_EQ_U64(cell(allocs, 1, 1).u, 48);
		CHECK_EQ_U64(cell(allocs, 1, 5).u, 2);
	}
	kmt_report_free(&r);
	teardown(&f);
}

/*
 * --alloc keeps a pointer's live state packed beside its totals: the
 * CPU (a negative one too) still tells ping-pong, the type still tells
 * kfree of a cache object, and byte totals saturate instead of wrapping.
 */
static void test_alloc_packed_state(void)
{
	struct kmt_slab_totals t;
	struct kmt_report r;
	const struct kmt_section *sec;
	const struct kmt_table *allocs;
	struct fixture f;

	setup(&f, 1);
	ev_alloc(&f, KMT_EV_CACHE_ALLOC, 0x10, 0xa000, 64, 64, -1, -1);
	ev_free(&f, KMT_EV_KFREE, 0xa000, -1);		/* same CPU */
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa000, 64, 64, 4095, -1);
	ev_free(&f, KMT_EV_CACHE_FREE, 0xa000, 4094);	/* other CPU */
	ev_alloc(&f, KMT_EV_KMALLOC, 0x20, 0xb000, 1ULL << 47, 1ULL << 47,
		 0, -1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x20, 0xb000, 1ULL << 47, 1ULL << 47,
		 0, -1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x20, 0xb000, 5, 8, 0, -1);
	kmt_slab_get_totals(f.ctx, &t);
	CHECK_EQ_U64(t.cross_cpu_frees, 1);
	CHECK_EQ_U64(t.cache_obj_kfreed, 1);
	CHECK_EQ_U64(t.kmalloc_obj_cache_freed, 1);
	CHECK_EQ_U64(t.alloc_over_live, 2);
	CHECK_EQ_U64(t.live, 1);
	CHECK_EQ_U64(t.live_bytes, 8);
	kmt_report_init(&r);
	CHECK(!kmt_analysis_slab.finish(f.ctx, &r));
	sec = kmt_report_section(&r, "slab", "allocs");
	allocs = sec && sec->kind == KMT_SEC_TABLE ? &sec->table : NULL;
	CHECK(allocs != NULL);
	if (allocs) {
		CHECK_EQ_U64(allocs->nrows, 2);
		/* frag,hit,bytes: 0xb000 (37.5% of its last 8 bytes) first */
		CHECK_EQ_U64(cell(allocs, 0, 0).u, 0xb000);
		CHECK_EQ_U64(cell(allocs, 0, 1).u, (1ULL << 48) - 1);
		CHECK_EQ_U64(cell(allocs, 0, 5).u, 3);
		CHECK_EQ_U64(cell(allocs, 1, 0).u, 0xa000);
		CHECK_EQ_U64(cell(allocs, 1, 1).u, 128);
		CHECK_EQ_U64(cell(allocs, 1, 6).u, 1);	/* ping-pong */
	}
	kmt_report_free(&r);
	teardown(&f);
}

static void test_sort_and_limit(void)
{
	struct kmt_report r;
	struct kmt_table *t = NULL;
	struct fixture f;
	size_t i;

	CHECK(!kmt_session_init(&f.s));
	f.opts = (struct kmt_report_opts){ .caller = 1, .lines = 2,
					   .sort = "hit,callsite" };
	f.ctx = kmt_analysis_slab.create(&f.s, &f.opts);
	f.ts = 1;
	for (i = 1; i <= 5; i++) {
		size_t k;

		for (k = 0; k < (i == 3 ? 1 : 2); k++)
			ev_alloc(&f, KMT_EV_KMALLOC, 0x100 * i,
				 0x10000 * i + k * 64, 8, 8, 0, -1);
	}
	kmt_report_init(&r);
	CHECK(!kmt_analysis_slab.finish(f.ctx, &r));
	for (i = 0; i < r.nr; i++)
		if (r.sections[i]->kind == KMT_SEC_TABLE)
			t = &r.sections[i]->table;
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_U64(t->nrows, 2);
		CHECK_EQ_U64(t->total_rows, 5);
		/* hit 2 for 0x100,0x200,0x400,0x500; callsite larger first */
		CHECK_STR(cell(t, 0, 0).str, "0x500");
		CHECK_STR(cell(t, 1, 0).str, "0x400");
	}
	kmt_report_free(&r);
	teardown(&f);
}

/*
 * The report's two threads draw the rows of one slab table at once: once
 * the report is made, drawing its rows must change nothing (no names
 * made and memorised on first sight, as they were), with the callsites
 * named all the same.
 */
static void test_slab_rows_read_only(void)
{
	static const char *const sites[] = { "0x10", "0x20", "0x30" };
	struct kmt_report r;
	struct fixture f;
	size_t i, k, c, arena, memo;
	int tables = 0;

	setup(&f, 1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x10, 0xa000, 10, 16, 0, -1);
	ev_alloc(&f, KMT_EV_CACHE_ALLOC, 0x20, 0xb000, 64, 64, 1, -1);
	ev_alloc(&f, KMT_EV_KMALLOC, 0x30, 0xc000, 100, 128, 0, -1);
	ev_free(&f, KMT_EV_KFREE, 0xa000, 1);
	kmt_report_init(&r);
	CHECK(!kmt_analysis_slab.finish(f.ctx, &r));
	arena = r.arena.total;
	memo = kmt_report_texts_count(&r.sym_memo[0]) +
	       kmt_report_texts_count(&r.sym_memo[1]);
	for (i = 0; i < r.nr; i++) {
		const struct kmt_table *t = &r.sections[i]->table;
		/* the callsite's column: the first, or the last by pointer */
		size_t site_col = i ? t->ncols - 1 : 0;

		if (r.sections[i]->kind != KMT_SEC_TABLE)
			continue;
		tables++;
		CHECK_EQ_U64(t->nrows, 3);
		for (k = 0; k < t->nrows; k++) {
			const char *name = cell(t, k, site_col).str;
			int known = 0;

			for (c = 0; c < t->ncols; c++)
				(void)cell(t, k, c);
			for (c = 0; c < 3; c++)
				known |= name && !strcmp(name, sites[c]);
			CHECK(known);
		}
	}
	CHECK_EQ_U64(tables, 2);
	CHECK_EQ_U64(r.arena.total, arena);
	CHECK_EQ_U64(kmt_report_texts_count(&r.sym_memo[0]) +
		     kmt_report_texts_count(&r.sym_memo[1]), memo);
	CHECK_EQ_U64(memo, 3);
	kmt_report_free(&r);
	teardown(&f);
}

KMT_TESTS(KMT_TEST(test_totals), KMT_TEST(test_cross_node_uses_cpu_topology),
	  KMT_TEST(test_cross_node_not_recorded),
	  KMT_TEST(test_misuse_and_lost_free), KMT_TEST(test_tables),
	  KMT_TEST(test_sort_and_limit), KMT_TEST(test_alloc_packed_state),
	  KMT_TEST(test_slab_rows_read_only))
