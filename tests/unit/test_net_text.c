// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc/net/dev's lines and /proc/net/snmp's and netstat's counters, on
 * text as Linux 6.18 prints it here. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "net/net_text.h"
#include "testing.h"

TEST(an_interface_s_line_gives_its_sixteen_counters)
{
	struct net_dev_line l;
	EXPECT_EQ(net_dev_parse_line("    lo: 707238297   53926    0    0    0     0          0         0 707238297   "
				     "53926    0    0    0     0       0          0", &l), 0);
	EXPECT_STR(l.name, "lo");
	EXPECT_EQ(l.v[ND_RX_BYTES], 707238297);
	EXPECT_EQ(l.v[ND_RX_PACKETS], 53926);
	EXPECT_EQ(l.v[ND_TX_BYTES], 707238297);
	/* a name the line runs into its numbers (a busy interface's bytes) */
	EXPECT_EQ(net_dev_parse_line("enp0s31f6:1234567890123 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", &l), 0);
	EXPECT_STR(l.name, "enp0s31f6");
	EXPECT_EQ(l.v[ND_RX_BYTES], 1234567890123ULL);
	EXPECT_EQ(l.v[ND_RX_DROPPED], 4);
	EXPECT_EQ(l.v[ND_TX_BYTES], 9);
	EXPECT_EQ(l.v[ND_TX_DROPPED], 12);
	EXPECT_EQ(l.v[ND_TX_COMPRESSED], 16);
	/* the two header lines, and a short line, are not interfaces */
	EXPECT(net_dev_parse_line("Inter-|   Receive                                                |  Transmit", &l) < 0);
	EXPECT(net_dev_parse_line(" face |bytes    packets errs drop fifo frame compressed multicast|bytes", &l) < 0);
	EXPECT(net_dev_parse_line("  eth0: 1 2 3", &l) < 0);
	/* past 64 bits, or a sign: not the kernel's %llu */
	EXPECT(net_dev_parse_line("e: 18446744073709551616 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", &l) < 0);
	EXPECT(net_dev_parse_line("e: 18446744073709551615 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", &l) == 0 &&
	       l.v[ND_RX_BYTES] == 18446744073709551615ULL);
	EXPECT(net_dev_parse_line("e: -1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", &l) < 0);
	char name[NET_IFNAME_MAX];
	EXPECT(net_dev_line_name("  wlp2s0: 1 2", name) == 0 && !strcmp(name, "wlp2s0"));
	EXPECT(net_dev_line_name(" face |bytes", name) < 0);
}

static const char snmp[] =
	"Ip: Forwarding DefaultTTL InReceives\n"
	"Ip: 1 64 200\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs "
	"OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 1717 765 884 35 0 68892 62111 28 0 973 0\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
	"Udp: 10 2 5 11 4 0 0 0 0\n"
	"UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
	"UdpLite: 0 0 99 0 98 0 0 0 0\n";

/* One counter, alone. */
static bool net_snmp_value(const char *text, const char *group, const char *name, uint64_t *out)
{
	bool known;
	net_snmp_values(text, &(struct net_snmp_counter){group, name}, 1, out, &known);
	return known;
}

TEST(a_counter_is_found_by_its_group_and_name)
{
	uint64_t v = 0;
	EXPECT(net_snmp_value(snmp, "Tcp", "RetransSegs", &v) && v == 28);
	EXPECT(net_snmp_value(snmp, "Tcp", "OutRsts", &v) && v == 973);
	EXPECT(net_snmp_value(snmp, "Tcp", "ActiveOpens", &v) && v == 1717);
	EXPECT(net_snmp_value(snmp, "Tcp", "InCsumErrors", &v) && v == 0);
	/* Udp, not UdpLite, whose line comes after it */
	EXPECT(net_snmp_value(snmp, "Udp", "InErrors", &v) && v == 5);
	EXPECT(net_snmp_value(snmp, "Udp", "RcvbufErrors", &v) && v == 4);
	EXPECT(net_snmp_value(snmp, "UdpLite", "RcvbufErrors", &v) && v == 98);
	/* what this kernel does not print is absent, not 0 */
	EXPECT(!net_snmp_value(snmp, "Tcp", "NoSuchCounter", &v));
	EXPECT(!net_snmp_value(snmp, "TcpExt", "ListenDrops", &v));
	/* MaxConn is -1 (a signed counter): not a count this reads */
	EXPECT(!net_snmp_value(snmp, "Tcp", "MaxConn", &v));
	/* a header without its values */
	EXPECT(!net_snmp_value("Tcp: A B\n", "Tcp", "A", &v));
	EXPECT(net_snmp_value("TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 7 9", "TcpExt",
			      "ListenDrops", &v) && v == 9);
}

TEST(many_counters_of_several_groups_are_read_in_one_pass_as_one_by_one)
{
	static const struct net_snmp_counter want[] = {
		{"Udp", "RcvbufErrors"}, {"Tcp", "OutRsts"},      {"Tcp", "MaxConn"},
		{"UdpLite", "InErrors"}, {"Tcp", "RetransSegs"},  {"TcpExt", "ListenDrops"},
		{"Tcp", "InCsumErrors"}, {"Ip", "NoSuchCounter"}, {"Ip", "Forwarding"},
	};
	enum { N = sizeof(want) / sizeof(want[0]) };
	uint64_t got[N], one;
	bool known[N];
	memset(got, 0xff, sizeof(got));
	net_snmp_values(snmp, want, N, got, known);
	for (size_t i = 0; i < N; i++) {
		bool alone = net_snmp_value(snmp, want[i].group, want[i].name, &one);
		EXPECT(known[i] == alone);
		EXPECT(!alone || got[i] == one);
	}
	EXPECT(known[0] && got[0] == 4 && known[1] && got[1] == 973 && !known[2] && known[3] && got[3] == 99);
	EXPECT(known[4] && got[4] == 28 && !known[5] && known[6] && got[6] == 0 && !known[7]);
	EXPECT(known[8] && got[8] == 1);

	/* a group printed twice (a kernel's extension): a counter the first
	 * pair lacks is looked for in the next */
	static const char twice[] = "TcpExt: A B\nTcpExt: 1 2\nTcpExt: C\nTcpExt: 3\n";
	static const struct net_snmp_counter abc[] = {{"TcpExt", "C"}, {"TcpExt", "B"}};
	uint64_t v[2];
	bool k[2];
	net_snmp_values(twice, abc, 2, v, k);
	EXPECT(k[0] && v[0] == 3 && k[1] && v[1] == 2);
	/* none asked for */
	net_snmp_values(snmp, want, 0, v, k);
}

/* What the kernel could print that is not a count: each unknown, the
 * counters beside it read. */
TEST(a_counter_without_a_count_is_unknown)
{
	uint64_t v = 0;
	EXPECT(!net_snmp_value("Tcp: A\nTcp:\n", "Tcp", "A", &v));   /* a value line without values */
	EXPECT(!net_snmp_value("Tcp: A B C\nTcp: 1 2\n", "Tcp", "C", &v)); /* shorter than its header */
	EXPECT(net_snmp_value("Tcp: A B C\nTcp: 1 2\n", "Tcp", "B", &v) && v == 2);
	EXPECT(!net_snmp_value("Tcp: A\nTcp: 18446744073709551616\n", "Tcp", "A", &v)); /* past 64 bits */
	EXPECT(net_snmp_value("Tcp: A\nTcp: 18446744073709551615\n", "Tcp", "A", &v) && v == UINT64_MAX);
	/* a group not asked for between two that are */
	static const char mixed[] = "Ip: X Y\nIp: 5 6\nTcp: A\nTcp: 7\nIcmp: Z\nIcmp: 8\nUdp: B\nUdp: 9\n";
	static const struct net_snmp_counter two[] = {{"Udp", "B"}, {"Tcp", "A"}};
	uint64_t got[2];
	bool known[2];
	net_snmp_values(mixed, two, 2, got, known);
	EXPECT(known[0] && got[0] == 9 && known[1] && got[1] == 7);
	/* past the 64th counter: not read, and said so */
	struct net_snmp_counter many[66];
	uint64_t out[66];
	bool k[66];
	for (size_t i = 0; i < 66; i++)
		many[i] = (struct net_snmp_counter){"Tcp", "A"};
	net_snmp_values(mixed, many, 66, out, k);
	EXPECT(k[0] && out[0] == 7 && k[63] && out[63] == 7 && !k[64] && !k[65]);
}
