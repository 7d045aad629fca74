#!/bin/bash
# "make bench": the probe effect of kstats against ftrace, bpftrace and the
# bare mechanisms, in one QEMU guest per kernel (deb61, deb612, deb7x; the
# arm64 targets arm612 and arm7x in qemu-system-aarch64, without the
# bpftrace guest and experiments 2 and 3, whose module is x86's):
# instructions per iteration counted by a TCG plugin
# (tests/bench/insn-count-plugin.c), and wall time, of every configuration
# of tests/bench/bench-guest.sh. See Documentation/kstats.rst, "Benchmarks".
#
# Environment:
#   QUICK=1        fewer rounds and smaller sizes (make bench QUICK=1)
#   KSTATS_BENCH_SIZE   dd iterations of the small run (the large is 2x)
#   KSTATS_BENCH_ROUNDS rounds of all configurations (timings: median)
#   KSTATS_TARGETS targets (default: deb61 deb612 deb7x)
#   KSTATS_BUILD   artifact directory (default: build/ in the repo)
#   KSTATS_BENCH_BPF=0   skip the bpftrace guest (Debian 12's userspace, so
#                        only on the kernels installed from Debian 12)
#   KSTATS_BENCH_CONFIGS configurations of the main and bpftrace guests
#                        (default: all)
#   KSTATS_BENCH_PROFILE=1 also where each run's instructions went, by
#                        kernel function (tests/bench/profile.py; slower)
#   KSTATS_BENCH_IRQ=0   x86-64: count the interrupts' instructions too
#                        (saves the boot that finds their entries)
#
# Usage: bench.sh
set -euo pipefail
. "$(dirname "$0")/targets.sh"

build=$(realpath -m "${KSTATS_BUILD:-$KSTATS_REPO/build}")/bench
src=${KSTATS_SRC:-$KSTATS_REPO}
export KSTATS_SRC=$src
benchsrc=$src/tests/bench
if [ "${QUICK:-0}" = 1 ]; then
	size=${KSTATS_BENCH_SIZE:-4000} rounds=${KSTATS_BENCH_ROUNDS:-3}
	clocks=${KSTATS_BENCH_CLOCKS:-1000}
else
	size=${KSTATS_BENCH_SIZE:-10000} rounds=${KSTATS_BENCH_ROUNDS:-7}
	clocks=${KSTATS_BENCH_CLOCKS:-5000}
fi
read -ra targets <<<"${KSTATS_TARGETS:-deb61 deb612 deb7x}"
prof=
[ "${KSTATS_BENCH_PROFILE:-0}" = 0 ] || prof=1
mkdir -p "$build"

"$KSTATS_SCRIPTS/setup.sh" >"$build/setup.log"
"$KSTATS_SCRIPTS/build-debug-kernel.sh" >/dev/null
gen=$(debug_kernel_dir)/usr/gen_init_cpio

# Host-built parts: the plugin (one for both QEMUs: it picks the marker
# by QEMU's target) and the static guest program, cross-built for arm64.
gcc -O2 -Wall -shared -fPIC -o "$build/insn-count-plugin.so" \
	"$benchsrc/insn-count-plugin.c"
gcc -O2 -Wall -static -o "$build/bench-mark" "$benchsrc/bench-mark.c"
for t in "${targets[@]}"; do
	if [ "$(target_arch "$t")" = arm64 ]; then
		aarch64-linux-gnu-gcc-12 -O2 -Wall -static \
			-o "$build/bench-mark-arm64" "$benchsrc/bench-mark.c"
		break
	fi
done

# The guest program of target $1.
bench_mark() {
	if [ "$(target_arch "$1")" = arm64 ]; then
		echo "$build/bench-mark-arm64"
	else
		echo "$build/bench-mark"
	fi
}

# Boot target $1 with initramfs $2, logs in $3, $4 of RAM, and the
# plugin: -smp 1, one TCG thread, so the plugin's single counter is exact.
# The machine and its ports are run-guest.sh's (targets.sh). The timer's
# interrupts are left out of the count (the plugin's noirq=1): on arm64
# always, on x86-64 from the entries that $irq names ("irq=ADDR,...";
# none: counted). Every boot has nokaslr: it keeps those addresses, and
# on arm64 the place of the modules: with KASLR, kstats_tramp.ko lands
# within a branch's reach of the kernel in some boots and not in others,
# and a direct call then takes ftrace_caller's path, six instructions
# more.
qemu_run() {
	local target=$1 initrd=$2 log=$3 mem=$4 noirq='' args=' nokaslr'
	guest_machine "$target" "$log/console.log" "$log/results.txt"
	if [ "$(target_arch "$target")" != x86_64 ] || [ -n "${irq:-}" ]; then
		noirq=1
	fi
	local cmd=("${GUEST_PIN[@]}" "${GUEST_QEMU[@]}" -nodefaults -no-user-config
		-accel "tcg,thread=single" -cpu max -m "$mem" -smp 1 -display none
		-no-reboot -kernel "$(target_kernel "$target")" -initrd "$initrd"
		-append "console=$GUEST_CONSOLE${GUEST_ARGS:+ $GUEST_ARGS} loglevel=7 panic=-1 mitigations=off$args"
		"${GUEST_PORTS[@]}"
		-monitor none
		-plugin "$build/insn-count-plugin.so,out=$log/markers.txt${prof:+,prof=$log/profile.txt}${noirq:+,noirq=1${irq:-}}")
	printf '%q ' "${cmd[@]}" >"$log/qemu.cmd"
	timeout -k 10 "${KSTATS_GUEST_TIMEOUT:-1800}" "${cmd[@]}" </dev/null \
		>"$log/qemu.log" 2>&1 || true
	grep -qx '# GUEST DONE' "$log/results.txt" ||
		die "$target: guest did not finish; see $log/"
	# Figures from a kernel that warned or oopsed are worth nothing.
	"$KSTATS_SCRIPTS/check-guest-log.sh" "$log" ||
		die "$target: the kernel log shows a report; see $log/console.log"
	{
		echo "qemu $("${GUEST_QEMU[0]}" --version | head -n 1)"
		echo "host_cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
		echo "accel tcg thread=single smp 1"
		# x86's lines as they were: report.py takes no arch for x86_64.
		[ "$(target_arch "$target")" = x86_64 ] || echo "arch arm64 (virt, -cpu max)"
		[ -z "$noirq" ] || echo "noirq interrupts left out of the count; nokaslr"
	} >"$log/env.txt"
}

# Initramfs $2 of target $1: its base archive and, appended, the bench's
# own files with configuration file $3.
bench_initramfs() {
	local target=$1 out=$build/$1
	{
		echo "file /usr/bin/bench-mark $(bench_mark "$target") 0755 0 0"
		printf 'dir /etc 0755 0 0\n'
		echo "file /etc/kstats-bench.conf $3 0644 0 0"
	} >"$out/extra.list"
	"$gen" -t 0 "$out/extra.list" | gzip -n >"$out/extra.cpio.gz"
	cat "$out/base.cpio.gz" "$out/extra.cpio.gz" >"$2"
}

# x86-64: the plugin's arguments that name the interrupt entries of
# target $1's kernel, ",irq=ADDR" each, from a boot of its own with
# nokaslr (the bench guest's IRQSYMS=1), cached per kernel image.
irq_args() {
	local target=$1 out=$build/$1 cache
	[ "$(target_arch "$target")" = x86_64 ] && [ "${KSTATS_BENCH_IRQ:-1}" != 0 ] ||
		return 0
	cache=$KSTATS_CACHE/bench-irqsyms/$(md5sum <"$(target_kernel "$target")" | cut -c1-16)
	if [ ! -s "$cache" ]; then
		mkdir -p "$out/irqsyms/log" "${cache%/*}"
		echo IRQSYMS=1 >"$out/irqsyms/bench.conf"
		bench_initramfs "$target" "$out/irqsyms/initramfs.cpio.gz" \
			"$out/irqsyms/bench.conf"
		echo "bench: $target: booting for the interrupt entries" >&2
		irq='' qemu_run "$target" "$out/irqsyms/initramfs.cpio.gz" \
			"$out/irqsyms/log" 1G
		grep -E '^irqsym [0-9a-f]{16} ' "$out/irqsyms/log/results.txt" \
			>"$cache.tmp" || die "$target: no interrupt entry in /proc/kallsyms"
		mv "$cache.tmp" "$cache"
	fi
	awk '{ printf ",irq=%s", $2 }' "$cache"
}

# One boot of target $1 with the plugin: -smp 1, one TCG thread, so the
# plugin's single counter is exact.
bench_boot() {
	local target=$1 out=$build/$1 irq
	rm -rf "$out"
	mkdir -p "$out/log"
	echo "bench: $target: building the modules" >&2
	"$KSTATS_SCRIPTS/build-modules.sh" "$target" "$out" build >/dev/null
	"$KSTATS_SCRIPTS/mkinitramfs.sh" --demo "$benchsrc/bench-guest.sh" \
		"$target" "$out/modules" "$out/base.cpio.gz"
	irq=$(irq_args "$target")
	printf 'SIZE=%s\nROUNDS=%s\nCLOCKS=%s\nEMPTY=%s\n' "$size" "$rounds" \
		"$clocks" $((clocks * 10)) >"$out/bench.conf"
	# ${KSTATS_BENCH_CONFIGS}: a subset of the configurations (smoke test).
	[ -z "${KSTATS_BENCH_CONFIGS:-}" ] ||
		echo "CONFIGS=\"$KSTATS_BENCH_CONFIGS\"" >>"$out/bench.conf"
	[ -z "$prof" ] || echo "PROFILE=1" >>"$out/bench.conf"
	bench_initramfs "$target" "$out/initramfs.cpio.gz" "$out/bench.conf"
	echo "bench: $target: booting (log in $out/log)" >&2
	qemu_run "$target" "$out/initramfs.cpio.gz" "$out/log" 1G
	# Experiment 3: bytes that the inline kstats_record() adds to a loop
	# (x86 only: the module times with the TSC; the guest said it skipped).
	if [ -e "$out/modules/kstats_bench_exp.ko" ]; then
		nm -S "$out/modules/kstats_bench_exp.ko" >"$out/log/nm.txt"
	fi
}

# The bpftrace guest of target $1: the Debian rootfs of bench-rootfs.sh
# with our modules and scripts, as an uncompressed initramfs (TCG
# decompresses slowly), in 2G of RAM. Reuses the modules of bench_boot.
bpf_boot() {
	local target=$1 out=$build/$1-bpf rootfs irq
	irq=$(irq_args "$target")
	rootfs=$("$KSTATS_SCRIPTS/bench-rootfs.sh")
	rm -rf "$out"
	mkdir -p "$out/log"
	{
		# One find, not a stat per file: the tree has over 10000 entries.
		(cd "$rootfs" && find . -mindepth 1 ! -path './dev/*' ! -name '* *' \
			\( -type l -printf 'slink /%P %l 0777 0 0\n' \) -o \
			\( -type d -printf 'dir /%P %m 0 0\n' \) -o \
			\( -type f -printf "file /%P $rootfs/%P %m 0 0\n" \) |
			LC_ALL=C sort -k2,2)
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "file /init $benchsrc/bpf-init.sh 0755 0 0"
		echo "file /bench-bpf-guest.sh $benchsrc/bench-bpf-guest.sh 0755 0 0"
		echo "file /usr/bin/bench-mark $build/bench-mark 0755 0 0"
		echo "file /etc/kstats-bench.conf $build/$target/bench.conf 0644 0 0"
		echo "dir /modules 0755 0 0"
		echo "file /modules/kstats.ko $build/$target/modules/kstats.ko 0644 0 0"
		echo "file /modules/kstats_tramp.ko $build/$target/modules/kstats_tramp.ko 0644 0 0"
	} >"$out/list"
	"$gen" -t 0 "$out/list" >"$out/initramfs.cpio"
	echo "bench: $target: booting the bpftrace guest (log in $out/log)" >&2
	qemu_run "$target" "$out/initramfs.cpio" "$out/log" 2G
	rm -f "$out/initramfs.cpio"
}

for t in "${targets[@]}"; do
	# KSTATS_BENCH_MAIN=0: only the bpftrace guest, with the modules of
	# the last run.
	[ "${KSTATS_BENCH_MAIN:-1}" = 0 ] || bench_boot "$t"
	# The bpftrace guest is Debian 12's userspace: a newer suite's kernel
	# (a pinned target) would be run with another release's bpftrace; an
	# arm64 kernel (arm612 builds on the host: no suite) with an x86 one.
	if [ "${KSTATS_BENCH_BPF:-1}" != 0 ] && [ -z "$(target_suite "$t")" ] &&
		[ "$(target_arch "$t")" = x86_64 ]; then
		bpf_boot "$t"
	fi
done
python3 "$benchsrc/report.py" "$build" "${targets[@]}"
if [ -n "$prof" ]; then
	for t in "${targets[@]}"; do
		for d in "$build/$t" "$build/$t-bpf"; do
			[ ! -e "$d/log/profile.txt" ] ||
				python3 "$benchsrc/profile.py" "$d/log" >"$d/profile.txt"
		done
	done
fi
if command -v gnuplot >/dev/null; then
	python3 "$benchsrc/plot.py" "$build" >&2
fi
