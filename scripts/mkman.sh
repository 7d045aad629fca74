#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kstats(1) on standard output, from the tool's manual
# (Documentation/kstats-tool.rst) through rst2man (Debian: python3-docutils):
# the NAME line below, then the manual after its title and table of
# contents, whose sections are the page's: SYNOPSIS, DESCRIPTION,
# COMMANDS, OPTIONS, ..., EXIT STATUS, SEE ALSO.
set -eu
rst=${1:-$(dirname "$0")/../Documentation/kstats-tool.rst}
version=$(sed -n "s/^VERSION = '\(.*\)'/\1/p" "$(dirname "$0")/../tool/kstats/__init__.py")
# rst2man: $RST2MAN, else rst2man or rst2man.py (docutils from pip) in PATH.
# "mkman.sh --which" prints it, or fails silently where there is none
# (make install-tool then installs no man page, with a warning).
rst2man=${RST2MAN:-}
if [ -z "$rst2man" ]; then
	rst2man=$(command -v rst2man || command -v rst2man.py) || rst2man=
fi
if [ "${1:-}" = --which ]; then
	[ -n "$rst2man" ] && command -v "$rst2man"
	exit
fi
if [ -z "$rst2man" ] || ! command -v "$rst2man" >/dev/null; then
	echo "mkman.sh: rst2man not found (Debian: apt-get install python3-docutils)" >&2
	exit 1
fi
{
	cat <<EOF2
======
kstats
======

---------------------------------------------------------------------
summarise, watch, plot, compare and export kstats latency histograms
---------------------------------------------------------------------

:Manual section: 1
:Manual group: kstats
:Version: $version

EOF2
	# Everything after the title, without the table of contents.
	awk '/^\.\. contents::/ { skip = 1; next }
	     skip && /^   :/ { next }
	     { skip = 0 }
	     !body && /^=+$/ { bar++; if (bar == 2) body = 1; next }
	     body { print }' "$rst" | sed '1{/^$/d}'
} | "$rst2man" --halt=warning
