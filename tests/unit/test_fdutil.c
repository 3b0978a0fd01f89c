// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fd_keep and fd_keep_only, in forked children: which descriptors stay, at
 * which numbers, still open on the same files; everything else closed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdutil.h"
#include "testing.h"

/* The inode an fd is open on, or 0 when it is closed. */
static ino_t inode_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

static bool listed_in(int fd, const int *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] == fd)
			return true;
	return false;
}

/* A child's verdict: 0 when its checks passed, else the number of the first
 * that failed. */
static int child_status(pid_t pid)
{
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Opens n distinct files (pipes' ends), so that each fd names its own inode. */
static void open_many(int *fds, int n)
{
	for (int i = 0; i < n; i += 2) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			FAILF("pipe2: %s", strerror(errno));
		fds[i] = p[0];
		if (i + 1 < n)
			fds[i + 1] = p[1];
		else
			close(p[1]);
	}
}

TEST(pinned_fds_stay_where_they_are_and_the_rest_move_around_them)
{
	int fd[12];
	open_many(fd, 12);
	/* pin two in the middle of the low numbers, where the moved ones would
	 * otherwise go, and one high up */
	int pinned[3] = {fd[1], fd[2], fd[10]};
	int keep[3] = {fd[7], fd[0], fd[9]};
	ino_t want_pinned[3], want_keep[3];
	for (int i = 0; i < 3; i++) {
		want_pinned[i] = inode_of(pinned[i]);
		want_keep[i] = inode_of(keep[i]);
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (fd_keep(keep, 3, pinned, 3) < 0)
			_exit(1);
		for (int i = 0; i < 3; i++)
			if (inode_of(pinned[i]) != want_pinned[i]) /* still there, the same file */
				_exit(2);
		for (int i = 0; i < 3; i++)
			if (inode_of(keep[i]) != want_keep[i] || listed_in(keep[i], pinned, 3))
				_exit(3);
		/* the kept ones take the lowest numbers the pinned leave free */
		for (int want = 3, i = 0; i < 3; i++, want++) {
			while (listed_in(want, pinned, 3))
				want++;
			if (keep[i] != want)
				_exit(4);
		}
		/* nothing else is open from 3 up */
		for (int f = 3; f < 64; f++)
			if (inode_of(f) && !listed_in(f, pinned, 3) && !listed_in(f, keep, 3))
				_exit(5);
		/* all kept close-on-exec */
		for (int i = 0; i < 3; i++)
			if (!(fcntl(keep[i], F_GETFD) & FD_CLOEXEC))
				_exit(6);
		_exit(0);
	}
	EXPECT_EQ(child_status(pid), 0);
	for (int i = 0; i < 12; i++)
		close(fd[i]);
}

TEST(without_pinned_it_renumbers_from_three)
{
	int fd[6];
	open_many(fd, 6);
	int keep[3] = {fd[5], -1, fd[2]};
	ino_t a = inode_of(fd[5]), b = inode_of(fd[2]);
	pid_t pid = fork();
	if (pid == 0) {
		if (fd_keep_only(keep, 3) < 0)
			_exit(1);
		if (keep[0] != 3 || keep[1] != -1 || keep[2] != 4)
			_exit(2);
		if (inode_of(3) != a || inode_of(4) != b)
			_exit(3);
		for (int f = 5; f < 64; f++)
			if (inode_of(f))
				_exit(4);
		_exit(0);
	}
	EXPECT_EQ(child_status(pid), 0);
	for (int i = 0; i < 6; i++)
		close(fd[i]);
}
