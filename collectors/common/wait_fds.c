// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* wait_fds.h: descriptors, their kinds and their mounts, from /proc. */
#define _GNU_SOURCE
#include "common/wait_fds.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "procfs.h"
#include "procfs_files.h"

/* The most descriptors of one set looked at: a poll of more is judged by
 * its first so many. */
#define SET_MAX 256

void wait_fds_init(struct wait_fds *w)
{
	memset(w, 0, sizeof(*w));
}

static void mount_free(struct wait_mount *m)
{
	free(m->point);
	free(m->fstype);
	free(m->source);
	free(m->options);
}

void wait_fds_free(struct wait_fds *w)
{
	for (size_t i = 0; i < w->nmount; i++)
		mount_free(&w->mount[i]);
	free(w->mount);
	pidmap_free(&w->sockets);
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* ---- mounts -------------------------------------------------------------- */

/* The file systems whose files wait on a server: the kernel's network
 * file systems, and the cluster ones that are clients of one. */
static const char *const remote_types[] = {
	"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "afs", "lustre", "gpfs", "beegfs",
	"glusterfs", "orangefs", "pvfs2", "ncpfs", "coda", NULL,
};

static enum wait_fd_kind fstype_kind(const char *type)
{
	/* "fuse", "fuseblk", "fuse.sshfs"; virtiofs speaks FUSE to its host;
	 * not "fusectl", FUSE's control file system */
	if (!strcmp(type, "fuse") || !strcmp(type, "fuseblk") || !strncmp(type, "fuse.", 5) ||
	    !strcmp(type, "virtiofs"))
		return WFD_FUSE;
	for (const char *const *r = remote_types; *r; r++)
		if (!strcmp(type, *r))
			return WFD_REMOTE;
	return WFD_FILE;
}

static int find_mount(const struct wait_fds *w, int mnt_id)
{
	for (size_t i = 0; i < w->nmount; i++)
		if (w->mount[i].mnt_id == mnt_id)
			return (int)i;
	return -1;
}

/* One line of /proc/PID/mountinfo:
 * "36 35 98:0 /root /point opts [optional...] - fstype source superopts". */
static int add_mount_line(struct wait_fds *w, char *line)
{
	int id;
	if (sscanf(line, "%d", &id) != 1 || find_mount(w, id) >= 0)
		return 0;
	char *field[5] = {0};
	char *save = NULL, *tok = strtok_r(line, " ", &save);
	for (int i = 0; tok && i < 5; i++, tok = strtok_r(NULL, " ", &save))
		field[i] = tok;
	while (tok && strcmp(tok, "-"))
		tok = strtok_r(NULL, " ", &save);
	char *type = tok ? strtok_r(NULL, " ", &save) : NULL;
	char *source = type ? strtok_r(NULL, " ", &save) : NULL;
	char *options = source ? strtok_r(NULL, " ", &save) : NULL;
	if (!field[4] || !type)
		return 0;
	if (w->nmount == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct wait_mount *m = reallocarray(w->mount, cap, sizeof(*m));
		if (!m)
			return -ENOMEM;
		w->mount = m;
		w->cap = cap;
	}
	procfs_unescape(field[4]);
	unsigned major = 0, minor = 0;
	sscanf(field[2], "%u:%u", &major, &minor);
	struct wait_mount m = {.mnt_id = id, .major = major, .minor = minor, .point = strdup(field[4]), .fstype = strdup(type),
			       .source = strdup(source ? source : ""), .options = strdup(options ? options : ""),
			       .kind = fstype_kind(type)};
	if (!m.point || !m.fstype || !m.source || !m.options) {
		mount_free(&m);
		return -ENOMEM;
	}
	procfs_unescape(m.source);
	w->mount[w->nmount++] = m;
	return 0;
}

int wait_fds_load_mounts(struct wait_fds *w, pid_t tgid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)tgid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = procfs_pread_all(fd, &w->buf, &w->buf_cap);
	close(fd);
	if (n < 0)
		return (int)n;
	for (char *line = w->buf, *end; line && *line; line = end) {
		end = strchr(line, '\n');
		if (end)
			*end++ = '\0';
		int r = add_mount_line(w, line);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The mount mnt_id as process tgid sees it, reading its mountinfo again
 * when the mount is new: its index, or -1. */
static int mount_of(struct wait_fds *w, pid_t tgid, int mnt_id)
{
	int i = find_mount(w, mnt_id);
	if (i >= 0 || mnt_id < 0 || wait_fds_load_mounts(w, tgid) < 0)
		return i;
	return find_mount(w, mnt_id);
}

static int find_dev(const struct wait_fds *w, unsigned kdev)
{
	/* the last one mounted: what a path reaches where one is over another */
	for (size_t i = w->nmount; i-- > 0;)
		if (w->mount[i].major == kdev >> 20 && w->mount[i].minor == (kdev & 0xfffff))
			return (int)i;
	return -1;
}

int wait_fds_mount_of_dev(struct wait_fds *w, pid_t tgid, unsigned kdev)
{
	int i = find_dev(w, kdev);
	if (i >= 0 || wait_fds_load_mounts(w, tgid) < 0)
		return i;
	return find_dev(w, kdev);
}

/* ---- one descriptor -------------------------------------------------------- */

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* A socket's family, asked of a duplicate of tgid's descriptor: AF_*, or
 * -1 when it cannot be (Linux before 5.6, not allowed to ptrace it). */
static int socket_family(pid_t tgid, int fd)
{
	int family = -1;
#ifdef SYS_pidfd_getfd
	int pidfd = pidfd_open_(tgid);
	if (pidfd < 0)
		return -1;
	int dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	if (dup < 0)
		return -1;
	socklen_t len = sizeof(family);
	if (getsockopt(dup, SOL_SOCKET, SO_DOMAIN, &family, &len) < 0)
		family = -1;
	close(dup);
#else
	(void)tgid;
	(void)fd;
#endif
	return family;
}

/* Whether socket inode ino is in /proc/TGID/net/unix: one of its local
 * sockets (the column Inode, the 7th). */
static bool unix_socket(struct wait_fds *w, pid_t tgid, unsigned long ino)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/net/unix", (int)tgid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = procfs_pread_all(fd, &w->buf, &w->buf_cap);
	close(fd);
	for (char *line = n > 0 ? strchr(w->buf, '\n') : NULL; line && *line; line = strchr(line + 1, '\n')) {
		unsigned long inode;
		if (sscanf(line + 1, "%*s %*s %*s %*s %*s %*s %lu", &inode) == 1 && inode == ino)
			return true;
	}
	return false;
}

static enum wait_fd_kind socket_kind(struct wait_fds *w, pid_t tgid, int fd, unsigned long ino)
{
	int64_t *known = pidmap_get(&w->sockets, (pid_t)(uint32_t)ino);
	if (known)
		return (enum wait_fd_kind)(*known - 1);
	int family = socket_family(tgid, fd);
	enum wait_fd_kind kind;
	if (family == AF_INET || family == AF_INET6)
		kind = WFD_INET;
	else if (family >= 0)
		kind = WFD_LOCAL_SOCKET;
	else /* unknown: a socket not of the local ones is taken for the network */
		kind = unix_socket(w, tgid, ino) ? WFD_LOCAL_SOCKET : WFD_INET;
	if (family >= 0) /* the fallback's answer is not kept: it may learn better */
		pidmap_add(&w->sockets, (pid_t)(uint32_t)ino, kind + 1);
	return kind;
}

/* /proc/TGID/fdinfo/N's mnt_id, or -1. */
static int fd_mnt_id(struct wait_fds *w, pid_t tgid, int fd)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tgid, fd);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	ssize_t n = procfs_pread_all(f, &w->buf, &w->buf_cap);
	close(f);
	const char *at = n > 0 ? strstr(w->buf, "mnt_id:") : NULL;
	return at ? atoi(at + 7) : -1;
}

int wait_fds_kind(struct wait_fds *w, pid_t tgid, int fd, int *mount)
{
	char path[64], link[512];
	*mount = -1;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tgid, fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	unsigned long ino;
	if (sscanf(link, "socket:[%lu]", &ino) == 1)
		return socket_kind(w, tgid, fd, ino);
	if (!strncmp(link, "pipe:", 5))
		return WFD_PIPE;
	if (link[0] != '/') /* anon_inode:[eventfd], [eventpoll], [timerfd], ... */
		return WFD_OTHER;
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISFIFO(st.st_mode))
			return WFD_PIPE;
		if (S_ISCHR(st.st_mode))
			return WFD_OTHER;
		if (S_ISSOCK(st.st_mode))
			return WFD_LOCAL_SOCKET;
	}
	int i = mount_of(w, tgid, fd_mnt_id(w, tgid, fd));
	if (i < 0)
		return WFD_FILE;
	if (w->mount[i].kind != WFD_FILE)
		*mount = i;
	return (int)w->mount[i].kind;
}

/* ---- sets ------------------------------------------------------------------ */

static ssize_t read_memory(pid_t pid, unsigned long at, void *buf, size_t len)
{
	struct iovec local = {.iov_base = buf, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)at, .iov_len = len};
	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* The descriptors of an epoll set: /proc/TGID/fdinfo/EPFD's "tfd: N" lines. */
static size_t epoll_fds(struct wait_fds *w, pid_t tgid, int epfd, int *fds, size_t max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tgid, epfd);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	ssize_t n = procfs_pread_all(f, &w->buf, &w->buf_cap);
	close(f);
	size_t k = 0;
	for (const char *at = n > 0 ? strstr(w->buf, "tfd:") : NULL; at && k < max; at = strstr(at + 4, "tfd:"))
		fds[k++] = atoi(at + 4);
	return k;
}

static size_t poll_fds(pid_t pid, unsigned long at, unsigned long nfds, int *fds, size_t max, bool *ok)
{
	struct pollfd p[SET_MAX];
	size_t n = nfds < max ? nfds : max;
	*ok = n == 0 || read_memory(pid, at, p, n * sizeof(*p)) == (ssize_t)(n * sizeof(*p));
	size_t k = 0;
	for (size_t i = 0; *ok && i < n; i++)
		if (p[i].fd >= 0)
			fds[k++] = p[i].fd;
	return k;
}

/* select's three sets of its first nfds descriptors, merged. */
static size_t select_fds(pid_t pid, const unsigned long args[6], int *fds, size_t max, bool *ok)
{
	unsigned long nfds = args[0] < SET_MAX ? args[0] : SET_MAX;
	uint8_t set[3][SET_MAX / 8] = {{0}};
	size_t bytes = (nfds + 7) / 8;
	*ok = true;
	for (int s = 0; s < 3; s++)
		if (args[1 + s] && bytes && read_memory(pid, args[1 + s], set[s], bytes) != (ssize_t)bytes)
			*ok = false;
	size_t k = 0;
	for (unsigned long fd = 0; *ok && fd < nfds && k < max; fd++)
		if ((set[0][fd / 8] | set[1][fd / 8] | set[2][fd / 8]) & (1u << (fd % 8)))
			fds[k++] = (int)fd;
	return k;
}

bool wait_fds_of_call(struct wait_fds *w, pid_t tgid, long call, const unsigned long args[6],
		      unsigned *kinds, unsigned *nfds, int *mount)
{
	int fd_arg;
	enum wait_set set;
	*kinds = 0;
	*nfds = 0;
	*mount = -1;
	if (!wait_call_fd(call, &fd_arg, &set))
		return false;
	int fds[SET_MAX];
	size_t n = 0;
	bool ok = true;
	switch (set) {
	case WAIT_SET_NONE:
		fds[n++] = (int)args[fd_arg];
		break;
	case WAIT_SET_POLL:
		n = poll_fds(tgid, args[0], args[1], fds, SET_MAX, &ok);
		break;
	case WAIT_SET_SELECT:
		n = select_fds(tgid, args, fds, SET_MAX, &ok);
		break;
	case WAIT_SET_EPOLL:
		n = epoll_fds(w, tgid, (int)args[0], fds, SET_MAX);
		break;
	}
	if (!ok)
		return false;
	for (size_t i = 0; i < n; i++) {
		int m, k = wait_fds_kind(w, tgid, fds[i], &m);
		if (k < 0)
			continue;
		*kinds |= WFD_BIT(k);
		(*nfds)++;
		if (m >= 0 && *mount < 0)
			*mount = m;
	}
	return true;
}

/* ---- a FUSE mount's daemon ---------------------------------------------------- */

static bool holds_dev_fuse(pid_t pid)
{
	char path[64], link[32];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	bool found = false;
	for (struct dirent *e; !found && (e = readdir(d));) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = !strcmp(link, "/dev/fuse");
		}
	}
	closedir(d);
	return found;
}

/* Whether pid's command line has point as one of its arguments. */
static bool names_point(struct wait_fds *w, pid_t pid, const char *point)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return false;
	ssize_t n = procfs_pread_all(f, &w->buf, &w->buf_cap);
	close(f);
	size_t plen = strlen(point);
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(w->buf + i) + 1) {
		const char *arg = w->buf + i;
		size_t alen = strlen(arg);
		/* the point, or its name relative to where the daemon started */
		if (alen && alen <= plen && !strcmp(point + plen - alen, arg) &&
		    (alen == plen || point[plen - alen - 1] == '/'))
			return true;
	}
	return false;
}

static bool alive(pid_t pid)
{
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return access(path, F_OK) == 0;
}

pid_t wait_fds_daemon(struct wait_fds *w, int mount)
{
	if (mount < 0 || (size_t)mount >= w->nmount || w->mount[mount].kind != WFD_FUSE)
		return 0;
	struct wait_mount *m = &w->mount[mount];
	if (m->daemon_looked && (m->daemon == 0 || alive(m->daemon)))
		return m->daemon;
	m->daemon_looked = true;
	m->daemon = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	pid_t only = 0, named = 0;
	int holders = 0, naming = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(e->d_name);
		if (!holds_dev_fuse(pid))
			continue;
		holders++;
		only = pid;
		if (names_point(w, pid, m->point)) {
			naming++;
			named = pid;
		}
	}
	closedir(d);
	m->daemon = holders == 1 ? only : naming == 1 ? named : 0;
	if (m->daemon) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)m->daemon);
		ssize_t n = procfs_read(path, m->daemon_comm, sizeof(m->daemon_comm));
		if (n > 0 && m->daemon_comm[n - 1] == '\n')
			m->daemon_comm[n - 1] = '\0';
	}
	return m->daemon;
}
