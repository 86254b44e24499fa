// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation profile: every allocation counted by where it came from
 * (its stack, or its callsite when the recording has no stacks), of each
 * kind (slab, page, percpu, vmalloc), which
 * process made it and what it took (cache, kmalloc size, page order),
 * with what was still allocated at the end.  It is what profilers read:
 * the pprof, folded and html renderers draw it, the four values being
 * pprof's alloc_objects, alloc_space, inuse_objects and inuse_space
 * (report/profile.h: its shape in the report model).
 *
 * One row per distinct origin, added to per allocation; the in-use
 * values come at the end from the live table (live.h), so nothing is kept
 * per object here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/gfp.h"
#include "event/session.h"
#include "event/stacks.h"
#include "report/profile.h"
#include "report/report.h"
#include "report/sort.h"
#include "util/rows.h"
#include "util/strbuf.h"

#define PROFILE_DEFAULT_SORT "alloc_space"

struct prof_key {
	uint64_t callsite;
	uint32_t stack;
	int32_t pid;
	uint32_t cache;		/* interned cache name, 0 unknown */
	uint32_t size;		/* kmalloc without a cache name: bytes_alloc */
	uint16_t type;		/* KMT_EV_KMALLOC, _CACHE_ALLOC, _PAGE_ALLOC */
	int16_t order;		/* page only */
	uint32_t pad;
};

struct prof_row {
	struct prof_key k;
	uint64_t v[KMT_PROFILE_NR_VALUES];
	/*
	 * The gfp flags of its allocations, a label, not part of the key
	 * (what is live at the end does not keep them): the first seen,
	 * and whether others were seen too.
	 */
	uint64_t gfp;
	uint32_t gfp_str;	/* text input: the flags' names, interned */
	uint8_t gfp_seen, gfp_mixed;
	int accounted;
};

/* a stack's frames as drawn, made once for every row that has it */
struct prof_frames {
	uint64_t callsite;
	const char *names, *ips;
};

KMT_HASH_TYPE(prof_frames_memo, struct prof_frames)

struct profile_ctx {
	/* frames made, by stack id ([0]) and, without a stack, callsite */
	struct prof_frames_memo memo[2];
	struct kmt_session *s;
	struct kmt_report_opts opts;
	struct kmt_live_use live;
	struct kmt_sort_chain sort;
	struct kmt_rows rows;
	uint64_t total[KMT_PROFILE_NR_VALUES];
};

static const char *const value_labels[KMT_PROFILE_NR_VALUES] = {
	"Allocations (alloc_objects):",
	"Bytes allocated (alloc_space):",
	"Live at the end (inuse_objects):",
	"Bytes live at the end (inuse_space):",
};

#define CMP_VALUE(n, name)						\
static int cmp_##name(const void *a, const void *b)			\
{									\
	const struct prof_row *x = a, *y = b;				\
									\
	return KMT_CMP_DESC(x->v[n], y->v[n]);				\
}
CMP_VALUE(KMT_PROFILE_ALLOC_OBJECTS, alloc_objects)
CMP_VALUE(KMT_PROFILE_ALLOC_SPACE, alloc_space)
CMP_VALUE(KMT_PROFILE_INUSE_OBJECTS, inuse_objects)
CMP_VALUE(KMT_PROFILE_INUSE_SPACE, inuse_space)

/* the same profile always draws the same: ties go by origin */
static int cmp_identity(const void *a, const void *b)
{
	const struct prof_row *x = a, *y = b;

	return memcmp(&x->k, &y->k, sizeof(x->k));
}

static const struct kmt_sort_key profile_sort_keys[] = {
	{ "alloc_objects", cmp_alloc_objects, NULL },
	{ "alloc_space", cmp_alloc_space, NULL },
	{ "inuse_objects", cmp_inuse_objects, NULL },
	{ "inuse_space", cmp_inuse_space, NULL },
};

static void *profile_create(struct kmt_session *s,
			    const struct kmt_report_opts *opts)
{
	struct profile_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->opts = *opts;
	kmt_live_use_init(&c->live, s, opts->tracker);
	kmt_rows_init(&c->rows, sizeof(struct prof_row),
		      sizeof(struct prof_key));
	prof_frames_memo_init(&c->memo[0]);
	prof_frames_memo_init(&c->memo[1]);
	kmt_view_sort(&c->sort, opts->sort, PROFILE_DEFAULT_SORT,
		      profile_sort_keys, KMT_NCOLS(profile_sort_keys),
		      cmp_identity);
	return c;
}

static void profile_destroy(void *ctx)
{
	struct profile_ctx *c = ctx;

	if (!c)
		return;
	kmt_live_use_free(&c->live);
	kmt_rows_free(&c->rows);
	prof_frames_memo_free(&c->memo[0]);
	prof_frames_memo_free(&c->memo[1]);
	free(c);
}

static void key_of(struct prof_key *k, uint64_t callsite, uint32_t stack,
		   int32_t pid, unsigned int type, uint32_t cache,
		   uint64_t bytes_alloc, int order)
{
	memset(k, 0, sizeof(*k));
	k->callsite = callsite;
	k->stack = stack;
	k->pid = pid;
	k->type = (uint16_t)type;
	if (type == KMT_EV_PAGE_ALLOC) {
		k->order = (int16_t)order;
	} else if (kmt_ev_is_slab(type)) {
		k->cache = cache;
		/* a kmalloc's cache is its size class when unnamed */
		if (!cache)
			k->size = (uint32_t)bytes_alloc;
	}
}

static struct prof_row *row_of(struct profile_ctx *c,
			       const struct prof_key *k, int accounted)
{
	struct prof_row *row;
	int is_new;

	row = kmt_rows_get(&c->rows, k, 1, &is_new);
	if (row && is_new)
		row->accounted = accounted;
	return row;
}

static int profile_on_event(void *ctx, const struct kmt_event *ev)
{
	struct profile_ctx *c = ctx;
	const struct kmt_live_step *st;
	struct prof_row *row;
	struct prof_key k;
	int ret = kmt_live_use_feed(&c->live, ev);

	if (ret <= 0)
		return ret;
	st = &c->live.l->step;
	if (st->what != KMT_LIVE_ALLOC && st->what != KMT_LIVE_ALLOC_OVER)
		return 0;
	key_of(&k, st->callsite, ev->stack, ev->pid, ev->type, ev->cache,
	       ev->bytes_alloc, ev->order);
	row = row_of(c, &k, !!(ev->flags & KMT_EVF_ACCOUNTED));
	if (!row)
		return -ENOMEM;
	row->v[KMT_PROFILE_ALLOC_OBJECTS]++;
	row->v[KMT_PROFILE_ALLOC_SPACE] += st->bytes;
	if (ev->flags & KMT_EVF_HAS_GFP || ev->gfp_str) {
		uint64_t gfp = ev->flags & KMT_EVF_HAS_GFP ? ev->gfp : 0;

		if (!row->gfp_seen) {
			row->gfp_seen = 1;
			row->gfp = gfp;
			row->gfp_str = ev->gfp_str;
		} else if (row->gfp != gfp || row->gfp_str != ev->gfp_str) {
			row->gfp_mixed = 1;
		}
	}
	return 0;
}

/*
 * What is live at the end; with --older-than, only what has lived that
 * long: the leaked bytes a flame graph of inuse_space then shows.
 */
static int add_inuse(struct profile_ctx *c, const struct kmt_live_objs *h)
{
	struct kmt_live *l = c->live.l;
	uint64_t end = kmt_live_end_ts(l);
	struct kmt_live_obj *o;
	size_t it = 0;

	while (kmt_live_objs_next(h, &it, NULL, &o)) {
		struct prof_row *row;
		struct prof_key k;

		if (!(o->flags & KMT_LIVE_PASS))
			continue;
		if (c->opts.older_than &&
		    (end > o->ts ? end - o->ts : 0) < c->opts.older_than)
			continue;
		key_of(&k, o->callsite, o->stack, o->pid, o->type, o->cache,
		       o->bytes_alloc, o->order);
		row = row_of(c, &k, !!(o->flags & KMT_LIVE_ACCOUNTED));
		if (!row)
			return -ENOMEM;
		row->v[KMT_PROFILE_INUSE_OBJECTS]++;
		row->v[KMT_PROFILE_INUSE_SPACE] += kmt_live_obj_bytes(l, o);
	}
	return 0;
}

/*
 * A frame's function: the symbol without its offset, as profiles name
 * functions and a flame graph merges them; the address when unnamed.
 */
static void add_function(struct profile_ctx *c, struct kmt_report *r,
			 struct kmt_sb *sb, uint64_t addr)
{
	/* the report's memo of "name+off" per address: one lookup each */
	const char *sym = kmt_analysis_sym(c->s, r, addr, c->opts.raw_ip);
	const char *plus = strrchr(sym, '+');

	kmt_sb_add(sb, sym, plus && sym[0] != '0' ? (size_t)(plus - sym) :
						    strlen(sym));
}

/*
 * The frames from the outermost in to the callsite, names and addresses
 * each joined by ';' (the folded format's order): the stack from the
 * callsite's frame out, as the views show it; the callsite alone when
 * the stack does not hold it or there is none.
 */
static int make_frames(struct profile_ctx *c, struct kmt_report *r,
		       const struct prof_row *row, const char **names,
		       const char **ips)
{
	const struct kmt_stack *st = kmt_stacks_get(&c->s->stacks,
						    row->k.stack);
	struct kmt_sb n = KMT_SB_INIT, a = KMT_SB_INIT;
	uint32_t i, from = 0, found = 0;
	int ret = 0;

	for (i = 0; st && i < st->nr; i++) {
		if (st->ips[i] == row->k.callsite) {
			from = i;
			found = 1;
			break;
		}
	}
	if (st && found) {
		for (i = st->nr; i-- > from;) {
			add_function(c, r, &n, st->ips[i]);
			kmt_sb_addf(&a, "0x%" PRIx64, st->ips[i]);
			if (i > from) {
				kmt_sb_addc(&n, ';');
				kmt_sb_addc(&a, ';');
			}
		}
	} else {
		add_function(c, r, &n, row->k.callsite);
		kmt_sb_addf(&a, "0x%" PRIx64, kmt_view_addr(row->k.callsite));
	}
	*names = n.oom ? NULL : kmt_report_strdup(r, kmt_sb_str(&n));
	*ips = a.oom ? NULL : kmt_report_strdup(r, kmt_sb_str(&a));
	if (!*names || !*ips)
		ret = -ENOMEM;
	kmt_sb_release(&n);
	kmt_sb_release(&a);
	return ret;
}

/* the frames of row, shared with every row of its stack */
static int frames_of(struct profile_ctx *c, struct kmt_report *r,
		     const struct prof_row *row, const char **names,
		     const char **ips)
{
	int by_site = !row->k.stack;
	uint64_t key = by_site ? row->k.callsite : row->k.stack;
	struct prof_frames *f;
	int is_new;

	f = prof_frames_memo_put(&c->memo[by_site], key, &is_new);
	if (!f)
		return make_frames(c, r, row, names, ips);
	if (!is_new && f->callsite == row->k.callsite) {
		*names = f->names;
		*ips = f->ips;
		return 0;
	}
	if (make_frames(c, r, row, names, ips))
		return -ENOMEM;
	f->callsite = row->k.callsite;
	f->names = *names;
	f->ips = *ips;
	return 0;
}

/* the columns the pprof and folded renderers read, by these keys */
static const struct kmt_col profile_cols[] = {
	{ "kind", "Kind", KMT_V_STR, KMT_COL_LEFT },
	{ "comm", "Comm", KMT_V_STR, KMT_COL_LEFT },
	{ "pid", "Pid", KMT_V_S64, 0 },
	{ "cache", "Cache", KMT_V_STR, KMT_COL_LEFT },
	{ "order", "Order", KMT_V_S64, 0 },
	{ "alloc_objects", "Allocs", KMT_V_U64, KMT_COL_GROUPED },
	{ "alloc_space", "Bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "inuse_objects", "Live", KMT_V_U64, KMT_COL_GROUPED },
	{ "inuse_space", "Live bytes", KMT_V_U64, KMT_COL_GROUPED },
	{ "stack", "Stack", KMT_V_STR, KMT_COL_LEFT },
	{ "stack_ips", "Addresses", KMT_V_STR, KMT_COL_NO_TEXT },
	/* --weight's value, what the folded renderer draws */
	{ "weight", "Weight", KMT_V_U64, KMT_COL_NO_TEXT },
	/* the allocations' gfp flags: "mixed" when they differ */
	{ "gfp", "GFP", KMT_V_STR, KMT_COL_NO_TEXT },
};

static const char *gfp_text(struct profile_ctx *c, struct kmt_report *r,
			    const struct prof_row *row)
{
	struct kmt_sb sb = KMT_SB_INIT;
	const char *out;

	if (!row->gfp_seen)
		return "";
	if (row->gfp_mixed)
		return "mixed";
	if (row->gfp_str)
		return kmt_strtab_get(&c->s->strs, row->gfp_str);
	kmt_gfp_format(&c->s->gfp, row->gfp, &sb);
	out = sb.oom ? NULL : kmt_report_strdup(r, kmt_sb_str(&sb));
	kmt_sb_release(&sb);
	return out;
}

static int profile_finish(void *ctx, struct kmt_report *r)
{
	struct profile_ctx *c = ctx;
	struct kmt_live *l = c->live.l;
	struct kmt_summary *sum;
	struct kmt_table *t;
	size_t i, v;
	int err = 0;

	if (add_inuse(c, &l->slab) || add_inuse(c, &l->page) ||
	    add_inuse(c, &l->percpu) || add_inuse(c, &l->vmalloc))
		return -ENOMEM;
	t = kmt_report_add_table(r, "profile", "samples",
				 "PROFILE: allocations by stack, process and cache",
				 profile_cols, KMT_NCOLS(profile_cols),
				 KMT_TABLE_PLAIN);
	if (!t || kmt_table_reserve(t, c->opts.lines > 0 &&
				    !c->opts.profile_whole &&
				    (size_t)c->opts.lines < c->rows.nr ?
				    (size_t)c->opts.lines : c->rows.nr))
		return -ENOMEM;
	kmt_sort_rows(c->rows.rows, c->rows.nr, c->rows.row_size, &c->sort);
	kmt_hash_u32_clear(&c->rows.index);	/* the sort moved the rows */
	for (i = 0; i < c->rows.nr; i++) {
		if (c->opts.lines > 0 && i == (size_t)c->opts.lines &&
		    !c->opts.profile_whole)
			break;
		const struct prof_row *row = kmt_rows_at(&c->rows, i);
		union kmt_val *val = kmt_table_add_row(t);
		const char *comm = kmt_session_comm(c->s, row->k.pid);
		int page = row->k.type == KMT_EV_PAGE_ALLOC;

		if (!val)
			return -ENOMEM;
		val[0].str = kmt_view_kind(row->k.type);
		val[1].str = comm ? comm : "";
		val[2].s = row->k.pid;
		if (!kmt_ev_is_slab(row->k.type))
			val[3].str = "";
		else if (row->k.cache)
			val[3].str = kmt_strtab_get(&c->s->strs, row->k.cache);
		else
			val[3].str = kmt_view_kmalloc_cache(r, row->k.size,
							    row->accounted,
							    c->s->page_size);
		val[4].s = page ? row->k.order : -1;
		for (v = 0; v < KMT_PROFILE_NR_VALUES; v++)
			val[5 + v].u = row->v[v];
		if (frames_of(c, r, row, &val[9].str, &val[10].str))
			return -ENOMEM;
		val[11].u = row->v[c->opts.weight];
		val[12].str = gfp_text(c, r, row);
		if (!val[12].str)
			return -ENOMEM;
	}
	t->total_rows = c->rows.nr;
	for (i = 0; i < c->rows.nr; i++) {
		const struct prof_row *row = kmt_rows_at(&c->rows, i);

		for (v = 0; v < KMT_PROFILE_NR_VALUES; v++)
			c->total[v] += row->v[v];
	}

	sum = kmt_report_add_summary(r, "profile", "summary",
				     "SUMMARY (allocation profile)");
	if (!sum)
		return -ENOMEM;
	for (v = 0; v < KMT_PROFILE_NR_VALUES; v++)
		err |= kmt_summary_u64(sum, value_labels[v],
				       kmt_profile_values[v][0], c->total[v]);
	{
		struct kmt_sum_item it = {
			.kind = KMT_SUM_VALUE,
			.label = "Weight of the folded stacks (--weight):",
			.key = "weight", .type = KMT_V_STR,
			.v.str = kmt_profile_values[c->opts.weight][0],
		};

		err |= kmt_summary_add(sum, &it);
	}
	return err ? -ENOMEM : 0;
}

const struct kmt_analysis_ops kmt_analysis_profile = {
	.name = "profile",
	.create = profile_create,
	.on_event = profile_on_event,
	.finish = profile_finish,
	.destroy = profile_destroy,
	.sort_keys = profile_sort_keys,
	.nr_sort_keys = KMT_NCOLS(profile_sort_keys),
	.default_sort = PROFILE_DEFAULT_SORT,
};
