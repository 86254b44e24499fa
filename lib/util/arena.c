// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

#define KMT_ARENA_CHUNK (64 * 1024)

struct kmt_arena_chunk {
	struct kmt_arena_chunk *next;
	size_t used;
	size_t size;
	_Alignas(16) unsigned char data[];
};

void kmt_arena_init(struct kmt_arena *a)
{
	a->head = NULL;
	a->chunk_size = KMT_ARENA_CHUNK;
	a->total = 0;
}

void kmt_arena_free(struct kmt_arena *a)
{
	struct kmt_arena_chunk *c = a->head;

	while (c) {
		struct kmt_arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
	a->total = 0;
}

void *kmt_arena_alloc(struct kmt_arena *a, size_t size)
{
	struct kmt_arena_chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15;
	void *p;

	/* the rounding, or the chunk header added below, must not wrap */
	if (need < size || need > SIZE_MAX - sizeof(*c))
		return NULL;
	if (!c || c->size - c->used < need) {
		size_t sz = need > a->chunk_size ? need : a->chunk_size;

		c = malloc(sizeof(*c) + sz);
		if (!c)
			return NULL;
		c->size = sz;
		c->used = 0;
		/* a big one-off block goes behind the head so the head keeps its room */
		if (a->head && sz > a->chunk_size) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->data + c->used;
	c->used += need;
	a->total += need;
	return p;
}

void *kmt_arena_zalloc(struct kmt_arena *a, size_t size)
{
	void *p = kmt_arena_alloc(a, size);

	if (p)
		memset(p, 0, size);
	return p;
}

char *kmt_arena_strndup(struct kmt_arena *a, const char *s, size_t len)
{
	char *p = kmt_arena_alloc(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *kmt_arena_strdup(struct kmt_arena *a, const char *s)
{
	return kmt_arena_strndup(a, s, strlen(s));
}
