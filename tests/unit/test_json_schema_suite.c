// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The official JSON-Schema-Test-Suite against jschema, one test per keyword
 * jschema implements. Debian's json-schema-test-suite (2.0.0) is read where
 * it installs (or from $JSON_SCHEMA_TEST_SUITE); its newest draft is 7,
 * whose cases for these keywords mean what 2020-12 means except where
 * `skips` says otherwise.
 *
 * Not run: definitions.json, whose cases validate schemas against the
 * draft-07 meta-schema, which the suite does not ship ("definitions" itself
 * is in ref.json's cases); the files of keywords jschema refuses to load
 * (contains, if-then-else, multipleOf, dependencies, additionalItems and
 * optional/format: see unimplemented_keywords in reader/json_schema.c); and
 * optional/bignum.json, integers beyond 64 bits, which jansson refuses.
 *
 * Each case's verdict must be the suite's. A case jschema cannot take is
 * skipped only when `skips` lists it with the reason, and a listed case
 * that now passes fails too, so the list stays the truth. */
#include <errno.h>
#include <jansson.h>

#include "json_schema.h"
#include "testing.h"

#define DRAFT "draft7"

struct skip {
	const char *file, *group; /* the group's description */
	const char *test;	  /* one case's description; NULL: the whole group */
	const char *why;
};

static const char DRAFT7_REF[] = "draft 7's $ref hides its sibling keywords; 2020-12's, "
				 "which jschema implements, apply beside it";
static const char ITEMS_ARRAY[] = "items as an array is draft 7's tuple form (prefixItems in "
				  "2020-12), which no schema of ours uses";
static const char BASE_URI[] = "$id setting the base URI a $ref resolves against: jschema "
			       "names each document by its file and resolves a $ref by file name";
static const char META[] = "$ref to the draft-07 meta-schema, a document the suite does not "
			   "ship";

static const struct skip skips[] = {
	{"ref.json", "ref overrides any sibling keywords", "ref valid, maxItems ignored",
	 DRAFT7_REF},
	{"ref.json", "relative pointer ref to array", NULL, ITEMS_ARRAY},
	{"ref.json", "remote ref, containing refs itself", NULL, META},
	{"ref.json", "Recursive references between schemas", NULL, BASE_URI},
	{"refRemote.json", "base URI change", NULL, BASE_URI},
	{"refRemote.json", "base URI change - change folder", NULL, BASE_URI},
	{"refRemote.json", "base URI change - change folder in subschema", NULL, BASE_URI},
	{"refRemote.json", "root ref in remote ref", NULL, BASE_URI},
	{"items.json", "an array of schemas for items", NULL, ITEMS_ARRAY},
	{"items.json", "items with boolean schemas", NULL, ITEMS_ARRAY},
};

static const char *suite_dir(void)
{
	const char *dir = getenv("JSON_SCHEMA_TEST_SUITE");
	return dir ? dir : "/usr/share/json-schema-test-suite";
}

/* The suite's remote documents, which its $refs name by URL, in the set by
 * their file names. */
static const char *const remotes[] = {"integer.json", "name.json", "subSchemas.json",
				      "folder/folderInteger.json"};
#define NREMOTES (sizeof(remotes) / sizeof(remotes[0]))

struct tally {
	size_t cases, skipped;
	char failures[4096];
};

static void ignore(void *arg, const char *where, const char *what)
{
	(void)arg, (void)where, (void)what;
}

static const struct skip *listed(const char *file, const char *group, const char *test)
{
	for (size_t i = 0; i < sizeof(skips) / sizeof(skips[0]); i++)
		if (!strcmp(skips[i].file, file) && !strcmp(skips[i].group, group) &&
		    (!skips[i].test || (test && !strcmp(skips[i].test, test))))
			return &skips[i];
	return NULL;
}

static void say(struct tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct tally *t, const char *fmt, ...)
{
	size_t n = strlen(t->failures);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->failures + n, sizeof(t->failures) - n, fmt, ap);
	va_end(ap);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		FAILF("%s: %s (make check installs json-schema-test-suite)", path, strerror(errno));
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)))
		fwrite(buf, 1, n, out);
	fclose(f);
	fclose(out);
	return text;
}

/* One group: its schema with the remotes as a set, then each case. */
static void run_group(struct tally *t, const char *file, const json_t *group, char **remote_texts)
{
	const char *gdesc = json_string_value(json_object_get(group, "description"));
	char *schema = json_dumps(json_object_get(group, "schema"), JSON_ENCODE_ANY);
	struct jschema_text texts[1 + NREMOTES] = {{"case.schema.json", schema}};
	for (size_t i = 0; i < NREMOTES; i++) {
		const char *slash = strrchr(remotes[i], '/');
		texts[1 + i] = (struct jschema_text){slash ? slash + 1 : remotes[i], remote_texts[i]};
	}
	struct errbuf why = {""};
	struct jschema_set *set = jschema_load(texts, 1 + NREMOTES, &why);
	free(schema);

	size_t i;
	const json_t *c;
	bool group_skipped = listed(file, gdesc, NULL) && !listed(file, gdesc, NULL)->test;
	bool group_passed = true;
	json_array_foreach(json_object_get(group, "tests"), i, c) {
		const char *tdesc = json_string_value(json_object_get(c, "description"));
		const struct skip *skip = listed(file, gdesc, tdesc);
		bool expect = json_is_true(json_object_get(c, "valid"));
		bool ok = set && (jschema_validate(set, "case", json_object_get(c, "data"), ignore,
						   NULL) == 0) == expect;
		group_passed = group_passed && ok;
		if (skip) {
			t->skipped++;
			if (ok && !group_skipped)
				say(t, "\"%s\" / \"%s\" passes: no longer a skip\n", gdesc, tdesc);
			continue;
		}
		t->cases++;
		if (!set)
			say(t, "\"%s\" / \"%s\": the schema does not load: %s\n", gdesc, tdesc,
			    why.msg);
		else if (!ok)
			say(t, "\"%s\" / \"%s\": %s, the suite says %s\n", gdesc, tdesc,
			    expect ? "invalid" : "valid", expect ? "valid" : "invalid");
	}
	if (group_skipped && group_passed)
		say(t, "\"%s\" passes: no longer a skip\n", gdesc);
	jschema_free(set);
}

static void run_file(const char *file)
{
	char path[512];
	char *remote_texts[NREMOTES];
	for (size_t i = 0; i < NREMOTES; i++) {
		snprintf(path, sizeof(path), "%s/remotes/%s", suite_dir(), remotes[i]);
		remote_texts[i] = slurp(path);
	}
	snprintf(path, sizeof(path), "%s/tests/" DRAFT "/%s", suite_dir(), file);
	json_error_t je;
	json_t *groups = json_load_file(path, 0, &je);
	if (!groups)
		FAILF("%s:%d:%d: %s (make check installs json-schema-test-suite)", path, je.line,
		      je.column, je.text);
	struct tally t = {0};
	size_t i;
	const json_t *group;
	json_array_foreach(groups, i, group)
		run_group(&t, file, group, remote_texts);
	json_decref(groups);
	for (size_t i = 0; i < NREMOTES; i++)
		free(remote_texts[i]);
	if (t.failures[0]) {
		fputs(t.failures, stdout);
		FAILF(DRAFT "/%s: the cases above", file);
	}
	if (!t.cases)
		FAILF(DRAFT "/%s: no case ran", file);
	printf("%s: %zu cases", file, t.cases);
	if (t.skipped)
		printf(", %zu skipped as listed", t.skipped);
	printf("\n");
}

#define SUITE(keyword) \
	TEST(suite_##keyword) { run_file(#keyword ".json"); }

SUITE(type)
SUITE(enum)
SUITE(const)
SUITE(minimum)
SUITE(maximum)
SUITE(exclusiveMinimum)
SUITE(exclusiveMaximum)
SUITE(minLength)
SUITE(maxLength)
SUITE(pattern)
SUITE(required)
SUITE(properties)
SUITE(patternProperties)
SUITE(additionalProperties)
SUITE(propertyNames)
SUITE(minProperties)
SUITE(maxProperties)
SUITE(items)
SUITE(minItems)
SUITE(maxItems)
SUITE(uniqueItems)
SUITE(allOf)
SUITE(anyOf)
SUITE(oneOf)
SUITE(not)
SUITE(ref)
SUITE(refRemote)
SUITE(boolean_schema)
SUITE(default)
