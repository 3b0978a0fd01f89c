# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# run's progress line: on a terminal (script(1) gives one), redrawn in place
# at most 4 times a second with the elapsed time, the target's state and the
# rows per source; nothing of it when stderr is a file or with --quiet.
. "$(dirname "$0")/lib/common.sh"

cat >"$WORK/p.yaml" <<EOY
episode: {name: p, output_dir: $WORK/episodes, duration: 1500ms}
target: {command: [$IOWORK, --rounds, "1", --sleep-ms, "60000", --tag, $TAG]}
sources: {proc_io: {interval: 10ms}}
EOY

# on_tty NAME ARGS...: run under a pseudo-terminal, what it drew in $WORK/NAME.tty
on_tty() {
	local name=$1
	shift
	rm -rf "$WORK/episodes"
	script -qfec "$(printf '%q ' "$IOPSAMPLE" run "$WORK/p.yaml" "$@")" /dev/null >"$WORK/$name.tty"
}

on_a_terminal() {
	local t0=$SECONDS
	on_tty tty || { echo "run: exit $?"; return 1; }
	"$PY" - "$WORK/tty.tty" "$WORK/episodes/p" $((SECONDS - t0)) <<'PY'
import json, re, sys
from epi import expect
out, ep_dir, took = open(sys.argv[1], newline="").read(), sys.argv[2], int(sys.argv[3])
frames = re.findall(r"\r\x1b\[K([^\r\n]+?)(?=\r)", out)
drawn = [f for f in frames if not f.startswith("iopsample: ")]
expect(len(drawn) >= 4, "frames %s in %r" % (drawn, out[:300]))
expect(len(drawn) <= 4 * max(took, 2) + 2, "%d frames in %d s" % (len(drawn), took))
parsed = [re.fullmatch(r"([\d.]+)s / 1\.5s, target (running|stopping|ended); proc_io (\d+) rows(?:, \d+ missed)?", f) for f in drawn]
expect(all(parsed), "a frame I cannot read: %s" % [f for f, p in zip(drawn, parsed) if not p][:2])
t = [float(p.group(1)) for p in parsed]
rows = [int(p.group(3)) for p in parsed]
expect(t == sorted(t) and rows == sorted(rows) and rows[-1] > 0, "time %s, rows %s" % (t, rows))
gaps = [b - a for a, b in zip(t, t[1:])]
expect(min(gaps) > 0.149, "redrawn more than 4 times a second: %s" % gaps)  # 0.25 s, shown to 0.1 s
final = json.load(open(ep_dir + "/manifest.json"))["sources"]["proc_io"]["rows"]
expect(rows[-1] <= final, "the line said %d rows, the episode has %d" % (rows[-1], final))
last = out.rstrip().splitlines()[-1]
expect(re.search(r"\x1b\[Kiopsample: .*complete after .*stopped at its duration", last), "the closing line: %r" % last[-200:])
print("%d frames over %d s, rows %d ... %d of %d" % (len(drawn), took, rows[0], rows[-1], final))
PY
}

not_on_a_file_or_quiet() {
	rm -rf "$WORK/episodes"
	"$IOPSAMPLE" run "$WORK/p.yaml" 2>"$WORK/file.err" || { echo "run: exit $?"; return 1; }
	grep -q $'\r' "$WORK/file.err" && { echo "a status line in a file: $(cat -v "$WORK/file.err")"; return 1; }
	[ "$(wc -l <"$WORK/file.err")" -eq 1 ] || { echo "stderr: $(cat "$WORK/file.err")"; return 1; }
	on_tty quiet --quiet || { echo "run --quiet: exit $?"; return 1; }
	[ ! -s "$WORK/quiet.tty" ] || { echo "--quiet drew: $(cat -v "$WORK/quiet.tty")"; return 1; }
	echo "a file gets the closing line only; --quiet on a terminal nothing"
}

check progress_line_on_a_terminal on_a_terminal
check no_progress_line_in_a_file_or_quiet not_on_a_file_or_quiet
