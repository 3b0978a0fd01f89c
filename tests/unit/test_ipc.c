// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The supervisor's and samplers' messages. */
#include <errno.h>
#include <unistd.h>

#include "ipc.h"
#include "testing.h"

/* A sampler that fails sends "failed" and exits with the supervisor's
 * "stop" unread: the kernel then reports ECONNRESET before the message. The
 * message still arrives, and then the end. */
TEST(a_last_message_survives_a_close_with_ours_unread)
{
	int sv[2];
	EXPECT_EQ(ipc_pair(sv), 0);
	EXPECT_EQ(ipc_send(sv[0], json_pack("{s:s}", "msg", "stop")), 0);
	EXPECT_EQ(ipc_send(sv[1], json_pack("{s:s, s:s}", "msg", "failed", "error", "x.jsonl: full")), 0);
	close(sv[1]);
	json_t *m = NULL;
	EXPECT_EQ(ipc_recv(sv[0], &m), 0);
	EXPECT_STR(ipc_kind(m), "failed");
	EXPECT_STR(json_string_value(json_object_get(m, "error")), "x.jsonl: full");
	json_decref(m);
	EXPECT_EQ(ipc_recv(sv[0], &m), -EPIPE);
	close(sv[0]);
}

TEST(messages_arrive_whole_and_in_order)
{
	int sv[2];
	EXPECT_EQ(ipc_pair(sv), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(ipc_send(sv[1], json_pack("{s:s, s:i}", "msg", "ready", "n", i)), 0);
	for (int i = 0; i < 3; i++) {
		json_t *m = NULL;
		EXPECT_EQ(ipc_recv(sv[0], &m), 0);
		EXPECT_EQ(json_integer_value(json_object_get(m, "n")), i);
		json_decref(m);
	}
	close(sv[1]);
	json_t *m = NULL;
	EXPECT_EQ(ipc_recv(sv[0], &m), -EPIPE);
	close(sv[0]);
}
