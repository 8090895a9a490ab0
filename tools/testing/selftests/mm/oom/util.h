/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the oom selftests share beyond cgroups (cgroup.h) and stall
 * detection (stall.h): reading and writing a small file (procfs, sysfs,
 * debugfs, cgroupfs), fault-injection knobs set and put back, closing an
 * fd, errno names, a command run with a deadline, a mount namespace of the
 * caller's own (with a tmpfs), and the scratch XFS made with it. None of
 * them asserts or exits.
 */
#ifndef OOM_UTIL_H
#define OOM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Runs @argv with stdout and stderr into the file @out (created or
 * emptied), killed after @timeout_s: its exit status, 126 if @out could
 * not be opened, 127 if @argv could not be run, 128 plus the signal that
 * ended it, -ETIMEDOUT, or -errno.
 */
int run_cmd_out(char *const argv[], const char *out, int timeout_s);

/* run_cmd_out() with the output on /dev/null. */
int run_cmd(char *const argv[], int timeout_s);

/*
 * Reads @path into @buf, NUL-terminated, at most @size - 1 bytes: the
 * length read, or -errno.
 */
ssize_t read_file(const char *path, char *buf, size_t size);

/* /proc/self/fdinfo/@fd opened to read, or NULL with errno set. */
FILE *fdinfo_open(int fd);

/*
 * Writes @val to @path (opened O_TRUNC, as a shell's "echo >" does: it
 * empties a tracefs buffer) in one write(): 0, -EIO if it was short, or
 * -errno. Async-signal-safe.
 */
int write_file(const char *path, const char *val);

/*
 * Writes @val to the knob at @path (a debugfs, procfs or sysfs file) after
 * saving what it held, for knobs_restore(): 0 or -errno. A knob set twice
 * is saved twice, and so gets its first value back. The first call also
 * makes exit and the fatal signals (SIGABRT, SIGBUS, SIGSEGV, SIGTERM)
 * restore the knobs, so that neither a failed ASSERT nor a kill leaves
 * fault injection armed for the next test.
 */
int knob_set(const char *path, const char *val);

/*
 * Puts back every knob knob_set() changed, last first: 0, or the first
 * -errno. A no-op when none is changed, and in a child forked after they
 * were: only the process that set them puts them back. Async-signal-safe.
 */
int knobs_restore(void);

/*
 * Saves the knobs at @paths as they are, for knobs_restore(), which exit and
 * the fatal signals then call, as after knob_set(). A process that runs
 * tests in its children keeps the knobs they set so: a child killed by
 * SIGKILL cannot put them back (the kselftest harness's per-test timeout
 * kills so), its parent does when it ends. Saves those it can read; 0 or
 * the first -errno.
 *
 * Every program's main process (a constructor in util.c) also ends the test
 * it runs, by SIGKILL to the test's process group as the harness's timeout
 * does, when a fatal signal ends main: runner.sh's timeout sends SIGTERM
 * to main alone, and the test, in a group of its own, would run on.
 */
int knobs_keep(const char *const paths[], size_t n);

/* How many knobs are changed and not yet put back. */
int knobs_changed(void);

/*
 * In a child just forked or cloned by @parent: makes it die by SIGKILL when
 * the thread of @parent that forked it ends (PR_SET_PDEATHSIG), and now if
 * @parent has already ended, which the prctl() alone misses: a child left
 * so would run on, or stay stopped, holding the test's mounts.
 */
void bind_to_parent(pid_t parent);

/* fork(), its child bound to this process with bind_to_parent(). */
pid_t fork_bound(void);

/* mkfs.xfs -f -q @dev, as run_cmd() returns it. */
int mkfs_xfs(const char *dev);

/* Closes *@fd unless it is -1, and makes it -1. */
void close_fd(int *fd);

/* Whether @fd has something to read, or an error to report, within @ms. */
bool fd_readable(int fd, int ms);

/* An errno and its symbolic name ("ENOMEM"). */
struct errno_name {
	int err;
	const char *name;
};

/* The errnos the selftests name, nr_errno_names of them. */
extern const struct errno_name errno_names[];
extern const size_t nr_errno_names;

/* The symbolic name of @err, or "errno<err>" in @buf. */
const char *errno_name(int err, char *buf, size_t size);

/* The errno whose symbolic name is @name, or 0. */
int errno_by_name(const char *name);

/*
 * A mount namespace of the caller's own, / made private in it, so that what
 * the caller mounts is seen by no other task and goes with the namespace:
 * 0; 1 when the namespace cannot be had here (no CONFIG_NAMESPACES, no
 * privilege), a reason to skip; -1 when it failed. Either way @why says
 * what.
 */
int private_mounts(char *why, size_t size);

/* private_mounts(), then a tmpfs with @opts on @dir; returns as it does. */
int private_tmpfs(const char *dir, const char *opts, char *why, size_t size);

/*
 * A fresh XFS on @dev (mkfs_xfs()), mounted on @dir: 0; 1 when a part is
 * missing (mkfs.xfs, CONFIG_XFS_FS), a reason to skip; -1 when it failed.
 * Either way @why says what.
 */
int xfs_mount_fresh(const char *dev, const char *dir, char *why, size_t size);

/*
 * Whether a new file in @dir can be written, read back and removed: 0, -EIO
 * if it read back other bytes, or -errno.
 */
int dir_usable(const char *dir);

/* Whether the filesystem of @dir has user quotas on: 0, or -errno. */
int quota_on(const char *dir);

/* Whether @prog is an executable file in $PATH. */
bool in_path(const char *prog);

/*
 * The names in @dir but ".", ".." and @skip (NULL: none), in @buf for a
 * message (those that fit): how many, or -errno.
 */
int dir_names(const char *dir, const char *skip, char *buf, size_t size);

/* Removes @root and all below it: 0 once it is gone (or was), or -errno. */
int rm_tree(const char *root);

/* FNV-1a over @len bytes of @buf, from @h (FNV1A_INIT to begin). */
#define FNV1A_INIT 0xcbf29ce484222325ULL
uint64_t fnv1a(uint64_t h, const void *buf, size_t len);

#endif /* OOM_UTIL_H */
