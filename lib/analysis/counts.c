// SPDX-License-Identifier: GPL-2.0
/*
 * stat's counts as a report (analysis/counts.h): perf stat's text
 * through the text renderer, the same counts in every other format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/counts.h"
#include "record/counter.h"
#include "report/report.h"

/*
 * The columns of the counts.  Text has perf stat's order, the count
 * before the event, JSON the event first: the count is twice, once for
 * each.  With -I each text row starts with the interval's time.
 */
static const struct kmt_col count_cols[] = {
	{ "time", "time", KMT_V_DOUBLE, KMT_COL_NS | KMT_COL_TEXT_ONLY },
	{ "count_text", "counts", KMT_V_U64, KMT_COL_GROUPED | KMT_COL_TEXT_ONLY },
	{ "event", "event", KMT_V_STR, KMT_COL_LEFT },
	{ "count", "counts", KMT_V_U64, KMT_COL_NO_TEXT },
	{ "rate", "rate", KMT_V_DOUBLE, KMT_COL_LEFT | KMT_COL_RATE },
};

/* perf stat's "%15.9f %18s      %-*s #  %s", and without -I "%18s ..." */
static const struct kmt_col_text count_text[] = {
	{ "", 15 }, { " ", 18 }, { "      ", 0 }, { NULL, 0 }, { " #  ", 0 },
};
static const struct kmt_col_text count_text_whole[] = {
	{ "", 18 }, { "      ", 0 }, { NULL, 0 }, { " #  ", 0 },
};

#define NR_COUNT_COLS (sizeof(count_cols) / sizeof(count_cols[0]))

static int add_value(struct kmt_summary *s, const char *key,
		     enum kmt_val_type type, union kmt_val v)
{
	struct kmt_sum_item it = {
		.kind = KMT_SUM_VALUE, .label = key, .key = key, .type = type,
		.v = v, .flags = KMT_COL_NO_TEXT,
	};

	return kmt_summary_add(s, &it);
}

static int add_note(struct kmt_summary *s, const char *text)
{
	struct kmt_sum_item it = { .kind = KMT_SUM_NOTE, .label = text };

	return kmt_summary_add(s, &it);
}

int kmt_counters_report(struct kmt_report *r, const struct kmt_counters *c,
			const struct kmt_counts *k)
{
	int interval = k->at >= 0, e, ret = 0;
	size_t skip = interval ? 0 : 1;
	struct kmt_summary *s;
	struct kmt_table *t;
	union kmt_val v;

	s = kmt_report_add_summary(r, "", "summary", NULL);
	if (!s)
		return -ENOMEM;
	if (!interval) {
		ret |= kmt_summary_blank(s);
		ret |= add_note(s, kmt_report_printf(r, " Kmem event counts for '%s':",
						     k->target));
		ret |= kmt_summary_blank(s);
	}
	v.str = kmt_report_strdup(r, k->target);
	ret |= add_value(s, "target", KMT_V_STR, v);
	if (interval) {
		v.d = k->at;
		ret |= add_value(s, "time", KMT_V_DOUBLE, v);
	}
	v.d = k->seconds;
	ret |= add_value(s, "seconds", KMT_V_DOUBLE, v);
	if (ret)
		return -ENOMEM;

	t = kmt_report_add_table(r, "", "events", NULL, count_cols + skip,
				 NR_COUNT_COLS - skip, KMT_TABLE_BARE);
	if (!t || kmt_table_reserve(t, (size_t)c->nr_events))
		return -ENOMEM;
	t->col_text = interval ? count_text : count_text_whole;
	for (e = 0; e < c->nr_events; e++) {
		union kmt_val *row = kmt_table_add_row(t);
		uint64_t n = k->values[e];
		size_t i = 0;

		if (!row)
			return -ENOMEM;
		if (interval)
			row[i++].d = k->at;
		row[i++].u = n;
		row[i++].str = kmt_report_strdup(r, c->names[e]);
		row[i++].u = n;
		row[i].d = k->seconds > 0 ? n / k->seconds : 0;
	}
	if (interval)
		return r->oom ? -ENOMEM : 0;

	s = kmt_report_add_summary(r, "", "elapsed", NULL);
	if (!s)
		return -ENOMEM;
	{
		struct kmt_sum_item it = {
			.kind = KMT_SUM_NOTE_VALUE, .label = "seconds time elapsed",
			.key = "seconds", .type = KMT_V_DOUBLE,
			.v.d = k->seconds, .flags = KMT_COL_NS, .width = 18,
		};

		ret |= kmt_summary_blank(s);
		ret |= kmt_summary_add(s, &it);
		ret |= kmt_summary_blank(s);
	}
	return ret || r->oom ? -ENOMEM : 0;
}

int kmt_counters_report_heading(struct kmt_report *r)
{
	struct kmt_summary *s = kmt_report_add_summary(r, "", "heading", NULL);

	if (!s || add_note(s, "#          time             counts      event"))
		return -ENOMEM;
	return 0;
}
