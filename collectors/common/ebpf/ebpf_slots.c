// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Reading per-CPU slots without locks: a copy is whole when no update began
 * between reading `ended` before it and `begun` after it. */
#include "ebpf_slots.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cpulist.h"
#include "ebpf_slot.h"

#define TRIES 8
enum { ENDED, BEGUN, PAYLOAD }; /* word indexes of struct ebpf_slot_seq */

int ebpf_slots_size(struct bpf_map *map, struct errbuf *why)
{
	/* by CPU id: libbpf_num_possible_cpus() counts the CPUs, which is fewer
	 * than the highest id + 1 where the possible mask has holes */
	int n = cpulist_possible_slots();
	if (n <= 0)
		return errbuf_set(why, -n, "reading /sys/devices/system/cpu/possible: %s",
				  strerror(-n));
	int r = bpf_map__set_max_entries(map, (__u32)n);
	return r < 0 ? errbuf_set(why, -r, "sizing %s: %s", bpf_map__name(map), strerror(-r)) : 0;
}

int ebpf_slots_init(struct ebpf_slots *s, const void *slots, size_t slot_size, unsigned nslots)
{
	memset(s, 0, sizeof(*s));
	s->map = slots;
	s->words = slot_size / sizeof(__u64);
	s->nslots = nslots;
	s->copy = calloc(nslots, slot_size);
	s->scratch = calloc(1, slot_size);
	s->total = aligned_alloc(EBPF_SLOT_ALIGN, slot_size);
	if (!s->copy || !s->scratch || !s->total) {
		ebpf_slots_close(s);
		return -ENOMEM;
	}
	memset(s->total, 0, slot_size);
	return 0;
}

int ebpf_slots_open(struct ebpf_slots *s, struct bpf_map *map, size_t slot_size,
		    struct errbuf *why)
{
	unsigned nslots = bpf_map__max_entries(map);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (nslots * slot_size + page - 1) / page * page;
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(map), 0);
	if (m == MAP_FAILED)
		return errbuf_set(why, errno, "mapping %s: %s", bpf_map__name(map), strerror(errno));
	if (ebpf_slots_init(s, m, slot_size, nslots) < 0) {
		munmap(m, len);
		return errbuf_set(why, ENOMEM, "out of memory");
	}
	s->map_len = len;
	return 0;
}

/* Brings slot i's copy up to date when it can; false when it stayed older. */
static bool refresh(struct ebpf_slots *s, unsigned i)
{
	const __u64 *p = s->map + (size_t)i * s->words;
	__u64 *c = s->copy + (size_t)i * s->words;
	for (int t = 0; t < TRIES; t++) {
		__u64 ended = __atomic_load_n(&p[ENDED], __ATOMIC_ACQUIRE);
		if (ended == c[ENDED] && __atomic_load_n(&p[BEGUN], __ATOMIC_RELAXED) == ended)
			return true; /* nothing since the last copy */
		for (size_t w = PAYLOAD; w < s->words; w++)
			s->scratch[w] = __atomic_load_n(&p[w], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&p[BEGUN], __ATOMIC_RELAXED) != ended)
			continue; /* an update began before the copy ended */
		for (size_t w = PAYLOAD; w < s->words; w++) {
			s->total[w] += s->scratch[w] - c[w];
			c[w] = s->scratch[w];
		}
		c[ENDED] = c[BEGUN] = ended;
		return true;
	}
	return false;
}

const void *ebpf_slots_read(struct ebpf_slots *s)
{
	int64_t deadline = s->wait_whole_ns ? clock_mono_ns() + s->wait_whole_ns : 0;
	for (unsigned i = 0; i < s->nslots; i++) {
		/* waiting, the program that began the update runs again soon:
		 * its CPU is given back to it between tries */
		while (!refresh(s, i)) {
			bool wait = deadline && clock_mono_ns() < deadline;
			if (!wait) {
				s->deferred++;
				s->lost += deadline != 0;
				break;
			}
			nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
		}
	}
	return s->total;
}

void ebpf_slots_wait_whole(struct ebpf_slots *s, int64_t wait_ns)
{
	s->wait_whole_ns = wait_ns;
}

void ebpf_slots_report(struct ebpf_slots *s, json_t *manifest)
{
	if (s->deferred == s->reported && json_object_get(manifest, "slots_deferred"))
		return;
	json_object_set_new(manifest, "slots_deferred", json_integer((json_int_t)s->deferred));
	if (s->lost)
		json_object_set_new(manifest, "slots_lost", json_integer((json_int_t)s->lost));
	s->reported = s->deferred;
}

void ebpf_slots_close(struct ebpf_slots *s)
{
	if (s->map_len)
		munmap((void *)s->map, s->map_len);
	free(s->copy);
	free(s->scratch);
	free(s->total);
	memset(s, 0, sizeof(*s));
}
