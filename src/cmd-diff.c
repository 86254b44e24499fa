// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace diff A B: what changed between two recordings, or between a
 * report saved as JSON (the baseline) and a recording; and pageowner
 * --diff, between two page_owner dumps.  The comparison is lib's
 * (run/diff.h): here are the options, the output files, what is said of
 * the inputs, and the HTML page drawn from the comparison's model.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "options.h"
#include "render/render.h"
#include "report/report.h"
#include "run/diff.h"
#include "run/report.h"

static const char *const diff_usage[] = {
	"kmemtrace diff [<options>] <A> <B>",
	"kmemtrace diff --pprof <file> [<options>] <A> <B>",
	"kmemtrace diff --save <file> [<options>] <recording>",
	NULL
};


/*
 * --save: report's JSON of a recording with the tables a comparison
 * reads, so that the baseline compares exactly as its recording would.
 * A recording partly unreadable is said, and saved for what it has.
 */
static int save_report(const char *input, const char *path,
		       const struct kmt_diff_spec *ds)
{
	struct kmt_run_spec spec;
	enum kmt_run_status st;
	struct kmt_run *run;
	char msg[1024];
	FILE *out;
	int ret = 0, err;

	st = kmt_diff_save_spec(ds, &spec, msg, sizeof(msg));
	if (st)
		return kmt_run_exit(st, 0, msg);
	run = kmt_run_create(&spec, &st, msg, sizeof(msg));
	if (!run)
		return kmt_run_exit(st, 0, msg);
	st = kmt_run_read(run, input);
	if (st == KMT_RUN_OK) {
		if (kmt_run_warning(run))
			kmt_warning("%s", kmt_run_warning(run));
		st = kmt_run_finish(run, NULL);
	}
	if (st) {
		ret = kmt_run_exit(st, kmt_run_read_error(run),
				   kmt_run_error(run));
		kmt_run_free(run);
		return ret;
	}
	if (kmt_run_unreadable(run, msg, sizeof(msg))) {
		kmt_warning("%s", msg);
		ret = KMT_EXIT_PARTIAL;
	}
	out = kmt_open_output(path);
	if (!out) {
		kmt_run_free(run);
		return kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", path,
				 strerror(errno));
	}
	errno = 0;
	err = kmt_render_json(kmt_run_report(run), out) ?
	      (errno ? -errno : -EIO) : 0;
	err = kmt_close_output(out, path, err);
	kmt_run_free(run);
	return err ? err : ret;
}

/*
 * Both sides into d, A then B, each side's warnings said before what
 * ended it: the exit status.
 */
static int load_sides(struct kmt_diff *d, char **paths)
{
	enum kmt_run_status st;
	const char *w;
	size_t i;
	int side;

	for (side = 0; side < 2; side++) {
		st = kmt_diff_load(d, side, paths[side]);
		for (i = 0; (w = kmt_diff_warning(d, i)); i++)
			kmt_warning("%s", w);
		if (st)
			return kmt_run_exit(st, kmt_diff_read_error(d),
					    kmt_diff_error(d));
	}
	return 0;
}

static void html_num(double v, int rate, FILE *out)
{
	if (rate)
		fprintf(out, "<td class=n>%.3f</td>", v);
	else
		fprintf(out, "<td class=n>%lld</td>", (long long)llround(v));
}

/* column key of t, -1 when it has none */
static int html_col(const struct kmt_table *t, const char *metric,
		    const char *side)
{
	char key[128];

	snprintf(key, sizeof(key), "%s.%s", metric, side);
	return kmt_table_col(t, key);
}

/* a row's figure, 0 when the column is missing */
static double html_val(const union kmt_val *row, int c)
{
	return c >= 0 ? row[c].d : 0;
}

/* one dimension's table of the comparison, every figure of both sides */
static int html_table(const struct kmt_diff *d, const struct kmt_table *t,
		      FILE *out)
{
	size_t nr_metrics = kmt_diff_nr_metrics(d), i, m;
	int kind = kmt_table_col(t, "kind"), name = kmt_table_col(t, "name");
	int in = kmt_table_col(t, "in");
	union kmt_val *buf = calloc(t->ncols ? t->ncols : 1, sizeof(*buf));

	if (!buf)
		return -1;
	for (i = 0; i < t->nrows; i++) {
		const union kmt_val *r = kmt_table_row(t, i, buf);
		const char *where = r[in].str;

		fputs("<tr><td>", out);
		kmt_render_html_text(r[kind].str, out);
		fputs("</td><td>", out);
		kmt_render_html_text(r[name].str, out);
		fprintf(out, "</td><td>%s</td>", !strcmp(where, "both") ? "both" :
			!strcmp(where, "a") ? "only in A" : "only in B");
		for (m = 0; m < nr_metrics; m++) {
			int flow;
			const char *mn = kmt_diff_metric(d, m, &flow);
			int rate = kmt_diff_rates(d) && flow;
			double a = html_val(r, html_col(t, mn, "a"));
			double b = html_val(r, html_col(t, mn, "b"));

			html_num(a, rate, out);
			html_num(b, rate, out);
			fprintf(out, "<td class=\"n %s\">", b > a ? "up" :
				b < a ? "down" : "");
			if (rate)
				fprintf(out, "%+.3f</td>", b - a);
			else
				fprintf(out, "%+lld</td>", llround(b) - llround(a));
		}
		fputs("</tr>\n", out);
	}
	free(buf);
	return 0;
}

/*
 * The comparison as one page, to attach to a bug report: every table
 * with every figure, nothing fetched, no script (the rows come sorted
 * by the growth of the sort key).
 */
static int draw_html(const struct kmt_diff *d, const struct kmt_report *rep,
		     FILE *out)
{
	size_t dim, m;
	int w;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
	      "'none'; style-src 'unsafe-inline'\">\n<title>kmemtrace diff</title>\n"
	      "<style>body{font:14px sans-serif;margin:1em 2em}"
	      "table{border-collapse:collapse;margin-bottom:1.5em}"
	      "th,td{padding:1px 8px;border-bottom:1px solid #eee;text-align:left}"
	      ".n{text-align:right;font-variant-numeric:tabular-nums}"
	      ".up{color:#a00}.down{color:#070}</style>\n</head>\n<body>\n"
	      "<h1>kmemtrace diff</h1>\n<table id=\"kmt-sides\">", out);
	for (w = 0; w < 2; w++) {
		fprintf(out, "<tr><th>%s</th><td>", w ? "B" : "A");
		kmt_render_html_text(kmt_diff_path(d, w), out);
		if (kmt_diff_span(d, w) > 0)
			fprintf(out, " (%.6f s)", kmt_diff_span(d, w));
		fputs("</td></tr>", out);
	}
	fputs("</table>\n", out);
	if (kmt_diff_rates(d))
		fputs("<p>The spans differ: allocations, bytes and waste are compared "
		      "per second; what is live at the end as it is.</p>\n", out);
	for (dim = 0; dim < kmt_diff_nr_dims(d); dim++) {
		const char *name = kmt_diff_dim(d, dim);
		const struct kmt_section *sec = kmt_report_section(rep, "", name);
		int has_a = kmt_diff_has(d, 0, dim), has_b = kmt_diff_has(d, 1, dim);

		if (!sec || sec->kind != KMT_SEC_TABLE)
			continue;
		fprintf(out, "<h2>By %s, sorted by the growth of %s</h2>\n",
			name, kmt_diff_sort_title(d, dim));
		if (has_a != has_b)
			fprintf(out, "<p>not in %s</p>\n", has_a ? "B" : "A");
		fprintf(out, "<table id=\"kmt-%s\"><tr><th>Kind</th><th>Name</th>"
			"<th>In</th>", name);
		for (m = 0; m < kmt_diff_nr_metrics(d); m++) {
			const char *mn = kmt_diff_metric(d, m, NULL);

			fprintf(out, "<th class=n>%s A</th><th class=n>%s B</th>"
				"<th class=n>B - A</th>", mn, mn);
		}
		fputs("</tr>\n", out);
		if (html_table(d, &sec->table, out))
			return -1;
		fputs("</table>\n", out);
	}
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? -1 : 0;
}

static void list_metrics_of(enum kmt_diff_what what, FILE *out, int help)
{
	const char *name;
	size_t m;

	if (help)
		fputs("\nsort keys (-s):", out);
	for (m = 0; (name = kmt_diff_key_name(what, m)); m++)
		fprintf(out, help ? " %s" : "%s\n", name);
	if (help)
		fputc('\n', out);
}

static void list_metrics(FILE *out, int help)
{
	list_metrics_of(KMT_DIFF_RECORDINGS, out, help);
}

/*
 * Both sides' profiles in one pprof profile, as `go tool pprof
 * -diff_base A B` makes it (lib's kmt_diff_pprof): the exit status.
 */
static int compare_pprof(char **paths, const struct kmt_diff_spec *ds,
			 const char *output)
{
	struct kmt_diff_spec spec = *ds;
	enum kmt_run_status st;
	struct kmt_report rep;
	struct kmt_diff *d;
	char tmp[4096], msg[1024];
	FILE *out;
	int ret, i;

	for (i = 0; i < 2; i++) {
		if (kmt_diff_is_saved(paths[i]))
			return kmt_usage_error("--pprof compares recordings: '%s' "
					       "is a saved report, which keeps no "
					       "allocation profile", paths[i]);
	}
	if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-"))
		return kmt_usage_error("only one of A and B can be the standard input");
	spec.what = KMT_DIFF_PROFILES;
	d = kmt_diff_create(&spec, &st, msg, sizeof(msg));
	if (!d)
		return kmt_run_exit(st, 0, msg);
	ret = load_sides(d, paths);
	if (ret)
		goto out;
	out = kmt_open_output_whole(output, tmp, sizeof(tmp));
	if (!out) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
				strerror(errno));
		goto out;
	}
	kmt_report_init(&rep);
	errno = 0;
	ret = kmt_diff_pprof(d, &rep);
	if (ret)
		errno = ENOMEM;
	else
		ret = kmt_render_pprof(&rep, out);
	kmt_report_free(&rep);
	ret = kmt_close_output_whole(out, output, tmp,
				     ret ? (errno ? errno : EIO) : 0);
out:
	kmt_diff_free(d);
	return ret;
}

/*
 * Compares the inputs A and B as spec says and draws the comparison
 * with rd, or as the HTML page (rd NULL): the exit status.
 */
static int compare(const struct kmt_diff_spec *spec, char **paths,
		   const struct kmt_renderer *rd, const char *output)
{
	enum kmt_run_status st;
	struct kmt_report rep;
	struct kmt_diff *d;
	char tmp[4096], msg[1024];
	FILE *out;
	int ret;

	d = kmt_diff_create(spec, &st, msg, sizeof(msg));
	if (!d)
		return kmt_run_exit(st, 0, msg);
	if (!strcmp(paths[0], "-") && !strcmp(paths[1], "-")) {
		kmt_diff_free(d);
		return kmt_usage_error("only one of A and B can be the standard input");
	}
	ret = load_sides(d, paths);
	if (ret)
		goto out;
	/* the comparison is made whole before anything is written */
	kmt_report_init(&rep);
	if (kmt_diff_report(d, &rep)) {
		kmt_report_free(&rep);
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	/* a page is never left half written */
	out = !rd ? kmt_open_output_whole(output, tmp, sizeof(tmp)) :
		    kmt_open_output(output);
	if (!out) {
		kmt_report_free(&rep);
		ret = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
				strerror(errno));
		goto out;
	}
	errno = 0;
	ret = !rd ? draw_html(d, &rep, out) : rd->render(&rep, out);
	kmt_report_free(&rep);
	ret = !rd ?
	      kmt_close_output_whole(out, output, tmp, ret ? (errno ? errno : EIO) : 0) :
	      kmt_close_output(out, output, ret ? (errno ? errno : EIO) : 0);
out:
	kmt_diff_free(d);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	const char *output = NULL, *sort = NULL, *save = NULL;
	struct kmt_diff_spec ps = { KMT_DIFF_RECORDINGS, NULL, 0, 0, NULL, NULL, NULL };
	const char *html = NULL, *pprof = NULL, *format = NULL;
	const struct kmt_renderer *rd = NULL;
	int json = 0, lines = 0, nargs, code;
	const struct kmt_option options[] = {
		OPT_GROUP("what is compared"),
		OPT_WORDS('s', "sort", &sort, "key", list_metrics,
			  "the figure shown and sorted by its growth (listed below; "
			  "default bytes)"),
		OPT_DURATION(0, "older-than", &ps.older_than, "duration", 0,
			   "recordings: live at the end means alive at least this "
			   "long (leaked)"),
		OPT_STRING(0, "time", &ps.time, "start,end",
			   "recordings: only events in this window (as report --time)"),
		OPT_STRING(0, "comm", &ps.comm, "list",
			   "recordings: only these command names (as report --comm)"),
		OPT_STRING(0, "pid", &ps.pid, "list",
			   "recordings: only these processes (as report --pid)"),
		OPT_GROUP("output"),
		OPT_INT('l', "limit", &lines, "n", 0, INT_MAX,
			"print at most n rows per table (0: all, the default)"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats,
			  "output format: text (the default), json, csv or ndjson"),
		OPT_BOOL(0, "json", &json, "JSON: every row with every figure (--format json)"),
		OPT_OUTPUT(0, "html", &html, "file",
			   "a page with every table and figure, to attach to a report"),
		OPT_OUTPUT(0, "pprof", &pprof, "file",
			   "recordings: both allocation profiles in one gzipped "
			   "pprof profile, A as the base (go tool pprof -top <file> "
			   "shows B minus A)"),
		OPT_OUTPUT('o', "output", &output, "file",
			   "write the comparison to <file> ('-': stdout, the default)"),
		OPT_OUTPUT(0, "save", &save, "file",
			   "write the recording's report as a JSON baseline to "
			   "<file>, to compare later without the recording"),
		OPT_END(),
	};
	nargs = kmt_parse_options(argc, argv, options, diff_usage, 0);
	if (save) {
		if (nargs != 1)
			return kmt_usage_error("--save takes one recording, not %d "
					       "inputs", nargs);
		if (json || format || html || pprof || output || sort || lines)
			return kmt_usage_error("--save writes the baseline alone");
		if (kmt_diff_is_saved(argv[0]))
			return kmt_usage_error("'%s' is already a saved report",
					       argv[0]);
		return save_report(argv[0], save, &ps);
	}
	if (nargs != 2)
		return kmt_usage_error("two inputs to compare, A and B, not %d",
				       nargs);
	if (html && (json || format || output))
		return kmt_usage_error("--html names its file: no --json, --format "
				       "or -o with it");
	if (pprof) {
		if (html || json || format || output || sort || lines)
			return kmt_usage_error("--pprof names its file and holds "
					       "every sample: no --html, --json, "
					       "-o, -s or -l with it");
		return compare_pprof(argv, &ps, pprof);
	}
	if (!html) {
		code = kmt_choose_section_format(format, json, &rd);
		if (code)
			return code;
	}
	ps.sort = sort;
	ps.lines = lines;
	return compare(&ps, argv, rd,
		       html ? html : output);
}

static const char *const pageowner_diff_usage[] = {
	"kmemtrace pageowner --diff [-s pages|records] [-l N] [--format F] [-o <file>] <A> <B>",
	NULL
};

static void list_pageowner_metrics(FILE *out, int help)
{
	list_metrics_of(KMT_DIFF_PAGEOWNER, out, help);
}

int cmd_pageowner_diff(int argc, char **argv)
{
	const char *output = NULL, *sort = NULL;
	struct kmt_diff_spec ps = { KMT_DIFF_PAGEOWNER, NULL, 0, 0, NULL, NULL, NULL };
	const char *format = NULL;
	const struct kmt_renderer *rd;
	int json = 0, lines = 0, diff = 0, nargs, code;
	const struct kmt_option options[] = {
		OPT_BOOL(0, "diff", &diff, "compare two dumps, or saved --json "
			 "outputs of them: pages and records per stack, "
			 "allocator and memcg"),
		OPT_WORDS('s', "sort", &sort, "key", list_pageowner_metrics,
			  "the figure shown and sorted by its growth (default pages)"),
		OPT_INT('l', "limit", &lines, "n", 0, INT_MAX,
			"print at most n rows per table (0: all, the default)"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats,
			  "output format: text (the default), json, csv or ndjson"),
		OPT_BOOL(0, "json", &json, "JSON: every row with every figure (--format json)"),
		OPT_OUTPUT('o', "output", &output, "file",
			   "write the comparison to <file> ('-': stdout, the default)"),
		OPT_END(),
	};

	nargs = kmt_parse_options(argc, argv, options, pageowner_diff_usage, 0);
	if (nargs != 2)
		return kmt_usage_error("--diff compares two dumps, A and B, not %d",
				       nargs);
	code = kmt_choose_section_format(format, json, &rd);
	if (code)
		return code;
	ps.sort = sort;
	ps.lines = lines;
	return compare(&ps, argv, rd, output);
}
