# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Stage "boot": run the plan in UML, watch the console, enforce deadlines.
#
# The console goes through a FIFO to mawk, which appends it to $CONSOLE and
# copies the guest's TOOSMALL: marker lines to an events file that the watch
# loop polls (-W interactive: mawk's read-ahead would hold lines back). The host writes its own "TOOSMALL-HOST:" lines into the same
# log, so the log alone replays every verdict (run.sh --parse).
#
# Deadlines: the guest must be READY within BOOT_TIMEOUT; each test must END
# within its timeout plus GUEST_GRACE (the guest's own `timeout` fires first,
# this catches a guest that stopped scheduling); the gap between two tests is
# bounded by GAP_TIMEOUT; the whole run by RUN_DEADLINE (epoch seconds).
# When one passes: evidence (sysrq w, sysrq m via mconsole), halt, kill.

readonly BOOT_TIMEOUT=30
# An x86_64 kernel under TCG boots several times slower than UML; set by
# run.sh from the accelerator.
BOOT_SLOWDOWN=1
# The least -m an x86_64 defconfig guest boots and runs the suite in.
readonly QEMU_MIN_MB=128
readonly GAP_TIMEOUT=30
readonly GUEST_GRACE=15
readonly HALT_TIMEOUT=10
readonly MCONSOLE_TIMEOUT=10
readonly CONSOLE_CAP_MB=${TOOSMALL_CONSOLE_CAP_MB:-64}
readonly SITES_CONSOLE_CAP_MB=${TOOSMALL_CONSOLE_CAP_MB:-512}

host_mark()
{
	printf 'TOOSMALL-HOST: %s\n' "$*" >>"$CONSOLE"
}

# wait_bounded PID SECS: 0 once PID has exited, 1 if it still runs after SECS.
wait_bounded()
{
	local pid=$1 deadline

	deadline=$(($(date +%s) + $2))
	while kill -0 "$pid" 2>/dev/null; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
	return 0
}

# mconsole CMD...: ask the running UML, bounded; output into the console
# log. Under --vm qemu, QEMU's monitor does the same: "sysrq X" presses
# alt-sysrq-X on the guest's keyboard, "halt" quits QEMU.
mconsole()
{
	local sock="$RUN_TMP/stage/uml/$UMID/mconsole" cmd=$*

	if [ "${VM:-uml}" = qemu ]; then
		sock="$RUN_TMP/stage/uml/$UMID.mon"
		case "$cmd" in
		"sysrq "?) cmd="sendkey alt-sysrq-${cmd#sysrq }" ;;
		halt) cmd=quit ;;
		esac
	fi
	[ -S "$sock" ] || {
		host_mark "mconsole socket missing: $*"
		return 1
	}
	if [ "${VM:-uml}" = qemu ]; then
		timeout "$MCONSOLE_TIMEOUT" python3 "$TOPDIR/runner/qmon.py" "$sock" "$cmd" 2>&1 |
			sed 's/^/TOOSMALL-HOST: qemu monitor: /' >>"$CONSOLE"
		return
	fi
	timeout "$MCONSOLE_TIMEOUT" uml_mconsole "$sock" "$@" 2>&1 |
		grep -v "^Warning: couldn't stat file" |
		sed 's/^/TOOSMALL-HOST: mconsole: /' >>"$CONSOLE"
}

# qemu_argv STAGE MEM SOCK: the QEMU command line that boots the x86_64
# kernel the way UML boots (see boot_once), into VM_ARGV: the host's /
# read-only over virtiofs as the root (virtiofsd is started by sandbox.sh
# on SOCK; virtiofs needs the guest's memory shared with it), the run's
# out dir writable over 9p, the scratch disk as /dev/vda,
# the serial console on stdout, the monitor on a unix socket in the uml
# dir. KVM where the user who runs it can open /dev/kvm, else TCG
# (QEMU_ACCEL says which).
#
# Not 9p for the root: a 9p mount is dead for good once one clunk cannot
# allocate its request (F14), and a test under fault injection closes the
# binaries it runs. A FUSE release is allocated at open and cannot fail.
qemu_argv()
{
	local stage=$1 mem=$2 sock=$3 cpu=max

	if [ "$QEMU_ACCEL" = kvm ]; then
		cpu=host
	fi
	VM_ARGV=(qemu-system-x86_64 -nodefaults -no-reboot -display none
		-accel "$QEMU_ACCEL" -cpu "$cpu" -smp 1 -m "$mem"
		-object "memory-backend-memfd,id=mem,size=$mem,share=on"
		-machine memory-backend=mem
		-kernel "$stage/linux"
		-serial stdio
		-monitor "unix:$stage/uml/$UMID.mon,server=on,wait=off"
		-chardev "socket,id=root,path=$sock"
		-device "vhost-user-fs-pci,chardev=root,tag=root"
		-virtfs "local,path=$stage/out,mount_tag=out,security_model=none,multidevs=remap"
		-drive "file=$stage/disk/scratch.img,format=raw,if=virtio,cache=unsafe"
		-append "console=ttyS0 root=root rootfstype=virtiofs ro panic=-1 init=$stage/init toosmall.stage=$stage toosmall.vm=qemu toosmall.time_mul=$QEMU_TIME_MUL toosmall.sites=$SITES toosmall.mutate=$MUTATE printk.time=1${TP_PRINTK:+ $TP_PRINTK}")
}

# qemu_mem MEM: the -m a guest that asked for MEM gets: no less than
# QEMU_MIN_MB, the least an x86_64 defconfig kernel boots and runs in.
qemu_mem()
{
	local mb

	mb=$(size_mb "$1")
	if [ "$mb" -lt "$QEMU_MIN_MB" ]; then
		host_mark "mem $1 raised to ${QEMU_MIN_MB}M: an x86_64 kernel needs that much"
		mb=$QEMU_MIN_MB
	fi
	printf '%sM\n' "$mb"
}

# evidence REASON: what the mails had to ask for by hand, before the kill.
evidence()
{
	host_mark "evidence: $1"
	mconsole sysrq w
	mconsole sysrq m
	# The dumps are printk'd; give the console a moment to drain.
	sleep 1
	host_mark "evidence end"
}

# uml_stop: halt through mconsole, then kill the whole session we started.
uml_stop()
{
	[ -n "${UML_PID:-}" ] || return 0
	if kill -0 "$UML_PID" 2>/dev/null; then
		mconsole halt >/dev/null 2>&1
		if ! wait_bounded "$UML_PID" "$HALT_TIMEOUT"; then
			host_mark "halt ignored after ${HALT_TIMEOUT}s: SIGKILL to session $UML_PID"
		fi
		kill -KILL -- "-$UML_PID" 2>/dev/null
	fi
	wait "$UML_PID" 2>/dev/null
	UML_PID=
}

tee_stop()
{
	[ -n "${TEE_PID:-}" ] || return 0
	wait_bounded "$TEE_PID" 5 || kill -KILL "$TEE_PID" 2>/dev/null
	wait "$TEE_PID" 2>/dev/null
	TEE_PID=
}

# boot_once N MEM: boot UML once with MEM over $RUN_TMP/stage/plan. Sets
# BOOT_BEGUN to the names of the tests that began and BOOT_READY to 1 if the
# guest came up.
boot_once()
{
	local n=$1 mem=$2 stage="$RUN_TMP/stage" fifo="$RUN_TMP/console.fifo"
	local events="$RUN_TMP/events" seen=0 line cur="" deadline why="" t_begin
	local vfs_sock="" cpu=""
	local -a lines words unshare_cmd

	UMID="toosmall-$$-${LANE:+$LANE-}$n"
	BOOT_BEGUN=()
	BOOT_READY=0
	: >"$events"
	rm -f "$fifo"
	mkfifo "$fifo" || die "$EXIT_INFRA" "mkfifo $fifo failed"

	# Past the cap (a kernel that floods the console, as the OOM killer
	# with nothing to kill does) kernel lines are kept only when they name
	# a splat; the tests' own lines and the markers always are. Under
	# --sites every injected fault prints its stack, which the site count
	# reads: 68 MB for the fail-nth programs in one UML (2026-12-06), so
	# the cap is SITES_CONSOLE_CAP_MB there.
	local cap_mb=$CONSOLE_CAP_MB
	[ "$SITES" != 1 ] || cap_mb=$SITES_CONSOLE_CAP_MB
	mawk -W interactive -v out="$CONSOLE" -v ev="$events" \
		-v size="$(stat -c %s "$CONSOLE")" -v cap=$((cap_mb << 20)) '
		{
			kernel = $0 ~ /^(<[0-9]>)?\[ *[0-9]+\.[0-9]+\]/
			if (size < cap || !kernel ||
			    $0 ~ /BUG|WARNING|Oops|panic|INFO: task|general protection|lockup|lock held|unreferenced object|Call Trace/) {
				print >>out
				fflush(out)
				size += length($0) + 1
			} else if (!capped) {
				capped = 1
				print "TOOSMALL-HOST: console over " cap / 1048576 " MB: kernel lines dropped from here unless they name a splat" >>out
				fflush(out)
			}
			i = index($0, "TOOSMALL:")
			if (i) {
				m = substr($0, i)
				sub(/\r$/, "", m)
				print m >>ev
				fflush(ev)
			}
		}' <"$fifo" &
	TEE_PID=$!

	# --sites: the kmem tracepoints print through printk (guest-init.sh).
	local TP_PRINTK=
	[ "$SITES" != 1 ] || TP_PRINTK=tp_printk
	if [ "$(id -u)" = 0 ]; then
		unshare_cmd=(unshare --mount --propagation private)
	else
		unshare_cmd=(unshare --user --map-root-user --mount --propagation private)
	fi
	if [ "${VM:-uml}" = qemu ]; then
		vfs_sock="$stage/uml/$UMID.vfs"
		mem=$(qemu_mem "$mem")
		qemu_argv "$stage" "$mem" "$vfs_sock"
	else
		# shellcheck disable=SC2054 # con0=null,fd:1 is one argument
		VM_ARGV=(setarch x86_64 -R "$stage/linux" mem="$mem"
			root=/dev/root rootfstype=hostfs rootflags=/ ro
			init="$stage/init" toosmall.stage="$stage" toosmall.sites="$SITES"
			toosmall.mutate="$MUTATE"
			uml_dir="$stage/uml" umid="$UMID"
			ubd0="$stage/disk/scratch.img"
			con0=null,fd:1 con=null printk.time=1 ${TP_PRINTK:+"$TP_PRINTK"})
		cpu=$(uml_cpu)
		[ -z "$cpu" ] || VM_ARGV=(taskset -c "$cpu" "${VM_ARGV[@]}")
	fi
	host_mark "boot $n umid=$UMID mem=$mem kernel=$KERNEL${cpu:+ cpu=$cpu}${QEMU_ACCEL:+ vm=qemu accel=$QEMU_ACCEL}"
	TS_KERNEL="$KERNEL" TS_INIT="$TOPDIR/runner/guest-init.sh" \
		TS_TESTS="$TESTS_DIR" TS_OUT="$GUEST_OUT" TS_TMP_MB="$TMP_MB" \
		TS_KVM="${TS_KVM:-0}" TS_VIRTIOFS="$vfs_sock" setsid "${unshare_cmd[@]}" "$TOPDIR/runner/sandbox.sh" \
		"$stage" "$SANDBOX_UID" -- "${VM_ARGV[@]}" \
		</dev/null >"$fifo" 2>&1 &
	UML_PID=$!
	# For run.sh's lanes_stop, should this lane be killed before it can
	# halt its UML itself.
	[ -z "${LANE:-}" ] || echo "$UML_PID" >"$RUN_TMP/uml.pid"

	deadline=$(($(date +%s) + BOOT_TIMEOUT * BOOT_SLOWDOWN))
	while :; do
		mapfile -t -s "$seen" lines <"$events"
		seen=$((seen + ${#lines[@]}))
		for line in "${lines[@]}"; do
			# Split the marker into words: TOOSMALL:WHAT NAME KEY=VALUE...
			read -r -a words <<<"$line"
			set -- "${words[@]}"
			case "$1" in
			TOOSMALL:READY)
				BOOT_READY=1
				log "guest up: ${*:2}"
				deadline=$(($(date +%s) + GAP_TIMEOUT))
				;;
			TOOSMALL:BEGIN)
				cur=$2
				t_begin=$EPOCHREALTIME
				BOOT_BEGUN+=("$cur")
				local t=${3#timeout=}
				[ "$t" -gt 0 ] 2>/dev/null || t=$((RUN_DEADLINE - $(date +%s)))
				deadline=$(($(date +%s) + t + GUEST_GRACE))
				progress_begin "$cur"
				;;
			TOOSMALL:END)
				progress_end "$2" "${3#rc=}"
				cur=""
				deadline=$(($(date +%s) + GAP_TIMEOUT))
				;;
			TOOSMALL:DONE)
				deadline=$(($(date +%s) + HALT_TIMEOUT))
				;;
			TOOSMALL:KILL)
				# A power cut the test asked for: no halt, no
				# sync; the next boot sees the disk as it is.
				# "TOOSMALL:KILL unannounced" (the self-check)
				# is a kill the test must not survive.
				if [ "${2:-}" = unannounced ]; then
					why="kill ${cur:-between-tests} unannounced"
				else
					why="kill ${cur:-between-tests} on request"
				fi
				host_mark "$why"
				log "$why: SIGKILL to UML"
				kill -KILL -- "-$UML_PID" 2>/dev/null
				wait "$UML_PID" 2>/dev/null
				UML_PID=
				break 2
				;;
			esac
		done
		kill -0 "$UML_PID" 2>/dev/null || break
		[ "$deadline" -le "$RUN_DEADLINE" ] || deadline=$RUN_DEADLINE
		if [ "$(date +%s)" -ge "$deadline" ]; then
			if [ -n "$cur" ]; then
				why="hang $cur"
			elif [ "$BOOT_READY" = 0 ]; then
				why="hang boot"
			else
				why="hang between-tests"
			fi
			if [ "$(date +%s)" -ge "$RUN_DEADLINE" ]; then
				why="$why at the run deadline"
			else
				why="$why after its deadline"
			fi
			host_mark "$why"
			log "$why: collecting evidence, then stopping UML"
			evidence "$why"
			break
		fi
		sleep 0.2
	# bash reports a job that died of a signal ("Aborted": a guest panic
	# makes UML abort) on stderr; the verdict is in the log already.
	done 2>>"$RUN_TMP/shell-notices"
	uml_stop
	tee_stop
	rm -f "$fifo"
	# A test cut short has no END line: its time as the host saw it.
	[ -z "$cur" ] || host_mark "elapsed $cur secs=$(awk -v a="$t_begin" \
		-v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')"
	rm -rf "${stage:?}/uml/$UMID"
	rm -f "$stage/uml/$UMID.mon" "$stage/uml/$UMID.vfs"
	host_mark "boot $n ended${why:+ ($why)}"
}

# stage_prepare: the per-run dirs the sandbox binds; see sandbox.sh.
stage_prepare()
{
	local stage="$RUN_TMP/stage" d

	for d in tests out uml tmp disk; do
		mkdir -p "$stage/$d" || die "$EXIT_INFRA" "cannot create $stage/$d"
	done
	: >"$stage/linux"
	: >"$stage/init"
	# The guest's scratch disk (/dev/ubda, OOM_SCRATCH_DEV): sparse, so it
	# costs the host only what the guest writes (an XFS mkfs: about 65 MB).
	# It lives as long as the run, so a test can kill the guest and look at
	# the disk after the next boot.
	truncate -s "$SCRATCH_MB"M "$stage/disk/scratch.img" ||
		die "$EXIT_NOSPACE" "cannot create the scratch disk in $stage/disk: free some space in ${TMPDIR:-/tmp}"
	mkdir -p "$GUEST_OUT" || die "$EXIT_USAGE" "cannot create $GUEST_OUT"
	# What earlier runs measured of the fio jobs' needs (guest-init.sh:
	# $OOM_FIO_NEEDS); read-only in the guest, like tests/.
	[ ! -f "$CACHE/$FIO_NEEDS" ] || cp "$CACHE/$FIO_NEEDS" "$stage/fio-needs" ||
		die "$EXIT_NOSPACE" "cannot copy $CACHE/$FIO_NEEDS to $stage: free some space in ${TMPDIR:-/tmp}"
	chmod 0755 "$RUN_TMP" "$stage"
	if [ -n "$SANDBOX_UID" ]; then
		chown "$SANDBOX_UID:$SANDBOX_UID" "$stage/uml" "$GUEST_OUT" \
			"$stage/disk" "$stage/disk/scratch.img"
		stage_enterable "$stage"
	fi
}

# stage_enterable DIR: UML runs as SANDBOX_UID from a stage under DIR: a
# private TMPDIR (mode 0700 on the way) would end in "UML did not boot".
stage_enterable()
{
	[ -n "$SANDBOX_UID" ] || return 0
	setpriv --reuid="$SANDBOX_UID" --regid="$SANDBOX_UID" \
		--clear-groups test -x "$1" ||
		die "$EXIT_USAGE" "uid $SANDBOX_UID, which runs UML, cannot enter $1: set TMPDIR to a dir every user can search (e.g. /tmp)"
}

# boot_cause: one line on why the guest never came up, read from the
# console, with the host's XSAVE size and the kernel's FP buffer where the
# console names that mismatch.
boot_cause()
{
	local why host kfp

	host=$(python3 "$TOPDIR/runner/xsave.py" host 2>/dev/null)
	kfp=$(python3 "$TOPDIR/runner/xsave.py" kernel "$KERNEL" 2>/dev/null)
	why=$(python3 "$TOPDIR/runner/toosmall.py" bootcause "$CONSOLE" \
		${host:+--host-xsave "$host"} ${kfp:+--kernel-fp "$kfp"} 2>/dev/null | head -n 1)
	printf '%s\n' "${why:-no cause found on the console}"
}

# boot_plan: boot until every planned test has begun once. A crash or hang
# ends that boot; the next boot resumes after the test that was running.
# Each boot runs the longest run of tests that want the same mem= (the 5th
# column of plan.all, "-" for --mem).
boot_plan()
{
	local n=0 plan="$RUN_TMP/stage/plan" rest last mem

	rest=$(cat "$RUN_TMP/plan.all")
	while [ -n "$rest" ]; do
		n=$((n + 1))
		mem=$(printf '%s\n' "$rest" | awk -F'\t' 'NR == 1 { print $5 }')
		printf '%s\n' "$rest" | awk -F'\t' -v mem="$mem" \
			'$5 != mem { exit } { print }' >"$plan"
		[ "$mem" != - ] || mem=$MEM
		boot_once "$n" "$mem"
		if [ "$BOOT_READY" = 0 ]; then
			[ "$n" -gt 1 ] || die "$EXIT_INFRA" "${VM_NAME:-UML} did not boot: $(boot_cause) (see $CONSOLE)"
			host_mark "guest did not come back: remaining tests not run"
			break
		fi
		[ "${#BOOT_BEGUN[@]}" -gt 0 ] || break
		last=${BOOT_BEGUN[-1]}
		# Resume after the last test that began (it has its verdict).
		rest=$(printf '%s\n' "$rest" | awk -F'\t' -v last="$last" \
			'found { print } $1 == last { found = 1 }')
		[ "$(date +%s)" -lt "$RUN_DEADLINE" ] || {
			host_mark "run deadline passed: remaining tests not run"
			break
		}
	done
}
