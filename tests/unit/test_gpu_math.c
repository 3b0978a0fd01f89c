// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The gpu source's arithmetic: counters that wrap, how far apart two
 * readings of a PCIe counter may be, and whose process NVML lists. The
 * expected values are worked out here from the definitions (a counter of
 * `bits` bits counts modulo 2^bits; PCIe n.0 signals at 2.5, 5, 8, 16, 32,
 * 64 GT/s a lane). */
#include <stdint.h>

#include "gpu/gpu_math.h"
#include "testing.h"

TEST(a_32_bit_counter_that_wraps_inside_an_interval)
{
	EXPECT_EQ(gpu_wrap_delta(100, 1100, 32), 1000);
	/* 4294967000 -> 500: 296 bytes to the wrap, 500 after it */
	EXPECT_EQ(gpu_wrap_delta(4294967000u, 500, 32), 796);
	EXPECT_EQ(gpu_wrap_delta(0, 0xffffffffu, 32), 0xffffffffu);
	EXPECT_EQ(gpu_wrap_delta(7, 7, 32), 0);
	/* 64 bits: plain subtraction, wrapping at 2^64 */
	EXPECT_EQ(gpu_wrap_delta(UINT64_MAX - 1, 3, 64), 5);
}

TEST(link_rates_from_generation_and_width)
{
	/* PCIe 5.0 x16: 32 GT/s x 16 lanes / 8 bits */
	EXPECT_EQ(gpu_pcie_max_bytes_per_s(5, 16), 64000000000ull);
	EXPECT_EQ(gpu_pcie_max_bytes_per_s(4, 16), 32000000000ull);
	EXPECT_EQ(gpu_pcie_max_bytes_per_s(3, 8), 8000000000ull);
	EXPECT_EQ(gpu_pcie_max_bytes_per_s(1, 1), 312500000ull);
	/* unknown: 0 */
	EXPECT_EQ(gpu_pcie_max_bytes_per_s(0, 16), 0);
	EXPECT_EQ(gpu_pcie_max_bytes_per_s(7, 16), 0);
	EXPECT_EQ(gpu_pcie_max_bytes_per_s(5, 0), 0);
}

TEST(the_longest_interval_a_wrapping_counter_can_span)
{
	/* 2^32 bytes at 64 GB/s: 67.108864 ms */
	EXPECT_EQ(gpu_wrap_safe_ns(32, 64000000000ull), 67108864);
	/* at 32 GB/s twice as long */
	EXPECT_EQ(gpu_wrap_safe_ns(32, 32000000000ull), 134217728);
	EXPECT_EQ(gpu_wrap_safe_ns(64, 64000000000ull), INT64_MAX);
}

/* A made-up process table: pid -> parent.
 *   1 <- 50 (the test's shell) <- 100 (iopsample, the observer)
 *   100 <- 200 (the keeper) <- 300 (the target) <- 301 <- 302
 *   200 <- 310 (an orphan of the target the keeper adopted)
 *   100 <- 400 (a sampler of iopsample's)
 *   1 <- 500 (someone else's) */
static pid_t parent(pid_t pid, void *arg)
{
	(void)arg;
	switch (pid) {
	case 50: return 1;
	case 100: return 50;
	case 200: return 100;
	case 300: return 200;
	case 301: return 300;
	case 302: return 301;
	case 310: return 200;
	case 400: return 100;
	case 500: return 1;
	default: return 0; /* no such process */
	}
}

TEST(a_process_is_the_trees_when_the_target_or_keeper_is_above_it)
{
	EXPECT(gpu_in_tree(300, 300, 200, 100, parent, NULL));
	EXPECT(gpu_in_tree(302, 300, 200, 100, parent, NULL));
	EXPECT(gpu_in_tree(310, 300, 200, 100, parent, NULL));
	EXPECT(!gpu_in_tree(200, 300, 200, 100, parent, NULL)); /* the keeper itself */
	EXPECT(!gpu_in_tree(400, 300, 200, 100, parent, NULL)); /* iopsample's own */
	EXPECT(!gpu_in_tree(100, 300, 200, 100, parent, NULL));
	EXPECT(!gpu_in_tree(50, 300, 200, 100, parent, NULL));
	EXPECT(!gpu_in_tree(500, 300, 200, 100, parent, NULL));
	EXPECT(!gpu_in_tree(999, 300, 200, 100, parent, NULL)); /* gone */
	EXPECT(!gpu_in_tree(1, 300, 200, 100, parent, NULL));
}

TEST(attached_there_is_no_keeper_and_iopsample_may_run_below_the_target)
{
	/* attached to 300 with no keeper; iopsample (observer 301) runs
	 * below it, as a harness attaching to itself */
	EXPECT(gpu_in_tree(300, 300, 0, 301, parent, NULL));
	EXPECT(!gpu_in_tree(302, 300, 0, 301, parent, NULL)); /* below iopsample */
	EXPECT(!gpu_in_tree(310, 300, 0, 301, parent, NULL)); /* the keeper's, not the target's */
}
