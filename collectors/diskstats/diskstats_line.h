/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One line of /proc/diskstats, and the change between two of them.
 *
 * The kernel prints major, minor, name, then 11 counters (before 4.18), 15
 * (discards, 4.18) or 17 (flushes, 5.5); Documentation/admin-guide/
 * iostats.rst names them. A counter the line lacks is absent, never 0. */
#ifndef IOPSAMPLE_DISKSTATS_LINE_H
#define IOPSAMPLE_DISKSTATS_LINE_H

#include <stdbool.h>
#include <stdint.h>

enum ds_field {
	DS_READ_OPS,
	DS_READ_MERGES,
	DS_READ_SECTORS,
	DS_READ_MS,
	DS_WRITE_OPS,
	DS_WRITE_MERGES,
	DS_WRITE_SECTORS,
	DS_WRITE_MS,
	DS_IN_FLIGHT, /* a level, not a counter */
	DS_IO_MS,
	DS_WEIGHTED_MS,
	DS_DISCARD_OPS,
	DS_DISCARD_MERGES,
	DS_DISCARD_SECTORS,
	DS_DISCARD_MS,
	DS_FLUSH_OPS,
	DS_FLUSH_MS,
	DS_NFIELDS
};

#define DS_MIN_FIELDS 11

struct ds_line {
	unsigned major, minor;
	char name[32];
	unsigned n; /* counters present: 11, 15, 17 (or more, ignored) */
	uint64_t v[DS_NFIELDS];
};

/* 0, or -EINVAL for a line that is not major minor name and at least 11
 * counters. */
/* Only the device numbers of a line (the rest is parsed for the devices
 * chosen alone): 0 or -EINVAL. */
int ds_line_device(const char *line, unsigned *major, unsigned *minor);
int ds_parse_line(const char *line, struct ds_line *out);

/* The change of counter f from prev to cur. The time counters are 32 bits
 * wide in the kernel (unsigned int ms: they wrap after 49.7 days), the
 * others unsigned long; a counter that went backwards wrapped at 2^32 when
 * both values fit in 32 bits. */
uint64_t ds_delta(const struct ds_line *prev, const struct ds_line *cur, enum ds_field f);

#endif
