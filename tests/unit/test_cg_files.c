// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The cgroup files the cgroup source reads, as each kernel writes them. */
#include <errno.h>
#include <string.h>

#include "cgroup/cg_files.h"
#include "testing.h"

TEST(flat_keyed_files_of_both_versions)
{
	static const char v2_cpu[] = "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n"
				     "core_sched.force_idle_usec 0\nnr_periods 10\nnr_throttled 3\n"
				     "throttled_usec 45000\n";
	uint64_t v;
	EXPECT_EQ(cg_keyed(v2_cpu, "usage_usec", &v), 0);
	EXPECT_EQ(v, 1234567);
	EXPECT_EQ(cg_keyed(v2_cpu, "throttled_usec", &v), 0);
	EXPECT_EQ(v, 45000);
	EXPECT_EQ(cg_keyed(v2_cpu, "nr_throttled", &v), 0);
	EXPECT_EQ(v, 3);
	/* a key that is a prefix of another is not it */
	EXPECT_EQ(cg_keyed(v2_cpu, "usage", &v), -ENOENT);
	/* without the cpu controller v2 has the first three only */
	EXPECT_EQ(cg_keyed("usage_usec 5\nuser_usec 3\nsystem_usec 2\n", "nr_throttled", &v), -ENOENT);
	static const char v1_mem[] = "cache 4096\nrss 8192\ntotal_cache 12288\ntotal_rss 16384\n"
				     "total_pgfault 77\ntotal_pgmajfault 2\n";
	EXPECT_EQ(cg_keyed(v1_mem, "total_rss", &v), 0);
	EXPECT_EQ(v, 16384);
	EXPECT_EQ(cg_keyed(v1_mem, "rss", &v), 0);
	EXPECT_EQ(v, 8192);
	EXPECT_EQ(cg_keyed("pgfault x\n", "pgfault", &v), -EINVAL);
}

TEST(single_numbers_and_max)
{
	uint64_t v;
	EXPECT_EQ(cg_number("1048576\n", &v), 0);
	EXPECT_EQ(v, 1048576);
	EXPECT_EQ(cg_number("max\n", &v), -ERANGE);
	EXPECT_EQ(cg_number("12 34\n", &v), -EINVAL);
	EXPECT_EQ(cg_number("", &v), -EINVAL);
}

TEST(processes_are_lines)
{
	EXPECT_EQ(cg_lines(""), 0);
	EXPECT_EQ(cg_lines("12\n"), 1);
	EXPECT_EQ(cg_lines("12\n345\n6789\n"), 3);
}

TEST(pressure_with_and_without_full)
{
	uint64_t some, full;
	bool have_full;
	EXPECT_EQ(cg_pressure("some avg10=1.50 avg60=0.40 avg300=0.10 total=123456\n"
			      "full avg10=0.00 avg60=0.00 avg300=0.00 total=789\n",
			      &some, &full, &have_full),
		  0);
	EXPECT_EQ(some, 123456);
	EXPECT(have_full);
	EXPECT_EQ(full, 789);
	/* the host's cpu.pressure before 5.13 */
	EXPECT_EQ(cg_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=42\n", &some, &full, &have_full), 0);
	EXPECT_EQ(some, 42);
	EXPECT(!have_full);
	EXPECT_EQ(cg_pressure("nonsense\n", &some, &full, &have_full), -EINVAL);
}

struct seen {
	unsigned major[4], minor[4];
	struct cg_io io[4];
	int n;
};

static void collect(void *arg, unsigned major, unsigned minor, const struct cg_io *io)
{
	struct seen *s = arg;
	s->major[s->n] = major;
	s->minor[s->n] = minor;
	s->io[s->n++] = *io;
}

TEST(v2_io_stat_per_device)
{
	struct seen s = {0};
	EXPECT_EQ(cg_io_stat("254:0 rbytes=4096 wbytes=1048576 rios=1 wios=256 dbytes=0 dios=0\n"
			     "7:0 rbytes=0 wbytes=65536 rios=0 wios=16 dbytes=0 dios=0\n",
			     collect, &s),
		  0);
	EXPECT_EQ(s.n, 2);
	EXPECT_EQ(s.major[0], 254);
	EXPECT_EQ(s.io[0].write_bytes, 1048576);
	EXPECT_EQ(s.io[0].write_ops, 256);
	EXPECT_EQ(s.io[0].read_bytes, 4096);
	EXPECT_EQ(s.minor[1], 0);
	EXPECT_EQ(s.io[1].write_ops, 16);
	s.n = 0;
	EXPECT_EQ(cg_io_stat("", collect, &s), 0);
	EXPECT_EQ(s.n, 0);
	EXPECT_EQ(cg_io_stat("sda rbytes=1\n", collect, &s), -EINVAL);
}

TEST(v1_blkio_bytes_and_ops)
{
	static const char bytes[] = "7:0 Read 0\n7:0 Write 1048576\n7:0 Sync 1048576\n7:0 Async 0\n"
				    "7:0 Discard 0\n7:0 Total 1048576\n"
				    "254:0 Read 8192\n254:0 Write 0\n254:0 Sync 8192\n254:0 Async 0\n"
				    "254:0 Discard 0\n254:0 Total 8192\nTotal 1056768\n";
	struct seen s = {0};
	EXPECT_EQ(cg_blkio_v1(bytes, true, collect, &s), 0);
	EXPECT_EQ(s.n, 2);
	EXPECT_EQ(s.major[0], 7);
	EXPECT_EQ(s.io[0].write_bytes, 1048576);
	EXPECT_EQ(s.io[0].write_ops, 0);
	EXPECT_EQ(s.major[1], 254);
	EXPECT_EQ(s.io[1].read_bytes, 8192);
	s.n = 0;
	EXPECT_EQ(cg_blkio_v1("7:0 Read 2\n7:0 Write 256\n7:0 Total 258\nTotal 258\n", false, collect, &s), 0);
	EXPECT_EQ(s.io[0].write_ops, 256);
	EXPECT_EQ(s.io[0].read_ops, 2);
	s.n = 0;
	EXPECT_EQ(cg_blkio_v1("Total 0\n", true, collect, &s), 0);
	EXPECT_EQ(s.n, 0);
}
