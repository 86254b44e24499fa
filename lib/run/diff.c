// SPDX-License-Identifier: GPL-2.0
/*
 * The comparison engine (run/diff.h): what changed between two
 * recordings, or between a report saved as JSON (the baseline) and a
 * recording; or between two page_owner dumps.  A recording is read
 * through the report engine with the tables the comparison needs, in
 * memory; a saved report (report's JSON of those tables, which --save
 * writes) is read back, and compares exactly as its recording would: the
 * figures are read by the same column names.  Rows are matched by name:
 * callsites and stack frames without their offsets, so two boots (KASLR)
 * and two builds of a kernel compare.
 *
 * Per callsite, cache, command name and stack, each side's figures are
 * summed by name; the table shows the chosen figure in A and in B, the
 * difference and the change, sorted by the growth, rows only in one side
 * marked.  When the spans differ, flows (allocations, bytes, waste) are
 * compared per second; what is live at the end is compared as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/pageowner.h"
#include "analysis/views.h"
#include "report/profile.h"
#include "report/report.h"
#include "run/diff.h"
#include "run/pageowner.h"
#include "run/report.h"
#include "util/arena.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/jsonread.h"
#include "util/strbuf.h"
#include "util/strtab.h"

#define MAX_METRICS 5
#define MAX_DIMS 4

struct metric_def {
	const char *name, *title;
	int flow;		/* a rate when the spans differ */
};

/*
 * Where each figure comes from in a side's JSON: a table (group, key;
 * no group: the document's own member), its name column, an optional
 * kind column or fixed kind, and per metric a column (minus another,
 * times a scale).  Several sources may feed one dimension, and several
 * rows one name: they add up.
 */
struct source {
	int dim;
	const char *group, *table, *name_col;
	const char *kind_col, *kind;
	int symbols;		/* names are symbols: drop the offsets */
	struct {
		int m;
		const char *col, *minus;
		double scale;
	} vals[4];
};

/* the options that choose a recording's events, as report takes them */
/* what is compared: report's recordings, or page_owner dumps */
struct diff_kind {
	const struct metric_def *metrics;
	size_t nr_metrics;
	int default_sort;
	int fallback;		/* a dimension without the sort key's figure
				 * sorts by this one */
	const char *const *dims;
	size_t nr_dims;
	const struct source *sources;
	size_t nr_sources;
	/*
	 * The side of an input that is not JSON, a report made in memory:
	 * a recording's with these views, or (NULL) a page_owner dump's
	 */
	const char *const *views;
	const char *must_have;	/* a member every such JSON has */
	const char *what;	/* "a kmemtrace report" */
};

enum metric { M_ALLOCS, M_BYTES, M_WASTED, M_LIVE, M_LIVE_BYTES };

static const struct metric_def report_metrics[] = {
	[M_ALLOCS] = { "allocs", "allocations", 1 },
	[M_BYTES] = { "bytes", "bytes allocated", 1 },
	[M_WASTED] = { "wasted", "bytes wasted (allocated - requested)", 1 },
	[M_LIVE] = { "live", "objects live at the end", 0 },
	[M_LIVE_BYTES] = { "live_bytes", "bytes live at the end", 0 },
};

enum dim { D_CALLSITE, D_CACHE, D_COMM, D_STACK };

static const char *const report_dims[] = {
	"callsites", "caches", "comms", "stacks",
};

static const struct source report_sources[] = {
	{ D_CALLSITE, "slab", "callsites", "callsite", NULL, "slab", 1,
	  { { M_ALLOCS, "hit", NULL, 1 }, { M_BYTES, "total_alloc", NULL, 1 },
	    { M_WASTED, "total_alloc", "total_req", 1 } } },
	{ D_CALLSITE, "page", "callsites", "callsite", NULL, "page", 1,
	  { { M_ALLOCS, "hits", NULL, 1 }, { M_BYTES, "alloc_kb", NULL, 1024 } } },
	{ D_CALLSITE, "leaks", "callsites", "callsite", "kind", NULL, 1,
	  { { M_LIVE, "count", NULL, 1 }, { M_LIVE_BYTES, "bytes", NULL, 1 } } },
	{ D_CACHE, "caches", "caches", "cache", NULL, "slab", 0,
	  { { M_ALLOCS, "objects", NULL, 1 }, { M_BYTES, "bytes", NULL, 1 },
	    { M_WASTED, "waste", NULL, 1 }, { M_LIVE, "live_objects", NULL, 1 } } },
	{ D_CACHE, "caches", "caches", "cache", NULL, "slab", 0,
	  { { M_LIVE_BYTES, "live_bytes", NULL, 1 } } },
	{ D_COMM, "procs", "processes", "comm", NULL, "", 0,
	  { { M_ALLOCS, "page_allocs", NULL, 1 },
	    { M_ALLOCS, "slab_allocs", NULL, 1 },
	    { M_BYTES, "page_alloc_bytes", NULL, 1 },
	    { M_BYTES, "slab_alloc_bytes", NULL, 1 } } },
	{ D_COMM, "procs", "processes", "comm", NULL, "", 0,
	  { { M_LIVE_BYTES, "outstanding_bytes", NULL, 1 } } },
	{ D_STACK, "leaks", "stacks", "stack", "kind", NULL, 1,
	  { { M_LIVE, "count", NULL, 1 }, { M_LIVE_BYTES, "bytes", NULL, 1 } } },
};

/* page_owner dumps: pages and records per stack, allocator and memcg */
enum { PM_PAGES, PM_RECORDS };

static const struct metric_def pageowner_metrics[] = {
	[PM_PAGES] = { "pages", "pages", 0 },
	[PM_RECORDS] = { "records", "records (allocations)", 0 },
};

static const char *const pageowner_dims[] = {
	"stacks", "allocators", "memcgs",
};

static const struct source pageowner_sources[] = {
	{ 0, NULL, "groups", "stack", "allocator", NULL, 1,
	  { { PM_PAGES, "pages", NULL, 1 }, { PM_RECORDS, "times", NULL, 1 } } },
	{ 1, NULL, "classes", "class", NULL, "", 0,
	  { { PM_PAGES, "pages", NULL, 1 }, { PM_RECORDS, "records", NULL, 1 } } },
	{ 2, NULL, "memcgs", "memcg", NULL, "", 0,
	  { { PM_PAGES, "pages", NULL, 1 }, { PM_RECORDS, "records", NULL, 1 } } },
};

struct side {
	const char *path;
	struct kmt_arena arena;
	/* a saved report (or a command's JSON), or a report made here */
	struct kmt_jv *doc;
	struct kmt_run *run;
	/* a page_owner dump read here, and its report */
	struct kmt_po_analysis *po;
	struct kmt_report po_report;
	const struct kmt_report *model;
	double span;		/* seconds; 0 for a snapshot */
	int has[MAX_DIMS];	/* the document holds the dimension's tables */
};

struct drow {
	uint32_t kind, name;	/* strtab ids */
	double v[2][MAX_METRICS];
	int in[2];
};

/* the most warnings a load collects: page_owner's few, and a summary */
#define MAX_WARNINGS 16

struct kmt_diff {
	struct kmt_diff_spec spec;
	const struct diff_kind *k;
	struct side s[2];
	struct kmt_strtab strs;
	struct drow *rows[MAX_DIMS];
	size_t nr[MAX_DIMS], alloc[MAX_DIMS];
	struct kmt_hash_u32 index[MAX_DIMS];	/* kind << 32 | name -> row + 1 */
	int matched;		/* both sides' rows are in */
	int rates;
	int sort;
	/* the last load's warnings, in an arena of their own */
	struct kmt_arena warn_arena;
	const char *warnings[MAX_WARNINGS];
	size_t nr_warnings;
	int read_err;
	char errmsg[1024];
};

static enum kmt_run_status fail(struct kmt_diff *d, enum kmt_run_status st,
				const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum kmt_run_status fail(struct kmt_diff *d, enum kmt_run_status st,
				const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->errmsg, sizeof(d->errmsg), fmt, ap);
	va_end(ap);
	return st;
}

static void warn(struct kmt_diff *d, const char *text)
{
	size_t len = strlen(text);
	char *copy;

	if (d->nr_warnings >= MAX_WARNINGS)
		return;
	copy = kmt_arena_alloc(&d->warn_arena, len + 1);
	if (!copy)
		return;
	memcpy(copy, text, len + 1);
	d->warnings[d->nr_warnings++] = copy;
}

/* ---- reading a side ---- */

int kmt_diff_is_saved(const char *path)
{
	char buf[256];
	ssize_t n, i;
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (i = 0; i < n; i++) {
		if (buf[i] != ' ' && buf[i] != '\n' && buf[i] != '\t' &&
		    buf[i] != '\r')
			return buf[i] == '{';
	}
	return 0;
}

/* the tables a comparison of recordings reads, as report's options */
static const char *const report_views[] = {
	"slab", "page", "caller", "caches", "procs", "by-comm", "leaks", NULL,
};

/* the allocation profile, every row */
static const char *const profile_views[] = { "profile", NULL };

/* a run's spec: the views named, and what ps chooses of the events */
static enum kmt_run_status side_spec(const char *const *views,
				     const struct kmt_diff_spec *ps,
				     struct kmt_run_spec *spec, char *msg,
				     size_t len)
{
	size_t i;

	memset(spec, 0, sizeof(*spec));
	spec->opts.warmup = 1000000000ULL;	/* report's default */
	spec->opts.older_than = ps->older_than;
	spec->opts.weight = KMT_PROFILE_ALLOC_SPACE;
	spec->comms = ps->comm;
	spec->pids = ps->pid;
	spec->threads = 1;
	for (; *views; views++) {
		if (!strcmp(*views, "caller"))
			spec->opts.caller = 1;
		else if (!strcmp(*views, "by-comm"))
			spec->opts.by_comm = 1;
		for (i = 0; i < kmt_run_nr_analyses; i++) {
			if (!strcmp(kmt_run_analyses[i].ops->name, *views))
				*kmt_run_want_flag(&spec->want, i) = 1;
		}
	}
	if (ps->time && kmt_run_parse_time(ps->time, &spec->time_start,
					   &spec->time_end,
					   &spec->time_relative)) {
		snprintf(msg, len, "option '--time' needs start,end in seconds "
			 "as the recording stamps them, or from its start as "
			 "+S (+1.5,+3), start <= end, not '%s'", ps->time);
		return KMT_RUN_E_SPEC;
	}
	spec->time_arg = ps->time;
	return KMT_RUN_OK;
}

enum kmt_run_status kmt_diff_save_spec(const struct kmt_diff_spec *spec,
				       struct kmt_run_spec *run, char *msg,
				       size_t len)
{
	return side_spec(report_views, spec, run, msg, len);
}

/*
 * The report of a recording with views, made in memory (whole model),
 * as `kmemtrace report` makes it.  A recording partly unreadable is
 * said, and compared for what it has.
 */
static enum kmt_run_status run_views(struct kmt_diff *d, struct side *sd,
				     const char *const *views)
{
	struct kmt_run_spec spec;
	enum kmt_run_status st;
	char msg[1024];

	st = side_spec(views, &d->spec, &spec, d->errmsg, sizeof(d->errmsg));
	if (st)
		return st;
	sd->run = kmt_run_create(&spec, &st, msg, sizeof(msg));
	if (!sd->run)
		return fail(d, st == KMT_RUN_E_SPEC ? st : KMT_RUN_E_NOMEM,
			    "%s", msg);
	st = kmt_run_read(sd->run, sd->path);
	if (st == KMT_RUN_OK) {
		if (kmt_run_warning(sd->run))
			warn(d, kmt_run_warning(sd->run));
		st = kmt_run_finish(sd->run, NULL);
	}
	if (st) {
		if (st == KMT_RUN_E_READ)
			d->read_err = kmt_run_read_error(sd->run);
		else if (st != KMT_RUN_E_INPUT)
			st = KMT_RUN_E_NOMEM;
		fail(d, st, "%s", kmt_run_error(sd->run));
		kmt_run_free(sd->run);
		sd->run = NULL;
		return st;
	}
	if (kmt_run_unreadable(sd->run, msg, sizeof(msg)))
		warn(d, msg);
	return KMT_RUN_OK;
}

/*
 * the most malformed records told one by one: `kmemtrace pageowner`
 * says them in the same words (src/cmd-pageowner.c), keep them alike
 */
/* a warning of the load, for kmt_po_run_skipped */
static void warn_cb(void *ctx, const char *text)
{
	warn(ctx, text);
}


/*
 * A page_owner dump's report, made here: grouped by stack, with its
 * totals, as `pageowner --json --summary --cull stacktrace` has it
 * (what a baseline of a dump is).
 */
static enum kmt_run_status po_side(struct kmt_diff *d, struct side *sd)
{
	struct kmt_po_report_opts o = { 0 };
	struct kmt_po_sortkey key = { KMT_PO_KEY_TIMES, 1 };
	struct kmt_po_options opt;
	struct kmt_po_run run = { .input = sd->path };
	enum kmt_run_status st;

	memset(&opt, 0, sizeof(opt));
	opt.cull = KMT_PO_CULL_STACK;
	kmt_report_init(&sd->po_report);
	sd->po = calloc(1, sizeof(*sd->po));
	if (!sd->po || kmt_po_analysis_init(sd->po, &opt)) {
		free(sd->po);
		sd->po = NULL;
		return fail(d, KMT_RUN_E_NOMEM, "out of memory");
	}
	st = kmt_po_run_read(&run, sd->po);
	if (st == KMT_RUN_E_READ)
		d->read_err = run.read_err;
	if (st)
		return fail(d, st == KMT_RUN_E_INPUT || st == KMT_RUN_E_READ ?
			    st : KMT_RUN_E_NOMEM, "%s", run.errmsg);
	kmt_po_run_skipped(sd->po, run.display, warn_cb, d);
	if (kmt_po_analysis_finish(sd->po))
		return fail(d, KMT_RUN_E_NOMEM, "out of memory");
	o.input = run.display;
	o.keys = &key;
	o.nr_keys = 1;
	o.totals = 1;
	if (kmt_po_report(sd->po, &sd->po_report, &o) ||
	    kmt_po_report_short(sd->po))
		return fail(d, KMT_RUN_E_NOMEM, "out of memory");
	sd->model = &sd->po_report;
	sd->span = 0;
	return KMT_RUN_OK;
}

/* --pprof reads only the profile of each side (load_side's fields) */
static const struct diff_kind profile_kind = {
	.views = profile_views, .must_have = "profile",
	.what = "a kmemtrace report with its profile",
};

static const struct diff_kind report_kind = {
	report_metrics, KMT_NCOLS(report_metrics), M_BYTES, M_LIVE_BYTES,
	report_dims, KMT_NCOLS(report_dims), report_sources,
	KMT_NCOLS(report_sources),
	report_views, "span_ns", "a kmemtrace report",
};

static const struct diff_kind pageowner_kind = {
	pageowner_metrics, KMT_NCOLS(pageowner_metrics), PM_PAGES, PM_PAGES,
	pageowner_dims, KMT_NCOLS(pageowner_dims), pageowner_sources,
	KMT_NCOLS(pageowner_sources),
	NULL, "groups", "kmemtrace pageowner's JSON",
};

static const struct diff_kind *kind_of(enum kmt_diff_what what)
{
	return what == KMT_DIFF_PAGEOWNER ? &pageowner_kind :
	       what == KMT_DIFF_PROFILES ? &profile_kind : &report_kind;
}

/* a side made here: its report's model, its span */
static enum kmt_run_status model_side(struct kmt_diff *d, struct side *sd)
{
	const struct kmt_report_meta *m;
	enum kmt_run_status st = run_views(d, sd, d->k->views);

	if (st)
		return st;
	sd->model = kmt_run_report(sd->run);
	m = &sd->model->meta;
	sd->span = m->last_ts >= m->first_ts ? (m->last_ts - m->first_ts) / 1e9 :
					       0;
	return KMT_RUN_OK;
}

static enum kmt_run_status load_side(struct kmt_diff *d, struct side *sd)
{
	const struct kmt_diff_spec *ps = &d->spec;
	const struct diff_kind *k = d->k;
	const struct kmt_jv *span;
	struct kmt_sb text = KMT_SB_INIT;
	const char *what;
	size_t off;
	int fd, ret, json = kmt_diff_is_saved(sd->path);

	kmt_arena_init(&sd->arena);
	if (json) {
		if (ps->older_than || ps->time || ps->comm || ps->pid)
			return fail(d, KMT_RUN_E_SPEC, "'%s' is a saved report: "
				    "--older-than, --time, --comm and --pid "
				    "apply to recordings (save it with them)",
				    sd->path);
		fd = open(sd->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(d, KMT_RUN_E_INPUT, "cannot open '%s': %s",
				    sd->path, strerror(errno));
	} else if (k->views) {
		return model_side(d, sd);
	} else {
		return po_side(d, sd);
	}
	ret = kmt_sb_read_fd(&text, fd);
	close(fd);
	if (ret) {
		kmt_sb_release(&text);
		return fail(d, ret == -ENOMEM ? KMT_RUN_E_NOMEM : KMT_RUN_E_INPUT,
			    "cannot read '%s': %s", sd->path, strerror(-ret));
	}
	ret = kmt_json_parse(&sd->arena, kmt_sb_str(&text), text.len, &sd->doc,
			     &off, &what);
	kmt_sb_release(&text);
	if (ret == -ENOMEM)
		return fail(d, KMT_RUN_E_NOMEM, "out of memory");
	if (ret)
		return fail(d, KMT_RUN_E_INPUT, "'%s' is not %s: byte %zu: %s",
			    sd->path, k->what, off, what);
	if (sd->doc->type != KMT_J_OBJ || !kmt_jv_get(sd->doc, "input") ||
	    !kmt_jv_get(sd->doc, k->must_have))
		return fail(d, KMT_RUN_E_INPUT, "'%s' is JSON but not %s "
			    "(no input or %s)", sd->path, k->what,
			    k->must_have);
	span = kmt_jv_get(sd->doc, "span_ns");
	sd->span = span && span->type == KMT_J_NUM ? span->num / 1e9 : 0;
	return KMT_RUN_OK;
}

static void free_side(struct side *sd)
{
	kmt_arena_free(&sd->arena);
	kmt_run_free(sd->run);
	if (sd->po) {
		kmt_report_free(&sd->po_report);
		kmt_po_analysis_free(sd->po);
		free(sd->po);
	}
}

/*
 * A table of a side, whichever it is: rows of a saved report's JSON
 * (arr), or of a report made here (t, with a row buffer).  The figures
 * are what report's JSON of the same table holds.
 */
struct side_table {
	const struct kmt_jv *arr;
	const struct kmt_table *t;
	union kmt_val *buf;
	const union kmt_val *row;	/* the model's current row */
	const struct kmt_jv *jrow;	/* the JSON's */
};

static int side_table(const struct side *sd, const char *group,
		      const char *key, struct side_table *st)
{
	memset(st, 0, sizeof(*st));
	if (sd->model) {
		const struct kmt_section *sec =
			kmt_report_section(sd->model, group ? group : "", key);

		/* what JSON has of it, not the text's own drawing */
		if (sec && (sec->flags & KMT_SEC_TEXT_ONLY)) {
			size_t i;

			for (i = 0, sec = NULL; i < sd->model->nr && !sec; i++) {
				const struct kmt_section *x = sd->model->sections[i];

				if (!strcmp(x->group, group ? group : "") &&
				    !strcmp(x->key, key) &&
				    !(x->flags & KMT_SEC_TEXT_ONLY))
					sec = x;
			}
		}
		if (!sec || sec->kind != KMT_SEC_TABLE ||
		    sec->table.style == KMT_TABLE_SERIES)
			return 0;
		st->t = &sec->table;
		st->buf = calloc(st->t->ncols ? st->t->ncols : 1,
				 sizeof(*st->buf));
		return st->buf ? 1 : -ENOMEM;
	} else {
		const struct kmt_jv *g = group ? kmt_jv_get(sd->doc, group) :
						 sd->doc;
		const struct kmt_jv *t = kmt_jv_get(g, key);

		if (!t || t->type != KMT_J_ARR)
			return 0;
		st->arr = t;
		return 1;
	}
}

static size_t st_rows(const struct side_table *st)
{
	return st->t ? st->t->nrows : st->arr->n;
}

static void st_row(struct side_table *st, size_t r)
{
	if (st->t)
		st->row = kmt_table_row(st->t, r, st->buf);
	else
		st->jrow = st->arr->items[r];
}

/* column col of the current row as a string, NULL when it is none */
static const char *st_str(const struct side_table *st, const char *col)
{
	if (st->t) {
		int c = kmt_table_col(st->t, col);

		return c >= 0 && st->t->cols[c].type == KMT_V_STR &&
		       !(st->t->unrecorded >> c & 1) ? st->row[c].str : NULL;
	} else {
		const struct kmt_jv *v = kmt_jv_get(st->jrow, col);

		return v && v->type == KMT_J_STR ? v->str : NULL;
	}
}

/* column col of the current row as a number, 0 when it is none */
static double st_num(const struct side_table *st, const char *col)
{
	if (st->t) {
		int c = kmt_table_col(st->t, col);

		if (c < 0 || st->t->unrecorded >> c & 1)
			return 0;
		switch (st->t->cols[c].type) {
		case KMT_V_U64:
		case KMT_V_DURATION:
		case KMT_V_TIME:
			return (double)st->row[c].u;
		case KMT_V_S64:
			return (double)st->row[c].s;
		case KMT_V_DOUBLE:
		case KMT_V_PCT:
			return st->row[c].d;
		default:
			return 0;
		}
	} else {
		const struct kmt_jv *v = kmt_jv_get(st->jrow, col);

		return v && v->type == KMT_J_NUM ? v->num : 0;
	}
}

/* ---- matching ---- */

/* a symbol without "+off": "do_wp_page+293" -> "do_wp_page" */
static void add_name(struct kmt_sb *sb, const char *s, size_t len,
		     int symbols)
{
	const char *plus = symbols ? memchr(s, '+', len) : NULL;

	kmt_sb_add(sb, s, plus ? (size_t)(plus - s) : len);
}

/* a stack's frames, " <- " apart, each without its offset */
static void add_stack(struct kmt_sb *sb, const char *s)
{
	for (;;) {
		const char *sep = strstr(s, " <- ");
		size_t len = sep ? (size_t)(sep - s) : strlen(s);

		add_name(sb, s, len, 1);
		if (!sep)
			break;
		kmt_sb_adds(sb, " <- ");
		s = sep + 4;
	}
}

static struct drow *row_for(struct kmt_diff *d, int dim, uint32_t kind,
			    uint32_t name)
{
	uint64_t key = (uint64_t)kind << 32 | name;
	uint32_t *slot;
	int is_new;

	slot = kmt_hash_u32_put(&d->index[dim], key, &is_new);
	if (!slot)
		return NULL;
	if (!is_new)
		return &d->rows[dim][*slot - 1];
	if (KMT_ARRAY_GROW(d->rows[dim], d->nr[dim] + 1, d->alloc[dim]))
		return NULL;
	memset(&d->rows[dim][d->nr[dim]], 0, sizeof(struct drow));
	d->rows[dim][d->nr[dim]].kind = kind;
	d->rows[dim][d->nr[dim]].name = name;
	*slot = (uint32_t)++d->nr[dim];
	return &d->rows[dim][d->nr[dim] - 1];
}

/* the frames of a stack given as an array (pageowner's JSON) */
static void add_frames(struct kmt_sb *sb, const struct kmt_jv *nv)
{
	size_t f;

	for (f = 0; f < nv->n; f++) {
		const struct kmt_jv *fr = nv->items[f];

		if (fr->type != KMT_J_STR)
			continue;
		if (f)
			kmt_sb_adds(sb, " <- ");
		add_name(sb, fr->str, strlen(fr->str), 1);
	}
}

/* a stack of the model's, a frame a line, indented (KMT_V_STACK) */
static int add_lines(struct kmt_sb *sb, const struct side_table *st,
		     const char *col)
{
	int c = kmt_table_col(st->t, col);
	const char *p;
	int n = 0;

	if (c < 0 || (st->t->cols[c].type != KMT_V_STACK &&
		      st->t->cols[c].type != KMT_V_LINES) || !st->row[c].str)
		return 0;
	for (p = st->row[c].str; *p; ) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, "\n");
		if (len) {
			if (n++)
				kmt_sb_adds(sb, " <- ");
			add_name(sb, p, len, 1);
		}
		p += len;
		if (*p)
			p++;
	}
	return 1;
}

static int add_side(struct kmt_diff *d, struct side *sd, int which)
{
	struct kmt_sb sb = KMT_SB_INIT;
	struct side_table st;
	size_t i, r, k;
	int ret;

	for (i = 0; i < d->k->nr_sources; i++) {
		const struct source *src = &d->k->sources[i];

		ret = side_table(sd, src->group, src->table, &st);
		if (ret < 0)
			goto oom;
		if (!ret)
			continue;
		sd->has[src->dim] = 1;
		for (r = 0; r < st_rows(&st); r++) {
			const struct kmt_jv *nv = NULL;
			const char *name, *kind;
			uint32_t kid, nid;
			struct drow *dr;

			st_row(&st, r);
			name = st_str(&st, src->name_col);
			kind = src->kind_col ? st_str(&st, src->kind_col) : NULL;
			if (!kind)
				kind = src->kind;
			if (!name && st.jrow)
				nv = kmt_jv_get(st.jrow, src->name_col);
			kmt_sb_reset(&sb);
			if (!kind)
				continue;
			if (!name && st.t) {
				/* a stack as lines */
				if (!add_lines(&sb, &st, src->name_col))
					continue;
			} else if (!name && !(nv && nv->type == KMT_J_ARR)) {
				continue;
			} else if (!name)
				add_frames(&sb, nv);	/* a stack as frames */
			else if (strstr(name, " <- "))
				add_stack(&sb, name);
			else
				add_name(&sb, name, strlen(name), src->symbols);
			if (sb.oom)
				goto oom;
			kid = kmt_strtab_intern(&d->strs, kind, strlen(kind));
			nid = kmt_strtab_intern(&d->strs, kmt_sb_str(&sb), sb.len);
			if (!kid || !nid || !(dr = row_for(d, src->dim, kid, nid)))
				goto oom;
			dr->in[which] = 1;
			for (k = 0; k < 4 && src->vals[k].col; k++) {
				double v = st_num(&st, src->vals[k].col);

				if (src->vals[k].minus)
					v -= st_num(&st, src->vals[k].minus);
				dr->v[which][src->vals[k].m] += v * src->vals[k].scale;
			}
		}
		free(st.buf);
	}
	kmt_sb_release(&sb);
	return 0;
oom:
	free(st.buf);
	kmt_sb_release(&sb);
	return -ENOMEM;
}

/* ---- output ---- */

static double value(const struct kmt_diff *d, const struct side *sd,
		    const struct drow *r, int which, int m)
{
	double v = r->v[which][m];

	if (d->rates && d->k->metrics[m].flow && sd->span > 0)
		v /= sd->span;
	return v;
}

/* the figure dimension dim is sorted by: the one asked for, or, where
 * its tables lack it (stacks have only what is live), the fallback */
static int dim_metric(const struct diff_kind *k, int dim, int want)
{
	size_t i, v;

	for (i = 0; i < k->nr_sources; i++) {
		for (v = 0; v < 4 && k->sources[i].vals[v].col; v++) {
			if (k->sources[i].dim == dim &&
			    k->sources[i].vals[v].m == want)
				return want;
		}
	}
	return k->fallback;
}

struct sorted {
	const struct kmt_diff *d;
	const struct side *s;
	int dim;
};

static int cmp_growth(const void *pa, const void *pb, void *ctx)
{
	const struct sorted *sc = ctx;
	const struct drow *a = pa, *b = pb;
	const struct kmt_diff *d = sc->d;
	const struct side *s = sc->s;
	int m = dim_metric(d->k, sc->dim, d->sort);
	double ga = value(d, &s[1], a, 1, m) - value(d, &s[0], a, 0, m);
	double gb = value(d, &s[1], b, 1, m) - value(d, &s[0], b, 0, m);

	if (ga != gb)
		return ga < gb ? 1 : -1;
	if (a->kind != b->kind)
		return strcmp(kmt_strtab_get(&d->strs, a->kind),
			      kmt_strtab_get(&d->strs, b->kind));
	return strcmp(kmt_strtab_get(&d->strs, a->name),
		      kmt_strtab_get(&d->strs, b->name));
}

static const char *change(struct kmt_report *rep, double a, double b,
			  int in_a, int in_b)
{
	if (!in_a)
		return "only in B";
	if (!in_b)
		return "only in A";
	if (a == b)
		return "=";
	if (a == 0)
		return "from 0";
	return kmt_report_printf(rep, "%+.1f%%", (b - a) * 100 / a);
}

/* [1]: rates, which are not whole */
static const struct kmt_col diff_cols[2][6] = {
	{
		{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
		{ "name", "Name", KMT_V_STR, KMT_COL_LEFT },
		{ "a", "A", KMT_V_S64, KMT_COL_GROUPED },
		{ "b", "B", KMT_V_S64, KMT_COL_GROUPED },
		{ "diff", "B - A", KMT_V_S64, KMT_COL_GROUPED },
		{ "change", "Change", KMT_V_STR, KMT_COL_LEFT },
	}, {
		{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
		{ "name", "Name", KMT_V_STR, KMT_COL_LEFT },
		{ "a", "A", KMT_V_DOUBLE, 0 },
		{ "b", "B", KMT_V_DOUBLE, 0 },
		{ "diff", "B - A", KMT_V_DOUBLE, 0 },
		{ "change", "Change", KMT_V_STR, KMT_COL_LEFT },
	},
};

/* a summary item for JSON, CSV and ndjson alone */
static int json_item(struct kmt_summary *sum, enum kmt_sum_kind kind,
		     const char *key, enum kmt_val_type type, union kmt_val v)
{
	struct kmt_sum_item it = {
		.kind = kind, .key = key, .type = type, .v = v,
		.flags = KMT_COL_NO_TEXT,
	};

	return kmt_summary_add(sum, &it);
}

static int note(struct kmt_summary *sum, const char *text)
{
	struct kmt_sum_item it = { .kind = KMT_SUM_NOTE, .label = text };

	return text ? kmt_summary_add(sum, &it) : -ENOMEM;
}

/* a side as JSON has it: {"input", "format", "kernel", "span_s"} */
static int side_items(struct kmt_report *rep, struct kmt_summary *sum,
		      const char *key, const struct side *sd)
{
	const char *format = NULL, *kernel = NULL;
	const struct kmt_jv *v;
	int err = 0;

	if (sd->po) {
		/* what a dump's saved JSON says: no format, no kernel */
	} else if (sd->model) {
		format = sd->model->meta.format;
		kernel = sd->model->meta.kernel;
	} else {
		v = kmt_jv_get(sd->doc, "format");
		format = v && v->type == KMT_J_STR ? v->str : NULL;
		v = kmt_jv_get(sd->doc, "kernel");
		kernel = v && v->type == KMT_J_STR ? v->str : NULL;
	}
	if (kernel && !*kernel)
		kernel = NULL;
	err |= json_item(sum, KMT_SUM_BEGIN, key, KMT_V_U64, (union kmt_val){ 0 });
	err |= json_item(sum, KMT_SUM_VALUE, "input", KMT_V_STR,
			 (union kmt_val){ .str = kmt_report_strdup(rep, sd->path) });
	err |= json_item(sum, KMT_SUM_VALUE, "format", KMT_V_STR,
			 (union kmt_val){ .str = format ?
				 kmt_report_strdup(rep, format) : NULL });
	err |= json_item(sum, KMT_SUM_VALUE, "kernel", KMT_V_STR,
			 (union kmt_val){ .str = kernel ?
				 kmt_report_strdup(rep, kernel) : NULL });
	err |= json_item(sum, KMT_SUM_VALUE, "span_s", KMT_V_DOUBLE,
			 (union kmt_val){ .d = sd->span });
	err |= json_item(sum, KMT_SUM_END, NULL, KMT_V_U64, (union kmt_val){ 0 });
	return err;
}

/*
 * What the comparison says before its tables: the sides, whether flows
 * are rates, the dimensions one side lacks (text's "# " lines), and for
 * JSON the sides and the sort key.
 */
static int add_head(struct kmt_diff *d, struct side *s, struct kmt_report *rep)
{
	const struct diff_kind *k = d->k;
	struct kmt_summary *sum;
	size_t dim;
	int err = 0, w;

	sum = kmt_report_add_summary(rep, "", "sides", NULL);
	if (!sum)
		return -ENOMEM;
	for (w = 0; w < 2; w++)
		err |= note(sum, k == &report_kind ?
			    kmt_report_printf(rep, "# %s: %s (%.6f s)",
					      w ? "B" : "A", s[w].path, s[w].span) :
			    kmt_report_printf(rep, "# %s: %s", w ? "B" : "A",
					      s[w].path));
	if (d->rates)
		err |= note(sum, "# the spans differ: allocations, bytes and "
			    "waste compared per second; live at the end as it is");
	for (dim = 0; dim < k->nr_dims; dim++) {
		if (s[0].has[dim] != s[1].has[dim])
			err |= note(sum, kmt_report_printf(rep, "# %s: not in %s",
							   k->dims[dim],
							   s[0].has[dim] ? "B" : "A"));
	}
	err |= side_items(rep, sum, "a", &s[0]);
	err |= side_items(rep, sum, "b", &s[1]);
	err |= json_item(sum, KMT_SUM_VALUE, "rates", KMT_V_BOOL,
			 (union kmt_val){ .u = (uint64_t)d->rates });
	err |= json_item(sum, KMT_SUM_VALUE, "sort", KMT_V_STR,
			 (union kmt_val){ .str = k->metrics[d->sort].name });
	return err ? -ENOMEM : 0;
}

/*
 * The columns of a dimension's table: text's (the sort key's figure in
 * A and B, the difference and the change; [1]: rates, which are not
 * whole), then JSON's, every figure of both sides ("allocs.a", ...).
 */
#define TEXT_COLS 6

static struct kmt_col *table_cols(const struct kmt_diff *d, int rate,
				  struct kmt_report *rep, size_t *ncols)
{
	const struct diff_kind *k = d->k;
	size_t n = TEXT_COLS + 1 + 2 * k->nr_metrics, m, c;
	struct kmt_col *cols = kmt_arena_zalloc(&rep->arena, n * sizeof(*cols));

	if (!cols)
		return NULL;
	memcpy(cols, diff_cols[rate], TEXT_COLS * sizeof(*cols));
	for (c = 2; c < TEXT_COLS; c++)
		cols[c].flags |= KMT_COL_TEXT_ONLY;
	c = TEXT_COLS;
	cols[c++] = (struct kmt_col){ "in", "In", KMT_V_STR, KMT_COL_NO_TEXT };
	for (m = 0; m < k->nr_metrics; m++) {
		cols[c].key = kmt_report_printf(rep, "%s.a", k->metrics[m].name);
		cols[c].title = cols[c].key;
		cols[c].type = KMT_V_DOUBLE;
		cols[c++].flags = KMT_COL_NO_TEXT;
		cols[c].key = kmt_report_printf(rep, "%s.b", k->metrics[m].name);
		cols[c].title = cols[c].key;
		cols[c].type = KMT_V_DOUBLE;
		cols[c++].flags = KMT_COL_NO_TEXT;
	}
	*ncols = n;
	return rep->oom ? NULL : cols;
}

/*
 * The comparison as a report: a table per dimension either side has,
 * sorted by the growth of the sort key, at most lines rows (0: all).
 */
static int diff_report(struct kmt_diff *d, struct side *s, int lines,
		       struct kmt_report *rep)
{
	const struct kmt_report *b = s[1].model ? s[1].model : s[0].model;
	size_t dim, i, m, ncols;

	rep->meta.bare = 1;
	rep->meta.input = kmt_report_printf(rep, "%s and %s", s[0].path,
					    s[1].path);
	rep->meta.format = "kmemtrace diff";
	/* ndjson's origin columns: the recording B, or A, where made here */
	if (b) {
		rep->meta.host = b->meta.host;
		rep->meta.kernel = b->meta.kernel;
		rep->meta.boot_id = b->meta.boot_id;
		rep->meta.first_ts = b->meta.first_ts;
		rep->meta.last_ts = b->meta.last_ts;
		rep->meta.has_start = b->meta.has_start;
		rep->meta.start_unix_ns = b->meta.start_unix_ns;
	}
	if (add_head(d, s, rep))
		return -ENOMEM;
	for (dim = 0; dim < d->k->nr_dims; dim++) {
		struct sorted sc = { d, s, (int)dim };
		int sm = dim_metric(d->k, (int)dim, d->sort);
		int rate = d->rates && d->k->metrics[sm].flow;
		const char *title;
		struct kmt_table *t;
		struct kmt_col *cols;
		size_t n = d->nr[dim];

		if (!s[0].has[dim] && !s[1].has[dim])
			continue;
		qsort_r(d->rows[dim], n, sizeof(struct drow), cmp_growth, &sc);
		title = kmt_report_printf(rep, "DIFF by %s: %s%s, sorted by growth",
					  d->k->dims[dim], d->k->metrics[sm].title,
					  rate ? " per second" : "");
		cols = table_cols(d, rate, rep, &ncols);
		t = cols ? kmt_report_add_table(rep, "", d->k->dims[dim], title,
						cols, ncols, KMT_TABLE_PLAIN) :
			   NULL;
		if (!t)
			return -ENOMEM;
		for (i = 0; i < n && (!lines || i < (size_t)lines); i++) {
			const struct drow *r = &d->rows[dim][i];
			union kmt_val *v = kmt_table_add_row(t);
			double a = value(d, &s[0], r, 0, sm);
			double bv = value(d, &s[1], r, 1, sm);

			if (!v)
				return -ENOMEM;
			v[0].str = kmt_strtab_get(&d->strs, r->kind);
			v[1].str = kmt_strtab_get(&d->strs, r->name);
			if (rate) {
				v[2].d = a;
				v[3].d = bv;
				v[4].d = bv - a;
			} else {
				v[2].s = llround(a);
				v[3].s = llround(bv);
				v[4].s = llround(bv) - llround(a);
			}
			v[5].str = change(rep, a, bv, r->in[0], r->in[1]);
			v[6].str = r->in[0] && r->in[1] ? "both" :
				   r->in[0] ? "a" : "b";
			for (m = 0; m < d->k->nr_metrics; m++) {
				v[7 + 2 * m].d = value(d, &s[0], r, 0, (int)m);
				v[8 + 2 * m].d = value(d, &s[1], r, 1, (int)m);
			}
		}
		t->total_rows = n;
	}
	return rep->oom ? -ENOMEM : 0;
}

/* the columns of report's profile that the pprof renderer reads */
static const struct kmt_col pprof_cols[] = {
	{ "kind", "Kind", KMT_V_STR, 0 },
	{ "comm", "Comm", KMT_V_STR, 0 },
	{ "pid", "Pid", KMT_V_S64, 0 },
	{ "cache", "Cache", KMT_V_STR, 0 },
	{ "order", "Order", KMT_V_S64, 0 },
	{ "alloc_objects", "Allocs", KMT_V_S64, 0 },
	{ "alloc_space", "Bytes", KMT_V_S64, 0 },
	{ "inuse_objects", "Live", KMT_V_S64, 0 },
	{ "inuse_space", "Live bytes", KMT_V_S64, 0 },
	{ "stack", "Stack", KMT_V_STR, 0 },
	{ "stack_ips", "Addresses", KMT_V_STR, 0 },
	{ "gfp", "GFP", KMT_V_STR, 0 },
	{ "base", "Base", KMT_V_STR, 0 },
};

/* a profile row's string column, "" when it has none */
static const char *pstr(const struct side_table *st, const char *col)
{
	const char *v = st_str(st, col);

	return v ? v : "";
}

/*
 * Both sides' profiles in one pprof profile, as `go tool pprof
 * -diff_base A B` makes it: A's samples negated and labelled
 * pprof::base, B's as they are.  pprof then shows B minus A, with
 * shares of A's total.  Addresses are kept per side (two boots place the
 * kernel apart); pprof adds samples up by function name.
 */
static int pprof_report(struct side *s, struct kmt_report *rep)
{
	const struct kmt_report_meta *b = &s[1].model->meta;
	struct kmt_table *t;
	size_t i, c;
	int side;

	rep->meta.input = kmt_report_printf(rep, "%s (the base) and %s",
					   s[0].path, s[1].path);
	rep->meta.format = "kmemtrace diff";
	rep->meta.kernel = b->kernel ? kmt_report_strdup(rep, b->kernel) : "";
	rep->meta.nr_cpus = b->nr_cpus;
	t = kmt_report_add_table(rep, "profile", "samples",
				 "PROFILE: B's allocations minus A's",
				 pprof_cols, KMT_NCOLS(pprof_cols),
				 KMT_TABLE_PLAIN);
	for (side = 0; t && side < 2 && !rep->oom; side++) {
		struct side_table st;
		int has = side_table(&s[side], "profile", "samples", &st);

		if (has < 0)
			rep->oom = 1;
		for (i = 0; has > 0 && i < st_rows(&st); i++) {
			union kmt_val *v = kmt_table_add_row(t);

			if (!v) {
				rep->oom = 1;
				break;
			}
			st_row(&st, i);
			v[0].str = pstr(&st, "kind");
			v[1].str = pstr(&st, "comm");
			v[2].s = llround(st_num(&st, "pid"));
			v[3].str = pstr(&st, "cache");
			v[4].s = llround(st_num(&st, "order"));
			for (c = 0; c < KMT_PROFILE_NR_VALUES; c++) {
				int64_t x = llround(st_num(&st,
						    kmt_profile_values[c][0]));

				v[5 + c].s = side ? x : -x;
			}
			v[9].str = pstr(&st, "stack");
			v[10].str = pstr(&st, "stack_ips");
			v[11].str = pstr(&st, "gfp");
			v[12].str = side ? "" : "true";
		}
		free(st.buf);
	}
	return !t || rep->oom ? -ENOMEM : 0;
}

/* ---- the engine's API ---- */

struct kmt_diff *kmt_diff_create(const struct kmt_diff_spec *spec,
				 enum kmt_run_status *status, char *msg,
				 size_t len)
{
	const struct diff_kind *k = kind_of(spec->what);
	struct kmt_diff *d;
	size_t m, dim;
	int sort = k->default_sort;

	if (spec->sort) {
		char keys[128];
		size_t o = 0;

		for (m = 0; m < k->nr_metrics &&
		     strcmp(k->metrics[m].name, spec->sort); m++)
			;
		if (m < k->nr_metrics) {
			sort = (int)m;
		} else {
			for (m = 0; m < k->nr_metrics && o < sizeof(keys); m++)
				o += (size_t)snprintf(keys + o, sizeof(keys) - o,
						      "%s%s", m ? ", " : "",
						      k->metrics[m].name);
			snprintf(msg, len, "unknown sort key '%s': the keys are %s",
				 spec->sort, keys);
			*status = KMT_RUN_E_SPEC;
			return NULL;
		}
	}
	d = calloc(1, sizeof(*d));
	if (!d || kmt_strtab_init(&d->strs)) {
		free(d);
		snprintf(msg, len, "out of memory");
		*status = KMT_RUN_E_NOMEM;
		return NULL;
	}
	d->spec = *spec;
	d->k = k;
	d->sort = sort;
	for (dim = 0; dim < MAX_DIMS; dim++)
		kmt_hash_u32_init(&d->index[dim]);
	kmt_arena_init(&d->warn_arena);
	kmt_arena_init(&d->s[0].arena);
	kmt_arena_init(&d->s[1].arena);
	*status = KMT_RUN_OK;
	return d;
}

enum kmt_run_status kmt_diff_load(struct kmt_diff *d, int which,
				  const char *path)
{
	struct side *sd = &d->s[which];

	kmt_arena_free(&d->warn_arena);
	kmt_arena_init(&d->warn_arena);
	d->nr_warnings = 0;
	d->errmsg[0] = 0;
	d->read_err = 0;
	free_side(sd);
	memset(sd, 0, sizeof(*sd));
	sd->path = path;
	return load_side(d, sd);
}

const char *kmt_diff_warning(const struct kmt_diff *d, size_t i)
{
	return i < d->nr_warnings ? d->warnings[i] : NULL;
}

const char *kmt_diff_error(const struct kmt_diff *d)
{
	return d->errmsg;
}

int kmt_diff_read_error(const struct kmt_diff *d)
{
	return d->read_err;
}

/* both sides' rows matched by name, once */
static int match(struct kmt_diff *d)
{
	if (d->matched)
		return 0;
	/* spans a tenth apart or more: flows compare as rates */
	d->rates = fabs(d->s[0].span - d->s[1].span) >
		   0.1 * fmax(d->s[0].span, d->s[1].span);
	if (add_side(d, &d->s[0], 0) || add_side(d, &d->s[1], 1))
		return -ENOMEM;
	d->matched = 1;
	return 0;
}

int kmt_diff_report(struct kmt_diff *d, struct kmt_report *rep)
{
	if (match(d))
		return -ENOMEM;
	return diff_report(d, d->s, d->spec.lines, rep);
}

int kmt_diff_pprof(struct kmt_diff *d, struct kmt_report *rep)
{
	return pprof_report(d->s, rep);
}

void kmt_diff_free(struct kmt_diff *d)
{
	size_t dim;

	if (!d)
		return;
	for (dim = 0; dim < MAX_DIMS; dim++) {
		free(d->rows[dim]);
		kmt_hash_u32_free(&d->index[dim]);
	}
	kmt_strtab_free(&d->strs);
	free_side(&d->s[0]);
	free_side(&d->s[1]);
	kmt_arena_free(&d->warn_arena);
	free(d);
}

const char *kmt_diff_path(const struct kmt_diff *d, int which)
{
	return d->s[which].path;
}

double kmt_diff_span(const struct kmt_diff *d, int which)
{
	return d->s[which].span;
}

int kmt_diff_rates(const struct kmt_diff *d)
{
	return d->rates;
}

size_t kmt_diff_nr_dims(const struct kmt_diff *d)
{
	return d->k->nr_dims;
}

const char *kmt_diff_dim(const struct kmt_diff *d, size_t dim)
{
	return d->k->dims[dim];
}

int kmt_diff_has(const struct kmt_diff *d, int which, size_t dim)
{
	return d->s[which].has[dim];
}

const char *kmt_diff_sort_title(const struct kmt_diff *d, size_t dim)
{
	return d->k->metrics[dim_metric(d->k, (int)dim, d->sort)].title;
}

size_t kmt_diff_nr_metrics(const struct kmt_diff *d)
{
	return d->k->nr_metrics;
}

const char *kmt_diff_metric(const struct kmt_diff *d, size_t m, int *flow)
{
	if (flow)
		*flow = d->k->metrics[m].flow;
	return d->k->metrics[m].name;
}

const char *kmt_diff_key_name(enum kmt_diff_what what, size_t i)
{
	const struct diff_kind *k = kind_of(what);

	return i < k->nr_metrics ? k->metrics[i].name : NULL;
}
