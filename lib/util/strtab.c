// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <stdlib.h>

#include "util/array.h"
#include "util/strtab.h"

int kmt_strtab_init(struct kmt_strtab *t)
{
	memset(t, 0, sizeof(*t));
	kmt_arena_init(&t->arena);
	kmt_hash_u32_init(&t->index);
	if (KMT_ARRAY_GROW(t->strs, 1, t->alloc) ||
	    KMT_ARRAY_GROW(t->lens, 1, t->alloc_lens))
		return -ENOMEM;
	t->strs[0] = NULL;
	t->lens[0] = 0;
	t->nr = 1;
	return 0;
}

void kmt_strtab_free(struct kmt_strtab *t)
{
	kmt_arena_free(&t->arena);
	kmt_hash_u32_free(&t->index);
	free(t->strs);
	free(t->lens);
	memset(t, 0, sizeof(*t));
}

/*
 * Collisions of the 64-bit hash are resolved by probing key, key + 1, ...
 * so that one u64 table serves.
 */
static uint32_t lookup(const struct kmt_strtab *t, const char *s, size_t len,
		       uint64_t *free_key)
{
	uint64_t key = kmt_hash_bytes(s, len);

	for (;;) {
		uint32_t *id = kmt_hash_u32_get(&t->index, key);

		if (!id) {
			*free_key = key;
			return 0;
		}
		if (t->lens[*id] == len && !memcmp(t->strs[*id], s, len))
			return *id;
		key++;
	}
}

uint32_t kmt_strtab_find(const struct kmt_strtab *t, const char *s, size_t len)
{
	uint64_t key;

	return lookup(t, s, len, &key);
}

uint32_t kmt_strtab_intern(struct kmt_strtab *t, const char *s, size_t len)
{
	/* set by lookup whenever it returns 0 (link-time inlining cannot tell) */
	uint64_t key = 0;
	uint32_t id = lookup(t, s, len, &key);
	uint32_t *slot;
	char *copy;

	if (id)
		return id;
	if (KMT_ARRAY_GROW(t->strs, t->nr + 1, t->alloc) ||
	    KMT_ARRAY_GROW(t->lens, t->nr + 1, t->alloc_lens))
		return 0;
	copy = kmt_arena_strndup(&t->arena, s, len);
	if (!copy)
		return 0;
	slot = kmt_hash_u32_put(&t->index, key, NULL);
	if (!slot)
		return 0;
	id = (uint32_t)t->nr++;
	t->strs[id] = copy;
	t->lens[id] = (uint32_t)len;
	*slot = id;
	return id;
}
