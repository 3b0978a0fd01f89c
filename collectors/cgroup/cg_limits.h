/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What bounds the tree's CPU from outside its own cgroup, for the verdict's
 * "whose doing is a wait for a CPU" (docs/data-model.md, "The rules"):
 *
 *   - the CPUs it may run on: the target's affinity (what `taskset` sets,
 *     inherited by its children) within its cpuset's effective CPUs
 *     (v2 cpuset.cpus.effective, v1 cpuset.effective_cpus);
 *   - the CPU quotas of the episode cgroup's ancestors (v2 cpu.max up the
 *     tree, v1 cpu.cfs_quota_us: a container's, a Slurm job's, a systemd
 *     slice's), whose throttling stops every thread of the tree.
 *
 * Read by the cgroup source each tick: an affinity call and a few small
 * files. */
#ifndef IOPSAMPLE_CG_LIMITS_H
#define IOPSAMPLE_CG_LIMITS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroupfs.h"

#define CG_LIMITS_QUOTAS 8

struct cg_quota {
	char dir[512];  /* the ancestor cgroup */
	double cpus;    /* its quota over its period: the CPUs' worth it may run */
	int stat_fd;    /* its cpu.stat */
	int version;
	uint64_t throttled; /* ns, at the last read */
};

struct cg_limits {
	pid_t target;
	char cpuset_file[640]; /* the target's cpuset's effective CPUs; "" when none */
	int cpus;              /* the CPUs the tree may use, at the last read; 0 unknown */
	char list[256];        /* ... as a CPU list */
	struct cg_quota q[CG_LIMITS_QUOTAS];
	size_t nq;
};

/* The quotas above the episode's cgroups in set, and the target's CPUs as
 * they are now. 0 (what cannot be read is left out). */
int cg_limits_open(struct cg_limits *l, const struct cgroup_set *set, pid_t target);
void cg_limits_close(struct cg_limits *l);

/* The tree's CPUs again: true when their number or list changed. */
bool cg_limits_cpus(struct cg_limits *l);

/* The most any quota ancestor was throttled since the last call, ns (its
 * cpu.stat's throttled time); false when no ancestor has a quota. */
bool cg_limits_throttled(struct cg_limits *l, uint64_t *ns);

/* [{"cgroup": DIR, "cpus": QUOTA}] of the quota ancestors, tightest first. */
json_t *cg_limits_quotas_json(const struct cg_limits *l);

#endif
