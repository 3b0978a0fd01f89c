// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The verdict's rules: see verdict.h and docs/data-model.md, "The verdict". */
#include "verdict.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "kernel_version.h"
#include "numfmt.h"

const char *const verdict_label_names[V_LABELS] = {
	[V_CPU] = "cpu",   [V_CPU_WAIT] = "cpu_wait", [V_DISK] = "disk",       [V_MEMORY] = "memory",
	[V_GPU] = "gpu",   [V_GPU_COPY] = "gpu_copy", [V_NETWORK] = "network", [V_IDLE] = "idle",
};

const char *const verdict_wait_fields[VW_COUNT] = {
	[VW_RUNNING] = "running_ns", [VW_RUNNABLE] = "runnable_ns", [VW_DISK] = "disk_ns",
	[VW_PAGING] = "paging_ns",   [VW_NETWORK] = "network_ns",   [VW_REMOTE_FS] = "remote_fs_ns",
	[VW_FUSE] = "fuse_ns",       [VW_LOCK] = "lock_ns",         [VW_IPC] = "ipc_ns",
	[VW_CHILD] = "child_ns",     [VW_SLEEP] = "sleep_ns",       [VW_OTHER] = "other_ns",
};

/* ---- every threshold of the verdict, with where its value came from ------ */

/* The tree pages when waits for pages, reclaim and compaction take at least
 * this share of the window: its kernel CPU time is then paging's. Chosen
 * between what was measured here: a working set 16 MiB over its limit
 * waited 25 % for swap-ins and spent 40-50 % in the kernel; a file
 * streamed under a limit reclaimed 2 % (docs/data-model.md, rule 2). */
#define PAGING_MIN 0.05
/* PCIe carrying this share of the link's raw rate keeps the window's
 * copying busy. An assumption, not yet measured (docs/data-model.md, rule
 * 5): a pinned copy can near the link's rate, a pageable one, staged by
 * the host through a pinned buffer, moves a fraction of it; an eighth is
 * taken as "a copy runs all the window" until a GPU machine measures the
 * pageable rate (docs/benchmarks.md, "On a GPU"). */
#define COPY_BUSY_OF_LINK (1.0 / 8)
/* A disk wait while the busiest device is busy less than this share of
 * the time the tree waited (at most the whole window): something holds the
 * requests before the device (an I/O limit). Measured here: a throttled
 * loop device showed 0 to 36 % busy while its reader waited all the time;
 * a device that serves the tree is busy most of the time it waits (vda: 84
 * to 100 %). */
#define HELD_BEFORE_DEVICE 0.5
/* Figures below this share of the window are left out of the evidence.
 * Chosen. */
#define MENTION 0.05

/* A second: the kernel splits a task's time between user and system by the
 * timer ticks that find it in either, a few dozen a 100 ms window (one
 * window's split swung by 20 points here), and a second holds a few
 * hundred; the threads at work and a nulled delay's nearest neighbour are
 * looked for as far. Chosen. */
/* A CPU quota's throttling is charged when its period refreshes, to
 * whichever window that falls in: a 100 ms period sampled every 100 ms read
 * 0 in one window and twice the throttle in the next (taskset make under a
 * parent's half-CPU quota: 22 of 78 windows `cpu`). The rules take each
 * window's throttled time as its mean over this second around it too. */
const long long verdict_around_ns = NS_PER_S;
/* Ten seconds, and counts within a factor of 1.5: a paging window's count
 * can be twice a disk window's with a mean wait thirty times shorter, and
 * a phase of one kind of waiting lasts seconds. Chosen on forked workers
 * whose every other row had its block I/O delay nulled. */
const long long verdict_estimate_reach_ns = 10 * NS_PER_S;
const double verdict_matching_counts = 1.5;
/* The threads at work are their mean rounded up from 0.05 below it: a
 * thread that works 96 % of a second counts whole, one that works 3 %
 * not. Chosen. */
const double verdict_at_work_slack = 0.05;
/* Ten seconds: a wait charged in a window goes back no further than it
 * lasted, and no further than this, so that the verdict of a day-long
 * episode holds seconds of windows, not the day. The longest delay put
 * back in the injected phases was a throttled read's 120 ms. Chosen. */
const long long verdict_spread_back_ns = 10 * NS_PER_S;

/* Which delays include which, by kernel (kernel/delayacct.c,
 * mm/page_io.c, mm/filemap.c; docs/data-model.md's table):
 *
 *   before 5.17  a swap-in's waits for the device are swap-in's alone
 *                (DELAYACCT_PF_SWAPIN diverted them from block I/O); a
 *                refaulting file page's wait on its lock is thrashing and
 *                block I/O both
 *   5.17 on      swap-in is the time in swap_readpage, its synchronous
 *                reads block I/O too; a swap read ahead is waited for on
 *                the page's lock: block I/O alone (commit a3d5dc908a5f)
 *   6.1 on       thrashing also covers a swap read of a working-set page
 *                (3a9bb7b1879b): swap-in and thrashing overlap */
bool verdict_swap_waits_in_blkio(const char *release)
{
	return kernel_release_older(release, 5, 17) != 1;
}

/* The page a swap-in reads: 4 KiB on x86-64 (a kernel fact; arm64 kernels
 * built with 16 or 64 KiB pages read more a swap-in, which this
 * undercounts). */
#define SWAP_PAGE_BYTES 4096.0

/* Two seconds: the longest sleep the kernel gives a task over its
 * memory.high at once (MEMCG_MAX_HIGH_DELAY_JIFFIES, mm/memcontrol.c), and
 * memory.events counts the reclaim before it, not the sleep: a window whose
 * memory pressure follows an event this near is the penalty's. A kernel
 * fact. */
const long long verdict_high_reach_ns = 2 * NS_PER_S;

/* Ties go to the first of these: the more specific resource. */
const enum verdict_label verdict_tie_order[V_LABELS] = {V_GPU, V_GPU_COPY, V_MEMORY, V_DISK,
							V_NETWORK, V_CPU_WAIT, V_CPU, V_IDLE};

enum verdict_label verdict_largest(const double amount[V_LABELS])
{
	enum verdict_label best = verdict_tie_order[0];
	for (int i = 1; i < V_LABELS; i++)
		if (amount[verdict_tie_order[i]] > amount[best])
			best = verdict_tie_order[i];
	return best;
}

static double nz(double v)
{
	return isnan(v) || v < 0 ? 0 : v;
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* The swap-ins' share of the tree's block I/O (from 5.17). A wait costs a
 * request's overhead and its bytes' transfer, and the rows give neither;
 * each swap-in is one request of a page. By the waits counted, the share
 * is too high where the kernel misses a reader's waits or reads ahead
 * pages no one waits for (6.18 here: 260 swap-ins of 332 waits where the
 * swapping process waited half the tree's time); by the bytes read
 * (taskstats counts a swap read in read_bytes), too low beside large
 * reads (a page against a 1 MiB read: 0.005). The mean of the two, chosen:
 * on the swapread phase (a job swapping beside an O_DIRECT reader, each
 * process measuring its own waits) it put the split within a factor 1.55
 * of theirs on this host and in the kernel matrix's guests
 * (docs/benchmarks.md); either alone was off by 3 to 30. Without the
 * bytes (no I/O accounting), the waits' share alone. */
static double swap_share(const struct verdict_in *in)
{
	double waits = nz(in->blkio_count), swapins = nz(in->swapin_count);
	double by_waits = waits > 0 ? min2(1, swapins / waits) : swapins > 0 ? 1 : 0;
	if (isnan(in->read_bytes))
		return by_waits;
	double read = nz(in->read_bytes), swapped = swapins * SWAP_PAGE_BYTES;
	double by_bytes = read > 0 ? min2(1, swapped / read) : swapped > 0 ? 1 : 0;
	return (by_waits + by_bytes) / 2;
}

/* The host's time by bucket, in ns of thread time (see verdict.h). */
struct host_time {
	double user, self_wait, other_wait, quota_wait, disk, page_wait, page_cpu, kernel_paging;
	double network; /* sockets, a network file system, a FUSE daemon: the waits source's */
	double high_sleep; /* memory.high's penalty, in page_wait */
};

/* Whether the waits source gave the window: then its classes, taken at
 * the time the threads were in them, decide the host's buckets. */
static bool have_waits(const struct verdict_in *in)
{
	return !isnan(in->waits[VW_RUNNING]);
}

/* The tree's reclaim and compaction in the window, thread time on a CPU.
 * taskstats counts each when it ends (delayacct_freepages_end): a reclaim
 * of a third of a second lands whole in the window it ended in and in
 * none of those it ran through, which then read as the CPU's (the kernel
 * matrix's swapread on 6.12: three windows of 0 freepages and 110 ms in
 * the kernel each, then 334 ms in a window of 100). The cgroup's own
 * memory pressure counts a stall as it goes; its "some" is wall time
 * that a thread of the tree stalled on memory, of which the page waits
 * are one part and reclaim, on a CPU in the kernel, another: where the
 * cgroup's pressure and CPU times are read, reclaim is at least that
 * rest, up to the tree's time in the kernel, and at least the delays.
 * Elsewhere the delays alone, and over memory.high, where the
 * pressure holds the penalty's sleep too (high_sleep). The window a long
 * reclaim ends in keeps its delay whole: at most its run time is paging's
 * (kernel_paging), the share it had anyway. */
static double live_reclaim(const struct verdict_in *in, double page_wait, double counted)
{
	/* over memory.high the pressure holds the penalty's sleep too, which
	 * high_sleep finds as what the delays do not hold */
	if (isnan(in->memory_some_ns) || isnan(in->system_ns) || isnan(in->freepages_ns) || nz(in->high_recent) > 0)
		return counted;
	return max2(counted, min2(max2(0, in->memory_some_ns - page_wait), in->system_ns));
}

static void host_time(const struct verdict_in *in, struct host_time *h)
{
	double W = in->window_ns;
	double run = nz(in->run_ns), cd = nz(in->cpu_delay_ns), blk = nz(in->blkio_ns);
	h->network = 0;
	if (have_waits(in)) {
		/* each thread's time where it was: CPU and the run queue the
		 * scheduler's own counts, the rest sampled where it waited;
		 * a network file system's page wait is the network's, never
		 * the disk's (taskstats counts it as block I/O) */
		run = nz(in->waits[VW_RUNNING]);
		cd = nz(in->waits[VW_RUNNABLE]);
		blk = nz(in->waits[VW_DISK]);
		h->network = nz(in->waits[VW_NETWORK]) + nz(in->waits[VW_REMOTE_FS]) + nz(in->waits[VW_FUSE]);
	}
	/* Where the tree's threads give no delays (kernel.task_delayacct was
	 * off when they started), the cgroup's own pressure stands in. */
	if (isnan(in->cpu_delay_ns))
		cd = nz(in->cpu_some_ns);
	if (isnan(in->blkio_ns))
		blk = nz(in->io_some_ns);
	double swp = nz(in->swapin_ns), thr = nz(in->thrashing_ns);
	double fp = nz(in->freepages_ns), cmp = nz(in->compact_ns);
	if (isnan(in->swapin_ns) && isnan(in->thrashing_ns) && isnan(in->freepages_ns))
		thr = nz(in->memory_some_ns);

	/* Waiting for pages to come back: a swap-in, a thrashing page; the
	 * part of block I/O that was theirs is not disk. A thrashing page's
	 * wait is block I/O on every kernel. From 5.17 a swap-in's wait for
	 * the device is too, in part inside the swap-in's own time (its
	 * synchronous reads) and in part outside it (a page read ahead,
	 * waited for on its lock): the swap-ins' part of the rest of block
	 * I/O is swap_share()'s. The swap-in time is no floor to it: it may
	 * be time on the CPU (zram's decompression; a submission, which cost
	 * 0.6 ms a swap-in in the kernel matrix's guests on 6.1). Before 5.17
	 * swap-in and block I/O are apart (verdict_swap_waits_in_blkio). */
	double in_blk;
	if (have_waits(in)) { /* apart already: a wait is where the thread was */
		in_blk = 0;
		h->page_wait = nz(in->waits[VW_PAGING]);
	} else if (in->swap_in_blkio) {
		in_blk = min2(blk, (blk - min2(blk, thr)) * swap_share(in) + thr);
		h->page_wait = max2(in_blk, max2(swp, thr));
	} else {
		in_blk = min2(blk, thr);
		h->page_wait = swp + thr;
	}
	h->disk = blk - in_blk;
	/* reclaim and compaction run on the CPU; where the tree pages, the
	 * rest of its time in the kernel is paging's too, in the share of its
	 * waits for I/O that were for pages (a reader's system calls beside
	 * the paging are the disk's work, not paging's) */
	h->page_cpu = live_reclaim(in, h->page_wait, fp + cmp);
	double kernel = h->page_cpu;
	if (h->page_wait + h->page_cpu >= PAGING_MIN * W && !isnan(in->system_ns)) {
		double pages = h->page_wait + h->disk > 0 ? h->page_wait / (h->page_wait + h->disk) : 1;
		kernel += max2(0, in->system_ns - h->page_cpu) * pages;
	}
	h->kernel_paging = min2(kernel, run);
	h->user = run - h->kernel_paging;
	/* Over memory.high the kernel makes the tree reclaim and then sleep
	 * (mem_cgroup_handle_over_high): the sleep is in no taskstats delay,
	 * only in the cgroup's memory pressure, which counts the wall time a
	 * task of it stalled on memory. What of that the delays do not hold
	 * is the sleep, paging's. */
	h->high_sleep = 0;
	if (!have_waits(in) && nz(in->high_recent) > 0 && !isnan(in->memory_some_ns))
		h->high_sleep = max2(0, in->memory_some_ns - (h->page_wait + h->page_cpu));
	h->page_wait += h->high_sleep;

	/* The tree's wait for a CPU is its own doing in proportion to the
	 * share it holds of the CPUs it may use (its affinity within its
	 * cpuset; the host's where the rows do not say); a quota's, its own
	 * cgroup's or one above it, never. */
	double cpus = in->tree_cpus > 0 ? in->tree_cpus : in->cpus > 0 ? in->cpus : 1;
	double held = min2(1, run / (cpus * W));
	/* A throttled cgroup's time is summed over the CPUs it had tasks on,
	 * and while it is throttled every thread of it that would run waits:
	 * the threads that want a CPU, (run + wait) / W, over the CPUs they
	 * can be on. */
	double want = (run + cd) / W, on = min2(cpus, want);
	double each = on > 0 && want > on ? want / on : 1;
	h->quota_wait = min2(cd, (nz(in->throttled_ns) + nz(in->ancestor_throttled_ns)) * each);
	h->self_wait = (cd - h->quota_wait) * held;
	h->other_wait = cd - h->quota_wait - h->self_wait;
}

void verdict_decide(const struct verdict_in *in, struct verdict_out *out)
{
	memset(out, 0, sizeof(*out));
	struct verdict_in w = *in;
	if (!(w.window_ns > 0))
		w.window_ns = 1;
	struct host_time h;
	host_time(&w, &h);
	double host[V_LABELS] = {0};
	host[V_CPU] = h.user + h.self_wait;
	host[V_CPU_WAIT] = h.other_wait + h.quota_wait;
	host[V_DISK] = h.disk;
	host[V_MEMORY] = h.page_wait + h.kernel_paging;
	host[V_NETWORK] = h.network;
	double active = host[V_CPU] + host[V_CPU_WAIT] + host[V_DISK] + host[V_MEMORY] + host[V_NETWORK];
	double D = max2(w.window_ns, active);

	/* the GPU's share of the window first, the host's buckets the rest */
	double gpu = 0, copy = 0;
	if (w.gpus > 0) {
		gpu = min2(1, nz(w.gpu_busy));
		double rate = max2(nz(w.pcie_h2d), nz(w.pcie_d2h));
		if (w.pcie_link > 0)
			copy = min2(min2(1, rate / (w.pcie_link * COPY_BUSY_OF_LINK)), 1 - gpu);
	}
	double rest = 1 - gpu - copy;
	for (int l = 0; l < V_LABELS; l++)
		out->share[l] = host[l] / D * rest;
	out->share[V_IDLE] = (1 - active / D) * rest;
	out->share[V_GPU] = gpu;
	out->share[V_GPU_COPY] = copy;
	for (int l = 0; l < V_LABELS; l++) /* rounding's -1e-17 */
		out->share[l] = out->share[l] < 0 ? 0 : out->share[l];

	out->label = verdict_largest(out->share);
	verdict_evidence(in, out, out->label, out->evidence, sizeof(out->evidence));
}

/* ---- evidence ------------------------------------------------------------------ */

struct line {
	char *p;
	size_t len, n;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct line *l, const char *fmt, ...)
{
	if (l->n >= l->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(l->p + l->n, l->len - l->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		l->n = l->n + (size_t)r < l->len ? l->n + (size_t)r : l->len - 1;
}

/* A share of the window as "%": whole percents from 10 on. */
static const char *pct(char *buf, double share)
{
	double p = 100 * share;
	snprintf(buf, 16, p >= 10 || p == 0 ? "%.0f %%" : "%.1f %%", p);
	return buf;
}

static const char *bytes(char *buf, double v, const char *suffix)
{
	numfmt_bytes(buf, 32, v, suffix);
	return buf;
}

/* "1.02 GB/s" in decimal units, as PCIe rates are said */
static const char *rate(char *buf, double v)
{
	if (v >= 1e9)
		snprintf(buf, 32, "%.1f GB/s", v / 1e9);
	else
		snprintf(buf, 32, "%.0f MB/s", v / 1e6);
	return buf;
}

static void disk_evidence(struct line *l, const struct verdict_in *in, const struct host_time *h)
{
	double W = in->window_ns;
	char a[16], b[32], c[32];
	put(l, "waiting for block I/O %s of the time", pct(a, h->disk / W));
	if (h->disk > W * 1.05)
		put(l, " (summed over its threads)");
	if (!isnan(in->read_bytes))
		put(l, ": %s read, %s written from storage", bytes(b, in->read_bytes, ""),
		    bytes(c, nz(in->write_bytes), ""));
	if (in->disk && !isnan(in->disk_util) &&
	    in->disk_util < 100 * HELD_BEFORE_DEVICE * min2(1, h->disk / W)) {
		put(l, "; no watched device is busy (%s %s): a limit (io.max, blkio throttle) holds the "
		       "requests before the device",
		    in->disk, pct(a, in->disk_util / 100));
		if (!isnan(in->read_bytes) && in->read_bytes > 0)
			put(l, ", reads at %s", bytes(b, in->read_bytes * 1e9 / W, "/s"));
	} else if (in->disk && !isnan(in->disk_util)) {
		put(l, "; %s %s busy", in->disk, pct(a, in->disk_util / 100));
		if (in->disk_read_ops > 0)
			put(l, ", reads of %s", bytes(b, in->disk_read_bytes / in->disk_read_ops, ""));
		if (in->disk_write_ops > 0)
			put(l, ", writes of %s", bytes(b, in->disk_write_bytes / in->disk_write_ops, ""));
	}
	if (nz(in->freepages_ns) > 0 || nz(in->memory_some_ns) > 0) {
		put(l, "; it reclaims to stay under a memory limit");
		if (!isnan(in->memory_bytes))
			put(l, " (%s charged)", bytes(b, in->memory_bytes, ""));
		put(l, ": the disk re-reads what the limit evicted");
	}
	if (!isnan(in->bio_read_bytes) && in->bio_read_ops + in->bio_write_ops > 0)
		put(l, "; block_io: the tree's %.0f requests, %s", in->bio_read_ops + in->bio_write_ops,
		    bytes(b, in->bio_read_bytes + nz(in->bio_write_bytes), ""));
}

static void memory_evidence(struct line *l, const struct verdict_in *in, const struct host_time *h)
{
	double W = in->window_ns;
	char a[16], b[32];
	put(l, "paging %s of the time:", pct(a, (h->page_wait + h->kernel_paging) / W));
	const struct {
		const char *what;
		double v;
	} part[] = {
		{"swap-in", in->swapin_ns}, {"thrashing", in->thrashing_ns},
		{"reclaim", in->freepages_ns}, {"compaction", in->compact_ns},
		{"waiting for pages", h->page_wait}, {"kernel CPU", h->kernel_paging},
	};
	const char *sep = " ";
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		if (nz(part[i].v) >= MENTION * W / 5) {
			put(l, "%s%s %s", sep, part[i].what, pct(a, part[i].v / W));
			sep = ", ";
		}
	if (h->high_sleep >= MENTION * W / 5)
		put(l, "; over its memory.high (%.0f reclaims in the 2 s before): the kernel made it "
		       "sleep %s",
		    in->high_recent, pct(a, h->high_sleep / W));
	if (!isnan(in->memory_bytes))
		put(l, "; %s charged to its cgroup", bytes(b, in->memory_bytes, ""));
	if (!isnan(in->majfaults))
		put(l, ", %.0f major faults", in->majfaults);
	if (!isnan(in->memory_some_ns))
		put(l, "; PSI memory some %s", pct(a, in->memory_some_ns / W));
}

static void cpu_evidence(struct line *l, const struct verdict_in *in, const struct host_time *h)
{
	double W = in->window_ns, run = nz(in->run_ns);
	char a[16];
	if (run / W < 1.05)
		put(l, "running %s of a CPU", pct(a, run / W));
	else
		put(l, "running %.2f CPUs", run / W);
	if (in->tree_cpus > 0 && in->cpus > 0 && in->tree_cpus < in->cpus)
		put(l, " of the %.0f it may use (the host has %d)", in->tree_cpus, in->cpus);
	else if (in->cpus > 0)
		put(l, " of the host's %d", in->cpus);
	if (!isnan(in->nthreads))
		put(l, ", %.0f thread%s", in->nthreads, in->nthreads == 1 ? "" : "s");
	if (h->self_wait >= MENTION * W)
		put(l, "; its own threads queue for the CPUs %s of the time: more runnable threads "
		       "than CPUs",
		    pct(a, h->self_wait / W));
	if (h->kernel_paging >= MENTION * W)
		put(l, "; paging takes %s", pct(a, h->kernel_paging / W));
}

static void cpu_wait_evidence(struct line *l, const struct verdict_in *in, const struct host_time *h)
{
	double W = in->window_ns;
	char a[16], b[16];
	put(l, "waiting for a CPU %s of the time while running %s",
	    pct(a, (h->other_wait + h->quota_wait) / W), pct(b, nz(in->run_ns) / W));
	if (h->quota_wait >= h->other_wait && nz(in->ancestor_throttled_ns) > nz(in->throttled_ns))
		put(l, ": the CPU quota of %s (%.2g CPUs) above its cgroup throttled it %s",
		    in->quota_ancestor ? in->quota_ancestor : "a cgroup", in->quota_ancestor_cpus,
		    pct(a, nz(in->ancestor_throttled_ns) / W));
	else if (h->quota_wait >= h->other_wait)
		put(l, ": its CPU quota throttled it %s", pct(a, nz(in->throttled_ns) / W));
	else
		put(l, ": the CPUs it may run on are busy with other work");
	if (in->tree_cpus > 0 && in->cpus > 0 && in->tree_cpus < in->cpus)
		put(l, " (it may use %.0f of the host's %d)", in->tree_cpus, in->cpus);
	if (!isnan(in->cpu_some_ns))
		put(l, "; PSI cpu some %s", pct(a, in->cpu_some_ns / W));
}

/* The waits' classes named in evidence, and words for them */
static const struct {
	enum verdict_wait w;
	const char *words;
} network_parts[] = {
	{VW_FUSE, "a FUSE daemon"}, {VW_REMOTE_FS, "a network file system"}, {VW_NETWORK, "sockets"},
}, idle_parts[] = {
	{VW_LOCK, "on a lock"}, {VW_CHILD, "on a child"}, {VW_IPC, "on another process (a pipe, a local socket)"},
	{VW_SLEEP, "asleep"}, {VW_OTHER, "elsewhere"},
};

/* "; offcpu (exact): ..." the same classes, where the oracle ran: of the
 * window, or with threads of its threads' time */
static void offcpu_figures(struct line *l, const struct verdict_in *in, const enum verdict_wait *w, size_t n,
			   bool threads)
{
	char a[16];
	if (isnan(in->offcpu[VW_RUNNING]))
		return;
	double base = in->window_ns;
	if (threads) {
		base = 0;
		for (int c = 0; c < VW_COUNT; c++)
			base += nz(in->offcpu[c]);
	}
	const char *sep = threads ? "; offcpu (exact), of its threads' time: " : "; offcpu (exact): ";
	for (size_t i = 0; base > 0 && i < n; i++) {
		if (nz(in->offcpu[w[i]]) < MENTION * base)
			continue;
		put(l, "%s%s %s", sep, verdict_wait_fields[w[i]], pct(a, nz(in->offcpu[w[i]]) / base));
		sep = ", ";
	}
}

/* The net source's figures of the mount waited on: "; 24.4 ms an RPC, 8.1
 * MiB/s read" (NFS), "; 2 requests waiting" (FUSE). */
static void net_mount_figures(struct line *l, const struct verdict_in *in)
{
	char a[32], b[32];
	double W = in->window_ns;
	if (in->net_ops > 0 && !isnan(in->net_rtt_ns))
		put(l, "; %.1f ms an RPC", in->net_rtt_ns / in->net_ops / 1e6);
	if (in->net_read_bytes > 0)
		put(l, ", %s read", bytes(a, in->net_read_bytes * 1e9 / W, "/s"));
	if (in->net_write_bytes > 0)
		put(l, ", %s written", bytes(b, in->net_write_bytes * 1e9 / W, "/s"));
	if (in->net_waiting > 0)
		put(l, "; %.0f request%s waiting on its daemon", in->net_waiting, in->net_waiting == 1 ? "" : "s");
}

/* The busiest interface's rate, its share of its link where the kernel
 * gives a speed, and TCP's retransmits: "; eth0 112 MiB/s (90 % of its
 * 1000 Mbit/s), 12 TCP retransmits". */
static void net_figures(struct line *l, const struct verdict_in *in)
{
	char a[32], b[32], c[16];
	double W = in->window_ns;
	if (in->net_if && nz(in->net_if_rx) + nz(in->net_if_tx) > 0) {
		double rx = nz(in->net_if_rx) * 1e9 / W, tx = nz(in->net_if_tx) * 1e9 / W;
		put(l, "; %s %s in, %s out", in->net_if, bytes(a, rx, "/s"), bytes(b, tx, "/s"));
		/* full duplex: each way its own share of the link */
		if (in->net_if_speed > 0)
			put(l, " (%s of its %.0f Mbit/s)", pct(c, (rx > tx ? rx : tx) * 8 / (in->net_if_speed * 1e6)),
			    in->net_if_speed);
	}
	if (in->net_retrans > 0)
		put(l, "; %.0f TCP retransmit%s", in->net_retrans, in->net_retrans == 1 ? "" : "s");
}

static void network_evidence(struct line *l, const struct verdict_in *in, const struct host_time *h)
{
	double W = in->window_ns;
	char a[16];
	put(l, "waiting on the network %s of the time", pct(a, h->network / W));
	if (h->network > W * 1.05)
		put(l, " (summed over its threads)");
	const char *sep = ": ";
	for (size_t i = 0; i < sizeof(network_parts) / sizeof(network_parts[0]); i++) {
		double v = nz(in->waits[network_parts[i].w]);
		if (v < MENTION * W)
			continue;
		put(l, "%s%s %s", sep, network_parts[i].words, pct(a, v / W));
		sep = ", ";
		if (network_parts[i].w != VW_NETWORK && in->mount && in->mount_ns > 0 &&
		    (network_parts[i].w == VW_FUSE) == (strncmp(in->mount_what, "fuse", 4) == 0)) {
			put(l, " (%s: %s", in->mount, in->mount_what);
			net_mount_figures(l, in);
			put(l, ")");
		}
	}
	net_figures(l, in);
	enum verdict_wait w[] = {VW_NETWORK, VW_REMOTE_FS, VW_FUSE};
	offcpu_figures(l, in, w, 3, false);
}

/* What an idle tree waited on, from the waits, as shares of its threads'
 * time: "of its 17 threads' time, 94 % on a lock, 6 % asleep". */
static void idle_evidence(struct line *l, const struct verdict_in *in, const struct host_time *h)
{
	double W = in->window_ns;
	char a[16], b[16];
	put(l, "neither running nor waiting on a resource: running %s, waiting %s of the time",
	    pct(a, nz(in->waits[VW_RUNNING]) / W),
	    pct(b, (h->self_wait + h->other_wait + h->quota_wait + h->disk + h->page_wait + h->network) / W));
	double threads = 0;
	for (int c = 0; c < VW_COUNT; c++)
		threads += nz(in->waits[c]);
	const char *sep = "; of its threads' time, ";
	if (!isnan(in->nthreads) && in->nthreads > 1)
		put(l, "; of its %.0f threads' time, ", in->nthreads), sep = "";
	for (size_t i = 0; threads > 0 && i < sizeof(idle_parts) / sizeof(idle_parts[0]); i++) {
		double v = nz(in->waits[idle_parts[i].w]);
		if (v < MENTION * threads)
			continue;
		put(l, "%s%s %s", sep, pct(a, v / threads), idle_parts[i].words);
		sep = ", ";
	}
	enum verdict_wait w[] = {VW_LOCK, VW_CHILD, VW_IPC, VW_SLEEP};
	offcpu_figures(l, in, w, 4, true);
}

static void gpu_figures(struct line *l, const struct verdict_in *in)
{
	char a[16], b[32], c[32];
	put(l, "GPU%s busy %s", in->gpus > 1 ? "s" : "", pct(a, nz(in->gpu_busy)));
	if (in->pcie_link > 0)
		put(l, ", PCIe %s to the GPU and %s back (PCIe %d.0 x%d moves %s raw)",
		    rate(b, nz(in->pcie_h2d)), rate(c, nz(in->pcie_d2h)), in->pcie_gen, in->pcie_width,
		    rate(a, in->pcie_link));
}

void verdict_evidence(const struct verdict_in *in, const struct verdict_out *out,
		      enum verdict_label label, char *buf, size_t len)
{
	struct verdict_in w = *in;
	if (!(w.window_ns > 0))
		w.window_ns = 1;
	struct host_time h;
	host_time(&w, &h);
	struct line l = {.p = buf, .len = len};
	buf[0] = 0;
	double W = w.window_ns;
	char a[16], b[16];
	switch (label) {
	case V_CPU:
		cpu_evidence(&l, &w, &h);
		break;
	case V_CPU_WAIT:
		cpu_wait_evidence(&l, &w, &h);
		break;
	case V_DISK:
		disk_evidence(&l, &w, &h);
		break;
	case V_MEMORY:
		memory_evidence(&l, &w, &h);
		break;
	case V_GPU:
		put(&l, "a kernel running on the GPU %s of the time while the host runs %s of a CPU; ",
		    pct(a, out->share[V_GPU]), pct(b, nz(w.run_ns) / W));
		gpu_figures(&l, &w);
		break;
	case V_GPU_COPY:
		put(&l, "copying between host and GPU %s of the time: ", pct(a, out->share[V_GPU_COPY]));
		gpu_figures(&l, &w);
		break;
	case V_NETWORK:
		network_evidence(&l, &w, &h);
		break;
	case V_IDLE:
	default:
		if (have_waits(&w)) {
			idle_evidence(&l, &w, &h);
			break;
		}
		put(&l, "neither running nor waiting: running %s, waiting %s of the time (asleep, or "
			"waiting on what iopsample does not measure: the network, a lock, a timer, "
			"another process)",
		    pct(a, nz(w.run_ns) / W),
		    pct(b, (h.self_wait + h.other_wait + h.quota_wait + h.disk + h.page_wait) / W));
		break;
	}
	if (w.from_cgroup)
		put(&l, "; taskstats has no row here: the cgroup's CPU time%s decide",
		    isnan(w.cpu_some_ns) ? "" : " and pressure");
	static const char *const delays[] = {"CPU", "block I/O", "swap-in", "reclaim", "thrashing",
					     "compaction"};
	for (unsigned d = 0; d < sizeof(delays) / sizeof(delays[0]); d++)
		if (w.estimated & (1u << d))
			put(&l, "; %s delay estimated from its waits counted (the kernel's accounting "
				"faulted: taskstats' kernel_faults)",
			    delays[d]);
}

/* ---- runs of windows and the whole episode -------------------------------------- */

static void add_sum(double *a, double b)
{
	if (isnan(*a))
		*a = b;
	else if (!isnan(b))
		*a += b;
}

/* the mean of a and b, weighted by their windows' widths */
static void add_mean(double *a, double b, double wa, double wb)
{
	if (isnan(*a))
		*a = b;
	else if (!isnan(b) && wa + wb > 0)
		*a = (*a * wa + b * wb) / (wa + wb);
}

#define FIELD(f) offsetof(struct verdict_in, f)
#define AT(in, off) ((double *)((char *)(in) + (off)))

/* what a run of windows holds the sum of */
static const size_t summed[] = {
	FIELD(run_ns), FIELD(cpu_delay_ns), FIELD(blkio_ns), FIELD(swapin_ns), FIELD(freepages_ns),
	FIELD(thrashing_ns), FIELD(compact_ns), FIELD(swapin_count), FIELD(blkio_count),
	FIELD(read_bytes), FIELD(write_bytes), FIELD(system_ns),
	FIELD(throttled_ns), FIELD(ancestor_throttled_ns), FIELD(memory_high_events),
	FIELD(cpu_some_ns), FIELD(io_some_ns), FIELD(memory_some_ns),
	FIELD(majfaults), FIELD(disk_read_bytes), FIELD(disk_read_ops), FIELD(disk_write_bytes),
	FIELD(disk_write_ops), FIELD(bio_read_bytes), FIELD(bio_read_ops), FIELD(bio_write_bytes),
	FIELD(bio_write_ops), FIELD(mount_ns), FIELD(net_retrans),
#define W(i) FIELD(waits[i]), FIELD(offcpu[i])
	W(VW_RUNNING), W(VW_RUNNABLE), W(VW_DISK), W(VW_PAGING), W(VW_NETWORK), W(VW_REMOTE_FS),
	W(VW_FUSE), W(VW_LOCK), W(VW_IPC), W(VW_CHILD), W(VW_SLEEP), W(VW_OTHER),
#undef W
};
/* ... the mean over time of (shares of time and rates) */
static const size_t averaged[] = {FIELD(disk_util), FIELD(gpu_busy), FIELD(pcie_h2d), FIELD(pcie_d2h)};

void verdict_in_clear(struct verdict_in *in)
{
	memset(in, 0, sizeof(*in));
	for (size_t i = 0; i < sizeof(summed) / sizeof(summed[0]); i++)
		*AT(in, summed[i]) = NAN;
	for (size_t i = 0; i < sizeof(averaged) / sizeof(averaged[0]); i++)
		*AT(in, averaged[i]) = NAN;
	in->nthreads = in->memory_bytes = in->pcie_link = in->tree_cpus = in->high_recent = NAN;
	in->net_waiting = in->net_if_speed = NAN;
	in->net_ops = in->net_rtt_ns = in->net_read_bytes = in->net_write_bytes = NAN;
	in->net_if_rx = in->net_if_tx = NAN;
}

void verdict_in_add(struct verdict_in *a, const struct verdict_in *b)
{
	double wa = a->window_ns, wb = b->window_ns;
	for (size_t i = 0; i < sizeof(summed) / sizeof(summed[0]); i++)
		add_sum(AT(a, summed[i]), *AT(b, summed[i]));
	/* the device named: the last window's that named one (its figures are
	 * the run's mean and sums) */
	if (b->disk)
		a->disk = b->disk;
	for (size_t i = 0; i < sizeof(averaged) / sizeof(averaged[0]); i++)
		add_mean(AT(a, averaged[i]), *AT(b, averaged[i]), wa, wb);
	if (isnan(a->nthreads) || b->nthreads > a->nthreads)
		a->nthreads = b->nthreads;
	if (isnan(a->memory_bytes) || b->memory_bytes > a->memory_bytes)
		a->memory_bytes = b->memory_bytes;
	if (isnan(a->tree_cpus) || b->tree_cpus > a->tree_cpus)
		a->tree_cpus = b->tree_cpus;
	if (isnan(a->high_recent) || b->high_recent > a->high_recent)
		a->high_recent = b->high_recent;
	if (isnan(a->net_waiting) || b->net_waiting > a->net_waiting)
		a->net_waiting = b->net_waiting;
	/* the interface and the mount named: the first, and the figures of
	 * the windows that named the same */
	if (b->net_if && (!a->net_if || !strcmp(a->net_if, b->net_if))) {
		a->net_if = b->net_if;
		add_sum(&a->net_if_rx, b->net_if_rx);
		add_sum(&a->net_if_tx, b->net_if_tx);
		if (isnan(a->net_if_speed) || b->net_if_speed > a->net_if_speed)
			a->net_if_speed = b->net_if_speed;
	}
	if (b->mount && (!a->mount || !strcmp(a->mount, b->mount))) {
		a->mount = b->mount;
		a->mount_what = b->mount_what;
		add_sum(&a->net_ops, b->net_ops);
		add_sum(&a->net_rtt_ns, b->net_rtt_ns);
		add_sum(&a->net_read_bytes, b->net_read_bytes);
		add_sum(&a->net_write_bytes, b->net_write_bytes);
	}
	if (!a->quota_ancestor) {
		a->quota_ancestor = b->quota_ancestor;
		a->quota_ancestor_cpus = b->quota_ancestor_cpus;
	}
	if (b->gpus > a->gpus) {
		a->gpus = b->gpus;
		a->pcie_link = b->pcie_link;
		a->pcie_gen = b->pcie_gen;
		a->pcie_width = b->pcie_width;
	}
	if (!a->cpus)
		a->cpus = b->cpus;
	a->from_cgroup = a->from_cgroup || b->from_cgroup;
	a->swap_in_blkio = a->swap_in_blkio || b->swap_in_blkio;
	a->estimated |= b->estimated;
	a->window_ns = wa + wb;
}
