#!/bin/sh
# Permissions: the files are 0444 (debugfs opens nothing else under
# lockdown), root still writes them, a non-root user cannot.
. /tests/lib.sh
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

echo "remove perm_t" > "$KS/_control"
echo "remove perm_k" > "$KS/_control"
helper delete perm >/dev/null
