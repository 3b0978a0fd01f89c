// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample verdict EPISODE_DIR...: where each window's time went, with
 * its evidence (docs/data-model.md, "The verdict"). The windows and their
 * verdicts are reader/verdict_episode.c's, the ways of printing them
 * reader/verdict_write.c's; this file holds the command line. */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "builtin_schemas.h"
#include "commands.h"
#include "duration.h"
#include "json_schema.h"
#include "log.h"
#include "outfile.h"
#include "table.h"
#include "verdict_write.h"

#define USAGE                                                                                  \
	"usage: iopsample verdict EPISODE_DIR... [--window DURATION] [--format text|json|csv] " \
	"[--deployable-only] [-o FILE]"


struct options {
	struct verdict_options v;
	enum verdict_format format;
	const char *output;
	char **dirs;
	size_t ndirs;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_WINDOW = 256, OPT_FORMAT, OPT_DEPLOYABLE };
	static const struct option longopts[] = {
		{"window", required_argument, NULL, OPT_WINDOW},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"deployable-only", no_argument, NULL, OPT_DEPLOYABLE},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	int c;
	const char *why = NULL;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_WINDOW:
			if (duration_parse(optarg, &o->v.window_ns, &why) < 0 || o->v.window_ns <= 0) {
				log_error("--window %s: %s", optarg, o->v.window_ns <= 0 && !why ? "must be more than 0" : why);
				return EX_USAGE;
			}
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o->format = VERDICT_TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = VERDICT_JSON;
			else if (!strcmp(optarg, "csv"))
				o->format = VERDICT_CSV;
			else {
				log_error("--format %s: text, json or csv", optarg);
				return EX_USAGE;
			}
			break;
		case OPT_DEPLOYABLE:
			o->v.deployable_only = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			puts(USAGE);
			exit(0);
		case ':':
			log_error("%s needs a value (%s)", argv[optind - 1], USAGE);
			return EX_USAGE;
		default:
			log_error("verdict: unknown option %s (%s)", argv[optind - 1], USAGE);
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

/* ---- the command ---------------------------------------------------------------- */

int cmd_verdict(int argc, char **argv)
{
	struct options o;
	int code = parse_options(argc, argv, &o);
	if (code)
		return code;
	struct jschema_set *schemas = builtin_schemas_load();
	if (!schemas)
		return EX_SOFTWARE;
	struct verdict_episode *ep = calloc(o.ndirs, sizeof(*ep));
	if (!ep) {
		jschema_free(schemas);
		return EX_SOFTWARE;
	}
	/* every episode opened before a byte is written: a refusal (no
	 * manifest, nothing that decides, a window too fine) leaves no file */
	size_t opened = 0;
	for (; opened < o.ndirs && !code; opened++)
		code = verdict_episode_open(&ep[opened], o.dirs[opened], schemas, &o.v);
	struct errbuf e;
	struct outfile out = {0};
	struct verdict_writer w = {.format = o.format};
	if (!code && o.format == VERDICT_CSV) {
		if (!(w.t = verdict_csv_open(o.output ? o.output : "-", &e))) {
			log_error("%s", e.msg);
			code = EX_CANTCREAT;
		}
	} else if (!code && outfile_open(&out, o.output ? o.output : "-", &e) < 0) {
		log_error("%s", e.msg);
		code = EX_CANTCREAT;
	}
	w.f = out.f;
	/* each episode's windows written as they are decided: a damaged row
	 * found on the way takes the whole file back (outfile_abort) */
	for (size_t i = 0; !code && i < o.ndirs; i++) {
		const struct verdict_window *win;
		verdict_write_head(&w, &ep[i], i == 0);
		int r;
		while ((r = verdict_episode_next(&ep[i], &win)) == 1)
			verdict_write_window(&w, &ep[i], win);
		if (r == 0)
			verdict_write_tail(&w, &ep[i]);
		code = r;
		verdict_episode_close(&ep[i]);
	}
	if (w.t) {
		if (code)
			table_abort(w.t);
		else if (table_commit(w.t, &e) < 0) {
			log_error("%s", e.msg);
			code = EX_IOERR;
		}
	} else if (out.f) {
		if (code)
			outfile_abort(&out);
		else if (outfile_commit(&out, &e) < 0) {
			log_error("%s", e.msg);
			code = EX_IOERR;
		}
	}
	for (size_t i = 0; i < opened; i++)
		verdict_episode_close(&ep[i]);
	free(ep);
	jschema_free(schemas);
	return code;
}
