/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* CPU lists as the kernel prints them (/sys/devices/system/cpu/possible,
 * cpuset.cpus): "0-3,8,10-11". */
#ifndef IOPSAMPLE_CPULIST_H
#define IOPSAMPLE_CPULIST_H

#include <sched.h>
#include <stddef.h>

/* The highest CPU id in list (up to a newline or its end), or -EINVAL when
 * it is not such a list. */
int cpulist_highest(const char *list);
/* The slots an array indexed by CPU id needs on this host: the highest
 * possible CPU id + 1, which on a host with a sparse possible mask ("0,2",
 * "0-3,8-11") is more than the number of possible CPUs; or -errno. */
int cpulist_possible_slots(void);

/* list into set (ids past CPU_SETSIZE left out): 0 or -EINVAL. */
int cpulist_parse(const char *list, cpu_set_t *set);
/* set as a list, "0-3,8" ("" when empty), truncated to len. */
void cpulist_format(const cpu_set_t *set, char *buf, size_t len);

#endif
