// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ECMA-262 regexes over PCRE2: compiled once per pattern, matched with a match block
 * of one pair, since only whether it matched is wanted. Not JIT-compiled:
 * the schemas' patterns are short and so are the keys and values they
 * test, and JIT code is opaque to valgrind's memcheck, which make valgrind
 * runs. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "ecma_regex.h"

#include <errno.h>
#include <pcre2.h>

struct ecma_regex *ecma_regex_compile(const char *pattern, struct errbuf *why)
{
	int err;
	PCRE2_SIZE at;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
				       PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX |
					       PCRE2_NEVER_BACKSLASH_C,
				       &err, &at, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(err, msg, sizeof(msg));
		errbuf_set(why, EINVAL, "pattern \"%s\" at offset %zu: %s", pattern, (size_t)at,
			   (const char *)msg);
		return NULL;
	}
	return (struct ecma_regex *)re;
}

bool ecma_regex_search(const struct ecma_regex *re, const char *s, size_t len)
{
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	if (!md)
		return false;
	int rc = pcre2_match((const pcre2_code *)re, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0; /* 0: matched, with more pairs than the block holds */
}

void ecma_regex_free(struct ecma_regex *re)
{
	pcre2_code_free((pcre2_code *)re);
}
