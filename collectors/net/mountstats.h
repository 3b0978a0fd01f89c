/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The NFS mounts' blocks of /proc/PID/mountstats, as nfsiostat reads them
 * (nfs-utils' tools/mountstats/mountstats.py; the kernel's
 * fs/nfs/super.c nfs_show_stats and net/sunrpc/stats.c):
 *
 *   device SERVER:/EXPORT mounted on POINT with fstype nfs4 statvers=1.1
 *   	opts:	rw,vers=4.2,...,proto=tcp,...
 *   	bytes:	normalread normalwrite directread directwrite serverread
 *   		serverwrite readpages writepages
 *   	xprt:	tcp ...
 *   	per-op statistics
 *   	        READ: ops trans timeouts bytes_sent bytes_recv queue_ms rtt_ms
 *   	              execute_ms [errors]
 *
 * A line of an NFS block the parser does not know (a new kernel's) is
 * counted and the first kept, never a failure; other file systems' lines
 * ("device proc mounted on /proc with fstype proc") are skipped. */
#ifndef IOPSAMPLE_MOUNTSTATS_H
#define IOPSAMPLE_MOUNTSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ms_op_field { MO_OPS, MO_TRANS, MO_TIMEOUTS, MO_BYTES_SENT, MO_BYTES_RECV, MO_QUEUE_MS, MO_RTT_MS,
		   MO_EXECUTE_MS, MO_NFIELDS };
enum ms_bytes_field { MB_NORMAL_READ, MB_NORMAL_WRITE, MB_DIRECT_READ, MB_DIRECT_WRITE, MB_SERVER_READ,
		      MB_SERVER_WRITE, MB_READ_PAGES, MB_WRITE_PAGES, MB_NFIELDS };

struct ms_op {
	char name[32];
	uint64_t v[MO_NFIELDS];
};

struct ms_mount {
	char point[256];   /* where it is mounted (the kernel's \\040 escapes undone) */
	char device[256];  /* "server:/export" */
	char fstype[16];   /* nfs, nfs4 */
	char version[8];   /* opts' vers=, "" unknown */
	char transport[8]; /* opts' proto=, "" unknown */
	bool have_bytes;
	uint64_t bytes[MB_NFIELDS];
	struct ms_op *op;
	size_t nop, op_cap;
};

struct mountstats {
	struct ms_mount *m;
	size_t n, cap;
	unsigned unknown_lines; /* in NFS blocks, not understood */
	char first_unknown[128];
};

void mountstats_init(struct mountstats *s);
void mountstats_free(struct mountstats *s);
/* Parses text (the whole file) into s, replacing what it held: 0, or
 * -ENOMEM. */
int mountstats_parse(struct mountstats *s, const char *text);
/* The mount at point, or NULL. */
const struct ms_mount *mountstats_find(const struct mountstats *s, const char *point);
/* Its operation name's counters, or NULL. */
const struct ms_op *mountstats_op(const struct ms_mount *m, const char *name);

#endif
