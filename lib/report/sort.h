/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_REPORT_SORT_H
#define KMT_REPORT_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sort keys as data, as perf kmem has them: each analysis lists its keys
 * with a compare function; "-s frag,hit,bytes" chains them.  Keys sort
 * the larger first; ties fall to the row's identity (tiebreak), so output
 * is the same on every run.
 */
typedef int (*kmt_cmp_fn)(const void *a, const void *b);

/*
 * A key's value as a number that orders rows exactly as cmp does, the
 * smaller first: sorting a million rows then compares numbers side by
 * side instead of calling cmp on rows scattered in memory.
 */
typedef uint64_t (*kmt_enc_fn)(const void *row);

struct kmt_sort_key {
	const char *name;
	kmt_cmp_fn cmp;		/* < 0 when a sorts before b */
	kmt_enc_fn enc;		/* optional: cmp(a, b) as enc(a) vs enc(b) */
};

#define KMT_SORT_MAX_KEYS 8

struct kmt_sort_chain {
	const struct kmt_sort_key *keys[KMT_SORT_MAX_KEYS];
	size_t nr;
	kmt_cmp_fn tiebreak;
	/*
	 * Optional: a number a row sorts by before tiebreak decides, such
	 * that a smaller number means tiebreak puts the row first (equal
	 * numbers leave it to tiebreak).  Many rows tie on every key.
	 */
	kmt_enc_fn tiebreak_enc;
};

/*
 * Builds chain from a comma-separated spec using the keys in table;
 * names not in table are skipped when skip_unknown, else an error.
 * Returns 0, or -1 with the offending name in bad (of size badlen).
 */
int kmt_sort_parse(struct kmt_sort_chain *chain, const char *spec,
		   const struct kmt_sort_key *table, size_t nr_table,
		   int skip_unknown, char *bad, size_t badlen);
/* 1 if name is a key of table */
int kmt_sort_has_key(const struct kmt_sort_key *table, size_t nr_table,
		     const char *name, size_t len);
void kmt_sort_rows(void *rows, size_t nr, size_t size,
		   const struct kmt_sort_chain *chain);

/*
 * The order of nr rows as an array of row numbers (free() it), the rows
 * left where they are: for big tables, where moving rows of 50-100 bytes
 * (and qsort's copy of them all) costs more than the sort.  NULL when
 * out of memory.
 */
uint32_t *kmt_sort_index(const void *rows, size_t nr, size_t size,
			 const struct kmt_sort_chain *chain);

/*
 * Rows left in place and drawn in sorted order (kmt_sort_index): row i of
 * the order, loading a few rows on, since renderers draw rows in turn and
 * the rows themselves are scattered over a table far larger than the
 * caches.
 */
struct kmt_sorted {
	const unsigned char *rows;
	size_t size;		/* bytes a row */
	uint32_t *order;	/* row numbers in sorted order (freed by owner) */
	size_t nr;		/* in order */
};

#define KMT_SORTED_AHEAD 8

static inline const void *kmt_sorted_at(const struct kmt_sorted *s, size_t i)
{
	if (i + KMT_SORTED_AHEAD < s->nr)
		__builtin_prefetch(s->rows + (size_t)s->order[i + KMT_SORTED_AHEAD] *
				   s->size);
	return s->rows + (size_t)s->order[i] * s->size;
}

/* encode helpers: a key sorted larger first, as numbers sorted ascending */
static inline uint64_t kmt_enc_desc_u64(uint64_t v)
{
	return ~v;
}

static inline uint64_t kmt_enc_desc_s64(int64_t v)
{
	return ~((uint64_t)v ^ (1ULL << 63));
}

static inline uint64_t kmt_enc_desc_double(double d)
{
	uint64_t bits;

	if (d == 0)
		d = 0;	/* -0 and 0 compare equal */
	__builtin_memcpy(&bits, &d, sizeof(bits));
	bits = bits >> 63 ? ~bits : bits | (1ULL << 63);
	return ~bits;
}

/* compare helpers: larger first */
#define KMT_CMP_DESC(a, b) ((a) > (b) ? -1 : (a) < (b) ? 1 : 0)
#define KMT_CMP_ASC(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

#endif
