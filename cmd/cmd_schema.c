// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample schema --columns SOURCE --dialect duckdb|spark|dask|pandas [EPISODE_DIR...]:
 * the types of a source's row fields, from its schema, as a SQL engine
 * reading the JSON Lines wants them, so that a field null in every row (a
 * hardware event on a VM) is still a number, and episodes from different
 * hosts union:
 *
 *   duckdb  a struct for read_json(..., columns = {...})
 *   spark   a DDL schema for spark.read.schema("...") or CREATE TABLE
 *   dask    a JSON object of pandas dtypes, for DataFrame.astype({...}) or
 *           Dask's meta: an integer is int64, or the nullable Int64 where the
 *           schema allows null; a number float64 (NaN for null); a string
 *           string; a boolean bool, or boolean where null is allowed; an
 *           array or object (histograms, by_syscall, labels) object, the
 *           Python list or dict as read
 *   pandas  the same dtypes, nested as the rows are: an object whose members
 *           the schema lists is an object of their dtypes, one whose keys
 *           the config or the host names (by_syscall, by_device) an object
 *           whose "*" is every entry's, and "*varying": true where the
 *           entries come and go (net's by_mount); so each dotted column of
 *           a flattened row (by_syscall.read.calls) has its dtype, null in
 *           every row or not (the Python package's frames)
 *
 * integer is BIGINT, number DOUBLE, string VARCHAR/STRING, boolean BOOLEAN;
 * an array of T is T[] / ARRAY<T>; an object whose members the schema lists
 * is a STRUCT, one whose keys the config or the host names (by_syscall,
 * by_device, labels) a MAP from strings. Fields named by the config at the
 * top of a row (perf_event's events: patternProperties) are taken from the
 * first row of each EPISODE_DIR's file for the source, the union over them,
 * sorted as export sorts them (natural_cmp.h); a source with such fields needs EPISODE_DIRs. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "collector.h"
#include "commands.h"
#include "manifest_read.h"
#include "natural_cmp.h"
#include "json_schema.h"
#include "jsonl_reader.h"
#include "log.h"
#include "builtin_schemas.h"

#define USAGE "usage: iopsample schema --columns SOURCE --dialect duckdb|spark|dask|pandas [EPISODE_DIR...]"

enum dialect { DUCKDB, SPARK, DASK, PANDAS };
static const char *const dialect_names[] = {"duckdb", "spark", "dask", "pandas", NULL};

struct typer {
	const struct jschema_set *set;
	const char *source;
	enum dialect d;
	FILE *out;
	const char *field; /* for a message: the field being typed */
	const char *doc;   /* the document its schema is in: "envelope" or the source */
};

static int type_of(struct typer *t, const json_t *schema);

/* The one type a schema allows besides null: from "type", else from the
 * value of "const" or the values of "enum". NULL when there is none or more. */
static const char *the_type(const json_t *schema)
{
	const json_t *type = json_object_get(schema, "type");
	const char *one = NULL;
	size_t i;
	const json_t *v;
	if (json_is_string(type))
		return json_string_value(type);
	json_array_foreach(type, i, v) {
		if (!strcmp(json_string_value(v), "null"))
			continue;
		if (one)
			return NULL;
		one = json_string_value(v);
	}
	if (one)
		return one;
	const json_t *c = json_object_get(schema, "const");
	const json_t *e = json_array_get(json_object_get(schema, "enum"), 0);
	switch (json_typeof(c ? c : e ? e : json_null())) {
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
		return "integer";
	case JSON_REAL:
		return "number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	default:
		return NULL;
	}
}

/* A name as the dialect quotes it inside a type: "name" / `name`. */
static void put_name(struct typer *t, const char *name)
{
	char q = t->d == DUCKDB ? '"' : '`';
	fputc(q, t->out);
	for (const char *c = name; *c; c++) {
		if (*c == q)
			fputc(q, t->out);
		fputc(*c, t->out);
	}
	fputc(q, t->out);
}

/* Whether an object schema requires every property it lists. */
static bool all_required(const json_t *schema)
{
	const json_t *props = json_object_get(schema, "properties");
	const json_t *req = json_object_get(schema, "required");
	const char *key;
	const json_t *sub;
	json_object_foreach((json_t *)props, key, sub) {
		bool found = false;
		for (size_t i = 0; i < json_array_size(req) && !found; i++)
			found = !strcmp(json_string_value(json_array_get(req, i)), key);
		if (!found)
			return false;
	}
	return true;
}

static int object_type(struct typer *t, const json_t *schema)
{
	const json_t *props = json_object_get(schema, "properties");
	const json_t *extra = json_object_get(schema, "additionalProperties");
	if (json_object_size(props)) {
		fputs(t->d == DUCKDB ? "STRUCT(" : "STRUCT<", t->out);
		const char *key;
		const json_t *sub;
		bool first = true;
		json_object_foreach((json_t *)props, key, sub) {
			fputs(first ? "" : ", ", t->out);
			first = false;
			put_name(t, key);
			fputs(t->d == DUCKDB ? " " : ": ", t->out);
			int r = type_of(t, jschema_deref(t->set, t->source, sub));
			if (r)
				return r;
		}
		fputs(t->d == DUCKDB ? ")" : ">", t->out);
		return 0;
	}
	if (json_is_object(extra)) {
		fputs(t->d == DUCKDB ? "MAP(VARCHAR, " : "MAP<STRING, ", t->out);
		const json_t *value = jschema_deref(t->set, t->source, extra);
		int r = 0;
		/* values whose keys differ (syscall_io's by_syscall: a metadata
		 * syscall's entry has no bytes): a struct would give the missing
		 * ones as nulls, which export has no column for; DuckDB keeps
		 * each as written */
		if (t->d == DUCKDB && !all_required(value))
			fputs("JSON", t->out);
		else
			r = type_of(t, value);
		fputs(t->d == DUCKDB ? ")" : ">", t->out);
		return r;
	}
	log_error("schema/%s.schema.json: %s: an object with neither properties nor "
		  "additionalProperties has no column type", t->source, t->field);
	return EX_SOFTWARE;
}

static int type_of(struct typer *t, const json_t *schema)
{
	const char *type = the_type(schema);
	if (!type) {
		log_error("schema/%s.schema.json: %s: not one JSON type, so no column type",
			  t->source, t->field);
		return EX_SOFTWARE;
	}
	if (!strcmp(type, "integer"))
		fputs("BIGINT", t->out);
	else if (!strcmp(type, "number"))
		fputs("DOUBLE", t->out);
	else if (!strcmp(type, "string"))
		fputs(t->d == DUCKDB ? "VARCHAR" : "STRING", t->out);
	else if (!strcmp(type, "boolean"))
		fputs("BOOLEAN", t->out);
	else if (!strcmp(type, "array")) {
		const json_t *items = jschema_deref(t->set, t->source, json_object_get(schema, "items"));
		fputs(t->d == DUCKDB ? "" : "ARRAY<", t->out);
		int r = type_of(t, items);
		if (r)
			return r;
		fputs(t->d == DUCKDB ? "[]" : ">", t->out);
	} else if (!strcmp(type, "object"))
		return object_type(t, schema);
	else
		return EX_SOFTWARE;
	return 0;
}

/* Whether the schema allows null besides its one type. */
static bool nullable(const json_t *schema)
{
	size_t i;
	const json_t *v;
	json_array_foreach(json_object_get(schema, "type"), i, v)
		if (!strcmp(json_string_value(v), "null"))
			return true;
	return false;
}

/* A column's pandas dtype (see the top of this file), or NULL with why. */
static const char *pandas_dtype(const struct typer *t, const json_t *schema)
{
	const char *type = the_type(schema);
	const char *dtype = !type                      ? NULL
			    : !strcmp(type, "integer") ? nullable(schema) ? "Int64" : "int64"
			    : !strcmp(type, "number")  ? "float64"
			    : !strcmp(type, "string")  ? "string"
			    : !strcmp(type, "boolean") ? nullable(schema) ? "boolean" : "bool"
			    : !strcmp(type, "array") || !strcmp(type, "object") ? "object"
								: NULL;
	if (!dtype)
		log_error("schema/%s.schema.json: %s: not one JSON type, so no column type",
			  t->source, t->field);
	return dtype;
}

static int dask_dtype(struct typer *t, const json_t *schema)
{
	const char *dtype = pandas_dtype(t, schema);
	if (!dtype)
		return EX_SOFTWARE;
	fprintf(t->out, "\"%s\"", dtype);
	return 0;
}

/* The pandas dialect's value for schema (see the top of this file), in
 * set's document doc: NULL when a leaf has no one type. */
static json_t *pandas_tree(struct typer *t, const char *doc, const json_t *schema)
{
	const char *type = the_type(schema);
	if (type && !strcmp(type, "object")) {
		json_t *out = json_object();
		const char *key;
		const json_t *sub;
		json_object_foreach((json_t *)json_object_get(schema, "properties"), key, sub) {
			json_t *v = pandas_tree(t, doc, jschema_deref(t->set, doc, sub));
			if (!v) {
				json_decref(out);
				return NULL;
			}
			json_object_set_new(out, key, v);
		}
		const json_t *each = json_object_get(schema, "additionalProperties");
		if (!json_is_object(each)) /* the first pattern's: keys the config names */
			json_object_foreach((json_t *)json_object_get(schema, "patternProperties"), key, sub) {
				each = sub;
				break;
			}
		if (json_is_object(each)) {
			json_t *v = pandas_tree(t, doc, jschema_deref(t->set, doc, each));
			if (!v) {
				json_decref(out);
				return NULL;
			}
			json_object_set_new(out, "*", v);
			/* members that come and go: a row may lack one */
			const json_t *keys = json_object_get(schema, "x-keys");
			if (json_is_string(keys) && !strcmp(json_string_value(keys), "varying"))
				json_object_set_new(out, "*varying", json_true());
		}
		if (json_object_size(out))
			return out;
		json_decref(out);
	}
	const char *dtype = pandas_dtype(t, schema);
	return dtype ? json_string(dtype) : NULL;
}

/* One top-level column: `'name': 'TYPE'`, `` `name` TYPE`` or `"name": "dtype"`. */
static int column(struct typer *t, const char *name, const json_t *schema, bool first)
{
	t->field = name;
	fputs(first ? "" : ", ", t->out);
	if (t->d == DUCKDB) {
		/* the type goes inside a SQL string: built apart, then quoted */
		char *type = NULL;
		size_t len = 0;
		FILE *out = t->out;
		if (!(t->out = open_memstream(&type, &len)))
			return EX_OSERR;
		int r = type_of(t, schema);
		fclose(t->out);
		t->out = out;
		fputc('\'', out);
		for (const char *c = name; *c; c++)
			fputs(*c == '\'' ? "''" : (char[]){*c, 0}, out);
		fputs("': '", out);
		for (const char *c = type; c && *c; c++)
			fputs(*c == '\'' ? "''" : (char[]){*c, 0}, out);
		fputc('\'', out);
		free(type);
		return r;
	}
	if (t->d == DASK || t->d == PANDAS) {
		json_t *key = json_string(name);
		char *quoted = key ? json_dumps(key, JSON_ENCODE_ANY) : NULL;
		json_decref(key);
		if (!quoted)
			return EX_OSERR;
		fprintf(t->out, "%s: ", quoted);
		free(quoted);
		if (t->d == DASK)
			return dask_dtype(t, schema);
		json_t *tree = pandas_tree(t, t->doc, schema);
		char *text = tree ? json_dumps(tree, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
		json_decref(tree);
		if (!text)
			return EX_SOFTWARE;
		fputs(text, t->out);
		free(text);
		return 0;
	}
	put_name(t, name);
	fputc(' ', t->out);
	return type_of(t, schema);
}

/* The top-level keys of the first row of the source in dir that the schema
 * does not list, into names (an object used as a set). */
static int config_named(const struct typer *t, const char *dir, json_t *names)
{
	int dirfd;
	json_t *m;
	int code = manifest_load(dir, t->set, &dirfd, &m);
	if (code) {
		json_decref(m);
		return code;
	}
	const char *file = json_string_value(
		json_object_get(json_object_get(json_object_get(m, "sources"), t->source), "file"));
	struct jsonl_reader r;
	struct errbuf e;
	char *text;
	size_t len;
	if (file && jsonl_reader_open(&r, dirfd, file, &e) == 0) {
		if (jsonl_reader_next(&r, &text, &len, &e) > 0) {
			json_t *row = json_loadb(text, len, 0, NULL);
			const char *key;
			const json_t *v;
			json_object_foreach(row, key, v)
				if (!jschema_property(t->set, "envelope", key) &&
				    !jschema_property(t->set, t->source, key))
					json_object_set_new(names, key, json_true());
			json_decref(row);
		}
		jsonl_reader_close(&r);
	} else if (file) {
		log_error("%s/%s", dir, e.msg);
		code = EX_NOINPUT;
	}
	json_decref(m);
	close(dirfd);
	return code;
}

static int by_name(const void *a, const void *b)
{
	return natural_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* Envelope, then the fields the config names, sorted, then the source's
 * own, in schema order: as export orders its columns. */
static int print_columns(struct typer *t, json_t *named)
{
	const json_t *envelope = json_object_get(jschema_root(t->set, "envelope"), "properties");
	const json_t *own = json_object_get(jschema_root(t->set, t->source), "properties");
	const char *key;
	const json_t *sub;
	bool first = true;
	int r = 0;
	json_object_foreach((json_t *)envelope, key, sub) {
		t->doc = "envelope";
		if ((r = column(t, key, jschema_deref(t->set, "envelope", sub), first)))
			return r;
		first = false;
	}
	size_t n = json_object_size(named), i = 0;
	const char **keys = calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return EX_OSERR;
	json_object_foreach(named, key, sub)
		keys[i++] = key;
	qsort(keys, n, sizeof(*keys), by_name);
	const json_t *root = jschema_root(t->set, t->source);
	t->doc = t->source;
	for (i = 0; i < n && !r; i++)
		r = column(t, keys[i], jschema_sub(t->set, t->source, root, keys[i]), false);
	free(keys);
	json_object_foreach((json_t *)own, key, sub) {
		if (r || jschema_property(t->set, "envelope", key))
			continue;
		r = column(t, key, jschema_deref(t->set, t->source, sub), false);
	}
	return r;
}

int cmd_schema(int argc, char **argv)
{
	const char *source = NULL, *dialect = NULL;
	int ndirs = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--columns") && i + 1 < argc)
			source = argv[++i];
		else if (!strcmp(argv[i], "--dialect") && i + 1 < argc)
			dialect = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1]) {
			log_error("schema: %s %s; " USAGE, argv[i],
				  strcmp(argv[i], "--columns") && strcmp(argv[i], "--dialect")
					  ? "is not an option" : "needs a value");
			return EX_USAGE;
		} else
			argv[++ndirs] = argv[i];
	}
	if (!source || !dialect) {
		log_error(USAGE);
		return EX_USAGE;
	}
	int d = 0;
	while (dialect_names[d] && strcmp(dialect, dialect_names[d]))
		d++;
	if (!dialect_names[d]) {
		log_error("schema: --dialect %s: not duckdb, spark, dask or pandas", dialect);
		return EX_USAGE;
	}
	if (!collector_find(source)) {
		char names[256] = "";
		for (const struct collector_ops *const *o = collector_registry; *o; o++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 o == collector_registry ? "" : ", ", (*o)->name);
		log_error("schema: --columns %s: not a source; the sources are %s", source, names);
		return EX_USAGE;
	}
	struct jschema_set *set = builtin_schemas_load();
	if (!set)
		return EX_SOFTWARE;
	/* written whole or not at all: built apart, printed when it is complete */
	char *text = NULL;
	size_t len = 0;
	struct typer t = {set, source, (enum dialect)d,
			  open_memstream(&text, &len), NULL, NULL};
	json_t *named = json_object();
	int code = named && t.out ? 0 : EX_OSERR;
	for (int i = 1; i <= ndirs && !code; i++)
		code = config_named(&t, argv[i], named);
	if (!code && json_object_get(jschema_root(set, source), "patternProperties") &&
	    !json_object_size(named)) {
		log_error("schema: %s has fields its config names (patternProperties): give "
			  "episodes that have its rows, and their fields are the columns", source);
		code = ndirs ? EX_DATAERR : EX_USAGE;
	}
	if (!code) {
		fputs(t.d == SPARK ? "" : "{", t.out);
		code = print_columns(&t, named);
		fputs(t.d == SPARK ? "\n" : "}\n", t.out);
	}
	if (t.out)
		fclose(t.out);
	if (!code)
		fputs(text, stdout);
	free(text);
	json_decref(named);
	jschema_free(set);
	if (fflush(stdout) == EOF) {
		log_error("stdout: %s", strerror(errno));
		return EX_IOERR;
	}
	return code;
}
