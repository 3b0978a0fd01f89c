/* syscall_io: read/write syscalls of every thread and child of the target,
 * counted at their return through ptrace (tracer.c), with sizes bucketed
 * into log2 histograms. Oracle-only: a deployed system is not traced.
 *
 * This file is the collector's face: its config key, the probe, the row's
 * fields and the per-interval changes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector.h"
#include "fdutil.h"
#include "io_syscalls.h"
#include "procfs.h"
#include "seccomp_filter.h"
#include "sio_counts.h"
#include "tracer.h"

#define DEFAULT_SYSCALLS 10 /* the first ten of io_syscalls[]: read ... pwritev2 */

struct sio_config {
	size_t n;
	const struct io_syscall *sys[SIO_MAX_SYSCALLS]; /* in the order given */
};

struct syscall_io {
	struct sio_counts counts;
	struct tracer tracer;
	struct sio_totals prev;
	json_t *calls[2], *bytes[2], *errors;
	json_t *hist[2][SIO_HIST_BUCKETS];
	json_t *by[SIO_MAX_SYSCALLS][3]; /* calls, bytes, errors */
};

/* ---- config -------------------------------------------------------------- */

static void sio_init(void *priv)
{
	struct sio_config *cfg = priv;
	cfg->n = DEFAULT_SYSCALLS;
	for (size_t i = 0; i < cfg->n; i++)
		cfg->sys[i] = &io_syscalls[i];
}

static int add_syscall(void *priv, struct cfg_ctx *c, const char *name, yaml_node_t *item)
{
	struct sio_config *cfg = priv;
	const struct io_syscall *sys = io_syscall_find(name);
	if (!sys) {
		char known[512];
		io_syscall_names(known, sizeof(known));
		return cfg_fail(c, item, "unknown syscall \"%s\" (syscall_io counts %s)", name, known);
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
	if (strcmp(key, "syscalls"))
		return -ENOENT;
	cfg->n = 0;
	return cfg_each_name(c, v, key, "syscall", add_syscall, cfg);
}

static void sio_describe(const void *priv, json_t *out)
{
	const struct sio_config *cfg = priv;
	json_t *names = json_array();
	for (size_t i = 0; i < cfg->n; i++)
		json_array_append_new(names, json_string(cfg->sys[i]->name));
	json_object_set_new(out, "syscalls", names);
}

/* ---- probe ---------------------------------------------------------------- */

/* Yama's kernel.yama.ptrace_scope, or -1 without Yama. */
static int yama_scope(void)
{
	char buf[16];
	if (procfs_read("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) <= 0)
		return -1;
	return (int)strtol(buf, NULL, 10);
}

/* The probe's child: once seized, it installs a filter that traces read()
 * and calls it. Exits with the errno that stopped it. */
static void __attribute__((noreturn)) probe_child(pid_t parent, int go)
{
	struct sock_filter insns[SECCOMP_FILTER_MAX_INSNS];
	int nr = io_syscall_find("read")->nr;
	char c;
	if (!die_with_parent(SIGKILL, parent) || read(go, &c, 1) != 1)
		_exit(ECHILD);
	int n = seccomp_filter_build(&nr, 1, SECCOMP_RET_TRACE, TRACER_SECCOMP_DATA, insns);
	if (n < 0 || (n = seccomp_filter_install(insns, (size_t)n)) < 0)
		_exit(-n);
	if (read(go, &c, 1) < 0) /* the tracer sees this one first */
		_exit(errno);
	_exit(ENOSYS); /* the filter let it through untraced */
}

/* Waits for the child's seccomp stop; 0, or -errno with the reason. */
static int probe_stop(pid_t child, struct errbuf *why)
{
	int status;
	for (;;) {
		if (waitpid(child, &status, __WALL) != child)
			return errbuf_set(why, errno, "ptrace: waitpid: %s", strerror(errno));
		if (WIFEXITED(status)) {
			int err = WEXITSTATUS(status);
			return errbuf_set(why, err, "seccomp filters with SECCOMP_RET_TRACE: %s",
					  strerror(err));
		}
		if (WIFSIGNALED(status))
			return errbuf_set(why, EINTR, "the probe's child died of signal %d",
					  WTERMSIG(status));
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8)))
			return 0;
		ptrace(PTRACE_CONT, child, 0L, (long)WSTOPSIG(status));
	}
}

/* Does on a child of our own what the collector does to a launched target:
 * seize it, let it install the seccomp filter, see its filtered read() stop
 * and read that stop with PTRACE_GET_SYSCALL_INFO. A host that forbids
 * ptrace (a container's seccomp profile, Yama's ptrace_scope 3), refuses
 * seccomp filters, or lacks PTRACE_GET_SYSCALL_INFO (Linux < 5.3) says so
 * here, before anything runs; manifest.ptrace says how far it got. */
static int sio_probe(const struct source_config *sc, json_t *manifest, struct errbuf *why)
{
	(void)sc;
	int scope = yama_scope();
	json_t *facts = json_pack("{s:b, s:o, s:n, s:n}", "permitted", 0, "yama_ptrace_scope",
				  scope < 0 ? json_null() : json_integer(scope), "seccomp_filter",
				  "get_syscall_info");
	json_object_set_new(manifest, "ptrace", facts);
	int go[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return errbuf_set(why, errno, "pipe: %s", strerror(errno));
	pid_t parent = getpid();
	pid_t child = fork();
	if (child < 0) {
		int err = errno;
		close(go[0]);
		close(go[1]);
		return errbuf_set(why, err, "fork: %s", strerror(err));
	}
	if (child == 0) {
		close(go[1]);
		probe_child(parent, go[0]);
	}
	close(go[0]);
	int r;
	struct __ptrace_syscall_info info;
	if (ptrace(PTRACE_SEIZE, child, 0L, (long)(PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)) < 0) {
		r = errbuf_set(why, errno, "ptrace is not permitted here: %s", strerror(errno));
	} else {
		json_object_set_new(facts, "permitted", json_true());
		r = write(go[1], "x", 1) == 1 ? probe_stop(child, why)
					      : errbuf_set(why, errno, "pipe: %s", strerror(errno));
		json_object_set_new(facts, "seccomp_filter", json_boolean(r == 0));
		if (r == 0) {
			long n = ptrace(PTRACE_GET_SYSCALL_INFO, child, sizeof(info), &info);
			if (n < 0)
				r = errbuf_set(why, errno, "PTRACE_GET_SYSCALL_INFO (Linux 5.3): %s",
					       strerror(errno));
			else if (info.op != PTRACE_SYSCALL_INFO_SECCOMP)
				r = errbuf_set(why, ENOTSUP,
					       "PTRACE_GET_SYSCALL_INFO does not report seccomp stops");
			json_object_set_new(facts, "get_syscall_info", json_boolean(r == 0));
		}
	}
	close(go[1]);
	kill(child, SIGKILL);
	waitpid(child, NULL, __WALL);
	return r;
}

/* ---- in the target, before exec -------------------------------------------- */

static int sio_before_exec(const struct source_config *sc)
{
	const struct sio_config *cfg = sc->priv;
	int nrs[SIO_MAX_SYSCALLS];
	struct sock_filter insns[SECCOMP_FILTER_MAX_INSNS];
	for (size_t i = 0; i < cfg->n; i++)
		nrs[i] = cfg->sys[i]->nr;
	int n = seccomp_filter_build(nrs, cfg->n, SECCOMP_RET_TRACE, TRACER_SECCOMP_DATA, insns);
	return n < 0 ? n : seccomp_filter_install(insns, (size_t)n);
}

/* ---- rows ------------------------------------------------------------------ */

static json_t *zeros(json_t **cells, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, cells[i] = json_integer(0));
	return a;
}

static void add_fields(struct syscall_io *s, const struct sio_config *cfg, json_t *row)
{
	static const char *const dir_name[2] = {"read", "write"};
	char key[32];
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		snprintf(key, sizeof(key), "%s_calls", dir_name[d]);
		json_object_set_new(row, key, s->calls[d] = json_integer(0));
		snprintf(key, sizeof(key), "%s_bytes", dir_name[d]);
		json_object_set_new(row, key, s->bytes[d] = json_integer(0));
	}
	json_object_set_new(row, "error_calls", s->errors = json_integer(0));
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		snprintf(key, sizeof(key), "%s_size_hist", dir_name[d]);
		json_object_set_new(row, key, zeros(s->hist[d], SIO_HIST_BUCKETS));
	}
	json_t *by = json_object();
	for (size_t i = 0; i < cfg->n; i++) {
		json_t *one = json_object();
		json_object_set_new(one, "calls", s->by[i][0] = json_integer(0));
		json_object_set_new(one, "bytes", s->by[i][1] = json_integer(0));
		json_object_set_new(one, "errors", s->by[i][2] = json_integer(0));
		json_object_set_new(by, cfg->sys[i]->name, one);
	}
	json_object_set_new(row, "by_syscall", by);
}

static void sio_close(void *state)
{
	struct syscall_io *s = state;
	if (!s)
		return;
	tracer_stop(&s->tracer);
	free(s);
}

static void sio_finish(void *state)
{
	tracer_stop(&((struct syscall_io *)state)->tracer);
}

static int sio_open(const struct source_config *sc, const struct target_info *t, json_t *row,
		    json_t *manifest, void **state, struct errbuf *why)
{
	(void)manifest;
	const struct sio_config *cfg = sc->priv;
	struct syscall_io *s = calloc(1, sizeof(*s));
	if (!s)
		return errbuf_set(why, ENOMEM, "out of memory");
	s->counts.n = cfg->n;
	s->tracer.target = t->pid;
	s->tracer.attach = t->keeper == 0;
	s->tracer.counts = &s->counts;
	memset(s->tracer.index_of_nr, -1, sizeof(s->tracer.index_of_nr));
	for (size_t i = 0; i < cfg->n; i++) {
		s->counts.dir[i] = cfg->sys[i]->dir;
		if (cfg->sys[i]->nr < TRACER_MAX_NR)
			s->tracer.index_of_nr[cfg->sys[i]->nr] = (int8_t)i;
	}

	int r = 0;
	if (!s->tracer.attach && (r = seccomp_filter_available(SECCOMP_RET_TRACE)) < 0)
		errbuf_set(why, -r, "seccomp filters with SECCOMP_RET_TRACE: %s", strerror(-r));
	if (r == 0)
		r = tracer_start(&s->tracer, why);
	if (r < 0) {
		free(s);
		return r;
	}
	add_fields(s, cfg, row);
	sio_snapshot(&s->counts, &s->prev); /* attached: counting starts here */
	*state = s;
	return 0;
}

static int sio_sample(void *state, struct errbuf *why)
{
	struct syscall_io *s = state;
	int r = tracer_failed(&s->tracer, why);
	if (r < 0)
		return r;

	struct sio_totals now;
	uint64_t calls[2] = {0}, bytes[2] = {0}, errors = 0;
	sio_snapshot(&s->counts, &now);
	for (size_t i = 0; i < s->counts.n; i++) {
		uint64_t c = now.calls[i] - s->prev.calls[i];
		uint64_t b = now.bytes[i] - s->prev.bytes[i];
		uint64_t e = now.errors[i] - s->prev.errors[i];
		calls[s->counts.dir[i]] += c;
		bytes[s->counts.dir[i]] += b;
		errors += e;
		json_integer_set(s->by[i][0], (json_int_t)c);
		json_integer_set(s->by[i][1], (json_int_t)b);
		json_integer_set(s->by[i][2], (json_int_t)e);
	}
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		json_integer_set(s->calls[d], (json_int_t)calls[d]);
		json_integer_set(s->bytes[d], (json_int_t)bytes[d]);
		for (int b = 0; b < SIO_HIST_BUCKETS; b++)
			json_integer_set(s->hist[d][b], (json_int_t)(now.hist[d][b] - s->prev.hist[d][b]));
	}
	json_integer_set(s->errors, (json_int_t)errors);
	s->prev = now;
	return 0;
}

const struct collector_ops syscall_io_ops = {
	.name = "syscall_io",
	.available_in_deployment = false,
	.flags = COLLECTOR_HOLDS_TARGET,
	.priv_size = sizeof(struct sio_config),
	.init = sio_init,
	.parse_key = sio_parse_key,
	.describe = sio_describe,
	.probe = sio_probe,
	.open = sio_open,
	.before_exec = sio_before_exec,
	.sample = sio_sample,
	.finish = sio_finish,
	.close = sio_close,
};
