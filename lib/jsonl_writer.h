/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Rows out to <source>.jsonl or <source>.jsonl.zst, flushed at every row.
 *
 * Plain files get each row in a single write(2), so a reader (tail -f) or a
 * crash never sees half a row except when the disk itself fails. Compressed
 * files flush the zstd stream at every row, so every row written is a
 * complete zstd block that jsonl_reader (iopsample cat) decodes after a
 * crash, and end the frame every JSONL_FRAME_ROWS rows or JSONL_FRAME_NS,
 * whichever comes first, so a tool that decodes whole frames only loses at
 * most the last of them. Frames are not shorter because each one starts
 * with an empty history: a frame per second at 100 ms intervals takes 45-60%
 * more bytes (docs/benchmarks.md).
 *
 * A write that fails (a full disk) cuts the file back to the end of the last
 * whole row, so what stays ends cleanly, and the writer takes no more rows.
 * The last row goes out with the file's end (jsonl_writer_finish): the row,
 * the frame's end and the fsync succeed together or the row is cut off, so
 * a file holds its final row only when it was closed whole. */
#ifndef IOPSAMPLE_JSONL_WRITER_H
#define IOPSAMPLE_JSONL_WRITER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <zstd.h>

#include "duration.h"
#include "log.h"

enum compression { COMPRESSION_NONE, COMPRESSION_ZSTD };

#define JSONL_FRAME_NS (10 * NS_PER_S)
#define JSONL_FRAME_ROWS 100

struct jsonl_writer {
	int fd;
	char name[64]; /* for messages */
	off_t end;     /* bytes written so far */
	off_t good;    /* the file's length after the last whole row */
	bool failed;   /* a write failed: the file was cut back to good */
	bool finished; /* the last row and the file's end are written and synced */
	char *buf; /* one serialised row */
	size_t cap;
	ZSTD_CCtx *zc; /* NULL when not compressing */
	char *zbuf;
	size_t zcap;
	int64_t frame_start_ns; /* -1: no frame open */
	unsigned frame_rows;
	uint64_t rows;
};

/* The file name for a source: "proc_io.jsonl" or "proc_io.jsonl.zst". */
void jsonl_file_name(const char *source, enum compression comp, char *buf, size_t len);

/* row as one line of JSON, exactly as jansson's json_dumpb(JSON_COMPACT)
 * writes it (the files' bytes are jansson's), without printf or
 * allocation: the length, which is the length needed when it exceeds cap
 * (nothing is written then); 0 when row is not an object. */
size_t jsonl_encode(const json_t *row, char *buf, size_t cap);

/* Sets obj's key to integer v, or to null when !known, reusing the integer
 * the cell holds: once a row's cells hold integers a tick allocates nothing
 * (json_object_set_new of a fresh integer costs a malloc and a free a cell). */
static inline void jsonl_cell_int(json_t *obj, const char *key, bool known, json_int_t v)
{
	json_t *cur = json_object_get(obj, key);
	if (known && json_is_integer(cur))
		json_integer_set(cur, v);
	else if (known)
		json_object_set_new(obj, key, json_integer(v));
	else if (!json_is_null(cur))
		json_object_set_new(obj, key, json_null());
}

/* The same for a real. */
static inline void jsonl_cell_real(json_t *obj, const char *key, bool known, double v)
{
	json_t *cur = json_object_get(obj, key);
	if (known && json_is_real(cur))
		json_real_set(cur, v);
	else if (known)
		json_object_set_new(obj, key, json_real(v));
	else if (!json_is_null(cur))
		json_object_set_new(obj, key, json_null());
}

/* Creates name in dirfd; an existing file is an error, never overwritten. */
int jsonl_writer_open(struct jsonl_writer *w, int dirfd, const char *name, enum compression comp,
		      int level, struct errbuf *e);
/* now_ns: CLOCK_MONOTONIC, decides when a zstd frame ends. A failed write
 * leaves the file ending with the last whole row; later calls fail at once. */
int jsonl_writer_write(struct jsonl_writer *w, const json_t *row, int64_t now_ns,
		       struct errbuf *e);
/* Writes the last row and ends the file with it: the row, the zstd frame's
 * end and an fsync, all or none (on a failure the file is cut back to the
 * row before, and that error is returned). Only close may follow. */
int jsonl_writer_finish(struct jsonl_writer *w, const json_t *row, int64_t now_ns,
			struct errbuf *e);
/* Ends the stream (unless finish did), fsyncs and closes; only rows stays
 * meaningful. */
int jsonl_writer_close(struct jsonl_writer *w, struct errbuf *e);

#endif
