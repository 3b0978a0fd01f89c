/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A map from pid to an integer, for sets of processes and threads.
 *
 * Open addressing with linear probing, at most half full, so a lookup is a few
 * probes and memory grows only with the number of pids (proc_io's per-scan
 * set of visited pids, the tracer's table of tracees). Deletion shifts the
 * following entries back, so no tombstones pile up in a long episode. */
#ifndef IOPSAMPLE_PIDMAP_H
#define IOPSAMPLE_PIDMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pidmap_slot {
	pid_t pid; /* 0: empty */
	int64_t value;
};

struct pidmap {
	struct pidmap_slot *slot;
	size_t cap; /* 0 or a power of two, at least twice count */
	size_t count;
};

/* 1 when pid was added with value, 0 when it was there (its value unchanged),
 * -ENOMEM. */
int pidmap_add(struct pidmap *m, pid_t pid, int64_t value);
/* The value stored for pid, or NULL. Valid until the next add or del. */
int64_t *pidmap_get(const struct pidmap *m, pid_t pid);
/* 1 when pid was removed, 0 when it was not there. */
int pidmap_del(struct pidmap *m, pid_t pid);
void pidmap_clear(struct pidmap *m);
void pidmap_free(struct pidmap *m);

#endif
