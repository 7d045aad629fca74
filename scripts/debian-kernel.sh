#!/bin/bash
# Fetch and unpack, once, the pinned Debian kernel of target $1 (scripts/
# debian-kernels.conf) without installing it: the headers and kbuild
# packages into KSTATS_CACHE/kernels/RELEASE/ (a root tree that
# chroot-run.sh binds into the build chroot), the image's
# /boot/vmlinuz-RELEASE into KSTATS_CACHE/boot/. Each package comes from
# Debian's pool and must match its pinned SHA256.
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
MIRROR=${KSTATS_DEBIAN_MIRROR:-http://deb.debian.org/debian}

[ -e "$tree/.kstats-built" ] && [ -s "$vmlinuz" ] && exit 0
mkdir -p "$KSTATS_CACHE/kernels" "$KSTATS_CACHE/boot"
exec 9>"$tree.lock"
flock 9
[ -e "$tree/.kstats-built" ] && [ -s "$vmlinuz" ] && exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tree"
mkdir -p "$tree"
while read -r what path sum; do
	deb=$tmp/${path##*/}
	echo "debian-kernel: $target: fetching ${path##*/}" >&2
	curl -fsS --retry 3 -o "$deb" "$MIRROR/$path" ||
		die "cannot fetch $MIRROR/$path"
	echo "$sum  $deb" | sha256sum -c --quiet - ||
		die "${path##*/}: SHA256 differs from the pin in debian-kernels.conf"
	case $what in
	headers) dpkg-deb -x "$deb" "$tree" ;;
	image)
		# /boot before 7.x; 7.x's linux-binary has it beside the modules.
		dpkg-deb --fsys-tarfile "$deb" | tar -xOf - --wildcards \
			"./boot/vmlinuz-$rel" "./usr/lib/modules/$rel/vmlinuz" \
			>"$tmp/vmlinuz" 2>/dev/null || true
		[ -s "$tmp/vmlinuz" ] || die "no vmlinuz of $rel in ${path##*/}"
		mv -f "$tmp/vmlinuz" "$vmlinuz"
		;;
	*) die "debian-kernels.conf: unknown kind '$what'" ;;
	esac
	rm -f "$deb"
done < <(pinned_packages "$target")
[ -e "$tree/usr/src/linux-headers-$rel/Makefile" ] ||
	die "no /usr/src/linux-headers-$rel in the packages of $target"
[ -s "$vmlinuz" ] || die "no image among the packages of $target"
touch "$tree/.kstats-built"
