// SPDX-License-Identifier: GPL-2.0
/*
 * Filesystem calls while their small allocations fail, one at a time, on a
 * fresh tmpfs and on a fresh XFS.
 *
 * Each variant is one call (create, remove, rename, link, symlink, list,
 * truncate, fallocate, write, fsync, xattrs) on a few files that prepare
 * made, with every failslab and fail_page_alloc point on its path made to
 * fail in turn (see failnth.h). The call must succeed or fail with an
 * allowed errno. A success leaves exactly its effect: the names, links,
 * sizes and bytes it should; a short write exactly what it counted; a
 * failure leaves everything as it was. Once cleaned up, the filesystem has
 * as many free inodes and blocks as when fresh, and no fd is leaked.
 *
 * The same scenarios run on both filesystems: FS_SCENARIO() adds each to
 * the tmpfs and the xfs fixture. Test names: failnth_fs.<fs>.<call>.<mode>.
 * The xfs_mount fixture sweeps the mount of an XFS itself (tmpfs's is
 * failnth_task's mount_tmpfs), xfs_swapon the swapon() of a file on one.
 *
 * On tmpfs a sweep's points are the same in every run, and both modes'
 * counts add up to the "both" count. On XFS they depend on which metadata
 * blocks the buffer cache already holds: a block read from the disk makes
 * allocations (xfs_buf_read_map() down to ubd_queue_rq()) that a cached one
 * does not, and the points before decide what is cached.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "failnth.h"
#include "failnth_fs.h"
#include "failnth_fs_names.h"
#include "failnth_fs_data.h"
#include "util.h"

/* Per test; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 100

/* What a call may fail with on a filesystem that says nothing else. */
static const int enomem_only[] = { ENOMEM, 0 };

/*
 * Creating an inode on tmpfs: shmem reports a failed inode allocation as
 * ENOSPC, not ENOMEM: mm/shmem.c:__shmem_get_inode() has
 * "return ERR_PTR(-ENOSPC);" when new_inode() fails (linux 6.12).
 */
static const int tmpfs_create_errnos[] = { ENOMEM, ENOSPC, 0 };

FIXTURE(tmpfs)
{
	struct fs_ctx fs;
};

FIXTURE(xfs)
{
	struct fs_ctx fs;
};

FIXTURE_VARIANT(tmpfs)
{
	const struct fs_op *op;
};

FIXTURE_VARIANT(xfs)
{
	const struct fs_op *op;
};

/*
 * One scenario's fs_op; a variant of each fixture below runs it, on
 * tmpfs and on XFS.
 */
/* clang-format off */
#define FS_SCENARIO(_name, ...)						\
	static const struct fs_op fs_op_##_name = {			\
		.name = #_name, __VA_ARGS__				\
	}
/* clang-format on */

/* A query changes nothing: its success and failure leave the same state. */
#define QUERY "a query: success and failure leave the same state"

/* clang-format off */
FS_SCENARIO(open_creat, .action = act_open_creat, .check = check_open_creat,
	    .returns_fd = true, .tmpfs_errnos = tmpfs_create_errnos);
FIXTURE_VARIANT_ADD(tmpfs, open_creat) { .op = &fs_op_open_creat };
FIXTURE_VARIANT_ADD(xfs, open_creat) { .op = &fs_op_open_creat };

FS_SCENARIO(create_new_chunk, .prepare = prep_full_chunk,
	    .action = act_open_creat, .check = check_create_new_chunk,
	    .returns_fd = true, .tmpfs_errnos = tmpfs_create_errnos);
FIXTURE_VARIANT_ADD(tmpfs, create_new_chunk) { .op = &fs_op_create_new_chunk };
FIXTURE_VARIANT_ADD(xfs, create_new_chunk) { .op = &fs_op_create_new_chunk };

FS_SCENARIO(mkdir, .action = act_mkdir, .check = check_mkdir,
	    .tmpfs_errnos = tmpfs_create_errnos);
FIXTURE_VARIANT_ADD(tmpfs, mkdir) { .op = &fs_op_mkdir };
FIXTURE_VARIANT_ADD(xfs, mkdir) { .op = &fs_op_mkdir };

FS_SCENARIO(rmdir, .prepare = prep_d, .action = act_rmdir,
	    .check = check_rmdir);
FIXTURE_VARIANT_ADD(tmpfs, rmdir) { .op = &fs_op_rmdir };
FIXTURE_VARIANT_ADD(xfs, rmdir) { .op = &fs_op_rmdir };

FS_SCENARIO(unlink, .prepare = prep_a, .action = act_unlink,
	    .check = check_unlink);
FIXTURE_VARIANT_ADD(tmpfs, unlink) { .op = &fs_op_unlink };
FIXTURE_VARIANT_ADD(xfs, unlink) { .op = &fs_op_unlink };

FS_SCENARIO(rename, .prepare = prep_ab, .action = act_rename,
	    .check = check_rename);
FIXTURE_VARIANT_ADD(tmpfs, rename) { .op = &fs_op_rename };
FIXTURE_VARIANT_ADD(xfs, rename) { .op = &fs_op_rename };

FS_SCENARIO(rename_exchange, .prepare = prep_ab,
	    .action = act_rename_exchange, .check = check_rename_exchange);
FIXTURE_VARIANT_ADD(tmpfs, rename_exchange) { .op = &fs_op_rename_exchange };
FIXTURE_VARIANT_ADD(xfs, rename_exchange) { .op = &fs_op_rename_exchange };

FS_SCENARIO(link, .prepare = prep_a, .action = act_link,
	    .check = check_link);
FIXTURE_VARIANT_ADD(tmpfs, link) { .op = &fs_op_link };
FIXTURE_VARIANT_ADD(xfs, link) { .op = &fs_op_link };

FS_SCENARIO(symlink, .action = act_symlink, .check = check_symlink,
	    .tmpfs_errnos = tmpfs_create_errnos);
FIXTURE_VARIANT_ADD(tmpfs, symlink) { .op = &fs_op_symlink };
FIXTURE_VARIANT_ADD(xfs, symlink) { .op = &fs_op_symlink };

FS_SCENARIO(symlink_short, .action = act_symlink_short,
	    .check = check_symlink_short, .tmpfs_errnos = tmpfs_create_errnos);
FIXTURE_VARIANT_ADD(tmpfs, symlink_short) { .op = &fs_op_symlink_short };
FIXTURE_VARIANT_ADD(xfs, symlink_short) { .op = &fs_op_symlink_short };

FS_SCENARIO(readlink, .prepare = prep_s, .action = act_readlink,
	    .check = check_readlink, .full = LINK_LONG_LEN,
	    .success_unseen = QUERY);
FIXTURE_VARIANT_ADD(tmpfs, readlink) { .op = &fs_op_readlink };
FIXTURE_VARIANT_ADD(xfs, readlink) { .op = &fs_op_readlink };

FS_SCENARIO(getdents, .prepare = prep_dents, .action = act_getdents,
	    .check = check_getdents, .full = DENTS_NR + 2,
	    .success_unseen = QUERY);
FIXTURE_VARIANT_ADD(tmpfs, getdents) { .op = &fs_op_getdents };
FIXTURE_VARIANT_ADD(xfs, getdents) { .op = &fs_op_getdents };

FS_SCENARIO(truncate_grow, .prepare = prep_a, .action = act_truncate_grow,
	    .check = check_truncate_grow);
FIXTURE_VARIANT_ADD(tmpfs, truncate_grow) { .op = &fs_op_truncate_grow };
FIXTURE_VARIANT_ADD(xfs, truncate_grow) { .op = &fs_op_truncate_grow };

FS_SCENARIO(truncate_shrink, .prepare = prep_long_a,
	    .action = act_truncate_shrink, .check = check_truncate_shrink);
FIXTURE_VARIANT_ADD(tmpfs, truncate_shrink) { .op = &fs_op_truncate_shrink };
FIXTURE_VARIANT_ADD(xfs, truncate_shrink) { .op = &fs_op_truncate_shrink };

FS_SCENARIO(fallocate, .prepare = prep_a_open, .action = act_fallocate,
	    .check = check_fallocate);
FIXTURE_VARIANT_ADD(tmpfs, fallocate) { .op = &fs_op_fallocate };
FIXTURE_VARIANT_ADD(xfs, fallocate) { .op = &fs_op_fallocate };

FS_SCENARIO(write_4k, .prepare = prep_write, .action = act_write,
	    .check = check_write, .full = 4096);
FIXTURE_VARIANT_ADD(tmpfs, write_4k) { .op = &fs_op_write_4k };
FIXTURE_VARIANT_ADD(xfs, write_4k) { .op = &fs_op_write_4k };

FS_SCENARIO(write_64k, .prepare = prep_write, .action = act_write,
	    .check = check_write, .full = 64 * 1024);
FIXTURE_VARIANT_ADD(tmpfs, write_64k) { .op = &fs_op_write_64k };
FIXTURE_VARIANT_ADD(xfs, write_64k) { .op = &fs_op_write_64k };

FS_SCENARIO(write_1m, .prepare = prep_write, .action = act_write,
	    .check = check_write, .full = 1024 * 1024);
FIXTURE_VARIANT_ADD(tmpfs, write_1m) { .op = &fs_op_write_1m };
FIXTURE_VARIANT_ADD(xfs, write_1m) { .op = &fs_op_write_1m };

FS_SCENARIO(pwritev, .prepare = prep_write, .action = act_pwritev,
	    .check = check_write, .full = PWRITEV_LEN);
FIXTURE_VARIANT_ADD(tmpfs, pwritev) { .op = &fs_op_pwritev };
FIXTURE_VARIANT_ADD(xfs, pwritev) { .op = &fs_op_pwritev };

FS_SCENARIO(fsync, .prepare = prep_fsync, .action = act_fsync,
	    .check = check_fsync,
	    /* Only a power cut could tell what reached the disk. */
	    .success_unseen = "data reads back after a failed fsync too",
	    /* mm/shmem.c: shmem_file_operations has .fsync = noop_fsync. */
	    .tmpfs_skip = "tmpfs fsync is noop_fsync: no allocation to fail");
FIXTURE_VARIANT_ADD(tmpfs, fsync) { .op = &fs_op_fsync };
FIXTURE_VARIANT_ADD(xfs, fsync) { .op = &fs_op_fsync };

FS_SCENARIO(setxattr, .prepare = prep_keep, .action = act_setxattr,
	    .check = check_setxattr);
FIXTURE_VARIANT_ADD(tmpfs, setxattr) { .op = &fs_op_setxattr };
FIXTURE_VARIANT_ADD(xfs, setxattr) { .op = &fs_op_setxattr };

FS_SCENARIO(getxattr, .prepare = prep_keep_big, .action = act_getxattr,
	    .check = check_getxattr, .full = XATTR_LEN,
	    .success_unseen = QUERY);
FIXTURE_VARIANT_ADD(tmpfs, getxattr) { .op = &fs_op_getxattr };
FIXTURE_VARIANT_ADD(xfs, getxattr) { .op = &fs_op_getxattr };

FS_SCENARIO(listxattr, .prepare = prep_four, .action = act_listxattr,
	    .check = check_listxattr, .full = LIST_LEN,
	    .success_unseen = QUERY);
FIXTURE_VARIANT_ADD(tmpfs, listxattr) { .op = &fs_op_listxattr };
FIXTURE_VARIANT_ADD(xfs, listxattr) { .op = &fs_op_listxattr };

FS_SCENARIO(removexattr, .prepare = prep_keep_big,
	    .action = act_removexattr, .check = check_removexattr);
FIXTURE_VARIANT_ADD(tmpfs, removexattr) { .op = &fs_op_removexattr };
FIXTURE_VARIANT_ADD(xfs, removexattr) { .op = &fs_op_removexattr };
/* clang-format on */

/* Skip reasons too long for a return line. */
#define REASON_NO_DEV \
	"set OOM_SCRATCH_DEV to a spare block device of >= 300 MB that may be formatted"
#define REASON_NOT_BLOCK \
	"OOM_SCRATCH_DEV is not a block device: set it to a spare one of >= 300 MB that may be formatted"

/* Formats the scratch device, or says why a person cannot here. */
static const char *xfs_format(struct __test_metadata *_metadata,
			      const char *dev)
{
	/* -K: no discard pass (UML ubd: up to 3.8 s a mkfs without, < 0.25 s with) */
	char *const argv[] = { "mkfs.xfs", "-f", "-q", "-K", (char *)dev, NULL };
	struct timespec start;
	struct stat st;
	int ret;

	if (!dev || !*dev)
		return REASON_NO_DEV;
	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return REASON_NOT_BLOCK;
	clock_gettime(CLOCK_MONOTONIC, &start);
	ret = run_cmd(argv, 60);
	if (ret == 127)
		return "mkfs.xfs not found: install xfsprogs";
	EXPECT_EQ(0, ret)
	{
		TH_LOG("mkfs.xfs -f %s: %s %d", dev,
		       ret < 0 ? strerror(-ret) : "exit status", ret);
	}
	if (ret)
		return "";
	ksft_print_msg("fs mkfs: secs=%.3f\n", failnth_elapsed(&start));
	return NULL;
}

/*
 * A fresh filesystem on FS_DIR, in a private mount namespace: a tmpfs, or
 * an XFS made on $OOM_SCRATCH_DEV. Returns NULL, or why the test skips.
 */
static const char *fs_mount(struct __test_metadata *_metadata,
			    struct fs_ctx *fs, const struct fs_op *op, bool xfs)
{
	const char *dev = getenv("OOM_SCRATCH_DEV"), *why;
	int err;

	fs->dirfd = -1;
	fs->fd = -1;
	fs->xfs = xfs;
	fs->op = op;
	snprintf(fs->name, sizeof(fs->name), "%s_%s", xfs ? "xfs" : "tmpfs",
		 op->name);
	why = failnth_missing();
	if (why)
		return why;
	if (!xfs && op->tmpfs_skip)
		return op->tmpfs_skip;
	if (unshare(CLONE_NEWNS))
		return "cannot unshare the mount namespace";
	err = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ? errno : 0;
	EXPECT_EQ(0, err)
	{
		TH_LOG("making / private: %s", strerror(err));
	}
	if (err)
		return "";
	if (xfs) {
		why = xfs_format(_metadata, dev);
		if (why)
			return why;
		err = mount(dev, FS_DIR, "xfs", 0, NULL) ? errno : 0;
		if (err == ENODEV)
			return "XFS missing: needs CONFIG_XFS_FS";
	} else {
		err = mount("failnth", FS_DIR, "tmpfs", 0,
			    "size=8m,mode=0700") ?
			      errno :
			      0;
	}
	if (err == EPERM)
		return "mounting a filesystem is not permitted here";
	EXPECT_EQ(0, err)
	{
		TH_LOG("mounting %s on %s: %s", xfs ? dev : "a tmpfs", FS_DIR,
		       strerror(err));
	}
	if (err)
		return "";
	fs->dirfd = open(FS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = fs->dirfd < 0 ? -errno : fs_statfs(fs, &fs->fresh);
	if (!err && fstat(fs->dirfd, &fs->fresh_root))
		err = -errno;
	EXPECT_EQ(0, err)
	{
		TH_LOG("opening the fresh filesystem on %s: %s", FS_DIR,
		       strerror(-err));
	}
	if (err) {
		if (fs->dirfd >= 0)
			close(fs->dirfd);
		fs->dirfd = -1;
		umount2(FS_DIR, MNT_DETACH);
		return "";
	}
	return NULL;
}

static void fs_unmount(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, failnth_knobs_restore());
	if (fs->fd >= 0)
		close(fs->fd);
	EXPECT_EQ(0, close(fs->dirfd));
	/*
	 * A plain unmount, so that the next test's mkfs finds the device
	 * free; detached if an fd leaked by a failed point keeps it busy.
	 */
	if (umount(FS_DIR)) {
		EXPECT_EQ(EBUSY, errno);
		EXPECT_EQ(0, umount2(FS_DIR, MNT_DETACH));
	}
}

/* An empty reason: an EXPECT failed, the test stops without teardown. */
FIXTURE_SETUP(tmpfs)
{
	const char *why = fs_mount(_metadata, &self->fs, variant->op, false);

	if (why && *why)
		SKIP(return, "%s", why);
}

FIXTURE_SETUP(xfs)
{
	const char *why = fs_mount(_metadata, &self->fs, variant->op, true);

	if (why && *why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(tmpfs)
{
	fs_unmount(_metadata, &self->fs);
}

FIXTURE_TEARDOWN(xfs)
{
	fs_unmount(_metadata, &self->fs);
}

static int fs_action(void *arg)
{
	struct fs_ctx *fs = arg;

	return fs->op->action(fs);
}

static void fs_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct fs_ctx *fs = arg;

	if (fs->op->prepare)
		fs->op->prepare(_metadata, fs);
}

static bool fs_check(void *arg, int ret, char *why, size_t size)
{
	struct fs_ctx *fs = arg;

	return fs->op->check(fs, ret, why, size);
}

/* Closes what the call and prepare opened and removes every name. */
static void fs_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	static char left[FS_NAMES_SIZE];
	struct fs_ctx *fs = arg;

	if (ret >= 0 && fs->op->returns_fd)
		ASSERT_EQ(0, close(ret));
	if (fs->fd >= 0)
		ASSERT_EQ(0, close(fs->fd));
	fs->fd = -1;
	ASSERT_EQ(0, fs_empty_dir(fs->dirfd, 1));
	ASSERT_EQ(0, fs_names(fs->dirfd, left, sizeof(left)))
	{
		TH_LOG("%s: left after cleanup: %s", fs->name, left);
	}
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed or fail with ENOMEM (or an errno cited above); a success leaves
 * exactly its effect, a failure nothing, and neither loses an inode, a
 * block or an fd.
 */
static void fs_sweep(struct __test_metadata *_metadata, struct fs_ctx *fs,
		     enum failnth_mode mode)
{
	const int *allowed = fs->xfs ? fs->op->xfs_errnos :
				       fs->op->tmpfs_errnos;
	const struct failnth_scenario sc = {
		.name = fs->name,
		.allowed = allowed ? allowed : enomem_only,
		.full = fs->op->full,
		.success_unseen = fs->op->success_unseen,
		.deadline_s = SWEEP_TIMEOUT - 10,
		.arg = fs,
		.prepare = fs_prepare,
		.action = fs_action,
		.check = fs_check,
		.cleanup = fs_cleanup,
		.settled = fs_settled,
	};

	failnth_sweep(_metadata, &sc, mode);
}

FAILNTH_SWEEP(tmpfs, SWEEP_TIMEOUT)
{
	fs_sweep(_metadata, &self->fs, mode);
}

FAILNTH_SWEEP(xfs, SWEEP_TIMEOUT)
{
	fs_sweep(_metadata, &self->fs, mode);
}

/*
 * The mount of an XFS itself: xfs_fs_fill_super() and xfs_mountfs() (the
 * superblock, per-CPU counters, workqueues, sysfs objects, the log and
 * its recovery pass, the root inode) and, when a step fails, their
 * unwinding. The device is formatted once; a failed mount must leave
 * nothing mounted, a success a working filesystem, and after the sweep
 * xfs_repair -n must find it consistent.
 */
#define XFS_MAGIC 0x58465342
#define XFS_REPAIR "/usr/sbin/xfs_repair"

struct mount_ctx {
	const char *dev;
	/* The device of FS_DIR when nothing is mounted on it. */
	dev_t base_dev;
};

FIXTURE(xfs_mount)
{
	struct mount_ctx ctx;
	bool formatted;
};

/*
 * A fresh XFS on @dev mounted on FS_DIR, in a private mount namespace, for
 * the xfs_mount and xfs_swapon fixtures: NULL, or why the test skips (""
 * when an EXPECT failed).
 */
static const char *xfs_fresh_mount(struct __test_metadata *_metadata,
				   const char *dev)
{
	const char *why;
	int err;

	if (unshare(CLONE_NEWNS))
		return "cannot unshare the mount namespace";
	err = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ? errno : 0;
	EXPECT_EQ(0, err)
	{
		TH_LOG("making / private: %s", strerror(err));
	}
	if (err)
		return "";
	why = xfs_format(_metadata, dev);
	if (why)
		return why;
	err = mount(dev, FS_DIR, "xfs", 0, NULL) ? errno : 0;
	if (err == ENODEV)
		return "XFS missing: needs CONFIG_XFS_FS";
	EXPECT_EQ(0, err)
	{
		TH_LOG("mounting %s on %s: %s", dev, FS_DIR, strerror(err));
	}
	return err ? "" : NULL;
}

FIXTURE_SETUP(xfs_mount)
{
	struct mount_ctx *c = &self->ctx;
	const char *why = failnth_missing();
	struct stat sb;

	c->dev = getenv("OOM_SCRATCH_DEV");
	if (why)
		SKIP(return, "%s", why);
	if (access(XFS_REPAIR, X_OK))
		SKIP(return, XFS_REPAIR " missing: install xfsprogs");
	/* Mounted once unarmed: a kernel without XFS skips, not fails. */
	why = xfs_fresh_mount(_metadata, c->dev);
	if (why && *why)
		SKIP(return, "%s", why);
	ASSERT_EQ(NULL, why);
	self->formatted = true;
	ASSERT_EQ(0, umount(FS_DIR));
	ASSERT_EQ(0, stat(FS_DIR, &sb));
	c->base_dev = sb.st_dev;
}

/* After the sweep: the filesystem the failed mounts left is consistent. */
FIXTURE_TEARDOWN(xfs_mount)
{
	char *const repair[] = { XFS_REPAIR, "-n", (char *)self->ctx.dev,
				 NULL };

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, failnth_knobs_restore());
	umount2(FS_DIR, MNT_DETACH);
	if (!self->formatted)
		return;
	EXPECT_EQ(0, run_cmd(repair, 60))
	{
		TH_LOG("xfs_repair -n %s finds the filesystem damaged",
		       self->ctx.dev);
	}
}

static int xfs_mount_action(void *arg)
{
	struct mount_ctx *c = arg;

	return mount(c->dev, FS_DIR, "xfs", 0, NULL) ? -errno : 0;
}

/*
 * A success is an XFS on FS_DIR where a file can be written and read back;
 * a failure left FS_DIR as it was, nothing mounted on it.
 */
static bool xfs_mount_check(void *arg, int ret, char *why, size_t size)
{
	struct mount_ctx *c = arg;
	struct statfs sfs;
	struct stat sb;
	int err;

	if (stat(FS_DIR, &sb) || statfs(FS_DIR, &sfs)) {
		snprintf(why, size, "looking at %s: %s", FS_DIR,
			 strerror(errno));
		return false;
	}
	if (ret < 0) {
		if (sb.st_dev == c->base_dev)
			return true;
		snprintf(why, size,
			 "mount failed, yet %s is mounted (type %#lx)", FS_DIR,
			 (unsigned long)sfs.f_type);
		return false;
	}
	if (sb.st_dev == c->base_dev || sfs.f_type != XFS_MAGIC) {
		snprintf(why, size, "mount succeeded, but no XFS on %s",
			 FS_DIR);
		return false;
	}
	err = dir_usable(FS_DIR);
	if (err) {
		snprintf(why, size, "the mounted XFS is not usable: %s",
			 strerror(-err));
		return false;
	}
	return true;
}

static void xfs_mount_cleanup(struct __test_metadata *_metadata, void *arg,
			      int ret)
{
	if (ret < 0)
		return;
	ASSERT_EQ(0, umount(FS_DIR))
	{
		TH_LOG("unmounting %s: %s", FS_DIR, strerror(errno));
	}
}

/*
 * swapon() of a file on XFS: the swap_info_struct, the swap map and
 * cluster info (vmalloc'ed), the per-CPU clusters, the swap extents that
 * map the file (iomap's swapfile walk), the zswap trees and the swap
 * cgroup map. The file is made once, its blocks written, with a version 1
 * swap header; a success must list it in /proc/swaps, a failure must not.
 */
#define SWAP_FILE FS_DIR "/swap"
#define SWAP_PAGES 256

/* Whether /proc/swaps lists SWAP_FILE: 1, 0, or -errno. */
static int swap_listed(void)
{
	char line[256];
	FILE *f = fopen("/proc/swaps", "re");
	int found = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, SWAP_FILE " ", strlen(SWAP_FILE " ")) ||
		    !strncmp(line, SWAP_FILE "\t", strlen(SWAP_FILE "\t")))
			found = 1;
	fclose(f);
	return found;
}

/* A swap file of SWAP_PAGES pages, every block written, on the XFS. */
static int make_swap_file(void)
{
	long page = sysconf(_SC_PAGESIZE);
	static char buf[1 << 16];
	uint32_t hdr[3] = { 1, SWAP_PAGES - 1, 0 };
	size_t off;
	int fd = open(SWAP_FILE, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	for (off = 0; off < (size_t)SWAP_PAGES * page; off += sizeof(buf))
		if (pwrite(fd, buf, sizeof(buf), off) != sizeof(buf))
			goto fail;
	/* version, last_page, nr_badpages after the boot block, then magic. */
	if (pwrite(fd, hdr, sizeof(hdr), 1024) != sizeof(hdr) ||
	    pwrite(fd, "SWAPSPACE2", 10, page - 10) != 10 || fsync(fd))
		goto fail;
	close(fd);
	return 0;
fail:
	close(fd);
	return -errno;
}

FIXTURE(xfs_swapon)
{
	struct mount_ctx ctx;
	bool mounted;
};

FIXTURE_SETUP(xfs_swapon)
{
	const char *dev = getenv("OOM_SCRATCH_DEV");
	const char *why = failnth_missing();
	int err;

	if (why)
		SKIP(return, "%s", why);
	if (access("/proc/swaps", R_OK))
		SKIP(return, "no /proc/swaps: needs CONFIG_SWAP");
	ASSERT_EQ(0, swap_listed());
	why = xfs_fresh_mount(_metadata, dev);
	if (why && *why)
		SKIP(return, "%s", why);
	ASSERT_EQ(NULL, why);
	self->mounted = true;
	err = make_swap_file();
	ASSERT_EQ(0, err)
	{
		TH_LOG("making %s: %s", SWAP_FILE, strerror(-err));
	}
}

FIXTURE_TEARDOWN(xfs_swapon)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, failnth_knobs_restore());
	if (swap_listed() > 0)
		EXPECT_EQ(0, swapoff(SWAP_FILE));
	if (self->mounted)
		EXPECT_EQ(0, umount(FS_DIR));
}

static int swapon_action(void *arg)
{
	return swapon(SWAP_FILE, 0) ? -errno : 0;
}

static bool swapon_check(void *arg, int ret, char *why, size_t size)
{
	int listed = swap_listed(), want = ret >= 0;

	if (listed == want)
		return true;
	snprintf(why, size, "swapon %s, but /proc/swaps %s it",
		 ret < 0 ? "failed" : "succeeded",
		 listed < 0 ? "cannot be read to list" :
		 listed	    ? "lists" :
			      "does not list");
	return false;
}

static void swapon_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	if (ret < 0)
		return;
	ASSERT_EQ(0, swapoff(SWAP_FILE))
	{
		TH_LOG("swapoff %s: %s", SWAP_FILE, strerror(errno));
	}
}

/* Every point of swapon() fails in turn; see above. */
FAILNTH_SWEEP(xfs_swapon, SWEEP_TIMEOUT)
{
	const struct failnth_scenario sc = {
		.name = "xfs_swapon",
		.allowed = enomem_only,
		.deadline_s = SWEEP_TIMEOUT - 10,
		.action = swapon_action,
		.check = swapon_check,
		.cleanup = swapon_cleanup,
	};

	failnth_sweep(_metadata, &sc, mode);
}

/* Every point of the mount fails in turn; see above. */
FAILNTH_SWEEP(xfs_mount, SWEEP_TIMEOUT)
{
	const struct failnth_scenario sc = {
		.name = "xfs_mount",
		.allowed = enomem_only,
		.deadline_s = SWEEP_TIMEOUT - 10,
		.arg = &self->ctx,
		.action = xfs_mount_action,
		.check = xfs_mount_check,
		.cleanup = xfs_mount_cleanup,
	};

	failnth_sweep(_metadata, &sc, mode);
}

TEST_HARNESS_MAIN
