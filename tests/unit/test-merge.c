// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU merge: sorted streams come out as one, in time order, ties
 * by the tie key whatever order the streams were added in.
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "source/merge.h"

#define STREAMS	7
#define EVENTS	400

struct stream {
	uint64_t ts[EVENTS];
	uint64_t tie[EVENTS];	/* the file order of each event */
	size_t nr, head;
};

/* drains every stream through the merge, checking the order */
static size_t drain(struct kmt_merge *m, struct stream *st)
{
	const struct kmt_merge_head *top;
	uint64_t last_ts = 0, last_tie = 0;
	size_t out = 0, bad = 0;

	while ((top = kmt_merge_top(m))) {
		struct stream *s = &st[top->stream];

		CHECK_EQ_U64(top->ts, s->ts[s->head]);
		if (out && (top->ts < last_ts ||
			    (top->ts == last_ts && top->tie <= last_tie)))
			bad++;
		last_ts = top->ts;
		last_tie = top->tie;
		out++;
		if (++s->head == s->nr)
			kmt_merge_pop(m);
		else
			kmt_merge_advance(m, s->ts[s->head], s->tie[s->head]);
	}
	CHECK_EQ_U64(bad, 0);
	return out;
}

static void test_streams_in_time_order(void)
{
	static struct stream st[STREAMS];
	struct kmt_merge m;
	uint64_t seq = 0;
	size_t i, j, total = 0;

	srand(27);
	/* few distinct times, so that most events tie with another stream's */
	for (i = 0; i < STREAMS; i++) {
		uint64_t ts = 0;

		st[i].nr = i == 3 ? 0 : 1 + (size_t)rand() % EVENTS;
		for (j = 0; j < st[i].nr; j++) {
			ts += (uint64_t)(rand() % 3);
			st[i].ts[j] = ts;
		}
		total += st[i].nr;
	}
	/* ties in file order: a sequence across the streams, interleaved */
	for (j = 0; j < EVENTS; j++) {
		for (i = 0; i < STREAMS; i++) {
			if (j < st[i].nr)
				st[i].tie[j] = seq++;
		}
	}
	kmt_merge_init(&m);
	CHECK_EQ_U64(kmt_merge_reserve(&m, STREAMS), 0);
	/* added last to first: the heap, not the adding, gives the order */
	for (i = STREAMS; i-- > 0;) {
		if (st[i].nr)
			kmt_merge_add(&m, i, st[i].ts[0], st[i].tie[0]);
	}
	CHECK_EQ_U64(drain(&m, st), total);
	for (i = 0; i < STREAMS; i++)
		CHECK_EQ_U64(st[i].head, st[i].nr);
	kmt_merge_free(&m);
}

static void test_empty_and_reused(void)
{
	static struct stream st[2];
	struct kmt_merge m;

	kmt_merge_init(&m);
	CHECK_EQ_U64(kmt_merge_reserve(&m, 0), 0);
	CHECK(kmt_merge_top(&m) == NULL);
	/* equal times: the lower tie first, as trace.dat's lower CPU */
	st[0].nr = st[1].nr = 2;
	st[0].ts[0] = st[1].ts[0] = 5;
	st[0].ts[1] = st[1].ts[1] = 6;
	st[0].tie[0] = st[0].tie[1] = 1;
	st[1].tie[0] = st[1].tie[1] = 0;
	CHECK_EQ_U64(kmt_merge_reserve(&m, 2), 0);
	kmt_merge_add(&m, 0, 5, 1);
	kmt_merge_add(&m, 1, 5, 0);
	CHECK_EQ_U64(kmt_merge_top(&m)->stream, 1);
	CHECK_EQ_U64(drain(&m, st), 4);
	/* cleared between two merges, its room kept */
	kmt_merge_clear(&m);
	CHECK(kmt_merge_top(&m) == NULL);
	kmt_merge_add(&m, 0, 9, 0);
	CHECK_EQ_U64(kmt_merge_top(&m)->ts, 9);
	kmt_merge_pop(&m);
	CHECK(kmt_merge_top(&m) == NULL);
	kmt_merge_free(&m);
}

KMT_TESTS(
	KMT_TEST(test_streams_in_time_order),
	KMT_TEST(test_empty_and_reused)
)
