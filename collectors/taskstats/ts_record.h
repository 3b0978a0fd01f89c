/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One struct taskstats, as the running kernel laid it out.
 *
 * The kernel sends its own version of the struct: older kernels a shorter
 * one, newer ones fields appended at the end, so a field is there exactly
 * when the payload reaches it. One version broke that: 15 inserted max and
 * min after every delay total and 16 moved them to the end again; version
 * 15 is read with its own offsets. This file knows the layout and nothing
 * about netlink (ts_netlink.c), so the decoder is tested on synthetic
 * payloads of every layout. */
#ifndef IOPSAMPLE_TS_RECORD_H
#define IOPSAMPLE_TS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The row's counters, in the row's order. */
enum ts_field {
	TS_CPU_DELAY,
	TS_CPU_COUNT,
	TS_BLKIO_DELAY,
	TS_BLKIO_COUNT,
	TS_SWAPIN_DELAY,
	TS_SWAPIN_COUNT,
	TS_FREEPAGES_DELAY,
	TS_FREEPAGES_COUNT,
	TS_THRASHING_DELAY,
	TS_THRASHING_COUNT,
	TS_COMPACT_DELAY,
	TS_COMPACT_COUNT,
	TS_WPCOPY_DELAY,
	TS_WPCOPY_COUNT,
	TS_IRQ_DELAY,
	TS_IRQ_COUNT,
	TS_READ_BYTES,
	TS_WRITE_BYTES,
	TS_CANCELLED_WRITE_BYTES,
	TS_READ_SYSCALLS,
	TS_WRITE_SYSCALLS,
	TS_READ_CHARS,
	TS_WRITE_CHARS,
	TS_VOLUNTARY_CTXSW,
	TS_INVOLUNTARY_CTXSW,
	TS_CPU_RUN_REAL,
	TS_NFIELDS
};

extern const char *const ts_field_names[TS_NFIELDS];

/* Bit f of a mask: field f. */
#define TS_BIT(f) (1u << (f))
#define TS_ALL ((1u << TS_NFIELDS) - 1)
/* The delay fields that count only while kernel.task_delayacct is on (for a
 * task forked while it was): all but cpu_*, which come from the scheduler's
 * run-queue accounting whatever the sysctl says. */
#define TS_DELAYACCT                                                                          \
	(((TS_BIT(TS_IRQ_COUNT) << 1) - 1) & ~(TS_BIT(TS_CPU_DELAY) | TS_BIT(TS_CPU_COUNT)))

/* The fields that are time a thread spent: none can exceed its age. */
#define TS_TIMES                                                                              \
	(TS_BIT(TS_CPU_DELAY) | TS_BIT(TS_BLKIO_DELAY) | TS_BIT(TS_SWAPIN_DELAY) |            \
	 TS_BIT(TS_FREEPAGES_DELAY) | TS_BIT(TS_THRASHING_DELAY) | TS_BIT(TS_COMPACT_DELAY) | \
	 TS_BIT(TS_WPCOPY_DELAY) | TS_BIT(TS_IRQ_DELAY) | TS_BIT(TS_CPU_RUN_REAL))

/* The time fields that are waits off the CPU: with the thread's CPU time,
 * no more than its age. (Reclaim, compaction, a copy on write, an interrupt
 * and a swap-in from zram run on the CPU.) */
#define TS_OFF_CPU (TS_BIT(TS_CPU_DELAY) | TS_BIT(TS_BLKIO_DELAY))

struct ts_record {
	unsigned version;
	pid_t tid;  /* ac_pid */
	pid_t tgid; /* ac_tgid (version 12 on), else 0: unknown */
	pid_t ppid; /* ac_ppid: the parent of the thread's process */
	uint32_t present; /* TS_BIT(f) when the kernel's struct has field f */
	uint64_t age_ns;  /* ac_etime: the thread's age when the record was made */
	uint64_t v[TS_NFIELDS];
};

/* Decodes a TASKSTATS_TYPE_STATS payload of len bytes. -EPROTO when it is
 * too short to hold even the version's fixed head. */
int ts_decode(const void *payload, size_t len, struct ts_record *out);

#endif
