// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf-run.h"
#include "builtin.h"
#include "util/array.h"

/* the one piece of state a signal handler may touch */
volatile sig_atomic_t bpf_run_stop;

static void on_signal(int sig)
{
	bpf_run_stop = sig;
}

static void on_child(int sig)
{
	(void)sig;	/* only to wake the main loop from its sleep */
}

double bpf_run_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *bpf_run_size(char *buf, size_t size, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while ((bytes >= 1024 || bytes <= -1024) && u < 4) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%.0f %s", bytes, units[u]);
	else
		snprintf(buf, size, "%.1f %s", bytes, units[u]);
	return buf;
}

int bpf_run_check(struct bpf_run *r, int nargs, char **argv)
{
	r->have_cmd = nargs > 0;
	argv[nargs] = NULL;
	r->argv = argv;
	r->wl.pid = -1;
	r->wl.go_fd = r->wl.err_fd = -1;
	if (r->duration_arg) {
		char *end;

		r->duration = strtod(r->duration_arg, &end);
		if (*end || end == r->duration_arg || !(r->duration > 0))
			return kmt_usage_error("option '--duration' needs seconds above 0, not '%s'",
					       r->duration_arg);
	}
	if (r->pid_list && (r->all || r->have_cmd))
		return kmt_usage_error("-p goes with neither -a nor a command");
	if (r->follow && !r->have_cmd)
		return kmt_usage_error("--follow needs a command after '--'");
	if (r->comm && strlen(r->comm) > 15)
		return kmt_usage_error("option '--comm' needs a name of at most 15 characters, as the kernel keeps them, not '%s'",
				       r->comm);
	return 0;
}

int bpf_run_prepare(struct bpf_run *r, struct kmt_bpf_config *cfg)
{
	struct sigaction sa;
	size_t alloc_main = 0;
	const char *p = r->pid_list;
	int ret;

	while (p && *p) {
		char *end;
		long pid;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid <= 0 || pid > INT_MAX ||
		    (*end && *end != ',')) {
			return kmt_usage_error("option '-p' needs a list of pids, not '%s'",
					       r->pid_list);
		}
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			return kmt_error(KMT_EXIT_INPUT, "no process %ld", pid);
		if (KMT_ARRAY_GROW(r->main_pids, r->nr_main + 1, alloc_main))
			return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		r->main_pids[r->nr_main++] = (pid_t)pid;
		p = *end ? end + 1 : end;
	}
	cfg->filter_tgid = r->nr_main > 0 || r->follow;
	cfg->follow_forks = r->follow;
	cfg->comm = r->comm;
	cfg->self = getpid();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);

	if (r->have_cmd) {
		ret = kmt_workload_prepare(&r->wl, r->argv, 0);
		if (ret) {
			kmt_error(KMT_EXIT_RUNTIME, "cannot start '%s': %s", r->argv[0],
				      strerror(-ret));
			return 2;
		}
	}
	return 0;
}

int bpf_run_open(struct kmt_bpf *b, const struct kmt_bpf_config *cfg)
{
	if (!kmt_bpf_open(b, cfg))
		return 0;
	if (b->why == KMT_BPF_NO_MEMORY || b->why == KMT_BPF_OTHER)
		return kmt_error(KMT_EXIT_RUNTIME, "%s", b->errmsg);
	return kmt_error(KMT_EXIT_RUNTIME, "cannot use BPF: %s; 'kmemtrace record' traces without it",
			 b->errmsg);
}

int bpf_run_start(struct bpf_run *r, struct kmt_bpf *b)
{
	size_t i;
	int ret;

	for (i = 0; i < r->nr_main; i++) {
		if (kmt_bpf_add_tgid(b, (uint32_t)r->main_pids[i])) {
			kmt_error(KMT_EXIT_RUNTIME, "%s", b->errmsg);
			return 2;
		}
	}
	if (r->follow && kmt_bpf_add_tgid(b, (uint32_t)r->wl.pid)) {
		kmt_error(KMT_EXIT_RUNTIME, "%s", b->errmsg);
		return 2;
	}
	if (kmt_bpf_attach(b)) {
		kmt_error(KMT_EXIT_RUNTIME, "cannot use BPF: %s; 'kmemtrace record' traces without it",
			  b->errmsg);
		return 2;
	}
	r->start = bpf_run_now();
	if (r->have_cmd) {
		ret = kmt_workload_start(&r->wl);
		if (ret) {
			kmt_error(KMT_EXIT_RUNTIME, "cannot run '%s': %s", r->argv[0],
				      strerror(-ret));
			return ret == -ENOENT || ret == -EACCES ? 127 : 2;
		}
	}
	r->started = 1;
	return 0;
}

int bpf_run_done(struct bpf_run *r)
{
	size_t i;

	if (bpf_run_stop)
		return 1;
	if (r->have_cmd && kmt_workload_poll(&r->wl))
		return 1;
	if (r->duration && bpf_run_now() - r->start >= r->duration)
		return 1;
	if (r->nr_main) {
		for (i = 0; i < r->nr_main; i++) {
			if (kill(r->main_pids[i], 0) == 0 || errno != ESRCH)
				return 0;
		}
		return 1;
	}
	return 0;
}

const char *bpf_run_target(const struct bpf_run *r, char *buf, size_t size)
{
	if (r->nr_main)
		snprintf(buf, size, "process%s %s", r->nr_main > 1 ? "es" : "",
			 r->pid_list);
	else if (r->have_cmd && r->follow)
		snprintf(buf, size, "'%s' and its children", r->argv[0]);
	else if (r->have_cmd)
		snprintf(buf, size, "system wide while '%s' runs", r->argv[0]);
	else
		snprintf(buf, size, "system wide");
	if (r->comm) {
		size_t n = strlen(buf);

		snprintf(buf + n, size - n, ", tasks named '%s'", r->comm);
	}
	return buf;
}

int bpf_run_finish(struct bpf_run *r, int code)
{
	if (!r->have_cmd)
		return code;
	if (!r->started) {
		kmt_workload_abort(&r->wl);
		return code;
	}
	/* a signal meant for kmemtrace alone also ends the command */
	if (!kmt_workload_poll(&r->wl))
		kill(r->wl.pid, bpf_run_stop ? bpf_run_stop : SIGTERM);
	kmt_workload_wait(&r->wl);
	return code ? code : kmt_workload_exit_code(&r->wl);
}

void bpf_run_free(struct bpf_run *r)
{
	free(r->main_pids);
	r->main_pids = NULL;
}

int bpf_run_duration(const char *arg, double *secs)
{
	static const struct {
		const char *unit;
		double mul;
	} units[] = {
		{ "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
		{ "m", 60 }, { "h", 3600 }, { "", 1 },
	};
	char *end;
	double v = strtod(arg, &end);
	size_t i;

	if (end == arg || !(v >= 0) || *arg == '-')
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			*secs = v * units[i].mul;
			return 0;
		}
	}
	return -1;
}
