// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include "cpulist.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "procfs.h"

static int id(const char **p)
{
	if (**p < '0' || **p > '9')
		return -EINVAL;
	long v = 0;
	for (; **p >= '0' && **p <= '9'; (*p)++)
		if ((v = v * 10 + (**p - '0')) > INT_MAX / 2)
			return -EINVAL;
	return (int)v;
}

/* Calls each(lo, hi, arg) for every range of list; the highest id, or
 * -EINVAL when list is not a CPU list. */
static int ranges(const char *list, void (*each)(int lo, int hi, void *arg), void *arg)
{
	const char *p = list;
	int highest = -EINVAL;
	for (;;) {
		int lo = id(&p), hi = lo;
		if (lo < 0)
			return -EINVAL;
		if (*p == '-') {
			p++;
			if ((hi = id(&p)) < lo)
				return -EINVAL;
		}
		if (each)
			each(lo, hi, arg);
		if (hi > highest)
			highest = hi;
		if (*p != ',')
			break;
		p++;
	}
	return *p == '\0' || *p == '\n' ? highest : -EINVAL;
}

int cpulist_highest(const char *list)
{
	return ranges(list, NULL, NULL);
}

static void add_range(int lo, int hi, void *arg)
{
	for (int c = lo; c <= hi && c < CPU_SETSIZE; c++)
		CPU_SET(c, (cpu_set_t *)arg);
}

int cpulist_parse(const char *list, cpu_set_t *set)
{
	CPU_ZERO(set);
	return ranges(list, add_range, set) < 0 ? -EINVAL : 0;
}

void cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && n < len; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int hi = c;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		int r = hi > c ? snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", c, hi)
			       : snprintf(buf + n, len - n, "%s%d", n ? "," : "", c);
		n = r < 0 ? len : n + (size_t)r;
		c = hi;
	}
}

int cpulist_possible_slots(void)
{
	char buf[4096];
	ssize_t n = procfs_read("/sys/devices/system/cpu/possible", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	int highest = cpulist_highest(buf);
	return highest < 0 ? highest : highest + 1;
}
