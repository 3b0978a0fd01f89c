// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* blkwork: block I/O that counts itself, for block_io's and diskstats'
 * tests.
 *
 *   blkwork direct DEV OFFSET PROCS ROUNDS
 *       PROCS processes (forked; the parent only waits) each do ROUNDS
 *       rounds of O_DIRECT pwrite()s of the sizes below to DEV, each at a
 *       fresh offset from OFFSET on, then pread()s of the same ranges. An
 *       O_DIRECT call of at most 64 KiB on a block device, aligned to its
 *       logical blocks, is one bio: each call is one op. Prints
 *         {"read_ops": N, "read_bytes": N, "write_ops": N, "write_bytes": N,
 *          "read_size_hist": [32], "write_size_hist": [32]}
 *       with the histograms over log2 buckets of the call's size, the
 *       edges of docs/data-model.md written here independently.
 *   blkwork reads DEV COUNT
 *       COUNT O_DIRECT pread()s of 4 KiB, walking the first 16 MiB of DEV
 *       (bench/block_io.py's block-heavy workload); prints {"read_ops": N}.
 *   blkwork buffered DEV OFFSET BYTES
 *       write()s BYTES to DEV through the page cache in 4 KiB calls, then
 *       fsync(): prints {"write_bytes": BYTES}.
 *   blkwork prefetch DEV BYTES
 *       asks for DEV's first BYTES with posix_fadvise(POSIX_FADV_WILLNEED)
 *       and exits at once, while the reads it started are in flight (the
 *       device's read_ahead_kb must cover BYTES, and nothing of it be
 *       cached, for all of BYTES to be read): prints {"read_bytes": BYTES}.
 *
 * Exits 2 with a message on any failure, short transfers included. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUCKETS 32

/* the sizes each round writes and reads: 512 B to 64 KiB, multiples of 512 */
static const size_t sizes[] = {4096, 512, 65536, 8192, 1536, 32768, 4096};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAX_SIZE 65536

struct totals {
	atomic_ullong ops[2], bytes[2];
	atomic_ullong hist[2][BUCKETS];
};

static void die(const char *what)
{
	fprintf(stderr, "blkwork: %s: %s\n", what, errno ? strerror(errno) : "short transfer");
	exit(2);
}

/* bucket 0: 0 bytes; i: 2^(i-1) .. 2^i - 1; 31: 2^30 and more */
static int bucket(unsigned long long v)
{
	int b = 0;
	while (v && b < BUCKETS - 1) {
		v >>= 1;
		b++;
	}
	return b;
}

static void count(struct totals *t, int dir, size_t n)
{
	t->ops[dir]++;
	t->bytes[dir] += n;
	t->hist[dir][bucket(n)]++;
}

static void direct(const char *dev, off_t offset, int rounds, struct totals *t)
{
	int fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		die(dev);
	void *buf = aligned_alloc(4096, MAX_SIZE);
	if (!buf)
		die("aligned_alloc");
	memset(buf, 0x5a, MAX_SIZE);
	for (int r = 0; r < rounds; r++) {
		off_t start = offset;
		for (size_t i = 0; i < NSIZES; i++, offset += (off_t)sizes[i - 1]) {
			errno = 0;
			if (pwrite(fd, buf, sizes[i], offset) != (ssize_t)sizes[i])
				die("pwrite");
			count(t, 1, sizes[i]);
		}
		offset = start;
		for (size_t i = 0; i < NSIZES; i++, offset += (off_t)sizes[i - 1]) {
			errno = 0;
			if (pread(fd, buf, sizes[i], offset) != (ssize_t)sizes[i])
				die("pread");
			count(t, 0, sizes[i]);
		}
	}
	free(buf);
	close(fd);
}

static void print_hist(const char *name, atomic_ullong *h)
{
	printf(", \"%s\": [", name);
	for (int b = 0; b < BUCKETS; b++)
		printf("%s%llu", b ? ", " : "", (unsigned long long)h[b]);
	printf("]");
}

static int run_direct(const char *dev, off_t offset, int procs, int rounds)
{
	struct totals *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0);
	if (t == MAP_FAILED)
		die("mmap");
	size_t round_bytes = 0;
	for (size_t i = 0; i < NSIZES; i++)
		round_bytes += sizes[i];
	for (int p = 0; p < procs; p++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			direct(dev, offset + (off_t)(p * rounds * round_bytes), rounds, t);
			_exit(0);
		}
	}
	int st, failed = 0;
	while (wait(&st) > 0)
		failed |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	if (failed) {
		fprintf(stderr, "blkwork: a process failed\n");
		return 2;
	}
	printf("{\"read_ops\": %llu, \"read_bytes\": %llu, \"write_ops\": %llu, \"write_bytes\": %llu",
	       (unsigned long long)t->ops[0], (unsigned long long)t->bytes[0],
	       (unsigned long long)t->ops[1], (unsigned long long)t->bytes[1]);
	print_hist("read_size_hist", t->hist[0]);
	print_hist("write_size_hist", t->hist[1]);
	printf("}\n");
	return fflush(stdout) == 0 ? 0 : 2;
}

static int run_buffered(const char *dev, off_t offset, long long bytes)
{
	int fd = open(dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(dev);
	char buf[4096];
	memset(buf, 0xa5, sizeof(buf));
	for (long long done = 0; done < bytes; done += (long long)sizeof(buf)) {
		errno = 0;
		if (pwrite(fd, buf, sizeof(buf), offset + done) != (ssize_t)sizeof(buf))
			die("pwrite");
	}
	if (fsync(fd) < 0)
		die("fsync");
	close(fd);
	printf("{\"write_bytes\": %lld}\n", bytes);
	return fflush(stdout) == 0 ? 0 : 2;
}

static int run_reads(const char *dev, long count)
{
	int fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	void *buf = aligned_alloc(4096, 4096);
	if (fd < 0 || !buf)
		die(dev);
	for (long i = 0; i < count; i++) {
		errno = 0;
		if (pread(fd, buf, 4096, (off_t)(i % 4096) * 4096) != 4096)
			die("pread");
	}
	close(fd);
	free(buf);
	printf("{\"read_ops\": %ld}\n", count);
	return fflush(stdout) == 0 ? 0 : 2;
}

static int run_prefetch(const char *dev, long long bytes)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(dev);
	if ((errno = posix_fadvise(fd, 0, bytes, POSIX_FADV_WILLNEED)) != 0)
		die("posix_fadvise");
	printf("{\"read_bytes\": %lld}\n", bytes);
	return fflush(stdout) == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "direct"))
		return run_direct(argv[2], atoll(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (argc == 4 && !strcmp(argv[1], "reads"))
		return run_reads(argv[2], atol(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "buffered") && atoll(argv[4]) % 4096 == 0)
		return run_buffered(argv[2], atoll(argv[3]), atoll(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "prefetch") && atoll(argv[3]) > 0)
		return run_prefetch(argv[2], atoll(argv[3]));
	fprintf(stderr, "usage: blkwork direct DEV OFFSET PROCS ROUNDS\n"
			"       blkwork reads DEV COUNT\n"
			"       blkwork buffered DEV OFFSET BYTES (a multiple of 4096)\n"
			"       blkwork prefetch DEV BYTES\n");
	return 2;
}
