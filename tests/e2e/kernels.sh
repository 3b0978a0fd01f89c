# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The kernel matrix: the kernels users run, booted in QEMU (TCG, no network)
# with this build, its probe and its episodes judged here by the checks the
# host's own tests use (tests/kernels/judge.py). The host's kernel is the
# rest of the suite.
#
#   bookworm-6.1   Debian 12's kernel (linux-image-cloud-amd64's newest)
#   bookworm-6.12  Debian 12's newer line (linux-image-6.12-cloud-amd64's)
#   bullseye-5.10  Debian 11's kernel, through an apt configuration of the
#                  test's own (tests/kernels/fetch)
#
# Fetched from Debian's archive at test time and cached under build/kernels:
# a second run the same day fetches nothing.
. "$(dirname "$0")/lib/common.sh"

KERNELS=$TESTS/kernels
export PYTHONPATH=$PYTHONPATH:$KERNELS

# boot LINE CODENAME META: the guest's /out in $WORK/LINE, or 1
boot() {
	local line=$1 kdir img=$WORK/$1
	kdir=$("$KERNELS/fetch" "$BUILD/kernels" "$2" "$3" 2>"$img.fetch") ||
		{ echo "fetching $3 of $2: $(tail -n 2 "$img.fetch")"; return 1; }
	"$KERNELS/initramfs" "$kdir" "$img.cpio.gz" "$WORKLOADS/blkwork" "$WORKLOADS/sysio" "$WORKLOADS/netio" \
		"$WORKLOADS/metawork" "$WORKLOADS/patwork" "$WORKLOADS/darwork-static" "$WORKLOADS/phasework" "$WORKLOADS/cachework" \
		"$(command -v fio)" "$(command -v tc)" ${KSMBD:+"$KSMBD/usr/sbin/ksmbd.mountd" "$KSMBD/usr/sbin/ksmbd.adduser"} \
		"$(command -v dmsetup)" "$(command -v mke2fs)" ${MDADM:+"$MDADM/sbin/mdadm"} \
		"$KERNELS"/*.yaml || { echo "initramfs"; return 1; }
	truncate -s 64M "$img.disk" && truncate -s 32M "$img.out" && truncate -s 160M "$img.swap" &&
		truncate -s 128M "$img.fs" && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$img.fs" &&
		truncate -s 64M "$img.e" && truncate -s 64M "$img.f" || return 1
	# One host thread for both vCPUs: with a thread each, TCG lets a vCPU
	# run code the other has just patched (a static key flipped as a
	# tracepoint is attached), and the guest oopses on a stale int3 in
	# syscall_exit_to_user_mode_prepare (seen here on 6.12 in 2 of the
	# first 5 boots; in none of 20 with one thread).
	timeout 600 qemu-system-x86_64 -accel tcg,thread=single -m 1024 -smp 2 -nographic -no-reboot -nic none \
		-kernel "$kdir"/boot/vmlinuz-* -initrd "$img.cpio.gz" -append "console=ttyS0 quiet panic=-1" \
		-drive "file=$img.disk,format=raw,if=virtio" -drive "file=$img.out,format=raw,if=virtio" \
		-drive "file=$img.swap,format=raw,if=virtio" -drive "file=$img.fs,format=raw,if=virtio" \
		-drive "file=$img.e,format=raw,if=virtio" -drive "file=$img.f,format=raw,if=virtio" \
		</dev/null >"$img.console" 2>&1
	mkdir -p "$img" && tar -xf "$img.out" -C "$img" 2>/dev/null && [ -s "$img/kernel" ] ||
		{ echo "$line: the guest wrote nothing back: $(tail -c 600 "$img.console" | tr -d '\r')"; return 1; }
	echo "$line: $(cat "$img/kernel") in $(basename "$kdir")"
}

# ksmbd's user space for the smb episode's server, from bookworm-backports:
# Debian 12's own (3.4.7) leaves out the payload size the kernels' ksmbd
# checks in a share's configuration (ksmbd-tools 0ab2c10), and every tree
# connect fails. Without it the guests say so, and smb fails.
KSMBD=$("$KERNELS/fetch" "$BUILD/kernels" bookworm-backports deb:ksmbd-tools 2>"$WORK/ksmbd.fetch") ||
	{ KSMBD=; echo "fetching ksmbd-tools: $(tail -n 2 "$WORK/ksmbd.fetch")" >&2; }

# mdadm for the stacked-md episode's raid1, Debian 12's own (not installed
# here: it would start arrays and its monitor on this host); without it
# stacked-md fails, saying so
MDADM=$("$KERNELS/fetch" "$BUILD/kernels" bookworm deb:mdadm 2>"$WORK/mdadm.fetch") ||
	{ MDADM=; echo "fetching mdadm: $(tail -n 2 "$WORK/mdadm.fetch")" >&2; }

# metawork's static start-up, as strace -f -c counts it here: the same
# binary makes the same calls in a guest
mkdir -p "$WORK/metawork"
strace -f -c -o "$WORK/metawork.strace" "$WORKLOADS/metawork" "$WORK/metawork" 5 >/dev/null ||
	echo "strace of metawork failed" >"$WORK/metawork.strace"

# darwork's every case under Darshan here (tests/e2e/darshan.sh): the
# guests' access pattern of the same program must equal its counters
mkdir -p "$WORK/darwork"
DARSHAN=$("$TESTS/darshan/build" 2>"$WORK/darwork.darshan")
DARSHAN_RC=$?
NO_DARSHAN=
if [ $DARSHAN_RC = 77 ]; then
	NO_DARSHAN=$(cat "$WORK/darwork.darshan")
elif [ $DARSHAN_RC != 0 ] || ! "$PY" "$TESTS/e2e/lib/darshan.py" "$DARSHAN" "$WORK/darwork-logs" "$WORK/darwork" \
	"$WORKLOADS/darwork" "$WORK/darwork" >"$WORK/darwork.darshan" 2>&1; then
	echo "{\"darshan failed\": \"$(tail -n 1 "$WORK/darwork.darshan")\"}" >"$WORK/darwork.darshan"
fi

for spec in "bookworm-6.1 bookworm linux-image-cloud-amd64" \
	"bookworm-6.12 bookworm linux-image-6.12-cloud-amd64" \
	"bullseye-5.10 bullseye linux-image-cloud-amd64"; do
	set -- $spec
	line=$1
	if ! check "${line}_boots" boot "$@"; then
		continue
	fi
	for what in probe direct direct-procfs sysio-ebpf sysio-ptrace netio-ebpf netio-ptrace fio-libaio fio-io_uring \
		metawork patwork darwork darwork-ptrace throttled controllers verdict memhigh causes causes-dirty causes-outside causes-loader stacked-dm stacked-dm-part stacked-md nfs nfs-late smb nulls; do
		if [ -n "$NO_DARSHAN" ] && [[ $what == darwork* ]]; then
			no_judge "${line}_$what" "$NO_DARSHAN"
			continue
		fi
		check "${line}_$what" "$PY" "$KERNELS/judge.py" "$WORK/$line" "$what" "$WORK/metawork.strace" \
			"$WORK/darwork.darshan"
	done
done
