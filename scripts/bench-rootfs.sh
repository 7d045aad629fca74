#!/bin/bash
# A Debian userspace with bpftrace and perf for the bench's bpftrace guest
# (scripts/bench.sh), built once by debootstrap and cached outside the
# checkout like the debug kernel: $KSTATS_CACHE/bench-rootfs/<suite>.
# Prints the directory. Takes a lock, so parallel runs wait for one build.
#
# Usage: bench-rootfs.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"

suite=${KSTATS_BENCH_SUITE:-bookworm}
mirror=${KSTATS_BENCH_MIRROR:-http://deb.debian.org/debian}
dir=$KSTATS_CACHE/bench-rootfs/$suite
mkdir -p "${dir%/*}"
exec 9>"$dir.lock"
flock 9
if [ ! -e "$dir/.complete" ]; then
	command -v debootstrap >/dev/null || {
		apt-get install -y debootstrap >&2 ||
			die "cannot install debootstrap"
	}
	rm -rf "$dir"
	echo "bench-rootfs: debootstrap $suite into $dir (once)" >&2
	# linux-perf: "perf ftrace latency"; busybox: the guest's init tools.
	debootstrap --variant=minbase \
		--include=bpftrace,linux-perf,busybox-static "$suite" "$dir" \
		"$mirror" >&2
	# Docs, man pages and locales are not needed in the guest's RAM.
	rm -rf "$dir"/usr/share/{doc,man,info,locale} "$dir"/var/cache/apt/archives/*.deb \
		"$dir"/var/lib/apt/lists/*
	touch "$dir/.complete"
fi
echo "$dir"
