/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The tree's taskstats totals from per-thread queries and exit records.
 *
 * A thread's taskstats count only that thread (a reaped child's counts are
 * not folded into its parent, unlike /proc/PID/io), so the tree's total is
 * the sum, over every thread that ever belonged to it, of what the thread
 * did while it was watched. Each tick the sampler
 *
 *   1. scans the tree: every thread of every process found from the root,
 *      and directly the process of every tracked thread the walk missed
 *      (re-parented while it ran), each by TASKSTATS_CMD_GET: a sighting;
 *   2. then takes the exit records received since the last tick: the kernel
 *      sends one from every exiting task before the task leaves /proc, so a
 *      thread the scan no longer finds has its record in this batch;
 *   3. then, in ts_tree_end, applies the records (in the order they came)
 *      and after them the sightings. A record belongs to the tree when its
 *      thread is tracked, or its process or its process's parent is a
 *      process of the tree (this tick's scan or the last's, or a record
 *      applied before it: a short-lived child's record places its own
 *      children's). A record no rule places waits two ticks for its parent
 *      to show up, then is dropped as another program's.
 *
 * What is counted is a lifetime: one thread from its fork to its exit.
 * Every observation of a lifetime, sighting or record, counts its excess
 * over the highest value already counted for it, field by field, so no
 * order of observations counts anything twice (a zombie sighted after its
 * record, with the CPU time its exit took since; a record applied after a
 * later sighting). A lifetime starts at zero (fork clears the counters), so
 * one first seen in a record counts everything it did; one present at the
 * baseline counts from there.
 *
 * Which lifetime an observation is of. A thread id outlives its thread: the
 * kernel hands it out again (pid_max wrapped), and a non-leader thread that
 * execs takes over its leader's id. Each lifetime keeps bounds on when it
 * started (CLOCK_MONOTONIC): a sighting's answer carries the thread's age
 * (ac_etime, from the same clock), so its start lies between the time the
 * query was asked less that age and the time it was answered less that
 * age; a record's start lies at or before the time it was received less
 * its age. An observation whose bounds cannot meet a lifetime's, or whose
 * process differs, is of a new lifetime (the id was reused); a second
 * record is a new lifetime (each has one).
 *
 * Exec. A non-leader thread that execs kills the others, waits for its
 * leader to exit (the leader's record is sent then), and takes over the
 * leader's id and start time; its own counters go on. So a sighting of a
 * leader's id older than that id's exit record is either the leader still
 * exiting (its process's PF_EXITING, read after the query: the same
 * lifetime) or the successor. The successor's history was counted under its
 * old id, which left the tree without an exit record (the one way a tracked
 * thread leaves without one): its new lifetime starts from what that id had
 * counted. That id may even have answered in the same tick, before the
 * exec (a batch is answered in the order asked): once the successor is
 * seen, every other thread of its process has exited and its record is in
 * the tick's batch, so the process's one non-leader lifetime from an
 * earlier tick with no record is the predecessor, sighted this tick or
 * not. (Threads sighted for the first time this tick are left out: they
 * may be the new program's. A thread born, sighted and exec'd within one
 * tick, answering before its exec, is the one case counted twice.) In a
 * tick whose records were lost nothing is inferred from a missing record.
 *
 * No time a thread spent (a delay, its CPU time) can exceed its age, and a
 * wait off the CPU (for a CPU, for block I/O) not its age less its CPU
 * time. The kernel adds a wait's whole length when the wait ends, so one
 * increase may well exceed the time since the last observation; but what
 * the thread genuinely waited in all can never exceed that. What an
 * increase would take past it is the kernel's fault (6.18 was seen to end
 * a block I/O wait it never started, blkio_delay_ns jumping by the host's
 * uptime, and to count a forked reader's block I/O at 125 % of its life
 * under memory pressure): that excess alone is dropped, counted in
 * faulted_ns, and the rest of the change counts, the thread's as every
 * other thread's; every later increase is judged the same way against the
 * age, however many faults came before. This file does no I/O;
 * taskstats.c feeds it. */
#ifndef IOPSAMPLE_TS_TREE_H
#define IOPSAMPLE_TS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pidmap.h"
#include "ts_record.h"

/* One lifetime of a thread id. */
struct ts_thread {
	pid_t tid, tgid;
	uint64_t v[TS_NFIELDS];       /* the highest value counted */
	uint64_t faulted[TS_NFIELDS]; /* ... of which the kernel's faults */
	uint64_t start_lo, start_hi;  /* when it started lies within */
	uint64_t exit_age_ns;         /* its exit record's age, once exited */
	uint64_t since;               /* the tick it was first observed in */
	bool exited;                  /* its exit record was applied */
	bool seen;                    /* sighted this tick */
	bool gone;                    /* exec'd into its leader: dropped */
	unsigned unseen;              /* ticks since it was last sighted */
};

/* A thread as this tick's scan read it. */
struct ts_sighting {
	struct ts_record r;
	pid_t tgid;
	uint64_t start_lo, start_hi;
	bool exiting; /* the leader: its process had begun to exit, read after */
};

struct ts_pending {
	struct ts_record r;
	uint64_t start_hi; /* the record's bound: received less its age */
	unsigned age;      /* ticks it waited */
};

struct ts_tree {
	uint64_t tick;
	struct pidmap index; /* tid -> index in t */
	struct ts_thread *t;
	size_t n, cap;
	struct ts_sighting *sighted; /* this tick's, applied at its end */
	size_t nsighted, sighted_cap;
	struct pidmap procs, last_procs; /* the tree's processes: this tick, the last */
	struct ts_pending *pending;
	size_t npending, pending_cap;
	uint64_t delta[TS_NFIELDS]; /* this tick's change */
	uint64_t faulted_ns[TS_NFIELDS]; /* the kernel's faults dropped, since the baseline */
	struct ts_fault {           /* the first such fault, for the manifest */
		pid_t tid;
		int field;
		uint64_t value, age_ns;
	} fault;
	unsigned nfaults;     /* increases past what the thread could have spent */
	unsigned successions; /* execs of a non-leader thread seen */
};

void ts_tree_init(struct ts_tree *t);
void ts_tree_free(struct ts_tree *t);

void ts_tree_begin(struct ts_tree *t);
/* A thread of process tgid the scan read, between CLOCK_MONOTONIC times
 * asked_ns (before the query) and answered_ns (after its answer). */
int ts_tree_thread(struct ts_tree *t, pid_t tgid, const struct ts_record *r, uint64_t asked_ns,
		   uint64_t answered_ns);
/* A process of the tree the scan found, after its threads; exiting: its
 * leader had begun to exit (PF_EXITING, or gone) when read after them. */
int ts_tree_process(struct ts_tree *t, pid_t tgid, bool exiting);
/* Whether tid's current lifetime has had its exit record applied: only
 * then does a sighting of a leader's id need its process's exiting (a
 * sighting answered before the record was sent is younger than it, and
 * is the leader's own). */
bool ts_tree_exited(const struct ts_tree *t, pid_t tid);
/* An exit record (any task on the host), received at received_ns. */
int ts_tree_exit(struct ts_tree *t, const struct ts_record *r, uint64_t received_ns);
/* Applies the tick's records and sightings and drops the threads long gone;
 * the tick's change is in t->delta. lost: records of the tick were lost.
 * 0 or -ENOMEM. */
int ts_tree_end(struct ts_tree *t, bool lost);

#endif
