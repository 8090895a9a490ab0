#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# toosmall: run the small-allocation failure selftests in a user-mode Linux.
# Stages, in order (one file each under runner/):
#   source -> configure -> build (kernel.sh) -> plan -> boot (boot.sh)
#   -> parse -> report (toosmall.py)

usage()
{
	cat <<EOF
Usage: ./run.sh [OPTIONS]

Build (and cache) a UML kernel with fault injection, boot it isolated with
tiny memory, run the selftests in tools/testing/selftests/mm/oom inside, and
print KTAP, a summary and "N passed, N failed, N skipped".

Kernel:
  --kernel-src DIR     build this kernel tree (never written: O= build in the
                       cache); default: Debian's linux-source-6.12, unpacked
                       into the cache
  --kernel FILE        boot this prebuilt UML binary instead of building
                       (e.g. /usr/bin/linux.uml); tests needing a missing
                       knob skip
  --profile NAME       default, or debug (adds KASAN, kmemleak, lockdep;
                       defaults to --mem 256M, needs 96M)
  --config FILE        extra Kconfig fragment, merged last (repeatable)
  --build-only         build kernel and tests, then stop
  --vm uml|qemu        uml (default), or qemu: build an x86_64 kernel
                       (x86_64_defconfig and the same fragments less the
                       UML-only options) and boot it under QEMU, with KVM
                       where /dev/kvm is, else TCG (said); same suite,
                       isolation, deadlines and outputs

Run:
  --mem SIZE           guest memory, default ${DEFAULT_MEM} (13M is the least that boots)
  --filter GLOB        run the tests whose name matches GLOB (repeatable)
  --list               list the tests (after building them) and exit
  --timeout SECS       per-test deadline, default ${DEFAULT_TEST_TIMEOUT}
  --run-timeout SECS   deadline for the whole run, default ${DEFAULT_RUN_TIMEOUT}
  --jobs N             N UML instances at once, each with its own disk,
                       console and deadlines (default: the CPUs, $(nproc))
  --shard I/N          run the I-th of N parts of the plan (the same split on
                       every machine), for CI matrices; see --merge
  --known-issues FILE  tests expected to fail, each naming a FINDINGS.md
                       entry: reported as XFAIL, visibly (default:
                       known-issues in this directory, each entry on the
                       kernels it names; a FILE you name applies to any)
  --exec CMD           run shell command CMD in the guest instead of the
                       suite (same isolation), print its output
  --output DIR         results dir (console.log, results.ktap, junit.xml,
                       results.json); default: a new dir under the cache
  --cache DIR          cache dir, default \$XDG_CACHE_HOME/toosmall
                       (or ~/.cache/toosmall); also \$TOOSMALL_CACHE
  --sites              dump the stack of every injected fault and name the
                       allocation call sites whose failure paths ran
  --mutate             test the fail-nth tests' own checks: each is told
                       the opposite outcome and must notice (a pass means
                       the check can fail)

Detectors:
  --self-check         instead of the suite, provoke every failure kind
                       (LKDTM, a test module, guest processes gone wrong)
                       and check each gets its verdict (runner/selfcheck.tsv)

Pre-submit:
  --baseline BASE      with --kernel-src PATCHED: run the suite on BASE (a
                       tree, or a git revision of PATCHED's repository,
                       exported into the cache) and on PATCHED, re-run the
                       tests that differ, and report only what changed
                       (a table, and diff.json in the output dir); exit 1
                       when something regressed
  --reruns N           how many times each test that differed is re-run on
                       both kernels, to tell a flaky test from a change
                       (default ${DEFAULT_RERUNS})

Replay:
  --parse LOG          parse a saved console.log only and report (with
                       --output, write the result files there)
  --merge DIR...       combine the output dirs of the N shards of one run
                       into one report (with --output, its four files), with
                       the verdicts and exit status one run would give

Exit status: 0 all passed or skipped, 1 a test failed, hung or crashed,
2 usage or setup error, 3 infrastructure failure (build, boot),
4 a required package is missing, 5 no space left.
EOF
}

set -u
set -o pipefail

TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=runner/lib.sh
. "$TOPDIR/runner/lib.sh"
# shellcheck source=runner/kernel.sh
. "$TOPDIR/runner/kernel.sh"
# shellcheck source=runner/boot.sh
. "$TOPDIR/runner/boot.sh"
# shellcheck source=runner/selfcheck.sh
. "$TOPDIR/runner/selfcheck.sh"
# shellcheck source=runner/baseline.sh
. "$TOPDIR/runner/baseline.sh"

# UML's mem= includes the kernel image: 68M, since ext4, btrfs and loop
# devices grew it by 3.3 MB, leaves the guest the MemTotal (about 54 MB)
# that 64M left before, and that the memcg and fio tests are sized for.
readonly DEFAULT_MEM=68M
# KASAN's shadow and kmemleak's pool: at 64M the debug kernel panics at boot
# ("System is deadlocked on memory"), at 96M 12 MB are left free. At 128M
# (47 MB managed, 26 MB of it unreclaimable slab at boot: kmemleak's objects,
# kernfs) about 11 MB are free, 7 MB after the net sweeps, and a lane of
# make check's fail-nth subset OOM-killed a test twice: for an order-3
# GFP_KERNEL kmalloc (io_uring's cancel hash table, 18 KB with lockdep's
# spinlocks) in a fragmented zone. At 256M 130 MB stay free.
readonly DEBUG_MEM=256M
readonly DEBUG_MIN_MB=96
# A test's deadline: above the longest the harness gives a test itself (120 s:
# fio_test's xfs cases, failnth_work's sweep), so that a test the harness can
# still stop ends with the harness's own verdict and log. The selftests'
# `settings` is kselftest's runner.sh's deadline for a whole program.
readonly DEFAULT_TEST_TIMEOUT=150
readonly DEFAULT_RUN_TIMEOUT=3600
readonly DEFAULT_RERUNS=2
readonly OOM_DIR="$TOPDIR/tools/testing/selftests/mm/oom"
readonly FRAGMENTS=(base fault-injection memcg xfs ext4 btrfs coverage detectors)
# Debian package for each program we run; deps_check installs or names them.
DEPS="make:make gcc:gcc flex:flex bison:bison bc:bc
	setarch:util-linux unshare:util-linux setpriv:util-linux flock:util-linux
	uml_mconsole:uml-utilities python3:python3 mawk:mawk xz:xz-utils
	mkfs.xfs:xfsprogs mkfs.ext4:e2fsprogs e2fsck:e2fsprogs
	mkfs.btrfs:btrfs-progs btrfs:btrfs-progs fio:fio
	patch:patch busybox:busybox-static"

KERNEL_SRC=
KERNEL=
PROFILE=default
# uml, or qemu: an x86_64 kernel under QEMU (KVM where /dev/kvm is).
VM=uml
VM_NAME=
DURATIONS=durations.tsv
# The fio jobs' measured needs, a guess for the next run's bisections.
FIO_NEEDS=fio-needs.tsv
EXTRA_CONFIGS=()
BUILD_ONLY=0
MEM=
FILTERS=()
LIST=0
TEST_TIMEOUT=
RUN_TIMEOUT=$DEFAULT_RUN_TIMEOUT
KNOWN_ISSUES=
# Named by the user: its entries apply to any kernel, not only the kinds
# they name.
KNOWN_ANY=
EXEC_CMD=
OUT=
PARSE_LOG=
SELF_CHECK=0
BUILD_DONE=0
SITES=0
MUTATE=0
# default (Debian's tree with kernel-patches/), src (--kernel-src) or
# prebuilt (--kernel): known-issues entries name the kinds they apply to.
KERNEL_KIND=default
PATCHES_HASH=none
JOBS=
SHARD=
MERGE_DIRS=()
LANE_PIDS=()
BASELINE=
RERUNS=$DEFAULT_RERUNS
CACHE=${TOOSMALL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}

# need_arg OPT NARGS: an option's value is missing.
need_arg()
{
	[ "$2" -ge 2 ] || die "$EXIT_USAGE" "$1 needs a value: see ./run.sh --help"
}

parse_args()
{
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel-src) need_arg "$1" $#; KERNEL_SRC=$2; shift ;;
		--kernel) need_arg "$1" $#; KERNEL=$2; shift ;;
		--profile) need_arg "$1" $#; PROFILE=$2; shift ;;
		--vm) need_arg "$1" $#; VM=$2; shift ;;
		--config) need_arg "$1" $#; EXTRA_CONFIGS+=("$2"); shift ;;
		--build-only) BUILD_ONLY=1 ;;
		--mem) need_arg "$1" $#; MEM=$2; shift ;;
		--filter) need_arg "$1" $#; FILTERS+=("$2"); shift ;;
		--list) LIST=1 ;;
		--timeout) need_arg "$1" $#; TEST_TIMEOUT=$2; shift ;;
		--run-timeout) need_arg "$1" $#; RUN_TIMEOUT=$2; shift ;;
		--known-issues) need_arg "$1" $#; KNOWN_ISSUES=$2; shift ;;
		--exec) need_arg "$1" $#; EXEC_CMD=$2; shift ;;
		--output) need_arg "$1" $#; OUT=$2; shift ;;
		--cache) need_arg "$1" $#; CACHE=$2; shift ;;
		--parse) need_arg "$1" $#; PARSE_LOG=$2; shift ;;
		--self-check) SELF_CHECK=1 ;;
		--sites) SITES=1 ;;
		--mutate) MUTATE=1 ;;
		--jobs) need_arg "$1" $#; JOBS=$2; shift ;;
		--shard) need_arg "$1" $#; SHARD=$2; shift ;;
		--baseline) need_arg "$1" $#; BASELINE=$2; shift ;;
		--reruns) need_arg "$1" $#; RERUNS=$2; shift ;;
		--merge)
			need_arg "$1" $#
			while [ $# -ge 2 ] && [ "${2#--}" = "$2" ]; do
				MERGE_DIRS+=("$2")
				shift
			done
			[ "${#MERGE_DIRS[@]}" -gt 0 ] ||
				die "$EXIT_USAGE" "--merge needs the shards' output dirs"
			;;
		-h | --help) usage; exit 0 ;;
		*) die "$EXIT_USAGE" "unknown option '$1': see ./run.sh --help" ;;
		esac
		shift
	done

	case "$PROFILE" in
	default | debug) ;;
	*) die "$EXIT_USAGE" "--profile $PROFILE: use default or debug" ;;
	esac
	case "$VM" in
	uml) kmake_args ;;
	qemu)
		kmake_args
		VM_NAME="an x86_64 QEMU guest"
		# Its tests' times are not UML's: lanes are dealt by each's own.
		DURATIONS=durations-qemu.tsv
		;;
	*) die "$EXIT_USAGE" "--vm $VM: use uml (the default) or qemu" ;;
	esac
	if [ -z "$MEM" ]; then
		MEM=$DEFAULT_MEM
		[ "$PROFILE" != debug ] || MEM=$DEBUG_MEM
	fi
	[[ "$MEM" =~ ^[0-9]+[MG]$ ]] ||
		die "$EXIT_USAGE" "--mem $MEM: give a size like 64M or 1G"
	MEM_MB=$(size_mb "$MEM")
	[ "$MEM_MB" -ge 13 ] ||
		die "$EXIT_USAGE" "--mem $MEM: UML needs at least 13M to boot"
	if [ "$PROFILE" = debug ] && [ "$MEM_MB" -lt "$DEBUG_MIN_MB" ]; then
		die "$EXIT_USAGE" "--profile debug needs --mem ${DEBUG_MIN_MB}M or more (KASAN shadow, kmemleak pool)"
	fi
	[ -z "$TEST_TIMEOUT" ] || [[ "$TEST_TIMEOUT" =~ ^[1-9][0-9]*$ ]] ||
		die "$EXIT_USAGE" "--timeout $TEST_TIMEOUT: give whole seconds"
	[[ "$RUN_TIMEOUT" =~ ^[1-9][0-9]*$ ]] ||
		die "$EXIT_USAGE" "--run-timeout $RUN_TIMEOUT: give whole seconds"
	[ -z "$KERNEL" ] || [ -z "$KERNEL_SRC" ] ||
		die "$EXIT_USAGE" "--kernel and --kernel-src exclude each other: pick one"
	if [ -n "$KERNEL" ] && [ "$VM" = qemu ]; then
		[ -f "$KERNEL" ] ||
			die "$EXIT_USAGE" "--kernel $KERNEL: not a file (an x86_64 bzImage under --vm qemu)"
		KERNEL=$(realpath "$KERNEL")
	elif [ -n "$KERNEL" ]; then
		if [ ! -f "$KERNEL" ] || [ ! -x "$KERNEL" ]; then
			die "$EXIT_USAGE" "--kernel $KERNEL: not an executable file (a UML 'linux' binary)"
		fi
		KERNEL=$(realpath "$KERNEL")
	fi
	if [ -n "$KNOWN_ISSUES" ]; then
		[ -r "$KNOWN_ISSUES" ] ||
			die "$EXIT_USAGE" "--known-issues $KNOWN_ISSUES: not readable"
		KNOWN_ANY=--known-issues-any-kernel
	elif [ -r "$TOPDIR/known-issues" ]; then
		KNOWN_ISSUES=$TOPDIR/known-issues
	fi
	if [ -n "$PARSE_LOG" ]; then
		[ -r "$PARSE_LOG" ] ||
			die "$EXIT_USAGE" "--parse $PARSE_LOG: not readable: pass a saved console.log"
	fi
	for f in "${EXTRA_CONFIGS[@]}"; do
		[ -r "$f" ] || die "$EXIT_USAGE" "--config $f: not readable"
	done
	[ -z "$JOBS" ] || [[ "$JOBS" =~ ^[1-9][0-9]*$ ]] ||
		die "$EXIT_USAGE" "--jobs $JOBS: give a number of UML instances, 1 or more"
	if [ -n "$SHARD" ]; then
		if ! [[ "$SHARD" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] ||
			[ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
			die "$EXIT_USAGE" "--shard $SHARD: give I/N with 1 <= I <= N, e.g. 2/4"
		fi
		[ -z "$JOBS" ] || [ "$JOBS" = 1 ] ||
			die "$EXIT_USAGE" "--shard runs one UML: give --jobs to the run, not to a shard"
		JOBS=1
	fi
	for f in "${MERGE_DIRS[@]}"; do
		[ -r "$f/console.log" ] ||
			die "$EXIT_USAGE" "--merge $f: no console.log there: pass the --output dirs of the shards"
	done
	[[ "$RERUNS" =~ ^[0-9]+$ ]] ||
		die "$EXIT_USAGE" "--reruns $RERUNS: give a number of re-runs, 0 or more"
	if [ -n "$BASELINE" ]; then
		[ -n "$KERNEL_SRC" ] ||
			die "$EXIT_USAGE" "--baseline needs --kernel-src PATCHED: the tree with your patch"
		if [ -n "$SHARD$PARSE_LOG$EXEC_CMD" ] || [ "${#MERGE_DIRS[@]}" != 0 ] ||
			[ "$SELF_CHECK$LIST$MUTATE" != 000 ]; then
			die "$EXIT_USAGE" "--baseline compares two whole runs: drop --shard, --merge, --parse, --exec, --self-check, --list and --mutate"
		fi
	fi
	# One UML a CPU: more only slows each test against its deadlines.
	[ -n "$JOBS" ] || JOBS=$(nproc)
	if [ -n "$EXEC_CMD" ] || [ "$SELF_CHECK" = 1 ]; then
		JOBS=1
	fi
}

# deps_check: every program we need, or install its package (as root) or
# print the one apt-get line that would.
deps_check()
{
	local pair prog pkg missing=()

	for pair in $DEPS; do
		prog=${pair%%:*}
		pkg=${pair#*:}
		command -v "$prog" >/dev/null 2>&1 || missing+=("$pkg")
	done
	[ -n "$KERNEL" ] || [ -n "$KERNEL_SRC" ] || [ -f "$DEFAULT_SRC_TAR" ] ||
		missing+=("$DEFAULT_SRC_PKG")
	[ "${#missing[@]}" -gt 0 ] || return 0
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
	if [ "$(id -u)" != 0 ]; then
		die "$EXIT_MISSING" "missing packages: run: sudo apt-get install -y ${missing[*]}"
	fi
	log "installing ${missing[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq "${missing[@]}"; } >&2; then
		die "$EXIT_MISSING" "apt-get install ${missing[*]} failed: install them by hand"
	fi
}

# A second signal (Ctrl-C twice; a timeout's TERM sent to its child and
# then to its group) must not cut the cleanup short: it would leave a UML or
# a half-built cache entry. Each step of it has its own deadline.
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup()
{
	local rc=$?

	trap - EXIT
	trap '' INT TERM HUP
	session_stop
	uml_stop 2>/dev/null
	tee_stop 2>/dev/null
	run_cleanups
	exit "$rc"
}

# shellcheck disable=SC2317 # run by the INT/TERM/HUP trap
on_signal()
{
	# To the terminal even when a redirected make was running.
	log "interrupted: stopping UML and cleaning up" 2>&"$TTY_ERR"
	exit 130
}

# prepare_kernel: sets KERNEL, SRC, BUILD, TESTS_DIR, CONFIG_HASH.
prepare_kernel()
{
	local frags=() f key fresh=0

	if [ -n "$KERNEL_SRC" ]; then
		KERNEL_KIND=src
		SRC=$(realpath "$KERNEL_SRC" 2>/dev/null) ||
			die "$EXIT_USAGE" "--kernel-src $KERNEL_SRC: no such directory"
		source_check "$SRC"
	else
		source_default
	fi
	for f in "${FRAGMENTS[@]}"; do
		# UML's smallest bootable kernel; x86_64_defconfig is qemu's.
		[ "$VM" = uml ] || [ "$f" != base ] || continue
		frags+=("$TOPDIR/uml-config/$f.config")
	done
	[ "$PROFILE" = default ] || frags+=("$TOPDIR/uml-config/$PROFILE.config")
	# What `make kselftest` asks of a real kernel, and how it boots here.
	[ "$VM" = uml ] || frags+=("$OOM_DIR/config" "$TOPDIR/uml-config/x86_64.config")
	frags+=("${EXTRA_CONFIGS[@]}")
	fragments_check "${frags[@]}"
	CONFIG_HASH=$(fragment_lines "${frags[@]}" | short_hash)
	key=$(printf '%s\n%s\n%s\n' "$SRC" "$CONFIG_HASH" "$PROFILE" | short_hash)
	# The UML keys stay what they were; an x86_64 build is its own entry.
	[ "$VM" = uml ] || key=$(printf '%s\n%s\n' "$key" "$VM" | short_hash)
	BUILD="$CACHE/build/$key"
	[ -d "$BUILD" ] || fresh=1
	# No cache entry, no kernel: the probe need not configure one first
	# (30 s for an x86_64 config).
	[ -n "$KERNEL" ] || [ "$fresh" = 0 ] || no_build_stop "$BUILD"
	mkdir -p "$BUILD" || die "$EXIT_USAGE" "cannot create $BUILD: use --cache DIR"
	lock_acquire "$BUILD/.lock" 3600
	# A cache entry this run creates goes again unless its kernel and
	# tests are built: a failed configure or a Ctrl-C leaves no half entry.
	[ "$fresh" = 0 ] ||
		register_cleanup "[ \"\$BUILD_DONE\" = 1 ] || rm -rf $(printf %q "$BUILD")"
	TESTS_DIR="$BUILD/kselftest"
	if [ -z "$KERNEL" ]; then
		if [ "$VM" = qemu ]; then
			fragments_x86 "$SRC" "$BUILD/fragments" "${frags[@]}"
			frags=("${FRAGS_X86[@]}")
		fi
		configure "$SRC" "$BUILD" "${frags[@]}"
		# Debian's tree in our cache never changes: its stamp skips make.
		# A user's tree may have: make decides what to rebuild.
		local stamp=
		[ -n "$KERNEL_SRC" ] || stamp="$SRC $CONFIG_HASH"
		build "$SRC" "$BUILD" "$stamp"
		KERNEL="$BUILD/$KIMAGE"
		RELEASE=$(cat "$BUILD/include/config/kernel.release" 2>/dev/null)
	else
		KERNEL_KIND=prebuilt
		PATCHES_HASH=none
		if [ "$VM" = qemu ]; then
			# A bzImage names its version at the offset the boot
			# protocol's kernel_version field (0x20e) gives, + 0x200.
			RELEASE=$(python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read(65536)
o = struct.unpack_from("<H", b, 0x20e)[0] + 0x200
print(b[o:b.index(b"\0", o)].decode("ascii", "replace").split()[0])' "$KERNEL" 2>/dev/null)
		else
			RELEASE=$("$KERNEL" --version 2>/dev/null | head -n 1)
		fi
		CONFIG_HASH=prebuilt
	fi
	build_tests "$SRC" "$TESTS_DIR"
	[ "$SELF_CHECK" = 0 ] || selfcheck_build
	# shellcheck disable=SC2034 # read by the cleanup registered above
	BUILD_DONE=1
	lock_release_all
}

# kvm_works: whether /dev/kvm creates a VM for this user.
kvm_works()
{
	timeout 10 python3 -c 'import fcntl, os
os.close(fcntl.ioctl(os.open("/dev/kvm", os.O_RDWR), 0xAE01, 0))' 2>/dev/null
}

# kvm_hw: whether the CPU offers VT-x or AMD-V. A /dev/kvm without them is
# not KVM as QEMU needs it: PVM (kvm_pvm, in VMs without nested
# virtualisation) creates VMs there, but runs a stock x86_64 kernel with
# its paging emulated: measured, more than 200 s to decompress the kernel
# that TCG boots to the tests in 5.
kvm_hw()
{
	grep -qwE 'vmx|svm' /proc/cpuinfo
}

# qemu_setup: how --vm qemu runs here: KVM when /dev/kvm creates a VM, else
# TCG, said once; the boot deadline stretched to match. When root runs the
# suite, QEMU runs as SANDBOX_UID and gets its own /dev/kvm node in the
# sandbox (TS_KVM, see sandbox.sh), so the host's node keeps its mode.
qemu_setup()
{
	local why

	QEMU_ACCEL=tcg
	TS_KVM=0
	if [ ! -c /dev/kvm ]; then
		why="no /dev/kvm on this host"
	elif [ -z "$SANDBOX_UID" ] && ! { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }; then
		why="/dev/kvm is not open to uid $(id -u) (add it to group kvm, or run as root)"
	elif ! kvm_hw; then
		why="/dev/kvm is there but the CPU has no VT-x/AMD-V"
		[ ! -d /sys/module/kvm_pvm ] ||
			why="$why (it is PVM, kvm_pvm, which runs a stock kernel slower than TCG)"
	elif ! kvm_works; then
		why="/dev/kvm cannot create a VM"
	else
		QEMU_ACCEL=kvm
		TS_KVM=1
	fi
	# The tests' stall windows (OOM_TIME_MUL, tools/.../oom/stall.h) are
	# doubled under TCG: the default suite takes 3.2 times as long as in
	# UML, and the fail-nth sweeps 5.4 (make bench-vm at 2c72783).
	if [ "$QEMU_ACCEL" = tcg ]; then
		log "qemu: $why: emulating the CPU (TCG), several times slower than KVM"
		BOOT_SLOWDOWN=6
		QEMU_TIME_MUL=2
	else
		BOOT_SLOWDOWN=2
		QEMU_TIME_MUL=1
	fi
}

# size_mb SIZE: SIZE (like 64M or 1G) in megabytes.
size_mb()
{
	local mb=${1%[MG]}

	[ "${1: -1}" = G ] && mb=$((mb * 1024))
	printf '%s\n' "$mb"
}

# plan_mem PLAN: append to each line the mem= its test boots with, from the
# selftests' boot.conf ("GLOB mem=SIZE" lines, first match wins; "-" for
# --mem), and set TMP_MB to hold the largest guest.
plan_mem()
{
	local conf="$OOM_DIR/boot.conf" name rest glob kv mem max=$MEM_MB
	local -a globs=() mems=()
	local i n=0

	if [ -f "$conf" ]; then
		while read -r glob kv _; do
			n=$((n + 1))
			case "$glob" in '' | '#'*) continue ;; esac
			# For toosmall.py lanes: tests that go in one lane.
			[ "$kv" != together ] || continue
			if ! [[ "$kv" =~ ^mem=[0-9]+[MG]$ ]] ||
				[ "$(size_mb "${kv#mem=}")" -lt 13 ]; then
				die "$EXIT_USAGE" "$conf:$n: want \"GLOB mem=SIZE\" with SIZE 13M or more, or \"GLOB together\""
			fi
			globs+=("$glob")
			mems+=("${kv#mem=}")
		done <"$conf"
	fi
	while IFS=$'\t' read -r name rest; do
		mem=-
		for i in "${!globs[@]}"; do
			# shellcheck disable=SC2053 # a glob, on purpose
			if [[ "$name" == ${globs[i]} ]]; then
				mem=${mems[i]}
				[ "$(size_mb "$mem")" -le "$max" ] || max=$(size_mb "$mem")
				break
			fi
		done
		printf '%s\t%s\t%s\n' "$name" "$rest" "$mem"
	done <"$1" >"$1.mem" && mv "$1.mem" "$1"
	TMP_MB=$((max + 64))
}

# make_plan: the tests to run, one line each: name binary harness-name
# timeout category (tab-separated), into $1.
make_plan()
{
	local bins=() b args=()

	while read -r b; do
		[ -x "$TESTS_DIR/$b" ] ||
			die "$EXIT_INFRA" "$TESTS_DIR/$b was not built: see $TESTS_DIR/build.log"
		bins+=("$TESTS_DIR/$b")
	done <"$TESTS_DIR/tests.list"
	[ "${#bins[@]}" -gt 0 ] || die "$EXIT_INFRA" "no test programs in $TESTS_DIR/tests.list"
	for b in "${FILTERS[@]}"; do
		args+=(--filter "$b")
	done
	python3 "$TOPDIR/runner/toosmall.py" plan \
		--timeout "${TEST_TIMEOUT:-$DEFAULT_TEST_TIMEOUT}" \
		"${bins[@]}" "${args[@]}" >"$1" ||
		die "$EXIT_INFRA" "could not list the tests in $TESTS_DIR"
}

progress_begin()
{
	TESTS_BEGUN=$((TESTS_BEGUN + 1))
	log "[$TESTS_BEGUN/$TESTS_TOTAL] $1"
}

# console_header PLAN [SHARD]: the host's first lines of a console: the
# kernel, mem=, the shard if any, and the tests planned (with their index
# in the whole plan when PLAN has one, for --merge).
console_header()
{
	printf 'TOOSMALL-HOST: kernel release=%s source=%s config_hash=%s profile=%s kind=%s patches=%s%s\n' \
		"${RELEASE// /_}" "$SRC" "$CONFIG_HASH" "$PROFILE" "$KERNEL_KIND" "$PATCHES_HASH" \
		"${VM_NAME:+ vm=$VM accel=$QEMU_ACCEL}"
	printf 'TOOSMALL-HOST: mem %s\n' "$MEM"
	[ -z "${2:-}" ] || printf 'TOOSMALL-HOST: shard %s\n' "$2"
	awk -F'\t' '{ printf "TOOSMALL-HOST: plan %s %s %s%s\n", $1, $5, $4, \
		$7 == "" ? "" : " idx=" $7 }' "$1"
}

# lane_run K: one of --jobs' lanes, in a subshell: its own stage (disk,
# uml_dir, tmpfs), guest dir, umids and console, over LANES/K/plan.
lane_run()
{
	LANE=$1
	RUN_TMP=$LANES/$LANE
	GUEST_OUT=$OUT/guest/lane$LANE
	CONSOLE=$OUT/lanes/$LANE.log
	trap 'uml_stop; tee_stop; exit 143' TERM INT HUP
	stage_prepare
	cut -f1-4,6 "$RUN_TMP/plan" >"$RUN_TMP/plan.all"
	TESTS_TOTAL=$(wc -l <"$RUN_TMP/plan.all")
	TESTS_BEGUN=0
	console_header "$RUN_TMP/plan" >"$CONSOLE"
	boot_plan
}

# lanes_stop: end the lanes, by pid: each halts its UML (bounded by
# HALT_TIMEOUT and MCONSOLE_TIMEOUT); a lane that is still there after that
# is killed, and so is the UML session it started.
# shellcheck disable=SC2317 # run by the cleanup registered in run_lanes
lanes_stop()
{
	local k

	[ "${#LANE_PIDS[@]}" -gt 0 ] || return 0
	stop_pids $((HALT_TIMEOUT + MCONSOLE_TIMEOUT + 5)) "${LANE_PIDS[@]}"
	for k in "$LANES"/*/uml.pid; do
		[ -f "$k" ] && kill -KILL -- "-$(cat "$k")" 2>/dev/null
	done
	LANE_PIDS=()
}

# merge_lanes: the lanes' consoles, as one run's console.log.
merge_lanes()
{
	[ -d "$OUT/lanes" ] || return 0
	if ! compgen -G "$OUT/lanes/*.log" >/dev/null; then
		rmdir "$OUT/lanes"
		return 0
	fi
	python3 "$TOPDIR/runner/toosmall.py" merge --output "$CONSOLE" \
		"$OUT"/lanes/*.log && rm -rf "${OUT:?}/lanes"
}

# run_lanes: the plan dealt to JOBS lanes (longest expected first, from the
# durations of earlier runs), each booting its own UML at once; then one
# console, as if one UML had run the plan.
run_lanes()
{
	local k rc=0 r pid

	LANES=$RUN_TMP/lanes
	mkdir -p "$LANES" || die "$EXIT_NOSPACE" "cannot create $LANES"
	chmod 0755 "$RUN_TMP" "$LANES"
	# Once, before a lane starts, so that it is said once.
	stage_enterable "$LANES"
	mkdir -p "$OUT/lanes" "$OUT/guest" || die "$EXIT_USAGE" "cannot create $OUT/lanes"
	chmod 0755 "$OUT/guest"
	python3 "$TOPDIR/runner/toosmall.py" lanes "$RUN_TMP/plan.full" "$JOBS" \
		"$LANES" --durations "$CACHE/$DURATIONS" \
		--boot-conf "$OOM_DIR/boot.conf" >"$LANES/summary" ||
		die "$EXIT_INFRA" "could not split the plan into $JOBS lanes"
	# A Ctrl-C from here on: the lanes stop their UMLs, and what they
	# wrote still becomes console.log.
	register_cleanup "lanes_stop; [ -e $(printf %q "$CONSOLE") ] || merge_lanes"
	log "running $TESTS_TOTAL test(s) in $JOBS UMLs at once (mem=$MEM), console: $CONSOLE"
	while IFS=$'\t' read -r k _; do
		[ -s "$LANES/$k/plan" ] || continue
		lane_run "$k" &
		LANE_PIDS+=($!)
	done <"$LANES/summary"
	for pid in "${LANE_PIDS[@]}"; do
		wait "$pid"
		r=$?
		[ "$r" = 0 ] || [ "$rc" != 0 ] || rc=$r
	done
	LANE_PIDS=()
	merge_lanes || die "$EXIT_INFRA" "could not merge the lanes' consoles in $OUT/lanes"
	# A lane that could not boot its UML said why; the run stops there.
	[ "$rc" = 0 ] || exit "$rc"
}

progress_end()
{
	[ "$2" = 0 ] || log "    $1: exit code $2"
}

# merge_shards: --merge DIR...: one console of the shards', parsed as one
# run; with --output, the four files there (console.log too).
merge_shards()
{
	local tmp d consoles=() rc=0

	for d in "${MERGE_DIRS[@]}"; do
		consoles+=("$d/console.log")
	done
	if [ -n "$OUT" ]; then
		[ ! -e "$OUT/console.log" ] ||
			die "$EXIT_USAGE" "--output $OUT already holds a run: pick a new dir"
		# Ours: nothing half-written is left if the shards do not fit.
		# shellcheck disable=SC2064 # the dir is named now, on purpose
		[ -e "$OUT" ] || trap "rmdir $(printf %q "$OUT") 2>/dev/null" EXIT
		mkdir -p "$OUT" || die "$EXIT_USAGE" "cannot create --output $OUT"
		tmp=$OUT/console.log
	else
		tmp=$(mktemp "${TMPDIR:-/tmp}/toosmall-merge.XXXXXX") ||
			die "$EXIT_NOSPACE" "cannot create a temporary file in ${TMPDIR:-/tmp}"
		register_cleanup "rm -f $(printf %q "$tmp")"
		trap 'run_cleanups' EXIT
	fi
	# Its one-line error says what is wrong with the shards.
	python3 "$TOPDIR/runner/toosmall.py" merge --output "$tmp" "${consoles[@]}" ||
		exit "$EXIT_USAGE"
	python3 "$TOPDIR/runner/toosmall.py" parse "$tmp" ${OUT:+--output "$OUT"} \
		${KNOWN_ISSUES:+--known-issues "$KNOWN_ISSUES"} $KNOWN_ANY || rc=$?
	return "$rc"
}

main()
{
	local rc

	parse_args "$@"
	if [ "${#MERGE_DIRS[@]}" -gt 0 ]; then
		merge_shards
		return
	fi
	if [ -n "$PARSE_LOG" ]; then
		[ -z "$OUT" ] || mkdir -p "$OUT" ||
			die "$EXIT_USAGE" "cannot create --output $OUT"
		python3 "$TOPDIR/runner/toosmall.py" parse "$PARSE_LOG" \
			${OUT:+--output "$OUT"} ${KNOWN_ISSUES:+--known-issues "$KNOWN_ISSUES"} $KNOWN_ANY
		return
	fi
	[ "$VM" = uml ] || DEPS="$DEPS qemu-system-x86_64:qemu-system-x86 /usr/lib/qemu/virtiofsd:qemu-system-common"
	deps_check
	exec {TTY_ERR}>&2
	trap cleanup EXIT
	trap on_signal INT TERM HUP

	if ! mkdir -p "$CACHE" 2>/dev/null || [ ! -w "$CACHE" ]; then
		die "$EXIT_USAGE" "cache dir $CACHE is not writable: use --cache DIR"
	fi
	CACHE=$(realpath "$CACHE")
	if [ -n "$BASELINE" ]; then
		baseline_main
		return
	fi
	prepare_kernel
	[ "$BUILD_ONLY" = 0 ] || { log "built: $KERNEL"; return 0; }

	RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/toosmall.XXXXXX") ||
		die "$EXIT_NOSPACE" "cannot create a temporary dir in ${TMPDIR:-/tmp}"
	register_cleanup "rm -rf $(printf %q "$RUN_TMP")"
	if [ "$SELF_CHECK" = 1 ]; then
		selfcheck_plan "$RUN_TMP/plan.full"
	else
		make_plan "$RUN_TMP/plan.full"
	fi
	if [ "$LIST" = 1 ]; then
		awk -F'\t' '{ printf "%-50s %s\n", $1, $5 }' "$RUN_TMP/plan.full"
		return 0
	fi
	# Before anything is written: an empty plan is a usage error.
	[ -n "$EXEC_CMD" ] || [ -s "$RUN_TMP/plan.full" ] ||
		die "$EXIT_USAGE" "no test matches --filter ${FILTERS[*]}: see ./run.sh --list"

	if [ -z "$OUT" ]; then
		OUT="$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$$"
	fi
	[ ! -e "$OUT/console.log" ] ||
		die "$EXIT_USAGE" "--output $OUT already holds a run: pick a new dir"
	if [ ! -e "$OUT" ]; then
		# Ours: if we stop before the first boot, leave no empty dir.
		register_cleanup "[ -e $(printf %q "$OUT/console.log") ] || rmdir $(printf %q "$OUT/guest") $(printf %q "$OUT/lanes") $(printf %q "$OUT") 2>/dev/null"
	fi
	mkdir -p "$OUT" || die "$EXIT_USAGE" "cannot create --output $OUT"
	OUT=$(realpath "$OUT")
	check_space "$OUT" 200
	CONSOLE="$OUT/console.log"
	if [ "$(id -u)" = 0 ]; then
		SANDBOX_UID=65534
	else
		SANDBOX_UID=
	fi
	[ "$VM" = uml ] || qemu_setup
	TMP_MB=$((MEM_MB + 64))
	SCRATCH_MB=320
	GUEST_OUT=$OUT/guest

	if [ -n "$EXEC_CMD" ]; then
		printf 'exec\t-\t-\t0\tother\n' >"$RUN_TMP/plan.full"
	fi
	plan_mem "$RUN_TMP/plan.full"
	if [ -n "$SHARD" ]; then
		python3 "$TOPDIR/runner/toosmall.py" lanes "$RUN_TMP/plan.full" \
			"${SHARD#*/}" "$RUN_TMP/shards" --static --only "${SHARD%/*}" \
			--boot-conf "$OOM_DIR/boot.conf" >/dev/null ||
			die "$EXIT_INFRA" "could not cut shard $SHARD from the plan"
		cp "$RUN_TMP/shards/${SHARD%/*}/plan" "$RUN_TMP/plan.full"
	fi
	TESTS_TOTAL=$(wc -l <"$RUN_TMP/plan.full")
	TESTS_BEGUN=0
	# A shard may be empty (more shards than tests): it runs nothing and
	# passes; --merge still counts it.
	[ "$TESTS_TOTAL" -gt 0 ] || [ -n "$SHARD" ] ||
		die "$EXIT_USAGE" "no test matches --filter ${FILTERS[*]}: see ./run.sh --list"
	[ "$JOBS" -le "$TESTS_TOTAL" ] || JOBS=$((TESTS_TOTAL > 0 ? TESTS_TOTAL : 1))

	RUN_DEADLINE=$(($(date +%s) + RUN_TIMEOUT))
	if [ "$JOBS" -gt 1 ]; then
		run_lanes
	else
		stage_prepare
		[ -z "$EXEC_CMD" ] || printf '%s\n' "$EXEC_CMD" >"$RUN_TMP/stage/exec"
		cut -f1-4,6 "$RUN_TMP/plan.full" >"$RUN_TMP/plan.all"
		console_header "$RUN_TMP/plan.full" "$SHARD" >"$CONSOLE"
		log "running $TESTS_TOTAL test(s) in ${VM_NAME:-UML} (mem=$MEM), console: $CONSOLE"
		[ "$TESTS_TOTAL" = 0 ] || boot_plan
	fi

	if [ -n "$EXEC_CMD" ]; then
		sed -n '/TOOSMALL:BEGIN exec/,/TOOSMALL:END exec/p' "$CONSOLE" |
			sed '1d;$d'
		rc=$(sed -n 's/.*TOOSMALL:END exec rc=\([0-9]*\).*/\1/p' "$CONSOLE")
		return "${rc:-$EXIT_INFRA}"
	fi
	rc=0
	python3 "$TOPDIR/runner/toosmall.py" parse "$CONSOLE" --output "$OUT" \
		--durations "$CACHE/$DURATIONS" --fio-needs "$CACHE/$FIO_NEEDS" \
		${KNOWN_ISSUES:+--known-issues "$KNOWN_ISSUES"} $KNOWN_ANY || rc=$?
	if [ "$SELF_CHECK" = 1 ]; then
		# Failures are what the self-check provokes: only a verdict
		# other than the expected one fails it.
		rc=0
		selfcheck_verify || rc=1
	fi
	log "results in $OUT"
	return "$rc"
}

# One line: bash reads a script as it runs it, and an edit of this file
# during a long run must not change what the rest of the run does.
ORIG_ARGS=("$@"); main "$@"; exit $?
