// SPDX-License-Identifier: GPL-2.0
/*
 * Filesystem calls while their small allocations fail, one at a time, on a
 * fresh tmpfs, XFS, ext4 and btrfs.
 *
 * Each variant is one call (create, remove, rename, link, symlink, list,
 * truncate, fallocate, punch or zero a range, clone a file, write, fsync,
 * chmod, xattrs; readahead of a file not in the page cache,
 * POSIX_FADV_DONTNEED, sync_file_range() and msync() of dirty pages,
 * FIEMAP of a fragmented file, FICLONERANGE and FIDEDUPERANGE, chattr +a)
 * on a few files that prepare made, with every failslab and
 * fail_page_alloc point on its path made to fail in turn (see failnth.h).
 * The call must succeed or fail with an allowed errno. A success leaves
 * exactly its effect: the names, links, sizes and bytes it should; a short
 * write exactly what it counted; a failure leaves everything as it was.
 * Once cleaned up, the filesystem has as many free inodes and blocks as
 * when fresh, and no fd is leaked; a btrfs, which counts no inodes, must
 * pass btrfs check after the sweep.
 *
 * The same scenarios run on every filesystem: FS_SCENARIO() adds each to
 * the tmpfs, xfs, ext4 and btrfs fixtures. Test names:
 * failnth_fs.<fs>.<call>.<mode>. The xfs_mount and ext4_mount fixtures
 * sweep the mount itself (tmpfs's is failnth_task's mount_tmpfs),
 * xfs_swapon the swapon() of a file on an XFS.
 *
 * On tmpfs a sweep's points are the same in every run, and both modes'
 * counts add up to the "both" count. On XFS and ext4 they depend on which
 * metadata blocks the buffer cache already holds: a block read from the
 * disk makes allocations (xfs_buf_read_map() or the buffer heads' pages,
 * down to ubd_queue_rq()) that a cached one does not, and the points
 * before decide what is cached.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "failnth.h"
#include "failnth_fs.h"
#include "failnth_fs_names.h"
#include "failnth_fs_data.h"
#include "failnth_fs_range.h"
#include "util.h"

/* Per test; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 100

/* What a call may fail with on a filesystem that says nothing else. */
static const int enomem_only[] = { ENOMEM, 0 };

/*
 * readahead(2) and posix_fadvise(2) document no ENOMEM (EBADF, EINVAL,
 * ESPIPE): force_page_cache_readahead() and generic_fadvise()'s writeback
 * return nothing (mm/readahead.c, mm/fadvise.c); any errno is wrong.
 */
static const int no_errnos[] = { 0 };

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

FIXTURE(ext4)
{
	struct fs_ctx fs;
};

FIXTURE(btrfs)
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

FIXTURE_VARIANT(ext4)
{
	const struct fs_op *op;
};

FIXTURE_VARIANT(btrfs)
{
	const struct fs_op *op;
};

/* One scenario's fs_op, and a variant of each fixture that runs it. */
/* clang-format off */
#define FS_SCENARIO(_name, ...)						\
	static const struct fs_op fs_op_##_name = {			\
		.name = #_name, __VA_ARGS__				\
	};								\
	FIXTURE_VARIANT_ADD(tmpfs, _name) { .op = &fs_op_##_name };	\
	FIXTURE_VARIANT_ADD(xfs, _name) { .op = &fs_op_##_name };	\
	FIXTURE_VARIANT_ADD(ext4, _name) { .op = &fs_op_##_name };	\
	FIXTURE_VARIANT_ADD(btrfs, _name) { .op = &fs_op_##_name }
/* clang-format on */

/* tmpfs's pages have no disk to come from or go to. */
#define TMPFS_NO_DISK \
	"tmpfs: generic_fadvise() ignores advice on noop_backing_dev_info"

/* Neither has .remap_file_range in its file_operations. */
#define REMAP_SKIP                                                \
	.skip[FS_TMPFS] = "tmpfs cannot share extents (FICLONE)", \
	.skip[FS_EXT4] = "ext4 cannot share extents (FICLONE)"

/* A query changes nothing: its success and failure leave the same state. */
#define QUERY "a query: success and failure leave the same state"

/* clang-format off */
FS_SCENARIO(open_creat, .action = act_open_creat, .check = check_open_creat,
	    .returns_fd = true, .tmpfs_errnos = tmpfs_create_errnos);

FS_SCENARIO(create_new_chunk, .prepare = prep_full_chunk,
	    .action = act_open_creat, .check = check_create_new_chunk,
	    .returns_fd = true, .tmpfs_errnos = tmpfs_create_errnos);

FS_SCENARIO(mkdir, .action = act_mkdir, .check = check_mkdir,
	    .tmpfs_errnos = tmpfs_create_errnos);

FS_SCENARIO(rmdir, .prepare = prep_d, .action = act_rmdir,
	    .check = check_rmdir);

FS_SCENARIO(unlink, .prepare = prep_a, .action = act_unlink,
	    .check = check_unlink);

FS_SCENARIO(rename, .prepare = prep_ab, .action = act_rename,
	    .check = check_rename);

FS_SCENARIO(rename_exchange, .prepare = prep_ab,
	    .action = act_rename_exchange, .check = check_rename_exchange);

FS_SCENARIO(link, .prepare = prep_a, .action = act_link,
	    .check = check_link);

FS_SCENARIO(symlink, .action = act_symlink, .check = check_symlink,
	    .tmpfs_errnos = tmpfs_create_errnos);

FS_SCENARIO(symlink_short, .action = act_symlink_short,
	    .check = check_symlink_short, .tmpfs_errnos = tmpfs_create_errnos);

FS_SCENARIO(tmpfile_link, .action = act_tmpfile_link,
	    .check = check_tmpfile_link, .tmpfs_errnos = tmpfs_create_errnos);
FS_SCENARIO(rename_whiteout, .prepare = prep_a,
	    .action = act_rename_whiteout, .check = check_rename_whiteout,
	    .tmpfs_errnos = tmpfs_create_errnos);
FS_SCENARIO(readlink, .prepare = prep_s, .action = act_readlink,
	    .check = check_readlink, .full = LINK_LONG_LEN,
	    .success_unseen = QUERY);

FS_SCENARIO(getdents, .prepare = prep_dents, .action = act_getdents,
	    .check = check_getdents, .full = DENTS_NR + 2,
	    .success_unseen = QUERY);

FS_SCENARIO(truncate_grow, .prepare = prep_a, .action = act_truncate_grow,
	    .check = check_truncate_grow);

FS_SCENARIO(truncate_shrink, .prepare = prep_long_a,
	    .action = act_truncate_shrink, .check = check_truncate_shrink);

FS_SCENARIO(fallocate, .prepare = prep_a_open, .action = act_fallocate,
	    .check = check_fallocate);

FS_SCENARIO(write_4k, .prepare = prep_write, .action = act_write,
	    .check = check_write, .full = 4096);

FS_SCENARIO(write_64k, .prepare = prep_write, .action = act_write,
	    .check = check_write, .full = 64 * 1024);

FS_SCENARIO(write_1m, .prepare = prep_write, .action = act_write,
	    .check = check_write, .full = 1024 * 1024);

FS_SCENARIO(pwritev, .prepare = prep_write, .action = act_pwritev,
	    .check = check_write, .full = PWRITEV_LEN);

FS_SCENARIO(fsync, .prepare = prep_fsync, .action = act_fsync,
	    .check = check_fsync, .cachestat = true,
	    /* Only a power cut could tell what reached the disk. */
	    .success_unseen = "data reads back after a failed fsync too",
	    /* btrfs: after the data is written, in its log or commit. */
	    .failure_unseen = "a fsync can fail after its data is on the disk",
	    /* mm/shmem.c: shmem_file_operations has .fsync = noop_fsync. */
	    .skip[FS_TMPFS] = "tmpfs fsync is noop_fsync: no allocation to fail");

FS_SCENARIO(punch_hole, .prepare = prep_long_a_open,
	    .action = act_punch_hole, .check = check_punch_hole,
	    /* shmem_fallocate(): unmap_mapping_range(), shmem_truncate_range() */
	    .skip[FS_TMPFS] = "tmpfs punches a hole without allocating");
FS_SCENARIO(zero_range, .prepare = prep_long_a_open,
	    .action = act_zero_range, .check = check_zero_range,
	    /* mm/shmem.c: shmem_fallocate() takes PUNCH_HOLE and KEEP_SIZE. */
	    .skip[FS_TMPFS] = "tmpfs has no FALLOC_FL_ZERO_RANGE");
FS_SCENARIO(reflink, .prepare = prep_clone, .action = act_reflink,
	    .check = check_reflink, REMAP_SKIP);
FS_SCENARIO(chmod, .prepare = prep_a, .action = act_chmod,
	    .check = check_chmod);
FS_SCENARIO(setxattr, .prepare = prep_keep, .action = act_setxattr,
	    .check = check_setxattr);

FS_SCENARIO(getxattr, .prepare = prep_keep_big, .action = act_getxattr,
	    .check = check_getxattr, .full = XATTR_LEN,
	    .success_unseen = QUERY);

FS_SCENARIO(listxattr, .prepare = prep_four, .action = act_listxattr,
	    .check = check_listxattr, .full = LIST_LEN,
	    .success_unseen = QUERY);

FS_SCENARIO(removexattr, .prepare = prep_keep_big,
	    .action = act_removexattr, .check = check_removexattr);

FS_SCENARIO(acl_set, .prepare = prep_a, .action = act_acl_set,
	    .check = check_acl_set);

FS_SCENARIO(acl_create, .prepare = prep_acl_dir, .action = act_acl_create,
	    .check = check_acl_create, .returns_fd = true,
	    .tmpfs_errnos = tmpfs_create_errnos);

FS_SCENARIO(acl_chmod, .prepare = prep_acl, .action = act_acl_chmod,
	    .check = check_acl_chmod);

FS_SCENARIO(acl_remove, .prepare = prep_acl, .action = act_acl_remove,
	    .check = check_acl_remove);

FS_SCENARIO(copy_range, .prepare = prep_copy, .action = act_copy_range,
	    .check = check_copy, .full = COPY_LEN);

FS_SCENARIO(sendfile, .prepare = prep_copy, .action = act_sendfile,
	    .check = check_copy, .full = COPY_LEN);

FS_SCENARIO(sendfile_tmpfs, .prepare = prep_xcopy,
	    .action = act_sendfile_tmpfs, .check = check_xcopy,
	    .full = COPY_LEN,
	    .skip[FS_TMPFS] = "tmpfs to tmpfs: the sendfile scenario's path");

FS_SCENARIO(readahead, .prepare = prep_cold, .action = act_readahead,
	    .check = check_readahead, .cachestat = true, .errnos = no_errnos,
	    .skip[FS_TMPFS] = TMPFS_NO_DISK);

FS_SCENARIO(fadvise_dontneed, .prepare = prep_fsync, .action = act_dontneed,
	    .check = check_dontneed, .cachestat = true, .errnos = no_errnos,
	    .success_unseen = "advice: a success need drop no page, a failure loses nothing either",
	    .skip[FS_TMPFS] = TMPFS_NO_DISK);

/* sync_file_range(2): "ENOMEM Out of memory." */
FS_SCENARIO(sync_file_range, .prepare = prep_fsync,
	    .action = act_sync_range, .check = check_sync_range, .cachestat = true,
	    .success_unseen = "data reads back after a failure too, once fsynced",
	    .failure_unseen = "a failure can come after every page is written",
	    /* mapping_can_writeback() is false: no writeback. */
	    .skip[FS_TMPFS] = "tmpfs has no writeback: nothing to write");

/*
 * msync(2) lists ENOMEM (for an unmapped range); mm/msync.c returns
 * vfs_fsync_range()'s error for a shared file mapping.
 */
FS_SCENARIO(msync, .prepare = prep_msync, .action = act_msync,
	    .check = check_msync, .cachestat = true, .cleanup = fs_unmap,
	    .success_unseen = "data reads back after a failure too, once fsynced",
	    .failure_unseen = "a failure can come after every page is written",
	    .skip[FS_TMPFS] = "tmpfs fsync is noop_fsync: no allocation to fail");

FS_SCENARIO(fiemap, .prepare = prep_fiemap, .action = act_fiemap,
	    .check = check_fiemap, .full = EXT_NR, .success_unseen = QUERY,
	    /* mm/shmem.c: no .fiemap in shmem_inode_operations. */
	    .skip[FS_TMPFS] = "tmpfs has no FIEMAP (EOPNOTSUPP)");

/* ioctl_ficlone(2): "not limited to" its list; ENOMEM as reflink's. */
FS_SCENARIO(clone_range, .prepare = prep_clone_range,
	    .action = act_clone_range, .check = check_clone_range, REMAP_SKIP);

/* ioctl_fideduperange(2): "ENOMEM The kernel was unable to allocate..." */
FS_SCENARIO(dedupe_range, .prepare = prep_dedupe, .action = act_dedupe,
	    .check = check_dedupe, .full = DD_LEN, REMAP_SKIP);

/*
 * mm/shmem.c:shmem_fileattr_set() allocates nothing; XFS's transaction is
 * __GFP_NOFAIL (xfs_trans_alloc(), fs/xfs/xfs_trans.c:262): no point
 * fired in either (6.12).
 */
FS_SCENARIO(chattr_append, .prepare = prep_a_ro, .action = act_append_only,
	    .check = check_append_only, .cleanup = clear_append,
	    .skip[FS_TMPFS] = "tmpfs sets an inode flag without allocating",
	    .skip[FS_XFS] = "XFS sets an inode flag with __GFP_NOFAIL allocations");

/*
 * fs/verity/ users in 6.12: ext4, f2fs, btrfs (fsverity_operations).
 * btrfs's would cost the sweep's time of ext4's (3.5 s, writeback of the
 * data and the tree at each point) to meet F31's abort again, in
 * btrfs_orphan_add() (fs/btrfs/verity.c:btrfs_begin_enable_verity()).
 */
FS_SCENARIO(verity, .prepare = prep_verity, .action = act_verity,
	    .check = check_verity,
	    .skip[FS_TMPFS] = "tmpfs has no fs-verity",
	    .skip[FS_XFS] = "XFS has no fs-verity in 6.12",
	    .skip[FS_BTRFS] = "btrfs fs-verity: ext4's sweep time, F31's abort");
/* clang-format on */

/* fs/crypto/ users in 6.12: ext4, f2fs, ubifs, ceph (fscrypt_operations). */
#define FSCRYPT_SKIP                              \
	.skip[FS_TMPFS] = "tmpfs has no fscrypt", \
	.skip[FS_XFS] = "XFS has no fscrypt",     \
	.skip[FS_BTRFS] = "btrfs has no fscrypt in 6.12"

/* clang-format off */
FS_SCENARIO(fscrypt_add_key, .prepare = prep_fc_nokey,
	    .action = act_fc_add_key, .check = check_fc_add_key, FSCRYPT_SKIP);

FS_SCENARIO(fscrypt_set_policy, .prepare = prep_fc_dir,
	    .action = act_fc_set_policy, .check = check_fc_set_policy,
	    FSCRYPT_SKIP);

FS_SCENARIO(fscrypt_create, .prepare = prep_fc_enc, .action = act_fc_create,
	    .check = check_fc_create, .returns_fd = true, FSCRYPT_SKIP);

FS_SCENARIO(fscrypt_names, .prepare = prep_fc_names, .action = act_fc_names,
	    .check = check_fc_names, .success_unseen = QUERY, FSCRYPT_SKIP);

FS_SCENARIO(fscrypt_remove_key, .prepare = prep_fc_files,
	    .action = act_fc_remove_key, .check = check_fc_remove_key,
	    FSCRYPT_SKIP);
/* clang-format on */

/* A filesystem made on the scratch device, and the tools that make it. */
struct disk_fs {
	const char *type;
	unsigned long magic;
	/* mkfs, then a read-only check; DISK_DEV stands for the device. */
	const char *const *mkfs, *const *fsck;
	/* Why a test skips without the tools, or without the kernel's. */
	const char *no_tools, *no_kernel;
	/* Made on a loop device of its own, not on the scratch device. */
	bool on_loop;
	/* Checked by fsck after a per-call sweep: statfs cannot tell. */
	bool fsck_after;
};

#define DISK_DEV "@dev"
#define XFS_MAGIC 0x58465342
#define EXT4_MAGIC 0xef53
#define BTRFS_MAGIC 0x9123683e

/* clang-format off */
/* -K: no discard pass (UML ubd: up to 3.8 s a mkfs without, < 0.25 s with) */
static const char *const xfs_mkfs[] = {
	"mkfs.xfs", "-f", "-q", "-K", DISK_DEV, NULL
};

static const char *const xfs_fsck[] = { "xfs_repair", "-n", DISK_DEV, NULL };
/* clang-format on */

static const struct disk_fs disk_xfs = {
	.type = "xfs",
	.magic = XFS_MAGIC,
	.mkfs = xfs_mkfs,
	.fsck = xfs_fsck,
	.no_tools = "mkfs.xfs or xfs_repair not found: install xfsprogs",
	.no_kernel = "XFS missing: needs CONFIG_XFS_FS",
};

/*
 * 64 MB of the device: a quick mkfs and e2fsck. The inode tables and the
 * journal are written by mkfs, so that no ext4lazyinit thread writes them
 * in the background of a sweep. ea_inode: an xattr value larger than a
 * block (the scenarios' user.big) goes in an inode of its own. verity and
 * encrypt: FS_IOC_ENABLE_VERITY and fscrypt policies (ext4_has_feature_*).
 */
/* clang-format off */
static const char *const ext4_mkfs[] = {
	"mkfs.ext4", "-F", "-q", "-O", "ea_inode,verity,encrypt", "-E",
	"nodiscard,lazy_itable_init=0,lazy_journal_init=0", DISK_DEV, "64M",
	NULL
};

static const char *const ext4_fsck[] = { "e2fsck", "-f", "-n", DISK_DEV, NULL };
/* clang-format on */

/* clang-format off */
static const char *const btrfs_mkfs[] = {
	"mkfs.btrfs", "-f", "-q", "-K", DISK_DEV, NULL
};

static const char *const btrfs_fsck[] = {
	"btrfs", "check", "--readonly", DISK_DEV, NULL
};

/* clang-format on */

/*
 * On a loop device over the scratch device: a mount that fails to set up
 * its bdi keeps the device open until the kernel stops (F30), and the
 * scratch device must stay free for the tests after it. btrfs counts no
 * inodes, so the per-call sweeps check its metadata with btrfs check once
 * they are over.
 */
static const struct disk_fs disk_btrfs = {
	.type = "btrfs",
	.magic = BTRFS_MAGIC,
	.mkfs = btrfs_mkfs,
	.fsck = btrfs_fsck,
	.no_tools = "mkfs.btrfs or btrfs not found: install btrfs-progs",
	.no_kernel = "btrfs missing: needs CONFIG_BTRFS_FS",
	/* A failed mount can keep its device open for good (F30). */
	.on_loop = true,
	.fsck_after = true,
};

static const struct disk_fs disk_ext4 = {
	.type = "ext4",
	.magic = EXT4_MAGIC,
	.mkfs = ext4_mkfs,
	.fsck = ext4_fsck,
	.no_tools = "mkfs.ext4 or e2fsck not found: install e2fsprogs",
	.no_kernel = "ext4 missing: needs CONFIG_EXT4_FS",
};

/* Runs @tmpl with DISK_DEV replaced by @dev: run_cmd()'s value. */
static int disk_run(const char *const *tmpl, const char *dev)
{
	char *argv[16];
	int i;

	for (i = 0; tmpl[i] && i < 15; i++)
		argv[i] = (char *)(strcmp(tmpl[i], DISK_DEV) ? tmpl[i] : dev);
	argv[i] = NULL;
	return run_cmd(argv, 60);
}

/* After a sweep: @d's read-only check must find @dev consistent. */
static void disk_fsck(struct __test_metadata *_metadata,
		      const struct disk_fs *d, const char *dev)
{
	int err = disk_run(d->fsck, dev);

	EXPECT_EQ(0, err)
	{
		TH_LOG("%s of %s after the sweep: exit %d: the filesystem is damaged",
		       d->fsck[0], dev, err);
	}
}

/* Skip reasons too long for a return line. */
#define REASON_NO_DEV \
	"set OOM_SCRATCH_DEV to a spare block device of >= 300 MB that may be formatted"
#define REASON_NOT_BLOCK \
	"OOM_SCRATCH_DEV is not a block device: set it to a spare one of >= 300 MB that may be formatted"

/* Formats the scratch device, or says why a person cannot here. */
static const char *disk_format(struct __test_metadata *_metadata,
			       const struct disk_fs *d, const char *dev)
{
	struct timespec start;
	struct stat st;
	int ret;

	if (!dev || !*dev)
		return REASON_NO_DEV;
	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return REASON_NOT_BLOCK;
	clock_gettime(CLOCK_MONOTONIC, &start);
	ret = disk_run(d->mkfs, dev);
	if (ret == 127)
		return d->no_tools;
	EXPECT_EQ(0, ret)
	{
		TH_LOG("%s %s: %s %d", d->mkfs[0], dev,
		       ret < 0 ? strerror(-ret) : "exit status", ret);
	}
	if (ret)
		return "";
	ksft_print_msg("fs mkfs: type=%s secs=%.3f\n", d->type,
		       failnth_elapsed(&start));
	return NULL;
}

/*
 * A loop device over the scratch device @dev, its path in *@devp; its node
 * and loop-control's on a small tmpfs on LOOP_NODES, in the test's own
 * mount namespace. A filesystem that keeps the loop device claimed (F30)
 * leaves the scratch device itself unclaimed for the tests after it, and
 * its writes on the disk, not in memory. The loop device detaches itself
 * (LO_FLAGS_AUTOCLEAR) when the test process, which holds it open, exits
 * and nothing else holds it.
 */
#define LOOP_NODES "/mnt"

/* loop-control, from a node made in @dir: its fd, or -errno. */
static int loop_ctl_open(const char *dir)
{
	char node[64];
	int fd;

	snprintf(node, sizeof(node), "%s/loop-control", dir);
	if (mknod(node, S_IFCHR | 0600, makedev(10, 237)))
		return -errno;
	fd = open(node, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static char loop_path[64];
static int loop_fd = -1;

static const char *loop_scratch(struct __test_metadata *_metadata,
				const char *dev, const char **devp)
{
	struct loop_config cfg = { .info.lo_flags = LO_FLAGS_AUTOCLEAR };
	int ctl, nr, fd;

	if (!dev || !*dev)
		return REASON_NO_DEV;
	if (mount("failnth", LOOP_NODES, "tmpfs", 0, "size=1m,mode=0700"))
		return "cannot mount a tmpfs on " LOOP_NODES;
	ctl = loop_ctl_open(LOOP_NODES);
	if (ctl == -ENODEV || ctl == -ENXIO)
		return "no loop devices: needs CONFIG_BLK_DEV_LOOP";
	ASSERT_LE(0, ctl);
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	ASSERT_LE(0, nr);
	snprintf(loop_path, sizeof(loop_path), LOOP_NODES "/loop%d", nr);
	ASSERT_EQ(0, mknod(loop_path, S_IFBLK | 0600, makedev(7, nr)));
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return REASON_NOT_BLOCK;
	loop_fd = open(loop_path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, loop_fd);
	cfg.fd = fd;
	ASSERT_EQ(0, ioctl(loop_fd, LOOP_CONFIGURE, &cfg));
	close(fd);
	*devp = loop_path;
	return NULL;
}

/*
 * A private mount namespace with a fresh @d (or a tmpfs, @d NULL) on
 * FS_DIR, its device in *@devp (@devp may be NULL): NULL, or why the test
 * skips ("" when an EXPECT failed).
 */
static const char *fresh_mount(struct __test_metadata *_metadata,
			       const struct disk_fs *d, const char **devp)
{
	const char *dev = getenv("OOM_SCRATCH_DEV"), *why;
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
	if (d && d->on_loop) {
		why = loop_scratch(_metadata, dev, &dev);
		if (why)
			return why;
	}
	if (devp)
		*devp = dev;
	if (d) {
		why = disk_format(_metadata, d, dev);
		if (why)
			return why;
		err = mount(dev, FS_DIR, d->type, 0, NULL) ? errno : 0;
		if (err == ENODEV)
			return d->no_kernel;
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
		TH_LOG("mounting %s on %s: %s", d ? dev : "a tmpfs", FS_DIR,
		       strerror(err));
	}
	return err ? "" : NULL;
}

static const struct disk_fs *const fs_disk[] = {
	[FS_TMPFS] = NULL,
	[FS_XFS] = &disk_xfs,
	[FS_EXT4] = &disk_ext4,
	[FS_BTRFS] = &disk_btrfs,
};

/*
 * A fresh filesystem of @kind on FS_DIR, in a private mount namespace.
 * Returns NULL, or why the test skips.
 */
static const char *fs_mount(struct __test_metadata *_metadata,
			    struct fs_ctx *fs, const struct fs_op *op,
			    enum fs_kind kind)
{
	const struct disk_fs *d = fs_disk[kind];
	const char *why;
	int err;

	fs->dirfd = -1;
	fs->fd = -1;
	fs->kind = kind;
	fs->op = op;
	snprintf(fs->name, sizeof(fs->name), "%s_%s", d ? d->type : "tmpfs",
		 op->name);
	why = failnth_missing();
	if (why)
		return why;
	if (op->skip[kind])
		return op->skip[kind];
	if (op->cachestat && !fs_cachestat_works())
		return "no cachestat(2) (linux 6.5): the check cannot tell dirty pages";
	if (d && d->fsck_after && !in_path(d->fsck[0]))
		return d->no_tools;
	why = fresh_mount(_metadata, d, &fs->dev);
	if (why)
		return why;
	/* Not a name of the scenario's: cleanup would remove it. */
	if (kind == FS_EXT4 && rmdir(FS_DIR "/lost+found"))
		err = -errno;
	else
		err = 0;
	fs->dirfd = open(FS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!err)
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
	const struct disk_fs *d = fs_disk[fs->kind];

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
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
		return;
	}
	if (!d || !d->fsck_after)
		return;
	disk_fsck(_metadata, d, fs->dev);
}

/* An empty reason: an EXPECT failed, the test stops without teardown. */
FIXTURE_SETUP(tmpfs)
{
	const char *why = fs_mount(_metadata, &self->fs, variant->op, FS_TMPFS);

	if (why && *why)
		SKIP(return, "%s", why);
}

FIXTURE_SETUP(xfs)
{
	const char *why = fs_mount(_metadata, &self->fs, variant->op, FS_XFS);

	if (why && *why)
		SKIP(return, "%s", why);
}

FIXTURE_SETUP(ext4)
{
	const char *why = fs_mount(_metadata, &self->fs, variant->op, FS_EXT4);

	if (why && *why)
		SKIP(return, "%s", why);
}

FIXTURE_SETUP(btrfs)
{
	const char *why = fs_mount(_metadata, &self->fs, variant->op, FS_BTRFS);

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

FIXTURE_TEARDOWN(ext4)
{
	fs_unmount(_metadata, &self->fs);
}

FIXTURE_TEARDOWN(btrfs)
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

	if (fs->op->cleanup)
		fs->op->cleanup(fs);
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
	const int *allowed = fs->kind == FS_TMPFS ? fs->op->tmpfs_errnos : NULL;
	const struct failnth_scenario sc = {
		.name = fs->name,
		.allowed = allowed	  ? allowed :
			   fs->op->errnos ? fs->op->errnos :
					    enomem_only,
		.full = fs->op->full,
		.success_unseen = fs->op->success_unseen,
		.failure_unseen = fs->op->failure_unseen,
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

FAILNTH_SWEEP(ext4, SWEEP_TIMEOUT)
{
	fs_sweep(_metadata, &self->fs, mode);
}

FAILNTH_SWEEP(btrfs, SWEEP_TIMEOUT)
{
	fs_sweep(_metadata, &self->fs, mode);
}

/*
 * The mount of an XFS, an ext4 or a btrfs itself, and when a step fails
 * its unwinding. XFS: xfs_fs_fill_super() and xfs_mountfs() (the
 * superblock, per-CPU counters, workqueues, sysfs objects, the log and its
 * recovery pass, the root inode). ext4: __ext4_fill_super() (group
 * descriptors, flex groups, the multiblock allocator's caches, the extent
 * status shrinker, the journal: jbd2's journal_t, revoke tables and
 * commit thread). btrfs: open_ctree() (the fs_info, its workqueues and
 * kthreads, the chunk, root and extent trees read in, the block groups,
 * the free space cache). The device is formatted once; a failed mount
 * must leave nothing mounted, a success a working filesystem, and after
 * the sweep the filesystem's own read-only check (xfs_repair -n, e2fsck
 * -fn, btrfs check --readonly) must find it consistent.
 *
 * xfs_quota_mount mounts with user, group and project quotas on a
 * filesystem that never had them: each point's mount runs quotacheck
 * (xfs_qm_quotacheck(): a dquot for each id it meets) until one succeeds,
 * and a success must report the user quota on.
 */
struct mount_ctx {
	const struct disk_fs *d;
	const char *dev;
	/* Mount options; with quotas, a success must have them on. */
	const char *opts;
	bool quota;
	/* The device of FS_DIR when nothing is mounted on it. */
	dev_t base_dev;
	bool formatted;
	/* Whether the device was held before the point (an earlier leak). */
	bool held;
};

FIXTURE(xfs_mount)
{
	struct mount_ctx ctx;
};

FIXTURE(ext4_mount)
{
	struct mount_ctx ctx;
};

FIXTURE(xfs_quota_mount)
{
	struct mount_ctx ctx;
};

FIXTURE(btrfs_mount)
{
	struct mount_ctx ctx;
};

/* Formats and mounts @d once, unarmed: a kernel without it skips. */
static void disk_mount_setup(struct __test_metadata *_metadata,
			     struct mount_ctx *c, const struct disk_fs *d)
{
	const char *why = failnth_missing();
	struct stat sb;
	int err;

	c->d = d;
	c->dev = getenv("OOM_SCRATCH_DEV");
	if (why)
		SKIP(return, "%s", why);
	if (!in_path(d->fsck[0]))
		SKIP(return, "%s", d->no_tools);
	why = fresh_mount(_metadata, d, &c->dev);
	if (why && *why)
		SKIP(return, "%s", why);
	ASSERT_EQ(NULL, why);
	c->formatted = true;
	ASSERT_EQ(0, umount(FS_DIR));
	ASSERT_EQ(0, stat(FS_DIR, &sb));
	c->base_dev = sb.st_dev;
	if (!c->quota)
		return;
	/* Whether the kernel can; then formatted again, no quota checked. */
	err = mount(c->dev, FS_DIR, d->type, 0, c->opts) ? errno : 0;
	if (err == EINVAL)
		SKIP(return, "no %s quotas: needs CONFIG_XFS_QUOTA", d->type);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, quota_on(FS_DIR));
	ASSERT_EQ(0, umount(FS_DIR));
	ASSERT_EQ(NULL, disk_format(_metadata, d, c->dev));
}

/* Whether nothing holds @dev: an exclusive open succeeds (0, or -errno). */
static int device_free(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* After the sweep: the filesystem the failed mounts left is consistent. */
static void disk_mount_teardown(struct __test_metadata *_metadata,
				struct mount_ctx *c)
{
	int err;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	umount2(FS_DIR, MNT_DETACH);
	if (!c->formatted)
		return;
	err = device_free(c->dev);
	EXPECT_EQ(0, err)
	{
		TH_LOG("after the sweep, %s is still held: %s", c->dev,
		       strerror(-err));
	}
	if (err)
		return;
	disk_fsck(_metadata, c->d, c->dev);
}

FIXTURE_SETUP(xfs_mount)
{
	disk_mount_setup(_metadata, &self->ctx, &disk_xfs);
}

FIXTURE_SETUP(ext4_mount)
{
	disk_mount_setup(_metadata, &self->ctx, &disk_ext4);
}

FIXTURE_SETUP(btrfs_mount)
{
	disk_mount_setup(_metadata, &self->ctx, &disk_btrfs);
}

FIXTURE_SETUP(xfs_quota_mount)
{
	self->ctx.opts = "uquota,gquota,pquota";
	self->ctx.quota = true;
	disk_mount_setup(_metadata, &self->ctx, &disk_xfs);
}

FIXTURE_TEARDOWN(xfs_mount)
{
	disk_mount_teardown(_metadata, &self->ctx);
}

FIXTURE_TEARDOWN(ext4_mount)
{
	disk_mount_teardown(_metadata, &self->ctx);
}

FIXTURE_TEARDOWN(xfs_quota_mount)
{
	disk_mount_teardown(_metadata, &self->ctx);
}

FIXTURE_TEARDOWN(btrfs_mount)
{
	disk_mount_teardown(_metadata, &self->ctx);
}

/*
 * Once a failed mount has kept the device (F30), no later point can show
 * whether it would have: those points judge the rest.
 */
static void disk_mount_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mount_ctx *c = arg;

	c->held = device_free(c->dev) != 0;
}

static int disk_mount_action(void *arg)
{
	struct mount_ctx *c = arg;

	return mount(c->dev, FS_DIR, c->d->type, 0, c->opts) ? -errno : 0;
}

/*
 * A success is the filesystem on FS_DIR, where a file can be written and
 * read back; a failure left FS_DIR as it was, nothing mounted on it.
 */
static bool disk_mount_check(void *arg, int ret, char *why, size_t size)
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
		if (sb.st_dev != c->base_dev) {
			snprintf(why, size,
				 "mount failed, yet %s is mounted (type %#lx)",
				 FS_DIR, (unsigned long)sfs.f_type);
			return false;
		}
		/* Nor may the failed mount still hold the device. */
		err = c->held ? 0 : device_free(c->dev);
		if (err) {
			snprintf(why, size, "mount failed, yet %s is held: %s",
				 c->dev, strerror(-err));
			return false;
		}
		return true;
	}
	if (sb.st_dev == c->base_dev || sfs.f_type != c->d->magic) {
		snprintf(why, size, "mount succeeded, but no %s on %s",
			 c->d->type, FS_DIR);
		return false;
	}
	err = dir_usable(FS_DIR);
	if (err) {
		snprintf(why, size, "the mounted %s is not usable: %s",
			 c->d->type, strerror(-err));
		return false;
	}
	err = c->quota ? quota_on(FS_DIR) : 0;
	if (err) {
		snprintf(why, size,
			 "mounted with %s, but the user quota is off: %s",
			 c->opts, strerror(-err));
		return false;
	}
	return true;
}

static void disk_mount_cleanup(struct __test_metadata *_metadata, void *arg,
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
	const char *why = failnth_missing();
	int err;

	if (why)
		SKIP(return, "%s", why);
	if (access("/proc/swaps", R_OK))
		SKIP(return, "no /proc/swaps: needs CONFIG_SWAP");
	ASSERT_EQ(0, swap_listed());
	why = fresh_mount(_metadata, &disk_xfs, NULL);
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
	EXPECT_EQ(0, knobs_restore());
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

/*
 * The making of a block device: LOOP_CTL_ADD of loop device LOOP_NR
 * (drivers/block/loop.c:loop_add(): its tag set, request queue, gendisk
 * and add_disk(), which registers the device, its sysfs directories, the
 * bdi and the holder directories). A success must be a loop device that
 * opens, unbound, and that LOOP_CTL_REMOVE takes back; a failure must
 * leave no trace in sysfs and the number free for the next point.
 */
#define LOOP_NR 200
#define LOOP_DEV FS_DIR "/loop-dev"
#define LOOP_STR(x) #x
#define LOOP_SYSFS_OF(nr) "/sys/dev/block/7:" LOOP_STR(nr)
#define LOOP_SYSFS LOOP_SYSFS_OF(LOOP_NR)

FIXTURE(loop_add)
{
	int ctl;
};

FIXTURE_SETUP(loop_add)
{
	const char *why = failnth_missing();
	int err;

	self->ctl = -1;
	if (why)
		SKIP(return, "%s", why);
	if (access("/sys/dev/block", F_OK))
		SKIP(return, "no /sys/dev/block: mount sysfs on /sys");
	if (!access(LOOP_SYSFS, F_OK))
		SKIP(return, "loop%d is in use here", LOOP_NR);
	/* Nodes of its own, on a private tmpfs: /dev may be a host's. */
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("failnth", FS_DIR, "tmpfs", 0, "size=1m,mode=0700"));
	ASSERT_EQ(0, mknod(LOOP_DEV, S_IFBLK | 0600, makedev(7, LOOP_NR)));
	self->ctl = loop_ctl_open(FS_DIR);
	err = self->ctl < 0 ? -self->ctl : 0;
	if (err == ENODEV || err == ENXIO)
		SKIP(return, "no loop devices: needs CONFIG_BLK_DEV_LOOP");
	ASSERT_LE(0, self->ctl);
}

FIXTURE_TEARDOWN(loop_add)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	if (self->ctl < 0)
		return;
	if (!access(LOOP_SYSFS, F_OK))
		EXPECT_EQ(0, ioctl(self->ctl, LOOP_CTL_REMOVE, LOOP_NR));
	close(self->ctl);
}

static int loop_add_action(void *arg)
{
	int *ctl = arg;

	return ioctl(*ctl, LOOP_CTL_ADD, LOOP_NR) < 0 ? -errno : 0;
}

/*
 * Opening loop@LOOP_NR's node would make the device (loop_probe(), the
 * block layer's autoload): a failure is judged by sysfs alone.
 */
static bool loop_add_check(void *arg, int ret, char *why, size_t size)
{
	struct loop_info64 info;
	bool in_sysfs = !access(LOOP_SYSFS, F_OK);
	int fd, err;

	if (ret < 0) {
		if (!in_sysfs)
			return true;
		snprintf(why, size, "add failed, yet %s is there", LOOP_SYSFS);
		return false;
	}
	fd = in_sysfs ? open(LOOP_DEV, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		snprintf(why, size, "loop%d added, but %s", LOOP_NR,
			 in_sysfs ? strerror(errno) : LOOP_SYSFS " is missing");
		return false;
	}
	/* Unbound: no backing file yet. */
	err = ioctl(fd, LOOP_GET_STATUS64, &info) ? errno : 0;
	close(fd);
	if (err != ENXIO) {
		snprintf(why, size, "the new loop%d's LOOP_GET_STATUS64: %s",
			 LOOP_NR, err ? strerror(err) : "bound to a file");
		return false;
	}
	return true;
}

static void loop_add_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	int *ctl = arg;

	if (ret < 0)
		return;
	ASSERT_EQ(0, ioctl(*ctl, LOOP_CTL_REMOVE, LOOP_NR))
	{
		TH_LOG("LOOP_CTL_REMOVE %d: %s", LOOP_NR, strerror(errno));
	}
}

/* Every point of LOOP_CTL_ADD fails in turn; see above. */
FAILNTH_SWEEP(loop_add, SWEEP_TIMEOUT)
{
	const struct failnth_scenario sc = {
		.name = "loop_add",
		.allowed = enomem_only,
		.deadline_s = SWEEP_TIMEOUT - 10,
		.arg = &self->ctl,
		.action = loop_add_action,
		.check = loop_add_check,
		.cleanup = loop_add_cleanup,
	};

	failnth_sweep(_metadata, &sc, mode);
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
static void disk_mount_sweep(struct __test_metadata *_metadata,
			     struct mount_ctx *c, enum failnth_mode mode)
{
	char name[32];
	const struct failnth_scenario sc = {
		.name = name,
		.allowed = enomem_only,
		.deadline_s = SWEEP_TIMEOUT - 10,
		.arg = c,
		.prepare = disk_mount_prepare,
		.action = disk_mount_action,
		.check = disk_mount_check,
		.cleanup = disk_mount_cleanup,
	};

	snprintf(name, sizeof(name), "%s_%smount", c->d->type,
		 c->quota ? "quota_" : "");
	failnth_sweep(_metadata, &sc, mode);
}

FAILNTH_SWEEP(xfs_mount, SWEEP_TIMEOUT)
{
	disk_mount_sweep(_metadata, &self->ctx, mode);
}

FAILNTH_SWEEP(ext4_mount, SWEEP_TIMEOUT)
{
	disk_mount_sweep(_metadata, &self->ctx, mode);
}

FAILNTH_SWEEP(xfs_quota_mount, SWEEP_TIMEOUT)
{
	disk_mount_sweep(_metadata, &self->ctx, mode);
}

FAILNTH_SWEEP(btrfs_mount, SWEEP_TIMEOUT)
{
	disk_mount_sweep(_metadata, &self->ctx, mode);
}

TEST_HARNESS_MAIN
