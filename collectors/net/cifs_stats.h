/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The shares of /proc/fs/cifs/Stats, the SMB client's counts (the kernel's
 * fs/smb/client/cifs_debug.c cifs_stats_proc_show, fs/cifs/ before 6.3;
 * the same text from 5.10 to 6.12). After the client's totals and, per
 * server, "Max requests in flight" (and, with CONFIG_CIFS_STATS2, a table
 * of its commands' times), each share connection (a tcon) has a block:
 *
 *   1) \\server\share                          [\tDISCONNECTED ]
 *   SMBs: 18                                   [ since DATE TIME UTC: 6.12]
 *   Bytes read: 1048576  Bytes written: 0      (smb2ops.c smb2_print_stats)
 *   Open files: 0 total (local), 0 open on server
 *   TreeConnects: 1 total 0 failed
 *   Creates: ... Closes: ... Flushes: ... Reads: ... Writes: ... Locks:
 *   ... IOCTLs: ... QueryDirectories: ... ChangeNotifies: ... QueryInfos:
 *   ... SetInfos: N total M failed
 *   OplockBreaks: N sent M failed
 *
 * or, for SMB1 (smb1ops.c cifs_print_stats), "SMBs: N Oplocks breaks: M",
 * "Reads:  N Bytes: B", "Writes: N Bytes: B", "Flushes: N", and lines of
 * other calls, not read. The counts are the share connection's since it
 * was made (or the file was written to, which zeroes them): one connection
 * serves every mount of the share by the same user, and a multiuser mount
 * has one per user, under the same name. */
#ifndef IOPSAMPLE_CIFS_STATS_H
#define IOPSAMPLE_CIFS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CIFS_OPS_MAX 16

struct cifs_op {
	char name[24]; /* the kernel's: "Reads", "QueryInfos", "OplockBreaks" */
	uint64_t calls; /* the first number: "total" or "sent" */
};

struct cifs_share {
	char tree[256]; /* "\\server\share", as the kernel prints it */
	bool disconnected;
	uint64_t smbs; /* requests sent on it */
	bool have_bytes;
	uint64_t read_bytes, write_bytes;
	struct cifs_op op[CIFS_OPS_MAX];
	size_t nop;
	unsigned tcons; /* the share connections summed (cifs_stats_share) */
};

struct cifs_stats {
	struct cifs_share *share;
	size_t n, cap;
};

void cifs_stats_init(struct cifs_stats *s);
void cifs_stats_free(struct cifs_stats *s);
/* Parses text (the whole file) into s, replacing what it held: 0, or
 * -ENOMEM. */
int cifs_stats_parse(struct cifs_stats *s, const char *text);
/* The shares named tree, summed, into *out (how many in out->tcons):
 * false when there is none. The requests and calls are counts the kernel
 * keeps in 32 bits (%d): each here is those 32 bits. */
bool cifs_stats_share(const struct cifs_stats *s, const char *tree, struct cifs_share *out);
/* The share connection name ("\\server\share") of a cifs mount's source
 * as mountinfo shows it ("//server/share/prefix"; 5.10's raw device, with
 * its backslashes), unescaped: false when it names no share. */
bool cifs_tree_of_source(const char *source, char *tree, size_t cap);

#endif
