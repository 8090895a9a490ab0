# SPDX-License-Identifier: GPL-2.0
# toosmall: `make check` runs the project's own tests (lint, parser, CLI and
# real UML runs); `make run` runs the suite; `make bench` prints figures.

SERIES_DIR ?= series
UM_SERIES_DIR ?= um-series

.PHONY: all run check check-long check-debug-full check-baseline check-qemu lint bench bench-uml bench-vm series um-series help

all: help

help:
	@echo "make run     run the suite in UML (./run.sh)"
	@echo "make check   the project's own tests, a real UML run included"
	@echo "make check-long  check's --mutate run and its run on Debian's"
	@echo "             linux.uml on every fail-nth program (~16 min), by hand"
	@echo "make check-debug-full  every fail-nth program, every mode, on the"
	@echo "             debug profile (kmemleak, KASAN, lockdep), by hand"
	@echo "make check-baseline  --baseline against copies of the default tree"
	@echo "             (OOM reaper off, a comment, F3's fix): by hand, a build each"
	@echo "make check-qemu  build the x86_64 kernel (~17 min), run check's qemu"
	@echo "             group (make check runs it once the kernel is cached)"
	@echo "             and the upstream check in both guests"
	@echo "make lint    shellcheck, checkpatch and clang-format only"
	@echo "make bench   build, boot and sweep timings, printed as figures"
	@echo "make bench-uml  make bench without the x86_64 QEMU figures (~21 min)"
	@echo "make bench-vm  UML's and the x86_64 QEMU guest's figures, side by side"
	@echo "make series  the selftests as a kernel patch series, in SERIES_DIR"
	@echo "make um-series  kernel-patches/ as a linux-um series, in UM_SERIES_DIR"

run:
	./run.sh

check:
	tests/check.sh

# Not part of check: the few programs group uml takes stand for them there.
check-long:
	tests/check.sh mutate-full prebuilt-full

# Not part of check: the subset in its group debug stands for it there.
check-debug-full:
	tests/check.sh debug-full

# Not part of check: each of its trees is a kernel build of its own.
check-baseline:
	tests/check.sh baseline

# Builds the x86_64 kernel that check's group qemu needs (it skips without),
# runs it, and the upstream check in both guests.
check-qemu:
	tests/check.sh qemu-build upstream-qemu

lint:
	tests/check.sh lint

bench:
	tests/bench.sh

bench-uml:
	tests/bench.sh uml

bench-vm:
	tests/bench.sh vm

series:
	upstream/mkseries.sh --output $(SERIES_DIR)

um-series:
	upstream/mkumseries.sh --output $(UM_SERIES_DIR)
