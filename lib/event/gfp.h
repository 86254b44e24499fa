/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_EVENT_GFP_H
#define KMT_EVENT_GFP_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

struct tep_event;

/*
 * GFP flag names as the recording's own print format lists them (the
 * __print_flags table of kmalloc or mm_page_alloc), never a hand-kept
 * table: flag values move between kernel versions.
 */
struct kmt_gfp_flag {
	uint64_t value;
	char *name;
};

struct kmt_gfp {
	struct kmt_gfp_flag *flags;	/* in print-format order */
	size_t nr;
	size_t alloc;
};

void kmt_gfp_init(struct kmt_gfp *g);
void kmt_gfp_free(struct kmt_gfp *g);
int kmt_gfp_add(struct kmt_gfp *g, uint64_t value, const char *name);
/*
 * Takes the flag table from the __print_flags() of field (e.g.
 * "gfp_flags") in event's print format.  Returns the number of flags
 * found (0 when the format has none), or -errno.
 */
int kmt_gfp_from_tep(struct kmt_gfp *g, struct tep_event *event,
		     const char *field);
/*
 * Appends the names for value as the kernel prints them: combined masks
 * first, then single bits, the rest in hex; "none" for 0.  Without a
 * table the value is printed in hex.
 */
void kmt_gfp_format(const struct kmt_gfp *g, uint64_t value,
		    struct kmt_sb *out);

/*
 * Short names for the flag names names[0..n), by rule, so that a table
 * of GFP masks stays narrow (GFP_HIGHUSER_MOVABLE|__GFP_ZERO -> HM|Z):
 * the leading underscores and "GFP_" dropped, the initials of the
 * words between '_'; where a name before it in the list took that
 * already, more letters of the last word, then a number.  From the
 * recording's own names, so no kernel's list is assumed; in list order,
 * so the same table gives the same short names.  abbrevs[i] (malloc'd)
 * for names[i]; 0 or -ENOMEM (nothing to free then).
 */
int kmt_gfp_abbreviate(const char *const *names, size_t n, char **abbrevs);

#endif
