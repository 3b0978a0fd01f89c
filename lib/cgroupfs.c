// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The host's cgroup hierarchies; see cgroupfs.h. */
#define _GNU_SOURCE
#include "cgroupfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

static const struct {
	const char *v1, *v2;
	unsigned bit;
} names[] = {
	{"cpu", "cpu", CG_CPU},        {"cpuacct", NULL, CG_CPUACCT}, {"memory", "memory", CG_MEMORY},
	{"blkio", "io", CG_IO},        {"pids", "pids", CG_PIDS},     {"cpuset", "cpuset", CG_CPUSET},
};

unsigned cgroupfs_controllers(const char *list, int version)
{
	unsigned bits = 0;
	const char *sep = version == 2 ? " \n" : ",\n";
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return 0;
	for (char *w = strtok_r(copy, sep, &save); w; w = strtok_r(NULL, sep, &save))
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			const char *n = version == 2 ? names[i].v2 : names[i].v1;
			if (n && !strcmp(w, n))
				bits |= names[i].bit;
		}
	free(copy);
	return bits;
}

const char *cgroupfs_controller_name(unsigned bit, int version)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].bit == bit)
			return version == 2 ? names[i].v2 : names[i].v1;
	return NULL;
}

/* One mountinfo line's fields: root, mount point, fstype, super options. */
static bool mount_fields(char *line, char **root, char **point, char **fstype, char **opts)
{
	char *f[6] = {0};
	char *save = NULL;
	int i = 0;
	for (char *w = strtok_r(line, " ", &save); w && i < 5; w = strtok_r(NULL, " ", &save))
		if (i < 5)
			f[i++] = w;
	if (i < 5)
		return false;
	*root = f[3];
	*point = f[4];
	char *dash = NULL;
	for (char *w = strtok_r(NULL, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!strcmp(w, "-")) {
			dash = w;
			break;
		}
	if (!dash)
		return false;
	*fstype = strtok_r(NULL, " ", &save);
	strtok_r(NULL, " ", &save); /* the source */
	*opts = strtok_r(NULL, " \n", &save);
	return *fstype && *opts;
}

/* Copies the line at *at into buf (cut to fit) and moves *at past it;
 * false at the end of the text. */
static bool next_line(const char **at, char *buf, size_t cap)
{
	const char *line = *at;
	if (!line || !*line)
		return false;
	const char *eol = strchrnul(line, '\n');
	size_t len = (size_t)(eol - line) < cap - 1 ? (size_t)(eol - line) : cap - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	*at = *eol ? eol + 1 : NULL;
	return true;
}

/* Where the process is in the hierarchy of this version and controller
 * bits (v1: the line listing exactly them), or NULL. */
static const char *self_in(const char *proc_cgroup, int version, unsigned bits, int *hier_id)
{
	static char path[512];
	const char *at = proc_cgroup;
	char buf[1024];
	while (next_line(&at, buf, sizeof(buf))) {
		char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c2) {
			*c1 = *c2 = '\0';
			bool v2 = !strcmp(buf, "0") && c1[1] == '\0';
			if ((version == 2 && v2) ||
			    (version == 1 && !v2 && cgroupfs_controllers(c1 + 1, 1) == bits)) {
				*hier_id = atoi(buf);
				snprintf(path, sizeof(path), "%s", c2 + 1);
				return path;
			}
		}
	}
	return NULL;
}

int cgroupfs_parse(const char *mountinfo, const char *proc_cgroup, struct cgroupfs *out)
{
	memset(out, 0, sizeof(*out));
	const char *at = mountinfo;
	char buf[2048];
	while (next_line(&at, buf, sizeof(buf))) {
		char *root, *point, *fstype, *opts;
		if (!mount_fields(buf, &root, &point, &fstype, &opts))
			continue;
		int version = !strcmp(fstype, "cgroup2") ? 2 : !strcmp(fstype, "cgroup") ? 1 : 0;
		if (!version || out->n == CGROUPFS_MAX)
			continue;
		unsigned bits = version == 1 ? cgroupfs_controllers(opts, 1) : 0;
		if (version == 1 && !bits)
			continue; /* name=systemd and the like: no counters */
		int hier_id = 0;
		const char *self = self_in(proc_cgroup, version, bits, &hier_id);
		if (!self)
			continue;
		/* a mount of a subtree shows the hierarchy from root on */
		size_t rl = strlen(root);
		if (strcmp(root, "/")) {
			if (strncmp(self, root, rl) || (self[rl] && self[rl] != '/'))
				continue;
			self += rl;
		}
		struct cgroupfs_hierarchy *h = &out->h[out->n++];
		h->version = version;
		h->controllers = bits;
		h->hier_id = hier_id;
		snprintf(h->mount, sizeof(h->mount), "%s", point);
		snprintf(h->self, sizeof(h->self), "%s", *self ? self : "/");
	}
	return 0;
}

int cgroupfs_path(const struct cgroupfs_hierarchy *h, const char *child, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "%s%s%s%s", h->mount, strcmp(h->self, "/") ? h->self : "",
			 child ? "/" : "", child ? child : "");
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int cgroupfs_read(pid_t pid, struct cgroupfs *out)
{
	char mountinfo[65536], cg[8192], path[64];
	ssize_t n = procfs_read("/proc/self/mountinfo", mountinfo, sizeof(mountinfo));
	if (n < 0)
		return (int)n;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	if ((n = procfs_read(path, cg, sizeof(cg))) < 0)
		return (int)n;
	int r = cgroupfs_parse(mountinfo, cg, out);
	/* v2: the controllers the process's own cgroup has, which its
	 * children may be given */
	for (size_t i = 0; r == 0 && i < out->n; i++) {
		struct cgroupfs_hierarchy *h = &out->h[i];
		char file[1024], list[256];
		if (h->version != 2 || cgroupfs_path(h, "cgroup.controllers", file, sizeof(file)) < 0)
			continue;
		if (procfs_read(file, list, sizeof(list)) >= 0)
			h->controllers = cgroupfs_controllers(list, 2);
	}
	return r;
}

const struct cgroupfs_hierarchy *cgroupfs_v2(const struct cgroupfs *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->h[i].version == 2)
			return &fs->h[i];
	return NULL;
}

const struct cgroupfs_hierarchy *cgroupfs_v1(const struct cgroupfs *fs, unsigned c)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->h[i].version == 1 && (fs->h[i].controllers & c))
			return &fs->h[i];
	return NULL;
}

unsigned cgroup_role_controller(enum cgroup_role r)
{
	static const unsigned bit[CGR_NROLES] = {
		[CGR_V2] = 0, [CGR_CPUACCT] = CG_CPUACCT, [CGR_CPU] = CG_CPU,
		[CGR_MEMORY] = CG_MEMORY, [CGR_BLKIO] = CG_IO, [CGR_PIDS] = CG_PIDS,
	};
	return bit[r];
}

int cgroup_set_open(const struct cgroup_set *cg, enum cgroup_role role, const char *name)
{
	if (!*cg->dir[role])
		return -1;
	char path[sizeof(cg->dir[role]) + 256];
	if (snprintf(path, sizeof(path), "%s/%s", cg->dir[role], name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_RDONLY | O_CLOEXEC);
}

int cgroup_set_open_members(const struct cgroup_set *cg, bool threads)
{
	if (!cg || !cg->owned)
		return -1;
	for (int r = 0; r < CGR_NROLES; r++) {
		const char *list = !threads ? "cgroup.procs" : r == CGR_V2 ? "cgroup.threads" : "tasks";
		int fd = cgroup_set_open(cg, r, list);
		if (fd >= 0)
			return fd;
	}
	return -1;
}
