// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The keeper process and the target's last steps before exec. */
#define _GNU_SOURCE
#include "keeper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "episode.h"
#include "fdutil.h"
#include "procfs.h"

#define KEEPER_START_TIMEOUT_S 10

/* The sources' work inside the target; false when one failed (said in sh). */
static bool before_exec(const struct target_spec *t, struct keeper_shared *sh)
{
	uint64_t armed = atomic_load(&sh->armed);
	for (size_t i = 0; i < t->nsources && i < 64; i++) {
		const struct source_config *sc = &t->sources[i];
		if (!(armed & (1ull << i)) || !sc->ops->before_exec)
			continue;
		int r = sc->ops->before_exec(sc);
		if (r < 0) {
			atomic_store(&sh->setup_errno, -r);
			atomic_store(&sh->setup_source, (int)i + 1);
			return false;
		}
	}
	return true;
}

/* In the target, between fork and exec. Only async-signal-safe calls would be
 * strictly needed, but the keeper is single-threaded, so setenv is fine. */
static void __attribute__((noreturn))
target_exec(const struct target_spec *t, struct keeper_shared *sh, pid_t supervisor, pid_t keeper,
	    int barrier)
{
	sigset_t none;
	sigemptyset(&none);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL); /* SIG_IGN would survive exec */
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Its own process group: iopsample stops the whole group at once, and
	 * a Ctrl-C meant for iopsample reaches the target only through it. */
	setpgid(0, 0);
	if (!die_with_parent(SIGKILL, keeper))
		_exit(127);
	/* Under Yama's ptrace_scope 1 only ancestors may trace: a sampler is
	 * the supervisor's child, not ours. Without Yama this is EINVAL. */
	prctl(PR_SET_PTRACER, supervisor, 0, 0, 0);

	if ((t->stdin_fd >= 0 && dup2(t->stdin_fd, 0) < 0) ||
	    (t->stdout_fd >= 0 && dup2(t->stdout_fd, 1) < 0) ||
	    (t->stderr_fd >= 0 && dup2(t->stderr_fd, 2) < 0) || chdir(t->cwd) < 0)
		goto fail;
	for (size_t i = 0; t->env && i < t->env->n; i++)
		if (setenv(t->env->items[i].key, t->env->items[i].value, 1) < 0)
			goto fail;

	/* The barrier: POLLIN means released; a hang-up alone means iopsample
	 * gave up, and the target leaves without running anything. */
	struct pollfd pfd = {.fd = barrier, .events = POLLIN};
	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			_exit(127);
	if (!(pfd.revents & POLLIN))
		_exit(0);
	/* the barrier is close-on-exec: closed by the exec, not by a close(2)
	 * that syscall_io (counting the tree from the release) would see */
	if (!before_exec(t, sh))
		_exit(126);

	execvp(t->argv[0], t->argv);
fail:
	atomic_store(&sh->exec_errno, errno);
	_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
}

/* iopsample died (a SIGKILL of it, or of its whole process group, which
 * the keeper is not in), or gave up at the start: take the whole tree down
 * with us, the episode's cgroups and what they hold included (a daemon
 * that left the tree but not the cgroup), and remove the cgroups once the
 * last process is reaped. Where iopsample died, the manifest it left
 * running says killed. Reading /proc here adds to the keeper's own
 * counters, which no longer matters. */
static void __attribute__((noreturn))
kill_tree_and_exit(pid_t target, const struct target_spec *t, pid_t supervisor)
{
	const struct episode_cgroup *cg = t->cgroup;
	for (;;) {
		struct pid_list kids = {0};
		kill(-target, SIGKILL);
		if (cg)
			episode_cgroup_kill(cg);
		procfs_children(getpid(), 1, &kids);
		for (size_t i = 0; i < kids.n; i++)
			kill(kids.v[i], SIGKILL);
		pid_list_free(&kids);
		siginfo_t si;
		if (waitid(P_ALL, 0, &si, WEXITED) < 0 && errno == ECHILD)
			break;
	}
	if (cg) {
		struct episode_cgroup mine = *cg;
		json_decref(episode_cgroup_remove(&mine));
	}
	if (t->episode_dirfd >= 0 && getppid() != supervisor)
		episode_mark_killed(t->episode_dirfd);
	_exit(1);
}

static void __attribute__((noreturn))
keeper_main(const struct target_spec *t, struct keeper_shared *sh, pid_t supervisor, int barrier,
	    int notify_sig)
{
	prctl(PR_SET_NAME, "iops-keeper");
	/* A session of its own: a harness that SIGKILLs iopsample's process
	 * group (timeout -s KILL, a CI teardown, a job scheduler) leaves the
	 * keeper, which sees iopsample die and takes the tree down. */
	setsid();
	if (!die_with_parent(SIGTERM, supervisor))
		_exit(1);
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	sigset_t wait_for;
	sigemptyset(&wait_for);
	sigaddset(&wait_for, SIGCHLD);
	sigaddset(&wait_for, SIGTERM);
	sigprocmask(SIG_SETMASK, &wait_for, NULL);
	/* Terminal signals are for iopsample, which stops the tree in order. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);

	pid_t self = getpid();
	pid_t target = fork();
	if (target < 0)
		_exit(1);
	if (target == 0)
		target_exec(t, sh, supervisor, self, barrier);
	setpgid(target, target); /* also here: no window where the group is wrong */
	close(barrier);
	atomic_store(&sh->target_pid, target);
	sigqueue(supervisor, notify_sig, (union sigval){.sival_int = KEEPER_STARTED});

	for (;;) {
		siginfo_t si;
		if (sigwaitinfo(&wait_for, &si) < 0)
			continue;
		if (si.si_signo == SIGTERM)
			kill_tree_and_exit(target, t, supervisor);
		for (;;) {
			siginfo_t ci = {0};
			if (waitid(P_ALL, 0, &ci, WEXITED | WNOHANG) < 0) {
				if (errno == EINTR)
					continue;
				/* ECHILD: the whole tree is gone, and reaped here */
				if (getrusage(RUSAGE_CHILDREN, &sh->tree_usage) == 0)
					atomic_store(&sh->tree_usage_done, 1);
				_exit(0);
			}
			if (ci.si_pid == 0)
				break;
			if (ci.si_pid == target) {
				sh->target_code = ci.si_code;
				sh->target_status = ci.si_status;
				sh->target_end_ns = clock_mono_ns();
				atomic_store(&sh->target_done, 1);
				sigqueue(supervisor, notify_sig,
					 (union sigval){.sival_int = KEEPER_TARGET_EXITED});
			}
		}
	}
}

int keeper_start(struct keeper *k, const struct target_spec *t, int notify_sig, struct errbuf *e)
{
	int barrier[2];
	memset(k, 0, sizeof(*k));
	k->release_fd = -1;
	k->shared = mmap(NULL, sizeof(*k->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (k->shared == MAP_FAILED) {
		k->shared = NULL;
		return errbuf_set(e, errno, "mmap: %s", strerror(errno));
	}
	if (pipe2(barrier, O_CLOEXEC) < 0)
		return errbuf_set(e, errno, "pipe: %s", strerror(errno));

	pid_t supervisor = getpid();
	k->pid = fork();
	if (k->pid < 0) {
		int err = errno;
		close(barrier[0]);
		close(barrier[1]);
		return errbuf_set(e, err, "fork: %s", strerror(err));
	}
	if (k->pid == 0) {
		int keep[] = {barrier[0], t->stdin_fd, t->stdout_fd, t->stderr_fd, t->episode_dirfd};
		if (fd_keep_only(keep, 5) < 0)
			_exit(1);
		struct target_spec moved = *t;
		moved.stdin_fd = keep[1];
		moved.stdout_fd = keep[2];
		moved.stderr_fd = keep[3];
		moved.episode_dirfd = keep[4];
		keeper_main(&moved, k->shared, supervisor, keep[0], notify_sig);
	}
	close(barrier[0]);
	k->release_fd = barrier[1];

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, notify_sig);
	sigaddset(&set, SIGCHLD);
	struct timespec deadline = {KEEPER_START_TIMEOUT_S, 0};
	for (;;) {
		siginfo_t si;
		int sig = sigtimedwait(&set, &si, &deadline);
		if (sig < 0 && errno == EINTR)
			continue;
		if (sig == notify_sig && si.si_pid == k->pid &&
		    si.si_value.sival_int == KEEPER_STARTED) {
			k->target = atomic_load(&k->shared->target_pid);
			return 0;
		}
		if (sig == SIGCHLD && waitpid(k->pid, NULL, WNOHANG) == 0)
			continue;
		if (sig != SIGCHLD) {
			kill(k->pid, SIGTERM); /* it kills the target, if any, then itself */
			waitpid(k->pid, NULL, 0);
		}
		keeper_abort(k);
		k->pid = 0;
		return errbuf_set(e, sig < 0 ? errno : ECHILD, "the target's keeper process %s",
				  sig < 0 ? "did not start" : "died at start");
	}
}

int keeper_release(struct keeper *k, uint64_t armed)
{
	atomic_store(&k->shared->armed, armed);
	int r = write_all(k->release_fd, "g", 1) < 0 ? -errno : 0;
	close(k->release_fd);
	k->release_fd = -1;
	return r;
}

void keeper_abort(struct keeper *k)
{
	if (k->release_fd >= 0)
		close(k->release_fd);
	k->release_fd = -1;
}

int keeper_signal_tree(const struct keeper *k, int sig)
{
	struct pid_list todo = {0};
	int live = 0;
	if (sig)
		kill(-k->target, sig);
	procfs_children(k->pid, 1, &todo);
	for (size_t i = 0; i < todo.n; i++) {
		struct proc_stat st;
		if (procfs_read_stat(todo.v[i], &st) < 0 || st.state == 'Z' || st.state == 'X')
			continue;
		live++;
		if (sig && st.pgrp != k->target)
			kill(todo.v[i], sig);
		procfs_children(todo.v[i], st.num_threads, &todo);
	}
	pid_list_free(&todo);
	return live;
}

void keeper_free(struct keeper *k)
{
	keeper_abort(k);
	if (k->shared)
		munmap(k->shared, sizeof(*k->shared));
	k->shared = NULL;
}
