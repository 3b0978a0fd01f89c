// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The episode config: each rule of CONTRACT §3 with the position it reports. */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "testing.h"

#define MINIMAL "episode: {name: ok}\ntarget: {command: [true]}\n"

static char dir[64];
static struct config cfg;
static struct errbuf err;

static void remove_tmpdir(void)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/file", dir);
	unlink(path);
	rmdir(dir);
}

static const char *tmpdir(void)
{
	if (!*dir) {
		atexit(remove_tmpdir);
		snprintf(dir, sizeof(dir), "/tmp/iopsample-config-XXXXXX");
		if (!mkdtemp(dir))
			FAILF("mkdtemp failed");
		char sub[128];
		snprintf(sub, sizeof(sub), "%s/sub", dir);
		mkdir(sub, 0755);
		snprintf(sub, sizeof(sub), "%s/file", dir);
		fclose(fopen(sub, "w"));
	}
	return dir;
}

static int load_with(const char *yaml, const struct config_args *a)
{
	memset(&err, 0, sizeof(err));
	return config_load_buffer("t.yaml", yaml, strlen(yaml), tmpdir(), a, &cfg, &err);
}

static void ok_with(const char *yaml, const struct config_args *a)
{
	if (load_with(yaml, a) != 0)
		FAILF("rejected: %s", err.msg);
}

static void ok(const char *yaml)
{
	ok_with(yaml, NULL);
}

/* Fails unless the config is rejected with exactly this position and a
 * message holding what. */
static void bad_with(const char *yaml, const struct config_args *a, const char *where,
		     const char *what)
{
	if (load_with(yaml, a) == 0) {
		config_free(&cfg);
		FAILF("accepted, expected %s %s", where, what);
	}
	char prefix[128];
	snprintf(prefix, sizeof(prefix), "%s: ", where);
	if (strncmp(err.msg, prefix, strlen(prefix)) || !strstr(err.msg, what))
		FAILF("message \"%s\", expected \"%s...%s\"", err.msg, prefix, what);
	if (strchr(err.msg, '\n'))
		FAILF("message spans lines: \"%s\"", err.msg);
}

static void bad(const char *yaml, const char *where, const char *what)
{
	bad_with(yaml, NULL, where, what);
}

TEST(minimal_config_gets_the_defaults)
{
	ok(MINIMAL "sources: {proc_io: }\n");
	char expect[256];
	snprintf(expect, sizeof(expect), "%s/episodes", dir);
	EXPECT_STR(cfg.episode.name, "ok");
	EXPECT_STR(cfg.episode.output_dir, expect);
	EXPECT_EQ(cfg.episode.duration_ns, 0);
	EXPECT_EQ(cfg.episode.stop_signal, SIGTERM);
	EXPECT_EQ(cfg.episode.grace_ns, 5 * NS_PER_S);
	EXPECT_STR(cfg.target.argv[0], "true");
	EXPECT(cfg.target.argv[1] == NULL);
	EXPECT_STR(cfg.target.cwd, dir);
	EXPECT_EQ(cfg.target.stdout_mode, OUT_FILE);
	EXPECT_EQ(cfg.target.stderr_mode, OUT_FILE);
	EXPECT_EQ(cfg.nsources, 1);
	EXPECT_STR(cfg.sources[0].ops->name, "proc_io");
	EXPECT_EQ(cfg.sources[0].interval_ns, 100 * NS_PER_MS);
	EXPECT(cfg.sources[0].required);
	EXPECT(cfg.sources[0].available_in_deployment);
	EXPECT_EQ(cfg.output.compression, COMPRESSION_NONE);
	EXPECT_EQ(cfg.output.zstd_level, 3);
	config_free(&cfg);
}

TEST(every_key_of_the_contract)
{
	ok("episode:\n"
	   "  name: randread-4k\n"
	   "  output_dir: out\n"
	   "  duration: 60s\n"
	   "  stop_signal: SIGINT\n"
	   "  grace: 1.5s\n"
	   "  labels: {dataset: v1, run: 3}\n"
	   "target:\n"
	   "  command: [./bench, --size, 4k]\n"
	   "  cwd: sub\n"
	   "  env: {OMP_NUM_THREADS: \"1\"}\n"
	   "  stdout: inherit\n"
	   "  stderr: \"null\"\n"
	   "sources:\n"
	   "  proc_io:\n"
	   "    interval: 10ms\n"
	   "    available_in_deployment: false\n"
	   "    required: false\n"
	   "output:\n"
	   "  compression: zstd\n"
	   "  zstd_level: 9\n");
	char expect[256];
	snprintf(expect, sizeof(expect), "%s/out", dir);
	EXPECT_STR(cfg.episode.output_dir, expect);
	snprintf(expect, sizeof(expect), "%s/sub", dir);
	EXPECT_STR(cfg.target.cwd, expect);
	EXPECT_EQ(cfg.episode.duration_ns, 60 * NS_PER_S);
	EXPECT_EQ(cfg.episode.stop_signal, SIGINT);
	EXPECT_EQ(cfg.episode.grace_ns, 1500 * NS_PER_MS);
	EXPECT_EQ(cfg.episode.labels.n, 2);
	EXPECT_STR(cfg.episode.labels.items[1].key, "run");
	EXPECT_STR(cfg.episode.labels.items[1].value, "3");
	EXPECT_STR(cfg.target.argv[2], "4k");
	EXPECT_STR(cfg.target.env.items[0].value, "1");
	EXPECT_EQ(cfg.target.stdout_mode, OUT_INHERIT);
	EXPECT_EQ(cfg.target.stderr_mode, OUT_NULL);
	EXPECT_EQ(cfg.sources[0].interval_ns, 10 * NS_PER_MS);
	EXPECT(!cfg.sources[0].available_in_deployment);
	EXPECT(!cfg.sources[0].required);
	EXPECT_EQ(cfg.output.compression, COMPRESSION_ZSTD);
	EXPECT_EQ(cfg.output.zstd_level, 9);
	config_free(&cfg);
}

TEST(a_string_command_runs_under_sh)
{
	ok("episode: {name: s}\ntarget: {command: 'echo hi | wc -c'}\n");
	EXPECT_STR(cfg.target.argv[0], "/bin/sh");
	EXPECT_STR(cfg.target.argv[1], "-c");
	EXPECT_STR(cfg.target.argv[2], "echo hi | wc -c");
	EXPECT(cfg.target.shell);
	config_free(&cfg);
}

TEST(name_is_required_and_checked)
{
	bad("episode: {output_dir: x}\ntarget: {command: [true]}\n", "t.yaml:1:10",
	    "episode.name is required");
	bad("target: {command: [true]}\n", "t.yaml:1:1", "missing episode");
	bad("episode: {name: a/b}\ntarget: {command: [true]}\n", "t.yaml:1:17", "invalid episode name");
	bad("episode: {name: ..}\ntarget: {command: [true]}\n", "t.yaml:1:17", "invalid episode name");
	bad("episode: {name: .}\ntarget: {command: [true]}\n", "t.yaml:1:17", "invalid episode name");
	bad("episode: {name: 'a b'}\ntarget: {command: [true]}\n", "t.yaml:1:17", "invalid episode name");
	bad("episode: {name: ''}\ntarget: {command: [true]}\n", "t.yaml:1:17", "invalid episode name");
	bad("episode: {name: ~}\ntarget: {command: [true]}\n", "t.yaml:1:17", "expected a string, got null");

	char yaml[512];
	char long_name[200];
	memset(long_name, 'a', 129);
	long_name[129] = '\0';
	snprintf(yaml, sizeof(yaml), "episode: {name: %s}\ntarget: {command: [true]}\n", long_name);
	bad(yaml, "t.yaml:1:17", "invalid episode name");
	long_name[128] = '\0';
	snprintf(yaml, sizeof(yaml), "episode: {name: %s}\ntarget: {command: [true]}\n", long_name);
	ok(yaml);
	config_free(&cfg);
	ok("episode: {name: A.z_9-x}\ntarget: {command: [true]}\n");
	config_free(&cfg);
}

TEST(unknown_keys_are_positioned_at_the_key)
{
	bad(MINIMAL "extra: 1\n", "t.yaml:3:1", "unknown key \"extra\"");
	bad("episode:\n  name: x\n  nmae: y\ntarget: {command: [true]}\n", "t.yaml:3:3",
	    "unknown key \"nmae\" in episode");
	bad("episode: {name: x}\ntarget: {command: [true], cmd: x}\n", "t.yaml:2:27",
	    "unknown key \"cmd\" in target");
	bad(MINIMAL "sources:\n  proc_io:\n    intervl: 1s\n", "t.yaml:5:5",
	    "unknown key \"intervl\" in sources.proc_io");
	bad(MINIMAL "output: {level: 3}\n", "t.yaml:3:10", "unknown key \"level\" in output");
	bad(MINIMAL "sources:\n  proc_oi: {}\n", "t.yaml:4:3", "unknown source \"proc_oi\" (known: proc_io, syscall_io, perf_event, block_io, diskstats, taskstats, cgroup, gpu, waits, offcpu, net)");
}

TEST(wrong_types_are_positioned_at_the_value)
{
	bad("episode: [name]\ntarget: {command: [true]}\n", "t.yaml:1:10", "episode must be a mapping, got a list");
	bad(MINIMAL "sources: [proc_io]\n", "t.yaml:3:10", "sources must be a mapping");
	bad(MINIMAL "sources: {proc_io: 5}\n", "t.yaml:3:20", "sources.proc_io must be a mapping");
	bad(MINIMAL "sources: {proc_io: {required: yes}}\n", "t.yaml:3:31", "expected true or false");
	bad(MINIMAL "sources: {proc_io: {required: [true]}}\n", "t.yaml:3:31", "expected true or false, got a list");
	bad("episode: {name: x, labels: [a]}\ntarget: {command: [true]}\n", "t.yaml:1:28",
	    "episode.labels must be a mapping");
	bad("episode: {name: x, labels: {a: {b: c}}}\ntarget: {command: [true]}\n", "t.yaml:1:32",
	    "episode.labels.a must be a string");
	bad("episode: {name: x}\ntarget: {command: [true], stdout: pipe}\n", "t.yaml:2:35",
	    "expected file, inherit or null");
	bad(MINIMAL "output: {compression: gzip}\n", "t.yaml:3:23", "expected none or zstd");
	bad(MINIMAL "output: {zstd_level: 99}\n", "t.yaml:3:22", "out of range");
	bad(MINIMAL "output: {zstd_level: '3'}\n", "t.yaml:3:22", "expected an integer, got a quoted string");
	bad("episode: {name: x}\ntarget: {command: [true], env: {A=B: c}}\n", "t.yaml:2:33",
	    "cannot contain '='");
	bad("[1, 2]\n", "t.yaml:1:1", "must be a mapping");
	bad("just text\n", "t.yaml:1:1", "must be a mapping");
	bad(MINIMAL "? [a]\n: b\n", "t.yaml:3:3", "keys in the config must be strings");
}

TEST(output_null_as_yaml_writes_it)
{
	/* unquoted null and ~ are YAML's null: they mean null here too */
	ok("episode: {name: x}\ntarget: {command: [true], stdout: null, stderr: ~}\n");
	EXPECT_EQ(cfg.target.stdout_mode, OUT_NULL);
	EXPECT_EQ(cfg.target.stderr_mode, OUT_NULL);
	config_free(&cfg);
	ok("episode: {name: x}\ntarget: {command: [true], stdout: \"null\", stderr: NULL}\n");
	EXPECT_EQ(cfg.target.stdout_mode, OUT_NULL);
	EXPECT_EQ(cfg.target.stderr_mode, OUT_NULL);
	config_free(&cfg);
	bad("episode: {name: x}\ntarget:\n  command: [true]\n  stdout:\n", "t.yaml:4:10",
	    "expected a string, got null");
}

/* Where YAML's own types bite: each gets the meaning a user expects, or a
 * message that says how to write it. */
TEST(yaml_types_as_people_write_them)
{
	/* a bare number, yes or on where a string is wanted is that string */
	ok("episode: {name: 2024, labels: {run: 1, ok: yes, at: 1e3}}\n"
	   "target: {command: [true, 1, on], env: {N: 8, B: off}}\n");
	EXPECT_STR(cfg.episode.name, "2024");
	EXPECT_STR(cfg.episode.labels.items[0].value, "1");
	EXPECT_STR(cfg.episode.labels.items[1].value, "yes");
	EXPECT_STR(cfg.episode.labels.items[2].value, "1e3");
	EXPECT_STR(cfg.target.argv[2], "on");
	EXPECT_STR(cfg.target.env.items[1].value, "off");
	config_free(&cfg);
	/* YAML 1.1's booleans are not booleans here: say so */
	bad(MINIMAL "sources: {proc_io: {required: on}}\n", "t.yaml:3:31",
	    "got \"on\" (YAML 1.1's yes/no/on/off are not booleans in a YAML 1.2 config: write true or false)");
	bad(MINIMAL "sources: {proc_io: {required: no}}\n", "t.yaml:3:31", "write true or false");
	/* an integer written as a float: how to write it */
	bad(MINIMAL "output: {zstd_level: 1e1}\n", "t.yaml:3:22", "got \"1e1\" (write it in digits: 10)");
	bad(MINIMAL "output: {zstd_level: 3.5}\n", "t.yaml:3:22", "expected an integer, got \"3.5\"");
	/* a duration needs its unit */
	bad(MINIMAL "sources: {proc_io: {interval: 100}}\n", "t.yaml:3:31", "missing unit (ns, us, ms, s, m, h)");
	bad("episode: {name: x, duration: 1e3}\ntarget: {command: [true]}\n", "t.yaml:1:30", "invalid duration \"1e3\"");
}

TEST(durations_and_intervals)
{
	bad("episode: {name: x, duration: 5}\ntarget: {command: [true]}\n", "t.yaml:1:30", "missing unit");
	bad("episode: {name: x, duration: 5 s}\ntarget: {command: [true]}\n", "t.yaml:1:30", "unknown unit");
	bad("episode: {name: x, duration: 0s}\ntarget: {command: [true]}\n", "t.yaml:1:30", "out of range");
	bad("episode: {name: x, duration: -1s}\ntarget: {command: [true]}\n", "t.yaml:1:30", "invalid duration");
	bad("episode: {name: x, grace: soon}\ntarget: {command: [true]}\n", "t.yaml:1:27", "invalid duration");
	bad(MINIMAL "sources: {proc_io: {interval: 999us}}\n", "t.yaml:3:31", "out of range (1ms to 1h)");
	bad(MINIMAL "sources: {proc_io: {interval: 0ms}}\n", "t.yaml:3:31", "out of range (1ms to 1h)");
	bad(MINIMAL "sources: {proc_io: {interval: 61m}}\n", "t.yaml:3:31", "out of range (1ms to 1h)");
	bad(MINIMAL "sources: {proc_io: {interval: -5ms}}\n", "t.yaml:3:31", "invalid duration");
	bad(MINIMAL "sources: {proc_io: {interval: [1s]}}\n", "t.yaml:3:31", "expected a duration");
	ok(MINIMAL "sources: {proc_io: {interval: 1ms}}\n");
	config_free(&cfg);
	ok(MINIMAL "sources: {proc_io: {interval: 1h}}\n");
	config_free(&cfg);
	ok("episode: {name: x, grace: 0s, duration: ~}\ntarget: {command: [true]}\n");
	EXPECT_EQ(cfg.episode.grace_ns, 0);
	EXPECT_EQ(cfg.episode.duration_ns, 0);
	config_free(&cfg);
}

TEST(stop_signal)
{
	bad("episode: {name: x, stop_signal: SIGFOO}\ntarget: {command: [true]}\n", "t.yaml:1:33", "unknown signal");
	bad("episode: {name: x, stop_signal: SIGSTOP}\ntarget: {command: [true]}\n", "t.yaml:1:33", "does not stop a process");
	ok("episode: {name: x, stop_signal: KILL}\ntarget: {command: [true]}\n");
	EXPECT_EQ(cfg.episode.stop_signal, SIGKILL);
	config_free(&cfg);
}

TEST(command_xor_pid)
{
	char yaml[256];
	bad("episode: {name: x}\ntarget: {cwd: .}\n", "t.yaml:2:9", "target needs a command or a pid");
	snprintf(yaml, sizeof(yaml), "episode: {name: x}\ntarget: {command: [true], pid: %d}\n", (int)getpid());
	bad(yaml, "t.yaml:2:32", "both command and pid");
	bad("episode: {name: x}\n", "t.yaml:1:1", "missing target");
	bad("episode: {name: x}\ntarget: {command: []}\n", "t.yaml:2:19", "empty list");
	bad("episode: {name: x}\ntarget: {command: ''}\n", "t.yaml:2:19", "target.command is empty");
	bad("episode: {name: x}\ntarget: {command: [ls, {a: b}]}\n", "t.yaml:2:24", "target.command[1] must be a string");
	bad("episode: {name: x}\ntarget: {pid: 0}\n", "t.yaml:2:15", "out of range");
	bad("episode: {name: x}\ntarget: {pid: me}\n", "t.yaml:2:15", "expected an integer");
	snprintf(yaml, sizeof(yaml), "episode: {name: x}\ntarget: {pid: %d}\n", INT_MAX);
	bad(yaml, "t.yaml:2:15", "no process with pid");
	snprintf(yaml, sizeof(yaml), "episode: {name: x}\ntarget: {pid: %d}\n", (int)getppid());
	ok(yaml);
	EXPECT_EQ(cfg.target.pid, getppid());
	config_free(&cfg);
}

TEST(attach_only_takes_a_pid)
{
	char yaml[256];
	int n = snprintf(yaml, sizeof(yaml), "episode: {name: x}\ntarget: {pid: %d, cwd: .}\n", (int)getppid());
	(void)n;
	char where[32];
	/* the cwd key sits after "target: {pid: NNN, " */
	snprintf(where, sizeof(where), "t.yaml:2:%d", (int)(strstr(yaml, "cwd") - strchr(yaml, '\n')));
	bad(yaml, where, "target.cwd applies to a command, not to target.pid");
}

TEST(cwd_must_be_a_directory)
{
	bad("episode: {name: x}\ntarget: {command: [true], cwd: nowhere}\n", "t.yaml:2:32", "No such file or directory");
	bad("episode: {name: x}\ntarget: {command: [true], cwd: file}\n", "t.yaml:2:32", "not a directory");
}

TEST(duplicate_keys)
{
	bad("episode: {name: x}\ntarget: {command: [true]}\nepisode: {name: y}\n", "t.yaml:3:1",
	    "duplicate key \"episode\" in the config (first at line 1)");
	bad("episode:\n  name: x\n  labels:\n    a: 1\n    b: 2\n    a: 3\ntarget: {command: [true]}\n",
	    "t.yaml:6:5", "duplicate key \"a\" in episode.labels (first at line 4)");
}

TEST(yaml_syntax_errors_carry_their_position)
{
	bad("episode: {name: x\ntarget: [\n", "t.yaml:2:7", "");
	bad("episode:\n\tname: x\n", "t.yaml:2:1", "");
	bad("", "t.yaml:1:1", "the config is empty");
	bad("# only a comment\n", "t.yaml:1:1", "the config is empty");
	bad(MINIMAL "---\nepisode: {name: y}\n", "t.yaml:4:1", "a second YAML document");
	/* the reader knows only the byte at fault; its line and column are counted */
	bad("\xff\xfe garbage\n", "t.yaml:1:11", "incomplete UTF-16 character");
	bad("episode:\n  name: a\x01b\n", "t.yaml:2:10", "control characters are not allowed");
	bad("episode: {name: \xc3\x28}\n", "t.yaml:1:18", "invalid trailing UTF-8 octet");
}

TEST(anchors_and_aliases)
{
	ok("episode: {name: x, grace: &g 2s, duration: *g}\ntarget: {command: [true]}\n");
	EXPECT_EQ(cfg.episode.duration_ns, 2 * NS_PER_S);
	config_free(&cfg);
	/* an alias back to its own anchor: the walk follows the schema, so the
	 * loop is just a mapping in the wrong place */
	bad("episode: {name: x}\ntarget: {command: [true]}\nsources: &s {proc_io: *s}\n", "t.yaml:3:14",
	    "unknown key \"proc_io\" in sources.proc_io");
}

TEST(set_overrides_by_dotted_path)
{
	const char *set[] = {"episode.duration=30s", "sources.proc_io.interval=10ms",
			     "episode.labels.run=7"};
	struct config_args a = {.set = set, .nset = 3};
	ok_with(MINIMAL, &a);
	EXPECT_EQ(cfg.episode.duration_ns, 30 * NS_PER_S);
	EXPECT_EQ(cfg.nsources, 1);
	EXPECT_EQ(cfg.sources[0].interval_ns, 10 * NS_PER_MS);
	EXPECT_STR(cfg.episode.labels.items[0].value, "7");
	EXPECT_EQ(cfg.noverrides, 3);
	EXPECT_STR(cfg.overrides[0], "episode.duration=30s");
	config_free(&cfg);

	const char *replace[] = {"target.command=echo replaced"};
	struct config_args r = {.set = replace, .nset = 1};
	ok_with(MINIMAL, &r);
	EXPECT(cfg.target.shell);
	EXPECT_STR(cfg.target.argv[2], "echo replaced");
	config_free(&cfg);
}

TEST(bad_overrides_name_themselves)
{
	const char *v1[] = {"episode.duration=abc"};
	bad_with(MINIMAL, &(struct config_args){.set = v1, .nset = 1}, "--set episode.duration=abc",
		 "invalid duration");
	const char *v2[] = {"episode.name.x=1"};
	bad_with(MINIMAL, &(struct config_args){.set = v2, .nset = 1}, "--set episode.name.x=1",
		 "\"episode.name\" is not a mapping");
	const char *v3[] = {"episode.bogus=1"};
	bad_with(MINIMAL, &(struct config_args){.set = v3, .nset = 1}, "--set episode.bogus=1",
		 "unknown key \"bogus\" in episode");
	const char *v4[] = {"episode..name=x"};
	bad_with(MINIMAL, &(struct config_args){.set = v4, .nset = 1}, "--set episode..name=x",
		 "expected KEY=VALUE");
	const char *v5[] = {"episode.name"};
	bad_with(MINIMAL, &(struct config_args){.set = v5, .nset = 1}, "--set episode.name",
		 "expected KEY=VALUE");
	bad_with(MINIMAL, &(struct config_args){.name = "no/slash"}, "--name no/slash",
		 "invalid episode name");
}

TEST(name_and_output_dir_options)
{
	char cwd[512], expect[600];
	if (!getcwd(cwd, sizeof(cwd)))
		FAILF("getcwd");
	ok_with(MINIMAL, &(struct config_args){.name = "renamed", .output_dir = "rel/out"});
	EXPECT_STR(cfg.episode.name, "renamed");
	/* relative to where iopsample runs, not to the config's folder */
	snprintf(expect, sizeof(expect), "%s/rel/out", cwd);
	EXPECT_STR(cfg.episode.output_dir, expect);
	EXPECT_STR(cfg.overrides[0], "episode.name=renamed");
	config_free(&cfg);
}

/* sources.<source>.<key> of the resolved config, as compact JSON text. */
static json_t *resolved_list(const char *yaml, const char *source, const char *key)
{
	ok(yaml);
	json_t *all = config_to_json(&cfg);
	json_t *list = json_object_get(json_object_get(json_object_get(all, "sources"), source), key);
	char *text = json_dumps(list, JSON_COMPACT);
	json_t *copy = json_string(text);
	free(text);
	json_decref(all);
	config_free(&cfg);
	return copy;
}

TEST(syscall_io_syscalls)
{
	json_t *d = resolved_list(MINIMAL "sources: {syscall_io: {}}\n", "syscall_io", "syscalls");
	/* every family, the metadata syscalls too, in io_syscalls.c's order */
	EXPECT_STR(json_string_value(d),
		   "[\"read\",\"write\",\"pread64\",\"pwrite64\",\"readv\",\"writev\",\"preadv\","
		   "\"pwritev\",\"preadv2\",\"pwritev2\",\"sendfile\",\"splice\",\"copy_file_range\","
		   "\"sendto\",\"recvfrom\",\"sendmsg\",\"recvmsg\",\"tee\",\"vmsplice\",\"recvmmsg\","
		   "\"sendmmsg\",\"aio\",\"io_uring\","
		   "\"open\",\"openat\",\"openat2\",\"creat\",\"close\",\"close_range\",\"stat\","
		   "\"lstat\",\"fstat\",\"newfstatat\",\"statx\",\"access\",\"faccessat\","
		   "\"faccessat2\",\"readlink\",\"readlinkat\",\"getdents\",\"getdents64\",\"fsync\","
		   "\"fdatasync\",\"sync_file_range\",\"syncfs\",\"lseek\",\"unlink\",\"unlinkat\","
		   "\"rename\",\"renameat\",\"renameat2\",\"mkdir\",\"mkdirat\",\"rmdir\",\"link\","
		   "\"linkat\",\"symlink\",\"symlinkat\",\"truncate\",\"ftruncate\",\"fallocate\"]");
	json_decref(d);
	d = resolved_list(MINIMAL "sources: {syscall_io: {syscalls: [sendfile, splice, copy_file_range, "
			  "sendto, recvfrom, sendmsg, recvmsg, read]}}\n",
			  "syscall_io", "syscalls");
	EXPECT_STR(json_string_value(d), "[\"sendfile\",\"splice\",\"copy_file_range\",\"sendto\","
					 "\"recvfrom\",\"sendmsg\",\"recvmsg\",\"read\"]");
	json_decref(d);

	bad(MINIMAL "sources:\n  syscall_io:\n    syscalls: [read, wirte]\n", "t.yaml:5:22",
	    "unknown syscall \"wirte\" (did you mean \"write\"?)");
	bad(MINIMAL "sources:\n  syscall_io:\n    syscalls:\n      - read\n      - ioctl\n",
	    "t.yaml:7:9", "unknown syscall \"ioctl\"");
	bad(MINIMAL "sources: {syscall_io: {syscalls: [read, read]}}\n", "t.yaml:3:41",
	    "syscall \"read\" is listed twice");
	bad(MINIMAL "sources: {syscall_io: {syscalls: []}}\n", "t.yaml:3:34", "at least one syscall");
	bad(MINIMAL "sources: {syscall_io: {syscalls: read}}\n", "t.yaml:3:34", "must be a list");
	bad(MINIMAL "sources: {syscall_io: {syscalls: [[read]]}}\n", "t.yaml:3:35", "got a list");
	bad(MINIMAL "sources: {syscall_io: {sycalls: [read]}}\n", "t.yaml:3:24",
	    "unknown key \"sycalls\" in sources.syscall_io");
}

TEST(perf_event_events)
{
	json_t *d = resolved_list(MINIMAL "sources: {perf_event: {}}\n", "perf_event", "events");
	EXPECT_STR(json_string_value(d), "[\"cycles\",\"instructions\",\"cache-references\","
					 "\"cache-misses\",\"branches\",\"branch-misses\","
					 "\"page-faults\",\"context-switches\"]");
	json_decref(d);
	/* generic, perf:: and modified names; libpfm4 ignores case */
	d = resolved_list(MINIMAL "sources: {perf_event: {events: [task-clock, perf::PAGE-FAULTS, "
			  "cycles:u, PERF_COUNT_SW_CPU_MIGRATIONS]}}\n",
			  "perf_event", "events");
	EXPECT_STR(json_string_value(d), "[\"task-clock\",\"perf::PAGE-FAULTS\",\"cycles:u\","
					 "\"PERF_COUNT_SW_CPU_MIGRATIONS\"]");
	json_decref(d);

	bad(MINIMAL "sources:\n  perf_event:\n    events: [cycles, cylces]\n", "t.yaml:5:22",
	    "unknown perf event \"cylces\": libpfm4: event not found (iopsample events lists");
	bad(MINIMAL "sources:\n  perf_event:\n    events:\n      - page-faults\n      - cycles:bogus\n",
	    "t.yaml:7:9", "unknown perf event \"cycles:bogus\"");
	bad(MINIMAL "sources: {perf_event: {events: [page-faults, PAGE-FAULTS]}}\n", "t.yaml:3:46",
	    "perf events \"page-faults\" and \"PAGE-FAULTS\" would both be field page_faults");
	bad(MINIMAL "sources: {perf_event: {events: []}}\n", "t.yaml:3:32", "at least one perf event");
	bad(MINIMAL "sources: {perf_event: {events: cycles}}\n", "t.yaml:3:32", "must be a list");
	bad(MINIMAL "sources: {perf_event: {events: [{cycles: 1}]}}\n", "t.yaml:3:33", "got a mapping");
	bad(MINIMAL "sources: {perf_event: {event: [cycles]}}\n", "t.yaml:3:24",
	    "unknown key \"event\" in sources.perf_event");

	/* 33 distinct fields, one too many */
	static const char *const base[] = {"page-faults", "faults", "minor-faults", "major-faults",
					   "task-clock", "cpu-clock", "context-switches", "cs",
					   "cpu-migrations", "migrations", "cycles"};
	static const char *const suffix[] = {"", ":u", ":k"};
	char yaml[4096], where[32];
	int n = snprintf(yaml, sizeof(yaml), MINIMAL "sources: {perf_event: {events: [");
	for (int i = 0; i < 33; i++) {
		if (i == 32)
			snprintf(where, sizeof(where), "t.yaml:3:%d", n + 3 - (int)strlen(MINIMAL));
		n += snprintf(yaml + n, sizeof(yaml) - (size_t)n, "%s%s%s", i ? ", " : "",
			      base[i % 11], suffix[i / 11]);
	}
	snprintf(yaml + n, sizeof(yaml) - (size_t)n, "]}}\n");
	bad(yaml, where, "at most 32 perf events");
}

/* sources.syscall_io.backend of the resolved config. */
static void expect_backend(const char *yaml, const char *want)
{
	ok(yaml);
	json_t *all = config_to_json(&cfg);
	json_t *sio = json_object_get(json_object_get(all, "sources"), "syscall_io");
	EXPECT_STR(json_string_value(json_object_get(sio, "backend")), want);
	json_decref(all);
	config_free(&cfg);
}

TEST(syscall_io_backend)
{
	expect_backend(MINIMAL "sources: {syscall_io: {}}\n", "auto");
	expect_backend(MINIMAL "sources: {syscall_io: {backend: ebpf}}\n", "ebpf");
	expect_backend(MINIMAL "sources: {syscall_io: {backend: ptrace}}\n", "ptrace");
	expect_backend(MINIMAL "sources: {syscall_io: {backend: \"auto\"}}\n", "auto");
	bad(MINIMAL "sources:\n  syscall_io:\n    backend: bpf\n", "t.yaml:5:14",
	    "unknown syscall_io backend \"bpf\" (auto, ebpf or ptrace)");
	bad(MINIMAL "sources: {syscall_io: {backend: EBPF}}\n", "t.yaml:3:33",
	    "unknown syscall_io backend \"EBPF\"");
	bad(MINIMAL "sources: {syscall_io: {backend: [ebpf]}}\n", "t.yaml:3:33", "");
	bad(MINIMAL "sources: {syscall_io: {backend: }}\n", "t.yaml:3:33", "");
}

TEST(resolved_config_loads_back_the_same)
{
	ok("episode: {name: rt, duration: 90s, labels: {k: v}}\n"
	   "target: {command: [a, b], env: {X: \"1\"}, stderr: inherit}\n"
	   "sources: {proc_io: {interval: 1500us, required: false},\n"
	   "          syscall_io: {syscalls: [recvmsg, write], backend: ptrace},\n"
	   "          perf_event: {interval: 10ms, events: [page-faults, cycles:u]}}\n"
	   "output: {compression: zstd, zstd_level: 5}\n");
	json_t *first = config_to_json(&cfg);
	config_free(&cfg);
	char *text = json_dumps(first, 0);
	ok(text);
	json_t *second = config_to_json(&cfg);
	config_free(&cfg);
	EXPECT(json_equal(first, second));
	EXPECT_STR(json_string_value(json_object_get(json_object_get(json_object_get(second, "sources"), "proc_io"), "interval")),
		   "1500us");
	free(text);
	json_decref(first);
	json_decref(second);
}

/* The resolved config writes a block source's default devices as null, and
 * loads back (the fuzzer's rule): null is the default, for every source
 * with a devices key. */
TEST(devices_null_is_the_default_and_loads_back)
{
	ok(MINIMAL "sources: {diskstats: {devices: null}, cgroup: {devices: ~}, block_io: {}}\n");
	json_t *j = config_to_json(&cfg);
	json_t *sources = json_object_get(j, "sources");
	EXPECT(json_is_null(json_object_get(json_object_get(sources, "diskstats"), "devices")));
	EXPECT(json_is_null(json_object_get(json_object_get(sources, "cgroup"), "devices")));
	EXPECT(json_is_null(json_object_get(json_object_get(sources, "block_io"), "devices")));
	char *text = json_dumps(j, 0); /* JSON is YAML */
	json_decref(j);
	config_free(&cfg);
	ok(text);
	free(text);
	config_free(&cfg);
}

TEST(episode_cgroup_is_auto_or_off)
{
	ok(MINIMAL);
	EXPECT(!cfg.episode.cgroup_off);
	config_free(&cfg);
	ok("episode: {name: ok, cgroup: off}\ntarget: {command: [true]}\n");
	EXPECT(cfg.episode.cgroup_off);
	config_free(&cfg);
	bad("episode: {name: ok, cgroup: none}\ntarget: {command: [true]}\n", "t.yaml:1:29",
	    "expected auto or off, got \"none\"");
}
