#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plan, parse and report for the toosmall runner.

  toosmall.py plan SETTINGS BINARY...     print the run plan (one test a line)
  toosmall.py parse CONSOLE_LOG [--output DIR] [--known-issues FILE]
  toosmall.py selfcheck RESULTS_JSON CASES_TSV [--profile P] [--margin S]

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
import fnmatch
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

CATEGORIES = ('failnth', 'memcg', 'oom', 'xfs', 'fio', 'detect')
STATUSES = ('pass', 'fail', 'skip', 'hang', 'crash')

# printk.time=1 prefix, optional so that logs from other setups parse too.
PRINTK = r'^(?:<\d>)?(?:\[\s*\d+\.\d+\]\s*)?'

# Kernel splats, most specific first. (kind, regex on the line).
SPLATS = [
	('kasan', re.compile(PRINTK + r'(BUG: KASAN: .*)')),
	('kfence', re.compile(PRINTK + r'(BUG: KFENCE: .*)')),
	('soft_lockup', re.compile(PRINTK + r'(?:watchdog: )?(BUG: soft lockup .*)')),
	('bad_page', re.compile(PRINTK + r'(BUG: Bad page .*)')),
	('hung_task', re.compile(PRINTK + r'(INFO: task \S+ blocked for more than .*)')),
	('lock_held', re.compile(PRINTK + r'(?:WARNING: )?(.*lock held when returning to user space.*)')),
	('lockdep', re.compile(PRINTK + r'(WARNING: (?:possible circular locking dependency|possible recursive locking|inconsistent lock state|suspicious RCU usage|bad unlock balance).*)')),
	('kmemleak', re.compile(PRINTK + r'(unreferenced object .*)')),
	('bug', re.compile(PRINTK + r'(kernel BUG at .*)')),
	('gpf', re.compile(PRINTK + r'(general protection fault.*)')),
	('oops', re.compile(PRINTK + r'(Oops(?:: | - ).*)')),
	('panic', re.compile(PRINTK + r'(Kernel panic - not syncing: .*)')),
	('warning', re.compile(PRINTK + r'(WARNING: .*)')),
	('bug', re.compile(PRINTK + r'(BUG: .*)')),
]

# Lines that look alarming but are information: injected faults and the OOM
# killer doing its job. Checked before SPLATS.
INFO = re.compile(PRINTK + r'(FAULT_INJECTION: forcing a failure|'
		  r'.* invoked oom-killer:|Out of memory|Memory cgroup out of memory|'
		  r'oom-kill:|oom_reaper:)')

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
	r'vma_alloc_folio\w*|filemap_alloc_folio\w*|kmem_cache_alloc\w*|__?kmalloc\w*|'
	r'kmalloc\w*|kzalloc\w*|kcalloc\w*|krealloc\w*|__?kvmalloc\w*|kvzalloc\w*|'
	r'kmemdup\w*|kstrn?dup\w*|__?vmalloc\w*|__get_free_pages|get_zeroed_page\w*|'
	r'_*slab_\w*|new_slab|allocate_slab|alloc_slab_page|mempool_alloc\w*|'
	r'um_set_signals|get_fp_registers)$')

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


def cmd_plan(args):
	timeout = 45
	with open(args.settings) as f:
		for line in f:
			m = re.match(r'^timeout=(\d+)', line)
			if m:
				timeout = int(m.group(1))
	if args.timeout:
		timeout = args.timeout
	for binary in args.binaries:
		prog = os.path.basename(binary)
		short = prog[:-5] if prog.endswith('_test') else prog
		for hname in harness_tests(binary):
			# The harness's "global" fixture (plain TEST()) adds nothing.
			tname = hname[7:] if hname.startswith('global.') else hname
			name = '%s.%s' % (short, tname)
			if args.filter and not any(fnmatch.fnmatchcase(name, g) for g in args.filter):
				continue
			print('\t'.join((name, prog, hname, str(timeout), category_of(name))))


# --------------------------------------------------------------- parse ----

def new_test(name, category, timeout):
	return {'name': name, 'category': category, 'status': 'crash',
		'duration_s': None, 'reason': 'never started', 'splats': [],
		'metrics': {}, 'timeout_s': timeout, '_result': None,
		'_begun': False, '_ended': False, '_log': []}


def parse_log(lines):
	"""The results model from console lines (see module doc)."""
	run = {'kernel': {}, 'mem': None, 'tests': [], 'boot': {'splats': []},
	       'notes': []}
	by_name = {}
	cur = None		# test whose output we are reading
	open_splat = None	# splat collecting its excerpt
	fault = None		# injected fault whose call site is not found yet
	evidence = None		# test collecting host evidence
	t_begin = None

	def add_splat(test, kind, title, lineno):
		splat = {'kind': kind, 'title': title.strip(), 'line': lineno,
			 'excerpt': [title.strip()]}
		(test['splats'] if test else run['boot']['splats']).append(splat)
		return splat

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
			elif words[0] in ('boot', 'run', 'guest'):
				if words[0] == 'boot' and 'ended' in words:
					cur = None
					evidence = None
					open_splat = None
				elif words[0] != 'boot':
					run['notes'].append(host)
			if evidence is not None and words[0] == 'mconsole:':
				evidence['evidence'].append(host)
			continue

		if evidence is not None and len(evidence['evidence']) < MAX_EVIDENCE:
			evidence['evidence'].append(line)

		m = re.search(r'TOOSMALL:(BEGIN|END|READY|DONE|ERROR|STUCK)\b ?(.*)', line)
		if m:
			what, rest = m.group(1), m.group(2).split()
			if what == 'BEGIN' and rest:
				cur = by_name.get(rest[0])
				if cur is None:
					cur = new_test(rest[0], category_of(rest[0]), 0)
					run['tests'].append(cur)
					by_name[rest[0]] = cur
				cur['_begun'] = True
				cur['reason'] = 'no result line: the guest died or hung'
				open_splat = None
			elif what == 'END' and rest and rest[0] in by_name:
				t = by_name[rest[0]]
				t['_ended'] = True
				rc = rest[1][3:] if len(rest) > 1 and rest[1].startswith('rc=') else '?'
				t['_rc'] = rc
				for w in rest[2:]:
					if w.startswith('secs='):
						t['duration_s'] = float(w[5:])
			elif what == 'STUCK' and rest and rest[0] in by_name:
				# The guest could not kill what the test left: the
				# blocked-task dump that follows is the evidence.
				t = by_name[rest[0]]
				t['_stuck'] = ' '.join(rest[1:])
				evidence = t
				t.setdefault('evidence', [])
			elif what == 'READY':
				run['kernel'].setdefault('release', dict(w.split('=', 1) for w in rest if '=' in w).get('release'))
			continue

		if fault is not None:
			fm = FRAME.match(line)
			if fm and not fm.group(1) and not NOT_A_SITE.match(fm.group(2).split('.')[0]):
				site = fm.group(2).split('.')[0]
				sites = fault.setdefault('_sites', {})
				sites[site] = sites.get(site, 0) + 1
				fault = None
			elif not fm and not re.search(r'(Call Trace:|Stack:|CPU: |name \w+, interval|^(?:\[\s*\d+\.\d+\]\s*)?\s+[0-9a-f]{8}( |$))', line):
				fault = None
		if INFO.match(line):
			open_splat = None
			if cur is not None and 'FAULT_INJECTION' in line:
				fault = cur
				cur['_faults'] = cur.get('_faults', 0) + 1
			continue
		for kind, rx in SPLATS:
			sm = rx.match(line)
			if sm:
				open_splat = add_splat(cur, kind, sm.group(1), lineno)
				break
		else:
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

	for t in run['tests']:
		judge(t)
	run['totals'] = {s: sum(1 for t in run['tests'] if t['status'] == s)
			 for s in STATUSES}
	fn = failnth_totals(run['tests'])
	if fn:
		run['failnth'] = fn
	every = {}
	for t in run['tests']:
		for site, n in t.get('sites', {}).get('by_site', {}).items():
			every[site] = every.get(site, 0) + n
	if every:
		run['sites'] = {'distinct': len(every),
				'faults_dumped': sum(every.values()),
				'by_site': dict(sorted(every.items()))}
	return run


def failnth_totals(tests):
	"""The fail-nth figures of a run: points, sweep rate, and whether each
	scenario's points add up across the modes (both = slab + page)."""
	sweeps = {}
	for t in tests:
		for key, m in t['metrics'].get('failnth', {}).items():
			if 'points' in m:
				sweeps[key] = m
	if not sweeps:
		return None
	points = sum(m['points'] for m in sweeps.values())
	secs = sum(m.get('secs', 0) for m in sweeps.values())
	modes = {}
	for key, m in sweeps.items():
		scen, _, mode = key.rpartition('.')
		modes.setdefault(scen, {})[mode] = m['points']
	apart = sorted('%s: both %d, slab %d + page %d' % (scen, md['both'], md['slab'], md['page'])
		       for scen, md in modes.items()
		       if {'both', 'slab', 'page'} <= set(md) and md['both'] != md['slab'] + md['page'])
	return {'sweeps': len(sweeps), 'scenarios': len(modes), 'points': points,
		'secs': round(secs, 3), 'points_per_s': round(points / secs, 1) if secs else None,
		'modes_apart': apart}


def judge(t):
	"""Turn what was seen of one test into its status and reason."""
	res = t.pop('_result')
	begun, ended = t.pop('_begun'), t.pop('_ended')
	hang = t.pop('_hang', None)
	killed = t.pop('_killed', None)
	stuck = t.pop('_stuck', None)
	rc = t.pop('_rc', None)
	log = t.pop('_log')
	t.pop('_tail', None)
	faults, sites = t.pop('_faults', 0), t.pop('_sites', {})
	if faults:
		# Faults dumped, not points: the dump skips __GFP_NOWARN ones.
		t['sites'] = {'faults_dumped': faults, 'distinct': len(sites),
			      'by_site': dict(sorted(sites.items()))}
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
			t['reason'] = failure_reason(log)
	if t['splats'] and t['status'] in ('pass', 'skip', 'fail'):
		kinds = ', '.join(sorted({s['kind'] for s in t['splats']}))
		first = t['splats'][0]['title']
		extra = 'kernel splat (%s): %s' % (kinds, first)
		t['reason'] = extra if t['status'] != 'fail' else '%s; %s' % (t['reason'], extra)
		t['status'] = 'fail'


def failure_reason(log):
	"""The harness's own words for a failure: its first assertion message."""
	for i, line in enumerate(log):
		if re.match(r'^# \S+:\d+:', line):
			tail = [l[2:] for l in log[i + 1:i + 3] if l.startswith('# ') and
				not re.match(r'^#\s+(FAIL|OK)\s', l)]
			return ' '.join([line[2:]] + tail)[:300]
	return 'test reported not ok'


# ----------------------------------------------------------- known issues --

def load_known(path):
	"""Lines 'GLOB STATUS FINDING-ID [/REGEX/] free text': a test matching
	GLOB whose verdict is STATUS (and whose reason or a splat title matches
	REGEX, when given) is the written-up finding FINDING-ID (FINDINGS.md)."""
	known = []
	with open(path) as f:
		for n, line in enumerate(f, 1):
			line = line.split('#', 1)[0].strip() if line.lstrip().startswith('#') else line.strip()
			if not line:
				continue
			parts = line.split(None, 3)
			if len(parts) < 3 or parts[1] not in STATUSES:
				raise SystemExit('%s:%d: want "GLOB STATUS FINDING [text]"' % (path, n))
			text = parts[3] if len(parts) > 3 else ''
			sig = None
			if text.startswith('/'):
				end = text.find('/', 1)
				if end < 0:
					raise SystemExit('%s:%d: unterminated /REGEX/' % (path, n))
				try:
					sig = re.compile(text[1:end])
				except re.error as e:
					raise SystemExit('%s:%d: bad /REGEX/: %s' % (path, n, e))
				text = text[end + 1:].strip()
			known.append((parts[0], parts[1], parts[2], text, sig))
	return known


def apply_known(run, known):
	"""A test is XFAIL when a line matches both its name and its status: a
	test that can end two ways, each a finding, has a line for each."""
	for t in run['tests']:
		seen = [t['reason']] + [sp['title'] for sp in t['splats']]
		for glob, status, fid, text, sig in known:
			if not fnmatch.fnmatchcase(t['name'], glob) or t['status'] != status:
				continue
			if sig and not any(sig.search(x) for x in seen):
				continue
			t['xfail'] = '%s %s' % (fid, text)
			break
	run['totals']['xfail'] = sum(1 for t in run['tests'] if 'xfail' in t)


# ------------------------------------------------------------- reporters --

def ktap(run):
	out = ['KTAP version 1', '1..%d' % len(run['tests'])]
	for i, t in enumerate(run['tests'], 1):
		st, why = t['status'], t['reason'].replace('\n', ' ')
		if 'xfail' in t:
			line = 'not ok %d %s # XFAIL %s (%s)' % (i, t['name'], t['xfail'], st)
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
		st = t['status'] + (' (xfail)' if 'xfail' in t else '')
		dur = '%.1fs' % t['duration_s'] if t['duration_s'] is not None else '-'
		why = t.get('xfail') or t['reason']
		rows.append((t['name'], t['category'], st, dur, why[:70]))
	w = [max(len(r[i]) for r in rows) for i in range(4)]
	lines = ['  '.join(r[i].ljust(w[i]) for i in range(4)) + '  ' + r[4] for r in rows]
	fn = run.get('failnth')
	if fn:
		lines.append('')
		lines.append('fail-nth: %d points in %d sweeps of %d scenarios, %.1f s, %s points/s' %
			     (fn['points'], fn['sweeps'], fn['scenarios'], fn['secs'], fn['points_per_s']))
		if fn['modes_apart']:
			lines.append('  points of both modes != slab + page (%d scenarios), e.g. %s' %
				     (len(fn['modes_apart']), fn['modes_apart'][0]))
	if run.get('sites'):
		lines.append('call sites failed (--sites): %d distinct, %d dumped faults' %
			     (run['sites']['distinct'], run['sites']['faults_dumped']))
		top = sorted(run['sites']['by_site'].items(), key=lambda kv: -kv[1])[:10]
		lines.append('  most often: ' + ', '.join('%s %d' % kv for kv in top))
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
	return line, bad


def junit(run):
	tot = run['totals']
	suite = ET.Element('testsuite', name='toosmall', tests=str(len(run['tests'])),
			   failures=str(tot['fail']), errors=str(tot['hang'] + tot['crash']),
			   skipped=str(tot['skip']))
	for t in run['tests']:
		case = ET.SubElement(suite, 'testcase', classname=t['category'], name=t['name'],
				     time='%.3f' % (t['duration_s'] or 0))
		st = t['status']
		if st == 'skip':
			ET.SubElement(case, 'skipped', message=t['reason'])
		elif st == 'fail':
			ET.SubElement(case, 'failure', message=t['reason'])
		elif st in ('hang', 'crash'):
			e = ET.SubElement(case, 'error', type=st, message=t['reason'])
			e.text = '\n'.join(t.get('evidence', [])[:200])
		if t['splats']:
			so = ET.SubElement(case, 'system-out')
			so.text = '\n\n'.join('\n'.join(s['excerpt']) for s in t['splats'])
	return ET.tostring(suite, encoding='unicode') + '\n'


def write_atomic(path, text):
	tmp = path + '.tmp'
	with open(tmp, 'w') as f:
		f.write(text)
	os.replace(tmp, path)


def cmd_parse(args):
	try:
		with open(args.log, errors='replace') as f:
			run = parse_log(f)
	except OSError as e:
		print('toosmall: error: %s: %s: pass a console.log' % (args.log, e.strerror),
		      file=sys.stderr)
		return 2
	apply_known(run, load_known(args.known_issues) if args.known_issues else [])
	line, bad = totals_line(run)
	if args.output:
		write_atomic(os.path.join(args.output, 'results.json'),
			     json.dumps(run, indent=1) + '\n')
		write_atomic(os.path.join(args.output, 'results.ktap'), ktap(run))
		write_atomic(os.path.join(args.output, 'junit.xml'), junit(run))
	sys.stdout.write(ktap(run))
	sys.stdout.write('\n' + summary(run) + '\n')
	print(line)
	return 1 if bad else 0


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
	p.add_argument('settings')
	p.add_argument('binaries', nargs='+')
	p.add_argument('--filter', action='append')
	p.add_argument('--timeout', type=int)
	p = sub.add_parser('parse')
	p.add_argument('log')
	p.add_argument('--output')
	p.add_argument('--known-issues')
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
	return cmd_parse(args)


if __name__ == '__main__':
	sys.exit(main())
