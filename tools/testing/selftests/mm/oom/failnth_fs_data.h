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

#include <endian.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
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

/* An empty b, open in fs->fd. */
static void prep_b_open(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	struct stat st;

	fs->fd = openat(fs->dirfd, "b", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			0600);
	ASSERT_LE(0, fs->fd);
	ASSERT_EQ(0, fstat(fs->fd, &st));
	fs->ino_b = st.st_ino;
}

/* a of GROW_LEN bytes, and an empty b open for the clone. */
static void prep_clone(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_long_a(_metadata, fs);
	prep_b_open(_metadata, fs);
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

/* b holds the first @len bytes of a, which is intact, @a_len bytes. */
static bool ab_copied(struct fs_ctx *fs, uint64_t a_len, uint64_t len,
		      char *why, size_t size)
{
	return fs_names_are(fs->dirfd, "a,b", why, size) &&
	       fs_file_is(fs->dirfd, "a", a_len, 1, 1, fs->ino_a, why, size) &&
	       fs_file_is(fs->dirfd, "b", len, 1, 1, fs->ino_b, why, size);
}

/* Success: b is a's bytes; failure: b still empty. a intact either way. */
static bool check_reflink(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return ab_copied(fs, GROW_LEN, ret < 0 ? 0 : GROW_LEN, why, size);
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

/* Writes @what (1 page cache, 2 slab, 3 both) to drop_caches: 0 or -errno. */
static int fs_drop_caches(const char *what)
{
	return write_file("/proc/sys/vm/drop_caches", what);
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

/* Whether a is the only name, and FSYNC_LEN bytes of content 2. */
static bool a_reads_back(struct fs_ctx *fs, char *why, size_t size)
{
	return fs_names_are(fs->dirfd, "a", why, size) &&
	       fs_file_is(fs->dirfd, "a", FSYNC_LEN, 2, 1, fs->ino_a, why,
			  size);
}

/*
 * Whether a is FSYNC_LEN bytes of content 2 read from the disk: after an
 * unarmed fsync if @sync, no page is dirty or under writeback (cachestat),
 * so POSIX_FADV_DONTNEED drops them all before the read.
 */
static bool a_on_disk(struct fs_ctx *fs, bool sync, char *why, size_t size)
{
	struct fs_cachestat cs;
	int cached, tries;

	if (sync && fsync(fs->fd)) {
		snprintf(why, size, "an unarmed fsync of a after the call: %s",
			 strerror(errno));
		return false;
	}
	cached = fs_cachestat(fs->fd, FSYNC_LEN, &cs);
	if (cached) {
		snprintf(why, size, "cachestat of a: %s", strerror(-cached));
		return false;
	}
	if (cs.nr_dirty || cs.nr_writeback) {
		snprintf(why, size,
			 "a: %llu pages dirty, %llu under writeback%s",
			 (unsigned long long)cs.nr_dirty,
			 (unsigned long long)cs.nr_writeback,
			 sync ? " after an fsync" : "");
		return false;
	}
	/*
	 * A clean page the filesystem cannot release at once stays cached
	 * (seen once on btrfs on the debug profile, after a successful
	 * fsync): a few tries.
	 */
	for (tries = 0; tries < 5; tries++) {
		cached = fs_cached_pages(fs->fd);
		if (cached <= 0)
			break;
		usleep(20000);
	}
	if (cached < 0)
		snprintf(why, size, "mincore of a: %s", strerror(-cached));
	else if (cached)
		snprintf(why, size, "a: %d clean pages kept by DONTNEED",
			 cached);
	if (cached)
		return false;
	return a_reads_back(fs, why, size);
}

/*
 * Either way the data written reads back; after a success it comes from
 * the disk, with no fsync of the check's own.
 */
static bool check_fsync(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret >= 0)
		return a_on_disk(fs, false, why, size);
	return a_reads_back(fs, why, size);
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

/*
 * copy_file_range() and sendfile() of a's COPY_LEN bytes (three pages,
 * the last one partly) into the empty b, on the filesystem itself
 * (copy_range, sendfile), and sendfile() from a file on another
 * filesystem, a tmpfs on XSRC_DIR (sendfile_tmpfs; a
 * copy_file_range() between two filesystems is EXDEV unless both have the
 * same ->copy_file_range: generic_copy_file_checks(),
 * fs/read_write.c:1536). Either may count less than asked:
 * copy_file_range(2) "This could be less than the length originally
 * requested", sendfile(2) returns "the number of bytes written to out_fd";
 * do_splice_direct() (fs/splice.c) returns what it moved before a
 * failure. b must hold exactly the bytes counted, a failure leave it
 * empty; the source is intact either way.
 */
#define COPY_LEN 10000
#define XSRC_DIR "/mnt"
#define XSRC_PATH XSRC_DIR "/xa"

static ssize_t copy_from(const char *path, int out, bool by_sendfile)
{
	int src = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t ret;

	if (src < 0)
		return -errno;
	ret = by_sendfile ? sendfile(out, src, NULL, COPY_LEN) :
			    copy_file_range(src, NULL, out, NULL, COPY_LEN, 0);
	if (ret < 0)
		ret = -errno;
	close(src);
	return ret;
}

/*
 * a of COPY_LEN bytes: a clone up to its end may take its last, partial
 * block (generic_remap_checks(), fs/remap_range.c:76), so that XFS's and
 * btrfs's copy_file_range() copies it whole, not shortened to whole
 * blocks (REMAP_FILE_CAN_SHORTEN, fs/read_write.c:1625).
 */
static void prep_copy(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	make_a(_metadata, fs, COPY_LEN);
	prep_b_open(_metadata, fs);
}

static int act_copy_range(struct fs_ctx *fs)
{
	return copy_from(A_PATH, fs->fd, false);
}

static int act_sendfile(struct fs_ctx *fs)
{
	return copy_from(A_PATH, fs->fd, true);
}

static bool check_copy(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return ab_copied(fs, COPY_LEN, ret < 0 ? 0 : ret, why, size);
}

/*
 * XSRC_PATH on a tmpfs of the test's mount namespace: the btrfs fixture's
 * loop nodes' (loop_scratch()), else one mounted here once. Then b.
 */
static void prep_xcopy(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	static bool made;
	struct statfs sfs;

	if (!made) {
		ASSERT_EQ(0, statfs(XSRC_DIR, &sfs));
		if (sfs.f_type != TMPFS_MAGIC)
			ASSERT_EQ(0, mount("failnth", XSRC_DIR, "tmpfs", 0,
					   "size=1m,mode=0700"));
		ASSERT_EQ(0, fs_make_file(AT_FDCWD, XSRC_PATH, COPY_LEN, 1));
		made = true;
	}
	prep_b_open(_metadata, fs);
}

static int act_sendfile_tmpfs(struct fs_ctx *fs)
{
	return copy_from(XSRC_PATH, fs->fd, true);
}

static bool check_xcopy(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return fs_names_are(fs->dirfd, "b", why, size) &&
	       fs_file_is(AT_FDCWD, XSRC_PATH, COPY_LEN, 1, 1, 0, why, size) &&
	       fs_file_is(fs->dirfd, "b", ret < 0 ? 0 : ret, 1, 1, fs->ino_b,
			  why, size);
}

/*
 * POSIX ACLs (fs/posix_acl.c): an access ACL with a named user and a mask
 * set on a (acl_set), which makes a's group bits the mask's
 * (posix_acl_update_mode()); a chmod of a with that ACL, which rewrites
 * the ACL's owner, mask and other entries (posix_acl_chmod(),
 * __posix_acl_chmod_masq()); its removal (acl_remove); and a file created
 * in a directory with that ACL as its default (acl_create), which gets it
 * as its access ACL, masked by the create mode (posix_acl_create(),
 * posix_acl_create_masq()). A success must read back the ACL and the mode
 * it implies, a failure the ACL and mode as before.
 */
#define ACL_ACCESS "system.posix_acl_access"
#define ACL_DEFAULT "system.posix_acl_default"
#define ACL_UID 1000
#define D_PATH FS_DIR "/d"

/* Permissions of user::, user:ACL_UID:, group::, mask:: and other::. */
static const uint8_t acl_640[5] = { 6, 4, 4, 4, 0 };
/* chmod 0750: user:: rwx, the mask r-x (the group bits), other:: none. */
static const uint8_t acl_750[5] = { 7, 4, 4, 5, 0 };
/* acl_640 as a default, created with mode 0604: mask 4 & 0, other 0 & 4. */
static const uint8_t acl_child[5] = { 6, 4, 4, 0, 0 };

struct acl_xattr {
	struct posix_acl_xattr_header h;
	struct posix_acl_xattr_entry e[5];
};

/* @perm as the xattr (include/uapi/linux/posix_acl_xattr.h). */
static void acl_xattr(const uint8_t *perm, struct acl_xattr *x)
{
	static const uint16_t tag[5] = { ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ,
					 ACL_MASK, ACL_OTHER };
	int i;

	x->h.a_version = htole32(POSIX_ACL_XATTR_VERSION);
	for (i = 0; i < 5; i++) {
		x->e[i].e_tag = htole16(tag[i]);
		x->e[i].e_perm = htole16(perm[i]);
		x->e[i].e_id = htole32(tag[i] == ACL_USER ? ACL_UID :
							    ACL_UNDEFINED_ID);
	}
}

static int acl_set(const char *path, const char *attr, const uint8_t *perm)
{
	struct acl_xattr x;

	acl_xattr(perm, &x);
	return setxattr(path, attr, &x, sizeof(x), 0) ? -errno : 0;
}

/* Whether @path has ACL @attr of @perm (none: NULL) and mode @mode. */
static bool acl_is(const char *path, const char *attr, const uint8_t *perm,
		   mode_t mode, char *why, size_t size)
{
	struct acl_xattr want, got;
	ssize_t len = getxattr(path, attr, &got, sizeof(got));
	int err = len < 0 ? errno : 0;
	struct stat st;

	if (perm)
		acl_xattr(perm, &want);
	if (perm ? len != sizeof(want) || memcmp(&got, &want, len) :
		   err != ENODATA) {
		snprintf(why, size, "%s %s: %s (%zd bytes), want %s", path,
			 attr, err ? strerror(err) : "an ACL", len,
			 perm ? "the ACL set" : "none");
		return false;
	}
	if (stat(path, &st)) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		return false;
	}
	if ((st.st_mode & 07777) != mode) {
		snprintf(why, size, "%s: mode 0%o, want 0%o", path,
			 st.st_mode & 07777, mode);
		return false;
	}
	return true;
}

static void prep_acl(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_a(_metadata, fs);
	ASSERT_EQ(0, acl_set(A_PATH, ACL_ACCESS, acl_640));
}

static int act_acl_set(struct fs_ctx *fs)
{
	return acl_set(A_PATH, ACL_ACCESS, acl_640);
}

static bool check_acl_set(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return a_intact(fs, why, size) &&
	       acl_is(A_PATH, ACL_ACCESS, ret < 0 ? NULL : acl_640,
		      ret < 0 ? 0600 : 0640, why, size);
}

static int act_acl_chmod(struct fs_ctx *fs)
{
	return fchmodat(fs->dirfd, "a", 0750, 0) ? -errno : 0;
}

static bool check_acl_chmod(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return a_intact(fs, why, size) &&
	       acl_is(A_PATH, ACL_ACCESS, ret < 0 ? acl_640 : acl_750,
		      ret < 0 ? 0640 : 0750, why, size);
}

static int act_acl_remove(struct fs_ctx *fs)
{
	return removexattr(A_PATH, ACL_ACCESS) ? -errno : 0;
}

/* The mode stays: posix_acl_xattr_set() of no value sets no mode. */
static bool check_acl_remove(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return a_intact(fs, why, size) &&
	       acl_is(A_PATH, ACL_ACCESS, ret < 0 ? acl_640 : NULL, 0640, why,
		      size);
}

/* An empty directory d, open in fs->fd. */
static void prep_d_open(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	ASSERT_EQ(0, mkdirat(fs->dirfd, "d", 0700));
	fs->fd = openat(fs->dirfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fs->fd);
}

/* d with acl_640 as its default ACL. */
static void prep_acl_dir(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_d_open(_metadata, fs);
	ASSERT_EQ(0, acl_set(D_PATH, ACL_DEFAULT, acl_640));
}

/* Whether @fd, a create's, is @name in @dirfd. */
static bool fd_is(int dirfd, const char *name, int fd, char *why, size_t size)
{
	struct stat st, fd_st;

	if (fstatat(dirfd, name, &st, 0) || fstat(fd, &fd_st) ||
	    st.st_ino != fd_st.st_ino) {
		snprintf(why, size, "fd %d is not %s", fd, name);
		return false;
	}
	return true;
}

static int act_acl_create(struct fs_ctx *fs)
{
	int fd = openat(fs->fd, "f", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			0604);

	return fd < 0 ? -errno : fd;
}

/*
 * d and its default ACL as before; f, if made, open in @ret, with
 * acl_child and mode 0600.
 */
static bool check_acl_create(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return fs_names_are(fs->dirfd, "d", why, size) &&
	       acl_is(D_PATH, ACL_DEFAULT, acl_640, 0700, why, size) &&
	       fs_names_are(fs->fd, ret < 0 ? "" : "f", why, size) &&
	       (ret < 0 ||
		(fd_is(fs->fd, "f", ret, why, size) &&
		 acl_is(D_PATH "/f", ACL_ACCESS, acl_child, 0600, why, size)));
}

/*
 * fs-verity (fs/verity/enable.c): FS_IOC_ENABLE_VERITY on a, read-only
 * open, builds the Merkle tree past a's end and marks a verity. A success
 * must measure (FS_IOC_MEASURE_VERITY) the digest an unarmed enable of the
 * same bytes measured, read a's bytes back, show STATX_ATTR_VERITY and
 * FS_VERITY_FL, and refuse a writable open (fsverity_file_open(): EPERM,
 * fs/verity/open.c:399). A failure leaves a an ordinary, writable file.
 */
/* SHA-256's; FS_VERITY_MAX_DIGEST_SIZE (SHA-512's) is not uapi. */
#define VERITY_DIGEST_LEN 32
#define VERITY_DIGEST_MAX 64

static uint8_t verity_digest[VERITY_DIGEST_LEN];

static int verity_enable(int fd)
{
	struct fsverity_enable_arg arg = {
		.version = 1,
		.hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		/* At most the block size: 1 KiB on the small ext4. */
		.block_size = 1024,
	};

	return ioctl(fd, FS_IOC_ENABLE_VERITY, &arg) ? -errno : 0;
}

/* Whether @fd measures verity_digest (or measures one into @out). */
static bool verity_measures(int fd, uint8_t *out)
{
	struct {
		struct fsverity_digest d;
		uint8_t b[VERITY_DIGEST_MAX];
	} m = { .d.digest_size = VERITY_DIGEST_MAX };

	if (ioctl(fd, FS_IOC_MEASURE_VERITY, &m) ||
	    m.d.digest_size != VERITY_DIGEST_LEN)
		return false;
	if (out)
		memcpy(out, m.d.digest, VERITY_DIGEST_LEN);
	return out || !memcmp(m.d.digest, verity_digest, VERITY_DIGEST_LEN);
}

/* a open read-only; the first time, the digest of its bytes, from v. */
static void prep_verity(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	static bool measured;
	int fd;

	if (!measured) {
		ASSERT_EQ(0, fs_make_file(fs->dirfd, "v", A_LEN, 1));
		fd = openat(fs->dirfd, "v", O_RDONLY | O_CLOEXEC);
		ASSERT_EQ(0, verity_enable(fd));
		ASSERT_TRUE(verity_measures(fd, verity_digest));
		ASSERT_EQ(0, close(fd));
		ASSERT_EQ(0, unlinkat(fs->dirfd, "v", 0));
		measured = true;
	}
	prep_a(_metadata, fs);
	fs->fd = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fs->fd);
}

static int act_verity(struct fs_ctx *fs)
{
	return verity_enable(fs->fd);
}

static bool check_verity(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	bool want = ret >= 0, sx, fl, wr;
	struct statx stx;
	int flags = 0, wfd;

	if (!a_intact(fs, why, size))
		return false;
	if (statx(fs->dirfd, "a", 0, STATX_BASIC_STATS, &stx) ||
	    !(stx.stx_attributes_mask & STATX_ATTR_VERITY) ||
	    ioctl(fs->fd, FS_IOC_GETFLAGS, &flags)) {
		snprintf(why, size, "a's verity flag: %s", strerror(errno));
		return false;
	}
	sx = stx.stx_attributes & STATX_ATTR_VERITY;
	fl = flags & FS_VERITY_FL;
	wfd = openat(fs->dirfd, "a", O_WRONLY | O_CLOEXEC);
	wr = wfd >= 0;
	if (wr)
		close(wfd);
	if (sx != want || fl != want || wr == want ||
	    (want && !verity_measures(fs->fd, NULL))) {
		snprintf(why, size,
			 "enable %s: statx %d, flag %d, writable %d%s",
			 want ? "succeeded" : "failed", sx, fl, wr,
			 want && sx && fl && !wr ? ", another digest" : "");
		return false;
	}
	return true;
}

/*
 * fscrypt (fs/crypto/), a v2 policy with a raw key: its add to the
 * filesystem's keyring (fscrypt_ioctl_add_key()), the policy set on the
 * empty d (fscrypt_ioctl_set_policy()), a create in the encrypted d
 * (fscrypt_prepare_new_inode(), the name encrypted), a lookup and a
 * readdir of its names with d's key set up anew (drop_caches evicted d),
 * and the key's removal (fscrypt_ioctl_remove_key(), which evicts d's
 * inodes). Each success is read back through the key status
 * (FS_IOC_GET_ENCRYPTION_KEY_STATUS), the policy
 * (FS_IOC_GET_ENCRYPTION_POLICY_EX) or the names; a failure leaves both
 * as before.
 */
#define FC_KEY_LEN 64

static uint8_t fc_ident[FSCRYPT_KEY_IDENTIFIER_SIZE];
static uint8_t fc_got_ident[FSCRYPT_KEY_IDENTIFIER_SIZE];

/* Adds the key of content 4; its identifier in @ident. 0 or -errno. */
static int fc_key_add(int dirfd, uint8_t *ident)
{
	uint64_t buf[(sizeof(struct fscrypt_add_key_arg) + FC_KEY_LEN) / 8 + 1];
	struct fscrypt_add_key_arg *arg = (void *)buf;

	memset(buf, 0, sizeof(buf));
	arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	arg->raw_size = FC_KEY_LEN;
	fs_fill(arg->raw, FC_KEY_LEN, 0, 4);
	if (ioctl(dirfd, FS_IOC_ADD_ENCRYPTION_KEY, arg))
		return -errno;
	memcpy(ident, arg->key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE);
	return 0;
}

static void fc_spec(struct fscrypt_key_specifier *spec)
{
	spec->type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	memcpy(spec->u.identifier, fc_ident, FSCRYPT_KEY_IDENTIFIER_SIZE);
}

static int fc_key_remove(int dirfd)
{
	struct fscrypt_remove_key_arg arg = { 0 };

	fc_spec(&arg.key_spec);
	return ioctl(dirfd, FS_IOC_REMOVE_ENCRYPTION_KEY, &arg) ? -errno : 0;
}

/* Whether the key's status is @status; else what it is, in @why. */
static bool fc_key_is(struct fs_ctx *fs, __u32 status, char *why, size_t size)
{
	struct fscrypt_get_key_status_arg arg = { 0 };
	int err;

	fc_spec(&arg.key_spec);
	err = ioctl(fs->dirfd, FS_IOC_GET_ENCRYPTION_KEY_STATUS, &arg) ? errno :
									 0;
	if (!err && arg.status == status)
		return true;
	snprintf(why, size, "key status %u (%s), want %u", arg.status,
		 strerror(err), status);
	return false;
}

static void fc_policy(struct fscrypt_policy_v2 *p)
{
	memset(p, 0, sizeof(*p));
	p->version = FSCRYPT_POLICY_V2;
	p->contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
	p->filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
	p->flags = FSCRYPT_POLICY_FLAGS_PAD_32;
	memcpy(p->master_key_identifier, fc_ident, FSCRYPT_KEY_IDENTIFIER_SIZE);
}

/* Whether @name in @dirfd has fc_policy() (@set) or none (ENODATA). */
static bool fc_policy_is(int dirfd, const char *name, bool set, char *why,
			 size_t size)
{
	struct fscrypt_get_policy_ex_arg arg = { .policy_size =
							 sizeof(arg.policy) };
	struct fscrypt_policy_v2 want;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC), err = 0;
	bool ok;

	if (fd < 0 || ioctl(fd, FS_IOC_GET_ENCRYPTION_POLICY_EX, &arg))
		err = errno;
	if (fd >= 0)
		close(fd);
	fc_policy(&want);
	if (set)
		ok = !err && arg.policy_size == sizeof(want) &&
		     !memcmp(&arg.policy.v2, &want, sizeof(want));
	else
		ok = err == ENODATA;
	if (!ok) {
		snprintf(why, size, "%s's policy: %s, want %s", name,
			 err ? strerror(err) : "one",
			 set ? "the v2 set" : "none");
		return false;
	}
	return true;
}

/* No key; the first time, its identifier, from an unarmed add. */
static void prep_fc_nokey(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	static bool known;
	int err;

	if (!known)
		ASSERT_EQ(0, fc_key_add(fs->dirfd, fc_ident));
	known = true;
	err = fc_key_remove(fs->dirfd);
	ASSERT_TRUE(!err || err == -ENOKEY);
}

static int act_fc_add_key(struct fs_ctx *fs)
{
	return fc_key_add(fs->dirfd, fc_got_ident);
}

static bool check_fc_add_key(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret >= 0 && memcmp(fc_got_ident, fc_ident, sizeof(fc_ident))) {
		snprintf(why, size, "the key added has another identifier");
		return false;
	}
	return fc_key_is(fs,
			 ret < 0 ? FSCRYPT_KEY_STATUS_ABSENT :
				   FSCRYPT_KEY_STATUS_PRESENT,
			 why, size);
}

/* The key added; an empty d, open in fs->fd. */
static void prep_fc_dir(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_fc_nokey(_metadata, fs);
	ASSERT_EQ(0, fc_key_add(fs->dirfd, fc_ident));
	prep_d_open(_metadata, fs);
}

static int act_fc_set_policy(struct fs_ctx *fs)
{
	struct fscrypt_policy_v2 p;

	fc_policy(&p);
	return ioctl(fs->fd, FS_IOC_SET_ENCRYPTION_POLICY, &p) ? -errno : 0;
}

static bool check_fc_set_policy(struct fs_ctx *fs, int ret, char *why,
				size_t size)
{
	return fs_names_are(fs->dirfd, "d", why, size) &&
	       fs_names_are(fs->fd, "", why, size) &&
	       fc_key_is(fs, FSCRYPT_KEY_STATUS_PRESENT, why, size) &&
	       fc_policy_is(fs->dirfd, "d", ret >= 0, why, size);
}

/* d encrypted, with the key. */
static void prep_fc_enc(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_fc_dir(_metadata, fs);
	ASSERT_EQ(0, act_fc_set_policy(fs));
}

static int act_fc_create(struct fs_ctx *fs)
{
	int fd = openat(fs->fd, "f", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			0600);

	return fd < 0 ? -errno : fd;
}

/* d encrypted, as before; f, if made, open in @ret, with d's policy. */
static bool check_fc_create(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return fc_policy_is(fs->dirfd, "d", true, why, size) &&
	       fs_names_are(fs->fd, ret < 0 ? "" : "f", why, size) &&
	       (ret < 0 || (fd_is(fs->fd, "f", ret, why, size) &&
			    fc_policy_is(fs->fd, "f", true, why, size)));
}

/* d encrypted, with f1 and f2 of 100 bytes, closed. */
static void prep_fc_files(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_fc_enc(_metadata, fs);
	ASSERT_EQ(0, fs_make_file(fs->fd, "f1", 100, 1));
	ASSERT_EQ(0, fs_make_file(fs->fd, "f2", 100, 1));
	ASSERT_EQ(0, close(fs->fd));
	fs->fd = -1;
}

/* The names the readdir read, for the check. */
static char fc_names_got[FS_NAMES_SIZE];

/*
 * drop_caches evicts d and its names: the lookup sets d's key up again
 * (fscrypt_get_encryption_info()) to encrypt the name it looks up.
 */
static void prep_fc_names(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_fc_files(_metadata, fs);
	ASSERT_EQ(0, fs_drop_caches("2"));
}

static int act_fc_names(struct fs_ctx *fs)
{
	struct stat st;
	int ret;

	fc_names_got[0] = '\0';
	if (fstatat(fs->dirfd, "d/f2", &st, 0))
		return -errno;
	fs->fd = openat(fs->dirfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->fd < 0)
		return -errno;
	ret = fs_names(fs->fd, fc_names_got, sizeof(fc_names_got));
	return ret < 0 ? ret : 0;
}

static bool fc_files_intact(struct fs_ctx *fs, char *why, size_t size)
{
	return fs_file_is(fs->dirfd, "d/f1", 100, 1, 1, 0, why, size) &&
	       fs_file_is(fs->dirfd, "d/f2", 100, 1, 1, 0, why, size);
}

static bool check_fc_names(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret >= 0 && strcmp(fc_names_got, "f1,f2")) {
		snprintf(why, size, "readdir of d read \"%s\"", fc_names_got);
		return false;
	}
	return fc_files_intact(fs, why, size) &&
	       fc_policy_is(fs->dirfd, "d", true, why, size);
}

static int act_fc_remove_key(struct fs_ctx *fs)
{
	return fc_key_remove(fs->dirfd);
}

/*
 * A success: no key, and d lists its two names encrypted: no-key names,
 * base64 of at least 16 bytes (fscrypt_fname_disk_to_usr()), not "f1" or
 * "f2". A failure: the key and the files as before.
 */
static bool check_fc_remove_key(struct fs_ctx *fs, int ret, char *why,
				size_t size)
{
	char got[FS_NAMES_SIZE], *comma;
	int fd, nr;

	if (ret < 0)
		return fc_key_is(fs, FSCRYPT_KEY_STATUS_PRESENT, why, size) &&
		       fc_files_intact(fs, why, size);
	if (!fc_key_is(fs, FSCRYPT_KEY_STATUS_ABSENT, why, size))
		return false;
	fd = openat(fs->dirfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	nr = fd < 0 ? -errno : fs_names(fd, got, sizeof(got));
	if (fd >= 0)
		close(fd);
	comma = nr == 2 ? strchr(got, ',') : NULL;
	if (!comma || comma - got < 22 || strlen(comma + 1) < 22) {
		snprintf(why, size, "key removed, yet d lists %d: \"%s\"", nr,
			 got);
		return false;
	}
	return true;
}

#endif /* __SELFTESTS_MM_OOM_FAILNTH_FS_DATA_H */
