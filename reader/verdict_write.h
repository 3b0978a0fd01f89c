/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An episode's verdict written out as its windows come (verdict_episode.h):
 * runs of equal windows, the totals, and the windows as text, JSON
 * (schema/verdict.schema.json) and CSV; and a day's windows thinned to a
 * page's width for the report. Nothing here holds more than a window, a
 * run or a bucket at a time. */
#ifndef IOPSAMPLE_VERDICT_WRITE_H
#define IOPSAMPLE_VERDICT_WRITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "log.h"
#include "verdict_episode.h"

/* ---- runs of equal windows ---------------------------------------------------- */

struct verdict_run {
	size_t first, last; /* the windows' numbers */
	int64_t t_start, t_end;
	enum verdict_label label;
	struct verdict_in sum; /* their figures added up */
	char evidence[512];    /* the label's evidence over the run */
};

struct verdict_runs {
	bool open;
	struct verdict_run run;
};

/* Window number k joins the runs. true when it ended the run before it,
 * which is then *done (evidence made). */
bool verdict_runs_add(struct verdict_runs *r, size_t k, const struct verdict_window *w,
		      struct verdict_run *done);
/* The last run, after the last window: true when there was one. */
bool verdict_runs_end(struct verdict_runs *r, struct verdict_run *done);

/* ---- words --------------------------------------------------------------------- */

/* For a person, as the verdict's text and summary print them: the time by
 * label over the episode, those above 0.5 % ("cpu 40 % (2.00 s), idle 20 %
 * (1.00 s)"); one entry of cannot_tell ("gpu, gpu_copy (without ...)"). */
void verdict_totals_text(const struct verdict_episode *v, char *buf, size_t len);
void verdict_cannot_tell_text(const json_t *entry, char *buf, size_t len);

/* ---- the three formats, a window at a time ------------------------------------ */

enum verdict_format { VERDICT_TEXT, VERDICT_JSON, VERDICT_CSV };

struct table;

struct verdict_writer {
	enum verdict_format format;
	FILE *f;          /* text and JSON */
	struct table *t;  /* CSV: one table for every episode */
};

/* An episode's header (text, JSON's opening), each window, its end (the
 * totals). For text, several episodes are set apart by an empty line:
 * first says whether this is the first. */
void verdict_write_head(struct verdict_writer *w, const struct verdict_episode *v, bool first);
void verdict_write_window(struct verdict_writer *w, const struct verdict_episode *v,
			  const struct verdict_window *win);
void verdict_write_tail(struct verdict_writer *w, const struct verdict_episode *v);
/* CSV's table, with its header line, at path ("-": stdout): NULL with e. */
struct table *verdict_csv_open(const char *path, struct errbuf *e);

/* ---- the windows thinned, for a page ------------------------------------------- */

/* Windows gathered into at most 2 × max buckets of equal time, each bucket
 * twice as wide once there would be more (as time-series dashboards thin
 * a series to the screen): a bucket's shares are its windows' time by
 * label over its time, its label the one with the most, its evidence that
 * label's over its windows' figures added up. */
struct verdict_thin {
	size_t max, n, per;    /* buckets made, windows a full bucket holds */
	size_t windows;        /* windows gathered */
	struct verdict_bucket {
		int64_t t_start, t_end;
		size_t windows;
		double ns[V_LABELS];
		struct verdict_in sum;
	} *b;
};

int verdict_thin_init(struct verdict_thin *t, size_t max);
int verdict_thin_add(struct verdict_thin *t, const struct verdict_window *w);
void verdict_thin_free(struct verdict_thin *t);
/* The episode's verdict as the JSON of `verdict --format json`, its
 * windows the buckets; where buckets hold more than one window, each says
 * how many ("windows") and "thinned" how many windows went into how many
 * buckets. NULL when out of memory. */
json_t *verdict_thin_json(const struct verdict_thin *t, const struct verdict_episode *v);

#endif
