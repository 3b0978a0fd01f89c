/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The regular expressions of JSON Schema's "pattern" and
 * "patternProperties", by PCRE2, which has the lookahead our schemas use and
 * which POSIX regcomp lacks. JSON Schema's dialect is ECMA-262; PCRE2 is told
 * the parts of it that differ from Perl's: $ matches only at the very end
 * (not before a final newline), \uHHHH is a code point, and patterns and
 * subjects are UTF-8. Matching is, as JSON Schema says, unanchored: "a"
 * matches "cat". \d and \w are ASCII, as in ECMA-262; \s is ASCII white space
 * only (ECMA-262 adds Unicode's). */
#ifndef IOPSAMPLE_ECMA_REGEX_H
#define IOPSAMPLE_ECMA_REGEX_H

#include <stdbool.h>
#include <stddef.h>

#include "log.h"

struct ecma_regex;

/* NULL with why (the pattern, and PCRE2's message and offset) when it does
 * not compile. */
struct ecma_regex *ecma_regex_compile(const char *pattern, struct errbuf *why);
/* Whether re matches anywhere in s[0..len), which may hold NUL bytes. A
 * subject PCRE2 cannot decide (not UTF-8, or past its match limit) does
 * not match. Safe from several threads at once. */
bool ecma_regex_search(const struct ecma_regex *re, const char *s, size_t len);
void ecma_regex_free(struct ecma_regex *re);

#endif
