// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc/diskstats lines of the three widths the kernel has printed, and
 * the deltas between two of them. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diskstats/diskstats_line.h"
#include "procfs.h"
#include "testing.h"

TEST(the_three_widths_parse_with_what_they_have)
{
	struct ds_line l;
	/* 5.5 and later: 17 counters, flushes last */
	EXPECT_EQ(ds_parse_line(" 254       0 vda 9087 3311 663078 3795 42148 29751 1471504 32436 0 46712 "
				"40419 0 0 0 0 6722 4186\n", &l), 0);
	EXPECT_EQ(l.major, 254);
	EXPECT_STR(l.name, "vda");
	EXPECT_EQ(l.n, 17);
	EXPECT_EQ(l.v[DS_READ_OPS], 9087);
	EXPECT_EQ(l.v[DS_READ_SECTORS], 663078);
	EXPECT_EQ(l.v[DS_WRITE_OPS], 42148);
	EXPECT_EQ(l.v[DS_IO_MS], 46712);
	EXPECT_EQ(l.v[DS_FLUSH_OPS], 6722);
	EXPECT_EQ(l.v[DS_FLUSH_MS], 4186);
	/* 4.18 to 5.4: discards, no flushes */
	EXPECT_EQ(ds_parse_line("   7 0 loop0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", &l), 0);
	EXPECT_EQ(l.n, 15);
	EXPECT_EQ(l.v[DS_DISCARD_MS], 15);
	/* before 4.18 */
	EXPECT_EQ(ds_parse_line("8 1 sda1 1 2 3 4 5 6 7 8 9 10 11", &l), 0);
	EXPECT_EQ(l.n, 11);
	EXPECT_EQ(l.v[DS_WEIGHTED_MS], 11);
	/* a future kernel's extra counters are ignored */
	EXPECT_EQ(ds_parse_line("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", &l), 0);
	EXPECT_EQ(l.n, 17);
}

TEST(what_is_not_a_line_is_refused)
{
	struct ds_line l;
	EXPECT_EQ(ds_parse_line("", &l), -EINVAL);
	EXPECT_EQ(ds_parse_line("8 0 sda 1 2 3 4", &l), -EINVAL); /* 2.6's partition lines */
	EXPECT_EQ(ds_parse_line("8 0 sda 1 2 3 4 5 6 7 8 9 10 x", &l), -EINVAL);
	EXPECT_EQ(ds_parse_line("8 0 sda 1 2 3 4 5 6 7 8 9 10 11 junk", &l), -EINVAL);
	EXPECT_EQ(ds_parse_line("a b sda 1 2 3 4 5 6 7 8 9 10 11", &l), -EINVAL);
}

TEST(deltas_wrap_at_32_bits_and_never_go_negative)
{
	struct ds_line a = {.n = 17}, b = {.n = 17};
	a.v[DS_READ_OPS] = 10;
	b.v[DS_READ_OPS] = 25;
	EXPECT_EQ(ds_delta(&a, &b, DS_READ_OPS), 15);
	a.v[DS_IO_MS] = 4294967290u; /* 2^32 - 6 */
	b.v[DS_IO_MS] = 4;
	EXPECT_EQ(ds_delta(&a, &b, DS_IO_MS), 10);
	a.v[DS_READ_SECTORS] = 1ull << 40;
	b.v[DS_READ_SECTORS] = 7;
	EXPECT_EQ(ds_delta(&a, &b, DS_READ_SECTORS), 0);
}

/* The numbers alone, as the whole parse reads them, from every line of
 * this host's file (unchosen devices are not parsed further). */
TEST(device_numbers_alone)
{
	char buf[65536];
	ssize_t n = procfs_read("/proc/diskstats", buf, sizeof(buf));
	EXPECT(n > 0);
	int lines = 0;
	for (char *line = buf, *end; *line; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		char save = *end;
		*end = '\0';
		unsigned major, minor;
		struct ds_line l;
		EXPECT_EQ(ds_line_device(line, &major, &minor), 0);
		EXPECT_EQ(ds_parse_line(line, &l), 0);
		EXPECT_EQ(major, l.major);
		EXPECT_EQ(minor, l.minor);
		*end = save;
		lines++;
	}
	EXPECT(lines > 0);
	unsigned major, minor;
	EXPECT_EQ(ds_line_device("   8", &major, &minor), -EINVAL);
	EXPECT_EQ(ds_line_device("8 x sda 1 2 3", &major, &minor), -EINVAL);
	EXPECT_EQ(ds_line_device("99999999999 0 sda", &major, &minor), -EINVAL);
}
