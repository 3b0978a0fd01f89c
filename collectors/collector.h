/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The one interface every source implements.
 *
 * A source is a const struct collector_ops listed once in registry.c. The
 * engine (the config loader, the supervisor, the samplers) only ever goes
 * through this table: adding a source means one folder in collectors/ and
 * one line in the registry. What sources share (eBPF loading, block device
 * selection, log2 histograms) is in collectors/common/.
 *
 * Life of a source in an episode:
 *   parse_key  in the config loader (engine/config.c), for each key of
 *              sources.<name> that is not one of the keys every source
 *              takes (interval, required, available_in_deployment);
 *   probe      in the supervisor, before anything starts: can this host
 *              collect it at all (and, when it cannot, what the manifest
 *              should say, as open does). It may settle in sc->priv what
 *              the config left to the host (syscall_io's backend: auto):
 *              every process forked later (the target, the sampler) acts
 *              on that choice;
 *   prepare    in the supervisor, after every probe, once the episode's
 *              directory exists and before the target's first process
 *              does: change what the host must change for the episode,
 *              through host_settings.h, which puts it back however the episode
 *              ends (taskstats switches on kernel.task_delayacct). What it
 *              settles in sc->priv reaches the sampler, forked later;
 *   open       in the source's own sampler process, on the target waiting at
 *              the start barrier: take the baseline and add the source's
 *              fields to the row (the same keys for the whole episode), and
 *              anything the manifest should say about how it opened (which
 *              perf events count) to an object that becomes part of the
 *              source's entry there, whether the open succeeded or not.
 *              The source may keep that object and add to it until close
 *              (it is sent again with the sampler's last word): strings
 *              in its array "warnings" go to the manifest's warnings,
 *              named by the source;
 *   before_exec  in the target itself, after the start barrier and right
 *              before exec, for a launched target and a source whose open
 *              succeeded: what must happen inside the target (a tracer's
 *              seccomp filter);
 *   begin      optional, once every sampler has opened and right before
 *              the target is released: take the baseline again, so that
 *              sources that see the same thing (block_io and diskstats)
 *              count from the same moment, whatever their opens took;
 *   sample     at every tick of origin + k * interval and once more at the
 *              end: set the fields to the change since the previous sample;
 *   watch      optional, with watched: a descriptor the sampler waits on
 *              beside its timer, registered once when sampling starts, and
 *              the poll(2) events to wait for; watched() is called when
 *              they come, before the tick that comes with them, before
 *              each drain row and the last sample for what came since the
 *              last wait, and once right after the registration, which
 *              polls the descriptor and may take a change made since the
 *              source last looked (mountinfo's poll takes the kernel's
 *              event). A source that reads a file again only when the
 *              kernel says it changed (net: mountinfo's POLLPRI, a mount
 *              come or gone) learns it without a system call a tick;
 *   finish     once, before that last sample: let go of the target (a
 *              tracer detaches) so the last row holds everything;
 *   in_flight  optional, after finish: whether I/O the tree started is
 *              still under way (a block request completes after its
 *              submitter exits). The sampler goes on taking rows on the
 *              grid, asking again every millisecond, until it says no or
 *              drain_ns(sc) has passed; then the last sample;
 *   close      release what open took;
 *   release    optional, wherever a source_config is freed (the supervisor
 *              at its end, `iopsample probe`): let go of what probe kept in
 *              sc->priv for the sampler. Every eBPF source's probe keeps
 *              the programs it loaded (common/ebpf/ebpf_preload.h), and the
 *              sampler, forked after it, takes them over (its copy is its
 *              own) rather than load and verify them a second time;
 *              "inherited" names their descriptors, which the sampler keeps
 *              at their numbers. */
#ifndef IOPSAMPLE_COLLECTOR_H
#define IOPSAMPLE_COLLECTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroupfs.h"
#include "config_yaml.h"
#include "log.h"

struct target_info {
	pid_t pid;    /* the workload: what target.command became, or target.pid;
			 0 at probe for a target not yet started */
	pid_t keeper; /* iopsample's subreaper holding the target's process tree;
			 0 when attached to a process iopsample did not start */
	pid_t observer; /* iopsample itself: never in the tree, nor what it
			   starts, though it runs below an attached process
			   (a harness attaching to itself); 0 at probe */
	const struct cgroup_set *cgroups; /* the episode's cgroups (some roles may be
					     missing, or all, with why), or NULL */
};

struct collector_ops;

/* One enabled source as the config resolved it. */
struct source_config {
	const struct collector_ops *ops;
	int64_t interval_ns;
	bool available_in_deployment;
	bool required;
	void *priv; /* ops->priv_size bytes of source-specific settings */
};

struct collector_ops {
	const char *name;
	bool available_in_deployment; /* default for the row tag */

	/* Source-specific keys: priv_size bytes, zeroed, then init() sets the
	 * defaults, parse_key() reads one key (returns -ENOENT for a key it does
	 * not know), describe() adds the resolved settings to a JSON object. Any
	 * of the three may be NULL when the source has no keys of its own. */
	size_t priv_size;
	void (*init)(void *priv);
	int (*parse_key)(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *value);
	void (*describe)(const void *priv, json_t *out);

	/* 0, or a negative errno with the reason; -EPERM/-EACCES mean the host
	 * forbids it (exit 77 when the source is required). t is what is known
	 * of the target before it runs. */
	int (*probe)(struct source_config *sc, const struct target_info *t, json_t *manifest,
		     struct errbuf *why);
	/* Optional: as probed, the source's sampler is the launched target's
	 * tracer, and the target is killed when it dies: its failure ends the
	 * episode as collector_failed whether or not it is required. */
	bool (*holds_target)(const struct source_config *sc);
	/* Optional: see "release" above. */
	void (*release)(struct source_config *sc);
	/* Optional, in the sampler before it closes what it inherited: the
	 * descriptors of what probe kept for it, at most max, into fds. */
	size_t (*inherited)(const struct source_config *sc, int *fds, size_t max);
	/* Optional. It cannot fail the episode: what it could not get, the
	 * source says in its rows and its manifest entry. */
	void (*prepare)(struct source_config *sc);

	int (*open)(const struct source_config *sc, const struct target_info *t, json_t *row,
		    json_t *manifest, void **state, struct errbuf *why);
	/* Optional. 0 or -errno; a failure keeps the target from running. */
	int (*before_exec)(const struct source_config *sc);
	void (*begin)(void *state); /* optional */
	int (*sample)(void *state, struct errbuf *why);
	/* Optional, the two together: see "watch" above; a descriptor < 0
	 * watches nothing. */
	int (*watch)(void *state, short *events);
	void (*watched)(void *state);
	void (*finish)(void *state); /* optional */
	/* Optional, the two together: true while some of what the tree
	 * started is in flight, with *left (for the manifest) saying what;
	 * and how long at most the last sample waits for it. */
	bool (*in_flight)(void *state, json_t **left);
	int64_t (*drain_ns)(const struct source_config *sc);
	void (*close)(void *state);
};

/* NULL-terminated, in the order sources appear in docs and manifests. */
extern const struct collector_ops *const collector_registry[];
const struct collector_ops *collector_find(const char *name);

#endif
