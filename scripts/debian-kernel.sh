#!/bin/bash
# Fetch and unpack, once, the pinned Debian kernel of target $1 (scripts/
# debian-kernels.conf) without installing it: the headers and kbuild
# packages into KSTATS_CACHE/kernels/RELEASE/ (a root tree that
# chroot-run.sh binds into the build chroot), the image's
# /boot/vmlinuz-RELEASE into KSTATS_CACHE/boot/ and the extra modules
# (targets.sh) into target_extra_dir. Each package comes from Debian's pool and must
# match its pinned SHA256. A target that builds on the host (arm612: no
# chroot) has the absolute /usr/src paths of its headers' Makefile turned
# into the tree's.
#
# Usage: debian-kernel.sh TARGET
set -euo pipefail
. "$(dirname "$0")/targets.sh"

[ $# -eq 1 ] || {
	echo "usage: ${0##*/} TARGET" >&2
	exit 2
}
target=$1
rel=$(target_release "$target")
tree=$KSTATS_CACHE/kernels/$rel
vmlinuz=$KSTATS_CACHE/boot/vmlinuz-$rel
extra=$(target_extra_dir "$target")

fetched() {
	[ -e "$tree/.kstats-built" ] && [ -s "$vmlinuz" ] &&
		extra_modules_present "$extra"
}
fetched && exit 0
mkdir -p "$KSTATS_CACHE/kernels" "$KSTATS_CACHE/boot"
exec 9>"$tree.lock"
flock 9
fetched && exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A complete tree stays: a cache from before the extra modules, or one
# that lost its image, needs the image package only.
headers=0
if [ ! -e "$tree/.kstats-built" ]; then
	headers=1
	rm -rf "$tree"
	mkdir -p "$tree"
fi
# 7.x has its modules in a package of their own (kind "modules").
modules=$(pinned_packages "$target" | awk '$1 == "modules"')
while read -r what path sum; do
	[ "$what" = headers ] && [ $headers = 0 ] && continue
	deb=$tmp/${path##*/}
	echo "debian-kernel: $target: fetching ${path##*/}" >&2
	fetch_pinned "$path" "$deb" "$sum"
	case $what in
	headers) dpkg-deb -x "$deb" "$tree" ;;
	image)
		# /boot before 7.x; 7.x's linux-binary has it beside the modules.
		dpkg-deb --fsys-tarfile "$deb" | tar -xOf - --wildcards \
			"./boot/vmlinuz-$rel" "./usr/lib/modules/$rel/vmlinuz" \
			>"$tmp/vmlinuz" 2>/dev/null || true
		[ -s "$tmp/vmlinuz" ] || die "no vmlinuz of $rel in ${path##*/}"
		mv -f "$tmp/vmlinuz" "$vmlinuz"
		# Before 7.x, the image package has the modules too.
		if [ -z "$modules" ]; then
			make_extra_modules "$extra" "$deb" ||
				die "cannot take the extra modules out of ${path##*/}"
		fi
		;;
	modules)
		make_extra_modules "$extra" "$deb" ||
			die "cannot take the extra modules out of ${path##*/}"
		;;
	*) die "debian-kernels.conf: unknown kind '$what'" ;;
	esac
	rm -f "$deb"
done < <(pinned_packages "$target")
[ -e "$tree/usr/src/linux-headers-$rel/Makefile" ] ||
	die "no /usr/src/linux-headers-$rel in the packages of $target"
# Built on the host: "include /usr/src/linux-headers-...-common/Makefile"
# (and 7.x's KBUILD_OUTPUT) must name the tree in the cache.
if [ $headers = 1 ] && [ -z "$(target_suite "$target")" ]; then
	sed -i "s|/usr/src/|$tree/usr/src/|g" "$tree/usr/src/linux-headers-$rel/Makefile"
fi
[ -s "$vmlinuz" ] || die "no image among the packages of $target"
touch "$tree/.kstats-built"
