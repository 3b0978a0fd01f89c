// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* syscall_io's ptrace backend: the probe that tries ptrace and a seccomp
 * filter on a child of our own, the filter the launched target installs
 * before exec, and the tracer thread (tracer.c) that counts into a struct
 * sio_counts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdutil.h"
#include "procfs.h"
#include "seccomp_filter.h"
#include "sio_backend.h"
#include "tracer.h"

struct sio_ptrace {
	struct sio_counts counts;
	struct tracer tracer;
};

/* ---- probe ---------------------------------------------------------------- */

/* Yama's kernel.yama.ptrace_scope, or -1 without Yama. */
static int yama_scope(void)
{
	return (int)procfs_sysctl_long("/proc/sys/kernel/yama/ptrace_scope", -1);
}

/* The probe's child: once seized, it installs a filter that traces read()
 * and calls it. Exits with the errno that stopped it. */
static void __attribute__((noreturn)) probe_child(pid_t parent, int go)
{
	struct sock_filter insns[SECCOMP_FILTER_MAX_INSNS];
	int nr = io_syscall_find("read")->nr;
	char c;
	if (!die_with_parent(SIGKILL, parent) || read(go, &c, 1) != 1)
		_exit(ECHILD);
	int n = seccomp_filter_build(&nr, NULL, 1, SECCOMP_RET_TRACE, TRACER_SECCOMP_DATA, insns);
	if (n < 0 || (n = seccomp_filter_install(insns, (size_t)n)) < 0)
		_exit(-n);
	if (read(go, &c, 1) < 0) /* the tracer sees this one first */
		_exit(errno);
	_exit(ENOSYS); /* the filter let it through untraced */
}

/* Waits for the child's seccomp stop; 0, or -errno with the reason. */
static int probe_stop(pid_t child, struct errbuf *why)
{
	int status;
	for (;;) {
		if (waitpid(child, &status, __WALL) != child)
			return errbuf_set(why, errno, "ptrace: waitpid: %s", strerror(errno));
		if (WIFEXITED(status)) {
			int err = WEXITSTATUS(status);
			return errbuf_set(why, err, "seccomp filters with SECCOMP_RET_TRACE: %s",
					  strerror(err));
		}
		if (WIFSIGNALED(status))
			return errbuf_set(why, EINTR, "the probe's child died of signal %d",
					  WTERMSIG(status));
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)))
			return 0;
		ptrace(PTRACE_CONT, child, 0L, (long)WSTOPSIG(status));
	}
}

/* Does on a child of our own what the collector does to a launched target:
 * seize it, let it install the seccomp filter, see its filtered read() stop
 * and read that stop with PTRACE_GET_SYSCALL_INFO. A host that forbids
 * ptrace (a container's seccomp profile, Yama's ptrace_scope 3), refuses
 * seccomp filters, or lacks PTRACE_GET_SYSCALL_INFO (Linux < 5.3) says so
 * here, before anything runs; facts say how far it got. */
static int ptrace_probe(struct sio_config *cfg, json_t *facts, struct errbuf *why)
{
	(void)cfg;
	int scope = yama_scope();
	json_object_set_new(facts, "permitted", json_false());
	json_object_set_new(facts, "yama_ptrace_scope", scope < 0 ? json_null() : json_integer(scope));
	json_object_set_new(facts, "seccomp_filter", json_null());
	json_object_set_new(facts, "get_syscall_info", json_null());
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return errbuf_set(why, errno, "pipe: %s", strerror(errno));
	pid_t parent = getpid();
	pid_t child = fork();
	if (child < 0) {
		int err = errno;
		close(go[0]);
		close(go[1]);
		return errbuf_set(why, err, "fork: %s", strerror(err));
	}
	if (child == 0) {
		close(go[1]);
		probe_child(parent, go[0]);
	}
	close(go[0]);
	int r;
	struct __ptrace_syscall_info info;
	if (ptrace(PTRACE_SEIZE, child, 0L, (long)(PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) < 0) {
		r = errbuf_set(why, errno, "ptrace is not permitted here: %s", strerror(errno));
	} else {
		json_object_set_new(facts, "permitted", json_true());
		r = write(go[1], "x", 1) == 1 ? probe_stop(child, why)
					      : errbuf_set(why, errno, "pipe: %s", strerror(errno));
		json_object_set_new(facts, "seccomp_filter", json_boolean(r == 0));
		if (r == 0) {
			long n = ptrace(PTRACE_GET_SYSCALL_INFO, child, sizeof(info), &info);
			if (n < 0)
				r = errbuf_set(why, errno, "PTRACE_GET_SYSCALL_INFO (Linux 5.3): %s",
					       strerror(errno));
			else if (info.op != PTRACE_SYSCALL_INFO_SECCOMP)
				r = errbuf_set(why, ENOTSUP,
					       "PTRACE_GET_SYSCALL_INFO does not report seccomp stops");
			json_object_set_new(facts, "get_syscall_info", json_boolean(r == 0));
		}
	}
	close(go[1]);
	kill(child, SIGKILL);
	waitpid(child, NULL, __WALL);
	return r;
}

/* ---- in the target, before exec -------------------------------------------- */

/* The syscalls the tracer stops at, and the counted index of each: a
 * syscall family's own number, and for aio the syscalls that reap its
 * events (io_syscalls.c). io_uring has none: it is unseen. Then the calls
 * the access pattern's records follow (sio_followed) that no counted
 * family holds, at TRACER_FOLLOW_ONLY. */
static size_t stops(const struct sio_config *cfg, int *nrs, uint16_t *index)
{
	size_t n = 0;
	for (size_t i = 0; i < cfg->n; i++) {
		const struct io_syscall *sys = cfg->sys[i];
		if (sys->via == SIO_VIA_SYSCALL) {
			if (sys->nr >= 0) /* not on this architecture: never called */
				nrs[n] = sys->nr, index[n++] = (uint16_t)i;
		} else if (sys->via == SIO_VIA_AIO) {
			for (int k = 0; k < 2; k++)
				nrs[n] = sys->reap_nr[k], index[n++] = (uint16_t)i;
		}
	}
	for (size_t f = 0, counted = n; f < sio_nfollowed; f++) {
		bool have = sio_followed[f].nr < 0;
		for (size_t k = 0; k < counted && !have; k++)
			have = nrs[k] == sio_followed[f].nr;
		if (!have)
			nrs[n] = sio_followed[f].nr, index[n++] = TRACER_FOLLOW_ONLY;
	}
	return n;
}

static int ptrace_before_exec(const struct sio_config *cfg)
{
	int nrs[SECCOMP_FILTER_MAX_NRS];
	uint16_t index[SECCOMP_FILTER_MAX_NRS];
	struct sock_filter insns[SECCOMP_FILTER_MAX_INSNS];
	size_t k = stops(cfg, nrs, index);
	int n = seccomp_filter_build(nrs, index, k, SECCOMP_RET_TRACE, TRACER_SECCOMP_DATA, insns);
	return n < 0 ? n : seccomp_filter_install(insns, (size_t)n);
}

static const char *ptrace_unseen(const struct io_syscall *sys)
{
	if (sys->via == SIO_VIA_IO_URING)
		return "io_uring requests complete in the kernel and are reaped from a ring in the "
		       "process's memory, with no syscall for ptrace to stop at: only the ebpf backend "
		       "sees them";
	return NULL;
}

/* ---- in the sampler ---------------------------------------------------------- */

static void ptrace_close(void *state)
{
	struct sio_ptrace *p = state;
	tracer_stop(&p->tracer);
	free(p);
}

static void ptrace_finish(void *state)
{
	tracer_stop(&((struct sio_ptrace *)state)->tracer);
}

static int ptrace_open(const struct sio_config *cfg, const struct target_info *t, void **state,
		       struct errbuf *why)
{
	struct sio_ptrace *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	p->counts.n = cfg->n;
	p->tracer.target = t->pid;
	p->tracer.attach = t->keeper == 0;
	p->tracer.skip = t->observer;
	p->tracer.counts = &p->counts;
	memset(p->tracer.index_of_nr, -1, sizeof(p->tracer.index_of_nr));
	for (size_t i = 0; i < cfg->n; i++)
		p->tracer.sys[i] = cfg->sys[i];
	int nrs[SECCOMP_FILTER_MAX_NRS];
	uint16_t index[SECCOMP_FILTER_MAX_NRS];
	for (size_t k = 0, n = stops(cfg, nrs, index); k < n; k++)
		if (nrs[k] >= 0 && nrs[k] < TRACER_MAX_NR)
			p->tracer.index_of_nr[nrs[k]] = (int8_t)index[k];
	for (size_t f = 0; f < sio_nfollowed; f++)
		if (sio_followed[f].nr >= 0 && sio_followed[f].nr < TRACER_MAX_NR)
			p->tracer.follow_of_nr[sio_followed[f].nr] = (uint8_t)sio_followed[f].track;

	int r = 0;
	if (!p->tracer.attach && (r = seccomp_filter_available(SECCOMP_RET_TRACE)) < 0)
		errbuf_set(why, -r, "seccomp filters with SECCOMP_RET_TRACE: %s", strerror(-r));
	if (r == 0)
		r = tracer_start(&p->tracer, why);
	if (r < 0) {
		free(p);
		return r;
	}
	*state = p;
	return 0;
}

static int ptrace_snapshot(void *state, struct sio_totals *out, struct errbuf *why)
{
	struct sio_ptrace *p = state;
	int r = tracer_failed(&p->tracer, why);
	if (r == 0)
		sio_snapshot(&p->counts, out);
	return r;
}

const struct sio_backend sio_ptrace = {
	.name = "ptrace",
	.holds_target = true,
	.probe = ptrace_probe,
	.before_exec = ptrace_before_exec,
	.open = ptrace_open,
	.snapshot = ptrace_snapshot,
	.unseen = ptrace_unseen,
	.finish = ptrace_finish,
	.close = ptrace_close,
};
