# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The tree as it is shipped (the files git tracks; in an unpacked tarball,
# every file but build/): each source file states its licence, no build
# output is tracked, and no test kills a process it did not start.
. "$(dirname "$0")/lib/common.sh"

ROOT=$(cd "$TESTS/.." && pwd)

shipped() {
	if [ -e "$ROOT/.git" ]; then
		git -C "$ROOT" ls-files
	else
		(cd "$ROOT" && find . -path ./build -prune -o -type f -print | sed 's|^\./||')
	fi
}

# README's "Licence": every file of code, build and documentation source
# that takes a comment has the SPDX line in its first three lines; exempt
# are formats with no comments (JSON, notebooks, images), prose (*.md),
# Debian's metadata (debian/copyright covers it) and test fixtures' data,
# whose bytes are the test (a fixture's C source, such as the fake NVML,
# is code: it states its licence).
spdx() {
	shipped >"$WORK/files" || return 1
	(cd "$ROOT" && "$PY" - "$WORK/files") <<'PY'
import re, sys
want = "SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause"
exempt = re.compile(r"^(tests/fixtures/(?!.*\.[ch]$)|debian/(changelog|control|copyright|source/|.*\.install$))"
                    r"|\.(md|json|ipynb|png)$|^(VERSION|LICENSE)$|^\.gitignore$")
files = [f for f in open(sys.argv[1]).read().split("\n") if f and not exempt.search(f)]
missing = []
for f in files:
    with open(f, "rb") as fh:
        head = fh.read(4096).split(b"\n")[:3]
    if not any(want.encode() in line for line in head):
        missing.append(f)
if missing:
    raise SystemExit("no \"%s\" in the first lines of %d files: %s" % (want, len(missing), " ".join(missing[:8])))
print("%d files state the licence" % len(files))
PY
}

# Build output is never tracked: no file under a __pycache__ (nor *.pyc)
no_pycache() {
	[ -e "$ROOT/.git" ] || { echo "not a git checkout"; return 0; }
	local tracked
	tracked=$(git -C "$ROOT" ls-files | grep -E '(^|/)__pycache__/|\.py[co]$')
	[ -z "$tracked" ] || { echo "git tracks build output: $(echo $tracked | head -c 300)"; return 1; }
	echo "$(git -C "$ROOT" ls-files | wc -l) tracked files, none under __pycache__"
}

# A test kills only what it started: every pkill and killall under tests/
# names the test's own tag ($TAG) or folder ($WORK, unique to the run), or
# restricts itself to the children of a pid the test recorded (-P $pid).
own_kills() {
	local bad
	bad=$(cd "$ROOT" && grep -rnE '(^|[^[:alnum:]_-])(pkill|killall)([[:space:]]|$)' tests/ |
		grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' | grep -vE '\$TAG|\$WORK|-P \$[a-z_]+' | grep -v '^tests/e2e/tree.sh:')
	[ -z "$bad" ] || { echo "kills what the test did not start: $bad"; return 1; }
	echo "$(cd "$ROOT" && grep -rnE '(pkill|killall)[[:space:]]' tests/ | grep -vc '^tests/e2e/tree.sh:') pkill lines, each its own"
}

check every_source_file_states_its_licence spdx
check no_build_output_is_tracked no_pycache
check tests_kill_only_what_they_started own_kills
