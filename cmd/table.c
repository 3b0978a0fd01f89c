/* A table out to CSV or JSON Lines: see table.h. */
#define _GNU_SOURCE
#include "table.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct table {
	enum table_format format;
	FILE *f;
	bool is_stdout;
	char *path, *tmp;
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
	free(t->path);
	free(t->tmp);
	free(t);
}

/* A temporary file beside path, with the mode a new file would get. */
static FILE *open_beside(struct table *t, struct errbuf *e)
{
	char *copy = strdup(t->path);
	if (!copy || asprintf(&t->tmp, "%s/.%s.XXXXXX", dirname(copy), basename(t->path)) < 0) {
		free(copy);
		t->tmp = NULL;
		errbuf_set(e, ENOMEM, "out of memory");
		return NULL;
	}
	free(copy);
	int fd = mkstemp(t->tmp);
	if (fd < 0) {
		errbuf_set(e, errno, "%s: %s", t->path, strerror(errno));
		free(t->tmp);
		t->tmp = NULL;
		return NULL;
	}
	mode_t mask = umask(0);
	umask(mask);
	FILE *f = fdopen(fd, "w");
	if (fchmod(fd, 0666 & ~mask) < 0 || !f) {
		errbuf_set(e, errno, "%s: %s", t->tmp, strerror(errno));
		if (f)
			fclose(f);
		else
			close(fd);
		unlink(t->tmp);
		return NULL;
	}
	return f;
}

struct table *table_open(const char *path, enum table_format format, char *const *columns,
			 size_t n, struct errbuf *e)
{
	struct table *t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path)) || !(t->key = calloc(n ? n : 1, sizeof(*t->key)))) {
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
	struct stat st;
	if (!strcmp(path, "-")) {
		t->f = stdout;
		t->is_stdout = true;
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errbuf_set(e, EISDIR, "%s: %s", path, strerror(EISDIR));
	} else {
		t->f = open_beside(t, e);
	}
	if (!t->f) {
		table_free(t);
		return NULL;
	}
	setvbuf(t->f, NULL, _IOFBF, 1 << 16);
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
	/* by hand: printf's parsing was a tenth of an export's time */
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	next(t);
	fputs(p, t->f);
}

void table_real(struct table *t, double v)
{
	if (!isfinite(v)) {
		table_null(t);
		return;
	}
	next(t);
	/* the shortest form that reads back as the same double, always with a
	 * point or an exponent, so that a reader never takes it for an integer */
	char buf[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, t->f);
	if (!strpbrk(buf, ".e"))
		fputs(".0", t->f);
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
	int err = 0;
	if (fflush(t->f) != 0 || ferror(t->f))
		err = errno ? errno : EIO;
	if (!t->is_stdout) {
		if (!err && fsync(fileno(t->f)) < 0)
			err = errno;
		if (fclose(t->f) != 0 && !err)
			err = errno;
		if (!err && rename(t->tmp, t->path) < 0)
			err = errno;
		if (err)
			unlink(t->tmp);
	}
	if (err)
		errbuf_set(e, err, "%s: %s", t->is_stdout ? "stdout" : t->path, strerror(err));
	table_free(t);
	return -err;
}

void table_abort(struct table *t)
{
	if (!t->is_stdout) {
		fclose(t->f);
		unlink(t->tmp);
	} else {
		fflush(t->f);
	}
	table_free(t);
}
