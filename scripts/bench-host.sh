#!/bin/bash
# "make bench HOST=1": the kernel-side parts of the bench on a real
# machine where the user may load modules, instead of in QEMU guests.
# It LOADS MODULES INTO THE RUNNING KERNEL (kstats, kstats_floor,
# kstats_bench_exp) and changes ftrace's settings, so it asks first; never
# run it on a shared or production machine. Instructions and cycles per
# iteration come from "perf stat" around each run (user and kernel, where
# the PMU is available) instead of the QEMU plugin; the guest script
# tests/bench/bench-guest.sh runs unchanged otherwise.
#
# Usage: bench-host.sh [--yes]
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ "$(id -u)" = 0 ] || die "needs root (insmod, tracefs)"
if [ "${1:-}" != --yes ]; then
	read -r -p "Load the kstats bench modules into $(uname -r) on $(hostname)? [y/N] " a
	[ "$a" = y ] || exit 1
fi
command -v perf >/dev/null || die "perf is not installed"
out=$(realpath -m "${KSTATS_BUILD:-$KSTATS_REPO/build}")/bench/host
rm -rf "$out"
mkdir -p "$out/modules" "$out/log"
make -C "/lib/modules/$(uname -r)/build" M="$KSTATS_REPO" KSTATS_TEST_MODULES=1 \
	modules >"$out/build.log"
find "$KSTATS_REPO" -name '*.ko' -exec cp {} "$out/modules/" \;
gcc -O2 -Wall -o "$out/bench-mark" "$KSTATS_REPO/tests/bench/bench-mark.c"
printf 'SIZE=%s\nROUNDS=%s\nCLOCKS=%s\nEMPTY=%s\nMODDIR=%s\nPERF=1\n' \
	"${KSTATS_BENCH_SIZE:-1000000}" "${KSTATS_BENCH_ROUNDS:-7}" 20000 200000 \
	"$out/modules" >"$out/bench.conf"
PATH=$out:$PATH KSTATS_BENCH_CONF=$out/bench.conf \
	sh "$KSTATS_REPO/tests/bench/bench-guest.sh" | tee "$out/log/results.txt"
for m in kstats_bench_exp kstats_floor kstats; do
	rmmod "$m" 2>/dev/null || true
done
python3 "$KSTATS_REPO/tests/bench/report.py" "${out%/*}" host
