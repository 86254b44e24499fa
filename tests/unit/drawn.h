/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_TEST_DRAWN_H
#define KMT_TEST_DRAWN_H

#include <stdio.h>

#include "check.h"
#include "report/report.h"

/* what a renderer draws of r, NUL-terminated (a failure checked); free() it */
static inline char *drawn(const struct kmt_report *r,
			  int (*fn)(const struct kmt_report *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK(fn(r, f) == 0);
	fclose(f);
	return buf;
}

#endif
