# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The Debian packages (issues 38 and 41): iopsample and python3-iopsample
# from `make deb`, which builds the whole tree again from the source
# tarball as a build daemon does (about half a minute of both CPUs here):
# in the long tier, with make check-all.
. "$(dirname "$0")/lib/common.sh"

ROOT=$(cd "$TESTS/.." && pwd)

# make deb: from the source tarball (make dist), dpkg-buildpackage with debian/ in a network
# namespace with no network at all (the whole of make deb runs there, once
# the Debian tools are installed), lintian with no error and no warning;
# the package installed runs an episode from PATH, and is removed on every
# way out of the test.
debian_package() (
	command -v dpkg >/dev/null || { echo "no dpkg"; exit 1; }
	! dpkg -s iopsample >/dev/null 2>&1 || { echo "an iopsample package is installed already"; exit 1; }
	! dpkg -s python3-iopsample >/dev/null 2>&1 || { echo "a python3-iopsample package is installed already"; exit 1; }
	trap 'dpkg -r python3-iopsample iopsample >/dev/null 2>&1' EXIT
	make -s -C "$ROOT" deb-deps BUILD="$BUILD" >"$WORK/deb.log" 2>&1 || { echo "make deb-deps: $(tail -5 "$WORK/deb.log")"; exit 1; }
	local ours
	ours=$(sha256sum <"$BUILD/iopsample")
	# (no interface but lo, which stays down)
	unshare -n sh -c '[ "$(awk -F: "NR > 2 { print \$1 }" /proc/net/dev | tr -d " ")" = lo ] &&
		exec make -s -C "$1" deb BUILD="$2"' _ "$ROOT" "$BUILD" \
		>"$WORK/deb.log" 2>&1 || { echo "make deb with no network: $(tail -5 "$WORK/deb.log")"; exit 1; }
	# built in the unpacked tarball, by its own make: this checkout's
	# binary untouched (the BUILD given here once reached the package's
	# make, which linked this build's objects and overwrote its binary)
	[ "$(sha256sum <"$BUILD/iopsample")" = "$ours" ] || { echo "make deb rewrote $BUILD/iopsample"; exit 1; }
	[ -x "$(echo "$BUILD"/deb/iopsample-*/build/iopsample)" ] || { echo "the package's tree built no build/iopsample"; exit 1; }
	local deb pydeb tags arch
	deb=$(ls "$BUILD"/deb/iopsample_*_*.deb) && pydeb=$(ls "$BUILD"/deb/python3-iopsample_*_all.deb) || exit 1
	arch=$(dpkg-deb -f "$deb" Architecture)
	[ "$arch" = "$(dpkg --print-architecture)" ] || { echo "built for $arch"; exit 1; }
	grep -q '^Architecture: amd64 arm64$' "$BUILD"/deb/iopsample-*/debian/control || { echo "debian/control's Architecture"; exit 1; }
	tags=$(lintian "$deb" "$pydeb" 2>/dev/null)
	echo "$(basename "$deb") $(basename "$pydeb"): lintian: $(printf '%s\n' "$tags" | grep -c '^E:') errors, $(printf '%s\n' "$tags" | grep -c '^W:') warnings"
	! printf '%s\n' "$tags" | grep -q '^[EW]:' || { printf '%s\n' "$tags" | head -5; exit 1; }
	dpkg -i "$deb" "$pydeb" >"$WORK/dpkg.log" 2>&1 || { echo "dpkg -i: $(tail -3 "$WORK/dpkg.log")"; exit 1; }
	cat >"$WORK/deb.yaml" <<EOY
episode: {name: deb, output_dir: $WORK/episodes}
target: {command: [true]}
sources: {proc_io: {interval: 10ms}}
EOY
	env -i PATH=/usr/bin:/bin iopsample run "$WORK/deb.yaml" --quiet || { echo "iopsample from PATH: exit $?"; exit 1; }
	[ "$(command -v iopsample)" = /usr/bin/iopsample ] && man -w iopsample >/dev/null 2>&1 ||
		{ echo "not installed as a package installs it"; exit 1; }
	/usr/bin/python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); assert m["status"] == "complete", m["status"]' \
		"$WORK/episodes/deb/manifest.json" || exit 1
	# the Python package from Debian's python3, and a %%iops cell in IPython
	(cd / && env -i PATH=/usr/bin:/bin /usr/bin/python3 -c 'import iopsample; print(iopsample.__file__)') |
		grep -qx /usr/lib/python3/dist-packages/iopsample/__init__.py || { echo "import iopsample"; exit 1; }
	local cell="%%iops --sources proc_io,syscall_io
with open('$WORK/cell.out', 'wb', buffering=0) as f:
    for _ in range(7):
        f.write(b'd' * 3000)"
	(cd "$WORK" && env -i PATH=/usr/bin:/bin HOME="$WORK" /usr/bin/python3 -m IPython --no-banner --colors=NoColor \
		--ext iopsample -c "$cell") >"$WORK/cell.txt" 2>&1 || { echo "ipython: $(tail -3 "$WORK/cell.txt")"; exit 1; }
	grep -q '^Bytes Written: *20.51 KiB (21,000 bytes)$' "$WORK/cell.txt" && grep -q '^Write Operations: *7$' "$WORK/cell.txt" ||
		{ echo "the %%iops table: $(grep -E 'Bytes|Oper|Error' "$WORK/cell.txt" | tr '\n' '|')"; exit 1; }
	dpkg -r python3-iopsample iopsample >/dev/null 2>&1 && [ ! -e /usr/bin/iopsample ] &&
		[ ! -e /usr/lib/python3/dist-packages/iopsample ] || { echo "dpkg -r"; exit 1; }
	echo "installed with dpkg -i, ran an episode from PATH and a %%iops cell in IPython, removed"
)

check debian_package_builds_offline_clean_installs_and_runs debian_package
