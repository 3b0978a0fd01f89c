/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The gpu source's state, shared by its files:
 *   gpu.c         the source: config, probe, open, rows;
 *   gpu_read.c    one GPU's readings through NVML;
 *   gpu_reader.c  the thread that takes them, so that a tick never waits
 *                 on the driver.
 *
 * Why a thread: NVML calls wait on the driver, and the driver holds them
 * while it makes or tears down a CUDA context (on an H100, a PyTorch job's
 * start held them 115 ms), and an energy reading costs milliseconds. The
 * sampler asks the reader for a reading at each tick and waits for it at
 * most READ_WAIT_SHARE of the interval; a reading later than that leaves
 * the row's cells of that GPU null (its counters' change goes to the next
 * row on time), and the grid goes on. */
#ifndef IOPSAMPLE_GPU_SOURCE_H
#define IOPSAMPLE_GPU_SOURCE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "nvml.h"

#define GPU_MAX_DEVICES 16
/* Energy readings cost milliseconds of CPU (3.3 ms on an H100 here): they
 * are at least ENERGY_EVERY_NS apart (one's end to the next's start), and
 * ENERGY_COST_SHARE times as long as the last one took, so that they take
 * at most 1% of a CPU. */
#define ENERGY_EVERY_NS (100 * 1000000LL)
#define ENERGY_COST_SHARE 100

/* The readings, each one NVML call (PCIe: one call for both directions),
 * and the fields they give. */
enum reading { R_PCIE, R_ENERGY, R_UTIL, R_MEMORY, R_PROCESSES, R_POWER, R_CLOCK, R_TEMP,
	       R_THROTTLE, NREADINGS };
enum field { F_PCIE_TX, F_PCIE_RX, F_ENERGY, F_GPU_UTIL, F_MEM_UTIL, F_MEM_USED, F_TREE_MEM,
	     F_TREE_PROCS, F_POWER, F_SM_CLOCK, F_TEMP, NFIELDS };
/* How the totals combine a field over the GPUs. */
enum combine { SUM, MEAN, MAX, DISTINCT /* the tree's processes: each once, on however many GPUs */ };
struct gpu_field {
	const char *name;
	enum reading from;
	enum combine total;
};
extern const struct gpu_field gpu_fields[NFIELDS];
extern const char *const gpu_reading_calls[NREADINGS];

struct gpu_reason {
	const char *name;
	unsigned long long bit;
};
extern const struct gpu_reason gpu_reasons[];
extern const size_t gpu_nreasons;

struct gpu_dev {
	/* what the GPU is, fixed at open */
	nvmlDevice_t h;
	unsigned index;
	char key[12]; /* by_device's: the index */
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	unsigned pcie_gen, pcie_width; /* the link's highest; 0: unknown */
	unsigned pcie_bits;            /* the counters' width, as NVML types them */
	int64_t pcie_safe_ns;          /* readings this far apart or more: ambiguous */
	char unsupported[NREADINGS][128]; /* why a reading is null throughout; "" */

	/* the reader's: the counters' last readings */
	uint64_t pcie[2];
	int64_t pcie_ns; /* when the last reading was asked for: its value came after */
	bool pcie_ok;
	unsigned long long energy;
	int64_t energy_ns, energy_cost_ns; /* the last reading: when it ended, how long it took */
	bool energy_ok;

	/* a reading's gauges, written by the reader, read once it is done */
	bool known[NFIELDS];
	int64_t v[NFIELDS];
	bool throttle_known;
	unsigned long long throttle;
	nvmlReturn_t failed[NREADINGS]; /* this reading's failures */
	/* the tree's pids on the GPU at the reading: tree_processes' total
	 * counts a process on several GPUs once */
	pid_t *tree_pids;
	unsigned ntree_pids, tree_pids_cap;

	/* under the reader's mutex: the counters' change no row holds yet,
	 * and whether the GPU is lost */
	uint64_t acc_pcie[2];
	bool acc_ambiguous; /* two readings too far apart: the change is unknown */
	uint64_t acc_energy;
	bool lost;
	int64_t lost_ns;

	/* the sampler's: the row's values, and what it said */
	bool row_known[NFIELDS];
	int64_t row_v[NFIELDS];
	bool row_throttle_known;
	unsigned long long row_throttle;
	bool warned[NREADINGS], lost_warned;
	json_t *obj, *throttle_obj;
};

struct gpu {
	struct nvml nvml;
	pid_t target, keeper, observer;
	size_t n;
	struct gpu_dev dev[GPU_MAX_DEVICES];
	nvmlProcessInfo_t *procs; /* the process lists' buffer */
	unsigned procs_cap;
	pid_t *union_pids; /* the rows': every GPU's tree pids, to count once */
	size_t union_cap;
	/* the pids the last reading listed, and whether each is the tree's */
	struct gpu_seen {
		pid_t pid;
		bool in, listed;
		bool hidden; /* /proc did not show it when it was first listed */
	} seen[256];
	size_t nseen;
	/* iopsample's /proc is a pid namespace below the host's, where NVML's
	 * pids are (/proc/self/status's NSpid has more than one) */
	bool nested_pidns;
	pid_t unmatched; /* a pid NVML listed twice that this pid namespace does not show */
	int64_t interval_ns, start_ns;

	/* the reader (gpu_reader.c) */
	pthread_t thread;
	bool running, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t want, done; /* readings asked for, and done */
	bool final;          /* the reading asked for is the last: energy too */

	/* the rows */
	json_t *total, *total_throttle, *warnings;
	json_t *rows_nulled, *late_rows; /* the manifest's counts */
	uint64_t pcie_rows_nulled, late;
	bool unmatched_warned;
};

/* gpu_read.c */
/* The reader's mutex, when it runs (a no-op before). */
void gpu_lock(struct gpu *g);
void gpu_unlock(struct gpu *g);
/* Describes GPU h as d, takes every reading once (the counters' baselines)
 * and records those refused; its manifest entry. */
json_t *gpu_open_device(struct gpu *g, struct gpu_dev *d, nvmlDevice_t h);
/* Every reading of d but the energy, now: the gauges into d's values, the
 * counters' changes added to its acc_*; failed[] says how each went. A GPU
 * lost is marked so, and is not read again. */
void gpu_read_device(struct gpu *g, struct gpu_dev *d, int64_t now);
/* The same for every GPU. */
void gpu_read_all(struct gpu *g, int64_t now);
/* Whether this process's pid namespace is below another (gpu_source.h: nested_pidns). */
bool gpu_pidns_nested(void);
/* The energy of d into its acc_energy, when ENERGY_EVERY_NS has passed
 * since the last reading, or any_time. */
void gpu_read_energy(struct gpu *g, struct gpu_dev *d, int64_t now, bool any_time);

/* gpu_reader.c */
void gpu_reader_start(struct gpu *g);
/* Asks for a reading and waits for it until deadline (CLOCK_MONOTONIC
 * ns); true when it came. Without the thread, reads here. */
bool gpu_reader_read(struct gpu *g, int64_t deadline);
/* The counters' baselines: every reading, energy included, each counter's
 * change since open dropped. The reader's first job. */
void gpu_read_baseline(struct gpu *g);
void gpu_reader_stop(struct gpu *g);

#endif
