// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The supervisor's side of the sources: probe each before anything is
 * created, fork a sampler for each on the waiting target, apply what the
 * samplers say (ready, progress, their manifest entries, failures), reap
 * them, and ask for their final rows. engine/sampler.c is the other end. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "clock.h"
#include "ipc.h"
#include "jsonl_reader.h"
#include "sampler.h"
#include "signames.h"
#include "supervisor_state.h"

/* "... within 10 s", from the timeout itself. */
static const char *why_late(const char *what)
{
	static char why[64];
	snprintf(why, sizeof(why), "%s within %d s", what, SAMPLER_TIMEOUT_MS / 1000);
	return why;
}

static int start_sampler(struct supervisor *s, struct source_run *src, const struct target_info *t)
{
	int sv[2];
	int r = ipc_pair(sv);
	if (r < 0)
		return r;
	pid_t pid = fork();
	if (pid < 0) {
		r = -errno;
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (pid == 0) {
		struct sampler_args a = {
			.cfg = s->ep.cfg, .sc = src->sc, .target = *t, .sock = sv[1], .dirfd = s->ep.dirfd};
		sampler_main(&a);
	}
	close(sv[1]);
	src->pid = pid;
	src->sock = sv[0];
	return 0;
}

static int64_t timeval_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * NS_PER_S + (int64_t)tv->tv_usec * 1000;
}

void source_set_error(struct source_run *src, int err, const char *msg)
{
	src->err = err;
	snprintf(src->error, sizeof(src->error), "%s", msg);
}

/* A sampler's manifest entry, the newest it sent; warnings it added go to
 * the episode's, once each. */
static void take_details(struct supervisor *s, struct source_run *src, json_t *details)
{
	if (!json_is_object(details))
		return;
	json_decref(src->details);
	src->details = json_incref(details);
	json_t *said = json_object_get(details, "warnings");
	for (; src->warned < json_array_size(said); src->warned++)
		episode_warn(&s->ep, "%s: %s", src->sc->ops->name,
		     json_string_value(json_array_get(said, src->warned)));
	json_object_del(details, "warnings");
}

/* Applies a sampler's message; true when it was its last. */
static bool sampler_message(struct supervisor *s, struct source_run *src, json_t *m)
{
	const char *kind = ipc_kind(m);
	take_details(s, src, json_object_get(m, "manifest"));
	if (!strcmp(kind, "begun")) /* late: sources_begin() stopped waiting */
		return false;
	if (!strcmp(kind, "progress")) {
		src->rows = json_integer_value(json_object_get(m, "rows"));
		src->missed_ticks = (uint64_t)json_integer_value(json_object_get(m, "missed_ticks"));
		return false;
	}
	if (!strcmp(kind, "ready")) {
		src->status = SOURCE_OK;
		snprintf(src->file, sizeof(src->file), "%s",
			 json_string_value(json_object_get(m, "file")));
		return false;
	}
	int err = (int)json_integer_value(json_object_get(m, "errno"));
	const char *why = json_string_value(json_object_get(m, "error"));
	if (!strcmp(kind, "unavailable")) {
		src->status = SOURCE_UNAVAILABLE;
		source_set_error(src, err, why ? why : "unavailable");
		return true;
	}
	src->rows = json_integer_value(json_object_get(m, "rows"));
	src->missed_ticks = (uint64_t)json_integer_value(json_object_get(m, "missed_ticks"));
	if (!strcmp(kind, "failed")) {
		src->status = SOURCE_FAILED; /* sampler_gone() acts on it */
		source_set_error(src, err, why ? why : "failed");
	} else {
		src->sampling = false; /* done: the final row is written */
	}
	return true;
}

/* A source that holds the target (a tracer) takes it along when it dies:
 * the kernel's SIGKILL to the target may be reported before the sampler's
 * end, as if the target had simply exited. */
static bool killed_with_its_holder(const struct supervisor *s, const struct source_run *src)
{
	const typeof(s->ep.target) *t = &s->ep.target;
	return holds_target(src) && t->exited &&
	       t->code != CLD_EXITED && t->status == SIGKILL && t->stop_reason == STOP_EXITED;
}

/* The sampler is gone (its socket closed): reap it and say how it ended
 * when it did not say so itself. */
static void sampler_gone(struct supervisor *s, struct source_run *src)
{
	int st = 0;
	bool was_sampling = src->sampling;
	src->sampling = false;
	if (src->sock >= 0)
		close(src->sock);
	src->sock = -1;
	struct rusage ru;
	if (src->pid > 0 && wait4(src->pid, &st, 0, &ru) == src->pid) {
		src->pid = 0;
		src->cpu_ns = timeval_ns(&ru.ru_utime) + timeval_ns(&ru.ru_stime);
		if (was_sampling && src->status != SOURCE_FAILED) {
			char why[128];
			char sig[32];
			if (WIFSIGNALED(st))
				snprintf(why, sizeof(why), "sampler process killed by %s",
					 signame(WTERMSIG(st), sig, sizeof(sig)));
			else
				snprintf(why, sizeof(why), "sampler process exited with status %d without a final row",
					 WEXITSTATUS(st));
			src->status = SOURCE_FAILED;
			source_set_error(src, ECHILD, why);
		}
	}
	if (was_sampling && src->status == SOURCE_FAILED) {
		if (src->rows <= 0 && *src->file)
			src->rows = jsonl_count_rows(s->ep.dirfd, src->file);
		/* a full disk fails every writer: say it once, the manifest has each */
		if (!io_errno(src->err) || src->err != s->io_err)
			log_error("source %s failed: %s", src->sc->ops->name, src->error);
		if (io_errno(src->err) && !s->io_err)
			s->io_err = src->err;
		if (killed_with_its_holder(s, src))
			s->ep.target.stop_reason = STOP_COLLECTOR_FAILED;
		if (essential(s, src))
			s->essential_failed = true; /* supervisor.c stops the episode */
	}
}

void sources_readable(struct supervisor *s, struct source_run *src)
{
	json_t *m;
	int r = ipc_recv(src->sock, &m);
	if (r == -EAGAIN)
		return;
	if (r == 0) {
		bool last = sampler_message(s, src, m);
		json_decref(m);
		if (!last)
			return;
	}
	sampler_gone(s, src);
}

/* Waits until every sampler said ready or unavailable. An interrupt meanwhile
 * ends the start. */
static void await_ready(struct supervisor *s)
{
	int64_t deadline = clock_mono_ns() + SAMPLER_TIMEOUT_MS * NS_PER_MS;
	for (;;) {
		struct pollfd p[1 + s->ep.nsrc];
		struct source_run *who[1 + s->ep.nsrc];
		size_t n = 0;
		p[n++] = (struct pollfd){.fd = s->sigfd, .events = POLLIN};
		for (size_t i = 0; i < s->ep.nsrc; i++) {
			if (s->ep.src[i].status != SOURCE_STARTING || s->ep.src[i].sock < 0)
				continue;
			who[n] = &s->ep.src[i];
			p[n++] = (struct pollfd){.fd = s->ep.src[i].sock, .events = POLLIN};
		}
		if (n == 1)
			return;
		int64_t left = (deadline - clock_mono_ns()) / NS_PER_MS;
		int r = left > 0 ? poll(p, n, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			for (size_t i = 1; i < n; i++) {
				who[i]->status = SOURCE_UNAVAILABLE;
				source_set_error(who[i], ETIMEDOUT, why_late("did not open"));
				kill(who[i]->pid, SIGKILL);
				sampler_gone(s, who[i]);
			}
			return;
		}
		struct signalfd_siginfo si;
		if ((p[0].revents & POLLIN) && read(s->sigfd, &si, sizeof(si)) == sizeof(si) &&
		    is_interrupt(si.ssi_signo)) {
			s->interrupt_sig = (int)si.ssi_signo;
			return;
		}
		for (size_t i = 1; i < n; i++) {
			if (!p[i].revents)
				continue;
			json_t *m;
			if (ipc_recv(who[i]->sock, &m) == 0) {
				sampler_message(s, who[i], m);
				json_decref(m);
			} else {
				who[i]->status = SOURCE_UNAVAILABLE;
				source_set_error(who[i], ECHILD, "sampler process died while opening");
			}
			if (who[i]->status == SOURCE_UNAVAILABLE)
				sampler_gone(s, who[i]); /* it has exited or is about to */
		}
	}
}

void sources_final_rows(struct supervisor *s)
{
	for (size_t i = 0; i < s->ep.nsrc; i++)
		if (s->ep.src[i].sampling && s->ep.src[i].sock >= 0)
			ipc_send(s->ep.src[i].sock, json_pack("{s:s}", "msg", "stop"));

	/* a source's last row may wait for I/O in flight, up to its bound */
	int64_t drain = 0;
	for (size_t i = 0; i < s->ep.nsrc; i++) {
		const struct source_config *sc = s->ep.src[i].sc;
		int64_t d = sc->ops->drain_ns ? sc->ops->drain_ns(sc) : 0;
		drain = d > drain ? d : drain;
	}
	int64_t deadline = clock_mono_ns() + drain + SAMPLER_TIMEOUT_MS * NS_PER_MS;
	for (;;) {
		struct pollfd p[s->ep.nsrc + 1]; /* + 1: a baseline run has no sources */
		struct source_run *who[s->ep.nsrc + 1];
		size_t n = 0;
		for (size_t i = 0; i < s->ep.nsrc; i++) {
			if (s->ep.src[i].sock < 0)
				continue;
			who[n] = &s->ep.src[i];
			p[n++] = (struct pollfd){.fd = s->ep.src[i].sock, .events = POLLIN};
		}
		if (n == 0)
			break;
		int64_t left = (deadline - clock_mono_ns()) / NS_PER_MS;
		int r = left > 0 ? poll(p, n, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			for (size_t i = 0; i < n; i++) {
				kill(who[i]->pid, SIGKILL);
				who[i]->status = SOURCE_FAILED;
				source_set_error(who[i], ETIMEDOUT, why_late("no final row"));
				sampler_gone(s, who[i]);
			}
			break;
		}
		for (size_t i = 0; i < n; i++)
			if (p[i].revents)
				sources_readable(s, who[i]);
	}
}

/* A required source the host cannot provide ends the run here: exit 77, no
 * episode directory. */
static int probe_one(struct supervisor *s, struct source_run *src, const struct target_info *t)
{
	struct errbuf why;
	json_t *details = json_object();
	int r = src->sc->ops->probe(src->sc, t, details, &why);
	if (r == 0 || json_object_size(details) == 0)
		json_decref(details);
	else
		src->details = details;
	if (r == 0)
		return 0;
	if (src->sc->required) {
		log_error("source %s cannot run on this host: %s (set required: false to run without it)",
			  src->sc->ops->name, why.msg);
		return EX_NOPERM;
	}
	src->status = SOURCE_UNAVAILABLE;
	source_set_error(src, EPERM, why.msg);
	episode_warn(&s->ep, "source %s unavailable: %s", src->sc->ops->name, why.msg);
	return 0;
}

/* glibc's defaults (malloc(3)): 128 KiB each */
#define MALLOC_DEFAULT_MMAP_THRESHOLD (128 * 1024)
#define MALLOC_DEFAULT_TRIM_THRESHOLD (128 * 1024)
#define PROBE_MALLOC_KEEP (64 * 1024 * 1024)

int sources_probe(struct supervisor *s)
{
	/* what is known of the target before it runs */
	struct target_info t = {.pid = attached(s) ? s->ep.cfg->target.pid : 0, .cgroups = &s->cgroup.set};
	/* An eBPF source's probe reads the kernel's BTF (megabytes) into memory
	 * it frees after its load: malloc keeps it for the next probe rather
	 * than hand it back and fault it in again (a third of four eBPF
	 * sources' probes, here), and gives it back once all are done. */
	mallopt(M_MMAP_THRESHOLD, PROBE_MALLOC_KEEP);
	mallopt(M_TRIM_THRESHOLD, PROBE_MALLOC_KEEP);
	int code = 0;
	for (size_t i = 0; i < s->ep.nsrc && !code; i++)
		code = probe_one(s, &s->ep.src[i], &t);
	mallopt(M_MMAP_THRESHOLD, MALLOC_DEFAULT_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, MALLOC_DEFAULT_TRIM_THRESHOLD);
	malloc_trim(0);
	return code;
}

/* The sources that take their baseline again once all are ready do it
 * now, together, right before the target is released: block_io's and
 * diskstats' count from the same moment, whatever block_io's load took.
 * A sampler that does not answer is left to the event loop, which sees
 * it gone. */
static void sources_begin(struct supervisor *s)
{
	bool asked[s->ep.nsrc + 1];
	for (size_t i = 0; i < s->ep.nsrc; i++) {
		struct source_run *src = &s->ep.src[i];
		asked[i] = src->status == SOURCE_OK && src->sc->ops->begin;
		if (asked[i])
			ipc_send(src->sock, json_pack("{s:s}", "msg", "begin"));
	}
	int64_t deadline = clock_mono_ns() + SAMPLER_TIMEOUT_MS * NS_PER_MS;
	for (size_t i = 0; i < s->ep.nsrc; i++) {
		if (!asked[i])
			continue;
		struct pollfd p = {.fd = s->ep.src[i].sock, .events = POLLIN};
		int64_t left = (deadline - clock_mono_ns()) / NS_PER_MS;
		int r;
		while ((r = poll(&p, 1, left > 0 ? (int)left : 0)) < 0 && errno == EINTR)
			;
		json_t *m;
		if (r > 0 && ipc_recv(s->ep.src[i].sock, &m) == 0)
			json_decref(m); /* "begun": nothing else is said before the start */
	}
}

int sources_start(struct supervisor *s)
{
	struct target_info t = {.pid = s->ep.target.pid, .keeper = s->keeper.pid, .observer = getpid(),
				.cgroups = &s->cgroup.set};
	bool started[s->ep.nsrc + 1]; /* not those the probe already ruled out */
	for (size_t i = 0; i < s->ep.nsrc; i++) {
		struct source_run *src = &s->ep.src[i];
		started[i] = src->status == SOURCE_STARTING;
		if (!started[i])
			continue;
		int r = start_sampler(s, src, &t);
		if (r < 0) {
			src->status = SOURCE_UNAVAILABLE;
			source_set_error(src, -r, strerror(-r));
		}
	}
	await_ready(s);
	if (s->interrupt_sig)
		return 128 + s->interrupt_sig;

	int code = 0;
	for (size_t i = 0; i < s->ep.nsrc; i++) {
		struct source_run *src = &s->ep.src[i];
		if (!started[i] || src->status != SOURCE_UNAVAILABLE)
			continue;
		if (src->sc->required) {
			log_error("source %s cannot start: %s", src->sc->ops->name, src->error);
			if (!code)
				code = io_errno(src->err) ? EX_IOERR : EX_NOPERM;
		} else {
			episode_warn(&s->ep, "source %s unavailable: %s", src->sc->ops->name, src->error);
		}
	}
	if (!code)
		sources_begin(s);
	return code;
}
