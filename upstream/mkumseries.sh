#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkumseries.sh: kernel-patches/ (the fixes the default kernel gets) as a
# series for linux-um, against Debian's pristine linux-source-6.12.

usage()
{
	cat <<EOF
Usage: upstream/mkumseries.sh --output DIR

Write a cover letter (upstream/um-cover.msg) and kernel-patches/*.patch,
renumbered as one series for git send-email, to DIR. Each patch is applied
with git am to the files it touches, taken from $TAR, so a patch
that does not apply to the pristine tree stops the series. DIR is replaced
only when it holds a series this script wrote; nothing is left
half-written on failure.

Exit status: 0 written, 2 usage, 3 a patch does not apply, 4 a required
program or package is missing, 6 the output dir cannot be written.
EOF
}

set -u
set -o pipefail

readonly EXIT_USAGE=2 EXIT_TREE=3 EXIT_MISSING=4 EXIT_OUTPUT=6
readonly TAR=/usr/src/linux-source-6.12.tar.xz
readonly TOP=linux-source-6.12
readonly MARKER=.mkumseries
TOPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=
WORK=

die()
{
	local code=$1

	shift
	printf 'mkumseries: error: %s\n' "$*" >&2
	exit "$code"
}

# git in the series repo, as the user of this repo (the cover letter's
# author; each patch keeps its own From and Signed-off-by).
rgit()
{
	git -C "$WORK/repo" -c user.name="${NAME:-SUBMITTER}" \
		-c user.email="${EMAIL:-submitter@invalid}" "$@"
}

# touched PATCH...: the tree paths the patches change, one a line.
touched()
{
	sed -n 's|^+++ b/||p; s|^--- a/||p' "$@" | sort -u
}

make_series()
{
	local p files=()

	mapfile -t files < <(touched "$TOPDIR"/kernel-patches/*.patch)
	mkdir -p "$WORK/repo" || return "$EXIT_OUTPUT"
	# Only the files the series touches, straight from the package.
	timeout 300 tar -C "$WORK" -xJf "$TAR" "${files[@]/#/$TOP/}" ||
		die "$EXIT_TREE" "cannot extract ${files[*]} from $TAR"
	(cd "$WORK/$TOP" && cp --parents "${files[@]}" "$WORK/repo/") ||
		return "$EXIT_OUTPUT"
	rgit init -q -b series || return "$EXIT_OUTPUT"
	rgit add -A && rgit commit -q -m "base: $TOP $(dpkg-query -W -f='${Version}' "$TOP" 2>/dev/null)" ||
		return "$EXIT_OUTPUT"
	rgit tag base || return "$EXIT_OUTPUT"
	for p in "$TOPDIR"/kernel-patches/*.patch; do
		rgit am -q --whitespace=error-all "$p" >"$WORK/am.log" 2>&1 ||
			die "$EXIT_TREE" "kernel-patches/${p##*/} does not apply to pristine $TOP: $(head -n 1 "$WORK/am.log")"
	done
	rgit config branch.series.description "$(cat "$TOPDIR/upstream/um-cover.msg")" ||
		return "$EXIT_OUTPUT"
	mkdir -p "$WORK/out" || return "$EXIT_OUTPUT"
	rgit format-patch -q --cover-letter --cover-from-description=subject \
		--thread=shallow --base=base \
		--to='linux-um@lists.infradead.org' \
		--cc='Richard Weinberger <richard@nod.at>' \
		--cc='Anton Ivanov <anton.ivanov@cambridgegreys.com>' \
		--cc='Johannes Berg <johannes@sipsolutions.net>' \
		-o "$WORK/out" base..series || return "$EXIT_OUTPUT"
	# --base=base names our local base commit: say what it really is.
	sed -i "s|^base-commit: .*|base-commit: $TOP $(dpkg-query -W -f='${Version}' "$TOP" 2>/dev/null) (Debian)|" \
		"$WORK"/out/*.patch || return "$EXIT_OUTPUT"
	touch "$WORK/out/$MARKER"
}

main()
{
	while [ $# -gt 0 ]; do
		case "$1" in
		-o | --output)
			[ $# -ge 2 ] || die "$EXIT_USAGE" "$1 needs a directory"
			OUT=$2
			shift
			;;
		-h | --help) usage; exit 0 ;;
		*) die "$EXIT_USAGE" "unknown option '$1': see --help" ;;
		esac
		shift
	done
	[ -n "$OUT" ] || die "$EXIT_USAGE" "--output DIR is required: see --help"
	[ -f "$TAR" ] || die "$EXIT_MISSING" "$TAR missing: apt-get install $TOP"
	command -v git >/dev/null || die "$EXIT_MISSING" "git missing: apt-get install git"
	[ -e "$(printf '%s\n' "$TOPDIR"/kernel-patches/*.patch | head -n 1)" ] ||
		die "$EXIT_USAGE" "no kernel-patches/*.patch in $TOPDIR"
	if [ -e "$OUT" ] && [ ! -e "$OUT/$MARKER" ]; then
		if [ ! -d "$OUT" ] || [ -n "$(ls -A "$OUT")" ]; then
			die "$EXIT_OUTPUT" "$OUT exists and is not a series this script wrote: pick another --output"
		fi
	fi
	NAME=$(git -C "$TOPDIR" config user.name 2>/dev/null)
	EMAIL=$(git -C "$TOPDIR" config user.email 2>/dev/null)
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/mkumseries.XXXXXX") ||
		die "$EXIT_OUTPUT" "cannot create a temporary dir"
	trap 'rm -rf "$WORK"' EXIT
	make_series || die "$?" "cannot write the series in $WORK"
	# Ours to replace: empty, or marked as a series this script wrote.
	rm -rf "$OUT"
	mv "$WORK/out" "$OUT" || die "$EXIT_OUTPUT" "cannot write $OUT"
	ls "$OUT"/*.patch
}

main "$@"
