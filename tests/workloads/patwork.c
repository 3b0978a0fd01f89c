/* patwork: a workload that counts its own access pattern, as syscall_io
 * defines it (docs/data-model.md, after Darshan's POSIX module), for
 * syscall_io's tests to compare with.
 *
 *   patwork DIR
 *       in DIR (which must exist, on a file system with a block size): a
 *       sequential write, descending reads, strided reads, reads and writes
 *       in turn, unaligned ones, every syscall that addresses a file
 *       (read, write, pread64, pwrite64, readv, writev, preadv, pwritev,
 *       preadv2, pwritev2 at an offset and at the position, sendfile with
 *       and without an offset, copy_file_range, splice through a pipe),
 *       Linux AIO's reads and writes, io_uring's at an offset and at the
 *       position, a description shared by dup() and one closed and opened
 *       again. Prints
 *         {"consec_reads": n, "seq_reads": n, ...}
 *       the seven counters over what it did, padded with spaces to a
 *       multiple of its standard output's block size and written at its
 *       start, so that the report itself adds nothing.
 *
 * The counts come from the workload's own record of each description's
 * last access each way (struct desc), kept as it makes each call. Every
 * call is a raw syscall(2) (io_uring's through liburing), checked for the
 * bytes it should move; linked statically. Exits 2 on a call that did not
 * do what it should. */
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
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { CONSEC_R, SEQ_R, CONSEC_W, SEQ_W, SWITCHES, UNALIGNED_R, UNALIGNED_W, N };
static const char *const names[N] = {"consec_reads", "seq_reads",	"consec_writes", "seq_writes",
				      "rw_switches",  "unaligned_reads", "unaligned_writes"};
static long long count[N];
static long long blksize;

/* One open file description as this program has used it. */
struct desc {
	long long end[2];
	int seen; /* 1 << side */
	int last;
};

static void die(const char *what)
{
	fprintf(stderr, "patwork: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* An access on side w (0 read, 1 write) of len bytes at start. */
static void access_at(struct desc *d, int w, long long start, long long len)
{
	if (d->seen & 1 << w) {
		if (start == d->end[w])
			count[w ? CONSEC_W : CONSEC_R]++;
		if (start >= d->end[w])
			count[w ? SEQ_W : SEQ_R]++;
	}
	if (d->seen && d->last != w)
		count[SWITCHES]++;
	if (start % blksize || (start + len) % blksize)
		count[w ? UNALIGNED_W : UNALIGNED_R]++;
	d->end[w] = start + len;
	d->seen |= 1 << w;
	d->last = w;
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

static long long pos(int fd)
{
	return syscall(SYS_lseek, fd, 0L, SEEK_CUR);
}

/* read(2) and write(2) at the position; pread64 and pwrite64 at off */
static void rd(struct desc *d, int fd, long len)
{
	long long at = pos(fd);
	moved(syscall(SYS_read, fd, buf, len), len, "read");
	access_at(d, 0, at, len);
}

static void wr(struct desc *d, int fd, long len)
{
	long long at = pos(fd);
	moved(syscall(SYS_write, fd, buf, len), len, "write");
	access_at(d, 1, at, len);
}

static void prd(struct desc *d, int fd, long len, long long off)
{
	moved(syscall(SYS_pread64, fd, buf, len, off), len, "pread64");
	access_at(d, 0, off, len);
}

static void pwr(struct desc *d, int fd, long len, long long off)
{
	moved(syscall(SYS_pwrite64, fd, buf, len, off), len, "pwrite64");
	access_at(d, 1, off, len);
}

static int open_rw(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		die(path);
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: patwork DIR\n");
		return 1;
	}
	const char *dir = argv[1];
	memset(buf, 'p', sizeof(buf));
	int fd = open_rw(dir, "pat.data");
	struct stat st;
	if (fstat(fd, &st) < 0)
		die("fstat");
	blksize = st.st_blksize;
	long B = (long)blksize;
	struct desc a = {0}, b = {0}, out = {0};

	/* sequential: 16 blocks written in order (consecutive after the first) */
	for (int i = 0; i < 16; i++)
		wr(&a, fd, B);
	/* descending: 16 blocks read from the last to the first (a switch,
	 * then neither consecutive nor sequential) */
	for (int i = 15; i >= 0; i--)
		prd(&a, fd, B, (long long)i * B);
	/* strided: every other block by the position (sequential, never
	 * consecutive) */
	syscall(SYS_lseek, fd, 0L, SEEK_SET);
	for (int i = 0; i < 8; i++) {
		rd(&a, fd, B);
		syscall(SYS_lseek, fd, B, SEEK_CUR);
	}

	/* reads and writes in turn on a second description of the same file */
	int fd2 = open_rw(dir, "pat.data");
	for (int i = 0; i < 8; i++) {
		wr(&b, fd2, B);
		rd(&b, fd2, B);
	}
	/* closed and opened again: the new description starts with no history */
	syscall(SYS_close, fd2);
	fd2 = open_rw(dir, "pat.data");
	b = (struct desc){0};
	rd(&b, fd2, B);
	rd(&b, fd2, B);

	/* unaligned: a short read, one that starts off a block, a write that
	 * ends off one */
	prd(&b, fd2, 100, 0);
	prd(&b, fd2, B, 100);
	pwr(&b, fd2, B + 1, 3 * B);

	/* the vector and flag-taking forms, at an offset and at the position */
	struct iovec iov[2] = {{buf, (size_t)B}, {buf + B, (size_t)B}};
	syscall(SYS_lseek, fd, 4 * B, SEEK_SET);
	long long at = pos(fd);
	moved(syscall(SYS_readv, fd, iov, 2), 2 * B, "readv");
	access_at(&a, 0, at, 2 * B);
	at = pos(fd);
	moved(syscall(SYS_writev, fd, iov, 2), 2 * B, "writev");
	access_at(&a, 1, at, 2 * B);
	moved(syscall(SYS_preadv, fd, iov, 2, 0L, 0L), 2 * B, "preadv");
	access_at(&a, 0, 0, 2 * B);
	moved(syscall(SYS_pwritev, fd, iov, 2, 2 * B, 0L), 2 * B, "pwritev");
	access_at(&a, 1, 2 * B, 2 * B);
	moved(syscall(SYS_preadv2, fd, iov, 2, 4 * B, 0L, 0), 2 * B, "preadv2");
	access_at(&a, 0, 4 * B, 2 * B);
	at = pos(fd);
	moved(syscall(SYS_preadv2, fd, iov, 2, -1L, -1L, 0), 2 * B, "preadv2 at the position");
	access_at(&a, 0, at, 2 * B);
	at = pos(fd);
	moved(syscall(SYS_pwritev2, fd, iov, 2, -1L, -1L, 0), 2 * B, "pwritev2 at the position");
	access_at(&a, 1, at, 2 * B);

	/* a description shared: dup()'s descriptor goes on where fd was, and
	 * closing fd leaves it open */
	int fd3 = (int)syscall(SYS_dup, fd);
	syscall(SYS_close, fd);
	rd(&a, fd3, B);

	/* zero-copy, each side a description of its own: sendfile with an
	 * offset (the input's position stays) and without, copy_file_range,
	 * splice from the file into a pipe (its pipe side is no file) */
	int o = open_rw(dir, "pat.out");
	long long off = 2 * B;
	at = pos(o);
	moved(syscall(SYS_sendfile, o, fd2, &off, 2 * B), 2 * B, "sendfile");
	access_at(&b, 0, 2 * B, 2 * B);
	access_at(&out, 1, at, 2 * B);
	long long in_at = pos(fd2);
	at = pos(o);
	moved(syscall(SYS_sendfile, o, fd2, NULL, B), B, "sendfile at the position");
	access_at(&b, 0, in_at, B);
	access_at(&out, 1, at, B);
	long long ioff = 0, ooff = 8 * B;
	moved(syscall(SYS_copy_file_range, fd2, &ioff, o, &ooff, 2 * B, 0U), 2 * B, "copy_file_range");
	access_at(&b, 0, 0, 2 * B);
	access_at(&out, 1, 8 * B, 2 * B);
	int p[2];
	if (pipe(p) < 0)
		die("pipe");
	long long soff = 5 * B;
	moved(syscall(SYS_splice, fd2, &soff, p[1], NULL, B, 0), B, "splice");
	access_at(&b, 0, 5 * B, B);

	/* Linux AIO on a description of its own: four reads in order, one
	 * request at a time, and a write */
	int fa = open_rw(dir, "pat.data");
	struct desc aio = {0};
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
		access_at(&aio, w, at_off, B);
	}
	syscall(SYS_io_destroy, ctx);

	/* io_uring on another: four reads in order, a write, and a read at the
	 * position (offset -1), one request at a time */
	int fu = open_rw(dir, "pat.data");
	struct desc uring = {0};
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
		access_at(&uring, w, at_off == -1 ? fpos : at_off, B);
		if (at_off == -1)
			fpos += B;
	}
	io_uring_queue_exit(&ring);

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
	n += snprintf(report + n, sizeof(report) - (size_t)n, "}\n");
	long long unit = S_ISREG(so.st_mode) && so.st_blksize > 0 ? so.st_blksize : 1;
	long total = (long)((n + unit - 1) / unit * unit);
	memset(report + n, ' ', (size_t)(total - n));
	report[total - 1] = '\n';
	moved(syscall(SYS_pwrite64, 1, report, total, 0), total, "report");
	return 0;
}
