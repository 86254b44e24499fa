/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_BUILTIN_H
#define KMT_BUILTIN_H

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
int cmd_stat(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_watch(int argc, char **argv);

#endif
