# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installed as users install C tools (issue 38): `make install` into a
# DESTDIR and `make uninstall` out of it, the man pages, the bash
# completion, and a recipe that finds no iopsample. The Python package
# (issue 41): where Debian's python3 finds it, pip-installed offline into a
# fresh venv (the Debian packages, `make deb`, are deb.sh's, in the long
# tier: the package builds the whole tree again).
. "$(dirname "$0")/lib/common.sh"

ROOT=$(cd "$TESTS/.." && pwd)
DEST=$WORK/root

# make in the tree, installing the binary under test as it is: never
# rebuilt here (-o), where the tests beside this one run it
make_installs() { make -s -C "$ROOT" -o "$BUILD/iopsample" "$@"; }

# The tree make install writes under PREFIX=/usr, every file a user needs
# and nothing else: an untracked file and a folder put into config/examples
# are not installed and do not break the install; the installed binary
# runs; make uninstall leaves no file behind.
installed_tree() (
	local stray=$ROOT/config/examples/stray-$TAG.yaml strayd=$ROOT/config/examples/stray-$TAG.d
	trap 'rm -rf "$stray" "$strayd"' EXIT
	echo "# not ours" >"$stray" && mkdir "$strayd" && echo "# nor this" >"$strayd/inside.yaml" || exit 1
	make_installs install BUILD="$BUILD" DESTDIR="$DEST" PREFIX=/usr >"$WORK/install.log" 2>&1 ||
		{ echo "make install: $(tail -2 "$WORK/install.log")"; exit 1; }
	local strays
	strays=$(find "$DEST" -name "stray-$TAG*")
	[ -z "$strays" ] || { echo "installed what git does not track: $strays"; exit 1; }
	# every file installed but the binary and the Python package's dist-info
	# (made by setuptools' backend) is, byte for byte, a file git tracks
	local copies
	copies=$(cd "$DEST/usr" && find . -type f ! -path ./bin/iopsample ! -path "*.dist-info/*" -exec sha256sum {} + | "$PY" -c '
import hashlib, subprocess, sys
root = sys.argv[1]
tracked = set()
for f in subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0"):
    if f:
        tracked.add(hashlib.sha256(open(root + "/" + f, "rb").read()).hexdigest())
lines = sys.stdin.read().splitlines()
stray = [l.split()[1] for l in lines if l.split()[0] not in tracked]
if stray:
    raise SystemExit("installed, but no file git tracks: %s" % stray[:5])
print(len(lines))' "$ROOT") || { echo "$copies"; exit 1; }
	local f missing=
	for f in bin/iopsample share/man/man1/iopsample.1 share/man/man5/iopsample-episode.5 \
		share/bash-completion/completions/iopsample share/doc/iopsample/README.md share/doc/iopsample/guide.md \
		share/doc/iopsample/data-model.md share/doc/iopsample/recipes/dask_export.py \
		share/iopsample/examples/quickstart.yaml; do
		[ -s "$DEST/usr/$f" ] || missing="$missing $f"
	done
	[ -z "$missing" ] || { echo "not installed:$missing"; exit 1; }
	# every module of the package, imported by Debian's python3 from there
	local pkg=$DEST/usr/lib/python3/dist-packages/iopsample
	[ "$(cd "$pkg" 2>/dev/null && ls *.py)" = "$(cd "$ROOT/python/iopsample" && ls *.py)" ] ||
		{ echo "python modules installed: $(ls "$pkg" 2>&1 | tr '\n' ' ')"; exit 1; }
	(cd / && PYTHONPATH=$DEST/usr/lib/python3/dist-packages /usr/bin/python3 -c \
		'import iopsample, iopsample.magic, sys; assert iopsample.__file__.startswith(sys.argv[1]), iopsample.__file__' "$pkg") ||
		{ echo "the installed package does not import"; exit 1; }
	# its dist-info: importlib.metadata (and so pip) knows it, at its version,
	# and RECORD names every file it installed
	(cd / && PYTHONPATH=$DEST/usr/lib/python3/dist-packages /usr/bin/python3 - "$DEST/usr/lib/python3/dist-packages" <<'PY') ||
import importlib.metadata as md, os, sys, iopsample
d = md.distribution("iopsample")
assert d.version == iopsample.__version__, (d.version, iopsample.__version__)
assert d.metadata["Requires-Python"] == ">=3.9", d.metadata["Requires-Python"]
files = {str(f) for f in d.files}
on_disk = {os.path.relpath(os.path.join(r, f), sys.argv[1]) for r, _, fs in os.walk(sys.argv[1]) for f in fs
           if "__pycache__" not in r}
assert files == on_disk, files ^ on_disk
PY
		{ echo "the installed package's dist-info"; exit 1; }
	local schemas
	schemas=$(ls "$DEST/usr/share/iopsample/schema" | wc -l)
	[ "$schemas" = "$(ls "$ROOT"/schema/*.json | wc -l)" ] || { echo "$schemas schemas installed"; exit 1; }
	[ -x "$DEST/usr/bin/iopsample" ] && "$DEST/usr/bin/iopsample" --version | grep -q '^iopsample ' ||
		{ echo "the installed binary does not run"; exit 1; }
	echo "$(find "$DEST" -type f | wc -l) files, $schemas schemas: $("$DEST/usr/bin/iopsample" --version)"
	# uninstall removes what install wrote (and the bytecode Python wrote
	# beside it), not a file a user put beside them
	/usr/bin/python3 -m compileall -q "$pkg" && [ -n "$(ls "$pkg/__pycache__")" ] || { echo "no bytecode written"; exit 1; }
	echo "# mine" >"$DEST/usr/share/iopsample/examples/mine.yaml"
	make_installs uninstall BUILD="$BUILD" DESTDIR="$DEST" PREFIX=/usr >>"$WORK/install.log" 2>&1 ||
		{ echo "make uninstall: $(tail -2 "$WORK/install.log")"; exit 1; }
	local left
	left=$(find "$DEST" -type f)
	[ "$left" = "$DEST/usr/share/iopsample/examples/mine.yaml" ] || { echo "left by uninstall: $left"; exit 1; }
	rm "$left"
	make_installs uninstall BUILD="$BUILD" DESTDIR="$DEST" PREFIX=/usr >>"$WORK/install.log" 2>&1 ||
		{ echo "make uninstall again: $(tail -2 "$WORK/install.log")"; exit 1; }
	[ ! -e "$DEST/usr/share/iopsample" ] && [ ! -e "$DEST/usr/share/doc/iopsample" ] && [ ! -e "$pkg" ] ||
		{ echo "uninstall left iopsample's folders"; exit 1; }
	echo "uninstall: none of the $copies files left, nor their folders; a file of the user's kept"
)

# man --warnings says nothing of either page; every command --help lists
# is in iopsample(1), and every config key of the parser in the page of
# the config.
man_pages() {
	command -v man >/dev/null || { echo "no man"; return 1; }
	local p w
	for p in "$ROOT/man/iopsample.1" "$ROOT/man/iopsample-episode.5"; do
		w=$(man --warnings -l "$p" 2>&1 >/dev/null)
		[ -z "$w" ] || { echo "$(basename "$p"): $w"; return 1; }
	done
	local cmds c
	cmds=$("$IOPSAMPLE" --help | sed -n 's/^  iopsample \([a-z]*\) .*/\1/p')
	for c in $cmds; do
		grep -q "^\.B iopsample $c\$\|^\.B iopsample $c " "$ROOT/man/iopsample.1" && grep -q "^\.B $c\$" "$ROOT/man/iopsample.1" ||
			{ echo "iopsample(1) lacks the command $c"; return 1; }
	done
	local keys k
	keys=$(grep -ho 'strcmp(key, "[a-z_]*")' "$ROOT"/engine/config*.c "$ROOT"/collectors/*/*.c | sed 's/.*"\(.*\)".*/\1/' | sort -u)
	for k in $keys; do
		grep -E '^\.(B|BR|SH) ' "$ROOT/man/iopsample-episode.5" | tr -d '"' | grep -qiw -- "$k" ||
			{ echo "iopsample-episode(5) lacks the key $k"; return 1; }
	done
	echo "no warning; $(echo $cmds | wc -w) commands in iopsample(1), $(echo $keys | wc -w) keys in iopsample-episode(5)"
}

# Sourced, the completion completes iopsample: its commands, then a
# command's options and the source names of --sources.
completion() {
	bash -c '. "$1"
	complete -p iopsample >/dev/null || exit 1
	COMP_WORDS=(iopsample co); COMP_CWORD=1; _iopsample; echo "${COMPREPLY[*]}"
	COMP_WORDS=(iopsample export --sources proc_io,sys); COMP_CWORD=3; _iopsample; echo "${COMPREPLY[*]}"
	COMP_WORDS=(iopsample compare --by); COMP_CWORD=2; _iopsample; echo "${COMPREPLY[*]}"' _ "$ROOT/completion/iopsample.bash" >"$WORK/comp.out" ||
		{ echo "no completion for iopsample"; return 1; }
	[ "$(cat "$WORK/comp.out")" = "$(printf 'compare\nproc_io,syscall_io\n--by-episode')" ] ||
		{ echo "completed: $(tr '\n' '|' <"$WORK/comp.out")"; return 1; }
	tr '\n' '|' <"$WORK/comp.out"
}

# The Dask recipe, and a bench script, with no iopsample anywhere
# ($IOPSAMPLE unset, none on PATH, none beside it): one line naming where
# it looked, exit 69, no traceback.
recipe_without_iopsample() {
	cp "$ROOT/docs/recipes/dask_export.py" "$WORK/recipe.py"
	env -i PATH=/usr/bin:/bin HOME="$WORK" /usr/bin/python3 "$WORK/recipe.py" "$WORK" --grid 10ms \
		-o "$WORK/x.csv" >"$WORK/recipe.out" 2>"$WORK/recipe.err"
	local rc=$?
	echo "exit $rc: $(cat "$WORK/recipe.err")"
	[ $rc = 69 ] && [ "$(wc -l <"$WORK/recipe.err")" = 1 ] && ! grep -q Traceback "$WORK/recipe.err" &&
		grep -q 'no iopsample' "$WORK/recipe.err" && [ ! -e "$WORK/x.csv" ] || return 1
	# a bench script likewise (bench/found.py), with and without BUILD_DIR
	mkdir -p "$WORK/bench" && cp "$ROOT/bench/compare.py" "$ROOT/bench/export.py" "$ROOT/bench/found.py" "$WORK/bench/"
	local args
	for args in "" "$WORK/nowhere"; do
		env -i PATH=/usr/bin:/bin /usr/bin/python3 "$WORK/bench/compare.py" $args >/dev/null 2>"$WORK/bench.err"
		rc=$?
		echo "bench/compare.py $args: exit $rc: $(cat "$WORK/bench.err")"
		[ $rc = 69 ] && [ "$(wc -l <"$WORK/bench.err")" = 1 ] && ! grep -q Traceback "$WORK/bench.err" || return 1
	done
}

# make dist: iopsample_VERSION.orig.tar.gz holds every file git tracks,
# under iopsample-VERSION/, and uPlot's npm tarball whose sha512 is the one
# the Makefile pins; nothing else.
source_tarball() {
	make -s -C "$ROOT" dist BUILD="$BUILD" >"$WORK/dist.log" 2>&1 || { echo "make dist: $(tail -3 "$WORK/dist.log")"; return 1; }
	local v tgz
	v=$(cat "$ROOT/VERSION")
	tgz=$BUILD/iopsample_$v.orig.tar.gz
	tar -tzf "$tgz" | grep -v '/$' | sort >"$WORK/dist.list" || return 1
	{ git -C "$ROOT" ls-files; echo "vendor/uplot-1.6.32.tgz"; } | sed "s|^|iopsample-$v/|" | sort >"$WORK/tracked.list"
	diff "$WORK/tracked.list" "$WORK/dist.list" >"$WORK/dist.diff" ||
		{ echo "the tarball differs from git's files: $(head -5 "$WORK/dist.diff" | tr '\n' ' ')"; return 1; }
	local want got
	want=$(sed -n 's/^UPLOT_SHA512 := //p' "$ROOT/Makefile")
	got=$(tar -xzOf "$tgz" "iopsample-$v/vendor/uplot-1.6.32.tgz" | sha512sum | cut -d' ' -f1)
	[ -n "$want" ] && [ "$got" = "$want" ] || { echo "vendored uPlot: sha512 $got, not $want"; return 1; }
	echo "$(basename "$tgz"): $(wc -l <"$WORK/dist.list") files, git's $(git -C "$ROOT" ls-files | wc -l) and uPlot's tarball (sha512 as pinned)"
}

# The default PREFIX, /usr/local: the package goes where Debian's
# python3 reads /usr/local (lib/python3.X/dist-packages).
python_under_usr_local() {
	make_installs install BUILD="$BUILD" DESTDIR="$WORK/local" >"$WORK/local.log" 2>&1 ||
		{ echo "make install: $(tail -2 "$WORK/local.log")"; return 1; }
	local dir
	dir=$(cd "$WORK/local" && ls -d usr/local/lib/python3*/dist-packages/iopsample) || return 1
	/usr/bin/python3 -c 'import site, sys; assert "/" + sys.argv[1] in site.getsitepackages(), site.getsitepackages()' \
		"$(dirname "$dir")" || { echo "$dir is not where /usr/bin/python3 looks"; return 1; }
	echo "/$dir"
}

# pip install ./python into a fresh venv with no package index at all:
# --no-build-isolation builds with the venv's own setuptools (Debian's
# python3 -m venv puts it there), the standard backend pyproject.toml names,
# and wheel (for its bdist_wheel), from Debian's own wheel of it
# (python3-wheel-whl); from a copy, so that the build's egg-info is not
# written into the tree.
# Then pip and importlib.metadata know it, at the package's version, and
# iopsample imports from outside the tree; rows() works with no pandas.
pip_into_a_venv() {
	/usr/bin/python3 -m venv "$WORK/venv" || return 1
	cp -r "$ROOT/python" "$WORK/python-src" && rm -rf "$WORK/python-src/tests" || return 1
	"$WORK/venv/bin/pip" install --no-index --find-links /usr/share/python-wheels wheel >"$WORK/pip.log" 2>&1 ||
		{ echo "pip install wheel: $(tail -3 "$WORK/pip.log")"; return 1; }
	"$WORK/venv/bin/pip" install --no-index --no-build-isolation --no-cache-dir "$WORK/python-src" \
		>"$WORK/pip.log" 2>&1 || { echo "pip install: $(tail -3 "$WORK/pip.log")"; return 1; }
	local version
	version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$ROOT/python/iopsample/_version.py")
	"$WORK/venv/bin/pip" show iopsample 2>/dev/null | grep -qx "Version: $version" ||
		{ echo "pip show: $("$WORK/venv/bin/pip" show iopsample 2>&1 | head -3 | tr '\n' ' ')"; return 1; }
	printf 'episode: {name: v, output_dir: %s}\ntarget: {command: [true]}\nsources: {proc_io: {interval: 10ms}}\n' \
		"$WORK/episodes" >"$WORK/v.yaml"
	(cd / && IOPSAMPLE=$IOPSAMPLE "$WORK/venv/bin/python" - "$WORK" <<'PY') || return 1
import importlib.metadata, sys, iopsample
assert iopsample.__file__.startswith(sys.argv[1] + "/venv/"), iopsample.__file__
assert importlib.metadata.version("iopsample") == iopsample.__version__
assert importlib.metadata.metadata("iopsample")["Requires-Python"] == ">=3.9"
ep = iopsample.run(sys.argv[1] + "/v.yaml")
assert ep.status == "complete" and ep.rows("proc_io")[-1]["final"], ep
try:
    import pandas
    raise SystemExit("pandas in a fresh venv")
except ImportError:
    pass
try:
    ep.frame("proc_io")
    raise SystemExit("frame() without pandas")
except ImportError as e:
    assert "python3-pandas" in str(e), e
print("imported from", iopsample.__file__)
PY
}

check make_install_and_uninstall_into_a_destdir installed_tree
check python_package_under_usr_local_is_on_pythons_path python_under_usr_local
check pip_install_offline_into_a_fresh_venv pip_into_a_venv
check source_tarball_holds_the_tracked_files_and_uplot source_tarball
check man_pages_are_clean_and_complete man_pages
check bash_completion_completes_iopsample completion
check recipe_without_iopsample_exits_69_in_one_line recipe_without_iopsample
