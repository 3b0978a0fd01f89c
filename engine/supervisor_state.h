/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the supervisor's two files share, and no other file sees: the state
 * of one episode in the supervisor process. supervisor.c runs the episode
 * and the target's life; supervisor_sources.c runs the sources' side, a
 * sampler process each. */
#ifndef IOPSAMPLE_SUPERVISOR_STATE_H
#define IOPSAMPLE_SUPERVISOR_STATE_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>

#include "collector.h"
#include "episode.h"
#include "episode_cgroup.h"
#include "keeper.h"

/* how long a sampler may take to open its source, and to write its final row */
#define SAMPLER_TIMEOUT_MS 10000
#define KILL_RETRY_NS (50 * NS_PER_MS)

enum phase {
	PHASE_RUN,   /* timer: the episode's duration, if any */
	PHASE_GRACE, /* stop_signal sent; timer: grace */
	PHASE_KILL   /* SIGKILL sent; timer: send it again to late forks */
};

struct supervisor {
	struct episode ep;
	struct keeper keeper; /* pid 0 when attached to target.pid */
	struct episode_cgroup cgroup;
	int sigfd, timerfd, pidfd;
	enum phase phase;
	bool stopping;     /* the tree was asked to stop */
	bool tree_gone;    /* nothing of the target is left: finish */
	int interrupt_sig; /* the signal that interrupted the episode */
	bool keeper_failed; /* the keeper died before the target */
	bool setup_failed;  /* a source's before_exec failed in the target */
	int io_err;         /* the first I/O error a source failed with (a full disk) */
	bool essential_failed; /* a source the episode cannot go on without failed */
	bool progress;      /* a status line on the terminal (log_status) */
	int64_t next_draw;  /* mono ns of its next redraw */
};

static inline bool attached(const struct supervisor *s)
{
	return s->ep.cfg->target.pid > 0;
}

static inline bool holds_target(const struct source_run *src)
{
	return src->sc->ops->holds_target && src->sc->ops->holds_target(src->sc);
}

/* A source whose failure fails the episode: one the user required, or one
 * the launched target cannot outlive (its tracer). */
static inline bool essential(const struct supervisor *s, const struct source_run *src)
{
	return src->sc->required || (holds_target(src) && !attached(s));
}

static inline bool io_errno(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EIO || err == EFBIG || err == EROFS;
}

static inline bool is_interrupt(unsigned sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

/* supervisor_sources.c, which supervisor.c calls (never the other way) */
void source_set_error(struct source_run *src, int err, const char *msg);
/* Probes every source before anything is created: 0, or EX_NOPERM after
 * saying which required source this host cannot run. */
int sources_probe(struct supervisor *s);
/* Starts every sampler on the waiting target; 0 or the exit status that
 * ends the episode before it starts. */
int sources_start(struct supervisor *s);
/* A sampler's socket is readable: its message, or its end. */
void sources_readable(struct supervisor *s, struct source_run *src);
/* Every sampler still sampling takes its final row. */
void sources_final_rows(struct supervisor *s);

#endif
