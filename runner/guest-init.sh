#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the UML guest. Mounts the kernel filesystems, sets the sysctls the
# suite relies on, runs the plan the host wrote (one kselftest case a line)
# and powers off. Each case is bracketed by TOOSMALL:BEGIN/END lines that the
# host watches for deadlines and the parser reads for attribution.
#
# The host's stage dir (path in toosmall.stage= on the kernel command line) is
# re-bound at /run/toosmall, because the guest's own tmpfs hides the host /tmp:
#   plan    name<TAB>binary<TAB>harness-name<TAB>timeout, or
#   exec    a command to run instead of the plan (run.sh --exec)
#   tests/  the selftest binaries (read-only)
#   out/    the only writable host dir: the run's OUTPUT/guest
# and /dev/ubda is a sparse scratch disk, OOM_SCRATCH_DEV to the tests.
# Under run.sh --vm qemu (toosmall.vm=qemu) the root is virtiofs, out/ a 9p
# mount and the scratch disk /dev/vda.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/run/toosmall/out
# A spare disk the tests may format (the host's sparse image, see boot.sh),
# and a dir that survives a guest killed on request (TOOSMALL:KILL).
export OOM_SCRATCH_DEV=/dev/ubda
export OOM_STATE_DIR=/run/toosmall/out/state

poweroff_now()
{
	echo "TOOSMALL:DONE"
	echo o >/proc/sysrq-trigger
	# Power-off is asynchronous; if it never comes the host's deadline ends
	# us. Without a root (root_alive) there is no sleep to run: spin.
	sleep 30 2>/dev/null || while [ "$SECONDS" -lt 100000 ]; do :; done
	exit 1
}

# root_alive BIN: whether the test program BIN still starts (lists its
# tests). A test can take a network root with it (F14 did, when the root
# was 9p: the mount is dead once a clunk fails to allocate; files already
# open still read): every test after it in this boot would fail to start,
# so the boot ends. hostfs (UML) has no such failure, and is not asked.
root_alive()
{
	[ "${vm:-uml}" = qemu ] || return 0
	# The harness's -l exits 4 (KSFT_SKIP); 126/127: it could not start.
	timeout 10 "./$1" -l >/dev/null 2>&1
	case $? in 124 | 126 | 127) return 1 ;; esac
}

# Builtins where they do: every program exec'd is read over hostfs, and the
# time to the first test is the runner's loop time.
mount -t proc proc /proc
read -r cmdline </proc/cmdline
stage=
for word in $cmdline; do
	case "$word" in
	toosmall.stage=*) stage=${word#*=} ;;
	# run.sh --sites: every injected fault dumps its stack (failnth.h).
	toosmall.sites=1) export FAILNTH_SITES=1 ;;
	# run.sh --mutate: fail-nth checks are lied to (failnth.h).
	toosmall.mutate=1) export FAILNTH_MUTATE=1 ;;
	toosmall.vm=qemu) vm=qemu ;;
	# An emulated CPU: the tests' stall windows stretch (stall.h).
	toosmall.time_mul=*) export OOM_TIME_MUL=${word#*=} ;;
	esac
done
[ "${vm:-uml}" = uml ] || OOM_SCRATCH_DEV=/dev/vda
cd "$stage" || {
	echo "TOOSMALL:ERROR no stage dir '$stage'"
	poweroff_now
}
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# devtmpfs has no fd links; the kselftest runner writes to /dev/stdout.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# run.sh --sites: a fault on a __GFP_NOWARN allocation dumps no stack. The
# kmem tracepoints of a slab allocation that returned NULL print its call
# site (through tp_printk, on the boot line) and record its stack in the
# trace buffer, which trace_dump prints after each test: the runner counts
# the first caller outside the allocator. (An injected page allocation
# fault returns before mm_page_alloc: those stay unnamed.)
tracing=/sys/kernel/tracing
if [ "${FAILNTH_SITES:-0}" = 1 ]; then
	for ev in kmalloc kmem_cache_alloc; do
		ev=$tracing/events/kmem/$ev
		{ echo 'ptr == 0' >"$ev/filter" &&
			echo 'stacktrace if ptr == 0' >"$ev/trigger" &&
			echo 1 >"$ev/enable"; } 2>/dev/null ||
			echo "# toosmall: --sites: no $ev: __GFP_NOWARN slab faults go unnamed"
	done
fi
# trace_dump: under --sites, the failed allocations the test made, with
# their stacks, between TOOSMALL:TRACE markers; the buffer is emptied.
trace_dump()
{
	[ "${FAILNTH_SITES:-0}" = 1 ] && [ -w "$tracing/trace" ] || return 0
	echo "TOOSMALL:TRACE $1"
	timeout -k 5 30 grep -v '^#' "$tracing/trace"
	echo "TOOSMALL:TRACE_END $1"
	: >"$tracing/trace"
}
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir /run/toosmall
mount --bind . /run/toosmall
# The root is read-only; out/ gets its own writable hostfs (or 9p) mount.
# Whether the host lets it write is the host's business (see sandbox.sh).
if [ "${vm:-uml}" = qemu ]; then
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /run/toosmall/out
else
	mount -t hostfs -o "$stage/out" hostfs /run/toosmall/out
fi
cd /run/toosmall || poweroff_now
# The fio jobs' needs that earlier runs measured, which fio_test.c's
# bisections probe first (need_guess(): a guess its probes must bear out).
[ ! -f fio-needs ] || export OOM_FIO_NEEDS=/run/toosmall/fio-needs
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p "$OOM_STATE_DIR"

# Everything but debug messages reaches the console; a task blocked for 10s
# is reported well before the host's per-test deadline; OOM reports stay short.
echo "7 4 1 7" >/proc/sys/kernel/printk
echo 10 >/proc/sys/kernel/hung_task_timeout_secs
echo 0 >/proc/sys/vm/oom_dump_tasks
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null

read -r release </proc/sys/kernel/osrelease
while read -r key memtotal _ && [ "$key" != MemTotal: ]; do :; done </proc/meminfo
read -r uptime _ </proc/uptime
echo "TOOSMALL:READY release=$release memtotal_kb=$memtotal uptime_s=$uptime"

if [ -f exec ]; then
	echo "TOOSMALL:BEGIN exec timeout=0"
	bash exec </dev/null 2>&1
	echo "TOOSMALL:END exec rc=$?"
	poweroff_now
fi

# kmemleak_scan: with kmemleak (the debug profile), report the leaks of the
# test that just ran, inside its BEGIN/END so they are its splats. As
# syzkaller does: scan, wait out the minimum object age (5 s), scan again.
kmemleak=/sys/kernel/debug/kmemleak
kmemleak_scan()
{
	[ -w "$kmemleak" ] || return 0
	echo scan >"$kmemleak"
	sleep 5
	echo scan >"$kmemleak"
	cat "$kmemleak"
	echo clear >"$kmemleak"
}

# leftovers: sets LEFT to the pids of user processes other than init and
# this shell (kernel threads are kthreadd's children). It runs after every
# test, so it forks nothing, not even a subshell for its result, and reads
# one line of each /proc/PID/stat (of /proc/PID/status it read seven, and
# the scan and its subshell took 0.11 s of UML time a test).
leftovers()
{
	local d pid line

	LEFT=
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		case "$pid" in 1 | 2 | "$BASHPID") continue ;; esac
		# Gone since the glob: not left over.
		read -r line 2>/dev/null <"$d/stat" || continue
		# "PID (COMM) STATE PPID ...", where COMM may hold ") ".
		line=${line##*) }
		line=${line#* }
		[ "${line%% *}" = 2 ] || LEFT+="$pid "
	done
}

# reap_leftovers NAME: kill what the test left running; a task that will
# not die (stuck in D state) taints every later test of this boot, so say
# so, dump the blocked tasks, and end the boot: the host resumes after NAME.
reap_leftovers()
{
	local i

	leftovers
	[ -n "$LEFT" ] || return 0
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $LEFT 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		leftovers
		[ -n "$LEFT" ] || return 0
		sleep 0.1
	done
	LEFT=${LEFT% }
	echo "TOOSMALL:STUCK $1 pids=${LEFT// /,}"
	echo w >/proc/sysrq-trigger
	return 1
}

# The knobs that decide whether an allocation fails, as the boot set them:
# the fault-injection ones and the vm sysctls of overcommit, watermarks,
# swap and the OOM killer. A test that changes one puts it back itself
# (util.c's knob_set() and knobs_restore(), on exit and on the fatal
# signals; knobs_keep() in the harness's main process), but a test killed
# by SIGKILL cannot, and the harness's own per-test timeout kills so. Every
# later test of this boot would run with them changed. The fault counters
# times and space, which the faults decrement, are left out.
knob_paths=()
knob_vals=()
for f in /sys/kernel/debug/failslab/* /sys/kernel/debug/fail_page_alloc/* \
	/proc/sys/vm/{overcommit_memory,overcommit_ratio,overcommit_kbytes} \
	/proc/sys/vm/{min_free_kbytes,watermark_scale_factor,swappiness} \
	/proc/sys/vm/{panic_on_oom,oom_kill_allocating_task}; do
	case "${f##*/}" in times | space) continue ;; esac
	[[ -f $f && -w $f ]] || continue
	read -r -u 3 v 2>/dev/null 3<"$f" || continue
	knob_paths+=("$f")
	knob_vals+=("$v")
done

# knobs_check NAME: name the knobs the test NAME left changed, as
# knob:boot->now (the path past /sys/kernel/debug/ or /proc/sys/), and put
# them back (":not restored" when that fails). Builtins, no fork; on fd 3,
# which is twice as fast as on stdin, which bash saves and restores around
# each read: 15 ms for the 27 fault-injection knobs in UML.
knobs_check()
{
	local i v knob changed=

	for i in "${!knob_paths[@]}"; do
		read -r -u 3 v 2>/dev/null 3<"${knob_paths[i]}" || v='?'
		[ "$v" != "${knob_vals[i]}" ] || continue
		knob=${knob_paths[i]#/sys/kernel/debug/}
		changed+=" ${knob#/proc/sys/}:${knob_vals[i]}->$v"
		echo "${knob_vals[i]}" 2>/dev/null >"${knob_paths[i]}" ||
			changed+=":not restored"
	done
	[ -z "$changed" ] || echo "TOOSMALL:KNOBS $1$changed"
}

# What leaked while booting is not a test's.
[ ! -w "$kmemleak" ] || echo clear >"$kmemleak"

cd tests || poweroff_now
while IFS=$'\t' read -r name bin hname timeout _; do
	[ "${FAILNTH_SITES:-0}" = 0 ] || : 2>/dev/null >"$tracing/trace"
	# The last pid given out (/proc/loadavg's fifth field): the test's
	# tasks have higher ones, and a leak kmemleak reports after a later
	# test is still traced to it by its pid.
	read -r _ _ _ _ lastpid _ </proc/loadavg
	echo "TOOSMALL:BEGIN $name timeout=$timeout lastpid=$lastpid"
	# Microseconds (EPOCHREALTIME has six decimals), and bash's arithmetic
	# and printf: an awk here cost 0.04 s a test.
	t0=${EPOCHREALTIME/[.,]/}
	timeout -k 5 "$timeout" "./$bin" -r "$hname" </dev/null 2>&1
	rc=$?
	us=$((${EPOCHREALTIME/[.,]/} - t0))
	printf -v secs '%d.%03d' $((us / 1000000)) $((us / 1000 % 1000))
	stuck=0
	reap_leftovers "$name" || stuck=1
	knobs_check "$name"
	kmemleak_scan
	trace_dump "$name"
	if ! root_alive "$bin"; then
		echo "TOOSMALL:ROOTLOST $name"
		stuck=1
	fi
	echo "TOOSMALL:END $name rc=$rc secs=$secs"
	[ "$stuck" = 0 ] || poweroff_now
done <../plan
poweroff_now
