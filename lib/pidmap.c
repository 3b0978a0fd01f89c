// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Open-addressing pid map with backward-shift deletion. */
#include "pidmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t home(pid_t pid, size_t cap)
{
	return ((size_t)pid * 2654435761u) & (cap - 1);
}

/* The slot holding pid, or the empty slot where it belongs. */
static size_t find(const struct pidmap_slot *slot, size_t cap, pid_t pid)
{
	size_t i = home(pid, cap);
	while (slot[i].pid && slot[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow(struct pidmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct pidmap_slot *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].pid)
			slot[find(slot, cap, m->slot[i].pid)] = m->slot[i];
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return 0;
}

int pidmap_add(struct pidmap *m, pid_t pid, int64_t value)
{
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return -ENOMEM;
	size_t i = find(m->slot, m->cap, pid);
	if (m->slot[i].pid)
		return 0;
	m->slot[i] = (struct pidmap_slot){pid, value};
	m->count++;
	return 1;
}

int64_t *pidmap_get(const struct pidmap *m, pid_t pid)
{
	if (!m->count)
		return NULL;
	size_t i = find(m->slot, m->cap, pid);
	return m->slot[i].pid ? &m->slot[i].value : NULL;
}

int pidmap_del(struct pidmap *m, pid_t pid)
{
	if (!m->count)
		return 0;
	size_t mask = m->cap - 1;
	size_t hole = find(m->slot, m->cap, pid);
	if (!m->slot[hole].pid)
		return 0;
	/* Close the hole: an entry further along the run moves back into it
	 * unless its home lies cyclically in (hole, j], where it still is
	 * reachable without passing the hole. */
	for (size_t j = (hole + 1) & mask; m->slot[j].pid; j = (j + 1) & mask) {
		size_t h = home(m->slot[j].pid, m->cap);
		if (((j - h) & mask) >= ((j - hole) & mask)) {
			m->slot[hole] = m->slot[j];
			hole = j;
		}
	}
	m->slot[hole].pid = 0;
	m->count--;
	return 1;
}

void pidmap_clear(struct pidmap *m)
{
	if (m->slot)
		memset(m->slot, 0, m->cap * sizeof(*m->slot));
	m->count = 0;
}

void pidmap_free(struct pidmap *m)
{
	free(m->slot);
	*m = (struct pidmap){0};
}
