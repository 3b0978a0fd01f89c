// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The ptrace tracer's access-pattern records: what Darshan's POSIX module
 * would make of a sequence of calls (its rules written down in
 * sio_rules.h; Darshan itself judges whole programs in tests/e2e/darshan.sh),
 * and the table under many processes and descriptors. */
#include "syscall_io/sio_records.h"
#include "testing.h"

#define BIT(p) (1u << (p))
static const struct sio_file_id A = {8, 100}, B = {8, 200};

TEST(a_descriptor_it_did_not_open_counts_nothing)
{
	struct sio_records r = {0};
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_READ, SIO_AT_RECORD_OFFSET, 100), 0u);
	EXPECT_EQ(sio_records_open(&r, 10, 3, A, 4096), 0);
	/* another process's descriptor 3 is not this one's */
	EXPECT_EQ(sio_records_access(&r, 11, 3, IO_READ, 1, 100), 0u);
	sio_records_free(&r);
}

TEST(reads_start_at_the_records_offset_which_pread_moves)
{
	struct sio_records r = {0};
	EXPECT_EQ(sio_records_open(&r, 10, 3, A, 4096), 0);
	/* read of 100 at 0: neither sequential nor consecutive, aligned */
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_READ, SIO_AT_RECORD_OFFSET, 100), 0u);
	/* pread at 8192: sequential; the offset is now 8292 */
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_READ, 8192, 100), BIT(SIO_SEQ_READS));
	/* a read() starts at 8292: right after the last byte, unaligned */
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_READ, SIO_AT_RECORD_OFFSET, 10),
		  BIT(SIO_SEQ_READS) | BIT(SIO_CONSEC_READS) | BIT(SIO_UNALIGNED_READS));
	/* a write switches; lseek sets the offset */
	sio_records_seek(&r, 10, 3, 4096);
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_WRITE, SIO_AT_RECORD_OFFSET, 4096),
		  BIT(SIO_SEQ_WRITES) | BIT(SIO_RW_SWITCHES));
	/* -1 as given (preadv2): unaligned, before the last byte */
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_READ, -1, 10), BIT(SIO_RW_SWITCHES) | BIT(SIO_UNALIGNED_READS));
	sio_records_free(&r);
}

TEST(dup_shares_the_record_and_close_resets_the_last_bytes)
{
	struct sio_records r = {0};
	EXPECT_EQ(sio_records_open(&r, 10, 3, A, 4096), 0);
	EXPECT_EQ(sio_records_dup(&r, 10, 3, 7), 0);
	EXPECT_EQ(sio_records_access(&r, 10, 7, IO_READ, SIO_AT_RECORD_OFFSET, 50), 0u);
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_READ, SIO_AT_RECORD_OFFSET, 50),
		  BIT(SIO_SEQ_READS) | BIT(SIO_CONSEC_READS) | BIT(SIO_UNALIGNED_READS));
	/* closing the twin: last bytes to 0, the offset (100) stays */
	sio_records_close(&r, 10, 7);
	EXPECT_EQ(sio_records_access(&r, 10, 7, IO_READ, SIO_AT_RECORD_OFFSET, 50), 0u); /* gone */
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_READ, SIO_AT_RECORD_OFFSET, 50),
		  BIT(SIO_SEQ_READS) | BIT(SIO_UNALIGNED_READS));
	/* a dup of an unknown descriptor knows nothing */
	EXPECT_EQ(sio_records_dup(&r, 10, 5, 6), 0);
	EXPECT_EQ(sio_records_access(&r, 10, 6, IO_READ, 1, 50), 0u);
	sio_records_free(&r);
}

TEST(an_open_again_resets_all_but_the_last_kind)
{
	struct sio_records r = {0};
	EXPECT_EQ(sio_records_open(&r, 10, 3, B, 512), 0);
	EXPECT_EQ(sio_records_access(&r, 10, 3, IO_WRITE, SIO_AT_RECORD_OFFSET, 1000), 0u);
	EXPECT_EQ(sio_records_open(&r, 10, 4, B, 512), 0);
	/* at 1: consecutive after byte 0; a switch from the write before the open */
	EXPECT_EQ(sio_records_access(&r, 10, 4, IO_READ, 1, 10),
		  BIT(SIO_SEQ_READS) | BIT(SIO_CONSEC_READS) | BIT(SIO_RW_SWITCHES) | BIT(SIO_UNALIGNED_READS));
	sio_records_free(&r);
}

TEST(many_processes_and_descriptors_come_and_go)
{
	struct sio_records r = {0};
	/* 4096 processes of 8 descriptors each, then every other forgotten,
	 * the rest still right; then opened again over the tombstones */
	for (int round = 0; round < 2; round++) {
		for (pid_t p = 1; p <= 4096; p++)
			for (int fd = 3; fd < 11; fd++)
				EXPECT_EQ(sio_records_open(&r, p, fd, (struct sio_file_id){1, (uint64_t)fd}, 4096), 0);
		for (pid_t p = 2; p <= 4096; p += 2)
			sio_records_forget(&r, p);
		for (pid_t p = 1; p <= 4096; p++)
			for (int fd = 3; fd < 11; fd++) {
				/* a first read at byte 1 after the open: consecutive */
				unsigned want = p % 2 ? BIT(SIO_SEQ_READS) | BIT(SIO_CONSEC_READS) |
								BIT(SIO_UNALIGNED_READS)
						      : 0u;
				EXPECT_EQ(sio_records_access(&r, p, fd, IO_READ, 1, 1), want);
			}
	}
	EXPECT(r.cap >= 2 * r.used);
	sio_records_free(&r);
	EXPECT(r.cap == 0 && r.slot == NULL);
}
