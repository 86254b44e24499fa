// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/array.h"

int kmt_array_grow(void **items, size_t *alloc, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *alloc)
		return 0;
	n = *alloc ? *alloc : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*items, n * elem);
	if (!p)
		return -ENOMEM;
	*items = p;
	*alloc = n;
	return 0;
}
