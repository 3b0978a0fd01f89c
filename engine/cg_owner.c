// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Who made an iopsample cgroup; see cg_owner.h. */
#include "cg_owner.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfs.h"

static int pidns_of(const char *path, uint64_t *ino)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

int cg_owner_self(struct cg_owner *o)
{
	struct proc_stat st;
	o->pid = getpid();
	int r = procfs_read_stat(o->pid, &st);
	if (r < 0)
		return r;
	o->start = st.starttime;
	return pidns_of("/proc/self/ns/pid", &o->pidns);
}

int cg_owner_name(const struct cg_owner *o, const char *episode, char *buf, size_t len)
{
	int n = snprintf(buf, len, CG_OWNER_PREFIX "%s@%d-%" PRIu64 "-%" PRIu64, episode, (int)o->pid,
			 o->start, o->pidns);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A decimal number up to the end or to stop; NULL when there is none. */
static const char *number(const char *s, char stop, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return NULL;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end != stop)
		return NULL;
	*v = x;
	return stop ? end + 1 : end;
}

bool cg_owner_parse(const char *name, struct cg_owner *o)
{
	const char *at = strrchr(name, '@');
	uint64_t pid;
	if (strncmp(name, CG_OWNER_PREFIX, strlen(CG_OWNER_PREFIX)) || !at)
		return false;
	const char *p = number(at + 1, '-', &pid);
	if (!p || pid == 0 || pid > INT32_MAX || !(p = number(p, '-', &o->start)) ||
	    !number(p, '\0', &o->pidns))
		return false;
	o->pid = (pid_t)pid;
	return true;
}

bool cg_owner_gone(const struct cg_owner *o)
{
	uint64_t ours = 0;
	if (pidns_of("/proc/self/ns/pid", &ours) < 0 || ours != o->pidns)
		return false;
	struct proc_stat st;
	int r = procfs_read_stat(o->pid, &st);
	if (r == -ENOENT || r == -ESRCH)
		return true;
	if (r < 0)
		return false;
	return st.state == 'Z' || st.state == 'X' || st.starttime != o->start;
}
