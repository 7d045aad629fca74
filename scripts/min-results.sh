#!/bin/bash
# Print tests/guest/min-results.conf from the logs of a full "make check"
# (BUILD: its build directory): per boot, each guest script's number of
# results (ok and not ok lines) and KUnit's, less a tenth, rounded down,
# for what a kernel's features or timing may change. check.sh fails a
# full run in which a script or KUnit printed fewer: the part that did
# not run. Run it again, and review the difference, when a suite changes.
#
# Usage: min-results.sh BUILD > tests/guest/min-results.conf
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: ${0##*/} BUILD" >&2
	exit 2
fi
echo "# BOOT SCRIPT MIN: written by scripts/min-results.sh from a full"
echo "# make check; read by check.sh (see there)."
for tap in "$1"/*/log/results.tap; do
	boot=$(basename "$(dirname "$(dirname "$tap")")")
	script_counts "$tap" | awk -v b="$boot" '{ print b, $1, int($2 * 0.9) }'
	kunit=$(dirname "$(dirname "$tap")")/kunit.tap
	if [ -s "$kunit" ]; then
		echo "$boot kunit $(($(grep -cE '^(not )?ok - ' "$kunit") * 9 / 10))"
	fi
done
