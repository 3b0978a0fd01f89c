/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reading /proc: a process's stat, io counters and children.
 *
 * The parsers take a buffer so tests can feed them fixture files; the readers
 * return -ENOENT/-ESRCH when the process is gone, which callers treat as an
 * ordinary event, not an error. */
#ifndef IOPSAMPLE_PROCFS_H
#define IOPSAMPLE_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_stat {
	char state;          /* R S D T t X Z ... */
	pid_t ppid;
	pid_t pgrp;
	long num_threads;
	unsigned flags;      /* the task's PF_* flags */
	uint64_t starttime;  /* clock ticks after boot: tells a reused pid apart */
};

/* include/linux/sched.h: set when a task begins to exit, kept as a zombie */
#define PROCFS_PF_EXITING 0x00000004u

enum {
	IO_RCHAR,
	IO_WCHAR,
	IO_SYSCR,
	IO_SYSCW,
	IO_READ_BYTES,
	IO_WRITE_BYTES,
	IO_CANCELLED_WRITE_BYTES,
	IO_NFIELDS
};

/* The /proc/PID/io names, which are also proc_io's field names. */
extern const char *const procfs_io_names[IO_NFIELDS];

struct proc_io_counters {
	uint64_t v[IO_NFIELDS];
	unsigned present; /* bit i set when the kernel reported field i */
};

struct pid_list {
	pid_t *v;
	size_t n, cap;
};

int procfs_parse_stat(const char *buf, struct proc_stat *st);
int procfs_parse_io(const char *buf, struct proc_io_counters *c);

/* Reads a small /proc file into buf (NUL-terminated); length or -errno. */
ssize_t procfs_read(const char *path, char *buf, size_t cap);
int procfs_read_stat(pid_t pid, struct proc_stat *st);
int procfs_read_io(pid_t pid, struct proc_io_counters *c);
/* The kernel's octal escapes in a path it prints (seq_escape: "\040" for a
 * space in mountinfo and mountstats), undone in place. */
void procfs_unescape(char *s);

/* The integer a sysctl file (/proc/sys/...) holds, or missing when it
 * cannot be read (no such setting, no /proc/sys). */
long procfs_sysctl_long(const char *path, long missing);
/* /proc/sys/kernel/perf_event_paranoid (what the manifest's host and
 * perf_event's reasons quote), or -2 when it cannot be read. */
int procfs_perf_event_paranoid(void);

/* Appends the thread ids of pid (its own first is not guaranteed). 0 or
 * -errno; a process that vanished leaves the list as it was. */
int procfs_threads(pid_t pid, struct pid_list *out);
/* Appends the children of every thread of pid. nthreads == 1 reads just the
 * main thread's list (one file instead of a directory walk). Returns 0 or
 * -errno; a process that vanished meanwhile leaves the list as it was. */
int procfs_children(pid_t pid, long nthreads, struct pid_list *out);
/* Appends the children of one thread tid of process pid; the same returns. */
int procfs_thread_children(pid_t pid, pid_t tid, struct pid_list *out);

int pid_list_add(struct pid_list *l, pid_t pid);
void pid_list_free(struct pid_list *l);

#endif
