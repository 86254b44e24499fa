// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: the command line.  One table names every command with its
 * one-line summary; each command lives in src/cmd-<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

static const struct kmt_command commands[] = {
	{ "record",	cmd_record,	"capture kmem events losslessly into a trace.dat" },
	{ "report",	cmd_report,	"analyse a recording: slab, page, callers, lost events" },
	{ "pageowner",	cmd_pageowner,	"analyse page_owner dumps (page_owner_sort's job, faster)" },
	{ "diff",	cmd_diff,	"compare two recordings, or a saved report and a recording" },
	{ "check",	cmd_check,	"verify a recording: events, order, truncation, lost events" },
	{ "stat",	cmd_stat,	"count kmem events and their rates, live" },
	{ "top",	cmd_top,	"live view of kernel allocations by callsite, cache, process, stack (BPF)" },
	{ "watch",	cmd_watch,	"hunt leaks for hours: outstanding objects by stack, with their trend (BPF)" },
	{ "serve",	cmd_serve,	"an agent: Prometheus /metrics and pprof /debug/pprof/heap over HTTP (BPF)" },
	{ "allocinfo",	cmd_allocinfo,	"read /proc/allocinfo: top callsites, totals, growth between snapshots" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: kmemtrace <command> [<options>]\n\n");
	fprintf(out, "Trace and analyse Linux kernel memory allocation.\n\n");
	fprintf(out, "commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "   %-10s  %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\n'kmemtrace <command> -h' shows a command's options.\n");
	fprintf(out, "'kmemtrace help <command>' shows its manual page.\n");
}

/* kmemtrace help [<command>]: the manual page (src/help.c) */
static int help(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return show_man_page(NULL);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: kmemtrace help [<command>]\n");
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "kmemtrace help: error: one command at a time (see 'kmemtrace help -h')\n");
		return KMT_EXIT_USAGE;
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name))
			return show_man_page(argv[1]);
	}
	fprintf(stderr, "kmemtrace help: error: '%s' is not a kmemtrace command (see 'kmemtrace -h')\n",
		argv[1]);
	return KMT_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 129;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version")) {
		printf("kmemtrace %s\n", KMT_VERSION);
		return 0;
	}
	/* for the completion script; 'kmemtrace <cmd> --list-opts' too */
	if (!strcmp(argv[1], "--list-cmds")) {
		for (i = 0; i < NR_COMMANDS; i++)
			printf("%s\n", commands[i].name);
		return 0;
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "kmemtrace: error: '%s' is not a kmemtrace command (see 'kmemtrace -h')\n",
		argv[1]);
	return KMT_EXIT_USAGE;
}
