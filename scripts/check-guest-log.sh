#!/bin/bash
# Fail if a guest's kernel log shows a warning, a sanitizer or lockdep
# report, an oops, or a leak. Looks at LOGDIR/console.log (everything the
# kernel printed to the console) and at the dmesg dump the guest printed
# at the end of LOGDIR/results.tap (which also has the messages below the
# console log level); the dump is saved as LOGDIR/dmesg.log.
#
# Usage: check-guest-log.sh LOGDIR
set -euo pipefail

[ $# -eq 1 ] || {
	echo "usage: ${0##*/} LOGDIR" >&2
	exit 2
}
logdir=$1

# The one list of what must never appear in a guest's kernel log (fixed,
# case-sensitive strings).
PATTERNS='WARNING:
BUG:
BUG kmalloc
KASAN
UBSAN
Oops
Kernel panic
general protection fault
possible circular locking
possible recursive locking
inconsistent lock state
suspicious RCU usage
INFO: lockdep
DEBUG_LOCKS_WARN_ON
sleeping function called from invalid context
scheduling while atomic
unreferenced object
Call Trace:'

if [ -e "$logdir/results.tap" ]; then
	sed -n '/^# DMESG BEGIN$/,/^# DMESG END$/{//!p}' "$logdir/results.tap" \
		>"$logdir/dmesg.log"
fi

files=()
for f in "$logdir/console.log" "$logdir/dmesg.log"; do
	[ -s "$f" ] && files+=("$f")
done
[ ${#files[@]} -gt 0 ] || {
	echo "${0##*/}: no kernel log in $logdir" >&2
	exit 1
}

if hits=$(grep -nHF -e "$PATTERNS" "${files[@]}"); then
	echo "${0##*/}: kernel log of $logdir has $(wc -l <<<"$hits") bad line(s):" >&2
	# The first lines of a report are the telling ones; the logs have all.
	head -n 40 <<<"$hits" | sed 's/^/  /' >&2
	# The command that caused the first report: the last mark that the
	# guest init ("kstats-guest:") or a test ("kstats-sweep:", one per
	# command) wrote into the kernel log before it.
	for f in "${files[@]}"; do
		first=$(grep -naF -e "$PATTERNS" "$f" | head -n 1 | cut -d: -f1)
		[ -n "$first" ] || continue
		last=$(head -n "$first" "$f" | tr -d '\r' | grep -a 'kstats-[a-z]*: ' |
			tail -n 1) || true
		echo "  first report in ${f##*/} came after: ${last:-no mark}" >&2
	done
	exit 1
fi
