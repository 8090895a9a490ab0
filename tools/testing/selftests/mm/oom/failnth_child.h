/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fail-nth sweeps of a call made in a child process
 *
 * failnth_sweep() (failnth.h) counts the injection points of the calling
 * thread. Some calls cannot run there: a page fault that may end in a
 * signal, an execve() that replaces the image, an unshare() that changes
 * the caller for good. failnth_child_sweep() runs each point in a fresh
 * child instead: the child locks its memory (so that no copy-on-write fault
 * of its own is counted), prepares, arms its own fail-nth with n, makes the
 * call, disarms, checks the effect itself and reports through a pipe. The
 * parent classifies the child's fate:
 *
 *  - a report: success, short count or errno, as in failnth.h, with the
 *    child's own verdict on the effect;
 *  - killed by a signal: clean only if the signal is in the scenario's
 *    fates list (each cited from the source) and the fault fired; whether
 *    it fired is read from the zombie's /proc/<pid>/fail-nth before reaping;
 *  - with traced_exec, the child is ptraced with PTRACE_O_TRACEEXEC and a
 *    successful execve() stops it before the new image runs a single
 *    instruction: the parent reads the count there, so the sweep counts the
 *    points of execve() alone, then disarms the child and lets the new
 *    image exit with exec_code;
 *  - no fate within the point's deadline: a stall ("# stall:" line, the
 *    child is killed, the sweep stops).
 *
 * FAILNTH_ONLY=<n> in the environment runs point n alone (a reproducer for
 * one point, e.g. with FAILNTH_SITES=1 for its stack).
 *
 * One summary line per sweep, the format of failnth.h plus the children
 * killed (points = success + short + errno + killed), and one line with
 * the fatal signals:
 *
 *   # failnth <scenario>.<mode>: points=.. success=.. short=.. errno=..
 *     killed=.. wrong=.. secs=.. (ENOMEM:..)    (one line)
 *   # failnth_fate <scenario>.<mode>: exited=.. killed=.. sigsegv=..
 */

#ifndef __SELFTESTS_MM_OOM_FAILNTH_CHILD_H
#define __SELFTESTS_MM_OOM_FAILNTH_CHILD_H

#include <poll.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>

#include "failnth.h"

/* Bound on one point: a fork, the call, an exit. */
#define FAILNTH_CHILD_POINT_S 10

struct failnth_child_scenario {
	/* In the summary line and in every failure. */
	const char *name;
	/* Clean errnos besides success, 0-terminated. */
	const int *allowed;
	/* Clean fatal signals of the child after a fired fault, 0-terminated. */
	const int *fates;
	/* What a complete success returns; a smaller count is short. 0: none. */
	long full;
	/* As in struct failnth_scenario. */
	const char *success_unseen;
	/* Bound on the whole sweep, below the test's TEST_F_TIMEOUT. */
	unsigned int deadline_s;
	/* debugfs verbose level of failslab and fail_page_alloc (0..2). */
	int fault_verbose;
	/* Stop the child at a successful execve() of its action (ptrace). */
	bool traced_exec;
	/* With traced_exec: the exit code of the image the action executes. */
	int exec_code;
	/* Passed to every callback. */
	void *arg;
	/* In the child, unarmed: returns 0 or -errno. Optional. */
	int (*prepare)(void *arg);
	/* In the child, armed: the call under test, >= 0 or -errno. */
	int (*action)(void *arg);
	/*
	 * In the child, unarmed, after the action: whether the effect matches
	 * @ret; if not, what it found in @why.
	 */
	bool (*check)(void *arg, int ret, char *why, size_t size);
};

/* What a child writes to the parent after its action. */
struct failnth_child_report {
	int ret;
	int fired;
	int ok;
	char why[240];
};

struct failnth_child_stats {
	struct failnth_stats st;
	int exited;
	int killed;
	int by_signal[NSIG];
};

/*
 * The child's side of one point; never returns. Exit code 0 after a report,
 * 1..3 when it could not get as far as the action.
 */
static void failnth_child_run(const struct failnth_child_scenario *sc, int n,
			      bool lie, int report_fd)
{
	struct failnth_child_report rep = {};
	int fd, err;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		_exit(1);
	/* Break copy-on-write now: our own faults are not the action's. */
	if (mlockall(MCL_CURRENT))
		_exit(1);
	fd = open(FAILNTH_PROC, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(2);
	if (sc->prepare && sc->prepare(sc->arg))
		_exit(3);
	if (sc->traced_exec) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(3);
	}
	err = n ? failnth_arm(fd, n) : 0;
	if (err)
		_exit(2);
	/* Between arm and disarm: no stdio, no new memory. */
	rep.ret = sc->action(sc->arg);
	rep.fired = n ? failnth_disarm(fd) : 0;
	/* FAILNTH_MUTATE: the check is told the opposite (failnth_mutate()). */
	rep.ok = sc->check(sc->arg,
			   lie ? failnth_lie_ret(rep.ret, sc->full) : rep.ret,
			   rep.why, sizeof(rep.why));
	if (write(report_fd, &rep, sizeof(rep)) != sizeof(rep))
		_exit(2);
	_exit(0);
}

/*
 * Waits for a state change of @pid among @options (WEXITED, WSTOPPED),
 * without consuming an exit: 0 with @info filled in, -ETIMEDOUT after
 * @timeout_s, or -errno. Polls: waitid() has no deadline of its own.
 */
static int failnth_child_wait(pid_t pid, int options, siginfo_t *info,
			      unsigned int timeout_s)
{
	const struct timespec tick = { 0, 1000 * 1000 };
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		memset(info, 0, sizeof(*info));
		if (waitid(P_PID, pid, info, options | WNOHANG | WNOWAIT))
			return -errno;
		if (info->si_pid == pid)
			break;
		if (failnth_elapsed(&start) > timeout_s)
			return -ETIMEDOUT;
		nanosleep(&tick, NULL);
	}
	/* A stop is consumed now; an exit once the zombie has been read. */
	if (info->si_code == CLD_STOPPED || info->si_code == CLD_TRAPPED) {
		siginfo_t again;

		if (waitid(P_PID, pid, &again, WSTOPPED | WNOHANG))
			return -errno;
	}
	return 0;
}

/* Reaps @pid, which has exited, as found by failnth_child_wait(). */
static void failnth_child_reap(pid_t pid)
{
	siginfo_t info;

	waitid(P_PID, pid, &info, WEXITED);
}

/* Kills and reaps @pid, after a stall or a broken protocol. */
static void failnth_child_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	failnth_child_reap(pid);
}

/* Whether @sig is among @sc's clean fates. */
static bool failnth_child_fate_ok(const struct failnth_child_scenario *sc,
				  int sig)
{
	const int *f;

	for (f = sc->fates; f && *f; f++)
		if (*f == sig)
			return true;
	return false;
}

/* Whether @sc's errno list has @err. */
static bool failnth_child_errno_ok(const struct failnth_child_scenario *sc,
				   int err)
{
	const int *a;

	for (a = sc->allowed; a && *a; a++)
		if (*a == err)
			return true;
	return false;
}

/*
 * Whether a point that ended with signal @sig (0: none) and @ret is clean
 * given @fired; if not, says why.
 */
static bool failnth_child_clean(const struct failnth_child_scenario *sc,
				int sig, int ret, int fired, char *why,
				size_t size)
{
	if (sig && !fired)
		snprintf(why, size, "killed without an injected fault");
	else if (sig && !failnth_child_fate_ok(sc, sig))
		snprintf(why, size, "signal not in the clean fates");
	else if (sig)
		return true;
	else if (ret < 0 && !fired)
		snprintf(why, size, "failed without an injected fault");
	else if (ret >= 0 && sc->full && ret < sc->full && !fired)
		snprintf(why, size,
			 "short count %d of %ld without an injected fault", ret,
			 sc->full);
	else if (ret < 0 && !failnth_child_errno_ok(sc, -ret))
		snprintf(why, size, "errno not in the allowed list");
	else
		return true;
	return false;
}

/*
 * The ptrace half of a traced_exec point: the child stops at its
 * raise(SIGSTOP), then either at the exec event or not at all. On return,
 * @info holds the child's end (exited or killed, not yet reaped) and *fired
 * is set when the exec event was seen (then *ret is 0). Returns 0, or
 * -ETIMEDOUT, or -EPROTO with @why filled in.
 */
static int failnth_child_trace(const struct failnth_child_scenario *sc,
			       pid_t pid, int nth_fd, siginfo_t *info,
			       int *fired, int *ret, bool *execed, char *why,
			       size_t size)
{
	int err, sig;

	err = failnth_child_wait(pid, WEXITED | WSTOPPED, info,
				 FAILNTH_CHILD_POINT_S);
	if (err)
		return err;
	if (info->si_code != CLD_TRAPPED || info->si_status != SIGSTOP) {
		const char *fmt =
			"child did not stop before its action (code %d status %d)";

		snprintf(why, size, fmt, info->si_code, info->si_status);
		return -EPROTO;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL)) {
		snprintf(why, size, "ptrace: %s", strerror(errno));
		return -EPROTO;
	}
	for (;;) {
		err = failnth_child_wait(pid, WEXITED | WSTOPPED, info,
					 FAILNTH_CHILD_POINT_S);
		if (err)
			return err;
		if (info->si_code != CLD_TRAPPED)
			return 0;
		sig = info->si_status;
		if (sig == (SIGTRAP | PTRACE_EVENT_EXEC << 8)) {
			/* The new image has not run yet: read, disarm, go. */
			*fired = failnth_disarm(nth_fd);
			*ret = 0;
			*execed = true;
			sig = 0;
		}
		if (ptrace(*execed ? PTRACE_DETACH : PTRACE_CONT, pid, NULL,
			   (void *)(long)sig)) {
			snprintf(why, size, "ptrace resume: %s",
				 strerror(errno));
			return -EPROTO;
		}
	}
}

/*
 * One point in a child. Returns 1 if the fault fired, 0 if not (the sweep
 * is over), -1 when the sweep itself broke or stalled (already reported).
 */
static int failnth_child_point(struct __test_metadata *_metadata,
			       const struct failnth_child_scenario *sc, int n,
			       struct failnth_child_stats *cs)
{
	struct failnth_child_report rep = {};
	char why[512] = "", more[512], name[16], path[64];
	int pipefd[2], nth_fd, err, fired = -1, ret = 0, sig = 0;
	const char *early_exit =
		"child exited %d before reporting (1: setup, 2: fail-nth, 3: prepare)";
	const char *outcome = "?";
	bool ok = true, execed = false;
	siginfo_t info;
	ssize_t len;
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid)
	{
		TH_LOG("%s: n=%d: fork: %s", sc->name, n, strerror(errno));
	}
	if (!pid) {
		close(pipefd[0]);
		failnth_child_run(sc, n, false, pipefd[1]);
	}
	close(pipefd[1]);
	snprintf(path, sizeof(path), "/proc/%d/fail-nth", pid);
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		err = -errno;
		failnth_child_kill(pid);
		close(pipefd[0]);
		EXPECT_EQ(0, err)
		{
			TH_LOG("%s: n=%d: opening %s: %s", sc->name, n, path,
			       strerror(-err));
		}
		return -1;
	}
	if (sc->traced_exec)
		err = failnth_child_trace(sc, pid, nth_fd, &info, &fired, &ret,
					  &execed, why, sizeof(why));
	else
		err = failnth_child_wait(pid, WEXITED, &info,
					 FAILNTH_CHILD_POINT_S);
	if (err == -ETIMEDOUT) {
		const char *fmt =
			"stall: %s: n=%d: the child did not finish within %ds\n";

		failnth_child_kill(pid);
		close(nth_fd);
		close(pipefd[0]);
		ksft_print_msg(fmt, sc->name, n, FAILNTH_CHILD_POINT_S);
		EXPECT_NE(-ETIMEDOUT, err);
		cs->st.wrong++;
		return -1;
	}
	if (err) {
		failnth_child_kill(pid);
		close(nth_fd);
		close(pipefd[0]);
		EXPECT_EQ(0, err)
		{
			TH_LOG("%s: n=%d: %s", sc->name, n,
			       err == -EPROTO ? why : strerror(-err));
		}
		cs->st.wrong++;
		return -1;
	}
	/* The zombie's count: 0 once the armed fault fired. */
	if (!execed && info.si_code != CLD_EXITED)
		fired = failnth_disarm(nth_fd);
	failnth_child_reap(pid);
	close(nth_fd);
	len = read(pipefd[0], &rep, sizeof(rep));
	close(pipefd[0]);

	if (execed) {
		outcome = "success";
		if (info.si_code != CLD_EXITED ||
		    info.si_status != sc->exec_code) {
			const char *fmt =
				"the new image ended with code %d status %d, not exit %d";

			snprintf(why, sizeof(why), fmt, info.si_code,
				 info.si_status, sc->exec_code);
			ok = false;
		}
	} else if (info.si_code == CLD_EXITED) {
		if (info.si_status || len != sizeof(rep)) {
			snprintf(why, sizeof(why), early_exit, info.si_status);
			EXPECT_TRUE(false)
			{
				TH_LOG("%s: n=%d: %s", sc->name, n, why);
			}
			cs->st.wrong++;
			return -1;
		}
		fired = rep.fired;
		ret = rep.ret;
		ok = rep.ok;
		if (!ok)
			snprintf(why, sizeof(why), "%s", rep.why);
		if (ret >= 0)
			outcome = sc->full && ret < sc->full ? "short" :
							       "success";
		else
			outcome = failnth_errno_name(-ret, name, sizeof(name));
	} else {
		sig = info.si_status;
		outcome = strsignal(sig);
	}
	if (fired < 0) {
		EXPECT_LE(0, fired)
		{
			TH_LOG("%s: n=%d: reading the child's fail-nth: %s",
			       sc->name, n, strerror(-fired));
		}
		cs->st.wrong++;
		return -1;
	}

	if (fired) {
		cs->st.points++;
		if (sig) {
			cs->killed++;
			cs->by_signal[sig]++;
		} else if (ret < 0) {
			failnth_count_errno(&cs->st, -ret);
		} else if (sc->full && ret < sc->full) {
			cs->st.shorts++;
		} else {
			cs->st.success++;
		}
		if (!sig)
			cs->exited++;
	}
	/* Every check runs: one that fails does not hide the others. */
	more[0] = '\0';
	ok = failnth_also(ok,
			  failnth_child_clean(sc, sig, ret, fired, more,
					      sizeof(more)),
			  why, sizeof(why), more);
	more[0] = '\0';
	ok = failnth_also(ok, failnth_no_child(more, sizeof(more)), why,
			  sizeof(why), more);

	if (failnth_verbose())
		ksft_print_msg("n=%d fired=%d outcome=%s%s%s\n", n, fired,
			       outcome, ok ? "" : " wrong: ", why);
	EXPECT_TRUE(ok)
	{
		TH_LOG("%s: n=%d: %s: %s", sc->name, n, outcome, why);
	}
	if (!ok)
		cs->st.wrong++;
	return fired;
}

static const char failnth_child_summary_fmt[] =
	"failnth %s.%s: points=%d success=%d short=%d errno=%d killed=%d wrong=%d secs=%.3f (%s)\n";

static void failnth_child_summary(const struct failnth_child_scenario *sc,
				  enum failnth_mode mode,
				  const struct failnth_child_stats *cs,
				  double secs)
{
	const struct failnth_stats *st = &cs->st;
	char hist[512], name[16], fates[256];
	size_t len = 0;
	int i;

	hist[0] = '\0';
	for (i = 0; i < st->nr_seen && len < sizeof(hist); i++) {
		const char *ename =
			failnth_errno_name(st->seen[i].err, name, sizeof(name));

		len += snprintf(hist + len, sizeof(hist) - len, "%s%s:%d",
				i ? " " : "", ename, st->seen[i].count);
	}
	if (st->other && len < sizeof(hist))
		snprintf(hist + len, sizeof(hist) - len, "%sother:%d",
			 len ? " " : "", st->other);
	ksft_print_msg(failnth_child_summary_fmt, sc->name,
		       failnth_mode_name[mode], st->points, st->success,
		       st->shorts, st->errnos, cs->killed, st->wrong, secs,
		       hist);
	len = 0;
	fates[0] = '\0';
	for (i = 1; i < NSIG && len < sizeof(fates); i++) {
		const char *abbrev = sigabbrev_np(i);
		char lower[16];
		size_t j;

		if (!cs->by_signal[i])
			continue;
		for (j = 0; abbrev && abbrev[j] && j < sizeof(lower) - 1; j++)
			lower[j] = abbrev[j] | 0x20;
		lower[j] = '\0';
		len += snprintf(fates + len, sizeof(fates) - len, " sig%s=%d",
				abbrev ? lower : "other", cs->by_signal[i]);
	}
	ksft_print_msg("failnth_fate %s.%s: exited=%d killed=%d%s\n", sc->name,
		       failnth_mode_name[mode], cs->exited, cs->killed, fates);
}

/*
 * Sweeps every injection point of @sc's action, made in a child, that
 * @mode fails, then prints the summary. The knobs are put back on return.
 */
/*
 * One point of a mutation run in a child (see failnth_mutate()): returns
 * 1 with @rep filled in, 0 when the child died of a signal (no report), or
 * -1 when the point could not be run (already reported).
 */
static int failnth_child_lie_point(struct __test_metadata *_metadata,
				   const struct failnth_child_scenario *sc,
				   int n, struct failnth_child_report *rep)
{
	int pipefd[2], err;
	siginfo_t info;
	ssize_t len;
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[0]);
		failnth_child_run(sc, n, true, pipefd[1]);
	}
	close(pipefd[1]);
	err = failnth_child_wait(pid, WEXITED, &info, FAILNTH_CHILD_POINT_S);
	if (err) {
		failnth_child_kill(pid);
		close(pipefd[0]);
		EXPECT_EQ(0, err)
		{
			TH_LOG("%s: n=%d: waiting for the child: %s", sc->name,
			       n, strerror(-err));
		}
		return -1;
	}
	failnth_child_reap(pid);
	len = read(pipefd[0], rep, sizeof(*rep));
	close(pipefd[0]);
	if (info.si_code != CLD_EXITED)
		return 0;
	EXPECT_TRUE(!info.si_status && len == sizeof(*rep))
	{
		TH_LOG("%s: n=%d: child exited %d before reporting", sc->name,
		       n, info.si_status);
	}
	return !info.si_status && len == sizeof(*rep) ? 1 : -1;
}

/* failnth_mutate() for a call made in a child. */
static void failnth_child_mutate(struct __test_metadata *_metadata,
				 const struct failnth_child_scenario *sc)
{
	struct failnth_child_report rep = {};
	struct failnth_lies lies = {};
	int n, got;
	bool caught = false, cut = true;
	struct timespec start;

	if (sc->traced_exec) {
		/*
		 * The parent judges a traced execve by its exec event and the
		 * new image's exit: there is no check to lie to.
		 */
		ksft_print_msg("mutate %s: success as ENOMEM: not tried: %s\n",
			       sc->name, "judged by ptrace, not by a check");
		ksft_print_msg("mutate %s: failure: not tried: %s\n", sc->name,
			       "judged by ptrace, not by a check");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	got = failnth_child_lie_point(_metadata, sc, 0, &rep);
	if (got < 0)
		return;
	EXPECT_TRUE(got && rep.ret >= 0)
	{
		TH_LOG("%s: failed without an injected fault: %s", sc->name,
		       got ? strerror(-rep.ret) : "killed");
	}
	caught = got && !rep.ok;
	if (sc->success_unseen) {
		ksft_print_msg("mutate %s: success as ENOMEM: not tried: %s\n",
			       sc->name, sc->success_unseen);
	} else {
		EXPECT_TRUE(caught)
		{
			TH_LOG("%s: success told as ENOMEM, not noticed: no check sees the effect",
			       sc->name);
		}
		ksft_print_msg("mutate %s: success as ENOMEM: %s%s\n", sc->name,
			       caught ? "caught: " : "NOT caught",
			       caught ? rep.why : "");
	}

	/* Every point that fails the action is told it succeeded. */
	for (n = 1; n <= FAILNTH_MAX_POINTS; n++) {
		if (failnth_elapsed(&start) > sc->deadline_s)
			break;
		got = failnth_child_lie_point(_metadata, sc, n, &rep);
		if (got < 0 || (got && !rep.fired)) {
			cut = false;
			break;
		}
		if (!got || rep.ret >= 0)
			continue;
		failnth_lie_told(&lies, n, -rep.ret, !rep.ok, rep.why);
	}
	failnth_mutate_summary(_metadata, sc->name, &lies, cut, n);
}

static void failnth_child_sweep(struct __test_metadata *_metadata,
				const struct failnth_child_scenario *sc,
				enum failnth_mode mode)
{
	const char *only = getenv("FAILNTH_ONLY");
	struct failnth_child_stats cs = {};
	bool timed_out = false;
	struct timespec start;
	int n = 1, last = FAILNTH_MAX_POINTS, fired = 1, verbose, err;

	clock_gettime(CLOCK_MONOTONIC, &start);
	verbose = failnth_env("FAILNTH_SITES") ? 2 : sc->fault_verbose;
	err = failnth_knobs_set(mode, verbose);
	ASSERT_EQ(0, err)
	{
		TH_LOG("%s: setting the failslab and fail_page_alloc knobs: %s",
		       sc->name, strerror(-err));
	}
	if (failnth_env("FAILNTH_MUTATE")) {
		failnth_child_mutate(_metadata, sc);
		err = failnth_knobs_restore();
		EXPECT_EQ(0, err);
		return;
	}
	if (only && atoi(only) > 0) {
		n = atoi(only);
		last = n;
	}
	for (; n <= last && fired > 0; n++) {
		if (failnth_elapsed(&start) > sc->deadline_s) {
			timed_out = true;
			break;
		}
		fired = failnth_child_point(_metadata, sc, n, &cs);
	}
	EXPECT_FALSE(timed_out)
	{
		TH_LOG("%s: sweep still running after %us, at n=%d", sc->name,
		       sc->deadline_s, n);
	}
	EXPECT_FALSE(fired > 0 && !timed_out && last == FAILNTH_MAX_POINTS)
	{
		TH_LOG("%s: sweep hit its bound of %d points", sc->name,
		       FAILNTH_MAX_POINTS);
	}
	EXPECT_FALSE(mode == FAILNTH_BOTH && !cs.st.points && !timed_out)
	{
		TH_LOG("%s: no injection point fired: fail-nth does not reach this call",
		       sc->name);
	}
	err = failnth_knobs_restore();
	EXPECT_EQ(0, err)
	{
		TH_LOG("%s: restoring the fault-injection knobs: %s", sc->name,
		       strerror(-err));
	}
	failnth_child_summary(sc, mode, &cs, failnth_elapsed(&start));
	if (!timed_out)
		failnth_skip_if_no_point(_metadata, cs.st.points, mode,
					 sc->name);
}

#endif /* __SELFTESTS_MM_OOM_FAILNTH_CHILD_H */
