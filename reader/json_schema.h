/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* JSON Schema (draft 2020-12) validation with jansson, for the keywords
 * schema/ uses: type, enum, const, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, minLength, maxLength, pattern, required, properties,
 * patternProperties, additionalProperties, unevaluatedProperties,
 * propertyNames, minProperties, maxProperties, items, minItems, maxItems,
 * uniqueItems, allOf, anyOf, oneOf, not, $ref (within a file and to another
 * file of the set by its name) and $defs (or its draft-7 name, definitions),
 * with our own annotations x-... ignored. A schema with any other keyword
 * fails to load rather than be half-checked. tests/unit/test_jschema_suite.c
 * runs the JSON-Schema-Test-Suite's cases for these keywords. */
#ifndef IOPSAMPLE_JSON_SCHEMA_H
#define IOPSAMPLE_JSON_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "log.h"

struct jschema_set;

struct jschema_text {
	const char *name; /* "proc_io.schema.json": its $id, if it has one, must end with it */
	const char *text;
};

/* NULL with why naming the file, and the line and column or the place in it. */
struct jschema_set *jschema_load(const struct jschema_text *texts, size_t n, struct errbuf *why);
void jschema_free(struct jschema_set *set);

/* Is there a schema called name (without ".schema.json")? */
bool jschema_has(const struct jschema_set *set, const char *name);

/* The schema of a top-level property of schema `name`, NULL when it has
 * none of that name: for its annotations ("x-gauge"). */
const json_t *jschema_property(const struct jschema_set *set, const char *name, const char *key);
/* Its position among the schema's properties (file order), SIZE_MAX when
 * the schema does not list it: for a stable column order. */
/* Within name's schema, the part that describes a member key of what
 * schema describes (properties, else the patternProperties that match it,
 * else additionalProperties), or its array
 * elements when key is NULL (items); a "$ref" into the same schema's
 * "$defs" is followed on the way. NULL when the schema says nothing. */
const json_t *jschema_sub(const struct jschema_set *set, const char *name, const json_t *schema,
			  const char *key);
size_t jschema_property_rank(const struct jschema_set *set, const char *name, const char *key);
/* Schema `name` itself, NULL when the set has none of that name. */
const json_t *jschema_root(const struct jschema_set *set, const char *name);
/* schema, or what its "$ref" into the $defs of name's schema points at. */
const json_t *jschema_deref(const struct jschema_set *set, const char *name, const json_t *schema);

/* where: the JSON pointer of the offending value ("" for the whole instance). */
typedef void (*jschema_report)(void *arg, const char *where, const char *what);

/* Checks instance against schema `name`; calls report once per problem and
 * returns how many there were. */
size_t jschema_validate(const struct jschema_set *set, const char *name, const json_t *instance,
			jschema_report report, void *arg);

#endif
