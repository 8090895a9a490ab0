#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plan, parse and report for the toosmall runner.

  toosmall.py plan --timeout SECS BINARY...
                                          print the run plan (one test a line)
  toosmall.py parse CONSOLE_LOG [--output DIR] [--known-issues FILE]
                                  [--known-issues-any-kernel] [--durations FILE]
                                  [--fio-needs FILE]
  toosmall.py lanes PLAN N DIR [--durations FILE] [--boot-conf FILE]
                              [--only K] [--static]
                                          deal the plan to N lanes (DIR/K/plan)
  toosmall.py merge CONSOLE... --output FILE
                                          one console of N lanes or shards
  toosmall.py bootcause CONSOLE_LOG [--host-xsave BYTES] [--kernel-fp BYTES|dynamic]
                                          one line: why UML did not boot (exit 1: cannot tell)
  toosmall.py selfcheck RESULTS_JSON CASES_TSV [--profile P] [--margin S]
  toosmall.py mutate OUTPUT_DIR           judge a ./run.sh --mutate run
  toosmall.py ksft TAP CASES_DIR PROGRAM... [--label FMT] [--known-issues FILE]
                                  [--kernel-kind KIND] [--vm VM] [--console CONSOLE_LOG]
                                          one "ok"/"not ok" line a program run
                                          by a kselftest runner (exit 1: one failed)
  toosmall.py known --known-issues FILE --status S[,S...] [--kernel-kind KIND] [--vm VM] NAME...
                                          the entries that name each NAME with S
  toosmall.py diff BASE_DIR PATCHED_DIR [--confirm-base DIR]...
                   [--confirm-patched DIR]... [--output FILE] [--candidates]
                                          what changed between two runs
                                          (runner/diff.py; exit 1: a regression)

'ksft' judges a kselftest runner's output (make run_tests, run_kselftest.sh)
as 'parse' judges a console log: each harness case is a test named as run.sh
names it, judged by the same code, and known-issues excuse it only with their
signatures. Per program (its cases listed, harness names, in
CASES_DIR/PROGRAM.cases): the harness planned and ran exactly those cases,
each one not ok is a known issue, and the runner's result line agrees. With
--console, a splat in the guest's console fails the run (no case can own it);
KIND is then the console's, else default.

'parse' needs nothing but the console log: the host writes the plan and the
kernel's identity into it (TOOSMALL-HOST: lines), the guest brackets each test
with TOOSMALL:BEGIN/END, and everything else is kernel or test output. One
results model (a dict shaped like results.json) feeds every reporter: KTAP,
the summary table, JUnit XML and JSON.

The parser is pessimistic, like kunit's: a planned test is 'crash' until its
result line is seen, and a kernel splat while it ran fails it even if it
printed 'ok'.
"""

import argparse
import errno
import fnmatch
import json
import os
import re
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

CATEGORIES = ('failnth', 'memcg', 'oom', 'xfs', 'fio', 'detect')
STATUSES = ('pass', 'fail', 'skip', 'hang', 'crash')

# printk.time=1 prefix, optional so that logs from other setups parse too.
PRINTK = r'^(?:<\d>)?(?:\[\s*\d+\.\d+\]\s*)?'

# Kernel splats, most specific first. (kind, regex on the line). The
# classes are syzkaller's (pkg/report/linux.go, linuxOopses) checked
# against what 6.12 prints: lib/, mm/, kernel/locking/, kernel/rcu/,
# kernel/sched/, kernel/hung_task.c, kernel/watchdog.c, arch/um/kernel/
# trap.c and fs/xfs/. On UML, BUG() is asm-generic's "BUG: failure at"
# and a panic, and a WARN() says WARNING: before its message.
SPLATS = [
	('kasan', re.compile(PRINTK + r'(BUG: KASAN: .*)')),
	('kfence', re.compile(PRINTK + r'(BUG: KFENCE: .*)')),
	('soft_lockup', re.compile(PRINTK + r'(?:watchdog: )?(BUG: soft lockup .*)')),
	# mm/slub.c __slab_bug(): "BUG <cache> (<print_tainted()>): <reason>",
	# no colon after BUG. Needs slub_debug for a cache's corruption checks,
	# but not for objects left in a cache that is destroyed.
	('slub', re.compile(PRINTK + r'(BUG [^\s:]+ \((?:Not tainted|Tainted: [^)]*)\): .*)')),
	('bad_page', re.compile(PRINTK + r'(BUG: Bad page .*)')),
	('hung_task', re.compile(PRINTK + r'(INFO: task \S+ blocked for more than .*)')),
	('lock_held', re.compile(PRINTK + r'(?:WARNING: )?(.*lock held when returning to user space.*)')),
	# kernel/locking/lockdep.c: its reports' headers. Two are no WARNING:
	# "[ BUG: Invalid wait context ]" (print_lock_invalid_wait_context())
	# and a lock whose key is not static (register_lock_class()); both
	# turn lockdep off for the rest of the boot.
	('lockdep', re.compile(PRINTK + r'(WARNING: (?:possible circular locking dependency|possible recursive locking|'
			       r'inconsistent lock state|suspicious RCU usage|bad unlock balance|'
			       r'possible irq lock inversion dependency|\S+-safe -> \S+-unsafe lock order|'
			       r'held lock freed|\S+ still has locks held|Nested lock was not taken|'
			       r'bad contention detected|chain_key collision).*|'
			       r'\[ BUG: Invalid wait context \].*|INFO: trying to register non-static key.*)')),
	('kmemleak', re.compile(PRINTK + r'(unreferenced object .*)')),
	# mm/kmemleak.c kmemleak_do_cleanup(): the detector gave up (its pool ran
	# out, or kmemleak_stop()); every later test would be blind to leaks.
	('kmemleak_off', re.compile(PRINTK + r'(kmemleak: Kernel memory leak detector disabled.*)')),
	# lib/ubsan.c ubsan_prologue(): "UBSAN: <reason> in <file>:<line>:<col>"
	('ubsan', re.compile(PRINTK + r'(UBSAN: .*)')),
	# kernel/rcu/tree_stall.h, tree_exp.h (after pr_fmt's "rcu: ") and
	# tasks.h; none on UML's Tiny RCU, but other kernels have them
	('rcu_stall', re.compile(PRINTK + r'(?:rcu: )?(INFO: \S+ (?:self-detected stall|detected (?:expedited )?stalls?\b).*)')),
	# fs/xfs: xfs_error_report() and the verifiers (xfs_error.c), a
	# shutdown (xfs_fsops.c xfs_do_force_shutdown(), xfs_log.c
	# xlog_force_shutdown()) and ASSERT_ALWAYS() (xfs_message.c assfail()).
	('xfs', re.compile(PRINTK + r'(XFS(?: \([^)]*\))?: (?:Internal error |Metadata (?:corruption|CRC error) detected at |'
			   r'.* \(0x[0-9a-f]+\) detected at .*Shutting down filesystem|'
			   r'Filesystem has been shut down due to log error|Assertion failed: ).*)')),
	# net/core/dev.c netdev_wait_allrefs_any(): a network device whose
	# references never drop (a leak on an error path, say in a netns that
	# unshare() could not finish) blocks its unregistration, and the
	# netns cleanup with it, forever; pr_emerg() every 10 s, no WARNING.
	('netdev_ref', re.compile(PRINTK + r'(unregister_netdevice: waiting for \S+ to become free\..*)')),
	('bug', re.compile(PRINTK + r'(kernel BUG at .*)')),
	('gpf', re.compile(PRINTK + r'(general protection fault.*)')),
	('oops', re.compile(PRINTK + r'(Oops(?:: | - ).*)')),
	('panic', re.compile(PRINTK + r'(Kernel panic - not syncing: .*)')),
	('warning', re.compile(PRINTK + r'(WARNING: .*)')),
	('bug', re.compile(PRINTK + r'(BUG: .*)')),
]

# A word every line that SPLATS matches holds: a console of millions of
# lines (F7's flood of OOM reports) is mostly lines without one, and one
# search rejects them where the 21 patterns took 21 tries (a 104 MB
# console took 24 s to parse, most of it here).
SPLAT_HINT = re.compile(r'BUG|WARNING: |INFO: |lock held|unreferenced object|kmemleak: |'
			r'UBSAN: |XFS|unregister_netdevice: |general protection|Oops|Kernel panic')

# Lines that look alarming but are information: injected faults and the OOM
# killer doing its job. Checked before SPLATS.
INFO = re.compile(PRINTK + r'(FAULT_INJECTION: forcing a failure|'
		  r'.* invoked oom-killer:|Out of memory|Memory cgroup out of memory|'
		  r'oom-kill:|oom_reaper:)')

# A global OOM report (mm/oom_kill.c dump_header(), then show_mem()): who
# asked and the order, each zone's free pages against its min watermark,
# and the victim. wmark_pages() adds the zone's watermark boost to every
# watermark, and show_mem() prints that sum as min; a zone whose free
# pages are well above the min without the boost was not out of memory
# (F77). A memcg OOM prints no zone lines: its victim is named, no more.
OOM_ASK = re.compile(PRINTK + r'(\S+) invoked oom-killer: gfp_mask=\S+, order=(\d+)')
OOM_ZONE = re.compile(PRINTK + r'(\w+) free:(\d+)kB boost:(\d+)kB min:(\d+)kB')
OOM_VICTIM = re.compile(PRINTK + r'(?:Memory cgroup out|Out) of memory: Killed process (\d+) \((.*?)\)')

MARKER = re.compile(r'TOOSMALL:(BEGIN|END|READY|DONE|ERROR|STUCK|ROOTLOST|KNOBS|TRACE_END|TRACE)\b ?(.*)')
RESULT = re.compile(r'^(not ok|ok) (\d+) (\S+)(?:\s+#\s*(SKIP|XFAIL|TODO|TIMEOUT|ERROR)\b\s*(.*))?$')
METRICS = re.compile(r'^# (\w+) ([\w.-]+): (.*)$')
KV = re.compile(r'(\w+)=(-?\d+(?:\.\d+)?)')
HIST = re.compile(r'\b(E[A-Z0-9]+):(\d+)\b')

# --sites: a frame of an injected fault's stack dump, and the functions that
# are the dump, the fault injection or the allocator itself. The first other
# reliable frame is the call site whose error path the fault exercised.
FRAME = re.compile(PRINTK + r'\s*(?:\[<[0-9a-f]+>\]\s*)?(\?\s*)?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+')
NOT_A_SITE = re.compile(
	r'^(?:_printk|show_stack|dump_stack\w*|fail_dump|should_fail\w*|__should_fail\w*|'
	r'prepare_alloc_pages|\w+_noprof|__?alloc_pages\w*|alloc_pages\w*|__?folio_alloc\w*|'
	r'vma_alloc_folio\w*|filemap_alloc_folio\w*|kmem_cache_alloc\w*|_*kmalloc\w*|'
	r'kmalloc\w*|kzalloc\w*|kcalloc\w*|krealloc\w*|__?kvmalloc\w*|kvzalloc\w*|'
	r'kmemdup\w*|kstrn?dup\w*|__?vmalloc\w*|__get_free_pages|get_zeroed_page\w*|'
	r'_*slab_\w*|new_slab|allocate_slab|alloc_slab_page|alloc_slab_obj_exts|mempool_alloc\w*|'
	r'vm_area_alloc_pages|um_set_signals|get_fp_registers)$')

# --sites: a kmem tracepoint's line (printed through tp_printk; guest-init
# enables kmalloc and kmem_cache_alloc with the filter "ptr == 0") for a
# slab allocation that returned NULL. The fault injection reports a fault
# on a __GFP_NOWARN allocation silently (lib/fault-inject.c, FAULT_NOWARN):
# this line is then the only record, and its call_site the site.
TP_NULL = re.compile(PRINTK + r'\s*(?:kmalloc|kmem_cache_alloc): call_site=([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+ '
		     r'ptr=0+ .*\bgfp_flags=(\S+)')

# --sites: the trace buffer that guest-init prints after each test, between
# TOOSMALL:TRACE and TOOSMALL:TRACE_END: each failed slab allocation's event
# (kmalloc or kmem_cache_alloc that returned NULL) and the stack its trigger
# recorded, a " => function" a line.
TRACE_EVENT = re.compile(r'^\s*\S.*?\s\[\d+\]\s+\S+\s+[\d.]+: (kmalloc|kmem_cache_alloc): (.*)$')
TRACE_FRAME = re.compile(r'^ => ([\w.]+)')
# The frames of the trace's own recording, above the allocator's.
TRACE_NOT_A_SITE = re.compile(
	r'^(?:save_stack_trace|stack_trace_save\w*|__ftrace_trace_stack\w*|__trace_stack|'
	r'stacktrace_trigger\w*|event_triggers_post_call|trace_event_\w+|__traceiter_\w+|'
	r'trace_\w+)$')
# A failure the allocator absorbs, no caller's error path: kvmalloc()'s
# kmalloc() (vmalloc() follows), kmemleak's bookkeeping (its pool takes
# over).
ABSORBED = re.compile(
	r'^(?:__kvmalloc_node\w*|kvmalloc_node\w*|create_object\w*|__alloc_object|'
	r'mem_pool_alloc)$')

MAX_EXCERPT = 40
MAX_EVIDENCE = 400


def category_of(name):
	prog = name.split('.', 1)[0]
	for cat in CATEGORIES:
		if prog.startswith(cat):
			return cat
	return 'other'


# ---------------------------------------------------------------- plan ----

def harness_tests(binary):
	"""Names runnable with `binary -r NAME`, from the harness's -l table.

	The table prints fixture, variant and test in fixed columns
	("%-20s %-25s %s") and zips a fixture's variants with its tests; the
	runnable names are their product. Names wider than a column would
	shift the table, so they are refused rather than guessed at.
	"""
	out = subprocess.run([binary, '-l'], capture_output=True, text=True,
			     timeout=30).stderr
	fixtures = []
	for line in out.splitlines():
		if line.startswith('# FIXTURE'):
			continue
		if line.startswith('----'):
			continue
		if not line.strip():
			continue
		if len(line) > 20 and line[20] != ' ' or len(line) > 46 and line[46] != ' ':
			raise SystemExit('%s -l: a name overflows its column: %r' % (binary, line))
		fix, var, test = line[:20].strip(), line[21:46].strip(), line[47:].strip()
		if fix:
			fixtures.append((fix, [], []))
		if not fixtures:
			raise SystemExit('%s -l: unexpected line %r' % (binary, line))
		if var:
			fixtures[-1][1].append(var)
		if test:
			fixtures[-1][2].append(test)
	names = []
	for fix, variants, tests in fixtures:
		for var in variants or ['']:
			for test in tests:
				names.append('.'.join(p for p in (fix, var, test) if p))
	return names


def runner_name(prog, hname):
	"""The name run.sh gives harness case @hname of program @prog: the
	program without "_test", then the case. The harness's "global"
	fixture (plain TEST()) adds nothing."""
	short = prog[:-5] if prog.endswith('_test') else prog
	tname = hname[7:] if hname.startswith('global.') else hname
	return '%s.%s' % (short, tname)


def program_of(name):
	"""The program that runs test @name: runner_name()'s inverse."""
	return name.split('.', 1)[0] + '_test'


def cmd_plan(args):
	timeout = args.timeout
	for binary in args.binaries:
		prog = os.path.basename(binary)
		for hname in harness_tests(binary):
			name = runner_name(prog, hname)
			if args.filter and not any(fnmatch.fnmatchcase(name, g) for g in args.filter):
				continue
			print('\t'.join((name, prog, hname, str(timeout), category_of(name))))


# --------------------------------------------------------------- lanes ----

# A test's expected seconds when no earlier run measured it: what the
# categories took on the default kernel (make bench's per-program figures).
ESTIMATE_S = {'failnth': 0.5, 'memcg': 5, 'oom': 8, 'xfs': 5, 'fio': 15,
	      'detect': 3, 'other': 5}


def read_together(conf):
	"""boot.conf's "GLOB[,GLOB...] together" lines: tests matching one
	line's globs depend on each other (a power cut, then its check on the
	next boot; a measurement, then the tests that use it) and run in one
	lane, in plan order. Each line is a list of its globs."""
	units = []
	if conf and os.path.exists(conf):
		with open(conf) as f:
			for line in f:
				w = line.split()
				if len(w) == 2 and w[1] == 'together' and not w[0].startswith('#'):
					units.append(w[0].split(','))
	return units


def read_durations(path):
	"""name -> seconds, from the cache's record of the last runs."""
	known = {}
	if path and os.path.exists(path):
		with open(path) as f:
			for line in f:
				w = line.split('\t')
				if len(w) == 2:
					try:
						known[w[0]] = float(w[1])
					except ValueError:
						pass
	return known


def split_lanes(plan, n, durations, together):
	"""Deal the plan's lines (name first, category fifth, mem sixth) to @n
	lanes, longest expected first onto the least loaded lane (LPT); the
	tests of one "together" glob are one unit. Within a lane the plan's
	order is kept, but tests are grouped by mem= so that a lane boots
	once per size. Deterministic: the same plan and figures give the same
	lanes, on any machine (CI shards rely on it)."""
	rows = [line.rstrip('\n').split('\t') for line in plan]
	units = {}		# unit -> its plan indices; dicts keep plan order
	for i, w in enumerate(rows):
		key = next((','.join(u) for u in together
			    if any(fnmatch.fnmatchcase(w[0], g) for g in u)), w[0])
		units.setdefault(key, []).append(i)
	cost = {key: sum(durations.get(rows[i][0], ESTIMATE_S.get(rows[i][4], 5))
			 for i in idx) for key, idx in units.items()}
	load = [0.0] * n
	lanes = [[] for _ in range(n)]
	# sorted() is stable: equal costs keep plan order.
	for key in sorted(units, key=lambda k: -cost[k]):
		k = min(range(n), key=lambda j: (load[j], j))
		load[k] += cost[key]
		lanes[k].extend(units[key])
	out = []
	for idx in lanes:
		idx.sort()
		mem = [rows[i][5] if len(rows[i]) > 5 else '-' for i in idx]
		first = {m: mem.index(m) for m in mem}
		# Plan order, but each mem= size together, in order of its first test.
		out.append([i for _, i in sorted(zip(mem, idx), key=lambda p: first[p[0]])])
	return out, load


def cmd_lanes(args):
	"""Writes DIR/K/plan (K = 1..N): each lane's lines of PLAN, with the
	plan index appended (the merged console lists tests in plan order)."""
	with open(args.plan) as f:
		plan = [l.rstrip('\n') for l in f if l.strip()]
	durations = {} if args.static else read_durations(args.durations)
	lanes, load = split_lanes(plan, args.n, durations,
				  read_together(args.boot_conf))
	for k, idx in enumerate(lanes, 1):
		if args.only and k != args.only:
			continue
		d = os.path.join(args.dir, str(k))
		os.makedirs(d, exist_ok=True)
		with open(os.path.join(d, 'plan'), 'w') as f:
			for i in idx:
				f.write('%s\t%d\n' % (plan[i], i))
		print('%d\t%d\t%.0f' % (k, len(idx), load[k - 1]))
	return 0


HEADER = re.compile(r'^TOOSMALL-HOST: (kernel|mem|plan|shard) ')
BOOT_LINE = re.compile(r'^(TOOSMALL-HOST: boot )(\d+)( umid=| ended)')


def merge_consoles(paths):
	"""One console from the lanes' or shards' consoles: one header (they
	must have run the same kernel and mem, and the shards must be all of
	one split, each once), the plan in plan order, then each console's
	boots, renumbered. What one run of the whole plan would have written,
	so that parse gives the same verdicts."""
	heads, bodies = [], []
	for p in paths:
		with open(p, errors='replace') as f:
			lines = f.read().splitlines()
		n = 0
		while n < len(lines) and HEADER.match(lines[n]):
			n += 1
		heads.append(lines[:n])
		bodies.append(lines[n:])

	def only(head, what):
		return [l for l in head if l.startswith('TOOSMALL-HOST: %s ' % what)]

	kernels = {tuple(only(h, 'kernel')) for h in heads}
	if len(kernels) != 1:
		raise SystemExit('toosmall: error: the consoles ran different kernels: '
				 'merge the shards of one run')
	mems = {tuple(only(h, 'mem')) for h in heads}
	if len(mems) != 1:
		raise SystemExit('toosmall: error: the consoles booted different mem=: '
				 'merge the shards of one run')
	shards = [only(h, 'shard') for h in heads]
	if any(shards):
		got = sorted(tuple(int(x) for x in s[0].split()[2].split('/')) if s else (0, 0)
			     for s in shards)
		total = {s[0].split()[2].split('/')[1] if s else '?' for s in shards}
		want = [(i, int(got[-1][1])) for i in range(1, int(got[-1][1]) + 1)]
		if len(total) != 1 or got != want:
			raise SystemExit('toosmall: error: shards %s are not each of 1..%s once: '
					 'merge every shard of one split' %
					 (', '.join('%d/%d' % g for g in got), got[-1][1]))
	plan = []
	for h in heads:
		for l in only(h, 'plan'):
			w = l.split()
			idx = next((int(x[4:]) for x in w if x.startswith('idx=')), len(plan))
			plan.append((idx, l))
	names = [l.split()[2] for _, l in plan]
	if len(set(names)) != len(names):
		raise SystemExit('toosmall: error: a test is in two consoles: merge each shard once')
	out = list(kernels.pop()) + list(mems.pop())
	out += [l for _, l in sorted(plan)]
	boot = 0
	for body in bodies:
		for l in body:
			m = BOOT_LINE.match(l)
			if m:
				if m.group(3) == ' umid=':
					boot += 1
				l = '%s%d%s' % (m.group(1), boot, l[m.end(2):])
			out.append(l)
	return out


def cmd_merge(args):
	try:
		lines = merge_consoles(args.consoles)
	except OSError as e:
		print('toosmall: error: %s: %s: pass console.log files' % (e.filename, e.strerror),
		      file=sys.stderr)
		return 2
	write_atomic(args.output, '\n'.join(lines) + '\n')
	return 0


# --------------------------------------------------------------- parse ----

def new_test(name, category, timeout):
	return {'name': name, 'category': category, 'status': 'crash',
		'duration_s': None, 'reason': 'never started', 'splats': [],
		'metrics': {}, 'timeout_s': timeout, '_result': None,
		'_begun': False, '_ended': False, '_log': []}


def trace_sites(t):
	"""Names the call site of each __GFP_NOWARN fault in test @t's trace
	buffer (TRACE_EVENT): the first frame of its stack outside the trace,
	the allocator and the fault injection. A fault without __GFP_NOWARN
	dumped its own stack, which names it; one the allocator absorbed
	(ABSORBED) ran no caller's error path, and is not counted."""
	sites, named = {}, 0
	for ev in t.pop('_trace'):
		if '__GFP_NOWARN' not in ev['fields']:
			continue
		if any(ABSORBED.match(f) for f in ev['frames']):
			continue
		site = next((f for f in ev['frames'] if not TRACE_NOT_A_SITE.match(f) and
			     not NOT_A_SITE.match(f)), None)
		if site:
			sites[site] = sites.get(site, 0) + 1
			named += 1
	t['_trace_sites'], t['_trace_nowarn'] = sites, named


def parse_log(lines):
	"""The results model from console lines (see module doc)."""
	run = {'kernel': {}, 'mem': None, 'tests': [], 'boot': {'splats': []},
	       'notes': []}
	boots = []		# each boot's course, for run_problems()
	by_name = {}
	cur = None		# test whose output we are reading
	open_splat = None	# splat collecting its excerpt
	fault = None		# injected fault whose call site is not found yet
	evidence = None		# test collecting host evidence
	trace = None		# test whose trace buffer is being read
	t_begin = None
	oom = None		# the global OOM report being read
	windows = []		# (boot, lastpid, test, line) in BEGIN order

	def add_splat(test, kind, title, lineno):
		splat = {'kind': kind, 'title': title.strip(), 'line': lineno,
			 'excerpt': [title.strip()]}
		if test:
			test['splats'].append(splat)
		else:
			splat['boot'] = boots[-1]['n'] if boots else None
			splat['before_tests'] = not (boots and boots[-1]['begun'])
			run['boot']['splats'].append(splat)
		return splat

	def oom_verdict(test, report, comm, pid, lineno):
		"""A global OOM kill of an order-0 request while every zone
		had at least twice its min watermark free, the min less its
		boost, and a zone was boosted: a premature kill (F77)."""
		zones = report['zones']
		premature = (not report['order'] and zones and
			     all(free >= 2 * (low - boost) for _, free, boost, low in zones) and
			     any(boost for _, _, boost, _ in zones))
		if test is not None:
			test.setdefault('_oom_victims', []).append('%s (pid %d)%s' % (
				comm, pid, ' in a premature OOM kill' if premature else ''))
		if not premature:
			return
		name, free, boost, low = next(z for z in zones if z[2])
		add_splat(test, 'oom_premature',
			  'premature OOM kill of %s (pid %d) for %s: %s has %d kB free, min watermark '
			  '%d kB of which %d kB is watermark boost' %
			  (comm, pid, report['who'], name, free, low, boost), lineno)

	def new_boot(n, lineno):
		boots.append({'n': n, 'line': lineno, 'ready': False, 'done': False,
			      'begun': False, 'open': None, 'why': None,
			      'ended': False, 'early': []})

	def end_boot(boot, lineno, why):
		boot['ended'], boot['end_line'], boot['why'] = True, lineno, why
		if cur is not None and not cur['_ended']:
			boot['open'] = cur['name']

	lineno = 0

	for lineno, raw in enumerate(lines, 1):
		line = raw.rstrip('\r\n').replace('\x00', '')

		if line.startswith('TOOSMALL-HOST: '):
			host = line[len('TOOSMALL-HOST: '):]
			words = host.split()
			if not words:
				continue
			if words[0] == 'plan' and len(words) >= 4:
				t = new_test(words[1], words[2], int(words[3]))
				run['tests'].append(t)
				by_name[t['name']] = t
			elif words[0] == 'kernel':
				run['kernel'].update(dict(w.split('=', 1) for w in words[1:] if '=' in w))
			elif words[0] == 'mem' and len(words) > 1:
				run['mem'] = words[1]
			elif words[0] == 'evidence:':
				evidence = cur if cur else None
				if evidence:
					evidence.setdefault('evidence', [])
			elif words[0] == 'evidence' and words[1:2] == ['end']:
				evidence = None
			elif words[0] == 'kill' and len(words) > 1:
				# The test asked for a power cut (TOOSMALL:KILL).
				t = by_name.get(words[1])
				if t and not t['_ended'] and 'on request' in host:
					t['_killed'] = host
			elif words[0] == 'elapsed' and len(words) > 2:
				t = by_name.get(words[1])
				if t and t['duration_s'] is None and words[2].startswith('secs='):
					t['duration_s'] = float(words[2][5:])
			elif words[0] == 'hang' and len(words) > 1:
				t = by_name.get(words[1])
				if t and not t['_ended']:
					t['_hang'] = host
				elif words[1] == 'boot':
					run['notes'].append(host)
			elif words[0] == 'console' and 'dropped' in host:
				# boot.sh's cap: kernel lines past it are gone,
				# and with them every later fault's stack.
				run['console_capped'] = host
				run['notes'].append(host)
			elif words[0] in ('boot', 'run', 'guest'):
				if words[0] == 'boot' and 'ended' in words:
					if not boots:
						new_boot(words[1], lineno)
					m = re.search(r'ended \((.*)\)', host)
					end_boot(boots[-1], lineno, m.group(1) if m else None)
					cur = None
					evidence = None
					open_splat = None
				elif words[0] == 'boot':
					new_boot(words[1] if len(words) > 1 else '?', lineno)
				else:
					run['notes'].append(host)
			if evidence is not None and words[0] == 'mconsole:':
				evidence['evidence'].append(host)
			continue

		if evidence is not None and len(evidence['evidence']) < MAX_EVIDENCE:
			evidence['evidence'].append(line)
		if not boots:
			# A console with no host lines: one boot, from here.
			new_boot('1', lineno)
		if not boots[-1]['ended'] and not boots[-1]['ready'] and \
		   len(boots[-1]['early']) < 5000:
			# What bootcause() reads if init never starts.
			boots[-1]['early'].append(line)

		m = MARKER.search(line) if 'TOOSMALL:' in line else None
		if trace is not None and not m:
			# The trace's lines are its alone; a kernel message
			# among them is read as any other.
			em = TRACE_EVENT.match(line)
			fm = TRACE_FRAME.match(line) if not em else None
			if em:
				trace['_trace'].append({'event': em.group(1), 'fields': em.group(2),
							'frames': []})
			elif fm and trace['_trace']:
				trace['_trace'][-1]['frames'].append(fm.group(1).split('.')[0])
			if em or fm or line.endswith(': <stack trace>'):
				continue
		if m:
			what, rest = m.group(1), m.group(2).split()
			if what == 'TRACE' and rest and rest[0] in by_name:
				trace = by_name[rest[0]]
				trace['_trace'] = []
				continue
			if what == 'TRACE_END':
				if trace is not None:
					trace_sites(trace)
				trace = None
				continue
			trace = None
			if what == 'BEGIN' and rest:
				cur = by_name.get(rest[0])
				if cur is None:
					cur = new_test(rest[0], category_of(rest[0]), 0)
					run['tests'].append(cur)
					by_name[rest[0]] = cur
				cur['_begun'] = True
				lp = next((w[8:] for w in rest[1:] if w.startswith('lastpid=')), '')
				if lp.isdigit() and boots:
					windows.append((boots[-1]['n'], int(lp), cur, lineno))
				if boots:
					# A test began: init ran, whether or
					# not its READY line made it out.
					boots[-1]['begun'] = boots[-1]['ready'] = True
				cur['reason'] = 'no result line: the guest died or hung'
				open_splat = None
			elif what == 'END' and rest and rest[0] in by_name:
				t = by_name[rest[0]]
				t['_ended'] = True
				rc = rest[1][3:] if len(rest) > 1 and rest[1].startswith('rc=') else '?'
				t['_rc'] = rc
				for w in rest[2:]:
					# "secs=" alone: an older guest's awk could not run
					# (its root gone), the host's time stands.
					if re.match(r'secs=[0-9.]+$', w):
						t['duration_s'] = float(w[5:])
			elif what == 'STUCK' and rest and rest[0] in by_name:
				# The guest could not kill what the test left: the
				# blocked-task dump that follows is the evidence.
				t = by_name[rest[0]]
				t['_stuck'] = ' '.join(rest[1:])
				evidence = t
				t.setdefault('evidence', [])
			elif what == 'ROOTLOST' and rest and rest[0] in by_name:
				by_name[rest[0]]['_rootlost'] = True
			elif what == 'KNOBS' and rest and rest[0] in by_name:
				# The knobs (fault injection, vm sysctls) it left
				# changed, which the guest then put back.
				by_name[rest[0]]['knobs_left'] = rest[1:]
			elif what == 'DONE' and boots:
				boots[-1]['done'] = True
			elif what == 'READY':
				if not boots or boots[-1]['ended']:
					new_boot(str(len(boots) + 1), lineno)
				boots[-1]['ready'] = True
				run['kernel'].setdefault('release', dict(w.split('=', 1) for w in rest if '=' in w).get('release'))
			continue

		if fault is not None:
			fm = FRAME.match(line)
			if fm and not fm.group(1) and not NOT_A_SITE.match(fm.group(2).split('.')[0]):
				site = fm.group(2).split('.')[0]
				sites = fault.setdefault('_sites', {})
				sites[site] = sites.get(site, 0) + 1
				fault = None
			elif not fm and not re.search(r'(Call Trace:|Stack:|CPU: |Tainted: |name \w+, interval|^(?:\[\s*\d+\.\d+\]\s*)?\s+[0-9a-f]{8}( |$))', line):
				fault = None
		tm = TP_NULL.match(line) if 'call_site=' in line else None
		if tm:
			# Only a silent fault: any other printed its own stack.
			site = tm.group(1).split('.')[0]
			if (cur is not None and not cur['_ended'] and
			    '__GFP_NOWARN' in tm.group(2) and not NOT_A_SITE.match(site)):
				sites = cur.setdefault('_tp_sites', {})
				sites[site] = sites.get(site, 0) + 1
				cur['_tp_nowarn'] = cur.get('_tp_nowarn', 0) + 1
			continue
		if 'oom-killer' in line or (oom is not None and
					    ('kB boost:' in line or 'Killed process' in line)):
			om = OOM_ASK.match(line)
			if om:
				oom = {'who': om.group(1), 'order': int(om.group(2)), 'zones': []}
			elif oom is not None:
				zm = OOM_ZONE.match(line)
				vm = OOM_VICTIM.match(line) if not zm else None
				if zm:
					oom['zones'].append((zm.group(1),) + tuple(int(v) for v in zm.groups()[1:]))
				elif vm:
					inside = cur if cur is not None and not cur['_ended'] else None
					oom_verdict(inside, oom, vm.group(2), int(vm.group(1)), lineno)
					oom = None
		if INFO.match(line):
			open_splat = None
			if cur is not None and 'FAULT_INJECTION' in line:
				fault = cur
				cur['_faults'] = cur.get('_faults', 0) + 1
			continue
		sm = None
		if SPLAT_HINT.search(line):
			for kind, rx in SPLATS:
				sm = rx.match(line)
				if sm:
					# After a test's END the splat is no longer
					# its: the guest is between tests.
					inside = cur if cur is not None and not cur['_ended'] else None
					open_splat = add_splat(inside, kind, sm.group(1), lineno)
					break
		if sm is None:
			if open_splat is not None:
				if len(open_splat['excerpt']) < MAX_EXCERPT:
					open_splat['excerpt'].append(line)
				if re.search(r'---\[ end trace', line):
					open_splat = None

		if cur is None:
			continue
		# Kernel output is capped (a flood must not hide the test's own
		# words); the test's diagnostics are kept, and so is what follows
		# a '# stall:' line: the evidence the test gathered.
		if line.startswith('# stall: '):
			cur['_tail'] = MAX_EVIDENCE
		if cur.get('_tail', 0) > 0:
			cur['_tail'] -= 1
			cur['_log'].append(line)
		elif len(cur['_log']) < 2000 or (line.startswith('#') and len(cur['_log']) < 20000):
			cur['_log'].append(line)
		rm = RESULT.match(line)
		if rm and not cur['_ended']:
			cur['_result'] = rm.groups()
			continue
		mm = METRICS.match(line)
		if mm and not cur['_ended']:
			group, key, rest = mm.groups()
			vals = {k: float(v) if '.' in v else int(v) for k, v in KV.findall(rest)}
			hist = {k: int(v) for k, v in HIST.findall(rest)}
			if vals or hist:
				entry = dict(vals)
				if hist:
					entry['errnos'] = hist
				cur['metrics'].setdefault(group, {})[key] = entry

	if boots and not boots[-1]['ended']:
		end_boot(boots[-1], lineno, None)
	started = any(t['_begun'] for t in run['tests'])
	leak_owners(windows)
	for t in run['tests']:
		judge(t)
	problem = run_problems(run, boots, started, lineno)
	if problem:
		run['tests'].append(problem)
	for b in boots:
		del b['early']
	run['boots'] = boots
	run['totals'] = {s: sum(1 for t in run['tests'] if t['status'] == s)
			 for s in STATUSES}
	fn = failnth_totals(run['tests'])
	if fn:
		run['failnth'] = fn
	every, per_prog, dumped, nowarn = {}, {}, 0, 0
	for t in run['tests']:
		dumped += t.get('sites', {}).get('faults_dumped', 0)
		nowarn += t.get('sites', {}).get('nowarn_named', 0)
		prog = per_prog.setdefault(t['name'].split('.', 1)[0],
					   {'sites': set(), 'points': 0, 'attributed': 0})
		prog['points'] += sum(m.get('points', 0) for m in t['metrics'].get('failnth', {}).values())
		for site, n in t.get('sites', {}).get('by_site', {}).items():
			every[site] = every.get(site, 0) + n
			prog['sites'].add(site)
			prog['attributed'] += n
	if every:
		# A point whose fault printed no stack and named no site is
		# unattributed: a __GFP_NOWARN page allocation (the fault
		# injection says nothing, and an injected failure returns
		# before mm_page_alloc), a __GFP_NOWARN slab one the allocator
		# absorbed (trace_sites()), or, without the trace buffer's
		# stacks, one whose call_site is an allocator helper
		# (kmalloc_reserve(), kvmalloc()). The figure says how much
		# the count misses.
		progs = {p: {'distinct': len(v['sites']), 'points': v['points'],
			     'unattributed': max(v['points'] - v['attributed'], 0)}
			 for p, v in sorted(per_prog.items()) if v['sites'] or v['points']}
		run['sites'] = {'distinct': len(every),
				'faults_dumped': dumped,
				'nowarn_named': nowarn,
				'points': sum(v['points'] for v in progs.values()),
				'unattributed': sum(v['unattributed'] for v in progs.values()),
				'by_program': progs,
				'by_site': dict(sorted(every.items()))}
	return run


LEAK_TASK = re.compile(r'\s*comm "([^"]*)", pid (\d+),')
TASK_COMM_LEN = 16	# include/linux/sched.h


def comm_of(prog):
	"""The comm the kernel gives program @prog's tasks: its name, cut."""
	return prog[:TASK_COMM_LEN - 1]


def leak_owners(windows):
	"""kmemleak reports an object once nothing points to it, and that can
	be a test or more after the one that leaked it: a value that looks
	like a pointer to it (a stale copy in a reused buffer, on a stack)
	hides it until it is overwritten ("false negatives",
	Documentation/dev-tools/kmemleak.rst). The report names the task that
	allocated the object; each test's tasks have pids above the lastpid=
	of its BEGIN and up to the next test's. A leak whose task is an
	earlier test's program (its comm, and a pid of that test's window, in
	the same boot) is moved to that test, saying where it surfaced. Any
	other (a kernel thread's, a command the test ran) stays where it was
	reported. @windows: (boot, lastpid, test, the console line of its
	BEGIN) in BEGIN order."""
	for i, (boot, _, t, begin) in enumerate(windows):
		end = windows[i + 1][3] if i + 1 < len(windows) else None
		for sp in list(t['splats']):
			m = LEAK_TASK.match(sp['excerpt'][1]) if (
				sp['kind'] == 'kmemleak' and len(sp['excerpt']) > 1) else None
			# A test run twice (another boot) holds both runs' splats.
			if not m or sp['line'] < begin or (end and sp['line'] > end):
				continue
			comm, pid = m.group(1), int(m.group(2))
			for j in range(i - 1, -1, -1):
				ub, lo, u, _ = windows[j]
				if ub != boot:
					break
				hi = windows[j + 1][1]
				inside = lo < pid <= hi if lo <= hi else (pid > lo or pid <= hi)
				if not inside:
					continue
				if comm == comm_of(program_of(u['name'])):
					t['splats'].remove(sp)
					sp['title'] += ' (reported after %s)' % t['name']
					sp['excerpt'][0] = sp['title']
					sp['reported_in'] = t['name']
					u['splats'].append(sp)
				break


def run_problems(run, boots, started, last_line):
	"""The pseudo-test 'run.kernel' when the run went wrong outside any
	test: a splat while booting or between tests, a boot that never ran
	init's first line, a guest that stopped without TOOSMALL:DONE while no
	test ran, no test started at all. Each would otherwise pass unseen
	(or as a row of "never started"), and a run that tested nothing must
	not exit 0. None when the run itself was sound."""
	found = []		# (console line, status, what)
	causes = []		# what bootcause() made of a boot that failed
	for sp in run['boot']['splats']:
		where = 'before the first test' if sp['before_tests'] else 'between tests'
		if sp['boot'] is not None and len(boots) > 1:
			where += ' of boot %s' % sp['boot']
		if sp['kind'] == 'panic':
			title = sp['title'].replace('Kernel panic - not syncing: ', '', 1)
			found.append((sp['line'], 'crash', 'kernel panic %s: %s' % (where, title)))
		else:
			found.append((sp['line'], 'fail', 'kernel splat (%s) %s: %s' %
				      (sp['kind'], where, sp['title'])))
	for b in boots:
		why = ' (%s)' % b['why'] if b['why'] else ''
		if not b['ready']:
			cause = bootcause(b['early'])
			if cause:
				causes.append(cause)
			found.append((b['end_line'], 'crash',
				      'boot %s did not reach the tests (no TOOSMALL:READY)%s%s' %
				      (b['n'], why, ': ' + cause if cause else '')))
		elif not b['done'] and b['open'] is None:
			# A test that was running has the verdict (crash,
			# hang, a power cut it asked for); this is the guest.
			found.append((b['end_line'], 'crash',
				      'boot %s: the guest stopped between tests, without '
				      'TOOSMALL:DONE%s' % (b['n'], why)))
	if not started:
		found.append((last_line, 'fail', 'no planned test started' if run['tests']
			      else 'no test was planned or started'))
	if not found:
		return None
	found.sort(key=lambda f: f[0])
	t = new_test('run.kernel', 'run', 0)
	for key in [k for k in t if k.startswith('_')]:
		del t[key]
	t['status'] = 'crash' if any(f[1] == 'crash' for f in found) else 'fail'
	t['failures'] = [f[2] for f in found]
	t['reason'] = found[0][2]
	if len(found) > 1:
		t['reason'] += ' (and %d more run problem%s)' % (len(found) - 1,
								 's' if len(found) > 2 else '')
	if causes and causes[0] not in t['reason']:
		# The panic comes first, but the cause is what to act on.
		t['reason'] += '; cause: ' + causes[0]
	t['splats'] = list(run['boot']['splats'])
	return t


def failnth_totals(tests):
	"""The fail-nth figures of a run: points, sweep rate, and whether each
	scenario's points add up across the modes (both = slab + page)."""
	sweeps, work = {}, set()
	for t in tests:
		for key, m in t['metrics'].get('failnth', {}).items():
			if 'points' in m:
				sweeps[key] = m
				# A whole command a point (failnth_work_test): a
				# fork, an exec and the command's run each, ~100 times
				# a single call's cost; its rate is its own figure.
				if t['name'].startswith('failnth_work.'):
					work.add(key)
	if not sweeps:
		return None
	points = sum(m['points'] for m in sweeps.values())
	secs = sum(m.get('secs', 0) for m in sweeps.values())
	calls_points = sum(m['points'] for k, m in sweeps.items() if k not in work)
	calls_secs = sum(m.get('secs', 0) for k, m in sweeps.items() if k not in work)
	modes = {}
	for key, m in sweeps.items():
		scen, _, mode = key.rpartition('.')
		modes.setdefault(scen, {})[mode] = m['points']
	apart = sorted('%s: both %d, slab %d + page %d' % (scen, md['both'], md['slab'], md['page'])
		       for scen, md in modes.items()
		       if {'both', 'slab', 'page'} <= set(md) and md['both'] != md['slab'] + md['page'])
	return {'sweeps': len(sweeps), 'scenarios': len(modes), 'points': points,
		'secs': round(secs, 3), 'points_per_s': round(points / secs, 1) if secs else None,
		'calls_points_per_s': round(calls_points / calls_secs, 1) if calls_secs else None,
		'workload_points': points - calls_points,
		'modes_apart': apart}


def judge(t):
	"""Turn what was seen of one test into its status and reason."""
	res = t.pop('_result')
	begun, ended = t.pop('_begun'), t.pop('_ended')
	hang = t.pop('_hang', None)
	killed = t.pop('_killed', None)
	stuck = t.pop('_stuck', None)
	rootlost = t.pop('_rootlost', False)
	rc = t.pop('_rc', None)
	victims = t.pop('_oom_victims', [])
	log = t.pop('_log')
	t.pop('_tail', None)
	faults, sites = t.pop('_faults', 0), t.pop('_sites', {})
	# The __GFP_NOWARN faults: from the trace buffer's stacks where the
	# guest printed it, else from the call_site of the kmem tracepoints'
	# printk lines (slab allocations only; an older guest).
	tp_sites, tp_nowarn = t.pop('_tp_sites', {}), t.pop('_tp_nowarn', 0)
	nowarn_sites = t.pop('_trace_sites', None)
	nowarn = t.pop('_trace_nowarn', 0)
	t.pop('_trace', None)
	if nowarn_sites is None:
		nowarn_sites, nowarn = tp_sites, tp_nowarn
	sites = dict(sites)
	for site, n in nowarn_sites.items():
		sites[site] = sites.get(site, 0) + n
	if faults or sites:
		# Faults dumped, not points: the dump skips __GFP_NOWARN ones,
		# which the kmem tracepoints name (nowarn_named).
		t['sites'] = {'faults_dumped': faults, 'nowarn_named': nowarn,
			      'distinct': len(sites),
			      'by_site': dict(sorted(sites.items()))}
	# Every failing point, whatever the verdict: a known issue must
	# explain each of them, not just the first (apply_known()).
	t['failures'] = failing_points(log)
	stall = [i for i, l in enumerate(log) if l.startswith('# stall: ')]
	if not begun:
		t['status'], t['reason'] = 'crash', 'never started: the guest died or the run deadline passed'
	elif hang:
		t['status'], t['reason'] = 'hang', hang
	elif stuck is not None:
		t['status'] = 'hang'
		t['reason'] = 'left tasks the guest could not kill (%s), rc %s' % (stuck, rc)
	elif killed and res is None:
		# Its checks come in the next test, after the next boot.
		t['status'], t['reason'] = 'pass', 'guest killed on request (%s)' % killed
	elif stall and not (res and res[0] == 'ok'):
		# The test saw no forward progress itself: no kernel detector
		# fired, but it is a hang all the same. Its own lines from the
		# stall on are the evidence.
		t['status'] = 'hang'
		t['reason'] = log[stall[0]][len('# stall: '):][:300]
		t.setdefault('evidence', []).extend(log[stall[0]:stall[0] + MAX_EVIDENCE])
	elif res is None:
		if ended and rc == '124':
			t['status'], t['reason'] = 'hang', 'guest timeout killed the test after %ss' % t['timeout_s']
		elif ended and rc == '137' and t['timeout_s'] and \
		     (t['duration_s'] or 0) >= t['timeout_s']:
			# timeout -k: the test ignored SIGTERM, then SIGKILL.
			t['status'], t['reason'] = 'hang', 'guest timeout killed the test after %ss (SIGKILL)' % t['timeout_s']
		elif ended and rc == '137' and victims:
			t['status'] = 'fail'
			t['reason'] = 'no result line (exit code 137): the OOM killer killed %s' % ', '.join(victims)
		elif ended:
			t['status'], t['reason'] = 'fail', 'no result line (exit code %s)' % rc
		else:
			panic = [s for s in t['splats'] if s['kind'] == 'panic']
			t['status'] = 'crash'
			t['reason'] = panic[0]['title'] if panic else 'no result line: the guest died or hung'
	else:
		verdict, _num, _name, directive, why = res
		if directive == 'SKIP':
			t['status'], t['reason'] = 'skip', why or 'skipped'
		elif verdict == 'ok':
			t['status'], t['reason'] = 'pass', ''
			if directive == 'XFAIL':
				t['reason'] = 'harness XFAIL: ' + (why or '')
		else:
			t['status'] = 'fail'
			t['reason'] = failure_reason(t['failures'], log)
		# A result line is not the end of the program: one that then
		# exits non-zero or dies by a signal (128 + N from the guest's
		# shell, 124 from its timeout) did not pass.
		if t['status'] in ('pass', 'skip') and ended and rc not in ('0', '?', None):
			t['status'] = 'fail'
			t['reason'] = 'printed "%s" but then exited %s' % (' '.join(
				x for x in (verdict, directive) if x), exit_status_name(rc))
	if t['status'] in ('pass', 'skip'):
		t['failures'] = []
	if rootlost and t['status'] in ('pass', 'skip', 'fail'):
		# guest-init found the root gone after it: the boot ended.
		lost = 'the guest\'s root filesystem stopped answering during it (F14 on a 9p root); the boot ended'
		t['reason'] = lost if t['status'] != 'fail' else '%s; %s' % (t['reason'], lost)
		t['status'] = 'fail'
	if t.get('knobs_left') and t['status'] in ('pass', 'skip', 'fail'):
		# Every later test of the boot would have run with them.
		extra = knobs_left_record(t)
		t['reason'] = extra if t['status'] != 'fail' else '%s; %s' % (t['reason'], extra)
		t['status'] = 'fail'
	if t['splats'] and t['status'] in ('pass', 'skip', 'fail'):
		kinds = ', '.join(sorted({s['kind'] for s in t['splats']}))
		first = t['splats'][0]['title']
		extra = 'kernel splat (%s): %s' % (kinds, first)
		t['reason'] = extra if t['status'] != 'fail' else '%s; %s' % (t['reason'], extra)
		t['status'] = 'fail'


def knobs_left_record(t):
	"""The failure record of the knobs test @t left changed."""
	return 'left knobs changed: ' + ' '.join(t['knobs_left'])


# The harness's "__FILE__:__LINE__:name:" prefix (kselftest_harness.h
# __TH_LOG): an EXPECT/ASSERT that failed ("...:Expected a (1) == b (2)")
# and the TH_LOG() lines its failure printed.
POINT = re.compile(r'^# \S+?:\d+:[^:\s]*:(.*)$')


def failing_points(log):
	"""Every failed EXPECT/ASSERT of a test, in order, each with the
	TH_LOG() lines it printed (they say what the bare "Expected 0 (0) !=
	ok (0)" means). A TH_LOG() with no failed check before it is a point
	of its own: it is there only because something went wrong."""
	points = []
	attach = None		# the point whose TH_LOG() lines may follow
	for line in log:
		m = POINT.match(line)
		if not m:
			# Another line of the test ends the point's messages;
			# kernel lines may come between and do not.
			if line.startswith('#'):
				attach = None
			continue
		if m.group(1).startswith('Expected ') or attach is None or \
		   len(points[attach]) > 2:
			points.append([line[2:]])
			attach = len(points) - 1 if m.group(1).startswith('Expected ') else None
		else:
			points[attach].append(line[2:])
	return [' '.join(p)[:300] for p in points]


def exit_status_name(rc):
	"""A shell exit status, with the signal it stands for (128 + N)."""
	try:
		n = int(rc)
	except ValueError:
		return 'with status %s' % rc
	if n == 124:
		return 'with 124 (the guest\'s timeout killed it)'
	if n > 128:
		return 'with %d (killed by %s)' % (n, signal_name(n - 128))
	return 'with %d' % n


# kselftest_harness.h's __wait_for_test(), when the test's child died.
HARNESS_DEATH = re.compile(r'^# (?:\S+: )?(Test terminated (?:unexpectedly by signal \d+|by timeout))\s*$')


def failure_reason(points, log=()):
	"""The harness's own words for a failure: its first failing point, and
	how many more there are (all of them are in the test's 'failures');
	with none, what the harness says killed the test, if it did."""
	if not points:
		for line in log:
			m = HARNESS_DEATH.match(line)
			if m:
				return m.group(1)
		return 'test reported not ok'
	if len(points) == 1:
		return points[0]
	return '%s (and %d more failing point%s)' % (points[0], len(points) - 1,
						    's' if len(points) > 2 else '')


# ------------------------------------------------------------ boot cause --

XSAVE_FIX = ('the default kernel has the fix (kernel-patches/0001); a --kernel-src tree '
	     'needs upstream\'s dynamic host_fp_size (arch/x86/um/os-Linux/registers.c, '
	     'Linux 6.13+); --kernel binaries such as /usr/bin/linux.uml cannot run on this host')
PTRACE_ADVICE = ('the host must let UML ptrace its own children: run it outside seccomp '
		 'filters or containers that forbid ptrace, with kernel.yama.ptrace_scope < 3')
TMPDIR_ADVICE = 'set TMPDIR to a writable tmpfs directory that allows exec, or fix /dev/shm'

# What UML itself prints when it cannot start or run user space, most
# specific first: (regex, what to say, {n} being the regex's groups).
# Sources: arch/um/os-Linux/start_up.c (os_early_checks), mem.c
# (tempdir, check_tmpexec), umid.c, skas/process.c (userspace()).
UML_EARLY = [
	(r'Checking PROT_EXEC mmap in (\S+?)\.\.\.(?!OK)(.+)',
	 'UML cannot map its memory file in {0} executable ({1}): mount it without '
	 'noexec, or ' + TMPDIR_ADVICE),
	(r'open - cannot create (\S+): (.+)',
	 'UML cannot create its memory file {0} ({1}): ' + TMPDIR_ADVICE),
	(r'Failed to choose tempdir: (.+)', 'UML found no tempdir ({0}): ' + TMPDIR_ADVICE),
	(r'Checking if (\S+) is on tmpfs\.\.\.(?!OK|no$)(.+)',
	 'UML\'s tempdir {0} is unusable ({1}): ' + TMPDIR_ADVICE),
	(r'Checking syscall emulation for ptrace\.\.\.(?!OK)(.*)',
	 'the host\'s ptrace lacks working PTRACE_SYSEMU, which UML needs ({0}): '
	 'run on an x86-64 host kernel whose ptrace is not filtered'),
	(r'check_sysemu\s?: (.+)',
	 'the host\'s ptrace lacks working PTRACE_SYSEMU, which UML needs ({0}): '
	 'run on an x86-64 host kernel whose ptrace is not filtered'),
	(r'Checking that ptrace can change system call numbers\.\.\.(?!OK)(.+)',
	 'UML\'s ptrace check failed ({0}): ' + PTRACE_ADVICE),
	(r'((?:check_ptrace|start_ptraced_child|stop_ptraced_child)\s?: .+)',
	 'UML\'s ptrace check failed ({0}): ' + PTRACE_ADVICE),
	(r'^ptrace: (.+)', 'UML\'s child could not PTRACE_TRACEME ({0}): ' + PTRACE_ADVICE),
	(r'Failed to initialize default registers',
	 'UML could not read a traced child\'s registers at start: ' + PTRACE_ADVICE),
	(r'umid "(\S+)" is already in use by pid (\d+)',
	 'another UML (pid {1}) runs with umid {0}: stop it or pick another umid'),
	(r'Failed to mkdir \'(\S+)\': (.+)',
	 'UML cannot create its uml_dir {0} ({1}): make it writable for the user running UML'),
	(r'Failed to create \'(\S+)\' - err = (\d+)',
	 'UML cannot create its umid directory {0} (errno {1}): make uml_dir writable'),
	(r'Failed to exec kernel: (.+)', 'UML could not re-exec itself ({0})'),
	(r'Too few physical memory! Needed=(\d+), given=(\d+)',
	 'mem= is too small for this kernel (needs {0} bytes, given {1}): raise --mem'),
	# --vm qemu: what sandbox.sh or QEMU said before the guest ran.
	(r'^toosmall-sandbox: (.+)', 'the sandbox could not start the VM: {0}'),
	(r'^qemu-system-\w+: (.+)', 'QEMU could not start the guest: {0}'),
	(r'setup_physmem - mapping (\d+) bytes of memory at \S+ failed - errno = (\d+)',
	 'UML could not map its {0} bytes of memory (errno {1}): check the tempdir\'s free '
	 'space and the memory limits of the user running UML'),
]


def errno_name(n):
	return errno.errorcode.get(int(n), 'errno %s' % n)


def signal_name(n):
	try:
		return signal.Signals(n).name
	except ValueError:
		return 'signal %d' % n


def xsave_cause(host_xsave, kernel_fp):
	host = ' (%s bytes)' % host_xsave if host_xsave else ''
	kern = ' (%s bytes)' % kernel_fp if kernel_fp and kernel_fp != 'dynamic' else ''
	return ('the host\'s XSAVE area%s is larger than this UML kernel\'s FP buffer%s: %s' %
		(host, kern, XSAVE_FIX))


def bootcause(lines, host_xsave=None, kernel_fp=None):
	"""Why a UML kernel did not boot or could not run init, from what it
	printed before init's first line (TOOSMALL:READY), in one line; None
	when the console does not tell. The most specific cause first: the
	ptrace error that killed init explains the panic that follows it."""
	lines = [re.sub(PRINTK, '', l.rstrip('\r\n')) for l in lines]
	if host_xsave is None:
		# A kernel that sizes its buffer at boot says the host's size.
		for l in lines:
			m = re.search(r'Host XSAVE area: (\d+) bytes', l)
			if m:
				host_xsave = m.group(1)
	for l in lines:
		# EFAULT: the host wants its whole XSAVE area, the kernel's
		# buffer is smaller (arch/x86/kernel/fpu/regset.c). A kernel
		# that sizes its buffer at boot has some other trouble.
		if re.search(r'userspace - ptrace set fp regs failed, errno = 14\b', l) and \
		   kernel_fp != 'dynamic':
			return xsave_cause(host_xsave, kernel_fp)
	for l in lines:
		# "userspace - ptrace set regs failed, errno = 5",
		# "start_userspace : clone failed, errno = 12", ...: a
		# function, what failed (no " - " or " : " in it), the errno.
		m = re.search(r'(\w+)\s+[-:]\s+((?:(?! - | : ).)*?)\s*failed, '
			      r'(?:op = \d+, )?errno = (\d+)', l)
		if m and ('ptrace' in m.group(2).lower() or 'PTRACE' in m.group(2) or
			  m.group(1) in ('userspace', 'start_userspace', 'wait_stub_done',
					 'check_ptrace', 'arch_init_registers')):
			what = 'a ptrace request' if 'ptrace' in m.group(2).lower() else \
				'a request'
			return ('UML\'s %s: %s failed with %s (errno %s): the host refused %s '
				'UML needs to run user space' %
				(m.group(1), m.group(2).strip(), errno_name(m.group(3)),
				 m.group(3), what))
	for rx, say in UML_EARLY:
		for l in lines:
			m = re.search(rx, l)
			if m:
				return say.format(*[g.strip() for g in m.groups()])
	for l in lines:
		m = re.search(r'Attempted to kill init! exitcode=(0x[0-9a-fA-F]+)', l)
		if m:
			code = int(m.group(1), 16)
			if code & 0x7f:
				return 'init was killed (exit code %s, signal %s%s)' % (
					m.group(1), signal_name(code & 0x7f),
					', core dumped' if code & 0x80 else '')
			return 'init exited (exit code %s, status %d)' % (m.group(1), code >> 8 & 0xff)
	for l in lines:
		m = re.search(r'Kernel panic - not syncing: (.*)', l)
		if m:
			return 'kernel panic before the first test: %s' % m.group(1).strip()
	return None


def cmd_bootcause(args):
	try:
		with open(args.log, errors='replace') as f:
			lines = f.readlines()
	except OSError as e:
		print('toosmall: error: %s: %s: pass a console.log' % (args.log, e.strerror),
		      file=sys.stderr)
		return 2
	# Only a boot that never ran init's first line has a boot cause.
	for boot in split_boots(lines):
		if any('TOOSMALL:READY' in l for l in boot):
			continue
		cause = bootcause(boot, args.host_xsave, args.kernel_fp)
		if cause:
			print(cause)
			return 0
	return 1


def split_boots(lines):
	"""The console's boots (the host's "boot N" lines), or all of it."""
	boots = [[]]
	for l in lines:
		if re.match(r'TOOSMALL-HOST: boot \d+ umid=', l) and boots[-1]:
			boots.append([])
		boots[-1].append(l)
	return boots


# ----------------------------------------------------------- known issues --

KINDS = ('default', 'other', 'any')
RELEASE_COND = 'release='
# KIND@VM: on that VM only (run.sh --vm; a log without vm= is UML's).
VMS = ('uml', 'qemu')
# KIND:PROFILE: on that profile only (run.sh --profile; a log without
# profile= is the default's).
PROFILES = ('default', 'debug')
KNOWN_FORMAT = 'want "GLOB STATUS FINDING KERNELS /REGEX/ [text]"'


def split_regex(text):
	"""'/REGEX/ rest' -> (REGEX, rest); a '/' inside is written '\\/'."""
	i = 1
	while i < len(text):
		if text[i] == '\\':
			i += 2
			continue
		if text[i] == '/':
			return text[1:i], text[i + 1:].strip()
		i += 1
	return None, text


def kernel_cond_ok(cond):
	"""One term of KERNELS: KIND or release=GLOB, optionally @VM, then
	optionally :PROFILE."""
	cond, colon, profile = cond.partition(':')
	if colon and profile not in PROFILES:
		return False
	c, at, vm = cond.partition('@')
	if at and vm not in VMS:
		return False
	return c in KINDS or (c.startswith(RELEASE_COND) and len(c) > len(RELEASE_COND))


def load_known(path):
	"""Lines 'GLOB STATUS FINDING KERNELS /REGEX/ free text' (see the
	repo's known-issues): a test matching GLOB whose verdict is one of
	STATUS ('hang|pass': the finding strikes only now and then), on a
	kernel KERNELS names, and whose every failure record REGEX matches, is
	the written-up finding FINDING (FINDINGS.md)."""
	known = []
	with open(path) as f:
		for n, line in enumerate(f, 1):
			line = line.strip()
			if not line or line.startswith('#'):
				continue
			where = '%s:%d' % (path, n)
			parts = line.split(None, 4)
			if len(parts) < 5:
				raise SystemExit('%s: %s: too few fields' % (where, KNOWN_FORMAT))
			glob, status, fid, kernels, rest = parts
			statuses = status.split('|')
			if not all(s in ('fail', 'hang', 'crash', 'pass') for s in statuses) or \
			   statuses == ['pass']:
				raise SystemExit('%s: %s: STATUS %r is not fail, hang or crash, '
						 'or several joined by "|"' % (where, KNOWN_FORMAT, status))
			conds = kernels.split(',')
			if not all(kernel_cond_ok(c) for c in conds):
				raise SystemExit('%s: %s: KERNELS %r is not default, other, any or '
						 'release=GLOB, each with an optional @uml or @qemu '
						 'and :default or :debug, or several joined by ","' %
						 (where, KNOWN_FORMAT, kernels))
			if not re.fullmatch(r'F\d+(\+F\d+)*', fid):
				raise SystemExit('%s: %s: FINDING %r is not F<n>, or several joined '
						 'by "+"' % (where, KNOWN_FORMAT, fid))
			if not rest.startswith('/'):
				# Without one, any failure of the test would be
				# excused, a new bug with it.
				raise SystemExit('%s: %s: the /REGEX/ (the finding\'s signature) is missing' %
						 (where, KNOWN_FORMAT))
			rx, text = split_regex(rest)
			if rx is None:
				raise SystemExit('%s: unterminated /REGEX/' % where)
			try:
				sig = re.compile(rx)
			except re.error as e:
				raise SystemExit('%s: bad /REGEX/: %s' % (where, e))
			known.append({'glob': glob, 'status': statuses, 'fid': fid,
				      'kernels': conds, 'sig': sig, 'text': text,
				      'where': where})
	return known


def kernel_kind(run):
	"""default (Debian's tree with the project's patches), src, prebuilt,
	or unknown: logs from before the host wrote kind=."""
	return run['kernel'].get('kind') or 'unknown'


def entry_applies(entry, kernel, any_kernel):
	"""Whether one of the entry's KERNELS holds for @kernel: a run's
	kernel (its kind, release and VM) or a kind alone. release=GLOB names
	a finding of mainline code by the releases that carry it, so that it
	is known on a user's tree of that release too; @VM limits a term to
	runs on that VM (a finding in 9p, the QEMU guest's root, say) and
	:PROFILE to runs of that profile (a sweep the debug kernel's own
	allocations can shift, say)."""
	if any_kernel:
		return True
	k = kernel if isinstance(kernel, dict) else {'kind': kernel}
	kind, release = k.get('kind') or 'unknown', k.get('release') or ''
	vm = k.get('vm') or 'uml'
	profile = k.get('profile') or 'default'
	for c in entry['kernels']:
		c, colon, cprofile = c.partition(':')
		if colon and cprofile != profile:
			continue
		c, at, cvm = c.partition('@')
		if at and cvm != vm:
			continue
		if c.startswith(RELEASE_COND):
			if release and fnmatch.fnmatchcase(release, c[len(RELEASE_COND):]):
				return True
		elif c == 'any' or (c == 'default') == (kind == 'default'):
			return True
	return False


def failure_records(t):
	"""What a known issue must explain: the reason, every splat title,
	every failing point. A point that failed several checks says them
	joined by '; ' (failnth_also()), as the reason joins a splat to the
	test's own words: each is a record of its own, so that a second
	failure at an excused point is not excused with it."""
	points = [part for r in t.get('failures', []) for part in r.split('; ')
		  if part.strip()]
	# The reason is the first point's words (or the verdict's, when the
	# test printed none) and the splats': the others are records already.
	records = (points or [t['reason']]) + [sp['title'] for sp in t['splats']]
	if t.get('knobs_left') and t['status'] not in ('hang', 'crash'):
		# What the test left behind is a record of its own (judge()),
		# unless the kill that ended a hang or crash left it.
		records.append(knobs_left_record(t))
	return records


def apply_known(run, known, any_kernel=False):
	"""A failed test is XFAIL when an entry that applies to this kernel
	names it and its status, and the entry's signature explains every one
	of its failure records: one record it does not explain may be a new
	bug. A passed test that an entry expects to fail (without 'pass' in
	its STATUS) is XPASS: the entry may be stale."""
	kernel = dict(run['kernel'], kind=kernel_kind(run))
	for t in run['tests']:
		entries = [e for e in known if entry_applies(e, kernel, any_kernel) and
			   fnmatch.fnmatchcase(t['name'], e['glob'])]
		if t['status'] == 'pass':
			if entries and not any('pass' in e['status'] for e in entries):
				e = entries[0]
				t['xpass'] = ('%s %s' % (e['fid'], e['text'])).strip()
			continue
		unexplained = None
		for e in entries:
			if t['status'] not in e['status']:
				continue
			missed = [r for r in failure_records(t) if not e['sig'].search(r)]
			if not missed:
				t['xfail'] = ('%s %s' % (e['fid'], e['text'])).strip()
				break
			if unexplained is None:
				unexplained = (e, missed[0], len(missed))
		if 'xfail' not in t and unexplained:
			e, rec, nmiss = unexplained
			t['reason'] += '; not %s (%s): /%s/ does not explain %r%s' % (
				e['fid'], e['where'], e['sig'].pattern, rec[:120],
				' and %d more' % (nmiss - 1) if nmiss > 1 else '')
	run['totals']['xfail'] = sum(1 for t in run['tests'] if 'xfail' in t)
	run['totals']['xpass'] = sum(1 for t in run['tests'] if 'xpass' in t)


# ------------------------------------------------------------- reporters --

def ktap(run):
	out = ['KTAP version 1', '1..%d' % len(run['tests'])]
	for i, t in enumerate(run['tests'], 1):
		st, why = t['status'], t['reason'].replace('\n', ' ')
		if 'xfail' in t:
			line = 'not ok %d %s # XFAIL %s (%s)' % (i, t['name'], t['xfail'], st)
		elif st == 'pass' and 'xpass' in t:
			line = 'ok %d %s # XPASS %s' % (i, t['name'], t['xpass'])
		elif st == 'pass':
			line = 'ok %d %s' % (i, t['name'])
		elif st == 'skip':
			line = 'ok %d %s # SKIP %s' % (i, t['name'], why)
		elif st == 'hang':
			line = 'not ok %d %s # TIMEOUT %s' % (i, t['name'], why)
		elif st == 'crash':
			line = 'not ok %d %s # ERROR %s' % (i, t['name'], why)
		else:
			line = 'not ok %d %s' % (i, t['name'])
		if st not in ('pass', 'skip') and 'xfail' not in t and st == 'fail':
			out.append('# %s: %s' % (t['name'], why))
		for s in t['splats']:
			out.append('# %s: splat %s: %s' % (t['name'], s['kind'], s['title']))
		out.append(line)
	return '\n'.join(out) + '\n'


def summary(run):
	rows = [('TEST', 'CATEGORY', 'STATUS', 'TIME', 'REASON')]
	for t in run['tests']:
		st = t['status'] + (' (xfail)' if 'xfail' in t else '') + \
			(' (xpass)' if 'xpass' in t else '')
		dur = '%.1fs' % t['duration_s'] if t['duration_s'] is not None else '-'
		why = t.get('xfail') or t['reason']
		if 'xpass' in t:
			why = 'expected to fail, passed: ' + t['xpass']
		rows.append((t['name'], t['category'], st, dur, why[:70]))
	w = [max(len(r[i]) for r in rows) for i in range(4)]
	lines = ['  '.join(r[i].ljust(w[i]) for i in range(4)) + '  ' + r[4] for r in rows]
	fn = run.get('failnth')
	if fn:
		lines.append('')
		lines.append('fail-nth: %d points in %d sweeps of %d scenarios, %.1f s, %s points/s' %
			     (fn['points'], fn['sweeps'], fn['scenarios'], fn['secs'], fn['points_per_s']) +
			     (' (%s%d points of whole commands)' %
			      ('single calls %s points/s; ' % fn['calls_points_per_s']
			       if fn.get('calls_points_per_s') else '', fn['workload_points'])
			      if fn.get('workload_points') else ''))
		if fn['modes_apart']:
			lines.append('  points of both modes != slab + page (%d scenarios), e.g. %s' %
				     (len(fn['modes_apart']), fn['modes_apart'][0]))
	if run.get('sites'):
		si = run['sites']
		lines.append('call sites failed (--sites): %d distinct, %d dumped faults, '
			     '%d __GFP_NOWARN faults named by the kmem tracepoints%s' %
			     (si['distinct'], si['faults_dumped'], si.get('nowarn_named', 0),
			      '; %d of %d fail-nth points unattributed (__GFP_NOWARN faults of the '
			      'page allocator, which no tracepoint sees, or that the slab absorbed)' %
			      (si['unattributed'], si['points'])
			      if si.get('points') else ''))
		progs = si.get('by_program', {})
		if progs:
			lines.append('  distinct per program: ' + ', '.join(
				'%s %d' % (p, v['distinct']) for p, v in progs.items() if v['distinct']))
		top = sorted(run['sites']['by_site'].items(), key=lambda kv: -kv[1])[:10]
		lines.append('  most often: ' + ', '.join('%s %d' % kv for kv in top))
		if run.get('console_capped'):
			lines.append('  a lower bound: the faults\' stacks past the console\'s '
				     'cap were dropped (TOOSMALL_CONSOLE_CAP_MB raises it)')
	if run.get('console_capped'):
		lines.append('')
		lines.append(run['console_capped'])
	for t in run['tests']:
		if t.get('evidence'):
			lines.append('')
			lines.append('evidence for %s (%d lines, first 30):' %
				     (t['name'], len(t['evidence'])))
			lines.extend('  ' + l for l in t['evidence'][:30])
	return '\n'.join(lines) + '\n'


def totals_line(run):
	tot = run['totals']
	bad = sum(1 for t in run['tests']
		  if t['status'] in ('fail', 'hang', 'crash') and 'xfail' not in t)
	good = tot['pass']
	line = '%d passed, %d failed, %d skipped' % (good, bad, tot['skip'])
	if tot.get('xfail'):
		line += ', %d xfail' % tot['xfail']
	if tot.get('xpass'):
		# Among the passed; not a failure of the run, but a
		# known-issues entry that may be stale (--check-run fails it).
		line += ', %d xpass' % tot['xpass']
	return line, bad


# XML 1.0 has no place for most C0 controls, and a console may carry them
# (escape sequences, stray bytes of a test's output): a reader such as
# Jenkins' rejects the whole file for one. They are written as \xNN.
XML_BAD = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')


def xml_text(s):
	return XML_BAD.sub(lambda m: '\\x%02x' % ord(m.group()), s)


def junit(run):
	"""One testcase a test. Only what fails the run (parse's exit code) is
	a <failure> (fail) or an <error> (hang, crash): an XFAIL is <skipped>
	with its finding, an XPASS passes with a note, so that a CI reading
	the XML agrees with the exit code. The suite's counts are those of
	its testcases."""
	suite = ET.Element('testsuite', name='toosmall')
	counts = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
	for t in run['tests']:
		case = ET.SubElement(suite, 'testcase', classname=t['category'], name=xml_text(t['name']),
				     time='%.3f' % (t['duration_s'] or 0))
		counts['tests'] += 1
		st = t['status']
		out = []
		if 'xfail' in t:
			fid, _, text = t['xfail'].partition(' ')
			ET.SubElement(case, 'skipped', message=xml_text('XFAIL %s: %s (%s: %s)' %
								       (fid, text, st, t['reason'])))
			counts['skipped'] += 1
		elif st == 'skip':
			ET.SubElement(case, 'skipped', message=xml_text(t['reason']))
			counts['skipped'] += 1
		elif st == 'fail':
			f = ET.SubElement(case, 'failure', message=xml_text(t['reason']))
			f.text = xml_text('\n'.join(t.get('failures', [])))
			counts['failures'] += 1
		elif st in ('hang', 'crash'):
			e = ET.SubElement(case, 'error', type=st, message=xml_text(t['reason']))
			e.text = xml_text('\n'.join(t.get('evidence', [])[:200]))
			counts['errors'] += 1
		if 'xpass' in t:
			out.append('XPASS %s: expected to fail, passed: the known-issues '
				   'entry may be stale' % t['xpass'])
		out.extend('\n'.join(s['excerpt']) for s in t['splats'])
		if out:
			ET.SubElement(case, 'system-out').text = xml_text('\n\n'.join(out))
	for k, v in counts.items():
		suite.set(k, str(v))
	return ET.tostring(suite, encoding='unicode') + '\n'


def write_atomic(path, text):
	# Its own name: two runs (--baseline runs two) may write one file.
	tmp = '%s.%d.tmp' % (path, os.getpid())
	with open(tmp, 'w') as f:
		f.write(text)
	os.replace(tmp, path)


def cmd_parse(args):
	try:
		with open(args.log, errors='replace') as f:
			lines = f.readlines()
		run = parse_log(lines)
	except OSError as e:
		print('toosmall: error: %s: %s: pass a console.log' % (args.log, e.strerror),
		      file=sys.stderr)
		return 2
	apply_known(run, load_known(args.known_issues) if args.known_issues else [],
		    args.known_issues_any_kernel)
	line, bad = totals_line(run)
	if args.output:
		write_atomic(os.path.join(args.output, 'results.json'),
			     json.dumps(run, indent=1) + '\n')
		write_atomic(os.path.join(args.output, 'results.ktap'), ktap(run))
		write_atomic(os.path.join(args.output, 'junit.xml'), junit(run))
	if args.durations:
		save_durations(args.durations, run)
	if args.fio_needs:
		save_fio_needs(args.fio_needs, lines)
	sys.stdout.write(ktap(run))
	sys.stdout.write('\n' + summary(run) + '\n')
	print(line)
	return 1 if bad else 0


def save_durations(path, run):
	"""Each test's time, for the next run's lanes (split_lanes()). A hang
	or crash ran into a deadline, not its own end: its old figure stays.
	Best effort: a cache that cannot be written costs only balance."""
	known = read_durations(path)
	for t in run['tests']:
		if t['duration_s'] is not None and t['status'] in ('pass', 'fail', 'skip'):
			known[t['name']] = t['duration_s']
	try:
		write_atomic(path, ''.join('%s\t%.3f\n' % kv for kv in sorted(known.items())))
	except OSError:
		pass


# fio_test.c's line after each bisection of a job's need (measure_need()).
FIO_NEED = re.compile(r'# bisect (\S+): measured need=(\d+) MiB, below=\d+ MiB '
		      r'\(release (\S+), MemTotal (\d+) kB, \d+ probes\)')


def read_fio_needs(path):
	"""(release, memtotal_kb, job) -> need in MiB, from the cache."""
	known = {}
	if path and os.path.exists(path):
		with open(path) as f:
			for line in f:
				w = line.split()
				if len(w) == 4 and w[1].isdigit() and w[3].isdigit():
					known[(w[0], w[1], w[2])] = w[3]
	return known


def save_fio_needs(path, lines):
	"""Each fio job's need, as the bisections in the console's @lines measured it,
	by kernel release and memory size, the last one counting: run.sh
	stages the file for the next run ($OOM_FIO_NEEDS), whose bisections
	probe it first (fio_test.c, need_guess()). A guess the guest proves or
	drops, never a result: best effort, like save_durations()."""
	known = read_fio_needs(path)
	for line in lines:
		m = FIO_NEED.search(line)
		if m:
			known[(m.group(3), m.group(4), m.group(1))] = m.group(2)
	try:
		write_atomic(path, ''.join('%s %s %s %s\n' % (k + (v,))
					   for k, v in sorted(known.items())))
	except OSError:
		pass


# ------------------------------------------------------- kselftest runner --

# kselftest/runner.sh's own lines: the timeout it set, each program's
# header, and its result line ("# exit=N", "# SKIP", "# TIMEOUT N seconds").
KSFT_TIMEOUT = re.compile(r'^# (?:timeout set|overriding timeout) to (\d+)$')
KSFT_HEAD = re.compile(r'^# selftests: (\S+): (\S+)$')
KSFT_RESULT = re.compile(r'^(not ok|ok) \d+ selftests: (\S+): (\S+)(?:\s+#\s*(.*))?$')
# The harness's line before each case (kselftest_harness.h).
KSFT_RUN = re.compile(r'^#\s+RUN\s+(\S+) \.\.\.$')


def parse_ksft(lines, collection, progs):
	"""What a kselftest runner's output (make run_tests, run_kselftest.sh)
	says of @progs in @collection: per program, whether its header came,
	its result line, the harness's plan, the cases that reported, and one
	test per case, judged as parse_log() judges a run.sh test and named as
	run.sh names it. The runner puts "# " before each line of a program:
	without it a case's lines are what the console shows, which is what
	judge() and failing_points() read."""
	runs = {p: {'prog': p, 'seen': False, 'result': None, 'plan': None,
		    'timeout': 45, 'cases': {}, 'reported': [], 'last': None}
		for p in progs}
	timeout = 45
	prog = cur = None
	for raw in lines:
		line = raw.rstrip('\r\n').replace('\x00', '')
		m = KSFT_TIMEOUT.match(line)
		if m:
			timeout = int(m.group(1))
			continue
		m = KSFT_HEAD.match(line)
		if m:
			prog = runs.get(m.group(2)) if m.group(1) == collection else None
			cur = None
			if prog:
				prog['seen'], prog['timeout'] = True, timeout
			continue
		m = KSFT_RESULT.match(line)
		if m:
			if m.group(2) == collection and m.group(3) in runs:
				runs[m.group(3)]['result'] = line
			prog = cur = None
			continue
		if prog is None or not line.startswith('#'):
			continue
		inner = line[2:] if line.startswith('# ') else line[1:]
		m = re.match(r'^1\.\.(\d+)$', inner)
		if m and prog['plan'] is None:
			# The harness's plan comes before its first case.
			prog['plan'] = int(m.group(1))
			continue
		run_m = KSFT_RUN.match(inner)
		res_m = None if run_m else RESULT.match(inner)
		if not run_m and not res_m:
			if cur is not None:
				cur['_log'].append(inner)
			continue
		name = (run_m or res_m).group(1 if run_m else 3)
		t = prog['cases'].get(name)
		if t is None:
			tname = runner_name(prog['prog'], name)
			t = new_test(tname, category_of(tname), prog['timeout'])
			t['_begun'] = True
			prog['cases'][name] = t
		if run_m:
			cur = prog['last'] = t
		else:
			t['_result'], t['_ended'], cur = res_m.groups(), True, None
			prog['reported'].append(name)
	for r in runs.values():
		ksft_judge_cases(r)
	return runs


def ksft_judge_cases(r):
	"""judge() each case of program run @r. A case that began and has no
	result line ended with its program: a hang when the runner's timeout
	killed it, a failure when it exited, a crash when the runner never
	said (the guest died)."""
	m = KSFT_RESULT.match(r['result'] or '')
	directive = (m.group(4) or '') if m else ''
	for t in r['cases'].values():
		timed_out = False
		if m and not t['_ended']:
			t['_ended'] = True
			rc = re.match(r'exit=(\d+)', directive)
			timed_out = directive.startswith('TIMEOUT')
			t['_rc'] = '124' if timed_out else rc.group(1) if rc else '?'
		judge(t)
		if timed_out and t['status'] == 'hang':
			t['reason'] = 'the runner\'s timeout (%ss) killed its program' % t['timeout_s']


def ksft_splats(console):
	"""A console's splats (parse_log()), a panic first. A kselftest
	runner's guest prints no TOOSMALL:BEGIN: no splat is any case's."""
	# run.kernel, run_problems()'s pseudo-test, holds the boot's splats.
	splats = console['boot']['splats'] + [s for t in console['tests']
					      if t['category'] != 'run' for s in t['splats']]
	return sorted(splats, key=lambda s: (s['kind'] != 'panic', s['line']))


def ksft_known_why(t, known, kernel):
	"""Why failed case @t is no XFAIL, for a reader of known-issues."""
	entries = [e for e in known if entry_applies(e, kernel, False) and
		   fnmatch.fnmatchcase(t['name'], e['glob'])]
	if not entries:
		return 'not in known-issues'
	if not any(t['status'] in e['status'] for e in entries):
		return 'known-issues says %s, not %s' % ('|'.join(entries[0]['status']), t['status'])
	return 'its known-issues signature does not explain it'


def ksft_verdict(r, want, known, kernel, died, splats):
	"""(summary, problems, notes) of program run @r, whose selected cases
	are @want (harness names): every selected case reported, and no
	other; the harness planned them; each case that is not ok is an XFAIL
	(apply_known() has run: its signature explains every failure record);
	the runner's result line agrees. @died: the program the guest died in,
	if one did before; @splats: the console's, for a program that did not
	finish."""
	if not r['seen']:
		return None, ['not run' + (': the guest died in %s' % died if died else '')], []
	if r['result'] is None:
		bad = ['no result line: it did not finish (the guest died or stopped)',
		       'last case started: %s' % (r['last']['name'] if r['last'] else 'none')]
		for s in splats[:1]:
			bad.extend(s['excerpt'][:6])
		return None, bad, []
	tests = list(r['cases'].values())
	bad, notes = [], []
	if r['plan'] != len(want):
		bad.append('harness plan 1..%s, expected 1..%d (the selected cases)' %
			   ('none' if r['plan'] is None else r['plan'], len(want)))
	missing = [n for n in want if n not in r['reported']]
	extra = [n for n in r['reported'] if n not in want]
	if missing or extra:
		bad.append('cases run differ from the cases selected:')
		bad.extend(['  missing %s' % n for n in missing] +
			   ['  unexpected %s' % n for n in extra])
	failed = [t for t in tests if t['status'] not in ('pass', 'skip')]
	for t in failed:
		if 'xfail' in t:
			notes.append('known %s %s: %s' % (t['status'], t['name'], t['xfail']))
			continue
		bad.append('not ok %s (%s): %s: %s' % (t['name'], t['status'],
						    ksft_known_why(t, known, kernel), t['reason']))
		bad.extend('  ' + rec for rec in failure_records(t)[1:4])
	notes += ['skip %s: %s' % (t['name'], t['reason']) for t in tests if t['status'] == 'skip']
	notes += ['xpass %s: expected to fail, passed: %s' % (t['name'], t['xpass'])
		  for t in tests if 'xpass' in t]
	verdict, directive = KSFT_RESULT.match(r['result']).group(1, 4)
	directive = directive or ''
	if verdict == 'ok' and directive.startswith('SKIP'):
		bad.append('the program skipped as a whole: in UML every knob is there: %s' % r['result'])
	elif verdict == 'ok':
		if failed:
			bad.append('the runner says ok though %d cases are not ok' % len(failed))
	elif directive == 'exit=1':
		if not failed:
			bad.append('the runner says "%s", but no case is not ok' % r['result'])
	else:
		bad.append(r['result'])
	n = {s: sum(1 for t in tests if t['status'] == s) for s in ('pass', 'skip')}
	summary = '%d cases: %d ok, %d known fail, %d skip' % (
		len(want), n['pass'], sum(1 for t in failed if 'xfail' in t), n['skip'])
	return summary, bad, notes


def cmd_ksft(args):
	progs = args.programs
	try:
		with open(args.tap, errors='replace') as f:
			lines = f.readlines()
	except FileNotFoundError:
		lines = []	# the guest never got to it: each program "not run"
	try:
		wants = {}
		for p in progs:
			with open(os.path.join(args.cases, p + '.cases')) as f:
				wants[p] = [l.strip() for l in f if l.strip()]
		known = load_known(args.known_issues) if args.known_issues else []
		console = None
		if args.console:
			with open(args.console, errors='replace') as f:
				console = parse_log(f)
	except OSError as e:
		print('toosmall: error: %s: %s' % (e.filename, e.strerror), file=sys.stderr)
		return 2
	runs = parse_ksft(lines, args.collection, progs)
	# The kernel as entry_applies() takes it: its kind and VM.
	kernel = {'kind': args.kernel_kind or (kernel_kind(console) if console else 'default'),
		'vm': args.vm}
	run = {'kernel': kernel, 'totals': {},
	       'tests': [t for p in progs for t in runs[p]['cases'].values()]}
	apply_known(run, known)
	splats = ksft_splats(console) if console else []
	# A splat no case can own is still a known finding's when the
	# signature of an entry that excused a case of this run explains it
	# (F8's XFS reports): that finding struck here, visibly. So is one
	# explained by a "|pass" entry of a case that passed, when the splat
	# names the case's program (a task's comm, cut as the kernel cuts
	# it): in run.sh's runs that splat would have been the case's, and
	# made it an XFAIL (F77's premature OOM kill of oom_test in the seed,
	# whose own checks pass).
	struck = []		# (entry, the comm a splat must name, or None)
	for p in progs:
		for t in runs[p]['cases'].values():
			for e in known:
				if not (entry_applies(e, kernel, False) and t['status'] in e['status'] and
					fnmatch.fnmatchcase(t['name'], e['glob'])):
					continue
				if 'xfail' in t and t['xfail'].split()[0] == e['fid']:
					struck.append((e, None))
				elif t['status'] == 'pass':
					struck.append((e, comm_of(p)))
	excused = {}
	for sp in list(splats):
		e = next((e for e, comm in struck if e['sig'].search(sp['title']) and
			  (comm is None or re.search(r'\b%s\b' % re.escape(comm), sp['title']))),
			 None)
		if e:
			splats.remove(sp)
			excused[e['fid']] = excused.get(e['fid'], 0) + 1
	bad_progs = 0
	died = None
	for p in progs:
		want = wants[p]
		summary, bad, notes = ksft_verdict(runs[p], want, known, kernel, died, splats)
		if runs[p]['seen'] and runs[p]['result'] is None:
			died = died or p
		label = args.label.replace('{prog}', p)
		if bad:
			bad_progs += 1
			print('not ok %s - %s' % (label, summary or bad.pop(0)))
		else:
			print('ok %s: %s' % (label, summary))
		for l in bad + notes:
			print('#   ' + l)
	if console is not None:
		if splats:
			bad_progs += 1
			s = splats[0]
			print('not ok no kernel splat on the guest console - %d splats, '
			      'the first (%s) at %s:%d: %s' % (len(splats), s['kind'],
							    args.console, s['line'], s['title']))
			for l in s['excerpt'][1:8]:
				print('#   ' + l)
		elif excused:
			print('ok no kernel splat on the guest console (%s) but those of '
			      'findings that struck: %s' % (os.path.basename(args.console), ', '.join(
				      '%s %d' % kv for kv in sorted(excused.items()))))
		else:
			print('ok no kernel splat on the guest console (%s)' %
			      os.path.basename(args.console))
	return 1 if bad_progs else 0


def cmd_known(args):
	"""For each NAME an entry names with one of --status on this kernel
	kind: "NAME STATUS FINDING TEXT", tab-separated. upstream/check.sh
	leaves those cases out: a crash ends the guest and every case after
	it. No signature is matched: nothing has run yet."""
	want = args.status.split(',')
	known = [e for e in load_known(args.known_issues)
		 if entry_applies(e, {'kind': args.kernel_kind, 'vm': args.vm}, False)]
	for name in args.names:
		for e in known:
			st = [s for s in e['status'] if s in want]
			if st and fnmatch.fnmatchcase(name, e['glob']):
				print('\t'.join((name, st[0], e['fid'], e['text'])))
				break
	return 0


# ---------------------------------------------------------------- mutate --

MUTATE_SUCCESS = re.compile(r'# mutate \S+: success as ENOMEM: (caught: .+|not tried: .+)')
MUTATE_FAILURE = re.compile(r'# mutate \S+: failure: (\d+ failing points as success: '
			    r'(?:all|the others) caught .+|no point failed the action|not tried: .+)')
# A scenario's failure_unseen: failures that left a success's state, and why.
MUTATE_EXCUSED = re.compile(r"# mutate \S+: failure: \d+ of \d+ failing points left a "
			    r"success's state \(.+\): \S.*")


def cmd_mutate(args):
	"""A ./run.sh --mutate run of fail-nth tests, judged. Every sweep tells
	its checks the opposite of what the call returned (failnth.h,
	failnth_mutate()); a test passes when its checks noticed. Each test
	that passed must also show, between its BEGIN and END on the console,
	both of its "mutate" lines (the success lie caught or not tried with
	a reason; the failure lie caught at every failing point, or no
	failing point), or a guest that ignored --mutate would pass as well.
	A failure lie "the others caught" must come with the line that says
	which failures left a success's state, and why (failure_unseen).
	Skips need a reason; an XFAIL is a written-up finding that ended the
	sweep, not a check that missed a lie."""
	with open(os.path.join(args.out, 'results.json')) as f:
		run = json.load(f)
	with open(os.path.join(args.out, 'console.log'), errors='replace') as f:
		secs = {m.group(1): m.group(2) for m in re.finditer(
			r'TOOSMALL:BEGIN (\S+)[^\n]*\n(.*?)TOOSMALL:END ', f.read(), re.S)}
	bad = 0
	count = {'caught': 0, 'unseen': 0, 'failure': 0, 'nofail': 0, 'xfail': 0,
		 'excused': 0}
	for t in run['tests']:
		text = secs.get(t['name'], '')
		if t['status'] == 'skip' and t['reason']:
			continue
		if 'xfail' in t:
			print('%s: %s, XFAIL %s' % (t['name'], t['status'], t['xfail']))
			count['xfail'] += 1
			continue
		if t['status'] != 'pass':
			print('%s: %s: %s' % (t['name'], t['status'], t['reason']))
			bad += 1
			continue
		s, f = MUTATE_SUCCESS.search(text), MUTATE_FAILURE.search(text)
		if not s or not f:
			print('%s: passed without its mutate lines: was --mutate ignored?' % t['name'])
			bad += 1
			continue
		if 'the others caught' in f.group(1):
			if not MUTATE_EXCUSED.search(text):
				print('%s: failure lies missed without a reason' % t['name'])
				bad += 1
				continue
			count['excused'] += 1
		count['caught' if s.group(1).startswith('caught') else 'unseen'] += 1
		count['failure' if f.group(1)[0].isdigit() else 'nofail'] += 1
	print('%d tests: the success lie caught in %d, not tried in %d (said why); '
	      'the failure lie caught in %d (in %d, failures that left a success\'s '
	      'state excepted, said why), not tried in %d (no failing point, '
	      'or said why); %d xfail (a written-up finding); %d wrong'
	      % (len(run['tests']), count['caught'], count['unseen'],
		 count['failure'], count['excused'], count['nofail'], count['xfail'], bad))
	return 1 if bad or not count['caught'] else 0


# ------------------------------------------------------------- self-check --

def load_selfcheck(path, profile):
	"""The cases of runner/selfcheck.tsv that run in @profile."""
	cases = []
	with open(path) as f:
		for line in f:
			if line.startswith('#') or not line.strip():
				continue
			name, profiles, timeout, status, splat, title = \
				line.rstrip('\n').split('\t')
			if profiles in ('any', profile):
				cases.append({'name': name, 'timeout': int(timeout),
					      'status': status, 'splat': splat,
					      'title': title})
	return cases


def selfcheck_case(case, t, margin):
	"""Why test @t does not match @case, or None."""
	if t is None:
		return 'not in the results'
	if t['status'] != case['status']:
		return 'status %s, want %s (%s)' % (t['status'], case['status'], t['reason'])
	kinds = [s for s in t['splats'] if s['kind'] == case['splat']]
	if case['splat'] == '-':
		if t['splats']:
			return 'unexpected splat %s: %s' % (t['splats'][0]['kind'], t['splats'][0]['title'])
		if case['title'] != '-' and not re.search(case['title'], t['reason'] or ''):
			return 'reason %r does not match %r' % (t['reason'], case['title'])
	elif not kinds:
		return 'no %s splat attributed (has: %s)' % (
			case['splat'], ', '.join(s['kind'] for s in t['splats']) or 'none')
	elif case['title'] != '-' and not re.search(case['title'], kinds[0]['title']):
		return '%s splat title %r does not match %r' % (case['splat'], kinds[0]['title'], case['title'])
	bound = case['timeout'] + margin
	if t['duration_s'] is None:
		return 'no duration: cannot tell it ended within %ds' % bound
	if t['duration_s'] > bound:
		return 'took %.1fs, bound %ds' % (t['duration_s'], bound)
	return None


def cmd_selfcheck(args):
	with open(args.results) as f:
		run = json.load(f)
	by_name = {t['name']: t for t in run['tests']}
	cases = load_selfcheck(args.cases, args.profile)
	bad = skipped = 0
	print('TAP version 13')
	print('1..%d' % len(cases))
	for n, case in enumerate(cases, 1):
		if case['name'] not in by_name:
			# The host writes every planned test into the log.
			print('ok %d %s # SKIP not planned (--filter)' % (n, case['name']))
			skipped += 1
			continue
		why = selfcheck_case(case, by_name.get(case['name']), args.margin)
		bad += why is not None
		t = by_name.get(case['name']) or {}
		detail = '%s in %ss' % (t.get('status'), t.get('duration_s'))
		print('%s %d %s # %s' % ('not ok' if why else 'ok', n, case['name'],
					why or detail))
	print('# self-check: %d of %d cases as expected' % (len(cases) - skipped - bad,
							       len(cases) - skipped))
	return 1 if bad else 0


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	sub = ap.add_subparsers(dest='cmd', required=True)
	p = sub.add_parser('plan')
	p.add_argument('binaries', nargs='+')
	p.add_argument('--filter', action='append')
	p.add_argument('--timeout', type=int, required=True,
		       help="each test's deadline, in seconds")
	p = sub.add_parser('parse')
	p.add_argument('log')
	p.add_argument('--output')
	p.add_argument('--known-issues')
	p.add_argument('--known-issues-any-kernel', action='store_true',
		       help='every entry applies, whatever its KERNELS says '
		       '(the user named the file)')
	p.add_argument('--durations', metavar='FILE',
		       help='record each test\'s time there, for --jobs')
	p.add_argument('--fio-needs', metavar='FILE',
		       help='record the fio jobs\' measured needs there, '
		       'for the next run\'s bisections')
	p = sub.add_parser('lanes')
	p.add_argument('plan')
	p.add_argument('n', type=int)
	p.add_argument('dir')
	p.add_argument('--durations')
	p.add_argument('--boot-conf')
	p.add_argument('--only', type=int)
	p.add_argument('--static', action='store_true',
		       help='ignore the durations: the same lanes on every machine')
	p = sub.add_parser('merge')
	p.add_argument('consoles', nargs='+')
	p.add_argument('--output', required=True)
	p = sub.add_parser('ksft')
	p.add_argument('tap')
	p.add_argument('cases', metavar='CASES_DIR')
	p.add_argument('programs', nargs='+')
	p.add_argument('--collection', default='mm/oom')
	p.add_argument('--label', default='{prog}')
	p.add_argument('--known-issues')
	p.add_argument('--kernel-kind', choices=('default', 'src', 'prebuilt'))
	p.add_argument('--vm', default='uml', choices=VMS)
	p.add_argument('--console')
	p = sub.add_parser('known')
	p.add_argument('names', nargs='*')
	p.add_argument('--known-issues', required=True)
	p.add_argument('--status', required=True)
	p.add_argument('--kernel-kind', default='default',
		       choices=('default', 'src', 'prebuilt'))
	p.add_argument('--vm', default='uml', choices=VMS)
	p = sub.add_parser('diff')
	p.add_argument('base', metavar='BASE_DIR')
	p.add_argument('patched', metavar='PATCHED_DIR')
	p.add_argument('--confirm-base', action='append', metavar='DIR')
	p.add_argument('--confirm-patched', action='append', metavar='DIR')
	p.add_argument('--output', metavar='FILE')
	p.add_argument('--candidates', action='store_true',
		       help='print the tests that differ, to be re-run')
	p = sub.add_parser('mutate')
	p.add_argument('out', metavar='OUTPUT_DIR')
	p = sub.add_parser('bootcause')
	p.add_argument('log')
	p.add_argument('--host-xsave', metavar='BYTES')
	p.add_argument('--kernel-fp', metavar='BYTES|dynamic')
	p = sub.add_parser('selfcheck')
	p.add_argument('results')
	p.add_argument('cases')
	p.add_argument('--profile', default='default')
	p.add_argument('--margin', type=int, default=40)
	args = ap.parse_args()
	if args.cmd == 'plan':
		return cmd_plan(args)
	if args.cmd == 'selfcheck':
		return cmd_selfcheck(args)
	if args.cmd == 'bootcause':
		return cmd_bootcause(args)
	if args.cmd == 'mutate':
		return cmd_mutate(args)
	if args.cmd == 'lanes':
		return cmd_lanes(args)
	if args.cmd == 'merge':
		return cmd_merge(args)
	if args.cmd == 'ksft':
		return cmd_ksft(args)
	if args.cmd == 'known':
		return cmd_known(args)
	if args.cmd == 'diff':
		import diff
		return diff.cmd_diff(args, write_atomic)
	return cmd_parse(args)


if __name__ == '__main__':
	sys.exit(main())
