/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_STEPS_H
#define KMT_ANALYSIS_STEPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fixed time steps for the views drawn over time (timeline, extfrag).
 *
 * Events stream in and the span is known only at the end, so with no
 * --step the steps start at 1 us and grow tenfold whenever there would be
 * more than KMT_STEPS_FINE of them; at the end the step is 1, 2, 5 or 10
 * times that fine step, whichever is nearest span / 50 ("span/50,
 * rounded"), and the fine steps are merged into it.  A --step is kept as
 * given unless it would make more than KMT_STEPS_MAX steps; it then
 * doubles until they fit.  Either way the memory of a view is bounded by
 * its series times a constant number of steps.
 *
 * Step k covers [t0 + k * step, t0 + (k + 1) * step).
 */
#define KMT_STEPS_TARGET 50
#define KMT_STEPS_FINE 500
#define KMT_STEPS_MAX 5000

struct kmt_steps {
	uint64_t t0;		/* start of step 0 */
	uint64_t step;		/* ns per step, now */
	uint64_t user_step;	/* --step, 0 for automatic */
	int started;
};

void kmt_steps_init(struct kmt_steps *st, uint64_t user_step, uint64_t t0);

/*
 * The step ts falls in.  When the steps had to grow, *merge is the number
 * of old steps that make one new step (else 1): the caller first merges
 * what it keeps per step, old steps [k * merge, (k + 1) * merge) into k.
 * Events before t0 fall in step 0.
 */
size_t kmt_steps_place(struct kmt_steps *st, uint64_t ts, size_t *merge);

/*
 * Grows the step once more (tenfold, or twice with --step) for a view
 * whose series would not fit its memory; returns the merge factor.
 */
size_t kmt_steps_coarsen(struct kmt_steps *st);

/*
 * At the end, for a recording that ended at last_ts: how many steps to
 * merge into one for the final step (1 with --step).  st->step is then
 * the final step.
 */
size_t kmt_steps_finish(struct kmt_steps *st, uint64_t last_ts);

#endif
