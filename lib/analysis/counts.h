/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_ANALYSIS_COUNTS_H
#define KMT_ANALYSIS_COUNTS_H

struct kmt_counters;
struct kmt_counts;
struct kmt_report;

/*
 * The counts as a report's sections, at the document's top level (group
 * ""): the summary "summary" (target, with -I the time, seconds) and the
 * table "events" (event, count, rate a second); text draws them as perf
 * stat does, with the time elapsed under a whole run and the time
 * before each row of an interval.  0 or -ENOMEM.
 */
int kmt_counters_report(struct kmt_report *r, const struct kmt_counters *c,
			const struct kmt_counts *k);
/*
 * What goes once before the counts of every interval (text: perf stat's
 * heading "#  time  counts  event").  0 or -ENOMEM.
 */
int kmt_counters_report_heading(struct kmt_report *r);

#endif
