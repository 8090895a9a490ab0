// SPDX-License-Identifier: GPL-2.0
/*
 * Pipes, splice, vmsplice and tee while their small allocations fail, one
 * at a time; also F_SETPIPE_SZ of a pipe holding data, a write() to a
 * packet (O_DIRECT) pipe, and splice() from a unix socket.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h). The call must succeed
 * or fail with an allowed errno. A success moved exactly the bytes it
 * reports, in order, and the pipe works; a failure moved nothing: the
 * source still holds every byte, the destination none. No fd, tmpfs block
 * or inode is lost.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "failnth.h"

/* A private tmpfs over /tmp, in the test's own mount namespace. */
#define TMPFS_DIR "/tmp"
#define FILE_NAME "spliced"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* What each call moves: a default pipe's capacity, 16 page buffers. */
#define LEN (64 * 1024)

/* One iovec per page: more than UIO_FASTIOV, so vmsplice() allocates. */
#define NR_IOV (LEN / 4096)

/* What a resized pipe holds: two page buffers. */
#define HELD (2 * 4096)

/* What a packet pipe is written: 3 pages. */
#define PACKETS (3 * 4096)

/*
 * What a unix socket holds to splice: small enough for the skb's linear
 * part (unix_stream_sendmsg() puts only what exceeds SKB_MAX_HEAD in page
 * frags, net/unix/af_unix.c:2319), which spd_fill_page() must copy to a
 * page of the socket's page frag (net/core/skbuff.c:3129): pages in frags
 * are only referenced, reaching no injection point.
 */
#define SOCK_LEN 3000

/*
 * The bytes moved, and what reads back; locked by the sweep's mlockall().
 * data is mapped, so page-aligned: a pipe buffer holds at most a page, and
 * an unaligned 64K would need 17 of the pipe's 16 buffers.
 */
static char *data;
static char back[LEN];

/*
 * Clean failures of pipe2(). A pipe's inode and pipe_inode_info come from
 * get_pipe_inode(), whose failure create_pipe_files() reports as ENFILE:
 * fs/pipe.c:929 "return -ENFILE;" (linux 6.12).
 */
static const int pipe_errnos[] = { ENOMEM, ENFILE, 0 };

/*
 * Clean failures of splice, vmsplice and tee: none but ENOMEM. Also of
 * F_SETPIPE_SZ, whose new ring pipe_resize_ring() fails as "return
 * -ENOMEM;" (fs/pipe.c:1276), and of write(), whose page pipe_write()
 * fails as "ret = ret ? : -ENOMEM;" (fs/pipe.c:515, linux 6.12).
 */
static const int splice_errnos[] = { ENOMEM, 0 };

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct pipe_ctx {
	/*
	 * The private tmpfs, a file on it (and the same file opened with
	 * O_DIRECT), and the tmpfs when fresh.
	 */
	int dirfd, file, direct;
	struct statfs fresh;
	/* The pipe under test and, for tee, the destination pipe. */
	int p[2], q[2];
	/* The file offset splice() reads or writes and updates. */
	loff_t off;
	/* What tee() returned, before the splice() of its copy. */
	int teed;
	/* The size F_SETPIPE_SZ asks for: the variant's. */
	int size;
};

/* A pipe, non-blocking at both ends so that no check can hang. */
static void open_pipe(struct __test_metadata *_metadata, int p[2])
{
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC | O_NONBLOCK))
	{
		TH_LOG("pipe2 (unarmed): %s", strerror(errno));
	}
}

/* Fills the pipe @p with all of data[], 16 page buffers. */
static void fill_pipe(struct __test_metadata *_metadata, int p[2])
{
	ssize_t len = write(p[1], data, LEN);

	ASSERT_EQ(LEN, len)
	{
		TH_LOG("filling a pipe (unarmed): %zd: %s", len,
		       strerror(errno));
	}
}

/*
 * Whether the read end @rfd holds exactly @expect[0, @len): FIONREAD says
 * @len, the bytes read back equal, and then it is empty. Consumes them.
 */
static bool pipe_holds(int rfd, const char *expect, size_t len,
		       const char *what, char *why, size_t size)
{
	size_t got = 0;
	ssize_t ret;
	int avail;

	if (ioctl(rfd, FIONREAD, &avail)) {
		snprintf(why, size, "FIONREAD on %s: %s", what,
			 strerror(errno));
		return false;
	}
	if ((size_t)avail != len) {
		snprintf(why, size, "%s holds %d bytes, expected %zu", what,
			 avail, len);
		return false;
	}
	while (got < len && (ret = read(rfd, back + got, len - got)) > 0)
		got += ret;
	if (got != len) {
		snprintf(why, size, "%s: read back %zu of %zu bytes", what, got,
			 len);
		return false;
	}
	if (memcmp(back, expect, len)) {
		snprintf(why, size,
			 "%s: bytes read back differ from those written", what);
		return false;
	}
	if (read(rfd, back, 1) != -1 || errno != EAGAIN) {
		snprintf(why, size, "%s: more than FIONREAD said", what);
		return false;
	}
	return true;
}

/* Whether the file @fd is exactly @expect[0, @len). */
static bool file_holds(int fd, const char *expect, size_t len, char *why,
		       size_t size)
{
	struct stat st;
	ssize_t ret;

	if (fstat(fd, &st)) {
		snprintf(why, size, "fstat of the file: %s", strerror(errno));
		return false;
	}
	if ((size_t)st.st_size != len) {
		snprintf(why, size, "file has %lld bytes, expected %zu",
			 (long long)st.st_size, len);
		return false;
	}
	ret = pread(fd, back, len, 0);
	if (ret != (ssize_t)len || memcmp(back, expect, len)) {
		const char *fmt =
			"file does not read back as written (%zd of %zu bytes)";

		snprintf(why, size, fmt, ret, len);
		return false;
	}
	return true;
}

/* How many bytes @ret says moved. */
static size_t moved(int ret)
{
	return ret > 0 ? ret : 0;
}

/* pipe2(): the fds are only written on success. */
static void pipe2_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	c->p[0] = -1;
	c->p[1] = -1;
}

static int pipe2_action(void *arg)
{
	struct pipe_ctx *c = arg;

	return pipe2(c->p, O_CLOEXEC | O_NONBLOCK) ? -errno : 0;
}

/* A success gave two ends of one fifo, with the flags asked for. */
static bool pipe2_ends_ok(struct pipe_ctx *c, char *why, size_t size)
{
	struct stat st[2];
	int i;

	for (i = 0; i < 2; i++) {
		if (fstat(c->p[i], &st[i]) || !S_ISFIFO(st[i].st_mode)) {
			snprintf(why, size, "fd %d (end %d) is not a fifo",
				 c->p[i], i);
			return false;
		}
		if (!(fcntl(c->p[i], F_GETFD) & FD_CLOEXEC) ||
		    !(fcntl(c->p[i], F_GETFL) & O_NONBLOCK)) {
			snprintf(why, size,
				 "end %d lacks O_CLOEXEC or O_NONBLOCK", i);
			return false;
		}
	}
	if (c->p[0] == c->p[1] || st[0].st_ino != st[1].st_ino) {
		snprintf(why, size, "fds %d and %d are not one pipe", c->p[0],
			 c->p[1]);
		return false;
	}
	return true;
}

/* Success: a byte goes through, then EOF once the writer is closed. */
static bool pipe2_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;

	if (ret < 0) {
		if (c->p[0] == -1 && c->p[1] == -1)
			return true;
		snprintf(why, size, "failed but wrote fds %d, %d", c->p[0],
			 c->p[1]);
		return false;
	}
	if (!pipe2_ends_ok(c, why, size))
		return false;
	if (write(c->p[1], "x", 1) != 1) {
		snprintf(why, size, "write to the new pipe: %s",
			 strerror(errno));
		return false;
	}
	if (!pipe_holds(c->p[0], "x", 1, "the new pipe", why, size))
		return false;
	close(c->p[1]);
	c->p[1] = -1;
	if (read(c->p[0], back, 1) != 0) {
		snprintf(why, size, "no EOF after closing the write end");
		return false;
	}
	return true;
}

/* splice() of a full pipe into an empty tmpfs file. */
static void to_file_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	open_pipe(_metadata, c->p);
	fill_pipe(_metadata, c->p);
	c->off = 0;
}

/* Whether the file's offset moved by the @n bytes spliced. */
static bool offset_moved(struct pipe_ctx *c, size_t n, char *why, size_t size)
{
	if ((size_t)c->off == n)
		return true;
	snprintf(why, size, "offset %lld after %zu bytes spliced",
		 (long long)c->off, n);
	return false;
}

static int to_file_action(void *arg)
{
	struct pipe_ctx *c = arg;
	ssize_t ret = splice(c->p[0], NULL, c->file, &c->off, LEN, 0);

	return ret < 0 ? -errno : ret;
}

/* The file holds what left the pipe, the pipe the rest. */
static bool to_file_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;
	size_t n = moved(ret);

	if (!offset_moved(c, n, why, size))
		return false;
	return file_holds(c->file, data, n, why, size) &&
	       pipe_holds(c->p[0], data + n, LEN - n, "the source pipe", why,
			  size);
}

/*
 * splice() of a tmpfs file opened with O_DIRECT into an empty pipe. Not
 * buffered: filemap_splice_read() only takes references to page-cache pages
 * and reaches no injection point, while O_DIRECT goes through
 * copy_splice_read(), which allocates the pipe's pages and their bvec
 * (fs/splice.c:986).
 */
static void from_file_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	ASSERT_EQ(LEN, pwrite(c->file, data, LEN, 0))
	{
		TH_LOG("writing the file (unarmed): %s", strerror(errno));
	}
	open_pipe(_metadata, c->p);
	c->off = 0;
}

static int from_file_action(void *arg)
{
	struct pipe_ctx *c = arg;
	ssize_t ret = splice(c->direct, &c->off, c->p[1], NULL, LEN, 0);

	return ret < 0 ? -errno : ret;
}

/* The pipe holds the file's first bytes; the file is unchanged. */
static bool from_file_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;
	size_t n = moved(ret);

	if (!offset_moved(c, n, why, size))
		return false;
	return pipe_holds(c->p[0], data, n, "the pipe", why, size) &&
	       file_holds(c->file, data, LEN, why, size);
}

/*
 * vmsplice() of user memory into an empty pipe, one iovec per page: with
 * more than UIO_FASTIOV iovecs, import_iovec() allocates their copy. The
 * pages themselves are locked and mapped: pinning them allocates nothing.
 */
static void vmsplice_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	open_pipe(_metadata, c->p);
}

static int vmsplice_action(void *arg)
{
	struct pipe_ctx *c = arg;
	struct iovec iov[NR_IOV];
	ssize_t ret;
	int i;

	for (i = 0; i < NR_IOV; i++) {
		iov[i].iov_base = data + i * (LEN / NR_IOV);
		iov[i].iov_len = LEN / NR_IOV;
	}
	ret = vmsplice(c->p[1], iov, NR_IOV, 0);
	return ret < 0 ? -errno : ret;
}

static bool vmsplice_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;

	return pipe_holds(c->p[0], data, moved(ret), "the pipe", why, size);
}

/*
 * tee() of a full pipe into an empty one, then splice() of the copy into
 * the tmpfs file. tee() alone reaches no injection point (link_pipe() only
 * takes references to the source's buffers); the splice() writes the
 * shared buffers out, and a failure there must leave both pipes intact.
 * The outcome is the splice()'s unless tee() itself failed.
 */
static void tee_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	open_pipe(_metadata, c->p);
	fill_pipe(_metadata, c->p);
	open_pipe(_metadata, c->q);
	c->off = 0;
	c->teed = -1;
}

static int tee_action(void *arg)
{
	struct pipe_ctx *c = arg;
	ssize_t ret = tee(c->p[0], c->q[1], LEN, 0);

	if (ret < 0)
		return -errno;
	c->teed = ret;
	ret = splice(c->q[0], NULL, c->file, &c->off, ret, 0);
	return ret < 0 ? -errno : ret;
}

/*
 * The file holds the first bytes spliced, the destination pipe the rest of
 * what tee() copied, and the source lost none.
 */
static bool tee_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;
	size_t teed = moved(c->teed), n = moved(ret);

	if (c->teed >= 0 && c->teed != LEN) {
		snprintf(why, size, "tee() copied %d of %d bytes", c->teed,
			 LEN);
		return false;
	}
	if (!offset_moved(c, n, why, size))
		return false;
	return file_holds(c->file, data, n, why, size) &&
	       pipe_holds(c->q[0], data + n, teed - n, "the destination pipe",
			  why, size) &&
	       pipe_holds(c->p[0], data, LEN, "the source pipe", why, size);
}

/*
 * fcntl(F_SETPIPE_SZ) of a pipe holding two page buffers, to the variant's
 * size: pipe_resize_ring() allocates the new ring (fs/pipe.c:1273).
 */
static void setsz_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	open_pipe(_metadata, c->p);
	ASSERT_EQ(HELD, write(c->p[1], data, HELD));
}

static int setsz_action(void *arg)
{
	struct pipe_ctx *c = arg;
	int ret = fcntl(c->p[1], F_SETPIPE_SZ, c->size);

	return ret < 0 ? -errno : ret;
}

/*
 * Success: the size returned is the one asked, and F_GETPIPE_SZ says so.
 * Failure: F_GETPIPE_SZ still says the default. Either way the bytes held
 * are all there, in order.
 */
static bool setsz_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;
	int want = ret < 0 ? LEN : c->size;
	int now = fcntl(c->p[0], F_GETPIPE_SZ);

	if ((ret >= 0 && ret != want) || now != want) {
		snprintf(why, size,
			 "F_SETPIPE_SZ gave %d, F_GETPIPE_SZ %d, expected %d",
			 ret, now, want);
		return false;
	}
	return pipe_holds(c->p[0], data, HELD, "the resized pipe", why, size);
}

/* write() of three pages into an empty packet (O_DIRECT) pipe. */
static void packet_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	ASSERT_EQ(0, pipe2(c->p, O_CLOEXEC | O_NONBLOCK | O_DIRECT));
}

static int packet_action(void *arg)
{
	struct pipe_ctx *c = arg;
	ssize_t ret = write(c->p[1], data, PACKETS);

	return ret < 0 ? -errno : ret;
}

/*
 * The pipe holds the bytes written, in packets: a read of more than a
 * page returns one page at most (pipe_read() stops at a packet,
 * fs/pipe.c:338).
 */
static bool packet_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;
	size_t n = moved(ret), first = n < 4096 ? n : 4096;
	ssize_t got = n ? read(c->p[0], back, LEN) : 0;

	if (!(fcntl(c->p[1], F_GETFL) & O_DIRECT) || got != (ssize_t)first ||
	    memcmp(back, data, first)) {
		snprintf(why, size,
			 "first read: %zd bytes, expected a packet of %zu", got,
			 first);
		return false;
	}
	return pipe_holds(c->p[0], data + first, n - first, "the packet pipe",
			  why, size);
}

/* splice() of SOCK_LEN bytes queued on a unix stream socket into a pipe. */
static void from_sock_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct pipe_ctx *c = arg;

	ASSERT_EQ(0, socketpair(AF_UNIX,
				SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
				c->q));
	ASSERT_EQ(SOCK_LEN, write(c->q[0], data, SOCK_LEN));
	open_pipe(_metadata, c->p);
}

static int from_sock_action(void *arg)
{
	struct pipe_ctx *c = arg;
	ssize_t ret = splice(c->q[1], NULL, c->p[1], NULL, SOCK_LEN, 0);

	return ret < 0 ? -errno : ret;
}

/* The pipe holds what left the socket; the socket still holds the rest. */
static bool from_sock_check(void *arg, int ret, char *why, size_t size)
{
	struct pipe_ctx *c = arg;
	size_t n = moved(ret);

	return pipe_holds(c->p[0], data, n, "the pipe", why, size) &&
	       pipe_holds(c->q[1], data + n, SOCK_LEN - n, "the socket", why,
			  size);
}

/* Closes every pipe end and empties the file. */
static void pipe_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct pipe_ctx *c = arg;
	int *const fds[] = { &c->p[0], &c->p[1], &c->q[0], &c->q[1] };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			EXPECT_EQ(0, close(*fds[i]));
		*fds[i] = -1;
	}
	ASSERT_EQ(0, ftruncate(c->file, 0))
	{
		TH_LOG("emptying the file: %s", strerror(errno));
	}
}

/* Back to fresh: no tmpfs block or inode is lost. */
static bool pipe_settled(void *arg, char *why, size_t size)
{
	struct pipe_ctx *c = arg;
	struct statfs sfs;

	if (fstatfs(c->dirfd, &sfs)) {
		snprintf(why, size, "fstatfs: %s", strerror(errno));
		return false;
	}
	if (sfs.f_bfree != c->fresh.f_bfree ||
	    sfs.f_ffree != c->fresh.f_ffree) {
		const char *fmt =
			"tmpfs has %llu free blocks, %llu free inodes; %llu, %llu when fresh";

		snprintf(why, size, fmt, (unsigned long long)sfs.f_bfree,
			 (unsigned long long)sfs.f_ffree,
			 (unsigned long long)c->fresh.f_bfree,
			 (unsigned long long)c->fresh.f_ffree);
		return false;
	}
	return true;
}

FIXTURE(pipe)
{
	struct pipe_ctx ctx;
};

FIXTURE_VARIANT(pipe)
{
	const struct failnth_scenario *op;
	/* For F_SETPIPE_SZ: the size asked for. */
	int size;
};

FAILNTH_VARIANT(pipe, pipe2, .prepare = pipe2_prepare, .action = pipe2_action,
		.check = pipe2_check, .cleanup = pipe_cleanup,
		.settled = pipe_settled, .allowed = pipe_errnos);

FAILNTH_VARIANT_ADD(pipe, splice_to_file, "splice_pipe_to_tmpfs", (),
		    .prepare = to_file_prepare, .action = to_file_action,
		    .check = to_file_check, .cleanup = pipe_cleanup,
		    .settled = pipe_settled, .allowed = splice_errnos,
		    .full = LEN);

FAILNTH_VARIANT_ADD(pipe, splice_from_file, "splice_tmpfs_direct_to_pipe", (),
		    .prepare = from_file_prepare, .action = from_file_action,
		    .check = from_file_check, .cleanup = pipe_cleanup,
		    .settled = pipe_settled, .allowed = splice_errnos,
		    .full = LEN);

FAILNTH_VARIANT(pipe, vmsplice, .prepare = vmsplice_prepare,
		.action = vmsplice_action, .check = vmsplice_check,
		.cleanup = pipe_cleanup, .settled = pipe_settled,
		.allowed = splice_errnos, .full = LEN);

FAILNTH_VARIANT_ADD(pipe, tee, "tee_then_splice", (), .prepare = tee_prepare,
		    .action = tee_action, .check = tee_check,
		    .cleanup = pipe_cleanup, .settled = pipe_settled,
		    .allowed = splice_errnos, .full = LEN);

FAILNTH_VARIANT_ADD(pipe, setsz_grow, "fcntl_setpipe_sz_grow",
		    (.size = 4 * LEN), .prepare = setsz_prepare,
		    .action = setsz_action, .check = setsz_check,
		    .cleanup = pipe_cleanup, .settled = pipe_settled,
		    .allowed = splice_errnos);

FAILNTH_VARIANT_ADD(pipe, setsz_shrink, "fcntl_setpipe_sz_shrink",
		    (.size = LEN / 4), .prepare = setsz_prepare,
		    .action = setsz_action, .check = setsz_check,
		    .cleanup = pipe_cleanup, .settled = pipe_settled,
		    .allowed = splice_errnos);

FAILNTH_VARIANT_ADD(pipe, packet_write, "write_packet_pipe", (),
		    .prepare = packet_prepare, .action = packet_action,
		    .check = packet_check, .cleanup = pipe_cleanup,
		    .settled = pipe_settled, .allowed = splice_errnos,
		    .full = PACKETS);

FAILNTH_VARIANT_ADD(pipe, splice_from_sock, "splice_unix_stream_to_pipe", (),
		    .prepare = from_sock_prepare, .action = from_sock_action,
		    .check = from_sock_check, .cleanup = pipe_cleanup,
		    .settled = pipe_settled, .allowed = splice_errnos,
		    .full = SOCK_LEN);

/* A fresh tmpfs with one empty file, in a private mount namespace. */
FIXTURE_SETUP(pipe)
{
	const char *missing = failnth_missing();
	struct pipe_ctx *c = &self->ctx;
	const char *what;
	char why[256];
	int err, i;

	c->dirfd = -1;
	c->file = -1;
	c->direct = -1;
	c->p[0] = -1;
	c->p[1] = -1;
	c->q[0] = -1;
	c->q[1] = -1;
	c->size = variant->size;
	if (missing)
		SKIP(return, "%s", missing);
	data = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, data)
	{
		data = NULL;
		TH_LOG("mapping the data: %s", strerror(errno));
	}
	for (i = 0; i < LEN; i++)
		data[i] = i * 131 + i / 4096;
	err = private_tmpfs(TMPFS_DIR, "size=1m,mode=0700", why, sizeof(why));
	if (err > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, err)
	{
		TH_LOG("%s", why);
	}
	what = "opening";
	c->dirfd = open(TMPFS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0)
		goto fail;
	what = "creating a file on";
	c->file =
		openat(c->dirfd, FILE_NAME, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	if (c->file < 0)
		goto fail;
	what = "opening with O_DIRECT a file on";
	c->direct =
		openat(c->dirfd, FILE_NAME, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (c->direct < 0)
		goto fail;
	what = "statfs of";
	if (fstatfs(c->dirfd, &c->fresh))
		goto fail;
	return;

fail:
	err = errno;
	close_fd(&c->direct);
	close_fd(&c->file);
	close_fd(&c->dirfd);
	umount2(TMPFS_DIR, MNT_DETACH);
	ASSERT_EQ(0, err)
	{
		TH_LOG("%s the fresh tmpfs on %s: %s", what, TMPFS_DIR,
		       strerror(err));
	}
}

FIXTURE_TEARDOWN(pipe)
{
	struct pipe_ctx *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	if (c->direct >= 0)
		EXPECT_EQ(0, close(c->direct));
	if (c->file >= 0)
		EXPECT_EQ(0, close(c->file));
	if (c->dirfd >= 0) {
		EXPECT_EQ(0, close(c->dirfd));
		/* Detached: an fd leaked by a point must not keep it busy. */
		EXPECT_EQ(0, umount2(TMPFS_DIR, MNT_DETACH))
		{
			TH_LOG("unmounting %s: %s", TMPFS_DIR, strerror(errno));
		}
	}
	if (data)
		EXPECT_EQ(0, munmap(data, LEN));
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed, move fewer bytes than asked (a short count whose bytes are
 * exactly those that arrived), or fail with an allowed errno having moved
 * nothing; no fd, tmpfs block or inode is lost.
 */
FAILNTH_SWEEP_OP(pipe, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
