// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "cpulist.h"

#include <errno.h>
#include <limits.h>
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

int cpulist_highest(const char *list)
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
		if (hi > highest)
			highest = hi;
		if (*p != ',')
			break;
		p++;
	}
	return *p == '\0' || *p == '\n' ? highest : -EINVAL;
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
