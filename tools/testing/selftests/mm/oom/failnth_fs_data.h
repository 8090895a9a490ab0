/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenarios on a file's data and xattrs: truncate, fallocate, write,
 * pwritev, fsync, and the four xattr calls, on the file "a" of
 * failnth_fs_names.h (5000 bytes of content 1).
 *
 * A success must leave the size, content and xattrs the call asked for,
 * byte for byte; a short write exactly what it counted; a failure the file
 * as prepare left it.
 */

#ifndef __SELFTESTS_MM_OOM_FAILNTH_FS_DATA_H
#define __SELFTESTS_MM_OOM_FAILNTH_FS_DATA_H

#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#define A_PATH FS_DIR "/a"
/* Writes overwrite a's last 500 bytes and go on into a new page. */
#define WRITE_OFF 4500
#define GROW_LEN 70000
#define SHRINK_LEN 5000
#define FALLOC_LEN (256 * 1024)
#define FSYNC_LEN (64 * 1024)
/* A value that leaves the inline xattr area of an XFS inode. */
#define XATTR_LEN 2000

/* What the writes write: content 2 at WRITE_OFF. */
static uint8_t fs_wbuf[1024 * 1024];

static void prep_a_open(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_a(_metadata, fs);
	fs->fd = openat(fs->dirfd, "a", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fs->fd);
}

static void prep_write(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	static bool filled;

	if (!filled)
		fs_fill(fs_wbuf, sizeof(fs_wbuf), WRITE_OFF, 2);
	filled = true;
	prep_a_open(_metadata, fs);
}

static int act_write(struct fs_ctx *fs)
{
	ssize_t ret = pwrite(fs->fd, fs_wbuf, fs->op->full, WRITE_OFF);

	return ret < 0 ? -errno : ret;
}

/* iovecs of 100, 5000 and 3000 bytes, one after the other in fs_wbuf. */
#define PWRITEV_LEN (100 + 5000 + 3000)

static int act_pwritev(struct fs_ctx *fs)
{
	const struct iovec iov[] = {
		{ fs_wbuf, 100 },
		{ fs_wbuf + 100, 5000 },
		{ fs_wbuf + 5100, 3000 },
	};
	ssize_t ret = pwritev(fs->fd, iov, 3, WRITE_OFF);

	return ret < 0 ? -errno : ret;
}

/*
 * A write of @ret bytes (-errno: none) at WRITE_OFF over a: content 1
 * before it and after it, content 2 where it wrote, and the size the larger
 * of the two ends.
 */
static bool check_write(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	uint64_t end = WRITE_OFF + (ret > 0 ? ret : 0);
	uint64_t len = end > A_LEN ? end : A_LEN;
	struct stat st;

	if (ret <= 0)
		return a_intact(fs, why, size);
	if (fstat(fs->fd, &st) || st.st_size != (off_t)len) {
		snprintf(why, size,
			 "a has %lld bytes after writing %d, want %llu",
			 (long long)st.st_size, ret, (unsigned long long)len);
		return false;
	}
	return fs_names_are(fs->dirfd, "a", why, size) &&
	       fs_data_is(fs->fd, 0, WRITE_OFF, 1, "a before the write", why,
			  size) &&
	       fs_data_is(fs->fd, WRITE_OFF, ret, 2, "a written", why, size) &&
	       (end >= A_LEN || fs_data_is(fs->fd, end, A_LEN - end, 1,
					   "a after a short write", why, size));
}

static int act_truncate_grow(struct fs_ctx *fs)
{
	return truncate(A_PATH, GROW_LEN) ? -errno : 0;
}

/*
 * a, the only name, opened read-only if it is the inode prepare made and
 * @len bytes long (its stat in *@st): the fd, or -1 with @why said.
 */
static int a_open(struct fs_ctx *fs, uint64_t len, struct stat *st, char *why,
		  size_t size)
{
	int fd;

	if (!fs_names_are(fs->dirfd, "a", why, size))
		return -1;
	fd = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st)) {
		snprintf(why, size, "a: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st->st_size != (off_t)len || st->st_ino != fs->ino_a) {
		snprintf(why, size, "a: size %lld inode %lu, want %llu and %lu",
			 (long long)st->st_size, (unsigned long)st->st_ino,
			 (unsigned long long)len, (unsigned long)fs->ino_a);
		close(fd);
		return -1;
	}
	return fd;
}

/* a is content 1 up to @data, then zeros up to @len. */
static bool a_is(struct fs_ctx *fs, uint64_t data, uint64_t len, char *why,
		 size_t size)
{
	struct stat st;
	bool ok;
	int fd = a_open(fs, len, &st, why, size);

	if (fd < 0)
		return false;
	ok = fs_data_is(fd, 0, data, 1, "a's data", why, size) &&
	     fs_data_is(fd, data, len - data, -1, "a's zeros", why, size);
	close(fd);
	return ok;
}

static bool check_truncate_grow(struct fs_ctx *fs, int ret, char *why,
				size_t size)
{
	return ret < 0 ? a_is(fs, A_LEN, A_LEN, why, size) :
			 a_is(fs, A_LEN, GROW_LEN, why, size);
}

static void prep_long_a(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	make_a(_metadata, fs, GROW_LEN);
}

static int act_truncate_shrink(struct fs_ctx *fs)
{
	return truncate(A_PATH, SHRINK_LEN) ? -errno : 0;
}

/*
 * A shrink to the middle of a page must also zero the rest of that page:
 * grown back (unarmed), a reads zeros past SHRINK_LEN.
 */
static bool check_truncate_shrink(struct fs_ctx *fs, int ret, char *why,
				  size_t size)
{
	if (ret < 0)
		return a_is(fs, GROW_LEN, GROW_LEN, why, size);
	if (!a_is(fs, SHRINK_LEN, SHRINK_LEN, why, size))
		return false;
	if (truncate(A_PATH, GROW_LEN)) {
		snprintf(why, size, "growing a back: %s", strerror(errno));
		return false;
	}
	return a_is(fs, SHRINK_LEN, GROW_LEN, why, size);
}

static int act_fallocate(struct fs_ctx *fs)
{
	return fallocate(fs->fd, 0, 0, FALLOC_LEN) ? -errno : 0;
}

/*
 * Success: FALLOC_LEN bytes, all allocated, content 1 then zeros. Failure:
 * a as it was, without blocks beyond those it had on tmpfs, whose
 * shmem_fallocate() undoes a partial allocation ("shmem_undo_range" under
 * "undone:" in mm/shmem.c).
 */
static bool check_fallocate(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	struct stat st;

	if (fstat(fs->fd, &st)) {
		snprintf(why, size, "a: %s", strerror(errno));
		return false;
	}
	if (ret < 0) {
		if (fs->kind == FS_TMPFS && st.st_blocks != fs->blocks_a) {
			snprintf(why, size, "a has %lld blocks, had %lld",
				 (long long)st.st_blocks,
				 (long long)fs->blocks_a);
			return false;
		}
		return a_intact(fs, why, size);
	}
	if (st.st_blocks * 512 < FALLOC_LEN) {
		snprintf(why, size,
			 "a has %lld blocks of 512 bytes after fallocate",
			 (long long)st.st_blocks);
		return false;
	}
	return a_is(fs, A_LEN, FALLOC_LEN, why, size);
}

/* Whole pages inside a's GROW_LEN bytes: punch_hole and zero_range. */
#define HOLE_OFF 8192
#define HOLE_LEN 32768

static void prep_long_a_open(struct __test_metadata *_metadata,
			     struct fs_ctx *fs)
{
	prep_long_a(_metadata, fs);
	fs->fd = openat(fs->dirfd, "a", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fs->fd);
}

static int act_punch_hole(struct fs_ctx *fs)
{
	return fallocate(fs->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			 HOLE_OFF, HOLE_LEN) ?
		       -errno :
		       0;
}

static int act_zero_range(struct fs_ctx *fs)
{
	return fallocate(fs->fd, FALLOC_FL_ZERO_RANGE, HOLE_OFF, HOLE_LEN) ?
		       -errno :
		       0;
}

/*
 * Success: a as long as it was, zeros in the range and content 1 around
 * it (punched: with fewer blocks than it had). Failure: a as it was.
 */
static bool a_holed(struct fs_ctx *fs, int ret, bool punched, char *why,
		    size_t size)
{
	struct stat st;
	bool ok;
	int fd;

	if (ret < 0)
		return a_is(fs, GROW_LEN, GROW_LEN, why, size);
	fd = a_open(fs, GROW_LEN, &st, why, size);
	if (fd < 0)
		return false;
	ok = !punched || st.st_blocks < fs->blocks_a;
	if (!ok)
		snprintf(why, size,
			 "a has %lld blocks after the punch, had %lld",
			 (long long)st.st_blocks, (long long)fs->blocks_a);
	ok = ok && fs_data_is(fd, 0, HOLE_OFF, 1, "a's data", why, size) &&
	     fs_data_is(fd, HOLE_OFF, HOLE_LEN, -1, "a's hole", why, size) &&
	     fs_data_is(fd, HOLE_OFF + HOLE_LEN, GROW_LEN - HOLE_OFF - HOLE_LEN,
			1, "a's data after", why, size);
	close(fd);
	return ok;
}

static bool check_punch_hole(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return a_holed(fs, ret, true, why, size);
}

static bool check_zero_range(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return a_holed(fs, ret, false, why, size);
}

/* a of GROW_LEN bytes, and an empty b open for the clone. */
static void prep_clone(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	struct stat st;

	prep_long_a(_metadata, fs);
	fs->fd = openat(fs->dirfd, "b", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			0600);
	ASSERT_LE(0, fs->fd);
	ASSERT_EQ(0, fstat(fs->fd, &st));
	fs->ino_b = st.st_ino;
}

/* b made to share a's extents (FICLONE): a's bytes, no copy. */
static int act_reflink(struct fs_ctx *fs)
{
	int src, err = 0;

	src = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return -errno;
	if (ioctl(fs->fd, FICLONE, src))
		err = -errno;
	close(src);
	return err;
}

/* Success: b is a's bytes; failure: b still empty. a intact either way. */
static bool check_reflink(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	uint64_t len = ret < 0 ? 0 : GROW_LEN;

	return fs_names_are(fs->dirfd, "a,b", why, size) &&
	       fs_file_is(fs->dirfd, "a", GROW_LEN, 1, 1, fs->ino_a, why,
			  size) &&
	       fs_file_is(fs->dirfd, "b", len, 1, 1, fs->ino_b, why, size);
}

static int act_chmod(struct fs_ctx *fs)
{
	return fchmodat(fs->dirfd, "a", 0640, 0) ? -errno : 0;
}

/* Success: a's mode 0640; failure: still 0600. Its data either way. */
static bool check_chmod(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	mode_t want = ret < 0 ? 0600 : 0640;
	struct stat st;

	if (!a_intact(fs, why, size))
		return false;
	if (fstatat(fs->dirfd, "a", &st, 0)) {
		snprintf(why, size, "a: %s", strerror(errno));
		return false;
	}
	if ((st.st_mode & 07777) != want) {
		snprintf(why, size, "a: mode 0%o, want 0%o", st.st_mode & 07777,
			 want);
		return false;
	}
	return true;
}

/* a holds FSYNC_LEN bytes of content 2, written but not yet on disk. */
static void prep_fsync(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	struct stat st;

	fs->fd = openat(fs->dirfd, "a", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			0600);
	ASSERT_LE(0, fs->fd);
	ASSERT_EQ(0, fs_write_data(fs->fd, 0, FSYNC_LEN, 2));
	ASSERT_EQ(0, fstat(fs->fd, &st));
	fs->ino_a = st.st_ino;
}

static int act_fsync(struct fs_ctx *fs)
{
	return fsync(fs->fd) ? -errno : 0;
}

/*
 * Pages of a's first FSYNC_LEN bytes in the page cache after
 * POSIX_FADV_DONTNEED, which drops the clean ones only: or -errno.
 */
static int fs_cached_pages(int fd)
{
	unsigned char vec[FSYNC_LEN / 4096];
	long page = sysconf(_SC_PAGESIZE);
	size_t i, nr = FSYNC_LEN / page;
	int err, cached = 0;
	void *p;

	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err)
		return -err;
	p = mmap(NULL, FSYNC_LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	err = nr > sizeof(vec) || mincore(p, FSYNC_LEN, vec) ? -EINVAL : 0;
	munmap(p, FSYNC_LEN);
	for (i = 0; !err && i < nr; i++)
		cached += vec[i] & 1;
	return err ? err : cached;
}

/*
 * Either way the data written reads back; after a success it comes from
 * the disk: every page is clean, so POSIX_FADV_DONTNEED drops them all
 * before the read.
 */
static bool check_fsync(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	int cached;

	if (ret >= 0) {
		cached = fs_cached_pages(fs->fd);
		if (cached < 0)
			snprintf(why, size, "mincore of a: %s",
				 strerror(-cached));
		else if (cached)
			snprintf(why, size,
				 "a: %d pages still cached, dirty, after fsync",
				 cached);
		if (cached)
			return false;
	}
	return fs_names_are(fs->dirfd, "a", why, size) &&
	       fs_file_is(fs->dirfd, "a", FSYNC_LEN, 2, 1, fs->ino_a, why,
			  size);
}

/* The xattrs a scenario may leave on a. */
struct fs_xattr {
	const char *name;
	size_t len;
};

static const struct fs_xattr xa_keep = { "user.keep", 4 };
static const struct fs_xattr xa_big = { "user.big", XATTR_LEN };
static const struct fs_xattr xa_one = { "user.one", 1 };
static const struct fs_xattr xa_two = { "user.two", 200 };

/* The value of @xa: content 3, offset by its length. */
static const uint8_t *xa_value(const struct fs_xattr *xa)
{
	static uint8_t buf[XATTR_LEN];

	fs_fill(buf, xa->len, xa->len, 3);
	return buf;
}

static void xa_set(struct __test_metadata *_metadata, const struct fs_xattr *xa)
{
	ASSERT_EQ(0, setxattr(A_PATH, xa->name, xa_value(xa), xa->len,
			      XATTR_CREATE))
	{
		TH_LOG("setxattr %s: %s", xa->name, strerror(errno));
	}
}

/* Whether a has exactly the @nr xattrs of @want, with their values. */
static bool xattrs_are(struct fs_ctx *fs, const struct fs_xattr *const *want,
		       int nr, char *why, size_t size)
{
	static char list[4096];
	static uint8_t val[XATTR_LEN + 1];
	ssize_t len = listxattr(A_PATH, list, sizeof(list)), off, vlen;
	int i, got = 0;

	if (len < 0) {
		snprintf(why, size, "listxattr: %s", strerror(errno));
		return false;
	}
	for (off = 0; off < len; off += strlen(list + off) + 1, got++) {
		for (i = 0; i < nr && strcmp(want[i]->name, list + off); i++)
			;
		if (i == nr) {
			snprintf(why, size, "a has xattr \"%s\"", list + off);
			return false;
		}
		vlen = getxattr(A_PATH, want[i]->name, val, sizeof(val));
		if (vlen != (ssize_t)want[i]->len ||
		    memcmp(val, xa_value(want[i]), vlen)) {
			snprintf(why, size,
				 "xattr %s: %zd bytes, want %zu of content 3",
				 want[i]->name, vlen, want[i]->len);
			return false;
		}
	}
	if (got != nr) {
		snprintf(why, size, "a has %d xattrs, want %d", got, nr);
		return false;
	}
	return a_intact(fs, why, size);
}

static void prep_keep(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_a(_metadata, fs);
	xa_set(_metadata, &xa_keep);
}

static int act_setxattr(struct fs_ctx *fs)
{
	return setxattr(A_PATH, xa_big.name, xa_value(&xa_big), xa_big.len,
			XATTR_CREATE) ?
		       -errno :
		       0;
}

static bool check_setxattr(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	const struct fs_xattr *const want[] = { &xa_keep, &xa_big };

	return xattrs_are(fs, want, ret < 0 ? 1 : 2, why, size);
}

static void prep_keep_big(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_keep(_metadata, fs);
	xa_set(_metadata, &xa_big);
}

/* What getxattr and listxattr read, for the check. */
static char fs_xattr_got[4096];

static int act_getxattr(struct fs_ctx *fs)
{
	ssize_t ret;

	/* Not what the last point read: a success must have written it. */
	memset(fs_xattr_got, 0, sizeof(fs_xattr_got));
	ret = getxattr(A_PATH, xa_big.name, fs_xattr_got, sizeof(fs_xattr_got));

	return ret < 0 ? -errno : ret;
}

static bool check_getxattr(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	const struct fs_xattr *const want[] = { &xa_keep, &xa_big };

	if (ret >= 0 && (ret != XATTR_LEN ||
			 memcmp(fs_xattr_got, xa_value(&xa_big), ret))) {
		snprintf(why, size,
			 "getxattr read %d bytes, want %d of content 3", ret,
			 XATTR_LEN);
		return false;
	}
	return xattrs_are(fs, want, 2, why, size);
}

static void prep_four(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_keep_big(_metadata, fs);
	xa_set(_metadata, &xa_one);
	xa_set(_metadata, &xa_two);
}

/* The length of the names of a's four xattrs, each with its NUL. */
#define LIST_LEN                                                         \
	(sizeof("user.keep") + sizeof("user.big") + sizeof("user.one") + \
	 sizeof("user.two"))

static int act_listxattr(struct fs_ctx *fs)
{
	ssize_t ret;

	/* Not what the last point read: a success must have written it. */
	memset(fs_xattr_got, 0, sizeof(fs_xattr_got));
	ret = listxattr(A_PATH, fs_xattr_got, sizeof(fs_xattr_got));

	return ret < 0 ? -errno : ret;
}

static bool check_listxattr(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	const struct fs_xattr *const want[] = { &xa_keep, &xa_big, &xa_one,
						&xa_two };
	int i, found = 0, off;

	for (off = 0; ret >= 0 && off < ret;
	     off += strlen(fs_xattr_got + off) + 1) {
		for (i = 0; i < 4 && strcmp(want[i]->name, fs_xattr_got + off);
		     i++)
			;
		if (i == 4 || found & (1 << i)) {
			snprintf(why, size, "listxattr gave \"%s\"%s",
				 fs_xattr_got + off, i < 4 ? " twice" : "");
			return false;
		}
		found |= 1 << i;
	}
	if (ret >= 0 && (ret != (int)LIST_LEN || found != 15)) {
		snprintf(why, size, "listxattr returned %d bytes, want %zu",
			 ret, LIST_LEN);
		return false;
	}
	return xattrs_are(fs, want, 4, why, size);
}

static int act_removexattr(struct fs_ctx *fs)
{
	return removexattr(A_PATH, xa_big.name) ? -errno : 0;
}

static bool check_removexattr(struct fs_ctx *fs, int ret, char *why,
			      size_t size)
{
	const struct fs_xattr *const want[] = { &xa_keep, &xa_big };

	return xattrs_are(fs, want, ret < 0 ? 2 : 1, why, size);
}

#endif /* __SELFTESTS_MM_OOM_FAILNTH_FS_DATA_H */
