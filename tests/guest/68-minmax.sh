#!/bin/sh
# Exact min and max: every entry keeps its smallest and largest sample per
# CPU; _control lists them over all CPUs once there is a sample.
. /tests/lib.sh
plan 18
load_modules

U64_MAX=18446744073709551615

helper new mm 4 >/dev/null
is "$(line mm)" "name mm origin kernel bits 4 state running" "no sample: no min or max"
helper record mm 7 3 >/dev/null
helper record mm 1000 1 >/dev/null
is "$(line mm)" "name mm origin kernel bits 4 state running min 7 max 1000" "min 7 max 1000"
helper record mm 0 2 >/dev/null
is "$(field mm min) $(field mm max)" "0 1000" "a sample of 0 is the min"
# Over all CPUs: the largest sample on the other CPU is the max.
helper_on 0 record mm 5000 1
helper_on 1 record mm 3000 1
is "$(field mm min) $(field mm max)" "0 5000" "min and max over both CPUs"
helper record mm $U64_MAX 1 >/dev/null
is "$(field mm max)" $U64_MAX "U64_MAX is the max"
# Samples of a stopped entry are not counted, nor are they extremes.
helper stop mm >/dev/null
helper record mm 9999999999999999999 1 >/dev/null
helper start mm >/dev/null
is "$(field mm max)" $U64_MAX "stopped: no new extremes"
is "$(write_err "$KS/mm" reset)" OK "reset"
is "$(line mm)" "name mm origin kernel bits 4 state running" "reset clears min and max"
helper_on 1 record mm 42 1
is "$(line mm)" "name mm origin kernel bits 4 state running min 42 max 42" "min and max after reset"
helper delete mm >/dev/null

# A value entry: the extremes of known arguments.
V=kstats_helper_value
is "$(ctl trace $V value arg2 type s64 as mmv)" OK "value arg2 entry"
is "$(field mmv min)" "" "value entry without samples: no min"
helper value 9 3 >/dev/null
helper value 3 1 >/dev/null
helper value 1234567 2 >/dev/null
is "$(field mmv min) $(field mmv max)" "3 1234567" "value arg2: min 3 max 1234567"
is "$(line mmv | awk '{ print $(NF - 3), $(NF - 2), $(NF - 1), $NF }')" "min 3 max 1234567" \
	"min and max end the _control line"
is "$(ctl remove mmv)" OK "remove mmv"

# A runtime: each call busy-waits at least D ns, so every sample is.
D=20000
FN=kstats_helper_work
is "$(ctl trace $FN as mmt)" OK "trace $FN"
helper work 50 $D >/dev/null
lo=$(field mmt min)
hi=$(field mmt max)
check "runtime: $D <= min ($lo) <= max ($hi)" test "$lo" -ge $D -a "$hi" -ge "$lo"
# The extremes lie in the first and last slots with samples.
first=$(grep CPUS "$KS/mmt" | head -n 1 | awk '{ print $2 }')
last=$(grep CPUS "$KS/mmt" | tail -n 1 | awk '{ print $2 }')
# slot_of V: the slot of V at bits 4 (see "Slots" in Documentation/kstats.rst)
# (busybox awk has no ^: powers of two by doubling)
slot_of() { awk -v v="$1" 'BEGIN { if (v < 32) { print v; exit } b = 1; p = 32;
	while (v >= 2 * p) { p *= 2; b++ } print (b + 1) * 16 + int(v * 16 / p) % 16 }'; }
is "$(slot_of "$lo") $(slot_of "$hi")" "$first $last" "min and max lie in the first and last slots"
is "$(ctl remove mmt)" OK "remove mmt"
