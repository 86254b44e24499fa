/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_ARRAY_H
#define KMT_UTIL_ARRAY_H

#include <stddef.h>

/*
 * The one growable array: grows *items (of elem bytes each) so that it
 * holds at least need elements.  Returns 0, or -ENOMEM leaving the array
 * as it was.
 */
int kmt_array_grow(void **items, size_t *alloc, size_t need, size_t elem);

#define KMT_ARRAY_GROW(ptr, need, alloc) \
	kmt_array_grow((void **)&(ptr), &(alloc), (need), sizeof(*(ptr)))

#endif
