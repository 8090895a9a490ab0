#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# upstream/check.sh: the series upstream/mkseries.sh makes, checked the way
# a kernel developer would meet it. On a copy of the default 6.12 tree:
#   series     mkseries.sh writes a cover letter and its patches
#   apply      git apply --check, then git apply, each patch in order
#   checkpatch scripts/checkpatch.pl --strict on each patch, clean
#   build      headers_install (x86), then the mm selftests, oom/ included
#   install    the selftests' install for TARGETS=mm lists mm/oom:<test>
#   uml        in UML, with the cached kernel (./run.sh --exec):
#              make -C tools/testing/selftests TARGETS=mm run_tests runs
#              every oom program; runner/toosmall.py ksft judges each
#              from its TAP (the kselftest runner exits 0 whatever
#              happens) as run.sh's runs are judged: every selected case
#              reports, a case that is not ok must be a known issue whose
#              signature explains it, and a kernel splat on the guest's
#              console fails the run. run_vmtests.sh gets
#              past "no hugetlbfs" and skips the hugetlb tests; the
#              installed run_kselftest.sh -t mm/oom:<test> runs; a
#              run_vmtests.sh failure followed by a skip exits 1
#   qemu       the same on the cached x86_64 kernel under QEMU (./run.sh
#              --vm qemu --exec), when CHECK_VMS names it; there
#              run_vmtests.sh finds hugetlbfs and runs its mdwe category
#              (x86_64 has hugetlbfs: its hugetlb tests would take
#              minutes under TCG and test nothing of the series)
#   tree       the original tree was not written
# Prints "ok NAME" or "not ok NAME - why" per check, then a totals line;
# exits 1 if any check failed, 2 on a usage error.
#
# Cases left out of the guest, each named in a "# SKIP" line: those whose
# known-issues status is crash or hang (a panic ends the guest and every
# test after it; run.sh boots them one by one), and, in the default
# reduced set, most cases of the programs that take minutes in full (see
# REDUCED). Each program still runs, its fixtures' setup and teardown
# included. run_vmtests.sh runs only its hugetlb category in UML
# (KSELFTEST_RUN_VMTESTS_SH_ARGS=-t hugetlb): that proves the fix and the
# hook; mm's full run is long and not what this checks.
#
# Environment: CHECK_VMS (the guests to run in, default: uml; "uml qemu"
# adds the x86_64 kernel, which run.sh builds if it is not cached, about
# 17 minutes on 2 cores), CHECK_CASES (reduced, the default, or all: every case but
# the known crashes and hangs), CHECK_KSRC (kernel tree, default: the one
# in the cache), CHECK_SERIES (check this series dir instead of making
# one), CHECK_OOM_TEST (the program for run_kselftest.sh -t, default:
# failnth_ipc_sysv_test), CHECK_KNOWN_ISSUES (default: known-issues),
# CHECK_KEEP=1 (keep the work dir and say where), TOOSMALL_CACHE.

set -u

TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOSMALL=$TOPDIR/runner/toosmall.py
OOM=tools/testing/selftests/mm/oom
: "${TOOSMALL_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}"
export TOOSMALL_CACHE
: "${CHECK_CASES:=reduced}"
: "${CHECK_KNOWN_ISSUES:=$TOPDIR/known-issues}"
: "${CHECK_VMS:=uml}"
# Bounds: the guest's whole run (QEMU's boot may be emulated: TCG), and
# each host step.
readonly UML_SECS=600 QEMU_SECS=900 BUILD_SECS=600

# The reduced set: "PROGRAM GLOB..." (runner names, as ./run.sh --list
# prints them) for the programs that take minutes in full; the others run
# every case. fio_test: each workload once, without pressure (the memcg
# conditions bisect a limit, 20-50 s each; tinymem wants mem=36M; replay
# wants a power cut). memcg_test: each charge regime once, on XFS, and
# the group tests. failnth_work_test: the procfs reader (the others sweep
# 300 runs of a command each, 25-45 s). failnth_fs_test: the both sweeps
# of tmpfs and ext4, of the mounts and loop_add (all 234 cases take about
# 250 s under TCG). The seven
# largest of the other fail-nth programs: their both sweeps, a third of
# their cases (every fixture and scenario still runs; the slab and page
# sweeps are the full suite's to run): the guest's part went from 259 s
# to 202 s on a 2-core host with a 6.18 kernel.
REDUCED=(
	'fio_test fio.xfs.*.nopressure'
	'memcg_test memcg.charge.xfs_write.* memcg.group.*'
	'failnth_work_test failnth_work.work.proc_read.*'
	'failnth_fs_test failnth_fs.tmpfs.*.both failnth_fs.ext4.*.both failnth_fs.*_mount.both failnth_fs.loop_add.both'
	'failnth_task_test failnth_task.*.both'
	'failnth_net_test failnth_net.*.both'
	'failnth_sock_test failnth_sock.*.both'
	'failnth_bpf_test failnth_bpf.*.both'
	'failnth_io_test failnth_io.*.both'
	'failnth_mm_test failnth_mm.*.both'
	'failnth_nft_test failnth_nft.*.both'
)

PASSED=0
FAILED=0
WORK=
CHILD=
BOOTS=0
declare -A CONSOLE CONSOLE_JUDGED
T0=$SECONDS

case "${1:-}" in
'') ;;
-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
*) echo "upstream/check.sh: no arguments (see --help)" >&2; exit 2 ;;
esac
for VM in $CHECK_VMS; do
	case "$VM" in
	uml | qemu) ;;
	*) echo "upstream/check.sh: CHECK_VMS=$CHECK_VMS: uml, qemu or both" >&2; exit 2 ;;
	esac
done
case "$CHECK_CASES" in
reduced | all) ;;
*) echo "upstream/check.sh: CHECK_CASES=$CHECK_CASES: reduced or all" >&2; exit 2 ;;
esac

ok()
{
	PASSED=$((PASSED + 1))
	echo "ok $1"
}

# not_ok NAME WHY [DETAIL...]: DETAIL lines follow as "#   " comments.
not_ok()
{
	FAILED=$((FAILED + 1))
	echo "not ok $1 - $2"
	shift 2
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed '/^$/d; s/^/#   /'
}

# shellcheck disable=SC2317 # run by the traps
cleanup()
{
	[ -n "$WORK" ] || return
	if [ -n "${CHECK_KEEP:-}" ]; then
		echo "# kept $WORK"
	else
		rm -rf "$WORK"
	fi
	WORK=
}

# shellcheck disable=SC2317 # run by the traps
interrupted()
{
	if [ -n "$CHILD" ]; then
		kill -TERM -- "-$CHILD" 2>/dev/null
		wait "$CHILD" 2>/dev/null
	fi
	cleanup
	exit 130
}

# run BOUND CMD...: CMD in a process group of its own, bounded; a signal to
# this script stops the whole group (bash would otherwise wait for a
# foreground child before running the trap).
run()
{
	local secs=$1 rc

	shift
	setsid timeout -k 10 "$secs" "$@" &
	CHILD=$!
	wait "$CHILD"
	rc=$?
	CHILD=
	return "$rc"
}

finish()
{
	echo "# upstream checks took $((SECONDS - T0))s"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ]
	exit
}

ksrc()
{
	local d

	if [ -n "${CHECK_KSRC:-}" ]; then
		printf '%s\n' "$CHECK_KSRC"
		return
	fi
	for d in "$TOOSMALL_CACHE"/src/linux-source-6.12-*/; do
		[ -f "$d/Makefile" ] && { printf '%s\n' "${d%/}"; return 0; }
	done
	return 1
}

# copy_tree SRC DST: the tree, with the parts anything here writes (tools,
# usr, scripts, include, arch/x86) copied and the rest hard-linked: git
# apply replaces files rather than writing into them, and nothing else
# here writes outside those parts. Readable by all: UML's hostfs reads it
# as the unprivileged user UML runs as.
copy_tree()
{
	local src=$1 dst=$2 d

	cp -al "$src" "$dst" || return
	for d in tools usr scripts include arch/x86; do
		rm -rf "${dst:?}/$d" && cp -a "$src/$d" "$dst/$d" || return
	done
	chmod -R a+rX "$dst/tools" "$dst/usr"
}

# reduced_globs PROG: the reduced set's globs for PROG, or nothing (all).
reduced_globs()
{
	local entry

	[ "$CHECK_CASES" = reduced ] || return 0
	for entry in "${REDUCED[@]}"; do
		[ "${entry%% *}" = "$1" ] && printf '%s\n' "${entry#* }" | tr ' ' '\n'
	done
}

# select_cases DIR PROG...: for each program, DIR/PROG.cases (the harness
# names to run) and DIR/PROG.args (the harness filter that runs exactly
# those: -r for each, or nothing when all run). Prints a "# SKIP" line for
# each known crash or hang left out and one line per reduced program.
select_cases()
{
	local dir=$1 prog runner hname g keep st id text i n all listing said=
	local globs=() names=() hnames=()
	local -A left

	shift
	for prog in "$@"; do
		mapfile -t globs < <(reduced_globs "$prog")
		names=()
		hnames=()
		all=0
		# Its cases as run.sh names them, and the harness (from its -l
		# listing; the timeout is not used here).
		listing=$(python3 "$TOOSMALL" plan --timeout 0 "$COPY/$OOM/$prog") ||
			echo "# $prog: toosmall.py plan failed: see above" >&2
		while IFS=$'\t' read -r runner _ hname _; do
			[ -n "$runner" ] || continue
			all=$((all + 1))
			if [ "${#globs[@]}" -gt 0 ]; then
				keep=
				for g in "${globs[@]}"; do
					# shellcheck disable=SC2053 # the glob is meant to match
					[[ "$runner" == $g ]] && keep=1
				done
				[ -n "$keep" ] || continue
			fi
			names+=("$runner")
			hnames+=("$hname")
		done <<<"$listing"
		left=()
		while IFS=$'\t' read -r runner st id text; do
			left[$runner]="$st $id: $runner ($text)"
		done < <(python3 "$TOOSMALL" known --known-issues "$CHECK_KNOWN_ISSUES" \
			--status crash,hang "${names[@]}")
		: >"$dir/$prog.cases"
		n=0
		for i in "${!names[@]}"; do
			if [ -n "${left[${names[i]}]:-}" ]; then
				[ -n "$said" ] || echo "# left out: a case whose known-issues status is crash or hang ends the guest and every case after it (run.sh boots each alone)"
				said=1
				echo "# SKIP known ${left[${names[i]}]}"
				continue
			fi
			printf '%s\n' "${hnames[i]}" >>"$dir/$prog.cases"
			n=$((n + 1))
		done
		# No argument would run every case: say so rather than do it.
		[ "$n" -gt 0 ] || [ "$all" = 0 ] ||
			echo "# $prog: every selected case is left out; it runs them all" >&2
		if [ "$n" = "$all" ]; then
			: >"$dir/$prog.args"
		else
			sed 's/^/-r /' "$dir/$prog.cases" | tr '\n' ' ' >"$dir/$prog.args"
		fi
		if [ "${#globs[@]}" -gt 0 ]; then
			echo "# reduced: $prog runs $n of its $all cases (${globs[*]}); CHECK_CASES=all runs them all"
		fi
		[ "$all" -gt 0 ] || echo "# $prog -l listed no case" >&2
	done
}

# ksft_var PROG: the variable the kselftest runner takes PROG's arguments
# from (kselftest/runner.sh: KSELFTEST_<NAME>_ARGS).
ksft_var()
{
	printf 'KSELFTEST_%s_ARGS\n' "$(printf '%s' "$1" | tr -c '[:alnum:]_' _ | tr '[:lower:]' '[:upper:]')"
}

# ksft STEP LABEL PROG...: runner/toosmall.py's verdict on each program's
# run in STEP's TAP, one ok or not ok line each (LABEL, "{prog}" in it the
# program), against WORK/sel/PROG.cases and known-issues; and on the
# console of STEP's boot, unless a step of that boot had it.
ksft()
{
	local step=$1 label=$2 line rc='' said='' console=() c=${CONSOLE[$VM.$1]:-}

	shift 2
	if [ -n "$c" ] && [ -z "${CONSOLE_JUDGED[$c]:-}" ]; then
		CONSOLE_JUDGED[$c]=1
		console=(--console "$c")
	fi
	while IFS= read -r line; do
		case "$line" in
		"ok "*) PASSED=$((PASSED + 1)) ;;
		"not ok "*) FAILED=$((FAILED + 1)); said=1 ;;
		"toosmall-ksft-rc="*) rc=${line#*=}; continue ;;
		esac
		printf '%s\n' "$line"
	done < <(python3 "$TOOSMALL" ksft "$TAPS/$step.tap" "$WORK/sel" "$@" \
		--label "$label" --known-issues "$CHECK_KNOWN_ISSUES" --vm "$VM" "${console[@]}" \
		2>"$WORK/ksft.err"; echo "toosmall-ksft-rc=$?")
	# An error before any verdict still fails.
	[ "$rc" = 0 ] || [ -n "$said" ] ||
		not_ok "toosmall.py ksft judges $step's TAP" "exit ${rc:-none}, no verdict" \
			"$(tail -n 10 "$WORK/ksft.err")"
}

# guest_script STEP...: the guest's part, each step writing OUT/STEP.tap
# and an end marker with its exit status.
#   make     make -C tools/testing/selftests TARGETS=mm run_tests
#   install  the installed run_kselftest.sh -t mm/oom:$CHECK_OOM_TEST
#   rank     run_vmtests.sh's exit status with stand-in tests: a failure
#            then a skip exits 1; a pass then a skip exits 4
guest_script()
{
	local step prog var

	printf 'taps=/run/toosmall/out/%s\n' "$VM"
	cat <<'EOF'
out=/run/toosmall/out
mkdir -p $taps
# devtmpfs has no /dev/stdout (udev makes it); the kselftest runner writes
# to it.
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e /dev/${i#*:} ] || ln -s /proc/self/fd/${i%%:*} /dev/${i#*:}
done
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# As on a machine without run.sh: no dir survives a power cut, so the
# tests that need one skip.
unset OOM_STATE_DIR
EOF
	if [ "$VM" = uml ]; then
		echo 'export KSELFTEST_RUN_VMTESTS_SH_ARGS="-t hugetlb"'
	else
		echo 'export KSELFTEST_RUN_VMTESTS_SH_ARGS="-t mdwe"'
	fi
	for prog in "${OOM_TESTS[@]}"; do
		var=$(ksft_var "$prog")
		printf 'export %s="%s"\n' "$var" "$(cat "$WORK/sel/$prog.args")"
	done
	for step in "$@"; do
		case "$step" in
		make)
			cat <<'EOF'
cd $out/linux && make -C tools/testing/selftests TARGETS=mm run_tests >$taps/make.tap 2>&1
echo "UPSTREAM:END make rc=$?" >>$taps/make.tap
EOF
			;;
		install)
			# Appending: the runner writes the tests' output to a
			# second open of /dev/stdout (O_APPEND); a stdout opened
			# with ">" keeps its own offset and overwrites it. (make
			# sets O_APPEND on its stdout, which hides this there.)
			cat <<EOF
: >\$taps/install.tap
\$out/kselftest/run_kselftest.sh -t mm/oom:$INSTALL_TEST >>\$taps/install.tap 2>&1
echo "UPSTREAM:END install rc=\$?" >>\$taps/install.tap
EOF
			;;
		rank)
			cat <<'EOF'
rank() {
	d=$(mktemp -d) && cp $out/linux/tools/testing/selftests/mm/run_vmtests.sh "$d/" &&
	printf '#!/bin/sh\nexit %s\n' "$1" >"$d/map_fixed_noreplace" &&
	printf '#!/bin/sh\nexit 4\n' >"$d/map_populate" &&
	chmod +x "$d/map_fixed_noreplace" "$d/map_populate" &&
	(cd "$d" && ./run_vmtests.sh -t mmap)
	echo "UPSTREAM:RANK first=$1 rc=$?"
	rm -rf "$d"
}
{ rank 1; rank 0; } >$taps/rank.tap 2>&1
echo "UPSTREAM:END rank" >>$taps/rank.tap
EOF
			;;
		esac
	done
}

# boot_guest STEP...: run the steps in a VM guest; TAPS/STEP.tap for each,
# and the boot's console in CONSOLE[VM.STEP].
boot_guest()
{
	local s rc secs=$UML_SECS

	[ "$VM" = uml ] || secs=$QEMU_SECS
	BOOTS=$((BOOTS + 1))
	guest_script "$@" >"$WORK/guest.sh"
	run "$secs" "$TOPDIR/run.sh" --vm "$VM" --run-timeout $((secs - 20)) \
		--output "$WORK/vm" --exec "$(cat "$WORK/guest.sh")" >>"$WORK/$VM.log" 2>&1
	rc=$?
	# run.sh wants an output dir without a console.log.
	mv "$WORK/vm/console.log" "$WORK/vm/console.$BOOTS.log" 2>/dev/null
	for s in "$@"; do
		CONSOLE[$VM.$s]=$WORK/vm/console.$BOOTS.log
	done
	return "$rc"
}

# step_done STEP: whether the guest finished STEP.
step_done()
{
	grep -q "^UPSTREAM:END $1" "$TAPS/$1.tap" 2>/dev/null
}

check_series()
{
	local p out

	if [ -n "${CHECK_SERIES:-}" ]; then
		SERIES=$CHECK_SERIES
	else
		SERIES=$WORK/series
		if ! run 120 "$TOPDIR/upstream/mkseries.sh" --kernel-src "$SRC" \
			--output "$SERIES" >"$WORK/mkseries.log" 2>&1; then
			not_ok "mkseries.sh writes the series" "it failed" "$(cat "$WORK/mkseries.log")"
			finish
		fi
	fi
	for p in "$SERIES"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -f "$p" ] && [ "${p##*/}" != 0000-cover-letter.patch ] && PATCHES+=("$p")
	done
	if [ "${#PATCHES[@]}" -ge 2 ] && [ -s "$SERIES/0000-cover-letter.patch" ] &&
		! grep -q '\*\*\* SUBJECT HERE \*\*\*' "$SERIES/0000-cover-letter.patch"; then
		ok "mkseries.sh wrote a cover letter and ${#PATCHES[@]} patches"
	else
		not_ok "mkseries.sh wrote a cover letter and patches" "found ${#PATCHES[@]} patches in $SERIES"
		finish
	fi
	if grep -il '^Signed-off-by:' "$SERIES"/*.patch >/dev/null; then
		not_ok "no Signed-off-by in the series" "the submitter adds theirs" \
			"$(grep -il '^Signed-off-by:' "$SERIES"/*.patch)"
	else
		ok "no Signed-off-by in the series (left to the submitter)"
	fi
}

check_apply()
{
	local p out err=

	mkdir -p "$GUEST" && chmod 755 "$WORK/vm" "$GUEST"
	if ! out=$(copy_tree "$SRC" "$COPY" 2>&1); then
		not_ok "copy of the tree" "cp failed" "$out"
		finish
	fi
	for p in "${PATCHES[@]}"; do
		if ! out=$(cd "$COPY" && git apply --check "$p" 2>&1 && git apply "$p" 2>&1); then
			err="$(basename "$p"): $out"
			break
		fi
	done
	if [ -z "$err" ]; then
		ok "git apply --check, then git apply: ${#PATCHES[@]} patches on $(basename "$SRC")"
	else
		not_ok "the series applies to $(basename "$SRC")" "git apply failed" "$err"
		finish
	fi
	mapfile -t OOM_TESTS < <(make -s --no-print-directory -C "$COPY/$OOM" COLLECTION=mm/oom emit_tests 2>/dev/null | sed -n 's|^mm/oom:||p')
	if [ "${#OOM_TESTS[@]}" = 0 ]; then
		not_ok "oom/Makefile lists tests" "make emit_tests in $OOM printed none"
		finish
	fi
}

# checkpatch: no Signed-off-by by design; a new directory under
# tools/testing/selftests/mm/ needs no MAINTAINERS change when MAINTAINERS
# already covers it, which get_maintainer.pl must confirm. Findings are
# printed as FILE:LINE TYPE: message.
check_checkpatch()
{
	local p out all='' log=$WORK/checkpatch.log

	if ! (cd "$COPY" && ./scripts/get_maintainer.pl --no-git --no-git-fallback -f "$OOM/Makefile" 2>/dev/null) |
		grep -q 'linux-mm@kvack.org'; then
		not_ok "MAINTAINERS covers $OOM" "get_maintainer.pl names no linux-mm list: the series must add a MAINTAINERS entry"
		return
	fi
	for p in "${PATCHES[@]}"; do
		cd "$COPY" || exit 2
		run 120 ./scripts/checkpatch.pl --strict --no-signoff \
			--ignore FILE_PATH_CHANGES,ENOSYS,STRNCPY,MACRO_ARG_REUSE --show-types --quiet "$p" >"$log" 2>&1
		cd - >/dev/null || exit 2
		out=$(awk -v patch="${p##*/}" '
				/^(WARNING|ERROR|CHECK):/ { msg = $0; file = ""; next }
				msg != "" && /^#[0-9]+: FILE: / {
					sub(/^#[0-9]+: FILE: /, ""); sub(/:$/, "")
					print $0 " " msg; msg = ""; next
				}
				msg != "" && /^$/ { print patch " " msg; msg = "" }
				END { if (msg != "") print patch " " msg }' "$log")
		[ -z "$out" ] || all="$all$out"$'\n'
	done
	if [ -z "$all" ]; then
		ok "checkpatch.pl --strict clean on ${#PATCHES[@]} patches (--no-signoff; ENOSYS, STRNCPY: kernel-only advice, MACRO_ARG_REUSE: FAILNTH_SWEEP names its fixture as TEST_F does, as make lint; FILE_PATH_CHANGES: MAINTAINERS covers mm selftests)"
	else
		not_ok "checkpatch.pl --strict clean" "$(printf '%s' "$all" | grep -c .) findings" \
			"$(printf '%s' "$all" | sed "s|^$OOM/||" | head -n 120)"
	fi
}

# build, for the host arch: ARCH=um has no exportable headers.
check_build()
{
	local log=$WORK/build.log t missing=

	# shellcheck disable=SC2016 # expanded by that sh
	if ! run "$BUILD_SECS" env TMPDIR="$WORK/tmp" sh -c 'make -C "$1" ARCH=x86 headers_install &&
		make -C "$1/tools/testing/selftests" TARGETS=mm -j2' sh "$COPY" >"$log" 2>&1; then
		not_ok "headers_install, then make TARGETS=mm" "make failed" \
			"$(grep -E 'error|Error' "$log" | head -n 10)" "$(tail -n 5 "$log")"
		finish
	fi
	for t in "${OOM_TESTS[@]}"; do
		[ -x "$COPY/$OOM/$t" ] || missing="$missing $t"
	done
	if [ -z "$missing" ]; then
		ok "headers_install, then make TARGETS=mm builds mm and oom/ (${#OOM_TESTS[@]} oom tests)"
	else
		not_ok "make TARGETS=mm builds oom/" "not built:$missing" "$(tail -n 15 "$log")"
		finish
	fi
	if grep -E "^$OOM/[^:]*:[0-9]+:[0-9]+: warning:|oom/[^ ]*\.[ch]:[0-9]+:[0-9]+: warning:" "$log" >"$WORK/warn"; then
		not_ok "oom/ builds without warnings" "$(wc -l <"$WORK/warn") warnings" "$(head -n 10 "$WORK/warn")"
	else
		ok "oom/ builds without warnings in the tree"
	fi
}

# make kselftest-install is headers (done above) and this; the kernel
# Makefile would also want a configured tree.
check_install()
{
	local log=$WORK/install.log t missing=

	if ! run 120 env TMPDIR="$WORK/tmp" \
		make -C "$COPY/tools/testing/selftests" install TARGETS=mm \
		KSFT_INSTALL_PATH="$GUEST/kselftest" >"$log" 2>&1; then
		not_ok "make kselftest-install TARGETS=mm" "make failed" "$(tail -n 10 "$log")"
		return
	fi
	for t in "${OOM_TESTS[@]}"; do
		grep -qx "mm/oom:$t" "$GUEST/kselftest/kselftest-list.txt" &&
			[ -x "$GUEST/kselftest/mm/oom/$t" ] || missing="$missing $t"
	done
	if [ -z "$missing" ] && grep -qx 'mm:run_vmtests.sh' "$GUEST/kselftest/kselftest-list.txt"; then
		ok "kselftest install TARGETS=mm installs and lists mm/oom:<test> for ${#OOM_TESTS[@]} tests and mm:run_vmtests.sh"
	else
		not_ok "make kselftest-install lists the oom tests" "missing:$missing" \
			"$(cat "$GUEST/kselftest/kselftest-list.txt" 2>/dev/null)"
	fi
}

check_guest()
{
	local steps=(make install rank) s p rc t1 n order

	TAPS=$GUEST/$VM
	t1=$SECONDS
	boot_guest "${steps[@]}"
	rc=$?
	# A guest that died in make (a panic the known-issues do not name):
	# the later steps get a boot of their own.
	if ! step_done make && ! step_done install; then
		echo "# the guest did not finish make run_tests (run.sh exit $rc): install and rank get a second boot"
		boot_guest install rank
	fi
	echo "# $VM part took $((SECONDS - t1))s"

	if step_done make; then
		rc=$(sed -n 's/^UPSTREAM:END make rc=//p' "$TAPS/make.tap")
		order=$(grep -oE '^(not )?ok [0-9]+ selftests: mm(/oom)?: [^ ]+' "$TAPS/make.tap" | awk '{ print $NF }' | tr '\n' ' ')
		n=$(printf '%s\n' "${OOM_TESTS[@]}" run_vmtests.sh | tr '\n' ' ')
		if [ "$rc" = 0 ] && [ "$order" = "$n" ]; then
			ok "$VM: make -C tools/testing/selftests TARGETS=mm run_tests ran the ${#OOM_TESTS[@]} oom programs, then run_vmtests.sh"
		else
			not_ok "$VM: make TARGETS=mm run_tests runs the oom programs, then run_vmtests.sh" "make rc=$rc, ran: ${order:-nothing}" \
				"$(grep -vE '^(# |ok |not ok )' "$TAPS/make.tap" | tail -n 10)"
		fi
	else
		not_ok "$VM: make TARGETS=mm run_tests finished" "no end marker (run.sh exit $rc)" \
			"$(grep '^toosmall: error' "$WORK/$VM.log" | head -n 3)" \
			"$(tail -n 3 "$TAPS/make.tap" 2>/dev/null)"
	fi
	ksft make "$VM: make run_tests: mm/oom:{prog}" "${OOM_TESTS[@]}"

	# run_vmtests.sh's part of the make output: in UML every hugetlb test
	# skips with the reason, none fails, and nr_hugepages (absent) is left
	# alone; on x86_64 the probe finds hugetlbfs and mdwe_test passes.
	sed -n '/^# selftests: mm: run_vmtests.sh/,$p' "$TAPS/make.tap" 2>/dev/null >"$WORK/$VM.vmtests.tap"
	p=$(grep -E '^(not )?ok [0-9]+ selftests: mm: run_vmtests.sh' "$WORK/$VM.vmtests.tap" | tail -n 1)
	n=$(grep -c '^# ok [0-9]* [^ ].* # SKIP no hugetlbfs$' "$WORK/$VM.vmtests.tap")
	if [ "$VM" != uml ]; then
		if [[ "$p" == ok* ]] && [[ "$p" != *'# SKIP'* ]] &&
			grep -qE '^# ok [0-9]+ (\./)?mdwe_test$' "$WORK/$VM.vmtests.tap" &&
			! grep -qE 'no hugetlbfs support in kernel|^# not ok ' "$WORK/$VM.vmtests.tap"; then
			ok "$VM: run_vmtests.sh -t mdwe finds hugetlbfs and passes mdwe_test"
		else
			not_ok "$VM: run_vmtests.sh -t mdwe finds hugetlbfs and passes mdwe_test" "got: ${p:-no result line}" \
				"$(grep -E 'hugetlbfs|^# (not )?ok ' "$WORK/$VM.vmtests.tap" | head -n 5)"
		fi
	elif [[ "$p" == ok*'# SKIP'* ]] && [ "$n" -gt 0 ] &&
		! grep -qE 'no hugetlbfs support in kernel\?|^# not ok |nr_hugepages' "$WORK/$VM.vmtests.tap"; then
		ok "$VM: run_vmtests.sh -t hugetlb runs past the hugetlbfs probe and skips its $n hugetlb tests (# SKIP no hugetlbfs)"
	else
		not_ok "$VM: run_vmtests.sh skips the hugetlb tests without hugetlbfs" "got: ${p:-no result line}" \
			"$({ grep -E 'no hugetlbfs support in kernel\?|^# not ok |nr_hugepages' "$WORK/$VM.vmtests.tap" ||
				grep -E 'hugetlbfs' "$WORK/$VM.vmtests.tap"; } | head -n 5)"
	fi

	if step_done install; then
		ksft install "$VM: installed run_kselftest.sh -t mm/oom:{prog}" "$INSTALL_TEST"
	else
		not_ok "$VM: installed run_kselftest.sh -t mm/oom:$INSTALL_TEST" "did not finish" \
			"$(tail -n 10 "$TAPS/install.tap" 2>/dev/null)"
	fi

	s=$(sed -n 's/^UPSTREAM:RANK first=\([0-9]*\) rc=\([0-9]*\).*/\1:\2/p' "$TAPS/rank.tap" 2>/dev/null | tr '\n' ' ')
	if [ "$s" = "1:1 0:4 " ] && grep -q '^not ok 1 map_fixed_noreplace' "$TAPS/rank.tap" &&
		grep -q '^ok 2 map_populate # SKIP' "$TAPS/rank.tap"; then
		ok "$VM: run_vmtests.sh exits 1 when a failure is followed by a skip, 4 when a pass is"
	else
		not_ok "$VM: run_vmtests.sh ranks its exit status" "first:rc got ${s:-none}, want 1:1 0:4" \
			"$(grep -vE '^# ' "$TAPS/rank.tap" 2>/dev/null | tail -n 8)"
	fi
}

main()
{
	local oom_default=failnth_ipc_sysv_test

	SRC=$(ksrc) || { not_ok "kernel tree" "no linux-source-6.12 in $TOOSMALL_CACHE/src: run ./run.sh --build-only"; finish; }
	trap cleanup EXIT
	trap interrupted INT TERM HUP
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/upstream-check.XXXXXX") || exit 2
	: >"$WORK/stamp"
	# The mm build's check_config.sh leaves its mktemp file behind (it
	# removes only ${tmpname}.*): the host-side makes keep such files in
	# WORK, which goes.  Only they: run.sh stages the kernel in TMPDIR for
	# its unprivileged UML user, who cannot enter WORK (mode 0700).
	mkdir "$WORK/tmp" || exit 2
	COPY=$WORK/vm/guest/linux
	GUEST=$WORK/vm/guest
	PATCHES=()
	OOM_TESTS=()

	check_series
	check_apply
	INSTALL_TEST=${CHECK_OOM_TEST:-$oom_default}
	printf '%s\n' "${OOM_TESTS[@]}" | grep -qx "$INSTALL_TEST" || INSTALL_TEST=${OOM_TESTS[0]}
	check_checkpatch
	check_build
	check_install
	mkdir -p "$WORK/sel" || exit 2
	select_cases "$WORK/sel" "${OOM_TESTS[@]}"
	chmod -R a+rX "$GUEST"
	for VM in $CHECK_VMS; do
		check_guest
	done

	if [ -z "$(find "$SRC" -newer "$WORK/stamp" -print -quit)" ]; then
		ok "the original tree was not written"
	else
		not_ok "the original tree was not written" "changed:" "$(find "$SRC" -newer "$WORK/stamp" | head -n 5)"
	fi
	finish
}

main "$@"
