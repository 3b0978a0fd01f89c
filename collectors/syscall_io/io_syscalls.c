// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
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

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

/* The metadata syscalls an architecture has not (arm64 has only the *at
 * forms): their entries stay, never called, so every host's rows have the
 * same keys. */
#ifndef SYS_dup2
#define SYS_dup2 -1
#endif
#ifndef SYS_open
#define SYS_open -1
#endif
#ifndef SYS_creat
#define SYS_creat -1
#endif
#ifndef SYS_stat
#define SYS_stat -1
#endif
#ifndef SYS_lstat
#define SYS_lstat -1
#endif
#ifndef SYS_access
#define SYS_access -1
#endif
#ifndef SYS_readlink
#define SYS_readlink -1
#endif
#ifndef SYS_getdents
#define SYS_getdents -1
#endif
#ifndef SYS_unlink
#define SYS_unlink -1
#endif
#ifndef SYS_rename
#define SYS_rename -1
#endif
#ifndef SYS_mkdir
#define SYS_mkdir -1
#endif
#ifndef SYS_rmdir
#define SYS_rmdir -1
#endif
#ifndef SYS_link
#define SYS_link -1
#endif
#ifndef SYS_symlink
#define SYS_symlink -1
#endif
#ifndef SYS_renameat
#define SYS_renameat -1
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define SYSCALL(name, sides, rfd, wfd, msgvec)                                                    \
	{#name, SYS_##name, sides, {rfd, wfd}, msgvec, SIO_VIA_SYSCALL, {-1, -1}, {0, 0}, {-1, -1}}
/* a syscall that addresses a file: where each side's access starts (the
 * access pattern, sio_rules.h) */
#define FILE_IO(name, sides, rfd, wfd, rpos, rarg, wpos, warg)                                     \
	{#name, SYS_##name, sides, {rfd, wfd}, 0, SIO_VIA_SYSCALL, {-1, -1}, {rpos, wpos}, {rarg, warg}}
#define READ(name, fd) SYSCALL(name, SIO_SIDE_READ, fd, -1, 0)
#define WRITE(name, fd) SYSCALL(name, SIO_SIDE_WRITE, -1, fd, 0)
#define BOTH(name, in, out) SYSCALL(name, SIO_SIDE_BOTH, in, out, 0)
#define META(name) SYSCALL(name, SIO_SIDE_META, -1, -1, 0)
#define READ_AT(name, pos, arg) FILE_IO(name, SIO_SIDE_READ, 0, -1, pos, arg, SIO_POS_NONE, -1)
#define WRITE_AT(name, pos, arg) FILE_IO(name, SIO_SIDE_WRITE, -1, 0, SIO_POS_NONE, -1, pos, arg)

const struct io_syscall io_syscalls[] = {
	READ_AT(read, SIO_POS_FPOS, -1),
	WRITE_AT(write, SIO_POS_FPOS, -1),
	READ_AT(pread64, SIO_POS_ARG, 3),
	WRITE_AT(pwrite64, SIO_POS_ARG, 3),
	READ_AT(readv, SIO_POS_FPOS, -1),
	WRITE_AT(writev, SIO_POS_FPOS, -1),
	READ_AT(preadv, SIO_POS_ARG, 3), /* pos_l: on a 64-bit ABI the whole offset */
	WRITE_AT(pwritev, SIO_POS_ARG, 3),
	READ_AT(preadv2, SIO_POS_ARG, 3),
	WRITE_AT(pwritev2, SIO_POS_ARG, 3),
	/* sendfile(out_fd, in_fd, offset, count) */
	FILE_IO(sendfile, SIO_SIDE_BOTH, 1, 0, SIO_POS_PTR, 2, SIO_POS_FPOS, -1),
	/* splice(fd_in, off_in, fd_out, off_out, ...) */
	FILE_IO(splice, SIO_SIDE_BOTH, 0, 2, SIO_POS_PTR, 1, SIO_POS_PTR, 3),
	FILE_IO(copy_file_range, SIO_SIDE_BOTH, 0, 2, SIO_POS_PTR, 1, SIO_POS_PTR, 3),
	WRITE(sendto, 0),
	READ(recvfrom, 0),
	WRITE(sendmsg, 0),
	READ(recvmsg, 0),
	BOTH(tee, 0, 1),
	SYSCALL(vmsplice, SIO_SIDE_BY_MODE, 0, 0, 0),
	SYSCALL(recvmmsg, SIO_SIDE_READ, 0, -1, 1),
	SYSCALL(sendmmsg, SIO_SIDE_WRITE, -1, 0, 1),
	/* not syscalls: requests, each counted as it completes */
	{"aio", -1, SIO_SIDE_BY_OP, {-1, -1}, 0, SIO_VIA_AIO, {SYS_io_getevents, SYS_io_pgetevents},
	 {0, 0}, {-1, -1}},
	{"io_uring", -1, SIO_SIDE_BY_OP, {-1, -1}, 0, SIO_VIA_IO_URING, {-1, -1}, {0, 0}, {-1, -1}},
	/* metadata, by family (docs/data-model.md): open, close, stat,
	 * directory, sync, seek, names, size */
	META(open), META(openat), META(openat2), META(creat),
	META(close), META(close_range),
	META(stat), META(lstat), META(fstat), META(newfstatat), META(statx), META(access),
	META(faccessat), META(faccessat2), META(readlink), META(readlinkat),
	META(getdents), META(getdents64),
	META(fsync), META(fdatasync), META(sync_file_range), META(syncfs),
	META(lseek),
	META(unlink), META(unlinkat), META(rename), META(renameat), META(renameat2), META(mkdir),
	META(mkdirat), META(rmdir), META(link), META(linkat), META(symlink), META(symlinkat),
	META(truncate), META(ftruncate), META(fallocate),
};
const size_t io_nsyscalls = sizeof(io_syscalls) / sizeof(io_syscalls[0]);

const struct sio_followed sio_followed[] = {
	{SYS_open, SIO_TRACK_OPEN},  {SYS_openat, SIO_TRACK_OPEN}, {SYS_openat2, SIO_TRACK_OPEN},
	{SYS_creat, SIO_TRACK_OPEN}, {SYS_dup, SIO_TRACK_DUP},     {SYS_dup2, SIO_TRACK_DUP},
	{SYS_dup3, SIO_TRACK_DUP},   {SYS_lseek, SIO_TRACK_SEEK},  {SYS_close, SIO_TRACK_CLOSE},
};
const size_t sio_nfollowed = sizeof(sio_followed) / sizeof(sio_followed[0]);

const struct io_syscall *io_syscall_find(const char *name)
{
	for (size_t i = 0; i < io_nsyscalls; i++)
		if (!strcmp(io_syscalls[i].name, name))
			return &io_syscalls[i];
	return NULL;
}

/* The optimal string alignment distance of a and b (each under 32
 * letters): insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la >= 32 || lb >= 32)
		return SIZE_MAX;
	size_t d[32][32];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const struct io_syscall *io_syscall_nearest(const char *name)
{
	const struct io_syscall *best = NULL;
	size_t best_d = 3;
	for (size_t i = 0; i < io_nsyscalls; i++) {
		size_t d = distance(name, io_syscalls[i].name);
		if (d < best_d)
			best = &io_syscalls[i], best_d = d;
	}
	return best;
}
