#!/bin/sh
# kstats calibrate and kstats show --subtract-bias on the live files
# (issue 9 section 2, the tool).
# timeout: 900
. /tests/lib.sh
plan 16
load_modules

FN=kstats_helper_work
K=100

is "$(write_err "$KS/_control" calibrate)" OK "echo calibrate > _control"

out=$(kstats calibrate --unit ns 2>/tmp/cal.err)
is "$?" 0 "kstats calibrate exits 0"
is "$(cat /tmp/cal.err)" "kstats: calibrating every mechanism of this kernel (a few seconds)" \
	"it says it calibrates"
echo "$out" | sed 's/^/#   /'
is "$(echo "$out" | head -n 1 | tr -s ' ')" "mechanism bias p50 bias p99 cost samples" \
	"the table's header"
# Each row is its _control line, in ns.
want=$(sed -n 's/^calibration mechanism \([^ ]*\) bias_ns \([0-9]*\) bias_p99_ns \([0-9]*\) cost_ns \([0-9]*\) samples \([0-9]*\)$/\1 \2ns \3ns \4ns \5/p' \
	"$KS/_control")
is "$(echo "$out" | sed -n '2,$p' | grep -v '^bias:' | tr -s ' ')" "$want" \
	"one row per calibration line of _control, the same numbers"
for m in clock manual; do
	check "the table has mechanism $m" sh -c "echo '$want' | grep -q '^$m '"
done
is "$(kstats calibrate --no-run --unit ns)" "$out" "kstats calibrate --no-run prints the same"

# A traced entry carries its mechanism's bias; --subtract-bias shifts by it.
# (An entry of the same name that an earlier script left goes first.)
kstats remove $FN >/dev/null 2>&1
kstats trace $FN bits 4 >/dev/null
helper work $K 2000 >/dev/null
line=$(grep "^name $FN " "$KS/_control")
echo "# $line"
b=$(echo "$line" | sed -n 's/.* bias_ns \([0-9-]*\) .*/\1/p')
q=$(echo "$line" | sed -n 's/.* bias_p99_ns \([0-9-]*\) .*/\1/p')
mech=$(echo "$line" | sed -n 's/.* mechanism \([^ ]*\) .*/\1/p')
check "the entry's bias_ns is a number ($b)" sh -c "[ '$b' -ge 0 ] 2>/dev/null"
is "$b" "$(echo "$want" | awk -v m="$mech" '$1 == m { sub("ns", "", $2); print $2 }')" \
	"bias_ns of the entry is its mechanism's ($mech)"
out=$(kstats show $FN --subtract-bias --unit ns)
is "$(echo "$out" | grep '^bias subtracted')" \
	"bias subtracted: values shifted down by ${b}ns (bias_ns of $mech: the p50 of an empty call; clamped at 0), bounds widened by the bias spread $((q - b))ns (bias_p99_ns $q - bias_ns $b)" \
	"kstats show --subtract-bias says what it did"
is "$(kstats show $FN --json >/tmp/a.json; kstats show $FN --json --subtract-bias >/tmp/b.json
python3 -c "import json
a, b = json.load(open('/tmp/a.json')), json.load(open('/tmp/b.json'))
print(b['count'] == a['count'] == $K,
      b['percentiles']['p50']['value'] == max(a['percentiles']['p50']['value'] - $b, 0),
      b['percentiles']['p50']['bound'] == a['percentiles']['p50']['bound'] + $q - $b)")" \
	"True True True" "--subtract-bias: p50 down by bias_ns, bound up by the spread"

# A saved capture keeps the calibration: the same result there.
kstats save --all /tmp/calcap >/dev/null
is "$(kstats --dir /tmp/calcap show $FN --subtract-bias --unit ns | grep -v "^$FN ")" \
	"$(echo "$out" | grep -v "^$FN ")" "--subtract-bias on a saved capture"
err=$(kstats --dir /tmp/calcap calibrate 2>&1)
is "$?" 1 "kstats calibrate refuses a saved capture"

# A kernel entry has no probe bias.
helper new k71 4 >/dev/null
err=$(kstats show k71 --subtract-bias 2>&1)
is "$?:$err" "1:kstats: error: k71 is a kernel entry (a kstats_record() hook, no probe): it has no probe bias to subtract" \
	"--subtract-bias on a kernel entry: exit 1, one line"
is "$(helper delete k71)" OK "delete k71"
kstats remove $FN >/dev/null
