// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Loads an episode config: libyaml's document API (every node keeps its
 * line:col), --set overrides applied to the document, then a walk that fills
 * struct config and rejects anything CONTRACT §3 does not allow. */
#define _GNU_SOURCE
#include "config.h"
#include "config_overrides.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "config_yaml.h"
#include "signames.h"

/* ---- small helpers ---------------------------------------------------- */

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		log_error("out of memory");
		abort();
	}
	return d;
}

static char *path_join(const char *dir, const char *rel)
{
	char *out;
	if (rel[0] == '/')
		return xstrdup(rel);
	if (asprintf(&out, "%s/%s", dir, rel) < 0) {
		log_error("out of memory");
		abort();
	}
	return out;
}

static void kv_free(struct kv_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

/* [A-Za-z0-9._-]{1,128}, not . or ..: a directory's name, never a path. */
static bool name_valid(const char *name)
{
	size_t n = strlen(name);
	if (n < 1 || n > CONFIG_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}

/* ---- the typed walk ---------------------------------------------------- */

struct walk {
	struct config *cfg;
	struct cfg_ctx *c;
	/* where required keys were (or should have been) */
	yaml_node_t *episode_node, *target_node;
	yaml_node_t *name_node, *command_node, *pid_node;
	yaml_node_t *command_only_key; /* the first key that makes no sense with target.pid */
	yaml_node_t *cwd_node;
	const char *cwd;
};

static int string_dup(struct cfg_ctx *c, yaml_node_t *n, char **out)
{
	const char *s;
	int r = cfg_string(c, n, &s);
	if (r < 0)
		return r;
	if (strlen(s) != n->data.scalar.length)
		return cfg_fail(c, n, "strings may not contain NUL bytes");
	free(*out);
	*out = xstrdup(s);
	return 0;
}

struct kv_walk {
	struct kv_list *list;
	const char *what;
	bool env_names; /* keys must be usable as environment variable names */
	size_t max_key, max_value; /* bytes; 0: no limit */
};

static int kv_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		  yaml_node_t *value)
{
	struct kv_walk *w = arg;
	if (!*key)
		return cfg_fail(c, key_node, "empty key in %s", w->what);
	if (w->env_names && strchr(key, '='))
		return cfg_fail(c, key_node, "environment variable names cannot contain '='");
	if (w->max_key && strlen(key) > w->max_key)
		return cfg_fail(c, key_node, "a key in %s is longer than %zu bytes", w->what, w->max_key);
	if (value->type != YAML_SCALAR_NODE || cfg_is_null(value))
		return cfg_fail(c, value, "%s.%s must be a string", w->what, key);
	if (w->max_value && value->data.scalar.length > w->max_value)
		return cfg_fail(c, value, "%s.%s is longer than %zu bytes", w->what, key,
				w->max_value);
	struct kv *items = reallocarray(w->list->items, w->list->n + 1, sizeof(*items));
	if (!items)
		return errbuf_set(c->err, ENOMEM, "out of memory");
	w->list->items = items;
	char *v = NULL;
	int r = string_dup(c, value, &v);
	if (r < 0)
		return r;
	items[w->list->n++] = (struct kv){xstrdup(key), v};
	return 0;
}

static int episode_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		       yaml_node_t *v)
{
	struct walk *w = arg;
	struct config *cfg = w->cfg;

	if (!strcmp(key, "name")) {
		int r = string_dup(c, v, &cfg->episode.name);
		if (r < 0)
			return r;
		if (!name_valid(cfg->episode.name))
			return cfg_fail(c, v,
					"invalid episode name \"%s\": use 1 to 128 of A-Z a-z 0-9 . _ - "
					"(not \".\" or \"..\")",
					cfg->episode.name);
		w->name_node = v;
		return 0;
	}
	if (!strcmp(key, "output_dir")) {
		char *dir = NULL;
		int r = string_dup(c, v, &dir);
		if (r < 0)
			return r;
		if (!*dir) {
			free(dir);
			return cfg_fail(c, v, "output_dir is empty");
		}
		free(cfg->episode.output_dir);
		cfg->episode.output_dir = path_join(cfg->dir, dir);
		free(dir);
		return 0;
	}
	if (!strcmp(key, "duration")) {
		if (cfg_is_null(v))
			return cfg->episode.duration_ns = 0, 0;
		return cfg_duration(c, v, 1, INT64_MAX, &cfg->episode.duration_ns);
	}
	if (!strcmp(key, "grace"))
		return cfg_duration(c, v, 0, INT64_MAX, &cfg->episode.grace_ns);
	if (!strcmp(key, "stop_signal")) {
		const char *s;
		int r = cfg_string(c, v, &s);
		if (r < 0)
			return r;
		int sig = signame_parse(s);
		if (!sig)
			return cfg_fail(c, v, "unknown signal \"%s\"", s);
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU ||
		    sig == SIGCONT || sig == SIGCHLD || sig == SIGWINCH || sig == SIGURG)
			return cfg_fail(c, v, "%s does not stop a process", s);
		cfg->episode.stop_signal = sig;
		return 0;
	}
	if (!strcmp(key, "cgroup")) {
		const char *s;
		int r = cfg_string(c, v, &s);
		if (r < 0)
			return r;
		if (strcmp(s, "auto") && strcmp(s, "off"))
			return cfg_fail(c, v, "expected auto or off, got \"%s\"", s);
		cfg->episode.cgroup_off = !strcmp(s, "off");
		return 0;
	}
	if (!strcmp(key, "labels")) {
		kv_free(&cfg->episode.labels);
		if (cfg_is_null(v))
			return 0;
		/* labels go into every row: short enough to stay features */
		struct kv_walk kw = {&cfg->episode.labels, "episode.labels", false, CONFIG_LABEL_KEY_MAX,
				     CONFIG_LABEL_VALUE_MAX};
		return cfg_each_key(c, v, "episode.labels", kv_key, &kw);
	}
	return cfg_unknown_key(c, key_node, key, "episode");
}

/* file, inherit or null; YAML's own null (null, ~), which is how people
 * write it unquoted, is null too. Nothing at all is not a choice. */
static int output_mode(struct cfg_ctx *c, yaml_node_t *v, enum out_mode *m)
{
	if (cfg_is_null(v) && v->data.scalar.length) {
		*m = OUT_NULL;
		return 0;
	}
	const char *s;
	int r = cfg_string(c, v, &s);
	if (r < 0)
		return r;
	if (!strcmp(s, "file"))
		*m = OUT_FILE;
	else if (!strcmp(s, "inherit"))
		*m = OUT_INHERIT;
	else if (!strcmp(s, "null"))
		*m = OUT_NULL;
	else
		return cfg_fail(c, v, "expected file, inherit or null, got \"%s\"", s);
	return 0;
}

static void argv_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

static int command(struct walk *w, yaml_node_t *v)
{
	struct cfg_ctx *c = w->c;
	struct config *cfg = w->cfg;
	char **argv;
	size_t n;

	argv_free(cfg->target.argv);
	cfg->target.argv = NULL;

	if (v->type == YAML_SCALAR_NODE && !cfg_is_null(v)) {
		char *s = NULL;
		int r = string_dup(c, v, &s);
		if (r < 0)
			return r;
		if (!*s) {
			free(s);
			return cfg_fail(c, v, "target.command is empty");
		}
		argv = calloc(4, sizeof(*argv));
		argv[0] = xstrdup("/bin/sh");
		argv[1] = xstrdup("-c");
		argv[2] = s;
		cfg->target.argv = argv;
		cfg->target.shell = true;
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, v, "target.command must be a list of strings or a string");
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n == 0)
		return cfg_fail(c, v, "target.command is an empty list");
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv)
		return errbuf_set(c->err, ENOMEM, "out of memory");
	cfg->target.argv = argv;
	cfg->target.shell = false;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *item = cfg_node(c, v->data.sequence.items.start[i]);
		if (item->type != YAML_SCALAR_NODE || cfg_is_null(item))
			return cfg_fail(c, item, "target.command[%zu] must be a string", i);
		int r = string_dup(c, item, &argv[i]);
		if (r < 0)
			return r;
	}
	if (!*argv[0])
		return cfg_fail(c, cfg_node(c, v->data.sequence.items.start[0]),
				"the program name is empty");
	return 0;
}

/* The keys that shape how a command runs; -ENOENT for any other. */
static int command_key(struct walk *w, const char *key, yaml_node_t *v)
{
	struct cfg_ctx *c = w->c;
	struct config *cfg = w->cfg;
	if (!strcmp(key, "cwd")) {
		int r = cfg_string(c, v, &w->cwd);
		w->cwd_node = v;
		return r;
	}
	if (!strcmp(key, "env")) {
		kv_free(&cfg->target.env);
		if (cfg_is_null(v))
			return 0;
		struct kv_walk kw = {&cfg->target.env, "target.env", true, 0, 0};
		return cfg_each_key(c, v, "target.env", kv_key, &kw);
	}
	if (!strcmp(key, "stdout"))
		return output_mode(c, v, &cfg->target.stdout_mode);
	if (!strcmp(key, "stderr"))
		return output_mode(c, v, &cfg->target.stderr_mode);
	return -ENOENT;
}

static int target_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		      yaml_node_t *v)
{
	struct walk *w = arg;

	if (!strcmp(key, "command")) {
		w->command_node = key_node;
		return command(w, v);
	}
	if (!strcmp(key, "pid")) {
		long long pid = 0;
		int r = cfg_int(c, v, 1, INT_MAX, &pid);
		w->cfg->target.pid = (pid_t)pid;
		w->pid_node = v;
		return r;
	}
	int r = command_key(w, key, v);
	if (r == -ENOENT)
		return cfg_unknown_key(c, key_node, key, "target");
	if (!w->command_only_key)
		w->command_only_key = key_node;
	return r;
}

static int target_check(struct walk *w)
{
	struct cfg_ctx *c = w->c;
	struct config *cfg = w->cfg;

	if (w->command_node && w->pid_node)
		return cfg_fail(c, w->pid_node, "target has both command and pid: give one");
	if (!w->command_node && !w->pid_node)
		return cfg_fail(c, w->target_node, "target needs a command or a pid");
	if (w->pid_node) {
		if (w->command_only_key)
			return cfg_fail(c, w->command_only_key,
					"target.%s applies to a command, not to target.pid",
					(char *)w->command_only_key->data.scalar.value);
		if (kill(cfg->target.pid, 0) < 0 && errno == ESRCH)
			return cfg_fail(c, w->pid_node, "no process with pid %d",
					(int)cfg->target.pid);
		if (cfg->target.pid == getpid())
			return cfg_fail(c, w->pid_node, "pid %d is iopsample itself",
					(int)cfg->target.pid);
		return 0;
	}

	char *cwd = path_join(cfg->dir, w->cwd ? w->cwd : ".");
	char *real = realpath(cwd, NULL);
	struct stat st;
	if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int e = errno;
		free(real);
		free(cwd);
		if (!w->cwd_node)
			return errbuf_set(c->err, e, "%s: %s", cfg->dir, strerror(e));
		return cfg_fail(c, w->cwd_node, "cwd %s: %s", w->cwd,
				real ? "not a directory" : strerror(e));
	}
	free(cwd);
	cfg->target.cwd = real;
	return 0;
}

struct source_walk {
	struct source_config *sc;
	char section[64];
};

static int source_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		      yaml_node_t *v)
{
	struct source_walk *sw = arg;
	struct source_config *sc = sw->sc;

	if (!strcmp(key, "interval"))
		return cfg_duration(c, v, INTERVAL_MIN_NS, INTERVAL_MAX_NS, &sc->interval_ns);
	if (!strcmp(key, "available_in_deployment"))
		return cfg_bool(c, v, &sc->available_in_deployment);
	if (!strcmp(key, "required"))
		return cfg_bool(c, v, &sc->required);
	if (sc->ops->parse_key) {
		int r = sc->ops->parse_key(sc->priv, c, key, v);
		if (r != -ENOENT)
			return r;
	}
	return cfg_unknown_key(c, key_node, key, sw->section);
}

int source_config_init(struct source_config *sc, const struct collector_ops *ops)
{
	*sc = (struct source_config){
		.ops = ops,
		.interval_ns = INTERVAL_DEFAULT_NS,
		.available_in_deployment = ops->available_in_deployment,
		.required = true,
	};
	if (ops->priv_size && !(sc->priv = calloc(1, ops->priv_size)))
		return -ENOMEM;
	if (ops->init)
		ops->init(sc->priv);
	return 0;
}

static int sources_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		       yaml_node_t *v)
{
	struct walk *w = arg;
	struct config *cfg = w->cfg;
	const struct collector_ops *ops = collector_find(key);

	if (!ops) {
		char known[256] = "";
		for (const struct collector_ops *const *o = collector_registry; *o; o++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
				 *known ? ", " : "", (*o)->name);
		return cfg_fail(c, key_node, "unknown source \"%s\" (known: %s)", key, known);
	}
	struct source_config *s = reallocarray(cfg->sources, cfg->nsources + 1, sizeof(*s));
	if (!s)
		return errbuf_set(c->err, ENOMEM, "out of memory");
	cfg->sources = s;
	struct source_config *sc = &s[cfg->nsources++];
	if (source_config_init(sc, ops) < 0)
		return errbuf_set(c->err, ENOMEM, "out of memory");
	if (cfg_is_null(v))
		return 0;
	struct source_walk sw = {.sc = sc};
	snprintf(sw.section, sizeof(sw.section), "sources.%s", key);
	return cfg_each_key(c, v, sw.section, source_key, &sw);
}

static int output_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		      yaml_node_t *v)
{
	struct config *cfg = ((struct walk *)arg)->cfg;
	if (!strcmp(key, "compression")) {
		const char *s;
		int r = cfg_string(c, v, &s);
		if (r < 0)
			return r;
		if (!strcmp(s, "none"))
			cfg->output.compression = COMPRESSION_NONE;
		else if (!strcmp(s, "zstd"))
			cfg->output.compression = COMPRESSION_ZSTD;
		else
			return cfg_fail(c, v, "expected none or zstd, got \"%s\"", s);
		return 0;
	}
	if (!strcmp(key, "zstd_level")) {
		long long level;
		int r = cfg_int(c, v, ZSTD_minCLevel(), ZSTD_maxCLevel(), &level);
		cfg->output.zstd_level = (int)level;
		return r;
	}
	return cfg_unknown_key(c, key_node, key, "output");
}

static int top_key(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
		   yaml_node_t *v)
{
	struct walk *w = arg;
	if (!strcmp(key, "episode")) {
		w->episode_node = v;
		return cfg_each_key(c, v, "episode", episode_key, w);
	}
	if (!strcmp(key, "target")) {
		w->target_node = v;
		return cfg_each_key(c, v, "target", target_key, w);
	}
	if (!strcmp(key, "sources")) {
		if (cfg_is_null(v))
			return 0;
		return cfg_each_key(c, v, "sources", sources_key, w);
	}
	if (!strcmp(key, "output"))
		return cfg_each_key(c, v, "output", output_key, w);
	return cfg_unknown_key(c, key_node, key, "the config (expected episode, target, sources, output)");
}

/* ---- loading ----------------------------------------------------------- */

static void set_defaults(struct config *cfg)
{
	cfg->episode.output_dir = path_join(cfg->dir, "episodes");
	cfg->episode.stop_signal = SIGTERM;
	cfg->episode.grace_ns = 5 * NS_PER_S;
	cfg->target.stdout_mode = OUT_FILE;
	cfg->target.stderr_mode = OUT_FILE;
	cfg->output.compression = COMPRESSION_NONE;
	cfg->output.zstd_level = 3;
}

static int walk_document(struct config *cfg, const struct config_args *args, struct cfg_ctx *c)
{
	yaml_document_t *doc = c->doc;
	yaml_node_t *root = yaml_document_get_root_node(doc);
	if (!root)
		return errbuf_set(c->err, EINVAL, "%s:1:1: the config is empty", cfg->path);
	if (root->type != YAML_MAPPING_NODE)
		return cfg_fail(c, root, "the config must be a mapping with episode, target and sources");

	/* Overrides go in before the walk so their values are checked like the
	 * file's. --name is the override episode.name; the manifest records every
	 * override as KEY=VALUE. */
	size_t n = args ? args->nset + (args->name ? 1 : 0) : 0;
	cfg->overrides = calloc(n + 1, sizeof(char *));
	c->labels = calloc(n + 1, sizeof(char *));
	if (!cfg->overrides || !c->labels)
		return errbuf_set(c->err, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		bool is_name = args->name && i == args->nset;
		char *kv, *label;
		if (is_name ? asprintf(&kv, "episode.name=%s", args->name) < 0
			    : !(kv = strdup(args->set[i])))
			return errbuf_set(c->err, ENOMEM, "out of memory");
		cfg->overrides[cfg->noverrides++] = kv;
		if (asprintf(&label, "%s %s", is_name ? "--name" : "--set",
			     is_name ? args->name : kv) < 0)
			return errbuf_set(c->err, ENOMEM, "out of memory");
		c->labels[c->nlabels++] = label;

		int r = config_override(c, kv, label);
		if (r < 0)
			return r;
	}

	root = yaml_document_get_root_node(doc); /* the overrides may have moved it */
	struct walk w = {.cfg = cfg, .c = c};
	int r = cfg_each_key(c, root, "the config", top_key, &w);
	if (r < 0)
		return r;
	if (!w.episode_node)
		return cfg_fail(c, root, "missing episode (with at least a name)");
	if (!w.name_node)
		return cfg_fail(c, w.episode_node, "episode.name is required");
	if (!w.target_node)
		return cfg_fail(c, root, "missing target (a command or a pid)");
	return target_check(&w);
}

static int load_document(struct config *cfg, const struct config_args *args, struct errbuf *err)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	struct cfg_ctx c = {.doc = &doc, .file = cfg->path, .err = err};
	int r;

	r = cfg_load(&parser, &doc, cfg->path, cfg->text, cfg->text_len, err);
	if (r < 0)
		return r;
	r = walk_document(cfg, args, &c);
	if (r == 0) {
		/* One episode per file: a second document is a mistake, not ignored. */
		if (!yaml_parser_load(&parser, &extra)) {
			r = cfg_parse_error(&parser, cfg->path, cfg->text, err);
		} else {
			yaml_node_t *root = yaml_document_get_root_node(&extra);
			if (root)
				r = errbuf_set(err, EINVAL,
					       "%s:%zu:%zu: a second YAML document; a config holds one episode",
					       cfg->path, root->start_mark.line + 1,
					       root->start_mark.column + 1);
			yaml_document_delete(&extra);
		}
	}
	for (size_t i = 0; i < c.nlabels; i++)
		free(c.labels[i]);
	free(c.labels);
	free(c.overrides);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return r;
}

int config_load_buffer(const char *name, const char *text, size_t len, const char *dir,
		       const struct config_args *args, struct config *cfg, struct errbuf *err)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->path = xstrdup(name);
	cfg->dir = xstrdup(dir);
	cfg->text = malloc(len + 1);
	if (!cfg->text)
		return errbuf_set(err, ENOMEM, "out of memory");
	memcpy(cfg->text, text, len);
	cfg->text[len] = '\0';
	cfg->text_len = len;
	set_defaults(cfg);

	int r = load_document(cfg, args, err);
	if (r == 0 && args && args->output_dir) {
		if (!*args->output_dir) {
			r = errbuf_set(err, EINVAL, "--output-dir: empty path");
		} else {
			char cwd[PATH_MAX];
			if (!getcwd(cwd, sizeof(cwd))) {
				r = errbuf_set(err, errno, "getcwd: %s", strerror(errno));
			} else {
				free(cfg->episode.output_dir);
				cfg->episode.output_dir = path_join(cwd, args->output_dir);
			}
		}
	}
	if (r < 0)
		config_free(cfg);
	return r;
}

/* The whole of fd, at most CONFIG_MAX_BYTES, into a malloc'd *text. */
static int read_config(int fd, const char *name, char **text, size_t *len, struct errbuf *err)
{
	size_t cap = 0;
	*text = NULL;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 4096;
			char *t = realloc(*text, cap + 1);
			if (!t)
				return errbuf_set(err, ENOMEM, "out of memory");
			*text = t;
		}
		ssize_t n = read(fd, *text + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errbuf_set(err, errno, "%s: %s", name, strerror(errno));
		if (n == 0)
			return 0;
		*len += (size_t)n;
		if (*len > CONFIG_MAX_BYTES)
			return errbuf_set(err, EFBIG, "%s: larger than %d bytes; not an episode config",
					  name, CONFIG_MAX_BYTES);
	}
}

int config_load_file(const char *path, const struct config_args *args, struct config *cfg,
		     struct errbuf *err)
{
	char *text = NULL, *dir = NULL;
	size_t len = 0;
	int r = 0;
	if (!strcmp(path, "-")) {
		/* standard input: relative paths resolve against the current directory */
		path = CONFIG_STDIN_NAME;
		if ((r = read_config(STDIN_FILENO, path, &text, &len, err)) == 0 &&
		    !(dir = getcwd(NULL, 0)))
			r = errbuf_set(err, errno, "getcwd: %s", strerror(errno));
	} else {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			return errbuf_set(err, errno, "%s: %s", path, strerror(errno));
		if (fstat(fd, &st) < 0)
			r = errbuf_set(err, errno, "%s: %s", path, strerror(errno));
		else if (!S_ISREG(st.st_mode))
			r = errbuf_set(err, EINVAL, "%s: not a regular file", path);
		else
			r = read_config(fd, path, &text, &len, err);
		close(fd);
		if (r == 0 && !(dir = realpath(path, NULL)))
			r = errbuf_set(err, errno, "%s: %s", path, strerror(errno));
		if (r == 0) {
			char *slash = strrchr(dir, '/');
			*(slash == dir ? slash + 1 : slash) = '\0';
		}
	}
	if (r == 0)
		r = config_load_buffer(path, text ? text : "", len, dir, args, cfg, err);
	free(dir);
	free(text);
	return r;
}

void config_free(struct config *cfg)
{
	free(cfg->path);
	free(cfg->dir);
	free(cfg->text);
	for (size_t i = 0; i < cfg->noverrides; i++)
		free(cfg->overrides[i]);
	free(cfg->overrides);
	free(cfg->episode.name);
	free(cfg->episode.output_dir);
	kv_free(&cfg->episode.labels);
	argv_free(cfg->target.argv);
	free(cfg->target.cwd);
	kv_free(&cfg->target.env);
	for (size_t i = 0; i < cfg->nsources; i++) {
		if (cfg->sources[i].priv && cfg->sources[i].ops->release)
			cfg->sources[i].ops->release(&cfg->sources[i]);
		free(cfg->sources[i].priv);
	}
	free(cfg->sources);
	memset(cfg, 0, sizeof(*cfg));
}

static json_t *kv_json(const struct kv_list *l)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->items[i].key, json_string(l->items[i].value));
	return o;
}

static json_t *duration_json(int64_t ns)
{
	char buf[32];
	duration_format(ns, buf, sizeof(buf));
	return json_string(buf);
}

static const char *out_mode_name(enum out_mode m)
{
	return m == OUT_FILE ? "file" : m == OUT_INHERIT ? "inherit" : "null";
}

json_t *config_to_json(const struct config *cfg)
{
	char sig[32];
	json_t *episode = json_pack("{s:s, s:s, s:o, s:s, s:o, s:o}", "name", cfg->episode.name,
				    "output_dir", cfg->episode.output_dir, "duration",
				    cfg->episode.duration_ns ? duration_json(cfg->episode.duration_ns)
							     : json_null(),
				    "stop_signal", signame(cfg->episode.stop_signal, sig, sizeof(sig)),
				    "grace", duration_json(cfg->episode.grace_ns), "labels",
				    kv_json(&cfg->episode.labels));
	json_object_set_new(episode, "cgroup", json_string(cfg->episode.cgroup_off ? "off" : "auto"));

	json_t *target;
	if (cfg->target.pid > 0) {
		target = json_pack("{s:i}", "pid", (int)cfg->target.pid);
	} else {
		json_t *command;
		if (cfg->target.shell) {
			command = json_string(cfg->target.argv[2]);
		} else {
			command = json_array();
			for (char **a = cfg->target.argv; *a; a++)
				json_array_append_new(command, json_string(*a));
		}
		target = json_pack("{s:o, s:s, s:o, s:s, s:s}", "command", command, "cwd",
				   cfg->target.cwd, "env", kv_json(&cfg->target.env), "stdout",
				   out_mode_name(cfg->target.stdout_mode), "stderr",
				   out_mode_name(cfg->target.stderr_mode));
	}

	json_t *sources = json_object();
	for (size_t i = 0; i < cfg->nsources; i++) {
		const struct source_config *sc = &cfg->sources[i];
		json_t *s = json_pack("{s:o, s:b, s:b}", "interval", duration_json(sc->interval_ns),
				      "available_in_deployment", sc->available_in_deployment,
				      "required", sc->required);
		if (sc->ops->describe)
			sc->ops->describe(sc->priv, s);
		json_object_set_new(sources, sc->ops->name, s);
	}

	json_t *output = json_pack("{s:s, s:i}", "compression",
				   cfg->output.compression == COMPRESSION_ZSTD ? "zstd" : "none",
				   "zstd_level", cfg->output.zstd_level);

	return json_pack("{s:o, s:o, s:o, s:o}", "episode", episode, "target", target, "sources",
			 sources, "output", output);
}
