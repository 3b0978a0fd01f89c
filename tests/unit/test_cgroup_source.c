// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The cgroup source on a pure cgroup v2 host, which this project's CI is
 * not: a directory laid out as a v2 cgroup with the cpu, memory, io and
 * pids controllers, its files rewritten between samples, read through the
 * collector interface as an episode would. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "common/block_devices.h"
#include "config.h"
#include "testing.h"

extern const struct collector_ops cgroup_ops;

static char dir[256];

static void put(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(const char *name, const char *fmt, ...)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		FAILF("%s: %s", path, strerror(errno));
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* the cgroup's counters at one moment */
static void state(unsigned major, unsigned minor, unsigned long long usage_us, unsigned long long throttled,
		  unsigned long long current, unsigned long long peak, unsigned long long wbytes,
		  unsigned long long some_us, int tasks)
{
	put("cpu.stat", "usage_usec %llu\nuser_usec %llu\nsystem_usec %llu\nnr_periods 40\nnr_throttled %llu\n"
			"throttled_usec %llu\n",
	    usage_us, usage_us * 3 / 4, usage_us / 4, throttled, throttled * 1000);
	put("memory.current", "%llu\n", current);
	put("memory.peak", "%llu\n", peak);
	put("memory.stat", "anon %llu\nfile 8192\nkernel 4096\npgfault %llu\npgmajfault 1\n", current - 8192,
	    throttled * 10);
	put("io.stat", "%u:%u rbytes=4096 wbytes=%llu rios=1 wios=%llu dbytes=0 dios=0\n", major, minor, wbytes,
	    wbytes / 65536);
	put("cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n"
			    "full avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n", some_us, some_us / 2);
	put("io.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=3\n");
	put("memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	put("pids.current", "%d\n", tasks);
	put("memory.events", "low 0\nhigh %llu\nmax 0\noom 0\noom_kill 0\n", throttled * 2);
	put("cgroup.procs", "1\n");
}

static json_int_t cell(json_t *row, const char *name)
{
	json_t *v = json_object_get(row, name);
	if (!json_is_integer(v))
		FAILF("%s is %s", name, v ? "null" : "absent");
	return json_integer_value(v);
}

TEST(a_v2_cgroup_with_every_controller)
{
	struct blk_devices devs = {0};
	struct errbuf why;
	if (blk_devices_default(&devs, "/sys", &why) < 0 || devs.n == 0)
		SKIP("no block device here to name in io.stat");
	unsigned major = devs.dev[0].major, minor = devs.dev[0].minor;
	snprintf(dir, sizeof(dir), "/tmp/iopsample-unit-cgroup-%d", (int)getpid());
	EXPECT_EQ(mkdir(dir, 0755), 0);
	state(major, minor, 1000, 2, 1 << 20, 1 << 20, 0, 100, 3);

	struct cgroup_set set = {.v2_controllers = CG_CPU | CG_MEMORY | CG_IO | CG_PIDS, .owned = true};
	snprintf(set.dir[CGR_V2], sizeof(set.dir[CGR_V2]), "%s", dir);
	struct target_info t = {.pid = getpid(), .cgroups = &set};
	struct source_config sc;
	EXPECT_EQ(source_config_init(&sc, &cgroup_ops), 0);
	json_t *row = json_object(), *manifest = json_object();
	void *st = NULL;
	EXPECT_EQ(cgroup_ops.probe(&sc, &t, manifest, &why), 0);
	EXPECT_EQ(cgroup_ops.open(&sc, &t, row, manifest, &st, &why), 0);
	EXPECT_STR(json_string_value(json_object_get(manifest, "io_counted_by")), "io.stat");
	EXPECT_STR(json_string_value(json_object_get(manifest, "pressure_scope")), "cgroup");
	EXPECT_STR(json_string_value(json_object_get(manifest, "memory_peak")), "since the previous row");
	EXPECT_EQ(json_object_size(json_object_get(manifest, "null_fields")), 0);

	/* a tick: 5 ms more CPU, 3 throttled periods, 64 KiB x 4 written,
	 * memory up and its peak above it, 2 tasks more */
	state(major, minor, 6000, 5, 3 << 20, 4 << 20, 262144, 2100, 5);
	EXPECT_EQ(cgroup_ops.sample(st, &why), 0);
	EXPECT_EQ(cell(row, "cpu_usage_ns"), 5000000);
	EXPECT_EQ(cell(row, "cpu_user_ns"), 3750000);
	EXPECT_EQ(cell(row, "throttled_periods"), 3);
	EXPECT_EQ(cell(row, "throttled_ns"), 3000000);
	EXPECT_EQ(cell(row, "memory_bytes"), 3 << 20); /* gauges: the level */
	EXPECT_EQ(cell(row, "memory_peak_bytes"), 4 << 20);
	EXPECT_EQ(cell(row, "anon_bytes"), (3 << 20) - 8192);
	EXPECT_EQ(cell(row, "pgfault"), 30);
	EXPECT_EQ(cell(row, "io_write_bytes"), 262144);
	EXPECT_EQ(cell(row, "io_write_ops"), 4);
	EXPECT_EQ(cell(row, "io_read_bytes"), 0);
	EXPECT_EQ(cell(row, "cpu_some_ns"), 2000000);
	EXPECT_EQ(cell(row, "cpu_full_ns"), 1000000);
	EXPECT_EQ(cell(row, "io_some_ns"), 0);
	EXPECT_EQ(cell(row, "nprocs"), 5);
	EXPECT_EQ(cell(row, "memory_high_events"), 6);
	/* this process's CPUs; its cgroup made up, with no quota above */
	cpu_set_t mine;
	EXPECT_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
	EXPECT_EQ(cell(row, "tree_cpus"), CPU_COUNT(&mine));
	EXPECT_EQ(cell(row, "ancestor_throttled_ns"), 0);
	json_t *dev = json_object_get(json_object_get(row, "by_device"), devs.dev[0].name);
	EXPECT_EQ(cell(dev, "write_bytes"), 262144);

	/* the peak file was reset through our descriptor after each read */
	char path[512], buf[64] = "";
	snprintf(path, sizeof(path), "%s/memory.peak", dir);
	int fd = open(path, O_RDONLY);
	EXPECT(fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	EXPECT(!strncmp(buf, "reset", 5));

	/* a read without the device's line counts nothing on it, and the
	 * next with it counts only what is new since the last (not the
	 * whole total again) */
	put("io.stat", "%s", "");
	EXPECT_EQ(cgroup_ops.sample(st, &why), 0);
	EXPECT_EQ(cell(row, "io_write_bytes"), 0);
	EXPECT_EQ(cell(dev, "write_bytes"), 0);
	state(major, minor, 6000, 5, 3 << 20, 4 << 20, 262144 + 65536, 2100, 5);
	EXPECT_EQ(cgroup_ops.sample(st, &why), 0);
	EXPECT_EQ(cell(row, "io_write_bytes"), 65536);
	EXPECT_EQ(cell(dev, "write_bytes"), 65536);
	EXPECT_EQ(cell(row, "io_write_ops"), 1);

	/* a counter that goes down is not a change: null, with a warning */
	state(major, minor, 4000, 5, 3 << 20, 3 << 20, 262144 + 65536, 2100, 5);
	EXPECT_EQ(cgroup_ops.sample(st, &why), 0);
	EXPECT(json_is_null(json_object_get(row, "cpu_usage_ns")));
	EXPECT_EQ(cell(row, "io_write_bytes"), 0);
	EXPECT_EQ(json_array_size(json_object_get(manifest, "warnings")), 1);

	cgroup_ops.close(st);
	json_decref(row);
	json_decref(manifest);
	free(sc.priv);
	static const char *const files[] = {"cpu.stat", "memory.current", "memory.peak", "memory.stat", "io.stat",
					    "cpu.pressure", "io.pressure", "memory.pressure", "pids.current",
					    "cgroup.procs"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

TEST(no_cgroup_is_unavailable_with_the_reason)
{
	struct cgroup_set set = {.owned = true};
	snprintf(set.why, sizeof(set.why), "episode.cgroup is off");
	struct target_info t = {.cgroups = &set};
	struct source_config sc;
	struct errbuf why;
	EXPECT_EQ(source_config_init(&sc, &cgroup_ops), 0);
	json_t *m = json_object();
	EXPECT_EQ(cgroup_ops.probe(&sc, &t, m, &why), -ENOTSUP);
	EXPECT(strstr(why.msg, "episode.cgroup is off") != NULL);
	t.cgroups = NULL;
	EXPECT_EQ(cgroup_ops.probe(&sc, &t, m, &why), -ENOTSUP);
	json_decref(m);
	free(sc.priv);
}
