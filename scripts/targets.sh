# shellcheck shell=bash
# The kernels kstats is built and tested against, resolved at run time from
# what is installed, so Debian point releases need no edit here.
#
#   deb61   Debian's stock kernel: what linux-headers-amd64 depends on (6.1)
#   deb612  Debian's 6.12: what linux-headers-6.12-amd64 depends on
#   deb618  Debian's 6.18 LTS (trixie-backports), pinned in
#           debian-kernels.conf, built in a trixie chroot
#   deb7x   the newest 7.x that Debian serves, pinned likewise
#   arm612  Debian's arm64 build of deb612's release, pinned likewise,
#           cross-built on the host, booted by qemu-system-aarch64
#   arm7x   Debian's arm64 build of deb7x's release, pinned likewise,
#           cross-built in a trixie chroot
#   debug   the newest Debian kernel source (linux-source-7.x, pinned in
#           debian-kernels.conf) built by build-debug-kernel.sh with
#           KASAN, lockdep, kmemleak, KUnit and tracing
#
# KSTATS_TARGETS="deb61 debug" restricts a run to a subset.
# Sourced, never run.

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

KSTATS_ALL_TARGETS="deb61 deb612 deb618 deb7x arm612 arm7x debug"

# The guest scripts (tests/guest/, by prefix, as KSTATS_TESTS) that the
# targets of KSTATS_SUBSET_TARGETS run, a stated subset: the arm64 targets
# (make check would pass 60 minutes with all of them on the two cores:
# about 25 minutes of guest time per arm64 kernel under TCG), and deb618,
# whose row of the mechanism table (tests/guest/lib.sh) is deb7x's: deb7x
# runs every script on the same mechanisms, deb618 the subset on its own
# kernel (about 6 of its 12 minutes saved). What depends on the
# architecture or the kernel: load, mechanisms, trace, pairs,
# calibration, direct, values and filters (arguments from registers),
# clocks, counters, user-space functions (uprobes: the breakpoint, its
# single step and return trampoline are each arch's), safety (torture,
# hotplug, safety, the trampoline's exits and pending returns, BTF read
# from sysfs only), a sample of the sweep, and outliers. The parser, the
# text and the permissions (20, 30, 40, 62, 84, 85) are the same C on
# every target: deb61, deb612, the debug kernel and (but
# KSTATS_SHARED_SUITES) deb7x run them. The environment may override it
# (any test, for a look).
KSTATS_SUBSET_TARGETS=${KSTATS_SUBSET_TARGETS-"deb618 arm612 arm7x"}
KSTATS_ARM_SUITES=${KSTATS_ARM_SUITES:-"10-load 15-mechanisms 60-trace 61-pairs 61-truth 64-calibrate 66-direct 67-filters-values 73-clock 78-counter 81-torture 82-hotplug 86-btf 86-safety 88-sweep 92-outliers 96-tramp-exit 97-exit-inside 98-pending-return 94-uprobe"}

# The tool's own guest scripts (the Python of tool/, and what it writes
# into _control) run on the targets of KSTATS_TOOL_TARGETS only: the same
# Python on every kernel, whose kernel side (trace, read, stop, start,
# reset, calibrate, filters, pairs, remove) 15-mechanisms, 20-output,
# 30-control, 40-errors, 61-pairs, 62-control-errors, 64-calibrate and
# 67-filters-values run on every target. Debian 12's newest kernel.
KSTATS_TOOL_SUITES=${KSTATS_TOOL_SUITES-"70-tool 71-tool-calibrate 72-record 91-latency"}
KSTATS_TOOL_TARGETS=${KSTATS_TOOL_TARGETS-"deb612"}

# Guest scripts of C that is the same on every kernel (the parser, the
# text, errors, lifetimes of kernel entries, permissions, /dev/kstats,
# and the fuzzer, which writes into them) run on the targets of
# KSTATS_SHARED_TARGETS only: deb61, deb612 and the debug kernel, whose
# 7.3 source is deb7x's (deb7x: 53 s of guest time, 37 of them the
# fuzzer, 2026-11-30).
KSTATS_SHARED_SUITES=${KSTATS_SHARED_SUITES-"20-output 30-control 40-errors 50-lifetime 62-control-errors 68-minmax 80-fuzz 84-perms 90-dev"}
KSTATS_SHARED_TARGETS=${KSTATS_SHARED_TARGETS-"deb61 deb612 debug"}

# The newest kernel of each architecture's pair beside a full one (deb618
# beside deb7x, whose mechanism row is its own; arm7x beside arm612) run
# a smaller subset still: what a kernel's version changes (load, the
# mechanisms, pairs and their truth, direct, the trampoline's exits and
# pending returns, uprobes, whose kernel interface changes between
# releases, safety, torture, outliers, their sweep slice); the
# clocks, counters, calibration, filters, hotplug and BTF checks run on
# deb7x and arm612 (2026-11-29: about 275 and 350 s of guest time on a
# slow host).
KSTATS_SMALL_TARGETS=${KSTATS_SMALL_TARGETS-"deb618 arm7x"}
KSTATS_SMALL_SUITES=${KSTATS_SMALL_SUITES-"10-load 15-mechanisms 60-trace 61-pairs 61-truth 66-direct 81-torture 86-safety 88-sweep 92-outliers 96-tramp-exit 97-exit-inside 98-pending-return 94-uprobe"}

# Guest scripts written ahead of their kernel side (by prefix, as
# KSTATS_TESTS): no boot runs them, and make check does not count them,
# until the feature lands and its commit takes them out of this list;
# the lists above already say where they will run. KSTATS_PENDING_SUITES=
# (empty) runs them there, for a look at the work in progress.
# None now (94-uprobe waited here for "trace PATH:SYMBOL").
KSTATS_PENDING_SUITES=${KSTATS_PENDING_SUITES-""}

# The debug kernel (KASAN, lockdep, kmemleak) leaves out 65-accuracy:
# its medians against known delays mean nothing under KASAN's slowdown,
# and 15-mechanisms attaches its mechanisms there (403 s of the debug
# guest, 2026-11-29). The environment may override it (empty: none).
KSTATS_DEBUG_OMIT=${KSTATS_DEBUG_OMIT-"65-accuracy"}
# The debug kernel's scripts from these on run in a second boot, beside
# the first: its guest scripts took over 3,600 s in one boot on a slow
# host (2026-11-29). Split at 83, the two took 1,590 and 1,630 s of
# script time in ci2 (the first boot also runs KUnit).
KSTATS_DEBUG_SECOND=${KSTATS_DEBUG_SECOND-"83 84 85 86 87 88 89 9"}

# subset_target TARGET: TARGET runs the scripts of KSTATS_ARM_SUITES only.
subset_target() {
	[[ " $KSTATS_SUBSET_TARGETS " == *" $1 "* ]]
}

# What the build chroots have (debian-chroot.sh): the compiler that built
# the pinned kernels of a suite, what Kbuild runs (perl and Python for
# kernel-doc, pahole for the modules' BTF), and the sparse chroot: sid's
# sparse, the first to parse the headers of 6.15 and later
# (__typeof_unqual__), with sid's gcc-14 for the objects it compiles
# (the arm64 targets' own chroot also has its aarch64 gcc-14).
KSTATS_CHROOT_BASE="make libc6-dev libelf1t64 libssl3t64 zlib1g pahole perl python3 bc"
KSTATS_SPARSE_SUITE=sid
KSTATS_SPARSE_PKGS="$KSTATS_CHROOT_BASE gcc-14 sparse"

# Lines "WHAT POOL-PATH SHA256" of the packages pinned for target $1.
pinned_packages() {
	awk -v t="$1" '$1 == t { print $4, $5, $6 }' "$KSTATS_SCRIPTS/debian-kernels.conf"
}

# Architecture of target $1's kernel: arm64 (cross-built, booted by
# qemu-system-aarch64) or x86_64.
target_arch() {
	case $1 in
	arm*) echo arm64 ;;
	*) echo x86_64 ;;
	esac
}

# Fetch pool path $1 of Debian's archive into file $2 and check it against
# SHA256 $3. pool/updates/ is the security archive's.
fetch_pinned() {
	local mirror=${KSTATS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	case $1 in
	pool/updates/*) mirror=${KSTATS_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} ;;
	esac
	curl -fsS --retry 3 -o "$2" "$mirror/$1" || die "cannot fetch $mirror/$1"
	echo "$3  $2" | sha256sum -c --quiet - ||
		die "${1##*/}: SHA256 differs from the pin in debian-kernels.conf"
}

# The QEMU of target $1's guest and its two output ports, the kernel's
# console into file $2 and what the guest init reports into file $3:
# GUEST_PIN (taskset, when KSTATS_HOST_CPU names a host CPU),
# GUEST_QEMU (the command and its machine), GUEST_CONSOLE (the console's
# device in the guest), GUEST_ARGS (kernel arguments the machine needs)
# and GUEST_PORTS. x86-64: two serial ports, and tsc=nowatchdog: under
# TCG every vCPU's TSC is the host's, but a vCPU starved by a loaded host
# stalls the clocksource watchdog's read-back past its 125 us limit, and
# the kernel then marks the TSC unstable in the middle of a run (a deb612
# guest in CI, 99 s after boot), which turns every entry's default clock
# from tsc to mono and drops the samples of entries already on the TSC.
# A kernel that finds its TSCs unsynchronized at boot (Debian 6.1 here)
# still marks them so. arm64:
# qemu-system-aarch64's virt machine, whose one serial port (ttyAMA0) is
# the console, and a virtio serial port named kstats.results, which
# guest-init.sh finds by that name, on the machine's PCIe: Debian's arm64
# kernels have VIRTIO_PCI and VIRTIO_CONSOLE built in (VIRTIO_MMIO is a
# module). A port, not a virtio console (hvc0): the console's output is
# written out by a kernel thread, and what it still holds at the reboot is
# lost. run-guest.sh and bench.sh boot their guests so.
# shellcheck disable=SC2034 # set for the scripts that source this file
guest_machine() {
	# KSTATS_HOST_CPU (check.sh's pool slot): QEMU runs on that host CPU
	# only, so that the guest's TSC is read from one host CPU.
	GUEST_PIN=()
	if [ -n "${KSTATS_HOST_CPU:-}" ]; then
		GUEST_PIN=(taskset -c "$KSTATS_HOST_CPU")
	fi
	if [ "$(target_arch "$1")" = x86_64 ]; then
		GUEST_QEMU=(qemu-system-x86_64)
		GUEST_CONSOLE=ttyS0
		GUEST_ARGS=tsc=nowatchdog
		GUEST_PORTS=(-serial "file:$2" -serial "file:$3")
	else
		GUEST_QEMU=(qemu-system-aarch64 -M virt)
		GUEST_CONSOLE=ttyAMA0
		GUEST_ARGS=
		# shellcheck disable=SC2054 # QEMU's options have commas
		GUEST_PORTS=(-serial "file:$2" -device virtio-serial-pci
			-chardev "file,id=results,path=$3"
			-device virtserialport,chardev=results,name=kstats.results)
	fi
}

# Root tree of the arm64 guests' userspace (busybox, Python): the
# packages pinned as "guest-arm64" in debian-kernels.conf, fetched and
# unpacked once into the cache (one directory per set of pins).
guest_arm64_root() {
	local pins dir kind path sum
	pins=$(pinned_packages guest-arm64)
	[ -n "$pins" ] || die "no guest-arm64 pins in debian-kernels.conf"
	dir=$KSTATS_CACHE/guest-arm64/$(sha256sum <<<"$pins" | cut -c1-12)
	if [ ! -e "$dir/.kstats-built" ]; then
		mkdir -p "${dir%/*}"
		(
			flock 9
			[ -e "$dir/.kstats-built" ] && exit 0
			rm -rf "$dir" "$dir.tmp"
			mkdir -p "$dir.tmp"
			while read -r kind path sum; do
				[ "$kind" = guest ] || die "guest-arm64: unknown kind '$kind'"
				echo "guest-arm64: fetching ${path##*/}" >&2
				fetch_pinned "$path" "$dir.tmp/pkg.deb" "$sum"
				dpkg-deb -x "$dir.tmp/pkg.deb" "$dir.tmp"
				rm -f "$dir.tmp/pkg.deb"
			done <<<"$pins"
			touch "$dir.tmp/.kstats-built"
			mv "$dir.tmp" "$dir"
		) 9>"$dir.lock" || exit 1
	fi
	echo "$dir"
}

# Field $2 (2: suite, 3: release) of target $1's pin of a Debian kernel
# build; empty if none (the debug kernel's source pin is not one).
_pin_field() {
	awk -v t="$1" -v f="$2" '$1 == t && $4 != "source" { print $f; exit }' \
		"$KSTATS_SCRIPTS/debian-kernels.conf"
}

# "VERSION POOL-PATH SHA256" of the debug kernel's pinned linux-source.
debug_source_pin() {
	awk '$1 == "debug" && $4 == "source" { print $3, $5, $6; exit }' \
		"$KSTATS_SCRIPTS/debian-kernels.conf"
}

# Cache directory of the debug kernel: one per pinned source and config
# fragment, so a new pin or a config change rebuilds it.
debug_kernel_dir() {
	local ver path sum
	read -r ver path sum < <(debug_source_pin) ||
		die "no debug source pin in debian-kernels.conf"
	sum=$(cat "$KSTATS_SCRIPTS/debug-kernel.config" - <<<"$path $sum" |
		sha256sum | cut -c1-12)
	echo "$KSTATS_CACHE/debug-kernel/${ver//[^A-Za-z0-9.+~-]/_}-$sum"
}

# Whether target $1's kernel is pinned in debian-kernels.conf (fetched by
# debian-kernel.sh into the cache), whether or not it builds in a chroot.
target_pinned() {
	[ -n "$(_pin_field "$1" 3)" ]
}

# Suite of target $1's build chroot; empty for the targets built on the
# host (suite "host" in debian-kernels.conf: pinned, built on the host).
target_suite() {
	local suite
	suite=$(_pin_field "$1" 2)
	[ "$suite" = host ] || echo "$suite"
}

# Packages of the build chroot of suite $1 for kernels of architecture $2
# (default x86_64): its kernels' gcc; arm64 kernels' cross gcc too (a
# chroot of its own, so that the x86 targets' chroot stays as it was).
chroot_packages() {
	local cross=
	[ "${2:-x86_64}" = x86_64 ] || cross=" gcc-14-aarch64-linux-gnu"
	case $1 in
	trixie) echo "$KSTATS_CHROOT_BASE gcc-14$cross" ;;
	sid) echo "$KSTATS_CHROOT_BASE gcc-16" ;;
	*) die "no build chroot defined for suite '$1'" ;;
	esac
}

# The build chroot of target $1 (made on first use; debian-chroot.sh).
# shellcheck disable=SC2046
target_chroot() {
	local suite
	suite=$(target_suite "$1")
	"$KSTATS_SCRIPTS/debian-chroot.sh" "$suite" \
		$(chroot_packages "$suite" "$(target_arch "$1")")
}

# The sparse chroot for kernels of architecture $1 (default x86_64; made
# on first use).
# shellcheck disable=SC2086
sparse_chroot() {
	local cross=
	[ "${1:-x86_64}" = x86_64 ] || cross=gcc-14-aarch64-linux-gnu
	"$KSTATS_SCRIPTS/debian-chroot.sh" "$KSTATS_SPARSE_SUITE" \
		$KSTATS_SPARSE_PKGS $cross
}

# Unpacked kernel tree of pinned target $1 (debian-kernel.sh).
target_ktree() {
	echo "$KSTATS_CACHE/kernels/$(target_release "$1")"
}

# Targets of this run, in canonical order; dies on an unknown name.
targets_list() {
	local t want=${KSTATS_TARGETS:-$KSTATS_ALL_TARGETS}
	for t in $want; do
		case " $KSTATS_ALL_TARGETS " in
		*" $t "*) ;;
		*) die "unknown target '$t' in KSTATS_TARGETS (known: $KSTATS_ALL_TARGETS)" ;;
		esac
	done
	for t in $KSTATS_ALL_TARGETS; do
		case " $want " in *" $t "*) echo "$t" ;; esac
	done
}

# Release that the installed headers meta package $1 pulls in, from its
# dependency on linux-headers-<release>. The headers, not the image: "make
# demo" installs no kernel image (see target_vmlinuz).
_meta_release() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' "$1" 2>/dev/null) ||
		die "$1 is not installed (run scripts/setup.sh)"
	dep=$(tr ',|' '\n' <<<"$dep" | sed -n 's/^ *linux-headers-\([^ ]*\).*/\1/p' | head -n1)
	[ -n "$dep" ] || die "cannot find the kernel release $1 depends on"
	echo "$dep"
}

# Kernel release string (uname -r) of target $1.
target_release() {
	case $1 in
	deb61) _meta_release linux-headers-amd64 ;;
	deb612) _meta_release linux-headers-6.12-amd64 ;;
	deb618 | deb7x | arm612 | arm7x) _pin_field "$1" 3 ;;
	debug) cat "$(debug_kernel_dir)/include/config/kernel.release" 2>/dev/null ||
		die "debug kernel not built (run scripts/build-debug-kernel.sh)" ;;
	*) die "unknown target '$1'" ;;
	esac
}

# The compressed image of stock target $1: the installed package's in
# /boot, else the one that "setup.sh --demo" took out of the package
# without installing it (no initramfs to generate, no boot loader entry).
target_vmlinuz() {
	local rel
	rel=$(target_release "$1")
	if [ -r "/boot/vmlinuz-$rel" ]; then
		echo "/boot/vmlinuz-$rel"
	else
		echo "$KSTATS_CACHE/boot/vmlinuz-$rel"
	fi
}

# Modules of Debian's kernels that the guest tests may load, from
# /modules/extra/ (mkinitramfs.sh): null_blk, a blk-mq disk whose requests
# fire the block tracepoints. Those they depend on come along (configfs,
# a module in all four kernels).
KSTATS_EXTRA_MODULES="null_blk"

# Cache directory of the extra modules of stock target $1, plain .ko files:
# setup.sh fills it for deb61 and deb612, debian-kernel.sh for the pinned
# targets (arm64's too), build-debug-kernel.sh the debug kernel's.
target_extra_dir() {
	case $1 in
	debug) echo "$(debug_kernel_dir)/kstats-extra" ;;
	*) echo "$KSTATS_CACHE/boot/extra-$(target_release "$1")" ;;
	esac
}

# Whether directory $1 has all of KSTATS_EXTRA_MODULES. Checked for
# themselves: caches from before them have the kernel image.
extra_modules_present() {
	local m
	for m in $KSTATS_EXTRA_MODULES; do
		[ -s "$1/$m.ko" ] || return 1
	done
}

# Fill directory $1 anew with KSTATS_EXTRA_MODULES and the modules they
# depend on (modinfo's "depends": built-in ones are not listed), taken
# from $2: a module tree (/lib/modules/RELEASE of an installed image) or a
# package that has one (.deb: the image, 7.x's modules). Decompressed here (Debian's are .ko.xz
# since 6.12), so that the guest's insmod needs no decompressor.
make_extra_modules() {
	local out=$1 src=$2 tmp m
	mkdir -p "${out%/*}"
	tmp=$(mktemp -d "$out.tmp.XXXXXX")
	for m in $KSTATS_EXTRA_MODULES; do
		_extra_module "$m" || {
			rm -rf "$tmp"
			return 1
		}
	done
	chmod 755 "$tmp"
	rm -rf "$out"
	mv "$tmp" "$out"
}

# Module $1 and, first, its dependencies into make_extra_modules' $tmp,
# from its $src.
_extra_module() {
	local name=${1//-/_} pat f deps dep
	[ -e "$tmp/$name.ko" ] && return 0
	# Module names have "_" where file names may have "-".
	pat="${name//_/[-_]}.ko*"
	rm -rf "$tmp/src"
	mkdir "$tmp/src"
	if [ -d "$src" ]; then
		f=$(find "$src/kernel" -name "$pat" -print -quit)
	else
		# A name that is not there makes tar fail: checked just below.
		# modinfo reads the arm64 modules' .modinfo as well.
		dpkg-deb --fsys-tarfile "$src" |
			tar -xf - -C "$tmp/src" --wildcards "*/modules/*/kernel/*/$pat" \
				2>/dev/null || true
		f=$(find "$tmp/src" -name "$pat" -print -quit)
	fi
	case $f in
	*.ko.xz) xz -dc "$f" ;;
	*.ko.zst) zstd -dcq "$f" ;;
	*.ko) cat "$f" ;;
	*) false ;;
	esac >"$tmp/$name.ko" || {
		echo "${0##*/}: error: no module $name in $src" >&2
		return 1
	}
	rm -rf "$tmp/src"
	deps=$(modinfo -F depends "$tmp/$name.ko") || return 1
	for dep in ${deps//,/ }; do
		_extra_module "$dep" || return 1
	done
}

# Kernel build directory (KDIR) for out-of-tree modules of target $1; for
# the pinned targets, its path in their build chroot, or in the cache for
# arm612, which builds on the host.
target_kdir() {
	case $1 in
	debug) debug_kernel_dir ;;
	arm612) echo "$(target_ktree "$1")/usr/src/linux-headers-$(target_release "$1")" ;;
	deb618 | deb7x | arm7x) echo "/usr/src/linux-headers-$(target_release "$1")" ;;
	*) echo "/lib/modules/$(target_release "$1")/build" ;;
	esac
}

# One-line description of target $1 for messages.
target_describe() {
	echo "$1 ($(target_release "$1"))"
}

# Image to pass to QEMU's -kernel for target $1. All three kernels have
# CONFIG_PVH, and QEMU boots an uncompressed ELF vmlinux through its PVH
# entry about twice as fast as a bzImage under TCG (no decompression in
# emulation), so the Debian images are extracted once into the cache. Falls
# back to the compressed image if extraction is impossible.
target_kernel() {
	local rel dir vmlinuz out
	case $1 in
	debug)
		dir=$(debug_kernel_dir)
		if [ -r "$dir/vmlinux" ]; then
			echo "$dir/vmlinux"
		else
			echo "$dir/arch/x86/boot/bzImage"
		fi
		return
		;;
	esac
	rel=$(target_release "$1")
	vmlinuz=$(target_vmlinuz "$1")
	[ -r "$vmlinuz" ] || die "$vmlinuz missing (run scripts/setup.sh)"
	# Debian's arm64 vmlinuz is an uncompressed Image (EFI stub, no
	# CONFIG_EFI_ZBOOT), which QEMU boots as it is.
	if [ "$(target_arch "$1")" = arm64 ]; then
		echo "$vmlinuz"
		return
	fi
	out=$KSTATS_CACHE/vmlinux/vmlinux-$rel
	if [ ! -s "$out" ]; then
		mkdir -p "${out%/*}"
		# Write under a temporary name: a killed run must not leave a
		# truncated image behind.
		if "$KSTATS_SCRIPTS/vmlinux-extract.py" "$vmlinuz" >"$out.tmp.$$" &&
			[ -s "$out.tmp.$$" ]; then
			mv -f "$out.tmp.$$" "$out"
		else
			rm -f "$out.tmp.$$"
		fi
	fi
	if [ -s "$out" ]; then
		echo "$out"
	else
		echo "$vmlinuz"
	fi
}
