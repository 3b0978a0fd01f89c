/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Where a thread that is off its CPU waits: the classes the waits and
 * offcpu sources share (their fields), and the one set of rules that puts
 * a waiting thread in one of them. Both sources hand the rules the same
 * observation, however they took it:
 *
 *   - the task's state and PF_* flags (/proc/TID/stat; task_struct);
 *   - the kernel function it sleeps in, the first outside the scheduler
 *     (what /proc/TID/wchan prints; waits' bpf backend and offcpu take it
 *     from the task's kernel stack), and where known the frames below it
 *     (/proc/TID/stack as root; the stack the eBPF programs read);
 *   - the system call it is in (/proc/TID/syscall; the task's pt_regs),
 *     or none (a page fault, a kernel thread's own wait);
 *   - what the descriptors that call waits on are: the one it reads or
 *     writes, or the set a poll, select or epoll_wait watches (wait_fds.h
 *     resolves them from /proc; the eBPF programs from the task's file
 *     table).
 *
 * The rules, in order (wait_classify): reclaim and compaction (PF_MEMALLOC)
 * and the kernel's page waits under a fault are paging; a FUSE request, a
 * network file system's RPC, a page of a file on either, are fuse and
 * remote_fs; a page, buffer or bio wait of a local file system is disk;
 * then the descriptors (a socket of AF_INET or AF_INET6: network; a pipe
 * or any other local socket: ipc); then the call (a futex or a file lock:
 * lock; wait4 and waitid: child; a sleep, or a poll with no descriptor:
 * sleep; SysV and POSIX message queues and semaphores: ipc); then the
 * function alone, for a wait whose call is not known; else other.
 * wait_class.c lists every function by kernel version, with why. */
#ifndef IOPSAMPLE_WAIT_CLASS_H
#define IOPSAMPLE_WAIT_CLASS_H

#include <stdbool.h>
#include <stddef.h>

enum wait_class {
	WC_RUNNING,  /* on a CPU */
	WC_RUNNABLE, /* runnable, waiting for a CPU */
	WC_DISK,     /* block I/O that is not paging */
	WC_PAGING,   /* swap-in, refault, reclaim, compaction, memory.high */
	WC_NETWORK,  /* an AF_INET/AF_INET6 socket */
	WC_REMOTE_FS, /* a network file system's RPC */
	WC_FUSE,     /* a FUSE daemon's answer */
	WC_LOCK,     /* a futex, a file lock */
	WC_IPC,      /* a pipe, a local socket, a message queue, a semaphore */
	WC_CHILD,    /* wait4/waitid */
	WC_SLEEP,    /* a sleep, a timer, a poll with no descriptor */
	WC_OTHER,
	WC_NCLASSES
};

/* The row's field of each class: "running_ns", ... */
extern const char *const wait_class_field[WC_NCLASSES];
/* In words, for evidence and the manifest: "on a lock", ... */
extern const char *const wait_class_words[WC_NCLASSES];

/* What a descriptor is, as far as a wait on it goes. */
enum wait_fd_kind {
	WFD_INET,   /* a socket of AF_INET or AF_INET6 */
	WFD_LOCAL_SOCKET, /* any other socket: AF_UNIX, netlink, ... */
	WFD_PIPE,   /* a pipe or a FIFO */
	WFD_FUSE,   /* a file on a FUSE mount */
	WFD_REMOTE, /* a file on a network file system */
	WFD_FILE,   /* a file or block device on a local file system */
	WFD_OTHER,  /* eventfd, timerfd, signalfd, a terminal, a character device, ... */
	WFD_NKINDS
};
#define WFD_BIT(k) (1u << (k))

/* The system call a thread is in: its number (the build's architecture's),
 * or one of these. */
#define WAIT_NO_CALL (-1L)       /* in the kernel but in no call: a page fault */
#define WAIT_CALL_UNKNOWN (-2L)  /* not known (/proc/TID/syscall unreadable) */

#define WAIT_STACK_MAX 8

struct wait_obs {
	char state;        /* /proc's letter: S, D, I, T, t, ... (R is not a wait) */
	unsigned flags;    /* PF_* */
	const char *fn;    /* the function it sleeps in, or NULL */
	const char *stack[WAIT_STACK_MAX]; /* the frames below fn, innermost first */
	size_t nstack;
	long call;         /* the system call's number, or WAIT_NO_CALL, WAIT_CALL_UNKNOWN */
	unsigned kinds;    /* WFD_BIT()s of the descriptors the call waits on */
	bool fds_known;    /* kinds is what they are (false: none could be read) */
	unsigned nfds;     /* how many the call waits on (a poll of none sleeps) */
	bool daemon_in_tree; /* the FUSE daemon it waits on is of the tree */
};

enum wait_class wait_classify(const struct wait_obs *o);

/* Whether fn is one get_wchan() skips (the scheduler's, a sleeping lock's
 * slow path): for a stack read as names. */
bool wait_fn_is_scheduler(const char *fn);

/* Whether the call's descriptors are what the rules look at: the call
 * takes one in its first argument (fd_arg: which), or a set (a poll,
 * select or epoll_wait: *set, the kind, below). */
enum wait_set { WAIT_SET_NONE, WAIT_SET_POLL, WAIT_SET_SELECT, WAIT_SET_EPOLL };
bool wait_call_fd(long call, int *fd_arg, enum wait_set *set);

#endif
