// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Generic netlink for taskstats; see ts_netlink.h. */
#define _GNU_SOURCE
#include "ts_netlink.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "procfs.h"

#define BUF_SIZE MNL_SOCKET_BUFFER_SIZE

static struct nlmsghdr *request(struct ts_sock *s, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *n = mnl_nlmsg_put_header(s->buf);
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST;
	n->nlmsg_seq = ++s->seq;
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(n, sizeof(*g));
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
	return n;
}

/* Sends n and runs cb over the reply (an error reply becomes -errno). */
static int transact(struct ts_sock *s, struct nlmsghdr *n, mnl_cb_t cb, void *data)
{
	uint32_t seq = n->nlmsg_seq;
	bool ack = n->nlmsg_flags & NLM_F_ACK; /* n is in the buffer the reply overwrites */
	if (mnl_socket_sendto(s->nl, n, n->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t len = mnl_socket_recvfrom(s->nl, s->buf, BUF_SIZE);
		if (len < 0)
			return errno == EINTR ? (errno = 0, -EINTR) : -errno;
		int r = mnl_cb_run(s->buf, (size_t)len, seq, s->portid, cb, data);
		if (r < 0)
			return -errno;
		if (r == MNL_CB_STOP || !ack)
			return 0;
	}
}

static int family_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U16) == 0)
		*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_msg(const struct nlmsghdr *n, void *data)
{
	return mnl_attr_parse(n, sizeof(struct genlmsghdr), family_attr, data) < 0 ? MNL_CB_ERROR
										  : MNL_CB_OK;
}

int ts_open(struct ts_sock *s, int rcvbuf, struct errbuf *why)
{
	memset(s, 0, sizeof(*s));
	s->buf = calloc(1, BUF_SIZE); /* attributes' padding is sent as it is */
	if (!s->buf)
		return errbuf_set(why, ENOMEM, "out of memory");
	s->nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!s->nl || mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		return errbuf_set(why, errno, "netlink socket: %s", strerror(errno));
	s->portid = mnl_socket_get_portid(s->nl);
	if (rcvbuf > 0 &&
	    setsockopt(mnl_socket_get_fd(s->nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(mnl_socket_get_fd(s->nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	struct nlmsghdr *n = request(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	mnl_attr_put_strz(n, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME);
	int r = transact(s, n, family_msg, &s->family);
	if (r == -ENOENT)
		return errbuf_set(why, ENOTSUP, "the kernel has no taskstats (CONFIG_TASKSTATS)");
	if (r < 0)
		return errbuf_set(why, -r, "netlink: looking up TASKSTATS: %s", strerror(-r));
	if (!s->family)
		return errbuf_set(why, EPROTO, "netlink: no id for the TASKSTATS family");
	return 0;
}

void ts_close(struct ts_sock *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	free(s->buf);
	free(s->batch);
	memset(s, 0, sizeof(*s));
}

int ts_fd(const struct ts_sock *s)
{
	return mnl_socket_get_fd(s->nl);
}

/* One message's AGGR_PID (pid, stats) and AGGR_TGID (its tgid). */
struct parsed {
	struct ts_record rec;
	bool have;
	pid_t tgid;
};

static int inner_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t t = mnl_attr_get_type(a);
	if (t <= TASKSTATS_TYPE_MAX)
		tb[t] = a;
	return MNL_CB_OK;
}

static int outer_attr(const struct nlattr *a, void *data)
{
	struct parsed *p = data;
	uint16_t t = mnl_attr_get_type(a);
	if (t != TASKSTATS_TYPE_AGGR_PID && t != TASKSTATS_TYPE_AGGR_TGID)
		return MNL_CB_OK;
	const struct nlattr *tb[TASKSTATS_TYPE_MAX + 1] = {0};
	if (mnl_attr_parse_nested(a, inner_attr, tb) < 0)
		return MNL_CB_ERROR;
	if (t == TASKSTATS_TYPE_AGGR_TGID) {
		if (tb[TASKSTATS_TYPE_TGID] && mnl_attr_validate(tb[TASKSTATS_TYPE_TGID], MNL_TYPE_U32) == 0)
			p->tgid = (pid_t)mnl_attr_get_u32(tb[TASKSTATS_TYPE_TGID]);
		return MNL_CB_OK;
	}
	const struct nlattr *st = tb[TASKSTATS_TYPE_STATS];
	if (!st || ts_decode(mnl_attr_get_payload(st), mnl_attr_get_payload_len(st), &p->rec) < 0)
		return MNL_CB_ERROR;
	if (tb[TASKSTATS_TYPE_PID] && mnl_attr_validate(tb[TASKSTATS_TYPE_PID], MNL_TYPE_U32) == 0)
		p->rec.tid = (pid_t)mnl_attr_get_u32(tb[TASKSTATS_TYPE_PID]);
	p->have = true;
	return MNL_CB_OK;
}

static int stats_msg(const struct nlmsghdr *n, void *data)
{
	struct parsed *p = data;
	p->have = false;
	p->tgid = 0;
	if (mnl_attr_parse(n, sizeof(struct genlmsghdr), outer_attr, p) < 0 || !p->have)
		return MNL_CB_ERROR;
	/* Before version 12 only a thread group's last exit names the group. */
	if (!p->rec.tgid)
		p->rec.tgid = p->tgid;
	return MNL_CB_OK;
}

int ts_get(struct ts_sock *s, pid_t tid, struct ts_record *out, struct errbuf *why)
{
	struct nlmsghdr *n = request(s, s->family, TASKSTATS_CMD_GET);
	mnl_attr_put_u32(n, TASKSTATS_CMD_ATTR_PID, (uint32_t)tid);
	struct parsed p;
	int r;
	while ((r = transact(s, n, stats_msg, &p)) == -EINTR)
		;
	if (r == -ESRCH || r == -ENOENT)
		return -ESRCH;
	if (r < 0)
		return errbuf_set(why, -r, "taskstats of thread %d: %s", (int)tid, strerror(-r));
	*out = p.rec;
	return 0;
}

/* One request as the kernel reads it: the header, the command, the pid. */
struct get_request {
	struct nlmsghdr n;
	struct genlmsghdr g;
	struct nlattr a;
	uint32_t pid;
};

/* One batch: its requests, sent with sequence numbers first.., and their
 * answers. */
struct ts_batch {
	struct get_request req[TS_BATCH];
	uint32_t first;
	size_t k;
	bool answered[TS_BATCH];
	char reply[TS_BATCH][1024];
};

int ts_get_many(struct ts_sock *s, const pid_t *tids, size_t n,
		int (*cb)(void *arg, const struct ts_record *r, uint64_t asked_ns,
			  uint64_t answered_ns),
		void *arg, struct errbuf *why)
{
	if (!s->batch && !(s->batch = malloc(sizeof(*s->batch))))
		return errbuf_set(why, ENOMEM, "out of memory");
	struct ts_batch *b = s->batch;
	struct get_request *req = b->req;
	int fd = mnl_socket_get_fd(s->nl);
	for (size_t from = 0; from < n; from += b->k) {
		b->k = n - from < TS_BATCH ? n - from : TS_BATCH;
		b->first = s->seq + 1;
		for (size_t i = 0; i < b->k; i++) {
			req[i] = (struct get_request){
				.n = {.nlmsg_len = sizeof(req[i]), .nlmsg_type = s->family,
				      .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = ++s->seq},
				.g = {.cmd = TASKSTATS_CMD_GET, .version = TASKSTATS_GENL_VERSION},
				.a = {.nla_len = NLA_HDRLEN + sizeof(uint32_t), .nla_type = TASKSTATS_CMD_ATTR_PID},
				.pid = (uint32_t)tids[from + i]};
			b->answered[i] = false;
		}
		uint64_t asked = (uint64_t)clock_mono_ns();
		ssize_t sent;
		while ((sent = send(fd, req, b->k * sizeof(req[0]), 0)) < 0 && errno == EINTR)
			;
		if (sent < 0)
			return errbuf_set(why, errno, "taskstats: asking for %zu threads: %s", b->k,
					  strerror(errno));
		uint64_t answered = (uint64_t)clock_mono_ns();

		/* every answer is queued by now, unless the buffer overflowed */
		struct mmsghdr msg[TS_BATCH];
		struct iovec iov[TS_BATCH];
		for (size_t got = 0; got < b->k;) {
			size_t want = b->k - got;
			for (size_t i = 0; i < want; i++) {
				iov[i] = (struct iovec){b->reply[i], sizeof(b->reply[i])};
				msg[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
			}
			int r = recvmmsg(fd, msg, (unsigned)want, MSG_DONTWAIT, NULL);
			if (r < 0 && (errno == EINTR || errno == ENOBUFS))
				continue; /* ENOBUFS: some were lost, the rest are queued */
			if (r < 0 && errno == EAGAIN)
				break; /* those lost are asked again below */
			if (r < 0)
				return errbuf_set(why, errno, "taskstats: receiving: %s", strerror(errno));
			for (int m = 0; m < r; m++) {
				got++;
				const struct nlmsghdr *h = (const struct nlmsghdr *)b->reply[m];
				if (!mnl_nlmsg_ok(h, (int)msg[m].msg_len) || h->nlmsg_seq - b->first >= b->k)
					continue;
				size_t i = h->nlmsg_seq - b->first;
				b->answered[i] = true;
				struct parsed p;
				if (h->nlmsg_type != s->family || stats_msg(h, &p) != MNL_CB_OK)
					continue; /* an error: the thread is gone */
				int c = cb(arg, &p.rec, asked, answered);
				if (c)
					return c;
			}
		}
		for (size_t i = 0; i < b->k; i++) {
			if (b->answered[i])
				continue;
			struct ts_record rec;
			uint64_t again = (uint64_t)clock_mono_ns();
			int r = ts_get(s, tids[from + i], &rec, why);
			if (r == -ESRCH)
				continue;
			if (r < 0 || (r = cb(arg, &rec, again, (uint64_t)clock_mono_ns())))
				return r;
		}
	}
	return 0;
}

int ts_listen(struct ts_sock *s, struct errbuf *why)
{
	ssize_t n = procfs_read("/sys/devices/system/cpu/possible", s->cpumask, sizeof(s->cpumask));
	if (n <= 0)
		return errbuf_set(why, n < 0 ? (int)-n : EIO, "/sys/devices/system/cpu/possible: %s",
				  strerror(n < 0 ? (int)-n : EIO));
	s->cpumask[strcspn(s->cpumask, "\n")] = '\0';
	struct nlmsghdr *m = request(s, s->family, TASKSTATS_CMD_GET);
	mnl_attr_put_strz(m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, s->cpumask);
	m->nlmsg_flags |= NLM_F_ACK;
	int r = transact(s, m, NULL, NULL);
	if (r == -EINVAL)
		return errbuf_set(why, EPERM,
				  "taskstats exit notifications need the host's user and pid namespaces");
	if (r < 0)
		return errbuf_set(why, -r, "registering for taskstats exit notifications (CPUs %s): %s",
				  s->cpumask, strerror(-r));
	return 0;
}

void ts_unlisten(struct ts_sock *s)
{
	if (!*s->cpumask)
		return;
	struct nlmsghdr *m = request(s, s->family, TASKSTATS_CMD_GET);
	mnl_attr_put_strz(m, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, s->cpumask);
	/* no acknowledgement asked: exit records may be queued ahead of it */
	mnl_socket_sendto(s->nl, m, m->nlmsg_len);
	*s->cpumask = '\0';
}

int ts_drain(struct ts_sock *s,
	     void (*cb)(void *arg, const struct ts_record *r, uint64_t received_ns), void *arg,
	     unsigned *overflows)
{
	for (;;) {
		ssize_t len = recv(mnl_socket_get_fd(s->nl), s->buf, BUF_SIZE, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == ENOBUFS) {
				(*overflows)++;
				continue;
			}
			if (errno == EINTR)
				continue;
			return -errno;
		}
		uint64_t received = (uint64_t)clock_mono_ns();
		/* each message is one exit, from the kernel (port 0, seq 0) */
		int left = (int)len;
		const struct nlmsghdr *n = (const struct nlmsghdr *)s->buf;
		for (; mnl_nlmsg_ok(n, left); n = mnl_nlmsg_next(n, &left)) {
			struct parsed p;
			if (n->nlmsg_type == s->family && stats_msg(n, &p) == MNL_CB_OK)
				cb(arg, &p.rec, received);
		}
	}
}
