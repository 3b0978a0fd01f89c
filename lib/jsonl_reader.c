// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* JSON Lines reader, plain or zstd, tolerant of a truncated tail. */
#include "jsonl_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The size of the zstd frame at off in fd, walked by its block headers
 * (RFC 8878: a frame header, blocks of a 3-byte header each, the last one
 * flagged, a checksum when the header says so; a skippable frame says its
 * size): > 0, or 0 when the file ends inside it or it is not a frame. */
static uint64_t frame_size(int fd, uint64_t off, uint64_t size)
{
	unsigned char h[8];
	if (pread(fd, h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h))
		return 0;
	uint32_t magic = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
	if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) { /* skippable: its size follows */
		uint64_t len = 8 + ((uint64_t)h[4] | (uint64_t)h[5] << 8 | (uint64_t)h[6] << 16 | (uint64_t)h[7] << 24);
		return off + len <= size ? len : 0;
	}
	if (memcmp(h, zstd_magic, 4))
		return 0;
	/* Frame_Header_Descriptor: the fields that follow it */
	unsigned fhd = h[4], fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1;
	static const unsigned did_size[4] = {0, 1, 2, 4}, fcs_size[4] = {0, 2, 4, 8};
	unsigned fcs = fcs_flag == 0 ? single : fcs_size[fcs_flag];
	uint64_t at = off + 5 + (single ? 0 : 1) + did_size[fhd & 3] + fcs;
	for (;;) {
		unsigned char b[3];
		if (at + 3 > size || pread(fd, b, 3, (off_t)at) != 3)
			return 0;
		uint32_t bh = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
		uint32_t type = (bh >> 1) & 3, len = bh >> 3;
		if (type == 3)
			return 0; /* reserved: not zstd */
		at += 3 + (type == 1 ? 1 : len); /* an RLE block holds one byte */
		if (at > size)
			return 0;
		if (bh & 1)
			break;
	}
	at += checksum ? 4 : 0;
	return at <= size ? at - off : 0;
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
	uint64_t size = (uint64_t)st.st_size;
	unsigned char head[4] = {0}, last = '\n';
	bool zst = size >= 4 && pread(fd, head, 4, 0) == 4 && !memcmp(head, zstd_magic, 4);
	int damaged = 0;
	if (zst) {
		/* a frame ends at a row's end (the writer frames whole rows): a
		 * crash cuts the last frame */
		for (uint64_t off = 0, n; off < size && !damaged; off += n)
			if (!(n = frame_size(fd, off, size))) {
				snprintf(why, len, "the zstd stream ends inside a frame");
				damaged = 1;
			}
	} else if (size && (pread(fd, &last, 1, (off_t)size - 1) != 1 || last != '\n')) {
		snprintf(why, len, "the last row is unfinished (no newline)");
		damaged = 1;
	}
	close(fd);
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
