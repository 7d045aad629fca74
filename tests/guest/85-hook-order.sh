#!/bin/sh
# kstats' own code is refused before anything is hooked: no ftrace
# callback, fprobe or direct call is ever registered on it, not even for
# the moment between attach and the check (seen in ftrace's
# touched_functions, 6.12 on: every function that ever had a callback).
# The trampolines' module, kstats_tramp, is refused the same way.
# timeout: 120
. /tests/lib.sh
# Six refusals of two results, "no entry left", and the branches below.
plan 13
load_modules

TF=/sys/kernel/debug/tracing/touched_functions
EINVAL="Invalid argument"
# Traceable functions of kstats.ko that its handlers never call.
F=kstats_parse
G=kstats_probe_show

# refused CMD [REASON]: EINVAL, and REASON in one log line.
refused() {
	log_mark
	is "$(ctl "$1")" "$EINVAL" "$1: EINVAL"
	is "$(log_new | grep -c "refused: .*${2:-part of kstats itself}")" 1 "$1: reason logged"
}
refused "trace kg gap $F"
refused "trace kp start $F end $G"
refused "trace kq start $G end vfs_read"
refused "trace $F via fprobe as kf"
refused "trace $F via direct as kd"
refused "trace $F as kt"
# The trampolines' module calls kstats' hooks on every direct call: a
# probe on its text would recurse as one on kstats.ko's would.
T=kstats_direct_tramp_0
if grep -q "^kstats_tramp " /proc/modules; then
	plan 6
	why="part of kstats itself (kstats_tramp, its trampolines)"
	refused "trace $T via kretprobe as kr" "$why"
	refused "trace kx start $T end vfs_read" "$why"
	refused "trace kz gap $T" "$why"
else
	plan 1
	not_ok "kstats_tramp is loaded (kstats.ko needs it)"
fi
is "$(grep -cE '^name k[gpqfdtrxz] ' "$KS/_control")" 0 "no entry left"

if [ -r $TF ]; then
	plan 1
	is "$(grep -cwE "$F|$G" $TF)" 0 "neither $F nor $G was ever hooked by ftrace"
else
	echo "# no $TF on this kernel"
fi
