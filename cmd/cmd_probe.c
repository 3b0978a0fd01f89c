// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample probe: what this host lets each source collect, as JSON on
 * stdout. The host facts the manifest records, its cgroups, then every
 * source's own probe run with its default settings — the same check `run`
 * makes before an episode starts — with what it found: the probe is the one
 * place that knows how to test a source, so this command names none. To
 * say what an episode's cgroup would get, it makes one (and removes it),
 * as `run` would; like `run`, it first removes the empty cgroups of
 * iopsample runs killed outright. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <unistd.h>

#include "cgroupfs.h"
#include "collector.h"
#include "commands.h"
#include "config.h"
#include "episode_cgroup.h"
#include "host_info.h"
#include "log.h"
#include "version.h"

static json_t *probe_source(const struct collector_ops *ops, const struct target_info *t)
{
	struct source_config sc;
	struct errbuf why = {""};
	json_t *details = json_object();
	int r = source_config_init(&sc, ops) < 0 ? errbuf_set(&why, ENOMEM, "out of memory")
						  : ops->probe(&sc, t, details, &why);
	if (sc.priv && ops->release)
		ops->release(&sc);
	free(sc.priv);
	json_t *entry = json_pack("{s:s, s:o, s:b}", "status", r == 0 ? "ok" : "unavailable",
				  "error", r == 0 ? json_null() : json_string(why.msg),
				  "available_in_deployment", ops->available_in_deployment);
	json_object_update(entry, details);
	json_decref(details);
	return entry;
}

/* The hierarchies this process is in: version, mount point, its cgroup
 * there, the controllers, whether it may make cgroups under it. */
static json_t *hierarchies(void)
{
	json_t *a = json_array();
	struct cgroupfs fs;
	if (cgroupfs_read(0, &fs) < 0)
		return a;
	for (size_t i = 0; i < fs.n; i++) {
		const struct cgroupfs_hierarchy *h = &fs.h[i];
		char dir[800], pressure[820];
		json_t *ctl = json_array();
		for (unsigned b = 1; b <= CG_PIDS; b <<= 1) {
			const char *n = (h->controllers & b) ? cgroupfs_controller_name(b, h->version) : NULL;
			if (n)
				json_array_append_new(ctl, json_string(n));
		}
		cgroupfs_path(h, NULL, dir, sizeof(dir));
		snprintf(pressure, sizeof(pressure), "%s/cpu.pressure", dir);
		json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:o, s:b, s:b}", "version", h->version,
						   "mount", h->mount, "cgroup", h->self, "controllers", ctl,
						   "writable", access(dir, W_OK) == 0, "pressure",
						   h->version == 2 && access(pressure, R_OK) == 0));
	}
	return a;
}

int cmd_probe(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		log_error("usage: iopsample probe (it takes no arguments)");
		return EX_USAGE;
	}
	json_t *swept = episode_cgroup_sweep();
	struct episode_cgroup trial;
	episode_cgroup_make(&trial, "probe", false);
	struct target_info t = {.cgroups = &trial.set};
	json_t *sources = json_object();
	for (const struct collector_ops *const *o = collector_registry; *o; o++)
		json_object_set_new(sources, (*o)->name, probe_source(*o, &t));
	json_decref(episode_cgroup_remove(&trial));
	json_t *cgroups = json_pack("{s:o, s:O, s:b, s:O, s:o}", "hierarchies", hierarchies(),
				    "episode_cgroup", json_object_get(trial.json, "cgroups"),
				    "system_pressure", access("/proc/pressure/cpu", R_OK) == 0,
				    "missing", json_object_get(trial.json, "missing"), "removed_stale", swept);
	json_object_set_new(cgroups, "reason", json_incref(json_object_get(trial.json, "reason")));
	episode_cgroup_free(&trial);
	json_t *out = json_pack("{s:s, s:o, s:o, s:o}", "iopsample_version", IOPSAMPLE_VERSION, "host",
				host_info_json(), "cgroups", cgroups, "sources", sources);
	int r = json_dumpf(out, stdout, JSON_INDENT(2)) == 0 && putchar('\n') != EOF &&
		fflush(stdout) == 0;
	json_decref(out);
	if (!r) {
		log_error("stdout: %s", strerror(errno));
		return EX_IOERR;
	}
	return 0;
}
