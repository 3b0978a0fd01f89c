// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* JSON Lines reader, plain or zstd, tolerant of a truncated tail. */
#include "jsonl_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};

static int setup(struct jsonl_reader *r, struct errbuf *e)
{
	r->in_cap = ZSTD_DStreamInSize();
	r->cap = ZSTD_DStreamOutSize();
	r->in = malloc(r->in_cap);
	r->buf = malloc(r->cap);
	if (!r->in || !r->buf)
		return errbuf_set(e, ENOMEM, "out of memory");
	/* The first read tells the format; its bytes are the first input. */
	ssize_t n;
	while ((n = read(r->fd, r->in, r->in_cap)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return errbuf_set(e, errno, "read: %s", strerror(errno));
	r->ib = (ZSTD_inBuffer){r->in, (size_t)n, 0};
	r->at_end = n == 0;
	r->zst = n >= 4 && !memcmp(r->in, zstd_magic, 4);
	if (r->zst && !(r->dc = ZSTD_createDCtx()))
		return errbuf_set(e, ENOMEM, "out of memory");
	return 0;
}

int jsonl_reader_fdopen(struct jsonl_reader *r, int fd, struct errbuf *e)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	int err = setup(r, e);
	if (err < 0)
		jsonl_reader_close(r);
	return err;
}

int jsonl_reader_open(struct jsonl_reader *r, int dirfd, const char *path, struct errbuf *e)
{
	memset(r, 0, sizeof(*r));
	r->fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return errbuf_set(e, errno, "%s: %s", path, strerror(errno));
	r->own_fd = true;
	int err = setup(r, e);
	if (err < 0) {
		if (e) {
			struct errbuf why = *e;
			errbuf_set(e, -err, "%s: %s", path, why.msg);
		}
		jsonl_reader_close(r);
	}
	return err;
}

void jsonl_reader_close(struct jsonl_reader *r)
{
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dc);
	free(r->in);
	free(r->buf);
	r->fd = -1;
	r->own_fd = false;
	r->dc = NULL;
	r->in = r->buf = NULL;
}

/* Room for more decoded bytes after end: drop what was returned, then grow. */
static int make_room(struct jsonl_reader *r, struct errbuf *e)
{
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->scan -= r->start;
		r->start = 0;
	}
	if (r->end < r->cap)
		return 0;
	if (r->cap >= JSONL_ROW_MAX) {
		snprintf(r->damage, sizeof(r->damage), "a row longer than %u bytes", JSONL_ROW_MAX);
		return 0;
	}
	char *bigger = realloc(r->buf, r->cap * 2);
	if (!bigger)
		return errbuf_set(e, ENOMEM, "out of memory");
	r->buf = bigger;
	r->cap *= 2;
	return 0;
}

/* Refills ib from the file; at the end sets at_end. */
static int read_input(struct jsonl_reader *r, struct errbuf *e)
{
	ssize_t n;
	while ((n = read(r->fd, r->in, r->in_cap)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return errbuf_set(e, errno, "read: %s", strerror(errno));
	r->ib = (ZSTD_inBuffer){r->in, (size_t)n, 0};
	r->at_end = n == 0;
	return 0;
}

/* Appends decoded bytes to buf: > 0 when some came, 0 at the end or at
 * damage, -errno on a read error. */
static int fill(struct jsonl_reader *r, struct errbuf *e)
{
	int err = make_room(r, e);
	if (err < 0 || r->damage[0])
		return err;
	for (;;) {
		/* the decoder may hold output from input it already took */
		if (r->ib.pos == r->ib.size && !r->pending) {
			if (r->at_end || (err = read_input(r, e)) < 0 || r->at_end)
				return err;
		}
		if (!r->zst) {
			size_t n = r->ib.size - r->ib.pos;
			if (n > r->cap - r->end)
				n = r->cap - r->end;
			memcpy(r->buf + r->end, (const char *)r->ib.src + r->ib.pos, n);
			r->ib.pos += n;
			r->end += n;
			return 1;
		}
		ZSTD_outBuffer ob = {r->buf + r->end, r->cap - r->end, 0};
		size_t before = r->ib.pos;
		size_t ret = ZSTD_decompressStream(r->dc, &ob, &r->ib);
		if (ZSTD_isError(ret)) {
			snprintf(r->damage, sizeof(r->damage), "zstd data does not decode at byte %llu: %s",
				 (unsigned long long)(r->in_bytes + r->ib.pos), ZSTD_getErrorName(ret));
			return 0;
		}
		r->in_bytes += r->ib.pos - before;
		r->frame_left = ret;
		r->pending = ob.pos == ob.size;
		r->end += ob.pos;
		if (ob.pos)
			return 1;
	}
}

int jsonl_reader_next(struct jsonl_reader *r, char **row, size_t *len, struct errbuf *e)
{
	for (;;) {
		char *nl = memchr(r->buf + r->scan, '\n', r->end - r->scan);
		if (nl) {
			*row = r->buf + r->start;
			*len = (size_t)(nl - *row);
			*nl = '\0';
			r->start = r->scan = (size_t)(nl + 1 - r->buf);
			r->rows++;
			return 1;
		}
		r->scan = r->end;
		int got = fill(r, e);
		if (got < 0)
			return got;
		if (got == 0)
			break;
	}
	if (r->damage[0])
		return 0;
	size_t partial = r->end - r->start;
	r->between_rows = !partial;
	if (r->zst && r->frame_left)
		snprintf(r->damage, sizeof(r->damage), "the zstd stream ends inside a frame%s",
			 partial ? ", in an unfinished row" : "");
	else if (partial)
		snprintf(r->damage, sizeof(r->damage), "the last row is unfinished (%zu bytes, no newline)",
			 partial);
	return 0;
}

/* The last byte a zstd frame of n bytes at p decodes to: '\n' where it
 * ends a row; 0 when it decodes to nothing; -1 when it does not decode. */
static int frame_last_byte(const void *p, size_t n)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	size_t cap = ZSTD_DStreamOutSize();
	char *out = malloc(cap);
	int last = dc && out ? 0 : -1;
	ZSTD_inBuffer ib = {p, n, 0};
	while (last >= 0 && ib.pos < ib.size) {
		ZSTD_outBuffer ob = {out, cap, 0};
		size_t ret = ZSTD_decompressStream(dc, &ob, &ib);
		if (ZSTD_isError(ret))
			last = -1;
		else if (ob.pos)
			last = (unsigned char)out[ob.pos - 1];
		else if (ret == 0)
			break;
	}
	free(out);
	ZSTD_freeDCtx(dc);
	return last;
}

int jsonl_check_end(int dirfd, const char *path, char *why, size_t len, struct errbuf *e)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return errbuf_set(e, err, "%s: %s", path, strerror(err));
	}
	size_t size = (size_t)st.st_size;
	const unsigned char *p = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (size && p == MAP_FAILED)
		return errbuf_set(e, errno, "%s: %s", path, strerror(errno));
	int damaged = 0;
	if (size >= 4 && !memcmp(p, zstd_magic, 4)) {
		size_t off = 0, last = 0;
		while (off < size && !damaged) {
			size_t n = ZSTD_findFrameCompressedSize(p + off, size - off);
			if (ZSTD_isError(n)) {
				snprintf(why, len, "the zstd stream ends inside a frame");
				damaged = 1;
			} else {
				last = off;
				off += n;
			}
		}
		int end = damaged ? '\n' : frame_last_byte(p + last, off - last);
		if (!damaged && end < 0) {
			snprintf(why, len, "zstd data does not decode at byte %zu", last);
			damaged = 1;
		} else if (!damaged && end != '\n' && end != 0) {
			snprintf(why, len, "the last row is unfinished (no newline)");
			damaged = 1;
		}
	} else if (size && p[size - 1] != '\n') {
		snprintf(why, len, "the last row is unfinished (no newline)");
		damaged = 1;
	}
	if (size)
		munmap((void *)p, size);
	return damaged;
}

int64_t jsonl_count_rows(int dirfd, const char *path)
{
	struct jsonl_reader r;
	char *row;
	size_t len;
	if (jsonl_reader_open(&r, dirfd, path, NULL) < 0)
		return 0;
	while (jsonl_reader_next(&r, &row, &len, NULL) > 0)
		;
	int64_t rows = (int64_t)r.rows;
	jsonl_reader_close(&r);
	return rows;
}
