/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_SRC_BPF_RUN_H
#define KMT_SRC_BPF_RUN_H

#include <stdio.h>
#include <sys/types.h>

#include "bpf/loader.h"
#include "target.h"

/*
 * What top and watch share beyond the target (target.h: -a, -p,
 * --follow, `-- CMD`, --duration, as record has them): --comm, the BPF
 * programs' filters, loading them with the one-line reason when they
 * cannot be, and following the processes once attached.
 */
struct bpf_run {
	const char *name;		/* "top", "watch": for messages */
	struct target t;
	const char *comm;
};

/* validates the options; 0, or the exit code (129) after a message */
int bpf_run_check(struct bpf_run *r, int nargs, char **argv);
/* sets cfg's filters; forks the command (held); 0 or the exit code */
int bpf_run_prepare(struct bpf_run *r, struct kmt_bpf_config *cfg);
/*
 * Opens and loads the programs; on failure prints the one line that says
 * why BPF cannot be used here and returns the exit code (2).
 */
int bpf_run_open(struct kmt_bpf *b, const struct kmt_bpf_config *cfg);
/* attaches, follows the processes, lets the command go; 0 or exit code */
int bpf_run_start(struct bpf_run *r, struct kmt_bpf *b);
/* "the command" or "system wide" or "process 12,13" */
const char *bpf_run_target(const struct bpf_run *r, char *buf, size_t size);
/* ends the command if asked to stop, waits; code: the command's status */
int bpf_run_finish(struct bpf_run *r, int code);
void bpf_run_free(struct bpf_run *r);
/* "1.2 MiB" style, into buf */
const char *bpf_run_size(char *buf, size_t size, double bytes);

#endif
