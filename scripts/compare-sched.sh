#!/bin/bash
# "make compare-sched": the kstats tool's runqlat, cpudist [--offcpu],
# offcpu --folded and biolatency -D/-F, each beside bpftrace's answer to
# the same question, both attached over the same run of a real workload
# (hackbench, a CPU hog, a napping Python, direct reads of a virtio disk
# and a null_blk disk) in one QEMU guest per kernel with Debian 12's
# userspace (bench-rootfs.sh). Prints, per question, both tools' counts
# and percentiles side by side (tests/bench/sched-report.py), and keeps
# their whole outputs in BUILD/compare-sched/TARGET/log/results.tap.
# A comparison, not a timing test: it fails only if a command failed, a
# tool counted nothing, the counts are far apart (the tools attach and
# detach a moment apart around the same workload) or a guest did not
# finish.
#
# Environment:
#   KSTATS_TARGETS   targets (default: deb612; only those installed from
#                    Debian 12, whose userspace bpftrace is)
#   KSTATS_SCHED_LOOPS  hackbench's loops per question (default 100)
#   KSTATS_BUILD     artifact directory (default: build/ in the repo)
#
# Usage: compare-sched.sh
set -euo pipefail
. "$(dirname "$0")/targets.sh"

src=${KSTATS_SRC:-$KSTATS_REPO}
export KSTATS_SRC=$src
build=$(realpath -m "${KSTATS_BUILD:-$KSTATS_REPO/build}")/compare-sched
read -ra targets <<<"${KSTATS_TARGETS:-deb612}"
mkdir -p "$build"

"$KSTATS_SCRIPTS/setup.sh" >"$build/setup.log"
rootfs=$("$KSTATS_SCRIPTS/bench-rootfs.sh")

for t in "${targets[@]}"; do
	[ -z "$(target_suite "$t")" ] || die "$t: not a Debian 12 kernel"
	[ "$(target_arch "$t")" = x86_64 ] || die "$t: not an x86 kernel"
	extra=$(target_extra_dir "$t")
	extra_modules_present "$extra" || die "$t: no null_blk in $extra (run scripts/setup.sh)"
	rel=$(target_release "$t")
	[ -d "/lib/modules/$rel/kernel" ] || die "$t: no /lib/modules/$rel (run scripts/setup.sh)"
	out=$build/$t
	rm -rf "$out/log" "$out/modules" "$out/initramfs.cpio"
	mkdir -p "$out"
	echo "compare-sched: $t: building the modules" >&2
	KSTATS_DEMO_ONLY=1 "$KSTATS_SCRIPTS/build-modules.sh" "$t" "$out" build >/dev/null
	# The virtio disk's driver, with virtio_pci where it is a module
	# (6.1): make_extra_modules takes the names and their dependencies.
	if ! KSTATS_EXTRA_MODULES="virtio_pci virtio_blk" \
		make_extra_modules "$out/virtio" "/lib/modules/$rel" 2>/dev/null; then
		KSTATS_EXTRA_MODULES=virtio_blk make_extra_modules "$out/virtio" "/lib/modules/$rel"
	fi
	cp "$out"/virtio/*.ko "$out/modules/"
	# 32 MiB of the host's file, read by direct I/O in the guest.
	[ -s "$out/disk.img" ] || head -c 32M /dev/urandom >"$out/disk.img"
	"$KSTATS_SCRIPTS/mkinitramfs.sh" --demo "$src/tests/bench/sched-guest.sh" \
		--rootfs "$rootfs" "$t" "$out/modules" "$out/initramfs.cpio"
	echo "compare-sched: $t: booting (log in $out/log)" >&2
	KSTATS_GUEST_MEM=2G KSTATS_GUEST_TIMEOUT=${KSTATS_GUEST_TIMEOUT:-3000} \
		KSTATS_APPEND="kstats_sched_loops=${KSTATS_SCHED_LOOPS:-100}" \
		KSTATS_QEMU_ARGS="-drive file=$out/disk.img,if=virtio,format=raw,readonly=on" \
		"$KSTATS_SCRIPTS/run-guest.sh" "$t" "$out/initramfs.cpio" "$out/log" ||
		die "$t: guest did not finish; see $out/log/"
	"$KSTATS_SCRIPTS/check-guest-log.sh" "$out/log" >/dev/null ||
		die "$t: the kernel log shows a report; see $out/log/console.log"
	rm -f "$out/initramfs.cpio"
done
{
	echo "# qemu $(qemu-system-x86_64 --version | head -n 1), TCG thread=single, -smp 2"
	echo "# host $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs"
} >"$build/env.txt"
python3 "$src/tests/bench/sched-report.py" "$build" "${targets[@]}" | tee "$build/report.txt"
