/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The cgroup hierarchies of this host, as this process sees them.
 *
 * A pure cgroup v2 host mounts one hierarchy at /sys/fs/cgroup; a hybrid host
 * (systemd's default before 2021, this project's CI) mounts the v2 one at
 * /sys/fs/cgroup/unified, often with no controllers in it, beside one v1
 * hierarchy per controller group (cpu, cpuacct, memory, blkio, pids, ...);
 * a legacy host has only v1. /proc/self/mountinfo says which are mounted
 * where, /proc/PID/cgroup where a process is in each. The parsers take
 * buffers, so the tests feed them every host's shape. */
#ifndef IOPSAMPLE_CGROUPFS_H
#define IOPSAMPLE_CGROUPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CGROUPFS_MAX 16

/* The controllers iopsample reads, as bits. */
enum cgroupfs_controller {
	CG_CPU = 1 << 0,     /* v2 cpu.stat's throttling; v1 cpu.stat */
	CG_CPUACCT = 1 << 1, /* v1 only: cpuacct.usage* (v2's cpu.stat has them always) */
	CG_MEMORY = 1 << 2,
	CG_IO = 1 << 3, /* v2 io; v1 blkio */
	CG_PIDS = 1 << 4,
	CG_CPUSET = 1 << 5, /* the CPUs a cgroup's tasks may use */
};

struct cgroupfs_hierarchy {
	int version;          /* 1 or 2 */
	char mount[256];      /* where it is mounted */
	unsigned controllers; /* enum cgroupfs_controller bits it has (v2: enabled at its root) */
	int hier_id;          /* v1: the hierarchy's id in /proc/PID/cgroup; v2: 0 */
	char self[512];       /* the process's cgroup in it, from its root ("/a/b") */
};

struct cgroupfs {
	struct cgroupfs_hierarchy h[CGROUPFS_MAX];
	size_t n;
};

/* Parses mountinfo (the hierarchies mounted) and a /proc/PID/cgroup (where
 * the process is in each); a hierarchy mounted but not listed, or mounted
 * from a subtree (a container's view), is left out. 0 or -EINVAL. */
int cgroupfs_parse(const char *mountinfo, const char *proc_cgroup, struct cgroupfs *out);
/* The same for process pid (0: this process), from /proc. */
int cgroupfs_read(pid_t pid, struct cgroupfs *out);

/* The controller names v2's cgroup.controllers (or a v1 mount's options)
 * list, as bits. */
unsigned cgroupfs_controllers(const char *list, int version);
/* "cpu memory io ..." for the bits in c. */
const char *cgroupfs_controller_name(unsigned bit, int version);

/* The v2 hierarchy, or NULL; the v1 one that has controller bit c, or NULL. */
const struct cgroupfs_hierarchy *cgroupfs_v2(const struct cgroupfs *fs);
const struct cgroupfs_hierarchy *cgroupfs_v1(const struct cgroupfs *fs, unsigned c);

/* mount + self (+ "/" + child when child is not NULL), in buf. */
int cgroupfs_path(const struct cgroupfs_hierarchy *h, const char *child, char *buf, size_t cap);

/* The cgroups an episode's processes are in, one directory per role: the
 * v2 one, and the v1 ones of the controllers v2 does not give it. */
enum cgroup_role { CGR_V2, CGR_CPUACCT, CGR_CPU, CGR_MEMORY, CGR_BLKIO, CGR_PIDS, CGR_NROLES };

struct cgroup_set {
	char dir[CGR_NROLES][512]; /* "" when it has none of that role */
	unsigned v2_controllers;   /* enabled in the v2 directory */
	bool owned;                /* made for the episode (else an attached process's own) */
	char why[256];             /* when it has none at all: why */
};

/* The v1 controller bit a role stands for (CGR_V2: 0). */
unsigned cgroup_role_controller(enum cgroup_role r);

/* The file name in the set's directory of role, opened read-only; -1 when
 * the set has no such directory or the file does not open. */
int cgroup_set_open(const struct cgroup_set *cg, enum cgroup_role role, const char *name);

/* The episode's own cgroup's list of its processes (cgroup.procs), or with
 * threads of its threads (v2's cgroup.threads, else a v1 tasks), opened
 * from the first directory that has one; -1 when the set is not the
 * episode's own (an attached target's cgroup holds more than its tree) or
 * none opens. */
int cgroup_set_open_members(const struct cgroup_set *cg, bool threads);

#endif
