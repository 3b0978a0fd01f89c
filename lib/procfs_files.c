// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Kept-open /proc files; see procfs_files.h. */
#define _GNU_SOURCE
#include "procfs_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Descriptors left to the rest of the process, whatever the limit. */
#define FD_RESERVE 64

void procfs_files_init(struct procfs_files *f)
{
	memset(f, 0, sizeof(*f));
	f->epfd = -1;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		f->max_fds = rl.rlim_cur > FD_RESERVE * 2 ? (size_t)(rl.rlim_cur - FD_RESERVE) : 0;
	else
		f->max_fds = 1u << 20;
}

static void close_slot(struct procfs_files *f, struct procfs_kept *k)
{
	for (int i = 0; i < PROCFS_NFILES; i++)
		if (k->fd[i] >= 0) {
			close(k->fd[i]);
			k->fd[i] = -1;
			f->nfds--;
		}
	if (k->pidfd >= 0) {
		close(k->pidfd); /* which takes it out of the epoll set */
		k->pidfd = -1;
		f->nfds--;
	}
	k->exited = k->have_stat = false;
}

/* Removes slot i, moving the last one into its place. */
static void drop(struct procfs_files *f, size_t i)
{
	close_slot(f, &f->slot[i]);
	pidmap_del(&f->index, f->slot[i].pid);
	if (i != --f->n) {
		f->slot[i] = f->slot[f->n];
		*pidmap_get(&f->index, f->slot[i].pid) = (int)i;
	}
}

void procfs_files_free(struct procfs_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		close_slot(f, &f->slot[i]);
	pidmap_free(&f->index);
	free(f->slot);
	free(f->buf);
	if (f->epfd >= 0)
		close(f->epfd);
	memset(f, 0, sizeof(*f));
	f->epfd = -1;
}

void procfs_files_sweep(struct procfs_files *f)
{
	for (size_t i = f->n; i-- > 0;) {
		if (f->slot[i].used)
			f->slot[i].used = false;
		else
			drop(f, i);
	}
}

static struct procfs_kept *slot_of(struct procfs_files *f, pid_t pid)
{
	int64_t *at = pidmap_get(&f->index, pid);
	if (at)
		return &f->slot[*at];
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct procfs_kept *v = reallocarray(f->slot, cap, sizeof(*v));
		if (!v)
			return NULL;
		f->slot = v;
		f->cap = cap;
	}
	if (pidmap_add(&f->index, pid, (int)f->n) < 0)
		return NULL;
	struct procfs_kept *k = &f->slot[f->n++];
	*k = (struct procfs_kept){.pid = pid, .fd = {-1, -1, -1}, .pidfd = -1};
	return k;
}

static int open_file(pid_t pid, enum procfs_file which)
{
	char path[64];
	switch (which) {
	case PROCFS_IO:
		snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
		break;
	case PROCFS_STAT:
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		break;
	default:
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
		break;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static ssize_t pread_once(int fd, char *buf, size_t cap)
{
	ssize_t n;
	while ((n = pread(fd, buf, cap - 1, 0)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* A whole list file into f->buf, or a one-record file (io, stat: the
 * kernel's single_open hands the record out whole) into buf. */
static ssize_t read_file(struct procfs_files *f, int fd, enum procfs_file which, char *buf,
			 size_t cap)
{
	if (which == PROCFS_CHILDREN)
		return procfs_pread_all(fd, &f->buf, &f->buf_cap);
	return pread_once(fd, buf, cap);
}

/* Whether a read of `which` that returned n proves the process gone: an
 * empty io or stat (the process died between open and read), or ESRCH. A
 * leaf's children list is empty every tick. */
static bool proves_gone(ssize_t n, enum procfs_file which)
{
	return n == -ESRCH || (n == 0 && which != PROCFS_CHILDREN);
}

/* Reads one file of pid: the length, or -errno (-ESRCH, -ENOENT: gone). */
static ssize_t kept_read(struct procfs_files *f, pid_t pid, enum procfs_file which, char *buf,
			 size_t cap, struct procfs_kept **slot)
{
	struct procfs_kept *k = *slot = slot_of(f, pid);
	if (!k)
		return -ENOMEM;
	k->used = true;
	if (k->fd[which] >= 0) {
		ssize_t n = read_file(f, k->fd[which], which, buf, cap);
		if (!proves_gone(n, which))
			return n;
		/* that process is gone: whoever has its pid now is read afresh */
		close_slot(f, k);
	}
	int fd = open_file(pid, which);
	if (fd < 0)
		return fd;
	ssize_t n = read_file(f, fd, which, buf, cap);
	if (n >= 0 && !proves_gone(n, which) && f->nfds < f->max_fds) {
		k->fd[which] = fd;
		f->nfds++;
	} else {
		close(fd);
	}
	return proves_gone(n, which) ? -ESRCH : n;
}

/* The stat kept in k, of a watched process not seen exited: true and *st. */
static bool known(const struct procfs_kept *k, struct proc_stat *st)
{
	if (!k || k->pidfd < 0 || k->exited || !k->have_stat)
		return false;
	*st = k->stat;
	return true;
}

int procfs_files_io(struct procfs_files *f, pid_t pid, struct proc_io_counters *c, struct proc_stat *st,
		    bool *st_known)
{
	char buf[512];
	struct procfs_kept *k;
	ssize_t n = kept_read(f, pid, PROCFS_IO, buf, sizeof(buf), &k);
	if (st_known) /* the slot the read found: no second look-up */
		*st_known = n >= 0 && known(k, st);
	return n < 0 ? (int)n : procfs_parse_io(buf, c);
}

int procfs_files_stat(struct procfs_files *f, pid_t pid, struct proc_stat *st)
{
	char buf[1024];
	struct procfs_kept *k;
	ssize_t n = kept_read(f, pid, PROCFS_STAT, buf, sizeof(buf), &k);
	if (n < 0)
		return (int)n;
	if (procfs_parse_stat(buf, st) < 0)
		return -ESRCH;
	k->stat = *st;
	k->have_stat = true;
	return 0;
}

int procfs_files_watch(struct procfs_files *f, pid_t pid)
{
	struct procfs_kept *k = slot_of(f, pid);
	if (!k)
		return -ENOMEM;
	k->used = true;
	if (k->pidfd >= 0)
		return 0;
	if (k->exited)
		return -ESRCH; /* seen exited: nothing more to watch for */
	if (f->nfds >= f->max_fds)
		return -EMFILE;
	if (f->epfd < 0 && (f->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -errno;
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return -errno;
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)pid};
	if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	k->pidfd = fd;
	k->exited = false;
	f->nfds++;
	return 0;
}

int procfs_files_poll(struct procfs_files *f)
{
	struct epoll_event ev[64];
	int n, exited = 0;
	do {
		if (f->epfd < 0)
			return 0;
		n = epoll_wait(f->epfd, ev, 64, 0);
		if (n < 0)
			return errno == EINTR ? exited : -errno;
		for (int i = 0; i < n; i++) {
			int64_t *at = pidmap_get(&f->index, (pid_t)ev[i].data.u64);
			if (!at)
				continue;
			/* said once: a zombie's pidfd stays readable */
			struct procfs_kept *k = &f->slot[*at];
			k->exited = true;
			close(k->pidfd);
			k->pidfd = -1;
			f->nfds--;
			exited++;
		}
	} while (n == 64);
	return exited;
}

bool procfs_files_known_stat(const struct procfs_files *f, pid_t pid, struct proc_stat *st)
{
	int64_t *at = pidmap_get(&f->index, pid);
	return known(at ? &f->slot[*at] : NULL, st);
}

int procfs_files_children(struct procfs_files *f, pid_t pid, long nthreads, struct pid_list *out)
{
	if (nthreads != 1)
		return procfs_children(pid, nthreads, out); /* a list per thread */
	struct procfs_kept *k;
	ssize_t n = kept_read(f, pid, PROCFS_CHILDREN, NULL, 0, &k);
	if (n == -ENOENT || n == -ESRCH)
		return 0; /* gone, and its children's links to it */
	return n < 0 ? (int)n : pid_list_parse(f->buf, out);
}

ssize_t procfs_pread_all(int fd, char **buf, size_t *cap)
{
	size_t len = 0;
	for (;;) {
		if (*cap - len < 4096 + 1) {
			size_t bigger = *cap ? *cap * 2 : 16384;
			char *b = realloc(*buf, bigger);
			if (!b)
				return -ENOMEM;
			*buf = b;
			*cap = bigger;
		}
		ssize_t n = pread(fd, *buf + len, *cap - 1 - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

int pid_list_parse(const char *buf, struct pid_list *out)
{
	for (const char *p = buf;;) {
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return 0;
		long v = 0;
		while (*p >= '0' && *p <= '9' && v < (1L << 31))
			v = v * 10 + (*p++ - '0');
		int r = pid_list_add(out, (pid_t)v);
		if (r < 0)
			return r;
	}
}
