// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The episode directory: created once, files created exclusively, the
 * manifest replaced atomically. */
#define _GNU_SOURCE
#include "episode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "fdutil.h"

static int mkdir_parents(char *path)
{
	/* each prefix in turn; an existing one is fine */
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		int r = mkdir(path, 0755);
		int err = errno;
		*p = c;
		if (r < 0 && err != EEXIST)
			return -err;
		if (c == '\0')
			return 0;
	}
}

int episode_create_dir(struct episode *ep, struct errbuf *e)
{
	const char *out = ep->cfg->episode.output_dir;
	char *parents = strdup(out);
	if (!parents)
		return errbuf_set(e, ENOMEM, "out of memory");
	int r = mkdir_parents(parents);
	free(parents);
	if (r < 0)
		return errbuf_set(e, r, "cannot create output directory %s: %s", out, strerror(-r));

	/* the path as messages show it: without the config's ../ */
	char *real = realpath(out, NULL);
	if (!real)
		return errbuf_set(e, errno, "%s: %s", out, strerror(errno));
	r = asprintf(&ep->dir, "%s/%s", real, ep->cfg->episode.name);
	free(real);
	if (r < 0)
		return errbuf_set(e, ENOMEM, "out of memory");
	/* mkdir is the atomic claim: if it exists, someone else's episode is
	 * there and we leave without touching it. */
	if (mkdir(ep->dir, 0755) < 0) {
		if (errno == EEXIST)
			return errbuf_set(e, EEXIST,
					  "episode directory %s already exists; choose another name (--name) or remove it",
					  ep->dir);
		return errbuf_set(e, errno, "cannot create episode directory %s: %s", ep->dir,
				  strerror(errno));
	}
	ep->dirfd = open(ep->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ep->dirfd < 0)
		return errbuf_set(e, errno, "%s: %s", ep->dir, strerror(errno));
	return 0;
}

int episode_create_file(const struct episode *ep, const char *name, struct errbuf *e)
{
	int fd = openat(ep->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return errbuf_set(e, errno, "%s/%s: %s", ep->dir, name, strerror(errno));
	return fd;
}

/* data into fd, the file name in the directory dir, synced and closed */
static int write_file(const char *dir, int fd, const char *name, const void *data, size_t len,
		      struct errbuf *e)
{
	int r = 0;
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0)
		r = errbuf_set(e, errno, "%s/%s: %s", dir, name, strerror(errno));
	if (close(fd) < 0 && r == 0)
		r = errbuf_set(e, errno, "%s/%s: %s", dir, name, strerror(errno));
	return r;
}

int episode_write_config(const struct episode *ep, struct errbuf *e)
{
	int fd = episode_create_file(ep, "episode.yaml", e);
	if (fd < 0)
		return fd;
	return write_file(ep->dir, fd, "episode.yaml", ep->cfg->text, ep->cfg->text_len, e);
}

/* text into tmp (open as fd, which this closes) in the episode directory
 * dirfd (dir, for messages), then renamed over manifest.json, the
 * directory synced; tmp gone if that failed. */
static int put_manifest(int dirfd, const char *dir, int fd, const char *tmp, const char *text,
			size_t len, struct errbuf *e)
{
	int r = write_file(dir, fd, tmp, text, len, e);
	if (r == 0 && renameat(dirfd, tmp, dirfd, "manifest.json") < 0)
		r = errbuf_set(e, errno, "%s/manifest.json: %s", dir, strerror(errno));
	if (r == 0 && fsync(dirfd) < 0)
		r = errbuf_set(e, errno, "%s: %s", dir, strerror(errno));
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	return r;
}

/* Held for the final manifest: several times the running one's size, as
 * the end adds the target's fate, errors and warnings. */
static off_t spare_size(size_t len)
{
	off_t want = 4 * (off_t)len;
	return want < 65536 ? 65536 : want;
}

static const char manifest_tmp[] = ".manifest.json.tmp";
static const char manifest_spare[] = ".manifest.json.spare";

/* Takes the space now; without it (a full disk already, or a file system
 * that cannot), the final manifest is written the ordinary way. */
static void reserve_manifest(struct episode *ep, size_t len)
{
	int fd = openat(ep->dirfd, manifest_spare, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (posix_fallocate(fd, 0, spare_size(len)) != 0) {
		close(fd);
		unlinkat(ep->dirfd, manifest_spare, 0);
		return;
	}
	ep->manifest_spare = fd;
}

int episode_write_manifest(struct episode *ep, const json_t *manifest, struct errbuf *e)
{
	char *text = json_dumps(manifest, JSON_INDENT(2));
	if (!text)
		return errbuf_set(e, ENOMEM, "out of memory");
	size_t len = strlen(text);
	text[len++] = '\n'; /* the NUL's slot takes the final newline */

	/* The final manifest goes into the spare: its blocks are already ours,
	 * so writing into them and cutting off the rest needs no new space. */
	bool final = ep->status != EPISODE_RUNNING;
	bool use_spare = final && ep->manifest_spare >= 0;
	const char *tmp = use_spare ? manifest_spare : manifest_tmp;
	int r = 0;
	int fd = -1;
	if (use_spare) {
		fd = ep->manifest_spare;
		ep->manifest_spare = -1;
		if (ftruncate(fd, (off_t)len) < 0) {
			r = errbuf_set(e, errno, "%s/%s: %s", ep->dir, tmp, strerror(errno));
			close(fd);
		}
	} else {
		fd = openat(ep->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			r = errbuf_set(e, errno, "%s/%s: %s", ep->dir, tmp, strerror(errno));
	}
	if (r == 0)
		r = put_manifest(ep->dirfd, ep->dir, fd, tmp, text, len, e);
	if (!final && ep->manifest_spare < 0)
		reserve_manifest(ep, len);
	free(text);
	return r;
}

void episode_close(struct episode *ep)
{
	if (ep->manifest_spare >= 0) {
		close(ep->manifest_spare);
		unlinkat(ep->dirfd, manifest_spare, 0);
		ep->manifest_spare = -1;
	}
	if (ep->dirfd >= 0)
		close(ep->dirfd);
	ep->dirfd = -1;
}

int episode_mark_killed(int dirfd)
{
	int fd = openat(dirfd, "manifest.json", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	json_t *m = json_loadfd(fd, 0, NULL);
	close(fd);
	const char *status = json_string_value(json_object_get(m, "status"));
	if (!status || strcmp(status, "running")) {
		json_decref(m);
		return -EINVAL;
	}
	json_t *warnings = json_object_get(m, "warnings");
	if (!json_is_array(warnings))
		json_object_set_new(m, "warnings", warnings = json_array());
	json_object_set_new(m, "status", json_string("killed"));
	json_object_set_new(m, "t_wall_end_ns", json_integer(clock_wall_ns()));
	json_array_append_new(warnings,
			      json_string("iopsample was killed before the episode ended: its keeper "
					  "killed the target's tree and what the episode's cgroups held, "
					  "and removed them; the sources' files end where their samplers "
					  "were killed"));
	char *text = json_dumps(m, JSON_INDENT(2));
	json_decref(m);
	if (!text)
		return -ENOMEM;
	size_t len = strlen(text);
	text[len++] = '\n'; /* the NUL's slot takes the final newline */
	struct errbuf e;
	fd = openat(dirfd, manifest_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int r = fd < 0 ? -errno : put_manifest(dirfd, ".", fd, manifest_tmp, text, len, &e);
	free(text);
	return r;
}

const char *episode_status_name(enum episode_status s)
{
	static const char *const names[] = {"running", "complete", "interrupted", "failed"};
	return names[s];
}

const char *source_status_name(enum source_status s)
{
	static const char *const names[] = {"starting", "ok", "unavailable", "failed"};
	return names[s];
}

void episode_warn(struct episode *ep, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(ep->warnings, json_string(msg));
}
