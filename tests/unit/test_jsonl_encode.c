// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The row encoder writes exactly what jansson's json_dumpb(JSON_COMPACT)
 * writes: the files' bytes did not change when it replaced it. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl_writer.h"
#include "testing.h"

static void same(const json_t *row)
{
	char ours[8192], theirs[8192];
	size_t n = jsonl_encode(row, ours, sizeof(ours));
	size_t m = json_dumpb(row, theirs, sizeof(theirs), JSON_COMPACT);
	if (n != m || memcmp(ours, theirs, n))
		FAILF("encoded %.*s, jansson %.*s", (int)n, ours, (int)m, theirs);
}

TEST(every_kind_of_value)
{
	json_t *row = json_pack("{s:s, s:b, s:b, s:n, s:I, s:I, s:I, s:I, s:[i, i, i], s:{s:{}, s:[]}, s:{}}",
				"episode", "ep.1_x-2", "t", 1, "f", 0, "nothing", "big",
				(json_int_t)INT64_MAX, "small", (json_int_t)INT64_MIN, "zero", (json_int_t)0,
				"neg", (json_int_t)-42, "hist", 0, 3, 17, "by_device", "vda", "hist", "empty");
	same(row);
	json_decref(row);
}

TEST(reals_as_jansson_prints_them)
{
	static const double v[] = {0.0,	 -0.0,	 1.0,	 100.0,	 0.1,	   1.0 / 3,	 2.5e-7, 1e20,
				   1e21, 1e-5,	 1e100,	 -1e-300, 123456789.0, 99.99999999999999,
				   DBL_MAX, DBL_MIN, 4.9e-324, 12.5};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		json_t *row = json_pack("{s:f}", "x", v[i]);
		same(row);
		json_decref(row);
	}
	srand(7);
	for (int i = 0; i < 20000; i++) {
		uint64_t bits = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
		double d;
		memcpy(&d, &bits, sizeof(d));
		if (!isfinite(d))
			continue;
		json_t *row = json_pack("{s:f, s:f}", "r", d, "pct", (double)(rand() % 100000) / 1000.0);
		same(row);
		json_decref(row);
	}
}

TEST(strings_with_every_escape_and_utf8)
{
	static const char *s[] = {"", "plain", "quote\"back\\slash/", "\b\f\n\r\t", "\x01\x1f\x7f",
				  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "tab\tin the middle"};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		json_t *row = json_object();
		json_object_set_new(row, s[i], json_string(s[i]));
		json_object_set_new(row, "labels", json_pack("{s:s}", "k", s[i]));
		same(row);
		json_decref(row);
	}
}

/* Plain text is skipped 8 bytes at a time: an escape at every offset of a
 * long string, each byte that needs one and some that do not (0x20, 0x7f,
 * 0x80 and up, which a word test may flag), beside words without any. */
TEST(an_escape_at_every_offset)
{
	static const unsigned char odd[] = {'"', '\\', 0x00 + 1, 0x1f, '\n', 0x20, 0x7f, 0xc3};
	for (size_t k = 0; k < sizeof(odd); k++)
		for (size_t at = 0; at < 40; at++) {
			char s[41];
			memset(s, 'a' + (char)(at % 26), 40);
			s[40] = '\0';
			s[at] = (char)odd[k];
			if (odd[k] == 0xc3 && at < 39)
				s[at + 1] = (char)0xa9; /* é: valid UTF-8 */
			else if (odd[k] == 0xc3)
				continue;
			json_t *row = json_object();
			json_object_set_new(row, s, json_string(s));
			same(row);
			json_decref(row);
		}
}

TEST(the_length_it_needs_when_it_does_not_fit)
{
	json_t *row = json_pack("{s:s, s:I}", "episode", "quickstart", "seq", (json_int_t)12345);
	char big[256], small[8];
	size_t n = jsonl_encode(row, big, sizeof(big));
	EXPECT_EQ(jsonl_encode(row, small, sizeof(small)), n);
	EXPECT_EQ(n, strlen("{\"episode\":\"quickstart\",\"seq\":12345}"));
	json_t *one = json_integer(1);
	EXPECT_EQ(jsonl_encode(one, big, sizeof(big)), 0); /* not a row */
	json_decref(one);
	json_decref(row);
}
