// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace pageowner: page_owner_sort's job, streaming.  The options and
 * the text of page_owner_sort are kept so that its users' scripts go on
 * working; the summary and the other formats are new.  The analysis makes
 * the report (lib/analysis/pageowner.c), a renderer draws it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/pageowner.h"
#include "builtin.h"
#include "options.h"
#include "render/render.h"
#include "report/report.h"
#include "source/pageowner.h"
#include "run/pageowner.h"
#include "source/source.h"
#include "util/array.h"
#include "util/strbuf.h"

#define PAGE_OWNER_PATH KMT_PO_PAGE_OWNER_PATH
#define SHOW_STACKS_PATH KMT_PO_SHOW_STACKS_PATH

static const char *const pageowner_usage[] = {
	"kmemtrace pageowner [<options>] [-i <input>] [-o <output>]",
	"kmemtrace pageowner [<options>] [<input> [<output>]]",
	NULL
};

/* the formats pageowner draws: the renderers of its sections */


struct po_cmd {
	const char *input, *display, *output;
	int json, summary, debug, limit, threads;
	unsigned int cull;
	int filter_pid, filter_tgid, filter_name;
	struct kmt_po_sortkey keys[KMT_PO_MAX_SORTKEYS];
	int nr_keys;
	struct kmt_po_analysis a;
	struct kmt_report r;	/* what is drawn of a */
};

/* a record the read skipped: -d tells each, else the first few */
static void say_warning(void *ctx, const char *text)
{
	(void)ctx;
	kmt_warning("%s", text);
}

/* the dump into c->a: the exit status, the message said */
static int read_input(struct po_cmd *c)
{
	struct kmt_po_run run = {
		.input = c->input, .threads = c->threads, .in_order = c->debug,
		.on_malformed = c->debug ? say_warning : NULL,
	};
	enum kmt_run_status st = kmt_po_run_read(&run, &c->a);

	c->display = run.display;
	return kmt_run_exit(st, run.read_err, run.errmsg);
}

/* --- options --- */

static int split_names(const char *spec, char ***names, size_t *nr)
{
	size_t alloc = 0;
	const char *p = spec;

	*names = NULL;
	*nr = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (KMT_ARRAY_GROW(*names, *nr + 1, alloc))
			return -ENOMEM;
		(*names)[*nr] = strndup(p, len);
		if (!(*names)[*nr])
			return -ENOMEM;
		(*nr)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* --- reading a regular file in parts, a thread a part --- */

/* the records skipped, unless -d told each as it was read */
static void warn_malformed(const struct po_cmd *c)
{
	if (!c->debug)
		kmt_po_run_skipped(&c->a, c->display, say_warning, NULL);
}

/* the keys of --sort and --cull, for -h (help) and completion */
static void list_keys(FILE *out, int help, int cull)
{
	const char *name, *abbrev;
	struct kmt_sb line = KMT_SB_INIT;
	size_t i;

	if (help)
		fprintf(out, cull ? "cull keys (--cull):\n" :
			"\nsort keys (--sort), [+|-]key,... ('-': descending):\n");
	for (i = 0; (name = cull ? kmt_po_cull_key_name(i, &abbrev) :
			      kmt_po_sort_key_name(i, &abbrev)); i++) {
		if (!help)
			fprintf(out, "%s\n", name);
		else if (abbrev)
			kmt_sb_addf(&line, "%s%s (%s)", i ? ", " : "", name,
				    abbrev);
		else
			kmt_sb_addf(&line, "%s%s", i ? ", " : "", name);
	}
	if (help)
		kmt_help_wrap(out, "", 4, line.oom ? "" : kmt_sb_str(&line));
	kmt_sb_release(&line);
}

static void list_sort_keys(FILE *out, int help)
{
	list_keys(out, help, 0);
}

static void list_cull_keys(FILE *out, int help)
{
	list_keys(out, help, 1);
}


/* makes the report of c->a in c->r and draws it; the exit status */
static int draw(struct po_cmd *c, const struct kmt_renderer *rd,
		const char *host)
{
	struct kmt_po_report_opts o = {
		.input = c->display, .keys = c->keys, .nr_keys = c->nr_keys,
		.limit = (size_t)c->limit,
		/* the formats for programs always hold the totals */
		.totals = c->summary || strcmp(rd->name, "text"),
		.pid = c->filter_pid, .tgid = c->filter_tgid,
		.name = c->filter_name,
	};
	int err;
	FILE *out;

	/* the output is the sections alone, as page_owner_sort's */
	c->r.meta.bare = 1;
	if (kmt_po_report(&c->a, &c->r, &o))
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	if (host)
		c->r.meta.host = host;
	out = kmt_open_output(c->output);
	if (!out)
		return kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 c->output, strerror(errno));
	/* page_owner_sort's output is as big as its input: write in big blocks */
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	errno = 0;
	err = rd->render(&c->r, out) ? (errno ? errno : EIO) : 0;
	if (kmt_po_report_short(&c->a)) {
		if (out != stdout)
			fclose(out);
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory writing the groups");
	}
	return kmt_close_output(out, c->output, err);
}

int cmd_pageowner(int argc, char **argv)
{
	int sort_a = 0, sort_m = 0, sort_n = 0, sort_p = 0, sort_P = 0;
	int sort_s = 0, sort_t = 0, stacks = 0, nr_flags, nargs, ret;
	const char *pid_spec = NULL, *tgid_spec = NULL, *name_spec = NULL;
	const char *cull_spec = NULL, *sort_spec = NULL, *input = NULL;
	const char *format = NULL, *host = NULL;
	const struct kmt_renderer *rd;
	struct kmt_po_options opt;
	struct po_cmd c;
	int32_t *pids = NULL, *tgids = NULL;
	char **names = NULL;
	size_t nr_pids = 0, nr_tgids = 0, nr_names = 0, i;
	char err[512];
	int diff = 0;
	const struct kmt_option options[] = {
		OPT_BOOL(0, "diff", &diff,
			 "compare two dumps A and B (or saved --json outputs): pages "
			 "and records per stack, allocator and memcg; -s pages|records, "
			 "-l, --json and -o go with it"),
		OPT_GROUP("input and output (or page_owner_sort's <input> <output>)"),
		OPT_STRING('i', "input", &input, "file",
			   "the dump, '-' for stdin (default: " PAGE_OWNER_PATH
			   ", or stdin when it is a pipe)"),
		OPT_OUTPUT('o', "output", &c.output, "file",
			   "write to <file> ('-': stdout, the default)"),
		OPT_BOOL(0, "stacks", &stacks,
			 "read " SHOW_STACKS_PATH " when no input is given"),
		OPT_GROUP("sorting (page_owner_sort's switches; one of them)"),
		OPT_BOOL('a', NULL, &sort_a, "by allocation time; timestamps join a record's identity"),
		OPT_BOOL('m', NULL, &sort_m, "by total memory (pages), largest first"),
		OPT_BOOL('n', NULL, &sort_n, "by task name"),
		OPT_BOOL('p', NULL, &sort_p, "by pid"),
		OPT_BOOL('P', NULL, &sort_P, "by tgid"),
		OPT_BOOL('s', NULL, &sort_s, "by stack trace"),
		OPT_BOOL('t', NULL, &sort_t, "by times seen, most first (the default)"),
		OPT_WORDS(0, "sort", &sort_spec, "keys", list_sort_keys,
			  "sort by these keys (listed below)"),
		OPT_GROUP("selecting and culling"),
		OPT_LIST(0, "pid", &pid_spec, "pids", "only records of these pids"),
		OPT_LIST(0, "tgid", &tgid_spec, "tgids", "only records of these tgids"),
		OPT_LIST(0, "name", &name_spec, "names", "only records of these task names"),
		OPT_LIST_WORDS(0, "cull", &cull_spec, "keys", list_cull_keys,
			       "group by these keys (listed below)"),
		OPT_GROUP("output"),
		OPT_INT('l', "limit", &c.limit, "n", 0, INT_MAX,
			"print the first n groups only (0: all, the default)"),
		OPT_ALIAS("line", &c.limit),
		OPT_BOOL(0, "summary", &c.summary,
			 "totals by allocator class, migratetype, order and memcg first"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats,
			  "output format (listed below; default text; json, csv "
			  "and ndjson hold the totals too)"),
		OPT_BOOL(0, "json", &c.json, "write JSON (--format json)"),
		OPT_STRING(0, "host", &host, "name",
			   "ndjson: the host name every row carries (default: this "
			   "machine's for a dump read from debugfs)"),
		OPT_BOOL('d', NULL, &c.debug, "report every malformed record as it is read"),
		OPT_INT(0, "threads", &c.threads, "n", 0, KMT_PO_MAX_THREADS,
			"threads to use: a regular file is read in n parts at once "
			"(0, the default: one a CPU, up to 4, for files of 16 MiB and more)"),
		OPT_END(),
	};

	memset(&c, 0, sizeof(c));
	kmt_report_init(&c.r);
	/* --diff is a mode of its own, with its own options (cmd-diff.c) */
	for (i = 1; i < (size_t)argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--diff"))
			return cmd_pageowner_diff(argc, argv);
	}
	(void)diff;
#ifdef M_MMAP_THRESHOLD
	/*
	 * The group arrays grow by doubling to tens of megabytes.  Kept in
	 * mappings of their own (not the heap, where glibc puts blocks up
	 * to 32 MiB once a few were freed), realloc moves them without a
	 * copy and free gives them back: less peak memory.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
	nargs = kmt_parse_options(argc, argv, options, pageowner_usage, 0);
	/* page_owner_sort's <input> <output>, or -i and -o: not both */
	if (nargs > 2)
		return kmt_usage_error("too many arguments: one input and one output at most");
	if (nargs == 2 && c.output)
		return kmt_usage_error("the output given twice, as -o '%s' and as '%s'",
				       c.output, argv[1]);
	if (nargs == 2)
		c.output = argv[1];
	ret = kmt_choose_section_format(format, c.json, &rd);
	if (ret)
		return ret;
	ret = kmt_choose_input(input, nargs ? argv[0] : NULL,
			       stacks ? SHOW_STACKS_PATH : PAGE_OWNER_PATH,
			       "mount debugfs and boot with page_owner=on, or give -i FILE",
			       &c.input, err, sizeof(err));
	if (ret == KMT_EXIT_INPUT)
		return kmt_error(ret, "%s", err);
	if (ret)
		return ret;
	c.display = c.input;

	nr_flags = sort_a + sort_m + sort_n + sort_p + sort_P + sort_s + sort_t;
	if (nr_flags > 1)
		return kmt_usage_error("only one of -a, -m, -n, -p, -P, -s and -t can be given");
	if (nr_flags && sort_spec)
		return kmt_usage_error("--sort and the sort switches (-a, -m, -n, -p, -P, -s, -t) exclude each other");
	if (sort_spec) {
		if (kmt_po_parse_sort(sort_spec, c.keys, &c.nr_keys, err,
				      sizeof(err)))
			return kmt_usage_error("%s", err);
	} else {
		c.nr_keys = 1;
		c.keys[0].desc = 0;
		if (sort_a)
			c.keys[0].key = KMT_PO_KEY_ALLOC_TS;
		else if (sort_m)
			c.keys[0] = (struct kmt_po_sortkey){ KMT_PO_KEY_PAGES, 1 };
		else if (sort_n)
			c.keys[0].key = KMT_PO_KEY_NAME;
		else if (sort_p)
			c.keys[0].key = KMT_PO_KEY_PID;
		else if (sort_P)
			c.keys[0].key = KMT_PO_KEY_TGID;
		else if (sort_s)
			c.keys[0].key = KMT_PO_KEY_STACK;
		else
			c.keys[0] = (struct kmt_po_sortkey){ KMT_PO_KEY_TIMES, 1 };
	}
	if (cull_spec && kmt_po_parse_cull(cull_spec, &c.cull, err,
					   sizeof(err)))
		return kmt_usage_error("%s", err);
	if (pid_spec && kmt_po_parse_ids(pid_spec, &pids, &nr_pids))
		return kmt_usage_error("option '--pid' needs a list of numbers, not '%s'",
				       pid_spec);
	if (tgid_spec && kmt_po_parse_ids(tgid_spec, &tgids, &nr_tgids)) {
		free(pids);
		return kmt_usage_error("option '--tgid' needs a list of numbers, not '%s'",
				       tgid_spec);
	}
	if (name_spec && split_names(name_spec, &names, &nr_names)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}
	c.filter_pid = pid_spec != NULL;
	c.filter_tgid = tgid_spec != NULL;
	c.filter_name = name_spec != NULL;

	memset(&opt, 0, sizeof(opt));
	opt.cull = c.cull;
	opt.ts_in_key = c.keys[0].key == KMT_PO_KEY_ALLOC_TS;
	opt.pids = pids;
	opt.nr_pids = nr_pids;
	opt.tgids = tgids;
	opt.nr_tgids = nr_tgids;
	opt.names = (const char *const *)names;
	opt.nr_names = nr_names;
	if (kmt_po_analysis_init(&c.a, &opt)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}

	/*
	 * A dump read from debugfs is of this machine, as it is now: the
	 * ndjson rows say whose and when
	 */
	if (!strcmp(c.input, PAGE_OWNER_PATH) ||
	    !strcmp(c.input, SHOW_STACKS_PATH))
		kmt_report_meta_here(&c.r, c.input, "page_owner");
	ret = read_input(&c);
	if (ret)
		goto out;
	if (c.a.kind == KMT_PO_STACKS &&
	    ((c.cull & (KMT_PO_CULL_PID | KMT_PO_CULL_TGID | KMT_PO_CULL_NAME)) ||
	     pids || tgids || names)) {
		ret = kmt_error(KMT_EXIT_INPUT, "'%s' holds page_owner_stacks records, which carry no pid, tgid or task name",
				c.display);
		goto out;
	}
	warn_malformed(&c);
	if (kmt_po_analysis_finish(&c.a)) {
		ret = kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		goto out;
	}

	ret = draw(&c, rd, host);

out:
	kmt_report_free(&c.r);
	kmt_po_analysis_free(&c.a);
	free(pids);
	free(tgids);
	for (i = 0; i < nr_names; i++)
		free(names[i]);
	free(names);
	return ret;
}
