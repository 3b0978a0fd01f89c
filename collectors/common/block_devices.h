/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The block devices a block source watches (diskstats now, block_io next).
 *
 * A device is named as /sys/class/block names it (vda, vda1, nvme0n1p2,
 * loop0) or by "major:minor". By default the selection is every whole disk
 * in /sys/block whose size is not 0 when the episode starts (an unbound
 * loop device is no disk). A disk counts its partitions; a partition named
 * alone counts alone; a partition whose disk is selected too keeps its own
 * entry but is not counted twice in the totals. Nor is a device below a
 * selected stacked device (dm, md: one its slaves/ names, at any depth):
 * the bytes the upper device moved are its lower devices' too.
 *
 * Every function reads the sysfs tree under a root ("/sys" in iopsample,
 * a made-up tree in the unit tests). */
#ifndef IOPSAMPLE_BLOCK_DEVICES_H
#define IOPSAMPLE_BLOCK_DEVICES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config_yaml.h"
#include "log.h"

#define BLK_MAX_DEVICES 64
#define BLK_NAME_MAX 32
/* The devices below a stacked one (its slaves, theirs, ...) it keeps. */
#define BLK_BELOW_MAX 8

struct blk_dev {
	char name[BLK_NAME_MAX]; /* as /sys/class/block names it */
	unsigned major, minor;
	char disk[BLK_NAME_MAX]; /* a partition's whole disk; "" for a disk */
	bool in_totals;          /* false: a partition whose disk is selected too, or a
				  * device below a selected stacked device */
	bool own_totals;         /* false: a partition whose disk is selected too (a
				  * source that tells a stacked bio's clones apart
				  * counts the rest of a device below) */
	char under[BLK_NAME_MAX]; /* that stacked device, the topmost selected; "" none */
	char partly_under[BLK_NAME_MAX]; /* a disk, one of whose partitions is below this
					  * selected stacked device (LVM on sda2); "" none */
	size_t n_below;
	char below[BLK_BELOW_MAX][BLK_NAME_MAX]; /* its slaves, at any depth (dm, md) */
	bool request_based;      /* blk-mq (its disk has an mq directory): not dm, md */
	unsigned disk_major, disk_minor; /* its disk's numbers (its own for a disk) */
};

struct blk_devices {
	size_t n;
	struct blk_dev dev[BLK_MAX_DEVICES];
};

/* Adds the device spec names. 0, or a negative errno with why saying what
 * is wrong: -ENOENT no such block device, -EEXIST the same device twice,
 * -E2BIG more than BLK_MAX_DEVICES. */
int blk_devices_add(struct blk_devices *d, const char *sysfs, const char *spec,
		    struct errbuf *why);

/* Every whole disk of non-zero size, in /sys/block's order sorted by name.
 * 0, or a negative errno with why. */
int blk_devices_default(struct blk_devices *d, const char *sysfs, struct errbuf *why);

/* The index of major:minor in d, or -1. */
int blk_devices_find(const struct blk_devices *d, unsigned major, unsigned minor);

/* What a device is doing, from its sysfs stat (the fields of a
 * /proc/diskstats line): requests in flight, and requests completed since
 * boot (reads, writes, discards and flushes, as far as the kernel's line
 * has them; data_completed without the flushes). */
struct blk_activity {
	uint64_t in_flight;
	uint64_t completed;
	uint64_t data_completed;
};

/* 0, or a negative errno when the file cannot be read or parsed. */
int blk_device_activity(const char *sysfs, const struct blk_dev *dev, struct blk_activity *a);

/* The manifest's list: [{"name", "dev": "major:minor", "in_totals"}, and
 * "under" for a device below a selected stacked device, "partly_under" for
 * a disk one of whose partitions is]; in_totals is
 * own_totals with per_bio (block_io: a clone is left out, not a device). */
json_t *blk_devices_json(const struct blk_devices *d, bool per_bio);

/* Whether selected device j is below selected stacked device upper: a
 * member of it (its slaves, at any depth), or the disk of a member
 * partition (LVM on sda2: sda). */
bool blk_devices_below(const struct blk_devices *d, size_t upper, size_t j);
/* A row's by_device: an empty object per device, by name; dev[i] is
 * device i's (owned by the returned object). */
json_t *blk_by_device(const struct blk_devices *d, json_t **dev);

/* A block source's keys, the same for every block source.
 *   devices  the devices given (each checked when the config is read: a
 *            name that is no block device fails at its line and column),
 *            or, when the key is absent, every whole disk at open (as when
 *            it is null, which the resolved config writes for the default);
 *   drain    block_io and diskstats (blk_config_init_drain): how long the
 *            final row waits, at most, for the requests in flight when the
 *            tree ended (a read the tree started completes after it
 *            exits): default BLK_DRAIN_DEFAULT_NS, "0s" not at all, at most
 *            BLK_DRAIN_MAX_NS. The cgroup source takes devices alone. */
#define BLK_DRAIN_DEFAULT_NS (5 * 1000000000LL)
#define BLK_DRAIN_MAX_NS (60 * 1000000000LL)
struct blk_config {
	bool chosen;
	struct blk_devices devs;
	bool drains; /* takes the drain key */
	int64_t drain_ns;
};

/* A block source's collector_ops init (for a source whose final row
 * drains), parse_key and describe, its priv a struct blk_config: "devices"
 * and "drain" (-ENOENT for any other key), and in the resolved config the
 * names given (null for the default) and the drain; and its drain_ns. */
void blk_config_init_drain(void *priv);
int blk_config_parse(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *value);
void blk_config_describe(const void *priv, json_t *out);
struct source_config;
int64_t blk_config_drain_ns(const struct source_config *sc);
/* The devices to watch, resolved now. 0 or -errno with why. */
int blk_config_devices(const struct blk_config *cfg, struct blk_devices *out, struct errbuf *why);

#endif
