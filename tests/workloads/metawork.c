// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* metawork: a workload that counts its own metadata syscalls, for
 * syscall_io's tests to compare with.
 *
 *   metawork DIR ROUNDS
 *       in DIR (which must exist), ROUNDS times: makes a file and writes a
 *       page to it, syncs, seeks, truncates and allocates it, stats it every
 *       way there is, renames it there and back, links and symlinks it and
 *       reads the symlink, removes the links, and opens it again read-only;
 *       then lists the directory both ways, syncs its file system, and
 *       removes everything it made. Each metadata family's every syscall
 *       (docs/data-model.md) is called at least once, some of them to fail
 *       (a missing file, a second mkdir, a closed descriptor, a bad
 *       whence). Prints
 *         {"openat": [calls, errors], ...}
 *       each syscall's successful and failed calls, with one write(2) at the
 *       end, and no metadata call of its own besides those counted.
 *
 * Every syscall is issued with syscall(2), so exactly what is counted is
 * called (glibc's stat() is newfstatat, its fstat() too); linked statically:
 * no dynamic loader opens libraries before main. Exits 2 on a call that
 * should have worked and did not, or one that should have failed and did
 * not. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum {
	OPEN, OPENAT, OPENAT2, CREAT, CLOSE, CLOSE_RANGE, STAT, LSTAT, FSTAT, NEWFSTATAT, STATX, ACCESS,
	FACCESSAT, FACCESSAT2, READLINK, READLINKAT, GETDENTS, GETDENTS64, FSYNC, FDATASYNC,
	SYNC_FILE_RANGE, SYNCFS, LSEEK, UNLINK, UNLINKAT, RENAME, RENAMEAT, RENAMEAT2, MKDIR, MKDIRAT,
	RMDIR, LINK, LINKAT, SYMLINK, SYMLINKAT, TRUNCATE, FTRUNCATE, FALLOCATE, NCALLS
};

static const struct {
	const char *name;
	long nr;
} calls[NCALLS] = {
	[OPEN] = {"open", SYS_open},
	[OPENAT] = {"openat", SYS_openat},
	[OPENAT2] = {"openat2", SYS_openat2},
	[CREAT] = {"creat", SYS_creat},
	[CLOSE] = {"close", SYS_close},
	[CLOSE_RANGE] = {"close_range", SYS_close_range},
	[STAT] = {"stat", SYS_stat},
	[LSTAT] = {"lstat", SYS_lstat},
	[FSTAT] = {"fstat", SYS_fstat},
	[NEWFSTATAT] = {"newfstatat", SYS_newfstatat},
	[STATX] = {"statx", SYS_statx},
	[ACCESS] = {"access", SYS_access},
	[FACCESSAT] = {"faccessat", SYS_faccessat},
	[FACCESSAT2] = {"faccessat2", SYS_faccessat2},
	[READLINK] = {"readlink", SYS_readlink},
	[READLINKAT] = {"readlinkat", SYS_readlinkat},
	[GETDENTS] = {"getdents", SYS_getdents},
	[GETDENTS64] = {"getdents64", SYS_getdents64},
	[FSYNC] = {"fsync", SYS_fsync},
	[FDATASYNC] = {"fdatasync", SYS_fdatasync},
	[SYNC_FILE_RANGE] = {"sync_file_range", SYS_sync_file_range},
	[SYNCFS] = {"syncfs", SYS_syncfs},
	[LSEEK] = {"lseek", SYS_lseek},
	[UNLINK] = {"unlink", SYS_unlink},
	[UNLINKAT] = {"unlinkat", SYS_unlinkat},
	[RENAME] = {"rename", SYS_rename},
	[RENAMEAT] = {"renameat", SYS_renameat},
	[RENAMEAT2] = {"renameat2", SYS_renameat2},
	[MKDIR] = {"mkdir", SYS_mkdir},
	[MKDIRAT] = {"mkdirat", SYS_mkdirat},
	[RMDIR] = {"rmdir", SYS_rmdir},
	[LINK] = {"link", SYS_link},
	[LINKAT] = {"linkat", SYS_linkat},
	[SYMLINK] = {"symlink", SYS_symlink},
	[SYMLINKAT] = {"symlinkat", SYS_symlinkat},
	[TRUNCATE] = {"truncate", SYS_truncate},
	[FTRUNCATE] = {"ftruncate", SYS_ftruncate},
	[FALLOCATE] = {"fallocate", SYS_fallocate},
};

static unsigned long ok[NCALLS], failed[NCALLS];

/* Calls syscall c with up to five arguments; the call must succeed
 * (want_error 0) or fail with want_error. Returns its result. */
static long call(int c, int want_error, long a, long b, long d, long e, long f)
{
	long r = syscall(calls[c].nr, a, b, d, e, f);
	if (r < 0)
		failed[c]++;
	else
		ok[c]++;
	if ((want_error == 0) != (r >= 0) || (want_error && errno != want_error)) {
		fprintf(stderr, "metawork: %s: %s (expected %s)\n", calls[c].name,
			r < 0 ? strerror(errno) : "succeeded", want_error ? strerror(want_error) : "success");
		exit(2);
	}
	return r;
}
#define DO(c, ...) call(c, 0, __VA_ARGS__)
#define FAIL(c, err, ...) call(c, err, __VA_ARGS__)
#define L(x) ((long)(x))

static char *path(const char *dir, const char *name, int i)
{
	static char buf[8][4200];
	static int next;
	char *p = buf[next++ % 8];
	if (snprintf(p, sizeof(buf[0]), "%.4000s/%s%d", dir, name, i) >= (int)sizeof(buf[0]))
		exit(2);
	return p;
}

/* Lists directory dir with getdents (SYS_getdents when old, else 64). */
static void list(const char *dir, int which)
{
	char buf[4096];
	long fd = DO(OPENAT, AT_FDCWD, L(dir), O_RDONLY | O_DIRECTORY, 0, 0);
	while (DO(which, fd, L(buf), sizeof(buf), 0, 0) > 0)
		;
	DO(CLOSE, fd, 0, 0, 0, 0);
}

int main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: metawork DIR ROUNDS\n");
		return 2;
	}
	int rounds = atoi(argv[2]);
	char d[4096], buf[4096];
	struct stat st;
	struct statx stx;
	if (snprintf(d, sizeof(d), "%s/metawork", argv[1]) >= (int)sizeof(d))
		return 2;
	DO(MKDIR, L(d), 0755, 0, 0, 0);
	FAIL(MKDIR, EEXIST, L(d), 0755, 0, 0, 0);
	memset(buf, 'm', sizeof(buf));
	for (int i = 0; i < rounds; i++) {
		char *f = path(d, "f", i), *g = path(d, "g", i), *h = path(d, "h", i), *s = path(d, "s", i);
		long fd = DO(OPENAT, AT_FDCWD, L(f), O_CREAT | O_WRONLY | O_TRUNC, 0644, 0);
		if (syscall(SYS_write, fd, buf, sizeof(buf)) != (long)sizeof(buf))
			exit(2);
		DO(FSYNC, fd, 0, 0, 0, 0);
		DO(FDATASYNC, fd, 0, 0, 0, 0);
		DO(SYNC_FILE_RANGE, fd, 0, 0, SYNC_FILE_RANGE_WRITE, 0);
		DO(LSEEK, fd, 0, SEEK_SET, 0, 0);
		FAIL(LSEEK, EINVAL, fd, 0, 99, 0, 0);
		DO(FTRUNCATE, fd, 8192, 0, 0, 0);
		DO(FALLOCATE, fd, 0, 0, 16384, 0);
		DO(FSTAT, fd, L(&st), 0, 0, 0);
		DO(CLOSE, fd, 0, 0, 0, 0);
		FAIL(CLOSE, EBADF, fd, 0, 0, 0, 0);

		DO(STAT, L(f), L(&st), 0, 0, 0);
		DO(LSTAT, L(f), L(&st), 0, 0, 0);
		DO(NEWFSTATAT, AT_FDCWD, L(f), L(&st), 0, 0);
		FAIL(NEWFSTATAT, ENOENT, AT_FDCWD, L(g), L(&st), 0, 0);
		DO(STATX, AT_FDCWD, L(f), 0, STATX_BASIC_STATS, L(&stx));
		DO(ACCESS, L(f), R_OK, 0, 0, 0);
		FAIL(ACCESS, ENOENT, L(g), F_OK, 0, 0, 0);
		DO(FACCESSAT, AT_FDCWD, L(f), W_OK, 0, 0);
		DO(FACCESSAT2, AT_FDCWD, L(f), R_OK, AT_EACCESS, 0);
		FAIL(OPENAT, ENOENT, AT_FDCWD, L(g), O_RDONLY, 0, 0);

		DO(RENAME, L(f), L(g), 0, 0, 0);
		DO(RENAMEAT, AT_FDCWD, L(g), AT_FDCWD, L(h), 0);
		DO(RENAMEAT2, AT_FDCWD, L(h), AT_FDCWD, L(f), RENAME_NOREPLACE);
		DO(LINK, L(f), L(g), 0, 0, 0);
		DO(LINKAT, AT_FDCWD, L(f), AT_FDCWD, L(h), 0);
		DO(SYMLINK, L(f), L(s), 0, 0, 0);
		FAIL(SYMLINKAT, EEXIST, L(f), AT_FDCWD, L(s), 0, 0);
		DO(READLINK, L(s), L(buf), sizeof(buf), 0, 0);
		DO(READLINKAT, AT_FDCWD, L(s), L(buf), sizeof(buf), 0);
		FAIL(READLINK, EINVAL, L(f), L(buf), sizeof(buf), 0, 0);
		DO(UNLINK, L(g), 0, 0, 0, 0);
		DO(UNLINKAT, AT_FDCWD, L(h), 0, 0, 0);
		DO(UNLINKAT, AT_FDCWD, L(s), 0, 0, 0);
		FAIL(UNLINK, ENOENT, L(g), 0, 0, 0, 0);
		DO(TRUNCATE, L(f), 4096, 0, 0, 0);

		fd = DO(OPEN, L(f), O_RDONLY, 0, 0, 0);
		DO(CLOSE_RANGE, fd, fd, 0, 0, 0);
	}
	list(d, GETDENTS64);
	list(d, GETDENTS);
	long dfd = DO(OPENAT, AT_FDCWD, L(d), O_RDONLY | O_DIRECTORY, 0, 0);
	DO(SYNCFS, dfd, 0, 0, 0, 0);
	struct open_how how = {.flags = O_RDONLY, .resolve = RESOLVE_BENEATH};
	long fd = DO(OPENAT2, dfd, L("f0"), L(&how), sizeof(how), 0);
	DO(CLOSE, fd, 0, 0, 0, 0);
	FAIL(OPENAT2, EXDEV, dfd, L("../metawork/f0"), L(&how), sizeof(how), 0);
	fd = DO(CREAT, L(path(d, "c", 0)), 0644, 0, 0, 0);
	DO(CLOSE, fd, 0, 0, 0, 0);
	DO(MKDIRAT, dfd, L("sub"), 0755, 0, 0);
	DO(UNLINKAT, dfd, L("sub"), AT_REMOVEDIR, 0, 0);
	DO(UNLINKAT, dfd, L("c0"), 0, 0, 0);
	DO(CLOSE, dfd, 0, 0, 0, 0);
	for (int i = 0; i < rounds; i++)
		DO(UNLINK, L(path(d, "f", i)), 0, 0, 0, 0);
	FAIL(RMDIR, ENOENT, L(path(d, "nothing", 0)), 0, 0, 0, 0);
	DO(RMDIR, L(d), 0, 0, 0, 0);

	char out[8192];
	int n = snprintf(out, sizeof(out), "{");
	for (int c = 0; c < NCALLS; c++)
		n += snprintf(out + n, sizeof(out) - (size_t)n, "%s\"%s\": [%lu, %lu]", c ? ", " : "",
			      calls[c].name, ok[c], failed[c]);
	n += snprintf(out + n, sizeof(out) - (size_t)n, "}\n");
	return syscall(SYS_write, 1, out, n) == n ? 0 : 2;
}
