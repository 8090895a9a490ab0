// SPDX-License-Identifier: GPL-2.0
/*
 * The 2014 "TIF_MEMDIE stall", as a regression test.
 *
 * Task A write()s to a file from a MAP_SHARED anonymous buffer whose first
 * page is registered with userfaultfd, so A sleeps in that fault holding
 * the inode's i_rwsem. Task B, the largest memory user, then blocks on the
 * same i_rwsem in pwrite() (state D). The fault is resolved: A's copy goes
 * on faulting in shmem pages of its buffer until memory runs out, and the
 * OOM killer picks B. B cannot exit while it waits for A's lock, and A
 * cannot finish while B holds its memory: only the OOM reaper, which tears
 * down B's address space without B's help, lets the system go on.
 *
 * Pass: forward progress within SEED_MS (A's write done or failed, B
 * gone). Fail: a stall, reported with the stacks of A and B (stall.h).
 * Variants: the file on XFS or tmpfs, in a memory cgroup (memory.max
 * 24 MB, B 16 MB), and on XFS with no cgroup at all, where the machine's
 * own small memory runs out. There A and B are sized from MemAvailable,
 * which can leave out much of what is reclaimable (after other tests both
 * may fit), so a second thread of B goes on touching new memory from the
 * moment the fault is resolved until B is killed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "cgroup.h"
#include "stall.h"
#include "util.h"

#define MB (1024L * 1024)
#define PAGE 4096
/*
 * The memcg variants: memory.max and B's memory. A's write (per variant)
 * plus B must not fit, A's buffer and what it writes without B must.
 */
#define CG_LIMIT (24 * MB)
#define CG_B_BYTES (16 * MB)
/* Setting up: A asleep in its fault, B blocked on the lock. */
#define SETUP_MS 10000
/* Forward progress must come within this after the fault is resolved. */
#define SEED_MS 30000
/* No progress this long while reclaim climbs is a stall. */
#define STALL_MS 10000
#define TEST_TIMEOUT 60
#define DESTROY_MS 5000
#define OOM_SCORE_ADJ "/proc/self/oom_score_adj"

/* What B's growing thread maps and touches at a time. */
#define GROW_CHUNK (1 * MB)

enum fs_kind { FS_TMPFS, FS_XFS };

/* Between the test and A and B. */
struct seed_shared {
	/* A's write(): its result and errno, once it returned. */
	long long written;
	int write_errno;
	int write_returned;
	/* B touched its memory and is about to pwrite(). */
	int b_ready;
	/* B's pwrite() returned: B was not killed while blocked on the lock. */
	int b_wrote;
	/* The fault is resolved: B's growing thread starts. */
	int go;
	/* What B's growing thread touched. */
	long long b_grown;
	char error[80];
};

struct seed_task {
	struct seed_shared *sh;
	int fd;
	/* A's buffer size, B's memory. */
	long len;
	/* A sends its userfaultfd over this socket. */
	int sock;
	/* B goes on touching new memory until it is killed (global). */
	bool grow;
};

FIXTURE(seed)
{
	char cg[CG_PATH_MAX];
	char dir[64];
	bool mounted;
	int fd;
	struct seed_task t;
	pid_t a, b;
	int a_status, b_status;
	bool a_reaped, b_reaped;
	int uffd;
	int sock[2];
	/* The test's own oom_score_adj, restored in the global variant. */
	char adj[16];
};

FIXTURE_VARIANT(seed)
{
	enum fs_kind fs;
	/* In a memory cgroup, or against the whole machine's memory. */
	bool memcg;
	/* memcg: A's write. XFS page cache is reclaimable, tmpfs's is not. */
	long write_len;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(seed, xfs) {
	/* clang-format on */
	.fs = FS_XFS,
	.memcg = true,
	.write_len = 12 * MB,
};

/* clang-format off */
FIXTURE_VARIANT_ADD(seed, tmpfs) {
	/* clang-format on */
	.fs = FS_TMPFS,
	.memcg = true,
	.write_len = 8 * MB,
};

/* clang-format off */
FIXTURE_VARIANT_ADD(seed, xfs_global) {
	/* clang-format on */
	.fs = FS_XFS,
	.memcg = false,
};

/* Sends @fd over @sock. */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'u';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) < 0 ? -errno : 0;
}

/* Receives an fd from @sock within @timeout_ms. */
static int recv_fd(int sock, long timeout_ms)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct pollfd pfd = { sock, POLLIN, 0 };
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd, ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret <= 0)
		return ret ? -errno : -ETIMEDOUT;
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) <= 0)
		return -EIO;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -EIO;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* A userfaultfd for missing-page faults on shmem, or -errno. */
static int uffd_open(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_MISSING_SHMEM,
	};
	int uffd, err;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		return -errno;
	if (ioctl(uffd, UFFDIO_API, &api)) {
		err = errno;
		close(uffd);
		return -err;
	}
	return uffd;
}

static int set_oom_score_adj(const char *val)
{
	return write_file(OOM_SCORE_ADJ, val);
}

/*
 * Task A: registers the first page of a fresh shared buffer, hands the
 * userfaultfd to the test, and writes the buffer to the file. The write
 * takes i_rwsem, then faults on that page and sleeps until the test
 * resolves it; the rest of the buffer is faulted in (charged) as it goes.
 */
static int task_a(void *arg)
{
	struct seed_task *t = arg;
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct seed_shared *sh = t->sh;
	ssize_t n;
	char *buf;
	int uffd;

	set_oom_score_adj("0");
	buf = mmap(NULL, t->len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		snprintf(sh->error, sizeof(sh->error), "A: mmap: %s",
			 strerror(errno));
		return 1;
	}
	uffd = uffd_open();
	if (uffd < 0) {
		snprintf(sh->error, sizeof(sh->error), "A: userfaultfd: %s",
			 strerror(-uffd));
		return 1;
	}
	reg.range.start = (unsigned long)buf;
	reg.range.len = PAGE;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		snprintf(sh->error, sizeof(sh->error), "A: UFFDIO_REGISTER: %s",
			 strerror(errno));
		return 1;
	}
	if (send_fd(t->sock, uffd)) {
		snprintf(sh->error, sizeof(sh->error),
			 "A: sending the uffd: %s", strerror(errno));
		return 1;
	}
	n = write(t->fd, buf, t->len);
	sh->written = n;
	sh->write_errno = n < 0 ? errno : 0;
	sh->write_returned = 1;
	return 0;
}

/*
 * B's second thread (global variant): from the moment the fault is
 * resolved, touches new memory, GROW_CHUNK at a time, until B is killed,
 * so the machine's memory surely runs out; gives up after SEED_MS, the
 * test's own deadline for forward progress.
 */
static void *task_b_grow(void *arg)
{
	struct seed_task *t = arg;
	struct seed_shared *sh = t->sh;
	long long deadline = cgrp_now_ms() + SETUP_MS + SEED_MS;
	char *mem;
	long off;

	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE)) {
		if (cgrp_now_ms() >= deadline)
			return NULL;
		cgrp_sleep_ms(1);
	}
	deadline = cgrp_now_ms() + SEED_MS;
	while (cgrp_now_ms() < deadline) {
		mem = mmap(NULL, GROW_CHUNK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			cgrp_sleep_ms(1);
			continue;
		}
		for (off = 0; off < GROW_CHUNK; off += PAGE)
			mem[off] = 1;
		__atomic_add_fetch(&sh->b_grown, GROW_CHUNK, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * Task B: the largest memory user. Touches its memory, then writes to the
 * same file, and so waits for A's i_rwsem.
 */
static int task_b(void *arg)
{
	struct seed_task *t = arg;
	char page[PAGE] = { 'b' };
	pthread_t grower;
	ssize_t ret;
	char *mem;
	long off;
	int err;

	set_oom_score_adj("0");
	mem = mmap(NULL, t->len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		snprintf(t->sh->error, sizeof(t->sh->error), "B: mmap: %s",
			 strerror(errno));
		return 1;
	}
	for (off = 0; off < t->len; off += PAGE)
		mem[off] = 1;
	if (t->grow) {
		err = pthread_create(&grower, NULL, task_b_grow, t);
		if (err) {
			snprintf(t->sh->error, sizeof(t->sh->error),
				 "B: pthread_create: %s", strerror(err));
			return 1;
		}
	}
	t->sh->b_ready = 1;
	ret = pwrite(t->fd, page, PAGE, 0);
	t->sh->b_wrote = 1;
	/* Not killed while blocked: still, grow until killed or SEED_MS. */
	if (t->grow)
		pthread_join(grower, NULL);
	return ret < 0 ? 2 : 0;
}

/* One letter of /proc/<pid>/stat's state, '?' if unreadable. */
static char task_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Waits until @pid is in state @state, for @timeout_ms. */
static bool wait_state(pid_t pid, char state, long timeout_ms)
{
	long long deadline = cgrp_now_ms() + timeout_ms;

	while (task_state(pid) != state) {
		if (cgrp_now_ms() >= deadline)
			return false;
		cgrp_sleep_ms(10);
	}
	return true;
}

/* Waits up to @timeout_ms for another process to set the shared @flag. */
static bool wait_flag(const int *flag, long timeout_ms)
{
	long long deadline = cgrp_now_ms() + timeout_ms;

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (cgrp_now_ms() >= deadline)
			return false;
		cgrp_sleep_ms(10);
	}
	return true;
}

static long meminfo_kb(const char *key)
{
	char line[128];
	long kb = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			kb = atol(line + strlen(key));
	fclose(f);
	return kb;
}

/* Skip reasons too long for a SKIP() line. */
#define REASON_NO_UFFD_SHMEM \
	"userfaultfd on shmem (UFFD_FEATURE_MISSING_SHMEM): %s"
#define REASON_NO_DEV \
	"OOM_SCRATCH_DEV unset: name a spare block device this test may mkfs.xfs -f"
#define REASON_NO_CGROUP2 \
	"no cgroup2 mount: mount -t cgroup2 none /sys/fs/cgroup"
#define REASON_NO_MEMCG \
	"no memory controller in the cgroup2 root (CONFIG_MEMCG)"

/* The file on a fresh XFS or tmpfs, a group (memcg variants), a socket. */
FIXTURE_SETUP(seed)
{
	const char *dev = getenv("OOM_SCRATCH_DEV");
	char root[CG_PATH_MAX], leaf[64], reason[128];
	int ret, fd;

	self->dir[0] = '\0';
	self->cg[0] = '\0';
	self->adj[0] = '\0';
	self->mounted = false;
	self->fd = -1;
	self->uffd = -1;
	self->a = 0;
	self->b = 0;
	self->a_reaped = false;
	self->b_reaped = false;

	ret = uffd_open();
	if (ret == -ENOSYS)
		SKIP(return, "no userfaultfd: CONFIG_USERFAULTFD");
	if (ret < 0)
		SKIP(return, REASON_NO_UFFD_SHMEM, strerror(-ret));
	close(ret);
	if (variant->fs == FS_XFS && (!dev || !*dev))
		SKIP(return, REASON_NO_DEV);
	if (variant->memcg) {
		if (cgrp_find_root(root, sizeof(root)))
			SKIP(return, REASON_NO_CGROUP2);
		if (cgrp_has_controller(root, "memory") <= 0)
			SKIP(return, REASON_NO_MEMCG);
	}

	ret = private_mounts(reason, sizeof(reason));
	if (ret > 0)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, ret)
	{
		TH_LOG("%s", reason);
	}
	snprintf(self->dir, sizeof(self->dir), "/tmp/seed.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	if (variant->fs == FS_XFS) {
		ret = xfs_mount_fresh(dev, self->dir, reason, sizeof(reason));
		if (ret > 0)
			SKIP(goto undo_dir, "%s", reason);
		ASSERT_EQ(0, ret)
		{
			TH_LOG("%s", reason);
		}
	} else {
		ASSERT_EQ(0, mount("seed", self->dir, "tmpfs", 0, "mode=0700"));
	}
	self->mounted = true;
	fd = open(self->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	self->fd = openat(fd, "file", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	close(fd);
	ASSERT_LE(0, self->fd);

	if (variant->memcg) {
		snprintf(leaf, sizeof(leaf), "toosmall-seed-%d", getpid());
		ret = cgrp_create(self->cg, sizeof(self->cg), root, leaf);
		ASSERT_EQ(0, ret)
		{
			self->cg[0] = '\0';
			TH_LOG("creating %s/%s: %s", root, leaf,
			       strerror(-ret));
		}
		ASSERT_EQ(0, cgrp_write_long(self->cg, "memory.max", CG_LIMIT));
		ret = cgrp_write(self->cg, "memory.swap.max", "0");
		ASSERT_TRUE(!ret || ret == -ENOENT);
	}
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0,
				self->sock));
	self->t.sh = mmap(NULL, sizeof(*self->t.sh), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->t.sh);
	memset(self->t.sh, 0, sizeof(*self->t.sh));
	self->t.fd = self->fd;
	self->t.sock = self->sock[1];
	return;

undo_dir:
	if (self->mounted)
		umount2(self->dir, MNT_DETACH);
	rmdir(self->dir);
}

static void reap(pid_t pid, bool *reaped, int *status)
{
	if (pid <= 0 || *reaped)
		return;
	kill(pid, SIGKILL);
	if (!cgrp_wait_pid(pid, status, DESTROY_MS))
		*reaped = true;
}

FIXTURE_TEARDOWN(seed)
{
	if (self->cg[0])
		EXPECT_EQ(0, cgrp_destroy(self->cg, DESTROY_MS));
	reap(self->a, &self->a_reaped, &self->a_status);
	reap(self->b, &self->b_reaped, &self->b_status);
	EXPECT_TRUE((!self->a || self->a_reaped) &&
		    (!self->b || self->b_reaped));
	if (self->adj[0])
		EXPECT_EQ(0, set_oom_score_adj(self->adj));
	if (self->uffd >= 0)
		close(self->uffd);
	close(self->sock[0]);
	close(self->sock[1]);
	if (self->fd >= 0)
		close(self->fd);
	if (self->mounted)
		EXPECT_EQ(0, umount2(self->dir, MNT_DETACH));
	if (self->dir[0])
		EXPECT_EQ(0, rmdir(self->dir));
}

static bool seed_done(void *arg)
{
	struct _test_data_seed *self = arg;

	if (!self->a_reaped &&
	    waitpid(self->a, &self->a_status, WNOHANG) == self->a)
		self->a_reaped = true;
	if (!self->b_reaped &&
	    waitpid(self->b, &self->b_status, WNOHANG) == self->b)
		self->b_reaped = true;
	return self->a_reaped && self->b_reaped;
}

static long long seed_progress(void *arg)
{
	struct _test_data_seed *self = arg;

	return self->a_reaped + self->b_reaped + self->t.sh->write_returned;
}

static long long memcg_event(const char *cg, const char *key)
{
	long long v = -1;

	if (cg[0])
		cgrp_read_key(cg, "memory.events", key, &v);
	return v;
}

/*
 * The metrics line. b_wrote=1: B's pwrite() returned, so the OOM kill
 * came only after A's write, not while B was blocked on the lock.
 */
#define SEED_FMT \
	"oom seed_%s: secs_to_progress=%.2f a_written=%lld a_errno=%d b_killed=%d b_wrote=%d b_grown_kb=%lld oom=%lld oom_kill=%lld max=%lld avail_kb=%ld\n"

/*
 * A holds i_rwsem asleep in a userfault, B (the largest) blocks on it,
 * the fault is resolved and memory runs out: the OOM killer picks B, and
 * the system must make forward progress within SEED_MS (A's write returns,
 * both tasks are gone), not stall.
 */
TEST_F_TIMEOUT(seed, oom_victim_blocked_on_lock, TEST_TIMEOUT)
{
	static char page[PAGE];
	struct stall_watch sw = {
		.cg = variant->memcg ? self->cg : NULL,
		.stall_ms = STALL_MS,
		.deadline_ms = SEED_MS,
		.done = seed_done,
		.progress = seed_progress,
		.arg = self,
	};
	struct seed_shared *sh = self->t.sh;
	struct uffdio_copy copy = { 0 };
	struct pollfd pfd = { 0 };
	struct uffd_msg msg;
	struct stall_result res;
	long a_len, b_len, avail_kb = 0;
	long long t0;
	const char *cg = variant->memcg ? self->cg : NULL;
	const char *name = variant->fs == FS_XFS ? "xfs" : "tmpfs";
	int b_killed;

	if (variant->memcg) {
		a_len = variant->write_len;
		b_len = CG_B_BYTES;
	} else {
		name = "xfs_global";
		/*
		 * B takes 60% of what is available, A's buffer another 60%:
		 * B stays the largest, and together they should not fit; as
		 * MemAvailable may say less than can be reclaimed, B grows
		 * on until it is killed (task_b_grow()), while A alone fits.
		 */
		avail_kb = meminfo_kb("MemAvailable:");
		ASSERT_LT(0, avail_kb);
		b_len = avail_kb / 10 * 6 * 1024;
		a_len = b_len;
		/* The test itself must not be the victim. */
		ASSERT_LT(0, read_file(OOM_SCORE_ADJ, self->adj,
				       sizeof(self->adj)));
		ASSERT_EQ(0, set_oom_score_adj("-1000"));
	}

	/* A: asleep in the fault on its first page, holding i_rwsem. */
	self->t.len = a_len;
	self->a = cgrp_spawn(cg, task_a, &self->t);
	ASSERT_LT(0, self->a);
	sw.pids[sw.nr_pids++] = self->a;
	self->uffd = recv_fd(self->sock[0], SETUP_MS);
	ASSERT_LE(0, self->uffd)
	{
		TH_LOG("no userfaultfd from A: %s; %s", strerror(-self->uffd),
		       sh->error);
	}
	pfd.fd = self->uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, SETUP_MS))
	{
		TH_LOG("A did not fault on its registered page: %s", sh->error);
	}
	ASSERT_EQ(sizeof(msg), read(self->uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* B: the largest user, then blocked on the same i_rwsem. */
	self->t.len = b_len;
	self->t.grow = !variant->memcg;
	self->b = cgrp_spawn(cg, task_b, &self->t);
	ASSERT_LT(0, self->b);
	sw.pids[sw.nr_pids++] = self->b;
	/*
	 * B's D state means the lock only once its memory is touched: on a
	 * slow machine (QEMU without KVM) B also sleeps in D while it faults
	 * its pages in.
	 */
	ASSERT_TRUE(wait_flag(&sh->b_ready, SETUP_MS))
	TH_LOG("B never got ready: %s", sh->error);
	ASSERT_TRUE(wait_state(self->b, 'D', SETUP_MS))
	{
		TH_LOG("B is in state %c, not blocked on the lock; %s",
		       task_state(self->b), sh->error);
	}
	ASSERT_EQ(0, sh->write_returned);

	/* Resolve the fault: A goes on copying, and memory runs out. */
	memset(page, 'a', PAGE);
	copy.dst = msg.arg.pagefault.address & ~(PAGE - 1UL);
	copy.src = (unsigned long)page;
	copy.len = PAGE;
	t0 = cgrp_now_ms();
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_COPY, &copy))
	{
		TH_LOG("UFFDIO_COPY: %s", strerror(errno));
	}
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);

	ASSERT_EQ(0, stall_watch(&sw, &res));
	b_killed = self->b_reaped && WIFSIGNALED(self->b_status) &&
		   WTERMSIG(self->b_status) == SIGKILL;
	ksft_print_msg(SEED_FMT, name, (cgrp_now_ms() - t0) / 1000.0,
		       sh->written, sh->write_errno, b_killed, sh->b_wrote,
		       sh->b_grown >> 10, memcg_event(self->cg, "oom"),
		       memcg_event(self->cg, "oom_kill"),
		       memcg_event(self->cg, "max"), avail_kb);
	fflush(stdout);
	if (res.verdict != STALL_DONE) {
		stall_report(&sw, &res,
			     "seed: OOM victim B blocked on A's i_rwsem");
		ASSERT_EQ(STALL_DONE, res.verdict)
		{
			TH_LOG("no forward progress within %d ms: A %s, B %s",
			       SEED_MS,
			       sh->write_returned ? "returned" : "in write()",
			       self->b_reaped ? "gone" : "alive");
		}
	}

	/* B was the OOM victim; A's write returned. */
	EXPECT_TRUE(WIFSIGNALED(self->b_status) &&
		    WTERMSIG(self->b_status) == SIGKILL)
	{
		TH_LOG("B was not killed: status 0x%x", self->b_status);
	}
	EXPECT_EQ(1, sh->write_returned)
	{
		TH_LOG("A did not return from write(): status 0x%x",
		       self->a_status);
	}
	if (variant->memcg)
		EXPECT_LE(1, memcg_event(self->cg, "oom_kill"));
}

static bool stall_never_done(void *arg)
{
	return false;
}

static long long stall_no_progress(void *arg)
{
	return 0;
}

/*
 * The stall detector's own rule (stall.h): OOM_TIME_MUL stretches the
 * window of the early verdict, never the judgement at the deadline. A
 * scenario that made no progress at all until its deadline is a stall at
 * any multiplier, even one whose stretched window is past the deadline.
 */
TEST(stall_scaling_keeps_stalls)
{
	struct stall_watch sw = {
		.stall_ms = 200,
		.deadline_ms = 600,
		.done = stall_never_done,
		.progress = stall_no_progress,
	};
	const char *env = getenv("OOM_TIME_MUL");
	char *old = env ? strdup(env) : NULL;
	struct stall_result res;
	int ret;

	ASSERT_EQ(0, setenv("OOM_TIME_MUL", "4", 1));
	ASSERT_EQ(800, stall_scaled_ms(sw.stall_ms));
	ret = stall_watch(&sw, &res);
	if (old)
		setenv("OOM_TIME_MUL", old, 1);
	else
		unsetenv("OOM_TIME_MUL");
	free(old);
	ASSERT_EQ(0, ret);
	EXPECT_TRUE(stall_is_stall(&res))
	{
		TH_LOG("idle %lld ms of %lld, window %ld ms (800 scaled): verdict %d, not a stall",
		       res.idle_ms, res.elapsed_ms, sw.stall_ms, res.verdict);
	}
	EXPECT_EQ(sw.stall_ms, res.limit_ms);
}

TEST_HARNESS_MAIN
