// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A JSON Schema validator small enough to read: a schema is walked once at
 * load (every keyword known, every pattern compiled, every $ref resolvable)
 * and then interpreted for each instance, keyword by keyword in a fixed
 * order so that unevaluatedProperties sees what the others evaluated. */
#define _GNU_SOURCE
#include "json_schema.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecma_regex.h"

struct jdoc {
	char *name;
	json_t *root;
};

struct jpattern {
	const char *source; /* points into a schema document */
	struct ecma_regex *re;
};

struct jschema_set {
	struct jdoc *docs;
	size_t ndocs;
	struct jpattern *patterns;
	size_t npatterns;
	const json_t **checked; /* while loading: the schemas walked so far */
	size_t nchecked;
};

/* ---- loading -------------------------------------------------------------- */

/* Keywords of JSON Schema (2020-12 and the drafts before it) this validator
 * does not implement: a schema using one is refused rather than half-checked.
 * Any other member it does not apply is, as 2020-12 says, an annotation:
 * title, our x-gauge, or a place for a $ref to point into. (ajv's strict mode,
 * in make check, refuses a misspelt keyword in schema/.) */
static const char *const unimplemented_keywords[] = {
	"$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
	"$vocabulary", "prefixItems", "additionalItems", "contains", "minContains", "maxContains",
	"unevaluatedItems", "dependentSchemas", "dependentRequired", "dependencies", "if", "then",
	"else", "multipleOf", "divisibleBy", "format", "contentEncoding", "contentMediaType",
	"contentSchema", "extends", "disallow", NULL,
};

static bool listed(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

static const struct jdoc *find_doc(const struct jschema_set *set, const char *name, size_t len)
{
	for (size_t i = 0; i < set->ndocs; i++)
		if (strlen(set->docs[i].name) == len && !strncmp(set->docs[i].name, name, len))
			return &set->docs[i];
	return NULL;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
							: -1;
}

/* A URI fragment's JSON pointer ("/$defs/size_hist") into root: %XX is
 * undone first (RFC 3986), then ~0 and ~1 (RFC 6901). */
static const json_t *follow_pointer(const json_t *root, const char *fragment)
{
	char ptr[1024];
	size_t len = 0;
	for (const char *f = fragment; *f; f++) {
		if (len == sizeof(ptr) - 1)
			return NULL;
		if (*f == '%' && hex_digit(f[1]) >= 0 && hex_digit(f[2]) >= 0) {
			ptr[len++] = (char)(hex_digit(f[1]) << 4 | hex_digit(f[2]));
			f += 2;
		} else {
			ptr[len++] = *f;
		}
	}
	const json_t *at = root;
	const char *p = ptr, *end = ptr + len;
	while (at && p < end && *p == '/') {
		char seg[256];
		size_t n = 0;
		for (p++; p < end && *p != '/'; p++) {
			if (n == sizeof(seg) - 1)
				return NULL;
			if (*p == '~' && p + 1 < end && (p[1] == '0' || p[1] == '1'))
				seg[n++] = *++p == '0' ? '~' : '/';
			else
				seg[n++] = *p;
		}
		seg[n] = '\0';
		if (json_is_object(at))
			at = json_object_getn(at, seg, n);
		else if (json_is_array(at) && n && strspn(seg, "0123456789") == n)
			at = json_array_get(at, strtoul(seg, NULL, 10));
		else
			at = NULL;
	}
	return p < end ? NULL : at;
}

/* "other.schema.json#/pointer", "#/pointer" or "other.schema.json"; *doc
 * becomes the document the target lives in. */
static const json_t *resolve(const struct jschema_set *set, const struct jdoc **doc,
			     const char *ref)
{
	const char *hash = strchr(ref, '#');
	size_t file_len = hash ? (size_t)(hash - ref) : strlen(ref);
	if (file_len) {
		const char *slash = memrchr(ref, '/', file_len);
		const char *name = slash ? slash + 1 : ref;
		*doc = find_doc(set, name, file_len - (size_t)(name - ref));
		if (!*doc)
			return NULL;
	}
	return follow_pointer((*doc)->root, hash ? hash + 1 : "");
}

static const struct ecma_regex *find_pattern(const struct jschema_set *set, const char *source)
{
	for (size_t i = 0; i < set->npatterns; i++)
		if (!strcmp(set->patterns[i].source, source))
			return set->patterns[i].re;
	return NULL;
}

static int add_pattern(struct jschema_set *set, const char *source, struct errbuf *why)
{
	if (find_pattern(set, source))
		return 0;
	struct jpattern *more = realloc(set->patterns, (set->npatterns + 1) * sizeof(*more));
	if (!more)
		return errbuf_set(why, ENOMEM, "out of memory");
	set->patterns = more;
	if (!(more[set->npatterns].re = ecma_regex_compile(source, why)))
		return -EINVAL;
	more[set->npatterns++].source = source;
	return 0;
}

struct loader {
	struct jschema_set *set;
	const struct jdoc *doc;
	char where[512];
	struct errbuf *why;
};

static int check_schema(struct loader *l, const json_t *s);

static int load_fail(struct loader *l, const char *what, const char *key)
{
	return errbuf_set(l->why, EINVAL, "schema/%s: %s/%s: %s", l->doc->name, l->where, key, what);
}

/* Descends into s under the path segment key. */
static int check_sub(struct loader *l, const char *key, const json_t *s)
{
	size_t len = strlen(l->where);
	snprintf(l->where + len, sizeof(l->where) - len, "/%s", key);
	int r = check_schema(l, s);
	l->where[len] = '\0';
	return r;
}

static int check_schema(struct loader *l, const json_t *s)
{
	const char *key;
	const json_t *v;
	if (json_is_boolean(s))
		return 0;
	if (!json_is_object(s))
		return load_fail(l, "a schema must be an object or a boolean", "");
	for (size_t i = 0; i < l->set->nchecked; i++)
		if (l->set->checked[i] == s)
			return 0; /* a $ref's target again, or a $ref back to where it is */
	const json_t **more = realloc(l->set->checked, (l->set->nchecked + 1) * sizeof(*more));
	if (!more)
		return errbuf_set(l->why, ENOMEM, "out of memory");
	l->set->checked = more;
	more[l->set->nchecked++] = s;
	json_object_foreach((json_t *)s, key, v) {
		int r = 0;
		if (listed(unimplemented_keywords, key)) {
			return load_fail(l, "a keyword this validator does not support", key);
		} else if (!strcmp(key, "items") || !strcmp(key, "additionalProperties") ||
			   !strcmp(key, "unevaluatedProperties") || !strcmp(key, "propertyNames") ||
			   !strcmp(key, "not")) {
			r = check_sub(l, key, v);
		} else if (!strcmp(key, "properties") || !strcmp(key, "patternProperties") ||
			   !strcmp(key, "$defs") || !strcmp(key, "definitions")) {
			const char *name;
			const json_t *sub;
			if (!json_is_object(v))
				return load_fail(l, "must be an object", key);
			json_object_foreach((json_t *)v, name, sub) {
				if (!strcmp(key, "patternProperties") &&
				    add_pattern(l->set, name, l->why) < 0)
					return -EINVAL;
				char path[300];
				snprintf(path, sizeof(path), "%s/%s", key, name);
				if ((r = check_sub(l, path, sub)) < 0)
					return r;
			}
		} else if (!strcmp(key, "allOf") || !strcmp(key, "anyOf") || !strcmp(key, "oneOf")) {
			size_t i;
			const json_t *sub;
			if (!json_is_array(v) || !json_array_size(v))
				return load_fail(l, "must be a non-empty array", key);
			json_array_foreach(v, i, sub) {
				char path[64];
				snprintf(path, sizeof(path), "%s/%zu", key, i);
				if ((r = check_sub(l, path, sub)) < 0)
					return r;
			}
		} else if (!strcmp(key, "pattern")) {
			if (!json_is_string(v))
				return load_fail(l, "must be a string", key);
			r = add_pattern(l->set, json_string_value(v), l->why);
		} else if (!strcmp(key, "$ref")) {
			const struct jdoc *doc = l->doc;
			const json_t *target =
				json_is_string(v) ? resolve(l->set, &doc, json_string_value(v)) : NULL;
			if (!target)
				return load_fail(l, "does not resolve", key);
			/* checked where it lives: perhaps under a member no keyword names */
			struct loader there = {l->set, doc, "", l->why};
			snprintf(there.where, sizeof(there.where), "%s", json_string_value(v));
			r = check_schema(&there, target);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

void jschema_free(struct jschema_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->ndocs; i++) {
		free(set->docs[i].name);
		json_decref(set->docs[i].root);
	}
	for (size_t i = 0; i < set->npatterns; i++)
		ecma_regex_free(set->patterns[i].re);
	free(set->patterns);
	free(set->checked);
	free(set->docs);
	free(set);
}

struct jschema_set *jschema_load(const struct jschema_text *texts, size_t n, struct errbuf *why)
{
	struct jschema_set *set = calloc(1, sizeof(*set));
	if (!set || !(set->docs = calloc(n ? n : 1, sizeof(*set->docs)))) {
		free(set);
		errbuf_set(why, ENOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		json_error_t je;
		struct jdoc *d = &set->docs[set->ndocs++];
		d->name = strdup(texts[i].name);
		d->root = json_loads(texts[i].text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
		if (!d->root) {
			errbuf_set(why, EINVAL, "schema/%s:%d:%d: %s", texts[i].name, je.line,
				   je.column, je.text);
			goto fail;
		}
		const char *id = json_string_value(json_object_get(d->root, "$id"));
		size_t idlen = id ? strlen(id) : 0, nlen = strlen(d->name);
		if (id && (idlen < nlen || strcmp(id + idlen - nlen, d->name))) {
			errbuf_set(why, EINVAL, "schema/%s: its $id must end with its file name",
				   d->name);
			goto fail;
		}
	}
	for (size_t i = 0; i < set->ndocs; i++) {
		struct loader l = {set, &set->docs[i], "", why};
		if (check_schema(&l, set->docs[i].root) < 0)
			goto fail;
	}
	free(set->checked);
	set->checked = NULL;
	return set;
fail:
	jschema_free(set);
	return NULL;
}

static const json_t *schema_root(const struct jschema_set *set, const char *name,
				 const struct jdoc **doc)
{
	char file[256];
	snprintf(file, sizeof(file), "%s.schema.json", name);
	*doc = find_doc(set, file, strlen(file));
	return *doc ? (*doc)->root : NULL;
}

bool jschema_has(const struct jschema_set *set, const char *name)
{
	const struct jdoc *doc;
	return schema_root(set, name, &doc) != NULL;
}

const json_t *jschema_property(const struct jschema_set *set, const char *name, const char *key)
{
	const struct jdoc *doc;
	const json_t *root = schema_root(set, name, &doc);
	return json_object_get(json_object_get(root, "properties"), key);
}

/* A "$ref" to "#/$defs/NAME" of root, followed; any other schema as is. */
static const json_t *local_def(const json_t *root, const json_t *schema)
{
	const char *ref = json_string_value(json_object_get(schema, "$ref"));
	static const char defs[] = "#/$defs/";
	if (!ref || strncmp(ref, defs, sizeof(defs) - 1))
		return schema;
	return json_object_get(json_object_get(root, "$defs"), ref + sizeof(defs) - 1);
}

const json_t *jschema_sub(const struct jschema_set *set, const char *name, const json_t *schema,
			  const char *key)
{
	const struct jdoc *doc;
	const json_t *root = schema_root(set, name, &doc);
	schema = local_def(root, schema);
	if (!key)
		return local_def(root, json_object_get(schema, "items"));
	const json_t *p = json_object_get(json_object_get(schema, "properties"), key);
	const char *pattern;
	const json_t *sub;
	json_object_foreach(p ? NULL : json_object_get(schema, "patternProperties"), pattern, sub)
		if (ecma_regex_search(find_pattern(set, pattern), key, strlen(key)))
			return local_def(root, sub);
	return local_def(root, p ? p : json_object_get(schema, "additionalProperties"));
}

const json_t *jschema_root(const struct jschema_set *set, const char *name)
{
	const struct jdoc *doc;
	return schema_root(set, name, &doc);
}

const json_t *jschema_deref(const struct jschema_set *set, const char *name, const json_t *schema)
{
	const struct jdoc *doc;
	return local_def(schema_root(set, name, &doc), schema);
}

size_t jschema_property_rank(const struct jschema_set *set, const char *name, const char *key)
{
	const struct jdoc *doc;
	const json_t *root = schema_root(set, name, &doc);
	const char *k;
	const json_t *v;
	size_t rank = 0;
	json_object_foreach(json_object_get(root, "properties"), k, v) {
		if (!strcmp(k, key))
			return rank;
		rank++;
	}
	return SIZE_MAX;
}

/* ---- validating ----------------------------------------------------------- */

struct vctx {
	const struct jschema_set *set;
	jschema_report report;
	void *arg;
	char where[1024]; /* JSON pointer of the value being checked */
	size_t errors;
	int trial; /* > 0 inside anyOf/oneOf/not: count problems, say nothing */
};

static void problem(struct vctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct vctx *c, const char *fmt, ...)
{
	c->errors++;
	if (c->trial)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->report(c->arg, c->where, msg);
}

/* Appends "/key" (escaped as a JSON pointer) to where; returns the old length. */
static size_t push(struct vctx *c, const char *key)
{
	size_t len = strlen(c->where), n = len;
	if (n + 1 < sizeof(c->where))
		c->where[n++] = '/';
	for (; *key && n + 2 < sizeof(c->where); key++) {
		if (*key == '~' || *key == '/') {
			c->where[n++] = '~';
			c->where[n++] = *key == '~' ? '0' : '1';
		} else {
			c->where[n++] = *key;
		}
	}
	c->where[n] = '\0';
	return len;
}

static size_t push_index(struct vctx *c, size_t i)
{
	char key[24];
	snprintf(key, sizeof(key), "%zu", i);
	return push(c, key);
}

/* The value as JSON, shortened for a message. */
static const char *show(const json_t *v, char *buf, size_t len)
{
	size_t n = json_dumpb(v, buf, len - 1, JSON_ENCODE_ANY | JSON_COMPACT);
	if (n >= len - 1 && len > 4)
		strcpy(buf + len - 4, "...");
	else
		buf[n] = '\0';
	return buf;
}

static bool is_integral(const json_t *v)
{
	if (json_is_integer(v))
		return true;
	double d = json_is_real(v) ? json_real_value(v) : NAN;
	return isfinite(d) && d == floor(d);
}

static bool has_type(const json_t *v, const char *type)
{
	if (!strcmp(type, "integer"))
		return is_integral(v);
	if (!strcmp(type, "number"))
		return json_is_number(v);
	if (!strcmp(type, "string"))
		return json_is_string(v);
	if (!strcmp(type, "object"))
		return json_is_object(v);
	if (!strcmp(type, "array"))
		return json_is_array(v);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	if (!strcmp(type, "null"))
		return json_is_null(v);
	return false;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* JSON equality as JSON Schema means it: 1 and 1.0 are equal. */
static bool same(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b) &&
		       (!json_is_integer(a) || !json_is_integer(b) ||
			json_integer_value(a) == json_integer_value(b));
	return json_equal(a, b);
}

/* a <=> b for two numbers, exact for two integers. */
static int compare(const json_t *a, const json_t *b)
{
	if (json_is_integer(a) && json_is_integer(b)) {
		json_int_t x = json_integer_value(a), y = json_integer_value(b);
		return (x > y) - (x < y);
	}
	double x = json_number_value(a), y = json_number_value(b);
	return (x > y) - (x < y);
}

static size_t utf8_length(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void validate(struct vctx *c, const struct jdoc *doc, const json_t *s, const json_t *v,
		     json_t *evaluated);

static void check_type(struct vctx *c, const json_t *type, const json_t *v)
{
	char buf[64], want[128] = "";
	size_t i;
	const json_t *t;
	if (json_is_string(type)) {
		if (!has_type(v, json_string_value(type)))
			problem(c, "%s is %s, not %s", show(v, buf, sizeof(buf)), type_name(v),
				json_string_value(type));
		return;
	}
	json_array_foreach(type, i, t) {
		if (has_type(v, json_string_value(t)))
			return;
		size_t n = strlen(want);
		snprintf(want + n, sizeof(want) - n, "%s%s", i ? " or " : "", json_string_value(t));
	}
	problem(c, "%s is %s, not %s", show(v, buf, sizeof(buf)), type_name(v), want);
}

static void check_number(struct vctx *c, const json_t *s, const json_t *v)
{
	char buf[64];
	const json_t *k;
	if (!json_is_number(v))
		return;
	if ((k = json_object_get(s, "minimum")) && compare(v, k) < 0)
		problem(c, "%s is below the minimum %s", show(v, buf, sizeof(buf)),
			show(k, (char[32]){0}, 32));
	if ((k = json_object_get(s, "maximum")) && compare(v, k) > 0)
		problem(c, "%s is above the maximum %s", show(v, buf, sizeof(buf)),
			show(k, (char[32]){0}, 32));
	if ((k = json_object_get(s, "exclusiveMinimum")) && compare(v, k) <= 0)
		problem(c, "%s is not above %s", show(v, buf, sizeof(buf)), show(k, (char[32]){0}, 32));
	if ((k = json_object_get(s, "exclusiveMaximum")) && compare(v, k) >= 0)
		problem(c, "%s is not below %s", show(v, buf, sizeof(buf)), show(k, (char[32]){0}, 32));
}

static void check_string(struct vctx *c, const json_t *s, const json_t *v)
{
	char buf[64];
	const json_t *k;
	if (!json_is_string(v))
		return;
	size_t len = utf8_length(json_string_value(v));
	if ((k = json_object_get(s, "minLength")) && (json_int_t)len < json_integer_value(k))
		problem(c, "%s is shorter than %lld characters", show(v, buf, sizeof(buf)),
			(long long)json_integer_value(k));
	if ((k = json_object_get(s, "maxLength")) && (json_int_t)len > json_integer_value(k))
		problem(c, "%s is longer than %lld characters", show(v, buf, sizeof(buf)),
			(long long)json_integer_value(k));
	if ((k = json_object_get(s, "pattern")) &&
	    !ecma_regex_search(find_pattern(c->set, json_string_value(k)), json_string_value(v),
			   json_string_length(v)))
		problem(c, "%s does not match %s", show(v, buf, sizeof(buf)), json_string_value(k));
}

static void check_array(struct vctx *c, const struct jdoc *doc, const json_t *s, const json_t *v)
{
	const json_t *k;
	size_t n = json_array_size(v);
	if (!json_is_array(v))
		return;
	if ((k = json_object_get(s, "minItems")) && (json_int_t)n < json_integer_value(k))
		problem(c, "%zu items, at least %lld expected", n, (long long)json_integer_value(k));
	if ((k = json_object_get(s, "maxItems")) && (json_int_t)n > json_integer_value(k))
		problem(c, "%zu items, at most %lld expected", n, (long long)json_integer_value(k));
	if (json_is_true(json_object_get(s, "uniqueItems")))
		for (size_t i = 1; i < n; i++)
			for (size_t j = 0; j < i; j++)
				if (same(json_array_get(v, i), json_array_get(v, j))) {
					problem(c, "item %zu repeats item %zu", i, j);
					i = j = n;
				}
	if ((k = json_object_get(s, "items")))
		for (size_t i = 0; i < n; i++) {
			size_t len = push_index(c, i);
			validate(c, doc, k, json_array_get(v, i), NULL);
			c->where[len] = '\0';
		}
}

/* properties, patternProperties, additionalProperties: every key they apply
 * to goes into seen. */
static void check_object_members(struct vctx *c, const struct jdoc *doc, const json_t *s,
				 const json_t *v, json_t *seen)
{
	const json_t *props = json_object_get(s, "properties"), *pats =
		json_object_get(s, "patternProperties"), *extra = json_object_get(s, "additionalProperties");
	const char *key;
	const json_t *val;
	if (!props && !pats && !extra)
		return;
	json_object_foreach((json_t *)v, key, val) {
		size_t keylen = strlen(key);
		size_t len = push(c, key);
		const json_t *sub = props ? json_object_get(props, key) : NULL;
		bool covered = sub != NULL;
		if (sub)
			validate(c, doc, sub, val, NULL);
		const char *pat;
		json_object_foreach((json_t *)pats, pat, sub)
			if (ecma_regex_search(find_pattern(c->set, pat), key, keylen)) {
				covered = true;
				validate(c, doc, sub, val, NULL);
			}
		if (!covered && extra) {
			if (json_is_false(extra))
				problem(c, "\"%s\" is not a key this object may have", key);
			else
				validate(c, doc, extra, val, NULL);
			covered = true;
		}
		if (covered && seen)
			json_object_set_new(seen, key, json_true());
		c->where[len] = '\0';
	}
}

static void check_object(struct vctx *c, const struct jdoc *doc, const json_t *s, const json_t *v,
			 json_t *seen)
{
	const json_t *k, *req = json_object_get(s, "required");
	size_t i;
	const char *key;
	const json_t *val;
	json_array_foreach(req, i, k)
		if (!json_object_get(v, json_string_value(k)))
			problem(c, "\"%s\" is missing", json_string_value(k));
	size_t n = json_object_size(v);
	if ((k = json_object_get(s, "minProperties")) && (json_int_t)n < json_integer_value(k))
		problem(c, "%zu keys, at least %lld expected", n, (long long)json_integer_value(k));
	if ((k = json_object_get(s, "maxProperties")) && (json_int_t)n > json_integer_value(k))
		problem(c, "%zu keys, at most %lld expected", n, (long long)json_integer_value(k));
	if ((k = json_object_get(s, "propertyNames")))
		json_object_foreach((json_t *)v, key, val) {
			size_t len = push(c, key);
			json_t *name = json_string(key);
			validate(c, doc, k, name, NULL);
			json_decref(name);
			c->where[len] = '\0';
		}
	check_object_members(c, doc, s, v, seen);
}

/* Validates v against each of list in trial mode; returns how many passed,
 * merging what the passing ones evaluated into seen. */
static size_t count_passing(struct vctx *c, const struct jdoc *doc, const json_t *list,
			    const json_t *v, json_t *seen)
{
	size_t i, passed = 0;
	const json_t *sub;
	json_array_foreach(list, i, sub) {
		size_t before = c->errors;
		json_t *own = seen ? json_object() : NULL;
		c->trial++;
		validate(c, doc, sub, v, own);
		c->trial--;
		if (c->errors == before) {
			passed++;
			if (seen)
				json_object_update(seen, own);
		}
		c->errors = before;
		json_decref(own);
	}
	return passed;
}

static void validate(struct vctx *c, const struct jdoc *doc, const json_t *s, const json_t *v,
		     json_t *evaluated)
{
	char buf[64];
	const json_t *k;
	size_t i;
	if (json_is_boolean(s)) {
		if (json_is_false(s))
			problem(c, "no value is allowed here");
		return;
	}
	json_t *seen = NULL;
	if (json_is_object(v) && (evaluated || json_object_get(s, "unevaluatedProperties")))
		seen = json_object();

	if ((k = json_object_get(s, "$ref"))) {
		const struct jdoc *target_doc = doc;
		validate(c, target_doc, resolve(c->set, &target_doc, json_string_value(k)), v, seen);
	}
	json_array_foreach(json_object_get(s, "allOf"), i, k)
		validate(c, doc, k, v, seen);
	if ((k = json_object_get(s, "anyOf")) && count_passing(c, doc, k, v, seen) == 0)
		problem(c, "%s matches none of the %zu schemas of anyOf", show(v, buf, sizeof(buf)),
			json_array_size(k));
	if ((k = json_object_get(s, "oneOf"))) {
		size_t n = count_passing(c, doc, k, v, seen);
		if (n != 1)
			problem(c, "%s matches %zu of the %zu schemas of oneOf, not exactly one",
				show(v, buf, sizeof(buf)), n, json_array_size(k));
	}
	if ((k = json_object_get(s, "not"))) {
		json_t *one = json_pack("[O]", k);
		if (count_passing(c, doc, one, v, NULL))
			problem(c, "%s matches a schema it must not", show(v, buf, sizeof(buf)));
		json_decref(one);
	}

	if ((k = json_object_get(s, "type")))
		check_type(c, k, v);
	if ((k = json_object_get(s, "const")) && !same(k, v))
		problem(c, "%s is not %s", show(v, buf, sizeof(buf)), show(k, (char[64]){0}, 64));
	if ((k = json_object_get(s, "enum"))) {
		const json_t *e;
		bool found = false;
		json_array_foreach(k, i, e)
			found = found || same(e, v);
		if (!found)
			problem(c, "%s is not one of %s", show(v, buf, sizeof(buf)),
				show(k, (char[160]){0}, 160));
	}
	check_number(c, s, v);
	check_string(c, s, v);
	check_array(c, doc, s, v);
	if (json_is_object(v)) {
		check_object(c, doc, s, v, seen);
		const json_t *rest = json_object_get(s, "unevaluatedProperties");
		const char *key;
		const json_t *val;
		if (rest)
			json_object_foreach((json_t *)v, key, val) {
				if (json_object_get(seen, key))
					continue;
				size_t len = push(c, key);
				if (json_is_false(rest))
					problem(c, "\"%s\" is not a key this object may have", key);
				else
					validate(c, doc, rest, val, NULL);
				json_object_set_new(seen, key, json_true());
				c->where[len] = '\0';
			}
	}
	if (evaluated && seen)
		json_object_update(evaluated, seen);
	json_decref(seen);
}

size_t jschema_validate(const struct jschema_set *set, const char *name, const json_t *instance,
			jschema_report report, void *arg)
{
	struct vctx c = {.set = set, .report = report, .arg = arg};
	const struct jdoc *doc;
	const json_t *root = schema_root(set, name, &doc);
	if (!root) {
		problem(&c, "no schema/%s.schema.json to check it against", name);
		return c.errors;
	}
	validate(&c, doc, root, instance, NULL);
	return c.errors;
}
