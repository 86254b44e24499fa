// SPDX-License-Identifier: GPL-2.0
/*
 * The command line's messages and the conventions every command shares:
 * one line per message, named after the command; where the input comes
 * from; where the output goes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "run/report.h"
#include "util/json.h"

/* set once, as a command starts: the name its messages carry */
static char command_name[64] = "kmemtrace";
/* --json given: errors are {"error": ...} on stdout too */
static int json_errors;
/* a command run inside another (diff runs report) keeps the outer's */
static int json_errors_locked;

void kmt_set_command(const char *name)
{
	snprintf(command_name, sizeof(command_name), "kmemtrace %s", name);
}

const char *kmt_command_name(void)
{
	return command_name;
}

void kmt_errors_as_json(int on)
{
	if (!json_errors_locked)
		json_errors = on;
}

void kmt_errors_lock_json(int locked)
{
	json_errors_locked = locked;
}

static void say(const char *kind, const char *fmt, va_list ap,
		const char *tail)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (json_errors && !strcmp(kind, "error")) {
		kmt_json_error(stdout, msg);
		fflush(stdout);
	}
	fprintf(stderr, "%s: %s: %s%s\n", command_name, kind, msg, tail);
}

int kmt_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("error", fmt, ap, "");
	va_end(ap);
	return code;
}

int kmt_usage_error(const char *fmt, ...)
{
	char tail[96];
	va_list ap;

	snprintf(tail, sizeof(tail), " (see '%s -h')", command_name);
	va_start(ap, fmt);
	say("error", fmt, ap, tail);
	va_end(ap);
	return KMT_EXIT_USAGE;
}

void kmt_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning", fmt, ap, "");
	va_end(ap);
}

int kmt_read_exit(int err)
{
	return err == -ENOMEM || err == ENOMEM ? KMT_EXIT_RUNTIME :
						 KMT_EXIT_INPUT;
}

int kmt_run_exit(int status, int read_err, const char *msg)
{
	int code;

	switch (status) {
	case KMT_RUN_OK:
		return KMT_EXIT_OK;
	case KMT_RUN_E_SPEC:
		return kmt_usage_error("%s", msg);
	case KMT_RUN_E_INPUT:
		code = KMT_EXIT_INPUT;
		break;
	case KMT_RUN_E_READ:
		code = kmt_read_exit(read_err);
		break;
	default:
		code = KMT_EXIT_RUNTIME;
		break;
	}
	return *msg ? kmt_error(code, "%s", msg) : code;
}

int kmt_choose_input(const char *opt, const char *pos, const char *dflt,
		     const char *hint, const char **input, char *msg,
		     size_t len)
{
	struct stat st;

	if (opt && pos)
		return kmt_usage_error("the input given twice, as -i '%s' and as '%s'",
				       opt, pos);
	*input = opt ? opt : pos;
	if (*input)
		return 0;
	/*
	 * perf's rule: a pipe on stdin is the input; a terminal, a file or
	 * /dev/null is not (scripts and cron jobs run with those)
	 */
	if (!fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode)) {
		*input = "-";
		return 0;
	}
	if (access(dflt, F_OK)) {
		snprintf(msg, len, "no input: %s does not exist (%s)", dflt,
			 hint);
		return KMT_EXIT_INPUT;
	}
	*input = dflt;
	return 0;
}

FILE *kmt_open_output(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	return fopen(path, "w");
}

FILE *kmt_open_output_whole(const char *path, char *tmp, size_t len)
{
	struct stat st;
	mode_t mask;
	int fd;

	tmp[0] = '\0';
	if (!path || !strcmp(path, "-") ||
	    (!stat(path, &st) && !S_ISREG(st.st_mode)))
		return kmt_open_output(path);
	if ((size_t)snprintf(tmp, len, "%s.kmt-XXXXXX", path) >= len) {
		tmp[0] = '\0';
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		tmp[0] = '\0';
		return NULL;
	}
	/* the mode fopen would give, not mkstemp's 0600 */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0) {
		/* not worth failing for */
	}
	return fdopen(fd, "w");
}

int kmt_close_output_whole(FILE *out, const char *path, const char *tmp,
			   int err)
{
	int ret = kmt_close_output(out, tmp[0] ? tmp : path, err);

	if (!tmp[0])
		return ret;
	if (!ret && rename(tmp, path) < 0)
		ret = kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s", path,
				strerror(errno));
	if (ret)
		unlink(tmp);
	return ret;
}

int kmt_close_output(FILE *out, const char *path, int err)
{
	char name[512];

	if (fflush(out) && !err)
		err = errno ? errno : EIO;
	/* a write that failed before, its errno gone */
	if (!err && ferror(out))
		err = EIO;
	if (err < 0)
		err = -err;
	if (out != stdout && out != stderr && fclose(out) && !err)
		err = errno ? errno : EIO;
	if (!err)
		return 0;
	if (out == stdout || out == stderr)
		snprintf(name, sizeof(name), "the standard %s",
			 out == stdout ? "output" : "error");
	else
		snprintf(name, sizeof(name), "'%s'", path);
	return kmt_error(KMT_EXIT_RUNTIME, "cannot write %s: %s", name,
			 strerror(err));
}
