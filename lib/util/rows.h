/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_ROWS_H
#define KMT_UTIL_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

/*
 * A table of fixed-size rows found by a key of any size: each row starts
 * with its key (key_size bytes).  The u64 hash table indexes the rows by
 * a hash of the key, probing on collision, so composite keys such as
 * (callsite, order, migratetype, gfp) need no table of their own.
 * Rows are kept in insertion order in one array, ready to sort.
 */
struct kmt_rows {
	struct kmt_hash_u32 index;	/* key hash -> row number */
	unsigned char *rows;
	size_t nr;
	size_t alloc;
	size_t row_size;
	size_t key_size;
};

void kmt_rows_init(struct kmt_rows *r, size_t row_size, size_t key_size);
void kmt_rows_free(struct kmt_rows *r);
/*
 * The row for key; with create, a zeroed new row (key filled in) when
 * absent, *is_new set.  NULL when absent without create, or out of
 * memory.  Row pointers stay valid until the next row is added.
 */
void *kmt_rows_get(struct kmt_rows *r, const void *key, int create,
		   int *is_new);
static inline void *kmt_rows_at(const struct kmt_rows *r, size_t i)
{
	return r->rows + i * r->row_size;
}

#endif
