// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers the oom selftests share; see util.h.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "util.h"

ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

FILE *fdinfo_open(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return fopen(path, "re");
}

int write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	ret = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return ret;
}

int run_cmd_out(char *const argv[], const char *out, int timeout_s)
{
	struct timespec nap = { .tv_nsec = 10 * 1000 * 1000 };
	int status, i, fd;
	pid_t pid, got;

	/* What stdio holds would otherwise be written twice. */
	fflush(NULL);
	pid = fork_bound();
	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open(out ? out : "/dev/null",
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	for (i = 0; i < timeout_s * 100; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		if (got < 0)
			return -errno;
		nanosleep(&nap, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -ETIMEDOUT;
}

int run_cmd(char *const argv[], int timeout_s)
{
	return run_cmd_out(argv, NULL, timeout_s);
}

/* Bounds on the knobs changed at once, their paths and their values. */
#define KNOBS_MAX 32
#define KNOB_PATH_MAX 128
#define KNOB_VAL_MAX 32

/*
 * The knobs changed, in the order knob_set() changed them, with what they
 * held before. Static, so that the exit and signal paths can reach them.
 */
static struct {
	char path[KNOBS_MAX][KNOB_PATH_MAX];
	char old[KNOBS_MAX][KNOB_VAL_MAX];
	int nr;
	/* The process that changed them. */
	pid_t owner;
} knobs;

int knobs_restore(void)
{
	int err = 0, ret;

	if (!knobs.nr || getpid() != knobs.owner)
		return 0;
	while (knobs.nr > 0) {
		int i = knobs.nr - 1;

		ret = write_file(knobs.path[i], knobs.old[i]);
		if (ret && !err)
			err = ret;
		knobs.nr = i;
	}
	return err;
}

int knobs_changed(void)
{
	return getpid() == knobs.owner ? knobs.nr : 0;
}

static void knobs_atexit(void)
{
	knobs_restore();
}

/*
 * The process that runs the tests: the kselftest harness's main process. It
 * forks each test into a process group of its own, and at the test's
 * timeout SIGKILLs that group. But when main itself is ended, by the
 * SIGTERM of runner.sh's timeout at the program's deadline (settings), the
 * test it runs gets no signal: in a group of its own it would sweep on,
 * knobs set, beside the next program.
 */
static pid_t tests_runner;

/* The number @s spells up to @end, or -1 if it is none. Async-signal-safe. */
static pid_t pid_parse(const char *s, char end)
{
	pid_t pid = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		pid = pid * 10 + (*s - '0');
	return *s == end ? pid : -1;
}

/* The parent of @pid, from /proc/@pid/stat, or -1. Async-signal-safe. */
static pid_t proc_ppid(const char *pid)
{
	char path[64] = "/proc/", stat[512];
	const char *p;
	size_t len = strlen(pid);

	if (len > sizeof(path) - sizeof("/proc//stat"))
		return -1;
	memcpy(path + 6, pid, len);
	memcpy(path + 6 + len, "/stat", sizeof("/stat"));
	if (read_file(path, stat, sizeof(stat)) <= 0)
		return -1;
	/* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
	p = strrchr(stat, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	return pid_parse(p + 4, ' ');
}

/*
 * SIGKILLs the process group of each child of this process, and the child,
 * as the harness's timeout kills a test. Async-signal-safe: a raw
 * getdents64() of /proc, open() and read().
 */
static void kill_child_groups(void)
{
	/* Aligned for struct dirent64. */
	uint64_t buf[256];
	pid_t me = getpid();
	long n, off;
	int dir;

	dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			struct dirent64 *d = (void *)((char *)buf + off);
			pid_t pid = pid_parse(d->d_name, '\0');

			off += d->d_reclen;
			if (pid <= 0 || proc_ppid(d->d_name) != me)
				continue;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
	}
	close(dir);
}

/* Ends the running tests (in main), puts the knobs back, dies of @sig. */
static void on_fatal_signal(int sig)
{
	/* First the tests, or one could set a knob again after this. */
	if (getpid() == tests_runner)
		kill_child_groups();
	knobs_restore();
	/* SA_RESETHAND: this delivers the default action. */
	raise(sig);
}

/*
 * Installs the exit and fatal-signal restorers, once per process. They
 * matter: after a failed ASSERT in a TEST_F body, the 6.12
 * kselftest_harness.h built with -O2 skips the teardown and abort()s (its
 * "child" is not volatile across the longjmp()).
 */
static int knobs_guard(void)
{
	static const int fatal[] = { SIGABRT, SIGBUS, SIGSEGV, SIGTERM };
	static bool guarded;
	struct sigaction sa = {
		.sa_handler = on_fatal_signal,
		.sa_flags = SA_RESETHAND,
	};
	size_t i;

	if (guarded)
		return 0;
	if (atexit(knobs_atexit))
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(fatal); i++)
		if (sigaction(fatal[i], &sa, NULL))
			return -errno;
	guarded = true;
	return 0;
}

/*
 * In every program, before the harness's main(): its process is the tests'
 * runner, which, ended by a fatal signal, first ends the test it runs
 * (kill_child_groups()).
 */
static void __attribute__((constructor)) tests_runner_guard(void)
{
	tests_runner = getpid();
	knobs_guard();
}

/* Saves what the knob at @path holds for knobs_restore(): 0 or -errno. */
static int knob_save(const char *path)
{
	int i, err;
	ssize_t len;

	/* A child forked after its parent changed knobs has none changed. */
	if (getpid() != knobs.owner)
		knobs.nr = 0;
	if (knobs.nr == KNOBS_MAX)
		return -ENOSPC;
	if (strlen(path) >= KNOB_PATH_MAX)
		return -ENAMETOOLONG;
	err = knobs_guard();
	if (err)
		return err;
	i = knobs.nr;
	len = read_file(path, knobs.old[i], KNOB_VAL_MAX);
	if (len < 0)
		return len;
	/* Empty, or perhaps cut short: it could not be put back. */
	if (!len || len == KNOB_VAL_MAX - 1)
		return len ? -EOVERFLOW : -ENODATA;
	knobs.old[i][strcspn(knobs.old[i], "\n")] = '\0';
	/* Fits: its length was checked above. */
	memcpy(knobs.path[i], path, strlen(path) + 1);
	knobs.owner = getpid();
	knobs.nr = i + 1;
	return 0;
}

int knob_set(const char *path, const char *val)
{
	int err = knob_save(path);

	return err ? err : write_file(path, val);
}

int knobs_keep(const char *const paths[], size_t n)
{
	int err = 0, ret;
	size_t i;

	for (i = 0; i < n; i++) {
		ret = knob_save(paths[i]);
		if (ret && !err)
			err = ret;
	}
	return err;
}

void bind_to_parent(pid_t parent)
{
	/* Unbound, it could outlive the test: as if the signal had come. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		raise(SIGKILL);
}

pid_t fork_bound(void)
{
	pid_t parent = getpid(), pid = fork();

	if (!pid)
		bind_to_parent(parent);
	return pid;
}

int mkfs_xfs(const char *dev)
{
	char *const argv[] = { "mkfs.xfs", "-f", "-q", (char *)dev, NULL };

	return run_cmd(argv, 30);
}

void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

bool fd_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & (POLLIN | POLLERR));
}

/* clang-format off */
#define ERRNO_NAME(e) { e, #e }
const struct errno_name errno_names[] = {
	ERRNO_NAME(EPERM), ERRNO_NAME(ENOENT), ERRNO_NAME(EINTR),
	ERRNO_NAME(EIO), ERRNO_NAME(E2BIG), ERRNO_NAME(ENOEXEC),
	ERRNO_NAME(EBADF), ERRNO_NAME(EAGAIN), ERRNO_NAME(ENOMEM),
	ERRNO_NAME(EACCES), ERRNO_NAME(EFAULT), ERRNO_NAME(EBUSY),
	ERRNO_NAME(EEXIST), ERRNO_NAME(ENODEV), ERRNO_NAME(ENOTDIR),
	ERRNO_NAME(EISDIR), ERRNO_NAME(EINVAL), ERRNO_NAME(ENFILE),
	ERRNO_NAME(EMFILE), ERRNO_NAME(EFBIG), ERRNO_NAME(ENOSPC),
	ERRNO_NAME(EROFS), ERRNO_NAME(ERANGE), ERRNO_NAME(ENAMETOOLONG),
	ERRNO_NAME(ENOLCK), ERRNO_NAME(ENOSYS), ERRNO_NAME(ENOTEMPTY),
	ERRNO_NAME(ENOMSG), ERRNO_NAME(ENODATA), ERRNO_NAME(ETIME),
	ERRNO_NAME(ENXIO), ERRNO_NAME(EOVERFLOW), ERRNO_NAME(ELIBBAD),
	ERRNO_NAME(EILSEQ), ERRNO_NAME(EOPNOTSUPP), ERRNO_NAME(EAFNOSUPPORT),
	ERRNO_NAME(EADDRNOTAVAIL), ERRNO_NAME(ENOBUFS), ERRNO_NAME(ETIMEDOUT),
	ERRNO_NAME(ESTALE), ERRNO_NAME(EDQUOT), ERRNO_NAME(EUCLEAN),
	ERRNO_NAME(ESRCH), ERRNO_NAME(EXDEV), ERRNO_NAME(EPIPE),
	ERRNO_NAME(EBADFD), ERRNO_NAME(EMSGSIZE), ERRNO_NAME(EPROTONOSUPPORT),
	ERRNO_NAME(ENOTCONN), ERRNO_NAME(ECONNRESET), ERRNO_NAME(ECONNREFUSED),
	ERRNO_NAME(EINPROGRESS), ERRNO_NAME(EALREADY), ERRNO_NAME(ECANCELED),
	ERRNO_NAME(ENOKEY), ERRNO_NAME(EKEYREJECTED),
};

#undef ERRNO_NAME
/* clang-format on */

const size_t nr_errno_names = ARRAY_SIZE(errno_names);

const char *errno_name(int err, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < nr_errno_names; i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, size, "errno%d", err);
	return buf;
}

int errno_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < nr_errno_names; i++)
		if (!strcmp(errno_names[i].name, name))
			return errno_names[i].err;
	return 0;
}

int private_mounts(char *why, size_t size)
{
	if (unshare(CLONE_NEWNS)) {
		snprintf(why, size, "cannot unshare the mount namespace: %s",
			 strerror(errno));
		return 1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(why, size, "making / private: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int private_tmpfs(const char *dir, const char *opts, char *why, size_t size)
{
	int ret = private_mounts(why, size);

	if (ret || !mount("failnth", dir, "tmpfs", 0, opts))
		return ret;
	ret = errno;
	snprintf(why, size, "mounting a tmpfs on %s: %s", dir, strerror(ret));
	if (ret == EPERM)
		snprintf(why, size, "mounting a tmpfs is not permitted here");
	return ret == EPERM ? 1 : -1;
}

int xfs_mount_fresh(const char *dev, const char *dir, char *why, size_t size)
{
	int ret = mkfs_xfs(dev);

	if (ret == 127) {
		snprintf(why, size, "mkfs.xfs not found: install xfsprogs");
		return 1;
	}
	if (ret) {
		snprintf(why, size, "mkfs.xfs -f %s: %d", dev, ret);
		return -1;
	}
	if (!mount(dev, dir, "xfs", 0, NULL))
		return 0;
	ret = errno;
	if (ret == ENODEV) {
		snprintf(why, size, "no XFS: CONFIG_XFS_FS");
		return 1;
	}
	snprintf(why, size, "mounting %s: %s", dev, strerror(ret));
	return -1;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	return remove(path) ? -1 : 0;
}

int dir_usable(const char *dir)
{
	char path[4096], buf[3] = "";
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/.usable", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (pwrite(fd, "ok", 2, 0) != 2 || pread(fd, buf, 2, 0) != 2)
		err = errno ? -errno : -EIO;
	else if (strcmp(buf, "ok"))
		err = -EIO;
	close(fd);
	if (unlink(path) && !err)
		err = -errno;
	return err;
}

int quota_on(const char *dir)
{
	struct if_dqinfo info;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = syscall(__NR_quotactl_fd, fd, QCMD(Q_GETINFO, USRQUOTA), 0,
		      &info) ?
		      -errno :
		      0;
	close(fd);
	return err;
}

bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, prog);
		if (!access(buf, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

int dir_names(const char *dir, const char *skip, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t len = 0;
	int nr = 0, n;

	buf[0] = '\0';
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (skip && !strcmp(de->d_name, skip)))
			continue;
		n = snprintf(buf + len, size - len, " %.32s", de->d_name);
		if (n > 0 && len + n < size)
			len += n;
		else
			buf[len] = '\0';
		nr++;
	}
	closedir(d);
	return nr;
}

int rm_tree(const char *root)
{
	struct stat st;

	if (lstat(root, &st))
		return errno == ENOENT ? 0 : -errno;
	/* Depth first: a directory goes once it is empty. */
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}

uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}
