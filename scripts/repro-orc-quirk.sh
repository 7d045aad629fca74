#!/bin/bash
# Reproduce, without kstats, the warning of the debug kernel's ORC
# unwinder that check-guest-log.sh lets pass as the kernel's own
# ("stack going in the wrong direction? at return_to_handler+0x46"):
# boots the debug kernel with no kstats module and runs
# tests/manual/00-orc-quirk.sh (function graph returns, and stack traces
# from timer interrupts). Not part of make check: it asserts a kernel bug.
# See Documentation/kstats.rst, "Safety".
#
# Usage: repro-orc-quirk.sh [OUTDIR]   (default build/orc-quirk)
set -euo pipefail
. "$(dirname "$0")/targets.sh"

out=$(realpath -m "${1:-$KSTATS_REPO/build/orc-quirk}")
rm -rf "$out"
mkdir -p "$out/modules"
"$KSTATS_SCRIPTS/build-debug-kernel.sh" >/dev/null
KSTATS_TESTS=00 "$KSTATS_SCRIPTS/mkinitramfs.sh" --tests "$KSTATS_REPO/tests/manual" \
	debug "$out/modules" "$out/initramfs.cpio.gz"
KSTATS_GUEST_TIMEOUT=1200 "$KSTATS_SCRIPTS/run-guest.sh" debug "$out/initramfs.cpio.gz" "$out/log"
sed -n '/^# BEGIN 00-orc-quirk.sh/,/^# END 00-orc-quirk.sh/p' "$out/log/results.tap"
! grep -q '^not ok' "$out/log/results.tap"
