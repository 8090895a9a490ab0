/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the oom selftests share beyond cgroups (cgroup.h) and stall
 * detection (stall.h): a command run with a deadline, and the scratch XFS
 * made with it. None of them asserts or exits.
 */
#ifndef OOM_UTIL_H
#define OOM_UTIL_H

/*
 * Runs @argv with stdout and stderr on /dev/null, killed after @timeout_s:
 * its exit status, 127 if it could not be run, 128 if a signal ended it,
 * -ETIMEDOUT, or -errno.
 */
int run_cmd(char *const argv[], int timeout_s);

/* mkfs.xfs -f -q @dev, as run_cmd() returns it. */
int mkfs_xfs(const char *dev);

#endif /* OOM_UTIL_H */
