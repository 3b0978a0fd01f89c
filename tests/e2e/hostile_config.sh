# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Hostile configs: each exits 78 with one line naming the file, line and
# column at fault, never crashes, and never creates anything. The cases are
# tests/fixtures/configs/bad/*.yaml (first line: "# expect: L:C: words"),
# generated ones too big or too random to keep as files, and a wrong type
# for every key of a config that uses them all.
. "$(dirname "$0")/lib/common.sh"

FIX=$TESTS/fixtures/configs
OUT=$WORK/out

# refused FILE LINE:COL WORDS: `run` exits 78 with that one line and creates nothing
refused() {
	local f=$1 want="iopsample: $1:$2: $3" err c
	err=$("$IOPSAMPLE" run "$f" --output-dir "$OUT" --quiet 2>&1 >/dev/null)
	c=$?
	[ $c -eq 78 ] || { echo "$f: exit $c: $err"; return 1; }
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "$f: not one line: $err"; return 1; }
	[[ "$err" == "$want"* ]] || { echo "$f: said \"${err:0:200}\", wanted \"$want...\""; return 1; }
	[ ! -e "$OUT" ] || { echo "$f: created $(find "$OUT" | head -3)"; return 1; }
}

fixtures() {
	local f exp n=0
	cd "$FIX/bad" || return 1
	for f in *.yaml; do
		exp=$(head -n 1 "$f" | sed -n 's/^# expect: //p')
		[ -n "$exp" ] || { echo "$f: no expect line"; return 1; }
		refused "$f" "${exp%%: *}" "${exp#*: }" || return 1
		n=$((n + 1))
	done
	echo "$n fixture configs refused at the expected line and column"
}

generated() {
	cd "$WORK" || return 1
	"$PY" - <<'PY' || return 1
import random
def w(name, text):
    open(name + ".yaml", "wb").write(text if isinstance(text, bytes) else text.encode())
rnd = random.Random(6)
w("garbage", b"\xfe" + bytes(rnd.randrange(256) for _ in range(4096)))
w("deep-lists", "episode: " + "[" * 100000 + "]" * 100000 + "\n")
w("deep-maps", "episode: " + "{a: " * 20000 + "1" + "}" * 20000 + "\n")
w("deep-block", "episode:\n" + "".join(" " * i + "a:\n" for i in range(1, 1000)))
laughs = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
laughs += ["l%d: &l%d [%s]" % (i, i, ", ".join(["*l%d" % (i - 1)] * 9)) for i in range(1, 12)]
w("billion-laughs", "\n".join(laughs) + "\nepisode: {name: x, labels: *l11}\n")
w("laughs-in-labels", "episode: {name: x, labels: {a: &a [x, x], b: [*a, *a]}}\n")
w("huge-name", "episode: {name: " + "n" * 900000 + "}\n")
w("huge-label", "episode: {name: x, labels: {k: \"" + "v" * 900000 + "\"}}\ntarget: {command: [true]}\n")
w("huge-key", "episode: {name: x, labels: {" + "k" * 200 + ": v}}\ntarget: {command: [true]}\n")
w("huge-int", "episode: {name: x}\ntarget: {pid: " + "9" * 100000 + "}\n")
w("huge-duration", "episode: {name: x, duration: " + "9" * 100000 + "s}\ntarget: {command: [true]}\n")
w("many-keys", "episode: {name: x, " + ", ".join("k%d: 1" % i for i in range(50000)) + "}\n")
w("many-dup-keys", "episode: {name: x}\ntarget: {command: [true], " + ", ".join("cwd: ." for i in range(50000)) + "}\n")
w("too-big", "# " + "x" * (1 << 20) + "\n")
PY
	refused garbage.yaml 1:1 "invalid leading UTF-8 octet" &&
		refused deep-lists.yaml 1:73 "lists and mappings nested deeper than 64 levels" &&
		refused deep-maps.yaml 1:262 "lists and mappings nested deeper than 64 levels" &&
		refused deep-block.yaml 65:65 "lists and mappings nested deeper than 64 levels" &&
		refused billion-laughs.yaml 1:1 'unknown key "l0"' &&
		refused laughs-in-labels.yaml 1:32 "episode.labels.a must be a string" &&
		refused huge-name.yaml 1:17 'invalid episode name "nnnn' &&
		refused huge-label.yaml 1:32 "episode.labels.k is longer than 1024 bytes" &&
		refused huge-key.yaml 1:29 "a key in episode.labels is longer than 128 bytes" &&
		refused huge-int.yaml 2:15 "9999" &&
		refused huge-duration.yaml 1:30 'invalid duration "9999' &&
		refused many-keys.yaml 1:20 'unknown key "k0" in episode' &&
		refused many-dup-keys.yaml 2:35 'duplicate key "cwd" in target' || return 1
	# no position applies to a file refused for its size
	local err
	err=$("$IOPSAMPLE" run too-big.yaml --output-dir "$OUT" 2>&1)
	[ $? -eq 78 ] && [ "$err" = "iopsample: too-big.yaml: larger than 1048576 bytes; not an episode config" ] ||
		{ echo "too-big: $err"; return 1; }
}

# Every key of every-key.yaml in turn gets a value of each wrong kind; the
# error must point at that value.
wrong_types() {
	cd "$WORK" || return 1
	"$PY" - "$FIX/good/every-key.yaml" <<'PY' >cases || return 1
import re, sys
lines = open(sys.argv[1]).read().splitlines()
wrong = {"scalar": ["[1, 2]", "{a: 1}", "null"], "flow-list": ["x", "{a: 1}", "null", "[[1]]"]}
# what a key does accept: strings take any scalar, duration null is "none",
# stdout and stderr null is null (discard), a signal may be a number, a
# command a shell string, zstd levels go negative, devices null is every device,
# interfaces null every one up
any_scalar = ("\"12\"", "yes", "-3")
fine = {k: any_scalar for k in ("name", "output_dir", "cwd", "dataset", "run", "OMP_NUM_THREADS")}
fine.update(duration=("null",), stdout=("null",), stderr=("null",), stop_signal=("\"12\"",), command=("x",), devices=("null",),
            interfaces=("null",), zstd_level=("-3",))
n = 0
for i, line in enumerate(lines):
    m = re.match(r"^( *)([a-z_]+): (.+)$", line)
    if not m or m.group(1) == "":
        continue
    value = m.group(3)
    kind = "flow-list" if value.startswith("[") else "scalar"
    for bad in wrong[kind] + (["\"12\"", "yes", "-3"] if kind == "scalar" else []):
        if bad in fine.get(m.group(2), ()):
            continue
        out = lines[:i] + [m.group(1) + m.group(2) + ": " + bad] + lines[i + 1:]
        name = "wrong-%d.yaml" % n
        open(name, "w").write("\n".join(out) + "\n")
        col = len(m.group(1)) + len(m.group(2)) + 3
        print(name, "%d:%d" % (i + 1, col + (bad == "[[1]]")))  # there, the item at fault
        n += 1
PY
	local f pos n=0
	while read -r f pos; do
		refused "$f" "$pos" "" || return 1
		n=$((n + 1))
	done <cases
	[ $n -ge 100 ] || { echo "only $n cases"; return 1; }
	echo "$n wrong-typed values refused at their own line and column"
	# and the file itself is fine
	"$IOPSAMPLE" check "$FIX/good/every-key.yaml" >/dev/null || { echo "every-key.yaml refused"; return 1; }
}

# The deepest config a file may hold (a config nests 4 deep), 64, loads;
# a megabyte of '[' is refused at the 65th level, with little CPU time:
# loading it whole would take libyaml minutes (quadratic in the depth).
# The refusal's CPU time is iopsample's own (wait4's rusage), not the
# wall clock, which a busy host stretches.
depth_bound() {
	cd "$WORK" || return 1
	"$PY" - "$IOPSAMPLE" "$OUT" <<'PY'
import os, subprocess, sys
from epi import expect
iopsample, out = sys.argv[1:3]
head = "episode: {name: deep, labels: "
deepest = head + "{a: " * 62 + "b" + "}" * 62 + "}\ntarget: {command: [true]}\n"
open("deepest.yaml", "w").write(deepest)
c = subprocess.run([iopsample, "check", "deepest.yaml"], capture_output=True, text=True)
# 64 levels parse: what stops the file is its meaning (a label's value)
expect(c.returncode == 78 and "nested deeper" not in c.stderr and "episode.labels.a must be a string" in c.stderr,
       "64 levels: exit %d: %s" % (c.returncode, c.stderr))
open("megabyte.yaml", "w").write("episode: " + "[" * ((1 << 20) - len("episode: ")))
expect(os.path.getsize("megabyte.yaml") == 1 << 20, "not a megabyte")
p = subprocess.Popen([iopsample, "run", "megabyte.yaml", "--output-dir", out, "--quiet"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = p.stderr.read().decode()
_, status, ru = os.wait4(p.pid, 0)
cpu = ru.ru_utime + ru.ru_stime
expect(os.waitstatus_to_exitcode(status) == 78, "exit status %d: %s" % (os.waitstatus_to_exitcode(status), err))
expect(err == "iopsample: megabyte.yaml:1:73: lists and mappings nested deeper than 64 levels\n", "said: " + err[:200])
expect(not os.path.exists(out), "created " + out)
expect(cpu < 2.0, "refusing a megabyte of brackets took %.2f s of CPU" % cpu)
print("64 levels load; a megabyte of '[' refused at 1:73 in %.3f s of CPU (user %.3f, system %.3f)" %
      (cpu, ru.ru_utime, ru.ru_stime))
PY
}

check fixture_configs_exit_78_at_their_line_and_column fixtures
check nesting_beyond_64_refused_before_loading depth_bound
check generated_hostile_configs_exit_78 generated
check a_wrong_type_for_every_key_exits_78_at_the_value wrong_types
