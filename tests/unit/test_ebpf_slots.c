// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The per-CPU slot reader (ebpf_slots.c) against writers that follow the
 * eBPF programs' protocol (ebpf_slot.h) in user space: whole copies only,
 * sums over slots, and a slot caught mid-update keeping its older copy. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "common/ebpf/ebpf_slot.h"
#include "common/ebpf/ebpf_slots.h"
#include "testing.h"

/* A source's slot: one event adds a call, 7 bytes and a histogram count. */
struct slot {
	struct ebpf_slot_seq seq;
	__u64 calls, bytes, hist[4];
} __attribute__((aligned(EBPF_SLOT_ALIGN)));

static void enter(struct slot *s)
{
	__atomic_fetch_add(&s->seq.begun, 1, __ATOMIC_SEQ_CST);
}

static void leave(struct slot *s)
{
	__atomic_fetch_add(&s->seq.ended, 1, __ATOMIC_SEQ_CST);
}

static void payload(struct slot *s, unsigned bucket)
{
	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->bytes, 7, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->hist[bucket % 4], 1, __ATOMIC_RELAXED);
}

static void event(struct slot *s, unsigned bucket)
{
	enter(s);
	payload(s, bucket);
	leave(s);
}

TEST(sums_whole_slots_and_follows_them)
{
	static struct slot slots[3];
	struct ebpf_slots r;
	EXPECT_EQ(ebpf_slots_init(&r, slots, sizeof(struct slot), 3), 0);
	const struct slot *t = ebpf_slots_read(&r);
	EXPECT_EQ(t->calls, 0);
	event(&slots[0], 1);
	event(&slots[2], 2);
	event(&slots[2], 2);
	t = ebpf_slots_read(&r);
	EXPECT_EQ(t->calls, 3);
	EXPECT_EQ(t->bytes, 21);
	EXPECT_EQ(t->hist[1], 1);
	EXPECT_EQ(t->hist[2], 2);
	EXPECT_EQ(t->seq.begun + t->seq.ended, 0);
	t = ebpf_slots_read(&r); /* nothing new: the same sums */
	EXPECT_EQ(t->calls, 3);
	event(&slots[1], 3);
	EXPECT_EQ(((const struct slot *)ebpf_slots_read(&r))->calls, 4);
	EXPECT_EQ(r.deferred, 0);
	ebpf_slots_close(&r);
}

/* Two updates of one slot interleave (a program preempted by another on
 * the same CPU): the slot keeps its older copy until both have ended, so no
 * read ever holds a call without its bytes. */
TEST(a_slot_mid_update_keeps_its_older_copy)
{
	static struct slot slots[2];
	struct ebpf_slots r;
	EXPECT_EQ(ebpf_slots_init(&r, slots, sizeof(struct slot), 2), 0);
	event(&slots[0], 0);
	event(&slots[1], 0);
	EXPECT_EQ(((const struct slot *)ebpf_slots_read(&r))->calls, 2);

	enter(&slots[0]); /* A begins ... */
	__atomic_fetch_add(&slots[0].calls, 1, __ATOMIC_RELAXED);
	event(&slots[0], 1); /* ... B runs whole meanwhile */
	event(&slots[1], 1); /* another CPU is not held up */
	const struct slot *t = ebpf_slots_read(&r);
	EXPECT_EQ(t->calls, 3);
	EXPECT_EQ(t->bytes, 21);
	EXPECT_EQ(r.deferred, 1);

	__atomic_fetch_add(&slots[0].bytes, 7, __ATOMIC_RELAXED); /* A ends */
	__atomic_fetch_add(&slots[0].hist[3], 1, __ATOMIC_RELAXED);
	leave(&slots[0]);
	t = ebpf_slots_read(&r);
	EXPECT_EQ(t->calls, 5);
	EXPECT_EQ(t->bytes, 35);
	EXPECT_EQ(t->hist[0] + t->hist[1] + t->hist[3], 5);
	ebpf_slots_close(&r);
}

static struct slot shared[2];
static atomic_int stop_writing;
static __u64 written[3];

/* Slot 0 has two writers (updates of one CPU interleave), slot 1 one. */
static void *writer(void *arg)
{
	long w = (long)arg;
	__u64 n = 0;
	while (!atomic_load_explicit(&stop_writing, memory_order_relaxed))
		event(&shared[w == 2], (unsigned)n++);
	written[w] = n;
	return NULL;
}

/* Every read taken while three threads write is whole: bytes are 7 per
 * call and the histogram adds up to the calls; nothing goes backwards. A
 * reader that skipped the sequence check fails here within a few
 * thousand reads. (Two threads on two CPUs keep slot 0 mid-update far more
 * than a CPU's preempted programs ever do, so most of its reads keep the
 * older copy.) */
TEST(the_manifest_counts_the_reads_that_deferred)
{
	static struct slot slots[2];
	struct ebpf_slots r;
	EXPECT_EQ(ebpf_slots_init(&r, slots, sizeof(struct slot), 2), 0);
	json_t *m = json_object();
	ebpf_slots_read(&r);
	ebpf_slots_report(&r, m);
	EXPECT_EQ(json_integer_value(json_object_get(m, "slots_deferred")), 0);
	enter(&slots[1]); /* a program preempted inside its update */
	payload(&slots[1], 0);
	ebpf_slots_read(&r);
	ebpf_slots_read(&r);
	ebpf_slots_report(&r, m);
	EXPECT_EQ(json_integer_value(json_object_get(m, "slots_deferred")), 2);
	leave(&slots[1]);
	EXPECT_EQ(((const struct slot *)ebpf_slots_read(&r))->calls, 1);
	ebpf_slots_report(&r, m);
	EXPECT_EQ(json_integer_value(json_object_get(m, "slots_deferred")), 2);
	json_decref(m);
	ebpf_slots_close(&r);
}

/* The program preempted mid-update finishes it once told to (after the
 * test's ordinary read, however late a loaded machine runs that), a few
 * milliseconds on, so that the final read has to wait for it. */
static atomic_int finish_now;

static void *finish_later(void *arg)
{
	struct slot *s = arg;
	struct timespec ms = {0, 1000 * 1000};
	while (!atomic_load(&finish_now))
		nanosleep(&ms, NULL);
	for (int i = 0; i < 5; i++)
		nanosleep(&ms, NULL);
	payload(s, 1);
	leave(s);
	return NULL;
}

/* A final read (no read after it to leave counts for) waits for a slot
 * mid-update to be whole; only past its bound does it leave the slot,
 * and those counts are lost, which the manifest says. */
TEST(a_final_read_waits_for_a_slot_mid_update)
{
	static struct slot slots[2];
	struct ebpf_slots r;
	EXPECT_EQ(ebpf_slots_init(&r, slots, sizeof(struct slot), 2), 0);
	event(&slots[0], 0);
	EXPECT_EQ(((const struct slot *)ebpf_slots_read(&r))->calls, 1);
	enter(&slots[1]);
	payload(&slots[1], 0);
	pthread_t t;
	EXPECT_EQ(pthread_create(&t, NULL, finish_later, &slots[1]), 0);
	/* the ordinary read leaves it for the next; the final one waits, up to
	 * a bound far past the few milliseconds the update takes (valgrind's
	 * included) */
	EXPECT_EQ(((const struct slot *)ebpf_slots_read(&r))->calls, 1);
	atomic_store(&finish_now, 1);
	ebpf_slots_wait_whole(&r, 10LL * 1000 * 1000 * 1000);
	const struct slot *whole = ebpf_slots_read(&r);
	EXPECT_EQ(whole->calls, 3);
	EXPECT_EQ(whole->bytes, 21);
	pthread_join(t, NULL);
	EXPECT_EQ(r.lost, 0);

	enter(&slots[0]); /* never finished: the bound passes */
	json_t *m = json_object();
	ebpf_slots_wait_whole(&r, 30 * 1000 * 1000);
	EXPECT_EQ(((const struct slot *)ebpf_slots_read(&r))->calls, 3);
	ebpf_slots_report(&r, m);
	EXPECT_EQ(json_integer_value(json_object_get(m, "slots_lost")), 1);
	json_decref(m);
	ebpf_slots_close(&r);
}

TEST(reads_under_concurrent_writers_are_whole)
{
	struct ebpf_slots r;
	EXPECT_EQ(ebpf_slots_init(&r, shared, sizeof(struct slot), 2), 0);
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, writer, (void *)i);
	__u64 prev = 0;
	unsigned reads;
	for (reads = 0; reads < 200000; reads++) {
		const struct slot *s = ebpf_slots_read(&r);
		EXPECT_EQ(s->bytes, 7 * s->calls);
		EXPECT_EQ(s->hist[0] + s->hist[1] + s->hist[2] + s->hist[3], s->calls);
		EXPECT(s->calls >= prev);
		prev = s->calls;
	}
	atomic_store(&stop_writing, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* writers done: every slot is whole, and the sums have it all */
	EXPECT_EQ(((const struct slot *)ebpf_slots_read(&r))->calls,
		  written[0] + written[1] + written[2]);
	printf("    %u reads while writing, %llu events, %llu slot reads left for the next\n", reads,
	       (unsigned long long)(written[0] + written[1] + written[2]),
	       (unsigned long long)r.deferred);
	ebpf_slots_close(&r);
}
