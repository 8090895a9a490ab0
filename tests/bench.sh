#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the runner's speed, as figures (never as pass/fail).
#   cold_build_s        configure + build of a UML kernel from scratch
#   noop_rebuild_s      ./run.sh --build-only again, nothing changed (user tree: make runs)
#   noop_cached_s       the same for Debian's tree (stamp: make does not run)
#   one_file_loop_s     touch mm/page_alloc.c, rebuild, boot, run one test
#   boot_to_test_s      guest uptime when its init reports ready
#   suite_s             the whole default suite, cached kernel
#   failnth_points      fail-nth points swept by the default suite
#   failnth_rate        of those, points per second of sweeping
#   debug_slowdown      the same fail-nth subset under --profile debug
#                       (KASAN, kmemleak, lockdep) against the default
# Works on a copy of the default tree in a temporary cache, so neither your
# cache nor any tree of yours is touched. Takes about 10 minutes on 2 cores.

set -u
TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOPDIR" || exit 2
CACHE=${TOOSMALL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/toosmall-bench.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
ONE='failnth_fs.tmpfs.open_creat.both'
SUBSET='failnth_fs.tmpfs.*.both'

# secs CMD...: wall-clock seconds CMD took, with one decimal (bounded).
secs()
{
	local t0 t1

	t0=$(date +%s.%N)
	timeout -k 10 1800 "$@" >>"$WORK/bench.log" 2>&1 ||
		echo "bench: '$*' failed, see its output below" >&2
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
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
src=$(find "$CACHE/src" -maxdepth 1 -name 'linux-source-6.12-*' -type d | head -n 1)
[ -n "$src" ] || { echo "bench: no unpacked tree in $CACHE/src" >&2; exit 2; }
cp -a "$src" "$WORK/linux" || exit 5
mkdir -p "$WORK/cache"

echo "toosmall bench on $(nproc) cores, $(date -u +%F)"
figure cold_build_s "$(secs ./run.sh --kernel-src "$WORK/linux" --cache "$WORK/cache" --build-only)" \
	"target <= 180 (kunit.py minimal UML: 166)"
figure noop_rebuild_s "$(secs ./run.sh --kernel-src "$WORK/linux" --cache "$WORK/cache" --build-only)" \
	"user tree, make decides"
figure noop_cached_s "$(secs ./run.sh --build-only)" "Debian's tree, stamp"
touch "$WORK/linux/mm/page_alloc.c"
figure one_file_loop_s "$(secs ./run.sh --kernel-src "$WORK/linux" --cache "$WORK/cache" \
	--filter "$ONE" --output "$WORK/one")" "target <= 15 (kunit.py: 11.8)"
./run.sh --exec true --output "$WORK/boot" >>"$WORK/bench.log" 2>&1
figure boot_to_test_s "$(sed -n 's/.*TOOSMALL:READY.*uptime_s=\([0-9.]*\).*/\1/p' "$WORK/boot/console.log")" \
	"guest uptime at init ready; target <= 0.5"
figure suite_s "$(secs ./run.sh --output "$WORK/suite")" \
	"$(field "$WORK/suite/results.json" 'len(r["tests"])') tests"
number failnth_points "$(field "$WORK/suite/results.json" 'r["failnth"]["points"]')" points \
	"in $(field "$WORK/suite/results.json" 'r["failnth"]["sweeps"]') sweeps"
number failnth_rate "$(field "$WORK/suite/results.json" 'r["failnth"]["points_per_s"]')" points/s \
	"sweeping only (set-up and boots excluded)"

# The debug profile's cost, on one subset run under both profiles here.
./run.sh --profile debug --build-only >>"$WORK/bench.log" 2>&1
d=$(secs ./run.sh --filter "$SUBSET" --output "$WORK/default")
g=$(secs ./run.sh --profile debug --filter "$SUBSET" --output "$WORK/debug")
number debug_slowdown "$(awk -v d="$d" -v g="$g" 'BEGIN { printf "%.1f", g / d }')" x \
	"$SUBSET: default ${d}s, debug ${g}s (run incl. boot; kmemleak scan 5s/test)"
