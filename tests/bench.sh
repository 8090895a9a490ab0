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
# Works on a copy of the default tree in a temporary cache, so neither your
# cache nor any tree of yours is touched. Takes about 10 minutes on 2 cores.

set -u
TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOPDIR" || exit 2
CACHE=${TOOSMALL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/toosmall-bench.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
ONE='failnth.tmpfs_create.open_creat.*'

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
	"$(tail -n 1 "$WORK/suite/results.ktap" >/dev/null 2>&1; python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
pts = sum(v.get("points", 0) for t in r["tests"] for g in t["metrics"].values() for v in g.values())
print("%d tests, %d fail-nth points" % (len(r["tests"]), pts))' "$WORK/suite/results.json" 2>/dev/null)"
