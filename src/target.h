/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SRC_TARGET_H
#define KMT_SRC_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"
#include "record/workload.h"

/*
 * What record, stat, top and watch trace, and until when: the whole
 * system (-a), the processes of -p, or a command given after `--`
 * (forked first and held until tracing is ready, so that it can be
 * followed from its first event; its exit status is theirs), until
 * SIGINT, SIGTERM or SIGHUP, --duration, the command's end or the
 * processes'.  The handlers' flag lives in target.c, the one piece of
 * state a signal handler may touch.
 *
 * In order: target_check (the options), target_pids (-p), target_signals,
 * target_prepare (fork the command), the command's own setup,
 * target_start, a loop until target_done, target_stop, target_finish.
 */
enum target_flags {
	/* -p follows every thread of each process: pids lists them */
	TARGET_THREADS	  = 1 << 0,
	/*
	 * The end of tracing, for any reason, ends the command too (top,
	 * watch: a refresh count); else only a signal does, and the
	 * command runs on to its end (record, stat)
	 */
	TARGET_END_COMMAND = 1 << 1,
	/* a command that cannot be run exits 127, as a shell's; else 2 */
	TARGET_EXEC_127	  = 1 << 2,
};

struct target {
	/* the options: the command's table points at them */
	const char *pid_list;		/* -p "12,13" */
	int all;			/* -a */
	int follow;			/* --follow: the command's tasks only */
	uint64_t duration;		/* --duration in ns; 0: until the end */
	unsigned int flags;		/* enum target_flags */
	/* after target_check */
	char **argv;			/* the command, NULL-terminated */
	int have_cmd;
	/* after target_pids */
	pid_t *main_pids;		/* the processes of -p */
	size_t nr_main;
	pid_t *pids;			/* and their threads (TARGET_THREADS) */
	size_t nr_pids;
	/* after target_prepare */
	struct kmt_workload wl;
	/* after target_start */
	uint64_t start;			/* CLOCK_MONOTONIC, ns */
	int started;
	int stopped;			/* target_stop was called */
};

/* the duration option, the same in every command */
#define TARGET_OPT_DURATION(t)						\
	OPT_DURATION(0, "duration", &(t)->duration, "duration", 1,	\
		     "stop after this long (500ms, 10s, 2m; a bare number is seconds)")

/*
 * The command's positional arguments (nargs of them, from argv[0]) are
 * the command to run.  Checks -p against -a and a command, and --follow;
 * 0, or the exit code (129) after the message.
 */
int target_check(struct target *t, int nargs, char **argv);
/*
 * Reads -p: every pid must be a process.  0, or the exit code after the
 * message (129 a list that is not one, 1 no such process, 2 no memory).
 */
int target_pids(struct target *t);
/* SIGINT, SIGTERM and SIGHUP stop the loop; SIGCHLD wakes its sleep */
void target_signals(void);
/* the signal that asked to stop, 0 if none came */
int target_stop_signal(void);
/*
 * Forks the command, held before its exec (wl_flags: enum
 * kmt_workload_flags).  0, or 2 after the message.
 */
int target_prepare(struct target *t, unsigned int wl_flags);
/*
 * Tracing is ready: the clock of --duration starts and the command
 * runs.  0, or the exit code (2 or 127) after the message.
 */
int target_start(struct target *t);
/* 1 when it is time to stop: a signal, --duration, the command or -p gone */
int target_done(struct target *t);
/*
 * Tracing ended: a signal meant for kmemtrace alone ends the command
 * too (with TARGET_END_COMMAND any end does, by SIGTERM when no signal
 * came).  Once: a later call does nothing.
 */
void target_stop(struct target *t);
/*
 * target_stop, then waits for the command: returns code, or when code
 * is 0 the command's exit status.  A command still held is killed.
 */
int target_finish(struct target *t, int code);
/* kills the command, held or running, and reaps it: a failed run */
void target_abort(struct target *t);
void target_free(struct target *t);
/* CLOCK_MONOTONIC in ns */
uint64_t target_now(void);

#endif
