// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include "cifs_stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cifs_stats_init(struct cifs_stats *s)
{
	memset(s, 0, sizeof(*s));
}

void cifs_stats_free(struct cifs_stats *s)
{
	free(s->share);
	cifs_stats_init(s);
}

static bool starts(const char *line, const char *word)
{
	return !strncmp(line, word, strlen(word));
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* A count the kernel prints with %d (an atomic_t): past 2^31 it reads
 * negative; taken as the unsigned 32 bits it is, so a row's change,
 * modulo 2^32, stays right (cifs_share_delta). */
static uint64_t count32(const char *p, char **after)
{
	long long v = strtoll(p, after, 10);
	return (uint64_t)(uint32_t)v;
}

static struct cifs_op *op_named(struct cifs_share *sh, const char *name, size_t len)
{
	for (size_t i = 0; i < sh->nop; i++)
		if (strlen(sh->op[i].name) == len && !strncmp(sh->op[i].name, name, len))
			return &sh->op[i];
	if (sh->nop == CIFS_OPS_MAX || len >= sizeof(sh->op[0].name))
		return NULL;
	struct cifs_op *o = &sh->op[sh->nop++];
	memcpy(o->name, name, len);
	o->name[len] = '\0';
	o->calls = 0;
	return o;
}

/* "Name: N total M failed", "Name: N sent M failed", SMB1's "Name: N" alone
 * and "Reads:  N Bytes: B": a call's count (and SMB1's bytes). Other
 * lines ("Open files: ...", SMB1's "Locks: N HardLinks: N ...") are not
 * one call's. */
static void op_line(struct cifs_share *sh, const char *line, const char *end)
{
	const char *p = line;
	while (p < end && is_alpha(*p))
		p++;
	if (p == line || p[0] != ':' || p[1] != ' ')
		return;
	size_t len = (size_t)(p - line);
	const char *num = p + 2 + strspn(p + 2, " ");
	char *after;
	if (!is_digit(*num) && !(*num == '-' && is_digit(num[1])))
		return;
	uint64_t calls = count32(num, &after);
	bool smb1_bytes = starts(after, " Bytes: ");
	if (!(after == end || starts(after, " total ") || starts(after, " sent ") || smb1_bytes))
		return;
	struct cifs_op *o = op_named(sh, line, len);
	if (o)
		o->calls = calls;
	if (smb1_bytes && (len == 5 || len == 6)) {
		uint64_t bytes = strtoull(after + 8, NULL, 10);
		if (!strncmp(line, "Reads", len))
			sh->read_bytes = bytes, sh->have_bytes = true;
		else if (!strncmp(line, "Writes", len))
			sh->write_bytes = bytes, sh->have_bytes = true;
	}
}

static void share_line(struct cifs_share *sh, const char *line, const char *end)
{
	static const char bytes[] = "Bytes read: ", written[] = "Bytes written: ";
	if (starts(line, "SMBs: ")) {
		sh->smbs = count32(line + 6, NULL);
	} else if (starts(line, bytes)) {
		char *after;
		sh->read_bytes = strtoull(line + sizeof(bytes) - 1, &after, 10);
		const char *w = memmem(after, (size_t)(end - after), written, sizeof(written) - 1);
		if (w) {
			sh->write_bytes = strtoull(w + sizeof(written) - 1, NULL, 10);
			sh->have_bytes = true;
		}
	} else {
		op_line(sh, line, end);
	}
}

int cifs_stats_parse(struct cifs_stats *s, const char *text)
{
	s->n = 0;
	struct cifs_share *cur = NULL;
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *next = *end ? end + 1 : end;
		const char *p = line;
		while (is_digit(*p))
			p++;
		if (p > line && p[0] == ')' && p[1] == ' ') {
			/* "N) \\server\share", "\tDISCONNECTED " after it */
			if (s->n == s->cap) {
				size_t cap = s->cap ? 2 * s->cap : 4;
				struct cifs_share *a = reallocarray(s->share, cap, sizeof(*a));
				if (!a)
					return -ENOMEM;
				s->share = a;
				s->cap = cap;
			}
			cur = &s->share[s->n++];
			memset(cur, 0, sizeof(*cur));
			const char *t = p + 2, *tend = memchr(t, '\t', (size_t)(end - t));
			if (!tend)
				tend = end;
			if ((size_t)(tend - t) < sizeof(cur->tree))
				memcpy(cur->tree, t, (size_t)(tend - t)); /* longer: named by no mount here */
			cur->disconnected = memmem(tend, (size_t)(end - tend), "DISCONNECTED", 12) != NULL;
		} else if (starts(line, "Max requests in flight")) {
			cur = NULL; /* the next server's lines */
		} else if (cur) {
			share_line(cur, line, end);
		}
		line = next;
	}
	return 0;
}

bool cifs_stats_share(const struct cifs_stats *s, const char *tree, struct cifs_share *out)
{
	bool found = false;
	memset(out, 0, sizeof(*out));
	snprintf(out->tree, sizeof(out->tree), "%s", tree);
	out->have_bytes = true;
	for (size_t i = 0; i < s->n; i++) {
		const struct cifs_share *sh = &s->share[i];
		if (strcmp(sh->tree, tree))
			continue;
		found = true;
		out->tcons++;
		out->disconnected |= sh->disconnected;
		out->smbs = (uint32_t)(out->smbs + sh->smbs);
		out->have_bytes &= sh->have_bytes;
		out->read_bytes += sh->read_bytes;
		out->write_bytes += sh->write_bytes;
		for (size_t k = 0; k < sh->nop; k++) {
			struct cifs_op *o = op_named(out, sh->op[k].name, strlen(sh->op[k].name));
			if (o)
				o->calls = (uint32_t)(o->calls + sh->op[k].calls);
		}
	}
	out->have_bytes &= found;
	return found;
}

bool cifs_tree_of_source(const char *source, char *tree, size_t cap)
{
	/* two separators, a server, one, a share: the rest is a path in it */
	const char *p = source;
	if (!((p[0] == '/' || p[0] == '\\') && (p[1] == '/' || p[1] == '\\')))
		return false;
	p += 2;
	size_t server = strcspn(p, "/\\");
	if (!server || !p[server])
		return false;
	const char *share = p + server + 1;
	size_t slen = strcspn(share, "/\\");
	if (!slen || 2 + server + 1 + slen >= cap)
		return false;
	snprintf(tree, cap, "\\\\%.*s\\%.*s", (int)server, p, (int)slen, share);
	return true;
}
