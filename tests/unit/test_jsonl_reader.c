// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* jsonl_writer's files cut at every byte, as a SIGKILL at any moment could
 * leave them: jsonl_reader returns exactly the rows whose write had
 * finished, byte for byte, and says why it stopped unless the cut fell on a
 * clean end. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jsonl_reader.h"
#include "jsonl_writer.h"
#include "testing.h"

#define ROWS 230

struct written {
	char dir[64];
	char *text[ROWS];
	off_t end[ROWS]; /* file size once row i was written */
	bool clean[ROWS]; /* a cut right after row i leaves no damage */
	int64_t t[ROWS];  /* CLOCK_MONOTONIC the writer was told for row i */
	char *bytes;
	size_t size;
};

static void write_rows(struct written *w, enum compression comp)
{
	strcpy(w->dir, "/tmp/test_jsonl_reader.XXXXXX");
	EXPECT(mkdtemp(w->dir));
	int dirfd = open(w->dir, O_RDONLY | O_DIRECTORY);
	struct jsonl_writer jw;
	struct errbuf e;
	EXPECT_EQ(jsonl_writer_open(&jw, dirfd, "rows", comp, 3, &e), 0);
	for (int i = 0; i < ROWS; i++) {
		/* rows of varied length; 30 ms ticks, then 1 s ticks: frames end
		 * by their row count first, then by their age */
		w->t[i] = i < 150 ? i * 30 * NS_PER_MS : 4500 * NS_PER_MS + (i - 149) * NS_PER_S;
		json_t *row = json_pack("{s:i, s:I, s:s%}", "seq", i, "t", (json_int_t)w->t[i],
					"pad", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
					(size_t)(i * 7 % 50));
		w->text[i] = json_dumps(row, JSON_COMPACT);
		EXPECT_EQ(jsonl_writer_write(&jw, row, w->t[i], &e), 0);
		json_decref(row);
		w->end[i] = lseek(jw.fd, 0, SEEK_END);
		w->clean[i] = !jw.zc || jw.frame_start_ns < 0;
	}
	EXPECT_EQ(jsonl_writer_close(&jw, &e), 0);
	int fd = openat(dirfd, "rows", O_RDONLY);
	w->size = (size_t)lseek(fd, 0, SEEK_END);
	w->bytes = malloc(w->size);
	EXPECT_EQ(pread(fd, w->bytes, w->size, 0), (ssize_t)w->size);
	close(fd);
	unlinkat(dirfd, "rows", 0);
	close(dirfd);
	rmdir(w->dir);
}

static bool comp_zstd(const struct written *w)
{
	return w->size > 4 && !memcmp(w->bytes, "\x28\xb5\x2f\xfd", 4);
}

/* Reads the first len bytes of what was written, as a file cut there. */
static void check_cut(struct written *w, size_t len)
{
	int fd = memfd_create("cut", 0);
	EXPECT_EQ(write(fd, w->bytes, len), (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	struct jsonl_reader r;
	struct errbuf e;
	char *row;
	size_t n;
	int whole = 0; /* rows written in full before the cut */
	while (whole < ROWS && (size_t)w->end[whole] <= len)
		whole++;
	/* A row that ends a frame is whole before the frame's 4-byte checksum
	 * is: a cut inside that checksum still gives it. */
	if (whole < ROWS && w->end[whole] - 4 <= (off_t)len && comp_zstd(w) && w->clean[whole])
		whole++;
	EXPECT_EQ(jsonl_reader_fdopen(&r, fd, &e), 0);
	int got = 0, rc;
	while ((rc = jsonl_reader_next(&r, &row, &n, &e)) > 0) {
		if (got >= whole || strcmp(row, w->text[got]))
			FAILF("cut at %zu of %zu: row %d is \"%s\"", len, w->size, got, row);
		got++;
	}
	EXPECT_EQ(rc, 0);
	if (got != whole)
		FAILF("cut at %zu of %zu: %d rows, %d were written", len, w->size, got, whole);
	bool clean = len == 0 || len == w->size || (whole > 0 && (size_t)w->end[whole - 1] == len && w->clean[whole - 1]);
	/* ... but then the frame is not over */
	bool in_checksum = whole > 0 && (size_t)w->end[whole - 1] > len;
	if (clean != !r.damage[0] && !in_checksum)
		FAILF("cut at %zu of %zu: damage \"%s\"", len, w->size, r.damage);
	/* the end found without reading the rows says the same (a frame cut
	 * in its checksum is cut) */
	char path[64], why[160];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int end = jsonl_check_end(AT_FDCWD, path, why, sizeof(why), &e);
	if (end < 0 || (end == 1) != (r.damage[0] || in_checksum))
		FAILF("cut at %zu of %zu: the end check says %d (%s), the reader \"%s\"", len, w->size, end,
		      end > 0 ? why : "", r.damage);
	jsonl_reader_close(&r);
	close(fd);
}

static void check_every_cut(enum compression comp)
{
	struct written w;
	write_rows(&w, comp);
	for (size_t len = 0; len <= w.size; len++)
		check_cut(&w, len);
	for (int i = 0; i < ROWS; i++)
		free(w.text[i]);
	free(w.bytes);
}

TEST(plain_file_cut_at_every_byte)
{
	check_every_cut(COMPRESSION_NONE);
}

TEST(zstd_file_cut_at_every_byte)
{
	check_every_cut(COMPRESSION_ZSTD);
}

/* Frames end after 100 rows or 10 s, whichever comes first: a decoder of
 * whole frames loses at most the frame a crash cut. */
TEST(zstd_frames_end_by_rows_and_by_age)
{
	struct written w;
	write_rows(&w, COMPRESSION_ZSTD);
	int first = 0, by_rows = 0, by_age = 0;
	for (int i = 0; i < ROWS - 1; i++) {
		if (!w.clean[i])
			continue;
		int rows = i - first + 1;
		int64_t age = w.t[i] - w.t[first];
		if (rows > JSONL_FRAME_ROWS || (rows < JSONL_FRAME_ROWS && age < JSONL_FRAME_NS) ||
		    (i > first && w.t[i - 1] - w.t[first] >= JSONL_FRAME_NS))
			FAILF("a frame of rows %d to %d, %lld ns", first, i, (long long)age);
		by_rows += rows == JSONL_FRAME_ROWS;
		by_age += rows < JSONL_FRAME_ROWS;
		first = i + 1;
	}
	EXPECT(by_rows >= 1);
	EXPECT(by_age >= 5);
	for (int i = 0; i < ROWS; i++)
		free(w.text[i]);
	free(w.bytes);
}

TEST(damage_is_named)
{
	static const char garbage[] = "\x28\xb5\x2f\xfd garbage after the zstd magic";
	int fd = memfd_create("bad", 0);
	EXPECT_EQ(write(fd, garbage, sizeof(garbage) - 1), (ssize_t)sizeof(garbage) - 1);
	lseek(fd, 0, SEEK_SET);
	struct jsonl_reader r;
	struct errbuf e;
	char *row;
	size_t n;
	EXPECT_EQ(jsonl_reader_fdopen(&r, fd, &e), 0);
	EXPECT_EQ(jsonl_reader_next(&r, &row, &n, &e), 0);
	EXPECT_CONTAINS(r.damage, "zstd data does not decode at byte");
	jsonl_reader_close(&r);
	close(fd);
	EXPECT_EQ(jsonl_reader_open(&r, AT_FDCWD, "/nonexistent/x.jsonl", &e), -ENOENT);
	EXPECT_CONTAINS(e.msg, "/nonexistent/x.jsonl: No such file or directory");
}
