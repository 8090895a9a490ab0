// SPDX-License-Identifier: GPL-2.0
/*
 * Event fds while their small allocations fail, one at a time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h): eventfd(),
 * epoll_create1(), epoll_ctl(EPOLL_CTL_ADD), signalfd(), timerfd_create()
 * with timerfd_settime(), inotify_init1() and inotify_add_watch(), dnotify
 * (fcntl(F_NOTIFY)), fanotify_init(), fanotify_mark() and the event of an
 * open() of a marked file (reported by fd, by file handle, or by its
 * directory's handle and its name), a new pty (open() of a devpts
 * instance's ptmx), and the file locks of a new tmpfs file: flock(), an
 * OFD lock, and the unlock of an OFD lock's middle, which splits it in
 * two; a file handle of a tmpfs file (name_to_handle_at()) and an open by
 * one (open_by_handle_at()). The call must succeed or fail with an allowed
 * errno. A success gives an object that works: the counter reads back, the
 * event is reported, the signal or the timer arrives within a bounded wait
 * (dnotify's signal at once), the fanotify group reports the open (or says
 * it lost the event), the pty carries a byte, the lock holds off another
 * open file description (and the split leaves its two ends locked), the
 * handle opens the file, the fd is the file. A failure creates no fd (the
 * engine counts them), registers no watch, dnotify, fanotify mark or
 * event, or epoll item, leaves no pts, takes no lock, leaves a lock it was
 * to split whole and writes no handle.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "failnth.h"

/* A private tmpfs over /tmp, in the test's own mount namespace. */
#define TMPFS_DIR "/tmp"
#define EVENT_NAME "event"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* The bound on waiting for a timer set to fire in 1 ms. */
#define TIMER_WAIT_MS 2000

/* What an epoll item carries back. */
#define EPOLL_COOKIE 0x746f6f736d616c6cULL

/* Clean failures of every call here but the OFD locks: none but ENOMEM. */
static const int fd_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of F_OFD_SETLK: fs/locks.c reports a lock it cannot
 * allocate as ENOLCK (fcntl_setlk(), line 2423; posix_lock_inode(), lines
 * 1330 and 1343) and the inode's lock context as ENOMEM (linux 6.12).
 */
static const int setlk_errnos[] = { ENOMEM, ENOLCK, 0 };

/*
 * The pty variant's devpts instance, mounted on the tmpfs, and the bound on
 * waiting for the byte the new pty carries.
 */
#define PTS_DIR TMPFS_DIR "/pts"
#define PTY_WAIT_MS 1000

/*
 * Clean failures of opening ptmx: drivers/tty/pty.c:ptmx_open() and
 * tty_init_dev() report a failed allocation (the index, the two
 * tty_structs and their ports, the line discipline, the pts inode) as
 * ENOMEM (linux 6.12).
 */
static const int pty_errnos[] = { ENOMEM, 0 };

/* The file the lock variants lock, and the OFD lock's range. */
#define LOCK_NAME "locked"
#define LOCK_LEN 300

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct fd_ctx {
	/* The pty variant's devpts instance, mounted on PTS_DIR. */
	bool pts_mounted;
	/* Whether a success returns a new fd (the variant's). */
	bool returns_fd;
	/* The private tmpfs that inotify watches. */
	int dirfd;
	/* The epoll or inotify fd a call works on, and epoll's target. */
	int fd, efd;
	/* The signal mask before signalfd's variant blocked SIGUSR1. */
	sigset_t old_mask;
	bool masked;
	/* fanotify: the group's FAN_REPORT_* flags; a mark on the directory. */
	unsigned int fan_flags;
	bool fan_on_dir;
};

/* Whether reading 8 bytes from @fd gives @expect, or EAGAIN if 0. */
static bool read_u64(int fd, uint64_t expect, const char *what, char *why,
		     size_t size)
{
	uint64_t val = 0;
	ssize_t len = read(fd, &val, sizeof(val));

	if (expect ? len == sizeof(val) && val == expect :
		     len < 0 && errno == EAGAIN)
		return true;
	snprintf(why, size, "%s: read gave %zd (%s), value %llu, expected %llu",
		 what, len, len < 0 ? strerror(errno) : "ok",
		 (unsigned long long)val, (unsigned long long)expect);
	return false;
}

/*
 * Counts the lines of /proc/self/fdinfo/@fd that start with @prefix;
 * returns the count or -errno.
 */
static int fdinfo_lines(int fd, const char *prefix)
{
	char line[256];
	int nr = 0;
	FILE *f = fdinfo_open(fd);

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)))
			nr++;
	fclose(f);
	return nr;
}

/* Whether fdinfo of @fd has @expect lines starting with @prefix. */
static bool fdinfo_has(int fd, const char *prefix, int expect, char *why,
		       size_t size)
{
	int nr = fdinfo_lines(fd, prefix);

	if (nr == expect)
		return true;
	snprintf(why, size, "fdinfo of fd %d: %d \"%s\" lines, expected %d", fd,
		 nr, prefix, expect);
	return false;
}

/* eventfd() with a count of 3. */
static int eventfd_action(void *arg)
{
	return failnth_fd_ret(eventfd(3, EFD_CLOEXEC | EFD_NONBLOCK));
}

/* Success: the counter reads 3, then nothing, then what is added. */
static bool eventfd_check(void *arg, int ret, char *why, size_t size)
{
	uint64_t five = 5;

	if (ret < 0)
		return true;
	if (!read_u64(ret, 3, "new eventfd", why, size) ||
	    !read_u64(ret, 0, "drained eventfd", why, size))
		return false;
	if (write(ret, &five, sizeof(five)) != sizeof(five)) {
		snprintf(why, size, "adding to the eventfd: %s",
			 strerror(errno));
		return false;
	}
	return read_u64(ret, 5, "eventfd after +5", why, size);
}

/* Whether epoll fd @epfd reports exactly the readable eventfd item. */
static bool epoll_reports(int epfd, int expect, const char *what, char *why,
			  size_t size)
{
	struct epoll_event ev[2] = {};
	int nr = epoll_wait(epfd, ev, ARRAY_SIZE(ev), 0);

	if (nr != expect) {
		snprintf(why, size, "%s: epoll_wait gave %d (%s), expected %d",
			 what, nr, nr < 0 ? strerror(errno) : "events", expect);
		return false;
	}
	if (expect &&
	    (ev[0].data.u64 != EPOLL_COOKIE || !(ev[0].events & EPOLLIN))) {
		snprintf(why, size, "%s: event 0x%x with data 0x%llx", what,
			 ev[0].events, (unsigned long long)ev[0].data.u64);
		return false;
	}
	return true;
}

/* Adds eventfd @efd to @epfd for EPOLLIN; 0 or -errno. */
static int epoll_add(int epfd, int efd)
{
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = EPOLL_COOKIE,
	};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev) ? -errno : 0;
}

/* A readable eventfd, for epoll to watch. */
static void open_eventfd(struct __test_metadata *_metadata, struct fd_ctx *c)
{
	c->efd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, c->efd)
	{
		TH_LOG("eventfd (unarmed): %s", strerror(errno));
	}
}

/* epoll_create1(). */
static void epoll_create_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	open_eventfd(_metadata, c);
}

static int epoll_create_action(void *arg)
{
	return failnth_fd_ret(epoll_create1(EPOLL_CLOEXEC));
}

/* Success: empty, then reports a readable eventfd added to it. */
static bool epoll_create_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	int err;

	if (ret < 0)
		return true;
	if (!epoll_reports(ret, 0, "new epoll", why, size))
		return false;
	err = epoll_add(ret, c->efd);
	if (err) {
		snprintf(why, size, "adding an eventfd to the new epoll: %s",
			 strerror(-err));
		return false;
	}
	return epoll_reports(ret, 1, "new epoll with a readable eventfd", why,
			     size);
}

/* epoll_ctl(EPOLL_CTL_ADD) of a readable eventfd to an empty epoll. */
static void epoll_ctl_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	open_eventfd(_metadata, c);
	c->fd = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, c->fd)
	{
		TH_LOG("epoll_create1 (unarmed): %s", strerror(errno));
	}
}

static int epoll_ctl_action(void *arg)
{
	struct fd_ctx *c = arg;

	return epoll_add(c->fd, c->efd);
}

/*
 * Success: the item is listed and reported. Failure: no item: none listed
 * or reported, and EPOLL_CTL_MOD finds none.
 */
static bool epoll_ctl_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	struct epoll_event ev = { .events = EPOLLIN };

	if (!fdinfo_has(c->fd, "tfd:", ret < 0 ? 0 : 1, why, size) ||
	    !epoll_reports(c->fd, ret < 0 ? 0 : 1, "after EPOLL_CTL_ADD", why,
			   size))
		return false;
	if (ret >= 0)
		return true;
	if (!epoll_ctl(c->fd, EPOLL_CTL_MOD, c->efd, &ev) || errno != ENOENT) {
		snprintf(why, size, "after a failed add, EPOLL_CTL_MOD gave %s",
			 strerror(errno));
		return false;
	}
	return true;
}

/* signalfd() for SIGUSR1, blocked. */
static void signalfd_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, &c->old_mask));
	c->masked = true;
}

static int signalfd_action(void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	return failnth_fd_ret(signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
}

/* Success: a SIGUSR1 sent to us is read from the fd, once. */
static bool signalfd_check(void *arg, int ret, char *why, size_t size)
{
	struct signalfd_siginfo si = {};
	ssize_t len;

	if (ret < 0)
		return true;
	if (kill(getpid(), SIGUSR1)) {
		snprintf(why, size, "sending SIGUSR1: %s", strerror(errno));
		return false;
	}
	len = read(ret, &si, sizeof(si));
	if (len != sizeof(si) || si.ssi_signo != SIGUSR1 ||
	    si.ssi_pid != (uint32_t)getpid()) {
		snprintf(why, size,
			 "signalfd read gave %zd bytes, signal %u from %u", len,
			 si.ssi_signo, si.ssi_pid);
		return false;
	}
	if (read(ret, &si, sizeof(si)) != -1 || errno != EAGAIN) {
		snprintf(why, size, "signalfd reads a second signal");
		return false;
	}
	return true;
}

/* timerfd_create(), then timerfd_settime() to fire in 1 ms. */
static int timerfd_action(void *arg)
{
	const struct itimerspec its = { .it_value.tv_nsec = 1000000 };
	int fd, err;

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* Success: the timer fires within TIMER_WAIT_MS, once, and is disarmed. */
static bool timerfd_check(void *arg, int ret, char *why, size_t size)
{
	struct pollfd pfd = { .fd = ret, .events = POLLIN };
	struct itimerspec its;
	int nr;

	if (ret < 0)
		return true;
	nr = poll(&pfd, 1, TIMER_WAIT_MS);
	if (nr != 1) {
		const char *fmt =
			"timer set to 1 ms not fired after %d ms (poll gave %d)";

		snprintf(why, size, fmt, TIMER_WAIT_MS, nr);
		return false;
	}
	if (!read_u64(ret, 1, "fired timerfd", why, size))
		return false;
	if (timerfd_gettime(ret, &its) || its.it_value.tv_sec ||
	    its.it_value.tv_nsec) {
		snprintf(why, size, "one-shot timer still armed after firing");
		return false;
	}
	return true;
}

/*
 * Whether inotify fd @ifd reports creating EVENT_NAME in the tmpfs as watch
 * @wd, once; if @wd < 0, whether it reports nothing. Creates and removes
 * EVENT_NAME.
 */
static bool inotify_reports(struct fd_ctx *c, int ifd, int wd, char *why,
			    size_t size)
{
	union {
		struct inotify_event ev;
		char buf[sizeof(struct inotify_event) + 64];
	} u;
	const struct inotify_event *ev = &u.ev;
	char *buf = u.buf;
	ssize_t len;
	int fd;

	fd = openat(c->dirfd, EVENT_NAME,
		    O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC, 0600);
	if (fd < 0 || close(fd) || unlinkat(c->dirfd, EVENT_NAME, 0)) {
		snprintf(why, size, "creating and removing %s: %s", EVENT_NAME,
			 strerror(errno));
		return false;
	}
	len = read(ifd, buf, sizeof(u.buf));
	if (wd < 0) {
		if (len == -1 && errno == EAGAIN)
			return true;
		snprintf(why, size, "no watch, yet inotify read gave %zd", len);
		return false;
	}
	/* IN_CREATE alone is watched: one event, with the name. */
	if (len < (ssize_t)sizeof(*ev) ||
	    len != (ssize_t)(sizeof(*ev) + ev->len) || ev->wd != wd ||
	    ev->mask != IN_CREATE || !ev->len || strcmp(ev->name, EVENT_NAME)) {
		const char *fmt =
			"inotify read gave %zd bytes: wd %d (expected %d), mask 0x%x, name \"%s\"";

		snprintf(why, size, fmt, len,
			 len >= (ssize_t)sizeof(*ev) ? ev->wd : -1, wd,
			 len >= (ssize_t)sizeof(*ev) ? ev->mask : 0,
			 len > (ssize_t)sizeof(*ev) ? ev->name : "");
		return false;
	}
	return true;
}

/* inotify_init1(). */
static int inotify_init_action(void *arg)
{
	return failnth_fd_ret(inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
}

/* Success: no watch yet, then one that reports a create. */
static bool inotify_init_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	int wd;

	if (ret < 0)
		return true;
	if (!fdinfo_has(ret, "inotify wd:", 0, why, size))
		return false;
	wd = inotify_add_watch(ret, TMPFS_DIR, IN_CREATE);
	if (wd < 0) {
		snprintf(why, size, "watching %s with the new inotify fd: %s",
			 TMPFS_DIR, strerror(errno));
		return false;
	}
	return inotify_reports(c, ret, wd, why, size);
}

/* inotify_add_watch() of the tmpfs for IN_CREATE, on a new inotify fd. */
static void inotify_watch_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	c->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	ASSERT_LE(0, c->fd)
	{
		TH_LOG("inotify_init1 (unarmed): %s", strerror(errno));
	}
}

static int inotify_watch_action(void *arg)
{
	struct fd_ctx *c = arg;
	int wd = inotify_add_watch(c->fd, TMPFS_DIR, IN_CREATE);

	return wd < 0 ? -errno : wd;
}

/*
 * Success: one watch listed, reporting a create. Failure: none listed,
 * nothing reported.
 */
static bool inotify_watch_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;

	return fdinfo_has(c->fd, "inotify wd:", ret < 0 ? 0 : 1, why, size) &&
	       inotify_reports(c, c->fd, ret, why, size);
}

/*
 * dnotify (fcntl(F_NOTIFY)) of the tmpfs for creates, told by SIGUSR1
 * (F_SETSIG), blocked so that it waits to be taken.
 */
static void dnotify_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	signalfd_prepare(_metadata, arg);
	ASSERT_EQ(0, fcntl(c->dirfd, F_SETSIG, SIGUSR1));
}

static int dnotify_action(void *arg)
{
	struct fd_ctx *c = arg;

	return fcntl(c->dirfd, F_NOTIFY, DN_CREATE | DN_MULTISHOT) ? -errno : 0;
}

/* How many SIGUSR1 for the tmpfs are pending, taking them: or -errno. */
static int dnotify_signals(struct fd_ctx *c)
{
	const struct timespec now = {};
	siginfo_t si;
	sigset_t set;
	int nr = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (sigtimedwait(&set, &si, &now) == SIGUSR1) {
		if (si.si_fd != c->dirfd)
			return -EBADF;
		nr++;
	}
	return errno == EAGAIN ? nr : -errno;
}

/*
 * Success: a file made in the tmpfs is told, once. Failure: it is not.
 * dnotify sends its signal from the create itself (fsnotify() to
 * dnotify_handle_event() to send_sigio()), so it is pending on return.
 */
static bool dnotify_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	int fd, nr, want = ret < 0 ? 0 : 1;

	nr = dnotify_signals(c);
	if (nr) {
		snprintf(why, size, "signals pending before the create: %d",
			 nr);
		return false;
	}
	fd = openat(c->dirfd, EVENT_NAME, O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || close(fd) || unlinkat(c->dirfd, EVENT_NAME, 0)) {
		snprintf(why, size, "creating %s: %s", EVENT_NAME,
			 strerror(errno));
		return false;
	}
	nr = dnotify_signals(c);
	if (nr == want)
		return true;
	snprintf(why, size,
		 "a create gave %d SIGUSR1 for the tmpfs%s%s, expected %d",
		 nr < 0 ? 0 : nr, nr < 0 ? ": " : "",
		 nr < 0 ? strerror(-nr) : "", want);
	return false;
}

static void fd_cleanup(struct __test_metadata *_metadata, void *arg, int ret);

/* The dnotify removed (F_NOTIFY with no events), then as fd_cleanup(). */
/*
 * Takes the directory's dnotify off, and makes sure it is: a create then
 * tells nobody, as after a failed call. Otherwise the one left by the
 * sweep's last point, its success, would go unseen.
 */
static void dnotify_cleanup(struct __test_metadata *_metadata, void *arg,
			    int ret)
{
	struct fd_ctx *c = arg;
	char why[256] = "";

	EXPECT_EQ(0, fcntl(c->dirfd, F_NOTIFY, 0));
	EXPECT_TRUE(dnotify_check(c, -ENOMEM, why, sizeof(why)))
	{
		TH_LOG("dnotify after its cleanup: %s", why);
	}
	fd_cleanup(_metadata, arg, ret);
}

/*
 * The file the handle variants name, and its handle: a struct file_handle
 * with room for MAX_HANDLE_SZ bytes, filled with HANDLE_FILL before a call
 * that is to write it.
 */
#define HANDLE_NAME "handled"
#define HANDLE_FILL 0xa5

#define HANDLE_WORDS ((sizeof(struct file_handle) + MAX_HANDLE_SZ) / 8 + 1)

static uint64_t handle_buf[HANDLE_WORDS];

static struct file_handle *handle(void)
{
	return (struct file_handle *)handle_buf;
}

/* A new file, and a handle buffer that holds no handle. */
static void handle_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;
	int fd;

	unlinkat(c->dirfd, HANDLE_NAME, 0);
	fd = openat(c->dirfd, HANDLE_NAME,
		    O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd)
	{
		TH_LOG("creating %s (unarmed): %s", HANDLE_NAME,
		       strerror(errno));
	}
	close(fd);
	memset(handle_buf, HANDLE_FILL, sizeof(handle_buf));
	handle()->handle_bytes = MAX_HANDLE_SZ;
}

static int handle_name_action(void *arg)
{
	struct fd_ctx *c = arg;
	int mount_id;

	return name_to_handle_at(c->dirfd, HANDLE_NAME, handle(), &mount_id,
				 0) ?
		       -errno :
		       0;
}

/* Whether @fd is HANDLE_NAME: the same inode of the same device. */
static bool fd_is_handled(struct fd_ctx *c, int fd, char *why, size_t size)
{
	struct stat want, got;

	if (fstatat(c->dirfd, HANDLE_NAME, &want, 0) || fstat(fd, &got)) {
		snprintf(why, size, "stat of %s or fd %d: %s", HANDLE_NAME, fd,
			 strerror(errno));
		return false;
	}
	if (want.st_ino != got.st_ino || want.st_dev != got.st_dev) {
		snprintf(why, size, "fd %d is inode %lu, %s is %lu", fd,
			 (unsigned long)got.st_ino, HANDLE_NAME,
			 (unsigned long)want.st_ino);
		return false;
	}
	return true;
}

/*
 * Success: the handle opens the file. Failure: not a byte of the buffer
 * written, its size field included.
 */
static bool handle_name_check(void *arg, int ret, char *why, size_t size)
{
	const unsigned char *p = handle()->f_handle;
	struct fd_ctx *c = arg;
	bool ok;
	int fd, i;

	if (ret < 0) {
		for (i = 0; i < MAX_HANDLE_SZ && p[i] == HANDLE_FILL; i++)
			;
		if (i == MAX_HANDLE_SZ &&
		    handle()->handle_bytes == MAX_HANDLE_SZ)
			return true;
		snprintf(why, size,
			 "the failed call wrote the handle (%u bytes)",
			 handle()->handle_bytes);
		return false;
	}
	fd = open_by_handle_at(c->dirfd, handle(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "opening by the new handle: %s",
			 strerror(errno));
		return false;
	}
	ok = fd_is_handled(c, fd, why, size);
	close(fd);
	return ok;
}

/* A new file and its handle, made unarmed. */
static void handle_open_prepare(struct __test_metadata *_metadata, void *arg)
{
	handle_prepare(_metadata, arg);
	ASSERT_EQ(0, handle_name_action(arg));
}

static int handle_open_action(void *arg)
{
	struct fd_ctx *c = arg;
	int flags = O_RDONLY | O_CLOEXEC;

	return failnth_fd_ret(open_by_handle_at(c->dirfd, handle(), flags));
}

/* Success: the new fd is the file. Failure: no fd (the engine counts). */
static bool handle_open_check(void *arg, int ret, char *why, size_t size)
{
	return ret < 0 || fd_is_handled(arg, ret, why, size);
}

/*
 * Two open file descriptions of a new file (a new inode: its lock context
 * is allocated again), c->fd to lock and c->efd to probe.
 */
static void lock_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	unlinkat(c->dirfd, LOCK_NAME, 0);
	c->fd = openat(c->dirfd, LOCK_NAME,
		       O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ASSERT_LE(0, c->fd)
	{
		TH_LOG("creating %s (unarmed): %s", LOCK_NAME, strerror(errno));
	}
	c->efd = openat(c->dirfd, LOCK_NAME, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, c->efd);
}

static int flock_action(void *arg)
{
	struct fd_ctx *c = arg;

	return flock(c->fd, LOCK_EX | LOCK_NB) ? -errno : 0;
}

/* The other description gets the lock only if the call took none. */
static bool flock_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	int err = flock(c->efd, LOCK_EX | LOCK_NB) ? errno : 0;

	if (ret >= 0 && err != EWOULDBLOCK) {
		snprintf(why, size, "the lock does not hold off another: %s",
			 err ? strerror(err) : "it got the lock too");
		return false;
	}
	if (ret < 0 && err) {
		snprintf(why, size, "locking after the failure: %s",
			 strerror(err));
		return false;
	}
	return true;
}

/* An OFD lock request on c->fd: 0 or -errno. */
static int ofd_lock(int fd, short type, off_t start, off_t len)
{
	struct flock fl = {
		.l_type = type,
		.l_whence = SEEK_SET,
		.l_start = start,
		.l_len = len,
	};

	return fcntl(fd, F_OFD_SETLK, &fl) ? -errno : 0;
}

/* Whether c->fd's locks cover any of [@start, @start + @len), seen from c->efd. */
static int ofd_locked(struct fd_ctx *c, off_t start, off_t len)
{
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = start,
		.l_len = len,
	};

	if (fcntl(c->efd, F_OFD_GETLK, &fl))
		return -errno;
	return fl.l_type != F_UNLCK;
}

/*
 * Whether the thirds of [0, LOCK_LEN) are locked as @want says (one
 * character each, 'L' or '-'); else what they are in @why.
 */
static bool thirds_are(struct fd_ctx *c, const char *want, char *why,
		       size_t size)
{
	char got[4] = "";
	int i, l;

	for (i = 0; i < 3; i++) {
		l = ofd_locked(c, i * LOCK_LEN / 3, LOCK_LEN / 3);
		if (l < 0) {
			snprintf(why, size, "F_OFD_GETLK: %s", strerror(-l));
			return false;
		}
		got[i] = l ? 'L' : '-';
	}
	if (!strcmp(got, want))
		return true;
	snprintf(why, size,
		 "the thirds of the range are locked \"%s\", expected \"%s\"",
		 got, want);
	return false;
}

static int ofd_setlk_action(void *arg)
{
	struct fd_ctx *c = arg;

	return ofd_lock(c->fd, F_WRLCK, 0, LOCK_LEN);
}

static bool ofd_setlk_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;

	return thirds_are(c, ret < 0 ? "---" : "LLL", why, size);
}

/* The whole range locked, unarmed: the action unlocks its middle. */
static void ofd_split_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	lock_prepare(_metadata, c);
	ASSERT_EQ(0, ofd_lock(c->fd, F_WRLCK, 0, LOCK_LEN));
}

static int ofd_split_action(void *arg)
{
	struct fd_ctx *c = arg;

	return ofd_lock(c->fd, F_UNLCK, LOCK_LEN / 3, LOCK_LEN / 3);
}

/* A success leaves both ends locked; a failure, the whole range. */
static bool ofd_split_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;

	return thirds_are(c, ret < 0 ? "LLL" : "L-L", why, size);
}

/*
 * open() of the devpts instance's ptmx: a new pty pair, its index and its
 * pts inode, both ttys and their line discipline.
 */
static int pty_action(void *arg)
{
	int flags = O_RDWR | O_NOCTTY | O_CLOEXEC;

	return failnth_fd_ret(open(PTS_DIR "/ptmx", flags));
}

/*
 * A success is a master whose slave, once unlocked, opens, and carries a
 * byte to it. A failure leaves no pts entry behind.
 */
static bool pty_check(void *arg, int ret, char *why, size_t size)
{
	struct pollfd p = { .fd = ret, .events = POLLIN };
	char names[256], byte = 0;
	int unlock = 0, idx = -1, slave, nr;

	if (ret < 0) {
		nr = dir_names(PTS_DIR, "ptmx", names, sizeof(names));
		if (!nr)
			return true;
		snprintf(why, size, "open of ptmx failed, yet %s has%s",
			 PTS_DIR, nr < 0 ? " no listing" : names);
		return false;
	}
	if (ioctl(ret, TIOCGPTN, &idx) || ioctl(ret, TIOCSPTLCK, &unlock)) {
		snprintf(why, size, "the new master (fd %d): %s", ret,
			 strerror(errno));
		return false;
	}
	slave = ioctl(ret, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0) {
		snprintf(why, size, "opening pts %d: %s", idx, strerror(errno));
		return false;
	}
	if (write(slave, "p", 1) != 1 || poll(&p, 1, PTY_WAIT_MS) != 1 ||
	    read(ret, &byte, 1) != 1 || byte != 'p') {
		snprintf(why, size, "pts %d carried no byte to its master: %s",
			 idx, strerror(errno));
		close(slave);
		return false;
	}
	close(slave);
	return true;
}

/*
 * The fanotify variants: a file of the tmpfs, marked for FAN_OPEN (or its
 * directory, for its children), whose open() is told as one event.
 */
#define FAN_NAME "fanned"
#define FAN_EVENT_BUF 512

/*
 * fanotify_mark(): fs/notify/fanotify/fanotify_user.c reports a failed
 * allocation of the mark (fanotify_add_new_mark(), line 1245), of its
 * connector and of the superblock's fsnotify info (fs/notify/mark.c:675,
 * 695) as ENOMEM (linux 6.12). fanotify_init() likewise: the group
 * (fs/notify/group.c), its merge hash and overflow event (fanotify_user.c
 * lines 1498, 1504), its file and fd.
 */
static const int fan_errnos[] = { ENOMEM, 0 };

/* A fanotify group of @flags, as the variants make it: an fd or -errno. */
static int fan_init(unsigned int flags)
{
	return failnth_fd_ret(fanotify_init(flags | FAN_CLASS_NOTIF |
						    FAN_CLOEXEC | FAN_NONBLOCK,
					    O_RDONLY | O_CLOEXEC));
}

/*
 * Marks FAN_NAME for FAN_OPEN in group @fan, or with @on_dir its directory,
 * for the opens of its children: 0 or -errno.
 */
static int fan_mark(struct fd_ctx *c, int fan, bool on_dir)
{
	return fanotify_mark(fan, FAN_MARK_ADD,
			     FAN_OPEN | (on_dir ? FAN_EVENT_ON_CHILD : 0),
			     c->dirfd, on_dir ? "." : FAN_NAME) ?
		       -errno :
		       0;
}

/* Whether @fd, or the handle @fh of TMPFS_DIR, is the inode of @name. */
static bool fan_same_inode(struct fd_ctx *c, int fd, struct file_handle *fh,
			   const char *name, char *why, size_t size)
{
	struct stat want, got;
	int err = 0;

	if (fh) {
		fd = open_by_handle_at(c->dirfd, fh, O_PATH | O_CLOEXEC);
		if (fd < 0)
			err = errno;
	}
	if (!err && (fstatat(c->dirfd, name, &want, 0) || fstat(fd, &got)))
		err = errno;
	if (fh && fd >= 0)
		close(fd);
	if (err) {
		snprintf(why, size, "the event's %s: %s", fh ? "handle" : "fd",
			 strerror(err));
		return false;
	}
	if (want.st_ino == got.st_ino && want.st_dev == got.st_dev)
		return true;
	snprintf(why, size, "the event names inode %lu, not %s (%lu)",
		 (unsigned long)got.st_ino, name, (unsigned long)want.st_ino);
	return false;
}

/*
 * Whether the one info record of a fid group's event names FAN_NAME: its
 * handle (FAN_REPORT_FID), or its directory's handle and its name
 * (FAN_REPORT_DFID_NAME).
 */
static bool fan_fid_names_file(struct fd_ctx *c,
			       const struct fanotify_event_metadata *ev,
			       char *why, size_t size)
{
	const struct fanotify_event_info_fid *fid = (const void *)(ev + 1);
	struct file_handle *fh = (struct file_handle *)fid->handle;
	size_t left = ev->event_len - ev->metadata_len;
	const char *name;

	if (left < sizeof(*fid) + sizeof(*fh) || fid->hdr.len != left ||
	    left < sizeof(*fid) + sizeof(*fh) + fh->handle_bytes) {
		snprintf(why, size, "an fid event of %u bytes, record of %u",
			 ev->event_len, fid->hdr.len);
		return false;
	}
	if (fid->hdr.info_type == FAN_EVENT_INFO_TYPE_FID)
		return fan_same_inode(c, -1, fh, FAN_NAME, why, size);
	name = (const char *)fh->f_handle + fh->handle_bytes;
	if (fid->hdr.info_type != FAN_EVENT_INFO_TYPE_DFID_NAME ||
	    strnlen(name, left - (name - (const char *)fid)) ==
		    left - (name - (const char *)fid) ||
	    strcmp(name, FAN_NAME)) {
		snprintf(why, size, "an fid record of type %u, not of %s",
			 fid->hdr.info_type, FAN_NAME);
		return false;
	}
	return fan_same_inode(c, -1, fh, ".", why, size);
}

/*
 * Reads group @fan's events: 1 for one FAN_OPEN of FAN_NAME, 2 for one
 * FAN_Q_OVERFLOW, 0 for none, or -1 for anything else (said in @why).
 */
static int fan_events(struct fd_ctx *c, int fan, char *why, size_t size)
{
	static char buf[FAN_EVENT_BUF];
	const struct fanotify_event_metadata *ev = (const void *)buf;
	ssize_t len = read(fan, buf, sizeof(buf));
	bool ok;

	if (len < 0 && errno == EAGAIN)
		return 0;
	if (len < (ssize_t)sizeof(*ev) || ev->event_len != len ||
	    ev->vers != FANOTIFY_METADATA_VERSION) {
		snprintf(why, size,
			 "fanotify read gave %zd bytes (%s), not one event",
			 len, len < 0 ? strerror(errno) : "read");
		return -1;
	}
	if (ev->mask == FAN_Q_OVERFLOW && ev->fd == FAN_NOFD)
		return 2;
	if (ev->mask != FAN_OPEN || ev->pid != getpid()) {
		snprintf(why, size, "an event of mask 0x%llx from pid %d",
			 (unsigned long long)ev->mask, ev->pid);
		if (ev->fd >= 0)
			close(ev->fd);
		return -1;
	}
	if (ev->fd == FAN_NOFD)
		return fan_fid_names_file(c, ev, why, size) ? 1 : -1;
	ok = fan_same_inode(c, ev->fd, NULL, FAN_NAME, why, size);
	close(ev->fd);
	return ok ? 1 : -1;
}

/*
 * Whether group @fan has @want events queued (fan_events()), and then no
 * more.
 */
static bool fan_has(struct fd_ctx *c, int fan, int want, const char *when,
		    char *why, size_t size)
{
	int got = fan_events(c, fan, why, size);

	if (got < 0)
		return false;
	if (got == want && (!got || !fan_events(c, fan, why, size)))
		return true;
	snprintf(why, size, "%s: fanotify %s, expected %s", when,
		 got == 2 ? "overflowed" :
		 got == 1 ? "reports an open (or more)" :
			    "reports nothing",
		 want ? "one open" : "nothing");
	return false;
}

/* Opens FAN_NAME and closes it, unarmed: 0 or -errno. */
static int fan_open_file(struct fd_ctx *c)
{
	int fd = openat(c->dirfd, FAN_NAME, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The file to mark, and no group yet. */
static void fan_file_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;
	int fd;

	unlinkat(c->dirfd, FAN_NAME, 0);
	fd = openat(c->dirfd, FAN_NAME, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
	ASSERT_LE(0, fd)
	{
		TH_LOG("creating %s (unarmed): %s", FAN_NAME, strerror(errno));
	}
	close(fd);
}

/* fanotify_init() of a notification group. */
static int fan_init_action(void *arg)
{
	return fan_init(0);
}

/* Success: no mark yet, no event; once marked, an open is reported. */
static bool fan_init_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	int err;

	if (ret < 0)
		return true;
	if (!fdinfo_has(ret, "fanotify ino:", 0, why, size) ||
	    !fan_has(c, ret, 0, "new group", why, size))
		return false;
	err = fan_mark(c, ret, false);
	if (!err)
		err = fan_open_file(c);
	if (err) {
		snprintf(why, size, "marking %s and opening it: %s", FAN_NAME,
			 strerror(-err));
		return false;
	}
	return fan_has(c, ret, 1, "marked file opened", why, size);
}

/* A group of the variant's flags, unarmed, and the file. */
static void fan_group_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	fan_file_prepare(_metadata, arg);
	c->fd = fan_init(c->fan_flags);
	ASSERT_LE(0, c->fd)
	{
		TH_LOG("fanotify_init (unarmed): %s", strerror(errno));
	}
}

/* fanotify_mark(FAN_MARK_ADD) of the file for FAN_OPEN. */
static int fan_mark_action(void *arg)
{
	struct fd_ctx *c = arg;

	return fan_mark(c, c->fd, false);
}

/*
 * Success: one inode mark listed, and the file's open reported. Failure:
 * no mark, and the open reported by no event.
 */
static bool fan_mark_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	int err;

	if (!fdinfo_has(c->fd, "fanotify ino:", ret < 0 ? 0 : 1, why, size))
		return false;
	err = fan_open_file(c);
	if (err) {
		snprintf(why, size, "opening %s: %s", FAN_NAME, strerror(-err));
		return false;
	}
	return fan_has(c, c->fd, ret < 0 ? 0 : 1, "after the open", why, size);
}

/* The group, with the file (or its directory) marked, unarmed. */
static void fan_event_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fd_ctx *c = arg;

	fan_group_prepare(_metadata, arg);
	ASSERT_EQ(0, fan_mark(c, c->fd, c->fan_on_dir));
}

/*
 * open() of the marked file: besides the open itself, the event that
 * fsnotify_open() (fs/open.c:1101, linux 6.12) has the group make in the
 * opener's task (fs/notify/fanotify/fanotify.c: fanotify_alloc_event()).
 */
static int fan_event_action(void *arg)
{
	struct fd_ctx *c = arg;

	return failnth_fd_ret(openat(c->dirfd, FAN_NAME, O_RDONLY | O_CLOEXEC));
}

/*
 * Success: the open is reported, or the event was lost and said so: when
 * the event cannot be allocated, fanotify_handle_event() queues the group's
 * overflow event instead (fs/notify/fanotify/fanotify.c:953, linux 6.12),
 * and the open goes on (fsnotify_open() returns nothing). Failure: no
 * event, nor an overflow: fsnotify_open() is the open's last step before
 * the fd is installed (fs/open.c:1101), and nothing after it allocates.
 */
static bool fan_event_check(void *arg, int ret, char *why, size_t size)
{
	struct fd_ctx *c = arg;
	int got = fan_events(c, c->fd, why, size);

	if (got < 0)
		return false;
	if (ret >= 0 && (got == 1 || got == 2) &&
	    !fan_events(c, c->fd, why, size))
		return true;
	if (ret < 0 && !got)
		return true;
	snprintf(why, size, "open %s, yet fanotify %s",
		 ret < 0 ? "failed" : "succeeded",
		 got == 2 ? "overflowed" :
		 got == 1 ? "reports the open (or more)" :
			    "reports nothing");
	return false;
}

static void fd_close_all(struct fd_ctx *c)
{
	close_fd(&c->fd);
	close_fd(&c->efd);
}

/*
 * Closes what the point opened, takes any SIGUSR1 still pending and puts
 * the signal mask back.
 */
static void fd_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	const struct timespec now = {};
	struct fd_ctx *c = arg;
	sigset_t set;

	if (ret >= 0 && c->returns_fd)
		EXPECT_EQ(0, close(ret));
	fd_close_all(c);
	if (!c->masked)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (sigtimedwait(&set, NULL, &now) == SIGUSR1)
		;
	ASSERT_EQ(0, sigprocmask(SIG_SETMASK, &c->old_mask, NULL));
	c->masked = false;
}

FIXTURE(fd_object)
{
	struct fd_ctx ctx;
};

FIXTURE_VARIANT(fd_object)
{
	const struct failnth_scenario *op;
	/* Whether a success returns a new fd, for cleanup to close. */
	bool returns_fd;
	/* fanotify: the group's FAN_REPORT_* flags; a mark on the directory. */
	unsigned int fan_flags;
	bool fan_on_dir;
};

FAILNTH_VARIANT_MORE(fd_object, eventfd, (.returns_fd = true),
		     .action = eventfd_action, .check = eventfd_check,
		     .allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, epoll_create1, (.returns_fd = true),
		     .prepare = epoll_create_prepare,
		     .action = epoll_create_action, .check = epoll_create_check,
		     .allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT(fd_object, epoll_ctl_add, .prepare = epoll_ctl_prepare,
		.action = epoll_ctl_action, .check = epoll_ctl_check,
		.allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, signalfd, (.returns_fd = true),
		     .prepare = signalfd_prepare, .action = signalfd_action,
		     .check = signalfd_check, .allowed = fd_errnos,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT_ADD(fd_object, timerfd, "timerfd_create_settime",
		    (.returns_fd = true), .action = timerfd_action,
		    .check = timerfd_check, .allowed = fd_errnos,
		    .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, inotify_init1, (.returns_fd = true),
		     .action = inotify_init_action, .check = inotify_init_check,
		     .allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT(fd_object, inotify_add_watch, .prepare = inotify_watch_prepare,
		.action = inotify_watch_action, .check = inotify_watch_check,
		.allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT(fd_object, dnotify, .prepare = dnotify_prepare,
		.action = dnotify_action, .check = dnotify_check,
		.allowed = fd_errnos, .cleanup = dnotify_cleanup);

FAILNTH_VARIANT(fd_object, name_to_handle_at, .prepare = handle_prepare,
		.action = handle_name_action, .check = handle_name_check,
		.allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, open_by_handle_at, (.returns_fd = true),
		     .prepare = handle_open_prepare,
		     .action = handle_open_action, .check = handle_open_check,
		     .allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, pty, (.returns_fd = true), .action = pty_action,
		     .check = pty_check, .allowed = pty_errnos,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, fanotify_init, (.returns_fd = true),
		     .prepare = fan_file_prepare, .action = fan_init_action,
		     .check = fan_init_check, .allowed = fan_errnos,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT(fd_object, fanotify_mark, .prepare = fan_group_prepare,
		.action = fan_mark_action, .check = fan_mark_check,
		.allowed = fan_errnos, .cleanup = fd_cleanup);

/*
 * The open of a marked file, told to a group that reports the file by an
 * fd (fanotify_alloc_path_event()), by its file handle (FAN_REPORT_FID:
 * fanotify_alloc_fid_event()), or by its directory's handle and its name
 * (FAN_REPORT_DFID_NAME, the directory marked for its children:
 * fanotify_alloc_name_event()).
 */
FAILNTH_VARIANT_MORE(fd_object, fanotify_event_path, (.returns_fd = true),
		     .prepare = fan_event_prepare, .action = fan_event_action,
		     .check = fan_event_check, .allowed = fan_errnos,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, fanotify_event_fid,
		     (.returns_fd = true, .fan_flags = FAN_REPORT_FID),
		     .prepare = fan_event_prepare, .action = fan_event_action,
		     .check = fan_event_check, .allowed = fan_errnos,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(fd_object, fanotify_event_name,
		     (.returns_fd = true, .fan_flags = FAN_REPORT_DFID_NAME,
		      .fan_on_dir = true),
		     .prepare = fan_event_prepare, .action = fan_event_action,
		     .check = fan_event_check, .allowed = fan_errnos,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT(fd_object, flock, .prepare = lock_prepare,
		.action = flock_action, .check = flock_check,
		.allowed = fd_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT(fd_object, ofd_setlk, .prepare = lock_prepare,
		.action = ofd_setlk_action, .check = ofd_setlk_check,
		.allowed = setlk_errnos, .cleanup = fd_cleanup);

FAILNTH_VARIANT(fd_object, ofd_unlock_split, .prepare = ofd_split_prepare,
		.action = ofd_split_action, .check = ofd_split_check,
		.allowed = setlk_errnos, .cleanup = fd_cleanup);

/*
 * A fresh tmpfs, in a private mount namespace, for inotify to watch and the
 * handle calls to work on.
 */
FIXTURE_SETUP(fd_object)
{
	const char *missing = failnth_missing();
	struct fd_ctx *c = &self->ctx;
	char why[256];
	int err;

	c->dirfd = -1;
	c->fd = -1;
	c->efd = -1;
	c->masked = false;
	c->pts_mounted = false;
	c->returns_fd = variant->returns_fd;
	c->fan_flags = variant->fan_flags;
	c->fan_on_dir = variant->fan_on_dir;
	if (missing)
		SKIP(return, "%s", missing);
	if (variant->op->allowed == fan_errnos) {
		int fd = fan_init(0);

		if (fd == -ENOSYS)
			SKIP(return, "no fanotify: needs CONFIG_FANOTIFY");
		ASSERT_LE(0, fd);
		close(fd);
	}
	err = private_tmpfs(TMPFS_DIR, "size=1m,mode=0700", why, sizeof(why));
	if (err > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, err)
	{
		TH_LOG("%s", why);
	}
	c->dirfd = open(TMPFS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0) {
		err = errno;
		umount2(TMPFS_DIR, MNT_DETACH);
		ASSERT_EQ(0, err)
		{
			TH_LOG("opening %s: %s", TMPFS_DIR, strerror(err));
		}
	}
	if (variant->op->action != pty_action)
		return;
	/* A devpts of the test's own: its ptys and indexes alone. */
	ASSERT_EQ(0, mkdir(PTS_DIR, 0700));
	if (mount("devpts", PTS_DIR, "devpts", 0, "ptmxmode=0600,mode=0600")) {
		if (errno == ENODEV)
			SKIP(return, "no devpts: needs CONFIG_UNIX98_PTYS");
		ASSERT_EQ(0, errno)
		{
			TH_LOG("mounting devpts on %s: %s", PTS_DIR,
			       strerror(errno));
		}
	}
	c->pts_mounted = true;
}

FIXTURE_TEARDOWN(fd_object)
{
	struct fd_ctx *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	fd_close_all(c);
	if (c->masked)
		EXPECT_EQ(0, sigprocmask(SIG_SETMASK, &c->old_mask, NULL));
	if (c->pts_mounted)
		EXPECT_EQ(0, umount2(PTS_DIR, MNT_DETACH));
	if (c->dirfd >= 0) {
		EXPECT_EQ(0, close(c->dirfd));
		EXPECT_EQ(0, umount2(TMPFS_DIR, MNT_DETACH))
		{
			TH_LOG("unmounting %s: %s", TMPFS_DIR, strerror(errno));
		}
	}
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed or fail with an allowed errno; a success gives a working object
 * or lock, a failure leaves no fd, watch, epoll item or lock behind.
 */
FAILNTH_SWEEP_OP(fd_object, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
