// SPDX-License-Identifier: GPL-2.0
/*
 * fio workloads on XFS while memory is short: every error is a clean errno,
 * fio's own verify passes, the data read back after umount and mount is what
 * was there before and verifies (every block fio wrote; a block whose write
 * failed reads back as zeros), xfs_repair -n finds nothing, XFS never shuts
 * down.
 *
 * Each workload (a job file in fio/, see TEST_FILES) runs under each
 * condition:
 *   nopressure   in a memcg without limit (its peak is reported);
 *   memcg_above  memory.max just above what the job needs: the smallest
 *                limit (1 MiB steps) under which it completes, found by
 *                bisection in the test itself (its unlimited probe is
 *                nopressure's run, when that ran earlier on this boot),
 *                or by memcg_below of the job earlier on this boot
 *                (note_read()); an earlier boot's figure ($OOM_FIO_NEEDS)
 *                is only a guess the bisection probes first
 *                (need_guess());
 *   memcg_below  1 MiB below that: fio may be OOM-killed, nothing else,
 *                or, when its group thrashes instead, the group's
 *                memory.pressure (PSI) must say so, and the test then kills
 *                it, as a user space OOM killer would;
 *   faults       failslab and fail_page_alloc fail one allocation in
 *                FIO_FAULT_INTERVAL of fio's own tasks (task-filter and
 *                make-it-fail), sleeping ones included;
 *   tinymem      no limit, in a machine with little memory (boot the guest
 *                with mem=39M: boot.conf "fio.xfs.*.tinymem mem=39M"); as
 *                under memcg_below, a thrash must show in PSI, and the
 *                test then kills fio.
 * And a pair for a power cut: replay.write acknowledges blocks (write, then
 * fsync) while allocations fail, records each in $OOM_STATE_DIR, and asks
 * the host to kill the machine (TOOSMALL:KILL); replay.check, on the next
 * boot, mounts (log recovery) and finds every recorded block intact.
 *
 * Needs root, OOM_SCRATCH_DEV (a disk it may mkfs), fio, mkfs.xfs and
 * xfs_repair; the job files in $OOM_FIO_JOBS, else in fio/ beside the
 * binary. One summary line per fio run, for the runner:
 *   # fio <job>.<condition>: secs=.. bw_kib=.. errors=.. ... (ENOMEM:n ...)
 * and one per bisection, which run.sh keeps for the next run's guesses:
 *   # bisect <job>: measured need=.. MiB, below=.. MiB (release .., MemTotal .. kB, .. probes)
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "fio_xfs.h"
#include "kselftest_harness.h"

/* Bound on a whole test, below the runner's per-test timeout (settings). */
#define TEST_BUDGET_S 100
/* Bound on one fio run. */
#define FIO_DEADLINE_S 30
/* Room for fio's JSON, and for its stderr, allocated before it runs. */
#define FIO_OUTPUT_KIB 128
/* One injected failure per this many allocations of fio's tasks. */
#define FIO_FAULT_INTERVAL 50
/* A machine with more memory than this cannot run the tinymem condition. */
#define TINYMEM_MAX_KB (40 * 1024)
#define MIB (1024 * 1024LL)
/*
 * memcg_below's pressure trigger (Documentation/accounting/psi.rst): some
 * of fio's tasks stalled on memory for PSI_STALL_US within a window of
 * PSI_WINDOW_US. A group that thrashes instead of being OOM-killed is what
 * PSI is there to report (F9, withdrawn); the test acts on it as a user
 * space OOM killer (oomd, systemd-oomd) would, by killing the group.
 * Measured on UML (the runs' "psi:" lines): thrashing groups stalled 10-41%
 * of their run ("some"; "full" 4-41%: fio's many tasks are rarely all
 * stalled), groups promptly OOM-killed 3-5%; with a quarter of 4 s as the
 * trigger, it fired 2.9-16.7 s into a thrash, too near the 30 s deadline
 * for the slowest. A tenth of the window: a kill it causes early is one
 * memcg_below accepts anyway, and a group stuck in reclaim (stalled, so
 * reported) must still be gone within 10 s of the kill.
 */
#define PSI_STALL_US 400000
#define PSI_WINDOW_US 4000000

/* Skip reasons too long for a SKIP() line. */
#define REASON_NO_JOB \
	"%.900s missing: install fio/*.fio beside the binary (TEST_FILES) or set OOM_FIO_JOBS"
#define REASON_NO_MEMCG \
	"cgroup2 memory controller missing: mount cgroup2 and enable +memory in the root's subtree_control"
#define REASON_NO_FAULTS \
	"failslab/fail_page_alloc missing: needs CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS and debugfs mounted"
#define REASON_NOT_TINY \
	"needs a machine with MemTotal <= %d kB (%s): boot with mem=39M (runner: boot.conf \"fio.xfs.*.tinymem mem=39M\")"
#define REASON_NO_PSI \
	"no memory.pressure: memcg_below needs PSI (CONFIG_PSI, not psi=0) to tell a thrashing group from a hung one"
#define REASON_NO_STATE_DIR \
	"OOM_STATE_DIR unset: a directory that survives a power cut of this machine"

enum cond { NOPRESSURE, MEMCG_ABOVE, MEMCG_BELOW, FAULTS, TINYMEM };

static const char *const cond_name[] = {
	[NOPRESSURE] = "nopressure",   [MEMCG_ABOVE] = "memcg_above",
	[MEMCG_BELOW] = "memcg_below", [FAULTS] = "faults",
	[TINYMEM] = "tinymem",
};

/* What the kernel says when XFS gives up or finds damage. */
static const char *const xfs_trouble[] = {
	"xfs_do_force_shutdown",
	"has been shut down",
	"Corruption",
	"metadata I/O error",
	"log I/O error",
	"Internal error",
	"xfs_error_report",
	NULL,
};

/* What one fio run did, from its exit, its JSON and its stderr. */
struct fio_result {
	int status; /* exit status, 128 + signal, -ETIMEDOUT */
	bool stalled;
	double secs;
	bool json_ok;
	long long read_bw, write_bw, read_kib, write_kib;
	long long total_err;
	int first_error;
	int job_error;
	int nerr;
	struct {
		int err;
		long n;
	} hist[FIO_MAX_ERRNOS];
	long verify_fail; /* fio verify mismatches */
	long verify_zero; /* of them, blocks that read back as zeros */
	long long zero_kib;
	long crash; /* fio aborted or a worker died of a signal */
	long start_failed; /* "job startup hung?", "N job(s) failed to start" */
	long pipe_abort; /* fio's assert on a failed write to its helper pipe */
	long sem_enospc; /* ENOSPC from fio's semaphores' mmap (shmem) */
	long unknown; /* stderr lines not understood */
	char first_unknown[160]; /* the first of them, for the verdict */
	long long oom_kills;
	long long peak;
	/* The group's memory.pressure trigger fired, and the test killed it. */
	bool psi_killed;
	double psi_s; /* when, from fio's start */
	/* Of the run's time, the share some or all tasks stalled on memory. */
	double psi_some, psi_full;
};

/* How to run fio once. */
struct fio_run {
	const char *job;
	const char *dir;
	const char *cg; /* NULL: no cgroup */
	unsigned int fault_interval; /* 0: no fault injection */
	bool verify_only;
	/* Every verify mismatch is reported, not only the first. */
	bool verify_all;
	/* A run past its deadline is only an outcome (a bisection probe). */
	bool may_stall;
	/* Kill the group when its memory.pressure trigger fires. */
	bool psi_kill;
	double deadline_s;
	const char *tag;
};

static void count_errno(struct fio_result *r, int err)
{
	int i;

	for (i = 0; i < r->nerr && r->hist[i].err != err; i++)
		;
	if (i == r->nerr) {
		if (r->nerr == FIO_MAX_ERRNOS)
			i--;
		else
			r->nerr++;
		r->hist[i].err = err;
	}
	r->hist[i].n++;
}

/* Sums "key" : N after each "section" : { of each job in fio's JSON. */
static long long json_sum(const char *json, const char *section,
			  const char *key)
{
	char skey[64], kkey[64];
	const char *p = json, *q;
	long long sum = 0;

	snprintf(skey, sizeof(skey), "\"%s\" : {", section);
	snprintf(kkey, sizeof(kkey), "\"%s\" : ", key);
	while ((p = strstr(p, skey))) {
		p += strlen(skey);
		q = strstr(p, kkey);
		if (q)
			sum += strtoll(q + strlen(kkey), NULL, 10);
	}
	return sum;
}

/* The first "key" : N of each job, summed (or the first non-zero one). */
static long long json_job_key(const char *json, const char *key, bool first)
{
	char kkey[64];
	const char *p = json, *q;
	long long v, sum = 0;

	snprintf(kkey, sizeof(kkey), "\"%s\" : ", key);
	while ((p = strstr(p, "\"jobname\""))) {
		p += 9;
		q = strstr(p, kkey);
		if (!q)
			continue;
		v = strtoll(q + strlen(kkey), NULL, 10);
		if (first && v)
			return v;
		sum += v;
	}
	return sum;
}

/*
 * Whether fio's JSON is whole: its braces and brackets close (outside
 * strings), and each job has its "total_err", one of the last keys.
 */
static bool json_whole(const char *json)
{
	int depth = 0, jobs = 0, errs = 0;
	bool in_str = false;
	const char *p;

	for (p = json; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && --depth < 0) {
			return false;
		}
	}
	for (p = json; (p = strstr(p, "\"jobname\"")); p++)
		jobs++;
	for (p = json; (p = strstr(p, "\"total_err\"")); p++)
		errs++;
	return !depth && !in_str && jobs && jobs == errs;
}

static void parse_json(const char *path, struct fio_result *r)
{
	static char json[1 << 20];
	ssize_t n = fx_read(path, json, sizeof(json));
	const char *p = n > 0 ? strchr(json, '{') : NULL;

	if (!p || !strstr(p, "\"jobs\""))
		return;
	if (!json_whole(p)) {
		printf("# fio's JSON output is cut short (%zd bytes)\n", n);
		return;
	}
	r->json_ok = true;
	r->read_bw = json_sum(p, "read", "bw");
	r->write_bw = json_sum(p, "write", "bw");
	r->read_kib = json_sum(p, "read", "io_kbytes");
	r->write_kib = json_sum(p, "write", "io_kbytes");
	r->total_err = json_job_key(p, "total_err", false);
	r->first_error = json_job_key(p, "first_error", true);
	r->job_error = json_job_key(p, "error", true);
}

/* The text after the last ": " in @line, or NULL. */
static const char *last_text(const char *line)
{
	const char *p, *last = NULL;

	for (p = strstr(line, ": "); p; p = strstr(p + 2, ": "))
		last = p + 2;
	return last;
}

/*
 * Sorts fio's stderr lines: errors with their errno (and, for the job-level
 * ones, fio's source line), verify mismatches, crashes, and the rest.
 */
static void parse_stderr(const char *path, struct fio_result *r)
{
	char line[1024], text[256], head[1024], *p;
	int shown = 0, err;
	unsigned int len;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/*
		 * What fio says before a file name: the name may say "verify"
		 * too ("fio: end_fsync failed for file .../randwrite_verify.0.0").
		 */
		p = strstr(line, " file ");
		snprintf(head, sizeof(head), "%.*s",
			 p ? (int)(p - line) : (int)strlen(line), line);
		err = 0;
		p = strstr(line, "err=");
		if (p && sscanf(p, "err=%d/", &err) == 1 && err > 0) {
			/* fio: pid=N, err=12/file:io_u.c:1889, func=..., error=... */
			count_errno(r, err);
			if (shown++ < 6)
				printf("# fio %s: %s\n", "job error", line);
		} else if (strstr(line, "io_u error on file") &&
			   strstr(strstr(line, "io_u error on file"), ": ")) {
			p = strstr(strstr(line, "io_u error on file"), ": ");
			/* fio: io_u error on file F: Cannot allocate memory: write offset=.. */
			char *end = strstr(p + 2, ": ");

			snprintf(text, sizeof(text), "%.*s",
				 end ? (int)(end - p - 2) : 0, p + 2);
			err = fx_errno_of_text(text);
			count_errno(r, err ? err : -1);
			if (shown++ < 6)
				printf("# fio io_u error: %s\n", line);
		} else if (last_text(line) &&
			   fx_errno_of_text(last_text(line))) {
			/*
			 * perror() style, e.g. "stat: Cannot allocate memory",
			 * "fio: failed to create dir (D): Cannot allocate memory"
			 */
			err = fx_errno_of_text(last_text(line));
			/*
			 * "Can't create helper thread: Resource temporarily
			 * unavailable": pthread_create() says EAGAIN when the
			 * thread's stack cannot be mapped (glibc's
			 * nptl/pthread_create.c, "err == ENOMEM ? EAGAIN : err",
			 * as POSIX has it); the kernel said ENOMEM.
			 */
			if (err == EAGAIN &&
			    strstr(line, "Can't create helper thread: "))
				err = ENOMEM;
			/*
			 * "mmap semaphore: No space left on device": fio's
			 * semaphores are MAP_SHARED | MAP_ANONYMOUS, a file on
			 * the internal shmem mount, and a failed inode
			 * allocation is ENOSPC there: mm/shmem.c:
			 * __shmem_get_inode() has "return ERR_PTR(-ENOSPC);"
			 * when new_inode() fails (linux 6.12, line 2903), as
			 * failnth_mm_test.c's shmem_errnos say.
			 */
			if (err == ENOSPC && strstr(line, "mmap semaphore: "))
				r->sem_enospc++;
			count_errno(r, err);
			if (shown++ < 6)
				printf("# fio call error: %s\n", line);
		} else if (strstr(head, "verify") &&
			   (strstr(head, "bad") || strstr(head, "mismatch") ||
			    strstr(head, "failed") || strstr(head, "wanted"))) {
			r->verify_fail++;
			/*
			 * "verify: bad magic header 0, wanted acca at file F
			 * offset O, length L (...)": a block that was never
			 * written (verify.c, verify_header()).
			 */
			p = strstr(line, ", length ");
			if (strstr(line, "bad magic header 0,") && p &&
			    sscanf(p, ", length %u", &len) == 1) {
				r->verify_zero++;
				r->zero_kib += len / 1024;
			}
			if (shown++ < 6)
				printf("# fio verify: %s\n", line);
		} else if (strstr(line, "job startup hung?") ||
			   strstr(line, "failed to start")) {
			/*
			 * fio's run_threads() forks each job without checking
			 * fork(), then waits 10 s for the job to check in: a
			 * fork that failed ends the run this way, exit 128.
			 */
			r->start_failed++;
			if (shown++ < 6)
				printf("# fio start: %s\n", line);
		} else if (strstr(line, "helper_thread.c:") &&
			   strstr(line, "submit_action: Assertion")) {
			/*
			 * fio's submit_action() asserts that a one-byte write
			 * to its helper thread's pipe cannot fail, and aborts
			 * (exit 134). pipe_write() fails it with ENOMEM when
			 * the page for the pipe buffer cannot be had: a clean
			 * errno that fio does not handle.
			 */
			r->pipe_abort++;
			if (shown++ < 6)
				printf("# fio abort: %s\n", line);
		} else if (strstr(line, "Assertion") ||
			   strstr(line, "got signal") ||
			   strstr(line, "Segmentation") ||
			   strstr(line, "Aborted")) {
			r->crash++;
			if (shown++ < 6)
				printf("# fio crash: %s\n", line);
		} else if (line[0]) {
			if (!r->unknown++)
				snprintf(r->first_unknown,
					 sizeof(r->first_unknown), "%.*s",
					 (int)sizeof(r->first_unknown) - 1,
					 line);
			if (shown++ < 6)
				printf("# fio stderr: %s\n", line);
		}
	}
	fclose(f);
	fflush(stdout);
}

static void task_evidence(pid_t pid)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (fx_read(path, buf, sizeof(buf)) >= 0) {
		/* "pid (comm) S ...": the state follows the last ')'. */
		p = strrchr(buf, ')');
		printf("# stall: task %d %.*s state %c\n", pid,
		       p ? (int)(p - buf + 1) : 0, buf,
		       p && p[1] && p[2] ? p[2] : '?');
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (fx_read(path, buf, sizeof(buf)) >= 0)
		printf("# stall: task %d wchan %s\n", pid, buf);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (fx_read(path, buf, sizeof(buf)) >= 0)
		printf("# stall: task %d stack:\n%s\n", pid, buf);
}

/* Whether task @pid is in cgroup @cg (a path under /sys/fs/cgroup). */
static bool in_cgroup(pid_t pid, const char *cg)
{
	char path[64], buf[512];
	const char *rel = cg + strlen("/sys/fs/cgroup");

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (strncmp(cg, "/sys/fs/cgroup/", 15) ||
	    fx_read(path, buf, sizeof(buf)) < 0)
		return false;
	/* "0::/fio_test.43\n" */
	return !strncmp(buf, "0::", 3) && !strncmp(buf + 3, rel, strlen(rel)) &&
	       (buf[3 + strlen(rel)] == '\n' || !buf[3 + strlen(rel)]);
}

/* Shows what each task left in @pgid or in @cg is doing, then dumps all stacks. */
static void stall_evidence(pid_t pgid, const char *cg)
{
	char buf[2048];
	struct dirent *de;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		pid_t pid = atoi(de->d_name);

		if (pid > 0 &&
		    (getpgid(pid) == pgid || (cg && in_cgroup(pid, cg))))
			task_evidence(pid);
	}
	if (d)
		closedir(d);
	if (cg) {
		static const char *const keys[] = {
			"anon",	  "file",	"kernel",
			"pgscan", "pgmajfault", "workingset_refault_file",
			NULL,
		};
		char path[PATH_MAX];
		int i;

		snprintf(path, sizeof(path), "%s/memory.events", cg);
		if (fx_read(path, buf, sizeof(buf)) >= 0) {
			for (i = 0; buf[i]; i++)
				buf[i] = buf[i] == '\n' ? ' ' : buf[i];
			printf("# stall: memory.events: %s\n", buf);
		}
		snprintf(path, sizeof(path), "%s/memory.stat", cg);
		for (i = 0; keys[i]; i++)
			printf("# stall: memory.stat %s %lld\n", keys[i],
			       fx_read_key(path, keys[i]));
		snprintf(path, sizeof(path), "%s/memory.pressure", cg);
		if (fx_read(path, buf, sizeof(buf)) >= 0) {
			for (i = 0; buf[i]; i++)
				buf[i] = buf[i] == '\n' ? ' ' : buf[i];
			printf("# stall: memory.pressure: %s\n", buf);
		}
	}
	fflush(stdout);
	write_file("/proc/sysrq-trigger", "w");
	write_file("/proc/sysrq-trigger", "m");
}

/* Number of threads of process @pid. */
static int thread_count(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/*
 * umount(@mnt), waiting up to 5 s while it is busy: the last files of an
 * OOM-killed fio are closed as it exits, a moment after its process group
 * is gone. Returns 0, or -1 with errno set.
 */
static int fx_umount(const char *mnt)
{
	double t0 = fx_now();

	while (umount(mnt)) {
		if (errno != EBUSY || fx_now() - t0 > 5)
			return -1;
		usleep(50000);
	}
	if (fx_now() - t0 > 0.01)
		printf("# umount of %s was busy for %.2fs\n", mnt,
		       fx_now() - t0);
	return 0;
}

/* Whether any task of process group @pgid is left. */
static bool pgrp_alive(pid_t pgid)
{
	return !kill(-pgid, 0) || errno != ESRCH;
}

/*
 * Whether any of fio's tasks is left: its process group, and its cgroup
 * when it has one (fio's job processes may leave the group; an OOM-killed
 * fio's workers outlive it and keep working on the filesystem).
 */
static bool fio_alive(pid_t pgid, const char *cg)
{
	return pgrp_alive(pgid) || (cg && cgrp_populated(cg) > 0);
}

/*
 * fio (pgid @pgid) was SIGKILLed, by the OOM killer: the only one who kills
 * it before the deadline. Its job processes then wait for the dead parent
 * forever, in user space (seen: state S, wchan futex_wait, no charge, no
 * reclaim), and what they would still do has no parent to report to. End
 * them too; they must be gone within 10 s (the new deadline returned, at
 * most @end), or the run stalls with the evidence as any other.
 */
static double fio_end_orphans(pid_t pgid, const char *cg, double end)
{
	char path[PATH_MAX];

	if (!fio_alive(pgid, cg))
		return end;
	printf("# fio was killed: ending the job processes left waiting for it\n");
	kill(-pgid, SIGKILL);
	if (cg) {
		snprintf(path, sizeof(path), "%s/cgroup.kill", cg);
		write_file(path, "1");
	}
	return fx_now() + 10 < end ? fx_now() + 10 : end;
}

/*
 * Creates one of fio's output files, empty, with its first FIO_OUTPUT_KIB
 * already allocated by this (unmarked) task: fio's writes to it then need
 * no allocation that an injected fault could fail. Seen without: a JSON
 * empty or cut short, fio exiting 0; its "total_err" lost, the test took a
 * run with failed writes for a clean one. Returns the fd or -errno.
 */
static int output_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, FIO_OUTPUT_KIB * 1024)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * The group's memory.pressure trigger fired while fio (@pgid) ran: say what
 * PSI saw, then kill the group as a user space OOM killer would. All of it
 * must be gone within 10 s, or the run stalls with the evidence as any
 * other.
 */
static void psi_kill(const struct fio_run *run, pid_t pgid, double t0,
		     struct fio_result *r)
{
	char path[PATH_MAX], buf[256];

	r->psi_killed = true;
	r->psi_s = fx_now() - t0;
	snprintf(path, sizeof(path), "%s/memory.pressure", run->cg);
	if (fx_read(path, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "(unreadable)");
	buf[strcspn(buf, "\n")] = ' ';
	buf[strcspn(buf, "\n")] = '\0';
	printf("# fio %s: memory.pressure trigger (some %d us in %d us) fired after %.1fs: %s;",
	       run->tag, PSI_STALL_US, PSI_WINDOW_US, r->psi_s, buf);
	printf(" killing the group, as oomd would\n");
	kill(-pgid, SIGKILL);
	snprintf(path, sizeof(path), "%s/cgroup.kill", run->cg);
	write_file(path, "1");
}

/*
 * The "total=" of @cg's memory.pressure line @kind ("some" or "full"):
 * microseconds its tasks were stalled on memory. -1 if unreadable.
 */
static long long psi_total(const char *cg, const char *kind)
{
	char path[PATH_MAX], buf[256], *p;

	snprintf(path, sizeof(path), "%s/memory.pressure", cg);
	if (fx_read(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, kind);
	p = p ? strstr(p, "total=") : NULL;
	return p ? strtoll(p + 6, NULL, 10) : -1;
}

/* Whether cgroups have memory.pressure (CONFIG_PSI, and not psi=0). */
static bool psi_available(void)
{
	char buf[256];

	return fx_read(FIO_CGROUP_ROOT "/memory.pressure", buf, sizeof(buf)) >=
	       0;
}

/*
 * Arms a trigger on @cg's memory.pressure (PSI_STALL_US of some stall in
 * PSI_WINDOW_US). Returns the fd to poll for POLLPRI, or -errno.
 */
static int psi_trigger(const char *cg)
{
	char path[PATH_MAX], trig[64];
	int fd, len;

	snprintf(path, sizeof(path), "%s/memory.pressure", cg);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(trig, sizeof(trig), "some %d %d", PSI_STALL_US,
		       PSI_WINDOW_US);
	/* The trigger string goes with its NUL (psi.rst's example). */
	if (write(fd, trig, len + 1) != len + 1) {
		len = -errno;
		close(fd);
		return len;
	}
	return fd;
}

/*
 * Waits @ms for the trigger @fd (if >= 0) to fire. Returns whether it did;
 * a trigger whose group went away (POLLERR) is closed and set to -1.
 */
static bool psi_wait(int *fd, int ms)
{
	struct pollfd p = { .fd = *fd, .events = POLLPRI };

	if (*fd < 0) {
		usleep(ms * 1000);
		return false;
	}
	if (poll(&p, 1, ms) <= 0)
		return false;
	if (p.revents & (POLLERR | POLLNVAL)) {
		close(*fd);
		*fd = -1;
		return false;
	}
	return p.revents & POLLPRI;
}

/*
 * Runs fio as @run says, bounded by its deadline, and fills @r. On expiry
 * the tasks left get their stacks shown (sysrq w and m too) and a
 * "# stall:" line, then are killed.
 */
static void fio_run(const struct fio_run *run, struct fio_result *r)
{
	pid_t pid, marked[FIO_MAX_TASKS];
	int status = 0, nmarked = 0;
	char path[PATH_MAX];
	const char *json = "/tmp/fio_test.json", *errf = "/tmp/fio_test.err";
	double t0 = fx_now(), end = t0 + run->deadline_s;
	int out = output_file(json), errfd = output_file(errf);
	int psi = run->psi_kill && run->cg ? psi_trigger(run->cg) : -1;
	long long some0 = psi >= 0 ? psi_total(run->cg, "some") : -1;
	long long full0 = psi >= 0 ? psi_total(run->cg, "full") : -1;
	bool exited = false;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	pid = out < 0 || errfd < 0 || psi < -1 ? -1 : fork_bound();
	if (pid < 0) {
		r->status = out < 0   ? out :
			    errfd < 0 ? errfd :
			    psi < -1  ? psi :
					-errno;
		if (out >= 0)
			close(out);
		if (errfd >= 0)
			close(errfd);
		if (psi >= 0)
			close(psi);
		return;
	}
	if (!pid) {
		setpgid(0, 0);
		/* The OOM killer should take fio, not the test. */
		write_file("/proc/self/oom_score_adj", "1000");
		if (run->cg) {
			snprintf(path, sizeof(path), "%s/cgroup.procs",
				 run->cg);
			if (write_file(path, "0"))
				_exit(125);
		}
		setenv("FIO_DIR", run->dir, 1);
		/* EILSEQ (a mismatch) in the job's ignore_error verify list. */
		snprintf(path, sizeof(path), "%d", EILSEQ);
		setenv("FIO_VERIFY_IGNORE", run->verify_all ? path : "", 1);
		if (dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
			_exit(126);
		if (run->verify_only)
			execlp("fio", "fio", "--output-format=json",
			       "--verify_only", run->job, NULL);
		else
			execlp("fio", "fio", "--output-format=json", run->job,
			       NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	close(out);
	close(errfd);
	while (fx_now() < end) {
		if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
			exited = true;
			if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
				end = fio_end_orphans(pid, run->cg, end);
		}
		/* Orphaned workers (their parent OOM-killed) count too. */
		if (exited && !fio_alive(pid, run->cg))
			break;
		/*
		 * Mark fio's tasks once it runs more than one (its helper
		 * thread, then its job processes): by then the dynamic loader
		 * is done, which would otherwise fail before fio even starts.
		 */
		if (run->fault_interval && !exited &&
		    (nmarked || thread_count(pid) > 1))
			fx_mark_tree(pid, marked, &nmarked);
		if (psi_wait(&psi, run->fault_interval ? 2 : 10) &&
		    !r->psi_killed) {
			psi_kill(run, pid, t0, r);
			end = fx_now() + 10 < end ? fx_now() + 10 : end;
		}
	}
	r->secs = fx_now() - t0;
	if (psi >= 0) {
		r->psi_some =
			(psi_total(run->cg, "some") - some0) / 1e6 / r->secs;
		r->psi_full =
			(psi_total(run->cg, "full") - full0) / 1e6 / r->secs;
		close(psi);
	}
	if (!exited || fio_alive(pid, run->cg)) {
		r->stalled = true;
		printf("# %s: fio %s: %s after %.0fs (deadline)\n",
		       run->may_stall ? "no progress" : "stall", run->tag,
		       exited ? "its workers still run" : "still running",
		       r->secs);
		if (!run->may_stall)
			stall_evidence(pid, run->cg);
		kill(-pid, SIGKILL);
		if (run->cg) {
			snprintf(path, sizeof(path), "%s/cgroup.kill", run->cg);
			write_file(path, "1");
		}
		if (!exited)
			waitpid(pid, &status, 0);
		for (end = fx_now() + 10;
		     fio_alive(pid, run->cg) && fx_now() < end;)
			usleep(10000);
	}
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) :
					128 + WTERMSIG(status);
	if (run->fault_interval)
		printf("# fio %s: %d fio tasks marked make-it-fail\n", run->tag,
		       nmarked);
	parse_json(json, r);
	parse_stderr(errf, r);
	/*
	 * fio prints an error it goes on after (continue_on_error) nowhere:
	 * its JSON has the count and the first one. Those not seen on stderr
	 * are put under the first error's errno. Nor does it always print the
	 * one that failed the job after its I/O ("fio: end_fsync failed for
	 * file F", exit 1): its JSON "error" has it.
	 */
	{
		long seen = 0;
		int i;

		for (i = 0; i < r->nerr; i++)
			seen += r->hist[i].n;
		for (; r->total_err > seen; seen++)
			count_errno(r,
				    r->first_error > 0 ? r->first_error : -1);
		if (!r->nerr && r->status > 0 && r->job_error > 0)
			count_errno(r, r->job_error);
	}
	if (run->cg) {
		/* -1: not known. */
		if (cgrp_read_key(run->cg, "memory.events", "oom_kill",
				  &r->oom_kills))
			r->oom_kills = -1;
		if (cgrp_read_long(run->cg, "memory.peak", &r->peak))
			r->peak = -1;
	}
	unlink(json);
	unlink(errf);
}

/* ---------------------------------------------------- data digest ---- */

struct digest_ent {
	char name[64];
	long long size;
	uint64_t hash;
};

struct digest {
	int n, max;
	struct digest_ent *e;
};

static struct digest *digest_cur;
static const char *digest_root;

static int digest_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	static char buf[65536];
	struct digest *d = digest_cur;
	struct digest_ent *e;
	uint64_t h = FNV1A_INIT;
	ssize_t n;
	int fd;

	if (type != FTW_F)
		return 0;
	if (d->n == d->max) {
		d->max = d->max ? 2 * d->max : 1024;
		d->e = realloc(d->e, d->max * sizeof(*d->e));
		if (!d->e)
			return -ENOMEM;
	}
	e = &d->e[d->n++];
	snprintf(e->name, sizeof(e->name), "%s", path + strlen(digest_root));
	e->size = st->st_size;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = fnv1a(h, buf, n);
	close(fd);
	e->hash = n < 0 ? 0 : h;
	return n < 0 ? -EIO : 0;
}

static int digest_cmp(const void *a, const void *b)
{
	return strcmp(((const struct digest_ent *)a)->name,
		      ((const struct digest_ent *)b)->name);
}

/* Names, sizes and contents of every file under @dir: 0 or -errno. */
static int digest_tree(const char *dir, struct digest *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	digest_cur = d;
	digest_root = dir;
	ret = nftw(dir, digest_one, 16, FTW_PHYS);
	if (!ret && d->n)
		qsort(d->e, d->n, sizeof(*d->e), digest_cmp);
	return ret;
}

/* Number of files that differ, the first few printed. */
static int digest_diff(const struct digest *a, const struct digest *b)
{
	int i, j, bad = 0;

	for (i = 0, j = 0; i < a->n || j < b->n;) {
		int c = i == a->n ? 1 :
			j == b->n ? -1 :
				    strcmp(a->e[i].name, b->e[j].name);

		if (!c && a->e[i].size == b->e[j].size &&
		    a->e[i].hash == b->e[j].hash) {
			i++, j++;
			continue;
		}
		if (bad++ < 5)
			printf("# lost: %s: %s\n",
			       c < 0 ? a->e[i].name : b->e[j].name,
			       c < 0 ? "gone after mount" :
			       c > 0 ? "appeared after mount" :
				       "contents changed");
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	fflush(stdout);
	return bad;
}

/* ------------------------------------------------------- the fixture ---- */

FIXTURE(xfs)
{
	char mnt[64];
	char cg[PATH_MAX];
	char job[PATH_MAX];
	const char *dev;
	bool mounted;
	char overcommit[16];
	int kmsg;
	double end;
	/* Errnos the job file documents besides ENOMEM, 0-terminated. */
	int allowed[8];
};

FIXTURE_VARIANT(xfs)
{
	/* Job file name in the jobs directory, without .fio. */
	const char *job;
	/* The job writes data that fio can verify after a remount. */
	bool verifiable;
	/*
	 * Random writes over one file, each block once (fio's random map):
	 * a block whose write failed is never written (see fio_case()).
	 */
	bool once;
};

/* A job of fio/, named by its file (less .fio). */
#define FIO_JOB(name, ...)                          \
	static const char fio_job_##name[] = #name; \
	FIXTURE_VARIANT_ADD(xfs, name)              \
	{                                           \
		.job = fio_job_##name, __VA_ARGS__  \
	}

FIO_JOB(randwrite_verify, .verifiable = true, .once = true);
FIO_JOB(smallfiles, .verifiable = true);
FIO_JOB(mixed_fsync, .verifiable = true);
FIO_JOB(mmap, .verifiable = true);
FIO_JOB(direct, .verifiable = true, .once = true);
FIO_JOB(metadata, .verifiable = false);

/* The jobs directory: $OOM_FIO_JOBS, else fio/ beside this binary. */
static int jobs_dir(char *buf, size_t size)
{
	const char *env = getenv("OOM_FIO_JOBS");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(buf, size, "%.4000s/fio", exe);
	return 0;
}

/* Reads the job's "; errno: NAME why" lines into @allowed: count or -errno. */
static int job_errnos(const char *job, int *allowed, int max)
{
	char line[512], name[32];
	int n = 0, lineno = 0, err;
	FILE *f = fopen(job, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && n < max - 1) {
		lineno++;
		if (sscanf(line, "; errno: %31s", name) != 1)
			continue;
		err = errno_by_name(name);
		if (err) {
			allowed[n++] = err;
			printf("# %s:%d documents %s", job, lineno, line + 2);
		}
	}
	fclose(f);
	allowed[n] = 0;
	return n;
}

static const char *tool_missing(void)
{
	static const char *const tools[] = { "fio", "mkfs.xfs", "xfs_repair" };
	size_t i;

	for (i = 0; i < 3; i++)
		if (!in_path(tools[i]))
			return tools[i];
	return NULL;
}

/* mkfs.xfs on @dev, mounted at @mnt in this test's own mount namespace. */
static int scratch_mount(const char *dev, const char *mnt, bool mkfs)
{
	char *const argv[] = { "mkfs.xfs", "-f", "-q", (char *)dev, NULL };
	int ret;

	if (mkfs) {
		ret = run_cmd_out(argv, "/tmp/fio_test.mkfs", 60);
		if (ret) {
			fx_print_tail("/tmp/fio_test.mkfs", 10);
			return ret < 0 ? ret : -EIO;
		}
	}
	return mount(dev, mnt, "xfs", 0, NULL) ? -errno : 0;
}

/* A private mount namespace, so that nothing leaks if the test dies. */
static int private_ns(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ? -errno : 0;
}

static const char *common_skip(const char **dev)
{
	static char why[256];
	const char *tool = tool_missing();

	if (geteuid())
		return "needs root";
	*dev = getenv("OOM_SCRATCH_DEV");
	if (!*dev || !**dev)
		return "OOM_SCRATCH_DEV unset: point it at a spare block device this test may mkfs";
	if (tool) {
		snprintf(why, sizeof(why),
			 "%s not in PATH: install fio and xfsprogs", tool);
		return why;
	}
	return NULL;
}

FIXTURE_SETUP(xfs)
{
	char dir[PATH_MAX];
	const char *why = common_skip(&self->dev);
	int ret;

	self->kmsg = -1;
	self->end = fx_now() + TEST_BUDGET_S;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, jobs_dir(dir, sizeof(dir)));
	snprintf(self->job, sizeof(self->job), "%.3800s/%.64s.fio", dir,
		 variant->job);
	if (access(self->job, R_OK))
		SKIP(return, REASON_NO_JOB, self->job);
	ASSERT_LE(0, job_errnos(self->job, self->allowed, 8));
	ASSERT_EQ(0, private_ns())
	TH_LOG("unshare(CLONE_NEWNS): %s", strerror(errno));
	/* fio maps ~136 MB of libraries: without overcommit it cannot start. */
	ASSERT_LE(0, fx_read("/proc/sys/vm/overcommit_memory", self->overcommit,
			     sizeof(self->overcommit)));
	ASSERT_EQ(0, write_file("/proc/sys/vm/overcommit_memory", "1"));
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/fio_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	ret = scratch_mount(self->dev, self->mnt, true);
	ASSERT_EQ(0, ret)
	TH_LOG("mkfs.xfs and mount %s: %s", self->dev, strerror(-ret));
	self->mounted = true;
	/* Shows the kernel's word on XFS from here on. */
	self->kmsg = fx_kmsg_open();
	write_file("/proc/self/oom_score_adj", "-1000");
}

FIXTURE_TEARDOWN(xfs)
{
	EXPECT_EQ(0, knobs_restore());
	if (self->cg[0])
		cgrp_destroy(self->cg, FIO_CG_DESTROY_MS);
	if (self->mounted)
		umount2(self->mnt, MNT_DETACH);
	if (self->mnt[0])
		rmdir(self->mnt);
	if (self->overcommit[0])
		write_file("/proc/sys/vm/overcommit_memory", self->overcommit);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

static bool errno_clean(const int *allowed, int err)
{
	if (err == ENOMEM)
		return true;
	for (; *allowed; allowed++)
		if (*allowed == err)
			return true;
	return false;
}

/* The metrics line of a run, its errno histogram and ")" follow. */
#define METRICS_FMT \
	"# fio %s.%s: secs=%.2f bw_kib=%lld read_bw_kib=%lld write_bw_kib=%lld read_kib=%lld write_kib=%lld errors=%lld exit=%d oom_kills=%lld peak_kib=%lld limit_kib=%lld need_kib=%lld ("

static void print_metrics(const char *job, enum cond c,
			  const struct fio_result *r, long long limit,
			  long long need)
{
	char name[16];
	int i;

	printf(METRICS_FMT, job, cond_name[c], r->secs,
	       r->read_bw + r->write_bw, r->read_bw, r->write_bw, r->read_kib,
	       r->write_kib, r->total_err, r->status,
	       r->oom_kills > 0 ? r->oom_kills : 0,
	       r->peak > 0 ? r->peak / 1024 : 0, limit / 1024, need / 1024);
	for (i = 0; i < r->nerr; i++)
		printf("%s%s:%ld", i ? " " : "",
		       r->hist[i].err < 0 ?
			       "EUNKNOWN" :
			       errno_name(r->hist[i].err, name, sizeof(name)),
		       r->hist[i].n);
	printf(")\n");
	fflush(stdout);
}

/* A fresh directory for one run of the job: 0 or -errno. */
static int fresh_dir(const char *mnt, int n, char *buf, size_t size)
{
	snprintf(buf, size, "%s/run%d", mnt, n);
	return mkdir(buf, 0755) ? -errno : 0;
}

/* Whether a run under a memcg limit completed: no OOM kill, no error. */
static bool run_fits(const struct fio_result *r)
{
	return !r->stalled && r->status == 0 && r->oom_kills <= 0 &&
	       r->total_err == 0 && r->nerr == 0 && !r->crash;
}

/*
 * What a test measured, kept for the other tests of its job on this boot:
 * nopressure's run is the bisection's unlimited probe, and one bisection
 * serves memcg_above (its need) and memcg_below (the largest limit that
 * failed). boot.conf runs a job's three in one lane, in that order. Keyed
 * by the boot's id, so that a figure from another boot (another kernel,
 * another memory size) is never used; without a note, a test measures
 * for itself.
 */
#define NOTE_FILE "/tmp/oom-fio-%s.%s"
#define BOOT_ID "/proc/sys/kernel/random/boot_id"
#define NOTE_UNLIMITED_FMT \
	"# bisect %s: this boot's unlimited run (nopressure): peak=%lld KiB secs=%.1f\n"
#define NOTE_NEED_FMT \
	"# bisect %s: this boot's measurement: need=%lld MiB, below=%lld MiB\n"

static bool note_read(const char *what, const char *job, double *a, double *b)
{
	char path[PATH_MAX], id[64], buf[128], saved[64];

	snprintf(path, sizeof(path), NOTE_FILE, what, job);
	return fx_read(BOOT_ID, id, sizeof(id)) > 0 &&
	       fx_read(path, buf, sizeof(buf)) > 0 &&
	       sscanf(buf, "%63s %lf %lf", saved, a, b) == 3 &&
	       !strcmp(saved, id) && *a > 0 && *b > 0;
}

static void note_write(const char *what, const char *job, double a, double b)
{
	char path[PATH_MAX], id[64];
	FILE *f;

	snprintf(path, sizeof(path), NOTE_FILE, what, job);
	if (fx_read(BOOT_ID, id, sizeof(id)) <= 0)
		return;
	f = fopen(path, "we");
	if (!f)
		return;
	fprintf(f, "%s %.17g %.17g\n", id, a, b);
	if (fclose(f))
		unlink(path);
}

/*
 * From the unlimited run: a probe that fits takes about as long as it did
 * (@probe_s, with room), and the need is at most its peak (@hi, MiB).
 */
static void bisect_bracket(double secs, long long peak, double *probe_s,
			   long long *hi)
{
	*probe_s = 4 * secs + 4;
	if (*probe_s > 15)
		*probe_s = 15;
	/* Never so short that a probe which fits is cut off as "too small". */
	if (*probe_s < 2 * secs + 4)
		*probe_s = 2 * secs + 4;
	*hi = (peak + MIB - 1) / MIB;
	if (*hi < 4)
		*hi = 4;
}

#define REASON_SLOW \
	"this machine runs %s too slowly to bisect its need in the test's time (see the bisect line)"
#define BISECT_SLOW_FMT \
	"# bisect %s: %d probes of %.1fs (the unlimited run's) do not fit the %.0fs left\n"

/*
 * Whether the bisection between @lo and @hi MiB fits the test's budget
 * when a probe that fits takes @secs, as the unlimited run did: on a slow
 * machine (QEMU's TCG: 15-20 s for metadata, 3 s in UML) it cannot, and a
 * bisection cut short would measure nothing. Says so when it does not.
 */
static bool bisect_fits(FIXTURE_DATA(xfs) * self, const char *job, double secs,
			long long lo, long long hi)
{
	double left = self->end - fx_now() - 40;
	int probes = 0;

	for (; hi - lo > 1; lo = (lo + hi) / 2)
		probes++;
	if (probes * secs <= left)
		return true;
	printf(BISECT_SLOW_FMT, job, probes, secs, left);
	return false;
}

/*
 * What an earlier boot measured as @job's need under the same kernel
 * release and memory size, from $OOM_FIO_NEEDS (run.sh writes it from its
 * earlier consoles: "release memtotal_kb job need_mib" a line, the last
 * one counting): a guess, which measure_need() probes first and keeps only
 * if its own probes bear it out. 0 if there is none.
 */
static long long need_guess(const char *job, char *release, size_t size,
			    long long *memtotal)
{
	const char *path = getenv("OOM_FIO_NEEDS");
	char rel[128], name[128], line[512];
	long long kb, need, guess = 0;
	struct utsname u;
	FILE *f;

	*memtotal = fx_read_key("/proc/meminfo", "MemTotal:");
	snprintf(release, size, "%s", uname(&u) ? "unknown" : u.release);
	if (!path || !*path)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld %127s %lld", rel, &kb, name,
			   &need) == 4 &&
		    !strcmp(rel, release) && kb == *memtotal &&
		    !strcmp(name, job) && need > 2)
			guess = need;
	fclose(f);
	return guess;
}

/*
 * The smallest memory.max (1 MiB steps) under which the job completes,
 * by bisection between 2 MiB and the peak of an unlimited run. Returns it
 * in bytes with the largest failing limit in @below, 0 if out of time or
 * a run stalled (the result in @r), or -1 if the bisection cannot fit the
 * test's budget on this machine (said). A probe whose group thrashes is too
 * small: it ends when PSI reports it (killed as in memcg_below), else at
 * its deadline (probe_s). With a guess G from an earlier boot
 * (need_guess()), the first probes are G, then G - 1 if G fitted or G + 1
 * if not: two probes when the need is where it was, at most two more than
 * a plain bisection when it is not.
 */
#define BISECT_FMT \
	"# bisect %s: limit=%lld MiB -> exit=%d oom_kills=%lld errors=%lld secs=%.1f%s\n"
#define BISECT_GUESS_FMT \
	"# bisect %s: an earlier boot measured need=%lld MiB: probed first\n"
#define BISECT_DONE_FMT \
	"# bisect %s: measured need=%lld MiB, below=%lld MiB (release %s, MemTotal %lld kB, %d probes)\n"

static long long measure_need(struct __test_metadata *_metadata,
			      FIXTURE_DATA(xfs) * self, const char *job,
			      long long *below, struct fio_result *r)
{
	struct fio_run run = { .job = self->job,
			       .tag = "bisect",
			       .may_stall = true };
	bool psi = psi_available(), guessed;
	long long lo = 2, hi = 0, mid, guess, memtotal;
	double probe_s = FIO_DEADLINE_S, secs, peak;
	char dir[PATH_MAX], release[128];
	int n = 0, probes = 0, guesses = 0;

	guess = need_guess(job, release, sizeof(release), &memtotal);
	if (guess)
		printf(BISECT_GUESS_FMT, job, guess);
	if (note_read("unlimited", job, &peak, &secs)) {
		printf(NOTE_UNLIMITED_FMT, job, (long long)peak / 1024, secs);
		bisect_bracket(secs, peak, &probe_s, &hi);
		if (!bisect_fits(self, job, secs, lo, hi))
			return -1;
		n = 1;
	}
	for (;;) {
		guessed = n && guesses < 2 && guess > lo && guess < hi;
		mid = !n ? 0 : guessed ? guess : (lo + hi) / 2;
		guesses += guessed;
		probes += !!n;
		ASSERT_EQ(0, fx_cg_create(self->cg, mid * MIB));
		ASSERT_EQ(0, fresh_dir(self->mnt, n, dir, sizeof(dir)));
		run.dir = dir;
		run.cg = self->cg;
		/* Not the unlimited run: it must complete, whatever PSI says. */
		run.psi_kill = psi && n;
		run.deadline_s = self->end - fx_now() - 40;
		if (run.deadline_s > probe_s)
			run.deadline_s = probe_s;
		if (run.deadline_s < 5) {
			printf("# bisect: out of time at %lld..%lld MiB\n", lo,
			       hi);
			return 0;
		}
		fio_run(&run, r);
		printf(BISECT_FMT, job, mid, r->status, r->oom_kills,
		       r->total_err, r->secs,
		       r->stalled    ? " (no progress: counts as too small)" :
		       r->psi_killed ? " (thrashing, PSI: too small)" :
				       "");
		fflush(stdout);
		EXPECT_EQ(0, cgrp_destroy(self->cg, FIO_CG_DESTROY_MS));
		rm_tree(dir);
		if (!n++) {
			ASSERT_TRUE(run_fits(r))
			TH_LOG("%s fails without a limit", job);
			bisect_bracket(r->secs, r->peak, &probe_s, &hi);
			if (!bisect_fits(self, job, r->secs, lo, hi))
				return -1;
			continue;
		}
		if (run_fits(r))
			hi = mid;
		else
			lo = mid;
		if (guessed)
			guess = run_fits(r) ? mid - 1 : mid + 1;
		if (hi - lo <= 1)
			break;
	}
	printf(BISECT_DONE_FMT, job, hi, lo, release, memtotal, probes);
	*below = lo * MIB;
	return hi * MIB;
}

/* Flips one byte of the first data block of @file on the unmounted @dev. */
static int flip_data_byte(const char *dev, long long physical)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	unsigned char c;
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (pread(fd, &c, 1, physical + 100) != 1)
		ret = -EIO;
	c ^= 0xff;
	if (!ret && pwrite(fd, &c, 1, physical + 100) != 1)
		ret = -EIO;
	if (!ret && fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/* Device offset of AG 1's AGF (its second sector), from the superblock. */
static long long ag1_agf(const char *dev)
{
	unsigned char sb[512];
	long long bsize, agblocks;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (pread(fd, sb, sizeof(sb), 0) != sizeof(sb)) {
		close(fd);
		return -EIO;
	}
	close(fd);
	/* sb_blocksize at 4, sb_agblocks at 84: big-endian 32-bit. */
	bsize = (long long)sb[4] << 24 | sb[5] << 16 | sb[6] << 8 | sb[7];
	agblocks = (long long)sb[84] << 24 | sb[85] << 16 | sb[86] << 8 |
		   sb[87];
	return bsize * agblocks + 512;
}

/*
 * The first block of the first file under @dir that holds written data (an
 * extent neither unwritten nor delayed: a block fio wrote, not one its
 * fallocate() only reserved): its device offset, or -errno. Its file and
 * its offset in the file go to @path and @logical.
 */
static long long first_written(const char *dir, char *path, size_t size,
			       long long *logical)
{
	const unsigned int skip = FIEMAP_EXTENT_UNWRITTEN |
				  FIEMAP_EXTENT_DELALLOC |
				  FIEMAP_EXTENT_UNKNOWN;
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[32];
	} m;
	const struct fiemap_extent *e;
	unsigned long long start = 0;
	long long ret = -ENODATA;
	struct dirent *de;
	DIR *d = opendir(dir);
	unsigned int i;
	int fd = -1;

	while (d && (de = readdir(d)) && fd < 0) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, size, "%.3800s/%.255s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (d)
		closedir(d);
	if (fd < 0)
		return -ENOENT;
	for (;;) {
		memset(&m, 0, sizeof(m));
		m.fm.fm_start = start;
		m.fm.fm_length = FIEMAP_MAX_OFFSET - start;
		m.fm.fm_flags = FIEMAP_FLAG_SYNC;
		m.fm.fm_extent_count = FX_ARRAY_SIZE(m.ext);
		if (ioctl(fd, FS_IOC_FIEMAP, &m) || !m.fm.fm_mapped_extents)
			break;
		for (i = 0; i < m.fm.fm_mapped_extents; i++) {
			e = &m.ext[i];
			if (e->fe_flags & skip)
				continue;
			*logical = e->fe_logical;
			ret = e->fe_physical;
			break;
		}
		e = &m.ext[m.fm.fm_mapped_extents - 1];
		if (ret >= 0 || e->fe_flags & FIEMAP_EXTENT_LAST)
			break;
		start = e->fe_logical + e->fe_length;
	}
	close(fd);
	return ret;
}

/*
 * Drops the first written block of the first file under @dir, as if the
 * kernel had lost it: a hole, zeros on read, before and after the remount.
 */
static int lose_block(const char *dir)
{
	char path[PATH_MAX];
	long long logical, phys;
	int fd, ret = 0;

	phys = first_written(dir, path, sizeof(path), &logical);
	if (phys < 0)
		return phys;
	printf("# OOM_FIO_CORRUPT=lost: punching the written block at offset %lld of %s\n",
	       logical, path);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, logical,
		      4096) ||
	    fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Runs the job once under @c and checks everything the file header says.
 * OOM_FIO_CORRUPT=data flips a byte of a block fio wrote between umount and
 * mount, =meta one of AG 1's header before xfs_repair, =lost punches a
 * block fio wrote before anything is compared (data lost as zeros, that
 * only the verify after the remount can tell): the checks must then fail
 * (how the checks were shown to work).
 */
#define VERIFY_ONLY_FMT \
	"# fio %s.%s verify_only: exit=%d errors=%lld verify_fail=%ld zero_kib=%lld read_kib=%lld written_kib=%lld secs=%.2f\n"
#define VERIFY_OOM_FMT \
	"# fio %s.%s verify_only: OOM-killed in tiny memory: the read-back is not verified\n"
#define UNWRITTEN_FMT \
	"# fio %s.%s: %lld KiB read back as zeros, the blocks fio did not write; the other %lld KiB verify\n"
#define ZEROS_FMT \
	"fio wrote %lld KiB, but %lld of the %lld KiB read back after mount are zeros: acknowledged data lost"

static void fio_case(struct __test_metadata *_metadata,
		     FIXTURE_DATA(xfs) * self,
		     const FIXTURE_VARIANT(xfs) * variant, enum cond c)
{
	struct fio_run run = { .job = self->job, .tag = cond_name[c] };
	const char *corrupt = getenv("OOM_FIO_CORRUPT");
	struct digest before, after;
	long long limit = 0, need = 0, below = 0, vm_oom0 = 0, phys = -1;
	double fneed, fbelow;
	long long logical;
	struct fio_result r, v;
	char dir[PATH_MAX], file[PATH_MAX], name[16], buf[256];
	bool killed, started, aborted;
	int i, ret;

	snprintf(self->cg, sizeof(self->cg), FIO_CGROUP_ROOT "/fio_test.%d",
		 getpid());
	switch (c) {
	case NOPRESSURE:
		if (!fx_memcg_available())
			self->cg[0] = '\0';
		break;
	case MEMCG_ABOVE:
	case MEMCG_BELOW:
		if (!fx_memcg_available()) {
			self->cg[0] = '\0';
			SKIP(return, REASON_NO_MEMCG);
		}
		if (c == MEMCG_BELOW && !psi_available()) {
			self->cg[0] = '\0';
			SKIP(return, REASON_NO_PSI);
		}
		run.psi_kill = c == MEMCG_BELOW;
		if (note_read("need", variant->job, &fneed, &fbelow)) {
			need = fneed;
			below = fbelow;
			printf(NOTE_NEED_FMT, variant->job, need / MIB,
			       below / MIB);
		} else {
			need = measure_need(_metadata, self, variant->job,
					    &below, &r);
			if (need < 0)
				SKIP(return, REASON_SLOW, variant->job);
			ASSERT_NE(0, need)
			TH_LOG("no time left to measure what %s needs",
			       variant->job);
			note_write("need", variant->job, need, below);
		}
		limit = c == MEMCG_ABOVE ? need + MIB : below;
		ASSERT_EQ(0, fx_cg_create(self->cg, limit));
		break;
	case FAULTS:
		/* An unlimited group, to know when all of fio is gone. */
		if (!fx_memcg_available())
			self->cg[0] = '\0';
		if (access(FIO_DEBUGFS "/failslab/task-filter", W_OK) ||
		    access(FIO_DEBUGFS "/fail_page_alloc/task-filter", W_OK) ||
		    access("/proc/self/make-it-fail", W_OK))
			SKIP(return, REASON_NO_FAULTS);
		ASSERT_EQ(0, fx_knobs_arm(FIO_FAULT_INTERVAL));
		run.fault_interval = FIO_FAULT_INTERVAL;
		break;
	case TINYMEM:
		if (!fx_memcg_available())
			self->cg[0] = '\0';
		fx_read("/proc/meminfo", buf, sizeof(buf));
		if (strtoll(buf + strcspn(buf, "0123456789"), NULL, 10) >
		    TINYMEM_MAX_KB)
			SKIP(return, REASON_NOT_TINY, TINYMEM_MAX_KB, buf);
		vm_oom0 = fx_read_key("/proc/vmstat", "oom_kill");
		/*
		 * Global reclaim thrashes as a group's does (memcg_below):
		 * fio's unlimited group's pressure says so, and the test
		 * kills it as oomd would, instead of waiting out the
		 * deadline (a run that completes takes 3-4 s here).
		 */
		run.psi_kill = self->cg[0] && psi_available();
		break;
	}
	if (self->cg[0] && (c == NOPRESSURE || c == FAULTS || c == TINYMEM))
		ASSERT_EQ(0, fx_cg_create(self->cg, 0));
	ASSERT_EQ(0, fresh_dir(self->mnt, 99, dir, sizeof(dir)));
	run.dir = dir;
	run.cg = self->cg[0] ? self->cg : NULL;
	run.deadline_s = self->end - fx_now() - 25;
	if (run.deadline_s > FIO_DEADLINE_S)
		run.deadline_s = FIO_DEADLINE_S;
	ASSERT_LT(5, run.deadline_s) TH_LOG("no time left for the run");
	fio_run(&run, &r);
	ASSERT_EQ(0, knobs_restore());
	if (c == TINYMEM)
		r.oom_kills = fx_read_key("/proc/vmstat", "oom_kill") - vm_oom0;
	print_metrics(variant->job, c, &r, limit, need);
	if (c == NOPRESSURE && run_fits(&r) && r.peak > 0)
		note_write("unlimited", variant->job, r.peak, r.secs);
	if (run.psi_kill)
		printf("# fio %s.%s.psi: killed=%d secs=%.1f some_pct=%.0f full_pct=%.0f\n",
		       variant->job, cond_name[c], r.psi_killed,
		       r.psi_killed ? r.psi_s : 0, 100 * r.psi_some,
		       100 * r.psi_full);
	ASSERT_FALSE(r.stalled);

	/*
	 * How fio ended: completed, or OOM-killed where that may happen, or
	 * killed by the test when the group's memory pressure said it was
	 * thrashing (memcg_below, tinymem).
	 */
	killed = r.status == 128 + SIGKILL;
	if (killed) {
		EXPECT_TRUE((c == MEMCG_BELOW || c == TINYMEM) &&
			    (r.oom_kills > 0 || r.psi_killed))
		TH_LOG("fio was killed under %s (oom_kills=%lld, psi_killed=%d)",
		       cond_name[c], r.oom_kills, r.psi_killed);
	} else {
		/*
		 * A failed call may also stop fio before its job starts
		 * ("fio: 1 job failed to start", exit 128): fine when the
		 * failure was an errno the job allows (checked below).
		 */
		/*
		 * Or a job's fork failed under the injected faults or the
		 * pressure (seen: the vmalloc of its kernel stack, with
		 * "fio: vmalloc error" on the console): fio says only that
		 * the job did not start, and wrote nothing.
		 */
		started = !(r.start_failed && c != NOPRESSURE &&
			    c != MEMCG_ABOVE && !r.write_kib);
		/*
		 * Or fio aborted on its own assertion when a write to its
		 * helper pipe failed (see parse_stderr()): fio's defect, and
		 * only where allocations may fail. What it wrote is checked
		 * below all the same.
		 */
		aborted = r.pipe_abort && r.status == 128 + SIGABRT &&
			  c != NOPRESSURE && c != MEMCG_ABOVE;
		if (aborted)
			printf("# fio %s.%s: fio aborted: a write to its helper pipe failed\n",
			       variant->job, cond_name[c]);
		EXPECT_TRUE(r.status == 0 ||
			    (r.status > 0 && (r.nerr || !started)) || aborted)
		TH_LOG("fio exited with %d and no error it explained%s%s",
		       r.status, r.unknown ? "; it said: " : "",
		       r.first_unknown);
	}
	EXPECT_EQ(0, r.crash) TH_LOG("fio crashed (a worker died of a signal)");
	if (c == NOPRESSURE || c == MEMCG_ABOVE) {
		EXPECT_FALSE(killed);
		EXPECT_EQ(0, r.total_err) TH_LOG("errors without pressure");
		EXPECT_EQ(0, r.nerr);
	}
	/* Every error is ENOMEM or one the job documents. */
	for (i = 0; i < r.nerr; i++) {
		EXPECT_TRUE(r.hist[i].err > 0 &&
			    (errno_clean(self->allowed, r.hist[i].err) ||
			     (r.hist[i].err == ENOSPC &&
			      r.hist[i].n == r.sem_enospc)))
		TH_LOG("unclean errno %s from fio (%ld times): neither ENOMEM nor documented in %s",
		       r.hist[i].err < 0 ?
			       "(unparsed)" :
			       errno_name(r.hist[i].err, name, sizeof(name)),
		       r.hist[i].n, self->job);
	}
	/* fio's verify pass found what it wrote (EILSEQ would be counted above). */
	EXPECT_EQ(0, r.verify_fail) TH_LOG("fio's verify found bad blocks");
	if (!killed && r.status == 0) {
		EXPECT_TRUE(r.json_ok)
		TH_LOG("fio's JSON output is missing or cut short");
	}
	if (r.unknown)
		printf("# fio printed %ld other stderr lines (shown above)\n",
		       r.unknown);

	/* What is on disk after umount and mount is what was there before. */
	if (self->cg[0])
		EXPECT_EQ(0, cgrp_destroy(self->cg, FIO_CG_DESTROY_MS));
	if (corrupt && !strcmp(corrupt, "lost")) {
		ret = lose_block(dir);
		ASSERT_EQ(0, ret)
		TH_LOG("OOM_FIO_CORRUPT=lost: no written block: %s",
		       strerror(-ret));
	}
	ASSERT_EQ(0, digest_tree(dir, &before));
	if (corrupt && !strcmp(corrupt, "data"))
		phys = first_written(dir, file, sizeof(file), &logical);
	ASSERT_EQ(0, fx_umount(self->mnt))
	TH_LOG("umount: %s", strerror(errno));
	self->mounted = false;
	if (phys >= 0) {
		printf("# OOM_FIO_CORRUPT=data: flipping a byte at %s offset %lld\n",
		       self->dev, phys + 100);
		ASSERT_EQ(0, flip_data_byte(self->dev, phys));
	}
	ret = scratch_mount(self->dev, self->mnt, false);
	ASSERT_EQ(0, ret) TH_LOG("mount after umount: %s", strerror(-ret));
	self->mounted = true;
	ASSERT_EQ(0, digest_tree(dir, &after));
	EXPECT_EQ(0, digest_diff(&before, &after))
	TH_LOG("%d files before umount, %d after mount", before.n, after.n);
	printf("# fio %s.%s: %d files compared after remount\n", variant->job,
	       cond_name[c], before.n);
	free(before.e);
	free(after.e);

	/*
	 * fio verifies what it wrote, read from disk this time. --verify_only
	 * replays the whole job and reads every block the job would write,
	 * also those whose write failed with an errno the job accepts: fio
	 * goes on after it (continue_on_error), the block is never written
	 * and reads back as zeros ("bad magic header 0"). So a once job is
	 * verified whenever fio wrote and was not killed (a kill can come
	 * between a write and fio counting it), errors or not, with every
	 * mismatch reported (verify_all): as many KiB must read back as zeros
	 * as fio did not write (the job's size, read_kib, less the KiB fio
	 * counted written), and every other block must verify. fio's own
	 * verify pass cannot tell: it stops, silently, at the first write
	 * that failed, whose entry stays in flight in its verify list (fio's
	 * verify.c, get_next_verify(), "goto nothing"). Any other job is
	 * verified only when it ran clean.
	 */
	if (variant->verifiable && !killed && r.json_ok &&
	    (variant->once ? r.write_kib > 0 : r.status == 0 && !r.total_err)) {
		run.verify_only = true;
		run.verify_all = variant->once;
		run.cg = NULL;
		run.fault_interval = 0;
		run.tag = "verify_only";
		run.deadline_s = 30;
		if (c == TINYMEM)
			vm_oom0 = fx_read_key("/proc/vmstat", "oom_kill");
		fio_run(&run, &v);
		printf(VERIFY_ONLY_FMT, variant->job, cond_name[c], v.status,
		       v.total_err, v.verify_fail, v.zero_kib, v.read_kib,
		       r.write_kib, v.secs);
		EXPECT_FALSE(v.stalled);
		/*
		 * In tiny memory the read-back may be OOM-killed as the job
		 * may (a 32 MB guest, fio's own pages the largest): said,
		 * and nothing of it is counted. Any other kill fails.
		 */
		if (c == TINYMEM && v.status == 128 + SIGKILL &&
		    fx_read_key("/proc/vmstat", "oom_kill") > vm_oom0) {
			printf(VERIFY_OOM_FMT, variant->job, cond_name[c]);
			run.verify_only = false;
		}
	}
	if (run.verify_only) {
		EXPECT_EQ(0, v.status);
		/* Each error is a mismatch (EILSEQ), each mismatch one line. */
		EXPECT_EQ(v.verify_fail, v.total_err);
		for (i = 0; i < v.nerr; i++)
			EXPECT_EQ(EILSEQ, v.hist[i].err);
		EXPECT_EQ(v.verify_zero, v.verify_fail)
		TH_LOG("%ld blocks read back after mount with data fio did not write",
		       v.verify_fail - v.verify_zero);
	}
	/*
	 * Only a job that writes each block once can count: a mixed job
	 * lays its file out first and writes some blocks twice.
	 */
	if (run.verify_only && variant->once) {
		EXPECT_EQ(r.write_kib, v.read_kib - v.zero_kib)
		TH_LOG(ZEROS_FMT, r.write_kib, v.zero_kib, v.read_kib);
		if (v.zero_kib && v.read_kib - v.zero_kib == r.write_kib &&
		    v.verify_zero == v.verify_fail)
			printf(UNWRITTEN_FMT, variant->job, cond_name[c],
			       v.zero_kib, v.read_kib - v.zero_kib);
	}

	/* The filesystem is consistent and XFS never gave up. */
	ASSERT_EQ(0, fx_umount(self->mnt))
	TH_LOG("umount: %s", strerror(errno));
	self->mounted = false;
	if (corrupt && !strcmp(corrupt, "meta")) {
		long long agf = ag1_agf(self->dev);

		/* agf_seqno, 8 bytes into AG 1's AGF (flip_data_byte adds 100). */
		printf("# OOM_FIO_CORRUPT=meta: flipping a byte of AG 1's AGF at %lld\n",
		       agf + 8);
		ASSERT_LT(0, agf);
		ASSERT_EQ(0, flip_data_byte(self->dev, agf + 8 - 100));
	}
	EXPECT_EQ(0, fx_repair_check(self->dev))
	TH_LOG("xfs_repair -n found damage");
	EXPECT_EQ(0, fx_kmsg_scan(self->kmsg, xfs_trouble, "kernel"))
	TH_LOG("XFS shut down or found corruption");
}

/* Baseline: no pressure; everything must simply work. */
TEST_F_TIMEOUT(xfs, nopressure, TEST_BUDGET_S + 20)
{
	fio_case(_metadata, self, variant, NOPRESSURE);
}

/* Just enough memory: the job must complete, under reclaim. */
TEST_F_TIMEOUT(xfs, memcg_above, TEST_BUDGET_S + 20)
{
	fio_case(_metadata, self, variant, MEMCG_ABOVE);
}

/* Just too little: fio may be OOM-killed or see ENOMEM, nothing worse. */
TEST_F_TIMEOUT(xfs, memcg_below, TEST_BUDGET_S + 20)
{
	fio_case(_metadata, self, variant, MEMCG_BELOW);
}

/* Allocations of fio's tasks fail at random: clean errnos only. */
TEST_F_TIMEOUT(xfs, faults, TEST_BUDGET_S + 20)
{
	fio_case(_metadata, self, variant, FAULTS);
}

/* A machine with little memory, no cgroup: global reclaim and OOM. */
TEST_F_TIMEOUT(xfs, tinymem, TEST_BUDGET_S + 20)
{
	fio_case(_metadata, self, variant, TINYMEM);
}

/* ------------------------------------------------- power cut, replay ---- */

#define REPLAY_BLOCKS 4096 /* 16 MiB of 4 KiB blocks, each written once */
#define REPLAY_BS 4096
#define REPLAY_GROUP 8 /* writes per fsync */
#define REPLAY_MAGIC 0x746f6f736d616c6cULL
#define REPLAY_STATE "fio_replay.log"
#define REPLAY_KILL_AFTER 256 /* acknowledged blocks before the power cut */
#define REPLAY_KILL_WAIT_S 20

/* One block: a header and a payload that only its sequence number makes. */
struct replay_hdr {
	uint64_t magic, seq, offset, sum;
};

static void replay_fill(unsigned char *buf, uint64_t seq, uint64_t offset)
{
	struct replay_hdr *h = (struct replay_hdr *)buf;
	uint64_t x = seq * 0x9e3779b97f4a7c15ULL + 1;
	size_t i;

	for (i = sizeof(*h); i < REPLAY_BS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = x;
	}
	h->magic = REPLAY_MAGIC;
	h->seq = seq;
	h->offset = offset;
	h->sum = fnv1a(FNV1A_INIT, buf + sizeof(*h), REPLAY_BS - sizeof(*h));
}

/* Whether @buf is the block written with @seq at @offset. */
static bool replay_good(const unsigned char *buf, uint64_t seq, uint64_t offset)
{
	static unsigned char want[REPLAY_BS];

	replay_fill(want, seq, offset);
	return !memcmp(buf, want, REPLAY_BS);
}

/* Records shared by the writer (child) and the recorder (the test). */
struct replay_shared {
	uint64_t acked; /* blocks acknowledged so far */
	uint64_t offset[REPLAY_BLOCKS];
	uint64_t errors, enomem;
};

FIXTURE(replay)
{
	const char *dev;
	char mnt[64];
	char state[PATH_MAX];
	bool mounted;
	int kmsg;
};

FIXTURE_SETUP(replay)
{
	const char *why = common_skip(&self->dev);
	const char *dir = getenv("OOM_STATE_DIR");

	self->kmsg = -1;
	if (why)
		SKIP(return, "%s", why);
	if (!dir || !*dir)
		SKIP(return, REASON_NO_STATE_DIR);
	snprintf(self->state, sizeof(self->state), "%s/" REPLAY_STATE, dir);
	ASSERT_EQ(0, private_ns());
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/fio_replay.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	self->kmsg = fx_kmsg_open();
}

FIXTURE_TEARDOWN(replay)
{
	EXPECT_EQ(0, knobs_restore());
	if (self->mounted)
		umount2(self->mnt, MNT_DETACH);
	if (self->mnt[0])
		rmdir(self->mnt);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

static void replay_error(struct replay_shared *sh, int err)
{
	__atomic_add_fetch(&sh->errors, 1, __ATOMIC_RELAXED);
	if (err == ENOMEM)
		__atomic_add_fetch(&sh->enomem, 1, __ATOMIC_RELAXED);
}

/*
 * The writer: each block once, in a scrambled order, REPLAY_GROUP writes
 * then fsync; a block is acknowledged when its pwrite() wrote it whole and
 * the fsync() after it returned 0. Only then is it published.
 */
static void replay_writer(const char *path, struct replay_shared *sh,
			  bool faults)
{
	static unsigned char buf[REPLAY_BS];
	uint64_t pending[REPLAY_GROUP], i, blk, acked = 0;
	int fd, n = 0, j;

	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		_exit(1);
	if (faults)
		write_file("/proc/self/make-it-fail", "1");
	for (i = 0; i < REPLAY_BLOCKS; i++) {
		blk = (i * 2654435761ULL) % REPLAY_BLOCKS; /* a permutation */
		replay_fill(buf, blk + 1, blk * REPLAY_BS);
		if (pwrite(fd, buf, REPLAY_BS, blk * REPLAY_BS) == REPLAY_BS)
			pending[n++] = blk * REPLAY_BS;
		else
			replay_error(sh, errno);
		if (n < REPLAY_GROUP && i + 1 < REPLAY_BLOCKS)
			continue;
		if (fsync(fd)) {
			replay_error(sh, errno);
		} else {
			for (j = 0; j < n; j++)
				sh->offset[acked + j] = pending[j];
			acked += n;
			/* Published after the offsets it covers. */
			__atomic_store_n(&sh->acked, acked, __ATOMIC_RELEASE);
		}
		n = 0;
	}
	write_file("/proc/self/make-it-fail", "0");
	close(fd);
	_exit(0);
}

/* Appends records [*done, acked) to the state file, durably. */
static int replay_record(int sfd, struct replay_shared *sh, uint64_t *done)
{
	char line[64];
	uint64_t acked = __atomic_load_n(&sh->acked, __ATOMIC_ACQUIRE);

	for (; *done < acked; (*done)++) {
		int len = snprintf(line, sizeof(line), "block %llu\n",
				   (unsigned long long)sh->offset[*done]);

		if (write(sfd, line, len) != len)
			return -EIO;
	}
	return fsync(sfd) ? -errno : 0;
}

/*
 * Power cut: blocks acknowledged while one allocation in 50 of the writer
 * fails are recorded on the host; then the machine is killed mid-stream
 * (TOOSMALL:KILL). fio.replay.check verifies them on the next boot.
 */
#define POWER_CUT_FMT \
	"# replay: %llu blocks acknowledged and recorded, %llu errors (ENOMEM:%llu), faults=%d: power cut now\n"
#define NO_POWER_CUT_FMT \
	"# replay: no power cut within %ds: unmounted cleanly instead, %llu blocks recorded\n"

TEST_F_TIMEOUT(replay, write, 90)
{
	struct replay_shared *sh;
	char path[PATH_MAX];
	uint64_t done = 0;
	bool faults, killed_asked = false;
	double end = fx_now() + 60;
	int sfd, status, ret;
	pid_t pid;

	ret = scratch_mount(self->dev, self->mnt, true);
	ASSERT_EQ(0, ret)
	TH_LOG("mkfs.xfs and mount %s: %s", self->dev, strerror(-ret));
	self->mounted = true;
	sfd = open(self->state, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	ASSERT_LE(0, sfd) TH_LOG("%s: %s", self->state, strerror(errno));
	dprintf(sfd, "fio_replay v1 bs=%d\n", REPLAY_BS);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	faults = !access(FIO_DEBUGFS "/failslab/task-filter", W_OK) &&
		 !fx_knobs_arm(FIO_FAULT_INTERVAL);
	snprintf(path, sizeof(path), "%s/replay.dat", self->mnt);
	pid = fork_bound();
	ASSERT_LE(0, pid);
	if (!pid)
		replay_writer(path, sh, faults);
	while (fx_now() < end) {
		ASSERT_EQ(0, replay_record(sfd, sh, &done));
		if (!killed_asked && (done >= REPLAY_KILL_AFTER ||
				      waitpid(pid, &status, WNOHANG) == pid)) {
			unsigned long long errors, enomem;

			errors = __atomic_load_n(&sh->errors, __ATOMIC_RELAXED);
			enomem = __atomic_load_n(&sh->enomem, __ATOMIC_RELAXED);
			printf(POWER_CUT_FMT, (unsigned long long)done, errors,
			       enomem, faults);
			printf("TOOSMALL:KILL\n");
			fflush(stdout);
			killed_asked = true;
			end = fx_now() + REPLAY_KILL_WAIT_S;
		}
		usleep(2000);
	}
	/* No power cut came (a runner without it): end like a clean unmount. */
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, knobs_restore());
	ASSERT_EQ(0, replay_record(sfd, sh, &done));
	ASSERT_EQ(0, fx_umount(self->mnt))
	TH_LOG("umount: %s", strerror(errno));
	self->mounted = false;
	dprintf(sfd, "unmounted\n");
	fsync(sfd);
	close(sfd);
	printf(NO_POWER_CUT_FMT, REPLAY_KILL_WAIT_S, (unsigned long long)done);
}

/*
 * After the power cut: mount (XFS replays its log), then every recorded
 * block reads back whole; xfs_repair -n is clean and XFS never complained.
 */
#define LOST_FMT \
	"# lost: acknowledged block at offset %llu does not read back (seq %llu in it, magic %s)\n"

TEST_F_TIMEOUT(replay, check, 90)
{
	static unsigned char buf[REPLAY_BS];
	const struct replay_hdr *hdr = (const struct replay_hdr *)buf;
	char line[128], path[PATH_MAX], done_path[PATH_MAX + 8];
	static const char *const recovery[] = { "Starting recovery", NULL };
	unsigned long long off;
	long checked = 0, lost = 0;
	bool clean = false;
	int fd, ret, replayed;
	FILE *f;

	f = fopen(self->state, "re");
	if (!f) {
		const char *fmt =
			"no %.900s: run fio.replay.write first, in the same run";

		SKIP(return, fmt, self->state);
	}
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	ASSERT_EQ(0, strncmp(line, "fio_replay v1", 13));
	ret = scratch_mount(self->dev, self->mnt, false);
	ASSERT_EQ(0, ret)
	TH_LOG("mount %s after the power cut: %s", self->dev, strerror(-ret));
	self->mounted = true;
	replayed = fx_kmsg_scan(self->kmsg, recovery, "kernel");
	snprintf(path, sizeof(path), "%s/replay.dat", self->mnt);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "unmounted\n")) {
			clean = true;
			continue;
		}
		if (sscanf(line, "block %llu", &off) != 1)
			continue;
		checked++;
		if (pread(fd, buf, REPLAY_BS, off) == REPLAY_BS &&
		    replay_good(buf, off / REPLAY_BS + 1, off))
			continue;
		if (lost++ < 10)
			printf(LOST_FMT, off, (unsigned long long)hdr->seq,
			       hdr->magic == REPLAY_MAGIC ? "ok" : "bad");
	}
	fclose(f);
	close(fd);
	printf("# fio replay: acked=%ld lost=%ld recovery=%d clean_unmount=%d\n",
	       checked, lost, replayed > 0, clean);
	EXPECT_EQ(0, lost)
	TH_LOG("acknowledged data lost after %s",
	       clean ? "a clean unmount" : "the power cut");
	EXPECT_LT(0, checked) TH_LOG("nothing was recorded");
	ASSERT_EQ(0, fx_umount(self->mnt))
	TH_LOG("umount: %s", strerror(errno));
	self->mounted = false;
	EXPECT_EQ(0, fx_repair_check(self->dev))
	TH_LOG("xfs_repair -n found damage");
	EXPECT_EQ(0, fx_kmsg_scan(self->kmsg, xfs_trouble, "kernel"));
	/* Checked once: a later run must not check a new disk against it. */
	snprintf(done_path, sizeof(done_path), "%s.done", self->state);
	rename(self->state, done_path);
}

TEST_HARNESS_MAIN
