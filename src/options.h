/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_OPTIONS_H
#define KMT_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

/*
 * Options as data: each command declares a table, and `-h` is generated
 * from it, so the help is always what the parser accepts.  The same table
 * answers the completion script (--list-opts, --list-values), so that
 * cannot drift either.
 */
enum kmt_opt_type {
	KMT_OPT_END = 0,
	KMT_OPT_GROUP,		/* a heading in the help */
	KMT_OPT_BOOL,		/* int *: set to 1 */
	KMT_OPT_INT,		/* int *: a decimal number from min to max */
	KMT_OPT_STRING,		/* const char **: the argument as given */
	KMT_OPT_LIST,		/* const char **: repeated use joins with ',' */
	/*
	 * uint64_t *: nanoseconds, in the one grammar of durations
	 * (util/duration.h), at least least_ns (1: above 0)
	 */
	KMT_OPT_DURATION,
};

enum kmt_opt_flags {
	/* accepted, but neither in -h nor offered for completion (aliases) */
	KMT_OPT_HIDDEN = 1 << 0,
	/*
	 * KMT_OPT_STRING naming a file to write: an argument that looks
	 * like an option ("-i") is refused, since writing a file of that
	 * name is never what was meant ("--html -i FILE"); "-" is stdout
	 * and "./-i" still names such a file
	 */
	KMT_OPT_OUTPUT = 1 << 1,
};

struct kmt_option {
	enum kmt_opt_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* placeholder of the argument in the help */
	const char *help;
	int min, max;		/* KMT_OPT_INT: the bounds */
	uint64_t least_ns;	/* KMT_OPT_DURATION: the least value */
	unsigned int flags;
	/*
	 * Optional: the words the argument is made of (sort keys).  With
	 * help, a block for the end of -h (a blank line, a heading, ...) or
	 * nothing; without, one word a line, for completion.
	 */
	void (*values)(FILE *out, int help);
};

#define OPT_END()				{ .type = KMT_OPT_END }
#define OPT_GROUP(h)				{ .type = KMT_OPT_GROUP, .help = (h) }
#define OPT_BOOL(s, l, v, h)						\
	{ .type = KMT_OPT_BOOL, .short_name = (s), .long_name = (l),	\
	  .value = (v), .help = (h) }
#define OPT_INT(s, l, v, a, lo, hi, h)					\
	{ .type = KMT_OPT_INT, .short_name = (s), .long_name = (l),	\
	  .value = (v), .argh = (a), .help = (h), .min = (lo), .max = (hi) }
#define OPT_STRING(s, l, v, a, h)					\
	{ .type = KMT_OPT_STRING, .short_name = (s), .long_name = (l),	\
	  .value = (v), .argh = (a), .help = (h) }
#define OPT_LIST(s, l, v, a, h)						\
	{ .type = KMT_OPT_LIST, .short_name = (s), .long_name = (l),	\
	  .value = (v), .argh = (a), .help = (h) }
/* a file to write (KMT_OPT_OUTPUT) */
#define OPT_OUTPUT(s, l, v, a, h)					\
	{ .type = KMT_OPT_STRING, .short_name = (s), .long_name = (l),	\
	  .value = (v), .argh = (a), .help = (h), .flags = KMT_OPT_OUTPUT }
/* a duration in ns (500ms, 2s, 1m); positive: 0 is refused */
#define OPT_DURATION(s, l, v, a, positive, h)				\
	OPT_DURATION_MIN(s, l, v, a, !!(positive), h)
/* a duration in ns of at least least ns: a refresh that must not spin */
#define OPT_DURATION_MIN(s, l, v, a, least, h)				\
	{ .type = KMT_OPT_DURATION, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .help = (h), .least_ns = (least) }
/* a string whose words values() lists */
#define OPT_WORDS(s, l, v, a, fn, h)					\
	{ .type = KMT_OPT_STRING, .short_name = (s), .long_name = (l),	\
	  .value = (v), .argh = (a), .help = (h), .values = (fn) }
#define OPT_LIST_WORDS(s, l, v, a, fn, h)				\
	{ .type = KMT_OPT_LIST, .short_name = (s), .long_name = (l),	\
	  .value = (v), .argh = (a), .help = (h), .values = (fn) }
/*
 * Another long name of the option shown with the same value, and parsed
 * as it is; not in -h.
 */
#define OPT_ALIAS(l, v)							\
	{ .type = KMT_OPT_BOOL, .long_name = (l), .value = (v),		\
	  .flags = KMT_OPT_HIDDEN }

/* stop at the first argument that is not an option (for `-- CMD`) */
#define KMT_PARSE_STOP_AT_NON_OPTION 1

/*
 * Parses argv[1..] against opts; argv[0] is the command's name, which
 * every message of the command then carries.  Options and positional
 * arguments may mix; "--" ends the options.  Returns the number of
 * positional arguments, moved to argv[0..n-1].
 *
 * -h/--help prints the usage to stdout and exits 0.  An unknown option,
 * a bad or missing value, or a single-valued option given twice prints
 * one line (kmt_usage_error) and exits 129.  An alias shares its
 * option's value, so "-l 1 --line 2" is a repetition too.
 *
 * For the completion script, and not in -h: --list-opts prints each
 * option's spellings, one a line, followed by " <argh>" when it takes a
 * value; --list-values <option> prints the words the option takes.
 */
int kmt_parse_options(int argc, char **argv, const struct kmt_option *opts,
		      const char *const *usage, int flags);
void kmt_usage_with_options(const char *const *usage,
			    const struct kmt_option *opts, FILE *out);

/*
 * head, padded to indent columns, then text in lines of 79 columns at
 * most, cut between words and indented alike: the values blocks of -h
 */
void kmt_help_wrap(FILE *out, const char *head, int indent, const char *text);

#endif
