# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# ./run.sh --kernel-src PATCHED --baseline BASE: the suite on both kernels,
# the tests that differed re-run on both, then what the patch changed
# (toosmall.py diff, runner/diff.py). Each kernel is built, cached and run
# by a run.sh of its own; this file only orchestrates them.
# Sourced by run.sh; defines functions only.

CHILD_PIDS=()

# baseline_tree: sets BASE_SRC. BASE is a directory, or a revision of
# PATCHED's git repository, exported once per commit into the cache with
# git archive, which only reads the user's objects (no checkout, no index,
# no ref is written).
baseline_tree()
{
	local sha dir tmp git=(git -c safe.directory='*' -C "$KERNEL_SRC")

	if [ -d "$BASELINE" ]; then
		BASE_SRC=$(realpath "$BASELINE")
		return
	fi
	command -v git >/dev/null 2>&1 ||
		die "$EXIT_MISSING" "--baseline $BASELINE is no directory, and git, to read it as a revision, is missing: apt-get install git"
	sha=$("${git[@]}" rev-parse --verify --quiet "$BASELINE^{commit}" 2>/dev/null) ||
		die "$EXIT_USAGE" "--baseline $BASELINE: neither a directory nor a revision of the git repository of $KERNEL_SRC"
	dir=$CACHE/src/baseline-${sha:0:16}
	if [ ! -d "$dir" ]; then
		mkdir -p "$CACHE/src" || die "$EXIT_USAGE" "cannot create $CACHE/src: use --cache DIR"
		check_space "$CACHE/src" 2000
		tmp=$(mktemp -d "$CACHE/src/.baseline.XXXXXX") ||
			die "$EXIT_NOSPACE" "cannot create a directory in $CACHE/src"
		register_cleanup "rm -rf $(printf %q "$tmp")"
		log "exporting $BASELINE (${sha:0:12}) of $KERNEL_SRC into $dir"
		"${git[@]}" archive --format=tar "$sha" | tar -x -C "$tmp" ||
			die "$EXIT_INFRA" "could not export $BASELINE of $KERNEL_SRC (git archive | tar): see the lines above"
		mv "$tmp" "$dir" || die "$EXIT_NOSPACE" "cannot move the export to $dir"
	fi
	BASE_SRC=$dir
}

# child_args WITH_FILTERS: CHILD_ARGS, the user's options that each kernel's
# run takes as they are (all but those of the baseline mode itself; the
# --filter ones only if WITH_FILTERS is 1: a re-run names its tests).
child_args()
{
	local i a

	CHILD_ARGS=()
	for ((i = 0; i < ${#ORIG_ARGS[@]}; i++)); do
		a=${ORIG_ARGS[i]}
		case "$a" in
		--baseline | --kernel-src | --output | --jobs | --reruns)
			i=$((i + 1))
			continue
			;;
		--filter)
			i=$((i + 1))
			[ "$1" = 1 ] || continue
			CHILD_ARGS+=(--filter "${ORIG_ARGS[i]}")
			continue
			;;
		esac
		CHILD_ARGS+=("$a")
	done
}

# baseline_stop: end the kernels' runs, by pid; each stops its own UMLs on
# SIGTERM, its lanes within lanes_stop()'s bound, which this one exceeds.
# shellcheck disable=SC2317 # run by the cleanup registered in baseline_main
baseline_stop()
{
	stop_pids $((HALT_TIMEOUT + MCONSOLE_TIMEOUT + 10)) "${CHILD_PIDS[@]}"
	CHILD_PIDS=()
}

# both_kernels WHAT JOBS ARGS...: run.sh on the base and on the patched
# kernel, at once when JOBS allows two UMLs (each gets half), else one after
# the other, outputs in $OUT/WHAT.base and $OUT/WHAT.patched and logs beside
# them. Fails the run if either run could not run its tests (exit 2 or more;
# exit 1, tests that failed, is what a diff is for).
both_kernels()
{
	local what=$1 jobs=$2 k rc=0 r i=0 per=1
	local names=(base patched) srcs=("$BASE_SRC" "$SRC") pin cpus

	shift 2
	[ "$jobs" -lt 2 ] || per=$((jobs / 2))
	mapfile -t cpus < <(allowed_cpus)
	for k in 0 1; do
		# Two runs at once: each on its half of the CPUs, within which
		# its UMLs are bound (uml_cpu), not both to the first CPU.
		pin=()
		if [ -n "$what" ] && [ "$jobs" -ge 2 ] && [ "${#cpus[@]}" -ge $((2 * per)) ]; then
			pin=(taskset -c "$(IFS=,; echo "${cpus[*]:$((k * per)):per}")")
		fi
		"${pin[@]}" "$TOPDIR/run.sh" --kernel-src "${srcs[k]}" --jobs "$per" "$@" \
			${what:+--output "$OUT/$what.${names[k]}"} \
			>"$OUT/${what:-build}.${names[k]}.log" 2>&1 &
		CHILD_PIDS+=($!)
		[ "$jobs" -lt 2 ] || continue
		wait "$!"
		r=$?
		if [ "$r" -gt 1 ]; then
			rc=$r
			i=$k
			break
		fi
	done
	if [ "$jobs" -ge 2 ]; then
		for k in 0 1; do
			wait "${CHILD_PIDS[k]}"
			r=$?
			if [ "$r" -gt 1 ] && [ "$rc" = 0 ]; then
				rc=$r
				i=$k
			fi
		done
	fi
	CHILD_PIDS=()
	[ "$rc" = 0 ] ||
		die "$rc" "the ${names[i]} kernel's ${what:-build} failed (exit $rc): $(grep 'toosmall: error' "$OUT/${what:-build}.${names[i]}.log" | tail -n 1 | sed 's/^toosmall: error: //') (see $OUT/${what:-build}.${names[i]}.log)"
	for k in 0 1; do
		[ -z "$what" ] ||
			log "${names[k]}: $(grep -E '^[0-9]+ passed, ' "$OUT/$what.${names[k]}.log" | tail -n 1)"
	done
}

baseline_main()
{
	local n rerun=() confirm=() rc=0

	SRC=$(realpath "$KERNEL_SRC" 2>/dev/null) ||
		die "$EXIT_USAGE" "--kernel-src $KERNEL_SRC: no such directory"
	source_check "$SRC"
	baseline_tree
	source_check "$BASE_SRC"
	[ "$BASE_SRC" != "$SRC" ] ||
		die "$EXIT_USAGE" "--baseline $BASELINE is the patched tree itself: name the tree or revision the patch applies to"
	if [ -z "$OUT" ]; then
		OUT="$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$$-diff"
	fi
	if [ -e "$OUT/diff.json" ] || [ -e "$OUT/run.base" ]; then
		die "$EXIT_USAGE" "--output $OUT already holds a diff: pick a new dir"
	fi
	mkdir -p "$OUT" || die "$EXIT_USAGE" "cannot create --output $OUT"
	OUT=$(realpath "$OUT")
	check_space "$OUT" 400
	register_cleanup baseline_stop

	child_args 1
	log "building both kernels: base $BASE_SRC, patched $SRC"
	both_kernels "" 1 --build-only "${CHILD_ARGS[@]}"
	[ "$BUILD_ONLY" = 0 ] || return 0
	# shellcheck disable=SC2153 # JOBS: run.sh's parse_args sets it
	log "running the suite on both kernels (--jobs $JOBS), logs in $OUT"
	both_kernels run "$JOBS" "${CHILD_ARGS[@]}"

	python3 "$TOPDIR/runner/toosmall.py" diff "$OUT/run.base" "$OUT/run.patched" \
		--candidates >"$OUT/rerun.list" ||
		die "$EXIT_INFRA" "could not compare the two runs in $OUT"
	if [ -s "$OUT/rerun.list" ] && [ "$RERUNS" -gt 0 ]; then
		child_args 0
		while read -r n; do
			rerun+=(--filter "$n")
		done <"$OUT/rerun.list"
		log "$(wc -l <"$OUT/rerun.list") test(s) differ: re-running them $RERUNS time(s) on both kernels"
		for ((n = 1; n <= RERUNS; n++)); do
			both_kernels "rerun$n" "$JOBS" "${CHILD_ARGS[@]}" "${rerun[@]}"
			confirm+=(--confirm-base "$OUT/rerun$n.base"
				--confirm-patched "$OUT/rerun$n.patched")
		done
	fi
	python3 "$TOPDIR/runner/toosmall.py" diff "$OUT/run.base" "$OUT/run.patched" \
		"${confirm[@]}" --output "$OUT/diff.json" || rc=$?
	[ "$rc" -le 1 ] || die "$EXIT_INFRA" "could not compare the two runs in $OUT"
	log "diff in $OUT/diff.json, each kernel's run in $OUT/run.base and $OUT/run.patched"
	return "$rc"
}
