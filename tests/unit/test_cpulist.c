// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* CPU lists: a per-CPU array needs a slot for the highest id, not one per
 * CPU, where the possible mask is sparse. */
#include <errno.h>

#include "cpulist.h"
#include "testing.h"

TEST(the_highest_id_of_dense_and_sparse_lists)
{
	EXPECT_EQ(cpulist_highest("0\n"), 0);
	EXPECT_EQ(cpulist_highest("0-1\n"), 1);
	EXPECT_EQ(cpulist_highest("0,2"), 2);      /* two CPUs, three slots */
	EXPECT_EQ(cpulist_highest("0-3,8-11\n"), 11); /* eight CPUs, twelve slots */
	EXPECT_EQ(cpulist_highest("5,1-2"), 5);
	EXPECT_EQ(cpulist_highest("0-255"), 255);
}

TEST(what_is_no_list_is_refused)
{
	const char *bad[] = {"", "\n", "a", "1-", "-1", "3-1", "0,", "0-1x", "1,,2", "99999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(cpulist_highest(bad[i]), -EINVAL);
}

TEST(this_hosts_possible_cpus_get_a_slot_each)
{
	int slots = cpulist_possible_slots();
	EXPECT(slots >= 1);
}
