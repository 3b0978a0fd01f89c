// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An episode's verdict, window after window: see verdict_episode.h. This
 * file chooses the sources and the window, says what the sources missing
 * leave the rules unable to tell apart, and decides each window the
 * signals give. */
#define _GNU_SOURCE
#include "verdict_episode.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "duration.h"
#include "jsonl_reader.h"
#include "log.h"
#include "manifest_read.h"
#include "verdict_grid.h"
#include "verdict_signal.h"

static enum verdict_source source_id(const char *name)
{
	for (int i = 0; i < VS_COUNT; i++)
		if (!strcmp(verdict_source_names[i], name))
			return (enum verdict_source)i;
	return VS_COUNT;
}

/* The manifest's say on a source the episode lacks, for "sources". */
static json_t *missing_entry(const json_t *entry, const char *why)
{
	json_t *o = json_pack("{s:s}", "status", why);
	const json_t *error = json_object_get(entry, "error");
	if (o && json_is_string(error))
		json_object_set(o, "error", (json_t *)error);
	return o;
}

/* What the sources missing leave the rules unable to tell apart. */
static int note_cannot_tell(struct verdict_episode *v, const bool read[VS_COUNT], bool psi)
{
	const json_t *ts = json_object_get(json_object_get(v->manifest, "sources"), "taskstats");
	struct {
		bool when;
		const char *labels[5];
		const char *why;
	} notes[] = {
		{!read[VS_WAITS],
		 {"network", "idle", "disk"},
		 "without waits, a tree waiting on the network, a FUSE daemon, a lock, another process or "
		 "a child reads as idle, and a network file system's page waits as disk"},
		{!read[VS_TASKSTATS] && !read[VS_WAITS] && !psi,
		 {"cpu_wait", "disk", "memory", "idle"},
		 "without taskstats, and no pressure (PSI) of the episode's own cgroup, a tree waiting "
		 "for a CPU, the disk or memory reads as idle"},
		{!read[VS_TASKSTATS] && !read[VS_WAITS] && psi,
		 {"cpu", "cpu_wait"},
		 "without taskstats, the cgroup's pressure (PSI) counts wall time, not each thread's: a "
		 "tree queueing for CPUs behind its own threads reads as cpu_wait"},
		{read[VS_TASKSTATS] && json_is_false(json_object_get(ts, "delays_counted")) && !psi,
		 {"disk", "memory", "idle"},
		 "taskstats counted no block I/O or memory delays (its delays_reason), and the cgroup has "
		 "no pressure (PSI) of its own: waiting for the disk or memory reads as idle"},
		{!read[VS_CGROUP],
		 {"cpu_wait", "cpu", "memory"},
		 "without cgroup, a CPU quota's throttling reads as the tree's own queueing (cpu), a tree "
		 "confined to fewer CPUs than the host has as held back by others (cpu_wait), and the "
		 "kernel's CPU time while the tree pages as cpu, not memory"},
		{!read[VS_GPU],
		 {"gpu", "gpu_copy", "idle", "cpu"},
		 "without the gpu source, a host waiting on a GPU reads as idle, or as cpu while it spins "
		 "or stages a copy"},
	};
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
		if (!notes[i].when)
			continue;
		json_t *labels = json_array();
		for (size_t l = 0; l < 5 && notes[i].labels[l]; l++)
			json_array_append_new(labels, json_string(notes[i].labels[l]));
		if (json_array_append_new(v->cannot_tell, json_pack("{s:o, s:s}", "labels", labels, "why",
								     notes[i].why)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The sources to read (src[]), what "sources" says of each, refusals. */
static int choose_sources(struct verdict_episode *v, const struct jschema_set *schemas,
			  const struct verdict_options *o, struct verdict_grid_source src[VS_COUNT])
{
	struct manifest_source *listed = NULL;
	size_t n = 0;
	int code = manifest_sources(v->dir, v->manifest, schemas, &listed, &n);
	if (code)
		return code;
	for (size_t i = 0; i < n; i++) {
		enum verdict_source id = source_id(listed[i].name);
		if (id == VS_COUNT)
			continue;
		const json_t *entry = listed[i].entry;
		const char *file = json_string_value(json_object_get(entry, "file"));
		bool deployable = json_is_true(json_object_get(entry, "available_in_deployment"));
		json_t *says;
		if (!file)
			says = missing_entry(entry, "wrote no rows");
		else if (o->deployable_only && !deployable)
			says = json_pack("{s:s}", "status", "left out: not deployable (--deployable-only)");
		else {
			src[id] = (struct verdict_grid_source){
				.file = file, .entry = entry,
				.interval = json_integer_value(json_object_get(entry, "interval_ns")),
			};
			says = json_pack("{s:s, s:I, s:b, s:s}", "status", "read", "interval_ns",
					 (json_int_t)src[id].interval, "available_in_deployment", deployable,
					 "role", verdict_source_roles[id]);
		}
		if (!says || json_object_set_new(v->sources, listed[i].name, says) < 0) {
			free(listed);
			return EX_SOFTWARE;
		}
	}
	free(listed);
	for (int i = 0; i < VS_COUNT; i++)
		if (!json_object_get(v->sources, verdict_source_names[i]))
			json_object_set_new(v->sources, verdict_source_names[i],
					    json_pack("{s:s}", "status", "not in the episode"));
	if (!src[VS_TASKSTATS].file && !src[VS_CGROUP].file && !src[VS_WAITS].file) {
		snprintf(v->refusal, sizeof(v->refusal),
			 "the episode has no taskstats, cgroup or waits rows%s (taskstats and waits decide "
			 "where the tree's time went: add them to the episode's sources)",
			 o->deployable_only ? " from a deployable source" : "");
		if (!o->quiet_refusal)
			log_error("%s: no verdict: %s", v->dir, v->refusal);
		return EX_UNAVAILABLE;
	}
	return 0;
}

/* The window: the coarsest interval read by default, so that every source's
 * rows spread over it whatever their intervals (export's rules); a window
 * asked for may be any width no finer than an interval read. */
static int choose_window(struct verdict_episode *v, const struct verdict_options *o,
			 const struct verdict_grid_source src[VS_COUNT])
{
	int64_t coarsest = 0;
	for (int i = 0; i < VS_COUNT; i++)
		if (src[i].file && src[i].interval > coarsest)
			coarsest = src[i].interval;
	v->window_ns = o->window_ns ? o->window_ns : coarsest;
	for (int i = 0; i < VS_COUNT; i++) {
		if (!src[i].file || (src[i].interval > 0 && v->window_ns >= src[i].interval))
			continue;
		char w[32], iv[32];
		duration_format(v->window_ns, w, sizeof(w));
		duration_format(src[i].interval, iv, sizeof(iv));
		log_error("--window %s is finer than %s's interval (%s) in %s: a window holds at least "
			  "a row of each source",
			  w, verdict_source_names[i], iv, v->dir);
		return EX_USAGE;
	}
	return v->window_ns > 0 ? 0 : EX_DATAERR;
}

static int check_ends(const struct verdict_episode *v);

int verdict_episode_open(struct verdict_episode *v, const char *dir,
			 const struct jschema_set *schemas, const struct verdict_options *o)
{
	memset(v, 0, sizeof(*v));
	v->dir = dir;
	v->dirfd = -1;
	v->deployable_only = o->deployable_only;
	verdict_in_clear(&v->all);
	int code = manifest_load(dir, schemas, &v->dirfd, &v->manifest);
	if (code)
		return code;
	v->name = json_string_value(json_object_get(v->manifest, "episode"));
	v->incomplete = manifest_incomplete(v->manifest);
	v->sources = json_object();
	v->cannot_tell = json_array();
	struct verdict_grid_source *src = v->src;
	v->schemas = schemas;
	if (!v->sources || !v->cannot_tell)
		return EX_SOFTWARE;
	if ((code = choose_sources(v, schemas, o, src)) || (code = choose_window(v, o, src)))
		return code;
	const json_t *cgm = json_object_get(json_object_get(v->manifest, "sources"), "cgroup");
	const char *scope = json_string_value(json_object_get(cgm, "pressure_scope"));
	v->psi = src[VS_CGROUP].file && scope && !strcmp(scope, "cgroup");
	const json_t *tightest = json_array_get(json_object_get(cgm, "quota_ancestors"), 0);
	v->quota_ancestor = json_string_value(json_object_get(tightest, "cgroup"));
	v->quota_ancestor_cpus = json_number_value(json_object_get(tightest, "cpus"));
	const json_t *host = json_object_get(v->manifest, "host");
	v->cpus = (int)json_integer_value(json_object_get(host, "cpu_count"));
	v->swap_in_blkio = verdict_swap_waits_in_blkio(json_string_value(json_object_get(host, "kernel_release")));
	bool read[VS_COUNT];
	for (int i = 0; i < VS_COUNT; i++)
		read[i] = src[i].file != NULL;
	if (note_cannot_tell(v, read, v->psi) < 0)
		return EX_SOFTWARE;
	return v->incomplete ? 0 : check_ends(v);
}

/* A complete episode's file cut short is refused before a window is
 * given (its end is found without reading it through); a killed one is
 * judged as far as its rows go. */
static int check_ends(const struct verdict_episode *v)
{
	for (int i = 0; i < VS_COUNT; i++) {
		char why[160];
		struct errbuf e;
		int r = v->src[i].file ? jsonl_check_end(v->dirfd, v->src[i].file, why, sizeof(why), &e) : 0;
		if (r < 0 && r != -ENOENT) {
			log_error("%s/%s", v->dir, e.msg);
			return EX_NOINPUT;
		}
		if (r > 0) {
			log_error("%s/%s: %s", v->dir, v->src[i].file, why);
			return EX_DATAERR;
		}
	}
	return 0;
}

/* The grid and the signals over it, at the first window asked. */
static int start(struct verdict_episode *v)
{
	v->grid = verdict_grid_open(v->dirfd, v->dir, v->incomplete, v->schemas, v->src, v->window_ns,
				    v->psi, v->cpus);
	v->signal = v->grid ? verdict_signal_open(v->grid, v->window_ns) : NULL;
	return v->signal ? 0 : EX_SOFTWARE;
}

/* The totals: the label with the most time over the episode, and the
 * evidence of all its windows' figures added up. */
static void finish(struct verdict_episode *v)
{
	v->done = true;
	v->label = verdict_largest(v->total_ns);
	struct verdict_out out;
	verdict_decide(&v->all, &out);
	verdict_evidence(&v->all, &out, v->label, v->evidence, sizeof(v->evidence));
}

int verdict_episode_next(struct verdict_episode *v, const struct verdict_window **w)
{
	struct verdict_grid_window g;
	if (!v->signal && !v->done) {
		int code = start(v);
		if (code)
			return code;
	}
	int r = v->done ? 0 : verdict_signal_next(v->signal, &g);
	if (r == 0 && !v->done) {
		/* what is left of the evidence's files, read for damage */
		if ((r = verdict_grid_close(v->grid, true)) != 0) {
			v->grid = NULL;
			return r;
		}
		v->grid = NULL;
		finish(v);
	}
	if (r != 1)
		return r;
	struct verdict_window *win = &v->window;
	win->t_start = g.t_start;
	win->t_end = g.t_end;
	win->in = g.in;
	win->in.swap_in_blkio = v->swap_in_blkio;
	win->in.quota_ancestor = v->quota_ancestor;
	win->in.quota_ancestor_cpus = v->quota_ancestor_cpus;
	/* a window taskstats has no row for (its sampler stopped, or it
	 * started late): the cgroup's CPU time and pressure stand in */
	if (isnan(win->in.run_ns) && !isnan(g.usage_ns)) {
		win->in.run_ns = g.usage_ns;
		win->in.from_cgroup = v->src[VS_TASKSTATS].file != NULL;
	}
	verdict_decide(&win->in, &win->out);
	for (int l = 0; l < V_LABELS; l++)
		v->total_ns[l] += win->out.share[l] * win->in.window_ns;
	v->total_windows[win->out.label]++;
	verdict_in_add(&v->all, &win->in);
	v->n++;
	*w = win;
	return 1;
}

void verdict_episode_close(struct verdict_episode *v)
{
	verdict_signal_close(v->signal);
	verdict_grid_close(v->grid, false);
	json_decref(v->sources);
	json_decref(v->cannot_tell);
	json_decref(v->manifest);
	if (v->dirfd >= 0)
		close(v->dirfd);
	memset(v, 0, sizeof(*v));
	v->dirfd = -1;
}

int64_t verdict_window_wall(const struct verdict_episode *v, const struct verdict_window *w)
{
	return json_integer_value(json_object_get(v->manifest, "t_wall_start_ns")) + w->t_end;
}
