// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A table out to CSV or JSON Lines: see table.h. */
#define _GNU_SOURCE
#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

struct table {
	enum table_format format;
	struct outfile out;
	FILE *f; /* out.f */
	size_t n, col;
	char **key; /* JSON Lines: "\"name\":" per column */
};

/* s as a JSON string, quotes included. */
static void put_json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			putc('\\', f);
			putc(*p, f);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p == '\t') {
			fputs("\\t", f);
		} else if (*p == '\r') {
			fputs("\\r", f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else {
			putc(*p, f);
		}
	}
	putc('"', f);
}

static void put_csv_string(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

/* Before a value: the separator and, in JSON Lines, the key. */
static void next(struct table *t)
{
	if (t->format == TABLE_JSONL) {
		putc(t->col ? ',' : '{', t->f);
		fputs(t->key[t->col], t->f);
	} else if (t->col) {
		putc(',', t->f);
	}
	t->col++;
}

static char *json_key(const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	put_json_string(f, name);
	putc(':', f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; t->key && i < t->n; i++)
		free(t->key[i]);
	free(t->key);
	free(t);
}

struct table *table_open(const char *path, enum table_format format, char *const *columns,
			 size_t n, struct errbuf *e)
{
	struct table *t = calloc(1, sizeof(*t));
	if (!t || !(t->key = calloc(n ? n : 1, sizeof(*t->key)))) {
		if (t)
			table_free(t);
		errbuf_set(e, ENOMEM, "out of memory");
		return NULL;
	}
	t->format = format;
	t->n = n;
	for (size_t i = 0; i < n; i++)
		if (format == TABLE_JSONL && !(t->key[i] = json_key(columns[i]))) {
			table_free(t);
			errbuf_set(e, ENOMEM, "out of memory");
			return NULL;
		}
	if (outfile_open(&t->out, path, e) < 0) {
		table_free(t);
		return NULL;
	}
	t->f = t->out.f;
	if (format == TABLE_CSV) {
		for (size_t i = 0; i < n; i++) {
			if (i)
				putc(',', t->f);
			put_csv_string(t->f, columns[i]);
		}
		putc('\n', t->f);
	}
	return t;
}

void table_null(struct table *t)
{
	next(t);
	if (t->format == TABLE_JSONL)
		fputs("null", t->f);
}

void table_int(struct table *t, int64_t v)
{
	char buf[NUMFMT_INT];
	next(t);
	fputs(numfmt_int(buf, v), t->f);
}

void table_real(struct table *t, double v)
{
	if (!isfinite(v)) {
		table_null(t);
		return;
	}
	char buf[NUMFMT_REAL];
	numfmt_real(buf, v);
	next(t);
	fputs(buf, t->f);
}

void table_bool(struct table *t, bool v)
{
	next(t);
	fputs(v ? "true" : "false", t->f);
}

void table_string(struct table *t, const char *s)
{
	if (!s) {
		table_null(t);
		return;
	}
	next(t);
	if (t->format == TABLE_JSONL)
		put_json_string(t->f, s);
	else
		put_csv_string(t->f, s);
}

void table_end_row(struct table *t)
{
	if (t->format == TABLE_JSONL)
		putc('}', t->f);
	putc('\n', t->f);
	t->col = 0;
}

int table_commit(struct table *t, struct errbuf *e)
{
	int r = outfile_commit(&t->out, e);
	table_free(t);
	return r;
}

void table_abort(struct table *t)
{
	outfile_abort(&t->out);
	table_free(t);
}
