/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A tiny unit-test harness. Each test file is one program:
 *
 *   TEST(parses_units) { EXPECT_EQ(x, 3); ... }
 *
 * main() runs every TEST in file order and prints one line per test,
 * "PASS name" or "FAIL name: file:line: what"; tests/run counts the lines.
 * A test stops at its first failed expectation; SKIP("why") stops it as
 * "SKIP name: why". */
#ifndef IOPSAMPLE_TESTING_H
#define IOPSAMPLE_TESTING_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

static struct test_case test_cases_[512];
static int test_count_;
static jmp_buf test_abort_;
static char test_why_[1024];
static int test_skipped_;

#define SKIP(why)                                                         \
	do {                                                              \
		snprintf(test_why_, sizeof(test_why_), "%s", (why));      \
		test_skipped_ = 1;                                        \
		longjmp(test_abort_, 1);                                  \
	} while (0)

#define TEST(name)                                                                \
	static void name(void);                                                   \
	__attribute__((constructor)) static void test_register_##name(void)      \
	{                                                                         \
		test_cases_[test_count_++] = (struct test_case){#name, name};    \
	}                                                                         \
	static void name(void)

static void __attribute__((noreturn, format(printf, 3, 4)))
test_fail_(const char *file, int line, const char *fmt, ...)
{
	int n = snprintf(test_why_, sizeof(test_why_), "%s:%d: ", file, line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(test_why_ + n, sizeof(test_why_) - (size_t)n, fmt, ap);
	va_end(ap);
	longjmp(test_abort_, 1);
}

#define FAILF(...) test_fail_(__FILE__, __LINE__, __VA_ARGS__)

/* The text of tests/fixtures/proc/NAME (under $TESTS when it is set), in
 * the harness's buffer, which the next call reuses; a test that cannot
 * read it fails there. */
static __attribute__((unused)) const char *test_fixture(const char *name)
{
	static char buf[65536];
	char path[512];
	snprintf(path, sizeof(path), "%s/fixtures/proc/%s", getenv("TESTS") ? getenv("TESTS") : "tests", name);
	FILE *f = fopen(path, "re");
	if (!f)
		FAILF("cannot read fixture %s", path);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

#define EXPECT(cond)                                      \
	do {                                              \
		if (!(cond))                              \
			FAILF("expected %s", #cond);      \
	} while (0)

#define EXPECT_EQ(actual, expected)                                                         \
	do {                                                                                \
		long long a_ = (long long)(actual), e_ = (long long)(expected);             \
		if (a_ != e_)                                                               \
			FAILF("%s is %lld, expected %lld", #actual, a_, e_);                 \
	} while (0)

#define EXPECT_STR(actual, expected)                                                        \
	do {                                                                                \
		const char *a_ = (actual), *e_ = (expected);                                \
		if (!a_ || strcmp(a_, e_))                                                  \
			FAILF("%s is \"%s\", expected \"%s\"", #actual, a_ ? a_ : "(null)", e_); \
	} while (0)

#define EXPECT_CONTAINS(haystack, needle)                                                  \
	do {                                                                               \
		const char *h_ = (haystack), *n_ = (needle);                               \
		if (!h_ || !strstr(h_, n_))                                                \
			FAILF("%s is \"%s\", which lacks \"%s\"", #haystack, h_ ? h_ : "(null)", n_); \
	} while (0)

/* setjmp in its own frame: nothing of main's is live across the longjmp */
static int test_run_one_(const struct test_case *t)
{
	if (setjmp(test_abort_) == 0) {
		t->fn();
		printf("PASS %s\n", t->name);
		return 0;
	}
	if (test_skipped_) {
		test_skipped_ = 0;
		printf("SKIP %s: %s\n", t->name, test_why_);
		return 0;
	}
	printf("FAIL %s: %s\n", t->name, test_why_);
	return 1;
}

int main(void)
{
	int failed = 0;
	for (int i = 0; i < test_count_; i++) {
		failed += test_run_one_(&test_cases_[i]);
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

#endif
