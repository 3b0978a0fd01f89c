// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* diskstats: /proc/diskstats deltas for the selected block devices, as
 * iostat reads them. Deployable: it needs nothing but /proc.
 *
 * Each sample reads the whole file once (pread from 0 on a descriptor kept
 * open), takes every selected device's change since the previous sample,
 * and adds the devices counted in the totals (a partition beside its disk
 * is not counted twice). A device gone from the file keeps its keys, null
 * from then on. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/block_devices.h"
#include "clock.h"
#include "collector.h"
#include "diskstats_line.h"
#include "fdutil.h"
#include "jsonl_writer.h"
#include "procfs_files.h"

#define DISKSTATS "/proc/diskstats"

/* The row's fields: a counter's change, sectors as bytes, a level, or the
 * share of the interval a device was busy. */
enum ds_kind { DK_COUNT, DK_BYTES, DK_LEVEL };
static const struct {
	const char *name;
	enum ds_field f;
	enum ds_kind kind;
} fields[] = {
	{"read_ops", DS_READ_OPS, DK_COUNT},
	{"read_merges", DS_READ_MERGES, DK_COUNT},
	{"read_bytes", DS_READ_SECTORS, DK_BYTES},
	{"read_time_ms", DS_READ_MS, DK_COUNT},
	{"write_ops", DS_WRITE_OPS, DK_COUNT},
	{"write_merges", DS_WRITE_MERGES, DK_COUNT},
	{"write_bytes", DS_WRITE_SECTORS, DK_BYTES},
	{"write_time_ms", DS_WRITE_MS, DK_COUNT},
	{"discard_ops", DS_DISCARD_OPS, DK_COUNT},
	{"discard_merges", DS_DISCARD_MERGES, DK_COUNT},
	{"discard_bytes", DS_DISCARD_SECTORS, DK_BYTES},
	{"discard_time_ms", DS_DISCARD_MS, DK_COUNT},
	{"flush_ops", DS_FLUSH_OPS, DK_COUNT},
	{"flush_time_ms", DS_FLUSH_MS, DK_COUNT},
	{"in_flight", DS_IN_FLIGHT, DK_LEVEL},
	{"io_time_ms", DS_IO_MS, DK_COUNT},
	{"weighted_io_time_ms", DS_WEIGHTED_MS, DK_COUNT},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct diskstats {
	struct blk_devices devs;
	json_t *warnings; /* the manifest entry's: a device that went away */
	int fd;
	char *buf;
	size_t cap;
	int64_t start_ns, prev_ns;
	/* per device: the previous and this sample's lines */
	struct ds_line prev[BLK_MAX_DEVICES], now[BLK_MAX_DEVICES];
	uint64_t base_in_flight[BLK_MAX_DEVICES]; /* at the baseline */
	bool seen[BLK_MAX_DEVICES], gone[BLK_MAX_DEVICES];
	/* the objects the values go in: the row, by_device.<name> */
	json_t *total, *dev[BLK_MAX_DEVICES];
};

/* This sample's line of every device in p->now; p->seen[i] false for a
 * device absent. */
static int read_lines(struct diskstats *p, struct errbuf *why)
{
	ssize_t r = procfs_pread_all(p->fd, &p->buf, &p->cap);
	if (r < 0)
		return errbuf_set(why, (int)-r, DISKSTATS ": %s", strerror((int)-r));
	memset(p->seen, 0, sizeof(p->seen));
	for (char *line = p->buf, *end; *line; line = end) {
		end = strchrnul(line, '\n');
		bool more = *end == '\n';
		*end = '\0';
		unsigned major, minor;
		int at;
		/* only the devices chosen are parsed whole */
		if (ds_line_device(line, &major, &minor) == 0 &&
		    (at = blk_devices_find(&p->devs, major, minor)) >= 0 &&
		    ds_parse_line(line, &p->now[at]) == 0)
			p->seen[at] = true;
		end += more;
	}
	return 0;
}

static void ds_close(void *state)
{
	struct diskstats *p = state;
	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	free(p);
}

static int ds_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
			struct errbuf *why)
{
	(void)t;
	(void)sc;
	(void)manifest;
	if (access(DISKSTATS, R_OK) < 0)
		return errbuf_set(why, errno, DISKSTATS ": %s", strerror(errno));
	return 0;
}

/* Sets obj's fields to the change of the devices in[] (their lines in
 * now[], against prev[]) over elapsed_ms. A counter is null when no device
 * contributes it (absent, or not on this kernel's lines); util_pct is the
 * devices' mean busy share, capped at 100 as iostat does. */
static void put_values(const struct diskstats *p, json_t *obj, const size_t *in, size_t nin,
		       double elapsed_ms)
{
	for (size_t i = 0; i < NFIELDS; i++) {
		uint64_t sum = 0;
		bool known = false;
		for (size_t k = 0; k < nin; k++) {
			size_t d = in[k];
			if (fields[i].f >= p->now[d].n || fields[i].f >= p->prev[d].n)
				continue;
			known = true;
			sum += fields[i].kind == DK_LEVEL ? p->now[d].v[fields[i].f]
			       : ds_delta(&p->prev[d], &p->now[d], fields[i].f) *
					 (fields[i].kind == DK_BYTES ? 512 : 1);
		}
		jsonl_cell_int(obj, fields[i].name, known, (json_int_t)sum);
	}
	json_t *io = json_object_get(obj, "io_time_ms");
	double pct = 0;
	bool util = json_is_integer(io) && nin > 0 && elapsed_ms > 0;
	if (util)
		pct = 100.0 * (double)json_integer_value(io) / (elapsed_ms * (double)nin);
	jsonl_cell_real(obj, "util_pct", util, pct > 100 ? 100 : pct);
}

static void fill_row(struct diskstats *p, double elapsed_ms)
{
	size_t in[BLK_MAX_DEVICES], nin = 0;
	for (size_t d = 0; d < p->devs.n; d++) {
		size_t one = d;
		put_values(p, p->dev[d], &one, p->gone[d] ? 0 : 1, elapsed_ms);
		if (!p->gone[d] && p->devs.dev[d].in_totals)
			in[nin++] = d;
	}
	put_values(p, p->total, in, nin, elapsed_ms);
}

/* Reads this sample; a device absent now is gone for good (its numbers may
 * come back as another device), and the manifest says when it went. */
static int take(struct diskstats *p, struct errbuf *why)
{
	int r = read_lines(p, why);
	if (r < 0)
		return r;
	for (size_t d = 0; d < p->devs.n; d++) {
		if (p->seen[d] || p->gone[d])
			continue;
		p->gone[d] = true;
		char msg[160];
		snprintf(msg, sizeof(msg),
			 "block device %s (%u:%u) left " DISKSTATS " after %.3f s; its fields are null from then on",
			 p->devs.dev[d].name, p->devs.dev[d].major, p->devs.dev[d].minor,
			 (double)(clock_mono_ns() - p->start_ns) / 1e9);
		json_array_append_new(p->warnings, json_string(msg));
	}
	return 0;
}

/* This sample is the baseline: the deltas count from it, and the final
 * row waits for in_flight to fall back to its level. */
static void baseline(struct diskstats *p)
{
	memcpy(p->prev, p->now, p->devs.n * sizeof(*p->prev));
	for (size_t d = 0; d < p->devs.n; d++)
		p->base_in_flight[d] = DS_IN_FLIGHT < p->now[d].n ? p->now[d].v[DS_IN_FLIGHT] : 0;
	p->start_ns = p->prev_ns = clock_mono_ns();
}

static int ds_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		   json_t *manifest, void **state, struct errbuf *why)
{
	(void)t;
	struct diskstats *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	p->fd = -1;
	int r = blk_config_devices(sc->priv, &p->devs, why);
	if (r == 0 && (p->fd = open(DISKSTATS, O_RDONLY | O_CLOEXEC)) < 0)
		r = errbuf_set(why, errno, DISKSTATS ": %s", strerror(errno));
	if (r == 0)
		r = read_lines(p, why);
	for (size_t d = 0; r == 0 && d < p->devs.n; d++)
		if (!p->seen[d])
			r = errbuf_set(why, ENODEV, "block device %s (%u:%u) is not in " DISKSTATS,
				       p->devs.dev[d].name, p->devs.dev[d].major, p->devs.dev[d].minor);
	if (r < 0) {
		ds_close(p);
		return r;
	}
	baseline(p);

	/* the row's keys, fixed from here on: the totals, then by_device */
	p->total = row;
	json_t *by = blk_by_device(&p->devs, p->dev);
	fill_row(p, 0);
	json_object_set_new(row, "by_device", by);
	json_object_set_new(manifest, "devices", blk_devices_json(&p->devs, false));
	json_object_set_new(manifest, "warnings", p->warnings = json_array());
	*state = p;
	return 0;
}

static int ds_sample(void *state, struct errbuf *why)
{
	struct diskstats *p = state;
	int r = take(p, why);
	if (r < 0)
		return r;
	int64_t now = clock_mono_ns();
	fill_row(p, (double)(now - p->prev_ns) / 1e6);
	for (size_t d = 0; d < p->devs.n; d++)
		if (!p->gone[d])
			p->prev[d] = p->now[d];
	p->prev_ns = now;
	return 0;
}

/* The baseline, again, once every source has opened (block_io's is taken
 * at the same moment). A device that cannot be read now keeps open's. */
static void ds_begin(void *state)
{
	struct diskstats *p = state;
	struct errbuf ignored;
	if (read_lines(p, &ignored) < 0)
		return;
	for (size_t d = 0; d < p->devs.n; d++)
		if (!p->seen[d])
			p->now[d] = p->prev[d];
	baseline(p);
}

/* Requests on the devices above their baseline's level: some of the tree's
 * may be among them (diskstats cannot tell whose). */
static bool ds_in_flight(void *state, json_t **left)
{
	struct diskstats *p = state;
	struct errbuf ignored;
	if (read_lines(p, &ignored) < 0)
		return false;
	uint64_t above = 0;
	for (size_t d = 0; d < p->devs.n; d++)
		if (p->seen[d] && !p->gone[d] && DS_IN_FLIGHT < p->now[d].n &&
		    p->now[d].v[DS_IN_FLIGHT] > p->base_in_flight[d])
			above += p->now[d].v[DS_IN_FLIGHT] - p->base_in_flight[d];
	if (!above)
		return false;
	*left = json_pack("{s:I}", "requests", (json_int_t)above);
	return true;
}

const struct collector_ops diskstats_ops = {
	.name = "diskstats",
	.available_in_deployment = true,
	.priv_size = sizeof(struct blk_config),
	.init = blk_config_init_drain,
	.parse_key = blk_config_parse,
	.describe = blk_config_describe,
	.probe = ds_probe,
	.open = ds_open,
	.begin = ds_begin,
	.sample = ds_sample,
	.in_flight = ds_in_flight,
	.drain_ns = blk_config_drain_ns,
	.close = ds_close,
};
