// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "options.h"
#include "util/duration.h"

static int shown(const struct kmt_option *o)
{
	return o->type != KMT_OPT_GROUP && !(o->flags & KMT_OPT_HIDDEN);
}

void kmt_usage_with_options(const char *const *usage,
			    const struct kmt_option *opts, FILE *out)
{
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
		if (!shown(o))
			continue;
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
	for (o = opts; o->type != KMT_OPT_END; o++) {
		if (o->values && shown(o))
			o->values(out, 1);
	}
}

void kmt_help_wrap(FILE *out, const char *head, int indent, const char *text)
{
	int col = fprintf(out, "%-*s", indent, head);

	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > indent && col + 1 + (int)word > 79) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, word, out);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

/* every spelling of every option, for the completion script */
static void list_options(const struct kmt_option *opts)
{
	const struct kmt_option *o;

	for (o = opts; o->type != KMT_OPT_END; o++) {
		const char *sep = o->argh ? " <" : "";
		const char *argh = o->argh ? o->argh : "";
		const char *end = o->argh ? ">" : "";

		if (!shown(o))
			continue;
		if (o->short_name)
			printf("-%c%s%s%s\n", o->short_name, sep, argh, end);
		if (o->long_name)
			printf("--%s%s%s%s\n", o->long_name, sep, argh, end);
	}
	printf("-h\n--help\n");
}

/* the option spelled name ("-s", "--sort"), or NULL */
static const struct kmt_option *find_spelling(const struct kmt_option *opts,
					      const char *name)
{
	const struct kmt_option *o;

	for (o = opts; o->type != KMT_OPT_END; o++) {
		if (o->type == KMT_OPT_GROUP)
			continue;
		if (name[0] == '-' && name[1] == '-' && o->long_name &&
		    !strcmp(name + 2, o->long_name))
			return o;
		if (name[0] == '-' && name[1] && !name[2] &&
		    o->short_name == name[1])
			return o;
	}
	return NULL;
}

static void list_values(const struct kmt_option *opts, const char *name)
{
	const struct kmt_option *o = find_spelling(opts, name);

	if (o && o->values)
		o->values(stdout, 0);
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

static void *must_alloc(void *p)
{
	if (!p) {
		kmt_error(KMT_EXIT_RUNTIME, "out of memory");
		exit(KMT_EXIT_RUNTIME);
	}
	return p;
}

static char *keep_joined(char *s)
{
	char **grown = must_alloc(realloc(joined_lists,
					  (nr_joined + 1) * sizeof(*joined_lists)));

	if (!joined_lists)
		atexit(free_joined_lists);
	joined_lists = grown;
	joined_lists[nr_joined++] = s;
	return s;
}

/* an alias' option: the one shown with the same value */
static const struct kmt_option *canonical(const struct kmt_option *opts,
					  const struct kmt_option *alias)
{
	const struct kmt_option *o;

	if (!(alias->flags & KMT_OPT_HIDDEN))
		return alias;
	for (o = opts; o->type != KMT_OPT_END; o++) {
		if (o->value == alias->value && shown(o))
			return o;
	}
	return alias;
}

/* what was given of each single-valued option, by value: aliases share it */
struct given {
	const void *value;
	const char *arg;
};

static void set_value(const struct kmt_option *o, const char *name,
		      const char *arg, struct given *given, size_t *nr_given)
{
	size_t i;

	if (o->type == KMT_OPT_INT || o->type == KMT_OPT_STRING ||
	    o->type == KMT_OPT_DURATION) {
		for (i = 0; i < *nr_given; i++) {
			if (given[i].value == o->value)
				exit(kmt_usage_error("option '%s' given twice ('%s', then '%s')",
						     name, given[i].arg, arg));
		}
		given[*nr_given].value = o->value;
		given[(*nr_given)++].arg = arg;
	}
	switch (o->type) {
	case KMT_OPT_BOOL:
		*(int *)o->value = 1;
		break;
	case KMT_OPT_INT: {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(arg, &end, 10);
		if (errno || end == arg || *end || *arg == ' ' ||
		    v < o->min || v > o->max) {
			exit(kmt_usage_error("option '%s' needs a number from %d to %d, not '%s'",
					     name, o->min, o->max, arg));
		}
		*(int *)o->value = (int)v;
		break;
	}
	case KMT_OPT_STRING:
		if ((o->flags & KMT_OPT_OUTPUT) && arg[0] == '-' && arg[1])
			exit(kmt_usage_error("option '%s' names the file to write, "
					     "not '%s', which looks like an option "
					     "(write ./%s for a file of that name)",
					     name, arg, arg));
		*(const char **)o->value = arg;
		break;
	case KMT_OPT_DURATION: {
		char least[48] = "", text[24];

		if (o->least_ns > 1)
			snprintf(least, sizeof(least), ", at least %s",
				 kmt_duration_text(o->least_ns, text,
						   sizeof(text)));
		else if (o->least_ns)
			snprintf(least, sizeof(least), ", above 0");
		if (kmt_parse_duration(arg, o->value) ||
		    *(uint64_t *)o->value < o->least_ns)
			exit(kmt_usage_error("option '%s' needs a duration such as "
					     "500ms, 2s or 1m%s, not '%s'", name,
					     least, arg));
		break;
	}
	case KMT_OPT_LIST: {
		const char **v = o->value;

		if (*v) {
			size_t len = strlen(*v) + strlen(arg) + 2;
			char *joined = must_alloc(malloc(len));

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
	const struct kmt_option *o, *json;
	struct given *given;
	size_t nr_opts = 0, nr_given = 0;
	int i, npos = 0;
	char **pos = argv;

	kmt_set_command(argv[0]);
	for (o = opts; o->type != KMT_OPT_END; o++)
		nr_opts++;
	/* errors in the command line itself are JSON too with --json */
	json = find_spelling(opts, "--json");
	for (i = 1; json && i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--json"))
			kmt_errors_as_json(1);
	}
	given = must_alloc(calloc(nr_opts + 1, sizeof(*given)));
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		char name[64];

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
			kmt_usage_with_options(usage, opts, stdout);
			exit(KMT_EXIT_OK);
		}
		if (!strcmp(arg, "--list-opts")) {
			list_options(opts);
			exit(KMT_EXIT_OK);
		}
		if (!strcmp(arg, "--list-values")) {
			if (i + 1 < argc)
				list_values(opts, argv[i + 1]);
			exit(KMT_EXIT_OK);
		}
		if (arg[1] == '-') {
			const char *long_name = arg + 2, *eq = strchr(long_name, '=');
			size_t len = eq ? (size_t)(eq - long_name) : strlen(long_name);

			snprintf(name, sizeof(name), "%.*s", (int)(len + 2), arg);
			for (o = opts; o->type != KMT_OPT_END; o++) {
				if (o->long_name && strlen(o->long_name) == len &&
				    !strncmp(o->long_name, long_name, len))
					break;
			}
			if (o->type == KMT_OPT_END)
				exit(kmt_usage_error("unknown option '%s'", name));
			o = canonical(opts, o);
			if (eq) {
				if (o->type == KMT_OPT_BOOL)
					exit(kmt_usage_error("option '%s' takes no value",
							     name));
				val = eq + 1;
			}
		} else {
			snprintf(name, sizeof(name), "-%c", arg[1]);
			for (o = opts; o->type != KMT_OPT_END; o++) {
				if (o->short_name && o->short_name == arg[1])
					break;
			}
			if (o->type == KMT_OPT_END ||
			    (arg[2] && o->type == KMT_OPT_BOOL))
				exit(kmt_usage_error("unknown option '%s'", arg));
			if (arg[2])
				val = arg + 2;
		}
		if (o->type != KMT_OPT_BOOL && !val) {
			if (i + 1 >= argc)
				exit(kmt_usage_error("option '%s' needs a value",
						     name));
			val = argv[++i];
		}
		set_value(o, name, val, given, &nr_given);
	}
	free(given);
	kmt_errors_as_json(json && *(int *)json->value);
	return npos;
}
