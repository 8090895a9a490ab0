# SPDX-License-Identifier: GPL-2.0
"""What a patch changes on the error paths: two runs of one suite compared.

  toosmall.py diff BASE_DIR PATCHED_DIR [--confirm-base DIR]...
                   [--confirm-patched DIR]... [--output FILE] [--candidates]

BASE_DIR and PATCHED_DIR are run output dirs (their results.json); the
--confirm dirs are re-runs, on each kernel, of the tests that differed
(--candidates prints their names, one a line, for run.sh to re-run). A
difference counts only when every run of a kernel agrees and the two kernels
never agree: a test that changes its verdict between runs of one kernel is
flaky, not a regression.

What is compared, per test:
  verdict   bad (fail, hang, crash; an XFAIL too: the kernel still
            fails it) or good (pass, skip; an XPASS too);
  splats    by kind and title, digits and addresses blanked (they move
            with any patch);
  fail-nth  per scenario and mode: points, success, short, errno and the
            errno histogram (not the time);
  sites     with --sites: allocation call sites per program;
and per program its tests' time, reported when it moved by more than
TIME_NOISE (measured: two runs of one kernel).

Exit 0 when nothing regressed, 1 when something did (a regression that
could not be re-run counts), 2 on bad input.
"""

import json
import os
import re
import sys

BAD = ('fail', 'hang', 'crash')
FAILNTH_KEYS = ('points', 'success', 'short', 'errno')
# A program's time must move by both to be reported. Measured (make
# check-baseline, the two kernels' runs side by side): the programs the
# patch did not touch moved by at most 0.5 s and 1 %; fio's runs, whose
# jobs end on ENOMEM or an OOM kill, vary more, hence the margin.
TIME_NOISE_S = 3.0
TIME_NOISE_PCT = 20.0


class DiffError(Exception):
	pass


def load_run(d):
	path = os.path.join(d, 'results.json')
	try:
		with open(path) as f:
			run = json.load(f)
	except OSError as e:
		raise DiffError('%s: %s: pass a run\'s --output dir' % (path, e.strerror))
	except ValueError as e:
		raise DiffError('%s: not JSON (%s): the run was cut short' % (path, e))
	if not isinstance(run, dict) or 'tests' not in run:
		raise DiffError('%s: no tests in it: not a toosmall results.json' % path)
	run['_dir'] = d
	run['_by'] = {t['name']: t for t in run['tests']}
	return run


def verdict(t):
	return 'bad' if t['status'] in BAD else 'good'


def label(t):
	"""The status as the summary shows it."""
	return 'xfail' if 'xfail' in t else 'xpass' if 'xpass' in t else t['status']


SPLAT_BLANK = re.compile(r'0x[0-9a-f]+|\b[0-9a-f]{8,16}\b|\d+')


def splat_key(s):
	return '%s: %s' % (s['kind'], SPLAT_BLANK.sub('N', s['title']))


def splat_keys(t):
	return sorted({splat_key(s) for s in t.get('splats', [])})


def failnth_figures(t):
	"""scenario.mode -> (points, success, short, errno, histogram)."""
	out = {}
	for key, m in t.get('metrics', {}).get('failnth', {}).items():
		if 'points' not in m:
			continue
		out[key] = tuple(m.get(k) for k in FAILNTH_KEYS) + \
			(tuple(sorted(m.get('errnos', {}).items())),)
	return out


def program(name):
	return name.split('.', 1)[0]


def test_runs(name, first, confirms):
	"""The test's records on one kernel: the full run's, then each re-run
	that ran it."""
	out = [first['_by'][name]] if name in first['_by'] else []
	out += [c['_by'][name] for c in confirms if name in c['_by']]
	return out


def differs(b, p):
	"""Whether one test's records differ between the two full runs."""
	return (verdict(b) != verdict(p) or splat_keys(b) != splat_keys(p) or
		failnth_figures(b) != failnth_figures(p))


def candidates(base, patched):
	names = []
	for t in base['tests']:
		p = patched['_by'].get(t['name'])
		if p is not None and t['name'] != 'run.kernel' and differs(t, p):
			names.append(t['name'])
	return names


def classify(bvals, pvals):
	"""One figure's values, run by run, on each kernel: None when both
	kernels gave the same steady value; 'flaky' when either kernel's runs
	disagree among themselves; else 'changed', or 'unconfirmed' when a
	kernel ran the test only once."""
	bs, ps = set(bvals), set(pvals)
	if len(bs) > 1 or len(ps) > 1:
		return 'flaky'
	if bs == ps:
		return None
	return 'changed' if len(bvals) > 1 and len(pvals) > 1 else 'unconfirmed'


def compare_verdicts(name, bruns, pruns):
	bv = [verdict(t) for t in bruns]
	pv = [verdict(t) for t in pruns]
	c = classify(bv, pv)
	if c is None:
		return None
	kind = c
	if c in ('changed', 'unconfirmed'):
		kind = 'regressed' if pv[0] == 'bad' else 'fixed'
	p = pruns[0]
	return {'test': name, 'kind': kind, 'confirmed': c == 'changed',
		'base': [label(t) for t in bruns],
		'patched': [label(t) for t in pruns],
		'reason': p.get('reason', '') if pv[0] == 'bad' else bruns[0].get('reason', '')}


def compare_splats(name, bruns, pruns):
	out = []
	keys = set()
	for t in bruns + pruns:
		keys.update(splat_keys(t))
	for k in sorted(keys):
		bseen = [k in splat_keys(t) for t in bruns]
		pseen = [k in splat_keys(t) for t in pruns]
		c = classify(bseen, pseen)
		if c is None:
			continue
		out.append({'test': name, 'splat': k,
			    'change': 'new' if pseen[0] else 'gone',
			    'confirmed': c == 'changed', 'flaky': c == 'flaky',
			    'seen': {'base': '%d/%d' % (sum(bseen), len(bseen)),
				     'patched': '%d/%d' % (sum(pseen), len(pseen))}})
	return out


def figures_dict(v):
	if v is None:
		return None
	d = dict(zip(FAILNTH_KEYS, v[:len(FAILNTH_KEYS)]))
	d['errnos'] = dict(v[-1])
	return d


def compare_failnth(name, bruns, pruns):
	out = []
	keys = set()
	for t in bruns + pruns:
		keys.update(failnth_figures(t))
	for k in sorted(keys):
		bv = [failnth_figures(t).get(k) for t in bruns]
		pv = [failnth_figures(t).get(k) for t in pruns]
		c = classify(bv, pv)
		if c is None:
			continue
		out.append({'test': name, 'scenario': k,
			    'confirmed': c == 'changed', 'flaky': c == 'flaky',
			    'base': figures_dict(bv[0]), 'patched': figures_dict(pv[0]),
			    'runs': {'base': len(bv), 'patched': len(pv)}})
	return out


def sites_by_program(run):
	out = {}
	for t in run['tests']:
		for site in t.get('sites', {}).get('by_site', {}):
			out.setdefault(program(t['name']), set()).add(site)
	return out


def compare_sites(base, patched):
	if not base.get('sites') and not patched.get('sites'):
		return None
	b, p = sites_by_program(base), sites_by_program(patched)
	out = {'base': len({s for v in b.values() for s in v}),
	       'patched': len({s for v in p.values() for s in v}),
	       'gained': {}, 'lost': {}}
	for prog in sorted(set(b) | set(p)):
		gained = sorted(p.get(prog, set()) - b.get(prog, set()))
		lost = sorted(b.get(prog, set()) - p.get(prog, set()))
		if gained:
			out['gained'][prog] = gained
		if lost:
			out['lost'][prog] = lost
	return out


def program_times(run, names):
	out = {}
	for t in run['tests']:
		if t['name'] in names:
			out[program(t['name'])] = out.get(program(t['name']), 0.0) + \
				(t.get('duration_s') or 0.0)
	return out


def compare_times(base, patched):
	names = set(base['_by']) & set(patched['_by'])
	b, p = program_times(base, names), program_times(patched, names)
	out = []
	for prog in sorted(b):
		d = p[prog] - b[prog]
		pct = 100.0 * d / b[prog] if b[prog] else 0.0
		if abs(d) > TIME_NOISE_S and abs(pct) > TIME_NOISE_PCT:
			out.append({'program': prog, 'base_s': round(b[prog], 1),
				    'patched_s': round(p[prog], 1),
				    'delta_pct': round(pct)})
	return out


def kernel_line(run):
	k = run.get('kernel', {})
	return '%s (%s)' % (k.get('release', '?'), k.get('source', '?'))


def diff_runs(base, patched, cbase, cpatched):
	"""The diff model (diff.json): see the README's "Pre-submit diff"."""
	only_b = sorted(set(base['_by']) - set(patched['_by']))
	only_p = sorted(set(patched['_by']) - set(base['_by']))
	verdicts, splats, failnth = [], [], []
	changed = set()
	for t in base['tests']:
		name = t['name']
		if name not in patched['_by']:
			continue
		bruns = test_runs(name, base, cbase)
		pruns = test_runs(name, patched, cpatched)
		v = compare_verdicts(name, bruns, pruns)
		s = compare_splats(name, bruns, pruns)
		# A test whose verdict changed says so; its sweep's figures
		# (cut short by a hang, say) would only repeat it.
		f = [] if v else compare_failnth(name, bruns, pruns)
		if v:
			verdicts.append(v)
		splats += s
		failnth += f
		if v or s or f:
			changed.add(name)
	same = [t for t in patched['tests'] if t['name'] in base['_by'] and
		t['name'] not in changed]
	unchanged = {'tests': len(same)}
	for t in same:
		unchanged[label(t)] = unchanged.get(label(t), 0) + 1
	count = {k: sum(1 for v in verdicts if v['kind'] == k)
		 for k in ('regressed', 'fixed', 'flaky')}
	# A test that only the patched kernel ran and failed is new trouble.
	regressed = count['regressed'] + sum(1 for n in only_p
					     if verdict(patched['_by'][n]) == 'bad')
	return {'base': {'dir': base['_dir'], 'kernel': base.get('kernel', {}),
			 'totals': base.get('totals', {})},
		'patched': {'dir': patched['_dir'], 'kernel': patched.get('kernel', {}),
			    'totals': patched.get('totals', {})},
		'reruns': {'base': len(cbase), 'patched': len(cpatched)},
		'unchanged': unchanged,
		'verdicts': verdicts, 'splats': splats, 'failnth': failnth,
		'only_base': only_b, 'only_patched': only_p,
		'sites': compare_sites(base, patched),
		'time': compare_times(base, patched),
		'regressed': regressed, 'fixed': count['fixed'],
		'flaky': count['flaky'],
		'exit': 1 if regressed else 0}


def fig(d):
	if d is None:
		return 'not swept'
	h = ' '.join('%s:%d' % kv for kv in sorted(d['errnos'].items()))
	return ' '.join('%s=%d' % (k, d[k]) for k in FAILNTH_KEYS
			if d.get(k) is not None) + (' (%s)' % h if h else '')


def report(d):
	"""The table for stdout."""
	out = ['toosmall diff: base %s' % kernel_line(d['base']),
	       '               patched %s' % kernel_line(d['patched'])]
	r = d['reruns']
	out.append('each test that differed was run %d more time(s) on base and %d on patched'
		   % (r['base'], r['patched']))
	u = d['unchanged']
	out.append('unchanged: %d tests (%s)' % (u['tests'], ', '.join(
		'%d %s' % (u[s], s) for s in sorted(u) if s != 'tests')))
	for v in d['verdicts']:
		line = '%-10s %-48s base %s, patched %s' % (
			v['kind'].upper(), v['test'], ','.join(v['base']),
			','.join(v['patched']))
		if not v['confirmed'] and v['kind'] != 'flaky':
			line += ' (not re-run)'
		out.append(line)
		if v['reason'] and v['kind'] != 'flaky':
			out.append('           %s' % v['reason'][:160])
	for s in d['splats']:
		out.append('%-10s %-48s %s (base %s, patched %s)' % (
			'SPLAT ' + s['change'] if not s['flaky'] else 'SPLAT flaky',
			s['test'], s['splat'][:100], s['seen']['base'], s['seen']['patched']))
	for f in d['failnth']:
		if f['flaky']:
			continue
		out.append('%-10s %-48s%s' % ('FAILNTH', f['scenario'],
					     '' if f['confirmed'] else ' (not re-run)'))
		out.append('           base    %s' % fig(f['base']))
		out.append('           patched %s' % fig(f['patched']))
	noisy = [f['scenario'] for f in d['failnth'] if f['flaky']]
	if noisy:
		out.append('fail-nth sweeps whose figures vary from run to run on one kernel (not a change): %s'
			   % ' '.join(noisy))
	for n in d['only_base']:
		out.append('%-10s %s' % ('GONE', n))
	for n in d['only_patched']:
		out.append('%-10s %s' % ('NEW', n))
	s = d['sites']
	if s:
		out.append('sites: %d base, %d patched' % (s['base'], s['patched']))
		for prog in sorted(set(s['gained']) | set(s['lost'])):
			for site in s['gained'].get(prog, []):
				out.append('  + %s: %s' % (prog, site))
			for site in s['lost'].get(prog, []):
				out.append('  - %s: %s' % (prog, site))
	for t in d['time']:
		out.append('TIME       %-48s %.1f s -> %.1f s (%+d%%)' % (
			t['program'], t['base_s'], t['patched_s'], t['delta_pct']))
	if not (d['verdicts'] or d['splats'] or d['failnth'] or d['only_base'] or
		d['only_patched'] or (s and (s['gained'] or s['lost'])) or d['time']):
		out.append('no change')
	out.append('%d regressed, %d fixed, %d flaky' % (d['regressed'], d['fixed'],
							 d['flaky']))
	return '\n'.join(out) + '\n'


def cmd_diff(args, write_atomic):
	try:
		base, patched = load_run(args.base), load_run(args.patched)
		cbase = [load_run(c) for c in args.confirm_base or []]
		cpatched = [load_run(c) for c in args.confirm_patched or []]
	except DiffError as e:
		print('toosmall: error: %s' % e, file=sys.stderr)
		return 2
	if args.candidates:
		for n in candidates(base, patched):
			print(n)
		return 0
	d = diff_runs(base, patched, cbase, cpatched)
	if args.output:
		write_atomic(args.output, json.dumps(d, indent=1) + '\n')
	sys.stdout.write(report(d))
	return d['exit']
