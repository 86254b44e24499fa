/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_UTIL_GZIP_H
#define KMT_UTIL_GZIP_H

#include <stddef.h>
#include <stdio.h>

/*
 * len bytes of data gzipped to out, with no name and no time in the
 * header (the same input gives the same bytes): pprof files, and HTTP
 * bodies a client takes gzipped.  0, or -1 with errno.
 */
int kmt_gzip_to(const void *data, size_t len, FILE *out);

#endif
