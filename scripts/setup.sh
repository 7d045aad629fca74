#!/bin/bash
# Install, idempotently, everything the build, the guests and the tests need
# from Debian: kernel images and headers for the stock targets, QEMU,
# busybox, the toolchain of the debug kernel (its source comes from the
# pool: build-debug-kernel.sh), the static checkers,
# debootstrap and curl for the pinned targets (deb618, deb7x: their
# kernels and build chroots are made on first use into the cache), QEMU's
# arm64 machine, the arm64 cross gcc of Debian 12's kernels and its libc
# (the arm64 targets' modules and the guests' static C programs), and
# what the host tests of the kstats command use: pytest, gnuplot, promtool
# (from prometheus), prometheus and prometheus-node-exporter (started only
# by the end-to-end test, on 127.0.0.1), rst2man (python3-docutils, for the
# man page) and man-db (to render it), zsh (its completion is tested),
# systemd (systemd-analyze checks the export units),
# and dkms; and ruff, the linter of
# the tool's Python (not in Debian 12: from PyPI into a venv of the cache).
#
# Usage: setup.sh [--demo]
#   --demo  only what "make demo" needs on Debian's stock kernel: its headers
#           (which pull in the compiler), QEMU, busybox, cpio, perl
#           (kernel-doc runs in W=1 builds) and Python for the tool in the
#           guest. The kernel image (and the tests' extra modules:
#           targets.sh) is taken out of its package into the cache rather
#           than installed: installing it generates an
#           initramfs twice (most of a fresh demo's time) and adds a boot
#           entry to the machine, neither of which a guest needs.
set -euo pipefail
. "$(dirname "$0")/targets.sh"

demo_pkgs=(
	linux-headers-amd64
	qemu-system-x86 busybox-static cpio kmod zstd xz-utils make perl python3
)
demo=0
if [ "${1:-}" = --demo ]; then
	demo=1
	STAMP=/var/lib/kstats-setup-demo.v1
	pkgs=("${demo_pkgs[@]}")
else
	[ $# -eq 0 ] || { echo "usage: ${0##*/} [--demo]" >&2; exit 2; }
	STAMP=/var/lib/kstats-setup.v1
	pkgs=(
		"${demo_pkgs[@]}"
		linux-image-amd64
		linux-image-6.12-amd64 linux-headers-6.12-amd64
		build-essential bc bison flex libelf-dev libssl-dev
		sparse shellcheck gnuplot-nox dwarves
		debootstrap curl
		python3-pytest prometheus prometheus-node-exporter python3-docutils man-db zsh systemd dkms
		python3-venv
		qemu-system-arm gcc-12-aarch64-linux-gnu libc6-dev-arm64-cross
	)
fi

# Files and directories removed at exit.
cleanup=()
trap 'rm -rf "${cleanup[@]}"' EXIT

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

# The full set includes the demo's: a full setup serves the demo too.
if [ ${#missing[@]} -gt 0 ] ||
	{ [ ! -e "$STAMP" ] && [ ! -e /var/lib/kstats-setup.v1 ]; }; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# prometheus and its node exporter are here for the tests, which
	# start them by hand: where no policy-rc.d forbids it, their postinst
	# would start the daemons, so forbid it for this install (a leftover
	# of ours is recognised by its marker).
	policy=/usr/sbin/policy-rc.d
	if [ ! -e "$policy" ] || grep -q kstats-setup "$policy"; then
		printf '#!/bin/sh\n# kstats-setup: no service starts during setup\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		cleanup+=("$policy")
	fi
	# Always ask for the meta packages, so a newer 6.12 point release is
	# picked up whenever Debian publishes one.
	apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
	touch "$STAMP"
fi

# The stock targets' kernel images and extra modules (target_extra_dir).
# An installed image package has them in /boot and /lib/modules; else
# (the demo's) the package is downloaded by apt (its signature checked)
# and unpacked: /boot/vmlinuz-* and the extra modules only.
stock=(deb61)
[ $demo = 1 ] || stock+=(deb612)
for t in "${stock[@]}"; do
	rel=$(target_release "$t")
	vmlinuz=$(target_vmlinuz "$t")
	extra=$(target_extra_dir "$t")
	[ -r "$vmlinuz" ] && extra_modules_present "$extra" && continue
	if [ -r "/boot/vmlinuz-$rel" ]; then
		make_extra_modules "$extra" "/lib/modules/$rel" ||
			die "cannot take the extra modules out of /lib/modules/$rel"
		continue
	fi
	tmp=$(mktemp -d)
	cleanup+=("$tmp")
	# Package lists older than the installed headers: refresh once.
	fetch() {
		(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root \
			"linux-image-$rel" >/dev/null 2>&1)
	}
	fetch || { apt-get update -qq && fetch; } ||
		die "cannot download linux-image-$rel"
	deb=$(echo "$tmp"/linux-image-"$rel"_*.deb)
	mkdir -p "${vmlinuz%/*}"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xOf - "./boot/vmlinuz-$rel" >"$tmp/vmlinuz"
	[ -s "$tmp/vmlinuz" ] || die "no /boot/vmlinuz-$rel in linux-image-$rel"
	mv -f "$tmp/vmlinuz" "$vmlinuz"
	make_extra_modules "$extra" "$deb" ||
		die "cannot take the extra modules out of linux-image-$rel"
done

# ruff, pinned, in $KSTATS_RUFF's venv (check.sh runs it from there).
if [ $demo = 0 ] &&
	! "$KSTATS_RUFF" --version 2>/dev/null | grep -qx "ruff $KSTATS_RUFF_VERSION"; then
	venv=${KSTATS_RUFF%/bin/ruff}
	rm -rf "$venv"
	/usr/bin/python3 -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check "ruff==$KSTATS_RUFF_VERSION" ||
		die "cannot install ruff $KSTATS_RUFF_VERSION from PyPI into $venv"
fi
echo "setup: all packages present"
