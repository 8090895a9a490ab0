#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the parser and reporters, on the console logs in fixtures/logs.

Each fixtures/logs/NAME.log has a NAME.expect beside it, one line a test:
    TEST-NAME STATUS [SPLAT-KIND,...]
and a last line
    totals pass=N fail=N skip=N hang=N crash=N
A log's first lines say where it came from (captured from a real run, or
assembled from real kernel output, and which).

  test_toosmall.py                       run the tests
  test_toosmall.py --check-run DIR KNOWN  check a real run's results.json:
      every test passed, skipped with a reason, or is a known finding that
      names an entry of FINDINGS.md
"""

import glob
import io
import json
import os
import re
import sys
import unittest
import xml.etree.ElementTree as ET
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import toosmall  # noqa: E402

LOGS = os.path.join(TOP, 'fixtures', 'logs')


def parse_file(path):
	with open(path, errors='replace') as f:
		return toosmall.parse_log(f)


def read_expect(path):
	tests, totals = {}, {}
	with open(path) as f:
		for line in f:
			words = line.split()
			if not words or words[0].startswith('#'):
				continue
			if words[0] == 'totals':
				totals = {k: int(v) for k, v in (w.split('=') for w in words[1:])}
				continue
			kinds = sorted(words[2].split(',')) if len(words) > 2 else []
			tests[words[0]] = (words[1], kinds)
	return tests, totals


class CapturedLogs(unittest.TestCase):
	"""Every captured log gives exactly the verdicts in its .expect."""

	def test_logs(self):
		logs = sorted(glob.glob(os.path.join(LOGS, '*.log')))
		self.assertGreaterEqual(len(logs), 11, 'fixtures/logs is missing logs')
		for log in logs:
			with self.subTest(log=os.path.basename(log)):
				run = parse_file(log)
				want, totals = read_expect(log[:-4] + '.expect')
				got = {t['name']: (t['status'], sorted({s['kind'] for s in t['splats']}))
				       for t in run['tests']}
				self.assertEqual(want, got)
				self.assertEqual(totals, {k: run['totals'][k] for k in toosmall.STATUSES})
				for t in run['tests']:
					if t['status'] != 'pass':
						self.assertTrue(t['reason'], '%s has no reason' % t['name'])


class Attribution(unittest.TestCase):
	def lines(self, *body):
		plan = ['TOOSMALL-HOST: plan a.one failnth 10',
			'TOOSMALL-HOST: plan a.two failnth 10']
		return toosmall.parse_log(plan + list(body))

	def test_splat_after_ok_fails_the_test_that_ran(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', 'ok 1 one',
				 '[    1.000000] WARNING: CPU: 0 PID: 5 at mm/slub.c:1 f+0x0/0x1',
				 'TOOSMALL:END a.one rc=0',
				 'TOOSMALL:BEGIN a.two timeout=10', 'ok 1 two',
				 'TOOSMALL:END a.two rc=0')
		self.assertEqual(['fail', 'pass'], [t['status'] for t in run['tests']])
		self.assertEqual('warning', run['tests'][0]['splats'][0]['kind'])
		self.assertIn('mm/slub.c:1', run['tests'][0]['reason'])

	def test_injected_fault_and_oom_report_are_not_splats(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10',
				 '[    1.0] FAULT_INJECTION: forcing a failure.',
				 '[    1.0] name failslab, interval 1, probability 0, space 0, times -1',
				 '[    1.1] a.out invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0',
				 '[    1.2] Memory cgroup out of memory: Killed process 7 (a.out)',
				 'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual('pass', run['tests'][0]['status'])
		self.assertEqual([], run['tests'][0]['splats'])

	def test_user_output_saying_bug_is_not_a_splat(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10',
				 '# BUG: this is a test diagnostic, not the kernel',
				 'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual('pass', run['tests'][0]['status'])

	def test_marker_glued_to_kernel_line_still_counts(self):
		run = self.lines('[    1.0] hostfs: something TOOSMALL:BEGIN a.one timeout=10',
				 'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual('pass', run['tests'][0]['status'])

	def test_guest_timeout_is_a_hang(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', '#  RUN  one ...',
				 'TOOSMALL:END a.one rc=124')
		self.assertEqual('hang', run['tests'][0]['status'])

	def test_unplanned_tests_are_never_started_crashes(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', 'ok 1 one',
				 'TOOSMALL:END a.one rc=0')
		self.assertEqual(['pass', 'crash'], [t['status'] for t in run['tests']])
		self.assertIn('never started', run['tests'][1]['reason'])

	def test_stall_after_a_flood_is_still_a_hang(self):
		flood = ['[    1.190000] Out of memory and no killable processes...'] * 3000
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', *flood,
				 '# stall: x: no progress for 8010 ms',
				 '[    9.0] sysrq: Show Blocked State',
				 'not ok 1 one', 'TOOSMALL:END a.one rc=1')
		t = run['tests'][0]
		self.assertEqual('hang', t['status'])
		self.assertIn('sysrq: Show Blocked State', '\n'.join(t['evidence']))

	def test_metrics_line(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10',
				 '# failnth open_creat: points=12 success=3 errno=9 (ENOMEM:7 ENOSPC:2) rate=150.5',
				 'ok 1 one', 'TOOSMALL:END a.one rc=0')
		m = run['tests'][0]['metrics']['failnth']['open_creat']
		self.assertEqual(12, m['points'])
		self.assertEqual({'ENOMEM': 7, 'ENOSPC': 2}, m['errnos'])
		self.assertEqual(150.5, m['rate'])


class Sites(unittest.TestCase):
	"""--sites: each dumped fault is charged to its first frame outside the
	dump, fault-injection and allocator code (fixtures/logs/sites.log)."""

	def test_call_sites_of_tmpfs_create(self):
		run = parse_file(os.path.join(LOGS, 'sites.log'))
		both = run['tests'][0]['sites']
		# 5 points, one of them a __GFP_NOWARN allocation with no dump.
		self.assertEqual(4, both['faults_dumped'])
		self.assertEqual({'__d_alloc', 'alloc_empty_file', 'getname_flags',
				  'shmem_alloc_inode'}, set(both['by_site']))
		self.assertNotIn('sites', run['tests'][2])
		self.assertEqual(4, run['sites']['distinct'])

	def test_modes_add_up(self):
		run = parse_file(os.path.join(LOGS, 'sites.log'))
		self.assertEqual(10, run['failnth']['points'])
		self.assertEqual([], run['failnth']['modes_apart'])

	def test_stale_frame_is_not_a_site(self):
		run = Attribution.lines(None, 'TOOSMALL:BEGIN a.one timeout=10',
					'[    1.0] FAULT_INJECTION: forcing a failure.',
					'[    1.0] Call Trace:',
					'[    1.0]  [<6019c525>] ? alloc_empty_file+0x65/0x150',
					'[    1.0]  [<60174554>] kmem_cache_alloc_noprof+0x44/0x2f0',
					'[    1.0]  [<601b0bdc>] path_openat+0x3c/0x1400',
					'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual({'path_openat': 1}, run['tests'][0]['sites']['by_site'])


class Reporters(unittest.TestCase):
	def run_of(self, name):
		return parse_file(os.path.join(LOGS, name))

	def test_ktap_has_plan_and_one_line_per_test(self):
		for log in sorted(glob.glob(os.path.join(LOGS, '*.log'))):
			run = parse_file(log)
			k = toosmall.ktap(run).splitlines()
			self.assertEqual('KTAP version 1', k[0])
			self.assertEqual('1..%d' % len(run['tests']), k[1])
			results = [l for l in k if re.match(r'^(not )?ok \d+ ', l)]
			self.assertEqual(len(run['tests']), len(results))

	def test_junit_is_xml_with_counts(self):
		for log in sorted(glob.glob(os.path.join(LOGS, '*.log'))):
			run = parse_file(log)
			root = ET.fromstring(toosmall.junit(run))
			self.assertEqual(str(len(run['tests'])), root.get('tests'))

	def test_totals_line_counts_hang_and_crash_as_failed(self):
		run = toosmall.parse_log(['TOOSMALL-HOST: plan x.a other 5',
					  'TOOSMALL-HOST: plan x.b other 5',
					  'TOOSMALL:BEGIN x.a timeout=5',
					  'TOOSMALL-HOST: hang x.a after its deadline'])
		line, bad = toosmall.totals_line(run)
		self.assertEqual('0 passed, 2 failed, 0 skipped', line)

	def test_known_issue_is_xfail_visibly(self):
		run = toosmall.parse_log(['TOOSMALL-HOST: plan x.a other 5',
					  'TOOSMALL:BEGIN x.a timeout=5', 'not ok 1 a',
					  'TOOSMALL:END x.a rc=1'])
		toosmall.apply_known(run, [('x.*', 'fail', 'F1', 'a finding', None)])
		line, bad = toosmall.totals_line(run)
		self.assertEqual(0, bad)
		self.assertIn('1 xfail', line)
		self.assertIn('# XFAIL F1', toosmall.ktap(run))

	def test_known_issue_with_other_status_still_fails(self):
		run = toosmall.parse_log(['TOOSMALL-HOST: plan x.a other 5',
					  'TOOSMALL:BEGIN x.a timeout=5',
					  'TOOSMALL-HOST: hang x.a after its deadline'])
		toosmall.apply_known(run, [('x.*', 'fail', 'F1', 'a finding', None)])
		self.assertEqual(1, toosmall.totals_line(run)[1])


	def test_known_issue_signature_must_match(self):
		lines = ['TOOSMALL-HOST: plan x.a other 5', 'TOOSMALL:BEGIN x.a timeout=5',
			 '[    1.0] Kernel panic - not syncing: Kernel mode fault at addr 0x40e, ip 0x6002407b']
		with open(os.path.join(os.environ.get('TMPDIR', '/tmp'), 'known-%d' % os.getpid()), 'w+') as f:
			f.write('x.*\tcrash\tF2\t/addr 0x40e/ fork\n')
			f.flush()
			known = toosmall.load_known(f.name)
		os.unlink(f.name)
		run = toosmall.parse_log(lines)
		toosmall.apply_known(run, known)
		self.assertIn('xfail', run['tests'][0])
		run = toosmall.parse_log([l.replace('0x40e', '0x0') for l in lines])
		toosmall.apply_known(run, known)
		self.assertNotIn('xfail', run['tests'][0])


def check_run(outdir, known_path):
	"""A real run's verdicts against the written-up findings."""
	with open(os.path.join(outdir, 'results.json')) as f:
		run = json.load(f)
	findings = open(os.path.join(TOP, 'FINDINGS.md')).read() \
		if os.path.exists(os.path.join(TOP, 'FINDINGS.md')) else ''
	known = toosmall.load_known(known_path) if os.path.exists(known_path) else []
	problems = []
	for glob_, status, fid, _, _ in known:
		if not re.search(r'^#+ *%s\b' % re.escape(fid), findings, re.M):
			problems.append('known-issues names %s, which FINDINGS.md lacks' % fid)
	if not run['tests']:
		problems.append('the run has no tests')
	for t in run['tests']:
		if t['status'] == 'pass':
			continue
		if t['status'] == 'skip':
			if not t['reason']:
				problems.append('%s skipped without a reason' % t['name'])
			continue
		if 'xfail' in t:
			print('XFAIL %s: %s' % (t['name'], t['xfail']))
			continue
		problems.append('%s: %s (%s) is not a written-up finding: write it up in '
				'FINDINGS.md and known-issues' % (t['name'], t['status'], t['reason']))
		problems.extend(excerpt(outdir, t['name']))
	for p in problems:
		print(p)
	return 1 if problems else 0


def excerpt(outdir, name, most=40):
	"""What a test said on the console (its "# " lines, the last @most):
	the evidence to write a finding up from, where only this is kept (CI)."""
	try:
		with open(os.path.join(outdir, 'console.log'), errors='replace') as f:
			log = f.read()
	except OSError:
		return []
	m = re.search(r'TOOSMALL:BEGIN %s[^\n]*\n(.*?)(?:TOOSMALL:END |TOOSMALL-HOST: boot \d+ ended|\Z)'
		      % re.escape(name), log, re.S)
	if not m:
		return []
	lines = [ln for ln in m.group(1).splitlines() if ln.startswith('#')]
	return ['  | ' + ln for ln in lines[-most:]]


if __name__ == '__main__':
	if len(sys.argv) == 4 and sys.argv[1] == '--check-run':
		sys.exit(check_run(sys.argv[2], sys.argv[3]))
	unittest.main()
