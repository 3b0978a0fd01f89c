// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* netio: a workload that counts its own zero-copy and socket syscalls, for
 * syscall_io's tests to compare with.
 *
 * One process, one thread, rounds of:
 *   sendto / recvfrom, sendmsg / recvmsg on an AF_UNIX stream socketpair;
 *   sendmmsg / recvmmsg of several datagrams on an AF_UNIX datagram pair;
 *   sendto / recvfrom over TCP on 127.0.0.1;
 *   sendfile from a file to the TCP socket (read from the file, written to
 *   the socket), drained with recvfrom;
 *   splice from a file into a pipe, tee of that pipe into a second pipe,
 *   splice of the first pipe into a file, and of the second into the socket;
 *   vmsplice of the caller's memory into a pipe (a write) and out of it
 *   through its read end (a read);
 *   copy_file_range from one file to another;
 * and one call of each that fails (EBADF). Each syscall is issued with
 * syscall(2), and its result counted as syscall_io documents it
 * (docs/data-model.md): by syscall (calls, bytes, errors); by side, where
 * sendfile, splice, tee and copy_file_range count on both; and each side's
 * calls and bytes by the kind of descriptor it went through (file, pipe, socket).
 *
 * The report goes to --report FILE through mmap, and the program is linked
 * statically: no read or write but the counted ones. --dir is where its
 * files go (a filesystem that splices: not a tmpfs memfd, whose
 * copy_file_range may fall back). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mmap_report.h"

enum sys {
	SENDFILE, SPLICE, TEE, VMSPLICE, COPY_FILE_RANGE, SENDTO, RECVFROM, SENDMSG, RECVMSG,
	RECVMMSG, SENDMMSG, NSYS
};
static const char *const names[NSYS] = {"sendfile", "splice",  "tee",     "vmsplice",
					"copy_file_range", "sendto", "recvfrom", "sendmsg",
					"recvmsg", "recvmmsg", "sendmmsg"};
static const long nrs[NSYS] = {SYS_sendfile, SYS_splice,  SYS_tee,     SYS_vmsplice,
			       SYS_copy_file_range, SYS_sendto, SYS_recvfrom, SYS_sendmsg,
			       SYS_recvmsg, SYS_recvmmsg, SYS_sendmmsg};

enum side { R = 1, W = 2, RW = 3 };
enum kind { FILE_, PIPE, SOCKET, NKINDS };
static const char *const kind_names[NKINDS] = {"file", "pipe", "socket"};

static struct {
	unsigned long long calls[NSYS], bytes[NSYS], errors[NSYS];
	unsigned long long side_calls[2], side_bytes[2];
	unsigned long long kind_calls[2][NKINDS], kind_bytes[2][NKINDS];
} cnt;

static void die(const char *what)
{
	fprintf(stderr, "netio: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Counts one result of syscall s: sides says where its bytes count, rk
 * and wk the kinds of its read and write sides' descriptors. */
static long note(enum sys s, long r, enum side sides, enum kind rk, enum kind wk)
{
	if (r < 0) {
		cnt.errors[s]++;
		return r;
	}
	cnt.calls[s]++;
	cnt.bytes[s] += (unsigned long long)r;
	for (int d = 0; d < 2; d++) {
		if (!(sides & (1 << d)))
			continue;
		cnt.side_calls[d]++;
		cnt.side_bytes[d] += (unsigned long long)r;
		cnt.kind_calls[d][d ? wk : rk]++;
		cnt.kind_bytes[d][d ? wk : rk] += (unsigned long long)r;
	}
	return r;
}

static long call(enum sys s, enum side sides, enum kind rk, enum kind wk, long a, long b, long c,
		 long d, long e, long f)
{
	long r = syscall(nrs[s], a, b, c, d, e, f);
	return note(s, r < 0 ? -errno : r, sides, rk, wk);
}

/* The messages' bytes of recvmmsg/sendmmsg, counted as one call. */
static long call_mmsg(enum sys s, int fd, struct mmsghdr *v, unsigned n)
{
	/* recvmmsg waits for all n unless told to stop at the first */
	long r = syscall(nrs[s], fd, (long)v, (long)n, s == RECVMMSG ? (long)MSG_WAITFORONE : 0L, 0L);
	if (r < 0)
		return note(s, -errno, 0, 0, 0);
	long bytes = 0;
	for (long k = 0; k < r; k++)
		bytes += v[k].msg_len;
	note(s, bytes, s == RECVMMSG ? R : W, SOCKET, SOCKET);
	return r;
}

/* Receives exactly n bytes from a stream socket, by recvfrom. */
static void drain(int fd, char *buf, size_t n)
{
	while (n > 0) {
		long r = call(RECVFROM, R, SOCKET, SOCKET, fd, (long)buf, (long)n, 0, 0, 0);
		if (r <= 0)
			die("recvfrom");
		n -= (size_t)r;
	}
}

static int file(const char *dir, const char *name, size_t size)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		die(path);
	unlink(path);
	return fd;
}

/* One thread sends everything before it receives: buffers that hold a
 * round's largest transfer, so no send waits for a receive. */
static void roomy(int fd)
{
	int size = 1 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
		die("setsockopt");
}

static void tcp_pair(int *client, int *server)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		die("socket");
	roomy(l);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0)
		die("listen on 127.0.0.1");
	*client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*client >= 0)
		roomy(*client);
	if (*client < 0 || connect(*client, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    (*server = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
		die("connect to 127.0.0.1");
	close(l);
}

static void round_(const char *dir, size_t size, char *buf, char *out)
{
	int us[2], ud[2], p[2], q[2], tc, ts;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, us) < 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, ud) < 0 || pipe2(p, O_CLOEXEC) < 0 ||
	    pipe2(q, O_CLOEXEC) < 0)
		die("socketpair or pipe");
	roomy(us[0]);
	roomy(us[1]);
	tcp_pair(&tc, &ts);
	int src = file(dir, "netio.src", size), dst = file(dir, "netio.dst", 0);
	memset(buf, 'x', size);
	if (pwrite(src, buf, size, 0) != (ssize_t)size)
		die("pwrite"); /* not a counted family */

	/* sockets: sendto/recvfrom, sendmsg/recvmsg on AF_UNIX, then TCP */
	call(SENDTO, W, SOCKET, SOCKET, us[0], (long)buf, (long)size, 0, 0, 0);
	drain(us[1], out, size);
	struct iovec iov[2] = {{buf, size / 2}, {buf + size / 2, size - size / 2}};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
	call(SENDMSG, W, SOCKET, SOCKET, us[0], (long)&mh, 0, 0, 0, 0);
	struct iovec in = {out, size};
	struct msghdr mr = {.msg_iov = &in, .msg_iovlen = 1};
	for (size_t got = 0; got < size;) {
		in = (struct iovec){out, size - got};
		long r = call(RECVMSG, R, SOCKET, SOCKET, us[1], (long)&mr, 0, 0, 0, 0);
		if (r <= 0)
			die("recvmsg");
		got += (size_t)r;
	}
	call(SENDTO, W, SOCKET, SOCKET, tc, (long)buf, (long)size, 0, 0, 0);
	drain(ts, out, size);

	/* datagrams: five messages of different sizes in one sendmmsg */
	struct mmsghdr mm[5];
	struct iovec mv[5];
	for (unsigned k = 0; k < 5; k++) {
		mv[k] = (struct iovec){buf, 1 + k * 37 + size % 100};
		mm[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = &mv[k], .msg_iovlen = 1}};
	}
	call_mmsg(SENDMMSG, ud[0], mm, 5);
	struct mmsghdr rm[8];
	struct iovec rv[8];
	for (unsigned k = 0; k < 8; k++) {
		rv[k] = (struct iovec){out + k * 512, 512};
		rm[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = &rv[k], .msg_iovlen = 1}};
	}
	for (long got = 0; got < 5;) {
		long r = call_mmsg(RECVMMSG, ud[1], rm, 8);
		if (r <= 0)
			die("recvmmsg");
		got += r;
	}

	/* sendfile: file -> TCP socket */
	off_t off = 0;
	for (size_t sent = 0; sent < size;) {
		long r = call(SENDFILE, RW, FILE_, SOCKET, tc, src, (long)&off, (long)(size - sent), 0, 0);
		if (r <= 0)
			die("sendfile");
		sent += (size_t)r;
	}
	drain(ts, out, size);

	/* splice file -> pipe p; tee p -> q; splice p -> file; splice q -> socket */
	size_t chunk = size < 32768 ? size : 32768; /* within a pipe's 64 KiB */
	loff_t o = 0;
	long in_pipe = call(SPLICE, RW, FILE_, PIPE, src, (long)&o, p[1], 0, (long)chunk, 0);
	if (in_pipe <= 0)
		die("splice into a pipe");
	long teed = call(TEE, RW, PIPE, PIPE, p[0], q[1], in_pipe, 0, 0, 0);
	if (teed != in_pipe)
		die("tee");
	loff_t w = 0;
	for (long left = in_pipe; left > 0;) {
		long r = call(SPLICE, RW, PIPE, FILE_, p[0], 0, dst, (long)&w, left, 0);
		if (r <= 0)
			die("splice out of a pipe");
		left -= r;
	}
	for (long left = teed; left > 0;) {
		long r = call(SPLICE, RW, PIPE, SOCKET, q[0], 0, tc, 0, left, 0);
		if (r <= 0)
			die("splice into a socket");
		left -= r;
	}
	drain(ts, out, (size_t)teed);

	/* vmsplice: memory -> pipe (a write), pipe -> memory (a read) */
	struct iovec vi = {buf, chunk};
	long gifted = call(VMSPLICE, W, PIPE, PIPE, p[1], (long)&vi, 1, 0, 0, 0);
	for (long left = gifted; left > 0;) {
		struct iovec vo = {out, (size_t)left};
		long r = call(VMSPLICE, R, PIPE, PIPE, p[0], (long)&vo, 1, 0, 0, 0);
		if (r <= 0)
			die("vmsplice out of a pipe");
		left -= r;
	}

	/* copy_file_range: file -> file */
	loff_t ci = 0, co = 0;
	for (size_t left = size; left > 0;) {
		long r = call(COPY_FILE_RANGE, RW, FILE_, FILE_, src, (long)&ci, dst, (long)&co,
			      (long)left, 0);
		if (r <= 0)
			die("copy_file_range");
		left -= (size_t)r;
	}

	/* and each failing: a descriptor that is not open */
	call(SENDFILE, RW, FILE_, SOCKET, -1, src, 0, 1, 0, 0);
	call(SPLICE, RW, FILE_, PIPE, -1, 0, p[1], 0, 1, 0);
	call(TEE, RW, PIPE, PIPE, -1, q[1], 1, 0, 0, 0);
	call(VMSPLICE, W, PIPE, PIPE, -1, (long)&vi, 1, 0, 0, 0);
	call(COPY_FILE_RANGE, RW, FILE_, FILE_, -1, 0, dst, 0, 1, 0);
	call(SENDTO, W, SOCKET, SOCKET, -1, (long)buf, 1, 0, 0, 0);
	call(RECVFROM, R, SOCKET, SOCKET, -1, (long)out, 1, 0, 0, 0);
	call(SENDMSG, W, SOCKET, SOCKET, -1, (long)&mh, 0, 0, 0, 0);
	call(RECVMSG, R, SOCKET, SOCKET, -1, (long)&mr, 0, 0, 0, 0);
	call_mmsg(SENDMMSG, -1, mm, 1);
	call_mmsg(RECVMMSG, -1, rm, 1);

	int fds[] = {us[0], us[1], ud[0], ud[1], p[0], p[1], q[0], q[1], tc, ts, src, dst};
	for (size_t k = 0; k < sizeof(fds) / sizeof(fds[0]); k++)
		close(fds[k]);
}

static void write_report(const char *path)
{
	static char text[8192];
	size_t n = 0;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "{\"syscalls\": {");
	for (int i = 0; i < NSYS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%s\"%s\": {\"calls\": %llu, \"bytes\": %llu, \"errors\": %llu}",
				      i ? ", " : "", names[i], cnt.calls[i], cnt.bytes[i], cnt.errors[i]);
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "}, \"read_calls\": %llu, \"read_bytes\": %llu, \"write_calls\": %llu, "
			      "\"write_bytes\": %llu, \"by_kind\": {",
			      cnt.side_calls[0], cnt.side_bytes[0], cnt.side_calls[1], cnt.side_bytes[1]);
	for (int k = 0; k < NKINDS; k++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%s\"%s\": {\"read_calls\": %llu, \"read_bytes\": %llu, "
				      "\"write_calls\": %llu, \"write_bytes\": %llu}",
				      k ? ", " : "", kind_names[k], cnt.kind_calls[0][k], cnt.kind_bytes[0][k],
				      cnt.kind_calls[1][k], cnt.kind_bytes[1][k]);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "}}\n");
	mmap_report(path, text, n); /* not one of the writes it reports */
}

int main(int argc, char **argv)
{
	const char *dir = ".", *report = NULL;
	int rounds = 3;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--dir"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--report"))
			report = argv[i + 1];
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
		else
			return fprintf(stderr, "usage: netio [--dir DIR] [--rounds N] [--report FILE]\n"), 64;
	}
	static char buf[1 << 20], out[1 << 20];
	static const size_t sizes[] = {1, 100, 4096, 65536 + 7};
	for (int r = 0; r < rounds; r++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			round_(dir, sizes[k], buf, out);
	if (report)
		write_report(report);
	return 0;
}
