/* The tree's taskstats totals from scans and exit records in every order
 * the kernel can produce them. */
#include <string.h>

#include "taskstats/ts_tree.h"
#include "testing.h"

#define KEEPER 100

static struct ts_record rec(pid_t tid, pid_t tgid, pid_t ppid, uint64_t wbytes)
{
	struct ts_record r = {.version = 16, .tid = tid, .tgid = tgid, .ppid = ppid, .present = TS_ALL};
	r.v[TS_WRITE_BYTES] = wbytes;
	r.v[TS_CPU_COUNT] = wbytes / 1024;
	return r;
}

/* a tick: scan threads (tid, tgid, value) of live processes, then records */
static uint64_t tick(struct ts_tree *t, const struct ts_record *live, size_t nlive,
		     const struct ts_record *exits, size_t nexits)
{
	ts_tree_begin(t);
	EXPECT_EQ(ts_tree_process(t, KEEPER), 0);
	for (size_t i = 0; i < nlive; i++) {
		EXPECT_EQ(ts_tree_process(t, live[i].tgid), 0);
		EXPECT_EQ(ts_tree_thread(t, live[i].tgid, &live[i]), 0);
	}
	for (size_t i = 0; i < nexits; i++)
		EXPECT_EQ(ts_tree_exit(t, &exits[i]), 0);
	EXPECT_EQ(ts_tree_end(t), 0);
	EXPECT_EQ(t->delta[TS_CPU_COUNT], t->delta[TS_WRITE_BYTES] / 1024); /* field by field */
	return t->delta[TS_WRITE_BYTES];
}

TEST(live_threads_count_from_the_baseline)
{
	struct ts_tree t;
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 8192)};
	tick(&t, a, 2, NULL, 0); /* the baseline */
	a[1].v[TS_WRITE_BYTES] = 12288, a[1].v[TS_CPU_COUNT] = 12;
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 4096);
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 0);
	ts_tree_free(&t);
}

TEST(a_thread_born_and_gone_between_ticks_counts_from_its_record)
{
	struct ts_tree t;
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	tick(&t, a, 2, NULL, 0);
	/* thread 201 of process 200, and a process 300 child of the keeper */
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
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 4096)};
	tick(&t, a, 2, NULL, 0);
	a[1].v[TS_WRITE_BYTES] = 8192, a[1].v[TS_CPU_COUNT] = 8;
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
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0), rec(201, 200, 100, 0)};
	tick(&t, a, 1, NULL, 0);
	/* process 200 born after the scan; its leader exits (record) while
	 * thread 201 lives on */
	struct ts_record e = rec(200, 200, 100, 4096);
	EXPECT_EQ(tick(&t, a, 1, &e, 1), 4096);
	/* next scan: the zombie leader is still listed, with 4096 (or more:
	 * I/O accounted during its exit after the record) */
	a[1].v[TS_WRITE_BYTES] = 8192, a[1].v[TS_CPU_COUNT] = 8;
	EXPECT_EQ(tick(&t, a, 3, NULL, 0), 4096);
	EXPECT_EQ(tick(&t, a, 3, NULL, 0), 0);
	ts_tree_free(&t);
}

TEST(a_record_lower_than_the_last_scan_adds_nothing)
{
	struct ts_tree t;
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	tick(&t, a, 2, NULL, 0);
	a[1].v[TS_WRITE_BYTES] = 8192, a[1].v[TS_CPU_COUNT] = 8;
	struct ts_record e = rec(200, 200, 100, 4096);
	EXPECT_EQ(tick(&t, a, 2, &e, 1), 8192);
	ts_tree_free(&t);
}

TEST(a_grandchilds_record_waits_for_its_parents)
{
	struct ts_tree t;
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0)};
	tick(&t, a, 1, NULL, 0);
	/* grandchild 301 of short-lived child 300: its record comes first,
	 * naming a parent no scan saw */
	struct ts_record g = rec(301, 301, 300, 4096);
	EXPECT_EQ(tick(&t, a, 1, &g, 1), 0);
	EXPECT_EQ(t.npending, 1);
	/* the child's record, a tick later, places both */
	struct ts_record c = rec(300, 300, 100, 8192);
	EXPECT_EQ(tick(&t, a, 1, &c, 1), 12288);
	EXPECT_EQ(t.npending, 0);
	ts_tree_free(&t);
}

TEST(a_walk_that_missed_a_live_thread_does_not_recount_it)
{
	struct ts_tree t;
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 4096)};
	tick(&t, a, 2, NULL, 0);
	/* the thread is found again (the sampler reads missed processes
	 * directly): only its growth counts */
	a[1].v[TS_WRITE_BYTES] = 5120, a[1].v[TS_CPU_COUNT] = 5;
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 1024);
	ts_tree_free(&t);
}

TEST(a_thread_id_reused_by_another_process_is_not_the_tracked_thread)
{
	struct ts_tree t;
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	tick(&t, a, 2, NULL, 0);
	/* thread 205 of 200 ends: its entry is kept one more scan */
	struct ts_record e = rec(205, 200, 100, 4096);
	EXPECT_EQ(tick(&t, a, 2, &e, 1), 4096);
	/* pid_max wrapped: a program outside the tree gets 205 and ends */
	struct ts_record stranger = rec(205, 205, 1, 1 << 20);
	EXPECT_EQ(tick(&t, a, 2, &stranger, 1), 0);
	ts_tree_free(&t);
}

/* 6.18 ended a block I/O wait it never started: blkio_delay_ns jumped by the
 * host's uptime, far past the thread's age. */
TEST(a_time_longer_than_the_threads_life_is_untrusted_once)
{
	struct ts_tree t;
	ts_tree_init(&t);
	struct ts_record a[] = {rec(100, 100, 1, 0), rec(200, 200, 100, 0)};
	a[1].age_ns = 1000000000;
	a[1].v[TS_CPU_DELAY] = 400000000; /* within its life */
	tick(&t, a, 2, NULL, 0);
	EXPECT_EQ(t.untrusted, 0);

	a[1].age_ns += 50000000;
	a[1].v[TS_BLKIO_DELAY] = 22110914744272ull;
	a[1].v[TS_BLKIO_COUNT] = 3;
	a[1].v[TS_WRITE_BYTES] = 4096, a[1].v[TS_CPU_COUNT] = 4;
	EXPECT_EQ(tick(&t, a, 2, NULL, 0), 4096);
	EXPECT_EQ(t.untrusted, TS_BIT(TS_BLKIO_DELAY));
	EXPECT_EQ(t.delta[TS_BLKIO_COUNT], 3);
	EXPECT_EQ(t.nfaults, 1);
	EXPECT_EQ(t.fault.tid, 200);
	EXPECT_EQ(t.fault.field, TS_BLKIO_DELAY);
	EXPECT_EQ(t.fault.value, 22110914744272ull);

	/* from the faulty total on, its growth is trusted again */
	a[1].age_ns += 50000000;
	a[1].v[TS_BLKIO_DELAY] += 7000000;
	a[1].v[TS_BLKIO_COUNT] = 4;
	tick(&t, a, 2, NULL, 0);
	EXPECT_EQ(t.untrusted, 0);
	EXPECT_EQ(t.delta[TS_BLKIO_DELAY], 7000000);

	/* another thread's fault, in its exit record, is another */
	struct ts_record e = rec(201, 200, 100, 0);
	e.age_ns = 2000000, e.v[TS_IRQ_DELAY] = 1ull << 40;
	tick(&t, a, 2, &e, 1);
	EXPECT_EQ(t.untrusted, TS_BIT(TS_IRQ_DELAY));
	EXPECT_EQ(t.nfaults, 2);
	EXPECT_EQ(t.fault.tid, 200); /* the first stays the example */
	ts_tree_free(&t);
}
