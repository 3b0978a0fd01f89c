// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cachework: file I/O of every cause block_io tells apart, counting what it
 * does, for block_io's causes (tests/e2e/causes.sh, the kernel matrix).
 *
 *   cachework DIR BYTES STEP...
 *
 * Each STEP is KIND:NAME, done in order on the file DIR/NAME, BYTES at a
 * time, in 1 MiB calls of a pattern that is not zeros:
 *   direct:F    writes F with O_DIRECT (the file is made or emptied first)
 *   fsync:F     writes F through the page cache, then fsync()
 *   buffered:F  writes F through the page cache and leaves it dirty
 *   drop:F      fsync(), then posix_fadvise(POSIX_FADV_DONTNEED): F's pages
 *               leave the page cache, so the next read of F is cold
 *   read:F      reads F with read() from its start to its end
 *   mmap:F      maps F and reads one byte of each page, in order
 *   forks:N:F   N processes each read their 1/N of F with pread() (N | BYTES)
 * and prints what it did, by kind, once every step is done:
 *   {"direct": N, "fsync": N, "buffered": N, "read": N, "mmap": N, "forks": N}
 *
 * Exits 2 with a message on any failure, short transfers included. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static void die(const char *what, const char *path)
{
	fprintf(stderr, "cachework: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static char *buffer(void)
{
	char *b;
	if (posix_memalign((void **)&b, 4096, CHUNK))
		die("allocating", "a buffer");
	for (size_t i = 0; i < CHUNK; i++)
		b[i] = (char)(i * 31 + 7);
	return b;
}

static long long write_file(const char *path, long long bytes, int flags, int do_fsync)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | flags, 0644);
	if (fd < 0)
		die("opening", path);
	char *b = buffer();
	for (long long done = 0; done < bytes; done += CHUNK) {
		size_t n = bytes - done < CHUNK ? (size_t)(bytes - done) : CHUNK;
		if (write(fd, b, n) != (ssize_t)n)
			die("writing", path);
	}
	if (do_fsync && fsync(fd) < 0)
		die("fsync of", path);
	free(b);
	close(fd);
	return bytes;
}

static void drop(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fsync(fd) < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("dropping the cache of", path);
	close(fd);
}

static long long read_range(int fd, const char *path, off_t from, long long bytes)
{
	char *b = buffer();
	long long done = 0;
	while (done < bytes) {
		size_t n = bytes - done < CHUNK ? (size_t)(bytes - done) : CHUNK;
		ssize_t got = pread(fd, b, n, from + done);
		if (got <= 0)
			die("reading", path);
		done += got;
	}
	free(b);
	return done;
}

static long long read_file(const char *path, long long bytes)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("opening", path);
	long long done = read_range(fd, path, 0, bytes);
	close(fd);
	return done;
}

static long long map_file(const char *path, long long bytes)
{
	int fd = open(path, O_RDONLY);
	volatile unsigned char *m = fd < 0 ? MAP_FAILED : mmap(NULL, (size_t)bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mapping", path);
	unsigned sum = 0;
	long page = sysconf(_SC_PAGESIZE);
	for (long long i = 0; i < bytes; i += page)
		sum += m[i];
	munmap((void *)m, (size_t)bytes);
	close(fd);
	return sum == 0xffffffff ? 0 : bytes; /* sum is used: the reads happen */
}

static long long forks(const char *path, long long bytes, int n)
{
	long long each = bytes / n;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("forking for", path);
		if (pid == 0) {
			int fd = open(path, O_RDONLY);
			if (fd < 0)
				die("opening", path);
			_exit(read_range(fd, path, (off_t)(each * i), each) == each ? 0 : 2);
		}
	}
	int status, bad = 0;
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (bad) {
		errno = EIO;
		die("a reader of", path);
	}
	return each * n;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: cachework DIR BYTES KIND:NAME...\n");
		return 2;
	}
	long long bytes = atoll(argv[2]);
	long long direct = 0, fsynced = 0, buffered = 0, readn = 0, mapped = 0, forked = 0;
	char path[4096];
	for (int i = 3; i < argc; i++) {
		char *kind = argv[i], *name = strchr(kind, ':');
		if (!name) {
			fprintf(stderr, "cachework: %s: not KIND:NAME\n", kind);
			return 2;
		}
		*name++ = '\0';
		int n = 0;
		if (!strcmp(kind, "forks")) {
			n = atoi(name);
			name = strchr(name, ':');
			if (n <= 0 || !name || bytes % n) {
				fprintf(stderr, "cachework: forks:N:NAME with N dividing %lld\n", bytes);
				return 2;
			}
			name++;
		}
		snprintf(path, sizeof(path), "%s/%s", argv[1], name);
		if (!strcmp(kind, "direct"))
			direct += write_file(path, bytes, O_DIRECT, 0);
		else if (!strcmp(kind, "fsync"))
			fsynced += write_file(path, bytes, 0, 1);
		else if (!strcmp(kind, "buffered"))
			buffered += write_file(path, bytes, 0, 0);
		else if (!strcmp(kind, "drop"))
			drop(path);
		else if (!strcmp(kind, "read"))
			readn += read_file(path, bytes);
		else if (!strcmp(kind, "mmap"))
			mapped += map_file(path, bytes);
		else if (!strcmp(kind, "forks"))
			forked += forks(path, bytes, n);
		else {
			fprintf(stderr, "cachework: %s: no such kind\n", kind);
			return 2;
		}
	}
	printf("{\"direct\": %lld, \"fsync\": %lld, \"buffered\": %lld, \"read\": %lld, \"mmap\": %lld, "
	       "\"forks\": %lld}\n",
	       direct, fsynced, buffered, readn, mapped, forked);
	return 0;
}
