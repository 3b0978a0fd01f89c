# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The two syscall_io backends agree on programs nobody here wrote, and both
# agree with strace run on the same command: tar, a threaded zstd, a shell
# pipeline, and python reading files. Each program runs three times on the
# same input (ebpf, ptrace, strace -f); the bytes its whole tree read and
# wrote through the ten plain read/write syscalls must be equal in all
# three (cat's copy_file_range, which strace would count on one side only,
# is left out of all three).
# (Calls may differ: how a pipe's bytes split into reads depends on timing.)
. "$(dirname "$0")/lib/common.sh"

SYSCALLS=read,write,pread64,pwrite64,readv,writev,preadv,pwritev,preadv2,pwritev2
DATA=$WORK/data
OUT=$WORK/out

# Input: files of text and of random bytes, 1 KiB to 1.5 MiB, the same for
# every run of a test.
"$PY" - "$DATA" <<'PY'
import os, random, sys
d = sys.argv[1]
os.makedirs(d)
rng = random.Random(15)
words = [("%x" % rng.getrandbits(rng.randint(8, 40))) for _ in range(500)]
for i, size in enumerate([1024, 4095, 4096, 70000, 300000, 1 << 20, 1536 * 1024]):
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        if i % 2:
            f.write(rng.randbytes(size))
        else:
            text = " ".join(rng.choice(words) for _ in range(size // 4)).encode()
            f.write((text * (size // len(text) + 1))[:size])
PY

# Runs the command (a /bin/sh -c string) as an episode with the backend
# and prints "read_bytes write_bytes read_calls write_calls".
under_iopsample() { # backend command
	rm -rf "$OUT" && mkdir -p "$OUT"
	local name=agree-$1-$RANDOM cmd
	cmd=$("$PY" -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$2") # JSON is YAML
	cat >"$WORK/$name.yaml" <<EOY
episode: {name: $name}
target: {command: $cmd, stdout: "null"}
sources: {syscall_io: {backend: $1, interval: 50ms, syscalls: [$SYSCALLS]}}
EOY
	"$IOPSAMPLE" run "$WORK/$name.yaml" --quiet || { echo "iopsample $1: exit $?" >&2; return 1; }
	episode_py "$WORK/episodes/$name" <<'PY'
s = ep.manifest["sources"]["syscall_io"]
assert s["status"] == "ok", s
print(" ".join(str(ep.total("syscall_io", f)) for f in ("read_bytes", "write_bytes", "read_calls", "write_calls")))
PY
}

# The same from strace's log: successful calls of the same syscalls, by
# direction (a call cut short shows as "<unfinished ...>" and returns in its
# "<... resumed>" line).
under_strace() { # command
	rm -rf "$OUT" && mkdir -p "$OUT"
	strace -f -qq -s 0 -e trace=$SYSCALLS -o "$WORK/strace.log" /bin/sh -c "$1" >/dev/null ||
		{ echo "strace: exit $?" >&2; return 1; }
	"$PY" - "$WORK/strace.log" <<'PY'
import re, sys
done = re.compile(r"^\d+\s+(?:<\.\.\. )?(\w+)(?:\(| resumed>).*\)\s+= (\d+)$")
reads = {"read", "pread64", "readv", "preadv", "preadv2"}
tot = {"read": [0, 0], "write": [0, 0]}
for line in open(sys.argv[1]):
    m = done.match(line.rstrip("\n"))
    if m:
        t = tot["read" if m[1] in reads else "write"]
        t[0] += int(m[2])
        t[1] += 1
print(tot["read"][0], tot["write"][0], tot["read"][1], tot["write"][1])
PY
}

agree() { # command
	local e p s
	e=$(under_iopsample ebpf "$1") && p=$(under_iopsample ptrace "$1") && s=$(under_strace "$1") || return 1
	echo "bytes read, written, calls read, written: ebpf $e; ptrace $p; strace $s"
	[ "${e% * *}" = "${p% * *}" ] && [ "${p% * *}" = "${s% * *}" ] || { echo "byte totals differ"; return 1; }
	[ "${e% * *}" != "0 0" ] || { echo "nothing counted"; return 1; }
}

check tar_agrees agree "tar -cf $OUT/a.tar -C $DATA . && tar -tvf $OUT/a.tar"
check threaded_zstd_agrees agree "cat $DATA/* $DATA/* $DATA/* >$OUT/big && zstd -q -T2 -3 -f $OUT/big -o $OUT/big.zst"
check shell_pipeline_agrees agree "cat $DATA/* | gzip -c | wc -c >$OUT/n; sort -r $DATA/f0 | uniq -c | tail -n 3"
check python_reading_files_agrees agree "/usr/bin/python3 -I -B -c 'import hashlib, sys; [print(hashlib.sha256(open(f, \"rb\").read()).hexdigest()) for f in sys.argv[1:]]' $DATA/*"
