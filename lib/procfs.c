// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc/PID/{stat,io,task/TID/children} readers and parsers. */
#define _GNU_SOURCE
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const procfs_io_names[IO_NFIELDS] = {
	"rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes",
};

/* The next space-separated field as a number (a sign allowed), or false. */
static bool stat_field(const char **p, long long *v)
{
	const char *q = *p;
	while (*q == ' ')
		q++;
	bool neg = *q == '-';
	q += neg;
	if (*q < '0' || *q > '9')
		return false;
	unsigned long long x = 0;
	while (*q >= '0' && *q <= '9')
		x = x * 10 + (unsigned long long)(*q++ - '0');
	*v = neg ? -(long long)x : (long long)x;
	*p = q;
	return true;
}

int procfs_parse_stat(const char *buf, struct proc_stat *st)
{
	/* comm may hold spaces and parentheses: the fields start after the last
	 * ')'. By hand: sscanf took a tenth of a tick per process. */
	const char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -EINVAL;
	st->state = p[2];
	p += 3;
	/* field 4 (ppid) to 22 (starttime) */
	long long f[23];
	for (int i = 4; i <= 22; i++)
		if (!stat_field(&p, &f[i]))
			return -EINVAL;
	st->ppid = (pid_t)f[4];
	st->pgrp = (pid_t)f[5];
	st->flags = (unsigned)f[9];
	st->num_threads = (long)f[20];
	st->starttime = (uint64_t)f[22];
	return 0;
}

/* The file as every kernel since 2.6.20 writes it: the seven names in the
 * order of procfs_io_names, each "name: value\n". false when buf is not
 * exactly that (the general parser then reads it). */
static bool parse_io_fast(const char *buf, struct proc_io_counters *c)
{
	const char *p = buf;
	for (int i = 0; i < IO_NFIELDS; i++) {
		const char *name = procfs_io_names[i];
		while (*name && *p == *name)
			p++, name++;
		if (*name || *p++ != ':' || *p++ != ' ' || *p < '0' || *p > '9')
			return false;
		uint64_t v = 0;
		for (int digits = 0; *p >= '0' && *p <= '9'; digits++) {
			if (digits == 19)
				return false; /* it may not fit: the general parser decides */
			v = v * 10 + (uint64_t)(*p++ - '0');
		}
		if (*p++ != '\n')
			return false;
		c->v[i] = v;
	}
	c->present = (1u << IO_NFIELDS) - 1;
	return *p == '\0';
}

int procfs_parse_io(const char *buf, struct proc_io_counters *c)
{
	if (parse_io_fast(buf, c))
		return 0;
	memset(c, 0, sizeof(*c));
	for (const char *line = buf; *line;) {
		const char *eol = strchrnul(line, '\n');
		const char *colon = memchr(line, ':', (size_t)(eol - line));
		for (int i = 0; colon && i < IO_NFIELDS; i++) {
			size_t klen = strlen(procfs_io_names[i]);
			if ((size_t)(colon - line) != klen || strncmp(line, procfs_io_names[i], klen))
				continue;
			char *end;
			errno = 0;
			unsigned long long v = strtoull(colon + 1, &end, 10);
			if (errno || end == colon + 1)
				return -EINVAL;
			c->v[i] = v;
			c->present |= 1u << i;
		}
		line = *eol ? eol + 1 : eol;
	}
	return c->present ? 0 : -EINVAL;
}

ssize_t procfs_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	while (len < cap - 1) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

int procfs_read_stat(pid_t pid, struct proc_stat *st)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ssize_t n = procfs_read(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return procfs_parse_stat(buf, st) < 0 ? -ESRCH : 0;
}

int procfs_read_io(pid_t pid, struct proc_io_counters *c)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	ssize_t n = procfs_read(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	/* an empty read means the process died between open and read */
	return n == 0 ? -ESRCH : procfs_parse_io(buf, c);
}

long procfs_sysctl_long(const char *path, long missing)
{
	char buf[32];
	if (procfs_read(path, buf, sizeof(buf)) <= 0)
		return missing;
	return strtol(buf, NULL, 10);
}

int procfs_perf_event_paranoid(void)
{
	return (int)procfs_sysctl_long("/proc/sys/kernel/perf_event_paranoid", -2);
}

int pid_list_add(struct pid_list *l, pid_t pid)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		pid_t *v = reallocarray(l->v, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = pid;
	return 0;
}

void pid_list_free(struct pid_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int procfs_thread_children(pid_t pid, pid_t tid, struct pid_list *out)
{
	char path[96];
	char small[4096];
	char *buf = small;
	size_t cap = sizeof(small);
	ssize_t n;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tid);
	/* A list that fills the buffer may have been cut: read again into a
	 * bigger one rather than lose children. */
	for (;;) {
		n = procfs_read(path, buf, cap);
		if (n < 0 || (size_t)n < cap - 1)
			break;
		cap *= 4;
		char *bigger = buf == small ? malloc(cap) : realloc(buf, cap);
		if (!bigger) {
			n = -ENOMEM;
			break;
		}
		buf = bigger;
	}
	int r = 0;
	if (n > 0) {
		for (char *p = buf, *end; *p; p = end) {
			long v = strtol(p, &end, 10);
			if (end == p)
				break;
			if ((r = pid_list_add(out, (pid_t)v)) < 0)
				break;
		}
	}
	if (buf != small)
		free(buf);
	if (n == -ENOENT || n == -ESRCH)
		return 0; /* the thread is gone; so are its children's links to it */
	return n < 0 ? (int)n : r;
}

int procfs_threads(pid_t pid, struct pid_list *out)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return (errno == ENOENT || errno == ESRCH) ? 0 : -errno;
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			r = pid_list_add(out, (pid_t)atoi(de->d_name));
	closedir(d);
	return r;
}

int procfs_children(pid_t pid, long nthreads, struct pid_list *out)
{
	if (nthreads == 1)
		return procfs_thread_children(pid, pid, out);

	struct pid_list tids = {0};
	int r = procfs_threads(pid, &tids);
	for (size_t i = 0; r == 0 && i < tids.n; i++)
		r = procfs_thread_children(pid, tids.v[i], out);
	pid_list_free(&tids);
	return r;
}

void procfs_unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}
