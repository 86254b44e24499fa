// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace diff A B: what changed between two recordings, or between a
 * report saved as JSON (the baseline) and a recording.  Each side is
 * reduced to report's JSON (a recording through `report` itself, run
 * here with the tables the comparison needs; a saved report read back),
 * so that a baseline compares exactly as its recording would.  Rows are
 * matched by name: callsites and stack frames without their offsets, so
 * two boots (KASLR) and two builds of a kernel compare.
 *
 * Per callsite, cache, command name and stack, each side's figures are
 * summed by name; the table shows the chosen figure in A and in B, the
 * difference and the change, sorted by the growth, rows only in one side
 * marked.  When the spans differ, flows (allocations, bytes, waste) are
 * compared per second; what is live at the end is compared as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "options.h"
#include "util/hash.h"
#include "render/render.h"
#include "report/report.h"
#include "util/arena.h"
#include "util/array.h"
#include "util/json.h"
#include "util/jsonread.h"
#include "util/strbuf.h"
#include "util/strtab.h"

static const char *const diff_usage[] = {
	"kmemtrace diff [<options>] <A> <B>",
	"kmemtrace diff --save <file> [<options>] <recording>",
	NULL
};

enum metric { M_ALLOCS, M_BYTES, M_WASTED, M_LIVE, M_LIVE_BYTES, NR_METRICS };

static const struct {
	const char *name, *title;
	int flow;		/* a rate when the spans differ */
} metrics[NR_METRICS] = {
	[M_ALLOCS] = { "allocs", "allocations", 1 },
	[M_BYTES] = { "bytes", "bytes allocated", 1 },
	[M_WASTED] = { "wasted", "bytes wasted (allocated - requested)", 1 },
	[M_LIVE] = { "live", "objects live at the end", 0 },
	[M_LIVE_BYTES] = { "live_bytes", "bytes live at the end", 0 },
};

enum dim { D_CALLSITE, D_CACHE, D_COMM, D_STACK, NR_DIMS };

static const char *const dim_names[NR_DIMS] = {
	"callsites", "caches", "comms", "stacks",
};

/*
 * Where each figure comes from in report's JSON: a table (group, key),
 * its name column, an optional kind column or fixed kind, and per
 * metric a column (minus another, times a scale).  Several sources may
 * feed one dimension, and several rows one name: they add up.
 */
struct source {
	enum dim dim;
	const char *group, *table, *name_col;
	const char *kind_col, *kind;
	int symbols;		/* names are symbols: drop the offsets */
	struct {
		enum metric m;
		const char *col, *minus;
		double scale;
	} vals[4];
};

static const struct source sources[] = {
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

#define NR_SOURCES (sizeof(sources) / sizeof(sources[0]))

struct side {
	const char *path;
	struct kmt_arena arena;
	struct kmt_jv *doc;
	double span;		/* seconds */
	int has[NR_DIMS];	/* the document holds the dimension's tables */
};

struct drow {
	uint32_t kind, name;	/* strtab ids */
	double v[2][NR_METRICS];
	int in[2];
};

struct diff {
	struct kmt_strtab strs;
	struct drow *rows[NR_DIMS];
	size_t nr[NR_DIMS], alloc[NR_DIMS];
	struct kmt_hash_u32 index[NR_DIMS];	/* kind << 32 | name -> row + 1 */
	int rates;
	enum metric sort;
};

/* ---- reading a side ---- */

static int is_json(const char *path)
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

/*
 * report's JSON for a recording, with the tables a comparison reads,
 * written to path: report itself does it, so a baseline saved with
 * --save is what a comparison of the recording would read.
 */
struct pass {
	const char *older_than, *time, *comm, *pid;
};

static int run_report(const char *input, const char *path,
		      const struct pass *ps)
{
	char *argv[28];
	int argc = 0, ret;

	argv[argc++] = (char *)"diff";
	argv[argc++] = (char *)"--json";
	argv[argc++] = (char *)"--slab";
	argv[argc++] = (char *)"--page";
	argv[argc++] = (char *)"--caller";
	argv[argc++] = (char *)"--caches";
	argv[argc++] = (char *)"--procs";
	argv[argc++] = (char *)"--by";
	argv[argc++] = (char *)"comm";
	argv[argc++] = (char *)"--leaks";
	if (ps->older_than) {
		argv[argc++] = (char *)"--older-than";
		argv[argc++] = (char *)ps->older_than;
	}
	if (ps->time) {
		argv[argc++] = (char *)"--time";
		argv[argc++] = (char *)ps->time;
	}
	if (ps->comm) {
		argv[argc++] = (char *)"--comm";
		argv[argc++] = (char *)ps->comm;
	}
	if (ps->pid) {
		argv[argc++] = (char *)"--pid";
		argv[argc++] = (char *)ps->pid;
	}
	argv[argc++] = (char *)"-o";
	argv[argc++] = (char *)path;
	argv[argc++] = (char *)"--";
	argv[argc++] = (char *)input;
	argv[argc] = NULL;
	kmt_errors_lock_json(1);
	ret = cmd_report(argc, argv);
	kmt_errors_lock_json(0);
	kmt_set_command("diff");
	return ret;
}

static int read_all(int fd, char **out, size_t *len)
{
	struct kmt_sb sb = KMT_SB_INIT;
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		kmt_sb_add(&sb, buf, (size_t)n);
	if (n < 0 || sb.oom) {
		int err = n < 0 ? errno : ENOMEM;

		kmt_sb_release(&sb);
		return -err;
	}
	*out = sb.buf;
	*len = sb.len;
	return 0;
}

static int load_side(struct side *sd, const struct pass *ps)
{
	const struct kmt_jv *span;
	const char *what;
	char *text = NULL;
	size_t len = 0, off;
	int fd, ret, json = is_json(sd->path);

	kmt_arena_init(&sd->arena);
	if (json) {
		if (ps->older_than || ps->time || ps->comm || ps->pid)
			return kmt_usage_error("'%s' is a saved report: "
					       "--older-than, --time, --comm and "
					       "--pid apply to recordings (save "
					       "it with them)", sd->path);
		fd = open(sd->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return kmt_error(KMT_EXIT_INPUT, "cannot open '%s': %s",
					 sd->path, strerror(errno));
	} else {
		char path[64];

		fd = memfd_create("kmemtrace-diff", MFD_CLOEXEC);
		if (fd < 0)
			return kmt_error(KMT_EXIT_RUNTIME, "cannot make a "
					 "temporary file: %s", strerror(errno));
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ret = run_report(sd->path, path, ps);
		if (ret && ret != KMT_EXIT_PARTIAL) {
			close(fd);
			return ret;
		}
		lseek(fd, 0, SEEK_SET);
	}
	ret = read_all(fd, &text, &len);
	close(fd);
	if (ret)
		return kmt_error(ret == -ENOMEM ? KMT_EXIT_RUNTIME : KMT_EXIT_INPUT,
				 "cannot read '%s': %s", sd->path, strerror(-ret));
	ret = kmt_json_parse(&sd->arena, text ? text : "", len, &sd->doc,
			     &off, &what);
	free(text);
	if (ret == -ENOMEM)
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	if (ret)
		return kmt_error(KMT_EXIT_INPUT, "'%s' is not a report's JSON: "
				 "byte %zu: %s", sd->path, off, what);
	if (sd->doc->type != KMT_J_OBJ || !kmt_jv_get(sd->doc, "input") ||
	    !(span = kmt_jv_get(sd->doc, "span_ns")) || span->type != KMT_J_NUM)
		return kmt_error(KMT_EXIT_INPUT, "'%s' is JSON but not a "
				 "kmemtrace report (no input or span_ns)",
				 sd->path);
	sd->span = span->num / 1e9;
	return 0;
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

static double num(const struct kmt_jv *row, const char *col)
{
	const struct kmt_jv *v = kmt_jv_get(row, col);

	return v && v->type == KMT_J_NUM ? v->num : 0;
}

static struct drow *row_for(struct diff *d, enum dim dim, uint32_t kind,
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

static int add_side(struct diff *d, struct side *sd, int which)
{
	struct kmt_sb sb = KMT_SB_INIT;
	size_t i, r, k;

	for (i = 0; i < NR_SOURCES; i++) {
		const struct source *src = &sources[i];
		const struct kmt_jv *t = kmt_jv_get(kmt_jv_get(sd->doc,
							     src->group),
						    src->table);

		if (!t || t->type != KMT_J_ARR)
			continue;
		sd->has[src->dim] = 1;
		for (r = 0; r < t->n; r++) {
			const struct kmt_jv *row = t->items[r];
			const struct kmt_jv *nv = kmt_jv_get(row, src->name_col);
			const struct kmt_jv *kv = src->kind_col ?
				kmt_jv_get(row, src->kind_col) : NULL;
			const char *kind = kv && kv->type == KMT_J_STR ?
					   kv->str : src->kind;
			uint32_t kid, nid;
			struct drow *dr;

			if (!nv || nv->type != KMT_J_STR || !kind)
				continue;
			kmt_sb_reset(&sb);
			if (src->dim == D_STACK)
				add_stack(&sb, nv->str);
			else
				add_name(&sb, nv->str, strlen(nv->str),
					 src->symbols);
			if (sb.oom)
				goto oom;
			kid = kmt_strtab_intern(&d->strs, kind, strlen(kind));
			nid = kmt_strtab_intern(&d->strs, kmt_sb_str(&sb), sb.len);
			if (!kid || !nid || !(dr = row_for(d, src->dim, kid, nid)))
				goto oom;
			dr->in[which] = 1;
			for (k = 0; k < 4 && src->vals[k].col; k++) {
				double v = num(row, src->vals[k].col);

				if (src->vals[k].minus)
					v -= num(row, src->vals[k].minus);
				dr->v[which][src->vals[k].m] += v * src->vals[k].scale;
			}
		}
	}
	kmt_sb_release(&sb);
	return 0;
oom:
	kmt_sb_release(&sb);
	return -ENOMEM;
}

/* ---- output ---- */

static double value(const struct diff *d, const struct side *sd,
		    const struct drow *r, int which, enum metric m)
{
	double v = r->v[which][m];

	if (d->rates && metrics[m].flow && sd->span > 0)
		v /= sd->span;
	return v;
}

/* the figure dimension dim is sorted by: the one asked for, or, where
 * its tables lack it (stacks have only what is live), bytes live */
static enum metric dim_metric(enum dim dim, enum metric want)
{
	size_t i, k;

	for (i = 0; i < NR_SOURCES; i++) {
		for (k = 0; k < 4 && sources[i].vals[k].col; k++) {
			if (sources[i].dim == dim && sources[i].vals[k].m == want)
				return want;
		}
	}
	return M_LIVE_BYTES;
}

struct sorted {
	const struct diff *d;
	const struct side *s;
	enum dim dim;
};

static int cmp_growth(const void *pa, const void *pb, void *ctx)
{
	const struct sorted *sc = ctx;
	const struct drow *a = pa, *b = pb;
	const struct diff *d = sc->d;
	const struct side *s = sc->s;
	enum metric m = dim_metric(sc->dim, d->sort);
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

static int draw_text(struct diff *d, struct side *s, int lines, FILE *out)
{
	struct kmt_report rep;
	size_t dim, i;
	int ret = 0;

	kmt_report_init(&rep);
	for (dim = 0; dim < NR_DIMS; dim++) {
		struct sorted sc = { d, s, (enum dim)dim };
		enum metric m = dim_metric((enum dim)dim, d->sort);
		int rate = d->rates && metrics[m].flow;
		const char *title;
		struct kmt_table *t;
		size_t n = d->nr[dim];

		if (!s[0].has[dim] && !s[1].has[dim])
			continue;
		qsort_r(d->rows[dim], n, sizeof(struct drow), cmp_growth, &sc);
		title = kmt_report_printf(&rep, "DIFF by %s: %s%s, sorted by growth",
					  dim_names[dim], metrics[m].title,
					  rate ? " per second" : "");
		t = kmt_report_add_table(&rep, "diff", dim_names[dim], title,
					 diff_cols[rate], 6, KMT_TABLE_PLAIN);
		if (!t)
			goto oom;
		for (i = 0; i < n && (!lines || i < (size_t)lines); i++) {
			const struct drow *r = &d->rows[dim][i];
			union kmt_val *v = kmt_table_add_row(t);
			double a = value(d, &s[0], r, 0, m);
			double b = value(d, &s[1], r, 1, m);

			if (!v)
				goto oom;
			v[0].str = kmt_strtab_get(&d->strs, r->kind);
			v[1].str = kmt_strtab_get(&d->strs, r->name);
			if (rate) {
				v[2].d = a;
				v[3].d = b;
				v[4].d = b - a;
			} else {
				v[2].s = llround(a);
				v[3].s = llround(b);
				v[4].s = llround(b) - llround(a);
			}
			v[5].str = change(&rep, a, b, r->in[0], r->in[1]);
		}
		t->total_rows = n;
	}
	if (rep.oom)
		goto oom;
	ret = kmt_render_text_more(&rep, out) ? -1 : 0;
	kmt_report_free(&rep);
	return ret;
oom:
	kmt_report_free(&rep);
	errno = ENOMEM;
	return -1;
}

static void json_side(struct kmt_json *j, const char *key,
		      const struct side *s)
{
	const struct kmt_jv *v;

	kmt_json_obj_open(j, key);
	kmt_json_str(j, "input", s->path);
	v = kmt_jv_get(s->doc, "format");
	kmt_json_str(j, "format", v && v->type == KMT_J_STR ? v->str : NULL);
	v = kmt_jv_get(s->doc, "kernel");
	kmt_json_str(j, "kernel", v && v->type == KMT_J_STR ? v->str : NULL);
	kmt_json_double(j, "span_s", s->span);
	kmt_json_obj_close(j);
}

static int draw_json(struct diff *d, struct side *s, int lines, FILE *out)
{
	struct kmt_json j;
	size_t dim, i, m;

	kmt_json_init(&j, out, 1);
	kmt_json_obj_open(&j, NULL);
	json_side(&j, "a", &s[0]);
	json_side(&j, "b", &s[1]);
	kmt_json_bool(&j, "rates", d->rates);
	kmt_json_str(&j, "sort", metrics[d->sort].name);
	for (dim = 0; dim < NR_DIMS; dim++) {
		struct sorted sc = { d, s, (enum dim)dim };

		if (!s[0].has[dim] && !s[1].has[dim])
			continue;
		qsort_r(d->rows[dim], d->nr[dim], sizeof(struct drow),
			cmp_growth, &sc);
		kmt_json_arr_open(&j, dim_names[dim]);
		for (i = 0; i < d->nr[dim] && (!lines || i < (size_t)lines); i++) {
			const struct drow *r = &d->rows[dim][i];

			kmt_json_obj_open(&j, NULL);
			kmt_json_str(&j, "kind", kmt_strtab_get(&d->strs, r->kind));
			kmt_json_str(&j, "name", kmt_strtab_get(&d->strs, r->name));
			kmt_json_str(&j, "in", r->in[0] && r->in[1] ? "both" :
					       r->in[0] ? "a" : "b");
			for (m = 0; m < NR_METRICS; m++) {
				kmt_json_obj_open(&j, metrics[m].name);
				kmt_json_double(&j, "a", value(d, &s[0], r, 0, m));
				kmt_json_double(&j, "b", value(d, &s[1], r, 1, m));
				kmt_json_obj_close(&j);
			}
			kmt_json_obj_close(&j);
		}
		kmt_json_arr_close(&j);
	}
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
	return ferror(out) ? -1 : 0;
}

static void list_metrics(FILE *out, int help)
{
	size_t m;

	if (help)
		fputs("\nsort keys (-s):", out);
	for (m = 0; m < NR_METRICS; m++)
		fprintf(out, help ? " %s" : "%s\n", metrics[m].name);
	if (help)
		fputc('\n', out);
}

int cmd_diff(int argc, char **argv)
{
	const char *output = NULL, *sort = NULL, *save = NULL;
	struct pass ps = { NULL, NULL, NULL, NULL };
	int json = 0, lines = 0, ret, nargs, i;
	const struct kmt_option options[] = {
		OPT_GROUP("what is compared"),
		OPT_WORDS('s', "sort", &sort, "key", list_metrics,
			  "the figure shown and sorted by its growth (listed below; "
			  "default bytes)"),
		OPT_STRING(0, "older-than", &ps.older_than, "duration",
			   "recordings: live at the end means alive at least this "
			   "long (leaked)"),
		OPT_STRING(0, "time", &ps.time, "start,end",
			   "recordings: only events in this window (as report --time)"),
		OPT_STRING(0, "comm", &ps.comm, "list",
			   "recordings: only these command names (as report --comm)"),
		OPT_STRING(0, "pid", &ps.pid, "list",
			   "recordings: only these processes (as report --pid)"),
		OPT_GROUP("output"),
		OPT_INT('l', "limit", &lines, "n", 0, INT_MAX,
			"print at most n rows per table (0: all, the default)"),
		OPT_BOOL(0, "json", &json, "JSON: every row with every figure"),
		OPT_STRING('o', "output", &output, "file",
			   "write the comparison to <file> ('-': stdout, the default)"),
		OPT_STRING(0, "save", &save, "file",
			   "write the recording's report as a JSON baseline to "
			   "<file>, to compare later without the recording"),
		OPT_END(),
	};
	struct side s[2];
	struct diff d;
	FILE *out;
	size_t m, dim;

	nargs = kmt_parse_options(argc, argv, options, diff_usage, 0);
	if (save) {
		if (nargs != 1)
			return kmt_usage_error("--save takes one recording, not %d "
					       "inputs", nargs);
		if (json || output || sort || lines)
			return kmt_usage_error("--save writes the baseline alone");
		if (is_json(argv[0]))
			return kmt_usage_error("'%s' is already a saved report",
					       argv[0]);
		return run_report(argv[0], save, &ps);
	}
	if (nargs != 2)
		return kmt_usage_error("two inputs to compare, A and B, not %d",
				       nargs);
	memset(&d, 0, sizeof(d));
	d.sort = M_BYTES;
	if (sort) {
		for (m = 0; m < NR_METRICS && strcmp(metrics[m].name, sort); m++)
			;
		if (m == NR_METRICS)
			return kmt_usage_error("unknown sort key '%s': the keys are "
					       "allocs, bytes, wasted, live, "
					       "live_bytes", sort);
		d.sort = (enum metric)m;
	}
	memset(s, 0, sizeof(s));
	s[0].path = argv[0];
	s[1].path = argv[1];
	if (!strcmp(s[0].path, "-") && !strcmp(s[1].path, "-"))
		return kmt_usage_error("only one of A and B can be the standard input");
	ret = 0;
	for (i = 0; i < 2 && !ret; i++)
		ret = load_side(&s[i], &ps);
	if (ret)
		goto out_sides;
	if (kmt_strtab_init(&d.strs)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out_sides;
	}
	for (dim = 0; dim < NR_DIMS; dim++)
		kmt_hash_u32_init(&d.index[dim]);
	/* spans a tenth apart or more: flows compare as rates */
	d.rates = fabs(s[0].span - s[1].span) >
		  0.1 * fmax(s[0].span, s[1].span);
	if (add_side(&d, &s[0], 0) || add_side(&d, &s[1], 1)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	out = kmt_open_output(output);
	if (!out) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
				strerror(errno));
		goto out;
	}
	errno = 0;
	if (!json) {
		fprintf(out, "# A: %s (%.6f s)\n# B: %s (%.6f s)\n", s[0].path,
			s[0].span, s[1].path, s[1].span);
		if (d.rates)
			fprintf(out, "# the spans differ: allocations, bytes and "
				"waste compared per second; live at the end as it is\n");
		for (dim = 0; dim < NR_DIMS; dim++) {
			if (s[0].has[dim] != s[1].has[dim])
				fprintf(out, "# %s: not in %s (save baselines "
					"with kmemtrace diff --save)\n",
					dim_names[dim], s[0].has[dim] ? "B" : "A");
		}
		ret = draw_text(&d, s, lines, out);
	} else {
		ret = draw_json(&d, s, lines, out);
	}
	ret = kmt_close_output(out, output, ret ? (errno ? errno : EIO) : 0);
out:
	for (dim = 0; dim < NR_DIMS; dim++) {
		free(d.rows[dim]);
		kmt_hash_u32_free(&d.index[dim]);
	}
	kmt_strtab_free(&d.strs);
out_sides:
	kmt_arena_free(&s[0].arena);
	kmt_arena_free(&s[1].arena);
	return ret;
}
