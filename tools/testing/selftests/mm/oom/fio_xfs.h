/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of fio_test.c, on top of util.h's and cgroup.h's: xfs_repair's
 * word on the scratch XFS, the errors fio saw by errno, its memory groups,
 * the fault-injection knobs of its faults runs, its tasks marked to fail,
 * and the kernel log. Nothing here asserts: functions return 0 or -errno
 * (or a count), and the test decides.
 *
 * They are static functions in a header, like the other helpers of this
 * directory, so that the test builds from one .c file with lib.mk's rule.
 */
#ifndef OOM_FIO_XFS_H
#define OOM_FIO_XFS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "util.h"

#define FIO_CGROUP_ROOT "/sys/fs/cgroup"
#define FIO_DEBUGFS "/sys/kernel/debug"
#define FIO_MAX_ERRNOS 16
#define FIO_MAX_TASKS 64
/* Bound on killing what is left in a group and removing it. */
#define FIO_CG_DESTROY_MS 10000
#define FX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------- files ---- */

/* Reads @path into @buf (NUL-terminated, trailing newline cut): length or -errno. */
static ssize_t fx_read(const char *path, char *buf, size_t size)
{
	ssize_t len = read_file(path, buf, size);

	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return len;
}

/* The number after "@key " in a "key value" file (memory.events): >= 0 or -errno. */
static long long fx_read_key(const char *path, const char *key)
{
	char buf[4096], *p;
	size_t klen = strlen(key);
	ssize_t n = fx_read(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtoll(p + klen + 1, NULL, 10);
	return -ENOENT;
}

static double fx_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Prints @path as "# " lines, at most @max of them, the last ones. */
static void fx_print_tail(const char *path, int max)
{
	char line[512];
	long total = 0, n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		total++;
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (++n > total - max)
			printf("#   %s", line[strlen(line) - 1] == '\n' ?
						 line :
						 strcat(line, "\n"));
	fclose(f);
	fflush(stdout);
}

/* -------------------------------------------------------- errnos ---- */

/* Prints xfs_repair's findings in @path: its lines that are not progress. */
static void fx_print_findings(const char *path, int max)
{
	char line[512];
	FILE *f = fopen(path, "re");
	int n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n < max) {
		const char *p = line + strspn(line, " \t");

		if (*p == '-' || !strncmp(p, "Phase", 5) || *p == '\n' ||
		    strstr(p, "No modify flag set"))
			continue;
		printf("#   %s%s", line, strchr(line, '\n') ? "" : "\n");
		n++;
	}
	fclose(f);
	fflush(stdout);
}

/*
 * xfs_repair -n on the unmounted @dev: its exit status (0: nothing wrong),
 * its findings printed when there are some.
 */
static int fx_repair_check(const char *dev)
{
	char *const argv[] = { "xfs_repair", "-n", (char *)dev, NULL };
	int ret = run_cmd_out(argv, "/tmp/fio_test.repair", 60);

	if (ret) {
		printf("# xfs_repair -n %s exited %d:\n", dev, ret);
		fx_print_findings("/tmp/fio_test.repair", 20);
	}
	unlink("/tmp/fio_test.repair");
	return ret;
}

/* What fio prints for an errno: strerror() of the same C library. */
static int fx_errno_of_text(const char *text)
{
	int e;

	for (e = 1; e < 134; e++)
		if (!strcmp(text, strerror(e)))
			return e;
	return 0;
}

/* ---------------------------------------------------------- cgroup ---- */

/* Whether cgroup2 with the memory controller for children is there. */
static bool fx_memcg_available(void)
{
	char buf[256];

	return fx_read(FIO_CGROUP_ROOT "/cgroup.subtree_control", buf,
		       sizeof(buf)) >= 0 &&
	       strstr(buf, "memory");
}

/*
 * Creates the group @path, or takes it as it is, with memory.max @max (0:
 * unlimited) and then no swap: 0 or -errno.
 */
static int fx_cg_create(const char *path, long long max)
{
	int ret;

	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	if (!max)
		return 0;
	ret = cgrp_write_long(path, "memory.max", max);
	/* No swap: anon memory must not escape the limit either. */
	if (!ret)
		cgrp_write(path, "memory.swap.max", "0");
	return ret;
}

/* ------------------------------------------------- fault injection ---- */

/* The knobs fx_knobs_arm() sets: these in each of its dirs, ... */
static const char *const fx_fault_dir[] = { "failslab", "fail_page_alloc" };

static const char *const fx_fault_knob[] = {
	"probability", "task-filter", "ignore-gfp-wait", "times",
	"space",       "verbose",     "interval",
};

/* ... and three more. */
static const char *const fx_fault_other[] = {
	FIO_DEBUGFS "/fail_page_alloc/ignore-gfp-highmem",
	FIO_DEBUGFS "/fail_page_alloc/min-order",
	FIO_DEBUGFS "/failslab/cache-filter",
};

/* The path of knob @k of fx_fault_knob[] in dir @d of fx_fault_dir[]. */
static void fx_fault_path(char *path, size_t size, size_t d, size_t k)
{
	snprintf(path, size, FIO_DEBUGFS "/%s/%s", fx_fault_dir[d],
		 fx_fault_knob[k]);
}

/*
 * The knobs fx_knobs_arm() sets, and the overcommit mode that the fixture
 * sets for fio, which the harness's main process keeps (knobs_keep()) and
 * puts back when it ends: a test killed by SIGKILL (the harness's timeout
 * kills the test's process group so) cannot.
 */
static void __attribute__((constructor)) fx_knobs_keep(void)
{
	static const char *const overcommit = "/proc/sys/vm/overcommit_memory";
	char buf[PATH_MAX];
	const char *path = buf;
	size_t d, k;

	for (d = 0; d < FX_ARRAY_SIZE(fx_fault_dir); d++) {
		for (k = 0; k < FX_ARRAY_SIZE(fx_fault_knob); k++) {
			fx_fault_path(buf, sizeof(buf), d, k);
			knobs_keep(&path, 1);
		}
	}
	knobs_keep(fx_fault_other, FX_ARRAY_SIZE(fx_fault_other));
	knobs_keep(&overcommit, 1);
}

/*
 * Failslab and fail_page_alloc fail one in @interval of the allocations of
 * the tasks marked with make-it-fail, sleeping and highmem ones included,
 * any order, silently, or with a stack per fault under FAILNTH_SITES=1
 * (run.sh --sites names the call sites from them): 0 or -errno. Each knob
 * is saved as it is set (knob_set()), for knobs_restore(); on error those
 * set are put back. A dir's probability is 0 while its other knobs change
 * and 100 once they have.
 */
static int fx_knobs_arm(unsigned int interval)
{
	const char *sites = getenv("FAILNTH_SITES");
	const char *verbose = sites && !strcmp(sites, "1") ? "2" : "0";
	char path[PATH_MAX], val[16];
	const char *const set[FX_ARRAY_SIZE(fx_fault_knob)] = {
		"0", "Y", "N", "-1", "0", verbose, val,
	};
	/* Highmem and every order injected; every cache, unmarked. */
	const char *const other[FX_ARRAY_SIZE(fx_fault_other)] = {
		"N",
		"0",
		"N",
	};
	int ret = 0;
	size_t d, k;

	snprintf(val, sizeof(val), "%u", interval);
	for (d = 0; d < FX_ARRAY_SIZE(fx_fault_dir) && !ret; d++) {
		for (k = 0; k < FX_ARRAY_SIZE(fx_fault_knob) && !ret; k++) {
			fx_fault_path(path, sizeof(path), d, k);
			ret = knob_set(path, set[k]);
		}
		/* fx_fault_knob[0], probability: armed. */
		fx_fault_path(path, sizeof(path), d, 0);
		if (!ret)
			ret = knob_set(path, "100");
	}
	for (k = 0; k < FX_ARRAY_SIZE(other) && !ret; k++)
		ret = knob_set(fx_fault_other[k], other[k]);
	if (ret)
		knobs_restore();
	return ret;
}

/*
 * Marks every task in the process tree under @root with make-it-fail, the
 * threads of each process included; @marked remembers who was done. Tasks
 * created later by a marked task inherit the mark (kernel/fork.c,
 * dup_task_struct() copies the task_struct and resets only fail_nth), so
 * this only catches up with tasks created before their parent was marked.
 * Returns the number of newly marked tasks.
 */
static int fx_mark_tree(pid_t root, pid_t *marked, int *nmarked)
{
	pid_t procs[FIO_MAX_TASKS], ppid;
	int nprocs = 1, added = 0, i, j, k;
	char path[64], buf[512], *p;
	struct dirent *de;
	DIR *d;

	procs[0] = root;
	/* Descendants, by repeated passes over /proc: the tree is small. */
	for (k = 0; k < 4; k++) {
		d = opendir("/proc");
		if (!d)
			break;
		while ((de = readdir(d)) && nprocs < FIO_MAX_TASKS) {
			pid_t pid = atoi(de->d_name);

			if (pid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			if (fx_read(path, buf, sizeof(buf)) < 0)
				continue;
			p = strrchr(buf, ')');
			if (!p || sscanf(p + 2, "%*c %d", &ppid) != 1)
				continue;
			for (i = 0; i < nprocs && procs[i] != ppid; i++)
				;
			for (j = 0; j < nprocs && procs[j] != pid; j++)
				;
			if (i < nprocs && j == nprocs)
				procs[nprocs++] = pid;
		}
		closedir(d);
	}
	for (i = 0; i < nprocs; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task", procs[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			pid_t tid = atoi(de->d_name);

			if (tid <= 0)
				continue;
			for (j = 0; j < *nmarked && marked[j] != tid; j++)
				;
			if (j < *nmarked || *nmarked >= FIO_MAX_TASKS)
				continue;
			snprintf(path, sizeof(path),
				 "/proc/%d/task/%d/make-it-fail", procs[i],
				 tid);
			if (!write_file(path, "1")) {
				marked[(*nmarked)++] = tid;
				added++;
			}
		}
		closedir(d);
	}
	return added;
}

/* ------------------------------------------------------ kernel log ---- */

/* Opens /dev/kmsg at its end, for fx_kmsg_scan(): fd or -errno. */
static int fx_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Reads the kernel log since the last call and counts the lines that
 * contain one of @pats (NULL-terminated), printing the first few.
 */
static int fx_kmsg_scan(int fd, const char *const *pats, const char *what)
{
	char rec[1024];
	int hits = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	for (;;) {
		const char *msg;
		int i;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		for (i = 0; pats[i]; i++) {
			if (!strstr(msg, pats[i]))
				continue;
			if (hits++ < 8)
				printf("# %s: %s", what, msg);
			break;
		}
	}
	fflush(stdout);
	return hits;
}

#endif /* OOM_FIO_XFS_H */
