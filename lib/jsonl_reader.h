/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Rows back from a .jsonl or .jsonl.zst file, as iopsample wrote them or as
 * a crash left them.
 *
 * The format is told by the content (zstd's magic number), not the name.
 * Reading stops at the first damage — a zstd stream that does not decode, a
 * stream that ends inside a frame, a last line without its newline — and
 * everything before it is returned: every row the writer flushed before a
 * SIGKILL is a complete line of a complete zstd block. */
#ifndef IOPSAMPLE_JSONL_READER_H
#define IOPSAMPLE_JSONL_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <zstd.h>

#include "log.h"

/* Longer rows are damage: garbage without newlines must not eat the memory. */
#define JSONL_ROW_MAX (64u << 20)

struct jsonl_reader {
	int fd;
	bool own_fd;
	bool zst;
	bool at_end; /* no more input will come */
	ZSTD_DCtx *dc;
	size_t frame_left; /* the decoder's last hint: 0 between frames */
	bool pending;      /* its output filled the buffer: it may hold more */
	char *in;
	size_t in_cap;
	ZSTD_inBuffer ib;
	uint64_t in_bytes; /* compressed bytes read so far */
	char *buf;         /* decoded bytes: [start, end) not yet returned */
	size_t cap, start, scan, end;
	uint64_t rows;
	char damage[160]; /* why reading stopped before the end; "" when it did not */
	bool between_rows; /* with damage: it came after a whole row (a cut zstd frame) */
};

/* path relative to dirfd (AT_FDCWD for the current directory). 0 or -errno
 * with e->msg naming the file. */
int jsonl_reader_open(struct jsonl_reader *r, int dirfd, const char *path, struct errbuf *e);
/* Reads from fd, which stays open (stdin). */
int jsonl_reader_fdopen(struct jsonl_reader *r, int fd, struct errbuf *e);

/* 1 with the next row (without its newline, NUL-terminated, valid until
 * the next call); 0 at the end of what could be read, with r->damage set
 * when that is not the end of the file; -errno on a read error. */
int jsonl_reader_next(struct jsonl_reader *r, char **row, size_t *len, struct errbuf *e);

void jsonl_reader_close(struct jsonl_reader *r);

/* Whether the file ends where a row ends, found without reading it all: a
 * plain file's last byte; a zstd file's frames walked by their blocks'
 * headers, the last whole (its writer frames whole rows). 0 when it does
 * (or is empty), 1 with why (as jsonl_reader_next's damage says it) when it
 * does not, -errno with e when it cannot be read. A row damaged before the
 * end is found only by reading it. */
int jsonl_check_end(int dirfd, const char *path, char *why, size_t len, struct errbuf *e);

/* Complete rows in a file, up to the first damage: what survived a crash. */
int64_t jsonl_count_rows(int dirfd, const char *path);

#endif
