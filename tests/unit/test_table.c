// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The table writer (table.h): CSV quoting, JSON escaping, numbers that read
 * back as written, and a file that is all there or not there. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "table.h"
#include "testing.h"

static char dir[] = "/tmp/test_table.XXXXXX";

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Files in dir besides the table: a temporary one left behind. */
static int entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.');
	closedir(d);
	return n;
}

static void one_row(struct table *t)
{
	table_string(t, "a,b \"q\"\nz");
	table_int(t, INT64_MIN);
	table_real(t, 100);
	table_real(t, 0.1);
	table_real(t, 650.0 / 350.0);
	table_real(t, NAN);
	table_null(t);
	table_bool(t, true);
	table_string(t, "tab\there \x01 \xc3\xa9");
	table_end_row(t);
}

static char *const cols[] = {"s", "i", "r1", "r2", "r3", "nan", "null", "b", "label.k,1"};

TEST(csv_quotes_only_what_needs_it)
{
	EXPECT(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/t.csv", dir);
	struct errbuf e;
	struct table *t = table_open(path, TABLE_CSV, cols, 9, &e);
	EXPECT(t);
	one_row(t);
	EXPECT(!slurp(path)); /* nothing there until committed */
	EXPECT_EQ(table_commit(t, &e), 0);
	EXPECT_STR(slurp(path), "s,i,r1,r2,r3,nan,null,b,\"label.k,1\"\n"
				"\"a,b \"\"q\"\"\nz\",-9223372036854775808,100.0,0.1,"
				"1.8571428571428572,,,true,tab\there \x01 \xc3\xa9\n");
	EXPECT_EQ(entries(), 1);
}

TEST(jsonl_escapes_and_says_null)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/t.jsonl", dir);
	struct errbuf e;
	struct table *t = table_open(path, TABLE_JSONL, cols, 9, &e);
	EXPECT(t);
	one_row(t);
	EXPECT_EQ(table_commit(t, &e), 0);
	EXPECT_STR(slurp(path),
		   "{\"s\":\"a,b \\\"q\\\"\\nz\",\"i\":-9223372036854775808,\"r1\":100.0,"
		   "\"r2\":0.1,\"r3\":1.8571428571428572,\"nan\":null,\"null\":null,\"b\":true,"
		   "\"label.k,1\":\"tab\\there \\u0001 \xc3\xa9\"}\n");
}

TEST(reals_read_back_exactly)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/r.csv", dir);
	static const double v[] = {1.0 / 3, 2.0 / 3, 1e-300, 123456789012345678.0, 5e-324, 0.0};
	char *const one[] = {"v"};
	struct errbuf e;
	struct table *t = table_open(path, TABLE_CSV, one, 1, &e);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		table_real(t, v[i]);
		table_end_row(t);
	}
	EXPECT_EQ(table_commit(t, &e), 0);
	char *p = slurp(path);
	EXPECT(!strncmp(p, "v\n", 2));
	p += 2;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *end;
		EXPECT(strtod(p, &end) == v[i]);
		EXPECT(*end == '\n');
		EXPECT(memchr(p, '.', (size_t)(end - p)) || memchr(p, 'e', (size_t)(end - p)));
		p = end + 1;
	}
}

TEST(an_aborted_table_leaves_the_old_file)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/t.csv", dir);
	int before = entries();
	struct errbuf e;
	struct table *t = table_open(path, TABLE_CSV, cols, 9, &e);
	EXPECT(t);
	one_row(t);
	EXPECT_EQ(entries(), before + 1); /* the temporary file */
	table_abort(t);
	EXPECT_EQ(entries(), before);
	EXPECT_CONTAINS(slurp(path), "s,i,r1");
}

TEST(a_directory_or_missing_folder_is_refused)
{
	struct errbuf e;
	EXPECT(!table_open(dir, TABLE_CSV, cols, 9, &e));
	EXPECT_CONTAINS(e.msg, "Is a directory");
	char path[256];
	snprintf(path, sizeof(path), "%s/no/t.csv", dir);
	EXPECT(!table_open(path, TABLE_CSV, cols, 9, &e));
	EXPECT_CONTAINS(e.msg, "No such file or directory");
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(system(cmd), 0);
}
