// SPDX-License-Identifier: GPL-2.0
/*
 * Grouping, culling, sorting and totals of page_owner records.
 *
 * Each record is reduced on arrival to a few ids (stack text, allocation
 * line without timestamps, trailing lines, task name) and folded into
 * its group; its text is never kept.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pageowner.h"
#include "report/report.h"
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

static const char *key_name(const struct key_name *t, size_t n, size_t i,
			    const char **abbrev)
{
	if (i >= n)
		return NULL;
	if (abbrev)
		*abbrev = t[i].abbrev;
	return t[i].name;
}

const char *kmt_po_sort_key_name(size_t i, const char **abbrev)
{
	return key_name(sort_keys, sizeof(sort_keys) / sizeof(sort_keys[0]),
			i, abbrev);
}

const char *kmt_po_cull_key_name(size_t i, const char **abbrev)
{
	return key_name(cull_keys, sizeof(cull_keys) / sizeof(cull_keys[0]),
			i, abbrev);
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
	kmt_hash_u32_init(&a->group_index);
	kmt_po_counts_init(&a->by_mt);
	kmt_po_counts_init(&a->by_block_mt);
	kmt_po_counts_init(&a->by_reason);
	kmt_po_memcgs_init(&a->by_memcg);
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
	free(a->order);
	kmt_hash_u32_free(&a->group_index);
	kmt_po_counts_free(&a->by_mt);
	kmt_po_counts_free(&a->by_block_mt);
	kmt_po_counts_free(&a->by_reason);
	kmt_po_memcgs_free(&a->by_memcg);
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
 * memcg).  A two-way memo, indexed by a few bytes of the text and
 * checked with memcmp, finds it without hashing the whole text; a miss
 * falls back to the strtab.
 */
static uint32_t intern(struct kmt_strtab *t, uint32_t *memo, const char *s,
		       size_t len)
{
	uint64_t fp = len, w;
	uint32_t *slot, id;

	/*
	 * Texts of one kind share their ends (every allocation line ends in
	 * "), ts  ns", many stacks in entry_SYSCALL_64...): five words
	 * spread over the text tell them apart.
	 */
	if (len >= 32) {
		memcpy(&w, s + len / 4, 8);
		fp ^= w;
		memcpy(&w, s + len / 2, 8);
		fp = fp * 0x9e3779b97f4a7c15ULL ^ w;
		memcpy(&w, s + len - 32, 8);
		fp = fp * 0x9e3779b97f4a7c15ULL ^ w;
		memcpy(&w, s + len - 24, 8);
		fp = fp * 0x9e3779b97f4a7c15ULL ^ w;
		memcpy(&w, s + len - 16, 8);
		fp = fp * 0x9e3779b97f4a7c15ULL ^ w;
	} else if (len >= 8) {
		memcpy(&w, s + (len >= 16 ? len / 2 - 4 : 0), 8);
		fp ^= w;
		memcpy(&w, s + len - 8, 8);
		fp = fp * 0x9e3779b97f4a7c15ULL ^ w;
	} else if (len) {
		fp ^= (uint64_t)(unsigned char)s[0] << 8 |
		      (unsigned char)s[len - 1];
	}
	/* two ways a set: the newest first, the one before it second */
	slot = &memo[kmt_hash_mix(fp) & (KMT_PO_MEMO - 2)];
	id = slot[0];
	if (id && t->lens[id] == len && !memcmp(t->strs[id], s, len))
		return id;
	id = slot[1];
	if (id && t->lens[id] == len && !memcmp(t->strs[id], s, len)) {
		slot[1] = slot[0];
		slot[0] = id;
		return id;
	}
	id = kmt_strtab_intern(t, s, len);
	slot[1] = slot[0];
	slot[0] = id;
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
		/*
		 * Kernels before 4.6 print the mask without names; their
		 * __GFP_MOVABLE (0x08) and __GFP_HARDWALL (0x20000) bits
		 * held from 3.19 to 4.5.
		 */
		if (r->gfp_names.s)
			h->user_movable = (unsigned char)kmt_po_gfp_user_movable(
				r->gfp_names.s, r->gfp_names.len);
		else
			h->user_movable = (r->gfp_mask & 0x20008) == 0x20008;
	}
	return 0;
}

static int count_by(struct kmt_po_counts *h, uint64_t key, uint64_t pages)
{
	struct kmt_po_count *c = kmt_po_counts_put(h, key, NULL);

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

static int append_group(struct kmt_po_analysis *a,
			const struct kmt_po_group *rec)
{
	if (KMT_ARRAY_GROW(a->groups, a->nr_groups + 1, a->groups_alloc))
		return -ENOMEM;
	a->groups[a->nr_groups++] = *rec;
	return 0;
}

/* whether two groups are one under the options */
static int same_group(const struct kmt_po_analysis *a,
		      const struct kmt_po_group *x, const struct kmt_po_group *y)
{
	struct group_id kx, ky;

	/* page_owner_sort's default identity, the record text: three ids */
	if (!a->opt.cull)
		return x->header == y->header && x->stack == y->stack &&
		       x->tail == y->tail;
	group_key(a, x, &kx);
	group_key(a, y, &ky);
	return !memcmp(&kx, &ky, sizeof(kx));
}

static uint64_t group_hash(const struct kmt_po_analysis *a,
			   const struct kmt_po_group *g)
{
	struct group_id key;

	if (!a->opt.cull)
		return kmt_hash_mix(((uint64_t)g->header << 32 | g->stack) ^
				    (uint64_t)g->tail * 0x9e3779b97f4a7c15ULL);
	group_key(a, g, &key);
	return kmt_hash_bytes(&key, sizeof(key));
}

/* into the group of the same identity, found by its hash h, or a new one */
static int fold_hashed(struct kmt_po_analysis *a, const struct kmt_po_group *rec,
		       uint64_t h)
{
	for (;; h++) {
		int is_new;
		uint32_t *idx = kmt_hash_u32_put(&a->group_index, h, &is_new);
		struct kmt_po_group *g;

		if (!idx)
			return -ENOMEM;
		if (is_new) {
			if (append_group(a, rec)) {
				kmt_hash_u32_del(&a->group_index, h, NULL);
				return -ENOMEM;
			}
			*idx = (uint32_t)(a->nr_groups - 1);
			return 0;
		}
		g = &a->groups[*idx];
		/* else another identity with this hash: probe on */
		if (same_group(a, g, rec)) {
			merge_into(g, rec);
			return 0;
		}
	}
}

static int fold(struct kmt_po_analysis *a, const struct kmt_po_group *rec)
{
	if (!a->opt.cull && a->opt.ts_in_key) {
		/* nearly one group a record: no index, merged at the end */
		if (append_group(a, rec))
			return -ENOMEM;
		a->unmerged = 1;
		return 0;
	}
	return fold_hashed(a, rec, group_hash(a, rec));
}

/*
 * With hundreds of thousands of groups, folding a record is mostly
 * waiting for its index slot and then its group to come from memory.
 * Records are folded in batches, in their order, after the slots and
 * groups of the whole batch were asked for at once.
 */
static int flush_pending(struct kmt_po_analysis *a)
{
	unsigned int i, n = a->nr_pending;
	uint64_t h[KMT_PO_BATCH];
	int ret = 0;

	a->nr_pending = 0;
	for (i = 0; i < n; i++) {
		h[i] = group_hash(a, &a->pending[i]);
		kmt_hash_u32_prefetch(&a->group_index, h[i]);
	}
	for (i = 0; i < n; i++) {
		const uint32_t *idx = kmt_hash_u32_get(&a->group_index, h[i]);

		if (idx)
			__builtin_prefetch(&a->groups[*idx]);
	}
	for (i = 0; i < n && !ret; i++)
		ret = fold_hashed(a, &a->pending[i], h[i]);
	return ret;
}

static int fold_later(struct kmt_po_analysis *a, const struct kmt_po_group *rec)
{
	if (!a->opt.cull && a->opt.ts_in_key)
		return fold(a, rec);
	a->pending[a->nr_pending++] = *rec;
	return a->nr_pending == KMT_PO_BATCH ? flush_pending(a) : 0;
}

/* --- merging the analyses of parts --- */

/* b's string ids in a's table, interning what a lacks; NULL on failure */
static uint32_t *map_ids(struct kmt_strtab *a, const struct kmt_strtab *b)
{
	uint32_t *map = calloc(b->nr ? b->nr : 1, sizeof(*map));
	size_t id;

	if (!map)
		return NULL;
	for (id = 1; id < b->nr; id++) {
		map[id] = kmt_strtab_intern(a, b->strs[id], b->lens[id]);
		if (!map[id]) {
			free(map);
			return NULL;
		}
	}
	return map;
}

static int merge_counts(struct kmt_po_counts *a, const struct kmt_po_counts *b,
			const uint32_t *smap)
{
	struct kmt_po_count *from;
	size_t it = 0;
	uint64_t key;

	while (kmt_po_counts_next(b, &it, &key, &from)) {
		struct kmt_po_count *c = kmt_po_counts_put(a, smap[key], NULL);

		if (!c)
			return -ENOMEM;
		c->records += from->records;
		c->pages += from->pages;
	}
	return 0;
}

static int merge_memcgs(struct kmt_po_memcgs *a, const struct kmt_po_memcgs *b,
			const uint32_t *smap)
{
	struct kmt_po_memcg *from;
	size_t it = 0;
	uint64_t key;

	while (kmt_po_memcgs_next(b, &it, &key, &from)) {
		struct kmt_po_memcg *m = kmt_po_memcgs_put(a,
			(uint64_t)smap[from->name] << 1 | (uint64_t)from->offline,
			NULL);

		if (!m)
			return -ENOMEM;
		m->name = smap[from->name];
		m->offline = from->offline;
		m->records += from->records;
		m->pages += from->pages;
		m->kmem_pages += from->kmem_pages;
	}
	return 0;
}

static void remap_group(struct kmt_po_group *g, const uint32_t *hmap,
			const uint32_t *kmap, const uint32_t *smap)
{
	g->header = hmap[g->header];
	g->stack = kmap[g->stack];
	g->tail = smap[g->tail];
}

/*
 * One group a record: b's groups go after a's as they are.  They are
 * moved from b's end, b's array shrinking as a's fills, so that the
 * largest case (every record a group) does not need both copies at once.
 */
static int append_groups(struct kmt_po_analysis *a, struct kmt_po_analysis *b,
			 const uint32_t *hmap, const uint32_t *kmap,
			 const uint32_t *smap)
{
	const size_t chunk = 65536;
	size_t na = a->nr_groups, nb = b->nr_groups, i = nb, j;

	if (!nb)
		return 0;
	if (KMT_ARRAY_GROW(a->groups, na + nb, a->groups_alloc))
		return -ENOMEM;
	while (i) {
		size_t lo = i > chunk ? i - chunk : 0;
		void *p;

		for (j = lo; j < i; j++) {
			a->groups[na + j] = b->groups[j];
			remap_group(&a->groups[na + j], hmap, kmap, smap);
		}
		b->nr_groups = i = lo;
		/* a smaller block gives its pages back: no failure to handle */
		p = realloc(b->groups, (i ? i : 1) * sizeof(*b->groups));
		if (p) {
			b->groups = p;
			b->groups_alloc = i ? i : 1;
		}
	}
	a->nr_groups = na + nb;
	a->unmerged = 1;
	return 0;
}

/*
 * b's groups folded into a's in order.  As a grows b shrinks: every
 * chunk folded, the rest moves to the front and b's array gives the
 * chunk's memory back, so a and b together stay near the size of a.
 */
static int fold_groups(struct kmt_po_analysis *a, struct kmt_po_analysis *b,
		       const uint32_t *hmap, const uint32_t *kmap,
		       const uint32_t *smap)
{
	const size_t chunk = 65536;

	while (b->nr_groups) {
		size_t n = b->nr_groups < chunk ? b->nr_groups : chunk, i;
		void *p;

		for (i = 0; i < n; i++) {
			struct kmt_po_group g = b->groups[i];

			remap_group(&g, hmap, kmap, smap);
			if (fold(a, &g))
				return -ENOMEM;
		}
		b->nr_groups -= n;
		memmove(b->groups, b->groups + n,
			b->nr_groups * sizeof(*b->groups));
		/* a smaller block gives its pages back: no failure to handle */
		p = realloc(b->groups, (b->nr_groups ? b->nr_groups : 1) *
			    sizeof(*b->groups));
		if (p) {
			b->groups = p;
			b->groups_alloc = b->nr_groups ? b->nr_groups : 1;
		}
	}
	return 0;
}

int kmt_po_analysis_merge(struct kmt_po_analysis *a,
			  struct kmt_po_analysis *b, uint64_t line_offset)
{
	size_t old_stacks = a->stacks.nr, old_headers = a->headers.nr, i, id;
	uint32_t *smap = NULL, *hmap = NULL, *kmap = NULL;
	int ret = -ENOMEM;

	if (flush_pending(a) || flush_pending(b))
		goto out;
	smap = map_ids(&a->strs, &b->strs);
	kmap = smap ? map_ids(&a->stacks, &b->stacks) : NULL;
	hmap = kmap ? map_ids(&a->headers, &b->headers) : NULL;
	if (!hmap)
		goto out;
	/* what a learns of the stacks and headers that are new to it */
	if (KMT_ARRAY_GROW(a->stack_hint, a->stacks.nr, a->stack_hint_alloc) ||
	    KMT_ARRAY_GROW(a->hinfo, a->headers.nr, a->hinfo_alloc))
		goto out;
	for (id = 1; id < b->stacks.nr; id++) {
		if (kmap[id] >= old_stacks)
			a->stack_hint[kmap[id]] = b->stack_hint[id];
	}
	for (id = 1; id < b->headers.nr; id++) {
		if (hmap[id] < old_headers)
			continue;
		a->hinfo[hmap[id]] = b->hinfo[id];
		a->hinfo[hmap[id]].comm = smap[b->hinfo[id].comm];
	}

	kmt_hash_u32_free(&b->group_index);
	if (b->unmerged) {
		if (append_groups(a, b, hmap, kmap, smap))
			goto out;
	} else if (fold_groups(a, b, hmap, kmap, smap)) {
		goto out;
	}

	if (merge_counts(&a->by_mt, &b->by_mt, smap) ||
	    merge_counts(&a->by_block_mt, &b->by_block_mt, smap) ||
	    merge_counts(&a->by_reason, &b->by_reason, smap) ||
	    merge_memcgs(&a->by_memcg, &b->by_memcg, smap))
		goto out;
	for (i = 0; i < KMT_PO_CLASS_NR; i++) {
		a->by_class[i].records += b->by_class[i].records;
		a->by_class[i].pages += b->by_class[i].pages;
	}
	for (i = 0; i < KMT_PO_MAX_ORDER; i++) {
		a->by_order[i].records += b->by_order[i].records;
		a->by_order[i].pages += b->by_order[i].pages;
	}
	a->migrated.records += b->migrated.records;
	a->migrated.pages += b->migrated.pages;
	a->slab_cache.records += b->slab_cache.records;
	a->slab_cache.pages += b->slab_cache.pages;
	a->charged.records += b->charged.records;
	a->charged.pages += b->charged.pages;
	a->formats |= b->formats;
	if (!a->kind)
		a->kind = b->kind;
	a->nr_records += b->nr_records;
	a->nr_pages += b->nr_pages;
	a->nr_filtered += b->nr_filtered;
	a->nr_malformed += b->nr_malformed;
	for (i = 0; i < b->nr_kept_malformed &&
		    a->nr_kept_malformed < KMT_PO_KEEP_MALFORMED; i++) {
		a->malformed[a->nr_kept_malformed] = b->malformed[i];
		a->malformed[a->nr_kept_malformed].line += line_offset;
		a->nr_kept_malformed++;
	}
	ret = 0;
out:
	free(smap);
	free(kmap);
	free(hmap);
	kmt_po_analysis_free(b);
	return ret;
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

/*
 * Sorts ids by their groups' allocation time (descending when desc),
 * then each run of equal times by cmp, a total order: the result is
 * cmp's order, in far fewer comparisons when times mostly differ, as
 * they do when every record is a group.  The time sort is a radix sort,
 * a byte a pass (a pass skipped where all times share the byte), stable
 * so runs keep the ids' order.  -ENOMEM leaves ids unsorted.
 */
static int sort_by_ts(const struct kmt_po_group *groups, uint32_t *ids,
		      size_t n, int desc,
		      int (*cmp)(const void *, const void *, void *), void *arg)
{
	static const int bytes = 8;
	size_t (*count)[256], i, j, run;
	uint32_t *tmp, *from = ids, *to;
	int b;

	if (n < 2)
		return 0;
	count = calloc((size_t)bytes, sizeof(*count));
	tmp = malloc(n * sizeof(*tmp));
	if (!count || !tmp) {
		free(count);
		free(tmp);
		return -ENOMEM;
	}
	to = tmp;
	for (i = 0; i < n; i++) {
		uint64_t k = groups[ids[i]].ts ^ (desc ? UINT64_MAX : 0);

		for (b = 0; b < bytes; b++)
			count[b][(k >> (8 * b)) & 0xff]++;
	}
	for (b = 0; b < bytes; b++) {
		uint64_t k0 = groups[from[0]].ts ^ (desc ? UINT64_MAX : 0);
		size_t pos = 0;
		uint32_t *swap;

		if (count[b][(k0 >> (8 * b)) & 0xff] == n)
			continue;
		for (j = 0; j < 256; j++) {
			size_t c = count[b][j];

			count[b][j] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t k = groups[from[i]].ts ^ (desc ? UINT64_MAX : 0);

			to[count[b][(k >> (8 * b)) & 0xff]++] = from[i];
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != ids)
		memcpy(ids, from, n * sizeof(*ids));
	free(tmp);
	free(count);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && groups[ids[j]].ts == groups[ids[i]].ts; j++)
			;
		run = j - i;
		if (run > 1)
			qsort_r(ids + i, run, sizeof(*ids), cmp, arg);
	}
	return 0;
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
	size_t i, j, n, out = 0;
	uint32_t *idx;

	if (flush_pending(a))
		return -ENOMEM;
	if (!a->unmerged)
		return 0;
	n = a->nr_groups;
	a->unmerged = 0;
	idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	/* the identity compares times first */
	if (sort_by_ts(a->groups, idx, n, 0, cmp_identity_index, a->groups))
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
			if (r->mt_number)
				a->formats |= KMT_PO_FMT_MT_NUMBER;
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
			m = kmt_po_memcgs_put(&a->by_memcg,
					      (uint64_t)id << 1 |
					      r->memcg_offline, NULL);
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
	return fold_later(a, &g);
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
	/* -a: as many groups as records, nearly all times different */
	if (nr_keys && keys[0].key == KMT_PO_KEY_ALLOC_TS &&
	    !sort_by_ts(a->groups, order, a->nr_groups, keys[0].desc,
			cmp_groups, &s))
		return order;
	qsort_r(order, a->nr_groups, sizeof(*order), cmp_groups, &s);
	return order;
}

void kmt_po_group_header(const struct kmt_po_analysis *a,
			 const struct kmt_po_group *g, struct kmt_sb *out)
{
	const char *h = kmt_po_text(&a->headers, g->header);
	const struct kmt_po_header_info *hi = &a->hinfo[g->header];
	size_t len = g->header ? a->headers.lens[g->header] : 0, pos = 0;
	char num[21];

	if (!g->header || !a->opt.ts_in_key) {
		kmt_sb_add(out, h, len);
		return;
	}
	/* the output is as big as the input here: no printf */
	if (hi->has_ts) {
		kmt_sb_add(out, h, hi->ts_off);
		kmt_sb_add(out, num, kmt_fmt_u64(num, g->ts));
		pos = hi->ts_off;
	}
	if (hi->has_free_ts && hi->free_ts_off >= pos) {
		kmt_sb_add(out, h + pos, hi->free_ts_off - pos);
		kmt_sb_add(out, num, kmt_fmt_u64(num, g->free_ts));
		pos = hi->free_ts_off;
	}
	kmt_sb_add(out, h + pos, len - pos);
}

/* --- the report --- */

/* what a group's row may hold, each a column when the options show it */
enum po_field {
	F_TIMES, F_PAGES, F_ALLOCATOR, F_LABEL, F_RECORD, F_PID, F_TGID,
	F_NAME, F_FIRST_TS, F_STACK, F_EXTRA, F_END, F_NR
};

/* the groups' rows as a block table draws them: page_owner_sort's text */
struct po_rows {
	struct kmt_po_analysis *a;
	int at[F_NR];		/* the column of each field, -1 where none */
	struct kmt_col cols[F_NR];
	size_t ncols;
	/* the text after the last value, before the next one's */
	const char *pending;
};

static int add_field(struct kmt_report *r, struct po_rows *p,
		     enum po_field f, const char *key, const char *before,
		     const char *after, enum kmt_val_type type,
		     unsigned int flags)
{
	struct kmt_col *c = &p->cols[p->ncols];

	c->key = key;
	c->type = type;
	c->flags = flags;
	c->title = key;
	if (!(flags & KMT_COL_NO_TEXT)) {
		c->title = kmt_report_printf(r, "%s%s", p->pending, before);
		p->pending = after;
	}
	p->at[f] = (int)p->ncols++;
	return r->oom ? -ENOMEM : 0;
}

/*
 * The columns of the groups: page_owner_sort's text between the values
 * in the titles, and what --json has always held.  Without --cull a
 * group is a record, its allocation line (page_owner records only) and
 * stack; with --cull, the keys culled by.
 */
static int group_fields(struct kmt_report *r, struct po_rows *p,
			const struct kmt_po_analysis *a,
			const struct kmt_po_report_opts *o)
{
	unsigned int cull = a->opt.cull;
	int page = a->kind == KMT_PO_PAGE, err = 0;
	int pid = !cull ? page : (cull & KMT_PO_CULL_PID) || o->pid;
	int tgid = !cull ? page : (cull & KMT_PO_CULL_TGID) || o->tgid;
	int name = !cull ? page : (cull & KMT_PO_CULL_NAME) || o->name;
	unsigned int task_text = cull ? 0 : KMT_COL_NO_TEXT;

	p->pending = "";
	err |= add_field(r, p, F_TIMES, "times", "", " times, ", KMT_V_U64, 0);
	err |= add_field(r, p, F_PAGES, "pages", "", cull ? " pages" :
			 " pages, allocated by ", KMT_V_U64, 0);
	err |= add_field(r, p, F_ALLOCATOR, "allocator", "", "", KMT_V_STR,
			 KMT_COL_NO_TEXT);
	if (!cull)
		err |= add_field(r, p, F_LABEL, "label", "", " :\n", KMT_V_STR,
				 KMT_COL_TEXT_ONLY);
	if (!cull && page)
		err |= add_field(r, p, F_RECORD, "record", "", "\n", KMT_V_STR,
				 0);
	if (pid)
		err |= add_field(r, p, F_PID, "pid", ", PID ", "", KMT_V_S64,
				 task_text);
	if (tgid)
		err |= add_field(r, p, F_TGID, "tgid", ", TGID ", "", KMT_V_S64,
				 task_text);
	if (name)
		err |= add_field(r, p, F_NAME, "name", ", task_comm_name: ", "",
				 KMT_V_STR, task_text);
	if (cull & KMT_PO_CULL_ALLOCATOR)
		err |= add_field(r, p, F_LABEL, "label", ", allocated by ", " ",
				 KMT_V_STR, KMT_COL_TEXT_ONLY);
	if (page)
		err |= add_field(r, p, F_FIRST_TS, "first_ts", "", "",
				 KMT_V_U64, KMT_COL_NO_TEXT);
	if (!cull || (cull & KMT_PO_CULL_STACK)) {
		err |= add_field(r, p, F_STACK, "stack", cull ? ":\n" : "", "",
				 KMT_V_STACK, 0);
		err |= add_field(r, p, F_EXTRA, "extra", "", "", KMT_V_LINES, 0);
	}
	/* what follows the last value ("allocated by SLAB "), alone */
	if (*p->pending)
		err |= add_field(r, p, F_END, "end", "", "", KMT_V_STR,
				 KMT_COL_TEXT_ONLY);
	return err ? -ENOMEM : 0;
}

static void group_row(void *ctx, size_t i, union kmt_val *v)
{
	const struct po_rows *p = ctx;
	struct kmt_po_analysis *a = p->a;
	const struct kmt_po_group *g = &a->groups[a->order[i]];

	v[p->at[F_TIMES]].u = g->times;
	v[p->at[F_PAGES]].u = g->pages;
	v[p->at[F_ALLOCATOR]].str = kmt_po_class_name(g->klass);
	if (p->at[F_LABEL] >= 0)
		v[p->at[F_LABEL]].str = kmt_po_class_label(g->klass);
	if (p->at[F_RECORD] >= 0 && !a->opt.ts_in_key) {
		v[p->at[F_RECORD]].str = kmt_po_text(&a->headers, g->header);
	} else if (p->at[F_RECORD] >= 0) {
		/* the timestamps put back: one row at a time, one thread */
		kmt_sb_reset(&a->scratch);
		kmt_po_group_header(a, g, &a->scratch);
		v[p->at[F_RECORD]].str = a->scratch.oom ? "" :
					 kmt_sb_str(&a->scratch);
	}
	if (p->at[F_PID] >= 0)
		v[p->at[F_PID]].s = kmt_po_group_pid(a, g);
	if (p->at[F_TGID] >= 0)
		v[p->at[F_TGID]].s = kmt_po_group_tgid(a, g);
	if (p->at[F_NAME] >= 0)
		v[p->at[F_NAME]].str = kmt_po_text(&a->strs,
						   kmt_po_group_comm(a, g));
	if (p->at[F_FIRST_TS] >= 0)
		v[p->at[F_FIRST_TS]].u = g->ts;
	if (p->at[F_STACK] >= 0) {
		v[p->at[F_STACK]].str = kmt_po_text(&a->stacks, g->stack);
		v[p->at[F_EXTRA]].str = kmt_po_text(&a->strs, g->tail);
	}
	if (p->at[F_END] >= 0)
		v[p->at[F_END]].str = "";
}

static int add_groups(struct kmt_po_analysis *a, struct kmt_report *r,
		      const struct kmt_po_report_opts *o)
{
	struct po_rows *p = kmt_arena_zalloc(&r->arena, sizeof(*p));
	struct kmt_table *t;
	size_t i, n = a->nr_groups;

	if (!p)
		return -ENOMEM;
	p->a = a;
	for (i = 0; i < F_NR; i++)
		p->at[i] = -1;
	if (group_fields(r, p, a, o))
		return -ENOMEM;
	free(a->order);
	a->order = NULL;
	if (o->limit && o->limit < n)
		n = o->limit;
	if (n) {
		a->order = kmt_po_sort(a, o->keys, o->nr_keys);
		if (!a->order)
			return -ENOMEM;
	}
	t = kmt_report_add_table(r, "", "groups", NULL, p->cols, p->ncols,
				 KMT_TABLE_BLOCK);
	if (!t)
		return -ENOMEM;
	/* the groups -l leaves out are in nr_groups, as they always were */
	kmt_table_set_row_fn(t, n, n, group_row, p);
	return 0;
}

/* a total by name: a migratetype, a migrate reason, a memcg */
struct named_count {
	const char *name;
	int offline;
	uint64_t records, pages, kmem_pages;
};

static int cmp_named(const void *p, const void *q)
{
	const struct named_count *x = p, *y = q;

	if (x->pages != y->pages)
		return x->pages > y->pages ? -1 : 1;
	if (strcmp(x->name, y->name))
		return strcmp(x->name, y->name);
	return x->offline - y->offline;
}

/*
 * A table keyed by name id (h), or the memcgs (h NULL), as an array
 * sorted by pages, largest first; NULL when out of memory.
 */
static struct named_count *named_counts(const struct kmt_po_analysis *a,
					const struct kmt_po_counts *h,
					size_t *nr)
{
	size_t it = 0, n = 0, all = h ? kmt_po_counts_count(h) :
				      kmt_po_memcgs_count(&a->by_memcg);
	struct named_count *v = calloc(all + 1, sizeof(*v));
	struct kmt_po_count *k;
	struct kmt_po_memcg *m;
	uint64_t key;

	*nr = 0;
	if (!v)
		return NULL;
	while (h && kmt_po_counts_next(h, &it, &key, &k)) {
		v[n].name = kmt_po_text(&a->strs, (uint32_t)key);
		v[n].records = k->records;
		v[n].pages = k->pages;
		n++;
	}
	while (!h && kmt_po_memcgs_next(&a->by_memcg, &it, NULL, &m)) {
		v[n].name = kmt_po_text(&a->strs, m->name);
		v[n].offline = m->offline;
		v[n].records = m->records;
		v[n].pages = m->pages;
		v[n].kmem_pages = m->kmem_pages;
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_named);
	*nr = n;
	return v;
}

/* the totals' tables: name, records, pages and their share of all pages */
static const unsigned int count_widths[] = { 24, 14, 14, 7 };

#define COUNT_COLS(key, title)						\
	{ key, title, KMT_V_STR, KMT_COL_LEFT },			\
	{ "records", "records", KMT_V_U64, KMT_COL_GROUPED },		\
	{ "pages", "pages", KMT_V_U64, KMT_COL_GROUPED },		\
	{ "share", "share", KMT_V_PCT, KMT_COL_TENTHS | KMT_COL_TEXT_ONLY }

static const struct kmt_col class_cols[] = {
	COUNT_COLS("class", "allocator class"),
};
static const struct kmt_col mt_cols[] = {
	COUNT_COLS("migratetype", "migratetype"),
};
static const struct kmt_col block_mt_cols[] = {
	COUNT_COLS("migratetype", "pageblock migratetype"),
};
static const struct kmt_col reason_cols[] = {
	COUNT_COLS("reason", "last migrate reason"),
};
static const struct kmt_col order_cols[] = {
	{ "order", "order", KMT_V_U64, KMT_COL_LEFT },
	{ "records", "records", KMT_V_U64, KMT_COL_GROUPED },
	{ "pages", "pages", KMT_V_U64, KMT_COL_GROUPED },
	{ "share", "share", KMT_V_PCT, KMT_COL_TENTHS | KMT_COL_TEXT_ONLY },
};
static const unsigned int memcg_widths[] = { 32, 0, 0, 14, 14, 14 };
static const struct kmt_col memcg_cols[] = {
	{ "label", "memcg", KMT_V_STR, KMT_COL_LEFT | KMT_COL_TEXT_ONLY },
	{ "memcg", "memcg", KMT_V_STR, KMT_COL_NO_TEXT },
	{ "offline", "offline", KMT_V_BOOL, KMT_COL_NO_TEXT },
	{ "records", "records", KMT_V_U64, KMT_COL_GROUPED },
	{ "pages", "pages", KMT_V_U64, KMT_COL_GROUPED },
	{ "kmem_pages", "kmem pages", KMT_V_U64, KMT_COL_GROUPED },
};

#define NCOLS(c) (sizeof(c) / sizeof((c)[0]))

static struct kmt_table *count_table(struct kmt_report *r, const char *key,
				     const struct kmt_col *cols,
				     unsigned int flags)
{
	struct kmt_table *t = kmt_report_add_table(r, "", key, NULL, cols, 4,
						   KMT_TABLE_WIDTHS);

	if (!t)
		return NULL;
	t->widths = count_widths;
	kmt_report_last(r)->flags = flags;
	return t;
}

/* a row of a count table; share: NaN for a share of no pages */
static int count_row(struct kmt_table *t, union kmt_val name,
		     uint64_t records, uint64_t pages, uint64_t all)
{
	union kmt_val *v = kmt_table_add_row(t);

	if (!v)
		return -ENOMEM;
	v[0] = name;
	v[1].u = records;
	v[2].u = pages;
	v[3].d = all ? 100.0 * (double)pages / (double)all : NAN;
	return 0;
}

static int add_named(struct kmt_report *r, const struct kmt_po_analysis *a,
		     const struct kmt_po_counts *h, const char *key,
		     const struct kmt_col *cols)
{
	struct kmt_table *t = count_table(r, key, cols, 0);
	struct named_count *v;
	size_t i, n;
	int err = 0;

	v = t ? named_counts(a, h, &n) : NULL;
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++)
		err = count_row(t, (union kmt_val){ .str = v[i].name },
				v[i].records, v[i].pages, a->nr_pages);
	free(v);
	return err;
}

/* by order: where --json has them, and again where the text does */
static int add_orders(struct kmt_report *r, const struct kmt_po_analysis *a,
		      unsigned int flags)
{
	struct kmt_table *t = count_table(r, "orders", order_cols, flags);
	size_t i;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < KMT_PO_MAX_ORDER; i++) {
		if (a->by_order[i].records &&
		    count_row(t, (union kmt_val){ .u = i },
			      a->by_order[i].records, a->by_order[i].pages,
			      a->nr_pages))
			return -ENOMEM;
	}
	return 0;
}

static int add_memcgs(struct kmt_report *r, const struct kmt_po_analysis *a)
{
	struct kmt_table *t = kmt_report_add_table(r, "", "memcgs", NULL,
						   memcg_cols,
						   NCOLS(memcg_cols),
						   KMT_TABLE_WIDTHS);
	char n1[32], n2[32], label[160];
	const char **legend;
	struct named_count *v;
	size_t i, n;

	v = t ? named_counts(a, NULL, &n) : NULL;
	if (!v)
		return -ENOMEM;
	t->widths = memcg_widths;
	for (i = 0; i < n; i++) {
		union kmt_val *row = kmt_table_add_row(t);

		if (!row) {
			free(v);
			return -ENOMEM;
		}
		/* the text has always cut a name at 159 bytes */
		snprintf(label, sizeof(label), "%s%s", v[i].name,
			 v[i].offline ? " (offline)" : "");
		row[0].str = kmt_report_strdup(r, label);
		row[1].str = v[i].name;
		row[2].u = (uint64_t)v[i].offline;
		row[3].u = v[i].records;
		row[4].u = v[i].pages;
		row[5].u = v[i].kmem_pages;
	}
	free(v);
	legend = kmt_arena_zalloc(&r->arena, sizeof(*legend));
	if (!legend)
		return -ENOMEM;
	legend[0] = kmt_report_printf(r, "charged pages %s, in slab cache pages %s",
				      kmt_fmt_thousands(n1, sizeof(n1), a->charged.pages),
				      kmt_fmt_thousands(n2, sizeof(n2),
							a->slab_cache.pages));
	t->legend = legend;
	t->nr_legend = 1;
	return r->oom ? -ENOMEM : 0;
}

/* a text-only line of the summary, made in sb */
static int add_note(struct kmt_report *r, struct kmt_summary *s,
		    struct kmt_sb *sb)
{
	struct kmt_sum_item it = { .kind = KMT_SUM_NOTE };

	if (sb->oom)
		return -ENOMEM;
	it.label = kmt_report_strdup(r, kmt_sb_str(sb));
	kmt_sb_reset(sb);
	return kmt_summary_add(s, &it) || r->oom ? -ENOMEM : 0;
}

/* the head of the text's summary, and its figures for the other formats */
static int add_head(struct kmt_report *r, const struct kmt_po_analysis *a,
		    const char *input)
{
	char n1[32], n2[32], n3[32], n4[32];
	struct kmt_sb sb = KMT_SB_INIT;
	struct kmt_summary *s;
	int err = 0;

	s = kmt_report_add_summary(r, "", "summary", NULL);
	if (!s)
		return -ENOMEM;
	kmt_report_last(r)->flags = KMT_SEC_TEXT_ONLY;
	kmt_sb_addf(&sb, "page_owner summary of '%s'", input);
	err |= add_note(r, s, &sb);
	kmt_sb_addf(&sb, "records %s, pages %s, groups %s, distinct stacks %s",
		    kmt_fmt_thousands(n1, sizeof(n1), a->nr_records),
		    kmt_fmt_thousands(n2, sizeof(n2), a->nr_pages),
		    kmt_fmt_thousands(n3, sizeof(n3), a->nr_groups),
		    kmt_fmt_thousands(n4, sizeof(n4), a->stacks.nr - 1));
	err |= add_note(r, s, &sb);
	if (a->nr_filtered) {
		kmt_sb_addf(&sb, "records not selected: %llu",
			    (unsigned long long)a->nr_filtered);
		err |= add_note(r, s, &sb);
	}
	kmt_sb_addf(&sb, "malformed records skipped: %llu",
		    (unsigned long long)a->nr_malformed);
	err |= add_note(r, s, &sb);
	kmt_sb_release(&sb);
	if (err)
		return -ENOMEM;

	s = kmt_report_add_summary(r, "", "summary", NULL);
	if (!s)
		return -ENOMEM;
	kmt_report_last(r)->flags = KMT_SEC_NO_TEXT;
	{
		struct kmt_sum_item it[] = {
			{ .kind = KMT_SUM_VALUE, .label = "input", .key = "input",
			  .type = KMT_V_STR, .v.str = r->meta.input },
			{ .kind = KMT_SUM_VALUE, .label = "kind", .key = "kind",
			  .type = KMT_V_STR, .v.str = r->meta.format },
		};

		err |= kmt_summary_add(s, &it[0]) || kmt_summary_add(s, &it[1]);
	}
	err |= kmt_summary_u64(s, "records", "records", a->nr_records);
	err |= kmt_summary_u64(s, "pages", "pages", a->nr_pages);
	err |= kmt_summary_u64(s, "not selected", "not_selected",
			       a->nr_filtered);
	err |= kmt_summary_u64(s, "groups", "nr_groups", a->nr_groups);
	err |= kmt_summary_u64(s, "distinct stacks", "stacks",
			       a->stacks.nr - 1);
	return err ? -ENOMEM : 0;
}

static const struct kmt_col malformed_cols[] = {
	{ "line", "line", KMT_V_U64, 0 },
	{ "reason", "reason", KMT_V_STR, KMT_COL_LEFT },
};

/* the malformed records and the format variants: for programs */
static int add_input_facts(struct kmt_report *r,
			   const struct kmt_po_analysis *a)
{
	static const struct {
		const char *key;
		unsigned int bit;
	} formats[] = {
		{ "tgid", KMT_PO_FMT_TGID },
		{ "task_name", KMT_PO_FMT_COMM },
		{ "free_ts", KMT_PO_FMT_FREE_TS },
		{ "pfn_hex", KMT_PO_FMT_PFN_HEX },
		{ "memcg", KMT_PO_FMT_MEMCG },
		{ "migrate_reason", KMT_PO_FMT_MIGRATE },
		{ "migratetype_numbers", KMT_PO_FMT_MT_NUMBER },
	};
	struct kmt_summary *s;
	struct kmt_table *t;
	size_t i;
	int err = 0;

	s = kmt_report_add_summary(r, "malformed", "", NULL);
	if (!s || kmt_summary_u64(s, "malformed records", "count",
				  a->nr_malformed))
		return -ENOMEM;
	kmt_report_last(r)->flags = KMT_SEC_NO_TEXT;
	t = kmt_report_add_table(r, "malformed", "first", NULL,
				 malformed_cols, NCOLS(malformed_cols),
				 KMT_TABLE_PLAIN);
	if (!t)
		return -ENOMEM;
	kmt_report_last(r)->flags = KMT_SEC_NO_TEXT;
	for (i = 0; i < a->nr_kept_malformed; i++) {
		union kmt_val *v = kmt_table_add_row(t);

		if (!v)
			return -ENOMEM;
		v[0].u = a->malformed[i].line;
		v[1].str = a->malformed[i].why;
	}

	s = kmt_report_add_summary(r, "format", "", NULL);
	if (!s)
		return -ENOMEM;
	kmt_report_last(r)->flags = KMT_SEC_NO_TEXT;
	for (i = 0; i < NCOLS(formats); i++) {
		struct kmt_sum_item it = {
			.kind = KMT_SUM_VALUE, .label = formats[i].key,
			.key = formats[i].key, .type = KMT_V_BOOL,
			.v.u = !!(a->formats & formats[i].bit),
		};

		err |= kmt_summary_add(s, &it);
	}
	return err ? -ENOMEM : 0;
}

static int add_totals(struct kmt_report *r, const struct kmt_po_analysis *a,
		      const struct kmt_po_report_opts *o)
{
	struct kmt_summary *s;
	struct kmt_table *t;
	size_t i;

	if (add_head(r, a, o->input) || add_input_facts(r, a))
		return -ENOMEM;
	t = count_table(r, "classes", class_cols, 0);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < KMT_PO_CLASS_NR; i++) {
		if (count_row(t, (union kmt_val){
				      .str = kmt_po_class_name((unsigned)i) },
			      a->by_class[i].records, a->by_class[i].pages,
			      a->nr_pages))
			return -ENOMEM;
	}
	/* --json has always had the orders here, the text further down */
	if (add_orders(r, a, KMT_SEC_NO_TEXT) ||
	    add_named(r, a, &a->by_mt, "migratetypes", mt_cols) ||
	    add_named(r, a, &a->by_block_mt, "pageblock_migratetypes",
		      block_mt_cols) ||
	    add_orders(r, a, KMT_SEC_TEXT_ONLY) || add_memcgs(r, a) ||
	    add_named(r, a, &a->by_reason, "migrate_reasons", reason_cols))
		return -ENOMEM;
	/* a blank line between the totals and the groups */
	s = kmt_report_add_summary(r, "", "end", NULL);
	if (!s || kmt_summary_blank(s))
		return -ENOMEM;
	kmt_report_last(r)->flags = KMT_SEC_TEXT_ONLY;
	return 0;
}

int kmt_po_report(struct kmt_po_analysis *a, struct kmt_report *r,
		  const struct kmt_po_report_opts *o)
{
	r->meta.input = kmt_report_strdup(r, o->input);
	r->meta.format = a->kind == KMT_PO_STACKS ? "page_owner_stacks" :
						    "page_owner";
	r->meta.snapshot = 1;
	if (o->totals && add_totals(r, a, o))
		return -ENOMEM;
	if (add_groups(a, r, o) || r->oom)
		return -ENOMEM;
	return 0;
}
