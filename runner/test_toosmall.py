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
      names an entry of FINDINGS.md; a pass that an entry expected to fail
      (XPASS) is a stale known-issues entry and fails the check
"""

import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile
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


def known_of(text):
	"""toosmall.load_known() of a known-issues file holding @text."""
	path = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'known-%d' % os.getpid())
	with open(path, 'w') as f:
		f.write(text)
	try:
		return toosmall.load_known(path)
	finally:
		os.unlink(path)


def toosmall_cli(*args):
	"""Exit status and stdout of runner/toosmall.py ARGS."""
	p = subprocess.run([sys.executable, os.path.join(HERE, 'toosmall.py')] + list(args),
			   capture_output=True, text=True)
	return p.returncode, p.stdout


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
		# A guest that finished: without DONE the run itself failed
		# (run.kernel), which these tests are not about.
		plan = ['TOOSMALL-HOST: plan a.one failnth 10',
			'TOOSMALL-HOST: plan a.two failnth 10']
		return toosmall.parse_log(plan + list(body) + ['TOOSMALL:DONE'])

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

	def test_ubsan_and_rcu_stall_are_splats(self):
		# Lines in the formats of lib/ubsan.c, kernel/rcu/tree_stall.h,
		# mm/kmemleak.c and net/core/dev.c (6.12): there is no UBSAN,
		# no stall, no kmemleak giving up and no leaked netdev reference
		# to provoke, so they are written, not captured.
		for line, kind in (
				('[    2.0] UBSAN: shift-out-of-bounds in mm/slub.c:12:3', 'ubsan'),
				('[   23.0] rcu: INFO: rcu_sched self-detected stall on CPU', 'rcu_stall'),
				('[   23.0] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:', 'rcu_stall'),
				('[   23.0] rcu: INFO: rcu_sched detected stall, but suppressed full report '
				 'due to a stuck CSD-lock.', 'rcu_stall'),
				('[   23.0] INFO: rcu_tasks_trace detected stalls? (Late IPI?)', 'rcu_stall'),
				('[    9.0] kmemleak: Kernel memory leak detector disabled', 'kmemleak_off'),
				('[   21.0] unregister_netdevice: waiting for lo to become free. Usage count = 2',
				 'netdev_ref')):
			run = self.lines('TOOSMALL:BEGIN a.one timeout=10', line, 'ok 1 one',
					 'TOOSMALL:END a.one rc=0')
			t = run['tests'][0]
			self.assertEqual('fail', t['status'], line)
			self.assertEqual(kind, t['splats'][0]['kind'], line)

	def test_every_splat_kind_passes_the_hint(self):
		# SPLAT_HINT lets a line reach SPLATS: a kind whose lines it
		# missed would never be reported. One written line per kind,
		# and every kind has one (a new kind needs its line here).
		cases = (
			('[    1.0] BUG: KASAN: slab-out-of-bounds in f+0x0/0x1', 'kasan'),
			('[    1.0] BUG: KFENCE: use-after-free read in f+0x0/0x1', 'kfence'),
			('[    1.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a.out:5]',
			 'soft_lockup'),
			('[    1.0] BUG kmalloc-64 (Not tainted): Object already free', 'slub'),
			('[    1.0] BUG: Bad page state in process a.out  pfn:01234', 'bad_page'),
			('[    1.0] INFO: task a.out:5 blocked for more than 120 seconds.', 'hung_task'),
			('[    1.0] WARNING: lock held when returning to user space!', 'lock_held'),
			('[    1.0] WARNING: possible circular locking dependency detected', 'lockdep'),
			('[    1.0] unreferenced object 0x6a5c1f00 (size 64):', 'kmemleak'),
			('[    9.0] kmemleak: Kernel memory leak detector disabled', 'kmemleak_off'),
			('[    2.0] UBSAN: shift-out-of-bounds in mm/slub.c:12:3', 'ubsan'),
			('[   23.0] INFO: rcu_tasks_trace detected stalls? (Late IPI?)', 'rcu_stall'),
			('[    1.0] XFS (ubda): Internal error xfs_trans_cancel at line 1097 of '
			 'file fs/xfs/xfs_trans.c.', 'xfs'),
			('[   21.0] unregister_netdevice: waiting for lo to become free. Usage count = 2',
			 'netdev_ref'),
			('[    1.0] kernel BUG at mm/slub.c:12!', 'bug'),
			('[    1.0] general protection fault, probably for non-canonical address',
			 'gpf'),
			('[    1.0] Oops: 0000 [#1] PREEMPT SMP', 'oops'),
			('[    1.0] Kernel panic - not syncing: Fatal exception', 'panic'),
			('[    1.0] WARNING: CPU: 0 PID: 5 at mm/slub.c:1 f+0x0/0x1', 'warning'),
			('[    1.0] BUG: unable to handle page fault for address: 0000', 'bug'))
		self.assertEqual({k for k, _ in toosmall.SPLATS}, {k for _, k in cases})
		for line, kind in cases:
			self.assertTrue(toosmall.SPLAT_HINT.search(line), line)
			run = self.lines('TOOSMALL:BEGIN a.one timeout=10', line, 'ok 1 one',
					 'TOOSMALL:END a.one rc=0')
			self.assertEqual(kind, run['tests'][0]['splats'][0]['kind'], line)

	def test_lockdep_reports_without_warning_header(self):
		# kernel/locking/lockdep.c (6.12): two reports that say neither
		# WARNING: nor BUG:, and one that says INFO: like the
		# information lockdep prints after every report.
		for line, kind in (
				('[    1.0] [ BUG: Invalid wait context ]', 'lockdep'),
				('[    1.0] INFO: trying to register non-static key.', 'lockdep'),
				('[    1.0] WARNING: possible irq lock inversion dependency detected', 'lockdep'),
				('[    1.0] WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected', 'lockdep'),
				('[    1.0] WARNING: held lock freed!', 'lockdep'),
				('[    1.0] WARNING: a.out/61 still has locks held!', 'lockdep'),
				('[    1.0] INFO: lockdep is turned off.', None)):
			run = self.lines('TOOSMALL:BEGIN a.one timeout=10', line, 'ok 1 one',
					 'TOOSMALL:END a.one rc=0')
			t = run['tests'][0]
			self.assertEqual([kind] if kind else [],
					 [s['kind'] for s in t['splats']], line)

	def test_slub_report_is_a_splat(self):
		# mm/slub.c __slab_bug() (6.12): "BUG" and no colon; its FIX
		# lines say what SLUB repaired and are part of the report.
		for line, kind in (
				('[    1.0] BUG kmalloc-64 (Not tainted): Object already free', 'slub'),
				('[    1.0] BUG kmalloc-rnd-01-32 (Tainted: G    B   ): Right Redzone overwritten', 'slub'),
				('[    1.0] FIX kmalloc-64: Object at 0x6a4b1e00 not freed', None),
				('[    1.0] BUG: KASAN: double-free in kfree+0x1/0x2', 'kasan')):
			run = self.lines('TOOSMALL:BEGIN a.one timeout=10', line, 'ok 1 one',
					 'TOOSMALL:END a.one rc=0')
			self.assertEqual([kind] if kind else [],
					 [s['kind'] for s in run['tests'][0]['splats']], line)

	def test_xfs_reports_are_splats(self):
		# fs/xfs (6.12): an internal error, a verifier's, a shutdown, an
		# ASSERT_ALWAYS(); not what a sound mount or recovery says.
		for line, kind in (
				('[    1.0] XFS (ubda): Internal error xfs_trans_cancel at line 978 of file '
				 'fs/xfs/xfs_trans.c.  Caller xfs_create+0x2c0/0x5b0', 'xfs'),
				('[    1.0] XFS (ubda): Metadata corruption detected at xfs_dinode_verify+0x1/0x2, '
				 'inode 0x83 dinode', 'xfs'),
				('[    1.0] XFS (ubda): Metadata CRC error detected at xfs_agf_read_verify+0x1/0x2, '
				 'xfs_agf block 0x1 ', 'xfs'),
				('[    1.0] XFS (ubda): Log I/O Error (0x2) detected at xlog_ioend_work+0x1/0x2 '
				 '(fs/xfs/xfs_log.c:1234).  Shutting down filesystem.', 'xfs'),
				('[    1.0] XFS (ubda): Filesystem has been shut down due to log error (0x2).', 'xfs'),
				('[    1.0] XFS: Assertion failed: !xfs_iflags_test(ip, XFS_ALL_IRECLAIM_FLAGS), '
				 'file: fs/xfs/xfs_icache.c, line: 2198', 'xfs'),
				('[    1.0] XFS (ubda): Mounting V5 Filesystem 0d3c5a1e-7a4e-4d0c-9e1e-1f0c6c3a2b10', None),
				('[    1.0] XFS (ubda): Starting recovery (logdev: internal)', None),
				('[    1.0] XFS (ubda): Unmounting Filesystem 0d3c5a1e-7a4e-4d0c-9e1e-1f0c6c3a2b10', None)):
			run = self.lines('TOOSMALL:BEGIN a.one timeout=10', line, 'ok 1 one',
					 'TOOSMALL:END a.one rc=0')
			self.assertEqual([kind] if kind else [],
					 [s['kind'] for s in run['tests'][0]['splats']], line)
		# F8's console: the error report and the shutdown are a splat
		# each; "Corruption detected" and "Please unmount" belong to them.
		run = parse_file(os.path.join(LOGS, 'xfs-shutdown.log'))
		titles = [s['title'] for s in run['tests'][0]['splats']]
		self.assertEqual(2, len(titles), titles)
		self.assertTrue(titles[0].startswith('XFS (ubda): Internal error xfs_trans_cancel '))
		self.assertTrue(titles[1].startswith('XFS (ubda): Corruption of in-memory data (0x8) '))

	def test_ok_then_a_signal_or_an_exit_code_is_no_pass(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', 'ok 1 one',
				 'TOOSMALL:END a.one rc=139',
				 'TOOSMALL:BEGIN a.two timeout=10', 'ok 1 two # SKIP no knob',
				 'TOOSMALL:END a.two rc=1')
		one, two = run['tests']
		self.assertEqual(('fail', 'fail'), (one['status'], two['status']))
		self.assertIn('killed by SIGSEGV', one['reason'])
		self.assertIn('exited with 1', two['reason'])

	def test_end_without_its_seconds_still_parses(self):
		# A guest whose root went away cannot run awk: "secs=" is empty.
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10',
				 "timeout: failed to run command './a': Invalid argument",
				 'TOOSMALL:END a.one rc=126 secs=')
		self.assertEqual('fail', run['tests'][0]['status'])
		self.assertIn('126', run['tests'][0]['reason'])

	def test_a_test_that_takes_the_root_with_it_fails(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', 'ok 1 one',
				 'TOOSMALL:ROOTLOST a.one', 'TOOSMALL:END a.one rc=0 secs=1.0')
		self.assertEqual('fail', run['tests'][0]['status'])
		self.assertIn('root filesystem stopped answering', run['tests'][0]['reason'])

	def test_knobs_left_changed_fail_a_pass_and_stay_on_a_hang(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', 'ok 1 one',
				 'TOOSMALL:KNOBS a.one failslab/verbose:2->0 fail_page_alloc/min-order:1->0',
				 'TOOSMALL:END a.one rc=0 secs=1.0',
				 'TOOSMALL:BEGIN a.two timeout=10', '#  RUN  two ...',
				 'TOOSMALL:KNOBS a.two failslab/probability:0->100 vm/overcommit_memory:0->1',
				 'TOOSMALL:END a.two rc=124 secs=10.0',
				 'TOOSMALL:BEGIN a.three timeout=10', 'ok 1 three',
				 'TOOSMALL:END a.three rc=0 secs=1.0')
		one, two, three = run['tests']
		self.assertEqual('fail', one['status'])
		self.assertEqual('left knobs changed: failslab/verbose:2->0 '
				 'fail_page_alloc/min-order:1->0', one['reason'])
		self.assertEqual(['failslab/verbose:2->0', 'fail_page_alloc/min-order:1->0'],
				 one['knobs_left'])
		self.assertEqual('hang', two['status'])
		self.assertEqual(['failslab/probability:0->100', 'vm/overcommit_memory:0->1'],
				 two['knobs_left'])
		self.assertEqual(('pass', None), (three['status'], three.get('knobs_left')))

	def test_guest_timeout_is_a_hang(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', '#  RUN  one ...',
				 'TOOSMALL:END a.one rc=124')
		self.assertEqual('hang', run['tests'][0]['status'])

	def test_guest_timeout_kill_is_a_hang(self):
		# timeout -k: SIGTERM at the deadline was ignored, SIGKILL.
		run = self.lines('TOOSMALL:BEGIN a.one timeout=10', '#  RUN  one ...',
				 'TOOSMALL:END a.one rc=137 secs=15.002')
		self.assertEqual('hang', run['tests'][0]['status'])
		self.assertIn('SIGKILL', run['tests'][0]['reason'])

	# F77, as a 36M guest printed it (fio.xfs.mixed_fsync.tinymem).
	OOM = ['[    8.740000] xfs_repair invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=-1000',
	       '[    8.740000] Mem-Info:',
	       '[    8.740000] Normal free:4604kB boost:4096kB min:4652kB low:4788kB high:4924kB reserved_highatomic:0KB',
	       '[    8.740000] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),global_oom,task_memcg=/,task=fio_test,pid=216,uid=0',
	       '[    8.740000] Out of memory: Killed process 216 (fio_test) total-vm:3684kB, anon-rss:100kB, file-rss:4kB, shmem-rss:32kB, UID:0 pgtables:32kB oom_score_adj:0']

	def test_premature_oom_kill_is_a_splat_and_names_its_victim(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=120', '#  RUN  one ...',
				 *self.OOM, 'TOOSMALL:END a.one rc=137 secs=4.239')
		t = run['tests'][0]
		self.assertEqual('fail', t['status'])
		self.assertEqual(['oom_premature'], [s['kind'] for s in t['splats']])
		self.assertIn('fio_test (pid 216) for xfs_repair: Normal has 4604 kB free, '
			      'min watermark 4652 kB of which 4096 kB', t['splats'][0]['title'])
		self.assertIn('the OOM killer killed fio_test (pid 216) in a premature OOM kill', t['reason'])

	def test_memcg_oom_kill_of_the_test_program_is_named(self):
		run = self.lines('TOOSMALL:BEGIN a.one timeout=120',
				 '[    1.1] memcg_test invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0',
				 '[    1.2] Memory cgroup out of memory: Killed process 7 (memcg_test) total-vm:3684kB',
				 'TOOSMALL:END a.one rc=137 secs=1.3')
		t = run['tests'][0]
		self.assertEqual(('fail', []), (t['status'], t['splats']))
		self.assertIn('the OOM killer killed memcg_test (pid 7)', t['reason'])
		self.assertNotIn('premature', t['reason'])

	def test_oom_kill_below_the_unboosted_min_is_no_splat(self):
		# The same report with 500 kB free: out of memory, boost or not;
		# and with no boost: nothing the boost did.
		for zone in ('[    8.7] Normal free:500kB boost:4096kB min:4652kB low:4788kB',
			     '[    8.7] Normal free:520kB boost:0kB min:556kB low:692kB'):
			oom = list(self.OOM)
			oom[2] = zone
			run = self.lines('TOOSMALL:BEGIN a.one timeout=120', *oom,
					 'ok 1 one', 'TOOSMALL:END a.one rc=0 secs=4.2')
			self.assertEqual(('pass', []), (run['tests'][0]['status'], run['tests'][0]['splats']))

	@staticmethod
	def leak(addr, comm, pid):
		return ['unreferenced object 0x%x (size 80):' % addr,
			'  comm "%s", pid %d, jiffies 4294942888' % (comm, pid),
			'  backtrace (crc 2f2206f6):', '    fdb_create+0x123/0x18a0']

	def test_a_leak_reported_late_is_its_allocating_tests(self):
		# kmemleak saw the bridge's entry only in the geneve test's scan
		# (pid 150 is the bridge test's); a kworker's leak, and one the
		# geneve test's own task made, stay where they were reported.
		run = self.lines('TOOSMALL:BEGIN failnth_net.net.bridge.both timeout=120 lastpid=100',
				 'ok 1 bridge', 'TOOSMALL:END failnth_net.net.bridge.both rc=0 secs=1',
				 'TOOSMALL:BEGIN failnth_net.net.geneve.both timeout=120 lastpid=180',
				 'ok 1 geneve', *self.leak(0x65e65700, 'failnth_net_tes', 150),
				 *self.leak(0x65e65800, 'kworker/0:1', 150),
				 *self.leak(0x65e65900, 'failnth_net_tes', 190),
				 'TOOSMALL:END failnth_net.net.geneve.both rc=0 secs=1')
		bridge, geneve = run['tests'][2:]
		self.assertEqual(('fail', 'fail'), (bridge['status'], geneve['status']))
		self.assertEqual(['unreferenced object 0x65e65700 (size 80): (reported after '
				  'failnth_net.net.geneve.both)'], [sp['title'] for sp in bridge['splats']])
		self.assertEqual(['0x65e65800', '0x65e65900'],
				 [sp['title'].split()[2] for sp in geneve['splats']])
		# No lastpid (an older guest), another program's comm, or the
		# previous boot's test: the leak stays.
		for begin, comm in (('timeout=120', 'failnth_net_tes'),
				    ('timeout=120 lastpid=180', 'failnth_io_test')):
			run = self.lines('TOOSMALL:BEGIN failnth_net.net.bridge.both timeout=120 lastpid=100',
					 'ok 1 bridge', 'TOOSMALL:END failnth_net.net.bridge.both rc=0 secs=1',
					 'TOOSMALL:BEGIN failnth_net.net.geneve.both ' + begin,
					 'ok 1 geneve', *self.leak(0x65e65700, comm, 150),
					 'TOOSMALL:END failnth_net.net.geneve.both rc=0 secs=1')
			self.assertEqual(['pass', 'fail'], [t['status'] for t in run['tests'] if t['name'].startswith('failnth_net.')])
		run = self.lines('TOOSMALL-HOST: boot 1',
				 'TOOSMALL:BEGIN failnth_net.net.bridge.both timeout=120 lastpid=100',
				 'ok 1 bridge', 'TOOSMALL:END failnth_net.net.bridge.both rc=0 secs=1',
				 'TOOSMALL-HOST: boot 1 ended (poweroff)', 'TOOSMALL-HOST: boot 2',
				 'TOOSMALL:BEGIN failnth_net.net.geneve.both timeout=120 lastpid=180',
				 'ok 1 geneve', *self.leak(0x65e65700, 'failnth_net_tes', 150),
				 'TOOSMALL:END failnth_net.net.geneve.both rc=0 secs=1')
		self.assertEqual(['pass', 'fail'], [t['status'] for t in run['tests'] if t['name'].startswith('failnth_net.')])

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
		# Distinct per program, in the summary too.
		# Both and slab sweeps: 5 points each, one __GFP_NOWARN each.
		self.assertEqual({'distinct': 4, 'points': 10, 'unattributed': 2},
				 run['sites']['by_program']['failnth_fs'])
		self.assertEqual(2, run['sites']['unattributed'])
		self.assertIn('  distinct per program: failnth_fs 4\n', toosmall.summary(run))
		self.assertIn('2 of 10 fail-nth points unattributed', toosmall.summary(run))

	def test_modes_add_up(self):
		run = parse_file(os.path.join(LOGS, 'sites.log'))
		self.assertEqual(10, run['failnth']['points'])
		self.assertEqual([], run['failnth']['modes_apart'])

	def test_capped_console_makes_the_count_a_lower_bound(self):
		cap = ('TOOSMALL-HOST: console over 64 MB: kernel lines dropped from '
		       'here unless they name a splat')
		fault = ['[    1.0] FAULT_INJECTION: forcing a failure.',
			 '[    1.0] Call Trace:',
			 '[    1.0]  [<60174554>] kmem_cache_alloc_noprof+0x44/0x2f0',
			 '[    1.0]  [<601b0bdc>] path_openat+0x3c/0x1400']
		run = Attribution.lines(None, 'TOOSMALL:BEGIN a.one timeout=10', *fault,
					'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertNotIn('lower bound', toosmall.summary(run))
		# Past the cap only "Call Trace:" is kept (it may name a splat).
		run = Attribution.lines(None, 'TOOSMALL:BEGIN a.one timeout=10', *fault,
					cap, *fault[:2], 'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual(cap[len('TOOSMALL-HOST: '):], run['console_capped'])
		self.assertIn('a lower bound', toosmall.summary(run))
		self.assertIn('\nconsole over 64 MB', toosmall.summary(run))

	def test_stale_frame_is_not_a_site(self):
		run = Attribution.lines(None, 'TOOSMALL:BEGIN a.one timeout=10',
					'[    1.0] FAULT_INJECTION: forcing a failure.',
					'[    1.0] Call Trace:',
					'[    1.0]  [<6019c525>] ? alloc_empty_file+0x65/0x150',
					'[    1.0]  [<60174554>] kmem_cache_alloc_noprof+0x44/0x2f0',
					'[    1.0]  [<601b0bdc>] path_openat+0x3c/0x1400',
					'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual({'path_openat': 1}, run['tests'][0]['sites']['by_site'])

	def test_allocator_internals_are_not_sites(self):
		# A large kmalloc's own frame (three underscores), and slab's
		# vector for memcg accounting, are the allocator: the site is
		# below them.
		run = Attribution.lines(None, 'TOOSMALL:BEGIN a.one timeout=10',
					'[    1.0] FAULT_INJECTION: forcing a failure.',
					'[    1.0] Call Trace:',
					'[    1.0]  [<601fb61f>] ___kmalloc_large_node+0x3f/0x120',
					'[    1.0]  [<601fb71f>] alloc_slab_obj_exts+0x4f/0x120',
					'[    1.0]  [<601ae28d>] user_preparse+0x2d/0x60',
					'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual({'user_preparse': 1}, run['tests'][0]['sites']['by_site'])

	def test_tainted_kernel_dump(self):
		# After a WARNING, dump_stack() prints the taint on a line of
		# its own: the dump goes on, its site still counts.
		run = Attribution.lines(None, 'TOOSMALL:BEGIN a.one timeout=10',
					'[   18.3] FAULT_INJECTION: forcing a failure.',
					'[   18.3] name failslab, interval 1, probability 0, space 0, times 0',
					'[   18.3] CPU: 0 UID: 0 PID: 4319 Comm: t Tainted: G        W          6.12.118 #1 ',
					'[   18.3] Tainted: [W]=WARN',
					'[   18.3] Stack:',
					'[   18.3]  60649441 662ebc80 662ebcc0 6061cec1',
					'[   18.3] Call Trace:',
					'[   18.3]  [<6017d224>] kmem_cache_alloc_noprof+0x44/0x2f0',
					'[   18.3]  [<601b9665>] getname_flags+0x35/0x200',
					'ok 1 one', 'TOOSMALL:END a.one rc=0')
		self.assertEqual({'getname_flags': 1}, run['tests'][0]['sites']['by_site'])

	def test_nowarn_fault_named_by_kmem_tracepoint(self):
		"""A __GFP_NOWARN slab fault prints no stack; the kmem tracepoint's
		line (tp_printk, filter ptr == 0) names its call site. A fault
		that did print its stack is not counted twice, and a call site
		inside the allocator (kvmalloc's own kmalloc) names nothing."""
		nowarn = ('[    2.1] kmalloc: call_site=netlink_dump+0x8e/0x3d0 ptr=0000000000000000 '
			  'bytes_req=32768 bytes_alloc=32768 gfp_flags=GFP_NOWAIT|__GFP_NOWARN|'
			  '__GFP_NORETRY node=-1 accounted=false')
		run = Attribution.lines(None, 'TOOSMALL:BEGIN a.one timeout=10',
					'[    2.0] FAULT_INJECTION: forcing a failure.',
					'[    2.0] Call Trace:',
					'[    2.0]  [<60174554>] kmem_cache_alloc_noprof+0x44/0x2f0',
					'[    2.0]  [<601b0bdc>] path_openat+0x3c/0x1400',
					'[    2.0] kmem_cache_alloc: call_site=path_openat+0x3c/0x1400 '
					'ptr=0000000000000000 bytes_req=256 bytes_alloc=256 '
					'gfp_flags=GFP_KERNEL node=-1 accounted=false',
					nowarn,
					'[    2.2] kmalloc: call_site=__kvmalloc_node_noprof+0x6a/0x120 '
					'ptr=0000000000000000 bytes_req=8192 bytes_alloc=8192 '
					'gfp_flags=GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY node=-1 accounted=false',
					'ok 1 one', 'TOOSMALL:END a.one rc=0', nowarn)
		sites = run['tests'][0]['sites']
		self.assertEqual({'path_openat': 1, 'netlink_dump': 1}, sites['by_site'])
		self.assertEqual((1, 1), (sites['faults_dumped'], sites['nowarn_named']))
		self.assertEqual((1, 1), (run['sites']['faults_dumped'], run['sites']['nowarn_named']))
		self.assertIn('1 __GFP_NOWARN faults named', toosmall.summary(run))

	def test_nowarn_fault_named_by_its_traced_stack(self):
		"""Where guest-init printed the trace buffer, each __GFP_NOWARN
		slab fault's recorded stack names its site, the first frame
		outside the trace, the allocator and the fault injection (past
		kmalloc_reserve(), which a call_site stops at). The tracepoints'
		printk lines are then not counted again; a fault that dumped its
		stack is counted once, from its dump; one kvmalloc() absorbs
		(vmalloc() follows) names nothing."""
		def event(ts, ev, site, gfp):
			return ('            bash-47      [000] .....     %s: %s: call_site=%s+0x1/0x2 '
				'ptr=0000000000000000 bytes_req=64 bytes_alloc=64 gfp_flags=%s '
				'node=-1 accounted=false' % (ts, ev, site, gfp))

		def stack(ts, *frames):
			return ['            bash-47      [000] .....     %s: <stack trace>' % ts] + \
				[' => ' + f for f in ('save_stack_trace', 'stack_trace_save',
						      '__ftrace_trace_stack.constprop.0', '__trace_stack',
						      'stacktrace_trigger', 'event_triggers_post_call',
						      'trace_event_buffer_commit',
						      'trace_event_raw_event_kmem_cache_alloc',
						      '__traceiter_kmem_cache_alloc') + frames]

		nowarn = 'GFP_KERNEL|__GFP_NOWARN|__GFP_NOMEMALLOC'
		run = Attribution.lines(
			None, 'TOOSMALL:BEGIN a.one timeout=10',
			'[    2.0] FAULT_INJECTION: forcing a failure.',
			'[    2.0] Call Trace:',
			'[    2.0]  [<60174554>] kmem_cache_alloc_noprof+0x44/0x2f0',
			'[    2.0]  [<601b0bdc>] path_openat+0x3c/0x1400',
			'[    2.1] kmalloc: call_site=kmalloc_reserve+0x1/0x2 ptr=0000000000000000 '
			'bytes_req=64 bytes_alloc=64 gfp_flags=%s node=-1 accounted=false' % nowarn,
			'ok 1 one', 'TOOSMALL:TRACE a.one',
			event('2.000000', 'kmem_cache_alloc', 'path_openat', 'GFP_KERNEL'),
			*stack('2.000000', 'kmem_cache_alloc_noprof', 'path_openat', 'do_filp_open'),
			event('2.100000', 'kmalloc', 'kmalloc_reserve', nowarn),
			*stack('2.100000', '__kmalloc_node_track_caller_noprof', 'kmalloc_reserve',
			       '__alloc_skb', 'netlink_sendmsg'),
			event('2.200000', 'kmalloc', '__kvmalloc_node_noprof', nowarn),
			*stack('2.200000', '__kmalloc_node_noprof', '__kvmalloc_node_noprof',
			       'io_pages_map', 'io_uring_setup'),
			'TOOSMALL:TRACE_END a.one', 'TOOSMALL:END a.one rc=0')
		t = run['tests'][0]
		self.assertEqual('pass', t['status'])
		sites = t['sites']
		self.assertEqual({'path_openat': 1, '__alloc_skb': 1}, sites['by_site'])
		self.assertEqual((1, 1), (sites['faults_dumped'], sites['nowarn_named']))


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
					  'TOOSMALL:END x.a rc=1', 'TOOSMALL:DONE'])
		toosmall.apply_known(run, known_of('x.*\tfail\tF1\tany\t/not ok/ a finding\n'))
		line, bad = toosmall.totals_line(run)
		self.assertEqual(0, bad)
		self.assertIn('1 xfail', line)
		self.assertIn('# XFAIL F1', toosmall.ktap(run))

	def test_known_issue_does_not_excuse_knobs_left_changed(self):
		body = ['TOOSMALL-HOST: plan x.a other 5', 'TOOSMALL:BEGIN x.a timeout=5',
			'# x.c:1:a:Expected 0 (0) == ret (-5)', 'not ok 1 a']
		known = known_of('x.*\tfail\tF1\tany\t/Expected/ a finding\n')
		run = toosmall.parse_log(body + ['TOOSMALL:END x.a rc=1', 'TOOSMALL:DONE'])
		toosmall.apply_known(run, known)
		self.assertIn('xfail', run['tests'][0])
		run = toosmall.parse_log(body + ['TOOSMALL:KNOBS x.a failslab/verbose:2->0',
						 'TOOSMALL:END x.a rc=1', 'TOOSMALL:DONE'])
		toosmall.apply_known(run, known)
		t = run['tests'][0]
		self.assertNotIn('xfail', t)
		self.assertIn('left knobs changed: failslab/verbose:2->0', t['reason'])
		self.assertEqual(1, toosmall.totals_line(run)[1])
		# With no failing point the reason is the record: the same.
		run = toosmall.parse_log(['TOOSMALL-HOST: plan x.a other 5',
					  'TOOSMALL:BEGIN x.a timeout=5',
					  'TOOSMALL:KNOBS x.a failslab/verbose:2->0',
					  'TOOSMALL:END x.a rc=1', 'TOOSMALL:DONE'])
		toosmall.apply_known(run, known_of('x.*\tfail\tF1\tany\t/exit code 1/ a finding\n'))
		self.assertNotIn('xfail', run['tests'][0])

	def test_known_issue_with_other_status_still_fails(self):
		run = toosmall.parse_log(['TOOSMALL-HOST: plan x.a other 5',
					  'TOOSMALL:BEGIN x.a timeout=5',
					  'TOOSMALL-HOST: hang x.a after its deadline'])
		toosmall.apply_known(run, known_of('x.*\tfail\tF1\tany\t/./ a finding\n'))
		self.assertEqual(1, toosmall.totals_line(run)[1])

	def test_known_issue_signature_must_match(self):
		lines = ['TOOSMALL-HOST: plan x.a other 5', 'TOOSMALL:BEGIN x.a timeout=5',
			 '[    1.0] Kernel panic - not syncing: Kernel mode fault at addr 0x40e, ip 0x6002407b']
		known = known_of('x.*\tcrash\tF2\tany\t/addr 0x40e/ fork\n')
		run = toosmall.parse_log(lines)
		toosmall.apply_known(run, known)
		self.assertIn('xfail', run['tests'][0])
		run = toosmall.parse_log([l.replace('0x40e', '0x0') for l in lines])
		toosmall.apply_known(run, known)
		self.assertNotIn('xfail', run['tests'][0])

	def test_a_second_check_failing_at_an_excused_point_is_not_excused(self):
		# failnth_also() joins the checks that failed at one point
		# with '; ': the signature must explain each of them.
		point = ('# failnth.h:771:both:socketpair_unix_stream: n=1: ENFILE: '
			 'failed but wrote fds 4, 5 to sv[] (neither open)')
		known = known_of('x.*\tfail\tF1\tany\t/wrote fds/ socketpair\n')
		for extra, excused in (('', True), ('; 4 fds open, 3 before: fd leaked', False)):
			run = toosmall.parse_log(['TOOSMALL-HOST: plan x.a other 5',
						  'TOOSMALL:BEGIN x.a timeout=5',
						  '# failnth.h:769:both:Expected 0 (0) != ok (0)',
						  point + extra, 'not ok 1 a',
						  'TOOSMALL:END x.a rc=1', 'TOOSMALL:DONE'])
			toosmall.apply_known(run, known)
			self.assertEqual(excused, 'xfail' in run['tests'][0], extra)


# One test, as the guest prints it, on a kernel of @kind (None: an old log).
def one_test(kind, *body, status_line='not ok 1 a'):
	kernel = 'TOOSMALL-HOST: kernel release=6.12.118 profile=default' + \
		(' kind=%s' % kind if kind else '')
	return toosmall.parse_log([kernel, 'TOOSMALL-HOST: plan x.a other 5',
				   'TOOSMALL:READY release=6.12.118',
				   'TOOSMALL:BEGIN x.a timeout=5'] + list(body) +
				  [status_line, 'TOOSMALL:END x.a rc=%d' % (status_line != 'ok 1 a'),
				   'TOOSMALL:DONE'])


POINTS = ['# failnth.h:717:both:Expected 0 (0) != ok (0)',
	  '# failnth.h:719:both:socketpair_unix_stream: n=1: ENFILE: failed but wrote fds 4, 5 to sv[] (neither open)',
	  '# failnth tmpfs_open_creat: points=5 success=1 errno=4 wrong=1 (ENOMEM:3 ENOSPC:1)',
	  '# failnth.h:717:both:Expected 0 (0) != ok (0)',
	  '[    1.0] socket: no more sockets',
	  '# failnth.h:719:both:socketpair_unix_stream: n=2: ENOMEM: failed but wrote fds 4, 5 to sv[] (neither open)',
	  '# failnth.h:717:both:Expected 0 (0) != ok (0)',
	  '# failnth.h:719:both:socketpair_unix_stream: n=3: ENOMEM: fd leaked']


class FailingPoints(unittest.TestCase):
	"""Every failed check of a test is kept, with the TH_LOG() lines it
	printed, not only the first."""

	def test_every_point_is_kept(self):
		t = one_test('default', *POINTS)['tests'][0]
		self.assertEqual('fail', t['status'])
		self.assertEqual(3, len(t['failures']))
		self.assertIn('n=2: ENOMEM: failed but wrote fds', t['failures'][1])
		self.assertTrue(t['failures'][1].startswith('failnth.h:717:both:Expected 0 (0) != ok (0) '))
		self.assertIn('fd leaked', t['failures'][2])
		self.assertTrue(t['reason'].startswith(t['failures'][0]))
		self.assertTrue(t['reason'].endswith('(and 2 more failing points)'))

	def test_points_reach_results_json(self):
		with tempfile.TemporaryDirectory() as d:
			log = os.path.join(d, 'console.log')
			with open(log, 'w') as f:
				f.write('\n'.join(['TOOSMALL-HOST: plan x.a other 5',
						   'TOOSMALL:READY', 'TOOSMALL:BEGIN x.a timeout=5'] +
						  POINTS + ['not ok 1 a', 'TOOSMALL:END x.a rc=1',
							    'TOOSMALL:DONE']) + '\n')
			self.assertEqual(1, toosmall_cli('parse', log, '--output', d)[0])
			with open(os.path.join(d, 'results.json')) as f:
				self.assertEqual(3, len(json.load(f)['tests'][0]['failures']))


class KnownIssues(unittest.TestCase):
	F1 = 'x.*\tfail\tF1\t%s\t/wrote fds/ socketpair() writes sv[]\n'

	def test_regex_is_required_and_errors_name_the_line(self):
		for line in ('x.*\tfail\tF1\tdefault\tno signature\n',
			     'x.*\tfail\tF1\t/wrote fds/ old format, no KERNELS\n',
			     'x.*\tpass\tF1\tdefault\t/x/ pass alone\n',
			     'x.*\tfail\tF1\tsome\t/x/ bad KERNELS\n',
			     'x.*\tfail\tF1\tdefault,some\t/x/ one bad KERNELS\n',
			     'x.*\tfail\tF1\trelease=\t/x/ release of nothing\n'):
			with self.assertRaises(SystemExit) as cm:
				known_of('# comment\n\n' + line)
			self.assertRegex(str(cm.exception.code), r'known-\d+:3: ')

	def test_slash_in_regex(self):
		k = known_of('x.*\tfail\tF8\tdefault\t/Input\\/output error/ XFS\n')
		self.assertEqual('XFS', k[0]['text'])
		self.assertTrue(k[0]['sig'].search('syncfs: Input/output error'))

	def test_kernels_condition(self):
		for kind, kernels, any_kernel, excused in (
				('default', 'default', False, True),
				('default', 'other', False, False),
				('src', 'other', False, True),
				('prebuilt', 'other', False, True),
				(None, 'other', False, True),		# old log: unknown
				(None, 'default', False, False),
				('src', 'default', False, False),
				('src', 'any', False, True),
				('src', 'release=6.12.*', False, True),	# 6.12.118
				('prebuilt', 'release=6.12.*', False, True),
				(None, 'release=6.12.*', False, True),
				('src', 'release=6.1.*', False, False),
				('default', 'release=6.13*', False, False),
				('default', 'default,release=6.13*', False, True),
				('src', 'default,release=6.13*', False, False),
				('src', 'other,release=6.13*', False, True),
				('default', 'other', True, True)):	# the user's file
			with self.subTest(kind=kind, kernels=kernels, any_kernel=any_kernel):
				run = one_test(kind, *POINTS[:2])
				toosmall.apply_known(run, known_of(self.F1 % kernels), any_kernel)
				self.assertEqual(excused, 'xfail' in run['tests'][0])

	def test_vm_condition(self):
		"""KIND@VM: on that VM only; a log without vm= is UML's."""
		for vm, kernels, excused in (
				(None, 'default', True),
				(None, 'default@uml', True),
				(None, 'default@qemu', False),
				('qemu', 'default@qemu', True),
				('qemu', 'default@uml', False),
				('qemu', 'default', True),
				('qemu', 'release=6.12.*@qemu', True),
				('qemu', 'release=6.1.*@qemu', False),
				('qemu', 'other@qemu', False),
				('qemu', 'other@uml,default@qemu', True)):
			with self.subTest(vm=vm, kernels=kernels):
				run = one_test('default', *POINTS[:2])
				if vm:
					run['kernel']['vm'] = vm
				toosmall.apply_known(run, known_of(self.F1 % kernels))
				self.assertEqual(excused, 'xfail' in run['tests'][0])
		for bad in ('default@kvm', 'default@', '@qemu', 'release=@qemu'):
			with self.subTest(bad=bad), self.assertRaises(SystemExit):
				known_of(self.F1 % bad)

	def test_profile_condition(self):
		"""KIND:PROFILE: on that profile only; a log without profile=
		is the default's. An entry for one profile leaves the other's
		XPASS standing."""
		for profile, kernels, excused in (
				(None, 'default', True),
				(None, 'default:default', True),
				(None, 'default:debug', False),
				('debug', 'default:debug', True),
				('debug', 'default:default', False),
				('debug', 'default', True),
				('debug', 'default@uml:debug', True),
				('debug', 'default@qemu:debug', False),
				('debug', 'release=6.12.*:debug', True),
				('debug', 'other:debug', False)):
			with self.subTest(profile=profile, kernels=kernels):
				run = one_test('default', *POINTS[:2])
				if profile:
					run['kernel']['profile'] = profile
				toosmall.apply_known(run, known_of(self.F1 % kernels))
				self.assertEqual(excused, 'xfail' in run['tests'][0])
		for bad in ('default:kasan', 'default:', 'default:debug@uml'):
			with self.subTest(bad=bad), self.assertRaises(SystemExit):
				known_of(self.F1 % bad)
		# A pass: XPASS unless an entry for this profile allows it.
		both = self.F1 % 'default' + \
			(self.F1 % 'default:debug').replace('\tfail\t', '\tfail|pass\t')
		for profile, xpass in ((None, True), ('debug', False)):
			with self.subTest(profile=profile, passed=True):
				run = one_test('default', status_line='ok 1 a')
				if profile:
					run['kernel']['profile'] = profile
				toosmall.apply_known(run, known_of(both))
				self.assertEqual(xpass, 'xpass' in run['tests'][0])

	def test_harness_death_is_the_reason(self):
		"""A test whose child died has no failing point: the harness's
		words are its reason, for a signature to match (F17)."""
		body = ['# Starting 1 tests from 1 test cases.',
			'#  RUN           task.fork.both ...',
			'# both: Test terminated unexpectedly by signal 11',
			'#          FAIL  task.fork.both']
		run = one_test('default', *body)
		self.assertEqual('Test terminated unexpectedly by signal 11',
				 run['tests'][0]['reason'])
		run['kernel']['vm'] = 'qemu'
		toosmall.apply_known(run, known_of(
			'x.*\tfail|pass\tF17\tdefault@qemu\t/terminated unexpectedly by signal 11/ rseq\n'))
		self.assertIn('xfail', run['tests'][0])
		run = one_test('default', *body[:2], body[3])
		self.assertEqual('test reported not ok', run['tests'][0]['reason'])

	def test_every_failing_point_must_match(self):
		run = one_test('default', *POINTS)
		toosmall.apply_known(run, known_of(self.F1 % 'default'))
		t = run['tests'][0]
		self.assertNotIn('xfail', t)
		self.assertEqual(1, toosmall.totals_line(run)[1])
		self.assertIn('does not explain', t['reason'])
		self.assertIn('fd leaked', t['reason'])
		run = one_test('default', *POINTS[:6])
		toosmall.apply_known(run, known_of(self.F1 % 'default'))
		self.assertIn('xfail', run['tests'][0])

	def test_every_splat_must_match(self):
		run = one_test('default', *POINTS[:2],
			       '[    1.0] WARNING: CPU: 0 PID: 5 at mm/slub.c:1 f+0x0/0x1')
		toosmall.apply_known(run, known_of('x.*\tfail\tF1\tdefault\t/wrote fds|kernel splat/ x\n'))
		self.assertNotIn('xfail', run['tests'][0])
		self.assertIn('WARNING: CPU: 0', run['tests'][0]['reason'])

	def test_status_alternatives(self):
		hang = ['# stall: mmap_touch: spinning in reclaim, no progress for 8010 ms']
		entry = 'x.*\thang|pass\tF6\tdefault\t/spinning in reclaim/ loops\n'
		run = one_test('default', *hang)
		toosmall.apply_known(run, known_of(entry))
		self.assertEqual('hang', run['tests'][0]['status'])
		self.assertIn('xfail', run['tests'][0])
		run = one_test('default', status_line='ok 1 a')
		toosmall.apply_known(run, known_of(entry))
		self.assertNotIn('xpass', run['tests'][0])

	def test_pass_is_xpass(self):
		run = one_test('default', status_line='ok 1 a')
		toosmall.apply_known(run, known_of(self.F1 % 'default'))
		t = run['tests'][0]
		self.assertEqual('pass', t['status'])
		self.assertTrue(t['xpass'].startswith('F1 '))
		line, bad = toosmall.totals_line(run)
		self.assertEqual(0, bad)
		self.assertIn('1 xpass', line)
		self.assertIn('ok 1 x.a # XPASS F1', toosmall.ktap(run))
		self.assertIn('(xpass)', toosmall.summary(run))
		case = ET.fromstring(toosmall.junit(run)).find('testcase')
		self.assertEqual([], [c.tag for c in case if c.tag in ('failure', 'error', 'skipped')])
		self.assertIn('XPASS F1', case.find('system-out').text)
		# Not on a kernel the entry is not for.
		run = one_test('default', status_line='ok 1 a')
		toosmall.apply_known(run, known_of(self.F1 % 'other'))
		self.assertNotIn('xpass', run['tests'][0])

	def test_check_run_fails_on_xpass(self):
		run = one_test('default', status_line='ok 1 a')
		toosmall.apply_known(run, known_of(self.F1 % 'default'))
		with tempfile.TemporaryDirectory() as d:
			with open(os.path.join(d, 'results.json'), 'w') as f:
				json.dump(run, f)
			known = os.path.join(d, 'known-issues')
			with open(known, 'w') as f:
				f.write(self.F1 % 'default')
			out = io.StringIO()
			with redirect_stdout(out):
				rc = check_run(d, known)
		self.assertEqual(1, rc)
		self.assertIn('stale known-issues entry', out.getvalue())

	def test_findings_joined(self):
		# One sweep that strikes two findings at once: one entry names
		# both, and each must be written up.
		entry = 'x.a\tfail\tF1+F99\tdefault\t/wrote fds|leaked/ two\n'
		run = one_test('default', *POINTS)
		toosmall.apply_known(run, known_of(entry))
		self.assertTrue(run['tests'][0]['xfail'].startswith('F1+F99 '))
		with tempfile.TemporaryDirectory() as d:
			with open(os.path.join(d, 'results.json'), 'w') as f:
				json.dump(run, f)
			known = os.path.join(d, 'known-issues')
			with open(known, 'w') as f:
				f.write(entry)
			out = io.StringIO()
			with redirect_stdout(out):
				rc = check_run(d, known)
			self.assertEqual(1, rc)
			self.assertIn('names F99, which FINDINGS.md lacks', out.getvalue())
			self.assertNotIn('names F1,', out.getvalue())
			for bad in ('F1,F2', 'F1+', 'finding1'):
				with open(known, 'w') as f:
					f.write(entry.replace('F1+F99', bad))
				with self.assertRaises(SystemExit):
					toosmall.load_known(known)

	def test_cli_any_kernel(self):
		with tempfile.TemporaryDirectory() as d:
			log, known = os.path.join(d, 'console.log'), os.path.join(d, 'known')
			with open(log, 'w') as f:
				f.write('\n'.join(['TOOSMALL-HOST: kernel release=6.12.118 kind=default',
						   'TOOSMALL-HOST: plan x.a other 5', 'TOOSMALL:READY',
						   'TOOSMALL:BEGIN x.a timeout=5'] + POINTS[:2] +
						  ['not ok 1 a', 'TOOSMALL:END x.a rc=1', 'TOOSMALL:DONE']) + '\n')
			with open(known, 'w') as f:
				f.write(self.F1 % 'other')
			self.assertEqual(1, toosmall_cli('parse', log, '--known-issues', known)[0])
			rc, out = toosmall_cli('parse', log, '--known-issues', known,
					       '--known-issues-any-kernel')
			self.assertEqual(0, rc)
			self.assertIn('1 xfail', out)

	def test_repo_file(self):
		known = toosmall.load_known(os.path.join(TOP, 'known-issues'))
		for e in known:
			with self.subTest(entry=e['where']):
				# UML's own bugs, fixed by the default kernel's patches,
				# on other kernels; mainline's on the default kernel and
				# on any 6.12 tree; F15's where a 9p mount can hold the
				# binary, F16's where there is INET, F17's where there
				# is rseq: in the QEMU guest.
				want = ['default', 'release=6.12.*']
				if e['kernels'][0].endswith(':debug'):
					# The same, on the debug profile only.
					want = [k + ':debug' for k in want]
				elif e['fid'] in ('F2', 'F3'):
					want = ['other']
				elif e['fid'] in ('F15', 'F16', 'F17'):
					want = [k + '@qemu' for k in want]
				self.assertEqual(want, e['kernels'])
		f8 = [e for e in known if e['fid'] == 'F8']
		self.assertTrue(f8)
		self.assertTrue(all(e['sig'].search('syncfs after the create: Input/output error (shut down?)')
				    for e in f8))
		# F8's console: the xfs splats of xfs_create()'s cancel are
		# the finding too, and explained; another XFS report is not.
		run = parse_file(os.path.join(LOGS, 'xfs-shutdown.log'))
		toosmall.apply_known(run, known, any_kernel=True)
		t = run['tests'][0]
		self.assertEqual(['xfs', 'xfs'], [s['kind'] for s in t['splats']])
		self.assertTrue(t.get('xfail', '').startswith('F8 '), t['reason'])
		t['splats'][1]['title'] = 'XFS (ubda): Metadata corruption detected at xfs_inobt_verify+0x1/0x2'
		del t['xfail']
		toosmall.apply_known(run, known, any_kernel=True)
		self.assertNotIn('xfail', t)
		# F2 and F3 no longer on the default kernel, still on others.
		panic = '[    1.0] Kernel panic - not syncing: Kernel mode fault at addr 0x40e, ip 0x6002407b'
		for kind, excused in (('default', False), ('src', True), ('prebuilt', True)):
			run = toosmall.parse_log([
				'TOOSMALL-HOST: kernel release=6.12.118 kind=%s' % kind,
				'TOOSMALL-HOST: plan failnth_task.task.fork.both failnth 120',
				'TOOSMALL:READY', 'TOOSMALL:BEGIN failnth_task.task.fork.both timeout=120',
				panic, 'TOOSMALL-HOST: boot 1 ended'])
			toosmall.apply_known(run, known)
			self.assertEqual(excused, 'xfail' in run['tests'][0], kind)


class JUnit(unittest.TestCase):
	"""junit.xml says what the exit code says: a CI must not see failures
	in a run that passed, nor the reverse; and it is a file Jenkins and
	GitLab read."""

	# The rules of the JUnit schema Jenkins' xunit plugin validates against
	# (junit-10.xsd, the surefire format; GitLab's reader asks less): per
	# element, the attributes it must carry, those it may, and the elements
	# it may hold.
	SCHEMA = {
		'testsuites': (set(), {'name', 'time', 'tests', 'failures', 'errors'},
			       {'testsuite'}),
		'testsuite': ({'name', 'tests', 'failures', 'errors'},
			      {'group', 'time', 'skipped', 'timestamp', 'hostname', 'id',
			       'package', 'file', 'log', 'url'},
			      {'testsuite', 'properties', 'testcase', 'system-out', 'system-err'}),
		'properties': (set(), set(), {'property'}),
		'property': ({'name', 'value'}, set(), set()),
		'testcase': ({'name'}, {'time', 'classname', 'group'},
			     {'skipped', 'error', 'failure', 'rerunFailure', 'rerunError',
			      'flakyFailure', 'flakyError', 'system-out', 'system-err'}),
		'failure': (set(), {'type', 'message'}, set()),
		'error': (set(), {'type', 'message'}, set()),
		'skipped': (set(), {'type', 'message'}, set()),
		'system-out': (set(), set(), set()),
		'system-err': (set(), set(), set()),
	}
	SUREFIRE_TIME = re.compile(r'(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?\Z')

	def assertSchema(self, text):
		root = ET.fromstring(text)	# well-formed XML 1.0, or it raises
		self.assertIn(root.tag, ('testsuite', 'testsuites'))
		for el in root.iter():
			self.assertIn(el.tag, self.SCHEMA)
			must, may, kids = self.SCHEMA[el.tag]
			self.assertLessEqual(must, set(el.attrib), el.tag)
			self.assertLessEqual(set(el.attrib), must | may, el.tag)
			self.assertLessEqual({c.tag for c in el}, kids, el.tag)
			if el.tag in ('testsuite', 'testsuites') and 'time' in el.attrib:
				self.assertRegex(el.get('time'), self.SUREFIRE_TIME)
		return root

	def check(self, run):
		bad = toosmall.totals_line(run)[1]
		root = self.assertSchema(toosmall.junit(run))
		cases = root.findall('testcase')
		count = {tag: sum(1 for c in cases if c.find(tag) is not None)
			 for tag in ('failure', 'error', 'skipped')}
		self.assertEqual(str(len(cases)), root.get('tests'))
		self.assertEqual(str(count['failure']), root.get('failures'))
		self.assertEqual(str(count['error']), root.get('errors'))
		self.assertEqual(str(count['skipped']), root.get('skipped'))
		self.assertEqual(bad == 0, count['failure'] + count['error'] == 0)
		return cases

	def test_fixtures(self):
		for log in sorted(glob.glob(os.path.join(LOGS, '*.log'))):
			with self.subTest(log=os.path.basename(log)):
				self.check(parse_file(log))

	def test_control_characters(self):
		"""A console's escape sequences and stray bytes, in a test's name,
		reason, failures, evidence or splat: XML 1.0 cannot hold them, so
		junit.xml writes them as \\xNN rather than be unreadable."""
		for st, key in (('fail', 'failures'), ('hang', 'evidence'), ('skip', 'reason')):
			run = one_test('src', *POINTS[:2])
			t = run['tests'][0]
			t['status'], t['reason'] = st, 'colour \x1b[31mred\x1b[0m, bell \x07'
			t[key] = ['a \x08 b', 'c \x1f'] if key != 'reason' else t['reason']
			t['splats'] = [{'excerpt': ['[    1.0] BUG: x \x0b']}]
			with self.subTest(status=st):
				case = self.check(run)[0]
				self.assertIn('\\x1b[31mred', ET.tostring(case, encoding='unicode'))

	def test_xfail_is_skipped_with_its_finding(self):
		for lines in (POINTS[:2], ['[    1.0] Kernel panic - not syncing: Kernel mode fault at addr 0x40e, ip 0x6']):
			run = one_test('src', *lines)
			toosmall.apply_known(run, known_of('x.*\tfail|crash\tF2\tother\t/wrote fds|addr 0x40e/ a finding\n'))
			case = self.check(run)[0]
			self.assertTrue(case.find('skipped').get('message').startswith('XFAIL F2: a finding'))


class SelfCheck(unittest.TestCase):
	"""A self-check case's verdict, splat and, with no splat, reason."""

	CASE = {'name': 'detect.knobs_left', 'timeout': 20, 'status': 'fail', 'splat': '-',
		'title': r'^left knobs changed: failslab/verbose:\d->\d$'}

	def verdict(self, status, reason, splats=()):
		return {'status': status, 'reason': reason, 'splats': list(splats),
			'duration_s': 1.0}

	def test_reason_must_match_when_no_splat(self):
		case = self.CASE
		ok = self.verdict('fail', 'left knobs changed: failslab/verbose:2->1')
		self.assertIsNone(toosmall.selfcheck_case(case, ok, 10))
		# Failing for another reason is not the detector's work.
		other = self.verdict('fail', 'no result line (exit code 1)')
		self.assertIn('does not match', toosmall.selfcheck_case(case, other, 10))
		self.assertIn('status pass', toosmall.selfcheck_case(case, self.verdict('pass', ''), 10))
		splat = self.verdict('fail', ok['reason'], [{'kind': 'warning', 'title': 'WARNING: x'}])
		self.assertIn('unexpected splat', toosmall.selfcheck_case(case, splat, 10))
		self.assertIsNone(toosmall.selfcheck_case(dict(case, title='-'), other, 10))

	def test_tsv_parses_and_every_title_compiles(self):
		for profile in ('default', 'debug'):
			for case in toosmall.load_selfcheck(os.path.join(HERE, 'selfcheck.tsv'), profile):
				if case['title'] != '-':
					re.compile(case['title'])


class RunProblems(unittest.TestCase):
	"""What goes wrong outside any test is the pseudo-test run.kernel."""

	HEAD = ['TOOSMALL-HOST: plan x.a other 5', 'TOOSMALL-HOST: boot 1 umid=u-1 mem=64M kernel=k']
	TEST = ['TOOSMALL:BEGIN x.a timeout=5', 'ok 1 a', 'TOOSMALL:END x.a rc=0']

	def kernel_test(self, lines):
		run = toosmall.parse_log(lines)
		tests = {t['name']: t for t in run['tests']}
		self.assertGreater(toosmall.totals_line(run)[1], 0)
		self.assertEqual('run', tests['run.kernel']['category'])
		return tests

	def test_sound_run_has_none(self):
		run = toosmall.parse_log(self.HEAD + ['TOOSMALL:READY'] + self.TEST +
					 ['TOOSMALL:DONE', 'TOOSMALL-HOST: boot 1 ended'])
		self.assertEqual(['x.a'], [t['name'] for t in run['tests']])

	def test_panic_before_any_test_fails_the_run(self):
		# No plan, no test: this printed "0 passed, 0 failed" and exited 0.
		with tempfile.TemporaryDirectory() as d:
			log = os.path.join(d, 'console.log')
			with open(log, 'w') as f:
				f.write('[    0.1] Run /init as init process\n'
					'[    0.1] Kernel panic - not syncing: VFS: Unable to mount root fs\n')
			rc, out = toosmall_cli('parse', log)
		self.assertEqual(1, rc)
		self.assertIn('run.kernel # ERROR kernel panic before the first test: VFS: Unable', out)

	def test_boot_splat(self):
		tests = self.kernel_test(self.HEAD + [
			'[    0.0] WARNING: CPU: 0 PID: 0 at lib/stackdepot.c:451 depot_fetch_stack+0x109/0x180',
			'TOOSMALL:READY'] + self.TEST + ['TOOSMALL:DONE', 'TOOSMALL-HOST: boot 1 ended'])
		self.assertEqual('pass', tests['x.a']['status'])
		self.assertEqual('fail', tests['run.kernel']['status'])
		self.assertIn('before the first test: WARNING: CPU: 0', tests['run.kernel']['reason'])

	def test_splat_between_tests(self):
		tests = self.kernel_test(self.HEAD + ['TOOSMALL:READY'] + self.TEST + [
			'[    2.0] BUG: Bad page state in process swapper  pfn:0a0b0',
			'TOOSMALL:DONE', 'TOOSMALL-HOST: boot 1 ended'])
		self.assertEqual('pass', tests['x.a']['status'])
		self.assertIn('between tests: BUG: Bad page', tests['run.kernel']['reason'])

	def test_no_done_after_ready(self):
		tests = self.kernel_test(self.HEAD + ['TOOSMALL:READY'] + self.TEST +
					      ['TOOSMALL-HOST: hang between-tests after its deadline',
					       'TOOSMALL-HOST: boot 1 ended (hang between-tests after its deadline)'])
		self.assertEqual('crash', tests['run.kernel']['status'])
		self.assertIn('without TOOSMALL:DONE (hang between-tests', tests['run.kernel']['reason'])

	def test_no_test_started(self):
		tests = self.kernel_test(self.HEAD + ['TOOSMALL:READY', 'TOOSMALL:DONE',
							   'TOOSMALL-HOST: boot 1 ended'])
		self.assertEqual('fail', tests['run.kernel']['status'])
		self.assertIn('no planned test started', tests['run.kernel']['reason'])

	def test_amx_fixture(self):
		tests = self.kernel_test(open(os.path.join(LOGS, 'amx-fp.log')).readlines())
		t = tests['run.kernel']
		self.assertEqual('crash', t['status'])
		self.assertIn('Attempted to kill init!', t['reason'])
		self.assertIn("cause: the host's XSAVE area is larger", t['reason'])


class Lanes(unittest.TestCase):
	"""run.sh --jobs and --shard deal the plan with split_lanes(); the
	lanes' consoles become one with merge_consoles()."""

	PLAN = ['fio.xfs.a.nopressure\tfio_test\th\t120\tfio\t-',
		'fio.xfs.a.tinymem\tfio_test\th\t120\tfio\t32M',
		'fio.replay.write\tfio_test\th\t90\tfio\t-',
		'fio.replay.check\tfio_test\th\t90\tfio\t-',
		'memcg.x\tmemcg_test\th\t120\tmemcg\t-',
		'failnth_fd.a\tfailnth_fd_test\th\t120\tfailnth\t-',
		'failnth_fd.b\tfailnth_fd_test\th\t120\tfailnth\t-',
		'fio.xfs.b.nopressure\tfio_test\th\t120\tfio\t-']

	def test_every_test_once_together_kept_mem_grouped(self):
		lanes, load = toosmall.split_lanes(self.PLAN, 3, {}, [['fio.replay.*']])
		every = sorted(i for lane in lanes for i in lane)
		self.assertEqual(list(range(len(self.PLAN))), every)
		with_replay = [lane for lane in lanes if 2 in lane]
		self.assertEqual(1, len(with_replay))
		lane = with_replay[0]
		self.assertIn(3, lane)
		self.assertLess(lane.index(2), lane.index(3))
		for lane in lanes:
			mems = [self.PLAN[i].split('\t')[5] for i in lane]
			# One boot per mem= size: equal sizes are adjacent.
			self.assertEqual(len(set(mems)), 1 + sum(
				1 for a, b in zip(mems, mems[1:]) if a != b))

	def test_together_line_of_several_globs(self):
		"""boot.conf's "GLOB,GLOB together": a job's nopressure and its
		memcg pair, one measurement for the three, in one lane."""
		with tempfile.TemporaryDirectory() as d:
			conf = os.path.join(d, 'boot.conf')
			with open(conf, 'w') as f:
				f.write('# a comment\nfio.xfs.*.tinymem mem=32M\n'
					'fio.xfs.a.nopressure,memcg.* together\n')
			together = toosmall.read_together(conf)
		self.assertEqual([['fio.xfs.a.nopressure', 'memcg.*']], together)
		for n in (2, 3, 4):
			lanes, _ = toosmall.split_lanes(self.PLAN, n, {}, together)
			lane = [l for l in lanes if 0 in l][0]
			self.assertIn(4, lane, n)
			self.assertLess(lane.index(0), lane.index(4))

	def test_longest_first_balances(self):
		lanes, load = toosmall.split_lanes(self.PLAN, 2, {}, [['fio.replay.*']])
		# Estimates: fio 15 s (three, and the replay pair: 30 s as one
		# unit), memcg 5, failnth 0.5 each: 81 s. The pair and one fio
		# test (45 s) is the least the longer lane can get.
		self.assertEqual([36.0, 45.0], sorted(load))

	def test_measured_durations_win_and_static_is_deterministic(self):
		a, _ = toosmall.split_lanes(self.PLAN, 2, {}, [])
		b, _ = toosmall.split_lanes(self.PLAN, 2, {}, [])
		self.assertEqual(a, b)
		c, load = toosmall.split_lanes(self.PLAN, 2, {'memcg.x': 500}, [])
		self.assertEqual([[4]], [l for l in c if 4 in l])

	def console(self, shard, *tests, kernel='release=6.12 kind=default'):
		out = ['TOOSMALL-HOST: kernel ' + kernel, 'TOOSMALL-HOST: mem 64M']
		if shard:
			out.append('TOOSMALL-HOST: shard ' + shard)
		out += ['TOOSMALL-HOST: plan %s failnth 10 idx=%d' % (t, i) for i, t in tests]
		out += ['TOOSMALL-HOST: boot 1 umid=x-1 mem=64M kernel=k', 'TOOSMALL:READY']
		for _, t in tests:
			out += ['TOOSMALL:BEGIN %s timeout=10' % t,
				'not ok 1 %s' % t if t.endswith('bad') else 'ok 1 %s' % t,
				'TOOSMALL:END %s rc=0' % t]
		return out + ['TOOSMALL:DONE', 'TOOSMALL-HOST: boot 1 ended']

	def merged(self, *consoles):
		with tempfile.TemporaryDirectory() as d:
			paths = []
			for n, c in enumerate(consoles):
				paths.append(os.path.join(d, '%d.log' % n))
				with open(paths[-1], 'w') as f:
					f.write('\n'.join(c) + '\n')
			return toosmall.merge_consoles(paths)

	def test_merge_gives_one_run_in_plan_order(self):
		lines = self.merged(self.console('', (1, 'a.bad'), (2, 'a.c')),
				    self.console('', (0, 'a.first')))
		run = toosmall.parse_log(lines)
		self.assertEqual(['a.first', 'a.bad', 'a.c'], [t['name'] for t in run['tests']])
		self.assertEqual(['pass', 'fail', 'pass'], [t['status'] for t in run['tests']])
		self.assertEqual(['1', '2'], [b['n'] for b in run['boots']])
		self.assertNotIn('run.kernel', [t['name'] for t in run['tests']])

	def test_merge_refuses_what_is_not_one_run(self):
		with self.assertRaisesRegex(SystemExit, 'different kernels'):
			self.merged(self.console('1/2', (0, 'a.a')),
				    self.console('2/2', (1, 'a.b'), kernel='release=6.13'))
		with self.assertRaisesRegex(SystemExit, r'shards 1/3, 3/3 are not each of 1\.\.3'):
			self.merged(self.console('1/3', (0, 'a.a')),
				    self.console('3/3', (1, 'a.b')))
		with self.assertRaisesRegex(SystemExit, 'not each of'):
			self.merged(self.console('1/2', (0, 'a.a')),
				    self.console('1/2', (1, 'a.b')))
		with self.assertRaisesRegex(SystemExit, 'a test is in two consoles'):
			self.merged(self.console('', (0, 'a.a')),
				    self.console('', (0, 'a.a')))

	def test_durations_are_recorded_for_the_next_split(self):
		run = toosmall.parse_log(self.console('', (0, 'a.a')))
		run['tests'][0]['duration_s'] = 12.5
		with tempfile.TemporaryDirectory() as d:
			path = os.path.join(d, 'durations.tsv')
			toosmall.save_durations(path, run)
			self.assertEqual({'a.a': 12.5}, toosmall.read_durations(path))

	def test_fio_needs_are_recorded_for_the_next_bisections(self):
		done = ('# # bisect %s: measured need=%d MiB, below=%d MiB '
			'(release 6.12.118, MemTotal %d kB, %d probes)\n')
		with tempfile.TemporaryDirectory() as d:
			path = os.path.join(d, 'fio-needs.tsv')
			with open(path, 'w') as f:
				f.write('6.12.118 250000 mmap 30\n6.1.0 250000 mmap 9\n')
			toosmall.save_fio_needs(path, [
				done % ('mmap', 20, 19, 250000, 5),
				'# bisect mmap: limit=12 MiB -> exit=0 oom_kills=0\n',
				done % ('direct', 14, 13, 250000, 2),
				done % ('mmap', 21, 20, 36000, 2)])
			# The last measurement for its release and memory counts;
			# another kernel's stays, for that kernel.
			self.assertEqual({('6.1.0', '250000', 'mmap'): '9',
					  ('6.12.118', '250000', 'mmap'): '20',
					  ('6.12.118', '250000', 'direct'): '14',
					  ('6.12.118', '36000', 'mmap'): '21'},
					 toosmall.read_fio_needs(path))
			with open(path) as f:
				self.assertIn('6.12.118 250000 direct 14\n', f.read())


class Mutate(unittest.TestCase):
	"""toosmall.py mutate: a --mutate run, judged from its results and
	console (check.sh's group mutate calls it on a real run)."""

	def judge(self, *lines):
		run = toosmall.parse_log(['TOOSMALL-HOST: plan a.one failnth 10',
					  'TOOSMALL:READY', 'TOOSMALL:BEGIN a.one timeout=10']
					 + list(lines) + ['TOOSMALL:END a.one rc=0', 'TOOSMALL:DONE'])
		with tempfile.TemporaryDirectory() as d:
			with open(os.path.join(d, 'results.json'), 'w') as f:
				json.dump(run, f)
			with open(os.path.join(d, 'console.log'), 'w') as f:
				f.write('TOOSMALL:BEGIN a.one timeout=10\n%s\nTOOSMALL:END a.one rc=0\n'
					% '\n'.join(lines))
			out = io.StringIO()
			with redirect_stdout(out):
				rc = toosmall.cmd_mutate(type('A', (), {'out': d}))
		return rc, out.getvalue()

	def test_both_lies_caught(self):
		rc, out = self.judge('# mutate x.both: success as ENOMEM: caught: n=3',
				     '# mutate x.both: failure: 2 failing points as success: all caught (n=1, 2)',
				     'ok 1 one')
		self.assertEqual(0, rc, out)
		self.assertIn('success lie caught in 1', out)

	def test_a_pass_without_its_lines_is_wrong(self):
		rc, out = self.judge('ok 1 one')
		self.assertEqual(1, rc)
		self.assertIn('was --mutate ignored?', out)

	EXCUSED = ("# mutate x.both: failure: 1 of 4 failing points left a success's state "
		   "(n=14 Cannot allocate memory: NOT caught): a fsync can fail after its "
		   "data is on the disk")
	OTHERS = ('# mutate x.both: failure: 4 failing points as success: the others caught '
		  '(n=14 Cannot allocate memory: NOT caught)')

	def test_failures_that_left_a_success_state_said_why(self):
		rc, out = self.judge('# mutate x.both: success as ENOMEM: caught: n=3',
				     self.EXCUSED, self.OTHERS, 'ok 1 one')
		self.assertEqual(0, rc, out)
		self.assertIn('failure lie caught in 1 (in 1,', out)
		self.assertIn('0 wrong', out)

	def test_the_others_caught_needs_its_reason(self):
		rc, out = self.judge('# mutate x.both: success as ENOMEM: caught: n=3',
				     self.OTHERS, 'ok 1 one')
		self.assertEqual(1, rc)
		self.assertIn('failure lies missed without a reason', out)


class BootCause(unittest.TestCase):
	AMX = os.path.join(LOGS, 'amx-fp.log')

	def cause(self, *lines, **kw):
		return toosmall.bootcause(['[    0.1] Run /init as init process'] + list(lines), **kw)

	def test_amx_fixture(self):
		rc, out = toosmall_cli('bootcause', self.AMX)
		self.assertEqual(0, rc)
		self.assertEqual(1, len(out.splitlines()))
		self.assertTrue(out.startswith("the host's XSAVE area is larger than this UML "
					       "kernel's FP buffer: the default kernel has the fix "
					       "(kernel-patches/0001)"))
		self.assertIn('--kernel binaries such as /usr/bin/linux.uml cannot run on this host', out)
		rc, out = toosmall_cli('bootcause', self.AMX, '--host-xsave', '11008',
				       '--kernel-fp', '2696')
		self.assertTrue(out.startswith("the host's XSAVE area (11008 bytes) is larger than "
					       "this UML kernel's FP buffer (2696 bytes): "))

	def test_captured_mismatch(self):
		# A real console: a 6.12 tree whose FP buffer was cut below this
		# host's XSAVE area, the failure AMX hosts meet with 2696 bytes.
		log = os.path.join(LOGS, 'xsave-mismatch.log')
		rc, out = toosmall_cli('bootcause', log, '--host-xsave', '2432',
				       '--kernel-fp', '2048')
		self.assertEqual(0, rc)
		self.assertTrue(out.startswith("the host's XSAVE area (2432 bytes) is larger than "
					       "this UML kernel's FP buffer (2048 bytes): "), out)
		rc, out = toosmall_cli('bootcause', log, '--host-xsave', '2432',
				       '--kernel-fp', 'dynamic')
		self.assertNotIn('XSAVE', out)

	def test_nothing_to_say_on_a_boot_that_worked(self):
		for log in ('pass.log', 'panic-mid-run.log', 'skip.log'):
			self.assertEqual((1, ''), toosmall_cli('bootcause', os.path.join(LOGS, log)), log)

	def test_causes(self):
		panic = '[    0.1] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b'
		for lines, want in (
				(['[    0.1] userspace - ptrace set regs failed, errno = 5', panic],
				 "UML's userspace: ptrace set regs failed with EIO (errno 5)"),
				(['[    0.1] userspace - ptrace set fp regs failed, errno = 14', panic],
				 "the host's XSAVE area"),
				([panic], 'init was killed (exit code 0x0000000b, signal SIGSEGV)'),
				(['[    0.1] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100'],
				 'init exited (exit code 0x00000100, status 1)'),
				(['[    0.1] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)'],
				 'kernel panic before the first test: VFS: Unable to mount root fs'),
				(['Checking PROT_EXEC mmap in /dev/shm...Operation not permitted',
				  '/dev/shm must be not mounted noexec'], 'without noexec'),
				(['Checking environment variables for a tempdir...none found',
				  'Checking if /dev/shm is on tmpfs...No such file or directory',
				  'Checking if /tmp is on tmpfs...no',
				  'Warning: tempdir /tmp is not on tmpfs',
				  'open - cannot create /tmp/vm_file-AbCdEf: Permission denied'],
				 'cannot create its memory file /tmp/vm_file-AbCdEf (Permission denied): set TMPDIR'),
				(['Checking that ptrace can change system call numbers...check_ptrace: '
				  'PTRACE_SETOPTIONS failed: Operation not permitted'], 'ptrace_scope'),
				(['Checking syscall emulation for ptrace...missing'], 'PTRACE_SYSEMU'),
				(['umid "toosmall-1-1" is already in use by pid 42'], 'another UML (pid 42)'),
				(['[    0.0] Too few physical memory! Needed=100, given=50'], 'raise --mem'),
				(['toosmall-sandbox: no virtiofsd socket after 5 s'],
				 'the sandbox could not start the VM: no virtiofsd socket'),
				(['qemu-system-x86_64: -device vhost-user-fs-pci,chardev=root,tag=root: '
				  'vhost_backend_init failed: Protocol error'],
				 'QEMU could not start the guest: -device vhost-user-fs-pci')):
			with self.subTest(want=want):
				self.assertIn(want, self.cause(*lines))
		self.assertNotIn('XSAVE', self.cause('[    0.1] userspace - ptrace set fp regs failed, '
						     'errno = 14', kernel_fp='dynamic'))
		self.assertIsNone(self.cause('[    0.1] Failed to initialize ubd device 0 :Couldn\'t '
					     'determine size of device\'s file'))


KSFT = os.path.join(TOP, 'fixtures', 'ksft')
# In the fixture's order: the runner ran them so.
KSFT_PROGS = ('failnth_ipc_unix_test', 'failnth_ipc_sysv_test', 'oom_test')
UNIX_RESULT = 'not ok 3 selftests: mm/oom: failnth_ipc_unix_test # exit=1'
SYSV_RESULT = 'ok 4 selftests: mm/oom: failnth_ipc_sysv_test'


class Ksft(unittest.TestCase):
	"""toosmall.py ksft on a kselftest runner's output from a real
	upstream/check.sh run (fixtures/ksft): each rule holds there, and
	fails the program once the TAP, its selection or known-issues is
	broken the way it guards against."""

	def ksft(self, tap=lambda s: s, drop_case=None, known=lambda s: s, *extra):
		"""Exit status and {program: [its line, its detail lines]} of
		toosmall.py ksft on the fixture, its TAP edited by @tap, the
		harness name @drop_case left out of the selection, and
		known-issues edited by @known."""
		with tempfile.TemporaryDirectory() as d:
			with open(os.path.join(KSFT, 'make.tap')) as f:
				text = tap(f.read())
			with open(os.path.join(d, 'make.tap'), 'w') as f:
				f.write(text)
			for p in KSFT_PROGS:
				with open(os.path.join(KSFT, p + '.cases')) as f:
					cases = [c for c in f if c.strip() != drop_case]
				with open(os.path.join(d, p + '.cases'), 'w') as f:
					f.writelines(cases)
			with open(os.path.join(TOP, 'known-issues')) as f:
				text = known(f.read())
			with open(os.path.join(d, 'known'), 'w') as f:
				f.write(text)
			rc, out = toosmall_cli('ksft', os.path.join(d, 'make.tap'), d,
					       *KSFT_PROGS, '--known-issues',
					       os.path.join(d, 'known'), '--label',
					       'mm/oom:{prog}', *extra)
		progs, cur = {}, None
		for line in out.splitlines():
			m = re.match(r'^(?:not )?ok mm/oom:(\w+)', line)
			if m:
				cur = progs[m.group(1)] = [line]
			elif line.startswith('#   ') and cur is not None:
				cur.append(line[4:])
			else:
				cur = progs.setdefault('', [])
				cur.append(line)
		return rc, progs

	def assertVerdict(self, progs, prog, ok, *details):
		line = progs[prog][0]
		self.assertEqual(ok, line.startswith('ok '), progs[prog])
		for want in details:
			self.assertTrue(any(want in l for l in progs[prog]),
					'%r not in %r' % (want, progs[prog]))

	def test_real_run(self):
		rc, progs = self.ksft()
		self.assertEqual(0, rc, progs)
		self.assertEqual(set(KSFT_PROGS), set(progs))
		self.assertVerdict(progs, 'failnth_ipc_sysv_test', True,
				   'failnth_ipc_sysv_test: 15 cases: 10 ok, 0 known fail, 5 skip')
		# F1's signature explains each socketpair case's failure.
		self.assertVerdict(progs, 'failnth_ipc_unix_test', True,
				   '18 cases: 8 ok, 4 known fail, 6 skip',
				   'known fail failnth_ipc_unix.unix_sock.socketpair_stream.both: F1 ')
		self.assertVerdict(progs, 'oom_test', True, '3 cases: 3 ok')

	def test_cases_are_judged_as_run_sh_judges_them(self):
		with open(os.path.join(KSFT, 'make.tap')) as f:
			runs = toosmall.parse_ksft(f, 'mm/oom', KSFT_PROGS)
		t = runs['failnth_ipc_unix_test']['cases']['unix_sock.socketpair_stream.both']
		self.assertEqual('failnth_ipc_unix.unix_sock.socketpair_stream.both', t['name'])
		self.assertEqual(('fail', 'failnth'), (t['status'], t['category']))
		# Without the runner's "# ", as on the console.
		self.assertRegex(t['failures'][0], r'^failnth\.h:\d+:both:Expected ')
		self.assertIn('wrote fds', t['failures'][0])
		self.assertEqual('oom.x', toosmall.runner_name('oom_test', 'global.x'))

	def test_signature_must_explain_every_failure(self):
		rc, progs = self.ksft(known=lambda s: s.replace('/wrote fds/', '/wrote no fds/'))
		self.assertEqual(1, rc)
		self.assertVerdict(progs, 'failnth_ipc_unix_test', False,
				   '18 cases: 8 ok, 0 known fail, 6 skip',
				   'not ok failnth_ipc_unix.unix_sock.socketpair_stream.both (fail): '
				   'its known-issues signature does not explain it',
				   '/wrote no fds/ does not explain')
		self.assertVerdict(progs, 'failnth_ipc_sysv_test', True)
		# A second failing point in an excused case is a bug of its own.
		point = '# # failnth.h:1:both:Expected 0 (0) == leaked (1)\n'
		rc, progs = self.ksft(tap=lambda s: s.replace(
			'# not ok 1 unix_sock.socketpair_stream.both', point +
			'# not ok 1 unix_sock.socketpair_stream.both'))
		self.assertEqual(1, rc)
		self.assertVerdict(progs, 'failnth_ipc_unix_test', False, '3 known fail',
				   "does not explain 'failnth.h:1:both:Expected 0 (0) == leaked (1)'")

	def test_not_ok_needs_a_known_issue_of_its_status(self):
		rc, progs = self.ksft(known=lambda s: re.sub(r'(?m)^failnth_ipc_unix\S*\tfail\t', 'x\tfail\t', s))
		self.assertEqual(1, rc)
		self.assertVerdict(progs, 'failnth_ipc_unix_test', False, 'not in known-issues')
		rc, progs = self.ksft(known=lambda s: re.sub(r'(?m)^(failnth_ipc_unix\S*)\tfail\t', r'\1\thang\t', s))
		self.assertVerdict(progs, 'failnth_ipc_unix_test', False, 'known-issues says hang, not fail')
		# An entry for other kernels does not apply to the default one.
		rc, progs = self.ksft(known=lambda s: re.sub(r'(?m)^(failnth_ipc_unix.*)\tdefault[^\t]*\t', r'\1\tother\t', s))
		self.assertVerdict(progs, 'failnth_ipc_unix_test', False, 'not in known-issues')
		rc, progs = self.ksft(lambda s: s, None,
				      lambda s: re.sub(r'(?m)^(failnth_ipc_unix.*)\tdefault[^\t]*\t', r'\1\tother\t', s),
				      '--kernel-kind', 'src')
		self.assertEqual(0, rc, progs)

	def test_plan_and_cases_run_are_the_selected(self):
		rc, progs = self.ksft(tap=lambda s: s.replace('# selftests: mm/oom: failnth_ipc_sysv_test\n# TAP version 13\n# 1..15\n',
							      '# selftests: mm/oom: failnth_ipc_sysv_test\n# TAP version 13\n# 1..14\n'))
		self.assertEqual(1, rc)
		self.assertVerdict(progs, 'failnth_ipc_sysv_test', False,
				   'harness plan 1..14, expected 1..15 (the selected cases)')
		rc, progs = self.ksft(drop_case='sysv.semget.both')
		self.assertVerdict(progs, 'failnth_ipc_sysv_test', False, 'expected 1..14',
				   'unexpected sysv.semget.both')
		rc, progs = self.ksft(tap=lambda s: re.sub(r'(?m)^# ok \d+ sysv\.semget\.both\n', '', s))
		self.assertVerdict(progs, 'failnth_ipc_sysv_test', False, 'missing sysv.semget.both')
		self.assertVerdict(progs, 'oom_test', True)

	def test_program_without_result_line_did_not_finish(self):
		def cut(s):
			return s[:s.index('# not ok 4 unix_sock.socketpair_dgram.both')]
		rc, progs = self.ksft(tap=cut)
		self.assertEqual(1, rc)
		self.assertVerdict(progs, 'failnth_ipc_unix_test', False, 'did not finish',
				   'last case started: failnth_ipc_unix.unix_sock.socketpair_dgram.both')
		self.assertVerdict(progs, 'failnth_ipc_sysv_test', False,
				   'not run: the guest died in failnth_ipc_unix_test')
		rc, progs = self.ksft(tap=lambda s: '')
		self.assertVerdict(progs, 'oom_test', False, 'not run')

	def test_runner_result_line_must_agree(self):
		for prog, line, want in (
				('failnth_ipc_unix_test', UNIX_RESULT.replace('not ok', 'ok')[:-len(' # exit=1')],
				 'the runner says ok though 4 cases are not ok'),
				('failnth_ipc_sysv_test', 'not ok 4 selftests: mm/oom: failnth_ipc_sysv_test # exit=1',
				 'but no case is not ok'),
				('failnth_ipc_sysv_test', SYSV_RESULT + ' # SKIP', 'skipped as a whole'),
				('failnth_ipc_sysv_test', 'not ok 4 selftests: mm/oom: failnth_ipc_sysv_test # exit=139',
				 '# exit=139')):
			with self.subTest(line=line):
				orig = UNIX_RESULT if prog == 'failnth_ipc_unix_test' else SYSV_RESULT
				rc, progs = self.ksft(tap=lambda s: s.replace(orig + '\n', line + '\n'))
				self.assertEqual(1, rc)
				self.assertVerdict(progs, prog, False, want)

	def test_runner_timeout_is_a_hang(self):
		def timeout(s):
			s = re.sub(r'(?m)^# ok \d+ sysv\.semop_undo\.page.*\n', '', s)
			return s.replace(SYSV_RESULT, '#\nnot ok 4 selftests: mm/oom: failnth_ipc_sysv_test # TIMEOUT 120 seconds')
		rc, progs = self.ksft(tap=timeout)
		self.assertVerdict(progs, 'failnth_ipc_sysv_test', False, 'missing sysv.semop_undo.page',
				   "not ok failnth_ipc_sysv.sysv.semop_undo.page (hang): not in known-issues: "
				   "the runner's timeout (120s) killed its program", 'TIMEOUT 120 seconds')

	def test_console_splat_fails_the_run(self):
		# pass.log's kernel has no kind=: not the default one.
		pass_log = os.path.join(LOGS, 'pass.log')
		rc, progs = self.ksft(lambda s: s, None, lambda s: s, '--console', pass_log)
		self.assertVerdict(progs, 'failnth_ipc_unix_test', False, 'not in known-issues')
		rc, progs = self.ksft(lambda s: s, None, lambda s: s, '--console', pass_log,
				      '--kernel-kind', 'default')
		self.assertEqual(0, rc, progs)
		self.assertIn('ok no kernel splat on the guest console (pass.log)', progs[''])
		rc, progs = self.ksft(lambda s: s, None, lambda s: s, '--console',
				      os.path.join(LOGS, 'warning.log'), '--kernel-kind', 'default')
		self.assertEqual(1, rc)
		self.assertRegex(progs[''][0], r'^not ok no kernel splat on the guest console - 1 splats, '
				 r'the first \(warning\) at \S+warning.log:\d+: WARNING: ')
		self.assertVerdict(progs, 'oom_test', True)

	def test_console_splat_of_a_finding_that_struck(self):
		# A splat no case owns is excused only by the signature of an
		# entry that excused a case of this very run (F1 here).
		xfs = os.path.join(LOGS, 'xfs-shutdown.log')
		rc, progs = self.ksft(lambda s: s, None, lambda s: s, '--console', xfs,
				      '--kernel-kind', 'default')
		self.assertEqual(1, rc)
		self.assertRegex(progs[''][0], r'^not ok no kernel splat .* 2 splats, the first \(xfs\)')
		rc, progs = self.ksft(lambda s: s, None,
				      lambda s: s.replace('/wrote fds/', r'/wrote fds|XFS \(ubda\)/'),
				      '--console', xfs, '--kernel-kind', 'default')
		self.assertEqual(0, rc, progs)
		self.assertRegex(progs[''][0], r'^ok no kernel splat .* but those of findings that struck: F1 2$')
		# The signature of a finding that did not strike in this run
		# (F4: no failnth_mm here) excuses nothing.
		rc, progs = self.ksft(lambda s: s, None,
				      lambda s: s.replace('/mapping changed/', r'/mapping changed|XFS \(ubda\)/'),
				      '--console', xfs, '--kernel-kind', 'default')
		self.assertEqual(1, rc)
		self.assertRegex(progs[''][0], r'^not ok no kernel splat')

	def test_console_splat_of_a_finding_that_struck_a_case_that_passed(self):
		# The seed's own checks pass; the console shows F77's premature
		# OOM kill of oom_test, which no case owns in a kselftest
		# runner's run. The seed's "fail|pass" entry for F77 explains
		# it: in run.sh's runs it would have made the case an XFAIL.
		with open(os.path.join(LOGS, 'pass.log')) as f:
			text = f.read()
		oom = [l.replace('xfs_repair', 'oom_test').replace('fio_test', 'oom_test')
		       for l in Attribution.OOM]
		# The same kill of another program (fio_test, for xfs_repair)
		# is not the seed's to explain.
		with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
			f.write(text + '\n'.join(Attribution.OOM) + '\n')
			f.flush()
			rc, progs = self.ksft(lambda s: s, None, lambda s: s, '--console', f.name,
					      '--kernel-kind', 'default')
			self.assertEqual(1, rc)
			self.assertRegex(progs[''][0], r'^not ok no kernel splat .* \(oom_premature\) '
					 r'.*: premature OOM kill of fio_test')
		with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
			f.write(text + '\n'.join(oom) + '\n')
			f.flush()
			args = ('--console', f.name, '--kernel-kind', 'default')
			rc, progs = self.ksft(lambda s: s, None, lambda s: s, *args)
			self.assertEqual(0, rc, progs)
			self.assertRegex(progs[''][0], r'^ok no kernel splat .* but those of findings '
					 r'that struck: F77 1$')
			self.assertVerdict(progs, 'oom_test', True)
			# Without the seed's entry, no case of this run is F77's.
			rc, progs = self.ksft(lambda s: s, None, lambda s: re.sub(
				r'(?m)^oom\.seed\.xfs_global\.\S+\tfail\|pass\tF77.*\n', '', s), *args)
			self.assertEqual(1, rc)
			self.assertRegex(progs[''][0], r'^not ok no kernel splat .* 1 splats, the first '
					 r'\(oom_premature\) .*: premature OOM kill of oom_test')
			# An entry that says the case fails, always: its pass is no
			# proof the finding struck.
			rc, progs = self.ksft(lambda s: s, None, lambda s: s.replace(
				'oom.seed.xfs_global.oom_victim_blocked_on_lock\tfail|pass',
				'oom.seed.xfs_global.oom_victim_blocked_on_lock\tfail'), *args)
			self.assertEqual(1, rc)
			self.assertRegex(progs[''][0], r'^not ok no kernel splat .* \(oom_premature\)')

	def test_known_crash_or_hang(self):
		names = ('failnth_task.task.fork.both', 'fio.xfs.mmap.memcg_below', 'oom.x')
		with tempfile.NamedTemporaryFile('w', suffix='.known') as f:
			f.write('failnth_task.task.fork.*\tcrash\tF2\tother\t/addr 0x40e/ fork fails\n'
				'fio.xfs.*.memcg_*\tcrash|pass\tF2\tother\t/addr 0x40e/ fio forks\n'
				'fio.xfs.*.memcg_below\thang|pass\tF9\tdefault\t/still running/ thrashes\n'
				'oom.x\tfail\tF1\tdefault\t/x/ fails\n')
			f.flush()
			self.assertEqual((0, 'fio.xfs.mmap.memcg_below\thang\tF9\tthrashes\n'),
					 toosmall_cli('known', '--known-issues', f.name,
						      '--status', 'crash,hang', *names))
			rc, out = toosmall_cli('known', '--known-issues', f.name, '--status', 'crash',
					       '--kernel-kind', 'src', *names)
		self.assertEqual(0, rc)
		self.assertEqual(['failnth_task.task.fork.both\tcrash\tF2',
				  'fio.xfs.mmap.memcg_below\tcrash\tF2'],
				 ['\t'.join(l.split('\t')[:3]) for l in out.splitlines()])


class Diff(unittest.TestCase):
	"""toosmall.py diff (runner/diff.py) on runs parsed from the captured
	logs: pass.log is the base kernel, the others a patched one."""

	OPEN = 'failnth.tmpfs_create.open_creat.fails_cleanly'

	def setUp(self):
		self.tmp = tempfile.TemporaryDirectory()
		self.n = 0

	def tearDown(self):
		self.tmp.cleanup()

	def run_dir(self, log, edit=None):
		"""An output dir holding LOG's results.json (after EDIT(run))."""
		run = parse_file(os.path.join(LOGS, log + '.log'))
		if edit:
			edit(run)
		self.n += 1
		d = os.path.join(self.tmp.name, '%d.%s' % (self.n, log))
		os.mkdir(d)
		with open(os.path.join(d, 'results.json'), 'w') as f:
			json.dump(run, f)
		return d

	def diff(self, base, patched, rb=(), rp=()):
		"""Exit status, stdout and diff.json of base against patched, each
		then re-run as RB and RP say (logs)."""
		out = os.path.join(self.tmp.name, 'diff%d.json' % self.n)
		args = ['diff', self.run_dir(base), self.run_dir(patched), '--output', out]
		for log in rb:
			args += ['--confirm-base', self.run_dir(log)]
		for log in rp:
			args += ['--confirm-patched', self.run_dir(log)]
		rc, text = toosmall_cli(*args)
		with open(out) as f:
			return rc, text, json.load(f)

	def test_regression_confirmed(self):
		rc, text, d = self.diff('pass', 'stall', ['pass', 'pass'], ['stall', 'stall'])
		self.assertEqual(1, rc, text)
		self.assertEqual([(self.OPEN, 'regressed', True, ['hang'] * 3)],
				 [(v['test'], v['kind'], v['confirmed'], v['patched'])
				  for v in d['verdicts']])
		self.assertEqual({'tests': 1, 'pass': 1}, d['unchanged'])
		self.assertIn('REGRESSED  ' + self.OPEN, text)
		self.assertTrue(text.endswith('1 regressed, 0 fixed, 0 flaky\n'), text)

	def test_regression_not_rerun_still_fails(self):
		rc, text, d = self.diff('pass', 'stall')
		self.assertEqual(1, rc)
		self.assertFalse(d['verdicts'][0]['confirmed'])
		self.assertIn('(not re-run)', text)

	def test_flaky_is_not_a_regression(self):
		rc, text, d = self.diff('pass', 'stall', ['pass', 'pass'], ['pass', 'stall'])
		self.assertEqual(0, rc, text)
		self.assertEqual(['flaky'], [v['kind'] for v in d['verdicts']])
		self.assertIn('FLAKY', text)
		self.assertEqual((0, 1), (d['regressed'], d['flaky']))

	def test_fixed(self):
		rc, text, d = self.diff('fail', 'pass', ['fail'], ['pass'])
		self.assertEqual(0, rc, text)
		self.assertEqual(['fixed', 'fixed'], [v['kind'] for v in d['verdicts']])
		self.assertEqual(2, d['fixed'])

	def test_new_splat(self):
		rc, text, d = self.diff('pass', 'warning', ['pass'], ['warning'])
		self.assertEqual(1, rc)
		self.assertEqual([('new', True)], [(x['change'], x['confirmed']) for x in d['splats']])
		# Digits and addresses blanked: they move with any patch.
		self.assertNotRegex(d['splats'][0]['splat'], r'\d')
		self.assertRegex(d['splats'][0]['splat'], r'^warning: ')

	def test_no_change(self):
		rc, text, d = self.diff('pass', 'pass', ['pass'], ['pass'])
		self.assertEqual(0, rc)
		self.assertEqual(({'tests': 2, 'pass': 2}, []), (d['unchanged'], d['verdicts']))
		self.assertIn('\nno change\n', text)

	def test_failnth_figures(self):
		def more_points(run):
			m = run['tests'][0]['metrics']['failnth']['tmpfs_open_creat']
			m['points'] += 2
			m['errnos']['ENOMEM'] += 2
		base = self.run_dir('pass')
		patched = self.run_dir('pass', more_points)
		rc, text = toosmall_cli('diff', base, patched, '--candidates')
		self.assertEqual((0, self.OPEN + '\n'), (rc, text))
		rc, text = toosmall_cli('diff', base, patched,
					'--confirm-base', self.run_dir('pass'),
					'--confirm-patched', self.run_dir('pass', more_points))
		self.assertEqual(0, rc, text)
		self.assertIn('FAILNTH    tmpfs_open_creat', text)
		self.assertIn('patched points=7 success=1', text)
		# Re-run, the patched kernel gives the base's figures once: noise.
		rc, text = toosmall_cli('diff', base, patched,
					'--confirm-base', self.run_dir('pass'),
					'--confirm-patched', self.run_dir('pass'))
		self.assertIn('vary from run to run on one kernel (not a change): tmpfs_open_creat', text)

	def test_sites_gained_and_lost(self):
		"""--sites runs: a site only one kernel's faults reached is named,
		per program; the sites both reached are not."""
		def moved(run):
			for t in run['tests']:
				s = t.get('sites')
				if s and 'getname_flags' in s['by_site']:
					s['by_site']['kmem_cache_alloc_lru'] = s['by_site'].pop('getname_flags')
			run['sites']['by_site']['kmem_cache_alloc_lru'] = \
				run['sites']['by_site'].pop('getname_flags')
		rc, text = toosmall_cli('diff', self.run_dir('sites'), self.run_dir('sites', moved),
					'--output', os.path.join(self.tmp.name, 'sites.json'))
		with open(os.path.join(self.tmp.name, 'sites.json')) as f:
			d = json.load(f)
		self.assertEqual(0, rc, text)
		self.assertEqual({'base': 4, 'patched': 4,
				  'gained': {'failnth_fs': ['kmem_cache_alloc_lru']},
				  'lost': {'failnth_fs': ['getname_flags']}}, d['sites'])
		self.assertIn('sites: 4 base, 4 patched\n'
			      '  + failnth_fs: kmem_cache_alloc_lru\n'
			      '  - failnth_fs: getname_flags\n', text)
		self.assertNotIn('no change', text)
		# The same sites on both: nothing to say of them.
		rc, text = toosmall_cli('diff', self.run_dir('sites'), self.run_dir('sites'))
		self.assertEqual(0, rc)
		self.assertIn('sites: 4 base, 4 patched\nno change\n', text)

	def test_bad_input(self):
		rc, text = toosmall_cli('diff', self.tmp.name, self.run_dir('pass'))
		self.assertEqual((2, ''), (rc, text))


def check_run(outdir, known_path):
	"""A real run's verdicts against the written-up findings."""
	with open(os.path.join(outdir, 'results.json')) as f:
		run = json.load(f)
	findings = open(os.path.join(TOP, 'FINDINGS.md')).read() \
		if os.path.exists(os.path.join(TOP, 'FINDINGS.md')) else ''
	known = toosmall.load_known(known_path) if os.path.exists(known_path) else []
	problems = []
	xfails = []
	for e in known:
		for fid in e['fid'].split('+'):
			if not re.search(r'^#+ *%s\b' % re.escape(fid), findings, re.M):
				problems.append('%s: known-issues names %s, which FINDINGS.md lacks' %
						(e['where'], fid))
	if not run['tests']:
		problems.append('the run has no tests')
	for t in run['tests']:
		if t['status'] == 'pass' and 'xpass' in t:
			# The finding no longer strikes (fixed, or the test
			# changed): the entry would excuse a future failure.
			problems.append('%s: passed, XPASS %s: stale known-issues entry: remove it, '
					'or add "|pass" to its STATUS if the finding strikes only '
					'now and then' % (t['name'], t['xpass']))
			continue
		if t['status'] == 'pass':
			continue
		if t['status'] == 'skip':
			if not t['reason']:
				problems.append('%s skipped without a reason' % t['name'])
			continue
		if 'xfail' in t:
			xfails.append('XFAIL %s: %s' % (t['name'], t['xfail']))
			continue
		problems.append('%s: %s (%s) is not a written-up finding: write it up in '
				'FINDINGS.md and known-issues' % (t['name'], t['status'], t['reason']))
		problems.extend(excerpt(outdir, t['name']))
	# The problems first: a reader that keeps only the head of a long
	# report (CI's) must still see what failed.
	for p in problems + xfails:
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
