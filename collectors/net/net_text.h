/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The network's counters as the kernel prints them for a network namespace:
 *
 *   /proc/PID/net/dev      a line per interface, "NAME: " and 16 counters
 *                          (net/core/net-procfs.c dev_seq_printf_stats:
 *                          receive bytes packets errs drop fifo frame
 *                          compressed multicast, transmit bytes packets
 *                          errs drop fifo colls carrier compressed);
 *   /proc/PID/net/snmp,    pairs of lines, "Tcp: Name Name ..." then
 *   /proc/PID/net/netstat  "Tcp: value value ..." (net/ipv4/proc.c): a
 *                          counter is found by its group and its name,
 *                          wherever a kernel puts it. */
#ifndef IOPSAMPLE_NET_TEXT_H
#define IOPSAMPLE_NET_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum net_dev_field {
	ND_RX_BYTES,
	ND_RX_PACKETS,
	ND_RX_ERRORS,
	ND_RX_DROPPED,
	ND_RX_FIFO,
	ND_RX_FRAME,
	ND_RX_COMPRESSED,
	ND_RX_MULTICAST,
	ND_TX_BYTES,
	ND_TX_PACKETS,
	ND_TX_ERRORS,
	ND_TX_DROPPED,
	ND_TX_FIFO,
	ND_TX_COLLS,
	ND_TX_CARRIER,
	ND_TX_COMPRESSED,
	ND_NFIELDS
};

#define NET_IFNAME_MAX 16 /* IFNAMSIZ */

struct net_dev_line {
	char name[NET_IFNAME_MAX];
	uint64_t v[ND_NFIELDS];
};

/* The interface a line of /proc/net/dev is of, into name: 0, or -EINVAL
 * for a header. */
int net_dev_line_name(const char *line, char name[NET_IFNAME_MAX]);
/* One line of /proc/net/dev: 0, or -EINVAL for a header or a line that
 * is not NAME: and 16 numbers. */
int net_dev_parse_line(const char *line, struct net_dev_line *out);

/* A counter of /proc/net/snmp or /proc/net/netstat: its group and its
 * name ("Tcp", "RetransSegs"). */
struct net_snmp_counter {
	const char *group, *name;
};

/* The values of the n counters want names, in one pass over the text of
 * /proc/net/snmp or /proc/net/netstat: known[i] and out[i] for each the
 * kernel prints, known[i] false for one it does not (or whose value is
 * not a count: Tcp's MaxConn is -1). Counters past the 64th are not
 * read (known false). */
void net_snmp_values(const char *text, const struct net_snmp_counter *want, size_t n, uint64_t *out,
		     bool *known);

#endif
