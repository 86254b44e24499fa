// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "analysis/analysis.h"
#include "event/session.h"
#include "report/report.h"

static const char *make_sym(struct kmt_session *s, struct kmt_report *r,
			    uint64_t addr, int raw_ip)
{
	uint64_t off = 0;
	const char *name;

	if (!addr)
		return kmt_report_strdup(r, "(unknown)");
	/* text input has names, not addresses: there is nothing raw to show */
	if (addr >= KMT_SYNTH_BASE && addr < 0x8000000000000000ULL)
		raw_ip = 0;
	name = raw_ip ? NULL : kmt_symtab_lookup(&s->syms, addr, &off);
	if (!name)
		return kmt_report_printf(r, "%#" PRIx64, addr);
	if (!off)
		return kmt_report_strdup(r, name);
	return kmt_report_printf(r, "%s+%" PRIx64, name, off);
}

const char *kmt_analysis_sym(struct kmt_session *s, struct kmt_report *r,
			     uint64_t addr, int raw_ip)
{
	const char **memo;
	int is_new;

	memo = kmt_report_texts_put(&r->sym_memo[!!raw_ip], addr, &is_new);
	if (!memo)
		return make_sym(s, r, addr, raw_ip);
	if (is_new)
		*memo = make_sym(s, r, addr, raw_ip);
	return *memo;
}

const char *kmt_analysis_sym_made(const struct kmt_report *r, uint64_t addr,
				  int raw_ip)
{
	const char *const *memo = kmt_report_texts_get(&r->sym_memo[!!raw_ip],
							addr);

	return memo ? *memo : NULL;
}

_Static_assert(KMT_EV_NR <= KMT_REPORT_EV_TYPES,
	       "the report's lists of event types are too short");

void kmt_analysis_meta(struct kmt_report *r, const struct kmt_session *s)
{
	struct kmt_report_meta *m = &r->meta;
	int i;

	m->input = s->input;
	m->format = s->format ? s->format : "unknown";
	m->kernel = s->kernel_release;
	m->host = s->hostname;
	m->boot_id = s->boot_id;
	m->nr_cpus = s->nr_cpus;
	m->first_ts = s->first_ts;
	m->last_ts = s->last_ts;
	m->has_start = kmt_session_wall_start(s, &m->start_unix_ns);
	m->time_start = s->time_start;
	m->time_end = s->time_end;
	for (i = 1; i < KMT_EV_NR; i++) {
		if (!s->nr_events[i])
			continue;
		m->events[m->nr_event_types].name = kmt_ev_type_name(i);
		m->events[m->nr_event_types].count = s->nr_events[i];
		m->nr_event_types++;
	}
	m->other_events = s->nr_other;
	m->nr_formats = s->nr_unusable;
	for (i = 0; i < (int)s->nr_unusable && i < KMT_META_FORMATS; i++) {
		m->formats[i].name = s->unusable[i].name;
		m->formats[i].why = s->unusable[i].why;
		m->formats[i].records = s->unusable[i].records;
	}
	m->lost_events = s->nr_lost;
	m->lost_records = s->nr_lost_records;
	m->unreadable = kmt_session_unreadable(s);
	for (i = 0; i < (int)s->nr_notes && i < KMT_META_NOTES; i++) {
		const struct kmt_anomaly_note *n = &s->notes[i];

		if (n->kind == KMT_ANOM_OUT_OF_ORDER)
			continue;
		m->notes[m->nr_notes].unit = n->unit == KMT_AT_LINE ? "line" :
					     n->unit == KMT_AT_BYTE ? "byte" :
					     NULL;
		m->notes[m->nr_notes].where = n->where;
		m->notes[m->nr_notes].why = n->why;
		m->nr_notes++;
	}
	m->out_of_order = s->anomalies[KMT_ANOM_OUT_OF_ORDER];
	m->has_stacks = s->has_stacks;
	m->types_known = s->types_known;
	for (i = 1; i < KMT_EV_NR && s->types_known; i++) {
		if (s->recorded_types & KMT_EV_BIT(i))
			m->recorded[m->nr_recorded++] = kmt_ev_type_name(i);
	}
}
