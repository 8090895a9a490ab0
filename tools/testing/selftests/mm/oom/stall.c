// SPDX-License-Identifier: GPL-2.0
/*
 * The stall detector and its evidence; see stall.h. Functions return 0 or
 * -errno.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "stall.h"
#include "util.h"

/* How often the watch looks at the counters. */
#define STALL_POLL_MS 100
/* How long the vmscan trace records. */
#define TRACE_SAMPLE_MS 500
/* Lines of the trace, of a task's stack and of memory.stat shown. */
#define TRACE_LINES 40
#define STACK_LINES 24
/* What is read of the trace buffer, at most. */
#define TRACE_READ_MAX (256 << 10)
/* Killing the tasks after the evidence. */
#define KILL_TIMEOUT_MS 5000

#define TRACEFS "/sys/kernel/tracing"

void stall_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

/* Sum of the allocstall_* lines of /proc/vmstat: direct reclaim entries. */
static int global_reclaim_count(long long *val)
{
	static char buf[16384];
	char *line;
	ssize_t n;

	n = read_file("/proc/vmstat", buf, sizeof(buf));
	if (n < 0)
		return n;
	*val = 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "allocstall_", 11) && strchr(line, ' '))
			*val += atoll(strchr(line, ' '));
	return 0;
}

int stall_reclaim_count(const char *cg, long long *val)
{
	if (!cg)
		return global_reclaim_count(val);
	return cgrp_read_key(cg, "memory.events", "max", val);
}

long stall_scaled_ms(long ms)
{
	const char *env = getenv("OOM_TIME_MUL");
	int mul = env ? atoi(env) : 1;

	return mul >= 1 && mul <= 4 ? ms * mul : ms;
}

int stall_watch(const struct stall_watch *w, struct stall_result *res)
{
	long long start = cgrp_now_ms(), now, last_move, progress, p;
	long long reclaim0, reclaim_at_move, reclaim;
	long stall_ms = stall_scaled_ms(w->stall_ms);
	int ret;

	memset(res, 0, sizeof(*res));
	ret = stall_reclaim_count(w->cg, &reclaim0);
	if (ret)
		return ret;
	reclaim_at_move = reclaim0;
	progress = w->progress(w->arg);
	last_move = start;
	for (;;) {
		now = cgrp_now_ms();
		res->elapsed_ms = now - start;
		if (w->done(w->arg)) {
			res->verdict = STALL_DONE;
			break;
		}
		ret = stall_reclaim_count(w->cg, &reclaim);
		if (ret)
			return ret;
		res->reclaim_total = reclaim - reclaim0;
		p = w->progress(w->arg);
		if (p != progress) {
			progress = p;
			last_move = now;
			reclaim_at_move = reclaim;
		}
		res->idle_ms = now - last_move;
		res->reclaim_while_idle = reclaim - reclaim_at_move;
		if (res->idle_ms >= stall_ms && res->reclaim_while_idle > 0) {
			res->verdict = STALL_SPINNING;
			res->limit_ms = stall_ms;
			break;
		}
		if (res->elapsed_ms >= w->deadline_ms) {
			res->verdict = res->idle_ms >= w->stall_ms ?
					       STALL_BLOCKED :
					       STALL_SLOW;
			res->limit_ms = w->stall_ms;
			break;
		}
		cgrp_sleep_ms(STALL_POLL_MS);
	}
	return 0;
}

bool stall_is_stall(const struct stall_result *res)
{
	return res->verdict == STALL_SPINNING || res->verdict == STALL_BLOCKED;
}

/* Prints the lines of @buf, each behind "# @prefix", at most @max. */
static void log_lines(const char *prefix, char *buf, int max)
{
	char *save, *line;
	int n = 0;

	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save), n++)
		stall_log("%s%s", prefix, line);
	if (line)
		stall_log("%s...", prefix);
}

static void log_group(const char *cg)
{
	static char buf[8192];

	if (cgrp_read(cg, "memory.events", buf, sizeof(buf)) >= 0)
		log_lines("memory.events: ", buf, 16);
	if (cgrp_read(cg, "memory.stat", buf, sizeof(buf)) >= 0)
		log_lines("memory.stat: ", buf, 64);
}

/* State, wchan and kernel stack of @pid. */
static void log_task(pid_t pid)
{
	char path[64], stat[512], wchan[128], stack[4096], *p;
	char comm[32] = "?", state = '?';

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, stat, sizeof(stat)) < 0) {
		stall_log("task %d: gone", pid);
		return;
	}
	p = strrchr(stat, ')');
	if (p && p[1] == ' ')
		state = p[2];
	p = strchr(stat, '(');
	if (p)
		snprintf(comm, sizeof(comm), "%.*s",
			 (int)(strrchr(stat, ')') - p - 1), p + 1);
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (read_file(path, wchan, sizeof(wchan)) < 0)
		snprintf(wchan, sizeof(wchan), "?");
	stall_log("task %d (%s) state %c wchan %s", pid, comm, state, wchan);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (read_file(path, stack, sizeof(stack)) >= 0)
		log_lines("  ", stack, STACK_LINES);
}

static void log_tasks(const char *cg, const pid_t *pids, int nr_pids)
{
	pid_t all[STALL_MAX_TASKS];
	int i, j, n = 0;

	for (i = 0; i < nr_pids && n < STALL_MAX_TASKS; i++)
		all[n++] = pids[i];
	if (cg) {
		pid_t in[STALL_MAX_TASKS];
		int m = cgrp_pids(cg, in, STALL_MAX_TASKS);

		for (i = 0; i < m && n < STALL_MAX_TASKS; i++) {
			for (j = 0; j < n && all[j] != in[i]; j++)
				;
			if (j == n)
				all[n++] = in[i];
		}
	}
	for (i = 0; i < n; i++)
		log_task(all[i]);
}

static const char *const trace_events[] = {
	"vmscan/mm_shrink_slab_start",
	"vmscan/mm_shrink_slab_end",
	"vmscan/mm_vmscan_memcg_reclaim_begin",
	"vmscan/mm_vmscan_memcg_reclaim_end",
	"vmscan/mm_vmscan_direct_reclaim_begin",
	"vmscan/mm_vmscan_direct_reclaim_end",
	"vmscan/mm_vmscan_lru_shrink_inactive",
};

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define NR_TRACE_EVENTS ARRAY_SIZE(trace_events)

/* The tracefs knobs a sample changes, as they were. */
struct trace_saved {
	bool mounted;
	char tracing_on[8];
	char buffer_size_kb[32];
	char enable[NR_TRACE_EVENTS][8];
};

static void trace_path(char *path, size_t size, const char *file)
{
	snprintf(path, size, TRACEFS "/%s", file);
}

static void event_path(char *path, size_t size, const char *event)
{
	snprintf(path, size, TRACEFS "/events/%s/enable", event);
}

/* Mounts tracefs if needed and saves the knobs; -ENOENT without it. */
static int trace_save(struct trace_saved *t)
{
	char path[256];
	size_t i;

	memset(t, 0, sizeof(*t));
	trace_path(path, sizeof(path), "tracing_on");
	if (access(path, F_OK)) {
		if (mount("nodev", TRACEFS, "tracefs", 0, NULL))
			return -errno;
		t->mounted = true;
	}
	if (read_file(path, t->tracing_on, sizeof(t->tracing_on)) < 0)
		return -ENOENT;
	trace_path(path, sizeof(path), "buffer_size_kb");
	if (read_file(path, t->buffer_size_kb, sizeof(t->buffer_size_kb)) < 0)
		return -ENOENT;
	/* "7 (expanded: 1408)" before the first use: keep the number. */
	snprintf(t->buffer_size_kb, sizeof(t->buffer_size_kb), "%ld",
		 atol(t->buffer_size_kb));
	for (i = 0; i < NR_TRACE_EVENTS; i++) {
		event_path(path, sizeof(path), trace_events[i]);
		if (read_file(path, t->enable[i], sizeof(t->enable[i])) < 0)
			t->enable[i][0] = '\0';
	}
	return 0;
}

static void trace_restore(const struct trace_saved *t)
{
	char path[256];
	size_t i;

	trace_path(path, sizeof(path), "tracing_on");
	write_file(path, "0");
	for (i = 0; i < NR_TRACE_EVENTS; i++) {
		if (!t->enable[i][0])
			continue;
		event_path(path, sizeof(path), trace_events[i]);
		write_file(path, t->enable[i]);
	}
	trace_path(path, sizeof(path), "trace");
	write_file(path, "");
	trace_path(path, sizeof(path), "buffer_size_kb");
	if (t->buffer_size_kb[0])
		write_file(path, t->buffer_size_kb);
	trace_path(path, sizeof(path), "tracing_on");
	write_file(path, t->tracing_on);
	if (t->mounted)
		umount2(TRACEFS, MNT_DETACH);
}

/* Records the vmscan events for TRACE_SAMPLE_MS and prints a bounded part. */
static void log_vmscan_trace(void)
{
	unsigned long counts[NR_TRACE_EVENTS] = { 0 };
	char path[256], *buf, *line, *save;
	struct trace_saved t;
	int shown = 0, enabled = 0;
	size_t i;
	ssize_t n;

	if (trace_save(&t)) {
		stall_log("vmscan trace: no tracefs (CONFIG_FTRACE)");
		return;
	}
	trace_path(path, sizeof(path), "tracing_on");
	write_file(path, "0");
	trace_path(path, sizeof(path), "buffer_size_kb");
	write_file(path, "64");
	trace_path(path, sizeof(path), "trace");
	write_file(path, "");
	for (i = 0; i < NR_TRACE_EVENTS; i++) {
		if (!t.enable[i][0])
			continue;
		event_path(path, sizeof(path), trace_events[i]);
		if (!write_file(path, "1"))
			enabled++;
	}
	if (!enabled) {
		stall_log("vmscan trace: no vmscan events in tracefs");
		trace_restore(&t);
		return;
	}
	trace_path(path, sizeof(path), "tracing_on");
	write_file(path, "1");
	cgrp_sleep_ms(TRACE_SAMPLE_MS);
	write_file(path, "0");

	buf = malloc(TRACE_READ_MAX);
	trace_path(path, sizeof(path), "trace");
	n = buf ? read_file(path, buf, TRACE_READ_MAX) : -ENOMEM;
	if (n < 0) {
		stall_log("vmscan trace: reading %s: %s", path, strerror(-n));
	} else {
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (line[0] == '#')
				continue;
			for (i = 0; i < NR_TRACE_EVENTS; i++)
				if (strstr(line,
					   strchr(trace_events[i], '/') + 1))
					counts[i]++;
			if (shown++ < TRACE_LINES)
				stall_log("trace: %s", line);
		}
		stall_log("vmscan trace: %d events in %d ms (shown %d)", shown,
			  TRACE_SAMPLE_MS,
			  shown < TRACE_LINES ? shown : TRACE_LINES);
		for (i = 0; i < NR_TRACE_EVENTS; i++)
			if (counts[i])
				stall_log("vmscan trace: %s x%lu",
					  trace_events[i], counts[i]);
	}
	free(buf);
	trace_restore(&t);
}

static void trigger_sysrq(char c)
{
	char val[2] = { c, '\0' };
	int ret;

	fflush(stdout);
	ret = write_file("/proc/sysrq-trigger", val);
	if (ret)
		stall_log("/proc/sysrq-trigger %c: %s", c, strerror(-ret));
}

void stall_evidence(const char *cg, const pid_t *pids, int nr_pids)
{
	stall_log("evidence: sysrq w (blocked tasks), sysrq m (memory)");
	trigger_sysrq('w');
	trigger_sysrq('m');
	if (cg)
		log_group(cg);
	log_tasks(cg, pids, nr_pids);
	log_vmscan_trace();
}

static const char *const verdict_names[] = {
	[STALL_DONE] = "done",
	[STALL_SLOW] = "slow",
	[STALL_SPINNING] = "spinning in reclaim",
	[STALL_BLOCKED] = "blocked",
};

#define STALL_FMT \
	"stall: %s: %s, no progress for %lld ms (limit %ld ms), %s %lld while idle, %lld in %lld ms"

void stall_report(const struct stall_watch *w, const struct stall_result *res,
		  const char *what)
{
	int i, ret;

	stall_log(STALL_FMT, what, verdict_names[res->verdict], res->idle_ms,
		  res->limit_ms, w->cg ? "memory.events max +" : "allocstall +",
		  res->reclaim_while_idle, res->reclaim_total, res->elapsed_ms);
	stall_evidence(w->cg, w->pids, w->nr_pids);
	if (w->cg) {
		ret = cgrp_kill(w->cg);
		if (!ret)
			ret = cgrp_wait_empty(w->cg, KILL_TIMEOUT_MS);
		stall_log("stall: cgroup.kill: %s",
			  ret ? strerror(-ret) : "group emptied");
		return;
	}
	for (i = 0; i < w->nr_pids; i++)
		kill(w->pids[i], SIGKILL);
}
