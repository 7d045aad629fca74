# shellcheck shell=bash
# The kernels kstats is built and tested against, resolved at run time from
# what is installed, so Debian point releases need no edit here.
#
#   deb61   Debian's stock kernel: what linux-headers-amd64 depends on (6.1)
#   deb612  Debian's 6.12: what linux-headers-6.12-amd64 depends on
#   debug   6.12 built by build-debug-kernel.sh with KASAN, lockdep,
#           kmemleak, KUnit and tracing
#
# KSTATS_TARGETS="deb61 debug" restricts a run to a subset.
# Sourced, never run.

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

KSTATS_ALL_TARGETS="deb61 deb612 debug"

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

# Kernel build directory (KDIR) for out-of-tree modules of target $1.
target_kdir() {
	case $1 in
	debug) debug_kernel_dir ;;
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
