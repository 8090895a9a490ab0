// SPDX-License-Identifier: GPL-2.0
/*
 * Whole commands while their small allocations fail, one at a time.
 *
 * Each variant is a workload: busybox's tar extracting a tree onto a fresh
 * XFS, cpio archiving it, cat reading procfs (system-wide files, then the
 * process's own and sysfs attributes). The command runs with the
 * n-th failslab or fail_page_alloc point of its own process made to fail,
 * for n = 1, 2, ... until a run ends without the fault firing, or the
 * variant's cap (failnth_child.h, workload). Each run must exit 0 with
 * its whole effect (the same tree, or the same output as the unarmed run),
 * or exit non-zero naming an allowed errno on stderr, within its deadline;
 * what it left must be removable; no child stays behind. After the sweep
 * the source tree must be as it was, and xfs_repair -n must find nothing
 * wrong on the unmounted filesystem.
 *
 * The workloads reach what the per-call sweeps do not: a command's own
 * start-up (page tables, page cache of its image), XFS inode, directory
 * and extent allocation over many files, seq_file readers. Only the
 * command's process is armed (fail-nth is not inherited). They run in the
 * "both" mode alone: each point of either allocator fails in turn, and the
 * per-allocator modes would re-run the same sites.
 *
 * A command is an oracle only where it reports what failed. Not here for
 * that reason: busybox cp -a and rm -r, whose opendir() failures exit 1
 * with nothing on stderr (the fault: getname() under openat(), ENOMEM).
 * Not here for its cost: xfs_io, whose dynamic loader must be stepped
 * through, syscall by syscall, to its first open of the file (about 0.4 s
 * a point in UML; arming at exec instead sweeps the loader, which dies of
 * SIGSEGV when an early mmap() fails with ENOMEM).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "failnth_child.h"
#include "util.h"

/* Per test; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 120
/* One run of a command, armed: a stall beyond this is a hang. */
#define POINT_S 20

#define BUSYBOX "/bin/busybox"
#define XFS_REPAIR "/usr/sbin/xfs_repair"
/* The scratch XFS, in the test's own mount namespace. */
#define MNT "/tmp/failnth-work"
#define SRC MNT "/src"
#define OUT MNT "/out"
#define TAR "/tmp/failnth-work.tar"
#define LIST "/tmp/failnth-work.list"
#define REASON_NO_DEV \
	"OOM_SCRATCH_DEV unset: name a spare block device this test may mkfs.xfs -f"

/*
 * What a workload may fail with: the allocation, or EFAULT when the page
 * behind the command's own buffer cannot be allocated while the kernel
 * copies to it. The fault handler then has no page to give, and a fault
 * in kernel mode ends in the uaccess fixup: arch/x86/mm/fault.c,
 * do_user_addr_fault() ("VM_FAULT_OOM ... Kernel mode? Handle exceptions
 * or die"), and UML's arch/um/kernel/skas/uaccess.c, maybe_map(). Seen
 * with read() of a seq_file: __pmd_alloc() failed under
 * raw_copy_to_user().
 */
static const int work_errnos[] = { ENOMEM, EFAULT, 0 };

/* Each entry's digest, to name the first that differs. */
#define DIGEST_ENTRIES 64
struct digest_list {
	int nr;
	struct digest_entry {
		char rel[240];
		uint64_t h;
	} e[DIGEST_ENTRIES];
};

enum work_check {
	/* OUT/copy holds a copy of SRC. */
	WORK_COPY,
	/* Nothing but stdout. */
	WORK_NONE,
};

struct work_state {
	enum work_check what;
	/* SRC's digest, and without the attributes, with its entries. */
	uint64_t src_digest;
	uint64_t src_plain;
	struct digest_list src_list;
};

FIXTURE(work)
{
	struct work_state st;
	bool mounted;
	bool made_dir;
};

FIXTURE_VARIANT(work)
{
	const char *scenario;
	char *const *argv;
	enum work_check what;
	int max_points;
	const char *success_unseen;
	/* In the child, before the command. */
	int (*prepare)(void *arg);
	/* Armed at its first call of this syscall on this path (prefix). */
	long arm_nr;
	const char *arm_path;
};

static struct digest_list *digest_list;
static const char *digest_root;
static uint64_t digest_sum;
static int digest_err;
/* Whether permission bits and a file's mtime count. */
static bool digest_attrs;

static int digest_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	static char buf[65536];
	uint64_t h = FNV1A_INIT;
	const char *rel = path + strlen(digest_root);
	unsigned int mode = st->st_mode & (digest_attrs ? ~0U : S_IFMT);
	ssize_t n;
	int fd;

	(void)ftw;
	h = fnv1a(h, rel, strlen(rel));
	h = fnv1a(h, &mode, sizeof(mode));
	if (S_ISREG(st->st_mode)) {
		h = fnv1a(h, &st->st_size, sizeof(st->st_size));
		h = fnv1a(h, &st->st_nlink, sizeof(st->st_nlink));
		if (digest_attrs)
			h = fnv1a(h, &st->st_mtime, sizeof(st->st_mtime));
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			digest_err = -errno;
			return 1;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			h = fnv1a(h, buf, n);
		if (n < 0)
			digest_err = -errno;
		close(fd);
	} else if (S_ISLNK(st->st_mode)) {
		n = readlink(path, buf, sizeof(buf));
		if (n < 0)
			digest_err = -errno;
		else
			h = fnv1a(h, buf, n);
	} else if (type == FTW_NS || type == FTW_DNR) {
		digest_err = -EIO;
	}
	/* A sum: the order readdir() gives does not matter. */
	digest_sum += h;
	if (digest_list && digest_list->nr < DIGEST_ENTRIES) {
		struct digest_entry *e = &digest_list->e[digest_list->nr++];

		snprintf(e->rel, sizeof(e->rel), "%s", rel);
		e->h = h;
	}
	return digest_err ? 1 : 0;
}

/* The digest of the tree at @root (names relative to it), or 0 on error. */
static uint64_t digest(const char *root, bool attrs)
{
	digest_root = root;
	digest_attrs = attrs;
	digest_sum = 0;
	digest_err = 0;
	if (nftw(root, digest_one, 16, FTW_PHYS) || digest_err)
		return 0;
	return digest_sum ? digest_sum : 1;
}

/*
 * Names the first entry of @want (SRC's) that @root lacks or has
 * otherwise, or one @root has besides, in @why.
 */
static void digest_diff(const struct digest_list *want, const char *root,
			char *why, size_t size)
{
	static struct digest_list got;
	int i, j;

	got.nr = 0;
	digest_list = &got;
	digest(root, false);
	digest_list = NULL;
	for (i = 0; i < want->nr; i++) {
		for (j = 0; j < got.nr; j++)
			if (!strcmp(want->e[i].rel, got.e[j].rel))
				break;
		if (j == got.nr || want->e[i].h != got.e[j].h) {
			snprintf(why, size, "\"%s\" is %s", want->e[i].rel,
				 j == got.nr ? "missing" : "not the same");
			return;
		}
	}
	for (j = 0; j < got.nr; j++) {
		for (i = 0; i < want->nr; i++)
			if (!strcmp(want->e[i].rel, got.e[j].rel))
				break;
		if (i == want->nr) {
			snprintf(why, size, "\"%s\" is there besides",
				 got.e[j].rel);
			return;
		}
	}
	snprintf(why, size, "%d entries, %d wanted", got.nr, want->nr);
}

static int write_pattern(const char *path, off_t off, size_t len, int seed)
{
	static char buf[65536];
	size_t i, done = 0;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + seed);
	while (done < len && !err) {
		size_t chunk = len - done < sizeof(buf) ? len - done :
							  sizeof(buf);

		if (pwrite(fd, buf, chunk, off + done) != (ssize_t)chunk)
			err = -EIO;
		done += chunk;
	}
	close(fd);
	return err;
}

/*
 * The source tree: a directory past XFS's short form, nested directories,
 * a sparse file, a long name, a hard link, a symlink and an empty file. No
 * fifo: busybox tar says so when mknod() fails, but exits 0. Small, so
 * that a sweep stays short: most sites repeat with every file.
 */
static int make_src(void)
{
	char path[512], name[256];
	int i, err = 0;

	if (mkdir(SRC, 0755) || mkdir(SRC "/many", 0755) ||
	    mkdir(SRC "/a", 0755) || mkdir(SRC "/a/b", 0700) ||
	    mkdir(SRC "/a/b/c", 0755))
		return -errno;
	/* 12 names of 28 bytes: past the short form of a 512-byte inode. */
	for (i = 0; i < 12 && !err; i++) {
		snprintf(path, sizeof(path),
			 SRC "/many/entry-with-a-long-name-%02d", i);
		err = write_pattern(path, 0, i * 97, i);
	}
	for (i = 0; i < 3 && !err; i++)
		err = write_pattern(SRC "/a/b/c/sparse", i * 65536, 8192, i);
	memset(name, 'n', 200);
	name[200] = '\0';
	snprintf(path, sizeof(path), SRC "/a/%s", name);
	if (!err)
		err = write_pattern(path, 0, 5000, 3);
	if (!err)
		err = write_pattern(SRC "/a/empty", 0, 0, 0);
	if (!err &&
	    (link(SRC "/many/entry-with-a-long-name-05", SRC "/a/hardlink") ||
	     symlink("b/c/sparse", SRC "/a/symlink")))
		err = -errno;
	return err;
}

/* tar -C wants its directory. In the child, before the command. */
static int make_copy_dir(void *arg)
{
	(void)arg;
	return mkdir(OUT "/copy", 0755) ? -errno : 0;
}

/* cpio -o reads the names from stdin, relative to SRC. In the child. */
static int list_on_stdin(void *arg)
{
	int fd;

	(void)arg;
	if (chdir(SRC))
		return -errno;
	fd = open(LIST, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, 0) < 0)
		return -errno;
	return 0;
}

/*
 * In the parent, after a success: OUT/copy is SRC's copy. Names, kinds,
 * sizes, contents, link targets and hard links; not permissions or
 * mtimes, which busybox tar restores without looking at chmod()'s or
 * utimes()'s result (seen: chmod() failed with ENOMEM, tar exited 0).
 */
static bool work_effect(struct work_state *st, int ret, char *why, size_t size)
{
	char what[300];

	if (ret)
		return true;
	if (st->what != WORK_COPY ||
	    digest(OUT "/copy", false) == st->src_plain)
		return true;
	digest_diff(&st->src_list, OUT "/copy", what, sizeof(what));
	snprintf(why, size, "a success, but %s is no copy of %s: %s",
		 OUT "/copy", SRC, what);
	return false;
}

/*
 * After each run, in the parent: the effect of a success; then, whatever
 * the outcome, what the command left must go (OUT made empty again).
 */
static bool work_check(void *arg, int ret, char *why, size_t size)
{
	struct work_state *st = arg;
	bool ok = work_effect(st, ret, why, size);
	int err;

	err = rm_tree(OUT);
	if (!err && mkdir(OUT, 0755))
		err = -errno;
	if (err && ok) {
		snprintf(why, size, "cleaning %s after the command: %s", OUT,
			 strerror(-err));
		ok = false;
	}
	return ok;
}

FIXTURE_SETUP(work)
{
	const char *dev = getenv("OOM_SCRATCH_DEV");
	const char *missing = failnth_missing();
	char *const tar[] = { BUSYBOX, "tar", "-cf", TAR, "-C", SRC, ".", NULL };
	char reason[128];
	int fd, ret;

	self->mounted = false;
	self->made_dir = false;
	self->st.what = variant->what;
	if (missing)
		SKIP(return, "%s", missing);
	if (!dev || !*dev)
		SKIP(return, REASON_NO_DEV);
	if (access(BUSYBOX, X_OK))
		SKIP(return, BUSYBOX " missing: install busybox-static");
	if (access(XFS_REPAIR, X_OK))
		SKIP(return, XFS_REPAIR " missing: install xfsprogs");
	ret = private_mounts(reason, sizeof(reason));
	if (ret > 0)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, ret)
	{
		TH_LOG("%s", reason);
	}
	if (mkdir(MNT, 0755) == 0)
		self->made_dir = true;
	ASSERT_TRUE(self->made_dir || errno == EEXIST);
	ret = xfs_mount_fresh(dev, MNT, reason, sizeof(reason));
	/* A skipped setup has no teardown. */
	if (ret > 0 && self->made_dir)
		rmdir(MNT);
	if (ret > 0)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, ret)
	{
		TH_LOG("%s", reason);
	}
	self->mounted = true;
	ASSERT_EQ(0, make_src());
	self->st.src_digest = digest(SRC, true);
	digest_list = &self->st.src_list;
	self->st.src_plain = digest(SRC, false);
	digest_list = NULL;
	ASSERT_NE(0, self->st.src_digest);
	ASSERT_EQ(0, mkdir(OUT, 0755));
	ASSERT_EQ(0, run_cmd(tar, 30));
	ASSERT_EQ(0, system("cd " SRC " && exec " BUSYBOX " find . >" LIST));
	/*
	 * SRC on disk before the sweep: should XFS shut down, the teardown
	 * recovers the log and must find it all the same.
	 */
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ret = syncfs(fd) ? errno : 0;
	close(fd);
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(work)
{
	char *const repair[] = { XFS_REPAIR, "-n", getenv("OOM_SCRATCH_DEV"),
				 NULL };
	int fd, ret;

	EXPECT_EQ(0, knobs_restore());
	unlink(TAR);
	unlink(LIST);
	if (self->mounted) {
		/* XFS shut down refuses syncfs() with EIO. */
		fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		EXPECT_FALSE(fd < 0 || syncfs(fd))
		{
			TH_LOG("XFS on %s shut down during the sweep: syncfs: %s",
			       repair[2], strerror(errno));
		}
		if (fd >= 0)
			close(fd);
		/*
		 * What the failed commands left must survive a remount (which
		 * recovers the log of a filesystem that shut down) ...
		 */
		ret = umount(MNT) ? errno : 0;
		EXPECT_EQ(0, ret)
		{
			TH_LOG("umount %s: %s", MNT, strerror(ret));
		}
		self->mounted = !ret && !mount(repair[2], MNT, "xfs", 0, NULL);
		EXPECT_TRUE(self->mounted || ret)
		{
			TH_LOG("mounting %s again: %s", repair[2],
			       strerror(errno));
		}
	}
	if (self->mounted) {
		EXPECT_EQ(self->st.src_digest, digest(SRC, true))
		{
			TH_LOG("the commands changed %s", SRC);
		}
		EXPECT_EQ(0, umount(MNT));
		/* ... and be consistent on disk. */
		EXPECT_EQ(0, run_cmd(repair, 60))
		{
			TH_LOG("xfs_repair -n %s finds the filesystem damaged",
			       repair[2]);
		}
	}
	if (self->made_dir)
		rmdir(MNT);
}

/*
 * Capped at 300 points: the extraction repeats the same calls for every
 * file. In two --sites runs of 400 points, no call chain (the site and
 * its three callers) came new after n=216 (iter_file_splice_write() under
 * tar's copy of a file's data); the 100 points past 300 took 3 s of the
 * suite's 83 s of sweeping.
 */
/* clang-format off */
FIXTURE_VARIANT_ADD(work, tar_extract) {
	/* clang-format on */
	.scenario = "tar_extract",
	.argv = (char *const[]){ BUSYBOX, "tar", "-xf", TAR, "-C", OUT "/copy",
				 NULL },
	.what = WORK_COPY,
	.max_points = 300,
	.success_unseen =
		"a failed extraction may leave any part of the tree, or all of it",
	.prepare = make_copy_dir,
	.arm_nr = SYS_openat,
	.arm_path = TAR,
};

/*
 * An archive of SRC on stdout, in cpio's newc format: tar's header names
 * the owner, and busybox tar quietly leaves the name out when it cannot
 * read /etc/passwd, so a success would differ from the unarmed run's.
 */
/* clang-format off */
FIXTURE_VARIANT_ADD(work, cpio_create) {
	/* clang-format on */
	.scenario = "cpio_create",
	.argv = (char *const[]){ BUSYBOX, "cpio", "-o", "-H", "newc", NULL },
	.what = WORK_NONE,
	.max_points = 400,
	.success_unseen =
		"cpio -o changes no file: only its stdout shows a success",
	.prepare = list_on_stdin,
	.arm_nr = SYS_openat,
};

/* clang-format off */
FIXTURE_VARIANT_ADD(work, proc_read) {
	/* clang-format on */
	.scenario = "proc_read",
	.argv = (char *const[]){ BUSYBOX, "cat", "/proc/filesystems",
				 "/proc/version", "/proc/self/limits",
				 "/proc/sys/kernel/ostype", "/proc/swaps",
				 "/proc/devices", "/proc/cgroups",
				 "/proc/self/mountinfo",
				 "/proc/sys/vm/overcommit_memory", NULL },
	.what = WORK_NONE,
	.max_points = 400,
	.success_unseen = "cat changes nothing: only its stdout shows a success",
	.arm_nr = SYS_openat,
	.arm_path = "/proc/",
};

/*
 * The process's own procfs files (each its own show or read function;
 * cmdline copies from the process's memory a page at a time) and sysfs
 * attributes (kernfs's open file and its open node), none of which changes
 * between the runs. Not environ: its read allocates its page before it
 * looks for the end (fs/proc/base.c:999, linux 6.12), so the read that
 * finds the end can fail after all was printed, and a failure told as a
 * success could not be noticed.
 */
/* clang-format off */
FIXTURE_VARIANT_ADD(work, proc_pid_sysfs_read) {
	/* clang-format on */
	.scenario = "proc_pid_sysfs_read",
	.argv = (char *const[]){ BUSYBOX, "cat", "/proc/self/cmdline",
				 "/proc/self/comm", "/proc/self/cgroup",
				 "/proc/self/mounts", "/proc/self/uid_map",
				 "/proc/self/oom_score_adj",
				 "/proc/self/personality", "/proc/cmdline",
				 "/proc/partitions",
				 "/sys/devices/system/cpu/online",
				 "/sys/class/net/lo/mtu", NULL },
	.what = WORK_NONE,
	.max_points = 400,
	.success_unseen = "cat changes nothing: only its stdout shows a success",
	.arm_nr = SYS_openat,
	.arm_path = "/proc/",
};

/*
 * The variant's command, with each failslab and fail_page_alloc point of
 * its process failing in turn.
 */
TEST_F_TIMEOUT(work, both, SWEEP_TIMEOUT)
{
	const struct failnth_scenario sc = {
		.name = variant->scenario,
		.allowed = work_errnos,
		.success_unseen = variant->success_unseen,
		.deadline_s = SWEEP_TIMEOUT - 10,
		.workload = variant->argv,
		.point_s = POINT_S,
		.max_points = variant->max_points,
		.arg = &self->st,
		.child_prepare = variant->prepare,
		.arm_at_call = true,
		.arm_nr = variant->arm_nr,
		.arm_path = variant->arm_path,
		.check = work_check,
	};

	failnth_child_sweep(_metadata, &sc, FAILNTH_BOTH);
}

TEST_HARNESS_MAIN
