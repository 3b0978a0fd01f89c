# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The command line: usage errors exit 64, config errors 78 with one
# positioned line and nothing created, check prints the resolved config.
. "$(dirname "$0")/lib/common.sh"

# expect_exit CODE PATTERN COMMAND...: the exit status and one stderr line
# matching PATTERN (grep -E)
expect_exit() {
	local code=$1 pattern=$2 out c
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	c=$?
	[ $c -eq "$code" ] || { echo "$*: exit $c, expected $code: $out"; return 1; }
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -qE "$pattern" <<<"$out" ||
		{ echo "$*: stderr \"$out\", expected /$pattern/"; return 1; }
}

usage_errors() {
	printf 'episode: {name: u}\ntarget: {command: [true]}\n' >"$WORK/u.yaml"
	expect_exit 64 '^iopsample: usage: iopsample run EPISODE.yaml' "$IOPSAMPLE" run || return
	expect_exit 64 '^iopsample: usage: iopsample run' "$IOPSAMPLE" run "$WORK/u.yaml" "$WORK/u.yaml" || return
	expect_exit 64 '^iopsample: unknown command "frobnicate"' "$IOPSAMPLE" frobnicate || return
	expect_exit 64 '^iopsample: run: unknown option --bogus$' "$IOPSAMPLE" run "$WORK/u.yaml" --bogus || return
	expect_exit 64 '^iopsample: --set x: expected KEY=VALUE$' "$IOPSAMPLE" run "$WORK/u.yaml" --set x || return
	expect_exit 64 '^iopsample: --name needs a value$' "$IOPSAMPLE" run "$WORK/u.yaml" --name || return
	[ ! -e "$WORK/episodes" ] || { echo "a usage error created episodes/"; return 1; }
	"$IOPSAMPLE" 2>/dev/null
	[ $? -eq 64 ] || { echo "no arguments: not 64"; return 1; }
	# git describe in a checkout, VERSION elsewhere (tools/version)
	local v
	v=$("$TESTS/../tools/version")
	[ "$("$IOPSAMPLE" --version)" = "iopsample $v" ] || { echo "--version: $("$IOPSAMPLE" --version), tools/version: $v"; return 1; }
	case $v in "$(cat "$TESTS/../VERSION")"*) ;; *) echo "version $v does not start with VERSION's"; return 1 ;; esac
	"$IOPSAMPLE" --help | grep -q '^  iopsample run EPISODE.yaml' || { echo "--help"; return 1; }
}

config_errors() {
	printf 'episode:\n  name: bad\n  duration: 10\ntarget: {command: [true]}\n' >"$WORK/bad.yaml"
	expect_exit 78 "^iopsample: $WORK/bad.yaml:3:13: invalid duration \"10\": missing unit" \
		"$IOPSAMPLE" run "$WORK/bad.yaml" || return
	expect_exit 78 "^iopsample: $WORK/bad.yaml:3:13: invalid duration" "$IOPSAMPLE" check "$WORK/bad.yaml" || return
	expect_exit 78 "^iopsample: $WORK/missing.yaml: No such file or directory$" "$IOPSAMPLE" run "$WORK/missing.yaml" || return
	expect_exit 78 "^iopsample: --set episode.grace=x: invalid duration" \
		"$IOPSAMPLE" run "$WORK/bad.yaml" --set episode.duration=1s --set episode.grace=x || return
	head -c 4096 /dev/urandom >"$WORK/garbage.yaml"
	expect_exit 78 "^iopsample: $WORK/garbage.yaml:[0-9]+:[0-9]+: " "$IOPSAMPLE" run "$WORK/garbage.yaml" || return
	[ ! -e "$WORK/episodes" ] || { echo "a bad config created episodes/"; return 1; }
}

check_prints_resolved() {
	printf 'episode: {name: c}\ntarget: {command: [./bench, --size, 4k]}\nsources: {proc_io: }\n' >"$WORK/c.yaml"
	"$IOPSAMPLE" check "$WORK/c.yaml" --set episode.duration=90s >"$WORK/c.json" || return
	[ ! -e "$WORK/episodes" ] || { echo "check created episodes/"; return 1; }
	"$PY" - "$WORK" <<'PY' || return 1
import json, sys
from epi import expect
work = sys.argv[1]
c = json.load(open(work + "/c.json"))
expect(c["episode"] == {"name": "c", "output_dir": work + "/episodes", "duration": "90s",
                        "stop_signal": "SIGTERM", "grace": "5s", "labels": {}, "cgroup": "auto"}, "episode %s" % c["episode"])
expect(c["target"]["command"] == ["./bench", "--size", "4k"] and c["target"]["cwd"] == work, "target")
expect(c["sources"] == {"proc_io": {"interval": "100ms", "available_in_deployment": True, "required": True, "backend": "auto"}}, "sources")
expect(c["output"] == {"compression": "none", "zstd_level": 3}, "output")
PY
	# the resolved config is itself a config that resolves the same
	cp "$WORK/c.json" "$WORK/again.yaml"
	"$IOPSAMPLE" check "$WORK/again.yaml" | cmp -s - "$WORK/c.json" || { echo "resolved config does not load back the same"; return 1; }
}

# `run -` and `check -`: the config from standard input, its relative
# paths resolved against the current directory, its errors placed in
# "<stdin>"; episode.yaml is the text as given.
config_on_stdin() {
	local text='episode: {name: piped, output_dir: out}
target: {command: [sh, -c, "pwd > where"]}
sources: {proc_io: {interval: 10ms}}'
	(cd "$WORK" && "$IOPSAMPLE" check - <<<"$text") >"$WORK/piped.json" || return
	grep -q "\"output_dir\": \"$WORK/out\"" "$WORK/piped.json" || { echo "check -: $(cat "$WORK/piped.json")"; return 1; }
	(cd "$WORK" && "$IOPSAMPLE" run - --quiet <<<"$text") || { echo "run - failed"; return 1; }
	[ "$(cat "$WORK/where")" = "$WORK" ] || { echo "the target ran in $(cat "$WORK/where")"; return 1; }
	printf '%s\n' "$text" | cmp -s - "$WORK/out/piped/episode.yaml" || { echo "episode.yaml is not the text given"; return 1; }
	expect_exit 78 '^iopsample: <stdin>:3:21: unknown key "intervl" in sources.proc_io$' \
		"$IOPSAMPLE" run - <<<"${text/interval/intervl}" || return
	head -c 1100000 /dev/zero | tr '\0' '#' >"$WORK/big"
	expect_exit 78 '^iopsample: <stdin>: larger than 1048576 bytes; not an episode config$' \
		"$IOPSAMPLE" check - <"$WORK/big" || return
}

check usage_errors_exit_64 usage_errors
check config_on_stdin_resolves_against_the_current_directory config_on_stdin
check config_errors_exit_78_with_position config_errors
check check_prints_the_resolved_config check_prints_resolved

# The guide's config walk-through (docs/guide.md) is a config iopsample accepts.
readme_config() {
	awk '/^## The config/ { on = 1; next } on && /^```yaml/ { yaml = 1; next } yaml && /^```/ { exit } yaml' \
		"$TESTS/../docs/guide.md" >"$WORK/readme.yaml"
	[ -s "$WORK/readme.yaml" ] || { echo "no yaml block under ## The config"; return 1; }
	"$IOPSAMPLE" check "$WORK/readme.yaml" >"$WORK/readme.json" || return
	"$PY" - "$WORK/readme.json" <<'PY'
import json, sys
from epi import expect
c = json.load(open(sys.argv[1]))
expect(c["episode"]["duration"] == "1m" and c["target"]["env"] == {"OMP_NUM_THREADS": "1"}, "resolved %s" % c)
expect(c["sources"]["proc_io"]["interval"] == "100ms", "sources")
PY
}

check readme_config_is_valid readme_config
