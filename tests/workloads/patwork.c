// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* patwork: a workload that counts its own access pattern by Darshan's
 * rules (darshan-runtime/lib/darshan-posix.c, as docs/data-model.md writes
 * them down), for syscall_io's tests to compare with.
 *
 *   patwork DIR
 *       in DIR (which must exist, on a file system with a block size): a
 *       sequential write, descending reads, strided reads, reads and writes
 *       in turn through a second descriptor of the same file, the file
 *       closed and opened again, unaligned accesses, every syscall that
 *       addresses a file (read, write, pread64, pwrite64, readv, writev,
 *       preadv, pwritev, preadv2, pwritev2 at an offset and at the
 *       position, sendfile with and without an offset, copy_file_range,
 *       splice through a pipe), a descriptor shared by dup(), Linux AIO's
 *       reads and writes, io_uring's at an offset and at the position, a
 *       first access at byte 1 of a fresh file, and a child process with a
 *       file of its own. Prints
 *         {"consec_reads": n, "seq_reads": n, ..., "io_uring": {...}}
 *       the seven counters over what it did, and the share of them its
 *       io_uring requests made (for a kernel whose io_uring a tracer cannot
 *       see: nothing after them touches the same file), padded with spaces to a
 *       multiple of its standard output's block size and written at its
 *       start, so that the report itself adds nothing.
 *
 * The rules, per process and file: an open of the file sets where its last
 * read and its last write ended back to byte 0 (a first access finds them
 * there); an access that starts after that last byte of its kind is
 * sequential, one that starts right after it (the byte + 1) consecutive;
 * one of the other kind than the file's previous access a switch, however
 * many opens ago that was; one whose start is not a multiple of the file
 * system's block size (statfs's f_bsize) unaligned. A call that fails is
 * no access; one that returns 0 is an access of 0 bytes.
 *
 * The counts come from the workload's own record of each file (struct
 * file_rec), kept as it makes each call. Darshan itself judges the calls
 * it wraps (tests/workloads/darwork.c, tests/e2e/darshan.sh); patwork is
 * the judge of those it does not (sendfile, copy_file_range, splice, AIO,
 * io_uring), by the same rules. Every read() and write() here follows an
 * lseek, so Darshan's offset (sio_rules.h) is the descriptor's position. Every call is a raw syscall(2)
 * (io_uring's through liburing), checked for the bytes it should move;
 * linked statically. Exits 2 on a call that did not do what it should. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

enum { CONSEC_R, SEQ_R, CONSEC_W, SEQ_W, SWITCHES, UNALIGNED_R, UNALIGNED_W, N };
static const char *const names[N] = {"consec_reads", "seq_reads",	"consec_writes", "seq_writes",
				      "rw_switches",  "unaligned_reads", "unaligned_writes"};
static long long count[N];
static long long blksize;

/* One file as this process has used it (Darshan's file record). */
struct file_rec {
	long long last_byte[2]; /* [0 read, 1 write] */
	int last;               /* 0 none, 1 read, 2 write */
};

static void die(const char *what)
{
	fprintf(stderr, "patwork: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* The process opened the file (again). */
static void opened(struct file_rec *f)
{
	f->last_byte[0] = f->last_byte[1] = 0;
}

/* An access on side w (0 read, 1 write) of len bytes at start. */
static void access_at(struct file_rec *f, int w, long long start, long long len)
{
	if (start > f->last_byte[w])
		count[w ? SEQ_W : SEQ_R]++;
	if (start == f->last_byte[w] + 1)
		count[w ? CONSEC_W : CONSEC_R]++;
	if (f->last && f->last != w + 1)
		count[SWITCHES]++;
	if (start % blksize)
		count[w ? UNALIGNED_W : UNALIGNED_R]++;
	f->last_byte[w] = start + len - 1;
	f->last = w + 1;
}

static char buf[1 << 16];

static void moved(long r, long want, const char *what)
{
	if (r != want) {
		if (r >= 0)
			errno = EIO;
		die(what);
	}
}

/* The descriptor's position: an lseek, which sets Darshan's offset of the
 * file to it, so a read() or write() after it starts there by both
 * reckonings. */
static long long pos(int fd)
{
	return syscall(SYS_lseek, fd, 0L, SEEK_CUR);
}

/* read(2) and write(2) at the position; pread64 and pwrite64 at off */
static void rd(struct file_rec *d, int fd, long len)
{
	long long at = pos(fd);
	moved(syscall(SYS_read, fd, buf, len), len, "read");
	access_at(d, 0, at, len);
}

static void wr(struct file_rec *d, int fd, long len)
{
	long long at = pos(fd);
	moved(syscall(SYS_write, fd, buf, len), len, "write");
	access_at(d, 1, at, len);
}

static void prd(struct file_rec *d, int fd, long len, long long off)
{
	moved(syscall(SYS_pread64, fd, buf, len, off), len, "pread64");
	access_at(d, 0, off, len);
}

static void pwr(struct file_rec *d, int fd, long len, long long off)
{
	moved(syscall(SYS_pwrite64, fd, buf, len, off), len, "pwrite64");
	access_at(d, 1, off, len);
}

/* Opens DIR/name for reading and writing, created if need be: f's open. */
static int open_rw(struct file_rec *f, const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		die(path);
	opened(f);
	return fd;
}

/* A child process with a file of its own: two blocks written in order, the
 * first read back. Its counts are the parent's to add (they are the same
 * numbers whoever keeps them). */
static void child(const char *dir, long B)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	struct file_rec c = {{0, 0}, 0};
	if (pid == 0) {
		int fd = open_rw(&c, dir, "pat.child");
		moved(syscall(SYS_write, fd, buf, B), B, "the child's write");
		moved(syscall(SYS_write, fd, buf, B), B, "the child's write");
		moved(syscall(SYS_pread64, fd, buf, B, 0L), B, "the child's pread64");
		_exit(0);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the child");
	opened(&c);
	access_at(&c, 1, 0, B);
	access_at(&c, 1, B, B);
	access_at(&c, 0, 0, B);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: patwork DIR\n");
		return 1;
	}
	const char *dir = argv[1];
	memset(buf, 'p', sizeof(buf));
	/* pat.data and pat.out, and a file touched once */
	struct file_rec data = {{0, 0}, 0}, out = {{0, 0}, 0}, one = {{0, 0}, 0};
	int fd = open_rw(&data, dir, "pat.data");
	struct statfs sf;
	if (fstatfs(fd, &sf) < 0)
		die("fstatfs");
	blksize = sf.f_bsize;
	long B = (long)blksize;

	/* sequential: 16 blocks written in order (the first at byte 0 is
	 * neither sequential nor consecutive: nothing is before it) */
	for (int i = 0; i < 16; i++)
		wr(&data, fd, B);
	/* descending: 16 blocks read from the last to the first (a switch; the
	 * first is sequential, past byte 0) */
	for (int i = 15; i >= 0; i--)
		prd(&data, fd, B, (long long)i * B);
	/* strided: every other block by the position (sequential, never
	 * consecutive) */
	syscall(SYS_lseek, fd, 0L, SEEK_SET);
	for (int i = 0; i < 8; i++) {
		rd(&data, fd, B);
		syscall(SYS_lseek, fd, B, SEEK_CUR);
	}

	/* reads and writes in turn through a second descriptor: an open of the
	 * same file, whose history is the file's, not the descriptor's */
	int fd2 = open_rw(&data, dir, "pat.data");
	for (int i = 0; i < 8; i++) {
		wr(&data, fd2, B);
		rd(&data, fd2, B);
	}
	/* a read through the first descriptor is judged by the file's history
	 * (the last read ended at byte 16B - 1) */
	syscall(SYS_lseek, fd, 3 * B, SEEK_SET);
	rd(&data, fd, B);
	/* closed and opened again after a write: the last bytes go back to 0,
	 * the last kind stays (the first read is a switch, and sequential) */
	wr(&data, fd2, B);
	syscall(SYS_close, fd2);
	fd2 = open_rw(&data, dir, "pat.data");
	prd(&data, fd2, B, B);
	rd(&data, fd2, B);

	/* unaligned: a short read (its start is aligned), one that starts off
	 * a block, a write that ends off one (aligned too), one that starts
	 * off one */
	prd(&data, fd2, 100, 0);
	prd(&data, fd2, B, 100);
	pwr(&data, fd2, B + 1, 3 * B);
	pwr(&data, fd2, B, 5 * B + 7);

	/* the vector and flag-taking forms, at an offset and at the position */
	struct iovec iov[2] = {{buf, (size_t)B}, {buf + B, (size_t)B}};
	syscall(SYS_lseek, fd, 4 * B, SEEK_SET);
	long long at = pos(fd);
	moved(syscall(SYS_readv, fd, iov, 2), 2 * B, "readv");
	access_at(&data, 0, at, 2 * B);
	at = pos(fd);
	moved(syscall(SYS_writev, fd, iov, 2), 2 * B, "writev");
	access_at(&data, 1, at, 2 * B);
	moved(syscall(SYS_preadv, fd, iov, 2, 0L, 0L), 2 * B, "preadv");
	access_at(&data, 0, 0, 2 * B);
	moved(syscall(SYS_pwritev, fd, iov, 2, 2 * B, 0L), 2 * B, "pwritev");
	access_at(&data, 1, 2 * B, 2 * B);
	moved(syscall(SYS_preadv2, fd, iov, 2, 4 * B, 0L, 0), 2 * B, "preadv2");
	access_at(&data, 0, 4 * B, 2 * B);
	/* at the position: Darshan takes the offset as given, -1 */
	moved(syscall(SYS_preadv2, fd, iov, 2, -1L, -1L, 0), 2 * B, "preadv2 at the position");
	access_at(&data, 0, -1, 2 * B);
	moved(syscall(SYS_pwritev2, fd, iov, 2, -1L, -1L, 0), 2 * B, "pwritev2 at the position");
	access_at(&data, 1, -1, 2 * B);

	/* a descriptor shared: dup() opens nothing, and closing fd leaves it
	 * open */
	int fd3 = (int)syscall(SYS_dup, fd);
	syscall(SYS_close, fd);
	rd(&data, fd3, B);

	/* zero-copy, each side's file its own: sendfile with an offset (the
	 * input's position stays) and without, copy_file_range, splice from
	 * the file into a pipe (its pipe side is no file) */
	int o = open_rw(&out, dir, "pat.out");
	long long off = 2 * B;
	at = pos(o);
	moved(syscall(SYS_sendfile, o, fd2, &off, 2 * B), 2 * B, "sendfile");
	access_at(&data, 0, 2 * B, 2 * B);
	access_at(&out, 1, at, 2 * B);
	long long in_at = pos(fd2);
	at = pos(o);
	moved(syscall(SYS_sendfile, o, fd2, NULL, B), B, "sendfile at the position");
	access_at(&data, 0, in_at, B);
	access_at(&out, 1, at, B);
	long long ioff = 0, ooff = 8 * B;
	moved(syscall(SYS_copy_file_range, fd2, &ioff, o, &ooff, 2 * B, 0U), 2 * B, "copy_file_range");
	access_at(&data, 0, 0, 2 * B);
	access_at(&out, 1, 8 * B, 2 * B);
	int p[2];
	if (pipe(p) < 0)
		die("pipe");
	long long soff = 5 * B;
	moved(syscall(SYS_splice, fd2, &soff, p[1], NULL, B, 0), B, "splice");
	access_at(&data, 0, 5 * B, B);

	/* Linux AIO through another open: four reads in order, one request at
	 * a time, and a write */
	int fa = open_rw(&data, dir, "pat.data");
	aio_context_t ctx = 0;
	if (syscall(SYS_io_setup, 4, &ctx) < 0)
		die("io_setup");
	for (int i = 0; i < 5; i++) {
		int w = i == 4;
		long long at_off = w ? 12LL * B : (long long)i * B;
		struct iocb cb = {.aio_lio_opcode = w ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD,
				  .aio_fildes = (unsigned)fa,
				  .aio_buf = (unsigned long)buf,
				  .aio_nbytes = (unsigned long)B,
				  .aio_offset = at_off};
		struct iocb *cbs[1] = {&cb};
		struct io_event ev;
		moved(syscall(SYS_io_submit, ctx, 1L, cbs), 1, "io_submit");
		moved(syscall(SYS_io_getevents, ctx, 1L, 1L, &ev, NULL), 1, "io_getevents");
		moved((long)ev.res, B, "an aio request");
		access_at(&data, w, at_off, B);
	}
	syscall(SYS_io_destroy, ctx);

	/* io_uring through another: four reads in order, a write, and a read
	 * at the position (offset -1), one request at a time */
	int fu = open_rw(&data, dir, "pat.data");
	long long before_uring[N];
	memcpy(before_uring, count, sizeof(count));
	struct io_uring ring;
	if ((errno = -io_uring_queue_init(4, &ring, 0)) != 0)
		die("io_uring_queue_init");
	long long fpos = 0;
	for (int i = 0; i < 6; i++) {
		int w = i == 4;
		long long at_off = w ? 10LL * B : i == 5 ? -1 : (long long)i * B;
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		if (w)
			io_uring_prep_write(sqe, fu, buf, (unsigned)B, (unsigned long long)at_off);
		else
			io_uring_prep_read(sqe, fu, buf, (unsigned)B, (unsigned long long)at_off);
		struct io_uring_cqe *cqe;
		if (io_uring_submit(&ring) != 1 || (errno = -io_uring_wait_cqe(&ring, &cqe)) != 0)
			die("io_uring");
		moved(cqe->res, B, "an io_uring request");
		io_uring_cqe_seen(&ring, cqe);
		access_at(&data, w, at_off == -1 ? fpos : at_off, B);
		if (at_off == -1)
			fpos += B;
	}
	io_uring_queue_exit(&ring);
	long long uring[N];
	for (int i = 0; i < N; i++)
		uring[i] = count[i] - before_uring[i];

	/* a fresh file's first read at byte 1: right after byte 0, so
	 * consecutive and sequential; and one that reads 0 bytes at its end,
	 * after which a read at that end is both again */
	int f1 = open_rw(&one, dir, "pat.one");
	moved(syscall(SYS_write, f1, buf, 10L), 10, "write");
	access_at(&one, 1, 0, 10);
	prd(&one, f1, 9, 1);
	prd(&one, f1, 0, 10);
	prd(&one, f1, 0, 10);

	child(dir, B);

	/* the report: padded to whole blocks of its output, written at its
	 * start (a first write there, aligned: it adds nothing) */
	struct stat so;
	if (fstat(1, &so) < 0)
		die("fstat stdout");
	static char report[1 << 14];
	int n = 0;
	for (int i = 0; i < N; i++)
		n += snprintf(report + n, sizeof(report) - (size_t)n, "%s\"%s\": %lld", i ? ", " : "{",
			      names[i], count[i]);
	for (int i = 0; i < N; i++)
		n += snprintf(report + n, sizeof(report) - (size_t)n, "%s\"%s\": %lld",
			      i ? ", " : ", \"io_uring\": {", names[i], uring[i]);
	n += snprintf(report + n, sizeof(report) - (size_t)n, "}}\n");
	long long unit = S_ISREG(so.st_mode) && so.st_blksize > 0 ? so.st_blksize : 1;
	long total = (long)((n + unit - 1) / unit * unit);
	memset(report + n, ' ', (size_t)(total - n));
	report[total - 1] = '\n';
	moved(syscall(SYS_pwrite64, 1, report, total, 0), total, "report");
	return 0;
}
