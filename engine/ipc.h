/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Messages between the supervisor and a sampler process: one JSON object per
 * SOCK_SEQPACKET datagram, so a message is never split or merged.
 *
 *   sampler -> supervisor   {"msg":"ready","file":F,"manifest":{...}}
 *                           {"msg":"unavailable","error":E,"errno":N,"manifest":{...}}
 *                           {"msg":"done","rows":N,"missed_ticks":N}
 *                           {"msg":"failed","rows":N,"missed_ticks":N,"error":E,"errno":N}
 *   supervisor -> sampler   {"msg":"start","origin_ns":T}
 *                           {"msg":"stop"} */
#ifndef IOPSAMPLE_IPC_H
#define IOPSAMPLE_IPC_H

#include <jansson.h>

#define IPC_MAX 65536

int ipc_pair(int sv[2]);
/* Sends and releases msg. 0 or -errno. */
int ipc_send(int fd, json_t *msg);
/* 0 with *msg set; -EPIPE when the peer is gone; -EAGAIN on a non-blocking
 * socket with nothing waiting; -EPROTO for a datagram that is not JSON. */
int ipc_recv(int fd, json_t **msg);
/* The "msg" member, "" when missing. */
const char *ipc_kind(const json_t *msg);

#endif
