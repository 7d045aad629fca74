# shellcheck shell=bash
# The kernels kstats is built and tested against, resolved at run time from
# what is installed, so Debian point releases need no edit here.
#
#   deb61   Debian's stock kernel: what linux-image-amd64 depends on (6.1)
#   deb612  Debian's 6.12: what linux-image-6.12-amd64 depends on
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

# Release that the installed meta package $1 pulls in, from its dependency
# on linux-image-<release>.
_meta_release() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' "$1" 2>/dev/null) ||
		die "$1 is not installed (run scripts/setup.sh)"
	dep=$(tr ',|' '\n' <<<"$dep" | sed -n 's/^ *linux-image-\([^ ]*\).*/\1/p' | head -n1)
	[ -n "$dep" ] || die "cannot find the kernel release $1 depends on"
	echo "$dep"
}

# Kernel release string (uname -r) of target $1.
target_release() {
	case $1 in
	deb61) _meta_release linux-image-amd64 ;;
	deb612) _meta_release linux-image-6.12-amd64 ;;
	debug) cat "$(debug_kernel_dir)/include/config/kernel.release" 2>/dev/null ||
		die "debug kernel not built (run scripts/build-debug-kernel.sh)" ;;
	*) die "unknown target '$1'" ;;
	esac
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

# Path of the kernel's scripts/extract-vmlinux: the debug tree's if it is
# built, else the one file taken once from linux-source-6.12's tarball into
# the cache (reading the tarball takes ~15 s; building the tree, minutes),
# so that "make demo" needs no kernel build. Fails if neither exists.
extract_vmlinux_tool() {
	local tool tarball=/usr/src/linux-source-6.12.tar.xz
	local member=linux-source-6.12/scripts/extract-vmlinux
	tool=$(debug_kernel_dir)/scripts/extract-vmlinux
	[ -x "$tool" ] && echo "$tool" && return
	tool=$KSTATS_CACHE/tools/extract-vmlinux
	if [ ! -x "$tool" ] && [ -r "$tarball" ]; then
		mkdir -p "${tool%/*}"
		tar -xJf "$tarball" -O --occurrence=1 "$member" >"$tool.tmp.$$" 2>/dev/null &&
			[ -s "$tool.tmp.$$" ] && chmod 755 "$tool.tmp.$$" &&
			mv -f "$tool.tmp.$$" "$tool"
		rm -f "$tool.tmp.$$"
	fi
	[ -x "$tool" ] && echo "$tool"
}

# Image to pass to QEMU's -kernel for target $1. All three kernels have
# CONFIG_PVH, and QEMU boots an uncompressed ELF vmlinux through its PVH
# entry about twice as fast as a bzImage under TCG (no decompression in
# emulation), so the Debian images are extracted once into the cache. Falls
# back to the compressed image if extraction is impossible.
target_kernel() {
	local rel dir vmlinuz out extract
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
	vmlinuz=/boot/vmlinuz-$rel
	[ -r "$vmlinuz" ] || die "$vmlinuz missing (run scripts/setup.sh)"
	out=$KSTATS_CACHE/vmlinux/vmlinux-$rel
	if [ ! -s "$out" ] && extract=$(extract_vmlinux_tool); then
		mkdir -p "${out%/*}"
		# Write under a temporary name: a killed run must not leave a
		# truncated image behind.
		if "$extract" "$vmlinuz" >"$out.tmp.$$" 2>/dev/null &&
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
