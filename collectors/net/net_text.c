// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The network's counters as the kernel prints them: see net_text.h. */
#define _GNU_SOURCE
#include "net_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The decimal number at *p after spaces, *p moved past it: false when
 * there is none, or it is past 64 bits (the kernel prints %llu and %lu:
 * no sign, no other base; strtoull's locale and bases cost a tick's
 * parse a third of its time). */
static bool next_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	uint64_t v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return true;
}

int net_dev_line_name(const char *line, char name[NET_IFNAME_MAX])
{
	while (*line == ' ')
		line++;
	const char *colon = strchr(line, ':');
	size_t len = colon ? (size_t)(colon - line) : 0;
	if (!len || len >= NET_IFNAME_MAX || memchr(line, '|', len))
		return -EINVAL;
	memcpy(name, line, len);
	name[len] = '\0';
	return 0;
}

int net_dev_parse_line(const char *line, struct net_dev_line *out)
{
	if (net_dev_line_name(line, out->name) < 0)
		return -EINVAL;
	const char *p = strchr(line, ':') + 1;
	for (int i = 0; i < ND_NFIELDS; i++)
		if (!next_u64(&p, &out->v[i]))
			return -EINVAL;
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
	for (int i = 0; i < at; i++) { /* the words before it, passed over */
		while (p < end && *p == ' ')
			p++;
		const char *w = p;
		while (p < end && *p != ' ')
			p++;
		if (p == w)
			return false;
	}
	const char *stop = p;
	return next_u64(&stop, out) && stop <= end;
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
