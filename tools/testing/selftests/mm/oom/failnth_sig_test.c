// SPDX-License-Identifier: GPL-2.0
/*
 * Signals, futexes, polling and tracing while their small allocations
 * fail, one at a time: sigqueue() of a real-time signal behind one already
 * queued, FUTEX_LOCK_PI of a free PI futex and of one another task owns
 * (the wait timed out), futex_waitv() of two words (woken by a thread),
 * poll() of 240 entries and select() of 601 fds (some ready, some not),
 * and PTRACE_POKEDATA into a traced child's copy-on-write anonymous page
 * and into its private, read-only mapping of a file (a debugger's
 * breakpoint).
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h). The call must succeed
 * or fail with an allowed errno. A success did exactly what it says, read
 * back from the kernel: the signal is queued once, after the first, with
 * its value; the free futex's word holds our TID and FUTEX_UNLOCK_PI takes
 * it back, the owned one's holds its owner's TID and the waiters bit;
 * futex_waitv() was woken on the word the thread woke, once; every revents
 * and every fd set bit is the right one; the child's word holds the new
 * value, the rest of its page, the parent's copy and the file are as they
 * were. A failure did nothing: no signal queued, the futex word as it was
 * (and the free one not ours), no waiter for the thread to wake, the
 * pollfds and fd sets as given, the child's word unchanged.
 *
 * The FUTEX_LOCK_PI variants run each point in a child of their own
 * (failnth_child.h): a task's cached pi_state, allocated by its first
 * FUTEX_LOCK_PI, is kept until the task dies, so only a fresh task
 * allocates.
 *
 * Left out, for want of an allocation to fail: PTRACE_GETREGSET (UML has
 * no regsets), rseq (UML has none), membarrier registration (UML has one
 * CPU: it returns before its cpumask), prlimit(), epoll_pwait2() (no
 * allocation on their paths); and, swept elsewhere, signalfd()
 * (failnth_fd), pidfd_send_signal() and process_vm_writev() (failnth_task,
 * whose process_vm_rw_core() sites process_vm_readv() shares).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failnth_child.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* The real-time signal queued, blocked for the whole test. */
#define SIG_Q (SIGRTMIN + 3)
/* The values of the signal queued before the call, and of the call's. */
#define SIG_FIRST 0x5eed
#define SIG_SECOND 0xca11

/*
 * poll() of NR_POLL entries: more than the ~30 of its on-stack array, so
 * do_sys_poll() kmallocs a chunk for the rest (fs/select.c:1006). The
 * first NR_WAIT wait on an empty pipe and take a poll_table_entry each:
 * past the 9 inline ones, poll_get_entry() takes a page per 63
 * (fs/select.c:168). After them, every other entry is ready, which ends
 * the waits (do_poll() clears _qproc at the first ready fd).
 */
#define NR_POLL 240
#define NR_WAIT 160
#define NR_READY ((NR_POLL - NR_WAIT) / 2)

/*
 * select() of SEL_NFDS fds: their six bitmaps take 6 * 80 bytes, more than
 * the 256 on the stack, so core_sys_select() kvmallocs them
 * (fs/select.c:659). NR_LOW fds (dups of the empty pipe's read end) wait
 * first, then two writable ones are ready: the pipe's write end and its
 * dup at SEL_HIGH.
 */
#define SEL_HIGH 600
#define SEL_NFDS (SEL_HIGH + 1)
#define NR_LOW 40

/* futex_waitv() (linux 5.16), which older libc headers lack. */
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define FUTEX2_U32_PRIVATE (FUTEX_32 | FUTEX_PRIVATE_FLAG)

/* The states of the waker thread's go word. */
enum { WAKER_IDLE, WAKER_GO, WAKER_QUIT };

/* The word of the child's page that PTRACE_POKEDATA writes. */
#define POKE_WORD 5
#define POKE_OLD 0x0123456789abcdefUL
#define POKE_NEW 0xfeedfacecafebeefUL
#define PAGE 4096

/*
 * Clean failures of sigqueue(): the sigqueue that __send_signal_locked()
 * allocates (kernel/signal.c:1118, GFP_ATOMIC); a real-time signal sent
 * with a siginfo (SI_QUEUE) is then not sent: "Queue overflow, abort",
 * EAGAIN (kernel/signal.c:1148-1156, linux 6.12; man sigqueue: "The limit
 * of signals which may be queued has been reached").
 */
static const int sigq_errnos[] = { EAGAIN, 0 };

/*
 * Clean failures of FUTEX_LOCK_PI: refill_pi_state_cache()
 * (kernel/futex/pi.c:20) fails it before it looks at the word, as ENOMEM
 * (kernel/futex/pi.c:971-972, linux 6.12; man futex: "The kernel could
 * not allocate memory to hold state information").
 */
static const int futex_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of poll() and select(): their kmalloc'd entries and
 * bitmaps (fs/select.c:1006, 659) as ENOMEM; a wait entry's page
 * (fs/select.c:168) is ENOMEM only if no fd is ready (do_poll(),
 * do_select()), never here (man poll, man select: "Unable to allocate
 * memory for internal tables").
 */
static const int poll_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of PTRACE_POKEDATA: the copy-on-write fault that
 * ptrace_access_vm() makes (the new page, its anon_vma, a page table)
 * fails get_user_pages_remote(); __access_remote_vm() then copies
 * nothing, which generic_ptrace_pokedata() reports as EIO
 * (kernel/ptrace.c:1328-1330, linux 6.12): the only errno it has for
 * memory it could not write (man ptrace, EIO: "an attempt was made to read
 * from or write to an invalid area in the tracer's or the tracee's
 * memory").
 */
static const int poke_errnos[] = { EIO, 0 };

/*
 * Clean failures of futex_waitv(): the kernel's copy of the vector, which
 * sys_futex_waitv() kcallocs, as ENOMEM (kernel/futex/syscalls.c:336-338,
 * linux 6.12), the errno of every futex operation that cannot allocate
 * (man futex).
 */
static const int waitv_errnos[] = { ENOMEM, 0 };

/*
 * Clean endings of FUTEX_LOCK_PI of a futex another task owns, besides
 * ENOMEM: ETIMEDOUT, the wait's end (man futex: "The operation in futex_op
 * employed the timeout specified in timeout, and the timeout expired
 * before the operation completed"), which the action counts as a success
 * (the lock was waited for), so it is not in the list.
 */

/* The pollfds; revents read back; locked by the sweep's mlockall(). */
static struct pollfd pfd[NR_POLL];

/* The PI futex, in the child that runs the point. */
static uint32_t futex_word;

/* What a page of the child reads back, and what it held. */
static unsigned long back[PAGE / sizeof(long)];
static unsigned long orig[PAGE / sizeof(long)];

/*
 * The futex_waitv() variant's waker: a thread that, at each GO, wakes the
 * vector's second word until it wakes a waiter or is told to stop, counts
 * in woke the waiters it woke, and goes back to IDLE. A thread, not a
 * child: no child may outlive a point, and fail-nth counts the points of
 * the calling thread alone.
 */
static struct {
	uint32_t go;
	uint32_t words[2];
	int woke;
	int stop;
} waker;

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct sig_ctx {
	/* An empty pipe (never readable) and one with room (writable). */
	int p[2], q[2];
	/* Dups of p[0], below q[]; the dup of q[1] at SEL_HIGH. */
	int low[NR_LOW], high;
	/* The fd sets select() is given, and the two it must give back. */
	fd_set rd, wr, rd_in, wr_in;
	/* The memfd under the child's private mapping. */
	int memfd;
	/* A written anonymous page, and a private read-only file page. */
	unsigned long *anon, *text;
	/* The page the variant pokes into: anon or text. */
	unsigned long *page;
	/* The traced child, 0 when none. */
	pid_t pid;
	/* The waker thread, and whether it runs. */
	pthread_t waker;
	bool waker_runs;
	/* A PI futex word the children share with us, who own it. */
	uint32_t *owned;
	/* The mask before SIG_Q was blocked. */
	sigset_t oldmask;
};

/* sigqueue() of SIG_Q to ourselves, behind SIG_FIRST queued unarmed. */
static void sigq_prepare(struct __test_metadata *_metadata, void *arg)
{
	union sigval val = { .sival_int = SIG_FIRST };

	ASSERT_EQ(0, sigqueue(getpid(), SIG_Q, val))
	{
		TH_LOG("sigqueue (unarmed): %s", strerror(errno));
	}
}

static int sigq_action(void *arg)
{
	union sigval val = { .sival_int = SIG_SECOND };

	return sigqueue(getpid(), SIG_Q, val) ? -errno : 0;
}

/*
 * Takes the next SIG_Q without waiting and says whether it carries
 * @value, from us, queued with sigqueue().
 */
static bool sigq_take(int value, int nth, char *why, size_t size)
{
	static const char fmt[] =
		"signal %d: sigtimedwait gave %d (%s), code %d, value 0x%x, pid %d, not 0x%x";
	const struct timespec now = {};
	siginfo_t si = {};
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIG_Q);
	sig = sigtimedwait(&set, &si, &now);
	if (sig == SIG_Q && si.si_code == SI_QUEUE &&
	    si.si_value.sival_int == value && si.si_pid == getpid())
		return true;
	snprintf(why, size, fmt, nth, sig, sig < 0 ? strerror(errno) : "",
		 si.si_code, si.si_value.sival_int, si.si_pid, value);
	return false;
}

/*
 * A success queued the second signal behind the first, a failure nothing:
 * they come out in order, then no SIG_Q is pending.
 */
static bool sigq_check(void *arg, int ret, char *why, size_t size)
{
	sigset_t pending;

	if (!sigq_take(SIG_FIRST, 1, why, size))
		return false;
	if (ret >= 0 && !sigq_take(SIG_SECOND, 2, why, size))
		return false;
	if (sigpending(&pending) || sigismember(&pending, SIG_Q)) {
		snprintf(why, size, "SIG_Q still pending after %d taken",
			 ret >= 0 ? 2 : 1);
		return false;
	}
	return true;
}

/* Takes every SIG_Q left, for a check that stopped early. */
static void sigq_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	const struct timespec now = {};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIG_Q);
	while (sigtimedwait(&set, NULL, &now) == SIG_Q)
		;
}

/* FUTEX_LOCK_PI of a free futex, in a fresh child. */
static int futex_child_prepare(void *arg)
{
	futex_word = 0;
	return 0;
}

static long futex_op(int op)
{
	return syscall(SYS_futex, &futex_word, op | FUTEX_PRIVATE_FLAG, 0, NULL,
		       NULL, 0);
}

static int futex_action(void *arg)
{
	return futex_op(FUTEX_LOCK_PI) ? -errno : 0;
}

/*
 * A success: the word holds our TID, no waiter bit, and FUTEX_UNLOCK_PI
 * frees it. A failure: the word is still free, and unlocking it is EPERM
 * (not the owner).
 */
static bool futex_check(void *arg, int ret, char *why, size_t size)
{
	static const char fmt[] =
		"futex word 0x%x, expected 0x%x; FUTEX_UNLOCK_PI: %s, word then 0x%x";
	uint32_t want = ret < 0 ? 0 : gettid(), was = futex_word;
	long unlocked = futex_op(FUTEX_UNLOCK_PI);
	int err = unlocked ? errno : 0;

	if (was == want && futex_word == 0 && err == (ret < 0 ? EPERM : 0))
		return true;
	snprintf(why, size, fmt, was, want, err ? strerror(err) : "unlocked",
		 futex_word);
	return false;
}

/*
 * FUTEX_LOCK_PI, in a fresh child, of a futex that the test process owns
 * (the word holds its TID), with a timeout of one millisecond: the child
 * waits on the PI lock, as a pi_state attached to the owner, until the
 * timeout.
 */
static int futex_owned_prepare(void *arg)
{
	struct sig_ctx *c = arg;

	*c->owned = getppid();
	return 0;
}

static int futex_owned_action(void *arg)
{
	struct sig_ctx *c = arg;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 1000 * 1000;
	if (ts.tv_nsec >= 1000 * 1000 * 1000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000 * 1000 * 1000;
	}
	/* Not FUTEX_PRIVATE_FLAG: the word is shared with the parent. */
	if (!syscall(SYS_futex, c->owned, FUTEX_LOCK_PI, 0, &ts, NULL, 0))
		return -EBADE;
	return errno == ETIMEDOUT ? 0 : -errno;
}

/*
 * A wait: the owner is unchanged, and the waiter marked the word
 * (FUTEX_WAITERS, set by futex_lock_pi_atomic() before it waits, and left
 * for the owner's unlock to clear). A failure: the word exactly as it
 * was, the owner's TID alone.
 */
static bool futex_owned_check(void *arg, int ret, char *why, size_t size)
{
	struct sig_ctx *c = arg;
	uint32_t want = getppid() | (ret < 0 ? 0 : FUTEX_WAITERS);

	if (*c->owned == want)
		return true;
	snprintf(why, size, "futex word 0x%x, expected 0x%x", *c->owned, want);
	return false;
}

static long futex_wake(uint32_t *word, int nr)
{
	return syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0);
}

static void *waker_run(void *arg)
{
	for (;;) {
		uint32_t go = __atomic_load_n(&waker.go, __ATOMIC_ACQUIRE);

		if (go == WAKER_QUIT)
			return NULL;
		if (go == WAKER_IDLE) {
			syscall(SYS_futex, &waker.go, FUTEX_WAIT_PRIVATE,
				WAKER_IDLE, NULL, NULL, 0);
			continue;
		}
		while (!__atomic_load_n(&waker.stop, __ATOMIC_ACQUIRE)) {
			long woke = futex_wake(&waker.words[1], 1);

			if (woke > 0) {
				__atomic_add_fetch(&waker.woke, woke,
						   __ATOMIC_RELEASE);
				break;
			}
			sched_yield();
		}
		__atomic_store_n(&waker.go, WAKER_IDLE, __ATOMIC_RELEASE);
		futex_wake(&waker.go, 1);
	}
}

/* Sets the waker's go word to @go and wakes it. */
static void waker_tell(uint32_t go)
{
	__atomic_store_n(&waker.go, go, __ATOMIC_RELEASE);
	futex_wake(&waker.go, 1);
}

/* Waits until the waker is back to IDLE. */
static void waker_idle(void)
{
	uint32_t go;

	while ((go = __atomic_load_n(&waker.go, __ATOMIC_ACQUIRE)) !=
	       WAKER_IDLE)
		syscall(SYS_futex, &waker.go, FUTEX_WAIT_PRIVATE, go, NULL,
			NULL, 0);
}

static void waitv_prepare(struct __test_metadata *_metadata, void *arg)
{
	waker.woke = 0;
	waker.stop = 0;
	waker_tell(WAKER_GO);
}

/*
 * futex_waitv() of two private words, with a deadline of 5 s: the waker
 * wakes the second once the call waits on it. Returns its index, 1.
 */
static int waitv_action(void *arg)
{
	struct futex_waitv v[2] = {};
	struct timespec end;
	long ret;
	int i;

	for (i = 0; i < 2; i++) {
		v[i].uaddr = (uintptr_t)&waker.words[i];
		v[i].flags = FUTEX2_U32_PRIVATE;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 5;
	ret = syscall(SYS_futex_waitv, v, 2, 0, &end, CLOCK_MONOTONIC);
	return ret < 0 ? -errno : ret;
}

/* Stops the waker's wakes and waits until it is idle; again is a no-op. */
static void waitv_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	__atomic_store_n(&waker.stop, 1, __ATOMIC_RELEASE);
	waker_idle();
}

/*
 * A success was the waker's wake of the second word: index 1, one waiter
 * woken. A failure waited on nothing: once the waker is stopped, it woke
 * none.
 */
static bool waitv_check(void *arg, int ret, char *why, size_t size)
{
	static const char fmt[] =
		"futex_waitv returned %d; the waker woke %d waiters, expected %d";
	int want = ret < 0 ? 0 : 1;

	waitv_cleanup(NULL, NULL, ret);
	if (waker.woke == want && (ret < 0 || ret == 1))
		return true;
	snprintf(why, size, fmt, ret, waker.woke, want);
	return false;
}

/* Stops the waker thread for good, if it runs. */
static void waker_stop(struct sig_ctx *c)
{
	if (!c->waker_runs)
		return;
	waker_tell(WAKER_QUIT);
	pthread_join(c->waker, NULL);
	c->waker_runs = false;
}

/* The entries of poll(): NR_WAIT waiting, then ready and waiting by turns. */
static bool poll_ready(int i)
{
	return i >= NR_WAIT && !(i & 1);
}

static void poll_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sig_ctx *c = arg;
	int i;

	for (i = 0; i < NR_POLL; i++) {
		pfd[i].fd = poll_ready(i) ? c->q[1] : c->p[0];
		pfd[i].events = poll_ready(i) ? POLLOUT : POLLIN;
		/* Not a revents the kernel would give: written or not. */
		pfd[i].revents = -1;
	}
}

static int poll_action(void *arg)
{
	int ret = poll(pfd, NR_POLL, 10000);

	return ret < 0 ? -errno : ret;
}

/*
 * A success counted the ready entries and gave each exactly POLLOUT, the
 * others 0; a failure wrote no revents.
 */
static bool poll_check(void *arg, int ret, char *why, size_t size)
{
	static const char fmt[] =
		"returned %d: entry %d revents 0x%x, expected 0x%x";
	int i;

	for (i = 0; i < NR_POLL; i++) {
		short want = ret < 0 ? -1 : poll_ready(i) ? POLLOUT : 0;

		if (pfd[i].revents != want) {
			snprintf(why, size, fmt, ret, i,
				 (unsigned short)pfd[i].revents,
				 (unsigned short)want);
			return false;
		}
	}
	if (ret < 0 || ret == NR_READY)
		return true;
	snprintf(why, size, "poll() counted %d ready entries of %d", ret,
		 NR_READY);
	return false;
}

/*
 * select() of SEL_NFDS fds: the read set holds the empty pipe's read end
 * and its dups, the write set the other pipe's write end and its dup.
 */
static void select_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sig_ctx *c = arg;
	int i;

	FD_ZERO(&c->rd_in);
	FD_ZERO(&c->wr_in);
	FD_SET(c->p[0], &c->rd_in);
	for (i = 0; i < NR_LOW; i++)
		FD_SET(c->low[i], &c->rd_in);
	FD_SET(c->q[1], &c->wr_in);
	FD_SET(c->high, &c->wr_in);
	c->rd = c->rd_in;
	c->wr = c->wr_in;
}

static int select_action(void *arg)
{
	struct timeval tv = { .tv_sec = 10 };
	struct sig_ctx *c = arg;
	int ret = select(SEL_NFDS, &c->rd, &c->wr, NULL, &tv);

	return ret < 0 ? -errno : ret;
}

/*
 * A success: no fd readable, the two writable ones alone in the write set.
 * A failure: both sets as given.
 */
static bool select_check(void *arg, int ret, char *why, size_t size)
{
	static const char fmt[] =
		"returned %d: fd %d %sin the read set, %sin the write set";
	struct sig_ctx *c = arg;
	fd_set rd_want, wr_want;
	int fd;

	FD_ZERO(&rd_want);
	wr_want = c->wr_in;
	if (ret < 0)
		rd_want = c->rd_in;
	for (fd = 0; fd < SEL_NFDS; fd++) {
		bool rd = FD_ISSET(fd, &c->rd), wr = FD_ISSET(fd, &c->wr);

		if (rd != FD_ISSET(fd, &rd_want) ||
		    wr != FD_ISSET(fd, &wr_want)) {
			snprintf(why, size, fmt, ret, fd, rd ? "" : "not ",
				 wr ? "" : "not ");
			return false;
		}
	}
	if (ret < 0 || ret == 2)
		return true;
	snprintf(why, size, "select() counted %d ready fds of 2", ret);
	return false;
}

/*
 * A child that stops under our ptrace. It never touches its memory: its
 * pages are the parent's, shared copy-on-write, or not yet faulted in.
 */
static void poke_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sig_ctx *c = arg;
	int status;
	pid_t pid;

	pid = fork_bound();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (!ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			raise(SIGSTOP);
		_exit(1);
	}
	c->pid = pid;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP)
	{
		TH_LOG("child %d: status 0x%x, not stopped by SIGSTOP", pid,
		       status);
	}
}

static int poke_action(void *arg)
{
	struct sig_ctx *c = arg;

	return ptrace(PTRACE_POKEDATA, c->pid, c->page + POKE_WORD,
		      (void *)POKE_NEW) ?
		       -errno :
		       0;
}

/* Reads the child's copy of @c->page into back[]. */
static bool peer_page(struct sig_ctx *c, char *why, size_t size)
{
	struct iovec local = { back, PAGE }, remote = { c->page, PAGE };
	ssize_t got = process_vm_readv(c->pid, &local, 1, &remote, 1, 0);

	if (got == PAGE)
		return true;
	snprintf(why, size, "reading the child's page: %zd: %s", got,
		 strerror(errno));
	return false;
}

/*
 * The child's word holds POKE_NEW after a success, POKE_OLD after a
 * failure; the rest of its page, the parent's page and (under text) the
 * file are as they were.
 */
static bool poke_check(void *arg, int ret, char *why, size_t size)
{
	static const char fmt[] =
		"word %zu: child 0x%lx, parent 0x%lx, was 0x%lx";
	struct sig_ctx *c = arg;
	unsigned long want = ret < 0 ? POKE_OLD : POKE_NEW;
	size_t i;

	if (!peer_page(c, why, size))
		return false;
	if (back[POKE_WORD] != want) {
		snprintf(why, size, "child's word 0x%lx, expected 0x%lx",
			 back[POKE_WORD], want);
		return false;
	}
	back[POKE_WORD] = POKE_OLD;
	for (i = 0; i < ARRAY_SIZE(back); i++) {
		if (back[i] != orig[i] || c->page[i] != orig[i]) {
			snprintf(why, size, fmt, i, back[i], c->page[i],
				 orig[i]);
			return false;
		}
	}
	if (c->page != c->text)
		return true;
	if (pread(c->memfd, back, PAGE, 0) == PAGE && !memcmp(back, orig, PAGE))
		return true;
	snprintf(why, size, "the file under the private mapping changed");
	return false;
}

/* Kills and reaps the traced child. */
static void poke_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct sig_ctx *c = arg;

	if (!c->pid)
		return;
	EXPECT_EQ(0, kill(c->pid, SIGKILL));
	EXPECT_EQ(c->pid, waitpid(c->pid, NULL, 0));
	c->pid = 0;
}

FIXTURE(sig)
{
	struct sig_ctx ctx;
};

FIXTURE_VARIANT(sig)
{
	const struct failnth_scenario *op;
	/* Which page the ptrace variants poke: the file's, or the anon one. */
	bool text;
	/* Whether the variant needs the waker thread. */
	bool waker;
};

FAILNTH_VARIANT_ADD(sig, sigqueue, "sigqueue_rt_second", (),
		    .prepare = sigq_prepare, .action = sigq_action,
		    .check = sigq_check, .cleanup = sigq_cleanup,
		    .allowed = sigq_errnos);

FAILNTH_VARIANT_ADD(sig, futex_lock_pi, "futex_lock_pi_free", (),
		    .in_child = true, .child_prepare = futex_child_prepare,
		    .action = futex_action, .check = futex_check,
		    .allowed = futex_errnos);

FAILNTH_VARIANT_ADD(sig, futex_lock_pi_owned, "futex_lock_pi_owned", (),
		    .in_child = true, .child_prepare = futex_owned_prepare,
		    .action = futex_owned_action, .check = futex_owned_check,
		    .allowed = futex_errnos);

/* full: the index of the second word, the one the waker wakes. */
FAILNTH_VARIANT_ADD(sig, futex_waitv, "futex_waitv_woken", (.waker = true),
		    .prepare = waitv_prepare, .action = waitv_action,
		    .check = waitv_check, .cleanup = waitv_cleanup,
		    .allowed = waitv_errnos, .full = 1);

FAILNTH_VARIANT_ADD(sig, poll, "poll_240", (), .prepare = poll_prepare,
		    .action = poll_action, .check = poll_check,
		    .allowed = poll_errnos, .full = NR_READY);

FAILNTH_VARIANT_ADD(sig, select, "select_601", (), .prepare = select_prepare,
		    .action = select_action, .check = select_check,
		    .allowed = poll_errnos, .full = 2);

FAILNTH_VARIANT_ADD(sig, poke_anon, "ptrace_poke_anon_cow", (),
		    .prepare = poke_prepare, .action = poke_action,
		    .check = poke_check, .cleanup = poke_cleanup,
		    .allowed = poke_errnos);

FAILNTH_VARIANT_ADD(sig, poke_text, "ptrace_poke_private_file", (.text = true),
		    .prepare = poke_prepare, .action = poke_action,
		    .check = poke_check, .cleanup = poke_cleanup,
		    .allowed = poke_errnos);

/* Maps a written anonymous page and a private view of a memfd page. */
static void sig_pages(struct __test_metadata *_metadata, struct sig_ctx *c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(orig); i++)
		orig[i] = i * 0x9e3779b97f4a7c15UL;
	orig[POKE_WORD] = POKE_OLD;
	c->anon = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c->anon);
	memcpy(c->anon, orig, PAGE);
	c->memfd = memfd_create("poked", MFD_CLOEXEC);
	ASSERT_LE(0, c->memfd);
	ASSERT_EQ(PAGE, pwrite(c->memfd, orig, PAGE, 0));
	c->text = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, c->memfd, 0);
	ASSERT_NE(MAP_FAILED, c->text);
}

/*
 * The pipes and their dups, in the order select() needs (the waiting fds
 * below the ready ones), SIG_Q blocked, and the pages the child shares.
 */
FIXTURE_SETUP(sig)
{
	const char *missing = failnth_missing();
	struct sig_ctx *c = &self->ctx;
	sigset_t set;
	int i;

	memset(c, 0, sizeof(*c));
	c->p[0] = -1;
	c->p[1] = -1;
	c->q[0] = -1;
	c->q[1] = -1;
	c->high = -1;
	c->memfd = -1;
	for (i = 0; i < NR_LOW; i++)
		c->low[i] = -1;
	c->anon = MAP_FAILED;
	c->text = MAP_FAILED;
	c->owned = MAP_FAILED;
	sigprocmask(SIG_SETMASK, NULL, &c->oldmask);
	if (missing)
		SKIP(return, "%s", missing);
	ASSERT_EQ(0, pipe2(c->p, O_CLOEXEC | O_NONBLOCK));
	for (i = 0; i < NR_LOW; i++) {
		c->low[i] = fcntl(c->p[0], F_DUPFD_CLOEXEC, 0);
		ASSERT_LE(0, c->low[i]);
	}
	ASSERT_EQ(0, pipe2(c->q, O_CLOEXEC | O_NONBLOCK));
	ASSERT_GT(SEL_HIGH, c->q[1]);
	c->high = dup3(c->q[1], SEL_HIGH, O_CLOEXEC);
	ASSERT_EQ(SEL_HIGH, c->high)
	{
		TH_LOG("dup3 to fd %d: %s", SEL_HIGH, strerror(errno));
	}
	sigemptyset(&set);
	sigaddset(&set, SIG_Q);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	sig_pages(_metadata, c);
	c->page = variant->text ? c->text : c->anon;
	c->owned = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c->owned);
	if (variant->waker) {
		/* After SIG_Q is blocked: the thread must not take it. */
		ASSERT_EQ(0, pthread_create(&c->waker, NULL, waker_run, NULL));
		c->waker_runs = true;
	}
}

FIXTURE_TEARDOWN(sig)
{
	struct sig_ctx *c = &self->ctx;
	int *const fds[] = { &c->p[0], &c->p[1], &c->q[0],
			     &c->q[1], &c->high, &c->memfd };
	size_t i;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	poke_cleanup(_metadata, c, 0);
	waker_stop(c);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		close_fd(fds[i]);
	for (i = 0; i < NR_LOW; i++)
		close_fd(&c->low[i]);
	if (c->anon != MAP_FAILED)
		EXPECT_EQ(0, munmap(c->anon, PAGE));
	if (c->text != MAP_FAILED)
		EXPECT_EQ(0, munmap(c->text, PAGE));
	if (c->owned != MAP_FAILED)
		EXPECT_EQ(0, munmap(c->owned, PAGE));
	sigprocmask(SIG_SETMASK, &c->oldmask, NULL);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed with its whole effect, or fail with an allowed errno having done
 * nothing; no fd, mapping or child is left behind.
 */
FAILNTH_SWEEP_OP(sig, SWEEP_TIMEOUT, failnth_run)

TEST_HARNESS_MAIN
