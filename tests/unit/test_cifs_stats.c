// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc/fs/cifs/Stats' shares, on text made from the kernel's own format
 * strings (fs/cifs/cifs_debug.c cifs_stats_proc_show and smb2ops.c
 * smb2_print_stats of 5.10 and 6.1; fs/smb/client/ of 6.12, whose SMBs
 * line gained " since DATE UTC"; smb1ops.c cifs_print_stats), with
 * CONFIG_CIFS_STATS2's table of command times between a server's line and
 * its shares; and on the file a kernel-matrix guest printed
 * (tests/fixtures/proc/cifs-stats-6.12-smb3: Debian's 6.12, an SMB 3.1.1
 * mount of its own ksmbd over lo, after phasework's reads). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/cifs_stats.h"
#include "testing.h"

static const char header[] = "Resources in use\n"
			     "CIFS Session: 2\n"
			     "Share (unique mount targets): 4\n"
			     "SMB Request/Response Buffer: 1 Pool size: 5\n"
			     "SMB Small Req/Resp Buffer: 1 Pool size: 30\n"
			     "Total Large 12 Small 140 Allocations\n"
			     "Operations (MIDs): 0\n"
			     "\n"
			     "0 session 0 share reconnects\n"
			     "Total vfs operations: 31 maximum at one time: 2\n";

static const char smb2_share[] = "Bytes read: 1048576  Bytes written: 65536\n"
				 "Open files: 1 total (local), 1 open on server\n"
				 "TreeConnects: 1 total 0 failed\n"
				 "TreeDisconnects: 0 total 0 failed\n"
				 "Creates: 3 total 1 failed\n"
				 "Closes: 2 total 0 failed\n"
				 "Flushes: 1 total 0 failed\n"
				 "Reads: 16 total 0 failed\n"
				 "Writes: 1 total 0 failed\n"
				 "Locks: 0 total 0 failed\n"
				 "IOCTLs: 0 total 0 failed\n"
				 "QueryDirectories: 0 total 0 failed\n"
				 "ChangeNotifies: 0 total 0 failed\n"
				 "QueryInfos: 4 total 0 failed\n"
				 "SetInfos: 0 total 0 failed\n"
				 "OplockBreaks: 0 sent 0 failed";

static uint64_t calls(const struct cifs_share *sh, const char *name)
{
	for (size_t i = 0; i < sh->nop; i++)
		if (!strcmp(sh->op[i].name, name))
			return sh->op[i].calls;
	return ~0ull;
}

TEST(smb3_shares_of_two_servers_with_the_command_table)
{
	static char text[8192];
	snprintf(text, sizeof(text),
		 "%s\nMax requests in flight: 3\n"
		 "Total time spent processing by command. Time units are jiffies (250 per second)\n"
		 "  SMB3 CMD\tNumber\tTotal Time\tFastest\tSlowest\n"
		 "  --------\t------\t----------\t-------\t-------\n"
		 "  0\t\t1\t0\t\t0\t0\n"
		 "  8\t\t16\t4\t\t0\t1\n"
		 "\n1) \\\\10.0.0.1\\data\nSMBs: 28\n%s"
		 "\n2) \\\\10.0.0.1\\home\tDISCONNECTED \nSMBs: 5\n%s"
		 "\nMax requests in flight: 1"
		 "\n3) \\\\10.0.0.1\\data\nSMBs: 2\nBytes read: 10  Bytes written: 20\nReads: 1 total 0 failed\n",
		 header, smb2_share, smb2_share);
	struct cifs_stats s;
	cifs_stats_init(&s);
	EXPECT_EQ(cifs_stats_parse(&s, text), 0);
	EXPECT_EQ(s.n, 3);
	EXPECT_STR(s.share[0].tree, "\\\\10.0.0.1\\data");
	EXPECT(!s.share[0].disconnected && s.share[1].disconnected);
	EXPECT_STR(s.share[1].tree, "\\\\10.0.0.1\\home");
	EXPECT_EQ(s.share[0].smbs, 28);
	EXPECT(s.share[0].have_bytes);
	EXPECT_EQ(s.share[0].read_bytes, 1048576);
	EXPECT_EQ(s.share[0].write_bytes, 65536);
	EXPECT_EQ(s.share[0].nop, 14); /* TreeConnects ... OplockBreaks, not Open files */
	EXPECT_EQ(calls(&s.share[0], "Reads"), 16);
	EXPECT_EQ(calls(&s.share[0], "Creates"), 3);
	EXPECT_EQ(calls(&s.share[0], "OplockBreaks"), 0);
	/* the same share by another user (a multiuser mount): summed */
	struct cifs_share sum;
	EXPECT(cifs_stats_share(&s, "\\\\10.0.0.1\\data", &sum));
	EXPECT_EQ(sum.smbs, 30);
	EXPECT_EQ(sum.read_bytes, 1048586);
	EXPECT_EQ(sum.write_bytes, 65556);
	EXPECT_EQ(calls(&sum, "Reads"), 17);
	EXPECT_EQ(calls(&sum, "Writes"), 1);
	EXPECT_EQ(sum.tcons, 2);
	EXPECT(!cifs_stats_share(&s, "\\\\10.0.0.1\\Data", &sum)); /* as the kernel compares: exactly */
	cifs_stats_free(&s);
}

TEST(linux_6_12_says_since_when)
{
	static char text[4096];
	snprintf(text, sizeof(text), "%s\nMax requests in flight: 2\n1) \\\\srv\\s\nSMBs: 7 since 2026-11-29 10:00:00 UTC\n%s\n",
		 header, smb2_share);
	struct cifs_stats s;
	cifs_stats_init(&s);
	EXPECT_EQ(cifs_stats_parse(&s, text), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(s.share[0].smbs, 7);
	EXPECT_EQ(calls(&s.share[0], "Reads"), 16);
	/* parsed again: what it held is replaced */
	EXPECT_EQ(cifs_stats_parse(&s, header), 0);
	EXPECT_EQ(s.n, 0);
	cifs_stats_free(&s);
}

TEST(a_count_past_2_31_is_its_32_bits)
{
	/* the kernel prints an atomic_t with %d */
	const char text[] = "1) \\\\s\\x\nSMBs: -2147483646\nReads: -1 total 0 failed\n";
	struct cifs_stats s;
	cifs_stats_init(&s);
	EXPECT_EQ(cifs_stats_parse(&s, text), 0);
	EXPECT_EQ(s.n, 1);
	EXPECT_EQ(s.share[0].smbs, 2147483650u);
	EXPECT_EQ(calls(&s.share[0], "Reads"), 4294967295u);
	cifs_stats_free(&s);
}

TEST(smb1_counts_its_reads_and_writes_with_their_bytes)
{
	static char text[4096];
	snprintf(text, sizeof(text),
		 "%s\nMax requests in flight: 1\n1) \\\\old\\share\nSMBs: 40 Oplocks breaks: 0\n"
		 "Reads:  12 Bytes: 49152\n"
		 "Writes: 3 Bytes: 4096\n"
		 "Flushes: 1\n"
		 "Locks: 0 HardLinks: 0 Symlinks: 0\n"
		 "Opens: 2 Closes: 2 Deletes: 0\n"
		 "Posix Opens: 0 Posix Mkdirs: 0\n"
		 "Mkdirs: 0 Rmdirs: 0\n"
		 "Renames: 0 T2 Renames 0\n"
		 "FindFirst: 1 FNext 0 FClose 0\n",
		 header);
	struct cifs_stats s;
	cifs_stats_init(&s);
	EXPECT_EQ(cifs_stats_parse(&s, text), 0);
	EXPECT_EQ(s.n, 1);
	const struct cifs_share *sh = &s.share[0];
	EXPECT_EQ(sh->smbs, 40);
	EXPECT(sh->have_bytes);
	EXPECT_EQ(sh->read_bytes, 49152);
	EXPECT_EQ(sh->write_bytes, 4096);
	EXPECT_EQ(sh->nop, 3); /* Reads, Writes, Flushes: the lines of one call */
	EXPECT_EQ(calls(sh, "Reads"), 12);
	EXPECT_EQ(calls(sh, "Flushes"), 1);
	cifs_stats_free(&s);
}

TEST(a_mount_s_source_names_its_share)
{
	char tree[256];
	EXPECT(cifs_tree_of_source("//10.0.0.1/data", tree, sizeof(tree)));
	EXPECT_STR(tree, "\\\\10.0.0.1\\data");
	EXPECT(cifs_tree_of_source("//srv/data/sub/dir", tree, sizeof(tree)));
	EXPECT_STR(tree, "\\\\srv\\data");
	/* 5.10 shows the device as given: backslashes (unescaped from \134) */
	EXPECT(cifs_tree_of_source("\\\\srv\\data", tree, sizeof(tree)));
	EXPECT_STR(tree, "\\\\srv\\data");
	EXPECT(!cifs_tree_of_source("//srv", tree, sizeof(tree)));
	EXPECT(!cifs_tree_of_source("//srv/", tree, sizeof(tree)));
	EXPECT(!cifs_tree_of_source("srv:/data", tree, sizeof(tree)));
	EXPECT(!cifs_tree_of_source("//srv/data", tree, 8));
}

TEST(linux_6_12_s_own_file)
{
	const char *text = test_fixture("cifs-stats-6.12-smb3");
	EXPECT(text != NULL);
	if (!text)
		return;
	struct cifs_stats s;
	cifs_stats_init(&s);
	EXPECT_EQ(cifs_stats_parse(&s, text), 0);
	EXPECT_EQ(s.n, 1); /* the command table's 19 rows are no share */
	struct cifs_share sh;
	EXPECT(cifs_stats_share(&s, "\\\\127.0.0.1\\share", &sh));
	EXPECT_EQ(sh.smbs, 831);
	EXPECT(sh.have_bytes);
	EXPECT_EQ(sh.read_bytes, 103153664);
	EXPECT_EQ(sh.write_bytes, 0);
	EXPECT_EQ(calls(&sh, "Reads"), 811);
	EXPECT_EQ(calls(&sh, "Creates"), 6);
	EXPECT_EQ(calls(&sh, "IOCTLs"), 1);
	EXPECT_EQ(sh.nop, 14);
	cifs_stats_free(&s);
}
