#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkseries.sh: turn this repo's tools/testing/selftests/mm/oom/ into a
# git format-patch series against a kernel tree.

usage()
{
	cat <<EOF
Usage: upstream/mkseries.sh --output DIR [--kernel-src DIR] [--rev REV]

Write a cover letter and the patches, ready for git send-email, to DIR:
  -    only when the tree needs it: khugepaged.c builds (KSFT_SKIP
       undeclared in 6.12.118), upstream/patches/0-*.diff
  -    run_vmtests.sh fixes (upstream/patches/[12]-*.diff)
  -    adds tools/testing/selftests/mm/oom/: every file git ls-files lists
       there (working-tree contents), or the files of commit REV
  -    builds and runs oom/ with mm (upstream/patches/4-*.diff)
Each patch is checked to apply to the kernel tree; the tree is never
written (the series is made in a temporary repository holding only the
files it touches). The commit messages are upstream/patches/*.msg; the
cover letter lists the tests and the FINDINGS.md entries. The author is
your git identity (user.name, user.email); no Signed-off-by is added: the
submitter adds their own (git commit -s, or format-patch -s).

DIR is replaced only when it holds a series this script wrote; nothing is
left half-written on failure.

Options:
  -o, --output DIR      where the series goes (required)
  -k, --kernel-src DIR  kernel tree to make the series against; default:
                        Debian's linux-source-6.12 in the toosmall cache
                        (\$TOOSMALL_CACHE/src/linux-source-6.12-*)
  -r, --rev REV         take oom/ from commit REV instead of the work tree
  -h, --help            this text

Exit status: 0 written, 2 usage, 3 kernel tree missing or a patch does not
apply to it, 4 a required program is missing, 5 the selftests cannot be
read from this repo, 6 the output dir cannot be written.
EOF
}

set -u
set -o pipefail

readonly EXIT_USAGE=2 EXIT_TREE=3 EXIT_MISSING=4 EXIT_REPO=5 EXIT_OUTPUT=6
readonly OOM=tools/testing/selftests/mm/oom
readonly MARKER=.mkseries
TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PATCHES="$TOPDIR/upstream/patches"
CACHE=${TOOSMALL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toosmall}

OUT=
KSRC=
REV=
WORK=

die()
{
	local code=$1

	shift
	printf 'mkseries: error: %s\n' "$*" >&2
	exit "$code"
}

cleanup()
{
	[ -z "$WORK" ] || rm -rf "$WORK"
}

need_arg()
{
	[ "$2" -ge 2 ] || die "$EXIT_USAGE" "$1 needs a value: see --help"
}

parse_args()
{
	while [ $# -gt 0 ]; do
		case "$1" in
		-o | --output) need_arg "$1" $#; OUT=$2; shift ;;
		-k | --kernel-src) need_arg "$1" $#; KSRC=$2; shift ;;
		-r | --rev) need_arg "$1" $#; REV=$2; shift ;;
		-h | --help) usage; exit 0 ;;
		*) die "$EXIT_USAGE" "unknown option '$1': see --help" ;;
		esac
		shift
	done
	[ -n "$OUT" ] || die "$EXIT_USAGE" "--output DIR is required: see --help"
}

# default_ksrc: the unpacked Debian tree in the cache, as run.sh leaves it.
default_ksrc()
{
	local d

	for d in "$CACHE"/src/linux-source-6.12-*/; do
		[ -f "$d/Makefile" ] && { printf '%s\n' "${d%/}"; return 0; }
	done
	return 1
}

check_tree()
{
	local f

	if [ -z "$KSRC" ]; then
		KSRC=$(default_ksrc) ||
			die "$EXIT_TREE" "no kernel tree in $CACHE/src: run ./run.sh --build-only, or pass --kernel-src DIR"
	fi
	[ -d "$KSRC" ] || die "$EXIT_TREE" "--kernel-src $KSRC: no such directory"
	KSRC=$(cd "$KSRC" && pwd)
	for f in Makefile tools/testing/selftests/lib.mk \
		tools/testing/selftests/mm/Makefile \
		tools/testing/selftests/mm/run_vmtests.sh; do
		[ -f "$KSRC/$f" ] ||
			die "$EXIT_TREE" "$KSRC is not a kernel tree with mm selftests: no $f"
	done
	[ ! -e "$KSRC/$OOM" ] ||
		die "$EXIT_TREE" "$KSRC already has $OOM: pass a tree without it"
}

# kernel_version: "6.12.118" from the tree's Makefile.
kernel_version()
{
	awk -F' *= *' '
		$1 == "VERSION" { v = $2 }
		$1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 }
		END { printf "%s.%s.%s\n", v, p, s }' "$KSRC/Makefile"
}

# oom_files: the files of oom/, relative to it, one a line.
oom_files()
{
	if [ -n "$REV" ]; then
		git -C "$TOPDIR" ls-tree -r --name-only "$REV" -- "$OOM/" |
			sed "s|^$OOM/||"
	else
		git -C "$TOPDIR" ls-files -- "$OOM/" | sed "s|^$OOM/||"
	fi
}

# copy_oom DEST: oom/'s files into DEST.
copy_oom()
{
	local dest=$1 f n=0

	while IFS= read -r f; do
		n=$((n + 1))
		mkdir -p "$dest/$(dirname "$f")" || return "$EXIT_OUTPUT"
		if [ -n "$REV" ]; then
			git -C "$TOPDIR" show "$REV:$OOM/$f" >"$dest/$f" ||
				return "$EXIT_REPO"
		else
			[ -f "$TOPDIR/$OOM/$f" ] || {
				printf 'mkseries: error: %s is tracked but missing from the work tree: commit or restore it, or use --rev HEAD\n' "$OOM/$f" >&2
				return "$EXIT_REPO"
			}
			cp "$TOPDIR/$OOM/$f" "$dest/$f" || return "$EXIT_OUTPUT"
		fi
		# The mode git records: executable or not.
		if [ -n "$REV" ]; then
			git -C "$TOPDIR" ls-tree "$REV" -- "$OOM/$f" | grep -q '^100755' &&
				chmod +x "$dest/$f"
		fi
	done < <(oom_files)
	[ "$n" -gt 0 ] || {
		printf 'mkseries: error: git lists no file in %s%s\n' "$OOM" "${REV:+ at $REV}" >&2
		return "$EXIT_REPO"
	}
}

# list_tests DIR: "  name: first sentence of its header comment", for each
# program the oom Makefile runs.
list_tests()
{
	local dir=$1 prog src progs

	read -r -a progs < <(sed -n 's/^TEST_\(GEN_\)\{0,1\}PROGS[ \t]*[:+]\{0,1\}=//p' "$dir/Makefile" | tr '\n' ' ')
	for prog in "${progs[@]}"; do
		src=$dir/$prog
		[ -f "$src.c" ] && src=$src.c
		awk -v name="$prog" '
			/^\/\*/ { on = 1; next }
			on && /^ \*( |$)/ {
				line = substr($0, 4)
				if (line == "") { if (text != "") exit; next }
				text = text (text == "" ? "" : " ") line
				if (line ~ /\.$/) exit
				next
			}
			on { exit }
			END { printf "%s: %s\n", name, text == "" ? "(no description)" : text }
		' "$src" 2>/dev/null | fold -s -w 68 | sed '1s/^/- /; 2,$s/^/  /'
	done
}

# list_findings: the FINDINGS.md headings, or a sentence saying there are none.
list_findings()
{
	local f="$TOPDIR/FINDINGS.md"

	if [ -r "$f" ] && grep -q '^## F[0-9]*:' "$f"; then
		sed -n 's/^## \(F[0-9]*\): */- \1: /p' "$f" | fold -s -w 70 |
			sed '/^- /!s/^/  /'
	else
		printf '%s\n' "No kernel bug yet: on $(kernel_version) every injected failure ended in a success or a clean, allowed errno, with no splat." |
			fold -s -w 72 | sed 's/ *$//'
	fi
}

# fill_cover FILE: the cover letter template with its fields filled in.
fill_cover()
{
	local tests findings tested khp=

	tests=$(list_tests "$1") || return
	findings=$(list_findings)
	tested="Based on Linux $(kernel_version) ($(basename "$KSRC"))."
	needs_khugepaged_fix &&
		khp="khugepaged.c did not build (KSFT_SKIP undeclared in this tree),"
	awk -v tests="$tests" -v findings="$findings" -v tested="$tested" \
		-v khp="$khp" '
		$0 == "@KHUGEPAGED@" { if (khp != "") print khp; next }
		$0 == "@TESTS@" { print tests; next }
		$0 == "@FINDINGS@" { print findings; next }
		$0 == "@TESTED@" { print tested; next }
		{ print }' "$PATCHES/0-cover.msg"
}

# needs_khugepaged_fix: whether the tree's khugepaged.c uses KSFT_SKIP with
# no kselftest.h to define it (a 6.12.y backport did that).
needs_khugepaged_fix()
{
	local mm="$KSRC/tools/testing/selftests/mm"

	grep -q KSFT_SKIP "$mm/khugepaged.c" 2>/dev/null &&
		! grep -q 'kselftest\.h' "$mm/khugepaged.c" "$mm/vm_util.h" "$mm/thp_settings.h"
}

# git in the temporary repository, blind to the user's and the system's
# config (format.signOff, diff.noprefix, hooks would change the series).
rgit()
{
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null \
		git -C "$WORK/repo" -c core.hooksPath=/dev/null "$@"
}

# apply_step DIFF MSG: apply DIFF to the repository and commit it with MSG.
apply_step()
{
	local diff=$1 msg=$2 out

	if ! out=$(rgit apply --index --whitespace=error "$diff" 2>&1); then
		printf 'mkseries: error: %s does not apply to %s: %s\n' \
			"${diff#"$TOPDIR"/}" "$KSRC" "$(printf '%s' "$out" | head -n 3 | tr '\n' ' ')" >&2
		return "$EXIT_TREE"
	fi
	rgit commit -q -F "$msg" || return "$EXIT_OUTPUT"
}

make_series()
{
	local repo="$WORK/repo" f name email

	name=$(git config user.name 2>/dev/null) || name=
	email=$(git config user.email 2>/dev/null) || email=
	if [ -z "$name" ] || [ -z "$email" ]; then
		printf 'mkseries: note: no git user.name/user.email: the patches are from "SUBMITTER <submitter@invalid>"; set yours and run again\n' >&2
		name=SUBMITTER
		email=submitter@invalid
	fi
	export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
	export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email

	mkdir -p "$repo/tools/testing/selftests/mm" || return "$EXIT_OUTPUT"
	rgit init -q -b series || return "$EXIT_OUTPUT"
	# The base: only the files the series changes, as the tree has them.
	for f in Makefile run_vmtests.sh khugepaged.c; do
		cp -p "$KSRC/tools/testing/selftests/mm/$f" "$repo/tools/testing/selftests/mm/" ||
			return "$EXIT_OUTPUT"
	done
	rgit add -A && rgit commit -q -m "base: $(kernel_version)" ||
		return "$EXIT_OUTPUT"
	rgit tag base || return "$EXIT_OUTPUT"

	if needs_khugepaged_fix; then
		apply_step "$PATCHES/0-khugepaged-ksft-skip.diff" \
			"$PATCHES/0-khugepaged-ksft-skip.msg" || return
	fi
	apply_step "$PATCHES/1-hugetlb-skip.diff" "$PATCHES/1-hugetlb-skip.msg" || return
	apply_step "$PATCHES/2-exit-status.diff" "$PATCHES/2-exit-status.msg" || return
	copy_oom "$repo/$OOM" || return
	rgit add -A -- "$OOM" && rgit commit -q -F "$PATCHES/3-oom.msg" ||
		return "$EXIT_OUTPUT"
	apply_step "$PATCHES/4-mm-makefile.diff" "$PATCHES/4-mm-makefile.msg" || return

	fill_cover "$repo/$OOM" >"$WORK/cover" || return "$EXIT_OUTPUT"
	rgit config branch.series.description "$(cat "$WORK/cover")" ||
		return "$EXIT_OUTPUT"
	rgit format-patch -q --cover-letter --cover-from-description=subject \
		--no-signoff -o "$WORK/series" base..series ||
		return "$EXIT_OUTPUT"
	: >"$WORK/series/$MARKER"
}

# publish: move the finished series to OUT in one rename; an old series
# there (ours: it has the marker) is replaced, anything else is left alone.
publish()
{
	local parent stage old=

	parent=$(dirname "$OUT")
	if ! mkdir -p "$parent" 2>/dev/null || [ ! -w "$parent" ]; then
		die "$EXIT_OUTPUT" "cannot write $parent: pick another --output"
	fi
	if [ -e "$OUT" ] && ! { [ -d "$OUT" ] &&
		{ [ -e "$OUT/$MARKER" ] || [ -z "$(ls -A "$OUT")" ]; }; }; then
		die "$EXIT_OUTPUT" "$OUT exists and is not a series this script wrote: pick another --output"
	fi
	stage=$(mktemp -d "$parent/.mkseries.XXXXXX") ||
		die "$EXIT_OUTPUT" "cannot create a dir in $parent"
	if ! cp -r "$WORK/series/." "$stage/"; then
		rm -rf "$stage"
		die "$EXIT_OUTPUT" "cannot write the series to $parent (space?)"
	fi
	chmod 755 "$stage"
	if [ -e "$OUT" ]; then
		old="$stage.old"
		mv "$OUT" "$old" || { rm -rf "$stage"; die "$EXIT_OUTPUT" "cannot replace $OUT"; }
	fi
	if ! mv "$stage" "$OUT"; then
		[ -z "$old" ] || mv "$old" "$OUT"
		rm -rf "$stage"
		die "$EXIT_OUTPUT" "cannot move the series to $OUT"
	fi
	[ -z "$old" ] || rm -rf "$old"
}

main()
{
	local rc

	parse_args "$@"
	command -v git >/dev/null ||
		die "$EXIT_MISSING" "git not found: apt-get install git"
	git -C "$TOPDIR" rev-parse --git-dir >/dev/null 2>&1 ||
		die "$EXIT_REPO" "$TOPDIR is not a git work tree: the oom/ file list comes from git"
	if [ -n "$REV" ]; then
		git -C "$TOPDIR" rev-parse --verify -q "$REV^{commit}" >/dev/null ||
			die "$EXIT_USAGE" "--rev $REV: not a commit"
	fi
	check_tree
	trap cleanup EXIT
	trap 'exit 130' INT TERM HUP
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/mkseries.XXXXXX") ||
		die "$EXIT_OUTPUT" "cannot create a temporary dir"
	make_series
	rc=$?
	[ "$rc" = 0 ] || exit "$rc"
	publish
	ls "$OUT"/*.patch
}

main "$@"
