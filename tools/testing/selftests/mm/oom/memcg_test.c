// SPDX-License-Identifier: GPL-2.0
/*
 * Syscalls that charge kernel memory to a cgroup at its memory.max.
 *
 * A worker in a fresh group (memory.max 8 MB, no swap) repeats one
 * charging action (create a file, make a pipe, fork, ...) and keeps what it
 * made, until the charge fails. What must happen then depends on whether
 * the OOM killer may act:
 *
 *   killable:             an OOM kill inside the group, within a deadline,
 *                         counted in memory.events; a bystander outside
 *                         the group untouched;
 *   unkillable, mlocked:  oom_score_adj -1000 and mlockall(): nothing to
 *                         kill and nothing to reclaim, so the syscall must
 *                         return ENOMEM (or a short count) within a
 *                         deadline, never a kill;
 *   unkillable:           oom_score_adj -1000 only: forward progress
 *                         (calls, an error or a kill) within a deadline.
 *
 * A charge taken in a page fault (touching new memory, the copy-on-write
 * after fork) has no errno to return: with nothing in the group to kill,
 * the fault fails with VM_FAULT_OOM and is retried (mm/memcontrol.c
 * mem_cgroup_oom() declines, pagefault_out_of_memory() returns), for as
 * long as the group stays full. That is by design, not a stall to report;
 * what must hold is that the task stays killable: gone within KILL_MS of
 * a SIGKILL. Any worker that is not mlocked can meet it after its action
 * has its outcome: a page of its own code, charged to the group when it
 * first ran and reclaimed while the group filled, is faulted back on the
 * way out and cannot be charged (seen once in a full run: tmpfs_create,
 * ENOSPC after 9116 steps, then 3661 major faults and memory.events max
 * +66404 in 8 s). Its outcome is judged as usual, after the kill.
 *
 * Every test runs under the stall detector (stall.h): no progress for
 * STALL_MS while memory.events "max" climbs prints "# stall: ..." with the
 * evidence, kills the group and fails (the runner's "hang").
 *
 * The "group" tests check memory.oom.group, the victim choice by
 * oom_score_adj, and that memory.high throttles without stalling forever.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "cgroup.h"
#include "stall.h"
#include "util.h"

#define MB (1024L * 1024)
/* memory.max of the group. */
#define LIMIT (8 * MB)
/* What forced (__GFP_NOFAIL) charges may add to memory.max. */
#define OVERSHOOT (LIMIT / 16)
/* No progress this long while reclaim climbs is a stall. */
#define STALL_MS 8000
/* The outcome of a regime must come within this. */
#define OUTCOME_MS 20000
/* Per test: setup (mkfs), the outcome, a stall report and teardown. */
#define TEST_TIMEOUT 60
/*
 * A task retrying a fault returns to user space between tries, where a
 * SIGKILL is taken: 5 ms measured here (UML, 2 cores, a kernel build
 * beside it); the bound allows for a slower machine.
 */
#define KILL_MS 2000
/* Destroying the group, bounded. */
#define DESTROY_MS 5000
/* Memory the bystander outside the group holds. */
#define BYSTANDER_BYTES MB
/* Bytes a write step writes, and an xattr value's size. */
#define CHUNK (64 << 10)
#define XATTR_SIZE 4000
/* Open files a worker may hold: the pipe and socketpair steps keep theirs. */
#define NOFILE 65536

/* Between the test and its worker; the test faults it in (its own charge). */
struct shared {
	/* Steps done, and the last one's result: 0, -errno, or 1 (short). */
	long long steps;
	int result;
	/* The loop ended: by a failed step, or after "cap" steps. */
	int finished;
	int capped;
	/* Where the worker's setup failed, and how. */
	char setup_error[80];
};

enum fs_kind { FS_NONE, FS_TMPFS, FS_XFS };

struct work;

struct action {
	/* For the metrics line and the stall report. */
	const char *name;
	enum fs_kind fs;
	/* Bytes charged per step, roughly: 4 * LIMIT of them cap the loop. */
	long step_bytes;
	/* What the steps charge can be reclaimed (clean page cache, inodes). */
	bool reclaimable;
	/* Once in the worker, before the steps; 0 or -errno. */
	int (*prepare)(struct work *w);
	/* One step: 0, -errno, or 1 for a short count. */
	int (*step)(struct work *w, long i);
	/* Errors a failed step may end with, 0-terminated. */
	int errnos[4];
	/* Steps charge in page faults too, which retry when unkillable. */
	bool faults;
};

struct work {
	const struct action *act;
	struct shared *sh;
	/* The filesystem the steps use, and a file in it. */
	int dirfd;
	int fd;
	/* CHUNK bytes to write from, made before the fork (not charged). */
	const char *buf;
	long cap;
	/* The regime. */
	int oom_score_adj;
	bool mlock;
};

/* The steps. */

static int step_create(struct work *w, long i)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "f%ld", i);
	fd = openat(w->dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int step_mkdir(struct work *w, long i)
{
	char name[32];

	snprintf(name, sizeof(name), "d%ld", i);
	return mkdirat(w->dirfd, name, 0700) ? -errno : 0;
}

/* A pipe, filled until it would block: the buffers are charged pages. */
static int step_pipe(struct work *w, long i)
{
	int p[2], n;

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		return -errno;
	for (;;) {
		n = write(p[1], w->buf, 4096);
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n < 4096)
			return 1;
	}
}

static int step_socketpair(struct work *w, long i)
{
	int sv[2];

	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ? -errno :
									0;
}

static int prepare_file(struct work *w)
{
	w->fd = openat(w->dirfd, "data", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	return w->fd < 0 ? -errno : 0;
}

static int step_write(struct work *w, long i)
{
	ssize_t n = write(w->fd, w->buf, CHUNK);

	if (n < 0)
		return -errno;
	return n < CHUNK ? 1 : 0;
}

static int step_xattr(struct work *w, long i)
{
	char name[32];

	snprintf(name, sizeof(name), "trusted.x%ld", i);
	return fsetxattr(w->fd, name, w->buf, XATTR_SIZE, XATTR_CREATE) ?
		       -errno :
		       0;
}

/* A child that sleeps until the worker dies: a task, a stack, tables. */
static int step_fork(struct work *w, long i)
{
	pid_t pid = fork_bound();

	if (pid < 0)
		return -errno;
	if (!pid) {
		for (;;)
			pause();
	}
	return 0;
}

/* Anonymous memory written page by page: a fault cannot return ENOMEM. */
static int step_mmap_touch(struct work *w, long i)
{
	char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long off;

	if (p == MAP_FAILED)
		return -errno;
	for (off = 0; off < CHUNK; off += 4096)
		p[off] = 1;
	return 0;
}

/* The same memory faulted in by madvise(), which can return ENOMEM. */
static int step_madv_populate(struct work *w, long i)
{
	char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	return madvise(p, CHUNK, MADV_POPULATE_WRITE) ? -errno : 0;
}

/* The worker, inside the group. */
static int worker(void *arg)
{
	struct rlimit rl = { NOFILE, NOFILE };
	struct work *w = arg;
	struct shared *sh = w->sh;
	char adj[16];
	int fd, ret;
	long i;

	snprintf(adj, sizeof(adj), "%d", w->oom_score_adj);
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, adj, strlen(adj)) < 0) {
		snprintf(sh->setup_error, sizeof(sh->setup_error),
			 "writing oom_score_adj %s: %s", adj, strerror(errno));
		return 1;
	}
	close(fd);
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		snprintf(sh->setup_error, sizeof(sh->setup_error),
			 "RLIMIT_NOFILE %d: %s", NOFILE, strerror(errno));
		return 1;
	}
	if (w->act->prepare) {
		ret = w->act->prepare(w);
		if (ret) {
			snprintf(sh->setup_error, sizeof(sh->setup_error),
				 "preparing: %s", strerror(-ret));
			return 1;
		}
	}
	if (w->mlock && mlockall(MCL_CURRENT)) {
		snprintf(sh->setup_error, sizeof(sh->setup_error),
			 "mlockall: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < w->cap; i++) {
		ret = w->act->step(w, i);
		sh->result = ret;
		sh->steps++;
		if (ret)
			break;
	}
	sh->capped = i == w->cap;
	sh->finished = 1;
	return 0;
}

/* The bystander, outside the group: holds some memory and waits. */
static pid_t spawn_bystander(void)
{
	pid_t pid;
	char *p;

	fflush(NULL);
	pid = fork_bound();
	if (pid)
		return pid < 0 ? -errno : pid;
	p = malloc(BYSTANDER_BYTES);
	if (p)
		memset(p, 1, BYSTANDER_BYTES);
	for (;;)
		pause();
}

/* Skip reasons too long for one line. */
#define REASON_NO_SUBTREE \
	"memory is not in the root's cgroup.subtree_control: echo +memory > .../cgroup.subtree_control"
#define REASON_NO_DEV \
	"OOM_SCRATCH_DEV unset: name a spare block device this test may mkfs.xfs -f"

/* A fresh group under the cgroup2 root, with the memory controller. */
static const char *make_group(char *cg, size_t size, const char *name,
			      long long max)
{
	static char why[400];
	char root[CG_PATH_MAX], leaf[64];
	int ret;

	ret = cgrp_find_root(root, sizeof(root));
	if (ret)
		return "no cgroup2 mount: mount -t cgroup2 none /sys/fs/cgroup";
	ret = cgrp_has_controller(root, "memory");
	if (ret <= 0)
		return "no memory controller in the cgroup2 root (CONFIG_MEMCG, cgroup_no_v1)";
	snprintf(leaf, sizeof(leaf), "toosmall-%s-%d", name, getpid());
	ret = cgrp_create(cg, size, root, leaf);
	if (ret) {
		snprintf(why, sizeof(why), "creating %s/%s: %s", root, leaf,
			 strerror(-ret));
		return why;
	}
	ret = cgrp_has_controller(cg, "memory");
	if (ret <= 0) {
		cgrp_destroy(cg, DESTROY_MS);
		return REASON_NO_SUBTREE;
	}
	ret = cgrp_write_long(cg, "memory.max", max);
	if (!ret) {
		/* No swap: what is charged stays charged. */
		ret = cgrp_write(cg, "memory.swap.max", "0");
		if (ret == -ENOENT)
			ret = 0;
	}
	if (ret) {
		snprintf(why, sizeof(why), "setting memory.max: %s",
			 strerror(-ret));
		cgrp_destroy(cg, DESTROY_MS);
		return why;
	}
	return NULL;
}

static long long event(const char *cg, const char *key)
{
	long long v = 0;

	cgrp_read_key(cg, "memory.events", key, &v);
	return v;
}

FIXTURE(charge)
{
	char cg[CG_PATH_MAX];
	char dir[64];
	bool mounted;
	struct work w;
	pid_t worker, bystander;
	int status;
	bool reaped;
};

FIXTURE_VARIANT(charge)
{
	const struct action act;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(charge, tmpfs_create) {
	.act = { "tmpfs_create", FS_TMPFS, 1024, false, NULL, step_create, { ENOMEM, ENOSPC } },
};

FIXTURE_VARIANT_ADD(charge, tmpfs_mkdir) {
	.act = { "tmpfs_mkdir", FS_TMPFS, 1024, false, NULL, step_mkdir, { ENOMEM, ENOSPC } },
};

FIXTURE_VARIANT_ADD(charge, xfs_create) {
	.act = { "xfs_create", FS_XFS, 1024, true, NULL, step_create, { ENOMEM, ENOSPC } },
};

FIXTURE_VARIANT_ADD(charge, xfs_mkdir) {
	.act = { "xfs_mkdir", FS_XFS, 1024, true, NULL, step_mkdir, { ENOMEM, ENOSPC } },
};

FIXTURE_VARIANT_ADD(charge, pipe) {
	.act = { "pipe", FS_NONE, CHUNK, false, NULL, step_pipe, { ENOMEM, ENFILE } },
};

FIXTURE_VARIANT_ADD(charge, socketpair) {
	.act = { "socketpair", FS_NONE, 2048, false, NULL, step_socketpair,
		 { ENOMEM, ENFILE, ENOBUFS } },
};

FIXTURE_VARIANT_ADD(charge, tmpfs_write) {
	.act = { "tmpfs_write", FS_TMPFS, CHUNK, false, prepare_file, step_write,
		 { ENOMEM, ENOSPC } },
};

FIXTURE_VARIANT_ADD(charge, xfs_write) {
	.act = { "xfs_write", FS_XFS, CHUNK, true, prepare_file, step_write,
		 { ENOMEM, ENOSPC } },
};

FIXTURE_VARIANT_ADD(charge, xattr) {
	.act = { "xattr", FS_TMPFS, XATTR_SIZE, false, prepare_file, step_xattr,
		 { ENOMEM, ENOSPC } },
};

FIXTURE_VARIANT_ADD(charge, fork) {
	.act = { "fork", FS_NONE, 16384, false, NULL, step_fork, { ENOMEM, EAGAIN }, true },
};

FIXTURE_VARIANT_ADD(charge, mmap_touch) {
	.act = { "mmap_touch", FS_NONE, CHUNK, false, NULL, step_mmap_touch, { ENOMEM }, true },
};

FIXTURE_VARIANT_ADD(charge, madv_populate) {
	.act = { "madv_populate", FS_NONE, CHUNK, false, NULL, step_madv_populate, { ENOMEM } },
};

/* clang-format on */

/*
 * A private mount namespace with the action's filesystem on a fresh
 * directory, the group, and a bystander outside it.
 */
FIXTURE_SETUP(charge)
{
	const struct action *act = &variant->act;
	const char *dev = getenv("OOM_SCRATCH_DEV");
	const char *why;
	char reason[128];
	int ret;

	self->worker = 0;
	self->bystander = 0;
	self->mounted = false;
	self->dir[0] = '\0';
	self->w.dirfd = -1;
	if (act->fs == FS_XFS && (!dev || !*dev))
		SKIP(return, REASON_NO_DEV);
	if (act->step == step_madv_populate) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, p);
		ret = madvise(p, 4096, MADV_POPULATE_WRITE) ? errno : 0;
		munmap(p, 4096);
		if (ret == EINVAL)
			SKIP(return, "MADV_POPULATE_WRITE needs Linux 5.14");
	}
	if (act->fs != FS_NONE) {
		ret = private_mounts(reason, sizeof(reason));
		if (ret > 0)
			SKIP(return, "%s", reason);
		ASSERT_EQ(0, ret)
		{
			TH_LOG("%s", reason);
		}
		snprintf(self->dir, sizeof(self->dir), "/tmp/memcg.XXXXXX");
		ASSERT_NE(NULL, mkdtemp(self->dir));
	}
	if (act->fs == FS_XFS) {
		ret = xfs_mount_fresh(dev, self->dir, reason, sizeof(reason));
		if (ret > 0)
			SKIP(goto undo_dir, "%s", reason);
		ASSERT_EQ(0, ret)
		{
			TH_LOG("%s", reason);
		}
		self->mounted = true;
	} else if (act->fs == FS_TMPFS) {
		/* Unlimited: the group's limit is what must stop the steps. */
		ASSERT_EQ(0, mount("memcg", self->dir, "tmpfs", 0,
				   "size=0,nr_inodes=0,mode=0700"))
		{
			TH_LOG("mounting a tmpfs: %s", strerror(errno));
		}
		self->mounted = true;
	}
	if (self->mounted) {
		self->w.dirfd = open(self->dir, O_RDONLY | O_DIRECTORY);
		ASSERT_LE(0, self->w.dirfd);
	}

	why = make_group(self->cg, sizeof(self->cg), "memcg", LIMIT);
	if (why)
		SKIP(goto undo_dir, "%s", why);

	self->w.sh = mmap(NULL, sizeof(*self->w.sh), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->w.sh);
	memset(self->w.sh, 0, sizeof(*self->w.sh));
	self->w.buf = malloc(CHUNK);
	ASSERT_NE(NULL, self->w.buf);
	memset((char *)self->w.buf, 'x', CHUNK);
	self->w.act = act;
	self->w.fd = -1;
	self->w.cap = 4 * LIMIT / act->step_bytes;
	self->bystander = spawn_bystander();
	ASSERT_LT(0, self->bystander);
	return;

undo_dir:
	if (self->mounted)
		umount2(self->dir, MNT_DETACH);
	if (self->dir[0])
		rmdir(self->dir);
}

FIXTURE_TEARDOWN(charge)
{
	int status, ret;

	/* Reaped first: an unreaped worker can keep the group busy. */
	if (self->worker > 0 && !self->reaped) {
		kill(self->worker, SIGKILL);
		EXPECT_EQ(0, cgrp_wait_pid(self->worker, &status, DESTROY_MS));
	}
	ret = cgrp_destroy(self->cg, DESTROY_MS);
	EXPECT_EQ(0, ret)
	{
		TH_LOG("removing %s: %s", self->cg, strerror(-ret));
	}
	if (self->bystander > 0) {
		kill(self->bystander, SIGKILL);
		EXPECT_EQ(0,
			  cgrp_wait_pid(self->bystander, &status, DESTROY_MS));
	}
	if (self->w.dirfd >= 0)
		close(self->w.dirfd);
	if (self->mounted)
		EXPECT_EQ(0, umount2(self->dir, MNT_DETACH));
	if (self->dir[0])
		EXPECT_EQ(0, rmdir(self->dir));
}

struct regime {
	const char *name;
	int oom_score_adj;
	bool mlock;
};

static const struct regime killable = { "killable", 0, false };
static const struct regime mlocked = { "mlocked", -1000, true };
static const struct regime unkillable = { "unkillable", -1000, false };

/* What the watch needs: the worker, reaped once it exits. */
struct charge_watch {
	FIXTURE_DATA(charge) * self;
	const struct regime *regime;
};

static bool charge_done(void *arg)
{
	struct charge_watch *cw = arg;

	if (!cw->self->reaped && waitpid(cw->self->worker, &cw->self->status,
					 WNOHANG) == cw->self->worker)
		cw->self->reaped = true;
	if (cw->self->reaped)
		return true;
	/* The outcome of the killable regime: any kill in the group. */
	return cw->regime == &killable && event(cw->self->cg, "oom_kill") > 0;
}

static long long charge_progress(void *arg)
{
	struct charge_watch *cw = arg;

	return cw->self->w.sh->steps;
}

static bool allowed(const struct action *act, int err)
{
	int i;

	for (i = 0; i < 4 && act->errnos[i]; i++)
		if (act->errnos[i] == err)
			return true;
	return false;
}

/* "ENOMEM", or the number: for the metrics' errno histogram. */
static const char *errname(int err)
{
	static char num[16];

	switch (err) {
	case ENOMEM:
		return "ENOMEM";
	case ENOSPC:
		return "ENOSPC";
	case ENFILE:
		return "ENFILE";
	case EMFILE:
		return "EMFILE";
	case EAGAIN:
		return "EAGAIN";
	case ENOBUFS:
		return "ENOBUFS";
	}
	snprintf(num, sizeof(num), "E%d", err);
	return num;
}

/* The metrics line of one action in one regime. */
#define CHARGE_FMT \
	"memcg %s.%s: secs=%.2f steps=%lld short=%d capped=%d oom=%lld oom_kill=%lld max=%lld peak_kb=%lld%s\n"

/* SIGKILLs the worker: the ms until it was reaped, or -1 after @ms. */
static long kill_worker(FIXTURE_DATA(charge) * self, long ms)
{
	long waited;

	if (self->reaped)
		return 0;
	if (kill(self->worker, SIGKILL))
		return -1;
	for (waited = 0; waited <= ms; waited += 5) {
		if (waitpid(self->worker, &self->status, WNOHANG) ==
		    self->worker) {
			self->reaped = true;
			return waited;
		}
		usleep(5 * 1000);
	}
	return -1;
}

/* A faulting worker with nothing to kill, ended by SIGKILL: the figure. */
#define KILLED_FMT \
	"memcg %s.%s.killed: ms=%ld bound=%d (a fault retried%s, nothing to kill)\n"

/*
 * Runs the variant's action in the regime, under the stall detector, and
 * checks its outcome; see the top of the file.
 */
static void run_regime(struct __test_metadata *_metadata,
		       FIXTURE_DATA(charge) * self,
		       const FIXTURE_VARIANT(charge) * variant,
		       const struct regime *regime)
{
	const struct action *act = &variant->act;
	struct charge_watch cw = { self, regime };
	struct stall_watch sw = {
		.cg = self->cg,
		.stall_ms = STALL_MS,
		.deadline_ms = OUTCOME_MS,
		.done = charge_done,
		.progress = charge_progress,
		.arg = &cw,
	};
	struct shared *sh = self->w.sh;
	long long oom_kill, oom, max, peak = 0;
	struct stall_result res;
	bool killed = false;
	long killed_ms;
	char hist[32] = "";
	int status;

	self->w.oom_score_adj = regime->oom_score_adj;
	self->w.mlock = regime->mlock;
	self->worker = cgrp_spawn(self->cg, worker, &self->w);
	ASSERT_LT(0, self->worker);
	sw.pids[sw.nr_pids++] = self->worker;
	ASSERT_EQ(0, stall_watch(&sw, &res));

	oom_kill = event(self->cg, "oom_kill");
	oom = event(self->cg, "oom");
	max = event(self->cg, "max");
	cgrp_read_long(self->cg, "memory.peak", &peak);
	if (sh->finished && sh->result < 0)
		snprintf(hist, sizeof(hist), " (%s:1)", errname(-sh->result));
	ksft_print_msg(CHARGE_FMT, act->name, regime->name,
		       res.elapsed_ms / 1000.0, sh->steps,
		       sh->finished && sh->result == 1, sh->capped, oom,
		       oom_kill, max, peak >> 10, hist);
	fflush(stdout);

	if (stall_is_stall(&res) && (act->faults || sh->finished) &&
	    regime != &killable && res.verdict == STALL_SPINNING) {
		/* A fault retrying with nothing to kill: see the top. */
		killed_ms = kill_worker(self, KILL_MS);
		if (killed_ms >= 0) {
			ksft_print_msg(KILLED_FMT, act->name, regime->name,
				       killed_ms, KILL_MS,
				       sh->finished ? " after the action" : "");
			/* Finished: its outcome is judged below. */
			if (!sh->finished)
				return;
			killed = true;
		}
	}
	if (stall_is_stall(&res) && !killed) {
		stall_report(&sw, &res, act->name);
		ASSERT_FALSE(stall_is_stall(&res))
		{
			TH_LOG("%s, %s: no forward progress for %lld ms, memory.events max +%lld",
			       act->name, regime->name, res.idle_ms,
			       res.reclaim_while_idle);
		}
	}
	ASSERT_EQ('\0', sh->setup_error[0])
	{
		TH_LOG("worker setup: %s", sh->setup_error);
	}

	/* The bystander outside the group is never touched. */
	EXPECT_EQ(0, waitpid(self->bystander, &status, WNOHANG))
	{
		TH_LOG("bystander outside the group died: status 0x%x", status);
	}
	/* __GFP_NOFAIL charges (XFS) may overshoot max a little, no more. */
	EXPECT_LE(peak, LIMIT + OVERSHOOT)
	{
		TH_LOG("memory.peak %lld over memory.max %ld by more than %ld",
		       peak, LIMIT, OVERSHOOT);
	}
	if (sh->capped) {
		/* 4 * LIMIT charged and kept: only reclaim may explain it. */
		EXPECT_TRUE(act->reclaimable)
		{
			TH_LOG("%lld steps of ~%ld bytes kept under a %ld limit: not charged?",
			       sh->steps, act->step_bytes, LIMIT);
		}
		return;
	}

	if (regime == &killable) {
		ASSERT_NE(STALL_SLOW, res.verdict)
		{
			TH_LOG("no OOM kill within %d ms, %lld steps done",
			       OUTCOME_MS, sh->steps);
		}
		EXPECT_LE(1, oom_kill)
		{
			TH_LOG("ended without an OOM kill: step result %d (%s), worker status 0x%x",
			       sh->result,
			       sh->result < 0 ? strerror(-sh->result) : "-",
			       self->status);
		}
		return;
	}

	/* Unkillable: nothing in the group may be killed. */
	EXPECT_EQ(0, oom_kill);
	if (res.verdict == STALL_SLOW) {
		/* Still making progress at the deadline. */
		EXPECT_EQ(&unkillable, regime)
		{
			TH_LOG("no ENOMEM within %d ms, %lld steps done",
			       OUTCOME_MS, sh->steps);
		}
		return;
	}
	ASSERT_TRUE(killed ||
		    (WIFEXITED(self->status) && !WEXITSTATUS(self->status)))
	{
		TH_LOG("worker status 0x%x", self->status);
	}
	ASSERT_TRUE(sh->result == 1 || allowed(act, -sh->result))
	{
		TH_LOG("step %lld failed with %s, not a clean error", sh->steps,
		       strerror(-sh->result));
	}
}

/*
 * Killable: the charge that does not fit invokes the OOM killer, which
 * kills a task of the group within OUTCOME_MS; the bystander lives.
 */
TEST_F_TIMEOUT(charge, killable_is_oom_killed, TEST_TIMEOUT)
{
	run_regime(_metadata, self, variant, &killable);
}

/*
 * oom_score_adj -1000 and mlockall(): nothing to kill, nothing to
 * reclaim. The syscall must fail cleanly (ENOMEM, or a short count) within
 * OUTCOME_MS, and nothing is killed.
 */
TEST_F_TIMEOUT(charge, mlocked_fails_cleanly, TEST_TIMEOUT)
{
	run_regime(_metadata, self, variant, &mlocked);
}

/*
 * oom_score_adj -1000 without mlock: the task must make forward progress
 * (successful calls, a clean error) within OUTCOME_MS, never stall.
 */
TEST_F_TIMEOUT(charge, unkillable_progresses, TEST_TIMEOUT)
{
	run_regime(_metadata, self, variant, &unkillable);
}

/* A task of the "group" tests: touches memory, then waits or exits. */
struct toucher {
	long bytes;
	const char *adj;
	/* After touching: pause (a sleeper) or exit 0 (the hog). */
	bool stay;
	/* Bytes touched so far, for the stall detector. */
	long long *touched;
};

static int toucher(void *arg)
{
	struct toucher *t = arg;
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	long off;
	char *p;

	if (fd < 0 || write(fd, t->adj, strlen(t->adj)) < 0)
		return 1;
	close(fd);
	for (off = 0; off < t->bytes; off += CHUNK) {
		p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 2;
		memset(p, 1, CHUNK);
		*t->touched += CHUNK;
	}
	while (t->stay)
		pause();
	return 0;
}

#define GROUP_TASKS 3

FIXTURE(group)
{
	char cg[CG_PATH_MAX];
	/* Shared with the tasks: what each touched. */
	long long *touched;
	struct toucher t[GROUP_TASKS];
	pid_t pid[GROUP_TASKS];
	int status[GROUP_TASKS];
	bool reaped[GROUP_TASKS];
	/* The tasks whose end is the outcome. */
	unsigned int wait_mask;
};

FIXTURE_SETUP(group)
{
	const char *why;

	memset(self->pid, 0, sizeof(self->pid));
	memset(self->reaped, 0, sizeof(self->reaped));
	why = make_group(self->cg, sizeof(self->cg), "group", LIMIT);
	if (why)
		SKIP(return, "%s", why);
	self->touched = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->touched);
	memset(self->touched, 0, 4096);
}

FIXTURE_TEARDOWN(group)
{
	int i;

	EXPECT_EQ(0, cgrp_destroy(self->cg, DESTROY_MS));
	for (i = 0; i < GROUP_TASKS; i++) {
		if (self->pid[i] <= 0 || self->reaped[i])
			continue;
		kill(self->pid[i], SIGKILL);
		EXPECT_EQ(0, cgrp_wait_pid(self->pid[i], &self->status[i],
					   DESTROY_MS));
	}
}

static bool group_done(void *arg)
{
	struct _test_data_group *self = arg;
	bool done = true;
	int i;

	for (i = 0; i < GROUP_TASKS; i++) {
		if (self->pid[i] > 0 && !self->reaped[i] &&
		    waitpid(self->pid[i], &self->status[i], WNOHANG) ==
			    self->pid[i])
			self->reaped[i] = true;
		if ((self->wait_mask & (1U << i)) && !self->reaped[i])
			done = false;
	}
	return done;
}

static long long group_progress(void *arg)
{
	struct _test_data_group *self = arg;
	long long sum = 0;
	int i;

	for (i = 0; i < GROUP_TASKS; i++)
		sum += self->touched[i] + self->reaped[i];
	return sum;
}

/* Starts task @i: @bytes touched at oom_score_adj @adj. */
static pid_t group_spawn(FIXTURE_DATA(group) * self, int i, long bytes,
			 const char *adj, bool stay)
{
	self->t[i] = (struct toucher){ bytes, adj, stay, &self->touched[i] };
	self->pid[i] = cgrp_spawn(self->cg, toucher, &self->t[i]);
	return self->pid[i];
}

/* Waits for the outcome under the stall detector; false on a stall. */
static bool group_watch(struct __test_metadata *_metadata,
			FIXTURE_DATA(group) * self, const char *what,
			long deadline_ms, struct stall_result *res)
{
	struct stall_watch sw = {
		.cg = self->cg,
		.stall_ms = STALL_MS,
		.deadline_ms = deadline_ms,
		.done = group_done,
		.progress = group_progress,
		.arg = self,
	};
	int i;

	for (i = 0; i < GROUP_TASKS; i++)
		if (self->pid[i] > 0)
			sw.pids[sw.nr_pids++] = self->pid[i];
	if (stall_watch(&sw, res))
		return false;
	if (stall_is_stall(res)) {
		stall_report(&sw, res, what);
		return false;
	}
	return true;
}

static bool sigkilled(int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/*
 * memory.oom.group 1: the OOM kill of the hog takes the two sleepers of
 * the group with it, within OUTCOME_MS.
 */
#define OOM_GROUP_FMT \
	"memcg oom_group: secs=%.2f oom_kill=%lld oom_group_kill=%lld\n"

TEST_F_TIMEOUT(group, oom_group_kills_whole_group, TEST_TIMEOUT)
{
	struct stall_result res;
	long long group_kill = -1;
	bool watched;
	int i;

	ASSERT_EQ(0, cgrp_write(self->cg, "memory.oom.group", "1"));
	ASSERT_LT(0, group_spawn(self, 0, MB / 2, "0", true));
	ASSERT_LT(0, group_spawn(self, 1, MB / 2, "0", true));
	while (self->touched[0] < MB / 2 || self->touched[1] < MB / 2)
		cgrp_sleep_ms(10);
	ASSERT_LT(0, group_spawn(self, 2, 4 * LIMIT, "0", false));
	self->wait_mask = 7;
	watched = group_watch(_metadata, self, "oom.group", OUTCOME_MS, &res);
	ASSERT_TRUE(watched);
	cgrp_read_key(self->cg, "memory.events", "oom_group_kill", &group_kill);
	ksft_print_msg(OOM_GROUP_FMT, res.elapsed_ms / 1000.0,
		       event(self->cg, "oom_kill"), group_kill);
	ASSERT_EQ(STALL_DONE, res.verdict)
	{
		TH_LOG("the group still had tasks after %d ms", OUTCOME_MS);
	}
	for (i = 0; i < GROUP_TASKS; i++) {
		int st = self->status[i];

		EXPECT_TRUE(sigkilled(st))
		{
			TH_LOG("task %d: status 0x%x, not SIGKILL", i, st);
		}
	}
	EXPECT_LE(GROUP_TASKS, event(self->cg, "oom_kill"));
}

/*
 * oom_score_adj picks the victim: Y (2 MB, adj 1000) dies, not the larger
 * X (3 MB, adj 0); the hog (adj -1000) then finishes its 4 MB.
 */
TEST_F_TIMEOUT(group, oom_score_adj_picks_victim, TEST_TIMEOUT)
{
	struct stall_result res;

	ASSERT_LT(0, group_spawn(self, 0, 3 * MB, "0", true));
	ASSERT_LT(0, group_spawn(self, 1, 2 * MB, "1000", true));
	while (self->touched[0] < 3 * MB || self->touched[1] < 2 * MB)
		cgrp_sleep_ms(10);
	ASSERT_LT(0, group_spawn(self, 2, 4 * MB, "-1000", false));
	self->wait_mask = 6;
	ASSERT_TRUE(group_watch(_metadata, self, "oom_score_adj", OUTCOME_MS,
				&res));
	ksft_print_msg("memcg oom_score_adj: secs=%.2f oom_kill=%lld\n",
		       res.elapsed_ms / 1000.0, event(self->cg, "oom_kill"));
	ASSERT_EQ(STALL_DONE, res.verdict);
	EXPECT_TRUE(sigkilled(self->status[1]))
	{
		TH_LOG("Y (adj 1000): status 0x%x", self->status[1]);
	}
	EXPECT_FALSE(self->reaped[0])
	{
		TH_LOG("X (adj 0, larger) died: status 0x%x", self->status[0]);
	}
	EXPECT_TRUE(WIFEXITED(self->status[2]) && !WEXITSTATUS(self->status[2]))
	{
		TH_LOG("the hog: status 0x%x", self->status[2]);
	}
	EXPECT_EQ(1, event(self->cg, "oom_kill"));
}

/* memory.high, and what a task touches over it. */
#define HIGH (4 * MB)
#define OVER_HIGH (2 * MB)
#define HIGH_MS 40000

/*
 * memory.high 4 MB, memory.max 16 MB: a task touching 6 MB is throttled
 * (memory.events high climbs) but finishes within HIGH_MS, never stalls,
 * never meets the OOM killer.
 */
#define HIGH_FMT \
	"memcg high: secs=%.2f touched_kb=%lld high=%lld max=%lld oom_kill=%lld\n"

TEST_F_TIMEOUT(group, high_throttles_not_forever, TEST_TIMEOUT)
{
	struct stall_result res;

	ASSERT_EQ(0, cgrp_write_long(self->cg, "memory.max", 2 * LIMIT));
	ASSERT_EQ(0, cgrp_write_long(self->cg, "memory.high", HIGH));
	ASSERT_LT(0, group_spawn(self, 0, HIGH + OVER_HIGH, "0", false));
	self->wait_mask = 1;
	ASSERT_TRUE(group_watch(_metadata, self, "memory.high", HIGH_MS, &res));
	ksft_print_msg(HIGH_FMT, res.elapsed_ms / 1000.0,
		       self->touched[0] >> 10, event(self->cg, "high"),
		       event(self->cg, "max"), event(self->cg, "oom_kill"));
	ASSERT_EQ(STALL_DONE, res.verdict)
	{
		TH_LOG("touched %lld of %ld bytes in %d ms", self->touched[0],
		       HIGH + OVER_HIGH, HIGH_MS);
	}
	EXPECT_TRUE(WIFEXITED(self->status[0]) && !WEXITSTATUS(self->status[0]))
	{
		TH_LOG("status 0x%x", self->status[0]);
	}
	EXPECT_LT(0, event(self->cg, "high"));
	EXPECT_EQ(0, event(self->cg, "oom_kill"));
}

TEST_HARNESS_MAIN
