// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* manifest.json's content from struct episode (CONTRACT §4). */
#include "manifest.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "host_settings.h"
#include "signames.h"
#include "version.h"

static json_t *stop_reason(enum stop_reason r)
{
	static const char *const names[] = {NULL, "exited", "duration", "interrupted",
					    "collector_failed", "requested"};
	return r == STOP_NONE ? json_null() : json_string(names[r]);
}

static json_t *int_or_null(bool known, int64_t v)
{
	return known ? json_integer(v) : json_null();
}

static int64_t timeval_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* What the tree used, as GNU time -v prints it for a command: wait4's
 * struct rusage, over every process of the tree. */
static json_t *usage_json(const struct episode *ep)
{
	const struct rusage *u = &ep->target.usage;
	if (!ep->target.has_usage)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "user_ns",
			 (json_int_t)timeval_ns(u->ru_utime), "system_ns",
			 (json_int_t)timeval_ns(u->ru_stime), "max_rss_bytes",
			 (json_int_t)u->ru_maxrss * 1024, "minor_faults", (json_int_t)u->ru_minflt,
			 "major_faults", (json_int_t)u->ru_majflt, "block_input_ops",
			 (json_int_t)u->ru_inblock, "block_output_ops", (json_int_t)u->ru_oublock,
			 "voluntary_ctxsw", (json_int_t)u->ru_nvcsw, "involuntary_ctxsw",
			 (json_int_t)u->ru_nivcsw);
}

static json_t *usage_reason(const struct episode *ep)
{
	if (ep->target.has_usage)
		return json_null();
	if (ep->cfg->target.pid > 0)
		return json_string("attached to a running process: only its parent's wait4 "
				   "reports what it used");
	if (!ep->target.pid)
		return json_string("the target was never started");
	return json_string("iopsample's keeper did not reap the whole tree (it was killed)");
}

static json_t *target_json(const struct episode *ep)
{
	const struct config *cfg = ep->cfg;
	bool attached = cfg->target.pid > 0;
	bool exited = ep->target.exited && ep->target.code == CLD_EXITED;
	bool killed = ep->target.exited && !exited;
	char sig[32];

	json_t *argv = json_null();
	if (!attached) {
		argv = json_array();
		for (char **a = cfg->target.argv; *a; a++)
			json_array_append_new(argv, json_string(*a));
	}
	json_t *t = json_pack("{s:o, s:b, s:o, s:o, s:o, s:b, s:o, s:i, s:o}", "argv", argv,
			      "attached", attached, "pid",
			      int_or_null(ep->target.pid > 0, ep->target.pid), "exit_code",
			      int_or_null(exited, ep->target.status), "signal",
			      killed ? json_string(signame(ep->target.status, sig, sizeof(sig)))
				     : json_null(),
			      "core_dumped", ep->target.exited && ep->target.code == CLD_DUMPED,
			      "stop_reason", stop_reason(ep->target.stop_reason),
			      "leftover_processes", ep->target.leftovers, "duration_ns",
			      int_or_null(ep->target.end_ns > 0, ep->target.end_ns - ep->origin_ns));
	json_object_set_new(t, "error",
			    ep->target.exec_errno
				    ? json_sprintf("cannot execute %s: %s", cfg->target.argv[0],
						   strerror(ep->target.exec_errno))
				    : json_null());
	json_object_set_new(t, "rusage", usage_json(ep));
	json_object_set_new(t, "rusage_reason", usage_reason(ep));
	return t;
}

static json_t *sources_json(const struct episode *ep)
{
	json_t *all = json_object();
	for (size_t i = 0; i < ep->nsrc; i++) {
		const struct source_run *s = &ep->src[i];
		json_t *o = json_pack(
			"{s:s, s:o, s:I, s:I, s:b, s:b, s:I, s:o}", "status",
			source_status_name(s->status), "file",
			*s->file ? json_string(s->file) : json_null(), "rows", (json_int_t)s->rows,
			"interval_ns", (json_int_t)s->sc->interval_ns, "available_in_deployment",
			s->sc->available_in_deployment, "required", s->sc->required, "missed_ticks",
			(json_int_t)s->missed_ticks, "error",
			*s->error ? json_string(s->error) : json_null());
		json_object_set_new(o, "cpu_ns", s->cpu_ns >= 0 ? json_integer(s->cpu_ns) : json_null());
		if (s->details)
			json_object_update_missing(o, s->details);
		json_object_set_new(all, s->sc->ops->name, o);
	}
	return all;
}

json_t *manifest_json(const struct episode *ep)
{
	const struct config *cfg = ep->cfg;
	bool started = ep->origin_ns > 0;
	bool ended = ep->end_ns > 0;

	json_t *overrides = json_array();
	for (size_t i = 0; i < cfg->noverrides; i++)
		json_array_append_new(overrides, json_string(cfg->overrides[i]));
	json_t *labels = json_object();
	for (size_t i = 0; i < cfg->episode.labels.n; i++)
		json_object_set_new(labels, cfg->episode.labels.items[i].key,
				    json_string(cfg->episode.labels.items[i].value));

	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:O, s:o, s:o, s:o, s:o, s:o, s:O, s:o, s:o}",
			 "episode", cfg->episode.name, "status", episode_status_name(ep->status),
			 "iopsample_version", IOPSAMPLE_VERSION, "config", config_to_json(cfg),
			 "overrides", overrides, "labels", labels, "host", ep->host,
			 "t_wall_start_ns", int_or_null(started, ep->wall_start_ns),
			 "t_wall_end_ns", int_or_null(ended, ep->wall_end_ns), "duration_ns",
			 int_or_null(started && ended, ep->end_ns - ep->origin_ns), "target",
			 target_json(ep), "sources", sources_json(ep), "warnings", ep->warnings,
			 "host_changes", host_settings_json(), "cgroup",
			 ep->cgroup ? json_incref(ep->cgroup) : json_null());
}
