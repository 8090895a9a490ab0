// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers the oom selftests share; see util.h.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int run_cmd(char *const argv[], int timeout_s)
{
	struct timespec nap = { .tv_nsec = 10 * 1000 * 1000 };
	int status, i, null;
	pid_t pid, got;

	/* What stdio holds would otherwise be written twice. */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	for (i = 0; i < timeout_s * 100; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		if (got < 0)
			return -errno;
		nanosleep(&nap, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -ETIMEDOUT;
}

int mkfs_xfs(const char *dev)
{
	char *const argv[] = { "mkfs.xfs", "-f", "-q", (char *)dev, NULL };

	return run_cmd(argv, 30);
}
