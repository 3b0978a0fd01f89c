/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Exact I/O totals of a process tree from /proc/PID/io snapshots.
 *
 * /proc/PID/io of a process includes the final counts of every child it has
 * reaped: at the reap the kernel adds the child's totals to the parent's. Summed
 * over the live processes of a tree, every byte therefore counts exactly once,
 * as long as the sum is taken at one instant. A scan is not an instant, so:
 *
 *  - the scanner reads parents before children, and each process's io before
 *    its stat: a reap that lands in the parent's counters before the parent was
 *    read leaves the child unreadable or in state X (EXIT_DEAD is set before
 *    the counters move) when the child is read, so it is never counted twice;
 *  - a pass in which a tracked process vanished or sat in X (its counts might
 *    not be in its parent yet) is not settled: scan again. A process already
 *    seen gone in an earlier pass of the same tick is settled, because its
 *    counts moved before this pass read its parent;
 *  - in attach mode a process can be reaped by someone outside the tree (the
 *    target's own parent, or init adopting an orphan): its last counts are kept
 *    as "departed" so the total never drops. Under iopsample's keeper (a
 *    subreaper) every process of the tree is reaped inside it, so nothing
 *    departs and the episode's total is exact.
 *
 * The total reported never decreases: if passes run out (a tree reaping faster
 * than it can be scanned) a late count moves to the next row, never out of the
 * episode. This file does no I/O; proc_io.c feeds it. */
#ifndef IOPSAMPLE_PROC_IO_TREE_H
#define IOPSAMPLE_PROC_IO_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procfs.h"

/* One process as one pass saw it. */
struct pio_obs {
	pid_t pid, ppid;
	uint64_t start; /* starttime: a reused pid is a different process */
	char state;
	uint64_t v[IO_NFIELDS];
};

struct pio_tracked {
	pid_t pid, ppid;
	uint64_t start;
	uint64_t v[IO_NFIELDS];
	bool member;  /* counted at the last commit (else first seen this tick) */
	bool gone;    /* seen vanished in an earlier pass of this tick */
	bool departs; /* ... and reaped outside the tree */
};

struct pio_tree {
	pid_t root;
	bool keeper; /* root is iopsample's subreaper: every reap happens inside */
	struct pio_tracked *t;
	size_t n, cap;
	uint64_t departed[IO_NFIELDS];
	uint64_t emitted[IO_NFIELDS];
	/* pass scratch: indexes of the pass's observations sorted by pid */
	size_t *order;
	size_t order_cap;
	/* each observation's entry in t, as the last commit had them: a tick
	 * that observes the same processes in the same order (steady) is
	 * summed in one pass, nothing sorted */
	size_t *at;
	size_t at_cap, at_n;
	bool was_steady; /* the last commit found its tick steady */
};

void pio_tree_init(struct pio_tree *t, pid_t root, bool keeper);
void pio_tree_free(struct pio_tree *t);

void pio_tick_begin(struct pio_tree *t);
/* 1 when obs is a settled snapshot, 0 when the tree should be scanned again,
 * -ENOMEM when memory runs out. obs as the last commit's (the same
 * processes, in the same order, none being reaped) is settled at once. */
int pio_tick_pass(struct pio_tree *t, const struct pio_obs *obs, size_t n);
/* Whether obs are the last commit's processes, in its order, none being
 * reaped: the check pio_tick_pass settles a steady tick at once with. A
 * scanner that finds it true of what it read so far has read every
 * tracked process. */
bool pio_tick_steady(const struct pio_tree *t, const struct pio_obs *obs, size_t n);
/* Takes obs (the tick's last pass) as the new state. delta gets the change of
 * the tree's total since the last commit; nprocs the live (not zombie)
 * processes, the keeper not included. */
int pio_tick_commit(struct pio_tree *t, const struct pio_obs *obs, size_t n,
		    uint64_t delta[IO_NFIELDS], unsigned *nprocs);

/* The parent a tracked process had when last read, or 0 when none with pid
 * is tracked. */
pid_t pio_tree_ppid(const struct pio_tree *t, pid_t pid);

#endif
