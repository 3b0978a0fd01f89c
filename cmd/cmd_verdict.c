// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample verdict EPISODE_DIR...: where each window's time went, with
 * its evidence (docs/data-model.md, "The verdict"). The windows and their
 * verdicts are reader/verdict_episode.c's; this file holds the command
 * line and the three ways of printing them. */
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
#include "verdict_episode.h"

#define USAGE                                                                                  \
	"usage: iopsample verdict EPISODE_DIR... [--window DURATION] [--format text|json|csv] " \
	"[--deployable-only] [-o FILE]"

enum format { F_TEXT, F_JSON, F_CSV };

struct options {
	struct verdict_options v;
	enum format format;
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
				o->format = F_TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = F_JSON;
			else if (!strcmp(optarg, "csv"))
				o->format = F_CSV;
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

/* ---- text ----------------------------------------------------------------------- */

static void put_shares(FILE *f, const double *share)
{
	for (int l = 0; l < V_LABELS; l++)
		fprintf(f, " %5.0f", 100 * share[l]);
}

static void print_text(FILE *f, const struct verdict_episode *v)
{
	char win[32];
	duration_human(v->window_ns, win, sizeof(win));
	fprintf(f, "%s: episode %s, %s, %zu windows of %s%s\n", v->dir, v->name,
		json_string_value(json_object_get(v->manifest, "status")), v->n, win,
		v->deployable_only ? ", deployable sources only" : "");
	const char *name;
	const json_t *s;
	json_object_foreach(v->sources, name, s)
		fprintf(f, "  %s: %s%s%s\n", name, json_string_value(json_object_get(s, "status")),
			json_object_get(s, "role") ? ": " : "",
			json_string_value(json_object_get(s, "role")) ?: "");
	char text[1024];
	size_t i;
	const json_t *c;
	json_array_foreach(v->cannot_tell, i, c) {
		verdict_cannot_tell_text(c, text, sizeof(text));
		fprintf(f, "  cannot tell apart: %s\n", text);
	}
	if (!v->n) {
		fprintf(f, "  no rows: no verdict\n");
		return;
	}
	fprintf(f, "  %-17s %-9s", "time (s)", "verdict");
	for (int l = 0; l < V_LABELS; l++)
		fprintf(f, " %5.5s", l == V_CPU_WAIT ? "wait" : l == V_MEMORY ? "mem" : l == V_GPU_COPY ? "copy" : verdict_label_names[l]);
	fprintf(f, "  evidence\n");
	for (size_t k = 0; k < v->n; k++) {
		const struct verdict_window *w = &v->win[k];
		char span[40];
		snprintf(span, sizeof(span), "%.2f-%.2f", w->t_start / 1e9, w->t_end / 1e9);
		fprintf(f, "  %-17s %-9s", span, verdict_label_names[w->out.label]);
		put_shares(f, w->out.share);
		fprintf(f, "  %s\n", w->out.evidence);
	}
	verdict_totals_text(v, text, sizeof(text));
	fprintf(f, "  over the episode: %s", text);
	fprintf(f, "\n  mostly %s: %s\n", verdict_label_names[v->label], v->evidence);
}

/* ---- csv ------------------------------------------------------------------------ */

static struct table *open_csv(const char *path, struct errbuf *e)
{
	char *cols[6 + V_LABELS];
	size_t n = 0;
	static const char *const fixed[] = {"episode", "t_mono_ns", "t_wall_ns", "interval_ns", "verdict"};
	for (size_t i = 0; i < 5; i++)
		cols[n++] = (char *)fixed[i];
	char names[V_LABELS][32];
	for (int l = 0; l < V_LABELS; l++) {
		snprintf(names[l], sizeof(names[l]), "shares.%s", verdict_label_names[l]);
		cols[n++] = names[l];
	}
	cols[n++] = "evidence";
	return table_open(path, TABLE_CSV, cols, n, e);
}

static void put_csv(struct table *t, const struct verdict_episode *v)
{
	for (size_t k = 0; k < v->n; k++) {
		const struct verdict_window *w = &v->win[k];
		table_string(t, v->name);
		table_int(t, w->t_end);
		table_int(t, verdict_window_wall(v, w));
		table_int(t, w->t_end - w->t_start);
		table_string(t, verdict_label_names[w->out.label]);
		for (int l = 0; l < V_LABELS; l++)
			table_real(t, w->out.share[l]);
		table_string(t, w->out.evidence);
		table_end_row(t);
	}
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
	/* every episode read before a byte is written: a refusal leaves no file */
	size_t read = 0;
	for (; read < o.ndirs && !code; read++)
		code = verdict_episode_read(&ep[read], o.dirs[read], schemas, &o.v);
	struct errbuf e;
	struct outfile out = {0};
	struct table *t = NULL;
	if (!code && o.format == F_CSV) {
		if (!(t = open_csv(o.output ? o.output : "-", &e))) {
			log_error("%s", e.msg);
			code = EX_CANTCREAT;
		}
	} else if (!code && outfile_open(&out, o.output ? o.output : "-", &e) < 0) {
		log_error("%s", e.msg);
		code = EX_CANTCREAT;
	}
	for (size_t i = 0; !code && i < o.ndirs; i++) {
		if (o.format == F_CSV) {
			put_csv(t, &ep[i]);
		} else if (o.format == F_JSON) {
			json_t *j = verdict_episode_json(&ep[i]);
			if (!j) {
				code = EX_SOFTWARE;
				break;
			}
			json_dumpf(j, out.f, JSON_COMPACT | JSON_REAL_PRECISION(6));
			fputc('\n', out.f);
			json_decref(j);
		} else {
			if (i)
				fputc('\n', out.f);
			print_text(out.f, &ep[i]);
		}
	}
	if (t) {
		if (code)
			table_abort(t);
		else if (table_commit(t, &e) < 0) {
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
	for (size_t i = 0; i < read; i++)
		verdict_episode_free(&ep[i]);
	free(ep);
	jschema_free(schemas);
	return code;
}
