# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The Python package's pytest suite (python/tests) under Debian's python3,
# against this build: episodes as data, run(), profile() under both
# backends, the magics, and docs/notebooks/quickstart.ipynb executed
# headless in a Jupyter kernel. Each test becomes a PASS, FAIL or SKIP line.
. "$(dirname "$0")/lib/common.sh"

ROOT=$(cd "$TESTS/.." && pwd)
# the kernel's debugger, loaded by ipykernel, warns on stderr about frozen
# modules; nothing is written into the tree (no bytecode, no pytest cache)
export PYDEVD_DISABLE_FILE_VALIDATION=1 MPLCONFIGDIR=$WORK/mpl HOME=$WORK PYTHONDONTWRITEBYTECODE=1
(cd "$ROOT/python/tests" && "$PY" -m pytest -q -rA -p no:cacheprovider --basetemp="$WORK/pytest" .) \
	>"$WORK/pytest.out" 2>&1
rc=$?
# pytest -rA's summary: "PASSED file::test", "FAILED file::test - why",
# "ERROR file::test - why", "SKIPPED [n] file:line: why" (a captured log's
# "ERROR    logger:file:line message" is none of them)
sed -n -e 's/^PASSED \(.*\)/PASS \1/p' -e 's/^\(FAILED\|ERROR\) \([^ ]*::[^ ]*\)\( - \)\{0,1\}\(.*\)/FAIL \2: \4/p' \
	-e 's/^SKIPPED \[[0-9]*\] \([^:]*:[0-9]*\): \(.*\)/SKIP \1: \2/p' "$WORK/pytest.out"
if [ $rc -ne 0 ]; then
	# what failed, for the log
	grep -vE '^(PASSED|SKIPPED) ' "$WORK/pytest.out" | tail -40
	grep -qE '^(FAILED|ERROR) [^ ]*::' "$WORK/pytest.out" || echo "FAIL pytest: exit $rc"
fi
