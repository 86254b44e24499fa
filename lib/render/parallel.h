/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RENDER_PARALLEL_H
#define KMT_RENDER_PARALLEL_H

#include <stddef.h>
#include <stdio.h>

struct kmt_renderer;
struct kmt_report;

/*
 * A report of two parts drawn by two threads (parallel.c says how): the
 * caller's thread makes the first part, a second thread the second
 * (make_second, 0 or -ENOMEM), and both draw the pieces of both, which
 * the caller's thread writes in order.  For a renderer that draws in
 * pieces (rd->layout).  What the two parts share must only be read
 * while they are made.
 */
struct kmt_par;

/* rows of a table a piece holds, and at most how much drawn text waits */
#define KMT_PAR_PIECE_ROWS 4096
#define KMT_PAR_SPOOL_MAX (24U << 20)

/*
 * Starts the second thread on make_second(ctx, its report); NULL when
 * it cannot (no memory, no thread, a renderer that does not draw in
 * pieces): draw on one thread then.  piece_rows 0 means the default.
 */
struct kmt_par *kmt_par_start(const struct kmt_renderer *rd,
			      int (*make_second)(void *ctx, struct kmt_report *r),
			      void *ctx, size_t piece_rows, size_t spool_max);
/*
 * The first part, made: laid out and offered to the second thread; then
 * waits for the second part.  0, or make_second's error.
 */
int kmt_par_first(struct kmt_par *p, const struct kmt_report *r);
/* writes both parts to out; 0 or -errno */
int kmt_par_draw(struct kmt_par *p, FILE *out);
/* stops the second thread and frees everything; p may be NULL */
void kmt_par_free(struct kmt_par *p);

#endif
