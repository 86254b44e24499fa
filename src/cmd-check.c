// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace check: is a recording whole?  Reads it through the same
 * readers as report, with lib/analysis/check.c watching that each CPU's
 * events go forward in time, and draws its verdict (report sections:
 * "key: value" lines in text) through the renderer --format names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/check.h"
#include "builtin.h"
#include "event/session.h"
#include "options.h"
#include "render/render.h"
#include "report/report.h"
#include "source/source.h"

static const char *const check_usage[] = {
	"kmemtrace check [--format <name> | --json] [--host <name>] [-o <file>] [-i] [<file>]",
	NULL
};

int cmd_check(int argc, char **argv)
{
	const char *input = NULL, *output = NULL, *format = NULL, *host = NULL;
	int json = 0;
	const struct kmt_option options[] = {
		OPT_STRING('i', "input", &input, "file",
			   "the recording, '-' for stdin (default: kmemtrace.dat, "
			   "or stdin when it is a pipe)"),
		OPT_OUTPUT('o', "output", &output, "file",
			   "write the verdict to <file> ('-': stdout, the default)"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats,
			  "output format (listed below; default text)"),
		OPT_BOOL(0, "json", &json, "print one JSON object (--format json)"),
		OPT_STRING(0, "host", &host, "name",
			   "ndjson: the host name every row carries (default: the "
			   "recording's, where it says it)"),
		OPT_END()
	};
	const struct kmt_renderer *rd = NULL;
	struct kmt_check_verdict v;
	struct kmt_session s;
	struct kmt_report r;
	struct kmt_check c;
	int nargs, ret, code, unwritten;
	char msg[256];
	FILE *out;

	nargs = kmt_parse_options(argc, argv, options, check_usage, 0);
	if (nargs > 1)
		return kmt_usage_error("one recording at a time, not '%s' and '%s'",
				       argv[0], argv[1]);
	code = kmt_choose_section_format(format, json, &rd);
	if (code)
		return code;
	code = kmt_choose_input(input, nargs ? argv[0] : NULL, "kmemtrace.dat",
				"give -i FILE", &input, msg, sizeof(msg));
	if (code == KMT_EXIT_INPUT)
		return kmt_error(code, "%s", msg);
	if (code)
		return code;
	if (kmt_session_init(&s))
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	kmt_check_init(&c);
	kmt_report_init(&r);
	s.consumer = kmt_check_event;
	s.consumer_ctx = &c;

	ret = kmt_source_read_file(&s, input);
	if (ret && c.oom)
		ret = kmt_session_error(&s, ENOMEM, "out of memory");
	if (ret && (!s.format || ret == -ENOMEM)) {
		/* not a recording at all, or no verdict: nothing to list */
		code = kmt_error(kmt_read_exit(ret), "%s", s.errmsg);
		goto out;
	}

	if (s.kcounters_damaged[0])
		kmt_warning("%s", s.kcounters_damaged);
	kmt_check_verdict(&c, &s, ret, &v);
	/* the sections alone; the meta gives ndjson's rows their origin */
	kmt_analysis_meta(&r, &s);
	r.meta.bare = 1;
	if (host)
		r.meta.host = host;
	if (kmt_check_report(&r, &s, input, &v, ret ? s.errmsg : NULL)) {
		code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}

	out = kmt_open_output(output);
	if (!out) {
		code = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 output, strerror(errno));
		goto out;
	}
	/* a failure that is no write error is the renderer's memory */
	unwritten = rd->render(&r, out) && !ferror(out);
	/* the verdict carries the error in JSON: one object on stdout */
	kmt_errors_as_json(0);
	if (ret)
		kmt_error(KMT_EXIT_INPUT, "%s", s.errmsg);
	code = kmt_close_output(out, output, 0);
	if (!code && unwritten)
		code = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	else if (!code && v.damaged)
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
	kmt_report_free(&r);
	kmt_check_free(&c);
	kmt_session_free(&s);
	return code;
}
