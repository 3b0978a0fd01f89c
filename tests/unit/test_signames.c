// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Signal names as a config may spell them. */
#include <signal.h>

#include "signames.h"
#include "testing.h"

TEST(names_with_and_without_prefix)
{
	EXPECT_EQ(signame_parse("SIGTERM"), SIGTERM);
	EXPECT_EQ(signame_parse("TERM"), SIGTERM);
	EXPECT_EQ(signame_parse("sigint"), SIGINT);
	EXPECT_EQ(signame_parse("KILL"), SIGKILL);
	EXPECT_EQ(signame_parse("SIGUSR1"), SIGUSR1);
}

TEST(numbers_and_realtime)
{
	EXPECT_EQ(signame_parse("15"), 15);
	EXPECT_EQ(signame_parse("RTMIN"), SIGRTMIN);
	EXPECT_EQ(signame_parse("SIGRTMIN+2"), SIGRTMIN + 2);
	EXPECT_EQ(signame_parse("RTMAX"), SIGRTMAX);
}

TEST(rejects_what_is_not_a_signal)
{
	EXPECT_EQ(signame_parse("SIGFOO"), 0);
	EXPECT_EQ(signame_parse("0"), 0);
	EXPECT_EQ(signame_parse("65"), 0);
	EXPECT_EQ(signame_parse(""), 0);
	EXPECT_EQ(signame_parse("RTMIN+99"), 0);
}

TEST(prints_names)
{
	char buf[32];
	EXPECT_STR(signame(SIGSEGV, buf, sizeof(buf)), "SIGSEGV");
	EXPECT_STR(signame(SIGRTMIN + 1, buf, sizeof(buf)), "SIGRTMIN+1");
}
