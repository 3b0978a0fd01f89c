// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* What block_io's program needs to know of the throttle; see bio_throttle.h. */
#include "bio_throttle.h"

#include <bpf/btf.h>
#include <string.h>
#include <sys/stat.h>

/* The value of the enumerator name in any enum of btf, or -1. */
static long long enumerator(const struct btf *btf, const char *name)
{
	for (__u32 id = 1; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!btf_is_enum(t))
			continue;
		const struct btf_enum *e = btf_enum(t);
		for (__u16 i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off), name))
				return e[i].val;
	}
	return -1;
}

void bio_throttle_facts(struct bio_throttle_facts *f)
{
	*f = (struct bio_throttle_facts){.entry = false, .throttled_bit = -1, .cloned_bit = -1};
	struct btf *btf = btf__load_vmlinux_btf();
	if (!btf)
		return;
	f->entry = btf__find_by_name_kind(btf, "__blk_throtl_bio", BTF_KIND_FUNC) > 0;
	long long bit = enumerator(btf, "BIO_BPS_THROTTLED");
	if (bit < 0)
		bit = enumerator(btf, "BIO_THROTTLED");
	if (bit >= 0 && bit < 16) /* bi_flags is an unsigned short */
		f->throttled_bit = (int)bit;
	bit = enumerator(btf, "BIO_CLONED");
	if (bit >= 0 && bit < 16)
		f->cloned_bit = (int)bit;
	btf__free(btf);
}

void bio_episode_cgroups(const struct cgroup_set *cg, uint64_t ids[2])
{
	static const enum cgroup_role roles[2] = {CGR_V2, CGR_BLKIO};
	struct stat st;
	for (int i = 0; i < 2; i++)
		ids[i] = cg && cg->owned && cg->dir[roles[i]][0] && stat(cg->dir[roles[i]], &st) == 0
				 ? (uint64_t)st.st_ino
				 : 0;
}
