// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A probe's load, kept for the sampler forked after it. */
#include "ebpf_preload.h"

#include <string.h>

#include "fdutil.h"

void ebpf_preload_mark(struct ebpf_fd_mark *before)
{
	int n = fd_open_list(before->fds, sizeof(before->fds) / sizeof(before->fds[0]));
	before->n = n <= (int)(sizeof(before->fds) / sizeof(before->fds[0])) ? n : -1;
}

void ebpf_preload_keep(struct ebpf_preload *p, const struct ebpf_fd_mark *before, void *skel,
		       void (*destroy)(void *skel))
{
	ebpf_preload_release(p);
	struct ebpf_fd_mark after;
	ebpf_preload_mark(&after);
	bool fits = before->n >= 0 && after.n >= 0;
	size_t n = 0;
	/* both lists ascend */
	for (int i = 0, j = 0; fits && i < after.n; i++) {
		while (j < before->n && before->fds[j] < after.fds[i])
			j++;
		if (j < before->n && before->fds[j] == after.fds[i])
			continue;
		fits = n < EBPF_PRELOAD_FDS_MAX;
		if (fits)
			p->fds[n++] = after.fds[i];
	}
	if (!fits) {
		destroy(skel);
		return;
	}
	p->skel = skel;
	p->destroy = destroy;
	p->nfds = n;
}

size_t ebpf_preload_fds(const struct ebpf_preload *p, int *fds, size_t max)
{
	if (!p->skel || p->nfds > max)
		return 0;
	memcpy(fds, p->fds, p->nfds * sizeof(*fds));
	return p->nfds;
}

void ebpf_preload_release(struct ebpf_preload *p)
{
	if (p->skel)
		p->destroy(p->skel);
	p->skel = NULL;
	p->nfds = 0;
}
