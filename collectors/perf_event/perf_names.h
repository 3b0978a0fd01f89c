/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Perf event names through libpfm4: perf's generic names (cycles,
 * page-faults, ...), PMU-specific ones (INST_RETIRED:ANY_P) and perf::...
 * names, turned into a perf_event_attr and libpfm4's full event string; the
 * field a name becomes in a row; what libpfm4 knows on this host. */
#ifndef IOPSAMPLE_PERF_NAMES_H
#define IOPSAMPLE_PERF_NAMES_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "log.h"

#define PERF_NAME_MAX 128 /* an event name as configured, and its field */

/* Initializes libpfm4 (once per process). 0, or -EIO with the reason. */
int perf_names_init(struct errbuf *why);

/* The row field for an event name: lower-cased, every other character that
 * is not a letter or digit as '_' ("cache-misses" -> "cache_misses"). 0, or
 * -ENAMETOOLONG when it does not fit in n bytes. */
int perf_name_field(const char *event, char *out, size_t n);

/* Encodes an event for perf_event_open. *attr is filled, pfm receives
 * libpfm4's full event string (every attribute spelled out). user_only makes
 * user space the default privilege level instead of user and kernel; a level
 * the name gives itself (":u", ":k=1") still wins. 0, or -ENOENT for a name
 * libpfm4 does not know here, -EINVAL for one it cannot encode, with why. */
int perf_name_encode(const char *event, bool user_only, struct perf_event_attr *attr,
		     char *pfm, size_t n, struct errbuf *why);

struct perf_pmu {
	const char *name, *desc;
	bool core; /* a CPU's own PMU (cycles, instructions, its model's events) */
};

/* The PMUs libpfm4 detects on this host, at most max; returns how many. */
size_t perf_names_pmus(struct perf_pmu *out, size_t max);

struct perf_name_info {
	const char *pmu;   /* "perf", "amd64_fam19h_zen3", ... */
	const char *event; /* "PERF_COUNT_HW_CPU_CYCLES", "CYCLES" */
	const char *umask; /* NULL, or one of the event's unit masks */
	const char *equiv; /* NULL, or the event this name is an alias of */
	const char *desc;
};

/* Calls fn for every event of every detected PMU, then for each of its unit
 * masks, in libpfm4's order; stops early when fn returns non-zero (and
 * returns that). */
int perf_names_each(int (*fn)(const struct perf_name_info *, void *), void *arg);

#endif
