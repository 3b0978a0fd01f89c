// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cgroup: the episode's cgroup as production sees a workload, the numbers
 * cAdvisor, systemd-cgtop, below and the kubelet export: CPU and
 * throttling, memory (current, peak, anon, file, faults), block I/O per
 * device, pressure stall time, processes.
 *
 * Deployable: every container platform keeps these for every workload
 * whoever watches. The engine makes the cgroups and moves the target in
 * (engine/episode_cgroup.c); this source reads them: each field from the
 * first of its providers this host has (the v2 cgroup's file, else the v1
 * hierarchy's), chosen at open and kept for the episode, each file kept
 * open and read once a tick with pread. A field no provider gives is null
 * in every row, with its reason in the manifest's null_fields. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_files.h"
#include "cg_io.h"
#include "cg_limits.h"
#include "cgroupfs.h"
#include "collector.h"
#include "jsonl_writer.h"
#include "procfs_files.h"
#include "common/block_devices.h"

enum field {
	F_CPU_USAGE,
	F_CPU_USER,
	F_CPU_SYSTEM,
	F_THROTTLED_PERIODS,
	F_THROTTLED,
	F_MEMORY,
	F_MEMORY_PEAK,
	F_ANON,
	F_FILE,
	F_PGFAULT,
	F_PGMAJFAULT,
	F_IO_READ_BYTES,
	F_IO_WRITE_BYTES,
	F_IO_READ_OPS,
	F_IO_WRITE_OPS,
	F_CPU_SOME,
	F_CPU_FULL,
	F_IO_SOME,
	F_IO_FULL,
	F_MEMORY_SOME,
	F_MEMORY_FULL,
	F_NPROCS,
	F_TREE_CPUS,
	F_ANCESTOR_THROTTLED,
	F_MEMORY_HIGH_EVENTS,
	NFIELDS
};

static const char *const field_names[NFIELDS] = {
	"cpu_usage_ns",	 "cpu_user_ns",	   "cpu_system_ns", "throttled_periods", "throttled_ns",
	"memory_bytes",	 "memory_peak_bytes", "anon_bytes",	  "file_bytes",	     "pgfault",
	"pgmajfault",	 "io_read_bytes",	  "io_write_bytes", "io_read_ops",	     "io_write_ops",
	"cpu_some_ns",	 "cpu_full_ns",	   "io_some_ns",	  "io_full_ns",	     "memory_some_ns",
	"memory_full_ns", "nprocs",          "tree_cpus",     "ancestor_throttled_ns", "memory_high_events",
};

/* levels, not changes */
#define GAUGES                                                                                  \
	((1u << F_MEMORY) | (1u << F_MEMORY_PEAK) | (1u << F_ANON) | (1u << F_FILE) | (1u << F_NPROCS) | \
	 (1u << F_TREE_CPUS))

/* The files read. */
enum file {
	CPU_STAT_V2,
	CPUACCT_USAGE,
	CPUACCT_USER,
	CPUACCT_SYS,
	CPU_STAT_V1,
	MEM_CURRENT,
	MEM_PEAK,
	MEM_STAT,
	MEM_EVENTS,
	PSI_CPU,
	PSI_IO,
	PSI_MEMORY,
	TASKS,
	NFILES
};

struct file_state {
	int fd;
	char *buf;
	size_t cap;
	bool ok; /* read this tick */
	int version;
	char *path; /* set: opened again for each read (v1's task lists are
		       cached per open file) */
};

/* One way to get a field: a number in a file, under key (NULL: the whole
 * file), times scale. */
struct provider {
	int role;           /* enum cgroup_role: whose directory */
	const char *name;   /* the file there */
	enum file file;
	const char *key;
	uint64_t scale;
};

static const struct {
	enum field f;
	struct provider p[3];
} plan[] = {
	{F_CPU_USAGE, {{CGR_V2, "cpu.stat", CPU_STAT_V2, "usage_usec", 1000}, {CGR_CPUACCT, "cpuacct.usage", CPUACCT_USAGE, NULL, 1}}},
	{F_CPU_USER, {{CGR_V2, "cpu.stat", CPU_STAT_V2, "user_usec", 1000}, {CGR_CPUACCT, "cpuacct.usage_user", CPUACCT_USER, NULL, 1}}},
	{F_CPU_SYSTEM, {{CGR_V2, "cpu.stat", CPU_STAT_V2, "system_usec", 1000}, {CGR_CPUACCT, "cpuacct.usage_sys", CPUACCT_SYS, NULL, 1}}},
	{F_THROTTLED_PERIODS, {{CGR_V2, "cpu.stat", CPU_STAT_V2, "nr_throttled", 1}, {CGR_CPU, "cpu.stat", CPU_STAT_V1, "nr_throttled", 1}}},
	{F_THROTTLED, {{CGR_V2, "cpu.stat", CPU_STAT_V2, "throttled_usec", 1000}, {CGR_CPU, "cpu.stat", CPU_STAT_V1, "throttled_time", 1}}},
	{F_MEMORY, {{CGR_V2, "memory.current", MEM_CURRENT, NULL, 1}, {CGR_MEMORY, "memory.usage_in_bytes", MEM_CURRENT, NULL, 1}}},
	{F_MEMORY_PEAK, {{CGR_V2, "memory.peak", MEM_PEAK, NULL, 1}, {CGR_MEMORY, "memory.max_usage_in_bytes", MEM_PEAK, NULL, 1}}},
	{F_ANON, {{CGR_V2, "memory.stat", MEM_STAT, "anon", 1}, {CGR_MEMORY, "memory.stat", MEM_STAT, "total_rss", 1}}},
	{F_FILE, {{CGR_V2, "memory.stat", MEM_STAT, "file", 1}, {CGR_MEMORY, "memory.stat", MEM_STAT, "total_cache", 1}}},
	{F_PGFAULT, {{CGR_V2, "memory.stat", MEM_STAT, "pgfault", 1}, {CGR_MEMORY, "memory.stat", MEM_STAT, "total_pgfault", 1}}},
	{F_PGMAJFAULT, {{CGR_V2, "memory.stat", MEM_STAT, "pgmajfault", 1}, {CGR_MEMORY, "memory.stat", MEM_STAT, "total_pgmajfault", 1}}},
	/* v2 alone has memory.high (v1's soft limit throttles nothing) */
	{F_MEMORY_HIGH_EVENTS, {{CGR_V2, "memory.events", MEM_EVENTS, "high", 1}}},
};

struct cgroup_src {
	const struct cgroup_set *set;
	struct file_state file[NFILES];
	const struct provider *use[NFIELDS]; /* the planned fields' provider, or NULL */
	bool have[NFIELDS];
	bool peak_resets;    /* the peak file starts again at each read's reset */
	bool system_psi;     /* pressure from /proc/pressure: the whole host's */
	bool tasks_listed;   /* nprocs: lines of a task list (no pids.current) */
	uint64_t prev[NFIELDS];
	struct blk_devices devs;
	struct cg_io_reader io; /* block I/O per device */
	struct cg_limits limits; /* the tree's CPUs, its ancestors' quotas */
	uint64_t ancestor_throttled; /* ns since open */
	json_t *cpus_seen;           /* the manifest's tree_cpus */
	uint64_t rows;
	json_t *row, *dev[BLK_MAX_DEVICES];
	json_t *null_fields, *warnings;
	unsigned backwards; /* counters seen to go down: their cells null */
};

/* Reads the whole file again from offset 0 into its buffer (a cgroup
 * file is a seq_file: procfs_pread_all reads to its end). */
static int reread(struct file_state *f)
{
	if (f->path) {
		if (f->fd >= 0)
			close(f->fd);
		if ((f->fd = open(f->path, O_RDONLY | O_CLOEXEC)) < 0)
			return -errno;
	}
	ssize_t n = procfs_pread_all(f->fd, &f->buf, &f->cap);
	return n < 0 ? (int)n : 0;
}

static bool provider_gives(struct cgroup_src *p, const struct provider *pr)
{
	struct file_state *f = &p->file[pr->file];
	if (f->fd < 0) {
		int fd = cgroup_set_open(p->set, pr->role, pr->name);
		if (fd < 0)
			return false;
		f->fd = fd;
		f->version = pr->role == CGR_V2 ? 2 : 1;
		if (reread(f) < 0) {
			close(f->fd);
			f->fd = -1;
			return false;
		}
	} else if ((f->version == 2) != (pr->role == CGR_V2)) {
		return false; /* the slot holds the other version's file */
	}
	uint64_t v;
	return pr->key ? cg_keyed(f->buf, pr->key, &v) == 0 : cg_number(f->buf, &v) == 0;
}

static const char *why_not(const struct cgroup_src *p, enum field f)
{
	const struct cgroup_set *s = p->set;
	switch (f) {
	case F_THROTTLED_PERIODS:
	case F_THROTTLED:
		return "no cpu controller: neither the v2 cgroup has it nor a v1 cpu hierarchy";
	case F_MEMORY_PEAK:
		return "neither memory.peak (v2, Linux 5.19) nor memory.max_usage_in_bytes (v1)";
	case F_MEMORY_HIGH_EVENTS:
		return "memory.high is cgroup v2's, and the episode's v2 cgroup has no memory controller";
	case F_TREE_CPUS:
		return "the target's affinity could not be read";
	case F_ANCESTOR_THROTTLED:
		return "no cpu controller above the episode's cgroup to read";
	default:
		break;
	}
	if (f >= F_MEMORY && f <= F_PGMAJFAULT)
		return *s->dir[CGR_V2] && !*s->dir[CGR_MEMORY]
			       ? "no memory controller: the v2 cgroup has none (a v2 mount without "
				 "controllers, as on a hybrid host) and no v1 memory hierarchy"
			       : "no memory controller for the episode's cgroup";
	return "this host's cgroups do not count it";
}

/* ---- the source ---- */

/* 0 when the episode has a cgroup of some role to read. */
static int has_cgroup(const struct target_info *t, struct errbuf *why)
{
	if (!t->cgroups)
		return errbuf_set(why, ENOTSUP, "the episode has no cgroup");
	for (int r = 0; r < CGR_NROLES; r++)
		if (*t->cgroups->dir[r])
			return 0;
	return errbuf_set(why, ENOTSUP, "the episode has no cgroup: %s", t->cgroups->why);
}

static int cg_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
		    struct errbuf *why)
{
	(void)sc;
	(void)manifest;
	return has_cgroup(t, why);
}

static void cg_close(void *state)
{
	struct cgroup_src *p = state;
	if (!p)
		return;
	for (int i = 0; i < NFILES; i++) {
		if (p->file[i].fd >= 0)
			close(p->file[i].fd);
		free(p->file[i].buf);
		free(p->file[i].path);
	}
	cg_io_close(&p->io);
	cg_limits_close(&p->limits);
	free(p);
}

/* Reads every file open; one that fails leaves its fields null this row. */
static void read_all_files(struct cgroup_src *p)
{
	for (int i = 0; i < NFILES; i++)
		p->file[i].ok = p->file[i].fd >= 0 && reread(&p->file[i]) == 0;
}

static bool value_of(struct cgroup_src *p, enum field f, uint64_t *v)
{
	bool full = f == F_CPU_FULL || f == F_IO_FULL || f == F_MEMORY_FULL;
	switch (f) {
	case F_IO_READ_BYTES:
	case F_IO_WRITE_BYTES:
	case F_IO_READ_OPS:
	case F_IO_WRITE_OPS:
		return false; /* summed in sample() */
	case F_CPU_SOME:
	case F_CPU_FULL:
	case F_IO_SOME:
	case F_IO_FULL:
	case F_MEMORY_SOME:
	case F_MEMORY_FULL: {
		enum file file = f <= F_CPU_FULL ? PSI_CPU : f <= F_IO_FULL ? PSI_IO : PSI_MEMORY;
		uint64_t some, fullv;
		bool have_full;
		if (!p->file[file].ok || cg_pressure(p->file[file].buf, &some, &fullv, &have_full) < 0 ||
		    (full && !have_full))
			return false;
		*v = (full ? fullv : some) * 1000;
		return true;
	}
	case F_TREE_CPUS:
		*v = (uint64_t)p->limits.cpus;
		return p->limits.cpus > 0;
	case F_ANCESTOR_THROTTLED:
		*v = p->ancestor_throttled;
		return true;
	case F_NPROCS:
		if (!p->file[TASKS].ok)
			return false;
		if (p->tasks_listed)
			return *v = cg_lines(p->file[TASKS].buf), true;
		return cg_number(p->file[TASKS].buf, v) == 0;
	default:
		break;
	}
	const struct provider *pr = p->use[f];
	if (!pr || !p->file[pr->file].ok)
		return false;
	const char *buf = p->file[pr->file].buf;
	if ((pr->key ? cg_keyed(buf, pr->key, v) : cg_number(buf, v)) < 0)
		return false;
	*v *= pr->scale;
	return true;
}

static bool peak_reset(int fd, bool v2)
{
	return v2 ? pwrite(fd, "reset\n", 6, 0) == 6 : pwrite(fd, "0\n", 2, 0) == 2;
}

/* The peak since the last read, where the kernel can reset it. */
static void reset_peak(struct cgroup_src *p)
{
	if (p->peak_resets)
		peak_reset(p->file[MEM_PEAK].fd, p->file[MEM_PEAK].version == 2);
}

/* The tree's CPUs, in the manifest from the row that first saw them. */
static void note_cpus(struct cgroup_src *p)
{
	json_array_append_new(p->cpus_seen, json_pack("{s:I, s:i, s:s}", "since_row", (json_int_t)p->rows,
						      "cpus", p->limits.cpus, "list", p->limits.list));
}

static void put_row(struct cgroup_src *p, bool baseline)
{
	read_all_files(p);
	uint64_t held;
	if (cg_limits_throttled(&p->limits, &held))
		p->ancestor_throttled += held;
	if (cg_limits_cpus(&p->limits) && !baseline)
		note_cpus(p);
	uint64_t now[NFIELDS] = {0};
	bool ok[NFIELDS] = {0};
	for (int f = 0; f < NFIELDS; f++)
		ok[f] = p->have[f] && value_of(p, f, &now[f]);
	reset_peak(p);
	/* block I/O: over the selected devices, each counted once */
	struct cg_io sum;
	bool io_ok = p->have[F_IO_READ_BYTES] && cg_io_read(&p->io, baseline ? NULL : p->dev, &sum);
	if (io_ok) {
		now[F_IO_READ_BYTES] = sum.read_bytes;
		now[F_IO_WRITE_BYTES] = sum.write_bytes;
		now[F_IO_READ_OPS] = sum.read_ops;
		now[F_IO_WRITE_OPS] = sum.write_ops;
	}
	for (int f = F_IO_READ_BYTES; f <= F_IO_WRITE_OPS; f++)
		ok[f] = io_ok;
	for (int f = 0; f < NFIELDS; f++) {
		bool gauge = GAUGES & (1u << f);
		bool io = f >= F_IO_READ_BYTES && f <= F_IO_WRITE_OPS;
		bool counter = !gauge && !io;
		bool backwards = ok[f] && counter && now[f] < p->prev[f];
		if (!baseline) {
			json_int_t v = (json_int_t)(counter ? now[f] - p->prev[f] : now[f]);
			jsonl_cell_int(p->row, field_names[f], ok[f] && !backwards, v);
			if (backwards && !p->backwards++)
				json_array_append_new(p->warnings,
						      json_sprintf("%s went down (from %llu to %llu): the cell is "
								   "null in each row where a counter does",
								   field_names[f], (unsigned long long)p->prev[f],
								   (unsigned long long)now[f]));
		}
		if (ok[f] && counter)
			p->prev[f] = now[f];
	}
	if (!baseline)
		p->rows++;
}

static int cg_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		   json_t *manifest, void **state, struct errbuf *why)
{
	int r = has_cgroup(t, why);
	if (r < 0)
		return r;
	struct cgroup_src *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	for (int i = 0; i < NFILES; i++)
		p->file[i].fd = -1;
	p->io.fd[0] = p->io.fd[1] = -1;
	p->set = t->cgroups;
	p->row = row;
	p->null_fields = json_object();
	p->warnings = json_array();

	/* the devices, as diskstats and block_io choose them */
	if ((r = blk_config_devices(sc->priv, &p->devs, why)) < 0) {
		cg_close(p);
		return r;
	}
	const char *io_note;
	bool have_io = cg_io_open(&p->io, p->set, &p->devs, &io_note);
	for (int f = F_IO_READ_BYTES; f <= F_IO_WRITE_OPS; f++)
		p->have[f] = have_io;

	/* the planned fields: each from its first provider here */
	for (size_t i = 0; i < sizeof(plan) / sizeof(plan[0]); i++) {
		for (const struct provider *pr = plan[i].p; pr->name; pr++)
			if (provider_gives(p, pr)) {
				p->use[plan[i].f] = pr;
				p->have[plan[i].f] = true;
				break;
			}
	}
	/* the peak since the last read: v2 resets it for one open file (Linux
	 * 6.12 on), v1 for every reader, so only in a cgroup of our own */
	if (p->have[F_MEMORY_PEAK]) {
		const struct provider *pr = p->use[F_MEMORY_PEAK];
		if (pr->role == CGR_V2 || p->set->owned) {
			char path[700];
			snprintf(path, sizeof(path), "%s/%s", p->set->dir[pr->role], pr->name);
			int rw = open(path, O_RDWR | O_CLOEXEC);
			if (rw >= 0 && peak_reset(rw, pr->role == CGR_V2)) {
				close(p->file[MEM_PEAK].fd);
				p->file[MEM_PEAK].fd = rw;
				p->peak_resets = true;
			} else if (rw >= 0) {
				close(rw);
			}
		}
		if (!p->peak_resets) { /* it cannot tell: the current value */
			p->use[F_MEMORY_PEAK] = p->use[F_MEMORY];
			p->have[F_MEMORY_PEAK] = p->have[F_MEMORY];
		}
	}
	/* pressure: the v2 cgroup's own, else the host's */
	static const char *const psi[] = {"cpu.pressure", "io.pressure", "memory.pressure"};
	int got = 0;
	for (int i = 0; i < 3; i++) {
		int fd = cgroup_set_open(p->set, CGR_V2, psi[i]);
		if (fd >= 0) {
			p->file[PSI_CPU + i] = (struct file_state){.fd = fd, .version = 2};
			got++;
		}
	}
	if (!got) {
		static const char *const host[] = {"/proc/pressure/cpu", "/proc/pressure/io", "/proc/pressure/memory"};
		for (int i = 0; i < 3; i++) {
			int fd = open(host[i], O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				p->file[PSI_CPU + i] = (struct file_state){.fd = fd, .version = 1};
				got++;
			}
		}
		p->system_psi = got > 0;
	}
	for (int f = F_CPU_SOME; f <= F_MEMORY_FULL; f++)
		p->have[f] = p->file[PSI_CPU + (f - F_CPU_SOME) / 2].fd >= 0;
	/* tasks: the pids controller's count, kept by the kernel as tasks come
	 * and go; else a list of them, whose reading grows with the cgroup */
	const char *tasks_from = NULL;
	json_t *nprocs_path = NULL;
	static const struct {
		int role;
		const char *name;
		bool listed, reopen;
	} tasks[] = {
		{CGR_V2, "pids.current", false, false},
		{CGR_PIDS, "pids.current", false, false},
		{CGR_V2, "cgroup.threads", true, false},
		{CGR_PIDS, "tasks", true, true},
		{CGR_MEMORY, "tasks", true, true},
	};
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]) && !tasks_from; i++) {
		int fd = cgroup_set_open(p->set, tasks[i].role, tasks[i].name);
		if (fd < 0)
			continue;
		struct file_state *f = &p->file[TASKS];
		*f = (struct file_state){.fd = fd};
		if (tasks[i].reopen && asprintf(&f->path, "%s/%s", p->set->dir[tasks[i].role], tasks[i].name) < 0)
			f->path = NULL;
		p->tasks_listed = tasks[i].listed;
		tasks_from = tasks[i].name;
		nprocs_path = json_sprintf("%s/%s", p->set->dir[tasks[i].role], tasks[i].name);
	}
	p->have[F_NPROCS] = tasks_from != NULL;
	/* what bounds its CPU from outside: the CPUs it may use, the quotas
	 * above it (none: no throttling to count, 0) */
	cg_limits_open(&p->limits, p->set, t->pid);
	p->have[F_TREE_CPUS] = p->limits.cpus > 0;
	p->have[F_ANCESTOR_THROTTLED] = *p->set->dir[CGR_V2] || *p->set->dir[CGR_CPU];
	p->cpus_seen = json_array();
	note_cpus(p);
	json_object_set_new(manifest, "tree_cpus", p->cpus_seen);
	json_object_set_new(manifest, "quota_ancestors", cg_limits_quotas_json(&p->limits));

	/* the row's keys, fixed from here on; the baseline */
	for (int f = 0; f < NFIELDS; f++)
		json_object_set_new(row, field_names[f], json_null());
	json_t *by = blk_by_device(&p->devs, p->dev);
	json_object_set_new(row, "by_device", by);
	put_row(p, true);
	for (int f = 0; f < NFIELDS; f++) {
		bool full = f == F_CPU_FULL || f == F_IO_FULL || f == F_MEMORY_FULL;
		uint64_t v;
		if (p->have[f] && full && !value_of(p, f, &v))
			p->have[f] = false; /* a pressure file without a full line */
		if (!p->have[f])
			json_object_set_new(p->null_fields, field_names[f],
					    json_string(f >= F_IO_READ_BYTES && f <= F_IO_WRITE_OPS
								? "no io controller: neither the v2 cgroup's io.stat nor v1 blkio"
							: f >= F_CPU_SOME && f <= F_MEMORY_FULL
								? (full && got ? "this kernel's pressure file has no full line"
									      : "no pressure file: neither the cgroup's nor /proc/pressure (CONFIG_PSI)")
							: f == F_NPROCS ? "neither pids.current nor a task list to read"
									: why_not(p, f)));
	}

	json_t *used = json_object();
	for (int f = 0; f < NFIELDS; f++)
		if (p->use[f])
			json_object_set_new(used, field_names[f],
					    json_sprintf("%s/%s", p->set->dir[p->use[f]->role], p->use[f]->name));
	if (nprocs_path)
		json_object_set_new(used, "nprocs", nprocs_path);
	json_object_set_new(manifest, "read_from", used);
	json_object_set_new(manifest, "io_counted_by", json_string(cg_io_counted_by(&p->io)));
	if (io_note)
		json_array_append_new(p->warnings, json_string(io_note));
	json_object_set_new(manifest, "pressure_scope", json_string(!got ? "none" : p->system_psi ? "system" : "cgroup"));
	json_object_set_new(manifest, "memory_peak", json_string(p->peak_resets ? "since the previous row" : "the current value"));
	json_object_set_new(manifest, "devices", blk_devices_json(&p->devs, false));
	json_object_set_new(manifest, "null_fields", p->null_fields);
	json_object_set_new(manifest, "warnings", p->warnings);
	*state = p;
	return 0;
}

static int cg_sample(void *state, struct errbuf *why)
{
	(void)why;
	put_row(state, false);
	return 0;
}

const struct collector_ops cgroup_ops = {
	.name = "cgroup",
	.available_in_deployment = true,
	.priv_size = sizeof(struct blk_config),
	.parse_key = blk_config_parse,
	.describe = blk_config_describe,
	.probe = cg_probe,
	.open = cg_open,
	.sample = cg_sample,
	.close = cg_close,
};
