#!/bin/sh
# value argN|retval cut to the type of the argument or return value, as
# BTF gives it: the ABI leaves the register bits above a narrow type
# undefined, and the helper's callers fill them with garbage. Pointers
# are refused. Without BTF (the helper on Debian 6.1, a compiler clone)
# the type must be given with "type", and where BTF is known a type
# given must agree with it.
# timeout: 200
. /tests/lib.sh
plan 28
load_modules

N=kstats_helper_narrow
IR=kstats_helper_iret
EOPNOTSUPP="Operation not supported"
EINVAL="Invalid argument"
# The types of narrow's arguments.
NT="s32 u16 s8 u8 u32"

if [ -e /sys/kernel/btf/kstats_helper ]; then
	# BTF gives each type; a type that contradicts it is refused.
	plan 9
	for i in 1 2 3 4 5; do
		is "$(ctl trace $N value arg$i as n$i)" OK "trace $N value arg$i"
	done
	is "$(ctl trace $IR value retval as ir)" OK "trace $IR value retval"
	log_mark
	is "$(ctl trace $N value arg1 type u32 as nbad)" "$EINVAL" "arg1 int as type u32: EINVAL"
	is "$(log_new | grep -c "refused: $N: BTF says type s32, not u32")" 1 "BTF disagrees: reason logged"
	is "$(ctl trace $N value arg2 type u16 as nok) $(ctl remove nok)" "OK OK" "arg2 u16 as type u16: OK"
else
	# No BTF (Debian 6.1): refused without a type, and taken with one.
	plan 9
	log_mark
	is "$(ctl trace $N value arg1 as nbad)" "$EINVAL" "value arg1 without BTF or type: EINVAL"
	is "$(log_new | grep -c "refused: $N has no BTF .*type u8 to s64")" 1 "no BTF: reason logged"
	is "$(ctl trace $IR value retval as nbad)" "$EINVAL" "value retval without BTF or type: EINVAL"
	i=0
	for t in $NT; do
		i=$((i + 1))
		is "$(ctl trace $N value arg$i type $t as n$i)" OK "trace $N value arg$i type $t"
	done
	is "$(ctl trace $IR value retval type s32 as ir)" OK "trace $IR value retval type s32"
fi

# Two calls; each argument in the low bits of its register, garbage above.
is "$(helper narrow 7 65535 -3 1 4000000000)" OK "narrow 7 65535 -3 1 4000000000"
is "$(helper narrow -5 1 100 0 1)" OK "narrow -5 1 100 0 1"
# The int returned in eax: 7, -22 (an errno), INT_MIN.
for x in deadbeef00000007 12345678ffffffea 0000000180000000; do
	is "$(helper iret $x)" OK "iret $x"
done

# ext NAME: "TYPE MIN MAX" of the entry
ext() { echo "$(field "$1" type) $(field "$1" min) $(field "$1" max)"; }
is "$(ext n1)" "s32 7 18446744073709551611" "arg1 int: 7 and -5, sign-extended"
is "$(ext n2)" "u16 1 65535" "arg2 u16: 1 and 65535"
is "$(ext n3)" "s8 100 18446744073709551613" "arg3 s8: 100 and -3, sign-extended"
is "$(ext n4)" "u8 0 1" "arg4 bool: 0 and 1"
is "$(ext n5)" "u32 1 4000000000" "arg5 u32: 1 and 4000000000"
is "$(ext ir) $(field ir errors)" "s32 7 18446744071562067968 1" \
	"retval int: 7 and INT_MIN, -22 counted as an error"
if [ -e /sys/kernel/btf/kstats_helper ]; then
	# The prototype is checked too.
	plan 4
	log_mark
	is "$(ctl trace $N value arg6 as nbad)" "$EOPNOTSUPP" "arg6 of a 5-argument function: EOPNOTSUPP"
	is "$(log_new | grep -c "refused: .*has no argument 6")" 1 "arg6: reason logged"
	log_mark
	is "$(ctl trace $N value retval as nbad)" "$EOPNOTSUPP" "retval of a void function: EOPNOTSUPP"
	is "$(log_new | grep -c "refused: .*is void")" 1 "void: reason logged"
fi

# A compiler clone (foo.isra.0) has no BTF of its own, and may take its
# arguments in other registers than its source: its type must be given.
CLONE=$(grep -m 1 -E '^[a-z_0-9]+\.(isra|constprop)\.[0-9]+$' \
	/sys/kernel/debug/tracing/available_filter_functions)
is "${CLONE:+found}" found "a compiler clone in available_filter_functions"
log_mark
is "$(ctl trace "$CLONE" value arg1 as nbad)" "$EINVAL" "value arg1 of the clone '$CLONE' without type: EINVAL"
is "$(log_new | grep -c "refused: $CLONE has no BTF")" 1 "clone: reason logged"


# Pointers (vmlinux has BTF on every target): addresses would be readable
# by every user, in the slots and in min and max.
log_mark
is "$(ctl trace vfs_read value arg1 as vbad)" "$EOPNOTSUPP" "value arg1 of vfs_read (struct file *): EOPNOTSUPP"
is "$(log_new | grep -c "refused: .*is a pointer")" 1 "pointer argument: reason logged"
log_mark
is "$(ctl trace filp_open value retval as vbad)" "$EOPNOTSUPP" "value retval of filp_open (struct file *): EOPNOTSUPP"
is "$(log_new | grep -c "refused: .*is a pointer")" 1 "pointer return value: reason logged"
is "$(ctl trace vfs_read value arg3 as vsize)" OK "value arg3 of vfs_read (size_t) is accepted"
is "$(field vsize type)" u64 "size_t: u64"
is "$(line vbad)$(line nbad)" "" "no entry left by the refusals"

for e in n1 n2 n3 n4 n5 ir vsize; do
	is "$(ctl remove $e)" OK "remove $e"
done
