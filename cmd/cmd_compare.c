// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample compare EPISODE_DIR...: how closely each deployable field
 * tracks the oracle field that measures the same thing, over export's grid
 * cells (docs/data-model.md, "Comparing deployable with oracle").
 *
 * The cells are export's own: compare runs `export --format jsonl` into a
 * private directory (under TMPDIR, else /tmp), with the same episodes and
 * --grid, and reader/compare.c reads the table back, so the two never
 * differ on a cell and refuse the same episodes with the same exit status.
 * This file holds the command line and the text it prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin_schemas.h"
#include "commands.h"
#include "compare.h"
#include "json_schema.h"
#include "log.h"
#include "outfile.h"

#define USAGE                                                                                  \
	"usage: iopsample compare EPISODE_DIR... [--grid DURATION] [--pairs FILE.yaml] "       \
	"[--by-episode] [--format text|json] [-o FILE]"

struct options {
	const char *grid, *pairs, *output;
	bool by_episode, json;
	bool include_incomplete, cells; /* the report's: every episode; each pair's cells */
	char **dirs;
	size_t ndirs;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_GRID = 256, OPT_PAIRS, OPT_BY_EPISODE, OPT_FORMAT };
	static const struct option longopts[] = {
		{"grid", required_argument, NULL, OPT_GRID},
		{"pairs", required_argument, NULL, OPT_PAIRS},
		{"by-episode", no_argument, NULL, OPT_BY_EPISODE},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_GRID:
			o->grid = optarg;
			break;
		case OPT_PAIRS:
			o->pairs = optarg;
			break;
		case OPT_BY_EPISODE:
			o->by_episode = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				log_error("--format %s: text or json", optarg);
				return EX_USAGE;
			}
			o->json = !strcmp(optarg, "json");
			break;
		case 'o':
			o->output = optarg;
			break;
		case ':':
			log_error("%s needs a value (%s)", argv[optind - 1], USAGE);
			return EX_USAGE;
		default:
			log_error("compare: unknown option %s (%s)", argv[optind - 1], USAGE);
			return EX_USAGE;
		}
	}
	o->dirs = argv + optind;
	o->ndirs = (size_t)(argc - optind);
	if (o->ndirs == 0) {
		log_error("no episode directory: %s", USAGE);
		return EX_USAGE;
	}
	return 0;
}

/* export's table of the episodes, into dir/cells.jsonl. */
/* Export of the pairs' sources (sources) on the grid as asked, else the
 * one export would take over every source (grid_ns). */
static int run_export(const struct options *o, const char *path, char *sources, int64_t grid_ns)
{
	size_t n = 0;
	char **argv = calloc(o->ndirs + 10, sizeof(*argv)), grid[32];
	if (!argv)
		return EX_SOFTWARE;
	argv[n++] = "export";
	for (size_t i = 0; i < o->ndirs; i++)
		argv[n++] = o->dirs[i];
	argv[n++] = "-o";
	argv[n++] = (char *)path;
	argv[n++] = "--format";
	argv[n++] = "jsonl";
	argv[n++] = "--sources";
	argv[n++] = sources;
	argv[n++] = "--grid";
	if (o->grid) {
		argv[n++] = (char *)o->grid;
	} else {
		snprintf(grid, sizeof(grid), "%lldns", (long long)grid_ns);
		argv[n++] = grid;
	}
	if (o->include_incomplete)
		argv[n++] = "--include-incomplete";
	int code = cmd_export((int)n, argv);
	free(argv);
	return code;
}

/* ---- output ------------------------------------------------------------------ */

static void fmt(char *buf, size_t n, const json_t *v, const char *how)
{
	if (json_is_null(v) || !v)
		snprintf(buf, n, "-");
	else if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	else
		snprintf(buf, n, how, json_number_value(v));
}

static void text_line(FILE *f, const char *name, const json_t *p)
{
	char diff[32], mae[32], r[32], p50[32], p95[32], w[32], lag[32], rl[32];
	fmt(diff, sizeof(diff), json_object_get(p, "total_diff_pct"), "%+.2f%%");
	fmt(mae, sizeof(mae), json_object_get(p, "mae"), "%.4g");
	fmt(r, sizeof(r), json_object_get(p, "pearson_r"), "%.4f");
	fmt(p50, sizeof(p50), json_object_get(p, "rel_err_p50"), "%.3f");
	fmt(p95, sizeof(p95), json_object_get(p, "rel_err_p95"), "%.3f");
	fmt(w, sizeof(w), json_object_get(p, "within_1pct"), "%.3f");
	fmt(lag, sizeof(lag), json_object_get(p, "best_lag_cells"), "%.0f");
	fmt(rl, sizeof(rl), json_object_get(p, "r_at_best_lag"), "%.4f");
	fprintf(f, "%-30s %5lld %8s %9s %7s %6s %6s %5s %3s %7s\n", name,
		(long long)json_integer_value(json_object_get(p, "cells")), diff, mae, r, p50, p95, w,
		lag, rl);
}

static void print_text(FILE *f, const json_t *all)
{
	fprintf(f,
		"%zu episodes, grid %.6g ms; each deployable field d (first line) against its oracle "
		"o:\n"
		"diff: of the totals, %%; mae: mean |d - o| a cell; r: Pearson's;\n"
		"err50, err95: percentiles of |d - o| / o; <=1%%: the share of cells within 1 %%;\n"
		"lag: the cells d is shifted by (behind o) for the best r, r@lag (of the lags\n"
		"that keep max(3, half the cells) pairs)\n",
		json_array_size(json_object_get(all, "episodes")),
		json_integer_value(json_object_get(all, "grid_ns")) / 1e6);
	fprintf(f, "%-30s %5s %8s %9s %7s %6s %6s %5s %3s %7s\n", "pair", "cells", "diff", "mae", "r",
		"err50", "err95", "<=1%", "lag", "r@lag");
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(all, "pairs"), i, p)
	{
		fprintf(f, "%s\n", json_string_value(json_object_get(p, "deployable")));
		char name[96];
		snprintf(name, sizeof(name), "  %s", json_string_value(json_object_get(p, "oracle")));
		text_line(f, name, p);
		size_t j;
		const json_t *e;
		json_array_foreach(json_object_get(p, "by_episode"), j, e)
		{
			snprintf(name, sizeof(name), "    %s", json_string_value(json_object_get(e, "episode")));
			text_line(f, name, e);
		}
	}
	if (!json_array_size(json_object_get(all, "pairs")))
		fprintf(f, "no pair: the episodes lack one side of each\n");
}

static int write_out(const struct options *o, const json_t *all)
{
	struct errbuf e;
	struct outfile out;
	if (outfile_open(&out, o->output ? o->output : "-", &e) < 0) {
		log_error("%s", e.msg);
		return EX_CANTCREAT;
	}
	if (o->json) {
		json_dumpf(all, out.f, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
		fputc('\n', out.f);
	} else {
		print_text(out.f, all);
	}
	if (outfile_commit(&out, &e) < 0) {
		log_error("%s", e.msg);
		return EX_IOERR;
	}
	return 0;
}

/* A private directory for export's table: under $TMPDIR, as mkdtemp(3)'s
 * callers and mktemp(1) take it, else /tmp. */
static char *scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = NULL;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&dir, "%s/iopsample-compare.XXXXXX", tmp) < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		log_error("%s: %s (compare's scratch folder goes there; TMPDIR chooses another)", tmp,
			  strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* Everything after the options: the pairs, export's cells, the figures. */
static int collect(const struct options *o, json_t **all)
{
	struct jschema_set *set = builtin_schemas_load();
	struct compare *x = compare_new();
	if (!set || !x) {
		jschema_free(set);
		compare_free(x);
		return EX_SOFTWARE;
	}
	int code = o->pairs ? compare_read_pairs(x, o->pairs, set) : compare_default_pairs(x, set);
	/* export writes the pairs' sources alone: a day of rows of sources no
	 * pair reads is not written to be skipped */
	char *sources = NULL;
	int64_t grid_ns = 0;
	if (!code)
		code = compare_plan(x, o->dirs, o->ndirs, set, &sources, &grid_ns);
	char *dir = code || !sources ? NULL : scratch_dir(), *path = NULL;
	if (!code && sources && !dir)
		code = EX_CANTCREAT;
	if (!code && dir && asprintf(&path, "%s/cells.jsonl", dir) < 0) {
		path = NULL;
		code = EX_SOFTWARE;
	}
	if (!code && path)
		code = run_export(o, path, sources, grid_ns);
	if (!code && path)
		code = compare_read_cells(x, path);
	free(sources);
	if (path)
		unlink(path);
	if (dir)
		rmdir(dir);
	free(path);
	free(dir);
	if (!code && !(*all = compare_figures(x, o->by_episode, o->cells)))
		code = EX_SOFTWARE;
	compare_free(x);
	jschema_free(set);
	return code;
}

int compare_for_report(char **dirs, size_t ndirs, json_t **out)
{
	struct options o = {.dirs = dirs, .ndirs = ndirs, .include_incomplete = true, .cells = true};
	*out = NULL;
	return collect(&o, out);
}

int cmd_compare(int argc, char **argv)
{
	struct options o;
	int code = parse_options(argc, argv, &o);
	if (code)
		return code;
	json_t *all = NULL;
	code = collect(&o, &all);
	if (!code)
		code = write_out(&o, all);
	json_decref(all);
	return code;
}
