#!/bin/bash
# What compare-biolatency.sh and compare-sched.sh share: a QEMU guest per
# Debian 12 x86 kernel with Debian 12's userspace and bpftrace
# (bench-rootfs.sh), kstats.ko and null_blk in it, a guest script run as
# the demo (tests/bench/bpf-guest-lib.sh first), and the host's
# description for the report. Sourced; sets src, build, targets, rootfs.
# shellcheck disable=SC2034 # targets and rootfs are the caller's
# shellcheck source=targets.sh
. "$(dirname "${BASH_SOURCE[0]}")/targets.sh"

src=${KSTATS_SRC:-$KSTATS_REPO}
export KSTATS_SRC=$src

# compare_init NAME DEFAULT_TARGETS: BUILD/NAME, the targets
# (KSTATS_TARGETS), the host's set-up and the userspace.
compare_init() {
	build=$(realpath -m "${KSTATS_BUILD:-$KSTATS_REPO/build}")/$1
	read -ra targets <<<"${KSTATS_TARGETS:-$2}"
	mkdir -p "$build"
	"$KSTATS_SCRIPTS/setup.sh" >"$build/setup.log"
	rootfs=$("$KSTATS_SCRIPTS/bench-rootfs.sh")
}

# compare_modules NAME TARGET: checks that TARGET's guest can run
# bpftrace and null_blk, then builds kstats.ko and kstats_tramp.ko into
# BUILD/TARGET/modules (the build directory stays, so a second run
# rebuilds only what changed); sets out.
compare_modules() {
	local t=$2 extra
	# bpftrace is Debian 12's: a newer suite's kernel (a pinned target)
	# would run with another release's bpftrace.
	[ -z "$(target_suite "$t")" ] || die "$t: not a Debian 12 kernel"
	[ "$(target_arch "$t")" = x86_64 ] || die "$t: not an x86 kernel"
	extra=$(target_extra_dir "$t")
	extra_modules_present "$extra" || die "$t: no null_blk in $extra (run scripts/setup.sh)"
	out=$build/$t
	rm -rf "$out/log" "$out/modules" "$out/initramfs.cpio"
	mkdir -p "$out"
	echo "$1: $t: building the modules" >&2
	KSTATS_DEMO_ONLY=1 "$KSTATS_SCRIPTS/build-modules.sh" "$t" "$out" build >/dev/null
}

# compare_boot NAME TARGET SCRIPT: boots TARGET's guest (2G, run-guest.sh's
# environment as given) with SCRIPT after bpf-guest-lib.sh as its demo;
# mkinitramfs.sh adds null_blk and configfs under /modules/extra. Dies if
# the guest did not finish or its kernel log has a report.
compare_boot() {
	local t=$2
	cat "$src/tests/bench/bpf-guest-lib.sh" "$3" >"$out/guest.sh"
	"$KSTATS_SCRIPTS/mkinitramfs.sh" --demo "$out/guest.sh" \
		--rootfs "$rootfs" "$t" "$out/modules" "$out/initramfs.cpio"
	echo "$1: $t: booting (log in $out/log)" >&2
	KSTATS_GUEST_MEM=2G KSTATS_GUEST_TIMEOUT=${KSTATS_GUEST_TIMEOUT:-1800} \
		"$KSTATS_SCRIPTS/run-guest.sh" "$t" "$out/initramfs.cpio" "$out/log" ||
		die "$t: guest did not finish; see $out/log/"
	"$KSTATS_SCRIPTS/check-guest-log.sh" "$out/log" >/dev/null ||
		die "$t: the kernel log shows a report; see $out/log/console.log"
	rm -f "$out/initramfs.cpio"
}

# compare_env: BUILD/env.txt, the emulator and the host, for the report.
compare_env() {
	{
		echo "# qemu $(qemu-system-x86_64 --version | head -n 1), TCG thread=single, -smp 2"
		echo "# host $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs"
	} >"$build/env.txt"
}
