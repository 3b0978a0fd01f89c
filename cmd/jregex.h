/* The regular expressions of JSON Schema's "pattern" and
 * "patternProperties": the ECMA-262 subset our schemas use, which POSIX
 * regcomp cannot take (negative lookahead).
 *
 * Supported: literals and escapes (\. \/ \- \n \t ...), . \d \D \w \W \s \S,
 * [classes] with ranges and ^, ^ $, groups (...) (?:...), lookahead (?=...)
 * (?!...), alternation |, greedy * + ? {n} {n,} {n,m}. Anything else (lazy
 * quantifiers, backreferences, \b, \u escapes) is refused when compiled, so a
 * schema cannot silently mean something else here. Matching is on bytes and,
 * as JSON Schema says, unanchored: "a" matches "cat". */
#ifndef IOPSAMPLE_JREGEX_H
#define IOPSAMPLE_JREGEX_H

#include <stdbool.h>
#include <stddef.h>

#include "log.h"

struct jregex;

/* NULL with why (the pattern and the offset at fault) when it cannot compile. */
struct jregex *jregex_compile(const char *pattern, struct errbuf *why);
bool jregex_search(const struct jregex *re, const char *s, size_t len);
void jregex_free(struct jregex *re);

#endif
