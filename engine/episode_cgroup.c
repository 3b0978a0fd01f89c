// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The episode's own cgroup; see episode_cgroup.h. */
#define _GNU_SOURCE
#include "episode_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cg_owner.h"
#include "fdutil.h"
#include "procfs.h"
#include "procfs_files.h"

#define PREFIX CG_OWNER_PREFIX
/* how long a cgroup just emptied may stay busy (its tasks' exit finishing) */
#define RMDIR_TRIES 50
#define RMDIR_PAUSE_NS 2000000

static const char *role_names[CGR_NROLES] = {"cgroup2", "cpuacct", "cpu", "memory", "blkio", "pids"};

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static json_t *controller_list(unsigned bits, int version)
{
	json_t *a = json_array();
	for (unsigned b = 1; b <= CG_PIDS; b <<= 1) {
		const char *n = (bits & b) ? cgroupfs_controller_name(b, version) : NULL;
		if (n)
			json_array_append_new(a, json_string(n));
	}
	return a;
}

static unsigned v2_controllers_of(const char *dir)
{
	char file[600], list[256];
	snprintf(file, sizeof(file), "%s/cgroup.controllers", dir);
	return procfs_read(file, list, sizeof(list)) >= 0 ? cgroupfs_controllers(list, 2) : 0;
}

/* Gives the children of this process's v2 cgroup the controllers the
 * episode reads that it has; what cannot be given goes to missing, what
 * was given to cg->enabled_v2, to be taken back at the end. */
static void enable_v2(struct episode_cgroup *cg, const struct cgroupfs_hierarchy *h, json_t *missing,
		      json_t *enabled)
{
	char *file = cg->subtree_control, on[256] = "";
	if (cgroupfs_path(h, "cgroup.subtree_control", file, sizeof(cg->subtree_control)) < 0) {
		*file = '\0';
		return;
	}
	procfs_read(file, on, sizeof(on));
	unsigned have = cgroupfs_controllers(on, 2);
	for (unsigned b = CG_CPU; b <= CG_PIDS; b <<= 1) {
		const char *n = cgroupfs_controller_name(b, 2);
		if (!n || (have & b))
			continue;
		if (!(h->controllers & b)) {
			json_object_set_new(missing, n,
					    json_sprintf("cgroup v2 does not give %s to the cgroup iopsample runs in (%s)",
							 n, h->self));
			continue;
		}
		char plus[32];
		snprintf(plus, sizeof(plus), "+%s", n);
		int r = write_str(file, plus);
		if (r == 0) {
			cg->enabled_v2 |= b;
			json_array_append_new(enabled, json_string(n));
		} else if (r == -EBUSY) {
			json_object_set_new(missing, n,
					    json_sprintf("cgroup v2 gives %s only to a cgroup whose parent has no "
							 "process of its own, and iopsample's (%s) has: run it in a "
							 "cgroup of its own (systemd-run --scope -p Delegate=yes)",
							 n, h->self));
		} else {
			json_object_set_new(missing, n, json_sprintf("%s: %s", file, strerror(-r)));
		}
	}
}

static void dir_json(json_t *dirs, const char *path, int version, unsigned controllers)
{
	json_array_append_new(dirs, json_pack("{s:s, s:i, s:o}", "path", path, "version", version,
					      "controllers", controller_list(controllers, version)));
}

void episode_cgroup_make(struct episode_cgroup *cg, const char *episode, bool off)
{
	memset(cg, 0, sizeof(*cg));
	cg->set.owned = true;
	json_t *dirs = json_array(), *missing = json_object(), *enabled = json_array();
	cg->json = json_pack("{s:s, s:b}", "setting", off ? "off" : "auto", "attached", false);
	const char *why = NULL;
	struct cgroupfs fs;
	char name[256];
	struct cg_owner self;

	if (off) {
		why = "episode.cgroup is off";
		goto done;
	}
	if (cg_owner_self(&self) < 0 || cg_owner_name(&self, episode, name, sizeof(name)) < 0) {
		why = "cannot read this process's start time and pid namespace in /proc";
		goto done;
	}
	if (cgroupfs_read(0, &fs) < 0 || fs.n == 0) {
		why = "this host mounts no cgroup hierarchy iopsample can use";
		goto done;
	}
	const struct cgroupfs_hierarchy *v2 = cgroupfs_v2(&fs);
	if (v2) {
		enable_v2(cg, v2, missing, enabled);
		char *path = cg->set.dir[CGR_V2];
		if (cgroupfs_path(v2, name, path, sizeof(cg->set.dir[CGR_V2])) == 0 && mkdir(path, 0755) == 0) {
			cg->made[CGR_V2] = true;
			cg->set.v2_controllers = v2_controllers_of(path);
			dir_json(dirs, path, 2, cg->set.v2_controllers);
		} else {
			json_object_set_new(missing, "cgroup2", json_sprintf("%s: %s", path, strerror(errno)));
			*path = '\0';
		}
	}
	/* v1 for what the v2 cgroup does not count */
	for (int role = CGR_CPUACCT; role < CGR_NROLES; role++) {
		unsigned bit = cgroup_role_controller(role);
		bool need = role == CGR_CPUACCT ? !cg->made[CGR_V2]
						: !(cg->set.v2_controllers & bit);
		if (!need)
			continue;
		const struct cgroupfs_hierarchy *h = cgroupfs_v1(&fs, bit);
		const char *what = role_names[role];
		if (!h) {
			if (role != CGR_CPUACCT && !json_object_get(missing, what))
				json_object_set_new(missing, what,
						    json_sprintf("neither the v2 cgroup nor a v1 hierarchy "
								 "on this host has %s", what));
			continue;
		}
		char *path = cg->set.dir[role];
		if (cgroupfs_path(h, name, path, sizeof(cg->set.dir[role])) < 0) {
			*path = '\0';
			continue;
		}
		bool shared = false; /* a combined hierarchy (cpu,cpuacct) made for another role */
		for (int r = CGR_CPUACCT; r < role; r++)
			shared |= !strcmp(cg->set.dir[r], path);
		if (shared)
			continue;
		if (mkdir(path, 0755) == 0) {
			cg->made[role] = true;
			dir_json(dirs, path, 1, h->controllers);
			/* what the v2 cgroup lacks, this one has */
			json_object_del(missing, role == CGR_BLKIO ? "io" : what);
		} else {
			json_object_set_new(missing, what, json_sprintf("%s: %s", path, strerror(errno)));
			*path = '\0';
		}
	}
	bool any = false;
	for (int r = 0; r < CGR_NROLES; r++)
		any |= cg->made[r];
	if (!any)
		why = "no cgroup could be made for the episode (see missing)";
done:
	if (why)
		snprintf(cg->set.why, sizeof(cg->set.why), "%s", why);
	json_object_set_new(cg->json, "made", json_boolean(!why));
	json_object_set_new(cg->json, "reason", why ? json_string(why) : json_null());
	json_object_set_new(cg->json, "cgroups", dirs);
	json_object_set_new(cg->json, "missing", missing);
	json_object_set_new(cg->json, "enabled_in_parent", enabled);
}

void episode_cgroup_attach(struct episode_cgroup *cg, pid_t pid)
{
	memset(cg, 0, sizeof(*cg));
	json_t *dirs = json_array();
	cg->json = json_pack("{s:s, s:b, s:b}", "setting", "attached", "attached", true, "made", false);
	struct cgroupfs fs;
	const char *why = NULL;
	if (cgroupfs_read(pid, &fs) < 0 || fs.n == 0) {
		why = "the attached process's cgroups cannot be read";
	} else {
		const struct cgroupfs_hierarchy *v2 = cgroupfs_v2(&fs);
		if (v2 && cgroupfs_path(v2, NULL, cg->set.dir[CGR_V2], sizeof(cg->set.dir[CGR_V2])) == 0) {
			cg->set.v2_controllers = v2_controllers_of(cg->set.dir[CGR_V2]);
			dir_json(dirs, cg->set.dir[CGR_V2], 2, cg->set.v2_controllers);
		}
		for (int role = CGR_CPUACCT; role < CGR_NROLES; role++) {
			const struct cgroupfs_hierarchy *h = cgroupfs_v1(&fs, cgroup_role_controller(role));
			if (h && cgroupfs_path(h, NULL, cg->set.dir[role], sizeof(cg->set.dir[role])) == 0)
				dir_json(dirs, cg->set.dir[role], 1, cgroup_role_controller(role));
		}
	}
	if (why)
		snprintf(cg->set.why, sizeof(cg->set.why), "%s", why);
	json_object_set_new(cg->json, "reason", why ? json_string(why) : json_null());
	json_object_set_new(cg->json, "cgroups", dirs);
	json_object_set_new(cg->json, "missing", json_object());
	json_object_set_new(cg->json, "enabled_in_parent", json_array());
}

static void forget(struct episode_cgroup *cg, const char *why)
{
	json_t *warnings = episode_cgroup_remove(cg);
	json_decref(warnings);
	memset(cg->set.dir, 0, sizeof(cg->set.dir));
	snprintf(cg->set.why, sizeof(cg->set.why), "%s", why);
	json_object_set_new(cg->json, "made", json_false());
	json_object_set_new(cg->json, "reason", json_string(why));
}

/* The length of path's directory part: path up to its last '/'. */
static int dir_len(const char *path)
{
	return (int)(strrchr(path, '/') - path);
}

/* Moves pid into the cgroup.procs of dir, or of its parent with up. */
static int move_into(const char *dir, bool up, const char *pid)
{
	char file[600];
	snprintf(file, sizeof(file), "%.*s/cgroup.procs", up ? dir_len(dir) : (int)strlen(dir), dir);
	return write_str(file, pid);
}

int episode_cgroup_enter(struct episode_cgroup *cg, pid_t pid)
{
	char num[24];
	snprintf(num, sizeof(num), "%d", (int)pid);
	for (int r = 0; r < CGR_NROLES; r++) {
		if (!cg->made[r])
			continue;
		int e = move_into(cg->set.dir[r], false, num);
		if (e < 0) {
			/* All or nothing: the target goes back to where it came
			 * from (iopsample's own cgroups, the new ones' parents) in
			 * the hierarchies it already entered, so that none of them
			 * keeps it in a cgroup the episode no longer has. */
			for (int q = 0; q < r; q++)
				if (cg->made[q])
					move_into(cg->set.dir[q], true, num);
			char why[256];
			snprintf(why, sizeof(why), "the target could not be moved into %s: %s", cg->set.dir[r],
				 strerror(-e));
			forget(cg, why);
			return e;
		}
	}
	return 0;
}

/* SIGKILLs every process in the cgroup dir: at once by its cgroup.kill (v2,
 * Linux 5.14: 0), else each that its cgroup.procs lists (their number; a
 * fork racing the list escapes it: the caller kills again until none is
 * listed). */
static int kill_cgroup(const char *dir)
{
	char file[600];
	snprintf(file, sizeof(file), "%s/cgroup.kill", dir);
	if (write_str(file, "1") == 0)
		return 0;
	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char *buf = NULL;
	size_t cap = 0;
	struct pid_list pids = {0};
	if (procfs_pread_all(fd, &buf, &cap) >= 0)
		pid_list_parse(buf, &pids);
	close(fd);
	free(buf);
	for (size_t i = 0; i < pids.n; i++)
		kill(pids.v[i], SIGKILL);
	int n = (int)pids.n;
	pid_list_free(&pids);
	return n;
}

void episode_cgroup_kill(const struct episode_cgroup *cg)
{
	for (int r = 0; r < CGR_NROLES; r++)
		if (cg->made[r])
			kill_cgroup(cg->set.dir[r]);
}

/* rmdir, again while the cgroup just emptied stays busy: 0 or the errno. */
static int remove_dir(const char *dir)
{
	for (int tries = 1;; tries++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || tries == RMDIR_TRIES)
			return errno;
		nanosleep(&(struct timespec){0, RMDIR_PAUSE_NS}, NULL);
	}
}

/* Whether the directory holding subtree_control has an iopsample cgroup:
 * another episode's, which may read what the controllers give. */
static bool episodes_beside(const char *subtree_control)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%.*s", dir_len(subtree_control), subtree_control);
	DIR *d = opendir(dir);
	bool found = false;
	struct dirent *de;
	while (d && !found && (de = readdir(d)))
		found = de->d_type == DT_DIR && !strncmp(de->d_name, PREFIX, strlen(PREFIX));
	if (d)
		closedir(d);
	return found;
}

/* Turns off the v2 controllers the episode enabled in its parent, where no
 * episode's cgroup is left there; a warning for each that will not go. */
static void give_back_controllers(struct episode_cgroup *cg, json_t **warnings)
{
	if (!cg->enabled_v2 || episodes_beside(cg->subtree_control))
		return;
	for (unsigned b = CG_CPU; b <= CG_PIDS; b <<= 1) {
		const char *n = cgroupfs_controller_name(b, 2);
		if (!(cg->enabled_v2 & b) || !n)
			continue;
		char minus[32];
		snprintf(minus, sizeof(minus), "-%s", n);
		int r = write_str(cg->subtree_control, minus);
		if (r < 0) {
			if (!*warnings)
				*warnings = json_array();
			json_array_append_new(*warnings, json_sprintf("%s: %s could not be turned off again: %s",
								       cg->subtree_control, n, strerror(-r)));
		}
	}
	cg->enabled_v2 = 0;
}

json_t *episode_cgroup_remove(struct episode_cgroup *cg)
{
	json_t *warnings = NULL;
	for (int r = 0; r < CGR_NROLES; r++) {
		if (!cg->made[r])
			continue;
		int err = remove_dir(cg->set.dir[r]);
		if (err) {
			if (!warnings)
				warnings = json_array();
			json_array_append_new(warnings,
					      json_sprintf("the episode's cgroup %s could not be removed: %s; "
							   "the next iopsample run or probe removes it once empty",
							   cg->set.dir[r], strerror(err)));
		}
		cg->made[r] = false;
	}
	give_back_controllers(cg, &warnings);
	return warnings;
}

void episode_cgroup_free(struct episode_cgroup *cg)
{
	json_decref(cg->json);
	cg->json = NULL;
}

json_t *episode_cgroup_sweep(void)
{
	json_t *removed = json_array();
	struct cgroupfs fs;
	if (cgroupfs_read(0, &fs) < 0)
		return removed;
	for (size_t i = 0; i < fs.n; i++) {
		char dir[600];
		if (cgroupfs_path(&fs.h[i], NULL, dir, sizeof(dir)) < 0)
			continue;
		DIR *d = opendir(dir);
		if (!d)
			continue;
		struct dirent *de;
		while ((de = readdir(d))) {
			struct cg_owner owner;
			char path[900];
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (de->d_type != DT_DIR || !cg_owner_parse(de->d_name, &owner) ||
			    !cg_owner_gone(&owner))
				continue; /* not one of ours, or its iopsample runs */
			/* what its tree left running (a keeper killed with
			 * iopsample): killed, then the cgroup removed once empty */
			for (int tries = 0; kill_cgroup(path) > 0 && tries < RMDIR_TRIES; tries++)
				nanosleep(&(struct timespec){0, RMDIR_PAUSE_NS}, NULL);
			if (remove_dir(path) == 0)
				json_array_append_new(removed, json_string(path));
		}
		closedir(d);
	}
	return removed;
}
