// SPDX-License-Identifier: GPL-2.0
/*
 * BPF maps, programs and the verifier while their small allocations fail,
 * one at a time.
 *
 * Each variant runs one bpf() command with every failslab and
 * fail_page_alloc point on its path made to fail in turn (see failnth.h):
 * BPF_MAP_CREATE of a map of each common type (a spin lock in its BTF
 * value, an inner map with one, a CPU map, socket storage among them),
 * the element commands (update, lookup, delete, next key, pop, the batch
 * commands; a CPU map's element and its kthread, a socket's storage) on a
 * map made unarmed, BPF_PROG_LOAD of a socket filter that calls a helper
 * and a subprogram, with a verifier log and a checkpoint at every prune
 * point or, in one variant, the BTF of its functions, BPF_BTF_LOAD of a
 * hand-built BTF, BPF_PROG_TEST_RUN with a context, BPF_OBJ_GET_INFO_BY_FD
 * of a program's instructions, BPF_PROG_BIND_MAP, BPF_OBJ_PIN into a bpffs
 * of the test's own, and, in a network namespace of its own, an XDP link
 * on the loopback and a flow dissector attached by BPF_LINK_CREATE or
 * BPF_PROG_ATTACH and queried by BPF_PROG_QUERY. The call must succeed or
 * fail with an allowed errno.
 *
 * A success is read back: a new map, program, BTF or link has an id that
 * was not listed before and the type, sizes and contents asked for, and
 * works (an element put in reads back, the program runs and returns what
 * its code computes); an element written is found, one deleted is gone, a
 * pin opens the object pinned, an attached program is what the namespace
 * runs. A failure leaves no new id (BPF_*_GET_NEXT_ID lists those before
 * the call, or fewer), no fd (the engine counts them), no element, no
 * pin, no attached program, nothing written out, and the map the program
 * counts its runs in unchanged.
 *
 * Raw bpf() with <linux/bpf.h>, no libbpf: the test must not depend on a
 * library's own retries and fallbacks.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "failnth.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 90

/* Bound on the ids of one kind that a listing holds. */
#define MAX_IDS 64

/* The bpffs of the pin variant, in the test's own mount namespace. */
#define BPFFS_DIR "/tmp"
#define PIN_PATH BPFFS_DIR "/pinned"

/* The verifier's log: level 2 logs every instruction of every state. */
#define LOG_SIZE (64 * 1024)

/* Elements of the maps made unarmed, and the values they hold. */
#define NR_ELEMS 8
#define VALUE(k) (0x746f6f7300000000ULL | 0x10001ULL * (k))

/* What the test run's packet is, and what the program returns for it. */
#define PKT_LEN 64
#define ETH_HLEN 14
#define PROG_RET (PKT_LEN - ETH_HLEN + 1000)

/* How many times an update waits 1 ms for a memory cache's refill. */
#define REFILL_TRIES 1000

/* A value percpu maps copy out per possible CPU: room for many CPUs. */
#define PERCPU_MAX 256

/*
 * Clean failures of every command here: none but ENOMEM. Each allocation
 * on these paths reports its failure as ENOMEM, in linux 6.12: the id
 * (kernel/bpf/syscall.c:358, idr_alloc_cyclic() after idr_preload()), the
 * key and value copies (syscall.c:1518 __bpf_copy_key(), 1562, 1629
 * kvmemdup_bpfptr(), 1729, 1782, 1845, 1905, 1910, 2019), each map's
 * memory (arraymap.c:137-154, hashtab.c:343, 410, 530, 582, 624,
 * lpm_trie.c:349, 430, 588, ringbuf.c:203, 210, queue_stack_maps.c:78,
 * bloom_filter.c:148, map_in_map.c:34, devmap.c:169, cpumap.c:100, 110,
 * 561, bpf_local_storage.c:471, 555, 589, 777, 788), the spin lock's
 * record (btf.c:3974, syscall.c:593), the bound map (syscall.c:5625), the
 * verifier's env, states and arrays (verifier.c:1725, 1737 push_stack(),
 * 22182, 22189 bpf_check()), the test run's packet and context
 * (net/bpf/test_run.c:669, 821, 1036, 1045), the netns programs and link
 * (net_namespace.c:341, 453, 495, core.c:2698), the XDP link
 * (net/core/dev.c:9986) and the anon inode file and its fd (fs/file.c,
 * fs/file_table.c).
 */
static const int bpf_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of BPF_OBJ_PIN: ENOMEM, and ENOSPC for the inode of the
 * pin, which kernel/bpf/inode.c:119 (bpf_get_inode(), linux 6.12) reports
 * so when new_inode() fails.
 */
static const int pin_errnos[] = { ENOMEM, ENOSPC, 0 };

/*
 * The BTF of the program's two functions, built by hand: int, a struct of
 * two ints (for BPF_BTF_LOAD to check a member), int (int) and the static
 * functions main and sub of that prototype; then struct bpf_spin_lock and
 * a map value that holds one, struct val.
 */
#define BTF_INFO(kind, vlen) ((kind) << 24 | (vlen))
#define BTF_STRS "\0int\0pair\0a\0b\0x\0main\0sub\0bpf_spin_lock\0val\0lock"
/*
 * int 16 bytes, pair 12 + 2 * 12, the prototype 12 + 8, the functions
 * 2 * 12, bpf_spin_lock 12 + 12, val 12 + 2 * 12.
 */
#define BTF_TYPES_LEN (16 + 36 + 20 + 24 + 24 + 36)

enum {
	STR_INT = 1,
	STR_PAIR = 5,
	STR_A = 10,
	STR_B = 12,
	STR_X = 14,
	STR_MAIN = 16,
	STR_SUB = 21,
	STR_SPIN_LOCK = 25,
	STR_VAL = 39,
	STR_LOCK = 43
};

enum {
	BTF_ID_INT = 1,
	BTF_ID_PAIR,
	BTF_ID_PROTO,
	BTF_ID_MAIN,
	BTF_ID_SUB,
	BTF_ID_SPIN_LOCK,
	BTF_ID_VAL
};

/* What a map variant makes: a BPF_MAP_CREATE's attributes. */
struct map_spec {
	__u32 type;
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u32 flags;
	/* The value of a map-in-map is an inner map (inner_spec's kind). */
	bool of_maps;
	/* Per-CPU values: a lookup copies one per possible CPU. */
	bool percpu;
	/* Flags the map type adds to those asked for, as its info shows. */
	__u32 added;
	/*
	 * The BTF type of the value, of the BTF the fixture loads, with a
	 * key of type int; 0: none. A value with a spin lock (struct val:
	 * btf_parse_fields() finds the lock). For a map-in-map: an inner map
	 * with one.
	 */
	__u32 btf_value;
	bool spin_lock, inner_lock;
};

/* The BTF of the maps with BTF, loaded by the fixture, and its id. */
static int spec_btf_fd = -1;
static __u32 spec_btf_id;

/* The socket whose storage the socket storage variants make. */
static int sk_fd = -1;

/* Which of the BPF_*_GET_NEXT_ID listings a variant's object is in. */
enum id_kind {
	IDS_NONE,
	IDS_MAP,
	IDS_PROG,
	IDS_BTF,
	IDS_LINK,
};

static const int next_id_cmd[] = {
	[IDS_MAP] = BPF_MAP_GET_NEXT_ID,
	[IDS_PROG] = BPF_PROG_GET_NEXT_ID,
	[IDS_BTF] = BPF_BTF_GET_NEXT_ID,
	[IDS_LINK] = BPF_LINK_GET_NEXT_ID,
};

static const char *const id_kind_name[] = {
	[IDS_MAP] = "map",
	[IDS_PROG] = "prog",
	[IDS_BTF] = "btf",
	[IDS_LINK] = "link",
};

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct bpf_ctx {
	/* The variant's map, its id kind and what it needs made unarmed. */
	const struct map_spec *spec;
	enum id_kind kind;
	/* A map made unarmed: the one the command works on, or the inner. */
	int map_fd, inner_fd;
	/* A program, a BTF and a second map made unarmed, and a link. */
	int prog_fd, btf_fd, other_fd, link_fd;
	/* The network namespace of the netns variants. */
	int netns_fd;
	/* Whether the batch command deletes what it reads. */
	bool deletes;
	/* Whether the pin variant's bpffs is mounted on BPFFS_DIR. */
	bool bpffs;
	/* The loopback of the XDP variant's network namespace. */
	int ifindex;
	/* The ids of the variant's kind listed before the call. */
	__u32 before[MAX_IDS];
	int nr_before;
};

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* bpf() as an action returns it: what it returned, or -errno. */
static int bpf_ret(int cmd, union bpf_attr *attr)
{
	long ret = sys_bpf(cmd, attr);

	return ret < 0 ? -errno : ret;
}

static __u64 ptr(const void *p)
{
	return (__u64)(uintptr_t)p;
}

/*
 * The ids that the BPF_*_GET_NEXT_ID listing of @kind holds, into @ids:
 * their number or -errno.
 */
static int list_ids(enum id_kind kind, __u32 *ids, int max)
{
	union bpf_attr attr = {};
	int nr = 0;

	for (;;) {
		if (sys_bpf(next_id_cmd[kind], &attr))
			return errno == ENOENT ? nr : -errno;
		if (nr == max)
			return -EFBIG;
		ids[nr++] = attr.next_id;
		attr.start_id = attr.next_id;
	}
}

static bool id_in(__u32 id, const __u32 *ids, int nr)
{
	while (nr-- > 0)
		if (ids[nr] == id)
			return true;
	return false;
}

/*
 * Whether the listing holds @id (0: none) and, besides, none that was not
 * listed before the call. Fewer is fine: an object a former point's
 * cleanup dropped may go later, after an RCU grace period (a map a freed
 * program used).
 */
static bool listed_as_before(struct bpf_ctx *c, __u32 id, char *why,
			     size_t size)
{
	const char *name = id_kind_name[c->kind];
	__u32 now[MAX_IDS];
	int nr, i;

	nr = list_ids(c->kind, now, MAX_IDS);
	if (nr < 0) {
		snprintf(why, size, "listing the %s ids: %s", name,
			 strerror(-nr));
		return false;
	}
	for (i = 0; i < nr; i++) {
		if (now[i] == id || id_in(now[i], c->before, c->nr_before))
			continue;
		snprintf(why, size, "%s id %u is listed, %s", name, now[i],
			 id ? "not the new one's" : "yet the call failed");
		return false;
	}
	if (id && !id_in(id, now, nr)) {
		snprintf(why, size, "the new %s id %u is not listed", name, id);
		return false;
	}
	return true;
}

/* BPF_OBJ_GET_INFO_BY_FD of @fd into @info: 0 or -errno. */
static int obj_info(int fd, void *info, __u32 len)
{
	union bpf_attr attr = {
		.info.bpf_fd = fd,
		.info.info_len = len,
		.info.info = ptr(info),
	};

	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) ? -errno : 0;
}

/* The id of map @fd, or 0 with the reason in @why. */
static __u32 map_id(int fd, struct bpf_map_info *info, char *why, size_t size)
{
	int err;

	memset(info, 0, sizeof(*info));
	err = obj_info(fd, info, sizeof(*info));
	if (!err)
		return info->id;
	snprintf(why, size, "map info of fd %d: %s", fd, strerror(-err));
	return 0;
}

static int map_update(int fd, const void *key, const void *value, __u64 flags)
{
	union bpf_attr attr = {
		.map_fd = fd,
		.key = ptr(key),
		.value = ptr(value),
		.flags = flags,
	};

	return sys_bpf(BPF_MAP_UPDATE_ELEM, &attr) ? -errno : 0;
}

/*
 * map_update() of a new element of a map that is not preallocated. Its
 * elements come from a per-CPU cache (kernel/bpf/memalloc.c) that map
 * creation fills with a few, and an irq_work refills when it runs low; a
 * failure while filling it leaves it empty, which an update reports as
 * ENOMEM (hashtab.c:1143, linux 6.12) and which the refill it starts
 * mends. So an update that finds it empty is tried again, within a bound.
 */
static int map_update_new(int fd, const void *key, const void *value,
			  __u64 flags)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	int err, i;

	for (i = 0; i < REFILL_TRIES; i++) {
		err = map_update(fd, key, value, flags);
		if (err != -ENOMEM)
			break;
		nanosleep(&ms, NULL);
	}
	return err;
}

static int map_lookup(int fd, const void *key, void *value)
{
	union bpf_attr attr = {
		.map_fd = fd,
		.key = ptr(key),
		.value = ptr(value),
	};

	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) ? -errno : 0;
}

/* The keys of map @fd, counted by BPF_MAP_GET_NEXT_KEY: or -errno. */
static int map_count(int fd, __u32 key_size)
{
	static unsigned char key[64], next[64];
	union bpf_attr attr = {
		.map_fd = fd,
		.next_key = ptr(next),
	};
	int nr = 0;

	while (!sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr)) {
		memcpy(key, next, key_size);
		attr.key = ptr(key);
		if (++nr > 4096)
			return -ELOOP;
	}
	return errno == ENOENT ? nr : -errno;
}

/* Whether map @fd holds @expect keys; if not, says so in @why. */
static bool map_holds(int fd, __u32 key_size, int expect, char *why,
		      size_t size)
{
	int nr = map_count(fd, key_size);

	if (nr == expect)
		return true;
	snprintf(why, size, "the map holds %d keys%s%s, expected %d",
		 nr < 0 ? 0 : nr, nr < 0 ? ": " : "",
		 nr < 0 ? strerror(-nr) : "", expect);
	return false;
}

/*
 * Whether u32 key @key of map @fd holds VALUE(@key) (per-CPU: on the
 * first CPU), or, if @present is false, is absent.
 */
static bool elem_is(int fd, __u32 key, bool present, char *why, size_t size)
{
	__u64 val[PERCPU_MAX] = {};
	int err = map_lookup(fd, &key, val);

	if (present ? !err && val[0] == VALUE(key) : err == -ENOENT)
		return true;
	snprintf(why, size, "key %u: lookup gave %s, value 0x%llx; expected %s",
		 key, err ? strerror(-err) : "a value",
		 (unsigned long long)val[0], present ? "its value" : "ENOENT");
	return false;
}

/* BPF_MAP_CREATE of @s; an inner map's fd for a map-in-map. */
static int map_create(const struct map_spec *s, int inner_fd)
{
	union bpf_attr attr = {
		.map_type = s->type,
		.key_size = s->key_size,
		.value_size = s->value_size,
		.max_entries = s->max_entries,
		.map_flags = s->flags,
		.inner_map_fd = s->of_maps ? inner_fd : 0,
		.map_name = "failnth",
	};

	if (s->btf_value) {
		attr.btf_fd = spec_btf_fd;
		attr.btf_key_type_id = BTF_ID_INT;
		attr.btf_value_type_id = s->btf_value;
	}

	return bpf_ret(BPF_MAP_CREATE, &attr);
}

/* A map_spec: type, key and value sizes, entries, then other fields. */
#define SPEC(t, k, v, n, ...)                                    \
	{                                                        \
		.type = (t), .key_size = (k), .value_size = (v), \
		.max_entries = (n), __VA_ARGS__                  \
	}

/* The inner map of the map-in-map variants: an array of one u64. */
static const struct map_spec inner_spec = {
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = 4,
	.value_size = 8,
	.max_entries = 1,
};

/* Or an array of one struct val, with its spin lock. */
static const struct map_spec inner_lock_spec = SPEC(BPF_MAP_TYPE_ARRAY, 4, 8, 1,
						    .btf_value = BTF_ID_VAL,
						    .spin_lock = true);

/*
 * The map each map variant makes. The key of an LPM trie is a prefix
 * length and an IPv4 address; a ring buffer's size is a power-of-2 number
 * of pages; a queue, a stack and a bloom filter have no key.
 */
static const struct map_spec array_spec =
	SPEC(BPF_MAP_TYPE_ARRAY, 4, 8, NR_ELEMS);

static const struct map_spec percpu_array_spec =
	SPEC(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, NR_ELEMS, .percpu = true);

static const struct map_spec hash_spec =
	SPEC(BPF_MAP_TYPE_HASH, 4, 8, NR_ELEMS);

static const struct map_spec hash_noprealloc_spec =
	SPEC(BPF_MAP_TYPE_HASH, 4, 8, NR_ELEMS, .flags = BPF_F_NO_PREALLOC);

static const struct map_spec percpu_hash_spec =
	SPEC(BPF_MAP_TYPE_PERCPU_HASH, 4, 8, NR_ELEMS, .percpu = true);

static const struct map_spec lru_hash_spec =
	SPEC(BPF_MAP_TYPE_LRU_HASH, 4, 8, NR_ELEMS);

static const struct map_spec lru_percpu_hash_spec =
	SPEC(BPF_MAP_TYPE_LRU_PERCPU_HASH, 4, 8, NR_ELEMS, .percpu = true);

static const struct map_spec lpm_trie_spec =
	SPEC(BPF_MAP_TYPE_LPM_TRIE, 8, 8, NR_ELEMS, .flags = BPF_F_NO_PREALLOC);

static const struct map_spec ringbuf_spec =
	SPEC(BPF_MAP_TYPE_RINGBUF, 0, 0, 4096);

static const struct map_spec queue_spec =
	SPEC(BPF_MAP_TYPE_QUEUE, 0, 8, NR_ELEMS);

static const struct map_spec stack_spec =
	SPEC(BPF_MAP_TYPE_STACK, 0, 8, NR_ELEMS);

static const struct map_spec bloom_spec =
	SPEC(BPF_MAP_TYPE_BLOOM_FILTER, 0, 8, NR_ELEMS);

static const struct map_spec array_of_maps_spec =
	SPEC(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, NR_ELEMS, .of_maps = true);

static const struct map_spec hash_of_maps_spec =
	SPEC(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, NR_ELEMS, .of_maps = true);

static const struct map_spec hash_lock_spec =
	SPEC(BPF_MAP_TYPE_HASH, 4, 8, NR_ELEMS, .btf_value = BTF_ID_VAL,
	     .spin_lock = true);

/*
 * Socket storage: no entries (each socket has its own), not preallocated,
 * with BTF for its key and value (bpf_local_storage.c:673, linux 6.12);
 * the key of a command is a socket's fd.
 */
static const struct map_spec sk_storage_spec =
	SPEC(BPF_MAP_TYPE_SK_STORAGE, 4, 8, 0, .flags = BPF_F_NO_PREALLOC,
	     .btf_value = BTF_ID_PAIR);

static const struct map_spec array_of_lock_maps_spec =
	SPEC(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, NR_ELEMS, .of_maps = true,
	     .inner_lock = true);

/*
 * A CPU map of one CPU: an element is a queue of qsize frames and the
 * kthread that serves it.
 */
static const struct map_spec cpumap_spec = SPEC(BPF_MAP_TYPE_CPUMAP, 4, 4, 1);

/* The queue size of the CPU map's element. */
#define CPUMAP_QSIZE 16

/*
 * A devmap is read-only to programs: kernel/bpf/devmap.c:139 (linux 6.12)
 * adds BPF_F_RDONLY_PROG to its flags.
 */
static const struct map_spec devmap_spec =
	SPEC(BPF_MAP_TYPE_DEVMAP, 4, 4, NR_ELEMS, .added = BPF_F_RDONLY_PROG);

/* An LPM trie key: a prefix length and an IPv4 address. */
struct lpm_key {
	__u32 prefixlen;
	__u8 addr[4];
};

/*
 * Whether a new map @fd works as its type says: a key put in reads back
 * (a map-in-map's value is the inner map's id), a queue or stack pops
 * what was pushed, a bloom filter finds what was added.
 */
static bool map_works(struct bpf_ctx *c, int fd, char *why, size_t size)
{
	static const char works_fmt[] =
		"the new map: an element put in reads back %s 0x%llx, not 0x%llx";
	const struct map_spec *s = c->spec;
	struct bpf_map_info info;
	struct lpm_key lpm = { 24, { 10, 0, 1, 0 } };
	__u64 val = VALUE(3), got[PERCPU_MAX] = {};
	__u32 key = 3, inner;
	union bpf_attr attr = {
		.map_fd = fd,
		.value = ptr(got),
	};
	int err = 0;

	if (s->spin_lock) {
		/*
		 * BPF_F_LOCK works only on a value with a spin lock
		 * (syscall.c:1551, linux 6.12): the lock was found. The
		 * lock reads back as 0.
		 */
		val = 0x746f6f73;
		err = map_update(fd, &key, &val, BPF_F_LOCK);
		attr.key = ptr(&key);
		attr.flags = BPF_F_LOCK;
		if (!err)
			err = sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) ? -errno : 0;
		s = NULL;
	}
	switch (s ? s->type : BPF_MAP_TYPE_UNSPEC) {
	case BPF_MAP_TYPE_UNSPEC:
		break;
	case BPF_MAP_TYPE_RINGBUF:
		return true;
	case BPF_MAP_TYPE_SK_STORAGE:
		/* The storage of the fixture's socket. */
		err = map_update(fd, &sk_fd, &val, BPF_NOEXIST);
		if (!err)
			err = map_lookup(fd, &sk_fd, got);
		break;
	case BPF_MAP_TYPE_CPUMAP:
		/* CPU 0, with a queue: its kthread is started. */
		key = 0;
		val = CPUMAP_QSIZE;
		err = map_update(fd, &key, &val, BPF_ANY);
		if (!err)
			err = map_lookup(fd, &key, got);
		got[0] = (__u32)got[0];
		break;
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		err = map_update(fd, NULL, &val, BPF_ANY);
		if (!err)
			err = sys_bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM, &attr) ?
				      -errno :
				      0;
		break;
	case BPF_MAP_TYPE_BLOOM_FILTER:
		err = map_update(fd, NULL, &val, BPF_ANY);
		if (!err)
			err = map_lookup(fd, NULL, &val);
		got[0] = val;
		break;
	case BPF_MAP_TYPE_LPM_TRIE:
		err = map_update(fd, &lpm, &val, BPF_NOEXIST);
		lpm.prefixlen = 32;
		lpm.addr[3] = 7;
		if (!err)
			err = map_lookup(fd, &lpm, got);
		break;
	case BPF_MAP_TYPE_DEVMAP:
		/* The loopback, ifindex 1 in any namespace. */
		key = 1;
		err = map_update(fd, &key, &key, BPF_ANY);
		if (!err)
			err = map_lookup(fd, &key, got);
		val = key;
		got[0] = (__u32)got[0];
		break;
	default:
		if (s->of_maps) {
			inner = map_id(c->inner_fd, &info, why, size);
			if (!inner)
				return false;
			err = map_update(fd, &key, &c->inner_fd, BPF_ANY);
			if (!err)
				err = map_lookup(fd, &key, got);
			val = inner;
			got[0] = (__u32)got[0];
			break;
		}
		if (s->flags & BPF_F_NO_PREALLOC)
			err = map_update_new(fd, &key, &val, BPF_ANY);
		else
			err = map_update(fd, &key, &val, BPF_ANY);
		if (!err)
			err = map_lookup(fd, &key, got);
	}
	if (!err && got[0] == val)
		return true;
	snprintf(why, size, works_fmt, err ? strerror(-err) : "as",
		 (unsigned long long)got[0], (unsigned long long)val);
	return false;
}

/* The map made unarmed that an element command works on. */
static void map_prepare(struct __test_metadata *_metadata, struct bpf_ctx *c)
{
	c->map_fd = map_create(c->spec, c->inner_fd);
	ASSERT_LE(0, c->map_fd)
	{
		TH_LOG("creating the map (unarmed): %s", strerror(-c->map_fd));
	}
}

/* Before each point: the ids listed, then the variant's own setup. */
static void ids_prepare(struct __test_metadata *_metadata, struct bpf_ctx *c)
{
	if (c->kind == IDS_NONE)
		return;
	c->nr_before = list_ids(c->kind, c->before, MAX_IDS);
	ASSERT_LE(0, c->nr_before)
	{
		TH_LOG("listing the %s ids: %s", id_kind_name[c->kind],
		       strerror(-c->nr_before));
	}
}

/* BPF_MAP_CREATE of the variant's map. */
static void create_prepare(struct __test_metadata *_metadata, void *arg)
{
	ids_prepare(_metadata, arg);
}

static int create_action(void *arg)
{
	struct bpf_ctx *c = arg;

	return map_create(c->spec, c->inner_fd);
}

/*
 * Success: a new id, listed; the info says the type, sizes, entries and
 * flags asked for; the map works. Failure: no new id.
 */
static bool create_check(void *arg, int ret, char *why, size_t size)
{
	static const char btf_fmt[] =
		"map info: btf %u key type %u value type %u; asked %u %u %u";
	struct bpf_ctx *c = arg;
	const struct map_spec *s = c->spec;
	struct bpf_map_info info;
	__u32 id;

	if (ret < 0)
		return listed_as_before(c, 0, why, size);
	id = map_id(ret, &info, why, size);
	if (!id || !listed_as_before(c, id, why, size))
		return false;
	if (info.type != s->type || info.key_size != s->key_size ||
	    info.value_size != s->value_size ||
	    info.max_entries != s->max_entries ||
	    info.map_flags != (s->flags | s->added) ||
	    strcmp(info.name, "failnth")) {
		const char *fmt =
			"info: type %u sizes %u %u max %u flags 0x%x %.16s; asked %u %u %u %u 0x%x";

		snprintf(why, size, fmt, info.type, info.key_size,
			 info.value_size, info.max_entries, info.map_flags,
			 info.name, s->type, s->key_size, s->value_size,
			 s->max_entries, s->flags | s->added);
		return false;
	}
	if (s->btf_value &&
	    (info.btf_id != spec_btf_id || info.btf_key_type_id != BTF_ID_INT ||
	     info.btf_value_type_id != s->btf_value)) {
		snprintf(why, size, btf_fmt, info.btf_id, info.btf_key_type_id,
			 info.btf_value_type_id, spec_btf_id, BTF_ID_INT,
			 s->btf_value);
		return false;
	}
	return map_works(c, ret, why, size);
}

/*
 * The element commands, on a map made unarmed (map_prepare()) that holds
 * keys 0 and 1 (a queue: one value; an LPM trie: 10.0.0.0/8 and
 * 10.2.0.0/16).
 */
static void elems_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;
	struct lpm_key lpm = { 8, { 10 } };
	__u64 val[PERCPU_MAX];
	__u32 key;
	int i;

	map_prepare(_metadata, c);
	for (key = 0; key < 2; key++) {
		for (i = 0; i < PERCPU_MAX; i++)
			val[i] = VALUE(key);
		if (c->spec->type == BPF_MAP_TYPE_QUEUE) {
			ASSERT_EQ(0, map_update(c->map_fd, NULL, val, 0));
			break;
		}
		if (c->spec->type != BPF_MAP_TYPE_LPM_TRIE) {
			ASSERT_EQ(0, map_update(c->map_fd, &key, val, 0));
			continue;
		}
		ASSERT_EQ(0, map_update(c->map_fd, &lpm, val, 0));
		lpm.prefixlen = 16;
		lpm.addr[1] = 2;
	}
}

/*
 * BPF_MAP_UPDATE_ELEM of a new key 5 (an LPM trie: 10.1.0.0/16, beside
 * 10.2.0.0/16 under 10.0.0.0/8: an intermediate node joins them).
 */
static __u64 new_val[PERCPU_MAX];

static int update_action(void *arg)
{
	struct bpf_ctx *c = arg;
	struct lpm_key lpm = { 16, { 10, 1 } };
	__u32 key = 5;

	if (c->spec->type == BPF_MAP_TYPE_LPM_TRIE)
		return map_update(c->map_fd, &lpm, new_val, BPF_NOEXIST);
	return map_update(c->map_fd, &key, new_val, BPF_NOEXIST);
}

/* The value in an LPM trie for @a.@b.0.1: 0 if none, or -errno. */
static long long lpm_value(int fd, __u8 a, __u8 b)
{
	struct lpm_key lpm = { 32, { a, b, 0, 1 } };
	__u64 val = 0;
	int err = map_lookup(fd, &lpm, &val);

	return err == -ENOENT ? 0 : err ? err : (long long)val;
}

/*
 * Success: the new key holds its value, beside the two there were.
 * Failure: it is absent, the two are there, and no more. In an LPM trie,
 * 10.1.0.1 matches the new 10.1.0.0/16, or 10.0.0.0/8 if there is none;
 * 10.2.0.1 still matches 10.2.0.0/16.
 */
static bool update_check(void *arg, int ret, char *why, size_t size)
{
	static const char lpm_fmt[] =
		"10.1.0.1 matches 0x%llx, 10.2.0.1 matches 0x%llx: not the prefixes there are";
	struct bpf_ctx *c = arg;
	long long v1, v2;

	if (!map_holds(c->map_fd, c->spec->key_size, ret < 0 ? 2 : 3, why,
		       size))
		return false;
	if (c->spec->type != BPF_MAP_TYPE_LPM_TRIE)
		return elem_is(c->map_fd, 5, ret >= 0, why, size) &&
		       elem_is(c->map_fd, 0, true, why, size) &&
		       elem_is(c->map_fd, 1, true, why, size);
	v1 = lpm_value(c->map_fd, 10, 1);
	v2 = lpm_value(c->map_fd, 10, 2);
	if (v1 == (long long)(ret < 0 ? VALUE(0) : VALUE(5)) &&
	    v2 == (long long)VALUE(1))
		return true;
	snprintf(why, size, lpm_fmt, v1, v2);
	return false;
}

/* BPF_MAP_LOOKUP_ELEM of key 1, into a buffer that holds no value. */
#define FILL_BYTE 0xa5
static __u64 out_val[PERCPU_MAX];

static void lookup_prepare(struct __test_metadata *_metadata, void *arg)
{
	elems_prepare(_metadata, arg);
	memset(out_val, FILL_BYTE, sizeof(out_val));
}

static int lookup_action(void *arg)
{
	struct bpf_ctx *c = arg;
	__u32 key = 1;

	return map_lookup(c->map_fd, &key, out_val);
}

/* Whether @buf holds @len fill bytes: nothing was written to it. */
static bool unwritten(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--)
		if (*p++ != FILL_BYTE)
			return false;
	return true;
}

/*
 * Success: the value out is key 1's. Failure: nothing is written. Either
 * way the map is as it was.
 */
static bool lookup_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;

	if (ret >= 0 ? out_val[0] != VALUE(1) :
		       !unwritten(out_val, sizeof(out_val))) {
		snprintf(why, size, "the value out is 0x%llx after %s",
			 (unsigned long long)out_val[0],
			 ret < 0 ? "a failure" : "success");
		return false;
	}
	return map_holds(c->map_fd, c->spec->key_size, 2, why, size) &&
	       elem_is(c->map_fd, 1, true, why, size);
}

/* BPF_MAP_DELETE_ELEM of key 1. */
static int delete_action(void *arg)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.map_fd = c->map_fd,
		.key = ptr(&(__u32){ 1 }),
	};

	return bpf_ret(BPF_MAP_DELETE_ELEM, &attr);
}

/* Success: key 1 is gone, key 0 stays. Failure: both stay. */
static bool delete_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;

	return map_holds(c->map_fd, c->spec->key_size, ret < 0 ? 2 : 1, why,
			 size) &&
	       elem_is(c->map_fd, 1, ret < 0, why, size) &&
	       elem_is(c->map_fd, 0, true, why, size);
}

/*
 * BPF_MAP_GET_NEXT_KEY after the first key (key 0 or 1, in the hash's
 * order), which an unarmed call with no key gives: the other one follows.
 */
static __u32 first_key, next_key;

static void next_key_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.next_key = ptr(&first_key),
	};

	elems_prepare(_metadata, arg);
	attr.map_fd = c->map_fd;
	ASSERT_EQ(0, sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr));
	memset(&next_key, FILL_BYTE, sizeof(next_key));
}

static int next_key_action(void *arg)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.map_fd = c->map_fd,
		.key = ptr(&first_key),
		.next_key = ptr(&next_key),
	};

	return bpf_ret(BPF_MAP_GET_NEXT_KEY, &attr);
}

/*
 * Success: the key out is the other of keys 0 and 1, as an unarmed call
 * gives. Failure: nothing is written.
 */
static bool next_key_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	__u32 want = 0xa5a5a5a5;
	union bpf_attr attr = {
		.map_fd = c->map_fd,
		.key = ptr(&first_key),
		.next_key = ptr(&want),
	};
	int err;

	err = ret >= 0 && sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr) ? -errno : 0;
	if (ret >= 0 && (err || want != next_key || want != !first_key)) {
		snprintf(why, size, "next key after %u is %u, unarmed %u%s%s",
			 first_key, next_key, want, err ? ": " : "",
			 err ? strerror(-err) : "");
		return false;
	}
	if (ret < 0 && !unwritten(&next_key, sizeof(next_key))) {
		snprintf(why, size, "a failed call wrote next key %u",
			 next_key);
		return false;
	}
	return map_holds(c->map_fd, c->spec->key_size, 2, why, size);
}

/* BPF_MAP_LOOKUP_AND_DELETE_ELEM of a queue: a pop. */
static int pop_action(void *arg)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.map_fd = c->map_fd,
		.value = ptr(out_val),
	};

	return bpf_ret(BPF_MAP_LOOKUP_AND_DELETE_ELEM, &attr);
}

/*
 * Success: the value out is the one pushed, and the queue is empty.
 * Failure: nothing is written, and the value is still queued.
 */
static bool pop_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	__u64 peek = 0;
	int err;

	if (ret >= 0 ? out_val[0] != VALUE(0) :
		       !unwritten(out_val, sizeof(out_val))) {
		snprintf(why, size, "the value popped is 0x%llx after %s",
			 (unsigned long long)out_val[0],
			 ret < 0 ? "a failure" : "success");
		return false;
	}
	err = map_lookup(c->map_fd, NULL, &peek);
	if (ret >= 0 ? err == -ENOENT : !err && peek == VALUE(0))
		return true;
	snprintf(why, size, "a peek after %s gave %s, 0x%llx",
		 ret < 0 ? "a failure" : "success",
		 err ? strerror(-err) : "a value", (unsigned long long)peek);
	return false;
}

/*
 * The batch commands: BPF_MAP_LOOKUP_BATCH of all the keys (an array's by
 * generic_map_lookup_batch(), a hash's by its own), BPF_MAP_UPDATE_BATCH
 * of keys 2 and 3 of an array (generic_map_update_batch()), and
 * BPF_MAP_LOOKUP_AND_DELETE_BATCH of a hash.
 */
static __u32 batch_keys[NR_ELEMS], batch_out;
static __u64 batch_vals[NR_ELEMS];

static void batch_prepare(struct __test_metadata *_metadata, void *arg)
{
	elems_prepare(_metadata, arg);
	memset(batch_keys, FILL_BYTE, sizeof(batch_keys));
	memset(batch_vals, FILL_BYTE, sizeof(batch_vals));
	memset(&batch_out, FILL_BYTE, sizeof(batch_out));
}

static int batch_lookup(struct bpf_ctx *c, int cmd)
{
	union bpf_attr attr = {
		.batch.out_batch = ptr(&batch_out),
		.batch.keys = ptr(batch_keys),
		.batch.values = ptr(batch_vals),
		.batch.count = NR_ELEMS,
		.batch.map_fd = c->map_fd,
	};
	int ret = bpf_ret(cmd, &attr);

	/* The end of the map is ENOENT, with the count of those read. */
	if (ret == -ENOENT)
		ret = 0;
	return ret < 0 ? ret : (int)attr.batch.count;
}

static int lookup_batch_action(void *arg)
{
	return batch_lookup(arg, BPF_MAP_LOOKUP_BATCH);
}

static int del_batch_action(void *arg)
{
	return batch_lookup(arg, BPF_MAP_LOOKUP_AND_DELETE_BATCH);
}

/*
 * Whether the batch read out each of keys 0 and 1 with its value (an
 * array: all NR_ELEMS keys, the others 0).
 */
static bool batch_read(struct bpf_ctx *c, int nr, char *why, size_t size)
{
	bool array = c->spec->type == BPF_MAP_TYPE_ARRAY;
	unsigned int seen = 0;
	int i;

	for (i = 0; i < nr && i < NR_ELEMS; i++) {
		__u32 k = batch_keys[i];
		__u64 want = k < 2 ? VALUE(k) : 0;

		if (k >= NR_ELEMS || (!array && k > 1) ||
		    batch_vals[i] != want || (seen & 1u << k)) {
			snprintf(why, size,
				 "batch entry %d: key %u value 0x%llx", i, k,
				 (unsigned long long)batch_vals[i]);
			return false;
		}
		seen |= 1u << k;
	}
	if (nr == (array ? NR_ELEMS : 2))
		return true;
	snprintf(why, size, "the batch read %d entries, expected %d", nr,
		 array ? NR_ELEMS : 2);
	return false;
}

/*
 * Success: every entry read out once, with its value. Failure: nothing
 * written. A lookup leaves the map as it was; a lookup and delete
 * empties it, or on failure deletes nothing.
 */
static bool batch_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	int left = c->deletes && ret >= 0 ? 0 : 2;

	if (ret >= 0 && !batch_read(c, ret, why, size))
		return false;
	if (ret < 0 && (!unwritten(batch_keys, sizeof(batch_keys)) ||
			!unwritten(batch_vals, sizeof(batch_vals)))) {
		snprintf(why, size, "a failed batch wrote keys or values");
		return false;
	}
	if (c->spec->type == BPF_MAP_TYPE_ARRAY)
		left = NR_ELEMS;
	return map_holds(c->map_fd, c->spec->key_size, left, why, size);
}

static int update_batch_action(void *arg)
{
	static const __u32 keys[] = { 2, 3 };
	static const __u64 vals[] = { VALUE(2), VALUE(3) };
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.batch.keys = ptr(keys),
		.batch.values = ptr(vals),
		.batch.count = 2,
		.batch.map_fd = c->map_fd,
	};
	int ret = bpf_ret(BPF_MAP_UPDATE_BATCH, &attr);

	return ret < 0 ? ret : (int)attr.batch.count;
}

/*
 * Success: keys 2 and 3 hold their values. Failure: both are as they
 * were, 0 (generic_map_update_batch() fails at its allocations, before
 * the first key).
 */
static bool update_batch_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	__u64 v2 = 1, v3 = 1;
	__u32 key;

	key = 2;
	map_lookup(c->map_fd, &key, &v2);
	key = 3;
	map_lookup(c->map_fd, &key, &v3);
	if (ret >= 0 ? ret == 2 && v2 == VALUE(2) && v3 == VALUE(3) :
		       !v2 && !v3)
		return true;
	snprintf(why, size,
		 "after %s (count %d), keys 2 and 3 hold 0x%llx, 0x%llx",
		 ret < 0 ? "a failure" : "success", ret, (unsigned long long)v2,
		 (unsigned long long)v3);
	return false;
}

/*
 * The program: a socket filter that counts its runs in element 0 of an
 * array map (bpf_map_lookup_elem(), an atomic add) and returns a
 * subprogram's result for skb->len: len + 1000 above 20, else len. Two
 * branches and the null check make the verifier push states.
 */
#define INSN(c, d, s, o, i)                 \
	((struct bpf_insn){ .code = (c),    \
			    .dst_reg = (d), \
			    .src_reg = (s), \
			    .off = (o),     \
			    .imm = (i) })

#define PROG_LEN 22
#define SUB_START 16

static struct bpf_insn prog[PROG_LEN];

static void prog_build(int map_fd)
{
	const struct bpf_insn insns[PROG_LEN] = {
		/* r6 = ctx; r7 = skb->len; key 0 at fp - 4 */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),
		INSN(BPF_LDX | BPF_MEM | BPF_W, 7, 6,
		     offsetof(struct __sk_buff, len), 0),
		INSN(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		/* r1 = the map; r0 = bpf_map_lookup_elem(r1, r2) */
		INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0,
		     map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 5, 0),
		/* (*r0)++, atomically; then return sub(len) */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 7, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, SUB_START - 13),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* no element: return 0 */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* sub(r1): r1 > 20 ? r1 + 1000 : r1 */
		INSN(BPF_JMP | BPF_JGT | BPF_K, 1, 0, 2, 20),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 0, 1, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 0, 1, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 1000),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	memcpy(prog, insns, sizeof(prog));
}

/* No padding: 24 bytes of header, then u32s, then the strings. */
static struct {
	struct btf_header hdr;
	__u32 types[BTF_TYPES_LEN / 4];
	char strs[sizeof(BTF_STRS)];
} btf_blob = {
	.hdr = {
		.magic = BTF_MAGIC,
		.version = BTF_VERSION,
		.hdr_len = sizeof(struct btf_header),
		.type_off = 0,
		.type_len = BTF_TYPES_LEN,
		.str_off = BTF_TYPES_LEN,
		.str_len = sizeof(BTF_STRS),
	},
	.types = {
		/* [1] int: 4 bytes, signed, 32 bits */
		STR_INT, BTF_INFO(BTF_KIND_INT, 0), 4,
		BTF_INT_SIGNED << 24 | 32,
		/* [2] struct pair { int a; int b; } */
		STR_PAIR, BTF_INFO(BTF_KIND_STRUCT, 2), 8,
		STR_A, BTF_ID_INT, 0,
		STR_B, BTF_ID_INT, 32,
		/* [3] int (int x) */
		0, BTF_INFO(BTF_KIND_FUNC_PROTO, 1), BTF_ID_INT,
		STR_X, BTF_ID_INT,
		/* [4] static int main(int x), [5] static int sub(int x) */
		STR_MAIN, BTF_INFO(BTF_KIND_FUNC, BTF_FUNC_STATIC),
		BTF_ID_PROTO,
		STR_SUB, BTF_INFO(BTF_KIND_FUNC, BTF_FUNC_STATIC),
		BTF_ID_PROTO,
		/* [6] struct bpf_spin_lock { int val; } */
		STR_SPIN_LOCK, BTF_INFO(BTF_KIND_STRUCT, 1), 4,
		STR_VAL, BTF_ID_INT, 0,
		/* [7] struct val { int a; struct bpf_spin_lock lock; } */
		STR_VAL, BTF_INFO(BTF_KIND_STRUCT, 2), 8,
		STR_A, BTF_ID_INT, 0,
		STR_LOCK, BTF_ID_SPIN_LOCK, 32,
	},
	.strs = BTF_STRS,
};

static char btf_log[LOG_SIZE];

static int btf_load(void)
{
	union bpf_attr attr = {
		.btf = ptr(&btf_blob),
		.btf_size = sizeof(btf_blob),
		.btf_log_buf = ptr(btf_log),
		.btf_log_size = sizeof(btf_log),
		.btf_log_level = 1,
	};

	return bpf_ret(BPF_BTF_LOAD, &attr);
}

/* BPF_BTF_LOAD of the blob. */
static void btf_prepare(struct __test_metadata *_metadata, void *arg)
{
	ids_prepare(_metadata, arg);
}

static int btf_action(void *arg)
{
	return btf_load();
}

/*
 * Whether BTF @fd (id @id) has the types of the blob at their ids: a map
 * whose key is type 1, int, and whose value is type 2, struct pair, can
 * be made with it (map_check_btf() checks the sizes,
 * kernel/bpf/syscall.c:1102-1114, linux 6.12), and its info names them.
 */
static bool btf_types_right(int fd, __u32 id, char *why, size_t size)
{
	static const char btf_map_info_fmt[] =
		"the map of the new BTF has btf %u (not %u), key type %u, value type %u";
	static const char btf_map_fmt[] =
		"a map of key int (type %d) and value struct pair (type %d) of the new BTF: %s";
	union bpf_attr attr = {
		.map_type = BPF_MAP_TYPE_HASH,
		.key_size = 4,
		.value_size = 8,
		.max_entries = 1,
		.btf_fd = fd,
		.btf_key_type_id = BTF_ID_INT,
		.btf_value_type_id = BTF_ID_PAIR,
	};
	struct bpf_map_info info;
	int map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	bool ok;

	if (map_fd < 0) {
		snprintf(why, size, btf_map_fmt, BTF_ID_INT, BTF_ID_PAIR,
			 strerror(errno));
		return false;
	}
	ok = map_id(map_fd, &info, why, size) && info.btf_id == id &&
	     info.btf_key_type_id == BTF_ID_INT &&
	     info.btf_value_type_id == BTF_ID_PAIR;
	close(map_fd);
	if (!ok)
		snprintf(why, size, btf_map_info_fmt, info.btf_id, id,
			 info.btf_key_type_id, info.btf_value_type_id);
	return ok;
}

/*
 * Success: a new BTF id, listed, whose info gives back the blob, byte for
 * byte, and whose types are the blob's. Failure: no new id.
 */
static bool btf_check(void *arg, int ret, char *why, size_t size)
{
	static unsigned char back[sizeof(btf_blob)];
	struct bpf_btf_info info = {
		.btf = ptr(back),
		.btf_size = sizeof(back),
	};
	struct bpf_ctx *c = arg;
	int err;

	if (ret < 0)
		return listed_as_before(c, 0, why, size);
	memset(back, 0, sizeof(back));
	err = obj_info(ret, &info, sizeof(info));
	if (err) {
		snprintf(why, size, "btf info of fd %d: %s", ret,
			 strerror(-err));
		return false;
	}
	if (!info.id || !listed_as_before(c, info.id, why, size))
		return false;
	if (info.btf_size != sizeof(btf_blob) ||
	    memcmp(back, &btf_blob, sizeof(btf_blob))) {
		snprintf(why, size,
			 "btf info: %u bytes, not the %zu-byte blob loaded",
			 info.btf_size, sizeof(btf_blob));
		return false;
	}
	return btf_types_right(ret, info.id, why, size);
}

/* The func_info of the program: main at 0, sub at SUB_START. */
static const struct bpf_func_info func_info[] = {
	{ 0, BTF_ID_MAIN },
	{ SUB_START, BTF_ID_SUB },
};

static char prog_log[LOG_SIZE];

/*
 * BPF_PROG_LOAD of the program, with @btf_fd's func_info if >= 0, the
 * verifier's log at @log_level and @flags.
 */
static int prog_load(int btf_fd, int log_level, __u32 flags)
{
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_SOCKET_FILTER,
		.insn_cnt = PROG_LEN,
		.insns = ptr(prog),
		.license = ptr("GPL"),
		.log_level = log_level,
		.log_size = log_level ? sizeof(prog_log) : 0,
		.log_buf = log_level ? ptr(prog_log) : 0,
		.prog_name = "failnth",
		.prog_flags = flags,
	};

	if (btf_fd >= 0) {
		attr.prog_btf_fd = btf_fd;
		attr.func_info_rec_size = sizeof(func_info[0]);
		attr.func_info = ptr(func_info);
		attr.func_info_cnt = ARRAY_SIZE(func_info);
	}
	return bpf_ret(BPF_PROG_LOAD, &attr);
}

/*
 * The counter map, zeroed, and the program's code that uses it (and, for
 * the BTF variant, the BTF), made unarmed.
 */
static void counter_prepare(struct __test_metadata *_metadata,
			    struct bpf_ctx *c)
{
	map_prepare(_metadata, c);
	prog_build(c->map_fd);
}

static void load_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;

	counter_prepare(_metadata, c);
	ids_prepare(_metadata, c);
	prog_log[0] = '\0';
}

/*
 * The log at level 2 (every instruction of every state), and a state
 * checkpoint at every prune point (BPF_F_TEST_STATE_FREQ), which
 * is_state_visited() keeps.
 */
static int load_action(void *arg)
{
	return prog_load(-1, 2, BPF_F_TEST_STATE_FREQ);
}

static int load_btf_action(void *arg)
{
	struct bpf_ctx *c = arg;

	return prog_load(c->btf_fd, 1, 0);
}

/* The counter the program keeps in element 0 of its map, or -errno. */
static long long counter(struct bpf_ctx *c)
{
	__u64 val[PERCPU_MAX] = {};
	__u32 key = 0;
	int err = map_lookup(c->map_fd, &key, val);

	return err ? err : (long long)val[0];
}

static unsigned char pkt_in[PKT_LEN], pkt_out[PKT_LEN];

/* The length a test run passed out. */
static __u32 run_len;

/*
 * The __sk_buff a test run starts from (its mark and priority set) and
 * the one it passes out (bpf_ctx_init(), bpf_ctx_finish()).
 */
static struct __sk_buff skb_in = { .mark = 0x746f6f73, .priority = 7 }, skb_out;

/* BPF_PROG_TEST_RUN of @fd on pkt_in, once: the retval, or -errno. */
static long long test_run(int fd, __u32 *size_out)
{
	union bpf_attr attr = {
		.test.prog_fd = fd,
		.test.data_size_in = PKT_LEN,
		.test.data_size_out = PKT_LEN,
		.test.data_in = ptr(pkt_in),
		.test.data_out = ptr(pkt_out),
		.test.repeat = 1,
		.test.ctx_size_in = sizeof(skb_in),
		.test.ctx_size_out = sizeof(skb_out),
		.test.ctx_in = ptr(&skb_in),
		.test.ctx_out = ptr(&skb_out),
	};

	if (sys_bpf(BPF_PROG_TEST_RUN, &attr))
		return -errno;
	*size_out = attr.test.data_size_out;
	return attr.test.retval;
}

/*
 * Whether pkt_out is the packet a socket filter passes out: pkt_in, with
 * its Ethernet header zeroed (net/bpf/test_run.c:1131, linux 6.12: the
 * header a non-L2 program never saw).
 */
static bool pkt_passed(void)
{
	int i;

	for (i = 0; i < ETH_HLEN; i++)
		if (pkt_out[i])
			return false;
	return !memcmp(pkt_in + ETH_HLEN, pkt_out + ETH_HLEN,
		       PKT_LEN - ETH_HLEN);
}

/*
 * Whether program @fd runs as its code says: once on a PKT_LEN packet it
 * returns PROG_RET, passes the packet out, and counts one run in the map,
 * which held @runs before.
 */
static bool prog_runs(struct bpf_ctx *c, int fd, long long runs, char *why,
		      size_t size)
{
	static const char runs_fmt[] =
		"a test run: %lld%s%s (want %d), %u bytes out (%s); counter %lld, want %lld";
	__u32 len = 0;
	long long ret, now;

	memset(pkt_out, FILL_BYTE, sizeof(pkt_out));
	ret = test_run(fd, &len);
	now = counter(c);
	if (ret == PROG_RET && len == PKT_LEN && pkt_passed() &&
	    now == runs + 1)
		return true;
	snprintf(why, size, runs_fmt, ret, ret < 0 ? ": " : "",
		 ret < 0 ? strerror(-ret) : "", PROG_RET, len,
		 pkt_passed() ? "passed" : "not the packet", now, runs + 1);
	return false;
}

/*
 * Success: a new program id, listed; the info says a socket filter named
 * "failnth" that uses the map (and, with BTF, the BTF and its two
 * functions); the verifier's log ends with its statistics; the program
 * runs. Failure: no new program id, and the counter never ran.
 */
static bool load_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	bool btf = c->btf_fd >= 0;
	struct bpf_prog_info info = {};
	struct bpf_map_info minfo;
	__u32 map_ids[2] = {}, mid;
	int err;

	if (ret < 0)
		return listed_as_before(c, 0, why, size) && counter(c) == 0;
	info.nr_map_ids = ARRAY_SIZE(map_ids);
	info.map_ids = ptr(map_ids);
	err = obj_info(ret, &info, sizeof(info));
	if (err) {
		snprintf(why, size, "prog info of fd %d: %s", ret,
			 strerror(-err));
		return false;
	}
	if (!info.id || !listed_as_before(c, info.id, why, size))
		return false;
	mid = map_id(c->map_fd, &minfo, why, size);
	if (info.type != BPF_PROG_TYPE_SOCKET_FILTER ||
	    strcmp(info.name, "failnth") || info.nr_map_ids != 1 ||
	    map_ids[0] != mid || info.nr_func_info != (btf ? 2 : 0)) {
		const char *fmt =
			"prog info: type %u \"%.16s\" %u maps (%u, the map is %u), %u func_info";

		snprintf(why, size, fmt, info.type, info.name, info.nr_map_ids,
			 map_ids[0], mid, info.nr_func_info);
		return false;
	}
	if (!btf && !strstr(prog_log, "processed ")) {
		snprintf(why, size, "the verifier's log lacks its statistics");
		return false;
	}
	return prog_runs(c, ret, 0, why, size);
}

/* BPF_PROG_LOAD with the BTF of its functions, loaded unarmed. */
static void load_btf_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;

	c->btf_fd = btf_load();
	ASSERT_LE(0, c->btf_fd)
	{
		TH_LOG("loading the BTF (unarmed): %s\n%s",
		       strerror(-c->btf_fd), btf_log);
	}
	load_prepare(_metadata, c);
}

/* A program loaded unarmed, and its counter. */
static void prog_prepare(struct __test_metadata *_metadata, struct bpf_ctx *c)
{
	counter_prepare(_metadata, c);
	c->prog_fd = prog_load(-1, 0, 0);
	ASSERT_LE(0, c->prog_fd)
	{
		TH_LOG("loading the program (unarmed): %s",
		       strerror(-c->prog_fd));
	}
}

/* BPF_PROG_TEST_RUN of the program. */
static void test_run_prepare(struct __test_metadata *_metadata, void *arg)
{
	prog_prepare(_metadata, arg);
	memset(pkt_out, FILL_BYTE, sizeof(pkt_out));
	memset(&skb_out, FILL_BYTE, sizeof(skb_out));
	run_len = 0;
}

static int test_run_action(void *arg)
{
	struct bpf_ctx *c = arg;
	long long ret = test_run(c->prog_fd, &run_len);

	return ret < 0 ? ret : ret > INT_MAX ? INT_MAX : ret;
}

/*
 * Success: what the program returns, the packet out, one run counted.
 * Failure: the program never ran (its allocations come before the run),
 * nothing came out. Then it runs, once more, as it should.
 */
static bool test_run_check(void *arg, int ret, char *why, size_t size)
{
	static const char test_run_fmt[] =
		"a test run: %d (expected %d), %u bytes out, %lld runs, mark 0x%x priority %u out";
	struct bpf_ctx *c = arg;
	long long runs = counter(c);

	if (ret >= 0 && (ret != PROG_RET || run_len != PKT_LEN || runs != 1 ||
			 !pkt_passed() || skb_out.mark != skb_in.mark ||
			 skb_out.priority != skb_in.priority)) {
		snprintf(why, size, test_run_fmt, ret, PROG_RET, run_len, runs,
			 skb_out.mark, skb_out.priority);
		return false;
	}
	if (ret < 0 && (runs || run_len || !unwritten(pkt_out, PKT_LEN) ||
			!unwritten(&skb_out, sizeof(skb_out)))) {
		snprintf(why, size,
			 "a failed test run counted %lld runs, or wrote out",
			 runs);
		return false;
	}
	return prog_runs(c, c->prog_fd, runs, why, size);
}

/* BPF_OBJ_GET_INFO_BY_FD of the program's translated instructions. */
static struct bpf_insn xlated[PROG_LEN * 4], xlated_want[PROG_LEN * 4];
static __u32 xlated_len;

static int prog_info_xlated(int fd, struct bpf_insn *insns, __u32 *len)
{
	struct bpf_prog_info info = {
		.xlated_prog_len = sizeof(xlated),
		.xlated_prog_insns = ptr(insns),
	};
	int err = obj_info(fd, &info, sizeof(info));

	*len = info.xlated_prog_len;
	return err;
}

static void info_prepare(struct __test_metadata *_metadata, void *arg)
{
	prog_prepare(_metadata, arg);
	memset(xlated, FILL_BYTE, sizeof(xlated));
	xlated_len = 0;
}

static int info_action(void *arg)
{
	struct bpf_ctx *c = arg;

	return prog_info_xlated(c->prog_fd, xlated, &xlated_len);
}

/*
 * Success: the instructions are those an unarmed call gives, at least the
 * program's. Failure: none written.
 */
static bool info_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	__u32 len = 0;
	int err;

	if (ret < 0) {
		if (unwritten(xlated, sizeof(xlated)))
			return true;
		snprintf(why, size, "a failed call wrote instructions");
		return false;
	}
	err = prog_info_xlated(c->prog_fd, xlated_want, &len);
	if (!err && len == xlated_len && len >= sizeof(prog) &&
	    len <= sizeof(xlated) && !memcmp(xlated, xlated_want, len))
		return true;
	snprintf(why, size,
		 "%u bytes of instructions, unarmed %u (%s), or they differ",
		 xlated_len, len, strerror(-err));
	return false;
}

/* BPF_OBJ_PIN of a map made unarmed, in the bpffs. */
static void pin_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;

	map_prepare(_metadata, c);
}

static int pin_action(void *arg)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.pathname = ptr(PIN_PATH),
		.bpf_fd = c->map_fd,
	};

	return bpf_ret(BPF_OBJ_PIN, &attr);
}

/*
 * Success: the pin opens (BPF_OBJ_GET) the map pinned. Failure: there is
 * no pin.
 */
static bool pin_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = { .pathname = ptr(PIN_PATH) };
	struct bpf_map_info info;
	struct stat st;
	__u32 want, got;
	int fd;

	if (ret < 0) {
		if (lstat(PIN_PATH, &st) && errno == ENOENT)
			return true;
		snprintf(why, size, "a failed pin left %s", PIN_PATH);
		return false;
	}
	fd = sys_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0) {
		snprintf(why, size, "BPF_OBJ_GET of %s: %s", PIN_PATH,
			 strerror(errno));
		return false;
	}
	want = map_id(c->map_fd, &info, why, size);
	got = map_id(fd, &info, why, size);
	close(fd);
	if (want && got == want)
		return true;
	snprintf(why, size, "%s opens map %u, not %u", PIN_PATH, got, want);
	return false;
}

/*
 * A program of @type that returns @ret, loaded (the caller's fault
 * injection unarmed): its fd, or -1 with errno set.
 */
static int load_const_prog(__u32 type, int ret)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, ret),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	union bpf_attr attr = {
		.prog_type = type,
		.insn_cnt = ARRAY_SIZE(insns),
		.insns = ptr(insns),
		.license = ptr("GPL"),
	};

	return sys_bpf(BPF_PROG_LOAD, &attr);
}

/* BPF_LINK_CREATE of the program as generic XDP on the loopback. */
static void link_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;

	c->prog_fd = load_const_prog(BPF_PROG_TYPE_XDP, XDP_PASS);
	ASSERT_LE(0, c->prog_fd)
	{
		TH_LOG("loading the XDP program (unarmed): %s",
		       strerror(errno));
	}
	ids_prepare(_metadata, c);
}

/*
 * The info of link @fd, a new id that the listing holds as the only new
 * one (listed_as_before()), and in @prog_id the id of c->prog_fd's
 * program: whether both could be had.
 */
static bool new_link_info(struct bpf_ctx *c, int fd, struct bpf_link_info *info,
			  __u32 *prog_id, char *why, size_t size)
{
	struct bpf_prog_info pinfo = {};
	int err = obj_info(fd, info, sizeof(*info));

	if (!err)
		err = obj_info(c->prog_fd, &pinfo, sizeof(pinfo));
	if (err) {
		snprintf(why, size, "link or prog info: %s", strerror(-err));
		return false;
	}
	*prog_id = pinfo.id;
	if (!info->id) {
		snprintf(why, size, "link %d has no id", fd);
		return false;
	}
	return listed_as_before(c, info->id, why, size);
}

static int xdp_link(struct bpf_ctx *c)
{
	union bpf_attr attr = {
		.link_create.prog_fd = c->prog_fd,
		.link_create.target_ifindex = c->ifindex,
		.link_create.attach_type = BPF_XDP,
		.link_create.flags = XDP_FLAGS_SKB_MODE,
	};

	return bpf_ret(BPF_LINK_CREATE, &attr);
}

static int link_action(void *arg)
{
	return xdp_link(arg);
}

/*
 * Success: a new link id, listed, an XDP link of the program on the
 * loopback; a second link is refused (EBUSY: the device has its program).
 * Failure: no new link id, and a second link, unarmed, is the first:
 * nothing was attached.
 */
static bool link_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	struct bpf_link_info info = {};
	__u32 prog_id;
	int fd;

	if (ret < 0 && !listed_as_before(c, 0, why, size))
		return false;
	fd = xdp_link(c);
	if (fd >= 0)
		close(fd);
	if (ret < 0 ? fd < 0 : fd != -EBUSY) {
		snprintf(why, size, "a second XDP link after %s gave %s",
			 ret < 0 ? "a failure" : "success",
			 fd < 0 ? strerror(-fd) : "a link");
		return false;
	}
	if (ret < 0)
		return true;
	if (!new_link_info(c, ret, &info, &prog_id, why, size))
		return false;
	if (info.type == BPF_LINK_TYPE_XDP && info.prog_id == prog_id &&
	    (int)info.xdp.ifindex == c->ifindex)
		return true;
	snprintf(why, size, "link info: type %u prog %u (%u) ifindex %u",
		 info.type, info.prog_id, prog_id, info.xdp.ifindex);
	return false;
}

/* BPF_MAP_UPDATE_ELEM of CPU 0 into an empty CPU map. */
static void cpumap_prepare(struct __test_metadata *_metadata, void *arg)
{
	map_prepare(_metadata, arg);
}

/* BPF_ANY: a CPU map refuses BPF_NOEXIST (cpumap.c:547, linux 6.12). */
static int cpumap_action(void *arg)
{
	struct bpf_ctx *c = arg;
	__u32 key = 0, qsize = CPUMAP_QSIZE;

	return map_update(c->map_fd, &key, &qsize, BPF_ANY);
}

/*
 * Success: CPU 0's element holds the queue size asked for. Failure: there
 * is none.
 */
static bool cpumap_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	__u32 key = 0, qsize = 0;
	int err = map_lookup(c->map_fd, &key, &qsize);

	if (ret >= 0 ? !err && qsize == CPUMAP_QSIZE : err == -ENOENT)
		return true;
	snprintf(why, size, "after %s, CPU 0's element: %s, qsize %u",
		 ret < 0 ? "a failure" : "success",
		 err ? strerror(-err) : "found", qsize);
	return false;
}

/*
 * BPF_MAP_UPDATE_ELEM of the socket's storage in a new socket storage map:
 * the socket's storage and the element are allocated.
 */
static void sk_storage_prepare(struct __test_metadata *_metadata, void *arg)
{
	map_prepare(_metadata, arg);
}

static int sk_storage_action(void *arg)
{
	struct bpf_ctx *c = arg;

	return map_update(c->map_fd, &sk_fd, new_val, BPF_NOEXIST);
}

/* Success: the socket's storage holds the value. Failure: it has none. */
static bool sk_storage_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	__u64 val = 0;
	int err = map_lookup(c->map_fd, &sk_fd, &val);

	if (ret >= 0 ? !err && val == VALUE(5) : err == -ENOENT)
		return true;
	snprintf(why, size, "after %s, the socket's storage: %s, 0x%llx",
		 ret < 0 ? "a failure" : "success",
		 err ? strerror(-err) : "found", (unsigned long long)val);
	return false;
}

/* BPF_PROG_BIND_MAP of a second map to a program made unarmed. */
static void bind_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;

	prog_prepare(_metadata, c);
	c->other_fd = map_create(&hash_spec, -1);
	ASSERT_LE(0, c->other_fd);
}

static int bind_action(void *arg)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.prog_bind_map.prog_fd = c->prog_fd,
		.prog_bind_map.map_fd = c->other_fd,
	};

	return bpf_ret(BPF_PROG_BIND_MAP, &attr);
}

/*
 * Success: the program's info lists both maps, the second one bound.
 * Failure: the counter map alone.
 */
static bool bind_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	struct bpf_prog_info info = {};
	struct bpf_map_info minfo;
	__u32 ids[4] = {}, counter_id, other_id;
	__u32 want = ret < 0 ? 1 : 2;
	int err;

	info.nr_map_ids = ARRAY_SIZE(ids);
	info.map_ids = ptr(ids);
	err = obj_info(c->prog_fd, &info, sizeof(info));
	counter_id = map_id(c->map_fd, &minfo, why, size);
	other_id = map_id(c->other_fd, &minfo, why, size);
	if (!err && info.nr_map_ids == want && ids[0] == counter_id &&
	    (want == 1 || ids[1] == other_id))
		return true;
	snprintf(why, size,
		 "the program uses %u maps (%u, %u), expected %u (%u, %u)%s%s",
		 info.nr_map_ids, ids[0], ids[1], want, counter_id,
		 want == 1 ? 0 : other_id, err ? ": " : "",
		 err ? strerror(-err) : "");
	return false;
}

/*
 * The flow dissector of the test's network namespace: a program that
 * returns BPF_OK, attached by a link, by BPF_PROG_ATTACH, or queried.
 */
static void flow_load(struct __test_metadata *_metadata, struct bpf_ctx *c)
{
	c->prog_fd = load_const_prog(BPF_PROG_TYPE_FLOW_DISSECTOR, BPF_OK);
	ASSERT_LE(0, c->prog_fd)
	{
		TH_LOG("loading the flow dissector (unarmed): %s",
		       strerror(errno));
	}
}

static __u32 query_ids[4];
static __u32 query_cnt;

/* BPF_PROG_QUERY of the namespace's flow dissectors, into query_ids. */
static int flow_query(struct bpf_ctx *c)
{
	union bpf_attr attr = {
		.query.target_fd = c->netns_fd,
		.query.attach_type = BPF_FLOW_DISSECTOR,
		.query.prog_ids = ptr(query_ids),
		.query.prog_cnt = ARRAY_SIZE(query_ids),
	};
	int ret = bpf_ret(BPF_PROG_QUERY, &attr);

	query_cnt = attr.query.prog_cnt;
	return ret;
}

/*
 * Whether the namespace's flow dissector is the program (@attached) or
 * none; the query is made unarmed.
 */
static bool flow_attached(struct bpf_ctx *c, bool attached, char *why,
			  size_t size)
{
	static const char flow_fmt[] =
		"the namespace has %u flow dissectors (first %u), expected %s %u%s%s";
	struct bpf_prog_info info = {};
	int err = obj_info(c->prog_fd, &info, sizeof(info));

	if (!err)
		err = flow_query(c);
	if (!err && query_cnt == attached &&
	    (!attached || query_ids[0] == info.id))
		return true;
	snprintf(why, size, flow_fmt, query_cnt, query_ids[0],
		 attached ? "program" : "none", info.id, err ? ": " : "",
		 err ? strerror(-err) : "");
	return false;
}

/* BPF_LINK_CREATE of the flow dissector in the namespace. */
static void flow_link_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;

	flow_load(_metadata, c);
	ids_prepare(_metadata, c);
}

static int flow_link(struct bpf_ctx *c)
{
	union bpf_attr attr = {
		.link_create.prog_fd = c->prog_fd,
		.link_create.target_fd = c->netns_fd,
		.link_create.attach_type = BPF_FLOW_DISSECTOR,
	};

	return bpf_ret(BPF_LINK_CREATE, &attr);
}

static int flow_link_action(void *arg)
{
	return flow_link(arg);
}

/*
 * Success: a new link id, listed, a netns link of the program as the
 * flow dissector, which the namespace's query lists. Failure: no new link
 * id, no flow dissector.
 */
static bool flow_link_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	struct bpf_link_info info = {};
	__u32 prog_id;

	if (!flow_attached(c, ret >= 0, why, size))
		return false;
	if (ret < 0)
		return listed_as_before(c, 0, why, size);
	if (!new_link_info(c, ret, &info, &prog_id, why, size))
		return false;
	if (info.type == BPF_LINK_TYPE_NETNS && info.prog_id == prog_id &&
	    info.netns.attach_type == BPF_FLOW_DISSECTOR)
		return true;
	snprintf(why, size, "link info: type %u prog %u (%u) attach type %u",
		 info.type, info.prog_id, prog_id, info.netns.attach_type);
	return false;
}

/* BPF_PROG_ATTACH of the flow dissector to this namespace. */
static void flow_attach_prepare(struct __test_metadata *_metadata, void *arg)
{
	flow_load(_metadata, arg);
}

static int flow_attach_action(void *arg)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.attach_bpf_fd = c->prog_fd,
		.attach_type = BPF_FLOW_DISSECTOR,
	};

	return bpf_ret(BPF_PROG_ATTACH, &attr);
}

static bool flow_attach_check(void *arg, int ret, char *why, size_t size)
{
	return flow_attached(arg, ret >= 0, why, size);
}

/* Detaches what BPF_PROG_ATTACH attached, then as bpf_cleanup(). */
static void bpf_cleanup(struct __test_metadata *_metadata, void *arg, int ret);

static void flow_attach_cleanup(struct __test_metadata *_metadata, void *arg,
				int ret)
{
	struct bpf_ctx *c = arg;
	union bpf_attr attr = {
		.attach_bpf_fd = c->prog_fd,
		.attach_type = BPF_FLOW_DISSECTOR,
	};

	if (ret >= 0)
		EXPECT_EQ(0, sys_bpf(BPF_PROG_DETACH, &attr));
	bpf_cleanup(_metadata, arg, ret);
}

/* BPF_PROG_QUERY of a flow dissector attached by a link, unarmed. */
static void flow_query_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct bpf_ctx *c = arg;

	flow_load(_metadata, c);
	c->link_fd = flow_link(c);
	ASSERT_LE(0, c->link_fd);
	memset(query_ids, FILL_BYTE, sizeof(query_ids));
}

static int flow_query_action(void *arg)
{
	return flow_query(arg);
}

/*
 * Success: one program, the one attached. Failure: no id written (the
 * count may be: it is copied out before the ids are gathered,
 * kernel/bpf/net_namespace.c:257, linux 6.12).
 */
static bool flow_query_check(void *arg, int ret, char *why, size_t size)
{
	struct bpf_ctx *c = arg;
	struct bpf_prog_info info = {};

	if (ret < 0) {
		if (unwritten(query_ids, sizeof(query_ids)))
			return flow_attached(c, true, why, size);
		snprintf(why, size, "a failed query wrote program ids");
		return false;
	}
	if (obj_info(c->prog_fd, &info, sizeof(info)) || query_cnt != 1 ||
	    query_ids[0] != info.id) {
		snprintf(why, size,
			 "the query gave %u programs, first %u, not %u",
			 query_cnt, query_ids[0], info.id);
		return false;
	}
	return true;
}

static void bpf_close_all(struct bpf_ctx *c)
{
	close_fd(&c->other_fd);
	close_fd(&c->link_fd);
	close_fd(&c->prog_fd);
	close_fd(&c->map_fd);
	close_fd(&c->btf_fd);
}

/* Closes what the point made and removes a pin. */
static void bpf_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct bpf_ctx *c = arg;
	int err;

	if (ret >= 0 && c->kind != IDS_NONE)
		EXPECT_EQ(0, close(ret));
	bpf_close_all(c);
	if (!c->bpffs)
		return;
	err = unlink(PIN_PATH) ? errno : 0;
	ASSERT_EQ(ret >= 0 ? 0 : ENOENT, err)
	{
		TH_LOG("removing %s: %s", PIN_PATH, strerror(err));
	}
}

FIXTURE(bpf)
{
	struct bpf_ctx ctx;
};

FIXTURE_VARIANT(bpf)
{
	const struct failnth_scenario *op;
	/* The map the command makes or works on. */
	const struct map_spec *spec;
	/* Which listing a new object is in; IDS_NONE: none is made. */
	enum id_kind kind;
	/* A batch that deletes; a bpffs to pin in; a network namespace. */
	bool deletes, bpffs, netns;
};

#define CREATE(name, s)                                                      \
	FAILNTH_VARIANT_MORE(bpf, create_##name,                             \
			     (.spec = &s##_spec, .kind = IDS_MAP),           \
			     .prepare = create_prepare,                      \
			     .action = create_action, .check = create_check, \
			     .allowed = bpf_errnos, .cleanup = bpf_cleanup)

CREATE(array, array);
CREATE(percpu_array, percpu_array);
CREATE(hash, hash);
CREATE(hash_noprealloc, hash_noprealloc);
CREATE(percpu_hash, percpu_hash);
CREATE(lru_hash, lru_hash);
CREATE(lru_percpu_hash, lru_percpu_hash);
CREATE(lpm_trie, lpm_trie);
CREATE(ringbuf, ringbuf);
CREATE(queue, queue);
CREATE(stack, stack);
CREATE(bloom_filter, bloom);
CREATE(array_of_maps, array_of_maps);
CREATE(hash_of_maps, hash_of_maps);
CREATE(devmap, devmap);

/* A command on a map made unarmed: @prep, @act and @chk name its callbacks. */
#define ELEMS(name, s, prep, act, chk, ...)                                 \
	FAILNTH_VARIANT_MORE(bpf, name, (.spec = &s##_spec, ##__VA_ARGS__), \
			     .prepare = prep##_prepare,                     \
			     .action = act##_action, .check = chk##_check,  \
			     .allowed = bpf_errnos, .cleanup = bpf_cleanup)

ELEMS(update_hash, hash, elems, update, update);
ELEMS(update_hash_noprealloc, hash_noprealloc, elems, update, update);
ELEMS(update_percpu_hash, percpu_hash, elems, update, update);
ELEMS(update_lru_hash, lru_hash, elems, update, update);
ELEMS(update_lpm_trie, lpm_trie, elems, update, update);
ELEMS(lookup_hash, hash, lookup, lookup, lookup);
ELEMS(delete_hash, hash, elems, delete, delete);
ELEMS(next_key_hash, hash, next_key, next_key, next_key);
ELEMS(pop_queue, queue, lookup, pop, pop);
ELEMS(lookup_batch_array, array, batch, lookup_batch, batch);
ELEMS(lookup_batch_hash, hash, batch, lookup_batch, batch);
/* The batch that deletes what it reads. */
ELEMS(lookup_del_batch_hash, hash, batch, del_batch, batch, .deletes = true);
ELEMS(update_batch_array, array, batch, update_batch, update_batch);

CREATE(hash_spin_lock, hash_lock);
CREATE(lock_map_in_map, array_of_lock_maps);
CREATE(cpumap, cpumap);
CREATE(sk_storage, sk_storage);

FAILNTH_VARIANT_MORE(bpf, btf_load, (.kind = IDS_BTF), .prepare = btf_prepare,
		     .action = btf_action, .check = btf_check,
		     .allowed = bpf_errnos, .cleanup = bpf_cleanup);

FAILNTH_VARIANT_MORE(bpf, prog_load, (.spec = &array_spec, .kind = IDS_PROG),
		     .prepare = load_prepare, .action = load_action,
		     .check = load_check, .allowed = bpf_errnos,
		     .cleanup = bpf_cleanup);

FAILNTH_VARIANT_MORE(bpf, prog_load_btf,
		     (.spec = &array_spec, .kind = IDS_PROG),
		     .prepare = load_btf_prepare, .action = load_btf_action,
		     .check = load_check, .allowed = bpf_errnos,
		     .cleanup = bpf_cleanup);

ELEMS(prog_test_run, array, test_run, test_run, test_run);
ELEMS(prog_info_xlated, array, info, info, info);
FAILNTH_VARIANT_MORE(bpf, obj_pin, (.spec = &hash_spec, .bpffs = true),
		     .prepare = pin_prepare, .action = pin_action,
		     .check = pin_check, .allowed = pin_errnos,
		     .cleanup = bpf_cleanup);

ELEMS(update_cpumap, cpumap, cpumap, cpumap, cpumap);
ELEMS(update_sk_storage, sk_storage, sk_storage, sk_storage, sk_storage);
ELEMS(prog_bind_map, array, bind, bind, bind);

FAILNTH_VARIANT_MORE(bpf, link_create_flow, (.kind = IDS_LINK, .netns = true),
		     .prepare = flow_link_prepare, .action = flow_link_action,
		     .check = flow_link_check, .allowed = bpf_errnos,
		     .cleanup = bpf_cleanup);

FAILNTH_VARIANT_MORE(bpf, prog_attach_flow, (.netns = true),
		     .prepare = flow_attach_prepare,
		     .action = flow_attach_action, .check = flow_attach_check,
		     .allowed = bpf_errnos, .cleanup = flow_attach_cleanup);

FAILNTH_VARIANT_MORE(bpf, prog_query_flow, (.netns = true),
		     .prepare = flow_query_prepare, .action = flow_query_action,
		     .check = flow_query_check, .allowed = bpf_errnos,
		     .cleanup = bpf_cleanup);

FAILNTH_VARIANT_MORE(bpf, link_create_xdp, (.kind = IDS_LINK, .netns = true),
		     .prepare = link_prepare, .action = link_action,
		     .check = link_check, .allowed = bpf_errnos,
		     .cleanup = bpf_cleanup);

/*
 * bpf() itself, the inner map of a map-in-map, the values the commands
 * write, and the variant's bpffs (in a mount namespace of the test's own)
 * or network namespace.
 */
FIXTURE_SETUP(bpf)
{
	const char *missing = failnth_missing();
	struct bpf_ctx *c = &self->ctx;
	union bpf_attr attr = {};
	char why[256];
	int err, i;

	c->spec = variant->spec;
	c->kind = variant->kind;
	c->deletes = variant->deletes;
	c->map_fd = -1;
	c->inner_fd = -1;
	c->prog_fd = -1;
	c->btf_fd = -1;
	c->other_fd = -1;
	c->link_fd = -1;
	c->netns_fd = -1;
	c->bpffs = false;
	c->ifindex = 1;
	if (missing)
		SKIP(return, "%s", missing);
	if (sys_bpf(BPF_MAP_GET_NEXT_ID, &attr) && errno == ENOSYS)
		SKIP(return, "no bpf(): needs CONFIG_BPF_SYSCALL");
	for (i = 0; i < PKT_LEN; i++)
		pkt_in[i] = i * 7 + 1;
	for (i = 0; i < PERCPU_MAX; i++)
		new_val[i] = VALUE(5);
	if (c->spec && c->spec->type == BPF_MAP_TYPE_SK_STORAGE) {
		sk_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, sk_fd);
	}
	if (c->spec && (c->spec->btf_value || c->spec->inner_lock)) {
		struct bpf_btf_info info = {};

		spec_btf_fd = btf_load();
		ASSERT_LE(0, spec_btf_fd)
		{
			TH_LOG("loading the BTF: %s", strerror(-spec_btf_fd));
		}
		ASSERT_EQ(0, obj_info(spec_btf_fd, &info, sizeof(info)));
		spec_btf_id = info.id;
	}
	if (c->spec && c->spec->of_maps) {
		const struct map_spec *inner = &inner_spec;

		if (c->spec->inner_lock)
			inner = &inner_lock_spec;
		c->inner_fd = map_create(inner, -1);
		ASSERT_LE(0, c->inner_fd)
		{
			TH_LOG("creating the inner map: %s",
			       strerror(-c->inner_fd));
		}
	}
	if (variant->netns) {
		const char *fmt =
			"cannot unshare the network namespace (CONFIG_NET_NS): %s";

		if (unshare(CLONE_NEWNET))
			SKIP(return, fmt, strerror(errno));
		c->ifindex = if_nametoindex("lo");
		ASSERT_LT(0, c->ifindex);
		c->netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, c->netns_fd);
	}
	if (!variant->bpffs)
		return;
	err = private_mounts(why, sizeof(why));
	if (err > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, err)
	{
		TH_LOG("%s", why);
	}
	if (mount("bpf", BPFFS_DIR, "bpf", 0, "mode=0700")) {
		if (errno == ENODEV)
			SKIP(return, "no bpffs: needs CONFIG_BPF_SYSCALL");
		ASSERT_EQ(0, errno)
		{
			TH_LOG("mounting a bpffs on %s: %s", BPFFS_DIR,
			       strerror(errno));
		}
	}
	c->bpffs = true;
}

FIXTURE_TEARDOWN(bpf)
{
	struct bpf_ctx *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	bpf_close_all(c);
	close_fd(&c->inner_fd);
	close_fd(&c->netns_fd);
	close_fd(&spec_btf_fd);
	close_fd(&sk_fd);
	if (c->bpffs)
		EXPECT_EQ(0, umount2(BPFFS_DIR, MNT_DETACH));
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's bpf() command fails in turn. The
 * command must succeed or fail with ENOMEM; a success leaves an object or
 * element that reads back and works, a failure leaves no new id, fd,
 * element, pin or attached program.
 */
FAILNTH_SWEEP_OP(bpf, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
