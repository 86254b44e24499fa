// SPDX-License-Identifier: GPL-2.0
/*
 * Runs a command with its standard output discarded and prints
 * "<wall seconds> <peak RSS in KiB> <CPU seconds, user + system>" of it:
 * the bench's /usr/bin/time -v without depending on that package.
 *
 *   measure CMD [ARGS...]
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: measure CMD [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f %ld %.3f\n", (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, ru.ru_maxrss,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "measure: '%s' failed (status %d)\n", argv[1],
			status);
		return 1;
	}
	return 0;
}
