// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/views.h"
#include "event/event.h"
#include "event/session.h"
#include "report/report.h"
#include "util/rows.h"
#include "util/strbuf.h"

uint64_t kmt_view_addr(uint64_t addr)
{
	return addr >= KMT_SYNTH_BASE && addr < 0x8000000000000000ULL ? 0 : addr;
}

const struct kmt_view_kind_def kmt_view_kinds[KMT_NR_KINDS] = {
	[KMT_KIND_SLAB]	   = { "slab", KMT_EV_SLAB_BITS, KMT_EV_KMALLOC },
	[KMT_KIND_PAGE]	   = { "page", KMT_EV_PAGE_BITS, KMT_EV_PAGE_ALLOC },
	[KMT_KIND_PERCPU]  = { "percpu", KMT_EV_PERCPU_BITS,
			       KMT_EV_PERCPU_ALLOC },
	[KMT_KIND_VMALLOC] = { "vmalloc", KMT_EV_VMALLOC_BITS,
			       KMT_EV_VMAP_ALLOC },
};

const char *kmt_view_kind(unsigned int type)
{
	return kmt_view_kinds[kmt_view_kind_of(type)].name;
}

int kmt_view_kinds_unrecorded(const struct kmt_session *s,
			      struct kmt_report *r,
			      const struct kmt_missing *unrec[KMT_NR_KINDS])
{
	size_t k;

	for (k = 0; k < KMT_NR_KINDS; k++)
		unrec[k] = kmt_report_unrecorded(r, kmt_view_kinds[k].bits,
						 kmt_session_types(s),
						 s->types_known);
	return r->oom ? -ENOMEM : 0;
}

int kmt_view_kind_shown(const struct kmt_session *s, enum kmt_view_kind_id k)
{
	return k == KMT_KIND_SLAB || k == KMT_KIND_PAGE ||
	       (kmt_session_types(s) & kmt_view_kinds[k].bits);
}

int kmt_view_mark_kind_rows(struct kmt_table *t,
			    const struct kmt_missing *const unrec[KMT_NR_KINDS])
{
	if (kmt_table_mark_kind_unrecorded(t, "kind", "slab", unrec[0]) ||
	    kmt_table_mark_kind_unrecorded(t, "kind", "page", unrec[1]))
		return -EINVAL;
	return 0;
}

void kmt_view_sort(struct kmt_sort_chain *chain, const char *spec,
		   const char *def, const struct kmt_sort_key *keys,
		   size_t nr_keys, kmt_cmp_fn tiebreak)
{
	char bad[64];

	chain->nr = 0;
	/* keys of other analyses in -s are theirs: skip them here */
	if (spec)
		kmt_sort_parse(chain, spec, keys, nr_keys, 1, bad, sizeof(bad));
	if (!chain->nr)
		kmt_sort_parse(chain, def, keys, nr_keys, 1, bad, sizeof(bad));
	chain->tiebreak = tiebreak;
}

int kmt_view_by_tgid(const struct kmt_session *s, struct kmt_rows *rows,
		     void (*add)(void *dst, const void *src),
		     uint64_t *tasks, uint64_t *alone)
{
	struct kmt_rows by;
	size_t i;

	*tasks = rows->nr;
	*alone = 0;
	kmt_rows_init(&by, rows->row_size, sizeof(uint64_t));
	for (i = 0; i < rows->nr; i++) {
		const void *row = kmt_rows_at(rows, i);
		uint64_t pid = *(const uint64_t *)row, key = pid;
		const int32_t *tgid = kmt_hash_i32_get(&s->tgids,
						       (uint32_t)pid);
		void *dst;

		if (tgid && *tgid > 0)
			key = (uint32_t)*tgid;
		else
			(*alone)++;
		dst = kmt_rows_get(&by, &key, 1, NULL);
		if (!dst) {
			kmt_rows_free(&by);
			return -ENOMEM;
		}
		add(dst, row);
	}
	kmt_rows_free(rows);
	*rows = by;
	return 0;
}

const char *kmt_view_proc(struct kmt_session *s, struct kmt_report *r,
			  int32_t pid)
{
	const char *comm = kmt_session_comm(s, pid);

	return kmt_report_printf(r, "%s-%d", comm ? comm : "", (int)pid);
}

/* the function of a symbol's name: "f" of "f+0x31" and "f+31" */
static size_t func_len(const char *name)
{
	const char *plus = strchr(name, '+');

	return plus ? (size_t)(plus - name) : strlen(name);
}

/* the first frame of st in callsite's function, 0 when none is */
static uint32_t frame_named(struct kmt_session *s, struct kmt_report *r,
			    const struct kmt_stack *st, uint64_t callsite)
{
	const char *want = kmt_analysis_sym(s, r, callsite, 0), *name;
	size_t n = want ? func_len(want) : 0;
	uint32_t i;

	if (!n || !strncmp(want, "0x", 2))
		return 0;
	for (i = 0; i < st->nr; i++) {
		name = kmt_analysis_sym(s, r, st->ips[i], 0);
		if (name && func_len(name) == n && !strncmp(name, want, n))
			return i;
	}
	return 0;
}

const char *kmt_view_stack(struct kmt_session *s, struct kmt_report *r,
			   uint32_t stack, uint64_t callsite, int raw_ip)
{
	const struct kmt_stack *st = kmt_stacks_get(&s->stacks, stack);
	struct kmt_sb sb = KMT_SB_INIT;
	uint32_t i, from = 0;
	const char *out;

	if (!st)
		return "";
	for (i = 0; callsite && i < st->nr; i++) {
		if (st->ips[i] == callsite) {
			from = i;
			break;
		}
	}
	/*
	 * Text gives a call site and stack frames apart ("call_site=f+0x31",
	 * "=> f"), never the same address: the frame of the same function
	 */
	if (callsite && i == st->nr && !raw_ip)
		from = frame_named(s, r, st, callsite);
	for (i = from; i < st->nr && !sb.oom; i++) {
		if (i > from)
			kmt_sb_adds(&sb, " <- ");
		kmt_sb_adds(&sb, kmt_analysis_sym(s, r, st->ips[i], raw_ip));
	}
	/* a stack cut short by a lack of memory is none at all */
	out = sb.oom ? NULL : kmt_report_strdup(r, kmt_sb_str(&sb));
	kmt_sb_release(&sb);
	return out;
}

const char *kmt_view_kmalloc_cache(struct kmt_report *r, uint64_t size,
				   int accounted, uint32_t page_size)
{
	const char *cg = accounted ? "cg-" : "";

	if (size > 2ULL * page_size)
		return "kmalloc-large";
	if (size >= 1024 && !(size % 1024))
		return kmt_report_printf(r, "kmalloc-%s%" PRIu64 "k", cg,
					 size / 1024);
	return kmt_report_printf(r, "kmalloc-%s%" PRIu64, cg, size);
}

const char *kmt_view_migratetype(struct kmt_session *s, struct kmt_report *r,
				 int mt)
{
	const char *name = kmt_session_migratetype_name(s, mt);

	return name ? name : kmt_report_printf(r, "UNKNOWN(%d)", mt);
}
