/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An episode's verdict, window after window: its sources' rows read onto
 * one grid (verdict_grid.h), their signals conditioned (verdict_signal.h),
 * each window decided by the rules (verdict.h), and the totals over the
 * windows given so far. Memory does not grow with the episode: a day at
 * 10 ms is read as a minute is. The command, summary and the report all
 * come here, so they show the same windows; verdict_write.h prints them.
 *
 * Which source says what (docs/data-model.md, "The verdict"): taskstats
 * decides cpu, cpu_wait, disk, memory and idle; cgroup adds a CPU quota's
 * throttling, the kernel's CPU time while the tree pages, and its own
 * pressure (PSI, cgroup v2) where taskstats has no delays, and decides a
 * window taskstats has no row for; diskstats says whether a device was
 * busy; gpu decides gpu and gpu_copy. block_io, an oracle, adds evidence
 * and never changes a label. */
#ifndef IOPSAMPLE_VERDICT_EPISODE_H
#define IOPSAMPLE_VERDICT_EPISODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "verdict.h"
#include "verdict_grid.h"

struct jschema_set;
struct verdict_signal;

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

struct verdict_episode {
	const char *dir;
	json_t *manifest;
	const char *name;
	bool incomplete;   /* running, killed or failed: its files may end early */
	int64_t window_ns;
	bool deployable_only;
	json_t *sources;     /* per source: what it was read for, or why not */
	json_t *cannot_tell; /* the labels the sources missing cannot tell apart, and why */
	/* over the windows given so far */
	size_t n;
	double total_ns[V_LABELS];
	size_t total_windows[V_LABELS];
	struct verdict_in all; /* their figures added up */
	/* after the last window: the label with the most time, its evidence */
	bool done;
	enum verdict_label label;
	char evidence[512];
	char refusal[256]; /* why there is no verdict (with quiet_refusal) */

	/* the reading, verdict_episode.c's: started by the first window asked */
	int dirfd;
	const struct jschema_set *schemas;
	struct verdict_grid_source src[VS_COUNT];
	bool psi;
	int cpus;
	bool swap_in_blkio;
	const char *quota_ancestor; /* the manifest's tightest quota above the cgroup */
	double quota_ancestor_cpus;
	struct verdict_grid *grid;
	struct verdict_signal *signal;
	struct verdict_window window;
};

/* Opens the episode in dir: its manifest, the sources and the window
 * (its rows are read from the first verdict_episode_next). 0, or a sysexits code
 * after one line on stderr: 66 when dir or its manifest cannot be read, 65
 * when the manifest is not what its schema says, 69 when nothing in the
 * episode decides a verdict (neither taskstats nor cgroup rows), 64 when
 * o->window_ns is finer than an interval read, 70 out of memory. */
int verdict_episode_open(struct verdict_episode *v, const char *dir,
			 const struct jschema_set *schemas, const struct verdict_options *o);
/* 1 with the next window in *w (valid until the next call), 0 after the
 * last (v->done: the totals are the episode's), or a sysexits code after
 * one line on stderr naming the file and line: 65 a row is not what the
 * schemas say or a complete episode's file is damaged, 66, 70, 74. */
int verdict_episode_next(struct verdict_episode *v, const struct verdict_window **w);
void verdict_episode_close(struct verdict_episode *v);

/* The wall-clock time at a window's end: t_wall_start_ns + t_end. */
int64_t verdict_window_wall(const struct verdict_episode *v, const struct verdict_window *w);

#endif
