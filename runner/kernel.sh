# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Stages "source", "configure" and "build": a kernel tree in, a UML binary
# (or, under --vm qemu, an x86_64 bzImage) out, cached in $CACHE/build/<key>
# where key hashes the tree's real path, the fragments' settings, the
# profile and the VM. The tree is never written: every make runs with O=.

readonly DEFAULT_SRC_PKG=linux-source-6.12
readonly DEFAULT_SRC_TAR=/usr/src/linux-source-6.12.tar.xz

# kmake_args: make's ARCH= for the kernel $VM boots.
kmake_args()
{
	if [ "${VM:-uml}" = qemu ]; then
		KMAKE=(ARCH=x86_64)
		KTARGET=bzImage
		KIMAGE=arch/x86/boot/bzImage
	else
		KMAKE=(ARCH=um SUBARCH=x86_64)
		KTARGET=linux
		KIMAGE=linux
	fi
}
kmake_args

# The project's own fixes to the default kernel (git format-patch files,
# applied in name order to the unpacked tree; a user's tree is never patched).
readonly KERNEL_PATCHES_DIR="$TOPDIR/kernel-patches"

# patches_hash: a hash of the patch set's contents, "none" if it is empty.
patches_hash()
{
	local p=("$KERNEL_PATCHES_DIR"/*.patch)

	[ -e "${p[0]}" ] || { echo none; return; }
	cat "${p[@]}" | short_hash
}

# patches_apply DIR: apply the patch set to the tree in DIR, or die naming
# the patch that does not apply.
patches_apply()
{
	local dir=$1 p

	for p in "$KERNEL_PATCHES_DIR"/*.patch; do
		[ -e "$p" ] || continue
		if ! patch -d "$dir" -p1 --batch --forward --quiet \
			--no-backup-if-mismatch <"$p" >"$dir.patch.log" 2>&1; then
			die "$EXIT_INFRA" "kernel-patches/${p##*/} does not apply to $DEFAULT_SRC_PKG: $(head -n 1 "$dir.patch.log")"
		fi
	done
	rm -f "$dir.patch.log"
}

# source_default: unpack Debian's linux-source-6.12 into the cache once,
# with the patch set applied, and set SRC (used by run.sh) to the tree's
# path. The path names the package version and the patches' hash, so a
# changed patch set gets a tree (and a build) of its own. Unpacks into a
# temporary dir and renames it, so an interrupted unpack leaves no half tree.
source_default()
{
	local ver dir tmp

	[ -f "$DEFAULT_SRC_TAR" ] ||
		die "$EXIT_MISSING" "$DEFAULT_SRC_TAR missing: apt-get install $DEFAULT_SRC_PKG (or pass --kernel-src DIR)"
	ver=$(dpkg-query -W -f='${Version}' "$DEFAULT_SRC_PKG" 2>/dev/null)
	PATCHES_HASH=$(patches_hash)
	dir="$CACHE/src/$DEFAULT_SRC_PKG-${ver:-unknown}-p$PATCHES_HASH"
	if [ ! -d "$dir" ]; then
		mkdir -p "$CACHE/src" || die "$EXIT_USAGE" "cannot create $CACHE/src: use --cache DIR"
		lock_acquire "$CACHE/src/.lock" 1800
		if [ ! -d "$dir" ]; then
			check_space "$CACHE/src" 1600
			log "unpacking $DEFAULT_SRC_TAR into $dir"
			tmp=$(mktemp -d "$CACHE/src/.unpack.XXXXXX") ||
				die "$EXIT_NOSPACE" "cannot create a temporary dir in $CACHE/src"
			register_cleanup "rm -rf $(printf %q "$tmp")"
			run_session tar -C "$tmp" -xJf "$DEFAULT_SRC_TAR" ||
				die "$EXIT_NOSPACE" "unpacking $DEFAULT_SRC_TAR failed (disk full?): free space in $CACHE"
			patches_apply "$tmp/$DEFAULT_SRC_PKG"
			mv "$tmp/$DEFAULT_SRC_PKG" "$dir" ||
				die "$EXIT_INFRA" "cannot move the unpacked tree to $dir"
			rmdir "$tmp"
		fi
	fi
	# shellcheck disable=SC2034 # read by run.sh
	SRC=$dir
}

# source_check DIR: a kernel tree we can build UML (or x86_64) from, or die.
source_check()
{
	local src=$1 arch=um

	[ "${VM:-uml}" = uml ] || arch=x86
	[ -d "$src" ] || die "$EXIT_USAGE" "--kernel-src $src: no such directory"
	if [ ! -f "$src/Makefile" ] || [ ! -d "$src/arch/$arch" ] ||
		[ ! -x "$src/scripts/kconfig/merge_config.sh" ]; then
		die "$EXIT_USAGE" "--kernel-src $src is not a kernel tree with arch/$arch: point it at a Linux source tree"
	fi
	[ -f "$src/tools/testing/selftests/kselftest_harness.h" ] ||
		die "$EXIT_USAGE" "$src has no tools/testing/selftests/kselftest_harness.h: use a full kernel tree"
	if [ -f "$src/.config" ] || [ -d "$src/include/config" ]; then
		die "$EXIT_USAGE" "$src has in-tree build output, which O= builds refuse: run 'make ARCH=um mrproper' there (we never write your tree)"
	fi
}

# fragment_lines FILE...: the lines of the fragments that set something
# (CONFIG_X=value, "# CONFIG_X is not set"), in order. The cache keys hash
# these, so that a comment or a blank line changed in a fragment rebuilds
# nothing.
fragment_lines()
{
	grep -hE '^CONFIG_|^# CONFIG_[A-Za-z0-9_]+ is not set$' "$@"
}

# fragments_check FILE...: every line is blank, a comment or CONFIG_X=value.
fragments_check()
{
	local f bad

	for f in "$@"; do
		[ -r "$f" ] || die "$EXIT_USAGE" "config fragment $f: not readable"
		bad=$(grep -nvE '^[[:space:]]*(#.*)?$|^CONFIG_[A-Za-z0-9_]+=([ynm]|-?[0-9]+|0x[0-9a-fA-F]+|"[^"]*")$|^# CONFIG_[A-Za-z0-9_]+ is not set$' "$f" | head -n 1)
		[ -z "$bad" ] ||
			die "$EXIT_USAGE" "config fragment $f:${bad%%:*}: not a Kconfig line: '${bad#*:}': fix it (CONFIG_X=y, one a line)"
	done
}

# uml_only SRC SYMBOL: SYMBOL exists only for UML: every definition of it
# is under arch/um or "depends on UML", so an x86_64 kernel leaves it out.
uml_only()
{
	local src=$1 sym=$2 where found=0

	while IFS= read -r where; do
		found=1
		case "$where" in "$src/arch/um/"* | "$src/arch/x86/um/"*) continue ;; esac
		awk -v sym="config $sym" '$0 == sym { on = 1; next }
			on && /^(config|menuconfig|endmenu|menu|if|endif|choice|endchoice|source) / { exit }
			on && /depends on .*\<UML\>/ { found = 1 }
			END { exit !found }' "$where" || return 1
	done < <(grep -rlx --include='Kconfig*' "config $sym" "$src/arch/um" "$src/arch/x86" \
		"$src/drivers" "$src/fs" "$src/mm" "$src/lib" "$src/kernel" "$src/init" 2>/dev/null)
	[ "$found" = 1 ]
}

# fragments_x86 SRC DIR FRAGMENT...: copies of the fragments in DIR without
# their UML-only lines, said once; their paths in FRAGS_X86.
fragments_x86()
{
	local src=$1 dir=$2 f line sym left=()
	shift 2

	FRAGS_X86=()
	mkdir -p "$dir" || die "$EXIT_USAGE" "cannot create $dir"
	for f in "$@"; do
		: >"$dir/${f##*/}"
		while IFS= read -r line; do
			sym=
			[[ "$line" =~ ^(# )?CONFIG_([A-Za-z0-9_]+)[=\ ] ]] && sym=${BASH_REMATCH[2]}
			if [ -n "$sym" ] && uml_only "$src" "$sym"; then
				left+=("$sym")
				continue
			fi
			printf '%s\n' "$line" >>"$dir/${f##*/}"
		done <"$f"
		FRAGS_X86+=("$dir/${f##*/}")
	done
	[ "${#left[@]}" = 0 ] ||
		log "x86_64: leaving out UML-only $(printf '%s\n' "${left[@]}" | sort -u | tr '\n' ' ')"
}

# configure SRC BUILD FRAGMENT...: merge fragments onto an empty config (or,
# for an x86_64 kernel, onto x86_64_defconfig), olddefconfig, then insist
# every requested value survived (the last a fragment asks for).
configure()
{
	local src=$1 build=$2 hash dropped line key val base=()
	local -A want=()
	shift 2

	[ "${VM:-uml}" = uml ] || base=("$src/arch/x86/configs/x86_64_defconfig")
	hash=$(fragment_lines "${base[@]}" "$@" | short_hash)
	if [ -f "$build/.config" ] && [ "$(cat "$build/.toosmall-config" 2>/dev/null)" = "$hash" ]; then
		log "config $hash unchanged"
		return 0
	fi
	log "configuring $build"
	rm -f "$build/.toosmall-config" "$build/.toosmall-built"
	if ! (cd "$build" && env "${KMAKE[@]}" "$src/scripts/kconfig/merge_config.sh" -m -O "$build" \
		"${base[@]}" "$@") >"$build/merge.log" 2>&1 ||
		! run_session make -C "$src" O="$build" "${KMAKE[@]}" olddefconfig \
			>>"$build/merge.log" 2>&1; then
		die "$EXIT_USAGE" "merging config fragments failed: see $build/merge.log"
	fi
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want[${line%%=*}]=${line#*=} ;;
		esac
	done < <(cat "$@")
	dropped=()
	for key in $(printf '%s\n' "${!want[@]}" | sort); do
		val=${want[$key]}
		if [ "$val" = n ]; then
			grep -q "^$key=" "$build/.config" && dropped+=("$key=$val")
		else
			grep -qxF "$key=$val" "$build/.config" || dropped+=("$key=$val")
		fi
	done
	if [ "${#dropped[@]}" -gt 0 ]; then
		rm -f "$build/.config"
		die "$EXIT_USAGE" "olddefconfig dropped ${dropped[*]}: an unmet dependency; fix the fragment that asks for it"
	fi
	printf '%s\n' "$hash" >"$build/.toosmall-config"
}

# src_unchanged SRC REF: find read all of SRC and nothing in it is newer
# than the file REF.
src_unchanged()
{
	local newer

	newer=$(find "$1" -newer "$2" -print -quit 2>/dev/null) && [ -z "$newer" ]
}

# no_build_stop BUILD: under TOOSMALL_NO_BUILD (tests/check.sh's cheap
# probe: is this kernel built already?), stop, saying BUILD's kernel is not.
no_build_stop()
{
	[ -z "${TOOSMALL_NO_BUILD:-}" ] ||
		die "$EXIT_INFRA" "the kernel in $1 is not built, and TOOSMALL_NO_BUILD is set: unset it to build"
}

# build SRC BUILD STAMP: make linux unless BUILD/.toosmall-built says STAMP,
# i.e. this exact tree state and config were already built. Without a
# STAMP (a user's tree), make runs unless nothing in SRC and not the
# config changed since the last good make began (BUILD/.toosmall-made):
# a no-op make walks the whole tree, about 7 s, and find about 0.5 s. A
# file saved during a make is newer than its start, so it is made next.
build()
{
	local src=$1 build=$2 stamp=$3 t0

	if [ -n "$stamp" ] && [ -f "$build/$KIMAGE" ] &&
		[ "$(cat "$build/.toosmall-built" 2>/dev/null)" = "$stamp" ]; then
		log "kernel cached: $build/$KIMAGE"
		return 0
	fi
	if [ -z "$stamp" ] && [ -f "$build/$KIMAGE" ] && [ -f "$build/.toosmall-made" ] &&
		[ ! "$build/.config" -nt "$build/.toosmall-made" ] &&
		src_unchanged "$src" "$build/.toosmall-made"; then
		log "kernel up to date: nothing in $src changed since its last make"
		return 0
	fi
	no_build_stop "$build"
	check_space "$build" 1000
	t0=$(now_s)
	log "building the ${KMAKE[0]#ARCH=} kernel in $build (log: $build/build.log)"
	rm -f "$build/.toosmall-built" "$build/.toosmall-made"
	: >"$build/.toosmall-making" || die "$EXIT_USAGE" "cannot write in $build: use --cache DIR"
	if ! run_session make -C "$src" O="$build" "${KMAKE[@]}" -j"$(nproc)" "$KTARGET" \
		>"$build/build.log" 2>&1; then
		tail -n 20 "$build/build.log" >&2
		grep -q 'No space left' "$build/build.log" &&
			die "$EXIT_NOSPACE" "kernel build ran out of disk space in $build: free space or use --cache"
		die "$EXIT_INFRA" "kernel build failed: see $build/build.log"
	fi
	log "kernel built in $(elapsed "$t0")s"
	mv -f "$build/.toosmall-making" "$build/.toosmall-made"
	[ -z "$stamp" ] || printf '%s\n' "$stamp" >"$build/.toosmall-built"
}

# build_tests SRC OUTDIR: the selftests, against SRC's kselftest framework.
build_tests()
{
	local src=$1 out=$2

	mkdir -p "$out" || die "$EXIT_USAGE" "cannot create $out"
	if ! run_session make -C "$TOPDIR/tools/testing/selftests/mm/oom" \
		KSFT_DIR="$src/tools/testing/selftests" OUTPUT="$out" \
		>"$out/build.log" 2>&1; then
		tail -n 20 "$out/build.log" >&2
		die "$EXIT_INFRA" "building the selftests failed: see $out/build.log"
	fi
	# The programs to run are the Makefile's, as lib.mk's emit_tests lists
	# them: not whatever an older build left in OUTPUT.
	if ! make -s --no-print-directory -C "$TOPDIR/tools/testing/selftests/mm/oom" \
		KSFT_DIR="$src/tools/testing/selftests" OUTPUT="$out" emit_tests \
		2>>"$out/build.log" | sed 's/^[^:]*://' >"$out/tests.list" ||
		[ ! -s "$out/tests.list" ]; then
		rm -f "$out/tests.list"
		die "$EXIT_INFRA" "cannot list the selftests (make emit_tests): see $out/build.log"
	fi
	# What lib.mk's install would put beside them (TEST_FILES): fio jobs.
	rm -rf "$out/fio"
	cp -r "$TOPDIR/tools/testing/selftests/mm/oom/fio" "$out/fio" ||
		die "$EXIT_INFRA" "cannot copy the fio jobs to $out"
}
