#!/bin/sh
# Permissions: the files are 0444 (debugfs opens nothing else under
# lockdown), root still writes them, a non-root user cannot, even where
# the mode would let it; _outliers and _keys are root's only.
. /tests/lib.sh
plan 24
load_modules

FN=kstats_helper_work
EACCES="Permission denied"
helper new perm 3 >/dev/null
echo "trace $FN as perm_t" > "$KS/_control"
is "$(stat -c %a "$KS/_control" "$KS/perm" "$KS/perm_t" | sort -u)" 444 "files are 0444"
is "$(write_err "$KS/perm" stop)" OK "root writes an entry"
is "$(write_err "$KS/perm_t" reset)" OK "root writes a trace entry"
is "$(write_err "$KS/_control" "trace $FN via kretprobe as perm_k")" OK "root writes _control"

mount -o remount,mode=755 /sys/kernel/debug
before=$(cat "$KS/_control")
for f in _control perm perm_t; do
	is "$(as_user "echo reset > $KS/$f" 2>&1 | sed 's/.*: //')" "$EACCES" \
		"non-root cannot write $f"
done
is "$(as_user "echo 'remove perm_t' > $KS/_control" 2>&1 | sed 's/.*: //')" \
	"$EACCES" "non-root cannot remove"
is "$(as_user "echo 'trace vfs_read' > $KS/_control" 2>&1 | sed 's/.*: //')" \
	"$EACCES" "non-root cannot trace"
is "$(as_user "cat $KS/_control")" "$before" "non-root reads _control"
is "$(as_user "cat $KS/perm")" "$(cat "$KS/perm")" "non-root reads an entry"
is "$(cat "$KS/_control")" "$before" "_control unchanged"
mount -o remount,mode=700 /sys/kernel/debug
is "$(as_user "cat $KS/_control" 2>&1 | sed 's/.*: //')" "$EACCES" \
	"nobody but root gets into the default debugfs (mode 700)"

# The mode is not what guards: whoever opens a file made writable for
# all, without CAP_PERFMON or CAP_SYS_ADMIN, gives no command through it,
# and what shows other tasks (their stacks, comms, pids) opens for
# CAP_SYS_ADMIN only, as /proc/PID/stack does.
EPERM="Operation not permitted"
echo "trace $FN outliers 2 by pid as perm_o" > "$KS/_control"
is "$(helper work 3 0 perm)" OK "3 calls"
is "$(stat -c %a "$KS/_outliers/perm_o" "$KS/_keys/perm_o" | sort -u)" 400 \
	"_outliers and _keys files are 0400"
check "root reads _outliers/perm_o" grep -q "^outlier 1 value " "$KS/_outliers/perm_o"
check "root reads _keys/perm_o" grep -q "^key [0-9]* min " "$KS/_keys/perm_o"
before=$(cat "$KS/_control")
mount -o remount,mode=755 /sys/kernel/debug
chmod 666 "$KS/_control" "$KS/perm_t"
chmod 444 "$KS/_outliers/perm_o" "$KS/_keys/perm_o"
log_mark
is "$(as_user "echo 'trace vfs_read as perm_u' > $KS/_control" 2>&1 | sed 's/.*: //')" \
	"$EPERM" "non-root cannot trace through a _control of mode 666"
is "$(log_new | grep -c "kstats: _control: command refused: needs CAP_PERFMON or CAP_SYS_ADMIN")" 1 \
	"the refusal logged"
is "$(as_user "echo stop > $KS/perm_t" 2>&1 | sed 's/.*: //')" "$EPERM" \
	"non-root cannot stop an entry of mode 666"
is "$(as_user "cat $KS/_outliers/perm_o" 2>&1 | sed 's/.*: //')" "$EACCES" \
	"non-root cannot read _outliers/perm_o of mode 444"
is "$(as_user "cat $KS/_keys/perm_o" 2>&1 | sed 's/.*: //')" "$EACCES" \
	"non-root cannot read _keys/perm_o of mode 444"
chmod 444 "$KS/_control" "$KS/perm_t"
mount -o remount,mode=700 /sys/kernel/debug
is "$(cat "$KS/_control")" "$before" "_control unchanged"
is "$(field perm_t state)" running "perm_t still running"

echo "remove perm_o" > "$KS/_control"
echo "remove perm_t" > "$KS/_control"
echo "remove perm_k" > "$KS/_control"
helper delete perm >/dev/null
