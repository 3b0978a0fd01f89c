// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* SEQPACKET + JSON message passing. */
#define _GNU_SOURCE
#include "ipc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int ipc_pair(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ? -errno : 0;
}

int ipc_send(int fd, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (!text)
		return -ENOMEM;
	ssize_t n;
	do
		n = send(fd, text, strlen(text), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	int r = n < 0 ? -errno : 0;
	free(text);
	return r;
}

int ipc_recv(int fd, json_t **msg)
{
	static char buf[IPC_MAX];
	ssize_t n;
	/* A peer that closed with a message of ours unread leaves ECONNRESET
	 * pending, and the kernel reports it before what the peer sent last (a
	 * sampler's "failed" after the supervisor's "stop"). Reading it clears
	 * it: the next recv gives the messages still queued, then 0. */
	do
		n = recv(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && (errno == EINTR || errno == ECONNRESET));
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EPIPE;
	*msg = json_loadb(buf, (size_t)n, 0, NULL);
	return *msg ? 0 : -EPROTO;
}

const char *ipc_kind(const json_t *msg)
{
	const char *k = json_string_value(json_object_get(msg, "msg"));
	return k ? k : "";
}
