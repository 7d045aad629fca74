#!/bin/bash
# A Debian chroot made by debootstrap, once per suite and package list, in
# the cache: the toolchain that Debian built a target's kernel with (its
# gcc), for the targets whose kernel is newer than the host's Debian, and
# a sparse that parses their headers. Kernel trees are not in it: chroot-
# run.sh binds them in. Prints the chroot's path on stdout.
#
# Usage: debian-chroot.sh SUITE PACKAGE...
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -ge 2 ] || {
	echo "usage: ${0##*/} SUITE PACKAGE..." >&2
	exit 2
}
suite=$1
shift
sum=$(printf "%s\n" "$@" | sort | sha256sum | cut -c1-12)
dir=$KSTATS_CACHE/chroot/$suite-$sum
stamp=$dir/.kstats-built

[ -e "$stamp" ] && { echo "$dir"; exit 0; }
command -v debootstrap >/dev/null || die "debootstrap missing (run scripts/setup.sh)"
mkdir -p "$KSTATS_CACHE/chroot"
exec 9>"$dir.lock"
flock 9
[ -e "$stamp" ] && { echo "$dir"; exit 0; }

rm -rf "$dir"
log=$dir.log
echo "chroot: debootstrap $suite into $dir (log: $log)" >&2
include=$(IFS=,; echo "$*")
if ! debootstrap --variant=minbase --include="$include" "$suite" "$dir" \
	"${KSTATS_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	die "debootstrap $suite failed"
fi
# Nothing of the chroot's own package cache is needed again.
rm -rf "$dir"/var/cache/apt/archives/*.deb
touch "$stamp"
echo "$dir"
