// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* scale_floor: the least a sampler can spend per tick on a source's reads.
 *
 * A bare loop on the same 10 ms grid (an absolute CLOCK_MONOTONIC timerfd)
 * doing the reads the source does, everything kept open, and writing one
 * line per tick of the length of the source's rows to OUT. bench/scale.py
 * runs it beside each source on the same idle tree; bench/perf_event.py
 * uses its wait mode. Prints its on-CPU ns per tick (the scheduler's exact
 * clock) over TICKS ticks, the first one not counted. SCALE_FLOOR_GRID_NS,
 * when set, is a CLOCK_MONOTONIC time in ns its ticks fall on, modulo the
 * interval: bench/scale.py puts them half an interval off the sampler's,
 * so that the two rarely read at once (only a tick longer than that) (at the same instant, they share or
 * fight for what the reads touch, and a floor whose phase fell anywhere
 * made each episode's ratio differ by a fifth from the next's).
 *
 *   scale_floor TICKS OUT LINE_LEN wait
 *       only the wait and the line (the eBPF sources: their counts are in
 *       memory mapped from the kernel, read without a system call)
 *   scale_floor TICKS OUT LINE_LEN files FILE...
 *       each FILE read whole from offset 0 (diskstats, cgroup)
 *   scale_floor TICKS OUT LINE_LEN proc ROOT CGROUP_PROCS
 *       proc_io's procfs backend with an episode cgroup: /proc/loadavg
 *       (whether a pid was handed out, which would need the cgroup's member
 *       list again; the list read once), each member's /proc/PID/io and
 *       the root's, and a poll of their pidfds (whether one exited, which
 *       would need its stat)
 *   scale_floor TICKS OUT LINE_LEN iter OBJECT PROGRAM ROOT
 *       a bpf backend: PROGRAM, a task iterator of the BPF object file
 *       OBJECT (proc_io's, taskstats'), over the map "tree" filled with
 *       ROOT's tree (every process below it, as the source's seeding
 *       does), run each tick by a read() of a new iterator descriptor,
 *       and the read's output, if any, taken in
 *   scale_floor TICKS OUT LINE_LEN taskstats CGROUP_THREADS
 *       the cgroup's thread list, then TASKSTATS_CMD_GET for each thread,
 *       sent 64 to a message and received with recvmmsg; a look at a
 *       socket registered for exit records, and kernel.task_delayacct
 *       (whether the delays still count)
 *   scale_floor TICKS OUT LINE_LEN threads CGROUP_THREADS
 *       waits' procfs backend: the cgroup's thread list, then each
 *       thread's /proc/TID/task/TID/stat and schedstat, kept open and read
 *       with pread (a thread that waits where it did is read no more)
 *   scale_floor TICKS OUT LINE_LEN perf PROCESSES EVENT...
 *       a tree of PROCESSES idle processes forked under counters opened
 *       as perf_event opens them (one group, inherited, on the tree's
 *       first process before it starts), one read of the group a tick
 *   scale_floor TICKS OUT LINE_LEN nvml LIBRARY
 *       NVML (LIBRARY: libnvidia-ml.so.1, or the test double) opened, and
 *       each tick the calls gpu makes for every GPU, on one thread: PCIe
 *       field values, utilization, memory, compute and graphics processes,
 *       power, SM clock, temperature, clock event reasons; the energy
 *       every 100 ms or 100 times what its last reading took */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/taskstats.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define BATCH 64

static char buf[1 << 16];
static char *list;
static size_t list_cap;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static uint64_t on_cpu_ns(void)
{
	char b[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);
	if (n <= 0)
		die("schedstat");
	close(fd);
	b[n] = '\0';
	return strtoull(b, NULL, 10);
}

/* A whole file from offset 0: until a read returns nothing. */
static size_t read_whole(int fd)
{
	size_t len = 0;
	for (;;) {
		if (list_cap - len < 4096 + 1) {
			list_cap = list_cap ? list_cap * 2 : 65536;
			if (!(list = realloc(list, list_cap)))
				die("realloc");
		}
		ssize_t n = pread(fd, list + len, list_cap - 1 - len, (off_t)len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	list[len] = '\0';
	return len;
}

static int open_or_die(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	return fd;
}

/* ---- files ---- */

static int *files;
static size_t nfiles;

/* ---- proc ---- */

static int *io; /* -1: beyond RLIMIT_NOFILE, opened each tick (as the sampler does) */
static pid_t *io_pid;
static size_t nio;
static int procs_fd = -1, ep = -1;

static int loadavg_fd = -1;
static size_t fds_used;

/* Descriptors this process may still open. */
static long fds_left(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1 << 20;
	return (long)rl.rlim_cur - (long)fds_used - 16;
}

static void proc_setup(pid_t root, const char *procs)
{
	loadavg_fd = open_or_die("/proc/loadavg");
	procs_fd = open_or_die(procs);
	read_whole(procs_fd);
	ep = epoll_create1(EPOLL_CLOEXEC);
	size_t n = 1;
	for (char *p = list; *p; p++)
		n += *p == '\n';
	io = calloc(n, sizeof(*io));
	io_pid = calloc(n, sizeof(*io_pid));
	pid_t pid = root;
	for (char *p = list, *end;; p = end) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
		io_pid[nio] = pid;
		/* two a process (io, pidfd) while 64 are left, as the sampler keeps
		 * its files up to its limit less 64 */
		io[nio] = fds_left() > 64 + 2 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (io[nio] < 0 && errno != EMFILE && fds_left() > 64 + 2)
			die(path);
		int pidfd = io[nio++] < 0 ? -1 : (int)syscall(SYS_pidfd_open, pid, 0);
		fds_used += (io[nio - 1] >= 0) + (pidfd >= 0);
		struct epoll_event ev = {.events = EPOLLIN};
		if (pidfd >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, pidfd, &ev) < 0)
			die("pidfd");
		pid = (pid_t)strtol(p, &end, 10);
		if (end == p)
			break;
	}
}

/* The seven counters of an io file ("rchar: 123" a line), added to a sum
 * the compiler must keep: the floor parses what the sampler parses. */
static volatile uint64_t io_sum;
static void parse_io(ssize_t len)
{
	if (len <= 0)
		return;
	buf[len < 511 ? len : 511] = '\0';
	uint64_t sum = 0;
	for (char *p = buf; (p = strchr(p, ':'));)
		sum += strtoull(p + 1, &p, 10);
	io_sum += sum;
}

static void proc_tick(void)
{
	if (pread(loadavg_fd, buf, 128, 0) <= 0)
		die("loadavg");
	for (size_t i = 0; i < nio; i++) { /* one gone since (ESRCH) costs its read too */
		if (io[i] >= 0) {
			parse_io(pread(io[i], buf, 512, 0));
			continue;
		}
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/io", (int)io_pid[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			parse_io(pread(fd, buf, 512, 0));
			close(fd);
		}
	}
	struct epoll_event ev[64];
	epoll_wait(ep, ev, 64, 0);
}

/* ---- a task iterator ---- */

static int iter_link = -1;

/* Every process below pid into the tree map, pid included. */
static void tree_add(int map, pid_t pid)
{
	__u32 key = (__u32)pid;
	__u64 seeded = 1; /* TREE_SEEDED */
	if (bpf_map_update_elem(map, &key, &seeded, BPF_ANY) < 0)
		die("tree map");
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char kids[320];
		snprintf(kids, sizeof(kids), "/proc/%d/task/%s/children", (int)pid, e->d_name);
		int fd = open(kids, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		read_whole(fd);
		close(fd);
		char *copy = strdup(list);
		for (char *p = copy, *end;; p = end) {
			long child = strtol(p, &end, 10);
			if (end == p)
				break;
			tree_add(map, (pid_t)child);
		}
		free(copy);
	}
	if (d)
		closedir(d);
}

static void iter_setup(const char *object, const char *program, pid_t root)
{
	struct bpf_object *obj = bpf_object__open_file(object, NULL);
	if (!obj || bpf_object__load(obj) < 0)
		die(object);
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, program);
	struct bpf_map *tree = bpf_object__find_map_by_name(obj, "tree");
	struct bpf_link *link = prog ? bpf_program__attach_iter(prog, NULL) : NULL;
	if (!link || !tree)
		die(program);
	tree_add(bpf_map__fd(tree), root);
	iter_link = bpf_link__fd(link);
}

static void iter_tick(void)
{
	int fd = bpf_iter_create(iter_link);
	if (fd < 0)
		die("bpf_iter_create");
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* ---- each thread's stat and schedstat (waits' procfs backend) ---- */

static int thread_list = -1;
static struct kept {
	pid_t tid;
	int stat, sched;
} *kept;
static size_t nkept, kept_cap;

static int kept_open(pid_t tid, const char *name)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)tid, (int)tid, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void threads_setup(const char *threads)
{
	thread_list = open_or_die(threads);
}

static void threads_tick(void)
{
	read_whole(thread_list);
	size_t at = 0;
	for (char *p = list, *end;; p = end) {
		long tid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (at == nkept) { /* a thread new to the list: its files opened once */
			if (nkept == kept_cap) {
				kept_cap = kept_cap ? 2 * kept_cap : 1024;
				kept = realloc(kept, kept_cap * sizeof(*kept));
				if (!kept)
					die("realloc");
			}
			kept[nkept++] = (struct kept){(pid_t)tid, kept_open((pid_t)tid, "stat"),
						      kept_open((pid_t)tid, "schedstat")};
		}
		struct kept *k = &kept[at++];
		if (k->stat >= 0)
			(void)!pread(k->stat, buf, sizeof(buf), 0);
		if (k->sched >= 0)
			(void)!pread(k->sched, buf, sizeof(buf), 0);
	}
}

/* ---- taskstats ---- */

static int nl = -1, listener = -1, threads_fd = -1, delayacct = -1;
static uint16_t family;
static pid_t *tids;
static size_t ntids;

static void taskstats_setup(const char *threads)
{
	threads_fd = open_or_die(threads);
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	int rcvbuf = 1 << 20;
	if (nl < 0 || bind(nl, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("netlink");
	setsockopt(nl, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char attrs[64];
	} req = {0};
	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	struct nlattr *a = (struct nlattr *)req.attrs;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + sizeof(TASKSTATS_GENL_NAME);
	memcpy((char *)a + NLA_HDRLEN, TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len);
	if (send(nl, &req, req.n.nlmsg_len, 0) < 0)
		die("send");
	ssize_t n = recv(nl, buf, sizeof(buf), 0);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlattr *at = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	for (ssize_t left = n - NLMSG_LENGTH(GENL_HDRLEN); left > 0;) {
		if (at->nla_type == CTRL_ATTR_FAMILY_ID)
			family = *(uint16_t *)((char *)at + NLA_HDRLEN);
		left -= NLA_ALIGN(at->nla_len);
		at = (struct nlattr *)((char *)at + NLA_ALIGN(at->nla_len));
	}
	if (!family)
		die("TASKSTATS");

	listener = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (listener < 0 || bind(listener, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("netlink");
	char cpus[64] = "0";
	int fd = open_or_die("/sys/devices/system/cpu/possible");
	ssize_t len = read(fd, cpus, sizeof(cpus) - 1);
	close(fd);
	cpus[len > 0 ? strcspn(cpus, "\n") : 1] = '\0';
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = family;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = TASKSTATS_CMD_GET;
	req.g.version = 1;
	a->nla_type = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK;
	a->nla_len = (uint16_t)(NLA_HDRLEN + strlen(cpus) + 1);
	memcpy((char *)a + NLA_HDRLEN, cpus, strlen(cpus) + 1);
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len);
	if (send(listener, &req, req.n.nlmsg_len, 0) < 0)
		die("register");
	delayacct = open_or_die("/proc/sys/kernel/task_delayacct");
}

static void taskstats_tick(void)
{
	while (recv(listener, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	if (pread(delayacct, buf, 8, 0) <= 0)
		die("task_delayacct");
	read_whole(threads_fd);
	ntids = 0;
	for (char *p = list, *end;; p = end) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (!(ntids % 1024) && !(tids = realloc(tids, (ntids + 1024) * sizeof(*tids))))
			die("realloc");
		tids[ntids++] = (pid_t)v;
	}
	static struct req {
		struct nlmsghdr n;
		struct genlmsghdr g;
		struct nlattr a;
		uint32_t pid;
	} reqs[BATCH];
	static char rbuf[BATCH][1024];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	for (size_t from = 0; from < ntids; from += BATCH) {
		size_t k = ntids - from < BATCH ? ntids - from : BATCH;
		for (size_t i = 0; i < k; i++)
			reqs[i] = (struct req){
				.n = {.nlmsg_len = sizeof(struct req), .nlmsg_type = family,
				      .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = (uint32_t)i},
				.g = {.cmd = TASKSTATS_CMD_GET, .version = 1},
				.a = {.nla_len = NLA_HDRLEN + 4, .nla_type = TASKSTATS_CMD_ATTR_PID},
				.pid = (uint32_t)tids[from + i]};
		if (send(nl, reqs, k * sizeof(struct req), 0) < 0)
			die("send");
		for (size_t i = 0; i < k; i++) {
			iov[i] = (struct iovec){rbuf[i], sizeof(rbuf[i])};
			msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
		}
		for (size_t got = 0; got < k;) {
			int r = recvmmsg(nl, msgs, (unsigned)(k - got), MSG_DONTWAIT, NULL);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
	}
}

/* ---- perf ---- */

static int leader = -1;

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[] = {
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
};

static void perf_setup(long processes, char **names, int n)
{
	int go[2];
	if (pipe(go) < 0)
		die("pipe");
	pid_t first = fork();
	if (first == 0) {
		char c;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1); /* the bench waits for the floor's output to end */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (long i = 1; i < processes; i++)
			if (fork() == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL); /* with the tree's first */
				break;
			}
		pause();
		_exit(0);
	}
	close(go[0]);
	for (int i = 0; i < n; i++) {
		size_t e = 0;
		while (e < sizeof(events) / sizeof(events[0]) && strcmp(events[e].name, names[i]))
			e++;
		if (e == sizeof(events) / sizeof(events[0])) {
			fprintf(stderr, "scale_floor: no event %s\n", names[i]);
			exit(2);
		}
		struct perf_event_attr attr = {.size = sizeof(attr), .type = events[e].type,
					       .config = events[e].config, .inherit = 1,
					       .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
							      PERF_FORMAT_TOTAL_TIME_RUNNING};
		if (leader < 0)
			attr.read_format |= PERF_FORMAT_GROUP;
		int fd = (int)syscall(SYS_perf_event_open, &attr, first, -1, leader, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			die(names[i]);
		if (leader < 0)
			leader = fd;
	}
	if (write(go[1], "g", 1) != 1)
		die("release");
	usleep(300000); /* the tree forks */
}

static void perf_tick(void)
{
	if (read(leader, buf, sizeof(buf)) <= 0)
		die("perf read");
}

/* ---- nvml ---- */

/* NVML's calls, by their types' sizes (the gpu source's nvml.h has them
 * named): a field value is 40 bytes, a process entry 24. */
typedef int (*nv_fn)();
static nv_fn nv_fields, nv_energy, nv_util, nv_mem, nv_compute, nv_graphics, nv_power, nv_clock,
	nv_temp, nv_reasons;
static void *gpus[16];
static unsigned ngpus;
static int64_t energy_at[16], energy_cost[16];

static nv_fn sym(void *h, const char *name)
{
	nv_fn f = (nv_fn)dlsym(h, name);
	if (!f) {
		fprintf(stderr, "scale_floor: no %s\n", name);
		exit(2);
	}
	return f;
}

static void nvml_setup(const char *library)
{
	void *h = dlopen(library, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "scale_floor: %s\n", dlerror());
		exit(2);
	}
	if (sym(h, "nvmlInit_v2")() != 0 || sym(h, "nvmlDeviceGetCount_v2")(&ngpus) != 0)
		die("nvmlInit");
	if (ngpus > 16)
		ngpus = 16;
	for (unsigned i = 0; i < ngpus; i++)
		sym(h, "nvmlDeviceGetHandleByIndex_v2")(i, &gpus[i]);
	nv_fields = sym(h, "nvmlDeviceGetFieldValues");
	nv_energy = sym(h, "nvmlDeviceGetTotalEnergyConsumption");
	nv_util = sym(h, "nvmlDeviceGetUtilizationRates");
	nv_mem = sym(h, "nvmlDeviceGetMemoryInfo");
	nv_compute = sym(h, "nvmlDeviceGetComputeRunningProcesses_v3");
	nv_graphics = sym(h, "nvmlDeviceGetGraphicsRunningProcesses_v3");
	nv_power = sym(h, "nvmlDeviceGetPowerUsage");
	nv_clock = sym(h, "nvmlDeviceGetClockInfo");
	nv_temp = sym(h, "nvmlDeviceGetTemperature");
	nv_reasons = sym(h, "nvmlDeviceGetCurrentClocksEventReasons");
}

static void nvml_tick(void)
{
	static unsigned char fv[2][40], procs[64][24];
	unsigned u[4];
	unsigned long long ull;
	for (unsigned i = 0; i < ngpus; i++) {
		void *d = gpus[i];
		memset(fv, 0, sizeof(fv));
		*(unsigned *)fv[0] = 197;
		*(unsigned *)fv[1] = 198;
		nv_fields(d, 2, fv);
		/* as gpu spaces them: 100 ms, or 100 times what the last took */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		int64_t now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (now - energy_at[i] >= (energy_cost[i] * 100 > 100000000 ? energy_cost[i] * 100 : 100000000)) {
			nv_energy(d, &ull);
			clock_gettime(CLOCK_MONOTONIC, &ts);
			energy_cost[i] = ts.tv_sec * 1000000000LL + ts.tv_nsec - now;
			energy_at[i] = now;
		}
		nv_util(d, u);
		nv_mem(d, buf);
		unsigned n = 64;
		nv_compute(d, &n, procs);
		n = 64;
		nv_graphics(d, &n, procs);
		nv_power(d, u);
		nv_clock(d, 1, u);
		nv_temp(d, 0, u);
		nv_reasons(d, &ull);
	}
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: scale_floor TICKS OUT LINE_LEN MODE ARGS...\n");
		return 2;
	}
	long ticks = atol(argv[1]);
	int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t line_len = (size_t)atol(argv[3]);
	const char *mode = argv[4];
	void (*work)(void) = NULL;
	if (out < 0 || line_len < 2 || line_len > sizeof(buf))
		die("OUT or LINE_LEN");
	if (!strcmp(mode, "files")) {
		files = calloc((size_t)argc, sizeof(*files));
		for (int i = 5; i < argc; i++)
			files[nfiles++] = open_or_die(argv[i]);
	} else if (!strcmp(mode, "proc") && argc == 7) {
		proc_setup((pid_t)atoi(argv[5]), argv[6]);
		work = proc_tick;
	} else if (!strcmp(mode, "iter") && argc == 8) {
		iter_setup(argv[5], argv[6], (pid_t)atoi(argv[7]));
		work = iter_tick;
	} else if (!strcmp(mode, "threads") && argc == 6) {
		threads_setup(argv[5]);
		work = threads_tick;
	} else if (!strcmp(mode, "taskstats") && argc == 6) {
		taskstats_setup(argv[5]);
		work = taskstats_tick;
	} else if (!strcmp(mode, "perf") && argc >= 7) {
		perf_setup(atol(argv[5]), argv + 6, argc - 6);
		work = perf_tick;
	} else if (!strcmp(mode, "nvml") && argc == 6) {
		nvml_setup(argv[5]);
		work = nvml_tick;
	} else if (strcmp(mode, "wait")) {
		fprintf(stderr, "scale_floor: unknown mode or arguments: %s\n", mode);
		return 2;
	}

	char *line = malloc(line_len);
	memset(line, 'x', line_len - 1);
	line[line_len - 1] = '\n';
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* the first tick in 20 ms or a little more: on SCALE_FLOOR_GRID_NS's
	 * grid where it is set (a CLOCK_MONOTONIC time a tick falls on; see
	 * the top) */
	const int64_t interval = 10000000;
	int64_t first = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + 2 * interval;
	const char *grid = getenv("SCALE_FLOOR_GRID_NS");
	if (grid && *grid) {
		int64_t g = strtoll(grid, NULL, 10);
		first += ((g - first) % interval + interval) % interval;
	}
	struct itimerspec its = {.it_interval = {0, interval},
				 .it_value = {first / 1000000000, first % 1000000000}};
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd < 0 || timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		die("timerfd");
	uint64_t start = 0;
	for (long t = -1; t < ticks; t++) {
		uint64_t exp;
		if (read(tfd, &exp, sizeof(exp)) < 0)
			die("timerfd read");
		if (t == -1)
			start = on_cpu_ns();
		for (size_t i = 0; i < nfiles; i++)
			read_whole(files[i]);
		if (work)
			work();
		if (write(out, line, line_len) != (ssize_t)line_len)
			die("write");
	}
	printf("%llu\n", (unsigned long long)((on_cpu_ns() - start) / (uint64_t)ticks));
	return 0;
}
