// SPDX-License-Identifier: GPL-2.0
/*
 * Loads floor.bpf.o (argv[1]), attaches every program, says "attached"
 * on stderr and waits for SIGINT or SIGTERM: the bench's "floor" way.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: floor FLOOR.BPF.O\n");
		return 129;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "floor: cannot load %s: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	bpf_object__for_each_program(prog, obj) {
		/* a tracepoint this kernel lacks: top leaves it out too */
		if (bpf_program__attach(prog))
			n++;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "floor: attached %d programs\n", n);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
