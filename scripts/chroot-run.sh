#!/bin/bash
# Run a command in the build chroot of a Debian kernel target, in a mount
# namespace of its own: the target's kernel tree and the directory DIR are
# bound read-only and read-write, so that Kbuild finds the headers where
# Debian installs them and the output paths are the same inside and
# outside. KTREE is either the packages of a Debian kernel unpacked by
# debian-kernel.sh (its usr/src and usr/lib are bound at /usr/src and
# /usr/lib) or a kernel build tree (the debug kernel); either is also
# bound at its own path.
#
# Usage: chroot-run.sh ROOT KTREE DIR COMMAND...
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ "${1:-}" != --inside ]; then
	[ $# -ge 4 ] || {
		echo "usage: ${0##*/} ROOT KTREE DIR COMMAND..." >&2
		exit 2
	}
	exec unshare --mount --propagation private -- "$0" --inside "$@"
fi
shift
root=$1 ktree=$2 dir=$3
shift 3
[ -e "$root/.kstats-built" ] || die "no chroot at $root"
[ -e "$ktree/.kstats-built" ] || die "no kernel tree at $ktree"

# bind SRC DST [ro]
bind() {
	mkdir -p "$2"
	mount --bind "$1" "$2"
	[ "${3:-}" != ro ] || mount -o remount,bind,ro "$2"
}
bind /dev "$root/dev"
mount -t proc proc "$root/proc"
if [ -d "$ktree/usr/src" ]; then
	while IFS= read -r -d '' d; do
		bind "$d" "$root/${d#"$ktree"/}" ro
	done < <(find "$ktree/usr/src" "$ktree/usr/lib" -mindepth 1 -maxdepth 1 -print0)
fi
# At its own path too: a tree unpacked for the host's build (arm612) names
# its cached path in its Makefiles.
bind "$ktree" "$root$ktree" ro
bind "$dir" "$root$dir"
exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 "$@"
