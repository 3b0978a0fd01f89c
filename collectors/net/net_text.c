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

/* The length of line's group ("Tcp" of "Tcp: ..."), or 0. */
static size_t group_len(const char *line, const char *end)
{
	const char *colon = memchr(line, ':', (size_t)(end - line));
	return colon ? (size_t)(colon - line) : 0;
}

/* Past the word at p (spaces first) to the space after it, within end. */
static const char *past_word(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	while (p < end && *p != ' ')
		p++;
	return p;
}

void net_snmp_values(const char *text, const struct net_snmp_counter *want, size_t n, uint64_t *out,
		     bool *known)
{
	for (size_t i = 0; i < n; i++)
		known[i] = false;
	n = n > 64 ? 64 : n; /* those past the 64th: not read */
	uint64_t todo = n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1; /* not decided yet */
	size_t glen[64], nlen[64]; /* compared first: a word of another length is passed over at once */
	for (size_t i = 0; i < n; i++) {
		glen[i] = strlen(want[i].group);
		nlen[i] = strlen(want[i].name);
	}
	for (const char *line = text; *line && todo;) {
		const char *end = strchrnul(line, '\n');
		const char *after = *end ? end + 1 : end;
		size_t g = group_len(line, end);
		if (!g || strncmp(after, line, g + 1)) {
			line = after;
			continue;
		}
		/* a header and its values: a name's place in one is its
		 * value's in the other */
		const char *vend = strchrnul(after, '\n');
		uint64_t here = 0; /* of this group, still to find */
		for (size_t i = 0; i < n; i++)
			if ((todo >> i & 1) && glen[i] == g && !memcmp(line, want[i].group, g))
				here |= UINT64_C(1) << i;
		const char *w = line + g + 1, *v = after + g + 1;
		while (here) {
			while (w < end && *w == ' ')
				w++;
			if (w >= end)
				break;
			const char *wend = past_word(w, end);
			size_t wl = (size_t)(wend - w);
			for (size_t i = 0; i < n; i++) {
				if (!(here >> i & 1) || nlen[i] != wl || memcmp(w, want[i].name, wl))
					continue;
				const char *num = v;
				known[i] = next_u64(&num, &out[i]) && num <= vend;
				here &= ~(UINT64_C(1) << i);
				todo &= ~(UINT64_C(1) << i);
			}
			w = wend;
			v = past_word(v, vend);
		}
		line = *vend ? vend + 1 : vend;
	}
}
