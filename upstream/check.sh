#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# upstream/check.sh: the series upstream/mkseries.sh makes, checked the way
# a kernel developer would meet it. On a copy of the default 6.12 tree:
#   series     mkseries.sh writes a cover letter and its patches
#   apply      git apply --check, then git apply, each patch in order
#   checkpatch scripts/checkpatch.pl --strict on each patch, clean
#   build      headers_install (x86), then the mm selftests, oom/ included
#   install    make kselftest-install TARGETS=mm lists mm/oom:<test>
#   uml        in UML, with the cached kernel (./run.sh --exec):
#              make -C tools/testing/selftests TARGETS=mm run_tests runs
#              every oom test and each passes (judged from the TAP: the
#              kselftest runner exits 0 whatever happens); run_vmtests.sh
#              gets past "no hugetlbfs" and reports the hugetlb tests as
#              skipped; the installed run_kselftest.sh -t mm/oom:<test>
#              passes; run_vmtests.sh's exit status is 1 when a failure
#              is followed by a skip
#   tree       the original tree was not written
# Prints "ok NAME" or "not ok NAME - why" per check, then a totals line;
# exits 1 if any check failed, 2 on a usage error.
#
# run_vmtests.sh runs only its hugetlb category in UML
# (KSELFTEST_RUN_VMTESTS_SH_ARGS=-t hugetlb): that proves the fix and the
# hook; mm's full run is long and not what this checks.
#
# Environment: CHECK_KSRC (kernel tree, default: the one in the cache),
# CHECK_SERIES (check this series dir instead of making one),
# CHECK_OOM_TEST (the test for run_kselftest.sh -t, default: the first),
# CHECK_KEEP=1 (keep the work dir and say where), TOOSMALL_CACHE.

set -u

TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OOM=tools/testing/selftests/mm/oom
: "${TOOSMALL_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}"
export TOOSMALL_CACHE
PASSED=0
FAILED=0
WORK=
T0=$SECONDS

case "${1:-}" in
'') ;;
-h | --help) sed -n '3,31s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
*) echo "upstream/check.sh: no arguments (see --help)" >&2; exit 2 ;;
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
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/#   /'
}

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup()
{
	[ -n "$WORK" ] || return
	if [ -n "${CHECK_KEEP:-}" ]; then
		echo "# kept $WORK"
	else
		rm -rf "$WORK"
	fi
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

# tap_result LOG TESTLINE: the runner's result line for TESTLINE
# ("selftests: mm/oom: prog"), or nothing.
tap_result()
{
	grep -E "^(not )?ok [0-9]+ $2( |\$)" "$1" | tail -n 1
}

main()
{
	local src series copy guest oom_tests=() patches=() t t2 p log rc out bad n

	src=$(ksrc) || { not_ok "upstream: kernel tree" "no linux-source-6.12 in $TOOSMALL_CACHE/src: run ./run.sh --build-only"; finish; }
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/upstream-check.XXXXXX") || exit 2
	trap cleanup EXIT
	trap 'exit 130' INT TERM HUP
	: >"$WORK/stamp"

	# series
	if [ -n "${CHECK_SERIES:-}" ]; then
		series=$CHECK_SERIES
	else
		series=$WORK/series
		if ! out=$("$TOPDIR/upstream/mkseries.sh" --kernel-src "$src" --output "$series" 2>&1); then
			not_ok "upstream: mkseries.sh writes the series" "it failed" "$out"
			finish
		fi
	fi
	for p in "$series"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -f "$p" ] && [ "${p##*/}" != 0000-cover-letter.patch ] && patches+=("$p")
	done
	if [ "${#patches[@]}" -ge 2 ] && [ -s "$series/0000-cover-letter.patch" ] &&
		! grep -q '\*\*\* SUBJECT HERE \*\*\*' "$series/0000-cover-letter.patch"; then
		ok "upstream: mkseries.sh wrote a cover letter and ${#patches[@]} patches"
	else
		not_ok "upstream: mkseries.sh wrote a cover letter and patches" "found ${#patches[@]} patches in $series"
		finish
	fi
	if grep -il '^Signed-off-by:' "$series"/*.patch >/dev/null; then
		not_ok "upstream: no Signed-off-by in the series" "the submitter adds theirs" \
			"$(grep -il '^Signed-off-by:' "$series"/*.patch)"
	else
		ok "upstream: no Signed-off-by in the series (left to the submitter)"
	fi

	# apply
	copy=$WORK/uml/guest/linux
	mkdir -p "$WORK/uml/guest" && chmod 755 "$WORK/uml" "$WORK/uml/guest"
	if ! out=$(copy_tree "$src" "$copy" 2>&1); then
		not_ok "upstream: copy of the tree" "cp failed" "$out"
		finish
	fi
	bad=
	for p in "${patches[@]}"; do
		if ! out=$(cd "$copy" && git apply --check "$p" 2>&1 && git apply "$p" 2>&1); then
			bad="$(basename "$p"): $out"
			break
		fi
	done
	if [ -z "$bad" ]; then
		ok "upstream: git apply --check, then git apply: ${#patches[@]} patches on $(basename "$src")"
	else
		not_ok "upstream: the series applies to $(basename "$src")" "git apply failed" "$bad"
		finish
	fi
	mapfile -t oom_tests < <(make -s --no-print-directory -C "$copy/$OOM" COLLECTION=mm/oom emit_tests 2>/dev/null | sed -n 's|^mm/oom:||p')
	if [ "${#oom_tests[@]}" = 0 ]; then
		not_ok "upstream: oom/Makefile lists tests" "make emit_tests in $OOM printed none"
		finish
	fi

	# checkpatch: no Signed-off-by by design; a new directory under
	# tools/testing/selftests/mm/ needs no MAINTAINERS change when
	# MAINTAINERS already covers it, which get_maintainer.pl must confirm.
	if (cd "$copy" && ./scripts/get_maintainer.pl --no-git --no-git-fallback -f "$OOM/Makefile" 2>/dev/null) |
		grep -q 'linux-mm@kvack.org'; then
		bad=
		for p in "$series"/0*.patch; do
			[ "$p" != "$series/0000-cover-letter.patch" ] || continue
			out=$(cd "$copy" && ./scripts/checkpatch.pl --strict --no-signoff \
				--ignore FILE_PATH_CHANGES,ENOSYS,STRNCPY --show-types --quiet "$p" 2>&1)
			[ -z "$out" ] || bad="$bad$(basename "$p"):"$'\n'"$out"$'\n'
		done
		if [ -z "$bad" ]; then
			ok "upstream: checkpatch.pl --strict clean on ${#patches[@]} patches (--no-signoff; ENOSYS, STRNCPY: kernel-only advice, as make lint; FILE_PATH_CHANGES: MAINTAINERS covers mm selftests)"
		else
			not_ok "upstream: checkpatch.pl --strict clean" "$(printf '%s\n' "$bad" | grep -cE '^(ERROR|WARNING|CHECK):') findings" \
				"$(printf '%s' "$bad" | head -n 40)"
		fi
	else
		not_ok "upstream: MAINTAINERS covers $OOM" "get_maintainer.pl names no linux-mm list: the series must add a MAINTAINERS entry"
	fi

	# build, for the host arch: ARCH=um has no exportable headers.
	log=$WORK/build.log
	if (make -C "$copy" ARCH=x86 headers_install &&
		make -C "$copy/tools/testing/selftests" TARGETS=mm -j2) >"$log" 2>&1; then
		bad=
		for t in "${oom_tests[@]}"; do
			[ -x "$copy/$OOM/$t" ] || bad="$bad $t"
		done
		if [ -z "$bad" ]; then
			ok "upstream: headers_install, then make TARGETS=mm builds mm and oom/ (${#oom_tests[@]} oom tests)"
		else
			not_ok "upstream: make TARGETS=mm builds oom/" "not built:$bad" "$(tail -n 15 "$log")"
		fi
		if grep -E "^$OOM/[^:]*:[0-9]+:[0-9]+: warning:|oom/[^ ]*\.[ch]:[0-9]+:[0-9]+: warning:" "$log" >"$WORK/warn"; then
			not_ok "upstream: oom/ builds without warnings" "$(wc -l <"$WORK/warn") warnings" "$(head -n 10 "$WORK/warn")"
		else
			ok "upstream: oom/ builds without warnings in the tree"
		fi
	else
		not_ok "upstream: headers_install, then make TARGETS=mm" "make failed" "$(grep -E 'error|Error' "$log" | head -n 10)" "$(tail -n 5 "$log")"
		finish
	fi

	# install
	guest=$WORK/uml/guest
	log=$WORK/install.log
	# make kselftest-install is headers (done above) and this; the kernel
	# Makefile would also want a configured tree.
	if make -C "$copy/tools/testing/selftests" install TARGETS=mm \
		KSFT_INSTALL_PATH="$guest/kselftest" >"$log" 2>&1; then
		bad=
		for t in "${oom_tests[@]}"; do
			grep -qx "mm/oom:$t" "$guest/kselftest/kselftest-list.txt" &&
				[ -x "$guest/kselftest/mm/oom/$t" ] || bad="$bad $t"
		done
		if [ -z "$bad" ] && grep -qx 'mm:run_vmtests.sh' "$guest/kselftest/kselftest-list.txt"; then
			ok "upstream: kselftest install TARGETS=mm installs and lists mm/oom:<test> for ${#oom_tests[@]} tests and mm:run_vmtests.sh"
		else
			not_ok "upstream: make kselftest-install lists the oom tests" "missing:$bad" \
				"$(cat "$guest/kselftest/kselftest-list.txt" 2>/dev/null)"
		fi
	else
		not_ok "upstream: make kselftest-install TARGETS=mm" "make failed" "$(tail -n 10 "$log")"
	fi
	chmod -R a+rX "$guest"

	# uml
	t=${CHECK_OOM_TEST:-${oom_tests[0]}}
	# The kselftest runner reopens /dev/stdout for the tests' output: give
	# it files (in the guest's writable out dir), not the console, and a
	# /dev/stdout.
	cat >"$WORK/guest.sh" <<EOF
out=/run/toosmall/out
# devtmpfs has no /dev/stdout (udev makes it); the runner writes to it.
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e /dev/\${i#*:} ] || ln -s /proc/self/fd/\${i%%:*} /dev/\${i#*:}
done
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
cd \$out/linux || exit 1
KSELFTEST_RUN_VMTESTS_SH_ARGS="-t hugetlb" make -C tools/testing/selftests TARGETS=mm run_tests >\$out/make.tap 2>&1
echo "UPSTREAM:END make rc=\$?" >>\$out/make.tap
\$out/kselftest/run_kselftest.sh -t mm/oom:$t >\$out/install.tap 2>&1
echo "UPSTREAM:END install rc=\$?" >>\$out/install.tap
# run_vmtests.sh's exit status: a failure (map_fixed_noreplace stand-in
# exits 1) then a skip (map_populate stand-in exits 4) must exit 1.
d=\$(mktemp -d) && cp tools/testing/selftests/mm/run_vmtests.sh "\$d/" &&
printf '#!/bin/sh\nexit 1\n' >"\$d/map_fixed_noreplace" &&
printf '#!/bin/sh\nexit 4\n' >"\$d/map_populate" &&
chmod +x "\$d/map_fixed_noreplace" "\$d/map_populate" && cd "\$d" &&
./run_vmtests.sh -t mmap >\$out/rank.tap 2>&1
echo "UPSTREAM:RANK rc=\$?" >>\$out/rank.tap
EOF
	log=$WORK/uml.log
	(cd "$TOPDIR" && timeout -k 10 1500 ./run.sh --run-timeout 1400 \
		--output "$WORK/uml" --exec "$(cat "$WORK/guest.sh")") >"$log" 2>&1
	rc=$?
	for p in make install rank; do
		cp "$guest/$p.tap" "$WORK/$p.tap" 2>/dev/null || : >"$WORK/$p.tap"
	done
	if ! grep -q 'UPSTREAM:END make' "$WORK/make.tap"; then
		not_ok "upstream: uml: make TARGETS=mm run_tests" "did not finish (run.sh exit $rc)" "$(tail -n 15 "$log")"
		finish
	fi
	bad=
	n=0
	for t2 in "${oom_tests[@]}"; do
		p=$(tap_result "$WORK/make.tap" "selftests: mm/oom: $t2")
		case "$p" in
		ok*'# SKIP'*) bad="$bad"$'\n'"$p (skipped: every knob is there in UML)" ;;
		ok*) n=$((n + 1)) ;;
		'') bad="$bad"$'\n'"$t2: no result line" ;;
		*) bad="$bad"$'\n'"$p" ;;
		esac
	done
	if [ -z "$bad" ]; then
		ok "upstream: uml: make -C tools/testing/selftests TARGETS=mm run_tests ran the $n oom tests, all ok"
	else
		not_ok "upstream: uml: make TARGETS=mm run_tests: every oom test ok" "$((${#oom_tests[@]} - n)) not ok" \
			"${bad#$'\n'}" "$(grep -E '^# +(not ok|#  )' "$WORK/make.tap" | head -n 20)"
	fi
	p=$(tap_result "$WORK/make.tap" "selftests: mm: run_vmtests.sh")
	if [[ "$p" == ok*'# SKIP'* ]] && ! grep -q 'no hugetlbfs support in kernel?' "$WORK/make.tap" &&
		grep -q '^# ok [0-9]* hugepage-mmap # SKIP no hugetlbfs' "$WORK/make.tap"; then
		ok "upstream: uml: run_vmtests.sh -t hugetlb runs past the hugetlbfs probe and skips the hugetlb tests"
	else
		not_ok "upstream: uml: run_vmtests.sh skips the hugetlb tests without hugetlbfs" "got: ${p:-no result line}" \
			"$(grep -E 'hugetlbfs|hugepage-mmap' "$WORK/make.tap" | head -n 5)"
	fi
	t=${CHECK_OOM_TEST:-${oom_tests[0]}}
	p=$(tap_result "$WORK/install.tap" "selftests: mm/oom: $t")
	if [[ "$p" == ok* ]] && [[ "$p" != *'# SKIP'* ]]; then
		ok "upstream: uml: installed run_kselftest.sh -t mm/oom:$t ok"
	else
		not_ok "upstream: uml: installed run_kselftest.sh -t mm/oom:$t" "got: ${p:-no result line}" \
			"$(tail -n 15 "$WORK/install.tap")"
	fi
	p=$(sed -n 's/^UPSTREAM:RANK rc=\([0-9]*\).*/\1/p' "$WORK/rank.tap")
	if [ "$p" = 1 ] && grep -q '^not ok 1 map_fixed_noreplace' "$WORK/rank.tap" &&
		grep -q '^ok 2 map_populate # SKIP' "$WORK/rank.tap"; then
		ok "upstream: uml: run_vmtests.sh exits 1 when a failure is followed by a skip"
	else
		not_ok "upstream: uml: run_vmtests.sh exits 1 when a failure is followed by a skip" "exit ${p:-none}" \
			"$(tail -n 8 "$WORK/rank.tap")"
	fi

	# tree
	if [ -z "$(find "$src" -newer "$WORK/stamp" -print -quit)" ]; then
		ok "upstream: the original tree was not written"
	else
		not_ok "upstream: the original tree was not written" "changed:" "$(find "$src" -newer "$WORK/stamp" | head -n 5)"
	fi
	finish
}

main "$@"
