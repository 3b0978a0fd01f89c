// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* jschema: each keyword's verdicts and messages, the $ref and
 * unevaluatedProperties plumbing, and schema/ itself loading. */
#include "json_schema.h"
#include "builtin_schemas.h"
#include "testing.h"

static char said[4096];

static void collect(void *arg, const char *where, const char *what)
{
	(void)arg;
	size_t n = strlen(said);
	snprintf(said + n, sizeof(said) - n, "%s: %s\n", where, what);
}

static struct jschema_set *load(const char *name, const char *text)
{
	struct jschema_text t[2] = {{name, text},
				    {"defs.schema.json",
				     "{\"$id\": \"x/defs.schema.json\", \"$defs\": {\"count\": "
				     "{\"type\": \"integer\", \"minimum\": 0}}}"}};
	struct errbuf why = {""};
	struct jschema_set *set = jschema_load(t, 2, &why);
	if (!set)
		FAILF("%s", why.msg);
	return set;
}

/* How many problems instance (JSON text) has against schema t.schema.json. */
static size_t problems(struct jschema_set *set, const char *instance)
{
	json_error_t je;
	json_t *v = json_loads(instance, JSON_DECODE_ANY, &je);
	if (!v)
		FAILF("bad test JSON %s: %s", instance, je.text);
	said[0] = '\0';
	size_t n = jschema_validate(set, "t", v, collect, NULL);
	json_decref(v);
	return n;
}

TEST(types_ranges_and_messages)
{
	struct jschema_set *set = load("t.schema.json", "{\"$id\": \"x/t.schema.json\", "
		"\"type\": \"object\", \"required\": [\"n\"], \"additionalProperties\": false, "
		"\"properties\": {\"n\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 10}, "
		"\"s\": {\"type\": [\"string\", \"null\"], \"pattern\": \"^a\", \"maxLength\": 3}, "
		"\"e\": {\"enum\": [\"x\", null]}, \"c\": {\"const\": 2}, "
		"\"h\": {\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 2, "
		"\"maxItems\": 2, \"uniqueItems\": true}}}");
	EXPECT_EQ(problems(set, "{\"n\": 3, \"s\": \"ab\", \"e\": null, \"c\": 2.0, \"h\": [1, 2]}"), 0);
	EXPECT_EQ(problems(set, "{\"n\": 3.0}"), 0); /* 3.0 is an integer to JSON Schema */
	EXPECT_EQ(problems(set, "{\"n\": \"3\"}"), 1);
	EXPECT_CONTAINS(said, "/n: \"3\" is a string, not integer");
	EXPECT_EQ(problems(set, "{\"n\": 1.5}"), 1);
	EXPECT_EQ(problems(set, "{\"n\": -1}"), 1);
	EXPECT_CONTAINS(said, "/n: -1 is below the minimum 0");
	EXPECT_EQ(problems(set, "{\"n\": 11}"), 1);
	EXPECT_EQ(problems(set, "{}"), 1);
	EXPECT_CONTAINS(said, ": \"n\" is missing");
	EXPECT_EQ(problems(set, "{\"n\": 1, \"x\": 1}"), 1);
	EXPECT_CONTAINS(said, "/x: \"x\" is not a key this object may have");
	EXPECT_EQ(problems(set, "{\"n\": 1, \"s\": \"ba\"}"), 1);
	EXPECT_CONTAINS(said, "/s: \"ba\" does not match ^a");
	EXPECT_EQ(problems(set, "{\"n\": 1, \"s\": \"abcd\"}"), 1);
	EXPECT_EQ(problems(set, "{\"n\": 1, \"s\": 5}"), 1);
	EXPECT_CONTAINS(said, "not string or null");
	EXPECT_EQ(problems(set, "{\"n\": 1, \"e\": \"y\"}"), 1);
	EXPECT_EQ(problems(set, "{\"n\": 1, \"c\": 3}"), 1);
	EXPECT_EQ(problems(set, "{\"n\": 1, \"h\": [1]}"), 1);
	EXPECT_CONTAINS(said, "/h: 1 items, at least 2 expected");
	EXPECT_EQ(problems(set, "{\"n\": 1, \"h\": [1, 2, 3]}"), 1);
	EXPECT_EQ(problems(set, "{\"n\": 1, \"h\": [1, 1]}"), 1);
	EXPECT_EQ(problems(set, "{\"n\": 1, \"h\": [1, \"2\"]}"), 1);
	EXPECT_CONTAINS(said, "/h/1: ");
	EXPECT_EQ(problems(set, "{\"n\": \"a\", \"x\": 1, \"h\": []}"), 3);
	EXPECT_EQ(problems(set, "[]"), 1);
	jschema_free(set);
}

/* A row schema as schema/ writes them: the envelope by $ref through allOf,
 * the row closed by unevaluatedProperties, fields by patternProperties. */
TEST(unevaluated_properties_see_through_refs)
{
	struct jschema_set *set = load("t.schema.json", "{\"$id\": \"x/t.schema.json\", "
		"\"allOf\": [{\"$ref\": \"defs.schema.json#/$defs/count\"}], \"type\": \"object\"}");
	EXPECT_EQ(problems(set, "{}"), 1); /* an object is not an integer */
	jschema_free(set);
	set = load("t.schema.json", "{\"$id\": \"x/t.schema.json\", "
		"\"allOf\": [{\"properties\": {\"a\": {\"$ref\": \"defs.schema.json#/$defs/count\"}}}], "
		"\"properties\": {\"b\": {\"$ref\": \"#/$defs/flag\"}}, "
		"\"patternProperties\": {\"^(?!(a|b)$)[a-z]+$\": {\"type\": \"null\"}}, "
		"\"unevaluatedProperties\": false, \"$defs\": {\"flag\": {\"type\": \"boolean\"}}}");
	EXPECT_EQ(problems(set, "{\"a\": 1, \"b\": true, \"zz\": null}"), 0);
	EXPECT_EQ(problems(set, "{\"a\": -1}"), 1);
	EXPECT_EQ(problems(set, "{\"b\": 1}"), 1);
	EXPECT_EQ(problems(set, "{\"zz\": 1}"), 1);
	EXPECT_EQ(problems(set, "{\"Z\": null}"), 1);
	EXPECT_CONTAINS(said, "/Z: \"Z\" is not a key this object may have");
	jschema_free(set);
}

TEST(one_of_any_of_not_and_property_names)
{
	struct jschema_set *set = load("t.schema.json", "{\"$id\": \"x/t.schema.json\", "
		"\"properties\": {\"d\": {\"oneOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}]}, "
		"\"o\": {\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}, "
		"\"a\": {\"anyOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}, "
		"\"n\": {\"not\": {\"type\": \"string\"}}, "
		"\"m\": {\"propertyNames\": {\"enum\": [\"x\"]}, \"minProperties\": 1}}}");
	EXPECT_EQ(problems(set, "{\"d\": \"s\", \"o\": -1, \"a\": 1.5, \"n\": 1, \"m\": {\"x\": 1}}"), 0);
	EXPECT_EQ(problems(set, "{\"d\": 1}"), 1);
	EXPECT_CONTAINS(said, "matches 0 of the 2 schemas of oneOf");
	EXPECT_EQ(problems(set, "{\"o\": 1}"), 1); /* both: not exactly one */
	EXPECT_EQ(problems(set, "{\"a\": -1.5}"), 1);
	EXPECT_EQ(problems(set, "{\"n\": \"s\"}"), 1);
	EXPECT_EQ(problems(set, "{\"m\": {\"y\": 1}}"), 1);
	EXPECT_CONTAINS(said, "/m/y: \"y\" is not one of");
	EXPECT_EQ(problems(set, "{\"m\": {}}"), 1);
	jschema_free(set);
}

TEST(schemas_it_cannot_check_are_refused)
{
	static const char *bad[][2] = {
		{"{\"$id\": \"x/t.schema.json\", \"if\": {}}", "/if: a keyword this validator does not support"},
		{"{\"$id\": \"x/t.schema.json\", \"$ref\": \"#/$defs/none\"}", "does not resolve"},
		{"{\"$id\": \"x/t.schema.json\", \"$ref\": \"other.schema.json\"}", "does not resolve"},
		{"{\"$id\": \"x/t.schema.json\", \"pattern\": \"a(\"}", "missing closing parenthesis"},
		{"{\"$id\": \"x/t.schema.json\", \"properties\": {\"a\": {\"format\": \"uri\"}}}",
		 "/properties/a/format: a keyword this validator does not support"},
		{"{\"$id\": \"x/t.schema.json\", \"$ref\": \"#/bag/p\", \"bag\": {\"p\": {\"pattern\": \"(\"}}}",
		 "missing closing parenthesis"},
		{"{\"$id\": \"x/t.schema.json\", \"properties\": {\"a\": 3}}", "object or a boolean"},
		{"{\"$id\": \"x/other.schema.json\"}", "$id must end with its file name"},
		{"{\"$id\": \"x/t.schema.json\",}", "t.schema.json:1:"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jschema_text t = {"t.schema.json", bad[i][0]};
		struct errbuf why = {""};
		struct jschema_set *set = jschema_load(&t, 1, &why);
		if (set) {
			jschema_free(set);
			FAILF("loaded %s", bad[i][0]);
		}
		EXPECT_CONTAINS(why.msg, bad[i][1]);
	}
}

/* A member no keyword names is an annotation, and a $ref may point into it;
 * the target is checked where it is. %XX in a fragment is undone. */
TEST(refs_into_members_that_are_no_keyword)
{
	struct jschema_set *set = load("t.schema.json", "{\"$id\": \"x/t.schema.json\", "
		"\"bag\": {\"name\": {\"pattern\": \"^[a-z]+$\"}}, \"100%\": {\"minimum\": 1}, "
		"\"properties\": {\"n\": {\"$ref\": \"#/bag/name\"}, \"c\": {\"$ref\": \"#/100%25\"}}}");
	EXPECT_EQ(problems(set, "{\"n\": \"abc\", \"c\": 1}"), 0);
	EXPECT_EQ(problems(set, "{\"n\": \"a1\"}"), 1);
	EXPECT_CONTAINS(said, "/n: \"a1\" does not match ^[a-z]+$");
	EXPECT_EQ(problems(set, "{\"c\": 0}"), 1);
	jschema_free(set);
}

/* schema/ as compiled in: it loads, and x-gauge is where summary looks. */
TEST(the_compiled_in_schemas_load)
{
	struct errbuf why = {""};
	struct jschema_set *set = jschema_load(builtin_schema_texts, builtin_schema_ntexts, &why);
	if (!set)
		FAILF("%s", why.msg);
	for (size_t i = 0; i < builtin_schema_ntexts; i++) { /* jschema_load checks an $id it finds */
		json_t *doc = json_loads(builtin_schema_texts[i].text, 0, NULL);
		EXPECT(json_is_string(json_object_get(doc, "$id")));
		json_decref(doc);
	}
	EXPECT(jschema_has(set, "manifest"));
	EXPECT(jschema_has(set, "proc_io"));
	EXPECT(!jschema_has(set, "nope"));
	EXPECT(json_is_true(json_object_get(jschema_property(set, "proc_io", "nprocs"), "x-gauge")));
	EXPECT(!jschema_property(set, "proc_io", "seq")); /* the envelope's, not proc_io's own */
	json_t *row = json_pack("{s:s}", "source", "proc_io");
	said[0] = '\0';
	EXPECT(jschema_validate(set, "proc_io", row, collect, NULL) > 5);
	EXPECT_CONTAINS(said, ": \"wchar\" is missing");
	EXPECT_CONTAINS(said, ": \"seq\" is missing");
	json_decref(row);
	jschema_free(set);
}
