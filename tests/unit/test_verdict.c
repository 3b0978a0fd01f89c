// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The verdict's rules (reader/verdict.c) on windows whose figures are
 * written out here, each expected share worked by hand from
 * docs/data-model.md's "The verdict"; the shares' bounds over random
 * windows, chunky ones included; and delays put back where they were
 * waited. */
#include <math.h>
#include <stdint.h>

#include "testing.h"
#include "verdict.h"
#include "verdict_signal.h"

#define W 100e6 /* a 100 ms window */

#define EXPECT_NEAR(actual, expected)                                                        \
	do {                                                                                 \
		double a_ = (actual), e_ = (expected);                                       \
		if (!(fabs(a_ - e_) <= 1e-9))                                                \
			FAILF("%s is %.12g, expected %.12g", #actual, a_, e_);               \
	} while (0)

static struct verdict_in window(void)
{
	struct verdict_in in;
	verdict_in_clear(&in);
	in.window_ns = W;
	in.cpus = 2;
	in.run_ns = in.cpu_delay_ns = in.blkio_ns = in.swapin_ns = in.freepages_ns = 0;
	in.thrashing_ns = in.compact_ns = 0;
	in.nthreads = 1;
	in.swap_in_blkio = true; /* a kernel from 5.17 on, as this host's */
	return in;
}

static struct verdict_out decide(const struct verdict_in *in)
{
	struct verdict_out out;
	verdict_decide(in, &out);
	double sum = 0;
	for (int l = 0; l < V_LABELS; l++) {
		if (!(out.share[l] >= 0 && out.share[l] <= 1))
			FAILF("share %s is %g", verdict_label_names[l], out.share[l]);
		sum += out.share[l];
	}
	if (fabs(sum - 1) > 1e-9)
		FAILF("shares add up to %.12g", sum);
	return out;
}

TEST(one_thread_computing_is_cpu)
{
	struct verdict_in in = window();
	in.run_ns = 99.9e6;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_CPU);
	EXPECT_NEAR(out.share[V_CPU], 0.999);
	EXPECT_NEAR(out.share[V_IDLE], 0.001);
	EXPECT_CONTAINS(out.evidence, "running 100 % of a CPU");
}

TEST(a_sleeping_tree_is_idle)
{
	struct verdict_in in = window();
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_IDLE);
	EXPECT_NEAR(out.share[V_IDLE], 1);
	EXPECT_CONTAINS(out.evidence, "neither running nor waiting");
}

TEST(direct_reads_are_disk_with_the_device_busy)
{
	struct verdict_in in = window();
	in.run_ns = 10e6;
	in.blkio_ns = 90e6;
	in.read_bytes = 128.0 * 1048576;
	in.write_bytes = 0;
	in.disk = "vda";
	in.disk_util = 92;
	in.disk_read_bytes = 128.0 * 1048576;
	in.disk_read_ops = 128;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_DISK);
	EXPECT_NEAR(out.share[V_DISK], 0.9);
	EXPECT_NEAR(out.share[V_CPU], 0.1);
	EXPECT_CONTAINS(out.evidence, "waiting for block I/O 90 % of the time: 128.00 MiB read");
	EXPECT_CONTAINS(out.evidence, "vda 92 % busy, reads of 1.00 MiB");
}

TEST(a_throttled_disk_is_disk_held_before_the_device)
{
	/* two workers on 16 MiB/s: 200 % of the window waiting, vda idle */
	struct verdict_in in = window();
	in.nthreads = 3;
	in.run_ns = 5e6;
	in.blkio_ns = 200e6;
	in.read_bytes = 1.6 * 1048576;
	in.disk = "vda";
	in.disk_util = 0;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_DISK);
	/* thread time over the window: divided by their sum, 205 ms */
	EXPECT_NEAR(out.share[V_DISK], 200.0 / 205);
	EXPECT_NEAR(out.share[V_IDLE], 0);
	EXPECT_CONTAINS(out.evidence, "summed over its threads");
	EXPECT_CONTAINS(out.evidence, "holds the requests before the device");
}

TEST(own_threads_outnumbering_the_cpus_are_cpu)
{
	/* 2 workers decoding on 2 CPUs: 190 % running, 80 % queueing; the
	 * tree holds 95 % of the CPUs, so 95 % of its queueing is its own */
	struct verdict_in in = window();
	in.nthreads = 3;
	in.run_ns = 190e6;
	in.cpu_delay_ns = 80e6;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_CPU);
	EXPECT_NEAR(out.share[V_CPU], (190 + 80 * 0.95) / 270);
	EXPECT_NEAR(out.share[V_CPU_WAIT], 80 * 0.05 / 270);
	EXPECT_CONTAINS(out.evidence, "running 1.90 CPUs of the host's 2");
	EXPECT_CONTAINS(out.evidence, "queue for the CPUs 76 % of the time");
}

TEST(cpus_held_by_others_are_cpu_wait)
{
	/* pinned to a CPU others hold: 12 % running, 85 % waiting */
	struct verdict_in in = window();
	in.run_ns = 12e6;
	in.cpu_delay_ns = 85e6;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_CPU_WAIT);
	EXPECT_NEAR(out.share[V_CPU_WAIT], 0.85 * (1 - 0.06));
	EXPECT_NEAR(out.share[V_CPU], 0.12 + 0.85 * 0.06);
	EXPECT_CONTAINS(out.evidence, "busy with other work");
}

TEST(a_quota_is_cpu_wait_however_much_the_tree_holds)
{
	/* at its quota of one CPU: the throttled time is waiting, not its own */
	struct verdict_in in = window();
	in.nthreads = 2;
	in.run_ns = 100e6;
	in.cpu_delay_ns = 100e6;
	in.throttled_ns = 60e6;
	struct verdict_out out = decide(&in);
	/* quota 60; the other 40 split by the share held, 1/2 */
	EXPECT_NEAR(out.share[V_CPU_WAIT], (60 + 20) / 200.0);
	EXPECT_NEAR(out.share[V_CPU], (100 + 20) / 200.0);
	in.throttled_ns = 100e6;
	out = decide(&in);
	EXPECT_EQ(out.label, V_CPU_WAIT);
	EXPECT_NEAR(out.share[V_CPU_WAIT], 0.5);
	EXPECT_CONTAINS(out.evidence, "its CPU quota throttled it 100 %");
}

TEST(a_tree_pinned_to_fewer_cpus_than_the_host_queues_behind_itself)
{
	/* taskset -c 0 make -j4 on this 2-CPU host: 98 % of its one CPU,
	 * three jobs waiting for it all the time */
	struct verdict_in in = window();
	in.tree_cpus = 1;
	in.run_ns = 98e6;
	in.cpu_delay_ns = 296e6;
	in.nthreads = 9;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_CPU);
	EXPECT(out.share[V_CPU] >= 0.98);
	EXPECT_CONTAINS(out.evidence, "of the 1 it may use (the host has 2)");
	EXPECT_CONTAINS(out.evidence, "its own threads queue for the CPUs");
	/* counted against the host's two CPUs, half its wait was others' */
	in.tree_cpus = NAN;
	out = decide(&in);
	EXPECT(out.share[V_CPU_WAIT] > 0.3);
}

TEST(a_quota_above_its_cgroup_is_cpu_wait_naming_it)
{
	/* the same make under a parent cgroup's 0.5 CPU quota: throttled
	 * half the time, every waiting job held meanwhile */
	struct verdict_in in = window();
	in.tree_cpus = 1;
	in.run_ns = 49e6;
	in.cpu_delay_ns = 282e6;
	in.throttled_ns = 0;
	in.ancestor_throttled_ns = 51e6;
	in.quota_ancestor = "/sys/fs/cgroup/cpu/job";
	in.quota_ancestor_cpus = 0.5;
	in.nthreads = 9;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_CPU_WAIT);
	EXPECT_CONTAINS(out.evidence, "the CPU quota of /sys/fs/cgroup/cpu/job (0.5 CPUs) above its "
				      "cgroup throttled it 51 %");
}

TEST(a_sleep_over_memory_high_is_memory)
{
	/* over memory.high the kernel has the tree reclaim (5 ms) and sleep:
	 * only the cgroup's memory pressure (80 ms) counts the sleep */
	struct verdict_in in = window();
	in.run_ns = 10e6;
	in.freepages_ns = 5e6;
	in.memory_some_ns = 80e6;
	in.memory_high_events = 0; /* the reclaim came in the window before */
	in.high_recent = 40;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_MEMORY);
	EXPECT_NEAR(out.share[V_MEMORY], 0.8);
	EXPECT_CONTAINS(out.evidence, "over its memory.high (40 reclaims in the 2 s before): the kernel "
				      "made it sleep 75 %");
	/* without a memory.high event near, pressure is not taken for a sleep */
	in.high_recent = 0;
	out = decide(&in);
	EXPECT_EQ(out.label, V_IDLE);
}

TEST(paging_is_memory_its_kernel_cpu_included)
{
	/* swapping under a memory limit: swap-in waits (counted as block I/O
	 * too), reclaim, 50 ms of the run in the kernel */
	struct verdict_in in = window();
	in.run_ns = 75e6;
	in.system_ns = 50e6;
	in.blkio_ns = 25e6;
	in.blkio_count = 50;
	in.swapin_ns = 25e6;
	in.swapin_count = 50;
	in.read_bytes = 50 * 4096.0;
	in.thrashing_ns = 20e6;
	in.freepages_ns = 10e6;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_MEMORY);
	EXPECT_NEAR(out.share[V_MEMORY], (25 + 50) / 100.0);
	EXPECT_NEAR(out.share[V_DISK], 0);
	EXPECT_NEAR(out.share[V_CPU], 0.25);
	EXPECT_CONTAINS(out.evidence, "paging 75 % of the time: swap-in 25 %, thrashing 20 %, reclaim 10 %");
}

TEST(a_swap_read_ahead_waited_on_its_lock_is_memory_not_disk)
{
	/* a window of the anon phase here (6.18): every block I/O wait a
	 * swap-in's (1289 of them, 1293 swap-ins, every byte read a swapped
	 * page), the swap-in time covering only its synchronous part */
	struct verdict_in in = window();
	in.run_ns = 47.4e6;
	in.blkio_ns = 52e6;
	in.blkio_count = 1289;
	in.swapin_ns = 21.3e6;
	in.swapin_count = 1293;
	in.read_bytes = 1293 * 4096.0;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_MEMORY);
	EXPECT_NEAR(out.share[V_DISK], 0);
	EXPECT_NEAR(out.share[V_MEMORY], 0.52);
}

TEST(swap_ins_and_file_reads_share_block_io_by_waits_and_bytes)
{
	/* a worker reads a file while the job swaps in, both queued at one
	 * device: 200 of the 300 waits are swap-ins (2/3), their pages 800 KiB
	 * of the 16 MiB read (1/20): their share of block I/O is the mean, and
	 * the swap-in time no floor to it (it may be CPU) */
	struct verdict_in in = window();
	in.run_ns = 20e6;
	in.blkio_ns = 180e6;
	in.blkio_count = 300;
	in.swapin_ns = 10e6;
	in.swapin_count = 200;
	in.read_bytes = 200 * 4096 * 20.0;
	in.nthreads = 2;
	double share = (2 / 3.0 + 1 / 20.0) / 2;
	struct verdict_out out = decide(&in);
	EXPECT_NEAR(out.share[V_MEMORY], 180 * share / 200);
	EXPECT_NEAR(out.share[V_DISK], 180 * (1 - share) / 200);
	EXPECT_EQ(out.label, V_DISK);
	/* without the bytes (no I/O accounting), the waits' share alone */
	in.read_bytes = NAN;
	out = decide(&in);
	EXPECT_NEAR(out.share[V_MEMORY], 120 / 200.0);
}

TEST(before_5_17_a_swap_in_is_not_block_io)
{
	/* 5.10 (the kernel matrix): a swap-in's device wait is swap-in's
	 * alone, so block I/O is the file's reads whole; a refaulting file
	 * page's wait is thrashing and block I/O both */
	EXPECT(!verdict_swap_waits_in_blkio("5.10.0-28-cloud-amd64"));
	EXPECT(!verdict_swap_waits_in_blkio("5.16.20"));
	EXPECT(verdict_swap_waits_in_blkio("5.17.0"));
	EXPECT(verdict_swap_waits_in_blkio("6.1.0-13-amd64"));
	EXPECT(verdict_swap_waits_in_blkio(NULL));
	struct verdict_in in = window();
	in.swap_in_blkio = false;
	in.run_ns = 20e6;
	in.blkio_ns = 90e6;
	in.swapin_ns = 40e6;
	in.swapin_count = 1000;
	in.thrashing_ns = 10e6;
	in.read_bytes = 8 * 1048576.0;
	in.nthreads = 2;
	struct verdict_out out = decide(&in);
	EXPECT_NEAR(out.share[V_DISK], 80 / 150.0); /* run 20, disk 80, memory 50 */
	EXPECT_NEAR(out.share[V_MEMORY], 50 / 150.0);
}

TEST(a_stream_under_a_limit_is_disk_and_says_so)
{
	/* reclaim 2 %: under the 5 % at which the tree pages */
	struct verdict_in in = window();
	in.run_ns = 22e6;
	in.system_ns = 20e6;
	in.blkio_ns = 72e6;
	in.freepages_ns = 2e6;
	in.memory_bytes = 96.0 * 1048576;
	in.read_bytes = 380.0 * 1048576;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_DISK);
	EXPECT_NEAR(out.share[V_DISK], 0.72);
	EXPECT_NEAR(out.share[V_MEMORY], 0.02);
	EXPECT_NEAR(out.share[V_CPU], 0.20);
	EXPECT_CONTAINS(out.evidence, "reclaims to stay under a memory limit (96.00 MiB charged)");
	EXPECT_CONTAINS(out.evidence, "re-reads what the limit evicted");
}

TEST(a_parent_waiting_on_disk_bound_workers_is_disk)
{
	/* its sleep adds nothing: what its workers wait for is the tree's */
	struct verdict_in in = window();
	in.nthreads = 3;
	in.run_ns = 8e6;
	in.cpu_delay_ns = 5e6;
	in.blkio_ns = 188e6;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_DISK);
	EXPECT_NEAR(out.share[V_DISK], 188.0 / 201);
}

TEST(a_busy_gpu_is_gpu_while_the_host_spins)
{
	struct verdict_in in = window();
	in.run_ns = 100e6;
	in.gpus = 1;
	in.gpu_busy = 0.96;
	in.pcie_h2d = in.pcie_d2h = 0;
	in.pcie_link = 64e9;
	in.pcie_gen = 5;
	in.pcie_width = 16;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_GPU);
	EXPECT_NEAR(out.share[V_GPU], 0.96);
	EXPECT_NEAR(out.share[V_CPU], 0.04);
	EXPECT_CONTAINS(out.evidence, "a kernel running on the GPU 96 % of the time");
}

TEST(copies_near_the_link_are_gpu_copy)
{
	/* 12 GB/s to a PCIe 5.0 x16 GPU: past an eighth of its 64 GB/s */
	struct verdict_in in = window();
	in.run_ns = 100e6;
	in.gpus = 1;
	in.gpu_busy = 0;
	in.pcie_h2d = 12e9;
	in.pcie_d2h = 0;
	in.pcie_link = 64e9;
	in.pcie_gen = 5;
	in.pcie_width = 16;
	struct verdict_out out = decide(&in);
	EXPECT_EQ(out.label, V_GPU_COPY);
	EXPECT_NEAR(out.share[V_GPU_COPY], 1);
	EXPECT_CONTAINS(out.evidence, "PCIe 12.0 GB/s to the GPU");
	/* 2 GB/s: a quarter of the window's copying, the rest the host's */
	in.pcie_h2d = 2e9;
	out = decide(&in);
	EXPECT_EQ(out.label, V_CPU);
	EXPECT_NEAR(out.share[V_GPU_COPY], 0.25);
	EXPECT_NEAR(out.share[V_CPU], 0.75);
}

TEST(shares_stay_in_bounds_whatever_is_charged)
{
	/* random windows, delays up to 5 windows' worth (charged in chunks) */
	uint64_t x = 88172645463325252ull;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, (double)(x % 1000000) / 1e6)
	for (int i = 0; i < 20000; i++) {
		struct verdict_in in = window();
		in.run_ns = RND() * 3 * W;
		in.cpu_delay_ns = RND() * 5 * W;
		in.blkio_ns = RND() * 5 * W;
		in.swapin_ns = RND() * RND() * 2 * W;
		in.thrashing_ns = RND() * RND() * 2 * W;
		in.freepages_ns = RND() * RND() * W;
		in.system_ns = RND() < 0.5 ? NAN : RND() * W;
		in.throttled_ns = RND() < 0.5 ? NAN : RND() * W;
		in.gpus = RND() < 0.5;
		in.gpu_busy = RND();
		in.pcie_h2d = RND() * 20e9;
		in.pcie_link = RND() < 0.2 ? NAN : 64e9;
		decide(&in); /* checks the bounds and the sum */
	}
#undef RND
}

TEST(a_delay_goes_back_over_the_time_it_was_waited)
{
	/* one thread, a 123 ms wait charged in window 3 of 50 ms windows that
	 * had room for 50 ms each: it fills 3, then 2, then 23 ms of 1 */
	double delay[5] = {0, 0, 0, 123, 0}, room[5] = {50, 50, 50, 50, 50}, out[5];
	double end[5] = {50, 100, 150, 200, 250};
	EXPECT_EQ(verdict_spread(delay, room, end, 5, out), 0);
	EXPECT_NEAR(out[0], 0);
	EXPECT_NEAR(out[1], 23);
	EXPECT_NEAR(out[2], 50);
	EXPECT_NEAR(out[3], 50);
	EXPECT_NEAR(out[4], 0);
	/* window 2's own waits take its room first: 4's spill skips it */
	double d2[5] = {0, 0, 50, 0, 80}, room2[5] = {50, 50, 50, 50, 50}, out2[5];
	EXPECT_EQ(verdict_spread(d2, room2, end, 5, out2), 0);
	EXPECT_NEAR(out2[4], 50);
	EXPECT_NEAR(out2[3], 30);
	EXPECT_NEAR(out2[2], 50);
	EXPECT_NEAR(out2[1], 0);
	/* what is left of the room, for the next kind of wait */
	EXPECT_NEAR(room2[4], 0);
	EXPECT_NEAR(room2[3], 20);
	EXPECT_NEAR(room2[2], 0);
	EXPECT_NEAR(room2[1], 50);
}

TEST(a_delay_goes_back_no_further_than_it_lasted)
{
	/* 3 ms more than the room of a full window: no further than 3 ms back,
	 * into the window before, which is full too; the idle windows before
	 * it take none of it */
	double delay[4] = {0, 0, 50, 53}, room[4] = {50, 50, 50, 50}, end[4] = {50, 100, 150, 200}, out[4];
	EXPECT_EQ(verdict_spread(delay, room, end, 4, out), 0);
	EXPECT_NEAR(out[0], 0);
	EXPECT_NEAR(out[1], 0);
	EXPECT_NEAR(out[2], 50);
	EXPECT_NEAR(out[3], 53);
}

TEST(a_delay_with_no_room_stays_where_it_was_charged)
{
	double delay[3] = {10, NAN, 500}, room[3] = {20, 20, 20}, end[3] = {20, 40, 60}, out[3];
	EXPECT_EQ(verdict_spread(delay, room, end, 3, out), 0);
	EXPECT_NEAR(out[0], 20);
	EXPECT(isnan(out[1])); /* unknown stays unknown, and takes nothing */
	/* 20 of its own room, 10 left in 0's, the rest where it was charged */
	EXPECT_NEAR(out[2], 490);
	EXPECT_NEAR(out[0] + out[2], 510); /* the total is kept */
}

TEST(a_run_of_windows_adds_up)
{
	struct verdict_in a, b = window(), c = window();
	verdict_in_clear(&a);
	b.run_ns = 50e6;
	b.disk = "vda";
	b.disk_util = 80;
	b.memory_bytes = 10;
	c.run_ns = 30e6;
	c.blkio_ns = 70e6;
	c.disk = "vda";
	c.disk_util = 40;
	c.memory_bytes = 20;
	verdict_in_add(&a, &b);
	verdict_in_add(&a, &c);
	EXPECT_NEAR(a.window_ns, 2 * W);
	EXPECT_NEAR(a.run_ns, 80e6);
	EXPECT_NEAR(a.blkio_ns, 70e6);
	EXPECT_NEAR(a.disk_util, 60); /* a share of time: the mean over the run */
	EXPECT_NEAR(a.memory_bytes, 20); /* a gauge: the highest */
	struct verdict_out out = decide(&a);
	EXPECT_NEAR(out.share[V_CPU], 0.4);
	EXPECT_NEAR(out.share[V_DISK], 0.35);
}
