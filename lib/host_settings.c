// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Sysctl changes for an episode's duration; the design is in host_settings.h. */
#define _GNU_SOURCE
#include "host_settings.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdutil.h"
#include "procfs.h"

#define HOSTSET_PARENT "/run"
#define HOSTSET_DIR HOSTSET_PARENT "/iopsample"
#define MAX_CHANGES 4

struct change {
	char name[64], by[32];
	char found[32], want[32];
	char original[32]; /* what the last holder puts back; "" for nothing */
	const char *action; /* none, set, held, taken_over, failed */
	char error[sizeof(((struct errbuf *)0)->msg)];
	int state_fd, hold_fd; /* -1 when the episode holds nothing */
	int guard_fd;          /* the guardian's pipe, -1 once it was told */
	pid_t guard_pid;
	int restored; /* -1: nothing to put back (yet), 0: left to another holder, 1: put back */
};

static struct change changes[MAX_CHANGES];
static size_t nchanges;

static void sysctl_path(const char *name, char *path, size_t cap)
{
	snprintf(path, cap, "/proc/sys/%s", name);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

static int sysctl_read(const char *name, char *val, size_t cap)
{
	char path[128];
	sysctl_path(name, path, sizeof(path));
	ssize_t n = procfs_read(path, val, cap);
	if (n < 0)
		return (int)n;
	trim(val);
	return 0;
}

static int sysctl_write(const char *name, const char *val)
{
	char path[128];
	sysctl_path(name, path, sizeof(path));
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, val, strlen(val)) < 0 ? -errno : 0;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* The state file's content: the value to put back, "" for none. */
static void state_read(int fd, char *val, size_t cap)
{
	ssize_t n = pread(fd, val, cap - 1, 0);
	val[n > 0 ? n : 0] = '\0';
	trim(val);
}

static int state_write(int fd, const char *val)
{
	if (ftruncate(fd, 0) < 0 || pwrite(fd, val, strlen(val), 0) != (ssize_t)strlen(val))
		return -errno;
	return 0;
}

/* Opens the setting's state file, locked exclusively, and its holders file:
 * 0, or -errno when /run/iopsample is out of reach (not root). /run itself
 * is made where the system has none (a minimal initramfs, a container). */
static int open_state(struct change *c)
{
	char path[128];
	if ((mkdir(HOSTSET_PARENT, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(HOSTSET_DIR, 0755) < 0 && errno != EEXIST))
		return -errno;
	snprintf(path, sizeof(path), HOSTSET_DIR "/%s.state", c->name);
	c->state_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	snprintf(path, sizeof(path), HOSTSET_DIR "/%s.holders", c->name);
	c->hold_fd = c->state_fd < 0 ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int r = c->hold_fd < 0 ? -errno : 0;
	while (r == 0 && flock(c->state_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			r = -errno;
	return r;
}

/* Unlocks explicitly: the guardian shares these open files, and a lock
 * lasts until every copy is closed. */
static void close_state(struct change *c)
{
	if (c->hold_fd >= 0) {
		flock(c->hold_fd, LOCK_UN);
		close(c->hold_fd);
	}
	if (c->state_fd >= 0) {
		flock(c->state_fd, LOCK_UN);
		close(c->state_fd);
	}
	c->state_fd = c->hold_fd = -1;
}

/* Puts c back if this episode is its last holder. */
static void restore(struct change *c)
{
	if (c->hold_fd < 0)
		return;
	while (flock(c->state_fd, LOCK_EX) < 0 && errno == EINTR)
		;
	c->restored = 0;
	if (flock(c->hold_fd, LOCK_EX | LOCK_NB) == 0) {
		char recorded[32], now[32];
		state_read(c->state_fd, recorded, sizeof(recorded));
		/* someone who set it to a third value since then has the last word */
		if (*recorded && sysctl_read(c->name, now, sizeof(now)) == 0 && !strcmp(now, c->want))
			c->restored = sysctl_write(c->name, recorded) == 0;
		state_write(c->state_fd, "");
	}
	close_state(c);
}

static void __attribute__((noreturn)) guardian(struct change *c, int pipe_fd)
{
	int keep[] = {pipe_fd, c->state_fd, c->hold_fd};
	if (fd_keep_only(keep, 3) < 0)
		_exit(1);
	c->state_fd = keep[1];
	c->hold_fd = keep[2];
	prctl(PR_SET_NAME, "iops-restore");
	/* A session of its own: a kill of iopsample's process group (a CI
	 * job's timeout, kill -9 -PGID) or its terminal's hang-up must leave
	 * the one process that puts the setting back. */
	setsid();
	signal(SIGINT, SIG_IGN); /* a Ctrl-C is the supervisor's to handle */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	char done;
	ssize_t n;
	while ((n = read(keep[0], &done, 1)) < 0 && errno == EINTR)
		;
	if (n != 1) /* the supervisor died without restoring */
		restore(c);
	_exit(0);
}

static int start_guardian(struct change *c)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	c->guard_pid = fork();
	if (c->guard_pid < 0) {
		int err = errno;
		close(p[0]);
		close(p[1]);
		return -err;
	}
	if (c->guard_pid == 0)
		guardian(c, p[0]);
	close(p[0]);
	c->guard_fd = p[1];
	return 0;
}

/* Decides with the state locked: 0 when the setting reads c->want and c
 * holds it if an episode changed it, -errno otherwise. */
static int take(struct change *c, struct errbuf *why)
{
	char recorded[32];
	state_read(c->state_fd, recorded, sizeof(recorded));
	bool alone = flock(c->hold_fd, LOCK_EX | LOCK_NB) == 0;
	bool wanted = !strcmp(c->found, c->want);
	if (!alone) { /* another running episode holds its change */
		snprintf(c->original, sizeof(c->original), "%s", recorded);
		c->action = "held";
	} else if (*recorded && wanted) { /* left by one that could not restore */
		snprintf(c->original, sizeof(c->original), "%s", recorded);
		c->action = "taken_over";
	} else if (wanted) {
		c->action = "none";
		state_write(c->state_fd, "");
		close_state(c);
		return 0;
	} else {
		memcpy(c->original, c->found, sizeof(c->original));
		c->action = "set";
	}
	int r;
	if (!wanted && (r = sysctl_write(c->name, c->want)) < 0)
		return errbuf_set(why, -r, "%s is %s and cannot be set to %s: %s", c->name, c->found,
				  c->want, strerror(-r));
	if (alone && (r = state_write(c->state_fd, c->original)) < 0) {
		sysctl_write(c->name, c->found);
		return errbuf_set(why, -r, HOSTSET_DIR "/%s.state: %s", c->name, strerror(-r));
	}
	while (flock(c->hold_fd, LOCK_SH) < 0)
		if (errno != EINTR)
			return errbuf_set(why, errno, "flock: %s", strerror(errno));
	flock(c->state_fd, LOCK_UN);
	if ((r = start_guardian(c)) < 0) {
		restore(c);
		return errbuf_set(why, -r, "fork: %s", strerror(-r));
	}
	return 0;
}

int host_settings_sysctl(const char *name, const char *want, const char *by, struct errbuf *why)
{
	if (nchanges == MAX_CHANGES)
		return errbuf_set(why, ENOSPC, "too many host settings");
	struct change *c = &changes[nchanges++];
	*c = (struct change){.state_fd = -1, .hold_fd = -1, .guard_fd = -1, .restored = -1};
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->by, sizeof(c->by), "%s", by);
	snprintf(c->want, sizeof(c->want), "%s", want);

	int r = sysctl_read(name, c->found, sizeof(c->found));
	if (r < 0) {
		r = errbuf_set(why, -r, "%s: %s", name, strerror(-r));
	} else if ((r = open_state(c)) < 0) {
		/* Without /run/iopsample nothing can be put back safely, and
		 * whoever cannot write there cannot write the setting either. */
		char path[128];
		sysctl_path(name, path, sizeof(path));
		close_state(c);
		c->action = "none";
		if (strcmp(c->found, want) && access(path, W_OK) < 0)
			r = errbuf_set(why, errno, "%s is %s and cannot be set to %s: %s: %s", name,
				       c->found, want, path, strerror(errno));
		else if (strcmp(c->found, want))
			r = errbuf_set(why, -r, "%s is %s and cannot be set to %s safely: " HOSTSET_DIR ": %s",
				       name, c->found, want, strerror(-r));
		else
			r = 0;
	} else if ((r = take(c, why)) < 0) {
		close_state(c);
	}
	if (r < 0) {
		c->action = "failed";
		snprintf(c->error, sizeof(c->error), "%s", why->msg);
	}
	return r;
}

json_t *host_settings_json(void)
{
	json_t *all = json_array();
	for (size_t i = 0; i < nchanges; i++) {
		const struct change *c = &changes[i];
		json_array_append_new(
			all, json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "setting", c->name, "source",
				       c->by, "found", c->found, "wanted", c->want, "action", c->action,
				       "restored", c->restored < 0 ? json_null() : json_boolean(c->restored),
				       "error", *c->error ? json_string(c->error) : json_null()));
	}
	return all;
}

void host_settings_restore(void)
{
	for (size_t i = 0; i < nchanges; i++) {
		struct change *c = &changes[i];
		restore(c);
		if (c->guard_fd < 0)
			continue;
		write_all(c->guard_fd, "r", 1);
		close(c->guard_fd);
		c->guard_fd = -1;
		waitpid(c->guard_pid, NULL, 0);
	}
}
