# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Where -o writes (docs/data-model.md, "Where -o writes"): for each command
# that takes it, -o onto a device node, a FIFO with a reader, a symbolic
# link, /dev/stdout (and an appending shell redirection behind it) and a
# regular file of mode 0600. The output must arrive whole, each node keep
# its type, the link stay a link. What cannot be written is one line, exit
# 73, nothing changed. Every node is made in $WORK: the host's /dev/null is
# never a target, and the test fails if it changed all the same.
. "$(dirname "$0")/lib/common.sh"

EP=$WORK/episodes/out
NODES=$WORK/nodes
COMMANDS="export verdict compare report"
host_null_before=$(stat -c '%F %t:%T %a %U' /dev/null)

episode() {
	cat >"$WORK/out.yaml" <<EOY
episode: {name: out, output_dir: $WORK/episodes}
target: {command: [$IOWORK, --rounds, "8", --pause-ms, "20"]}
sources:
  proc_io: {interval: 40ms}
  taskstats: {interval: 40ms}
EOY
	"$IOPSAMPLE" run "$WORK/out.yaml" --quiet
}

# What each command writes to stdout: what every target must receive.
expected() {
	local c
	for c in $COMMANDS; do
		"$IOPSAMPLE" $c "$EP" -o - >"$WORK/want.$c" || { echo "$c -o -: exit $?"; return 1; }
		[ -s "$WORK/want.$c" ] || { echo "$c wrote nothing"; return 1; }
	done
}

# type:mode of each node, after it was made and after every command
node_types() { stat -c '%n %F %a' "$NODES"/* | sort; }

make_nodes() {
	rm -rf "$NODES" && mkdir "$NODES" || return
	mknod "$NODES/null" c 1 3 && chmod 666 "$NODES/null" &&
		mkfifo "$NODES/fifo" &&
		echo "old target" >"$NODES/target" && ln -s target "$NODES/link" &&
		echo "secret" >"$NODES/private" && chmod 600 "$NODES/private"
}

onto_each_kind() {
	make_nodes || { echo "cannot make the nodes"; return 1; }
	local c before after got
	before=$(node_types)
	for c in $COMMANDS; do
		"$IOPSAMPLE" $c "$EP" -o "$NODES/null" || { echo "$c -o null: exit $?"; return 1; }

		timeout 30 cat "$NODES/fifo" >"$WORK/fifo.$c" &
		"$IOPSAMPLE" $c "$EP" -o "$NODES/fifo" || { echo "$c -o fifo: exit $?"; return 1; }
		wait $! || { echo "$c: the FIFO's reader got no end of file in 30 s"; return 1; }
		cmp -s "$WORK/fifo.$c" "$WORK/want.$c" ||
			{ echo "$c: the FIFO's reader got $(wc -c <"$WORK/fifo.$c") of $(wc -c <"$WORK/want.$c") bytes"; return 1; }

		"$IOPSAMPLE" $c "$EP" -o "$NODES/link" || { echo "$c -o link: exit $?"; return 1; }
		cmp -s "$NODES/target" "$WORK/want.$c" || { echo "$c: the link's target does not hold the output"; return 1; }

		"$IOPSAMPLE" $c "$EP" -o /dev/stdout >"$WORK/stdout.$c" || { echo "$c -o /dev/stdout: exit $?"; return 1; }
		cmp -s "$WORK/stdout.$c" "$WORK/want.$c" || { echo "$c -o /dev/stdout: not the output"; return 1; }
		# through an appending redirection: written where the shell appends
		echo "first line" >"$WORK/append.$c"
		"$IOPSAMPLE" $c "$EP" -o /dev/stdout >>"$WORK/append.$c" || { echo "$c -o /dev/stdout >>: exit $?"; return 1; }
		got=$( (echo "first line"; cat "$WORK/want.$c") | cmp - "$WORK/append.$c" 2>&1) ||
			{ echo "$c -o /dev/stdout >>: $got"; return 1; }
		"$IOPSAMPLE" $c "$EP" -o /proc/self/fd/3 3>"$WORK/fd3.$c" || { echo "$c -o /proc/self/fd/3: exit $?"; return 1; }
		cmp -s "$WORK/fd3.$c" "$WORK/want.$c" || { echo "$c -o /proc/self/fd/3: not the output"; return 1; }

		"$IOPSAMPLE" $c "$EP" -o "$NODES/private" || { echo "$c -o private: exit $?"; return 1; }
		cmp -s "$NODES/private" "$WORK/want.$c" || { echo "$c: the 0600 file does not hold the output"; return 1; }

		after=$(node_types)
		[ "$after" = "$before" ] || { echo "after $c: nodes changed: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"; return 1; }
		[ "$(readlink "$NODES/link")" = target ] || { echo "$c: the link now points elsewhere"; return 1; }
		[ "$(stat -c %t:%T "$NODES/null")" = 1:3 ] || { echo "$c: the device is no longer 1:3"; return 1; }
	done
	[ "$(ls -A "$NODES" | wc -l)" -eq 5 ] || { echo "left in the folder: $(ls -A "$NODES" | tr '\n' ' ')"; return 1; }
	echo "4 commands x 6 targets: every node kept its type, every reader got $(wc -c <"$WORK/want.export")..$(wc -c <"$WORK/want.report") bytes"
}

# A regular file owned by another user keeps its owner and mode (as root).
keeps_the_owner() {
	local c
	for c in $COMMANDS; do
		echo old >"$NODES/theirs" && chown nobody:nogroup "$NODES/theirs" && chmod 640 "$NODES/theirs"
		"$IOPSAMPLE" $c "$EP" -o "$NODES/theirs" || { echo "$c: exit $?"; return 1; }
		[ "$(stat -c '%U:%G %a' "$NODES/theirs")" = "nobody:nogroup 640" ] ||
			{ echo "$c: the file is now $(stat -c '%U:%G %a' "$NODES/theirs")"; return 1; }
		cmp -s "$NODES/theirs" "$WORK/want.$c" || { echo "$c: not the output"; return 1; }
	done
}

# One line, exit 73, nothing made or changed.
cannot_be_written() {
	local c ro=$WORK/ro
	mkdir -p "$WORK/adir" "$ro" && ln -sfn /nonexistent-iopsample/x "$NODES/dangling" || return
	mount -t tmpfs -o ro,size=1m tmpfs "$ro" || { echo "cannot mount a read-only tmpfs"; return 1; }
	local before
	before=$(ls -lA "$NODES" "$WORK/adir")
	for c in $COMMANDS; do
		refuses 73 "$WORK/adir: Is a directory" "$IOPSAMPLE" $c "$EP" -o "$WORK/adir" &&
			refuses 73 "$ro/x: Read-only file system" "$IOPSAMPLE" $c "$EP" -o "$ro/x" &&
			refuses 73 "-> /nonexistent-iopsample/x: No such file or directory" \
				"$IOPSAMPLE" $c "$EP" -o "$NODES/dangling" ||
			{ umount "$ro"; return 1; }
	done
	umount "$ro"
	[ "$(ls -lA "$NODES" "$WORK/adir")" = "$before" ] || { echo "something changed"; return 1; }
}

if ! episode >"$WORK/episode.log" 2>&1; then
	fail outfile_episode "$(tail -n 2 "$WORK/episode.log")"
	exit 0
fi
check outfile_expected_outputs expected
if [ "$(id -u)" != 0 ]; then
	skip outfile_onto_each_kind_of_path "needs root to make a device node (mknod)"
else
	check outfile_onto_each_kind_of_path onto_each_kind
	check outfile_keeps_an_existing_files_owner_and_mode keeps_the_owner
	check outfile_refuses_what_cannot_be_written cannot_be_written
fi
if [ "$(stat -c '%F %t:%T %a %U' /dev/null)" != "$host_null_before" ]; then
	fail outfile_left_the_hosts_dev_null_alone "/dev/null was '$host_null_before', is '$(stat -c '%F %t:%T %a %U' /dev/null)'"
else
	pass outfile_left_the_hosts_dev_null_alone
fi
