#!/bin/bash
# Build the busybox initramfs of a test guest:
#   /init                 scripts/guest-init.sh
#   /bin/busybox + links  from busybox-static
#   /modules/*.ko         the modules built for TARGET (from KODIR)
#   /modules/extra/*.ko   null_blk for TARGET and the modules it
#                         depends on, where setup.sh, debian-kernel.sh or
#                         build-debug-kernel.sh cached them (target_extra_dir)
#   /tests/               a copy of the repo's tests/guest/ (may be absent)
#   /usr/bin/kstats       the kstats command, with Debian's Python under /usr
#                         and /lib (guest-python.sh)
#   /usr/bin/kstats-NAME  tests/user/kstats_NAME.c, built static on the host
# An arm64 target's busybox, Python and C programs are arm64 ones: Debian's
# pinned packages (targets.sh's guest_arm64_root) and the host's cross gcc.
#   /etc/kstats-target    the target's short name
#   /etc/kstats-mode      "demo" with --demo, which also adds /demo.sh
# With --rootfs DIR, the guest's userspace is a copy of DIR (a Debian
# tree: scripts/bench-rootfs.sh, with bpftrace), busybox links only where
# DIR has no such command, the kstats command on DIR's Python, and no C
# test programs; with --tests DIR, /tests holds DIR's scripts and
# tests/guest/lib.sh.
# The contents are first described as a list in gen_init_cpio's format
# (guest-python.sh prints its part so), then laid out in a temporary tree
# (device nodes by mknod: this needs root, as setup.sh does) and archived
# by Debian's cpio, newc format, with owner 0:0, mtime 0 and renumbered
# inodes, so that the result is reproducible and no kernel tree is needed.
#
# Usage: mkinitramfs.sh [--demo SCRIPT] [--rootfs DIR] [--tests DIR]
#                       TARGET KODIR OUT.cpio[.gz]
set -euo pipefail
. "$(dirname "$0")/targets.sh"

usage() {
	echo "usage: ${0##*/} [--demo SCRIPT] [--rootfs DIR] [--tests DIR] TARGET KODIR OUT.cpio[.gz]" >&2
	exit 2
}

# KSTATS_SRC: another source tree than the repository (pipeline tests).
src=${KSTATS_SRC:-$KSTATS_REPO}
demo=''
rootfs=''
tests=$src/tests/guest
while [ $# -gt 3 ]; do
	case $1 in
	--demo) demo=$2 ;;
	--rootfs) rootfs=$(realpath "$2") ;;
	--tests) tests=$(realpath "$2") ;;
	*) usage ;;
	esac
	shift 2
done
[ $# -eq 3 ] || usage
target=$1 kodir=$2 out=$3
[ -z "$rootfs" ] || [ -d "$rootfs/usr/bin" ] || die "no userspace in $rootfs"

BUSYBOX=/bin/busybox
command -v cpio >/dev/null || die "cpio missing (run scripts/setup.sh)"
"$BUSYBOX" --list-full >/dev/null 2>&1 ||
	die "$BUSYBOX is not a full busybox (install busybox-static)"
# The guest's busybox; the host's lists the applets (the arm64 one is
# pinned at the host's version: debian-kernels.conf).
guest_busybox=$BUSYBOX
arm64_root=''
CC=gcc
if [ "$(target_arch "$target")" = arm64 ]; then
	[ -z "$rootfs" ] || die "--rootfs is for x86 targets only"
	arm64_root=$(guest_arm64_root)
	guest_busybox=$arm64_root/bin/busybox
	[ -s "$guest_busybox" ] || die "no busybox in $arm64_root"
	CC=aarch64-linux-gnu-gcc-12
fi
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

# guest-python.sh's list of entries, staged once per version of it and of
# Python in the cache (it byte-compiles the standard library: seconds of
# CPU that every initramfs would otherwise spend again).
guest_python() {
	local key dir
	key=$( {
		cat "$KSTATS_SCRIPTS/guest-python.sh"
		dpkg-query -W python3.11-minimal libpython3.11-stdlib 2>/dev/null
		# x86: nothing, so that its key stays as it was.
		[ -z "$arm64_root" ] || echo "$arm64_root"
	} | sha256sum | cut -c1-16)
	dir=$KSTATS_CACHE/guest-python/$key
	mkdir -p "$KSTATS_CACHE/guest-python"
	(
		flock 9
		if [ ! -s "$dir/list" ]; then
			"$KSTATS_SCRIPTS/guest-python.sh" "$dir" ${arm64_root:+"$arm64_root"} >"$dir.list.tmp"
			mv -f "$dir.list.tmp" "$dir/list"
		fi
	) 9>"$dir.lock"
	cat "$dir/list"
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
	echo "file /bin/busybox $guest_busybox 0755 0 0"
	"$BUSYBOX" --list-full | while read -r p; do
		[ "$p" = bin/busybox ] && continue
		[ -n "$rootfs" ] && { [ -e "$rootfs/$p" ] || [ -L "$rootfs/$p" ]; } &&
			continue
		echo "slink /$p /bin/busybox 0777 0 0"
	done
	echo "file /etc/kstats-target $tmp/target 0644 0 0"
	for ko in "$kodir"/*.ko; do
		[ -e "$ko" ] || continue
		echo "file /modules/${ko##*/} $(realpath "$ko") 0644 0 0"
	done
	extra=$(target_extra_dir "$target")
	if [ -n "$extra" ] && compgen -G "$extra/*.ko" >/dev/null; then
		echo "dir /modules/extra 0755 0 0"
		for ko in "$extra"/*.ko; do
			echo "file /modules/extra/${ko##*/} $ko 0644 0 0"
		done
	fi
	# The demo runs neither the tests nor the fuzzer (whose static build
	# needs libc6-dev, which the demo's packages leave out).
	if [ -z "$demo" ] && [ -d "$tests" ]; then
		tree "$tests" /tests | keep_tests
		[ -e "$tests/lib.sh" ] ||
			echo "file /tests/lib.sh $src/tests/guest/lib.sh 0644 0 0"
	fi
	# The kstats command, run in the guest against the live files, on
	# guest-python.sh's Python or the userspace's own (Debian 12's 3.11).
	[ -n "$rootfs" ] || guest_python
	PYTHON=/usr/bin/python3.11 "$KSTATS_SCRIPTS/mkzipapp.sh" "$tmp/kstats" "$src/tool/kstats" >&2
	echo "file /usr/bin/kstats $tmp/kstats 0755 0 0"
	# The tests' C programs, as /usr/bin/kstats-NAME: the fuzzer (busybox
	# sh is far too slow for 100,000 writes) and what sh cannot do.
	for c in "$src"/tests/user/kstats_*.c; do
		if [ -n "$demo" ] || [ -n "$rootfs" ] || [ ! -e "$c" ]; then
			continue
		fi
		prog=${c##*/kstats_}
		prog=kstats-$(echo "${prog%.c}" | tr _ -)
		"$CC" -static -O2 -Wall -Werror -pthread -o "$tmp/$prog" "$c"
		echo "file /usr/bin/$prog $tmp/$prog 0755 0 0"
	done
	if [ -n "$demo" ]; then
		echo demo >"$tmp/mode"
		echo "file /etc/kstats-mode $tmp/mode 0644 0 0"
		echo "file /demo.sh $(realpath "$demo") 0755 0 0"
	fi
} >"$tmp/list"

# Lay out the entries of list $1 (gen_init_cpio's format: dir, file, slink,
# nod) under directory $2, with the modes the list gives.
materialize() {
	local root=$2 kind path a b d e f
	# nod PATH MODE UID GID TYPE MAJOR MINOR: uid and gid are 0 anyway.
	while read -r kind path a b _ d e f _; do
		case $kind in
		dir) mkdir -p "$root$path" && chmod "$a" "$root$path" ;;
		file) cp "$a" "$root$path" && chmod "$b" "$root$path" ;;
		slink) ln -sfn "$a" "$root$path" ;;
		nod)
			if ! mknod "$root$path" "$d" "$e" "$f"; then
				die "cannot make device node $path (needs root)"
			fi
			chmod "$a" "$root$path"
			;;
		*) die "unknown initramfs list entry '$kind'" ;;
		esac
	done <"$1"
}

# Each directory once: guest-python.sh lists /usr and /usr/bin again.
awk '$1 != "dir" || !seen[$2]++' "$tmp/list" >"$tmp/list.uniq"
mkdir "$tmp/tree"
chmod 755 "$tmp/tree"
if [ -n "$rootfs" ]; then
	(cd "$rootfs" && tar --exclude=./dev -cf - .) | tar -C "$tmp/tree" -xpf -
fi
materialize "$tmp/list.uniq" "$tmp/tree"
# mtime 0 everywhere (links too), names sorted: the same inputs give the
# same bytes.
find "$tmp/tree" -exec touch -h -d @0 {} +
# OUT ending in .gz: gzip'd; else plain, which the guest unpacks ~2 s
# faster under TCG (the demo's choice).
compress=(cat)
[[ $out == *.gz ]] && compress=(gzip -n -6)
(cd "$tmp/tree" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --quiet --owner 0:0 --reproducible) |
	"${compress[@]}" >"$tmp/out.cpio"
mv -f "$tmp/out.cpio" "$out"
