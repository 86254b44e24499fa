/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_RECORD_WORKLOAD_H
#define KMT_RECORD_WORKLOAD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The command of `record -- CMD` (and of stat, top and watch): forked
 * first and held before exec until tracing is ready (its pid is known,
 * so events can be limited to it), then let go.  A failed exec is
 * reported to the parent through a close-on-exec pipe, so "not found" is
 * an error of kmemtrace, not a silent exit status.
 */
struct kmt_workload {
	pid_t pid;
	int go_fd;		/* written to let the child exec */
	int err_fd;		/* the child's errno if exec fails */
	int status;		/* wait status once reaped */
	int reaped;
};

#define KMT_WORKLOAD_INIT { -1, -1, -1, 0, 0 }

enum kmt_workload_flags {
	/* the command's stdout is kmemtrace's stderr (stdout carries data) */
	KMT_WORKLOAD_STDOUT_TO_STDERR = 1 << 0,
};

/* forks the child, which waits; returns 0 or -errno */
int kmt_workload_prepare(struct kmt_workload *w, char *const *argv,
			 unsigned int flags);

/*
 * Lets the child exec.  Returns 0 once it runs, or -errno when exec
 * failed (the child is then reaped).
 */
int kmt_workload_start(struct kmt_workload *w);

/* 1 once the child has exited (reaping it), 0 while it runs */
int kmt_workload_poll(struct kmt_workload *w);

/* waits for the child to exit */
void kmt_workload_wait(struct kmt_workload *w);

/*
 * Appends the threads of process pid (/proc/PID/task) to *pids, growing
 * it: `-p` of record and stat follow every thread.  0, or -errno (ENOENT
 * when there is no such process).
 */
int kmt_workload_add_threads(pid_t **pids, size_t *nr, size_t *alloc,
			     long pid);

/* 1 while any of the processes pids is there (a zombie too), else 0 */
int kmt_workload_any_alive(const pid_t *pids, size_t nr);

/* the shell-style exit code: status, or 128 + signal */
int kmt_workload_exit_code(const struct kmt_workload *w);

/* kills a child still held or running, and reaps it */
void kmt_workload_abort(struct kmt_workload *w);

#endif
