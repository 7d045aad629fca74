#!/bin/sh
# /dev/kstats: the _control of a locked-down machine, here without
# lockdown (89-lockdown.sh and 99-lockdown-raise.sh raise it). The same
# commands as _control, start, stop and reset NAME in both, the same
# listing, and the writer's capabilities checked by kstats itself.
# timeout: 200
. /tests/lib.sh
plan 53
load_modules

DEV=/dev/kstats
FN=kstats_helper_work
EINVAL="Invalid argument"
ENOENT="No such file or directory"
EPERM="Operation not permitted"
EACCES="Permission denied"

is "$(stat -c '%F %a %u' $DEV)" "character special file 600 0" "$DEV: a character device, 0600, root's"
is "$(grep -c ' kstats$' /proc/misc)" 1 "a misc device"

# dev COMMAND: one write into /dev/kstats; OK or the error.
dev() { write_err $DEV "$*"; }

helper new dv 3 >/dev/null
is "$(dev "trace $FN as dv_t")" OK "trace through $DEV"
is "$(dev "trace $FN via kretprobe as dv_k")" OK "a second trace through $DEV"
is "$(cat $DEV)" "$(cat "$KS/_control")" "$DEV reads as _control"
is "$(grep -c '^name dv' $DEV)" 3 "$DEV lists the three entries"
is "$(helper work 5 0 dv)" OK "5 calls"
is "$(samples dv_t) $(samples dv_k) $(samples dv)" "5 5 5" "the entries count"

# start, stop and reset NAME: of a traced entry and of a kernel one.
for e in dv_t dv; do
	is "$(dev "stop $e")" OK "stop $e through $DEV"
	is "$(field $e state)" stopped "$e stopped"
done
is "$(helper work 4 0 dv)" OK "4 calls while stopped"
is "$(samples dv_t) $(samples dv_k) $(samples dv)" "5 9 5" "stopped entries count nothing"
is "$(dev "reset dv_k")" OK "reset dv_k through $DEV"
is "$(samples dv_k)" 0 "dv_k reset"
for e in dv_t dv; do
	is "$(dev "start $e")" OK "start $e through $DEV"
	is "$(field $e state)" running "$e running"
done
is "$(helper work 3 0 dv)" OK "3 calls"
is "$(samples dv_t) $(samples dv_k) $(samples dv)" "8 3 8" "started again, they count"
# The same commands through _control.
is "$(ctl "stop dv_k")" OK "stop dv_k through _control"
is "$(ctl "reset dv")" OK "reset dv through _control"
is "$(helper work 2 0 dv)" OK "2 calls"
is "$(samples dv_t) $(samples dv_k) $(samples dv)" "10 3 2" "stop and reset through _control"
is "$(ctl "start dv_k")" OK "start dv_k through _control"
is "$(field dv_k state)" running "dv_k running"

# Bad input: an errno and one line in the log naming $DEV.
before=$(cat $DEV)
log_mark
is "$(dev "start nosuch")" "$ENOENT" "start of no entry: ENOENT"
is "$(dev "reset")" "$EINVAL" "reset without a name: EINVAL"
is "$(dev "stop dv dv_t")" "$EINVAL" "stop of two names: EINVAL"
is "$(dev "restart dv")" "$EINVAL" "an unknown command: EINVAL"
is "$(dev "trace $FN as dv_t")" "File exists" "a name taken: EEXIST"
is "$(dev "remove dv")" "$EPERM" "remove of a kernel entry: EPERM"
is "$(log_new | grep -c "kstats: /dev/kstats: '.*' refused: ")" 6 "each refusal logged, naming $DEV"
is "$(cat $DEV)" "$before" "nothing changed"

# Capabilities: checked by kstats itself, whatever the mode says; the
# credentials are the opener's.
chmod 0666 $DEV
log_mark
is "$(as_user "echo 'remove dv_t' > $DEV" 2>&1 | sed 's/.*: //')" "$EPERM" \
	"a user without CAP_PERFMON cannot write, even at mode 0666"
is "$(log_new | grep -c "kstats: /dev/kstats: command refused: needs CAP_PERFMON or CAP_SYS_ADMIN")" 1 \
	"the refusal logged"
is "$(as_user "cat $DEV")" "$before" "that user reads the listing"
exec 5>$DEV
is "$(as_user "echo 'stop dv' >&5" 2>&1)" "" "a descriptor opened by root writes for a user"
exec 5>&-
is "$(field dv state)" stopped "dv stopped through it"
chmod 0600 $DEV
is "$(as_user "cat $DEV" 2>&1 | sed 's/.*: //')" "$EACCES" "at mode 0600 the user cannot open it"

is "$(dev "remove dv_t")" OK "remove through $DEV"
is "$(dev "remove dv_k")" OK "remove the other"
helper delete dv >/dev/null
is "$(cat $DEV)" "" "$DEV: nothing listed"
check "rmmod kstats_helper" rmmod kstats_helper
# An open $DEV is then kstats' one user, and alone keeps it loaded.
is "$(refs)" 0 "kstats has no user left"
exec 5<$DEV
is "$(refs)" 1 "an open $DEV holds kstats"
is "$(rmmod kstats 2>/dev/null && echo unloaded)" "" "rmmod kstats fails while $DEV is open"
exec 5<&-
is "$(refs)" 0 "closed, it holds it no more"
check "rmmod kstats" rmmod kstats
is "$(ls $DEV 2>&1 | sed 's/.*: //')" "$ENOENT" "$DEV goes with kstats"
load_modules
is "$(stat -c '%F %a' $DEV)" "character special file 600" "$DEV back with kstats"
