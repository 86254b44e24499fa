// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <unistd.h>

#include "bpf-run.h"
#include "builtin.h"

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
	int code;

	r->t.flags = TARGET_END_COMMAND | TARGET_EXEC_127;
	code = target_check(&r->t, nargs, argv);
	if (code)
		return code;
	if (r->comm && strlen(r->comm) > 15)
		return kmt_usage_error("option '--comm' needs a name of at most 15 characters, as the kernel keeps them, not '%s'",
				       r->comm);
	return 0;
}

int bpf_run_prepare(struct bpf_run *r, struct kmt_bpf_config *cfg)
{
	int code = target_pids(&r->t);

	if (code)
		return code;
	cfg->filter_tgid = r->t.nr_main > 0 || r->t.follow;
	cfg->follow_forks = r->t.follow;
	cfg->comm = r->comm;
	cfg->self = getpid();
	target_signals();
	return target_prepare(&r->t, 0);
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

	for (i = 0; i < r->t.nr_main; i++) {
		if (kmt_bpf_add_tgid(b, (uint32_t)r->t.main_pids[i]))
			return kmt_error(KMT_EXIT_RUNTIME, "%s", b->errmsg);
	}
	if (r->t.follow && kmt_bpf_add_tgid(b, (uint32_t)r->t.wl.pid))
		return kmt_error(KMT_EXIT_RUNTIME, "%s", b->errmsg);
	if (kmt_bpf_attach(b))
		return kmt_error(KMT_EXIT_RUNTIME, "cannot use BPF: %s; 'kmemtrace record' traces without it",
				 b->errmsg);
	return target_start(&r->t);
}

const char *bpf_run_target(const struct bpf_run *r, char *buf, size_t size)
{
	if (r->t.nr_main)
		snprintf(buf, size, "process%s %s", r->t.nr_main > 1 ? "es" : "",
			 r->t.pid_list);
	else if (r->t.have_cmd && r->t.follow)
		snprintf(buf, size, "'%s' and its children", r->t.argv[0]);
	else if (r->t.have_cmd)
		snprintf(buf, size, "system wide while '%s' runs", r->t.argv[0]);
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
	return target_finish(&r->t, code);
}

void bpf_run_free(struct bpf_run *r)
{
	target_free(&r->t);
}
