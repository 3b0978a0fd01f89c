/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The cgroup source's block I/O, per selected device: which files count it
 * (v2's io.stat where the io controller is on, else v1 blkio's throttle
 * counters, which a limit no device reaches turns on), and each device's
 * change since the previous read. */
#ifndef IOPSAMPLE_CG_IO_H
#define IOPSAMPLE_CG_IO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "cg_files.h"
#include "cgroupfs.h"
#include "common/block_devices.h"

struct cg_io_reader {
	const struct blk_devices *devs;
	bool v2;          /* io.stat, else blkio's two files */
	int fd[2];        /* io.stat; or blkio's bytes and ops */
	char *buf[2];
	size_t cap[2];
	struct cg_io prev[BLK_MAX_DEVICES], cur[BLK_MAX_DEVICES];
	bool listed[BLK_MAX_DEVICES]; /* the device has a line in this read */
	bool bytes;                   /* v1: the file being parsed */
};

/* Opens what counts the I/O of the cgroups in set on devs (kept by the
 * caller for the reader's life). True when something does; *note, when
 * set, is a warning for the manifest (v1 counting that could not be
 * turned on). */
bool cg_io_open(struct cg_io_reader *r, const struct cgroup_set *set, const struct blk_devices *devs,
		const char **note);

/* "io.stat", "blkio.throttle" or "none", for the manifest. */
const char *cg_io_counted_by(const struct cg_io_reader *r);

/* Reads the files again: each device's change since the previous read
 * into dev[i] (read_bytes, write_bytes, read_ops, write_ops; null when the
 * read failed, and for a partition, whose disk counts it), unless dev is
 * NULL (the baseline); the totals over the devices in_totals into sum.
 * False when the read failed. */
bool cg_io_read(struct cg_io_reader *r, json_t *const *dev, struct cg_io *sum);

void cg_io_close(struct cg_io_reader *r);

#endif
