/* iopsample compare EPISODE_DIR...: how closely each deployable field
 * tracks the oracle field that measures the same thing, over export's grid
 * cells (docs/data-model.md, "Comparing deployable with oracle").
 *
 * The cells are export's own: compare runs `export --format jsonl` into a
 * private directory, with the same episodes and --grid, and reads the
 * table back, so the two never differ on a cell and refuse the same
 * episodes with the same exit status. Each pair's figures come from
 * pair_stats.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>
#include <yaml.h>

#include "builtin_schemas.h"
#include "commands.h"
#include "config_yaml.h"
#include "log.h"
#include "outfile.h"
#include "pair_stats.h"

#define USAGE                                                                                  \
	"usage: iopsample compare EPISODE_DIR... [--grid DURATION] [--pairs FILE.yaml] "       \
	"[--by-episode] [--format text|json] [-o FILE]"

/* A side of a pair: export's column, or columns added up ("a+b": null when
 * one is). */
#define SIDE_PARTS 4
struct side {
	char name[256];
	size_t nparts;
	char *part[SIDE_PARTS];
	int col[SIDE_PARTS]; /* in the table read back; -1 when absent */
};

struct pair {
	struct side side[2]; /* deployable, oracle */
	double *cell[2];     /* each cell's value, NAN for null */
};

/* The pairs compare shows by default, where the episodes have both sides:
 * each is a deployable field and the oracle field that counts the same
 * thing (docs/data-model.md lists why each should agree, and where not). */
static const char *const default_pairs[][2] = {
	{"proc_io.rchar", "syscall_io.read_bytes"},
	{"proc_io.wchar", "syscall_io.write_bytes"},
	{"proc_io.syscr", "syscall_io.read_calls"},
	{"proc_io.syscw", "syscall_io.write_calls"},
	{"proc_io.read_bytes", "block_io.read_bytes"},
	{"taskstats.read_bytes", "block_io.read_bytes"},
	{"cgroup.io_read_bytes", "block_io.read_bytes"},
	{"diskstats.read_bytes", "block_io.all_read_bytes"},
	{"diskstats.write_bytes", "block_io.all_write_bytes"},
	{"diskstats.read_ops", "block_io.all_read_ops"},
	{"diskstats.write_ops", "block_io.all_write_ops"},
	{"taskstats.cpu_run_real_ns", "perf_event.task_clock"},
	{"cgroup.cpu_usage_ns", "perf_event.task_clock"},
	{"cgroup.pgfault", "perf_event.page_faults"},
	{"taskstats.voluntary_ctxsw+taskstats.involuntary_ctxsw", "perf_event.context_switches"},
};

struct options {
	const char *grid, *pairs, *output;
	bool by_episode, json;
	bool include_incomplete, cells; /* the report's: every episode; each pair's cells */
	char **dirs;
	size_t ndirs;
};

struct compare {
	struct options o;
	struct pair *pair;
	size_t npair;
	/* the table read back: its cells, each one's episode */
	size_t ncell, cap;
	size_t *ep;
	char **episodes;
	size_t nep;
	int64_t grid_ns;
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

/* ---- pairs ----------------------------------------------------------------- */

/* Whether the schemas know column name (SOURCE.LEAF, the leaf's parts
 * properties or array indexes), as export would name it. */
static bool known_column(const struct jschema_set *set, const char *name)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", name);
	char *dot = strchr(buf, '.');
	if (!dot)
		return false;
	*dot = '\0';
	if (!builtin_schemas_is_source(set, buf))
		return false;
	const json_t *s = jschema_root(set, buf);
	char *save = NULL;
	for (char *part = strtok_r(dot + 1, ".", &save); part && s; part = strtok_r(NULL, ".", &save)) {
		bool index = part[strspn(part, "0123456789")] == '\0';
		s = jschema_sub(set, buf, s, index ? NULL : part);
	}
	return s != NULL;
}

/* side's name split at '+', each part a column the schemas know. */
static int set_side(struct side *s, const char *name, const struct jschema_set *set, const char **bad)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	char *save = NULL, *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	for (char *p = strtok_r(copy, "+", &save); p; p = strtok_r(NULL, "+", &save)) {
		if (s->nparts == SIDE_PARTS || !known_column(set, p)) {
			*bad = name;
			free(copy);
			for (size_t i = 0; i < s->nparts; i++)
				free(s->part[i]);
			s->nparts = 0;
			return -EINVAL;
		}
		s->part[s->nparts] = strdup(p);
		s->col[s->nparts++] = -1;
	}
	free(copy);
	return s->nparts ? 0 : -EINVAL;
}

static int add_pair(struct compare *x, const char *d, const char *o, const struct jschema_set *set,
		    const char **bad)
{
	struct pair *p = realloc(x->pair, (x->npair + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	x->pair = p;
	p = &x->pair[x->npair];
	memset(p, 0, sizeof(*p));
	int r = set_side(&p->side[0], d, set, bad);
	if (r == 0 && (r = set_side(&p->side[1], o, set, bad)) < 0) {
		for (size_t i = 0; i < p->side[0].nparts; i++)
			free(p->side[0].part[i]);
	}
	if (r == 0)
		x->npair++;
	return r;
}

/* One pair of a --pairs file, as its keys are read. */
struct pairs_file {
	const char *d, *o;
	yaml_node_t *dnode, *onode;
};

static int pair_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		    yaml_node_t *value)
{
	struct pairs_file *f = arg;
	const char **out = !strcmp(key, "deployable") ? &f->d : !strcmp(key, "oracle") ? &f->o : NULL;
	if (!out)
		return cfg_fail(c, key_node, "unknown key \"%s\" (a pair has deployable and oracle)", key);
	if (out == &f->d)
		f->dnode = value;
	else
		f->onode = value;
	return cfg_string(c, value, out);
}

/* --pairs FILE.yaml: a list of {deployable: SOURCE.FIELD, oracle:
 * SOURCE.FIELD}; a mistake is FILE:LINE:COL, as a config's. */
static int read_pairs(struct compare *x, const struct jschema_set *set)
{
	const char *path = x->o.pairs;
	FILE *in = fopen(path, "re");
	if (!in) {
		log_error("%s: %s", path, strerror(errno));
		return EX_NOINPUT;
	}
	char *text = NULL;
	size_t size = 0;
	ssize_t len = getdelim(&text, &size, '\0', in); /* the whole file */
	fclose(in);
	yaml_parser_t parser;
	yaml_document_t doc;
	struct errbuf err = {0};
	int code = 0;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)(text ? text : ""),
				     len > 0 ? (size_t)len : 0);
	if (!yaml_parser_load(&parser, &doc)) {
		cfg_parse_error(&parser, path, text ? text : "", &err);
		log_error("%s", err.msg);
		yaml_parser_delete(&parser);
		free(text);
		return EX_DATAERR;
	}
	struct cfg_ctx c = {.doc = &doc, .file = path, .err = &err};
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_SEQUENCE_NODE || root->data.sequence.items.start ==
								     root->data.sequence.items.top) {
		if (root)
			cfg_fail(&c, root, "the pairs must be a list of {deployable: SOURCE.FIELD, "
					   "oracle: SOURCE.FIELD}");
		else
			errbuf_set(&err, EINVAL, "%s:1:1: no pairs", path);
		code = EX_DATAERR;
	}
	for (yaml_node_item_t *it = code ? NULL : root->data.sequence.items.start;
	     it && it < root->data.sequence.items.top && !code; it++) {
		struct pairs_file f = {0};
		yaml_node_t *item = cfg_node(&c, *it);
		const char *bad = NULL;
		if (cfg_each_key(&c, item, "a pair", pair_key, &f) < 0) {
			code = EX_DATAERR;
		} else if (!f.d || !f.o) {
			cfg_fail(&c, item, "a pair needs deployable and oracle");
			code = EX_DATAERR;
		} else if (add_pair(x, f.d, f.o, set, &bad) < 0) {
			cfg_fail(&c, bad == f.d ? f.dnode : f.onode,
				 "\"%s\" is no field of a source's rows (SOURCE.FIELD, as export names its "
				 "columns; fields added up with +)",
				 bad ? bad : "?");
			code = EX_DATAERR;
		}
	}
	if (code)
		log_error("%s", err.msg);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	return code;
}

/* ---- the cells, through export ------------------------------------------------ */

static double cell_value(const json_t *row, const struct side *s, const char *const *names)
{
	double v = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		if (s->col[i] < 0)
			return NAN;
		const json_t *j = json_object_get(row, names[s->col[i]]);
		if (!json_is_number(j))
			return NAN;
		v += json_number_value(j);
	}
	return v;
}

static int push_cell(struct compare *x, size_t ep)
{
	if (x->ncell == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 1024;
		size_t *e = realloc(x->ep, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		x->ep = e;
		for (size_t p = 0; p < x->npair; p++)
			for (int k = 0; k < 2; k++) {
				double *v = realloc(x->pair[p].cell[k], cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				x->pair[p].cell[k] = v;
			}
		x->cap = cap;
	}
	x->ep[x->ncell++] = ep;
	return 0;
}

/* The columns of the table's first row; each side's parts found there.
 * A pair with a part no episode has is dropped. */
static void find_columns(struct compare *x, const json_t *row, const char ***names)
{
	size_t n = json_object_size(row), i = 0;
	const char *key;
	const json_t *v;
	*names = calloc(n ? n : 1, sizeof(**names));
	json_object_foreach((json_t *)row, key, v) (*names)[i++] = key;
	size_t kept = 0;
	for (size_t p = 0; p < x->npair; p++) {
		bool all = true;
		for (int k = 0; k < 2; k++)
			for (size_t j = 0; j < x->pair[p].side[k].nparts; j++) {
				x->pair[p].side[k].col[j] = -1;
				for (size_t c = 0; c < n; c++)
					if (!strcmp((*names)[c], x->pair[p].side[k].part[j]))
						x->pair[p].side[k].col[j] = (int)c;
				all &= x->pair[p].side[k].col[j] >= 0;
			}
		if (all)
			x->pair[kept++] = x->pair[p];
		else
			for (int k = 0; k < 2; k++)
				for (size_t j = 0; j < x->pair[p].side[k].nparts; j++)
					free(x->pair[p].side[k].part[j]);
	}
	x->npair = kept;
}

static int read_cells(struct compare *x, const char *path)
{
	FILE *in = fopen(path, "re");
	if (!in) {
		log_error("%s: %s", path, strerror(errno));
		return EX_SOFTWARE;
	}
	char *line = NULL;
	size_t cap = 0;
	const char **names = NULL;
	json_t *first = NULL;
	int code = 0;
	while (!code && getline(&line, &cap, in) > 0) {
		json_error_t e;
		json_t *row = json_loads(line, 0, &e);
		if (!json_is_object(row)) {
			log_error("%s: %s", path, e.text);
			json_decref(row);
			code = EX_SOFTWARE;
			break;
		}
		if (!first) {
			first = json_incref(row);
			find_columns(x, row, &names);
			x->grid_ns = json_integer_value(json_object_get(row, "t_end_ns")) -
				     json_integer_value(json_object_get(row, "t_start_ns"));
		}
		const char *name = json_string_value(json_object_get(row, "episode"));
		if (!name)
			name = "";
		if (!x->nep || strcmp(x->episodes[x->nep - 1], name)) {
			char **e = realloc(x->episodes, (x->nep + 1) * sizeof(*e));
			if (!e || !(e[x->nep] = strdup(name))) {
				free(e);
				code = EX_SOFTWARE;
				json_decref(row);
				break;
			}
			x->episodes = e;
			x->nep++;
		}
		if (push_cell(x, x->nep - 1) < 0) {
			code = EX_SOFTWARE;
		} else {
			for (size_t p = 0; p < x->npair; p++)
				for (int k = 0; k < 2; k++)
					x->pair[p].cell[k][x->ncell - 1] =
						cell_value(row, &x->pair[p].side[k], names);
		}
		json_decref(row);
	}
	free(line);
	free(names);
	json_decref(first); /* the names pointed into it */
	fclose(in);
	if (!first) { /* no cell: no column, so no pair */
		json_t *none = json_object();
		find_columns(x, none, &names);
		free(names);
		json_decref(none);
	}
	return code;
}

/* export's table of the episodes, into dir/cells.jsonl. */
static int run_export(const struct options *o, const char *path)
{
	size_t n = 0;
	char **argv = calloc(o->ndirs + 8, sizeof(*argv));
	if (!argv)
		return EX_SOFTWARE;
	argv[n++] = "export";
	for (size_t i = 0; i < o->ndirs; i++)
		argv[n++] = o->dirs[i];
	argv[n++] = "-o";
	argv[n++] = (char *)path;
	argv[n++] = "--format";
	argv[n++] = "jsonl";
	if (o->grid) {
		argv[n++] = "--grid";
		argv[n++] = (char *)o->grid;
	}
	if (o->include_incomplete)
		argv[n++] = "--include-incomplete";
	int code = cmd_export((int)n, argv);
	free(argv);
	return code;
}

/* ---- output ------------------------------------------------------------------ */

static json_t *num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *figures(const struct pair_stats *s)
{
	return json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cells", (json_int_t)s->cells,
			 "deployable_total", num(s->deployable_total), "oracle_total",
			 num(s->oracle_total), "total_diff_pct", num(s->total_diff_pct), "mae",
			 num(s->mae), "pearson_r", num(s->pearson_r), "rel_err_p50", num(s->rel_err_p50),
			 "rel_err_p95", num(s->rel_err_p95), "within_1pct", num(s->within_1pct),
			 "best_lag_cells",
			 isnan(s->r_at_best_lag) ? json_null() : json_integer(s->best_lag_cells),
			 "r_at_best_lag", num(s->r_at_best_lag));
}

static int compute(const struct compare *x, json_t **out)
{
	json_t *pairs = json_array(), *eps = json_array();
	for (size_t e = 0; e < x->nep; e++)
		json_array_append_new(eps, json_string(x->episodes[e]));
	for (size_t p = 0; p < x->npair; p++) {
		const struct pair *pr = &x->pair[p];
		struct pair_stats s;
		if (pair_stats(pr->cell[0], pr->cell[1], x->ep, x->ncell, &s) < 0)
			return -ENOMEM;
		json_t *one = figures(&s);
		json_object_set_new(one, "deployable", json_string(pr->side[0].name));
		json_object_set_new(one, "oracle", json_string(pr->side[1].name));
		if (x->o.cells) { /* the cells where both are non-null */
			json_t *dv = json_array(), *ov = json_array();
			for (size_t k = 0; k < x->ncell; k++)
				if (!isnan(pr->cell[0][k]) && !isnan(pr->cell[1][k])) {
					json_array_append_new(dv, json_real(pr->cell[0][k]));
					json_array_append_new(ov, json_real(pr->cell[1][k]));
				}
			json_object_set_new(one, "d", dv);
			json_object_set_new(one, "o", ov);
		}
		if (x->o.by_episode) {
			json_t *by = json_array();
			for (size_t e = 0, k = 0; e < x->nep; e++) {
				size_t from = k;
				while (k < x->ncell && x->ep[k] == e)
					k++;
				if (pair_stats(pr->cell[0] + from, pr->cell[1] + from, x->ep + from, k - from,
					       &s) < 0)
					return -ENOMEM;
				json_t *f = figures(&s);
				json_object_set_new(f, "episode", json_string(x->episodes[e]));
				json_array_append_new(by, f);
			}
			json_object_set_new(one, "by_episode", by);
		}
		json_array_append_new(pairs, one);
	}
	*out = json_pack("{s:I,s:o,s:o}", "grid_ns", (json_int_t)x->grid_ns, "episodes", eps, "pairs",
			 pairs);
	return 0;
}

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

/* Everything after the options: the pairs, export's cells, the figures. */
static int collect(struct compare *x, json_t **all)
{
	struct jschema_set *set = builtin_schemas_load();
	if (!set)
		return EX_SOFTWARE;
	int code = 0;
	const char *bad = NULL;
	if (x->o.pairs) {
		code = read_pairs(x, set);
	} else {
		for (size_t i = 0; i < sizeof(default_pairs) / sizeof(default_pairs[0]) && !code; i++)
			if (add_pair(x, default_pairs[i][0], default_pairs[i][1], set, &bad) < 0) {
				log_error("compare: the default pair %s is no field", bad);
				code = EX_SOFTWARE;
			}
	}
	char dir[] = "/tmp/iopsample-compare.XXXXXX", path[sizeof(dir) + 16];
	bool made = false;
	if (!code && !(made = mkdtemp(dir) != NULL)) {
		log_error("a directory for the cells: %s", strerror(errno));
		code = EX_CANTCREAT;
	}
	snprintf(path, sizeof(path), "%s/cells.jsonl", dir);
	if (!code)
		code = run_export(&x->o, path);
	if (!code)
		code = read_cells(x, path);
	if (made) {
		unlink(path);
		rmdir(dir);
	}
	if (!code && compute(x, all) < 0)
		code = EX_SOFTWARE;
	jschema_free(set);
	return code;
}

static void compare_free(struct compare *x)
{
	for (size_t p = 0; p < x->npair; p++)
		for (int k = 0; k < 2; k++) {
			free(x->pair[p].cell[k]);
			for (size_t j = 0; j < x->pair[p].side[k].nparts; j++)
				free(x->pair[p].side[k].part[j]);
		}
	free(x->pair);
	free(x->ep);
	for (size_t e = 0; e < x->nep; e++)
		free(x->episodes[e]);
	free(x->episodes);
}

int compare_for_report(char **dirs, size_t ndirs, json_t **out)
{
	struct compare x = {.o = {.dirs = dirs, .ndirs = ndirs, .include_incomplete = true, .cells = true}};
	*out = NULL;
	int code = collect(&x, out);
	compare_free(&x);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	struct compare x = {0};
	int code = parse_options(argc, argv, &x.o);
	if (code)
		return code;
	json_t *all = NULL;
	code = collect(&x, &all);
	if (!code)
		code = write_out(&x.o, all);
	json_decref(all);
	compare_free(&x);
	return code;
}
