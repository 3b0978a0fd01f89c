/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* File descriptor chores shared by the supervisor and its child processes. */
#ifndef IOPSAMPLE_FDUTIL_H
#define IOPSAMPLE_FDUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* write(2) until everything is written; -1 with errno on failure. */
ssize_t write_all(int fd, const void *buf, size_t len);

/* read(2) until end of file into a malloc'd buffer (NUL-terminated, *len
 * bytes): a manifest in a few reads, not jansson's one read per byte.
 * NULL with errno on failure. */
char *read_all(int fd, size_t *len);

/* In a freshly forked child: keep 0, 1, 2 and the fds listed (renumbered to
 * 3, 4, ... in order and updated in place, all close-on-exec); close the rest,
 * so no child holds another's pipes or sockets. Entries of -1 are skipped. */
int fd_keep_only(int *fds, size_t n);

/* fd_keep_only, but the npinned fds in pinned (3 and up) also stay, at
 * their numbers, as they are: what a library in the child refers to by
 * number (syscall_io's eBPF programs, loaded before the fork). fds[] go to
 * the lowest numbers from 3 that no pinned fd holds. */
int fd_keep(int *fds, size_t n, const int *pinned, size_t npinned);

/* The descriptors this process has open from 3 up, ascending, into fds (at
 * most max): how many there are (more than max when they did not fit), or
 * -errno. */
int fd_open_list(int *fds, size_t max);

/* In a freshly forked child: the parent's death sends sig to us. Returns
 * false when the parent (expected_parent) is already gone. */
bool die_with_parent(int sig, pid_t expected_parent);

#endif
