# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the exit codes are used by the sourcing scripts
# Common helpers for the toosmall runner: messages, exit codes, cleanup.
# Sourced by run.sh and its stages; defines functions only.

# Exit codes, one per kind of outcome (also in run.sh --help and README.md).
readonly EXIT_OK=0	  # every test passed or skipped
readonly EXIT_FAIL=1	  # a test failed, hung or crashed
readonly EXIT_USAGE=2	  # bad option, wrong path, broken config fragment
readonly EXIT_INFRA=3	  # kernel build failed, UML did not boot
readonly EXIT_MISSING=4	  # a required program or package is missing
readonly EXIT_NOSPACE=5	  # no space left where the cache or output lives

# Progress goes to stderr so stdout carries only KTAP, the table and totals:
# to run.sh's own stderr (TTY_ERR, once main has saved it), even where a
# stage has redirected fd 2.
log()
{
	printf '%s\n' "toosmall: ${LANE:+lane $LANE: }$*" >&"${TTY_ERR:-2}"
}

# die CODE MESSAGE: one line that says what to do, then exit with CODE.
die()
{
	local code=$1

	shift
	printf '%s\n' "toosmall: error: $*" >&"${TTY_ERR:-2}"
	exit "$code"
}

# allowed_cpus: the CPUs this process may run on (its Cpus_allowed_list),
# one a line.
allowed_cpus()
{
	local list ranges range lo hi

	list=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
	IFS=, read -ra ranges <<<"$list"
	for range in "${ranges[@]}"; do
		lo=${range%-*}
		hi=${range#*-}
		while [ "$lo" -le "$hi" ]; do
			echo "$lo"
			lo=$((lo + 1))
		done
	done
}

# uml_cpu: the CPU that this lane's UML (LANE 1..JOBS, or the only one) is
# bound to: the LANE-th of those this process may run on, or nothing when
# there are fewer of them than lanes. A UML runs its kernel and each guest
# process as host processes that hand the CPU to each other at every guest
# syscall and fault; on one CPU a hand-over is a switch, where on two it
# wakes an idle CPU, which on a virtual machine costs more than the switch
# (with --jobs 1 here, fail-nth sweeps ran 2.1 times as fast bound).
uml_cpu()
{
	local cpus

	mapfile -t cpus < <(allowed_cpus)
	[ "${JOBS:-1}" -le "${#cpus[@]}" ] && [ "${LANE:-1}" -le "${#cpus[@]}" ] ||
		return 0
	echo "${cpus[$((${LANE:-1} - 1))]}"
}

now_s()
{
	date +%s.%N
}

# elapsed START: seconds since START (from now_s), with one decimal.
elapsed()
{
	awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'
}

# Cleanup stack: register_cleanup CMD...; cleanup runs them newest first.
# Commands are stored as strings and eval'd: pass quoted words (printf %q).
CLEANUPS=()

register_cleanup()
{
	CLEANUPS+=("$*")
}

run_cleanups()
{
	local i

	for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${CLEANUPS[i]}" || true
	done
	CLEANUPS=()
}

# stop_pids SECS PID...: SIGTERM to each (each stops what it started), then
# up to SECS for all of them to end; who is left gets SIGKILL. Reaped.
stop_pids()
{
	local pid deadline=$(($(date +%s) + $1))

	shift
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	for pid in "$@"; do
		while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
	done
	wait "$@" 2>/dev/null
}

# check_space DIR MB: fail with EXIT_NOSPACE unless DIR has MB megabytes free.
check_space()
{
	local dir=$1 need=$2 avail

	avail=$(df -Pm -- "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')
	[ -n "$avail" ] || return 0
	[ "$avail" -ge "$need" ] ||
		die "$EXIT_NOSPACE" "only ${avail} MB free in $dir, need ${need} MB: free some space or use --cache/--output elsewhere"
}

# lock_acquire FILE SECONDS: take an exclusive lock on FILE, waiting at most
# SECONDS; the lock is held until the shell exits (the fd is never closed).
lock_acquire()
{
	local file=$1 secs=$2 fd

	exec {fd}>>"$file" || die "$EXIT_USAGE" "cannot open lock $file: check permissions of the cache dir"
	if ! flock -n "$fd"; then
		log "waiting for another run holding $file (at most ${secs}s)"
		flock -w "$secs" "$fd" ||
			die "$EXIT_INFRA" "another run held $file for ${secs}s: wait for it or use another --cache"
	fi
	LOCK_FDS+=("$fd")
}

lock_release_all()
{
	local fd

	for fd in "${LOCK_FDS[@]}"; do
		exec {fd}>&-
	done
	LOCK_FDS=()
}

LOCK_FDS=()

# sha256 of stdin, first 16 hex digits.
short_hash()
{
	sha256sum | cut -c1-16
}

# run_session CMD...: run CMD (a make, a tar) in a session of its own and
# wait for it; returns its status. The wait, unlike a foreground command,
# lets a trapped INT or TERM through at once, and session_stop (from
# run.sh's cleanup) then ends the whole session, compilers included, so
# nothing run.sh started outlives it however it is stopped.
# The session is an autogroup of its own too (sched(7)), in which the
# niceness CMD inherits weighs nothing against other sessions' tasks: the
# autogroup takes that niceness, so that "nice ./run.sh" nices the build.
run_session()
{
	local rc

	# shellcheck disable=SC2016 # expanded by the session's bash
	setsid bash -c 'n=$(nice)
[ "$n" -le 0 ] || echo "$n" 2>/dev/null >/proc/self/autogroup
exec "$@"' run_session "$@" &
	SESSION_PID=$!
	wait "$SESSION_PID"
	rc=$?
	SESSION_PID=
	return "$rc"
}

session_stop()
{
	local i

	[ -n "${SESSION_PID:-}" ] || return 0
	kill -TERM -- "-$SESSION_PID" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 -- "-$SESSION_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL -- "-$SESSION_PID" 2>/dev/null
	wait "$SESSION_PID" 2>/dev/null
	SESSION_PID=
}

SESSION_PID=
