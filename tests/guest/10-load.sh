#!/bin/sh
# Loading kstats creates the debugfs directory and an empty _control.
. /tests/lib.sh
plan 8

check "kstats.ko loads" insmod "$MODDIR/kstats.ko"
check "debugfs directory exists" test -d "$KS"
check "_control exists" test -f "$KS/_control"
is "$(cat /sys/module/kstats/parameters/log_burst)" 10 "refusals logged per 5 s: 10 by default"
is "$(cat "$KS/_control")" "" "_control is empty without entries"
is "$(ls "$KS" | tr '\n' ' ')" "_control _keys _outliers " "no other files than _control and the _keys and _outliers directories"
is "$(cat /sys/devices/system/cpu/possible)" "0-1" "guest has two possible CPUs"
check "helper module loads" load_modules
