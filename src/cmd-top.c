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
#include "bpf/names.h"
#include "bpf/top.h"
#include "builtin.h"
#include "options.h"
#include "util/json.h"
#include "util/strbuf.h"

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
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

struct top_out {
	struct kmt_top *t;
	struct bpf_run *run;
	FILE *out;
	enum kmt_top_view view;
	enum kmt_top_col sort;
	int json;
	int limit;		/* rows; 0: all */
	int width;		/* characters a line; 0: no limit */
	int interactive;
	const char *target;
};

/* 1234567 -> "1.2M": columns stay narrow on a busy machine */
static const char *human(char *buf, size_t size, double v)
{
	static const char units[] = "KMGTP";
	double a = v < 0 ? -v : v;
	int u = -1;

	while (a >= 9999.5 && u < 4) {
		a /= 1000;
		v /= 1000;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.*f%c", a < 99.95 ? 1 : 0, v, units[u]);
	return buf;
}

static const char *drops_line(const struct kmt_top *t, char *buf,
			      size_t size)
{
	static const enum kmt_bpf_stat drops[] = {
		KMT_S_SITES_FULL, KMT_S_LIVE_FULL, KMT_S_STACK_FULL,
		KMT_S_STACK_FAILED, KMT_S_STACKS_AGG_FULL,
		KMT_S_COMM_FULL,
	};
	size_t used = 0, i;

	buf[0] = 0;
	for (i = 0; i < NR(drops); i++) {
		uint64_t v = t->totals.stats[drops[i]];

		if (v)
			used += snprintf(buf + used, size - used, "%s%s %llu",
					 used ? ", " : "",
					 kmt_bpf_stat_name(drops[i]),
					 (unsigned long long)v);
		if (used >= size)
			return buf;
	}
	if (t->totals.missed)
		snprintf(buf + used, size - used,
			 "%sevents the kernel skipped (a program already running on the CPU) %llu",
			 used ? ", " : "", (unsigned long long)t->totals.missed);
	else if (!used)
		snprintf(buf, size, "none");
	return buf;
}

static void put_line(const struct top_out *o, const char *line)
{
	if (o->width > 0)
		fprintf(o->out, "%.*s", o->width, line);
	else
		fputs(line, o->out);
	fputs(o->interactive ? "\033[K\r\n" : "\n", o->out);
}

static void print_text(const struct top_out *o, int max_rows)
{
	const struct kmt_top *t = o->t;
	const struct kmt_top_totals *tt = &t->totals;
	double secs = kmt_top_interval(t);
	char line[1024], a[32], b[32], c[32], d[32], e[32], f[32];
	int est = t->sample > 1, i, n;
	size_t r;

	if (secs <= 0)
		secs = 1e-9;
	snprintf(line, sizeof(line),
		 "kmemtrace top - %.1fs, %s, view %s, sort %s, live sampled 1 in %u%s",
		 (t->now_ns - t->start_ns) / 1e9, o->target,
		 kmt_top_view_name(o->view), kmt_top_col_name(o->sort),
		 t->sample ? t->sample : 1, est ? " (~ estimates)" : "");
	put_line(o, line);
	snprintf(line, sizeof(line),
		 "events %s/s, allocs %s/s, frees %s/s, alloc bytes %s/s, waste %s/s, pages %s/s",
		 human(a, sizeof(a), tt->d_events / secs),
		 human(b, sizeof(b), tt->d_allocs / secs),
		 human(c, sizeof(c), tt->d_frees / secs),
		 human(d, sizeof(d), tt->d_bytes / secs),
		 human(e, sizeof(e), tt->d_waste / secs),
		 human(f, sizeof(f), tt->d_pages / secs));
	put_line(o, line);
	snprintf(line, sizeof(line),
		 "since start: %s event%s, live %s%s object%s, %s%s byte%s, %llu process%s exited",
		 human(a, sizeof(a), (double)tt->events),
		 tt->events == 1 ? "" : "s", est ? "~" : "",
		 human(b, sizeof(b), (double)tt->live),
		 tt->live == 1 ? "" : "s", est ? "~" : "",
		 human(c, sizeof(c), (double)tt->live_bytes),
		 tt->live_bytes == 1 ? "" : "s",
		 (unsigned long long)tt->exited, tt->exited == 1 ? "" : "es");
	put_line(o, line);
	snprintf(line, sizeof(line), "drops: ");
	drops_line(t, line + 7, sizeof(line) - 7);
	put_line(o, line);
	if (o->interactive)
		put_line(o, "keys: q quit; views c callsite, k cache, P process, s stack; sort a f b o l g w p");
	put_line(o, "");
	snprintf(line, sizeof(line),
		 "%8s %8s %8s %8s %8s %8s %8s %6s %6s %6s %6s  %s",
		 "ALLOC/s", "FREE/s", "BYTES/s", "LIVE", "LIVE_B", "GROW/s",
		 "WASTE/s", "PG0/s", "PG1/s", "PG2/s", "PG3+/s",
		 o->view == KMT_TOP_CALLSITE ? "CALLSITE" :
		 o->view == KMT_TOP_CACHE ? "CACHE" :
		 o->view == KMT_TOP_PROCESS ? "PID COMM" : "STACK");
	put_line(o, line);
	n = (int)t->nr_rows;
	if (max_rows > 0 && n > max_rows)
		n = max_rows;
	for (i = 0; i < n; i++) {
		const struct kmt_top_row *row = &t->rows[i];
		char label[512], pg[KMT_TOP_ORDERS][48], live[48], lb[48];
		int k;

		for (k = 0; k < KMT_TOP_ORDERS; k++) {
			human(a, sizeof(a), row->d_pages[k] / secs);
			snprintf(pg[k], sizeof(pg[k]), "%s%s",
				 row->est_pages ? "~" : "", a);
		}
		snprintf(live, sizeof(live), "%s%s", est ? "~" : "",
			 human(a, sizeof(a), (double)row->live));
		snprintf(lb, sizeof(lb), "%s%s", est ? "~" : "",
			 human(a, sizeof(a), (double)row->live_bytes));
		kmt_top_row_label(o->t, o->view, row, label, sizeof(label));
		snprintf(line, sizeof(line),
			 "%8s %8s %8s %8s %8s %8s %8s %6s %6s %6s %6s  %s",
			 human(a, sizeof(a), row->d_allocs / secs),
			 human(b, sizeof(b), row->d_frees / secs),
			 human(c, sizeof(c), row->d_bytes / secs),
			 live, lb,
			 human(d, sizeof(d), row->d_live_bytes / secs),
			 human(e, sizeof(e), row->d_waste / secs),
			 pg[0], pg[1], pg[2], pg[3], label);
		put_line(o, line);
	}
	r = t->nr_rows - n;
	if (r && !o->interactive) {
		snprintf(line, sizeof(line), "... %zu more row%s", r,
			 r == 1 ? "" : "s");
		put_line(o, line);
	}
}

static void print_json(const struct top_out *o)
{
	const struct kmt_top *t = o->t;
	const struct kmt_top_totals *tt = &t->totals;
	double secs = kmt_top_interval(t);
	struct kmt_json j;
	char label[512];
	size_t i, n = t->nr_rows;
	int k;

	if (o->limit > 0 && n > (size_t)o->limit)
		n = o->limit;
	kmt_json_init(&j, o->out, 0);
	kmt_json_obj_open(&j, NULL);
	kmt_json_double(&j, "time", (t->now_ns - t->start_ns) / 1e9);
	kmt_json_double(&j, "interval", secs);
	kmt_json_str(&j, "target", o->target);
	kmt_json_str(&j, "view", kmt_top_view_name(o->view));
	kmt_json_str(&j, "sort", kmt_top_col_name(o->sort));
	kmt_json_u64(&j, "sample", t->sample ? t->sample : 1);
	kmt_json_bool(&j, "live_estimated", t->sample > 1);
	kmt_json_obj_open(&j, "totals");
	kmt_json_u64(&j, "events", tt->events);
	kmt_json_u64(&j, "allocs", tt->allocs);
	kmt_json_u64(&j, "frees", tt->frees);
	kmt_json_u64(&j, "bytes", tt->bytes);
	kmt_json_u64(&j, "waste", tt->waste);
	kmt_json_u64(&j, "pages", tt->pages);
	kmt_json_u64(&j, "page_frees", tt->page_frees);
	kmt_json_u64(&j, "live", tt->live);
	kmt_json_u64(&j, "live_bytes", tt->live_bytes);
	kmt_json_u64(&j, "exited_processes", tt->exited);
	kmt_json_double(&j, "events_per_s", secs > 0 ? tt->d_events / secs : 0);
	kmt_json_double(&j, "allocs_per_s", secs > 0 ? tt->d_allocs / secs : 0);
	kmt_json_double(&j, "frees_per_s", secs > 0 ? tt->d_frees / secs : 0);
	kmt_json_double(&j, "bytes_per_s", secs > 0 ? tt->d_bytes / secs : 0);
	kmt_json_double(&j, "pages_per_s", secs > 0 ? tt->d_pages / secs : 0);
	kmt_json_obj_close(&j);
	kmt_json_obj_open(&j, "counters");
	for (k = 0; k < KMT_S_NR; k++)
		if (kmt_bpf_stat_counted(o->t->bpf, k))
			kmt_json_u64(&j, kmt_bpf_stat_name(k), tt->stats[k]);
	kmt_json_u64(&j, "events the kernel skipped", tt->missed);
	kmt_json_obj_close(&j);
	kmt_json_arr_open(&j, "rows");
	for (i = 0; i < n; i++) {
		const struct kmt_top_row *r = &t->rows[i];
		char addr[32];

		kmt_json_obj_open(&j, NULL);
		kmt_json_str(&j, kmt_top_view_name(o->view),
			     kmt_top_row_label(o->t, o->view, r, label,
					       sizeof(label)));
		if (o->view == KMT_TOP_CALLSITE || o->view == KMT_TOP_STACK) {
			snprintf(addr, sizeof(addr), "0x%llx",
				 (unsigned long long)r->site);
			kmt_json_str(&j, "address", addr);
		}
		if (o->view == KMT_TOP_PROCESS)
			kmt_json_u64(&j, "pid", r->key);
		kmt_json_u64(&j, "allocs", r->allocs);
		kmt_json_u64(&j, "frees", r->frees);
		kmt_json_u64(&j, "bytes", r->bytes);
		kmt_json_u64(&j, "waste", r->waste);
		kmt_json_arr_open(&j, "pages");
		for (k = 0; k < KMT_TOP_ORDERS; k++)
			kmt_json_u64(&j, NULL, r->pages[k]);
		kmt_json_arr_close(&j);
		kmt_json_bool(&j, "pages_estimated", r->est_pages);
		kmt_json_u64(&j, "live", r->live);
		kmt_json_u64(&j, "live_bytes", r->live_bytes);
		for (k = 0; k < KMT_TOP_NR_COLS; k++) {
			char key[40];

			if (k == KMT_TOP_LIVE || k == KMT_TOP_LIVE_BYTES)
				continue;
			snprintf(key, sizeof(key), "%s_per_s",
				 kmt_top_col_name(k));
			kmt_json_double(&j, key, kmt_top_row_value(t, r, k));
		}
		kmt_json_obj_close(&j);
	}
	kmt_json_arr_close(&j);
	kmt_json_u64(&j, "rows_omitted", t->nr_rows - n);
	kmt_json_obj_close(&j);
	kmt_json_finish(&j);
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

static void draw(struct top_out *o)
{
	struct winsize ws;
	int rows = 24;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row) {
		rows = ws.ws_row;
		o->width = ws.ws_col;
	}
	fputs("\033[H", o->out);
	/* the header takes 7 lines and the column titles 1 */
	print_text(o, rows - 8 > 1 ? rows - 8 : 1);
	fputs("\033[J", o->out);
	fflush(o->out);
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
		if (c == view_keys[i].key) {
			o->view = view_keys[i].view;
			return 1;
		}
	}
	if (c == '\t' || c == 'v') {
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
	const char *output = NULL;
	int sites_max = 65536, live_max = 65536, stacks_max = 8192, sample = 64;
	int batch = 0, iterations = 0, json = 0, limit = 20, no_stacks = 0;
	uint64_t delay = 2000000000ULL;
	struct bpf_run run = { .name = "top" };
	const struct kmt_option options[] = {
		OPT_DURATION_MIN('d', "delay", &delay, "duration", 50000000,
				 "refresh every <duration> (default 2s, at least 50ms)"),
		OPT_BOOL('b', "batch", &batch, "batch mode: print refreshes as text, no terminal"),
		OPT_INT('n', "iterations", &iterations, "n", 0, INT_MAX, "stop after <n> refreshes (0: never)"),
		OPT_STRING(0, "view", &view_arg, "view", "callsite (default), cache, process or stack"),
		OPT_STRING('s', "sort", &sort_arg, "column", "allocs, frees, bytes (default), live, live-bytes, growth, waste, pages"),
		OPT_INT('l', "limit", &limit, "n", 0, INT_MAX, "rows printed in batch mode (default 20; 0: all)"),
		OPT_BOOL(0, "json", &json, "batch mode, one JSON object a refresh"),
		OPT_STRING('o', "output", &output, "file", "write the batch output to <file>"),
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
	struct kmt_top top;
	struct top_out o;
	struct term tm = { .raw = 0 };
	char target[256], pinned[32];
	int nargs, code, view, sort, done = 0, refreshes = 0;

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
	if (json || output)
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
	o.out = stdout;
	if (output) {
		o.out = fopen(output, "w");
		if (!o.out) {
			kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
				      strerror(errno));
			code = 2;
			goto out_names;
		}
	}
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
	o.t = &top;
	o.run = &run;
	o.view = view;
	o.sort = sort;
	o.json = json;
	o.limit = limit;
	o.width = 0;
	o.interactive = !batch;
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
		if (o.interactive)
			draw(&o);
		else if (json)
			print_json(&o);
		else {
			print_text(&o, o.limit);
			fputc('\n', o.out);
		}
		fflush(o.out);
		if (iterations && refreshes >= iterations && !redraw)
			done = 1;
	}
	if (o.interactive)
		term_restore(&tm);
	if (code == 2)
		kmt_error(KMT_EXIT_RUNTIME, "%s", top.errmsg);
	kmt_top_free(&top);
out_file:
	kmt_bpf_detach(&bpf);
	if (output && fclose(o.out) && !code) {
		kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", output,
			      strerror(errno));
		code = 2;
	}
out_names:
	kmt_bpf_names_free(&names);
out_bpf:
	kmt_bpf_close(&bpf);
out_run:
	code = bpf_run_finish(&run, code);
	bpf_run_free(&run);
	return code;
}
