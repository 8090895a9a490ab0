/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filesystem under a fail-nth sweep: a fresh tmpfs or a fresh XFS on a
 * spare block device, mounted in the test's own mount namespace, and the
 * small verbs the scenarios check it with (names in a directory, file
 * contents, free inodes and blocks).
 *
 * Helpers that return int return 0 or -errno; the bool ones say what they
 * found in @why. None of them asserts, so the scenarios' checks can use
 * them.
 */

#ifndef __SELFTESTS_MM_OOM_FAILNTH_FS_H
#define __SELFTESTS_MM_OOM_FAILNTH_FS_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The filesystem is mounted over this directory in the test's own mount
 * namespace: nothing is created outside, and the mount goes away with the
 * test process however it ends.
 */
#define FS_DIR "/tmp"

/* XFS_IOC_FREE_EOFBLOCKS, from fs/xfs/libxfs/xfs_fs.h (no xfslibs-dev). */
struct fs_xfs_eofblocks {
	uint32_t eof_version;
	uint32_t eof_flags;
	uint32_t eof_uid;
	uint32_t eof_gid;
	uint32_t eof_prid;
	uint32_t pad32;
	uint64_t eof_min_file_size;
	uint64_t pad64[12];
};

#define FS_XFS_EOFBLOCKS_VERSION 1
#define FS_XFS_EOF_FLAGS_SYNC 0x1
#define FS_XFS_IOC_FREE_EOFBLOCKS _IOR('X', 58, struct fs_xfs_eofblocks)

/* cachestat(2) (linux 6.5), which this libc's headers lack. */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct fs_cachestat_range {
	uint64_t off, len;
};

struct fs_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		nr_recently_evicted;
};

/* Whether the kernel has cachestat(2): an fd of -1 is EBADF if it has. */
static bool fs_cachestat_works(void)
{
	return syscall(__NR_cachestat, -1, NULL, NULL, 0) && errno != ENOSYS;
}

/* The page-cache state of @fd's first @len bytes, in *@cs: 0 or -errno. */
static int fs_cachestat(int fd, uint64_t len, struct fs_cachestat *cs)
{
	struct fs_cachestat_range r = { 0, len };

	return syscall(__NR_cachestat, fd, &r, cs, 0) ? -errno : 0;
}

/* Bound on a directory listing in names_in(). */
#define FS_NAMES_SIZE 4096

/* The filesystems the per-call scenarios run on. */
enum fs_kind {
	FS_TMPFS,
	FS_XFS,
	FS_EXT4,
	FS_BTRFS,
	FS_KINDS,
};

/* The filesystem of a sweep, shared by a scenario's callbacks. */
struct fs_ctx {
	/* The root of the fresh filesystem. */
	int dirfd;
	enum fs_kind kind;
	/* Its block device (btrfs: the loop device); unused on tmpfs. */
	const char *dev;
	/* When fresh: free inodes and blocks, and the root's links. */
	struct statfs fresh;
	struct stat fresh_root;
	/* What the scenario's prepare left open, or -1. */
	int fd;
	/* Inode numbers of "a" and "b" after prepare. */
	ino_t ino_a, ino_b;
	/* Scenario name for the summary: <fs>_<scenario>. */
	char name[64];
	const struct fs_op *op;
	/* Blocks of "a" after prepare. */
	blkcnt_t blocks_a;
	/* A shared mapping of fs->fd that prepare made, or NULL. */
	void *map;
};

/*
 * A scenario, the same on every filesystem: a few names in the root, one
 * call under test, and what that call may end with.
 */
struct fs_op {
	const char *name;
	/* Sets up the names the action works on (unarmed). Optional. */
	void (*prepare)(struct __test_metadata *_metadata, struct fs_ctx *fs);
	/* The call under test: >= 0 on success, else -errno. */
	int (*action)(struct fs_ctx *fs);
	/* Success: the effect complete; failure: nothing changed. */
	bool (*check)(struct fs_ctx *fs, int ret, char *why, size_t size);
	/* What a complete success returns (bytes); 0: no count. */
	long full;
	/* A success returns an fd to close. */
	bool returns_fd;
	/* Clean errnos, 0-terminated, each with its source; NULL: ENOMEM. */
	const int *errnos;
	/* The same on tmpfs, where they differ; NULL: errnos. */
	const int *tmpfs_errnos;
	/* Its check reads the page cache with cachestat(2) (linux 6.5). */
	bool cachestat;
	/* Undoes what keeps cleanup from removing the names. Optional. */
	void (*cleanup)(struct fs_ctx *fs);
	/* Why a filesystem has no such call or no point on its path: skip. */
	const char *skip[FS_KINDS];
	/* Why a success leaves nothing to tell from a failure (failnth.h). */
	const char *success_unseen;
	/* Why a failure may leave what a success leaves (failnth.h). */
	const char *failure_unseen;
};

/* Byte @off of the file content numbered @seed: not periodic in a page. */
static inline uint8_t fs_byte(uint64_t off, int seed)
{
	return (uint8_t)(off * 7 + (off >> 9) * 13 + seed * 101 + 1);
}

static void fs_fill(uint8_t *buf, size_t len, uint64_t off, int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = fs_byte(off + i, seed);
}

/*
 * Whether bytes [@off, @off + @len) of @fd are those at @off + @shift of
 * content @seed (seed -1: zeros); else the first byte that differs, in
 * @why.
 */
static bool fs_data_from(int fd, uint64_t off, uint64_t len, int seed,
			 int64_t shift, const char *what, char *why,
			 size_t size)
{
	static uint8_t buf[64 * 1024];
	uint64_t done = 0;
	ssize_t ret;
	size_t i;

	while (done < len) {
		size_t chunk = len - done < sizeof(buf) ? len - done :
							  sizeof(buf);

		ret = pread(fd, buf, chunk, off + done);
		if (ret <= 0) {
			snprintf(why, size, "%s: read at %llu: %s", what,
				 (unsigned long long)(off + done),
				 ret ? strerror(errno) : "end of file");
			return false;
		}
		for (i = 0; i < (size_t)ret; i++) {
			uint64_t at = off + done + i;
			uint8_t want = seed < 0 ? 0 : fs_byte(at + shift, seed);

			if (buf[i] != want) {
				snprintf(why, size,
					 "%s: byte %llu is 0x%02x, not 0x%02x",
					 what, (unsigned long long)at, buf[i],
					 want);
				return false;
			}
		}
		done += ret;
	}
	return true;
}

/* Whether bytes [@off, @off + @len) of @fd are content @seed (-1: zeros). */
static bool fs_data_is(int fd, uint64_t off, uint64_t len, int seed,
		       const char *what, char *why, size_t size)
{
	return fs_data_from(fd, off, len, seed, 0, what, why, size);
}

/* Writes @len bytes of content @seed at @off of @fd; returns 0 or -errno. */
static int fs_write_data(int fd, uint64_t off, size_t len, int seed)
{
	static uint8_t buf[64 * 1024];
	size_t done = 0;
	ssize_t ret;

	while (done < len) {
		size_t chunk = len - done < sizeof(buf) ? len - done :
							  sizeof(buf);

		fs_fill(buf, chunk, off + done, seed);
		ret = pwrite(fd, buf, chunk, off + done);
		if (ret <= 0)
			return ret ? -errno : -EIO;
		done += ret;
	}
	return 0;
}

/* Creates @name in @dirfd with @len bytes of content @seed; 0 or -errno. */
static int fs_make_file(int dirfd, const char *name, size_t len, int seed)
{
	int fd, err;

	fd = openat(dirfd, name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = fs_write_data(fd, 0, len, seed);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

#define FS_FILE_IS_FMT \
	"%s: mode 0%o size %lld links %lu inode %lu, want a file of %llu bytes, %lu links, inode %lu"

/*
 * Whether @name is a regular file of @len bytes of content @seed, with
 * @nlink links (and inode @ino unless 0).
 */
static bool fs_file_is(int dirfd, const char *name, uint64_t len, int seed,
		       nlink_t nlink, ino_t ino, char *why, size_t size)
{
	struct stat st;
	bool ok;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, size, "%s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (!S_ISREG(st.st_mode) || st.st_size != (off_t)len ||
	    st.st_nlink != nlink || (ino && st.st_ino != ino)) {
		snprintf(why, size, FS_FILE_IS_FMT, name, st.st_mode,
			 (long long)st.st_size, (unsigned long)st.st_nlink,
			 (unsigned long)st.st_ino, (unsigned long long)len,
			 (unsigned long)nlink, (unsigned long)ino);
		close(fd);
		return false;
	}
	ok = fs_data_is(fd, 0, len, seed, name, why, size);
	close(fd);
	return ok;
}

static int fs_names_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Lists @dirfd's entries, but "." and "..", sorted and joined by ',' into
 * @out (empty for an empty directory). Returns the count or -errno.
 */
static int fs_names(int dirfd, char *out, size_t size)
{
	static char buf[FS_NAMES_SIZE], names[FS_NAMES_SIZE];
	static const char *name[256];
	int fd, nr = 0, i;
	size_t used = 0;
	long len, off;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((len = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < len;
		     off += ((struct dirent64 *)(buf + off))->d_reclen) {
			const char *n =
				((struct dirent64 *)(buf + off))->d_name;
			size_t l = strlen(n) + 1;

			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			if (nr == ARRAY_SIZE(name) ||
			    used + l > sizeof(names)) {
				close(fd);
				return -E2BIG;
			}
			name[nr++] = memcpy(names + used, n, l);
			used += l;
		}
	}
	i = len < 0 ? -errno : 0;
	close(fd);
	if (i)
		return i;
	qsort(name, nr, sizeof(name[0]), fs_names_cmp);
	out[0] = '\0';
	for (i = 0, used = 0; i < nr && used < size; i++)
		used += snprintf(out + used, size - used, "%s%s", i ? "," : "",
				 name[i]);
	return nr;
}

/* Whether the entries of @dirfd are exactly @want (as fs_names() lists). */
static bool fs_names_are(int dirfd, const char *want, char *why, size_t size)
{
	static char got[FS_NAMES_SIZE];
	int nr = fs_names(dirfd, got, sizeof(got));

	if (nr < 0) {
		snprintf(why, size, "listing the directory: %s", strerror(-nr));
		return false;
	}
	if (strcmp(got, want)) {
		snprintf(why, size, "directory lists \"%.200s\", want \"%s\"",
			 got, want);
		return false;
	}
	return true;
}

/* Whether the root has @nlink links (2 + its subdirectories). */
static bool fs_root_links(struct fs_ctx *fs, nlink_t extra, char *why,
			  size_t size)
{
	struct stat st;

	if (fstat(fs->dirfd, &st)) {
		snprintf(why, size, "fstat of the root: %s", strerror(errno));
		return false;
	}
	if (st.st_nlink != fs->fresh_root.st_nlink + extra) {
		snprintf(why, size, "root has %lu links, want %lu",
			 (unsigned long)st.st_nlink,
			 (unsigned long)(fs->fresh_root.st_nlink + extra));
		return false;
	}
	return true;
}

/*
 * Removes every entry of @dirfd, and of its subdirectories down to @depth
 * levels; returns 0 or -errno.
 */
static int fs_empty_dir(int dirfd, int depth)
{
	char buf[2048];
	long len, off;
	int fd, sub, err = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!err &&
	       (len = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; !err && off < len;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);

			off += de->d_reclen;
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			if (de->d_type != DT_DIR) {
				if (unlinkat(dirfd, de->d_name, 0))
					err = -errno;
				continue;
			}
			sub = depth ? openat(dirfd, de->d_name,
					     O_RDONLY | O_DIRECTORY |
						     O_CLOEXEC) :
				      -1;
			if (sub >= 0) {
				err = fs_empty_dir(sub, depth - 1);
				close(sub);
			}
			if (!err && unlinkat(dirfd, de->d_name, AT_REMOVEDIR))
				err = -errno;
		}
	}
	close(fd);
	return err;
}

/*
 * Reads the free counts once the filesystem has settled: XFS inactivates
 * unlinked inodes in the background (fs/xfs/xfs_icache.c, inodegc), and
 * statfs only pushes that work without waiting for it (xfs_fs_statfs():
 * "Expedite background inodegc but don't wait"). XFS_IOC_FREE_EOFBLOCKS
 * with XFS_EOF_FLAGS_SYNC ends in xfs_blockgc_free_space(), which trims
 * the post-EOF preallocations and then waits in xfs_inodegc_flush(), so
 * the counts after it are exact. btrfs frees an extent only when the
 * transaction that dropped it commits (btrfs_finish_extent_commit()
 * unpins it), which syncfs() does: btrfs_sync_fs() commits.
 */
static int fs_statfs(struct fs_ctx *fs, struct statfs *sfs)
{
	struct fs_xfs_eofblocks eofb = {
		.eof_version = FS_XFS_EOFBLOCKS_VERSION,
		.eof_flags = FS_XFS_EOF_FLAGS_SYNC,
	};

	if (fs->kind == FS_XFS &&
	    ioctl(fs->dirfd, FS_XFS_IOC_FREE_EOFBLOCKS, &eofb))
		return -errno;
	if (fs->kind == FS_BTRFS && syncfs(fs->dirfd))
		return -errno;
	return fstatfs(fs->dirfd, sfs) ? -errno : 0;
}

/*
 * The free counts that must come back when every name is gone. btrfs
 * counts no inodes (f_ffree is 0), and its f_bfree moves with the shape of
 * its metadata trees and with the global block reserve, resized from them
 * (btrfs_statfs(), btrfs_update_global_block_rsv()); its f_bavail counts
 * the data space only, which must come back. Its metadata is checked once
 * the sweep is over, by btrfs check (fs_unmount()).
 */
static void fs_free(const struct fs_ctx *fs, const struct statfs *sfs,
		    unsigned long long *inodes, unsigned long long *blocks)
{
	*inodes = sfs->f_ffree;
	*blocks = fs->kind == FS_BTRFS ? sfs->f_bavail : sfs->f_bfree;
}

/* Back to fresh: every inode and block of a success or failure freed. */
static bool fs_settled(void *arg, char *why, size_t size)
{
	unsigned long long inodes, blocks, fresh_inodes, fresh_blocks;
	struct fs_ctx *fs = arg;
	struct statfs sfs;
	int err = fs_statfs(fs, &sfs);

	if (err) {
		snprintf(why, size, "statfs: %s", strerror(-err));
		return false;
	}
	fs_free(fs, &sfs, &inodes, &blocks);
	fs_free(fs, &fs->fresh, &fresh_inodes, &fresh_blocks);
	if (inodes != fresh_inodes || blocks != fresh_blocks) {
		const char *fmt =
			"%llu free inodes and %llu free blocks, %llu and %llu when fresh";

		snprintf(why, size, fmt, inodes, blocks, fresh_inodes,
			 fresh_blocks);
		return false;
	}
	return fs_root_links(fs, 0, why, size);
}

#endif /* __SELFTESTS_MM_OOM_FAILNTH_FS_H */
