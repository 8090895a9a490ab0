#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutate_verdict.py OUT: judge a ./run.sh --mutate run of fail-nth tests.

Under --mutate every fail-nth sweep tells its checks the opposite of what
the call returned (failnth.h, failnth_mutate()); a test passes when its
checks noticed. This says whether every test did, and whether the guest
really mutated: each test that passed must show, between its BEGIN and END
on the console, both of its "mutate" lines (the success lie caught or not
tried with a reason, the failure lie caught at every failing point, or no
failing point), or a guest that ignored --mutate would pass as well. Skips
need a reason. Exit 0 when all is well; the last line of output is the
summary either way.
"""

import json
import re
import sys

SUCCESS = re.compile(r'# mutate \S+: success as ENOMEM: (caught: .+|not tried: .+)')
FAILURE = re.compile(r'# mutate \S+: failure: (\d+ failing points as success: all caught .+|'
		     r'no point failed the action|not tried: .+)')


def sections(log):
	"""Each test's console lines, by name."""
	out = {}
	for m in re.finditer(r'TOOSMALL:BEGIN (\S+)[^\n]*\n(.*?)TOOSMALL:END ', log, re.S):
		out[m.group(1)] = m.group(2)
	return out


def main():
	out = sys.argv[1]
	with open(out + '/results.json') as f:
		run = json.load(f)
	with open(out + '/console.log', errors='replace') as f:
		secs = sections(f.read())

	bad = 0
	count = {'caught': 0, 'unseen': 0, 'failure': 0, 'nofail': 0, 'xfail': 0}
	for t in run['tests']:
		text = secs.get(t['name'], '')
		if t['status'] == 'skip' and t['reason']:
			continue
		if 'xfail' in t:
			# A written-up finding ended the sweep (known-issues):
			# the kernel's failure, not a check that missed a lie.
			print('%s: %s, XFAIL %s' % (t['name'], t['status'], t['xfail']))
			count['xfail'] += 1
			continue
		if t['status'] != 'pass':
			print('%s: %s: %s' % (t['name'], t['status'], t['reason']))
			bad += 1
			continue
		s, f = SUCCESS.search(text), FAILURE.search(text)
		if not s or not f:
			print('%s: passed without its mutate lines: was --mutate ignored?' % t['name'])
			bad += 1
			continue
		count['caught' if s.group(1).startswith('caught') else 'unseen'] += 1
		count['failure' if f.group(1)[0].isdigit() else 'nofail'] += 1
	print('%d tests: the success lie caught in %d, not tried in %d (said why); '
	      'the failure lie caught in %d, not tried in %d (no failing point, '
	      'or said why); %d xfail (a written-up finding); %d wrong'
	      % (len(run['tests']), count['caught'], count['unseen'],
	         count['failure'], count['nofail'], count['xfail'], bad))
	return 1 if bad or not count['caught'] else 0


if __name__ == '__main__':
	sys.exit(main())
