#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selfcheck-guest.sh -r CASE: provoke one failure in the guest, for the
# detector self-check (run.sh --self-check, cases in runner/selfcheck.tsv).
# Prints KTAP like a one-test kselftest; a case that kills the kernel, hangs
# or leaks never reaches its "ok" line, or reaches it with a splat on the
# console: the runner must tell which. Never run outside the self-check's
# UML guest.

set -u

case_name=${2:-}
lkdtm=/sys/kernel/debug/provoke-crash/DIRECT
detect=/sys/kernel/debug/toosmall_detect
knob=/sys/kernel/debug/failslab/verbose

echo "TAP version 13"
echo "1..1"

fail()
{
	echo "# $*"
	echo "not ok 1 $case_name"
	exit 1
}

provoke()
{
	[ -w "$lkdtm" ] || fail "no $lkdtm: needs CONFIG_LKDTM and debugfs"
	echo "# provoking $1"
	echo "$1" >"$lkdtm"
}

module()
{
	[ -d "$detect" ] || insmod ./toosmall_detect.ko ||
		fail "insmod toosmall_detect.ko failed"
}

case "$case_name" in
detect.clean | detect.clean_after)
	# A clean test: a little work, no splat.
	dd if=/dev/zero of=/tmp/clean bs=64k count=16 status=none ||
		fail "tmpfs write"
	cmp -s /tmp/clean /dev/zero -n 1048576 || fail "tmpfs read back"
	rm -f /tmp/clean
	;;
detect.failnth_correct)
	module
	exec ./silent_failure_test -r module_value.correct.stored_or_enomem
	;;
detect.failnth_silent)
	module
	exec ./silent_failure_test -r module_value.silent.stored_or_enomem
	;;
detect.failnth_leaky)
	# The sweep passes (every failure is a clean ENOMEM); the kmemleak
	# scan the guest's init runs after the test must find the note that
	# value_leaky loses when its second kmalloc() fails.
	module
	exec ./silent_failure_test -r module_value.leaky.stored_or_enomem
	;;
detect.knobs_left)
	# Changes failslab's verbose level and passes, as a test killed by
	# SIGKILL would leave it.
	read -r was 2>/dev/null <"$knob" || fail "no $knob: needs CONFIG_FAILSLAB and debugfs"
	echo "$was" >/tmp/knob.before || fail "cannot save $knob in /tmp"
	echo "# $knob: $was, now $((was == 1 ? 0 : 1))"
	echo $((was == 1 ? 0 : 1)) >"$knob" || fail "cannot write $knob"
	;;
detect.knobs_back)
	read -r was 2>/dev/null </tmp/knob.before ||
		fail "no /tmp/knob.before: detect.knobs_left did not run in this boot"
	read -r now <"$knob" || fail "cannot read $knob"
	[ "$now" = "$was" ] ||
		fail "$knob is $now after detect.knobs_left, was $was: not put back"
	echo "# $knob: $now, as before detect.knobs_left"
	;;
detect.lkdtm_warning) provoke WARNING ;;
detect.lkdtm_bug) provoke BUG ;;
detect.lkdtm_exception) provoke EXCEPTION ;;
detect.lkdtm_panic) provoke PANIC ;;
detect.lkdtm_hung_task) provoke HUNG_TASK ;;
detect.lkdtm_softlockup)
	# LKDTM spins with preemption off for twice the watchdog threshold.
	echo 5 >/proc/sys/kernel/watchdog_thresh
	provoke SOFTLOCKUP
	;;
detect.kasan_uaf) provoke READ_AFTER_FREE ;;
detect.mutex_held)
	module
	echo 1 >"$detect/hold_mutex"
	# The next taker blocks for good: the hung-task detector must say so.
	# (lockdep_sys_exit(), which would name the lock on the way out, is
	# generic entry code, which UML does not use.)
	echo 1 >"$detect/hold_mutex"
	;;
detect.lockdep_abba)
	module
	echo 1 >"$detect/lock_abba"
	;;
detect.kmemleak)
	# Reported by the kmemleak scan the guest's init runs after each test.
	# Eight objects, not one: kmemleak reports what nothing points to,
	# and a stale pointer left by an earlier user of the same slot counts.
	# After a lockdep splat earlier in the boot, a lone leaked kmalloc-1k
	# object kept count=1 through four scans and went unreported (CI).
	module
	for i in 1 2 3 4 5 6 7 8; do
		echo 1000 >"$detect/leak" || fail "leak write $i"
	done
	;;
detect.user_hang)
	# Sleeps past the guest's deadline: the guest's timeout must end it.
	sleep 600
	;;
detect.flood)
	# 20000 lines as fast as the console takes them; must end in time.
	seq -f "# flood line %g: the console must keep up" 20000
	;;
detect.kill_init)
	module
	echo 1 >"$detect/kill_init"
	sleep 10
	fail "init survived"
	;;
detect.host_kill)
	# The host SIGKILLs UML at this line: a crash the test cannot report.
	echo "TOOSMALL:KILL unannounced"
	sleep 10
	fail "still running after the host's kill"
	;;
*) fail "unknown case '$case_name'" ;;
esac
echo "ok 1 $case_name"
