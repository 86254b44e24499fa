// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/serve.h"
#include "report/profile.h"
#include "report/report.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/strbuf.h"

#define NR(a)	(sizeof(a) / sizeof((a)[0]))

/* a series' (kind, label) -> its row in the table being made */
KMT_HASH_TYPE(serve_series, size_t)
/* a stack key's hash -> its sample in a profile */
KMT_HASH_TYPE(serve_samples, size_t)

void kmt_serve_config(struct kmt_bpf_config *cfg, uint32_t sample,
		      int cgroup_mode)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->count_sites = 1;
	cfg->track_live = 1;
	cfg->take_stacks = 1;
	cfg->sample = sample;
	/*
	 * top's sizes: counts by process fill a smaller counts map on a
	 * machine that forks a lot (bench/serve: 16384 lost 10% of the
	 * events, and a full map's failed inserts slowed the workload);
	 * what does not fit is counted (kmemtrace_lost_events_total)
	 */
	cfg->sites_max = 65536;
	cfg->live_max = 65536;
	cfg->stacks_max = 8192;
	cfg->stack_agg_max = 16384;
	cfg->comms_max = 16384;
	cfg->cgroups_max = 4096;
	cfg->cgroup_mode = cgroup_mode;
	cfg->count_cgroups = cgroup_mode != KMT_CG_OFF;
}

uint64_t kmt_serve_state_bytes(const struct kmt_bpf_config *cfg,
			       size_t top_n)
{
	/* a hash table's slot: its key beside the value, at half load */
	uint64_t slot = 2 * sizeof(uint64_t);
	/* counters: the map's and as many again of exited processes */
	uint64_t sites = 2ULL * cfg->sites_max;
	uint64_t rows = sites + cfg->stack_agg_max + cfg->cgroups_max;
	uint64_t b = 0;

	b += 2 * sites * (sizeof(struct top_mirror) + slot);
	b += 2ULL * cfg->stack_agg_max * (sizeof(struct top_smirror) + slot);
	b += 2ULL * cfg->cgroups_max * (sizeof(struct top_cgmirror) + slot);
	b += 2ULL * cfg->comms_max * slot;		/* alive */
	b += rows * (sizeof(struct kmt_top_row) + 2 * slot);
	/* each row's counters at the last scrape, by dimension */
	b += 2 * rows * (sizeof(struct kmt_serve_counts) + slot);
	/* the stacks' frames, interned once */
	b += (uint64_t)cfg->stacks_max * (KMT_STACK_DEPTH * 8 + 32);
	/* a profile's snapshot, two for a delta */
	b += 2ULL * cfg->stack_agg_max * (sizeof(struct kmt_serve_sample) +
					  slot);
	/* a scrape's series: labels of up to 512 bytes */
	b += 3 * 5 * (top_n + 1) * 600;
	return b;
}

void kmt_serve_init(struct kmt_serve *s, struct kmt_bpf *b,
		    struct kmt_bpf_names *names, struct kmt_cgroups *c,
		    size_t top_n, uint64_t now_ns)
{
	memset(s, 0, sizeof(*s));
	kmt_top_init(&s->top, b, names, now_ns);
	if (c && b->cfg.count_cgroups) {
		kmt_top_set_cgroups(&s->top, c);
		s->cgroups = 1;
	}
	s->top_n = top_n;
	kmt_serve_last_init(&s->last);
}

void kmt_serve_free(struct kmt_serve *s)
{
	kmt_top_free(&s->top);
	kmt_serve_last_free(&s->last);
}

static int serve_error(struct kmt_serve *s, int err, const char *what)
{
	snprintf(s->errmsg, sizeof(s->errmsg), "%s", what);
	return err < 0 ? err : -err;
}

int kmt_serve_update(struct kmt_serve *s, uint64_t now_ns)
{
	int ret = kmt_top_update(&s->top, now_ns);

	if (ret)
		return serve_error(s, ret, s->top.errmsg);
	s->updates++;
	return 0;
}

enum {
	COL_KIND, COL_CALLSITE, COL_CACHE, COL_CGROUP,
	COL_ALLOCS, COL_FREES, COL_BYTES, COL_LIVE, COL_LIVE_BYTES,
	COL_ABSENT, NR_SERIES_COLS
};

static const struct kmt_col series_cols[NR_SERIES_COLS] = {
	[COL_KIND] = { "kind", "Kind", KMT_V_STR, 0 },
	[COL_CALLSITE] = { "callsite", "Callsite", KMT_V_STR, 0 },
	[COL_CACHE] = { "cache", "Cache", KMT_V_STR, 0 },
	[COL_CGROUP] = { "cgroup", "Memory cgroup", KMT_V_STR, 0 },
	[COL_ALLOCS] = { "kmemtrace_allocations_total",
		"Kernel memory allocations since the agent started, by one of callsite, cache or cgroup (page allocations by callsite: estimated from sampled stacks).",
		KMT_V_U64, 0 },
	[COL_FREES] = { "kmemtrace_frees_total",
		"Kernel memory frees since the agent started, by one of callsite (the freeing one), cache or cgroup.",
		KMT_V_U64, 0 },
	[COL_BYTES] = { "kmemtrace_allocated_bytes_total",
		"Bytes allocated since the agent started (slab: bytes_alloc), by one of callsite, cache or cgroup.",
		KMT_V_U64, 0 },
	[COL_LIVE] = { "kmemtrace_live_objects",
		"Objects allocated since the agent started and not yet freed, estimated from 1 address in kmemtrace_live_sample_ratio (percpu and vmalloc: all).",
		KMT_V_U64, 0 },
	[COL_LIVE_BYTES] = { "kmemtrace_live_bytes",
		"Bytes of the objects of kmemtrace_live_objects.",
		KMT_V_U64, 0 },
	[COL_ABSENT] = { "absent", "", KMT_V_U64, KMT_COL_ABSENT },
};

/* the kinds a dimension's series are kept apart by; NO_KIND: cgroups' */
static const char *const kinds[] = { "slab", "page", "percpu", "vmalloc" };
#define NR_KINDS	4
#define NO_KIND		NR_KINDS

static int kind_index(const char *word)
{
	int i;

	for (i = 0; i < NR_KINDS; i++) {
		if (!strcmp(word, kinds[i]))
			return i;
	}
	return 0;
}

/* the series of a dimension by bytes since the start: steady at the top */
static int cmp_cum(const void *pa, const void *pb)
{
	const struct kmt_top_row *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static const struct {
	enum kmt_top_view view;
	int col;		/* the label that names the row */
} dims[] = {
	{ KMT_TOP_CALLSITE, COL_CALLSITE },
	{ KMT_TOP_CACHE, COL_CACHE },
	{ KMT_TOP_CGROUP, COL_CGROUP },
};

struct series_ctx {
	struct kmt_report *r;
	struct kmt_table *t;
	struct serve_series index;
};

/* the row of (kind, label) in the table, made zeroed when new */
static union kmt_val *series_row(struct series_ctx *c, int kind, int col,
				 const char *label, int *made)
{
	uint64_t key;
	size_t *idx;
	union kmt_val *v;
	int is_new;

	/* an empty label is no label: the series would lose its dimension */
	if (!*label)
		label = "(unnamed)";
	key = kmt_hash_bytes(label, strlen(label)) ^
	      ((uint64_t)(kind * NR_SERIES_COLS + col) << 56);
	idx = serve_series_put(&c->index, key | 1, &is_new);
	if (!idx)
		return NULL;
	*made = is_new;
	if (!is_new)
		return c->t->vals + *idx * c->t->ncols;
	v = kmt_table_add_row(c->t);
	if (!v)
		return NULL;
	*idx = c->t->nrows - 1;
	v[COL_KIND].str = kind == NO_KIND ? "" : kinds[kind];
	v[COL_CALLSITE].str = v[COL_CACHE].str = v[COL_CGROUP].str = "";
	v[col].str = kmt_report_strdup(c->r, label);
	/* pages are freed without their callsite */
	if (col == COL_CALLSITE && kind == kind_index("page"))
		v[COL_ABSENT].u = 1ULL << COL_FREES;
	return v;
}

static void row_counts(const struct kmt_top_row *row,
		       struct kmt_serve_counts *c)
{
	int i;

	c->allocs = row->allocs;
	for (i = 0; i < KMT_TOP_ORDERS; i++)
		c->allocs += row->pages[i];
	c->frees = row->frees;
	c->bytes = row->bytes;
}

/* a row's key in last: its dimension and kind apart */
static uint64_t last_key(const struct kmt_top_row *row, size_t d, int k)
{
	return kmt_hash_mix(row->key) ^ (d * KMT_SERVE_KINDS + (size_t)k + 1);
}

static uint64_t gained(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/*
 * A row of the rest: its live objects into v (a gauge may go down), and
 * what its counters gained since the last scrape into the dimension's
 * "(other)" counters, which v then shows.  0, or -ENOMEM.
 */
static int add_other(struct kmt_serve *s, union kmt_val *v, size_t d, int k,
		     const struct kmt_top_row *row)
{
	struct kmt_serve_counts *o = &s->other[d][k], *last, now;

	last = kmt_serve_last_put(&s->last, last_key(row, d, k), NULL);
	if (!last)
		return -ENOMEM;
	row_counts(row, &now);
	o->allocs += gained(now.allocs, last->allocs);
	o->frees += gained(now.frees, last->frees);
	o->bytes += gained(now.bytes, last->bytes);
	*last = now;
	v[COL_ALLOCS].u = o->allocs;
	v[COL_FREES].u = o->frees;
	v[COL_BYTES].u = o->bytes;
	v[COL_LIVE].u += row->live;
	v[COL_LIVE_BYTES].u += row->live_bytes;
	return 0;
}

/* a row of the top: its counters as they are, remembered for add_other */
static int add_named(struct kmt_serve *s, union kmt_val *v, size_t d, int k,
		     const struct kmt_top_row *row)
{
	struct kmt_serve_counts *last;

	last = kmt_serve_last_put(&s->last, last_key(row, d, k), NULL);
	if (!last)
		return -ENOMEM;
	row_counts(row, last);
	v[COL_ALLOCS].u += last->allocs;
	v[COL_FREES].u += last->frees;
	v[COL_BYTES].u += last->bytes;
	v[COL_LIVE].u += row->live;
	v[COL_LIVE_BYTES].u += row->live_bytes;
	return 0;
}

static int add_dim(struct kmt_serve *s, struct series_ctx *c, size_t d)
{
	struct kmt_top *t = &s->top;
	size_t shown[NR_KINDS + 1] = { 0 }, i;
	char label[512];
	int ret;

	ret = kmt_top_build(t, dims[d].view, KMT_TOP_BYTES);
	if (ret)
		return serve_error(s, ret, t->errmsg);
	if (t->nr_rows)
		qsort(t->rows, t->nr_rows, sizeof(*t->rows), cmp_cum);
	for (i = 0; i < t->nr_rows; i++) {
		const struct kmt_top_row *row = &t->rows[i];
		int k = dims[d].view == KMT_TOP_CGROUP ? NO_KIND :
			kind_index(kmt_top_kind_word(row->kind));
		union kmt_val *v;
		int made = 0, named = shown[k] < s->top_n;

		/* rows of one label share a series: count the series */
		if (named)
			kmt_top_row_label(t, dims[d].view, row, label,
					  sizeof(label));
		else
			snprintf(label, sizeof(label), "(other)");
		v = series_row(c, k, dims[d].col, label, &made);
		if (!v)
			return serve_error(s, -ENOMEM, "out of memory");
		if (made && named)
			shown[k]++;
		ret = named ? add_named(s, v, d, k, row) :
			      add_other(s, v, d, k, row);
		if (ret)
			return serve_error(s, ret, "out of memory");
	}
	return 0;
}

/* a loss or an oddity counted by the programs, by reason */
static const struct {
	unsigned int stat;
	const char *reason;
	int loss;
} stat_rows[] = {
	{ KMT_S_SITES_FULL, "counts_map_full", 1 },
	{ KMT_S_LIVE_FULL, "live_map_full", 1 },
	{ KMT_S_STACK_FULL, "stack_map_full", 1 },
	{ KMT_S_STACK_FAILED, "stack_failed", 1 },
	{ KMT_S_STACKS_AGG_FULL, "stack_counts_map_full", 1 },
	{ KMT_S_COMM_FULL, "comm_map_full", 1 },
	{ KMT_S_CGROUPS_FULL, "cgroup_map_full", 1 },
	{ KMT_S_UNKNOWN_FREE, "free_of_unknown_object", 0 },
	{ KMT_S_REALLOC, "allocation_over_live_object", 0 },
	{ KMT_S_SPLIT_FREE, "page_freed_at_other_order", 0 },
	{ KMT_S_FAILED_ALLOC, "failed_allocation", 0 },
};

static const struct {
	unsigned int stat;
	const char *event;
} event_rows[] = {
	{ KMT_S_EVENTS_KMALLOC, "kmem:kmalloc" },
	{ KMT_S_EVENTS_CACHE_ALLOC, "kmem:kmem_cache_alloc" },
	{ KMT_S_EVENTS_KFREE, "kmem:kfree" },
	{ KMT_S_EVENTS_CACHE_FREE, "kmem:kmem_cache_free" },
	{ KMT_S_EVENTS_PAGE_ALLOC, "kmem:mm_page_alloc" },
	{ KMT_S_EVENTS_PAGE_FREE, "kmem:mm_page_free" },
	{ KMT_S_EVENTS_PERCPU, "percpu" },
	{ KMT_S_EVENTS_VMALLOC, "vmalloc" },
};

static const struct kmt_col loss_cols[] = {
	{ "reason", "Reason", KMT_V_STR, 0 },
	{ "kmemtrace_lost_events_total",
	  "Events the in-kernel counting could not count whole (a map full, a stack not taken, a program run the kernel skipped), by reason.",
	  KMT_V_U64, 0 },
};

static const struct kmt_col odd_cols[] = {
	{ "what", "What", KMT_V_STR, 0 },
	{ "kmemtrace_odd_events_total",
	  "Events of followed objects that are no loss but worth knowing (a free of an object allocated before the start, a failed allocation), by what.",
	  KMT_V_U64, 0 },
};

static const struct kmt_col event_cols[] = {
	{ "event", "Event", KMT_V_STR, 0 },
	{ "kmemtrace_events_total",
	  "Kernel memory events the programs saw, by tracepoint.",
	  KMT_V_U64, 0 },
};

static const struct kmt_col build_cols[] = {
	{ "version", "Version", KMT_V_STR, 0 },
	{ "kmemtrace_build_info",
	  "The agent's version, as a label of a series of value 1.",
	  KMT_V_U64, 0 },
};

static int add_build_info(struct kmt_serve *s, struct kmt_report *r)
{
	struct kmt_table *t;
	union kmt_val *v;

	if (!s->version)
		return 0;
	t = kmt_report_add_table(r, "metrics", "build", NULL, build_cols,
				 NR(build_cols), KMT_TABLE_PLAIN);
	v = t ? kmt_table_add_row(t) : NULL;
	if (!v)
		return -ENOMEM;
	v[0].str = s->version;
	v[1].u = 1;
	return 0;
}

static int add_counters(struct kmt_serve *s, struct kmt_report *r)
{
	const struct kmt_top_totals *tt = &s->top.totals;
	struct kmt_bpf *b = s->top.bpf;
	struct kmt_table *loss, *odd, *ev;
	union kmt_val *v;
	size_t i;

	loss = kmt_report_add_table(r, "metrics", "losses", NULL, loss_cols,
				    NR(loss_cols), KMT_TABLE_PLAIN);
	odd = kmt_report_add_table(r, "metrics", "odd", NULL, odd_cols,
				   NR(odd_cols), KMT_TABLE_PLAIN);
	ev = kmt_report_add_table(r, "metrics", "events", NULL, event_cols,
				  NR(event_cols), KMT_TABLE_PLAIN);
	if (!loss || !odd || !ev)
		return -ENOMEM;
	for (i = 0; i < NR(stat_rows); i++) {
		if (!kmt_bpf_stat_counted(b, stat_rows[i].stat))
			continue;
		v = kmt_table_add_row(stat_rows[i].loss ? loss : odd);
		if (!v)
			return -ENOMEM;
		v[0].str = stat_rows[i].reason;
		v[1].u = tt->stats[stat_rows[i].stat];
	}
	v = kmt_table_add_row(loss);
	if (!v)
		return -ENOMEM;
	v[0].str = "program_runs_missed";
	v[1].u = tt->missed;
	for (i = 0; i < NR(event_rows); i++) {
		v = kmt_table_add_row(ev);
		if (!v)
			return -ENOMEM;
		v[0].str = event_rows[i].event;
		v[1].u = tt->stats[event_rows[i].stat];
	}
	return 0;
}

int kmt_serve_metrics(struct kmt_serve *s, struct kmt_report *r)
{
	struct series_ctx c = { .r = r };
	struct kmt_summary *sum;
	size_t d;
	int ret = 0;

	c.t = kmt_report_add_table(r, "metrics", "series", NULL, series_cols,
				   NR_SERIES_COLS, KMT_TABLE_PLAIN);
	if (!c.t)
		return serve_error(s, -ENOMEM, "out of memory");
	serve_series_init(&c.index);
	for (d = 0; d < NR(dims) && !ret; d++) {
		if (dims[d].view != KMT_TOP_CGROUP || s->cgroups)
			ret = add_dim(s, &c, d);
	}
	serve_series_free(&c.index);
	if (ret)
		return ret;
	sum = kmt_report_add_summary(r, "metrics", "agent", NULL);
	if (!sum || add_counters(s, r) || add_build_info(s, r) ||
	    (s->start_unix &&
	     kmt_summary_u64(sum, "When the counting began (the start, or the last SIGHUP), in seconds since the epoch: the counters count from it.",
			     "kmemtrace_start_time_seconds", s->start_unix)) ||
	    kmt_summary_u64(sum, "Live objects are followed for 1 address in this many (percpu and vmalloc: every one).",
			    "kmemtrace_live_sample_ratio", s->top.sample) ||
	    kmt_summary_u64(sum, "Series kept per kind in each of callsite, cache and cgroup, besides one \"(other)\" (--top).",
			    "kmemtrace_series_limit", s->top_n) ||
	    kmt_summary_u64(sum, "Times the agent read the kernel's maps.",
			    "kmemtrace_updates_total", s->updates) || r->oom)
		return serve_error(s, -ENOMEM, "out of memory");
	return 0;
}

int kmt_serve_profile_take(struct kmt_serve *s, struct kmt_serve_profile *p)
{
	struct kmt_top *t = &s->top;
	size_t i;
	int ret;

	ret = kmt_top_build(t, KMT_TOP_STACK, KMT_TOP_BYTES);
	if (ret)
		return serve_error(s, ret, t->errmsg);
	p->nr = 0;
	p->ns = t->now_ns;
	for (i = 0; i < t->nr_rows; i++) {
		const struct kmt_top_row *row = &t->rows[i];
		struct kmt_serve_sample *o;

		if (KMT_ARRAY_GROW(p->s, p->nr + 1, p->alloc))
			return serve_error(s, -ENOMEM, "out of memory");
		o = &p->s[p->nr++];
		o->key = row->key;
		o->site = row->site;
		o->stack = row->stack;
		o->kind = row->kind;
		o->v[KMT_PROFILE_ALLOC_OBJECTS] = (int64_t)row->allocs;
		o->v[KMT_PROFILE_ALLOC_SPACE] = (int64_t)row->bytes;
		o->v[KMT_PROFILE_INUSE_OBJECTS] = (int64_t)row->live;
		o->v[KMT_PROFILE_INUSE_SPACE] = (int64_t)row->live_bytes;
	}
	return 0;
}

void kmt_serve_profile_free(struct kmt_serve_profile *p)
{
	free(p->s);
	p->s = NULL;
	p->nr = p->alloc = 0;
}

/* the columns render/pprof.c reads (report/profile.h) */
enum {
	PC_KIND, PC_COMM, PC_PID, PC_CACHE, PC_ORDER, PC_VALUES,
	PC_STACK = PC_VALUES + KMT_PROFILE_NR_VALUES, PC_IPS, NR_PC
};

static const struct kmt_col profile_cols[NR_PC] = {
	[PC_KIND] = { "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	[PC_COMM] = { "comm", "Comm", KMT_V_STR, KMT_COL_LEFT },
	[PC_PID] = { "pid", "Pid", KMT_V_S64, 0 },
	[PC_CACHE] = { "cache", "Cache", KMT_V_STR, KMT_COL_LEFT },
	[PC_ORDER] = { "order", "Order", KMT_V_S64, 0 },
	[PC_VALUES + KMT_PROFILE_ALLOC_OBJECTS] =
		{ "alloc_objects", "Allocs", KMT_V_S64, 0 },
	[PC_VALUES + KMT_PROFILE_ALLOC_SPACE] =
		{ "alloc_space", "Bytes", KMT_V_S64, 0 },
	[PC_VALUES + KMT_PROFILE_INUSE_OBJECTS] =
		{ "inuse_objects", "Live", KMT_V_S64, 0 },
	[PC_VALUES + KMT_PROFILE_INUSE_SPACE] =
		{ "inuse_space", "Live bytes", KMT_V_S64, 0 },
	[PC_STACK] = { "stack", "Stack", KMT_V_STR, KMT_COL_LEFT },
	[PC_IPS] = { "stack_ips", "Addresses", KMT_V_STR, KMT_COL_NO_TEXT },
};

/* a frame as profiles name it: the function, without its offset */
static void add_frame(struct kmt_serve *s, struct kmt_sb *n, struct kmt_sb *a,
		      uint64_t ip)
{
	char sym[256];
	const char *plus;

	kmt_bpf_names_sym(s->top.names, ip, sym, sizeof(sym));
	plus = strrchr(sym, '+');
	if (n->len)
		kmt_sb_addc(n, ';');
	if (a->len)
		kmt_sb_addc(a, ';');
	kmt_sb_add(n, sym, plus && sym[0] != '0' ? (size_t)(plus - sym) :
						    strlen(sym));
	kmt_sb_addf(a, "0x%" PRIx64, ip);
}

/* the frames outermost first, or the callsite alone without a stack */
static int frames(struct kmt_serve *s, struct kmt_report *r,
		  const struct kmt_serve_sample *o, union kmt_val *v)
{
	const struct kmt_stack *st = kmt_stacks_get(&s->top.names->sess.stacks,
						    o->stack);
	struct kmt_sb n = KMT_SB_INIT, a = KMT_SB_INIT;
	uint32_t i;
	int ret = 0;

	for (i = st ? st->nr : 0; i-- > 0;)
		add_frame(s, &n, &a, st->ips[i]);
	if (!st || !st->nr)
		add_frame(s, &n, &a, o->site);
	v[PC_STACK].str = kmt_report_strdup(r, kmt_sb_str(&n));
	v[PC_IPS].str = kmt_report_strdup(r, kmt_sb_str(&a));
	if (n.oom || a.oom || r->oom)
		ret = -ENOMEM;
	kmt_sb_release(&n);
	kmt_sb_release(&a);
	return ret;
}

int kmt_serve_profile_report(struct kmt_serve *s,
			     const struct kmt_serve_profile *p,
			     const struct kmt_serve_profile *base,
			     const char *weight, struct kmt_report *r)
{
	struct kmt_sum_item w = {
		.kind = KMT_SUM_VALUE, .label = "Weight:", .key = "weight",
		.type = KMT_V_STR, .v.str = weight,
	};
	struct serve_samples index;
	struct kmt_summary *sum;
	struct kmt_table *t;
	size_t i, j;
	int ret = 0;

	t = kmt_report_add_table(r, "profile", "samples", NULL, profile_cols,
				 NR_PC, KMT_TABLE_PLAIN);
	if (!t)
		return serve_error(s, -ENOMEM, "out of memory");
	serve_samples_init(&index);
	for (i = 0; base && i < base->nr && !ret; i++) {
		int is_new;
		size_t *idx = serve_samples_put(&index, base->s[i].key | 1,
						&is_new);

		if (!idx)
			ret = -ENOMEM;
		else
			*idx = i;
	}
	for (i = 0; i < p->nr && !ret; i++) {
		const struct kmt_serve_sample *o = &p->s[i];
		const size_t *was = base ? serve_samples_get(&index, o->key | 1) :
				    NULL;
		int64_t d[KMT_PROFILE_NR_VALUES];
		union kmt_val *v;
		int any = 0;

		for (j = 0; j < KMT_PROFILE_NR_VALUES; j++) {
			d[j] = o->v[j] - (was ? base->s[*was].v[j] : 0);
			any |= d[j] != 0;
		}
		if (!any)
			continue;
		v = kmt_table_add_row(t);
		if (!v) {
			ret = -ENOMEM;
			break;
		}
		v[PC_KIND].str = kmt_top_kind_word(o->kind);
		v[PC_COMM].str = v[PC_CACHE].str = "";
		v[PC_PID].s = v[PC_ORDER].s = -1;
		for (j = 0; j < KMT_PROFILE_NR_VALUES; j++)
			v[PC_VALUES + j].s = d[j];
		ret = frames(s, r, o, v);
	}
	serve_samples_free(&index);
	sum = ret ? NULL : kmt_report_add_summary(r, "profile", "summary",
						  NULL);
	if (ret || !sum || kmt_summary_add(sum, &w))
		return serve_error(s, -ENOMEM, "out of memory");
	if (!r->meta.nr_cpus)
		r->meta.nr_cpus = s->top.bpf->nr_cpus;
	r->meta.first_ts = base ? base->ns : s->top.start_ns;
	r->meta.last_ts = p->ns;
	return 0;
}
