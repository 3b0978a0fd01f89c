/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verdict's rules: where a window's time went, from what the sources
 * measured in it (docs/data-model.md, "The verdict", says each rule, each
 * threshold and why). Pure functions over numbers, and every threshold the
 * verdict uses, here and in the files around it, defined in verdict.c with
 * where its value came from. The rest of the verdict, each a file:
 *
 *   verdict_grid.c     reads an episode's rows onto the grid of windows
 *   verdict_signal.c   conditions the signals (delays put back where they
 *                      were waited, a nulled delay estimated, the kernel's
 *                      share of CPU time over a second)
 *   verdict_episode.c  an episode's windows decided, one after the other,
 *                      and their runs and totals
 *   verdict_write.c    the windows as text, JSON and CSV
 *
 * The tree's time in a window is split into buckets that add up to one:
 *
 *   cpu       its threads ran (user time; kernel time too unless it pages),
 *             and waited for CPUs its own threads held
 *   cpu_wait  runnable, waiting for a CPU others held or a quota withheld
 *   disk      waiting for block I/O that was not paging
 *   memory    paging: waiting for pages to come back (swap-in, thrashing),
 *             reclaim and compaction, and the kernel's CPU time while it pages
 *   gpu       a GPU the tree uses ran a kernel
 *   gpu_copy  PCIe carried the tree's GPU a copy's worth, no kernel running
 *   network   waiting on sockets, a network file system or a FUSE daemon
 *             (the waits source's; without it this is never measured)
 *   idle      none of these: asleep, or waiting on its own threads and
 *             children, or on what nothing here measures
 *
 * Thread time is summed over the tree, so it can exceed the window: the
 * host's buckets are divided by the larger of the window and their sum, and
 * idle is what is left (a parent asleep while its workers work adds
 * nothing, and the workers' reason is the tree's). The GPU's share of the
 * window comes first; the host's buckets share the rest. */
#ifndef IOPSAMPLE_VERDICT_H
#define IOPSAMPLE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

enum verdict_label { V_CPU, V_CPU_WAIT, V_DISK, V_MEMORY, V_GPU, V_GPU_COPY, V_NETWORK, V_IDLE, V_LABELS };

/* The waits (and offcpu) source's classes, in its rows' order
 * (collectors/common/wait_class.h) */
enum verdict_wait { VW_RUNNING, VW_RUNNABLE, VW_DISK, VW_PAGING, VW_NETWORK, VW_REMOTE_FS, VW_FUSE,
		    VW_LOCK, VW_IPC, VW_CHILD, VW_SLEEP, VW_OTHER, VW_COUNT };
/* their row fields: "running_ns", ... */
extern const char *const verdict_wait_fields[VW_COUNT];

/* "cpu", "cpu_wait", ... by label */
extern const char *const verdict_label_names[V_LABELS];
/* Whether the kernel of release ("6.1.0-13-amd64", the manifest's
 * host.kernel_release) counts a swap-in's wait for the device as block I/O
 * as well as swap-in: from 5.17 on; an unknown release is taken as new. */
bool verdict_swap_waits_in_blkio(const char *release);

/* The labels in tie order: a tie, in a window or over an episode, goes to
 * the first (the more specific resource). */
extern const enum verdict_label verdict_tie_order[V_LABELS];
/* The label of these with the most, ties going as verdict_tie_order. */
enum verdict_label verdict_largest(const double amount[V_LABELS]);

/* ---- the conditioning's thresholds (verdict.c says where each came from) --- */

/* How far around a window the tree's threads at work are counted, the
 * kernel's share of CPU time taken, and a nulled delay's nearest window
 * looked for: ns. */
extern const long long verdict_around_ns;
/* How far a nulled delay's window looks for one whose count matches, ns,
 * and what matching is: counts within this factor. */
extern const long long verdict_estimate_reach_ns;
extern const double verdict_matching_counts;
/* The threads at work around a window are rounded up from this much less
 * than their mean. */
extern const double verdict_at_work_slack;
/* How far back before the window it was charged in a wait may be put. */
extern const long long verdict_spread_back_ns;
/* How long after the tree went over memory.high the kernel may still have
 * it sleep. */
extern const long long verdict_high_reach_ns;

/* A window as the rules read it. Times are ns, summed over the tree's
 * threads; bytes and counts are the window's. NAN: not known (the source
 * did not run, or the row said null). */
struct verdict_in {
	double window_ns;
	int cpus; /* the host's CPUs (the manifest's host.cpu_count); 0: not known */

	/* taskstats: the tree's threads, delays spread back to when they were
	 * waited (verdict_spread) */
	double run_ns, cpu_delay_ns, blkio_ns, swapin_ns, freepages_ns, thrashing_ns, compact_ns;
	double swapin_count, blkio_count; /* taskstats' waits of each kind, where they ended */
	bool swap_in_blkio; /* the kernel counts a swap-in's wait for the device as block
			     * I/O too (verdict_swap_waits_in_blkio) */
	unsigned estimated; /* bit i: delay i (in the order above, cpu first) was nulled by
			     * taskstats (the kernel's accounting faulted) and estimated from
			     * its waits counted */
	double read_bytes, write_bytes; /* from storage, caused by the tree */
	double nthreads;                /* the most threads sampled */
	bool from_cgroup; /* taskstats has no row for the window: the cgroup's CPU time and
			   * pressure stand for its threads' */

	/* cgroup: the episode's cgroup */
	double system_ns;                    /* CPU time in the kernel */
	double throttled_ns;                 /* held back by a CPU quota */
	double tree_cpus;                    /* the CPUs the tree may use (affinity, cpuset) */
	double ancestor_throttled_ns;        /* held back by a quota above its cgroup */
	const char *quota_ancestor;          /* the tightest such quota's cgroup, or NULL */
	double quota_ancestor_cpus;          /* ... its quota in CPUs */
	double memory_high_events;           /* times over memory.high (v2) */
	double high_recent;                  /* ... in the window and the penalty's reach
					      * before it (verdict_high_reach_ns) */
	double cpu_some_ns, io_some_ns, memory_some_ns; /* its own PSI, NAN unless per cgroup */
	double memory_bytes, majfaults;

	/* diskstats: the busiest device in the window (the highest util_pct) */
	const char *disk;   /* its name; NULL: no device watched */
	double disk_util;   /* percent */
	double disk_read_bytes, disk_read_ops, disk_write_bytes, disk_write_ops;

	/* gpu: the GPUs the tree uses in the window (all, where NVML does not
	 * say whose processes run where) */
	int gpus;               /* how many; 0: none, or no gpu source */
	double gpu_busy;        /* their mean share of time a kernel ran, 0..1 */
	double pcie_h2d, pcie_d2h; /* bytes/s, the busiest of them each way */
	double pcie_link;       /* its link's raw rate, bytes/s */
	int pcie_gen, pcie_width;

	/* waits: where the tree's threads were, at the time (NAN: no waits
	 * row); where it ran it decides the host's buckets in taskstats' stead */
	double waits[VW_COUNT];
	/* ... the FUSE or network mount waited on most, and its time */
	const char *mount;      /* its mount point, or NULL */
	const char *mount_what; /* "nfs4, server 10.0.2.2:/srv", "fuse, daemon python3 (pid 12)" */
	double mount_ns;

	/* net: the network's figures, evidence for network (NAN: no net row) */
	double net_ops, net_rtt_ns;              /* the mount waited on most, an NFS mount's RPCs */
	double net_read_bytes, net_write_bytes;  /* ... and its bytes */
	double net_waiting;                      /* ... a FUSE mount's requests waiting (the most) */
	const char *net_if;                      /* the busiest interface */
	double net_if_rx, net_if_tx;             /* its bytes received and sent */
	double net_if_speed;                     /* its link, Mbit/s */
	double net_retrans;                      /* TCP's segments retransmitted */

	/* oracle sources: evidence only, never the label */
	double bio_read_bytes, bio_read_ops, bio_write_bytes, bio_write_ops; /* block_io, the tree's */
	double offcpu[VW_COUNT]; /* offcpu: the same as waits, exact */
};

struct verdict_out {
	enum verdict_label label;
	double share[V_LABELS]; /* each in [0, 1], adding up to 1 */
	char evidence[512];
};

/* The label and shares of a window, and its evidence for label (the
 * window's own label, or a label a run of windows was given). */
void verdict_decide(const struct verdict_in *in, struct verdict_out *out);
void verdict_evidence(const struct verdict_in *in, const struct verdict_out *out,
		      enum verdict_label label, char *buf, size_t len);

/* Every figure not known (NAN), no device or GPU, a window of 0 ns. */
void verdict_in_clear(struct verdict_in *in);

/* Sums b into a (gauges and the busiest device's figures taken as the
 * larger), for a run of windows or the episode: a's window grows by b's. */
void verdict_in_add(struct verdict_in *a, const struct verdict_in *b);

#endif
