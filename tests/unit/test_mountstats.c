// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc/PID/mountstats' NFS blocks, on the files the kernel matrix's guests
 * printed (tests/fixtures/proc/mountstats-*: an NFSv4.2 mount served over
 * lo by the guest's own nfsd, read by phasework), and on what a new kernel
 * might add. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/mountstats.h"
#include "testing.h"

TEST(an_nfs4_mount_s_bytes_and_operations)
{
	const char *text = test_fixture("mountstats-6.1-nfs4");
	EXPECT(text != NULL);
	if (!text)
		return;
	struct mountstats s;
	mountstats_init(&s);
	EXPECT_EQ(mountstats_parse(&s, text), 0);
	EXPECT_EQ(s.n, 1); /* rootfs, proc, sysfs, tmpfs, nfsd: not NFS mounts */
	const struct ms_mount *m = mountstats_find(&s, "/nfs");
	EXPECT(m != NULL);
	if (m) {
		EXPECT_STR(m->device, "127.0.0.1:/");
		EXPECT_STR(m->fstype, "nfs4");
		EXPECT_STR(m->version, "4.2");
		EXPECT_STR(m->transport, "tcp");
		EXPECT(m->have_bytes);
		EXPECT_EQ(m->bytes[MB_NORMAL_READ], 22675456);
		EXPECT_EQ(m->bytes[MB_DIRECT_READ], 36700160);
		EXPECT_EQ(m->bytes[MB_SERVER_READ], 59506688);
		const struct ms_op *r = mountstats_op(m, "READ");
		EXPECT(r != NULL);
		if (r) {
			EXPECT_EQ(r->v[MO_OPS], 3632);
			EXPECT_EQ(r->v[MO_BYTES_RECV], 59884416);
			EXPECT_EQ(r->v[MO_QUEUE_MS], 36657);
			EXPECT_EQ(r->v[MO_RTT_MS], 87119);
			EXPECT_EQ(r->v[MO_EXECUTE_MS], 124583);
		}
		EXPECT(mountstats_op(m, "SETCLIENTID_CONFIRM") != NULL);
		EXPECT(m->nop > 40);
	}
	EXPECT_EQ(s.unknown_lines, 0);
	mountstats_free(&s);
}

TEST(linux_5_10_prints_the_same_block)
{
	const char *text = test_fixture("mountstats-5.10-nfs4");
	EXPECT(text != NULL);
	if (!text)
		return;
	struct mountstats s;
	mountstats_init(&s);
	EXPECT_EQ(mountstats_parse(&s, text), 0);
	const struct ms_mount *m = mountstats_find(&s, "/nfs");
	EXPECT(m != NULL && m->have_bytes && m->bytes[MB_SERVER_READ] == 58327040);
	const struct ms_op *r = m ? mountstats_op(m, "READ") : NULL;
	EXPECT(r && r->v[MO_OPS] == 3560 && r->v[MO_RTT_MS] == 86393);
	EXPECT_EQ(s.unknown_lines, 0);
	mountstats_free(&s);
}

/* A line a new kernel adds is counted and kept, not a failure; a path with
 * a space comes escaped; an NFSv3 mount over UDP, of a server by IPv6; an
 * operation line of 8 numbers (kernels before the errors column). */
TEST(a_new_line_an_escaped_path_and_an_older_operation_line)
{
	static const char text[] =
		"device /dev/vda1 mounted on / with fstype ext4\n"
		"device [fd00::1]:/data\\040sets mounted on /mnt/data\\040sets with fstype nfs statvers=1.1\n"
		"\topts:\trw,vers=3,rsize=1048576,proto=udp,mountproto=udp\n"
		"\tage:\t12\n"
		"\tcaps:\tcaps=0x3fcf,wtmult=4096\n"
		"\tsec:\tflavor=1,pseudoflavor=1\n"
		"\tevents:\t1 2 3\n"
		"\tbytes:\t1 2 3 4 5 6 7 8\n"
		"\tnewthing:\t42 43\n"
		"\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)\n"
		"\txprt:\tudp 0 0 1 1 0 0 0 0 0 0\n"
		"\tper-op statistics\n"
		"\t        NULL: 0 0 0 0 0 0 0 0\n"
		"\t     GETATTR: 10 12 1 1000 2000 3 40 50\n"
		"device tmp mounted on /tmp with fstype tmpfs\n"
		"\tbytes:\t9 9 9 9 9 9 9 9\n"
		"\t     GETATTR: 99 99 99 99 99 99 99 99\n"
		"device srv:/b mounted on /b with fstype nfs4 statvers=1.1\n"
		"\topts:\trw,vers=4.1,proto=tcp\n"
		"\tbytes:\t10 20 30 40 50 60 70 80\n"
		"\tper-op statistics\n"
		"\t        READ: 7 7 0 1 2 3 4 5 0\n";
	struct mountstats s;
	mountstats_init(&s);
	EXPECT_EQ(mountstats_parse(&s, text), 0);
	EXPECT_EQ(s.n, 2);
	/* another file system's block ends an NFS one: its lines are none of
	 * the NFS mount's; the next NFS block is its own */
	const struct ms_mount *b = mountstats_find(&s, "/b");
	EXPECT(b && b->bytes[MB_SERVER_READ] == 50 && b->nop == 1 && mountstats_op(b, "READ")->v[MO_OPS] == 7);
	EXPECT_STR(b ? b->version : "", "4.1");
	const struct ms_mount *m = mountstats_find(&s, "/mnt/data sets");
	EXPECT(m != NULL);
	if (m) {
		EXPECT_STR(m->device, "[fd00::1]:/data sets");
		EXPECT_STR(m->fstype, "nfs");
		EXPECT_STR(m->version, "3");
		EXPECT_STR(m->transport, "udp");
		EXPECT_EQ(m->bytes[MB_SERVER_WRITE], 6);
		EXPECT_EQ(m->nop, 2); /* NULL and GETATTR: not the tmpfs block's */
		const struct ms_op *g = mountstats_op(m, "GETATTR");
		EXPECT(g && g->v[MO_OPS] == 10 && g->v[MO_TRANS] == 12 && g->v[MO_TIMEOUTS] == 1 &&
		       g->v[MO_EXECUTE_MS] == 50);
	}
	EXPECT_EQ(s.unknown_lines, 1);
	EXPECT_STR(s.first_unknown, "newthing:\t42 43");
	/* parsed again: what it held is replaced */
	EXPECT_EQ(mountstats_parse(&s, "device proc mounted on /proc with fstype proc\n"), 0);
	EXPECT_EQ(s.n, 0);
	EXPECT_EQ(s.unknown_lines, 0);
	/* nfsd's and an NFS-like name are not NFS mounts; nfs4 ending the
	 * line, without statvers, is */
	EXPECT_EQ(mountstats_parse(&s, "device nfsd mounted on /proc/fs/nfsd with fstype nfsd\n"
				       "\tage:\t1\n"
				       "device s:/x mounted on /x with fstype nfs4x statvers=1.1\n"
				       "device s:/y mounted on /y with fstype nfs4"),
		  0);
	EXPECT_EQ(s.n, 1);
	EXPECT_STR(s.m[0].point, "/y");
	EXPECT_EQ(s.unknown_lines, 0);
	mountstats_free(&s);
}
