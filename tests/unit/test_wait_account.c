// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* waits' account (wait_account.c): each thread's time since the last tick,
 * by class, from the scheduler's counts and where the tick finds it. */
#include "testing.h"
#include "waits/wait_account.h"

#define MS 1000000ull

/* a tick at now of one thread */
static void tick(struct wait_account *a, uint64_t now, pid_t tid, uint64_t start, uint64_t run, uint64_t runq,
		 uint64_t switches, char state, enum wait_class wait)
{
	wait_account_begin(a, now);
	struct wait_thread *th = wait_account_thread(a, tid, tid, start);
	EXPECT(th != NULL);
	EXPECT_EQ(wait_account_add(a, th, true, run, runq, switches, state, wait, -1, "fn"), 0);
	wait_account_end(a);
}

TEST(a_sleeping_thread_s_time_is_where_it_sleeps)
{
	struct wait_account a;
	wait_account_init(&a);
	tick(&a, 100 * MS, 7, 0, 5 * MS, 0, 3, 'S', WC_LOCK); /* the baseline */
	tick(&a, 110 * MS, 7, 0, 6 * MS, 1 * MS, 4, 'S', WC_LOCK);
	EXPECT_EQ(a.ns[WC_RUNNING], 1 * MS);
	EXPECT_EQ(a.ns[WC_RUNNABLE], 1 * MS);
	EXPECT_EQ(a.ns[WC_LOCK], 8 * MS); /* the rest of its 10 ms */
	EXPECT_EQ(a.nthreads, 1u);
	wait_account_free(&a);
}

TEST(a_thread_that_ran_through_is_running_though_its_count_lags)
{
	struct wait_account a;
	wait_account_init(&a);
	tick(&a, 100 * MS, 7, 0, 90 * MS, 0, 3, 'R', WC_OTHER);
	/* on its CPU throughout, never switched in again: its count shows 6 ms
	 * of the 10 (the scheduler brings it up to date at its next tick) */
	tick(&a, 110 * MS, 7, 0, 96 * MS, 0, 3, 'R', WC_OTHER);
	EXPECT_EQ(a.ns[WC_RUNNING], 10 * MS);
	EXPECT_EQ(a.ns[WC_OTHER], 0);
	wait_account_free(&a);
}

/* a tick at now of one thread the backend found on its CPU or not */
static void tick_cpu(struct wait_account *a, uint64_t now, uint64_t run, uint64_t runq, uint64_t switches,
		     int on_cpu)
{
	wait_account_begin(a, now);
	struct wait_thread *th = wait_account_thread(a, 7, 7, 0);
	EXPECT(th != NULL);
	th->on_cpu = on_cpu;
	EXPECT_EQ(wait_account_add(a, th, true, run, runq, switches, 'R', WC_OTHER, -1, NULL), 0);
	wait_account_end(a);
}

TEST(a_thread_preempted_since_waits_in_its_run_queue_not_running)
{
	struct wait_account a;
	wait_account_init(&a);
	tick_cpu(&a, 100 * MS, 90 * MS, 0, 3, 1);
	/* on its CPU then, off it now, never switched in since: it ran 2 ms
	 * and was preempted, and its run_delay has none of the wait yet */
	tick_cpu(&a, 110 * MS, 92 * MS, 0, 3, 0);
	EXPECT_EQ(a.ns[WC_RUNNING], 2 * MS);
	EXPECT_EQ(a.ns[WC_RUNNABLE], 8 * MS);
	/* still waiting: the whole tick */
	tick_cpu(&a, 120 * MS, 92 * MS, 0, 3, 0);
	EXPECT_EQ(a.ns[WC_RUNNABLE], 10 * MS);
	EXPECT_EQ(a.ns[WC_RUNNING], 0);
	/* switched in after 3 ms more, ran 7: run_delay holds the 21 ms it
	 * waited, 18 of them counted already */
	tick_cpu(&a, 130 * MS, 99 * MS, 21 * MS, 4, 1);
	EXPECT_EQ(a.ns[WC_RUNNABLE], 3 * MS);
	EXPECT_EQ(a.ns[WC_RUNNING], 7 * MS);
	wait_account_free(&a);
}

TEST(a_thread_found_running_after_a_wait_had_the_wait_s_end)
{
	struct wait_account a;
	wait_account_init(&a);
	tick(&a, 100 * MS, 7, 0, 0, 0, 3, 'D', WC_DISK);
	tick(&a, 110 * MS, 7, 0, 2 * MS, 0, 4, 'R', WC_OTHER);
	EXPECT_EQ(a.ns[WC_RUNNING], 2 * MS);
	EXPECT_EQ(a.ns[WC_DISK], 8 * MS);
	/* running again, and switched in since: it waited between, where it
	 * did before */
	tick(&a, 120 * MS, 7, 0, 5 * MS, 0, 6, 'R', WC_OTHER);
	EXPECT_EQ(a.ns[WC_RUNNING], 3 * MS);
	EXPECT_EQ(a.ns[WC_DISK], 7 * MS);
	wait_account_free(&a);
}

TEST(a_thread_id_used_again_is_a_new_lifetime)
{
	struct wait_account a;
	wait_account_init(&a);
	tick(&a, 100 * MS, 7, 0, 50 * MS, 0, 9, 'S', WC_SLEEP);
	/* thread 7 exited and another got its id at 104 ms: its counts start
	 * from 0, not from the first's 50 ms */
	tick(&a, 110 * MS, 7, 104 * MS, 1 * MS, 0, 1, 'S', WC_CHILD);
	EXPECT_EQ(a.ns[WC_RUNNING], 1 * MS);
	EXPECT_EQ(a.ns[WC_CHILD], 5 * MS);  /* its 6 ms alive, less its 1 ms running */
	EXPECT_EQ(a.ns[WC_SLEEP], 0);
	wait_account_free(&a);
}

TEST(a_thread_gone_is_dropped_and_one_born_runnable_spent_its_life_queued_or_running)
{
	struct wait_account a;
	wait_account_init(&a);
	tick(&a, 100 * MS, 7, 0, 0, 0, 1, 'S', WC_SLEEP);
	wait_account_begin(&a, 110 * MS);
	/* 7 is gone; 8 was born at 103 ms (a clock tick's rounding: it ran 4
	 * ms and queued 1 of what may be 7) */
	struct wait_thread *th = wait_account_thread(&a, 8, 8, 103 * MS);
	EXPECT_EQ(wait_account_add(&a, th, true, 4 * MS, 1 * MS, 2, 'R', WC_OTHER, -1, NULL), 0);
	wait_account_end(&a);
	EXPECT_EQ(a.n, 1u);
	EXPECT_EQ(a.ns[WC_RUNNING], 4 * MS);
	EXPECT_EQ(a.ns[WC_RUNNABLE], 1 * MS);
	EXPECT_EQ(a.ns[WC_OTHER] + a.ns[WC_SLEEP], 0);
	wait_account_free(&a);
}

TEST(a_mount_s_time_and_other_s_functions)
{
	struct wait_account a;
	wait_account_init(&a);
	wait_account_begin(&a, 100 * MS);
	struct wait_thread *th = wait_account_thread(&a, 7, 7, 0);
	wait_account_add(&a, th, true, 0, 0, 1, 'S', WC_FUSE, 2, "request_wait_answer");
	struct wait_thread *o = wait_account_thread(&a, 9, 7, 0);
	wait_account_add(&a, o, true, 0, 0, 1, 'D', WC_OTHER, -1, "some_driver_wait");
	wait_account_end(&a);
	wait_account_begin(&a, 200 * MS);
	wait_account_add(&a, wait_account_thread(&a, 7, 7, 0), true, 0, 0, 1, 'S', WC_FUSE, 2, "request_wait_answer");
	wait_account_add(&a, wait_account_thread(&a, 9, 7, 0), true, 0, 0, 1, 'D', WC_OTHER, -1, "some_driver_wait");
	wait_account_end(&a);
	EXPECT_EQ(a.ns[WC_FUSE], 100 * MS);
	EXPECT(a.nmount_ns == 3 && a.mount_ns[2] == 100 * MS);
	EXPECT(a.nother == 1 && a.other[0].ns == 100 * MS);
	EXPECT_STR(a.other[0].fn, "some_driver_wait");
	wait_account_free(&a);
}

TEST(a_tick_with_no_walk_finds_everyone_where_they_were)
{
	struct wait_account a;
	wait_account_init(&a);
	wait_account_begin(&a, 100 * MS);
	wait_account_add(&a, wait_account_thread(&a, 7, 7, 0), true, 0, 0, 1, 'S', WC_NETWORK, -1, NULL);
	wait_account_add(&a, wait_account_thread(&a, 8, 7, 0), true, 0, 0, 1, 'R', WC_OTHER, -1, NULL);
	wait_account_end(&a);
	wait_account_begin(&a, 110 * MS);
	EXPECT_EQ(wait_account_replay(&a), 0);
	wait_account_end(&a);
	EXPECT_EQ(a.ns[WC_NETWORK], 10 * MS);
	EXPECT_EQ(a.ns[WC_RUNNABLE], 10 * MS); /* runnable, and no CPU since */
	EXPECT_EQ(a.nthreads, 2u);
	wait_account_free(&a);
}

/* A backend holds the tick's threads while it finds more: with room
 * reserved for them all, none moves (waits' procfs backend crashed past 64
 * threads, its first ones moved by a realloc); each keeps its own counts. */
TEST(threads_held_through_a_tick_stay_where_they_are)
{
	struct wait_account a;
	wait_account_init(&a);
	wait_account_begin(&a, 100 * MS);
	enum { N = 1000 };
	EXPECT_EQ(wait_account_reserve(&a, N), 0);
	struct wait_thread *held[N];
	for (int i = 0; i < N; i++)
		held[i] = wait_account_thread(&a, 1000 + i, 1000, 0);
	for (int i = 0; i < N; i++) {
		EXPECT(held[i] == wait_account_thread(&a, 1000 + i, 1000, 0));
		EXPECT_EQ(held[i]->tid, 1000 + i);
		wait_account_add(&a, held[i], true, 0, 0, 1, 'S', WC_SLEEP, -1, NULL);
	}
	wait_account_end(&a);
	wait_account_begin(&a, 110 * MS);
	EXPECT_EQ(wait_account_reserve(&a, 2 * N), 0);
	for (int i = 0; i < N; i++)
		EXPECT_EQ(wait_account_add(&a, wait_account_thread(&a, 1000 + i, 1000, 0), true, 0, 0, 1, 'S', WC_SLEEP, -1,
					   NULL), 0);
	wait_account_end(&a);
	EXPECT_EQ(a.ns[WC_SLEEP], (uint64_t)N * 10 * MS);
	EXPECT_EQ(a.nthreads, (unsigned)N);
	wait_account_free(&a);
}
