/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel's taskstats interface over generic netlink, through libmnl.
 *
 * Two sockets per sampler: one asks (TASKSTATS_CMD_GET for one thread, the
 * reply read at once), one listens (registered for every possible CPU, so
 * the final stats of every exiting task on the host arrive on it, sent
 * from the exiting task itself before it leaves /proc). Both need
 * CAP_NET_ADMIN; the listener also needs the host's user and pid
 * namespaces. */
#ifndef IOPSAMPLE_TS_NETLINK_H
#define IOPSAMPLE_TS_NETLINK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "log.h"
#include "ts_record.h"

struct mnl_socket;
struct ts_batch;

struct ts_sock {
	struct mnl_socket *nl;
	uint16_t family;
	uint32_t portid, seq;
	char *buf; /* one receive's worth */
	struct ts_batch *batch; /* ts_get_many's, once it is used */
	char cpumask[256]; /* the CPUs a listener registered for */
};

/* Opens a socket and finds the TASKSTATS family; rcvbuf > 0 sizes its
 * receive buffer (past net.core.rmem_max where CAP_NET_ADMIN allows). */
int ts_open(struct ts_sock *s, int rcvbuf, struct errbuf *why);
void ts_close(struct ts_sock *s);

/* The stats of thread tid: 0, -ESRCH when it is gone, or -errno. */
int ts_get(struct ts_sock *s, pid_t tid, struct ts_record *out, struct errbuf *why);

/* The stats of many threads: requests sent TS_BATCH at a time in one
 * message each batch (the kernel answers them all before the send returns),
 * the answers received by recvmmsg. cb gets each thread's (none for a
 * thread gone) with asked_ns, taken before its batch was sent, and
 * answered_ns, after; a nonzero return from cb stops and is returned. 0,
 * or -errno. A batch whose answers did not all fit the receive buffer has
 * the missing ones asked again one by one. */
#define TS_BATCH 64
int ts_get_many(struct ts_sock *s, const pid_t *tids, size_t n,
		int (*cb)(void *arg, const struct ts_record *r, uint64_t asked_ns,
			  uint64_t answered_ns),
		void *arg, struct errbuf *why);

/* Registers s for the exit records of every possible CPU. */
int ts_listen(struct ts_sock *s, struct errbuf *why);

/* Undoes ts_listen (closing the socket alone leaves the kernel a dead
 * listener until the next exit on each CPU finds it). */
void ts_unlisten(struct ts_sock *s);

/* Reads what the listener has queued, without waiting: each exit record
 * goes to cb with the CLOCK_MONOTONIC time it was received, which is after
 * the task exited. 0 or -errno; a loss (the receive buffer overflowed since
 * the last read) increments *overflows and the reading goes on. */
int ts_drain(struct ts_sock *s,
	     void (*cb)(void *arg, const struct ts_record *r, uint64_t received_ns), void *arg,
	     unsigned *overflows);

/* The socket's descriptor, for poll. */
int ts_fd(const struct ts_sock *s);

#endif
