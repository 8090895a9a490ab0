// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 helpers; see cgroup.h. Each returns 0 (or a count), else -errno.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "util.h"

/* How often the bounded waits look again. */
#define CG_POLL_MS 10

long long cgrp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void cgrp_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cgrp_find_root(char *root, size_t size)
{
	char dev[64], dir[PATH_MAX], type[64];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%63s %4095s %63s %*[^\n]\n", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2"))
			continue;
		if (strlen(dir) >= size) {
			ret = -ENAMETOOLONG;
			break;
		}
		snprintf(root, size, "%s", dir);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* @cg/@file into @path. */
static int cgrp_file(char *path, size_t size, const char *cg, const char *file)
{
	if ((size_t)snprintf(path, size, "%s/%s", cg, file) >= size)
		return -ENAMETOOLONG;
	return 0;
}

int cgrp_create(char *path, size_t size, const char *parent, const char *name)
{
	int ret = cgrp_file(path, size, parent, name);

	if (ret)
		return ret;
	return mkdir(path, 0755) ? -errno : 0;
}

int cgrp_write(const char *cg, const char *file, const char *val)
{
	char path[CG_PATH_MAX];
	int ret;

	ret = cgrp_file(path, sizeof(path), cg, file);
	return ret ? ret : write_file(path, val);
}

int cgrp_write_long(const char *cg, const char *file, long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", val);
	return cgrp_write(cg, file, buf);
}

ssize_t cgrp_read(const char *cg, const char *file, char *buf, size_t size)
{
	char path[CG_PATH_MAX];
	int ret;

	ret = cgrp_file(path, sizeof(path), cg, file);
	return ret ? ret : read_file(path, buf, size);
}

/* "max" or a decimal number into @val. */
static int cgrp_parse_value(const char *s, long long *val)
{
	char *end;

	if (!strncmp(s, "max", 3)) {
		*val = LLONG_MAX;
		return 0;
	}
	errno = 0;
	*val = strtoll(s, &end, 10);
	if (errno)
		return -errno;
	return end == s ? -EINVAL : 0;
}

int cgrp_read_key(const char *cg, const char *file, const char *key,
		  long long *val)
{
	size_t klen = strlen(key);
	char buf[8192], *line;
	ssize_t n;

	n = cgrp_read(cg, file, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return cgrp_parse_value(line + klen + 1, val);
	}
	return -ENOENT;
}

int cgrp_read_long(const char *cg, const char *file, long long *val)
{
	char buf[64];
	ssize_t n;

	n = cgrp_read(cg, file, buf, sizeof(buf));
	if (n < 0)
		return n;
	return cgrp_parse_value(buf, val);
}

int cgrp_has_controller(const char *cg, const char *ctrl)
{
	size_t clen = strlen(ctrl);
	char buf[512], *p;
	ssize_t n;

	n = cgrp_read(cg, "cgroup.controllers", buf, sizeof(buf));
	if (n < 0)
		return n;
	for (p = strstr(buf, ctrl); p; p = strstr(p + 1, ctrl))
		if ((p == buf || p[-1] == ' ') &&
		    (p[clen] == ' ' || p[clen] == '\n' || !p[clen]))
			return 1;
	return 0;
}

int cgrp_enter(const char *cg, pid_t pid)
{
	return cgrp_write_long(cg, "cgroup.procs", pid);
}

pid_t cgrp_spawn(const char *cg, int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork_bound();
	if (pid < 0)
		return -errno;
	if (pid)
		return pid;
	if (cg && cgrp_enter(cg, 0))
		_exit(CG_SPAWN_ENTER_FAILED);
	_exit(fn(arg) & 0xff);
}

int cgrp_wait_pid(pid_t pid, int *status, long timeout_ms)
{
	long long deadline = cgrp_now_ms() + timeout_ms;
	pid_t ret;

	for (;;) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret == pid)
			return 0;
		if (cgrp_now_ms() >= deadline)
			return -ETIMEDOUT;
		cgrp_sleep_ms(CG_POLL_MS);
	}
}

int cgrp_run(const char *cg, int (*fn)(void *arg), void *arg, long timeout_ms,
	     int *status)
{
	pid_t pid = cgrp_spawn(cg, fn, arg);

	if (pid < 0)
		return pid;
	return cgrp_wait_pid(pid, status, timeout_ms);
}

int cgrp_pids(const char *cg, pid_t *pids, int max)
{
	char buf[8192], *p, *end;
	int n = 0;
	ssize_t len;

	len = cgrp_read(cg, "cgroup.procs", buf, sizeof(buf));
	if (len < 0)
		return len;
	for (p = buf; *p && n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		pids[n++] = v;
	}
	return n;
}

int cgrp_populated(const char *cg)
{
	long long val;
	int ret;

	ret = cgrp_read_key(cg, "cgroup.events", "populated", &val);
	return ret ? ret : val != 0;
}

/* SIGKILLs the pids listed in @cg, for kernels without cgroup.kill. */
static int cgrp_kill_listed(const char *cg)
{
	pid_t pids[256];
	int i, n;

	n = cgrp_pids(cg, pids, 256);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		if (kill(pids[i], SIGKILL) && errno != ESRCH)
			return -errno;
	return 0;
}

int cgrp_kill(const char *cg)
{
	int ret = cgrp_write(cg, "cgroup.kill", "1");

	return ret == -ENOENT ? cgrp_kill_listed(cg) : ret;
}

int cgrp_wait_empty(const char *cg, long timeout_ms)
{
	long long deadline = cgrp_now_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = cgrp_populated(cg);
		if (ret <= 0)
			return ret;
		if (cgrp_now_ms() >= deadline)
			return -ETIMEDOUT;
		cgrp_sleep_ms(CG_POLL_MS);
	}
}

int cgrp_destroy(const char *cg, long timeout_ms)
{
	long long deadline = cgrp_now_ms() + timeout_ms;
	int ret;

	ret = cgrp_populated(cg);
	if (ret == -ENOENT)
		return 0;
	if (ret > 0) {
		ret = cgrp_kill(cg);
		if (ret)
			return ret;
		ret = cgrp_wait_empty(cg, timeout_ms);
		if (ret)
			return ret;
	}
	/* An emptied group can stay busy for a moment: retry, bounded. */
	while (rmdir(cg)) {
		ret = errno;
		if (ret == ENOENT)
			return 0;
		if (ret != EBUSY || cgrp_now_ms() >= deadline)
			return -ret;
		cgrp_sleep_ms(CG_POLL_MS);
	}
	return 0;
}
