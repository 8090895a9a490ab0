/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 helpers for the memcg and OOM tests: small verbs that compose
 * (create, write, read a key, run a function inside, kill, destroy).
 *
 * None of them asserts or exits: each returns 0 (or a count) on success,
 * else -errno. Every wait takes a deadline in milliseconds.
 *
 * Their prefix is cgrp_, not the cg_ of selftests/cgroup/cgroup_util.h,
 * whose functions of the same names take other arguments: a program may
 * link both.
 */
#ifndef OOM_CGROUP_H
#define OOM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CG_PATH_MAX 256

/* Exit status of a cgrp_spawn() child that could not enter its cgroup. */
#define CG_SPAWN_ENTER_FAILED 125

/* CLOCK_MONOTONIC in milliseconds. */
long long cgrp_now_ms(void);

/* Sleeps @ms milliseconds (a signal does not cut it short). */
void cgrp_sleep_ms(long ms);

/* The mount point of the cgroup2 hierarchy, from /proc/self/mounts. */
int cgrp_find_root(char *root, size_t size);

/*
 * Creates @parent/@name with mkdir, and writes its path to @path. An
 * existing group of that name is an error (-EEXIST).
 */
int cgrp_create(char *path, size_t size, const char *parent, const char *name);

/* Writes the string @val to @cg/@file in one write(). */
int cgrp_write(const char *cg, const char *file, const char *val);

/* Writes the decimal @val to @cg/@file. */
int cgrp_write_long(const char *cg, const char *file, long long val);

/* Reads @cg/@file into @buf (NUL-terminated); returns the length. */
ssize_t cgrp_read(const char *cg, const char *file, char *buf, size_t size);

/*
 * Reads the value of the line "@key <value>" in a flat-keyed file such as
 * memory.events or memory.stat ("max" reads as LLONG_MAX). -ENOENT when the
 * key is absent.
 */
int cgrp_read_key(const char *cg, const char *file, const char *key,
		  long long *val);

/* Reads a single-value file such as memory.current ("max": LLONG_MAX). */
int cgrp_read_long(const char *cg, const char *file, long long *val);

/* Returns 1 if @ctrl is listed in @cg/cgroup.controllers, 0 if not. */
int cgrp_has_controller(const char *cg, const char *ctrl);

/* Moves @pid (0: the caller) into @cg. */
int cgrp_enter(const char *cg, pid_t pid);

/*
 * Forks a child that enters @cg, gets SIGKILL when the caller dies, and
 * exits with @fn(@arg) & 0xff (CG_SPAWN_ENTER_FAILED if it could not
 * enter). Returns the child's pid.
 */
pid_t cgrp_spawn(const char *cg, int (*fn)(void *arg), void *arg);

/*
 * Reaps @pid within @timeout_ms; -ETIMEDOUT if it is still running, and
 * then it is left running (and unreaped).
 */
int cgrp_wait_pid(pid_t pid, int *status, long timeout_ms);

/* cgrp_spawn(), then cgrp_wait_pid() within @timeout_ms. */
int cgrp_run(const char *cg, int (*fn)(void *arg), void *arg, long timeout_ms,
	     int *status);

/* Up to @max pids of @cg's cgroup.procs into @pids; returns how many. */
int cgrp_pids(const char *cg, pid_t *pids, int max);

/* 1 if @cg or a descendant has a live task, 0 if not (cgroup.events). */
int cgrp_populated(const char *cg);

/* SIGKILLs every task in @cg and its descendants (cgroup.kill). */
int cgrp_kill(const char *cg);

/* Waits until @cg has no live task; -ETIMEDOUT after @timeout_ms. */
int cgrp_wait_empty(const char *cg, long timeout_ms);

/*
 * Kills what is left in @cg, waits for it to empty and removes it, all
 * within @timeout_ms. A missing @cg is not an error.
 */
int cgrp_destroy(const char *cg, long timeout_ms);

#endif /* OOM_CGROUP_H */
