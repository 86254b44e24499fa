// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace record: capture the kmem tracepoints into a trace.dat through
 * a private tracefs instance, losing nothing with the default buffer.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "options.h"
#include "record/recorder.h"
#include "target.h"

static const char *const record_usage[] = {
	"kmemtrace record [<options>] [-a | -p <pid>,... | [--follow] -- <command> [<args>...]]",
	NULL
};

static void print_summary(const struct kmt_rec *l,
			  const struct kmt_rec_result *res, const char *output)
{
	int i;

	fprintf(stderr, "kmemtrace record: %llu event%s",
		(unsigned long long)res->events, res->events == 1 ? "" : "s");
	if (res->other)
		fprintf(stderr, " (and %llu stack%s)",
			(unsigned long long)res->other,
			res->other == 1 ? "" : "s");
	fprintf(stderr, ", %llu lost, wrote %s (%.1f MB)\n",
		(unsigned long long)res->lost,
		strcmp(output, "-") ? output : "the standard output",
		res->bytes / 1e6);
	for (i = 0; i < l->nr_cpus; i++) {
		const struct kmt_rec_cpu *c = &l->cpus[i];

		if (c->overrun || c->commit_overrun || c->dropped)
			kmt_warning("CPU %d lost %llu event%s (overrun %llu, commit overrun %llu, dropped %llu): a larger -b may help",
				    i, (unsigned long long)(c->overrun +
							    c->commit_overrun + c->dropped),
				    c->overrun + c->commit_overrun +
				    c->dropped == 1 ? "" : "s",
				    (unsigned long long)c->overrun,
				    (unsigned long long)c->commit_overrun,
				    (unsigned long long)c->dropped);
		if (c->entries)
			kmt_warning("CPU %d: %llu event%s left unread in the buffer",
				    i, (unsigned long long)c->entries,
				    c->entries == 1 ? " was" : "s were");
	}
}

/* once: the events asked for that this kernel lacks, the rest recorded */
static void warn_missing(const struct kmt_rec *rec)
{
	char list[1024];
	size_t o = 0;
	unsigned int i;

	list[0] = '\0';
	for (i = 0; i < rec->nr_missing && o < sizeof(list); i++)
		o += snprintf(list + o, sizeof(list) - o, "%s%s:%s",
			      i ? ", " : "", rec->missing[i]->system,
			      rec->missing[i]->name);
	kmt_warning("this kernel has no %s: recording the rest", list);
}

int cmd_record(int argc, char **argv)
{
	const char *output = "kmemtrace.dat";
	int slab = 0, page = 0, pcpu = 0, extfrag = 0, stacks = 0;
	int percpu = 0, vmalloc = 0, no_percpu = 0, no_vmalloc = 0;
	int no_kallsyms = 0, quiet = 0, buffer_kb = 0;
	struct target t = { .flags = TARGET_THREADS };
	const struct kmt_option options[] = {
		OPT_OUTPUT('o', "output", &output, "file",
			   "write the recording to <file> (default kmemtrace.dat), "
			   "'-' for stdout; a file there is kept as <file>.old"),
		OPT_GROUP("events (default: --slab --page --percpu --vmalloc)"),
		OPT_BOOL(0, "slab", &slab, "slab events: kmalloc, kmem_cache_alloc, kfree, kmem_cache_free"),
		OPT_BOOL(0, "page", &page, "page events: mm_page_alloc, mm_page_free, mm_page_free_batched"),
		OPT_BOOL(0, "percpu", &percpu, "percpu allocator events: percpu_alloc_percpu, percpu_free_percpu, ..."),
		OPT_BOOL(0, "vmalloc", &vmalloc, "vmalloc events: alloc_vmap_area, free_vmap_area_noflush, purge_vmap_area_lazy"),
		OPT_BOOL(0, "no-percpu", &no_percpu, "leave the percpu events out of the default"),
		OPT_BOOL(0, "no-vmalloc", &no_vmalloc, "leave the vmalloc events out of the default"),
		OPT_BOOL(0, "pcpu", &pcpu, "also the page allocator's per-CPU list events (zone_locked, pcpu_drain)"),
		OPT_BOOL(0, "extfrag", &extfrag, "also mm_page_alloc_extfrag (fragmentation)"),
		OPT_BOOL('g', "call-graph", &stacks, "record a kernel stack with each page, percpu and vmalloc allocation"),
		OPT_GROUP("what to trace"),
		OPT_BOOL('a', "all-cpus", &t.all, "the whole system until Ctrl-C or --duration"),
		OPT_LIST('p', "pid", &t.pid_list, "pid,...", "only these processes (and their threads)"),
		OPT_BOOL(0, "follow", &t.follow, "with a command: only its events and its children's"),
		TARGET_OPT_DURATION(&t),
		OPT_GROUP("output"),
		OPT_INT('b', "buffer-size", &buffer_kb, "kb", 0, 64 * 1024 * 1024,
			"ring buffer per CPU in KB (0, the default: 16 MB, at most 1/64 of memory)"),
		OPT_BOOL(0, "no-kallsyms", &no_kallsyms, "do not store /proc/kallsyms in the file"),
		OPT_BOOL('q', "quiet", &quiet, "print only errors"),
		OPT_END()
	};
	struct kmt_rec_config cfg;
	struct kmt_rec_result res;
	struct kmt_rec rec;
	char err[512];
	int nargs, ret, code = 0;

	nargs = kmt_parse_options(argc, argv, options, record_usage,
				  KMT_PARSE_STOP_AT_NON_OPTION);
	code = target_check(&t, nargs, argv);
	if (code)
		return code;
	if (stacks && slab && !page && !percpu && !vmalloc)
		return kmt_usage_error("-g records page, percpu and vmalloc allocation stacks: it needs one of those");
	if ((percpu && no_percpu) || (vmalloc && no_vmalloc))
		return kmt_usage_error("--%s and --no-%s contradict each other",
				       percpu && no_percpu ? "percpu" : "vmalloc",
				       percpu && no_percpu ? "percpu" : "vmalloc");
	if (!strcmp(output, "-") && isatty(STDOUT_FILENO))
		return kmt_usage_error("-o -: the standard output is a terminal; "
				       "send it to a pipe or a file");

	ret = kmt_rec_check_access(err, sizeof(err));
	if (ret)
		return kmt_error(KMT_EXIT_RUNTIME, "%s", err);
	code = target_pids(&t);
	if (code) {
		target_free(&t);
		return code;
	}

	target_signals();
	memset(&cfg, 0, sizeof(cfg));
	if (slab)
		cfg.groups |= KMT_REC_SLAB;
	if (page)
		cfg.groups |= KMT_REC_PAGE;
	if (percpu)
		cfg.groups |= KMT_REC_PERCPU;
	if (vmalloc)
		cfg.groups |= KMT_REC_VMALLOC;
	if (!cfg.groups)
		cfg.groups = KMT_REC_DEFAULT_GROUPS;
	if (no_percpu)
		cfg.groups &= ~(unsigned int)KMT_REC_PERCPU;
	if (no_vmalloc)
		cfg.groups &= ~(unsigned int)KMT_REC_VMALLOC;
	if (pcpu)
		cfg.groups |= KMT_REC_PCPU;
	if (extfrag)
		cfg.groups |= KMT_REC_EXTFRAG;
	cfg.stacks = stacks;
	cfg.buffer_kb = buffer_kb;
	cfg.output = output;
	/* where the pages of "-o -" or "-o /dev/null" wait until the end */
	cfg.tmpdir = getenv("TMPDIR");
	cfg.version = "kmemtrace " KMT_VERSION;
	cfg.no_kallsyms = no_kallsyms;

	kmt_rec_init(&rec);
	ret = kmt_rec_setup(&rec, &cfg);
	if (ret)
		goto fail;
	if (!quiet && rec.nr_missing)
		warn_missing(&rec);
	/* with the recording on stdout, the command's goes to stderr */
	code = target_prepare(&t, !strcmp(output, "-") ?
			      KMT_WORKLOAD_STDOUT_TO_STDERR : 0);
	if (code)
		goto fail_said;
	if (t.have_cmd && t.follow) {
		ret = kmt_rec_set_pids(&rec, &t.wl.pid, 1, 1);
		if (ret)
			goto fail;
	} else if (t.nr_pids) {
		ret = kmt_rec_set_pids(&rec, t.pids, t.nr_pids, 0);
		if (ret)
			goto fail;
	}
	if (target_stop_signal())
		goto interrupted;
	ret = kmt_rec_start(&rec);
	if (ret)
		goto fail;
	if (!quiet && rec.kcounters_why[0])
		kmt_warning("%s: the kernel's slab counters are not recorded (report --caches says so)",
			    rec.kcounters_why);
	if (!quiet && rec.cgroups_why[0])
		kmt_warning("no task-to-cgroup map: %s", rec.cgroups_why);
	code = target_start(&t);
	if (code)
		goto fail_said;
	if (!t.have_cmd && !quiet && !t.duration)
		fprintf(stderr, "kmemtrace record: recording %s; Ctrl-C to stop\n",
			t.nr_pids ? "the given processes" : "all CPUs");

	while (!target_done(&t) && !kmt_rec_failed(&rec)) {
		struct timespec tick = { 0, 50 * 1000 * 1000 };

		nanosleep(&tick, NULL);
	}
	target_stop(&t);

	kmt_rec_stop(&rec);
	/* a reader of -o - that is gone is an error to report, not a kill */
	signal(SIGPIPE, SIG_IGN);
	ret = kmt_rec_write(&rec, &res);
	if (ret && !res.truncated)
		goto fail;
	if (!quiet || ret)
		print_summary(&rec, &res, output);
	if (ret)
		code = kmt_error(KMT_EXIT_RUNTIME, "%s", rec.errmsg);
	kmt_rec_free(&rec);
	code = target_finish(&t, code);
	target_free(&t);
	return code;

interrupted:
	snprintf(rec.errmsg, sizeof(rec.errmsg), "interrupted before recording");
	code = 128 + target_stop_signal();
	goto fail_code;
fail:
	code = KMT_EXIT_RUNTIME;
fail_code:
	kmt_error(code, "%s", rec.errmsg);
fail_said:
	kmt_rec_free(&rec);
	target_abort(&t);
	target_free(&t);
	return code;
}
