/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_OPTIONS_H
#define KMT_OPTIONS_H

/*
 * Options as data: each command declares a table, and `-h` is generated
 * from it, so the help is always what the parser accepts.
 */
enum kmt_opt_type {
	KMT_OPT_END = 0,
	KMT_OPT_GROUP,		/* a heading in the help */
	KMT_OPT_BOOL,		/* int *: set to 1 */
	KMT_OPT_INT,		/* int *: a decimal number */
	KMT_OPT_U64,		/* unsigned long long * */
	KMT_OPT_STRING,		/* const char **: the argument as given */
	KMT_OPT_LIST,		/* const char **: repeated use joins with ',' */
};

struct kmt_option {
	enum kmt_opt_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* placeholder of the argument in the help */
	const char *help;
};

#define OPT_END()				{ KMT_OPT_END, 0, NULL, NULL, NULL, NULL }
#define OPT_GROUP(h)				{ KMT_OPT_GROUP, 0, NULL, NULL, NULL, (h) }
#define OPT_BOOL(s, l, v, h)			{ KMT_OPT_BOOL, (s), (l), (v), NULL, (h) }
#define OPT_INT(s, l, v, a, h)			{ KMT_OPT_INT, (s), (l), (v), (a), (h) }
#define OPT_U64(s, l, v, a, h)			{ KMT_OPT_U64, (s), (l), (v), (a), (h) }
#define OPT_STRING(s, l, v, a, h)		{ KMT_OPT_STRING, (s), (l), (v), (a), (h) }
#define OPT_LIST(s, l, v, a, h)			{ KMT_OPT_LIST, (s), (l), (v), (a), (h) }

/* stop at the first argument that is not an option (for `-- CMD`) */
#define KMT_PARSE_STOP_AT_NON_OPTION 1

/*
 * Parses argv[1..] against opts.  Options and positional arguments may
 * mix; "--" ends the options.  Returns the number of positional
 * arguments, moved to argv[0..n-1].  -h/--help prints the usage and
 * exits 0; an unknown option or a bad value prints a one-line error and
 * the usage to stderr and exits 129.
 */
int kmt_parse_options(int argc, char **argv, const struct kmt_option *opts,
		      const char *const *usage, int flags);
void kmt_usage_with_options(const char *const *usage,
			    const struct kmt_option *opts, int to_stderr);

#endif
