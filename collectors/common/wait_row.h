/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The row the waits and offcpu sources share: thread time per class
 * (wait_class.h), nthreads, and by_mount.
 *
 * by_mount holds every FUSE and network file system mount the tree's
 * mount namespace had when the source opened, keyed by its mount point,
 * the same keys in every row (export's shape is the first row's): its
 * mount point, file system type, server (mountinfo's source) or daemon,
 * and its thread time. A mount made later is no key: its waits count in
 * fuse_ns or remote_fs_ns, and the manifest's warnings say so once. */
#ifndef IOPSAMPLE_WAIT_ROW_H
#define IOPSAMPLE_WAIT_ROW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/wait_class.h"
#include "common/wait_fds.h"

struct wait_row {
	json_t *field[WC_NCLASSES];
	json_t *nthreads;
	json_t *by_mount;
	json_t *warnings; /* the manifest entry's, for a mount made later */
	int *key_of;      /* fds' mount index -> by_mount entry, or -1 */
	size_t nkey_of;
	json_t **entry;   /* per key: its object in by_mount */
	int *mount_of;    /* per key: fds' mount index */
	size_t nkeys;
	unsigned char *warned; /* per fds mount: said in warnings */
};

/* Adds the fields to row (counts 0) and by_mount's keys: the FUSE and
 * network mounts fds knows now (wait_fds_load_mounts first). The warnings
 * go to manifest's "warnings" array. 0 or -ENOMEM. */
int wait_row_open(struct wait_row *r, json_t *row, json_t *manifest, struct wait_fds *fds);
/* One row's values: ns per class, the threads, and per mount of fds
 * (mount_ns[i] for fds' mount i, nmount of them). */
int wait_row_set(struct wait_row *r, const uint64_t ns[WC_NCLASSES], unsigned nthreads,
		 const uint64_t *mount_ns, size_t nmount, struct wait_fds *fds);
/* The manifest's "mounts": each by_mount key's names, its daemon as last
 * found (a source calls it at its close too). */
void wait_row_mounts(const struct wait_row *r, json_t *manifest, const struct wait_fds *fds);
void wait_row_free(struct wait_row *r);

#endif
