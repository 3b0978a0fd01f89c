// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The numbers a source's rows hold: see row_shape.h. */
#define _GNU_SOURCE
#include "row_shape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shape_node {
	enum { SN_LEAF, SN_ARRAY, SN_OBJECT, SN_NAME } kind; /* SN_NAME: a string, no column */
	char *key;  /* its name in the parent object (NULL in an array) */
	char *name; /* the dotted path: the leaf's name, or a container's */
	size_t n;   /* members of an array or object */
	struct shape_node *kid;
	size_t leaf; /* SN_LEAF: its index */
	/* an object whose members come and go ("x-keys": "varying"): what
	 * learning a new member needs */
	bool varying;
	size_t rank;
	enum cell_rule rule;
	const char *unit;
	const json_t *schema;
};

static const char *const rule_names[] = {
	[CELL_SUM] = "sum", [CELL_MAX] = "max", [CELL_MIN] = "min", [CELL_RATIO] = "ratio",
	[CELL_MEAN] = "mean"};

/* How a value combines in a cell, from the part of the schema that
 * describes it (prop): its own x-cell or x-gauge, else what holds it says
 * (rule as given: a histogram's buckets are counts like the array). */
static int node_rule(const json_t *prop, const char *source, const char *name,
		     enum cell_rule *rule, struct errbuf *e)
{
	const json_t *x = json_object_get(prop, "x-cell");
	if (json_is_true(json_object_get(prop, "x-gauge")))
		*rule = CELL_MAX;
	if (!x)
		return 0;
	for (size_t i = 0; i < sizeof(rule_names) / sizeof(rule_names[0]); i++)
		if (json_is_string(x) && !strcmp(json_string_value(x), rule_names[i])) {
			*rule = (enum cell_rule)i;
			return 0;
		}
	return errbuf_set(e, EINVAL, "%s.%s: the schema's x-cell is not sum, max, min, ratio or mean",
			  source, name);
}

static int add_leaf(struct row_shape *s, struct shape_node *node, size_t rank,
		    enum cell_rule rule, const char *unit)
{
	size_t n = s->n + 1;
	const char **units = realloc(s->unit, n * sizeof(*units));
	if (!units)
		return -ENOMEM;
	s->unit = units;
	s->unit[s->n] = unit;
	char **name = realloc(s->name, n * sizeof(*name));
	if (name)
		s->name = name;
	size_t *ranks = realloc(s->rank, n * sizeof(*ranks));
	if (ranks)
		s->rank = ranks;
	struct cell_leaf *leaf = realloc(s->leaf, n * sizeof(*leaf));
	if (leaf)
		s->leaf = leaf;
	if (!name || !ranks || !leaf)
		return -ENOMEM;
	node->leaf = s->n;
	s->name[s->n] = node->name;
	s->rank[s->n] = rank;
	s->leaf[s->n] = (struct cell_leaf){.rule = rule, .num = -1, .den = -1};
	s->n = n;
	return 0;
}

/* Whether the schema's part says a string, or a string or null: a name. */
static bool names_only(const json_t *schema)
{
	const json_t *type = json_object_get(schema, "type");
	if (json_is_string(type))
		return !strcmp(json_string_value(type), "string");
	bool string = false;
	size_t i;
	const json_t *t;
	json_array_foreach(type, i, t) {
		if (!json_is_string(t))
			return false;
		if (!strcmp(json_string_value(t), "string"))
			string = true;
		else if (strcmp(json_string_value(t), "null"))
			return false;
	}
	return string;
}

/* node's shape from v; schema is the part of the source's schema that
 * describes it, rule how it combines unless that part says otherwise;
 * inside, whether it is inside an object whose members come and go (then
 * so do its own: a mount point unmounted and mounted again, as another
 * file system). */
static int learn(struct row_shape *s, struct shape_node *node, const json_t *v, size_t rank,
		 enum cell_rule rule, const char *unit, const json_t *schema,
		 const struct jschema_set *schemas, const char *source, bool inside, struct errbuf *e)
{
	int r = node_rule(schema, source, node->name, &rule, e);
	if (r < 0)
		return r;
	if (json_is_string(json_object_get(schema, "x-unit")))
		unit = json_string_value(json_object_get(schema, "x-unit"));
	const json_t *keys = json_object_get(schema, "x-keys");
	if (json_is_object(v) && (inside || (json_is_string(keys) && !strcmp(json_string_value(keys), "varying")))) {
		node->varying = true;
		node->rank = rank;
		node->rule = rule;
		node->unit = unit;
		node->schema = schema;
		s->varying = true;
	}
	if (json_is_array(v) || json_is_object(v)) {
		node->kind = json_is_array(v) ? SN_ARRAY : SN_OBJECT;
		node->n = json_is_array(v) ? json_array_size(v) : json_object_size(v);
		node->kid = calloc(node->n ? node->n : 1, sizeof(*node->kid));
		if (!node->kid)
			return -ENOMEM;
		size_t i = 0;
		const char *key;
		const json_t *sub;
		if (json_is_array(v)) {
			for (i = 0; i < node->n; i++)
				if (asprintf(&node->kid[i].name, "%s.%zu", node->name, i) < 0)
					return -ENOMEM;
		} else {
			json_object_foreach((json_t *)v, key, sub) {
				node->kid[i].key = strdup(key);
				if (!node->kid[i].key ||
				    asprintf(&node->kid[i].name, "%s.%s", node->name, key) < 0)
					return -ENOMEM;
				i++;
			}
		}
		for (i = 0; i < node->n; i++) {
			sub = node->kind == SN_ARRAY ? json_array_get(v, i)
						     : json_object_get(v, node->kid[i].key);
			const json_t *sub_schema = jschema_sub(schemas, source, schema, node->kid[i].key);
			r = learn(s, &node->kid[i], sub, rank, rule, unit, sub_schema, schemas, source, node->varying, e);
			if (r < 0)
				return r;
		}
		return 0;
	}
	/* a name (a mount's point, its file system's type): no cell's number */
	if (names_only(schema)) {
		node->kind = SN_NAME;
		return 0;
	}
	node->kind = SN_LEAF;
	if (!json_is_number(v) && !json_is_null(v))
		return errbuf_set(e, EINVAL, "%s: not a number", node->name);
	if (json_is_real(v) && rule == CELL_SUM)
		return errbuf_set(e, EINVAL,
				  "%s: a real number, and the %s schema does not say how it "
				  "combines in a grid cell (x-cell)",
				  node->name, source);
	return add_leaf(s, node, rank, rule, unit);
}

int row_shape_learn(struct row_shape *s, const struct jschema_set *schemas, const char *source,
		    const json_t *row, struct errbuf *e)
{
	memset(s, 0, sizeof(*s));
	s->schemas = schemas;
	s->source = source;
	s->root = calloc(1, sizeof(*s->root));
	if (!s->root)
		return errbuf_set(e, ENOMEM, "out of memory");
	s->root->kind = SN_OBJECT;
	s->row_keys = json_object_size(row);
	const char *key;
	const json_t *v;
	size_t fields = 0;
	json_object_foreach((json_t *)row, key, v)
		fields += !jschema_property(schemas, "envelope", key);
	s->root->kid = calloc(fields ? fields : 1, sizeof(*s->root->kid));
	if (!s->root->kid)
		return errbuf_set(e, ENOMEM, "out of memory");
	json_object_foreach((json_t *)row, key, v) {
		if (jschema_property(schemas, "envelope", key))
			continue;
		struct shape_node *node = &s->root->kid[s->root->n++];
		node->key = strdup(key);
		node->name = strdup(key);
		if (!node->key || !node->name)
			return errbuf_set(e, ENOMEM, "out of memory");
		int r = learn(s, node, v, jschema_property_rank(schemas, source, key), CELL_SUM, NULL,
			      jschema_property(schemas, source, key), schemas, source, false, e);
		if (r == -ENOMEM)
			return errbuf_set(e, ENOMEM, "out of memory");
		if (r < 0)
			return r;
	}
	return 0;
}

/* The members of v node has not learned, learned where node varies; the
 * members it has, looked into. */
static int grow_node(struct row_shape *s, struct shape_node *node, const json_t *v, struct errbuf *e)
{
	if (node->kind != SN_OBJECT || !json_is_object(v))
		return 0;
	const char *key;
	const json_t *sub;
	json_object_foreach((json_t *)v, key, sub) {
		struct shape_node *kid = NULL;
		for (size_t i = 0; i < node->n && !kid; i++)
			if (!strcmp(node->kid[i].key, key))
				kid = &node->kid[i];
		if (!kid && node->varying) {
			struct shape_node *kids = reallocarray(node->kid, node->n + 1, sizeof(*kids));
			if (!kids)
				return errbuf_set(e, ENOMEM, "out of memory");
			node->kid = kids;
			kid = memset(&node->kid[node->n++], 0, sizeof(*kid));
			if (!(kid->key = strdup(key)) || asprintf(&kid->name, "%s.%s", node->name, key) < 0)
				return errbuf_set(e, ENOMEM, "out of memory");
			int r = learn(s, kid, sub, node->rank, node->rule, node->unit,
				      jschema_sub(s->schemas, s->source, node->schema, key), s->schemas, s->source, true,
				      e);
			if (r == -ENOMEM)
				return errbuf_set(e, ENOMEM, "out of memory");
			if (r < 0)
				return r;
			continue;
		}
		int r = kid ? grow_node(s, kid, sub, e) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

int row_shape_grow(struct row_shape *s, const json_t *row, struct errbuf *e)
{
	if (!s->varying)
		return 0;
	for (size_t i = 0; i < s->root->n; i++) {
		int r = grow_node(s, &s->root->kid[i], json_object_get(row, s->root->kid[i].key), e);
		if (r < 0)
			return r;
	}
	return 0;
}

bool row_shape_leaf_varies(const struct jschema_set *schemas, const char *source, char *const *keys,
			   enum cell_rule *rule)
{
	struct errbuf ignored;
	const json_t *schema = NULL;
	bool varies = false;
	*rule = CELL_SUM;
	for (size_t i = 0; keys[i]; i++) {
		schema = i ? jschema_sub(schemas, source, schema, keys[i]) : jschema_property(schemas, source, keys[0]);
		if (!schema)
			break;
		node_rule(schema, source, keys[i], rule, &ignored);
		const json_t *x = json_object_get(schema, "x-keys");
		if (keys[i + 1] && json_is_string(x) && !strcmp(json_string_value(x), "varying"))
			varies = true;
	}
	return varies;
}

static int leaf_named(const struct row_shape *s, const json_t *name)
{
	for (size_t i = 0; json_is_string(name) && i < s->n; i++)
		if (!strcmp(s->name[i], json_string_value(name)))
			return s->leaf[i].rule == CELL_SUM ? (int)i : -1;
	return -1;
}

void row_shape_ratios(struct row_shape *s, const json_t *ratios)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->leaf[i].rule != CELL_RATIO)
			continue;
		const json_t *in = json_object_get(ratios, s->name[i]);
		s->leaf[i].num = leaf_named(s, json_object_get(in, "numerator"));
		s->leaf[i].den = leaf_named(s, json_object_get(in, "denominator"));
	}
}

/* A member a row of a varying object lacks: its leaves null. */
static void null_node(const struct shape_node *node, struct value *out)
{
	if (node->kind == SN_LEAF)
		out[node->leaf] = (struct value){.kind = VAL_NULL};
	for (size_t i = 0; (node->kind == SN_ARRAY || node->kind == SN_OBJECT) && i < node->n; i++)
		null_node(&node->kid[i], out);
}

static int read_node(const struct row_shape *s, const struct shape_node *node, const json_t *v,
		     struct value *out, struct errbuf *e)
{
	if (node->kind == SN_ARRAY || node->kind == SN_OBJECT) {
		bool array = node->kind == SN_ARRAY;
		if (array ? !json_is_array(v) || json_array_size(v) != node->n
			  : !json_is_object(v) || (json_object_size(v) != node->n && !node->varying))
			return errbuf_set(e, EINVAL, "%s: not an %s of %zu like the first row's",
					  node->name, array ? "array" : "object", node->n);
		/* a varying object's members: those learned, null where the row
		 * lacks them; one not learned has no column */
		for (size_t i = 0; i < node->n; i++) {
			const json_t *sub = array ? json_array_get(v, i)
						  : json_object_get(v, node->kid[i].key);
			if (!sub && node->varying) {
				null_node(&node->kid[i], out);
				continue;
			}
			if (!sub)
				return errbuf_set(e, EINVAL, "%s: missing, unlike in the first row",
						  node->kid[i].name);
			int r = read_node(s, &node->kid[i], sub, out, e);
			if (r < 0)
				return r;
		}
		return 0;
	}
	if (node->kind == SN_NAME)
		return json_is_string(v) || json_is_null(v)
			       ? 0
			       : errbuf_set(e, EINVAL, "%s: not a string", node->name);
	struct value *o = &out[node->leaf];
	enum cell_rule rule = s->leaf[node->leaf].rule;
	if (json_is_null(v) || (rule == CELL_RATIO && !s->keep_ratios)) /* export recomputes it */
		*o = (struct value){.kind = VAL_NULL};
	else if (json_is_integer(v))
		*o = (struct value){.kind = VAL_INT, .i = json_integer_value(v)};
	else if (json_is_real(v) && rule != CELL_SUM)
		*o = (struct value){.kind = VAL_REAL, .d = json_real_value(v)};
	else
		return errbuf_set(e, EINVAL, "%s: not %s", node->name,
				  rule == CELL_SUM ? "an integer count" : "a number");
	if (rule == CELL_SUM && o->kind == VAL_INT && o->i < 0)
		return errbuf_set(e, EINVAL, "%s: a negative count", node->name);
	return 0;
}

int row_shape_read(const struct row_shape *s, const json_t *row, struct value *out,
		   struct errbuf *e)
{
	if (!json_is_object(row) || json_object_size(row) != s->row_keys)
		return errbuf_set(e, EINVAL, "its keys differ from the first row's");
	for (size_t i = 0; i < s->root->n; i++) {
		const struct shape_node *field = &s->root->kid[i];
		const json_t *v = json_object_get(row, field->key);
		if (!v)
			return errbuf_set(e, EINVAL, "%s: missing, unlike in the first row",
					  field->name);
		int r = read_node(s, field, v, out, e);
		if (r < 0)
			return r;
	}
	return 0;
}

static void free_node(struct shape_node *node)
{
	for (size_t i = 0; node->kid && i < node->n; i++)
		free_node(&node->kid[i]);
	free(node->kid);
	free(node->key);
	free(node->name);
}

void row_shape_free(struct row_shape *s)
{
	if (s->root)
		free_node(s->root);
	free(s->root);
	free(s->name);
	free(s->rank);
	free(s->leaf);
	free(s->unit);
	memset(s, 0, sizeof(*s));
}
