# shellcheck shell=bash
# Shared definitions for the kstats test scripts. Sourced, never run.

KSTATS_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
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

# Cache directory of the debug kernel: one per linux-source-6.12 version and
# config fragment, so a Debian point release or a config change rebuilds it.
debug_kernel_dir() {
	local ver sum
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
		die "linux-source-6.12 is not installed (run scripts/setup.sh)"
	sum=$(sha256sum "$KSTATS_SCRIPTS/debug-kernel.config" | cut -c1-12)
	echo "$KSTATS_CACHE/debug-kernel/${ver//[^A-Za-z0-9.+~-]/_}-$sum"
}
