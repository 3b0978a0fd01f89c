// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* struct taskstats payloads of several kernels' layouts, decoded. */
#include <errno.h>
#include <linux/taskstats.h>
#include <string.h>

#include "taskstats/ts_record.h"
#include "testing.h"

static void put(unsigned char *p, size_t at, uint64_t v)
{
	memcpy(p + at, &v, sizeof(v));
}

#define AT(f) offsetof(struct taskstats, f)

TEST(a_current_kernels_struct_has_every_field)
{
	unsigned char p[1024] = {0};
	struct taskstats *t = (struct taskstats *)p;
	t->version = 16;
	t->ac_pid = 4242;
	t->ac_ppid = 7;
	t->ac_tgid = 4200;
	t->cpu_delay_total = 11;
	t->cpu_count = 12;
	t->blkio_delay_total = 13;
	t->read_bytes = 4096;
	t->cancelled_write_bytes = 8192;
	t->read_syscalls = 1024;
	t->nivcsw = 5;
	t->cpu_run_real_total = 96;    /* tick-sampled: not the one taken */
	t->cpu_run_virtual_total = 99; /* the scheduler's runtime */
	t->wpcopy_count = 3;
	t->ac_etime = 1500; /* us */
	/* version 14's irq fields follow version 13's struct */
	put(p, sizeof(struct taskstats), 77);     /* irq_count */
	put(p, sizeof(struct taskstats) + 8, 78); /* irq_delay_total */
	struct ts_record r;
	EXPECT_EQ(ts_decode(p, 560, &r), 0);
	EXPECT_EQ(r.version, 16);
	EXPECT_EQ(r.tid, 4242);
	EXPECT_EQ(r.ppid, 7);
	EXPECT_EQ(r.tgid, 4200);
	EXPECT_EQ(r.present, TS_ALL);
	EXPECT_EQ(r.v[TS_CPU_DELAY], 11);
	EXPECT_EQ(r.v[TS_CPU_COUNT], 12);
	EXPECT_EQ(r.v[TS_BLKIO_DELAY], 13);
	EXPECT_EQ(r.v[TS_READ_BYTES], 4096);
	EXPECT_EQ(r.v[TS_CANCELLED_WRITE_BYTES], 8192);
	EXPECT_EQ(r.v[TS_READ_SYSCALLS], 1024);
	EXPECT_EQ(r.v[TS_INVOLUNTARY_CTXSW], 5);
	EXPECT_EQ(r.v[TS_CPU_RUN_REAL], 99);
	EXPECT_EQ(r.v[TS_WPCOPY_COUNT], 3);
	EXPECT_EQ(r.v[TS_IRQ_COUNT], 77);
	EXPECT_EQ(r.v[TS_IRQ_DELAY], 78);
	EXPECT_EQ(r.age_ns, 1500000);
}

TEST(an_older_struct_lacks_what_came_later)
{
	/* version 8: up to freepages, no thrashing (9), compact (11), tgid
	 * (12), wpcopy (13), irq (14) */
	unsigned char p[1024] = {0};
	struct taskstats *t = (struct taskstats *)p;
	t->version = 8;
	t->ac_pid = 10;
	t->freepages_delay_total = 5;
	struct ts_record r;
	EXPECT_EQ(ts_decode(p, AT(thrashing_count), &r), 0);
	EXPECT_EQ(r.tgid, 0); /* unknown */
	EXPECT_EQ(r.v[TS_FREEPAGES_DELAY], 5);
	EXPECT(r.present & TS_BIT(TS_FREEPAGES_COUNT));
	EXPECT(r.present & TS_BIT(TS_READ_BYTES));
	uint32_t later = TS_BIT(TS_THRASHING_DELAY) | TS_BIT(TS_THRASHING_COUNT) | TS_BIT(TS_COMPACT_DELAY) |
			 TS_BIT(TS_COMPACT_COUNT) | TS_BIT(TS_WPCOPY_DELAY) | TS_BIT(TS_WPCOPY_COUNT) |
			 TS_BIT(TS_IRQ_DELAY) | TS_BIT(TS_IRQ_COUNT);
	EXPECT_EQ(r.present, TS_ALL & ~later);
	/* too short for even the ids */
	EXPECT_EQ(ts_decode(p, 40, &r), -EPROTO);
}

TEST(version_15_is_read_with_its_own_offsets)
{
	/* 15 put max and min (16 bytes) after each of the 8 delay totals */
	unsigned char p[1024] = {0};
	uint16_t v = 15;
	memcpy(p, &v, sizeof(v));
	put(p, AT(cpu_count), 1);                     /* before any total */
	put(p, AT(cpu_delay_total), 2);               /* the first total itself */
	put(p, AT(blkio_count) + 16, 3);              /* after cpu's */
	put(p, AT(read_bytes) + 3 * 16, 4096);        /* after cpu, blkio, swapin */
	put(p, AT(cpu_run_virtual_total) + 3 * 16, 55);
	put(p, AT(wpcopy_delay_total) + 6 * 16, 9);   /* ... freepages, thrashing, compact */
	put(p, sizeof(struct taskstats) + 7 * 16, 8); /* irq_count, after wpcopy's */
	uint32_t tid = 321;
	memcpy(p + AT(ac_pid) + 3 * 16, &tid, sizeof(tid));
	put(p, AT(ac_etime) + 3 * 16, 70);
	struct ts_record r;
	EXPECT_EQ(ts_decode(p, sizeof(struct taskstats) + 16 + 8 * 16, &r), 0);
	EXPECT_EQ(r.present, TS_ALL);
	EXPECT_EQ(r.v[TS_CPU_COUNT], 1);
	EXPECT_EQ(r.v[TS_CPU_DELAY], 2);
	EXPECT_EQ(r.v[TS_BLKIO_COUNT], 3);
	EXPECT_EQ(r.v[TS_READ_BYTES], 4096);
	EXPECT_EQ(r.v[TS_CPU_RUN_REAL], 55);
	EXPECT_EQ(r.v[TS_WPCOPY_DELAY], 9);
	EXPECT_EQ(r.v[TS_IRQ_COUNT], 8);
	EXPECT_EQ(r.tid, 321);
	EXPECT_EQ(r.age_ns, 70000);
}

TEST(the_delayacct_mask_is_the_seven_kinds_that_need_the_sysctl)
{
	EXPECT(!(TS_DELAYACCT & TS_BIT(TS_CPU_DELAY)));
	EXPECT(!(TS_DELAYACCT & TS_BIT(TS_CPU_COUNT)));
	EXPECT(TS_DELAYACCT & TS_BIT(TS_BLKIO_DELAY));
	EXPECT(TS_DELAYACCT & TS_BIT(TS_IRQ_COUNT));
	EXPECT(!(TS_DELAYACCT & TS_BIT(TS_READ_BYTES)));
	EXPECT_EQ(__builtin_popcount(TS_DELAYACCT), 14);
	EXPECT_STR(ts_field_names[TS_IRQ_COUNT], "irq_delay_count");
	EXPECT_STR(ts_field_names[TS_CPU_RUN_REAL], "cpu_run_real_ns");
}
