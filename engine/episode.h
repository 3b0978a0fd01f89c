/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One episode's state and what its directory holds. The supervisor fills
 * struct episode; this file turns it into files (the manifest as
 * manifest.c composes it) and never decides anything. */
#ifndef IOPSAMPLE_EPISODE_H
#define IOPSAMPLE_EPISODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "config.h"
#include "log.h"


enum episode_status { EPISODE_RUNNING, EPISODE_COMPLETE, EPISODE_INTERRUPTED, EPISODE_FAILED };

enum stop_reason {
	STOP_NONE,
	STOP_EXITED,
	STOP_DURATION,
	STOP_INTERRUPTED,
	STOP_COLLECTOR_FAILED,
	STOP_REQUESTED /* SIGUSR1: end as the duration would */
};

enum source_status { SOURCE_STARTING, SOURCE_OK, SOURCE_UNAVAILABLE, SOURCE_FAILED };

struct source_run {
	struct source_config *sc; /* its probe may settle host-dependent settings */
	enum source_status status;
	pid_t pid;     /* the sampler process, 0 once reaped */
	int sock;      /* to the sampler, -1 once closed */
	bool sampling; /* started, final row not yet reported */
	char file[64]; /* "" when the source wrote no file */
	int64_t rows;
	uint64_t missed_ticks;
	char error[512];
	int err; /* errno of the failure, 0 if none */
	json_t *details; /* what the source said, for its manifest entry (its "warnings"
			    go to the episode's) */
	size_t warned;   /* details' warnings already in the episode's */
	int64_t cpu_ns;  /* CPU time its sampler used; -1 until it is reaped */
};

struct episode {
	const struct config *cfg;
	char *dir; /* <output_dir>/<name> */
	int dirfd;
	int manifest_spare; /* the next manifest's file, its space taken in advance; -1 */
	enum episode_status status;
	json_t *host;
	json_t *warnings; /* strings */
	json_t *cgroup;   /* the episode's cgroups, for the manifest (borrowed) */
	int64_t origin_ns; /* CLOCK_MONOTONIC when the target was released; 0 before */
	int64_t end_ns;
	int64_t wall_start_ns, wall_end_ns;
	struct {
		pid_t pid;
		bool exited;  /* its status below is known */
		int code;     /* CLD_EXITED, CLD_KILLED or CLD_DUMPED */
		int status;   /* exit status or signal */
		int exec_errno;
		int64_t end_ns;
		enum stop_reason stop_reason;
		int leftovers; /* processes of its tree alive when it exited */
		bool has_usage;      /* usage is the whole tree's, as its keeper reaped it */
		struct rusage usage;
	} target;
	struct source_run *src;
	size_t nsrc;
};

/* Creates <output_dir>/<name> (and output_dir's missing parents). An existing
 * directory is never touched: -EEXIST. */
int episode_create_dir(struct episode *ep, struct errbuf *e);
/* Creates a file in the episode directory; an existing one is an error. */
int episode_create_file(const struct episode *ep, const char *name, struct errbuf *e);
/* episode.yaml: the config file exactly as given. */
int episode_write_config(const struct episode *ep, struct errbuf *e);
/* manifest.json, replaced atomically (write, fsync, rename, fsync dir).
 * While the episode runs, the space for the next one is taken in advance,
 * so a disk that fills up still gets the manifest that says so. */
int episode_write_manifest(struct episode *ep, const json_t *manifest, struct errbuf *e);
/* Gives back the space held for a manifest that will not be written. */
void episode_close(struct episode *ep);

/* A warning for the manifest's list. */
void episode_warn(struct episode *ep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The words the manifest uses: "complete", "unavailable", ... */
const char *episode_status_name(enum episode_status s);

/* For the keeper, once iopsample died mid-episode (a SIGKILL) and the tree
 * and the episode's cgroups are gone: the manifest in dirfd, if it still
 * says running, becomes "killed", with t_wall_end_ns and a warning saying
 * what the keeper did. 0, or a negative errno (the manifest left as it
 * was). */
int episode_mark_killed(int dirfd);
const char *source_status_name(enum source_status s);

#endif
