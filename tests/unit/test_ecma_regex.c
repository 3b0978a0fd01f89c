// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ecma_regex: the patterns schema/ uses, and ECMA-262's answers for them. */
#include "ecma_regex.h"
#include "testing.h"

struct row {
	const char *pattern, *subject;
	int match;
};

static void check_rows(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct errbuf why = {""};
		struct ecma_regex *re = ecma_regex_compile(rows[i].pattern, &why);
		if (!re)
			FAILF("%s does not compile: %s", rows[i].pattern, why.msg);
		bool got = ecma_regex_search(re, rows[i].subject, strlen(rows[i].subject));
		ecma_regex_free(re);
		if (got != rows[i].match)
			FAILF("/%s/ on \"%s\": %s, expected %s", rows[i].pattern, rows[i].subject,
			      got ? "match" : "no match", rows[i].match ? "match" : "no match");
	}
}

TEST(schema_patterns)
{
	static const struct row rows[] = {
		{"^[A-Za-z0-9._-]{1,128}$", "randread-4k", 1},
		{"^[A-Za-z0-9._-]{1,128}$", "a/b", 0},
		{"^[A-Za-z0-9._-]{1,128}$", "", 0},
		{"^[A-Za-z0-9._-]{1,128}$", "..", 1},
		{"^[^=]+=.*$", "episode.duration=30s", 1},
		{"^[^=]+=.*$", "=30s", 0},
		{"^[^=]+=.*$", "a=", 1},
		{"^[a-z0-9_]+\\.jsonl(\\.zst)?$", "proc_io.jsonl", 1},
		{"^[a-z0-9_]+\\.jsonl(\\.zst)?$", "proc_io.jsonl.zst", 1},
		{"^[a-z0-9_]+\\.jsonl(\\.zst)?$", "proc_io.jsonl.gz", 0},
		{"^[a-z0-9_]+\\.jsonl(\\.zst)?$", "proc_ioXjsonl", 0},
		{"^[0-9]+(ns|us|ms|s|m|h)$", "100ms", 1},
		{"^[0-9]+(ns|us|ms|s|m|h)$", "100", 0},
		{"^[0-9]+(ns|us|ms|s|m|h)$", "5 s", 0},
		{"^SIG", "SIGTERM", 1},
		{"^SIG", "TERM", 0},
		{"^/", "/tmp", 1},
	};
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

/* perf_event's event fields: any name but the envelope's and the derived. */
TEST(negative_lookahead_excludes_whole_names_only)
{
#define p "^(?!(episode|seq|ipc|running_pct)$)[a-z0-9_]{1,127}$"
	static const struct row rows[] = {
		{p, "cycles", 1},       {p, "ipc", 0},          {p, "seq", 0},
		{p, "ipc2", 1},         {p, "sequence", 1},     {p, "running_pct", 0},
		{p, "running_pct_", 1}, {p, "Cycles", 0},       {p, "", 0},
		{"a(?=b)", "ab", 1},    {"a(?=b)", "ac", 0},
	};
#undef p
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

TEST(unanchored_search_classes_and_repeats)
{
	static const struct row rows[] = {
		{"a", "cat", 1},           {"^a", "cat", 0},         {"t$", "cat", 1},
		{"c.t", "cut", 1},         {"c.t", "c\nt", 0},       {"\\d{3}", "ab123", 1},
		{"^\\d{3}$", "1234", 0},   {"^\\w+$", "a_B9", 1},    {"^\\w+$", "a-b", 0},
		{"^\\s*x", " \t x", 1},    {"^\\S+$", "a b", 0},     {"^[^a-c]+$", "xyz", 1},
		{"^[^a-c]+$", "xbz", 0},   {"^[a\\-z]$", "-", 1},    {"^[-a]$", "-", 1},
		{"^(ab)*$", "ababab", 1},  {"^(ab)*$", "aba", 0},    {"^(?:a|b)+c$", "abbac", 1},
		{"^a{2,}$", "a", 0},       {"^a{2,}$", "aaaa", 1},   {"^a{0}b$", "b", 1},
		{"^(a*)*$", "aaa", 1},     {"^(a*)*b$", "aaac", 0},  {"^(a|ab)c$", "abc", 1},
		{"^x?y$", "y", 1},         {"^\\.$", ".", 1},        {"^\\.$", "x", 0},
	};
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

/* What ECMA-262 means where Perl's defaults differ, and what PCRE2 adds
 * over the hand-written matcher it replaced. */
TEST(ecma262_where_perl_differs)
{
	static const struct row rows[] = {
		{"^a$", "a\n", 0},         {"a$", "a", 1},            {"^\\u0041$", "A", 1},
		{"^.$", "\xc3\xa9", 1},     {"^..$", "\xc3\xa9", 0},   {"^\\d$", "\xd9\xa3", 0},
		{"^\\w+$", "\xc3\xa9", 0}, {"a.c", "a\nc", 0},        {"^a+?$", "aaa", 1},
		{"\\bword\\b", "a word.", 1}, {"(a)\\1", "aa", 1},      {"^(?<n>a)b$", "ab", 1},
		{"^[^]]$", "x", 1},
	};
	check_rows(rows, sizeof(rows) / sizeof(rows[0]));
}

/* JSON strings may hold "\u0000": the subject is its length, not a C string. */
TEST(subjects_with_nul_bytes)
{
	struct errbuf why = {""};
	struct ecma_regex *re = ecma_regex_compile("^a.b$", &why), *nul = ecma_regex_compile("^a\\u0000", &why);
	EXPECT(re && nul);
	EXPECT(ecma_regex_search(re, "a\0b", 3));
	EXPECT(!ecma_regex_search(re, "a\0b", 2));
	EXPECT(ecma_regex_search(nul, "a\0b", 3));
	EXPECT(!ecma_regex_search(nul, "a0b", 3));
	ecma_regex_free(re);
	ecma_regex_free(nul);
}

TEST(what_does_not_compile_is_refused_with_its_offset)
{
	static const char *bad[] = {"[a", "(a", "a)", "*a", "a{2,1}", "a{1000000}", "(?<n>a)(?<n>b)",
				    "\\", "a(?", "\\k<x>"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct errbuf why = {""};
		struct ecma_regex *re = ecma_regex_compile(bad[i], &why);
		if (re) {
			ecma_regex_free(re);
			FAILF("\"%s\" compiled", bad[i]);
		}
		EXPECT_CONTAINS(why.msg, "at offset");
		EXPECT_CONTAINS(why.msg, bad[i]);
	}
}

/* A subject far longer than the pattern: greedy runs do not recurse per byte. */
TEST(long_subjects)
{
	size_t n = 1 << 20;
	char *s = malloc(n + 2);
	memset(s, 'a', n);
	s[n] = '=';
	s[n + 1] = '\0';
	struct errbuf why;
	struct ecma_regex *re = ecma_regex_compile("^[^=]+=.*$", &why);
	EXPECT(re);
	EXPECT(ecma_regex_search(re, s, n + 1));
	EXPECT(!ecma_regex_search(re, s, n));
	ecma_regex_free(re);
	free(s);
}
