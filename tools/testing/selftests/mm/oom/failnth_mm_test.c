// SPDX-License-Identifier: GPL-2.0
/*
 * Memory-management calls while their small allocations fail, one at a time.
 *
 * Each variant makes one mapping change (mmap, munmap, mremap, mprotect,
 * madvise), a page-fault touch, or sets up one memory object (memfd with
 * seals, userfaultfd, SysV shm), with every failslab and fail_page_alloc
 * point on its path made to fail in turn (see failnth.h). The call must
 * succeed or fail with an allowed errno. A success leaves the effect whole,
 * checked in /proc/self/maps (range and protections) and by reading the
 * data back; a failure leaves every mapping as it was (the engine compares
 * /proc/self/maps) and the data intact.
 *
 * The middle page of three filled ones is also changed by mlock(),
 * munlock(), mlock2(MLOCK_ONFAULT), madvise(MADV_DONTFORK, MADV_WIPEONFORK,
 * MADV_NOHUGEPAGE) and mseal(): a success leaves three VMAs with the flag
 * on the middle one alone (VmFlags and "Locked:" in /proc/self/smaps; a
 * forked child lacks the page or reads it as zero; a sealed page cannot be
 * unmapped or mprotect()ed), a failure the mapping and flags as before. It
 * is replaced by mmap(MAP_FIXED), mremap(MREMAP_FIXED) of another page and
 * shmat(SHM_REMAP): a success shows the new contents there (and the
 * moved page's old range unmapped), a failure the old ones (shmat() may
 * also leave the middle page unmapped, as POSIX allows a failed mmap()).
 * mremap(MREMAP_DONTUNMAP) must leave the data at the new address and the
 * old range mapped and zero, or nothing changed; brk() growth and shrink
 * must move the break and the [heap] end together, or neither.
 *
 * userfaultfd's UFFDIO_COPY, UFFDIO_ZEROPAGE and UFFDIO_MOVE into a
 * registered range must leave the page resident with its data (mincore(),
 * a read), or still missing; UFFDIO_REGISTER and UFFDIO_UNREGISTER of the
 * middle page set "um" on it alone, or leave the flags as they were.
 * mincore() of a range longer than its one-page buffer fills the vector,
 * or leaves it as it was; remap_file_pages() shows another file page in
 * the middle, or the old one (or, as a failed shmat(SHM_REMAP), none). An
 * mmap() of a memfd with MAP_POPULATE, MADV_POPULATE_READ and the
 * userfaultfd fills (also UFFDIO_COPY into a shmem hole, which the file
 * must then hold) work in an empty span, so that they allocate its page
 * tables; an mmap() of /dev/zero must show a fresh shared mapping.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "failnth_child.h"

/* Per test; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* Pages of the mappings the actions work on. */
#define NR_PAGES 4
/* Pages a MADV_POPULATE_WRITE and the fault touch fill in. */
#define NR_FILL 16
/*
 * Pages MADV_DONTNEED zaps: more than the mmu_gather's on-stack batch
 * (MMU_GATHER_BUNDLE, 8), so that it allocates a batch page.
 */
#define NR_ZAP 64
/* Bytes the memfd scenario writes. */
#define MEMFD_LEN (16 * 1024)

/* UFFDIO_MOVE (6.8) for old headers: include/uapi/linux/userfaultfd.h */
#ifndef UFFDIO_MOVE
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;
};

#define UFFDIO_MOVE _IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * Failed mapping changes. mmap(), munmap(), mremap(), mprotect() and
 * madvise() report a failed vma, maple-tree or page-table allocation as
 * ENOMEM; MADV_POPULATE_WRITE too (mm/madvise.c:madvise_populate(),
 * "case -ENOMEM: ... return -ENOMEM;").
 */
static const int mm_errnos[] = { ENOMEM, 0 };

/*
 * madvise() that changes VMA flags: a failed split in madvise_update_vma()
 * is ENOMEM, which madvise_vma_behavior() reports as EAGAIN
 * (mm/madvise.c:1142, linux 6.12), as madvise(2) documents ("A kernel
 * resource was temporarily unavailable").
 */
static const int madv_errnos[] = { EAGAIN, 0 };

/*
 * Creating a shmem file: memfd_create() and shmget() create an inode on the
 * internal shmem mount, and a failed inode allocation is ENOSPC:
 * mm/shmem.c:__shmem_get_inode() has "return ERR_PTR(-ENOSPC);" when
 * new_inode() fails (linux 6.12, mm/shmem.c:2903).
 */
static const int shmem_errnos[] = { ENOMEM, ENOSPC, 0 };

struct mm_state;

/*
 * A madvise() that sets a VMA flag on the middle page: the advice, the
 * flag's VmFlags mnemonic in smaps, and what a child forked after a
 * success must see (NULL: a fork shows nothing of it). A failure leaves
 * the flag unset and a child sees all three pages.
 */
struct madv_flag {
	int advice;
	const char *flag;
	bool (*forked)(struct mm_state *st, char *why, size_t size);
};

/* The state of one scenario, shared by its callbacks. */
struct mm_state {
	size_t page;
	/* The mapping prepare() made, and its length. */
	char *addr;
	size_t len;
	/* What the action mapped or moved to. */
	char *result;
	/* What mremap(MREMAP_FIXED) moves. */
	char *src;
	int memfd;
	int uffd;
	int shmid;
	/* SysV segments when fresh. */
	int nr_shm;
	/* The step of a multi-call action that failed, from 1. */
	int step;
	/* The variant's madvise() flag (madv_flag_check()). */
	const struct madv_flag *madv;
	/* The variant's extra mmap() flags (mmap_memfd_action()). */
	int mmap_flags;
};

/* The byte at @off in page @pg of a mapping prepare() filled. */
static char pattern(size_t pg, size_t off)
{
	return 'a' + (pg * 7 + off) % 26;
}

static void fill(char *p, size_t first_pg, size_t nr, size_t page)
{
	size_t pg, off;

	for (pg = 0; pg < nr; pg++)
		for (off = 0; off < page; off++)
			p[pg * page + off] = pattern(first_pg + pg, off);
}

/*
 * Whether the @nr pages at @p hold the pattern of pages @first_pg on; if
 * not, says where in @why.
 */
static bool filled(const char *p, size_t first_pg, size_t nr, size_t page,
		   char *why, size_t size)
{
	size_t pg, off;

	for (pg = 0; pg < nr; pg++)
		for (off = 0; off < page; off++)
			if (p[pg * page + off] != pattern(first_pg + pg, off)) {
				const char *fmt =
					"data lost: byte %zu of page %zu at %p is 0x%x";

				snprintf(why, size, fmt, off, first_pg + pg,
					 p + pg * page,
					 (unsigned char)p[pg * page + off]);
				return false;
			}
	return true;
}

/* Whether the @len bytes at @p read as zero; if not, says where. */
static bool zeroed(const char *p, size_t len, char *why, size_t size)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i]) {
			snprintf(why, size, "byte %zu at %p is 0x%x, not 0", i,
				 p, (unsigned char)p[i]);
			return false;
		}
	return true;
}

/*
 * Whether every byte of [@addr, @addr + @len) is mapped with @perms ("rw-p";
 * NULL: not mapped at all), per /proc/self/maps; if not, says what is
 * there.
 */
static bool maps_range(const void *addr, size_t len, const char *perms,
		       char *why, size_t size)
{
	static char buf[FAILNTH_MAPS_SIZE];
	unsigned long start = (unsigned long)addr, end = start + len;
	unsigned long cur = start, lo, hi;
	char *line, *save;
	char p[8];
	long ret;

	ret = failnth_read_maps(buf, sizeof(buf));
	if (ret < 0) {
		snprintf(why, size, "reading /proc/self/maps: %s",
			 strerror(-ret));
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, p) != 3)
			continue;
		if (hi <= start || lo >= end)
			continue;
		if (!perms || strcmp(p, perms)) {
			snprintf(why, size,
				 "[%lx, %lx) should be %s, found \"%s\"", start,
				 end, perms ? perms : "unmapped", line);
			return false;
		}
		if (lo > cur)
			break;
		cur = hi;
	}
	if (perms && cur < end) {
		snprintf(why, size, "[%lx, %lx) should be %s, %lx is unmapped",
			 start, end, perms, cur);
		return false;
	}
	return true;
}

/* An anonymous private mapping of @nr pages, filled with the pattern. */
static char *map_filled(struct __test_metadata *_metadata, struct mm_state *st,
			size_t nr)
{
	char *p = mmap(NULL, nr * st->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p)
	{
		TH_LOG("mmap of %zu pages: %s", nr, strerror(errno));
	}
	fill(p, 0, nr, st->page);
	return p;
}

static void unmap(struct __test_metadata *_metadata, void *p, size_t len)
{
	if (!p)
		return;
	ASSERT_EQ(0, munmap(p, len))
	{
		TH_LOG("munmap %p: %s", p, strerror(errno));
	}
}

/* Puts the state back to fresh: every mapping, fd and segment undone. */
static void mm_reset(struct __test_metadata *_metadata, struct mm_state *st)
{
	unmap(_metadata, st->result, st->len);
	unmap(_metadata, st->addr, st->len);
	st->result = NULL;
	st->addr = NULL;
	if (st->memfd >= 0)
		ASSERT_EQ(0, close(st->memfd));
	if (st->uffd >= 0)
		ASSERT_EQ(0, close(st->uffd));
	st->memfd = -1;
	st->uffd = -1;
	st->step = 0;
}

static void mm_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	mm_reset(_metadata, arg);
}

/* mmap() of fresh anonymous memory. */

static int mmap_anon_action(void *arg)
{
	struct mm_state *st = arg;
	char *p;

	st->len = NR_PAGES * st->page;
	p = mmap(NULL, st->len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	st->result = p;
	return 0;
}

/* Success: mapped with @perms, reads zero, keeps what is written. */
static bool fresh_mapped(struct mm_state *st, int ret, const char *perms,
			 char *why, size_t size)
{
	if (ret < 0)
		return true;
	if (!maps_range(st->result, st->len, perms, why, size) ||
	    !zeroed(st->result, st->len, why, size))
		return false;
	fill(st->result, 0, NR_PAGES, st->page);
	return filled(st->result, 0, NR_PAGES, st->page, why, size);
}

static bool mmap_anon_check(void *arg, int ret, char *why, size_t size)
{
	return fresh_mapped(arg, ret, "rw-p", why, size);
}

/* mmap() of a memfd that holds data. */

static void mmap_memfd_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;
	char *buf = malloc(NR_PAGES * st->page);

	ASSERT_NE(NULL, buf);
	st->len = NR_PAGES * st->page;
	st->memfd = memfd_create("failnth", MFD_CLOEXEC);
	ASSERT_LE(0, st->memfd)
	{
		TH_LOG("memfd_create: %s", strerror(errno));
	}
	fill(buf, 0, NR_PAGES, st->page);
	ASSERT_EQ(st->len, pwrite(st->memfd, buf, st->len, 0));
	free(buf);
}

static int mmap_memfd_action(void *arg)
{
	struct mm_state *st = arg;
	char *p;

	/* st->addr: NULL, or a hint (memfd_populate_prepare()). */
	p = mmap(st->addr, st->len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | st->mmap_flags, st->memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	st->result = p;
	return 0;
}

/* Success: mapped shared read-write, and shows the file's data. */
static bool mmap_memfd_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (ret < 0)
		return true;
	return maps_range(st->result, st->len, "rw-s", why, size) &&
	       filled(st->result, 0, NR_PAGES, st->page, why, size);
}

/* Three filled pages, for the calls that split a mapping. */
static void three_pages_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = 3 * st->page;
	st->addr = map_filled(_metadata, st, 3);
}

/* Whether the three pages are intact with @perms in the middle one. */
static bool three_pages_are(struct mm_state *st, const char *middle, char *why,
			    size_t size)
{
	size_t pg = st->page;

	return maps_range(st->addr, pg, "rw-p", why, size) &&
	       maps_range(st->addr + pg, pg, middle, why, size) &&
	       maps_range(st->addr + 2 * pg, pg, "rw-p", why, size) &&
	       filled(st->addr, 0, 1, pg, why, size) &&
	       (!middle || filled(st->addr + pg, 1, 1, pg, why, size)) &&
	       filled(st->addr + 2 * pg, 2, 1, pg, why, size);
}

/* munmap() of the middle page: the mapping splits in two. */

static int munmap_split_action(void *arg)
{
	struct mm_state *st = arg;

	return munmap(st->addr + st->page, st->page) ? -errno : 0;
}

static bool munmap_split_check(void *arg, int ret, char *why, size_t size)
{
	return three_pages_are(arg, ret < 0 ? "rw-p" : NULL, why, size);
}

/* mprotect() of the middle page to read-only: the mapping splits in three. */

static int mprotect_split_action(void *arg)
{
	struct mm_state *st = arg;

	return mprotect(st->addr + st->page, st->page, PROT_READ) ? -errno : 0;
}

static bool mprotect_split_check(void *arg, int ret, char *why, size_t size)
{
	return three_pages_are(arg, ret < 0 ? "rw-p" : "r--p", why, size);
}

/*
 * mremap() growing two filled pages to four. "grow" has room after them
 * and grows in place; the pages are mlock()ed, so that mremap() populates
 * the new ones (mm/mremap.c:SYSCALL_DEFINE5(mremap), "if (locked &&
 * new_len > old_len) mm_populate(...)"): growing an unlocked mapping in
 * place reaches no injection point at all (measured: 0 in every mode).
 * "move" has a PROT_NONE guard page after them and must move
 * (MREMAP_MAYMOVE). "shrink" cuts three pages to one, an unmap of the
 * tail that splits the mapping.
 */

static void mremap_grow_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = 4 * st->page;
	st->addr = map_filled(_metadata, st, 4);
	unmap(_metadata, st->addr + 2 * st->page, 2 * st->page);
	ASSERT_EQ(0, mlock(st->addr, 2 * st->page))
	{
		TH_LOG("mlock: %s", strerror(errno));
	}
}

static int mremap_grow_action(void *arg)
{
	struct mm_state *st = arg;
	char *p = mremap(st->addr, 2 * st->page, 4 * st->page, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static bool mremap_grow_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	size_t pg = st->page;

	if (ret < 0)
		return maps_range(st->addr, 2 * pg, "rw-p", why, size) &&
		       maps_range(st->addr + 2 * pg, 2 * pg, NULL, why, size) &&
		       filled(st->addr, 0, 2, pg, why, size);
	return maps_range(st->addr, 4 * pg, "rw-p", why, size) &&
	       filled(st->addr, 0, 2, pg, why, size) &&
	       zeroed(st->addr + 2 * pg, 2 * pg, why, size);
}

static int mremap_shrink_action(void *arg)
{
	struct mm_state *st = arg;
	char *p = mremap(st->addr, 3 * st->page, st->page, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static bool mremap_shrink_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	size_t pg = st->page;

	if (ret < 0)
		return three_pages_are(st, "rw-p", why, size);
	return maps_range(st->addr, pg, "rw-p", why, size) &&
	       maps_range(st->addr + pg, 2 * pg, NULL, why, size) &&
	       filled(st->addr, 0, 1, pg, why, size);
}

static void mremap_move_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = 4 * st->page;
	st->addr = map_filled(_metadata, st, 3);
	ASSERT_EQ(0, mprotect(st->addr + 2 * st->page, st->page, PROT_NONE));
}

static int mremap_move_action(void *arg)
{
	struct mm_state *st = arg;
	char *p = mremap(st->addr, 2 * st->page, 4 * st->page, MREMAP_MAYMOVE);

	if (p == MAP_FAILED)
		return -errno;
	st->result = p;
	return 0;
}

static bool mremap_move_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	size_t pg = st->page;

	if (ret < 0)
		return maps_range(st->addr, 2 * pg, "rw-p", why, size) &&
		       maps_range(st->addr + 2 * pg, pg, "---p", why, size) &&
		       filled(st->addr, 0, 2, pg, why, size);
	if (st->result == st->addr) {
		snprintf(why, size, "grew in place over the guard page");
		return false;
	}
	return maps_range(st->addr, 2 * pg, NULL, why, size) &&
	       maps_range(st->addr + 2 * pg, pg, "---p", why, size) &&
	       maps_range(st->result, 4 * pg, "rw-p", why, size) &&
	       filled(st->result, 0, 2, pg, why, size) &&
	       zeroed(st->result + 2 * pg, 2 * pg, why, size);
}

static void mremap_move_cleanup(struct __test_metadata *_metadata, void *arg,
				int ret)
{
	struct mm_state *st = arg;

	/* What is left of the old range is its guard page, or all three. */
	unmap(_metadata, st->addr, 3 * st->page);
	st->addr = NULL;
	mm_reset(_metadata, st);
}

/* madvise(MADV_DONTNEED) of filled pages: they read as zero after. */

static void zap_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = NR_ZAP * st->page;
	st->addr = map_filled(_metadata, st, NR_ZAP);
}

static int madv_dontneed_action(void *arg)
{
	struct mm_state *st = arg;

	return madvise(st->addr, st->len, MADV_DONTNEED) ? -errno : 0;
}

static bool madv_dontneed_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (!maps_range(st->addr, st->len, "rw-p", why, size))
		return false;
	if (ret < 0)
		return filled(st->addr, 0, NR_ZAP, st->page, why, size);
	return zeroed(st->addr, st->len, why, size);
}

/* madvise(MADV_POPULATE_WRITE) of fresh pages: all resident after. */

/* A fresh anonymous mapping of @nr pages at st->addr. */
static void map_fresh(struct __test_metadata *_metadata, struct mm_state *st,
		      size_t nr)
{
	st->len = nr * st->page;
	st->addr = mmap(NULL, st->len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st->addr)
	{
		st->addr = NULL;
		TH_LOG("mmap: %s", strerror(errno));
	}
}

static void fresh_pages_prepare(struct __test_metadata *_metadata, void *arg)
{
	map_fresh(_metadata, arg, NR_FILL);
}

/*
 * A fresh anonymous mapping of @nr pages at the start of an empty span of
 * the size one page-middle-directory page maps (1 GiB with 4 KiB pages),
 * so that the first fault or fill in it allocates that table and a
 * page-table page (page points): a mapping left where mmap() puts it
 * shares its tables with the mappings next to it. The span is reserved
 * PROT_NONE and MAP_NORESERVE: no memory, no commit charge.
 */
static char *map_fresh_table(struct __test_metadata *_metadata,
			     struct mm_state *st, size_t nr)
{
	unsigned long entries = st->page / sizeof(long);
	unsigned long span = st->page * entries * entries;
	char *p = mmap(NULL, 2 * span, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	unmap(_metadata, p, 2 * span);
	p = (char *)(((unsigned long)p + span - 1) & ~(span - 1));
	p = mmap(p, nr * st->page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_NE(MAP_FAILED, p)
	{
		TH_LOG("mmap of a fresh span: %s", strerror(errno));
	}
	return p;
}

static void fresh_table_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = NR_FILL * st->page;
	st->addr = map_fresh_table(_metadata, st, NR_FILL);
}

static int madv_populate_action(void *arg)
{
	struct mm_state *st = arg;

	return madvise(st->addr, st->len, st->madv->advice) ? -errno : 0;
}

/* Whether all of the mapping is resident; if not, names a page that is not. */
static bool resident(struct mm_state *st, char *why, size_t size)
{
	unsigned char vec[NR_FILL];
	size_t i;

	if (mincore(st->addr, st->len, vec)) {
		snprintf(why, size, "mincore: %s", strerror(errno));
		return false;
	}
	for (i = 0; i < st->len / st->page; i++)
		if (!(vec[i] & 1)) {
			snprintf(why, size, "page %zu not populated", i);
			return false;
		}
	return true;
}

/* A failure may have populated part; either way the memory reads zero. */
static bool madv_populate_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (!maps_range(st->addr, st->len, "rw-p", why, size))
		return false;
	if (ret >= 0 && !resident(st, why, size))
		return false;
	return zeroed(st->addr, st->len, why, size);
}

/*
 * memfd_create() + write() + F_ADD_SEALS: a sealed file of MEMFD_LEN bytes.
 * Returns the count written; the memfd stays in the state either way.
 */

#define MEMFD_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

static void memfd_seal_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = MEMFD_LEN;
	st->result = mmap(NULL, st->len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st->result)
	{
		st->result = NULL;
		TH_LOG("mmap: %s", strerror(errno));
	}
	fill(st->result, 0, 1, st->len);
}

static int memfd_seal_action(void *arg)
{
	struct mm_state *st = arg;
	ssize_t len;

	st->step = 1;
	st->memfd = memfd_create("failnth", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (st->memfd < 0)
		return -errno;
	st->step = 2;
	len = write(st->memfd, st->result, st->len);
	if (len < 0)
		return -errno;
	st->step = 3;
	if (fcntl(st->memfd, F_ADD_SEALS, MEMFD_SEALS))
		return -errno;
	st->step = 0;
	return len;
}

/* Whether the memfd holds the first @len bytes of the data, no more. */
static bool memfd_holds(struct mm_state *st, size_t len, char *why, size_t size)
{
	char *buf = malloc(st->len + 1);
	ssize_t got;
	bool ok;

	if (!buf) {
		snprintf(why, size, "malloc: out of memory");
		return false;
	}
	got = pread(st->memfd, buf, st->len + 1, 0);
	ok = got == (ssize_t)len && !memcmp(buf, st->result, len);
	if (!ok)
		snprintf(why, size, "memfd reads %zd bytes%s, %zu written", got,
			 got == (ssize_t)len ? " that differ" : "", len);
	free(buf);
	return ok;
}

/*
 * A success: the data (or the short count's part of it) is there and the
 * seals are set, so that a write fails with EPERM. A failure: the step that
 * failed had no effect (no seal; for the write, a size of 0).
 */
static bool memfd_seal_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	int seals;

	/* A failed memfd_create(): the engine checks that no fd is left. */
	if (ret < 0 && st->step == 1)
		return true;
	seals = fcntl(st->memfd, F_GET_SEALS);
	if (ret < 0) {
		if (seals) {
			snprintf(why, size, "step %d failed, seals are 0x%x",
				 st->step, seals);
			return false;
		}
		return st->step != 2 || memfd_holds(st, 0, why, size);
	}
	if (seals != MEMFD_SEALS) {
		snprintf(why, size, "seals are 0x%x, not 0x%x", seals,
			 MEMFD_SEALS);
		return false;
	}
	if (pwrite(st->memfd, "x", 1, 0) != -1 || errno != EPERM) {
		snprintf(why, size,
			 "a write to the sealed memfd did not fail with EPERM");
		return false;
	}
	return memfd_holds(st, ret, why, size);
}

/*
 * userfaultfd() + UFFDIO_API + UFFDIO_REGISTER (missing mode) of a fresh
 * mapping. The fd stays in the state either way.
 */

/* userfaultfd() + UFFDIO_API into st->uffd: 0 or -errno (st->step: which). */
static int uffd_open(struct mm_state *st)
{
	struct uffdio_api api = { .api = UFFD_API };

	st->step = 1;
	st->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (st->uffd < 0)
		return -errno;
	st->step = 2;
	return ioctl(st->uffd, UFFDIO_API, &api) ? -errno : 0;
}

/* UFFDIO_REGISTER (missing mode) of @len bytes at @addr: 0 or -errno. */
static int uffd_register(struct mm_state *st, void *addr, size_t len)
{
	struct uffdio_register reg = {
		.range = { (unsigned long)addr, len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	return ioctl(st->uffd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

static int uffd_action(void *arg)
{
	struct mm_state *st = arg;
	int ret = uffd_open(st);

	if (ret)
		return ret;
	st->step = 3;
	ret = uffd_register(st, st->addr, st->len);
	if (!ret)
		st->step = 0;
	return ret;
}

/* Whether the mapping at @addr has the VmFlags mnemonic @flag in smaps. */
static int smaps_flag(const void *addr, const char *flag)
{
	unsigned long lo, hi, want = (unsigned long)addr;
	char line[512], name[8];
	bool in = false;
	int found = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -errno;
	snprintf(name, sizeof(name), " %s ", flag);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = lo <= want && want < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			found = strstr(line + 7, name) ? 1 : 0;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * A success: the range is registered ("um" in VmFlags) and UFFDIO_ZEROPAGE
 * resolves a page of it. A failure: no registration is left behind.
 */
static bool uffd_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	struct uffdio_zeropage zp = {
		.range = { (unsigned long)st->addr, st->page },
	};
	int um = smaps_flag(st->addr, "um");

	if (um < 0) {
		snprintf(why, size, "no VmFlags for %p in smaps: %s", st->addr,
			 strerror(-um));
		return false;
	}
	if (ret < 0) {
		if (um) {
			snprintf(why, size, "step %d failed, range registered",
				 st->step);
			return false;
		}
		return true;
	}
	if (!um) {
		snprintf(why, size, "registered, but no \"um\" in VmFlags");
		return false;
	}
	if (ioctl(st->uffd, UFFDIO_ZEROPAGE, &zp) || zp.zeropage != st->page) {
		snprintf(why, size, "UFFDIO_ZEROPAGE: %s (%lld)",
			 strerror(errno), (long long)zp.zeropage);
		return false;
	}
	return zeroed(st->addr, st->page, why, size);
}

/* shmget() + shmat() of a fresh SysV segment. */

/* The number of SysV shm segments in the system, or -errno. */
static int count_shm(void)
{
	char line[256];
	int nr = -1;
	FILE *f;

	f = fopen("/proc/sysvipc/shm", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		nr++;
	fclose(f);
	return nr;
}

static void shm_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = NR_PAGES * st->page;
	st->shmid = -1;
	st->nr_shm = count_shm();
	ASSERT_LE(0, st->nr_shm)
	{
		TH_LOG("reading /proc/sysvipc/shm: %s", strerror(-st->nr_shm));
	}
}

static int shm_action(void *arg)
{
	struct mm_state *st = arg;
	void *p;

	st->step = 1;
	st->shmid = shmget(IPC_PRIVATE, st->len, IPC_CREAT | 0600);
	if (st->shmid < 0)
		return -errno;
	st->step = 2;
	p = shmat(st->shmid, NULL, 0);
	if (p == (void *)-1)
		return -errno;
	st->result = p;
	st->step = 0;
	return 0;
}

/* Whether the segment has @nr attaches: none after a failed shmat(). */
static bool shm_attaches_are(struct mm_state *st, unsigned long nr, char *why,
			     size_t size)
{
	struct shmid_ds ds;

	if (shmctl(st->shmid, IPC_STAT, &ds)) {
		snprintf(why, size, "IPC_STAT: %s", strerror(errno));
		return false;
	}
	if (ds.shm_nattch == nr)
		return true;
	snprintf(why, size, "%lu attaches after %s",
		 (unsigned long)ds.shm_nattch, nr ? "shmat" : "a failed shmat");
	return false;
}

/*
 * A success: attached read-write and shared, one attach, data kept. A
 * failed shmget(): no new segment; a failed shmat(): the segment has no
 * attach (the engine checks that no mapping appeared).
 */
static bool shm_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	int nr = count_shm();

	if (ret < 0 && st->step == 1) {
		if (nr != st->nr_shm) {
			snprintf(why, size,
				 "shmget failed, %d segments, %d before", nr,
				 st->nr_shm);
			return false;
		}
		return true;
	}
	if (!shm_attaches_are(st, ret < 0 ? 0 : 1, why, size))
		return false;
	if (ret < 0)
		return true;
	if (!maps_range(st->result, st->len, "rw-s", why, size))
		return false;
	fill(st->result, 0, NR_PAGES, st->page);
	return filled(st->result, 0, NR_PAGES, st->page, why, size);
}

static void shm_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct mm_state *st = arg;

	if (st->result) {
		ASSERT_EQ(0, shmdt(st->result));
		st->result = NULL;
	}
	if (st->shmid >= 0)
		ASSERT_EQ(0, shmctl(st->shmid, IPC_RMID, NULL));
	st->shmid = -1;
	mm_reset(_metadata, st);
}

/* No segment lost or left: as many as when fresh. */
static bool shm_settled(void *arg, char *why, size_t size)
{
	struct mm_state *st = arg;
	int nr = count_shm();

	if (nr != st->nr_shm) {
		snprintf(why, size, "%d SysV segments, %d when fresh", nr,
			 st->nr_shm);
		return false;
	}
	return true;
}

/*
 * The page-fault touch, in a child (failnth_child.h): a write to each of
 * NR_FILL pages of a fresh anonymous mapping. A failed allocation in an
 * anonymous fault is VM_FAULT_OOM (mm/memory.c:do_anonymous_page(), "oom:
 * return VM_FAULT_OOM;"); the UML fault handler then calls
 * pagefault_out_of_memory() and returns 0 for a user fault
 * (arch/um/kernel/trap.c:handle_page_fault(), label out_of_memory), which
 * prints "Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF"
 * (mm/oom_kill.c:pagefault_out_of_memory()) and lets the instruction fault
 * again. fail-nth fires once, so the retry succeeds: the only clean fate
 * is the child writing every page and exiting. A SIGBUS or SIGSEGV (no
 * path in the source for an anonymous fault's allocation failure) or a
 * SIGKILL (pagefault_out_of_memory() no longer calls the OOM killer; only a
 * memcg OOM could, and no memcg limit is set) is wrong.
 */

static int touch_prepare(void *arg)
{
	struct mm_state *st = arg;

	st->len = NR_FILL * st->page;
	st->addr = mmap(NULL, st->len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return st->addr == MAP_FAILED ? -errno : 0;
}

static int touch_action(void *arg)
{
	struct mm_state *st = arg;
	char *p = st->addr;
	size_t pg;

	for (pg = 0; pg < NR_FILL; pg++)
		p[pg * st->page] = pattern(pg, 0);
	return NR_FILL;
}

/* Every page holds what was written, and is resident. */
static bool touch_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	size_t pg;

	for (pg = 0; pg < NR_FILL; pg++)
		if (st->addr[pg * st->page] != pattern(pg, 0)) {
			snprintf(why, size, "page %zu lost its write", pg);
			return false;
		}
	return maps_range(st->addr, st->len, "rw-p", why, size) &&
	       resident(st, why, size);
}

/*
 * VMA flag changes of the middle page of three filled pages: mlock(),
 * munlock(), mlock2(MLOCK_ONFAULT), madvise(MADV_DONTFORK,
 * MADV_WIPEONFORK, MADV_NOHUGEPAGE) and mseal(). Each splits the mapping
 * in three through vma_modify(), whose two split_vma() calls allocate
 * (mm/vma.c:1459 and mm/vma.c:1467, linux 6.12). A success shows three
 * VMAs with the flag on the middle one alone, in the VmFlags of
 * /proc/self/smaps; a failure leaves the mapping and its flags as before.
 */

/*
 * The value, in kB, of the smaps field @field ("Locked:") of the mapping
 * that holds @addr, or -errno.
 */
static long smaps_kb(const void *addr, const char *field)
{
	unsigned long lo, hi, want = (unsigned long)addr;
	size_t flen = strlen(field);
	char line[512];
	bool in = false;
	long kb = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = lo <= want && want < hi;
			continue;
		}
		if (in && !strncmp(line, field, flen)) {
			kb = strtol(line + flen, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/*
 * Whether the VmFlags mnemonic @flag is set on each of the three pages as
 * @want says ("010": the middle one alone); if not, says which.
 */
static bool three_flags_are(struct mm_state *st, const char *flag,
			    const char *want, char *why, size_t size)
{
	int pg, got;

	for (pg = 0; pg < 3; pg++) {
		got = smaps_flag(st->addr + pg * st->page, flag);
		if (got < 0) {
			snprintf(why, size, "no VmFlags for page %d: %s", pg,
				 strerror(-got));
			return false;
		}
		if (got != want[pg] - '0') {
			snprintf(why, size, "page %d: \"%s\" %s in VmFlags", pg,
				 flag, got ? "set" : "not set");
			return false;
		}
	}
	return true;
}

/*
 * Whether the "Locked:" of the mapping that holds the middle page is @kb in
 * smaps: the middle page's alone after a split, all three pages' when the
 * mapping is whole.
 */
static bool middle_locked_is(struct mm_state *st, long kb, char *why,
			     size_t size)
{
	long got = smaps_kb(st->addr + st->page, "Locked:");

	if (got != kb) {
		snprintf(why, size,
			 "the middle mapping has Locked: %ld kB, not %ld", got,
			 kb);
		return false;
	}
	return true;
}

/* mlock() of the middle page: VM_LOCKED ("lo") on it alone. */

static int mlock_split_action(void *arg)
{
	struct mm_state *st = arg;

	return mlock(st->addr + st->page, st->page) ? -errno : 0;
}

static bool mlock_split_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	long kb = st->page / 1024;

	return three_pages_are(st, "rw-p", why, size) &&
	       three_flags_are(st, "lo", ret < 0 ? "000" : "010", why, size) &&
	       middle_locked_is(st, ret < 0 ? 0 : kb, why, size);
}

/* munlock() of the middle page of three locked ones. */

static void three_locked_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	three_pages_prepare(_metadata, arg);
	ASSERT_EQ(0, mlock(st->addr, st->len))
	{
		TH_LOG("mlock: %s", strerror(errno));
	}
}

static int munlock_split_action(void *arg)
{
	struct mm_state *st = arg;

	return munlock(st->addr + st->page, st->page) ? -errno : 0;
}

static bool munlock_split_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	long kb = st->page / 1024;

	return three_pages_are(st, "rw-p", why, size) &&
	       three_flags_are(st, "lo", ret < 0 ? "111" : "101", why, size) &&
	       middle_locked_is(st, ret < 0 ? 3 * kb : 0, why, size);
}

/*
 * mlock2(MLOCK_ONFAULT) of the middle page: VM_LOCKED and VM_LOCKONFAULT
 * ("lf") on it alone.
 */

static int mlock2_onfault_action(void *arg)
{
	struct mm_state *st = arg;

	return syscall(__NR_mlock2, st->addr + st->page, st->page,
		       MLOCK_ONFAULT) ?
		       -errno :
		       0;
}

static bool mlock2_onfault_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	const char *want = ret < 0 ? "000" : "010";

	return three_pages_are(st, "rw-p", why, size) &&
	       three_flags_are(st, "lo", want, why, size) &&
	       three_flags_are(st, "lf", want, why, size);
}

/*
 * What a child forked from this process finds, as seen by @fn run in it;
 * false, with the child's reason in @why, when it finds something else.
 * The child is waited for with a deadline (failnth_child_wait()).
 */
static bool forked_sees(struct mm_state *st,
			bool (*fn)(struct mm_state *st, char *why, size_t size),
			char *why, size_t size)
{
	char msg[256] = "";
	siginfo_t info;
	int pipefd[2], err;
	ssize_t len;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return false;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return false;
	}
	if (!pid) {
		bool ok = fn(st, msg, sizeof(msg));

		if (!ok && write(pipefd[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(ok ? 0 : 1);
	}
	close(pipefd[1]);
	err = failnth_child_wait(pid, WEXITED, &info, 10);
	if (err) {
		snprintf(why, size, "waiting for the forked child: %s",
			 strerror(-err));
		failnth_child_kill(pid);
		close(pipefd[0]);
		return false;
	}
	failnth_child_reap(pid);
	len = read(pipefd[0], msg, sizeof(msg) - 1);
	close(pipefd[0]);
	msg[len > 0 ? len : 0] = '\0';
	if (info.si_code != CLD_EXITED || info.si_status) {
		snprintf(why, size, "the forked child: %s (status %d)",
			 msg[0] ? msg : "no report", info.si_status);
		return false;
	}
	return true;
}

/* In a child: the middle page is not mapped, the others hold their data. */
static bool child_lacks_middle(struct mm_state *st, char *why, size_t size)
{
	return three_pages_are(st, NULL, why, size);
}

/* In a child: the middle page reads zero, the others hold their data. */
static bool child_middle_wiped(struct mm_state *st, char *why, size_t size)
{
	size_t pg = st->page;

	return maps_range(st->addr, 3 * pg, "rw-p", why, size) &&
	       filled(st->addr, 0, 1, pg, why, size) &&
	       zeroed(st->addr + pg, pg, why, size) &&
	       filled(st->addr + 2 * pg, 2, 1, pg, why, size);
}

/* In a child: all three pages are mapped and hold their data. */
static bool child_has_all(struct mm_state *st, char *why, size_t size)
{
	return three_pages_are(st, "rw-p", why, size);
}

/* MADV_DONTFORK: VM_DONTCOPY ("dc"); a forked child lacks the page. */
static const struct madv_flag madv_dontfork = {
	.advice = MADV_DONTFORK,
	.flag = "dc",
	.forked = child_lacks_middle,
};

/* MADV_WIPEONFORK: VM_WIPEONFORK ("wf"); a forked child reads zeros. */
static const struct madv_flag madv_wipeonfork = {
	.advice = MADV_WIPEONFORK,
	.flag = "wf",
	.forked = child_middle_wiped,
};

/*
 * MADV_NOHUGEPAGE: VM_NOHUGEPAGE ("nh"). Without transparent hugepages the
 * advice is invalid (mm/madvise.c:madvise_behavior_valid()); UML has none
 * (no HAVE_ARCH_TRANSPARENT_HUGEPAGE), so the option is not in config.
 */
static const struct madv_flag madv_nohugepage = {
	.advice = MADV_NOHUGEPAGE,
	.flag = "nh",
};

#define NOHUGEPAGE_MISSING \
	"MADV_NOHUGEPAGE is EINVAL: needs CONFIG_TRANSPARENT_HUGEPAGE"

/* madvise() of the middle page with the variant's advice. */
static int madv_middle_action(void *arg)
{
	struct mm_state *st = arg;

	return madvise(st->addr + st->page, st->page, st->madv->advice) ?
		       -errno :
		       0;
}

static bool madv_flag_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	const struct madv_flag *m = st->madv;

	if (!three_pages_are(st, "rw-p", why, size) ||
	    !three_flags_are(st, m->flag, ret < 0 ? "000" : "010", why, size))
		return false;
	if (ret < 0)
		return forked_sees(st, child_has_all, why, size);
	return !m->forked || forked_sees(st, m->forked, why, size);
}

/*
 * mseal() of the middle page, in a child (failnth_child.h): a sealed
 * mapping cannot be unmapped, so each point's mapping dies with its child.
 * A success: VM_SEALED ("sl") on the middle page alone, and munmap() and
 * mprotect() of it fail with EPERM (mm/mseal.c:can_modify_vma()); a
 * failure: the maps as before, no seal, and mprotect() of the middle page
 * succeeds. The child's engine does not compare the maps: the check does.
 */

#ifndef __NR_mseal
#define __NR_mseal 462
#endif

#define MSEAL_MISSING \
	"mseal missing: needs linux 6.10 or later on a 64-bit kernel (CONFIG_64BIT)"

/* The maps before the armed mseal(), in the child. */
static char mseal_maps[FAILNTH_MAPS_SIZE];

static int mseal_prepare(void *arg)
{
	struct mm_state *st = arg;
	long len;

	st->len = 3 * st->page;
	st->addr = mmap(NULL, st->len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->addr == MAP_FAILED)
		return -errno;
	fill(st->addr, 0, 3, st->page);
	len = failnth_read_maps(mseal_maps, sizeof(mseal_maps));
	return len < 0 ? len : 0;
}

static int mseal_action(void *arg)
{
	struct mm_state *st = arg;

	return syscall(__NR_mseal, st->addr + st->page, st->page, 0) ? -errno :
								       0;
}

static bool mseal_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	char *mid = st->addr + st->page;

	if (!three_pages_are(st, "rw-p", why, size) ||
	    !three_flags_are(st, "sl", ret < 0 ? "000" : "010", why, size))
		return false;
	if (ret < 0) {
		if (!failnth_maps_same(NULL, mseal_maps,
				       "after the failed call", why, size))
			return false;
		if (mprotect(mid, st->page, PROT_READ)) {
			snprintf(why, size, "unsealed, yet mprotect: %s",
				 strerror(errno));
			return false;
		}
		return true;
	}
	if (!munmap(mid, st->page) || errno != EPERM) {
		snprintf(why, size, "munmap of the sealed page: %s",
			 strerror(errno));
		return false;
	}
	if (!mprotect(mid, st->page, PROT_READ) || errno != EPERM) {
		snprintf(why, size, "mprotect of the sealed page: %s",
			 strerror(errno));
		return false;
	}
	return three_pages_are(st, "rw-p", why, size);
}

/*
 * brk() growing the heap by BRK_PAGES, and shrinking it by half of that.
 * brk() returns the new break, or the old one when it fails
 * (mm/mmap.c:215, label out, linux 6.12): the action calls a failure
 * ENOMEM. The engine leaves the [heap] line out of its comparison of the
 * maps (malloc() grows it at will), so the checks read it themselves, and
 * nothing between the prepare and the cleanup calls malloc(), whose idea
 * of the break would then be wrong.
 */

#define BRK_PAGES 4

/* The current break. */
static char *cur_brk(void)
{
	return (char *)syscall(__NR_brk, 0);
}

/*
 * The end of the heap: the highest end of a [heap] line of /proc/self/maps
 * (a grown part that cannot merge, being unlocked while the sweep's
 * mlockall() locked the rest, has a line of its own), 0 if none, or
 * -errno. Read without malloc().
 */
static long heap_end(void)
{
	static char buf[FAILNTH_MAPS_SIZE];
	unsigned long lo, hi, end = 0;
	ssize_t len = read_file("/proc/self/maps", buf, sizeof(buf));
	char *line, *save;

	if (len < 0)
		return len;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "[heap]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 && hi > end)
			end = hi;
	return end;
}

/*
 * Whether the break is @brk and the heap ends there (@brk is page aligned);
 * if not, says what they are.
 */
static bool brk_is(const char *brk, char *why, size_t size)
{
	char *now = cur_brk();
	long end = heap_end();

	if (now != brk || end != (long)brk) {
		snprintf(why, size, "break at %p, heap end %lx, should be %p",
			 now, end, brk);
		return false;
	}
	return true;
}

/*
 * The break page aligned, BRK_PAGES above it for a shrink (@grown), and
 * the heap's end: st->addr is the aligned break, st->result the break
 * the action asks for.
 */
static void brk_setup(struct __test_metadata *_metadata, struct mm_state *st,
		      bool grown)
{
	char *brk = cur_brk();
	char *base =
		(char *)(((unsigned long)brk + st->page - 1) & ~(st->page - 1));
	char *want = base + (grown ? BRK_PAGES * st->page : 0);

	ASSERT_EQ(want, (char *)syscall(__NR_brk, want));
	st->addr = base;
	st->len = BRK_PAGES * st->page;
	if (grown)
		fill(base, 0, BRK_PAGES, st->page);
}

static void brk_grow_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	brk_setup(_metadata, st, false);
	st->result = st->addr + st->len;
}

static void brk_shrink_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	brk_setup(_metadata, st, true);
	st->result = st->addr + st->len / 2;
}

static int brk_action(void *arg)
{
	struct mm_state *st = arg;

	return (char *)syscall(__NR_brk, st->result) == st->result ? 0 :
								     -ENOMEM;
}

/*
 * Growth: a success moves the break and the heap's end up by BRK_PAGES,
 * which read zero and keep what is written; a failure moves neither.
 */
static bool brk_grow_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (ret < 0)
		return brk_is(st->addr, why, size);
	if (!brk_is(st->result, why, size) ||
	    !zeroed(st->addr, st->len, why, size))
		return false;
	fill(st->addr, 0, BRK_PAGES, st->page);
	return filled(st->addr, 0, BRK_PAGES, st->page, why, size);
}

/*
 * Shrink: a success moves the break and the heap's end down to the middle
 * of the grown pages, and the first half keeps its data; a failure leaves
 * all of them with their data.
 */
static bool brk_shrink_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (ret < 0)
		return brk_is(st->addr + st->len, why, size) &&
		       filled(st->addr, 0, BRK_PAGES, st->page, why, size);
	return brk_is(st->result, why, size) &&
	       filled(st->addr, 0, BRK_PAGES / 2, st->page, why, size);
}

/* Puts the break back where prepare() found it, page aligned. */
static void brk_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct mm_state *st = arg;

	ASSERT_EQ(st->addr, (char *)syscall(__NR_brk, st->addr));
	st->addr = NULL;
	st->result = NULL;
}

/*
 * mmap(MAP_FIXED) of fresh anonymous memory over the middle page of three
 * filled ones. A success: the middle page reads zero, the others keep
 * their data. A failure: the old middle page is still there, with its
 * data. mmap_region() gathers the old mapping to unmap before it maps the
 * new one, and puts it back when mapping fails (mm/mmap.c:1596,
 * abort_munmap, vms_abort_munmap_vmas(), linux 6.12); mmap(2) does not
 * document that a failed MAP_FIXED may unmap.
 */

static int mmap_fixed_action(void *arg)
{
	struct mm_state *st = arg;
	char *p;

	p = mmap(st->addr + st->page, st->page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	return p == MAP_FAILED ? -errno : 0;
}

static bool mmap_fixed_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (ret < 0)
		return three_pages_are(st, "rw-p", why, size);
	return maps_range(st->addr, st->len, "rw-p", why, size) &&
	       filled(st->addr, 0, 1, st->page, why, size) &&
	       zeroed(st->addr + st->page, st->page, why, size) &&
	       filled(st->addr + 2 * st->page, 2, 1, st->page, why, size);
}

/*
 * mremap(MREMAP_MAYMOVE | MREMAP_DONTUNMAP) of two filled pages. A
 * success: the data is at the new address, the old range is still mapped
 * and reads zero (mremap(2)). A failure: the data is where it was, and no
 * new mapping (the engine compares the maps).
 */

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static void two_pages_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = 2 * st->page;
	st->addr = map_filled(_metadata, st, 2);
}

static int mremap_dontunmap_action(void *arg)
{
	struct mm_state *st = arg;
	/*
	 * new_address, NULL, even without MREMAP_FIXED: with DONTUNMAP the
	 * kernel checks it against the old range (mm/mremap.c:967, linux
	 * 6.12), and a stale register there gave EINVAL.
	 */
	char *p = mremap(st->addr, st->len, st->len,
			 MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);

	if (p == MAP_FAILED)
		return -errno;
	st->result = p;
	return 0;
}

static bool mremap_dontunmap_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (!maps_range(st->addr, st->len, "rw-p", why, size))
		return false;
	if (ret < 0)
		return filled(st->addr, 0, 2, st->page, why, size);
	return maps_range(st->result, st->len, "rw-p", why, size) &&
	       filled(st->result, 0, 2, st->page, why, size) &&
	       zeroed(st->addr, st->len, why, size);
}

/*
 * mremap(MREMAP_MAYMOVE | MREMAP_FIXED) of one filled page (pattern page
 * 5, at st->src) onto the middle of three filled pages. A success: the
 * source is unmapped, the middle page holds the source's data, the others
 * keep theirs. A failure: both as they were.
 */

static void mremap_fixed_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	three_pages_prepare(_metadata, arg);
	st->src = mmap(NULL, st->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st->src)
	{
		st->src = NULL;
		TH_LOG("mmap: %s", strerror(errno));
	}
	fill(st->src, 5, 1, st->page);
}

static int mremap_fixed_action(void *arg)
{
	struct mm_state *st = arg;
	char *p = mremap(st->src, st->page, st->page,
			 MREMAP_MAYMOVE | MREMAP_FIXED, st->addr + st->page);

	return p == MAP_FAILED ? -errno : 0;
}

static bool mremap_fixed_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	size_t pg = st->page;

	if (ret < 0)
		return maps_range(st->src, pg, "rw-p", why, size) &&
		       filled(st->src, 5, 1, pg, why, size) &&
		       three_pages_are(st, "rw-p", why, size);
	return maps_range(st->src, pg, NULL, why, size) &&
	       maps_range(st->addr, st->len, "rw-p", why, size) &&
	       filled(st->addr, 0, 1, pg, why, size) &&
	       filled(st->addr + pg, 5, 1, pg, why, size) &&
	       filled(st->addr + 2 * pg, 2, 1, pg, why, size);
}

static void mremap_fixed_cleanup(struct __test_metadata *_metadata, void *arg,
				 int ret)
{
	struct mm_state *st = arg;

	/* Whatever is left of the source: munmap() of a hole is no error. */
	unmap(_metadata, st->src, st->page);
	st->src = NULL;
	mm_reset(_metadata, st);
}

/*
 * shmat(SHM_REMAP) of a fresh SysV segment of one page over the middle of
 * three filled pages. A success: the middle page is the segment, shared
 * ("rw-s") and zero, with one attach; the others keep their data. A
 * failure: no attach, the outer pages as they were, and the middle page
 * either as it was or gone. Gone is what POSIX allows a failed mmap() of a
 * fixed range ("some of the mappings in the address range ... may have
 * been unmapped"), and what the kernel keeps once the segment's ->mmap()
 * has run: vms_abort_munmap_vmas() leaves "a gap where the MAP_FIXED
 * mapping failed" (mm/vma.h:262-272, linux 6.12). Any other change, such
 * as F4's leftover split without a gap, is a failure.
 */

/*
 * The maps before the armed shmat() or remap_file_pages(), and the same
 * without the middle page.
 */
static char shm_maps[FAILNTH_MAPS_SIZE], shm_maps_gap[FAILNTH_MAPS_SIZE];

/*
 * @maps with its line for [@lo, @hi) split around [@cut, @cut + @len),
 * the hole, into @out: 0, or -ENOENT when no line is for [@lo, @hi). The
 * part after the hole of a @file mapping starts at its own file offset.
 */
static int maps_cut(const char *maps, unsigned long lo, unsigned long hi,
		    unsigned long cut, unsigned long len, bool file, char *out,
		    size_t size)
{
	const char *line, *tail, *next;
	unsigned long off;
	char range[64];
	char *rest;

	snprintf(range, sizeof(range), "%08lx-%08lx ", lo, hi);
	for (line = maps; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (!strncmp(line, range, strlen(range)))
			break;
	}
	if (!*line)
		return -ENOENT;
	tail = line + strlen(range) - 1;
	/* " rw-p 00000000 ...": the offset after the permissions. */
	off = strtoul(tail + 6, &rest, 16);
	if (file)
		off += cut + len - lo;
	snprintf(out, size, "%.*s%08lx-%08lx%.*s%08lx-%08lx%.6s%08lx%.*s%s",
		 (int)(line - maps), maps, lo, cut, (int)(next - tail), tail,
		 cut + len, hi, tail, off, (int)(next - rest), rest, next);
	return 0;
}

/* The maps now into shm_maps, and without the second page of st->addr. */
static void maps_snap_gap(struct __test_metadata *_metadata,
			  struct mm_state *st)
{
	unsigned long lo = (unsigned long)st->addr;

	ASSERT_LE(0, failnth_read_maps(shm_maps, sizeof(shm_maps)));
	ASSERT_EQ(0,
		  maps_cut(shm_maps, lo, lo + st->len, lo + st->page, st->page,
			   st->memfd >= 0, shm_maps_gap, sizeof(shm_maps_gap)));
}

static void shm_remap_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	three_pages_prepare(_metadata, arg);
	st->nr_shm = count_shm();
	st->shmid = shmget(IPC_PRIVATE, st->page, IPC_CREAT | 0600);
	ASSERT_LE(0, st->shmid)
	{
		TH_LOG("shmget: %s", strerror(errno));
	}
	maps_snap_gap(_metadata, st);
}

static int shm_remap_action(void *arg)
{
	struct mm_state *st = arg;
	void *p = shmat(st->shmid, st->addr + st->page, SHM_REMAP);

	return p == (void *)-1 ? -errno : 0;
}

static bool shm_remap_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	size_t pg = st->page;

	if (!shm_attaches_are(st, ret < 0 ? 0 : 1, why, size))
		return false;
	if (ret < 0 && failnth_maps_same(NULL, shm_maps_gap, "", why, size))
		return three_pages_are(st, NULL, why, size);
	if (ret < 0)
		return failnth_maps_same(NULL, shm_maps,
					 "after the failed shmat", why, size) &&
		       three_pages_are(st, "rw-p", why, size);
	return maps_range(st->addr, pg, "rw-p", why, size) &&
	       maps_range(st->addr + pg, pg, "rw-s", why, size) &&
	       maps_range(st->addr + 2 * pg, pg, "rw-p", why, size) &&
	       filled(st->addr, 0, 1, pg, why, size) &&
	       zeroed(st->addr + pg, pg, why, size) &&
	       filled(st->addr + 2 * pg, 2, 1, pg, why, size);
}

static void shm_remap_cleanup(struct __test_metadata *_metadata, void *arg,
			      int ret)
{
	struct mm_state *st = arg;

	/* The segment's attach goes with the rest of the range. */
	ASSERT_EQ(0, shmctl(st->shmid, IPC_RMID, NULL));
	st->shmid = -1;
	mm_reset(_metadata, st);
}

/*
 * userfaultfd ioctls on a range registered in prepare (missing mode):
 * UFFDIO_COPY of a filled page (pattern page 5, at st->src) and
 * UFFDIO_ZEROPAGE, each into the second of NR_PAGES fresh pages. A failed
 * page, page-table or anon_vma allocation is ENOMEM
 * (mm/userfaultfd.c:252 mfill_atomic_pte_copy(), :785 and :792
 * mfill_atomic(), :52 uffd_lock_vma()'s anon_vma_prepare(), linux 6.12).
 * A success: the page is resident and holds the source's data or zeroes.
 * A failure: the page is still missing (mincore()), the others too. No
 * missing page is read: that would wait for a handler.
 */

static void uffd_fill_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	/* The source first: the range must not merge into its mapping. */
	st->src = map_filled(_metadata, st, 1);
	fill(st->src, 5, 1, st->page);
	st->len = NR_PAGES * st->page;
	st->addr = map_fresh_table(_metadata, st, NR_PAGES);
	/* uffd_shmem_prepare(): the memfd's holes over the fresh range. */
	if (st->memfd >= 0)
		ASSERT_EQ(st->addr,
			  mmap(st->addr, st->len, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_FIXED, st->memfd, 0));
	ASSERT_EQ(0, uffd_open(st));
	ASSERT_EQ(0, uffd_register(st, st->addr, st->len));
}

static int uffd_copy_action(void *arg)
{
	struct mm_state *st = arg;
	struct uffdio_copy copy = {
		.dst = (unsigned long)st->addr + st->page,
		.src = (unsigned long)st->src,
		.len = st->page,
	};

	return ioctl(st->uffd, UFFDIO_COPY, &copy) ? -errno : 0;
}

static int uffd_zeropage_action(void *arg)
{
	struct mm_state *st = arg;
	struct uffdio_zeropage zp = {
		.range = { (unsigned long)st->addr + st->page, st->page },
	};

	return ioctl(st->uffd, UFFDIO_ZEROPAGE, &zp) ? -errno : 0;
}

/*
 * Whether mincore() finds page @pg of the mapping resident and the others
 * not (@pg < 0: none); if not, says which.
 */
static bool resident_only(struct mm_state *st, int pg, char *why, size_t size)
{
	unsigned char vec[NR_PAGES];
	int i;

	if (mincore(st->addr, st->len, vec)) {
		snprintf(why, size, "mincore: %s", strerror(errno));
		return false;
	}
	for (i = 0; i < NR_PAGES; i++) {
		int want = i == pg;

		if ((vec[i] & 1) != want) {
			snprintf(why, size, "page %d %sresident", i,
				 vec[i] & 1 ? "" : "not ");
			return false;
		}
	}
	return true;
}

/*
 * The range after a fill of its second page with pattern page @src_pg (-1:
 * zeroes): that page resident and holding it, or, after a failure, no page
 * resident.
 */
static bool uffd_filled(struct mm_state *st, int ret, int src_pg, char *why,
			size_t size)
{
	const char *perms = st->memfd >= 0 ? "rw-s" : "rw-p";
	char *mid = st->addr + st->page;

	if (!maps_range(st->addr, st->len, perms, why, size))
		return false;
	if (ret < 0)
		return resident_only(st, -1, why, size);
	if (!resident_only(st, 1, why, size))
		return false;
	if (src_pg < 0)
		return zeroed(mid, st->page, why, size);
	return filled(mid, src_pg, 1, st->page, why, size);
}

static bool uffd_copy_check(void *arg, int ret, char *why, size_t size)
{
	return uffd_filled(arg, ret, 5, why, size);
}

static bool uffd_zeropage_check(void *arg, int ret, char *why, size_t size)
{
	return uffd_filled(arg, ret, -1, why, size);
}

/*
 * UFFDIO_COPY into a registered MAP_SHARED memfd of NR_PAGES holes:
 * mm/shmem.c:shmem_mfill_atomic_pte() allocates the file's folio, and a
 * failed one is ENOMEM (mm/shmem.c:3032-3035, linux 6.12), as are its
 * failed page-cache insertion and page tables. A success: as UFFDIO_COPY,
 * and the file holds the page (pread()); a failure: the file's page is
 * still a hole, reading zero, and not in the page cache (mincore() of a
 * shared mapping reports the page cache).
 */
static void uffd_shmem_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->memfd = memfd_create("failnth", MFD_CLOEXEC);
	ASSERT_LE(0, st->memfd)
	{
		TH_LOG("memfd_create: %s", strerror(errno));
	}
	ASSERT_EQ(0, ftruncate(st->memfd, NR_PAGES * st->page));
	uffd_fill_prepare(_metadata, arg);
}

static bool uffd_shmem_check(void *arg, int ret, char *why, size_t size)
{
	static char buf[64 * 1024];
	struct mm_state *st = arg;
	ssize_t len = st->page;

	if (!uffd_copy_check(arg, ret, why, size))
		return false;
	if (len > sizeof(buf) || pread(st->memfd, buf, len, len) != len) {
		snprintf(why, size, "pread of the memfd: %s", strerror(errno));
		return false;
	}
	if (ret < 0)
		return zeroed(buf, len, why, size);
	return filled(buf, 5, 1, len, why, size);
}

/*
 * UFFDIO_MOVE of the filled page at st->src into the registered range:
 * mm/userfaultfd.c:move_pages(), whose failed page-table allocations are
 * ENOMEM (:1778, :1784, :1840, :1846) and whose anon_vma_prepare() of the
 * destination is ENOMEM too (find_vmas_mm_locked() :1526). A success:
 * the page is in the range as after UFFDIO_COPY, and the source reads
 * zero (not registered, its page gone); a failure: the source keeps it.
 */
static int uffd_move_action(void *arg)
{
	struct mm_state *st = arg;
	struct uffdio_move move = {
		.dst = (unsigned long)st->addr + st->page,
		.src = (unsigned long)st->src,
		.len = st->page,
	};

	return ioctl(st->uffd, UFFDIO_MOVE, &move) ? -errno : 0;
}

static bool uffd_move_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (!uffd_copy_check(arg, ret, why, size) ||
	    !maps_range(st->src, st->page, "rw-p", why, size))
		return false;
	if (ret < 0)
		return filled(st->src, 5, 1, st->page, why, size);
	return zeroed(st->src, st->page, why, size);
}

/*
 * UFFDIO_REGISTER of the middle page of three filled pages, and
 * UFFDIO_UNREGISTER of the middle page of three registered ones: each
 * splits the mapping in three through vma_modify_flags_uffd(), whose
 * failure is ENOMEM (mm/userfaultfd.c:1988-1993 for the register,
 * fs/userfaultfd.c:1529 for the unregister, linux 6.12). A success:
 * "um" (VM_UFFD_MISSING) on the middle page alone, or on the outer pages
 * alone; a failure: the flags and the mapping as before.
 */

static void uffd_three_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	three_pages_prepare(_metadata, arg);
	ASSERT_EQ(0, uffd_open(st));
}

static void uffd_three_registered_prepare(struct __test_metadata *_metadata,
					  void *arg)
{
	struct mm_state *st = arg;

	uffd_three_prepare(_metadata, arg);
	ASSERT_EQ(0, uffd_register(st, st->addr, st->len));
}

static int uffd_register_split_action(void *arg)
{
	struct mm_state *st = arg;

	return uffd_register(st, st->addr + st->page, st->page);
}

static int uffd_unregister_split_action(void *arg)
{
	struct mm_state *st = arg;
	struct uffdio_range range = { (unsigned long)st->addr + st->page,
				      st->page };

	return ioctl(st->uffd, UFFDIO_UNREGISTER, &range) ? -errno : 0;
}

static bool uffd_register_split_check(void *arg, int ret, char *why,
				      size_t size)
{
	return three_pages_are(arg, "rw-p", why, size) &&
	       three_flags_are(arg, "um", ret < 0 ? "000" : "010", why, size);
}

static bool uffd_unregister_split_check(void *arg, int ret, char *why,
					size_t size)
{
	return three_pages_are(arg, "rw-p", why, size) &&
	       three_flags_are(arg, "um", ret < 0 ? "111" : "101", why, size);
}

/*
 * mincore() of MINCORE_PAGES pages, one in MINCORE_STEP of them touched:
 * a vector longer than the one page mincore() allocates for its chunks,
 * whose failed allocation is EAGAIN (mm/mincore.c:255-257, linux 6.12). A
 * success: each byte is 1 for a touched page and 0 for the others; a
 * failure: the vector as it was (0xee).
 */

#define MINCORE_PAGES 5000
#define MINCORE_STEP 1000

static const int mincore_errnos[] = { EAGAIN, 0 };

static unsigned char mincore_vec[MINCORE_PAGES];

static void mincore_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;
	size_t pg;

	map_fresh(_metadata, st, MINCORE_PAGES);
	for (pg = 0; pg < MINCORE_PAGES; pg += MINCORE_STEP)
		st->addr[pg * st->page] = 1;
	memset(mincore_vec, 0xee, sizeof(mincore_vec));
}

static int mincore_action(void *arg)
{
	struct mm_state *st = arg;

	return mincore(st->addr, st->len, mincore_vec) ? -errno : 0;
}

static bool mincore_check(void *arg, int ret, char *why, size_t size)
{
	size_t pg;
	int want;

	for (pg = 0; pg < MINCORE_PAGES; pg++) {
		want = ret < 0 ? 0xee : !(pg % MINCORE_STEP);
		if (mincore_vec[pg] != want) {
			snprintf(why, size, "vector byte %zu is 0x%x, not 0x%x",
				 pg, mincore_vec[pg], want);
			return false;
		}
	}
	return true;
}

/*
 * The memfd of mmap_memfd_prepare() mapped shared at st->addr: NR_PAGES
 * pages holding the pattern.
 */
static void memfd_shared_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	mmap_memfd_prepare(_metadata, arg);
	st->addr = mmap(NULL, st->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			st->memfd, 0);
	ASSERT_NE(MAP_FAILED, st->addr)
	{
		st->addr = NULL;
		TH_LOG("mmap: %s", strerror(errno));
	}
}

/*
 * Whether the pages of the mapping at st->addr (shared if st->memfd is
 * open) but the second are mapped and keep their data; if not, says where.
 */
static bool outer_pages_kept(struct mm_state *st, char *why, size_t size)
{
	const char *perms = st->memfd >= 0 ? "rw-s" : "rw-p";
	size_t pg;
	char *p;

	for (pg = 0; pg < st->len / st->page; pg++) {
		p = st->addr + pg * st->page;
		if (pg != 1 && (!maps_range(p, st->page, perms, why, size) ||
				!filled(p, pg, 1, st->page, why, size)))
			return false;
	}
	return true;
}

/*
 * remap_file_pages() of the second page of the shared memfd mapping to
 * file page 3. Linux 6.12 emulates it with do_mmap(MAP_FIXED) of the
 * file over the range (mm/mmap.c:1769-1770), whose failures are ENOMEM.
 * A success: the second page shows file page 3, the others their own. A
 * failure: the maps as before, or with the second page gone, as after a
 * failed shmat(SHM_REMAP) (see there: mm/vma.h:262-272, the gap
 * vms_abort_munmap_vmas() leaves once the file's ->mmap() has run); the
 * other pages their own.
 */

static int remap_file_pages_action(void *arg)
{
	struct mm_state *st = arg;

	return remap_file_pages(st->addr + st->page, st->page, 0, 3, 0) ?
		       -errno :
		       0;
}

static void remap_file_pages_prepare(struct __test_metadata *_metadata,
				     void *arg)
{
	memfd_shared_prepare(_metadata, arg);
	maps_snap_gap(_metadata, arg);
}

static bool remap_file_pages_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	char *mid = st->addr + st->page;

	if (!outer_pages_kept(st, why, size))
		return false;
	if (ret < 0 && failnth_maps_same(NULL, shm_maps_gap, "", why, size))
		return maps_range(mid, st->page, NULL, why, size);
	if (ret < 0 &&
	    !failnth_maps_same(NULL, shm_maps, "after the failure", why, size))
		return false;
	return maps_range(mid, st->page, "rw-s", why, size) &&
	       filled(mid, ret < 0 ? 1 : 3, 1, st->page, why, size);
}

/*
 * mmap() of /dev/zero, MAP_SHARED: shmem_zero_setup() creates a shmem
 * file for it (mm/shmem.c), whose failed inode is ENOSPC (shmem_errnos).
 * A success: a shared read-write mapping that reads zero and keeps what
 * is written.
 */

/*
 * mmap(MAP_POPULATE) of the filled memfd, at the start of an empty span
 * (a hint: map_fresh_table()), so that populating allocates its tables.
 */
static void memfd_populate_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	mmap_memfd_prepare(_metadata, arg);
	st->addr = map_fresh_table(_metadata, st, NR_PAGES);
	unmap(_metadata, st->addr, st->len);
}

static void dev_zero_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = NR_PAGES * st->page;
	st->memfd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, st->memfd)
	{
		TH_LOG("/dev/zero: %s", strerror(errno));
	}
}

static void memfd_populate_cleanup(struct __test_metadata *_metadata, void *arg,
				   int ret)
{
	struct mm_state *st = arg;

	/* st->addr was a hint: the mapping, if any, is st->result. */
	st->addr = NULL;
	mm_reset(_metadata, st);
}

static bool dev_zero_check(void *arg, int ret, char *why, size_t size)
{
	return fresh_mapped(arg, ret, "rw-s", why, size);
}

/* MADV_POPULATE_READ and _WRITE of fresh pages (madv_populate_action()). */
static const struct madv_flag madv_populate_read = {
	.advice = MADV_POPULATE_READ,
};

static const struct madv_flag madv_populate_write = {
	.advice = MADV_POPULATE_WRITE,
};

FIXTURE(mm)
{
	struct mm_state ctx;
};

FIXTURE_VARIANT(mm)
{
	const struct failnth_scenario *op;
	/* The madvise variants: the advice and the flag it sets. */
	const struct madv_flag *madv;
	/* mmap_memfd_action()'s extra flags. */
	int mmap_flags;
	/* Needs userfaultfd(). */
	bool uffd;
};

FAILNTH_VARIANT(mm, mmap_anon, .allowed = mm_errnos, .action = mmap_anon_action,
		.check = mmap_anon_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mmap_memfd, .allowed = mm_errnos,
		.prepare = mmap_memfd_prepare, .action = mmap_memfd_action,
		.check = mmap_memfd_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, munmap_split, .allowed = mm_errnos,
		.prepare = three_pages_prepare, .action = munmap_split_action,
		.check = munmap_split_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mprotect_split, .allowed = mm_errnos,
		.prepare = three_pages_prepare, .action = mprotect_split_action,
		.check = mprotect_split_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mremap_grow, .allowed = mm_errnos,
		.prepare = mremap_grow_prepare, .action = mremap_grow_action,
		.check = mremap_grow_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mremap_shrink, .allowed = mm_errnos,
		.prepare = three_pages_prepare, .action = mremap_shrink_action,
		.check = mremap_shrink_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mremap_move, .allowed = mm_errnos,
		.prepare = mremap_move_prepare, .action = mremap_move_action,
		.check = mremap_move_check, .cleanup = mremap_move_cleanup);

FAILNTH_VARIANT(mm, madv_dontneed, .allowed = mm_errnos, .prepare = zap_prepare,
		.action = madv_dontneed_action, .check = madv_dontneed_check,
		.cleanup = mm_cleanup);

/*
 * mm/madvise.c: madvise_populate() faults in page by page and returns the
 * first error: a failure may leave part of the range populated, so
 * residency cannot tell.
 */
#define POPULATE_UNSEEN "a failed populate may have populated part of the range"

FAILNTH_VARIANT_MORE(mm, madv_populate_write, (.madv = &madv_populate_write),
		     .allowed = mm_errnos, .success_unseen = POPULATE_UNSEEN,
		     .prepare = fresh_pages_prepare,
		     .action = madv_populate_action,
		     .check = madv_populate_check, .cleanup = mm_cleanup);

/*
 * MADV_POPULATE_READ maps the zero page (mm/madvise.c:madvise_populate():
 * its page tables may fail, ENOMEM as for the write); the pages read zero
 * and are resident.
 */
FAILNTH_VARIANT_MORE(mm, madv_populate_read, (.madv = &madv_populate_read),
		     .allowed = mm_errnos, .success_unseen = POPULATE_UNSEEN,
		     .prepare = fresh_table_prepare,
		     .action = madv_populate_action,
		     .check = madv_populate_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, memfd_seal, .allowed = shmem_errnos, .full = MEMFD_LEN,
		.prepare = memfd_seal_prepare, .action = memfd_seal_action,
		.check = memfd_seal_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, userfaultfd, .allowed = mm_errnos,
		.prepare = fresh_pages_prepare, .action = uffd_action,
		.check = uffd_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, sysv_shm, .allowed = shmem_errnos, .prepare = shm_prepare,
		.action = shm_action, .check = shm_check,
		.cleanup = shm_cleanup, .settled = shm_settled);

FAILNTH_VARIANT(mm, fault_touch, .full = NR_FILL,
		.success_unseen = "a fault has no errno: it fails by a signal",
		.in_child = true, .child_prepare = touch_prepare,
		.action = touch_action, .check = touch_check);

FAILNTH_VARIANT(mm, mlock_split, .allowed = mm_errnos,
		.prepare = three_pages_prepare, .action = mlock_split_action,
		.check = mlock_split_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, munlock_split, .allowed = mm_errnos,
		.prepare = three_locked_prepare, .action = munlock_split_action,
		.check = munlock_split_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mlock2_onfault, .allowed = mm_errnos,
		.prepare = three_pages_prepare, .action = mlock2_onfault_action,
		.check = mlock2_onfault_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT_MORE(mm, madv_dontfork, (.madv = &madv_dontfork),
		     .allowed = madv_errnos, .prepare = three_pages_prepare,
		     .action = madv_middle_action, .check = madv_flag_check,
		     .cleanup = mm_cleanup);

FAILNTH_VARIANT_MORE(mm, madv_wipeonfork, (.madv = &madv_wipeonfork),
		     .allowed = madv_errnos, .prepare = three_pages_prepare,
		     .action = madv_middle_action, .check = madv_flag_check,
		     .cleanup = mm_cleanup);

FAILNTH_VARIANT_MORE(mm, madv_nohugepage, (.madv = &madv_nohugepage),
		     .allowed = madv_errnos, .prepare = three_pages_prepare,
		     .action = madv_middle_action, .check = madv_flag_check,
		     .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mseal_split, .allowed = mm_errnos, .in_child = true,
		.child_prepare = mseal_prepare, .action = mseal_action,
		.check = mseal_check);

FAILNTH_VARIANT(mm, brk_grow, .allowed = mm_errnos, .prepare = brk_grow_prepare,
		.action = brk_action, .check = brk_grow_check,
		.cleanup = brk_cleanup);

FAILNTH_VARIANT(mm, brk_shrink, .allowed = mm_errnos,
		.prepare = brk_shrink_prepare, .action = brk_action,
		.check = brk_shrink_check, .cleanup = brk_cleanup);

FAILNTH_VARIANT(mm, mmap_fixed_over, .allowed = mm_errnos,
		.prepare = three_pages_prepare, .action = mmap_fixed_action,
		.check = mmap_fixed_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mremap_dontunmap, .allowed = mm_errnos,
		.prepare = two_pages_prepare, .action = mremap_dontunmap_action,
		.check = mremap_dontunmap_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mremap_fixed_over, .allowed = mm_errnos,
		.prepare = mremap_fixed_prepare, .action = mremap_fixed_action,
		.check = mremap_fixed_check, .cleanup = mremap_fixed_cleanup);

FAILNTH_VARIANT(mm, shmat_remap, .allowed = mm_errnos,
		.prepare = shm_remap_prepare, .action = shm_remap_action,
		.check = shm_remap_check, .cleanup = shm_remap_cleanup,
		.settled = shm_settled, .maps_may_change = true);

FAILNTH_VARIANT_MORE(mm, uffd_copy, (.uffd = true), .allowed = mm_errnos,
		     .prepare = uffd_fill_prepare, .action = uffd_copy_action,
		     .check = uffd_copy_check, .cleanup = mremap_fixed_cleanup);

FAILNTH_VARIANT_MORE(mm, uffd_zeropage, (.uffd = true), .allowed = mm_errnos,
		     .prepare = uffd_fill_prepare,
		     .action = uffd_zeropage_action,
		     .check = uffd_zeropage_check,
		     .cleanup = mremap_fixed_cleanup);

FAILNTH_VARIANT_MORE(mm, uffd_copy_shmem, (.uffd = true), .allowed = mm_errnos,
		     .prepare = uffd_shmem_prepare, .action = uffd_copy_action,
		     .check = uffd_shmem_check,
		     .cleanup = mremap_fixed_cleanup);

FAILNTH_VARIANT_MORE(mm, uffd_move, (.uffd = true), .allowed = mm_errnos,
		     .prepare = uffd_fill_prepare, .action = uffd_move_action,
		     .check = uffd_move_check, .cleanup = mremap_fixed_cleanup);

FAILNTH_VARIANT_MORE(mm, uffd_register_split, (.uffd = true),
		     .allowed = mm_errnos, .prepare = uffd_three_prepare,
		     .action = uffd_register_split_action,
		     .check = uffd_register_split_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT_MORE(mm, uffd_unregister_split, (.uffd = true),
		     .allowed = mm_errnos,
		     .prepare = uffd_three_registered_prepare,
		     .action = uffd_unregister_split_action,
		     .check = uffd_unregister_split_check,
		     .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, mincore_large, .allowed = mincore_errnos,
		.prepare = mincore_prepare, .action = mincore_action,
		.check = mincore_check, .cleanup = mm_cleanup);

FAILNTH_VARIANT(mm, remap_file_pages, .allowed = mm_errnos,
		.prepare = remap_file_pages_prepare,
		.action = remap_file_pages_action,
		.check = remap_file_pages_check, .cleanup = mm_cleanup,
		.maps_may_change = true);

FAILNTH_VARIANT(mm, mmap_dev_zero, .allowed = shmem_errnos,
		.prepare = dev_zero_prepare, .action = mmap_memfd_action,
		.check = dev_zero_check, .cleanup = mm_cleanup);

/*
 * MAP_POPULATE: vm_mmap_pgoff() ignores what populating fails
 * (mm/util.c:593, mm_populate() with ignore_errors), so a success shows
 * the file's data whatever was populated.
 */
FAILNTH_VARIANT_MORE(mm, mmap_memfd_populate, (.mmap_flags = MAP_POPULATE),
		     .allowed = mm_errnos, .prepare = memfd_populate_prepare,
		     .action = mmap_memfd_action, .check = mmap_memfd_check,
		     .cleanup = memfd_populate_cleanup);

FIXTURE_SETUP(mm)
{
	const char *missing = failnth_missing();

	self->ctx.page = getpagesize();
	self->ctx.memfd = -1;
	self->ctx.uffd = -1;
	self->ctx.shmid = -1;
	self->ctx.madv = variant->madv;
	self->ctx.mmap_flags = variant->mmap_flags;
	if (missing)
		SKIP(return, "%s", missing);
	if (variant->op->action == uffd_action || variant->uffd) {
		int fd = syscall(__NR_userfaultfd, O_CLOEXEC);

		if (fd < 0 && errno == ENOSYS) {
			const char *msg =
				"userfaultfd missing: needs CONFIG_USERFAULTFD";

			SKIP(return, "%s", msg);
		}
		if (fd >= 0)
			close(fd);
	}
	if (variant->op->action == shm_action && count_shm() < 0)
		SKIP(return, "SysV shm missing: needs CONFIG_SYSVIPC");
	/*
	 * The fork checks wait on a signalfd that stays open: open it now,
	 * so that it is not counted as an fd the first point leaked.
	 */
	if (variant->op->action == madv_middle_action)
		ASSERT_LE(0, failnth_sigchld_fd());
	if (variant->op->action == mseal_action &&
	    syscall(__NR_mseal, 0, 0, 0) && errno == ENOSYS)
		SKIP(return, MSEAL_MISSING);
	if (variant->madv == &madv_nohugepage &&
	    madvise(NULL, 0, MADV_NOHUGEPAGE) && errno == EINVAL)
		SKIP(return, NOHUGEPAGE_MISSING);
}

FIXTURE_TEARDOWN(mm)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. Each call must
 * succeed with its whole effect or fail with an allowed errno having
 * changed no mapping and lost no data.
 */
FAILNTH_SWEEP_OP(mm, SWEEP_TIMEOUT, failnth_run)

TEST_HARNESS_MAIN
