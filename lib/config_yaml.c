// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Typed reads of YAML scalars and mappings with positioned errors. */
#include "config_yaml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"

static int node_index(const struct cfg_ctx *c, const yaml_node_t *n)
{
	return (int)(n - c->doc->nodes.start) + 1;
}

int cfg_fail(struct cfg_ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	if (c->failed)
		return -EINVAL;
	c->failed = true;

	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* quoted values may hold newlines or escapes; the message stays one line */
	for (char *p = what; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';

	if (n) {
		int idx = node_index(c, n);
		for (size_t i = 0; i < c->noverrides; i++) {
			if (c->overrides[i].index == idx) {
				errbuf_set(c->err, EINVAL, "%s: %s", c->overrides[i].label, what);
				return -EINVAL;
			}
		}
		errbuf_set(c->err, EINVAL, "%s:%zu:%zu: %s", c->file, n->start_mark.line + 1,
			   n->start_mark.column + 1, what);
	} else {
		errbuf_set(c->err, EINVAL, "%s:1:1: %s", c->file, what);
	}
	return -EINVAL;
}

yaml_node_t *cfg_node(struct cfg_ctx *c, int index)
{
	return yaml_document_get_node(c->doc, index);
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool plain(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

bool cfg_is_null(const yaml_node_t *n)
{
	if (!plain(n))
		return false;
	const char *s = scalar(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static const char *kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	default:
		return cfg_is_null(n) ? "null" : "a scalar";
	}
}

int cfg_string(struct cfg_ctx *c, const yaml_node_t *n, const char **out)
{
	if (n->type != YAML_SCALAR_NODE || cfg_is_null(n))
		return cfg_fail(c, n, "expected a string, got %s", kind(n));
	*out = scalar(n);
	return 0;
}

int cfg_choice(struct cfg_ctx *c, const yaml_node_t *node, const char *what,
	       const char *const *names, size_t n, int *out)
{
	const char *name = NULL;
	int r = cfg_string(c, node, &name);
	if (r < 0)
		return r;
	char list[256] = "";
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(name, names[i]))
			return *out = (int)i, 0;
		len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	}
	return cfg_fail(c, node, "unknown %s \"%s\" (%s)", what, name, list);
}

int cfg_bool(struct cfg_ctx *c, const yaml_node_t *n, bool *out)
{
	static const char *const yes[] = {"true", "True", "TRUE"};
	static const char *const no[] = {"false", "False", "FALSE"};
	if (plain(n)) {
		for (int i = 0; i < 3; i++) {
			if (!strcmp(scalar(n), yes[i]))
				return *out = true, 0;
			if (!strcmp(scalar(n), no[i]))
				return *out = false, 0;
		}
	}
	/* YAML 1.1's other booleans, strings in YAML 1.2 (which the config is) */
	static const char *const yaml11[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
					     "on", "On", "ON", "off", "Off", "OFF"};
	for (size_t i = 0; plain(n) && i < sizeof(yaml11) / sizeof(yaml11[0]); i++)
		if (!strcmp(scalar(n), yaml11[i]))
			return cfg_fail(c, n, "expected true or false, got \"%s\" (YAML 1.1's yes/no/on/off "
					"are not booleans in a YAML 1.2 config: write true or false)", scalar(n));
	if (n->type == YAML_SCALAR_NODE && !cfg_is_null(n))
		return cfg_fail(c, n, "expected true or false, got \"%s\"", scalar(n));
	return cfg_fail(c, n, "expected true or false, got %s", kind(n));
}

int cfg_int(struct cfg_ctx *c, const yaml_node_t *n, long long min, long long max, long long *out)
{
	if (!plain(n) || cfg_is_null(n))
		return cfg_fail(c, n, "expected an integer, got %s",
				n->type == YAML_SCALAR_NODE && !cfg_is_null(n) ? "a quoted string"
									  : kind(n));
	const char *s = scalar(n);
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || (*s != '-' && *s != '+' && (*s < '0' || *s > '9'))) {
		/* 1e3 and 10.0 are YAML floats: say how to write the integer */
		char *fend;
		double d = strtod(s, &fend);
		if (fend != s && !*fend && strpbrk(s, "eE.") && fabs(d) < 1e15 && d == floor(d))
			return cfg_fail(c, n, "expected an integer, got \"%s\" (write it in digits: %.0f)", s, d);
		return cfg_fail(c, n, "expected an integer, got \"%s\"", s);
	}
	if (errno == ERANGE || v < min || v > max)
		return cfg_fail(c, n, "%s is out of range (%lld to %lld)", s, min, max);
	*out = v;
	return 0;
}

int cfg_duration(struct cfg_ctx *c, const yaml_node_t *n, int64_t min_ns, int64_t max_ns,
		 int64_t *out)
{
	const char *s, *why;
	int64_t ns;
	if (n->type != YAML_SCALAR_NODE || cfg_is_null(n))
		return cfg_fail(c, n, "expected a duration such as 100ms, got %s", kind(n));
	s = scalar(n);
	if (duration_parse(s, &ns, &why) < 0)
		return cfg_fail(c, n, "invalid duration \"%s\": %s", s, why);
	if (ns < min_ns || ns > max_ns) {
		char lo[32], hi[32];
		duration_format(min_ns, lo, sizeof(lo));
		duration_format(max_ns, hi, sizeof(hi));
		return cfg_fail(c, n, "duration %s is out of range (%s to %s)", s, lo, hi);
	}
	*out = ns;
	return 0;
}

struct key_ref {
	const char *s;
	size_t i;
};

static int key_ref_cmp(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int r = strcmp(x->s, y->s);
	return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* The position (in document order) of the first key that repeats an earlier
 * one, or npairs when none does; *first gets the earlier one. Sorting keeps a
 * mapping with many keys linear-logarithmic rather than quadratic. */
static size_t first_duplicate(struct cfg_ctx *c, yaml_node_t *map, size_t npairs, size_t *first)
{
	size_t dup = npairs;
	struct key_ref *refs = calloc(npairs ? npairs : 1, sizeof(*refs));
	if (!refs)
		return npairs; /* no memory to check with; the walk still fails cleanly later */
	size_t n = 0;
	for (size_t i = 0; i < npairs; i++) {
		yaml_node_t *key = cfg_node(c, map->data.mapping.pairs.start[i].key);
		if (key->type == YAML_SCALAR_NODE)
			refs[n++] = (struct key_ref){scalar(key), i};
	}
	qsort(refs, n, sizeof(*refs), key_ref_cmp);
	for (size_t k = 1; k < n; k++) {
		/* refs[k] repeats the group's first member, which sorts first */
		if (!strcmp(refs[k].s, refs[k - 1].s) && refs[k].i < dup) {
			size_t g = k - 1;
			while (g > 0 && !strcmp(refs[g - 1].s, refs[k].s))
				g--;
			dup = refs[k].i;
			*first = refs[g].i;
		}
	}
	free(refs);
	return dup;
}

int cfg_each_key(struct cfg_ctx *c, yaml_node_t *map, const char *what, cfg_key_fn fn, void *arg)
{
	if (map->type != YAML_MAPPING_NODE)
		return cfg_fail(c, map, "%s must be a mapping, got %s", what, kind(map));

	size_t npairs = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	size_t first = 0;
	size_t dup = first_duplicate(c, map, npairs, &first);
	for (size_t i = 0; i < npairs; i++) {
		yaml_node_pair_t *pair = map->data.mapping.pairs.start + i;
		yaml_node_t *key = cfg_node(c, pair->key);
		yaml_node_t *value = cfg_node(c, pair->value);
		if (key->type != YAML_SCALAR_NODE)
			return cfg_fail(c, key, "keys in %s must be strings, got %s", what,
					kind(key));
		if (i == dup) {
			yaml_node_t *prev = cfg_node(c, map->data.mapping.pairs.start[first].key);
			return cfg_fail(c, key, "duplicate key \"%s\" in %s (first at line %zu)",
					scalar(key), what, prev->start_mark.line + 1);
		}
		int r = fn(arg, c, scalar(key), key, value);
		if (r < 0)
			return r;
	}
	return 0;
}

int cfg_each_name(struct cfg_ctx *c, yaml_node_t *list, const char *key, const char *item,
		  cfg_name_fn fn, void *arg)
{
	if (list->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, list, "%s must be a list of %s names", key, item);
	if (list->data.sequence.items.start == list->data.sequence.items.top)
		return cfg_fail(c, list, "%s must name at least one %s", key, item);
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top; it++) {
		yaml_node_t *node = cfg_node(c, *it);
		const char *name = NULL;
		int r = cfg_string(c, node, &name);
		if (r == 0)
			r = fn(arg, c, name, node);
		if (r < 0)
			return r;
	}
	return 0;
}

int cfg_unknown_key(struct cfg_ctx *c, const yaml_node_t *key_node, const char *key,
		    const char *section)
{
	return cfg_fail(c, key_node, "unknown key \"%s\" in %s", key, section);
}

int cfg_parse_error(const yaml_parser_t *p, const char *file, const char *text, struct errbuf *e)
{
	const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;
	size_t line = m->line, col = m->column;
	const char *what = p->problem ? p->problem : "invalid YAML";
	if (p->error == YAML_READER_ERROR) {
		/* the reader (encoding, control characters) knows only the byte */
		line = col = 0;
		for (size_t i = 0; i < p->problem_offset && text[i]; i++, col++)
			if (text[i] == '\n')
				line++, col = (size_t)-1;
	}
	if (p->context)
		return errbuf_set(e, EINVAL, "%s:%zu:%zu: %s %s", file, line + 1, col + 1, what,
				  p->context);
	return errbuf_set(e, EINVAL, "%s:%zu:%zu: %s", file, line + 1, col + 1, what);
}

/* Walks every event of the stream, tracking how deep lists and mappings
 * nest: the scanner behind it stays linear as long as the depth is
 * bounded, so the walk stops at the first level too deep. */
static int check_depth(const char *file, const char *text, size_t len, struct errbuf *e)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return errbuf_set(e, ENOMEM, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int depth = 0, r = 0;
	for (bool end = false; !end && r == 0;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			r = cfg_parse_error(&p, file, text, e);
			break;
		}
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > CFG_MAX_DEPTH)
				r = errbuf_set(e, EINVAL,
					       "%s:%zu:%zu: lists and mappings nested deeper than %d levels",
					       file, ev.start_mark.line + 1, ev.start_mark.column + 1,
					       CFG_MAX_DEPTH);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			end = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return r;
}

int cfg_load(yaml_parser_t *parser, yaml_document_t *doc, const char *file, const char *text,
	     size_t len, struct errbuf *e)
{
	int r = check_depth(file, text, len, e);
	if (r < 0)
		return r;
	if (!yaml_parser_initialize(parser))
		return errbuf_set(e, ENOMEM, "out of memory");
	yaml_parser_set_input_string(parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(parser, doc)) {
		r = cfg_parse_error(parser, file, text, e);
		yaml_parser_delete(parser);
		return r;
	}
	return 0;
}
