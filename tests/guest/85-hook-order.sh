#!/bin/sh
# kstats' own code is refused before anything is hooked: no ftrace
# callback, fprobe or direct call is ever registered on it, not even for
# the moment between attach and the check (seen in ftrace's
# touched_functions, 6.12 on: every function that ever had a callback).
# timeout: 120
. /tests/lib.sh
load_modules

TF=/sys/kernel/debug/tracing/touched_functions
EINVAL="Invalid argument"
# Traceable functions of kstats.ko that its handlers never call.
F=kstats_parse
G=kstats_probe_show

refused() {
	log_mark
	is "$(ctl "$1")" "$EINVAL" "$1: EINVAL"
	is "$(log_new | grep -c "refused: .*part of kstats itself")" 1 "$1: reason logged"
}
refused "trace kg gap $F"
refused "trace kp start $F end $G"
refused "trace kq start $G end vfs_read"
refused "trace $F via fprobe as kf"
refused "trace $F via direct as kd"
refused "trace $F as kt"
is "$(grep -cE '^name k[gpqfdt] ' "$KS/_control")" 0 "no entry left"

if [ -r $TF ]; then
	is "$(grep -cwE "$F|$G" $TF)" 0 "neither $F nor $G was ever hooked by ftrace"
else
	echo "# no $TF on this kernel"
fi
