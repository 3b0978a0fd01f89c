/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The keeper: a small process between iopsample and the target.
 *
 *   iopsample ── keeper (subreaper) ── target ── its children ...
 *
 * It forks the target and holds it at the start barrier (a poll on a pipe, not
 * a read, so the target's I/O counters stay untouched) until iopsample releases
 * it to exec. As a subreaper it adopts every orphan of the tree, so every
 * process of the tree is reaped inside the tree and the kernel folds its I/O
 * counts into the keeper's: proc_io's totals stay exact to the end. It kills
 * the whole tree if iopsample dies.
 *
 * The target lets iopsample's own processes trace it (Yama's PR_SET_PTRACER),
 * and runs the before_exec hook of each source that opened just before exec.
 *
 * The keeper never calls read or write once the target waits (its own I/O
 * would count): it reports through a shared page and a queued signal. */
#ifndef IOPSAMPLE_KEEPER_H
#define IOPSAMPLE_KEEPER_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "collector.h"
#include "config.h"
#include "episode_cgroup.h"
#include "log.h"

enum keeper_event {
	KEEPER_STARTED = 1,  /* the target is forked and waiting */
	KEEPER_TARGET_EXITED /* the target was reaped; the tree may live on */
};

struct keeper_shared {
	_Atomic uint64_t armed;  /* sources whose before_exec runs: bit i = sources[i] */
	_Atomic int setup_source; /* 1 + the index of a source whose before_exec failed */
	_Atomic int setup_errno;
	_Atomic int target_pid;
	_Atomic int exec_errno;  /* the target could not exec (after it stored this) */
	_Atomic int target_done; /* set last, after the fields below */
	int target_code;         /* CLD_EXITED, CLD_KILLED or CLD_DUMPED */
	int target_status;       /* exit status or signal number */
	int64_t target_end_ns;   /* CLOCK_MONOTONIC when the keeper reaped it */
	/* What every process it reaped used (the target, the orphans it
	 * adopted, and each one's own reaped descendants): the tree's
	 * getrusage(RUSAGE_CHILDREN), stored once the whole tree is gone. */
	struct rusage tree_usage;
	_Atomic int tree_usage_done; /* set after tree_usage */
};

struct target_spec {
	char *const *argv; /* searched in PATH when argv[0] has no '/' */
	const char *cwd;
	const struct kv_list *env; /* added to the inherited environment */
	int stdin_fd, stdout_fd, stderr_fd; /* -1: inherit */
	const struct source_config *sources; /* their before_exec hooks */
	size_t nsources;
	/* The episode's cgroups: killed and removed by the keeper when
	 * iopsample dies before the tree (NULL: none). */
	const struct episode_cgroup *cgroup;
	/* The episode's directory, whose manifest the keeper marks killed
	 * when iopsample dies before the tree (-1: none). */
	int episode_dirfd;
};

struct keeper {
	pid_t pid;
	pid_t target; /* also the target's process group */
	int release_fd;
	struct keeper_shared *shared;
};

/* Forks the keeper, which forks the target; returns once the target waits at
 * the barrier. The caller has notify_sig and SIGCHLD blocked. */
int keeper_start(struct keeper *k, const struct target_spec *t, int notify_sig, struct errbuf *e);
/* Lets the target exec, after the before_exec hooks of the sources in armed
 * (bit i = sources[i]). */
int keeper_release(struct keeper *k, uint64_t armed);
/* Closes the barrier unreleased: the target exits without running. */
void keeper_abort(struct keeper *k);
/* Sends sig to every process of the tree under the keeper: the target's
 * process group in one kill, then each descendant outside it. sig 0 only
 * counts. Returns the number of live processes found. */
int keeper_signal_tree(const struct keeper *k, int sig);
void keeper_free(struct keeper *k);

#endif
