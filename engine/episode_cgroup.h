/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The episode's own cgroup: what production sees of a workload.
 *
 * For a launched target, iopsample makes a cgroup named
 * iopsample-<episode>@<its owner> (cg_owner.h) under the cgroup it runs in, in
 * the v2 hierarchy (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid
 * host) and, for what v2 does not give it, in the v1 hierarchies (cpuacct
 * when there is no v2, cpu for throttling, memory, blkio), and moves the
 * target into them while it waits at the start barrier: its first
 * instruction runs inside, and so does every process it starts, a daemon
 * that leaves the process tree included. A child of iopsample's own cgroup
 * keeps the limits it runs under (a container's, a CI job's).
 *
 * When the episode ends, what is left in it is stopped with the tree
 * (cgroup.kill, where v2 has it, at the SIGKILL), and once the keeper has
 * reaped everything the cgroups are removed. If iopsample itself is
 * SIGKILLed, its keeper does the same (keeper.c); if the keeper was killed
 * too, the next `iopsample run` or `iopsample probe` kills what those
 * cgroups hold and removes them (episode_cgroup_sweep). An attached target
 * (target.pid) is moved nowhere: the source reads the cgroups it is in. */
#ifndef IOPSAMPLE_EPISODE_CGROUP_H
#define IOPSAMPLE_EPISODE_CGROUP_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cgroupfs.h"

struct episode_cgroup {
	struct cgroup_set set;
	bool made[CGR_NROLES]; /* directories made here, to remove */
	/* v2 controllers this episode enabled for the children of the cgroup
	 * iopsample runs in, and that cgroup's cgroup.subtree_control: turned
	 * off again with the cgroups' removal, unless another episode's
	 * cgroup is there */
	unsigned enabled_v2;
	char subtree_control[600];
	json_t *json;          /* the manifest's "cgroup" */
};

/* Makes the episode's cgroups (off: none, said so). What could not be made
 * is said in cg->json and cg->set.why, and is no error: the cgroup source
 * is then unavailable, with that reason. */
void episode_cgroup_make(struct episode_cgroup *cg, const char *episode, bool off);
/* The cgroups process pid is in, read, not made (target.pid). */
void episode_cgroup_attach(struct episode_cgroup *cg, pid_t pid);
/* Moves pid (the target, waiting at the barrier) into every cgroup made.
 * 0, or -errno after taking them down again and saying why in cg. */
int episode_cgroup_enter(struct episode_cgroup *cg, pid_t pid);
/* SIGKILLs every process left in the cgroups made: by cgroup.kill where
 * v2 has it (Linux 5.14), else each process their cgroup.procs list (a
 * fork racing that list escapes it: the caller calls again). */
void episode_cgroup_kill(const struct episode_cgroup *cg);
/* Removes the cgroups made, once they are empty, and turns off the v2
 * controllers the episode enabled in its parent where no other episode's
 * cgroup is left beside; what could not be removed or turned off is
 * returned as warnings (an array, or NULL). */
json_t *episode_cgroup_remove(struct episode_cgroup *cg);
void episode_cgroup_free(struct episode_cgroup *cg);

/* Removes the iopsample cgroups, beside where this process's would go,
 * whose iopsample is gone (killed outright, its keeper with it:
 * cg_owner_gone): what they hold is killed first. Returns the paths
 * removed (an array). */
json_t *episode_cgroup_sweep(void);

#endif
