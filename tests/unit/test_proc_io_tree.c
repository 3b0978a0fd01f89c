// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_io's tree accounting on scripted /proc snapshots: appearances, reaps
 * between ticks and in the middle of a scan, orphans, departures, pid reuse.
 * Each scenario checks the per-row change and that rows add up to what the
 * processes did. Only wchar is scripted (rchar carries twice the value, to
 * show the fields are independent); the other fields stay 0. */
#include "proc_io/proc_io_tree.h"
#include "testing.h"

enum { K = 1, R = 2, C = 3, G = 4, P = 10 };

static struct pio_tree t;
static struct pio_obs obs[32];
static size_t nobs;

static void start(pid_t root, bool keeper)
{
	pio_tree_free(&t);
	pio_tree_init(&t, root, keeper);
	nobs = 0;
}

/* one process in the pass being built; start time = pid * 100 unless given */
static void see_at(pid_t pid, pid_t ppid, uint64_t started, char state, uint64_t wchar)
{
	obs[nobs++] = (struct pio_obs){.pid = pid, .ppid = ppid, .start = started, .state = state,
				       .v = {[IO_WCHAR] = wchar, [IO_RCHAR] = 2 * wchar}};
}

static void see(pid_t pid, pid_t ppid, char state, uint64_t wchar)
{
	see_at(pid, ppid, (uint64_t)pid * 100, state, wchar);
}

/* Ends a pass: 1 settled, 0 scan again. */
static int pass(void)
{
	int r = pio_tick_pass(&t, obs, nobs);
	if (r < 0)
		FAILF("pass failed: %d", r);
	return r;
}

static void next_pass(void)
{
	nobs = 0;
}

/* Commits the last pass; returns the row's wchar change. */
static long long commit(unsigned *nprocs)
{
	uint64_t delta[IO_NFIELDS];
	unsigned n;
	if (pio_tick_commit(&t, obs, nobs, delta, &n) < 0)
		FAILF("commit failed");
	if (delta[IO_RCHAR] != 2 * delta[IO_WCHAR])
		FAILF("fields mixed: rchar %llu for wchar %llu", (unsigned long long)delta[IO_RCHAR],
		      (unsigned long long)delta[IO_WCHAR]);
	if (nprocs)
		*nprocs = n;
	nobs = 0;
	return (long long)delta[IO_WCHAR];
}

/* A new tick; the caller adds its first pass with see(). */
static void tick(void)
{
	pio_tick_begin(&t);
}

static long long settled_commit(unsigned *nprocs)
{
	if (!pass())
		FAILF("expected a settled pass");
	return commit(nprocs);
}

/* Where the reap scenarios start: the keeper, the target having written 10
 * and its child C 50, committed as the baseline. */
static void keeper_target_and_child(void)
{
	start(K, true);
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 10), see(C, R, 'S', 50);
	settled_commit(NULL);
}

TEST(keeper_counts_the_target_not_itself)
{
	unsigned n;
	start(K, true);
	tick();
	see(K, 0, 'S', 0);
	see(R, K, 'S', 0);
	EXPECT_EQ(settled_commit(&n), 0); /* the baseline */

	tick();
	see(K, 0, 'S', 0);
	see(R, K, 'R', 100);
	EXPECT_EQ(settled_commit(&n), 100);
	EXPECT_EQ(n, 1);
}

TEST(the_baseline_is_not_a_row)
{
	start(P, false);
	tick();
	see(P, 1, 'S', 5000); /* an attached process did I/O before we came */
	EXPECT_EQ(settled_commit(NULL), 5000);
	tick();
	see(P, 1, 'S', 5010);
	EXPECT_EQ(settled_commit(NULL), 10);
}

TEST(child_exits_then_is_reaped_between_ticks)
{
	unsigned n;
	start(K, true);
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 0);
	settled_commit(NULL);

	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 10), see(C, R, 'R', 50);
	EXPECT_EQ(settled_commit(&n), 60);
	EXPECT_EQ(n, 2);

	tick(); /* C exited (a zombie, 70 in all), not reaped yet */
	see(K, 0, 'S', 0), see(R, K, 'S', 20), see(C, R, 'Z', 70);
	EXPECT_EQ(settled_commit(&n), 30);
	EXPECT_EQ(n, 1);

	tick(); /* R reaped C: R's counts now hold C's 70, and R did 5 more */
	see(K, 0, 'S', 0), see(R, K, 'S', 20 + 70 + 5);
	EXPECT_EQ(pass(), 0); /* C vanished: was the fold before R was read? */
	next_pass();
	see(K, 0, 'S', 0), see(R, K, 'S', 95);
	EXPECT_EQ(settled_commit(&n), 5); /* C counted once */
	EXPECT_EQ(n, 1);
}

TEST(reap_landing_mid_scan_is_read_again)
{
	keeper_target_and_child();

	/* C wrote 30 more and exited; R reaped it after R was read but before C
	 * was: C is gone and R does not hold it yet */
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 10);
	EXPECT_EQ(pass(), 0);
	next_pass(); /* the rescan reads R after the fold */
	see(K, 0, 'S', 0), see(R, K, 'S', 10 + 80);
	EXPECT_EQ(settled_commit(NULL), 30);
}

TEST(a_child_in_state_x_is_read_again)
{
	keeper_target_and_child();

	/* EXIT_DEAD: the reaper has claimed C; whether R holds C's 80 yet is
	 * unknown (here it does not) */
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 10), see(C, R, 'X', 80);
	EXPECT_EQ(pass(), 0);
	next_pass(); /* still X, and now R holds it: still unsure, once more */
	see(K, 0, 'S', 0), see(R, K, 'S', 90), see(C, R, 'X', 80);
	EXPECT_EQ(pass(), 0);
	next_pass(); /* C vanished: the fold may have landed after R was read */
	see(K, 0, 'S', 0), see(R, K, 'S', 90);
	EXPECT_EQ(pass(), 0);
	next_pass(); /* C was already gone when this pass began: settled */
	see(K, 0, 'S', 0), see(R, K, 'S', 90);
	EXPECT_EQ(settled_commit(NULL), 30);
}

TEST(out_of_passes_a_late_count_moves_to_the_next_row)
{
	keeper_target_and_child();

	/* committed unsettled: C missing and not yet in R, the total looks
	 * 50 lower than before: the row says 0, never negative */
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 10);
	EXPECT_EQ(pass(), 0);
	EXPECT_EQ(commit(NULL), 0);

	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 10 + 80 + 4);
	EXPECT_EQ(settled_commit(NULL), 34); /* C's 30 and R's 4: nothing lost */
}

TEST(an_x_child_committed_unsettled_is_left_to_its_reaper)
{
	keeper_target_and_child();

	tick(); /* R already holds C's 80 while C still shows in X */
	see(K, 0, 'S', 0), see(R, K, 'S', 90), see(C, R, 'X', 80);
	EXPECT_EQ(pass(), 0);
	EXPECT_EQ(commit(NULL), 30); /* not 110: C is not counted twice */
}

TEST(orphans_go_to_the_keeper)
{
	unsigned n;
	start(K, true);
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 0);
	settled_commit(NULL);
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 10), see(C, R, 'S', 20);
	EXPECT_EQ(settled_commit(NULL), 30);

	/* R exited (15 in all); C was re-parented to the keeper, which reaped R */
	tick();
	see(K, 0, 'S', 15), see(C, K, 'S', 25);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(K, 0, 'S', 15), see(C, K, 'S', 25);
	EXPECT_EQ(settled_commit(&n), 10);
	EXPECT_EQ(n, 1);

	/* C exits at 30 and the keeper reaps it: all of it is the keeper's now */
	tick();
	see(K, 0, 'S', 45);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(K, 0, 'S', 45);
	EXPECT_EQ(settled_commit(&n), 5);
	EXPECT_EQ(n, 0);

	/* a parent and its child both gone in one interval: still inside */
	tick();
	see(K, 0, 'S', 45), see(R + 10, K, 'S', 1), see(G, R + 10, 'S', 2);
	EXPECT_EQ(settled_commit(NULL), 3);
	tick();
	see(K, 0, 'S', 45 + 5 + 9);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(K, 0, 'S', 59);
	EXPECT_EQ(settled_commit(NULL), 11);
}

TEST(attach_mode_keeps_what_departs)
{
	start(P, false);
	tick();
	see(P, 1, 'S', 100), see(P + 1, P, 'S', 50);
	settled_commit(NULL);
	tick();
	see(P, 1, 'S', 110), see(P + 1, P, 'S', 60);
	EXPECT_EQ(settled_commit(NULL), 20);

	/* P exited, reaped by its own parent; its child went to init */
	tick();
	see(P + 1, 1, 'S', 70);
	EXPECT_EQ(pass(), 1); /* reaped outside: nothing to wait for */
	EXPECT_EQ(commit(NULL), 10);

	/* the orphan exits, reaped by init: its counts stay counted */
	tick();
	EXPECT_EQ(pass(), 1);
	EXPECT_EQ(commit(NULL), 0);
}

TEST(attach_mode_child_reaped_inside)
{
	start(P, false);
	tick();
	see(P, 1, 'S', 0), see(P + 1, P, 'S', 0);
	settled_commit(NULL);
	tick();
	see(P, 1, 'S', 5), see(P + 1, P, 'S', 20);
	EXPECT_EQ(settled_commit(NULL), 25);

	tick(); /* P reaped its child (30 in all) and wrote 1 more */
	see(P, 1, 'S', 36);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(P, 1, 'S', 36);
	EXPECT_EQ(settled_commit(NULL), 11);
}

/* iowork's --children: a child C of M reaps its own child G, M reaps C,
 * and the root P reaps M, each parent after its child. */
static void attached_chain(void)
{
	start(P, false);
	tick();
	see(P, 1, 'S', 0), see(R, P, 'S', 0), see(C, R, 'S', 0), see(G, C, 'S', 0);
	settled_commit(NULL);
	tick();
	see(P, 1, 'S', 1), see(R, P, 'S', 10), see(C, R, 'S', 20), see(G, C, 'S', 40);
	EXPECT_EQ(settled_commit(NULL), 71);
}

TEST(attach_mode_a_zombie_parent_holds_what_it_reaped)
{
	attached_chain();
	/* G (45 in all) reaped by C, C (25 + 45) reaped by R, and R exited
	 * (12 + 70) before P reaped it: R's zombie holds all three */
	tick();
	see(P, 1, 'S', 1), see(R, P, 'Z', 82);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(P, 1, 'S', 1), see(R, P, 'Z', 82);
	EXPECT_EQ(settled_commit(NULL), 12); /* 2 + 5 + 5 more, each once */
	tick(); /* P reaps R */
	see(P, 1, 'S', 83);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(P, 1, 'S', 83);
	EXPECT_EQ(settled_commit(NULL), 0);
}

TEST(attach_mode_a_chain_reaped_within_one_tick_is_inside)
{
	attached_chain();
	/* all three gone in one tick, the root holding them through its reap
	 * of R, which held C's, which held G's */
	tick();
	see(P, 1, 'S', 1 + 12 + 25 + 45);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(P, 1, 'S', 83);
	EXPECT_EQ(settled_commit(NULL), 12);
}

TEST(a_reused_pid_is_another_process)
{
	start(K, true);
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 0), see_at(C, R, 100, 'S', 50);
	settled_commit(NULL);

	/* C (started at 100) was reaped by R; a new process got pid C */
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 50), see_at(C, R, 200, 'S', 5);
	EXPECT_EQ(pass(), 0);
	next_pass();
	see(K, 0, 'S', 0), see(R, K, 'S', 50), see_at(C, R, 200, 'S', 5);
	EXPECT_EQ(settled_commit(NULL), 5);
}

TEST(every_field_is_carried_apart)
{
	uint64_t delta[IO_NFIELDS];
	unsigned n;
	start(K, true);
	pio_tick_begin(&t);
	obs[0] = (struct pio_obs){.pid = K, .start = 1, .state = 'S'};
	EXPECT_EQ(pio_tick_pass(&t, obs, 1), 1);
	pio_tick_commit(&t, obs, 1, delta, &n);

	pio_tick_begin(&t);
	for (int f = 0; f < IO_NFIELDS; f++)
		obs[0].v[f] = (uint64_t)(f + 1) * 1000 + 7;
	EXPECT_EQ(pio_tick_pass(&t, obs, 1), 1);
	pio_tick_commit(&t, obs, 1, delta, &n);
	for (int f = 0; f < IO_NFIELDS; f++)
		EXPECT_EQ(delta[f], (f + 1) * 1000 + 7);
	pio_tree_free(&t);
}

/* A tick that observes the tracked processes again, in their order, is
 * summed at once; one in another order, with one more, or one fewer, goes
 * the whole way: the rows are the same either way. */
TEST(a_steady_tick_counts_as_the_whole_way)
{
	unsigned n;
	start(K, true);
	tick();
	see(K, 0, 'S', 0), see(R, K, 'S', 0), see(C, R, 'S', 0);
	settled_commit(NULL);
	for (int i = 1; i <= 3; i++) { /* steady */
		tick();
		see(K, 0, 'S', 0), see(R, K, 'S', 10 * i), see(C, R, 'S', 100 * i);
		EXPECT_EQ(settled_commit(&n), 110);
		EXPECT_EQ(n, 2);
	}
	tick(); /* the same, read in another order */
	see(K, 0, 'S', 0), see(C, R, 'S', 400), see(R, K, 'S', 40);
	EXPECT_EQ(settled_commit(&n), 110);
	tick(); /* and steady in that order */
	see(K, 0, 'S', 0), see(C, R, 'S', 500), see(R, K, 'S', 50);
	EXPECT_EQ(settled_commit(&n), 110);
	tick(); /* a new child */
	see(K, 0, 'S', 0), see(C, R, 'S', 600), see(R, K, 'S', 60), see(G, C, 'S', 7);
	EXPECT_EQ(settled_commit(&n), 117);
	EXPECT_EQ(n, 3);
	tick(); /* G's pid reused at once by another process, same place */
	see(K, 0, 'S', 0), see(C, R, 'S', 600), see(R, K, 'S', 60), see_at(G, C, 99999, 'S', 3);
	EXPECT_EQ(pass(), 0); /* the first G vanished: its reaper C read before? */
	next_pass();
	see(K, 0, 'S', 0), see(C, R, 'S', 600 + 7), see(R, K, 'S', 60), see_at(G, C, 99999, 'S', 3);
	EXPECT_EQ(settled_commit(&n), 3); /* G's 7 in C's now: once */
}
