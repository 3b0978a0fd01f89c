// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ksyms.h: /proc/kallsyms's text symbols, sorted. */
#define _GNU_SOURCE
#include "common/ksyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_name(struct ksyms *k, const char *name, uint32_t *at)
{
	size_t len = strlen(name) + 1;
	if (k->names_len + len > k->names_cap) {
		size_t cap = k->names_cap ? 2 * k->names_cap : 1 << 20;
		while (cap < k->names_len + len)
			cap *= 2;
		char *n = realloc(k->names, cap);
		if (!n)
			return -ENOMEM;
		k->names = n;
		k->names_cap = cap;
	}
	memcpy(k->names + k->names_len, name, len);
	*at = (uint32_t)k->names_len;
	k->names_len += len;
	return 0;
}

struct pair {
	uint64_t addr;
	uint32_t name;
};

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct pair *)a)->addr, y = ((const struct pair *)b)->addr;
	return x < y ? -1 : x > y;
}

static const char *const skip_marks[3][2] = {
	{"__sched_text_start", "__sched_text_end"},
	{"__lock_text_start", "__lock_text_end"},
	{"__cpuidle_text_start", "__cpuidle_text_end"},
};

int ksyms_load(struct ksyms *k)
{
	memset(k, 0, sizeof(*k));
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	struct pair *p = NULL;
	size_t n = 0, cap = 0;
	char line[512];
	int r = 0;
	bool all_zero = true;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		for (int s = 0; s < 3; s++)
			for (int e = 0; e < 2; e++)
				if (!strcmp(name, skip_marks[s][e]))
					k->skip[s][e] = addr;
		if (type != 't' && type != 'T')
			continue;
		all_zero &= addr == 0;
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			struct pair *q = reallocarray(p, cap, sizeof(*q));
			if (!q) {
				r = -ENOMEM;
				break;
			}
			p = q;
		}
		p[n].addr = addr;
		if ((r = add_name(k, name, &p[n].name)) < 0)
			break;
		n++;
	}
	fclose(f);
	if (r == 0 && (n == 0 || all_zero))
		r = -EPERM;
	if (r == 0) {
		qsort(p, n, sizeof(*p), by_addr);
		k->addr = malloc(n * sizeof(*k->addr));
		k->name = malloc(n * sizeof(*k->name));
		if (!k->addr || !k->name)
			r = -ENOMEM;
		for (size_t i = 0; r == 0 && i < n; i++) {
			k->addr[i] = p[i].addr;
			k->name[i] = p[i].name;
		}
		k->n = n;
	}
	free(p);
	if (r < 0)
		ksyms_free(k);
	return r;
}

void ksyms_free(struct ksyms *k)
{
	free(k->addr);
	free(k->name);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

const char *ksyms_name(const struct ksyms *k, uint64_t addr)
{
	if (!k->n || addr < k->addr[0])
		return NULL;
	size_t lo = 0, hi = k->n; /* the last symbol at or before addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->addr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return k->names + k->name[lo];
}

bool ksyms_in_scheduler(const struct ksyms *k, uint64_t addr)
{
	for (int s = 0; s < 3; s++)
		if (k->skip[s][0] && addr >= k->skip[s][0] && addr < k->skip[s][1])
			return true;
	return false;
}

size_t ksyms_past_scheduler(const struct ksyms *k, const uint64_t *frames, size_t n)
{
	size_t i = 0;
	while (i < n && !ksyms_in_scheduler(k, frames[i]))
		i++;
	if (i == n)
		return 0;
	while (i < n && ksyms_in_scheduler(k, frames[i]))
		i++;
	return i;
}
