/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_STRTAB_H
#define KMT_UTIL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/hash.h"

/*
 * Interned strings: each distinct string gets a small id (1, 2, ...);
 * id 0 means "no string".  Texts live in the arena.
 */
struct kmt_strtab {
	struct kmt_arena arena;
	struct kmt_hash_u32 index;	/* string hash -> id (probing on collision) */
	const char **strs;	/* id -> text; strs[0] is NULL */
	uint32_t *lens;
	size_t nr;		/* ids in use, counting id 0 */
	size_t alloc;
	size_t alloc_lens;
};

int kmt_strtab_init(struct kmt_strtab *t);
void kmt_strtab_free(struct kmt_strtab *t);
/* returns the id of s (adding it), or 0 when out of memory */
uint32_t kmt_strtab_intern(struct kmt_strtab *t, const char *s, size_t len);
/* returns the id of s, or 0 when absent */
uint32_t kmt_strtab_find(const struct kmt_strtab *t, const char *s,
			 size_t len);
static inline const char *kmt_strtab_get(const struct kmt_strtab *t,
					 uint32_t id)
{
	return id < t->nr ? t->strs[id] : NULL;
}

#endif
