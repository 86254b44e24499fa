// SPDX-License-Identifier: GPL-2.0
/*
 * allocinfo's tables.  Tags are gathered into rows by what the table is
 * of (the tag itself, its module, file or function), each row holding
 * both sides of a comparison: side 0 the earlier snapshot, side 1 the
 * later or only one.  Rows sort by the chosen figure, ties by name.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/allocinfo.h"
#include "event/session.h"
#include "util/array.h"
#include "util/hash.h"

static const char *const by_names[] = { "tag", "module", "file", "func" };
static const char *const sort_names[] = { "bytes", "calls", "growth" };

#define NR(a) (sizeof(a) / sizeof((a)[0]))

const char *kmt_ai_by_name(size_t i)
{
	return i < NR(by_names) ? by_names[i] : NULL;
}

const char *kmt_ai_sort_name(size_t i)
{
	return i < NR(sort_names) ? sort_names[i] : NULL;
}

static int find_name(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

int kmt_ai_by_parse(const char *name)
{
	return find_name(by_names, NR(by_names), name);
}

int kmt_ai_sort_parse(const char *name)
{
	return find_name(sort_names, NR(sort_names), name);
}

void kmt_ai_join_init(struct kmt_ai_join *j)
{
	memset(j, 0, sizeof(*j));
	kmt_ai_traced_init(&j->by_addr);
	kmt_ai_traced_init(&j->by_func);
}

void kmt_ai_join_free(struct kmt_ai_join *j)
{
	kmt_ai_traced_free(&j->by_addr);
	kmt_ai_traced_free(&j->by_func);
}

int kmt_ai_join_event(void *ctx, const struct kmt_event *ev)
{
	struct kmt_ai_join *j = ctx;
	struct kmt_ai_traced_fn *f;

	/* failed allocations (ptr 0) hold nothing */
	if ((ev->type != KMT_EV_KMALLOC && ev->type != KMT_EV_CACHE_ALLOC) ||
	    !ev->ptr || !ev->call_site)
		return 0;
	f = kmt_ai_traced_put(&j->by_addr, ev->call_site, NULL);
	if (!f)
		return -ENOMEM;
	f->allocs++;
	f->bytes_req += ev->bytes_req;
	f->bytes_alloc += ev->bytes_alloc;
	return 0;
}

int kmt_ai_join_resolve(struct kmt_ai_join *j, struct kmt_session *s,
			struct kmt_strtab *names)
{
	struct kmt_ai_traced_fn *v, *f;
	const char *name;
	uint64_t addr, off;
	size_t it = 0;
	uint32_t id;

	while (kmt_ai_traced_next(&j->by_addr, &it, &addr, &v)) {
		name = kmt_symtab_lookup(&s->syms, addr, &off);
		if (!name) {
			j->unnamed++;
			continue;
		}
		id = kmt_strtab_intern(names, name, strlen(name));
		if (!id)
			return -ENOMEM;
		f = kmt_ai_traced_put(&j->by_func, id, NULL);
		if (!f)
			return -ENOMEM;
		f->allocs += v->allocs;
		f->bytes_req += v->bytes_req;
		f->bytes_alloc += v->bytes_alloc;
	}
	return 0;
}

/* the row of a group: the tag's id of that group -> index in rows */
KMT_HASH_TYPE(kmt_ai_groups, size_t)

struct ai_row {
	uint32_t id;		/* of the group: tag key, module, file, func */
	const struct kmt_ai_tag *tag;	/* by tag: the tag, for its names */
	const struct kmt_allocinfo *ai;	/* whose names tag's ids are */
	int64_t bytes[2];
	uint64_t calls[2];
	uint64_t tags;
	unsigned in[2];
	unsigned inaccurate:1;
	const char *name;	/* what ties sort by */
	int64_t score;		/* what the rows sort by, descending */
};

struct ai_rows {
	struct ai_row *v;
	size_t nr, alloc;
	struct kmt_ai_groups index;
};

/* pattern list "a*,b": whether s matches any; an empty list matches */
static int matches(const char *list, const char *s)
{
	char pat[256];
	const char *p, *comma;
	size_t len;

	if (!list)
		return 1;
	for (p = list;; p = comma + 1) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len < sizeof(pat)) {
			memcpy(pat, p, len);
			pat[len] = 0;
			if (!fnmatch(pat, s, 0))
				return 1;
		}
		if (!comma)
			return 0;
	}
}

static int keep(const struct kmt_allocinfo *ai, const struct kmt_ai_tag *t,
		const struct kmt_ai_opts *o)
{
	return matches(o->module, kmt_allocinfo_name(ai, t->module)) &&
	       matches(o->file, kmt_allocinfo_name(ai, t->file)) &&
	       matches(o->func, kmt_allocinfo_name(ai, t->func));
}

static uint32_t group_id(const struct kmt_ai_tag *t, enum kmt_ai_by by)
{
	switch (by) {
	case KMT_AI_BY_MODULE:
		return t->module;
	case KMT_AI_BY_FILE:
		return t->file;
	case KMT_AI_BY_FUNC:
		return t->func;
	case KMT_AI_BY_TAG:
		break;
	}
	return t->key;
}

static int gather(struct ai_rows *rows, const struct kmt_allocinfo *ai,
		  int side, const struct kmt_ai_opts *o)
{
	size_t i, *idx;
	int is_new;

	for (i = 0; i < ai->nr; i++) {
		const struct kmt_ai_tag *t = &ai->tags[i];
		struct ai_row *row;

		if (!keep(ai, t, o))
			continue;
		idx = kmt_ai_groups_put(&rows->index, group_id(t, o->by),
					&is_new);
		if (!idx)
			return -ENOMEM;
		if (is_new) {
			if (KMT_ARRAY_GROW(rows->v, rows->nr + 1, rows->alloc))
				return -ENOMEM;
			*idx = rows->nr++;
			row = &rows->v[*idx];
			memset(row, 0, sizeof(*row));
			row->id = group_id(t, o->by);
			row->tag = t;
			row->ai = ai;
			row->name = o->by == KMT_AI_BY_MODULE && !row->id ?
				"(built in)" : kmt_allocinfo_name(ai, row->id);
		}
		row = &rows->v[*idx];
		row->bytes[side] += t->bytes;
		row->calls[side] += t->calls;
		row->in[side] = 1;
		row->tags += side == 1;
		if (t->inaccurate)
			row->inaccurate = 1;
	}
	return 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct ai_row *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	return strcmp(a->name, b->name);
}

static void sort_rows(struct ai_rows *rows, enum kmt_ai_sort by)
{
	size_t i;

	for (i = 0; i < rows->nr; i++) {
		struct ai_row *row = &rows->v[i];

		switch (by) {
		case KMT_AI_SORT_BYTES:
			row->score = row->bytes[1];
			break;
		case KMT_AI_SORT_CALLS:
			row->score = (int64_t)(row->calls[1] - row->calls[0]);
			break;
		case KMT_AI_SORT_GROWTH:
			row->score = row->bytes[1] - row->bytes[0];
			break;
		}
	}
	if (rows->nr)
		qsort(rows->v, rows->nr, sizeof(*rows->v), cmp_rows);
}

static void rows_free(struct ai_rows *rows)
{
	free(rows->v);
	kmt_ai_groups_free(&rows->index);
}

static const struct kmt_col tag_cols[] = {
	{ "bytes", "bytes", KMT_V_S64, 0 },
	{ "calls", "calls", KMT_V_U64, 0 },
	{ "func", "function", KMT_V_STR, KMT_COL_LEFT },
	{ "location", "file:line", KMT_V_STR, KMT_COL_LEFT },
	{ "module", "module", KMT_V_STR, KMT_COL_LEFT },
	/* from version 2.0, which says it: "no" for accurate:no */
	{ "accurate", "accurate", KMT_V_STR, KMT_COL_LEFT },
	/* with a recording */
	{ "traced_allocs", "traced allocs", KMT_V_U64, 0 },
	{ "traced_bytes", "traced bytes", KMT_V_U64, 0 },
};

#define NR_TAG_VALUES 5

static const struct kmt_col group_cols[] = {
	{ "name", NULL, KMT_V_STR, KMT_COL_LEFT },
	{ "tags", "tags", KMT_V_U64, 0 },
	{ "bytes", "bytes", KMT_V_S64, 0 },
	{ "calls", "calls", KMT_V_U64, 0 },
	/* by func with a recording */
	{ "traced_allocs", "traced allocs", KMT_V_U64, 0 },
	{ "traced_bytes", "traced bytes", KMT_V_U64, 0 },
};

#define NR_GROUP_VALUES 4

static const struct kmt_col diff_cols[] = {
	{ "bytes_a", "bytes A", KMT_V_S64, 0 },
	{ "bytes_b", "bytes B", KMT_V_S64, 0 },
	{ "growth", "growth", KMT_V_S64, 0 },
	{ "calls_a", "calls A", KMT_V_U64, 0 },
	{ "calls_b", "calls B", KMT_V_U64, 0 },
	{ "calls_growth", "calls +", KMT_V_S64, 0 },
	{ "ratio", "B/A", KMT_V_DOUBLE, 0 },
	{ "in", "in", KMT_V_STR, KMT_COL_LEFT },
	/* then the names: a tag's three, or a group's one */
	{ "func", "function", KMT_V_STR, KMT_COL_LEFT },
	{ "location", "file:line", KMT_V_STR, KMT_COL_LEFT },
	{ "module", "module", KMT_V_STR, KMT_COL_LEFT },
};

#define NR_DIFF_VALUES 8

static const char *const group_titles[] = {
	[KMT_AI_BY_MODULE] = "module",
	[KMT_AI_BY_FILE] = "file",
	[KMT_AI_BY_FUNC] = "function",
};

static const char *const table_keys[] = {
	[KMT_AI_BY_TAG] = "tags",
	[KMT_AI_BY_MODULE] = "modules",
	[KMT_AI_BY_FILE] = "files",
	[KMT_AI_BY_FUNC] = "functions",
};

/* the names of a row into v: a tag's function, file:line and module */
static void put_names(struct kmt_report *r, const struct ai_row *row,
		      enum kmt_ai_by by, union kmt_val *v)
{
	const struct kmt_allocinfo *ai = row->ai;
	const struct kmt_ai_tag *t = row->tag;

	if (by != KMT_AI_BY_TAG) {
		v[0].str = kmt_report_strdup(r, row->name);
		return;
	}
	v[0].str = kmt_report_strdup(r, kmt_allocinfo_name(ai, t->func));
	v[1].str = kmt_report_printf(r, "%s:%u",
				     kmt_allocinfo_name(ai, t->file), t->line);
	v[2].str = kmt_report_strdup(r, kmt_allocinfo_name(ai, t->module));
}

static size_t shown(size_t nr, size_t limit)
{
	return limit && limit < nr ? limit : nr;
}

/*
 * How well the recording's callsites met the tags: its functions, those
 * some tag (that the filters keep) names, and callsites without a name.
 */
static int join_summary(struct kmt_summary *s, const struct kmt_allocinfo *ai,
			const struct kmt_ai_opts *o)
{
	struct kmt_ai_groups funcs;
	uint64_t matched = 0, key;
	size_t i, it = 0;
	int ret = -ENOMEM;

	kmt_ai_groups_init(&funcs);
	for (i = 0; i < ai->nr; i++)
		if (keep(ai, &ai->tags[i], o) &&
		    !kmt_ai_groups_put(&funcs, ai->tags[i].func, NULL))
			goto out;
	while (kmt_ai_traced_next(&o->join->by_func, &it, &key, NULL))
		matched += kmt_ai_groups_get(&funcs, key) != NULL;
	if (kmt_summary_u64(s, "Recording's callsite functions:",
			    "traced_functions",
			    kmt_ai_traced_count(&o->join->by_func)) ||
	    kmt_summary_u64(s, "  named by a tag:              ",
			    "traced_functions_tagged", matched) ||
	    kmt_summary_u64(s, "  callsites without a symbol:  ",
			    "traced_callsites_unnamed", o->join->unnamed))
		goto out;
	ret = 0;
out:
	kmt_ai_groups_free(&funcs);
	return ret;
}

int kmt_ai_report(struct kmt_report *r, const struct kmt_allocinfo *ai,
		  const struct kmt_ai_opts *o)
{
	struct ai_rows rows = { 0 };
	struct kmt_summary *s;
	struct kmt_table *t;
	struct kmt_col *cols = NULL;
	uint64_t calls = 0, inaccurate = 0, tags = 0;
	int64_t bytes = 0;
	size_t i, n;
	int ret = -ENOMEM;
	/* a recording's figures are per function: for tags and functions */
	int joined = o->join && (o->by == KMT_AI_BY_TAG ||
				 o->by == KMT_AI_BY_FUNC);
	const struct kmt_ai_traced_fn *tr;
	/* where the recording's columns start; the accurate column shown */
	size_t join_col = NR_GROUP_VALUES;
	int accurate = 0;

	kmt_ai_groups_init(&rows.index);
	if (gather(&rows, ai, 1, o))
		goto out;
	sort_rows(&rows, o->sort == KMT_AI_SORT_CALLS ? KMT_AI_SORT_CALLS :
			 KMT_AI_SORT_BYTES);
	if (o->by == KMT_AI_BY_TAG) {
		/* version 1.0 cannot tell: no column that would claim it */
		accurate = ai->nr_inaccurate ||
			   (ai->version[0] && strcmp(ai->version, "1.0"));
		join_col = NR_TAG_VALUES + accurate;
		cols = kmt_arena_alloc(&r->arena, sizeof(tag_cols));
		if (!cols)
			goto out;
		memcpy(cols, tag_cols, sizeof(tag_cols));
		if (!accurate)
			memmove(cols + NR_TAG_VALUES, cols + NR_TAG_VALUES + 1,
				2 * sizeof(*cols));
		t = kmt_report_add_table(r, "allocinfo", "tags", "Top tags",
					 cols, join_col + (o->join ? 2 : 0),
					 KMT_TABLE_PLAIN);
	} else {
		cols = kmt_arena_alloc(&r->arena, sizeof(group_cols));
		if (!cols)
			goto out;
		memcpy(cols, group_cols, sizeof(group_cols));
		cols[0].title = group_titles[o->by];
		t = kmt_report_add_table(r, "allocinfo", table_keys[o->by],
					 kmt_report_printf(r, "Totals per %s",
							   group_titles[o->by]),
					 cols, joined ? NR(group_cols) :
					 NR_GROUP_VALUES, KMT_TABLE_PLAIN);
	}
	if (!t)
		goto out;
	n = shown(rows.nr, o->limit);
	t->total_rows = rows.nr;
	for (i = 0; i < rows.nr; i++) {
		const struct ai_row *row = &rows.v[i];
		union kmt_val *v;

		bytes += row->bytes[1];
		calls += row->calls[1];
		tags += row->tags;
		if (o->by == KMT_AI_BY_TAG)
			inaccurate += row->inaccurate;
		if (i >= n)
			continue;
		v = kmt_table_add_row(t);
		if (!v)
			goto out;
		if (o->by == KMT_AI_BY_TAG) {
			v[0].s = row->bytes[1];
			v[1].u = row->calls[1];
			put_names(r, row, o->by, v + 2);
			if (accurate)
				v[NR_TAG_VALUES].str = row->inaccurate ? "no" :
									 "yes";
		} else {
			put_names(r, row, o->by, v);
			v[1].u = row->tags;
			v[2].s = row->bytes[1];
			v[3].u = row->calls[1];
		}
		tr = joined ? kmt_ai_traced_get(&o->join->by_func,
						row->tag->func) : NULL;
		if (tr) {
			v[join_col].u = tr->allocs;
			v[join_col + 1].u = tr->bytes_alloc;
		}
	}
	if (o->by != KMT_AI_BY_TAG)
		for (i = 0; i < ai->nr; i++)
			inaccurate += ai->tags[i].inaccurate &&
				      keep(ai, &ai->tags[i], o);
	s = kmt_report_add_summary(r, "allocinfo", "totals", "Totals");
	if (!s ||
	    kmt_summary_u64(s, "Tags:                         ", "tags", tags) ||
	    kmt_summary_add(s, &(struct kmt_sum_item){
		    .kind = KMT_SUM_VALUE,
		    .label = "Bytes:                        ", .key = "bytes",
		    .type = KMT_V_S64, .v.s = bytes }) ||
	    kmt_summary_u64(s, "Calls:                        ", "calls", calls) ||
	    kmt_summary_u64(s, "Tags with inaccurate counters:",
			    "inaccurate_tags", inaccurate))
		goto out;
	if (o->join && join_summary(s, ai, o))
		goto out;
	ret = r->oom ? -ENOMEM : 0;
out:
	rows_free(&rows);
	return ret;
}

int kmt_ai_report_diff(struct kmt_report *r, const struct kmt_allocinfo *a,
		       const struct kmt_allocinfo *b,
		       const struct kmt_ai_opts *o, const char *group,
		       const char *key, const char *title, int totals)
{
	struct ai_rows rows = { 0 };
	struct kmt_col *cols;
	struct kmt_table *t;
	struct kmt_summary *s;
	uint64_t only_a = 0, only_b = 0, ncols;
	int64_t bytes_a = 0, bytes_b = 0;
	size_t i, n;
	int ret = -ENOMEM;

	kmt_ai_groups_init(&rows.index);
	if (gather(&rows, a, 0, o) || gather(&rows, b, 1, o))
		goto out;
	/* the totals are of every tag, whether or not its row is shown */
	for (i = 0; i < rows.nr; i++) {
		bytes_a += rows.v[i].bytes[0];
		bytes_b += rows.v[i].bytes[1];
		only_a += rows.v[i].in[0] && !rows.v[i].in[1];
		only_b += !rows.v[i].in[0] && rows.v[i].in[1];
	}
	if (o->changed_only) {
		size_t k = 0;

		for (i = 0; i < rows.nr; i++)
			if (rows.v[i].bytes[0] != rows.v[i].bytes[1] ||
			    rows.v[i].calls[0] != rows.v[i].calls[1] ||
			    rows.v[i].in[0] != rows.v[i].in[1])
				rows.v[k++] = rows.v[i];
		rows.nr = k;
	}
	sort_rows(&rows, o->sort);
	ncols = o->by == KMT_AI_BY_TAG ? NR(diff_cols) : NR_DIFF_VALUES + 1;
	cols = kmt_arena_alloc(&r->arena, sizeof(diff_cols));
	if (!cols)
		goto out;
	memcpy(cols, diff_cols, sizeof(diff_cols));
	if (o->by != KMT_AI_BY_TAG) {
		cols[NR_DIFF_VALUES].key = "name";
		cols[NR_DIFF_VALUES].title = group_titles[o->by];
	}
	t = kmt_report_add_table(r, group, key, title, cols, ncols,
				 KMT_TABLE_PLAIN);
	if (!t)
		goto out;
	n = shown(rows.nr, o->limit);
	t->total_rows = rows.nr;
	for (i = 0; i < rows.nr; i++) {
		const struct ai_row *row = &rows.v[i];
		union kmt_val *v;

		if (i >= n)
			break;
		v = kmt_table_add_row(t);
		if (!v)
			goto out;
		v[0].s = row->bytes[0];
		v[1].s = row->bytes[1];
		v[2].s = row->bytes[1] - row->bytes[0];
		v[3].u = row->calls[0];
		v[4].u = row->calls[1];
		v[5].s = (int64_t)(row->calls[1] - row->calls[0]);
		/* 0 when A holds nothing: no ratio to give */
		v[6].d = row->bytes[0] ? (double)row->bytes[1] /
					 (double)row->bytes[0] : 0;
		v[7].str = !row->in[0] ? "B only" : !row->in[1] ? "A only" :
			   "both";
		put_names(r, row, o->by, v + NR_DIFF_VALUES);
	}
	if (totals) {
		s = kmt_report_add_summary(r, group,
					   kmt_report_printf(r, "%s_totals", key),
					   "Totals");
		if (!s ||
		    kmt_summary_u64(s, "Rows:                         ", "rows", rows.nr) ||
		    kmt_summary_add(s, &(struct kmt_sum_item){
			    .kind = KMT_SUM_VALUE,
			    .label = "Bytes in A:                   ",
			    .key = "bytes_a", .type = KMT_V_S64, .v.s = bytes_a }) ||
		    kmt_summary_add(s, &(struct kmt_sum_item){
			    .kind = KMT_SUM_VALUE,
			    .label = "Bytes in B:                   ",
			    .key = "bytes_b", .type = KMT_V_S64, .v.s = bytes_b }) ||
		    kmt_summary_add(s, &(struct kmt_sum_item){
			    .kind = KMT_SUM_VALUE,
			    .label = "Growth:                       ",
			    .key = "growth", .type = KMT_V_S64,
			    .v.s = bytes_b - bytes_a }) ||
		    kmt_summary_u64(s, "Only in A:                    ", "only_a", only_a) ||
		    kmt_summary_u64(s, "Only in B:                    ", "only_b", only_b))
			goto out;
	}
	ret = r->oom ? -ENOMEM : 0;
out:
	rows_free(&rows);
	return ret;
}

static const struct kmt_col metric_cols[] = {
	{ "function", "Function", KMT_V_STR, 0 },
	{ "location", "Location", KMT_V_STR, 0 },
	{ "module", "Module", KMT_V_STR, 0 },
	{ "kmemtrace_allocinfo_bytes",
	  "Bytes the allocation tag holds now, by /proc/allocinfo.",
	  KMT_V_S64, 0 },
	{ "kmemtrace_allocinfo_calls",
	  "Allocations the tag holds now, by /proc/allocinfo.",
	  KMT_V_U64, 0 },
};

int kmt_ai_metrics(struct kmt_report *r, const struct kmt_allocinfo *ai,
		   size_t top_n)
{
	struct kmt_ai_opts o = { .by = KMT_AI_BY_TAG };
	struct ai_rows rows = { 0 };
	struct kmt_summary *s;
	struct kmt_table *t;
	union kmt_val *v, *other = NULL;
	int64_t bytes = 0;
	size_t i;
	int ret = -ENOMEM;

	s = kmt_report_add_summary(r, "metrics", "allocinfo", NULL);
	if (!s || kmt_summary_u64(s, "Whether /proc/allocinfo was read for this scrape (allocation profiling, kernels since 6.10).",
				  "kmemtrace_allocinfo_up", !!ai))
		return -ENOMEM;
	if (!ai)
		return 0;
	kmt_ai_groups_init(&rows.index);
	t = kmt_report_add_table(r, "metrics", "allocinfo_tags", NULL,
				 metric_cols, NR(metric_cols),
				 KMT_TABLE_PLAIN);
	if (!t || gather(&rows, ai, 1, &o))
		goto out;
	sort_rows(&rows, KMT_AI_SORT_BYTES);
	for (i = 0; i < rows.nr; i++) {
		const struct ai_row *row = &rows.v[i];

		bytes += row->bytes[1];
		if (i >= top_n && other) {
			other[3].s += row->bytes[1];
			other[4].u += row->calls[1];
			continue;
		}
		v = kmt_table_add_row(t);
		if (!v)
			goto out;
		if (i < top_n) {
			put_names(r, row, KMT_AI_BY_TAG, v);
			v[3].s = row->bytes[1];
			v[4].u = row->calls[1];
			continue;
		}
		/* the rest in one series, so the scrape stays bounded */
		v[0].str = "(other)";
		v[3].s = row->bytes[1];
		v[4].u = row->calls[1];
		other = v;
	}
	if (kmt_summary_add(s, &(struct kmt_sum_item){
		    .kind = KMT_SUM_VALUE,
		    .label = "Bytes all allocation tags hold now, by /proc/allocinfo.",
		    .key = "kmemtrace_allocinfo_total_bytes",
		    .type = KMT_V_S64, .v.s = bytes }) ||
	    kmt_summary_u64(s, "Allocation tags /proc/allocinfo lists.",
			    "kmemtrace_allocinfo_tags", ai->nr) ||
	    kmt_summary_u64(s, "Lines of /proc/allocinfo that could not be read.",
			    "kmemtrace_allocinfo_malformed_lines", ai->nr_malformed))
		goto out;
	ret = r->oom ? -ENOMEM : 0;
out:
	rows_free(&rows);
	return ret;
}
