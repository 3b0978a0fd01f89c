/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An episode's verdict: its sources' rows read onto one grid of windows,
 * each window's figures handed to the rules (verdict.h), and the answer as
 * `iopsample verdict --format json` gives it (schema/verdict.schema.json).
 * The command, summary and the report all come here, so they show the
 * same windows.
 *
 * Which source says what (docs/data-model.md, "The verdict"): taskstats
 * decides cpu, cpu_wait, disk, memory and idle; cgroup adds a CPU quota's
 * throttling, the kernel's CPU time while the tree pages, and its own
 * pressure (PSI, cgroup v2) where taskstats has no delays; diskstats says
 * whether a device was busy; gpu decides gpu and gpu_copy. block_io, an
 * oracle, adds evidence and never changes a label. */
#ifndef IOPSAMPLE_VERDICT_EPISODE_H
#define IOPSAMPLE_VERDICT_EPISODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "verdict.h"

struct jschema_set;

struct verdict_options {
	int64_t window_ns;    /* 0: the coarsest interval of the sources read */
	bool deployable_only; /* only the sources the manifest says are deployable */
	bool quiet_refusal;   /* no verdict to give: why goes to v->refusal, not stderr */
};

struct verdict_window {
	int64_t t_start, t_end; /* ns since the origin */
	struct verdict_in in;
	struct verdict_out out;
};

/* A run of equal windows: [first, last], their figures added up. */
struct verdict_run {
	size_t first, last;
	enum verdict_label label;
	char evidence[512];
};

struct verdict_episode {
	const char *dir;
	json_t *manifest;
	const char *name;
	bool incomplete;   /* running, killed or failed: its files may end early */
	int64_t window_ns;
	bool deployable_only;
	json_t *sources;     /* per source: what it was read for, or why not */
	json_t *cannot_tell; /* the labels the sources missing cannot tell apart, and why */
	struct verdict_window *win;
	size_t n;
	/* over the whole episode */
	double total_ns[V_LABELS];
	size_t total_windows[V_LABELS];
	enum verdict_label label; /* the label with the most time */
	char evidence[512];
	char refusal[256]; /* why there is no verdict (with quiet_refusal) */
};

/* Reads the episode in dir. 0, or a sysexits code after one line on
 * stderr: 66 when dir or its manifest cannot be read, 65 when a row is not
 * what the schemas say or a complete episode's file is damaged, 69 when
 * nothing in the episode decides a verdict (neither taskstats nor cgroup
 * rows), 64 when o->window_ns is not a multiple of the intervals read. */
int verdict_episode_read(struct verdict_episode *v, const char *dir,
			 const struct jschema_set *schemas, const struct verdict_options *o);
void verdict_episode_free(struct verdict_episode *v);

/* Runs of equal windows, in order (free *runs). 0 or -ENOMEM. */
int verdict_episode_runs(const struct verdict_episode *v, struct verdict_run **runs, size_t *n);

/* The wall-clock time at a window's end: t_wall_start_ns + t_end. */
int64_t verdict_window_wall(const struct verdict_episode *v, const struct verdict_window *w);

/* For a person, as the verdict's text and summary print them: the time by
 * label over the episode, those above 0.5 % ("cpu 40 % (2.00 s), idle 20 %
 * (1.00 s)"); one entry of cannot_tell ("gpu, gpu_copy (without ...)"). */
void verdict_totals_text(const struct verdict_episode *v, char *buf, size_t len);
void verdict_cannot_tell_text(const json_t *entry, char *buf, size_t len);

/* `iopsample verdict --format json` of the episode; NULL when out of memory. */
json_t *verdict_episode_json(const struct verdict_episode *v);

#endif
