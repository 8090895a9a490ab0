// SPDX-License-Identifier: GPL-2.0
/*
 * SysV message queues and semaphores, and POSIX message queues, while
 * their small allocations fail, one at a time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h), in a private IPC
 * namespace: msgget() and semget() of a new object, msgsnd() of a
 * two-segment message, semop() with SEM_UNDO; mq_open() of a new POSIX
 * queue (in the namespace's own mqueue filesystem), mq_send() and
 * mq_receive() of a two-segment message. The call must succeed or fail
 * with an allowed errno. A new object is listed in /proc/sysvipc (a POSIX
 * queue found by its name) and works; a sent message is queued once and
 * reads back whole; semaphore values and the undo entry are exactly what
 * the operations say. A failure creates no object, queues nothing, takes
 * no message and changes no value.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <unistd.h>

#include "failnth.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* Bound on the objects a /proc/sysvipc file lists here. */
#define MAX_IDS 64

/* A key for the keyed msgget(): "toos". */
#define MSG_KEY 0x746f6f73

/*
 * A message larger than one page (DATALEN_MSG), so that load_msg()
 * allocates a segment besides the msg_msg, and below the default msgmax.
 */
#define MSG_LEN 8000

/* The semaphores of a new set. */
#define NSEMS 4

/* semctl()'s fourth argument, which the caller defines. */
union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

/*
 * Clean failures of msgget(), msgsnd(), semget() and semop(): none but
 * ENOMEM. (ipc_addid()'s ENOSPC is the msgmni/semmni limit, not an
 * allocation: ipc/util.c:290 "if (ids->in_use >= limit) return -ENOSPC;".)
 */
static const int ipc_errnos[] = { ENOMEM, 0 };

/*
 * mq_receive(): none; the one allocation on its path, a spare node of the
 * priority tree, may fail without consequence (ipc/mqueue.c:1239, linux
 * 6.12). mq_open() and mq_send() fail with ENOMEM alone: mqueue_get_inode()
 * when the inode cannot be allocated (ipc/mqueue.c:295), load_msg() and
 * msg_insert() for the message and its node (ipc/msgutil.c,
 * ipc/mqueue.c:216); mq_open()'s EMFILE (ipc/mqueue.c:384) is
 * RLIMIT_MSGQUEUE and its ENOSPC (ipc/mqueue.c:590) queues_max, not
 * allocations.
 */
static const int mq_receive_errnos[] = { 0 };

#define REASON_NO_MQUEUE "no POSIX message queues: needs CONFIG_POSIX_MQUEUE"

static struct {
	long mtype;
	char mtext[MSG_LEN];
} msg_out, msg_in;

/* Shared by the callbacks of a sweep. */
struct sysv_ctx {
	/*
	 * The /proc/sysvipc file that lists the objects of this kind; NULL
	 * for a POSIX queue, which its name finds.
	 */
	const char *proc;
	/* Removes the object @id. */
	int (*remove)(int id);
	/* Whether the call creates the object (else prepare does). */
	bool creates;
	/* The object under test, -1 when there is none. */
	int id;
	/* The ids /proc/sysvipc listed before the sweep. */
	int before[MAX_IDS];
	int nr_before;
};

/*
 * Reads the ids (second column) that the /proc/sysvipc file @path lists
 * into @ids; returns their number or -errno.
 */
static int read_ids(const char *path, int *ids, int max)
{
	char line[512];
	int nr = 0, key, id;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -ENODATA;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %d", &key, &id) != 2)
			continue;
		if (nr == max) {
			nr = -EFBIG;
			break;
		}
		ids[nr++] = id;
	}
	fclose(f);
	return nr;
}

static bool id_in(int id, const int *ids, int nr)
{
	while (nr-- > 0)
		if (ids[nr] == id)
			return true;
	return false;
}

/*
 * Whether /proc/sysvipc lists exactly the ids it listed before the sweep,
 * plus @id when @id >= 0; @when says at which step, for the message.
 */
static bool listed_as_before(struct sysv_ctx *c, int id, const char *when,
			     char *why, size_t size)
{
	const char *unexpected =
		"%s: %s lists id %d, neither %s nor listed before the sweep";
	int now[MAX_IDS], nr, i, extra = id >= 0;

	nr = read_ids(c->proc, now, MAX_IDS);
	if (nr < 0) {
		snprintf(why, size, "reading %s: %s", c->proc, strerror(-nr));
		return false;
	}
	for (i = 0; i < nr; i++) {
		if (now[i] == id || id_in(now[i], c->before, c->nr_before))
			continue;
		snprintf(why, size, unexpected, when, c->proc, now[i],
			 id >= 0 ? "the new one" : "removed");
		return false;
	}
	if (nr != c->nr_before + extra || (extra && !id_in(id, now, nr))) {
		snprintf(why, size, "%s: %s lists %d ids, expected %d%s", when,
			 c->proc, nr, c->nr_before + extra,
			 extra ? " with the new one" : "");
		return false;
	}
	return true;
}

/*
 * What every variant's check tests first: a failed create returned no id,
 * a successful one the new id, and /proc/sysvipc lists what it listed
 * before the sweep, with the object after a success.
 */
static bool sysv_listed(struct sysv_ctx *c, int ret, char *why, size_t size)
{
	if (c->creates && ret < 0 && c->id >= 0) {
		snprintf(why, size, "failed, yet returned id %d", c->id);
		return false;
	}
	if (c->creates && ret >= 0 && ret != c->id) {
		snprintf(why, size, "returned %d, not id %d", ret, c->id);
		return false;
	}
	return !c->proc ||
	       listed_as_before(c, c->id,
				ret < 0 ? "after a failure" : "after success",
				why, size);
}

static int msg_remove(int id)
{
	return msgctl(id, IPC_RMID, NULL);
}

static int sem_remove(int id)
{
	return semctl(id, 0, IPC_RMID);
}

/*
 * Whether queue @id holds exactly @qnum messages of @cbytes bytes in all,
 * by IPC_STAT.
 */
static bool queue_holds(int id, unsigned long qnum, unsigned long cbytes,
			char *why, size_t size)
{
	struct msqid_ds ds;

	if (msgctl(id, IPC_STAT, &ds)) {
		snprintf(why, size, "IPC_STAT of queue %d: %s", id,
			 strerror(errno));
		return false;
	}
	if (ds.msg_qnum != qnum || ds.__msg_cbytes != cbytes) {
		const char *fmt =
			"queue %d holds %lu messages, %lu bytes; expected %lu, %lu";

		snprintf(why, size, fmt, id, (unsigned long)ds.msg_qnum,
			 (unsigned long)ds.__msg_cbytes, qnum, cbytes);
		return false;
	}
	return true;
}

/*
 * Whether queue @id holds exactly msg_out, once: it reads back whole, and
 * then the queue is empty. Consumes it.
 */
static bool queue_has_msg_out(int id, char *why, size_t size)
{
	ssize_t len;

	memset(&msg_in, 0, sizeof(msg_in));
	len = msgrcv(id, &msg_in, sizeof(msg_in.mtext), 0, IPC_NOWAIT);
	if (len != MSG_LEN || msg_in.mtype != msg_out.mtype ||
	    memcmp(msg_in.mtext, msg_out.mtext, MSG_LEN)) {
		const char *fmt =
			"msgrcv from queue %d: %zd bytes (%s), type %ld: not the message sent";

		snprintf(why, size, fmt, id, len,
			 len < 0 ? strerror(errno) : "read", msg_in.mtype);
		return false;
	}
	return queue_holds(id, 0, 0, why, size);
}

/* msgget() of a new private queue, or of a new keyed one. */
static int msgget_private_action(void *arg)
{
	struct sysv_ctx *c = arg;
	int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);

	return id < 0 ? -errno : (c->id = id);
}

static int msgget_key_action(void *arg)
{
	struct sysv_ctx *c = arg;
	int id = msgget(MSG_KEY, IPC_CREAT | IPC_EXCL | 0600);

	return id < 0 ? -errno : (c->id = id);
}

/* After a success, the new queue is empty and carries a message. */
static bool new_queue_works(struct sysv_ctx *c, int ret, char *why, size_t size)
{
	if (ret < 0)
		return true;
	if (!queue_holds(c->id, 0, 0, why, size))
		return false;
	if (msgsnd(c->id, &msg_out, MSG_LEN, IPC_NOWAIT)) {
		snprintf(why, size, "msgsnd to the new queue: %s",
			 strerror(errno));
		return false;
	}
	return queue_has_msg_out(c->id, why, size);
}

static bool msgget_check(void *arg, int ret, char *why, size_t size)
{
	return sysv_listed(arg, ret, why, size) &&
	       new_queue_works(arg, ret, why, size);
}

/* The key finds the new queue; after a failure, it is unused. */
static bool msgget_key_check(void *arg, int ret, char *why, size_t size)
{
	struct sysv_ctx *c = arg;
	int found;

	if (!sysv_listed(c, ret, why, size))
		return false;
	found = msgget(MSG_KEY, 0);
	if (found != (ret < 0 ? -1 : c->id)) {
		snprintf(why, size, "key 0x%x finds queue %d after %s", MSG_KEY,
			 found, ret < 0 ? "a failure" : "success");
		return false;
	}
	return new_queue_works(c, ret, why, size);
}

/* msgsnd() of msg_out to an empty queue. */
static void msgsnd_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sysv_ctx *c = arg;

	c->id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	ASSERT_LE(0, c->id)
	{
		TH_LOG("msgget (unarmed): %s", strerror(errno));
	}
}

static int msgsnd_action(void *arg)
{
	struct sysv_ctx *c = arg;

	return msgsnd(c->id, &msg_out, MSG_LEN, IPC_NOWAIT) ? -errno : 0;
}

/* Success: queued once, whole. Failure: the queue stays empty. */
static bool msgsnd_check(void *arg, int ret, char *why, size_t size)
{
	struct sysv_ctx *c = arg;
	ssize_t len;

	if (!sysv_listed(c, ret, why, size))
		return false;
	if (ret < 0) {
		len = msgrcv(c->id, &msg_in, sizeof(msg_in.mtext), 0,
			     IPC_NOWAIT);
		if (len >= 0 || errno != ENOMSG) {
			snprintf(why, size,
				 "after a failed msgsnd, msgrcv gave %zd (%s)",
				 len, len >= 0 ? "a message" : strerror(errno));
			return false;
		}
		return queue_holds(c->id, 0, 0, why, size);
	}
	return queue_holds(c->id, 1, MSG_LEN, why, size) &&
	       queue_has_msg_out(c->id, why, size);
}

/* Whether the values of set @id are @val[0, NSEMS). */
static bool sem_values(int id, const unsigned short *val, const char *when,
		       char *why, size_t size)
{
	unsigned short now[NSEMS] = {};
	union semun arg = { .array = now };
	int i;

	if (semctl(id, 0, GETALL, arg)) {
		snprintf(why, size, "GETALL of set %d: %s", id,
			 strerror(errno));
		return false;
	}
	for (i = 0; i < NSEMS; i++) {
		if (now[i] == val[i])
			continue;
		snprintf(why, size, "%s: semaphore %d is %u, expected %u", when,
			 i, now[i], val[i]);
		return false;
	}
	return true;
}

/* semget() of a new set of NSEMS. */
static int semget_action(void *arg)
{
	struct sysv_ctx *c = arg;
	int id = semget(IPC_PRIVATE, NSEMS, IPC_CREAT | 0600);

	return id < 0 ? -errno : (c->id = id);
}

/* Success: NSEMS semaphores, all 0, that take an operation. */
static bool semget_check(void *arg, int ret, char *why, size_t size)
{
	struct sysv_ctx *c = arg;
	static const unsigned short zero[NSEMS], one[NSEMS] = { [2] = 1 };
	struct sembuf op = { .sem_num = 2, .sem_op = 1 };
	struct semid_ds ds;
	union semun stat = { .buf = &ds };

	if (!sysv_listed(c, ret, why, size))
		return false;
	if (ret < 0)
		return true;
	if (semctl(c->id, 0, IPC_STAT, stat) || ds.sem_nsems != NSEMS) {
		snprintf(why, size,
			 "set %d: IPC_STAT failed or has %lu semaphores", c->id,
			 (unsigned long)ds.sem_nsems);
		return false;
	}
	if (!sem_values(c->id, zero, "new set", why, size))
		return false;
	if (semop(c->id, &op, 1)) {
		snprintf(why, size, "semop on the new set: %s",
			 strerror(errno));
		return false;
	}
	return sem_values(c->id, one, "after +1 on semaphore 2", why, size);
}

/*
 * semop() of +1 with SEM_UNDO on semaphore 0 and +2 on semaphore 1 of a new
 * set, with a fresh undo list: both the list and the set's undo entry are
 * allocated.
 */
static void semop_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sysv_ctx *c = arg;

	/* Drops this process's undo list, as exit would. */
	ASSERT_EQ(0, unshare(CLONE_SYSVSEM))
	{
		TH_LOG("unshare(CLONE_SYSVSEM): %s", strerror(errno));
	}
	c->id = semget(IPC_PRIVATE, NSEMS, IPC_CREAT | 0600);
	ASSERT_LE(0, c->id)
	{
		TH_LOG("semget (unarmed): %s", strerror(errno));
	}
}

static int semop_action(void *arg)
{
	struct sysv_ctx *c = arg;
	struct sembuf ops[] = {
		{ .sem_num = 0, .sem_op = 1, .sem_flg = SEM_UNDO | IPC_NOWAIT },
		{ .sem_num = 1, .sem_op = 2, .sem_flg = IPC_NOWAIT },
	};

	return semop(c->id, ops, ARRAY_SIZE(ops)) ? -errno : 0;
}

/*
 * Success: the values are 1 and 2, and dropping the undo list takes back
 * the +1 alone. Failure: all values stay 0, and nothing is undone.
 */
static bool semop_check(void *arg, int ret, char *why, size_t size)
{
	struct sysv_ctx *c = arg;
	static const unsigned short zero[NSEMS], done[NSEMS] = { 1, 2 },
						 undone[NSEMS] = { 0, 2 };

	if (!sysv_listed(c, ret, why, size))
		return false;
	if (!sem_values(c->id, ret < 0 ? zero : done, "after semop", why, size))
		return false;
	if (unshare(CLONE_SYSVSEM)) {
		snprintf(why, size, "unshare(CLONE_SYSVSEM): %s",
			 strerror(errno));
		return false;
	}
	return sem_values(c->id, ret < 0 ? zero : undone,
			  "after the undo list was dropped", why, size);
}

/*
 * The POSIX message queue of the mq variants, in the IPC namespace's own
 * mqueue filesystem, its bounds, and the priority of its message.
 */
#define MQ_NAME "/failnth-mq"
#define MQ_MAXMSG 4
#define MQ_PRIO 5

static int mq_remove(int id)
{
	close(id);
	return mq_unlink(MQ_NAME);
}

/* Whether the queue of @mqd holds @curmsgs messages, by mq_getattr(). */
static bool mq_holds(int mqd, long curmsgs, const char *when, char *why,
		     size_t size)
{
	struct mq_attr attr;

	if (mq_getattr(mqd, &attr)) {
		snprintf(why, size, "%s: mq_getattr: %s", when,
			 strerror(errno));
		return false;
	}
	if (attr.mq_maxmsg != MQ_MAXMSG || attr.mq_msgsize != MSG_LEN ||
	    attr.mq_curmsgs != curmsgs) {
		const char *fmt =
			"%s: queue of %ld x %ld bytes holds %ld, expected %d x %d holding %ld";

		snprintf(why, size, fmt, when, attr.mq_maxmsg, attr.mq_msgsize,
			 attr.mq_curmsgs, MQ_MAXMSG, MSG_LEN, curmsgs);
		return false;
	}
	return true;
}

/*
 * Whether the queue of @mqd holds msg_out's text at MQ_PRIO, once: it reads
 * back whole, and then the queue is empty. Consumes it.
 */
static bool mq_has_msg_out(int mqd, char *why, size_t size)
{
	unsigned int prio = 0;
	ssize_t len;

	memset(&msg_in, 0, sizeof(msg_in));
	len = mq_receive(mqd, msg_in.mtext, MSG_LEN, &prio);
	if (len != MSG_LEN || prio != MQ_PRIO ||
	    memcmp(msg_in.mtext, msg_out.mtext, MSG_LEN)) {
		const char *fmt =
			"mq_receive: %zd bytes (%s), priority %u: not the message sent";

		snprintf(why, size, fmt, len,
			 len < 0 ? strerror(errno) : "read", prio);
		return false;
	}
	return mq_holds(mqd, 0, "after mq_receive", why, size);
}

/* Creates MQ_NAME, empty: its mqd or -errno. */
static int mq_create(void)
{
	struct mq_attr attr = { .mq_maxmsg = MQ_MAXMSG, .mq_msgsize = MSG_LEN };
	int mqd = mq_open(MQ_NAME,
			  O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC,
			  0600, &attr);

	return mqd < 0 ? -errno : mqd;
}

/*
 * mq_open(O_CREAT) of a new queue: its name, dentry and inode in the
 * namespace's mqueue filesystem (mqueue_get_inode()), its file and fd.
 */
static int mq_open_action(void *arg)
{
	struct sysv_ctx *c = arg;
	int mqd = mq_create();

	return mqd < 0 ? mqd : (c->id = mqd);
}

/*
 * Success: an empty queue of the bounds asked for, found by its name, that
 * carries a message. Failure: the name finds no queue.
 */
static bool mq_open_check(void *arg, int ret, char *why, size_t size)
{
	struct sysv_ctx *c = arg;
	int mqd = mq_open(MQ_NAME, O_RDONLY | O_CLOEXEC), err = errno;

	if (!sysv_listed(c, ret, why, size))
		return false;
	if (mqd >= 0)
		close(mqd);
	if (ret < 0) {
		if (mqd < 0 && err == ENOENT)
			return true;
		snprintf(why, size, "mq_open failed, yet %s opens (%s)",
			 MQ_NAME, mqd < 0 ? strerror(err) : "it is there");
		return false;
	}
	if (mqd < 0) {
		snprintf(why, size, "opening the new %s: %s", MQ_NAME,
			 strerror(err));
		return false;
	}
	if (!mq_holds(c->id, 0, "new queue", why, size))
		return false;
	if (mq_send(c->id, msg_out.mtext, MSG_LEN, MQ_PRIO)) {
		snprintf(why, size, "mq_send to the new queue: %s",
			 strerror(errno));
		return false;
	}
	return mq_has_msg_out(c->id, why, size);
}

/* A new queue, unarmed: its message tree has no spare node yet. */
static void mq_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sysv_ctx *c = arg;

	c->id = mq_create();
	ASSERT_LE(0, c->id)
	{
		TH_LOG("mq_open (unarmed): %s", strerror(-c->id));
	}
}

/*
 * mq_send() of msg_out's text: the message and its segment (load_msg()),
 * and the node of the priority tree: a spare one
 * (ipc/mqueue.c:do_mq_timedsend()), or else one allocated in msg_insert().
 */
static int mq_send_action(void *arg)
{
	struct sysv_ctx *c = arg;

	return mq_send(c->id, msg_out.mtext, MSG_LEN, MQ_PRIO) ? -errno : 0;
}

/* Success: queued once, whole. Failure: the queue stays empty. */
static bool mq_send_check(void *arg, int ret, char *why, size_t size)
{
	struct sysv_ctx *c = arg;

	if (!sysv_listed(c, ret, why, size))
		return false;
	if (ret < 0)
		return mq_holds(c->id, 0, "after a failed mq_send", why, size);
	return mq_holds(c->id, 1, "after mq_send", why, size) &&
	       mq_has_msg_out(c->id, why, size);
}

/* A new queue holding msg_out's text, sent unarmed. */
static void mq_receive_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sysv_ctx *c = arg;

	mq_prepare(_metadata, c);
	ASSERT_EQ(0, mq_send_action(c))
	{
		TH_LOG("mq_send (unarmed): %s", strerror(errno));
	}
}

/*
 * mq_receive() of the message: a spare node for the priority tree, which
 * ipc/mqueue.c:do_mq_timedreceive() allocates for a later send and goes
 * on without (line 1239, linux 6.12); nothing else is allocated.
 */
static int mq_receive_action(void *arg)
{
	struct sysv_ctx *c = arg;
	unsigned int prio = 0;
	ssize_t len;

	memset(&msg_in, 0, sizeof(msg_in));
	len = mq_receive(c->id, msg_in.mtext, MSG_LEN, &prio);
	if (len < 0)
		return -errno;
	msg_in.mtype = prio;
	return len;
}

/*
 * Success: the whole message at its priority, and an empty queue.
 * Failure: the message still queued, whole.
 */
static bool mq_receive_check(void *arg, int ret, char *why, size_t size)
{
	struct sysv_ctx *c = arg;

	if (!sysv_listed(c, ret, why, size))
		return false;
	if (ret < 0)
		return mq_holds(c->id, 1, "after a failed mq_receive", why,
				size) &&
		       mq_has_msg_out(c->id, why, size);
	if (ret != MSG_LEN || msg_in.mtype != MQ_PRIO ||
	    memcmp(msg_in.mtext, msg_out.mtext, MSG_LEN)) {
		const char *fmt =
			"mq_receive gave %d bytes at priority %ld: not the message sent";

		snprintf(why, size, fmt, ret, msg_in.mtype);
		return false;
	}
	return mq_holds(c->id, 0, "after mq_receive", why, size);
}

static void sysv_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct sysv_ctx *c = arg;
	int err;

	/*
	 * A POSIX queue a failed mq_open() left (its check said so), lest
	 * the next point's O_EXCL fail for it.
	 */
	if (c->id < 0 && !c->proc)
		mq_unlink(MQ_NAME);
	if (c->id < 0)
		return;
	err = c->remove(c->id) ? errno : 0;
	ASSERT_EQ(0, err)
	{
		TH_LOG("removing id %d: %s", c->id, strerror(err));
	}
	c->id = -1;
}

/*
 * After cleanup, /proc/sysvipc lists what it did before the sweep; no
 * POSIX queue is left.
 */
static bool sysv_settled(void *arg, char *why, size_t size)
{
	struct sysv_ctx *c = arg;
	int mqd;

	if (c->proc)
		return listed_as_before(c, -1, "after cleanup", why, size);
	mqd = mq_open(MQ_NAME, O_RDONLY | O_CLOEXEC);
	if (mqd < 0 && errno == ENOENT)
		return true;
	if (mqd >= 0)
		close(mqd);
	snprintf(why, size, "after cleanup, %s opens (%s)", MQ_NAME,
		 mqd < 0 ? strerror(errno) : "it is there");
	return false;
}

FIXTURE(sysv)
{
	struct sysv_ctx ctx;
};

/* The scenario, and struct sysv_ctx's proc, remove and creates. */
FIXTURE_VARIANT(sysv)
{
	const struct failnth_scenario *op;
	const char *proc;
	int (*remove)(int id);
	bool creates;
};

FAILNTH_VARIANT_MORE(sysv, msgget_private,
		     (.proc = "/proc/sysvipc/msg", .remove = msg_remove,
		      .creates = true),
		     .allowed = ipc_errnos, .action = msgget_private_action,
		     .check = msgget_check, .cleanup = sysv_cleanup,
		     .settled = sysv_settled);

FAILNTH_VARIANT_MORE(sysv, msgget_key,
		     (.proc = "/proc/sysvipc/msg", .remove = msg_remove,
		      .creates = true),
		     .allowed = ipc_errnos, .action = msgget_key_action,
		     .check = msgget_key_check, .cleanup = sysv_cleanup,
		     .settled = sysv_settled);

FAILNTH_VARIANT_ADD(sysv, msgsnd, "msgsnd_8000",
		    (.proc = "/proc/sysvipc/msg", .remove = msg_remove),
		    .allowed = ipc_errnos, .prepare = msgsnd_prepare,
		    .action = msgsnd_action, .check = msgsnd_check,
		    .cleanup = sysv_cleanup, .settled = sysv_settled);

FAILNTH_VARIANT_MORE(sysv, semget,
		     (.proc = "/proc/sysvipc/sem", .remove = sem_remove,
		      .creates = true),
		     .allowed = ipc_errnos, .action = semget_action,
		     .check = semget_check, .cleanup = sysv_cleanup,
		     .settled = sysv_settled);

FAILNTH_VARIANT_MORE(sysv, semop_undo,
		     (.proc = "/proc/sysvipc/sem", .remove = sem_remove),
		     .allowed = ipc_errnos, .prepare = semop_prepare,
		     .action = semop_action, .check = semop_check,
		     .cleanup = sysv_cleanup, .settled = sysv_settled);

FAILNTH_VARIANT_MORE(sysv, mq_open, (.remove = mq_remove, .creates = true),
		     .allowed = ipc_errnos, .action = mq_open_action,
		     .check = mq_open_check, .cleanup = sysv_cleanup,
		     .settled = sysv_settled);

FAILNTH_VARIANT_ADD(sysv, mq_send, "mq_send_8000", (.remove = mq_remove),
		    .allowed = ipc_errnos, .prepare = mq_prepare,
		    .action = mq_send_action, .check = mq_send_check,
		    .cleanup = sysv_cleanup, .settled = sysv_settled);

FAILNTH_VARIANT_ADD(sysv, mq_receive, "mq_receive_8000", (.remove = mq_remove),
		    .allowed = mq_receive_errnos, .prepare = mq_receive_prepare,
		    .action = mq_receive_action, .check = mq_receive_check,
		    .cleanup = sysv_cleanup, .settled = sysv_settled);

/*
 * A private IPC namespace, and what /proc/sysvipc lists in it; the POSIX
 * queues are those of its own mqueue filesystem.
 */
FIXTURE_SETUP(sysv)
{
	const char *missing = failnth_missing();
	struct sysv_ctx *c = &self->ctx;
	int i;

	c->id = -1;
	c->proc = variant->proc;
	c->remove = variant->remove;
	c->creates = variant->creates;
	if (missing)
		SKIP(return, "%s", missing);
	if (unshare(CLONE_NEWIPC)) {
		const char *fmt =
			"cannot unshare the IPC namespace (CONFIG_IPC_NS): %s";

		SKIP(return, fmt, strerror(errno));
	}
	if (!c->proc) {
		int mqd = mq_open(MQ_NAME, O_RDONLY | O_CLOEXEC);

		if (mqd < 0 && errno == ENOSYS)
			SKIP(return, REASON_NO_MQUEUE);
		ASSERT_TRUE(mqd < 0 && errno == ENOENT);
	} else if (access(c->proc, R_OK)) {
		const char *fmt =
			"%s missing: needs CONFIG_SYSVIPC and CONFIG_PROC_FS";

		SKIP(return, fmt, c->proc);
	}
	c->nr_before = c->proc ? read_ids(c->proc, c->before, MAX_IDS) : 0;
	ASSERT_LE(0, c->nr_before)
	{
		TH_LOG("reading %s: %s", c->proc, strerror(-c->nr_before));
	}
	msg_out.mtype = 7;
	for (i = 0; i < MSG_LEN; i++)
		msg_out.mtext[i] = i * 131 + i / 4096;
}

FIXTURE_TEARDOWN(sysv)
{
	struct sysv_ctx *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	if (c->id >= 0)
		c->remove(c->id);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed or fail with ENOMEM; a success leaves a working object, a queued
 * message or exact semaphore values, a failure none of these, and no id
 * outlives its cleanup.
 */
FAILNTH_SWEEP_OP(sysv, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
