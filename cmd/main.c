// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample: the command dispatcher. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "commands.h"
#include "version.h"
#include "log.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{"run", cmd_run,
	 "run EPISODE.yaml [--output-dir DIR] [--name NAME] [--set KEY=VALUE]... [--quiet]"},
	{"check", cmd_check,
	 "check EPISODE.yaml [same options]   validate, print the resolved config, run nothing"},
	{"probe", cmd_probe, "probe                               what this host lets each source collect, as JSON"},
	{"events", cmd_events, "events [PATTERN]                    perf events libpfm4 knows on this host"},
	{"cat", cmd_cat, "cat FILE...                         rows of .jsonl or .jsonl.zst files (pipe into jq)"},
	{"validate", cmd_validate, "validate EPISODE_DIR...             check the manifest and every row against schema/"},
	{"summary", cmd_summary, "summary [--raw] EPISODE_DIR...      a table per source: rows, totals, rates, histograms"},
	{"export", cmd_export,
	 "export EPISODE_DIR... -o FILE       one table of every episode on one time grid (csv or jsonl)\n"
	 "                   [--grid DURATION] [--format csv|jsonl] [--deployable-only | --oracle-only]\n"
	 "                   [--sources LIST] [--include-incomplete] [--episodes: one row per episode]"},
	{"compare", cmd_compare,
	 "compare EPISODE_DIR...              how closely each deployable field tracks its oracle\n"
	 "                   [--grid DURATION] [--pairs FILE.yaml] [--by-episode] [--format text|json] [-o FILE]"},
	{"verdict", cmd_verdict,
	 "verdict EPISODE_DIR...              where each window's time went, with its evidence\n"
	 "                   [--window DURATION] [--format text|json|csv] [--deployable-only] [-o FILE]"},
	{"report", cmd_report, "report EPISODE_DIR... -o FILE.html   one offline HTML file of charts of the episodes"},
	{"schema", cmd_schema,
	 "schema --columns SOURCE --dialect duckdb|spark|dask|pandas [EPISODE_DIR...]\n"
	 "                                                a source's column types for SQL engines (docs/at-scale.md)"},
};

static void usage(FILE *to)
{
	fprintf(to, "usage: iopsample COMMAND ...\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(to, "  iopsample %s\n", commands[i].usage);
	fprintf(to, "  iopsample --help | --version\n\nSee README.md for the config and the exit statuses.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("iopsample %s\n", IOPSAMPLE_VERSION);
		return 0;
	}
	/* A closed stdout must not kill iopsample mid-episode: writes fail
	 * instead. The commands that only print die quietly, as cat(1) does. */
	if (!strcmp(argv[1], "run"))
		signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	log_error("unknown command \"%s\" (try iopsample --help)", argv[1]);
	return EX_USAGE;
}
