// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An iopsample cgroup's owner in its name: written and read back exactly,
 * other names left alone, and this process never gone to itself. */
#include <errno.h>
#include <unistd.h>

#include "cg_owner.h"
#include "testing.h"

TEST(a_name_reads_back_its_owner)
{
	struct cg_owner o = {.pid = 4242, .start = 123456789, .pidns = 4026531836u}, back;
	char name[256];
	/* episode names may hold digits, dashes and dots */
	EXPECT_EQ(cg_owner_name(&o, "run-5-12.3", name, sizeof(name)), 0);
	EXPECT_STR(name, "iopsample-run-5-12.3@4242-123456789-4026531836");
	EXPECT(cg_owner_parse(name, &back));
	EXPECT_EQ(back.pid, 4242);
	EXPECT_EQ(back.start, 123456789u);
	EXPECT_EQ(back.pidns, 4026531836u);
	EXPECT_EQ(cg_owner_name(&o, "x", name, 20), -ENAMETOOLONG);
}

TEST(other_names_are_no_owner)
{
	static const char *const names[] = {
		"iopsample-build-4242",           /* before owners carried a start time */
		"user.slice",                     /* not ours */
		"iopsample-x@",                   /* cut */
		"iopsample-x@12-34",              /* no pid namespace */
		"iopsample-x@0-1-2",              /* no pid 0 */
		"iopsample-x@12-34-5x",           /* not a number */
		"iopsample-x@-12-34-5",
		"iopsample-x@99999999999-1-2",    /* no such pid */
		"other-x@12-34-5",
	};
	struct cg_owner o;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (cg_owner_parse(names[i], &o))
			FAILF("%s read as an owner", names[i]);
}

TEST(this_process_is_not_gone_and_a_changed_start_is)
{
	struct cg_owner o;
	EXPECT_EQ(cg_owner_self(&o), 0);
	EXPECT(!cg_owner_gone(&o));
	struct cg_owner reused = o;
	reused.start++; /* the pid, taken by another process */
	EXPECT(cg_owner_gone(&reused));
	struct cg_owner elsewhere = reused;
	elsewhere.pidns++; /* another pid namespace: never taken for gone */
	EXPECT(!cg_owner_gone(&elsewhere));
}
