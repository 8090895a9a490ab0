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
 * Creating a shmem file: memfd_create() and shmget() create an inode on the
 * internal shmem mount, and a failed inode allocation is ENOSPC:
 * mm/shmem.c:__shmem_get_inode() has "return ERR_PTR(-ENOSPC);" when
 * new_inode() fails (linux 6.12, mm/shmem.c:2903).
 */
static const int shmem_errnos[] = { ENOMEM, ENOSPC, 0 };

/* The state of one scenario, shared by its callbacks. */
struct mm_state {
	size_t page;
	/* The mapping prepare() made, and its length. */
	char *addr;
	size_t len;
	/* What the action mapped or moved to. */
	char *result;
	int memfd;
	int uffd;
	int shmid;
	/* SysV segments when fresh. */
	int nr_shm;
	/* The step of a multi-call action that failed, from 1. */
	int step;
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

/* Success: mapped read-write, reads zero, keeps what is written. */
static bool mmap_anon_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;

	if (ret < 0)
		return true;
	if (!maps_range(st->result, st->len, "rw-p", why, size) ||
	    !zeroed(st->result, st->len, why, size))
		return false;
	fill(st->result, 0, NR_PAGES, st->page);
	return filled(st->result, 0, NR_PAGES, st->page, why, size);
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

	p = mmap(NULL, st->len, PROT_READ | PROT_WRITE, MAP_SHARED, st->memfd,
		 0);
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

static void fresh_pages_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct mm_state *st = arg;

	st->len = NR_FILL * st->page;
	st->addr = mmap(NULL, st->len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st->addr)
	{
		st->addr = NULL;
		TH_LOG("mmap: %s", strerror(errno));
	}
}

static int madv_populate_action(void *arg)
{
	struct mm_state *st = arg;

	return madvise(st->addr, st->len, MADV_POPULATE_WRITE) ? -errno : 0;
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

static int uffd_action(void *arg)
{
	struct mm_state *st = arg;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { (unsigned long)st->addr, st->len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	st->step = 1;
	st->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (st->uffd < 0)
		return -errno;
	st->step = 2;
	if (ioctl(st->uffd, UFFDIO_API, &api))
		return -errno;
	st->step = 3;
	if (ioctl(st->uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	st->step = 0;
	return 0;
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

/*
 * A success: attached read-write and shared, one attach, data kept. A
 * failed shmget(): no new segment; a failed shmat(): the segment has no
 * attach (the engine checks that no mapping appeared).
 */
static bool shm_check(void *arg, int ret, char *why, size_t size)
{
	struct mm_state *st = arg;
	struct shmid_ds ds;
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
	if (shmctl(st->shmid, IPC_STAT, &ds)) {
		snprintf(why, size, "IPC_STAT: %s", strerror(errno));
		return false;
	}
	if (ds.shm_nattch != (ret < 0 ? 0 : 1)) {
		snprintf(why, size, "%lu attaches after %s",
			 (unsigned long)ds.shm_nattch,
			 ret < 0 ? "a failed shmat" : "shmat");
		return false;
	}
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

FIXTURE(mm)
{
	struct mm_state ctx;
};

FIXTURE_VARIANT(mm)
{
	const struct failnth_scenario *op;
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
FAILNTH_VARIANT(mm, madv_populate_write, .allowed = mm_errnos,
		.success_unseen =
			"a failed populate may have populated part of the range",
		.prepare = fresh_pages_prepare, .action = madv_populate_action,
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

FIXTURE_SETUP(mm)
{
	const char *missing = failnth_missing();

	self->ctx.page = getpagesize();
	self->ctx.memfd = -1;
	self->ctx.uffd = -1;
	self->ctx.shmid = -1;
	if (missing)
		SKIP(return, "%s", missing);
	if (variant->op->action == uffd_action) {
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
}

FIXTURE_TEARDOWN(mm)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, failnth_knobs_restore());
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. Each call must
 * succeed with its whole effect or fail with an allowed errno having
 * changed no mapping and lost no data.
 */
FAILNTH_SWEEP_OP(mm, SWEEP_TIMEOUT, failnth_run)

TEST_HARNESS_MAIN
