// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace help [<command>]: the manual page, shown by man(1).
 *
 * A kmemtrace run from its build tree shows the page built beside it,
 * <the binary's directory>/doc/kmemtrace-<command>.1, which documents
 * that very binary even when an older kmemtrace is installed; any other
 * kmemtrace shows the page man finds, the installed one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"

/* the page built beside the binary, into path; 0 when it can be read */
static int built_page(const char *page, char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t len;
	char *slash;

	path[0] = '\0';
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(path, size, "%s/doc/%s.1", exe, page) >= size) {
		path[0] = '\0';
		return -1;
	}
	return access(path, R_OK);
}

/* man -w PAGE, quietly: 0 when man knows the page, 127 when man cannot run */
static int man_where(const char *page)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("man", "man", "-w", page, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int show_man_page(const char *command)
{
	char page[64], path[PATH_MAX + 80], hint[80];
	int found;

	if (command) {
		snprintf(page, sizeof(page), "kmemtrace-%s", command);
		snprintf(hint, sizeof(hint), "kmemtrace %s -h", command);
	} else {
		snprintf(page, sizeof(page), "kmemtrace");
		snprintf(hint, sizeof(hint), "kmemtrace -h");
	}
	fflush(stdout);
	if (!built_page(page, path, sizeof(path))) {
		execlp("man", "man", "-l", path, (char *)NULL);
	} else {
		found = man_where(page);
		if (found == 0)
			execlp("man", "man", page, (char *)NULL);
		else if (found != 127) {
			fprintf(stderr, "kmemtrace help: error: no manual page '%s' installed%s%s%s (see '%s')\n",
				page, *path ? " nor at '" : "", path,
				*path ? "'" : "", hint);
			return KMT_EXIT_RUNTIME;
		}
		errno = ENOENT;
	}
	fprintf(stderr, "kmemtrace help: error: cannot run 'man' for '%s': %s (see '%s')\n",
		page, strerror(errno), hint);
	return KMT_EXIT_RUNTIME;
}
