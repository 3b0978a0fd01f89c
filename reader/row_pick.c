// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Leaves out of a row's text by jsmn's tokens: see row_pick.h. */
#define _GNU_SOURCE
#include "row_pick.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

int row_pick_init(struct row_pick *p, const char *const *leaves, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->path = calloc(n + 1, sizeof(*p->path));
	if (!p->path)
		return -ENOMEM;
	p->n = n;
	for (size_t i = 0; i < n; i++) {
		const char sep[2] = {strchr(leaves[i], ROW_PICK_SEP) ? ROW_PICK_SEP : '.', 0};
		size_t keys = 2;
		for (const char *c = leaves[i]; *c; c++)
			keys += *c == sep[0];
		/* one allocation: the pointers, then the keys' text */
		size_t len = strlen(leaves[i]) + 1;
		char **path = malloc(keys * sizeof(*path) + len);
		if (!path)
			return -ENOMEM;
		char *text = memcpy((char *)(path + keys), leaves[i], len);
		size_t k = 0;
		for (char *save = NULL, *key = strtok_r(text, sep, &save); key;
		     key = strtok_r(NULL, sep, &save))
			path[k++] = key;
		path[k] = NULL;
		p->path[i] = path;
	}
	return 0;
}

void row_pick_free(struct row_pick *p)
{
	for (size_t i = 0; p->path && i < p->n; i++)
		free(p->path[i]);
	free(p->path);
	free(p->optional);
	free(p->tok);
	memset(p, 0, sizeof(*p));
}

/* The token after t's value and everything inside it. */
static int skip(const jsmntok_t *tok, int ntok, int t)
{
	int end = tok[t].end, i = t + 1;
	while (i < ntok && tok[i].start < end)
		i++;
	return i;
}

/* The value token of member key of the object at t, or -1. */
static int member(const char *text, const jsmntok_t *tok, int ntok, int t, const char *key)
{
	if (t < 0 || tok[t].type != JSMN_OBJECT)
		return -1;
	size_t klen = strlen(key);
	int i = t + 1;
	for (int m = 0; m < tok[t].size && i + 1 < ntok; m++) {
		const jsmntok_t *k = &tok[i];
		if ((size_t)(k->end - k->start) == klen && !memcmp(text + k->start, key, klen))
			return i + 1;
		i = skip(tok, ntok, i + 1);
	}
	return -1;
}

static bool is(const char *text, const jsmntok_t *t, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(t->end - t->start) == n && !memcmp(text + t->start, word, n);
}

/* A primitive token as a value: 0, or -EINVAL when it is not a number or null. */
static int to_value(const char *text, const jsmntok_t *t, struct value *v)
{
	if (t->type != JSMN_PRIMITIVE)
		return -EINVAL;
	if (is(text, t, "null")) {
		*v = (struct value){.kind = VAL_NULL};
		return 0;
	}
	char buf[64];
	size_t n = (size_t)(t->end - t->start);
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text + t->start, n);
	buf[n] = 0;
	char *end;
	errno = 0;
	if (!strpbrk(buf, ".eE")) {
		long long i = strtoll(buf, &end, 10);
		if (*end || errno)
			return -EINVAL;
		*v = (struct value){.kind = VAL_INT, .i = i};
		return 0;
	}
	double d = strtod(buf, &end);
	if (*end || !isfinite(d))
		return -EINVAL;
	*v = (struct value){.kind = VAL_REAL, .d = d};
	return 0;
}

int row_pick_read(struct row_pick *p, const char *text, size_t len, struct value *out,
		  int64_t *t_mono, bool *final, struct errbuf *e)
{
	jsmntok_t *tok = p->tok;
	int ntok;
	for (;;) {
		jsmn_parser parser;
		jsmn_init(&parser);
		ntok = tok ? jsmn_parse(&parser, text, len, tok, p->ntok) : JSMN_ERROR_NOMEM;
		if (ntok != JSMN_ERROR_NOMEM)
			break;
		unsigned more = p->ntok ? p->ntok * 2 : 256;
		if (more > INT_MAX / 2 || !(tok = realloc(p->tok, more * sizeof(*tok))))
			return errbuf_set(e, ENOMEM, "out of memory");
		p->tok = tok;
		p->ntok = more;
	}
	if (ntok < 1 || tok[0].type != JSMN_OBJECT)
		return errbuf_set(e, EINVAL, "not a JSON object");
	struct value v;
	int t = member(text, tok, ntok, 0, "t_mono_ns");
	if (t < 0 || to_value(text, &tok[t], &v) < 0 || v.kind != VAL_INT)
		return errbuf_set(e, EINVAL, "t_mono_ns: missing, or not an integer");
	*t_mono = v.i;
	t = member(text, tok, ntok, 0, "final");
	*final = t >= 0 && is(text, &tok[t], "true");
	for (size_t i = 0; i < p->n; i++) {
		t = 0;
		for (char **key = p->path[i]; *key && t >= 0; key++)
			t = member(text, tok, ntok, t, *key);
		if (t < 0 && p->optional && p->optional[i]) {
			out[i] = (struct value){.kind = VAL_NULL};
			continue;
		}
		if (t < 0 || to_value(text, &tok[t], &out[i]) < 0) {
			char name[160] = "";
			for (char **key = p->path[i]; *key; key++)
				snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s%s",
					 key == p->path[i] ? "" : ".", *key);
			return errbuf_set(e, EINVAL, "%s: %s", name,
					  t < 0 ? "missing" : "not a number");
		}
	}
	return 0;
}
