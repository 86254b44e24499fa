// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

void kmt_usage_with_options(const char *const *usage,
			    const struct kmt_option *opts, int to_stderr)
{
	FILE *out = to_stderr ? stderr : stdout;
	const struct kmt_option *o;

	fprintf(out, "usage: %s\n", *usage++);
	while (*usage)
		fprintf(out, "   or: %s\n", *usage++);
	for (o = opts; o->type != KMT_OPT_END; o++) {
		char left[64];
		int n = 0;

		if (o->type == KMT_OPT_GROUP) {
			fprintf(out, "\n%s\n", o->help);
			continue;
		}
		if (o == opts)
			fputc('\n', out);
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c%s",
				      o->short_name, o->long_name ? ", " : "");
		else
			n += snprintf(left + n, sizeof(left) - n, "    ");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s",
				      o->long_name);
		if (o->argh)
			snprintf(left + n, sizeof(left) - n, " <%s>", o->argh);
		if (strlen(left) > 24)
			fprintf(out, "    %s\n%30s%s\n", left, "", o->help);
		else
			fprintf(out, "    %-24s  %s\n", left, o->help);
	}
}

static void die_usage(const char *const *usage, const struct kmt_option *opts,
		      const char *fmt, const char *arg)
{
	fprintf(stderr, "error: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	kmt_usage_with_options(usage, opts, 1);
	exit(129);
}

/*
 * Lists joined from repeated options (--pid 1 --pid 2) must outlive the
 * parse, as plain arguments do; they are freed when the process exits.
 */
static char **joined_lists;
static size_t nr_joined;

static void free_joined_lists(void)
{
	while (nr_joined)
		free(joined_lists[--nr_joined]);
	free(joined_lists);
	joined_lists = NULL;
}

static char *keep_joined(char *s)
{
	char **grown = realloc(joined_lists,
			       (nr_joined + 1) * sizeof(*joined_lists));

	if (!grown) {
		fprintf(stderr, "error: out of memory\n");
		exit(1);
	}
	if (!joined_lists)
		atexit(free_joined_lists);
	joined_lists = grown;
	joined_lists[nr_joined++] = s;
	return s;
}

static void set_value(const struct kmt_option *o, const char *arg,
		      const char *const *usage, const struct kmt_option *opts)
{
	char *end;

	switch (o->type) {
	case KMT_OPT_BOOL:
		*(int *)o->value = 1;
		break;
	case KMT_OPT_INT: {
		long v;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < -2147483647L ||
		    v > 2147483647L)
			die_usage(usage, opts, "'%s' is not a number", arg);
		*(int *)o->value = (int)v;
		break;
	}
	case KMT_OPT_U64: {
		unsigned long long v;

		errno = 0;
		v = strtoull(arg, &end, 0);
		if (errno || *end || end == arg || *arg == '-')
			die_usage(usage, opts, "'%s' is not a number", arg);
		*(unsigned long long *)o->value = v;
		break;
	}
	case KMT_OPT_STRING:
		*(const char **)o->value = arg;
		break;
	case KMT_OPT_LIST: {
		const char **v = o->value;

		if (*v) {
			size_t len = strlen(*v) + strlen(arg) + 2;
			char *joined = malloc(len);

			if (!joined) {
				fprintf(stderr, "error: out of memory\n");
				exit(1);
			}
			snprintf(joined, len, "%s,%s", *v, arg);
			*v = keep_joined(joined);
		} else {
			*v = arg;
		}
		break;
	}
	default:
		break;
	}
}

int kmt_parse_options(int argc, char **argv, const struct kmt_option *opts,
		      const char *const *usage, int flags)
{
	int i, npos = 0;
	char **pos = argv;

	for (i = 1; i < argc; i++) {
		const struct kmt_option *o;
		const char *arg = argv[i], *val = NULL;

		if (!strcmp(arg, "--")) {
			for (i++; i < argc; i++)
				pos[npos++] = argv[i];
			break;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (flags & KMT_PARSE_STOP_AT_NON_OPTION) {
				for (; i < argc; i++)
					pos[npos++] = argv[i];
				break;
			}
			pos[npos++] = argv[i];
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			kmt_usage_with_options(usage, opts, 0);
			exit(0);
		}
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			for (o = opts; o->type != KMT_OPT_END; o++) {
				if (o->long_name && strlen(o->long_name) == len &&
				    !strncmp(o->long_name, name, len))
					break;
			}
			if (o->type == KMT_OPT_END)
				die_usage(usage, opts, "unknown option '%s'", arg);
			if (eq) {
				if (o->type == KMT_OPT_BOOL)
					die_usage(usage, opts,
						  "option '%s' takes no value", arg);
				val = eq + 1;
			}
		} else {
			for (o = opts; o->type != KMT_OPT_END; o++) {
				if (o->short_name && o->short_name == arg[1])
					break;
			}
			if (o->type == KMT_OPT_END)
				die_usage(usage, opts, "unknown switch '%s'", arg);
			if (arg[2]) {
				if (o->type == KMT_OPT_BOOL)
					die_usage(usage, opts,
						  "unknown switch '%s'", arg);
				val = arg + 2;
			}
		}
		if (o->type != KMT_OPT_BOOL && !val) {
			if (i + 1 >= argc)
				die_usage(usage, opts, "option '%s' needs a value",
					  arg);
			val = argv[++i];
		}
		set_value(o, val, usage, opts);
	}
	return npos;
}
