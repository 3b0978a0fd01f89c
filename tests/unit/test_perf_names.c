// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Event names: the field rule and what libpfm4 makes of a name. */
#include <errno.h>

#include "perf_event/perf_names.h"
#include "testing.h"

static const char *field(const char *event)
{
	static char out[PERF_NAME_MAX];
	if (perf_name_field(event, out, sizeof(out)) < 0)
		FAILF("no field for %s", event);
	return out;
}

TEST(a_field_is_the_name_lower_cased_with_underscores)
{
	EXPECT_STR(field("cache-misses"), "cache_misses");
	EXPECT_STR(field("cycles"), "cycles");
	EXPECT_STR(field("INST_RETIRED:ANY_P"), "inst_retired_any_p");
	EXPECT_STR(field("perf::page-faults"), "perf__page_faults");
	EXPECT_STR(field("cycles:u=1:k=0"), "cycles_u_1_k_0");
	EXPECT_STR(field("L1-dcache-load-misses"), "l1_dcache_load_misses");
	EXPECT_STR(field("caf\xc3\xa9 x"), "caf___x"); /* bytes, not letters, outside ASCII */
}

TEST(a_field_that_does_not_fit_is_refused)
{
	char out[8];
	EXPECT_EQ(perf_name_field("1234567", out, sizeof(out)), 0);
	EXPECT_EQ(perf_name_field("12345678", out, sizeof(out)), -ENAMETOOLONG);
}

static void encode(const char *event, bool user_only, struct perf_event_attr *attr, char *pfm)
{
	struct errbuf why;
	if (perf_name_encode(event, user_only, attr, pfm, 512, &why) < 0)
		FAILF("%s: %s", event, why.msg);
}

TEST(generic_names_encode_as_perfs_own_events)
{
	struct perf_event_attr a;
	char pfm[512];
	encode("page-faults", false, &a, pfm);
	EXPECT_EQ(a.type, PERF_TYPE_SOFTWARE);
	EXPECT_EQ(a.config, PERF_COUNT_SW_PAGE_FAULTS);
	EXPECT_EQ(a.exclude_kernel, 0);
	EXPECT_EQ(a.exclude_user, 0);
	EXPECT_CONTAINS(pfm, "perf::PERF_COUNT_SW_PAGE_FAULTS:");
	EXPECT_CONTAINS(pfm, ":u=1:k=1");
	encode("cycles", false, &a, pfm);
	EXPECT_EQ(a.type, PERF_TYPE_HARDWARE);
	EXPECT_EQ(a.config & PERF_HW_EVENT_MASK, PERF_COUNT_HW_CPU_CYCLES);
	encode("perf::PERF_COUNT_HW_INSTRUCTIONS", false, &a, pfm);
	EXPECT_EQ(a.config & PERF_HW_EVENT_MASK, PERF_COUNT_HW_INSTRUCTIONS);
	encode("TASK-CLOCK", false, &a, pfm);
	EXPECT_EQ(a.config, PERF_COUNT_SW_TASK_CLOCK);
}

TEST(user_only_is_a_default_a_name_can_override)
{
	struct perf_event_attr a;
	char pfm[512];
	encode("page-faults", true, &a, pfm);
	EXPECT_EQ(a.exclude_kernel, 1);
	EXPECT_EQ(a.exclude_user, 0);
	EXPECT_CONTAINS(pfm, ":u=1:k=0");
	encode("cycles:u", false, &a, pfm);
	EXPECT_EQ(a.exclude_kernel, 1);
	encode("page-faults:k=1", true, &a, pfm); /* asks for the kernel itself */
	EXPECT_EQ(a.exclude_kernel, 0);
}

TEST(unknown_names_are_enoent_with_libpfm4s_reason)
{
	struct perf_event_attr a;
	char pfm[512];
	struct errbuf why;
	EXPECT_EQ(perf_name_encode("no-such-event", false, &a, pfm, sizeof(pfm), &why), -ENOENT);
	EXPECT_CONTAINS(why.msg, "event not found");
	EXPECT(perf_name_encode("cycles:nosuchmod", false, &a, pfm, sizeof(pfm), &why) < 0);
	EXPECT(perf_name_encode("", false, &a, pfm, sizeof(pfm), &why) < 0);
}

static int count_names(const struct perf_name_info *ni, void *arg)
{
	size_t *n = arg;
	if (!strcmp(ni->pmu, "perf") && !strcmp(ni->event, "PERF_COUNT_SW_PAGE_FAULTS") && !ni->umask)
		n[0]++;
	if (!strcmp(ni->event, "PAGE-FAULTS") && ni->equiv && !strcmp(ni->equiv, "PERF_COUNT_SW_PAGE_FAULTS"))
		n[1]++;
	if (ni->umask && !strcmp(ni->event, "PERF_COUNT_HW_CACHE_L1D") && !strcmp(ni->umask, "MISS"))
		n[2]++;
	return 0;
}

TEST(every_linux_host_lists_perfs_generic_events)
{
	struct perf_pmu pmus[64];
	size_t n = perf_names_pmus(pmus, 64), perf = 0;
	for (size_t i = 0; i < n; i++)
		perf += !strcmp(pmus[i].name, "perf") && !pmus[i].core;
	EXPECT_EQ(perf, 1);
	size_t seen[3] = {0};
	EXPECT_EQ(perf_names_each(count_names, seen), 0);
	EXPECT_EQ(seen[0], 1);
	EXPECT_EQ(seen[1], 1); /* an alias names what it stands for */
	EXPECT_EQ(seen[2], 1); /* unit masks are listed */
}
