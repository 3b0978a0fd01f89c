// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* JSON Lines writer, plain or zstd-streamed. */
#include "jsonl_writer.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdutil.h"
#include "numfmt.h"

/* ---- the encoder ---- */

struct out {
	char *p;
	size_t cap, len; /* len counts what did not fit too */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len + n <= o->cap)
		memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void put_c(struct out *o, char c)
{
	if (o->len < o->cap)
		o->p[o->len] = c;
	o->len++;
}

/* Whether any of the 8 bytes of w is below 0x20, a quote or a backslash
 * (the bytes that need an escape), a word at a time. */
static bool word_needs_escape(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
	uint64_t zero_quote = (quote - ones) & ~quote, zero_bs = (backslash - ones) & ~backslash;
	uint64_t below = (w - ones * 0x20) & ~w; /* a byte < 0x20, or one >= 0x80 */
	return (zero_quote | zero_bs | below) & highs;
}

/* jansson's escapes: the backslash, the quote and control characters;
 * UTF-8 as it is (its strings are valid UTF-8 by construction) */
static void put_string(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	put_c(o, '"');
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		/* most keys and values need no escape: skip them 8 bytes at a time */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (word_needs_escape(w))
				break;
			i += 8;
		}
		if (i == n)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(o, s + from, i - from);
		from = i + 1;
		char esc[6] = {'\\', 0};
		switch (c) {
		case '"': esc[1] = '"'; put(o, esc, 2); break;
		case '\\': esc[1] = '\\'; put(o, esc, 2); break;
		case '\b': esc[1] = 'b'; put(o, esc, 2); break;
		case '\f': esc[1] = 'f'; put(o, esc, 2); break;
		case '\n': esc[1] = 'n'; put(o, esc, 2); break;
		case '\r': esc[1] = 'r'; put(o, esc, 2); break;
		case '\t': esc[1] = 't'; put(o, esc, 2); break;
		default:
			esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
			put(o, esc, 6);
		}
	}
	put(o, s + from, n - from);
	put_c(o, '"');
}

/* jansson's jsonp_dtostr: %.17g, a ".0" when it reads as an integer, the
 * exponent without its + and leading zeros */
static void put_real(struct out *o, double v)
{
	char b[48];
	int n = snprintf(b, sizeof(b) - 3, "%.17g", v);
	if (n < 0)
		return;
	if (!strchr(b, '.') && !strchr(b, 'e'))
		b[n++] = '.', b[n++] = '0', b[n] = '\0';
	char *e = strchr(b, 'e');
	if (e) {
		char *start = e + 1, *end = e + 2;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)(b + n - end) + 1);
			n -= (int)(end - start);
		}
	}
	put(o, b, (size_t)n);
}

static void put_value(struct out *o, const json_t *v)
{
	char num[NUMFMT_INT];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		put_c(o, '{');
		bool first = true;
		const char *key;
		size_t key_len;
		json_t *x;
		json_object_keylen_foreach((json_t *)v, key, key_len, x) {
			if (!first)
				put_c(o, ',');
			first = false;
			put_string(o, key, key_len);
			put_c(o, ':');
			put_value(o, x);
		}
		put_c(o, '}');
		break;
	}
	case JSON_ARRAY:
		put_c(o, '[');
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (i)
				put_c(o, ',');
			put_value(o, json_array_get(v, i));
		}
		put_c(o, ']');
		break;
	case JSON_STRING:
		put_string(o, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER: {
		const char *t = numfmt_int(num, json_integer_value(v));
		put(o, t, (size_t)(num + NUMFMT_INT - 1 - t));
		break;
	}
	case JSON_REAL:
		put_real(o, json_real_value(v));
		break;
	case JSON_TRUE:
		put(o, "true", 4);
		break;
	case JSON_FALSE:
		put(o, "false", 5);
		break;
	case JSON_NULL:
		put(o, "null", 4);
		break;
	}
}

size_t jsonl_encode(const json_t *row, char *buf, size_t cap)
{
	if (!json_is_object(row))
		return 0;
	struct out o = {buf, cap, 0};
	put_value(&o, row);
	return o.len;
}

/* ---- the writer ---- */

void jsonl_file_name(const char *source, enum compression comp, char *buf, size_t len)
{
	snprintf(buf, len, "%s.jsonl%s", source, comp == COMPRESSION_ZSTD ? ".zst" : "");
}

int jsonl_writer_open(struct jsonl_writer *w, int dirfd, const char *name, enum compression comp,
		      int level, struct errbuf *e)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->frame_start_ns = -1;
	w->cap = 4096;
	w->buf = malloc(w->cap);
	if (!w->buf)
		return errbuf_set(e, ENOMEM, "out of memory");
	if (comp == COMPRESSION_ZSTD) {
		w->zc = ZSTD_createCCtx();
		w->zcap = ZSTD_CStreamOutSize();
		w->zbuf = malloc(w->zcap);
		if (!w->zc || !w->zbuf ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 1))) {
			jsonl_writer_close(w, NULL);
			return errbuf_set(e, ENOMEM, "cannot set up zstd compression");
		}
	}
	w->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		int err = errno;
		jsonl_writer_close(w, NULL);
		return errbuf_set(e, err, "%s: %s", name, strerror(err));
	}
	return 0;
}

/* The row did not get out whole: cut the file back to the last row that
 * did, so nothing after it can pass for a row (a zstd block or a line cut
 * in the middle), and refuse what follows. */
static int write_failed(struct jsonl_writer *w, int err, const char *why, struct errbuf *e)
{
	w->failed = true;
	if (ftruncate(w->fd, w->good) < 0)
		return errbuf_set(e, err, "%s: %s (and cannot cut it back to its last whole row: %s)",
				  w->name, why, strerror(errno));
	return errbuf_set(e, err, "%s: %s", w->name, why);
}

/* Runs the compressor over in (possibly empty) with the given directive and
 * writes out everything it produces. */
static int zstd_push(struct jsonl_writer *w, const void *src, size_t len, ZSTD_EndDirective how,
		     struct errbuf *e)
{
	ZSTD_inBuffer in = {src, len, 0};
	size_t left;
	do {
		ZSTD_outBuffer out = {w->zbuf, w->zcap, 0};
		left = ZSTD_compressStream2(w->zc, &out, &in, how);
		if (ZSTD_isError(left))
			return write_failed(w, EIO, ZSTD_getErrorName(left), e);
		if (out.pos && write_all(w->fd, w->zbuf, out.pos) < 0)
			return write_failed(w, errno, strerror(errno), e);
		w->end += (off_t)out.pos;
	} while (left != 0 || in.pos < in.size);
	return 0;
}

/* One row out; last ends the zstd frame with it and syncs the file, so the
 * row counts only once the file is whole on disk. */
static int write_row(struct jsonl_writer *w, const json_t *row, int64_t now_ns, bool last,
		     struct errbuf *e)
{
	if (w->failed || w->finished)
		return errbuf_set(e, EIO, "%s: %s", w->name,
				  w->failed ? "an earlier write failed" : "the file has ended");
	size_t n;
	/* the encoder says how long the text is even when it does not fit */
	while ((n = jsonl_encode(row, w->buf, w->cap - 1)) > w->cap - 1) {
		char *bigger = realloc(w->buf, n + 2);
		if (!bigger)
			return errbuf_set(e, ENOMEM, "out of memory");
		w->buf = bigger;
		w->cap = n + 2;
	}
	if (n == 0)
		return errbuf_set(e, EINVAL, "row cannot be serialised");
	w->buf[n++] = '\n';

	if (!w->zc) {
		if (write_all(w->fd, w->buf, n) < 0)
			return write_failed(w, errno, strerror(errno), e);
		w->end += (off_t)n;
	} else {
		if (w->frame_start_ns < 0)
			w->frame_start_ns = now_ns;
		bool end = last || ++w->frame_rows >= JSONL_FRAME_ROWS ||
			   now_ns - w->frame_start_ns >= JSONL_FRAME_NS;
		int r = zstd_push(w, w->buf, n, end ? ZSTD_e_end : ZSTD_e_flush, e);
		if (r < 0)
			return r;
		if (end) {
			w->frame_start_ns = -1;
			w->frame_rows = 0;
		}
	}
	/* EINVAL: a file that cannot be synced (a pipe, /dev/null) */
	if (last && fsync(w->fd) < 0 && errno != EINVAL) {
		int err = errno;
		char why[64];
		snprintf(why, sizeof(why), "fsync: %s", strerror(err));
		return write_failed(w, err, why, e);
	}
	w->good = w->end;
	w->rows++;
	w->finished = last;
	return 0;
}

int jsonl_writer_write(struct jsonl_writer *w, const json_t *row, int64_t now_ns,
		       struct errbuf *e)
{
	return write_row(w, row, now_ns, false, e);
}

int jsonl_writer_finish(struct jsonl_writer *w, const json_t *row, int64_t now_ns,
			struct errbuf *e)
{
	return write_row(w, row, now_ns, true, e);
}

int jsonl_writer_close(struct jsonl_writer *w, struct errbuf *e)
{
	int r = 0;
	if (w->fd >= 0) {
		if (w->zc && w->frame_start_ns >= 0 && !w->failed)
			r = zstd_push(w, NULL, 0, ZSTD_e_end, e);
		if (r == 0 && !w->finished && fsync(w->fd) < 0 && errno != EINVAL)
			r = errbuf_set(e, errno, "%s: fsync: %s", w->name, strerror(errno));
		/* after finish's fsync a failed close loses nothing */
		if (close(w->fd) < 0 && r == 0 && !w->finished)
			r = errbuf_set(e, errno, "%s: close: %s", w->name, strerror(errno));
	}
	ZSTD_freeCCtx(w->zc);
	free(w->zbuf);
	free(w->buf);
	uint64_t rows = w->rows;
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->rows = rows;
	return r;
}
