#!/bin/bash
# "make compare-biolatency": kstats' request pair against bpftrace on the
# block requests of a null_blk disk, both attached at once in one QEMU
# guest per kernel (Debian 12's userspace with bpftrace, bench-rootfs.sh).
# Prints, per kernel and null_blk setting, the requests that each tool
# and the disk's /sys/block stat counted, and both distributions (count,
# p50, p90, p99, max, histograms) in us. A comparison, not a timing test:
# it fails only if the counts differ or a guest did not finish.
# kstats: "trace bio start __tracepoint_block_rq_issue end
# __tracepoint_block_rq_complete key arg1". bpftrace 0.17 has no
# rawtracepoint probes and the block tracepoints' fields no request
# pointer: tracepoint:block:block_rq_issue/complete keyed by (dev,
# sector), which dd's direct reads of distinct blocks make unique. Each
# setting runs twice, bpftrace attached first, then kstats first: a
# tracepoint calls its probes in the order they were attached, so the
# tool attached second also times the first one's completion probe.
#
# Environment:
#   KSTATS_TARGETS   targets (default: deb612 deb61; only those installed
#                    from Debian 12, whose userspace bpftrace is)
#   KSTATS_BIOLAT_REQS  requests per null_blk setting (default 400)
#   KSTATS_BIOLAT_SLOTS=1  histograms in kstats' slots too, not only in
#                    bpftrace's powers of two
#   KSTATS_BUILD     artifact directory (default: build/ in the repo)
#
# Usage: compare-biolatency.sh
set -euo pipefail
. "$(dirname "$0")/targets.sh"

src=${KSTATS_SRC:-$KSTATS_REPO}
export KSTATS_SRC=$src
build=$(realpath -m "${KSTATS_BUILD:-$KSTATS_REPO/build}")/compare-biolatency
read -ra targets <<<"${KSTATS_TARGETS:-deb612 deb61}"
mkdir -p "$build"

"$KSTATS_SCRIPTS/setup.sh" >"$build/setup.log"
rootfs=$("$KSTATS_SCRIPTS/bench-rootfs.sh")

for t in "${targets[@]}"; do
	# bpftrace is Debian 12's: a newer suite's kernel (a pinned target)
	# would run with another release's bpftrace.
	[ -z "$(target_suite "$t")" ] || die "$t: not a Debian 12 kernel"
	[ "$(target_arch "$t")" = x86_64 ] || die "$t: not an x86 kernel"
	extra=$(target_extra_dir "$t")
	extra_modules_present "$extra" || die "$t: no null_blk in $extra (run scripts/setup.sh)"
	out=$build/$t
	rm -rf "$out/log" "$out/modules" "$out/initramfs.cpio"
	mkdir -p "$out"
	echo "compare-biolatency: $t: building the modules" >&2
	# kstats.ko and kstats_tramp.ko are enough; the build directory stays,
	# so a second run rebuilds only what changed.
	KSTATS_DEMO_ONLY=1 "$KSTATS_SCRIPTS/build-modules.sh" "$t" "$out" build >/dev/null
	# The demo mode of guest-init.sh runs the script; mkinitramfs.sh adds
	# null_blk and configfs under /modules/extra.
	"$KSTATS_SCRIPTS/mkinitramfs.sh" --demo "$src/tests/bench/biolat-guest.sh" \
		--rootfs "$rootfs" "$t" "$out/modules" "$out/initramfs.cpio"
	echo "compare-biolatency: $t: booting (log in $out/log)" >&2
	# The number of requests goes on the kernel's command line.
	KSTATS_GUEST_MEM=2G KSTATS_GUEST_TIMEOUT=${KSTATS_GUEST_TIMEOUT:-1800} \
		KSTATS_APPEND="kstats_biolat_reqs=${KSTATS_BIOLAT_REQS:-400}" \
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
slots=()
[ "${KSTATS_BIOLAT_SLOTS:-0}" = 0 ] || slots=(--slots)
python3 "$src/tests/bench/biolat-report.py" "${slots[@]}" "$build" "${targets[@]}" |
	tee "$build/report.txt"
