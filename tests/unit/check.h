/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMT_TESTS_CHECK_H
#define KMT_TESTS_CHECK_H

/*
 * A tiny unit-test harness: each test is a function; CHECK records a
 * failure with its place and goes on; KMT_TESTS() writes main(), which
 * prints "ok N - name" or "not ok N - name" per test for tests/run.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kmt_test_failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		kmt_test_failed = 1;					\
	}								\
} while (0)

#define CHECK_EQ_U64(a, b) do {						\
	unsigned long long _a = (a), _b = (b);				\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: %s == %s: %llu != %llu\n",	\
			__FILE__, __LINE__, #a, #b, _a, _b);		\
		kmt_test_failed = 1;					\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || !_b || strcmp(_a, _b)) {				\
		fprintf(stderr, "%s:%d: %s == %s: \"%s\" != \"%s\"\n",	\
			__FILE__, __LINE__, #a, #b, _a ? _a : "(null)",	\
			_b ? _b : "(null)");				\
		kmt_test_failed = 1;					\
	}								\
} while (0)

/*
 * A file of the test data directory, $KMT_TEST_DATA (tests/run.sh sets
 * it), else tests/data from here; NUL-terminated, free() it.
 */
static inline char *kmt_test_read_data(const char *rel, size_t *len)
{
	const char *dir = getenv("KMT_TEST_DATA");
	char path[4096];
	char *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "tests/data",
		 rel);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open '%s' (set KMT_TEST_DATA)\n", path);
		return NULL;
	}
	for (;;) {
		size_t r;

		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		if (!r)
			break;
		n += r;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

struct kmt_test {
	const char *name;
	void (*fn)(void);
};

#define KMT_TEST(fn) { #fn, fn }

#define KMT_TESTS(...)							\
int main(void)								\
{									\
	static const struct kmt_test tests[] = { __VA_ARGS__ };	\
	size_t i, failed = 0;						\
									\
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {	\
		kmt_test_failed = 0;					\
		tests[i].fn();						\
		printf("%sok %zu - %s\n", kmt_test_failed ? "not " : "",	\
		       i + 1, tests[i].name);				\
		failed += kmt_test_failed;				\
	}								\
	return failed ? 1 : 0;						\
}

#endif
