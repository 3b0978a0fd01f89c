// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* What bounds the tree's CPU from outside its own cgroup: see cg_limits.h. */
#define _GNU_SOURCE
#include "cg_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_files.h"
#include "cpulist.h"
#include "procfs.h"

static bool exists_in(const char *dir, const char *name)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The quota of cgroup dir in CPUs, from v2's cpu.max ("QUOTA PERIOD",
 * "max PERIOD") or v1's cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us;
 * 0 when it has none. */
static double quota_of(const char *dir, int version)
{
	char path[700], buf[128];
	if (version == 2) {
		snprintf(path, sizeof(path), "%s/cpu.max", dir);
		long long quota, period;
		if (procfs_read(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%lld %lld", &quota, &period) != 2 ||
		    quota <= 0 || period <= 0)
			return 0; /* "max ..." fails the first %lld */
		return (double)quota / (double)period;
	}
	snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
	long long quota = -1, period = 0;
	if (procfs_read(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%lld", &quota) != 1 || quota <= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
	if (procfs_read(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%lld", &period) != 1 || period <= 0)
		return 0;
	return (double)quota / (double)period;
}

/* An ancestor's throttled time so far, ns: v2 throttled_usec, v1
 * throttled_time. */
static bool throttled_of(const struct cg_quota *q, uint64_t *ns)
{
	char buf[2048];
	ssize_t n = pread(q->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	uint64_t v;
	if (cg_keyed(buf, q->version == 2 ? "throttled_usec" : "throttled_time", &v) < 0)
		return false;
	*ns = q->version == 2 ? v * 1000 : v;
	return true;
}

/* The ancestors of dir (the episode's cgroup of a hierarchy of version)
 * that have a quota, up to the hierarchy's root (the last directory with a
 * cgroup.procs). */
static void find_quotas(struct cg_limits *l, const char *dir, int version)
{
	char at[512];
	snprintf(at, sizeof(at), "%s", dir);
	for (;;) {
		char *slash = strrchr(at, '/');
		if (!slash || slash == at)
			return;
		*slash = '\0';
		if (!exists_in(at, "cgroup.procs") || l->nq == CG_LIMITS_QUOTAS)
			return;
		double cpus = quota_of(at, version);
		if (cpus <= 0)
			continue;
		struct cg_quota *q = &l->q[l->nq];
		char stat[700];
		snprintf(stat, sizeof(stat), "%s/cpu.stat", at);
		*q = (struct cg_quota){.cpus = cpus, .version = version,
				       .stat_fd = open(stat, O_RDONLY | O_CLOEXEC)};
		snprintf(q->dir, sizeof(q->dir), "%s", at);
		if (q->stat_fd >= 0 && throttled_of(q, &q->throttled))
			l->nq++;
		else if (q->stat_fd >= 0)
			close(q->stat_fd);
	}
}

/* The file of the target's cpuset that lists its effective CPUs: in v2,
 * the nearest cgroup up from the target's that has one (the cpuset
 * controller may not be enabled in its own); in v1, the cpuset
 * hierarchy's. */
static void find_cpuset(struct cg_limits *l)
{
	struct cgroupfs fs;
	if (cgroupfs_read(l->target, &fs) < 0)
		return;
	const struct cgroupfs_hierarchy *v1 = cgroupfs_v1(&fs, CG_CPUSET), *v2 = cgroupfs_v2(&fs);
	char dir[600 - 24];
	if (v1 && cgroupfs_path(v1, NULL, dir, sizeof(dir)) >= 0) {
		snprintf(l->cpuset_file, sizeof(l->cpuset_file), "%s/cpuset.effective_cpus", dir);
		return;
	}
	if (!v2 || cgroupfs_path(v2, NULL, dir, sizeof(dir)) < 0)
		return;
	for (;;) {
		if (exists_in(dir, "cpuset.cpus.effective")) {
			snprintf(l->cpuset_file, sizeof(l->cpuset_file), "%s/cpuset.cpus.effective", dir);
			return;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir || !exists_in(dir, "cgroup.procs"))
			return;
		*slash = '\0';
	}
}

int cg_limits_open(struct cg_limits *l, const struct cgroup_set *set, pid_t target)
{
	memset(l, 0, sizeof(*l));
	l->target = target;
	if (set && set->dir[CGR_V2][0])
		find_quotas(l, set->dir[CGR_V2], 2);
	if (set && set->dir[CGR_CPU][0])
		find_quotas(l, set->dir[CGR_CPU], 1);
	/* tightest first: the one the evidence names */
	for (size_t i = 1; i < l->nq; i++)
		for (size_t j = i; j > 0 && l->q[j].cpus < l->q[j - 1].cpus; j--) {
			struct cg_quota t = l->q[j];
			l->q[j] = l->q[j - 1];
			l->q[j - 1] = t;
		}
	find_cpuset(l);
	cg_limits_cpus(l);
	return 0;
}

void cg_limits_close(struct cg_limits *l)
{
	for (size_t i = 0; i < l->nq; i++)
		close(l->q[i].stat_fd);
	l->nq = 0;
}

bool cg_limits_cpus(struct cg_limits *l)
{
	cpu_set_t mine, set;
	if (sched_getaffinity(l->target, sizeof(mine), &mine) < 0)
		return false; /* the target is gone: its CPUs stand */
	char buf[4096];
	if (l->cpuset_file[0] && procfs_read(l->cpuset_file, buf, sizeof(buf)) > 0 &&
	    cpulist_parse(buf, &set) == 0 && CPU_COUNT(&set) > 0)
		CPU_AND(&mine, &mine, &set);
	char list[sizeof(l->list)];
	cpulist_format(&mine, list, sizeof(list));
	int n = CPU_COUNT(&mine);
	bool changed = n != l->cpus || strcmp(list, l->list);
	l->cpus = n;
	memcpy(l->list, list, sizeof(list));
	return changed;
}

bool cg_limits_throttled(struct cg_limits *l, uint64_t *ns)
{
	*ns = 0;
	for (size_t i = 0; i < l->nq; i++) {
		uint64_t now;
		if (!throttled_of(&l->q[i], &now))
			continue;
		uint64_t d = now > l->q[i].throttled ? now - l->q[i].throttled : 0;
		l->q[i].throttled = now;
		if (d > *ns)
			*ns = d;
	}
	return l->nq > 0;
}

json_t *cg_limits_quotas_json(const struct cg_limits *l)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < l->nq; i++)
		json_array_append_new(a, json_pack("{s:s, s:f}", "cgroup", l->q[i].dir, "cpus",
						   l->q[i].cpus));
	return a;
}
