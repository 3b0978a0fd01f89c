// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* syscall_io: read/write syscalls of every thread and child of the target,
 * counted at their return, with sizes bucketed into log2 histograms.
 * Oracle-only: a deployed system is not traced.
 *
 * This file is the collector's face: its config keys, which backend counts
 * (sio_backend.h: ebpf or ptrace, `auto` settled by the probe), the row's
 * fields and the per-interval changes. The rows are the same whichever
 * backend ran. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "io_syscalls.h"
#include "sio_backend.h"

static const char *const choice_names[] = {[SIO_AUTO] = "auto", [SIO_EBPF] = "ebpf",
					   [SIO_PTRACE] = "ptrace"};

struct syscall_io {
	const struct sio_backend *backend;
	void *counter; /* the backend's state */
	json_t *manifest; /* the source's entry, for the backend's report */
	size_t n;
	struct sio_totals prev;
	json_t *calls[2], *bytes[2], *errors;
	json_t *meta_calls, *meta_errors;
	json_t *time[SIO_TIME_HISTS]; /* read_time_ns, write_time_ns, meta_time_ns */
	json_t *hist[2][SIO_HIST_BUCKETS];
	json_t *file_hist[2][SIO_HIST_BUCKETS]; /* regular files alone */
	json_t *time_hist[SIO_TIME_HISTS][SIO_HIST_BUCKETS];
	/* calls, bytes (NULL for a metadata call), errors, time_ns (NULL for
	 * aio and io_uring: requests, not calls) */
	json_t *by[SIO_MAX_SYSCALLS][4];
	bool meta[SIO_MAX_SYSCALLS]; /* a metadata syscall */
	json_t *by_kind[SIO_KINDS][2][2]; /* [kind][dir]: calls, bytes */
	json_t *pattern[SIO_PATTERNS];   /* the access pattern's, counted by both backends */
};

static const char *const pattern_names[SIO_PATTERNS] = {
	[SIO_CONSEC_READS] = "consec_reads",	   [SIO_SEQ_READS] = "seq_reads",
	[SIO_CONSEC_WRITES] = "consec_writes",	   [SIO_SEQ_WRITES] = "seq_writes",
	[SIO_RW_SWITCHES] = "rw_switches",	   [SIO_UNALIGNED_READS] = "unaligned_reads",
	[SIO_UNALIGNED_WRITES] = "unaligned_writes",
};

static const char *const kind_names[SIO_KINDS] = {
	[SIO_KIND_FILE] = "file",	  [SIO_KIND_BLOCKDEV] = "blockdev", [SIO_KIND_PIPE] = "pipe",
	[SIO_KIND_SOCKET] = "socket",	  [SIO_KIND_CHARDEV] = "chardev",   [SIO_KIND_OTHER] = "other",
	[SIO_KIND_UNKNOWN] = "unknown",
};

/* ---- config -------------------------------------------------------------- */

static void sio_init(void *priv)
{
	struct sio_config *cfg = priv;
	cfg->n = io_nsyscalls; /* every family */
	for (size_t i = 0; i < cfg->n; i++)
		cfg->sys[i] = &io_syscalls[i];
	cfg->backend = SIO_AUTO;
}

static int add_syscall(void *priv, struct cfg_ctx *c, const char *name, yaml_node_t *item)
{
	struct sio_config *cfg = priv;
	const struct io_syscall *sys = io_syscall_find(name);
	if (!sys) {
		const struct io_syscall *near = io_syscall_nearest(name);
		if (near)
			return cfg_fail(c, item, "unknown syscall \"%s\" (did you mean \"%s\"?)", name,
					near->name);
		return cfg_fail(c, item,
				"unknown syscall \"%s\" (syscall_io counts the read/write families and the "
				"metadata syscalls docs/data-model.md lists under syscall_io)",
				name);
	}
	for (size_t i = 0; i < cfg->n; i++)
		if (cfg->sys[i] == sys)
			return cfg_fail(c, item, "syscall \"%s\" is listed twice", name);
	cfg->sys[cfg->n++] = sys; /* io_nsyscalls <= SIO_MAX_SYSCALLS */
	return 0;
}

static int sio_parse_key(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *v)
{
	struct sio_config *cfg = priv;
	if (!strcmp(key, "syscalls")) {
		cfg->n = 0;
		return cfg_each_name(c, v, key, "syscall", add_syscall, cfg);
	}
	if (strcmp(key, "backend"))
		return -ENOENT;
	int i;
	int r = cfg_choice(c, v, "syscall_io backend", choice_names, sizeof(choice_names) / sizeof(choice_names[0]), &i);
	if (r == 0)
		cfg->backend = (enum sio_backend_choice)i;
	return r;
}

static void sio_describe(const void *priv, json_t *out)
{
	const struct sio_config *cfg = priv;
	json_t *names = json_array();
	for (size_t i = 0; i < cfg->n; i++)
		json_array_append_new(names, json_string(cfg->sys[i]->name));
	json_object_set_new(out, "syscalls", names);
	json_object_set_new(out, "backend", json_string(choice_names[cfg->backend]));
}

/* ---- choosing the backend ------------------------------------------------ */

/* The configured families backend b cannot see on this host, each with
 * why (their by_syscall entries are null in every row). */
static json_t *unseen_families(const struct sio_backend *b, const struct sio_config *cfg)
{
	json_t *unseen = json_object();
	for (size_t i = 0; i < cfg->n && b->unseen; i++) {
		const char *why_not = b->unseen(cfg->sys[i]);
		if (why_not)
			json_object_set_new(unseen, cfg->sys[i]->name, json_string(why_not));
	}
	return unseen;
}

/* Probes one backend; its facts ("works", "error", what it found, and
 * where it works the families it cannot see here) go into manifest under
 * its name. */
static int probe_one(const struct sio_backend *b, struct sio_config *cfg, json_t *manifest,
		     struct errbuf *why)
{
	json_t *facts = json_object();
	int r = b->probe(cfg, facts, why);
	json_object_set_new(facts, "works", json_boolean(r == 0));
	json_object_set_new(facts, "error", r == 0 ? json_null() : json_string(why->msg));
	if (r == 0)
		json_object_set_new(facts, "unseen", unseen_families(b, cfg));
	json_object_set_new(manifest, b->name, facts);
	return r;
}

/* Settles cfg->run before anything is forked. auto prefers ebpf, which
 * never stops the target, and says why when it takes ptrace; it probes both
 * so that `iopsample probe` reports each. An explicit backend is probed
 * alone and is what runs, or the source cannot run. */
static int sio_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
			struct errbuf *why)
{
	(void)t;
	struct sio_config *cfg = sc->priv;
	cfg->run = NULL;
	int r;
	if (cfg->backend == SIO_AUTO) {
		struct errbuf no_ebpf, no_ptrace;
		int e = probe_one(&sio_ebpf, cfg, manifest, &no_ebpf);
		int p = probe_one(&sio_ptrace, cfg, manifest, &no_ptrace);
		if (e == 0) {
			cfg->run = &sio_ebpf;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason),
				 "auto: the eBPF programs load here");
		} else if (p == 0) {
			cfg->run = &sio_ptrace;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "auto: ebpf unavailable: %s",
				 no_ebpf.msg);
		}
		r = cfg->run ? 0
			     : errbuf_set(why, -p, "no backend works here: ebpf: %s; ptrace: %s",
					  no_ebpf.msg, no_ptrace.msg);
	} else {
		const struct sio_backend *b = cfg->backend == SIO_EBPF ? &sio_ebpf : &sio_ptrace;
		if ((r = probe_one(b, cfg, manifest, why)) == 0) {
			cfg->run = b;
			snprintf(cfg->run_reason, sizeof(cfg->run_reason), "set in the config");
		} else {
			char detail[sizeof(why->msg)];
			snprintf(detail, sizeof(detail), "%s", why->msg);
			errbuf_set(why, -r, "backend %s: %s", b->name, detail);
		}
	}
	json_object_set_new(manifest, "backend", cfg->run ? json_string(cfg->run->name) : json_null());
	json_object_set_new(manifest, "backend_reason",
			    cfg->run ? json_string(cfg->run_reason) : json_null());
	return r;
}

/* What the probe loaded, for a sampler forked with a copy of its own, or
 * never. */
static void sio_release(struct source_config *sc)
{
	ebpf_preload_release(&((struct sio_config *)sc->priv)->preload);
}

static size_t sio_inherited(const struct source_config *sc, int *fds, size_t max)
{
	return ebpf_preload_fds(&((const struct sio_config *)sc->priv)->preload, fds, max);
}

static bool sio_holds_target(const struct source_config *sc)
{
	const struct sio_config *cfg = sc->priv;
	return cfg->run && cfg->run->holds_target;
}

static int sio_before_exec(const struct source_config *sc)
{
	const struct sio_config *cfg = sc->priv;
	return cfg->run->before_exec ? cfg->run->before_exec(cfg) : 0;
}

/* ---- rows ------------------------------------------------------------------ */

static json_t *zeros(json_t **cells, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, cells[i] = json_integer(0));
	return a;
}

static const char *const dir_name[SIO_TIME_HISTS] = {"read", "write", "meta"};

/* cell, a new zero, as obj's key; NULL (and a null) when !known */
static void cell(json_t *obj, const char *key, json_t **cell, bool known)
{
	json_object_set_new(obj, key, known ? *cell = json_integer(0) : json_null());
}

static void add_fields(struct syscall_io *s, const struct sio_config *cfg, json_t *row)
{
	char key[32];
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		snprintf(key, sizeof(key), "%s_calls", dir_name[d]);
		json_object_set_new(row, key, s->calls[d] = json_integer(0));
		snprintf(key, sizeof(key), "%s_bytes", dir_name[d]);
		json_object_set_new(row, key, s->bytes[d] = json_integer(0));
	}
	json_object_set_new(row, "error_calls", s->errors = json_integer(0));
	json_object_set_new(row, "meta_calls", s->meta_calls = json_integer(0));
	json_object_set_new(row, "meta_errors", s->meta_errors = json_integer(0));
	for (int d = 0; d < SIO_TIME_HISTS; d++) {
		snprintf(key, sizeof(key), "%s_time_ns", dir_name[d]);
		json_object_set_new(row, key, s->time[d] = json_integer(0));
	}
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		snprintf(key, sizeof(key), "%s_size_hist", dir_name[d]);
		json_object_set_new(row, key, zeros(s->hist[d], SIO_HIST_BUCKETS));
	}
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		snprintf(key, sizeof(key), "file_%s_size_hist", dir_name[d]);
		json_object_set_new(row, key, zeros(s->file_hist[d], SIO_HIST_BUCKETS));
	}
	for (int d = 0; d < SIO_TIME_HISTS; d++) {
		snprintf(key, sizeof(key), "%s_time_hist", dir_name[d]);
		json_object_set_new(row, key, zeros(s->time_hist[d], SIO_HIST_BUCKETS));
	}
	for (int p = 0; p < SIO_PATTERNS; p++)
		cell(row, pattern_names[p], &s->pattern[p], true);
	json_t *by = json_object();
	for (size_t i = 0; i < cfg->n; i++) {
		/* a family the backend cannot see here: the same keys, null */
		const struct io_syscall *sys = cfg->sys[i];
		bool seen = !s->backend->unseen || !s->backend->unseen(sys);
		s->meta[i] = sys->sides == SIO_SIDE_META;
		json_t *one = json_object();
		cell(one, "calls", &s->by[i][0], seen);
		if (!s->meta[i])
			cell(one, "bytes", &s->by[i][1], seen);
		cell(one, "errors", &s->by[i][2], seen);
		cell(one, "time_ns", &s->by[i][3], seen && sys->via == SIO_VIA_SYSCALL);
		json_object_set_new(by, sys->name, one);
	}
	json_object_set_new(row, "by_syscall", by);
	json_t *kinds = json_object();
	for (int k = 0; k < SIO_KINDS; k++) {
		json_t *one = json_object();
		for (int d = IO_READ; d <= IO_WRITE; d++) {
			snprintf(key, sizeof(key), "%s_calls", dir_name[d]);
			json_object_set_new(one, key, s->by_kind[k][d][0] = json_integer(0));
			snprintf(key, sizeof(key), "%s_bytes", dir_name[d]);
			json_object_set_new(one, key, s->by_kind[k][d][1] = json_integer(0));
		}
		json_object_set_new(kinds, kind_names[k], one);
	}
	json_object_set_new(row, "by_kind", kinds);
}

static void sio_close(void *state)
{
	struct syscall_io *s = state;
	if (!s)
		return;
	s->backend->close(s->counter);
	json_decref(s->manifest);
	free(s);
}

static void sio_finish(void *state)
{
	struct syscall_io *s = state;
	if (s->backend->finish)
		s->backend->finish(s->counter);
}

static int sio_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		    json_t *manifest, void **state, struct errbuf *why)
{
	const struct sio_config *cfg = sc->priv;
	json_object_set_new(manifest, "backend", json_string(cfg->run->name));
	json_object_set_new(manifest, "backend_reason", json_string(cfg->run_reason));
	struct syscall_io *s = calloc(1, sizeof(*s));
	if (!s)
		return errbuf_set(why, ENOMEM, "out of memory");
	s->backend = cfg->run;
	s->n = cfg->n;
	int r = s->backend->open(cfg, t, &s->counter, why);
	if (r == 0 && (r = s->backend->snapshot(s->counter, &s->prev, why)) < 0)
		s->backend->close(s->counter);
	if (r < 0) {
		free(s);
		return r;
	}
	add_fields(s, cfg, row); /* attached: counting starts at the snapshot above */
	json_t *unseen = unseen_families(s->backend, cfg);
	json_object_set_new(manifest, "unseen", unseen);
	s->manifest = json_incref(manifest);
	if (s->backend->report)
		s->backend->report(s->counter, manifest);
	*state = s;
	return 0;
}

static int sio_sample(void *state, struct errbuf *why)
{
	struct syscall_io *s = state;
	struct sio_totals now;
	int r = s->backend->snapshot(s->counter, &now, why);
	if (r < 0)
		return r;

	uint64_t errors = 0, meta_calls = 0, meta_errors = 0, meta_time = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t c = now.calls[i] - s->prev.calls[i], e = now.errors[i] - s->prev.errors[i];
		uint64_t t = now.time_ns[i] - s->prev.time_ns[i];
		if (s->meta[i]) {
			meta_calls += c, meta_errors += e, meta_time += t;
		} else {
			errors += e;
		}
		if (!s->by[i][0])
			continue; /* unseen: null */
		json_integer_set(s->by[i][0], (json_int_t)c);
		if (s->by[i][1])
			json_integer_set(s->by[i][1], (json_int_t)(now.bytes[i] - s->prev.bytes[i]));
		json_integer_set(s->by[i][2], (json_int_t)e);
		if (s->by[i][3])
			json_integer_set(s->by[i][3], (json_int_t)t);
	}
	json_integer_set(s->meta_calls, (json_int_t)meta_calls);
	json_integer_set(s->meta_errors, (json_int_t)meta_errors);
	json_integer_set(s->time[IO_META], (json_int_t)meta_time);
	for (int d = 0; d < SIO_TIME_HISTS; d++)
		for (int b = 0; b < SIO_HIST_BUCKETS; b++)
			json_integer_set(s->time_hist[d][b],
					 (json_int_t)(now.time_hist[d][b] - s->prev.time_hist[d][b]));
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		json_integer_set(s->calls[d],
				 (json_int_t)(sio_side_calls(&now, d) - sio_side_calls(&s->prev, d)));
		json_integer_set(s->bytes[d],
				 (json_int_t)(sio_side_bytes(&now, d) - sio_side_bytes(&s->prev, d)));
		json_integer_set(s->time[d], (json_int_t)(now.side_time_ns[d] - s->prev.side_time_ns[d]));
		for (int b = 0; b < SIO_HIST_BUCKETS; b++)
			json_integer_set(s->hist[d][b], (json_int_t)(now.hist[d][b] - s->prev.hist[d][b]));
		for (int b = 0; b < SIO_HIST_BUCKETS; b++)
			json_integer_set(s->file_hist[d][b],
					 (json_int_t)(now.file_hist[d][b] - s->prev.file_hist[d][b]));
		for (int k = 0; k < SIO_KINDS; k++) {
			json_integer_set(s->by_kind[k][d][0],
					 (json_int_t)(now.kind_calls[d][k] - s->prev.kind_calls[d][k]));
			json_integer_set(s->by_kind[k][d][1],
					 (json_int_t)(now.kind_bytes[d][k] - s->prev.kind_bytes[d][k]));
		}
	}
	json_integer_set(s->errors, (json_int_t)errors);
	for (int p = 0; p < SIO_PATTERNS; p++)
		json_integer_set(s->pattern[p], (json_int_t)(now.pattern[p] - s->prev.pattern[p]));
	s->prev = now;
	json_object_set_new(s->manifest, "untimed_calls", json_integer((json_int_t)now.untimed));
	if (s->backend->report)
		s->backend->report(s->counter, s->manifest);
	return 0;
}

const struct collector_ops syscall_io_ops = {
	.name = "syscall_io",
	.available_in_deployment = false,
	.priv_size = sizeof(struct sio_config),
	.init = sio_init,
	.parse_key = sio_parse_key,
	.describe = sio_describe,
	.probe = sio_probe,
	.holds_target = sio_holds_target,
	.release = sio_release,
	.inherited = sio_inherited,
	.open = sio_open,
	.before_exec = sio_before_exec,
	.sample = sio_sample,
	.finish = sio_finish,
	.close = sio_close,
};
