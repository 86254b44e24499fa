// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "target.h"
#include "util/array.h"

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

uint64_t target_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int target_check(struct target *t, int nargs, char **argv)
{
	struct kmt_workload none = KMT_WORKLOAD_INIT;

	t->have_cmd = nargs > 0;
	argv[nargs] = NULL;	/* the command's argv, for exec */
	t->argv = argv;
	t->wl = none;
	if (t->pid_list && (t->all || t->have_cmd))
		return kmt_usage_error("-p goes with neither -a nor a command");
	if (t->follow && !t->have_cmd)
		return kmt_usage_error("--follow needs a command after '--'");
	return 0;
}

int target_pids(struct target *t)
{
	size_t alloc = 0, alloc_main = 0;
	const char *p = t->pid_list;

	while (p && *p) {
		char *end;
		long pid;
		int ret;

		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid <= 0 || pid > INT_MAX ||
		    (*end && *end != ','))
			return kmt_usage_error("option '-p' needs a list of pids, not '%s'",
					       t->pid_list);
		if (t->flags & TARGET_THREADS) {
			ret = kmt_workload_add_threads(&t->pids, &t->nr_pids,
						       &alloc, pid);
			if (ret == -ENOMEM)
				return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
			if (ret)
				return kmt_error(KMT_EXIT_INPUT, "no process %ld: %s",
						 pid, strerror(-ret));
		} else if (kill((pid_t)pid, 0) && errno == ESRCH) {
			return kmt_error(KMT_EXIT_INPUT, "no process %ld", pid);
		}
		if (KMT_ARRAY_GROW(t->main_pids, t->nr_main + 1, alloc_main))
			return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		t->main_pids[t->nr_main++] = (pid_t)pid;
		p = *end ? end + 1 : end;
	}
	return 0;
}

void target_signals(void)
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

int target_stop_signal(void)
{
	return stop_signal;
}

int target_prepare(struct target *t, unsigned int wl_flags)
{
	int ret;

	if (!t->have_cmd)
		return 0;
	ret = kmt_workload_prepare(&t->wl, t->argv, wl_flags);
	if (ret)
		return kmt_error(KMT_EXIT_RUNTIME, "cannot start '%s': %s",
				 t->argv[0], strerror(-ret));
	return 0;
}

int target_start(struct target *t)
{
	int ret;

	t->start = target_now();
	if (t->have_cmd) {
		ret = kmt_workload_start(&t->wl);
		if (ret)
			return kmt_error((t->flags & TARGET_EXEC_127) &&
					 (ret == -ENOENT || ret == -EACCES) ?
					 127 : KMT_EXIT_RUNTIME,
					 "cannot run '%s': %s", t->argv[0],
					 strerror(-ret));
	}
	t->started = 1;
	return 0;
}

int target_done(struct target *t)
{
	if (stop_signal)
		return 1;
	if (t->have_cmd && kmt_workload_poll(&t->wl))
		return 1;
	if (t->duration && target_now() - t->start >= t->duration)
		return 1;
	return t->nr_main && !kmt_workload_any_alive(t->main_pids, t->nr_main);
}

void target_stop(struct target *t)
{
	int sig = stop_signal;

	if (t->stopped)
		return;
	t->stopped = 1;
	if (!t->have_cmd || !t->started || kmt_workload_poll(&t->wl))
		return;
	if (!sig && (t->flags & TARGET_END_COMMAND))
		sig = SIGTERM;
	if (sig)
		kill(t->wl.pid, sig);
}

int target_finish(struct target *t, int code)
{
	if (!t->have_cmd)
		return code;
	if (!t->started) {
		kmt_workload_abort(&t->wl);
		return code;
	}
	target_stop(t);
	kmt_workload_wait(&t->wl);
	return code ? code : kmt_workload_exit_code(&t->wl);
}

void target_abort(struct target *t)
{
	if (t->have_cmd)
		kmt_workload_abort(&t->wl);
}

void target_free(struct target *t)
{
	free(t->pids);
	free(t->main_pids);
	t->pids = t->main_pids = NULL;
	t->nr_pids = t->nr_main = 0;
}
