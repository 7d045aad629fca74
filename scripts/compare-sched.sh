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
# tool counted nothing, the guest lacked its disk or a module, the
# counts of the workload's tasks or disks are far apart (the tools
# attach a moment apart around the same workload) or a guest did not
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
. "$(dirname "$0")/compare-lib.sh"

compare_init compare-sched deb612
for t in "${targets[@]}"; do
	rel=$(target_release "$t")
	[ -d "/lib/modules/$rel/kernel" ] || die "$t: no /lib/modules/$rel (run scripts/setup.sh)"
	compare_modules compare-sched "$t"
	# The virtio disk's driver, with virtio_pci where it is a module
	# (6.1): make_extra_modules takes the names and their dependencies.
	if ! KSTATS_EXTRA_MODULES="virtio_pci virtio_blk" \
		make_extra_modules "$out/virtio" "/lib/modules/$rel" 2>/dev/null; then
		KSTATS_EXTRA_MODULES=virtio_blk make_extra_modules "$out/virtio" "/lib/modules/$rel"
	fi
	cp "$out"/virtio/*.ko "$out/modules/"
	# 32 MiB of the host's file, read by direct I/O in the guest.
	[ -s "$out/disk.img" ] || head -c 32M /dev/urandom >"$out/disk.img"
	KSTATS_GUEST_TIMEOUT=${KSTATS_GUEST_TIMEOUT:-3000} \
		KSTATS_APPEND="kstats_sched_loops=${KSTATS_SCHED_LOOPS:-100}" \
		KSTATS_QEMU_ARGS="-drive file=$out/disk.img,if=virtio,format=raw,readonly=on" \
		compare_boot compare-sched "$t" "$src/tests/bench/sched-guest.sh"
done
compare_env
python3 "$src/tests/bench/sched-report.py" "$build" "${targets[@]}" | tee "$build/report.txt"
