/* One episode's state, what its directory holds, and the manifest that
 * reports it. The supervisor fills struct episode; this file turns it into
 * files and never decides anything. */
#ifndef IOPSAMPLE_EPISODE_H
#define IOPSAMPLE_EPISODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "config.h"
#include "log.h"

#define IOPSAMPLE_VERSION "0.1.0"

enum episode_status { EPISODE_RUNNING, EPISODE_COMPLETE, EPISODE_INTERRUPTED, EPISODE_FAILED };

enum stop_reason {
	STOP_NONE,
	STOP_EXITED,
	STOP_DURATION,
	STOP_INTERRUPTED,
	STOP_COLLECTOR_FAILED
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
int episode_write_manifest(struct episode *ep, struct errbuf *e);
/* Gives back the space held for a manifest that will not be written. */
void episode_close(struct episode *ep);

json_t *manifest_json(const struct episode *ep);
/* Reads dirfd's manifest.json back (summary, validate, export), whole
 * before parsing: jansson's json_loadfd reads a byte per read(2). 0;
 * -errno when it cannot be opened or read; -EINVAL when it is not JSON,
 * with je saying where. */
int manifest_read(int dirfd, size_t flags, json_t **out, json_error_t *je);
struct jschema_set;
/* For the commands that read episodes (export, report, schema): opens the
 * episode directory dir (*dirfd) and reads its manifest (manifest_read),
 * checked against the manifest's schema. 0, or a sysexits code after one
 * line on stderr naming what is wrong, with *dirfd closed (-1): 66 when dir
 * cannot be opened or has no manifest to read (not an episode), 65 when
 * the manifest is not JSON or not what the schema says. */
int manifest_load(const char *dir, const struct jschema_set *schemas, int *dirfd, json_t **out);
/* Its status is running (iopsample was killed) or failed: the episode's
 * files may end inside a row. */
bool manifest_incomplete(const json_t *m);
/* The words the manifest uses: "complete", "unavailable", ... */
const char *episode_status_name(enum episode_status s);
const char *source_status_name(enum source_status s);

#endif
