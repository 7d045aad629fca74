#!/bin/bash
# Build the busybox initramfs of a test guest:
#   /init                 scripts/guest-init.sh
#   /bin/busybox + links  from busybox-static
#   /modules/*.ko         the modules built for TARGET (from KODIR)
#   /tests/               a copy of the repo's tests/guest/ (may be absent)
#   /usr/bin/kstats       the kstats command, with Debian's Python under /usr
#                         and /lib (guest-python.sh)
#   /usr/bin/kstats-fuzz  tests/user/kstats_fuzz.c, built static on the host
#   /etc/kstats-target    the target's short name
#   /etc/kstats-mode      "demo" with --demo, which also adds /demo.sh
# The archive is written by the kernel's own gen_init_cpio from a list, so
# device nodes need no root and the result is reproducible.
#
# Usage: mkinitramfs.sh [--demo SCRIPT] TARGET KODIR OUT.cpio.gz
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() {
	echo "usage: ${0##*/} [--demo SCRIPT] TARGET KODIR OUT.cpio.gz" >&2
	exit 2
}

demo=
if [ "${1:-}" = --demo ]; then
	[ $# -ge 2 ] || usage
	demo=$2
	shift 2
fi
[ $# -eq 3 ] || usage
target=$1 kodir=$2 out=$3
# KSTATS_SRC: another source tree than the repository (pipeline tests).
src=${KSTATS_SRC:-$KSTATS_REPO}

BUSYBOX=/bin/busybox
gen=$(debug_kernel_dir)/usr/gen_init_cpio
[ -x "$gen" ] || die "$gen missing: run scripts/build-debug-kernel.sh first"
"$BUSYBOX" --list-full >/dev/null 2>&1 ||
	die "$BUSYBOX is not a full busybox (install busybox-static)"
[ -d "$kodir" ] || die "no module directory $kodir"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$target" >"$tmp/target"

# Entries of a host directory tree $1, put at $2 in the guest.
tree() {
	local src=$1 dst=$2 rel path
	while IFS= read -r -d '' path; do
		rel=${path#"$src"}
		if [ -L "$path" ]; then
			echo "slink $dst$rel $(readlink "$path") 0777 0 0"
		elif [ -d "$path" ]; then
			echo "dir $dst$rel $(stat -c %a "$path") 0 0"
		elif [ -f "$path" ]; then
			echo "file $dst$rel $path $(stat -c %a "$path") 0 0"
		fi
	done < <(find "$src" -mindepth 1 -print0 | sort -z)
}

# KSTATS_TESTS="61 65": only the guest scripts whose names start with one
# of these (lib.sh and the other non-scripts always), to iterate faster.
keep_tests() {
	local line base p
	while IFS= read -r line; do
		base=${line#file /tests/}
		base=${base%% *}
		if [ -z "${KSTATS_TESTS:-}" ] || [[ $line != "file /tests/"[0-9]* ]]; then
			echo "$line"
			continue
		fi
		for p in $KSTATS_TESTS; do
			[[ $base == "$p"* ]] && echo "$line" && break
		done
	done
}

{
	for d in dev proc sys tmp root etc bin sbin usr usr/bin usr/sbin \
		modules tests; do
		echo "dir /$d 0755 0 0"
	done
	# The kernel opens /dev/console for init before devtmpfs is mounted.
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /init $KSTATS_SCRIPTS/guest-init.sh 0755 0 0"
	echo "file /bin/busybox $BUSYBOX 0755 0 0"
	"$BUSYBOX" --list-full | while read -r p; do
		[ "$p" = bin/busybox ] || echo "slink /$p /bin/busybox 0777 0 0"
	done
	echo "file /etc/kstats-target $tmp/target 0644 0 0"
	for ko in "$kodir"/*.ko; do
		[ -e "$ko" ] || continue
		echo "file /modules/${ko##*/} $(realpath "$ko") 0644 0 0"
	done
	if [ -d "$src/tests/guest" ]; then
		tree "$src/tests/guest" /tests | keep_tests
	fi
	# The kstats command, run in the guest against the live files.
	"$KSTATS_SCRIPTS/guest-python.sh" "$tmp"
	echo "file /usr/bin/kstats $src/scripts/kstats 0755 0 0"
	# The fuzzer: busybox sh is far too slow for 100,000 writes.
	if [ -e "$src/tests/user/kstats_fuzz.c" ]; then
		gcc -static -O2 -Wall -Werror -o "$tmp/kstats-fuzz" \
			"$src/tests/user/kstats_fuzz.c"
		echo "file /usr/bin/kstats-fuzz $tmp/kstats-fuzz 0755 0 0"
	fi
	if [ -n "$demo" ]; then
		echo demo >"$tmp/mode"
		echo "file /etc/kstats-mode $tmp/mode 0644 0 0"
		echo "file /demo.sh $(realpath "$demo") 0755 0 0"
	fi
} >"$tmp/list"

# Each directory once: guest-python.sh lists /usr and /usr/bin again.
awk '$1 != "dir" || !seen[$2]++' "$tmp/list" >"$tmp/list.uniq"
"$gen" -t 0 "$tmp/list.uniq" | gzip -n -6 >"$tmp/out.cpio.gz"
mv -f "$tmp/out.cpio.gz" "$out"
