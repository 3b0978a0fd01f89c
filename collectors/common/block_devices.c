// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Block device selection: names and numbers resolved through sysfs. */
#define _GNU_SOURCE
#include "block_devices.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "duration.h"

/* The first line of a small sysfs file, without its newline. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int r = fgets(buf, (int)size, f) ? 0 : -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return r;
}

/* A name sysfs could hold: no path separators, not "." or "..". */
static bool plain_name(const char *s)
{
	return *s && strlen(s) < BLK_NAME_MAX && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Copies a name that plain_name() accepted. */
static void copy_name(char out[BLK_NAME_MAX], const char *name)
{
	size_t n = strnlen(name, BLK_NAME_MAX - 1);
	memcpy(out, name, n);
	out[n] = '\0';
}

/* "major:minor" to its /sys/dev/block link's target name. */
static int name_of_numbers(const char *sysfs, const char *spec, char name[BLK_NAME_MAX])
{
	unsigned major, minor;
	int end = 0;
	if (sscanf(spec, "%u:%u%n", &major, &minor, &end) != 2 || spec[end] != '\0')
		return -EINVAL;
	char path[PATH_MAX], target[PATH_MAX];
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", sysfs, major, minor);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!plain_name(base))
		return -ENOENT;
	copy_name(name, base);
	return 0;
}

/* The devices below name (its slaves/ folder: dm's and md's members, at
 * any depth) into dev->below, breadth first, as many as it holds. */
static void find_below(const char *sysfs, const char *name, struct blk_dev *dev)
{
	char path[PATH_MAX];
	for (size_t at = 0;; at++) {
		snprintf(path, sizeof(path), "%s/class/block/%s/slaves", sysfs, name);
		struct dirent **names;
		int n = scandir(path, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			const char *s = names[i]->d_name;
			bool known = false;
			for (size_t k = 0; k < dev->n_below; k++)
				known |= !strcmp(dev->below[k], s);
			if (s[0] != '.' && plain_name(s) && !known && dev->n_below < BLK_BELOW_MAX)
				copy_name(dev->below[dev->n_below++], s);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		if (at >= dev->n_below)
			return;
		name = dev->below[at];
	}
}

/* Fills dev from /sys/class/block/<name>: its numbers, and its disk when
 * it is a partition (the folder that holds the partition's folder). */
static int resolve(const char *sysfs, const char *name, struct blk_dev *dev)
{
	char path[PATH_MAX], line[64];
	*dev = (struct blk_dev){.in_totals = true};
	copy_name(dev->name, name);
	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sysfs, name);
	int r = read_line(path, line, sizeof(line));
	if (r < 0)
		return r == -ENOTDIR ? -ENOENT : r;
	if (sscanf(line, "%u:%u", &dev->major, &dev->minor) != 2)
		return -EIO;
	dev->disk_major = dev->major, dev->disk_minor = dev->minor;
	snprintf(path, sizeof(path), "%s/class/block/%s/mq", sysfs, name);
	dev->request_based = access(path, F_OK) == 0;
	find_below(sysfs, name, dev);
	snprintf(path, sizeof(path), "%s/class/block/%s/partition", sysfs, name);
	if (access(path, F_OK) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/class/block/%s/../mq", sysfs, name);
	dev->request_based = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/class/block/%s/../dev", sysfs, name);
	if (read_line(path, line, sizeof(line)) < 0 ||
	    sscanf(line, "%u:%u", &dev->disk_major, &dev->disk_minor) != 2)
		return -EIO;
	snprintf(path, sizeof(path), "%s/class/block/%s/..", sysfs, name);
	char *up = realpath(path, NULL);
	if (!up)
		return -errno;
	const char *base = strrchr(up, '/');
	base = base ? base + 1 : up;
	r = plain_name(base) ? 0 : -ENOENT;
	if (r == 0)
		copy_name(dev->disk, base);
	free(up);
	return r;
}

/* Whether device j is stacked on the device named name. */
static bool holds(const struct blk_dev *j, const char *name)
{
	for (size_t k = 0; k < j->n_below; k++)
		if (!strcmp(j->below[k], name))
			return true;
	return false;
}

/* Whether j is stacked on a partition of disk (found by the partitions'
 * names: sysfs's own, the disk's name and a number, with a "p" after a
 * name ending in a digit). */
static bool holds_part_of(const struct blk_dev *j, const struct blk_dev *disk)
{
	size_t n = strlen(disk->name);
	for (size_t k = 0; k < j->n_below && !disk->disk[0]; k++) {
		const char *m = j->below[k];
		if (strncmp(m, disk->name, n))
			continue;
		m += n;
		if (*m == 'p' && n && disk->name[n - 1] >= '0' && disk->name[n - 1] <= '9')
			m++;
		if (*m >= '1' && *m <= '9' && m[strspn(m, "0123456789")] == '\0')
			return true;
	}
	return false;
}

/* A partition is counted in the totals only while its disk is not; a
 * device below a selected stacked device, never (under: the topmost); a
 * disk with a partition below one is, and says so (partly_under). */
static void settle_totals(struct blk_devices *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct blk_dev *dev = &d->dev[i];
		dev->in_totals = dev->own_totals = true;
		dev->under[0] = dev->partly_under[0] = '\0';
		for (size_t j = 0; j < d->n; j++) {
			if (dev->disk[0] && !strcmp(d->dev[j].name, dev->disk))
				dev->in_totals = dev->own_totals = false;
			if (j != i && holds(&d->dev[j], dev->name) &&
			    (!dev->under[0] || holds(&d->dev[j], dev->under))) {
				dev->in_totals = false;
				copy_name(dev->under, d->dev[j].name);
			}
			if (j != i && !dev->partly_under[0] && holds_part_of(&d->dev[j], dev))
				copy_name(dev->partly_under, d->dev[j].name);
		}
	}
}

int blk_devices_find(const struct blk_devices *d, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->dev[i].major == major && d->dev[i].minor == minor)
			return (int)i;
	return -1;
}

static int push(struct blk_devices *d, const struct blk_dev *dev, const char *spec,
		struct errbuf *why)
{
	int at = blk_devices_find(d, dev->major, dev->minor);
	if (at >= 0)
		return errbuf_set(why, EEXIST, "block device \"%s\" is %s, listed already", spec,
				  d->dev[at].name);
	if (d->n == BLK_MAX_DEVICES)
		return errbuf_set(why, E2BIG, "more than %d block devices", BLK_MAX_DEVICES);
	d->dev[d->n++] = *dev;
	settle_totals(d);
	return 0;
}

int blk_devices_add(struct blk_devices *d, const char *sysfs, const char *spec,
		    struct errbuf *why)
{
	char name[BLK_NAME_MAX];
	int r = 0;
	if (strchr(spec, ':'))
		r = name_of_numbers(sysfs, spec, name);
	else if (plain_name(spec))
		copy_name(name, spec);
	else
		r = -ENOENT;
	struct blk_dev dev;
	if (r == 0)
		r = resolve(sysfs, name, &dev);
	if (r == -ENOENT || r == -EINVAL)
		return errbuf_set(why, ENOENT, "no block device \"%s\" (%s/class/block names them)",
				  spec, sysfs);
	if (r < 0)
		return errbuf_set(why, -r, "block device \"%s\": %s", spec, strerror(-r));
	return push(d, &dev, spec, why);
}

int blk_device_activity(const char *sysfs, const struct blk_dev *dev, struct blk_activity *a)
{
	char path[PATH_MAX], line[512];
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/stat", sysfs, dev->major, dev->minor);
	int r = read_line(path, line, sizeof(line));
	if (r < 0)
		return r;
	/* reads, writes, discards and flushes completed are fields 0, 4, 11
	 * and 15; in flight is field 8 (Documentation/block/stat.rst) */
	uint64_t v[17];
	int n = 0;
	for (char *p = line, *end; n < 17; p = end, n++) {
		errno = 0;
		v[n] = strtoull(p, &end, 10);
		if (end == p || errno)
			break;
	}
	if (n < 9)
		return -EIO;
	a->in_flight = v[8];
	a->data_completed = v[0] + v[4] + (n > 11 ? v[11] : 0);
	a->completed = a->data_completed + (n > 15 ? v[15] : 0);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int blk_devices_default(struct blk_devices *d, const char *sysfs, struct errbuf *why)
{
	char path[PATH_MAX], line[64];
	snprintf(path, sizeof(path), "%s/block", sysfs);
	struct dirent **names;
	int n = scandir(path, &names, NULL, by_name);
	if (n < 0)
		return errbuf_set(why, errno, "%s: %s", path, strerror(errno));
	int r = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		snprintf(path, sizeof(path), "%s/block/%s/size", sysfs, name);
		unsigned long long sectors;
		struct blk_dev dev;
		if (r == 0 && plain_name(name) && read_line(path, line, sizeof(line)) == 0 &&
		    sscanf(line, "%llu", &sectors) == 1 && sectors > 0 &&
		    resolve(sysfs, name, &dev) == 0)
			r = push(d, &dev, name, why);
		free(names[i]);
	}
	free(names);
	return r;
}

json_t *blk_devices_json(const struct blk_devices *d, bool per_bio)
{
	json_t *list = json_array();
	for (size_t i = 0; i < d->n; i++) {
		char numbers[24];
		snprintf(numbers, sizeof(numbers), "%u:%u", d->dev[i].major, d->dev[i].minor);
		json_t *one = json_pack("{s:s, s:s, s:b}", "name", d->dev[i].name, "dev", numbers, "in_totals",
					per_bio ? d->dev[i].own_totals : d->dev[i].in_totals);
		if (d->dev[i].under[0])
			json_object_set_new(one, "under", json_string(d->dev[i].under));
		if (d->dev[i].partly_under[0])
			json_object_set_new(one, "partly_under", json_string(d->dev[i].partly_under));
		json_array_append_new(list, one);
	}
	return list;
}

bool blk_devices_below(const struct blk_devices *d, size_t upper, size_t j)
{
	return holds(&d->dev[upper], d->dev[j].name) || holds_part_of(&d->dev[upper], &d->dev[j]);
}

json_t *blk_by_device(const struct blk_devices *d, json_t **dev)
{
	json_t *by = json_object();
	for (size_t i = 0; i < d->n; i++)
		json_object_set_new(by, d->dev[i].name, dev[i] = json_object());
	return by;
}

#define SYSFS "/sys"

static int add_named(void *arg, struct cfg_ctx *c, const char *name, yaml_node_t *item)
{
	struct blk_config *cfg = arg;
	struct errbuf why;
	if (blk_devices_add(&cfg->devs, SYSFS, name, &why) < 0)
		return cfg_fail(c, item, "%s", why.msg);
	return 0;
}

void blk_config_init_drain(void *priv)
{
	struct blk_config *cfg = priv;
	cfg->drains = true;
	cfg->drain_ns = BLK_DRAIN_DEFAULT_NS;
}

int blk_config_parse(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *value)
{
	struct blk_config *cfg = priv;
	if (cfg->drains && !strcmp(key, "drain"))
		return cfg_duration(c, value, 0, BLK_DRAIN_MAX_NS, &cfg->drain_ns);
	if (strcmp(key, "devices"))
		return -ENOENT;
	cfg->devs.n = 0;
	/* null: the default, as the resolved config writes it */
	cfg->chosen = !cfg_is_null(value);
	return cfg->chosen ? cfg_each_name(c, value, key, "block device", add_named, cfg) : 0;
}

void blk_config_describe(const void *priv, json_t *out)
{
	const struct blk_config *cfg = priv;
	json_t *names = json_null();
	if (cfg->chosen) {
		names = json_array();
		for (size_t i = 0; i < cfg->devs.n; i++)
			json_array_append_new(names, json_string(cfg->devs.dev[i].name));
	}
	json_object_set_new(out, "devices", names);
	if (cfg->drains) {
		char drain[32];
		duration_format(cfg->drain_ns, drain, sizeof(drain));
		json_object_set_new(out, "drain", json_string(drain));
	}
}

int64_t blk_config_drain_ns(const struct source_config *sc)
{
	return ((const struct blk_config *)sc->priv)->drain_ns;
}

int blk_config_devices(const struct blk_config *cfg, struct blk_devices *out, struct errbuf *why)
{
	if (cfg->chosen) {
		*out = cfg->devs;
		return 0;
	}
	out->n = 0;
	return blk_devices_default(out, SYSFS, why);
}
