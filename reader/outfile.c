// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The file a command writes for `-o PATH`, as the kind of thing PATH names:
 * see outfile.h. Only a regular file is ever replaced; everything else is
 * opened as `cat > PATH` would open it, without O_CREAT or O_TRUNC. */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>

/* The kernel's own bound on the links one name may pass through
 * (MAXSYMLINKS, include/linux/namei.h): past it, open(2) says ELOOP. */
#define OUTFILE_MAX_LINKS 40

static void outfile_free(struct outfile *o)
{
	free(o->path);
	free(o->target);
	free(o->tmp);
	*o = (struct outfile){0};
}

/* Says why PATH cannot be written: "PATH: why", and where PATH is a link,
 * the name it ends at too ("out -> /gone/x: No such file or directory"). */
static int outfile_fail(const struct outfile *o, int err, struct errbuf *e)
{
	if (o->target && strcmp(o->target, o->path))
		return errbuf_set(e, err, "%s -> %s: %s", o->path, o->target, strerror(err));
	return errbuf_set(e, err, "%s: %s", o->path, strerror(err));
}

/* The folder NAME is in ("." for a bare name): malloc'd, or NULL. */
static char *folder_of(const char *name)
{
	const char *slash = strrchr(name, '/');
	if (!slash)
		return strdup(".");
	return slash == name ? strdup("/") : strndup(name, (size_t)(slash - name));
}

static const char *base_of(const char *name)
{
	const char *slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

/* What link points at, as a name to look up next: an absolute target as it
 * is, a relative one from the link's folder. malloc'd, or NULL with errno. */
static char *link_target(const char *link)
{
	char to[PATH_MAX];
	ssize_t n = readlink(link, to, sizeof(to) - 1);
	if (n < 0)
		return NULL;
	to[n] = '\0';
	if (to[0] == '/')
		return strdup(to);
	char *dir = folder_of(link), *next = NULL;
	if (dir && asprintf(&next, "%s/%s", dir, to) < 0)
		next = NULL;
	free(dir);
	if (!next)
		errno = ENOMEM;
	return next;
}

static bool on_procfs(const char *name)
{
	char *dir = folder_of(name);
	struct statfs sf;
	bool proc = dir && statfs(dir, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
	free(dir);
	return proc;
}

/* Follows the links PATH ends in, as open(2) would, to the name it would
 * open (*out, malloc'd) and that name's lstat (*st; st_mode 0 where nothing
 * is there yet). *proc is set when the last link is one of /proc's (a
 * /proc/PID/fd entry, which /dev/stdout ends at): such a link stands for an
 * open file, not for a name, and is opened as it is. */
static int follow_links(const char *path, char **out, struct stat *st, bool *proc,
			struct errbuf *e)
{
	char *cur = strdup(path);
	*proc = false;
	for (int hops = 0; cur; hops++) {
		if (lstat(cur, st) < 0) {
			if (errno != ENOENT)
				break;
			st->st_mode = 0;
			*out = cur;
			return 0;
		}
		if (!S_ISLNK(st->st_mode) || (*proc = on_procfs(cur))) {
			*out = cur;
			return 0;
		}
		if (hops == OUTFILE_MAX_LINKS) {
			errno = ELOOP;
			break;
		}
		char *next = link_target(cur);
		free(cur);
		cur = next;
	}
	int err = cur ? errno : ENOMEM;
	free(cur);
	return errbuf_set(e, err, "%s: %s", path, strerror(err));
}

/* The descriptor a /proc fd link names when it is this process's own
 * (/proc/self/fd/N, /dev/fd/N, /dev/stdout): N, shared as the shell gave
 * it (its offset, O_APPEND, a socket). -1 for another process's. */
static int own_fd(const char *link)
{
	char *dir = folder_of(link), *real = dir ? realpath(dir, NULL) : NULL;
	char mine[64], thread[96];
	snprintf(mine, sizeof(mine), "/proc/%d/fd", (int)getpid());
	snprintf(thread, sizeof(thread), "/proc/%d/task/%d/fd", (int)getpid(), (int)gettid());
	int fd = -1;
	if (real && (!strcmp(real, mine) || !strcmp(real, thread))) {
		char *end;
		long n = strtol(base_of(link), &end, 10);
		if (end != base_of(link) && !*end && n >= 0 && n <= INT_MAX)
			fd = (int)n;
	}
	free(dir);
	free(real);
	return fd;
}

/* A stream connection to the UNIX socket bound at name (open(2) cannot
 * open one: ENXIO), as `socat - UNIX-CONNECT:name` writes to it. */
static int connect_socket(const char *name)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(name) >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a.sun_path, name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int err = errno;
		close(fd);
		errno = err;
		fd = -1;
	}
	return fd;
}

/* A device, a FIFO, a socket or an open file of /proc's, written through. */
static int open_through(struct outfile *o, const char *name, const struct stat *st, bool proc,
			struct errbuf *e)
{
	int own = proc ? own_fd(name) : -1, fd;
	if (own >= 0) {
		int fl = fcntl(own, F_GETFL);
		if (fl >= 0 && (fl & O_ACCMODE) == O_RDONLY)
			return errbuf_set(e, EBADF, "%s: descriptor %d is open for reading only",
					  o->path, own);
		fd = fcntl(own, F_DUPFD_CLOEXEC, 3);
	} else if (!proc && S_ISSOCK(st->st_mode)) {
		fd = connect_socket(name);
	} else {
		fd = open(name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	}
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return outfile_fail(o, err, e);
	}
	o->kind = OUTFILE_THROUGH;
	return 0;
}

/* The regular file o->target, where its folder takes no new file: its own
 * bytes rewritten from the start, cut to the output's length at commit. */
static int open_in_place(struct outfile *o, int folder_err, struct errbuf *e)
{
	int fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return outfile_fail(o, folder_err, e);
	}
	o->kind = OUTFILE_IN_PLACE;
	return 0;
}

/* The regular file o->target (st: its lstat; NULL when there is none yet),
 * replaced at commit by a temporary file beside it that has its mode and,
 * where the process may give it, its owner and group. */
static int open_replacement(struct outfile *o, const struct stat *st, struct errbuf *e)
{
	if (st && faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS) < 0)
		return outfile_fail(o, errno, e);
	char *dir = folder_of(o->target);
	if (!dir || asprintf(&o->tmp, "%s/.%s.XXXXXX", dir, base_of(o->target)) < 0) {
		free(dir);
		o->tmp = NULL;
		return errbuf_set(e, ENOMEM, "out of memory");
	}
	free(dir);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		free(o->tmp);
		o->tmp = NULL;
		if (st && (err == EACCES || err == EPERM))
			return open_in_place(o, err, e);
		return outfile_fail(o, err, e);
	}
	mode_t mode;
	if (st) {
		/* owner first: a chown clears the set-id bits the chmod puts back */
		if ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
		    fchown(fd, st->st_uid, st->st_gid) < 0 && fchown(fd, (uid_t)-1, st->st_gid) < 0) {
			/* not ours to give: the file becomes the writer's, as cp's would */
		}
		mode = st->st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		unlink(o->tmp);
		return errbuf_set(e, err, "%s: %s", o->tmp, strerror(err));
	}
	o->kind = OUTFILE_REPLACE;
	return 0;
}

int outfile_open(struct outfile *o, const char *path, struct errbuf *e)
{
	*o = (struct outfile){0};
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->kind = OUTFILE_STDOUT;
		return 0;
	}
	if (!(o->path = strdup(path)))
		return errbuf_set(e, ENOMEM, "out of memory");
	struct stat st;
	bool proc;
	int r = follow_links(path, &o->target, &st, &proc, e);
	if (r < 0) {
		/* nothing to do */
	} else if (S_ISDIR(st.st_mode)) {
		r = outfile_fail(o, EISDIR, e);
	} else if (S_ISREG(st.st_mode) && !proc) {
		r = open_replacement(o, &st, e);
	} else if (st.st_mode == 0) {
		r = open_replacement(o, NULL, e);
	} else {
		r = open_through(o, o->target, &st, proc, e);
	}
	if (r < 0) {
		outfile_free(o);
		return r;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	return 0;
}

/* Syncs the folder a rename changed, so that the new name survives a crash
 * as the file's bytes do (fsync(2): "also needed on the directory"). */
static int sync_folder(const char *name)
{
	char *dir = folder_of(name);
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	free(dir);
	if (fd < 0)
		return 0; /* a folder we may not open: the rename stands */
	int r = fsync(fd) < 0 && errno != EINVAL ? -errno : 0;
	close(fd);
	return r;
}

int outfile_commit(struct outfile *o, struct errbuf *e)
{
	int err = 0;
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? errno : EIO;
	if (o->kind == OUTFILE_IN_PLACE && !err) {
		off_t len = ftello(o->f);
		if (len < 0 || ftruncate(fileno(o->f), len) < 0 || fsync(fileno(o->f)) < 0)
			err = errno;
	}
	if (o->kind == OUTFILE_REPLACE && !err && fsync(fileno(o->f)) < 0)
		err = errno;
	if (o->kind != OUTFILE_STDOUT && fclose(o->f) != 0 && !err)
		err = errno;
	if (o->kind == OUTFILE_REPLACE) {
		if (!err && rename(o->tmp, o->target) < 0)
			err = errno;
		if (err)
			unlink(o->tmp);
		else
			err = -sync_folder(o->target);
	}
	if (err && o->kind == OUTFILE_STDOUT)
		errbuf_set(e, err, "stdout: %s", strerror(err));
	else if (err)
		outfile_fail(o, err, e);
	outfile_free(o);
	return -err;
}

void outfile_abort(struct outfile *o)
{
	if (o->kind == OUTFILE_STDOUT)
		fflush(o->f);
	else
		fclose(o->f);
	if (o->kind == OUTFILE_REPLACE)
		unlink(o->tmp);
	outfile_free(o);
}
