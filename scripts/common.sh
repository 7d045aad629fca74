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
