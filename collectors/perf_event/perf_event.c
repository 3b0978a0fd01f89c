// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* perf_event: hardware and software event counts of the target's whole tree,
 * per interval, scaled for multiplexing. Oracle-only: a deployed system's
 * counters are not the workload's alone.
 *
 * Names go through libpfm4 (perf_names.c); counters are opened on the target
 * while it waits at the start barrier, with enable_on_exec and inherit, so the
 * count starts at exec and follows every child. An event the host cannot
 * count keeps its field, null in every row, and the manifest says why. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collector.h"
#include "perf_counter.h"
#include "perf_names.h"
#include "procfs.h"

#define PE_MAX_EVENTS 32
#define PE_PFM_MAX 512

static const char *const default_events[] = {
	"cycles",	"instructions",	    "cache-references", "cache-misses",
	"branches",	"branch-misses",    "page-faults",	"context-switches",
};

/* Fields every row has besides one per event. */
static const char *const derived_fields[] = {"ipc", "cache_miss_rate", "running_pct"};

struct pe_event_config {
	char name[PERF_NAME_MAX];  /* as configured */
	char field[PERF_NAME_MAX]; /* its row field */
};

struct pe_config {
	size_t n;
	struct pe_event_config ev[PE_MAX_EVENTS];
};

/* ---- config -------------------------------------------------------------- */

static int set_event(struct pe_event_config *ev, const char *name)
{
	if (snprintf(ev->name, sizeof(ev->name), "%s", name) >= (int)sizeof(ev->name))
		return -ENAMETOOLONG;
	return perf_name_field(name, ev->field, sizeof(ev->field));
}

static void pe_init(void *priv)
{
	struct pe_config *cfg = priv;
	cfg->n = sizeof(default_events) / sizeof(default_events[0]);
	for (size_t i = 0; i < cfg->n; i++)
		set_event(&cfg->ev[i], default_events[i]);
}

static int add_event(void *priv, struct cfg_ctx *c, const char *name, yaml_node_t *item)
{
	struct pe_config *cfg = priv;
	if (cfg->n == PE_MAX_EVENTS)
		return cfg_fail(c, item, "at most %d perf events", PE_MAX_EVENTS);
	struct pe_event_config *ev = &cfg->ev[cfg->n];
	if (set_event(ev, name) < 0)
		return cfg_fail(c, item, "perf event name longer than %d bytes", PERF_NAME_MAX - 1);

	struct errbuf why;
	struct perf_event_attr attr;
	char pfm[PE_PFM_MAX];
	if (perf_name_encode(name, false, &attr, pfm, sizeof(pfm), &why) < 0)
		return cfg_fail(c, item, "unknown perf event \"%s\": %s (iopsample events lists what this host knows)",
				name, why.msg);
	for (size_t i = 0; i < sizeof(derived_fields) / sizeof(derived_fields[0]); i++)
		if (!strcmp(ev->field, derived_fields[i]))
			return cfg_fail(c, item, "perf event \"%s\" would be field %s, which perf_event derives itself",
					name, ev->field);
	for (size_t i = 0; i < cfg->n; i++)
		if (!strcmp(cfg->ev[i].field, ev->field))
			return cfg_fail(c, item, "perf events \"%s\" and \"%s\" would both be field %s",
					cfg->ev[i].name, name, ev->field);
	cfg->n++;
	return 0;
}

static int pe_parse_key(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *v)
{
	struct pe_config *cfg = priv;
	if (strcmp(key, "events"))
		return -ENOENT;
	cfg->n = 0;
	return cfg_each_name(c, v, key, "perf event", add_event, cfg);
}

static void pe_describe(const void *priv, json_t *out)
{
	const struct pe_config *cfg = priv;
	json_t *names = json_array();
	for (size_t i = 0; i < cfg->n; i++)
		json_array_append_new(names, json_string(cfg->ev[i].name));
	json_object_set_new(out, "events", names);
}

/* ---- opening --------------------------------------------------------------- */

/* A row field the sampler keeps; a value that is unknown in one interval
 * shows as null, without allocating: the field points at json_null() or at
 * the number we own. */
struct field {
	const char *key;
	json_t *num;
	bool shown;
};

/* A task counters are opened on (the launched target, or each thread of an
 * attached tree). Its software events form one group, read at once: they
 * are never short of a PMU, so grouping changes nothing but the cost. Each
 * hardware event is a counter of its own, multiplexed on its own, as perf
 * stat does. */
struct task {
	pid_t pid;
	int group; /* the software group's leader, -1 until one opens */
	size_t members;
	struct perf_group_reading now; /* this tick's reading */
};

struct counter {
	int fd;
	struct task *group; /* NULL: read on its own */
	size_t slot;        /* its place in the group's reading */
	struct perf_count prev;
};

struct event {
	const struct pe_event_config *cfg;
	struct perf_event_attr attr;
	char pfm[PE_PFM_MAX];
	bool counted, user_only;
	int err;          /* why the first open failed, 0 if it did not */
	char reason[512]; /* why it does not count, or not everything */
	size_t first, n; /* its counters */
	struct field f;
	double value; /* this interval, scaled */
	bool known;
	struct perf_count delta; /* this interval, summed over its counters */
};

enum { IN_CYCLES, IN_INSTRUCTIONS, IN_CACHE_REFS, IN_CACHE_MISSES, IN_N };

/* The derived ratios: each row's, and what the manifest tells a reader
 * that recomputes them from sums (iopsample export). */
static const struct {
	const char *field;
	int num, den;
} ratios[] = {
	{"ipc", IN_INSTRUCTIONS, IN_CYCLES},
	{"cache_miss_rate", IN_CACHE_MISSES, IN_CACHE_REFS},
};
#define NRATIOS (sizeof(ratios) / sizeof(ratios[0]))

struct perf_event {
	json_t *row;
	size_t nev;
	struct event ev[PE_MAX_EVENTS];
	struct counter *ctr;
	size_t nctr;
	struct task *task;
	size_t ntasks;
	struct event *input[IN_N]; /* the events ipc and cache_miss_rate come from */
	struct field ratio[NRATIOS], running_pct;
};

/* Every thread of the attached process's tree, as it is now. Threads and
 * processes created after their creator's counter opened inherit it; one
 * created in the instant between this listing and that open is missed
 * (listing again could not tell it from an inheriting one, and would count
 * that twice). */
static int tree_threads(pid_t root, pid_t skip, struct pid_list *tids)
{
	struct pid_list procs = {0};
	int r = pid_list_add(&procs, root);
	for (size_t i = 0; r == 0 && i < procs.n; i++) {
		if (procs.v[i] == skip)
			continue; /* iopsample, below the process it attached to */
		size_t before = tids->n;
		if ((r = procfs_threads(procs.v[i], tids)) == 0)
			r = procfs_children(procs.v[i], (long)(tids->n - before), &procs);
		if (r == -ENOENT || r == -ESRCH)
			r = 0; /* gone meanwhile */
	}
	pid_list_free(&procs);
	return r;
}

static int open_on(struct event *ev, const struct task *t, bool launched)
{
	ev->attr.inherit = 1;
	ev->attr.disabled = launched;
	ev->attr.enable_on_exec = launched;
	int group = PERF_NO_GROUP;
	if (ev->attr.type == PERF_TYPE_SOFTWARE)
		group = t->group >= 0 ? t->group : PERF_NEW_GROUP;
	return perf_counter_open(&ev->attr, t->pid, group);
}

/* The first open decides whether and how the event counts: refused kernel
 * counting, it retries for user space only (unless the name itself asks for
 * the kernel). An fd, or -errno with ev->reason set. */
static int open_first(struct event *ev, const struct task *task, bool launched, int paranoid)
{
	struct errbuf ignored;
	for (;;) {
		int fd = open_on(ev, task, launched);
		if (fd >= 0 || fd == -ESRCH)
			return fd;
		ev->err = -fd;
		enum perf_verdict v = perf_open_verdict(-fd, ev->attr.exclude_kernel, paranoid,
							ev->reason, sizeof(ev->reason));
		if (v != PERF_RETRY_USER_ONLY)
			return fd;
		if (perf_name_encode(ev->cfg->name, true, &ev->attr, ev->pfm, sizeof(ev->pfm),
				     &ignored) < 0 ||
		    !ev->attr.exclude_kernel)
			return fd; /* the name itself asks for the kernel */
		ev->user_only = true; /* the reason stays: why the kernel is not counted */
	}
}

/* Opens ev on each task. Returns how many counters opened (0, with
 * ev->reason, when the host cannot count the event), or -ESRCH when the
 * launched target is gone. */
static int open_event(struct perf_event *p, struct event *ev, bool launched, int paranoid)
{
	struct errbuf why;
	if (perf_name_encode(ev->cfg->name, false, &ev->attr, ev->pfm, sizeof(ev->pfm), &why) < 0) {
		ev->err = -EINVAL;
		snprintf(ev->reason, sizeof(ev->reason), "%s", why.msg);
		return 0;
	}
	ev->first = p->nctr;
	size_t refused = 0, alive = 0;
	int refusal = 0;
	for (size_t i = 0; i < p->ntasks; i++) {
		struct task *t = &p->task[i];
		bool first = ev->n == 0 && !refused;
		int fd = first ? open_first(ev, t, launched, paranoid) : open_on(ev, t, launched);
		if (fd == -ESRCH && launched)
			return fd;
		if (fd == -ESRCH)
			continue; /* a thread that ended since the listing */
		alive++;
		if (fd < 0 && first)
			return 0;
		if (fd < 0) { /* another user's process in the tree, say */
			refused++;
			refusal = refusal ? refusal : -fd;
			continue;
		}
		struct counter *c = &p->ctr[p->nctr++];
		*c = (struct counter){.fd = fd};
		if (ev->attr.type == PERF_TYPE_SOFTWARE) {
			if (t->group < 0)
				t->group = fd;
			c->group = t;
			c->slot = t->members++;
		}
		ev->n++;
	}
	ev->counted = ev->n > 0;
	if (refused)
		snprintf(ev->reason, sizeof(ev->reason),
			 "counted on %zu of the %zu threads in the target's tree; the others refused: %s",
			 ev->n, alive, strerror(refusal));
	return (int)ev->n;
}

static json_t *event_json(const struct event *ev)
{
	return json_pack("{s:s, s:s, s:s?, s:b, s:s?, s:s?}", "field", ev->cfg->field, "event",
			 ev->cfg->name, "pfm_event", *ev->pfm ? ev->pfm : NULL, "counted",
			 ev->counted, "scope",
			 !ev->counted ? NULL : ev->user_only ? "user" : "user+kernel", "reason",
			 *ev->reason ? ev->reason : NULL);
}

static void add_field(json_t *row, struct field *f, const char *key, json_t *num)
{
	f->key = key;
	f->num = num;
	f->shown = false;
	json_object_set_new(row, key, json_null());
}

static void show(json_t *row, struct field *f, bool known)
{
	if (known != f->shown)
		json_object_set(row, f->key, known ? f->num : json_null());
	f->shown = known;
}

/* Which configured events feed the derived fields: perf's generic hardware
 * events, however they were named (cycles, cpu-cycles, perf::CYCLES, ...). */
static void find_inputs(struct perf_event *p)
{
	static const uint64_t config[IN_N] = {
		[IN_CYCLES] = PERF_COUNT_HW_CPU_CYCLES,
		[IN_INSTRUCTIONS] = PERF_COUNT_HW_INSTRUCTIONS,
		[IN_CACHE_REFS] = PERF_COUNT_HW_CACHE_REFERENCES,
		[IN_CACHE_MISSES] = PERF_COUNT_HW_CACHE_MISSES,
	};
	for (size_t i = 0; i < p->nev; i++) {
		const struct perf_event_attr *a = &p->ev[i].attr;
		if (a->type != PERF_TYPE_HARDWARE)
			continue;
		for (int k = 0; k < IN_N; k++)
			if ((a->config & PERF_HW_EVENT_MASK) == config[k] && !p->input[k])
				p->input[k] = &p->ev[i];
	}
}

/* manifest.ratios: which fields each derived ratio divides; null for an
 * input that is not configured. */
static void ratios_json(const struct perf_event *p, json_t *manifest)
{
	json_t *out = json_object();
	for (size_t i = 0; i < NRATIOS; i++) {
		const struct event *num = p->input[ratios[i].num], *den = p->input[ratios[i].den];
		json_object_set_new(out, ratios[i].field,
				    json_pack("{s:s?, s:s?}", "numerator", num ? num->cfg->field : NULL,
					      "denominator", den ? den->cfg->field : NULL));
	}
	json_object_set_new(manifest, "ratios", out);
}

static void pe_close(void *state)
{
	struct perf_event *p = state;
	if (!p)
		return;
	for (size_t i = 0; i < p->nctr; i++)
		close(p->ctr[i].fd);
	for (size_t i = 0; i < p->nev; i++)
		json_decref(p->ev[i].f.num);
	for (size_t i = 0; i < NRATIOS; i++)
		json_decref(p->ratio[i].num);
	json_decref(p->running_pct.num);
	free(p->ctr);
	free(p->task);
	free(p);
}

/* One counter per event and task needs that many descriptors. */
static void allow_fds(size_t n)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < n + 64 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = n + 64 < rl.rlim_max ? n + 64 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* One read per task's software group: every member's value at once. */
static int read_groups(struct perf_event *p, struct errbuf *why)
{
	for (size_t i = 0; i < p->ntasks; i++) {
		struct task *t = &p->task[i];
		int r = t->group < 0 ? 0 : perf_group_read(t->group, &t->now);
		if (r < 0)
			return errbuf_set(why, -r, "reading the perf counters of %d: %s", (int)t->pid,
					  strerror(-r));
	}
	return 0;
}

static int read_counter(const struct counter *c, struct perf_count *now, struct errbuf *why)
{
	if (c->group) {
		*now = perf_group_count(&c->group->now, c->slot);
		return 0;
	}
	int r = perf_counter_read(c->fd, now);
	return r < 0 ? errbuf_set(why, -r, "reading a perf counter: %s", strerror(-r)) : 0;
}

/* Room for every event on every task; NULL when out of memory. */
static struct perf_event *pe_alloc(const struct pe_config *cfg, const pid_t *tasks, size_t ntasks)
{
	struct perf_event *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->ctr = calloc(cfg->n * ntasks, sizeof(*p->ctr));
	p->task = calloc(ntasks, sizeof(*p->task));
	if (!p->ctr || !p->task) {
		pe_close(p);
		return NULL;
	}
	for (size_t i = 0; i < ntasks; i++)
		p->task[i] = (struct task){.pid = tasks[i], .group = -1};
	p->ntasks = ntasks;
	allow_fds(cfg->n * ntasks);
	return p;
}

/* Opens every configured event on the tasks and lists them, counted or not,
 * in manifest.events. 0 when at least one counts; else -EACCES (refused) or
 * -EOPNOTSUPP (the host cannot), or -ESRCH (the launched target is gone). */
static int open_all(struct perf_event *p, const struct pe_config *cfg, bool launched,
		    json_t *manifest, struct errbuf *why)
{
	int paranoid = procfs_perf_event_paranoid();
	int r = 0;
	size_t counted = 0;
	json_t *events = json_array();
	for (size_t i = 0; i < cfg->n && r >= 0; i++) {
		struct event *ev = &p->ev[p->nev++];
		ev->cfg = &cfg->ev[i];
		r = open_event(p, ev, launched, paranoid);
		counted += ev->counted;
		json_array_append_new(events, event_json(ev));
	}
	json_object_set_new(manifest, "events", events);
	if (r < 0)
		return errbuf_set(why, -r, "the target (pid %d) is gone", (int)p->task[0].pid);
	if (counted > 0)
		return 0;
	const struct event *first = &p->ev[0];
	errbuf_set(why, 0, "none of the %zu configured perf events can be counted here (%s: %s)",
		   p->nev, first->cfg->name, first->reason);
	return first->err == EACCES || first->err == EPERM ? -EACCES : -EOPNOTSUPP;
}

static int pe_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		   json_t *manifest, void **state, struct errbuf *why)
{
	const struct pe_config *cfg = sc->priv;
	bool launched = t->keeper != 0;
	struct pid_list tasks = {0};
	int r = launched ? pid_list_add(&tasks, t->pid) : tree_threads(t->pid, t->observer, &tasks);
	if (r == 0 && tasks.n == 0)
		r = -ESRCH;
	if (r < 0) {
		pid_list_free(&tasks);
		return errbuf_set(why, -r, "listing the threads of pid %d: %s", (int)t->pid,
				  strerror(-r));
	}
	struct perf_event *p = pe_alloc(cfg, tasks.v, tasks.n);
	pid_list_free(&tasks);
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	r = open_all(p, cfg, launched, manifest, why);
	if (r < 0) {
		pe_close(p);
		return r;
	}

	for (size_t i = 0; i < p->nev; i++) {
		struct event *ev = &p->ev[i];
		add_field(row, &ev->f, ev->cfg->field, ev->counted ? json_integer(0) : NULL);
	}
	r = read_groups(p, why); /* attached: counting starts here */
	for (size_t c = 0; r == 0 && c < p->nctr; c++)
		r = read_counter(&p->ctr[c], &p->ctr[c].prev, why);
	if (r < 0) {
		pe_close(p);
		return r;
	}
	for (size_t i = 0; i < NRATIOS; i++)
		add_field(row, &p->ratio[i], ratios[i].field, json_real(0));
	add_field(row, &p->running_pct, "running_pct", json_real(0));
	find_inputs(p);
	ratios_json(p, manifest);
	p->row = row;
	*state = p;
	return 0;
}

/* ---- rows ------------------------------------------------------------------ */

static int read_event(struct perf_event *p, struct event *ev, struct errbuf *why)
{
	struct perf_count now;
	ev->value = 0;
	ev->known = ev->counted;
	ev->delta = (struct perf_count){0};
	for (size_t c = ev->first; c < ev->first + ev->n; c++) {
		int r = read_counter(&p->ctr[c], &now, why);
		if (r < 0)
			return r;
		struct perf_count d = perf_count_advance(&p->ctr[c].prev, &now);
		double v;
		if (perf_count_scale(&d, &v))
			ev->value += v;
		else
			ev->known = false;
		ev->delta.enabled += d.enabled;
		ev->delta.running += d.running;
	}
	if (ev->counted)
		json_integer_set(ev->f.num, (json_int_t)(ev->value + 0.5));
	show(p->row, &ev->f, ev->known);
	return 0;
}

/* a / b for two events' scaled values; false when either is unknown or b is 0. */
static bool ratio(const struct event *a, const struct event *b, double *out)
{
	if (!a || !b || !a->known || !b->known || b->value == 0)
		return false;
	*out = a->value / b->value;
	return true;
}

static int pe_sample(void *state, struct errbuf *why)
{
	struct perf_event *p = state;
	double min_share = 1;
	bool any = false;
	int r = read_groups(p, why);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->nev; i++) {
		struct event *ev = &p->ev[i];
		if ((r = read_event(p, ev, why)) < 0)
			return r;
		if (!ev->counted)
			continue;
		any = true;
		if (ev->delta.enabled > 0 && ev->delta.running < ev->delta.enabled) {
			double share = (double)ev->delta.running / (double)ev->delta.enabled;
			min_share = share < min_share ? share : min_share;
		}
	}
	double v;
	for (size_t i = 0; i < NRATIOS; i++) {
		bool known = ratio(p->input[ratios[i].num], p->input[ratios[i].den], &v);
		if (known)
			json_real_set(p->ratio[i].num, v);
		show(p->row, &p->ratio[i], known);
	}
	json_real_set(p->running_pct.num, 100 * min_share);
	show(p->row, &p->running_pct, any);
	return 0;
}

/* ---- probe ----------------------------------------------------------------- */

/* Can this host count any configured event at all? Tried on ourselves, the
 * same user as the target, exactly as open will: a host that forbids perf
 * events (perf_event_paranoid 3, a container's seccomp profile) or counts
 * none of them says so before anything runs, and why for each event, with
 * the PMUs libpfm4 found. */
static int pe_probe(struct source_config *sc, const struct target_info *t, json_t *manifest,
			struct errbuf *why)
{
	(void)t;
	const struct pe_config *cfg = sc->priv;
	pid_t self = 0;
	struct perf_event *p = pe_alloc(cfg, &self, 1);
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	int r = open_all(p, cfg, false, manifest, why);
	pe_close(p);
	struct perf_pmu pmus[64];
	size_t n = perf_names_pmus(pmus, sizeof(pmus) / sizeof(pmus[0]));
	json_t *names = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(names, json_string(pmus[i].name));
	json_object_set_new(manifest, "pmus", names);
	return r == -EACCES ? -EPERM : r;
}

const struct collector_ops perf_event_ops = {
	.name = "perf_event",
	.available_in_deployment = false,
	.priv_size = sizeof(struct pe_config),
	.init = pe_init,
	.parse_key = pe_parse_key,
	.describe = pe_describe,
	.probe = pe_probe,
	.open = pe_open,
	.sample = pe_sample,
	.close = pe_close,
};
