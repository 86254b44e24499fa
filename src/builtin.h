/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BUILTIN_H
#define KMT_BUILTIN_H

#include <stddef.h>
#include <stdio.h>

#define KMT_VERSION "0.1"

/* every command: argv[0] is the command's name; returns the exit code */
struct kmt_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_report(int argc, char **argv);
int cmd_pageowner(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);
/* kmemtrace pageowner --diff A B (cmd-diff.c) */
int cmd_pageowner_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_allocinfo(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* execs man for kmemtrace-<command>(1), kmemtrace(1) when NULL; 1 if it cannot */
int show_man_page(const char *command);

/*
 * The exit codes, the same for the same kind of mistake in every command.
 * record and stat with "-- CMD" exit with CMD's status instead when they
 * ran it to its end.
 */
enum kmt_exit {
	KMT_EXIT_OK = 0,
	/* the input cannot be opened or read, is damaged or of no known format */
	KMT_EXIT_INPUT = 1,
	/* out of memory, cannot write the output, cannot trace, cannot start CMD */
	KMT_EXIT_RUNTIME = 2,
	/*
	 * report: the report was made, but part of the input could not be
	 * read; its header says how much, where and why
	 */
	KMT_EXIT_PARTIAL = 3,
	/* unknown option, bad value, conflicting options, unknown sort key */
	KMT_EXIT_USAGE = 129,
};

/*
 * Messages, one line each on stderr, named after the command that
 * kmt_parse_options was given:
 *	kmemtrace report: error: <what>
 *	kmemtrace report: error: <what> (see 'kmemtrace report -h')
 *	kmemtrace report: warning: <what>
 * With --json (kmt_parse_options sees it), an error is also printed as
 * {"error": "<what>"} on stdout.  kmt_error and kmt_usage_error return
 * the exit code, so that a command can `return kmt_error(...)`.
 */
void kmt_set_command(const char *name);
const char *kmt_command_name(void);	/* "kmemtrace report" */
void kmt_errors_as_json(int on);
/* while locked, kmt_errors_as_json changes nothing: a command run
 * inside another keeps the outer one's choice */
void kmt_errors_lock_json(int locked);
int kmt_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int kmt_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void kmt_warning(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* the exit code of a failed read: out of memory is no fault of the input */
int kmt_read_exit(int err);
/*
 * A lib engine's step that failed (enum kmt_run_status, run/report.h):
 * msg said as its exit status means (a usage error, the input's fault,
 * a read's as kmt_read_exit of read_err, or the machine's), or not at
 * all when msg is empty; the exit status.
 */
int kmt_run_exit(int status, int read_err, const char *msg);

/*
 * The input of a command that reads one (report, check, pageowner):
 * given as -i FILE (opt) or as a positional argument (pos), not both;
 * '-' is stdin.  When neither is given: stdin when it is a pipe
 * (`kmemtrace record -o - | kmemtrace report`), else dflt, which must
 * exist.  Returns 0; KMT_EXIT_USAGE after the message; or KMT_EXIT_INPUT
 * with the message in msg ("no input: <dflt> does not exist (<hint>)"),
 * for the command to print its way (JSON too).
 */
int kmt_choose_input(const char *opt, const char *pos, const char *dflt,
		     const char *hint, const char **input, char *msg,
		     size_t len);

struct kmt_renderer;

/*
 * --format NAME of every command but report (format.c): text, json,
 * csv or ndjson, the renderers that draw any sections, text by default, json
 * with --json (json set), which excludes --format.  The renderer in
 * *rd, and errors as JSON too for json; 0, or KMT_EXIT_USAGE after the
 * message.  kmt_list_section_formats is --format's list of words.
 */
int kmt_choose_section_format(const char *format, int json,
			      const struct kmt_renderer **rd);
void kmt_list_section_formats(FILE *out, int help);

/* -o: the output opened for writing, '-' being stdout; NULL with errno */
FILE *kmt_open_output(const char *path);
/*
 * Flushes out and closes it unless it is stdout or stderr; 0, or
 * KMT_EXIT_RUNTIME after saying that path (or "the standard output")
 * could not be written: why is err when a write already failed with it
 * (the caller's errno, 0 if none), else what the flush found.
 */
int kmt_close_output(FILE *out, const char *path, int err);
/*
 * The same for a file that must never be seen half written (an HTML
 * page, a pprof profile): written as a temporary file beside path (its
 * name in tmp, len bytes), renamed to path when whole, removed if not.
 * Standard output and devices are written directly.
 */
FILE *kmt_open_output_whole(const char *path, char *tmp, size_t len);
int kmt_close_output_whole(FILE *out, const char *path, const char *tmp,
			   int err);

#endif
