#!/bin/sh
# Bad input: exact errno, a reason in the log, and nothing changed.
. /tests/lib.sh
plan 38
load_modules

helper new err 3 >/dev/null
helper_on 0 record err 42 3
before=$(cat "$KS/err")
ctl_before=$(cat "$KS/_control")

bad_write() {
	log_mark
	is "$(write_err "$KS/err" "$1")" "Invalid argument" "write '$2' gets EINVAL"
	is "$(cat "$KS/err")" "$before" "write '$2' leaves the entry unchanged"
	check "write '$2' logs a reason" logged 'kstats: err: '
}
bad_write "bogus" "bogus"
bad_write "
" "newline only"
bad_write "startx" "startx"
bad_write "start stop" "two words"
bad_write " start" "leading blank"
bad_write "reset

" "two newlines"
bad_write "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "oversized"
bad_write "$(printf 'st\001rt')" "control byte"
is "$(cat "$KS/_control")" "$ctl_before" "_control unchanged by bad writes"

# kstats_new() errors, through the helper.
is "$(helper new _under 3)" "Invalid argument" "name starting with _"
is "$(helper new bad/name 3)" "Invalid argument" "name with /"
is "$(helper new . 3)" "Invalid argument" "name ."
is "$(helper new .. 3)" "Invalid argument" "name .."
long=0123456789012345678901234567890123456789012345678901234567890123
is "$(helper new $long 3)" "Invalid argument" "64-character name"
is "$(helper new ${long%?} 3)" OK "63-character name"
is "$(helper new a-Z_0.9:x 3)" OK "name with every allowed class"
is "$(helper new fine 6)" "Invalid argument" "bits 6"
is "$(helper new fine 255)" "Invalid argument" "bits 255"
is "$(helper new err 3)" "File exists" "duplicate name"
is "$(helper new err 1)" "File exists" "duplicate name with other bits"
is "$(cat "$KS/err")" "$before" "duplicate leaves the entry unchanged"
is "$(ls "$KS" | sort | tr '\n' ' ')" "${long%?} _control _keys _outliers a-Z_0.9:x err " "only valid entries exist"

helper delete ${long%?} >/dev/null
helper delete a-Z_0.9:x >/dev/null
helper delete err >/dev/null
