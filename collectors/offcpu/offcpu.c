// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* offcpu: where each thread of the tree spends its time, exactly, from the
 * scheduler (offcpu.bpf.c): on a CPU, on the run queue, and each wait off
 * both from the switch that began it to the wake-up that ended it, keyed
 * by where it was, classified by waits' rules (wait_class.h) and charged to
 * the rows it was spent in. The oracle the sampled waits source is judged
 * against: the same fields (common/wait_row.h).
 *
 * A row's time is the change of the tree's totals since the last: what
 * the programs charged (waits ended, by key; time on a CPU and on the run
 * queue, ended) plus what the walk finds in progress, each thread's time
 * since it began what it is doing. The charged are read in two halves,
 * by the parity of the tick they ended in (offcpu.bpf.c): the walk finds
 * what ended since the tick began, so a wait that ends between the two
 * readings is in this row, not the next. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "common/ebpf/ebpf.h"
#include "common/ebpf/ebpf_preload.h"
#include "common/ebpf/ebpf_tree.h"
#include "common/ksyms.h"
#include "common/wait_row.h"
#include "offcpu.skel.h"
#include "common/ebpf/wait_layout.h"
#include "offcpu_layout.h"
#include "pidmap.h"

/* The manifest's other_functions: the functions with most of other_ns. */
#define OTHER_LISTED 10
/* Readings of the programs under way before a tick gives up (settle) */
#define SETTLE_TRIES 1000

struct config {
	struct ebpf_preload preload;
};

/* Time by class, and the part of fuse and remote_fs by mount. */
struct sums {
	uint64_t ns[WC_NCLASSES];
	uint64_t *mount;
	size_t nmount;
};

/* A key, classified once. */
struct known {
	struct offcpu_key key;
	enum wait_class class;
	int mount;
	char fn[48];
	bool used;
};

struct offcpu {
	struct offcpu_bpf *skel;
	struct ebpf_tree tree;
	struct ksyms ksyms;
	struct wait_fds fds;
	struct wait_row row;
	int walk_fd;
	char *buf;
	size_t cap;
	struct known *known; /* open addressing, power of two */
	size_t nknown, known_cap;
	struct pidmap tgids; /* the tree's processes at the last walk */
	pid_t root;
	uint64_t epoch;        /* the tick's, as the programs read it */
	struct sums half[2];   /* charged, by the epochs' parity, as last read */
	struct sums walked;    /* the walk's */
	struct sums emitted;   /* the totals the rows have given */
	struct sums row_ns;    /* this row's */
	int ncpus;             /* busy's values */
	uint64_t *busy;
	bool *quiet;
	uint64_t unsettled;    /* ticks whose settle gave up */
	json_t *manifest;
};

static void destroy(void *skel)
{
	offcpu_bpf__destroy(skel);
}

/* The calls whose descriptors are a set, in this architecture's numbers. */
static void set_calls(struct offcpu_bpf *skel)
{
#ifdef SYS_poll
	skel->rodata->nr_poll = SYS_poll;
#endif
	skel->rodata->nr_ppoll = SYS_ppoll;
#ifdef SYS_select
	skel->rodata->nr_select = SYS_select;
#endif
	skel->rodata->nr_pselect6 = SYS_pselect6;
#ifdef SYS_epoll_wait
	skel->rodata->nr_epoll_wait = SYS_epoll_wait;
#endif
	skel->rodata->nr_epoll_pwait = SYS_epoll_pwait;
#ifdef SYS_epoll_pwait2
	skel->rodata->nr_epoll_pwait2 = SYS_epoll_pwait2;
#endif
}

/* tp_btf (5.5), the iterator (5.8), bpf_task_pt_regs (5.15), bpf_loop (5.17). */
static int load(struct offcpu_bpf **out, struct errbuf *why)
{
	ebpf_quiet_libbpf();
	struct offcpu_bpf *skel = offcpu_bpf__open();
	if (!skel)
		return ebpf_fail(why, -errno, "opening");
	set_calls(skel);
	int r = ebpf_tree_size(skel->maps.tree, why);
	if (r == 0)
		r = ebpf_tree_size(skel->maps.threads, why);
	if (r == 0 && (r = ebpf_load(skel->skeleton, why)) < 0 && !ebpf_refused(why))
		ebpf_older_than(why, 5, 17, r);
	if (r < 0) {
		offcpu_bpf__destroy(skel);
		return r;
	}
	*out = skel;
	return 0;
}

static int offcpu_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
			struct errbuf *why)
{
	(void)t;
	struct config *cfg = sc->priv;
	struct ksyms k;
	int r = ksyms_load(&k);
	if (r < 0)
		return errbuf_set(why, -r, "/proc/kallsyms: %s",
				  r == -EPERM ? "its addresses are hidden from this user" : strerror(-r));
	ksyms_free(&k);
	struct offcpu_bpf *skel;
	struct ebpf_fd_mark before;
	ebpf_preload_mark(&before);
	json_t *facts = json_object();
	r = ebpf_host_check(facts, why);
	if (r == 0 && (r = load(&skel, why)) == 0)
		ebpf_preload_keep(&cfg->preload, &before, skel, destroy);
	json_object_set_new(facts, "works", json_boolean(r == 0));
	json_object_set_new(facts, "error", r == 0 ? json_null() : json_string(why->msg));
	json_object_set_new(manifest, "ebpf", facts);
	return r;
}

/* ---- keys -------------------------------------------------------------------- */

static uint64_t key_hash(const struct offcpu_key *k)
{
	const unsigned char *b = (const void *)k;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* The key's slot: its own, or the empty one it would take. */
static struct known *slot_of(struct offcpu *o, const struct offcpu_key *k)
{
	size_t mask = o->known_cap - 1;
	for (size_t i = key_hash(k) & mask;; i = (i + 1) & mask)
		if (!o->known[i].used || !memcmp(&o->known[i].key, k, sizeof(*k)))
			return &o->known[i];
}

static int grow_known(struct offcpu *o)
{
	if (o->known_cap && 2 * (o->nknown + 1) <= o->known_cap)
		return 0;
	size_t cap = o->known_cap ? 2 * o->known_cap : 256;
	struct known *old = o->known;
	size_t old_cap = o->known_cap;
	if (!(o->known = calloc(cap, sizeof(*o->known)))) {
		o->known = old;
		return -ENOMEM;
	}
	o->known_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*slot_of(o, &old[i].key) = old[i];
	free(old);
	return 0;
}

/* Where a key waits, by waits' rules: its stack named (the first frame
 * outside the scheduler is its function), its call and descriptors. */
static const struct known *classify(struct offcpu *o, const struct offcpu_key *k)
{
	if (grow_known(o) < 0)
		return NULL;
	struct known *kn = slot_of(o, k);
	if (kn->used)
		return kn;
	*kn = (struct known){.key = *k, .used = true, .mount = -1};
	o->nknown++;
	struct wait_obs obs = {.state = (char)k->state, .flags = k->memalloc ? 0x800u : 0};
	uint64_t ips[OFFCPU_FRAMES] = {0};
	if (k->stack >= 0 && bpf_map_lookup_elem(bpf_map__fd(o->skel->maps.stacks), &k->stack, ips) == 0) {
		int n = 0;
		while (n < OFFCPU_FRAMES && ips[n])
			n++;
		for (int i = ksyms_past_scheduler(&o->ksyms, ips, (size_t)n); i < n; i++) {
			const char *name = ksyms_name(&o->ksyms, ips[i]);
			if (!name)
				continue;
			if (!obs.fn) {
				snprintf(kn->fn, sizeof(kn->fn), "%s", name);
				obs.fn = kn->fn;
			} else if (obs.nstack < WAIT_STACK_MAX) {
				obs.stack[obs.nstack++] = name;
			}
		}
	}
	obs.call = k->call == WAIT_LAYOUT_NO_CALL ? WAIT_NO_CALL : k->call < 0 ? WAIT_CALL_UNKNOWN : k->call;
	obs.kinds = k->kinds;
	obs.nfds = k->nfds;
	obs.fds_known = k->fds_known;
	if (k->dev)
		kn->mount = wait_fds_mount_of_dev(&o->fds, o->root, k->dev);
	kn->class = wait_classify(&obs); /* as though its FUSE daemon were not the tree's: class_of */
	return kn;
}

/* A key's class now: a FUSE daemon's answer is the tree's own (ipc) while
 * its daemon is of the tree, which the tree's processes at the last walk
 * say. */
static enum wait_class class_of(struct offcpu *o, const struct known *kn)
{
	if (kn->class != WC_FUSE || kn->mount < 0 || o->fds.mount[kn->mount].kind != WFD_FUSE)
		return kn->class;
	pid_t d = wait_fds_daemon(&o->fds, kn->mount);
	return d && pidmap_get(&o->tgids, d) ? WC_IPC : WC_FUSE;
}

/* ---- a tick ------------------------------------------------------------------- */

static ssize_t walk(struct offcpu *o)
{
	return ebpf_iter_read(o->walk_fd, &o->buf, &o->cap, 1 << 18);
}

static void sums_zero(struct sums *s)
{
	memset(s->ns, 0, sizeof(s->ns));
	if (s->mount)
		memset(s->mount, 0, s->nmount * sizeof(*s->mount));
}

static int sums_grow(struct sums *s, size_t n)
{
	if (n <= s->nmount)
		return 0;
	uint64_t *m = reallocarray(s->mount, n, sizeof(*m));
	if (!m)
		return -ENOMEM;
	memset(m + s->nmount, 0, (n - s->nmount) * sizeof(*m));
	s->mount = m;
	s->nmount = n;
	return 0;
}

static int sums_add(struct sums *s, enum wait_class c, int mount, uint64_t ns)
{
	s->ns[c] += ns;
	if ((c != WC_FUSE && c != WC_REMOTE_FS) || mount < 0)
		return 0;
	if (sums_grow(s, (size_t)mount + 1) < 0)
		return -ENOMEM;
	s->mount[mount] += ns;
	return 0;
}

/* A key's time to its class (the key as classified: parity apart). */
static int charge_key(struct offcpu *o, struct sums *s, const struct offcpu_key *key, uint64_t ns)
{
	struct offcpu_key k = *key;
	k.parity = 0;
	const struct known *kn = classify(o, &k);
	return kn ? sums_add(s, class_of(o, kn), kn->mount, ns) : -ENOMEM;
}

/* What the programs charged to one half, which they no longer write. */
static int read_half(struct offcpu *o, int half, struct sums *s)
{
	sums_zero(s);
	int done = bpf_map__fd(o->skel->maps.done);
	struct offcpu_key k, next;
	uint64_t ns;
	int r = 0;
	for (void *at = NULL; r == 0 && bpf_map_get_next_key(done, at, &next) == 0; at = &k) {
		k = next;
		if (k.parity == half && bpf_map_lookup_elem(done, &k, &ns) == 0)
			r = charge_key(o, s, &k, ns);
	}
	s->ns[WC_RUNNING] += __atomic_load_n(&o->skel->bss->running_ns[half], __ATOMIC_RELAXED);
	s->ns[WC_RUNNABLE] += __atomic_load_n(&o->skel->bss->runnable_ns[half], __ATOMIC_RELAXED);
	return r;
}

/* The walk's: each thread's time in what it does now, and what it was
 * charged since the tick began (its late). */
static int read_walk(struct offcpu *o, struct sums *s, unsigned *nthreads)
{
	sums_zero(s);
	ssize_t len = walk(o);
	if (len < 0)
		return (int)len;
	const size_t n = (size_t)len / sizeof(struct offcpu_now);
	int r;
	/* the tree's processes first: a FUSE daemon of the tree is its own */
	pidmap_clear(&o->tgids);
	for (size_t i = 0; i < n; i++) {
		struct offcpu_now t;
		memcpy(&t, o->buf + i * sizeof(t), sizeof(t));
		if ((r = pidmap_add(&o->tgids, (pid_t)t.tgid, 0)) < 0)
			return r;
	}
	*nthreads = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		struct offcpu_now t;
		memcpy(&t, o->buf + i * sizeof(t), sizeof(t));
		uint64_t spent = t.now_ns > t.since_ns ? t.now_ns - t.since_ns : 0;
		if (t.what == OFFCPU_RUNNING)
			s->ns[WC_RUNNING] += spent;
		else if (t.what == OFFCPU_RUNNABLE)
			s->ns[WC_RUNNABLE] += spent;
		else if (t.what == OFFCPU_WAITING && (r = charge_key(o, s, &t.key, spent)) < 0)
			return r;
		if (t.late.epoch != o->epoch)
			continue;
		s->ns[WC_RUNNING] += t.late.run_ns;
		s->ns[WC_RUNNABLE] += t.late.runq_ns;
		if (t.late.wait_ns && (r = charge_key(o, s, &t.late.key, t.late.wait_ns)) < 0)
			return r;
	}
	return 0;
}

/* The change since the last tick; a total that went back (a wait ended
 * between the two readings) gives nothing until it passes where it was. */
static uint64_t change(uint64_t *emitted, uint64_t total)
{
	if (total <= *emitted)
		return 0;
	uint64_t d = total - *emitted;
	*emitted = total;
	return d;
}

/* Until each CPU has been seen with no program under way since the epoch
 * moved on (each runs in microseconds, in the scheduler, not preempted):
 * then none charges the half the sampler reads. Bounded: a charge past it
 * is in that half's next reading, two rows later. */
static void settle(struct offcpu *o)
{
	int fd = bpf_map__fd(o->skel->maps.busy);
	__u32 zero = 0;
	for (int tries = 0; tries < SETTLE_TRIES; tries++) {
		if (bpf_map_lookup_elem(fd, &zero, o->busy) < 0)
			return;
		bool settled = true;
		for (int c = 0; c < o->ncpus; c++) {
			o->quiet[c] |= o->busy[c] == 0;
			settled &= o->quiet[c];
		}
		if (settled)
			return;
	}
	o->unsettled++;
}

/* A tick: the epoch moved on, the half it leaves read, then the walk. The
 * tree's totals are both halves and the walk's; the row, their change. */
static int measure(struct offcpu *o, bool baseline)
{
	__atomic_store_n(&o->skel->bss->epoch, ++o->epoch, __ATOMIC_SEQ_CST);
	memset(o->quiet, 0, (size_t)o->ncpus * sizeof(*o->quiet));
	settle(o);
	unsigned nthreads = 0;
	int half = (int)((o->epoch - 1) & 1);
	int r = read_half(o, half, &o->half[half]);
	if (r == 0)
		r = read_walk(o, &o->walked, &nthreads);
	size_t nmount = o->half[0].nmount;
	if (o->half[1].nmount > nmount)
		nmount = o->half[1].nmount;
	if (o->walked.nmount > nmount)
		nmount = o->walked.nmount;
	if (r < 0 || sums_grow(&o->half[0], nmount) < 0 || sums_grow(&o->half[1], nmount) < 0 ||
	    sums_grow(&o->walked, nmount) < 0 || sums_grow(&o->emitted, nmount) < 0 ||
	    sums_grow(&o->row_ns, nmount) < 0)
		return r < 0 ? r : -ENOMEM;
	for (int c = 0; c < WC_NCLASSES; c++)
		o->row_ns.ns[c] = change(&o->emitted.ns[c], o->half[0].ns[c] + o->half[1].ns[c] + o->walked.ns[c]);
	for (size_t i = 0; i < nmount; i++)
		o->row_ns.mount[i] = change(&o->emitted.mount[i],
					    o->half[0].mount[i] + o->half[1].mount[i] + o->walked.mount[i]);
	if (!baseline && wait_row_set(&o->row, o->row_ns.ns, nthreads, o->row_ns.mount, nmount, &o->fds) < 0)
		return -ENOMEM;
	return 0;
}

/* ---- the source ------------------------------------------------------------------ */

struct other_fn {
	const char *fn;
	uint64_t ns;
};

static int by_ns(const void *a, const void *b)
{
	uint64_t x = ((const struct other_fn *)a)->ns, y = ((const struct other_fn *)b)->ns;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The manifest's other_functions, from the waits the programs charged. */
static void say_other(struct offcpu *o)
{
	int done = bpf_map__fd(o->skel->maps.done);
	struct other_fn *f = calloc(o->nknown + 1, sizeof(*f));
	size_t n = 0;
	uint64_t all = 0;
	struct offcpu_key k, next;
	uint64_t ns;
	for (void *at = NULL; f && bpf_map_get_next_key(done, at, &next) == 0; at = &k) {
		k = next;
		struct offcpu_key as = k;
		as.parity = 0;
		const struct known *kn = bpf_map_lookup_elem(done, &k, &ns) == 0 ? classify(o, &as) : NULL;
		if (!kn || class_of(o, kn) != WC_OTHER)
			continue;
		const char *fn = kn->fn[0] ? kn->fn : "(unknown)";
		size_t i = 0;
		while (i < n && strcmp(f[i].fn, fn))
			i++;
		if (i == n && n <= o->nknown)
			f[n++] = (struct other_fn){fn, 0};
		if (i < n)
			f[i].ns += ns;
		all += ns;
	}
	json_t *list = json_object();
	if (f) {
		qsort(f, n, sizeof(*f), by_ns);
		for (size_t i = 0; i < n && i < OTHER_LISTED; i++)
			json_object_set_new(list, f[i].fn, json_real(all ? (double)f[i].ns / (double)all : 0));
	}
	json_object_set_new(o->manifest, "other_functions", list);
	free(f);
}

static void offcpu_close(void *state)
{
	struct offcpu *o = state;
	if (!o)
		return;
	if (o->manifest) {
		say_other(o);
		wait_row_mounts(&o->row, o->manifest, &o->fds);
		json_object_set_new(o->manifest, "switches", json_integer((json_int_t)o->skel->bss->switches));
		json_object_set_new(o->manifest, "lost", json_integer((json_int_t)o->skel->bss->lost));
		json_object_set_new(o->manifest, "stacks_lost", json_integer((json_int_t)o->skel->bss->stacks_lost));
		json_object_set_new(o->manifest, "switch_ins_unseen",
				    json_integer((json_int_t)o->skel->bss->unseen_ins));
		json_object_set_new(o->manifest, "ticks_unsettled", json_integer((json_int_t)o->unsettled));
	}
	offcpu_bpf__destroy(o->skel);
	ksyms_free(&o->ksyms);
	wait_fds_free(&o->fds);
	wait_row_free(&o->row);
	pidmap_free(&o->tgids);
	free(o->known);
	free(o->half[0].mount);
	free(o->half[1].mount);
	free(o->walked.mount);
	free(o->emitted.mount);
	free(o->row_ns.mount);
	free(o->busy);
	free(o->quiet);
	free(o->buf);
	free(o);
}

static int offcpu_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		       json_t *manifest, void **state, struct errbuf *why)
{
	const struct config *cfg = sc->priv;
	struct offcpu *o = calloc(1, sizeof(*o));
	if (!o)
		return errbuf_set(why, ENOMEM, "out of memory");
	o->root = t->keeper ? t->keeper : t->pid;
	wait_fds_init(&o->fds);
	int r = ksyms_load(&o->ksyms);
	if (r < 0) {
		free(o);
		return errbuf_set(why, -r, "/proc/kallsyms: %s", strerror(-r));
	}
	o->skel = cfg->preload.skel;
	if (!o->skel && (r = load(&o->skel, why)) < 0) {
		o->skel = NULL;
		ksyms_free(&o->ksyms);
		free(o);
		return r;
	}
	o->skel->bss->keeper = (__u32)t->keeper;
	if ((r = wait_fds_load_mounts(&o->fds, o->root)) < 0) {
		offcpu_close(o);
		return errbuf_set(why, -r, "/proc/%d/mountinfo: %s", (int)o->root, strerror(-r));
	}
	if ((r = ebpf_tree_init(&o->tree, o->skel->obj, &o->skel->bss->tree_overflow, why)) < 0 ||
	    (r = ebpf_attach(o->skel->skeleton, why)) < 0 ||
	    (r = ebpf_tree_seed(&o->tree, o->root, true, t->observer, why)) < 0) {
		offcpu_close(o);
		return r;
	}
	o->walk_fd = bpf_link__fd(o->skel->links.offcpu_walk);
	o->ncpus = libbpf_num_possible_cpus();
	if (o->ncpus <= 0 || !(o->busy = calloc((size_t)o->ncpus, sizeof(*o->busy))) ||
	    !(o->quiet = calloc((size_t)o->ncpus, sizeof(*o->quiet)))) {
		offcpu_close(o);
		return errbuf_set(why, ENOMEM, "out of memory");
	}
	if (wait_row_open(&o->row, row, manifest, &o->fds) < 0) {
		offcpu_close(o);
		return errbuf_set(why, ENOMEM, "out of memory");
	}
	json_object_set_new(manifest, "tree", json_string("fork"));
	if ((r = measure(o, true)) < 0) { /* the baseline */
		offcpu_close(o);
		return errbuf_set(why, -r, "walking the tasks: %s", strerror(-r));
	}
	o->manifest = manifest;
	*state = o;
	return 0;
}

static int offcpu_sample(void *state, struct errbuf *why)
{
	struct offcpu *o = state;
	int r = ebpf_tree_check(&o->tree, why);
	if (r < 0)
		return r;
	r = measure(o, false);
	return r < 0 ? errbuf_set(why, -r, "reading the waits: %s", strerror(-r)) : 0;
}

static void offcpu_release(struct source_config *sc)
{
	ebpf_preload_release(&((struct config *)sc->priv)->preload);
}

static size_t offcpu_inherited(const struct source_config *sc, int *fds, size_t max)
{
	return ebpf_preload_fds(&((const struct config *)sc->priv)->preload, fds, max);
}

const struct collector_ops offcpu_ops = {
	.name = "offcpu",
	.available_in_deployment = false,
	.priv_size = sizeof(struct config),
	.probe = offcpu_probe,
	.release = offcpu_release,
	.inherited = offcpu_inherited,
	.open = offcpu_open,
	.sample = offcpu_sample,
	.close = offcpu_close,
};
