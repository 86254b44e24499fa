// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace record: capture the kmem tracepoints into a trace.dat through
 * a private tracefs instance, losing nothing with the default buffer.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "options.h"
#include "record/recorder.h"
#include "record/workload.h"
#include "util/array.h"

static const char *const record_usage[] = {
	"kmemtrace record [<options>] [-a | -p <pid>,... | [--follow] -- <command> [<args>...]]",
	NULL
};

/* the one piece of state a signal handler may touch */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;	/* only to wake the main loop from its sleep */
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_pids(const char *list, pid_t **pids, size_t *nr,
		      pid_t **main_pids, size_t *nr_main)
{
	size_t alloc = 0, alloc_main = 0;
	const char *p = list;

	while (*p) {
		char *end;
		long pid;
		int ret;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid <= 0 || pid > INT_MAX ||
		    (*end && *end != ','))
			return kmt_usage_error("option '-p' needs a list of pids, not '%s'",
					       list);
		ret = kmt_workload_add_threads(pids, nr, &alloc, pid);
		if (ret == -ENOMEM)
			return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		if (ret)
			return kmt_error(KMT_EXIT_INPUT, "no process %ld: %s",
					 pid, strerror(-ret));
		if (KMT_ARRAY_GROW(*main_pids, *nr_main + 1, alloc_main))
			return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		(*main_pids)[(*nr_main)++] = (pid_t)pid;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int any_alive(const pid_t *pids, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (kill(pids[i], 0) == 0 || errno != ESRCH)
			return 1;
	}
	return 0;
}

static void print_summary(const struct kmt_rec *l,
			  const struct kmt_rec_result *res, const char *output)
{
	int i;

	fprintf(stderr, "kmemtrace record: %llu event%s",
		(unsigned long long)res->events, res->events == 1 ? "" : "s");
	if (res->other)
		fprintf(stderr, " (and %llu stack%s)",
			(unsigned long long)res->other,
			res->other == 1 ? "" : "s");
	fprintf(stderr, ", %llu lost, wrote %s (%.1f MB)\n",
		(unsigned long long)res->lost,
		strcmp(output, "-") ? output : "the standard output",
		res->bytes / 1e6);
	for (i = 0; i < l->nr_cpus; i++) {
		const struct kmt_rec_cpu *c = &l->cpus[i];

		if (c->overrun || c->commit_overrun || c->dropped)
			kmt_warning("CPU %d lost %llu event%s (overrun %llu, commit overrun %llu, dropped %llu): a larger -b may help",
				    i, (unsigned long long)(c->overrun +
							    c->commit_overrun + c->dropped),
				    c->overrun + c->commit_overrun +
				    c->dropped == 1 ? "" : "s",
				    (unsigned long long)c->overrun,
				    (unsigned long long)c->commit_overrun,
				    (unsigned long long)c->dropped);
		if (c->entries)
			kmt_warning("CPU %d: %llu event%s left unread in the buffer",
				    i, (unsigned long long)c->entries,
				    c->entries == 1 ? " was" : "s were");
	}
}

int cmd_record(int argc, char **argv)
{
	const char *output = "kmemtrace.dat", *pid_list = NULL;
	const char *duration_arg = NULL;
	int slab = 0, page = 0, pcpu = 0, extfrag = 0, stacks = 0;
	int all = 0, follow = 0, no_kallsyms = 0, quiet = 0, buffer_kb = 0;
	const struct kmt_option options[] = {
		OPT_STRING('o', "output", &output, "file",
			   "write the recording to <file> (default kmemtrace.dat), "
			   "'-' for stdout; a file there is kept as <file>.old"),
		OPT_GROUP("events (default: --slab --page)"),
		OPT_BOOL(0, "slab", &slab, "slab events: kmalloc, kmem_cache_alloc, kfree, kmem_cache_free"),
		OPT_BOOL(0, "page", &page, "page events: mm_page_alloc, mm_page_free, mm_page_free_batched"),
		OPT_BOOL(0, "pcpu", &pcpu, "also the per-CPU list events (zone_locked, pcpu_drain)"),
		OPT_BOOL(0, "extfrag", &extfrag, "also mm_page_alloc_extfrag (fragmentation)"),
		OPT_BOOL('g', "call-graph", &stacks, "record a kernel stack with each page allocation"),
		OPT_GROUP("what to trace"),
		OPT_BOOL('a', "all-cpus", &all, "the whole system until Ctrl-C or --duration"),
		OPT_LIST('p', "pid", &pid_list, "pid,...", "only these processes (and their threads)"),
		OPT_BOOL(0, "follow", &follow, "with a command: only its events and its children's"),
		OPT_STRING(0, "duration", &duration_arg, "seconds", "stop after this many seconds"),
		OPT_GROUP("output"),
		OPT_INT('b', "buffer-size", &buffer_kb, "kb", 0, 64 * 1024 * 1024,
			"ring buffer per CPU in KB (0, the default: 16 MB, at most 1/64 of memory)"),
		OPT_BOOL(0, "no-kallsyms", &no_kallsyms, "do not store /proc/kallsyms in the file"),
		OPT_BOOL('q', "quiet", &quiet, "print only errors"),
		OPT_END()
	};
	struct kmt_rec_config cfg;
	struct kmt_rec_result res;
	struct kmt_workload wl = KMT_WORKLOAD_INIT;
	struct kmt_rec rec;
	pid_t *pids = NULL, *main_pids = NULL;
	size_t nr_pids = 0, nr_main = 0;
	double duration = 0, start;
	char err[512];
	int nargs, ret, code = 0, have_cmd;
	unsigned int i;

	nargs = kmt_parse_options(argc, argv, options, record_usage,
				  KMT_PARSE_STOP_AT_NON_OPTION);
	have_cmd = nargs > 0;
	argv[nargs] = NULL;	/* the command's argv, for exec */
	if (duration_arg) {
		char *end;

		duration = strtod(duration_arg, &end);
		if (*end || end == duration_arg || !(duration > 0))
			return kmt_usage_error("option '--duration' needs a number of seconds above 0, not '%s'",
					       duration_arg);
	}
	if (pid_list && (all || have_cmd))
		return kmt_usage_error("-p goes with neither -a nor a command");
	if (follow && !have_cmd)
		return kmt_usage_error("--follow needs a command after '--'");
	if (stacks && slab && !page)
		return kmt_usage_error("-g records page allocation stacks: it needs the page events");
	if (!strcmp(output, "-") && isatty(STDOUT_FILENO))
		return kmt_usage_error("-o -: the standard output is a terminal; "
				       "send it to a pipe or a file");

	ret = kmt_rec_check_access(err, sizeof(err));
	if (ret)
		return kmt_error(KMT_EXIT_RUNTIME, "%s", err);
	if (pid_list) {
		code = parse_pids(pid_list, &pids, &nr_pids, &main_pids,
				  &nr_main);
		if (code) {
			free(pids);
			free(main_pids);
			return code;
		}
	}

	install_signals();
	memset(&cfg, 0, sizeof(cfg));
	if (slab)
		cfg.groups |= KMT_REC_SLAB;
	if (page)
		cfg.groups |= KMT_REC_PAGE;
	if (!cfg.groups)
		cfg.groups = KMT_REC_SLAB | KMT_REC_PAGE;
	if (pcpu)
		cfg.groups |= KMT_REC_PCPU;
	if (extfrag)
		cfg.groups |= KMT_REC_EXTFRAG;
	cfg.stacks = stacks;
	cfg.buffer_kb = buffer_kb;
	cfg.output = output;
	/* where the pages of "-o -" or "-o /dev/null" wait until the end */
	cfg.tmpdir = getenv("TMPDIR");
	cfg.version = "kmemtrace " KMT_VERSION;
	cfg.no_kallsyms = no_kallsyms;

	kmt_rec_init(&rec);
	ret = kmt_rec_setup(&rec, &cfg);
	if (ret)
		goto fail;
	for (i = 0; !quiet && i < rec.nr_missing; i++)
		kmt_warning("this kernel has no kmem:%s, skipped",
			    rec.missing[i]);
	if (have_cmd) {
		/* with the recording on stdout, the command's goes to stderr */
		ret = kmt_workload_prepare(&wl, argv, !strcmp(output, "-") ?
					   KMT_WORKLOAD_STDOUT_TO_STDERR : 0);
		if (ret) {
			snprintf(rec.errmsg, sizeof(rec.errmsg),
				 "cannot start '%s': %s", argv[0], strerror(-ret));
			goto fail;
		}
		if (follow) {
			ret = kmt_rec_set_pids(&rec, &wl.pid, 1, 1);
			if (ret)
				goto fail;
		}
	} else if (nr_pids) {
		ret = kmt_rec_set_pids(&rec, pids, nr_pids, 0);
		if (ret)
			goto fail;
	}
	if (stop_signal)
		goto interrupted;
	ret = kmt_rec_start(&rec);
	if (ret)
		goto fail;
	if (have_cmd) {
		ret = kmt_workload_start(&wl);
		if (ret) {
			snprintf(rec.errmsg, sizeof(rec.errmsg),
				 "cannot run '%s': %s", argv[0], strerror(-ret));
			code = KMT_EXIT_RUNTIME;
			goto fail_code;
		}
	} else if (!quiet && !duration) {
		fprintf(stderr, "kmemtrace record: recording %s; Ctrl-C to stop\n",
			nr_pids ? "the given processes" : "all CPUs");
	}

	start = now();
	while (!stop_signal && !kmt_rec_failed(&rec)) {
		struct timespec tick = { 0, 50 * 1000 * 1000 };

		if (have_cmd && kmt_workload_poll(&wl))
			break;
		if (duration && now() - start >= duration)
			break;
		if (nr_main && !any_alive(main_pids, nr_main))
			break;
		nanosleep(&tick, NULL);
	}
	/* a signal meant for kmemtrace alone also ends the command */
	if (stop_signal && have_cmd && !kmt_workload_poll(&wl))
		kill(wl.pid, stop_signal);

	kmt_rec_stop(&rec);
	/* a reader of -o - that is gone is an error to report, not a kill */
	signal(SIGPIPE, SIG_IGN);
	ret = kmt_rec_write(&rec, &res);
	if (ret && !res.truncated)
		goto fail;
	if (!quiet || ret)
		print_summary(&rec, &res, output);
	if (ret)
		code = kmt_error(KMT_EXIT_RUNTIME, "%s", rec.errmsg);
	kmt_rec_free(&rec);
	if (have_cmd) {
		kmt_workload_wait(&wl);
		if (!code)
			code = kmt_workload_exit_code(&wl);
	}
	free(pids);
	free(main_pids);
	return code;

interrupted:
	snprintf(rec.errmsg, sizeof(rec.errmsg), "interrupted before recording");
	code = 128 + stop_signal;
	goto fail_code;
fail:
	code = KMT_EXIT_RUNTIME;
fail_code:
	kmt_error(code, "%s", rec.errmsg);
	kmt_rec_free(&rec);
	kmt_workload_abort(&wl);
	free(pids);
	free(main_pids);
	return code;
}
