/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the descriptors a waiting thread waits on are, read from /proc: the
 * kind of each (wait_class.h's wait_fd_kind) and, for a file on a FUSE or
 * network file system, its mount (the mount point, the file system type,
 * the server, or the FUSE daemon).
 *
 *   - /proc/TGID/fd/N's link says what the descriptor is: "socket:[ino]",
 *     "pipe:[ino]", "anon_inode:[...]", or a path; a socket's family is
 *     asked of a duplicate of it (pidfd_getfd(2), Linux 5.6, then
 *     getsockopt SO_DOMAIN), else looked for in /proc/TGID/net/unix, and
 *     kept by inode; a path's mount is /proc/TGID/fdinfo/N's mnt_id in
 *     /proc/TGID/mountinfo, read again when a mount is new to it;
 *   - a poll's or select's set is read from the thread's memory
 *     (process_vm_readv(2): the caller may ptrace it), an epoll set from
 *     /proc/TGID/fdinfo/EPFD's tfd lines;
 *   - a FUSE mount's daemon is the process holding /dev/fuse open (the
 *     one whose command line names the mount point, where several do),
 *     looked for once per mount, and again when it has exited.
 *
 * Nothing here fails a sample: what cannot be read is unknown. */
#ifndef IOPSAMPLE_WAIT_FDS_H
#define IOPSAMPLE_WAIT_FDS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/wait_class.h"
#include "pidmap.h"

struct wait_mount {
	int mnt_id;
	unsigned major, minor; /* its super block's device (mountinfo's third field) */
	char *point;  /* where it is mounted */
	char *fstype; /* "nfs4", "fuse.sshfs", ... */
	char *source; /* mountinfo's: "server:/export", a FUSE daemon's name */
	char *options; /* its super block's options: "rw,vers=3.1.1,..." */
	enum wait_fd_kind kind; /* WFD_FUSE, WFD_REMOTE or WFD_FILE */
	pid_t daemon;           /* FUSE: its daemon, 0 unknown */
	char daemon_comm[16];
	bool daemon_looked;
};

struct wait_fds {
	struct wait_mount *mount;
	size_t nmount, cap;
	struct pidmap sockets; /* socket inode -> its wait_fd_kind + 1 */
	char *buf;             /* for mountinfo, fdinfo */
	size_t buf_cap;
};

void wait_fds_init(struct wait_fds *w);
void wait_fds_free(struct wait_fds *w);

/* Reads the mounts process tgid sees (its mountinfo) into w->mount, those
 * known already kept: 0, or -errno. */
int wait_fds_load_mounts(struct wait_fds *w, pid_t tgid);

/* The kind of descriptor fd of process tgid, or -errno (gone, not open);
 * *mount the index of its mount in w->mount when it is a file on a FUSE or
 * network file system, else -1. */
int wait_fds_kind(struct wait_fds *w, pid_t tgid, int fd, int *mount);

/* The mount of a file whose super block's device is the kernel's dev
 * (major << 20 | minor, as an eBPF program reads s_dev), reading tgid's
 * mountinfo again when none is known: its index, or -1. */
int wait_fds_mount_of_dev(struct wait_fds *w, pid_t tgid, unsigned kdev);

/* What thread tid of tgid waits on in call (wait_call_fd's kind of set or
 * descriptor), from its arguments: the kinds of the descriptors, how many
 * there are, and the first FUSE or network mount among them (or -1). False
 * when they could not be read. */
bool wait_fds_of_call(struct wait_fds *w, pid_t tgid, long call, const unsigned long args[6],
		      unsigned *kinds, unsigned *nfds, int *mount);

/* A FUSE mount's daemon (looked for once, and again once it has exited):
 * its pid, or 0. */
pid_t wait_fds_daemon(struct wait_fds *w, int mount);

#endif
