// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* syscall_io's histogram edges and its lock-free snapshots. */
#include <pthread.h>
#include <stdatomic.h>

#include "syscall_io/sio_counts.h"
#include "testing.h"

TEST(bucket_edges_are_log2_of_the_returned_bytes)
{
	EXPECT_EQ(log2_bucket(0), 0);
	EXPECT_EQ(log2_bucket(1), 1);
	EXPECT_EQ(log2_bucket(2), 2);
	EXPECT_EQ(log2_bucket(3), 2);
	EXPECT_EQ(log2_bucket(4), 3);
	EXPECT_EQ(log2_bucket(4095), 12);
	EXPECT_EQ(log2_bucket(4096), 13);
	EXPECT_EQ(log2_bucket(32768), 16);
	EXPECT_EQ(log2_bucket((1u << 30) - 1), 30);
	EXPECT_EQ(log2_bucket(1u << 30), 31);
	EXPECT_EQ(log2_bucket(UINT64_MAX), 31);
	for (unsigned i = 1; i <= 30; i++) {
		EXPECT_EQ(log2_bucket(1ull << (i - 1)), i);
		EXPECT_EQ(log2_bucket((1ull << i) - 1), i);
	}
}

/* The branch-free log2 that the eBPF program compiles, against the
 * compiler's count of leading zeros, at every power of two, either side of
 * it, and at pseudo-random values. */
TEST(log2_without_clz_matches_clz)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 64; i++) {
		uint64_t p = 1ull << i;
		EXPECT_EQ(log2_floor(p), i);
		EXPECT_EQ(log2_floor(p | (p - 1)), i);
		if (i < 63)
			EXPECT_EQ(log2_floor(p + 1), i + (i == 0));
	}
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t v = x >> (i % 64);
		if (v)
			EXPECT_EQ(log2_floor(v), 63 - __builtin_clzll(v));
	}
}

TEST(errors_are_the_kernels_last_4095_values)
{
	EXPECT(sio_is_error(-1));
	EXPECT(sio_is_error(-4095));
	EXPECT(!sio_is_error(-4096));
	EXPECT(!sio_is_error(0));
	EXPECT(!sio_is_error(1 << 30));
}

TEST(restart_codes_are_not_results)
{
	EXPECT(!sio_restarting(-511));
	EXPECT(sio_restarting(-512)); /* ERESTARTSYS */
	EXPECT(sio_restarting(-513));
	EXPECT(sio_restarting(-514));
	EXPECT(sio_restarting(-516)); /* ERESTART_RESTARTBLOCK */
	EXPECT(!sio_restarting(-517));
	EXPECT(!sio_restarting(-4)); /* EINTR is a result */
	EXPECT(!sio_restarting(512));
}

static void record(struct sio_counts *c, unsigned i, int64_t rval, bool is_error, unsigned sides,
		   enum sio_kind rk, enum sio_kind wk)
{
	struct sio_call call = {.i = i, .is_error = is_error, .bytes = (uint64_t)rval,
				.sides = sides, .kind = {rk, wk}};
	sio_record(c, &call);
}

TEST(record_sorts_calls_bytes_errors_sides_and_kinds)
{
	static struct sio_counts c = {.n = 3};
	struct sio_totals t;
	record(&c, 0, 4096, false, SIO_SIDE_READ, SIO_KIND_FILE, SIO_KIND_UNKNOWN);
	record(&c, 0, 0, false, SIO_SIDE_READ, SIO_KIND_PIPE, SIO_KIND_UNKNOWN);
	record(&c, 1, 100, false, SIO_SIDE_WRITE, SIO_KIND_UNKNOWN, SIO_KIND_SOCKET);
	record(&c, 1, -9, true, SIO_SIDE_WRITE, SIO_KIND_UNKNOWN, SIO_KIND_SOCKET);
	/* sendfile from a file to a socket: both sides, each its own kind */
	record(&c, 2, 300, false, SIO_SIDE_BOTH, SIO_KIND_FILE, SIO_KIND_SOCKET);
	sio_snapshot(&c, &t);
	EXPECT_EQ(t.calls[0], 2);
	EXPECT_EQ(t.bytes[0], 4096);
	EXPECT_EQ(t.errors[0], 0);
	EXPECT_EQ(t.calls[1], 1);
	EXPECT_EQ(t.bytes[1], 100);
	EXPECT_EQ(t.errors[1], 1);
	EXPECT_EQ(t.calls[2], 1);
	EXPECT_EQ(t.bytes[2], 300);
	EXPECT_EQ(sio_side_calls(&t, IO_READ), 3);
	EXPECT_EQ(sio_side_bytes(&t, IO_READ), 4396);
	EXPECT_EQ(sio_side_calls(&t, IO_WRITE), 2);
	EXPECT_EQ(sio_side_bytes(&t, IO_WRITE), 400);
	EXPECT_EQ(t.hist[IO_READ][13], 1);
	EXPECT_EQ(t.hist[IO_READ][0], 1);
	EXPECT_EQ(t.hist[IO_READ][9], 1);
	EXPECT_EQ(t.hist[IO_WRITE][7], 1);
	EXPECT_EQ(t.hist[IO_WRITE][9], 1);
	EXPECT_EQ(t.kind_bytes[IO_READ][SIO_KIND_FILE], 4396);
	EXPECT_EQ(t.kind_bytes[IO_READ][SIO_KIND_PIPE], 0);
	EXPECT_EQ(t.kind_bytes[IO_WRITE][SIO_KIND_SOCKET], 400);
	EXPECT_EQ(t.kind_bytes[IO_WRITE][SIO_KIND_UNKNOWN], 0);
	/* the calls by kind: the failed write counts on no side */
	EXPECT_EQ(t.kind_calls[IO_READ][SIO_KIND_FILE], 2);
	EXPECT_EQ(t.kind_calls[IO_READ][SIO_KIND_PIPE], 1);
	EXPECT_EQ(t.kind_calls[IO_WRITE][SIO_KIND_SOCKET], 2);
	EXPECT_EQ(t.kind_calls[IO_WRITE][SIO_KIND_FILE], 0);
	EXPECT_EQ(t.kind_calls[IO_WRITE][SIO_KIND_UNKNOWN], 0);
}

TEST(kinds_come_from_the_inode_type)
{
	EXPECT_EQ(sio_kind_of_mode(0100644), SIO_KIND_FILE);
	EXPECT_EQ(sio_kind_of_mode(0060660), SIO_KIND_BLOCKDEV);
	EXPECT_EQ(sio_kind_of_mode(0010600), SIO_KIND_PIPE);
	EXPECT_EQ(sio_kind_of_mode(0140777), SIO_KIND_SOCKET);
	EXPECT_EQ(sio_kind_of_mode(0020666), SIO_KIND_CHARDEV);
	EXPECT_EQ(sio_kind_of_mode(0040755), SIO_KIND_OTHER); /* a directory */
	EXPECT_EQ(sio_kind_of_mode(0600), SIO_KIND_OTHER);    /* an anonymous inode */
}

static struct sio_counts shared = {.n = 3};
static atomic_int writing_done;
static atomic_uint snapshots_taken;
static unsigned written;

/* Writes until the reader has taken enough snapshots to have raced it,
 * however the two threads are scheduled. */
static void *writer(void *arg)
{
	(void)arg;
	unsigned i = 0;
	for (; i < 2000000 || atomic_load(&snapshots_taken) < 1000; i++)
		record(&shared, i % 3, (int64_t)(i % 70000), false,
		       i % 3 == 1 ? SIO_SIDE_WRITE : SIO_SIDE_READ, SIO_KIND_FILE, SIO_KIND_FILE);
	written = i;
	atomic_store(&writing_done, 1);
	return NULL;
}

/* Every snapshot taken while another thread records must be whole: the
 * histograms add up to the calls, and nothing ever goes backwards. */
TEST(snapshots_under_a_concurrent_writer_are_consistent)
{
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	struct sio_totals prev = {0}, now;
	unsigned snapshots = 0;
	while (!atomic_load(&writing_done) || snapshots == 0) {
		sio_snapshot(&shared, &now);
		uint64_t calls[2] = {now.calls[0] + now.calls[2], now.calls[1]}, hist[2] = {0, 0};
		for (int d = 0; d < 2; d++)
			for (int b = 0; b < SIO_HIST_BUCKETS; b++)
				hist[d] += now.hist[d][b];
		EXPECT_EQ(hist[0], calls[0]);
		EXPECT_EQ(hist[1], calls[1]);
		for (int i = 0; i < 3; i++)
			EXPECT(now.calls[i] >= prev.calls[i] && now.bytes[i] >= prev.bytes[i]);
		prev = now;
		atomic_store(&snapshots_taken, ++snapshots);
	}
	pthread_join(t, NULL);
	sio_snapshot(&shared, &now);
	EXPECT_EQ(now.calls[0] + now.calls[1] + now.calls[2], written);
	EXPECT(snapshots >= 1000);
}
