/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel's text symbols (/proc/kallsyms, as root: an unprivileged
 * reader sees every address as 0), for the function a kernel stack's
 * return address is in, and whether it is the scheduler's own text
 * (__sched functions: schedule(), io_schedule(), the sleeping locks' slow
 * paths), which /proc/TID/wchan skips as get_wchan() does. */
#ifndef IOPSAMPLE_KSYMS_H
#define IOPSAMPLE_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksyms {
	uint64_t *addr; /* sorted */
	uint32_t *name; /* offsets into names */
	size_t n;
	char *names;
	size_t names_len, names_cap;
	/* [start, end) of the scheduler's, the spinlocks' and the idle
	 * loop's text */
	uint64_t skip[3][2];
};

/* 0, or -errno (-EPERM: the addresses are hidden from this user). */
int ksyms_load(struct ksyms *k);
void ksyms_free(struct ksyms *k);

/* The function addr is in, or NULL. */
const char *ksyms_name(const struct ksyms *k, uint64_t addr);
/* Whether addr is in the scheduler's (or the locks', or idle's) text. */
bool ksyms_in_scheduler(const struct ksyms *k, uint64_t addr);
/* The first of a sleeping task's n frames (innermost first) past the
 * scheduler's: what /proc/TID/wchan names. A stack taken in a tracepoint
 * begins with the tracing's frames, then the scheduler's; one taken of a
 * task that sleeps, with the scheduler's. n when none is past them; 0
 * when none is the scheduler's. */
size_t ksyms_past_scheduler(const struct ksyms *k, const uint64_t *frames, size_t n);

#endif
