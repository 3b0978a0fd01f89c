// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pidmap against a plain array, through growth and backward-shift deletes. */
#include <stdlib.h>

#include "pidmap.h"
#include "testing.h"

#define RANGE 3000

TEST(random_operations_match_a_reference)
{
	static int ref[RANGE]; /* 0: absent, else value */
	struct pidmap m = {0};
	srand(7);
	for (int step = 0; step < 200000; step++) {
		/* pids clustered so probe runs collide and wrap */
		pid_t pid = 1 + (rand() % 4 ? rand() % 300 : rand() % (RANGE - 1));
		int op = rand() % 3;
		if (op == 0) {
			int r = pidmap_add(&m, pid, step + 1);
			EXPECT_EQ(r, ref[pid] ? 0 : 1);
			if (!ref[pid])
				ref[pid] = step + 1;
		} else if (op == 1) {
			EXPECT_EQ(pidmap_del(&m, pid), ref[pid] ? 1 : 0);
			ref[pid] = 0;
		} else {
			int64_t *v = pidmap_get(&m, pid);
			if (ref[pid]) {
				EXPECT(v != NULL);
				EXPECT_EQ(*v, ref[pid]);
			} else {
				EXPECT(v == NULL);
			}
		}
	}
	size_t n = 0;
	for (pid_t p = 1; p < RANGE; p++) {
		int64_t *v = pidmap_get(&m, p);
		EXPECT_EQ(v != NULL, ref[p] != 0);
		n += ref[p] != 0;
	}
	EXPECT_EQ(m.count, n);
	pidmap_clear(&m);
	EXPECT(pidmap_get(&m, 5) == NULL);
	EXPECT_EQ(m.count, 0);
	pidmap_free(&m);
}

TEST(deleting_from_a_wrapped_run_keeps_the_rest_reachable)
{
	struct pidmap m = {0};
	pid_t pids[40];
	/* fill enough to force several entries into one probe run */
	for (int i = 0; i < 40; i++) {
		pids[i] = 64 * (i + 1); /* same low bits, many share a home */
		EXPECT_EQ(pidmap_add(&m, pids[i], i), 1);
	}
	for (int i = 0; i < 40; i += 2)
		EXPECT_EQ(pidmap_del(&m, pids[i]), 1);
	for (int i = 0; i < 40; i++) {
		int64_t *v = pidmap_get(&m, pids[i]);
		if (i % 2)
			EXPECT(v && *v == i);
		else
			EXPECT(v == NULL);
	}
	pidmap_free(&m);
}
