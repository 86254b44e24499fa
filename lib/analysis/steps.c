// SPDX-License-Identifier: GPL-2.0
#include "analysis/steps.h"

#define FIRST_STEP 1000ULL	/* 1 us */

void kmt_steps_init(struct kmt_steps *st, uint64_t user_step, uint64_t t0)
{
	st->user_step = user_step;
	st->step = user_step ? user_step : FIRST_STEP;
	st->t0 = t0;
	st->started = t0 != 0;
}

size_t kmt_steps_place(struct kmt_steps *st, uint64_t ts, size_t *merge)
{
	uint64_t idx, limit = st->user_step ? KMT_STEPS_MAX : KMT_STEPS_FINE;
	uint64_t grow = st->user_step ? 2 : 10;

	*merge = 1;
	if (!st->started) {
		st->t0 = ts;
		st->started = 1;
	}
	if (ts < st->t0)
		return 0;
	idx = (ts - st->t0) / st->step;
	while (idx >= limit) {
		st->step *= grow;
		*merge *= grow;
		idx = (ts - st->t0) / st->step;
	}
	return idx;
}

size_t kmt_steps_coarsen(struct kmt_steps *st)
{
	uint64_t grow = st->user_step ? 2 : 10;

	st->step *= grow;
	return (size_t)grow;
}

size_t kmt_steps_finish(struct kmt_steps *st, uint64_t last_ts)
{
	static const uint64_t mult[] = { 1, 2, 5, 10 };
	uint64_t span, want, best = 1, best_diff = UINT64_MAX;
	size_t i;

	if (st->user_step || !st->started || last_ts <= st->t0)
		return 1;
	span = last_ts - st->t0;
	want = span / KMT_STEPS_TARGET;
	for (i = 0; i < sizeof(mult) / sizeof(mult[0]); i++) {
		uint64_t s = st->step * mult[i];
		uint64_t diff = s > want ? s - want : want - s;

		if (diff < best_diff) {
			best_diff = diff;
			best = mult[i];
		}
	}
	st->step *= best;
	return (size_t)best;
}
