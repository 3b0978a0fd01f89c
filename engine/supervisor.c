// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The supervisor: one episode from start barrier to manifest.
 *
 *   probe sources -> create the episode directory -> fork the keeper, which
 *   forks the target and holds it -> fork one sampler per source, each opens
 *   its source on the waiting target -> origin = now, release the target,
 *   samplers start their grids (READY=1 to NOTIFY_SOCKET) -> wait: target
 *   exit, duration, the stop request, signals, sampler failures -> stop the tree in order (stop_signal, grace, SIGKILL)
 *   -> once the keeper has reaped the whole tree, every sampler takes its
 *   final row -> manifest -> exit status.
 *
 * Everything arrives through one poll(): a signalfd (SIGCHLD, interrupts,
 * the stop request and the keeper's queued notifications), one timerfd (duration, grace,
 * SIGKILL retries) and the samplers' sockets. It never names a source. */
#define _GNU_SOURCE
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "clock.h"
#include "host_info.h"
#include "host_settings.h"
#include "ipc.h"
#include "manifest.h"
#include "sampler.h"
#include "sd_notify.h"
#include "signames.h"
#include "supervisor_state.h"

/* Removes the episode's cgroups; what stays says so in the manifest. */
static void remove_cgroup(struct supervisor *s)
{
	json_t *warnings = episode_cgroup_remove(&s->cgroup);
	size_t i;
	json_t *w;
	json_array_foreach(warnings, i, w)
		json_array_append(s->ep.warnings, w);
	json_decref(warnings);
}

/* The manifest as the episode stands now, written in place of the last. */
static int write_manifest(struct supervisor *s, struct errbuf *e)
{
	json_t *m = manifest_json(&s->ep);
	int r = episode_write_manifest(&s->ep, m, e);
	json_decref(m);
	return r;
}

static void arm(struct supervisor *s, int64_t abs_ns)
{
	struct itimerspec its = {.it_value = {abs_ns / NS_PER_S, abs_ns % NS_PER_S}};
	timerfd_settime(s->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* ---- stopping the target's tree ---------------------------------------- */

static void kill_tree(struct supervisor *s)
{
	s->phase = PHASE_KILL;
	keeper_signal_tree(&s->keeper, SIGKILL);
	episode_cgroup_kill(&s->cgroup); /* what escaped the tree, and forks racing the kill */
	arm(s, clock_mono_ns() + KILL_RETRY_NS);
}

static void stop_tree(struct supervisor *s)
{
	s->phase = PHASE_GRACE;
	keeper_signal_tree(&s->keeper, s->ep.cfg->episode.stop_signal);
	if (s->ep.cfg->episode.grace_ns == 0)
		kill_tree(s);
	else
		arm(s, clock_mono_ns() + s->ep.cfg->episode.grace_ns);
}

/* Ends the episode for reason: the target's tree is stopped in order; an
 * attached process is left alone and only the sampling ends. */
static void stop(struct supervisor *s, enum stop_reason reason)
{
	if (s->stopping)
		return;
	s->stopping = true;
	if (!s->ep.target.exited)
		s->ep.target.stop_reason = reason;
	if (attached(s))
		s->tree_gone = true;
	else
		stop_tree(s);
}

/* ---- the target ----------------------------------------------------------- */

/* The keeper reaped the target (told by its notification, or seen when the
 * keeper itself exited: both may come, in either order). */
static void target_exited(struct supervisor *s)
{
	struct keeper_shared *sh = s->keeper.shared;
	if (s->ep.target.exited || !atomic_load(&sh->target_done))
		return;
	s->ep.target.exited = true;
	s->ep.target.code = sh->target_code;
	s->ep.target.status = sh->target_status;
	s->ep.target.end_ns = sh->target_end_ns;
	s->ep.target.exec_errno = atomic_load(&sh->exec_errno);
	int setup = atomic_load(&sh->setup_source);
	if (setup > 0 && (size_t)setup <= s->ep.nsrc) {
		struct source_run *src = &s->ep.src[setup - 1];
		int err = atomic_load(&sh->setup_errno);
		char why[160];
		snprintf(why, sizeof(why), "could not prepare the target: %s", strerror(err));
		src->status = SOURCE_FAILED;
		source_set_error(src, err, why);
		log_error("source %s %s; the target did not run", src->sc->ops->name, why);
		s->setup_failed = true;
		s->ep.target.stop_reason = STOP_COLLECTOR_FAILED;
	}
	if (s->ep.target.stop_reason == STOP_NONE)
		s->ep.target.stop_reason = STOP_EXITED;
	if (s->ep.target.exec_errno)
		log_error("cannot execute %s: %s", s->ep.cfg->target.argv[0],
			  strerror(s->ep.target.exec_errno));

	/* The episode ends with the target; what it left running is stopped
	 * like the target would have been. */
	int left = keeper_signal_tree(&s->keeper, 0);
	if (left > 0) {
		char sig[32];
		s->ep.target.leftovers = left;
		episode_warn(&s->ep, "the target left %d process%s running; stopped with %s, SIGKILL after the grace",
		     left, left == 1 ? "" : "es", signame(s->ep.cfg->episode.stop_signal, sig, sizeof(sig)));
		if (!s->stopping) {
			s->stopping = true;
			stop_tree(s);
		}
	}
}

/* The keeper ended before the target: something killed it. The target died
 * with it (its parent-death signal); descendants in its process group are
 * killed here, and what else the episode's cgroups hold; those outside
 * both are init's now and out of reach. */
static void keeper_died(struct supervisor *s, const siginfo_t *si)
{
	char sig[32], why[128];
	kill(-s->keeper.target, SIGKILL);
	episode_cgroup_kill(&s->cgroup);
	s->keeper_failed = true;
	if (si->si_code == CLD_EXITED)
		snprintf(why, sizeof(why), "the keeper process exited with status %d before the target",
			 si->si_status);
	else
		snprintf(why, sizeof(why), "the keeper process was killed by %s before the target exited",
			 signame(si->si_status, sig, sizeof(sig)));
	log_error("%s", why);
	episode_warn(&s->ep, "%s", why);
	if (s->ep.target.stop_reason == STOP_NONE)
		s->ep.target.stop_reason = STOP_COLLECTOR_FAILED;
}

/* Samplers are not looked at here: a sampler's end closes its socket, which
 * the event loop reads. */
static void check_children(struct supervisor *s)
{
	if (s->keeper.pid > 0) {
		siginfo_t si = {0};
		if (waitid(P_PID, (id_t)s->keeper.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == s->keeper.pid) {
			/* Left as a zombie until the final rows are taken: its
			 * counters hold everything the tree did, for the sources
			 * that read them (struct target_info.keeper). */
			target_exited(s);
			if (!s->ep.target.exited)
				keeper_died(s, &si);
			s->tree_gone = true;
		}
	}
}

static void on_signal(struct supervisor *s)
{
	struct signalfd_siginfo si;
	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			check_children(s);
		} else if ((int)si.ssi_signo == SIGRTMIN) {
			if ((pid_t)si.ssi_pid == s->keeper.pid && si.ssi_int == KEEPER_TARGET_EXITED)
				target_exited(s);
		} else if (si.ssi_signo == SIGUSR1) {
			/* the stop request: the end the duration would have made */
			if (!s->stopping && !s->ep.target.exited) {
				log_info("SIGUSR1: the stop request; ending the episode");
				stop(s, STOP_REQUESTED);
			}
		} else if (is_interrupt(si.ssi_signo)) {
			char name[32];
			if (!s->stopping && !s->ep.target.exited) {
				s->interrupt_sig = (int)si.ssi_signo;
				log_info("%s: stopping the target", signame((int)si.ssi_signo, name, sizeof(name)));
				stop(s, STOP_INTERRUPTED);
			} else if (s->phase == PHASE_GRACE) {
				/* asked twice: no more grace */
				log_info("%s again: killing the target", signame((int)si.ssi_signo, name, sizeof(name)));
				kill_tree(s);
			}
		}
	}
}

static void on_timer(struct supervisor *s)
{
	uint64_t n;
	if (read(s->timerfd, &n, sizeof(n)) != sizeof(n))
		return;
	switch (s->phase) {
	case PHASE_RUN:
		stop(s, STOP_DURATION);
		break;
	case PHASE_GRACE:
	case PHASE_KILL:
		kill_tree(s);
		break;
	}
}

/* The status line: elapsed / duration, the target, rows per source. */
static void draw_progress(struct supervisor *s)
{
	int64_t now = clock_mono_ns();
	if (!s->progress || now < s->next_draw)
		return;
	s->next_draw = now + PROGRESS_NS;
	const struct episode *ep = &s->ep;
	char line[256], dur[32] = "";
	if (ep->cfg->episode.duration_ns)
		snprintf(dur, sizeof(dur), " / %.1fs", (double)ep->cfg->episode.duration_ns / NS_PER_S);
	int n = snprintf(line, sizeof(line), "%.1fs%s, target %s", (double)(now - ep->origin_ns) / NS_PER_S, dur,
			 ep->target.exited ? "ended" : s->stopping ? "stopping" : "running");
	for (size_t i = 0; i < ep->nsrc && n > 0 && (size_t)n < sizeof(line); i++) {
		const struct source_run *src = &ep->src[i];
		if (src->status != SOURCE_OK)
			continue;
		n += snprintf(line + n, sizeof(line) - (size_t)n, "; %s %lld rows", src->sc->ops->name,
			      (long long)src->rows);
		if (src->missed_ticks && (size_t)n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - (size_t)n, ", %llu missed",
				      (unsigned long long)src->missed_ticks);
	}
	log_status(line);
}

static void event_loop(struct supervisor *s)
{
	check_children(s); /* a SIGCHLD may have been read while starting */
	while (!s->tree_gone) {
		draw_progress(s);
		struct pollfd p[3 + s->ep.nsrc];
		struct source_run *who[3 + s->ep.nsrc];
		size_t n = 0;
		p[n++] = (struct pollfd){.fd = s->sigfd, .events = POLLIN};
		p[n++] = (struct pollfd){.fd = s->timerfd, .events = POLLIN};
		p[n++] = (struct pollfd){.fd = s->pidfd, .events = POLLIN}; /* -1 is ignored */
		for (size_t i = 0; i < s->ep.nsrc; i++) {
			if (s->ep.src[i].sock < 0)
				continue;
			who[n] = &s->ep.src[i];
			p[n++] = (struct pollfd){.fd = s->ep.src[i].sock, .events = POLLIN};
		}
		/* the next redraw, when there is a progress line to draw */
		int64_t due_ms = (s->next_draw - clock_mono_ns()) / NS_PER_MS + 1;
		if (poll(p, n, !s->progress ? -1 : due_ms < 1 ? 1 : (int)due_ms) < 0)
			continue;
		/* Samplers first: a tracer's socket closes before the kernel
		 * kills its tracees, so the target's death that follows is
		 * known to be the collector's doing. */
		for (size_t i = 3; i < n; i++)
			if (p[i].revents && who[i]->sock >= 0)
				sources_readable(s, who[i]);
		if (s->essential_failed)
			stop(s, STOP_COLLECTOR_FAILED);
		if (p[0].revents)
			on_signal(s);
		if (p[1].revents)
			on_timer(s);
		if (p[2].revents) {
			/* the attached process exited; its status is its parent's to know */
			s->ep.target.stop_reason = STOP_EXITED;
			s->tree_gone = true;
		}
	}
}

/* ---- the end ---------------------------------------------------------------- */

/* The end the episode asked for: its duration, or the stop request. */
static bool planned_end(const struct episode *ep)
{
	return ep->target.stop_reason == STOP_DURATION || ep->target.stop_reason == STOP_REQUESTED;
}

static int exit_status(struct supervisor *s)
{
	struct episode *ep = &s->ep;
	bool failed = false, io = false;
	for (size_t i = 0; i < ep->nsrc; i++) {
		if (ep->src[i].status == SOURCE_FAILED && essential(s, &ep->src[i])) {
			failed = true;
			io |= io_errno(ep->src[i].err);
		}
	}
	if (failed || s->keeper_failed || s->setup_failed) {
		ep->status = EPISODE_FAILED;
		return io ? EX_IOERR : EX_SOFTWARE;
	}
	if (ep->target.exec_errno) {
		ep->status = EPISODE_FAILED;
		return ep->target.status;
	}
	if (ep->target.stop_reason == STOP_INTERRUPTED) {
		ep->status = EPISODE_INTERRUPTED;
		return 128 + s->interrupt_sig;
	}
	ep->status = EPISODE_COMPLETE;
	if (attached(s) || !ep->target.exited)
		return 0;
	if (ep->target.code == CLD_EXITED)
		return ep->target.status;
	/* duration or the stop request ended it as asked: its stop signal, or
	 * SIGKILL after the grace (the manifest keeps which) */
	if (planned_end(ep) &&
	    (ep->target.status == ep->cfg->episode.stop_signal || ep->target.status == SIGKILL))
		return 0;
	return 128 + ep->target.status;
}

static void summary(const struct supervisor *s, int code)
{
	const struct episode *ep = &s->ep;
	char rows[512] = "";
	for (size_t i = 0; i < ep->nsrc; i++)
		snprintf(rows + strlen(rows), sizeof(rows) - strlen(rows), "; %s %s, %lld rows",
			 ep->src[i].sc->ops->name, source_status_name(ep->src[i].status),
			 (long long)ep->src[i].rows);
	/* a planned end is a success, and says so */
	char planned[96] = "", sig[16];
	if (planned_end(ep) && ep->target.exited && ep->target.code != CLD_EXITED)
		snprintf(planned, sizeof(planned), ", the target stopped %s by %s",
			 ep->target.stop_reason == STOP_DURATION ? "at its duration" : "on request",
			 signame(ep->target.status, sig, sizeof(sig)));
	log_info("%s: %s after %.3fs, exit status %d%s%s", ep->dir, episode_status_name(ep->status),
		 (double)(ep->end_ns - ep->origin_ns) / NS_PER_S, code, planned, rows);
}

/* ---- setup ------------------------------------------------------------------- */

static void close_if_open(int fd)
{
	if (fd >= 0)
		close(fd);
}

static int open_output(struct supervisor *s, enum out_mode mode, const char *name, int *fd,
		       struct errbuf *e)
{
	*fd = -1;
	if (mode == OUT_INHERIT)
		return 0;
	if (mode == OUT_NULL) {
		*fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		return *fd < 0 ? errbuf_set(e, errno, "/dev/null: %s", strerror(errno)) : 0;
	}
	*fd = episode_create_file(&s->ep, name, e);
	return *fd < 0 ? *fd : 0;
}

static int start_target(struct supervisor *s, struct errbuf *e)
{
	const struct config *cfg = s->ep.cfg;
	struct target_spec t = {.argv = cfg->target.argv,
				.cwd = cfg->target.cwd,
				.env = &cfg->target.env,
				.sources = cfg->sources,
				.nsources = cfg->nsources,
				.cgroup = &s->cgroup,
				.episode_dirfd = s->ep.dirfd};
	int r;

	/* The target runs in its own process group, where reading the terminal
	 * would stop it: a terminal stdin becomes /dev/null, a pipe or file is
	 * passed on. */
	t.stdin_fd = isatty(STDIN_FILENO) ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
	t.stdout_fd = t.stderr_fd = -1;
	if ((r = open_output(s, cfg->target.stdout_mode, "target.stdout", &t.stdout_fd, e)) == 0 &&
	    (r = open_output(s, cfg->target.stderr_mode, "target.stderr", &t.stderr_fd, e)) == 0)
		r = keeper_start(&s->keeper, &t, SIGRTMIN, e);
	close_if_open(t.stdin_fd);
	close_if_open(t.stdout_fd);
	close_if_open(t.stderr_fd);
	if (r == 0)
		s->ep.target.pid = s->keeper.target;
	return r;
}

/* Everything the supervisor waits for arrives through the signalfd, so the
 * signals are blocked from here on (children unblock what they need). */
static int setup_signals(struct supervisor *s)
{
	static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1};
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	sigaddset(&set, SIGRTMIN);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return s->sigfd < 0 || s->timerfd < 0 ? -errno : 0;
}



/* Undoes a start that did not happen: the target leaves without running,
 * samplers see their socket close. */
static void abort_start(struct supervisor *s)
{
	for (size_t i = 0; i < s->ep.nsrc; i++) {
		struct source_run *src = &s->ep.src[i];
		if (src->sock >= 0)
			close(src->sock);
		src->sock = -1;
		if (src->pid > 0)
			waitpid(src->pid, NULL, 0);
		src->pid = 0;
	}
	if (s->keeper.pid > 0) {
		keeper_abort(&s->keeper);
		waitpid(s->keeper.pid, NULL, 0);
		s->keeper.pid = 0;
	}
}

static void release(struct supervisor *s)
{
	uint64_t armed = 0;
	for (size_t i = 0; i < s->ep.nsrc && i < 64; i++)
		if (s->ep.src[i].status == SOURCE_OK)
			armed |= 1ull << i;
	s->ep.origin_ns = clock_mono_ns();
	s->ep.wall_start_ns = clock_wall_ns();
	if (s->keeper.pid > 0)
		keeper_release(&s->keeper, armed);
	for (size_t i = 0; i < s->ep.nsrc; i++) {
		struct source_run *src = &s->ep.src[i];
		if (src->status != SOURCE_OK)
			continue;
		src->sampling = true;
		ipc_send(src->sock, json_pack("{s:s, s:I, s:b}", "msg", "start", "origin_ns",
					      (json_int_t)s->ep.origin_ns, "progress", s->progress));
	}
	if (s->ep.cfg->episode.duration_ns)
		arm(s, s->ep.origin_ns + s->ep.cfg->episode.duration_ns);
}

/* A target that a signal ended which no one in iopsample sent (its stop
 * reason is still its own exit): another process, the kernel (the OOM
 * killer, a fault) or the target itself. Said in the manifest, since the
 * episode is otherwise complete and its rows look like any other's. */
static void warn_unsent_signal(struct supervisor *s)
{
	const typeof(s->ep.target) *t = &s->ep.target;
	char sig[32];
	if (attached(s) || !t->exited || t->code == CLD_EXITED || t->exec_errno ||
	    t->stop_reason != STOP_EXITED)
		return;
	episode_warn(&s->ep,
		     "the target was ended by %s, which iopsample did not send: another process, "
		     "the kernel (the OOM killer, a fault) or the target itself sent it",
		     signame(t->status, sig, sizeof(sig)));
}

static int finish(struct supervisor *s, int code)
{
	struct errbuf e;
	if (s->ep.origin_ns) {
		sources_final_rows(s);
		if (s->essential_failed)
			stop(s, STOP_COLLECTOR_FAILED);
		s->ep.end_ns = clock_mono_ns();
		s->ep.wall_end_ns = clock_wall_ns();
	}
	if (s->keeper.pid > 0) {
		waitpid(s->keeper.pid, NULL, 0); /* the zombie the final rows read */
		if (atomic_load(&s->keeper.shared->tree_usage_done)) {
			s->ep.target.usage = s->keeper.shared->tree_usage;
			s->ep.target.has_usage = true;
		}
	}
	remove_cgroup(s); /* the keeper reaped everything: they are empty */
	host_settings_restore(); /* before the manifest, which says whether it did */
	warn_unsent_signal(s);
	if (!code)
		code = exit_status(s);
	else
		s->ep.status = s->interrupt_sig ? EPISODE_INTERRUPTED : EPISODE_FAILED;
	if (write_manifest(s, &e) < 0) {
		log_error("%s", e.msg);
		code = EX_IOERR;
	}
	if (s->progress)
		log_status(NULL);
	summary(s, code);
	return code;
}

int supervisor_run(struct config *cfg)
{
	struct supervisor s = {.sigfd = -1, .timerfd = -1, .pidfd = -1, .progress = log_status_wanted()};
	struct errbuf e;
	int code;

	/* A stop request (SIGUSR1) that comes before the episode is under way
	 * waits for it, rather than kill iopsample as its default action would. */
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	sd_notify_init();

	s.ep.cfg = cfg;
	s.ep.dirfd = -1;
	s.ep.manifest_spare = -1;
	s.ep.host = host_info_json();
	s.ep.warnings = json_array();
	s.ep.nsrc = cfg->nsources;
	s.ep.src = calloc(cfg->nsources + 1, sizeof(*s.ep.src));
	for (size_t i = 0; i < cfg->nsources; i++)
		s.ep.src[i] = (struct source_run){.sc = &cfg->sources[i], .sock = -1, .cpu_ns = -1};

	/* the episode's cgroups, before the sources are probed: the cgroup
	 * source is there when they are */
	if (attached(&s)) {
		episode_cgroup_attach(&s.cgroup, cfg->target.pid);
	} else {
		json_t *swept = episode_cgroup_sweep();
		episode_cgroup_make(&s.cgroup, cfg->episode.name, cfg->episode.cgroup_off);
		json_object_set_new(s.cgroup.json, "removed_stale", swept);
	}
	s.ep.cgroup = s.cgroup.json;

	if ((code = sources_probe(&s)))
		goto out;
	if (episode_create_dir(&s.ep, &e) < 0) {
		log_error("%s", e.msg);
		code = EX_CANTCREAT;
		goto out;
	}
	if (episode_write_config(&s.ep, &e) < 0 || write_manifest(&s, &e) < 0) {
		log_error("%s", e.msg);
		code = EX_IOERR;
		goto out;
	}
	/* signals wait for the event loop from here: one that came while a
	 * source changed the host would end iopsample before it put it back */
	if (setup_signals(&s) < 0) {
		log_error("signalfd: %s", strerror(errno));
		code = finish(&s, EX_OSERR);
		goto out;
	}
	for (size_t i = 0; i < s.ep.nsrc; i++)
		if (s.ep.src[i].status == SOURCE_STARTING && s.ep.src[i].sc->ops->prepare)
			s.ep.src[i].sc->ops->prepare(s.ep.src[i].sc);

	if (attached(&s)) {
		s.ep.target.pid = cfg->target.pid;
		s.pidfd = pidfd_open(cfg->target.pid, 0);
		if (s.pidfd < 0) {
			log_error("target.pid %d: %s", (int)cfg->target.pid, strerror(errno));
			code = finish(&s, errno == ESRCH ? EX_CONFIG : EX_OSERR);
			goto out;
		}
	} else if (start_target(&s, &e) < 0) {
		log_error("%s", e.msg);
		code = finish(&s, EX_OSERR);
		goto out;
	} else if (episode_cgroup_enter(&s.cgroup, s.ep.target.pid) < 0) {
		episode_warn(&s.ep, "%s", s.cgroup.set.why);
	}

	if ((code = sources_start(&s))) {
		s.ep.target.stop_reason = s.interrupt_sig ? STOP_INTERRUPTED : STOP_COLLECTOR_FAILED;
		abort_start(&s);
		code = finish(&s, code);
		goto out;
	}
	release(&s);
	/* the start time, for a harness watching; if this fails (a disk filling
	 * up already), the final write will say so */
	write_manifest(&s, &e);
	sd_notify_send("READY=1");
	event_loop(&s);
	sd_notify_send("STOPPING=1");
	code = finish(&s, 0);
out:
	host_settings_restore();
	remove_cgroup(&s); /* when the episode ended before its target ran */
	for (size_t i = 0; i < s.ep.nsrc; i++) {
		if (s.ep.src[i].sock >= 0)
			close(s.ep.src[i].sock);
		json_decref(s.ep.src[i].details);
	}
	keeper_free(&s.keeper);
	episode_close(&s.ep);
	close_if_open(s.sigfd);
	close_if_open(s.timerfd);
	close_if_open(s.pidfd);
	json_decref(s.ep.host);
	json_decref(s.ep.warnings);
	episode_cgroup_free(&s.cgroup);
	free(s.ep.src);
	free(s.ep.dir);
	return code;
}
