// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sd_notify(3)'s datagram, without libsystemd: see sd_notify.h. */
#define _GNU_SOURCE
#include "sd_notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

static char *notify_socket;

void sd_notify_init(void)
{
	const char *v = getenv("NOTIFY_SOCKET");
	free(notify_socket);
	notify_socket = v && *v ? strdup(v) : NULL;
	unsetenv("NOTIFY_SOCKET");
}

int sd_notify_send(const char *state)
{
	if (!notify_socket)
		return 0;
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(notify_socket);
	int r = 0;
	if ((notify_socket[0] != '/' && notify_socket[0] != '@') || len >= sizeof(addr.sun_path)) {
		r = -EINVAL;
	} else {
		memcpy(addr.sun_path, notify_socket, len);
		if (addr.sun_path[0] == '@')
			addr.sun_path[0] = '\0'; /* the abstract namespace */
		int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr,
				     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
			r = -errno;
		if (fd >= 0)
			close(fd);
	}
	if (r < 0)
		log_error("NOTIFY_SOCKET=%s: cannot send %s: %s", notify_socket, state,
			  r == -EINVAL ? "not an absolute path or @name" : strerror(-r));
	return r;
}
