/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenarios on the page cache and on ranges of a file: readahead of a file
 * not in the cache, POSIX_FADV_DONTNEED, sync_file_range() and msync() of
 * dirty pages, FS_IOC_FIEMAP of a fragmented file, FICLONERANGE and
 * FIDEDUPERANGE, and an inode flag (FS_IOC_SETFLAGS).
 *
 * A page-cache call may do less than asked (readahead reads fewer pages,
 * writeback leaves pages dirty), never lose or corrupt data: a's bytes
 * read back after every point, from the disk once the pages are clean. A
 * range call must have exactly its effect (the extents reported, the
 * blocks shared) or none.
 */

#ifndef __SELFTESTS_MM_OOM_FAILNTH_FS_RANGE_H
#define __SELFTESTS_MM_OOM_FAILNTH_FS_RANGE_H

#include <linux/fiemap.h>
#include <linux/fs.h>

/* a of FSYNC_LEN bytes of content 2, on the disk, none of it cached. */
static void prep_cold(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_fsync(_metadata, fs);
	ASSERT_EQ(0, fsync(fs->fd));
	ASSERT_EQ(0, fs_cached_pages(fs->fd));
}

static int act_readahead(struct fs_ctx *fs)
{
	return readahead(fs->fd, 0, FSYNC_LEN) ? -errno : 0;
}

/*
 * Pages of @fd's first @len bytes in the page cache, up to date or still
 * being read (mincore() counts only the former, and readahead's reads
 * end after it returns): or -errno.
 */
static long fs_in_cache(int fd, uint64_t len)
{
	struct fs_cachestat cs;
	int err = fs_cachestat(fd, len, &cs);

	return err ? err : (long)cs.nr_cache;
}

/*
 * readahead(2) is best effort: page_cache_ra_unbounded() stops at the
 * first page it cannot allocate or insert (mm/readahead.c), so a success
 * may have added any number of a's pages to the cache, each of which must
 * read the bytes on the disk. A failure adds none.
 */
static bool check_readahead(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	long cached = fs_in_cache(fs->fd, FSYNC_LEN);

	if (cached < 0) {
		snprintf(why, size, "cachestat of a: %s", strerror(-cached));
		return false;
	}
	if (ret < 0 && cached) {
		snprintf(why, size,
			 "readahead failed, yet %ld pages are cached", cached);
		return false;
	}
	return fs_names_are(fs->dirfd, "a", why, size) &&
	       fs_file_is(fs->dirfd, "a", FSYNC_LEN, 2, 1, fs->ino_a, why,
			  size);
}

/* posix_fadvise() returns its error, not -1 and errno. */
static int act_dontneed(struct fs_ctx *fs)
{
	return -posix_fadvise(fs->fd, 0, 0, POSIX_FADV_DONTNEED);
}

/*
 * The dirty pages are written back (WB_SYNC_NONE) and the clean ones
 * dropped; a page whose writeback failed must stay dirty, or its bytes
 * are lost: an unarmed fsync then succeeds and a reads back from the disk.
 */
static bool check_dontneed(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return a_on_disk(fs, true, why, size);
}

static int act_sync_range(struct fs_ctx *fs)
{
	const unsigned int flags = SYNC_FILE_RANGE_WAIT_BEFORE |
				   SYNC_FILE_RANGE_WRITE |
				   SYNC_FILE_RANGE_WAIT_AFTER;

	return sync_file_range(fs->fd, 0, 0, flags) ? -errno : 0;
}

/*
 * A success wrote every page: all clean, a reads back from the disk. A
 * failure may have written some: after an unarmed fsync, the same.
 */
static bool check_sync_range(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return a_on_disk(fs, ret < 0, why, size);
}

/*
 * a of FSYNC_LEN bytes of content 1 on the disk, mapped shared and
 * rewritten through the mapping with content 2: every page dirtied by a
 * write fault (->page_mkwrite), none by write().
 */
static void prep_msync(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	make_a(_metadata, fs, FSYNC_LEN);
	fs->fd = openat(fs->dirfd, "a", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fs->fd);
	ASSERT_EQ(0, fsync(fs->fd));
	fs->map = mmap(NULL, FSYNC_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fs->fd, 0);
	ASSERT_NE(MAP_FAILED, fs->map);
	fs_fill(fs->map, FSYNC_LEN, 0, 2);
}

static int act_msync(struct fs_ctx *fs)
{
	return msync(fs->map, FSYNC_LEN, MS_SYNC) ? -errno : 0;
}

/* The mapping gone: its pages can be dropped once clean. */
static void fs_unmap(struct fs_ctx *fs)
{
	if (fs->map)
		munmap(fs->map, FSYNC_LEN);
	fs->map = NULL;
}

/*
 * As sync_file_range(): a success wrote every page, a failure some; the
 * check unmaps a first, since POSIX_FADV_DONTNEED keeps mapped pages.
 */
static bool check_msync(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	fs_unmap(fs);
	return a_on_disk(fs, ret < 0, why, size);
}

/*
 * a of EXT_NR blocks of 4 KiB with a hole after each: as many extents,
 * more than ext4 keeps in its inode (4: a tree block) or XFS in its
 * literal area, on the disk. The size is set first, so that no write
 * extends a: XFS would preallocate past its end (xfs_file_iomap_begin()'s
 * speculative preallocation) and report unwritten extents in the holes.
 * The inode and the metadata are then dropped from the caches, so that
 * the open and FIEMAP read the inode and walk its extents from the disk.
 */
#define EXT_NR 8
#define EXT_LEN 4096
#define EXT_STRIDE 8192
#define EXT_FILE_LEN ((EXT_NR - 1) * EXT_STRIDE + EXT_LEN)
/* Room for more extents than a has: a success says how many it found. */
#define EXT_MAX 32

struct fs_extents {
	struct fiemap fm;
	struct fiemap_extent fe[EXT_MAX];
};

/* @fd's extents into @ext, flushed first with FIEMAP_FLAG_SYNC if @sync. */
static int fs_fiemap(int fd, struct fs_extents *ext, bool sync)
{
	memset(ext, 0, sizeof(*ext));
	ext->fm.fm_length = FIEMAP_MAX_OFFSET;
	ext->fm.fm_flags = sync ? FIEMAP_FLAG_SYNC : 0;
	ext->fm.fm_extent_count = EXT_MAX;
	return ioctl(fd, FS_IOC_FIEMAP, &ext->fm) ? -errno :
						    ext->fm.fm_mapped_extents;
}

static void prep_fiemap(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	struct stat st;
	int i, fd;

	fd = openat(fs->dirfd, "a", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
		    0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, EXT_FILE_LEN));
	for (i = 0; i < EXT_NR; i++)
		ASSERT_EQ(0, fs_write_data(fd, i * EXT_STRIDE, EXT_LEN, 1));
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ(0, close(fd));
	fs->ino_a = st.st_ino;
	ASSERT_EQ(0, fs_drop_caches("3"));
}

/* What the action's FIEMAP reported. */
static struct fs_extents fs_ext_got;

static int act_fiemap(struct fs_ctx *fs)
{
	int fd, ret;

	/* Not what the last point found: a success must have written it. */
	memset(&fs_ext_got, 0, sizeof(fs_ext_got));
	fd = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = fs_fiemap(fd, &fs_ext_got, false);
	close(fd);
	return ret;
}

/* Whether a is prep_fiemap()'s: its blocks of content 1, zeros between. */
static bool a_fragmented(struct fs_ctx *fs, char *why, size_t size)
{
	struct stat st;
	bool ok = true;
	int i, fd = a_open(fs, EXT_FILE_LEN, &st, why, size);

	if (fd < 0)
		return false;
	for (i = 0; ok && i < EXT_NR; i++) {
		ok = fs_data_is(fd, i * EXT_STRIDE, EXT_LEN, 1, "a's block",
				why, size);
		if (ok && i < EXT_NR - 1)
			ok = fs_data_is(fd, i * EXT_STRIDE + EXT_LEN,
					EXT_STRIDE - EXT_LEN, -1, "a's hole",
					why, size);
	}
	close(fd);
	return ok;
}

#define FIEMAP_FMT \
	"extent %d of %d: logical %llu length %llu flags %#x physical %llu, want %d at %d, flags %#x, physical %llu"

/*
 * A success reports a's EXT_NR extents exactly: each block's offset and
 * length, written (no delalloc, unwritten or unknown flag), the last one
 * FIEMAP_EXTENT_LAST, at the disk address an unarmed FIEMAP finds. A
 * failure changes nothing; a is intact either way.
 */
static bool check_fiemap(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	static struct fs_extents want;
	int i, nr, fd;

	if (!a_fragmented(fs, why, size))
		return false;
	if (ret < 0)
		return true;
	fd = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	nr = fd < 0 ? -errno : fs_fiemap(fd, &want, false);
	if (fd >= 0)
		close(fd);
	if (nr != EXT_NR || ret != EXT_NR) {
		snprintf(why, size, "FIEMAP mapped %d extents, unarmed %d%s%s",
			 ret, nr, nr < 0 ? ": " : "",
			 nr < 0 ? strerror(-nr) : "");
		return false;
	}
	for (i = 0; i < EXT_NR; i++) {
		const struct fiemap_extent *e = &fs_ext_got.fe[i];
		__u32 flags = i == EXT_NR - 1 ? FIEMAP_EXTENT_LAST : 0;

		if (e->fe_logical == (__u64)i * EXT_STRIDE &&
		    e->fe_length == EXT_LEN && e->fe_flags == flags &&
		    e->fe_physical && e->fe_physical == want.fe[i].fe_physical)
			continue;
		snprintf(why, size, FIEMAP_FMT, i, ret,
			 (unsigned long long)e->fe_logical,
			 (unsigned long long)e->fe_length, e->fe_flags,
			 (unsigned long long)e->fe_physical, EXT_LEN,
			 i * EXT_STRIDE, flags,
			 (unsigned long long)want.fe[i].fe_physical);
		return false;
	}
	return true;
}

#define SHARED_FMT \
	"%s: extent at %llu of %llu bytes %sshared, want [%llu, %llu) shared"

/*
 * Whether @name's extents (flushed) are shared over [@off, @off + @len)
 * and nowhere else: every extent that overlaps the range has
 * FIEMAP_EXTENT_SHARED, no other, and those cover the range; if @exact,
 * none of them reaches out of it. A btrfs extent is shared whole when
 * another file refers to any part of it (btrfs_is_data_extent_shared()):
 * a source's whole extent, then, not @exact.
 */
static bool fs_shared_is(int dirfd, const char *name, uint64_t off,
			 uint64_t len, bool exact, char *why, size_t size)
{
	static struct fs_extents ext;
	uint64_t covered = 0;
	int i, nr, fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	nr = fd < 0 ? -errno : fs_fiemap(fd, &ext, true);
	if (fd >= 0)
		close(fd);
	if (nr < 0) {
		snprintf(why, size, "FIEMAP of %s: %s", name, strerror(-nr));
		return false;
	}
	for (i = 0; i < nr; i++) {
		const struct fiemap_extent *e = &ext.fe[i];
		uint64_t end = e->fe_logical + e->fe_length;
		uint64_t from = e->fe_logical > off ? e->fe_logical : off;
		uint64_t to = end < off + len ? end : off + len;
		bool is = e->fe_flags & FIEMAP_EXTENT_SHARED, in = to > from;

		if (is == in &&
		    !(is && exact && (from != e->fe_logical || to != end))) {
			covered += is ? to - from : 0;
			continue;
		}
		snprintf(why, size, SHARED_FMT, name,
			 (unsigned long long)e->fe_logical,
			 (unsigned long long)e->fe_length, is ? "" : "not ",
			 (unsigned long long)off,
			 (unsigned long long)(off + len));
		return false;
	}
	if (covered != len) {
		snprintf(why, size, "%s: %llu bytes shared, want %llu", name,
			 (unsigned long long)covered, (unsigned long long)len);
		return false;
	}
	return true;
}

/*
 * FICLONERANGE of CL_LEN bytes of a at CL_SRC over the middle of b, at
 * CL_DST (b's own blocks there unmapped first); FIDEDUPERANGE of a's and
 * b's same bytes at DD_OFF. Block-aligned, so that neither shortens the
 * range (generic_remap_checks()). a and b are GROW_LEN bytes, b open.
 */
#define CL_SRC 16384
#define CL_DST 8192
#define CL_LEN 32768
#define DD_OFF 16384
#define DD_LEN 32768

/* a of content 1 and b of content @seed, GROW_LEN bytes each, b open. */
static void prep_ab_long(struct __test_metadata *_metadata, struct fs_ctx *fs,
			 int seed)
{
	prep_long_a(_metadata, fs);
	prep_b_open(_metadata, fs);
	ASSERT_EQ(0, fs_write_data(fs->fd, 0, GROW_LEN, seed));
}

static void prep_clone_range(struct __test_metadata *_metadata,
			     struct fs_ctx *fs)
{
	prep_ab_long(_metadata, fs, 2);
}

static int act_clone_range(struct fs_ctx *fs)
{
	struct file_clone_range r = {
		.src_offset = CL_SRC,
		.src_length = CL_LEN,
		.dest_offset = CL_DST,
	};
	int err = 0;

	r.src_fd = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	if ((int)r.src_fd < 0)
		return -errno;
	if (ioctl(fs->fd, FICLONERANGE, &r))
		err = -errno;
	close(r.src_fd);
	return err;
}

/*
 * a intact. Success: b holds a's bytes in the range, its own around it,
 * and the range alone of each is shared. Failure: b as it was, nothing
 * shared.
 */
static bool check_clone_range(struct fs_ctx *fs, int ret, char *why,
			      size_t size)
{
	uint64_t len = ret < 0 ? 0 : CL_LEN;
	bool ok;
	int fd;

	if (!fs_names_are(fs->dirfd, "a,b", why, size) ||
	    !fs_file_is(fs->dirfd, "a", GROW_LEN, 1, 1, fs->ino_a, why, size))
		return false;
	fd = openat(fs->dirfd, "b", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "b: %s", strerror(errno));
		return false;
	}
	ok = fs_data_is(fd, 0, CL_DST, 2, "b before the range", why, size) &&
	     fs_data_from(fd, CL_DST, len, 1, CL_SRC - CL_DST, "b's clone", why,
			  size) &&
	     fs_data_is(fd, CL_DST + len, GROW_LEN - CL_DST - len, 2,
			"b after the clone", why, size);
	close(fd);
	return ok &&
	       fs_shared_is(fs->dirfd, "a", CL_SRC, len, fs->kind != FS_BTRFS,
			    why, size) &&
	       fs_shared_is(fs->dirfd, "b", CL_DST, len, true, why, size);
}

static void prep_dedupe(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_ab_long(_metadata, fs, 1);
}

/* A file_dedupe_range with one file_dedupe_range_info, in 64-bit words. */
#define DEDUPE_WORDS                               \
	((sizeof(struct file_dedupe_range) +       \
	  sizeof(struct file_dedupe_range_info)) / \
		 8 +                               \
	 1)

/*
 * The bytes deduplicated, or the errno of the call or of b's range (its
 * status). FILE_DEDUPE_RANGE_DIFFERS, with the same bytes on both sides,
 * is returned as EBADE, which no list allows.
 */
static int act_dedupe(struct fs_ctx *fs)
{
	uint64_t buf[DEDUPE_WORDS] = {};
	struct file_dedupe_range *r = (void *)buf;
	int src, ret;

	r->src_offset = DD_OFF;
	r->src_length = DD_LEN;
	r->dest_count = 1;
	r->info[0].dest_fd = fs->fd;
	r->info[0].dest_offset = DD_OFF;
	src = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return -errno;
	if (ioctl(src, FIDEDUPERANGE, r))
		ret = -errno;
	else if (r->info[0].status < 0)
		ret = r->info[0].status;
	else if (r->info[0].status == FILE_DEDUPE_RANGE_DIFFERS)
		ret = -EBADE;
	else
		ret = r->info[0].bytes_deduped;
	close(src);
	return ret;
}

/*
 * a and b keep their bytes either way; a success of @ret bytes shares
 * [DD_OFF, DD_OFF + @ret) of each and nothing else, a failure nothing.
 */
static bool check_dedupe(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	uint64_t len = ret < 0 ? 0 : ret;

	return fs_names_are(fs->dirfd, "a,b", why, size) &&
	       fs_file_is(fs->dirfd, "a", GROW_LEN, 1, 1, fs->ino_a, why,
			  size) &&
	       fs_file_is(fs->dirfd, "b", GROW_LEN, 1, 1, fs->ino_b, why,
			  size) &&
	       fs_shared_is(fs->dirfd, "a", DD_OFF, len, fs->kind != FS_BTRFS,
			    why, size) &&
	       fs_shared_is(fs->dirfd, "b", DD_OFF, len, true, why, size);
}

/* a, open read-only, for the inode-flag ioctls. */
static void prep_a_ro(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	prep_a(_metadata, fs);
	fs->fd = openat(fs->dirfd, "a", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fs->fd);
}

static int act_append_only(struct fs_ctx *fs)
{
	int flags;

	if (ioctl(fs->fd, FS_IOC_GETFLAGS, &flags))
		return -errno;
	flags |= FS_APPEND_FL;
	return ioctl(fs->fd, FS_IOC_SETFLAGS, &flags) ? -errno : 0;
}

/*
 * Success: a is append-only (FS_APPEND_FL, STATX_ATTR_APPEND), so a
 * write open without O_APPEND is EPERM (may_open()); failure: neither,
 * and the open succeeds. a's bytes either way.
 */
static bool check_append_only(struct fs_ctx *fs, int ret, char *why,
			      size_t size)
{
	bool want = ret >= 0, fl, sx, wr;
	struct statx stx;
	int flags, wfd;

	if (!a_intact(fs, why, size))
		return false;
	if (ioctl(fs->fd, FS_IOC_GETFLAGS, &flags) ||
	    statx(fs->dirfd, "a", 0, STATX_BASIC_STATS, &stx)) {
		snprintf(why, size, "a's flags: %s", strerror(errno));
		return false;
	}
	fl = flags & FS_APPEND_FL;
	sx = stx.stx_attributes & STATX_ATTR_APPEND;
	wfd = openat(fs->dirfd, "a", O_WRONLY | O_CLOEXEC);
	wr = wfd >= 0;
	if (wr)
		close(wfd);
	if (fl == want && sx == want && wr != want)
		return true;
	snprintf(why, size, "chattr +a %s: flag %d, statx %d, writable %d",
		 want ? "succeeded" : "failed", fl, sx, wr);
	return false;
}

/* An append-only a cannot be unlinked: the flag cleared, unarmed. */
static void clear_append(struct fs_ctx *fs)
{
	int flags;

	if (fs->fd < 0 || ioctl(fs->fd, FS_IOC_GETFLAGS, &flags) ||
	    !(flags & FS_APPEND_FL))
		return;
	flags &= ~FS_APPEND_FL;
	ioctl(fs->fd, FS_IOC_SETFLAGS, &flags);
}

#endif /* __SELFTESTS_MM_OOM_FAILNTH_FS_RANGE_H */
