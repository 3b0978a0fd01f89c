// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Host checks, libbpf's messages and the reasons a load fails. */
#define _GNU_SOURCE
#include "ebpf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "kernel_version.h"

/* include/linux/proc_ns.h: the inode of the initial pid namespace */
#define PROC_PID_INIT_INO 0xEFFFFFFCu

static char last_warning[256];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	char line[sizeof(last_warning)];
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0'; /* the first line: a verifier log follows it */
	/* a program's refusal is said first; "failed to load object" follows */
	if (*line && !strstr(last_warning, "prog '"))
		memcpy(last_warning, line, sizeof(line));
	return 0;
}

void ebpf_quiet_libbpf(void)
{
	libbpf_set_print(keep_warning);
}

int ebpf_fail(struct errbuf *why, int err, const char *what)
{
	/* the verifier's refusal is EACCES too, and libbpf names the program */
	bool verifier = err == -EACCES && strstr(last_warning, "prog '");
	if ((err == -EPERM || err == -EACCES) && !verifier)
		return errbuf_set(why, -err, EBPF_REFUSED ": %s", strerror(-err));
	if (*last_warning)
		return errbuf_set(why, -err, "%s the eBPF programs: %s (%s)", what, strerror(-err),
				  last_warning);
	return errbuf_set(why, -err, "%s the eBPF programs: %s", what, strerror(-err));
}

bool ebpf_refused(const struct errbuf *why)
{
	return strncmp(why->msg, EBPF_REFUSED, strlen(EBPF_REFUSED)) == 0;
}

int ebpf_host_check(json_t *facts, struct errbuf *why)
{
	struct stat st;
	bool btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	bool host_ns = stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == PROC_PID_INIT_INO;
	json_object_set_new(facts, "btf", json_boolean(btf));
	json_object_set_new(facts, "host_pid_ns", json_boolean(host_ns));
	if (!btf)
		return errbuf_set(why, ENOTSUP,
				  "the kernel has no BTF (/sys/kernel/btf/vmlinux: CONFIG_DEBUG_INFO_BTF)");
	if (!host_ns)
		return errbuf_set(why, ENOTSUP,
				  "iopsample runs in a pid namespace of its own, where pids are not the kernel's");
	return 0;
}

int ebpf_need_helper(json_t *facts, const char *name, enum bpf_func_id id, const char *since,
		     struct errbuf *why)
{
	/* any program type has it once it exists; raw tracepoints are what
	 * libbpf can probe without a BTF target */
	int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, id, NULL);
	json_object_set_new(facts, name, r < 0 ? json_null() : json_boolean(r == 1));
	if (r == 1)
		return 0;
	struct utsname u;
	const char *release = uname(&u) == 0 ? u.release : "?";
	if (r == 0)
		return errbuf_set(why, ENOTSUP, "the kernel (%s) has no %s helper: %s", release, name, since);
	return errbuf_set(why, -r, "probing the kernel (%s) for the %s helper: %s", release, name,
			  strerror(-r));
}

int ebpf_older_than(struct errbuf *why, unsigned major, unsigned minor, int err)
{
	struct utsname u;
	if (ebpf_refused(why) || !kernel_older_than(major, minor) || uname(&u) < 0)
		return err;
	char refusal[sizeof(why->msg)];
	snprintf(refusal, sizeof(refusal), "%s", why->msg);
	return errbuf_set(why, -err, "the kernel (%s) refused the eBPF programs: Linux %u.%u or later (%s)",
			  u.release, major, minor, refusal);
}

int ebpf_load(struct bpf_object_skeleton *skel, struct errbuf *why)
{
	*last_warning = '\0';
	int r = bpf_object__load_skeleton(skel);
	return r < 0 ? ebpf_fail(why, r, "loading") : 0;
}

int ebpf_attach(struct bpf_object_skeleton *skel, struct errbuf *why)
{
	*last_warning = '\0';
	int r = bpf_object__attach_skeleton(skel);
	return r < 0 ? ebpf_fail(why, r, "attaching") : 0;
}

ssize_t ebpf_iter_read(int link_fd, char **buf, size_t *cap, size_t first)
{
	int fd = bpf_iter_create(link_fd);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	for (;;) {
		if (*cap - len < 65536) {
			size_t grown = *cap ? 2 * *cap : first;
			char *b = realloc(*buf, grown);
			if (!b) {
				close(fd);
				return -ENOMEM;
			}
			*buf = b;
			*cap = grown;
		}
		ssize_t n = read(fd, *buf + len, *cap - len);
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	return (ssize_t)len;
}
