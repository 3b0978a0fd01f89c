// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The last row and a disk that fills at every byte of it: jsonl_writer_finish
 * either writes the row, the end of its zstd frame and an fsync, or leaves
 * the file as it was before the row. A file never ends with its final row
 * in an unclosed frame. The disk is RLIMIT_FSIZE, which fails a write past
 * it with EFBIG as a full disk fails one with ENOSPC, at a byte the test
 * chooses. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonl_reader.h"
#include "jsonl_writer.h"
#include "testing.h"

#define ROWS 7 /* before the last */

struct dir {
	char path[64];
	int fd;
};

static void dir_make(struct dir *d)
{
	strcpy(d->path, "/tmp/test_jsonl_writer.XXXXXX");
	EXPECT(mkdtemp(d->path));
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY);
	EXPECT(d->fd >= 0);
}

static void dir_remove(struct dir *d)
{
	unlinkat(d->fd, "rows", 0);
	close(d->fd);
	rmdir(d->path);
}

static json_t *row(int i, bool final)
{
	return json_pack("{s:i, s:b, s:s}", "seq", i, "final", final,
			 "pad", "a row long enough to need a few zstd blocks of its own: 0123456789");
}

static off_t size_of(int dirfd)
{
	struct stat st;
	EXPECT_EQ(fstatat(dirfd, "rows", &st, 0), 0);
	return st.st_size;
}

/* Writes ROWS rows, then the last one with the file limited to limit bytes
 * (-1: none); the file's size before the last row; finish's result in *r. */
static off_t write_file(int dirfd, enum compression comp, rlim_t limit, int *r, struct errbuf *e)
{
	struct jsonl_writer w;
	EXPECT_EQ(jsonl_writer_open(&w, dirfd, "rows", comp, 3, e), 0);
	for (int i = 0; i < ROWS; i++) {
		json_t *x = row(i, false);
		EXPECT_EQ(jsonl_writer_write(&w, x, i * NS_PER_MS, e), 0);
		json_decref(x);
	}
	off_t before = size_of(dirfd);
	struct rlimit old, lim = {limit, RLIM_INFINITY};
	EXPECT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
	if (limit != RLIM_INFINITY)
		EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	json_t *x = row(ROWS, true);
	*r = jsonl_writer_finish(&w, x, ROWS * NS_PER_MS, e);
	json_decref(x);
	EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
	struct errbuf ignored;
	if (*r == 0)
		EXPECT_EQ(jsonl_writer_close(&w, e), 0);
	else
		jsonl_writer_close(&w, &ignored);
	return before;
}

/* The rows the file holds, and whether it ends cleanly. */
static int read_back(int dirfd, bool *clean, bool *last_final)
{
	struct jsonl_reader r;
	struct errbuf e;
	char *text;
	size_t n;
	int rows = 0, rc;
	*last_final = false;
	EXPECT_EQ(jsonl_reader_open(&r, dirfd, "rows", &e), 0);
	while ((rc = jsonl_reader_next(&r, &text, &n, &e)) > 0) {
		rows++;
		*last_final = strstr(text, "\"final\":true") != NULL;
	}
	EXPECT_EQ(rc, 0);
	*clean = !r.damage[0];
	jsonl_reader_close(&r);
	return rows;
}

static void disk_full_at_every_byte(enum compression comp)
{
	signal(SIGXFSZ, SIG_IGN);
	struct dir d;
	struct errbuf e;
	int r;
	bool clean, final;

	dir_make(&d);
	off_t before = write_file(d.fd, comp, RLIM_INFINITY, &r, &e);
	EXPECT_EQ(r, 0);
	off_t whole = size_of(d.fd);
	EXPECT_EQ(read_back(d.fd, &clean, &final), ROWS + 1);
	EXPECT(clean && final);
	dir_remove(&d);
	/* zstd: the row's blocks, the frame's last block and its checksum */
	EXPECT(whole > before + (comp == COMPRESSION_ZSTD ? 4 : 0));

	for (off_t limit = before; limit < whole; limit++) {
		dir_make(&d);
		EXPECT_EQ(write_file(d.fd, comp, (rlim_t)limit, &r, &e), before);
		if (r != -EFBIG)
			FAILF("limit %lld of %lld: finish gave %d (%s)", (long long)limit,
			      (long long)whole, r, r ? e.msg : "no error");
		EXPECT_CONTAINS(e.msg, "rows: File too large");
		if (size_of(d.fd) != before)
			FAILF("limit %lld: %lld bytes left, %lld before the last row", (long long)limit,
			      (long long)size_of(d.fd), (long long)before);
		/* a zstd file is then cut between rows inside an open frame, as
		 * validate accepts of a failed source */
		EXPECT_EQ(read_back(d.fd, &clean, &final), ROWS);
		EXPECT(!final);
		EXPECT(clean == (comp == COMPRESSION_NONE));
		dir_remove(&d);
	}
}

TEST(plain_last_row_whole_or_not_at_all)
{
	disk_full_at_every_byte(COMPRESSION_NONE);
}

TEST(zstd_last_row_comes_with_its_frames_end_or_not_at_all)
{
	disk_full_at_every_byte(COMPRESSION_ZSTD);
}

/* After the last row the writer takes no other. */
TEST(nothing_after_the_last_row)
{
	struct dir d;
	struct errbuf e;
	struct jsonl_writer w;
	dir_make(&d);
	EXPECT_EQ(jsonl_writer_open(&w, d.fd, "rows", COMPRESSION_ZSTD, 3, &e), 0);
	json_t *x = row(0, true);
	EXPECT_EQ(jsonl_writer_finish(&w, x, 0, &e), 0);
	EXPECT_EQ(jsonl_writer_write(&w, x, 1, &e), -EIO);
	EXPECT_CONTAINS(e.msg, "rows: the file has ended");
	json_decref(x);
	EXPECT_EQ(jsonl_writer_close(&w, &e), 0);
	EXPECT_EQ(w.rows, 1u);
	dir_remove(&d);
}
