// SPDX-License-Identifier: GPL-2.0
/*
 * Grouping, culling, sorting and totals of page_owner records.
 *
 * Each record is reduced on arrival to a few ids (stack text, allocation
 * line without timestamps, trailing lines, task name) and folded into
 * its group; its text is never kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pageowner.h"
#include "util/array.h"

/* --- classes --- */

static const char *const class_names[KMT_PO_CLASS_NR] = {
	"slab", "vmalloc", "pagecache", "anon", "cma", "other",
};

/* page_owner_sort prints "allocated by SLAB "; the new classes join in */
static const char *const class_labels[KMT_PO_CLASS_NR] = {
	"SLAB", "VMALLOC", "PAGECACHE", "ANON", "CMA", "OTHERS",
};

const char *kmt_po_class_name(unsigned int c)
{
	return c < KMT_PO_CLASS_NR ? class_names[c] : "?";
}

const char *kmt_po_class_label(unsigned int c)
{
	return c < KMT_PO_CLASS_NR ? class_labels[c] : "?";
}

/*
 * Function-name prefixes that say who allocates.  Names of 6.x kernels
 * carry suffixes (_noprof, .isra.0), hence prefixes.  The innermost
 * frame that matches any row decides, so a slab page allocated under a
 * page fault is slab, and a page table allocated under an anonymous
 * fault is a page table.
 */
static const struct {
	const char *prefix;
	unsigned char hint;
} frame_hints[] = {
	/* page tables */
	{ "pte_alloc_one",		KMT_PO_HINT_PGTABLE },
	{ "__pte_alloc",		KMT_PO_HINT_PGTABLE },
	{ "__pmd_alloc",		KMT_PO_HINT_PGTABLE },
	{ "__pud_alloc",		KMT_PO_HINT_PGTABLE },
	{ "__p4d_alloc",		KMT_PO_HINT_PGTABLE },
	{ "pmd_alloc_one",		KMT_PO_HINT_PGTABLE },
	{ "pud_alloc_one",		KMT_PO_HINT_PGTABLE },
	{ "pgd_alloc",			KMT_PO_HINT_PGTABLE },
	{ "pagetable_alloc",		KMT_PO_HINT_PGTABLE },
	/* CMA */
	{ "cma_alloc",			KMT_PO_HINT_CMA },
	{ "__cma_alloc",		KMT_PO_HINT_CMA },
	{ "dma_alloc_from_contiguous",	KMT_PO_HINT_CMA },
	{ "cma_alloc_folio",		KMT_PO_HINT_CMA },
	/* slab and kmalloc */
	{ "allocate_slab",		KMT_PO_HINT_SLAB },
	{ "new_slab",			KMT_PO_HINT_SLAB },
	{ "alloc_slab_page",		KMT_PO_HINT_SLAB },
	{ "___slab_alloc",		KMT_PO_HINT_SLAB },
	{ "__slab_alloc",		KMT_PO_HINT_SLAB },
	{ "kmem_cache_alloc",		KMT_PO_HINT_SLAB },
	{ "__kmem_cache_alloc",		KMT_PO_HINT_SLAB },
	{ "kmem_getpages",		KMT_PO_HINT_SLAB },
	{ "cache_grow_begin",		KMT_PO_HINT_SLAB },
	{ "__kmalloc",			KMT_PO_HINT_SLAB },
	{ "kmalloc_large",		KMT_PO_HINT_SLAB },
	{ "kmalloc_order",		KMT_PO_HINT_SLAB },
	{ "kmalloc_trace",		KMT_PO_HINT_SLAB },
	{ "kmalloc_node",		KMT_PO_HINT_SLAB },
	{ "___kmalloc_large",		KMT_PO_HINT_SLAB },
	/* vmalloc */
	{ "vm_area_alloc_pages",	KMT_PO_HINT_VMALLOC },
	{ "__vmalloc",			KMT_PO_HINT_VMALLOC },
	{ "vmalloc",			KMT_PO_HINT_VMALLOC },
	{ "vzalloc",			KMT_PO_HINT_VMALLOC },
	{ "alloc_vmap_area",		KMT_PO_HINT_VMALLOC },
	{ "__get_vm_area",		KMT_PO_HINT_VMALLOC },
	{ "kvmalloc",			KMT_PO_HINT_VMALLOC },
	{ "__kvmalloc",			KMT_PO_HINT_VMALLOC },
	/* page cache, shmem included */
	{ "filemap_alloc_folio",	KMT_PO_HINT_PAGECACHE },
	{ "__filemap_get_folio",	KMT_PO_HINT_PAGECACHE },
	{ "filemap_fault",		KMT_PO_HINT_PAGECACHE },
	{ "filemap_read",		KMT_PO_HINT_PAGECACHE },
	{ "filemap_get_pages",		KMT_PO_HINT_PAGECACHE },
	{ "filemap_create_folio",	KMT_PO_HINT_PAGECACHE },
	{ "__page_cache_alloc",		KMT_PO_HINT_PAGECACHE },
	{ "page_cache_alloc",		KMT_PO_HINT_PAGECACHE },
	{ "page_cache_ra_",		KMT_PO_HINT_PAGECACHE },
	{ "page_cache_async_ra",	KMT_PO_HINT_PAGECACHE },
	{ "page_cache_sync_ra",		KMT_PO_HINT_PAGECACHE },
	{ "do_page_cache_ra",		KMT_PO_HINT_PAGECACHE },
	{ "force_page_cache_ra",	KMT_PO_HINT_PAGECACHE },
	{ "ondemand_readahead",		KMT_PO_HINT_PAGECACHE },
	{ "pagecache_get_page",		KMT_PO_HINT_PAGECACHE },
	{ "grab_cache_page",		KMT_PO_HINT_PAGECACHE },
	{ "read_cache_folio",		KMT_PO_HINT_PAGECACHE },
	{ "read_cache_page",		KMT_PO_HINT_PAGECACHE },
	{ "do_read_cache_",		KMT_PO_HINT_PAGECACHE },
	{ "shmem_alloc_folio",		KMT_PO_HINT_PAGECACHE },
	{ "shmem_alloc_and_add_folio",	KMT_PO_HINT_PAGECACHE },
	{ "shmem_alloc_page",		KMT_PO_HINT_PAGECACHE },
	/* anonymous memory */
	{ "do_anonymous_page",		KMT_PO_HINT_ANON },
	{ "alloc_anon_folio",		KMT_PO_HINT_ANON },
	{ "do_cow_fault",		KMT_PO_HINT_ANON },
	{ "wp_page_copy",		KMT_PO_HINT_ANON },
	{ "do_huge_pmd_anonymous_page",	KMT_PO_HINT_ANON },
	{ "__do_huge_pmd_anonymous_page", KMT_PO_HINT_ANON },
	{ "vma_alloc_anon_folio_pmd",	KMT_PO_HINT_ANON },
	{ "do_huge_pmd_wp_page",	KMT_PO_HINT_ANON },
	{ "alloc_swap_folio",		KMT_PO_HINT_ANON },
	{ "do_swap_page",		KMT_PO_HINT_ANON },
	{ "__read_swap_cache_async",	KMT_PO_HINT_ANON },
	{ "read_swap_cache_async",	KMT_PO_HINT_ANON },
	{ "swap_cache_alloc_folio",	KMT_PO_HINT_ANON },
	{ "swap_cluster_readahead",	KMT_PO_HINT_ANON },
	{ "swap_vma_readahead",		KMT_PO_HINT_ANON },
	{ "alloc_zeroed_user_highpage",	KMT_PO_HINT_ANON },
	{ "hpage_collapse_alloc",	KMT_PO_HINT_ANON },
	/* user folios: anonymous when the gfp says user and movable */
	{ "vma_alloc_folio",		KMT_PO_HINT_USER_FOLIO },
	{ "alloc_pages_vma",		KMT_PO_HINT_USER_FOLIO },
	{ "alloc_page_vma",		KMT_PO_HINT_USER_FOLIO },
};

static enum kmt_po_hint frame_hint(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(frame_hints) / sizeof(frame_hints[0]); i++) {
		const char *p = frame_hints[i].prefix;
		size_t n = strlen(p);

		if (n <= len && p[0] == name[0] && !memcmp(p, name, n))
			return frame_hints[i].hint;
	}
	return KMT_PO_HINT_NONE;
}

enum kmt_po_hint kmt_po_stack_hint(const char *stack, size_t len)
{
	const char *p = stack, *end = stack + len;
	enum kmt_po_hint found = KMT_PO_HINT_NONE;

	/* frames are printed innermost first */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct kmt_po_str fn = kmt_po_frame_function(p, n);
		enum kmt_po_hint h = fn.len ? frame_hint(fn.s, fn.len) :
				     KMT_PO_HINT_NONE;

		/* a user folio's caller (do_anonymous_page, ...) says more */
		if (h == KMT_PO_HINT_USER_FOLIO)
			found = h;
		else if (h != KMT_PO_HINT_NONE)
			return h;
		p += n + (nl ? 1 : 0);
	}
	return found;
}

static int has_token(const char *s, size_t len, const char *tok, int prefix)
{
	const char *p = s, *end = s + len;
	size_t n = strlen(tok);

	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		size_t l = bar ? (size_t)(bar - p) : (size_t)(end - p);

		if ((l == n || (prefix && l > n)) && !memcmp(p, tok, n))
			return 1;
		p += l + 1;
	}
	return 0;
}

int kmt_po_gfp_user_movable(const char *names, size_t len)
{
	if (has_token(names, len, "GFP_HIGHUSER_MOVABLE", 0) ||
	    has_token(names, len, "GFP_TRANSHUGE", 1))
		return 1;
	return has_token(names, len, "__GFP_MOVABLE", 0) &&
	       (has_token(names, len, "__GFP_HARDWALL", 0) ||
		has_token(names, len, "GFP_USER", 0) ||
		has_token(names, len, "GFP_HIGHUSER", 0));
}

enum kmt_po_class kmt_po_classify(enum kmt_po_hint hint, int user_movable,
				  int flag_slab, int cma_block)
{
	switch (hint) {
	case KMT_PO_HINT_SLAB:
		return KMT_PO_CLASS_SLAB;
	case KMT_PO_HINT_VMALLOC:
		return KMT_PO_CLASS_VMALLOC;
	case KMT_PO_HINT_PAGECACHE:
		return KMT_PO_CLASS_PAGECACHE;
	case KMT_PO_HINT_ANON:
		return KMT_PO_CLASS_ANON;
	case KMT_PO_HINT_CMA:
		return KMT_PO_CLASS_CMA;
	case KMT_PO_HINT_PGTABLE:
		return KMT_PO_CLASS_OTHER;
	case KMT_PO_HINT_USER_FOLIO:
		if (user_movable)
			return KMT_PO_CLASS_ANON;
		break;
	case KMT_PO_HINT_NONE:
		break;
	}
	/* kernels before 6.10 print the slab page flag */
	if (flag_slab)
		return KMT_PO_CLASS_SLAB;
	if (cma_block)
		return KMT_PO_CLASS_CMA;
	return KMT_PO_CLASS_OTHER;
}

/* --- option parsing --- */

struct key_name {
	const char *name, *abbrev;
	int value;
};

static const struct key_name cull_keys[] = {
	{ "pid",	"p",	KMT_PO_CULL_PID },
	{ "tgid",	"tg",	KMT_PO_CULL_TGID },
	{ "name",	"n",	KMT_PO_CULL_NAME },
	{ "stacktrace",	"st",	KMT_PO_CULL_STACK },
	{ "allocator",	"ator",	KMT_PO_CULL_ALLOCATOR },
};

static const struct key_name sort_keys[] = {
	{ "pid",	"p",	KMT_PO_KEY_PID },
	{ "tgid",	"tg",	KMT_PO_KEY_TGID },
	{ "name",	"n",	KMT_PO_KEY_NAME },
	{ "stacktrace",	"st",	KMT_PO_KEY_STACK },
	{ "txt",	"T",	KMT_PO_KEY_TXT },
	{ "alloc_ts",	"at",	KMT_PO_KEY_ALLOC_TS },
	{ "allocator",	"ator",	KMT_PO_KEY_ALLOCATOR },
	{ "times",	NULL,	KMT_PO_KEY_TIMES },
	{ "pages",	NULL,	KMT_PO_KEY_PAGES },
};

static int find_key(const struct key_name *t, size_t n, const char *s,
		    size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if ((strlen(t[i].name) == len && !memcmp(t[i].name, s, len)) ||
		    (t[i].abbrev && strlen(t[i].abbrev) == len &&
		     !memcmp(t[i].abbrev, s, len)))
			return t[i].value;
	}
	return -1;
}

static void key_list(const struct key_name *t, size_t n, char *buf,
		     size_t size)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "",
				      t[i].name);
}

int kmt_po_parse_cull(const char *spec, unsigned int *mask, char *err,
		      size_t errlen)
{
	const size_t n = sizeof(cull_keys) / sizeof(cull_keys[0]);
	const char *p = spec;

	*mask = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int v = find_key(cull_keys, n, p, len);

		if (v < 0) {
			char keys[128];

			key_list(cull_keys, n, keys, sizeof(keys));
			snprintf(err, errlen,
				 "unknown cull key '%.*s' (keys: %s)",
				 (int)len, p, keys);
			return -EINVAL;
		}
		*mask |= (unsigned int)v;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int kmt_po_parse_sort(const char *spec, struct kmt_po_sortkey *keys,
		      int *nr, char *err, size_t errlen)
{
	const size_t n = sizeof(sort_keys) / sizeof(sort_keys[0]);
	const char *p = spec;

	*nr = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int desc = 0, v;

		if (len && (*p == '-' || *p == '+')) {
			desc = *p == '-';
			p++;
			len--;
		}
		v = find_key(sort_keys, n, p, len);
		if (v < 0) {
			char names[160];

			key_list(sort_keys, n, names, sizeof(names));
			snprintf(err, errlen,
				 "unknown sort key '%.*s' (keys: %s)",
				 (int)len, p, names);
			return -EINVAL;
		}
		if (*nr >= KMT_PO_MAX_SORTKEYS) {
			snprintf(err, errlen, "more than %d sort keys",
				 KMT_PO_MAX_SORTKEYS);
			return -EINVAL;
		}
		keys[*nr].key = (enum kmt_po_key)v;
		keys[*nr].desc = desc;
		(*nr)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int kmt_po_parse_ids(const char *spec, int32_t **ids, size_t *nr)
{
	size_t alloc = 0;
	const char *p = spec;

	*ids = NULL;
	*nr = 0;
	for (;;) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') ||
		    v < -2147483647L || v > 2147483647L)
			goto bad;
		if (KMT_ARRAY_GROW(*ids, *nr + 1, alloc))
			goto bad;
		(*ids)[(*nr)++] = (int32_t)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
bad:
	free(*ids);
	*ids = NULL;
	*nr = 0;
	return -EINVAL;
}

/* --- the analysis --- */

int kmt_po_analysis_init(struct kmt_po_analysis *a,
			 const struct kmt_po_options *opt)
{
	memset(a, 0, sizeof(*a));
	if (opt)
		a->opt = *opt;
	if (kmt_strtab_init(&a->stacks) || kmt_strtab_init(&a->headers) ||
	    kmt_strtab_init(&a->strs)) {
		kmt_po_analysis_free(a);
		return -ENOMEM;
	}
	a->memo_stacks = calloc(3 * KMT_PO_MEMO, sizeof(uint32_t));
	if (!a->memo_stacks) {
		kmt_po_analysis_free(a);
		return -ENOMEM;
	}
	/* header 0 is "no allocation line": page_owner_stacks records */
	if (KMT_ARRAY_GROW(a->hinfo, 1, a->hinfo_alloc)) {
		kmt_po_analysis_free(a);
		return -ENOMEM;
	}
	memset(a->hinfo, 0, sizeof(*a->hinfo));
	a->hinfo[0].pid = a->hinfo[0].tgid = -1;
	a->memo_headers = a->memo_stacks + KMT_PO_MEMO;
	a->memo_strs = a->memo_headers + KMT_PO_MEMO;
	kmt_hash_init(&a->group_index, sizeof(uint32_t));
	kmt_hash_init(&a->by_mt, sizeof(struct kmt_po_count));
	kmt_hash_init(&a->by_block_mt, sizeof(struct kmt_po_count));
	kmt_hash_init(&a->by_reason, sizeof(struct kmt_po_count));
	kmt_hash_init(&a->by_memcg, sizeof(struct kmt_po_memcg));
	return 0;
}

void kmt_po_analysis_free(struct kmt_po_analysis *a)
{
	kmt_strtab_free(&a->stacks);
	kmt_strtab_free(&a->headers);
	kmt_strtab_free(&a->strs);
	kmt_sb_release(&a->scratch);
	free(a->stack_hint);
	free(a->hinfo);
	free(a->memo_stacks);
	free(a->groups);
	kmt_hash_free(&a->group_index);
	kmt_hash_free(&a->by_mt);
	kmt_hash_free(&a->by_block_mt);
	kmt_hash_free(&a->by_reason);
	kmt_hash_free(&a->by_memcg);
	memset(a, 0, sizeof(*a));
}

void kmt_po_add_malformed(void *ctx, uint64_t line, const char *why)
{
	struct kmt_po_analysis *a = ctx;

	if (a->nr_kept_malformed < KMT_PO_KEEP_MALFORMED) {
		a->malformed[a->nr_kept_malformed].line = line;
		a->malformed[a->nr_kept_malformed].why = why;
		a->nr_kept_malformed++;
	}
	a->nr_malformed++;
}

static int selected(const struct kmt_po_analysis *a,
		    const struct kmt_po_record *r)
{
	const struct kmt_po_options *o = &a->opt;
	size_t i;

	if (o->pids) {
		for (i = 0; i < o->nr_pids && o->pids[i] != r->pid; i++)
			;
		if (i == o->nr_pids)
			return 0;
	}
	if (o->tgids) {
		for (i = 0; i < o->nr_tgids && o->tgids[i] != r->tgid; i++)
			;
		if (i == o->nr_tgids)
			return 0;
	}
	if (o->names) {
		for (i = 0; i < o->nr_names; i++) {
			if (strlen(o->names[i]) == r->comm.len &&
			    !memcmp(o->names[i], r->comm.s, r->comm.len))
				break;
		}
		if (i == o->nr_names)
			return 0;
	}
	return 1;
}

/*
 * Most records repeat a text seen a moment ago (the same stack, task or
 * memcg).  A direct-mapped memo, indexed by a few bytes of the text and
 * checked with memcmp, finds it without hashing the whole text; a miss
 * falls back to the strtab.
 */
static uint32_t intern(struct kmt_strtab *t, uint32_t *memo, const char *s,
		       size_t len)
{
	uint64_t fp = len, w;
	uint32_t *slot, id;

	if (len >= 8) {
		memcpy(&w, s + (len >= 16 ? len / 2 - 4 : 0), 8);
		fp ^= w;
		memcpy(&w, s + len - 8, 8);
		fp = fp * 0x9e3779b97f4a7c15ULL ^ w;
	} else if (len) {
		fp ^= (uint64_t)(unsigned char)s[0] << 8 |
		      (unsigned char)s[len - 1];
	}
	slot = &memo[kmt_hash_mix(fp) & (KMT_PO_MEMO - 1)];
	id = *slot;
	if (id && t->lens[id] == len && !memcmp(t->strs[id], s, len))
		return id;
	id = kmt_strtab_intern(t, s, len);
	*slot = id;
	return id;
}

static int stack_id(struct kmt_po_analysis *a, const struct kmt_po_record *r,
		    uint32_t *id)
{
	size_t before = a->stacks.nr;

	*id = intern(&a->stacks, a->memo_stacks,
		     r->stack.s ? r->stack.s : "", r->stack.len);
	if (!*id)
		return -ENOMEM;
	if (a->stacks.nr != before) {
		if (KMT_ARRAY_GROW(a->stack_hint, a->stacks.nr,
				   a->stack_hint_alloc))
			return -ENOMEM;
		a->stack_hint[*id] = (unsigned char)kmt_po_stack_hint(
			r->stack.s ? r->stack.s : "", r->stack.len);
	}
	return 0;
}

/* the allocation line with the digits of both timestamps taken out */
static int header_id(struct kmt_po_analysis *a, const struct kmt_po_record *r,
		     uint32_t *id)
{
	struct kmt_sb *sb = &a->scratch;
	size_t before = a->headers.nr;
	struct {
		uint32_t off, len;
	} cut[2] = {
		{ r->ts_off, r->ts_len }, { r->free_ts_off, r->free_ts_len },
	};
	uint32_t pos = 0, new_off[2] = { 0, 0 };
	int i, first = cut[1].len && cut[1].off < cut[0].off ? 1 : 0;

	kmt_sb_reset(sb);
	for (i = 0; i < 2; i++) {
		int k = i ? !first : first;

		if (!cut[k].len)
			continue;
		kmt_sb_add(sb, r->alloc.s + pos, cut[k].off - pos);
		new_off[k] = (uint32_t)sb->len;
		pos = cut[k].off + cut[k].len;
	}
	kmt_sb_add(sb, r->alloc.s + pos, r->alloc.len - pos);
	if (sb->oom)
		return -ENOMEM;
	*id = intern(&a->headers, a->memo_headers, sb->buf, sb->len);
	if (!*id)
		return -ENOMEM;
	if (a->headers.nr != before) {
		struct kmt_po_header_info *h;

		if (KMT_ARRAY_GROW(a->hinfo, a->headers.nr, a->hinfo_alloc))
			return -ENOMEM;
		h = &a->hinfo[*id];
		memset(h, 0, sizeof(*h));
		h->ts_off = new_off[0];
		h->free_ts_off = new_off[1];
		h->has_ts = r->has_ts;
		h->has_free_ts = r->has_free_ts;
		h->pid = r->pid;
		h->tgid = r->tgid;
		if (r->comm.len) {
			h->comm = intern(&a->strs, a->memo_strs, r->comm.s,
					 r->comm.len);
			if (!h->comm)
				return -ENOMEM;
		}
		h->user_movable = (unsigned char)kmt_po_gfp_user_movable(
			r->gfp_names.s ? r->gfp_names.s : "",
			r->gfp_names.len);
	}
	return 0;
}

static int count_by(struct kmt_hash *h, uint64_t key, uint64_t pages)
{
	struct kmt_po_count *c = kmt_hash_put(h, key, NULL);

	if (!c)
		return -ENOMEM;
	c->records++;
	c->pages += pages;
	return 0;
}

static int is_cma(struct kmt_po_str s)
{
	return s.len == 3 && !memcmp(s.s, "CMA", 3);
}

/* what tells groups apart under the options */
struct group_id {
	uint32_t header, stack, tail, comm;
	int32_t pid, tgid;
	uint32_t klass, pad;
	uint64_t ts, free_ts;
};

static void group_key(const struct kmt_po_analysis *a,
		      const struct kmt_po_group *g, struct group_id *k)
{
	unsigned int cull = a->opt.cull;
	const struct kmt_po_header_info *h = &a->hinfo[g->header];

	memset(k, 0, sizeof(*k));
	if (!cull) {
		k->header = g->header;
		k->stack = g->stack;
		k->tail = g->tail;
		if (a->opt.ts_in_key) {
			k->ts = g->ts;
			k->free_ts = g->free_ts;
		}
		return;
	}
	if (cull & KMT_PO_CULL_STACK) {
		k->stack = g->stack;
		k->tail = g->tail;
	}
	if (cull & KMT_PO_CULL_PID)
		k->pid = h->pid;
	if (cull & KMT_PO_CULL_TGID)
		k->tgid = h->tgid;
	if (cull & KMT_PO_CULL_NAME)
		k->comm = h->comm;
	if (cull & KMT_PO_CULL_ALLOCATOR)
		k->klass = g->klass;
}

static void merge_into(struct kmt_po_group *g, const struct kmt_po_group *rec)
{
	g->times += rec->times;
	g->pages += rec->pages;
	if (rec->ts < g->ts) {
		g->ts = rec->ts;
		g->free_ts = rec->free_ts;
	}
}

static int fold(struct kmt_po_analysis *a, const struct kmt_po_group *rec)
{
	struct group_id key, other;
	uint64_t h;

	if (!a->opt.cull && a->opt.ts_in_key) {
		/* nearly one group a record: no index, merged at the end */
		if (KMT_ARRAY_GROW(a->groups, a->nr_groups + 1,
				   a->groups_alloc))
			return -ENOMEM;
		a->groups[a->nr_groups++] = *rec;
		a->unmerged = 1;
		return 0;
	}
	group_key(a, rec, &key);
	h = kmt_hash_bytes(&key, sizeof(key));
	for (;; h++) {
		int is_new;
		uint32_t *idx = kmt_hash_put(&a->group_index, h, &is_new);
		struct kmt_po_group *g;

		if (!idx)
			return -ENOMEM;
		if (is_new) {
			if (KMT_ARRAY_GROW(a->groups, a->nr_groups + 1,
					   a->groups_alloc)) {
				kmt_hash_del(&a->group_index, h, NULL);
				return -ENOMEM;
			}
			*idx = (uint32_t)a->nr_groups;
			a->groups[a->nr_groups++] = *rec;
			return 0;
		}
		g = &a->groups[*idx];
		group_key(a, g, &other);
		if (memcmp(&key, &other, sizeof(key)))
			continue;	/* another key with this hash */
		merge_into(g, rec);
		return 0;
	}
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

/* the timestamp first: it nearly always tells two records apart */
static int cmp_identity(const struct kmt_po_group *x,
			const struct kmt_po_group *y)
{
	int c = CMP(x->ts, y->ts);

	if (!c)
		c = CMP(x->header, y->header);
	if (!c)
		c = CMP(x->stack, y->stack);
	if (!c)
		c = CMP(x->tail, y->tail);
	if (!c)
		c = CMP(x->free_ts, y->free_ts);
	return c;
}

static int cmp_identity_index(const void *p, const void *q, void *arg)
{
	const struct kmt_po_group *groups = arg;
	uint32_t i = *(const uint32_t *)p, j = *(const uint32_t *)q;
	int c = cmp_identity(&groups[i], &groups[j]);

	return c ? c : CMP(i, j);
}

int kmt_po_analysis_finish(struct kmt_po_analysis *a)
{
	size_t i, j, n = a->nr_groups, out = 0;
	uint32_t *idx;

	if (!a->unmerged)
		return 0;
	a->unmerged = 0;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), cmp_identity_index, a->groups);
	/* each run folds into its first record; the others are emptied */
	for (i = 0; i < n; i = j) {
		struct kmt_po_group *keep = &a->groups[idx[i]];

		for (j = i + 1; j < n && !cmp_identity(keep, &a->groups[idx[j]]); j++) {
			merge_into(keep, &a->groups[idx[j]]);
			a->groups[idx[j]].times = 0;
		}
	}
	free(idx);
	/* the kept groups stay in the order they were met */
	for (i = 0; i < n; i++) {
		if (a->groups[i].times)
			a->groups[out++] = a->groups[i];
	}
	a->nr_groups = out;
	return 0;
}

int kmt_po_add(void *ctx, const struct kmt_po_record *r)
{
	struct kmt_po_analysis *a = ctx;
	struct kmt_po_group g;
	int cma_block = 0, ret;

	if (!selected(a, r)) {
		a->nr_filtered++;
		return 0;
	}
	memset(&g, 0, sizeof(g));
	g.times = 1;
	g.ts = r->ts;
	g.free_ts = r->free_ts;
	ret = stack_id(a, r, &g.stack);
	if (ret)
		return ret;
	if (r->tail.len) {
		g.tail = intern(&a->strs, a->memo_strs, r->tail.s, r->tail.len);
		if (!g.tail)
			return -ENOMEM;
	}
	if (!a->kind)
		a->kind = r->kind;

	if (r->kind == KMT_PO_STACKS) {
		g.pages = r->nr_base_pages;
		g.klass = kmt_po_classify(a->stack_hint[g.stack], 0, 0, 0);
	} else {
		ret = header_id(a, r, &g.header);
		if (ret)
			return ret;
		g.pages = 1ULL << r->order;
		if (r->has_pfn) {
			uint32_t mt = intern(&a->strs, a->memo_strs, r->page_mt.s,
					     r->page_mt.len);
			uint32_t bmt = intern(&a->strs, a->memo_strs, r->block_mt.s,
					      r->block_mt.len);

			if (!mt || !bmt || count_by(&a->by_mt, mt, g.pages) ||
			    count_by(&a->by_block_mt, bmt, g.pages))
				return -ENOMEM;
			cma_block = is_cma(r->page_mt) || is_cma(r->block_mt);
			a->formats |= r->pfn_hex ? KMT_PO_FMT_PFN_HEX :
				      KMT_PO_FMT_PFN_DEC;
		}
		g.klass = kmt_po_classify(a->stack_hint[g.stack],
					  a->hinfo[g.header].user_movable,
					  r->flag_slab, cma_block);
		a->by_order[r->order].records++;
		a->by_order[r->order].pages += g.pages;
		if (r->migrate_reason.len) {
			uint32_t id = intern(&a->strs, a->memo_strs, r->migrate_reason.s,
					     r->migrate_reason.len);

			if (!id || count_by(&a->by_reason, id, g.pages))
				return -ENOMEM;
			a->migrated.records++;
			a->migrated.pages += g.pages;
			a->formats |= KMT_PO_FMT_MIGRATE;
		}
		if (r->slab_cache) {
			a->slab_cache.records++;
			a->slab_cache.pages += g.pages;
			a->formats |= KMT_PO_FMT_MEMCG;
		}
		if (r->memcg.len) {
			uint32_t id = intern(&a->strs, a->memo_strs, r->memcg.s, r->memcg.len);
			struct kmt_po_memcg *m;

			if (!id)
				return -ENOMEM;
			m = kmt_hash_put(&a->by_memcg,
					 (uint64_t)id << 1 | r->memcg_offline,
					 NULL);
			if (!m)
				return -ENOMEM;
			m->name = id;
			m->offline = r->memcg_offline;
			m->records++;
			m->pages += g.pages;
			if (r->memcg_kmem)
				m->kmem_pages += g.pages;
			a->charged.records++;
			a->charged.pages += g.pages;
			a->formats |= KMT_PO_FMT_MEMCG;
		}
		if (r->has_tgid)
			a->formats |= KMT_PO_FMT_TGID;
		if (r->has_comm)
			a->formats |= KMT_PO_FMT_COMM;
		if (r->has_free_ts)
			a->formats |= KMT_PO_FMT_FREE_TS;
		if (!r->has_pid)
			a->formats |= KMT_PO_FMT_NO_PID;
	}
	a->nr_records++;
	a->nr_pages += g.pages;
	a->by_class[g.klass].records++;
	a->by_class[g.klass].pages += g.pages;
	return fold(a, &g);
}

/* --- sorting --- */

struct sort_ctx {
	const struct kmt_po_analysis *a;
	const struct kmt_po_sortkey *keys;
	int nr_keys;
};

static int cmp_stack(const struct kmt_po_analysis *a,
		     const struct kmt_po_group *x, const struct kmt_po_group *y)
{
	int c = x->stack == y->stack ? 0 :
		strcmp(kmt_po_text(&a->stacks, x->stack),
		       kmt_po_text(&a->stacks, y->stack));

	if (c || x->tail == y->tail)
		return c;
	return strcmp(kmt_po_text(&a->strs, x->tail),
		      kmt_po_text(&a->strs, y->tail));
}

static int cmp_key(const struct kmt_po_analysis *a, enum kmt_po_key key,
		   const struct kmt_po_group *x, const struct kmt_po_group *y)
{
	int c;

	switch (key) {
	case KMT_PO_KEY_TIMES:
		return CMP(x->times, y->times);
	case KMT_PO_KEY_PAGES:
		return CMP(x->pages, y->pages);
	case KMT_PO_KEY_PID:
		return CMP(kmt_po_group_pid(a, x), kmt_po_group_pid(a, y));
	case KMT_PO_KEY_TGID:
		return CMP(kmt_po_group_tgid(a, x), kmt_po_group_tgid(a, y));
	case KMT_PO_KEY_NAME: {
		uint32_t cx = kmt_po_group_comm(a, x);
		uint32_t cy = kmt_po_group_comm(a, y);

		return cx == cy ? 0 : strcmp(kmt_po_text(&a->strs, cx),
					     kmt_po_text(&a->strs, cy));
	}
	case KMT_PO_KEY_STACK:
		return cmp_stack(a, x, y);
	case KMT_PO_KEY_TXT:
		c = x->header == y->header ? 0 :
		    strcmp(kmt_po_text(&a->headers, x->header),
			   kmt_po_text(&a->headers, y->header));
		return c ? c : cmp_stack(a, x, y);
	case KMT_PO_KEY_ALLOC_TS:
		return CMP(x->ts, y->ts);
	case KMT_PO_KEY_ALLOCATOR:
		return CMP(x->klass, y->klass);
	}
	return 0;
}

static int cmp_groups(const void *p, const void *q, void *arg)
{
	const struct sort_ctx *s = arg;
	uint32_t i = *(const uint32_t *)p, j = *(const uint32_t *)q;
	const struct kmt_po_group *x = &s->a->groups[i];
	const struct kmt_po_group *y = &s->a->groups[j];
	int k, c;

	for (k = 0; k < s->nr_keys; k++) {
		c = cmp_key(s->a, s->keys[k].key, x, y);
		if (c)
			return s->keys[k].desc ? -c : c;
	}
	/*
	 * Ties: the bigger group first, then the one met first in the
	 * dump, which keeps the order fixed without comparing long texts.
	 */
	c = CMP(y->times, x->times);
	if (!c)
		c = CMP(y->pages, x->pages);
	return c ? c : CMP(i, j);
}

uint32_t *kmt_po_sort(const struct kmt_po_analysis *a,
		      const struct kmt_po_sortkey *keys, int nr_keys)
{
	struct sort_ctx s = { a, keys, nr_keys };
	uint32_t *order = malloc((a->nr_groups ? a->nr_groups : 1) *
				 sizeof(*order));
	size_t i;

	if (!order)
		return NULL;
	for (i = 0; i < a->nr_groups; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, a->nr_groups, sizeof(*order), cmp_groups, &s);
	return order;
}

/* decimal digits of v into buf (20 bytes at least); returns their count */
static size_t u64_digits(char *buf, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

void kmt_po_group_header(const struct kmt_po_analysis *a,
			 const struct kmt_po_group *g, struct kmt_sb *out)
{
	const char *h = kmt_po_text(&a->headers, g->header);
	const struct kmt_po_header_info *hi = &a->hinfo[g->header];
	size_t len = g->header ? a->headers.lens[g->header] : 0, pos = 0;
	char num[20];

	if (!g->header || !a->opt.ts_in_key) {
		kmt_sb_add(out, h, len);
		return;
	}
	/* the output is as big as the input here: no printf */
	if (hi->has_ts) {
		kmt_sb_add(out, h, hi->ts_off);
		kmt_sb_add(out, num, u64_digits(num, g->ts));
		pos = hi->ts_off;
	}
	if (hi->has_free_ts && hi->free_ts_off >= pos) {
		kmt_sb_add(out, h + pos, hi->free_ts_off - pos);
		kmt_sb_add(out, num, u64_digits(num, g->free_ts));
		pos = hi->free_ts_off;
	}
	kmt_sb_add(out, h + pos, len - pos);
}
