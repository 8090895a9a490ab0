/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenarios on names: create, remove, rename, link, symlink, read a link,
 * list a directory. Each leaves the root listing exactly what the call
 * should have left on success, or exactly what prepare left on failure,
 * with every file's inode, links and content as they should be.
 *
 * The files: "a" has 5000 bytes of content 1, "b" 3000 bytes of content 2.
 */

#ifndef __SELFTESTS_MM_OOM_FAILNTH_FS_NAMES_H
#define __SELFTESTS_MM_OOM_FAILNTH_FS_NAMES_H

#include <limits.h>

#define A_LEN 5000
#define B_LEN 3000
/* Entries of the directory listed by getdents: the short form no more. */
#define DENTS_NR 48

/*
 * A symlink's target longer than an inline one on tmpfs (128 bytes,
 * SHORT_SYMLINK_LEN) and than the literal area of an XFS inode (336 bytes
 * with 512-byte inodes), so both store it in a page or a remote block.
 */
#define LINK_LONG_LEN 400

static const char *link_long(void)
{
	static char target[LINK_LONG_LEN + 1];
	int i;

	if (!target[0])
		for (i = 0; i < LINK_LONG_LEN; i++)
			target[i] = i % 16 ? 'a' + i % 26 : '/';
	return target;
}

static const char fs_link_short[] = "a";

/* "a", @len bytes of content 1; its inode and blocks noted. */
static void make_a(struct __test_metadata *_metadata, struct fs_ctx *fs,
		   size_t len)
{
	struct stat st;

	ASSERT_EQ(0, fs_make_file(fs->dirfd, "a", len, 1));
	ASSERT_EQ(0, fstatat(fs->dirfd, "a", &st, 0));
	fs->ino_a = st.st_ino;
	fs->blocks_a = st.st_blocks;
}

static void prep_a(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	make_a(_metadata, fs, A_LEN);
}

static void prep_ab(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	struct stat st;

	prep_a(_metadata, fs);
	ASSERT_EQ(0, fs_make_file(fs->dirfd, "b", B_LEN, 2));
	ASSERT_EQ(0, fstatat(fs->dirfd, "b", &st, 0));
	fs->ino_b = st.st_ino;
}

/* Whether "a" is as prep_a() left it, or also "b" as prep_ab() did. */
static bool a_intact(struct fs_ctx *fs, char *why, size_t size)
{
	return fs_names_are(fs->dirfd, "a", why, size) &&
	       fs_file_is(fs->dirfd, "a", A_LEN, 1, 1, fs->ino_a, why, size);
}

static bool ab_intact(struct fs_ctx *fs, char *why, size_t size)
{
	return fs_names_are(fs->dirfd, "a,b", why, size) &&
	       fs_file_is(fs->dirfd, "a", A_LEN, 1, 1, fs->ino_a, why, size) &&
	       fs_file_is(fs->dirfd, "b", B_LEN, 2, 1, fs->ino_b, why, size);
}

/*
 * Whether "d" is an empty directory and the root links count it. A btrfs
 * directory has one link whatever it holds: btrfs_mkdir() (fs/btrfs/
 * inode.c) counts neither the new directory's "." nor the parent's "..",
 * and the count stays the 1 that inode_init_always() gives.
 */
static bool d_empty_dir(struct fs_ctx *fs, char *why, size_t size)
{
	nlink_t dir_links = fs->kind == FS_BTRFS ? 1 : 2;
	struct stat st;
	int fd;
	bool ok;

	fd = openat(fs->dirfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, size, "d: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	ok = st.st_nlink == dir_links;
	if (!ok)
		snprintf(why, size, "d has %lu links",
			 (unsigned long)st.st_nlink);
	ok = ok && fs_names_are(fd, "", why, size);
	close(fd);
	return ok && fs_root_links(fs, dir_links - 1, why, size);
}

static int act_open_creat(struct fs_ctx *fs)
{
	int fd = openat(fs->dirfd, "a", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC,
			0600);

	return fd < 0 ? -errno : fd;
}

/* The directory lists @names, "a" among them is empty, and @fd is a. */
static bool a_created(struct fs_ctx *fs, const char *names, int fd, char *why,
		      size_t size)
{
	struct stat st, fd_st;

	if (!fs_names_are(fs->dirfd, names, why, size) ||
	    !fs_file_is(fs->dirfd, "a", 0, 0, 1, 0, why, size))
		return false;
	if (fstatat(fs->dirfd, "a", &st, 0) || fstat(fd, &fd_st) ||
	    st.st_ino != fd_st.st_ino) {
		snprintf(why, size, "fd %d is not a", fd);
		return false;
	}
	return true;
}

static bool check_open_creat(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret < 0)
		return fs_names_are(fs->dirfd, "", why, size);
	return a_created(fs, "a", ret, why, size);
}

/*
 * A directory whose inode chunk is full, so that the next create needs a
 * new one: XFS allocates inodes 64 to a chunk and the root's chunk is the
 * first, so fill it until an inode number ends a chunk (60 files on a
 * fresh filesystem). tmpfs and ext4 have no chunks; they get 60 files
 * all the same. chunk_names lists them as fs_names() does.
 */
#define CHUNK_FILES_MAX 192

static char chunk_names[FS_NAMES_SIZE];

static void prep_full_chunk(struct __test_metadata *_metadata,
			    struct fs_ctx *fs)
{
	size_t used = 0;
	struct stat st;
	char name[8];
	int i;

	for (i = 0; i < CHUNK_FILES_MAX; i++) {
		snprintf(name, sizeof(name), "c%03d", i);
		ASSERT_EQ(0, fs_make_file(fs->dirfd, name, 0, 0));
		ASSERT_EQ(0, fstatat(fs->dirfd, name, &st, 0));
		used += snprintf(chunk_names + used, sizeof(chunk_names) - used,
				 "%s%s", i ? "," : "", name);
		if (fs->kind == FS_XFS ? st.st_ino % 64 == 63 : i == 59)
			return;
	}
	ASSERT_TRUE(false)
	TH_LOG("no inode ended a chunk in %d files", CHUNK_FILES_MAX);
}

/* A success added "a" (sorted first) and nothing else; a failure nothing. */
static bool check_create_new_chunk(struct fs_ctx *fs, int ret, char *why,
				   size_t size)
{
	static char want[FS_NAMES_SIZE + 2];

	/* A failed create must leave the filesystem working, not shut down. */
	if (syncfs(fs->dirfd)) {
		snprintf(why, size, "syncfs after the create: %s (shut down?)",
			 strerror(errno));
		return false;
	}
	if (ret < 0)
		return fs_names_are(fs->dirfd, chunk_names, why, size);
	snprintf(want, sizeof(want), "a,%s", chunk_names);
	return a_created(fs, want, ret, why, size);
}

static int act_mkdir(struct fs_ctx *fs)
{
	return mkdirat(fs->dirfd, "d", 0700) ? -errno : 0;
}

static bool check_mkdir(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret < 0)
		return fs_names_are(fs->dirfd, "", why, size) &&
		       fs_root_links(fs, 0, why, size);
	return fs_names_are(fs->dirfd, "d", why, size) &&
	       d_empty_dir(fs, why, size);
}

static void prep_d(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	ASSERT_EQ(0, mkdirat(fs->dirfd, "d", 0700));
}

static int act_rmdir(struct fs_ctx *fs)
{
	return unlinkat(fs->dirfd, "d", AT_REMOVEDIR) ? -errno : 0;
}

static bool check_rmdir(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return check_mkdir(fs, ret < 0 ? 0 : -1, why, size);
}

static int act_unlink(struct fs_ctx *fs)
{
	return unlinkat(fs->dirfd, "a", 0) ? -errno : 0;
}

static bool check_unlink(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	return ret < 0 ? a_intact(fs, why, size) :
			 fs_names_are(fs->dirfd, "", why, size);
}

/* rename("a", "b") over an existing "b". */
static int act_rename(struct fs_ctx *fs)
{
	return renameat(fs->dirfd, "a", fs->dirfd, "b") ? -errno : 0;
}

static bool check_rename(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret < 0)
		return ab_intact(fs, why, size);
	return fs_names_are(fs->dirfd, "b", why, size) &&
	       fs_file_is(fs->dirfd, "b", A_LEN, 1, 1, fs->ino_a, why, size);
}

static int act_rename_exchange(struct fs_ctx *fs)
{
	return renameat2(fs->dirfd, "a", fs->dirfd, "b", RENAME_EXCHANGE) ?
		       -errno :
		       0;
}

static bool check_rename_exchange(struct fs_ctx *fs, int ret, char *why,
				  size_t size)
{
	if (ret < 0)
		return ab_intact(fs, why, size);
	return fs_names_are(fs->dirfd, "a,b", why, size) &&
	       fs_file_is(fs->dirfd, "a", B_LEN, 2, 1, fs->ino_b, why, size) &&
	       fs_file_is(fs->dirfd, "b", A_LEN, 1, 1, fs->ino_a, why, size);
}

static int act_link(struct fs_ctx *fs)
{
	return linkat(fs->dirfd, "a", fs->dirfd, "b", 0) ? -errno : 0;
}

static bool check_link(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret < 0)
		return a_intact(fs, why, size);
	return fs_names_are(fs->dirfd, "a,b", why, size) &&
	       fs_file_is(fs->dirfd, "a", A_LEN, 1, 2, fs->ino_a, why, size) &&
	       fs_file_is(fs->dirfd, "b", A_LEN, 1, 2, fs->ino_a, why, size);
}

/* An unnamed file, then its name: O_TMPFILE and linkat(AT_EMPTY_PATH). */
static int act_tmpfile_link(struct fs_ctx *fs)
{
	int fd, err = 0;

	fd = openat(fs->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (linkat(fd, "", fs->dirfd, "t", AT_EMPTY_PATH))
		err = -errno;
	close(fd);
	return err;
}

/* Success: "t", empty, one link; failure: no name (nor, once closed, inode). */
static bool check_tmpfile_link(struct fs_ctx *fs, int ret, char *why,
			       size_t size)
{
	if (ret < 0)
		return fs_names_are(fs->dirfd, "", why, size);
	return fs_names_are(fs->dirfd, "t", why, size) &&
	       fs_file_is(fs->dirfd, "t", 0, 1, 1, 0, why, size);
}

/* a renamed to c, a whiteout (a 0:0 character device) left in its place. */
static int act_rename_whiteout(struct fs_ctx *fs)
{
	return renameat2(fs->dirfd, "a", fs->dirfd, "c", RENAME_WHITEOUT) ?
		       -errno :
		       0;
}

static bool check_rename_whiteout(struct fs_ctx *fs, int ret, char *why,
				  size_t size)
{
	struct stat st;

	if (ret < 0)
		return a_intact(fs, why, size);
	if (!fs_names_are(fs->dirfd, "a,c", why, size) ||
	    !fs_file_is(fs->dirfd, "c", A_LEN, 1, 1, fs->ino_a, why, size))
		return false;
	if (fstatat(fs->dirfd, "a", &st, AT_SYMLINK_NOFOLLOW)) {
		snprintf(why, size, "a: %s", strerror(errno));
		return false;
	}
	if (!S_ISCHR(st.st_mode) || st.st_rdev || st.st_nlink != 1) {
		snprintf(why, size,
			 "a: mode 0%o rdev %lu links %lu, want a whiteout",
			 st.st_mode, (unsigned long)st.st_rdev,
			 (unsigned long)st.st_nlink);
		return false;
	}
	return true;
}

#define S_LINKS_TO_FMT \
	"s: mode 0%o size %lld links %lu reads %zd bytes \"%.40s\", want a link of %zu bytes to \"%.40s\""

/* Whether "s" is a symlink to @target. */
static bool s_links_to(struct fs_ctx *fs, const char *target, char *why,
		       size_t size)
{
	static char got[PATH_MAX];
	size_t len = strlen(target);
	struct stat st;
	ssize_t ret;

	if (fstatat(fs->dirfd, "s", &st, AT_SYMLINK_NOFOLLOW)) {
		snprintf(why, size, "s: %s", strerror(errno));
		return false;
	}
	ret = readlinkat(fs->dirfd, "s", got, sizeof(got));
	if (!S_ISLNK(st.st_mode) || st.st_size != (off_t)len ||
	    st.st_nlink != 1 || ret != (ssize_t)len ||
	    memcmp(got, target, len)) {
		snprintf(why, size, S_LINKS_TO_FMT, st.st_mode,
			 (long long)st.st_size, (unsigned long)st.st_nlink, ret,
			 ret > 0 ? got : "", len, target);
		return false;
	}
	return true;
}

static int act_symlink(struct fs_ctx *fs)
{
	return symlinkat(link_long(), fs->dirfd, "s") ? -errno : 0;
}

static bool check_symlink(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret < 0)
		return fs_names_are(fs->dirfd, "", why, size);
	return fs_names_are(fs->dirfd, "s", why, size) &&
	       s_links_to(fs, link_long(), why, size);
}

static int act_symlink_short(struct fs_ctx *fs)
{
	return symlinkat(fs_link_short, fs->dirfd, "s") ? -errno : 0;
}

static bool check_symlink_short(struct fs_ctx *fs, int ret, char *why,
				size_t size)
{
	if (ret < 0)
		return fs_names_are(fs->dirfd, "", why, size);
	return fs_names_are(fs->dirfd, "s", why, size) &&
	       s_links_to(fs, fs_link_short, why, size);
}

static void prep_s(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	ASSERT_EQ(0, symlinkat(link_long(), fs->dirfd, "s"));
}

/* What readlink read, for the check. */
static char fs_link_got[PATH_MAX];

static int act_readlink(struct fs_ctx *fs)
{
	ssize_t ret;

	/* Not what the last point read: a success must have written it. */
	memset(fs_link_got, 0, sizeof(fs_link_got));
	ret = readlinkat(fs->dirfd, "s", fs_link_got, sizeof(fs_link_got));

	return ret < 0 ? -errno : ret;
}

static bool check_readlink(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	if (ret >= 0 && (ret != (int)LINK_LONG_LEN ||
			 memcmp(fs_link_got, link_long(), ret))) {
		snprintf(why, size, "read %d bytes \"%.40s\", want %d", ret,
			 fs_link_got, LINK_LONG_LEN);
		return false;
	}
	return fs_names_are(fs->dirfd, "s", why, size) &&
	       s_links_to(fs, link_long(), why, size);
}

/* "d" with DENTS_NR empty files f00, f01, ...: past the short form. */
static void prep_dents(struct __test_metadata *_metadata, struct fs_ctx *fs)
{
	char name[8];
	int i, fd;

	prep_d(_metadata, fs);
	for (i = 0; i < DENTS_NR; i++) {
		snprintf(name, sizeof(name), "d/f%02d", i);
		fd = openat(fs->dirfd, name,
			    O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, close(fd));
	}
}

/* The names of "d" as fs_names() lists them. */
static const char *dents_names(void)
{
	static char names[DENTS_NR * 4 + 1];
	size_t len = 0;
	int i;

	for (i = 0; i < DENTS_NR; i++)
		len += snprintf(names + len, sizeof(names) - len, "%sf%02d",
				i ? "," : "", i);
	return names;
}

/* What getdents64 returned, for the check, and its length. */
static char fs_dents[32 * 1024];
static long fs_dents_len;

/* Lists "d" from a fresh open: returns the number of entries, or -errno. */
static int act_getdents(struct fs_ctx *fs)
{
	long len, off;
	int fd, nr = 0;

	fs_dents_len = 0;
	fd = openat(fs->dirfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((len = syscall(SYS_getdents64, fd, fs_dents + fs_dents_len,
			      sizeof(fs_dents) - fs_dents_len)) > 0)
		fs_dents_len += len;
	if (len < 0) {
		/*
		 * A failed listing gives nothing, whatever the calls before
		 * it returned (btrfs can fail the call after the last batch).
		 */
		nr = -errno;
		fs_dents_len = 0;
		close(fd);
		return nr;
	}
	close(fd);
	for (off = 0; off < fs_dents_len; nr++)
		off += ((struct dirent64 *)(fs_dents + off))->d_reclen;
	return nr;
}

static bool check_getdents(struct fs_ctx *fs, int ret, char *why, size_t size)
{
	bool seen[DENTS_NR + 2] = {};
	int fd, i, nr = 0;
	long off;
	bool ok;

	for (off = 0; ret >= 0 && off < fs_dents_len; nr++) {
		struct dirent64 *de = (struct dirent64 *)(fs_dents + off);

		off += de->d_reclen;
		if (!strcmp(de->d_name, "."))
			i = DENTS_NR;
		else if (!strcmp(de->d_name, ".."))
			i = DENTS_NR + 1;
		else if (sscanf(de->d_name, "f%d", &i) != 1 || i < 0 ||
			 i >= DENTS_NR || strlen(de->d_name) != 3)
			i = -1;
		if (i < 0 || seen[i]) {
			snprintf(why, size, "getdents gave %s \"%s\"",
				 i < 0 ? "a stray" : "twice", de->d_name);
			return false;
		}
		seen[i] = true;
	}
	if (ret >= 0 && (nr != DENTS_NR + 2 || ret != nr)) {
		snprintf(why, size, "getdents returned %d, listed %d, want %d",
			 ret, nr, DENTS_NR + 2);
		return false;
	}
	fd = openat(fs->dirfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "d: %s", strerror(errno));
		return false;
	}
	ok = fs_names_are(fd, dents_names(), why, size);
	close(fd);
	return ok;
}

#endif /* __SELFTESTS_MM_OOM_FAILNTH_FS_NAMES_H */
