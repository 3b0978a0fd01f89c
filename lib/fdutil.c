// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* write_all, read_all, the keep-only-these-fds dance, the open fds, parent-death signals. */
#define _GNU_SOURCE
#include "fdutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

ssize_t write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Into *buf, a malloc'd buffer of *cap bytes grown as needed: its length,
 * or -errno. */
static ssize_t read_all_into(int fd, char **buf, size_t *cap)
{
	size_t n = 0;
	for (;;) {
		if (*cap - n < 2) {
			size_t more = *cap ? 2 * *cap : 16384;
			char *grown = realloc(*buf, more);
			if (!grown)
				return -ENOMEM;
			*buf = grown;
			*cap = more;
		}
		ssize_t r = read(fd, *buf + n, *cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	(*buf)[n] = '\0';
	return (ssize_t)n;
}

char *read_all(int fd, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_all_into(fd, &buf, &cap);
	if (n < 0) {
		free(buf);
		errno = (int)-n;
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

static bool listed(const int *v, size_t n, int fd)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == fd)
			return true;
	return false;
}

int fd_keep(int *fds, size_t n, const int *pinned, size_t npinned)
{
	const int first = 3;
	/* where fds[] go: 3, 4, ... around the pinned ones; every number up
	 * to high is a target or pinned, so parking above it is safe */
	int high = first + (int)(n + npinned);
	for (size_t i = 0; i < npinned; i++)
		if (pinned[i] >= high)
			high = pinned[i] + 1;
	/* park every fd above the targets first, so that the dup3s below
	 * cannot clobber one still to be moved */
	for (size_t i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, high);
		if (moved < 0)
			return -errno;
		fds[i] = moved;
	}
	int next = first;
	for (size_t i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		while (listed(pinned, npinned, next))
			next++;
		if (dup3(fds[i], next, O_CLOEXEC) < 0)
			return -errno;
		fds[i] = next++;
	}
	/* close every run of numbers that holds no kept fd */
	int from = first;
	for (int fd = first; fd < high; fd++) {
		if (!listed(fds, n, fd) && !listed(pinned, npinned, fd))
			continue;
		if (fd > from && close_range((unsigned)from, (unsigned)fd - 1, 0) < 0)
			return -errno;
		from = fd + 1;
	}
	if (close_range((unsigned)from, ~0U, 0) < 0)
		return -errno;
	return 0;
}

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int fd_open_list(int *fds, size_t max)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (fd < 3 || fd == dirfd(d))
			continue;
		if (n < max)
			fds[n] = fd;
		n++;
	}
	closedir(d);
	qsort(fds, n < max ? n : max, sizeof(*fds), by_number);
	return (int)n;
}

int fd_keep_only(int *fds, size_t n)
{
	return fd_keep(fds, n, NULL, 0);
}

bool die_with_parent(int sig, pid_t expected_parent)
{
	if (prctl(PR_SET_PDEATHSIG, sig) < 0)
		return false;
	/* the parent may have died before prctl took effect */
	return getppid() == expected_parent;
}
