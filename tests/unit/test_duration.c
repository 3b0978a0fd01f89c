// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Durations: every unit, decimals, and each way a duration can be wrong. */
#include <errno.h>

#include "duration.h"
#include "testing.h"

static int64_t parse_ok(const char *s)
{
	int64_t ns = -1;
	const char *why = NULL;
	if (duration_parse(s, &ns, &why) != 0)
		FAILF("\"%s\" rejected: %s", s, why);
	return ns;
}

static const char *parse_err(const char *s, int expect)
{
	int64_t ns;
	const char *why = NULL;
	int r = duration_parse(s, &ns, &why);
	if (r != expect)
		FAILF("\"%s\" gave %d, expected %d", s, r, expect);
	return why;
}

TEST(every_unit)
{
	EXPECT_EQ(parse_ok("7ns"), 7);
	EXPECT_EQ(parse_ok("7us"), 7000);
	EXPECT_EQ(parse_ok("100ms"), 100000000);
	EXPECT_EQ(parse_ok("60s"), 60000000000LL);
	EXPECT_EQ(parse_ok("2m"), 120000000000LL);
	EXPECT_EQ(parse_ok("1h"), 3600000000000LL);
	EXPECT_EQ(parse_ok("0s"), 0);
}

TEST(decimal_fractions_are_exact)
{
	EXPECT_EQ(parse_ok("1.5s"), 1500000000);
	EXPECT_EQ(parse_ok("0.25ms"), 250000);
	EXPECT_EQ(parse_ok("2.000001s"), 2000001000);
	EXPECT_EQ(parse_ok("0.000000001s"), 1);
	EXPECT_EQ(parse_ok(".5s"), 500000000);
}

TEST(rejects_missing_or_unknown_units)
{
	EXPECT_CONTAINS(parse_err("100", -EINVAL), "missing unit");
	EXPECT_CONTAINS(parse_err("100 ms", -EINVAL), "unknown unit");
	EXPECT_CONTAINS(parse_err("5d", -EINVAL), "unknown unit");
	EXPECT_CONTAINS(parse_err("5MS", -EINVAL), "unknown unit");
	EXPECT_CONTAINS(parse_err("ms", -EINVAL), "expected a number");
	EXPECT_CONTAINS(parse_err("", -EINVAL), "expected a number");
	EXPECT_CONTAINS(parse_err("-1s", -EINVAL), "expected a number");
	EXPECT_CONTAINS(parse_err("1.s", -EINVAL), "after the decimal point");
}

TEST(rejects_fractions_of_a_nanosecond)
{
	EXPECT_CONTAINS(parse_err("1.5ns", -EINVAL), "whole number of nanoseconds");
	EXPECT_CONTAINS(parse_err("0.0000000001s", -EINVAL), "whole number of nanoseconds");
}

TEST(rejects_overflow)
{
	EXPECT_CONTAINS(parse_err("9223372036854775808ns", -ERANGE), "too large");
	EXPECT_CONTAINS(parse_err("2562048h", -ERANGE), "too large");
	EXPECT_EQ(parse_ok("9223372036854775807ns"), INT64_MAX);
}

TEST(formats_the_shortest_exact_unit)
{
	char buf[32];
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = {
		{0, "0s"},        {1, "1ns"},          {1500, "1500ns"},     {1000000, "1ms"},
		{1500000, "1500us"}, {60000000000LL, "1m"}, {90000000000LL, "90s"}, {7200000000000LL, "2h"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		duration_format(cases[i].ns, buf, sizeof(buf));
		EXPECT_STR(buf, cases[i].text);
		EXPECT_EQ(parse_ok(buf), cases[i].ns);
	}
}
