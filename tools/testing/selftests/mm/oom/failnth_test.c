// SPDX-License-Identifier: GPL-2.0
/*
 * Creating a name on tmpfs while its small allocations fail, one at a time.
 *
 * Each variant creates one name in a fresh, private tmpfs, with every
 * failslab and fail_page_alloc point on its path made to fail in turn (see
 * failnth.h). The call must succeed or fail with an allowed errno. A
 * success leaves exactly the new name; a failure leaves the directory as it
 * was; neither loses an inode, a block or an fd.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "failnth.h"

#define NAME "victim"

/*
 * The fresh tmpfs is mounted over /tmp in the test's own mount namespace:
 * nothing is created outside, and the mount goes away with the test
 * process however it ends.
 */
#define TMPFS_DIR "/tmp"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 50

/*
 * Clean failures of a create on tmpfs. shmem reports a failed inode
 * allocation as ENOSPC, not ENOMEM: mm/shmem.c:__shmem_get_inode() has
 * "return ERR_PTR(-ENOSPC);" when new_inode() fails (linux 6.12).
 */
static const int create_errnos[] = { ENOMEM, ENOSPC, 0 };

/* open(O_CREAT | O_EXCL) of NAME: returns the fd, else -errno. */
static int create_file(int dirfd)
{
	int fd;

	fd = openat(dirfd, NAME, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/* mkdir() of NAME: returns 0, else -errno. */
static int create_dir(int dirfd)
{
	return mkdirat(dirfd, NAME, 0700) ? -errno : 0;
}

/* How a variant creates NAME, and what it may end with. */
struct create_op {
	/* The scenario's name in the summary line. */
	const char *scenario;
	/* Creates NAME in a directory: returns >= 0, else -errno. */
	int (*create)(int dirfd);
	/* Whether a success returns an fd to close. */
	bool returns_fd;
	/* What a success creates: S_IFREG or S_IFDIR. */
	mode_t type;
	/* Clean failures, 0-terminated. */
	const int *allowed;
};

/* A fresh tmpfs, shared by the callbacks of a sweep. */
struct tmpfs_dir {
	int dirfd;
	/* When fresh: free inodes and blocks, and the root's links. */
	struct statfs fresh;
	struct stat fresh_root;
	const struct create_op *op;
};

FIXTURE(tmpfs_create)
{
	struct tmpfs_dir tmp;
};

FIXTURE_VARIANT(tmpfs_create)
{
	const struct create_op op;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(tmpfs_create, open_creat) {
	/* clang-format on */
	.op = {
		.scenario = "tmpfs_open_creat",
		.create = create_file,
		.returns_fd = true,
		.type = S_IFREG,
		.allowed = create_errnos,
	},
};

/* clang-format off */
FIXTURE_VARIANT_ADD(tmpfs_create, mkdir) {
	/* clang-format on */
	.op = {
		.scenario = "tmpfs_mkdir",
		.create = create_dir,
		.returns_fd = false,
		.type = S_IFDIR,
		.allowed = create_errnos,
	},
};

/* A fresh tmpfs on TMPFS_DIR, in a private mount namespace. */
FIXTURE_SETUP(tmpfs_create)
{
	const char *missing = failnth_missing();
	struct tmpfs_dir *tmp = &self->tmp;
	const char *what;
	int err;

	if (missing)
		SKIP(return, "%s", missing);
	if (unshare(CLONE_NEWNS))
		SKIP(return, "cannot unshare the mount namespace: %s",
			   strerror(errno));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
	{
		TH_LOG("making / private: %s", strerror(errno));
	}
	if (mount("failnth", TMPFS_DIR, "tmpfs", 0, "size=1m,mode=0700")) {
		err = errno;
		if (err == EPERM)
			SKIP(return, "mounting a tmpfs is not permitted here");
		ASSERT_EQ(0, err)
		{
			TH_LOG("mounting a tmpfs on %s: %s", TMPFS_DIR,
			       strerror(err));
		}
	}
	tmp->dirfd = open(TMPFS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tmp->dirfd < 0) {
		err = errno;
		what = "opening";
		goto undo_mount;
	}
	if (fstatfs(tmp->dirfd, &tmp->fresh) ||
	    fstat(tmp->dirfd, &tmp->fresh_root)) {
		err = errno;
		what = "stat of";
		goto undo_open;
	}
	tmp->op = &variant->op;
	return;

undo_open:
	close(tmp->dirfd);
undo_mount:
	umount2(TMPFS_DIR, MNT_DETACH);
	ASSERT_EQ(0, err)
	{
		TH_LOG("%s the fresh tmpfs on %s: %s", what, TMPFS_DIR,
		       strerror(err));
	}
}

FIXTURE_TEARDOWN(tmpfs_create)
{
	struct tmpfs_dir *tmp = &self->tmp;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, failnth_knobs_restore());
	EXPECT_EQ(0, close(tmp->dirfd));
	/* Detached: an fd leaked by a failed point must not keep it busy. */
	EXPECT_EQ(0, umount2(TMPFS_DIR, MNT_DETACH))
	{
		TH_LOG("unmounting %s: %s", TMPFS_DIR, strerror(errno));
	}
}

static int tmpfs_create_action(void *arg)
{
	struct tmpfs_dir *tmp = arg;

	return tmp->op->create(tmp->dirfd);
}

/* Returns 1 if readdir() of @dirfd lists NAME, 0 if not, or -errno. */
static int name_listed(int dirfd)
{
	struct dirent *de;
	int fd, found = 0;
	DIR *dir;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		found = -errno;
		close(fd);
		return found;
	}
	while ((de = readdir(dir)))
		if (!strcmp(de->d_name, NAME))
			found = 1;
	closedir(dir);
	return found;
}

/* A success made exactly NAME, of the variant's type, and nothing else. */
static bool created(struct tmpfs_dir *tmp, int ret, const struct stat *st,
		    const struct stat *dir_st, char *why, size_t size)
{
	const bool is_dir = tmp->op->type == S_IFDIR;
	struct stat fd_st;

	if ((st->st_mode & S_IFMT) != tmp->op->type) {
		snprintf(why, size, "%s has mode 0%o", NAME, st->st_mode);
		return false;
	}
	if (!is_dir && st->st_size) {
		snprintf(why, size, "new file %s has size %lld", NAME,
			 (long long)st->st_size);
		return false;
	}
	if (is_dir && st->st_nlink != 2) {
		snprintf(why, size, "new directory %s has %lu links", NAME,
			 (unsigned long)st->st_nlink);
		return false;
	}
	if (tmp->op->returns_fd &&
	    (fstat(ret, &fd_st) || fd_st.st_ino != st->st_ino ||
	     fd_st.st_dev != st->st_dev)) {
		snprintf(why, size, "fd %d does not refer to %s", ret, NAME);
		return false;
	}
	if (dir_st->st_nlink != tmp->fresh_root.st_nlink + is_dir) {
		snprintf(why, size, "parent has %lu links, %lu when fresh",
			 (unsigned long)dir_st->st_nlink,
			 (unsigned long)tmp->fresh_root.st_nlink);
		return false;
	}
	return true;
}

/* A failure left the directory as it was: no entry, no extra link. */
static bool not_created(struct tmpfs_dir *tmp, const struct stat *dir_st,
			char *why, size_t size)
{
	int listed = name_listed(tmp->dirfd);

	if (listed) {
		snprintf(why, size, "readdir %s %s",
			 listed > 0 ? "lists" : "failed, looking for", NAME);
		return false;
	}
	if (dir_st->st_nlink != tmp->fresh_root.st_nlink) {
		snprintf(why, size, "parent has %lu links, %lu when fresh",
			 (unsigned long)dir_st->st_nlink,
			 (unsigned long)tmp->fresh_root.st_nlink);
		return false;
	}
	return true;
}

static bool tmpfs_create_check(void *arg, int ret, char *why, size_t size)
{
	struct tmpfs_dir *tmp = arg;
	struct stat st, dir_st;

	if (fstat(tmp->dirfd, &dir_st)) {
		snprintf(why, size, "fstat of the parent: %s", strerror(errno));
		return false;
	}
	if (fstatat(tmp->dirfd, NAME, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			snprintf(why, size, "looking up %s: %s", NAME,
				 strerror(errno));
			return false;
		}
		if (ret >= 0) {
			snprintf(why, size, "%s missing after success", NAME);
			return false;
		}
		return not_created(tmp, &dir_st, why, size);
	}
	if (ret < 0) {
		snprintf(why, size, "%s exists after failure (mode 0%o)", NAME,
			 st.st_mode);
		return false;
	}
	return created(tmp, ret, &st, &dir_st, why, size);
}

static void tmpfs_create_cleanup(struct __test_metadata *_metadata, void *arg,
				 int ret)
{
	struct tmpfs_dir *tmp = arg;
	int flags = tmp->op->type == S_IFDIR ? AT_REMOVEDIR : 0;

	int err;

	if (ret >= 0 && tmp->op->returns_fd)
		ASSERT_EQ(0, close(ret));
	err = unlinkat(tmp->dirfd, NAME, flags) ? errno : 0;
	if (err == ENOENT)
		return;
	ASSERT_EQ(0, err)
	{
		TH_LOG("removing %s: %s", NAME, strerror(err));
	}
}

/* Back to fresh: the inode and blocks of a success or a failure are freed. */
static bool tmpfs_create_settled(void *arg, char *why, size_t size)
{
	struct tmpfs_dir *tmp = arg;
	struct statfs sfs;

	if (fstatfs(tmp->dirfd, &sfs)) {
		snprintf(why, size, "fstatfs: %s", strerror(errno));
		return false;
	}
	if (sfs.f_ffree != tmp->fresh.f_ffree) {
		snprintf(why, size, "%llu free inodes, %llu when fresh",
			 (unsigned long long)sfs.f_ffree,
			 (unsigned long long)tmp->fresh.f_ffree);
		return false;
	}
	if (sfs.f_bfree != tmp->fresh.f_bfree) {
		snprintf(why, size, "%llu free blocks, %llu when fresh",
			 (unsigned long long)sfs.f_bfree,
			 (unsigned long long)tmp->fresh.f_bfree);
		return false;
	}
	return true;
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's create fails in turn. Each call must
 * succeed or fail with ENOMEM or ENOSPC; a success leaves exactly the new
 * name, a failure leaves the directory untouched, and neither loses an
 * inode, a block or an fd.
 */
static void tmpfs_create_sweep(struct __test_metadata *_metadata,
			       FIXTURE_DATA(tmpfs_create) * self,
			       const FIXTURE_VARIANT(tmpfs_create) * variant,
			       enum failnth_mode mode)
{
	const struct failnth_scenario sc = {
		.name = variant->op.scenario,
		.allowed = variant->op.allowed,
		.deadline_s = SWEEP_TIMEOUT - 10,
		.arg = &self->tmp,
		.action = tmpfs_create_action,
		.check = tmpfs_create_check,
		.cleanup = tmpfs_create_cleanup,
		.settled = tmpfs_create_settled,
	};

	failnth_sweep(_metadata, &sc, mode);
}

FAILNTH_TEST_MODES(tmpfs_create, SWEEP_TIMEOUT, tmpfs_create_sweep)

TEST_HARNESS_MAIN
