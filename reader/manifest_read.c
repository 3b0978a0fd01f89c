// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* An episode's manifest.json read back, for the reading commands. */
#include "manifest_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "builtin_schemas.h"
#include "fdutil.h"
#include "log.h"
#include "version.h"

int manifest_read(int dirfd, size_t flags, json_t **out, json_error_t *je)
{
	*out = NULL;
	int fd = openat(dirfd, "manifest.json", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len;
	char *text = read_all(fd, &len);
	int err = errno;
	close(fd);
	if (!text)
		return -err;
	*out = json_loadb(text, len, flags, je);
	free(text);
	return *out ? 0 : -EINVAL;
}

static void first_problem(void *arg, const char *where, const char *what)
{
	struct errbuf *e = arg;
	if (!e->msg[0])
		snprintf(e->msg, sizeof(e->msg), "%s: %s", *where ? where : "/", what);
}

static int check_manifest(const char *dir, int dirfd, const struct jschema_set *schemas,
			  json_t **out)
{
	json_error_t je;
	int r = manifest_read(dirfd, 0, out, &je);
	if (r == -EINVAL) {
		log_error("%s/manifest.json:%d:%d: %s", dir, je.line, je.column, je.text);
		return EX_DATAERR;
	}
	if (r == -ENOENT) {
		log_error("%s: not an episode directory (no manifest.json)", dir);
		return EX_NOINPUT;
	}
	if (r < 0) {
		log_error("%s/manifest.json: %s", dir, strerror(-r));
		return EX_NOINPUT;
	}
	struct errbuf first = {""};
	if (jschema_validate(schemas, "manifest", *out, first_problem, &first)) {
		log_error("%s/manifest.json: %s", dir, first.msg);
		return EX_DATAERR;
	}
	return 0;
}

int manifest_load(const char *dir, const struct jschema_set *schemas, int *dirfd, json_t **out)
{
	*out = NULL;
	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		log_error("%s: %s", dir, strerror(errno));
		return EX_NOINPUT;
	}
	int code = check_manifest(dir, *dirfd, schemas, out);
	if (code) {
		close(*dirfd);
		*dirfd = -1;
	}
	return code;
}

bool manifest_incomplete(const json_t *m)
{
	const char *status = json_string_value(json_object_get(m, "status"));
	return status && (!strcmp(status, "running") || !strcmp(status, "failed") ||
			  !strcmp(status, "killed"));
}

int manifest_sources(const char *dir, const json_t *m, const struct jschema_set *schemas,
		     struct manifest_source **out, size_t *n)
{
	const json_t *sources = json_object_get(m, "sources");
	*n = 0;
	*out = calloc(json_object_size(sources) + 1, sizeof(**out));
	if (!*out) {
		log_error("out of memory");
		return EX_SOFTWARE;
	}
	const char *name;
	const json_t *entry;
	json_object_foreach((json_t *)sources, name, entry) {
		if (!builtin_schemas_is_source(schemas, name)) {
			log_error("%s: source %s: not one iopsample %s knows", dir, name, IOPSAMPLE_VERSION);
			free(*out);
			*out = NULL;
			*n = 0;
			return EX_DATAERR;
		}
		(*out)[(*n)++] = (struct manifest_source){name, entry};
	}
	return 0;
}
