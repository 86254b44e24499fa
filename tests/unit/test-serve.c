// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace serve's metrics (bpf/serve.c drawn by render/prom.c) over
 * thousands of callsites, caches and memory cgroups, more than any
 * workload here reaches: at most --top + 1 series per metric, kind and
 * dimension, the largest by bytes named, the rest summed into "(other)"
 * with nothing lost, and a second scrape the same as the first.  The
 * counts are put in top's mirror of the kernel's maps by hand (no BPF:
 * the fixture's handle has no maps, so caches are named by address).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/serve.h"
#include "check.h"
#include "drawn.h"
#include "render/render.h"
#include "report/report.h"
#include "topwatch-fixture.h"

#define TOPN		10
#define NR_KMALLOC	4000	/* kmalloc callsites, 8 size classes */
#define NR_CACHES	3000	/* caches of one kmem_cache_alloc callsite */
#define NR_CGROUPS	2000
#define CACHE_BASE	0xffff888000000000ULL
#define NR(a)		(sizeof(a) / sizeof((a)[0]))

static void put_site(struct kmt_top *t, uint64_t site, uint64_t cache,
		     uint8_t kind, uint64_t count, uint64_t each)
{
	struct kmt_site_key k = {
		.site = site, .cache = cache, .tgid = 1, .kind = kind,
	};
	struct top_mirror *m;
	int is_new;

	/* any key unique to the site and cache will do for the mirror */
	m = top_mirrors_put(&t->mirror, site * 31 + cache * 7 + kind,
			    &is_new);
	CHECK(m && is_new);
	if (!m)
		return;
	m->key = k;
	m->cur.count = count;
	m->cur.bytes_req = count * each;
	m->cur.bytes_alloc = count * each;
}

static void put_cgroup(struct kmt_top *t, uint64_t cg, uint64_t count)
{
	struct top_cgmirror *m;
	int is_new;

	m = top_cgmirrors_put(&t->cgs, cg * 16 + KMT_K_KMALLOC, &is_new);
	CHECK(m && is_new);
	if (!m)
		return;
	m->key.cgroup = cg;
	m->key.kind = KMT_K_KMALLOC;
	m->cur.count = count;
	m->cur.bytes = count * 64;
}

/* one metric, kind and dimension: its series, their sum, one label */
struct family {
	const char *metric, *kind, *dim, *label;
	size_t series;
	uint64_t sum;
	int other, has_label;
};

/* "name{kind="k",dim="v"} value" lines of the metrics drawn */
static void count(const char *text, struct family *f)
{
	char kind[64], dim[64];
	const char *l, *nl;

	snprintf(kind, sizeof(kind), "kind=\"%s\"", f->kind);
	snprintf(dim, sizeof(dim), "%s=\"", f->dim);
	f->series = 0;
	f->sum = 0;
	f->other = f->has_label = 0;
	for (l = text; *l; l = nl + 1) {
		size_t n = strlen(f->metric);
		char line[512];
		const char *sp, *v;

		nl = strchr(l, '\n');
		if (!nl)
			break;
		if ((size_t)(nl - l) >= sizeof(line) ||
		    strncmp(l, f->metric, n) || l[n] != '{')
			continue;
		memcpy(line, l, (size_t)(nl - l));
		line[nl - l] = 0;
		if ((*f->kind && !strstr(line, kind)) ||
		    (!*f->kind && strstr(line, "kind=\"")) ||
		    !(v = strstr(line, dim)))
			continue;
		sp = strrchr(line, ' ');
		CHECK(sp != NULL);
		if (!sp)
			continue;
		f->series++;
		f->sum += strtoull(sp + 1, NULL, 10);
		v += strlen(dim);
		if (!strncmp(v, "(other)\"", 8))
			f->other = 1;
		if (!strncmp(v, f->label, strlen(f->label)) &&
		    v[strlen(f->label)] == '"')
			f->has_label = 1;
	}
}

static void test_thousands_of_series_bounded(void)
{
	struct tw_fix *f = calloc(1, sizeof(*f));
	struct kmt_serve s;
	struct kmt_report r, r2;
	char top_site[200], top_cache[64], top_cg[64], *text, *again;
	uint64_t kmalloc_sum = 0, cache_sum = 0, cg_sum = 0;
	size_t i, k;

	CHECK(f && !tw_fix_init(f));
	if (!f)
		return;
	/* no live map to read: the counts alone */
	f->bpf.cfg.track_live = 0;
	kmt_serve_init(&s, &f->bpf, &f->names, NULL, TOPN, 1000000000ULL);
	s.cgroups = 1;
	for (i = 0; i < NR_KMALLOC; i++) {
		/* distinct offsets into the fixture's symbols: distinct names */
		uint64_t site = tw_addr((int)(i % 80), 0x10 + 8 * (i / 80));

		put_site(&s.top, site, 8ULL << (i % 8), KMT_K_KMALLOC, i + 1,
			 8ULL << (i % 8));
		kmalloc_sum += i + 1;
	}
	for (i = 0; i < NR_CACHES; i++) {
		put_site(&s.top, tw_addr(5, 0x800), CACHE_BASE + 0x400 * i,
			 KMT_K_CACHE_ALLOC, 2 * i + 1, 192);
		cache_sum += 2 * i + 1;
	}
	for (i = 0; i < NR_CGROUPS; i++) {
		put_cgroup(&s.top, 1000 + i, 3 * i + 1);
		cg_sum += 3 * i + 1;
	}
	/* the most bytes: the last of each */
	kmt_bpf_names_sym(&f->names, tw_addr((NR_KMALLOC - 1) % 80,
		0x10 + 8 * ((NR_KMALLOC - 1) / 80)), top_site,
		sizeof(top_site));
	snprintf(top_cache, sizeof(top_cache), "0x%llx",
		 (unsigned long long)(CACHE_BASE + 0x400 * (NR_CACHES - 1)));
	snprintf(top_cg, sizeof(top_cg), "(cgroup %d: removed)",
		 1000 + NR_CGROUPS - 1);

	kmt_report_init(&r);
	CHECK(!kmt_serve_metrics(&s, &r));
	text = drawn(&r, kmt_render_prom);
	CHECK(text != NULL);
	if (text) {
		static const char *const metrics[] = {
			"kmemtrace_allocations_total",
			"kmemtrace_allocated_bytes_total",
			"kmemtrace_live_objects",
		};
		struct family fam[] = {
			{ .kind = "slab", .dim = "callsite", .label = top_site },
			{ .kind = "slab", .dim = "cache", .label = top_cache },
			{ .kind = "", .dim = "cgroup", .label = top_cg },
		};
		const uint64_t sums[] = {
			kmalloc_sum + cache_sum, kmalloc_sum + cache_sum,
			cg_sum,
		};

		for (i = 0; i < NR(metrics); i++) {
			for (k = 0; k < NR(fam); k++) {
				fam[k].metric = metrics[i];
				count(text, &fam[k]);
				if (fam[k].series != TOPN + 1)
					fprintf(stderr, "%s %s %s: %zu series\n",
						metrics[i], fam[k].kind,
						fam[k].dim, fam[k].series);
				CHECK(fam[k].series == TOPN + 1);
				CHECK(fam[k].other);
				CHECK(fam[k].has_label);
				/* every allocation in one series or other */
				if (i == 0)
					CHECK(fam[k].sum == sums[k]);
			}
		}
	}
	/* a second scrape of the same counts draws the same */
	kmt_report_init(&r2);
	CHECK(!kmt_serve_metrics(&s, &r2));
	again = drawn(&r2, kmt_render_prom);
	CHECK(text && again && !strcmp(text, again));
	free(again);
	free(text);
	kmt_report_free(&r2);
	kmt_report_free(&r);
	kmt_serve_free(&s);
	kmt_bpf_names_free(&f->names);
	free(f);
}

/* the value of the series of metric whose labels hold want, or -1 */
static long long value_of(const char *text, const char *metric,
			  const char *want)
{
	const char *l, *nl;

	for (l = text; (nl = strchr(l, '\n')); l = nl + 1) {
		size_t n = strlen(metric);
		const char *sp = memrchr(l, ' ', (size_t)(nl - l));

		if (!strncmp(l, metric, n) && l[n] == '{' && sp &&
		    memmem(l, (size_t)(nl - l), want, strlen(want)))
			return strtoll(sp + 1, NULL, 10);
	}
	return -1;
}

/*
 * Rows move in and out of the top between scrapes; the "(other)"
 * counters still never go down (Prometheus would read a drop as a
 * reset): they gain what the rows outside the top gained, and a row
 * that enters the top takes its own series, from its total.
 */
static void test_other_never_goes_down(void)
{
	struct tw_fix *f = calloc(1, sizeof(*f));
	const char *other = "callsite=\"(other)\"";
	long long a1, a2, a3, b1, b2;
	struct kmt_serve s;
	struct kmt_report r;
	struct top_mirror *m;
	char *text;
	size_t i;

	CHECK(f && !tw_fix_init(f));
	if (!f)
		return;
	f->bpf.cfg.track_live = 0;
	kmt_serve_init(&s, &f->bpf, &f->names, NULL, 3, 1000000000ULL);
	for (i = 0; i < 10; i++)
		put_site(&s.top, tw_addr(1 + (int)i, 0x10), 64, KMT_K_KMALLOC,
			 100 * (i + 1), 64);

	kmt_report_init(&r);
	CHECK(!kmt_serve_metrics(&s, &r));
	text = drawn(&r, kmt_render_prom);
	a1 = value_of(text, "kmemtrace_allocations_total", other);
	b1 = value_of(text, "kmemtrace_allocated_bytes_total", other);
	/* the seven smallest: 100 + ... + 700 */
	CHECK_EQ_U64(a1, 2800);
	CHECK_EQ_U64(b1, 2800 * 64);
	free(text);
	kmt_report_free(&r);

	/* the smallest grows past every other: the top's third drops out */
	m = top_mirrors_get(&s.top.mirror, tw_addr(1, 0x10) * 31 + 64 * 7 +
				     KMT_K_KMALLOC);
	CHECK(m != NULL);
	if (m) {
		m->cur.count += 5000;
		m->cur.bytes_alloc += 5000 * 64;
		m->cur.bytes_req += 5000 * 64;
	}
	kmt_report_init(&r);
	CHECK(!kmt_serve_metrics(&s, &r));
	text = drawn(&r, kmt_render_prom);
	a2 = value_of(text, "kmemtrace_allocations_total", other);
	b2 = value_of(text, "kmemtrace_allocated_bytes_total", other);
	/* nothing outside the top gained: the same, not 2800 - 100 + 800 */
	CHECK_EQ_U64(a2, a1);
	CHECK_EQ_U64(b2, b1);
	CHECK(strstr(text, "callsite=\"do_eventfd+10\"} 5100\n") != NULL);
	free(text);
	kmt_report_free(&r);

	/* a row of the rest gains: so does "(other)", by as much */
	m = top_mirrors_get(&s.top.mirror, tw_addr(2, 0x10) * 31 + 64 * 7 +
				     KMT_K_KMALLOC);
	CHECK(m != NULL);
	if (m)
		m->cur.count += 7;
	kmt_report_init(&r);
	CHECK(!kmt_serve_metrics(&s, &r));
	text = drawn(&r, kmt_render_prom);
	a3 = value_of(text, "kmemtrace_allocations_total", other);
	CHECK_EQ_U64(a3, a2 + 7);
	free(text);
	kmt_report_free(&r);
	kmt_serve_free(&s);
	kmt_bpf_names_free(&f->names);
	free(f);
}

KMT_TESTS(KMT_TEST(test_thousands_of_series_bounded),
	  KMT_TEST(test_other_never_goes_down))
