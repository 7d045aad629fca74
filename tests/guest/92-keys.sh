#!/bin/sh
# Per-key histograms, "trace ... by comm|pid|tid|cpu|cgroup [keys N]":
# exact counts per key from the helper's value function, called by
# processes of known names, pids and CPUs, through every mechanism; the
# merged file unchanged; _keys/NAME in the entry file's line format;
# keys N and "other"; reset, stop and remove; bad input refused with the
# entries left as they were.
# timeout: 400
. /tests/lib.sh
# And the branches below; logs counts its own.
plan 95
load_modules

V=kstats_helper_value
IV=kstats_helper_ivalue
WORK=kstats_helper_work
MS=kstats_helper_mark_start
ME=kstats_helper_mark_end
EINVAL="Invalid argument"
ENOTSUP="Operation not supported"
K=$KS/_keys

# kslots NAME KEY: "SLOT:COUNT" of KEY's aggregate lines
kslots() {
	grep "^key $2 slot .* CPUS " "$K/$1" | awk '{ printf "%s%s:%s", s, $4, $8; s = " " }'
}
# run CPU COMM N VALUE: a process named COMM calls value VALUE N times on
# CPU; its pid goes into /tmp/kst92.COMM.
run() {
	taskset -c "$1" sh -c "echo \$\$ > '/tmp/kst92.$2'; echo -n '$2' > /proc/self/comm;
		echo -n 'value $4 $3' > $HELPER"
}

W=
kernel_has fprobe && W=fprobe
ctl trace $V as kplain > /dev/null
M=$(field kplain mechanism)
ctl remove kplain > /dev/null
is "$(ctl trace $V by comm as kcomm)" OK "by comm (the default mechanism)"
is "$(ctl trace $V by comm via kretprobe as kcommk)" OK "by comm via kretprobe"
if [ -n "$W" ]; then
	plan 1
	is "$(ctl trace $V by comm via fprobe as kcommf)" OK "by comm via fprobe"
fi
is "$(ctl trace $V by pid as kpid)" OK "by pid"
is "$(ctl trace $V by tid as ktid)" OK "by tid"
is "$(ctl trace $V by cpu as kcpu)" OK "by cpu"
is "$(ctl trace pcpu:$V by tid as kpcpu)" OK "pcpu: by tid"
is "$(ctl trace $V value arg2 type s64 by cpu as kval)" OK "value arg2 by cpu"
is "$(ctl trace $V value arg2 type s64 as ktwin)" OK "the same without keys"
is "$(ctl trace $V BY COMM KEYS 2 as kfew)" OK "keys 2 (keywords in any case)"
is "$(ctl trace kpair start __tracepoint_kstats_helper_start end __tracepoint_kstats_helper_end key task by comm)" OK \
	"a tracepoint pair, key task, by comm"
# by retval: the return value of its BTF type (an int's upper register
# bits are undefined), or of the type given where there is no BTF.
if [ -e /sys/kernel/btf/kstats_helper ]; then
	plan 2
	is "$(ctl trace $V by retval as kret)" OK "by retval (a long, from BTF)"
	is "$(ctl trace $IV by retval via kretprobe as kiret)" OK "by retval via kretprobe (an int)"
	BTF=1
else
	plan 4
	log_mark
	is "$(ctl trace $V by retval as kret)" "$EINVAL" "by retval without BTF or type: EINVAL"
	is "$(log_new | grep -c "refused: $V has no BTF .*type u8 to s64")" 1 "no BTF: reason logged"
	is "$(ctl trace $V by retval type s64 as kret)" OK "by retval type s64"
	is "$(ctl trace $IV by retval type s32 via kretprobe as kiret)" OK "by retval type s32 via kretprobe"
	BTF=
fi
is "$(ctl trace pcpu:$IV by retval type s32 as kipcpu)" OK "pcpu: by retval type s32"
is "$(ctl trace $IV value retval type s32 by retval as kivr)" OK "value retval by retval"
is "$(field kret by) $(field kiret mechanism)" "retval kretprobe" "listed by retval; via kretprobe"
CG=
if grep -q cgroup2 /proc/filesystems; then
	CG=/sys/fs/cgroup
	grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG
	mkdir -p $CG/kst92
	plan 1
	is "$(ctl trace $V by cgroup as kcg)" OK "by cgroup"
else
	plan 2
	log_mark
	is "$(ctl trace $V by cgroup as kcg)" "$ENOTSUP" "by cgroup without cgroups: EOPNOTSUPP"
	is "$(log_new | grep -c "refused: by cgroup: this kernel has no cgroups")" 1 \
		"by cgroup without cgroups: reason logged"
fi

is "$(field kcomm mechanism)" "$M" "by comm: mechanism $M, as without keys"
is "$(field kcomm by) $(field kcomm keys) $(field kcomm keys_max) $(field kcomm keys_dropped)" \
	"comm 0 32 0" "listed: by comm, no key yet, keys_max 32 (the default), none dropped"
is "$(field kfew keys_max)" 2 "keys 2 listed"
is "$(field ktwin by)$(field ktwin keys)" "" "an entry without keys lists none"
is "$(ls $K | sort | tr '\n' ' ')" \
	"$(echo kcg kcomm kcommf kcommk kcpu kfew kipcpu kiret kivr kpair kpcpu kpid kret ktid kval | tr ' ' '\n' |
		while read -r n; do [ -e "$KS/$n" ] && echo "$n"; done | sort | tr '\n' ' ')" \
	"_keys holds a file for each keyed entry, none for ktwin"
is "$(cat $K/kcomm)" "" "no sample: _keys/kcomm is empty"

# Each key's bytes: its slots and extremes on every possible CPU.
NCPU=$(cat /sys/devices/system/cpu/possible | awk -F- '{ print $NF + 1 }')
B32=$(field kcomm bytes)
B2=$(field kfew bytes)
PER=$(( NCPU * (976 * 16 + 16) ))
check "bytes: 34 histograms of $PER bytes and the table ($B32)" \
	[ "$B32" -ge $((34 * PER)) ] && [ "$B32" -le $((34 * PER + 34 * 512 + 4096)) ]
check "bytes: keys 2 holds 4 histograms ($B2)" \
	[ "$B2" -ge $((4 * PER)) ] && [ "$B2" -le $((4 * PER + 4096)) ]

# The calls: 10, from four processes, in this order.
[ -n "$CG" ] && echo $$ > $CG/kst92/cgroup.procs
run 0 kka 4 3
[ -n "$CG" ] && echo $$ > $CG/cgroup.procs
run 1 kkb 3 5
run 1 "kk c" 2 9
run 0 kkd 1 7
A=$(cat /tmp/kst92.kka) B=$(cat /tmp/kst92.kkb) C=$(cat "/tmp/kst92.kk c") D=$(cat /tmp/kst92.kkd)

is "$(keys kcomm)" 'kk\040c:2 kka:4 kkb:3 kkd:1' "by comm: each comm's count (a space as \\040)"
is "$(keys kcommk)" 'kk\040c:2 kka:4 kkb:3 kkd:1' "by comm via kretprobe: the same"
if [ -n "$W" ]; then
	plan 1
	is "$(keys kcommf)" 'kk\040c:2 kka:4 kkb:3 kkd:1' "by comm via fprobe: the same"
fi
is "$(samples kcomm) $(field kcomm keys) $(field kcomm keys_dropped)" "10 4 0" \
	"the merged file has all 10; 4 keys, none dropped"
is "$(keys kpid)" "$(printf '%s\n' $A:4 $B:3 $C:2 $D:1 | sort | tr '\n' ' ' | sed 's/ $//')" \
	"by pid: each process's count"
is "$(keys ktid)" "$(keys kpid)" "by tid: the same (one thread each)"
# pcpu: measures only calls undisturbed on one CPU: a call preempted (the
# debug kernel preempts fully) is skipped, and counted so.
# pcpu_keyed NAME N DESC: each of NAME's N calls keyed or skipped, some
# keyed; S is how many were skipped.
pcpu_keyed() {
	S=$(field "$1" skipped)
	is "$(($(samples "$1") + S)) $([ "$(samples "$1")" -gt 0 ] && echo keyed)" "$2 keyed" \
		"$3: every call keyed or skipped, some keyed ($S skipped)"
}
pcpu_keyed kpcpu 10 "pcpu: by tid"
if [ "$S" = 0 ]; then
	is "$(keys kpcpu)" "$(keys kpid)" "pcpu: by tid: the same"
else
	is "$( (keys kpid | tr ' ' '\n' | sed 's/^/a /'; keys kpcpu | tr ' ' '\n' | sed 's/^/b /') |
		awk '{ split($2, f, ":"); n[$1, f[1]] = f[2]; k[f[1]] = 1 }
		END { for (i in k) if (n["b", i] > n["a", i]) print i }')" "" \
		"pcpu: by tid: no key above its count by pid"
fi
is "$(keys kcpu)" "0:5 1:5" "by cpu: 5 calls on each CPU"
is "$(kslots kval 0) | $(kslots kval 1)" "3:4 7:1 | 5:3 9:2" "value arg2 by cpu: exact slots per key"
is "$(grep '^key 0 ' $K/kval | head -n 2)" \
	"$(printf 'key 0 min 3 max 7\nkey 0 slot 3   CPU  0    count        4 avg        3 p 0.800000')" \
	"_keys lines: the key's min and max, then the entry file's lines after 'key K '"
is "$(grep '^key 1 slot 5 ' $K/kval)" \
	"$(printf 'key 1 slot 5   CPU  1    count        3 avg        5 p 0.600000\nkey 1 slot 5   CPUS 2    count        3 avg        5 p 0.600000')" \
	"_keys lines of key 1: p within the key"
is "$(cat $KS/kval)" "$(cat $KS/ktwin)" "the merged file of a keyed entry: the same as without keys"
is "$(keys kfew)" "kka:4 kkb:3 other:3" "keys 2: the first two keys, the rest in other"
is "$(keys kret)" "3:4 5:3 7:1 9:2" "by retval: each return value's count"
for c in "-22 2" "7 1" "-1 3"; do
	helper ivalue $c > /dev/null
done
is "$(keys kiret)" "-1:3 -22:2 7:1" "by retval of an int: negative values as such (kretprobe)"
# pcpu, as for kpcpu above: a call preempted is skipped, and counted so.
pcpu_keyed kipcpu 6 "pcpu: by retval of an int"
if [ "$S" = 0 ]; then
	is "$(keys kipcpu)" "-1:3 -22:2 7:1" "pcpu: by retval of an int"
else
	is "$(keys kipcpu | tr ' ' '\n' | awk -F: '{ w["-1"] = 3; w["-22"] = 2; w["7"] = 1 }
		!($1 in w) || $2 > w[$1] { print }')" "" \
		"pcpu: by retval of an int: no key but the three, none above its calls"
fi
is "$(keys kivr) $(field kivr errors)" "7:1 5" "value retval by retval: errors counted, not keyed"
is "$(field kfew keys) $(field kfew keys_dropped)" "2 3" "keys 2: 2 keys, 3 samples dropped to other"
is "$(grep -c '^other min ' $K/kfew)" 1 "other has its min and max line"
if [ -n "$CG" ]; then
	plan 2
	CGID=$(stat -c %i $CG/kst92)
	is "$(grep CPUS $K/kcg | awk -v c="$CGID" '$2 == c { n += $8 } END { print n + 0 }')" 4 \
		"by cgroup: the 4 calls made in kst92, under its id"
	is "$(grep CPUS $K/kcg | awk '{ n += $(NF - 4) } END { print n + 0 }')" 10 "by cgroup: all 10 calls"
fi

# by syscall: a key task pair of sys_enter and sys_exit, one process's:
# 5 writes (NR_WRITE: 1 on x86-64, 64 on arm64) of the builtin echo.
is "$(ctl trace ksys start __tracepoint_sys_enter end __tracepoint_sys_exit key task by syscall comm kst92s)" \
	OK "by syscall: a sys_enter/sys_exit pair"
sh -c "echo -n kst92s > /proc/self/comm; exec 3> /dev/null; for i in 1 2 3 4 5; do echo -n x >&3; done"
is "$(grep CPUS $K/ksys | awk -v w=$NR_WRITE '$2 == w { n += $8 } END { print n + 0 }')" 5 \
	"by syscall: 5 calls of write ($NR_WRITE)"
is "$(field ksys by)" syscall "listed by syscall"
is "$(ctl remove ksys)" OK "removed"

# The tool on the live files: the key table and the JSON keys.
if command -v python3 > /dev/null; then
	plan 3
	kstats show --json kcpu > /tmp/kst92.json
	is "$(python3 -c "import json; d = json.load(open('/tmp/kst92.json'))
d = d[0] if isinstance(d, list) else d
print(d['by'], ' '.join('%s:%d' % (k['key'], k['count']) for k in sorted(d['keys'], key=lambda k: k['key'])))")" \
		"cpu 0:5 1:5" "kstats show --json: by cpu, keys 0 and 1 with 5 each"
	is "$(kstats show kcomm | grep -c '^ *kka  *4 ')" 1 "kstats show: the key table has kka with 4"
	is "$(kstats show kcomm --key 'kk c' --json | python3 -c "import json, sys; d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
print(d['count'])")" 2 "kstats show --key 'kk c': its 2 calls"
else
	plan 1
	not_ok "python3 for the tool"
fi

# A pair by comm: each start and end in one process.
for c in kkp kkp kkp kkq kkq; do
	sh -c "echo -n $c > /proc/self/comm; echo -n start > $HELPER; echo -n end > $HELPER"
done
is "$(keys kpair)" "kkp:3 kkq:2" "a key task pair by comm: 3 and 2"

# stop: no sample in any key; start again.
echo stop > $KS/kcomm
run 0 kke 1 3
is "$(keys kcomm)" 'kk\040c:2 kka:4 kkb:3 kkd:1' "stopped: no new key"
echo start > $KS/kcomm
# reset: every key forgotten, dropped counts cleared.
echo reset > $KS/kcomm
is "$(cat $K/kcomm) $(field kcomm keys) $(samples kcomm)" " 0 0" "reset: no key, no sample"
run 0 kke 2 3
is "$(keys kcomm)" "kke:2" "after reset: only the new key"
is "$(ctl reset kfew)" OK "reset kfew through _control"
is "$(field kfew keys) $(field kfew keys_dropped) $(cat $K/kfew)" "0 0 " "reset kfew: no key, none dropped"
run 1 kkf 1 3
is "$(keys kfew)" "kkf:1" "after reset, keys are taken again"

# by argN: the argument at FUNC's entry (kept in the direct trampoline's
# frame, or in fprobe's or kretprobe's data for the return) or at a
# pair's start, of its BTF type, or of the type given where there is no
# BTF. Without "via", the mechanism of a plain trace of $V ($M).
TL='' TU=''
[ -z "$BTF" ] && TL="type s64" TU="type u32"
# The entries above on $V go first: karg takes $V's direct call, and
# fprobe bounds the data of all fprobes on one function (from 6.14).
# remove: the key file goes with the entry.
is "$(ctl remove kcomm)" OK "remove kcomm"
check "_keys/kcomm gone with its entry" [ ! -e $K/kcomm ]
for e in kcommk kcommf kpid ktid kcpu kpcpu kval ktwin kfew kret kcg; do
	[ -e "$KS/$e" ] && ctl remove $e > /dev/null
done
is "$(ctl trace $V by arg2 $TL as karg)" OK "by arg2"
is "$(ctl trace $V by arg2 $TL via kretprobe as kargk)" OK "by arg2 via kretprobe"
if [ -n "$W" ]; then
	plan 1
	is "$(ctl trace $V by arg2 $TL via fprobe as kargf)" OK "by arg2 via fprobe"
fi
is "$(ctl trace kpat start $MS end $ME key task by arg1 $TU)" OK "a key task pair by arg1"
is "$(ctl trace kpac start __tracepoint_kstats_helper_start end __tracepoint_kstats_helper_end by arg1 $TU)" \
	OK "a key cpu pair of tracepoints by arg1"
is "$(field karg mechanism) $(field karg by) $(field karg type)" "$M arg2 s64" \
	"by arg2: $M, listed by arg2 type s64"
is "$(field kpat by) $(field kpat type)" "arg1 u32" "the pair: listed by arg1 type u32"
run 0 kqa 4 3
run 1 kqb 3 5
run 1 kqc 2 -9
run 0 kqd 1 7
is "$(keys karg)" "-9:2 3:4 5:3 7:1" "by arg2: each value's count, a negative one signed"
is "$(keys kargk)" "-9:2 3:4 5:3 7:1" "by arg2 via kretprobe: the same"
if [ -n "$W" ]; then
	plan 1
	is "$(keys kargf)" "-9:2 3:4 5:3 7:1" "by arg2 via fprobe: the same"
fi
is "$(samples karg) $(field karg keys) $(field karg keys_dropped)" "10 4 0" \
	"by arg2: 10 samples in 4 keys, none dropped"
is "$(helper work 4 1000)" OK "4 iterations of work: mark_start(i), the tracepoints, mark_end(i)"
is "$(keys kpat)" "0:1 1:1 2:1 3:1" "a key task pair by arg1: the start's i, once each"
is "$(keys kpac)" "0:1 1:1 2:1 3:1" "a key cpu pair of tracepoints by arg1: the same"
for e in karg kargk kargf kpat kpac; do
	[ -e "$KS/$e" ] && ctl remove $e > /dev/null
done

# Many keys at once on both CPUs: every sample in a key or in other.
is "$(ctl trace $V by pid keys 8 as kmany)" OK "by pid keys 8"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	taskset -c $((i % 2)) sh -c "echo -n 'value 1 3' > $HELPER" &
done
wait
is "$(samples kmany) $(field kmany keys)" "36 8" "36 calls by 12 processes: 8 keys"
is "$(grep CPUS $K/kmany | awk '{ n += $(NF - 4) } END { print n }') $(field kmany keys_dropped)" \
	"36 12" "every sample in a key or other; 12 dropped (4 processes)"

# Bad input: errno, one log line, the entries left as they were.
before=$(cat $KS/_control)
# logs WHY N...: each WHY logged N times since log_mark
logs() {
	new=$(log_new)
	while [ $# -gt 1 ]; do
		plan 1
		is "$(echo "$new" | grep -c "refused: $1")" "$2" "logged: $1"
		shift 2
	done
}
log_mark
is "$(ctl trace $V by comm by pid as bad1)" "$EINVAL" "by twice: EINVAL"
is "$(ctl trace $V by name as bad2)" "$EINVAL" "by an unknown key: EINVAL"
is "$(ctl trace $V by comm keys 0 as bad3)" "$EINVAL" "keys 0: EINVAL"
is "$(ctl trace $V by comm keys 1025 as bad4)" "$EINVAL" "keys 1025: EINVAL"
is "$(ctl trace $V keys 4 as bad5)" "$EINVAL" "keys without by: EINVAL"
is "$(ctl trace $V by comm keys 4 keys 5 as bad6)" "$EINVAL" "keys twice: EINVAL"
is "$(ctl trace $V by comm keys x as bad7)" "$EINVAL" "keys x: EINVAL"
is "$(ctl trace $V by pid type s64 as bad9)" "$EINVAL" "type without value or by retval: EINVAL"
logs "by given twice" 1 "by: KEY is comm, pid, tid, cpu, cgroup, retval, syscall, stack or arg1 to arg$NARGS" 1 \
	"keys must be 1 to 1024" 3 "keys is only for by KEY" 1 "keys given twice" 1 \
	"type is only for value argN|retval, by retval|argN, key argN and if argN" 1
log_mark
is "$(ctl trace kgap gap $MS by comm)" "$ENOTSUP" "a gap by comm: EOPNOTSUPP"
is "$(ctl trace kpc start $MS end $ME by comm)" "$ENOTSUP" "a key cpu pair by comm: EOPNOTSUPP"
is "$(ctl trace kpcc start $MS end $ME by cpu)" OK "a key cpu pair by cpu: accepted"
is "$(ctl trace kpr start $MS end $ME key task by retval)" "$ENOTSUP" "a pair by retval: EOPNOTSUPP"
is "$(ctl trace $V value arg2 type s64 by retval as bad8)" "$ENOTSUP" "value arg2 by retval: EOPNOTSUPP"
is "$(ctl trace ks2 start __tracepoint_sys_enter end __tracepoint_sys_exit by syscall)" "$ENOTSUP" \
	"by syscall, key cpu: EOPNOTSUPP"
is "$(ctl trace $V by syscall as bad10)" "$ENOTSUP" "trace FUNC by syscall: EOPNOTSUPP"
is "$(ctl remove kpcc)" OK "removed"
if [ -n "$BTF" ]; then
	plan 1
	is "$(ctl trace $WORK by retval as kvoid)" "$ENOTSUP" "by retval of a void function: EOPNOTSUPP"
	logs "the return value of $WORK is void" 1
fi
logs "by: a gap spans two hits of any tasks; no key" 1 \
	"by comm: a pair keyed by cpu may end in another task; use key task" 1 \
	"by retval: only trace FUNC, pcpu:FUNC and PATH:SYMBOL, of time or value retval, see a return" 2 \
	"by syscall: only for a key task pair that ends at __tracepoint_sys_exit" 1 \
	"by syscall: a pair keyed by cpu may end in another task; use key task" 1
log_mark
is "$(ctl trace pcpu:$V by arg2 $TL as bad12)" "$ENOTSUP" "pcpu: by arg2: EOPNOTSUPP"
is "$(ctl trace $V value arg2 type s64 by arg1 as bad13)" "$ENOTSUP" "value arg2 by arg1: EOPNOTSUPP"
is "$(ctl trace $V by $PAST as bad14)" "$EINVAL" "by $PAST: EINVAL"
is "$(ctl trace kpo start $MS+4 end $ME by arg1 $TU)" "$EINVAL" "by arg1 at SYMBOL+OFFSET: EINVAL"
is "$(ctl trace kpg gap $MS by arg1 $TU)" "$ENOTSUP" "a gap by arg1: EOPNOTSUPP"
logs "by argN: only trace FUNC and PATH:SYMBOL of time, and pairs" 2 \
	"by: KEY is comm, pid, tid, cpu, cgroup, retval, syscall, stack or arg1 to arg$NARGS" 1 \
	"by argN: start is SYMBOL+OFFSET, where the argument registers may hold anything" 1 \
	"by: a gap spans two hits of any tasks; no key" 1
if [ -n "$BTF" ]; then
	plan 1
	is "$(ctl trace kpp start kstats_helper_req_start end kstats_helper_req_end key arg2 by arg1)" \
		"$ENOTSUP" "by arg1, a pointer: EOPNOTSUPP"
	logs "argument 1 of kstats_helper_req_start is a pointer: its histogram would show addresses" 1
fi
is "$(cat $KS/_control)" "$before" "the refused commands left every entry as it was"
is "$(nglob "$K/bad*")" 0 "no _keys file of a refused command"

# rmmod with keyed entries attached, while processes read.
is "$(ctl trace vfs_read by comm as kvfs) $(ctl trace vfs_read by tid keys 4 as kvfs2)" "OK OK" \
	"vfs_read by comm, and by tid keys 4"
# The readers stop once kstats is gone (300 cats ran 30 s past it on the
# debug kernel).
rm -f /tmp/kst92.stop
( i=0; while [ $i -lt 300 ] && [ ! -e /tmp/kst92.stop ]; do
	cat /proc/self/stat > /dev/null; i=$((i + 1))
done ) &
L=$!
sleep 0.2
check "vfs_read by comm: cat has a key" grep -q '^key cat slot ' $K/kvfs
grep '^key cat ' $K/kvfs | head -n 3 | sed 's/^/# /'
echo "# $(line kvfs)"
rmmod kstats_helper
check "rmmod kstats with keyed entries attached, under load" rmmod_drained kstats
touch /tmp/kst92.stop
wait $L
[ -n "$CG" ] && rmdir $CG/kst92
true
