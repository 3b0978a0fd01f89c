/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Who made an iopsample cgroup, in its name, so that a later iopsample can
 * tell whether that one still runs without a clock that can step.
 *
 * The name is iopsample-<episode>@<pid>-<start>-<pidns>: the maker's pid,
 * its start time (/proc/PID/stat's starttime, clock ticks after boot: a
 * reused pid has another) and the inode of its pid namespace (the pid
 * means nothing in another). '@' is in no episode name, so the owner is
 * what follows the last one. An owner is gone when, in the same pid
 * namespace, no process has its pid, or a zombie does, or one with another
 * start time does; an owner in another pid namespace is never taken for
 * gone. */
#ifndef IOPSAMPLE_CG_OWNER_H
#define IOPSAMPLE_CG_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_OWNER_PREFIX "iopsample-"

struct cg_owner {
	pid_t pid;
	uint64_t start; /* clock ticks after boot */
	uint64_t pidns; /* the inode of /proc/PID/ns/pid */
};

/* This process; 0, or -errno. */
int cg_owner_self(struct cg_owner *o);
/* The cgroup name of an episode made by o; -ENAMETOOLONG if it does not
 * fit in len. */
int cg_owner_name(const struct cg_owner *o, const char *episode, char *buf, size_t len);
/* The owner in an iopsample cgroup's name; false for any other name
 * (another program's, or one an iopsample before the owner's start time
 * was named made: left alone). */
bool cg_owner_parse(const char *name, struct cg_owner *o);
/* Whether o is gone, as above. Any doubt (a /proc that cannot be read
 * for another reason than the pid's absence) is toward alive. */
bool cg_owner_gone(const struct cg_owner *o);

#endif
