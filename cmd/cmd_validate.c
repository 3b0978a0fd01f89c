// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* iopsample validate EPISODE_DIR...: the manifest and every row against the
 * schemas compiled in from schema/, plus what a schema cannot say: seq 0, 1,
 * 2, ...; t_mono_ns increasing with interval_ns its step; the same keys in
 * every row; one final row, the last; the row counts the manifest gives; a
 * file for every enabled source and no file the manifest does not know.
 *
 * One line on stdout per problem, "FILE:ROW: what" (ROW is the line number)
 * or "FILE: what"; exit 0 when there is none, 65 when there is any. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "commands.h"
#include "manifest_read.h"
#include "jsonl_reader.h"
#include "jsonl_writer.h"
#include "log.h"
#include "builtin_schemas.h"

/* Past this many problems in one file, the rest are only counted. */
#define PROBLEMS_SHOWN_PER_FILE 50

struct checker {
	const struct jschema_set *schemas;
	const char *dir;
	const char *file; /* the file being checked, relative to dir */
	uint64_t row;     /* its line being checked; 0 for the whole file */
	size_t in_file;   /* problems in this file */
	size_t total;
	char last[600];   /* the last line said: a schema may say it twice */
};

static void say(struct checker *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct checker *k, const char *fmt, ...)
{
	k->total++;
	if (++k->in_file > PROBLEMS_SHOWN_PER_FILE)
		return;
	if (k->row)
		printf("%s/%s:%llu: ", k->dir, k->file, (unsigned long long)k->row);
	else
		printf("%s/%s: ", k->dir, k->file);
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void begin_file(struct checker *k, const char *file)
{
	k->file = file;
	k->row = 0;
	k->in_file = 0;
}

static void end_file(struct checker *k)
{
	if (k->in_file > PROBLEMS_SHOWN_PER_FILE)
		printf("%s/%s: %zu more problems\n", k->dir, k->file,
		       k->in_file - PROBLEMS_SHOWN_PER_FILE);
}

/* A row schema and the envelope it includes may both find the same fault
 * (a row that is not an object): it is one problem, said once. */
static void schema_problem(void *arg, const char *where, const char *what)
{
	struct checker *k = arg;
	char line[sizeof(k->last)];
	snprintf(line, sizeof(line), "%s:%llu:%s: %s", k->file, (unsigned long long)k->row, where,
		 what);
	if (!strcmp(line, k->last))
		return;
	strcpy(k->last, line);
	if (*where)
		say(k, "%s: %s", where, what);
	else
		say(k, "%s", what);
}

static bool has_status(const json_t *o, const char *status)
{
	const char *s = json_string_value(json_object_get(o, "status"));
	return s && !strcmp(s, status);
}

/* The first key where two rows' key lists differ, described. */
static bool same_keys(struct checker *k, const json_t *row, const json_t *first)
{
	void *a = json_object_iter((json_t *)row), *b = json_object_iter((json_t *)first);
	for (; a && b; a = json_object_iter_next((json_t *)row, a),
		       b = json_object_iter_next((json_t *)first, b)) {
		const char *ka = json_object_iter_key(a), *kb = json_object_iter_key(b);
		if (strcmp(ka, kb)) {
			say(k, "keys differ from the first row's: \"%s\" where it has \"%s\"", ka, kb);
			return false;
		}
	}
	if (a || b) {
		say(k, "keys differ from the first row's: \"%s\" %s", json_object_iter_key(a ? a : b),
		    a ? "is extra" : "is missing");
		return false;
	}
	return true;
}

struct row_state {
	const json_t *manifest, *source;
	const char *name;
	json_t *first;
	json_int_t prev_t;
	uint64_t final_row; /* line of the first row with final true; 0: none */
};

/* The envelope's invariants for one row that passed or failed the schema. */
static void check_envelope(struct checker *k, struct row_state *st, const json_t *row)
{
	const json_t *seq = json_object_get(row, "seq"), *t = json_object_get(row, "t_mono_ns"),
		     *iv = json_object_get(row, "interval_ns"), *v;
	if (json_is_integer(seq) && (uint64_t)json_integer_value(seq) != k->row - 1)
		say(k, "seq %lld, expected %llu", (long long)json_integer_value(seq),
		    (unsigned long long)(k->row - 1));
	if (json_is_integer(t)) {
		json_int_t now = json_integer_value(t);
		if (k->row > 1 && now <= st->prev_t)
			say(k, "t_mono_ns %lld is not after the previous row's %lld", (long long)now,
			    (long long)st->prev_t);
		else if (json_is_integer(iv) && json_integer_value(iv) != now - st->prev_t)
			say(k, "interval_ns %lld, but t_mono_ns advanced by %lld",
			    (long long)json_integer_value(iv), (long long)(now - st->prev_t));
		st->prev_t = now;
	}
	const char *episode = json_string_value(json_object_get(st->manifest, "episode"));
	const char *ep = json_string_value(json_object_get(row, "episode"));
	if (episode && ep && strcmp(ep, episode))
		say(k, "episode \"%s\", but the manifest's is \"%s\"", ep, episode);
	const char *source = json_string_value(json_object_get(row, "source"));
	if (source && strcmp(source, st->name))
		say(k, "source \"%s\" in %s's file", source, st->name);
	v = json_object_get(row, "available_in_deployment");
	const json_t *aid = json_object_get(st->source, "available_in_deployment");
	if (json_is_boolean(v) && json_is_boolean(aid) && json_is_true(v) != json_is_true(aid))
		say(k, "available_in_deployment %s, but the manifest says %s",
		    json_is_true(v) ? "true" : "false", json_is_true(aid) ? "true" : "false");
	const json_t *labels = json_object_get(st->manifest, "labels");
	v = json_object_get(row, "labels");
	if (json_object_size(labels) ? !json_equal(v, labels) : v != NULL)
		say(k, "labels differ from the manifest's");
	if (json_is_true(json_object_get(row, "final"))) {
		if (st->final_row)
			say(k, "a second final row (the first is line %llu)",
			    (unsigned long long)st->final_row);
		else
			st->final_row = k->row;
	}
	if (!st->first)
		st->first = json_incref((json_t *)row);
	else
		same_keys(k, row, st->first);
}

static void check_rows(struct checker *k, int dirfd, const char *name, const json_t *manifest,
		       const json_t *src)
{
	const char *file = json_string_value(json_object_get(src, "file"));
	struct jsonl_reader r;
	struct errbuf e;
	char *text;
	size_t len;
	int err;
	begin_file(k, file);
	if ((err = jsonl_reader_open(&r, dirfd, file, &e)) < 0) {
		say(k, "%s", strerror(-err));
		return;
	}
	bool has_schema = jschema_has(k->schemas, name);
	if (!has_schema)
		say(k, "no schema/%s.schema.json to check its rows against", name);
	struct row_state st = {manifest, src, name, NULL, 0, 0};
	while ((err = jsonl_reader_next(&r, &text, &len, &e)) > 0) {
		k->row = r.rows;
		json_error_t je;
		json_t *row = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
		if (!row) {
			say(k, "not a JSON row: %s (column %d)", je.text, je.column);
			continue;
		}
		if (has_schema)
			jschema_validate(k->schemas, name, row, schema_problem, k);
		if (json_is_object(row))
			check_envelope(k, &st, row);
		json_decref(row);
	}
	k->row = r.rows + 1;
	if (err < 0)
		say(k, "%s", e.msg);
	else if (r.damage[0] && !(r.between_rows && has_status(src, "failed")))
		say(k, "%s", r.damage); /* a failed source's zstd frame may stop between rows */
	k->row = 0;
	bool ended = !has_status(manifest, "running") && !has_status(manifest, "killed");
	json_int_t rows = json_integer_value(json_object_get(src, "rows"));
	if (ended && (json_int_t)r.rows != rows)
		say(k, "%llu rows, the manifest says %lld", (unsigned long long)r.rows, (long long)rows);
	if (ended && has_status(src, "ok") && st.final_row != r.rows)
		say(k, st.final_row ? "the final row (line %llu) is not the last"
				    : "no final row: the source's last row must have final true",
		    (unsigned long long)st.final_row);
	else if (ended && !has_status(src, "ok") && st.final_row)
		say(k, "a final row (line %llu), but the source did not end ok",
		    (unsigned long long)st.final_row);
	json_decref(st.first);
	jsonl_reader_close(&r);
	end_file(k);
}

static bool is_row_file(const char *name)
{
	size_t n = strlen(name);
	return (n > 6 && !strcmp(name + n - 6, ".jsonl")) ||
	       (n > 10 && !strcmp(name + n - 10, ".jsonl.zst"));
}

/* Files that look like a source's rows but that no source of the manifest names. */
static void check_strays(struct checker *k, int dirfd, const json_t *sources)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		const char *name;
		const json_t *src;
		bool known = false;
		if (!is_row_file(de->d_name))
			continue;
		json_object_foreach((json_t *)sources, name, src) {
			const char *file = json_string_value(json_object_get(src, "file"));
			known = known || (file && !strcmp(file, de->d_name));
		}
		begin_file(k, de->d_name);
		if (!known)
			say(k, "rows no source of the manifest names");
	}
	closedir(d);
}

static void check_sources(struct checker *k, int dirfd, const json_t *m)
{
	const json_t *sources = json_object_get(m, "sources"), *src;
	const json_t *config = json_object_get(m, "config");
	const char *compression = json_string_value(
		json_object_get(json_object_get(config, "output"), "compression"));
	const char *name;
	json_object_foreach(json_object_get(config, "sources"), name, src)
		if (!json_object_get(sources, name))
			say(k, "source %s is enabled in the config but has no entry in sources", name);
	json_object_foreach((json_t *)sources, name, src) {
		const char *file = json_string_value(json_object_get(src, "file"));
		if (!file) {
			if (has_status(src, "ok"))
				say(k, "sources.%s is ok but names no file", name);
			continue;
		}
		char want[300];
		jsonl_file_name(name,
				compression && !strcmp(compression, "zstd") ? COMPRESSION_ZSTD
									     : COMPRESSION_NONE,
				want, sizeof(want));
		if (strcmp(file, want))
			say(k, "sources.%s.file is \"%s\", expected \"%s\"", name, file, want);
		else
			check_rows(k, dirfd, name, m, src);
		begin_file(k, "manifest.json");
	}
	check_strays(k, dirfd, sources);
}

static void check_episode(struct checker *k, const char *dir)
{
	k->dir = dir;
	begin_file(k, "manifest.json");
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		k->total++;
		printf("%s: %s\n", dir, strerror(errno));
		return;
	}
	json_error_t je;
	json_t *m;
	int r = manifest_read(dirfd, JSON_REJECT_DUPLICATES, &m, &je);
	if (r == -EINVAL)
		say(k, "line %d, column %d: %s", je.line, je.column, je.text);
	else if (r < 0)
		say(k, "%s", strerror(-r));
	if (m) {
		jschema_validate(k->schemas, "manifest", m, schema_problem, k);
		if (has_status(m, "running"))
			say(k, "status is running: the episode did not end (iopsample was killed, "
			       "or is still running)");
		else if (has_status(m, "killed"))
			say(k, "status is killed: iopsample was killed mid-episode (its keeper "
			       "stopped the tree); the rows end where the samplers were killed");
		if (json_is_object(json_object_get(m, "sources")))
			check_sources(k, dirfd, m);
	}
	json_decref(m);
	close(dirfd);
}

int cmd_validate(int argc, char **argv)
{
	if (argc < 2) {
		log_error("usage: iopsample validate EPISODE_DIR...");
		return EX_USAGE;
	}
	struct jschema_set *schemas = builtin_schemas_load();
	if (!schemas)
		return EX_SOFTWARE;
	struct checker k = {.schemas = schemas};
	for (int i = 1; i < argc; i++) {
		size_t len = strlen(argv[i]);
		while (len > 1 && argv[i][len - 1] == '/')
			argv[i][--len] = '\0';
		check_episode(&k, argv[i]);
	}
	jschema_free(schemas);
	if (fflush(stdout) == EOF) {
		log_error("stdout: %s", strerror(errno));
		return EX_IOERR;
	}
	return k.total ? EX_DATAERR : 0;
}
