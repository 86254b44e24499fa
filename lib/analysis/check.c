// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace check's verdict, made into report sections so that every
 * renderer draws it: text as the "key: value" lines check has always
 * printed (summaries without a title), JSON as its one object (sections
 * at the document's top level), and CSV and ndjson rows beside.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/check.h"
#include "event/event.h"
#include "event/kcounters.h"
#include "event/session.h"
#include "report/report.h"
#include "util/duration.h"

/* what the recording does not hold: text "not recorded", JSON null */
static const struct kmt_missing not_recorded = { .known = 1 };

void kmt_check_init(struct kmt_check *c)
{
	memset(c, 0, sizeof(*c));
	kmt_hash_u64_init(&c->last_ts);
}

void kmt_check_free(struct kmt_check *c)
{
	kmt_hash_u64_free(&c->last_ts);
}

int kmt_check_event(void *ctx, const struct kmt_event *ev)
{
	struct kmt_check *c = ctx;
	int is_new = 0;
	uint64_t *last;

	last = kmt_hash_u64_put(&c->last_ts, (uint32_t)ev->cpu, &is_new);
	if (!last) {
		c->oom = 1;
		return -ENOMEM;
	}
	if (!is_new && ev->ts < *last)
		c->out_of_order++;
	*last = ev->ts;
	return 0;
}

void kmt_check_verdict(const struct kmt_check *c, const struct kmt_session *s,
		       int read_ret, struct kmt_check_verdict *v)
{
	memset(v, 0, sizeof(*v));
	/* the reader sees the order before merging; count the worse view */
	v->out_of_order = c->out_of_order;
	if (s->anomalies[KMT_ANOM_OUT_OF_ORDER] > v->out_of_order)
		v->out_of_order = s->anomalies[KMT_ANOM_OUT_OF_ORDER];
	v->unknown_ids = s->anomalies[KMT_ANOM_UNKNOWN_ID];
	v->bad_records = s->anomalies[KMT_ANOM_BAD_RECORD];
	v->cpus_seen = kmt_hash_u64_count(&c->last_ts);
	v->damaged = read_ret != 0 || v->out_of_order || v->unknown_ids ||
		     v->bad_records;
	v->empty = !kmt_session_total_events(s);
}

const char *kmt_check_status(const struct kmt_check_verdict *v)
{
	return v->damaged ? "damaged" : v->empty ? "no-kmem-events" : "ok";
}

static int add_item(struct kmt_summary *sum, enum kmt_sum_kind kind,
		    const char *label, const char *key, enum kmt_val_type type,
		    union kmt_val v, unsigned int flags,
		    const struct kmt_missing *missing)
{
	struct kmt_sum_item it = {
		.kind = kind, .label = label, .key = key, .type = type,
		.v = v, .flags = flags, .missing = missing,
	};

	return kmt_summary_add(sum, &it);
}

static int add_str(struct kmt_summary *sum, const char *label,
		   const char *key, const char *str, unsigned int flags,
		   const struct kmt_missing *missing)
{
	union kmt_val v = { .str = str };

	return add_item(sum, KMT_SUM_VALUE, label, key, KMT_V_STR, v, flags,
			missing);
}

static int add_u64(struct kmt_summary *sum, const char *label,
		   const char *key, uint64_t u)
{
	union kmt_val v = { .u = u };

	return add_item(sum, KMT_SUM_VALUE, label, key, KMT_V_U64, v, 0, NULL);
}

/*
 * The boot and the start as report says them: text "boot-id:" and
 * "start-time:" (UTC for people) or "not recorded"; JSON report's
 * "boot_id", "start_time" (ISO 8601) and "start_unix_ns", null where not
 * recorded.
 */
static int add_start(struct kmt_report *r, struct kmt_summary *sum,
		     const struct kmt_session *s)
{
	const struct kmt_missing *none;
	union kmt_val ns = { .u = 0 };
	char when[64];
	int err = 0;

	err |= add_str(sum, "boot-id:", "boot_id",
		       kmt_report_strdup(r, s->boot_id), 0,
		       s->boot_id[0] ? NULL : &not_recorded);
	none = kmt_session_wall_start(s, &ns.u) ? NULL : &not_recorded;
	err |= add_item(sum, KMT_SUM_NOTE,
			none ? "start-time: not recorded" :
			kmt_report_printf(r, "start-time: %s",
					  kmt_utc_text(ns.u, 0, when,
							 sizeof(when))),
			NULL, KMT_V_STR, ns, 0, NULL);
	err |= add_str(sum, "start-time:", "start_time",
		       none ? "" : kmt_report_strdup(r, kmt_utc_text(ns.u, 1,
						when, sizeof(when))),
		       KMT_COL_NO_TEXT, none);
	err |= add_item(sum, KMT_SUM_VALUE, "start-unix-ns:", "start_unix_ns",
			KMT_V_U64, ns, KMT_COL_NO_TEXT, none);
	return err;
}

/*
 * Which of the kernel's counters record snapshotted at each end:
 * "start slabinfo meminfo vmalloc, end slabinfo meminfo vmalloc", each
 * part that could not be read left out; not recorded without the option
 * (or with a damaged one, which the command warns of)
 */
static int add_kcounters(struct kmt_report *r, struct kmt_summary *sum,
			 const struct kmt_session *s)
{
	static const char *const parts[] = { "slabinfo", "meminfo", "vmalloc" };
	const struct kmt_kcounters *kc = s->kcounters;
	char buf[128];
	size_t n = 0;
	int w, i;

	if (!kc)
		return add_str(sum, "kernel-counters:", "kernel_counters", "",
			       0, &not_recorded);
	buf[0] = '\0';
	for (w = 0; w < KMT_CNT_NR; w++) {
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", w ? ", " : "",
			      w ? "end" : "start");
		for (i = 0; i < 3; i++) {
			if (kc->at[w].have & 1U << i)
				n += snprintf(buf + n, sizeof(buf) - n, " %s",
					      parts[i]);
		}
		if (!kc->at[w].have)
			n += snprintf(buf + n, sizeof(buf) - n, " none");
	}
	return add_str(sum, "kernel-counters:", "kernel_counters",
		       kmt_report_strdup(r, buf), 0, NULL);
}

/* the event formats the reader left out, an "unusable-format:" line each */
static const struct kmt_col unusable_cols[] = {
	{ "line", "unusable-format:", KMT_V_STR, KMT_COL_TEXT_ONLY },
	{ "event", "event", KMT_V_STR, KMT_COL_NO_TEXT },
	{ "why", "why", KMT_V_STR, KMT_COL_NO_TEXT },
	{ "records", "records", KMT_V_U64, KMT_COL_NO_TEXT },
};

#define NR_UNUSABLE_COLS (sizeof(unusable_cols) / sizeof(unusable_cols[0]))

static int add_unusable(struct kmt_report *r, const struct kmt_session *s)
{
	struct kmt_table *t;
	union kmt_val *row;
	size_t i;

	t = kmt_report_add_table(r, "", "unusable_formats", NULL, unusable_cols,
				 NR_UNUSABLE_COLS, KMT_TABLE_LINES);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < s->nr_unusable; i++) {
		const struct kmt_unusable_format *f = &s->unusable[i];

		row = kmt_table_add_row(t);
		if (!row)
			return -ENOMEM;
		row[0].str = kmt_report_printf(r, "%s: %s (%llu record%s)",
					       f->name, f->why,
					       (unsigned long long)f->records,
					       f->records == 1 ? "" : "s");
		row[1].str = kmt_report_strdup(r, f->name);
		row[2].str = kmt_report_strdup(r, f->why);
		row[3].u = f->records;
	}
	return 0;
}

int kmt_check_report(struct kmt_report *r, const struct kmt_session *s,
		     const char *path, const struct kmt_check_verdict *v,
		     const char *error)
{
	union kmt_val none = { .u = 0 }, stacks = { .u = !!s->has_stacks };
	struct kmt_summary *sum;
	unsigned int t;
	int err = 0;

	sum = kmt_report_add_summary(r, "", "recording", NULL);
	if (!sum)
		return -ENOMEM;
	err |= add_str(sum, "file:", "file", kmt_report_strdup(r, path), 0,
		       NULL);
	err |= add_str(sum, "format:", "format",
		       kmt_report_strdup(r, s->format ? s->format : "unknown"),
		       0, NULL);
	if (s->kernel_release[0])
		err |= add_str(sum, "kernel:", "kernel",
			       kmt_report_strdup(r, s->kernel_release), 0,
			       NULL);
	err |= add_start(r, sum, s);
	err |= add_u64(sum, "events:", "events", kmt_session_total_events(s));
	err |= add_item(sum, KMT_SUM_BEGIN, NULL, "by_type", KMT_V_U64, none,
			0, NULL);
	for (t = 1; t < KMT_EV_NR; t++) {
		const char *label = kmt_report_printf(r, "%s:",
						      kmt_ev_type_name(t));
		union kmt_val n = { .u = s->nr_events[t] };
		const struct kmt_missing *m = NULL;

		/*
		 * percpu and vmalloc are new to recordings: one without them
		 * says so rather than 0 (kmem's lines stay as they were)
		 */
		if ((kmt_ev_is_percpu(t) || kmt_ev_is_vmalloc(t)) &&
		    s->types_known && !(s->recorded_types & KMT_EV_BIT(t)) &&
		    !s->nr_events[t])
			m = kmt_report_missing(r, KMT_EV_BIT(t), 1);
		err |= add_item(sum, KMT_SUM_VALUE, label, kmt_ev_type_name(t),
				KMT_V_U64, n, 0, m);
	}
	err |= add_item(sum, KMT_SUM_END, NULL, "by_type", KMT_V_U64, none, 0,
			NULL);
	err |= add_u64(sum, "other-events:", "other_events", s->nr_other);
	err |= add_kcounters(r, sum, s);
	/* only where there are: the lines of every whole file stay */
	if (s->nr_unusable)
		err |= add_unusable(r, s);
	if (err)
		return -ENOMEM;

	sum = kmt_report_add_summary(r, "", "verdict", NULL);
	if (!sum)
		return -ENOMEM;
	err |= add_u64(sum, "lost:", "lost", s->nr_lost);
	err |= add_u64(sum, "lost-records:", "lost_records", s->nr_lost_records);
	err |= add_u64(sum, "out-of-order:", "out_of_order", v->out_of_order);
	err |= add_u64(sum, "unknown-ids:", "unknown_ids", v->unknown_ids);
	err |= add_u64(sum, "bad-records:", "bad_records", v->bad_records);
	err |= add_u64(sum, "cpus:", "cpus", s->nr_cpus ? (uint64_t)s->nr_cpus :
						       v->cpus_seen);
	err |= add_u64(sum, "cpus-with-events:", "cpus_with_events",
		       v->cpus_seen);
	err |= add_item(sum, KMT_SUM_VALUE, "stacks:", "stacks", KMT_V_BOOL,
			stacks, 0, NULL);
	err |= add_u64(sum, "first-ts:", "first_ts", s->first_ts);
	err |= add_u64(sum, "last-ts:", "last_ts", s->last_ts);
	err |= add_str(sum, "status:", "status", kmt_check_status(v), 0, NULL);
	/* text has it on stderr; the one JSON object carries it too */
	if (error)
		err |= add_str(sum, "error:", "error",
			       kmt_report_strdup(r, error), KMT_COL_NO_TEXT,
			       NULL);
	return err || r->oom ? -ENOMEM : 0;
}
