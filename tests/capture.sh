#!/bin/bash
# Record capture directories in a QEMU guest: the raw sample lists of
# tests/fixtures/samples/ go through the test helper module, and the guest
# prints the kstats files, which land in OUTDIR/helper/ and
# OUTDIR/example/ (see tests/capture-guest.sh). The host tests
# (tests/host/) read them; tests/fixtures/ keeps one such run.
#
# Usage: tests/capture.sh [--modules KODIR] [TARGET] OUTDIR
#   without --modules: through scripts/demo.sh, which builds the modules
#     (KSTATS_BUILD/demo-TARGET); TARGET defaults to deb61
#   with --modules KODIR: boots modules already built for TARGET (check.sh)
# To refresh the fixtures: tests/capture.sh tests/fixtures
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
. "$repo/scripts/common.sh"

kodir=
if [ "${1:-}" = --modules ]; then
	kodir=$2
	shift 2
fi
case $# in
1) target=deb61 out=$1 ;;
2) target=$1 out=$2 ;;
*)
	echo "usage: ${0##*/} [--modules KODIR] [TARGET] OUTDIR" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The guest script, then its data: per entry, "CPU COUNT VALUE" lines.
script=$tmp/capture-demo.sh
{
	cat "$here/capture-guest.sh"
	echo '#@DATA'
	for f in "$here"/fixtures/samples/*.txt; do
		sed -n 's/^# entry /#@ENTRY /p' "$f"
		{ grep -v '^#' "$f" || true; } | sort -k1,1n -k2,2n | uniq -c |
			awk '{ print $2, $1, $3 }'
	done
} >"$script"

log=$tmp/results.tap
if [ -n "$kodir" ]; then
	"$repo/scripts/mkinitramfs.sh" --demo "$script" "$target" "$kodir" \
		"$tmp/initramfs.cpio.gz"
	KSTATS_GUEST_TIMEOUT=${KSTATS_GUEST_TIMEOUT:-600} \
		"$repo/scripts/run-guest.sh" "$target" "$tmp/initramfs.cpio.gz" \
		"$tmp/log" >&2
	cp "$tmp/log/results.tap" "$log"
else
	KSTATS_DEMO_SCRIPT=$script "$repo/scripts/demo.sh" "$target" >"$log"
fi

tr -d '\r' <"$log" | grep -q '^# CAPTURE DONE$' || {
	echo "${0##*/}: the guest did not finish the capture:" >&2
	grep '^# ' "$log" | tail -n 20 >&2
	exit 1
}

# Split the output into files; a whole directory is replaced at once.
mkdir -p "$out"
stage=$tmp/stage
tr -d '\r' <"$log" | awk -v dir="$stage" '
	/^# CAPTURE BEGIN / { f = dir "/" $4; d = f; sub(/\/[^\/]*$/, "", d)
		system("mkdir -p \"" d "\""); printf "" > f; next }
	/^# CAPTURE END / { close(f); f = ""; next }
	f != "" { print >> f }'
for d in "$stage"/*; do
	rm -rf "${out:?}/${d##*/}"
	cp -r "$d" "$out/"
	echo "capture: $out/${d##*/}: $(cd "$d" && echo *)"
done
