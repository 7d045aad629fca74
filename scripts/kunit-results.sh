#!/bin/bash
# Turn the KTAP that KUnit printed in a guest's kernel log into one line per
# test case, "ok - suite.case" or "not ok - suite.case", using the kernel's
# own parser (tools/testing/kunit/kunit.py). A parameterised case counts
# once: it fails if any of its parameters fails, and is a skip if any is
# skipped (a parameter that did not run proved nothing). Fails when the
# log has no KUnit results at all.
#
# Usage: kunit-results.sh KERNEL_SRC LOG OUTPREFIX
#   writes OUTPREFIX.log (the KTAP part of LOG), OUTPREFIX.txt (the
#   parser's report) and OUTPREFIX.json
set -euo pipefail

[ $# -eq 3 ] || {
	echo "usage: ${0##*/} KERNEL_SRC LOG OUTPREFIX" >&2
	exit 2
}
src=$1 log=$2 out=$3

# The parser reads the first KTAP document only, and the kernel prints an
# empty one at boot ("1..0": no built-in suites). Keep the part of the log
# between the guest's markers around loading kstats_test.ko, if it has them.
if grep -q 'kstats-guest: loading .*kstats_test\.ko' "$log"; then
	sed -n '/kstats-guest: loading .*kstats_test\.ko/,/kstats-guest: kunit done/p' \
		"$log" >"$out.log"
else
	cp "$log" "$out.log"
fi

# kunit.py exits non-zero when a test failed; the JSON tells which.
python3 "$src/tools/testing/kunit/kunit.py" parse --json="$out.json" "$out.log" \
	>"$out.txt" 2>&1 || true
[ -s "$out.json" ] || {
	echo "${0##*/}: kunit.py wrote no results; see $out.txt" >&2
	exit 1
}

python3 - "$out.json" <<'PY'
import json
import sys

def leaves(group):
    for case in group.get("test_cases", []):
        yield case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub)

cases = []
for suite in json.load(open(sys.argv[1])).get("sub_groups", []):
    for case in suite.get("test_cases", []):
        cases.append((suite["name"], case["name"], [case["status"]]))
    # A case with parameters shows up as a group of its own.
    for case in suite.get("sub_groups", []):
        cases.append((suite["name"], case["name"], list(leaves(case))))
if not cases:
    print("# no KUnit test case found in the log", file=sys.stderr)
    sys.exit(1)
for suite, name, statuses in cases:
    good = statuses and all(s in ("PASS", "SKIP") for s in statuses)
    skip = " # SKIP" if "SKIP" in statuses else ""
    print(f"{'ok' if good else 'not ok'} - {suite}.{name}{skip}")
PY
