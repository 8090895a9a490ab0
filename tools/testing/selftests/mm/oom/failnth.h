/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fail-nth sweep engine
 *
 * Writing n to /proc/thread-self/fail-nth makes the n-th should_fail() call
 * of this thread fail: a failslab or fail_page_alloc injection point, that
 * is, a small allocation. A sweep runs one action (one syscall) for n = 1,
 * 2, ... until the n-th point is never reached, and classifies each point:
 *
 *  - the fault did not fire: the action made fewer than n calls, the sweep
 *    is over; this last run has no injected fault and must succeed;
 *  - success despite the fault (a fallback path);
 *  - a short count: a success that did less than the scenario's full count
 *    (a short write); the scenario's check proves that what it reports is
 *    what happened;
 *  - a clean errno, one of the scenario's allowed list;
 *  - wrong: any other errno, or a check found a half-done effect, a lost
 *    inode, a leaked fd, a changed mapping or a child left behind. The test
 *    fails and logs the point.
 *
 * Every point must leave nothing behind: the scenario checks that a success
 * did what it should and a failure did nothing, then undoes the effect; the
 * engine checks that a failure changed no mapping and that, once cleaned
 * up, no fd, mapping or child is left over.
 *
 * A sweep runs in one of three modes, so that the points of each allocator
 * can be told apart: both injectors (the default), slab only
 * (fail_page_alloc/min-order above any order) and page allocator only
 * (failslab/cache-filter=Y with no cache marked). One summary line per
 * sweep, for the runner:
 *
 *   # failnth <scenario>.<mode>: points=<n> success=<a> short=<s> \
 *     errno=<b> wrong=<c> secs=<t> (ENOMEM:<x> ...)
 *
 * (one line), where points = success + short + errno, the histogram sums
 * to errno, and wrong counts the runs that went wrong (the final one
 * without a fault included). In the environment, FAILNTH_VERBOSE=1 prints one "# n=..." line
 * per point, and FAILNTH_SITES=1 makes each injected fault dump its stack
 * (verbose level 2) so that the runner can name the call sites that failed.
 *
 * FAILNTH_MUTATE=1 turns a sweep into a test of its own checks (run.sh
 * --mutate): the checks are told the opposite of what the action returned,
 * a success as ENOMEM and a failure as a full success, and must notice
 * both lies. The test passes when they do; see failnth_mutate().
 *
 * The helpers are static functions in a header, not a library, because the
 * ones that assert need kselftest_harness.h's _metadata and macros, which
 * only work within the test's own translation unit (as landlock's
 * common.h). One sweep runs at a time in a process.
 */

#ifndef __SELFTESTS_MM_OOM_FAILNTH_H
#define __SELFTESTS_MM_OOM_FAILNTH_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "util.h"

#define FAILNTH_PROC "/proc/thread-self/fail-nth"
#define FAILNTH_DEBUGFS "/sys/kernel/debug"

/*
 * A bound on one sweep. Hitting it is a failure: either the call path grew
 * and the bound must follow, or the action never stops reaching the n-th
 * point.
 */
#define FAILNTH_MAX_POINTS 10000

/* Distinct errnos a sweep keeps apart in its histogram. */
#define FAILNTH_MAX_ERRNOS 16

/* Bound on /proc/self/maps; the test process maps far less. */
#define FAILNTH_MAPS_SIZE (64 * 1024)

/* Which allocator's points a sweep fails. */
enum failnth_mode {
	FAILNTH_BOTH,
	FAILNTH_SLAB,
	FAILNTH_PAGE,
};

static const char *const failnth_mode_name[] = {
	[FAILNTH_BOTH] = "both",
	[FAILNTH_SLAB] = "slab",
	[FAILNTH_PAGE] = "page",
};

struct failnth_scenario {
	/* In the summary line and in every failure. */
	const char *name;
	/* Clean errnos besides success, 0-terminated. */
	const int *allowed;
	/* What a complete success returns; a smaller count is short. 0: none. */
	long full;
	/* A failure may change the mappings (a scenario about mappings). */
	bool maps_may_change;
	/*
	 * Why no check can tell a success from a failure by what it left (a
	 * query changes nothing; some failures may do part of the work), or
	 * NULL. FAILNTH_MUTATE then tries only the failure lie, and says why.
	 */
	const char *success_unseen;
	/*
	 * Why a failure may leave exactly what a success leaves (it can come
	 * after the work is done), or NULL. FAILNTH_MUTATE then lets such a
	 * failure's lie go unnoticed, and says so, provided the lie at
	 * another failing point was noticed: the checks can fail.
	 */
	const char *failure_unseen;
	/* Bound on the whole sweep, below the test's TEST_F_TIMEOUT. */
	unsigned int deadline_s;
	/* debugfs verbose level of failslab and fail_page_alloc (0..2). */
	int fault_verbose;
	/* Passed to every callback. */
	void *arg;
	/* Before each point, without injection. Optional. */
	void (*prepare)(struct __test_metadata *_metadata, void *arg);
	/* The call under test: >= 0 on success, else -errno. */
	int (*action)(void *arg);
	/* Whether the effect matches @ret; if not, what it found in @why. */
	bool (*check)(void *arg, int ret, char *why, size_t size);
	/* Undoes the effect of @ret, without injection. Optional. */
	void (*cleanup)(struct __test_metadata *_metadata, void *arg, int ret);
	/* After cleanup: whether nothing was lost. Optional. */
	bool (*settled)(void *arg, char *why, size_t size);

	/*
	 * Each point in a child of its own (failnth_child.h), for a call that
	 * changes its caller for good; cleanup and settled are not used.
	 */
	bool in_child;
	/* In the child, unarmed, instead of prepare: 0 or -errno. Optional. */
	int (*child_prepare)(void *arg);
	/* Clean fatal signals of the child after a fired fault, 0-terminated. */
	const int *fates;
	/* Stop the child at a successful execve() of its action (ptrace). */
	bool traced_exec;
	/* With traced_exec: the exit code of the image the action executes. */
	int exec_code;
	/*
	 * A workload, instead of an action, in a child: after child_prepare()
	 * it execve()s workload[0] with workload as its argv, stdout and
	 * stderr captured. The parent arms the new image at its exec event
	 * (or later, arm_at_call), so the points are the command's own, and
	 * lets it run to its end. Exit 0 is a success, whose stdout must be
	 * the unarmed run's; another exit is a failure, whose stderr must
	 * name an allowed errno in strerror()'s words. check() runs in the
	 * parent, after the end.
	 */
	char *const *workload;
	/* With workload: the bound on one run, and on the sweep's points. */
	unsigned int point_s;
	int max_points;
	/*
	 * With workload: arm the command only at its first call of syscall
	 * arm_nr (whose second argument, a path, starts with arm_path, if
	 * set) rather than at the exec event, so that the points of its
	 * start-up (its loader, some 300 page faults of busybox's image)
	 * are not swept again and again. Traced with PTRACE_SYSCALL until
	 * then.
	 */
	bool arm_at_call;
	long arm_nr;
	const char *arm_path;
};

struct failnth_stats {
	int points;
	int success;
	int shorts;
	int errnos;
	int wrong;
	int nr_seen;
	struct {
		int err;
		int count;
	} seen[FAILNTH_MAX_ERRNOS];
	/* Errnos beyond FAILNTH_MAX_ERRNOS distinct ones. */
	int other;
};

/* Returns NULL when fail-nth and its knobs are usable, else why not. */
static const char *failnth_probe(void)
{
	struct statfs sfs;

	static const char *const why[] = {
		"fail-nth missing: needs CONFIG_FAULT_INJECTION (and CONFIG_FAULT_INJECTION_DEBUG_FS for the knobs)",
		"must be root: the fail-nth knobs are in debugfs",
		"debugfs not mounted: mount -t debugfs none /sys/kernel/debug",
		"failslab knobs missing: needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS",
		"fail_page_alloc knobs missing: needs CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_DEBUG_FS",
	};

	if (access(FAILNTH_PROC, F_OK))
		return why[0];
	if (geteuid())
		return why[1];
	if (statfs(FAILNTH_DEBUGFS, &sfs) || sfs.f_type != DEBUGFS_MAGIC)
		return why[2];
	if (access(FAILNTH_DEBUGFS "/failslab", F_OK))
		return why[3];
	if (access(FAILNTH_DEBUGFS "/fail_page_alloc", F_OK))
		return why[4];
	return NULL;
}

/*
 * Returns NULL when a sweep can run, else the reason to skip, in words a
 * person can act on. Probed once per process.
 */
static const char *failnth_missing(void)
{
	static const char *reason;
	static bool probed;

	if (!probed) {
		reason = failnth_probe();
		probed = true;
	}
	return reason;
}

/*
 * The knobs a sweep sets: every small allocation can be injected, sleeping
 * (GFP_KERNEL) and highmem/user ones included (without ignore-gfp-highmem=N
 * page-cache and anonymous pages are never failed), from order 0 up. The
 * mode then switches one allocator off: min-order 11 is above any order the
 * page allocator serves, and cache-filter=Y fails only caches marked in
 * /sys/kernel/slab/<cache>/failslab, none by default. The last two are the
 * verbose levels.
 */
static const char *const failnth_knob_path[] = {
	FAILNTH_DEBUGFS "/failslab/ignore-gfp-wait",
	FAILNTH_DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
	FAILNTH_DEBUGFS "/fail_page_alloc/ignore-gfp-highmem",
	FAILNTH_DEBUGFS "/fail_page_alloc/min-order",
	FAILNTH_DEBUGFS "/failslab/cache-filter",
	FAILNTH_DEBUGFS "/failslab/verbose",
	FAILNTH_DEBUGFS "/fail_page_alloc/verbose",
};

#define FAILNTH_KNOBS ARRAY_SIZE(failnth_knob_path)

/*
 * The harness's main process, which forks each test, keeps these knobs
 * (knobs_keep()): a test killed by SIGKILL in a sweep (the harness's own
 * timeout kills the test's process group so) leaves them set, and the main
 * process puts them back when it ends, so that the programs run after it
 * do not inherit them. Where they cannot be read, it keeps none.
 */
static void __attribute__((constructor)) failnth_knobs_keep(void)
{
	knobs_keep(failnth_knob_path, FAILNTH_KNOBS);
}

/*
 * Opens every small allocation of @mode's allocators to injection, with
 * knob_set(), which saves the old values for knobs_restore(); @verbose is
 * the level of the fault reports (2 prints a stack per injected fault). On
 * error puts back what it changed. Returns 0 or -errno.
 */
static int failnth_knobs_set(enum failnth_mode mode, int verbose)
{
	const char level[2] = { '0' + (verbose & 3), '\0' };
	const char *const val[FAILNTH_KNOBS] = {
		"N",
		"N",
		"N",
		mode == FAILNTH_SLAB ? "11" : "0",
		mode == FAILNTH_PAGE ? "Y" : "N",
		level,
		level,
	};
	size_t i;
	int err = 0;

	if (knobs_changed())
		return -EBUSY;
	for (i = 0; i < FAILNTH_KNOBS && !err; i++)
		err = knob_set(failnth_knob_path[i], val[i]);
	if (err)
		knobs_restore();
	return err;
}

/*
 * Counts the fds in the table that the directory @dir (/proc/self/fd, open)
 * lists, @dir included, reading it from the start; returns the count or
 * -errno. getdents64() on a static buffer: no malloc(), whose heap growth
 * would look like a mapping change.
 */
static int failnth_fds_in(int dir)
{
	static char buf[8192];
	long len, off;
	int nr = 0;

	if (lseek(dir, 0, SEEK_SET) < 0)
		return -errno;
	while ((len = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (off = 0; off < len;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);

			if (de->d_name[0] != '.')
				nr++;
			off += de->d_reclen;
		}
	}
	return len < 0 ? -errno : nr;
}

/* Counts this process's open fds; returns the count or -errno. */
static int failnth_count_fds(void)
{
	int dir, nr;

	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	nr = failnth_fds_in(dir);
	close(dir);
	/* Less the one just opened to read the directory. */
	return nr < 0 ? nr : nr - 1;
}

/*
 * Reads the maps that @fd (/proc/self/maps, open) shows into @buf, from
 * the start, without the [heap] line (malloc() may grow the heap at any
 * time); returns the length or -errno. A read at offset 0 starts the maps
 * over (fs/seq_file.c:188, linux 6.12).
 */
static long failnth_maps_in(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t ret;
	char *heap, *end;

	while (len < size - 1 &&
	       (ret = pread(fd, buf + len, size - 1 - len, len)) > 0)
		len += ret;
	if (ret < 0)
		return -errno;
	if (len == size - 1)
		return -EFBIG;
	buf[len] = '\0';
	heap = strstr(buf, "[heap]\n");
	if (heap) {
		end = heap + strlen("[heap]\n");
		while (heap > buf && heap[-1] != '\n')
			heap--;
		memmove(heap, end, buf + len + 1 - end);
		len -= end - heap;
	}
	return len;
}

/* Reads /proc/self/maps into @buf, as failnth_maps_in() does. */
static long failnth_read_maps(char *buf, size_t size)
{
	long len;
	int fd;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = failnth_maps_in(fd, buf, size);
	close(fd);
	return len;
}

/*
 * Where a sweep looks, after each point, for an fd or a mapping left
 * behind: /proc/self/fd and /proc/self/maps, opened once a sweep and read
 * from the start at each look. Opening and closing them at each look cost
 * a point 8 to 12 of its ~25 syscalls, each a round trip through the host
 * in UML. Both stay open all the sweep: the counts include them.
 */
struct failnth_watch {
	int dir;
	int maps;
};

static int failnth_watch_open(struct failnth_watch *w)
{
	w->dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	w->maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (w->dir >= 0 && w->maps >= 0)
		return 0;
	return -errno;
}

static void failnth_watch_close(struct failnth_watch *w)
{
	if (w->dir >= 0)
		close(w->dir);
	if (w->maps >= 0)
		close(w->maps);
	w->dir = -1;
	w->maps = -1;
}

/*
 * Whether the mappings are those in @before, read through @w (NULL: open
 * the maps for this look); if not, says which line differs in @why.
 * Reading the maps is not a point: it runs unarmed.
 */
static bool failnth_maps_same(const struct failnth_watch *w, const char *before,
			      const char *what, char *why, size_t size)
{
	static char now[FAILNTH_MAPS_SIZE];
	long len = w ? failnth_maps_in(w->maps, now, sizeof(now)) :
		       failnth_read_maps(now, sizeof(now));
	const char *a = before, *b = now;

	if (len < 0) {
		snprintf(why, size, "reading /proc/self/maps: %s",
			 strerror(-len));
		return false;
	}
	while (*a && *a == *b)
		a++, b++;
	if (!*a && !*b)
		return true;
	while (a > before && a[-1] != '\n')
		a--;
	while (b > now && b[-1] != '\n')
		b--;
	snprintf(why, size, "%s: mapping changed: was \"%.*s\", now \"%.*s\"",
		 what, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	return false;
}

/* Whether this process has no child, exited or running; else says so. */
static bool failnth_no_child(char *why, size_t size)
{
	siginfo_t info = {};

	if (!waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT)) {
		if (info.si_pid)
			snprintf(why, size, "child %d is left behind, exited",
				 info.si_pid);
		else
			snprintf(why, size, "a child is left behind, running");
		return false;
	}
	if (errno != ECHILD) {
		snprintf(why, size, "waitid: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Arms @fd (fail-nth) so that the @n-th point fails; returns 0 or -errno. */
static int failnth_arm(int fd, int n)
{
	char buf[16];
	int len;

	len = snprintf(buf, sizeof(buf), "%d", n);
	if (pwrite(fd, buf, len, 0) != len)
		return -errno;
	return 0;
}

/*
 * Reads whether the armed fault fired and disarms: 1 if it fired (the
 * count ran out, which disarmed it: nothing to write), 0 if not, or
 * -errno. Nothing runs between the action and the read that could reach
 * an injection point and consume the count: the buffer is on the locked
 * stack. A fail_usercopy fault (CONFIG_FAULT_INJECTION_USERCOPY)
 * in the read or the write means the count was still running, as
 * iommufd_fail_nth.c found.
 */
static int failnth_disarm(int fd)
{
	char buf[16];
	ssize_t len;

	len = pread(fd, buf, sizeof(buf) - 1, 0);
	if (len < 0 && errno == EFAULT)
		len = snprintf(buf, sizeof(buf), "1\n");
	if (len > 0) {
		buf[len] = '\0';
		/* Fired: the count ran out, which disarmed it. */
		if (strtoul(buf, NULL, 10) == 0)
			return 1;
	}
	if (pwrite(fd, "0", 1, 0) != 1 &&
	    (errno != EFAULT || pwrite(fd, "0", 1, 0) != 1))
		return -errno;
	if (len <= 0)
		return len < 0 ? -errno : -ENODATA;
	return 0;
}

/* What an action that makes an fd returns: @fd, or -errno. */
static inline int failnth_fd_ret(int fd)
{
	return fd < 0 ? -errno : fd;
}

/* Whether @v is in @list (0-terminated; NULL: empty). */
static bool failnth_in(const int *list, int v)
{
	for (; list && *list; list++)
		if (*list == v)
			return true;
	return false;
}

/* Whether @err is among @sc's clean errnos. */
static bool failnth_allowed(const struct failnth_scenario *sc, int err)
{
	return failnth_in(sc->allowed, err);
}

/* Counts @err in the histogram, which is kept sorted by errno. */
static void failnth_count_errno(struct failnth_stats *st, int err)
{
	int i, j;

	st->errnos++;
	for (i = 0; i < st->nr_seen && st->seen[i].err < err; i++)
		;
	if (i < st->nr_seen && st->seen[i].err == err) {
		st->seen[i].count++;
		return;
	}
	if (st->nr_seen == FAILNTH_MAX_ERRNOS) {
		st->other++;
		return;
	}
	for (j = st->nr_seen; j > i; j--)
		st->seen[j] = st->seen[j - 1];
	st->seen[i].err = err;
	st->seen[i].count = 1;
	st->nr_seen++;
}

static const char failnth_summary_fmt[] =
	"failnth %s.%s: points=%d success=%d short=%d errno=%d wrong=%d secs=%.3f (%s)\n";

/* The errnos a sweep saw, as a summary line's "(ENOMEM:3 EFAULT:1)". */
static const char *failnth_errno_hist(const struct failnth_stats *st,
				      char *hist, size_t size)
{
	char name[16];
	size_t len = 0;
	int i;

	hist[0] = '\0';
	for (i = 0; i < st->nr_seen && len < size; i++) {
		const char *ename =
			errno_name(st->seen[i].err, name, sizeof(name));

		len += snprintf(hist + len, size - len, "%s%s:%d", i ? " " : "",
				ename, st->seen[i].count);
	}
	if (st->other && len < size)
		snprintf(hist + len, size - len, "%sother:%d", len ? " " : "",
			 st->other);
	return hist;
}

static void failnth_print_summary(const struct failnth_scenario *sc,
				  enum failnth_mode mode,
				  const struct failnth_stats *st, double secs)
{
	char hist[512];

	failnth_errno_hist(st, hist, sizeof(hist));
	ksft_print_msg(failnth_summary_fmt, sc->name, failnth_mode_name[mode],
		       st->points, st->success, st->shorts, st->errnos,
		       st->wrong, secs, hist);
}

/* Whether the environment variable @name is set to something but "0". */
static bool failnth_env(const char *name)
{
	const char *env = getenv(name);

	return env && *env && strcmp(env, "0");
}

static bool failnth_verbose(void)
{
	static int verbose = -1;

	if (verbose < 0)
		verbose = failnth_env("FAILNTH_VERBOSE");
	return verbose;
}

/*
 * Adds one check's verdict to a point's: every check of a point runs, and
 * each one that fails is said in @why ("first; second; ..."), so that a
 * point that fails one check is still judged by the others. @more is that
 * check's reason; returns the point's verdict so far.
 */
static bool failnth_also(bool ok, bool check_ok, char *why, size_t size,
			 const char *more)
{
	size_t len = strlen(why);

	if (check_ok)
		return ok;
	if (ok || !len)
		snprintf(why, size, "%s", more);
	else if (len + 2 < size)
		snprintf(why + len, size - len, "; %s", more);
	return false;
}

/*
 * The end of a point, in either engine: no child may be left behind (the
 * last check), then the verdict is said (FAILNTH_VERBOSE=1 says every
 * point's) and a wrong one counted.
 */
static void failnth_verdict(struct __test_metadata *_metadata, const char *name,
			    int n, int fired, const char *outcome, bool ok,
			    char *why, size_t size, struct failnth_stats *st)
{
	char more[512] = "";

	ok = failnth_also(ok, failnth_no_child(more, sizeof(more)), why, size,
			  more);
	if (failnth_verbose())
		ksft_print_msg("n=%d fired=%d outcome=%s%s%s\n", n, fired,
			       outcome, ok ? "" : " wrong: ", why);
	EXPECT_TRUE(ok)
	{
		TH_LOG("%s: n=%d: %s: %s", name, n, outcome, why);
	}
	if (!ok)
		st->wrong++;
}

/*
 * A sweep whose allocator never failed on this path proved nothing; in the
 * slab-only or page-only mode that is a fact of the path (no page is
 * allocated to create a tmpfs inode), not a fault: the test is skipped with
 * that reason, unless it failed already.
 */
static void failnth_skip_if_no_point(struct __test_metadata *_metadata,
				     int points, enum failnth_mode mode,
				     const char *name)
{
	const char *what = failnth_mode_name[mode];

	if (points || mode == FAILNTH_BOTH || _metadata->exit_code != KSFT_PASS)
		return;
	SKIP(return, "%s: no %s allocation failed on this path", name, what);
}

/*
 * What a point must leave as it found it: the open fds and the mappings,
 * read through @watch before the first point. A point that leaves both as
 * they were ends in the state the next one starts from, so they are read
 * again only after a point that did not (@valid false).
 */
struct failnth_fresh {
	struct failnth_watch watch;
	bool valid;
	int fds;
	char maps[FAILNTH_MAPS_SIZE];
};

/*
 * One point: set up, inject at @n, run the action, check, clean up. Returns
 * 1 if the fault fired, 0 if not (the sweep is over), -1 when the sweep
 * itself broke (already reported).
 */
static int failnth_point(struct __test_metadata *_metadata,
			 const struct failnth_scenario *sc, int fd, int n,
			 struct failnth_stats *st, struct failnth_fresh *fresh)
{
	static char maps_prepared[FAILNTH_MAPS_SIZE];
	const char *maps_armed = fresh->maps;
	char why[512], name[16];
	char more[512];
	const char *outcome;
	int ret, fired, now;
	long len = 0;
	bool ok = true, same;

	why[0] = '\0';
	if (!fresh->valid) {
		fresh->fds = failnth_fds_in(fresh->watch.dir);
		if (fresh->fds >= 0)
			len = failnth_maps_in(fresh->watch.maps, fresh->maps,
					      sizeof(fresh->maps));
		EXPECT_TRUE(fresh->fds >= 0 && len >= 0)
		{
			TH_LOG("%s: n=%d: counting fds or reading maps: %s",
			       sc->name, n,
			       strerror(fresh->fds < 0 ? -fresh->fds : -len));
		}
		if (fresh->fds < 0 || len < 0)
			return -1;
		fresh->valid = true;
	}
	/* Only prepare runs between fresh and armed. */
	if (sc->prepare) {
		sc->prepare(_metadata, sc->arg);
		len = failnth_maps_in(fresh->watch.maps, maps_prepared,
				      sizeof(maps_prepared));
		maps_armed = maps_prepared;
	}
	ret = len < 0 ? len : failnth_arm(fd, n);
	EXPECT_EQ(0, ret)
	{
		TH_LOG("%s: n=%d: arming %s: %s", sc->name, n, FAILNTH_PROC,
		       strerror(-ret));
	}
	if (ret)
		return -1;
	/* Between arm and disarm: no stdio, no asserts, no new memory. */
	ret = sc->action(sc->arg);
	fired = failnth_disarm(fd);
	EXPECT_LE(0, fired)
	{
		TH_LOG("%s: n=%d: reading back %s: %s", sc->name, n,
		       FAILNTH_PROC, strerror(-fired));
	}
	if (fired < 0)
		return -1;

	if (ret >= 0)
		outcome = sc->full && ret < sc->full ? "short" : "success";
	else
		outcome = errno_name(-ret, name, sizeof(name));
	if (fired) {
		st->points++;
		if (ret < 0)
			failnth_count_errno(st, -ret);
		else if (sc->full && ret < sc->full)
			st->shorts++;
		else
			st->success++;
	}
	/* Every check runs: one that fails does not hide the others. */
	if (ret < 0 && !fired)
		ok = failnth_also(ok, false, why, sizeof(why),
				  "failed without an injected fault");
	if (ret >= 0 && sc->full && ret < sc->full && !fired) {
		snprintf(more, sizeof(more),
			 "short count %d of %ld without an injected fault", ret,
			 sc->full);
		ok = failnth_also(ok, false, why, sizeof(why), more);
	}
	if (ret < 0 && !failnth_allowed(sc, -ret))
		ok = failnth_also(ok, false, why, sizeof(why),
				  "errno not in the allowed list");
	if (ret < 0 && !sc->maps_may_change) {
		more[0] = '\0';
		ok = failnth_also(ok,
				  failnth_maps_same(&fresh->watch, maps_armed,
						    "after the failed call",
						    more, sizeof(more)),
				  why, sizeof(why), more);
	}
	more[0] = '\0';
	ok = failnth_also(ok, sc->check(sc->arg, ret, more, sizeof(more)), why,
			  sizeof(why), more);
	if (sc->cleanup)
		sc->cleanup(_metadata, sc->arg, ret);
	if (sc->settled) {
		more[0] = '\0';
		ok = failnth_also(ok, sc->settled(sc->arg, more, sizeof(more)),
				  why, sizeof(why), more);
	}
	now = failnth_fds_in(fresh->watch.dir);
	if (now != fresh->fds) {
		snprintf(more, sizeof(more),
			 "%d fds open, %d before: fd leaked", now, fresh->fds);
		ok = failnth_also(ok, false, why, sizeof(why), more);
	}
	more[0] = '\0';
	same = failnth_maps_same(&fresh->watch, fresh->maps, "after cleanup",
				 more, sizeof(more));
	ok = failnth_also(ok, same, why, sizeof(why), more);
	fresh->valid = now == fresh->fds && same;
	failnth_verdict(_metadata, sc->name, n, fired, outcome, ok, why,
			sizeof(why), st);
	return fired;
}

static double failnth_elapsed(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec +
	       (now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * What a lying action would have returned instead of @ret. A success that
 * returns no count (an fd, say) is claimed with an fd number nothing has
 * open, so a check that uses the fd sees that it is not the one it wants.
 */
#define FAILNTH_LIE_FD 1000
static int failnth_lie_ret(int ret, long full)
{
	if (ret >= 0)
		return -ENOMEM;
	return full ? full : FAILNTH_LIE_FD;
}

static int failnth_lie(const struct failnth_scenario *sc, int ret)
{
	return failnth_lie_ret(ret, sc->full);
}

/*
 * One point of a mutation run: as failnth_point(), with the fault at @n (0:
 * none), but the judgement is told failnth_lie() of what the action
 * returned; cleanup gets the truth. Returns what the action returned, or
 * INT_MIN when the point could not be run (already reported). *@fired says
 * whether the fault fired, *@caught whether the lie was noticed, and @why
 * what noticed it.
 */
static int failnth_lie_point(struct __test_metadata *_metadata,
			     const struct failnth_scenario *sc, int fd, int n,
			     bool *fired, bool *caught, char *why, size_t size)
{
	static char maps_armed[FAILNTH_MAPS_SIZE];
	int ret, lie, armed, fds;
	bool ok = true, childless;

	why[0] = '\0';
	if (sc->prepare)
		sc->prepare(_metadata, sc->arg);
	/* What a failure must leave as it was, besides the mappings. */
	fds = failnth_count_fds();
	childless = failnth_no_child(why, size);
	armed = failnth_read_maps(maps_armed, sizeof(maps_armed));
	if (armed >= 0)
		armed = n ? failnth_arm(fd, n) : 0;
	EXPECT_EQ(0, armed)
	{
		TH_LOG("%s: n=%d: arming %s or reading maps: %s", sc->name, n,
		       FAILNTH_PROC, strerror(-armed));
	}
	if (armed) {
		if (sc->cleanup)
			sc->cleanup(_metadata, sc->arg, -ENOMEM);
		return INT_MIN;
	}
	ret = sc->action(sc->arg);
	armed = n ? failnth_disarm(fd) : 0;
	EXPECT_LE(0, armed)
	{
		TH_LOG("%s: n=%d: reading back %s: %s", sc->name, n,
		       FAILNTH_PROC, strerror(-armed));
	}
	*fired = armed > 0;
	lie = failnth_lie(sc, ret);
	/*
	 * The engine's own checks of a failure, which a sweep makes after
	 * cleanup: cleanup gets the truth here, so they are made before.
	 */
	why[0] = '\0';
	if (lie < 0 && !sc->maps_may_change)
		ok = failnth_maps_same(NULL, maps_armed,
				       "after the \"failed\" call", why, size);
	if (ok && lie < 0 && failnth_count_fds() != fds) {
		snprintf(why, size,
			 "%d fds open, %d before the \"failed\" call",
			 failnth_count_fds(), fds);
		ok = false;
	}
	if (ok && lie < 0 && childless)
		ok = failnth_no_child(why, size);
	if (ok)
		ok = sc->check(sc->arg, lie, why, size);
	if (sc->cleanup)
		sc->cleanup(_metadata, sc->arg, ret);
	*caught = !ok;
	return armed < 0 ? INT_MIN : ret;
}

/* The failure lies of one sweep, told at every point the action failed. */
struct failnth_lies {
	int lied;
	int missed;
	/* The first point lied to, or the first whose lie went unnoticed. */
	char first[512 + 64];
};

/* Counts the lie told at point @n, where the action failed with @err. */
static void failnth_lie_told(struct failnth_lies *l, int n, int err,
			     bool caught, const char *why)
{
	l->lied++;
	if (!caught)
		l->missed++;
	/* Only the start of a long why: it is one line of a summary. */
	if (!l->first[0] || (!caught && l->missed == 1))
		snprintf(l->first, sizeof(l->first), "n=%d %s: %s%.480s", n,
			 strerror(err), caught ? "" : "NOT caught",
			 caught ? why : "");
}

/*
 * The failure lie's verdict: every lie must have been noticed. A sweep cut
 * short by its deadline or its bound (@cut, at point @n) did not lie to
 * every point: that fails too.
 */
static void failnth_mutate_summary(struct __test_metadata *_metadata,
				   const struct failnth_scenario *sc,
				   const struct failnth_lies *l, bool cut,
				   int n)
{
	static const char none_fmt[] =
		"mutate %s: failure: no point failed the action\n";
	static const char lies_fmt[] =
		"mutate %s: failure: %d failing points as success: %s (%s)\n";
	static const char excused_fmt[] =
		"mutate %s: failure: %d of %d failing points left a success's state (%s): %s\n";
	int lied = l->lied, missed = l->missed;
	const char *first = l->first, *name = sc->name;
	bool excused = missed && missed < lied && sc->failure_unseen;
	int unexcused = excused ? 0 : missed;

	EXPECT_FALSE(cut)
	{
		TH_LOG("%s: cut short at n=%d: not every failing point was lied to",
		       name, n);
	}
	if (excused)
		ksft_print_msg(excused_fmt, name, missed, lied, first,
			       sc->failure_unseen);
	EXPECT_EQ(0, unexcused)
	{
		TH_LOG("%s: %d of %d failing points told as success, not noticed (%s)",
		       name, missed, lied, first);
	}
	if (!lied)
		ksft_print_msg(none_fmt, name);
	else
		ksft_print_msg(lies_fmt, name, lied,
			       excused ? "the others caught" :
			       missed  ? "some NOT caught" :
					 "all caught",
			       first);
}

/* What one point of a mutation run came to. */
struct failnth_told {
	/* What the action returned (a workload: 0 or -errno). */
	int ret;
	bool fired;
	/* Whether the lie told to the checks was noticed, and by what. */
	bool caught;
	char why[1024];
};

/*
 * Runs point @n (0: no fault) of a mutation run of @sc, in this thread, in
 * a child or as a workload, with the checks told failnth_lie() of what the
 * action returned. Returns 1 with @t filled in, 0 when there is nothing to
 * judge (the child died of a signal), or -1 when the point could not be
 * run (already reported).
 */
typedef int (*failnth_lie_fn)(struct __test_metadata *_metadata,
			      const struct failnth_scenario *sc, int n,
			      void *arg, struct failnth_told *t);

/*
 * FAILNTH_MUTATE=1: shows that the scenario's checks can fail, by lying to
 * them twice. First the action runs without a fault and succeeds; the
 * checks are told it failed with ENOMEM, and must find its effect (or the
 * engine a changed mapping, a new fd or a child), unless the scenario says
 * why they cannot (success_unseen). Then n = 1, 2, ... until the action
 * fails; the checks are told it fully succeeded, and must find the effect
 * missing. A lie that goes unnoticed fails the test: that check could not
 * have failed. When no point fails the action (every fault has a
 * fallback), there is no failure to lie about, and the summary says so.
 * @lie runs each point, wherever the scenario's action runs.
 */
static void failnth_mutate(struct __test_metadata *_metadata,
			   const struct failnth_scenario *sc,
			   failnth_lie_fn lie, void *arg)
{
	int last = sc->workload && sc->max_points ? sc->max_points :
						    FAILNTH_MAX_POINTS;
	struct failnth_lies lies = {};
	struct failnth_told t = {};
	bool succeeded, cut = true;
	struct timespec start;
	int n, got;

	clock_gettime(CLOCK_MONOTONIC, &start);
	got = lie(_metadata, sc, 0, arg, &t);
	if (got < 0)
		return;
	succeeded = got && t.ret >= 0;
	EXPECT_TRUE(succeeded)
	{
		TH_LOG("%s: failed without an injected fault: %s", sc->name,
		       got ? strerror(-t.ret) : "killed");
	}
	if (sc->success_unseen) {
		ksft_print_msg("mutate %s: success as ENOMEM: not tried: %s\n",
			       sc->name, sc->success_unseen);
	} else {
		EXPECT_TRUE(!succeeded || t.caught)
		{
			TH_LOG("%s: success told as ENOMEM, not noticed: no check sees the effect",
			       sc->name);
		}
		ksft_print_msg("mutate %s: success as ENOMEM: %s%s\n", sc->name,
			       t.caught ? "caught: " : "NOT caught",
			       t.caught ? t.why : "");
	}

	/* Every point that fails the action is told it succeeded. */
	for (n = 1; n <= last; n++) {
		if (failnth_elapsed(&start) > sc->deadline_s)
			break;
		got = lie(_metadata, sc, n, arg, &t);
		if (got < 0 || (got && !t.fired)) {
			cut = false;
			break;
		}
		if (got && t.ret < 0)
			failnth_lie_told(&lies, n, -t.ret, t.caught, t.why);
	}
	/* A workload's sweep stops at its cap too (failnth_cap): no cut. */
	if (n > last && sc->workload)
		cut = false;
	failnth_mutate_summary(_metadata, sc, &lies, cut, n);
}

/* A point of a mutation run in this thread; @arg: the fail-nth fd. */
static int failnth_thread_lie(struct __test_metadata *_metadata,
			      const struct failnth_scenario *sc, int n,
			      void *arg, struct failnth_told *t)
{
	t->ret = failnth_lie_point(_metadata, sc, *(int *)arg, n, &t->fired,
				   &t->caught, t->why, sizeof(t->why));
	return t->ret == INT_MIN ? -1 : 1;
}

/*
 * Starts a sweep of @sc: its clock, and the knobs set for @mode (verbose
 * under FAILNTH_SITES, so that the runner can name each fault's site).
 */
static void failnth_sweep_begin(struct __test_metadata *_metadata,
				const struct failnth_scenario *sc,
				enum failnth_mode mode, struct timespec *start)
{
	int verbose = failnth_env("FAILNTH_SITES") ? 2 : sc->fault_verbose;
	int err;

	clock_gettime(CLOCK_MONOTONIC, start);
	err = failnth_knobs_set(mode, verbose);
	ASSERT_EQ(0, err)
	{
		TH_LOG("%s: setting the failslab and fail_page_alloc knobs: %s",
		       sc->name, strerror(-err));
	}
}

/* Ends a sweep of @sc: the knobs as they were before it. */
static void failnth_sweep_restore(struct __test_metadata *_metadata,
				  const struct failnth_scenario *sc)
{
	int err = knobs_restore();

	EXPECT_EQ(0, err)
	{
		TH_LOG("%s: restoring the fault-injection knobs: %s", sc->name,
		       strerror(-err));
	}
}

/*
 * What every sweep must have done, with @n the point it stopped at: ended
 * within its deadline, below FAILNTH_MAX_POINTS (@bounded: it reached
 * them with faults still firing) and, both allocators together, injected
 * at least one of its @points. A sweep that never injected a fault has
 * proved nothing; one allocator alone may have no point on a path (no page
 * is allocated to create a tmpfs inode).
 */
static void failnth_sweep_verdicts(struct __test_metadata *_metadata,
				   const struct failnth_scenario *sc,
				   enum failnth_mode mode, int n,
				   bool timed_out, bool bounded, int points)
{
	EXPECT_FALSE(timed_out)
	{
		TH_LOG("%s: sweep still running after %us, at n=%d", sc->name,
		       sc->deadline_s, n);
	}
	EXPECT_FALSE(bounded && !timed_out)
	{
		TH_LOG("%s: sweep hit the bound of %d points: raise FAILNTH_MAX_POINTS",
		       sc->name, FAILNTH_MAX_POINTS);
	}
	EXPECT_FALSE(mode == FAILNTH_BOTH && !points && !timed_out)
	{
		TH_LOG("%s: no injection point fired: fail-nth does not reach this call",
		       sc->name);
	}
}

/*
 * Sweeps every injection point of @sc's action that @mode fails, then prints
 * the summary. The knobs are put back on return; the fixture's teardown
 * calls knobs_restore() too, for an ASSERT in a callback. Inline:
 * a program whose sweeps all run in children does not use it.
 */
static inline void failnth_sweep(struct __test_metadata *_metadata,
				 const struct failnth_scenario *sc,
				 enum failnth_mode mode)
{
	static struct failnth_fresh fresh;
	struct failnth_stats st = {};
	bool timed_out = false;
	struct timespec start;
	int fd, n, fired = 1, err;

	failnth_sweep_begin(_metadata, sc, mode, &start);
	/*
	 * Fault in and lock what is mapped, so that no point is spent on a
	 * page fault of ours. Not MCL_FUTURE: it would populate the action's
	 * new mappings up front and hide their fault points.
	 */
	err = mlockall(MCL_CURRENT) ? -errno : 0;
	EXPECT_EQ(0, err)
	{
		TH_LOG("%s: mlockall: %s", sc->name, strerror(-err));
	}
	if (err)
		goto restore;
	fd = open(FAILNTH_PROC, O_RDWR | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	EXPECT_EQ(0, err)
	{
		TH_LOG("%s: opening %s: %s", sc->name, FAILNTH_PROC,
		       strerror(-err));
	}
	if (err)
		goto unlock;

	if (failnth_env("FAILNTH_MUTATE")) {
		failnth_mutate(_metadata, sc, failnth_thread_lie, &fd);
		close(fd);
		munlockall();
		failnth_sweep_restore(_metadata, sc);
		return;
	}
	err = failnth_watch_open(&fresh.watch);
	EXPECT_EQ(0, err)
	{
		TH_LOG("%s: opening /proc/self/fd and maps: %s", sc->name,
		       strerror(-err));
	}
	fresh.valid = false;
	for (n = 1; !err && n <= FAILNTH_MAX_POINTS && fired > 0; n++) {
		if (failnth_elapsed(&start) > sc->deadline_s) {
			timed_out = true;
			break;
		}
		fired = failnth_point(_metadata, sc, fd, n, &st, &fresh);
	}
	failnth_watch_close(&fresh.watch);
	if (!err)
		failnth_sweep_verdicts(_metadata, sc, mode, n, timed_out,
				       fired > 0, st.points);
	close(fd);
unlock:
	munlockall();
restore:
	failnth_sweep_restore(_metadata, sc);
	failnth_print_summary(sc, mode, &st, failnth_elapsed(&start));
	if (!timed_out)
		failnth_skip_if_no_point(_metadata, st.points, mode, sc->name);
}

/*
 * A fixture's fail-nth sweep and its three tests, as iommufd_fail_nth.c's
 * TEST_FAIL_NTH: "both" sweeps every slab and page-allocator point, "slab"
 * the slab points alone, "page" the page points alone, each within @timeout
 * seconds, in that order. The block that follows is the sweep, with
 * _metadata, self, variant and mode in scope:
 *
 *	FAILNTH_SWEEP(pipe, SWEEP_TIMEOUT)
 *	{
 *		const struct failnth_scenario sc = { ... };
 *
 *		failnth_sweep(_metadata, &sc, mode);
 *	}
 */
#define FAILNTH_SWEEP(fixture, timeout)                                       \
	static void fixture##_sweep(struct __test_metadata *_metadata,        \
				    FIXTURE_DATA(fixture) * self,             \
				    const FIXTURE_VARIANT(fixture) * variant, \
				    enum failnth_mode mode);                  \
	TEST_F_TIMEOUT(fixture, both, timeout)                                \
	{                                                                     \
		fixture##_sweep(_metadata, self, variant, FAILNTH_BOTH);      \
	}                                                                     \
	TEST_F_TIMEOUT(fixture, slab, timeout)                                \
	{                                                                     \
		fixture##_sweep(_metadata, self, variant, FAILNTH_SLAB);      \
	}                                                                     \
	TEST_F_TIMEOUT(fixture, page, timeout)                                \
	{                                                                     \
		fixture##_sweep(_metadata, self, variant, FAILNTH_PAGE);      \
	}                                                                     \
	static void fixture##_sweep(struct __test_metadata *_metadata,        \
				    FIXTURE_DATA(fixture) * self,             \
				    const FIXTURE_VARIANT(fixture) * variant, \
				    enum failnth_mode mode)

/*
 * FAILNTH_SWEEP for a fixture whose variants point to their scenario with
 * "op" (FAILNTH_VARIANT) and whose data holds the scenarios' argument as "ctx": the sweep runs a
 * copy of op with a deadline 10 s inside @timeout and &self->ctx as its
 * argument, through @run: failnth_sweep(), or failnth_child.h's
 * failnth_run(), which picks the engine the scenario asks for.
 *
 *	FAILNTH_SWEEP_OP(net, SWEEP_TIMEOUT, failnth_sweep)
 */
#define FAILNTH_SWEEP_OP(fixture, timeout, run)                            \
	static void fixture##_op(struct __test_metadata *_metadata,        \
				 FIXTURE_DATA(fixture) * self,             \
				 const FIXTURE_VARIANT(fixture) * variant, \
				 enum failnth_mode mode)                   \
	{                                                                  \
		struct failnth_scenario sc = *variant->op;                 \
		/* The sweep's own deadline: 10 s inside the test's. */    \
		sc.deadline_s = (timeout);                                 \
		sc.deadline_s -= 10;                                       \
		sc.arg = &self->ctx;                                       \
		run(_metadata, &sc, mode);                                 \
	}                                                                  \
	FAILNTH_SWEEP(fixture, timeout)                                    \
	{                                                                  \
		fixture##_op(_metadata, self, variant, mode);              \
	}

/*
 * FAILNTH_VARIANT(fixture, variant, fields...): a variant of a fixture
 * whose variants point to their scenario with "op" (FAILNTH_SWEEP_OP); the
 * fields are the scenario's, and its name is the variant's.
 *
 *	FAILNTH_VARIANT(io, aio_io_setup, .allowed = aio_errnos,
 *			.action = aio_setup_action, .check = aio_setup_check);
 *
 * FAILNTH_VARIANT_MORE(fixture, variant, (more), fields...) also sets the
 * variant's other members, from the parenthesised list @more:
 *
 *	FAILNTH_VARIANT_MORE(net, socket_tcp6, (.family = AF_INET6),
 *			     .allowed = socket_errnos, ...);
 *
 * FAILNTH_VARIANT_ADD(fixture, variant, name, (more), fields...) names the
 * scenario apart from the variant; its summary line carries that name.
 */
#define FAILNTH_UNPAREN(...) __VA_ARGS__

#define FAILNTH_VARIANT_ADD(fixture, variant, scenario, more, ...)        \
	static const struct failnth_scenario fixture##_##variant##_op = { \
		.name = scenario, __VA_ARGS__                             \
	};                                                                \
	FIXTURE_VARIANT_ADD(fixture, variant)                             \
	{                                                                 \
		.op = &fixture##_##variant##_op, FAILNTH_UNPAREN more     \
	}

#define FAILNTH_VARIANT_MORE(fixture, variant, more, ...) \
	FAILNTH_VARIANT_ADD(fixture, variant, #variant, more, __VA_ARGS__)

#define FAILNTH_VARIANT(fixture, variant, ...) \
	FAILNTH_VARIANT_ADD(fixture, variant, #variant, (), __VA_ARGS__)

#endif /* __SELFTESTS_MM_OOM_FAILNTH_H */
