#!/bin/bash
# Install, idempotently, everything the build, the guests and the tests need
# from Debian: kernel images and headers for the stock targets, QEMU,
# busybox, the 6.12 source for the debug kernel, the static checkers, and
# what the host tests of scripts/kstats use: pytest, gnuplot, promtool
# (from prometheus) and dkms.
set -euo pipefail

STAMP=/var/lib/kstats-setup.v1
pkgs=(
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	linux-source-6.12
	qemu-system-x86 busybox-static cpio kmod zstd xz-utils
	build-essential bc bison flex libelf-dev libssl-dev python3
	sparse shellcheck gnuplot-nox dwarves
	python3-pytest prometheus dkms
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ] || [ ! -e "$STAMP" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# prometheus is here for promtool only: where no policy-rc.d forbids
	# it, its postinst would start the daemon, so forbid it for this
	# install (a leftover of ours is recognised by its marker).
	policy=/usr/sbin/policy-rc.d
	if [ ! -e "$policy" ] || grep -q kstats-setup "$policy"; then
		printf '#!/bin/sh\n# kstats-setup: no service starts during setup\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		trap 'rm -f "$policy"' EXIT
	fi
	# Always ask for the meta packages, so a newer 6.12 point release is
	# picked up whenever Debian publishes one.
	apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
	touch "$STAMP"
fi
echo "setup: all packages present"
