// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* libFuzzer target for the config loader (make fuzz).
 *
 * Besides not crashing, leaking or invoking undefined behaviour, every input
 * must either load, or fail with one line naming the position at fault:
 * "fuzz.yaml:LINE:COL: what". A config that loads must load again from its
 * own resolved form (config_to_json's output, which is YAML too) into the
 * same resolved form. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static void fail(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_config: %s: %s\n", what, text);
	abort();
}

static void check_message(const char *msg)
{
	unsigned long line, col;
	int end = 0;
	if (sscanf(msg, "fuzz.yaml:%lu:%lu: %n", &line, &col, &end) != 2 || !end || !line || !col)
		fail("an error without its position", msg);
	for (const char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			fail("an error message with a control character", msg);
}

static void check_round_trip(const struct config *cfg)
{
	json_t *resolved = config_to_json(cfg);
	char *text = json_dumps(resolved, JSON_COMPACT);
	if (!text)
		fail("config_to_json gave something json_dumps cannot write", "");
	struct config again;
	struct errbuf e;
	if (config_load_buffer("fuzz.yaml", text, strlen(text), cfg->dir, NULL, &again, &e) < 0)
		fail("the resolved config does not load back", e.msg);
	json_t *twice = config_to_json(&again);
	if (!json_equal(resolved, twice))
		fail("the resolved config loads back as a different config", text);
	json_decref(twice);
	config_free(&again);
	free(text);
	json_decref(resolved);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg;
	struct errbuf e;
	if (size > CONFIG_MAX_BYTES)
		return -1; /* the file loader refuses these before parsing */
	int r = config_load_buffer("fuzz.yaml", (const char *)data, size, "/", NULL, &cfg, &e);
	if (r == 0) {
		check_round_trip(&cfg);
		config_free(&cfg);
	} else if (r == -EINVAL) {
		check_message(e.msg);
	} else if (r != -ENOMEM) {
		fail("an error other than a bad config", e.msg);
	}
	return 0;
}
