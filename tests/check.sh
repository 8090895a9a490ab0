#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's own tests: `make check`. Runs, in order of cost:
#   lint      shellcheck on the shell, checkpatch and clang-format on the C
#   parser    runner/test_toosmall.py on the captured logs in fixtures/logs
#   cli       bad input gets a one-line error and its own exit code; the
#             default kernel is built first (or found in the cache), as it
#             is at the start of group uml, and the debug one of group debug
#   uml       real runs in UML: the suite, the fail-nth checks under
#             --mutate (group mutate alone), --sites on the network sweeps
#             (group sites alone), a guest's escape attempts, the
#             knobs put back after a killed sweep (group knobs alone), the
#             kernel cache, Ctrl-C cleanup, --jobs, --shard and --merge
#             against one UML (group jobs alone), a prebuilt kernel without
#             fault injection, the verdicts against known-issues, and the
#             detector self-check
#   kernel    kernel-patches/ (the default kernel's fixes): they apply to
#             pristine linux-source-6.12 as a linux-um series, checkpatch
#             --strict clean (group uml checks their reproducers)
#   upstream  the selftests as a kernel patch series: apply, checkpatch,
#             make kselftest TARGETS=mm in UML (upstream/check.sh)
#             and, when the x86_64 kernel is in the cache, in that guest
#   upstream-qemu  the same, the x86_64 kernel built first if need be
#             (make check-qemu)
#   debug     the detector self-check on the debug profile (KASAN,
#             kmemleak, lockdep), which builds its own kernel, and a subset
#             of the fail-nth sweeps on it: a leak on an error path fails
#             its test (CHECK_DEBUG_FILTERS, globs, replaces the subset)
#   debug-full  every fail-nth program in every mode on the debug profile
#             (make check-debug-full; not part of make check: about 1,800
#             tests, not timed)
#   mutate-full, prebuilt-full  group uml's --mutate run and its run on
#             Debian's linux.uml, on every fail-nth program rather than
#             the few make check takes (make check-long)
#   baseline  --baseline on patched copies of the default tree (make
#             check-baseline; not part of make check: a kernel build per
#             copy): the OOM reaper off, a comment, F3's fix, a flaky test
#   baseline-flaky  that last case alone
#   remake    cli's check that a user tree is made again only when it or
#             the config changed (a fragment's comment is not the config)
#   qemu      a short --vm qemu run (one filter a program) on an x86_64
#             kernel, judged against known-issues, and the guest's escape
#             attempts there; skipped, saying so, when the x86_64 kernel is
#             not in the cache (qemu-build, make check-qemu, builds it)
# Each check prints "ok" or "not ok" with its name, then "#   N s" if it
# took 5 s or more; the last line is "N passed, N failed, N skipped".
# Usage: tests/check.sh [GROUP...];
# CHECK_SKIP_SUITE=1 leaves out the (slowest) full suite run of group uml.

set -u

TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOPDIR" || exit 2
: "${CHECK_CACHE:=${TOOSMALL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}}"
export TOOSMALL_CACHE=$CHECK_CACHE

PASSED=0
FAILED=0
SKIPPED=0
N=0
# The time each check took, for make check's budget: since the last result.
LAST=$SECONDS

# took: "#   N s" after a result that took 5 s or more.
took()
{
	[ $((SECONDS - LAST)) -lt 5 ] || echo "#   $((SECONDS - LAST)) s"
	LAST=$SECONDS
}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/toosmall-check.XXXXXX") || exit 2
trap 'rm -rf "$SCRATCH"' EXIT
# Signalled (Ctrl-C, CI's timeout): exit, so that the EXIT trap runs; the
# bounded commands, in our process group, got the signal too.
trap 'exit 130' INT
trap 'exit 143' TERM HUP

ok()
{
	N=$((N + 1))
	PASSED=$((PASSED + 1))
	echo "ok $N $1"
	took
}

not_ok()
{
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "not ok $N $1"
	shift
	[ $# -eq 0 ] || printf '#   %s\n' "$@"
	took
}

skip()
{
	N=$((N + 1))
	SKIPPED=$((SKIPPED + 1))
	echo "ok $N $1 # SKIP $2"
	took
}

# expect NAME CMD...: ok if CMD succeeds, else not ok with its last output.
expect()
{
	local name=$1 out

	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name" "$(printf '%s\n' "$out" | tail -n 15)"
	fi
}

# Never wait without a deadline, even in our own tests. In the foreground:
# timeout's own process group would keep CMD out of reach of a Ctrl-C or
# of CI's timeout of make check, which signal ours; run.sh stops its UMLs
# when it is signalled.
run_bounded()
{
	local secs=$1

	shift
	timeout --foreground -k 10 "$secs" "$@"
}

# filter_args GLOB...: FILTER_ARGS, run.sh's --filter for each GLOB.
filter_args()
{
	local g

	FILTER_ARGS=()
	for g in "$@"; do
		FILTER_ARGS+=(--filter "$g")
	done
}

ksrc()
{
	local d

	for d in "$TOOSMALL_CACHE"/src/linux-source-6.12-*/; do
		[ -f "$d/scripts/checkpatch.pl" ] && { printf '%s\n' "${d%/}"; return 0; }
	done
	return 1
}

check_lint()
{
	local sh_files c_files src f out bad=0

	mapfile -t sh_files < <(git ls-files -co --exclude-standard '*.sh' run.sh .ci/run)
	mapfile -t sh_files < <(printf '%s\n' "${sh_files[@]}" | sort -u)
	if command -v shellcheck >/dev/null; then
		expect "lint: shellcheck ${#sh_files[@]} shell files" \
			shellcheck -x "${sh_files[@]}"
	else
		skip "lint: shellcheck" "shellcheck not installed (apt-get install shellcheck)"
	fi

	mapfile -t c_files < <(git ls-files -co --exclude-standard '*.c' '*.h')
	if ! src=$(ksrc); then
		skip "lint: checkpatch" "no unpacked kernel tree yet (run ./run.sh --build-only)"
		return
	fi
	# ENOSYS, STRNCPY: advice for kernel code, not for tests of the
	# syscalls' user API; MACRO_ARG_REUSE: a test-defining macro names
	# its fixture several times (as the harness's own TEST_F does), and
	# a fixture name has no side effects.
	out=$("$src/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
		--ignore ENOSYS,STRNCPY,MACRO_ARG_REUSE -f "${c_files[@]}" 2>&1)
	if [ -z "$out" ]; then
		ok "lint: checkpatch --strict --no-tree on ${#c_files[@]} C files"
	else
		not_ok "lint: checkpatch --strict --no-tree on ${#c_files[@]} C files" "$(printf '%s\n' "$out" | head -n 20)"
	fi
	# The selftests' Makefile warns and goes on, as lib.mk does; a warning
	# here is new, and fixtures/detect's build (-Werror) would stop on it.
	out=$(for f in tools/testing/selftests/mm/oom/*.c fixtures/detect/*.c; do
		gcc -O2 -Wall -Werror -I"$src/tools/testing/selftests" \
			-I tools/testing/selftests/mm/oom -c -o /dev/null "$f" 2>&1
	done)
	if [ -z "$out" ]; then
		ok "lint: the selftests build with gcc -O2 -Wall -Werror"
	else
		not_ok "lint: the selftests build with gcc -O2 -Wall -Werror" \
			"$(printf '%s\n' "$out" | grep -E 'error|warning' | head -n 10)"
	fi
	if command -v clang-format >/dev/null; then
		for f in "${c_files[@]}"; do
			clang-format --style="file:$src/.clang-format" "$f" | cmp -s - "$f" ||
				{ bad=1; echo "#   $f differs from clang-format"; }
		done
		if [ "$bad" = 0 ]; then
			ok "lint: clang-format (kernel style) on ${#c_files[@]} C files"
		else
			not_ok "lint: clang-format (kernel style)"
		fi
	else
		skip "lint: clang-format" "clang-format not installed"
	fi
}

check_parser()
{
	local out

	if out=$(python3 runner/test_toosmall.py 2>&1); then
		ok "parser: $(printf '%s\n' "$out" | grep -E '^Ran [0-9]+ tests')"
	else
		not_ok "parser: runner/test_toosmall.py" "$(printf '%s\n' "$out" | tail -n 25)"
	fi
}

# expect_exit NAME CODE PATTERN CMD...: CMD exits CODE and says PATTERN on a
# single stderr line.
expect_exit()
{
	local name=$1 code=$2 pat=$3 err rc

	shift 3
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$code" ] && printf '%s\n' "$err" | grep -qE -e "$pat" &&
		[ "$(printf '%s\n' "$err" | grep -c 'error:')" = 1 ]; then
		ok "$name (exit $rc)"
	else
		not_ok "$name" "exit $rc (want $code), stderr:" "$err"
	fi
}

# A kernel-patches/ file that does not apply: exit 3 naming it, and no
# tree, half-patched or not, left in the cache. Run from a copy of the repo
# whose patch set has one more, broken, patch, with a cache of its own.
check_cli_bad_patch()
{
	local copy="$SCRATCH/badpatch" cache="$SCRATCH/badpatch-cache"

	mkdir -p "$copy" "$cache"
	git ls-files -z | xargs -0 cp -P --parents -t "$copy" ||
		{ not_ok "cli: a kernel patch that does not apply" "cannot copy the repo"; return; }
	printf '%s\n' 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001' \
		'Subject: [PATCH] broken on purpose' '' '---' \
		'--- a/Makefile' '+++ b/Makefile' '@@ -1,1 +1,1 @@' \
		'-NO SUCH LINE IN THE KERNEL MAKEFILE' '+NOR THIS' \
		>"$copy/kernel-patches/9999-broken.patch"
	expect_exit "cli: a kernel patch that does not apply" 3 \
		"kernel-patches/9999-broken.patch does not apply" \
		env TOOSMALL_CACHE="$cache" timeout --foreground -k 10 600 "$copy/run.sh" --build-only
	if [ -n "$(find "$cache/src" -mindepth 1 -maxdepth 1 ! -name .lock 2>/dev/null)" ]; then
		not_ok "cli: a patch that does not apply leaves no tree" \
			"$(ls -A "$cache/src")"
	fi
	rm -rf "$copy" "$cache"
}

# The kernel of PROFILE and the tests, built before the first check that
# boots it, or found in the cache. A cold build takes 11 (default) and 14
# (debug) minutes on the slower host: within a check's own bound, sized for
# its run, it was killed and, as a new cache entry, removed, so that every
# later check began it again.
check_build()
{
	local profile=$1 log="$SCRATCH/build-$1.log" start=$SECONDS rc how

	run_bounded 3600 ./run.sh --profile "$profile" --build-only >"$log" 2>&1
	rc=$?
	how="built in $((SECONDS - start)) s"
	grep -q 'kernel cached' "$log" && how="cached"
	if [ "$rc" = 0 ]; then
		ok "build: the $profile kernel and the tests ($how)"
	else
		not_ok "build: the $profile kernel and the tests" "exit $rc" "$(tail -n 5 "$log")"
	fi
}

check_cli()
{
	local frag="$SCRATCH/broken.config"

	printf 'CONFIG_HOSTFS=y\nthis is not kconfig\n' >"$frag"
	expect_exit "cli: unknown option" 2 "unknown option '--bogus'" ./run.sh --bogus
	expect_exit "cli: option without value" 2 "--mem needs a value" ./run.sh --mem
	expect_exit "cli: bad --mem" 2 "--mem 12M: UML needs at least 13M" ./run.sh --mem 12M
	expect_exit "cli: debug profile needs memory" 2 "needs --mem 96M" ./run.sh --profile debug --mem 64M
	expect_exit "cli: wrong --kernel-src" 2 "no such directory" ./run.sh --kernel-src /nonexistent/linux
	expect_exit "cli: --kernel-src not a kernel tree" 2 "not a kernel tree" ./run.sh --kernel-src "$SCRATCH"
	expect_exit "cli: --kernel not executable" 2 "not an executable" ./run.sh --kernel /etc/passwd
	expect_exit "cli: --parse missing log" 2 "not readable" ./run.sh --parse /nonexistent.log
	expect_exit "cli: bad --vm" 2 "vm kvm: use uml \\(the default\\) or qemu" ./run.sh --vm kvm
	expect_exit "cli: --vm qemu --kernel missing" 2 "not a file \\(an x86_64 bzImage" \
		./run.sh --vm qemu --kernel /nonexistent/bzImage
	expect_exit "cli: broken config fragment" 2 "broken.config:2: not a Kconfig line" \
		run_bounded 600 ./run.sh --config "$frag" --build-only
	printf 'CONFIG_HOSTFS=y\nCONFIG_TOOSMALL_NO_SUCH_OPTION=y\n' >"$frag"
	expect_exit "cli: dropped config option named" 2 "dropped CONFIG_TOOSMALL_NO_SUCH_OPTION=y" \
		run_bounded 600 ./run.sh --config "$frag" --build-only
	expect_exit "cli: unwritable cache" 2 "not writable" \
		env TOOSMALL_CACHE=/proc/toosmall ./run.sh --build-only
	# What follows boots the default kernel.
	check_build default
	expect_exit "cli: no test matches filter" 2 "no test matches" \
		run_bounded 900 ./run.sh --filter 'no-such-test*'
	check_cli_bad_patch
	check_cli_baseline_git
	check_cli_user_tree_remake
	# As root, UML runs as nobody from TMPDIR: a private one is bad input,
	# said before the first boot, with no output dir left behind.
	if [ "$(id -u)" = 0 ]; then
		mkdir -m 0700 "$SCRATCH/private"
		expect_exit "cli: TMPDIR the UML user cannot enter" 2 "cannot enter .*set TMPDIR" \
			env TMPDIR="$SCRATCH/private" timeout --foreground -k 10 900 \
			./run.sh --filter 'failnth_fd*' --output "$SCRATCH/private-out"
		if [ -e "$SCRATCH/private-out" ] || [ -n "$(ls -A "$SCRATCH/private")" ]; then
			not_ok "cli: private TMPDIR leaves nothing behind" "left:" \
				"$(ls -d "$SCRATCH/private-out" "$SCRATCH/private"/* 2>&1)"
		fi
		rmdir "$SCRATCH/private"
	fi
}

# A user's tree (--kernel-src) is made again only when a file in it or the
# config changed since the last good make began (a fragment's comment is
# not the config: fragment_lines()); a no-op make of a real
# tree walks all of it (about 7 s). On a stand-in tree whose make writes a
# "linux" and counts its runs (the selftests come from the default tree).
check_cli_user_tree_remake()
{
	local t=$SCRATCH/usertree src frag=$SCRATCH/remake.config made got=
	local frag2=$SCRATCH/remake-comment.config

	if ! src=$(ksrc); then
		skip "cli: a user tree is made again only when it changed" "no default tree in the cache"
		return
	fi
	mkdir -p "$t/arch/um" "$t/scripts/kconfig" "$t/mm"
	ln -s "$src/tools" "$t/tools"
	# merge_config.sh -m -O DIR FRAGMENT...: the fragments' values but =n
	# are the config.
	cat >"$t/scripts/kconfig/merge_config.sh" <<-'EOF'
		#!/bin/sh
		shift 3
		grep -hv '=n$' "$@" >.config
	EOF
	chmod +x "$t/scripts/kconfig/merge_config.sh"
	cat >"$t/Makefile" <<-'EOF'
		.RECIPEPREFIX = >
		olddefconfig:
		>@true
		linux:
		>@printf '#!/bin/sh\n' >$(O)/linux && chmod +x $(O)/linux && echo made >>$(O)/made
	EOF
	touch "$t/arch/um/Kconfig" "$t/mm/page_alloc.c"
	printf 'CONFIG_HOSTFS=y\n' >"$frag"
	remake_run()
	{
		run_bounded 600 ./run.sh --cache "$SCRATCH/ucache" --kernel-src "$t" \
			--build-only "$@" >"$SCRATCH/remake.log" 2>&1 || return
		made=$(cat "$SCRATCH"/ucache/build/*/made 2>/dev/null | wc -l)
		got="$got $made"
	}
	remake_run			# first build: make
	remake_run			# nothing changed: no make
	sleep 0.01
	touch "$t/mm/page_alloc.c"
	remake_run			# a file saved: make
	remake_run			# nothing changed again
	remake_run --config "$frag"	# another config: make
	printf '# HOSTFS, and a blank line\n\nCONFIG_HOSTFS=y\n' >"$frag2"
	remake_run --config "$frag2"	# the same, but for a comment: no make
	if [ "$got" = " 1 1 2 2 3 3" ]; then
		ok "cli: a user tree is made again only when a file in it or the config changed (makes after each of 6 runs:$got)"
	else
		not_ok "cli: a user tree is made again only when a file in it or the config changed" \
			"makes after each of 6 runs:$got (want 1 1 2 2 3 3)" "$(tail -n 5 "$SCRATCH/remake.log")"
	fi
	rm -rf "$SCRATCH/ucache" "$t"
}

# --baseline REV: the revision is exported from the user's repository into
# the cache (git archive), and the repository is only read: its index, refs
# and work tree are the same after. On a stand-in tree, whose build then
# fails (exit 3, named), with a cache of its own.
check_cli_baseline_git()
{
	local t=$SCRATCH/gittree before after rc err exp

	mkdir -p "$t/arch/um" "$t/scripts/kconfig" "$t/tools/testing/selftests"
	printf 'all:\n\tfalse\n' >"$t/Makefile"
	printf '#!/bin/sh\nexit 1\n' >"$t/scripts/kconfig/merge_config.sh"
	chmod +x "$t/scripts/kconfig/merge_config.sh"
	touch "$t/tools/testing/selftests/kselftest_harness.h" "$t/arch/um/Kconfig"
	echo base >"$t/marker"
	if ! { git -C "$t" init -q && git -C "$t" add -A &&
		git -C "$t" -c user.name=t -c user.email=t@t commit -qm base &&
		echo patched >"$t/marker" &&
		git -C "$t" -c user.name=t -c user.email=t@t commit -qam patched; }; then
		not_ok "cli: --baseline REV: a git tree to read"
		return
	fi
	before=$(cd "$t" && sha256sum .git/index && git for-each-ref && git status --porcelain && ls .git)
	err=$(run_bounded 600 ./run.sh --cache "$SCRATCH/bcache" --kernel-src "$t" \
		--baseline HEAD~1 --build-only 2>&1 >/dev/null)
	rc=$?
	after=$(cd "$t" && sha256sum .git/index && git for-each-ref && git status --porcelain && ls .git)
	exp=$(cat "$SCRATCH"/bcache/src/baseline-*/marker 2>/dev/null)
	if [ "$rc" = 2 ] && [ "$exp" = base ] && [ "$before" = "$after" ] &&
		printf '%s\n' "$err" | grep -q "the base kernel's build failed (exit 2): merging config"; then
		ok "cli: --baseline HEAD~1 exports the revision into the cache, leaves the repository as it was, and names the kernel whose build failed"
	else
		not_ok "cli: --baseline HEAD~1 exports the revision and leaves the repository as it was" \
			"exit $rc (want 2), exported marker '$exp' (want base)" \
			"repository unchanged: $([ "$before" = "$after" ] && echo yes || echo no)" "$err"
	fi
	expect_exit "cli: --baseline without --kernel-src" 2 "needs --kernel-src" \
		./run.sh --baseline HEAD~1
	expect_exit "cli: --baseline a revision the tree does not have" 2 \
		"neither a directory nor a revision" \
		./run.sh --cache "$SCRATCH/bcache" --kernel-src "$t" --baseline no-such-rev
	expect_exit "cli: bad --reruns" 2 "--reruns x: give a number" \
		./run.sh --kernel-src "$t" --baseline HEAD~1 --reruns x
}

# The real thing: the default suite in UML, with every result file.
check_uml_suite()
{
	local out="$SCRATCH/suite" rc f

	run_bounded 2400 ./run.sh --output "$out" >"$SCRATCH/suite.stdout" 2>"$SCRATCH/suite.stderr"
	rc=$?
	for f in console.log results.ktap junit.xml results.json; do
		[ -s "$out/$f" ] || { not_ok "uml: suite wrote $f" "exit $rc" "$(tail -n 5 "$SCRATCH/suite.stderr")"; return; }
	done
	ok "uml: suite ran and wrote console.log, results.ktap, junit.xml, results.json"
	if tail -n 1 "$SCRATCH/suite.stdout" | grep -qE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped'; then
		ok "uml: suite stdout ends with the totals line"
	else
		not_ok "uml: suite stdout ends with the totals line" "$(tail -n 3 "$SCRATCH/suite.stdout")"
	fi
	if grep -q '^KTAP version 1' "$SCRATCH/suite.stdout"; then
		ok "uml: suite printed KTAP"
	else
		not_ok "uml: suite printed KTAP"
	fi
	check_suite_fixes "$out"
	check_program_deadline "$out"
	if python3 runner/test_toosmall.py --check-run "$out" "$TOPDIR/known-issues" \
		>"$SCRATCH/verdicts" 2>&1 && [ "$rc" = 0 ]; then
		ok "uml: every verdict on the default kernel is a pass, a skip with a reason, or a written-up finding"
	else
		not_ok "uml: every verdict on the default kernel is a pass, a skip with a reason, or a written-up finding" \
			"run.sh exit $rc" "$(cat "$SCRATCH/verdicts")"
	fi
}

# kernel-patches/ in the suite's run: the reproducers of F2 (fork, clone3)
# and F3 (execve), which panicked the unpatched kernel, ran every point to
# the end; and the kernel learnt the host's XSAVE size (0001), which must be
# what the host tells us.
check_suite_fixes()
{
	local out=$1 host guest bad

	bad=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
want = ["failnth_task.task.%s.%s" % (s, m) for s in ("fork", "clone3_pidfd", "execve")
	for m in ("both", "slab", "page")]
tests = {t["name"]: t for t in r["tests"]}
for name in want:
	t = tests.get(name)
	pts = sum(m.get("points", 0) for m in (t or {}).get("metrics", {}).get("failnth", {}).values())
	if not t or t["status"] != "pass" or "xfail" in t or not pts:
		print("%s: %s, %d points (%s)" % (name, t["status"] if t else "missing", pts,
			(t or {}).get("reason", "")))' "$out/results.json" 2>&1)
	if [ -z "$bad" ]; then
		ok "uml: fork, clone3 and execve swept to the end on the default kernel (F2, F3 fixed by kernel-patches/)"
	else
		not_ok "uml: fork, clone3 and execve swept to the end on the default kernel (F2, F3 fixed by kernel-patches/)" "$bad"
	fi
	host=$(python3 runner/xsave.py host)
	guest=$(sed -n 's/.*Host XSAVE area: \([0-9]*\) bytes.*/\1/p' "$out/console.log" | head -n 1)
	if [ -n "$guest" ] && [ "$guest" = "$host" ]; then
		ok "uml: the default kernel sized its FP buffers by the host's XSAVE area ($host bytes)"
	elif [ "$host" = none ] && [ -z "$guest" ]; then
		# No XSAVE regset (an old CPU or host kernel): UML keeps to
		# FXSAVE's fixed 512 bytes, and its boot log says no size.
		ok "uml: no XSAVE regset on this host: the default kernel keeps to FXSAVE"
	else
		not_ok "uml: the default kernel sized its FP buffers by the host's XSAVE area" \
			"host says ${host:-nothing}, the guest's boot log ${guest:-nothing}"
	fi
}

# The selftests' settings is kselftest's runner.sh's deadline for a whole
# program (make kselftest, run_kselftest.sh): each program's tests, one
# after another as runner.sh runs them, took at most half of it in the
# suite's run. Half: room for a slower machine or kernel.
check_program_deadline()
{
	local out=$1 bad

	bad=$(python3 -c '
import collections, json, re, sys
limit = None
for line in open(sys.argv[2]):
	m = re.match(r"timeout=(\d+)$", line.strip())
	if m:
		limit = int(m.group(1))
if not limit:
	sys.exit("%s: no timeout=SECS line" % sys.argv[2])
secs = collections.Counter()
for t in json.load(open(sys.argv[1]))["tests"]:
	secs[t["name"].split(".", 1)[0]] += t["duration_s"] or 0
slow = ["%s %.0f s" % kv for kv in secs.most_common() if 2 * kv[1] > limit]
slowest = "%s %.0f s" % secs.most_common(1)[0] if secs else "no tests"
print(("over half of timeout=%d: %s" % (limit, ", ".join(slow))) if slow
      else "ok: the slowest, %s, within half of timeout=%d" % (slowest, limit))' \
		"$out/results.json" tools/testing/selftests/mm/oom/settings 2>&1)
	if [ "${bad#ok: }" != "$bad" ]; then
		ok "uml: every program fits kselftest's deadline in settings (${bad#ok: })"
	else
		not_ok "uml: every program fits kselftest's deadline in settings" "$bad"
	fi
}

# kernel-patches/ as a linux-um series: every patch applies to the pristine
# tree (git am), the cover letter is there, and each patch is checkpatch
# --strict clean.
check_kernel_patches()
{
	local series="$SCRATCH/um-series" cp p out n=0 unclean=()

	if ! out=$(run_bounded 600 upstream/mkumseries.sh --output "$series" 2>&1); then
		not_ok "kernel: kernel-patches/ apply to pristine linux-source-6.12 as a linux-um series" "$out"
		return
	fi
	n=$(find "$series" -name '0*.patch' ! -name '0000-*' | wc -l)
	if [ -f "$series/0000-cover-letter.patch" ] &&
		[ "$n" = "$(find kernel-patches -name '*.patch' | wc -l)" ]; then
		ok "kernel: kernel-patches/ apply to pristine linux-source-6.12 as a linux-um series ($n patches and a cover letter)"
	else
		not_ok "kernel: kernel-patches/ apply to pristine linux-source-6.12 as a linux-um series" "$(ls "$series")"
	fi
	if ! cp="$(ksrc)/scripts/checkpatch.pl"; then
		skip "kernel: the series is checkpatch --strict clean" "no unpacked kernel tree in the cache (run ./run.sh --build-only)"
		return
	fi
	for p in "$series"/0*.patch; do
		[ "${p##*/}" != 0000-cover-letter.patch ] || continue
		# No upstream git here to look Fixes: ids up in: they were
		# checked by hand (README), the rest must be clean.
		out=$(cd "$SCRATCH" && perl "$cp" --no-tree --strict --ignore GIT_COMMIT_ID,UNKNOWN_COMMIT_ID "$p" 2>&1)
		printf '%s\n' "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks' ||
			unclean+=("${p##*/}: $(printf '%s\n' "$out" | grep -E '^(ERROR|WARNING|CHECK)' | head -n 3 | tr '\n' ' ')")
	done
	if [ "${#unclean[@]}" = 0 ]; then
		ok "kernel: the series is checkpatch --strict clean"
	else
		not_ok "kernel: the series is checkpatch --strict clean" "${unclean[@]}"
	fi
}

# The fail-nth checks themselves (issue 3): under --mutate each sweep tells
# its checks the opposite of what the call returned, at every failing point
# and in every mode, and they must notice (failnth.h, failnth_mutate()). A
# guest that ignored --mutate would pass too, so every passing test must
# also have printed its "mutate" lines.
#
# The fail-nth tests check_uml_mutate runs in make check, 289 of them:
# single calls in the test's thread and in a child (failnth_mm and
# failnth_sig have both), execve, and a whole command (cpio_create); group
# mutate-full (make check-long) runs every failnth program, 1,834 tests,
# 9 minutes on the slower of our 2-core machines.
MUTATE_FILTERS=('failnth_fd*' 'failnth_ipc_*' 'failnth_sig*' 'failnth_mm*'
	'failnth_task.task.execve.*' 'failnth_work.work.cpio_create.*')

# check_uml_mutate [full]: --mutate on MUTATE_FILTERS, or every program.
check_uml_mutate()
{
	local out="$SCRATCH/mutate" rc got bound=900

	if [ "${1:-}" = full ]; then
		filter_args 'failnth*'
		bound=1800
	else
		filter_args "${MUTATE_FILTERS[@]}"
	fi
	run_bounded "$bound" ./run.sh --mutate "${FILTER_ARGS[@]}" --output "$out" \
		>"$SCRATCH/mutate.stdout" 2>"$SCRATCH/mutate.stderr"
	rc=$?
	if got=$(python3 "$TOPDIR/runner/toosmall.py" mutate "$out" 2>&1) && [ "$rc" = 0 ]; then
		ok "uml: --mutate: every fail-nth check notices a lie ($(printf '%s\n' "$got" | tail -n 1))"
	else
		not_ok "uml: --mutate: every fail-nth check notices a lie" "run.sh exit $rc" \
			"$got" "$(tail -n 3 "$SCRATCH/mutate.stderr")"
	fi
}

# --sites end to end: the network sweeps' faults are named by their dumped
# stacks and, for __GFP_NOWARN slab allocations, which dump none, by the
# kmem tracepoints guest-init enables (tp_printk on the boot line).
check_uml_sites()
{
	local out="$SCRATCH/sites" rc got

	run_bounded 600 ./run.sh --sites --filter 'failnth_net.*.both' --output "$out" \
		>"$SCRATCH/sites.stdout" 2>"$SCRATCH/sites.stderr"
	rc=$?
	got=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1])).get("sites") or {}
print(s.get("distinct", 0), s.get("nowarn_named", 0))' "$out/results.json" 2>/dev/null)
	if [ "$rc" = 0 ] && [ "${got%% *}" -ge 10 ] 2>/dev/null && [ "${got##* }" -ge 1 ]; then
		ok "uml: --sites names the call sites, __GFP_NOWARN ones too (distinct, nowarn_named: $got)"
	else
		not_ok "uml: --sites names the call sites, __GFP_NOWARN ones too" \
			"run.sh exit $rc; distinct and nowarn_named: '${got:-none}' (want >= 10 and >= 1)" \
			"$(tail -n 3 "$SCRATCH/sites.stderr")"
	fi
}

# Isolation: a guest that tries every known way out must not write the host,
# and must still be able to write its output dir.
# escape_check NAME SECS WAYS RUN_ARGS...: run.sh RUN_ARGS --exec a guest
# script that writes host paths the guest can see (its /tmp is its own
# tmpfs: a checkout under /tmp is out of its sight, so $HOME and /var/tmp
# too), with try [PREFIX], before and after each of WAYS (shell lines) to
# get write access; none may appear, OUTPUT/guest must be writable.
escape_check()
{
	local name=$1 secs=$2 ways=$3 out="$SCRATCH/$1-iso" got f
	local targets=("$TOPDIR/.escape-canary" "$HOME/.toosmall-escape" /var/tmp/.toosmall-escape)
	local all=("${targets[@]}" /tmp/.toosmall-escape /.toosmall-escape)
	shift 3

	rm -f "${all[@]}"
	run_bounded "$secs" ./run.sh "$@" --output "$out" --exec "set -x
		try() { for t in ${targets[*]}; do echo escaped > \${1:-}\$t; done; }
		try
		mount -o remount,rw / && try
		$ways
		echo written > /run/toosmall/out/inside" >"$out.stdout" 2>&1
	got=""
	for f in "${all[@]}"; do
		[ -e "$f" ] && got="$got $f"
	done
	if [ -z "$got" ] && [ "$(cat "$out/guest/inside" 2>/dev/null)" = written ] &&
		grep -q 'mount -o remount,rw /' "$out.stdout"; then
		ok "$name: guest cannot write the host outside its output dir ($(($(grep -c . <<<"$ways") + 2)) ways), can write OUTPUT/guest"
	else
		not_ok "$name: guest cannot write the host outside its output dir" "escaped to:$got" \
			"$(tail -n 20 "$out.stdout")"
	fi
	rm -f "${all[@]}"
}

check_uml_isolation()
{
	escape_check uml 300 "mkdir -p /run/x && mount -t hostfs none /run/x -o / && try /run/x
		mount -t hostfs none /run/x -o ../../.. && echo escaped > /run/x/.toosmall-escape
		mount -t hostfs none /run/x -o /tmp && echo escaped > /run/x/.toosmall-escape"
}

# A sweep killed by a fatal signal puts the fault-injection knobs back
# (util.c's knob_set() guard), so that no later test runs with them armed.
# The kselftest harness of 6.12 runs a test's setup, body and teardown in a
# grandchild of its own: that is the one that set them, and is killed.
check_uml_knobs()
{
	local out="$SCRATCH/knobs" got
	local name how got

	# Twice: SIGTERM to the sweep's body, whose own guard restores; then
	# SIGKILL to the test's process group, as the harness's timeout does,
	# after which the harness's main process restores when it ends. Then
	# SIGTERM to a fio_test's main process. Each time nothing of the test
	# may be left: a point's child the body forked just before it died
	# once stayed, stopped, holding the scratch XFS (fork_bound()).
	# shellcheck disable=SC2016 # the script expands in the guest
	run_bounded 300 ./run.sh --output "$out" --exec '
		k="failslab/ignore-gfp-wait fail_page_alloc/ignore-gfp-wait"
		k="$k fail_page_alloc/min-order"
		knobs() { (cd /sys/kernel/debug && cat $k | tr "\n" " "); }
		kids() {
			for s in /proc/[0-9]*/stat; do
				{ read -r p _ _ pp _ <"$s"; } 2>/dev/null &&
					[ "$pp" = "$1" ] && echo "$p"
			done
		}
		# What is left of the test group @1 (and any fio).
		grp() {
			for s in /proc/[0-9]*/stat; do
				{ read -r p c st _ g _ <"$s"; } 2>/dev/null &&
					[ "$st" != Z ] &&
					{ [ "$g" = "$1" ] || [ "$c" = "(fio)" ]; } &&
					echo "$p"
			done
		}
		# What is left of test group @1 once it had 5 s to end.
		left_of() {
			for _ in $(seq 1 50); do
				[ -z "$(grp "$1")" ] && break
				sleep 0.1
			done
			grp "$1" | tr "\n" " "
		}
		# Evidence, if the test does not end: its tasks and their waits,
		# and the blocked tasks on the console.
		stuck() {
			local s p c st
			kill -0 "$1" 2>/dev/null || return 0
			for s in /proc/[0-9]*/stat; do
				{ read -r p c st _ <"$s"; } 2>/dev/null || continue
				[ "$st" != Z ] && [ "$p" -ge "$1" ] || continue
				echo "STUCK $p $c $st $(cat /proc/$p/wchan 2>/dev/null)"
			done
			echo w >/proc/sysrq-trigger
		}
		for how in TERM KILL; do
			before=$(knobs)
			./tests/failnth_work_test -r work.tar_extract.both >/dev/null 2>&1 &
			pid=$!
			for _ in $(seq 1 200); do
				[ "$(knobs)" != "$before" ] && break
				sleep 0.1
			done
			during=$(knobs)
			test=$(kids $pid)
			body=$(kids "$test")
			if [ $how = TERM ]; then
				kill -TERM $body
			else
				kill -KILL -- -$test
			fi
			timeout 60 tail --pid=$pid -f /dev/null
			stuck $pid
			left=$(left_of "$test")
			echo "KNOBS $how before=[$before] during=[$during] after=[$(knobs)] body=[$body] left=[${left% }]"
			kill -KILL $pid $left 2>/dev/null
			wait
		done
		./tests/fio_test -r xfs.randwrite_verify.memcg_above >/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 1 300); do
			pgrep -x fio >/dev/null && break
			sleep 0.1
		done
		# Stopped, fio keeps the test waiting: it cannot end by itself.
		pkill -STOP -x fio
		test=$(kids $pid)
		running=$(grp "$test" | wc -l)
		kill -TERM $pid
		timeout 60 tail --pid=$pid -f /dev/null
		stuck $pid
		left=$(left_of "$test")
		echo "ORPHANS running=$running left=[${left% }]"
		kill -KILL $left 2>/dev/null
		wait' >"$out.log" 2>&1
	for how in TERM KILL; do
		if [ $how = TERM ]; then
			name="uml: a sweep killed by SIGTERM puts the fault-injection knobs back"
		else
			name="uml: after a test killed by SIGKILL the harness puts the knobs back"
		fi
		got=$(tr -d '\r' <"$out.log" | sed -n "s/.*KNOBS $how //p")
		if [[ $got =~ ^before=\[(.+)\]\ during=\[(.+)\]\ after=\[(.+)\]\ body=\[[0-9]+\]\ left=\[\]$ ]] &&
			[ "${BASH_REMATCH[1]}" != "${BASH_REMATCH[2]}" ] &&
			[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[3]}" ]; then
			ok "$name ($got)"
		else
			not_ok "$name" \
				"${got:-no KNOBS line} (want before = after, armed during, one body, nothing left)" \
				"$(grep -a STUCK "$out.log" | head -n 20; tail -n 5 "$out.log")"
		fi
	done
	# runner.sh's timeout sends SIGTERM to the main process alone; the
	# test it runs, in a process group of its own, must end with it
	# (util.c's kill_child_groups()), and so must the fio it runs.
	name="uml: SIGTERM to a harness's main process ends the test it runs"
	got=$(tr -d '\r' <"$out.log" | sed -n "s/.*ORPHANS //p")
	if [[ $got =~ ^running=([0-9]+)\ left=\[\]$ ]] && [ "${BASH_REMATCH[1]}" -ge 3 ]; then
		ok "$name ($got)"
	else
		not_ok "$name" "${got:-no ORPHANS line} (want the test and fio running, none left)" \
			"$(grep -a STUCK "$out.log" | head -n 20; tail -n 5 "$out.log")"
	fi
}

# A second run with nothing changed must not run make at all.
check_uml_cache()
{
	local log="$SCRATCH/cache.log" kernel before after

	run_bounded 1200 ./run.sh --build-only >"$SCRATCH/cache0.log" 2>&1
	kernel=$(sed -n 's/^toosmall: .*: \(.*\/linux\)$/\1/p' "$SCRATCH/cache0.log" | tail -n 1)
	before=$(stat -c %Y "$kernel" 2>/dev/null)
	run_bounded 600 ./run.sh --build-only >"$log" 2>&1
	after=$(stat -c %Y "$kernel" 2>/dev/null)
	if grep -q 'kernel cached' "$log" && ! grep -q 'building UML kernel' "$log" &&
		[ -n "$before" ] && [ "$before" = "$after" ]; then
		ok "uml: second build with nothing changed rebuilds nothing"
	else
		not_ok "uml: second build with nothing changed rebuilds nothing" "$(cat "$log")"
	fi
}

# Ctrl-C in the middle of a run leaves no UML, no umid dir, no temp dir.
# Like a terminal, send SIGINT to run.sh's whole process group; set -m gives
# the job its own group (and keeps SIGINT from being ignored, as it is for
# background jobs of a shell without job control).
check_uml_interrupt()
{
	local pid before_tmp after_tmp new_tmp left

	before_tmp=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'toosmall.*' | sort)
	set -m
	./run.sh --output "$SCRATCH/int" --exec 'sleep 120' >"$SCRATCH/int.log" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 1 300); do
		grep -q 'TOOSMALL:BEGIN exec' "$SCRATCH/int/console.log" 2>/dev/null && break
		sleep 0.2
	done
	kill -INT -- "-$pid"
	if ! timeout 60 tail --pid="$pid" -f /dev/null; then
		kill -KILL -- "-$pid"
	fi
	wait "$pid" 2>/dev/null
	left=$(pgrep -f "umid=toosmall-$pid-" || true)
	after_tmp=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'toosmall.*' | sort)
	new_tmp=$(comm -13 <(echo "$before_tmp") <(echo "$after_tmp"))
	if [ -z "$left" ] && [ -z "$new_tmp" ] && grep -q 'interrupted' "$SCRATCH/int.log"; then
		ok "uml: Ctrl-C mid-run leaves no UML process and no temp or umid dir"
		return
	fi
	not_ok "uml: Ctrl-C mid-run leaves nothing behind" "processes: $left" \
		"temp dirs: $new_tmp" "$(tail -n 5 "$SCRATCH/int.log")"
	# Do not leave our own mess: the UML session and the temp dir we made.
	[ -z "$left" ] || pkill -KILL -f "umid=toosmall-$pid-"
	[ -z "$new_tmp" ] || rm -rf "$new_tmp"
}

# verdicts RESULTS_DIR: "name verdict [xfail]" a test, in results.json
# order; pass and skip are one verdict, "ok": whether a sweep meets a page
# allocation at all (else it skips) depends on what ran before it in the
# same boot (the per-cpu page lists, slab's partial slabs), so on the lanes.
verdicts()
{
	python3 -c 'import json, sys
for t in json.load(open(sys.argv[1] + "/results.json"))["tests"]:
	st = "ok" if t["status"] in ("pass", "skip") else t["status"]
	print(t["name"], st, "xfail" if "xfail" in t else "")' "$1" 2>&1
}

# --jobs 2 and --shard/--merge give what one UML gives: the same tests in
# the same order with the same verdicts and exit code, from two UMLs that
# really ran at once; shards that do not make one run are refused; Ctrl-C
# of a --jobs run leaves no UML and no temp dir, and a console.log.
check_uml_jobs()
{
	local f='failnth_fd.*' one="$SCRATCH/jobs1" two="$SCRATCH/jobs2" rc1 rc2 rcm pid left
	local before_tmp new_tmp pins want k p c

	run_bounded 900 ./run.sh --jobs 1 --filter "$f" --output "$one" >/dev/null 2>&1
	rc1=$?
	run_bounded 900 ./run.sh --jobs 2 --filter "$f" --output "$two" >/dev/null 2>"$SCRATCH/jobs2.err"
	rc2=$?
	# Both lanes booted, and their tests overlapped in time.
	if [ "$(verdicts "$one")" = "$(verdicts "$two")" ] && [ "$rc1" = "$rc2" ] &&
		[ "$(grep -c 'lane [12]: guest up' "$SCRATCH/jobs2.err")" = 2 ] &&
		[ "$(grep -cE '^TOOSMALL-HOST: boot [0-9]+ umid=toosmall-[0-9]+-[12]-1 ' "$two/console.log")" = 2 ]; then
		ok "uml: --jobs 2 ran two UMLs and gave --jobs 1's verdicts, order and exit code ($(verdicts "$one" | wc -l) tests, exit $rc1)"
	else
		not_ok "uml: --jobs 2 gives --jobs 1's verdicts" "exit $rc1 and $rc2" \
			"$(diff <(verdicts "$one") <(verdicts "$two") | head -n 10)" "$(tail -n 5 "$SCRATCH/jobs2.err")"
	fi

	run_bounded 900 ./run.sh --shard 1/2 --filter "$f" --output "$SCRATCH/shard1" >/dev/null 2>&1
	run_bounded 900 ./run.sh --shard 2/2 --filter "$f" --output "$SCRATCH/shard2" >/dev/null 2>&1
	./run.sh --merge "$SCRATCH/shard1" "$SCRATCH/shard2" --output "$SCRATCH/merged" >/dev/null 2>&1
	rcm=$?
	if [ "$(verdicts "$one")" = "$(verdicts "$SCRATCH/merged")" ] && [ "$rcm" = "$rc1" ] &&
		[ -s "$SCRATCH/shard1/console.log" ] && [ -s "$SCRATCH/shard2/console.log" ] &&
		! cmp -s <(verdicts "$SCRATCH/shard1") <(verdicts "$SCRATCH/shard2"); then
		ok "uml: --shard 1/2 and 2/2, then --merge, give one run's verdicts and exit code"
	else
		not_ok "uml: --shard and --merge give one run's verdicts" "merge exit $rcm, run $rc1" \
			"$(diff <(verdicts "$one") <(verdicts "$SCRATCH/merged") | head -n 10)"
	fi
	expect_exit "cli: --merge of one shard of two" 2 "shards 1/2 are not each of 1..2" \
		./run.sh --merge "$SCRATCH/shard1" --output "$SCRATCH/merged-half"
	[ ! -e "$SCRATCH/merged-half" ] ||
		not_ok "cli: a refused --merge leaves no output dir" "$(ls -A "$SCRATCH/merged-half")"
	expect_exit "cli: --merge of a shard twice" 2 "not each of" \
		./run.sh --merge "$SCRATCH/shard1" "$SCRATCH/shard1"
	expect_exit "cli: --shard out of range" 2 "give I/N with 1 <= I <= N" ./run.sh --shard 3/2
	expect_exit "cli: --jobs 0" 2 "--jobs 0: give a number" ./run.sh --jobs 0

	before_tmp=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'toosmall.*' | sort)
	set -m
	./run.sh --jobs 2 --filter 'fio.xfs.*.nopressure' --output "$SCRATCH/jobs-int" \
		>"$SCRATCH/jobs-int.log" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 1 600); do
		[ "$(cat "$SCRATCH"/jobs-int/lanes/*.log 2>/dev/null | grep -c 'TOOSMALL:BEGIN')" -ge 2 ] && break
		sleep 0.2
	done
	# Each lane's UML processes, with the CPUs they may run on.
	pins=$(for k in 1 2; do
		for p in $(pgrep -f "umid=toosmall-$pid-$k-"); do
			# A guest process may be gone by now.
			c=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)
			[ -z "$c" ] || printf '%s:%s\n' "$k" "$c"
		done
	done | sort -u | paste -sd' ')
	kill -INT -- "-$pid"
	timeout 60 tail --pid="$pid" -f /dev/null || kill -KILL -- "-$pid"
	wait "$pid" 2>/dev/null
	left=$(pgrep -f "umid=toosmall-$pid-" || true)
	new_tmp=$(comm -13 <(echo "$before_tmp") <(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'toosmall.*' | sort))
	if [ -z "$left" ] && [ -z "$new_tmp" ] && [ ! -e "$SCRATCH/jobs-int/lanes" ] &&
		[ "$(grep -c 'TOOSMALL:BEGIN' "$SCRATCH/jobs-int/console.log" 2>/dev/null)" -ge 2 ]; then
		ok "uml: Ctrl-C of --jobs 2 stops both UMLs, leaves no temp dir, and what ran in console.log"
	else
		not_ok "uml: Ctrl-C of --jobs 2 leaves nothing behind" "processes: $left" \
			"temp dirs: $new_tmp" "$(tail -n 5 "$SCRATCH/jobs-int.log")"
		[ -z "$left" ] || pkill -KILL -f "umid=toosmall-$pid-"
		[ -z "$new_tmp" ] || rm -rf "$new_tmp"
	fi
	# The lanes' UMLs are bound each to its own CPU, as their boot lines say.
	want=$(sed -n 's/^TOOSMALL-HOST: boot [0-9]* umid=toosmall-[0-9]*-\([12]\)-[0-9]* .* cpu=\([0-9]*\).*/\1:\2/p' \
		"$SCRATCH/jobs-int/console.log" | sort -u | paste -sd' ')
	if [ "$(nproc)" -lt 2 ]; then
		skip "uml: --jobs 2 binds each lane's UML to a CPU of its own" "$(nproc) CPU: nothing to bind to"
	elif [ -n "$want" ] && [ "$pins" = "$want" ] &&
		[ "$(echo "$want" | tr ' ' '\n' | cut -d: -f2 | sort -u | grep -c .)" = 2 ]; then
		ok "uml: --jobs 2 binds each lane's UML to a CPU of its own ($want)"
	else
		not_ok "uml: --jobs 2 binds each lane's UML to a CPU of its own" \
			"boot lines say '$want', the processes run on '$pins'"
	fi
}

# procs_under DIR: pids whose command line or working dir mention DIR.
procs_under()
{
	local p

	for p in /proc/[0-9]*; do
		if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF "$1" ||
			readlink "$p/cwd" 2>/dev/null | grep -qF "$1"; then
			printf '%s ' "${p#/proc/}"
		fi
	done
}

# interrupt_at NAME PATTERN CMD...: start CMD in its own process group, send
# that group SIGINT (a terminal's Ctrl-C) once its log shows PATTERN, and
# set INT_RC to its exit status; the log is $SCRATCH/NAME.log.
interrupt_at()
{
	local name=$1 pattern=$2 pid i
	shift 2

	set -m
	"$@" >"$SCRATCH/$name.log" 2>&1 &
	pid=$!
	set +m
	for ((i = 0; i < 3000; i++)); do
		grep -q "$pattern" "$SCRATCH/$name.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 2
	kill -INT -- "-$pid" 2>/dev/null
	if ! timeout 60 tail --pid="$pid" -f /dev/null; then
		kill -KILL -- "-$pid"
	fi
	wait "$pid"
	INT_RC=$?
}

# Ctrl-C while the tree unpacks and while the kernel builds: no tar or make
# left running, no half-unpacked tree, no build stamped as done. In a cache
# of its own, with a copy of nothing: the build uses the unpacked tree as a
# user tree (--kernel-src), which is never written.
check_interrupt_build()
{
	local cache="$SCRATCH/int-cache" src left

	interrupt_at unpack 'unpacking' env TOOSMALL_CACHE="$cache" ./run.sh --build-only
	left=$(procs_under "$cache")
	if [ "$INT_RC" = 130 ] && [ -z "$left" ] &&
		[ -z "$(find "$cache/src" -mindepth 1 -maxdepth 1 ! -name .lock 2>/dev/null)" ]; then
		ok "uml: Ctrl-C while unpacking leaves no tar and no half-unpacked tree"
	else
		not_ok "uml: Ctrl-C while unpacking leaves nothing behind" "exit $INT_RC" \
			"processes: $left" "$(ls -a "$cache/src" 2>&1)" "$(tail -n 3 "$SCRATCH/unpack.log")"
	fi
	# shellcheck disable=SC2086 # pids we started, by pid
	[ -z "$left" ] || kill -KILL $left

	if ! src=$(ksrc); then
		skip "uml: Ctrl-C while building" "no unpacked kernel tree yet"
		rm -rf "$cache"
		return
	fi
	interrupt_at build 'building the um kernel' \
		env TOOSMALL_CACHE="$cache" ./run.sh --kernel-src "$src" --build-only
	left=$(procs_under "$cache")
	if [ "$INT_RC" = 130 ] && [ -z "$left" ] &&
		[ -z "$(find "$cache/build" -name .toosmall-built 2>/dev/null)" ] &&
		grep -q interrupted "$SCRATCH/build.log"; then
		ok "uml: Ctrl-C while building stops make and its compilers, stamps nothing"
	else
		not_ok "uml: Ctrl-C while building leaves nothing behind" "exit $INT_RC" \
			"processes: $left" "$(tail -n 3 "$SCRATCH/build.log")"
	fi
	# shellcheck disable=SC2086 # pids we started, by pid
	[ -z "$left" ] || kill -KILL $left
	rm -rf "$cache"
}

# Debian's prebuilt UML 6.1 has no fault injection: every test that needs
# it (the fail-nth sweeps, fio's injected faults) must skip with a reason.
# The tests that need no knob run on it, but its verdicts are 6.1's, not the
# default kernel's: they are not judged here.
# The tests check_uml_prebuilt runs in make check: each kind of fault
# injection (fail-nth in the thread, in a child, a whole command; fio's
# faults), 355 tests; group prebuilt-full (make check-long) runs every
# fail-nth and fio faults test, about 1,850, 6 minutes on the slower of
# our 2-core machines.
PREBUILT_FILTERS=('failnth_fd*' 'failnth_mm*' 'failnth_sig*' 'failnth_work*'
	'failnth_fs.tmpfs.*' 'fio.xfs.*.faults')

# check_uml_prebuilt [full]
check_uml_prebuilt()
{
	local out="$SCRATCH/pre" rc why bound=600

	if [ "${1:-}" = full ]; then
		filter_args 'failnth*' 'fio.xfs.*.faults'
		bound=900
	else
		filter_args "${PREBUILT_FILTERS[@]}"
	fi

	if [ ! -x /usr/bin/linux.uml ]; then
		skip "uml: prebuilt kernel skips" "no /usr/bin/linux.uml (apt-get install user-mode-linux)"
		return
	fi
	# On a host whose XSAVE area outgrows its 2696-byte FP buffer (AMX),
	# Debian's 6.1 cannot run init: the run must say so in one line.
	if ! why=$(python3 runner/xsave.py check /usr/bin/linux.uml); then
		run_bounded 300 ./run.sh --kernel /usr/bin/linux.uml --output "$out" \
			--filter 'failnth_fd*' >"$SCRATCH/pre.log" 2>"$SCRATCH/pre.err"
		rc=$?
		if [ "$rc" = 3 ] && [ "$(wc -l <"$SCRATCH/pre.err" | tr -d ' ')" -ge 1 ] &&
			grep -q 'UML did not boot: .*XSAVE' "$SCRATCH/pre.err"; then
			ok "uml: Debian's linux.uml cannot run here ($why): exit 3, the cause in one line"
		else
			not_ok "uml: Debian's linux.uml cannot run here ($why): exit 3, the cause in one line" \
				"exit $rc" "$(tail -n 3 "$SCRATCH/pre.err")"
		fi
		return
	fi
	run_bounded "$bound" ./run.sh --kernel /usr/bin/linux.uml --output "$out" \
		"${FILTER_ARGS[@]}" >"$SCRATCH/pre.log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
bad = [t for t in r["tests"] if t["status"] != "skip" or not t["reason"]]
sys.exit(1 if bad or not r["tests"] else 0)' "$out/results.json"; then
		ok "uml: on Debian's linux.uml (no fault injection) every fault-injection test skips with a reason"
	else
		not_ok "uml: on Debian's linux.uml every test skips with a reason" "exit $rc" "$(tail -n 15 "$SCRATCH/pre.log")"
	fi
}

# The detectors, live: every provoked failure gets its verdict, splat,
# attribution and bound (runner/selfcheck.tsv), in profile $1.
check_uml_selfcheck()
{
	local profile=$1 out="$SCRATCH/selfcheck-$1" rc

	run_bounded 2400 ./run.sh --self-check --profile "$profile" --output "$out" \
		>"$SCRATCH/selfcheck-$profile.log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -qE '^# self-check: ([0-9]+) of \1 cases as expected' \
		"$SCRATCH/selfcheck-$profile.log"; then
		ok "uml: self-check ($profile profile): $(sed -n 's/^# self-check: //p' "$SCRATCH/selfcheck-$profile.log")"
	else
		not_ok "uml: self-check ($profile profile)" "exit $rc" \
			"$(grep -E '^not ok|^# self-check|error' "$SCRATCH/selfcheck-$profile.log" | tail -n 15)"
	fi
}

# The self-check's leak on an error path (detect.failnth_leaky, debug
# profile): its kmemleak report must carry the lost object's backtrace, down
# to the module function that leaked it, as the test's evidence; and the
# correct twin (detect.failnth_correct) stays clean.
check_selfcheck_leak()
{
	local res="$SCRATCH/selfcheck-debug/results.json" got

	if got=$(python3 -c '
import json, re, sys
r = json.load(open(sys.argv[1]))
tests = {t["name"]: t for t in r["tests"]}
leaky, right = tests.get("detect.failnth_leaky"), tests.get("detect.failnth_correct")
if not leaky or not right:
	sys.exit("no detect.failnth_leaky or detect.failnth_correct in the results")
if right["status"] != "pass" or right["splats"]:
	sys.exit("detect.failnth_correct: %s, splats: %s" % (right["status"],
		", ".join(s["title"] for s in right["splats"]) or "none"))
leaks = [s for s in leaky["splats"] if s["kind"] == "kmemleak"]
frame = re.compile(r"\b(value_\w+)\+0x[0-9a-f]+/0x[0-9a-f]+ \[toosmall_detect\]")
for s in leaks:
	m = [frame.search(ln) for ln in s["excerpt"]]
	m = [x.group(1) for x in m if x]
	if leaky["status"] == "fail" and m:
		print("%s, allocated in %s" % (s["title"].rstrip(":"), " < ".join(m)))
		sys.exit(0)
sys.exit("detect.failnth_leaky: %s, %d kmemleak splats, none with a toosmall_detect "
	"value_* frame in its excerpt:\n%s" % (leaky["status"], len(leaks),
	"\n".join("\n".join(s["excerpt"]) for s in leaks[:2])))' "$res" 2>&1); then
		ok "uml: a leak on a fail-nth error path is caught with its backtrace ($got), its correct twin clean"
	else
		not_ok "uml: a leak on a fail-nth error path is caught with its backtrace, its correct twin clean" \
			"$got"
	fi
}

# Leaks are the most common error-path bug: the fail-nth sweeps on the debug
# profile, where the guest scans kmemleak after every test (a leak is that
# test's splat) and KASAN and lockdep watch the error paths. Judged like the
# default suite: every verdict a pass, a skip with a reason or a written-up
# finding. WHICH (subset or full) names the check; BOUND is the run's
# deadline in seconds; the rest are --filter globs.
check_uml_debug_failnth()
{
	local which=$1 bound=$2 out="$SCRATCH/debug-$1" rc t0 secs figures good=1
	local name="uml: fail-nth $1 on the debug profile, kmemleak scanned after each test"

	shift 2
	filter_args "$@"
	t0=$SECONDS
	run_bounded "$bound" ./run.sh --profile debug --run-timeout "$bound" \
		--jobs "$(debug_jobs)" "${FILTER_ARGS[@]}" --output "$out" \
		>"$SCRATCH/debug-$which.stdout" 2>"$SCRATCH/debug-$which.stderr"
	rc=$?
	secs=$((SECONDS - t0))
	# The figures, and proof that it was the debug kernel with kmemleak on
	# to the end: kmemleak switches itself off when its pool runs dry, and
	# the scans after that would find nothing.
	figures=$(python3 -c '
import json, sys
try:
	r = json.load(open(sys.argv[1] + "/results.json"))
	log = open(sys.argv[1] + "/console.log", errors="replace").read()
except (OSError, ValueError) as e:
	sys.exit("no results: %s" % e)
if r["kernel"].get("profile") != "debug":
	sys.exit("profile %s, not debug" % r["kernel"].get("profile"))
if "kmemleak: Kernel memory leak detector initialized" not in log:
	sys.exit("kmemleak never came up")
if "kmemleak: Kernel memory leak detector disabled" in log:
	sys.exit("kmemleak switched itself off mid-run: later leaks went unseen")
tot, fn = r["totals"], r.get("failnth", {})
print("%d tests (%d pass, %d skip, %d xfail), %d points" % (len(r["tests"]),
	tot["pass"], tot["skip"], tot.get("xfail", 0), fn.get("points", 0)))' \
		"$out" 2>&1) || good=0
	if [ "$good" = 1 ] && python3 runner/test_toosmall.py --check-run "$out" \
		"$TOPDIR/known-issues" >"$SCRATCH/debug-$which.verdicts" 2>&1 &&
		[ "$rc" = 0 ]; then
		ok "$name: $figures in ${secs}s, every verdict a pass, a skip with a reason, or a written-up finding"
	else
		not_ok "$name" "run.sh exit $rc in ${secs}s: $figures" \
			"$(cat "$SCRATCH/debug-$which.verdicts" 2>/dev/null)" \
			"$(tail -n 3 "$SCRATCH/debug-$which.stderr")"
	fi
}

# debug_jobs: the UML instances of a debug run, 3 a CPU and at most 8 (of
# 256M each). A test there is mostly kmemleak's 5 s wait after it, asleep:
# the subset below took 318 s with --jobs 2, 190 s with 4 and 150 s with 6
# on 2 cores, the same verdicts each time.
debug_jobs()
{
	local n=$((3 * $(nproc)))

	echo $((n < 8 ? n : 8))
}

# The subset make check runs, in both mode (every allocator): the
# filesystem calls on tmpfs and the pipe, socket, SysV, fd and lock calls,
# 101 tests. The kmemleak scans' 5 s wait after each test is most of it.
# The network and io_uring/AIO sweeps (107 tests more) left it when a
# machine twice as slow for UML as the first one made it outrun its
# 15 minutes; make check-debug-full runs them.
DEBUG_FAILNTH=('failnth_fs.tmpfs.*.both' 'failnth_ipc_*.both' 'failnth_fd.*.both')

# qemu_cached: whether the x86_64 kernel for --vm qemu is in the cache.
# Its build takes about 17 minutes here, more than make check's cold budget
# has left: make check-qemu builds it; make check uses it when it is there.
qemu_cached()
{
	# Asked by groups upstream and qemu. A no takes 0.4 s (no cache
	# entry); a yes 15 to 30 s (run.sh checks the x86_64 config), so a yes
	# is kept.
	[ -z "${QEMU_CACHED:-}" ] || return 0
	TOOSMALL_NO_BUILD=1 run_bounded 300 ./run.sh --vm qemu --build-only >/dev/null 2>&1 &&
		QEMU_CACHED=1
}

# The upstream shape: the series applies to the default tree, passes
# checkpatch --strict, and make kselftest TARGETS=mm runs the oom tests in UML
# and in the x86_64 guest (upstream/check.sh prints one ok/not ok line per
# check). The guest's part needs the x86_64 kernel: group upstream skips it,
# saying so, when that kernel is not in the cache; group upstream-qemu (make
# check-qemu) has it built.
check_upstream()
{
	local line rc='' bad=0 vms="uml qemu"

	if [ "${1:-}" != qemu ] && ! qemu_cached; then
		vms=uml
		skip "upstream: qemu: make kselftest TARGETS=mm in an x86_64 guest" "the x86_64 kernel is not in the cache: make check-qemu builds it (about 17 min on 2 cores) and runs this"
	fi
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "upstream: ${line#ok }" ;;
		"not ok "*) not_ok "upstream: ${line#not ok }"; bad=1 ;;
		"#"*) echo "$line" ;;
		"upstream-check-rc="*) rc=${line#*=} ;;
		esac
	done < <(CHECK_VMS=$vms run_bounded 1800 upstream/check.sh 2>&1; echo "upstream-check-rc=$?")
	# A check that died without saying which step failed still fails.
	[ "$rc" = 0 ] || [ "$bad" = 1 ] ||
		not_ok "upstream: upstream/check.sh finished" \
			"exit ${rc:-none} with no failed check (stopped at its 1800 s bound?)"
}

# --vm qemu: the same selftests on an x86_64 kernel (x86_64_defconfig and
# the same fragments) under QEMU, KVM or TCG: a short run judged against
# known-issues as the UML suite is, each of the thirteen programs in it
# (failnth_task with F15-F17 expected on x86_64); and the guest's escape
# attempts, over virtiofs and 9p instead of hostfs.
QEMU_FILTERS=('failnth_mm.*.both' 'failnth_fd.*.both' 'failnth_ipc_*.both'
	'failnth_net.*.both' 'failnth_io.*.both'
	'failnth_fs.tmpfs.*.both' 'failnth_task.*' 'failnth_work.*.both'
	'fio.xfs.randwrite_verify.faults' 'fio.xfs.randwrite_verify.nopressure'
	'fio.replay.*' 'oom.seed.tmpfs.*' 'oom.seed.xfs.*'
	'memcg.group.*' 'memcg.charge.tmpfs_create.*')

check_qemu()
{
	local out="$SCRATCH/qemu" rc f

	if [ "${1:-}" != build ] && ! qemu_cached; then
		skip "qemu: a short --vm qemu run" "the x86_64 kernel is not in the cache: make check-qemu builds it (about 17 min on 2 cores) and runs this group"
		return
	fi
	filter_args "${QEMU_FILTERS[@]}"
	run_bounded 1800 ./run.sh --vm qemu --output "$out" "${FILTER_ARGS[@]}" \
		>"$SCRATCH/qemu.stdout" 2>"$SCRATCH/qemu.stderr"
	rc=$?
	for f in console.log results.ktap junit.xml results.json; do
		[ -s "$out/$f" ] || {
			not_ok "qemu: a short --vm qemu run wrote $f" "exit $rc" \
				"$(tail -n 5 "$SCRATCH/qemu.stderr")"
			return
		}
	done
	if grep -q 'TOOSMALL-HOST: kernel .* vm=qemu' "$out/console.log" &&
		grep -q 'TOOSMALL:READY release=' "$out/console.log"; then
		ok "qemu: an x86_64 kernel booted under QEMU ($(sed -n 's/.*vm=qemu accel=\([a-z]*\).*/\1/p' "$out/console.log" | head -n 1)) and wrote the four files"
	else
		not_ok "qemu: an x86_64 kernel booted under QEMU" "$(tail -n 5 "$SCRATCH/qemu.stderr")"
	fi
	if python3 runner/test_toosmall.py --check-run "$out" "$TOPDIR/known-issues" \
		>"$SCRATCH/qemu.verdicts" 2>&1 && [ "$rc" = 0 ]; then
		ok "qemu: every verdict on x86_64 is a pass, a skip with a reason, or a written-up finding"
	else
		not_ok "qemu: every verdict on x86_64 is a pass, a skip with a reason, or a written-up finding" \
			"run.sh exit $rc" "$(cat "$SCRATCH/qemu.verdicts")"
	fi

	# A hang's evidence: the monitor presses alt-sysrq-w and alt-sysrq-m,
	# and the blocked tasks and meminfo reach the console, before the kill;
	# --exec exits 3 when its command never ended.
	run_bounded 300 ./run.sh --vm qemu --run-timeout 40 --output "$SCRATCH/qhang" \
		--exec 'echo hanging; sleep 1000' >"$SCRATCH/qhang.stderr" 2>&1
	rc=$?
	if [ "$rc" = 3 ] && grep -q 'hang exec at the run deadline' "$SCRATCH/qhang/console.log" &&
		grep -q 'sysrq: Show Blocked State' "$SCRATCH/qhang/console.log" &&
		grep -q 'sysrq: Show Memory' "$SCRATCH/qhang/console.log"; then
		ok "qemu: a hang gets its evidence from the QEMU monitor (sysrq w and m on the console), then exit 3"
	else
		not_ok "qemu: a hang gets its evidence from the QEMU monitor" "exit $rc" \
			"$(grep -E 'TOOSMALL-HOST: (hang|evidence|qemu monitor)|sysrq:' "$SCRATCH/qhang/console.log" 2>/dev/null | head -n 8)"
	fi

	# Not a way: a second mount of the virtiofs tag. The guest kernel
	# hands it the superblock of a submount the root announced (F19: it
	# showed the host's /sys), so no write through it could reach /var/tmp, and
	# the way passed with the host side writable too. The remount of / in
	# escape_check is the way that reaches virtiofsd: with the sandbox's /
	# left writable, it wrote /var/tmp/.toosmall-escape on the host.
	escape_check qemu 600 "ln -s /var/tmp /run/toosmall/out/tmp && echo escaped > /run/toosmall/out/tmp/.toosmall-escape" --vm qemu
}

# What the checks need beyond run.sh's own packages (run.sh installs those):
# linters, and the headers the mm selftests build against (group upstream).
CHECK_DEPS=(shellcheck clang-format libnuma-dev libcap-dev git)

# deps_install: install what is missing when root, else name the apt line.
deps_install()
{
	local p missing=()

	for p in "${CHECK_DEPS[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed' || missing+=("$p")
	done
	[ "${#missing[@]}" -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "# missing packages: apt-get install ${missing[*]} (checks needing them will fail or skip)"
		return 0
	fi
	echo "# installing ${missing[*]}"
	run_bounded 1200 apt-get update -qq >/dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive run_bounded 1800 \
		apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
		echo "# apt-get install ${missing[*]} failed"
}

# check_tree NAME CMD...: a copy of the default tree changed by CMD (run in
# it), kept in the cache as check/NAME so that its kernel is built once; its
# path on stdout. Made in a temporary dir first: a CMD that fails leaves no
# tree.
check_tree()
{
	local name=$1 base dir=$TOOSMALL_CACHE/check/$1 tmp

	shift
	[ -d "$dir" ] && { printf '%s\n' "$dir"; return 0; }
	base=$(ksrc) || return 1
	mkdir -p "$TOOSMALL_CACHE/check" || return 1
	tmp=$(mktemp -d "$TOOSMALL_CACHE/check/.$name.XXXXXX") || return 1
	if cp -a "$base/." "$tmp/" && (cd "$tmp" && "$@") >/dev/null; then
		mv "$tmp" "$dir" && printf '%s\n' "$dir"
		return
	fi
	rm -rf "$tmp"
	return 1
}

# diff_json DIFF_DIR EXPR: a figure of a --baseline run's diff.json.
diff_json()
{
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1] + "/diff.json"))
print(eval(sys.argv[2], {"d": d}))' "$@" 2>/dev/null
}

# Pre-submit mode (--baseline), on the default tree and copies of it: it
# builds a kernel per copy (5 to 8 min each, once: the copies stay in the
# cache as check/NAME), hence a group of its own, by hand (make
# check-baseline).
BASELINE_FILTERS=(--filter 'oom.*' --filter 'failnth_mm.*' --filter 'memcg.*')
check_baseline()
{
	local base tree out rc got want

	base=$(ksrc) || { skip "baseline" "no default tree in the cache: run ./run.sh once"; return; }
	# The OOM reaper off: the seed's victims stay stuck (the 2014 stall).
	if ! tree=$(check_tree reaper-off patch -p1 -s -i \
		"$TOPDIR/fixtures/patches/0001-mm-oom_kill-disable-the-OOM-reaper.patch"); then
		not_ok "baseline: a tree with the OOM reaper off"
		return
	fi
	out=$SCRATCH/diff-reaper
	run_bounded 3600 ./run.sh --kernel-src "$tree" --baseline "$base" \
		"${BASELINE_FILTERS[@]}" --output "$out" >"$out.stdout" 2>"$out.stderr"
	rc=$?
	got=$(diff_json "$out" '" ".join(sorted(v["test"] for v in d["verdicts"] if v["kind"] == "regressed" and v["confirmed"] and all(s in ("hang", "fail") for s in v["patched"])))')
	want="oom.seed.tmpfs.oom_victim_blocked_on_lock oom.seed.xfs.oom_victim_blocked_on_lock oom.seed.xfs_global.oom_victim_blocked_on_lock"
	if [ "$rc" = 1 ] && [ "$got" = "$want" ] &&
		[ "$(diff_json "$out" 'd["regressed"]')" = 3 ]; then
		ok "baseline: OOM reaper off: the 3 seed tests regress, re-run twice on both kernels, nothing else ($(diff_json "$out" 'd["unchanged"]["tests"]') unchanged)"
	else
		not_ok "baseline: OOM reaper off: the 3 seed tests regress, nothing else" \
			"exit $rc, confirmed regressions: '$got'" "$(tail -n 25 "$out.stdout")" \
			"$(tail -n 3 "$out.stderr")"
	fi
	# A comment-only change: nothing moves but what varies on one kernel.
	if ! tree=$(check_tree comment-only sed -i \
		'1a /* toosmall: a comment-only change, for the --baseline check */' mm/page_alloc.c); then
		not_ok "baseline: a tree with a comment-only change"
		return
	fi
	out=$SCRATCH/diff-comment
	run_bounded 3600 ./run.sh --kernel-src "$tree" --baseline "$base" \
		"${BASELINE_FILTERS[@]}" --output "$out" >"$out.stdout" 2>"$out.stderr"
	rc=$?
	got=$(diff_json "$out" 'len(d["verdicts"]) + len(d["splats"]) + sum(1 for f in d["failnth"] if not f["flaky"])')
	if [ "$rc" = 0 ] && [ "$got" = 0 ]; then
		ok "baseline: a comment-only change: no change, exit 0 ($(diff_json "$out" 'd["unchanged"]["tests"]') tests)"
	else
		not_ok "baseline: a comment-only change: no change, exit 0" "exit $rc" \
			"$(tail -n 25 "$out.stdout")" "$(tail -n 3 "$out.stderr")"
	fi
	# One of the default kernel's own fixes (kernel-patches/0003, F3) as
	# the patch: the base is the default tree without it.
	if ! tree=$(check_tree without-f3-fix patch -R -p1 -s -i \
		"$TOPDIR/kernel-patches/0003-um-fail-a-user-copy-whose-page-fault-runs-out-of-mem.patch"); then
		not_ok "baseline: a tree without F3's fix"
		return
	fi
	out=$SCRATCH/diff-f3
	run_bounded 3600 ./run.sh --kernel-src "$base" --baseline "$tree" \
		--filter 'failnth_task.task.execve.*' --filter 'failnth_fd.*' \
		--output "$out" >"$out.stdout" 2>"$out.stderr"
	rc=$?
	got=$(diff_json "$out" '" ".join(sorted(v["test"] for v in d["verdicts"] if v["kind"] == "fixed" and v["confirmed"]))')
	want="failnth_task.task.execve.both failnth_task.task.execve.page failnth_task.task.execve.slab"
	if [ "$rc" = 0 ] && [ "$got" = "$want" ] &&
		[ "$(diff_json "$out" 'd["regressed"] + d["flaky"]')" = 0 ]; then
		ok "baseline: F3's fix as the patch: the 3 execve tests are fixed, nothing else moves ($(diff_json "$out" 'd["unchanged"]["tests"]') unchanged)"
	else
		not_ok "baseline: F3's fix as the patch: the execve tests are fixed" \
			"exit $rc, confirmed fixed: '$got'" "$(tail -n 25 "$out.stdout")" \
			"$(tail -n 3 "$out.stderr")"
	fi
	check_baseline_flaky "$base"
	expect_exit "baseline: a revision of a tree without git" 2 \
		"neither a directory nor a revision" ./run.sh --kernel-src "$tree" --baseline HEAD~1
	expect_exit "baseline: the patched tree as its own baseline" 2 \
		"is the patched tree itself" ./run.sh --kernel-src "$tree" --baseline "$tree"
}

# A test made flaky on purpose (fixtures/patches/0002: on each boot, a coin
# decides whether semget() and, with a coin of its own, msgget() fail): the
# 15 failnth_ipc_sysv tests are FLAKY, none a regression. A coin cannot be
# forced, so what the check accepts is bounded by chance: when neither coin
# came up heads on the first patched boot, nothing differed and there is
# nothing to confirm (1 in 4; the check tries 3 times, then skips, 1 in 64);
# a syscall whose 8 re-runs all fail too reads as a regression (1 in 256 for
# each of the two), and fails the check.
check_baseline_flaky()
{
	local base=$1 tree out rc try got bad

	if ! tree=$(check_tree flaky-sysv patch -p1 -s -i \
		"$TOPDIR/fixtures/patches/0002-ipc-fail-semget-and-msgget-on-a-coin-flip-per-boot.patch"); then
		not_ok "baseline: a tree whose semget() and msgget() fail on a coin flip"
		return
	fi
	for try in 1 2 3; do
		out=$SCRATCH/diff-flaky$try
		run_bounded 3600 ./run.sh --kernel-src "$tree" --baseline "$base" \
			--filter 'failnth_ipc_sysv.*' --reruns 8 \
			--output "$out" >"$out.stdout" 2>"$out.stderr"
		rc=$?
		if [ "$rc" != 0 ] || [ "$(diff_json "$out" 'len(d["verdicts"])')" != 0 ]; then
			break
		fi
	done
	got=$(diff_json "$out" 'sum(1 for v in d["verdicts"] if v["kind"] == "flaky" and v["test"].startswith("failnth_ipc_sysv.sysv."))')
	bad=$(diff_json "$out" 'sum(1 for v in d["verdicts"] if v["kind"] != "flaky") + d["regressed"] + d["fixed"]')
	if [ "$rc" = 0 ] && [ "$bad" = 0 ] && [ "${got:-0}" -gt 0 ] 2>/dev/null; then
		ok "baseline: a test made flaky on purpose: $got sysv tests FLAKY after 8 re-runs, none a regression, exit 0 (try $try)"
	elif [ "$rc" = 0 ] && [ "$bad" = 0 ] && [ "$got" = 0 ]; then
		skip "baseline: a test made flaky on purpose" \
			"neither coin came up heads on the first patched boot of 3 tries (1 in 64): nothing differed, nothing to confirm"
	else
		not_ok "baseline: a test made flaky on purpose is FLAKY, not a regression" \
			"exit $rc, flaky $got, other verdicts $bad" "$(tail -n 20 "$out.stdout")" \
			"$(tail -n 3 "$out.stderr")"
	fi
}

main()
{
	local groups=("$@") g subset

	deps_install
	LAST=$SECONDS
	# cli unpacks the kernel tree that lint takes checkpatch from.
	[ ${#groups[@]} -gt 0 ] || groups=(parser cli lint kernel uml upstream debug qemu)
	for g in "${groups[@]}"; do
		case "$g" in
		lint) check_lint ;;
		parser) check_parser ;;
		cli) check_cli ;;
		uml)
			check_build default
			[ -n "${CHECK_SKIP_SUITE:-}" ] || check_uml_suite
			check_uml_mutate
			check_uml_sites
			check_uml_isolation
			check_uml_knobs
			check_uml_cache
			check_uml_interrupt
			check_uml_jobs
			check_interrupt_build
			check_uml_prebuilt
			check_uml_selfcheck default
			;;
		debug)
			check_build debug
			check_uml_selfcheck debug
			check_selfcheck_leak
			subset=("${DEBUG_FAILNTH[@]}")
			[ -z "${CHECK_DEBUG_FILTERS:-}" ] ||
				read -ra subset <<<"$CHECK_DEBUG_FILTERS"
			check_uml_debug_failnth subset 900 "${subset[@]}"
			;;
		debug-full) check_uml_debug_failnth full 14400 'failnth*' ;;
		interrupt) check_interrupt_build ;;
		remake) check_cli_user_tree_remake ;;
		mutate) check_uml_mutate ;;
		mutate-full) check_uml_mutate full ;;
		prebuilt-full) check_uml_prebuilt full ;;
		sites) check_uml_sites ;;
		isolation) check_uml_isolation ;;
		knobs) check_uml_knobs ;;
		jobs) check_uml_jobs ;;
		upstream) check_upstream ;;
		upstream-qemu) check_upstream qemu ;;
		qemu) check_qemu ;;
		qemu-build) check_qemu build ;;
		kernel) check_kernel_patches ;;
		baseline) check_baseline ;;
		baseline-flaky)
			if g=$(ksrc); then
				check_baseline_flaky "$g"
			else
				skip "baseline" "no default tree in the cache: run ./run.sh once"
			fi
			;;
		*) echo "unknown group $g" >&2; exit 2 ;;
		esac
	done
	echo "1..$N"
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" = 0 ]
}

main "$@"
