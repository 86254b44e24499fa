/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORD_KCOUNTERS_REC_H
#define KMT_RECORD_KCOUNTERS_REC_H

#include <stddef.h>

#include "event/kcounters.h"
#include "util/strbuf.h"

/*
 * One snapshot of the kernel's counters (event/kcounters.h) added to
 * out, the text of the recording's counters option (KMT_KCOUNTERS_MAGIC
 * first: added when out is empty): /proc/slabinfo as the kernel wrote
 * it with each cache's cpu_partial and merged names from
 * /sys/kernel/slab, meminfo's slab, percpu and vmalloc lines, and
 * /proc/vmallocinfo summed per caller.  A file that cannot be read is
 * "@<when> missing <part> <why>" in the text.  Returns the parts missing
 * (enum kmt_kcounters_part); why says why slabinfo could not be read,
 * when it could not.  -ENOMEM when out ran out of memory.
 */
int kmt_rec_kcounters_take(struct kmt_sb *out, enum kmt_kcounters_when when,
			   char *why, size_t whylen);

#endif
