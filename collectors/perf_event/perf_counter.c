// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* perf_event_open counters: open, read, scale, and the reasons for a refusal. */
#define _GNU_SOURCE
#include "perf_counter.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>


/* How often a group read is retried while a child exits (see below). */
#define PERF_GROUP_READ_TRIES 10000

int perf_counter_open(struct perf_event_attr *attr, pid_t pid, int group)
{
	attr->size = sizeof(*attr);
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group != PERF_NO_GROUP)
		attr->read_format |= PERF_FORMAT_GROUP;
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, -1, group < 0 ? -1 : group,
			      PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int perf_group_read(int leader, struct perf_group_reading *out)
{
	ssize_t n;
	/* Since Linux 6.6 a group read fails with ECHILD while an inherited
	 * copy of the group differs from the original: a child task that is
	 * exiting detaches its copies one by one. That lasts until its exit
	 * folds them into ours, a few microseconds: read again. */
	for (int tries = 0; (n = read(leader, out, sizeof(*out))) < 0 &&
			    (errno == ECHILD || errno == EINTR) && tries < PERF_GROUP_READ_TRIES;
	     tries++)
		sched_yield();
	if (n < 0)
		return -errno;
	if (n < (ssize_t)(3 * sizeof(uint64_t)) || out->nr > PERF_GROUP_MAX ||
	    (size_t)n != (3 + out->nr) * sizeof(uint64_t))
		return -EIO;
	return 0;
}

struct perf_count perf_group_count(const struct perf_group_reading *g, size_t slot)
{
	if (slot >= g->nr)
		return (struct perf_count){0};
	return (struct perf_count){.value = g->value[slot], .enabled = g->enabled,
				   .running = g->running};
}

int perf_counter_read(int fd, struct perf_count *out)
{
	ssize_t n = read(fd, out, sizeof(*out));
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*out) ? 0 : -EIO;
}

struct perf_count perf_count_advance(struct perf_count *prev, const struct perf_count *now)
{
	struct perf_count d = {0};
#define ADVANCE(f)                                     \
	if (now->f > prev->f) {                        \
		d.f = now->f - prev->f;                \
		prev->f = now->f;                      \
	}
	ADVANCE(value)
	ADVANCE(enabled)
	ADVANCE(running)
#undef ADVANCE
	return d;
}

bool perf_count_scale(const struct perf_count *d, double *out)
{
	if (d->running >= d->enabled) { /* ran all along, or never enabled */
		*out = (double)d->value;
		return true;
	}
	if (d->running == 0)
		return false;
	*out = (double)d->value * ((double)d->enabled / (double)d->running);
	return true;
}

/* The hint for a denial, by the paranoia level the kernel applied. */
static const char *paranoid_hint(int paranoid, bool kernel_excluded)
{
	if (paranoid >= 3)
		return "perf_event_paranoid is 3 or more: perf events need CAP_PERFMON or "
		       "CAP_SYS_ADMIN (sysctl kernel.perf_event_paranoid=2 lets users count "
		       "their own processes in user space)";
	if (paranoid == 2 && !kernel_excluded)
		return "perf_event_paranoid is 2: counting kernel space needs CAP_PERFMON or "
		       "perf_event_paranoid <= 1";
	if (paranoid >= -1)
		return "the target may belong to another user, or a security module forbids "
		       "perf_event_open";
	return "perf_event_paranoid could not be read";
}

enum perf_verdict perf_open_verdict(int err, bool kernel_excluded, int paranoid, char *why,
				    size_t n)
{
	const char *what;
	switch (err) {
	case EACCES:
	case EPERM:
		if (!kernel_excluded) {
			snprintf(why, n, "kernel counting not permitted (%s); %s", strerror(err),
				 paranoid_hint(paranoid, false));
			return PERF_RETRY_USER_ONLY;
		}
		snprintf(why, n, "not permitted (%s); %s", strerror(err),
			 paranoid_hint(paranoid, true));
		return PERF_NOT_COUNTED;
	case ENOENT:
		what = "the kernel cannot count this event on this host (no PMU provides it; "
		       "virtual machines often expose none)";
		break;
	case EOPNOTSUPP:
		what = "the PMU does not support this event as asked";
		break;
	case ENODEV:
		what = "this host has no such PMU";
		break;
	case EINVAL:
		what = "the kernel rejected the event's encoding (not valid on this CPU or kernel)";
		break;
	case EBUSY:
		what = "the PMU is in exclusive use by someone else";
		break;
	case EMFILE:
	case ENFILE:
		what = "out of file descriptors (raise ulimit -n)";
		break;
	case ENOSYS:
		what = "perf_event_open is not available (a kernel without perf events, or a "
		       "seccomp policy)";
		break;
	default:
		what = "perf_event_open failed";
		break;
	}
	snprintf(why, n, "%s: %s", what, strerror(err));
	return PERF_NOT_COUNTED;
}

