# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # TESTS_DIR is run.sh's
# Stage "self-check" (run.sh --self-check): prove the detectors on a live
# kernel. The plan is runner/selfcheck.tsv instead of the selftests: each
# case provokes one failure in the guest (LKDTM, fixtures/module's test
# module, a guest process gone wrong) and must get the verdict, splat,
# attribution and time bound written there.

# selfcheck_build: build the test module and the silent-failure sweep into
# $BUILD/selfcheck, with the guest script; sets TESTS_DIR there. Runs under
# the build dir's lock (prepare_kernel).
selfcheck_build()
{
	local dir="$BUILD/selfcheck" log
	local -a kmake=(run_session make -C "$BUILD" ARCH=um SUBARCH=x86_64)

	if [ "$CONFIG_HASH" = prebuilt ] || [ ! -f "$BUILD/vmlinux.symvers" ]; then
		die "$EXIT_USAGE" "--self-check builds a module against the kernel it boots: not with --kernel"
	fi
	mkdir -p "$dir/module" || die "$EXIT_USAGE" "cannot create $dir"
	log="$dir/build.log"
	log "building the self-check's test module and programs"
	cp "$TOPDIR/fixtures/module/Kbuild" "$TOPDIR/fixtures/module/toosmall_detect.c" \
		"$dir/module/" || die "$EXIT_INFRA" "cannot copy fixtures/module"
	# The vmlinux.symvers of "make linux" resolves the module's symbols.
	if ! { "${kmake[@]}" modules_prepare &&
		"${kmake[@]}" M="$dir/module" \
			KBUILD_EXTRA_SYMBOLS="$BUILD/vmlinux.symvers" modules; } \
		>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "$EXIT_INFRA" "building fixtures/module failed: see $log"
	fi
	if ! gcc -O2 -Wall -Werror \
		-I"$SRC/tools/testing/selftests" -I"$OOM_DIR" \
		-o "$dir/silent_failure_test" \
		"$TOPDIR/fixtures/detect/silent_failure_test.c" "$OOM_DIR/util.c" \
		>>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "$EXIT_INFRA" "building fixtures/detect failed: see $log"
	fi
	cp "$dir/module/toosmall_detect.ko" "$TOPDIR/runner/selfcheck-guest.sh" \
		"$dir/" || die "$EXIT_INFRA" "cannot stage the self-check in $dir"
	TESTS_DIR=$dir
}

# selfcheck_plan FILE: the cases of this profile, as plan lines, into FILE.
selfcheck_plan()
{
	awk -F'\t' -v p="$PROFILE" '
		/^#/ || NF < 6 { next }
		$2 == "any" || $2 == p {
			printf "%s\tselfcheck-guest.sh\t%s\t%s\tdetect\n", $1, $1, $3
		}' "$TOPDIR/runner/selfcheck.tsv" |
		if [ "${#FILTERS[@]}" -gt 0 ]; then
			while IFS= read -r line; do
				for f in "${FILTERS[@]}"; do
					# shellcheck disable=SC2053 # a glob, on purpose
					if [[ "${line%%$'\t'*}" == $f ]]; then
						printf '%s\n' "$line"
						break
					fi
				done
			done
		else
			cat
		fi >"$1"
}

# selfcheck_verify: compare the verdicts in $OUT/results.json with
# selfcheck.tsv; prints ok/not ok a case and returns 1 on any mismatch.
selfcheck_verify()
{
	python3 "$TOPDIR/runner/toosmall.py" selfcheck "$OUT/results.json" \
		"$TOPDIR/runner/selfcheck.tsv" --profile "$PROFILE" \
		--margin "$((GUEST_GRACE + 2 * MCONSOLE_TIMEOUT + HALT_TIMEOUT + 5))"
}
