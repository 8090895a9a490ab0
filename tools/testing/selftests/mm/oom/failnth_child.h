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
 *  - with workload, the child execve()s a whole command, which the
 *    parent arms once it runs (at the exec event, or stepped with
 *    PTRACE_SYSCALL to its first call of a chosen syscall), then lets go:
 *    the command's exit status, stderr and stdout, and the scenario's
 *    check run in the parent, are its fate (failnth_work_run());
 *  - no fate within the point's deadline: a stall ("# stall:" line, the
 *    blocked tasks' and the child's stacks, then the child is killed and
 *    the sweep stops).
 *
 * The parent sleeps on a signalfd of SIGCHLD between a child's state
 * changes; a child unblocks SIGCHLD before it runs anything.
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
#include <sys/signalfd.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "failnth.h"
#include "stall.h"

/* Bound on one point: a fork, the call, an exit. */
#define FAILNTH_CHILD_POINT_S 10

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

/* A workload's stdout and stderr, memfds the parent reads after each run. */
static int failnth_work_out = -1, failnth_work_err = -1;

/*
 * The child's side of a workload point: prepare, stop for the parent's
 * ptrace, run the command. The parent arms it at the exec event. Exit 3
 * when prepare() failed, 127 when the command could not be run.
 */
static void failnth_work_exec(const struct failnth_scenario *sc)
{
	int null;

	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0)
		_exit(1);
	/* It may chdir() and give the command another stdin. */
	if (sc->child_prepare && sc->child_prepare(sc->arg))
		_exit(3);
	if (dup2(failnth_work_out, 1) < 0 || dup2(failnth_work_err, 2) < 0)
		_exit(1);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
		_exit(1);
	execv(sc->workload[0], sc->workload);
	_exit(127);
}

/*
 * The child's side of one point; never returns. Exit code 0 after a report,
 * 1..3 when it could not get as far as the action.
 */
static void failnth_child_run(const struct failnth_scenario *sc, int n,
			      bool lie, int report_fd)
{
	struct failnth_child_report rep = {};
	sigset_t chld;
	int fd, err;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_UNBLOCK, &chld, NULL))
		_exit(1);
	if (sc->workload)
		failnth_work_exec(sc);
	/* Break copy-on-write now: our own faults are not the action's. */
	if (mlockall(MCL_CURRENT))
		_exit(1);
	fd = open(FAILNTH_PROC, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(2);
	if (sc->child_prepare && sc->child_prepare(sc->arg))
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
 * SIGCHLD, blocked, as an fd: a child's exit or ptrace stop makes it
 * readable, so that a wait with a deadline sleeps in poll() until then.
 * (Polling waitid() with a short sleep cost a scheduler tick per stop: 10
 * ms at UML's HZ=100, for each of a traced command's start-up syscalls.)
 * Set up once; -errno if it cannot be.
 */
static int failnth_sigchld_fd(void)
{
	static int fd = -1;
	sigset_t set;

	if (fd >= 0)
		return fd;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/*
 * Waits for a state change of @pid among @options (WEXITED, WSTOPPED),
 * without consuming an exit: 0 with @info filled in, -ETIMEDOUT after
 * @timeout_s, or -errno. waitid() has no deadline of its own: between
 * tries it sleeps in poll() on SIGCHLD (failnth_sigchld_fd()), or for a
 * millisecond where a stop sends none (SA_NOCLDSTOP, which a program sets
 * when the SIGCHLD of a stop would be an allocation its armed child makes).
 */
static int failnth_child_wait(pid_t pid, int options, siginfo_t *info,
			      unsigned int timeout_s)
{
	struct signalfd_siginfo drain[8];
	struct pollfd pfd = { .events = POLLIN };
	struct timespec start;
	struct sigaction sa;
	bool quiet;
	double left;

	pfd.fd = failnth_sigchld_fd();
	if (pfd.fd < 0 || sigaction(SIGCHLD, NULL, &sa))
		return pfd.fd < 0 ? pfd.fd : -errno;
	quiet = (options & WSTOPPED) && (sa.sa_flags & SA_NOCLDSTOP);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		memset(info, 0, sizeof(*info));
		if (waitid(P_PID, pid, info, options | WNOHANG | WNOWAIT))
			return -errno;
		if (info->si_pid == pid)
			break;
		left = timeout_s - failnth_elapsed(&start);
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, quiet ? 1 : (int)(left * 1000) + 1) < 0 &&
		    errno != EINTR)
			return -errno;
		while (read(pfd.fd, drain, sizeof(drain)) > 0)
			;
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

/*
 * Whether a point that ended with signal @sig (0: none) and @ret is clean
 * given @fired; if not, says why.
 */
static bool failnth_child_clean(const struct failnth_scenario *sc, int sig,
				int ret, int fired, char *why, size_t size)
{
	if (sig && !fired)
		snprintf(why, size, "killed without an injected fault");
	else if (sig && !failnth_in(sc->fates, sig))
		snprintf(why, size, "signal not in the clean fates");
	else if (sig)
		return true;
	else if (ret < 0 && !fired)
		snprintf(why, size, "failed without an injected fault");
	else if (ret >= 0 && sc->full && ret < sc->full && !fired)
		snprintf(why, size,
			 "short count %d of %ld without an injected fault", ret,
			 sc->full);
	else if (ret < 0 && !failnth_allowed(sc, -ret))
		snprintf(why, size, "errno not in the allowed list");
	else
		return true;
	return false;
}

/*
 * The syscall @pid is stopped at: its number and second argument, and
 * whether it is entering it (@entry: what alternation says, which is
 * all there is where PTRACE_GET_SYSCALL_INFO is missing, as in UML
 * without HAVE_ARCH_TRACEHOOK; there x86_64's registers say the rest).
 * Returns 0 or -errno.
 */
static int failnth_work_syscall(pid_t pid, bool *entry, long *nr,
				unsigned long *arg1)
{
	struct __ptrace_syscall_info si;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si) > 0) {
		*entry = si.op == PTRACE_SYSCALL_INFO_ENTRY;
		*nr = si.entry.nr;
		*arg1 = si.entry.args[1];
		return 0;
	}
#ifdef __x86_64__
	{
		struct user_regs_struct regs;

		if (!ptrace(PTRACE_GETREGS, pid, NULL, &regs)) {
			*nr = regs.orig_rax;
			*arg1 = regs.rsi;
			return 0;
		}
	}
#endif
	return -errno;
}

/*
 * Whether @pid, stopped at a syscall, is entering the call a workload is
 * armed at: 1, 0, or -errno. *@in_call alternates, from true at the exec
 * event (inside execve()).
 */
static int failnth_work_arm_here(const struct failnth_scenario *sc, pid_t pid,
				 bool *in_call)
{
	char path[256] = "";
	struct iovec local = { path, sizeof(path) - 1 }, remote;
	unsigned long arg1 = 0;
	bool entry = !*in_call;
	long nr = -1;
	int err;

	err = failnth_work_syscall(pid, &entry, &nr, &arg1);
	if (err)
		return err;
	*in_call = entry;
	if (!entry || nr != sc->arm_nr)
		return 0;
	if (!sc->arm_path)
		return 1;
	remote.iov_base = (void *)arg1;
	remote.iov_len = sizeof(path) - 1;
	/* A short read is fine: the path ends before the page does. */
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0)
		return -errno;
	return !strncmp(path, sc->arm_path, strlen(sc->arm_path));
}

/*
 * The ptrace half of a traced_exec point: the child stops at its
 * raise(SIGSTOP), then either at the exec event or not at all. On return,
 * @info holds the child's end (exited or killed, not yet reaped) and *fired
 * is set when the exec event was seen (then *ret is 0). Returns 0, or
 * -ETIMEDOUT, or -EPROTO with @why filled in.
 */
static int failnth_child_trace(const struct failnth_scenario *sc, pid_t pid,
			       int nth_fd, int n, siginfo_t *info, int *fired,
			       int *ret, bool *execed, char *why, size_t size)
{
	const int sysgood = sc->workload ? PTRACE_O_TRACESYSGOOD : 0;
	unsigned int secs = FAILNTH_CHILD_POINT_S;
	bool armed = false, in_call = true;
	int err, sig, req;

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
		   PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL | sysgood) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL)) {
		snprintf(why, size, "ptrace: %s", strerror(errno));
		return -EPROTO;
	}
	for (;;) {
		err = failnth_child_wait(pid, WEXITED | WSTOPPED, info, secs);
		if (err)
			return err;
		if (info->si_code != CLD_TRAPPED && *execed && !armed &&
		    sc->workload && sc->arm_at_call) {
			snprintf(why, size,
				 "the command ended before syscall %ld",
				 sc->arm_nr);
			return -EPROTO;
		}
		if (info->si_code != CLD_TRAPPED)
			return 0;
		sig = info->si_status;
		req = *execed ? PTRACE_DETACH : PTRACE_CONT;
		if (sig == (SIGTRAP | PTRACE_EVENT_EXEC << 8) && sc->workload) {
			/* The command has not run yet: arm it now or later. */
			*fired = 0;
			*execed = true;
			sig = 0;
			if (sc->point_s)
				secs = sc->point_s;
			armed = !sc->arm_at_call;
			req = armed ? PTRACE_DETACH : PTRACE_SYSCALL;
		} else if (sig == (SIGTRAP | 0x80) && sc->workload) {
			sig = 0;
			err = failnth_work_arm_here(sc, pid, &in_call);
			if (err < 0) {
				snprintf(why, size, "reading the syscall: %s",
					 strerror(-err));
				return -EPROTO;
			}
			armed = err;
			req = armed ? PTRACE_DETACH : PTRACE_SYSCALL;
		} else if (sc->workload && *execed && !armed) {
			/* A signal during start-up: deliver it, trace on. */
			req = PTRACE_SYSCALL;
		} else if (sig == (SIGTRAP | PTRACE_EVENT_EXEC << 8)) {
			/* The new image has not run yet: read, disarm, go. */
			*fired = failnth_disarm(nth_fd);
			*ret = 0;
			*execed = true;
			sig = 0;
		}
		if (armed && req == PTRACE_DETACH && sc->workload) {
			err = n ? failnth_arm(nth_fd, n) : 0;
			if (err) {
				snprintf(why, size, "arming the command: %s",
					 strerror(-err));
				return -EPROTO;
			}
		}
		if (ptrace(req, pid, NULL, (void *)(long)sig)) {
			snprintf(why, size, "ptrace resume: %s",
				 strerror(errno));
			return -EPROTO;
		}
	}
}

/* What one run of a workload came to. */
struct failnth_work_end {
	/* The fatal signal, or 0 when it exited. */
	int sig;
	int code;
	/* 0: exit 0; -errno: a failure whose stderr names errno; -EPROTO. */
	int ret;
	int fired;
	/* The first line of stderr. */
	char said[160];
};

/*
 * The errno whose strerror() text @text names first, 0 if none does. EPROTO
 * ("Protocol error") is how a failure naming none is told apart.
 */
static int failnth_work_errno(const char *text)
{
	const char *at, *first = NULL;
	size_t i, len, first_len = 0;
	int err = 0;

	/*
	 * The first error said, not its consequences said after it; of two
	 * texts found at the same place, the longer: "No such device or
	 * address" (ENXIO) also holds "No such device" (ENODEV).
	 */
	for (i = 0; i < nr_errno_names; i++) {
		at = strstr(text, strerror(errno_names[i].err));
		if (!at)
			continue;
		len = strlen(strerror(errno_names[i].err));
		if (!first || at < first || (at == first && len > first_len)) {
			first = at;
			first_len = len;
			err = errno_names[i].err;
		}
	}
	return err;
}

/*
 * Reads @fd, a workload's stdout or stderr, from its start into @buf (at
 * most @size - 1 bytes, NUL-terminated): the length, or -errno.
 */
static ssize_t failnth_work_read(int fd, char *buf, size_t size)
{
	/* What the command wrote ends at the offset it shares with @fd. */
	off_t end = lseek(fd, 0, SEEK_CUR);
	ssize_t len;

	if (end < 0)
		return -errno;
	len = pread(fd, buf, (size_t)end < size - 1 ? (size_t)end : size - 1,
		    0);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return len;
}

/*
 * Runs @sc's workload once with its @n-th point failing (0: none): a child
 * prepares, stops, and execve()s the command; the parent arms it at the
 * exec event or at its first arm_nr call (failnth_child_trace()), waits
 * for its end within point_s, reads from the zombie whether the fault
 * fired, then reaps it. Returns 0 with @end filled in,
 * or -1 when the run broke or stalled (reported, with the evidence of a
 * stall gathered before the kill).
 */
static int failnth_work_run(struct __test_metadata *_metadata,
			    const struct failnth_scenario *sc, int n,
			    struct failnth_work_end *end)
{
	static const char stall_fmt[] =
		"stall: %s: n=%d: the command did not end within %us\n";
	static const char norun_fmt[] =
		"the command did not run: exit %d (3: prepare, 127: execve)";
	char why[256] = "", path[64], text[4096], *nl;
	int nth_fd, err, fired = 0, ret = 0;
	bool execed = false;
	siginfo_t info;
	pid_t pid;

	memset(end, 0, sizeof(*end));
	/* Rewound, not emptied: the command's writes reuse the pages. */
	ASSERT_EQ(0, lseek(failnth_work_out, 0, SEEK_SET) |
			     lseek(failnth_work_err, 0, SEEK_SET));
	fflush(NULL);
	pid = fork_bound();
	ASSERT_LE(0, pid)
	{
		TH_LOG("%s: n=%d: fork: %s", sc->name, n, strerror(errno));
	}
	if (!pid)
		failnth_child_run(sc, n, false, -1);
	snprintf(path, sizeof(path), "/proc/%d/fail-nth", pid);
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		err = -errno;
		failnth_child_kill(pid);
		EXPECT_EQ(0, err)
		{
			TH_LOG("%s: n=%d: opening %s: %s", sc->name, n, path,
			       strerror(-err));
		}
		return -1;
	}
	err = failnth_child_trace(sc, pid, nth_fd, n, &info, &fired, &ret,
				  &execed, why, sizeof(why));
	if (err == -ETIMEDOUT) {
		ksft_print_msg(stall_fmt, sc->name, n,
			       execed ? sc->point_s : FAILNTH_CHILD_POINT_S);
		stall_evidence(NULL, &pid, 1);
	}
	if (!err && !execed) {
		snprintf(why, sizeof(why), norun_fmt, info.si_status);
		err = -EPROTO;
	}
	if (!err)
		end->fired = n ? failnth_disarm(nth_fd) : 0;
	if (err)
		failnth_child_kill(pid);
	else
		failnth_child_reap(pid);
	close(nth_fd);
	EXPECT_EQ(0, err)
	{
		TH_LOG("%s: n=%d: %s", sc->name, n,
		       err == -EPROTO ? why : strerror(-err));
	}
	if (err)
		return -1;
	EXPECT_LE(0, end->fired)
	{
		TH_LOG("%s: n=%d: reading the command's fail-nth: %s", sc->name,
		       n, strerror(-end->fired));
	}
	if (end->fired < 0)
		return -1;

	failnth_work_read(failnth_work_err, text, sizeof(text));
	if (info.si_code != CLD_EXITED) {
		end->sig = info.si_status;
	} else if (info.si_status) {
		end->code = info.si_status;
		err = failnth_work_errno(text);
		end->ret = err ? -err : -EPROTO;
	}
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	snprintf(end->said, sizeof(end->said), "%.*s",
		 (int)sizeof(end->said) - 1, text);
	return 0;
}

/*
 * A workload's stdout: @buf from its unarmed run, which a success must
 * repeat, and @now from the run just ended. Mapped by failnth_work_begin()
 * for a workload's sweep alone: in .bss they were 2 MB that every other
 * child sweep's mlockall() had to fill, at each point.
 */
#define FAILNTH_WORK_OUT_SIZE (1024 * 1024)
static struct {
	char *buf;
	size_t len;
	char *now;
} failnth_work_ref;

/*
 * Up to 16 bytes of @buf from @at, printable, in one of two static
 * buffers (@which), for a message.
 */
static const char *failnth_work_excerpt(const char *buf, size_t len, size_t at,
					int which)
{
	static char text[2][16 * 4 + 1];
	char *t = text[which];
	size_t i;

	for (i = at; i < len && i < at + 16; i++)
		t += sprintf(t,
			     buf[i] >= ' ' && buf[i] <= '~' ? "%c" : "\\x%02x",
			     (unsigned char)buf[i]);
	*t = '\0';
	return text[which];
}

/* Whether the stdout of the run just ended is the unarmed run's. */
static bool failnth_work_same_out(char *why, size_t size)
{
	static const char differs_fmt[] =
		"stdout differs from the unarmed run's at byte %zu (%zd/%zu): \"%s\" for \"%s\"";
	const char *buf = failnth_work_ref.now;
	ssize_t len = failnth_work_read(failnth_work_out, failnth_work_ref.now,
					FAILNTH_WORK_OUT_SIZE);
	size_t i;

	if (len < 0) {
		snprintf(why, size, "reading stdout: %s", strerror(-len));
		return false;
	}
	for (i = 0; i < (size_t)len && i < failnth_work_ref.len; i++)
		if (buf[i] != failnth_work_ref.buf[i])
			break;
	if (i == (size_t)len && i == failnth_work_ref.len)
		return true;
	snprintf(why, size, differs_fmt, i, len, failnth_work_ref.len,
		 failnth_work_excerpt(buf, len, i, 0),
		 failnth_work_excerpt(failnth_work_ref.buf,
				      failnth_work_ref.len, i, 1));
	return false;
}

/*
 * Judges one run of a workload: @end against the scenario's errnos and
 * fates, stdout against the unarmed run's, then sc->check() told @ret
 * (the truth, or a mutation's lie). Returns whether all of it holds; @why
 * says what did not.
 */
static bool failnth_work_judge(const struct failnth_scenario *sc,
			       const struct failnth_work_end *end, int ret,
			       char *why, size_t size)
{
	char more[512];
	bool ok = true;

	why[0] = '\0';
	more[0] = '\0';
	if (end->ret == -EPROTO) {
		snprintf(more, sizeof(more),
			 "exit %d, and stderr names no errno: \"%s\"",
			 end->code, end->said);
		ok = failnth_also(ok, false, why, size, more);
	} else {
		ok = failnth_also(ok,
				  failnth_child_clean(sc, end->sig, end->ret,
						      end->fired, more,
						      sizeof(more)),
				  why, size, more);
	}
	more[0] = '\0';
	if (!end->sig && !end->ret)
		ok = failnth_also(ok, failnth_work_same_out(more, sizeof(more)),
				  why, size, more);
	more[0] = '\0';
	if (!end->sig)
		ok = failnth_also(ok,
				  sc->check(sc->arg, ret, more, sizeof(more)),
				  why, size, more);
	more[0] = '\0';
	return failnth_also(ok, failnth_no_child(more, sizeof(more)), why, size,
			    more);
}

/*
 * One point of a workload, as failnth_child_point(). Returns 1 if the
 * fault fired, 0 if not (the sweep is over), -1 when the sweep broke.
 */
static int failnth_work_point(struct __test_metadata *_metadata,
			      const struct failnth_scenario *sc, int n,
			      struct failnth_child_stats *cs)
{
	struct failnth_work_end end;
	char why[1024], name[24];
	const char *outcome;
	bool ok;

	if (failnth_work_run(_metadata, sc, n, &end)) {
		cs->st.wrong++;
		return -1;
	}
	ok = failnth_work_judge(sc, &end, end.ret, why, sizeof(why));
	if (end.sig)
		outcome = strsignal(end.sig);
	else if (end.ret)
		outcome = errno_name(-end.ret, name, sizeof(name));
	else
		outcome = "success";
	if (end.fired) {
		cs->st.points++;
		if (end.sig) {
			cs->killed++;
			cs->by_signal[end.sig]++;
		} else {
			cs->exited++;
			if (end.ret)
				failnth_count_errno(&cs->st, -end.ret);
			else
				cs->st.success++;
		}
	}
	if (failnth_verbose())
		ksft_print_msg("n=%d fired=%d outcome=%s%s%s\n", n, end.fired,
			       outcome, ok ? "" : " wrong: ", why);
	EXPECT_TRUE(ok)
	{
		TH_LOG("%s: n=%d: %s (exit %d: \"%s\"): %s", sc->name, n,
		       outcome, end.code, end.said, why);
	}
	if (!ok)
		cs->st.wrong++;
	return end.fired;
}

/*
 * Sets up a workload's sweep: the memfds for its output, and its unarmed
 * run, which must succeed and whose stdout every success must repeat.
 * Returns 0, or -1 when it could not (already reported).
 */
static int failnth_work_begin(struct __test_metadata *_metadata,
			      const struct failnth_scenario *sc)
{
	struct failnth_work_end end;
	char why[1024], *buf;
	ssize_t len;

	buf = mmap(NULL, 2 * FAILNTH_WORK_OUT_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT_NE(MAP_FAILED, buf)
	{
		TH_LOG("%s: mapping the stdout buffers: %s", sc->name,
		       strerror(errno));
	}
	if (buf == MAP_FAILED)
		return -1;
	failnth_work_ref.buf = buf;
	failnth_work_ref.now = buf + FAILNTH_WORK_OUT_SIZE;
	failnth_work_out = memfd_create("failnth-stdout", MFD_CLOEXEC);
	failnth_work_err = memfd_create("failnth-stderr", MFD_CLOEXEC);
	EXPECT_TRUE(failnth_work_out >= 0 && failnth_work_err >= 0)
	{
		TH_LOG("%s: memfd_create: %s", sc->name, strerror(errno));
	}
	if (failnth_work_out < 0 || failnth_work_err < 0)
		return -1;
	/*
	 * The command's output must cost it no allocation, or its own writes
	 * to stdout and stderr would be swept (and a tool that loses its
	 * output quietly on ENOMEM, as busybox cpio does, would be judged):
	 * stderr's pages are allocated here, stdout's by the unarmed run, and
	 * every run writes over them.
	 */
	EXPECT_EQ(0, fallocate(failnth_work_err, 0, 0, 65536))
	{
		TH_LOG("%s: fallocate on a memfd: %s", sc->name,
		       strerror(errno));
	}
	if (failnth_work_run(_metadata, sc, 0, &end))
		return -1;
	len = failnth_work_read(failnth_work_out, buf, FAILNTH_WORK_OUT_SIZE);
	failnth_work_ref.len = len > 0 ? len : 0;
	EXPECT_TRUE(len >= 0 && len < FAILNTH_WORK_OUT_SIZE - 1)
	{
		TH_LOG("%s: the unarmed run's stdout: %zd bytes, at most %d kept",
		       sc->name, len, FAILNTH_WORK_OUT_SIZE - 2);
	}
	EXPECT_TRUE(!end.sig && !end.code &&
		    failnth_work_judge(sc, &end, 0, why, sizeof(why)))
	{
		TH_LOG("%s: fails with no fault injected: exit %d signal %d: \"%s\" %s",
		       sc->name, end.code, end.sig, end.said, why);
	}
	return _metadata->exit_code == KSFT_PASS ? 0 : -1;
}

static void failnth_work_end(void)
{
	if (failnth_work_ref.buf)
		munmap(failnth_work_ref.buf, 2 * FAILNTH_WORK_OUT_SIZE);
	failnth_work_ref.buf = NULL;
	failnth_work_ref.now = NULL;
	failnth_work_ref.len = 0;
	if (failnth_work_out >= 0)
		close(failnth_work_out);
	if (failnth_work_err >= 0)
		close(failnth_work_err);
	failnth_work_out = -1;
	failnth_work_err = -1;
}

/*
 * One point in a child. Returns 1 if the fault fired, 0 if not (the sweep
 * is over), -1 when the sweep itself broke or stalled (already reported).
 */
static int failnth_child_point(struct __test_metadata *_metadata,
			       const struct failnth_scenario *sc, int n,
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

	if (sc->workload)
		return failnth_work_point(_metadata, sc, n, cs);
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	fflush(NULL);
	pid = fork_bound();
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
		err = failnth_child_trace(sc, pid, nth_fd, n, &info, &fired,
					  &ret, &execed, why, sizeof(why));
	else
		err = failnth_child_wait(pid, WEXITED, &info,
					 FAILNTH_CHILD_POINT_S);
	if (err == -ETIMEDOUT) {
		const char *fmt =
			"stall: %s: n=%d: the child did not finish within %ds\n";

		ksft_print_msg(fmt, sc->name, n, FAILNTH_CHILD_POINT_S);
		stall_evidence(NULL, &pid, 1);
		failnth_child_kill(pid);
		close(nth_fd);
		close(pipefd[0]);
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
			outcome = errno_name(-ret, name, sizeof(name));
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
	failnth_verdict(_metadata, sc->name, n, fired, outcome, ok, why,
			sizeof(why), &cs->st);
	return fired;
}

static const char failnth_child_summary_fmt[] =
	"failnth %s.%s: points=%d success=%d short=%d errno=%d killed=%d wrong=%d secs=%.3f (%s)\n";

static void failnth_child_summary(const struct failnth_scenario *sc,
				  enum failnth_mode mode,
				  const struct failnth_child_stats *cs,
				  double secs)
{
	const struct failnth_stats *st = &cs->st;
	char hist[512], fates[256];
	size_t len = 0;
	int i;

	failnth_errno_hist(st, hist, sizeof(hist));
	ksft_print_msg(failnth_child_summary_fmt, sc->name,
		       failnth_mode_name[mode], st->points, st->success,
		       st->shorts, st->errnos, cs->killed, st->wrong, secs,
		       hist);
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
 * A point of a mutation run in a child (failnth_lie_fn): the child runs
 * the action, tells its checks the lie, and reports.
 */
static int failnth_child_lie(struct __test_metadata *_metadata,
			     const struct failnth_scenario *sc, int n,
			     void *arg, struct failnth_told *t)
{
	struct failnth_child_report rep = {};
	int pipefd[2], err;
	siginfo_t info;
	ssize_t len;
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	fflush(NULL);
	pid = fork_bound();
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
	len = read(pipefd[0], &rep, sizeof(rep));
	close(pipefd[0]);
	if (info.si_code != CLD_EXITED)
		return 0;
	EXPECT_TRUE(!info.si_status && len == sizeof(rep))
	{
		TH_LOG("%s: n=%d: child exited %d before reporting", sc->name,
		       n, info.si_status);
	}
	if (info.si_status || len != sizeof(rep))
		return -1;
	t->ret = rep.ret;
	t->fired = rep.fired;
	t->caught = !rep.ok;
	snprintf(t->why, sizeof(t->why), "%s", rep.why);
	return 1;
}

/*
 * A point of a workload's mutation run (failnth_lie_fn): a run whose
 * command failed is judged as if it had exited 0, and the stdout
 * comparison or the check must notice; the unarmed run's success (made by
 * failnth_work_begin(), not again here) is told as ENOMEM.
 */
static int failnth_work_lie(struct __test_metadata *_metadata,
			    const struct failnth_scenario *sc, int n, void *arg,
			    struct failnth_told *t)
{
	struct failnth_work_end end, lie = { .code = 1, .ret = -ENOMEM };

	t->ret = 0;
	t->fired = true;
	t->caught = false;
	t->why[0] = '\0';
	if (!n) {
		lie.fired = 1;
		if (!sc->success_unseen)
			t->caught = !failnth_work_judge(sc, &lie, -ENOMEM,
							t->why, sizeof(t->why));
		return 1;
	}
	if (failnth_work_run(_metadata, sc, n, &end))
		return -1;
	t->fired = end.fired;
	if (!end.fired)
		return 1;
	if (end.sig || !end.ret) {
		/* The truth, for the check's cleanup after the run. */
		failnth_work_judge(sc, &end, end.ret, t->why, sizeof(t->why));
		return end.sig ? 0 : 1;
	}
	lie = end;
	lie.ret = 0;
	lie.code = 0;
	t->ret = end.ret;
	t->caught = !failnth_work_judge(sc, &lie, 0, t->why, sizeof(t->why));
	return 1;
}

/* failnth_mutate() for a call made in a child, or a workload. */
static void failnth_child_mutate(struct __test_metadata *_metadata,
				 const struct failnth_scenario *sc)
{
	if (sc->workload) {
		if (!failnth_work_begin(_metadata, sc))
			failnth_mutate(_metadata, sc, failnth_work_lie, NULL);
		failnth_work_end();
		return;
	}
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
	failnth_mutate(_metadata, sc, failnth_child_lie, NULL);
}

/*
 * Sweeps every injection point of @sc's action, made in a child, that
 * @mode fails, then prints the summary. The knobs are put back on return.
 */
static void failnth_child_sweep(struct __test_metadata *_metadata,
				const struct failnth_scenario *sc,
				enum failnth_mode mode)
{
	static const char cap_fmt[] =
		"failnth_cap %s.%s: stopped at the cap of %d points, the command goes on\n";
	const char *only = getenv("FAILNTH_ONLY");
	struct failnth_child_stats cs = {};
	bool timed_out = false;
	struct timespec start;
	int n = 1, last = FAILNTH_MAX_POINTS, fired = 1;

	failnth_sweep_begin(_metadata, sc, mode, &start);
	if (failnth_env("FAILNTH_MUTATE")) {
		failnth_child_mutate(_metadata, sc);
		failnth_sweep_restore(_metadata, sc);
		return;
	}
	if (sc->workload && sc->max_points)
		last = sc->max_points;
	if (only && atoi(only) > 0) {
		n = atoi(only);
		last = n;
	}
	if (sc->workload && failnth_work_begin(_metadata, sc))
		fired = -1;
	for (; n <= last && fired > 0; n++) {
		if (failnth_elapsed(&start) > sc->deadline_s) {
			timed_out = true;
			break;
		}
		fired = failnth_child_point(_metadata, sc, n, &cs);
	}
	failnth_work_end();
	failnth_sweep_verdicts(_metadata, sc, mode, n, timed_out,
			       fired > 0 && last == FAILNTH_MAX_POINTS,
			       cs.st.points);
	/* A workload's cap is its own: said, and the sweep stands. */
	if (fired > 0 && !timed_out && sc->workload && last == sc->max_points)
		ksft_print_msg(cap_fmt, sc->name, failnth_mode_name[mode],
			       last);
	failnth_sweep_restore(_metadata, sc);
	failnth_child_summary(sc, mode, &cs, failnth_elapsed(&start));
	if (!timed_out)
		failnth_skip_if_no_point(_metadata, cs.st.points, mode,
					 sc->name);
}

/* Sweeps @sc with the engine it asks for: in a child, or in this thread. */
static inline void failnth_run(struct __test_metadata *_metadata,
			       const struct failnth_scenario *sc,
			       enum failnth_mode mode)
{
	if (sc->in_child || sc->workload)
		failnth_child_sweep(_metadata, sc, mode);
	else
		failnth_sweep(_metadata, sc, mode);
}

#endif /* __SELFTESTS_MM_OOM_FAILNTH_CHILD_H */
