// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Duration strings to nanoseconds and back, exactly (no floating point). */
#include "duration.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int64_t ns;
} units[] = {
	/* longest spelling first within each letter so "ms" is not read as "m" */
	{"h", 3600 * NS_PER_S}, {"m", 60 * NS_PER_S}, {"s", NS_PER_S},
	{"ms", NS_PER_MS},      {"us", NS_PER_US},    {"ns", 1},
};

static int64_t unit_ns(const char *u)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].ns;
	return 0;
}

int duration_parse(const char *s, int64_t *ns, const char **why)
{
	const char *p = s;
	int64_t whole = 0, frac = 0, frac_scale = 1;
	int digits = 0;

	while (*p >= '0' && *p <= '9') {
		int d = *p++ - '0';
		if (whole > (INT64_MAX - d) / 10)
			goto range;
		whole = whole * 10 + d;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (frac_scale > INT64_MAX / 10)
				goto range;
			frac = frac * 10 + (*p++ - '0');
			frac_scale *= 10;
			digits++;
		}
		if (frac_scale == 1) {
			*why = "expected digits after the decimal point";
			return -EINVAL;
		}
	}
	if (digits == 0) {
		*why = "expected a number followed by a unit (ns, us, ms, s, m, h)";
		return -EINVAL;
	}
	if (*p == '\0') {
		*why = "missing unit (ns, us, ms, s, m, h)";
		return -EINVAL;
	}
	int64_t unit = unit_ns(p);
	if (unit == 0) {
		*why = "unknown unit (use ns, us, ms, s, m or h)";
		return -EINVAL;
	}
	if (whole > INT64_MAX / unit)
		goto range;
	int64_t total = whole * unit;
	if (frac) {
		/* frac/frac_scale of a unit must come out as whole nanoseconds */
		if (frac > INT64_MAX / unit || (frac * unit) % frac_scale != 0) {
			*why = "not a whole number of nanoseconds";
			return -EINVAL;
		}
		int64_t extra = frac * unit / frac_scale;
		if (total > INT64_MAX - extra)
			goto range;
		total += extra;
	}
	*ns = total;
	return 0;
range:
	*why = "too large";
	return -ERANGE;
}

void duration_format(int64_t ns, char *buf, size_t len)
{
	if (ns == 0) {
		snprintf(buf, len, "0s");
		return;
	}
	/* units[] runs from the largest unit down, so the first exact one wins */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns % units[i].ns == 0) {
			snprintf(buf, len, "%lld%s", (long long)(ns / units[i].ns), units[i].name);
			return;
		}
	}
}

void duration_human(int64_t ns, char *buf, size_t len)
{
	static const struct {
		int64_t ns;
		const char *name;
	} small[] = {{NS_PER_S, "s"}, {NS_PER_MS, "ms"}, {NS_PER_US, "\u00b5s"}};
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	if (a >= 3600 * (uint64_t)NS_PER_S) {
		uint64_t min = (a + 30 * NS_PER_S) / (60 * NS_PER_S);
		snprintf(buf, len, "%s%llu h %llu min", sign, (unsigned long long)(min / 60),
			 (unsigned long long)(min % 60));
		return;
	}
	if (a >= 60 * (uint64_t)NS_PER_S) {
		uint64_t s = (a + NS_PER_S / 2) / NS_PER_S;
		snprintf(buf, len, "%s%llu min %llu s", sign, (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
		return;
	}
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		if (a >= (uint64_t)small[i].ns) {
			double v = (double)a / (double)small[i].ns;
			snprintf(buf, len, "%s%.*f %s", sign, v < 10 ? 2 : v < 100 ? 1 : 0, v, small[i].name);
			return;
		}
	snprintf(buf, len, "%s%llu ns", sign, (unsigned long long)a);
}
