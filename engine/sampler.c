// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The sampler process: one source, its file, the grid. */
#define _GNU_SOURCE
#include "sampler.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fdutil.h"
#include "ipc.h"
#include "jsonl_writer.h"

struct sampler {
	const struct source_config *sc;
	int sock;
	void *state;
	struct jsonl_writer w;
	int64_t origin;   /* mono ns */
	int64_t prev_t;   /* t_mono_ns of the previous row */
	uint64_t missed;  /* grid ticks that passed without a row */
	size_t nkeys;     /* the row's keys, fixed at open */
	json_t *row;
	json_t *manifest; /* the source's manifest entry, sent again with its last word */
	json_t *seq, *t_mono, *t_wall, *interval;
	bool progress;         /* the supervisor shows a progress line */
	int64_t next_progress; /* mono ns: rows are told at most 4 times a second */
	int64_t waited_ns;     /* in epoll_wait and poll since the row before */
	uint64_t wide;         /* rows wider than WIDE_ROW_INTERVALS intervals */
	json_t *wide_rows;     /* the manifest's wide_rows, from the first */
	int64_t test_slow_seq; /* IOPSAMPLE_TEST_SLOW_ROW: the row whose reading sleeps, or -1 */
	int watch_fd;          /* the source's ops->watch, or -1 */
	short watch_events;
	int64_t test_late_watch_ns; /* IOPSAMPLE_TEST_LATE_WATCH_MS: the watch registered that late */
};

static json_t *envelope(struct sampler *s, const struct config *cfg)
{
	json_t *row = json_object();
	json_object_set_new(row, "episode", json_string(cfg->episode.name));
	json_object_set_new(row, "source", json_string(s->sc->ops->name));
	json_object_set_new(row, "available_in_deployment",
			    json_boolean(s->sc->available_in_deployment));
	json_object_set_new(row, "seq", s->seq = json_integer(0));
	json_object_set_new(row, "t_mono_ns", s->t_mono = json_integer(0));
	json_object_set_new(row, "t_wall_ns", s->t_wall = json_integer(0));
	json_object_set_new(row, "interval_ns", s->interval = json_integer(0));
	json_object_set_new(row, "final", json_false());
	if (cfg->episode.labels.n) {
		json_t *labels = json_object();
		for (size_t i = 0; i < cfg->episode.labels.n; i++)
			json_object_set_new(labels, cfg->episode.labels.items[i].key,
					    json_string(cfg->episode.labels.items[i].value));
		json_object_set_new(row, "labels", labels);
	}
	return row;
}

/* A last message: the counts, and the manifest entry as the source left it
 * (a warning it added while sampling). */
static json_t *counts(const struct sampler *s, const char *kind)
{
	return json_pack("{s:s, s:I, s:I, s:O}", "msg", kind, "rows", (json_int_t)s->w.rows,
			 "missed_ticks", (json_int_t)s->missed, "manifest", s->manifest);
}

/* A row wider than WIDE_ROW_INTERVALS intervals, into the manifest's
 * wide_rows: its seq, its interval, and why: the sampler was busy, not
 * waiting for its timer, for most of the extra time (busy_ns: the row
 * before's reading and writing, the source's end before the final row:
 * "reading"), or it waited and ran late ("scheduling": the host's CPUs
 * went to others). */
static void note_wide(struct sampler *s, int64_t interval)
{
	if (interval <= WIDE_ROW_INTERVALS * s->sc->interval_ns)
		return;
	if (!s->wide_rows) {
		s->wide_rows = json_pack("{s:I, s:[]}", "count", (json_int_t)0, "rows");
		json_object_set(s->manifest, "wide_rows", s->wide_rows);
	}
	json_integer_set(json_object_get(s->wide_rows, "count"), (json_int_t)++s->wide);
	json_t *rows = json_object_get(s->wide_rows, "rows");
	if (json_array_size(rows) >= WIDE_ROWS_KEPT)
		return;
	int64_t extra = interval - s->sc->interval_ns, busy = interval - s->waited_ns;
	busy = busy < 0 ? 0 : busy;
	json_array_append_new(rows, json_pack("{s:I, s:I, s:I, s:s}", "seq", (json_int_t)s->w.rows, "interval_ns",
					      (json_int_t)interval, "busy_ns", (json_int_t)busy, "why",
					      2 * busy >= extra ? "reading" : "scheduling"));
}

/* The source or its file failed mid-episode: say why, keep what was written. */
static void __attribute__((noreturn)) fail(struct sampler *s, int err, const char *why)
{
	struct errbuf ignored;
	json_t *m = counts(s, "failed");
	json_object_set_new(m, "error", json_string(why));
	json_object_set_new(m, "errno", json_integer(err < 0 ? -err : err));
	jsonl_writer_close(&s->w, &ignored);
	ipc_send(s->sock, m);
	_exit(1);
}

/* What the source watches, asked without waiting: for a row taken outside
 * the loop's wait (the drain's, the last). */
static void ask_watched(struct sampler *s)
{
	struct pollfd p = {.fd = s->watch_fd, .events = s->watch_events};
	if (s->watch_fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (s->watch_events | POLLERR)))
		s->sc->ops->watched(s->state);
}

static void take_sample(struct sampler *s, bool final)
{
	struct errbuf why;
	if (final)
		ask_watched(s);
	int64_t now = clock_mono_ns();
	int64_t wall = clock_wall_ns();
	int r = s->sc->ops->sample(s->state, &why);
	if (r < 0)
		fail(s, r, why.msg);
	if (s->test_slow_seq == (int64_t)s->w.rows) { /* a test's reading that takes its time */
		int64_t ns = (WIDE_ROW_INTERVALS + 1) * s->sc->interval_ns;
		nanosleep(&(struct timespec){ns / NS_PER_S, ns % NS_PER_S}, NULL);
	}
	if (json_object_size(s->row) != s->nkeys)
		fail(s, EPROTO, "the source changed its row's keys");

	int64_t t = now - s->origin;
	json_integer_set(s->seq, (json_int_t)s->w.rows);
	json_integer_set(s->t_mono, t);
	json_integer_set(s->t_wall, wall);
	json_integer_set(s->interval, t - s->prev_t);
	note_wide(s, t - s->prev_t);
	if (final)
		json_object_set(s->row, "final", json_true());
	r = final ? jsonl_writer_finish(&s->w, s->row, now, &why)
		  : jsonl_writer_write(&s->w, s->row, now, &why);
	if (r < 0)
		fail(s, r, why.msg);
	s->prev_t = t;
	s->waited_ns = 0;
	if (s->progress && !final && now >= s->next_progress) {
		s->next_progress = now + PROGRESS_NS;
		ipc_send(s->sock, json_pack("{s:s, s:I, s:I}", "msg", "progress", "rows", (json_int_t)s->w.rows,
					    "missed_ticks", (json_int_t)s->missed));
	}
}

/* Waits for "start", taking the baseline again at "begin" (sent to a
 * source with ops->begin, once every source is ready); false when the
 * supervisor went away instead. */
static bool wait_start(struct sampler *s)
{
	json_t *m;
	for (;;) {
		if (ipc_recv(s->sock, &m) < 0)
			return false;
		if (strcmp(ipc_kind(m), "begin"))
			break;
		json_decref(m);
		s->sc->ops->begin(s->state);
		ipc_send(s->sock, json_pack("{s:s}", "msg", "begun"));
	}
	bool ok = !strcmp(ipc_kind(m), "start");
	s->origin = json_integer_value(json_object_get(m, "origin_ns"));
	s->progress = json_is_true(json_object_get(m, "progress"));
	json_decref(m);
	return ok;
}

static int arm_grid(struct sampler *s)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -1;
	int64_t first = s->origin + s->sc->interval_ns;
	struct itimerspec its = {
		.it_value = {first / NS_PER_S, first % NS_PER_S},
		.it_interval = {s->sc->interval_ns / NS_PER_S, s->sc->interval_ns % NS_PER_S},
	};
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A due tick, if any: one row however many grid points passed (a late row
 * shows as a wider interval_ns; no row is invented). */
static void tick(struct sampler *s, int tfd)
{
	uint64_t expirations;
	if (read(tfd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	s->missed += expirations - 1;
	take_sample(s, false);
}

/* After the stop, before the last row: while the source says I/O the tree
 * started is in flight, rows go on on the grid, up to its drain bound. The
 * manifest says how long it waited and, when the bound cut it short, what
 * was left. Only the timer is waited on (what the source watches is asked
 * before each row): the supervisor says nothing more. */
static void drain(struct sampler *s, int tfd)
{
	const struct collector_ops *o = s->sc->ops;
	if (!o->in_flight)
		return;
	int64_t start = clock_mono_ns(), limit = o->drain_ns(s->sc);
	json_t *left = NULL;
	while (o->in_flight(s->state, &left) && clock_mono_ns() < start + limit) {
		json_decref(left);
		left = NULL;
		struct pollfd p = {.fd = tfd, .events = POLLIN};
		int64_t before = clock_mono_ns();
		int n = poll(&p, 1, DRAIN_POLL_MS);
		s->waited_ns += clock_mono_ns() - before;
		if (n > 0) {
			ask_watched(s);
			tick(s, tfd);
		}
	}
	json_object_set_new(s->manifest, "drain",
			    json_pack("{s:I, s:I, s:o}", "limit_ns", (json_int_t)limit, "waited_ns",
				      (json_int_t)(clock_mono_ns() - start), "left",
				      left ? left : json_null()));
}

static void __attribute__((noreturn)) run(struct sampler *s)
{
	struct errbuf why;
	int tfd = arm_grid(s);
	if (tfd < 0)
		fail(s, errno, "timerfd");

	/* epoll rather than poll: the descriptors are registered once, and
	 * each wake-up does not poll the socket again (a tick's cost matters at
	 * 1 ms intervals; see docs/benchmarks.md). */
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event want[3] = {{.events = EPOLLIN, .data.fd = tfd},
				      {.events = EPOLLIN, .data.fd = s->sock},
				      {.events = (uint32_t)s->watch_events, .data.fd = s->watch_fd}};
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &want[0]) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, s->sock, &want[1]) < 0)
		fail(s, errno, "epoll");
	if (s->watch_fd >= 0) {
		if (s->test_late_watch_ns > 0) /* a test's: the change below comes first */
			nanosleep(&(struct timespec){s->test_late_watch_ns / NS_PER_S, s->test_late_watch_ns % NS_PER_S},
				  NULL);
		if (epoll_ctl(ep, EPOLL_CTL_ADD, s->watch_fd, &want[2]) < 0)
			fail(s, errno, "epoll");
		/* Registering polls the descriptor once, and where a poll has
		 * a side effect (mountinfo's takes the kernel's event) a change
		 * made since the source last looked is taken there and never
		 * reported: the source is told there may have been one. */
		s->sc->ops->watched(s->state);
	}

	for (;;) {
		struct epoll_event got[3];
		int64_t before = clock_mono_ns();
		int n = epoll_wait(ep, got, 3, -1);
		s->waited_ns += clock_mono_ns() - before;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail(s, errno, "epoll_wait");
		}
		bool message = false, due = false;
		for (int i = 0; i < n; i++) {
			if (got[i].data.fd == tfd)
				due = true;
			else if (got[i].data.fd == s->watch_fd)
				s->sc->ops->watched(s->state); /* before the tick that came with it */
			else
				message = true; /* EPOLLIN, EPOLLHUP or EPOLLERR */
		}
		if (due)
			tick(s, tfd);
		if (!message)
			continue;

		json_t *m = NULL;
		int r = ipc_recv(s->sock, &m);
		bool stop = r == 0 && !strcmp(ipc_kind(m), "stop");
		json_decref(m);
		if (r == 0 && !stop)
			continue;
		if (stop) {
			tick(s, tfd); /* a tick that fell due with the stop comes first */
			if (s->sc->ops->finish)
				s->sc->ops->finish(s->state);
			drain(s, tfd);
			take_sample(s, true);
		}
		s->sc->ops->close(s->state);
		if ((r = jsonl_writer_close(&s->w, &why)) < 0)
			fail(s, r, why.msg);
		/* with the supervisor gone there is nobody to tell */
		if (stop)
			ipc_send(s->sock, counts(s, "done"));
		_exit(0);
	}
}

void sampler_main(struct sampler_args *a)
{
	struct sampler s = {.sc = a->sc, .test_slow_seq = -1, .watch_fd = -1};
	struct errbuf why;
	pid_t parent = getppid();
	char name[16];
	char file[64];

	snprintf(name, sizeof(name), "iops-%s", a->sc->ops->name);
	prctl(PR_SET_NAME, name);
	int keep[] = {a->sock, a->dirfd};
	int inherited[SAMPLER_MAX_INHERITED];
	size_t ninherited = a->sc->ops->inherited
				    ? a->sc->ops->inherited(a->sc, inherited, SAMPLER_MAX_INHERITED)
				    : 0;
	if (fd_keep(keep, 2, inherited, ninherited) < 0 || !die_with_parent(SIGKILL, parent))
		_exit(1);
	s.sock = keep[0];

	/* Being on time is the sampler's job: on a busy host the default
	 * priority wakes it up to a scheduler slice (~4 ms) late. A higher
	 * weight keeps it in the fair scheduler, so a sampler can never starve
	 * the host; without CAP_SYS_NICE it samples at the default priority. */
	if (setpriority(PRIO_PROCESS, 0, SAMPLER_NICE) < 0 && errno != EACCES && errno != EPERM)
		_exit(1);
	prctl(PR_SET_TIMERSLACK, 1000UL); /* 1 us instead of 50 */

	/* A source that keeps a file open per process of the tree (proc_io,
	 * taskstats) needs more descriptors than the soft limit's usual 1024;
	 * the hard limit is its to take (a sampler execs nothing). */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}

	/* The supervisor decides when sampling stops; terminal signals are its. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);

	/* a test setting: the source's watch registered this many ms after
	 * the start (a change before it is still seen) */
	const char *late = getenv("IOPSAMPLE_TEST_LATE_WATCH_MS");
	s.test_late_watch_ns = late ? strtoll(late, NULL, 10) * (NS_PER_S / 1000) : 0;

	/* a test setting: "SOURCE:SEQ", that row's reading made to take
	 * WIDE_ROW_INTERVALS + 1 intervals, so the row after it is wide */
	const char *slow = getenv("IOPSAMPLE_TEST_SLOW_ROW");
	size_t len = strlen(a->sc->ops->name);
	if (slow && !strncmp(slow, a->sc->ops->name, len) && slow[len] == ':')
		s.test_slow_seq = strtoll(slow + len + 1, NULL, 10);

	s.row = envelope(&s, a->cfg);
	json_t *manifest = s.manifest = json_object();
	int r = a->sc->ops->open(a->sc, &a->target, s.row, manifest, &s.state, &why);
	if (r == 0) {
		jsonl_file_name(a->sc->ops->name, a->cfg->output.compression, file, sizeof(file));
		r = jsonl_writer_open(&s.w, keep[1], file, a->cfg->output.compression,
				      a->cfg->output.zstd_level, &why);
		if (r < 0)
			a->sc->ops->close(s.state);
	}
	close(keep[1]);
	if (r < 0) {
		ipc_send(s.sock, json_pack("{s:s, s:s, s:i, s:O}", "msg", "unavailable", "error",
					   why.msg, "errno", -r, "manifest", manifest));
		_exit(0);
	}
	s.nkeys = json_object_size(s.row);
	s.watch_fd = a->sc->ops->watch ? a->sc->ops->watch(s.state, &s.watch_events) : -1;
	ipc_send(s.sock,
		 json_pack("{s:s, s:s, s:O}", "msg", "ready", "file", file, "manifest", manifest));

	if (!wait_start(&s)) {
		a->sc->ops->close(s.state);
		jsonl_writer_close(&s.w, &why);
		_exit(0);
	}
	run(&s);
}
