/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_PAGEOWNER_H
#define KMT_ANALYSIS_PAGEOWNER_H

#include <stddef.h>
#include <stdint.h>

#include "source/pageowner.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/strtab.h"

struct kmt_report;

/*
 * page_owner analysis: records are grouped as they stream in, so memory
 * grows with the distinct stacks and groups, never with the records.
 *
 * Without cull keys a group is page_owner_sort's "record text": the
 * allocation line without its timestamps, the stack, and the lines after
 * it (migrate reason, memcg).  With cull keys a group is the tuple of
 * the keys.  Timestamps join the identity only when sorting by
 * allocation time first, as page_owner_sort does.
 */

/* who the pages serve, from the stack first, then flags and migratetype */
enum kmt_po_class {
	KMT_PO_CLASS_SLAB,
	KMT_PO_CLASS_VMALLOC,
	KMT_PO_CLASS_PAGECACHE,
	KMT_PO_CLASS_ANON,
	KMT_PO_CLASS_CMA,
	KMT_PO_CLASS_OTHER,
	KMT_PO_CLASS_NR
};

/* "slab", "vmalloc", "pagecache", "anon", "cma", "other" */
const char *kmt_po_class_name(unsigned int c);
/* as printed after "allocated by": "SLAB", "PAGECACHE", "OTHERS", ... */
const char *kmt_po_class_label(unsigned int c);

/*
 * What a stack says about its pages, from its innermost frame outward:
 * the first frame that names an allocator decides.
 */
enum kmt_po_hint {
	KMT_PO_HINT_NONE,
	KMT_PO_HINT_SLAB,
	KMT_PO_HINT_VMALLOC,
	KMT_PO_HINT_PAGECACHE,
	KMT_PO_HINT_ANON,
	KMT_PO_HINT_USER_FOLIO,	/* vma_alloc_folio & co: anon if user movable */
	KMT_PO_HINT_CMA,
	KMT_PO_HINT_PGTABLE,	/* page tables: other, whoever faulted */
};

enum kmt_po_hint kmt_po_stack_hint(const char *stack, size_t len);
/* gfp flag names say user memory that may move (GFP_HIGHUSER_MOVABLE) */
int kmt_po_gfp_user_movable(const char *names, size_t len);
enum kmt_po_class kmt_po_classify(enum kmt_po_hint hint, int user_movable,
				  int flag_slab, int cma_block);

/* cull keys (page_owner_sort's --cull) */
enum {
	KMT_PO_CULL_PID		= 1 << 0,
	KMT_PO_CULL_TGID	= 1 << 1,
	KMT_PO_CULL_NAME	= 1 << 2,
	KMT_PO_CULL_STACK	= 1 << 3,
	KMT_PO_CULL_ALLOCATOR	= 1 << 4,
};

/* sort keys (page_owner_sort's --sort, plus times and pages) */
enum kmt_po_key {
	KMT_PO_KEY_TIMES,
	KMT_PO_KEY_PAGES,
	KMT_PO_KEY_PID,
	KMT_PO_KEY_TGID,
	KMT_PO_KEY_NAME,
	KMT_PO_KEY_STACK,
	KMT_PO_KEY_TXT,
	KMT_PO_KEY_ALLOC_TS,
	KMT_PO_KEY_ALLOCATOR,
};

struct kmt_po_sortkey {
	enum kmt_po_key key;
	int desc;
};

#define KMT_PO_MAX_SORTKEYS 16

/*
 * "pid,st" -> mask; "-pid,+n" -> keys.  Return 0, or -EINVAL with a
 * message in err naming the bad key.
 */
int kmt_po_parse_cull(const char *spec, unsigned int *mask, char *err,
		      size_t errlen);
int kmt_po_parse_sort(const char *spec, struct kmt_po_sortkey *keys,
		      int *nr, char *err, size_t errlen);
/*
 * The i-th sort or cull key's name and its short form (NULL when it has
 * none); NULL past the last: for the help and completion.
 */
const char *kmt_po_sort_key_name(size_t i, const char **abbrev);
const char *kmt_po_cull_key_name(size_t i, const char **abbrev);
/* "1,2,3" -> a malloc'ed array; -EINVAL on anything but numbers */
int kmt_po_parse_ids(const char *spec, int32_t **ids, size_t *nr);

struct kmt_po_options {
	unsigned int cull;
	int ts_in_key;		/* timestamps are part of a record's identity */
	const int32_t *pids;	/* select records of these (NULL: all) */
	size_t nr_pids;
	const int32_t *tgids;
	size_t nr_tgids;
	const char *const *names;
	size_t nr_names;
};

/*
 * A group: 48 bytes, as there may be one per record.  The task (pid,
 * tgid, name) is that of the allocation line, found through header: see
 * kmt_po_group_pid() and friends.
 */
struct kmt_po_group {
	uint32_t header;	/* allocation line without timestamps (of the
				 * first record); 0 for page_owner_stacks */
	uint32_t stack;		/* id in a->stacks */
	uint32_t tail;		/* id in a->strs; 0 when none */
	uint32_t times;
	uint32_t klass;		/* enum kmt_po_class */
	uint32_t pad;
	uint64_t pages;
	uint64_t ts, free_ts;	/* the earliest allocation's */
};

/* what the analysis knows of each distinct allocation line */
struct kmt_po_header_info {
	uint32_t ts_off, free_ts_off;	/* in the header without digits */
	int32_t pid, tgid;		/* -1 when not printed */
	uint32_t comm;			/* id in a->strs; 0 when none */
	unsigned char has_ts, has_free_ts, user_movable;
};

struct kmt_po_count {
	uint64_t records, pages;
};

struct kmt_po_memcg {
	uint32_t name;		/* id in a->strs */
	int offline;
	uint64_t records, pages, kmem_pages;
};

KMT_HASH_TYPE(kmt_po_counts, struct kmt_po_count)
KMT_HASH_TYPE(kmt_po_memcgs, struct kmt_po_memcg)

#define KMT_PO_MAX_ORDER 64
#define KMT_PO_MEMO 16384	/* a power of two: 8192 sets of two */
#define KMT_PO_KEEP_MALFORMED 16
#define KMT_PO_BATCH 16

struct kmt_po_malformed {
	uint64_t line;
	const char *why;	/* a static string */
};

struct kmt_po_analysis {
	struct kmt_po_options opt;

	struct kmt_strtab stacks;	/* stack texts */
	unsigned char *stack_hint;	/* enum kmt_po_hint by stack id */
	size_t stack_hint_alloc;
	struct kmt_strtab headers;	/* allocation lines without timestamps */
	struct kmt_po_header_info *hinfo;	/* by header id; [0]: none */
	size_t hinfo_alloc;
	struct kmt_strtab strs;		/* task names, tails, memcgs, migratetypes */
	struct kmt_sb scratch;
	/* recently interned ids by a cheap fingerprint, one memo per table */
	uint32_t *memo_stacks, *memo_headers, *memo_strs;

	struct kmt_po_group *groups;
	size_t nr_groups, groups_alloc;
	/* records not yet folded into their groups: see flush_pending() */
	struct kmt_po_group pending[KMT_PO_BATCH];
	unsigned int nr_pending;
	struct kmt_hash_u32 group_index; /* key hash -> group index */
	int unmerged;			/* groups appended, to merge at the end */

	/* totals of the selected records */
	enum kmt_po_kind kind;		/* 0 until the first record */
	uint64_t nr_records, nr_pages;
	uint64_t nr_filtered;		/* records the selection dropped */
	struct kmt_po_count by_class[KMT_PO_CLASS_NR];
	struct kmt_po_count by_order[KMT_PO_MAX_ORDER];
	struct kmt_po_counts by_mt;	/* page migratetype id -> count */
	struct kmt_po_counts by_block_mt; /* pageblock migratetype id -> count */
	struct kmt_po_counts by_reason;	/* migrate reason id -> count */
	struct kmt_po_memcgs by_memcg;	/* (name id << 1 | offline) -> memcg */
	struct kmt_po_count migrated, slab_cache, charged;
	unsigned int formats;		/* KMT_PO_FMT_* seen */

	uint64_t nr_malformed;
	struct kmt_po_malformed malformed[KMT_PO_KEEP_MALFORMED];
	size_t nr_kept_malformed;

	/* the groups in the order a report draws them (kmt_po_report) */
	uint32_t *order;
};

/* the variants of the dump seen, for the report */
enum {
	KMT_PO_FMT_TGID		= 1 << 0,	/* pid, tgid (comm): 6.0 on */
	KMT_PO_FMT_COMM		= 1 << 1,
	KMT_PO_FMT_FREE_TS	= 1 << 2,	/* 5.12 to 6.7 */
	KMT_PO_FMT_PFN_HEX	= 1 << 3,	/* 6.2 on */
	KMT_PO_FMT_PFN_DEC	= 1 << 4,
	KMT_PO_FMT_MEMCG	= 1 << 5,
	KMT_PO_FMT_MIGRATE	= 1 << 6,
	KMT_PO_FMT_NO_PID	= 1 << 7,
	/* 3.19 to 4.5: the pageblock's migratetype as a number */
	KMT_PO_FMT_MT_NUMBER	= 1 << 8,
};

int kmt_po_analysis_init(struct kmt_po_analysis *a,
			 const struct kmt_po_options *opt);
void kmt_po_analysis_free(struct kmt_po_analysis *a);

/* the reader's callbacks: ctx is the analysis */
int kmt_po_add(void *ctx, const struct kmt_po_record *r);
void kmt_po_add_malformed(void *ctx, uint64_t line, const char *why);

/*
 * Folds b, the analysis of the input that follows a's (the next part of
 * one file), into a, as if a had read both: groups keep the order in
 * which they were first met, and b's malformed records have their line
 * numbers moved by line_offset, the number of lines before b's input.
 * b is freed, also on failure.  0 or -ENOMEM.
 */
int kmt_po_analysis_merge(struct kmt_po_analysis *a,
			  struct kmt_po_analysis *b, uint64_t line_offset);

/*
 * Ends the input: records still waiting in a batch join their groups.
 * When timestamps are part of the identity nearly every record is a
 * group, so records are appended without a hash index and merged here,
 * by sorting.  To be called before groups are read.  0 or -ENOMEM.
 */
int kmt_po_analysis_finish(struct kmt_po_analysis *a);

static inline int32_t kmt_po_group_pid(const struct kmt_po_analysis *a,
				       const struct kmt_po_group *g)
{
	return a->hinfo[g->header].pid;
}

static inline int32_t kmt_po_group_tgid(const struct kmt_po_analysis *a,
					const struct kmt_po_group *g)
{
	return a->hinfo[g->header].tgid;
}

static inline uint32_t kmt_po_group_comm(const struct kmt_po_analysis *a,
					 const struct kmt_po_group *g)
{
	return a->hinfo[g->header].comm;
}

/*
 * The groups in report order: keys first, then ties broken by times and
 * pages (descending) and by first appearance in the input, so the order
 * is always the same.  Returns a malloc'ed array of a->nr_groups
 * indexes, or NULL.
 */
uint32_t *kmt_po_sort(const struct kmt_po_analysis *a,
		      const struct kmt_po_sortkey *keys, int nr_keys);

/*
 * A group's allocation line as page_owner_sort prints it: timestamps
 * blanked ("ts  ns") unless they are part of the identity.
 */
void kmt_po_group_header(const struct kmt_po_analysis *a,
			 const struct kmt_po_group *g, struct kmt_sb *out);

/* what the report of an analysis holds, as the command's options ask */
struct kmt_po_report_opts {
	const char *input;	/* the dump, as messages name it */
	const struct kmt_po_sortkey *keys;
	int nr_keys;
	size_t limit;		/* the groups drawn; 0: all */
	/*
	 * The totals too: the records, pages and groups, by allocator
	 * class, migratetype, order, memcg and migrate reason; the format
	 * variants and the malformed records (text: --summary)
	 */
	int totals;
	/* culled groups show their pid, tgid or name: selected by them */
	int pid, tgid, name;
};

/*
 * The report of a finished analysis, into r (as page_owner_sort prints
 * it, and the totals): the groups sorted by keys, each a row of a block
 * table, the totals in tables and summaries, and r's meta (input,
 * format).  The groups' rows are made as they are drawn, from a, which
 * must outlive the drawing, done by one thread.  0 or -ENOMEM.
 */
int kmt_po_report(struct kmt_po_analysis *a, struct kmt_report *r,
		  const struct kmt_po_report_opts *o);

/*
 * A group's record could not be made as the report was drawn (out of
 * memory): the output is short of it
 */
static inline int kmt_po_report_short(const struct kmt_po_analysis *a)
{
	return a->scratch.oom;
}

static inline const char *kmt_po_text(const struct kmt_strtab *t, uint32_t id)
{
	const char *s = kmt_strtab_get(t, id);

	return s ? s : "";
}

#endif
