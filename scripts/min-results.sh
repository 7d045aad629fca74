#!/bin/bash
# Print tests/guest/min-results.conf from the logs of a full "make check"
# (BUILD: its build directory): per boot, the number of results (ok and
# not ok lines) of each guest script that has no plan yet (lib.sh's
# plan), less a tenth, rounded down, for what a kernel's features or
# timing may change. check.sh fails a full run in which such a script
# printed fewer: the part that did not run. The scripts with a plan are
# checked against it instead, exactly.
#
# Usage: min-results.sh BUILD > tests/guest/min-results.conf
set -euo pipefail
. "$(dirname "$0")/common.sh"

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: ${0##*/} BUILD" >&2
	exit 2
fi
echo "# BOOT SCRIPT MIN: the floor of each guest script without a plan;"
echo "# written by scripts/min-results.sh from a full make check, read by"
echo "# check.sh (see there)."
for tap in "$1"/*/log/results.tap; do
	boot=$(basename "$(dirname "$(dirname "$tap")")")
	script_counts "$tap" | awk -v b="$boot" '$3 == "none" { print b, $1, int($2 * 0.9) }'
done
