/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The reading side of `iopsample compare`: how closely each deployable
 * field tracks the oracle field that measures the same thing, over the
 * grid cells of export's table (docs/data-model.md, "Comparing deployable
 * with oracle"). The command (cmd/cmd_compare.c) has export write the
 * table; this takes the pairs, reads the table back and gives the figures
 * (pair_stats.h) as compare's JSON (schema/compare.schema.json). */
#ifndef IOPSAMPLE_COMPARE_H
#define IOPSAMPLE_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jschema_set;
struct compare;

struct compare *compare_new(void);
void compare_free(struct compare *x);

/* The pairs compare shows when given none (each a deployable field and the
 * oracle field counting the same thing), or those of a --pairs file: a
 * YAML list of {deployable: SOURCE.FIELD, oracle: SOURCE.FIELD}, a side
 * being columns as export names them, added up with +. 0, or a sysexits
 * code after one line on stderr: 66 when the file cannot be read, 65 at
 * its FILE:LINE:COL when it is not such a list. */
int compare_default_pairs(struct compare *x, const struct jschema_set *set);
int compare_read_pairs(struct compare *x, const char *path, const struct jschema_set *set);

/* What export must write for the pairs over the episodes in dirs: the
 * sources their sides read, of the pairs some episode has both sides of
 * (*sources, "a,b"; NULL when none has: nothing to compare), and the grid
 * export would take over all the episodes' sources (the coarsest interval
 * with rows; *grid_ns), so that leaving the other sources out changes no
 * cell. The other pairs are dropped. 0, or a sysexits code after one line
 * on stderr (an episode's manifest). Free *sources. */
int compare_plan(struct compare *x, char **dirs, size_t n, const struct jschema_set *set,
		 char **sources, int64_t *grid_ns);

/* Export's table of the episodes, as JSON Lines (export --format jsonl),
 * read from path: each pair's cells. A pair with a side no episode has is
 * dropped. 0, or 70 after one line on stderr. */
int compare_read_cells(struct compare *x, const char *path);

/* compare's JSON: the grid, the episodes and each pair's figures over all
 * cells; by_episode adds each episode's figures, cells each pair's cells
 * where both sides have a value (d and o, for the report). NULL when out
 * of memory. */
json_t *compare_figures(const struct compare *x, bool by_episode, bool cells);

#endif
