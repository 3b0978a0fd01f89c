/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What block_io's program needs to know of the throttle (blk-throttle: a
 * cgroup's blkio.throttle.* or io.max), which holds a bio before the
 * block_bio_queue tracepoint and lets it go later from a kworker, where no
 * task of the tree runs. Where the kernel lets a program run at the
 * throttle's entry (fentry on __blk_throtl_bio), the bio is taken there;
 * elsewhere it is known at its queueing by the flag the throttle sets on
 * it and its cgroup, the episode's own. */
#ifndef IOPSAMPLE_BIO_THROTTLE_H
#define IOPSAMPLE_BIO_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroupfs.h"

/* What the kernel's BTF says of its throttle, read once. */
struct bio_throttle_facts {
	bool entry;        /* it has __blk_throtl_bio, for a program at the entry */
	int throttled_bit; /* the bit of a bio's bi_flags the throttle sets on a
			      bio it charged (BIO_BPS_THROTTLED, BIO_THROTTLED
			      before Linux 5.19: their enum has no name, and its
			      values moved between versions); -1: neither */
	int cloned_bit;    /* and from the same enum the bit a clone has
			      (BIO_CLONED: dm's and md's of a stacked bio); -1 */
};
void bio_throttle_facts(struct bio_throttle_facts *f);

/* The inode numbers of the episode's own v2 and v1 blkio cgroup
 * directories (a bio's blkg's cgroup's kernfs id); 0 for none, and both 0
 * for a cgroup set that is not the episode's own (an attached target's
 * holds other processes). */
void bio_episode_cgroups(const struct cgroup_set *cg, uint64_t ids[2]);

#endif
