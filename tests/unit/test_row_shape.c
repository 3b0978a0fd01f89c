// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A source's rows as export's leaves (row_shape.h): net's by_mount, whose
 * members come and go ("x-keys": "varying"), against diskstats' by_device,
 * whose members must stay. The schemas are the built-in ones. */
#include <errno.h>
#include <string.h>

#include "builtin_schemas.h"
#include "row_shape.h"
#include "testing.h"

#define EXPECT_INT(v, n)                                   \
	do {                                               \
		EXPECT_EQ((v).kind, VAL_INT);              \
		EXPECT_EQ((v).i, (n));                     \
	} while (0)

static json_t *row(const char *text)
{
	json_t *r = json_loads(text, 0, NULL);
	EXPECT(r != NULL);
	return r;
}

static int leaf(const struct row_shape *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return (int)i;
	return -1;
}

#define NET_ROW(MOUNTS)                                                                           \
	"{\"seq\": 0, \"rx_bytes\": 1, \"by_mount\": " MOUNTS "}"
#define FUSE(W) "{\"fstype\": \"fuse\", \"daemon_pid\": 7, \"daemon_comm\": \"d\", \"waiting\": " W "}"

TEST(a_mount_that_comes_and_goes_has_columns_null_where_absent)
{
	struct jschema_set *set = builtin_schemas_load();
	EXPECT(set != NULL);
	struct errbuf e;
	struct row_shape s;
	json_t *first = row(NET_ROW("{}"));
	json_t *with = row(NET_ROW("{\"/m\": " FUSE("2") "}"));
	json_t *other = row(NET_ROW("{\"/n\": " FUSE("3") "}"));
	EXPECT_EQ(row_shape_learn(&s, set, "net", first, &e), 0);
	EXPECT(s.varying);
	EXPECT_EQ(leaf(&s, "by_mount./m.waiting"), -1);
	/* a row with a mount the first had not: no column until grown, and
	 * read without one */
	struct value v[16];
	EXPECT_EQ(row_shape_read(&s, with, v, &e), 0);
	EXPECT_EQ(row_shape_grow(&s, with, &e), 0);
	EXPECT_EQ(row_shape_grow(&s, other, &e), 0);
	EXPECT_EQ(row_shape_grow(&s, with, &e), 0); /* known: nothing added */
	int m = leaf(&s, "by_mount./m.waiting"), n = leaf(&s, "by_mount./n.waiting");
	EXPECT(m >= 0 && n >= 0 && s.n <= 16);
	EXPECT_EQ(s.leaf[m].rule, CELL_MAX); /* a gauge, as the schema says */
	EXPECT_EQ(row_shape_read(&s, first, v, &e), 0);
	EXPECT_EQ(v[m].kind, VAL_NULL);
	EXPECT_EQ(v[n].kind, VAL_NULL);
	EXPECT_EQ(row_shape_read(&s, with, v, &e), 0);
	EXPECT_INT(v[m], 2);
	EXPECT_EQ(v[n].kind, VAL_NULL);
	EXPECT_EQ(row_shape_read(&s, other, v, &e), 0);
	EXPECT_EQ(v[m].kind, VAL_NULL);
	EXPECT_INT(v[n], 3);
	row_shape_free(&s);
	json_decref(first);
	json_decref(with);
	json_decref(other);
	jschema_free(set);
}

TEST(a_device_that_comes_and_goes_is_a_damaged_row)
{
	struct jschema_set *set = builtin_schemas_load();
	EXPECT(set != NULL);
	struct errbuf e;
	struct row_shape s;
	json_t *one = row("{\"seq\": 0, \"reads\": 1, \"by_device\": {\"vda\": {\"reads\": 1}}}");
	json_t *two = row("{\"seq\": 1, \"reads\": 1, \"by_device\": {\"vda\": {\"reads\": 1}, \"vdb\": {\"reads\": 1}}}");
	EXPECT_EQ(row_shape_learn(&s, set, "diskstats", one, &e), 0);
	EXPECT(!s.varying);
	EXPECT_EQ(row_shape_grow(&s, two, &e), 0); /* not varying: nothing learned */
	struct value v[8];
	EXPECT_EQ(row_shape_read(&s, two, v, &e), -EINVAL);
	EXPECT(strstr(e.msg, "by_device") != NULL);
	row_shape_free(&s);
	json_decref(one);
	json_decref(two);
	jschema_free(set);
}
