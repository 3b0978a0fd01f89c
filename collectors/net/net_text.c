// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The network's counters as the kernel prints them: see net_text.h. */
#define _GNU_SOURCE
#include "net_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int net_dev_parse_line(const char *line, struct net_dev_line *out)
{
	while (*line == ' ')
		line++;
	const char *colon = strchr(line, ':');
	size_t len = colon ? (size_t)(colon - line) : 0;
	if (!len || len >= sizeof(out->name) || memchr(line, '|', len))
		return -EINVAL;
	memcpy(out->name, line, len);
	out->name[len] = '\0';
	const char *p = colon + 1;
	for (int i = 0; i < ND_NFIELDS; i++) {
		char *end;
		errno = 0;
		out->v[i] = strtoull(p, &end, 10);
		if (end == p || errno)
			return -EINVAL;
		p = end;
	}
	return 0;
}

static bool is_group(const char *line, const char *group, size_t glen)
{
	return !strncmp(line, group, glen) && line[glen] == ':';
}

/* The place of word NAME among the words of [p, end), or -1. */
static int word_index(const char *p, const char *end, const char *name, size_t nlen)
{
	for (int at = 0;; at++) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			return -1;
		const char *w = p;
		while (p < end && *p != ' ')
			p++;
		if ((size_t)(p - w) == nlen && !memcmp(w, name, nlen))
			return at;
	}
}

/* The number at place at among those of [p, end). */
static bool nth_number(const char *p, const char *end, int at, uint64_t *out)
{
	for (int i = 0; p < end; i++) {
		char *stop;
		errno = 0;
		uint64_t x = strtoull(p, &stop, 10);
		if (stop == p || errno || stop > end)
			return false;
		if (i == at) {
			*out = x;
			return true;
		}
		p = stop;
	}
	return false;
}

bool net_snmp_value(const char *text, const char *group, const char *name, uint64_t *out)
{
	size_t glen = strlen(group), nlen = strlen(name);
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *after = *end ? end + 1 : end;
		if (is_group(line, group, glen) && is_group(after, group, glen)) {
			/* a header and its values: a name's place in one is its
			 * value's in the other */
			const char *vend = strchrnul(after, '\n');
			int at = word_index(line + glen + 1, end, name, nlen);
			if (at >= 0)
				return nth_number(after + glen + 1, vend, at, out);
			line = *vend ? vend + 1 : vend;
			continue;
		}
		line = after;
	}
	return false;
}
