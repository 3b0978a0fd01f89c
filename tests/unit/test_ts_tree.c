// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The tree's taskstats totals from scans and exit records in every order
 * the kernel can produce them, on a test clock: each tick is 10 ms, a
 * thread's age is the clock less its birth, and a record is received at the
 * tick after its thread exited. */
#include <string.h>

#include "taskstats/ts_tree.h"
#include "testing.h"

#define KEEPER 100
#define MS 1000000ull

static uint64_t now = 1000 * MS;
static uint64_t born[1024];       /* tid -> start; 0: the clock's start */
static pid_t exiting_process;     /* whose leader the next scan finds exiting */

static struct ts_record rec(pid_t tid, pid_t tgid, pid_t ppid, uint64_t wbytes)
{
	struct ts_record r = {.version = 16, .tid = tid, .tgid = tgid, .ppid = ppid, .present = TS_ALL};
	r.v[TS_WRITE_BYTES] = wbytes;
	r.v[TS_CPU_COUNT] = wbytes / 1024;
	return r;
}

static void set(struct ts_record *r, uint64_t wbytes)
{
	r->v[TS_WRITE_BYTES] = wbytes;
	r->v[TS_CPU_COUNT] = wbytes / 1024;
}

/* A tick: the scan reads the live threads (grouped by process), then the
 * exit records come; a record's age is its thread's at 5 ms before the
 * tick unless set. */
static uint64_t tick(struct ts_tree *t, const struct ts_record *live, size_t nlive,
		     const struct ts_record *exits, size_t nexits)
{
	now += 10 * MS;
	ts_tree_begin(t);
	EXPECT_EQ(ts_tree_process(t, KEEPER, false), 0);
	for (size_t i = 0; i < nlive; i++) {
		struct ts_record r = live[i];
		if (!r.age_ns)
			r.age_ns = now - born[r.tid];
		EXPECT_EQ(ts_tree_thread(t, r.tgid, &r, now, now + 20000), 0);
		if (i + 1 == nlive || live[i + 1].tgid != r.tgid)
			EXPECT_EQ(ts_tree_process(t, r.tgid, r.tgid == exiting_process), 0);
	}
	for (size_t i = 0; i < nexits; i++) {
		struct ts_record r = exits[i];
		if (!r.age_ns)
			r.age_ns = now - 5 * MS - born[r.tid];
		EXPECT_EQ(ts_tree_exit(t, &r, now + 30000), 0);
	}
	EXPECT_EQ(ts_tree_end(t, false), 0);
	EXPECT_EQ(t->delta[TS_CPU_COUNT], t->delta[TS_WRITE_BYTES] / 1024); /* field by field */
	return t->delta[TS_WRITE_BYTES];
}

static void fresh(struct ts_tree *t)
{
	ts_tree_init(t);
	memset(born, 0, sizeof(born));
	exiting_process = 0;
}

TEST(live_threads_count_from_the_baseline)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 8192)};
	tick(&t, a, 2, NULL, 0); /* the baseline */
	set(&a[1], 12288);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 4096);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 0);
	ts_tree_free(&t);
}

TEST(a_thread_born_and_gone_between_ticks_counts_from_its_record)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	tick(&t, a, 2, NULL, 0);
	/* thread 201 of process 200, and a process 300 child of the keeper */
	born[201] = born[300] = now + 1 * MS;
	struct ts_record e[] = {rec(201, 200, 100, 4096), rec(300, 300, 100, 8192),
				rec(999, 999, 1, 1 << 20) /* another program's */};
	EXPECT_EQ(tick(&t, a, 2, e, 3), 12288);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 0);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 0);
	EXPECT_EQ(t.npending, 0); /* the stranger's record is dropped */
	ts_tree_free(&t);
}

TEST(a_thread_seen_then_ended_counts_its_rest_once)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 4096)};
	tick(&t, a, 2, NULL, 0);
	set(&a[1], 8192);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 4096);
	/* it exits at 12288: gone from the scan, its record in the batch */
	struct ts_record e = rec(200, 200, 100, 12288);
	EXPECT_EQ(tick(&t, a, 1, &e, 1), 4096);
	EXPECT_EQ(tick(&t, a, 1, NULL, 0), 0);
	ts_tree_free(&t);
}

TEST(a_zombie_leader_after_its_record_is_not_counted_again)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0), rec(201, 200, 100, 0)};
	tick(&t, a, 1, NULL, 0);
	/* process 200 born after the scan; its leader exits (record) while
	 * thread 201 lives on */
	struct ts_record e = rec(200, 200, 100, 4096);
	EXPECT_EQ(tick(&t, a, 1, &e, 1), 4096);
	/* next scan: the zombie leader is still listed, with 4096 (or more:
	 * I/O accounted during its exit after the record) */
	exiting_process = 200;
	set(&a[1], 8192);
	EXPECT_EQ(tick(&t, a, 3, NULL, 0), 4096);
	EXPECT_EQ(tick(&t, a, 3, NULL, 0), 0);
	ts_tree_free(&t);
}

/* The double count a parallel build showed (issue 26): cc1's zombie is
 * scanned after its exit, with the CPU time its exit took since, and its
 * record, which says less, comes in the same batch. The old rule took "less
 * CPU than counted" for a reused id and counted the process again. */
TEST(a_zombie_scanned_with_more_cpu_than_its_record_is_one_lifetime)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(300, 300, 100, 1 << 20)};
	a[1].v[TS_CPU_RUN_REAL] = 260 * MS;
	tick(&t, a, 2, NULL, 0);
	set(&a[1], (1 << 20) + 4096);
	a[1].v[TS_CPU_RUN_REAL] = 268 * MS; /* the zombie, 4 ms after its record */
	exiting_process = 300;
	struct ts_record e = a[1];
	e.v[TS_CPU_RUN_REAL] = 264 * MS;
	EXPECT_EQ(tick(&t, a, 2, &e, 1), 4096);
	EXPECT_EQ(t.delta[TS_CPU_RUN_REAL], 8 * MS);
	/* and the other way round: the record one tick, the zombie the next */
	struct ts_record b[] = {rec(100, 100, 1, 0), rec(301, 301, 100, 8192)};
	b[1].v[TS_CPU_RUN_REAL] = 100 * MS;
	born[301] = now - 200 * MS;
	tick(&t, b, 2, NULL, 0);
	struct ts_record f = b[1];
	f.v[TS_CPU_RUN_REAL] = 104 * MS;
	EXPECT_EQ(tick(&t, b, 1, &f, 1), 0);
	EXPECT_EQ(t.delta[TS_CPU_RUN_REAL], 4 * MS);
	exiting_process = 301;
	b[1].v[TS_CPU_RUN_REAL] = 108 * MS;
	EXPECT_EQ(tick(&t, b, 2, NULL, 0), 0);
	EXPECT_EQ(t.delta[TS_CPU_RUN_REAL], 4 * MS);
	ts_tree_free(&t);
}

TEST(a_record_lower_than_the_last_scan_adds_nothing)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	tick(&t, a, 2, NULL, 0);
	/* its zombie, sighted after its record, shows more than the record */
	set(&a[1], 8192);
	exiting_process = 200;
	struct ts_record e = rec(200, 200, 100, 4096);
	EXPECT_EQ(tick(&t, a, 2, &e, 1), 8192);
	ts_tree_free(&t);
}

TEST(a_grandchilds_record_waits_for_its_parents)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0)};
	tick(&t, a, 1, NULL, 0);
	/* grandchild 301 of short-lived child 300: its record comes first,
	 * naming a parent no scan saw */
	born[300] = born[301] = now;
	struct ts_record g = rec(301, 301, 300, 4096);
	EXPECT_EQ(tick(&t, a, 1, &g, 1), 0);
	EXPECT_EQ(t.npending, 1);
	/* the child's record, a tick later, places both */
	struct ts_record c = rec(300, 300, 100, 8192);
	EXPECT_EQ(tick(&t, a, 1, &c, 1), 12288);
	EXPECT_EQ(t.npending, 0);
	ts_tree_free(&t);
}

TEST(a_walk_that_missed_a_thread_does_not_recount_it)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 4096)};
	tick(&t, a, 2, NULL, 0);
	/* one scan misses it (a zombie between parents), the next finds it */
	EXPECT_EQ(tick(&t, a, 1, NULL, 0), 0);
	set(&a[1], 5120);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 1024);
	ts_tree_free(&t);
}

TEST(a_thread_id_reused_by_another_process_is_not_the_tracked_thread)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	tick(&t, a, 2, NULL, 0);
	/* thread 205 of 200 ends */
	born[205] = now;
	struct ts_record e = rec(205, 200, 100, 4096);
	EXPECT_EQ(tick(&t, a, 2, &e, 1), 4096);
	/* pid_max wrapped: a program outside the tree gets 205 and ends */
	born[205] = now;
	struct ts_record stranger = rec(205, 205, 1, 1 << 20);
	EXPECT_EQ(tick(&t, a, 2, &stranger, 1), 0);
	ts_tree_free(&t);
}

/* pid_max wrapped inside the tree: process 300 ended and was reaped, and a
 * new child of the tree got 300. It started after the old one: a new
 * lifetime, counted from zero. */
TEST(an_id_reused_in_the_tree_is_a_new_lifetime)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(300, 300, 100, 8192)};
	born[300] = now - 50 * MS;
	tick(&t, a, 2, NULL, 0);
	struct ts_record e = rec(300, 300, 100, 12288);
	EXPECT_EQ(tick(&t, a, 1, &e, 1), 4096);
	born[300] = now + 2 * MS;
	set(&a[1], 16384);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 16384);

	/* the scan meets the new one in the tick the old one's record comes:
	 * the record, applied first, ends the old lifetime */
	e = rec(300, 300, 100, 20480);
	e.age_ns = now + 5 * MS - born[300];
	born[300] = now + 8 * MS;
	set(&a[1], 8192);
	EXPECT_EQ(tick(&t, a, 2, &e, 1), 4096 + 8192);
	set(&a[1], 9216);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 1024);
	ts_tree_free(&t);
}

/* Process 200 with a second thread, 201, which will exec: two ticks, 201
 * at 12288 after them. */
static void before_an_exec(struct ts_tree *t)
{
	fresh(t);
	born[201] = 10 * MS;
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 4096), rec(201, 200, 100, 8192)};
	tick(t, a, 3, NULL, 0);
	set(&a[2], 12288);
	EXPECT_EQ(tick(t, a, 3, NULL, 0), 4096);
}

/* A non-leader thread execs: the leader exits (its record), the thread
 * takes the leader's id and start time, its own counters go on. */
TEST(an_exec_by_a_non_leader_thread_counts_each_thread_once)
{
	struct ts_tree t;
	before_an_exec(&t);
	/* the exec: leader's record at 8192, and the id 200 now the successor
	 * with 201's counters (12288 + 4096 since), 201 gone without a record */
	struct ts_record leader_end = rec(200, 200, 100, 8192);
	struct ts_record after[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 16384)};
	after[1].age_ns = now + 10 * MS - born[200];
	EXPECT_EQ(tick(&t, after, 2, &leader_end, 1), 4096 + 4096);
	EXPECT_EQ(t.successions, 1);
	set(&after[1], 20480);
	after[1].age_ns = 0;
	EXPECT_EQ(tick(&t, after, 2, NULL, 0), 4096);
	/* the successor ends: its record counts only its rest */
	struct ts_record end = rec(200, 200, 100, 24576);
	EXPECT_EQ(tick(&t, after, 1, &end, 1), 4096);
	ts_tree_free(&t);
}

/* The exec in the middle of a scan: 201 answers first, before it execs,
 * then the leader's id as its successor, with 201's counters. A batch's
 * answers come in the order asked, so 201, sighted this tick, is still the
 * predecessor (it had no record); the sightings are fed leader first. */
static void exec_mid_scan(bool successor_first)
{
	struct ts_tree t;
	before_an_exec(&t);
	/* 201 read at 14336, then the exec: the leader's record at 8192, and
	 * the id 200 the successor at 14336 + 2048 */
	struct ts_record leader_end = rec(200, 200, 100, 8192);
	struct ts_record successor = rec(200, 200, 100, 16384), before_exec = rec(201, 200, 100, 14336);
	successor.age_ns = now + 10 * MS - born[200];
	struct ts_record during[] = {rec(100, 100, 1, 0), successor_first ? successor : before_exec,
				     successor_first ? before_exec : successor};
	EXPECT_EQ(tick(&t, during, 3, &leader_end, 1), 2048 + 4096 + 2048);
	EXPECT_EQ(t.successions, 1);
	/* 201 is gone: the successor goes on from its counters */
	struct ts_record after[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 20480)};
	EXPECT_EQ(tick(&t, after, 2, NULL, 0), 4096);
	ts_tree_free(&t);
}

TEST(an_exec_between_two_answers_of_one_scan_counts_each_thread_once)
{
	exec_mid_scan(true); /* as fed: sorted by thread id */
	exec_mid_scan(false);
}

/* The same exec between two ticks, and the successor gone too before the
 * next: two records for the leader's id in one batch. */
TEST(an_exec_and_exit_between_ticks_counts_each_thread_once)
{
	struct ts_tree t;
	fresh(&t);
	born[201] = 10 * MS;
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 4096), rec(201, 200, 100, 8192)};
	tick(&t, a, 3, NULL, 0);
	struct ts_record e[] = {rec(200, 200, 100, 5120), rec(200, 200, 100, 9216)};
	e[1].age_ns = now + 8 * MS - born[200];
	EXPECT_EQ(tick(&t, a, 1, e, 2), 1024 + 1024);
	EXPECT_EQ(t.successions, 1);
	ts_tree_free(&t);
}

/* An exiting leader (PF_EXITING) sighted after its record is the same
 * lifetime, whatever it added while exiting. */
TEST(an_exiting_leader_sighted_after_its_record_is_not_a_successor)
{
	struct ts_tree t;
	fresh(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 4096), rec(201, 200, 100, 4096)};
	tick(&t, a, 3, NULL, 0);
	struct ts_record e = rec(200, 200, 100, 8192);
	struct ts_record z[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 12288)};
	exiting_process = 200;
	/* 201 left too, with its record: no successor */
	struct ts_record e2[] = {e, rec(201, 200, 100, 4096)};
	EXPECT_EQ(tick(&t, z, 2, e2, 2), 8192);
	EXPECT_EQ(t.successions, 0);
	ts_tree_free(&t);
}

/* 6.18 ended a block I/O wait it never started: blkio_delay_ns jumped by the
 * host's uptime, far past the thread's age. Only what lies past what the
 * thread could have spent is dropped; its genuine waits count. */
TEST(a_time_past_what_the_thread_could_spend_is_dropped_each_time)
{
	struct ts_tree t;
	fresh(&t);
	born[200] = now - 1000 * MS;
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	a[1].v[TS_CPU_DELAY] = 400 * MS; /* within its life */
	a[1].v[TS_BLKIO_DELAY] = 300 * MS;
	tick(&t, a, 2, NULL, 0);
	EXPECT_EQ(t.nfaults, 0);

	/* 1020 ms old, no CPU time: off the CPU it could have waited its age
	 * (and the clocks' 10 ms of slack) in all, whatever it waited for a
	 * CPU: block I/O's total reaches that bound and no more */
	a[1].v[TS_BLKIO_DELAY] += 22110914744272ull;
	a[1].v[TS_BLKIO_COUNT] = 3;
	set(&a[1], 4096);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 4096);
	EXPECT_EQ(t.delta[TS_BLKIO_COUNT], 3);
	EXPECT_EQ(t.delta[TS_BLKIO_DELAY], 1030 * MS - 300 * MS);
	EXPECT_EQ(t.faulted_ns[TS_BLKIO_DELAY], 22110914744272ull - 730 * MS);
	EXPECT_EQ(t.nfaults, 1);
	EXPECT_EQ(t.fault.tid, 200);
	EXPECT_EQ(t.fault.field, TS_BLKIO_DELAY);

	/* its growth from there is judged against its age as it grows: 100 ms
	 * older, a 70 ms wait counts whole */
	now += 90 * MS;
	a[1].v[TS_BLKIO_DELAY] += 70 * MS;
	a[1].v[TS_BLKIO_COUNT] = 4;
	tick(&t, a, 2, NULL, 0);
	EXPECT_EQ(t.delta[TS_BLKIO_DELAY], 70 * MS);
	EXPECT_EQ(t.nfaults, 1);

	/* a wait off the CPU cannot overlap its CPU time: 100 ms older, it ran
	 * 50 ms and waited 100 ms more: 20 ms past the bound (1220 ms + 10,
	 * less 50 ms run, against 1100 ms counted) */
	now += 90 * MS;
	a[1].v[TS_CPU_RUN_REAL] += 50 * MS;
	a[1].v[TS_BLKIO_DELAY] += 100 * MS;
	tick(&t, a, 2, NULL, 0);
	EXPECT_EQ(t.delta[TS_CPU_RUN_REAL], 50 * MS);
	EXPECT_EQ(t.delta[TS_BLKIO_DELAY], 80 * MS);
	EXPECT_EQ(t.nfaults, 2);

	/* another thread's fault, in its exit record, is another; a delay on
	 * the CPU (an interrupt's) is bound by its age alone */
	born[201] = now;
	struct ts_record e = rec(201, 200, 100, 0);
	e.age_ns = 2 * MS, e.v[TS_IRQ_DELAY] = 1ull << 40;
	tick(&t, a, 2, &e, 1);
	EXPECT_EQ(t.delta[TS_IRQ_DELAY], 12 * MS);
	EXPECT_EQ(t.nfaults, 3);
	EXPECT_EQ(t.fault.tid, 200); /* the first stays the example */
	ts_tree_free(&t);
}
