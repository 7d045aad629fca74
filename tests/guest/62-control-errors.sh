#!/bin/sh
# _control: every refusal, with its exact errno, one reason in the kernel
# log, and every existing entry unchanged.
# timeout: 600
. /tests/lib.sh
# 53 refusals of two results each, and 11 more; refuse plans the lines
# of the log it reads.
plan 117
load_modules

FN=kstats_helper_work
EINVAL="Invalid argument"
ENOENT="No such file or directory"
EEXIST="File exists"
EPERM="Operation not permitted"

# Entries that must survive every refusal: one of kernel code, one trace,
# one pair.
helper new kern 3 >/dev/null
helper record kern 77 5 >/dev/null
echo "trace $FN" > "$KS/_control"
echo "trace pair start kstats_helper_mark_start end __tracepoint_kstats_helper_end key task" > "$KS/_control"
helper work 5 1000 >/dev/null
snap() { cat "$KS/_control" "$KS/kern" "$KS/$FN" "$KS/pair"; ls "$KS"; }
before=$(snap)
echo "$before" | grep '^name' | sed 's/^/# /'


# refuse ERRNO COMMAND DESC: the errno, and every entry as it was. The
# first nine each with their line in the log; every one of them counted
# in the log at the end (one read: a read of the log takes a second or
# more on the debug kernel).
refused=0
log_mark
ALL=$LOG_LAST
refuse() {
	refused=$((refused + 1))
	[ $refused -gt 9 ] || log_mark
	is "$(write_err "$KS/_control" "$2")" "$1" "$3: $1"
	is "$(snap)" "$before" "$3: nothing changed"
	if [ $refused -le 9 ]; then
		plan 1
		is "$(log_new | grep -c "kstats: _control: .* refused: ")" 1 "$3: one line in the log"
	fi
}

# Syntax.
refuse "$EINVAL" "bogus" "unknown command"
refuse "$EINVAL" "
" "newline only"
refuse "$EINVAL" "trace" "trace without a target"
refuse "$EINVAL" "trace $FN bits" "bits without a value"
refuse "$EINVAL" "trace $FN bits 6" "bits 6"
refuse "$EINVAL" "trace $FN bits -1" "bits -1"
refuse "$EINVAL" "trace $FN bits 1 bits 2" "bits twice"
refuse "$EINVAL" "trace $FN via uprobe" "unknown mechanism"
refuse "$EINVAL" "trace $FN key task" "key without a pair"
refuse "$EINVAL" "trace pcpu:$FN via kretprobe" "via with pcpu"
refuse "$EINVAL" "trace pcpu:$FN start a end b" "pcpu with start and end"
refuse "$EINVAL" "trace p start kstats_helper_mark_start" "pair without end"
refuse "$EINVAL" "trace p end kstats_helper_mark_end" "pair without start"
refuse "$EINVAL" "trace p start a end b start c start d start e start f" "start five times"
refuse "$EINVAL" "trace p start a end b key node" "unknown key"
refuse "$EINVAL" "trace p start a end b via fprobe" "via with a pair"
refuse "$EINVAL" "trace p start __tracepoint_x+4 end b" "tracepoint with offset"
refuse "$EINVAL" "trace p start a+b end c" "bad offset"
refuse "$EINVAL" "trace p start a+ end c" "empty offset"
refuse "$EINVAL" "trace p start a end b c" "odd option"
refuse "$EINVAL" "trace _p start a end b" "entry name starting with _"
refuse "$EINVAL" "trace a/b start a end b" "entry name with /"
refuse "$EINVAL" "trace __x64_sys_read" "FUNC starting with _ (no valid entry name)"
refuse "$EINVAL" "trace vfs_read as _r" "as with a name starting with _"
refuse "$EINVAL" "trace p start a end b as q" "as with a pair"
refuse "$EINVAL" "trace f(x)" "FUNC with bad characters"
refuse "$EINVAL" "trace __tracepoint_sys_enter" "trace FUNC with a tracepoint"
refuse "$EINVAL" "remove" "remove without a name"
refuse "$EINVAL" "remove a b" "remove with two names"
long=$(printf '%0257d' 0 | tr 0 ' ')
refuse "$EINVAL" "remove x$long" "257 bytes"
# 256 bytes are fine, up to the unknown name.
pad=$(printf '%0243d' 0 | tr 0 ' ')
is "$(write_err "$KS/_control" "remove nosuch$pad")" "$ENOENT" "256 bytes are parsed"

# Names.
refuse "$EEXIST" "trace $FN" "same trace twice"
refuse "$EEXIST" "trace $FN via kretprobe" "same name, other mechanism"
refuse "$EEXIST" "trace pcpu:$FN" "pcpu trace of a traced function"
refuse "$EEXIST" "trace kern start $FN end kstats_helper_mark_end" "pair named like a kernel entry"
refuse "$EEXIST" "trace pair start a end b" "pair twice"
refuse "$ENOENT" "remove nosuch" "remove an unknown entry"
refuse "$EPERM" "remove kern" "remove an entry of kernel code"

# Symbols.
refuse "$ENOENT" "trace no_such_function_kstats" "unknown function"
refuse "$ENOENT" "trace pcpu:no_such_function_kstats" "unknown pcpu function"
refuse "$ENOENT" "trace no_such_function_kstats via kretprobe" "unknown function via kretprobe"
refuse "$ENOENT" "trace p start no_such_function_kstats end $FN" "unknown start"
refuse "$ENOENT" "trace p start $FN end no_such_function_kstats" "unknown end"
refuse "$ENOENT" "trace p start __tracepoint_no_such_kstats end $FN" "unknown start tracepoint"
refuse "$ENOENT" "trace p start $FN end __tracepoint_no_such_kstats key task" "unknown end tracepoint"
refuse "$EINVAL" "trace notifier_call_chain" "function on the kprobe blacklist"
refuse "$EINVAL" "trace p start notifier_call_chain end $FN" "start on the kprobe blacklist"
refuse "$EINVAL" "trace jiffies" "data symbol"
refuse "Invalid or incomplete multibyte or wide character" \
	"trace p start kstats_helper_mark_start+1 end $FN" "offset inside an instruction: EILSEQ"

# kstats itself.
refuse "$EINVAL" "trace kstats_new" "a function of kstats"
refuse "$EINVAL" "trace kstats_new via kretprobe" "a function of kstats, via kretprobe"
refuse "$EINVAL" "trace pcpu:kstats_reset" "a function of kstats, pcpu"
refuse "$EINVAL" "trace p start __kstats_record end $FN" "start in kstats"
refuse "$EINVAL" "trace p start $FN end kstats_probe_show+0" "end in kstats"

# Mechanisms.
if ! kernel_has fprobe; then
	plan 2
	refuse "Operation not supported" "trace vfs_read via fprobe" "fprobe on a kernel without it"
fi

# One line in the log for each refusal, and for the 256 bytes' ENOENT.
LOG_LAST=$ALL
is "$(log_new | grep -c "kstats: _control: .* refused: ")" $((refused + 1)) \
	"each of the $refused refusals, and the 256 bytes' ENOENT, logged one line"

# The survivors still work.
helper work 5 1000 >/dev/null
is "$(grep CPUS "$KS/$FN" | awk '{ n += $6 } END { print n }')" 10 "the trace still counts"
is "$(grep CPUS "$KS/pair" | awk '{ n += $6 } END { print n }')" 10 "the pair still counts"
echo "remove $FN" > "$KS/_control"
echo "remove pair" > "$KS/_control"
helper delete kern >/dev/null
is "$(cat "$KS/_control")" "" "_control empty at the end"

# The refusal log: log_burst lines per 5 s, shared by _control and
# /dev/kstats; a new value starts a new window, 0 is refused.
LB=/sys/module/kstats/parameters/log_burst
is "$(write_err $LB 0)" "$EINVAL" "log_burst 0: EINVAL"
is "$(cat $LB)" $LOG_BURST "log_burst as it was"
echo 10 > $LB
log_mark
# Refused by the parser, written by the shell's builtin: the 12 take
# milliseconds, far inside one 5-s window, even on a slow arm64 guest
# (writes forked one by one, with a symbol lookup each, once took more
# than 5 s there and logged 11).
for i in 1 2 3 4 5 6; do
	echo "trace kstats_no_such_$i bits 9" 2>/dev/null >"$KS/_control"
	echo "trace kstats_no_such_$i bits 9" 2>/dev/null >/dev/kstats
done
is "$(log_new | grep -c "kstats: [_/a-z]*: 'trace kstats_no_such_[0-9] bits 9' refused: ")" 10 \
	"log_burst 10: 10 of 12 refusals logged"
echo $LOG_BURST > $LB
log_mark
write_err "$KS/_control" "trace kstats_no_such_7" >/dev/null
is "$(log_new | grep -c "'trace kstats_no_such_7' refused: ")" 1 \
	"log_burst raised: the next refusal logged at once"

# Only root writes _control.
mount -o remount,mode=755 /sys/kernel/debug
is "$(as_user "echo trace $FN > $KS/_control" 2>&1 | sed 's/.*: //')" \
	"Permission denied" "non-root cannot write _control"
is "$(as_user "cat $KS/_control")" "" "non-root can read _control"
mount -o remount,mode=700 /sys/kernel/debug
