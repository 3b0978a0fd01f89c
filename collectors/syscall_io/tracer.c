// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The tracer thread: seize, then one waitpid() loop over every tracee stop.
 *
 * Per counted syscall the launched target costs two stops, four ptrace calls
 * and two waitpid()s; everything else here happens once per thread or
 * signal. Nothing in the loop allocates except the tracee table when the
 * tree grows. */
#define _GNU_SOURCE
#include "tracer.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procfs.h"
#include "seccomp_filter.h"

#define NOT_IN_SYSCALL (-1)
/* Sent to the tracer thread to take it out of waitpid() when it must stop. */
#define KICK_SIGNAL SIGUSR1
#define STOP_TIMEOUT_NS (2 * NS_PER_S)
#define SPIN_NS (50 * NS_PER_US)

static const long trace_options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
				  PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
				  PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC;

static int fail(struct tracer *tr, int err, const char *what, pid_t pid)
{
	tr->err_no = err;
	return errbuf_set(&tr->err, err, "%s %d: %s", what, (int)pid, strerror(err));
}

/* A tracee killed while stopped makes any request fail with ESRCH; its end
 * arrives through waitpid() like any other. */
static int request(struct tracer *tr, enum __ptrace_request req, pid_t pid, long data,
		   const char *what)
{
	if (ptrace(req, pid, 0L, data) == 0 || errno == ESRCH)
		return 0;
	return fail(tr, errno, what, pid);
}

static int resume(struct tracer *tr, pid_t pid, int sig)
{
	return request(tr, tr->attach ? PTRACE_SYSCALL : PTRACE_CONT, pid, sig, "resuming");
}

static int event_msg(struct tracer *tr, pid_t pid, unsigned long *msg)
{
	if (ptrace(PTRACE_GETEVENTMSG, pid, 0L, msg) == 0)
		return 0;
	return errno == ESRCH ? 1 : fail(tr, errno, "PTRACE_GETEVENTMSG", pid);
}

static bool stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* The tracee's "inside counted syscall i" slot; a tracee seen for the first
 * time (auto-attached, its clone event not handled yet) is added. */
static int64_t *slot(struct tracer *tr, pid_t pid)
{
	int64_t *v = pidmap_get(&tr->tracees, pid);
	if (v || pidmap_add(&tr->tracees, pid, NOT_IN_SYSCALL) < 0)
		return v;
	return pidmap_get(&tr->tracees, pid);
}

/* ---- the access pattern (sio_records.h) -------------------------------- */

/* A thread's call under way, as its entry found it: what its exit needs
 * for the access pattern. */
struct pending {
	int nr;
	int64_t fd[2];   /* [enum io_dir]: the side's descriptor, when it addresses a file; else -1 */
	uint64_t arg[2]; /* [enum io_dir]: its position argument (enum sio_pos) */
	uint64_t arg0;   /* a followed call's descriptor (dup's old one, lseek's) */
};

/* The process of thread tid (its thread group), from /proc the first time. */
static pid_t process_of(struct tracer *tr, pid_t tid)
{
	int64_t *v = pidmap_get(&tr->tgid_of, tid);
	if (v)
		return (pid_t)*v;
	char path[48], status[2048];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	const char *line = procfs_read(path, status, sizeof(status)) > 0 ? strstr(status, "\nTgid:") : NULL;
	pid_t tgid = line ? (pid_t)strtol(line + 6, NULL, 10) : tid;
	pidmap_add(&tr->tgid_of, tid, tgid); /* out of memory: asked again next time */
	return tgid;
}

/* Thread tid's call record, made the first time. */
static struct pending *pending_of(struct tracer *tr, pid_t tid)
{
	int64_t *v = pidmap_get(&tr->pending, tid);
	if (v)
		return (struct pending *)(uintptr_t)*v;
	struct pending *p = calloc(1, sizeof(*p));
	if (p && pidmap_add(&tr->pending, tid, (int64_t)(uintptr_t)p) < 0) {
		free(p);
		p = NULL;
	}
	return p;
}

/* Thread tid is gone (exited, or exec'd into its leader's id): its process
 * with it when it led the group, or when the exec began the process anew. */
static void forget_thread(struct tracer *tr, pid_t tid, bool its_process)
{
	int64_t *v = pidmap_get(&tr->pending, tid);
	if (v)
		free((void *)(uintptr_t)*v);
	pidmap_del(&tr->pending, tid);
	v = pidmap_get(&tr->tgid_of, tid);
	if (its_process)
		sio_records_forget(&tr->records, v ? (pid_t)*v : tid);
	pidmap_del(&tr->tgid_of, tid);
}

/* A followed call (sio_followed) of thread tid returned rval. */
static void follow_exit(struct tracer *tr, pid_t tid, const struct pending *p, int64_t rval)
{
	enum sio_track track = p->nr >= 0 && p->nr < TRACER_MAX_NR ? tr->follow_of_nr[p->nr] : SIO_TRACK_NONE;
	pid_t tgid = process_of(tr, tid);
	if (track == SIO_TRACK_OPEN) {
		char path[64];
		struct stat st;
		struct statfs sf;
		snprintf(path, sizeof(path), "/proc/%d/fd/%lld", (int)tid, (long long)rval);
		if (stat(path, &st) == 0)
			sio_records_open(&tr->records, tgid, (int)rval, (struct sio_file_id){st.st_dev, st.st_ino},
					 statfs(path, &sf) == 0 ? (uint64_t)sf.f_bsize : 0);
	} else if (track == SIO_TRACK_DUP) {
		sio_records_dup(&tr->records, tgid, (int)p->arg0, (int)rval);
	} else if (track == SIO_TRACK_SEEK) {
		sio_records_seek(&tr->records, tgid, (int)p->arg0, rval);
	}
}

/* What a thread is inside, taken at the call's entry, where its arguments
 * are: the counted index, the sides its bytes count on and each side's kind
 * of descriptor, in one int (the tracee table's value). */
#define INSIDE(i, sides, rkind, wkind) ((int)((i) | (sides) << 8 | (rkind) << 16 | (wkind) << 20))
#define INSIDE_INDEX(v) ((unsigned)(v)&0xff)
#define INSIDE_SIDES(v) ((unsigned)(v) >> 8 & 0xff)
#define INSIDE_KIND(v, d) ((enum sio_kind)((unsigned)(v) >> (16 + 4 * (d)) & 0xf))

/* The kind of descriptor fd of thread tid, and whether it is open for
 * writing (read from its fdinfo only when asked). */
static enum sio_kind fd_kind(pid_t tid, long long fd, bool *writable)
{
	char path[64];
	struct stat st;
	if (fd < 0 || fd > INT32_MAX)
		return SIO_KIND_UNKNOWN;
	snprintf(path, sizeof(path), "/proc/%d/fd/%lld", (int)tid, fd);
	if (stat(path, &st) < 0)
		return SIO_KIND_UNKNOWN;
	if (writable) {
		char info[256];
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%lld", (int)tid, fd);
		const char *flags = procfs_read(path, info, sizeof(info)) > 0 ? strstr(info, "flags:") : NULL;
		*writable = flags && (strtoul(flags + 6, NULL, 8) & O_ACCMODE) != O_RDONLY;
	}
	return sio_kind_of_mode(st.st_mode);
}

/* At the entry of counted syscall i with args: what its exit will count,
 * and (into p) where each side that addresses a file accesses it. */
static int entered(struct tracer *tr, pid_t tid, unsigned i, const uint64_t *args, struct pending *p)
{
	const struct io_syscall *sys = tr->sys[i];
	enum sio_kind kind[2] = {SIO_KIND_UNKNOWN, SIO_KIND_UNKNOWN};
	unsigned sides = sys->sides;
	if (sides == SIO_SIDE_BY_MODE) {
		bool writable = false;
		kind[IO_READ] = kind[IO_WRITE] = fd_kind(tid, (long long)args[sys->fd_arg[0]], &writable);
		sides = writable ? SIO_SIDE_WRITE : SIO_SIDE_READ;
	} else {
		for (int d = IO_READ; d <= IO_WRITE; d++) {
			if (!(sides & (1u << d)))
				continue;
			kind[d] = fd_kind(tid, (long long)args[sys->fd_arg[d]], NULL);
			if (p && sys->pos[d] != SIO_POS_NONE &&
			    (kind[d] == SIO_KIND_FILE || kind[d] == SIO_KIND_BLOCKDEV)) {
				p->fd[d] = (int64_t)args[sys->fd_arg[d]];
				p->arg[d] = sys->pos_arg[d] >= 0 ? args[sys->pos_arg[d]] : 0;
			}
		}
	}
	return INSIDE(i, sides, kind[IO_READ], kind[IO_WRITE]);
}

static bool peek(pid_t tid, uint64_t addr, void *buf, size_t len);

/* What the accesses of a counted call that returned bytes add to the
 * access pattern, into call. */
static void accessed(struct tracer *tr, pid_t tid, const struct pending *p, struct sio_call *call)
{
	const struct io_syscall *sys = tr->sys[call->i];
	unsigned bits[2] = {0, 0};
	for (int d = IO_READ; d <= IO_WRITE; d++) {
		if (p->fd[d] < 0 || !(call->sides & (1u << d)))
			continue;
		int64_t start = SIO_AT_RECORD_OFFSET;
		if (sys->pos[d] == SIO_POS_ARG) {
			start = (int64_t)p->arg[d];
		} else if (sys->pos[d] == SIO_POS_PTR && p->arg[d]) {
			int64_t after;
			if (!peek(tid, p->arg[d], &after, sizeof(after)))
				continue;
			start = after - (int64_t)call->bytes;
		}
		bits[d] = sio_records_access(&tr->records, process_of(tr, tid), (int)p->fd[d], d, start,
					     (int64_t)call->bytes);
	}
	call->pattern = bits[IO_READ] | bits[IO_WRITE];
	call->switch2 = bits[IO_READ] & bits[IO_WRITE] & (1u << SIO_RW_SWITCHES);
}

/* Argument n (1-5) of the syscall a thread stopped at the exit of: the
 * registers still hold it there (the first one, x0 on arm64, is the
 * result by then). */
static int arg_at_exit(pid_t tid, int n, uint64_t *out)
{
	struct user_regs_struct regs;
	struct iovec iov = {&regs, sizeof(regs)};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return -errno;
#if defined(__x86_64__)
	const unsigned long long args[] = {regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8, regs.r9};
	*out = args[n % 6];
#elif defined(__aarch64__)
	*out = regs.regs[n % 6];
#else
#error "syscall_io's tracer: where this architecture keeps a syscall's arguments"
#endif
	return 0;
}

static bool peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* The bytes of the n messages recvmmsg or sendmmsg returned: each one's
 * msg_len, read from the thread's memory. */
static uint64_t mmsg_bytes(pid_t tid, uint64_t n)
{
	uint64_t vec = 0, sum = 0;
	if (n > SIO_MMSG_MAX || arg_at_exit(tid, 1, &vec) < 0)
		return 0;
	unsigned char buf[64 * SIO_MMSGHDR_SIZE];
	for (uint64_t k = 0; k < n;) {
		uint64_t m = n - k < 64 ? n - k : 64;
		if (!peek(tid, vec + k * SIO_MMSGHDR_SIZE, buf, m * SIO_MMSGHDR_SIZE))
			return sum;
		for (uint64_t j = 0; j < m; j++) {
			uint32_t len;
			memcpy(&len, buf + j * SIO_MMSGHDR_SIZE + SIO_MMSGHDR_LEN_OFFSET, sizeof(len));
			sum += len;
		}
		k += m;
	}
	return sum;
}

/* At the exit of io_getevents or io_pgetevents, which returned n events
 * (struct io_event at arg 3): each completed read or write iocb, its side
 * from its opcode and its descriptor's kind read from the iocb in the
 * thread's memory (include/uapi/linux/aio_abi.h: aio_lio_opcode at 16,
 * aio_fildes at 20). */
static void aio_events(struct tracer *tr, pid_t tid, unsigned i, int64_t n)
{
	struct io_event_abi {
		uint64_t data, obj;
		int64_t res, res2;
	} ev[64];
	uint64_t events;
	if (n <= 0 || arg_at_exit(tid, 3, &events) < 0)
		return;
	for (int64_t k = 0; k < n;) {
		int64_t m = n - k < 64 ? n - k : 64;
		if (!peek(tid, events + (uint64_t)k * sizeof(ev[0]), ev, (size_t)m * sizeof(ev[0])))
			return;
		for (int64_t j = 0; j < m; j++) {
			unsigned char iocb[48];
			uint16_t opcode;
			uint32_t fd;
			int64_t offset;
			if (!peek(tid, ev[j].obj, iocb, sizeof(iocb)))
				continue;
			memcpy(&opcode, iocb + 16, sizeof(opcode));
			memcpy(&fd, iocb + 20, sizeof(fd));
			memcpy(&offset, iocb + 40, sizeof(offset)); /* aio_offset */
			unsigned sides = sio_aio_sides(opcode);
			if (!sides)
				continue;
			enum sio_kind kind = fd_kind(tid, fd, NULL);
			struct sio_call call = {.i = i, .is_error = sio_is_error(ev[j].res),
						.bytes = (uint64_t)ev[j].res, .sides = sides,
						.kind = {kind, kind}, .request = true};
			/* the access pattern: at the iocb's offset */
			if (!call.is_error && (kind == SIO_KIND_FILE || kind == SIO_KIND_BLOCKDEV))
				call.pattern = sio_records_access(&tr->records, process_of(tr, tid), (int)fd,
								  sides == SIO_SIDE_WRITE, offset, ev[j].res);
			sio_record(tr->counts, &call);
		}
		k += m;
	}
}

/* At a syscall-exit stop: the result of the counted syscall the thread was
 * inside, if any. A restart code is no result: the call runs again. */
static void count_exit(struct tracer *tr, pid_t tid, int64_t inside,
		       const struct __ptrace_syscall_info *info)
{
	if (info->op != PTRACE_SYSCALL_INFO_EXIT || inside == NOT_IN_SYSCALL ||
	    sio_restarting(info->exit.rval))
		return;
	int64_t *pv = pidmap_get(&tr->pending, tid);
	struct pending *p = pv ? (struct pending *)(uintptr_t)*pv : NULL;
	if (p && !info->exit.is_error)
		follow_exit(tr, tid, p, info->exit.rval);
	if (INSIDE_INDEX(inside) == TRACER_FOLLOW_ONLY)
		return;
	/* the time from the stop at its entry to this one (the tracer's own
	 * delay at both included; a restarted call's from its restart) */
	int64_t *at = pidmap_get(&tr->entered, tid);
	int64_t ns = at ? clock_mono_ns() - *at : 0;
	if (tr->sys[INSIDE_INDEX(inside)]->via == SIO_VIA_AIO) {
		if (!info->exit.is_error)
			aio_events(tr, tid, INSIDE_INDEX(inside), info->exit.rval);
		return;
	}
	struct sio_call call = {
		.i = INSIDE_INDEX(inside),
		.is_error = info->exit.is_error,
		.bytes = (uint64_t)info->exit.rval,
		.sides = INSIDE_SIDES(inside),
		.kind = {INSIDE_KIND(inside, IO_READ), INSIDE_KIND(inside, IO_WRITE)},
		.timed = at != NULL,
		.ns = ns > 0 ? (uint64_t)ns : 0,
	};
	if (!call.is_error && tr->sys[call.i]->msgvec)
		call.bytes = mmsg_bytes(tid, call.bytes);
	if (!call.is_error && p && (p->fd[IO_READ] >= 0 || p->fd[IO_WRITE] >= 0))
		accessed(tr, tid, p, &call);
	sio_record(tr->counts, &call);
}

/* A syscall-entry stop (attached only) or a syscall-exit stop. */
/* A thread entered call nr, counted as i (or TRACER_FOLLOW_ONLY): what its
 * exit will count, and when; a close is followed here, while its
 * descriptor still names its file. */
static int64_t entering(struct tracer *tr, pid_t tid, unsigned i, int nr, const uint64_t *args)
{
	struct pending *p = pending_of(tr, tid); /* out of memory: no pattern for this call */
	if (p) {
		p->nr = nr;
		p->fd[0] = p->fd[1] = -1;
		p->arg0 = args[0];
	}
	if (nr >= 0 && nr < TRACER_MAX_NR && tr->follow_of_nr[nr] == SIO_TRACK_CLOSE)
		sio_records_close(&tr->records, process_of(tr, tid), (int)args[0]);
	if (i == TRACER_FOLLOW_ONLY)
		return INSIDE(i, 0, 0, 0);
	int64_t now = clock_mono_ns();
	int64_t *at = pidmap_get(&tr->entered, tid);
	if (at)
		*at = now;
	else
		pidmap_add(&tr->entered, tid, now); /* out of memory: the call is untimed */
	return entered(tr, tid, i, args, p);
}

static int syscall_stop(struct tracer *tr, pid_t pid, int64_t *inside)
{
	struct __ptrace_syscall_info info;
	if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) < 0)
		return errno == ESRCH ? 0 : fail(tr, errno, "PTRACE_GET_SYSCALL_INFO", pid);

	if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
		bool ours = info.arch == SECCOMP_NATIVE_ARCH && info.entry.nr < TRACER_MAX_NR;
		int i = ours ? tr->index_of_nr[info.entry.nr] : NOT_IN_SYSCALL;
		*inside = i == NOT_IN_SYSCALL ? i : entering(tr, pid, (unsigned)i, (int)info.entry.nr, info.entry.args);
		return request(tr, PTRACE_SYSCALL, pid, 0, "resuming");
	}
	count_exit(tr, pid, *inside, &info);
	*inside = NOT_IN_SYSCALL;
	return resume(tr, pid, 0);
}

static int on_stop(struct tracer *tr, pid_t pid, int status)
{
	if (!WIFSTOPPED(status)) {
		pidmap_del(&tr->tracees, pid); /* exited or killed */
		pidmap_del(&tr->entered, pid);
		forget_thread(tr, pid, process_of(tr, pid) == pid);
		return 0;
	}
	int64_t *inside = slot(tr, pid);
	if (!inside)
		return fail(tr, ENOMEM, "tracking thread", pid);
	int sig = WSTOPSIG(status);
	unsigned long msg;
	int r;

	switch ((unsigned)status >> 16) {
	case 0:
		if (sig == (SIGTRAP | 0x80))
			return syscall_stop(tr, pid, inside);
		return resume(tr, pid, sig); /* signal-delivery-stop: deliver it */

	case PTRACE_EVENT_SECCOMP:
		if ((r = event_msg(tr, pid, &msg)) != 0)
			return r < 0 ? r : 0;
		if (!tr->attach && (msg - TRACER_SECCOMP_DATA < tr->counts->n ||
				    msg - TRACER_SECCOMP_DATA == TRACER_FOLLOW_ONLY)) {
			struct __ptrace_syscall_info info;
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) < 0)
				return errno == ESRCH ? 0 : fail(tr, errno, "PTRACE_GET_SYSCALL_INFO", pid);
			*inside = entering(tr, pid, (unsigned)(msg - TRACER_SECCOMP_DATA), (int)info.seccomp.nr,
					   info.seccomp.args);
			return request(tr, PTRACE_SYSCALL, pid, 0, "resuming");
		}
		return resume(tr, pid, 0); /* a filter of the target's own */

	case PTRACE_EVENT_EXEC:
		/* A thread that is not the leader exec'd: it took the leader's
		 * id, and its own id is gone without an exit to report. */
		if ((r = event_msg(tr, pid, &msg)) < 0)
			return r;
		if (r == 0 && (pid_t)msg != pid) {
			pidmap_del(&tr->tracees, (pid_t)msg);
			pidmap_del(&tr->entered, (pid_t)msg);
			forget_thread(tr, (pid_t)msg, false);
		}
		/* a new image: a new Darshan, no record of anything */
		sio_records_forget(&tr->records, process_of(tr, pid));
		if (!(inside = slot(tr, pid)))
			return fail(tr, ENOMEM, "tracking thread", pid);
		*inside = NOT_IN_SYSCALL;
		return resume(tr, pid, 0);

	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		/* The new tracee is known from here, so a detach waits for it. */
		if ((r = event_msg(tr, pid, &msg)) < 0)
			return r;
		if (r == 0 && pidmap_add(&tr->tracees, (pid_t)msg, NOT_IN_SYSCALL) < 0)
			return fail(tr, ENOMEM, "tracking thread", (pid_t)msg);
		return resume(tr, pid, 0);

	case PTRACE_EVENT_STOP:
		/* A group-stop keeps the tracee stopped, as SIGSTOP meant, yet
		 * lets SIGCONT and SIGKILL through; any other is the first stop of
		 * a new tracee or our own interrupt. */
		if (stop_signal(sig))
			return request(tr, PTRACE_LISTEN, pid, 0, "PTRACE_LISTEN");
		return resume(tr, pid, 0);

	default:
		return resume(tr, pid, 0);
	}
}

/* Attached, at the end: each tracee is detached at its next stop, a
 * syscall-exit stop counted first and a pending signal passed on. */
static int on_stop_detaching(struct tracer *tr, pid_t pid, int status)
{
	int64_t *inside = pidmap_get(&tr->tracees, pid);
	if (WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status);
		int deliver = 0;
		if ((unsigned)status >> 16 == 0 && sig == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info info;
			if (inside && *inside != NOT_IN_SYSCALL &&
			    ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info) > 0)
				count_exit(tr, pid, *inside, &info);
		} else if ((unsigned)status >> 16 == 0) {
			deliver = sig;
		}
		int r = request(tr, PTRACE_DETACH, pid, deliver, "PTRACE_DETACH");
		if (r < 0)
			return r;
	}
	pidmap_del(&tr->tracees, pid);
	pidmap_del(&tr->entered, pid);
	return 0;
}

static void interrupt_all(struct tracer *tr)
{
	for (size_t i = 0; i < tr->tracees.cap; i++)
		if (tr->tracees.slot[i].pid)
			ptrace(PTRACE_INTERRUPT, tr->tracees.slot[i].pid, 0L, 0L);
}

/* The next tracee stop. While stops come in a burst, a tracee stops again
 * within microseconds of being resumed, and sleeping in waitpid() until it
 * does costs a cross-CPU wakeup per stop (tens of microseconds on a VM, more
 * than the stop itself). So the thread polls for SPIN_NS after each stop
 * before it sleeps: a busy target is served without wakeups, an idle one
 * costs SPIN_NS once. With one CPU the poll would only delay the tracee. */
static pid_t next_stop(struct tracer *tr, int *status)
{
	if (tr->spin) {
		int64_t until = clock_mono_ns() + SPIN_NS;
		do {
			pid_t pid = waitpid(-1, status, __WALL | WNOHANG);
			if (pid != 0)
				return pid;
		} while (!atomic_load_explicit(&tr->stopping, memory_order_relaxed) &&
			 clock_mono_ns() < until);
	}
	return waitpid(-1, status, __WALL);
}

static int trace(struct tracer *tr)
{
	bool detaching = false;
	for (;;) {
		if (!detaching && atomic_load(&tr->stopping)) {
			if (!tr->attach)
				return 0; /* what is left dies with the thread */
			detaching = true;
			interrupt_all(tr);
		}
		if (detaching && tr->tracees.count == 0)
			return 0;

		int status;
		pid_t pid = next_stop(tr, &status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD ? 0 : fail(tr, errno, "waitpid by tracer", gettid());
		}
		int r = detaching ? on_stop_detaching(tr, pid, status) : on_stop(tr, pid, status);
		if (r < 0)
			return r;
	}
}

static int seize(struct tracer *tr, pid_t tid, long options)
{
	if (ptrace(PTRACE_SEIZE, tid, 0L, options) < 0)
		return -errno;
	if (pidmap_add(&tr->tracees, tid, NOT_IN_SYSCALL) < 0)
		return -ENOMEM;
	return 0;
}

/* Attached: every thread of every process of the tree (but tr->skip's),
 * found again until a pass finds nothing new. A thread that appeared
 * meanwhile was auto-attached by its creator (EPERM here: it is ours
 * already) or is found next pass. Each is interrupted, and starts syscall
 * tracing at that stop. */
static int attach_tree(struct tracer *tr)
{
	int r = seize(tr, tr->target, trace_options);
	if (r < 0)
		return errbuf_set(&tr->err, -r, "cannot trace pid %d: %s%s", (int)tr->target,
				  strerror(-r),
				  r == -EPERM ? " (traced already, or forbidden by Yama's ptrace_scope)" : "");
	ptrace(PTRACE_INTERRUPT, tr->target, 0L, 0L);

	struct pid_list procs = {0}, tids = {0};
	for (bool grew = true; grew && r == 0;) {
		grew = false;
		procs.n = 0;
		r = pid_list_add(&procs, tr->target);
		for (size_t i = 0; r == 0 && i < procs.n; i++) {
			if (procs.v[i] == tr->skip)
				continue;
			tids.n = 0;
			if ((r = procfs_threads(procs.v[i], &tids)) < 0)
				break;
			for (size_t j = 0; r == 0 && j < tids.n; j++) {
				if (pidmap_get(&tr->tracees, tids.v[j]))
					continue;
				int s = seize(tr, tids.v[j], trace_options);
				if (s == 0) {
					ptrace(PTRACE_INTERRUPT, tids.v[j], 0L, 0L);
					grew = true;
				} else if (s == -ENOMEM) {
					r = s;
				}
			}
			if (r == 0)
				r = procfs_children(procs.v[i], (long)tids.n, &procs);
		}
	}
	pid_list_free(&procs);
	pid_list_free(&tids);
	return r < 0 ? errbuf_set(&tr->err, -r, "attaching to the tree of %d: %s", (int)tr->target,
				  strerror(-r))
		     : 0;
}

static void *tracer_main(void *arg)
{
	struct tracer *tr = arg;
	int r;
	if (tr->attach) {
		r = attach_tree(tr);
	} else {
		r = seize(tr, tr->target, trace_options | PTRACE_O_EXITKILL);
		if (r < 0)
			errbuf_set(&tr->err, -r, "cannot trace the target (pid %d): %s", (int)tr->target,
				   strerror(-r));
	}
	tr->start_err = r;
	sem_post(&tr->ready);
	if (r == 0 && trace(tr) < 0)
		atomic_store(&tr->finished, -1);
	else
		atomic_store(&tr->finished, 1);
	return NULL;
}

static void kicked(int sig)
{
	(void)sig;
}

int tracer_start(struct tracer *tr, struct errbuf *why)
{
	tr->spin = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	/* no SA_RESTART: the kick must end a waitpid() */
	struct sigaction sa = {.sa_handler = kicked};
	sigemptyset(&sa.sa_mask);
	if (sigaction(KICK_SIGNAL, &sa, NULL) < 0 || sem_init(&tr->ready, 0, 0) < 0)
		return errbuf_set(why, errno, "tracer setup: %s", strerror(errno));
	int r = pthread_create(&tr->thread, NULL, tracer_main, tr);
	if (r)
		return errbuf_set(why, r, "tracer thread: %s", strerror(r));
	while (sem_wait(&tr->ready) < 0 && errno == EINTR)
		;
	tr->running = true;
	if (tr->start_err < 0) {
		pthread_join(tr->thread, NULL);
		tr->running = false;
		*why = tr->err;
		return tr->start_err;
	}
	return 0;
}

void tracer_stop(struct tracer *tr)
{
	if (!tr->running)
		return;
	atomic_store(&tr->stopping, 1);
	int64_t deadline = clock_mono_ns() + STOP_TIMEOUT_NS;
	/* The kick can land just before the thread enters waitpid(), where it
	 * would be lost: repeat it until the thread is done. */
	do {
		pthread_kill(tr->thread, KICK_SIGNAL);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 5 * NS_PER_MS;
		if (ts.tv_nsec >= NS_PER_S) {
			ts.tv_sec++;
			ts.tv_nsec -= NS_PER_S;
		}
		if (pthread_timedjoin_np(tr->thread, NULL, &ts) == 0) {
			tr->running = false;
			pidmap_free(&tr->tracees);
			pidmap_free(&tr->entered);
			for (size_t k = 0; k < tr->pending.cap; k++)
				if (tr->pending.slot[k].pid)
					free((void *)(uintptr_t)tr->pending.slot[k].value);
			pidmap_free(&tr->pending);
			pidmap_free(&tr->tgid_of);
			sio_records_free(&tr->records);
			return;
		}
	} while (clock_mono_ns() < deadline);
	/* A tracee stuck in uninterruptible sleep: the sampler's exit detaches
	 * it (attached) or kills it (launched). */
}

int tracer_failed(struct tracer *tr, struct errbuf *why)
{
	if (atomic_load(&tr->finished) >= 0)
		return 0;
	*why = tr->err; /* written before finished */
	return -tr->err_no;
}
