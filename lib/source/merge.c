// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU merge: a binary min-heap of the streams' next events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/merge.h"
#include "util/array.h"

void kmt_merge_init(struct kmt_merge *m)
{
	memset(m, 0, sizeof(*m));
}

void kmt_merge_free(struct kmt_merge *m)
{
	free(m->h);
	memset(m, 0, sizeof(*m));
}

int kmt_merge_reserve(struct kmt_merge *m, size_t n)
{
	return KMT_ARRAY_GROW(m->h, n ? n : 1, m->alloc) ? -ENOMEM : 0;
}

void kmt_merge_add(struct kmt_merge *m, size_t stream, uint64_t ts,
		   uint64_t tie)
{
	struct kmt_merge_head e = { ts, tie, stream };
	size_t i = m->nr++;

	while (i && kmt__merge_before(&e, &m->h[(i - 1) / 2])) {
		m->h[i] = m->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->h[i] = e;
}
