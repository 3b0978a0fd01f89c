// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* darwork: file accesses through libc, where Darshan's POSIX module sees
 * them, for syscall_io's access pattern to be judged by Darshan itself
 * (tests/darshan/). It counts nothing of its own: the judge is Darshan run
 * on this same program.
 *
 *   darwork DIR [CASE...]
 *       in DIR (which must exist), the cases named (all, by default), each
 *       on a file of its own:
 *         seq      sequential write() then read() through one descriptor
 *         pread    pwrite, a pread further on, then read() and write()
 *                  from the descriptor (Darshan's offset is the pread's end)
 *         seek     lseek back and forth between reads, a read at the end
 *         twofd    two descriptors of one file read in turn
 *         append   O_APPEND writes after a write through another descriptor
 *         vec      readv, writev, preadv, pwritev
 *         v2       preadv2 and pwritev2 at offset -1 and at an offset
 *         dup      reads through a dup()ed descriptor and the original
 *         reopen   a file closed and opened again: a first read at byte 1
 *         child    a forked child reads a descriptor it inherited (Darshan
 *                  has no record of it there), then opens the file itself
 *         fail     calls that fail: no access
 *         unalign  writes and reads off the block size
 *
 * Writes nothing to its standard output, so that the episode's only file
 * accesses are its cases'. Every call is checked for the bytes it should
 * move; exits 2 on one that did not do what it should. A child ends with
 * exit(), so that Darshan writes its log. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static char buf[65536];

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "darwork: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

/* A call that must return want (bytes, or an offset). */
static void must(long long got, long long want, const char *what)
{
	if (got != want)
		die("%s returned %lld (%s), not %lld", what, got, got < 0 ? strerror(errno) : "",
		    want);
}

static int open_in(const char *name, int flags)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, flags, 0644);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	return fd;
}

/* A file of n bytes, written by a write() per 4 KiB. */
static int fresh(const char *name, size_t n)
{
	int fd = open_in(name, O_RDWR | O_CREAT | O_TRUNC);
	for (size_t at = 0; at < n; at += 4096)
		must(write(fd, buf, n - at < 4096 ? n - at : 4096), n - at < 4096 ? (long long)(n - at) : 4096,
		     "write");
	return fd;
}

static void seq(void)
{
	int fd = fresh("seq", 32768);
	must(lseek(fd, 0, SEEK_SET), 0, "lseek");
	for (int i = 0; i < 8; i++)
		must(read(fd, buf, 4096), 4096, "read");
	must(read(fd, buf, 4096), 0, "read at the end");
	close(fd);
}

static void pread_case(void)
{
	int fd = fresh("pread", 16384);
	must(pwrite(fd, buf, 100, 20000), 100, "pwrite");
	must(pread(fd, buf, 100, 8192), 100, "pread");
	/* the descriptor is at 16384; Darshan's offset at 8292 */
	must(read(fd, buf, 1000), 1000, "read");
	must(write(fd, buf, 500), 500, "write");
	must(pread(fd, buf, 200, 30000), 0, "pread past the end");
	must(read(fd, buf, 10), 10, "read");
	close(fd);
}

static void seek(void)
{
	int fd = fresh("seek", 16384);
	static const long long at[] = {0, 8192, 1000, 12288, 4096, 4096, 15000, 200};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		must(lseek(fd, at[i], SEEK_SET), at[i], "lseek");
		must(read(fd, buf, 512), 16384 - at[i] < 512 ? 16384 - at[i] : 512, "read");
	}
	must(lseek(fd, -100, SEEK_CUR), 612, "lseek back");
	must(read(fd, buf, 100), 100, "read");
	must(lseek(fd, 0, SEEK_END), 16384, "lseek to the end");
	must(read(fd, buf, 100), 0, "read at the end");
	must(lseek(fd, 1 << 20, SEEK_SET), 1 << 20, "lseek past the end");
	must(read(fd, buf, 100), 0, "read past the end");
	close(fd);
}

static void twofd(void)
{
	close(fresh("twofd", 16384));
	int a = open_in("twofd", O_RDONLY), b = open_in("twofd", O_RDONLY);
	for (int i = 0; i < 4; i++) {
		must(read(a, buf, 1000), 1000, "read a");
		must(read(b, buf, 1000), 1000, "read b");
	}
	close(a);
	close(b);
}

static void append(void)
{
	int w = fresh("append", 8192);
	int ap = open_in("append", O_WRONLY | O_APPEND);
	must(lseek(w, 100, SEEK_SET), 100, "lseek");
	must(write(w, buf, 300), 300, "write");
	for (int i = 0; i < 3; i++)
		must(write(ap, buf, 200), 200, "append");
	must(write(w, buf, 50), 50, "write");
	close(ap);
	close(w);
}

static void vec(void)
{
	int fd = fresh("vec", 16384);
	struct iovec iov[2] = {{buf, 1000}, {buf + 1000, 3096}};
	must(lseek(fd, 0, SEEK_SET), 0, "lseek");
	must(readv(fd, iov, 2), 4096, "readv");
	must(readv(fd, iov, 2), 4096, "readv");
	must(writev(fd, iov, 2), 4096, "writev");
	must(preadv(fd, iov, 2, 100), 4096, "preadv");
	must(pwritev(fd, iov, 2, 20480), 4096, "pwritev");
	must(preadv(fd, iov, 1, 24576), 0, "preadv at the end");
	must(lseek(fd, 0, SEEK_END), 24576, "lseek to the end");
	must(readv(fd, iov, 1), 0, "readv at the end");
	close(fd);
}

static void v2(void)
{
	int fd = fresh("v2", 16384);
	struct iovec iov[2] = {{buf, 512}, {buf + 512, 512}};
	must(lseek(fd, 4096, SEEK_SET), 4096, "lseek");
	must(preadv2(fd, iov, 2, -1, 0), 1024, "preadv2 at -1");
	must(preadv2(fd, iov, 2, -1, 0), 1024, "preadv2 at -1");
	must(preadv2(fd, iov, 2, 8192, 0), 1024, "preadv2 at 8192");
	must(read(fd, buf, 100), 100, "read");
	must(pwritev2(fd, iov, 2, -1, 0), 1024, "pwritev2 at -1");
	must(pwritev2(fd, iov, 1, 12288, 0), 512, "pwritev2 at 12288");
	must(write(fd, buf, 10), 10, "write");
	close(fd);
}

static void dup_case(void)
{
	close(fresh("dup", 16384));
	int fd = open_in("dup", O_RDONLY), twin = dup(fd);
	if (twin < 0)
		die("dup: %s", strerror(errno));
	for (int i = 0; i < 3; i++) {
		must(read(twin, buf, 700), 700, "read the twin");
		must(read(fd, buf, 700), 700, "read");
	}
	close(twin);
	must(read(fd, buf, 700), 700, "read");
	close(fd);
}

static void reopen(void)
{
	int fd = fresh("reopen", 16384);
	must(pread(fd, buf, 1000, 5000), 1000, "pread");
	close(fd);
	fd = open_in("reopen", O_RDWR);
	must(pread(fd, buf, 100, 1), 100, "pread at 1");
	must(read(fd, buf, 100), 100, "read");
	must(write(fd, buf, 100), 100, "write");
	close(fd);
	fd = open_in("reopen", O_RDONLY);
	must(read(fd, buf, 4096), 4096, "read");
	close(fd);
}

static void child(void)
{
	int fd = fresh("child", 16384);
	must(lseek(fd, 0, SEEK_SET), 0, "lseek");
	must(read(fd, buf, 1000), 1000, "read");
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		/* inherited: Darshan's child starts with no record */
		must(read(fd, buf, 1000), 1000, "the child's read");
		must(pread(fd, buf, 1000, 9000), 1000, "the child's pread");
		int own = open_in("child", O_RDONLY);
		must(pread(own, buf, 100, 4097), 100, "the child's pread");
		must(read(own, buf, 100), 100, "the child's read");
		must(read(fd, buf, 100), 100, "the child's read");
		close(own);
		exit(0);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the child failed");
	must(read(fd, buf, 1000), 1000, "read");
	close(fd);
}

static void fail(void)
{
	int fd = fresh("fail", 4096), wo = open_in("fail", O_WRONLY), bad;
	must(lseek(fd, 0, SEEK_SET), 0, "lseek");
	must(read(wo, buf, 10), -1, "read of a write-only descriptor");
	must(pread(wo, buf, 10, 0), -1, "pread of a write-only descriptor");
	must(lseek(fd, -1, SEEK_SET), -1, "lseek before the start");
	must(read(fd, buf, 10), 10, "read");
	bad = dup(fd);
	close(bad);
	must(read(bad, buf, 10), -1, "read of a closed descriptor");
	must(write(fd, buf, 10), 10, "write");
	close(wo);
	close(fd);
}

static void unalign(void)
{
	int fd = fresh("unalign", 0);
	must(pwrite(fd, buf, 5000, 0), 5000, "pwrite");
	must(write(fd, buf, 3000), 3000, "write");
	must(pwrite(fd, buf, 100, 8192), 100, "pwrite");
	must(pread(fd, buf, 4096, 4096), 4096, "pread");
	must(pread(fd, buf, 10, 4095), 10, "pread");
	must(read(fd, buf, 10), 10, "read");
	close(fd);
}

static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{"seq", seq},	  {"pread", pread_case}, {"seek", seek},     {"twofd", twofd},
	{"append", append}, {"vec", vec},	      {"v2", v2},	      {"dup", dup_case},
	{"reopen", reopen}, {"child", child},      {"fail", fail},     {"unalign", unalign},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: darwork DIR [CASE...]\n");
		return 64;
	}
	dir = argv[1];
	memset(buf, 'd', sizeof(buf));
	if (argc == 2) {
		for (size_t c = 0; c < NCASES; c++)
			cases[c].run();
		return 0;
	}
	for (int i = 2; i < argc; i++) {
		size_t c = 0;
		while (c < NCASES && strcmp(cases[c].name, argv[i]))
			c++;
		if (c == NCASES) {
			fprintf(stderr, "darwork: no case %s\n", argv[i]);
			return 64;
		}
		cases[c].run();
	}
	return 0;
}
