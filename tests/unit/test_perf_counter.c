// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* perf_event's arithmetic and its reading of the kernel's refusals, from known
 * values. */
#include <errno.h>

#include "perf_event/perf_counter.h"
#include "testing.h"

static struct perf_count count(uint64_t value, uint64_t enabled, uint64_t running)
{
	return (struct perf_count){.value = value, .enabled = enabled, .running = running};
}

TEST(advance_gives_the_interval_and_moves_on)
{
	struct perf_count prev = count(100, 1000, 1000), now = count(250, 3000, 2500);
	struct perf_count d = perf_count_advance(&prev, &now);
	EXPECT_EQ(d.value, 150);
	EXPECT_EQ(d.enabled, 2000);
	EXPECT_EQ(d.running, 1500);
	EXPECT_EQ(prev.value, 250);
	EXPECT_EQ(prev.running, 2500);
	d = perf_count_advance(&prev, &now); /* nothing happened */
	EXPECT_EQ(d.value, 0);
	EXPECT_EQ(d.enabled, 0);
}

TEST(a_reading_that_goes_backwards_counts_nothing_twice)
{
	struct perf_count prev = count(1000, 5000, 5000);
	struct perf_count low = count(900, 5100, 4990);
	struct perf_count d = perf_count_advance(&prev, &low);
	EXPECT_EQ(d.value, 0);     /* not 2^64 - 100 */
	EXPECT_EQ(d.running, 0);   /* not negative either */
	EXPECT_EQ(d.enabled, 100); /* each field on its own */
	EXPECT_EQ(prev.value, 1000);
	struct perf_count later = count(1200, 5200, 5200);
	d = perf_count_advance(&prev, &later);
	EXPECT_EQ(d.value, 200); /* from the highest seen: 1000 -> 1200 */
	EXPECT_EQ(d.running, 200);
}

TEST(a_counter_that_ran_all_along_is_exact)
{
	double v;
	struct perf_count d = count(123456789012345ull, 1000, 1000);
	EXPECT(perf_count_scale(&d, &v));
	EXPECT(v == 123456789012345.0);
}

TEST(a_multiplexed_counter_is_scaled_by_enabled_over_running)
{
	double v;
	struct perf_count d = count(1000, 4000, 1000); /* on the PMU a quarter of the time */
	EXPECT(perf_count_scale(&d, &v));
	EXPECT(v == 4000.0);
	d = count(7, 3, 2);
	EXPECT(perf_count_scale(&d, &v));
	EXPECT(v == 10.5);
	/* large values: the product does not overflow 64 bits */
	d = count(1ull << 40, 1ull << 40, 1ull << 39);
	EXPECT(perf_count_scale(&d, &v));
	EXPECT(v == 2199023255552.0);
}

TEST(a_counter_enabled_but_never_running_is_unknown)
{
	double v = -1;
	struct perf_count d = count(0, 5000, 0);
	EXPECT(!perf_count_scale(&d, &v));
	EXPECT(v == -1);
}

TEST(a_counter_never_enabled_counted_nothing)
{
	/* the task was off every CPU: no time enabled, nothing to scale */
	double v = -1;
	struct perf_count d = count(0, 0, 0);
	EXPECT(perf_count_scale(&d, &v));
	EXPECT(v == 0);
}

TEST(kernel_counting_refused_is_retried_for_user_space)
{
	char why[512];
	EXPECT_EQ(perf_open_verdict(EACCES, false, 2, why, sizeof(why)), PERF_RETRY_USER_ONLY);
	EXPECT_CONTAINS(why, "perf_event_paranoid is 2");
	EXPECT_EQ(perf_open_verdict(EPERM, false, 2, why, sizeof(why)), PERF_RETRY_USER_ONLY);
	/* already user space only: nothing left to retry */
	EXPECT_EQ(perf_open_verdict(EACCES, true, 2, why, sizeof(why)), PERF_NOT_COUNTED);
	EXPECT_CONTAINS(why, "not permitted");
	EXPECT_EQ(perf_open_verdict(EACCES, true, 3, why, sizeof(why)), PERF_NOT_COUNTED);
	EXPECT_CONTAINS(why, "perf_event_paranoid is 3 or more");
	EXPECT_CONTAINS(why, "CAP_PERFMON");
}

TEST(what_the_host_cannot_count_is_not_counted_with_a_reason)
{
	static const struct {
		int err;
		const char *says;
	} cases[] = {
		{ENOENT, "no PMU provides it"},
		{EOPNOTSUPP, "does not support this event"},
		{ENODEV, "no such PMU"},
		{EINVAL, "rejected the event's encoding"},
		{EBUSY, "exclusive use"},
		{EMFILE, "ulimit -n"},
		{ENFILE, "file descriptors"},
		{ENOSYS, "perf_event_open is not available"},
		{E2BIG, "perf_event_open failed"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[512];
		EXPECT_EQ(perf_open_verdict(cases[i].err, false, 2, why, sizeof(why)),
			  PERF_NOT_COUNTED);
		EXPECT_CONTAINS(why, cases[i].says);
		EXPECT_CONTAINS(why, strerror(cases[i].err));
		EXPECT(!strchr(why, '\n'));
	}
}

TEST(a_short_reason_buffer_is_cut_not_overrun)
{
	char why[16];
	memset(why, 'x', sizeof(why));
	perf_open_verdict(ENOENT, false, 2, why, 8);
	EXPECT_EQ(strlen(why), 7);
	EXPECT(why[8] == 'x');
}

TEST(a_group_reading_gives_each_member_the_groups_times)
{
	struct perf_group_reading g = {.nr = 3, .enabled = 700, .running = 350,
				       .value = {10, 20, 30}};
	struct perf_count c = perf_group_count(&g, 2);
	EXPECT_EQ(c.value, 30);
	EXPECT_EQ(c.enabled, 700);
	EXPECT_EQ(c.running, 350);
	c = perf_group_count(&g, 0);
	EXPECT_EQ(c.value, 10);
	c = perf_group_count(&g, 3); /* a slot the reading does not have */
	EXPECT_EQ(c.value, 0);
	EXPECT_EQ(c.enabled, 0);
}
