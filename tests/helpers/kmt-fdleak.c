// SPDX-License-Identifier: GPL-2.0
/*
 * A deterministic kernel allocation workload for the tests of top and
 * watch: eventfds are the objects.  eventfd(2) allocates its context with
 * one kmalloc in do_eventfd and a struct file in alloc_empty_file, and
 * close(2) frees both in the closing task; nothing else happens at those
 * callsites in this process.  So N eventfds of which K stay open are
 * exactly N allocations at each callsite of which K are outstanding.
 *
 *   kmt-fdleak [-w] [-n N] [-k K] [-s STEPS [-L PER_STEP] [-t MS]] [-u SOCKETS]
 *
 * Prints its pid; with -w waits for SIGUSR1 (the tracers are attached by
 * then: waiting in sigwait allocates nothing, so what they see of this
 * process is the work alone), makes N eventfds and closes all but K; with -s,
 * then leaks one eventfd (-L: PER_STEP) every MS milliseconds, STEPS
 * times, making and closing 20 others each time (a steady leak under a
 * busy, flat cache); with -u, binds and closes SOCKETS UDP sockets, which the
 * kernel frees from an RCU callback, in softirq context.  Then it prints
 * "done" and holds what it leaked until it is killed (SIGTERM), so a
 * tracer sees the leak as outstanding.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int make_eventfd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0) {
		perror("kmt-fdleak: eventfd");
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	int wait_go = 0;
	sigset_t usr1;
	long n = 1000, keep = 100, steady = 0, period = 100, sockets = 0;
	long per_step = 1;
	long i, j;
	int opt, *fds;

	while ((opt = getopt(argc, argv, "wn:k:s:L:t:u:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'k': keep = atol(optarg); break;
		case 's': steady = atol(optarg); break;
		case 'L': per_step = atol(optarg); break;
		case 't': period = atol(optarg); break;
		case 'u': sockets = atol(optarg); break;
		case 'w': wait_go = 1; break;
		default:
			fprintf(stderr, "usage: kmt-fdleak [-n N] [-k K] [-s STEPS [-L PER_STEP] [-t MS]] [-u SOCKETS]\n");
			return 129;
		}
	}
	if (n < 0 || keep < 0 || keep > n || steady < 0 || period < 0 ||
	    per_step < 1 ||
	    sockets < 0) {
		fprintf(stderr, "kmt-fdleak: bad counts\n");
		return 129;
	}
	fds = calloc(n + steady * per_step + 1, sizeof(*fds));
	if (!fds)
		return 1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	printf("%ld\n", (long)getpid());
	fflush(stdout);
	if (wait_go) {
		int sig;

		sigwait(&usr1, &sig);
	}

	for (i = 0; i < n; i++)
		fds[i] = make_eventfd();
	/* the first ones go, the last K stay */
	for (i = 0; i < n - keep; i++)
		close(fds[i]);
	for (i = 0; i < steady; i++) {
		int churn[20];

		for (j = 0; j < 20; j++)
			churn[j] = make_eventfd();
		for (j = 0; j < 20; j++)
			close(churn[j]);
		for (j = 0; j < per_step; j++)
			fds[n + i * per_step + j] = make_eventfd();
		sleep_ms(period);
	}
	for (i = 0; i < sockets; i++) {
		struct sockaddr_in sin;
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0) {
			perror("kmt-fdleak: socket");
			return 1;
		}
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
			perror("kmt-fdleak: bind");
			return 1;
		}
		close(fd);
	}
	/* the sockets' RCU callbacks: a grace period or two */
	if (sockets)
		sleep_ms(200);
	printf("done\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}
