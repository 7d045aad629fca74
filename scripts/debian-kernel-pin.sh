#!/bin/bash
# Print the debian-kernels.conf lines of the newest Debian kernels in
# reach: the newest 6.18 (target deb618) and the newest 7.x (deb7x) that
# trixie-backports or sid lists, and that 7.x's linux-source (the debug
# kernel); the arm64 builds of deb7x's release (arm7x) and of deb612's,
# the host's 6.12 (arm612, from bookworm and its security archive), and
# the arm64 guests' userspace (guest-arm64: busybox-static at the host's
# version, Python 3.11 and its libraries), from their signed indexes (a
# private apt state in the cache; the host's apt configuration is not
# touched).
# Pinning is choosing: paste the lines over the old ones, then run the
# targets (KSTATS_TARGETS="deb618 deb7x") and update MECH_TABLE in
# tests/guest/lib.sh and the tables of Documentation/testing.rst and kstats.rst.
#
# Usage: debian-kernel-pin.sh
set -euo pipefail
. "$(dirname "$0")/targets.sh"

apt=$KSTATS_CACHE/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial"
cat >"$apt/sources.list" <<'LIST'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
LIST
opts=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=-
	-o Dir::State="$apt" -o Dir::State::status=/dev/null
	-o Dir::Cache="$apt" -o APT::Architecture=amd64
	-o APT::Architectures::=amd64 -o APT::Architectures::=arm64)
apt-get "${opts[@]}" -qq update >&2

# fields PACKAGE: "POOL-PATH SHA256" of its candidate version.
fields() {
	apt-cache "${opts[@]}" show "$1" 2>/dev/null | awk '
		/^Filename: / { f = $2 } /^SHA256: / { s = $2 }
		/^$/ { if (f) { print f, s; exit } }
		END { if (f) print f, s }' | head -n1
}

# newest SERIES: the newest amd64 release of SERIES, or nothing.
newest() {
	apt-cache "${opts[@]}" pkgnames "linux-headers-$1" |
		sed -n 's/^linux-headers-\([0-9.]*+deb[0-9]*-amd64\)$/\1/p' |
		sort -V | tail -n1
}

# pin TARGET SERIES [ARCH [RELEASE]]: the lines of the newest amd64
# release of SERIES (or RELEASE), of its ARCH build (default amd64).
pin() {
	local target=$1 series=$2 arch=${3:-amd64} rel=${4:-} suite p image modules q=
	[ -n "$rel" ] || rel=$(newest "$series")
	if [ -z "$rel" ]; then
		# Superseded builds leave the index but stay in the pool.
		echo "# $target: no linux-headers-$series*-amd64 in the indexes; keep its pin" >&2
		return 0
	fi
	rel=${rel%-amd64}-$arch
	[ "$arch" = amd64 ] || q=:$arch
	# +deb13: trixie(-backports), built with trixie's gcc; +deb14: sid;
	# +deb12: the host's Debian, built on the host (no chroot).
	case $rel in
	*+deb12-*) suite=host ;;
	*+deb13-*) suite=trixie ;;
	*) suite=sid ;;
	esac
	# 7.x splits the image package: linux-binary has the vmlinuz,
	# linux-modules the modules (targets.sh takes null_blk from it).
	image=linux-binary-$rel
	modules=linux-modules-$rel
	if [ -z "$(fields "$image$q")" ]; then
		image=linux-image-$rel
		modules=''
	fi
	# The kbuild tools are the host's: amd64.
	for p in "linux-headers-$rel$q" "linux-headers-${rel%-"$arch"}-common" \
		"linux-kbuild-${rel%-"$arch"}" "$image$q" ${modules:+"$modules$q"}; do
		read -r path sum < <(fields "$p") || die "$p is not in the indexes"
		kind=headers
		[ "$p" = "$image$q" ] && kind=image
		[ "$p" = "$modules$q" ] && kind=modules
		printf '%-7s %-7s %-20s %-8s %s %s\n' "$target" "$suite" "$rel" \
			"$kind" "$path" "$sum"
	done
}

# The arm64 guests' userspace: bookworm's busybox-static at the host's
# version (its applet list is the host's), Python 3.11 and the libraries
# that it loads, bookworm's (not its security archive's) newest.
pin_guest_arm64() {
	local p ver path sum
	for p in busybox-static python3.11-minimal libpython3.11-stdlib libc6 zlib1g libexpat1; do
		if [ "$p" = busybox-static ]; then
			ver=$(dpkg-query -W -f='${Version}' busybox-static)
		else
			ver=$(apt-cache "${opts[@]}" -o APT::Default-Release=bookworm \
				policy "$p:arm64" | sed -n 's/^ *Candidate: //p')
		fi
		read -r path sum < <(apt-cache "${opts[@]}" show "$p:arm64=$ver" |
			awk '/^Filename: / { f = $2 } /^SHA256: / { s = $2 } END { print f, s }')
		[ -n "$path" ] || die "$p:arm64 $ver is not in the indexes"
		printf '%s bookworm %s guest %s %s\n' guest-arm64 "$ver" "$path" "$sum"
	done
}

# The debug kernel's source: linux-source-MAJOR.MINOR of the newest 7.x,
# at the version of that kernel's build.
pin_source() {
	local rel series ver path sum
	rel=$(apt-cache "${opts[@]}" pkgnames linux-headers-7. |
		sed -n 's/^linux-headers-\([0-9.]*+deb[0-9]*-amd64\)$/\1/p' | sort -V | tail -n1)
	[ -n "$rel" ] || return 0
	series=$(cut -d. -f1-2 <<<"$rel")
	ver=$(apt-cache "${opts[@]}" show "linux-source-$series" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -V | tail -n1)
	read -r path sum < <(apt-cache "${opts[@]}" show "linux-source-$series=$ver" |
		awk '/^Filename: / { f = $2 } /^SHA256: / { s = $2 } END { print f, s }')
	[ -n "$path" ] || die "linux-source-$series is not in the indexes"
	printf '%-7s %-7s %-20s %-8s %s %s\n' debug trixie "$ver" source "$path" "$sum"
}

pin deb618 6.18.
pin deb7x 7.
pin arm612 6.12. arm64 "$(_meta_release linux-headers-6.12-amd64)"
pin arm7x 7. arm64
pin_source
pin_guest_arm64
