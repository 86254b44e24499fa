// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace top: who allocates kernel memory right now, by callsite, slab
 * cache, process or stack, as slabtop and top show theirs.  The counting
 * happens in the kernel (bpf/kmt.bpf.c); every refresh reads the maps.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "bpf-run.h"
#include "bpf/cgroups.h"
#include "bpf/names.h"
#include "bpf/top.h"
#include "builtin.h"
#include "live-out.h"
#include "options.h"
#include "render/render.h"
#include "report/report.h"

static const char *const top_usage[] = {
	"kmemtrace top [<options>] [-a | -p <pid>,... | [--follow] -- <command> [<args>...]]",
	NULL
};

/* the interactive keys: one per view, one per sort column */
static const struct {
	char key;
	enum kmt_top_col col;
} sort_keys[] = {
	{ 'a', KMT_TOP_ALLOCS }, { 'f', KMT_TOP_FREES },
	{ 'b', KMT_TOP_BYTES }, { 'o', KMT_TOP_LIVE },
	{ 'l', KMT_TOP_LIVE_BYTES }, { 'g', KMT_TOP_GROWTH },
	{ 'w', KMT_TOP_WASTE }, { 'p', KMT_TOP_PAGES },
};

static const struct {
	char key;
	enum kmt_top_view view;
} view_keys[] = {
	{ 'c', KMT_TOP_CALLSITE }, { 'k', KMT_TOP_CACHE },
	{ 'P', KMT_TOP_PROCESS }, { 's', KMT_TOP_STACK },
	{ 'C', KMT_TOP_CGROUP },
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

struct top_out {
	struct kmt_top *t;
	struct bpf_run *run;
	struct live_out lo;
	enum kmt_top_view view;
	enum kmt_top_col sort;
	int limit;		/* rows; 0: all */
	int width;		/* characters a line; 0: no limit */
	int interactive;
	int cgroups;		/* counted by cgroup: the cgroup view */
	const char *target;
};

/*
 * The refresh as a report r, for the batch output or a screen of rows
 * (rows > 0); free it with kmt_report_free.  0, or -1 (errno ENOMEM).
 */
static int make_report(struct top_out *o, struct kmt_report *r, int rows)
{
	struct kmt_top_show sh = {
		.view = o->view, .sort = o->sort, .target = o->target,
		.limit = (size_t)(rows > 0 ? rows : o->limit),
		.screen = rows > 0,
	};
	struct kmt_section *head;
	struct kmt_sum_item keys = {
		.kind = KMT_SUM_NOTE,
		.label = "keys: q quit; views c callsite, k cache, P process, s stack (C cgroup with --view cgroup); sort a f b o l g w p",
	};

	live_out_report(&o->lo, r);
	if (kmt_top_report(o->t, &sh, r))
		goto oom;
	/* the screen's keys, under the header */
	head = kmt_report_section(r, "", "refresh");
	if (rows > 0 && (!head || kmt_summary_add(&head->summary, &keys)))
		goto oom;
	return 0;
oom:
	errno = ENOMEM;
	return -1;
}

/*
 * The text of a screen, each line cut to the terminal's width and
 * cleared to its end: the screen is drawn over the last one
 */
static int put_screen(const struct top_out *o, const struct kmt_report *r)
{
	char *text = NULL, *line, *nl;
	size_t len = 0, n;
	FILE *m = open_memstream(&text, &len);
	int ret;

	if (!m)
		return -1;
	ret = kmt_renderer_find("text")->render(r, m);
	if (fclose(m) || ret) {
		free(text);
		return -1;
	}
	for (line = text; (nl = memchr(line, '\n', len - (line - text)));
	     line = nl + 1) {
		n = (size_t)(nl - line);
		if (o->width > 0 && n > (size_t)o->width)
			n = (size_t)o->width;
		fwrite(line, 1, n, o->lo.f);
		fputs("\033[K\r\n", o->lo.f);
	}
	free(text);
	return 0;
}

/* the terminal as it was, put back on every way out */
struct term {
	struct termios saved;
	int raw;
};

static void term_raw(struct term *tm)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &tm->saved))
		return;
	t = tm->saved;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSANOW, &t))
		tm->raw = 1;
	/* the alternate screen, as top uses: the shell's text comes back */
	fputs("\033[?1049h\033[?25l", stdout);
}

static void term_restore(struct term *tm)
{
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (tm->raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &tm->saved);
	tm->raw = 0;
}

/* 0, or -1 (errno) */
static int draw(struct top_out *o)
{
	struct kmt_report r;
	struct winsize ws;
	int rows = 24, ret;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row) {
		rows = ws.ws_row;
		o->width = ws.ws_col;
	}
	/*
	 * the header takes 8 lines (9 with the tracepoints not traced) and
	 * the column titles 1
	 */
	ret = make_report(o, &r, rows - 10 > 1 ? rows - 10 : 1);
	if (!ret) {
		fputs("\033[H", o->lo.f);
		ret = put_screen(o, &r);
		fputs("\033[J", o->lo.f);
		fflush(o->lo.f);
	}
	kmt_report_free(&r);
	return ret;
}

/* a refresh in the batch output; 0, or -1 (errno) */
static int print_refresh(struct top_out *o)
{
	struct kmt_report r;
	int ret = make_report(o, &r, 0);

	if (!ret)
		ret = live_out_draw(&o->lo, &r);
	kmt_report_free(&r);
	return ret;
}

/* one key: 1 when the view or the order changed, -1 to quit */
static int on_key(struct top_out *o, char c)
{
	size_t i;

	if (c == 'q' || c == 'Q')
		return -1;
	for (i = 0; i < NR(sort_keys); i++) {
		if (c == sort_keys[i].key) {
			o->sort = sort_keys[i].col;
			return 1;
		}
	}
	for (i = 0; i < NR(view_keys); i++) {
		if (c == view_keys[i].key &&
		    (view_keys[i].view != KMT_TOP_CGROUP || o->cgroups)) {
			o->view = view_keys[i].view;
			return 1;
		}
	}
	if (c == '\t' || c == 'v') {
		o->view = (o->view + 1) % KMT_TOP_NR_VIEWS;
		/* the cgroups are counted only when asked at the start */
		if (o->view == KMT_TOP_CGROUP && !o->cgroups)
			o->view = (o->view + 1) % KMT_TOP_NR_VIEWS;
		return 1;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	return target_now();
}

int cmd_top(int argc, char **argv)
{
	const char *view_arg = "callsite", *sort_arg = NULL;
	const char *output = NULL, *format = NULL, *host = NULL;
	int sites_max = 65536, live_max = 65536, stacks_max = 8192, sample = 64;
	int batch = 0, iterations = 0, json = 0, limit = 20, no_stacks = 0;
	uint64_t delay = 2000000000ULL;
	struct bpf_run run = { .name = "top" };
	const struct kmt_option options[] = {
		OPT_DURATION_MIN('d', "delay", &delay, "duration", 50000000,
				 "refresh every <duration> (default 2s, at least 50ms)"),
		OPT_BOOL('b', "batch", &batch, "batch mode: print refreshes as text, no terminal"),
		OPT_INT('n', "iterations", &iterations, "n", 0, INT_MAX, "stop after <n> refreshes (0: never)"),
		OPT_STRING(0, "view", &view_arg, "view", "callsite (default), cache, process, stack or cgroup (memory cgroups: counted only when asked at the start)"),
		OPT_STRING('s', "sort", &sort_arg, "column", "allocs, frees, bytes (default), live, live-bytes, growth, waste, pages"),
		OPT_INT('l', "limit", &limit, "n", 0, INT_MAX, "rows printed in batch mode (default 20; 0: all)"),
		OPT_WORDS(0, "format", &format, "name", kmt_list_section_formats, "batch mode in this format (listed below; default text)"),
		OPT_BOOL(0, "json", &json, "batch mode, one JSON object a refresh (--format json)"),
		OPT_OUTPUT('o', "output", &output, "file", "write the batch output to <file> ('-': stdout)"),
		OPT_STRING(0, "host", &host, "name", "ndjson: the host name every row carries (default: this machine's)"),
		OPT_GROUP("what to trace"),
		OPT_BOOL('a', "all-cpus", &run.t.all, "the whole system (the default without a command)"),
		OPT_STRING('p', "pid", &run.t.pid_list, "pid,...", "only these processes"),
		OPT_STRING(0, "comm", &run.comm, "name", "only tasks of this name"),
		OPT_BOOL(0, "follow", &run.t.follow, "with a command: only it and its children"),
		TARGET_OPT_DURATION(&run.t),
		OPT_GROUP("the in-kernel maps"),
		OPT_INT(0, "sample", &sample, "n", 1, 1 << 30, "follow 1 address in <n> for the live columns (power of two, default 64; 1: all)"),
		OPT_BOOL(0, "no-stacks", &no_stacks, "take no stacks (no stack view, no page callsites)"),
		OPT_INT(0, "sites-max", &sites_max, "n", 1, 1 << 30, "counters (callsite, cache, process) kept (default 65536)"),
		OPT_INT(0, "live-max", &live_max, "n", 1, 1 << 30, "live objects followed (default 65536)"),
		OPT_INT(0, "stacks-max", &stacks_max, "n", 1, 1 << 30, "stacks kept (default 8192)"),
		OPT_END()
	};
	struct kmt_bpf_config cfg;
	struct kmt_bpf bpf;
	struct kmt_bpf_names names;
	struct kmt_cgroups cgroups;
	struct kmt_top top;
	struct top_out o;
	struct term tm = { .raw = 0 };
	char target[256], pinned[32];
	int nargs, code, view, sort, done = 0, refreshes = 0, out_failed = 0;

	nargs = kmt_parse_options(argc, argv, options, top_usage,
				  KMT_PARSE_STOP_AT_NON_OPTION);
	code = bpf_run_check(&run, nargs, argv);
	if (code)
		return code;
	view = kmt_top_view_from_name(view_arg);
	if (view < 0) {
		return kmt_usage_error("unknown view '%s'",
			      view_arg);
	}
	sort = sort_arg ? kmt_top_col_from_name(sort_arg) : KMT_TOP_BYTES;
	if (sort < 0) {
		return kmt_usage_error("unknown sort column '%s'",
			      sort_arg);
	}
	if (sample & (sample - 1))
		return kmt_usage_error("option '--sample' needs a power of two, not '%d'",
				       sample);
	code = live_out_format(&o.lo, format, json);
	if (code)
		return code;
	if (json || output || format)
		batch = 1;
	if (!batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return kmt_usage_error("the live view needs a terminal; -b prints refreshes as text");

	memset(&cfg, 0, sizeof(cfg));
	cfg.count_sites = 1;
	cfg.track_live = 1;
	cfg.take_stacks = !no_stacks;
	cfg.sample = (uint32_t)sample;
	cfg.sites_max = (uint32_t)sites_max;
	cfg.live_max = (uint32_t)live_max;
	cfg.stacks_max = (uint32_t)stacks_max;
	cfg.stack_agg_max = cfg.stacks_max * 2;
	memset(&cgroups, 0, sizeof(cgroups));
	if (view == KMT_TOP_CGROUP) {
		if (kmt_cgroups_init(&cgroups)) {
			kmt_cgroups_free(&cgroups);
			kmt_error(KMT_EXIT_RUNTIME, "cannot count by cgroup: %s",
				  cgroups.errmsg);
			return 2;
		}
		cfg.cgroup_mode = cgroups.mode;
		cfg.count_cgroups = 1;
	}
	code = bpf_run_prepare(&run, &cfg);
	if (code)
		goto out_run;
	code = bpf_run_open(&bpf, &cfg);
	if (code)
		goto out_run;
	if (kmt_bpf_names_init(&names)) {
		kmt_error(KMT_EXIT_RUNTIME, "%s", names.sess.errmsg);
		code = 2;
		goto out_bpf;
	}
	code = live_out_open(&o.lo, output, host);
	if (code)
		goto out_names;
	bpf_run_target(&run, target, sizeof(target));
	code = bpf_run_start(&run, &bpf);
	if (code)
		goto out_file;
	/* once attached: what a script may wait for */
	if (batch)
		fprintf(stderr, "kmemtrace top: %s, live sampled 1 in %u; the maps pin %s of kernel memory\n",
			target, bpf.cfg.sample,
			bpf_run_size(pinned, sizeof(pinned),
				     (double)kmt_bpf_pinned_bytes(&bpf.cfg, bpf.nr_cpus)));
	kmt_top_init(&top, &bpf, &names, now_ns());
	if (cfg.count_cgroups)
		kmt_top_set_cgroups(&top, &cgroups);
	live_out_start(&o.lo);
	o.t = &top;
	o.run = &run;
	o.view = view;
	o.sort = sort;
	o.limit = limit;
	o.width = 0;
	o.interactive = !batch;
	o.cgroups = cfg.count_cgroups;
	o.target = target;
	if (o.interactive)
		term_raw(&tm);

	while (!done) {
		uint64_t next = target_now() + delay;
		int redraw = 0;

		/* wait for the refresh, a key, or the end */
		while (!done && !redraw) {
			uint64_t now = target_now();
			struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
			int ms;

			if (now >= next)
				break;
			ms = next - now > 50000000 ? 50 :
			     (int)((next - now) / 1000000);
			if (target_done(&run.t)) {
				done = 1;
				break;
			}
			if (o.interactive && poll(&pfd, 1, ms) > 0) {
				char c;

				if (read(STDIN_FILENO, &c, 1) == 1) {
					int k = on_key(&o, c);

					if (k < 0)
						done = 2;
					else if (k > 0 && refreshes)
						redraw = 1;
				}
			} else if (!o.interactive) {
				struct timespec ts = { 0, ms * 1000000L };

				nanosleep(&ts, NULL);
			}
		}
		if (done == 2)
			break;
		if (!redraw) {
			if (kmt_top_update(&top, now_ns())) {
				code = 2;
				break;
			}
			refreshes++;
		}
		if (kmt_top_build(&top, o.view, o.sort)) {
			code = 2;
			break;
		}
		if (o.interactive ? draw(&o) : print_refresh(&o)) {
			if (errno == ENOMEM)
				kmt_error(KMT_EXIT_RUNTIME, "out of memory");
			else
				kmt_error(KMT_EXIT_RUNTIME, "cannot write the refresh: %s",
					  strerror(errno));
			code = 2;
			out_failed = 1;
			break;
		}
		if (iterations && refreshes >= iterations && !redraw)
			done = 1;
	}
	if (o.interactive)
		term_restore(&tm);
	if (code == 2 && !out_failed)
		kmt_error(KMT_EXIT_RUNTIME, "%s", top.errmsg);
	kmt_top_free(&top);
out_file:
	kmt_bpf_detach(&bpf);
	code = live_out_close(&o.lo, code);
out_names:
	kmt_bpf_names_free(&names);
out_bpf:
	kmt_bpf_close(&bpf);
out_run:
	code = bpf_run_finish(&run, code);
	bpf_run_free(&run);
	if (cfg.count_cgroups)
		kmt_cgroups_free(&cgroups);
	return code;
}
