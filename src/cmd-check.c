// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace check: is a recording whole?  Reads it through the same
 * readers as report, checks on its own that each CPU's events go forward
 * in time, and prints what it found as "key: value" lines.  Lost events
 * are reported, not held against the file: the kernel dropped them, the
 * file did not.  A reader error, records out of order, unknown event ids
 * or undecodable records make it damaged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "event/session.h"
#include "options.h"
#include "render/render.h"
#include "source/source.h"
#include "util/hash.h"
#include "util/json.h"

static const char *const check_usage[] = {
	"kmemtrace check [--json] [-o <file>] [-i] [<file>]",
	NULL
};

struct order_check {
	struct kmt_hash_u64 last_ts;	/* cpu -> last timestamp */
	uint64_t out_of_order;
	int oom;
};

static int check_event(void *ctx, const struct kmt_event *ev)
{
	struct order_check *oc = ctx;
	int is_new = 0;
	uint64_t *last;

	last = kmt_hash_u64_put(&oc->last_ts, (uint32_t)ev->cpu, &is_new);
	if (!last) {
		oc->oom = 1;
		return -ENOMEM;
	}
	if (!is_new && ev->ts < *last)
		oc->out_of_order++;
	*last = ev->ts;
	return 0;
}

struct verdict {
	uint64_t out_of_order;
	uint64_t unknown_ids;
	uint64_t bad_records;
	int damaged;
	/* whole, but without one kmem event: nothing to report on */
	int empty;
};

static const char *status_name(const struct verdict *v)
{
	return v->damaged ? "damaged" : v->empty ? "no-kmem-events" : "ok";
}

static void print_text(FILE *out, const struct kmt_session *s,
		       const char *path, const struct verdict *v,
		       size_t cpus_seen)
{
	char when[64];
	unsigned int t;
	uint64_t ns;

	fprintf(out, "file: %s\n", path);
	fprintf(out, "format: %s\n", s->format ? s->format : "unknown");
	if (s->kernel_release[0])
		fprintf(out, "kernel: %s\n", s->kernel_release);
	/* which boot and when, as report's header says them */
	fprintf(out, "boot-id: %s\n", s->boot_id[0] ? s->boot_id :
						      "not recorded");
	fprintf(out, "start-time: %s\n", kmt_session_wall_start(s, &ns) ?
		kmt_render_utc(ns, 0, when, sizeof(when)) : "not recorded");
	fprintf(out, "events: %llu\n",
		(unsigned long long)kmt_session_total_events(s));
	for (t = 1; t < KMT_EV_NR; t++)
		fprintf(out, "%s: %llu\n", kmt_ev_type_name(t),
			(unsigned long long)s->nr_events[t]);
	fprintf(out, "other-events: %llu\n", (unsigned long long)s->nr_other);
	/* only where there are: the lines of every whole file stay */
	for (t = 0; t < s->nr_unusable; t++)
		fprintf(out, "unusable-format: %s: %s (%llu record%s)\n",
			s->unusable[t].name, s->unusable[t].why,
			(unsigned long long)s->unusable[t].records,
			s->unusable[t].records == 1 ? "" : "s");
	fprintf(out, "lost: %llu\n", (unsigned long long)s->nr_lost);
	fprintf(out, "lost-records: %llu\n",
		(unsigned long long)s->nr_lost_records);
	fprintf(out, "out-of-order: %llu\n",
		(unsigned long long)v->out_of_order);
	fprintf(out, "unknown-ids: %llu\n", (unsigned long long)v->unknown_ids);
	fprintf(out, "bad-records: %llu\n", (unsigned long long)v->bad_records);
	fprintf(out, "cpus: %d\n", s->nr_cpus ? s->nr_cpus : (int)cpus_seen);
	fprintf(out, "cpus-with-events: %zu\n", cpus_seen);
	fprintf(out, "stacks: %s\n", s->has_stacks ? "yes" : "no");
	fprintf(out, "first-ts: %llu\n", (unsigned long long)s->first_ts);
	fprintf(out, "last-ts: %llu\n", (unsigned long long)s->last_ts);
	fprintf(out, "status: %s\n", status_name(v));
}

static void print_json(FILE *out, const struct kmt_session *s,
		       const char *path, const struct verdict *v,
		       size_t cpus_seen, const char *error)
{
	struct kmt_report_meta m = { .boot_id = s->boot_id };
	struct kmt_json j;
	unsigned int t;

	kmt_json_init(&j, out, 1);
	kmt_json_obj_open(&j, NULL);
	kmt_json_str(&j, "file", path);
	kmt_json_str(&j, "format", s->format ? s->format : "unknown");
	if (s->kernel_release[0])
		kmt_json_str(&j, "kernel", s->kernel_release);
	/* the members report's JSON has, null where not recorded */
	m.has_start = kmt_session_wall_start(s, &m.start_unix_ns);
	kmt_render_json_start(&j, &m);
	kmt_json_u64(&j, "events", kmt_session_total_events(s));
	kmt_json_obj_open(&j, "by_type");
	for (t = 1; t < KMT_EV_NR; t++)
		kmt_json_u64(&j, kmt_ev_type_name(t), s->nr_events[t]);
	kmt_json_obj_close(&j);
	kmt_json_u64(&j, "other_events", s->nr_other);
	if (s->nr_unusable) {
		kmt_json_arr_open(&j, "unusable_formats");
		for (t = 0; t < s->nr_unusable; t++) {
			kmt_json_obj_open(&j, NULL);
			kmt_json_str(&j, "event", s->unusable[t].name);
			kmt_json_str(&j, "why", s->unusable[t].why);
			kmt_json_u64(&j, "records", s->unusable[t].records);
			kmt_json_obj_close(&j);
		}
		kmt_json_arr_close(&j);
	}
	kmt_json_u64(&j, "lost", s->nr_lost);
	kmt_json_u64(&j, "lost_records", s->nr_lost_records);
	kmt_json_u64(&j, "out_of_order", v->out_of_order);
	kmt_json_u64(&j, "unknown_ids", v->unknown_ids);
	kmt_json_u64(&j, "bad_records", v->bad_records);
	kmt_json_u64(&j, "cpus", s->nr_cpus ? (uint64_t)s->nr_cpus : cpus_seen);
	kmt_json_u64(&j, "cpus_with_events", cpus_seen);
	kmt_json_bool(&j, "stacks", s->has_stacks);
	kmt_json_u64(&j, "first_ts", s->first_ts);
	kmt_json_u64(&j, "last_ts", s->last_ts);
	kmt_json_str(&j, "status", status_name(v));
	if (error)
		kmt_json_str(&j, "error", error);
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
}

int cmd_check(int argc, char **argv)
{
	const char *input = NULL, *output = NULL;
	int json = 0;
	const struct kmt_option options[] = {
		OPT_STRING('i', "input", &input, "file",
			   "the recording, '-' for stdin (default: kmemtrace.dat, "
			   "or stdin when it is a pipe)"),
		OPT_STRING('o', "output", &output, "file",
			   "write the verdict to <file> ('-': stdout, the default)"),
		OPT_BOOL(0, "json", &json, "print one JSON object"),
		OPT_END()
	};
	struct order_check oc;
	struct kmt_session s;
	struct verdict v;
	int nargs, ret, code;
	char msg[256];
	FILE *out;

	nargs = kmt_parse_options(argc, argv, options, check_usage, 0);
	if (nargs > 1)
		return kmt_usage_error("one recording at a time, not '%s' and '%s'",
				       argv[0], argv[1]);
	code = kmt_choose_input(input, nargs ? argv[0] : NULL, "kmemtrace.dat",
				"give -i FILE", &input, msg, sizeof(msg));
	if (code == KMT_EXIT_INPUT)
		return kmt_error(code, "%s", msg);
	if (code)
		return code;
	if (kmt_session_init(&s))
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	memset(&oc, 0, sizeof(oc));
	kmt_hash_u64_init(&oc.last_ts);
	s.consumer = check_event;
	s.consumer_ctx = &oc;

	ret = kmt_source_read_file(&s, input);
	if (ret && oc.oom)
		ret = kmt_session_error(&s, ENOMEM, "out of memory");
	if (ret && (!s.format || ret == -ENOMEM)) {
		/* not a recording at all, or no verdict: nothing to list */
		code = kmt_error(kmt_read_exit(ret), "%s", s.errmsg);
		goto out;
	}

	memset(&v, 0, sizeof(v));
	/* the reader sees the order before merging; count the worse view */
	v.out_of_order = oc.out_of_order;
	if (s.anomalies[KMT_ANOM_OUT_OF_ORDER] > v.out_of_order)
		v.out_of_order = s.anomalies[KMT_ANOM_OUT_OF_ORDER];
	v.unknown_ids = s.anomalies[KMT_ANOM_UNKNOWN_ID];
	v.bad_records = s.anomalies[KMT_ANOM_BAD_RECORD];
	v.damaged = ret != 0 || v.out_of_order || v.unknown_ids ||
		    v.bad_records;
	v.empty = !kmt_session_total_events(&s);

	out = kmt_open_output(output);
	if (!out) {
		code = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 output, strerror(errno));
		goto out;
	}
	if (json)
		print_json(out, &s, input, &v, kmt_hash_u64_count(&oc.last_ts),
			   ret ? s.errmsg : NULL);
	else
		print_text(out, &s, input, &v, kmt_hash_u64_count(&oc.last_ts));
	/* the verdict carries the error in JSON: one object on stdout */
	kmt_errors_as_json(0);
	if (ret)
		kmt_error(KMT_EXIT_INPUT, "%s", s.errmsg);
	code = kmt_close_output(out, output, 0);
	if (!code && v.damaged)
		code = KMT_EXIT_INPUT;
	/* as report says it: the file is sound, the recording is not */
	else if (!code && v.empty)
		code = kmt_error(KMT_EXIT_INPUT,
				 "'%s' is whole but has no kmem events (%llu "
				 "event%s of other kinds): record them with "
				 "'kmemtrace record' or 'perf kmem record'",
				 input, (unsigned long long)s.nr_other,
				 s.nr_other == 1 ? "" : "s");
out:
	kmt_hash_u64_free(&oc.last_ts);
	kmt_session_free(&s);
	return code;
}
