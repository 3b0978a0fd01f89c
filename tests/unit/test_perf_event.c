// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The perf_event collector on a live process: the row it builds, and sampling
 * that allocates nothing (malloc, calloc and realloc are counted here; jansson
 * allocates through them too). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector.h"
#include "config.h"
#include "testing.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static atomic_int counting, allocations;

/* ASan and memcheck own malloc; counting calls to it means nothing there. */
#ifdef __SANITIZE_ADDRESS__
#define ALLOCATIONS_COUNTED 0
#else
#define ALLOCATIONS_COUNTED 1
void *malloc(size_t n)
{
	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (atomic_load(&counting))
		atomic_fetch_add(&allocations, 1);
	return __libc_realloc(p, n);
}
#endif

static struct config cfg;

static const struct source_config *source(const char *events)
{
	char yaml[512];
	struct errbuf err;
	snprintf(yaml, sizeof(yaml),
		 "episode: {name: t}\ntarget: {command: [true]}\nsources: {perf_event: {events: [%s]}}\n",
		 events);
	if (config_load_buffer("t.yaml", yaml, strlen(yaml), "/tmp", NULL, &cfg, &err) < 0)
		FAILF("config: %s", err.msg);
	return &cfg.sources[0];
}

/* A child that touches a page each time it reads a byte from the pipe. */
static pid_t toucher(int *cmd)
{
	int p[2];
	if (pipe(p) < 0)
		FAILF("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		char c;
		long psz = sysconf(_SC_PAGESIZE);
		char *mem = __libc_malloc(4096 * (size_t)psz);
		for (long i = 0; read(p[0], &c, 1) == 1 && i < 4096; i++)
			((volatile char *)mem)[i * psz] = 1;
		_exit(0);
	}
	close(p[0]);
	*cmd = p[1];
	return pid;
}

TEST(sampling_allocates_nothing_and_keeps_the_rows_keys)
{
	if (!ALLOCATIONS_COUNTED || getenv("IOPSAMPLE_MEMCHECK"))
		SKIP("the sanitizer or memcheck owns malloc: nothing to count");
	const struct source_config *sc = source("page-faults, task-clock, cycles, instructions");
	int cmd;
	pid_t child = toucher(&cmd);
	struct target_info t = {.pid = child, .keeper = 0}; /* attached */
	json_t *row = json_object(), *manifest = json_object();
	void *state = NULL;
	struct errbuf why;
	EXPECT_EQ(sc->ops->open(sc, &t, row, manifest, &state, &why), 0);
	size_t keys = json_object_size(row);
	EXPECT_EQ(keys, 4 + 3);
	EXPECT_EQ(json_array_size(json_object_get(manifest, "events")), 4);

	atomic_store(&allocations, 0);
	atomic_store(&counting, 1);
	for (int i = 0; i < 200; i++) {
		if (i % 2 == 0 && write(cmd, "x", 1) != 1)
			break;
		if (sc->ops->sample(state, &why) < 0)
			break;
	}
	atomic_store(&counting, 0);
	EXPECT_EQ(allocations, 0);
	EXPECT_EQ(json_object_size(row), keys);
	EXPECT(json_is_integer(json_object_get(row, "page_faults")));
	EXPECT(json_is_number(json_object_get(row, "running_pct")));

	close(cmd);
	waitpid(child, NULL, 0);
	sc->ops->close(state);
	json_decref(row);
	json_decref(manifest);
	config_free(&cfg);
}
