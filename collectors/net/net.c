// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* net: the network on the episode's grid, as diskstats is the disk's: the
 * tree's network namespace's interfaces (/proc/PID/net/dev, each one's
 * /sys/class/net/NAME/speed), its TCP and UDP counters (/proc/PID/net/snmp
 * and netstat), and the mounts its mount namespace has of a network file
 * system (NFS: /proc/PID/mountstats, as nfsiostat reads it; SMB:
 * /proc/fs/cifs/Stats, its share's counts) or of a FUSE daemon
 * (/sys/fs/fuse/connections/N/waiting: the requests it has not answered).
 * Deployable: it reads what an unprivileged reader may.
 *
 * The files are opened once, in the tree's namespaces (PID: the target),
 * and re-read from offset 0 each tick: a kept /proc/PID/net file goes on
 * showing the namespace after PID has exited. Each row's counters are the
 * change since the previous one. The interfaces are fixed when the source
 * opens, and one that goes away keeps its keys, null from then on, with a
 * warning. The mounts are followed: one made during the episode (NFS, seen
 * in mountstats; FUSE and SMB, in mountinfo, read again when the kernel
 * says it changed: POLLPRI, which the sampler waits for beside its timer)
 * is in by_mount from the row after the one it appeared in, its counts
 * from there; one unmounted leaves by_mount at the row it is found gone in. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "collector.h"
#include "cifs_stats.h"
#include "common/wait_fds.h"
#include "jsonl_writer.h"
#include "mountstats.h"
#include "net_text.h"
#include "procfs_files.h"

#define NET_MAX_IFACES 64
#define NET_MAX_LISTED 1024 /* interfaces read of net/dev when choosing */
#define FUSECTL "/sys/fs/fuse/connections"
#define FUSE_CTL_SUPER_MAGIC 0x65735543
#define CIFS_STATS "/proc/fs/cifs/Stats"

/* ---- config: net.interfaces -------------------------------------------------- */

struct net_config {
	bool chosen; /* interfaces given; else every interface up but lo */
	size_t n;
	char name[NET_MAX_IFACES][NET_IFNAME_MAX];
};

static int add_iface(void *arg, struct cfg_ctx *c, const char *name, yaml_node_t *item)
{
	struct net_config *cfg = arg;
	if (strlen(name) >= NET_IFNAME_MAX || strchr(name, '/') || strchr(name, ':'))
		return cfg_fail(c, item, "\"%s\" is not an interface name", name);
	for (size_t i = 0; i < cfg->n; i++)
		if (!strcmp(cfg->name[i], name))
			return cfg_fail(c, item, "interface %s is named twice", name);
	if (cfg->n == NET_MAX_IFACES)
		return cfg_fail(c, item, "more than %d interfaces", NET_MAX_IFACES);
	snprintf(cfg->name[cfg->n++], NET_IFNAME_MAX, "%s", name);
	return 0;
}

static int net_parse_key(void *priv, struct cfg_ctx *c, const char *key, yaml_node_t *value)
{
	struct net_config *cfg = priv;
	if (strcmp(key, "interfaces"))
		return -ENOENT;
	cfg->n = 0;
	cfg->chosen = !cfg_is_null(value);
	return cfg->chosen ? cfg_each_name(c, value, key, "interface", add_iface, cfg) : 0;
}

static void net_describe(const void *priv, json_t *out)
{
	const struct net_config *cfg = priv;
	json_t *names = json_null();
	if (cfg->chosen) {
		names = json_array();
		for (size_t i = 0; i < cfg->n; i++)
			json_array_append_new(names, json_string(cfg->name[i]));
	}
	json_object_set_new(out, "interfaces", names);
}

/* ---- the row's fields ---------------------------------------------------------- */

static const struct {
	const char *field;
	enum net_dev_field f;
} dev_fields[] = {
	{"rx_bytes", ND_RX_BYTES},     {"tx_bytes", ND_TX_BYTES},     {"rx_packets", ND_RX_PACKETS},
	{"tx_packets", ND_TX_PACKETS}, {"rx_errors", ND_RX_ERRORS},   {"tx_errors", ND_TX_ERRORS},
	{"rx_dropped", ND_RX_DROPPED}, {"tx_dropped", ND_TX_DROPPED},
};
#define NDEV (sizeof(dev_fields) / sizeof(dev_fields[0]))

enum proto_file { PF_SNMP, PF_NETSTAT, PF_COUNT };
/* each file's counters together, in the files' order: one pass a file */
static const struct {
	const char *field;
	struct net_snmp_counter c;
	enum proto_file file;
} proto_fields[] = {
	{"tcp_retrans_segs", {"Tcp", "RetransSegs"}, PF_SNMP},
	{"tcp_out_rsts", {"Tcp", "OutRsts"}, PF_SNMP},
	{"tcp_active_opens", {"Tcp", "ActiveOpens"}, PF_SNMP},
	{"tcp_passive_opens", {"Tcp", "PassiveOpens"}, PF_SNMP},
	{"tcp_in_errs", {"Tcp", "InErrs"}, PF_SNMP},
	{"udp_in_errors", {"Udp", "InErrors"}, PF_SNMP},
	{"udp_rcvbuf_errors", {"Udp", "RcvbufErrors"}, PF_SNMP},
	{"tcp_listen_drops", {"TcpExt", "ListenDrops"}, PF_NETSTAT},
	{"tcp_listen_overflows", {"TcpExt", "ListenOverflows"}, PF_NETSTAT},
};
#define NPROTO (sizeof(proto_fields) / sizeof(proto_fields[0]))

/* an NFS mount's counters, summed over its operations */
enum { NM_OPS, NM_RTT, NM_EXE, NM_QUEUE, NM_RETRANS, NM_TIMEOUTS, NM_COUNT };

/* ---- state --------------------------------------------------------------------- */

struct iface {
	char name[NET_IFNAME_MAX];
	struct net_dev_line prev, now;
	bool seen, gone;
	int speed_fd; /* its sysfs speed, in the source's own network namespace only; -1 */
	json_t *obj;  /* by_interface.NAME */
};

/* A mount's place in by_mount: found at a tick (fresh), in by_mount from
 * the next (shown), out of it from the tick it is found gone. */
struct mount_life {
	char point[256];
	bool fresh, shown, gone;
};

struct nfs_mount {
	struct mount_life life;
	struct ms_mount prev, now; /* op arrays owned */
	bool have_now;
	json_t *obj, *by_op;
};

struct fuse_mount {
	struct mount_life life;
	char waiting[64]; /* its fusectl file: opened each tick (the file cannot be pread) */
	pid_t daemon;
	bool found;       /* in the mountinfo read now */
	json_t *obj;
};

/* An SMB mount (cifs, smb3): its share connection's counts, read from
 * CIFS_STATS by the name its source gives (cifs_stats.h) */
struct smb_mount {
	struct mount_life life;
	char tree[256];
	struct cifs_share prev, now;
	bool have_prev, have_now;
	bool found; /* in the mountinfo read now */
	json_t *obj, *by_op;
};

struct net {
	pid_t pid;
	int fd[PF_COUNT], dev_fd, ms_fd;
	int mi_fd; /* mountinfo, watched: POLLPRI when a mount comes or goes */
	bool mounts_moved; /* since mountinfo was read */
	char *buf;
	size_t cap;
	struct iface ifs[NET_MAX_IFACES];
	size_t nif;
	uint64_t proto_prev[NPROTO], proto_now[NPROTO];
	bool proto_known[NPROTO];
	struct net_snmp_counter want[NPROTO]; /* proto_fields' */
	struct mountstats ms;
	struct nfs_mount *nfs;
	size_t nnfs, nfs_cap;
	struct fuse_mount *fuse;
	size_t nfuse, fuse_cap;
	struct smb_mount *smb;
	size_t nsmb, smb_cap;
	int cifs_fd; /* CIFS_STATS, opened with the first SMB mount; -1 */
	struct cifs_stats cifs;
	bool fusectl; /* mounted: a FUSE mount's waiting can be read */
	json_t *row, *by_mount, *manifest, *warnings;
	json_t *mounts, *ratios, *nulls; /* the manifest's, grown with the mounts */
	char unknown_said[128]; /* the last mountstats line warned of */
};

static void warn(struct net *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct net *p, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(p->warnings, json_string(msg));
}

static uint64_t delta(uint64_t prev, uint64_t now)
{
	return now >= prev ? now - prev : now; /* reset: counted from 0 */
}

static void copy_mount(struct ms_mount *to, const struct ms_mount *from)
{
	free(to->op);
	*to = *from;
	to->op = NULL;
	to->nop = to->op_cap = 0;
	if (from->nop && (to->op = calloc(from->nop, sizeof(*to->op)))) {
		memcpy(to->op, from->op, from->nop * sizeof(*to->op));
		to->nop = to->op_cap = from->nop;
	}
}

static void net_close(void *state)
{
	struct net *p = state;
	if (!p)
		return;
	for (int i = 0; i < PF_COUNT; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	if (p->dev_fd >= 0)
		close(p->dev_fd);
	if (p->ms_fd >= 0)
		close(p->ms_fd);
	if (p->mi_fd >= 0)
		close(p->mi_fd);
	if (p->cifs_fd >= 0)
		close(p->cifs_fd);
	for (size_t i = 0; i < p->nif; i++)
		if (p->ifs[i].speed_fd >= 0)
			close(p->ifs[i].speed_fd);
	for (size_t i = 0; i < p->nnfs; i++) {
		free(p->nfs[i].prev.op);
		free(p->nfs[i].now.op);
		json_decref(p->nfs[i].obj);
	}
	for (size_t i = 0; i < p->nfuse; i++)
		json_decref(p->fuse[i].obj);
	for (size_t i = 0; i < p->nsmb; i++)
		json_decref(p->smb[i].obj);
	free(p->nfs);
	free(p->fuse);
	free(p->smb);
	cifs_stats_free(&p->cifs);
	mountstats_free(&p->ms);
	free(p->buf);
	free(p);
}

static int open_in(pid_t pid, const char *what, struct errbuf *why)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errbuf_set(why, errno, "%s: %s", path, strerror(errno));
	return fd;
}

/* A small sysfs file's number (speed, flags in hex with base 0, waiting):
 * true and *out, or false (unreadable, or the kernel's -1/EINVAL for a
 * link with no speed). */
static bool read_number(int fd, long long *out)
{
	char buf[32];
	/* pread, or read for a file opened for this one read */
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0 && errno == ESPIPE)
		n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(buf, &end, 0);
	if (end == buf || errno || v < 0)
		return false;
	*out = v;
	return true;
}

/* A name jansson takes as a key (UTF-8): an interface or a mount point may
 * be any bytes. */
static bool json_name(const char *s)
{
	json_t *t = json_string(s);
	json_decref(t);
	return t != NULL;
}

/* ---- the mounts -------------------------------------------------------------------- */

/* "server:/export" (an IPv6 server in brackets) apart. */
static void server_export(const char *device, char *server, size_t scap, char *export, size_t ecap)
{
	const char *sep = device[0] == '[' ? strstr(device, "]:") : strchr(device, ':');
	if (sep && device[0] == '[')
		sep++;
	snprintf(server, scap, "%.*s", sep ? (int)(sep - device) : (int)strlen(device), device);
	snprintf(export, ecap, "%s", sep ? sep + 1 : "");
}

static struct nfs_mount *find_nfs(struct net *p, const char *point)
{
	for (size_t i = 0; i < p->nnfs; i++)
		if (!p->nfs[i].life.gone && !strcmp(p->nfs[i].life.point, point))
			return &p->nfs[i];
	return NULL;
}

static struct smb_mount *find_smb(struct net *p, const char *point)
{
	for (size_t i = 0; i < p->nsmb; i++)
		if (!p->smb[i].life.gone && !strcmp(p->smb[i].life.point, point))
			return &p->smb[i];
	return NULL;
}

static struct fuse_mount *find_fuse(struct net *p, const char *point)
{
	for (size_t i = 0; i < p->nfuse; i++)
		if (!p->fuse[i].life.gone && !strcmp(p->fuse[i].life.point, point))
			return &p->fuse[i];
	return NULL;
}

/* Whether a mount of any kind is followed at point: one mounted over
 * another there is not followed too (the first stays). */
static bool followed(struct net *p, const char *point)
{
	return find_nfs(p, point) || find_fuse(p, point) || find_smb(p, point);
}

/* Room for one more in an array of n of cap: 0 or -ENOMEM. */
static int grow(void **a, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 8;
	void *b = reallocarray(*a, c, size);
	if (!b)
		return -ENOMEM;
	memset((char *)b + *cap * size, 0, (c - *cap) * size);
	*a = b;
	*cap = c;
	return 0;
}

static void null_because(struct net *p, const char *point, const char *field, const char *why)
{
	char key[600];
	snprintf(key, sizeof(key), "by_mount.%s.%s", point, field);
	json_object_set_new(p->nulls, key, json_string(why));
}

/* An NFS mount found in mountstats: followed from this reading, its
 * counts from the next (in by_mount from the next row); named in the
 * manifest's mounts and ratios. 0, or -ENOMEM with why. */
static int add_nfs(struct net *p, const struct ms_mount *m, struct errbuf *why)
{
	if (followed(p, m->point))
		return 0; /* mounted twice on one point: the first */
	char server[256], export[256];
	server_export(m->device, server, sizeof(server), export, sizeof(export));
	bool named = json_name(m->point) && json_name(server) && json_name(export);
	if (!named) {
		for (size_t i = 0; i < p->nnfs; i++)
			if (!p->nfs[i].obj && !strcmp(p->nfs[i].life.point, m->point))
				return 0; /* said */
		warn(p, "an NFS mount whose point or device is not UTF-8 is not read");
	}
	if (grow((void **)&p->nfs, p->nnfs, &p->nfs_cap, sizeof(*p->nfs)) < 0)
		return errbuf_set(why, ENOMEM, "out of memory");
	struct nfs_mount *n = &p->nfs[p->nnfs++];
	*n = (struct nfs_mount){.life = {.fresh = true}, .have_now = true};
	snprintf(n->life.point, sizeof(n->life.point), "%s", m->point);
	if (!named) {
		n->life.gone = true; /* no obj: kept only so as to be said once */
		return 0;
	}
	copy_mount(&n->prev, m);
	copy_mount(&n->now, m);
	n->obj = json_pack("{s:s, s:s, s:s, s:s?, s:s?}", "fstype", m->fstype, "server", server, "export", export,
			   "version", m->version[0] ? m->version : NULL, "transport",
			   m->transport[0] ? m->transport : NULL);
	n->by_op = json_object();
	for (size_t k = 0; k < m->nop; k++)
		json_object_set_new(n->by_op, m->op[k].name, json_object());
	json_object_set_new(n->obj, "by_op", n->by_op);
	json_object_set_new(p->mounts, m->point, json_pack("{s:s, s:s}", "fstype", m->fstype, "server", m->device));
	char name[300], num[300], den[300];
	snprintf(name, sizeof(name), "by_mount.%s.rtt_ns_per_op", m->point);
	snprintf(num, sizeof(num), "by_mount.%s.rtt_ns", m->point);
	snprintf(den, sizeof(den), "by_mount.%s.ops", m->point);
	json_object_set_new(p->ratios, name, json_pack("{s:s, s:s}", "numerator", num, "denominator", den));
	null_because(p, m->point, "rtt_ns_per_op", "null in a row with no RPC");
	if (!m->version[0])
		null_because(p, m->point, "version", "no vers= in the mount's options");
	if (!m->transport[0])
		null_because(p, m->point, "transport", "no proto= in the mount's options");
	return 0;
}

/* A FUSE mount found in mountinfo (fds's mount i): followed as add_nfs. */
static int add_fuse(struct net *p, struct wait_fds *fds, size_t i, struct errbuf *why)
{
	const struct wait_mount *wm = &fds->mount[i];
	if (followed(p, wm->point))
		return 0;
	if (strlen(wm->point) >= sizeof(p->fuse->life.point) || !json_name(wm->point) || !json_name(wm->fstype)) {
		warn(p, "a FUSE mount whose point is not UTF-8, or longer than 255 bytes, is not read");
		return 0;
	}
	if (grow((void **)&p->fuse, p->nfuse, &p->fuse_cap, sizeof(*p->fuse)) < 0)
		return errbuf_set(why, ENOMEM, "out of memory");
	struct fuse_mount *f = &p->fuse[p->nfuse++];
	*f = (struct fuse_mount){.life = {.fresh = true}, .found = true};
	snprintf(f->life.point, sizeof(f->life.point), "%s", wm->point);
	snprintf(f->waiting, sizeof(f->waiting), FUSECTL "/%u/waiting", wm->major << 20 | wm->minor);
	f->daemon = wait_fds_daemon(fds, (int)i);
	const char *comm = f->daemon && json_name(wm->daemon_comm) ? wm->daemon_comm : NULL;
	f->obj = json_pack("{s:s, s:s?}", "fstype", wm->fstype, "daemon_comm", comm);
	jsonl_cell_int(f->obj, "daemon_pid", f->daemon != 0, f->daemon);
	json_object_set_new(p->mounts, wm->point,
			    json_pack("{s:s, s:s?, s:o}", "fstype", wm->fstype, "daemon_comm", comm, "daemon_pid",
				      f->daemon ? json_integer(f->daemon) : json_null()));
	null_because(p, wm->point, "waiting", p->fusectl ? "null where its connection's file in " FUSECTL " cannot be "
								"read (gone, or another user's)"
							   : "fusectl (" FUSECTL ") is not mounted");
	if (!p->fusectl) {
		json_object_set_new(p->manifest, "fuse_waiting",
				    json_string("null: " FUSECTL " is not mounted (mount -t fusectl none " FUSECTL ")"));
	}
	if (!f->daemon) {
		null_because(p, wm->point, "daemon_pid", "no process holds /dev/fuse open for it that this process "
						       "can see");
		null_because(p, wm->point, "daemon_comm", "its daemon is not known");
	} else if (!comm) {
		null_because(p, wm->point, "daemon_comm", "its daemon's name is not UTF-8");
	}
	return 0;
}

/* An option's value in a mount's options ("rw,vers=3.1.1,..."), or "". */
static void mount_option(const char *opts, const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);
	out[0] = '\0';
	for (const char *o = opts; o && *o; o = strchr(o, ','), o = o ? o + 1 : NULL)
		if (!strncmp(o, name, n) && (o[n] == '=' || o[n] == ',' || !o[n])) {
			snprintf(out, cap, "%.*s", o[n] == '=' ? (int)strcspn(o + n + 1, ",") : (int)n,
				 o[n] == '=' ? o + n + 1 : o);
			return;
		}
}

static int read_smb(struct net *p, struct errbuf *why);

/* An SMB mount found in mountinfo (cifs, smb3): followed as add_nfs, its
 * calls those its share lists in CIFS_STATS (fill_smb adds them). */
static int add_smb(struct net *p, const struct wait_mount *wm, struct errbuf *why)
{
	char tree[256];
	if (followed(p, wm->point))
		return 0;
	if (strlen(wm->point) >= sizeof(p->smb->life.point) || !json_name(wm->point) ||
	    !cifs_tree_of_source(wm->source, tree, sizeof(tree)) || !json_name(tree)) {
		warn(p, "an SMB mount whose point or share is not UTF-8, or longer than 255 bytes, is not read");
		return 0;
	}
	if (grow((void **)&p->smb, p->nsmb, &p->smb_cap, sizeof(*p->smb)) < 0)
		return errbuf_set(why, ENOMEM, "out of memory");
	struct smb_mount *m = &p->smb[p->nsmb++];
	*m = (struct smb_mount){.life = {.fresh = true}, .found = true};
	snprintf(m->life.point, sizeof(m->life.point), "%s", wm->point);
	snprintf(m->tree, sizeof(m->tree), "%s", tree);
	if (p->cifs_fd < 0)
		p->cifs_fd = open(CIFS_STATS, O_RDONLY | O_CLOEXEC);
	char server[256], share[256], version[16], rdma[8];
	const char *t = tree + 2;
	size_t slen = strcspn(t, "\\");
	snprintf(server, sizeof(server), "%.*s", (int)slen, t);
	snprintf(share, sizeof(share), "%s", t + slen + 1);
	mount_option(wm->options, "vers", version, sizeof(version));
	mount_option(wm->options, "rdma", rdma, sizeof(rdma));
	m->obj = json_pack("{s:s, s:s, s:s, s:s?, s:s}", "fstype", wm->fstype, "server", server, "export", share,
			   "version", version[0] ? version : NULL, "transport", rdma[0] ? "rdma" : "tcp");
	m->by_op = json_object();
	json_object_set_new(m->obj, "by_op", m->by_op);
	json_object_set_new(p->mounts, wm->point, json_pack("{s:s, s:s}", "fstype", wm->fstype, "server", wm->source));
	int r = read_smb(p, why);
	if (r < 0)
		return r;
	m->prev = m->now;
	m->have_prev = m->have_now;
	const char *missing = p->cifs_fd < 0 ? "null: " CIFS_STATS " cannot be read"
					    : "null in a row whose reading of " CIFS_STATS " lacks its share";
	null_because(p, wm->point, "ops", missing);
	null_because(p, wm->point, "read_bytes", missing);
	null_because(p, wm->point, "write_bytes", missing);
	if (!version[0])
		null_because(p, wm->point, "version", "no vers= in the mount's options");
	if (!m->have_now)
		warn(p, "SMB mount %s: its share %s is not in %s%s", wm->point, tree, CIFS_STATS,
		     p->cifs_fd < 0 ? " (which cannot be read)" : " yet: its counts are null until it is");
	return 0;
}

/* The FUSE and SMB mounts of mountinfo now: those new followed, those
 * gone marked (take() takes them out). 0, or -errno with why. */
static int read_mounts(struct net *p, struct errbuf *why)
{
	struct wait_fds fds;
	wait_fds_init(&fds);
	if (wait_fds_load_mounts(&fds, p->pid) < 0) {
		wait_fds_free(&fds);
		/* the tree's last process gone: its mounts are as they were */
		return kill(p->pid, 0) < 0 && errno == ESRCH
			       ? 0
			       : errbuf_set(why, errno ? errno : EIO, "/proc/%d/mountinfo cannot be read", (int)p->pid);
	}
	for (size_t i = 0; i < p->nfuse; i++)
		p->fuse[i].found = false;
	for (size_t i = 0; i < p->nsmb; i++)
		p->smb[i].found = false;
	int r = 0;
	for (size_t i = 0; r == 0 && i < fds.nmount; i++) {
		const struct wait_mount *wm = &fds.mount[i];
		if (wm->kind == WFD_FUSE) {
			struct fuse_mount *f = find_fuse(p, wm->point);
			if (f)
				f->found = true;
			else
				r = add_fuse(p, &fds, i, why);
		} else if (!strcmp(wm->fstype, "cifs") || !strcmp(wm->fstype, "smb3")) {
			struct smb_mount *m = find_smb(p, wm->point);
			if (m)
				m->found = true;
			else
				r = add_smb(p, wm, why);
		}
	}
	wait_fds_free(&fds);
	return r;
}

/* Whether a mount came or went in the tree's namespace since the last
 * poll (mountinfo's POLLPRI; the kernel's event, reset by the poll: the
 * sampler's wait on net_watch's descriptor resets it too). Asked here at
 * the open and the begin only: while sampling, the sampler's wait says. */
static bool mounts_changed(struct net *p)
{
	struct pollfd pf = {.fd = p->mi_fd, .events = POLLPRI};
	return p->mi_fd >= 0 && poll(&pf, 1, 0) > 0 && (pf.revents & (POLLPRI | POLLERR));
}

/* A mount out of by_mount, from this row, with a warning. */
static void mount_gone(struct net *p, struct mount_life *l, const char *kind)
{
	l->gone = true;
	if (l->shown)
		json_object_del(p->by_mount, l->point);
	warn(p, "%s mount %s was unmounted: %s", kind, l->point,
	     l->shown ? "it leaves by_mount from this row" : "before a row had it");
}

/* ---- reading -------------------------------------------------------------------- */

static int read_file(struct net *p, int fd, const char *what, struct errbuf *why)
{
	ssize_t r = procfs_pread_all(fd, &p->buf, &p->cap);
	if (r < 0)
		return errbuf_set(why, (int)-r, "/proc/%d/%s: %s", (int)p->pid, what, strerror((int)-r));
	return 0;
}

/* This tick's interface lines into ifs[].now, seen[] for those present. */
static int read_ifaces(struct net *p, struct errbuf *why)
{
	int r = read_file(p, p->dev_fd, "net/dev", why);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->nif; i++)
		p->ifs[i].seen = false;
	for (char *line = p->buf; *line;) {
		char *end = strchrnul(line, '\n');
		bool more = *end == '\n';
		*end = '\0';
		char name[NET_IFNAME_MAX];
		for (size_t i = 0; net_dev_line_name(line, name) == 0 && i < p->nif; i++)
			if (!strcmp(p->ifs[i].name, name)) {
				/* only a chosen interface's numbers are parsed */
				p->ifs[i].seen = net_dev_parse_line(line, &p->ifs[i].now) == 0;
				break;
			}
		line = more ? end + 1 : end;
	}
	return 0;
}

static int read_protos(struct net *p, struct errbuf *why)
{
	static const char *const names[PF_COUNT] = {"net/snmp", "net/netstat"};
	for (size_t i = 0, n; i < NPROTO; i += n) {
		enum proto_file f = proto_fields[i].file;
		for (n = 1; i + n < NPROTO && proto_fields[i + n].file == f; n++)
			;
		if (p->fd[f] < 0)
			continue;
		int r = read_file(p, p->fd[f], names[f], why);
		if (r < 0)
			return r;
		net_snmp_values(p->buf, p->want + i, n, p->proto_now + i, p->proto_known + i);
	}
	return 0;
}

static int read_mountstats(struct net *p, struct errbuf *why)
{
	int r = read_file(p, p->ms_fd, "mountstats", why);
	if (r < 0)
		return r;
	if ((r = mountstats_parse(&p->ms, p->buf)) < 0)
		return errbuf_set(why, -r, "out of memory");
	/* once per label ("newthing:"), whatever numbers follow it */
	size_t label = strcspn(p->ms.first_unknown, ":\t ");
	if (p->ms.unknown_lines &&
	    (strlen(p->unknown_said) != label || strncmp(p->unknown_said, p->ms.first_unknown, label))) {
		snprintf(p->unknown_said, sizeof(p->unknown_said), "%.*s", (int)label, p->ms.first_unknown);
		warn(p, "/proc/%d/mountstats: %u line%s of an NFS mount not understood, skipped (the first: \"%s\")",
		     (int)p->pid, p->ms.unknown_lines, p->ms.unknown_lines == 1 ? "" : "s", p->ms.first_unknown);
	}
	for (size_t i = 0; i < p->nnfs; i++) {
		struct nfs_mount *n = &p->nfs[i];
		const struct ms_mount *m = n->life.gone ? NULL : mountstats_find(&p->ms, n->life.point);
		n->have_now = m != NULL;
		if (m)
			copy_mount(&n->now, m);
	}
	/* an NFS mount made since the last tick: followed from here */
	for (size_t k = 0; k < p->ms.n; k++)
		if (!find_nfs(p, p->ms.m[k].point) && (r = add_nfs(p, &p->ms.m[k], why)) < 0)
			return r;
	return 0;
}

/* The SMB mounts' shares in CIFS_STATS now (read only while one is
 * followed): have_now for those found. */
static int read_smb(struct net *p, struct errbuf *why)
{
	bool any = false;
	for (size_t i = 0; i < p->nsmb; i++)
		any |= !p->smb[i].life.gone;
	if (!any)
		return 0;
	ssize_t n = p->cifs_fd < 0 ? -1 : procfs_pread_all(p->cifs_fd, &p->buf, &p->cap);
	if (n == -ENOMEM || (n >= 0 && cifs_stats_parse(&p->cifs, p->buf) < 0))
		return errbuf_set(why, ENOMEM, "out of memory");
	for (size_t i = 0; i < p->nsmb; i++) {
		struct smb_mount *m = &p->smb[i];
		m->have_now = n >= 0 && !m->life.gone && cifs_stats_share(&p->cifs, m->tree, &m->now);
	}
	return 0;
}

/* ---- the row ---------------------------------------------------------------------- */

static void fill_ifaces(struct net *p)
{
	uint64_t sum[NDEV] = {0};
	long long speed_sum = 0;
	bool any = false, speed_known = false;
	for (size_t i = 0; i < p->nif; i++) {
		struct iface *f = &p->ifs[i];
		long long speed = 0;
		bool has_speed = !f->gone && read_number(f->speed_fd, &speed);
		for (size_t k = 0; k < NDEV; k++) {
			uint64_t d = f->gone ? 0 : delta(f->prev.v[dev_fields[k].f], f->now.v[dev_fields[k].f]);
			jsonl_cell_int(f->obj, dev_fields[k].field, !f->gone, (json_int_t)d);
			sum[k] += d;
		}
		jsonl_cell_int(f->obj, "link_speed_mbps", has_speed, speed);
		any |= !f->gone;
		if (has_speed) {
			speed_known = true;
			speed_sum += speed;
		}
	}
	for (size_t k = 0; k < NDEV; k++)
		jsonl_cell_int(p->row, dev_fields[k].field, any, (json_int_t)sum[k]);
	jsonl_cell_int(p->row, "link_speed_mbps", speed_known, speed_sum);
}

static void fill_protos(struct net *p)
{
	for (size_t i = 0; i < NPROTO; i++)
		jsonl_cell_int(p->row, proto_fields[i].field, p->proto_known[i],
			       (json_int_t)delta(p->proto_prev[i], p->proto_now[i]));
}

static void fill_nfs(struct nfs_mount *n)
{
	bool known = !n->life.gone && n->have_now;
	uint64_t sum[NM_COUNT] = {0};
	/* an operation this read lacks is null, not its last row's */
	const char *key;
	json_t *cell;
	json_object_foreach(n->by_op, key, cell) {
		jsonl_cell_int(cell, "ops", false, 0);
		jsonl_cell_int(cell, "rtt_ns", false, 0);
	}
	for (size_t i = 0; known && i < n->now.nop; i++) {
		const struct ms_op *now = &n->now.op[i];
		const struct ms_op *prev = mountstats_op(&n->prev, now->name);
		uint64_t d[MO_NFIELDS];
		for (int f = 0; f < MO_NFIELDS; f++)
			d[f] = delta(prev ? prev->v[f] : 0, now->v[f]);
		sum[NM_OPS] += d[MO_OPS];
		sum[NM_RTT] += d[MO_RTT_MS] * 1000000;
		sum[NM_EXE] += d[MO_EXECUTE_MS] * 1000000;
		sum[NM_QUEUE] += d[MO_QUEUE_MS] * 1000000;
		sum[NM_RETRANS] += d[MO_TRANS] > d[MO_OPS] ? d[MO_TRANS] - d[MO_OPS] : 0;
		sum[NM_TIMEOUTS] += d[MO_TIMEOUTS];
		json_t *op = json_object_get(n->by_op, now->name);
		if (op) {
			jsonl_cell_int(op, "ops", true, (json_int_t)d[MO_OPS]);
			jsonl_cell_int(op, "rtt_ns", true, (json_int_t)(d[MO_RTT_MS] * 1000000));
		}
	}
	bool bytes = known && n->now.have_bytes && n->prev.have_bytes;
	jsonl_cell_int(n->obj, "ops", known, (json_int_t)sum[NM_OPS]);
	jsonl_cell_int(n->obj, "read_bytes", bytes,
		       bytes ? (json_int_t)delta(n->prev.bytes[MB_SERVER_READ], n->now.bytes[MB_SERVER_READ]) : 0);
	jsonl_cell_int(n->obj, "write_bytes", bytes,
		       bytes ? (json_int_t)delta(n->prev.bytes[MB_SERVER_WRITE], n->now.bytes[MB_SERVER_WRITE]) : 0);
	jsonl_cell_int(n->obj, "rtt_ns", known, (json_int_t)sum[NM_RTT]);
	jsonl_cell_int(n->obj, "exe_ns", known, (json_int_t)sum[NM_EXE]);
	jsonl_cell_int(n->obj, "backlog_ns", known, (json_int_t)sum[NM_QUEUE]);
	jsonl_cell_int(n->obj, "retrans", known, (json_int_t)sum[NM_RETRANS]);
	jsonl_cell_int(n->obj, "timeouts", known, (json_int_t)sum[NM_TIMEOUTS]);
	jsonl_cell_real(n->obj, "rtt_ns_per_op", known && sum[NM_OPS],
			sum[NM_OPS] ? (double)sum[NM_RTT] / (double)sum[NM_OPS] : 0);
}

static void fill_fuse(struct fuse_mount *f)
{
	long long waiting = 0;
	int fd = open(f->waiting, O_RDONLY | O_CLOEXEC);
	bool known = read_number(fd, &waiting);
	jsonl_cell_int(f->obj, "waiting", known, waiting);
	if (fd >= 0)
		close(fd);
}

static const struct cifs_op *smb_op(const struct cifs_share *sh, const char *name)
{
	for (size_t k = 0; k < sh->nop; k++)
		if (!strcmp(sh->op[k].name, name))
			return &sh->op[k];
	return NULL;
}

/* Whether a share's counts went back since the last reading: zeroed (a
 * write to CIFS_STATS), a connection of its name gone (a multiuser
 * mount's idle one), or a count past its 32 bits. */
static bool smb_went_back(const struct cifs_share *prev, const struct cifs_share *now)
{
	if (prev->tcons != now->tcons || now->smbs < prev->smbs || now->read_bytes < prev->read_bytes ||
	    now->write_bytes < prev->write_bytes)
		return true;
	for (size_t k = 0; k < now->nop; k++) {
		const struct cifs_op *o = smb_op(prev, now->op[k].name);
		if (o && now->op[k].calls < o->calls)
			return true;
	}
	return false;
}

/* An SMB mount's share: its requests, bytes and calls since the last row;
 * null in a row whose reading lacks the share or whose counts went back
 * (the next row counts from this reading). A call first listed now is in
 * by_op from this row, null in it. */
static void fill_smb(struct net *p, struct smb_mount *m)
{
	bool known = m->have_prev && m->have_now && !smb_went_back(&m->prev, &m->now);
	bool bytes = known && m->now.have_bytes && m->prev.have_bytes;
	jsonl_cell_int(m->obj, "ops", known, (json_int_t)(m->now.smbs - m->prev.smbs));
	jsonl_cell_int(m->obj, "read_bytes", bytes, (json_int_t)(m->now.read_bytes - m->prev.read_bytes));
	jsonl_cell_int(m->obj, "write_bytes", bytes, (json_int_t)(m->now.write_bytes - m->prev.write_bytes));
	for (size_t k = 0; m->have_now && k < m->now.nop; k++)
		if (!json_object_get(m->by_op, m->now.op[k].name) && json_name(m->now.op[k].name)) {
			char field[300];
			json_object_set_new(m->by_op, m->now.op[k].name, json_object());
			snprintf(field, sizeof(field), "by_op.%s.rtt_ns", m->now.op[k].name);
			null_because(p, m->life.point, field, "an SMB mount's: " CIFS_STATS " keeps no time by share");
		}
	const char *key;
	json_t *cell;
	json_object_foreach(m->by_op, key, cell) {
		const struct cifs_op *now = known ? smb_op(&m->now, key) : NULL;
		const struct cifs_op *prev = now ? smb_op(&m->prev, key) : NULL;
		jsonl_cell_int(cell, "ops", prev != NULL, prev ? (json_int_t)(now->calls - prev->calls) : 0);
		jsonl_cell_int(cell, "rtt_ns", false, 0);
	}
}

/* Whether a mount is in this row: shown, or shown from this one (found
 * at the last tick), and not gone. */
static bool in_row(struct net *p, struct mount_life *l, json_t *obj)
{
	if (l->gone || l->fresh || !obj)
		return false;
	if (!l->shown) {
		l->shown = true;
		json_object_set(p->by_mount, l->point, obj);
	}
	return true;
}

static void fill_row(struct net *p)
{
	fill_ifaces(p);
	fill_protos(p);
	for (size_t i = 0; i < p->nnfs; i++)
		if (in_row(p, &p->nfs[i].life, p->nfs[i].obj))
			fill_nfs(&p->nfs[i]);
	for (size_t i = 0; i < p->nfuse; i++)
		if (in_row(p, &p->fuse[i].life, p->fuse[i].obj))
			fill_fuse(&p->fuse[i]);
	for (size_t i = 0; i < p->nsmb; i++)
		if (in_row(p, &p->smb[i].life, p->smb[i].obj))
			fill_smb(p, &p->smb[i]);
}

/* What this tick read becomes the baseline of the next. */
static void advance(struct net *p)
{
	for (size_t i = 0; i < p->nif; i++)
		if (!p->ifs[i].gone)
			p->ifs[i].prev = p->ifs[i].now;
	memcpy(p->proto_prev, p->proto_now, sizeof(p->proto_prev));
	for (size_t i = 0; i < p->nnfs; i++) {
		p->nfs[i].life.fresh = false;
		if (p->nfs[i].have_now && !p->nfs[i].life.gone)
			copy_mount(&p->nfs[i].prev, &p->nfs[i].now);
	}
	for (size_t i = 0; i < p->nfuse; i++)
		p->fuse[i].life.fresh = false;
	for (size_t i = 0; i < p->nsmb; i++) {
		p->smb[i].life.fresh = false;
		p->smb[i].have_prev = p->smb[i].have_now;
		if (p->smb[i].have_now)
			p->smb[i].prev = p->smb[i].now;
	}
}

/* Whether an NFS mount is followed: its counters are read each tick. */
static bool nfs_followed(const struct net *p)
{
	for (size_t i = 0; i < p->nnfs; i++)
		if (!p->nfs[i].life.gone)
			return true;
	return false;
}

static int take(struct net *p, struct errbuf *why)
{
	bool moved = p->mounts_moved;
	p->mounts_moved = false; /* a change from here on is the next tick's */
	int r = read_ifaces(p, why);
	if (r == 0)
		r = read_protos(p, why);
	/* mountstats while an NFS mount is followed, and when a mount came or
	 * went (a new NFS mount is in mountinfo too): a host's other mounts,
	 * which may be hundreds, are not printed a tick for nothing */
	if (r == 0 && (moved || nfs_followed(p)))
		r = read_mountstats(p, why);
	if (r == 0 && moved)
		r = read_mounts(p, why);
	if (r == 0)
		r = read_smb(p, why);
	if (r < 0) {
		p->mounts_moved |= moved; /* not forgotten: begin's failure is not the episode's */
		return r;
	}
	for (size_t i = 0; i < p->nif; i++)
		if (!p->ifs[i].seen && !p->ifs[i].gone) {
			p->ifs[i].gone = true;
			warn(p, "interface %s left /proc/%d/net/dev (renamed or removed); its fields are null from "
				"then on", p->ifs[i].name, (int)p->pid);
		}
	for (size_t i = 0; i < p->nnfs; i++)
		if (!p->nfs[i].have_now && !p->nfs[i].life.gone)
			mount_gone(p, &p->nfs[i].life, "NFS");
	for (size_t i = 0; i < p->nfuse; i++)
		if (!p->fuse[i].found && !p->fuse[i].life.gone)
			mount_gone(p, &p->fuse[i].life, "FUSE");
	for (size_t i = 0; i < p->nsmb; i++)
		if (!p->smb[i].found && !p->smb[i].life.gone)
			mount_gone(p, &p->smb[i].life, "SMB");
	return 0;
}

/* ---- opening ------------------------------------------------------------------------ */

/* /proc/PID/ns/net is this process's own: sysfs's /sys/class/net shows it. */
static bool same_netns(pid_t pid)
{
	char path[64];
	struct stat a, b;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	return stat(path, &a) == 0 && stat("/proc/self/ns/net", &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

static int sysfs_fd(const char *name, const char *file)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", name, file);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* The interfaces: those named, each of which must be there, or every one up
 * (IFF_UP in sysfs's flags, where it shows the tree's namespace; else
 * every one) but lo. */
static int choose_ifaces(struct net *p, const struct net_config *cfg, json_t *manifest, struct errbuf *why)
{
	int r = read_file(p, p->dev_fd, "net/dev", why);
	if (r < 0)
		return r;
	bool own = same_netns(p->pid);
	static char found_name[NET_MAX_LISTED][NET_IFNAME_MAX];
	size_t nfound = 0;
	for (char *line = p->buf; *line && nfound < NET_MAX_LISTED;) {
		char *end = strchrnul(line, '\n');
		bool more = *end == '\n';
		*end = '\0';
		struct net_dev_line l;
		if (net_dev_parse_line(line, &l) == 0)
			snprintf(found_name[nfound++], NET_IFNAME_MAX, "%s", l.name);
		line = more ? end + 1 : end;
	}
	for (size_t i = 0; i < (cfg->chosen ? cfg->n : nfound); i++) {
		const char *name = cfg->chosen ? cfg->name[i] : found_name[i];
		bool there = false;
		for (size_t k = 0; k < nfound && !there; k++)
			there = !strcmp(found_name[k], name);
		if (!there)
			return errbuf_set(why, ENODEV, "interface %s is not in /proc/%d/net/dev (the tree's network "
				      "namespace)", name, (int)p->pid);
		if (!cfg->chosen) {
			long long flags = 0;
			int fd = own ? sysfs_fd(name, "flags") : -1;
			bool up = fd < 0 || (read_number(fd, &flags) && (flags & 1));
			if (fd >= 0)
				close(fd);
			if (!strcmp(name, "lo") || !up)
				continue;
			if (!json_name(name) || p->nif == NET_MAX_IFACES) {
				warn(p, "interface %s not read: %s", json_name(name) ? name : "(a name not UTF-8)",
				     p->nif == NET_MAX_IFACES ? "more than 64 are up" : "its name is not UTF-8");
				continue;
			}
		}
		struct iface *f = &p->ifs[p->nif++];
		*f = (struct iface){.speed_fd = own ? sysfs_fd(name, "speed") : -1};
		snprintf(f->name, sizeof(f->name), "%s", name);
	}
	json_t *names = json_array();
	for (size_t i = 0; i < p->nif; i++)
		json_array_append_new(names, json_string(p->ifs[i].name));
	json_object_set_new(manifest, "interfaces", names);
	if (!own)
		json_object_set_new(manifest, "link_speed",
				    json_string("null: the tree has a network namespace of its own, which this "
						"process's /sys/class/net does not show"));
	return 0;
}

/* The mounts at the open: each NFS mount mountstats has, each FUSE mount
 * mountinfo has (its connection's waiting, its daemon), keyed by where
 * they are mounted, each named in the manifest's mounts as waits names
 * its own, in by_mount from the first row. */
static int choose_mounts(struct net *p, struct errbuf *why)
{
	struct statfs sf;
	p->fusectl = statfs(FUSECTL, &sf) == 0 && (unsigned long)sf.f_type == FUSE_CTL_SUPER_MAGIC;
	if (p->mi_fd >= 0)
		mounts_changed(p); /* the kernel's event as it is now: a change from here on */
	int r = read_mountstats(p, why);
	if (r == 0)
		r = read_mounts(p, why);
	if (r < 0)
		return r;
	/* in the first row already */
	for (size_t i = 0; i < p->nnfs; i++) {
		p->nfs[i].life.fresh = false;
		in_row(p, &p->nfs[i].life, p->nfs[i].obj);
	}
	for (size_t i = 0; i < p->nfuse; i++) {
		p->fuse[i].life.fresh = false;
		in_row(p, &p->fuse[i].life, p->fuse[i].obj);
	}
	for (size_t i = 0; i < p->nsmb; i++) {
		p->smb[i].life.fresh = false;
		in_row(p, &p->smb[i].life, p->smb[i].obj);
	}
	return 0;
}

/* manifest.null_fields: each field that may be null, and why (a field null
 * in every row, or null in some); the mounts' are added as they are found. */
static void null_fields(const struct net *p)
{
	json_t *out = p->nulls;
	char key[320];
	bool any_speed = false;
	for (size_t i = 0; i < p->nif; i++) {
		long long v;
		if (read_number(p->ifs[i].speed_fd, &v)) {
			any_speed = true;
			continue;
		}
		snprintf(key, sizeof(key), "by_interface.%s.link_speed_mbps", p->ifs[i].name);
		json_object_set_new(out, key, json_string(p->ifs[i].speed_fd < 0 && !same_netns(p->pid)
			? "the tree has a network namespace of its own, which this process's /sys/class/net does not show"
			: "the kernel gives no link speed for it (/sys/class/net/NAME/speed: none for loopback, "
			  "virtio, a link down)"));
	}
	if (!any_speed)
		json_object_set_new(out, "link_speed_mbps", json_string("no chosen interface has a link speed"));
	for (size_t i = 0; i < NPROTO; i++)
		if (!p->proto_known[i])
			json_object_set_new(out, proto_fields[i].field,
					    json_string(proto_fields[i].file == PF_SNMP
								? "not in this kernel's /proc/net/snmp"
								: "not in this kernel's /proc/net/netstat, or no netstat"));
}

static int net_probe(struct source_config *sc, const struct target_info *t, json_t *manifest, struct errbuf *why)
{
	(void)sc;
	(void)t;
	(void)manifest;
	static const char *const need[] = {"/proc/self/net/dev", "/proc/self/net/snmp", "/proc/self/mountstats"};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (access(need[i], R_OK) < 0)
			return errbuf_set(why, errno, "%s: %s", need[i], strerror(errno));
	return 0;
}

static int net_open(const struct source_config *sc, const struct target_info *t, json_t *row, json_t *manifest,
		    void **state, struct errbuf *why)
{
	struct net *p = calloc(1, sizeof(*p));
	if (!p)
		return errbuf_set(why, ENOMEM, "out of memory");
	p->pid = t->pid;
	p->dev_fd = p->ms_fd = p->mi_fd = p->cifs_fd = p->fd[PF_SNMP] = p->fd[PF_NETSTAT] = -1;
	mountstats_init(&p->ms);
	cifs_stats_init(&p->cifs);
	for (size_t i = 0; i < NPROTO; i++)
		p->want[i] = proto_fields[i].c;
	p->manifest = manifest;
	p->row = row;
	json_object_set_new(manifest, "warnings", p->warnings = json_array());
	json_object_set_new(manifest, "mounts", p->mounts = json_object());
	json_object_set_new(manifest, "ratios", p->ratios = json_object());
	json_object_set_new(manifest, "null_fields", p->nulls = json_object());
	json_t *by_if = json_object();
	json_object_set_new(row, "by_interface", by_if);
	json_object_set_new(row, "by_mount", p->by_mount = json_object());
	int r = p->dev_fd = open_in(p->pid, "net/dev", why);
	if (r >= 0)
		r = p->ms_fd = open_in(p->pid, "mountstats", why);
	if (r >= 0)
		r = p->mi_fd = open_in(p->pid, "mountinfo", why);
	if (r >= 0)
		r = p->fd[PF_SNMP] = open_in(p->pid, "net/snmp", why);
	if (r >= 0) {
		/* netstat's counters are the kernel's extensions: without it, null */
		struct errbuf ignored;
		p->fd[PF_NETSTAT] = open_in(p->pid, "net/netstat", &ignored);
		r = 0;
	}
	if (r == 0)
		r = choose_ifaces(p, sc->priv, manifest, why);
	if (r == 0)
		r = choose_mounts(p, why);
	if (r == 0)
		r = take(p, why);
	if (r < 0) {
		net_close(p);
		return r;
	}
	for (size_t i = 0; i < p->nif; i++)
		json_object_set_new(by_if, p->ifs[i].name, p->ifs[i].obj = json_object());
	advance(p);
	fill_row(p); /* the keys: the mounts' may change, the row's do not */
	null_fields(p);
	*state = p;
	return 0;
}

/* The baseline again once every source has opened. */
static void net_begin(void *state)
{
	struct net *p = state;
	struct errbuf ignored;
	p->mounts_moved |= mounts_changed(p);
	if (take(p, &ignored) == 0)
		advance(p);
}

/* mountinfo, for a mount come or gone while the sampler waits */
static int net_watch(void *state, short *events)
{
	*events = POLLPRI;
	return ((struct net *)state)->mi_fd;
}

static void net_watched(void *state)
{
	((struct net *)state)->mounts_moved = true;
}

static int net_sample(void *state, struct errbuf *why)
{
	struct net *p = state;
	int r = take(p, why);
	if (r < 0)
		return r;
	fill_row(p);
	advance(p);
	return 0;
}

const struct collector_ops net_ops = {
	.name = "net",
	.available_in_deployment = true,
	.priv_size = sizeof(struct net_config),
	.parse_key = net_parse_key,
	.describe = net_describe,
	.probe = net_probe,
	.open = net_open,
	.begin = net_begin,
	.sample = net_sample,
	.watch = net_watch,
	.watched = net_watched,
	.close = net_close,
};
