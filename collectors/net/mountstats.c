// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The NFS mounts' blocks of /proc/PID/mountstats: see mountstats.h. */
#define _GNU_SOURCE
#include "mountstats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

void mountstats_init(struct mountstats *s)
{
	memset(s, 0, sizeof(*s));
}

static void clear(struct mountstats *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->m[i].op);
	s->n = 0;
	s->unknown_lines = 0;
	s->first_unknown[0] = '\0';
}

void mountstats_free(struct mountstats *s)
{
	clear(s);
	free(s->m);
	mountstats_init(s);
}

/* "device D mounted on P with fstype T ...": an NFS mount's block begins
 * (true), or another file system's line (false). */
/* Whether a device line [line, end) is an NFS mount's (fstype nfs or
 * nfs4): most of a host's mounts are not, and are skipped on this. */
static bool nfs_type(const char *line, const char *end)
{
	static const char with[] = " with fstype nfs";
	const char *t = memmem(line, (size_t)(end - line), with, sizeof(with) - 1);
	if (!t)
		return false;
	t += sizeof(with) - 1;
	if (t < end && *t == '4')
		t++;
	return t == end || *t == ' ';
}

static bool device_line(const char *line, struct ms_mount *m)
{
	const char *on = strstr(line, " mounted on ");
	const char *with = on ? strstr(on + 12, " with fstype ") : NULL;
	if (strncmp(line, "device ", 7) || !on || !with)
		return false;
	const char *t = with + 13;
	size_t tlen = strcspn(t, " \n");
	if (!((tlen == 3 && !strncmp(t, "nfs", 3)) || (tlen == 4 && !strncmp(t, "nfs4", 4))))
		return false;
	memset(m, 0, sizeof(*m));
	snprintf(m->fstype, sizeof(m->fstype), "%.*s", (int)tlen, t);
	snprintf(m->device, sizeof(m->device), "%.*s", (int)(on - line - 7), line + 7);
	snprintf(m->point, sizeof(m->point), "%.*s", (int)(with - on - 12), on + 12);
	procfs_unescape(m->device);
	procfs_unescape(m->point);
	return true;
}

/* An option's value from opts: "vers=4.2,...". */
static void option(const char *opts, const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);
	for (const char *p = opts; p && *p; p = strchr(p, ','), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == '=') {
			snprintf(out, cap, "%.*s", (int)strcspn(p + n + 1, ",\n"), p + n + 1);
			return;
		}
}

static int numbers(const char *p, uint64_t *v, int max)
{
	int n = 0;
	while (n < max) {
		char *end;
		errno = 0;
		uint64_t x = strtoull(p, &end, 10);
		if (end == p || errno)
			break;
		v[n++] = x;
		p = end;
	}
	return n;
}

/* "        READ: 3632 3632 0 ...": an operation's line. */
static int op_line(struct ms_mount *m, const char *line)
{
	const char *name = line + strspn(line, " \t");
	const char *colon = strchr(name, ':');
	size_t len = colon ? (size_t)(colon - name) : 0;
	if (!len || len >= sizeof(m->op[0].name) || strcspn(name, " \t") < len)
		return 1;
	uint64_t v[MO_NFIELDS + 1];
	if (numbers(colon + 1, v, MO_NFIELDS + 1) < MO_NFIELDS)
		return 1;
	if (m->nop == m->op_cap) {
		size_t cap = m->op_cap ? 2 * m->op_cap : 32;
		struct ms_op *op = reallocarray(m->op, cap, sizeof(*op));
		if (!op)
			return -ENOMEM;
		m->op = op;
		m->op_cap = cap;
	}
	struct ms_op *o = &m->op[m->nop++];
	snprintf(o->name, sizeof(o->name), "%.*s", (int)len, name);
	memcpy(o->v, v, sizeof(o->v));
	return 0;
}

/* The labelled lines of an NFS block this parser knows; "bytes:", "opts:"
 * and the operations are read, the others only recognised. */
static const char *const known[] = {"opts:", "age:", "impl_id:", "caps:", "nfsv4:", "sec:", "events:", "fsc:",
				    "xprt:", "RPC iostats version:", "per-op statistics", "pnfs:", NULL};

static bool is_known(const char *label)
{
	for (const char *const *k = known; *k; k++)
		if (!strncmp(label, *k, strlen(*k)))
			return true;
	return false;
}

int mountstats_parse(struct mountstats *s, const char *text)
{
	clear(s);
	struct ms_mount *m = NULL;
	bool in_ops = false;
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');
		const char *next = *end ? end + 1 : end;
		/* another file system's block: its lines are skipped unread,
		 * and so is its device line, found by its type first (a mount
		 * point's spaces are escaped, so the words are the kernel's) */
		bool device = !strncmp(line, "device ", 7), nfs = device && nfs_type(line, end);
		if (device && !nfs)
			m = NULL;
		if (!m && !nfs) {
			line = next;
			continue;
		}
		char buf[1024];
		snprintf(buf, sizeof(buf), "%.*s", (int)(end - line), line);
		line = next;
		if (!strncmp(buf, "device ", 7)) {
			in_ops = false;
			m = NULL;
			struct ms_mount next;
			if (!device_line(buf, &next))
				continue;
			if (s->n == s->cap) {
				size_t cap = s->cap ? 2 * s->cap : 4;
				struct ms_mount *a = reallocarray(s->m, cap, sizeof(*a));
				if (!a)
					return -ENOMEM;
				s->m = a;
				s->cap = cap;
			}
			m = &s->m[s->n++];
			*m = next;
			continue;
		}
		if (!m)
			continue; /* another file system's block */
		const char *label = buf + strspn(buf, " \t");
		if (!*label)
			continue;
		if (in_ops) {
			int r = op_line(m, buf);
			if (r < 0)
				return r;
			if (r == 0)
				continue;
		}
		if (!strncmp(label, "per-op statistics", 17)) {
			in_ops = true;
		} else if (!strncmp(label, "bytes:", 6)) {
			m->have_bytes = numbers(label + 6, m->bytes, MB_NFIELDS) == MB_NFIELDS;
		} else if (!strncmp(label, "opts:", 5)) {
			option(label + 5 + strspn(label + 5, " \t"), "vers", m->version, sizeof(m->version));
			option(label + 5 + strspn(label + 5, " \t"), "proto", m->transport, sizeof(m->transport));
		} else if (!is_known(label)) {
			if (!s->unknown_lines++)
				snprintf(s->first_unknown, sizeof(s->first_unknown), "%.100s", label);
		}
	}
	return 0;
}

const struct ms_mount *mountstats_find(const struct mountstats *s, const char *point)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->m[i].point, point))
			return &s->m[i];
	return NULL;
}

const struct ms_op *mountstats_op(const struct ms_mount *m, const char *name)
{
	for (size_t i = 0; i < m->nop; i++)
		if (!strcmp(m->op[i].name, name))
			return &m->op[i];
	return NULL;
}
