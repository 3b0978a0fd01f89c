// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_io's bpf backend: the tree's /proc/PID/io sums from one walk of the
 * kernel's task list (proc_io.bpf.c says what is summed, and when a walk is
 * a snapshot of one instant). A reading walks once, and that is all when
 * no task of the tree is between its exit and its freeing and none exited
 * meanwhile, as in an idle tree; else it walks again until two walks in a
 * row have the same signature and neither met a task being reaped, and
 * takes the second. After MAX_WALKS it takes the last: the never-decreasing
 * total below carries any late count into the next row, as the procfs
 * backend's does, and the manifest counts such readings.
 *
 * The tree is kept in the kernel by fork and free, so finding it costs
 * nothing a tick, whatever its size. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ebpf/ebpf.h"
#include "common/ebpf/ebpf_preload.h"
#include "common/ebpf/ebpf_tree.h"
#include "pio_backend.h"
#include "pio_bpf_layout.h"
#include "proc_io.skel.h"

_Static_assert((int)PIO_FIELDS == (int)IO_NFIELDS && (int)PIO_RCHAR == (int)IO_RCHAR &&
		       (int)PIO_SYSCW == (int)IO_SYSCW &&
		       (int)PIO_CANCELLED_WRITE_BYTES == (int)IO_CANCELLED_WRITE_BYTES,
	       "proc_io.bpf.c sums in /proc/PID/io's order");

#define MAX_WALKS 16

struct pio_bpf_state {
	struct proc_io_bpf *skel;
	struct ebpf_tree tree;
	struct ebpf_tree_ran ran;
	int walk_fd; /* the iterator's link */
	uint64_t emitted[IO_NFIELDS];
	unsigned nprocs; /* at the last walk */
	unsigned unsettled; /* readings that ran out of walks */
	unsigned still;     /* readings that walked nothing: the tree had not run */
	json_t *manifest;
};

/* What one walk summed. */
struct walk {
	uint64_t sum[IO_NFIELDS];
	uint64_t signature, ntasks;
	unsigned nprocs, dead;
};

static void destroy(void *skel)
{
	proc_io_bpf__destroy(skel);
}

/* The iterator was added in Linux 5.8. */
static int load(struct proc_io_bpf **out, struct errbuf *why)
{
	ebpf_quiet_libbpf();
	struct proc_io_bpf *skel = proc_io_bpf__open();
	if (!skel)
		return ebpf_fail(why, -errno, "opening");
	int r = ebpf_tree_size(skel->maps.tree, why);
	if (r == 0)
		r = ebpf_tree_size(skel->maps.exited, why);
	if (r == 0 && (r = ebpf_load(skel->skeleton, why)) < 0 && !ebpf_refused(why))
		ebpf_older_than(why, 5, 8, r);
	if (r < 0) {
		proc_io_bpf__destroy(skel);
		return r;
	}
	*out = skel;
	return 0;
}

/* The whole load, kept for the sampler (ebpf_preload.h). */
static int bpf_probe(struct pio_config *cfg, json_t *facts, struct errbuf *why)
{
	struct proc_io_bpf *skel;
	struct ebpf_fd_mark before;
	ebpf_preload_mark(&before);
	int r = ebpf_host_check(facts, why);
	if (r == 0 && (r = load(&skel, why)) == 0)
		ebpf_preload_keep(&cfg->preload, &before, skel, destroy);
	return r;
}

static uint64_t load_u64(const void *p)
{
	return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

/* One run of the program over every task. It writes nothing, so one read
 * ends it. */
static int walk(struct pio_bpf_state *b, struct walk *w)
{
	struct proc_io_bpf__bss *bss = b->skel->bss;
	memset(bss->sum, 0, sizeof(bss->sum));
	bss->signature = bss->ntasks = 0;
	bss->nprocs = bss->dead = 0;
	int fd = bpf_iter_create(b->walk_fd);
	if (fd < 0)
		return -errno;
	char c;
	ssize_t n;
	while ((n = read(fd, &c, sizeof(c))) > 0)
		;
	int r = n < 0 ? -errno : 0;
	close(fd);
	memcpy(w->sum, bss->sum, sizeof(w->sum));
	w->signature = bss->signature;
	w->ntasks = bss->ntasks;
	w->nprocs = bss->nprocs;
	w->dead = bss->dead;
	return r;
}

/* The tree's total now, and its live processes. */
static int reading(struct pio_bpf_state *b, uint64_t total[IO_NFIELDS], unsigned *nprocs)
{
	struct proc_io_bpf__bss *bss = b->skel->bss;
	ebpf_tree_ran_mark(&b->ran);
	struct walk w[2];
	for (int n = 0;; n++) {
		struct walk *now = &w[n & 1], *before = &w[!(n & 1)];
		uint64_t exits = load_u64(&bss->exits);
		bool quiet = load_u64(&bss->exited_live) == 0 && load_u64(&bss->exited_lost) == 0;
		int r = walk(b, now);
		if (r < 0)
			return r;
		bool settled = !now->dead && ((quiet && load_u64(&bss->exits) == exits) ||
					      (n > 0 && !before->dead && now->signature == before->signature &&
					       now->ntasks == before->ntasks));
		if (settled || n + 1 == MAX_WALKS) {
			memcpy(total, now->sum, sizeof(now->sum));
			*nprocs = now->nprocs;
			b->unsettled += !settled;
			return 0;
		}
	}
}

static void bpf_close(void *state)
{
	struct pio_bpf_state *b = state;
	if (!b)
		return;
	if (b->manifest) {
		json_object_set_new(b->manifest, "readings_unsettled", json_integer(b->unsettled));
		json_object_set_new(b->manifest, "readings_still", json_integer(b->still));
	}
	proc_io_bpf__destroy(b->skel); /* detaches; the maps go with the fds */
	free(b);
}

static int bpf_measure(void *state, uint64_t delta[IO_NFIELDS], unsigned *nprocs, struct errbuf *why)
{
	struct pio_bpf_state *b = state;
	uint64_t total[IO_NFIELDS];
	int r = ebpf_tree_check(&b->tree, why);
	if (r < 0)
		return r;
	/* no task of the tree ran since the last walk (tree.bpf.h, TREE_RAN):
	 * nothing a walk sums moved */
	if (ebpf_tree_still(&b->ran)) {
		memset(delta, 0, IO_NFIELDS * sizeof(*delta));
		*nprocs = b->nprocs;
		b->still++;
		return 0;
	}
	if ((r = reading(b, total, &b->nprocs)) < 0)
		return errbuf_set(why, r, "walking the tasks: %s", strerror(-r));
	*nprocs = b->nprocs;
	for (int f = 0; f < IO_NFIELDS; f++) {
		delta[f] = total[f] > b->emitted[f] ? total[f] - b->emitted[f] : 0;
		if (total[f] > b->emitted[f])
			b->emitted[f] = total[f];
	}
	return 0;
}

static int bpf_open(const struct pio_config *cfg, const struct target_info *t, json_t *manifest,
		    void **state, struct errbuf *why)
{
	pid_t root = t->keeper ? t->keeper : t->pid;
	struct pio_bpf_state *b = calloc(1, sizeof(*b));
	if (!b)
		return errbuf_set(why, ENOMEM, "out of memory");
	/* this process's copy of what the probe loaded, else a load of its own */
	b->skel = cfg->preload.skel;
	int r = b->skel ? 0 : load(&b->skel, why);
	if (r < 0) {
		free(b);
		return r;
	}
	b->skel->bss->keeper = (__u32)t->keeper;
	ebpf_tree_ran_init(&b->ran, &b->skel->bss->tree_ran);
	/* attached first, then seeded: a fork from here on is seen */
	if ((r = ebpf_tree_init(&b->tree, b->skel->obj, &b->skel->bss->tree_overflow, why)) < 0 ||
	    (r = ebpf_attach(b->skel->skeleton, why)) < 0 ||
	    (r = ebpf_tree_seed(&b->tree, root, true, t->observer, why)) < 0) {
		bpf_close(b);
		return r;
	}
	b->walk_fd = bpf_link__fd(b->skel->links.pio_walk);
	json_object_set_new(manifest, "tree", json_string("fork"));
	json_object_set_new(manifest, "readings_unsettled", json_integer(0));
	json_object_set_new(manifest, "readings_still", json_integer(0));

	/* The baseline: the rows count from here, the target still waiting. */
	uint64_t ignored[IO_NFIELDS];
	unsigned n;
	if ((r = bpf_measure(b, ignored, &n, why)) < 0) {
		bpf_close(b);
		return r;
	}
	b->manifest = manifest;
	*state = b;
	return 0;
}

const struct pio_backend pio_bpf = {
	.name = "bpf",
	.probe = bpf_probe,
	.open = bpf_open,
	.measure = bpf_measure,
	.close = bpf_close,
};
