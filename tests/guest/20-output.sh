#!/bin/sh
# Exact output lines, per-CPU splitting, the CDF, and a large output.
. /tests/lib.sh
plan 23
load_modules

is "$(helper new out3 3)" OK "new entry with 3 bits"
check "entry file appears" test -f "$KS/out3"
is "$(cat "$KS/out3")" "" "new entry reads empty"

helper_on 0 record out3 5 3
helper_on 0 record out3 100 1
helper_on 1 record out3 1000 2
want="slot 5   CPU  0    count        3 avg        5 p 0.750000
slot 5   CPUS 2    count        3 avg        5 p 0.500000
slot 36  CPU  0    count        1 avg      100 p 1.000000
slot 36  CPUS 2    count        1 avg      100 p 0.666666
slot 63  CPU  1    count        2 avg     1000 p 1.000000
slot 63  CPUS 2    count        2 avg     1000 p 1.000000"
is "$(cat "$KS/out3")" "$want" "exact lines for 5x3, 100x1 on CPU 0 and 1000x2 on CPU 1"
is "$(grep CPUS "$KS/out3" | awk '{print $8, $6}')" "5 3
100 1
1000 2" "gnuplot columns 8:6 give avg and count"

# Per-CPU splitting: each CPU's lines only hold what was recorded there.
helper new split 0 >/dev/null
helper_on 0 record split 7 10
helper_on 1 record split 7 30
helper_on 1 record split 64 5
is "$(grep 'CPU  0 ' "$KS/split" | awk '{print $2, $6}')" "3 10" "CPU 0 holds only its samples"
is "$(grep 'CPU  1 ' "$KS/split" | awk '{print $2, $6}')" "3 30
7 5" "CPU 1 holds only its samples"
is "$(grep CPUS "$KS/split" | awk '{print $2, $6, $8, $10}')" "3 40 7 0.888888
7 5 64 1.000000" "totals add the CPUs up, with the CDF"

# The CDF: monotone, ends at exactly 1 on every CPU and on the totals.
helper new cdf 2 >/dev/null
for v in 1 2 3 5 8 13 21 34 55 89 144 233 377 610 987 1597; do
	helper_on $((v % 2)) record cdf $v $v
done
for sel in 'CPU  0 ' 'CPU  1 ' 'CPUS'; do
	ps=$(grep "$sel" "$KS/cdf" | awk '{print $10}')
	is "$(echo "$ps" | sort -n | uniq | tr '\n' ' ')" \
	   "$(echo "$ps" | uniq | tr '\n' ' ')" "CDF increases along '$sel'"
	is "$(echo "$ps" | tail -n 1)" "1.000000" "CDF of '$sel' ends at 1.000000"
done
is "$(grep CPUS "$KS/cdf" | awk '{s += $6} END {print s}')" 4179 "total count is exact"
is "$(grep -v CPUS "$KS/cdf" | awk '{s += $6} END {print s}')" 4179 "per-CPU counts add up"

# Large output: every slot of a 5-bit entry on both CPUs, and U64_MAX.
helper new big 5 >/dev/null
vals=$(v=0; while [ $v -lt 64 ]; do echo $v; v=$((v + 1)); done
       k=1; while [ $k -le 57 ]; do j=0; while [ $j -lt 32 ]; do
		echo $(((32 + j) << k)); j=$((j + 1)); done; k=$((k + 1)); done
       echo 18446744073709551615)
for cpu in 0 1; do
	taskset -c $cpu sh -c "for v in \$0; do printf 'record big %s 1' \$v > $HELPER; done" "$(echo $vals)"
done
is "$(wc -l < "$KS/big")" 5667 "1889 slots x 3 lines read completely"
is "$(grep -c CPUS "$KS/big")" 1889 "one totals line per slot"
is "$(tail -n 1 "$KS/big")" \
   "slot 1919 CPUS 2    count        2 avg 18446743798831644672 p 1.000000" \
   "U64_MAX lands in the last slot, mean within 2^-20"
is "$(awk '{print $2}' "$KS/big" | uniq | sort -n -c 2>&1)" "" "slots ascend"
# Reading in small pieces gives the same bytes as one big read: 7 bytes
# at a time through the first 350 lines or so (all of it would take 43,000
# reads: half a minute on the debug kernel), 1021 through all of it.
is "$(dd if="$KS/big" bs=7 count=3000 2>/dev/null | md5sum)" "$(head -c 21000 "$KS/big" | md5sum)" \
	"7-byte reads match (21000 bytes)"
is "$(dd if="$KS/big" bs=1021 2>/dev/null | md5sum)" "$(cat "$KS/big" | md5sum)" "1021-byte reads match"

for e in out3 split cdf big; do helper delete $e >/dev/null; done
is "$(ls "$KS" | tr '\n' ' ')" "_control _keys _outliers " "deleted entries are gone"
