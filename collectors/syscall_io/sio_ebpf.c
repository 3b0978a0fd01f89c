// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* syscall_io's eBPF backend, the user side: load syscall_io.bpf.c with the
 * configured syscalls, attach it, seed the tree with the target (or the
 * running tree, attached), and read the per-CPU slots at each tick. The
 * target never stops and never knows: nothing is done inside it. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/ebpf/ebpf.h"
#include "kernel_version.h"
#include "common/ebpf/ebpf_preload.h"
#include "common/ebpf/ebpf_slots.h"
#include "common/ebpf/ebpf_tree.h"
#include "sio_backend.h"
#include "sio_slot.h"
#include "syscall_io.skel.h"

struct sio_ebpf {
	struct syscall_io_bpf *skel;
	struct ebpf_tree tree;
	struct ebpf_slots slots;
	size_t n;
};

/* Why the io_uring program cannot count here, or NULL. It attaches to the
 * io_uring_complete tracepoint as Linux 6.0 made it, which gives the
 * request (before, the request's user_data: a program reading it as the
 * request would count garbage). A kernel built without CONFIG_IO_URING has
 * no tracepoint, and answers io_uring_setup with ENOSYS (asked for no ring,
 * any other answer is an error of its own): a syscall, where looking the
 * tracepoint up would parse the kernel's whole BTF once more (20 ms). */
static const char *uring_unseen(void)
{
	if (kernel_older_than(6, 0))
		return "the kernel's io_uring_complete tracepoint gives no request before Linux 6.0";
	if (syscall(__NR_io_uring_setup, 0, NULL) < 0 && errno == ENOSYS)
		return "the kernel has no io_uring (built without CONFIG_IO_URING)";
	return NULL;
}

static const char *ebpf_unseen(const struct io_syscall *sys)
{
	return sys->via == SIO_VIA_IO_URING ? uring_unseen() : NULL;
}

static void destroy(void *skel)
{
	syscall_io_bpf__destroy(skel);
}

/* Opens and loads the programs for cfg's syscalls: the syscall exit's
 * program that loops with bpf_loop where the kernel has it (5.17), else the
 * one with bounded loops (*looped says which); the io_uring program only
 * when io_uring is counted and the kernel has it. */
static int load(const struct sio_config *cfg, struct syscall_io_bpf **out, bool *looped,
		struct errbuf *why)
{
	ebpf_quiet_libbpf();
	*looped = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_loop, NULL) == 1;
	struct syscall_io_bpf *skel = syscall_io_bpf__open();
	if (!skel)
		return ebpf_fail(why, -errno, "opening");
	memset(skel->rodata->sio_index, SIO_NOT_COUNTED, sizeof(skel->rodata->sio_index));
	/* Darshan's record follows these whether the rows count them or not */
	for (size_t i = 0; i < sio_nfollowed; i++)
		if (sio_followed[i].nr >= 0 && sio_followed[i].nr < SIO_MAX_NR)
			skel->rodata->sio_track[sio_followed[i].nr] = (__u8)sio_followed[i].track;
	for (size_t i = 0; i < cfg->n; i++) {
		const struct io_syscall *sys = cfg->sys[i];
		if (sys->nr >= 0 && sys->nr < SIO_MAX_NR)
			skel->rodata->sio_index[sys->nr] = (__u8)i;
		for (int k = 0; k < 2 && sys->via == SIO_VIA_AIO; k++) /* where aio is reaped */
			if (sys->reap_nr[k] >= 0 && sys->reap_nr[k] < SIO_MAX_NR)
				skel->rodata->sio_index[sys->reap_nr[k]] = (__u8)i;
		skel->rodata->sio_sides[i] = (__u8)sys->sides;
		skel->rodata->sio_fd_arg[i][IO_READ] = sys->fd_arg[IO_READ];
		skel->rodata->sio_fd_arg[i][IO_WRITE] = sys->fd_arg[IO_WRITE];
		skel->rodata->sio_msgvec[i] = sys->msgvec;
		for (int d = IO_READ; d <= IO_WRITE; d++) {
			skel->rodata->sio_pos[i][d] = sys->pos[d];
			skel->rodata->sio_pos_arg[i][d] = sys->pos_arg[d];
		}
		if (sys->via == SIO_VIA_AIO)
			skel->rodata->sio_aio_index = (__u8)i;
		if (sys->via == SIO_VIA_IO_URING && !ebpf_unseen(sys))
			skel->rodata->sio_uring_index = (__u8)i;
	}
	/* where each call's entry time is kept: the task's storage (5.11),
	 * else a map by thread id; only the one used is created */
	bool task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1 &&
			    libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_get_current_task_btf,
						    NULL) == 1;
	skel->rodata->sio_use_task_storage = task_storage;
	bpf_map__set_autocreate(task_storage ? skel->maps.sio_entered : skel->maps.sio_task_entered, false);
	bpf_program__set_autoload(skel->progs.iops_sio_exit, *looped);
	bpf_program__set_autoload(skel->progs.iops_sio_exit_bounded, !*looped);
	bpf_program__set_autoload(skel->progs.iops_sio_uring_done,
				  skel->rodata->sio_uring_index != SIO_NOT_COUNTED);
	int r = ebpf_slots_size(skel->maps.sio_slots, why);
	if (r == 0)
		r = ebpf_tree_size(skel->maps.tree, why);
	if (r == 0)
		r = ebpf_load(skel->skeleton, why);
	if (r < 0) {
		syscall_io_bpf__destroy(skel);
		return r;
	}
	*out = skel;
	return 0;
}

/* The whole load, verifier included: what open will do fails here first,
 * before the episode exists. What loaded is kept for the sampler
 * (ebpf_preload.h), which attaches it rather than load and verify it a
 * second time. */
static int ebpf_probe(struct sio_config *cfg, json_t *facts, struct errbuf *why)
{
	struct syscall_io_bpf *skel;
	int r = ebpf_host_check(facts, why);
	if (r < 0)
		return r;
	struct ebpf_fd_mark before;
	ebpf_preload_mark(&before);
	bool looped;
	r = load(cfg, &skel, &looped, why);
	if (r == 0 || !ebpf_refused(why)) /* a user bpf() refuses learns nothing of the kernel */
		json_object_set_new(facts, "bpf_loop", json_boolean(looped));
	if (r < 0)
		return ebpf_older_than(why, 5, 10, r);
	ebpf_preload_keep(&cfg->preload, &before, skel, destroy);
	return 0;
}

static void ebpf_close(void *state)
{
	struct sio_ebpf *e = state;
	ebpf_slots_close(&e->slots);
	syscall_io_bpf__destroy(e->skel); /* detaches; the maps go with the fds */
	free(e);
}

static int ebpf_open(const struct sio_config *cfg, const struct target_info *t, void **state,
		     struct errbuf *why)
{
	struct sio_ebpf *e = calloc(1, sizeof(*e));
	if (!e)
		return errbuf_set(why, ENOMEM, "out of memory");
	e->n = cfg->n;
	/* this process's copy of what the probe loaded, else a load of its own */
	e->skel = cfg->preload.skel;
	bool looped;
	int r = e->skel ? 0 : load(cfg, &e->skel, &looped, why);
	if (r < 0) {
		free(e);
		return r;
	}
	/* attached before seeding: a fork or an exit of the running tree from
	 * here on is seen (attach mode) */
	if ((r = ebpf_tree_init(&e->tree, e->skel->obj, &e->skel->bss->tree_overflow, why)) < 0 ||
	    (r = ebpf_attach(e->skel->skeleton, why)) < 0 ||
	    (r = ebpf_tree_seed(&e->tree, t->pid, t->keeper == 0, t->observer, why)) < 0 ||
	    (r = ebpf_slots_open(&e->slots, e->skel->maps.sio_slots, sizeof(struct sio_slot), why)) < 0) {
		ebpf_close(e);
		return r;
	}
	*state = e;
	return 0;
}

static int ebpf_snapshot(void *state, struct sio_totals *out, struct errbuf *why)
{
	struct sio_ebpf *e = state;
	int r = ebpf_tree_check(&e->tree, why);
	if (r < 0)
		return r;
	const struct sio_slot *sum = ebpf_slots_read(&e->slots);
	_Static_assert(offsetof(struct sio_slot, file_hist) - offsetof(struct sio_slot, calls) ==
			       offsetof(struct sio_totals, file_hist) &&
		       sizeof(sum->file_hist) == sizeof(out->file_hist) &&
		       sizeof(*out) == offsetof(struct sio_totals, file_hist) + sizeof(out->file_hist),
		       "struct sio_totals is struct sio_slot after its sequence words");
	memcpy(out, &sum->calls, sizeof(*out));
	return 0;
}

static void ebpf_finish(void *state)
{
	/* the next snapshot is the last: a slot mid-update is waited for */
	ebpf_slots_wait_whole(&((struct sio_ebpf *)state)->slots, EBPF_FINAL_WAIT_NS);
}

static void ebpf_report(void *state, json_t *manifest)
{
	struct sio_ebpf *e = state;
	ebpf_slots_report(&e->slots, manifest);
}

const struct sio_backend sio_ebpf = {
	.name = "ebpf",
	.holds_target = false,
	.probe = ebpf_probe,
	.open = ebpf_open,
	.snapshot = ebpf_snapshot,
	.report = ebpf_report,
	.unseen = ebpf_unseen,
	.finish = ebpf_finish,
	.close = ebpf_close,
};
