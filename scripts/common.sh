# shellcheck shell=bash
# Shared definitions for the kstats test scripts. Sourced, never run.

KSTATS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034
KSTATS_SCRIPTS=$KSTATS_REPO/scripts
# Kernel builds and extracted images live outside the checkout, so that a
# fresh clone (CI) reuses them and "git clean" does not throw them away.
KSTATS_CACHE=${KSTATS_CACHE:-/var/cache/kstats}
# The Python linter of the tool, pinned: setup.sh installs it, check.sh
# runs it.
# shellcheck disable=SC2034
KSTATS_RUFF_VERSION=0.17.5 KSTATS_RUFF=$KSTATS_CACHE/ruff/bin/ruff

die() {
	echo "${0##*/}: error: $*" >&2
	exit 1
}

# Per guest script of a results file: "NAME N PLAN", N its TAP lines (ok
# or not ok), PLAN the N of its plan line "1..N" (lib.sh's plan), "none"
# or "many". A script that printed none proved nothing. (KUnit's block has
# none: its results are in the kernel log, read by kunit-results.sh.)
script_counts() {
	tr -d '\r' <"$1" | awk '
		/^# DMESG BEGIN$/ { dmesg = 1 }
		dmesg { next }
		/^# BEGIN kunit$/ { s = ""; next }
		/^# BEGIN / { s = $3; n[s] = 0; p[s] = "none"; order[++k] = s; next }
		/^# END / { s = ""; next }
		s != "" && /^(not )?ok( |$)/ { n[s]++ }
		s != "" && /^1\.\.[0-9]+$/ { p[s] = (p[s] == "none") ? substr($0, 4) : "many" }
		END { for (i = 1; i <= k; i++) print order[i], n[order[i]], p[order[i]] }'
}
