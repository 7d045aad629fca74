#!/bin/sh
# Which mechanism each kind of trace gets on this kernel, against lib.sh's
# MECH_TABLE: a mechanism that silently falls back to another fails here.
# Only vmlinux's functions and tracepoints, so nothing depends on the
# helper module's BTF.
. /tests/lib.sh
load_modules

row=$(mech_row)
echo "# kernel $(uname -r) ($KVER): ${row:-no row in MECH_TABLE}"
plan 1
check "MECH_TABLE has a row for kernel $KVER" test -n "$row"
[ -n "$row" ] || exit 0
# trace and pcpu:, and "nothing left"; each mechanism below as it serves.
plan 7
# shellcheck disable=SC2086
set -- $row
DEFAULT=$2 PCPU=$3

# hits NAME: reads through vfs_read, then whether NAME counted any.
hits() {
	cat /proc/version /proc/cmdline >/dev/null
	[ "$(samples "$1")" -gt 0 ]
}

is "$(ctl trace vfs_read)" OK "trace vfs_read"
is "$(field vfs_read mechanism)" "$DEFAULT" "trace vfs_read gets $DEFAULT"
check "and counts" hits vfs_read
ctl remove vfs_read >/dev/null
is "$(ctl trace pcpu:vfs_read as mpcpu)" OK "trace pcpu:vfs_read"
is "$(field mpcpu mechanism)" "$PCPU" "trace pcpu:vfs_read gets $PCPU"
check "and counts" hits mpcpu
ctl remove mpcpu >/dev/null

for m in direct fprobe kretprobe; do
	if kernel_has $m; then
		plan 3
		is "$(ctl trace vfs_read via $m as m$m)" OK "via $m serves"
		is "$(field m$m mechanism)" $m "via $m gets $m"
		check "via $m counts" hits m$m
		ctl remove m$m >/dev/null
	else
		plan 1
		is "$(ctl trace vfs_read via $m as m$m)" "Operation not supported" \
			"via $m: EOPNOTSUPP"
	fi
done

# A kprobe pair: past the patched entry (lib.sh's KP_OFFSETS).
if kernel_has kprobe-pair; then
	plan 3
	for o in $KP_OFFSETS; do
		r=$(ctl trace mkp start ksys_read+$o end vfs_read+$o)
		[ "$r" = OK ] && break
	done
	is "$r" OK "a kprobe pair serves"
	is "$(field mkp hooks)" kprobe,kprobe "the pair hooks kprobes"
	check "the pair counts" hits mkp
	ctl remove mkp >/dev/null
fi
if kernel_has tracepoint-pair; then
	plan 3
	is "$(ctl trace mtp start __tracepoint_sys_enter end __tracepoint_sys_exit key task)" \
		OK "a tracepoint pair serves"
	is "$(field mtp hooks)" tracepoint,tracepoint "the pair hooks tracepoints"
	check "the pair counts" hits mtp
	ctl remove mtp >/dev/null
fi
if kernel_has gap; then
	plan 3
	is "$(ctl trace mgap gap vfs_read)" OK "a gap serves"
	is "$(field mgap hooks)" ftrace "the gap hooks ftrace"
	check "the gap counts" hits mgap
	ctl remove mgap >/dev/null
fi
is "$(cat "$KS/_control")" "" "nothing left"
