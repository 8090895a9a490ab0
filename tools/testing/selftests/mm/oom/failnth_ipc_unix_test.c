// SPDX-License-Identifier: GPL-2.0
/*
 * AF_UNIX socket pairs and fd passing while their small allocations fail,
 * one at a time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h): socketpair(), sendmsg()
 * of a byte with an SCM_RIGHTS fd, or the recvmsg() that installs that fd,
 * on stream and datagram sockets; a MSG_PEEK of that fd; bind() to a path,
 * an abstract name or none (autobind); connect() and accept(); an fd sent
 * in a cycle that unix_gc() must reclaim; SCM_CREDENTIALS sent to a bound
 * datagram peer. The call must succeed or fail with an allowed errno. A
 * new pair carries bytes both ways; a sent fd arrives once and refers to
 * the file sent; a failure sends nothing and leaves no file in flight: the
 * pipe whose write end was passed sees EOF as soon as every fd of that end
 * is closed. A name bound is listed in /proc/net/unix and taken; a failed
 * bind leaves it free; a failed connect() or accept() leaves no half
 * connection.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "failnth.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* The names bound: a path on a private tmpfs, and an abstract name. */
#define TMPFS_DIR "/tmp"
#define SOCK_PATH TMPFS_DIR "/failnth.sock"
#define ABSTRACT "failnth.unix"

/* How a variant names its socket; NAME_NONE: it binds nothing. */
enum unix_name { NAME_NONE, NAME_PATH, NAME_ABSTRACT, NAME_AUTO };

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

/*
 * Clean failures of bind(): the address is copied by unix_create_addr()
 * and autobind's by kzalloc(), both reported as ENOMEM
 * (net/unix/af_unix.c:1282, :1345, :1219 "err = -ENOMEM;"); a path's
 * dentry and inode are made by kern_path_create() and vfs_mknod(), and
 * shmem_get_inode() reports a failed new_inode() as ENOSPC
 * (mm/shmem.c:2903 "return ERR_PTR(-ENOSPC);", linux 6.12).
 */
static const int bind_errnos[] = { ENOMEM, ENOSPC, 0 };

/*
 * Clean failures of connect(): the server's sock from unix_create1(),
 * "err = -ENOMEM;" (net/unix/af_unix.c:1038), and its skb, "err = -ENOMEM;"
 * (net/unix/af_unix.c:1589, linux 6.12).
 */
static const int connect_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of accept(): the new socket's inode, from sock_alloc(),
 * is reported as ENFILE by do_accept(): net/socket.c:1919 "return
 * ERR_PTR(-ENFILE);"; its file from alloc_empty_file(), ENOMEM or ENFILE
 * (fs/file_table.c:227, linux 6.12).
 */
static const int accept_errnos[] = { ENOMEM, ENFILE, 0 };

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
	/* recvmsg() flags of the action: MSG_PEEK for a peek. */
	int peek;
	/* The listener or bound receiver, its name, and the name's length. */
	int lsn;
	enum unix_name name;
	struct sockaddr_un addr;
	socklen_t alen;
	/* The inodes of sv[], whose sockets unix_gc() must reclaim. */
	ino_t ino[2];
	/* Whether the private tmpfs for SOCK_PATH is mounted. */
	bool tmpfs;
};

/* The credentials of the last SCM_CREDENTIALS recv_fd() received. */
static struct ucred got_cred;

/*
 * Writes @len bytes of @data as a control message of @type (SCM_RIGHTS,
 * SCM_CREDENTIALS; none when @len is 0) to the @cbuf of @msg, with one
 * byte.
 */
static void scm_msg_init(struct msghdr *msg, struct iovec *iov, char *byte,
			 void *cbuf, size_t clen, int type, const void *data,
			 size_t len)
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
	if (!len)
		return;
	msg->msg_controllen = CMSG_SPACE(len);
	cmsg = CMSG_FIRSTHDR(msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = type;
	cmsg->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cmsg), data, len);
}

/*
 * Sends one byte 'x' from @sock, to @to if set, with a control message of
 * @type and @len bytes of @data: 1 or -errno.
 */
static int send_scm(int sock, const struct sockaddr_un *to, socklen_t tolen,
		    int type, const void *data, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} cbuf;
	struct msghdr msg;
	struct iovec iov;
	char byte = 'x';

	scm_msg_init(&msg, &iov, &byte, &cbuf, sizeof(cbuf), type, data, len);
	msg.msg_name = (void *)to;
	msg.msg_namelen = to ? tolen : 0;
	return sendmsg(sock, &msg, 0) < 0 ? -errno : 1;
}

/* Sends one byte 'x' with fd @fd from @sock: 1 or -errno. */
static int send_fd(int sock, int fd)
{
	return send_scm(sock, NULL, 0, SCM_RIGHTS, &fd, sizeof(fd));
}

/*
 * Receives at most one byte and two fds from @sock without waiting; the
 * first fd goes to *@fd, the flags to *@flags, the byte to *@byte. Returns
 * the bytes plus the fds received (2 for a byte with one fd), else -errno.
 * Two fd slots: a second fd would be one too many, never dropped quietly.
 * Calls nothing that allocates: it runs armed.
 */
static int recv_fd(int sock, char *byte, int *fd, int *flags, int peek)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int)) +
			 CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} cbuf;
	struct cmsghdr *cmsg;
	struct msghdr msg;
	struct iovec iov;
	int ret, nfds = 0;

	scm_msg_init(&msg, &iov, byte, &cbuf, sizeof(cbuf), 0, NULL, 0);
	*fd = -1;
	memset(&got_cred, 0, sizeof(got_cred));
	ret = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | peek);
	if (ret < 0)
		return -errno;
	*flags = msg.msg_flags;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_CREDENTIALS &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(got_cred)))
			memcpy(&got_cred, CMSG_DATA(cmsg), sizeof(got_cred));
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

	ret = recv_fd(c->sv[1], &byte, &fd, &flags, 0);
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

	got = recv_fd(c->sv[1], &byte, &c->got, &c->msg_flags, 0);
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
	bind_to_parent(*(pid_t *)arg);
	for (;;)
		pause();
	return 0;
}

static void fresh_fdtable(struct __test_metadata *_metadata)
{
	pid_t parent = getpid();
	int pid, status, err;

	pid = clone(helper_wait, helper_stack + ARRAY_SIZE(helper_stack),
		    CLONE_VM | CLONE_FILES | SIGCHLD, &parent);
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
	return recv_fd(c->sv[1], &byte, &c->got, &c->msg_flags, c->peek);
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
		ret = recv_fd(c->sv[1], &byte, &c->got, &c->msg_flags, 0);
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

/*
 * recvmsg(MSG_PEEK) of a byte with the pipe's write end, into a full fd
 * table as for recvmsg(): unix_peek_fds() copies the fd list
 * (scm_fp_dup()) and the fd installed must grow the table.
 *
 * Success: a new fd for the end sent, and the message, fd included, still
 * queued whole. Short: the fd was dropped with MSG_CTRUNC, the message
 * still queued. Failure: no fd installed, the message still queued. The
 * message is then received as recv_check() expects of a failed recvmsg().
 */
static bool peek_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	struct stat st;

	if (ret == 2 && (fstat(c->got, &st) || st.st_ino != c->passed.st_ino ||
			 (c->msg_flags & MSG_CTRUNC))) {
		snprintf(why, size, "peeked fd %d is not the pipe sent",
			 c->got);
		return false;
	}
	if (ret != 2 && c->got != -1) {
		snprintf(why, size, "peek gave %d, yet installed fd %d", ret,
			 c->got);
		return false;
	}
	if (ret == 1 && !(c->msg_flags & MSG_CTRUNC)) {
		snprintf(why, size, "peek gave no fd, yet flags 0x%x",
			 c->msg_flags);
		return false;
	}
	close_fd(&c->got);
	return recv_check(arg, -ENOMEM, why, size);
}

/* A new unix socket of the variant's type, unarmed, into *@fd. */
static void open_sock(struct __test_metadata *_metadata, struct unix_ctx *c,
		      int *fd)
{
	*fd = socket(AF_UNIX, c->type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ASSERT_LE(0, *fd)
	{
		TH_LOG("socket (unarmed): %s", strerror(errno));
	}
}

/* The socket address of @name, in c->addr and c->alen. */
static void set_name(struct unix_ctx *c, enum unix_name name)
{
	memset(&c->addr, 0, sizeof(c->addr));
	c->addr.sun_family = AF_UNIX;
	c->alen = offsetof(struct sockaddr_un, sun_path);
	if (name == NAME_PATH) {
		memcpy(c->addr.sun_path, SOCK_PATH, sizeof(SOCK_PATH));
		c->alen += sizeof(SOCK_PATH);
	} else if (name == NAME_ABSTRACT) {
		memcpy(c->addr.sun_path + 1, ABSTRACT, strlen(ABSTRACT));
		c->alen += 1 + strlen(ABSTRACT);
	}
}

/*
 * The name /proc/net/unix lists for the socket of inode @want, into @name
 * ("" when unnamed; an abstract name starts with '@'): 0, or -1 when not
 * listed.
 */
static int proc_name(ino_t want, char *name, size_t size)
{
	char line[256], path[128];
	unsigned long ino;
	int ret = -1;
	FILE *f;

	f = fopen("/proc/net/unix", "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %127s", &ino,
			   path) >= 1 &&
		    ino == want) {
			snprintf(name, size, "%s", path);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* A second socket's bind() to the variant's name: 0 or -errno. */
static int bind_again(struct unix_ctx *c)
{
	int fd = socket(AF_UNIX, c->type | SOCK_CLOEXEC, 0), ret;

	ret = bind(fd, (struct sockaddr *)&c->addr, c->alen) ? -errno : 0;
	close(fd);
	if (!ret && c->name == NAME_PATH)
		unlink(SOCK_PATH);
	return ret;
}

/* bind() of a new socket, sv[0], to the variant's name or none (autobind). */
static void bind_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct unix_ctx *c = arg;

	open_sock(_metadata, c, &c->sv[0]);
}

static int bind_action(void *arg)
{
	struct unix_ctx *c = arg;

	return bind(c->sv[0], (struct sockaddr *)&c->addr, c->alen) ? -errno :
								      0;
}

/*
 * Success: /proc/net/unix lists the socket with the name asked ('@' and 5
 * hex digits for autobind, unix_autobind()), getsockname() agrees, and the
 * name is taken: a second bind() gets EADDRINUSE. Failure: the socket is
 * listed unnamed, getsockname() gives the family alone, no file is left at
 * the path (unix_bind_bsd() unlinks it, af_unix.c:1321), and a second
 * bind() of the name succeeds.
 */
static bool bind_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	const char *fmt =
		"/proc/net/unix names it \"%s\" (%u bytes), expected \"%s\"";
	char name[128], want[128];
	socklen_t want_len;
	struct stat st;
	int again;

	if (fstat(c->sv[0], &st) || proc_name(st.st_ino, name, sizeof(name)) ||
	    getsockname(c->sv[0], (struct sockaddr *)&sun, &len)) {
		snprintf(why, size, "socket not in /proc/net/unix");
		return false;
	}
	snprintf(want, sizeof(want), "%s",
		 c->name == NAME_PATH ? SOCK_PATH : "@" ABSTRACT);
	if (c->name == NAME_AUTO)
		snprintf(want, sizeof(want), "%s",
			 strlen(name) == 6 && name[0] == '@' ?
				 name :
				 "@ and 5 hex digits");
	if (ret < 0)
		want[0] = '\0';
	want_len = ret < 0 ? sizeof(sa_family_t) : c->alen;
	if (c->name == NAME_AUTO && ret >= 0)
		want_len = len;
	if (strcmp(name, want) || len != want_len) {
		snprintf(why, size, fmt, name, len, want);
		return false;
	}
	if (c->name == NAME_PATH && ret < 0 && !lstat(SOCK_PATH, &st)) {
		snprintf(why, size, "failed but left %s", SOCK_PATH);
		return false;
	}
	if (c->name == NAME_AUTO)
		return true;
	again = bind_again(c);
	if (again == (ret < 0 ? 0 : -EADDRINUSE))
		return true;
	snprintf(why, size, "a second bind of the name gave %d", again);
	return false;
}

/* A listener, lsn, bound to the abstract name and listening. */
static void listen_prepare(struct __test_metadata *_metadata,
			   struct unix_ctx *c)
{
	open_sock(_metadata, c, &c->lsn);
	ASSERT_EQ(0, bind(c->lsn, (struct sockaddr *)&c->addr, c->alen));
	ASSERT_EQ(0, listen(c->lsn, 4));
	open_sock(_metadata, c, &c->sv[0]);
}

static int connect_to(int fd, struct unix_ctx *c)
{
	return connect(fd, (struct sockaddr *)&c->addr, c->alen) ? -errno : 0;
}

/* connect() of a new client, sv[0], to the listener. */
static void connect_prepare(struct __test_metadata *_metadata, void *arg)
{
	listen_prepare(_metadata, arg);
}

static int connect_action(void *arg)
{
	struct unix_ctx *c = arg;

	return connect_to(c->sv[0], c);
}

/* The next connection of the listener, into sv[1]: 0 or -errno. */
static int accept_next(struct unix_ctx *c)
{
	c->sv[1] = accept4(c->lsn, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	return c->sv[1] < 0 ? -errno : 0;
}

/* Whether sv[0] and sv[1] are one connection: bytes flow both ways. */
static bool paired(struct unix_ctx *c, char *why, size_t size)
{
	return carries(c->sv[0], c->sv[1], 'a', why, size) &&
	       carries(c->sv[1], c->sv[0], 'b', why, size);
}

/*
 * Whether the listener takes a new client: connect() and accept() pair
 * them. Closes both.
 */
static bool still_accepts(struct unix_ctx *c, char *why, size_t size)
{
	bool ok;

	close_fd(&c->sv[0]);
	close_fd(&c->sv[1]);
	c->sv[0] = socket(AF_UNIX, c->type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ok = !connect_to(c->sv[0], c) && !accept_next(c);
	if (!ok)
		snprintf(why, size, "the listener no longer accepts");
	return ok && paired(c, why, size);
}

/*
 * Success: the listener accepts the client, and they carry bytes both
 * ways. Failure: the client is not connected (getpeername() ENOTCONN), the
 * listener has no connection queued (no half connection), and it still
 * accepts a new client.
 */
static bool connect_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	int err, peer;

	peer = getpeername(c->sv[0], (struct sockaddr *)&sun, &len) ? -errno :
								      0;
	err = accept_next(c);
	if (ret >= 0) {
		if (!peer && !err)
			return paired(c, why, size);
		snprintf(why, size, "connected, yet getpeername %d, accept %d",
			 peer, err);
		return false;
	}
	if (peer != -ENOTCONN || err != -EAGAIN) {
		snprintf(why, size, "failed, yet getpeername %d, accept %d",
			 peer, err);
		return false;
	}
	return still_accepts(c, why, size);
}

/* accept() of a client connected unarmed, into sv[1]. */
static void accept_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct unix_ctx *c = arg;

	listen_prepare(_metadata, c);
	ASSERT_EQ(0, connect_to(c->sv[0], c));
}

static int accept_action(void *arg)
{
	struct unix_ctx *c = arg;

	return accept_next(c) ?: c->sv[1];
}

/*
 * Success: the fd returned is the client's peer, bytes flow both ways.
 * Failure: no fd, and the connection is still queued: an accept() unarmed
 * takes it, and it carries bytes.
 */
static bool accept_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	int err;

	if (ret >= 0 && ret != c->sv[1]) {
		snprintf(why, size, "accept returned %d, not the new fd %d",
			 ret, c->sv[1]);
		return false;
	}
	if (ret < 0 && c->sv[1] != -1) {
		snprintf(why, size, "failed, yet gave fd %d", c->sv[1]);
		return false;
	}
	if (ret < 0) {
		err = accept_next(c);
		if (err) {
			snprintf(why, size,
				 "after a failed accept, no connection (%d)",
				 err);
			return false;
		}
	}
	return paired(c, why, size);
}

/*
 * sendmsg() of sv[1] over the pair into sv[1]'s own queue: a cycle that
 * only unix_gc() can free once both ends are closed.
 */
static void cycle_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct unix_ctx *c = arg;
	struct stat st;
	int i;

	open_pair(_metadata, c);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, fstat(c->sv[i], &st));
		c->ino[i] = st.st_ino;
	}
}

static int cycle_action(void *arg)
{
	struct unix_ctx *c = arg;

	return send_fd(c->sv[0], c->sv[1]);
}

/* Whether a socket of inode @ino is listed in /proc/net/unix. */
static bool proc_lists(ino_t ino)
{
	char name[128];

	return !proc_name(ino, name, sizeof(name));
}

/*
 * Success: the byte is queued on sv[1] (FIONREAD), carrying sv[1] itself.
 * Failure: nothing is queued. Either way, once both ends are closed, both
 * sockets leave /proc/net/unix within 2 s: unix_release_sock() schedules
 * unix_gc() while fds are in flight (af_unix.c:757), which frees the
 * cycle. sv[1] is closed first: its release waits for the gc, so the
 * release of sv[0] must come after, or the gc runs while sv[1] is still
 * open and, lazy by design, waits for the next release.
 */
static bool cycle_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	int queued = -1, i, tries;

	ioctl(c->sv[1], FIONREAD, &queued);
	if (queued != (ret < 0 ? 0 : 1)) {
		snprintf(why, size, "%d bytes queued on the receiver", queued);
		return false;
	}
	close_fd(&c->sv[1]);
	close_fd(&c->sv[0]);
	for (i = 0; i < 2; i++) {
		for (tries = 0; proc_lists(c->ino[i]) && tries < 200; tries++)
			usleep(10000);
		if (tries == 200) {
			snprintf(why, size,
				 "socket %d (inode %lu) not reclaimed", i,
				 (unsigned long)c->ino[i]);
			return false;
		}
	}
	return true;
}

/*
 * sendto() of a byte with SCM_CREDENTIALS from an unbound datagram socket,
 * sv[0], to a peer, sv[1], bound to the abstract name with SO_PASSCRED.
 */
static void creds_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct unix_ctx *c = arg;
	int one = 1;

	open_sock(_metadata, c, &c->sv[0]);
	open_sock(_metadata, c, &c->sv[1]);
	ASSERT_EQ(0, bind(c->sv[1], (struct sockaddr *)&c->addr, c->alen));
	ASSERT_EQ(0, setsockopt(c->sv[1], SOL_SOCKET, SO_PASSCRED, &one,
				sizeof(one)));
}

static int creds_action(void *arg)
{
	struct unix_ctx *c = arg;
	struct ucred cred = { getpid(), getuid(), getgid() };

	return send_scm(c->sv[0], &c->addr, c->alen, SCM_CREDENTIALS, &cred,
			sizeof(cred));
}

/*
 * Success: the peer receives the byte with the sender's pid, uid and gid,
 * and nothing more. Failure: nothing is queued.
 */
static bool creds_check(void *arg, int ret, char *why, size_t size)
{
	struct unix_ctx *c = arg;
	char byte = 0;
	int got;

	if (ret < 0)
		return queue_empty(c, why, size);
	got = recv_fd(c->sv[1], &byte, &c->got, &c->msg_flags, 0);
	if (got != 1 || byte != 'x' || got_cred.pid != getpid() ||
	    got_cred.uid != getuid() || got_cred.gid != getgid()) {
		snprintf(why, size,
			 "recvmsg gave %d (byte '%c', pid %d, uid %u, gid %u)",
			 got, byte, got_cred.pid, got_cred.uid, got_cred.gid);
		return false;
	}
	return queue_empty(c, why, size);
}

static void unix_close_all(struct unix_ctx *c)
{
	int *const fds[] = { &c->sv[0], &c->sv[1], &c->p[0], &c->p[1],
			     &c->got,	&c->last,  &c->lsn };
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
	struct unix_ctx *c = arg;

	unix_close_all(c);
	if (c->name == NAME_PATH)
		unlink(SOCK_PATH);
}

FIXTURE(unix_sock)
{
	struct unix_ctx ctx;
};

FIXTURE_VARIANT(unix_sock)
{
	const struct failnth_scenario *op;
	/* SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET. */
	int type;
	/* The name bound, connected or sent to. */
	enum unix_name name;
	/* MSG_PEEK: recvmsg() peeks. */
	int peek;
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

FAILNTH_VARIANT_ADD(unix_sock, scm_peek_stream,
		    "recvmsg_peek_scm_rights_stream",
		    (.type = SOCK_STREAM, .peek = MSG_PEEK),
		    .prepare = recv_prepare, .action = recv_action,
		    .check = peek_check, .allowed = recvmsg_errnos, .full = 2,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, bind_path_stream, "bind_unix_path_stream",
		    (.type = SOCK_STREAM, .name = NAME_PATH),
		    .prepare = bind_prepare, .action = bind_action,
		    .check = bind_check, .allowed = bind_errnos,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, bind_abstract_seqpacket,
		    "bind_unix_abstract_seqpacket",
		    (.type = SOCK_SEQPACKET, .name = NAME_ABSTRACT),
		    .prepare = bind_prepare, .action = bind_action,
		    .check = bind_check, .allowed = bind_errnos,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, autobind_stream, "bind_unix_autobind_stream",
		    (.type = SOCK_STREAM, .name = NAME_AUTO),
		    .prepare = bind_prepare, .action = bind_action,
		    .check = bind_check, .allowed = bind_errnos,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, connect_stream, "connect_unix_stream",
		    (.type = SOCK_STREAM, .name = NAME_ABSTRACT),
		    .prepare = connect_prepare, .action = connect_action,
		    .check = connect_check, .allowed = connect_errnos,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, accept_stream, "accept_unix_stream",
		    (.type = SOCK_STREAM, .name = NAME_ABSTRACT),
		    .prepare = accept_prepare, .action = accept_action,
		    .check = accept_check, .allowed = accept_errnos,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, scm_cycle_stream, "sendmsg_scm_rights_cycle_gc",
		    (.type = SOCK_STREAM), .prepare = cycle_prepare,
		    .action = cycle_action, .check = cycle_check,
		    .allowed = sendmsg_errnos, .full = 1,
		    .cleanup = unix_cleanup);

FAILNTH_VARIANT_ADD(unix_sock, scm_creds_dgram, "sendto_scm_credentials_dgram",
		    (.type = SOCK_DGRAM, .name = NAME_ABSTRACT),
		    .prepare = creds_prepare, .action = creds_action,
		    .check = creds_check, .allowed = sendmsg_errnos, .full = 1,
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
	c->lsn = -1;
	c->type = variant->type;
	c->name = variant->name;
	c->peek = variant->peek;
	c->msg_flags = 0;
	c->tmpfs = false;
	set_name(c, c->name);
	if (missing)
		SKIP(return, "%s", missing);
	if (c->name == NAME_PATH) {
		char why[256];
		int err = private_tmpfs(TMPFS_DIR, "size=64k,mode=0700", why,
					sizeof(why));

		if (err > 0)
			SKIP(return, "%s", why);
		ASSERT_EQ(0, err)
		{
			TH_LOG("%s", why);
		}
		c->tmpfs = true;
	}
}

FIXTURE_TEARDOWN(unix_sock)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	unix_close_all(&self->ctx);
	if (self->ctx.tmpfs)
		EXPECT_EQ(0, umount2(TMPFS_DIR, MNT_DETACH));
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
