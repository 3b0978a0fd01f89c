/* Sides follow /proc/PID/io's accounting where it has one: bytes that
 * arrive in the caller's memory are read (rchar), bytes that leave it are
 * written (wchar), and a call that moves bytes from one descriptor to
 * another without passing through the caller counts on both sides, as the
 * kernel counts sendfile and copy_file_range in both rchar and wchar (and
 * syscr and syscw). splice and tee, which /proc/PID/io does not count, move
 * bytes from one descriptor to another too: both sides, by the same rule.
 * vmsplice moves them between the caller's memory and a pipe: written when
 * the pipe is open for writing, else read. An aio or io_uring request
 * counts on the side of the syscall it stands for (sio_rules.h), once it
 * completes, whoever completes it (docs/data-model.md). */
#include "io_syscalls.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#define SYSCALL(name, sides, rfd, wfd, msgvec)                                                    \
	{#name, SYS_##name, sides, {rfd, wfd}, msgvec, SIO_VIA_SYSCALL, {-1, -1}}
#define READ(name, fd) SYSCALL(name, SIO_SIDE_READ, fd, -1, 0)
#define WRITE(name, fd) SYSCALL(name, SIO_SIDE_WRITE, -1, fd, 0)
#define BOTH(name, in, out) SYSCALL(name, SIO_SIDE_BOTH, in, out, 0)

const struct io_syscall io_syscalls[] = {
	READ(read, 0),
	WRITE(write, 0),
	READ(pread64, 0),
	WRITE(pwrite64, 0),
	READ(readv, 0),
	WRITE(writev, 0),
	READ(preadv, 0),
	WRITE(pwritev, 0),
	READ(preadv2, 0),
	WRITE(pwritev2, 0),
	BOTH(sendfile, 1, 0), /* sendfile(out_fd, in_fd, ...) */
	BOTH(splice, 0, 2),   /* splice(fd_in, off_in, fd_out, ...) */
	BOTH(copy_file_range, 0, 2),
	WRITE(sendto, 0),
	READ(recvfrom, 0),
	WRITE(sendmsg, 0),
	READ(recvmsg, 0),
	BOTH(tee, 0, 1),
	SYSCALL(vmsplice, SIO_SIDE_BY_MODE, 0, 0, 0),
	SYSCALL(recvmmsg, SIO_SIDE_READ, 0, -1, 1),
	SYSCALL(sendmmsg, SIO_SIDE_WRITE, -1, 0, 1),
	/* not syscalls: requests, each counted as it completes */
	{"aio", -1, SIO_SIDE_BY_OP, {-1, -1}, 0, SIO_VIA_AIO, {SYS_io_getevents, SYS_io_pgetevents}},
	{"io_uring", -1, SIO_SIDE_BY_OP, {-1, -1}, 0, SIO_VIA_IO_URING, {-1, -1}},
};
const size_t io_nsyscalls = sizeof(io_syscalls) / sizeof(io_syscalls[0]);

const struct io_syscall *io_syscall_find(const char *name)
{
	for (size_t i = 0; i < io_nsyscalls; i++)
		if (!strcmp(io_syscalls[i].name, name))
			return &io_syscalls[i];
	return NULL;
}

void io_syscall_names(char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < io_nsyscalls && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
					 io_syscalls[i].name);
}
