/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Typed reading of YAML nodes, every error carrying the node's file:line:col.
 *
 * config.c uses these for the episode, target and output sections and hands the
 * same context to each source's parse_key(), so a source's keys are checked and
 * reported exactly like the built-in ones. */
#ifndef IOPSAMPLE_CONFIG_YAML_H
#define IOPSAMPLE_CONFIG_YAML_H

#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>

#include "log.h"

/* A node an override created has no place in the file; it is named by the
 * override's own text instead. */
struct cfg_override_node {
	int index;
	const char *label; /* "--set episode.duration=30s" */
};

struct cfg_ctx {
	yaml_document_t *doc;
	const char *file;
	struct cfg_override_node *overrides;
	size_t noverrides;
	char **labels; /* the override texts the nodes above point at */
	size_t nlabels;
	struct errbuf *err;
	bool failed;
};

/* Records "FILE:LINE:COL: message" (or "--set KEY=VALUE: message" for a node
 * an override created) and returns -EINVAL. The first error wins. */
int cfg_fail(struct cfg_ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

yaml_node_t *cfg_node(struct cfg_ctx *c, int index);

/* A parser's failure on text (file's) as "FILE:LINE:COL: problem"; a
 * reader error (encoding, control characters), which knows only the byte,
 * is placed by counting lines in text. Returns -EINVAL. */
int cfg_parse_error(const yaml_parser_t *p, const char *file, const char *text, struct errbuf *e);

/* The deepest lists and mappings may nest in a file, the root counting as
 * one; a config nests 4 deep. */
#define CFG_MAX_DEPTH 64

/* Initializes parser over text (len bytes, NUL-terminated; file names it)
 * and loads its first document into doc, once the whole stream's events
 * have been walked: a file that nests deeper than CFG_MAX_DEPTH is refused
 * at the first list or mapping too deep, before anything is built (libyaml
 * loads in time quadratic in the depth: 100 000 '[' take a minute). On
 * success the caller deletes doc and parser (which may load more); on
 * failure (-EINVAL, -ENOMEM, with e) there is nothing to delete. */
int cfg_load(yaml_parser_t *parser, yaml_document_t *doc, const char *file, const char *text,
	     size_t len, struct errbuf *e);

/* Plain ~, null or an empty value. */
bool cfg_is_null(const yaml_node_t *n);
/* Any scalar but null; *out points into the document. */
int cfg_string(struct cfg_ctx *c, const yaml_node_t *n, const char **out);
/* A string that is one of names[0..n) (a backend), its index into *out;
 * else "unknown WHAT \"x\" (a, b or c)". */
int cfg_choice(struct cfg_ctx *c, const yaml_node_t *node, const char *what,
	       const char *const *names, size_t n, int *out);
/* Plain true or false. */
int cfg_bool(struct cfg_ctx *c, const yaml_node_t *n, bool *out);
/* A plain decimal integer within [min, max]. */
int cfg_int(struct cfg_ctx *c, const yaml_node_t *n, long long min, long long max, long long *out);
/* A duration string within [min_ns, max_ns]. */
int cfg_duration(struct cfg_ctx *c, const yaml_node_t *n, int64_t min_ns, int64_t max_ns,
		 int64_t *out);

/* Calls fn for each key of a mapping, in order. Rejects a value that is not a
 * mapping (what names it in the message), keys that are not scalars, and keys
 * given twice. fn returns 0, or a negative errno after cfg_fail(). */
typedef int (*cfg_key_fn)(void *arg, struct cfg_ctx *c, const char *key, yaml_node_t *key_node,
			  yaml_node_t *value);
int cfg_each_key(struct cfg_ctx *c, yaml_node_t *map, const char *what, cfg_key_fn fn, void *arg);

/* Calls fn for each item of a non-empty list of names (strings), in order.
 * Rejects anything else as "KEY must be a list of ITEM names" and an empty
 * list as "KEY must name at least one ITEM". fn returns 0, or a negative
 * errno after cfg_fail(). */
typedef int (*cfg_name_fn)(void *arg, struct cfg_ctx *c, const char *name, yaml_node_t *item);
int cfg_each_name(struct cfg_ctx *c, yaml_node_t *list, const char *key, const char *item,
		  cfg_name_fn fn, void *arg);

/* The standard message for a key nobody knows. */
int cfg_unknown_key(struct cfg_ctx *c, const yaml_node_t *key_node, const char *key,
		    const char *section);

#endif
