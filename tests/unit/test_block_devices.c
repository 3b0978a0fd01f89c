// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Block device selection against a made-up sysfs: names, numbers, the
 * default of every whole disk, and partitions next to their disk. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/block_devices.h"
#include "testing.h"

static char root[64];

static void put(const char *path, const char *text)
{
	char full[512];
	snprintf(full, sizeof(full), "%s/%s", root, path);
	FILE *f = fopen(full, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void dir(const char *path)
{
	char full[512];
	snprintf(full, sizeof(full), "%s/%s", root, path);
	if (mkdir(full, 0755) < 0)
		abort();
}

static void link_to(const char *target, const char *path)
{
	char full[512];
	snprintf(full, sizeof(full), "%s/%s", root, path);
	if (symlink(target, full) < 0)
		abort();
}

/* As the kernel lays it out: the devices under devices/, /sys/block and
 * /sys/class/block links to them, /sys/dev/block links by number. */
static void disk(const char *name, const char *numbers, const char *size, const char *part,
		 const char *part_numbers)
{
	char p[256], t[256];
	snprintf(p, sizeof(p), "devices/%s", name);
	dir(p);
	snprintf(p, sizeof(p), "devices/%s/dev", name);
	put(p, numbers);
	snprintf(p, sizeof(p), "devices/%s/size", name);
	put(p, size);
	snprintf(t, sizeof(t), "../devices/%s", name);
	snprintf(p, sizeof(p), "block/%s", name);
	link_to(t, p);
	snprintf(t, sizeof(t), "../../devices/%s", name);
	snprintf(p, sizeof(p), "class/block/%s", name);
	link_to(t, p);
	snprintf(p, sizeof(p), "dev/block/%.*s", (int)strcspn(numbers, "\n"), numbers);
	link_to(t, p);
	if (!part)
		return;
	snprintf(p, sizeof(p), "devices/%s/%s", name, part);
	dir(p);
	snprintf(p, sizeof(p), "devices/%s/%s/dev", name, part);
	put(p, part_numbers);
	snprintf(p, sizeof(p), "devices/%s/%s/partition", name, part);
	put(p, "1\n");
	snprintf(t, sizeof(t), "../../devices/%s/%s", name, part);
	snprintf(p, sizeof(p), "class/block/%s", part);
	link_to(t, p);
	snprintf(p, sizeof(p), "dev/block/%.*s", (int)strcspn(part_numbers, "\n"), part_numbers);
	link_to(t, p);
}

static void remove_sysfs(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

static void make_sysfs(void)
{
	if (root[0])
		return;
	snprintf(root, sizeof(root), "/tmp/iops-sysfs-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(remove_sysfs);
	dir("devices");
	dir("block");
	dir("class");
	dir("class/block");
	dir("dev");
	dir("dev/block");
	disk("vda", "254:0\n", "41943040\n", "vda1", "254:1\n");
	disk("loop0", "7:0\n", "2048\n", NULL, NULL);
	disk("loop1", "7:1\n", "0\n", NULL, NULL); /* nothing bound: no disk */
}

TEST(names_and_numbers_resolve_to_the_same_device)
{
	make_sysfs();
	struct blk_devices d = {0};
	struct errbuf why;
	EXPECT_EQ(blk_devices_add(&d, root, "loop0", &why), 0);
	EXPECT_EQ(blk_devices_add(&d, root, "254:1", &why), 0);
	EXPECT_EQ((int)d.n, 2);
	EXPECT_STR(d.dev[0].name, "loop0");
	EXPECT_EQ((int)d.dev[0].major, 7);
	EXPECT_STR(d.dev[0].disk, "");
	EXPECT_STR(d.dev[1].name, "vda1");
	EXPECT_EQ((int)d.dev[1].minor, 1);
	EXPECT_STR(d.dev[1].disk, "vda");
	EXPECT_EQ(blk_devices_find(&d, 254, 1), 1);
	EXPECT_EQ(blk_devices_find(&d, 254, 0), -1);
	/* the same device by its other name */
	EXPECT_EQ(blk_devices_add(&d, root, "7:0", &why), -EEXIST);
	EXPECT_STR(why.msg, "block device \"7:0\" is loop0, listed already");
}

TEST(what_is_not_a_device_is_refused_by_name)
{
	make_sysfs();
	struct blk_devices d = {0};
	struct errbuf why;
	const char *bad[] = {"vdz", "9:9", "254:", "x:1", "..", "a/b", "", "254:0:1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(blk_devices_add(&d, root, bad[i], &why), -ENOENT);
		EXPECT_CONTAINS(why.msg, "no block device");
	}
	EXPECT_EQ((int)d.n, 0);
}

TEST(a_partition_beside_its_disk_is_not_counted_twice)
{
	make_sysfs();
	struct blk_devices d = {0};
	struct errbuf why;
	EXPECT_EQ(blk_devices_add(&d, root, "vda1", &why), 0);
	EXPECT(d.dev[0].in_totals); /* alone, it counts */
	EXPECT_EQ(blk_devices_add(&d, root, "vda", &why), 0);
	EXPECT(!d.dev[0].in_totals); /* vda holds it */
	EXPECT(d.dev[1].in_totals);
}

TEST(the_default_is_every_whole_disk_with_a_size)
{
	make_sysfs();
	struct blk_devices d = {0};
	struct errbuf why;
	EXPECT_EQ(blk_devices_default(&d, root, &why), 0);
	EXPECT_EQ((int)d.n, 2); /* loop1 is empty, vda1 a partition */
	EXPECT_STR(d.dev[0].name, "loop0");
	EXPECT_STR(d.dev[1].name, "vda");
}

TEST(activity_is_in_flight_and_every_kind_completed)
{
	make_sysfs();
	struct blk_devices d = {0};
	struct errbuf why;
	EXPECT_EQ(blk_devices_add(&d, root, "vda", &why), 0);
	EXPECT_EQ(blk_devices_add(&d, root, "loop0", &why), 0);
	EXPECT_EQ(blk_devices_add(&d, root, "vda1", &why), 0);
	/* 6.x: 17 fields, reads 0, writes 4, in flight 8, discards 11,
	 * flushes 15 */
	put("devices/vda/stat", "     100   5 800 9  20 2 160 4  3  7 13  6 0 48 1   2 5\n");
	/* before 4.18: 11 fields, no discards or flushes */
	put("devices/loop0/stat", "7 0 56 1 0 0 0 0 0 1 1\n");
	struct blk_activity a;
	EXPECT_EQ(blk_device_activity(root, &d.dev[0], &a), 0);
	EXPECT_EQ((int)a.in_flight, 3);
	EXPECT_EQ((int)a.completed, 100 + 20 + 6 + 2);
	EXPECT_EQ((int)a.data_completed, 100 + 20 + 6);
	EXPECT_EQ(blk_device_activity(root, &d.dev[1], &a), 0);
	EXPECT_EQ((int)a.in_flight, 0);
	EXPECT_EQ((int)a.completed, 7);
	EXPECT_EQ((int)a.data_completed, 7);
	/* a partition's own file, here absent */
	EXPECT_EQ(blk_device_activity(root, &d.dev[2], &a), -ENOENT);
	put("devices/vda/vda1/stat", "1 2 3\n");
	EXPECT_EQ(blk_device_activity(root, &d.dev[2], &a), -EIO);
}

TEST(the_real_sysfs_names_its_disks)
{
	struct blk_devices d = {0};
	struct errbuf why;
	EXPECT_EQ(blk_devices_default(&d, "/sys", &why), 0);
	for (size_t i = 0; i < d.n; i++) {
		char path[128], line[64];
		snprintf(path, sizeof(path), "/sys/block/%s/dev", d.dev[i].name);
		FILE *f = fopen(path, "r");
		EXPECT(f != NULL);
		EXPECT(fgets(line, sizeof(line), f) != NULL);
		fclose(f);
		unsigned ma, mi;
		EXPECT_EQ(sscanf(line, "%u:%u", &ma, &mi), 2);
		EXPECT_EQ((int)ma, (int)d.dev[i].major);
		EXPECT_EQ((int)mi, (int)d.dev[i].minor);
	}
}


/* A stacked device's members, as sysfs links them: slaves/NAME to the
 * member's folder. */
static void slave(const char *upper, const char *lower)
{
	char p[256], t[256];
	snprintf(p, sizeof(p), "devices/%s/slaves", upper);
	struct stat st;
	char full[512];
	snprintf(full, sizeof(full), "%s/%s", root, p);
	if (stat(full, &st) < 0)
		dir(p);
	snprintf(p, sizeof(p), "devices/%s/slaves/%s", upper, lower);
	snprintf(t, sizeof(t), "../../%s", lower);
	link_to(t, p);
}

TEST(a_device_below_a_selected_stacked_one_is_not_counted_twice)
{
	make_sysfs();
	/* dm-1 (LVM) on md0 (raid1 of vdc and vdd); dm-0 (linear) on vdb */
	disk("vdb", "254:16\n", "131072\n", NULL, NULL);
	disk("vdc", "254:32\n", "131072\n", NULL, NULL);
	disk("vdd", "254:48\n", "131072\n", NULL, NULL);
	disk("dm-0", "253:0\n", "131072\n", NULL, NULL);
	disk("md0", "9:0\n", "131000\n", NULL, NULL);
	disk("dm-1", "253:1\n", "131000\n", NULL, NULL);
	slave("dm-0", "vdb");
	slave("md0", "vdc");
	slave("md0", "vdd");
	slave("dm-1", "md0");
	struct blk_devices d = {0};
	struct errbuf why;
	EXPECT_EQ(blk_devices_add(&d, root, "vdc", &why), 0);
	EXPECT(d.dev[0].in_totals); /* alone, it counts */
	EXPECT_EQ(blk_devices_add(&d, root, "md0", &why), 0);
	EXPECT(!d.dev[0].in_totals);
	EXPECT_STR(d.dev[0].under, "md0");
	EXPECT(d.dev[1].in_totals);
	/* the topmost selected holds it, at any depth */
	EXPECT_EQ(blk_devices_add(&d, root, "dm-1", &why), 0);
	EXPECT_STR(d.dev[0].under, "dm-1");
	EXPECT(!d.dev[1].in_totals);
	EXPECT_STR(d.dev[1].under, "dm-1");
	EXPECT(d.dev[2].in_totals);
	EXPECT_EQ((int)d.dev[2].n_below, 3);
	/* beside another stack, which counts apart */
	EXPECT_EQ(blk_devices_add(&d, root, "dm-0", &why), 0);
	EXPECT_EQ(blk_devices_add(&d, root, "vdb", &why), 0);
	EXPECT(d.dev[3].in_totals);
	EXPECT(!d.dev[4].in_totals);
	EXPECT_STR(d.dev[4].under, "dm-0");
	EXPECT_STR(d.dev[2].under, "");
	json_t *list = blk_devices_json(&d, false);
	EXPECT_STR(json_string_value(json_object_get(json_array_get(list, 4), "under")), "dm-0");
	EXPECT(!json_object_get(json_array_get(list, 3), "under"));
	EXPECT(!json_is_true(json_object_get(json_array_get(list, 4), "in_totals")));
	json_decref(list);
	/* a source that leaves clones out bio by bio counts the rest of vdb */
	list = blk_devices_json(&d, true);
	EXPECT(json_is_true(json_object_get(json_array_get(list, 4), "in_totals")));
	json_decref(list);
	EXPECT(blk_devices_below(&d, 3, 4)); /* vdb below dm-0 */
	EXPECT(blk_devices_below(&d, 2, 0)); /* vdc below dm-1, at depth 2 */
	EXPECT(!blk_devices_below(&d, 3, 0));
}

TEST(a_disk_whose_partition_is_stacked_on_counts_in_the_totals)
{
	make_sysfs();
	/* dm-2 (LVM) on vdg2: vdg holds other partitions, its own bytes */
	disk("vdg", "254:96\n", "131072\n", "vdg2", "254:98\n");
	disk("dm-2", "253:2\n", "65536\n", NULL, NULL);
	dir("devices/dm-2/slaves");
	link_to("../../vdg/vdg2", "devices/dm-2/slaves/vdg2");
	struct blk_devices d = {0};
	struct errbuf why;
	EXPECT_EQ(blk_devices_add(&d, root, "vdg", &why), 0);
	EXPECT_EQ(blk_devices_add(&d, root, "dm-2", &why), 0);
	EXPECT(d.dev[0].in_totals && d.dev[0].own_totals);
	EXPECT_STR(d.dev[0].under, "");
	EXPECT_STR(d.dev[0].partly_under, "dm-2");
	json_t *list = blk_devices_json(&d, false);
	EXPECT_STR(json_string_value(json_object_get(json_array_get(list, 0), "partly_under")), "dm-2");
	json_decref(list);
	EXPECT_STR(d.dev[1].below[0], "vdg2");
	EXPECT(blk_devices_below(&d, 1, 0)); /* its partition is a member */
	EXPECT(!blk_devices_below(&d, 0, 1));
}
