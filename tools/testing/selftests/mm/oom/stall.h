/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stall detector for scenarios that run memory out, and the evidence a
 * stall report carries.
 *
 * A scenario makes forward progress (a counter moves: calls return, tasks
 * exit) or reaches its outcome. When its counter stays still for a while
 * and reclaim keeps running (memory.events "max" of its cgroup, or the
 * allocstall counters of /proc/vmstat for the whole machine), the tasks
 * spin in reclaim without a kernel detector noticing: the hung-task
 * detector only looks at D state. That is a stall, reported with what the
 * 2014 TIF_MEMDIE threads had to ask for by hand: blocked-task stacks and
 * memory state (sysrq w, m), memory.events and memory.stat, the state and
 * kernel stack of each task, and a short vmscan trace.
 *
 * Nothing here asserts: functions return 0 or -errno.
 */
#ifndef OOM_STALL_H
#define OOM_STALL_H

#include <stdbool.h>
#include <sys/types.h>

#include "kselftest.h"

/* Tasks whose state and stack a report shows, at most. */
#define STALL_MAX_TASKS 16

struct stall_watch {
	/* The group whose "max" events count reclaim; NULL: the machine. */
	const char *cg;
	/* Tasks involved, shown in a report besides those in @cg. */
	pid_t pids[STALL_MAX_TASKS];
	int nr_pids;
	/* No progress this long while reclaim climbs is a stall. */
	long stall_ms;
	/* The outcome must come within this, from the start of the watch. */
	long deadline_ms;
	/* True once the scenario reached its outcome. */
	bool (*done)(void *arg);
	/* Moves whenever the scenario makes forward progress. */
	long long (*progress)(void *arg);
	void *arg;
};

enum stall_verdict {
	/* done() became true within the deadline. */
	STALL_DONE,
	/* Still progressing at the deadline, without the outcome. */
	STALL_SLOW,
	/* No progress for stall_ms while reclaim kept running. */
	STALL_SPINNING,
	/* No progress and no reclaim, until the deadline: tasks blocked. */
	STALL_BLOCKED,
};

struct stall_result {
	enum stall_verdict verdict;
	/* From the start of the watch to the verdict. */
	long long elapsed_ms;
	/* How long the progress counter last stood still, until the verdict. */
	long long idle_ms;
	/* Reclaim events ("max", or allocstall) counted while it stood still. */
	long long reclaim_while_idle;
	/* Reclaim events over the whole watch. */
	long long reclaim_total;
	/* The stall window the verdict was judged by (stall_watch()). */
	long limit_ms;
};

/* Prints "# " @fmt and a newline on stdout, and flushes it. */
void stall_log(const char *fmt, ...) __printf(1, 2);

/* The reclaim counter the watch uses for @cg (NULL: the machine). */
int stall_reclaim_count(const char *cg, long long *val);

/*
 * @ms, a stall window, times OOM_TIME_MUL from the environment (1 to 4;
 * 1 when unset), as LTP's LTP_TIMEOUT_MUL: for a kernel whose CPU is
 * emulated (QEMU's TCG, where run.sh sets 2), so that "no progress for
 * 10 s" still means what it means at native speed.
 */
long stall_scaled_ms(long ms);

/*
 * Polls @w until its outcome, a stall or the deadline; fills @res. Before
 * the deadline, a stall is declared after @w->stall_ms scaled
 * (stall_scaled_ms()): an emulated kernel gets longer to move on. At the
 * deadline, with no outcome, @w->stall_ms itself decides between blocked
 * and slow: the scaling never turns a stall into a pass.
 */
int stall_watch(const struct stall_watch *w, struct stall_result *res);

/* True for the verdicts that are stalls (spinning or blocked). */
bool stall_is_stall(const struct stall_result *res);

/*
 * Reports a stall: prints "# stall: @what ..." (the runner's "hang"
 * convention) with the figures of @res, then the evidence, then kills the
 * tasks (cgroup.kill of @w->cg, else SIGKILL to @w->pids) and waits for
 * them, bounded. The caller then fails the test.
 */
void stall_report(const struct stall_watch *w, const struct stall_result *res,
		  const char *what);

/* The evidence alone: sysrq w and m, the group's files, tasks, a trace. */
void stall_evidence(const char *cg, const pid_t *pids, int nr_pids);

#endif /* OOM_STALL_H */
