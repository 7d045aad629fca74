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
. "$(dirname "$0")/compare-lib.sh"

compare_init compare-biolatency "deb612 deb61"
for t in "${targets[@]}"; do
	compare_modules compare-biolatency "$t"
	# The number of requests goes on the kernel's command line.
	KSTATS_APPEND="kstats_biolat_reqs=${KSTATS_BIOLAT_REQS:-400}" \
		compare_boot compare-biolatency "$t" "$src/tests/bench/biolat-guest.sh"
done
compare_env
slots=()
[ "${KSTATS_BIOLAT_SLOTS:-0}" = 0 ] || slots=(--slots)
python3 "$src/tests/bench/biolat-report.py" "${slots[@]}" "$build" "${targets[@]}" |
	tee "$build/report.txt"
