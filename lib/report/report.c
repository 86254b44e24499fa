// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "event/event.h"
#include "report/report.h"
#include "util/array.h"
#include "util/strbuf.h"

void kmt_report_init(struct kmt_report *r)
{
	memset(r, 0, sizeof(*r));
	kmt_arena_init(&r->arena);
	kmt_report_texts_init(&r->sym_memo[0]);
	kmt_report_texts_init(&r->sym_memo[1]);
}

void kmt_report_meta_here(struct kmt_report *r, const char *input,
			  const char *format)
{
	struct kmt_report_meta *m = &r->meta;
	struct timespec now;
	struct utsname u;
	char id[64] = "";
	FILE *f;

	m->input = kmt_report_strdup(r, input);
	m->format = kmt_report_strdup(r, format);
	if (!uname(&u)) {
		m->host = kmt_report_strdup(r, u.nodename);
		m->kernel = kmt_report_strdup(r, u.release);
	} else {
		m->host = m->kernel = "";
	}
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (fgets(id, sizeof(id), f))
			id[strcspn(id, "\n")] = '\0';
		fclose(f);
	}
	m->boot_id = kmt_report_strdup(r, id);
	if (!clock_gettime(CLOCK_REALTIME, &now)) {
		m->has_start = 1;
		m->start_unix_ns = (uint64_t)now.tv_sec * 1000000000u +
				   (uint64_t)now.tv_nsec;
	}
}

int kmt_table_col(const struct kmt_table *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if (!strcmp(t->cols[i].key, key))
			return (int)i;
	}
	return -1;
}

int kmt_table_col_flagged(const struct kmt_table *t, unsigned int flag)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if (t->cols[i].flags & flag)
			return (int)i;
	}
	return -1;
}

const struct kmt_list *kmt_report_list(struct kmt_report *r,
				       const int64_t *v, size_t n)
{
	struct kmt_list *l = kmt_arena_alloc(&r->arena,
					     sizeof(*l) + n * sizeof(l->v[0]));

	if (!l) {
		r->oom = 1;
		return NULL;
	}
	l->n = n;
	if (n)
		memcpy(l->v, v, n * sizeof(l->v[0]));
	return l;
}

struct kmt_section *kmt_report_section(const struct kmt_report *r,
				       const char *group, const char *key)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		struct kmt_section *sec = r->sections[i];

		if (!strcmp(sec->group, group) && !strcmp(sec->key, key))
			return sec;
	}
	return NULL;
}

void kmt_report_free(struct kmt_report *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		struct kmt_section *sec = r->sections[i];

		if (sec->kind == KMT_SEC_TABLE)
			free(sec->table.vals);
		else if (sec->kind == KMT_SEC_SUMMARY)
			free(sec->summary.items);
	}
	free(r->sections);
	kmt_report_texts_free(&r->sym_memo[0]);
	kmt_report_texts_free(&r->sym_memo[1]);
	kmt_arena_free(&r->arena);
	memset(r, 0, sizeof(*r));
}

static struct kmt_section *add_section(struct kmt_report *r,
				       enum kmt_section_kind kind,
				       const char *group, const char *key)
{
	struct kmt_section *sec;

	if (KMT_ARRAY_GROW(r->sections, r->nr + 1, r->alloc))
		return NULL;
	sec = kmt_arena_zalloc(&r->arena, sizeof(*sec));
	if (!sec)
		return NULL;
	sec->kind = kind;
	sec->group = group;
	sec->key = key;
	r->sections[r->nr++] = sec;
	return sec;
}

struct kmt_table *kmt_report_add_table(struct kmt_report *r, const char *group,
				       const char *key, const char *title,
				       const struct kmt_col *cols, size_t ncols,
				       enum kmt_table_style style)
{
	struct kmt_section *sec = add_section(r, KMT_SEC_TABLE, group, key);

	if (!sec)
		return NULL;
	sec->table.title = title;
	sec->table.cols = cols;
	sec->table.ncols = ncols;
	sec->table.style = style;
	return &sec->table;
}

struct kmt_summary *kmt_report_add_summary(struct kmt_report *r,
					   const char *group, const char *key,
					   const char *title)
{
	struct kmt_section *sec = add_section(r, KMT_SEC_SUMMARY, group, key);

	if (!sec)
		return NULL;
	sec->summary.title = title;
	return &sec->summary;
}

const struct kmt_missing *kmt_report_missing(struct kmt_report *r,
					     uint32_t types, int known)
{
	struct kmt_missing *m = kmt_arena_zalloc(&r->arena, sizeof(*m));
	struct kmt_sb text = KMT_SB_INIT, rec = KMT_SB_INIT;
	const char *opts[KMT_EV_NR];
	size_t nr_opts = 0, k;
	unsigned int t;

	if (!m) {
		r->oom = 1;
		return NULL;
	}
	m->known = known;
	kmt_sb_add(&rec, "kmemtrace record", 16);
	for (t = 1; t < KMT_EV_NR; t++) {
		const char *opt = kmt_ev_record_option(t);

		if (!(types & KMT_EV_BIT(t)))
			continue;
		m->events[m->nr_events] = kmt_report_printf(r, "%s:%s",
							   kmt_ev_system(t),
							   kmt_ev_type_name(t));
		kmt_sb_addf(&text, "%s%s", !m->nr_events ? "" :
			    (types >> t) & ~1U ? ", " : " or ",
			    m->events[m->nr_events]);
		m->nr_events++;
		for (k = 0; k < nr_opts && strcmp(opts[k], opt); k++)
			;
		if (k == nr_opts && *opt) {
			opts[nr_opts++] = opt;
			kmt_sb_addf(&rec, " %s", opt);
		}
	}
	m->events_text = kmt_report_strdup(r, text.oom ? "" : kmt_sb_str(&text));
	m->record_with = kmt_report_strdup(r, rec.oom ? "" : kmt_sb_str(&rec));
	if (text.oom || rec.oom)
		r->oom = 1;
	kmt_sb_release(&text);
	kmt_sb_release(&rec);
	return m;
}

int kmt_report_add_missing(struct kmt_report *r, const char *group,
			   const char *view, uint32_t types, int known)
{
	const struct kmt_missing *m = kmt_report_missing(r, types, known);
	struct kmt_section *sec;

	if (!m)
		return -ENOMEM;
	sec = add_section(r, KMT_SEC_MISSING, group,
			  known ? "not_recorded" : "none_seen");
	if (!sec)
		return -ENOMEM;
	sec->missing.view = view;
	sec->missing.why = *m;
	return 0;
}

int kmt_report_mark_unrecorded(struct kmt_report *r, struct kmt_table *t,
			       const uint32_t *needs, struct kmt_summary *s,
			       uint32_t recorded, int known)
{
	uint32_t lacking = 0;
	size_t c, i;

	/*
	 * An input that does not list its event types (text): a column's
	 * 0 is what was seen, and a column is only ever "none seen" with
	 * every other; the view as a whole says so (kmt_report_add_missing).
	 */
	if (!known)
		return 0;
	for (c = 0; c < t->ncols && c < 64; c++) {
		if (needs[c] && !(needs[c] & recorded)) {
			t->unrecorded |= 1ULL << c;
			lacking |= needs[c];
		}
	}
	if (!t->unrecorded)
		return 0;
	t->missing = kmt_report_missing(r, lacking, known);
	if (!t->missing)
		return -ENOMEM;
	for (i = 0; s && i < s->nr; i++) {
		for (c = 0; c < t->ncols && c < 64; c++) {
			if ((t->unrecorded >> c & 1) && s->items[i].key &&
			    !strcmp(s->items[i].key, t->cols[c].key))
				s->items[i].missing = t->missing;
		}
	}
	return 0;
}

const struct kmt_missing *kmt_report_unrecorded(struct kmt_report *r,
						uint32_t needs,
						uint32_t recorded, int known)
{
	if (!known || !needs || (needs & recorded))
		return NULL;
	return kmt_report_missing(r, needs, known);
}

int kmt_table_mark_kind_unrecorded(struct kmt_table *t, const char *col,
				   const char *kind,
				   const struct kmt_missing *m)
{
	int c = kmt_table_col(t, col);

	if (!m)
		return 0;
	if (c < 0 || t->unrecorded)
		return -EINVAL;
	t->unrecorded_kind = kind;
	t->unrecorded_col = (size_t)c;
	t->missing = m;
	return 0;
}

void kmt_summary_mark_unrecorded(struct kmt_summary *s,
				 const char *const *keys, size_t nr,
				 const struct kmt_missing *m)
{
	size_t i, k;

	for (i = 0; m && i < s->nr; i++) {
		for (k = 0; k < nr; k++) {
			if (s->items[i].key && !strcmp(s->items[i].key, keys[k]))
				s->items[i].missing = m;
		}
	}
}

int kmt_table_reserve(struct kmt_table *t, size_t n)
{
	return kmt_array_grow((void **)&t->vals, &t->alloc,
			      (t->nrows + n) * t->ncols, sizeof(*t->vals));
}

void kmt_table_set_row_fn(struct kmt_table *t, size_t nrows,
			  size_t total_rows, kmt_row_fn fn, void *ctx)
{
	t->nrows = nrows;
	t->total_rows = total_rows > nrows ? total_rows : nrows;
	t->row_fn = fn;
	t->row_ctx = ctx;
}

union kmt_val *kmt_table_add_row(struct kmt_table *t)
{
	union kmt_val *row;

	if (kmt_array_grow((void **)&t->vals, &t->alloc,
			   (t->nrows + 1) * t->ncols, sizeof(*t->vals)))
		return NULL;
	row = t->vals + t->nrows * t->ncols;
	memset(row, 0, t->ncols * sizeof(*row));
	t->nrows++;
	if (t->total_rows < t->nrows)
		t->total_rows = t->nrows;
	return row;
}

int kmt_summary_add(struct kmt_summary *s, const struct kmt_sum_item *item)
{
	if (KMT_ARRAY_GROW(s->items, s->nr + 1, s->alloc))
		return -1;
	s->items[s->nr++] = *item;
	return 0;
}

int kmt_summary_u64(struct kmt_summary *s, const char *label, const char *key,
		    uint64_t v)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_VALUE, .label = label, .key = key,
		.type = KMT_V_U64, .v.u = v,
	};

	return kmt_summary_add(s, &it);
}

int kmt_summary_pct(struct kmt_summary *s, const char *label, const char *key,
		    double v)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_VALUE, .label = label, .key = key,
		.type = KMT_V_PCT, .v.d = v,
	};

	return kmt_summary_add(s, &it);
}

int kmt_summary_ratio(struct kmt_summary *s, const char *label,
		      const char *key, uint64_t n, uint64_t of,
		      const char *note)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_RATIO, .label = label, .key = key,
		.type = KMT_V_U64, .v.u = n, .v2.u = of, .note = note,
	};

	return kmt_summary_add(s, &it);
}

int kmt_summary_pages(struct kmt_summary *s, const char *label,
		      const char *key, uint64_t requests, uint64_t bytes)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_PAGES, .label = label, .key = key,
		.type = KMT_V_U64, .v.u = requests, .v2.u = bytes,
	};

	return kmt_summary_add(s, &it);
}

int kmt_summary_blank(struct kmt_summary *s)
{
	struct kmt_sum_item it = { .kind = KMT_SUM_BLANK };

	return kmt_summary_add(s, &it);
}

const char *kmt_report_strdup(struct kmt_report *r, const char *s)
{
	const char *p = kmt_arena_strdup(&r->arena, s ? s : "");

	if (!p) {
		r->oom = 1;
		return "";
	}
	return p;
}

const char *kmt_report_printf(struct kmt_report *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return kmt_report_strdup(r, buf);
}
