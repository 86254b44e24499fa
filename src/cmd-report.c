// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace report: read a recording of any format and print the slab and
 * page analyses (perf kmem stat's job, with its option names), and the
 * views beyond it: leaks, misuse, processes, per-CPU lists, external
 * fragmentation, caches, sizes, lifetimes, a timeline.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "builtin.h"
#include "event/callsite.h"
#include "event/pipeline.h"
#include "event/session.h"
#include "options.h"
#include "render/parallel.h"
#include "render/render.h"
#include "report/profile.h"
#include "report/report.h"
#include "report/sort.h"
#include "run/report.h"
#include "source/source.h"
#include "util/hash.h"
#include "util/duration.h"
#include "util/strbuf.h"

static const char *const report_usage[] = {
	"kmemtrace report [--slab] [--page] [--caller] [--alloc] [-s KEYS] [-l N] [--raw-ip]",
	"                 [--live] [--time A,B] [--json | --csv] [-o FILE] [--threads N] [[-i] FILE]",
	"kmemtrace report [--leaks [--older-than D]] [--errors [--all-findings]] [--procs [--by comm]] [--pcpu]",
	"                 [--extfrag] [--caches] [--sizes] [--lifetimes] [--timeline [--step D]]",
	"                 [--percpu] [--vmalloc] [--profile]",
	"                 [--pid LIST] [--comm LIST] [--cpu LIST] [--time A,B] ... [[-i] FILE]",
	NULL,
};

/* -s in -h (help) or one key a line (completion): each table's keys */
static void list_sort_keys(FILE *out, int help)
{
	char names[512], table[32];
	size_t i, j, k;

	if (help)
		fprintf(out, "\nsort keys (-s), each table by its own, larger first:\n");
	for (i = 0; i < kmt_run_nr_analyses; i++) {
		const struct kmt_analysis_ops *ops = kmt_run_analyses[i].ops;

		if (!ops->nr_sort_keys)
			continue;
		if (help) {
			char head[48], line[700];

			kmt_run_key_names(i, names, sizeof(names));
			snprintf(head, sizeof(head), "    %s",
				 kmt_run_table_name(i, table, sizeof(table)));
			snprintf(line, sizeof(line), "%s (default %s)", names,
				 ops->default_sort);
			kmt_help_wrap(out, head, 14, line);
			continue;
		}
		for (k = 0; k < ops->nr_sort_keys; k++) {
			const char *name = ops->sort_keys[k].name;
			int dup = 0;

			for (j = 0; j < i && !dup; j++) {
				const struct kmt_analysis_ops *o = kmt_run_analyses[j].ops;

				dup = kmt_sort_has_key(o->sort_keys,
						       o->nr_sort_keys, name,
						       strlen(name));
			}
			if (!dup)
				fprintf(out, "%s\n", name);
		}
	}
}

/* --weight's values, for completion */
static void list_weights(FILE *out, int help)
{
	size_t i;

	for (i = 0; !help && i < KMT_PROFILE_NR_VALUES; i++)
		fprintf(out, "%s\n", kmt_profile_values[i][0]);
}

/* --by for completion */
static void list_by(FILE *out, int help)
{
	if (!help)
		fputs("pid\ntgid\ncomm\ncgroup\n", out);
}

/* --format: the renderers' names, from their table */
static void list_formats(FILE *out, int help)
{
	const struct kmt_renderer *rd;
	size_t i;

	if (help)
		fputs("\nformats (--format):", out);
	for (i = 0; (rd = kmt_renderer_at(i)); i++)
		fprintf(out, help ? " %s" : "%s\n", rd->name);
	if (help)
		fputc('\n', out);
}

static int view_options(const char *by, struct kmt_report_opts *opts,
			char *msg, size_t len)
{
	if (by && strcmp(by, "pid") && strcmp(by, "tgid") && strcmp(by, "comm") &&
	    strcmp(by, "cgroup")) {
		snprintf(msg, len, "option '--by' needs pid, tgid, comm or cgroup, not '%s'",
			 by);
		return -1;
	}
	opts->by_cgroup = by && !strcmp(by, "cgroup");
	opts->by_comm = by && !strcmp(by, "comm");
	opts->by_tgid = by && !strcmp(by, "tgid");
	if (opts->top == INT_MIN)
		opts->top = 0;		/* the view's default */
	return 0;
}

/*
 * The tests' recordings have tables of a few hundred rows: they set
 * smaller pieces and a smaller spool through these, so that the two
 * threads that draw a report take turns inside tables and the spool
 * fills (render/parallel.h).
 */
static void test_knobs(struct kmt_run_spec *spec)
{
	const char *rows = getenv("KMT_TEST_PIECE_ROWS");
	const char *spool = getenv("KMT_TEST_SPOOL_MAX");

	if (rows && atol(rows) > 0)
		spec->piece_rows = (size_t)atol(rows);
	if (spool && atol(spool) >= 0) {
		spec->spool_max = (size_t)atol(spool);
		spec->spool_given = 1;
	}
}

/* the exit status of a step that failed: its message said */
static int run_failed(struct kmt_run *run, enum kmt_run_status st)
{
	int code = kmt_run_exit(st, kmt_run_read_error(run),
				kmt_run_error(run));

	kmt_run_free(run);
	return code;
}

/*
 * The report of spec drawn to output (stdout when NULL); the exit
 * status.  A document others open whole is never left half written,
 * and nothing is written until every part of the report is made.
 */
static int run_report(struct kmt_run_spec *spec, const char *input,
		      const char *pos, const struct kmt_renderer *renderer,
		      const char *output)
{
	enum kmt_run_status st;
	struct kmt_run *run;
	char msg[1024], tmp[4096];
	int rd, err, whole;
	FILE *out;

	run = kmt_run_create(spec, &st, msg, sizeof(msg));
	if (!run)
		return kmt_run_exit(st, 0, msg);
	/* the command line is sound: now the input */
	rd = kmt_choose_input(input, pos, "kmemtrace.dat", "give -i FILE",
			      &input, msg, sizeof(msg));
	if (rd) {
		kmt_run_free(run);
		return rd == KMT_EXIT_INPUT ? kmt_error(rd, "%s", msg) : rd;
	}
	/*
	 * One malloc arena: the analyses' thread grows the big tables, and
	 * an arena of its own would keep what it freed out of reach of the
	 * sorting and rendering that follow on this one.
	 */
	if (spec->threads > 1)
		mallopt(M_ARENA_MAX, 1);
	/*
	 * Big tables in mappings of their own: freed, they go back to the
	 * system at once, and grown, they move without a copy (mremap).
	 * Left to itself glibc raises this threshold as big blocks are
	 * freed, and keeps the next ones in the heap, where what is freed
	 * stays counted in the peak.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	st = kmt_run_read(run, input);
	if (st)
		return run_failed(run, st);
	if (kmt_run_warning(run))
		kmt_warning("%s", kmt_run_warning(run));
	if (kmt_run_session(run)->kcounters_damaged[0])
		kmt_warning("%s", kmt_run_session(run)->kcounters_damaged);
	st = kmt_run_finish(run, renderer);
	if (st)
		return run_failed(run, st);
	whole = renderer->group || renderer->all_views;
	out = !whole ? kmt_open_output(output) :
		       kmt_open_output_whole(output, tmp, sizeof(tmp));
	if (!out) {
		kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
			  strerror(errno));
		kmt_run_free(run);
		return KMT_EXIT_RUNTIME;
	}
	err = kmt_run_draw(run, out);
	rd = !whole ? kmt_close_output(out, output, err) :
		      kmt_close_output_whole(out, output, tmp, err);
	if (!rd && kmt_run_unreadable(run, msg, sizeof(msg))) {
		kmt_warning("%s", msg);
		rd = KMT_EXIT_PARTIAL;
	}
	kmt_run_free(run);
	return rd;
}

int cmd_report(int argc, char **argv)
{
	const char *input = NULL, *output = NULL, *format = NULL;
	const char *weight = NULL, *html = NULL;
	int json = 0, csv = 0, threads = 0;
	struct kmt_run_spec spec = { 0 };
	struct kmt_report_opts *opts = &spec.opts;
	struct kmt_run_want *want = &spec.want;
	const char *by = NULL;
	const struct kmt_option options[] = {
		OPT_GROUP("input"),
		OPT_STRING('i', "input", &input, "file",
			   "recording: perf.data, trace.dat or ftrace text, '-' for stdin "
			   "(default: kmemtrace.dat, or stdin when it is a pipe)"),
		OPT_STRING(0, "time", &spec.time_arg, "start,end",
			   "only events in this window, in seconds as the recording "
			   "stamps them (either side may be empty)"),
		OPT_LIST(0, "pid", &spec.pids, "list",
			 "only these processes (1234,5678): their allocations with "
			 "their frees, whoever frees, and their other events"),
		OPT_LIST(0, "comm", &spec.comms, "list",
			 "only these command names, as --pid (patterns: kworker*)"),
		OPT_LIST(0, "cpu", &spec.cpus, "list",
			 "only these CPUs (0,2-3), as --pid"),
		OPT_GROUP("analyses (default: slab and page, for the events present)"),
		OPT_BOOL(0, "slab", &spec.want.slab, "slab allocator: kmalloc, kmem_cache_alloc, frees"),
		OPT_BOOL(0, "page", &spec.want.page, "page allocator: mm_page_alloc, mm_page_free, ..."),
		OPT_GROUP("views (with any of them, only the views print, unless --slab or --page)"),
		OPT_BOOL(0, "leaks", &spec.want.leaks,
			 "still allocated at the end, by callsite and stack, with ages"),
		OPT_DURATION(0, "older-than", &spec.opts.older_than, "duration", 0,
			   "leaks: only objects alive at least this long (500ms, 2s, 1m)"),
		OPT_BOOL(0, "errors", &spec.want.errors,
			 "misuse: wrong free function or cache, double and unknown frees, "
			 "bytes_alloc < bytes_req, failures"),
		OPT_DURATION(0, "warmup", &spec.opts.warmup, "duration", 0,
			   "errors: frees of unknown pointers this early are expected "
			   "(default 1s)"),
		OPT_BOOL(0, "all-findings", &spec.opts.all_findings,
			 "errors: list the findings legal on the traced kernel too"),
		OPT_STRING(0, "kernel", &spec.kernel, "release",
			   "the traced kernel's release (uname -r) for inputs that do not "
			   "record it, such as ftrace text; it judges the errors' findings"),
		OPT_BOOL(0, "procs", &spec.want.procs,
			 "per process: Mel Gorman's page allocator columns, slab bytes"),
		OPT_WORDS(0, "by", &by, "pid|tgid|comm|cgroup", list_by,
			  "procs, extfrag: a row per task (pid, default), process (tgid) or command name; "
			  "procs: or memory cgroup (cgroup, from kmemtrace record's map)"),
		OPT_BOOL(0, "pcpu", &spec.want.pcpu,
			 "per CPU: per-CPU list refills and drains, imbalance"),
		OPT_BOOL(0, "extfrag", &spec.want.extfrag,
			 "external fragmentation: fallbacks by order, migratetype, "
			 "process, over time"),
		OPT_BOOL(0, "caches", &spec.want.caches,
			 "per slab cache: objects, bytes, waste, outstanding, and slabinfo's change beside"),
		OPT_BOOL(0, "sizes", &spec.want.sizes,
			 "histogram of requested sizes, powers of two, with waste"),
		OPT_BOOL(0, "lifetimes", &spec.want.lifetimes,
			 "histogram of allocation-to-free times (per callsite with --caller)"),
		OPT_BOOL(0, "timeline", &spec.want.timeline,
			 "outstanding slab and page memory over time, top callsites"),
		OPT_DURATION(0, "step", &spec.opts.step, "duration", 1,
			   "timeline, extfrag: the step (default: the span / 50, rounded)"),
		OPT_INT(0, "top", &spec.opts.top, "n", 1, INT_MAX,
			"timeline: callsites drawn (default 10)"),
		OPT_BOOL(0, "percpu", &spec.want.percpu,
			 "percpu allocator (not --pcpu's lists) per callsite: bytes "
			 "per CPU and in all, live at the end, failures by size"),
		OPT_BOOL(0, "vmalloc", &spec.want.vmalloc,
			 "vmalloc areas per caller (the first frame outside vmalloc: "
			 "record with -g), live at the end, failures, lazy purges"),
		OPT_BOOL(0, "profile", &spec.want.profile,
			 "allocations by stack, process and cache, with what is live "
			 "at the end: what --format pprof and folded draw"),
		OPT_WORDS(0, "weight", &weight, "value", list_weights,
			  "profile: the value folded draws and pprof shows first "
			  "(default alloc_space)"),
		OPT_GROUP("tables"),
		OPT_BOOL(0, "caller", &spec.opts.caller, "per-callsite table (slab, page, lifetimes)"),
		OPT_BOOL(0, "alloc", &spec.opts.alloc, "per-object (slab) and per-page table"),
		OPT_WORDS('s', "sort", &spec.opts.sort, "keys", list_sort_keys,
			  "sort by these keys (key,key,...), each table by those "
			  "it knows (listed below)"),
		OPT_INT('l', "limit", &spec.opts.lines, "n", 0, INT_MAX,
			"print at most n rows per table (0: all, the default)"),
		OPT_ALIAS("line", &spec.opts.lines),	/* perf kmem's name */
		OPT_BOOL(0, "raw-ip", &spec.opts.raw_ip, "print addresses, not symbols"),
		OPT_BOOL(0, "live", &spec.opts.live, "page: only blocks still allocated at the end"),
		OPT_GROUP("output"),
		OPT_WORDS(0, "format", &format, "name", list_formats,
			  "output format (listed below; default text)"),
		OPT_BOOL(0, "json", &json, "JSON: every table and summary (--format json)"),
		OPT_BOOL(0, "csv", &csv, "CSV: one row a value, table,row,column,value (--format csv)"),
		OPT_OUTPUT(0, "html", &html, "file",
			   "a page to open, mail or attach: every view, the flame graph "
			   "(--format html -o <file>)"),
		OPT_OUTPUT('o', "output", &output, "file",
			   "write the report to <file> ('-': stdout, the default)"),
		OPT_STRING(0, "host", &spec.host, "name",
			   "ndjson: the host name every row carries (default: the "
			   "recording's, where it says it)"),
		OPT_GROUP("running"),
		OPT_INT(0, "threads", &threads, "n", 0, 2,
			"threads to use (0, the default: 2 with 2 CPUs or more; "
			"2: analyse on a second thread)"),
		OPT_END(),
	};
	const struct kmt_renderer *renderer;
	char msg[1024];
	int nargs;
	size_t i;

	opts->top = INT_MIN;	/* not given */
	opts->warmup = 1000000000ULL;	/* 1 s */
	nargs = kmt_parse_options(argc, argv, options, report_usage, 0);
	if (nargs > 1)
		return kmt_usage_error("one input at a time, not '%s' and '%s'",
				       argv[0], argv[1]);
	if (json + csv + !!format + !!html > 1)
		return kmt_usage_error("--format, --json, --csv and --html exclude "
				       "each other");
	if (html) {
		if (output)
			return kmt_usage_error("--html names its file: no -o with it");
		format = "html";
		output = html;
	}
	if (!threads)
		threads = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
	if (!format)
		format = json ? "json" : csv ? "csv" : "text";
	renderer = kmt_renderer_find(format);
	if (!renderer) {
		const struct kmt_renderer *known;
		size_t o = 0;

		for (i = 0; (known = kmt_renderer_at(i)) && o < sizeof(msg); i++)
			o += snprintf(msg + o, sizeof(msg) - o, "%s%s",
				      i ? ", " : "", known->name);
		return kmt_usage_error("unknown format '%s': the formats are %s",
				       format, msg);
	}
	if (!strcmp(format, "json"))
		kmt_errors_as_json(1);
	opts->weight = KMT_PROFILE_ALLOC_SPACE;
	if (weight) {
		opts->weight = kmt_profile_value(weight);
		if (opts->weight < 0)
			return kmt_usage_error("option '--weight' needs alloc_objects, "
					       "alloc_space, inuse_objects or "
					       "inuse_space, not '%s'", weight);
	}
	if (renderer->group) {
		/* pprof and folded draw the profile and nothing else */
		for (i = 0; i < kmt_run_nr_analyses; i++) {
			if (kmt_run_analyses[i].ops != &kmt_analysis_profile &&
			    kmt_run_wanted(want, i))
				return kmt_usage_error("--format %s draws the allocation "
						       "profile alone, not --%s",
						       format, kmt_run_analyses[i].ops->name);
		}
		if (opts->caller || opts->alloc || opts->live)
			return kmt_usage_error("--format %s draws the allocation "
					       "profile alone, not --%s", format,
					       opts->caller ? "caller" :
					       opts->alloc ? "alloc" : "live");
		if (opts->lines)
			return kmt_usage_error("--format %s draws the whole profile: "
					       "one cut short by -l would not add up",
					       format);
		want->profile = 1;
		/* a binary file on a terminal helps nobody */
		if (!strcmp(format, "pprof") && (!output || !strcmp(output, "-")) &&
		    isatty(STDOUT_FILENO))
			return kmt_usage_error("--format pprof writes a binary file: "
					       "give -o FILE (go tool pprof reads it)");
	} else if (renderer->all_views) {
		/* a page to look at: every view, and the tables in reason */
		if (opts->alloc)
			return kmt_usage_error("--format %s draws no per-object table: "
					       "leave out --alloc", format);
		for (i = 0; i < kmt_run_nr_analyses; i++)
			*kmt_run_want_flag(want, i) = 1;
		opts->caller = 1;
		opts->profile_whole = 1;
		if (!opts->lines)
			opts->lines = 500;
	} else if (weight && !want->profile) {
		return kmt_usage_error("--weight goes with --profile or --format "
				       "pprof or folded");
	}
	if (view_options(by, opts, msg, sizeof(msg)))
		return kmt_usage_error("%s", msg);
	if (spec.time_arg &&
	    kmt_run_parse_time(spec.time_arg, &spec.time_start, &spec.time_end,
			       &spec.time_relative))
		return kmt_usage_error("option '--time' needs start,end in seconds "
				       "as the recording stamps them, or from its "
				       "start as +S (+1.5,+3), start <= end, not '%s'",
				       spec.time_arg);
	spec.threads = threads;
	test_knobs(&spec);
	return run_report(&spec, input, nargs ? argv[0] : NULL, renderer,
			  output);
}
