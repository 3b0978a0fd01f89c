// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* block_io: which requests the target's tree put on the selected block
 * devices, how large and how slow, beside everything the devices did
 * (block_io.bpf.c counts; this side loads it, tells it the devices, seeds
 * the tree and reads the per-CPU slots at each tick). An oracle: it needs
 * bpf(), which a deployed host does not grant.
 *
 * The row: the tree's counters and histograms, everyone's all_* counters,
 * each summed over the devices counted in the totals (a partition beside
 * its disk is not counted twice), and by_device with every counter per
 * device. */
#define _GNU_SOURCE /* open_by_handle_at, sync_file_range */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/block_devices.h"
#include "bio_throttle.h"
#include "block_io_slot.h"
#include "block_io.skel.h"
#include "collector.h"
#include "common/ebpf/ebpf.h"
#include "common/ebpf/ebpf_preload.h"
#include "common/ebpf/ebpf_slots.h"
#include "common/ebpf/ebpf_tree.h"
#include "clock.h"

_Static_assert(BIO_DEVICES == BLK_MAX_DEVICES, "the program's device table holds a selection");

static const char *const counter_names[BIO_COUNTERS] = {
	[BIO_READ_OPS] = "read_ops",
	[BIO_READ_BYTES] = "read_bytes",
	[BIO_WRITE_OPS] = "write_ops",
	[BIO_WRITE_BYTES] = "write_bytes",
	[BIO_FLUSH_OPS] = "flush_ops",
	[BIO_DISCARD_OPS] = "discard_ops",
	[BIO_DISCARD_BYTES] = "discard_bytes",
	[BIO_ALL_READ_OPS] = "all_read_ops",
	[BIO_ALL_READ_BYTES] = "all_read_bytes",
	[BIO_ALL_WRITE_OPS] = "all_write_ops",
	[BIO_ALL_WRITE_BYTES] = "all_write_bytes",
	[BIO_OTHER_READ_BYTES] = "other_read_bytes",
	[BIO_OTHER_WRITE_BYTES] = "other_write_bytes",
	[BIO_UNATTRIBUTED_READ_BYTES] = "unattributed_read_bytes",
	[BIO_UNATTRIBUTED_WRITE_BYTES] = "unattributed_write_bytes",
	[BIO_ALL_DISCARD_OPS] = "all_discard_ops",
	[BIO_ALL_DISCARD_BYTES] = "all_discard_bytes",
	[BIO_ALL_WRITE_ZEROES_OPS] = "all_write_zeroes_ops",
	[BIO_ALL_WRITE_ZEROES_BYTES] = "all_write_zeroes_bytes",
};

static const char *const cause_names[BIO_CAUSES] = {
	[CAUSE_DIRECT] = "direct",	 [CAUSE_DEMAND] = "demand", [CAUSE_READAHEAD] = "readahead",
	[CAUSE_MMAP] = "mmap",		 [CAUSE_WRITEBACK] = "writeback", [CAUSE_SYNC] = "sync",
	[CAUSE_SWAP] = "swap",		 [CAUSE_METADATA] = "metadata",
};

static const char *const cause_counter_names[CAUSE_COUNTERS] = {
	[CC_READ_OPS] = "read_ops",
	[CC_READ_BYTES] = "read_bytes",
	[CC_WRITE_OPS] = "write_ops",
	[CC_WRITE_BYTES] = "write_bytes",
};

/* block_io's keys: the devices and drain of diskstats', and flush_dirty */
struct bio_config {
	struct blk_config blk; /* first: blk_config_drain_ns reads it at priv */
	bool flush_dirty;
	/* what the probe loaded for the sampler, and what that load found */
	struct ebpf_preload preload;
	char throttle_why[256]; /* why the throttle's entry is not followed, or "" */
	char partial[320];      /* the programs the kernel refused, or "" */
};

static void bio_config_init(void *priv)
{
	blk_config_init_drain(&((struct bio_config *)priv)->blk);
}

static int bio_config_parse(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *value)
{
	struct bio_config *cfg = priv;
	if (!strcmp(key, "flush_dirty"))
		return cfg_bool(c, value, &cfg->flush_dirty);
	return blk_config_parse(&cfg->blk, c, key, value);
}

static void bio_config_describe(const void *priv, json_t *out)
{
	const struct bio_config *cfg = priv;
	blk_config_describe(&cfg->blk, out);
	json_object_set_new(out, "flush_dirty", json_boolean(cfg->flush_dirty));
}

static const char *const hist_names[2][2] = {
	/* [latency?][enum bio_dir] */
	{"read_size_hist", "write_size_hist"},
	{"read_latency_hist", "write_latency_hist"},
};

#define UNSEEN_TICKS 64

struct block_io {
	struct block_io_bpf *skel;
	struct ebpf_tree tree;
	struct ebpf_slots slots;
	struct blk_devices devs;
	struct bio_slot prev;  /* the counts at the previous sample */
	struct bio_slot cur;   /* the program's counts and extra, at this one */
	struct bio_slot extra; /* the ends this side inferred (infer_ends) */
	json_int_t rows;       /* rows sampled: the next row's seq */
	int64_t quiet_since;   /* the devices idle since (0: not idle) */
	uint64_t completed;    /* their requests completed, then */
	/* each request-based device's completions no program saw, at most
	 * (completions_unseen, the program read first), when the source
	 * opened and at each of the last UNSEEN_TICKS ticks, oldest first
	 * from unseen_next */
	struct unseen_at {
		int64_t ns;
		int64_t v[BLK_MAX_DEVICES];
	} unseen_open, unseen[UNSEEN_TICKS];
	size_t unseen_next, unseen_n;
	char blkio_dir[512];   /* the episode's own v1 blkio cgroup, or "" */
	json_t *manifest;      /* the source's entry: slots_deferred */
	json_t *inferred;      /* its ends_inferred */
	json_t *total[BIO_COUNTERS];
	json_t *by_dev[BLK_MAX_DEVICES][BIO_COUNTERS];
	json_t *hist[2][2][LOG2_HIST_BUCKETS];
	json_t *cause[BIO_CAUSES][CAUSE_COUNTERS];
	json_t *dirty;          /* dirty_bytes */
	bool flush_dirty;       /* block_io.flush_dirty */
	json_t *flushed;        /* the manifest's flush_dirty */
	json_t *inodes;         /* the manifest's tree_inodes */
	__s64 prune_at;         /* tree_inodes_n that has prune_inodes run */
	int64_t prune_retry_ns; /* or from this time, still half full */
	bool prune_refused;     /* the kernel takes no entry out with its value */
	char partial_why[320];  /* the programs the kernel refused, or "" */
};

/* Where the kernel's text symbol name is, [*lo, *hi): its address and the
 * next symbol's, from /proc/kallsyms, whose kernel symbols are in address
 * order (both 0 when it hides addresses, or when the next line is not
 * above). One pass, names compared before any number is parsed: the file
 * has some 100 000 lines. */
static void kernel_symbol_span(const char *name, __u64 *lo, __u64 *hi)
{
	*lo = *hi = 0;
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	char line[512];
	size_t n = strlen(name);
	unsigned long long start = 0;
	while (fgets(line, sizeof(line), f)) {
		if (start) {
			unsigned long long next = strtoull(line, NULL, 16);
			if (next > start) {
				*lo = start;
				*hi = next;
			}
			break;
		}
		char *nl = strchr(line, '\n'), *sym;
		if (nl)
			*nl = '\0';
		/* "ADDRESS TYPE NAME" */
		if ((sym = strrchr(line, ' ')) && !strcmp(sym + 1, name) && sym - line >= 2 &&
		    (sym[-1] == 'T' || sym[-1] == 't') && (size_t)(nl ? nl - (sym + 1) : 0) == n)
			start = strtoull(line, NULL, 16);
	}
	fclose(f);
}

static void destroy(void *skel)
{
	block_io_bpf__destroy(skel);
}

/* tree_inodes' size: an inode the tree left dirty has a dirty page at
 * least, and the kernel holds the host's dirty pages to its limit
 * (vm.dirty_bytes, else vm.dirty_ratio of the memory: of MemTotal here, a
 * bound above the kernel's, which counts only memory it could make
 * free), so as many entries as the limit has pages, within
 * [TREE_INODES_MIN, TREE_INODES_MAX]. The map is allocated as used, all
 * but its buckets, 16 bytes an entry rounded to a power of two (16 MiB
 * at the most). IOPSAMPLE_TEST_TREE_INODES sets it, for the tests. */
static __u32 tree_inodes_size(void)
{
	const char *test = getenv("IOPSAMPLE_TEST_TREE_INODES");
	if (test && atol(test) > 0)
		return (__u32)atol(test);
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long bytes = 0, ratio = 20, mem_kib = 0;
	char line[128];
	FILE *f = fopen("/proc/sys/vm/dirty_bytes", "re");
	if (f && fgets(line, sizeof(line), f))
		bytes = strtoull(line, NULL, 10);
	if (f)
		fclose(f);
	if (!bytes) {
		if ((f = fopen("/proc/sys/vm/dirty_ratio", "re"))) {
			if (fgets(line, sizeof(line), f))
				ratio = strtoull(line, NULL, 10);
			fclose(f);
		}
		if ((f = fopen("/proc/meminfo", "re"))) {
			while (fgets(line, sizeof(line), f) && sscanf(line, "MemTotal: %llu kB", &mem_kib) != 1)
				;
			fclose(f);
		}
		bytes = mem_kib * 1024 / 100 * ratio;
	}
	unsigned long long n = page > 0 ? bytes / (unsigned long long)page : 0;
	return n < TREE_INODES_MIN ? TREE_INODES_MIN : n > TREE_INODES_MAX ? TREE_INODES_MAX : (__u32)n;
}

/* Opens and loads the programs: with the fentry programs when fentries
 * (the throttle's entry where the kernel has the throttle, the page
 * cache's cleaned pages and faults), else without them. */
static int load_once(struct block_io_bpf **out, const struct bio_throttle_facts *f, bool fentries,
		     struct errbuf *why)
{
	ebpf_quiet_libbpf();
	struct block_io_bpf *skel = block_io_bpf__open();
	if (!skel)
		return ebpf_fail(why, -errno, "opening");
	if (!fentries || !f->entry)
		bpf_program__set_autoload(skel->progs.iops_bio_throttle, false);
	if (!fentries)
		bpf_program__set_autoload(skel->progs.iops_folio_cleaned, false);
	kernel_symbol_span("filemap_fault", &skel->rodata->fault_lo, &skel->rodata->fault_hi);
	skel->rodata->bio_throttled_bit = f->throttled_bit < 0 ? 0xff : (__u8)f->throttled_bit;
	skel->rodata->bio_cloned_bit = f->cloned_bit < 0 ? 0xff : (__u8)f->cloned_bit;
	skel->rodata->page_size = (__u32)sysconf(_SC_PAGESIZE);
	int r = ebpf_slots_size(skel->maps.bio_slots, why);
	if (r == 0)
		r = ebpf_tree_size(skel->maps.tree, why);
	if (r == 0 && (r = bpf_map__set_max_entries(skel->maps.tree_inodes, tree_inodes_size())) < 0)
		r = ebpf_fail(why, r, "sizing tree_inodes");
	if (r == 0)
		r = ebpf_load(skel->skeleton, why);
	if (r < 0) {
		block_io_bpf__destroy(skel);
		return r;
	}
	*out = skel;
	return 0;
}

/* Loads the programs, the fentry ones too where the kernel takes them
 * (some hosts' policies refuse fentry programs): else without them, and
 * *partial says what is missing then (and *throttle_why why the throttle's
 * entry is not followed). */
static int load(struct block_io_bpf **out, char *throttle_why, size_t len, char *partial, size_t plen,
		struct errbuf *why)
{
	struct errbuf first;
	struct bio_throttle_facts f;
	bio_throttle_facts(&f);
	*partial = '\0';
	if (!f.entry)
		snprintf(throttle_why, len, "the kernel has no throttle (__blk_throtl_bio)");
	else
		*throttle_why = '\0';
	if (load_once(out, &f, true, &first) == 0)
		return 0;
	if (f.entry)
		snprintf(throttle_why, len, "the kernel refused a program at the throttle's entry: %.180s",
			 first.msg);
	snprintf(partial, plen,
		 "the kernel refused fentry programs (%.100s): dirty_bytes keeps the tree's dirty pages "
		 "that were truncated before they were written",
		 first.msg);
	return load_once(out, &f, false, why);
}

/* The whole load, verifier included, kept for the sampler
 * (ebpf_preload.h); what it found goes to the manifest's "ebpf" as for
 * syscall_io's eBPF backend. */
static int bio_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
			struct errbuf *why)
{
	(void)t;
	struct bio_config *cfg = sc->priv;
	struct block_io_bpf *skel;
	struct ebpf_fd_mark before;
	ebpf_preload_mark(&before);
	json_t *facts = json_object();
	int r = ebpf_host_check(facts, why);
	if (r == 0)
		r = ebpf_need_helper(facts, "bpf_loop", BPF_FUNC_loop, "Linux 5.17 or later", why);
	if (r == 0 && (r = load(&skel, cfg->throttle_why, sizeof(cfg->throttle_why), cfg->partial,
				sizeof(cfg->partial), why)) == 0)
		ebpf_preload_keep(&cfg->preload, &before, skel, destroy);
	json_object_set_new(facts, "works", json_boolean(r == 0));
	json_object_set_new(facts, "error", r == 0 ? json_null() : json_string(why->msg));
	json_object_set_new(manifest, "ebpf", facts);
	return r;
}

/* Times the kernel skipped one of the programs because it was already
 * running on that CPU (a completion in an interrupt that came inside
 * another's): each a bio or a request its rows miss. */
static json_int_t recursion_misses(const struct block_io *b)
{
	json_int_t n = 0;
	struct bpf_program *p;
	bpf_object__for_each_program(p, b->skel->obj) {
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);
		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			n += (json_int_t)info.recursion_misses;
	}
	return n;
}

static void warn(struct block_io *b, const char *msg)
{
	json_t *warnings = json_object_get(b->manifest, "warnings");
	if (!json_is_array(warnings))
		json_object_set_new(b->manifest, "warnings", warnings = json_array());
	json_array_append_new(warnings, json_string(msg));
}

/* The manifest says how many events went unseen, and warns when any did,
 * and when ends were inferred (the latency histograms lack them). */
static void report_misses(struct block_io *b)
{
	char msg[256];
	json_int_t n = recursion_misses(b);
	json_object_set_new(b->manifest, "recursion_misses", json_integer(n));
	json_object_set_new(b->manifest, "bios_would_block",
			    json_integer((json_int_t)b->skel->bss->bios_would_block));
	if (b->skel->bss->other_bios_lost) {
		snprintf(msg, sizeof(msg),
			 "%llu bios from outside the tree found block_io's table full: their bytes are "
			 "in unattributed_*, not other_*",
			 (unsigned long long)b->skel->bss->other_bios_lost);
		warn(b, msg);
	}
	if (n) {
		snprintf(msg, sizeof(msg),
			 "the kernel skipped its programs %lld times, each already running on that CPU "
			 "(an interrupt's completion inside another's): the rows miss that many bios "
			 "or requests",
			 (long long)n);
		warn(b, msg);
	}
	json_int_t inferred = json_integer_value(json_object_get(b->inferred, "bios"));
	if (inferred) {
		snprintf(msg, sizeof(msg),
			 "%lld of the tree's bios ended where no program saw the end: counted in ops, "
			 "bytes and size when the end was certain, in no latency bucket (ends_inferred "
			 "names the rows)",
			 (long long)inferred);
		warn(b, msg);
	}
}

/* The name a thread's comm counts under among others: a kworker's without
 * its pool and number (kworker/u8:2 is kworker), as a reader groups them */
static void comm_group(const char *comm, char out[16])
{
	snprintf(out, 16, "%.15s", comm);
	if (!strncmp(out, "kworker/", 8))
		out[7] = '\0';
}

/* The manifest's other_top: the five comms outside the tree whose bios
 * moved the most bytes on the selected devices (counted as queued), with
 * how many bytes and how many comms were left out. */
static void report_others(struct block_io *b)
{
	enum { TOP = 5, MAX = 4096 };
	struct {
		char comm[16];
		uint64_t bytes[2];
	} *all = calloc(MAX, sizeof(*all));
	if (!all)
		return;
	size_t n = 0;
	int fd = bpf_map__fd(b->skel->maps.other_comms);
	struct comm_key k, next;
	struct comm_bytes v;
	for (int i = 0; n < MAX && bpf_map_get_next_key(fd, i ? &k : NULL, &next) == 0; i++) {
		k = next;
		if (bpf_map_lookup_elem(fd, &k, &v) < 0)
			continue;
		char g[16];
		comm_group(k.comm, g);
		size_t j = 0;
		while (j < n && strcmp(all[j].comm, g))
			j++;
		if (j == n)
			memcpy(all[n++].comm, g, sizeof(g));
		all[j].bytes[0] += v.bytes[0];
		all[j].bytes[1] += v.bytes[1];
	}
	json_t *top = json_array();
	for (int t = 0; t < TOP; t++) {
		size_t best = n;
		for (size_t j = 0; j < n; j++)
			if (all[j].comm[0] && (best == n || all[j].bytes[0] + all[j].bytes[1] >
								   all[best].bytes[0] + all[best].bytes[1]))
				best = j;
		if (best == n)
			break;
		json_array_append_new(top, json_pack("{s:s, s:I, s:I}", "comm", all[best].comm,
						     "read_bytes", (json_int_t)all[best].bytes[0],
						     "write_bytes", (json_int_t)all[best].bytes[1]));
		all[best].comm[0] = '\0';
	}
	json_object_set_new(b->manifest, "other_top", top);
	free(all);
}

static void bio_close(void *state)
{
	struct block_io *b = state;
	if (!b)
		return;
	if (b->manifest && b->skel) {
		report_misses(b);
		report_others(b);
	}
	ebpf_slots_close(&b->slots);
	block_io_bpf__destroy(b->skel); /* detaches; the maps go with the fds */
	json_decref(b->manifest);
	json_decref(b->inferred);
	json_decref(b->inodes);
	json_decref(b->flushed);
	free(b);
}

/* The kernel's dev_t (major << 20 | minor) of every selected device, and
 * which are stacked on others (and which below each), bio-based, in the
 * totals. */
static int tell_devices(struct block_io *b, struct errbuf *why)
{
	struct block_io_bpf__bss *bss = b->skel->bss;
	for (size_t i = 0; i < b->devs.n; i++) {
		if (b->devs.dev[i].n_below)
			bss->stacked_devs |= 1ull << i;
		if (!b->devs.dev[i].request_based)
			bss->bio_based_devs |= 1ull << i;
		if (b->devs.dev[i].own_totals)
			bss->totals_devs |= 1ull << i;
		for (size_t j = 0; j < b->devs.n && b->devs.dev[i].n_below; j++)
			if (j != i && blk_devices_below(&b->devs, i, j))
				bss->below_devs[i] |= 1ull << j;
		bss->lower_devs |= bss->below_devs[i];
		__u32 dev = (__u32)b->devs.dev[i].major << 20 | b->devs.dev[i].minor;
		__u8 index = (__u8)i;
		if (bpf_map__update_elem(b->skel->maps.bio_devices, &dev, sizeof(dev), &index,
					 sizeof(index), BPF_NOEXIST) < 0)
			return errbuf_set(why, errno, "block device %s: %s", b->devs.dev[i].name,
					  strerror(errno));
	}
	return 0;
}

static json_t *counter(json_t *obj, const char *name)
{
	json_t *v = json_integer(0);
	json_object_set_new(obj, name, v);
	return v;
}

/* The row's keys, fixed from here on. */
static void add_fields(struct block_io *b, json_t *row)
{
	for (int c = 0; c < BIO_ALL_READ_OPS; c++) /* the tree's, then its histograms */
		b->total[c] = counter(row, counter_names[c]);
	for (int lat = 0; lat < 2; lat++)
		for (int dir = 0; dir < 2; dir++) {
			json_t *a = json_array();
			for (int k = 0; k < LOG2_HIST_BUCKETS; k++)
				json_array_append_new(a, b->hist[lat][dir][k] = json_integer(0));
			json_object_set_new(row, hist_names[lat][dir], a);
		}
	for (int c = BIO_ALL_READ_OPS; c < BIO_COUNTERS; c++)
		b->total[c] = counter(row, counter_names[c]);
	json_t *causes = json_object();
	for (int k = 0; k < BIO_CAUSES; k++) {
		json_t *one = json_object();
		for (int c = 0; c < CAUSE_COUNTERS; c++)
			b->cause[k][c] = counter(one, cause_counter_names[c]);
		json_object_set_new(causes, cause_names[k], one);
	}
	json_object_set_new(row, "by_cause", causes);
	b->dirty = counter(row, "dirty_bytes");
	json_t *dev[BLK_MAX_DEVICES];
	json_t *by = blk_by_device(&b->devs, dev);
	for (size_t d = 0; d < b->devs.n; d++)
		for (int c = 0; c < BIO_COUNTERS; c++)
			b->by_dev[d][c] = counter(dev[d], counter_names[c]);
	json_object_set_new(row, "by_device", by);
}

static int check(struct block_io *b, struct errbuf *why)
{
	int r = ebpf_tree_check(&b->tree, why);
	if (r == 0 && b->skel->bss->bios_lost)
		r = errbuf_set(why, ENOSPC, "more of the tree's bios in flight at once than block_io can follow");
	if (r == 0 && b->skel->bss->walks_cut)
		r = errbuf_set(why, E2BIG, "a request held more bios than block_io walks");
	if (r == 0 && b->skel->bss->upper_lost)
		r = errbuf_set(why, ENOSPC, "more bios in flight at once on stacked devices than block_io can follow");
	return r;
}

/* The program's counts with the ends this side inferred. */
static const struct bio_slot *counts(struct block_io *b)
{
	const __u64 *p = ebpf_slots_read(&b->slots), *x = (const __u64 *)&b->extra;
	__u64 *c = (__u64 *)&b->cur;
	for (size_t w = 0; w < sizeof(b->cur) / sizeof(__u64); w++)
		c[w] = p[w] + x[w];
	return &b->cur;
}

/* The rows with ends inferred, in the manifest's ends_inferred. */
static void note_inferred(struct block_io *b, const struct bio_slot *now)
{
	json_int_t n = 0;
	for (int dir = 0; dir < BIO_DIRS; dir++)
		n += (json_int_t)(now->ends_inferred[dir] - b->prev.ends_inferred[dir]);
	if (n == 0)
		return;
	json_t *bios = json_object_get(b->inferred, "bios");
	json_integer_set(bios, json_integer_value(bios) + n);
	json_array_append_new(json_object_get(b->inferred, "rows"), json_integer(b->rows));
}

/* One inode of the tree whose dirty bytes could not be kept in
 * tree_inodes: out of dirty_bytes, into dirty_refused. */
static void refuse_dirty(struct block_io *b, const struct tree_inode *ti)
{
	struct block_io_bpf__bss *bss = b->skel->bss;
	__atomic_fetch_add(&bss->dirty_refused, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bss->dirty_refused_bytes, (__u64)ti->dirty, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&bss->tree_dirty_bytes, ti->dirty, __ATOMIC_RELAXED);
	if (ti->bdev)
		__atomic_fetch_sub(&bss->tree_dirty_bdev_bytes, ti->dirty, __ATOMIC_RELAXED);
}

/* An inode whose dirt changed this recently stays in tree_inodes: a
 * program that found it an instant before adds to the entry it holds, and
 * an entry taken out meanwhile would lose that (a program runs for
 * microseconds; 100 ms is far past it). */
#define PRUNE_IDLE_NS (100 * 1000 * 1000)

/* Takes out of tree_inodes the inodes whose pages the tree dirtied have
 * all been written (or dropped) and have not changed for PRUNE_IDLE_NS,
 * once it is half full (the other half room for what the tree dirties
 * until the next tick): so an episode may write any number of files, as
 * many at once as the map holds. One walk finds them, then each is taken
 * with its value at that instant (one system call: Linux 5.14), so pages
 * dirtied again since it was looked at go back in with it. A kernel that
 * cannot (5.10) keeps every inode, its size the bound, said in the
 * manifest. */
static void prune_inodes(struct block_io *b)
{
	struct block_io_bpf__bss *bss = b->skel->bss;
	__s64 n = __atomic_load_n(&bss->tree_inodes_n, __ATOMIC_RELAXED);
	if (b->prune_refused || (n < b->prune_at && !(b->prune_retry_ns && clock_mono_ns() >= b->prune_retry_ns &&
						      n >= json_integer_value(json_object_get(b->inodes, "size")) / 2)))
		return;
	b->prune_retry_ns = 0;
	int fd = bpf_map__fd(b->skel->maps.tree_inodes);
	__u64 key = 0, next, now = (__u64)clock_mono_ns();
	__u64 *keys = NULL;
	size_t got = 0, cap = 0;
	for (int i = 0; bpf_map_get_next_key(fd, i ? &key : NULL, &next) == 0; i++) {
		struct tree_inode ti;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &ti) < 0 || ti.dirty > 0 || now - ti.settled_ns < PRUNE_IDLE_NS)
			continue;
		if (got == cap) {
			size_t c = cap ? 2 * cap : 1024;
			__u64 *k = reallocarray(keys, c, sizeof(*k));
			if (!k)
				break; /* what was found is taken; the rest next time */
			keys = k;
			cap = c;
		}
		keys[got++] = key;
	}
	json_int_t taken = 0;
	for (size_t k = 0; k < got; k++) {
		struct tree_inode ti;
		if (bpf_map_lookup_and_delete_elem(fd, &keys[k], &ti) < 0) {
			if (errno == ENOENT)
				continue;
			b->prune_refused = true;
			json_object_set_new(b->inodes, "pruned_error", json_string(strerror(errno)));
			break;
		}
		__atomic_fetch_sub(&bss->tree_inodes_n, 1, __ATOMIC_RELAXED);
		taken++;
		if (ti.dirty <= 0)
			continue;
		if (bpf_map_update_elem(fd, &keys[k], &ti, BPF_NOEXIST) == 0)
			__atomic_fetch_add(&bss->tree_inodes_n, 1, __ATOMIC_RELAXED);
		else
			refuse_dirty(b, &ti); /* dirtied again meanwhile, and a new entry made */
	}
	free(keys);
	json_int_t size = json_integer_value(json_object_get(b->inodes, "size"));
	json_object_set_new(b->inodes, "pruned",
			    json_integer(json_integer_value(json_object_get(b->inodes, "pruned")) + taken));
	n = __atomic_load_n(&bss->tree_inodes_n, __ATOMIC_RELAXED);
	/* again when it has grown by an eighth more, or, still half full,
	 * once those too young now may be taken */
	b->prune_at = n + size / 8 > size / 2 ? n + size / 8 : size / 2;
	b->prune_retry_ns = (int64_t)now + PRUNE_IDLE_NS;
}

/* The manifest's tree_inodes, as they stand. */
static void note_inodes(struct block_io *b)
{
	struct block_io_bpf__bss *bss = b->skel->bss;
	json_object_set_new(b->inodes, "refused_folios",
			    json_integer((json_int_t)__atomic_load_n(&bss->dirty_refused, __ATOMIC_RELAXED)));
	json_object_set_new(b->inodes, "refused_bytes",
			    json_integer((json_int_t)__atomic_load_n(&bss->dirty_refused_bytes, __ATOMIC_RELAXED)));
}

static void note_unseen(struct block_io *b);

static int bio_sample(void *state, struct errbuf *why)
{
	struct block_io *b = state;
	int r = check(b, why);
	if (r < 0)
		return r;
	prune_inodes(b);
	note_inodes(b);
	note_unseen(b);
	const struct bio_slot *now = counts(b);
	for (size_t d = 0; d < b->devs.n; d++)
		for (int c = 0; c < BIO_COUNTERS; c++)
			json_integer_set(b->by_dev[d][c], (json_int_t)(now->dev[d][c] - b->prev.dev[d][c]));
	for (int c = 0; c < BIO_COUNTERS; c++) /* counted bio by bio: a clone below a stacked bio not again */
		json_integer_set(b->total[c], (json_int_t)(now->total[c] - b->prev.total[c]));
	for (int k = 0; k < BIO_CAUSES; k++)
		for (int c = 0; c < CAUSE_COUNTERS; c++)
			json_integer_set(b->cause[k][c], (json_int_t)(now->cause[k][c] - b->prev.cause[k][c]));
	__s64 dirty = __atomic_load_n(&b->skel->bss->tree_dirty_bytes, __ATOMIC_RELAXED);
	json_integer_set(b->dirty, dirty > 0 ? (json_int_t)dirty : 0);
	for (int dir = 0; dir < 2; dir++)
		for (int k = 0; k < LOG2_HIST_BUCKETS; k++) {
			json_integer_set(b->hist[0][dir][k],
					 (json_int_t)(now->size_hist[dir][k] - b->prev.size_hist[dir][k]));
			json_integer_set(b->hist[1][dir][k], (json_int_t)(now->latency_hist[dir][k] -
									  b->prev.latency_hist[dir][k]));
		}
	note_inferred(b, now);
	b->prev = *now;
	b->rows++;
	ebpf_slots_report(&b->slots, b->manifest);
	return 0;
}

/* The baseline, again, once every source has opened: diskstats' is taken
 * at the same moment. */
static void bio_begin(void *state)
{
	struct block_io *b = state;
	b->prev = *counts(b);
}

/* A directory of the file system on the kernel's dev_t dev, opened, from
 * /proc/self/mountinfo ("ID PARENT MAJOR:MINOR ROOT MOUNTPOINT ..."; the
 * mount point's blanks escaped as \040): -1 when none is mounted. */
static int mount_dir(uint32_t dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	char line[4096], root[4096], point[4096];
	unsigned ma, mi;
	int fd = -1;
	while (fd < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &ma, &mi, root, point) == 4 &&
		    ma == dev >> 20 && mi == (dev & 0xfffff)) {
			char path[4096];
			size_t o = 0;
			for (const char *p = point; *p && o + 1 < sizeof(path); p++)
				if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] && p[3]) {
					path[o++] = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
					p += 3;
				} else {
					path[o++] = *p;
				}
			path[o] = '\0';
			fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
	fclose(f);
	return fd;
}

/* block_io.flush_dirty: starts writeback of the pages the tree left dirty,
 * and of no others: each inode with some (tree_inodes) opened by handle,
 * its number and generation as the file system exports them
 * (FILEID_INO32_GEN: ext4, xfs, ext2), and sync_file_range(2) asked to
 * write its dirty pages; no sync(2) of the host, no metadata, no cache
 * flush. Their bios count as writeback before the final row, which waits
 * for dirty_bytes to reach 0 (bio_in_flight), at most the drain. */
static void flush_dirty(struct block_io *b)
{
	int fd = bpf_map__fd(b->skel->maps.tree_inodes);
	__u64 key, next;
	struct tree_inode ti;
	json_int_t asked = 0, refused = 0;
	char why[200] = "";
	uint32_t dir_dev = 0;
	int dir = -1;
	for (int i = 0; bpf_map_get_next_key(fd, i ? &key : NULL, &next) == 0; i++) {
		key = next;
		/* a block device's own cache is the file system's buffers,
		 * which it writes itself: not asked for */
		if (bpf_map_lookup_elem(fd, &key, &ti) < 0 || ti.dirty <= 0 || ti.bdev)
			continue;
		if (dir < 0 || dir_dev != ti.dev) {
			if (dir >= 0)
				close(dir);
			dir = mount_dir(dir_dev = ti.dev);
		}
		union {
			struct file_handle h;
			char bytes[sizeof(struct file_handle) + 8];
		} fh;
		uint32_t ino_gen[2] = {(uint32_t)ti.ino, ti.generation};
		fh.h.handle_bytes = sizeof(ino_gen);
		fh.h.handle_type = 1; /* FILEID_INO32_GEN */
		memcpy(fh.h.f_handle, ino_gen, sizeof(ino_gen));
		int f = dir < 0 ? (errno = ENOENT, -1)
				: open_by_handle_at(dir, &fh.h, O_RDONLY | O_CLOEXEC | O_NOATIME);
		if (f >= 0 && sync_file_range(f, 0, 0, SYNC_FILE_RANGE_WRITE) == 0) {
			asked++;
		} else {
			refused++;
			if (!*why)
				snprintf(why, sizeof(why), "inode %llu on %u:%u: %s", (unsigned long long)ti.ino,
					 ti.dev >> 20, ti.dev & 0xfffff,
					 dir < 0 ? "its file system is not mounted here" : strerror(errno));
		}
		if (f >= 0)
			close(f);
	}
	if (dir >= 0)
		close(dir);
	b->flushed = json_pack("{s:I, s:I}", "inodes", asked, "refused", refused);
	if (*why)
		json_object_set_new(b->flushed, "error", json_string(why));
	json_object_set(b->manifest, "flush_dirty", b->flushed);
}

/* The tree is gone: its dirty pages are written back if asked, and a row
 * may be the last, so a slot mid-update is waited for, not left for a row
 * that may never come. */
static void bio_finish(void *state)
{
	struct block_io *b = state;
	if (b->flush_dirty)
		flush_dirty(b);
	ebpf_slots_wait_whole(&b->slots, EBPF_FINAL_WAIT_NS);
}

/* The devices have had nothing in flight and completed nothing for this
 * long: any bio of the tree still in tree_bios has ended, unseen. Longer
 * than an I/O scheduler holds a request back while the device idles
 * (BFQ's slice_idle, 8 ms). */
#define QUIET_NS (50 * 1000 * 1000)

/* Whether every selected device has been idle for QUIET_NS. */
static bool devices_quiet(struct block_io *b)
{
	uint64_t completed = 0;
	bool idle = true;
	for (size_t d = 0; d < b->devs.n && idle; d++) {
		struct blk_activity a;
		idle = blk_device_activity("/sys", &b->devs.dev[d], &a) == 0 && a.in_flight == 0;
		if (idle)
			completed += a.completed;
	}
	int64_t now = clock_mono_ns();
	if (!idle || !b->quiet_since || completed != b->completed) {
		b->quiet_since = idle ? now : 0;
		b->completed = completed;
		return false;
	}
	return now - b->quiet_since >= QUIET_NS;
}

/* Each request-based device's requests completed that no program saw,
 * since boot, as its stat's reads, writes and discards completed less
 * the program's count of the same (count_request counts as the stat
 * does). The kernel traces a completion (where the program counts it)
 * before it accounts it in the stat, so one under way is in neither:
 * read stat first, the difference is never above the completions unseen;
 * read the program first, it is above them but by the completions traced
 * and not yet accounted as it read (a few microseconds' worth; requests
 * the stat does not count, as with queue/iostats 0, or counts and the
 * program does not, secure erase, zone append, move it). A device whose
 * stat cannot be
 * read, or that is bio-based (dm, md: the program counts no request of
 * theirs), reads INT64_MAX. */
static void completions_unseen(struct block_io *b, bool stat_first, int64_t *out)
{
	const struct bio_slot *c = stat_first ? NULL : counts(b);
	uint64_t stat[BLK_MAX_DEVICES];
	for (size_t d = 0; d < b->devs.n; d++) {
		struct blk_activity a;
		bool known = b->devs.dev[d].request_based &&
			     blk_device_activity("/sys", &b->devs.dev[d], &a) == 0;
		stat[d] = known ? a.data_completed : UINT64_MAX;
	}
	if (stat_first)
		c = counts(b);
	for (size_t d = 0; d < b->devs.n; d++) {
		const __u64 *n = c->dev[d];
		out[d] = stat[d] == UINT64_MAX ? INT64_MAX
					       : (int64_t)(stat[d] - n[BIO_ALL_READ_OPS] - n[BIO_ALL_WRITE_OPS] -
							   n[BIO_ALL_DISCARD_OPS]);
	}
}

/* At most how many completions of device d no program had seen when a
 * bio was issued at ns: the last reading at or before it (a completion
 * missed after that reading and before the issue counts too: one tick at
 * most), the open's for one older than the ring. */
static int64_t unseen_before(const struct block_io *b, __u64 ns, size_t d)
{
	const struct unseen_at *best = &b->unseen_open;
	for (size_t i = 0; i < b->unseen_n; i++) {
		const struct unseen_at *u = &b->unseen[(b->unseen_next + UNSEEN_TICKS - b->unseen_n + i) % UNSEEN_TICKS];
		if ((__u64)u->ns > ns)
			break;
		best = u;
	}
	return best->v[d];
}

/* This tick's reading, into the ring. */
static void note_unseen(struct block_io *b)
{
	struct unseen_at *u = &b->unseen[b->unseen_next];
	u->ns = clock_mono_ns();
	completions_unseen(b, false, u->v);
	b->unseen_next = (b->unseen_next + 1) % UNSEEN_TICKS;
	if (b->unseen_n < UNSEEN_TICKS)
		b->unseen_n++;
}

/* Whether a bio of the tree has surely ended once its devices are quiet
 * (unseen: completions_unseen's now, stat first). sysfs's in_flight counts
 * only requests a driver has started, so a bio that no issued request
 * holds yet may still wait (at the throttle, in the I/O scheduler)
 * however idle the device looks. Nor is an issued one's end certain: a
 * request leaves in_flight as its driver completes it, before the kernel
 * traces that (virtio-blk batches completions, and a softirq or another
 * CPU may run them): it has ended unseen only if its device completed
 * requests no program saw since the tick before it was issued
 * (note_unseen). A bio-based device (dm, md) issues no request: its
 * in_flight counts its bios. */
static bool surely_ended(const struct block_io *b, const struct bio_entry *tb, const int64_t *unseen)
{
	if (tb->held)
		return false;
	/* a flush alone (fsync's) is never in an issued request: the flush
	 * machinery issues one of its own, with no bio */
	if (tb->kind == TB_NONE)
		return true;
	bool missed = false;
	for (int k = 0; k < 2; k++)
		missed |= tb->dev[k] < b->devs.n && unseen[tb->dev[k]] > unseen_before(b, tb->issue_ns, tb->dev[k]);
	if (tb->issue_ns)
		return missed;
	return tb->dev[0] < b->devs.n && !b->devs.dev[tb->dev[0]].request_based;
}

/* v into counter c of the entry's devices in extra, and of the totals
 * once where counted, as the program's add_io */
static void add_io_extra(struct block_io *b, const struct bio_entry *tb, bool only_bio_based, enum bio_counter c,
			 __u64 v)
{
	bool counted = false;
	for (int k = 0; k < 2; k++) {
		__u8 d = tb->dev[k];
		if (d >= b->devs.n || (only_bio_based && b->devs.dev[d].request_based))
			continue;
		b->extra.dev[d][c] += v;
		counted |= b->devs.dev[d].own_totals;
	}
	if (counted && !tb->lower)
		b->extra.total[c] += v;
}

/* Bytes of a bio into extra, as the program's count_bytes: its owner's,
 * another's share of a tree's bio first */
static void count_bytes_extra(struct block_io *b, const struct bio_entry *tb, __u32 bytes)
{
	if (tb->kind != TB_READ && tb->kind != TB_WRITE)
		return;
	bool write = tb->kind == TB_WRITE, tree = tb->owner == OWNER_TREE;
	__u32 others = !tree ? bytes : tb->other_left < bytes ? tb->other_left : bytes;
	add_io_extra(b, tb, false, write ? BIO_OTHER_WRITE_BYTES : BIO_OTHER_READ_BYTES, others);
	add_io_extra(b, tb, false, write ? BIO_WRITE_BYTES : BIO_READ_BYTES, bytes - others);
	if (tree && tb->cause < BIO_CAUSES && !tb->lower)
		b->extra.cause[tb->cause][write ? CC_WRITE_BYTES : CC_READ_BYTES] += bytes - others;
}

/* The bio at key ended unseen: taken out of the bios map and counted into
 * extra, as the program counts an end it did not see (bio_end). A bio the
 * program takes meanwhile is counted there, once: whoever deletes it
 * counts it. */
static void count_inferred(struct block_io *b, int fd, __u64 key)
{
	struct bio_entry tb;
	if (bpf_map_lookup_elem(fd, &key, &tb) < 0 || bpf_map_delete_elem(fd, &key) < 0)
		return;
	__atomic_fetch_sub(&b->skel->bss->bios_inflight, 1, __ATOMIC_RELAXED);
	if (tb.owner == OWNER_TREE)
		__atomic_fetch_sub(&b->skel->bss->tree_bios_inflight, 1, __ATOMIC_RELAXED);
	struct upper_bio u;
	if (tb.upper && bpf_map__lookup_elem(b->skel->maps.upper_vecs, &tb.vec, sizeof(tb.vec), &u, sizeof(u), 0) == 0 &&
	    u.key == key && bpf_map__delete_elem(b->skel->maps.upper_vecs, &tb.vec, sizeof(tb.vec), 0) == 0)
		__atomic_fetch_sub(&b->skel->bss->upper_inflight, 1, __ATOMIC_RELAXED);
	if (tb.bytes > tb.done + tb.split_off)
		count_bytes_extra(b, &tb, tb.bytes - tb.done - tb.split_off);
	/* a bio-based device's everyone's counts are its bios' (the
	 * program's count_bio_based) */
	static const enum bio_counter all[][2] = {[TB_READ] = {BIO_ALL_READ_OPS, BIO_ALL_READ_BYTES},
						  [TB_WRITE] = {BIO_ALL_WRITE_OPS, BIO_ALL_WRITE_BYTES},
						  [TB_DISCARD] = {BIO_ALL_DISCARD_OPS, BIO_ALL_DISCARD_BYTES}};
	if (tb.kind < TB_NONE) {
		add_io_extra(b, &tb, true, all[tb.kind][0], 1);
		add_io_extra(b, &tb, true, all[tb.kind][1], tb.bytes - tb.split_off);
	}
	if (tb.owner != OWNER_TREE || tb.split)
		return;
	if (tb.kind == TB_READ)
		add_io_extra(b, &tb, false, BIO_READ_OPS, 1);
	else if (tb.kind == TB_WRITE)
		add_io_extra(b, &tb, false, BIO_WRITE_OPS, 1);
	else if (tb.kind == TB_DISCARD) {
		add_io_extra(b, &tb, false, BIO_DISCARD_OPS, 1);
		add_io_extra(b, &tb, false, BIO_DISCARD_BYTES, tb.bytes);
	}
	if (tb.flush)
		add_io_extra(b, &tb, false, BIO_FLUSH_OPS, 1);
	if (tb.lower) {
		/* the stacked device's bio counts once, cause and size */
	} else if (tb.kind == TB_READ || tb.kind == TB_WRITE) {
		int dir = tb.kind == TB_WRITE ? BIO_DIR_WRITE : BIO_DIR_READ;
		if (tb.cause < BIO_CAUSES)
			b->extra.cause[tb.cause][dir == BIO_DIR_WRITE ? CC_WRITE_OPS : CC_READ_OPS]++;
		b->extra.size_hist[dir][log2_bucket(tb.bytes)]++;
		b->extra.ends_inferred[dir]++;
	} else {
		b->extra.ends_inferred[BIO_DIR_OTHER]++;
	}
}

/* Counts the bios left in the bios map that have surely ended. A pass
 * collects keys, then takes them out (a walk cannot go on from a key it
 * deleted); another pass follows while one found a full batch. */
static void infer_ends(struct block_io *b)
{
	enum { BATCH = 64 };
	int fd = bpf_map__fd(b->skel->maps.bios);
	__u64 keys[BATCH], cur = 0, next;
	size_t n;
	int64_t unseen[BLK_MAX_DEVICES];
	completions_unseen(b, true, unseen);
	for (int pass = 0; pass <= BIOS_MAX / BATCH; pass++) {
		n = 0;
		for (int i = 0; i < BIOS_MAX && n < BATCH &&
				bpf_map_get_next_key(fd, i ? &cur : NULL, &next) == 0;
		     i++) {
			struct bio_entry tb;
			cur = next;
			if (bpf_map_lookup_elem(fd, &cur, &tb) == 0 && surely_ended(b, &tb, unseen))
				keys[n++] = cur;
		}
		for (size_t k = 0; k < n; k++)
			count_inferred(b, fd, keys[k]);
		if (n < BATCH)
			break;
	}
}

/* Bytes the episode's v1 throttle took in for the selected devices' disks
 * and still holds: blkio.throttle.io_service_bytes (counted as a bio enters
 * the throttle, whether it waits or not) less what the episode's cgroup
 * queued to them (block_io.bpf.c). 0 without a v1 blkio cgroup of the
 * episode's own. */
static uint64_t throttle_held(struct block_io *b, const struct bio_slot *now)
{
	char path[600], line[128];
	if (!b->blkio_dir[0])
		return 0;
	snprintf(path, sizeof(path), "%s/blkio.throttle.io_service_bytes", b->blkio_dir);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	uint64_t held = 0;
	for (size_t d = 0; d < b->devs.n; d++) {
		const struct blk_dev *dev = &b->devs.dev[d];
		bool first = true; /* a disk's count, once however many of its devices */
		for (size_t e = 0; e < d; e++)
			first &= !(b->devs.dev[e].disk_major == dev->disk_major &&
				   b->devs.dev[e].disk_minor == dev->disk_minor);
		if (!first)
			continue;
		uint64_t entered = 0, queued = 0;
		unsigned ma, mi;
		char op[16];
		unsigned long long v;
		rewind(f);
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%u:%u %15s %llu", &ma, &mi, op, &v) == 4 &&
			    ma == dev->disk_major && mi == dev->disk_minor &&
			    (!strcmp(op, "Read") || !strcmp(op, "Write") || !strcmp(op, "Discard")))
				entered += v;
		for (size_t e = 0; e < b->devs.n; e++)
			if (b->devs.dev[e].disk_major == dev->disk_major &&
			    b->devs.dev[e].disk_minor == dev->disk_minor)
				queued += now->cg_queued_bytes[e];
		held += entered > queued ? entered - queued : 0;
	}
	fclose(f);
	return held;
}

/* The tree's bios not yet ended (its processes may all be gone), and
 * those the throttle still holds. */
static bool bio_in_flight(void *state, json_t **left)
{
	struct block_io *b = state;
	__s64 n = __atomic_load_n(&b->skel->bss->tree_bios_inflight, __ATOMIC_RELAXED);
	if (n > 0 && devices_quiet(b)) {
		infer_ends(b);
		n = __atomic_load_n(&b->skel->bss->tree_bios_inflight, __ATOMIC_RELAXED);
	}
	uint64_t held = throttle_held(b, counts(b));
	__s64 dirty = b->flush_dirty ? __atomic_load_n(&b->skel->bss->tree_dirty_bytes, __ATOMIC_RELAXED) -
					       __atomic_load_n(&b->skel->bss->tree_dirty_bdev_bytes, __ATOMIC_RELAXED)
				     : 0;
	if (n <= 0 && held == 0 && dirty <= 0)
		return false;
	*left = json_pack("{s:I, s:I}", "bios", (json_int_t)(n > 0 ? n : 0), "throttled_bytes",
			  (json_int_t)held);
	if (b->flush_dirty)
		json_object_set_new(*left, "dirty_bytes", json_integer(dirty > 0 ? (json_int_t)dirty : 0));
	return true;
}

static int bio_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		    json_t *manifest, void **state, struct errbuf *why)
{
	struct block_io *b = calloc(1, sizeof(*b));
	if (!b)
		return errbuf_set(why, ENOMEM, "out of memory");
	char throttle_why[256];
	const struct bio_config *cfg = sc->priv;
	b->flush_dirty = cfg->flush_dirty;
	int r = blk_config_devices(&cfg->blk, &b->devs, why);
	/* this process's copy of what the probe loaded, else a load of its own */
	if (r == 0 && cfg->preload.skel) {
		b->skel = cfg->preload.skel;
		snprintf(throttle_why, sizeof(throttle_why), "%s", cfg->throttle_why);
		snprintf(b->partial_why, sizeof(b->partial_why), "%s", cfg->partial);
	} else if (r == 0) {
		r = load(&b->skel, throttle_why, sizeof(throttle_why), b->partial_why, sizeof(b->partial_why),
			 why);
	}
	if (r == 0) {
		uint64_t ids[2];
		bio_episode_cgroups(t->cgroups, ids);
		b->skel->bss->episode_cgroups[0] = ids[0];
		b->skel->bss->episode_cgroups[1] = ids[1];
	}
	/* For the tests only: no completion program runs, so every end of the
	 * tree's bios is inferred (block_io.bpf.c, "Ends no program sees"), as
	 * on a host whose kernel runs no program where the devices complete. */
	if (r == 0 && getenv("IOPSAMPLE_TEST_UNSEEN_ENDS")) {
		bpf_program__set_autoattach(b->skel->progs.iops_rq_complete, false);
		bpf_program__set_autoattach(b->skel->progs.iops_bio_complete, false);
	}
	/* attached before seeding: a fork or an exit of the running tree from
	 * here on is seen (attach mode) */
	if (r < 0 || (r = tell_devices(b, why)) < 0 ||
	    (r = ebpf_tree_init(&b->tree, b->skel->obj, &b->skel->bss->tree_overflow, why)) < 0 ||
	    (r = ebpf_attach(b->skel->skeleton, why)) < 0 ||
	    (r = ebpf_tree_seed(&b->tree, t->pid, t->keeper == 0, t->observer, why)) < 0 ||
	    (r = ebpf_slots_open(&b->slots, b->skel->maps.bio_slots, sizeof(struct bio_slot), why)) < 0) {
		bio_close(b);
		return r;
	}
	b->prev = *counts(b);
	b->unseen_open.ns = clock_mono_ns();
	completions_unseen(b, false, b->unseen_open.v);
	add_fields(b, row);
	json_object_set_new(manifest, "devices", blk_devices_json(&b->devs, true));
	b->inferred = json_pack("{s:i,s:[]}", "bios", 0, "rows");
	json_object_set(manifest, "ends_inferred", b->inferred);
	json_int_t size = (json_int_t)bpf_map__max_entries(b->skel->maps.tree_inodes);
	b->inodes = json_pack("{s:I, s:i, s:i, s:i}", "size", size, "pruned", 0, "refused_folios", 0, "refused_bytes", 0);
	if (getenv("IOPSAMPLE_TEST_TREE_INODES"))
		json_object_set_new(b->inodes, "test_size", json_true());
	json_object_set(manifest, "tree_inodes", b->inodes);
	b->prune_at = size / 2;
	if (t->cgroups && t->cgroups->owned)
		snprintf(b->blkio_dir, sizeof(b->blkio_dir), "%s", t->cgroups->dir[CGR_BLKIO]);
	if (getenv("IOPSAMPLE_TEST_UNSEEN_ENDS"))
		json_object_set_new(manifest, "test_unseen_ends", json_true());
	json_object_set_new(manifest, "throttle_entry",
			    *throttle_why ? json_string(throttle_why) : json_null());
	if (*b->partial_why)
		json_object_set_new(manifest, "causes_partial", json_string(b->partial_why));
	b->manifest = json_incref(manifest);
	ebpf_slots_report(&b->slots, manifest);
	*state = b;
	return 0;
}

/* What the probe loaded, for a sampler forked with a copy of its own, or
 * never. */
static void bio_release(struct source_config *sc)
{
	ebpf_preload_release(&((struct bio_config *)sc->priv)->preload);
}

static size_t bio_inherited(const struct source_config *sc, int *fds, size_t max)
{
	return ebpf_preload_fds(&((const struct bio_config *)sc->priv)->preload, fds, max);
}

const struct collector_ops block_io_ops = {
	.name = "block_io",
	.available_in_deployment = false,
	.priv_size = sizeof(struct bio_config),
	.init = bio_config_init,
	.parse_key = bio_config_parse,
	.describe = bio_config_describe,
	.probe = bio_probe,
	.release = bio_release,
	.inherited = bio_inherited,
	.open = bio_open,
	.begin = bio_begin,
	.sample = bio_sample,
	.finish = bio_finish,
	.in_flight = bio_in_flight,
	.drain_ns = blk_config_drain_ns,
	.close = bio_close,
};
