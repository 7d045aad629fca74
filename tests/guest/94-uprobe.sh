#!/bin/sh
# User-space functions through uprobes: "trace PATH:SYMBOL" and "trace
# PATH:0xOFFSET as NAME" on kstats-ufunc (tests/user/kstats_ufunc.c),
# whose calls the program counts and times from both sides: exact counts,
# the median and sum between its inner and outer times, the listing's
# mechanism, target and offset (against the program's own reading of its
# ELF headers); keys by pid, by an argument and by the return value, and
# the values of both ("type T"); outliers, with the caller's address;
# stop disarms, start arms again; each
# refusal with its errno and its log line; remove and rmmod with a call in flight, after a
# process was killed inside a call and after one exited inside one; the
# traced file deleted and replaced under a running instance; two entries
# on one symbol; fork, exec and recursion (one pending start per task);
# a second entry added and removed under a stream of calls.
# timeout: 600
. /tests/lib.sh
# 1: 11, 2: 7, 3: 6, 3b: 14, 3d: 7, 3c: 11, 4: 1 (and refuse plans its
# own 2 a refusal, the /proc and the import refusals theirs), 5: 7, 6: 13,
# 7: 5, 8: 6, 9: 5, 10: 7, 11: 5, 12: 7, the end: 1.
plan 113
load_modules

UF=/usr/bin/kstats-ufunc
W=kstats_ufunc_work
T=$UF:$W
O=/tmp/kst99
EINVAL="Invalid argument"
ENOENT="No such file or directory"
ENOEXEC="Exec format error"
ENOTSUP="Operation not supported"
N=200		# calls of a run
D=20000		# ns each call spins, from its own clock reads
# RATE: calls a second of kstats_ufunc_work(0) in the churn (12) while a
# second entry comes and goes. arm64 guests run about 25 times slower
# under TCG: fewer (the program makes as many as it can). Nothing here is
# timed: calls that must outlast a command sleep an hour, and SIGUSR1 or
# SIGTERM ends them once it is done.
if [ "$ARCH" = aarch64 ]; then
	RATE=1000
else
	RATE=10000
fi

# hexval STRING: STRING, 0x and hex digits, as a decimal number; else
# says what it was (the shell's arithmetic would end the script).
hexval() {
	case $1 in
	0x | 0x*[!0-9a-fA-F]*) echo "not hex: '$1'" ;;
	0x*) echo $(($1)) ;;
	*) echo "not hex: '$1'" ;;
	esac
}
# got OUT KEY: the number after KEY on the "calls" line of OUT.
got() { awk -v k="$2" '$1 == "calls" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }
# stat3 NAME: "count median sum" of NAME's entry file, from its CPUS
# lines (a slot's count and mean over all CPUs) in slot order: the lower
# median is the mean of the first slot whose cumulative count reaches
# (count + 1) / 2, as 61-truth.sh's kstat takes it.
stat3() {
	grep CPUS "$KS/$1" | awk '{ printf "%s %s %.0f\n", $2, $6, $6 * $8 }' | sort -n |
		awk '{ c[NR] = $2; s[NR] = $3; n += $2; t += $3 }
			END { r = int((n + 1) / 2); med = 0
				for (i = 1; i <= NR; i++) { m += c[i]; if (m >= r) { med = s[i] / c[i]; break } }
				printf "%d %d %.0f\n", n, med, t }'
}
# timed NAME OUT: NAME's median and sum against the "calls" line of the
# run in OUT. Each call's sample lies between its inner time (the
# function's own first and last clock reads) and its outer one (the
# caller's reads around the call), so the lower median between the two
# lower medians and the sum between the two sums; the median widened by
# a slot of bits 4 (1/16), the slot-width tolerances 61-truth.sh uses
# (15/16 and 17/16), the sum as 61-truth.sh widens its own (1/64, and
# 1 us a call: slot means are whole ns, and clock tsc is not the
# program's CLOCK_MONOTONIC).
timed() {
	k=$(stat3 "$1")
	u=$(awk '$1 == "calls" { print $2, $4, $6, $8, $10 }' "$2")
	set -- "$1" $k $u
	check "$1: median $3 ns within the program's inner median ${6:-?} * 15/16 and outer median ${7:-?} * 17/16" \
		awk -v m="$3" -v lo="$6" -v hi="$7" \
		'BEGIN { exit !(lo > 0 && m >= lo * 15 / 16 && m <= hi * 17 / 16) }'
	check "$1: sum $4 ns within the inner sum ${8:-?} * 63/64 and the outer sum ${9:-?} * 65/64, 1 us a call either side" \
		awk -v s="$4" -v n="$2" -v lo="$8" -v hi="$9" \
		'BEGIN { exit !(lo > 0 && s >= lo * 63 / 64 - 1000 * n && s <= hi * 65 / 64 + 1000 * n) }'
}
# inside PID OUT: within 30 s, PID printed "sleeping" into OUT and
# sleeps (state S): in kstats_ufunc_sleep()'s nanosleep, the entry's
# probe hit.
inside() {
	_i=0
	until grep -qx sleeping "$2" 2>/dev/null &&
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = S ]; do
		[ $_i -lt 300 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
# sleeper: $UF sleep 3600 in the background as $p, inside the call (as
# inside says; a check, in this shell, so that $p is set).
sleeper() {
	$UF sleep 3600 > $O.sleep &
	p=$!
	inside $p $O.sleep
}
# woken: $p's call ends; WOKE: its exit status and what it printed (not in
# a command substitution, whose subshell cannot wait for $p).
woken() {
	kill -USR1 $p
	wait $p
	WOKE="$?:$(tr '\n' ' ' < $O.sleep)"
}
# grows NAME N: NAME has more than N samples within 30 s.
grows() {
	_i=0
	while [ "$(samples "$1")" -le "$2" ]; do
		[ $_i -lt 300 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
# reload: kstats.ko again after an rmmod, with the scripts' log burst.
reload() {
	check "kstats loads again" insmod "$MODDIR/kstats.ko"
	raise_log_burst
}

# 1. trace PATH:SYMBOL: the entry is named SYMBOL; N calls of D ns.
OFF=$($UF offset $W)
echo "# $W at file offset $OFF of $UF"
is "$(ctl trace $T bits 4)" OK "trace $T bits 4"
echo "# $(line $W)"
is "$(field $W mechanism) $(field $W targets) $(field $W bits) $(field $W clock) $(field $W state)" \
	"uprobe $T 4 $CLK running" \
	"listing: mechanism uprobe, targets $T, bits 4, clock $CLK (the default), running"
is "$(hexval "$(field $W offset)")" "$(hexval "$OFF")" \
	"listing: offset $(field $W offset), the program's own reading $OFF"
check "entry file exists" test -f "$KS/$W"
$UF calls $N $D > $O.calls
r=$?
sed 's/^/# /' $O.calls
is "$r $(got $O.calls calls)" "0 $N" "kstats-ufunc calls $N $D ran"
is "$(samples $W)" $N "$N calls: exactly $N samples"
grep CPUS "$KS/$W" | sed 's/^/#   /'
timed $W $O.calls
is "$(field $W missed) $(field $W unpaired)" "0 0" "nothing missed, nothing unpaired"
is "$(below $W $D)" 0 "every slot mean is at least $D ns"
is "$(ctl remove $W)" OK "remove $W"

# 2. trace PATH:0xOFFSET as NAME, on the same function, clock mono (the
# program's own clock).
is "$(ctl trace $UF:$OFF as uf_off clock mono)" OK "trace $UF:$OFF as uf_off clock mono"
echo "# $(line uf_off)"
is "$(field uf_off mechanism) $(field uf_off clock) $(hexval "$(field uf_off offset)")" \
	"uprobe mono $(hexval "$OFF")" "listing: uprobe, clock mono, offset $OFF"
$UF calls $N $D > $O.off
sed 's/^/# /' $O.off
is "$(samples uf_off)" $N "PATH:0xOFFSET: exactly $N samples"
timed uf_off $O.off
is "$(field uf_off unpaired)" 0 "PATH:0xOFFSET: nothing unpaired"
is "$(ctl remove uf_off)" OK "remove uf_off"

# 3. Keys: two processes at once, by pid.
is "$(ctl trace $T by pid as uf_pid)" OK "trace $T by pid"
is "$(field uf_pid by)" "pid" "listed by pid"
$UF calls 100 1000 > $O.a &
A=$!
$UF calls 150 2000 > $O.b &
B=$!
wait $A
ra=$?
wait $B
rb=$?
is "$ra $rb $(got $O.a calls) $(got $O.b calls)" "0 0 100 150" "two processes at once, 100 and 150 calls"
is "$(keys uf_pid)" "$(printf '%s\n' "$A:100" "$B:150" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"by pid: each process's count ($A and $B)"
is "$(samples uf_pid) $(field uf_pid keys) $(field uf_pid keys_dropped)" "250 2 0" \
	"by pid: 250 samples in 2 keys, none dropped"
is "$(ctl remove uf_pid)" "OK" "remove uf_pid"

# 3b. The function's registers, typed by "type": kstats_ufunc_work(NS)
# by its argument and the argument's values, kstats_ufunc_sleep(0) by its
# return value (0) and the values returned.
is "$(ctl trace $T by arg1 type s64 as uf_arg)" OK "trace $T by arg1 type s64"
is "$(field uf_arg by) $(field uf_arg type)" "arg1 s64" "listed by arg1 type s64"
$UF calls 100 1000 > $O.a
$UF calls 150 2000 > $O.b
is "$(got $O.a calls) $(got $O.b calls)" "100 150" "100 calls of $W(1000), 150 of $W(2000)"
is "$(keys uf_arg) $(field uf_arg keys_dropped)" "1000:100 2000:150 0" \
	"by arg1: 100 calls under 1000, 150 under 2000, none dropped"
is "$(ctl remove uf_arg)" OK "remove uf_arg"
is "$(ctl trace $T value arg1 type s64 as uf_val)" OK "trace $T value arg1 type s64"
$UF calls 100 3000 > $O.a
is "$(got $O.a calls) $(stat3 uf_val)" "100 100 3000 300000" \
	"value arg1: 100 values, median 3000, sum 300000"
is "$(field uf_val value) $(field uf_val type) $(field uf_val unpaired)" "arg1 s64 0" \
	"listed value arg1 type s64, nothing unpaired"
is "$(ctl remove uf_val)" OK "remove uf_val"
S=$UF:kstats_ufunc_sleep
is "$(ctl trace $S by retval type s32 as uf_rk)" OK "trace $S by retval type s32"
is "$(ctl trace $S value retval type s32 as uf_rv)" OK "trace $S value retval type s32"
for i in 1 2 3; do
	$UF sleep 0 > /dev/null
done
is "$(keys uf_rk) $(samples uf_rv) $(stat3 uf_rv)" "0:3 3 3 0 0" \
	"three calls returning 0: by retval one key of 3, value retval 3 zeros"
is "$(field uf_rv errors)" 0 "value retval: no errors"
is "$(ctl remove uf_rk) $(ctl remove uf_rv)" "OK OK" "remove uf_rk and uf_rv"

# 3d. Outliers: the largest samples, with their process and, for a
# return, the caller's address in it (no stack: the kernel's is the
# trap's). Values, so that which are kept is known: kstats_ufunc_work's
# argument, 20 calls with 1000 in one process, 3 with 300000 in
# another; then the time of 5 calls, each outlier returning to the one
# call site of the program's loop.
is "$(ctl trace $T value arg1 type s64 outliers 3 as uf_out)" OK "trace $T value arg1 type s64 outliers 3"
$UF calls 20 1000 > $O.a
$UF calls 3 300000 > $O.b &
B=$!
wait $B
OUT=$KS/_outliers/uf_out
sed 's/^/# /' "$OUT"
is "$(awk '$3 == "value" { print $2 ":" $4 ":" $12 ":" $16 }' "$OUT" | tr '\n' ' ')" \
	"1:300000:$B:kstats-ufunc 2:300000:$B:kstats-ufunc 3:300000:$B:kstats-ufunc " \
	"value arg1 outliers 3: the second process's three values of 300000"
is "$(grep -c ' stack ' "$OUT")" 0 "an argument is read at the entry: no caller"
is "$(ctl remove uf_out)" OK "remove uf_out"
is "$(ctl trace $T outliers 2 as uf_out)" OK "trace $T outliers 2"
$UF calls 5 1000 > $O.a
sed 's/^/# /' "$OUT"
is "$(awk '$3 == "stack" && $4 == "user" && $5 ~ /^0x[0-9a-f]+$/ && $5 != "0x0" { print $2, $5 }' "$OUT" |
	sort -u -k2 | wc -l) $(grep -c '^outlier [12] stack user ' "$OUT")" "1 2" \
	"outliers 2 of the time: one caller line each, the same address"
is "$(ctl remove uf_out)" OK "remove uf_out"

# 3c. stop disarms: a process that enters the function while the entry is
# stopped takes no breakpoint, so the kernel never maps its "[uprobes]"
# area (the return trampoline, made at a process's first hit), and a
# start arms it again. A call in flight at a stop and a start returns
# normally, with no sample.
is "$(ctl trace $S as uf_stop)" OK "trace $S as uf_stop"
echo stop > "$KS/uf_stop"
check "stopped: a process sleeps inside the call" sleeper
check "stopped: a process inside the call took no breakpoint (no [uprobes] in its maps)" \
	sh -c "! grep -q '\[uprobes\]' /proc/$p/maps"
woken
is "$WOKE" "0:sleeping returned " "stopped: the call returned normally"
echo start > "$KS/uf_stop"
check "started again: a process sleeps inside the call" sleeper
check "started again: the process inside the call took the breakpoint ([uprobes] in its maps)" \
	grep -q '\[uprobes\]' /proc/$p/maps
echo stop > "$KS/uf_stop"
echo start > "$KS/uf_stop"
woken
is "$WOKE" "0:sleeping returned " "a call in flight at a stop and a start returned normally"
# Whether the kernel hands kstats the return of the call entered before
# the stop is its own: 6.1's and 7.3's do not (the consumer registered
# again is a new uprobe's), 6.12's does, and it counts as unpaired, as a
# pair's end after a stop does; either way it is no sample.
check "a process sleeps inside the call" sleeper
woken
is "$WOKE $(samples uf_stop)" "0:sleeping returned  1" \
	"one sample, of the call entered and ended while the entry ran"
u=$(field uf_stop unpaired)
echo "# unpaired: $u (the return of the call entered before the stop)"
check "at most that return unpaired ($u)" test "$u" -le 1
is "$(ctl remove uf_stop)" OK "remove uf_stop"

# 4. Refusals: each with its errno, and one refusal line in the log whose
# reason names the file where the file is what is refused.
# refuse ERRNO COMMAND DESC [PATH]: COMMAND gets ERRNO, and the log one
# line since (naming PATH after "refused: " where given).
refuse() {
	plan 2
	log_mark
	is "$(ctl "$2")" "$1" "$3: $1"
	is "$(log_new | grep -c "kstats: _control: .* refused: .*${4:-}")" 1 \
		"$3: one line in the log${4:+, naming $4}"
}
printf '#!/bin/sh\necho hi\n' > $O.sh
chmod 755 $O.sh
# Another machine's ELF: this one's, its e_machine (2 bytes at 18) made
# arm64's (183) on x86-64, x86-64's (62) on arm64.
cp $UF $O.other
if [ "$ARCH" = aarch64 ]; then
	printf '\076\000' | dd of=$O.other bs=1 seek=18 conv=notrunc 2>/dev/null
else
	printf '\267\000' | dd of=$O.other bs=1 seek=18 conv=notrunc 2>/dev/null
fi
# A malformed one: its ELF header, and nothing of what it points to.
head -c 64 $UF > $O.short
rm -f $O.none
refuse "$ENOENT" "trace $O.none:$W" "no such file" $O.none
refuse "$EINVAL" "trace /tmp:$W" "a directory" /tmp
refuse "$ENOEXEC" "trace $O.sh:$W" "not ELF (a shell script)" $O.sh
refuse "$ENOEXEC" "trace $O.other:$W" "another machine's ELF" $O.other
refuse "$ENOEXEC" "trace $O.short:$W" "a malformed ELF (its header only)" $O.short
refuse "$EINVAL" "trace usr/bin/kstats-ufunc:$W" "a relative path"
refuse "$ENOENT" "trace $UF:kstats_ufunc_nosuch" "no such symbol" $UF
refuse "$EINVAL" "trace $UF:kstats_ufunc_data" "a data object" $UF
# The static kstats-ufunc has no undefined symbol (the link resolves or
# drops them all); Debian's python3.11 in the guest imports getpid().
PY=/usr/bin/python3.11
if [ -e $PY ]; then
	refuse "$EINVAL" "trace $PY:getpid" "an undefined import (getpid in $PY)" $PY
else
	plan 1
	not_ok "an undefined import: no $PY in this guest"
fi
# A file uprobes cannot probe: EINVAL or EOPNOTSUPP.
plan 2
log_mark
r=$(ctl trace /proc/self/status:foo)
case $r in
"$EINVAL" | "$ENOTSUP") ok "a file under /proc: $r" ;;
*) not_ok "a file under /proc: $r, not $EINVAL or $ENOTSUP" ;;
esac
is "$(log_new | grep -c "kstats: _control: .* refused: .*/proc/self/status")" 1 \
	"a file under /proc: one line in the log, naming /proc/self/status"
refuse "$EINVAL" "trace $T via direct" "via direct"
refuse "$EINVAL" "trace $T value arg1" "value arg1 without its type"
refuse "$EINVAL" "trace $T by arg1" "by arg1 without its type"
refuse "$EINVAL" "trace $T by retval" "by retval without its type"
refuse "$EINVAL" "trace $T by stack" "by stack"
refuse "$EINVAL" "trace $T counter context-switches" "counter"
refuse "$EINVAL" "trace pcpu:$T" "pcpu:PATH:SYMBOL"
refuse "$EINVAL" "trace ufs start $T end vfs_read" "PATH:SYMBOL as a start"
refuse "$EINVAL" "trace ufe start vfs_read end $T" "PATH:SYMBOL as an end"
refuse "$EINVAL" "trace ufg gap $T" "PATH:SYMBOL as a gap"
is "$(cat "$KS/_control")" "" "the refusals made no entry"
rm -f $O.sh $O.other $O.short

# 5. A process killed inside a traced call; remove, then rmmod at once.
is "$(ctl trace $UF:kstats_ufunc_sleep as uf_sleep)" OK "trace $UF:kstats_ufunc_sleep as uf_sleep"
$UF sleep 60 > $O.sleep &
p=$!
check "a process sleeps inside kstats_ufunc_sleep" inside $p $O.sleep
kill -9 $p
wait $p
r=$?
is "$r" 137 "it was killed inside the call"
is "$(samples uf_sleep)" 0 "a call that never returned: no sample"
echo "# $(line uf_sleep)"
is "$(ctl remove uf_sleep)" OK "remove uf_sleep after the kill"
rmmod kstats_helper 2>/dev/null
check "rmmod kstats at once after the kill and the remove" rmmod kstats
reload

# 6. remove, and rmmod, while a traced call sleeps: it returns normally.
# inflight WHY: the call of $p is still in flight after WHY, and then
# returns normally: the process prints "returned" and exits 0.
inflight() {
	check "the call is still in flight after $1" sh -c "kill -0 $p && ! grep -q returned $O.sleep"
	woken
	is "$WOKE" "0:sleeping returned " \
		"after $1 the call returned normally and the process exited 0"
}
is "$(ctl trace $UF:kstats_ufunc_sleep as uf_sleep)" OK "trace uf_sleep again"
check "a call sleeps inside" sleeper
is "$(ctl remove uf_sleep)" OK "remove while the call sleeps"
check "rmmod kstats at once after the remove, the call in flight" rmmod kstats
inflight "the remove and the rmmod"
reload
is "$(ctl trace $UF:kstats_ufunc_sleep as uf_sleep)" OK "trace uf_sleep once more"
check "a call sleeps inside" sleeper
check "rmmod kstats with the entry attached, the call in flight" rmmod kstats
inflight "the rmmod"
reload

# 7. The traced file deleted and replaced under a running instance: the
# entry keeps counting that instance's calls, and goes cleanly (check.sh
# reads the kernel log for warnings).
cp $UF /tmp/uf
is "$(ctl trace /tmp/uf:$W as uf_tmp)" OK "trace /tmp/uf:$W as uf_tmp (a copy)"
/tmp/uf rate 200 3600 > $O.tmp &
p=$!
check "the copy's calls are counted" grows uf_tmp 0
rm /tmp/uf
s=$(samples uf_tmp)
cp $UF /tmp/uf
check "/tmp/uf deleted and replaced: the running instance's calls still counted (more than $s)" \
	grows uf_tmp "$s"
kill -TERM $p
wait $p
r=$?
c=$(got $O.tmp calls)
is "$r $(samples uf_tmp)" "0 $c" "every call of the instance of the deleted file counted (${c:-none})"
/tmp/uf calls 10 0 > /dev/null
echo "# after 10 calls of the new /tmp/uf: $(line uf_tmp)"
is "$(ctl remove uf_tmp)" OK "remove uf_tmp"
rm -f /tmp/uf

# 8. Calls that never return: the process exits inside them.
is "$(ctl trace $UF:kstats_ufunc_exit as uf_exit)" OK "trace $UF:kstats_ufunc_exit as uf_exit"
st=
for _ in 1 2 3; do
	$UF exit 3
	st="$st $?"
done
is "$st" " 3 3 3" "three processes exit 3 from inside kstats_ufunc_exit"
is "$(samples uf_exit)" 0 "calls that never returned: no sample"
echo "# $(line uf_exit)"
is "$(ctl remove uf_exit)" OK "remove uf_exit"
check "rmmod kstats after processes exited inside calls" rmmod kstats
reload

# 9. Two entries on one symbol; one goes, the other counts on.
is "$(ctl trace $T as uf_a) $(ctl trace $T as uf_b)" "OK OK" "two entries on $W, uf_a and uf_b"
$UF calls $N 0 > /dev/null
is "$(samples uf_a) $(samples uf_b)" "$N $N" "both count the $N calls"
is "$(ctl remove uf_a)" OK "remove uf_a"
$UF calls 50 0 > /dev/null
is "$(samples uf_b)" $((N + 50)) "uf_b counts on: $((N + 50))"
is "$(ctl remove uf_b)" OK "remove uf_b"

# 10. fork: the child's calls too; exec: the new image's too.
is "$(ctl trace $T as uf_fx)" OK "trace $T as uf_fx"
$UF fork 50 0 > $O.fork
is "$(tr '\n' ' ' < $O.fork)" "child calls 50 parent calls 50 " "fork: 50 calls in the child, 50 in the parent"
is "$(samples uf_fx)" 100 "fork: 100 samples"
$UF exec 50 0 > $O.exec
is "$(got $O.exec calls)" 50 "exec: 50 calls, then 50 in the new image"
is "$(samples uf_fx)" 200 "exec: 100 samples more"
is "$(field uf_fx missed) $(field uf_fx unpaired)" "0 0" "fork and exec: nothing missed or unpaired"
is "$(ctl remove uf_fx)" OK "remove uf_fx"

# 11. Recursion: one pending start a task; each nested entry replaces
# it, the innermost return pairs with it, the 4 outer returns find none.
is "$(ctl trace $UF:kstats_ufunc_rec as uf_rec)" OK "trace $UF:kstats_ufunc_rec as uf_rec"
is "$($UF rec 5 10000)" "rec 5" "one call of kstats_ufunc_rec, 5 deep"
is "$(samples uf_rec) $(field uf_rec unpaired)" "1 4" "the innermost call measured, 4 outer returns unpaired"
is "$(below uf_rec 10000)" 0 "its sample spans the innermost call's 10000 ns"
is "$(ctl remove uf_rec)" OK "remove uf_rec"

# 12. A second entry on the symbol added and removed CYCLES times while
# the program calls it about RATE times a second: the permanent entry
# counts every call. Counted, not timed: the program runs until the
# cycles are done (SIGTERM ends it, and it prints its count), with an
# hour as a guard against a hang only.
CYCLES=10
is "$(ctl trace $T as uf_perm)" OK "trace $T as uf_perm"
$UF rate $RATE 3600 > $O.rate &
p=$!
# Its calls have begun before the first cycle.
i=0
while [ "$(samples uf_perm)" = 0 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
n=0 bad=0
while [ $n -lt $CYCLES ]; do
	r=$(ctl trace $T as uf_churn)
	sleep 0.1
	r="$r $(ctl remove uf_churn)"
	[ "$r" = "OK OK" ] || { bad=$((bad + 1)); echo "# cycle $n: $r"; }
	n=$((n + 1))
done
alive=$(kill -0 $p 2>/dev/null && echo yes)
kill -TERM $p
wait $p
r=$?
c=$(got $O.rate calls)
is "$alive $r" "yes 0" "rate $RATE: the program called all along the $CYCLES cycles, and stopped at SIGTERM"
check "it made calls (${c:-none})" test "${c:-0}" -gt 0
is "$(samples uf_perm)" "$c" "the permanent entry counted each of its $c calls"
is "$(field uf_perm missed) $(field uf_perm unpaired)" "0 0" "nothing missed or unpaired"
is "$bad" 0 "each of the $CYCLES adds and removes of a second entry succeeded"
is "$(ctl remove uf_perm)" OK "remove uf_perm"

is "$(cat "$KS/_control")" "" "_control empty at the end"
rm -f $O.*
