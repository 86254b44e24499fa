// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/workload.h"
#include "util/array.h"

int kmt_workload_prepare(struct kmt_workload *w, char *const *argv,
			 unsigned int flags)
{
	int go[2], err[2];

	memset(w, 0, sizeof(*w));
	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return -e;
	}
	w->pid = fork();
	if (w->pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (w->pid == 0) {
		sigset_t none;
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the parent went away without letting go: do not run */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		if ((flags & KMT_WORKLOAD_STDOUT_TO_STDERR) &&
		    dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int kmt_workload_start(struct kmt_workload *w)
{
	ssize_t n;
	int e = 0;

	if (write(w->go_fd, "g", 1) != 1) {
		e = errno;
		kmt_workload_abort(w);
		return -e;
	}
	close(w->go_fd);
	w->go_fd = -1;
	do {
		n = read(w->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == sizeof(e)) {
		kmt_workload_wait(w);
		return -(e ? e : ENOEXEC);
	}
	return 0;
}

int kmt_workload_poll(struct kmt_workload *w)
{
	pid_t r;

	if (w->reaped || w->pid <= 0)
		return 1;
	r = waitpid(w->pid, &w->status, WNOHANG);
	if (r == w->pid || (r < 0 && errno == ECHILD)) {
		w->reaped = 1;
		return 1;
	}
	return 0;
}

void kmt_workload_wait(struct kmt_workload *w)
{
	while (!w->reaped && w->pid > 0) {
		pid_t r = waitpid(w->pid, &w->status, 0);

		if (r == w->pid || (r < 0 && errno != EINTR))
			w->reaped = 1;
	}
}

int kmt_workload_any_alive(const pid_t *pids, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		/* EPERM: there, but not ours to signal */
		if (kill(pids[i], 0) == 0 || errno != ESRCH)
			return 1;
	}
	return 0;
}

int kmt_workload_exit_code(const struct kmt_workload *w)
{
	if (!w->reaped)
		return 1;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 1;
}

void kmt_workload_abort(struct kmt_workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid > 0 && !w->reaped) {
		kill(w->pid, SIGKILL);
		kmt_workload_wait(w);
	}
}

int kmt_workload_add_threads(pid_t **pids, size_t *nr, size_t *alloc,
			     long pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		long tid = strtol(d->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		if (KMT_ARRAY_GROW(*pids, *nr + 1, *alloc)) {
			closedir(dir);
			return -ENOMEM;
		}
		(*pids)[(*nr)++] = (pid_t)tid;
	}
	closedir(dir);
	return 0;
}
