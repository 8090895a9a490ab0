// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX socket pairs and fd passing while their small allocations fail,
 * one at a time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h): socketpair(), sendmsg()
 * of a byte with an SCM_RIGHTS fd, or the recvmsg() that installs that fd,
 * on stream and datagram sockets. The call must succeed or fail with an
 * allowed errno. A new pair carries bytes both ways; a sent fd arrives once
 * and refers to the file sent; a failure sends nothing and leaves no file
 * in flight: the pipe whose write end was passed sees EOF as soon as every
 * fd of that end is closed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failnth.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/*
 * The fds a fresh fd table holds without growing (NR_OPEN_DEFAULT, that is
 * BITS_PER_LONG): a received fd beyond them makes recvmsg() allocate a
 * larger table.
 */
#define FDTABLE_DEFAULT (8 * (int)sizeof(long))

/*
 * Clean failures of socketpair(). A socket's inode comes from sock_alloc(),
 * whose failure __sock_create() reports as ENFILE: net/socket.c:1526
 * "return -ENFILE;" (linux 6.12).
 */
static const int socketpair_errnos[] = { ENOMEM, ENFILE, 0 };

/*
 * Clean failures of sendmsg(). The skb comes from alloc_skb_with_frags(),
 * which reports a failed alloc_skb() as ENOBUFS: net/core/skbuff.c:6679
 * "*errcode = -ENOBUFS;" (linux 6.12).
 */
static const int sendmsg_errnos[] = { ENOMEM, ENOBUFS, 0 };

/* Clean failures of recvmsg(): none but ENOMEM. */
static const int recvmsg_errnos[] = { ENOMEM, 0 };

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct unix_ctx {
	/* SOCK_STREAM or SOCK_DGRAM: the variant's. */
	int type;
	/* The socket pair under test or used. */
	int sv[2];
	/* The pipe whose write end is passed, and that end's identity. */
	int p[2];
	struct stat passed;
	/* The fd received, and the flags recvmsg() returned. */
	int got;
	int msg_flags;
	/* The fds that fill the fd table before recvmsg(), and the last. */
	int fill[FDTABLE_DEFAULT];
	int nr_fill;
	int last;
};

/* Writes fd @fd to the SCM_RIGHTS @cmsg buffer of @msg, with one byte. */
static void scm_msg_init(struct msghdr *msg, struct iovec *iov, char *byte,
			 void *cbuf, size_t clen, int fd)
{
	struct cmsghdr *cmsg;

	iov->iov_base = byte;
	iov->iov_len = 1;
	memset(msg, 0, sizeof(*msg));
	memset(cbuf, 0, clen);
	msg->msg_iov = iov;
	msg->msg_iovlen = 1;
	msg->msg_control = cbuf;
	msg->msg_controllen = clen;
	if (fd < 0)
		return;
	msg->msg_controllen = CMSG_SPACE(sizeof(int));
	cmsg = CMSG_FIRSTHDR(msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
}

/* Sends one byte 'x' with fd @fd from @sock: 1 or -errno. */
static int send_fd(int sock, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct msghdr msg;
	struct iovec iov;
	char byte = 'x';

	scm_msg_init(&msg, &iov, &byte, &cbuf, sizeof(cbuf), fd);
	return sendmsg(sock, &msg, 0) < 0 ? -errno : 1;
}

/*
 * Receives at most one byte and two fds from @sock without waiting; the
 * first fd goes to *@fd, the flags to *@flags, the byte to *@byte. Returns
 * the bytes plus the fds received (2 for a byte with one fd), else -errno.
 * Two fd slots: a second fd would be one too many, never dropped quietly.
 * Calls nothing that allocates: it runs armed.
 */
static int recv_fd(int sock, char *byte, int *fd, int *flags)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct cmsghdr *cmsg;
	struct msghdr msg;
	struct iovec iov;
	int ret, nfds = 0;

	scm_msg_init(&msg, &iov, byte, &cbuf, sizeof(cbuf), -1);
	*fd = -1;
	ret = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (ret < 0)
		return -errno;
	*flags = msg.msg_flags;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		nfds = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (nfds > 0)
			memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	}
	return ret + nfds;
}

/* Whether a non-blocking read of @rfd returns @expect: 0 EOF, -EAGAIN. */
static bool read_gives(int rfd, int expect, const char *when, char *why,
		       size_t size)
{
	char byte;
	int ret = read(rfd, &byte, 1);

	if (ret < 0)
		ret = -errno;
	if (ret == expect)
		return true;
	snprintf(why, size, "%s: reading the pipe gave %d, expected %s", when,
		 ret, expect ? "EAGAIN (a writer still open)" : "EOF");
	return false;
}

/*
 * Whether @fd is the passed write end: same file, and a byte written to it
 * comes out of the pipe. Then closes it: the pipe must see EOF, since no
 * other writer is open and none is in flight.
 */
static bool got_passed_end(struct unix_ctx *c, char *why, size_t size)
{
	struct stat st;
	char byte;

	if (fstat(c->got, &st) || st.st_dev != c->passed.st_dev ||
	    st.st_ino != c->passed.st_ino) {
		snprintf(why, size, "received fd %d is not the pipe sent",
			 c->got);
		return false;
	}
	if (write(c->got, "y", 1) != 1 || read(c->p[0], &byte, 1) != 1 ||
	    byte != 'y') {
		const char *msg =
			"a byte written to the received fd did not come out of the pipe";

		snprintf(why, size, "%s", msg);
		return false;
	}
	if (!read_gives(c->p[0], -EAGAIN, "with the received end open", why,
			size))
		return false;
	close(c->got);
	c->got = -1;
	return read_gives(c->p[0], 0, "all write ends closed", why, size);
}

/* Whether nothing more is queued on the receiving socket. */
static bool queue_empty(struct unix_ctx *c, char *why, size_t size)
{
	char byte;
	int fd, flags, ret;

	ret = recv_fd(c->sv[1], &byte, &fd, &flags);
	if (ret == -EAGAIN)
		return true;
	if (fd >= 0)
		close(fd);
	snprintf(why, size,
		 "the receiving socket still has a message (recvmsg gave %d)",
		 ret);
	return false;
}

static void open_pair(struct __test_metadata *_metadata, struct unix_ctx *c)
{
	ASSERT_EQ(0, socketpair(AF_UNIX, c->type | SOCK_CLOEXEC | SOCK_NONBLOCK,
				0, c->sv))
	{
		TH_LOG("socketpair (unarmed): %s", strerror(errno));
	}
}

/* A pipe, and the identity of its write end. */
static void open_pipe(struct __test_metadata *_metadata, struct unix_ctx *c)
{
	ASSERT_EQ(0, pipe2(c->p, O_CLOEXEC | O_NONBLOCK))
	{
		TH_LOG("pipe2 (unarmed): %s", strerror(errno));
	}
	ASSERT_EQ(0, fstat(c->p[1], &c->passed));
}

/* socketpair(): the fds are only written on success. */
static void pair_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct unix_ctx *c = arg;

	c->sv[0] = -1;
	c->sv[1] = -1;
}

static int pair_action(void *arg)
{
	struct unix_ctx *c = arg;

	return socketpair(AF_UNIX, c->type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
			  c->sv) ?
		       -errno :
		       0;
}

/* Sends @byte from @from and checks that exactly it arrives at @to. */
static bool carries(int from, int to, char byte, char *why, size_t size)
{
	char got[2];

	if (send(from, &byte, 1, 0) != 1) {
		snprintf(why, size, "send on the new pair: %s",
			 strerror(errno));
		return false;
	}
	if (recv(to, got, sizeof(got), MSG_DONTWAIT) != 1 || got[0] != byte) {
		snprintf(why, size, "the byte sent did not arrive alone");
		return false;
	}
	return true;
}

/* Success: two sockets of the type asked, carrying bytes both ways. */
static bool pair_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	int i, type;
	socklen_t len = sizeof(type);

	if (ret < 0) {
		if (c->sv[0] == -1 && c->sv[1] == -1)
			return true;
		snprintf(why, size, "failed but wrote fds %d, %d to sv[] (%s)",
			 c->sv[0], c->sv[1],
			 fcntl(c->sv[0], F_GETFD) < 0 &&
					 fcntl(c->sv[1], F_GETFD) < 0 ?
				 "neither open" :
				 "open");
		c->sv[0] = -1;
		c->sv[1] = -1;
		return false;
	}
	for (i = 0; i < 2; i++) {
		if (getsockopt(c->sv[i], SOL_SOCKET, SO_TYPE, &type, &len) ||
		    type != c->type) {
			snprintf(why, size, "fd %d is not a socket of type %d",
				 c->sv[i], c->type);
			return false;
		}
		if (!(fcntl(c->sv[i], F_GETFD) & FD_CLOEXEC) ||
		    !(fcntl(c->sv[i], F_GETFL) & O_NONBLOCK)) {
			const char *fmt =
				"socket %d lacks SOCK_CLOEXEC or SOCK_NONBLOCK";

			snprintf(why, size, fmt, i);
			return false;
		}
	}
	return carries(c->sv[0], c->sv[1], 'a', why, size) &&
	       carries(c->sv[1], c->sv[0], 'b', why, size);
}

/* sendmsg() of a byte with the pipe's write end. */
static void send_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct unix_ctx *c = arg;

	open_pair(_metadata, c);
	open_pipe(_metadata, c);
}

static int send_action(void *arg)
{
	struct unix_ctx *c = arg;

	return send_fd(c->sv[0], c->p[1]);
}

/*
 * Success: the byte and the fd arrive, once. Failure: nothing is queued,
 * and once our write end is closed the pipe sees EOF: no copy of it is in
 * flight.
 */
static bool send_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	const char *not_one =
		"recvmsg gave %d (byte '%c', fd %d, flags 0x%x), expected the byte and one fd";
	char byte = 0;
	int got;

	got = recv_fd(c->sv[1], &byte, &c->got, &c->msg_flags);
	if (ret < 0) {
		if (got != -EAGAIN) {
			const char *fmt =
				"failed, but recvmsg gave %d (byte '%c', fd %d)";

			snprintf(why, size, fmt, got, byte, c->got);
			return false;
		}
		close(c->p[1]);
		c->p[1] = -1;
		return read_gives(c->p[0], 0, "after a failed send", why, size);
	}
	if (got != 2 || byte != 'x' || (c->msg_flags & MSG_CTRUNC)) {
		snprintf(why, size, not_one, got, byte, c->got, c->msg_flags);
		return false;
	}
	close(c->p[1]);
	c->p[1] = -1;
	return got_passed_end(c, why, size) && queue_empty(c, why, size);
}

/*
 * Gives this process an fd table of its own, of the default size: clones a
 * helper that shares the table, so that unshare(CLONE_FILES) copies it
 * (it does nothing to a table nobody shares), then ends the helper. The
 * copy is sized to the fds open, all below FDTABLE_DEFAULT.
 */
static long helper_stack[2048];

static int helper_wait(void *arg)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		pause();
	return 0;
}

static void fresh_fdtable(struct __test_metadata *_metadata)
{
	int pid, status, err;

	pid = clone(helper_wait, helper_stack + ARRAY_SIZE(helper_stack),
		    CLONE_VM | CLONE_FILES | SIGCHLD, NULL);
	ASSERT_LT(0, pid)
	{
		TH_LOG("cloning a helper that shares the fd table: %s",
		       strerror(errno));
	}
	err = unshare(CLONE_FILES) ? errno : 0;
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, err)
	{
		TH_LOG("unshare(CLONE_FILES): %s", strerror(err));
	}
}

/*
 * recvmsg() of a byte with the pipe's write end (sent unarmed, our copy
 * closed) into a full default fd table, so that installing the fd must
 * grow the table: expand_files() allocates. The table is filled but for
 * its last slot, which the engine's own reading of the maps after
 * prepare needs; the action takes that slot first (a dup() into a free
 * slot allocates nothing).
 */
static void recv_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct unix_ctx *c = arg;
	int fd = -1;

	fresh_fdtable(_metadata);
	open_pair(_metadata, c);
	open_pipe(_metadata, c);
	ASSERT_EQ(1, send_fd(c->sv[0], c->p[1]));
	close(c->p[1]);
	c->p[1] = -1;
	while (c->nr_fill < FDTABLE_DEFAULT && fd < FDTABLE_DEFAULT - 2) {
		fd = fcntl(c->p[0], F_DUPFD_CLOEXEC, 0);
		ASSERT_LE(0, fd)
		{
			TH_LOG("filling the fd table: %s", strerror(errno));
		}
		c->fill[c->nr_fill++] = fd;
	}
	ASSERT_EQ(FDTABLE_DEFAULT - 2, fd)
	{
		TH_LOG("the fd table did not fill at fd %d", fd);
	}
}

static int recv_action(void *arg)
{
	struct unix_ctx *c = arg;
	char byte;

	c->last = fcntl(c->p[0], F_DUPFD_CLOEXEC, 0);
	if (c->last < 0)
		return -errno;
	return recv_fd(c->sv[1], &byte, &c->got, &c->msg_flags);
}

/*
 * Success: the fd arrives beyond the default table and is the end sent.
 * Short: the byte arrives, the fd is dropped with MSG_CTRUNC (the table
 * could not grow; scm_detach_fds() documents this) and is not leaked: the
 * pipe sees EOF. Failure: the message is still queued, whole.
 */
static bool recv_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	const char *not_whole =
		"after a failed recvmsg, the message is not whole: recvmsg gave %d (byte '%c')";
	char byte = 0;

	if (c->last != FDTABLE_DEFAULT - 1) {
		snprintf(why, size,
			 "the table's last free slot was fd %d, not %d",
			 c->last, FDTABLE_DEFAULT - 1);
		return false;
	}
	if (ret < 0) {
		ret = recv_fd(c->sv[1], &byte, &c->got, &c->msg_flags);
		if (ret != 2 || byte != 'x') {
			snprintf(why, size, not_whole, ret, byte);
			return false;
		}
	}
	if (ret == 1) {
		if (!(c->msg_flags & MSG_CTRUNC) || c->got != -1) {
			snprintf(why, size,
				 "no fd received, yet flags 0x%x, fd %d",
				 c->msg_flags, c->got);
			return false;
		}
		return read_gives(c->p[0], 0, "the fd was dropped", why,
				  size) &&
		       queue_empty(c, why, size);
	}
	if (ret != 2 || (c->msg_flags & MSG_CTRUNC)) {
		const char *fmt =
			"recvmsg gave %d (fd %d, flags 0x%x), expected the byte and one fd";

		snprintf(why, size, fmt, ret, c->got, c->msg_flags);
		return false;
	}
	if (c->got < FDTABLE_DEFAULT) {
		snprintf(why, size, "received fd %d, inside the full table",
			 c->got);
		return false;
	}
	return got_passed_end(c, why, size) && queue_empty(c, why, size);
}

static void unix_close_all(struct unix_ctx *c)
{
	int *const fds[] = { &c->sv[0], &c->sv[1], &c->p[0],
			     &c->p[1],	&c->got,   &c->last };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	while (c->nr_fill > 0)
		close(c->fill[--c->nr_fill]);
	c->msg_flags = 0;
}

static void unix_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	unix_close_all(arg);
}

FIXTURE(unix_sock)
{
	struct unix_ctx ctx;
};

FIXTURE_VARIANT(unix_sock)
{
	const struct failnth_scenario *op;
	/* SOCK_STREAM or SOCK_DGRAM. */
	int type;
};

FAILNTH_VARIANT_ADD(unix_sock, socketpair_stream, "socketpair_unix_stream",
		    (.type = SOCK_STREAM), .prepare = pair_prepare,
		    .action = pair_action, .check = pair_check,
		    .allowed = socketpair_errnos, .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, socketpair_dgram, "socketpair_unix_dgram",
		    (.type = SOCK_DGRAM), .prepare = pair_prepare,
		    .action = pair_action, .check = pair_check,
		    .allowed = socketpair_errnos, .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, scm_send_stream, "sendmsg_scm_rights_stream",
		    (.type = SOCK_STREAM), .prepare = send_prepare,
		    .action = send_action, .check = send_check,
		    .allowed = sendmsg_errnos, .full = 1,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, scm_send_dgram, "sendmsg_scm_rights_dgram",
		    (.type = SOCK_DGRAM), .prepare = send_prepare,
		    .action = send_action, .check = send_check,
		    .allowed = sendmsg_errnos, .full = 1,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, scm_recv_stream, "recvmsg_scm_rights_stream",
		    (.type = SOCK_STREAM), .prepare = recv_prepare,
		    .action = recv_action, .check = recv_check,
		    .allowed = recvmsg_errnos, .full = 2,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, scm_recv_dgram, "recvmsg_scm_rights_dgram",
		    (.type = SOCK_DGRAM), .prepare = recv_prepare,
		    .action = recv_action, .check = recv_check,
		    .allowed = recvmsg_errnos, .full = 2,
		    .cleanup = unix_cleanup);

FIXTURE_SETUP(unix_sock)
{
	const char *missing = failnth_missing();
	struct unix_ctx *c = &self->ctx;

	c->sv[0] = -1;
	c->sv[1] = -1;
	c->p[0] = -1;
	c->p[1] = -1;
	c->got = -1;
	c->last = -1;
	c->nr_fill = 0;
	c->type = variant->type;
	c->msg_flags = 0;
	if (missing)
		SKIP(return, "%s", missing);
}

FIXTURE_TEARDOWN(unix_sock)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, failnth_knobs_restore());
	unix_close_all(&self->ctx);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed or fail with an allowed errno; what arrives is exactly what was
 * sent, a passed file arrives once or not at all, and no fd or in-flight
 * file is left behind.
 */
FAILNTH_SWEEP_OP(unix_sock, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
