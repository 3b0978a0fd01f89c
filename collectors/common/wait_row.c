// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* wait_row.h: the waits and offcpu row. */
#define _GNU_SOURCE
#include "common/wait_row.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A mount's entry in by_mount: its names, and its time (a FUSE mount's
 * daemon, a network one's server). */
static json_t *mount_entry(const struct wait_mount *m)
{
	json_t *e = json_object();
	json_object_set_new(e, "mount", json_string(m->point));
	json_object_set_new(e, "fstype", json_string(m->fstype));
	if (m->kind == WFD_FUSE) {
		json_object_set_new(e, "daemon_pid", json_null());
		json_object_set_new(e, "daemon_comm", json_null());
		json_object_set_new(e, "fuse_ns", json_integer(0));
	} else {
		json_object_set_new(e, "server", json_string(m->source));
		json_object_set_new(e, "remote_fs_ns", json_integer(0));
	}
	return e;
}

static int map_mounts(struct wait_row *r, size_t nmount)
{
	if (nmount <= r->nkey_of)
		return 0;
	int *k = reallocarray(r->key_of, nmount, sizeof(*k));
	unsigned char *w = k ? realloc(r->warned, nmount) : NULL;
	if (k)
		r->key_of = k;
	if (!w)
		return -ENOMEM;
	r->warned = w;
	for (size_t i = r->nkey_of; i < nmount; i++) {
		r->key_of[i] = -1;
		r->warned[i] = 0;
	}
	r->nkey_of = nmount;
	return 0;
}

int wait_row_open(struct wait_row *r, json_t *row, json_t *manifest, struct wait_fds *fds)
{
	memset(r, 0, sizeof(*r));
	for (int c = 0; c < WC_NCLASSES; c++) {
		r->field[c] = json_integer(0);
		json_object_set_new(row, wait_class_field[c], r->field[c]);
	}
	r->nthreads = json_integer(0);
	json_object_set_new(row, "nthreads", r->nthreads);
	r->by_mount = json_object();
	json_object_set_new(row, "by_mount", r->by_mount);
	r->warnings = json_object_get(manifest, "warnings");
	if (!r->warnings) {
		r->warnings = json_array();
		json_object_set_new(manifest, "warnings", r->warnings);
	}
	if (map_mounts(r, fds->nmount) < 0)
		return -ENOMEM;
	r->entry = calloc(fds->nmount ? fds->nmount : 1, sizeof(*r->entry));
	r->mount_of = calloc(fds->nmount ? fds->nmount : 1, sizeof(*r->mount_of));
	if (!r->entry || !r->mount_of)
		return -ENOMEM;
	for (size_t i = 0; i < fds->nmount; i++) {
		const struct wait_mount *m = &fds->mount[i];
		if (m->kind == WFD_FILE)
			continue;
		json_t *e = json_object_get(r->by_mount, m->point);
		if (!e) { /* two mounts at one point: the one on top is what a path reaches */
			e = mount_entry(m);
			json_object_set_new(r->by_mount, m->point, e);
			r->entry[r->nkeys] = e;
			r->mount_of[r->nkeys++] = (int)i;
		}
		for (size_t k = 0; k < r->nkeys; k++)
			if (r->entry[k] == e)
				r->key_of[i] = (int)k;
	}
	wait_row_mounts(r, manifest, fds);
	return 0;
}

int wait_row_set(struct wait_row *r, const uint64_t ns[WC_NCLASSES], unsigned nthreads,
		 const uint64_t *mount_ns, size_t nmount, struct wait_fds *fds)
{
	for (int c = 0; c < WC_NCLASSES; c++)
		json_integer_set(r->field[c], (json_int_t)ns[c]);
	json_integer_set(r->nthreads, nthreads);
	if (map_mounts(r, fds->nmount) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < r->nkeys; k++) {
		json_t *e = r->entry[k];
		json_t *t = json_object_get(e, "fuse_ns");
		json_integer_set(t ? t : json_object_get(e, "remote_fs_ns"), 0);
	}
	for (size_t i = 0; i < nmount && i < fds->nmount; i++) {
		if (!mount_ns[i])
			continue;
		int k = r->key_of[i];
		if (k < 0) {
			if (!r->warned[i]) {
				r->warned[i] = 1;
				json_array_append_new(
					r->warnings,
					json_sprintf("%s (%s) was mounted after the source opened: its waits count in "
						     "%s but in no by_mount entry",
						     fds->mount[i].point, fds->mount[i].fstype,
						     fds->mount[i].kind == WFD_FUSE ? "fuse_ns" : "remote_fs_ns"));
			}
			continue;
		}
		json_t *e = r->entry[k];
		json_t *t = json_object_get(e, "fuse_ns");
		if (!t)
			t = json_object_get(e, "remote_fs_ns");
		json_integer_set(t, json_integer_value(t) + (json_int_t)mount_ns[i]);
	}
	/* a FUSE mount's daemon, as last found */
	for (size_t k = 0; k < r->nkeys; k++) {
		const struct wait_mount *m = &fds->mount[r->mount_of[k]];
		if (m->kind != WFD_FUSE || !m->daemon_looked)
			continue;
		json_t *e = r->entry[k];
		json_object_set_new(e, "daemon_pid", m->daemon ? json_integer(m->daemon) : json_null());
		json_object_set_new(e, "daemon_comm", m->daemon ? json_string(m->daemon_comm) : json_null());
	}
	return 0;
}

void wait_row_mounts(const struct wait_row *r, json_t *manifest, const struct wait_fds *fds)
{
	json_t *mounts = json_object();
	for (size_t k = 0; k < r->nkeys; k++) {
		const struct wait_mount *m = &fds->mount[r->mount_of[k]];
		json_t *e = json_pack("{s:s}", "fstype", m->fstype);
		if (m->kind == WFD_FUSE) {
			json_object_set_new(e, "daemon_pid", m->daemon ? json_integer(m->daemon) : json_null());
			json_object_set_new(e, "daemon_comm", m->daemon ? json_string(m->daemon_comm) : json_null());
		} else {
			json_object_set_new(e, "server", json_string(m->source));
		}
		json_object_set_new(mounts, m->point, e);
	}
	json_object_set_new(manifest, "mounts", mounts);
}

void wait_row_free(struct wait_row *r)
{
	free(r->key_of);
	free(r->warned);
	free(r->entry);
	free(r->mount_of);
	memset(r, 0, sizeof(*r));
}
