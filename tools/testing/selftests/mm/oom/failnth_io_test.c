// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring and native AIO while their small allocations fail, one at a
 * time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h): io_uring_setup(), an
 * io_uring_enter() that submits a NOP, IORING_REGISTER_BUFFERS, io_setup()
 * and an io_submit() that reads a memfd. The call must succeed or fail
 * with an allowed errno. A success gives what it says: a ring whose
 * mapping shows its size, the NOP's completion, registered buffers, an AIO
 * context that io_destroy() takes, the read's event with the file's bytes.
 * A failure leaves nothing: no fd or mapping (the engine counts them), the
 * NOP still in the submission queue and no completion, no buffers
 * registered, no context, no event.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "failnth.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* The ring the io_uring variants set up, and what the NOP carries. */
#define RING_ENTRIES 8
#define NOP_COOKIE 0x746f6f736d616c6cULL

/* The buffers IORING_REGISTER_BUFFERS pins: a few pages each. */
#define NR_BUFS 4
#define BUF_SIZE (4 * 4096)

/* What the AIO read reads, and the bound on waiting for its event. */
#define READ_LEN 4096
#define EVENT_MS 1000

/*
 * Clean failures of io_uring_setup() and IORING_REGISTER_BUFFERS: every
 * allocation of io_uring/io_uring.c:io_uring_create() and of
 * io_uring/rsrc.c:io_sqe_buffers_register() fails as ENOMEM (linux 6.12).
 */
static const int uring_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of io_uring_enter(): a request it cannot allocate is
 * EAGAIN when nothing was submitted (io_uring/io_uring.c:
 * io_submit_sqes(), "if (!submitted) submitted = -EAGAIN" after
 * io_alloc_req() failed; io_uring_enter(2): "The kernel was unable to
 * allocate memory for the request").
 */
static const int enter_errnos[] = { ENOMEM, EAGAIN, 0 };

/*
 * Clean failures of io_setup() and io_submit(): io_setup(2) and
 * io_submit(2) give ENOMEM and EAGAIN ("Insufficient resources"); fs/aio.c
 * reports a kiocb it cannot allocate as EAGAIN (io_submit_one(), linux
 * 6.12).
 */
static const int aio_errnos[] = { ENOMEM, EAGAIN, 0 };

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct io_ctx {
	/* The ring of the enter and register variants, for the sweep. */
	int ring;
	struct io_uring_params p;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	/* The AIO context of the submit variant, and its memfd. */
	aio_context_t aio;
	int memfd;
	/* io_setup()'s context, written only by a success. */
	aio_context_t new_aio;
	/* io_uring_setup()'s ring: its parameters, a mapping and its size. */
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

static int uring_register(int fd, unsigned int op, void *arg, unsigned int nr)
{
	return syscall(__NR_io_uring_register, fd, op, arg, nr) ? -errno : 0;
}

/* The SQ ring's size, as io_uring(7) computes it. */
static size_t sq_ring_len(const struct io_uring_params *p)
{
	return p->sq_off.array + p->sq_entries * sizeof(__u32);
}

/* A __u32 of a ring, at @off in its mapping @base. */
#define RING_U32(base, off) ((__u32 *)((char *)(base) + (off)))

/* Sets up c->ring and maps its rings: 0 or -errno. */
static int ring_open(struct io_ctx *c)
{
	int ret;

	memset(&c->p, 0, sizeof(c->p));
	c->ring = uring_setup(RING_ENTRIES, &c->p);
	if (c->ring < 0)
		return c->ring;
	c->sq_len = sq_ring_len(&c->p);
	c->cq_len = c->p.cq_off.cqes +
		    c->p.cq_entries * sizeof(struct io_uring_cqe);
	c->sq = mmap(NULL, c->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     c->ring, IORING_OFF_SQ_RING);
	c->cq = mmap(NULL, c->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		     c->ring, IORING_OFF_CQ_RING);
	c->sqes = mmap(NULL, c->p.sq_entries * sizeof(*c->sqes),
		       PROT_READ | PROT_WRITE, MAP_SHARED, c->ring,
		       IORING_OFF_SQES);
	ret = c->sq == MAP_FAILED || c->cq == MAP_FAILED ||
			      c->sqes == MAP_FAILED ?
		      -errno :
		      0;
	return ret;
}

static void ring_close(struct io_ctx *c)
{
	if (c->ring < 0)
		return;
	if (c->sq && c->sq != MAP_FAILED)
		munmap(c->sq, c->sq_len);
	if (c->cq && c->cq != MAP_FAILED)
		munmap(c->cq, c->cq_len);
	if (c->sqes && c->sqes != MAP_FAILED)
		munmap(c->sqes, c->p.sq_entries * sizeof(*c->sqes));
	close(c->ring);
	c->ring = -1;
	c->sq = NULL;
	c->cq = NULL;
	c->sqes = NULL;
}

/* Queues a NOP in the SQ ring, without submitting it. */
static void queue_nop(struct io_ctx *c)
{
	__u32 mask = *RING_U32(c->sq, c->p.sq_off.ring_mask);
	__u32 tail = *RING_U32(c->sq, c->p.sq_off.tail);
	struct io_uring_sqe *sqe = &c->sqes[tail & mask];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_NOP;
	sqe->user_data = NOP_COOKIE;
	RING_U32(c->sq, c->p.sq_off.array)[tail & mask] = tail & mask;
	__atomic_store_n(RING_U32(c->sq, c->p.sq_off.tail), tail + 1,
			 __ATOMIC_RELEASE);
}

/* SQEs queued but not consumed by the kernel. */
static __u32 sq_pending(struct io_ctx *c)
{
	return *RING_U32(c->sq, c->p.sq_off.tail) -
	       __atomic_load_n(RING_U32(c->sq, c->p.sq_off.head),
			       __ATOMIC_ACQUIRE);
}

/*
 * Takes the completions posted: how many, and whether each is the NOP's
 * with res 0 (else *@bad is set).
 */
static int reap(struct io_ctx *c, bool *bad)
{
	__u32 *head = RING_U32(c->cq, c->p.cq_off.head);
	__u32 tail = __atomic_load_n(RING_U32(c->cq, c->p.cq_off.tail),
				     __ATOMIC_ACQUIRE);
	__u32 mask = *RING_U32(c->cq, c->p.cq_off.ring_mask);
	struct io_uring_cqe *cqes = (void *)((char *)c->cq + c->p.cq_off.cqes);
	int nr = 0;

	for (; *head != tail; nr++) {
		struct io_uring_cqe *cqe = &cqes[*head & mask];

		if (cqe->user_data != NOP_COOKIE || cqe->res)
			*bad = true;
		__atomic_store_n(head, *head + 1, __ATOMIC_RELEASE);
	}
	return nr;
}

static int setup_action(void *arg)
{
	struct io_ctx *c = arg;

	memset(&c->new_p, 0, sizeof(c->new_p));
	return uring_setup(RING_ENTRIES, &c->new_p);
}

/* A success is a ring whose SQ ring maps and says it has its entries. */
static bool setup_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;

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
	if (*RING_U32(c->new_sq, c->new_p.sq_off.ring_entries) !=
	    RING_ENTRIES) {
		snprintf(why, size, "the new ring has %u entries, asked %d",
			 *RING_U32(c->new_sq, c->new_p.sq_off.ring_entries),
			 RING_ENTRIES);
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
	int err = ring_open(c);

	ASSERT_EQ(0, err)
	{
		TH_LOG("io_uring_setup (unarmed): %s", strerror(-err));
	}
	queue_nop(c);
}

static int nop_action(void *arg)
{
	struct io_ctx *c = arg;

	return uring_enter(c->ring, 1, 1);
}

/*
 * A success consumed the NOP and posted its completion; a failure left
 * the NOP queued and posted nothing.
 */
static bool nop_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	__u32 pending = sq_pending(c);
	bool bad = false;
	int nr = reap(c, &bad);

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

	if (sq_pending(c)) {
		EXPECT_EQ(1, uring_enter(c->ring, 1, 1));
		EXPECT_EQ(1, reap(c, &bad));
		EXPECT_FALSE(bad);
	}
	ring_close(c);
}

static int register_action(void *arg)
{
	struct io_ctx *c = arg;

	return uring_register(c->ring, IORING_REGISTER_BUFFERS, c->bufs,
			      NR_BUFS);
}

/*
 * IORING_UNREGISTER_BUFFERS succeeds only where buffers are registered
 * (ENXIO otherwise): a success registered them, a failure did not.
 */
static bool register_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	int err = uring_register(c->ring, IORING_UNREGISTER_BUFFERS, NULL, 0);

	if (ret >= 0 && err) {
		snprintf(why, size, "unregistering the new buffers: %s",
			 strerror(-err));
		return false;
	}
	if (ret < 0 && err != -ENXIO) {
		snprintf(why, size, "unregistering after the failure: %s",
			 err ? strerror(-err) : "buffers were registered");
		return false;
	}
	return true;
}

static void register_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	struct io_ctx *c = arg;

	/* The check unregistered them; under --mutate it may not have. */
	uring_register(c->ring, IORING_UNREGISTER_BUFFERS, NULL, 0);
}

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

static int submit_action(void *arg)
{
	struct io_ctx *c = arg;
	struct iocb cb = {
		.aio_lio_opcode = IOCB_CMD_PREAD,
		.aio_fildes = c->memfd,
		.aio_buf = (uintptr_t)c->got,
		.aio_nbytes = READ_LEN,
		.aio_data = NOP_COOKIE,
	};
	struct iocb *cbs[] = { &cb };
	long ret;

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
 * A success posts the read's event, with the file's bytes read; a failure
 * posts none.
 */
static bool submit_check(void *arg, int ret, char *why, size_t size)
{
	struct io_ctx *c = arg;
	struct io_event ev = {};
	int nr = aio_events(c, &ev, ret < 0 ? 0 : EVENT_MS);

	if (ret < 0) {
		if (!nr)
			return true;
		snprintf(why, size, "after the failure: %d events", nr);
		return false;
	}
	if (nr != 1 || ev.data != NOP_COOKIE || ev.res != READ_LEN ||
	    memcmp(c->got, c->data, READ_LEN)) {
		snprintf(why, size,
			 "the read's event: %d events, res %lld, %s bytes", nr,
			 (long long)ev.res,
			 memcmp(c->got, c->data, READ_LEN) ? "other" :
							     "the file's");
		return false;
	}
	return true;
}

static void submit_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	struct io_event ev;

	/* A check told a lie (--mutate) may have left the event. */
	while (aio_events(arg, &ev, 0) > 0)
		;
}

FIXTURE(io)
{
	struct io_ctx ctx;
};

FIXTURE_VARIANT(io)
{
	const struct failnth_scenario *op;
};

FAILNTH_VARIANT(io, io_uring_setup, .allowed = uring_errnos,
		.action = setup_action, .check = setup_check,
		.cleanup = setup_cleanup);

FAILNTH_VARIANT(io, io_uring_enter_nop, .allowed = enter_errnos, .full = 1,
		.prepare = nop_prepare, .action = nop_action,
		.check = nop_check, .cleanup = nop_cleanup);

FAILNTH_VARIANT(io, io_uring_register_buffers, .allowed = uring_errnos,
		.action = register_action, .check = register_check,
		.cleanup = register_cleanup);

FAILNTH_VARIANT(io, aio_io_setup, .allowed = aio_errnos,
		.action = aio_setup_action, .check = aio_setup_check,
		.cleanup = aio_setup_cleanup);

FAILNTH_VARIANT(io, aio_io_submit_read, .allowed = aio_errnos, .full = 1,
		.action = submit_action, .check = submit_check,
		.cleanup = submit_cleanup);

FIXTURE_SETUP(io)
{
	const char *missing = failnth_missing();
	struct io_ctx *c = &self->ctx;
	struct io_uring_params p = {};
	aio_context_t aio = 0;
	size_t i;
	int fd;

	c->ring = -1;
	c->memfd = -1;
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
	/* What the register and submit variants work on, for the sweep. */
	if (variant->op->action == register_action) {
		fd = ring_open(c);
		ASSERT_EQ(0, fd);
	}
	if (variant->op->action == submit_action) {
		ASSERT_EQ(0, syscall(__NR_io_setup, RING_ENTRIES, &c->aio));
		c->memfd = memfd_create("failnth_io", MFD_CLOEXEC);
		ASSERT_LE(0, c->memfd);
		ASSERT_EQ(READ_LEN, pwrite(c->memfd, c->data, READ_LEN, 0));
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
	EXPECT_EQ(0, failnth_knobs_restore());
	ring_close(c);
	if (c->aio)
		EXPECT_EQ(0, syscall(__NR_io_destroy, c->aio));
	if (c->memfd >= 0)
		close(c->memfd);
	for (i = 0; i < NR_BUFS; i++)
		if (c->bufs[i].iov_base && c->bufs[i].iov_base != MAP_FAILED)
			munmap(c->bufs[i].iov_base, BUF_SIZE);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed with all it says done, or fail with an allowed errno having done
 * nothing: no ring, completion, registered buffer, context or event.
 */
FAILNTH_SWEEP_OP(io, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
