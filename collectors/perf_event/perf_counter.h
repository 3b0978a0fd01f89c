/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* perf_event_open counters: opening one on a task, reading it, turning two
 * readings into an interval's value scaled for multiplexing, and saying why
 * the kernel refused one.
 *
 * The arithmetic and the verdict on an open's errno are pure functions, so
 * the unit tests feed them known values; only perf_counter_open() and
 * perf_counter_read() touch the kernel. */
#ifndef IOPSAMPLE_PERF_COUNTER_H
#define IOPSAMPLE_PERF_COUNTER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What read() returns for read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING:
 * the count, the ns the counter was enabled (for a task counter: while the
 * task, or an inheriting child, was on a CPU) and the ns it was actually on
 * the PMU. With inherit, all three include every child's. */
struct perf_count {
	uint64_t value, enabled, running;
};

/* Counters in a group are scheduled together and read together: one read
 * (and, for a task running on another CPU, one cross-CPU call) for all. */
#define PERF_GROUP_MAX 32
struct perf_group_reading {
	uint64_t nr, enabled, running; /* the layout of PERF_FORMAT_GROUP */
	uint64_t value[PERF_GROUP_MAX]; /* in the order the counters joined */
};

/* perf_counter_open's group: */
enum {
	PERF_NO_GROUP = -2,  /* a counter read on its own, as struct perf_count */
	PERF_NEW_GROUP = -1, /* the leader of a new group */
	/* >= 0: the leader's fd, to join its group */
};

/* Opens a counter on task pid (every CPU). The attr's read_format is set
 * here. An fd, or -errno. */
int perf_counter_open(struct perf_event_attr *attr, pid_t pid, int group);
/* 0, or -errno (a short read is -EIO). */
int perf_counter_read(int fd, struct perf_count *out);
/* Reads a whole group through its leader, again while an exiting child's
 * copy of the group is being taken apart. 0, or -errno. */
int perf_group_read(int leader, struct perf_group_reading *out);
/* The counter that joined the group slot-th (the leader is 0), with the
 * group's times; zeros when the reading has no such slot. */
struct perf_count perf_group_count(const struct perf_group_reading *g, size_t slot);

/* The change from *prev to now, and now becomes *prev. A reading below the
 * previous one (which the kernel should never give) yields 0 and leaves the
 * previous reading in place, so nothing is counted twice when it recovers. */
struct perf_count perf_count_advance(struct perf_count *prev, const struct perf_count *now);

/* An interval's value scaled for multiplexing: value × enabled / running,
 * computed in double. Exact (no floating point) when the counter ran the whole
 * time it was enabled, or was never enabled (the task was off every CPU, so
 * the count is what it is: 0). false when it was enabled but never ran: the
 * value is unknown. */
bool perf_count_scale(const struct perf_count *delta, double *out);

/* What to do about an open that failed with err. */
enum perf_verdict {
	PERF_RETRY_USER_ONLY, /* denied with kernel counting asked: retry without */
	PERF_NOT_COUNTED,     /* the event keeps its field, null in every row */
};

/* Sorts err and writes the reason a user reads in the manifest into why:
 * what the kernel said, what it means here, and, for a denial, a hint about
 * perf_event_paranoid (paranoid < -1 when it could not be read).
 * kernel_excluded: the attempt already counted user space only. */
enum perf_verdict perf_open_verdict(int err, bool kernel_excluded, int paranoid, char *why,
				    size_t n);


#endif
