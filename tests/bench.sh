#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the runner's speed, as figures (never as pass/fail).
#   cold_build_s        configure + build of a UML kernel from scratch
#   noop_rebuild_s      ./run.sh --build-only again, nothing changed (user tree: make runs)
#   noop_cached_s       the same for Debian's tree (stamp: make does not run)
#   one_file_loop_s     touch mm/page_alloc.c, rebuild, boot, run one test
#   dev_loop_s          the same with the failnth_mm program (all its tests):
#                       issue 14's developer loop
#   boot_to_test_s      guest uptime when its init reports ready
#   suite_jobs1_s       the whole default suite, cached kernel, one UML
#   suite_jobsN_s       the same with --jobs N (N: the cores), and the
#   jobs_speedup        ratio of the two
#   prog_<name>_s       per program, its tests' time (of the --jobs 1 run)
#   failnth_points      fail-nth points swept by the default suite
#   failnth_rate        of those, points per second of sweeping
#   failnth_call_rate   the same for the single-call sweeps alone
#   sites_run_s         the suite under --sites, --jobs N
#   failnth_sites       distinct allocation call sites failed (--sites);
#                       issue 13's target is >= 500
#   failnth_nowarn_named  __GFP_NOWARN slab faults, which dump no stack,
#                       named by the kmem tracepoints' call_site
#   failnth_unattributed  fail-nth points whose fault named no site
#   debug_failnth_s     the fail-nth subset of make check's group debug
#                       under --profile debug (KASAN, kmemleak, lockdep)
#   debug_slowdown      one fail-nth subset under --profile debug against
#                       the default
#   qemu_build_s        ./run.sh --vm qemu --build-only: the x86_64 kernel
#                       (cold the first time, then cached)
#   qemu_boot_to_test_s, qemu_suite_jobsN_s, qemu_failnth_rate,
#   qemu_failnth_call_rate  the same figures as UML's, under --vm qemu
#                       (KVM where /dev/kvm opens, else TCG: said)
# A command that failed prints "failed", never a time.
# tests/bench.sh uml prints all but the qemu_ figures (about 21 minutes here).
# tests/bench.sh vm (make bench-vm) prints only the side-by-side figures:
# boot_to_test_s, suite_jobsN_s and the fail-nth rates on UML, then the
# qemu_ ones (about 15 minutes here once the x86_64 kernel is cached).
# Works on a copy of the default tree in a temporary cache, so neither your
# cache nor any tree of yours is touched (the --vm qemu figures build and use
# the x86_64 kernel in your cache). Takes about 42 minutes on 2 cores.

set -u
TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOPDIR" || exit 2
CACHE=${TOOSMALL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/toosmall-bench.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
# Signalled (Ctrl-C, a timeout): exit, so that the EXIT trap runs; bash
# runs none on a signal it does not trap, and $WORK holds a kernel tree.
trap 'exit 130' INT
trap 'exit 143' TERM HUP
case "${1:-all}" in
all | uml | vm) PART=${1:-all} ;;
*) echo "bench: $1: all (the default), uml or vm" >&2; exit 2 ;;
esac
ONE='failnth_fs.tmpfs.open_creat.both'
SUBSET='failnth_fs.tmpfs.*.both'

# secs CMD...: wall-clock seconds CMD took, with one decimal (bounded), or
# "failed": a run that failed measured nothing. A suite run whose tests
# failed (exit 1) still ran them all: its time counts, and it says so.
secs()
{
	local t0 t1 rc=0

	t0=$(date +%s.%N)
	timeout -k 10 2400 "$@" >>"$WORK/bench.log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		echo "bench: '$*' failed (exit $rc), see $WORK/bench.log" >&2
		echo failed
		return
	fi
	[ "$rc" = 0 ] || echo "bench: '$*': some tests failed (exit 1)" >&2
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}

# ratio A B: A / B with one decimal, or "failed" if either is not a time.
ratio()
{
	case "$1$2" in *failed*) echo failed ;; *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }' ;; esac
}

figure()
{
	printf '%-20s %8s s   %s\n' "$1" "$2" "$3"
}

# number NAME VALUE UNIT NOTE
number()
{
	printf '%-20s %8s %s   %s\n' "$1" "$2" "$3" "$4"
}

# field RESULTS_JSON EXPR: a figure from a run's results.json.
field()
{
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"r": r}))' "$1" "$2" 2>/dev/null || echo "?"
}

./run.sh --build-only >"$WORK/bench.log" 2>&1 || { cat "$WORK/bench.log"; exit 1; }
echo "toosmall bench on $(nproc) cores, $(date -u +%F)"
n=$(nproc)
if [ "$PART" != vm ]; then
	src=$(find "$CACHE/src" -maxdepth 1 -name 'linux-source-6.12-*' -type d | head -n 1)
	[ -n "$src" ] || { echo "bench: no unpacked tree in $CACHE/src" >&2; exit 2; }
	cp -a "$src" "$WORK/linux" || exit 5
	mkdir -p "$WORK/cache"

	figure cold_build_s "$(secs ./run.sh --kernel-src "$WORK/linux" --cache "$WORK/cache" --build-only)" \
		"target <= 180 (kunit.py minimal UML: 166)"
	figure noop_rebuild_s "$(secs ./run.sh --kernel-src "$WORK/linux" --cache "$WORK/cache" --build-only)" \
		"user tree, make decides"
	figure noop_cached_s "$(secs ./run.sh --build-only)" "Debian's tree, stamp"
	touch "$WORK/linux/mm/page_alloc.c"
	figure one_file_loop_s "$(secs ./run.sh --kernel-src "$WORK/linux" --cache "$WORK/cache" \
		--filter "$ONE" --output "$WORK/one")" "one test (kunit.py's loop: 11.8)"
	touch "$WORK/linux/mm/page_alloc.c"
	figure dev_loop_s "$(secs ./run.sh --kernel-src "$WORK/linux" --cache "$WORK/cache" \
		--filter 'failnth_mm.*' --output "$WORK/dev")" \
		"failnth_mm, $(field "$WORK/dev/results.json" 'len(r["tests"])') tests; target <= 10"
fi
./run.sh --exec true --output "$WORK/boot" >>"$WORK/bench.log" 2>&1
figure boot_to_test_s "$(sed -n 's/.*TOOSMALL:READY.*uptime_s=\([0-9.]*\).*/\1/p' "$WORK/boot/console.log")" \
	"guest uptime at init ready; target <= 0.5"
if [ "$PART" = vm ]; then
	figure "suite_jobs${n}_s" "$(secs ./run.sh --jobs "$n" --output "$WORK/suite")" \
		"$(field "$WORK/suite/results.json" 'len(r["tests"])') tests, UML"
fi
if [ "$PART" != vm ]; then
	one=$(secs ./run.sh --jobs 1 --output "$WORK/suite")
	figure suite_jobs1_s "$one" "$(field "$WORK/suite/results.json" 'len(r["tests"])') tests, one UML"
	many=$(secs ./run.sh --jobs "$n" --output "$WORK/suite-n")
	figure "suite_jobs${n}_s" "$many" "--jobs $n; target <= 240 on 2 cores"
	number jobs_speedup "$(ratio "$one" "$many")" x "--jobs $n against --jobs 1; target >= 1.7 on 2 cores"
	figure sites_run_s "$(secs ./run.sh --jobs "$n" --sites --output "$WORK/sites")" \
		"the suite under --sites (a stack dumped per fault)"
	python3 - "$WORK/suite/results.json" <<'PY' 2>/dev/null
import json, sys
r = json.load(open(sys.argv[1]))
progs = {}
for t in r['tests']:
	p = t['name'].split('.', 1)[0]
	progs.setdefault(p, [0.0, 0])
	progs[p][0] += t['duration_s'] or 0
	progs[p][1] += 1
for p, (s, n) in sorted(progs.items(), key=lambda kv: -kv[1][0]):
	print('%-20s %8.1f s   %d tests' % ('prog_' + p + '_s', s, n))
PY
fi
number failnth_points "$(field "$WORK/suite/results.json" 'r["failnth"]["points"]')" points \
	"in $(field "$WORK/suite/results.json" 'r["failnth"]["sweeps"]') sweeps"
number failnth_rate "$(field "$WORK/suite/results.json" 'r["failnth"]["points_per_s"]')" points/s \
	"sweeping only (set-up and boots excluded)"
number failnth_call_rate "$(field "$WORK/suite/results.json" 'r["failnth"]["calls_points_per_s"]')" points/s \
	"the single-call sweeps alone (not failnth_work's whole commands)"
if [ "$PART" != vm ]; then
	number failnth_sites "$(field "$WORK/sites/results.json" 'r["sites"]["distinct"]')" sites \
		"distinct call sites failed, whole suite under --sites"
	number failnth_nowarn_named "$(field "$WORK/sites/results.json" 'r["sites"]["nowarn_named"]')" faults \
		"__GFP_NOWARN faults named by the kmem tracepoints' stacks"
	number failnth_unattributed "$(field "$WORK/sites/results.json" 'r["sites"]["unattributed"]')" points \
		"of $(field "$WORK/sites/results.json" 'r["sites"]["points"]') fail-nth points, no site named (__GFP_NOWARN)"

	# The debug profile's cost, on one subset run under both profiles here.
	./run.sh --profile debug --build-only >>"$WORK/bench.log" 2>&1
	d=$(secs ./run.sh --jobs 1 --filter "$SUBSET" --output "$WORK/default")
	g=$(secs ./run.sh --jobs 1 --profile debug --filter "$SUBSET" --output "$WORK/debug")
	number debug_slowdown "$(ratio "$g" "$d")" x \
		"$SUBSET: default ${d}s, debug ${g}s (run incl. boot; kmemleak scan 5s/test)"
	# make check's group debug: its fail-nth subset, as there.
	args=()
	# The array's lines, DEBUG_FAILNTH=( to ), as words.
	read -ra globs <<<"$(sed -n '/^DEBUG_FAILNTH=(/,/)$/p' tests/check.sh |
		sed 's/^DEBUG_FAILNTH=//' | tr -d "'()" | tr '\n\t' '  ')"
	for g in "${globs[@]}"; do
		args+=(--filter "$g")
	done
	# Its --jobs, check.sh's debug_jobs(): 3 a CPU, at most 8.
	j=$((3 * n < 8 ? 3 * n : 8))
	figure debug_failnth_s "$(secs ./run.sh --profile debug --jobs "$j" "${args[@]}" --output "$WORK/debug-subset")" \
		"$(field "$WORK/debug-subset/results.json" 'len(r["tests"])') tests of make check's group debug, --jobs $j"
fi

# The same suite on an x86_64 kernel under QEMU (issue 16's figures).
[ "$PART" != uml ] || exit 0
figure qemu_build_s "$(secs ./run.sh --vm qemu --build-only)" \
	"x86_64 kernel; cold once (about 1000 s here), then cached"
./run.sh --vm qemu --exec true --output "$WORK/qboot" >>"$WORK/bench.log" 2>&1
accel=$(sed -n 's/.*vm=qemu accel=\([a-z]*\).*/\1/p' "$WORK/qboot/console.log" | head -n 1)
figure qemu_boot_to_test_s "$(sed -n 's/.*TOOSMALL:READY.*uptime_s=\([0-9.]*\).*/\1/p' "$WORK/qboot/console.log")" \
	"guest uptime at init ready, $accel (UML: boot_to_test_s)"
figure "qemu_suite_jobs${n}_s" "$(secs ./run.sh --vm qemu --jobs "$n" --output "$WORK/qsuite")" \
	"$(field "$WORK/qsuite/results.json" 'len(r["tests"])') tests, $accel; see README for what differs"
number qemu_failnth_rate "$(field "$WORK/qsuite/results.json" 'r["failnth"]["points_per_s"]')" points/s \
	"$accel (UML: failnth_rate)"
number qemu_failnth_call_rate "$(field "$WORK/qsuite/results.json" 'r["failnth"]["calls_points_per_s"]')" points/s \
	"$accel, single-call sweeps (UML: failnth_call_rate)"
