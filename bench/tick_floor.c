/* tick_floor: what waking up on a 10 ms grid costs on this host, and nothing
 * else: the sampler's own wait (an absolute CLOCK_MONOTONIC timerfd in an
 * epoll set) with no work per tick. bench/perf_event.py runs it beside the
 * two samplers it compares, so each can be read as this floor plus its own
 * work. Prints the on-CPU ns per tick (the scheduler's exact clock).
 *
 *   tick_floor TICKS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

static uint64_t on_cpu_ns(void)
{
	char buf[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (n <= 0) {
		perror("schedstat");
		exit(1);
	}
	close(fd);
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	long ticks = argc > 1 ? atol(argv[1]) : 300;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	struct itimerspec its = {.it_interval = {0, 10000000}, .it_value = {now.tv_sec + 1, now.tv_nsec}};
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event want = {.events = EPOLLIN, .data.fd = tfd};
	if (tfd < 0 || ep < 0 || timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &want) < 0) {
		perror("timerfd");
		return 1;
	}
	uint64_t start = 0;
	for (long i = -1; i < ticks; i++) {
		struct epoll_event got;
		uint64_t expirations;
		if (epoll_wait(ep, &got, 1, -1) == 1 && read(tfd, &expirations, sizeof(expirations)) < 0)
			perror("read");
		if (i == -1)
			start = on_cpu_ns(); /* from the first tick on: no start-up cost */
	}
	printf("%" PRIu64 "\n", (on_cpu_ns() - start) / (uint64_t)ticks);
	return 0;
}
