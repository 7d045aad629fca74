#!/bin/sh
# start/stop/reset through the file and the API, _control, permissions.
. /tests/lib.sh
plan 21
load_modules

# What an entry takes of max_memory: its slots ((65 - bits) << bits of 16
# bytes) and extremes (16 bytes) on every possible CPU.
NCPU=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
M4=$((NCPU * (976 * 16 + 16)))
M0=$((NCPU * (65 * 16 + 16)))
helper new ctl 4 >/dev/null
is "$(cat "$KS/_control")" "name ctl origin kernel bits 4 state running memory $M4" "_control lists a running entry"
helper record ctl 10 4 >/dev/null
is "$(write_err "$KS/ctl" "stop")" OK "stop is accepted"
is "$(grep ctl "$KS/_control")" "name ctl origin kernel bits 4 state stopped min 10 max 10 memory $M4" "_control shows stopped"
helper record ctl 10 4 >/dev/null
is "$(grep CPUS "$KS/ctl" | awk '{print $6}')" 4 "stopped entry ignores samples"
is "$(cat "$KS/ctl" | wc -l)" "$(grep -c . "$KS/ctl")" "stopped entry keeps its counters readable"
is "$(write_err "$KS/ctl" "START
")" OK "START with newline is accepted"
helper record ctl 10 4 >/dev/null
is "$(grep CPUS "$KS/ctl" | awk '{print $6}')" 8 "started entry counts again"
is "$(write_err "$KS/ctl" "Reset")" OK "Reset is accepted"
is "$(cat "$KS/ctl")" "" "reset empties the entry"
is "$(grep ctl "$KS/_control")" "name ctl origin kernel bits 4 state running memory $M4" "reset keeps it running"
helper record ctl 12 1 >/dev/null
is "$(grep CPUS "$KS/ctl" | awk '{print $6, $8}')" "1 12" "entry works after reset"

# Same through the kernel API.
helper stop ctl >/dev/null
is "$(grep ctl "$KS/_control" | awk '{print $8}')" stopped "kstats_stop()"
helper record ctl 12 1 >/dev/null
helper start ctl >/dev/null
is "$(grep ctl "$KS/_control" | awk '{print $8}')" running "kstats_start()"
is "$(grep CPUS "$KS/ctl" | awk '{print $6}')" 1 "nothing counted while stopped"
helper reset ctl >/dev/null
is "$(cat "$KS/ctl")" "" "kstats_reset()"

helper new ctl2 0 >/dev/null
is "$(cat "$KS/_control")" "name ctl origin kernel bits 4 state running memory $M4
name ctl2 origin kernel bits 0 state running memory $M0" "_control lists entries in creation order"

# Only root may write; anyone who can reach debugfs may read.
is "$(stat -c '%a %u' "$KS/ctl")" "444 0" "entry file mode (0444: readable under lockdown)"
is "$(stat -c '%a %u' "$KS/_control")" "444 0" "_control mode (0444; root writes commands)"
mount -o remount,mode=755 /sys/kernel/debug
helper record ctl 3 2 >/dev/null
is "$(as_user "echo reset > $KS/ctl" 2>&1 | sed 's/.*: //')" \
   "Permission denied" "non-root cannot write"
is "$(as_user "grep CPUS $KS/ctl" | awk '{print $6}')" 2 \
   "non-root can read, and the failed write reset nothing"
mount -o remount,mode=700 /sys/kernel/debug

helper delete ctl >/dev/null
helper delete ctl2 >/dev/null
is "$(cat "$KS/_control")" "" "_control empty again"
