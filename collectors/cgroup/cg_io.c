// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The cgroup source's block I/O per device (cg_io.h). */
#define _GNU_SOURCE
#include "cg_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonl_writer.h"
#include "procfs_files.h"

/* v1 blkio counts a cgroup's bios on a device only while a throttle limit
 * is set there (Linux 6.x: the throttle's counters are its own, kept when
 * it has work): in the episode's own cgroup, a limit no device reaches on
 * each selected disk turns the counting on. NULL, or what failed. */
#define NO_LIMIT_BPS 1125899906842624ull /* 1 PiB/s */

static const char *count_blkio(const struct cgroup_set *set, const struct blk_devices *devs)
{
	static char note[1024];
	if (!set->owned)
		return "the attached process's v1 blkio cgroup is not iopsample's to set a limit in: "
		       "its I/O counts only on devices where it has one";
	static const char *const files[] = {"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device"};
	for (size_t i = 0; i < devs->n; i++) {
		const struct blk_dev *d = &devs->dev[i];
		if (d->disk[0])
			continue; /* a partition: its disk is where limits are */
		for (int f = 0; f < 2; f++) {
			char path[700], rule[64];
			snprintf(path, sizeof(path), "%s/%s", set->dir[CGR_BLKIO], files[f]);
			int n = snprintf(rule, sizeof(rule), "%u:%u %llu", d->major, d->minor, NO_LIMIT_BPS);
			int fd = open(path, O_WRONLY | O_CLOEXEC);
			bool ok = fd >= 0 && write(fd, rule, (size_t)n) == n;
			if (fd >= 0)
				close(fd);
			if (!ok) {
				snprintf(note, sizeof(note), "%s: %s: the cgroup's I/O on %s may not be counted",
					 path, strerror(errno), d->name);
				return note;
			}
		}
	}
	return NULL;
}

bool cg_io_open(struct cg_io_reader *r, const struct cgroup_set *set, const struct blk_devices *devs,
		const char **note)
{
	memset(r, 0, sizeof(*r));
	r->devs = devs;
	r->fd[0] = r->fd[1] = -1;
	*note = NULL;
	int fd = cgroup_set_open(set, CGR_V2, "io.stat");
	if (fd >= 0 && (set->v2_controllers & CG_IO)) {
		r->fd[0] = fd;
		r->v2 = true;
		return true;
	}
	if (fd >= 0)
		close(fd);
	r->fd[0] = cgroup_set_open(set, CGR_BLKIO, "blkio.throttle.io_service_bytes_recursive");
	r->fd[1] = cgroup_set_open(set, CGR_BLKIO, "blkio.throttle.io_serviced_recursive");
	if (r->fd[0] < 0 || r->fd[1] < 0) {
		cg_io_close(r);
		return false;
	}
	*note = count_blkio(set, devs);
	return true;
}

const char *cg_io_counted_by(const struct cg_io_reader *r)
{
	return r->v2 ? "io.stat" : r->fd[0] >= 0 ? "blkio.throttle" : "none";
}

static void io_one(void *arg, unsigned major, unsigned minor, const struct cg_io *io)
{
	struct cg_io_reader *r = arg;
	int i = blk_devices_find(r->devs, major, minor);
	if (i < 0)
		return;
	struct cg_io *c = &r->cur[i];
	r->listed[i] = true;
	if (r->v2) {
		*c = *io;
	} else if (r->bytes) {
		c->read_bytes = io->read_bytes, c->write_bytes = io->write_bytes;
	} else {
		c->read_ops = io->read_ops, c->write_ops = io->write_ops;
	}
}

/* This read's counts of every device into cur (listed: those with a line). */
static bool read_files(struct cg_io_reader *r)
{
	memset(r->cur, 0, sizeof(r->cur));
	memset(r->listed, 0, sizeof(r->listed));
	for (int i = 0; i < (r->v2 ? 1 : 2); i++) {
		if (r->fd[i] < 0 || procfs_pread_all(r->fd[i], &r->buf[i], &r->cap[i]) < 0)
			return false;
		r->bytes = i == 0;
		if ((r->v2 ? cg_io_stat(r->buf[i], io_one, r) : cg_blkio_v1(r->buf[i], r->bytes, io_one, r)) < 0)
			return false;
	}
	return true;
}

/* A count below the last is a device reset (its disk went and came back):
 * all of it is new. */
static uint64_t change(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : now;
}

bool cg_io_read(struct cg_io_reader *r, json_t *const *dev, struct cg_io *sum)
{
	bool ok = read_files(r);
	*sum = (struct cg_io){0};
	for (size_t i = 0; i < r->devs->n; i++) {
		struct cg_io d = {0}, *c = &r->cur[i], *o = &r->prev[i];
		bool dev_ok = ok && !r->devs->dev[i].disk[0];
		/* A device missing from this read changed nothing that can be
		 * told: its counts stay where they were, and whatever it did
		 * meanwhile counts when its line is back. */
		if (dev_ok && r->listed[i]) {
			d.read_bytes = change(c->read_bytes, o->read_bytes);
			d.write_bytes = change(c->write_bytes, o->write_bytes);
			d.read_ops = change(c->read_ops, o->read_ops);
			d.write_ops = change(c->write_ops, o->write_ops);
			*o = *c;
			if (r->devs->dev[i].in_totals) {
				sum->read_bytes += d.read_bytes;
				sum->write_bytes += d.write_bytes;
				sum->read_ops += d.read_ops;
				sum->write_ops += d.write_ops;
			}
		}
		if (!dev)
			continue;
		jsonl_cell_int(dev[i], "read_bytes", dev_ok, (json_int_t)d.read_bytes);
		jsonl_cell_int(dev[i], "write_bytes", dev_ok, (json_int_t)d.write_bytes);
		jsonl_cell_int(dev[i], "read_ops", dev_ok, (json_int_t)d.read_ops);
		jsonl_cell_int(dev[i], "write_ops", dev_ok, (json_int_t)d.write_ops);
	}
	return ok;
}

void cg_io_close(struct cg_io_reader *r)
{
	for (int i = 0; i < 2; i++) {
		if (r->fd[i] >= 0)
			close(r->fd[i]);
		r->fd[i] = -1;
		free(r->buf[i]);
		r->buf[i] = NULL;
	}
}
