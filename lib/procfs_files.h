/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* /proc files of many processes, kept open and re-read with pread at
 * offset 0, as a sampler reads them every tick: no path walk, no open and
 * no close per read.
 *
 * A descriptor of /proc/PID/... is tied to the process, not to its pid:
 * once the process is reaped a read says ESRCH, never what another process
 * that got the pid has. So a process's files are dropped together as soon
 * as one read says it is gone, and the next read of that pid opens the
 * files of whoever has it now (the caller tells them apart by starttime, as
 * it would reading by path). Files of a process not read between two
 * sweeps are closed by the second.
 *
 * A process can also be watched for its exit: a pidfd, polled in one
 * epoll set, says when its process has exited (a zombie, being reaped, or
 * gone), so a caller that needs only to know that a stat read earlier
 * still holds for a living process can skip reading it again.
 *
 * Descriptors are kept up to RLIMIT_NOFILE's soft limit less 64 left to
 * the rest of the process (FD_RESERVE); past it a file is opened, read and
 * closed each time, as by path. */
#ifndef IOPSAMPLE_PROCFS_FILES_H
#define IOPSAMPLE_PROCFS_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pidmap.h"
#include "procfs.h"

enum procfs_file {
	PROCFS_IO,       /* /proc/PID/io */
	PROCFS_STAT,     /* /proc/PID/stat */
	PROCFS_CHILDREN, /* /proc/PID/task/PID/children: the main thread's */
	PROCFS_NFILES
};

struct procfs_kept {
	pid_t pid;
	int fd[PROCFS_NFILES]; /* -1: not open */
	int pidfd;             /* -1: not watched */
	bool used;             /* read since the last sweep */
	bool exited;           /* the pidfd said so */
	bool have_stat;
	struct proc_stat stat; /* the last read */
};

struct procfs_files {
	struct pidmap index; /* pid -> slot */
	struct procfs_kept *slot;
	size_t n, cap;
	size_t nfds, max_fds;
	int epfd; /* the pidfds, or -1 */
	char *buf; /* for lists: children */
	size_t buf_cap;
};

void procfs_files_init(struct procfs_files *f);
void procfs_files_free(struct procfs_files *f);

/* As procfs_read_io, procfs_read_stat and procfs_children. procfs_files_io
 * also answers, where st_known is not NULL, what procfs_files_known_stat
 * would (*st_known, and *st), from the same look-up. */
int procfs_files_io(struct procfs_files *f, pid_t pid, struct proc_io_counters *c, struct proc_stat *st,
		    bool *st_known);
int procfs_files_stat(struct procfs_files *f, pid_t pid, struct proc_stat *st);
int procfs_files_children(struct procfs_files *f, pid_t pid, long nthreads, struct pid_list *out);

/* Watches pid's process for its exit, from now on: 0, or -errno (no
 * pidfds on this kernel, out of descriptors, the process gone). Read its
 * stat after this, to know the pidfd is of the process the files are. */
int procfs_files_watch(struct procfs_files *f, pid_t pid);
/* Takes note of every watched process that has exited by now: how many
 * were noted (0: every stat known before is known still), or -errno. */
int procfs_files_poll(struct procfs_files *f);
/* The stat last read of a watched process that had not exited at the last
 * poll: true and *st; false when it must be read again. */
bool procfs_files_known_stat(const struct procfs_files *f, pid_t pid, struct proc_stat *st);

/* Closes the files of every process not read since the last sweep. */
void procfs_files_sweep(struct procfs_files *f);

/* Reads a whole file from offset 0 into *buf (grown as needed, kept by the
 * caller between calls, NUL-terminated): its length or -errno. For lists
 * a kernel seq_file hands out a page at a time (children, cgroup.procs). */
ssize_t procfs_pread_all(int fd, char **buf, size_t *cap);

/* Appends the numbers of a whitespace-separated list ("12 13 " of a
 * children file, "12\n13\n" of cgroup.procs). 0 or -ENOMEM. */
int pid_list_parse(const char *buf, struct pid_list *out);

#endif
