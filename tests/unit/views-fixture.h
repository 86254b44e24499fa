/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_TESTS_VIEWS_FIXTURE_H
#define KMT_TESTS_VIEWS_FIXTURE_H

/*
 * What the unit tests of the views (test-leaks.c, test-errors.c, ...)
 * share: a session, one view running alone on hand-made events through
 * the report engine (lib/run, as `kmemtrace report --leaks` runs it:
 * the live tracker first, then the view), and lookups into the report
 * it makes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "event/event.h"
#include "event/session.h"
#include "render/render.h"
#include "report/report.h"
#include "run/report.h"
#include "check.h"

struct vf {
	struct kmt_session s;
	struct kmt_report_opts opts;
	const struct kmt_analysis_ops *ops;
	struct kmt_run *run;
	void *ctx;		/* the view's, for its own getters */
	const struct kmt_report *r;	/* once finished */
	int finished;
};

static inline void vf_init(struct vf *f)
{
	memset(f, 0, sizeof(*f));
	CHECK(!kmt_session_init(&f->s));
}

/* a run of the view ops alone, on f's session, with f's options */
static inline void vf_create(struct vf *f, const struct kmt_analysis_ops *ops)
{
	struct kmt_run_spec spec = { 0 };
	enum kmt_run_status st;
	char msg[256];
	size_t i;

	f->ops = ops;
	spec.session = &f->s;
	spec.opts = f->opts;
	spec.threads = 1;
	for (i = 0; i < kmt_run_nr_analyses; i++) {
		if (kmt_run_analyses[i].ops == ops)
			*kmt_run_want_flag(&spec.want, i) = 1;
	}
	f->run = kmt_run_create(&spec, &st, msg, sizeof(msg));
	if (!f->run)
		fprintf(stderr, "no run: %s\n", msg);
	CHECK(f->run != NULL);
	f->ctx = f->run ? kmt_run_context(f->run, ops) : NULL;
	CHECK(f->ctx != NULL);
}

static inline void vf_free(struct vf *f)
{
	kmt_run_free(f->run);
	kmt_session_free(&f->s);
}

/* an event as a reader hands it on: the session counts it first */
static inline void vf_ev(struct vf *f, struct kmt_event *ev)
{
	CHECK(!kmt_run_feed(f->run, ev));
}

static inline uint32_t vf_str(struct vf *f, const char *s)
{
	return s ? kmt_strtab_intern(&f->s.strs, s, strlen(s)) : 0;
}

static inline void vf_comm(struct vf *f, int32_t pid, const char *comm)
{
	CHECK(!kmt_session_set_comm(&f->s, pid, comm, strlen(comm)));
}

static inline void vf_slab(struct vf *f, unsigned int type, uint64_t ts,
			   int cpu, int pid, uint64_t site, uint64_t ptr,
			   uint64_t req, uint64_t alloc, const char *cache)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = (uint16_t)type;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.call_site = site;
	ev.ptr = ptr;
	ev.bytes_req = req;
	ev.bytes_alloc = alloc;
	ev.cache = vf_str(f, cache);
	vf_ev(f, &ev);
}

#define vf_kmalloc(f, ts, cpu, pid, site, ptr, req, alloc) \
	vf_slab(f, KMT_EV_KMALLOC, ts, cpu, pid, site, ptr, req, alloc, NULL)
#define vf_cache_alloc(f, ts, cpu, pid, site, ptr, req, alloc, cache) \
	vf_slab(f, KMT_EV_CACHE_ALLOC, ts, cpu, pid, site, ptr, req, alloc, cache)
#define vf_kfree(f, ts, cpu, pid, site, ptr) \
	vf_slab(f, KMT_EV_KFREE, ts, cpu, pid, site, ptr, 0, 0, NULL)
#define vf_cache_free(f, ts, cpu, pid, site, ptr, cache) \
	vf_slab(f, KMT_EV_CACHE_FREE, ts, cpu, pid, site, ptr, 0, 0, cache)

static inline void vf_page(struct vf *f, unsigned int type, uint64_t ts,
			   int cpu, int pid, uint64_t pfn, int order, int mt,
			   uint16_t flags)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = (uint16_t)type;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.ptr = pfn;
	ev.order = order;
	ev.migratetype = mt;
	ev.flags = flags;
	vf_ev(f, &ev);
}

#define vf_page_alloc(f, ts, cpu, pid, pfn, order) \
	vf_page(f, KMT_EV_PAGE_ALLOC, ts, cpu, pid, pfn, order, 0, 0)
#define vf_page_free(f, ts, cpu, pid, pfn, order) \
	vf_page(f, KMT_EV_PAGE_FREE, ts, cpu, pid, pfn, order, -1, 0)

static inline void vf_extfrag(struct vf *f, uint64_t ts, int cpu, int pid,
			      int order, int fb_order, int mt, int fb_mt,
			      int fragmenting, int change_owner)
{
	struct kmt_event ev;

	kmt_event_init(&ev);
	ev.type = KMT_EV_EXTFRAG;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.ptr = 0x1000;
	ev.order = order;
	ev.fallback_order = fb_order;
	ev.migratetype = mt;
	ev.fallback_migratetype = fb_mt;
	ev.flags = KMT_EVF_HAS_FRAGMENTING |
		   (fragmenting ? KMT_EVF_FRAGMENTING : 0) |
		   (change_owner ? KMT_EVF_CHANGE_OWNER : 0);
	vf_ev(f, &ev);
}

static inline void vf_finish(struct vf *f)
{
	CHECK(kmt_run_finish(f->run, NULL) == KMT_RUN_OK);
	f->r = kmt_run_report(f->run);
	f->finished = 1;
}

static inline struct kmt_section *vf_section(struct vf *f, const char *group,
					     const char *key)
{
	struct kmt_section *sec = kmt_report_section(f->r, group, key);

	if (!sec)
		fprintf(stderr, "no section %s.%s\n", group, key);
	return sec;
}

static inline const struct kmt_table *vf_table(struct vf *f, const char *group,
					       const char *key)
{
	struct kmt_section *sec = vf_section(f, group, key);

	CHECK(sec && sec->kind == KMT_SEC_TABLE);
	return sec && sec->kind == KMT_SEC_TABLE ? &sec->table : NULL;
}

/* the cell of row (from 0) in the column called key */
static inline const union kmt_val *vf_cell(const struct kmt_table *t,
					   size_t row, const char *key)
{
	int c;

	if (!t || row >= t->nrows) {
		fprintf(stderr, "no row %zu\n", row);
		return NULL;
	}
	c = kmt_table_col(t, key);
	if (c >= 0)
		return &t->vals[row * t->ncols + (size_t)c];
	fprintf(stderr, "no column %s\n", key);
	return NULL;
}

static inline uint64_t vf_u(const struct kmt_table *t, size_t row,
			    const char *key)
{
	const union kmt_val *v = vf_cell(t, row, key);

	CHECK(v != NULL);
	return v ? v->u : ~0ULL;
}

static inline const char *vf_s(const struct kmt_table *t, size_t row,
			       const char *key)
{
	const union kmt_val *v = vf_cell(t, row, key);

	CHECK(v != NULL);
	return v ? v->str : NULL;
}

/* the row whose column key holds the string want, or (size_t)-1 */
static inline size_t vf_row(const struct kmt_table *t, const char *key,
			    const char *want)
{
	size_t r;

	for (r = 0; t && r < t->nrows; r++) {
		const union kmt_val *v = vf_cell(t, r, key);

		if (v && v->str && !strcmp(v->str, want))
			return r;
	}
	fprintf(stderr, "no row with %s = %s\n", key, want);
	return (size_t)-1;
}

/* a summary figure: the value, or the count of a ratio */
static inline uint64_t vf_sum(struct vf *f, const char *group, const char *key,
			      const char *item)
{
	struct kmt_section *sec = vf_section(f, group, key);
	size_t i;

	CHECK(sec && sec->kind == KMT_SEC_SUMMARY);
	for (i = 0; sec && i < sec->summary.nr; i++) {
		const struct kmt_sum_item *it = &sec->summary.items[i];

		if (it->key && !strcmp(it->key, item))
			return it->v.u;
	}
	fprintf(stderr, "no summary item %s.%s.%s\n", group, key, item);
	CHECK(0);
	return ~0ULL;
}

/* the report drawn as text and as JSON: both must draw, and hold want */
static inline void vf_renders(struct vf *f, const char *want_text,
			      const char *want_json)
{
	static const char *const names[] = { "text", "json", "csv" };
	size_t i;

	for (i = 0; i < 3; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		CHECK(out != NULL);
		if (!out)
			return;
		CHECK(!kmt_renderer_find(names[i])->render(f->r, out));
		fclose(out);
		if (i == 0 && want_text && !strstr(buf, want_text)) {
			fprintf(stderr, "text lacks \"%s\":\n%s\n", want_text, buf);
			CHECK(0);
		}
		if (i == 1 && want_json && !strstr(buf, want_json)) {
			fprintf(stderr, "json lacks \"%s\":\n%s\n", want_json, buf);
			CHECK(0);
		}
		free(buf);
	}
}

#endif
