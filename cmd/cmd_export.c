// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample export EPISODE_DIR... -o FILE: many episodes, one grid, one
 * table (docs/data-model.md, "Exporting").
 *
 * One row per episode and grid cell [k × grid, (k + 1) × grid) of the
 * episode's time; columns episode, t_start_ns, t_end_ns, label.<key>, then
 * <source>.<leaf> (row_shape.h) for every source the episodes have, the
 * union over the episodes in a fixed order. With --episodes, one row per
 * episode instead: what its manifest says and its sources' totals.
 *
 * Nothing here knows a source by name: which sources an episode has, their
 * intervals and deployability come from its manifest, the columns from the
 * rows, and how each column combines in a cell from the source's schema.
 *
 * Two passes: the first reads every manifest and each file's first row, so
 * the columns are known before the header, and every refusal (status, grid,
 * options) comes before a byte is written; the second streams each
 * episode's files side by side, one cell at a time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cells.h"
#include "collector.h"
#include "commands.h"
#include "duration.h"
#include "manifest_read.h"
#include "natural_cmp.h"
#include "jsonl_reader.h"
#include "log.h"
#include "row_shape.h"
#include "builtin_schemas.h"
#include "table.h"
#include "version.h"

#define USAGE                                                                              \
	"usage: iopsample export EPISODE_DIR... -o FILE [--grid DURATION] [--format "      \
	"csv|jsonl] [--deployable-only | --oracle-only] [--sources LIST] "                 \
	"[--include-incomplete] [--episodes]"

enum pick { PICK_ALL, PICK_DEPLOYABLE, PICK_ORACLE };

struct options {
	int64_t grid; /* 0: the coarsest interval among the sources exported */
	enum table_format format;
	enum pick pick;
	char **sources; /* --sources, NULL-terminated; NULL: every source */
	bool include_incomplete, episodes;
	const char *output;
	char **dirs;
	size_t ndirs;
};

struct ep_source {
	const char *name;     /* the manifest's key */
	const json_t *entry;  /* the manifest's sources.<name> */
	const char *file;     /* NULL: no rows to read */
	int64_t interval;
	struct row_shape shape; /* no leaves when the file has no rows */
	size_t *column;         /* per leaf: its table column */
	/* the second pass */
	struct jsonl_reader r;
	bool open, has_row;
	uint64_t line;
	int64_t t, end; /* the last row's t_mono_ns and the end of its interval */
	struct cells cells;
};

struct ex_episode {
	const char *dir;
	json_t *manifest;
	const char *name;
	bool incomplete; /* running or failed, taken with --include-incomplete */
	struct ep_source *src;
	size_t nsrc;
};

enum col_kind { COL_EPISODE, COL_T_START, COL_T_END, COL_MANIFEST, COL_LABEL, COL_META, COL_LEAF };

struct column {
	char *name;
	enum col_kind kind;
	const char *source; /* COL_META, COL_LEAF */
	const char *key;    /* the label, the manifest's key, the leaf */
	size_t rank;        /* the order of a source's columns */
};

/* The --episodes table: what the manifest says of the episode (JSON paths),
 * then of each source. */
static const char *const episode_fields[] = {
	"status", "t_wall_start_ns", "duration_ns", "target.exit_code", "target.signal",
	"target.stop_reason", NULL,
};
static const char *const source_fields[] = {
	"status", "available_in_deployment", "interval_ns", "rows", "missed_ticks", NULL,
};
#define META_RANKS 8 /* leaves rank after the source_fields */

struct exporter {
	const struct options *o;
	const struct jschema_set *schemas;
	struct ex_episode *ep;
	size_t nep;
	struct column *col;
	size_t ncol;
	int64_t grid;
	struct table *table;
	struct errbuf e;
};

/* ---- options --------------------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* --sources a,b,c: every name one a source iopsample has. */
static int parse_sources(char *list, struct options *o)
{
	size_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	o->sources = calloc(n + 1, sizeof(*o->sources));
	if (!o->sources)
		return EX_SOFTWARE;
	n = 0;
	for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (!collector_find(name)) {
			log_error("--sources: no source called \"%s\" (sources: proc_io, ...; see "
				  "docs/data-model.md)",
				  name);
			return EX_USAGE;
		}
		o->sources[n++] = name;
	}
	if (n == 0) {
		log_error("--sources: an empty list");
		return EX_USAGE;
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_GRID = 256, OPT_FORMAT, OPT_DEPLOYABLE, OPT_ORACLE, OPT_SOURCES, OPT_INCOMPLETE,
	       OPT_EPISODES };
	static const struct option longopts[] = {
		{"grid", required_argument, NULL, OPT_GRID},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"deployable-only", no_argument, NULL, OPT_DEPLOYABLE},
		{"oracle-only", no_argument, NULL, OPT_ORACLE},
		{"sources", required_argument, NULL, OPT_SOURCES},
		{"include-incomplete", no_argument, NULL, OPT_INCOMPLETE},
		{"episodes", no_argument, NULL, OPT_EPISODES},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	const char *format = NULL, *why = NULL;
	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	int c, r;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_GRID:
			if (duration_parse(optarg, &o->grid, &why) < 0 || o->grid <= 0) {
				log_error("--grid %s: %s", optarg,
					  o->grid <= 0 && !why ? "must be more than 0" : why);
				return EX_USAGE;
			}
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case OPT_DEPLOYABLE:
		case OPT_ORACLE:
			if (o->pick != PICK_ALL) {
				log_error("--deployable-only and --oracle-only exclude each other");
				return EX_USAGE;
			}
			o->pick = c == OPT_DEPLOYABLE ? PICK_DEPLOYABLE : PICK_ORACLE;
			break;
		case OPT_SOURCES:
			if ((r = parse_sources(optarg, o)))
				return r;
			break;
		case OPT_INCOMPLETE:
			o->include_incomplete = true;
			break;
		case OPT_EPISODES:
			o->episodes = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case ':':
			log_error("%s needs a value (%s)", argv[optind - 1], USAGE);
			return EX_USAGE;
		default:
			log_error("export: unknown option %s (%s)", argv[optind - 1], USAGE);
			return EX_USAGE;
		}
	}
	o->dirs = argv + optind;
	o->ndirs = (size_t)(argc - optind);
	if (!o->output || o->ndirs == 0) {
		log_error("%s: %s", o->output ? "no episode directory" : "no output (-o FILE, - for stdout)",
			  USAGE);
		return EX_USAGE;
	}
	if (o->episodes && o->grid) {
		log_error("--grid: the --episodes table has one row per episode, no grid");
		return EX_USAGE;
	}
	if (format && strcmp(format, "csv") && strcmp(format, "jsonl")) {
		log_error("--format %s: csv or jsonl", format);
		return EX_USAGE;
	}
	o->format = (format ? !strcmp(format, "jsonl") : has_suffix(o->output, ".jsonl"))
			    ? TABLE_JSONL
			    : TABLE_CSV;
	return 0;
}

/* ---- the first pass: manifests, first rows, columns -------------------------- */

static bool in_list(char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static bool picked(const struct options *o, const char *name, const json_t *entry)
{
	if (o->sources && !in_list(o->sources, name))
		return false;
	bool deployable = json_is_true(json_object_get(entry, "available_in_deployment"));
	return o->pick == PICK_ALL || deployable == (o->pick == PICK_DEPLOYABLE);
}

/* Why an episode is running or failed, for the refusal. */
static const char *failure(const json_t *m)
{
	const char *status = json_string_value(json_object_get(m, "status"));
	if (!strcmp(status, "running"))
		return "iopsample did not finish it (killed?)";
	if (!strcmp(status, "killed"))
		return "iopsample was killed mid-episode";
	const char *why = json_string_value(json_object_get(json_object_get(m, "target"), "error"));
	const char *name;
	const json_t *src;
	json_object_foreach(json_object_get(m, "sources"), name, src)
		if (!why && !strcmp(json_string_value(json_object_get(src, "status")), "failed"))
			why = json_string_value(json_object_get(src, "error"));
	return why ? why : "see its manifest";
}

/* The file's first row sets the source's columns in this episode (every
 * row, where members of an object come and go). */
static int learn_source(struct exporter *x, struct ex_episode *ep, struct ep_source *s, int dirfd)
{
	char *text;
	size_t len;
	int r = jsonl_reader_open(&s->r, dirfd, s->file, &x->e);
	if (r == -ENOENT && ep->incomplete) {
		s->file = NULL; /* killed before the source wrote its file */
		return 0;
	}
	if (r < 0) {
		log_error("%s/%s", ep->dir, x->e.msg);
		return EX_NOINPUT;
	}
	r = jsonl_reader_next(&s->r, &text, &len, &x->e);
	json_t *row = r > 0 ? json_loadb(text, len, 0, NULL) : NULL;
	int code = 0;
	if (r < 0) {
		log_error("%s/%s", ep->dir, x->e.msg);
		code = EX_IOERR;
	} else if (r > 0 && !json_is_object(row)) {
		log_error("%s/%s:1: not a JSON object", ep->dir, s->file);
		code = EX_DATAERR;
	} else if (r > 0) {
		if (row_shape_learn(&s->shape, x->schemas, s->name, row, &x->e) < 0) {
			log_error("%s/%s:1: %s", ep->dir, s->file, x->e.msg);
			code = EX_DATAERR;
		}
		/* members that come and go (a mount made mid-episode): every
		 * row's, for the columns */
		for (unsigned long long line = 2; !code && s->shape.varying; line++) {
			json_decref(row);
			row = NULL;
			if ((r = jsonl_reader_next(&s->r, &text, &len, &x->e)) <= 0)
				break;
			row = json_loadb(text, len, 0, NULL);
			if (row && row_shape_grow(&s->shape, row, &x->e) < 0) {
				log_error("%s/%s:%llu: %s", ep->dir, s->file, line, x->e.msg);
				code = EX_DATAERR;
			}
		}
		row_shape_ratios(&s->shape, json_object_get(s->entry, "ratios"));
	}
	json_decref(row);
	jsonl_reader_close(&s->r);
	return code;
}

static int load_episode(struct exporter *x, struct ex_episode *ep)
{
	int dirfd;
	int code = manifest_load(ep->dir, x->schemas, &dirfd, &ep->manifest);
	if (code)
		return code;
	ep->name = json_string_value(json_object_get(ep->manifest, "episode"));
	ep->incomplete = manifest_incomplete(ep->manifest);
	if (ep->incomplete && !x->o->include_incomplete) {
		log_error("%s: episode %s is %s: %s; --include-incomplete exports it anyway", ep->dir,
			  ep->name, json_string_value(json_object_get(ep->manifest, "status")),
			  failure(ep->manifest));
		code = EX_DATAERR;
	}
	struct manifest_source *listed = NULL;
	size_t n = 0;
	if (!code)
		code = manifest_sources(ep->dir, ep->manifest, x->schemas, &listed, &n);
	ep->src = code ? NULL : calloc(n + 1, sizeof(*ep->src));
	if (!code && !ep->src)
		code = EX_SOFTWARE;
	for (size_t i = 0; !code && i < n; i++) {
		if (!picked(x->o, listed[i].name, listed[i].entry))
			continue;
		struct ep_source *s = &ep->src[ep->nsrc++];
		s->name = listed[i].name;
		s->entry = listed[i].entry;
		s->file = json_string_value(json_object_get(s->entry, "file"));
		s->interval = json_integer_value(json_object_get(s->entry, "interval_ns"));
		if (s->file)
			code = learn_source(x, ep, s, dirfd);
	}
	free(listed);
	close(dirfd);
	return code;
}

/* Labels by key, then sources by name, each source's columns by the rank
 * of their field in the schema, the rest by name. */
static int column_cmp(const void *pa, const void *pb)
{
	const struct column *a = pa, *b = pb;
	if (a->kind == COL_LABEL || b->kind == COL_LABEL) {
		if (a->kind != b->kind)
			return a->kind == COL_LABEL ? -1 : 1;
		return strcmp(a->key, b->key);
	}
	int c = strcmp(a->source, b->source);
	if (c)
		return c;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return natural_cmp(a->key, b->key);
}

static int add_column(struct column **v, size_t *n, struct column c, const char *prefix)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].kind == c.kind && !strcmp((*v)[i].key, c.key) &&
		    (!c.source || !strcmp((*v)[i].source, c.source)))
			return 0;
	struct column *more = realloc(*v, (*n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	*v = more;
	if (prefix ? asprintf(&c.name, "%s.%s", prefix, c.key) < 0 : !(c.name = strdup(c.key)))
		return -ENOMEM;
	(*v)[(*n)++] = c;
	return 0;
}

/* Fixed columns, then labels and sources sorted. */
static int build_columns(struct exporter *x)
{
	struct column *v = NULL;
	size_t n = 0;
	int r = 0;
	if (x->o->episodes)
		for (const char *const *f = episode_fields; *f && !r; f++)
			r = add_column(&v, &n, (struct column){.kind = COL_MANIFEST, .key = *f}, NULL);
	else {
		r = add_column(&v, &n, (struct column){.kind = COL_T_START, .key = "t_start_ns"}, NULL);
		if (!r)
			r = add_column(&v, &n, (struct column){.kind = COL_T_END, .key = "t_end_ns"}, NULL);
	}
	size_t fixed = n;
	for (size_t e = 0; e < x->nep && !r; e++) {
		struct ex_episode *ep = &x->ep[e];
		const char *key;
		const json_t *val;
		json_object_foreach(json_object_get(ep->manifest, "labels"), key, val)
			if (!r)
				r = add_column(&v, &n, (struct column){.kind = COL_LABEL, .key = key}, "label");
		for (size_t i = 0; i < ep->nsrc && !r; i++) {
			struct ep_source *s = &ep->src[i];
			for (size_t k = 0; x->o->episodes && source_fields[k] && !r; k++)
				r = add_column(&v, &n, (struct column){.kind = COL_META, .source = s->name, .key = source_fields[k], .rank = k}, s->name);
			for (size_t l = 0; l < s->shape.n && !r; l++) {
				/* fields the schema does not list (named by the
				 * config: perf events) first, then the listed ones */
				size_t rank = s->shape.rank[l];
				rank = rank == SIZE_MAX ? META_RANKS : META_RANKS + 1 + rank;
				r = add_column(&v, &n, (struct column){.kind = COL_LEAF, .source = s->name, .key = s->shape.name[l], .rank = rank}, s->name);
			}
		}
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		return r;
	}
	qsort(v + fixed, n - fixed, sizeof(*v), column_cmp);
	/* "episode" first */
	struct column *all = malloc((n + 1) * sizeof(*all));
	if (!all || !(all[0].name = strdup("episode"))) {
		for (size_t i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		free(all);
		return -ENOMEM;
	}
	all[0].kind = COL_EPISODE;
	memcpy(all + 1, v, n * sizeof(*v));
	free(v);
	x->col = all;
	x->ncol = n + 1;
	/* each leaf's column, per episode */
	for (size_t e = 0; e < x->nep; e++)
		for (size_t i = 0; i < x->ep[e].nsrc; i++) {
			struct ep_source *s = &x->ep[e].src[i];
			s->column = calloc(s->shape.n + 1, sizeof(*s->column));
			if (!s->column)
				return -ENOMEM;
			for (size_t l = 0; l < s->shape.n; l++)
				for (size_t c = 0; c < x->ncol; c++)
					if (x->col[c].kind == COL_LEAF && !strcmp(x->col[c].source, s->name) &&
					    !strcmp(x->col[c].key, s->shape.name[l]))
						s->column[l] = c;
		}
	return 0;
}

/* The grid: as asked, or the coarsest interval among the sources with rows;
 * never finer than one of them. */
static int choose_grid(struct exporter *x)
{
	int64_t coarsest = 0;
	for (size_t e = 0; e < x->nep; e++)
		for (size_t i = 0; i < x->ep[e].nsrc; i++) {
			const struct ep_source *s = &x->ep[e].src[i];
			if (!s->file)
				continue;
			if (x->o->grid && x->o->grid < s->interval) {
				char g[32], iv[32];
				duration_format(x->o->grid, g, sizeof(g));
				duration_format(s->interval, iv, sizeof(iv));
				log_error("--grid %s is finer than %s's interval (%s) in %s: a cell "
					  "would hold part of a sample; use %s or coarser",
					  g, s->name, iv, x->ep[e].dir, iv);
				return EX_USAGE;
			}
			coarsest = s->interval > coarsest ? s->interval : coarsest;
		}
	x->grid = x->o->episodes ? INT64_MAX : x->o->grid ? x->o->grid : coarsest;
	if (x->grid == 0) {
		log_error("nothing to export: no selected source of these episodes has rows");
		return EX_DATAERR;
	}
	return 0;
}

/* Refusals that need every episode: one name twice, a --sources name no
 * episode has, an output inside an episode directory. */
static int check_set(struct exporter *x)
{
	for (size_t a = 0; a < x->nep; a++)
		for (size_t b = 0; b < a; b++)
			if (!strcmp(x->ep[a].name, x->ep[b].name)) {
				log_error("episode %s twice: %s and %s", x->ep[a].name, x->ep[b].dir,
					  x->ep[a].dir);
				return EX_USAGE;
			}
	for (char *const *name = x->o->sources; name && *name; name++) {
		bool found = false;
		for (size_t e = 0; e < x->nep && !found; e++)
			found = json_object_get(json_object_get(x->ep[e].manifest, "sources"), *name);
		if (!found) {
			log_error("--sources %s: none of the episodes has it", *name);
			return EX_USAGE;
		}
	}
	if (strcmp(x->o->output, "-")) {
		char *copy = strdup(x->o->output);
		char *out = copy ? realpath(dirname(copy), NULL) : NULL;
		free(copy);
		for (size_t e = 0; out && e < x->nep; e++) {
			char *dir = realpath(x->ep[e].dir, NULL);
			bool inside = dir && !strcmp(dir, out);
			free(dir);
			if (inside) {
				log_error("-o %s: would write into episode directory %s", x->o->output,
					  x->ep[e].dir);
				free(out);
				return EX_USAGE;
			}
		}
		free(out);
	}
	return 0;
}

/* ---- the second pass: rows into cells ---------------------------------------- */

/* The next row of s into its cells, ending where cells_row_end says. */
static int advance(struct exporter *x, struct ex_episode *ep, struct ep_source *s)
{
	char *text;
	size_t len;
	s->has_row = false;
	int r = jsonl_reader_next(&s->r, &text, &len, &x->e);
	if (r < 0) {
		log_error("%s/%s", ep->dir, x->e.msg);
		return EX_IOERR;
	}
	if (r == 0) {
		if (s->r.damage[0] && !ep->incomplete) {
			log_error("%s/%s: %s", ep->dir, s->file, s->r.damage);
			return EX_DATAERR;
		}
		return 0;
	}
	s->line++;
	json_error_t je;
	json_t *row = json_loadb(text, len, 0, &je);
	const json_t *t = json_object_get(row, "t_mono_ns");
	int code = 0;
	if (!row) {
		log_error("%s/%s:%llu: %s", ep->dir, s->file, (unsigned long long)s->line, je.text);
		code = EX_DATAERR;
	} else if (!json_is_integer(t) || json_integer_value(t) < s->t) {
		log_error("%s/%s:%llu: t_mono_ns is %s", ep->dir, s->file, (unsigned long long)s->line,
			  json_is_integer(t) ? "before the previous row's" : "not an integer");
		code = EX_DATAERR;
	} else if (row_shape_read(&s->shape, row, s->cells.row, &x->e) < 0) {
		log_error("%s/%s:%llu: %s", ep->dir, s->file, (unsigned long long)s->line, x->e.msg);
		code = EX_DATAERR;
	} else {
		s->t = json_integer_value(t);
		int64_t end = cells_row_end(s->t, json_is_true(json_object_get(row, "final")), s->interval,
					    s->end);
		cells_row(&s->cells, s->end, end);
		s->end = end;
		s->has_row = true;
	}
	json_decref(row);
	return code;
}

static void put_json(struct table *t, const json_t *v)
{
	if (json_is_integer(v))
		table_int(t, json_integer_value(v));
	else if (json_is_real(v))
		table_real(t, json_real_value(v));
	else if (json_is_boolean(v))
		table_bool(t, json_is_true(v));
	else
		table_string(t, json_string_value(v));
}

static const json_t *manifest_path(const json_t *m, const char *path)
{
	char key[64];
	const char *dot = strchr(path, '.');
	if (!dot)
		return json_object_get(m, path);
	snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
	return manifest_path(json_object_get(m, key), dot + 1);
}

static void put_row(struct exporter *x, const struct ex_episode *ep, const struct value **slot,
		    int64_t t_start, int64_t t_end)
{
	const json_t *labels = json_object_get(ep->manifest, "labels");
	const json_t *sources = json_object_get(ep->manifest, "sources");
	for (size_t c = 0; c < x->ncol; c++) {
		const struct column *col = &x->col[c];
		switch (col->kind) {
		case COL_EPISODE:
			table_string(x->table, ep->name);
			break;
		case COL_T_START:
			table_int(x->table, t_start);
			break;
		case COL_T_END:
			table_int(x->table, t_end);
			break;
		case COL_MANIFEST:
			put_json(x->table, manifest_path(ep->manifest, col->key));
			break;
		case COL_LABEL:
			table_string(x->table, json_string_value(json_object_get(labels, col->key)));
			break;
		case COL_META: {
			bool mine = false;
			for (size_t i = 0; i < ep->nsrc; i++)
				mine = mine || !strcmp(ep->src[i].name, col->source);
			put_json(x->table, mine ? json_object_get(json_object_get(sources, col->source), col->key) : NULL);
			break;
		}
		case COL_LEAF:
			if (!slot[c] || slot[c]->kind == VAL_NULL)
				table_null(x->table);
			else if (slot[c]->kind == VAL_INT)
				table_int(x->table, slot[c]->i);
			else
				table_real(x->table, slot[c]->d);
			break;
		}
	}
	table_end_row(x->table);
}

static int export_episode(struct exporter *x, struct ex_episode *ep, const struct value **slot)
{
	int dirfd = open(ep->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		log_error("%s: %s", ep->dir, strerror(errno));
		return EX_NOINPUT;
	}
	int code = 0;
	memset(slot, 0, x->ncol * sizeof(*slot));
	for (size_t i = 0; i < ep->nsrc && !code; i++) {
		struct ep_source *s = &ep->src[i];
		if (!s->file)
			continue;
		if (cells_init(&s->cells, s->shape.leaf, s->shape.n) < 0)
			code = EX_SOFTWARE;
		else if (jsonl_reader_open(&s->r, dirfd, s->file, &x->e) < 0) {
			log_error("%s/%s", ep->dir, x->e.msg);
			code = EX_NOINPUT;
		} else {
			s->open = true;
			for (size_t l = 0; l < s->shape.n; l++)
				slot[s->column[l]] = &s->cells.out[l];
			code = advance(x, ep, s);
		}
	}
	bool rows = false;
	for (size_t i = 0; i < ep->nsrc; i++)
		rows = rows || ep->src[i].has_row;
	/* the episodes table has its one row whether or not there are rows */
	int64_t max_end = 0;
	for (int64_t c0 = 0; !code && (rows || (x->o->episodes && c0 == 0));) {
		int64_t c1 = c0 > INT64_MAX - x->grid ? INT64_MAX : c0 + x->grid;
		rows = false;
		for (size_t i = 0; i < ep->nsrc && !code; i++) {
			struct ep_source *s = &ep->src[i];
			if (!s->open)
				continue;
			cells_clear(&s->cells);
			while (s->has_row && !code) {
				int r = cells_take(&s->cells, c0, c1);
				if (r == -ERANGE) {
					log_error("%s/%s:%llu: a sum beyond 2^63", ep->dir, s->file,
						  (unsigned long long)s->line);
					code = EX_DATAERR;
				} else if (r == CELLS_USED) {
					max_end = s->end > max_end ? s->end : max_end;
					code = advance(x, ep, s);
				} else {
					break;
				}
			}
			cells_finish(&s->cells);
			rows = rows || s->has_row;
		}
		if (!code)
			put_row(x, ep, slot, c0, rows || c1 < max_end ? c1 : max_end);
		c0 = c1;
	}
	for (size_t i = 0; i < ep->nsrc; i++) {
		struct ep_source *s = &ep->src[i];
		if (s->open)
			jsonl_reader_close(&s->r);
		s->open = false;
		cells_free(&s->cells);
	}
	close(dirfd);
	return code;
}

/* ---- the command ------------------------------------------------------------ */

static void exporter_free(struct exporter *x)
{
	for (size_t e = 0; e < x->nep; e++) {
		struct ex_episode *ep = &x->ep[e];
		for (size_t i = 0; i < ep->nsrc; i++) {
			row_shape_free(&ep->src[i].shape);
			free(ep->src[i].column);
		}
		free(ep->src);
		json_decref(ep->manifest);
	}
	free(x->ep);
	for (size_t c = 0; c < x->ncol; c++)
		free(x->col[c].name);
	free(x->col);
}

static int run_export(struct exporter *x)
{
	const struct options *o = x->o;
	int code = 0;
	x->ep = calloc(o->ndirs, sizeof(*x->ep));
	if (!x->ep)
		return EX_SOFTWARE;
	for (size_t e = 0; e < o->ndirs && !code; e++) {
		x->ep[x->nep].dir = o->dirs[e];
		code = load_episode(x, &x->ep[x->nep++]);
	}
	if (!code)
		code = check_set(x);
	if (!code)
		code = choose_grid(x);
	if (!code && build_columns(x) < 0)
		code = EX_SOFTWARE;
	if (code)
		return code;

	char **names = calloc(x->ncol, sizeof(*names));
	const struct value **slot = calloc(x->ncol, sizeof(*slot));
	if (!names || !slot) {
		free(names);
		free(slot);
		return EX_SOFTWARE;
	}
	for (size_t c = 0; c < x->ncol; c++)
		names[c] = x->col[c].name;
	x->table = table_open(o->output, o->format, names, x->ncol, &x->e);
	free(names);
	if (!x->table) {
		log_error("%s", x->e.msg);
		free(slot);
		return EX_CANTCREAT;
	}
	for (size_t e = 0; e < x->nep && !code; e++)
		code = export_episode(x, &x->ep[e], slot);
	free(slot);
	if (code) {
		table_abort(x->table);
		return code;
	}
	if (table_commit(x->table, &x->e) < 0) {
		log_error("%s", x->e.msg);
		return EX_IOERR;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct options o;
	int code = parse_options(argc, argv, &o);
	if (code) {
		free(o.sources);
		return code;
	}
	struct exporter x = {.o = &o};
	struct jschema_set *schemas = builtin_schemas_load();
	if (!schemas) {
		free(o.sources);
		return EX_SOFTWARE;
	}
	x.schemas = schemas;
	code = run_export(&x);
	exporter_free(&x);
	jschema_free(schemas);
	free(o.sources);
	return code;
}
