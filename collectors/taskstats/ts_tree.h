/* The tree's taskstats totals from per-thread snapshots and exit records.
 *
 * A thread's taskstats count only that thread (a reaped child's counts are
 * not folded into its parent, unlike /proc/PID/io), so the tree's total is
 * the sum, over every thread that ever belonged to it, of what the thread
 * did while it was watched. Each tick the sampler
 *
 *   1. scans the tree: every thread of every process found from the root,
 *      and directly the process of every tracked thread the walk missed
 *      (re-parented while it ran), each by TASKSTATS_CMD_GET;
 *   2. then takes the exit records queued since the last tick: the kernel
 *      sends one from every exiting task before the task leaves /proc, so a
 *      thread the scan no longer finds has its record in this batch;
 *   3. then resolves the records: one belongs to the tree when its thread
 *      is tracked, or its process or its process's parent is a process of
 *      the tree (this tick's scan or the last's, or a record resolved
 *      before it: a short-lived child's record makes its own children's
 *      resolvable). A record no rule places waits two ticks for its parent
 *      to show up, then is dropped as another program's.
 *
 * Every observation of a thread, live or final, counts its excess over the
 * highest value already counted for that thread, field by field, so no
 * order of scans and records counts anything twice (a zombie leader still
 * in /proc after its record; I/O accounted during exit after the record).
 * A thread starts at zero (fork clears its counters), so one first seen in
 * a record or a scan counts everything it did; a thread present at the
 * baseline counts from there.
 *
 * No time a thread spent (a delay, its CPU time) can exceed its age, which
 * each record carries. A kernel that says otherwise has made a fault (6.18
 * was seen to end a block I/O wait it never started: blkio_delay_ns jumped
 * by the host's uptime); the jump is unknowable, so the field's change for
 * that tick is untrusted (the row's cell is null) and the thread counts
 * from the faulty total on. This file does no I/O; taskstats.c feeds it. */
#ifndef IOPSAMPLE_TS_TREE_H
#define IOPSAMPLE_TS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pidmap.h"
#include "ts_record.h"

struct ts_thread {
	pid_t tid, tgid;
	uint64_t v[TS_NFIELDS]; /* the highest value counted */
	uint32_t faulty;        /* fields whose total the kernel got wrong */
	bool seen;              /* found by this tick's scan */
	uint64_t made;          /* the tick a record created it in; kept one scan more */
};

struct ts_pending {
	struct ts_record r;
	unsigned age; /* ticks it waited */
};

struct ts_tree {
	uint64_t tick;
	struct pidmap index; /* tid -> index in t */
	struct ts_thread *t;
	size_t n, cap;
	struct pidmap procs, last_procs; /* the tree's processes: this tick, the last */
	struct ts_pending *pending;
	size_t npending, pending_cap;
	uint64_t delta[TS_NFIELDS]; /* this tick's change */
	uint32_t untrusted;         /* ... and the fields whose change is unknown */
	struct ts_fault {           /* the first such fault, for the manifest */
		pid_t tid;
		int field;
		uint64_t value, age_ns;
	} fault;
	unsigned nfaults;
};

void ts_tree_init(struct ts_tree *t);
void ts_tree_free(struct ts_tree *t);

void ts_tree_begin(struct ts_tree *t);
/* A process of the tree the scan found. */
int ts_tree_process(struct ts_tree *t, pid_t tgid);
/* A thread of process tgid the scan found, with its stats. */
int ts_tree_thread(struct ts_tree *t, pid_t tgid, const struct ts_record *r);
/* An exit record (any task on the host). */
int ts_tree_exit(struct ts_tree *t, const struct ts_record *r);
/* Resolves the records, drops the threads that are gone; the tick's change
 * is in t->delta. 0 or -ENOMEM. */
int ts_tree_end(struct ts_tree *t);

#endif
