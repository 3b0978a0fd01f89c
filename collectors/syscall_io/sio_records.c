// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* See sio_records.h. */
#include "sio_records.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

enum slot_kind { EMPTY, TOMBSTONE, FD, REC };

/* A known descriptor (kind FD, a: the fd) and the file it names, or a
 * file's record (kind REC, a and b: st_dev and st_ino). */
struct sio_rec_slot {
	unsigned char kind;
	pid_t tgid;
	uint64_t a, b;
	union {
		struct sio_file_id file; /* FD */
		struct {
			struct sio_fstate st;
			uint64_t blksize;
		} rec; /* REC */
	} v;
};

static uint64_t hash(unsigned kind, pid_t tgid, uint64_t a, uint64_t b)
{
	uint64_t h = (uint64_t)kind * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)tgid;
	h = (h ^ a) * 0xBF58476D1CE4E5B9ull;
	h = (h ^ b) * 0x94D049BB133111EBull;
	return h ^ h >> 31;
}

static struct sio_rec_slot *find(const struct sio_records *r, unsigned kind, pid_t tgid, uint64_t a,
				 uint64_t b)
{
	if (!r->cap)
		return NULL;
	for (size_t i = hash(kind, tgid, a, b) & (r->cap - 1);; i = (i + 1) & (r->cap - 1)) {
		struct sio_rec_slot *s = &r->slot[i];
		if (s->kind == EMPTY)
			return NULL;
		if (s->kind == kind && s->tgid == tgid && s->a == a && s->b == b)
			return s;
	}
}

/* Room for one more, tombstones dropped: at most half the slots used. */
static int reserve(struct sio_records *r)
{
	if ((r->used + 1) * 2 <= r->cap)
		return 0;
	size_t live = 0;
	for (size_t i = 0; i < r->cap; i++)
		live += r->slot[i].kind >= FD;
	size_t cap = 64;
	while (cap < (live + 1) * 4)
		cap *= 2;
	struct sio_rec_slot *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < r->cap; i++) {
		struct sio_rec_slot *s = &r->slot[i];
		if (s->kind < FD)
			continue;
		size_t j = hash(s->kind, s->tgid, s->a, s->b) & (cap - 1);
		while (slot[j].kind != EMPTY)
			j = (j + 1) & (cap - 1);
		slot[j] = *s;
	}
	free(r->slot);
	r->slot = slot;
	r->cap = cap;
	r->used = live;
	return 0;
}

/* The slot of the key, made (zeroed) if it was not there; NULL: no memory. */
static struct sio_rec_slot *get(struct sio_records *r, unsigned kind, pid_t tgid, uint64_t a, uint64_t b)
{
	struct sio_rec_slot *s = find(r, kind, tgid, a, b);
	if (s || reserve(r) < 0)
		return s;
	size_t i = hash(kind, tgid, a, b) & (r->cap - 1);
	while (r->slot[i].kind >= FD)
		i = (i + 1) & (r->cap - 1);
	s = &r->slot[i];
	if (s->kind == EMPTY)
		r->used++;
	*s = (struct sio_rec_slot){.kind = (unsigned char)kind, .tgid = tgid, .a = a, .b = b};
	return s;
}

static void drop(struct sio_rec_slot *s)
{
	s->kind = TOMBSTONE;
}

/* The record of the file fd names, if fd is known. */
static struct sio_rec_slot *record_of(struct sio_records *r, pid_t tgid, int fd)
{
	struct sio_rec_slot *d = find(r, FD, tgid, (uint64_t)(int64_t)fd, 0);
	return d ? find(r, REC, tgid, d->v.file.dev, d->v.file.ino) : NULL;
}

int sio_records_open(struct sio_records *r, pid_t tgid, int fd, struct sio_file_id id, uint64_t blksize)
{
	struct sio_rec_slot *d = get(r, FD, tgid, (uint64_t)(int64_t)fd, 0);
	if (!d)
		return -ENOMEM;
	d->v.file = id;
	struct sio_rec_slot *rec = get(r, REC, tgid, id.dev, id.ino);
	if (!rec)
		return -ENOMEM;
	sio_pattern_open(&rec->v.rec.st);
	rec->v.rec.blksize = blksize;
	return 0;
}

int sio_records_dup(struct sio_records *r, pid_t tgid, int oldfd, int newfd)
{
	struct sio_rec_slot *old = find(r, FD, tgid, (uint64_t)(int64_t)oldfd, 0);
	if (!old || oldfd == newfd)
		return 0;
	struct sio_file_id id = old->v.file;
	struct sio_rec_slot *d = get(r, FD, tgid, (uint64_t)(int64_t)newfd, 0);
	if (!d)
		return -ENOMEM;
	d->v.file = id;
	return 0;
}

void sio_records_seek(struct sio_records *r, pid_t tgid, int fd, int64_t off)
{
	struct sio_rec_slot *rec = record_of(r, tgid, fd);
	if (rec)
		rec->v.rec.st.offset = off;
}

void sio_records_close(struct sio_records *r, pid_t tgid, int fd)
{
	struct sio_rec_slot *rec = record_of(r, tgid, fd);
	if (rec)
		sio_pattern_close(&rec->v.rec.st);
	struct sio_rec_slot *d = find(r, FD, tgid, (uint64_t)(int64_t)fd, 0);
	if (d)
		drop(d);
}

unsigned sio_records_access(struct sio_records *r, pid_t tgid, int fd, int d, int64_t start, int64_t len)
{
	struct sio_rec_slot *rec = record_of(r, tgid, fd);
	if (!rec)
		return 0;
	if (start == SIO_AT_RECORD_OFFSET)
		start = rec->v.rec.st.offset;
	return sio_pattern_step(&rec->v.rec.st, d, start, len, rec->v.rec.blksize);
}

void sio_records_forget(struct sio_records *r, pid_t tgid)
{
	for (size_t i = 0; i < r->cap; i++)
		if (r->slot[i].kind >= FD && r->slot[i].tgid == tgid)
			drop(&r->slot[i]);
}

void sio_records_free(struct sio_records *r)
{
	free(r->slot);
	*r = (struct sio_records){0};
}
