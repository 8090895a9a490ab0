// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring and native AIO while their small allocations fail, one at a
 * time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h): io_uring_setup() (of a
 * plain ring, an SQPOLL one, one of big SQEs and CQEs, one of many entries,
 * and in a task with no io_uring context yet), an io_uring_enter() that
 * submits requests (reads, writes, an open, a timeout, polls, a link, a
 * cancel, provided buffers, a send and receive, a message to another
 * ring, futex waits, xattrs, completions beyond the CQ ring), an
 * io_uring_register() of buffers (or a clone of another ring's), files, a
 * buffer ring, an eventfd, a personality or a probe, io_setup() and an
 * io_submit() that reads, writes or polls. The call must succeed or fail
 * with an allowed errno. A success gives what it says: a ring whose
 * mapping shows its size, each request's completion with its effect (the
 * bytes read or written, the file opened, the buffer taken, the message
 * posted to the other ring, the waiter woken, the xattr set), a
 * registration that unregistering finds, an AIO context
 * that io_destroy() takes, an event with its effect. A request that failed
 * in a submission that did not says so in its completion, with an errno of
 * that request's path, and left nothing done. A failure leaves nothing: no
 * fd or mapping (the engine counts them), the requests still in the
 * submission queue and no completion, nothing registered, no context, no
 * event.
 *
 * fail-nth counts the allocations of the calling task only: an io-wq
 * worker or the SQPOLL thread allocates in a task of its own, out of
 * reach, but both are created by the caller, and the sweeps that create
 * them (a punted read and the io_uring context of a new task, in a child
 * of their own) do reach that.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "failnth_child.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* The ring the io_uring variants set up, and what the NOP carries. */
#define RING_ENTRIES 8
#define NOP_COOKIE 0x746f6f736d616c6cULL

/* A ring whose SQ and CQ rings and SQEs span many pages (io_pages_map()). */
#define BIG_RING_ENTRIES 4096

/* The buffers IORING_REGISTER_BUFFERS pins: a few pages each. */
#define NR_BUFS 4
#define BUF_SIZE (4 * 4096)

/* What the AIO read reads, and the bound on waiting for its event. */
#define READ_LEN 4096
#define EVENT_MS 1000

/* IORING_OP_READV's vectors: more than UIO_FASTIOV, so that it allocates. */
#define NR_IOVS 16

/* The requests' user_data: which SQE a completion is for. */
enum {
	UD_FIRST = 1,
	UD_SECOND,
	UD_PROBE,
};

/* The completions a check takes at most. */
#define MAX_CQES 8

/* IORING_OP_PROVIDE_BUFFERS: a group of a few buffers, the read takes one. */
#define PBUF_GROUP 1
#define NR_PBUFS 4
#define PBUF_LEN 1024

/* What IORING_OP_SEND sends and IORING_OP_RECV receives. */
#define MSG_LEN 1024

/* IORING_OP_MSG_RING: the completion it posts in the other ring. */
#define MSG_RING_DATA 0x6d73675f72696e67ULL
#define MSG_RING_RES 0x1234

/* The fixed files IORING_REGISTER_FILES registers; the update fills two. */
#define NR_FILES 4
#define NR_UPDATE 2

/* The xattr of the memfd IORING_OP_FGETXATTR reads, the one FSETXATTR sets. */
#define XATTR_NAME "user.toosmall"
#define XATTR_NEW "user.toosmall.new"
#define XATTR_LEN 64

/*
 * The CQ overflow ring: 2 SQEs, 4 CQEs, filled by the prep; the action's
 * 2 NOPs overflow.
 */
#define OVF_ENTRIES 2
#define OVF_CQES (2 * OVF_ENTRIES)

/*
 * The ops IORING_REGISTER_PROBE describes, and its buffer in __u64s: the
 * 16 bytes of struct io_uring_probe, then 8 for each op.
 */
#define PROBE_OPS 64
#define PROBE_WORDS (2 + PROBE_OPS)

/*
 * io_uring's futex ops (linux 6.7; include/uapi/linux/io_uring.h, enum
 * io_uring_op), which older uapi headers lack, and their futex2 flags: a
 * private u32 (FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, uapi/linux/futex.h).
 */
#define OP_FUTEX_WAIT 51
#define OP_FUTEX_WAKE 52
#define OP_FUTEX_WAITV 53
#define FUTEX2_U32_PRIVATE (FUTEX_32 | FUTEX_PRIVATE_FLAG)
#define FUTEX_WORD 7

/*
 * IORING_REGISTER_CLONE_BUFFERS (linux 6.12) and its argument, which older
 * uapi headers lack (include/uapi/linux/io_uring.h).
 */
#define REGISTER_CLONE_BUFFERS 30
struct clone_buffers {
	__u32 src_fd;
	__u32 flags;
	__u32 pad[6];
};

/* The io-wq worker limits IORING_REGISTER_IOWQ_MAX_WORKERS sets. */
#define IOWQ_BOUND 2

/*
 * Clean failures of io_uring_setup() and of registrations: every
 * allocation of io_uring/io_uring.c:io_uring_create() and of
 * io_uring/rsrc.c:io_sqe_buffers_register() fails as ENOMEM (linux 6.12);
 * so do those of io_sqe_files_register() (rsrc.c:58, 648, 724),
 * io_register_pbuf_ring() (kbuf.c: "if (!bl) return -ENOMEM", and
 * io_pages_map()'s ERR_PTR(-ENOMEM), memmap.c), io_eventfd_register()
 * (eventfd.c:124) and io_register_personality() (xa_alloc_cyclic()'s
 * -ENOMEM, register.c:96). SQPOLL's thread is created by
 * create_io_thread() (sqpoll.c:562), which fails as copy_process() does:
 * ENOMEM, or EAGAIN where it cannot get a pid (alloc_pid(),
 * kernel/pid.c, "retval = -EAGAIN" on idr_alloc_cyclic()'s -ENOSPC; only
 * ENOMEM otherwise).
 */
static const int uring_errnos[] = { ENOMEM, 0 };
static const int sqpoll_errnos[] = { ENOMEM, EAGAIN, 0 };

/*
 * Clean failures of io_uring_enter(): a request it cannot allocate is
 * EAGAIN when nothing was submitted (io_uring/io_uring.c:
 * io_submit_sqes(), "if (!submitted) submitted = -EAGAIN" after
 * io_alloc_req() failed; io_uring_enter(2): "The kernel was unable to
 * allocate memory for the request").
 */
static const int enter_errnos[] = { ENOMEM, EAGAIN, 0 };

/*
 * Clean failures of one request, in its completion's res, when
 * io_uring_enter() submitted it: its async data (rw.c:242
 * io_rw_alloc_async(), timeout.c:564, net.c:404 io_msg_alloc_async()),
 * its iovec (iovec_from_user(), lib/iov_iter.c, via io_import_iovec()),
 * its file (getname() and alloc_empty_file(), openclose.c:67,
 * fs/file_table.c), the second poll entry (poll.c:549), the remote
 * message (msg_ring.c:109), a buffer group (kbuf.c:588, 602) are ENOMEM.
 * A request punted to io-wq whose first worker cannot be created is
 * cancelled (io-wq.c:1063 io_wq_enqueue(), "fatal condition, failed to
 * create the first worker"): ECANCELED (io_uring.c:1854).
 */
static const int req_errnos[] = { ENOMEM, ECANCELED, 0 };

/*
 * What the head of a send and receive link can end with besides:
 * sock_alloc_send_pskb() makes a failed skb allocation ENOBUFS
 * (net/core/sock.c, "err = -ENOBUFS" before alloc_skb_with_frags()), and
 * a link whose next member failed at submission has its head cancelled
 * (ECANCELED, io_submit_fail_init(), io_uring.c:2196).
 */
static const int send_errnos[] = { ENOMEM, ENOBUFS, ECANCELED, 0 };

/*
 * Clean failures of io_setup() and io_submit(): io_setup(2) and
 * io_submit(2) give ENOMEM and EAGAIN ("Insufficient resources"); fs/aio.c
 * reports a kiocb it cannot allocate as EAGAIN (io_submit_one(), linux
 * 6.12).
 */
static const int aio_errnos[] = { ENOMEM, EAGAIN, 0 };

/* A ring and its three mappings; fd is -1 when closed. */
struct uring {
	int fd;
	struct io_uring_params p;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
};

struct io_ctx;

/*
 * A scenario on a ring of its own, set up for each point (uring_prepare):
 * prep queues its SQEs (and makes what they work on), the action submits
 * them and waits for their completions (or makes its own call), the check
 * takes the completions and judges them and the state with judge.
 */
struct uring_case {
	/* The ring's entries (0: RING_ENTRIES) and setup flags. */
	unsigned int ring_entries;
	__u32 ring_flags;
	/* An SQE's opcode and flags, for the preps that use them. */
	__u8 opcode, sqe_flags;
	/* The SQEs prep queues, and the completions the action waits for. */
	unsigned int nr_sqes, nr_wait;
	/* Makes what the SQEs work on and queues them: 0 or -errno. */
	int (*prep)(struct io_ctx *c);
	/* The call, when it is not io_uring_enter() of the SQEs queued. */
	int (*act)(struct io_ctx *c);
	/* Whether the completions taken and the state match @ret. */
	bool (*judge)(struct io_ctx *c, int ret, char *why, size_t size);
	/* Undoes prep and the effect; the ring is closed after. Optional. */
	void (*undo)(struct io_ctx *c);
};

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct io_ctx {
	/* The ring of the enter and register variants, for the sweep. */
	struct uring r;
	/* IORING_OP_MSG_RING's target ring. */
	struct uring peer;
	const struct uring_case *uc;
	/* The completions the check took from r, and how many. */
	struct io_uring_cqe cqes[MAX_CQES];
	int nr_cqes;
	/* A pipe or socketpair of the point, and an fd made of it. */
	int pair[2];
	int xfd;
	/* What the requests point to. */
	struct iovec iovs[NR_IOVS];
	struct __kernel_timespec ts;
	char path[64];
	int reg_fds[NR_FILES];
	__u32 workers[2];
	__u64 probe[PROBE_WORDS];
	/* The futex the futex ops wait on, and the vector of FUTEX_WAITV. */
	__u32 futex;
	struct futex_waitv waitv;
	/* Whether the check sent the bytes the receive waits for. */
	bool sent;
	/* The AIO context of the submit variants, their memfd and pipe. */
	aio_context_t aio;
	int memfd;
	int aio_pipe[2];
	/* What io_submit() submits (IOCB_CMD_*). */
	int aio_op;
	/* io_setup()'s context, written only by a success. */
	aio_context_t new_aio;
	/* io_uring_setup()'s ring: what it asks, its parameters, a mapping. */
	unsigned int new_entries;
	/* In a child: the fd a new ring would take, else -1. */
	int free_fd;
	__u32 new_flags;
	struct io_uring_params new_p;
	void *new_sq;
	size_t new_sq_len;
	struct iovec bufs[NR_BUFS];
	char data[READ_LEN], got[READ_LEN];
};

static int uring_setup(unsigned int entries, struct io_uring_params *p)
{
	int fd = syscall(__NR_io_uring_setup, entries, p);

	return fd < 0 ? -errno : fd;
}

static int uring_enter(int fd, unsigned int submit, unsigned int wait)
{
	int ret = syscall(__NR_io_uring_enter, fd, submit, wait,
			  wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);

	return ret < 0 ? -errno : ret;
}

/*
 * Runs @fd's pending task work, without waiting: a DEFER_TASKRUN ring
 * posts a remote completion only then (io_cqring_wait()).
 */
static int uring_run_work(int fd)
{
	int ret = syscall(__NR_io_uring_enter, fd, 0, 0, IORING_ENTER_GETEVENTS,
			  NULL, 0);

	return ret < 0 ? -errno : ret;
}

/* What the registration returns (an id, a count, 0), or -errno. */
static int uring_register(int fd, unsigned int op, void *arg, unsigned int nr)
{
	long ret = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return ret < 0 ? -errno : ret;
}

/* The SQ ring's size, as io_uring(7) computes it. */
static size_t sq_ring_len(const struct io_uring_params *p)
{
	return p->sq_off.array + p->sq_entries * sizeof(__u32);
}

/* A __u32 of a ring, at @off in its mapping @base. */
#define RING_U32(base, off) ((__u32 *)((char *)(base) + (off)))

/* Sets up @r with @entries and @flags and maps its rings: 0 or -errno. */
static int ring_open(struct uring *r, unsigned int entries, __u32 flags)
{
	int ret;

	memset(&r->p, 0, sizeof(r->p));
	r->p.flags = flags;
	r->fd = uring_setup(entries, &r->p);
	if (r->fd < 0)
		return r->fd;
	r->sq_len = sq_ring_len(&r->p);
	r->cq_len = r->p.cq_off.cqes +
		    r->p.cq_entries * sizeof(struct io_uring_cqe);
	r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		     IORING_OFF_SQ_RING);
	r->cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		     IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(*r->sqes),
		       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		       IORING_OFF_SQES);
	ret = r->sq == MAP_FAILED || r->cq == MAP_FAILED ||
			      r->sqes == MAP_FAILED ?
		      -errno :
		      0;
	return ret;
}

static void ring_close(struct uring *r)
{
	if (r->fd < 0)
		return;
	if (r->sq && r->sq != MAP_FAILED)
		munmap(r->sq, r->sq_len);
	if (r->cq && r->cq != MAP_FAILED)
		munmap(r->cq, r->cq_len);
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->p.sq_entries * sizeof(*r->sqes));
	close(r->fd);
	r->fd = -1;
	r->sq = NULL;
	r->cq = NULL;
	r->sqes = NULL;
}

/*
 * Queues an SQE of @opcode and @user_data in @r, zeroed but for those, and
 * returns it for the caller to fill in: the kernel reads it only at the
 * next io_uring_enter().
 */
static struct io_uring_sqe *sqe_queue(struct uring *r, __u8 opcode,
				      __u64 user_data)
{
	__u32 mask = *RING_U32(r->sq, r->p.sq_off.ring_mask);
	__u32 tail = *RING_U32(r->sq, r->p.sq_off.tail);
	struct io_uring_sqe *sqe = &r->sqes[tail & mask];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->user_data = user_data;
	RING_U32(r->sq, r->p.sq_off.array)[tail & mask] = tail & mask;
	__atomic_store_n(RING_U32(r->sq, r->p.sq_off.tail), tail + 1,
			 __ATOMIC_RELEASE);
	return sqe;
}

/* Queues a NOP in the SQ ring, without submitting it. */
static void queue_nop(struct uring *r)
{
	sqe_queue(r, IORING_OP_NOP, NOP_COOKIE);
}

/* SQEs queued but not consumed by the kernel. */
static __u32 sq_pending(struct uring *r)
{
	return *RING_U32(r->sq, r->p.sq_off.tail) -
	       __atomic_load_n(RING_U32(r->sq, r->p.sq_off.head),
			       __ATOMIC_ACQUIRE);
}

/*
 * Takes the completions posted in @r: how many, the first @max of them
 * copied to @out.
 */
static int cq_take(struct uring *r, struct io_uring_cqe *out, int max)
{
	__u32 *head = RING_U32(r->cq, r->p.cq_off.head);
	__u32 tail = __atomic_load_n(RING_U32(r->cq, r->p.cq_off.tail),
				     __ATOMIC_ACQUIRE);
	__u32 mask = *RING_U32(r->cq, r->p.cq_off.ring_mask);
	struct io_uring_cqe *cqes = (void *)((char *)r->cq + r->p.cq_off.cqes);
	int nr = 0;

	for (; *head != tail; nr++) {
		if (nr < max)
			out[nr] = cqes[*head & mask];
		__atomic_store_n(head, *head + 1, __ATOMIC_RELEASE);
	}
	return nr;
}

/*
 * Takes the completions posted: how many, and whether each is the NOP's
 * with res 0 (else *@bad is set).
 */
static int reap(struct uring *r, bool *bad)
{
	struct io_uring_cqe cqes[MAX_CQES];
	int nr = cq_take(r, cqes, MAX_CQES), i;

	for (i = 0; i < nr; i++)
		if (i >= MAX_CQES || cqes[i].user_data != NOP_COOKIE ||
		    cqes[i].res)
			*bad = true;
	return nr;
}

static int setup_action(void *arg)
{
	struct io_ctx *c = arg;

	memset(&c->new_p, 0, sizeof(c->new_p));
	c->new_p.flags = c->new_flags;
	return uring_setup(c->new_entries, &c->new_p);
}

/*
 * In a child, where the engine does not count the fds: the lowest free
 * one, where the new ring's fd goes (io_uring_install_fd()).
 */
static int setup_child_prepare(void *arg)
{
	struct io_ctx *c = arg;

	c->free_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (c->free_fd < 0)
		return -errno;
	return close(c->free_fd) ? -errno : 0;
}

/*
 * A success is a ring whose SQ ring maps and says it has its entries, with
 * the flags asked (io_uring_create() copies them back) and a CQ ring of
 * twice as many. A failure installed no fd (in a child, its slot is still
 * free).
 */
static bool setup_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	__u32 entries;

	if (ret < 0 && c->free_fd >= 0 && fcntl(c->free_fd, F_GETFD) >= 0) {
		snprintf(why, size, "failed, and fd %d is open", c->free_fd);
		return false;
	}
	if (ret < 0)
		return true;
	c->new_sq_len = sq_ring_len(&c->new_p);
	c->new_sq = mmap(NULL, c->new_sq_len, PROT_READ, MAP_SHARED, ret,
			 IORING_OFF_SQ_RING);
	if (c->new_sq == MAP_FAILED) {
		c->new_sq = NULL;
		snprintf(why, size, "mapping the new ring (fd %d): %s", ret,
			 strerror(errno));
		return false;
	}
	entries = *RING_U32(c->new_sq, c->new_p.sq_off.ring_entries);
	if (entries != c->new_entries ||
	    c->new_p.cq_entries != 2 * c->new_entries ||
	    (c->new_p.flags & c->new_flags) != c->new_flags) {
		snprintf(why, size,
			 "%u entries, %u CQEs, flags %#x: asked %u, %#x",
			 entries, c->new_p.cq_entries, c->new_p.flags,
			 c->new_entries, c->new_flags);
		return false;
	}
	return true;
}

static void setup_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct io_ctx *c = arg;

	if (c->new_sq)
		EXPECT_EQ(0, munmap(c->new_sq, c->new_sq_len));
	c->new_sq = NULL;
	if (ret >= 0)
		EXPECT_EQ(0, close(ret));
}

/*
 * A new ring for each point, unarmed, so that the enter allocates its
 * first request (a ring recycles its requests), and a NOP queued in it.
 */
static void nop_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct io_ctx *c = arg;
	int err = ring_open(&c->r, RING_ENTRIES, 0);

	ASSERT_EQ(0, err)
	{
		TH_LOG("io_uring_setup (unarmed): %s", strerror(-err));
	}
	queue_nop(&c->r);
}

static int nop_action(void *arg)
{
	struct io_ctx *c = arg;

	return uring_enter(c->r.fd, 1, 1);
}

/*
 * A success consumed the NOP and posted its completion; a failure left
 * the NOP queued and posted nothing.
 */
static bool nop_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	__u32 pending = sq_pending(&c->r);
	bool bad = false;
	int nr = reap(&c->r, &bad);

	if (ret >= 0 && (ret != 1 || pending || nr != 1 || bad)) {
		snprintf(why, size,
			 "submitted %d: %u left queued, %d completions%s", ret,
			 pending, nr, bad ? ", not the NOP's" : "");
		return false;
	}
	if (ret < 0 && (pending != 1 || nr)) {
		snprintf(why, size,
			 "failed: %u queued (the NOP: 1), %d completions",
			 pending, nr);
		return false;
	}
	return true;
}

/*
 * Submits what a failure left queued (it must complete now), and closes
 * the point's ring.
 */
static void nop_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct io_ctx *c = arg;
	bool bad = false;

	if (sq_pending(&c->r)) {
		EXPECT_EQ(1, uring_enter(c->r.fd, 1, 1));
		EXPECT_EQ(1, reap(&c->r, &bad));
		EXPECT_FALSE(bad);
	}
	ring_close(&c->r);
}

/*
 * In a child of its own, on the ring the fixture set up (inherited): the
 * child has no io_uring context yet, so its first submission allocates
 * one, with its io-wq (tctx.c:113 __io_uring_add_tctx_node()), bounded by
 * the limits IORING_REGISTER_IOWQ_MAX_WORKERS set on the ring (tctx.c:118).
 */
static int fresh_task_prepare(void *arg)
{
	struct io_ctx *c = arg;

	queue_nop(&c->r);
	return 0;
}

/*
 * As nop_check; then a failure's NOP is taken back out of the queue (the
 * kernel never read it: its head did not move), for the next child. A
 * success also gives the io-wq limits the ring was registered with.
 */
static bool fresh_task_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	__u32 *tail = RING_U32(c->r.sq, c->r.p.sq_off.tail);
	__u32 limits[2] = { 0, 0 };
	bool ok = nop_check(arg, ret, why, size);
	int err;

	if (sq_pending(&c->r))
		__atomic_store_n(tail, *tail - 1, __ATOMIC_RELEASE);
	if (!ok || ret < 0)
		return ok;
	err = uring_register(c->r.fd, IORING_REGISTER_IOWQ_MAX_WORKERS, limits,
			     2);
	if (err || limits[0] != IOWQ_BOUND || limits[1] != IOWQ_BOUND) {
		snprintf(why, size, "io-wq limits %u and %u (set: %d): %s",
			 limits[0], limits[1], IOWQ_BOUND,
			 err ? strerror(-err) : "not the ones set");
		return false;
	}
	return true;
}

static int register_action(void *arg)
{
	struct io_ctx *c = arg;

	return uring_register(c->r.fd, IORING_REGISTER_BUFFERS, c->bufs,
			      NR_BUFS);
}

/*
 * Whether unregistering with @op (@arg, @nr) finds what a success of @ret
 * registered: it succeeds only where something is registered, else it
 * fails with @none.
 */
static bool unregister_finds(struct io_ctx *c, int ret, unsigned int op,
			     void *arg, unsigned int nr, int none, char *why,
			     size_t size)
{
	int err = uring_register(c->r.fd, op, arg, nr);

	if (ret >= 0 && err) {
		snprintf(why, size, "unregistering what was registered: %s",
			 strerror(-err));
		return false;
	}
	if (ret < 0 && err != -none) {
		snprintf(why, size, "unregistering after the failure: %s",
			 err ? strerror(-err) : "it was registered");
		return false;
	}
	return true;
}

/*
 * IORING_UNREGISTER_BUFFERS succeeds only where buffers are registered
 * (ENXIO otherwise): a success registered them, a failure did not.
 */
static bool register_check(void *arg, int ret, char *why, size_t size)
{
	return unregister_finds(arg, ret, IORING_UNREGISTER_BUFFERS, NULL, 0,
				ENXIO, why, size);
}

static void register_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	struct io_ctx *c = arg;

	/* The check unregistered them; under --mutate it may not have. */
	uring_register(c->r.fd, IORING_UNREGISTER_BUFFERS, NULL, 0);
}

/* Opens the point's ring, empties got and runs the case's prep. */
static int uring_open_case(struct io_ctx *c)
{
	const struct uring_case *uc = c->uc;
	int err = ring_open(&c->r,
			    uc->ring_entries ? uc->ring_entries : RING_ENTRIES,
			    uc->ring_flags);

	c->nr_cqes = 0;
	memset(c->got, 0, sizeof(c->got));
	if (!err && uc->prep)
		err = uc->prep(c);
	return err;
}

/* A ring of the case's own for each point, unarmed, with its SQEs. */
static void uring_prepare(struct __test_metadata *_metadata, void *arg)
{
	int err = uring_open_case(arg);

	ASSERT_EQ(0, err)
	{
		TH_LOG("preparing the point's ring (unarmed): %s",
		       strerror(-err));
	}
}

/* As uring_prepare, in a child (failnth_child.h). */
static int uring_child_prepare(void *arg)
{
	return uring_open_case(arg);
}

static int uring_action(void *arg)
{
	struct io_ctx *c = arg;
	const struct uring_case *uc = c->uc;

	if (uc->act)
		return uc->act(c);
	return uring_enter(c->r.fd, uc->nr_sqes, uc->nr_wait);
}

/*
 * A submission that failed consumed no SQE and posted nothing; one that
 * succeeded consumed the SQEs it counts and left the others queued: it
 * stops after an SQE that failed at submission, whose completion says why
 * (io_submit_sqes(), io_uring.c:2376, without IORING_SETUP_SUBMIT_ALL; a
 * link is assembled on, io_submit_fail_init()). Then the case judges the
 * completions taken and the state.
 */
static bool uring_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	const struct uring_case *uc = c->uc;
	__u32 pending;

	if (uc->act)
		return uc->judge(c, ret, why, size);
	pending = sq_pending(&c->r);
	c->nr_cqes = cq_take(&c->r, c->cqes, MAX_CQES);
	if (ret < 0 ? pending != uc->nr_sqes || c->nr_cqes :
		      ret > (int)uc->nr_sqes || pending != uc->nr_sqes - ret) {
		snprintf(why, size, "%s: %u of %u SQEs queued, %d completions",
			 ret < 0 ? "failed" : "submitted", pending, uc->nr_sqes,
			 c->nr_cqes);
		return false;
	}
	return uc->judge(c, ret, why, size);
}

static void uring_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct io_ctx *c = arg;

	if (c->uc->undo)
		c->uc->undo(c);
	ring_close(&c->r);
	ring_close(&c->peer);
}

/* The completion taken for @user_data, or NULL. */
static const struct io_uring_cqe *cqe_of(struct io_ctx *c, __u64 user_data)
{
	int i;

	for (i = 0; i < c->nr_cqes && i < MAX_CQES; i++)
		if (c->cqes[i].user_data == user_data)
			return &c->cqes[i];
	return NULL;
}

/*
 * Whether request @ud completed as it may: with res @want (then *@done is
 * set) or one of @errs. If not, says what it found in @why.
 */
static bool req_done(struct io_ctx *c, __u64 ud, int want, const int *errs,
		     bool *done, char *why, size_t size)
{
	const struct io_uring_cqe *cqe = cqe_of(c, ud);

	*done = cqe && cqe->res == want;
	if (*done || (cqe && cqe->res < 0 && failnth_in(errs, -cqe->res)))
		return true;
	snprintf(why, size, "request %llu: %s %d (done: %d)",
		 (unsigned long long)ud, cqe ? "res" : "no completion",
		 cqe ? cqe->res : 0, want);
	return false;
}

/*
 * Whether got holds the file's first @len bytes, and nothing after them
 * (@done), or is as the prep left it: zeros.
 */
static bool read_effect(struct io_ctx *c, size_t len, bool done, char *why,
			size_t size)
{
	static const char zeros[READ_LEN];
	size_t n = done ? len : 0;

	if (!memcmp(c->got, c->data, n) &&
	    !memcmp(c->got + n, zeros, READ_LEN - n))
		return true;
	snprintf(why, size, "the buffer does not hold %zu bytes of the file",
		 n);
	return false;
}

/*
 * Whether the memfd holds its bytes and then data again (@done: written
 * after them), or only its own bytes.
 */
static bool write_effect(struct io_ctx *c, bool done, char *why, size_t size)
{
	static char back[READ_LEN];
	off_t want = done ? 2 * READ_LEN : READ_LEN;
	struct stat st;

	if (fstat(c->memfd, &st) || st.st_size != want ||
	    (done && (pread(c->memfd, back, READ_LEN, READ_LEN) != READ_LEN ||
		      memcmp(back, c->data, READ_LEN)))) {
		snprintf(why, size, "the file has %lld bytes, %lld %s",
			 (long long)st.st_size, (long long)want,
			 done ? "with the bytes written" : "as before");
		return false;
	}
	return true;
}

/* The memfd back to its own bytes. */
static int memfd_reset(struct io_ctx *c)
{
	return ftruncate(c->memfd, READ_LEN) ? -errno : 0;
}

/*
 * The case's read (or readv) of the memfd's bytes into got, or write of
 * data after them, with its SQE flags.
 */
static int rw_prep(struct io_ctx *c)
{
	const struct uring_case *uc = c->uc;
	struct io_uring_sqe *sqe = sqe_queue(&c->r, uc->opcode, UD_FIRST);
	int i;

	sqe->fd = c->memfd;
	sqe->flags = uc->sqe_flags;
	sqe->addr = (uintptr_t)c->got;
	sqe->len = READ_LEN;
	if (uc->opcode == IORING_OP_WRITE) {
		sqe->addr = (uintptr_t)c->data;
		sqe->off = READ_LEN;
	}
	if (uc->opcode == IORING_OP_READV) {
		for (i = 0; i < NR_IOVS; i++) {
			c->iovs[i].iov_base = c->got + i * (READ_LEN / NR_IOVS);
			c->iovs[i].iov_len = READ_LEN / NR_IOVS;
		}
		sqe->addr = (uintptr_t)c->iovs;
		sqe->len = NR_IOVS;
	}
	return memfd_reset(c);
}

/* The request read or wrote it all, or failed and did nothing. */
static bool rw_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	bool done = false;

	if (ret >= 0 &&
	    !req_done(c, UD_FIRST, READ_LEN, req_errnos, &done, why, size))
		return false;
	if (c->uc->opcode == IORING_OP_WRITE)
		return write_effect(c, done, why, size);
	return read_effect(c, READ_LEN, done, why, size);
}

static void rw_undo(struct io_ctx *c)
{
	memfd_reset(c);
}

/* A read of the memfd linked to a write of what it read, after it. */
static int link_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe = sqe_queue(&c->r, IORING_OP_READ, UD_FIRST);

	sqe->fd = c->memfd;
	sqe->flags = IOSQE_IO_LINK;
	sqe->addr = (uintptr_t)c->got;
	sqe->len = READ_LEN;
	sqe = sqe_queue(&c->r, IORING_OP_WRITE, UD_SECOND);
	sqe->fd = c->memfd;
	sqe->addr = (uintptr_t)c->got;
	sqe->len = READ_LEN;
	sqe->off = READ_LEN;
	return memfd_reset(c);
}

/*
 * Each request did all or nothing, and the write ran only after the read
 * did: the rest of a link whose head failed is cancelled (ECANCELED,
 * io_uring.c:2196), and a link whose member failed at submission has its
 * head cancelled too (io_submit_fail_init(), io_uring.c:2196).
 */
static bool link_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	bool rd = false, wr = false;

	if (ret >= 0 &&
	    (!req_done(c, UD_FIRST, READ_LEN, req_errnos, &rd, why, size) ||
	     !req_done(c, UD_SECOND, READ_LEN, req_errnos, &wr, why, size)))
		return false;
	if (wr && !rd) {
		snprintf(why, size, "the write ran, the read it follows not");
		return false;
	}
	return read_effect(c, READ_LEN, rd, why, size) &&
	       write_effect(c, wr, why, size);
}

/* IORING_OP_OPENAT of the memfd, by its /proc/self/fd link. */
static int openat_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe = sqe_queue(&c->r, IORING_OP_OPENAT, UD_FIRST);

	snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", c->memfd);
	sqe->fd = AT_FDCWD;
	sqe->addr = (uintptr_t)c->path;
	sqe->open_flags = O_RDONLY | O_CLOEXEC;
	c->xfd = -1;
	return 0;
}

/*
 * The open gave an fd of the memfd's inode (closed by the undo), or
 * failed with no fd (the engine counts them).
 */
static bool openat_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	const struct io_uring_cqe *cqe = cqe_of(c, UD_FIRST);
	struct stat a, b;

	if (ret < 0)
		return true;
	if (cqe && cqe->res >= 0) {
		c->xfd = cqe->res;
		if (!fstat(c->xfd, &a) && !fstat(c->memfd, &b) &&
		    a.st_ino == b.st_ino)
			return true;
	}
	if (cqe && cqe->res < 0 && failnth_in(req_errnos, -cqe->res))
		return true;
	snprintf(why, size, "the open: %s %d, not the memfd's inode",
		 cqe ? "res" : "no completion", cqe ? cqe->res : 0);
	return false;
}

static void openat_undo(struct io_ctx *c)
{
	if (c->xfd >= 0)
		close(c->xfd);
	c->xfd = -1;
}

/* A timeout of 1 ms, counting no completion. */
static int timeout_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe =
		sqe_queue(&c->r, IORING_OP_TIMEOUT, UD_FIRST);

	c->ts.tv_sec = 0;
	c->ts.tv_nsec = 1000000;
	sqe->addr = (uintptr_t)&c->ts;
	sqe->len = 1;
	return 0;
}

/* The timeout expired (ETIME, timeout.c), or failed to be set up. */
static bool timeout_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	bool done;

	return ret < 0 ||
	       req_done(c, UD_FIRST, -ETIME, req_errnos, &done, why, size);
}

/*
 * A pipe, and its read end opened again read-write through /proc: its
 * poll waits on both of the pipe's queues (pipe_poll(), fs/pipe.c), which
 * takes io_uring a second poll entry (poll.c:547). @ready: with a byte in
 * it.
 */
static int pipe_rdwr(struct io_ctx *c, bool ready)
{
	if (pipe2(c->pair, O_CLOEXEC))
		return -errno;
	snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", c->pair[0]);
	c->xfd = open(c->path, O_RDWR | O_CLOEXEC);
	if (c->xfd < 0)
		return -errno;
	if (ready && write(c->pair[1], "x", 1) != 1)
		return -errno;
	return 0;
}

static void pair_undo(struct io_ctx *c)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (c->pair[i] >= 0)
			close(c->pair[i]);
		c->pair[i] = -1;
	}
	openat_undo(c);
}

/* IORING_OP_POLL_ADD for POLLIN of the read-write pipe, with a byte. */
static int poll_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe =
		sqe_queue(&c->r, IORING_OP_POLL_ADD, UD_FIRST);

	sqe->fd = -1;
	sqe->poll32_events = POLLIN;
	c->pair[0] = -1;
	c->pair[1] = -1;
	if (pipe_rdwr(c, true))
		return -errno;
	sqe->fd = c->xfd;
	return 0;
}

/* The poll found the byte, or could not arm (ENOMEM, poll.c:549). */
static bool poll_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	bool done;

	return ret < 0 ||
	       req_done(c, UD_FIRST, POLLIN, req_errnos, &done, why, size);
}

/*
 * A poll of the empty read-write pipe, which waits, and an
 * IORING_OP_ASYNC_CANCEL of it.
 */
static int cancel_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe =
		sqe_queue(&c->r, IORING_OP_POLL_ADD, UD_FIRST);

	sqe->poll32_events = POLLIN;
	c->pair[0] = -1;
	c->pair[1] = -1;
	if (pipe_rdwr(c, false))
		return -errno;
	sqe->fd = c->xfd;
	sqe = sqe_queue(&c->r, IORING_OP_ASYNC_CANCEL, UD_SECOND);
	sqe->addr = UD_FIRST;
	return 0;
}

/*
 * The cancel found the poll armed (0) and the poll ended ECANCELED
 * (poll.c:1142), or the poll could not arm (ENOMEM, poll.c:549) and the
 * cancel found nothing (ENOENT, cancel.c).
 */
static bool cancel_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	const struct io_uring_cqe *p = cqe_of(c, UD_FIRST);
	const struct io_uring_cqe *k = cqe_of(c, UD_SECOND);

	if (ret < 0 || (p && k &&
			((p->res == -ECANCELED && !k->res) ||
			 (p->res == -ENOMEM && k->res == -ENOENT))))
		return true;
	snprintf(why, size, "the poll: res %d, the cancel: res %d",
		 p ? p->res : 0, k ? k->res : 0);
	return false;
}

/*
 * IORING_OP_PROVIDE_BUFFERS of a group of buffers in got, linked to a
 * read of the memfd into one of them (IOSQE_BUFFER_SELECT).
 */
static int provide_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe =
		sqe_queue(&c->r, IORING_OP_PROVIDE_BUFFERS, UD_FIRST);

	sqe->fd = NR_PBUFS;
	sqe->addr = (uintptr_t)c->got;
	sqe->len = PBUF_LEN;
	sqe->buf_group = PBUF_GROUP;
	sqe->flags = IOSQE_IO_LINK;
	sqe = sqe_queue(&c->r, IORING_OP_READ, UD_SECOND);
	sqe->fd = c->memfd;
	sqe->flags = IOSQE_BUFFER_SELECT;
	sqe->buf_group = PBUF_GROUP;
	sqe->len = PBUF_LEN;
	return 0;
}

/*
 * The buffers of the group: IORING_OP_REMOVE_BUFFERS says how many it
 * removed, or ENOENT for no group (kbuf.c:513). -errno of the probe
 * itself.
 */
static int pbufs_left(struct io_ctx *c)
{
	struct io_uring_sqe *sqe =
		sqe_queue(&c->r, IORING_OP_REMOVE_BUFFERS, UD_PROBE);
	struct io_uring_cqe cqe;
	int ret;

	sqe->fd = 2 * NR_PBUFS;
	sqe->buf_group = PBUF_GROUP;
	ret = uring_enter(c->r.fd, 1, 1);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	if (cq_take(&c->r, &cqe, 1) != 1 || cqe.user_data != UD_PROBE)
		return -EIO;
	return cqe.res;
}

/*
 * The buffers were all given (res 0) and the read took the first (its
 * completion names it: IORING_CQE_F_BUFFER), with the file's bytes, the
 * others left in the group; or the provide failed (ENOMEM, kbuf.c:588,
 * 602) with no buffer left and the read cancelled, or the read failed and
 * left them all.
 */
static bool provide_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	const struct io_uring_cqe *cqe = cqe_of(c, UD_SECOND);
	bool given = false, rd = false;
	int left, want;

	if (ret >= 0 &&
	    (!req_done(c, UD_FIRST, 0, req_errnos, &given, why, size) ||
	     !req_done(c, UD_SECOND, PBUF_LEN, req_errnos, &rd, why, size)))
		return false;
	if (rd && (!given || !(cqe->flags & IORING_CQE_F_BUFFER) ||
		   cqe->flags >> IORING_CQE_BUFFER_SHIFT)) {
		snprintf(why, size, "the read: flags %#x, buffers given: %d",
			 cqe->flags, given);
		return false;
	}
	if (!read_effect(c, PBUF_LEN, rd, why, size))
		return false;
	left = pbufs_left(c);
	want = given ? NR_PBUFS - rd : -ENOENT;
	if (left == want || (!given && !left))
		return true;
	snprintf(why, size, "%d buffers left in the group (%d given, %d read)",
		 left, given ? NR_PBUFS : 0, rd);
	return false;
}

/* An IORING_OP_SEND over a socketpair linked to the IORING_OP_RECV. */
static int sendrecv_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->pair))
		return -errno;
	c->xfd = -1;
	sqe = sqe_queue(&c->r, IORING_OP_SEND, UD_FIRST);
	sqe->fd = c->pair[0];
	sqe->flags = IOSQE_IO_LINK;
	sqe->addr = (uintptr_t)c->data;
	sqe->len = MSG_LEN;
	sqe = sqe_queue(&c->r, IORING_OP_RECV, UD_SECOND);
	sqe->fd = c->pair[1];
	sqe->addr = (uintptr_t)c->got;
	sqe->len = MSG_LEN;
	return 0;
}

/*
 * Whether what waits in the socket is the message if it was @sent and not
 * @rcvd, else nothing.
 */
static bool socket_rest_is(struct io_ctx *c, bool sent, bool rcvd, char *why,
			   size_t size)
{
	static char rest[MSG_LEN];
	ssize_t left = recv(c->pair[1], rest, sizeof(rest), MSG_DONTWAIT);

	if (left < 0 && errno == EAGAIN)
		left = 0;
	if (left == (sent && !rcvd ? MSG_LEN : 0))
		return true;
	snprintf(why, size, "%zd bytes left in the socket (sent %d, got %d)",
		 left, sent, rcvd);
	return false;
}

/*
 * The send sent it all or nothing, the receive got what was sent, or the
 * bytes sent wait in the socket.
 */
static bool sendrecv_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	bool sent = false, rcvd = false;

	if (ret >= 0 &&
	    (!req_done(c, UD_FIRST, MSG_LEN, send_errnos, &sent, why, size) ||
	     !req_done(c, UD_SECOND, MSG_LEN, req_errnos, &rcvd, why, size)))
		return false;
	if (!read_effect(c, MSG_LEN, rcvd, why, size) ||
	    !socket_rest_is(c, sent, rcvd, why, size))
		return false;
	if (!rcvd || sent)
		return true;
	snprintf(why, size, "the receive got bytes the send did not send");
	return false;
}

/*
 * IORING_OP_MSG_RING to a ring whose completions its own task posts
 * (DEFER_TASKRUN): the message is a request allocated for it
 * (io_msg_data_remote(), msg_ring.c:107).
 */
static int msg_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe;
	int err = ring_open(&c->peer, RING_ENTRIES,
			    IORING_SETUP_SINGLE_ISSUER |
				    IORING_SETUP_DEFER_TASKRUN);

	if (err)
		return err;
	sqe = sqe_queue(&c->r, IORING_OP_MSG_RING, UD_FIRST);
	sqe->fd = c->peer.fd;
	sqe->len = MSG_RING_RES;
	sqe->off = MSG_RING_DATA;
	return 0;
}

/*
 * The other ring has the message's completion once its task work ran,
 * and only where the sender's completion says it was sent.
 */
static bool msg_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	struct io_uring_cqe got[2];
	bool sent = false;
	int err, nr;

	if (ret >= 0 && !req_done(c, UD_FIRST, 0, req_errnos, &sent, why, size))
		return false;
	err = uring_run_work(c->peer.fd);
	nr = cq_take(&c->peer, got, 2);
	if (!err && nr == sent &&
	    (!nr ||
	     (got[0].user_data == MSG_RING_DATA && got[0].res == MSG_RING_RES)))
		return true;
	snprintf(why, size, "%d completions in the other ring (sent: %d)%s%s",
		 nr, sent, err ? ", running its work: " : "",
		 err ? strerror(-err) : "");
	return false;
}

/* IORING_REGISTER_FILES of the memfd twice and two empty slots. */
static int files_act(struct io_ctx *c)
{
	return uring_register(c->r.fd, IORING_REGISTER_FILES, c->reg_fds,
			      NR_FILES);
}

static bool files_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	return unregister_finds(c, ret, IORING_UNREGISTER_FILES, NULL, 0, ENXIO,
				why, size);
}

/*
 * Four fixed-file slots, two of /dev/null, which the update replaces by
 * the memfd: each replacement takes a resource node (io_queue_rsrc_removal(),
 * rsrc.c:645).
 */
static int files_update_prep(struct io_ctx *c)
{
	int i, ret;

	c->pair[0] = -1;
	c->pair[1] = -1;
	c->xfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (c->xfd < 0)
		return -errno;
	for (i = 0; i < NR_FILES; i++)
		c->reg_fds[i] = i < NR_UPDATE ? c->xfd : -1;
	ret = uring_register(c->r.fd, IORING_REGISTER_FILES, c->reg_fds,
			     NR_FILES);
	for (i = 0; i < NR_UPDATE; i++)
		c->reg_fds[i] = c->memfd;
	return ret;
}

static int files_update_act(struct io_ctx *c)
{
	struct io_uring_files_update up = {
		.fds = (uintptr_t)c->reg_fds,
	};

	return uring_register(c->r.fd, IORING_REGISTER_FILES_UPDATE, &up,
			      NR_UPDATE);
}

/*
 * A read of fixed file @slot: the file's size when it holds the memfd, 0
 * for /dev/null; -errno of the probe.
 */
static int fixed_read(struct io_ctx *c, int slot)
{
	struct io_uring_sqe *sqe = sqe_queue(&c->r, IORING_OP_READ, UD_PROBE);
	struct io_uring_cqe cqe;
	int ret;

	sqe->fd = slot;
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->addr = (uintptr_t)c->got;
	sqe->len = READ_LEN;
	ret = uring_enter(c->r.fd, 1, 1);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	if (cq_take(&c->r, &cqe, 1) != 1 || cqe.user_data != UD_PROBE)
		return -EIO;
	return cqe.res;
}

/*
 * The update returns how many slots it filled, the first ones, all of
 * them unless an allocation failed after some (a short count,
 * __io_sqe_files_update(), "return done ? done : err", rsrc.c).
 */
static bool files_update_judge(struct io_ctx *c, int ret, char *why,
			       size_t size)
{
	int i, res;

	for (i = 0; i < NR_UPDATE; i++) {
		res = fixed_read(c, i);
		if (res != (i < ret ? READ_LEN : 0)) {
			snprintf(why, size, "updated %d: slot %d reads %d", ret,
				 i, res);
			return false;
		}
	}
	return true;
}

/*
 * IORING_REGISTER_PBUF_RING of a ring in one of the buffers: pinned and
 * mapped (io_pin_pbuf_ring(), kbuf.c).
 */
static int pbuf_ring_act(struct io_ctx *c)
{
	struct io_uring_buf_reg reg = {
		.ring_addr = (uintptr_t)c->bufs[0].iov_base,
		.ring_entries = RING_ENTRIES,
		.bgid = PBUF_GROUP,
	};

	return uring_register(c->r.fd, IORING_REGISTER_PBUF_RING, &reg, 1);
}

/* Unregistering finds the group's ring, or ENOENT (kbuf.c:781). */
static bool pbuf_ring_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	struct io_uring_buf_reg reg = { .bgid = PBUF_GROUP };

	return unregister_finds(c, ret, IORING_UNREGISTER_PBUF_RING, &reg, 1,
				ENOENT, why, size);
}

/* A second ring, with the buffers registered, to clone them from. */
static int clone_prep(struct io_ctx *c)
{
	int err = ring_open(&c->peer, RING_ENTRIES, 0);

	return err ? err :
		     uring_register(c->peer.fd, IORING_REGISTER_BUFFERS,
				    c->bufs, NR_BUFS);
}

/* Clones them: a table of the same buffers (io_clone_buffers(), rsrc.c). */
static int clone_act(struct io_ctx *c)
{
	struct clone_buffers arg = { .src_fd = c->peer.fd };

	return uring_register(c->r.fd, REGISTER_CLONE_BUFFERS, &arg, 1);
}

/*
 * The ring has the buffers, which unregister, or none: ENXIO. Its
 * allocations fail as ENOMEM (rsrc.c:307, 311, "ret = -ENOMEM" before
 * the kcalloc() of the table).
 */
static bool clone_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	return register_check(c, ret, why, size);
}

static int eventfd_prep(struct io_ctx *c)
{
	c->pair[0] = -1;
	c->pair[1] = -1;
	c->xfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return c->xfd < 0 ? -errno : 0;
}

static int eventfd_act(struct io_ctx *c)
{
	return uring_register(c->r.fd, IORING_REGISTER_EVENTFD, &c->xfd, 1);
}

/* Unregistering finds the eventfd, or ENXIO (eventfd.c). */
static bool eventfd_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	return unregister_finds(c, ret, IORING_UNREGISTER_EVENTFD, NULL, 0,
				ENXIO, why, size);
}

static int personality_act(struct io_ctx *c)
{
	return uring_register(c->r.fd, IORING_REGISTER_PERSONALITY, NULL, 0);
}

/*
 * The id returned unregisters; after a failure, the ring's first id (1:
 * its ids are XA_FLAGS_ALLOC1, io_uring.c:322) has nothing: EINVAL
 * (io_unregister_personality(), register.c:84).
 */
static bool personality_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	return unregister_finds(c, ret, IORING_UNREGISTER_PERSONALITY, NULL,
				ret < 0 ? 1 : ret, EINVAL, why, size);
}

/*
 * IORING_OP_FGETXATTR of the memfd's xattr into got, or IORING_OP_FSETXATTR
 * of a new one: each takes the name (xattr.c:64, 165).
 */
static int xattr_prep(struct io_ctx *c)
{
	bool set = c->uc->opcode == IORING_OP_FSETXATTR;
	struct io_uring_sqe *sqe = sqe_queue(&c->r, c->uc->opcode, UD_FIRST);

	sqe->fd = c->memfd;
	sqe->addr = (uintptr_t)(set ? XATTR_NEW : XATTR_NAME);
	sqe->addr2 = (uintptr_t)(set ? c->data : c->got);
	sqe->len = XATTR_LEN;
	return 0;
}

/*
 * The get read the value, the set made the new xattr with its value; or
 * they failed (ENOMEM) and did neither: the new xattr is missing
 * (ENODATA).
 */
static bool xattr_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	bool set = c->uc->opcode == IORING_OP_FSETXATTR, done = false;
	ssize_t len;

	if (ret >= 0 && !req_done(c, UD_FIRST, set ? 0 : XATTR_LEN, req_errnos,
				  &done, why, size))
		return false;
	if (!set)
		return read_effect(c, XATTR_LEN, done, why, size);
	len = fgetxattr(c->memfd, XATTR_NEW, c->got, XATTR_LEN);
	if (done ? len == XATTR_LEN && !memcmp(c->got, c->data, XATTR_LEN) :
		   len < 0 && errno == ENODATA)
		return true;
	snprintf(why, size, "the new xattr: %zd bytes%s (set: %d)", len,
		 len < 0 ? ", missing" : "", done);
	return false;
}

static void xattr_undo(struct io_ctx *c)
{
	fremovexattr(c->memfd, XATTR_NEW);
}

/*
 * An IORING_OP_RECV on an empty socketpair: it cannot complete at once,
 * so it waits for the bytes in a poll of its own (io_req_alloc_apoll(),
 * poll.c:743), or, without one, in io-wq.
 */
static int recv_poll_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe;

	c->sent = false;
	c->xfd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c->pair))
		return -errno;
	sqe = sqe_queue(&c->r, IORING_OP_RECV, UD_FIRST);
	sqe->fd = c->pair[1];
	sqe->addr = (uintptr_t)c->got;
	sqe->len = MSG_LEN;
	return 0;
}

/*
 * Once the bytes are sent (the check sends them if the receive waits),
 * the receive got them all, or failed (its errno) and they wait in the
 * socket.
 */
static bool recv_poll_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	bool rcvd = false;

	if (ret >= 0 && !c->nr_cqes) {
		c->sent = send(c->pair[0], c->data, MSG_LEN, 0) == MSG_LEN;
		if (!c->sent || uring_enter(c->r.fd, 0, 1) < 0) {
			snprintf(why, size, "sending the bytes it waits for");
			return false;
		}
		c->nr_cqes = cq_take(&c->r, c->cqes, MAX_CQES);
	}
	if (ret >= 0 &&
	    !req_done(c, UD_FIRST, MSG_LEN, req_errnos, &rcvd, why, size))
		return false;
	return read_effect(c, MSG_LEN, rcvd, why, size) &&
	       socket_rest_is(c, c->sent, rcvd, why, size);
}

/*
 * A CQ ring filled by completions already: the action's NOPs complete
 * into the overflow list (io_cqring_event_overflow(), io_uring.c:741).
 */
static int overflow_prep(struct io_ctx *c)
{
	int i, ret;

	for (i = 0; i < OVF_CQES / OVF_ENTRIES; i++) {
		queue_nop(&c->r);
		queue_nop(&c->r);
		ret = uring_enter(c->r.fd, OVF_ENTRIES, 0);
		if (ret != OVF_ENTRIES)
			return ret < 0 ? ret : -EIO;
	}
	queue_nop(&c->r);
	queue_nop(&c->r);
	return 0;
}

static int overflow_act(struct io_ctx *c)
{
	return uring_enter(c->r.fd, OVF_ENTRIES, 0);
}

/*
 * Every completion reaches the CQ ring, once the overflow is flushed,
 * but one that could not be kept (the entry's allocation failed) is
 * dropped: counted in the ring's cq_overflow, and said by EBADR from the
 * next wait that finds no completion ready (io_cqring_wait(),
 * io_uring.c:2703; io_uring_enter(2), "EBADR"). A failed
 * submission left its NOPs queued and completed nothing.
 */
static bool overflow_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	__u32 pending = sq_pending(&c->r), dropped;
	int want = ret < 0 ? OVF_CQES : OVF_CQES + OVF_ENTRIES;
	bool bad = false;
	int nr, err;

	nr = reap(&c->r, &bad);
	err = uring_run_work(c->r.fd);
	nr += reap(&c->r, &bad);
	/* The ring is the point's own: its count started at 0. */
	dropped = *RING_U32(c->r.cq, c->r.p.cq_off.overflow);
	/* A wait with none ready: it checks for drops before it sleeps. */
	if (dropped && !err)
		err = uring_enter(c->r.fd, 0, 1);
	if (!bad && nr + (int)dropped == want &&
	    err == (dropped ? -EBADR : 0) &&
	    pending == (ret < 0 ? OVF_ENTRIES : 0))
		return true;
	snprintf(why, size,
		 "%d completions, %u dropped, of %d; the wait: %d, %u queued%s",
		 nr, dropped, want, err, pending, bad ? ", not the NOPs'" : "");
	return false;
}

/* IORING_REGISTER_PROBE into a zeroed buffer (the kernel wants it so). */
static int probe_prep(struct io_ctx *c)
{
	memset(c->probe, 0, sizeof(c->probe));
	return 0;
}

static int probe_act(struct io_ctx *c)
{
	return uring_register(c->r.fd, IORING_REGISTER_PROBE, c->probe,
			      PROBE_OPS);
}

/*
 * A success described the ops (IORING_OP_READ among the supported); a
 * failure (ENOMEM, register.c:48) left the buffer as it was.
 */
static bool probe_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	struct io_uring_probe *p = (void *)c->probe;
	size_t i;

	/* ops_len: the ops asked for, at most the kernel's (register.c:42). */
	if (ret >= 0 && p->last_op >= IORING_OP_READ &&
	    p->ops_len ==
		    (p->last_op < PROBE_OPS ? p->last_op + 1 : PROBE_OPS) &&
	    (p->ops[IORING_OP_READ].flags & IO_URING_OP_SUPPORTED))
		return true;
	for (i = 0; ret < 0 && i < PROBE_WORDS && !c->probe[i]; i++)
		;
	if (ret < 0 && i == PROBE_WORDS)
		return true;
	snprintf(why, size, "the probe: %u ops, last %u", p->ops_len,
		 p->last_op);
	return false;
}

static int files_prep(struct io_ctx *c)
{
	int i;

	for (i = 0; i < NR_FILES; i++)
		c->reg_fds[i] = i < NR_UPDATE ? c->memfd : -1;
	return 0;
}

/*
 * A wait on the futex (IORING_OP_FUTEX_WAIT, or FUTEX_WAITV of a vector
 * of it), which holds the value it waits for, and a FUTEX_WAKE of one
 * waiter after it: the wait queues, the wake finds it.
 */
static int futex_prep(struct io_ctx *c)
{
	struct io_uring_sqe *sqe = sqe_queue(&c->r, c->uc->opcode, UD_FIRST);

	c->futex = FUTEX_WORD;
	sqe->addr = (uintptr_t)&c->futex;
	if (c->uc->opcode == OP_FUTEX_WAITV) {
		c->waitv.val = FUTEX_WORD;
		c->waitv.uaddr = (uintptr_t)&c->futex;
		c->waitv.flags = FUTEX2_U32_PRIVATE;
		sqe->addr = (uintptr_t)&c->waitv;
		sqe->len = 1;
	} else {
		sqe->fd = FUTEX2_U32_PRIVATE;
		sqe->off = FUTEX_WORD;
		sqe->addr3 = FUTEX_BITSET_MATCH_ANY;
	}
	sqe = sqe_queue(&c->r, OP_FUTEX_WAKE, UD_SECOND);
	sqe->fd = FUTEX2_U32_PRIVATE;
	sqe->addr = (uintptr_t)&c->futex;
	sqe->off = 1;
	sqe->addr3 = FUTEX_BITSET_MATCH_ANY;
	return 0;
}

/*
 * The wait was woken (res 0: FUTEX_WAIT's, or the index of the futex
 * woken of FUTEX_WAITV's vector) by the wake, which woke one; or the wait
 * could not get its data (ENOMEM: io_futex_wait()'s futex data,
 * futex.c:338) and the wake woke none; or its vector (io_futexv_prep(),
 * futex.c:225), which stopped the submission before the wake.
 */
static bool futex_judge(struct io_ctx *c, int ret, char *why, size_t size)
{
	const struct io_uring_cqe *wake = cqe_of(c, UD_SECOND);
	bool waited = false;

	if (ret < 0)
		return true;
	if (!req_done(c, UD_FIRST, 0, req_errnos, &waited, why, size))
		return false;
	if ((wake && wake->res == waited) || (ret == 1 && !wake && !waited))
		return true;
	snprintf(why, size, "the wake: %s %d (waited: %d)",
		 wake ? "res" : "no completion", wake ? wake->res : 0, waited);
	return false;
}

static const struct uring_case read_case = {
	.opcode = IORING_OP_READ,
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = rw_prep,
	.judge = rw_judge,
	.undo = rw_undo,
};

/* Punted to io-wq (IOSQE_ASYNC): the work, and a worker if none is idle. */
static const struct uring_case read_async_case = {
	.opcode = IORING_OP_READ,
	.sqe_flags = IOSQE_ASYNC,
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = rw_prep,
	.judge = rw_judge,
	.undo = rw_undo,
};

static const struct uring_case readv_case = {
	.opcode = IORING_OP_READV,
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = rw_prep,
	.judge = rw_judge,
	.undo = rw_undo,
};

static const struct uring_case write_case = {
	.opcode = IORING_OP_WRITE,
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = rw_prep,
	.judge = rw_judge,
	.undo = rw_undo,
};

static const struct uring_case write_async_case = {
	.opcode = IORING_OP_WRITE,
	.sqe_flags = IOSQE_ASYNC,
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = rw_prep,
	.judge = rw_judge,
	.undo = rw_undo,
};

static const struct uring_case link_case = {
	.nr_sqes = 2,
	.nr_wait = 2,
	.prep = link_prep,
	.judge = link_judge,
	.undo = rw_undo,
};

static const struct uring_case openat_case = {
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = openat_prep,
	.judge = openat_judge,
	.undo = openat_undo,
};

static const struct uring_case timeout_case = {
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = timeout_prep,
	.judge = timeout_judge,
};

static const struct uring_case poll_case = {
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = poll_prep,
	.judge = poll_judge,
	.undo = pair_undo,
};

static const struct uring_case cancel_case = {
	.nr_sqes = 2,
	.nr_wait = 2,
	.prep = cancel_prep,
	.judge = cancel_judge,
	.undo = pair_undo,
};

static const struct uring_case provide_case = {
	.nr_sqes = 2,
	.nr_wait = 2,
	.prep = provide_prep,
	.judge = provide_judge,
};

static const struct uring_case sendrecv_case = {
	.nr_sqes = 2,
	.nr_wait = 2,
	.prep = sendrecv_prep,
	.judge = sendrecv_judge,
	.undo = pair_undo,
};

static const struct uring_case msg_case = {
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = msg_prep,
	.judge = msg_judge,
};

static const struct uring_case files_case = {
	.prep = files_prep,
	.act = files_act,
	.judge = files_judge,
};

static const struct uring_case files_update_case = {
	.prep = files_update_prep,
	.act = files_update_act,
	.judge = files_update_judge,
	.undo = pair_undo,
};

static const struct uring_case recv_poll_case = {
	.nr_sqes = 1,
	.prep = recv_poll_prep,
	.judge = recv_poll_judge,
	.undo = pair_undo,
};

static const struct uring_case overflow_case = {
	.ring_entries = OVF_ENTRIES,
	.prep = overflow_prep,
	.act = overflow_act,
	.judge = overflow_judge,
};

static const struct uring_case probe_case = {
	.prep = probe_prep,
	.act = probe_act,
	.judge = probe_judge,
};

static const struct uring_case futex_case = {
	.opcode = OP_FUTEX_WAIT,
	.nr_sqes = 2,
	.nr_wait = 2,
	.prep = futex_prep,
	.judge = futex_judge,
};

static const struct uring_case futexv_case = {
	.opcode = OP_FUTEX_WAITV,
	.nr_sqes = 2,
	.nr_wait = 2,
	.prep = futex_prep,
	.judge = futex_judge,
};

static const struct uring_case getxattr_case = {
	.opcode = IORING_OP_FGETXATTR,
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = xattr_prep,
	.judge = xattr_judge,
};

static const struct uring_case setxattr_case = {
	.opcode = IORING_OP_FSETXATTR,
	.nr_sqes = 1,
	.nr_wait = 1,
	.prep = xattr_prep,
	.judge = xattr_judge,
	.undo = xattr_undo,
};

static const struct uring_case clone_case = {
	.prep = clone_prep,
	.act = clone_act,
	.judge = clone_judge,
};

static const struct uring_case pbuf_ring_case = {
	.act = pbuf_ring_act,
	.judge = pbuf_ring_judge,
};

static const struct uring_case eventfd_case = {
	.prep = eventfd_prep,
	.act = eventfd_act,
	.judge = eventfd_judge,
	.undo = pair_undo,
};

static const struct uring_case personality_case = {
	.act = personality_act,
	.judge = personality_judge,
};

static int aio_setup_action(void *arg)
{
	struct io_ctx *c = arg;

	c->new_aio = 0;
	if (syscall(__NR_io_setup, RING_ENTRIES, &c->new_aio))
		return -errno;
	return 0;
}

/*
 * A success gives a context io_destroy() takes; a failure gives none (the
 * engine checks that no ring was mapped).
 */
static bool aio_setup_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;

	if (ret < 0) {
		if (!c->new_aio)
			return true;
		snprintf(why, size, "a failed io_setup() gave a context");
		return false;
	}
	if (!c->new_aio || syscall(__NR_io_destroy, c->new_aio)) {
		snprintf(why, size, "io_destroy of the new context: %s",
			 c->new_aio ? strerror(errno) : "none was given");
		return false;
	}
	c->new_aio = 0;
	return true;
}

static void aio_setup_cleanup(struct __test_metadata *_metadata, void *arg,
			      int ret)
{
	struct io_ctx *c = arg;

	if (c->new_aio)
		EXPECT_EQ(0, syscall(__NR_io_destroy, c->new_aio));
	c->new_aio = 0;
}

/*
 * io_submit() of the variant's iocb: a read of the memfd's bytes, a write
 * of data after them, or a poll for POLLIN of a pipe with a byte in it.
 */
static int submit_action(void *arg)
{
	struct io_ctx *c = arg;
	struct iocb cb = {
		.aio_lio_opcode = c->aio_op,
		.aio_fildes = c->memfd,
		.aio_buf = (uintptr_t)c->got,
		.aio_nbytes = READ_LEN,
		.aio_data = NOP_COOKIE,
	};
	struct iocb *cbs[] = { &cb };
	long ret;

	if (c->aio_op == IOCB_CMD_PWRITE) {
		cb.aio_buf = (uintptr_t)c->data;
		cb.aio_offset = READ_LEN;
	}
	if (c->aio_op == IOCB_CMD_POLL) {
		cb.aio_fildes = c->aio_pipe[0];
		cb.aio_buf = POLLIN;
		cb.aio_nbytes = 0;
	}
	memset(c->got, 0, sizeof(c->got));
	ret = syscall(__NR_io_submit, c->aio, 1, cbs);
	return ret < 0 ? -errno : ret;
}

/* Takes the events of c->aio within @ms: how many, or -errno. */
static int aio_events(struct io_ctx *c, struct io_event *ev, int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000L };
	long nr = syscall(__NR_io_getevents, c->aio, ms ? 1 : 0, 1, ev, &ts);

	return nr < 0 ? -errno : nr;
}

/*
 * A success posts the iocb's event: the read's with the file's bytes read,
 * the write's with them written (or ENOMEM, the write's own result,
 * aio_rw_done(), fs/aio.c, with nothing written: shmem_write_begin() of
 * the one page failed), the poll's with POLLIN; a failure posts none and
 * wrote nothing.
 */
static bool submit_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	struct io_event ev = {};
	int nr = aio_events(c, &ev, ret < 0 ? 0 : EVENT_MS);
	long long want = c->aio_op == IOCB_CMD_POLL ? POLLIN : READ_LEN;
	bool done = ret >= 0 && nr == 1 && ev.res == want;

	if (ret < 0 && nr) {
		snprintf(why, size, "after the failure: %d events", nr);
		return false;
	}
	if (ret >= 0 &&
	    (nr != 1 || ev.data != NOP_COOKIE ||
	     (!done && (c->aio_op != IOCB_CMD_PWRITE || ev.res != -ENOMEM)))) {
		snprintf(why, size, "the event: %d events, res %lld (%lld)", nr,
			 (long long)ev.res, want);
		return false;
	}
	if (c->aio_op == IOCB_CMD_PWRITE)
		return write_effect(c, done, why, size);
	if (c->aio_op == IOCB_CMD_PREAD)
		return read_effect(c, READ_LEN, done, why, size);
	return true;
}

static void submit_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	struct io_event ev;

	/* A check told a lie (--mutate) may have left the event. */
	while (aio_events(arg, &ev, 0) > 0)
		;
	EXPECT_EQ(0, memfd_reset(arg));
}

/* Whether the kernel's io_uring has @op (IORING_REGISTER_PROBE). */
static bool uring_has_op(struct io_ctx *c, __u8 op)
{
	struct io_uring_probe *p = (void *)c->probe;
	struct uring r = { .fd = -1 };
	bool has = false;

	memset(c->probe, 0, sizeof(c->probe));
	if (!ring_open(&r, 1, 0) &&
	    !uring_register(r.fd, IORING_REGISTER_PROBE, p, PROBE_OPS))
		has = op <= p->last_op &&
		      (p->ops[op].flags & IO_URING_OP_SUPPORTED);
	ring_close(&r);
	return has;
}

FIXTURE(io)
{
	struct io_ctx ctx;
};

FIXTURE_VARIANT(io)
{
	const struct failnth_scenario *op;
	/* The case of the uring_* callbacks. */
	const struct uring_case *uc;
	/* io_uring_setup()'s entries (0: RING_ENTRIES) and flags. */
	unsigned int entries;
	__u32 flags;
	/* What io_submit() submits. */
	int aio_op;
};

/* A variant of a uring_case: a ring of its own for each point. */
#define URING_VARIANT(name, ucase, errs, count)                            \
	FAILNTH_VARIANT_MORE(io, name, (.uc = &(ucase)), .allowed = errs,  \
			     .full = count, .prepare = uring_prepare,      \
			     .action = uring_action, .check = uring_check, \
			     .cleanup = uring_cleanup)

FAILNTH_VARIANT(io, io_uring_setup, .allowed = uring_errnos,
		.action = setup_action, .check = setup_check,
		.cleanup = setup_cleanup);

/* The SQ thread: its data (sqpoll.c:171), its task, its io_uring context. */
FAILNTH_VARIANT_MORE(io, io_uring_setup_sqpoll, (.flags = IORING_SETUP_SQPOLL),
		     .allowed = sqpoll_errnos, .action = setup_action,
		     .check = setup_check, .cleanup = setup_cleanup);

FAILNTH_VARIANT_MORE(io, io_uring_setup_big_sqe,
		     (.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32),
		     .allowed = uring_errnos, .action = setup_action,
		     .check = setup_check, .cleanup = setup_cleanup);

/* Rings of many pages: io_pages_map() falls back to single pages. */
FAILNTH_VARIANT_MORE(io, io_uring_setup_many, (.entries = BIG_RING_ENTRIES),
		     .allowed = uring_errnos, .action = setup_action,
		     .check = setup_check, .cleanup = setup_cleanup);

/*
 * In a child with no io_uring context: the setup allocates it, with its
 * io-wq (io_uring_alloc_task_context(), tctx.c:72, io_wq_create()).
 */
FAILNTH_VARIANT(io, io_uring_setup_new_task, .allowed = uring_errnos,
		.in_child = true, .child_prepare = setup_child_prepare,
		.action = setup_action, .check = setup_check);

FAILNTH_VARIANT(io, io_uring_enter_nop, .allowed = enter_errnos, .full = 1,
		.prepare = nop_prepare, .action = nop_action,
		.check = nop_check, .cleanup = nop_cleanup);

FAILNTH_VARIANT(io, io_uring_enter_new_task, .allowed = enter_errnos, .full = 1,
		.in_child = true, .child_prepare = fresh_task_prepare,
		.action = nop_action, .check = fresh_task_check);

URING_VARIANT(io_uring_read, read_case, enter_errnos, 1);
URING_VARIANT(io_uring_read_async, read_async_case, enter_errnos, 1);
URING_VARIANT(io_uring_readv, readv_case, enter_errnos, 1);
URING_VARIANT(io_uring_write, write_case, enter_errnos, 1);
URING_VARIANT(io_uring_write_async, write_async_case, enter_errnos, 1);
URING_VARIANT(io_uring_link_read_write, link_case, enter_errnos, 2);
URING_VARIANT(io_uring_openat, openat_case, enter_errnos, 1);
URING_VARIANT(io_uring_timeout, timeout_case, enter_errnos, 1);
URING_VARIANT(io_uring_poll_double, poll_case, enter_errnos, 1);
URING_VARIANT(io_uring_async_cancel, cancel_case, enter_errnos, 2);
URING_VARIANT(io_uring_provide_buffers, provide_case, enter_errnos, 2);
URING_VARIANT(io_uring_send_recv, sendrecv_case, enter_errnos, 2);
URING_VARIANT(io_uring_msg_ring, msg_case, enter_errnos, 1);
URING_VARIANT(io_uring_recv_poll, recv_poll_case, enter_errnos, 1);
URING_VARIANT(io_uring_cq_overflow, overflow_case, enter_errnos, OVF_ENTRIES);
URING_VARIANT(io_uring_futex_wait, futex_case, enter_errnos, 2);
URING_VARIANT(io_uring_futex_waitv, futexv_case, enter_errnos, 2);
URING_VARIANT(io_uring_fgetxattr, getxattr_case, enter_errnos, 1);
URING_VARIANT(io_uring_fsetxattr, setxattr_case, enter_errnos, 1);

/*
 * In a child with no io-wq worker yet: the punt creates the first one
 * (create_io_worker(), io-wq.c:913, create_io_thread()).
 */
FAILNTH_VARIANT_MORE(io, io_uring_read_new_worker, (.uc = &read_async_case),
		     .allowed = enter_errnos, .full = 1, .in_child = true,
		     .child_prepare = uring_child_prepare,
		     .action = uring_action, .check = uring_check);

FAILNTH_VARIANT(io, io_uring_register_buffers, .allowed = uring_errnos,
		.action = register_action, .check = register_check,
		.cleanup = register_cleanup);

URING_VARIANT(io_uring_register_files, files_case, uring_errnos, 0);
URING_VARIANT(io_uring_update_files, files_update_case, uring_errnos,
	      NR_UPDATE);
URING_VARIANT(io_uring_clone_buffers, clone_case, uring_errnos, 0);
URING_VARIANT(io_uring_register_pbuf, pbuf_ring_case, uring_errnos, 0);
URING_VARIANT(io_uring_register_eventfd, eventfd_case, uring_errnos, 0);
URING_VARIANT(io_uring_personality, personality_case, uring_errnos, 0);
URING_VARIANT(io_uring_register_probe, probe_case, uring_errnos, 0);

FAILNTH_VARIANT(io, aio_io_setup, .allowed = aio_errnos,
		.action = aio_setup_action, .check = aio_setup_check,
		.cleanup = aio_setup_cleanup);

FAILNTH_VARIANT(io, aio_io_submit_read, .allowed = aio_errnos, .full = 1,
		.action = submit_action, .check = submit_check,
		.cleanup = submit_cleanup);

FAILNTH_VARIANT_MORE(io, aio_io_submit_write, (.aio_op = IOCB_CMD_PWRITE),
		     .allowed = aio_errnos, .full = 1, .action = submit_action,
		     .check = submit_check, .cleanup = submit_cleanup);

FAILNTH_VARIANT_MORE(io, aio_io_submit_poll, (.aio_op = IOCB_CMD_POLL),
		     .allowed = aio_errnos, .full = 1, .action = submit_action,
		     .check = submit_check, .cleanup = submit_cleanup);

FIXTURE_SETUP(io)
{
	const char *missing = failnth_missing();
	const struct failnth_scenario *op = variant->op;
	struct io_ctx *c = &self->ctx;
	struct io_uring_params p = {};
	aio_context_t aio = 0;
	size_t i;
	int fd;

	c->r.fd = -1;
	c->peer.fd = -1;
	c->memfd = -1;
	c->xfd = -1;
	c->free_fd = -1;
	c->pair[0] = -1;
	c->pair[1] = -1;
	c->aio_pipe[0] = -1;
	c->aio_pipe[1] = -1;
	c->uc = variant->uc;
	c->new_entries = variant->entries ? variant->entries : RING_ENTRIES;
	c->new_flags = variant->flags;
	c->aio_op = variant->aio_op;
	for (i = 0; i < sizeof(c->data); i++)
		c->data[i] = (char)(i * 13 + 1);
	if (missing)
		SKIP(return, "%s", missing);
	fd = uring_setup(1, &p);
	if (fd == -ENOSYS)
		SKIP(return, "io_uring missing: needs CONFIG_IO_URING");
	if (fd == -EPERM)
		SKIP(return, "io_uring refused: kernel.io_uring_disabled");
	if (fd >= 0)
		close(fd);
	if (syscall(__NR_io_setup, 1, &aio) && errno == ENOSYS)
		SKIP(return, "native AIO missing: needs CONFIG_AIO");
	if (aio)
		syscall(__NR_io_destroy, aio);
	c->memfd = memfd_create("failnth_io", MFD_CLOEXEC);
	ASSERT_LE(0, c->memfd);
	ASSERT_EQ(READ_LEN, pwrite(c->memfd, c->data, READ_LEN, 0));
	if (c->uc && c->uc->prep == futex_prep &&
	    !uring_has_op(c, OP_FUTEX_WAITV))
		SKIP(return, "io_uring futex ops missing: needs CONFIG_FUTEX");
	/* The xattr IORING_OP_FGETXATTR reads. */
	fd = 0;
	if (c->uc && c->uc->prep == xattr_prep &&
	    fsetxattr(c->memfd, XATTR_NAME, c->data, XATTR_LEN, 0))
		fd = -errno;
	if (fd == -EOPNOTSUPP)
		SKIP(return, "tmpfs xattrs missing: needs CONFIG_TMPFS_XATTR");
	ASSERT_EQ(0, fd);
	/* What the register and fresh-task variants work on, for the sweep. */
	if (op->action == register_action ||
	    op->child_prepare == fresh_task_prepare) {
		fd = ring_open(&c->r, RING_ENTRIES, 0);
		ASSERT_EQ(0, fd);
	}
	if (op->child_prepare == fresh_task_prepare) {
		c->workers[0] = IOWQ_BOUND;
		c->workers[1] = IOWQ_BOUND;
		ASSERT_EQ(0, uring_register(c->r.fd,
					    IORING_REGISTER_IOWQ_MAX_WORKERS,
					    c->workers, 2));
	}
	if (op->action == submit_action) {
		ASSERT_EQ(0, syscall(__NR_io_setup, RING_ENTRIES, &c->aio));
		ASSERT_EQ(0, pipe2(c->aio_pipe, O_CLOEXEC));
		ASSERT_EQ(1, write(c->aio_pipe[1], "x", 1));
	}
	for (i = 0; i < NR_BUFS; i++) {
		c->bufs[i].iov_len = BUF_SIZE;
		c->bufs[i].iov_base = mmap(NULL, BUF_SIZE,
					   PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, c->bufs[i].iov_base);
		memset(c->bufs[i].iov_base, 1, BUF_SIZE);
	}
}

FIXTURE_TEARDOWN(io)
{
	struct io_ctx *c = &self->ctx;
	size_t i;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	ring_close(&c->r);
	ring_close(&c->peer);
	if (c->aio)
		EXPECT_EQ(0, syscall(__NR_io_destroy, c->aio));
	for (i = 0; i < 2; i++)
		if (c->aio_pipe[i] >= 0)
			close(c->aio_pipe[i]);
	if (c->memfd >= 0)
		close(c->memfd);
	for (i = 0; i < NR_BUFS; i++)
		if (c->bufs[i].iov_base && c->bufs[i].iov_base != MAP_FAILED)
			munmap(c->bufs[i].iov_base, BUF_SIZE);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn, in this thread
 * or, for a variant in_child, in a child of its own. The call must succeed
 * with all it says done, or fail with an allowed errno having done
 * nothing: no ring, completion, effect of a request, registration,
 * context or event.
 */
FAILNTH_SWEEP_OP(io, SWEEP_TIMEOUT, failnth_run)

TEST_HARNESS_MAIN
