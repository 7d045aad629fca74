#!/bin/bash
# "make bench": the probe effect of kstats against ftrace, bpftrace and the
# bare mechanisms, in one QEMU guest per stock kernel (deb61, deb612):
# instructions per iteration counted by a TCG plugin
# (tests/bench/insn-count-plugin.c), and wall time, of every configuration
# of tests/bench/bench-guest.sh. See Documentation/kstats.rst, "Benchmarks".
#
# Environment:
#   QUICK=1        fewer rounds and smaller sizes (make bench QUICK=1)
#   KSTATS_BENCH_SIZE   dd iterations of the small run (the large is 2x)
#   KSTATS_BENCH_ROUNDS rounds of all configurations (timings: median)
#   KSTATS_TARGETS targets (default: deb61 deb612)
#   KSTATS_BUILD   artifact directory (default: build/ in the repo)
#
# Usage: bench.sh
set -euo pipefail
. "$(dirname "$0")/targets.sh"

build=$(realpath -m "${KSTATS_BUILD:-$KSTATS_REPO/build}")/bench
src=${KSTATS_SRC:-$KSTATS_REPO}
export KSTATS_SRC=$src
benchsrc=$src/tests/bench
if [ "${QUICK:-0}" = 1 ]; then
	size=${KSTATS_BENCH_SIZE:-5000} rounds=${KSTATS_BENCH_ROUNDS:-5}
else
	size=${KSTATS_BENCH_SIZE:-10000} rounds=${KSTATS_BENCH_ROUNDS:-7}
fi
targets=${KSTATS_TARGETS:-deb61 deb612}
mkdir -p "$build"

"$KSTATS_SCRIPTS/setup.sh" >"$build/setup.log"
"$KSTATS_SCRIPTS/build-debug-kernel.sh" >/dev/null
gen=$(debug_kernel_dir)/usr/gen_init_cpio

# Host-built parts: the plugin and the static guest program.
gcc -O2 -Wall -shared -fPIC -o "$build/insn-count-plugin.so" \
	"$benchsrc/insn-count-plugin.c"
gcc -O2 -Wall -static -o "$build/bench-mark" "$benchsrc/bench-mark.c"

# One boot of target $1 with the plugin: -smp 1, one TCG thread, so the
# plugin's single counter is exact.
bench_boot() {
	local target=$1 out=$build/$1 kernel
	rm -rf "$out"
	mkdir -p "$out/log"
	echo "bench: $target: building the modules" >&2
	"$KSTATS_SCRIPTS/build-modules.sh" "$target" "$out" build >/dev/null
	"$KSTATS_SCRIPTS/mkinitramfs.sh" --demo "$benchsrc/bench-guest.sh" \
		"$target" "$out/modules" "$out/base.cpio.gz"
	# The bench's own files, as a second archive appended to the first.
	{
		echo "file /usr/bin/bench-mark $build/bench-mark 0755 0 0"
		printf 'dir /etc 0755 0 0\n'
	} >"$out/extra.list"
	printf 'SIZE=%s\nROUNDS=%s\n' "$size" "$rounds" >"$out/bench.conf"
	echo "file /etc/kstats-bench.conf $out/bench.conf 0644 0 0" >>"$out/extra.list"
	"$gen" -t 0 "$out/extra.list" | gzip -n >"$out/extra.cpio.gz"
	cat "$out/base.cpio.gz" "$out/extra.cpio.gz" >"$out/initramfs.cpio.gz"
	kernel=$(target_kernel "$target")
	echo "bench: $target: booting (log in $out/log)" >&2
	local cmd=(qemu-system-x86_64 -nodefaults -no-user-config
		-accel tcg,thread=single -cpu max -m 1G -smp 1 -display none
		-no-reboot -kernel "$kernel" -initrd "$out/initramfs.cpio.gz"
		-append "console=ttyS0 loglevel=4 panic=-1 mitigations=off"
		-serial "file:$out/log/console.log"
		-serial "file:$out/log/results.txt"
		-monitor none
		-plugin "$build/insn-count-plugin.so,out=$out/log/markers.txt")
	printf '%q ' "${cmd[@]}" >"$out/log/qemu.cmd"
	timeout -k 10 "${KSTATS_GUEST_TIMEOUT:-1800}" "${cmd[@]}" </dev/null \
		>"$out/log/qemu.log" 2>&1 || true
	grep -qx '# GUEST DONE' "$out/log/results.txt" ||
		die "$target: guest did not finish; see $out/log/"
}

for t in $targets; do
	bench_boot "$t"
done
python3 "$benchsrc/report.py" "$build" $targets
