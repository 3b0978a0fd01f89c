/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An episode's rows read onto the verdict's grid of windows, one window
 * after the other, in memory that does not grow with the episode.
 *
 * Each source is parsed in a thread of its own (parsing is the work, and
 * the sources are independent), its rows picked for the few leaves the
 * rules need (row_pick.h) and spread over the windows by export's rules
 * (cells.h), so a window holds exactly what export's cell of the same grid
 * holds, whatever the source's interval. A source's thread runs at most a
 * queue's length of windows ahead of the reader. */
#ifndef IOPSAMPLE_VERDICT_GRID_H
#define IOPSAMPLE_VERDICT_GRID_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "verdict.h"

struct jschema_set;

enum verdict_source { VS_TASKSTATS, VS_CGROUP, VS_DISKSTATS, VS_GPU, VS_BLOCK_IO, VS_WAITS, VS_OFFCPU,
		      VS_NET, VS_COUNT };

/* "taskstats", ... by source */
extern const char *const verdict_source_names[VS_COUNT];
/* What the verdict reads each for, in words (the JSON's sources.*.role). */
extern const char *const verdict_source_roles[VS_COUNT];
/* Its rows make windows (taskstats, cgroup, gpu, waits), or add evidence
 * to windows others made (diskstats, block_io, whose final rows may wait
 * longer for I/O in flight; offcpu; net): reading the evidence never adds
 * a window. */
bool verdict_source_decides(enum verdict_source s);

/* taskstats' delays, in the order of verdict_in's */
enum { VD_CPU, VD_BLKIO, VD_SWAPIN, VD_FREEPAGES, VD_THRASHING, VD_COMPACT, VD_COUNT };

/* A window as the rows give it. */
struct verdict_grid_window {
	int64_t t_start, t_end; /* ns since the origin: [t_start, t_end) */
	/* Every figure the rules read as the rows give it, but those the
	 * signals condition (verdict_signal.h): run_ns, the delays,
	 * estimated, system_ns are NAN here. */
	struct verdict_in in;
	/* taskstats' figures for those (NAN where no row reached the window) */
	double run_ns, delay_ns[VD_COUNT], delay_count[VD_COUNT];
	/* cgroup's CPU time and its time in the kernel */
	double usage_ns, system_ns;
};

/* A source to read: its file in the episode directory. */
struct verdict_grid_source {
	const char *file; /* NULL: not read */
	const json_t *entry; /* its manifest entry (devices, GPUs) */
	int64_t interval;
};

struct verdict_grid;

/* Starts reading the sources src[] of the episode in dirfd (dir names it
 * in messages) onto windows of window_ns. incomplete: the episode did not
 * end (a file may be missing or end in a cut row). psi: the cgroup's
 * pressure is its own (read into the windows). cpus: the CPUs the tree may
 * use, for every window. NULL when out of memory. */
struct verdict_grid *verdict_grid_open(int dirfd, const char *dir, bool incomplete,
				       const struct jschema_set *schemas,
				       const struct verdict_grid_source src[VS_COUNT],
				       int64_t window_ns, bool psi, int cpus);

/* 1 with the next window in *w, 0 after the last (the last window ends
 * with the last row of the sources that decide), or a sysexits code (65 a
 * row is not what the schemas say, 66 a file cannot be opened, 70, 74)
 * after one line on stderr naming the file and line. */
int verdict_grid_next(struct verdict_grid *g, struct verdict_grid_window *w);

/* Stops the threads. With check, after the last window: reads what is
 * left of the evidence's files to their end first, so that a damaged one
 * is found: 0 or a sysexits code as verdict_grid_next's. */
int verdict_grid_close(struct verdict_grid *g, bool check);

#endif
