// SPDX-License-Identifier: GPL-2.0
/*
 * nf_tables transactions while their small allocations fail, one at a time.
 *
 * Each variant sends one nfnetlink batch (NFNL_MSG_BATCH_BEGIN, its
 * messages with NLM_F_ACK, NFNL_MSG_BATCH_END) over NETLINK_NETFILTER with
 * every failslab and fail_page_alloc point on its path made to fail in
 * turn (see failnth.h), in a network namespace of the test's own: a table;
 * a base chain (inet filter, input hook) and a regular chain; a rule with
 * meta, cmp, payload, counter and an immediate verdict; a named hash set
 * with its elements; an interval set (rbtree) of two ranges; a set of
 * ranges of a concatenation (pipapo); a verdict map that jumps to a
 * regular chain; elements with a timeout; a counter, a quota and a limit
 * object; a flowtable on lo; a table, a chain, a set and a rule in one
 * batch; a rule that looks up an anonymous set made in its batch (the
 * set's binding); the deletion of set elements, of a rule and of a table
 * with content; a rule replaced by its handle; a dormant table woken up
 * (its base chain's hook registered). The intricate transactions: a rule
 * that jumps to an anonymous chain bound to it, made in its batch, and that
 * rule deleted (its chain with it); a verdict map with a catch-all element;
 * a set whose elements each hold a counter; a rule referring to a counter
 * object, and a map of objects; a rule inserted before another
 * (NFTA_RULE_POSITION), and one appended after many; a chain renamed and a
 * base chain's policy changed; NFT_MSG_DESTROY* of what exists and of what
 * does not; a set flushed; a set made and deleted in one batch; a batch
 * whose last message is invalid; a table owned by the socket that made it,
 * gone when that socket closes. The packet path: a datagram sent
 * over loopback to a base chain on the input hook whose rule counts
 * packets of ct state new; their conntrack entry is allocated on the way
 * out, in the sender's context (the loopback skb keeps it). The counter
 * is on input so that a datagram lost past the output hook (a neighbour
 * that cannot be allocated, net/ipv4/ip_output.c:245) is counted by none.
 *
 * Before each point the ruleset is flushed and the variant's state made
 * (unarmed); what it holds is counted through NFT_MSG_GET* dumps (tables,
 * chains and base chains, rules and their expressions, sets and their
 * elements, objects, flowtables, dormant tables, the packets the counters
 * counted) and NFT_MSG_GETGEN gives the generation. A success must add
 * exactly the variant's delta to that count and advance the generation by
 * one (a committed batch, net/netfilter/nf_tables_api.c:10454, linux
 * 6.12); a failure must leave the count and the generation as they were
 * (nfnetlink aborts the whole batch, net/netfilter/nfnetlink.c:581, 595). The
 * datagram's success arrives and is counted once, with no generation
 * change; its failure arrives nowhere and counts nothing.
 *
 * Only allocations in the calling task count (fail-nth does not reach
 * softirq context): the receive side of loopback traffic is not swept.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "failnth.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* A dump reply's buffer: a dump's skb holds up to 16 KB. */
#define NL_BUF (32 * 1024)

/* The bound on waiting for a dump's reply or a loopback datagram. */
#define ARRIVE_MS 1000

/* A nf_tables message type. */
#define NFT(type) ((NFNL_SUBSYS_NFTABLES << 8) | (type))

#define TABLE "failnth"
#define BASE "base"
#define AUX "aux"
#define SET "s"
#define PORT 4242
#define DGRAM_LEN 64
/* A timeout long past the test's end, in ms. */
#define ELEM_TIMEOUT 600000

/*
 * Clean failures of a batch (linux 6.12). nfnetlink acks a batch it cannot
 * clone, and an error it cannot queue, with ENOMEM
 * (net/netfilter/nfnetlink.c:392, 550), and a failed commit with its error
 * (nfnetlink.c:582). nf_tables reports its own allocations as ENOMEM: a
 * table (net/netfilter/nf_tables_api.c:1452) and its rhltables (1470,
 * 1474, lib/rhashtable.c:1076 with its __GFP_NOFAIL fallback), a chain
 * (2512-2573), a transaction (nft_trans_alloc_gfp(), 178, whose callers
 * return ENOMEM), a rule (4135, 4192), a set (5306-5319), an element
 * (7201), an object (7790, 7815), a flowtable (8845, 8855), and the commit
 * (9803, 9809, 10276); a hook it registers, ENOMEM
 * (net/netfilter/core.c:142). netlink_sendmsg() reports the request's skb
 * it cannot allocate as ENOBUFS (net/netlink/af_netlink.c:1872), and an ack
 * it cannot allocate sets the socket's error, ENOBUFS (af_netlink.c:2523):
 * the replies are lost, and unless the generation advanced that is the
 * client's failure.
 */
static const int batch_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of the datagram's sendto() (IP_RECVERR set): an skb or an
 * output route that cannot be allocated is ENOBUFS (net/core/skbuff.c:6679,
 * net/ipv4/route.c:2643), and so is a neighbour (net/ipv4/ip_output.c:245);
 * a conntrack entry that cannot be allocated drops the packet, "Too
 * stressed to deal" (net/netfilter/nf_conntrack_core.c:2043-2046), and
 * nf_hook_slow() reports a drop without errno as EPERM
 * (net/netfilter/core.c:633-635).
 */
static const int pkt_errnos[] = { ENOMEM, ENOBUFS, EPERM, 0 };

/* What the dumps count. */
enum {
	C_TABLES,
	C_CHAINS,
	C_HOOKED,
	C_RULES,
	C_EXPRS,
	C_SETS,
	C_ELEMS,
	C_OBJS,
	C_FLOWTABLES,
	C_PKTS,
	C_DORMANT,
	/* The objects' uses (NFTA_OBJ_USE); the elements' expressions. */
	C_OBJUSE,
	C_ELEMEXPRS,
	/* For each rule of more expressions, the one-expression rules before. */
	C_AT,
	/* Chains named RENAMED, base chains of policy drop, owned tables. */
	C_RENAMED,
	C_DROP,
	C_OWNED,
	C_NR,
};

static const char *const census_name[C_NR] = {
	"tables",
	"chains",
	"base chains",
	"rules",
	"expressions",
	"sets",
	"elements",
	"objects",
	"flowtables",
	"packets counted",
	"dormant tables",
	"object uses",
	"element expressions",
	"rules before a match",
	"renamed chains",
	"drop policies",
	"owned tables",
};

struct census {
	long n[C_NR];
};

/* What a batch holds, in this order (build()). */
enum {
	P_TABLE = 1 << 0,
	/* TABLE made dormant (with P_TABLE), or woken up (an update). */
	P_DORMANT = 1 << 1,
	P_WAKE = 1 << 2,
	/* The regular chain AUX, and the base chain BASE on input. */
	P_AUX = 1 << 3,
	P_BASE = 1 << 4,
	/* The base chain BASE, with a rule: ct state new, counter. */
	P_CT = 1 << 5,
	/* The variant's set, its elements, all but the last deleted. */
	P_SET = 1 << 6,
	P_ELEMS = 1 << 7,
	P_DELELEMS = 1 << 8,
	/* On BASE: a rule of six expressions (rule()), or one. */
	P_RULE = 1 << 9,
	P_ACCEPT = 1 << 10,
	/* On BASE: "ip saddr @set accept", of the variant's set (rule()). */
	P_LOOKUP = 1 << 11,
	P_OBJS = 1 << 12,
	P_FLOW = 1 << 13,
	/* The rule of the last handle dumped: replaced by P_RULE's, deleted. */
	P_REPLACE = 1 << 14,
	P_DELRULE = 1 << 15,
	P_DELTABLE = 1 << 16,
	/* TABLE owned by the socket c->own (with P_TABLE). */
	P_OWNER = 1 << 17,
	/* On BASE: a jump to a chain bound to it, with its accept rule. */
	P_BIND = 1 << 18,
	/* On BASE: "counter name cnt" (P_OBJS's counter). */
	P_OBJREF = 1 << 19,
	/* On BASE: three "accept"; a match rule before the last, or after. */
	P_MANY = 1 << 20,
	P_INSERT = 1 << 21,
	P_APPEND = 1 << 22,
	/* AUX renamed RENAMED (by its handle); BASE's policy drop. */
	P_RENAME = 1 << 23,
	P_POLICY = 1 << 24,
	/* The variant's set deleted (in the batch that made it, say). */
	P_DELSET = 1 << 25,
	/* NFT_MSG_DESTROYSET of the set, NFT_MSG_DESTROYOBJ of none. */
	P_DESTROY = 1 << 26,
	/* NFT_MSG_DELSETELEM of no element: the set flushed. */
	P_FLUSH = 1 << 27,
	/* Last: NFT_MSG_DELCHAIN of a chain that does not exist. */
	P_INVALID = 1 << 28,
};

#define RENAMED "renamed"
/*
 * NFT_MSG_DESTROYSET and NFT_MSG_DESTROYOBJ (linux 6.3;
 * include/uapi/linux/netfilter/nf_tables.h:140, 142), which older uapi
 * headers lack.
 */
#define MSG_DESTROYSET 29
#define MSG_DESTROYOBJ 31
/* The NFTA_CHAIN_ID of the bound chain. */
#define CHAIN_ID 7

struct elem {
	/* The key: an address, followed by @peer's in a concatenation. */
	unsigned char addr[4], peer[4];
	/* NFT_SET_ELEM_CATCHALL: no key. */
	unsigned int flags;
	/* A verdict map's (0: none; not NF_DROP), NFT_JUMP to AUX. */
	int verdict;
	bool timeout;
	/* An object map's: the object's name. */
	const char *obj;
};

struct set_spec {
	/* NFT_SET_ANONYMOUS: "__set%d", bound by the rule (P_LOOKUP). */
	unsigned int flags;
	/* NFT_DATA_VERDICT for a verdict map, else 0. */
	unsigned int dtype;
	/* NFT_SET_OBJECT's object type; a counter in each element. */
	unsigned int objtype;
	bool counters;
	const struct elem *elems;
	int nr;
};

struct batch {
	char buf[4096];
	size_t len;
	/* The message being built; how many ask for an ack. */
	struct nlmsghdr *nh;
	int acks;
	/* The expression being built: its list element and its data. */
	struct nlattr *expr, *data;
};

struct nft_state {
	/* Ours, the owner of a P_OWNER table, the one the batch goes to. */
	int nl, own, sock;
	unsigned int seq;
	/* The variant's: its state before the point, its call, its set. */
	int setup, act;
	const struct set_spec *set;
	/* What a success adds to the count. */
	const struct census *delta;
	/* The generation before the point, and as NFT_MSG_NEWGEN said it. */
	unsigned int gen0, gen;
	struct census before, now;
	/* The sets' names, as the last dump listed them. */
	char sets[2][32];
	/* The handle (as dumped, big-endian) of the last rule dumped. */
	unsigned long long handle;
	/* The handle of AUX; how many one-expression rules were dumped. */
	unsigned long long aux;
	long ones;
	/* Whether a read said replies were lost (ENOBUFS, netlink(7)). */
	bool lost;
	/* How many messages of the last batch were acked without error. */
	int acked;
	/* The packet variant: a receiver, and the point's sender. */
	int rcv, snd;
	struct sockaddr_in rcv_addr;
	struct batch b;
	char buf[NL_BUF];
};

/* The error an NLMSG_ERROR message carries (0: an ack). */
static int nl_error(struct nlmsghdr *nh)
{
	return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
}

/* ---- building a batch --------------------------------------------- */

static struct nlattr *put(struct batch *b, unsigned short type, const void *val,
			  size_t len)
{
	struct nlattr *a = (void *)(b->buf + b->len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, val, len);
	b->len += NLA_ALIGN(a->nla_len);
	return a;
}

static void put_str(struct batch *b, unsigned short type, const char *s)
{
	put(b, type, s, strlen(s) + 1);
}

static void put_be32(struct batch *b, unsigned short type, unsigned int v)
{
	v = htonl(v);
	put(b, type, &v, sizeof(v));
}

static void put_be64(struct batch *b, unsigned short type, unsigned long long v)
{
	v = htobe64(v);
	put(b, type, &v, sizeof(v));
}

static struct nlattr *nest(struct batch *b, unsigned short type)
{
	return put(b, type | NLA_F_NESTED, NULL, 0);
}

static void end(struct batch *b, struct nlattr *a)
{
	a->nla_len = b->buf + b->len - (char *)a;
}

/* A value (NFTA_DATA_VALUE) as the attribute @type. */
static void put_value(struct batch *b, unsigned short type, const void *val,
		      size_t len)
{
	struct nlattr *n = nest(b, type);

	put(b, NFTA_DATA_VALUE, val, len);
	end(b, n);
}

/*
 * A verdict (NFTA_DATA_VERDICT) as the attribute @type; NFT_JUMP to AUX, or
 * to the chain of NFTA_CHAIN_ID @id.
 */
static void put_verdict(struct batch *b, unsigned short type, int code,
			unsigned int id)
{
	struct nlattr *n = nest(b, type), *v = nest(b, NFTA_DATA_VERDICT);

	put_be32(b, NFTA_VERDICT_CODE, code);
	if (id)
		put_be32(b, NFTA_VERDICT_CHAIN_ID, id);
	else if (code == NFT_JUMP)
		put_str(b, NFTA_VERDICT_CHAIN, AUX);
	end(b, v);
	end(b, n);
}

static void batch_reset(struct batch *b)
{
	b->len = 0;
	b->nh = NULL;
	b->acks = 0;
}

static void msg_end(struct batch *b)
{
	if (b->nh)
		b->nh->nlmsg_len = b->buf + b->len - (char *)b->nh;
}

/*
 * Starts a message of @type (a nf_tables one through NFT()) for @family
 * with @flags besides NLM_F_REQUEST; a batch's bounds address the
 * nf_tables subsystem in res_id.
 */
static void msg(struct batch *b, int type, int family, int flags)
{
	struct nlmsghdr *nh = (void *)(b->buf + b->len);
	struct nfgenmsg *g = NLMSG_DATA(nh);

	msg_end(b);
	memset(nh, 0, NLMSG_LENGTH(sizeof(*g)));
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | flags;
	g->nfgen_family = family;
	g->version = NFNETLINK_V0;
	if (type == NFNL_MSG_BATCH_BEGIN || type == NFNL_MSG_BATCH_END)
		g->res_id = htons(NFNL_SUBSYS_NFTABLES);
	b->len += NLMSG_LENGTH(sizeof(*g));
	b->nh = nh;
	if (flags & NLM_F_ACK)
		b->acks++;
}

/* Starts a batch's message of @type on TABLE, acknowledged. */
static void op(struct batch *b, int type, int flags, unsigned short table)
{
	msg(b, NFT(type), NFPROTO_INET, NLM_F_ACK | flags);
	if (table)
		put_str(b, table, TABLE);
}

static void expr(struct batch *b, const char *name)
{
	b->expr = nest(b, NFTA_LIST_ELEM);
	put_str(b, NFTA_EXPR_NAME, name);
	b->data = nest(b, NFTA_EXPR_DATA);
}

static void expr_end(struct batch *b)
{
	end(b, b->data);
	end(b, b->expr);
}

/* A cmp of register 1 against @len bytes at @val. */
static void cmp_eq(struct batch *b, const void *val, size_t len)
{
	expr(b, "cmp");
	put_be32(b, NFTA_CMP_SREG, NFT_REG_1);
	put_be32(b, NFTA_CMP_OP, NFT_CMP_EQ);
	put_value(b, NFTA_CMP_DATA, val, len);
	expr_end(b);
}

static void counter(struct batch *b)
{
	expr(b, "counter");
	expr_end(b);
}

/* A list (the attribute @type) of one counter. */
static void counters(struct batch *b, unsigned short type)
{
	struct nlattr *list = nest(b, type);

	counter(b);
	end(b, list);
}

enum rule_kind { R_ACCEPT, R_MATCH, R_CT, R_LOOKUP, R_OBJREF, R_JUMP, R_BOUND };

/* The set's name as a request gives it: an anonymous one's is a pattern. */
static const char *set_name(const struct set_spec *s)
{
	return s->flags & NFT_SET_ANONYMOUS ? "__set%d" : SET;
}

/* A payload expression: @len bytes at @off of the header @base, in reg 1. */
static void load(struct batch *b, unsigned int base, unsigned int off,
		 unsigned int len)
{
	expr(b, "payload");
	put_be32(b, NFTA_PAYLOAD_DREG, NFT_REG_1);
	put_be32(b, NFTA_PAYLOAD_BASE, base);
	put_be32(b, NFTA_PAYLOAD_OFFSET, off);
	put_be32(b, NFTA_PAYLOAD_LEN, len);
	expr_end(b);
}

/*
 * A rule on BASE of @kind: "accept"; "meta l4proto udp", "udp dport
 * PORT", "counter accept" (six expressions); "ct state new counter"; "ip saddr
 * @set accept" (payload, lookup of @s, immediate); "counter name cnt"; a
 * jump to the bound chain; or "accept" in the bound chain (R_BOUND). With
 * @flags (NLM_F_*) and, if @at is set, @handle as the attribute @at (the
 * rule it replaces, or its position).
 */
static void rule(struct batch *b, enum rule_kind kind, const struct set_spec *s,
		 int flags, unsigned short at, unsigned long long handle)
{
	const unsigned char udp = IPPROTO_UDP;
	const unsigned short port = htons(PORT);
	const unsigned int state = NF_CT_STATE_BIT(IP_CT_NEW);
	struct nlattr *list;

	op(b, NFT_MSG_NEWRULE, flags, NFTA_RULE_TABLE);
	if (kind == R_BOUND)
		put_be32(b, NFTA_RULE_CHAIN_ID, CHAIN_ID);
	else
		put_str(b, NFTA_RULE_CHAIN, BASE);
	if (at)
		put(b, at, &handle, sizeof(handle));
	list = nest(b, NFTA_RULE_EXPRESSIONS);
	if (kind == R_CT) {
		expr(b, "ct");
		put_be32(b, NFTA_CT_KEY, NFT_CT_STATE);
		put_be32(b, NFTA_CT_DREG, NFT_REG_1);
		expr_end(b);
		cmp_eq(b, &state, sizeof(state));
		counter(b);
	}
	if (kind == R_MATCH) {
		expr(b, "meta");
		put_be32(b, NFTA_META_KEY, NFT_META_L4PROTO);
		put_be32(b, NFTA_META_DREG, NFT_REG_1);
		expr_end(b);
		cmp_eq(b, &udp, sizeof(udp));
		load(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, sizeof(port));
		cmp_eq(b, &port, sizeof(port));
		counter(b);
	}
	if (kind == R_LOOKUP) {
		load(b, NFT_PAYLOAD_NETWORK_HEADER, 12, 4);
		expr(b, "lookup");
		put_str(b, NFTA_LOOKUP_SET, set_name(s));
		put_be32(b, NFTA_LOOKUP_SET_ID, 1);
		put_be32(b, NFTA_LOOKUP_SREG, NFT_REG_1);
		expr_end(b);
	}
	if (kind == R_OBJREF) {
		expr(b, "objref");
		put_be32(b, NFTA_OBJREF_IMM_TYPE, NFT_OBJECT_COUNTER);
		put_str(b, NFTA_OBJREF_IMM_NAME, "cnt");
		expr_end(b);
	}
	if (kind != R_CT && kind != R_OBJREF) {
		expr(b, "immediate");
		put_be32(b, NFTA_IMMEDIATE_DREG, NFT_REG_VERDICT);
		put_verdict(b, NFTA_IMMEDIATE_DATA,
			    kind == R_JUMP ? NFT_JUMP : NF_ACCEPT,
			    kind == R_JUMP ? CHAIN_ID : 0);
		expr_end(b);
	}
	end(b, list);
}

/*
 * A chain: regular (@hook < 0) or a filter base chain on @hook; with no
 * @name, anonymous and bound (NFT_CHAIN_BINDING, NFTA_CHAIN_ID CHAIN_ID).
 */
static void chain(struct batch *b, const char *name, int hook)
{
	struct nlattr *h;

	op(b, NFT_MSG_NEWCHAIN, NLM_F_CREATE, NFTA_CHAIN_TABLE);
	if (name) {
		put_str(b, NFTA_CHAIN_NAME, name);
	} else {
		put_be32(b, NFTA_CHAIN_FLAGS, NFT_CHAIN_BINDING);
		put_be32(b, NFTA_CHAIN_ID, CHAIN_ID);
	}
	if (hook < 0)
		return;
	put_str(b, NFTA_CHAIN_TYPE, "filter");
	h = nest(b, NFTA_CHAIN_HOOK);
	put_be32(b, NFTA_HOOK_HOOKNUM, hook);
	put_be32(b, NFTA_HOOK_PRIORITY, 0);
	end(b, h);
}

/*
 * A key of @e as the attribute @type: its address, and its peer's in a
 * concatenation (@len 8), whose range ends (@last) at the peer's .255.
 */
static void key(struct batch *b, unsigned short type, const struct elem *e,
		size_t len, bool last)
{
	unsigned char k[8];

	memcpy(k, e->addr, 4);
	memcpy(k + 4, e->peer, 4);
	if (last)
		k[7] = 255;
	put_value(b, type, k, len);
}

/*
 * The set of @s (ipv4_addr keys, or with NFT_SET_CONCAT two of them, a
 * range of each element: pipapo), or its elements: added (@type
 * NFT_MSG_NEWSETELEM) or, all but the last, deleted (NFT_MSG_DELSETELEM).
 */
static void set(struct batch *b, const struct set_spec *s, int type)
{
	bool concat = s->flags & NFT_SET_CONCAT;
	size_t len = concat ? 8 : 4;
	struct nlattr *list, *e;
	int i;

	if (type == NFT_MSG_NEWSET) {
		op(b, NFT_MSG_NEWSET, NLM_F_CREATE, NFTA_SET_TABLE);
		put_str(b, NFTA_SET_NAME, set_name(s));
		put_be32(b, NFTA_SET_FLAGS, s->flags);
		if (s->objtype)
			put_be32(b, NFTA_SET_OBJ_TYPE, s->objtype);
		if (s->counters)
			counters(b, NFTA_SET_EXPRESSIONS);
		/* nftables' ipv4_addr, TYPE_IPADDR, concatenated: 6 bits. */
		put_be32(b, NFTA_SET_KEY_TYPE, concat ? 7 << 6 | 7 : 7);
		put_be32(b, NFTA_SET_KEY_LEN, len);
		put_be32(b, NFTA_SET_ID, 1);
		if (s->dtype)
			put_be32(b, NFTA_SET_DATA_TYPE, s->dtype);
		if (concat) {
			list = nest(b, NFTA_SET_DESC);
			e = nest(b, NFTA_SET_DESC_CONCAT);
			for (i = 0; i < 2; i++) {
				struct nlattr *f = nest(b, NFTA_LIST_ELEM);

				put_be32(b, NFTA_SET_FIELD_LEN, 4);
				end(b, f);
			}
			end(b, e);
			end(b, list);
		}
		return;
	}
	op(b, type, NLM_F_CREATE, NFTA_SET_ELEM_LIST_TABLE);
	put_str(b, NFTA_SET_ELEM_LIST_SET, set_name(s));
	put_be32(b, NFTA_SET_ELEM_LIST_SET_ID, 1);
	list = nest(b, NFTA_SET_ELEM_LIST_ELEMENTS);
	for (i = 0; i < s->nr - (type == NFT_MSG_DELSETELEM); i++) {
		e = nest(b, NFTA_LIST_ELEM);
		if (!(s->elems[i].flags & NFT_SET_ELEM_CATCHALL))
			key(b, NFTA_SET_ELEM_KEY, &s->elems[i], len, false);
		if (concat)
			key(b, NFTA_SET_ELEM_KEY_END, &s->elems[i], len, true);
		if (s->elems[i].flags)
			put_be32(b, NFTA_SET_ELEM_FLAGS, s->elems[i].flags);
		if (s->elems[i].verdict)
			put_verdict(b, NFTA_SET_ELEM_DATA, s->elems[i].verdict,
				    0);
		if (s->elems[i].timeout)
			put_be64(b, NFTA_SET_ELEM_TIMEOUT, ELEM_TIMEOUT);
		if (s->elems[i].obj)
			put_str(b, NFTA_SET_ELEM_OBJREF, s->elems[i].obj);
		if (s->counters)
			counters(b, NFTA_SET_ELEM_EXPRESSIONS);
		end(b, e);
	}
	end(b, list);
}

/* An object of @type, named after it, with one attribute (or none). */
static void obj(struct batch *b, const char *name, unsigned int type,
		unsigned short attr, unsigned long long v)
{
	struct nlattr *d;

	op(b, NFT_MSG_NEWOBJ, NLM_F_CREATE, NFTA_OBJ_TABLE);
	put_str(b, NFTA_OBJ_NAME, name);
	put_be32(b, NFTA_OBJ_TYPE, type);
	d = nest(b, NFTA_OBJ_DATA);
	if (attr)
		put_be64(b, attr, v);
	if (type == NFT_OBJECT_LIMIT)
		put_be64(b, NFTA_LIMIT_UNIT, 1);
	end(b, d);
}

static void flowtable(struct batch *b)
{
	struct nlattr *h, *devs;

	op(b, NFT_MSG_NEWFLOWTABLE, NLM_F_CREATE, NFTA_FLOWTABLE_TABLE);
	put_str(b, NFTA_FLOWTABLE_NAME, "ft");
	h = nest(b, NFTA_FLOWTABLE_HOOK);
	put_be32(b, NFTA_FLOWTABLE_HOOK_NUM, NF_NETDEV_INGRESS);
	put_be32(b, NFTA_FLOWTABLE_HOOK_PRIORITY, 0);
	devs = nest(b, NFTA_FLOWTABLE_HOOK_DEVS);
	put_str(b, NFTA_DEVICE_NAME, "lo");
	end(b, devs);
	end(b, h);
}

/* A batch of what @mask asks for, in the order of the P_ flags. */
static void build(struct nft_state *c, int mask)
{
	struct batch *b = &c->b;
	int i;

	batch_reset(b);
	msg(b, NFNL_MSG_BATCH_BEGIN, AF_UNSPEC, 0);
	if (mask & (P_TABLE | P_WAKE)) {
		op(b, NFT_MSG_NEWTABLE, NLM_F_CREATE, NFTA_TABLE_NAME);
		put_be32(b, NFTA_TABLE_FLAGS,
			 (mask & P_DORMANT ? NFT_TABLE_F_DORMANT : 0) |
				 (mask & P_OWNER ? NFT_TABLE_F_OWNER : 0));
	}
	if (mask & P_AUX)
		chain(b, AUX, -1);
	if (mask & P_BASE)
		chain(b, BASE, NF_INET_LOCAL_IN);
	if (mask & P_CT) {
		chain(b, BASE, NF_INET_LOCAL_IN);
		rule(b, R_CT, NULL, NLM_F_CREATE, 0, 0);
	}
	if (mask & P_RENAME) {
		op(b, NFT_MSG_NEWCHAIN, 0, NFTA_CHAIN_TABLE);
		put(b, NFTA_CHAIN_HANDLE, &c->aux, sizeof(c->aux));
		put_str(b, NFTA_CHAIN_NAME, RENAMED);
	}
	if (mask & P_POLICY) {
		op(b, NFT_MSG_NEWCHAIN, 0, NFTA_CHAIN_TABLE);
		put_str(b, NFTA_CHAIN_NAME, BASE);
		put_be32(b, NFTA_CHAIN_POLICY, NF_DROP);
	}
	if (mask & P_SET)
		set(b, c->set, NFT_MSG_NEWSET);
	if (mask & P_ELEMS)
		set(b, c->set, NFT_MSG_NEWSETELEM);
	if (mask & P_DELELEMS)
		set(b, c->set, NFT_MSG_DELSETELEM);
	if (mask & (P_RULE | P_ACCEPT))
		rule(b, mask & P_RULE ? R_MATCH : R_ACCEPT, NULL, NLM_F_CREATE,
		     0, 0);
	if (mask & P_LOOKUP)
		rule(b, R_LOOKUP, c->set, NLM_F_CREATE, 0, 0);
	for (i = 0; i < 3 && mask & P_MANY; i++)
		rule(b, R_ACCEPT, NULL, NLM_F_CREATE, 0, 0);
	if (mask & P_INSERT)
		rule(b, R_MATCH, NULL, NLM_F_CREATE, NFTA_RULE_POSITION,
		     c->handle);
	if (mask & P_APPEND)
		rule(b, R_MATCH, NULL, NLM_F_CREATE | NLM_F_APPEND, 0, 0);
	if (mask & P_BIND) {
		chain(b, NULL, -1);
		rule(b, R_BOUND, NULL, NLM_F_CREATE, 0, 0);
		rule(b, R_JUMP, NULL, NLM_F_CREATE, 0, 0);
	}
	if (mask & P_OBJS) {
		obj(b, "cnt", NFT_OBJECT_COUNTER, 0, 0);
		obj(b, "quota", NFT_OBJECT_QUOTA, NFTA_QUOTA_BYTES, 1 << 20);
		obj(b, "limit", NFT_OBJECT_LIMIT, NFTA_LIMIT_RATE, 10);
	}
	if (mask & P_OBJREF)
		rule(b, R_OBJREF, NULL, NLM_F_CREATE, 0, 0);
	if (mask & P_FLOW)
		flowtable(b);
	if (mask & P_REPLACE)
		rule(b, R_MATCH, NULL, NLM_F_REPLACE, NFTA_RULE_HANDLE,
		     c->handle);
	if (mask & P_DELRULE) {
		op(b, NFT_MSG_DELRULE, 0, NFTA_RULE_TABLE);
		put_str(b, NFTA_RULE_CHAIN, BASE);
		put(b, NFTA_RULE_HANDLE, &c->handle, sizeof(c->handle));
	}
	if (mask & P_DELTABLE)
		op(b, NFT_MSG_DELTABLE, 0, NFTA_TABLE_NAME);
	if (mask & (P_DELSET | P_DESTROY)) {
		op(b, mask & P_DELSET ? NFT_MSG_DELSET : MSG_DESTROYSET, 0,
		   NFTA_SET_TABLE);
		put_str(b, NFTA_SET_NAME, SET);
	}
	if (mask & P_DESTROY) {
		op(b, MSG_DESTROYOBJ, 0, NFTA_OBJ_TABLE);
		put_str(b, NFTA_OBJ_NAME, "missing");
		put_be32(b, NFTA_OBJ_TYPE, NFT_OBJECT_COUNTER);
	}
	if (mask & P_FLUSH) {
		op(b, NFT_MSG_DELSETELEM, 0, NFTA_SET_ELEM_LIST_TABLE);
		put_str(b, NFTA_SET_ELEM_LIST_SET, SET);
	}
	if (mask & P_INVALID) {
		op(b, NFT_MSG_DELCHAIN, 0, NFTA_CHAIN_TABLE);
		put_str(b, NFTA_CHAIN_NAME, "missing");
	}
	msg(b, NFNL_MSG_BATCH_END, AF_UNSPEC, 0);
	msg_end(b);
}

/* ---- talking to nf_tables ----------------------------------------- */

static int gen_of(struct nft_state *c, unsigned int *gen);

/*
 * Sends the batch built and reads its replies: nfnetlink runs a batch in
 * the sender's context, within send() (netlink_unicast_kernel()), so every
 * ack and error is queued when it returns. Returns 0 when every message
 * was acked, the first error, or, when a reply was lost, 0 if the
 * generation advanced (the batch was committed: as a client must, ask; the
 * fault has fired, nothing else fails), else -ENOBUFS.
 */
static int batch_send(struct nft_state *c)
{
	int err = 0, acked = 0;
	unsigned int gen;
	ssize_t len;

	c->lost = false;
	if (send(c->sock, c->b.buf, c->b.len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *nh = (void *)c->buf;

		len = recv(c->sock, c->buf, sizeof(c->buf), MSG_DONTWAIT);
		if (len < 0 && errno == ENOBUFS) {
			c->lost = true;
			continue;
		}
		if (len < 0)
			break;
		for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type != NLMSG_ERROR)
				continue;
			if (nl_error(nh) && !err)
				err = nl_error(nh);
			acked += !nl_error(nh);
		}
	}
	c->acked = acked;
	if (errno != EAGAIN)
		return -errno;
	if (err || acked == c->b.acks)
		return err;
	if (!c->lost)
		return -EPROTO;
	err = gen_of(c, &gen);
	return err ? err : gen == c->gen0 + 1 ? 0 : -ENOBUFS;
}

/* Whether @a is a whole attribute within the @left bytes it starts. */
static bool attr_ok(const struct nlattr *a, int left)
{
	return left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= left;
}

/* The attribute after @a, with @left less @a's length. */
static struct nlattr *attr_next(struct nlattr *a, int *left)
{
	*left -= NLA_ALIGN(a->nla_len);
	return (void *)((char *)a + NLA_ALIGN(a->nla_len));
}

/* The first attribute of @type in [@a, @a + @len), or NULL. */
static struct nlattr *attr(struct nlattr *a, int len, unsigned short type)
{
	for (; attr_ok(a, len); a = attr_next(a, &len))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

static void *payload(struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

/* The attribute @type within the nested attribute @n (NULL: none). */
static struct nlattr *inner(struct nlattr *n, unsigned short type)
{
	return n ? attr(payload(n), n->nla_len - NLA_HDRLEN, type) : NULL;
}

/* How many attributes the nested attribute @n holds. */
static int nested(struct nlattr *n)
{
	struct nlattr *a = payload(n);
	int len = n->nla_len - NLA_HDRLEN, nr = 0;

	for (; attr_ok(a, len); a = attr_next(a, &len))
		nr++;
	return nr;
}

/* Counts a rule's expressions, and the packets of its counters. */
static void count_rule(struct nft_state *c, struct nlattr *a, int len)
{
	struct nlattr *list = attr(a, len, NFTA_RULE_EXPRESSIONS), *e, *pk;
	struct nlattr *h = attr(a, len, NFTA_RULE_HANDLE);
	struct nlattr *ch = attr(a, len, NFTA_RULE_CHAIN);
	unsigned long long v;
	int left;

	if (h && ch && !strcmp(payload(ch), BASE))
		memcpy(&c->handle, payload(h), sizeof(c->handle));
	if (!list)
		return;
	c->now.n[C_EXPRS] += nested(list);
	if (nested(list) == 1)
		c->ones++;
	else
		c->now.n[C_AT] += c->ones;
	e = payload(list);
	left = list->nla_len - NLA_HDRLEN;
	for (; attr_ok(e, left); e = attr_next(e, &left)) {
		pk = inner(e, NFTA_EXPR_NAME);
		if (!pk || strcmp(payload(pk), "counter"))
			continue;
		pk = inner(inner(e, NFTA_EXPR_DATA), NFTA_COUNTER_PACKETS);
		if (!pk)
			continue;
		memcpy(&v, payload(pk), sizeof(v));
		c->now.n[C_PKTS] += be64toh(v);
	}
}

/* The value of the 32-bit attribute @a (0: none). */
static unsigned int be32_of(struct nlattr *a)
{
	return a ? ntohl(*(unsigned int *)payload(a)) : 0;
}

/* Counts the expressions of the elements in the list @list. */
static void count_elems(struct nft_state *c, struct nlattr *list)
{
	struct nlattr *e = payload(list), *x;
	int left = list->nla_len - NLA_HDRLEN;

	for (; attr_ok(e, left); e = attr_next(e, &left)) {
		c->now.n[C_ELEMS]++;
		x = inner(e, NFTA_SET_ELEM_EXPRESSIONS);
		c->now.n[C_ELEMEXPRS] += x ? nested(x) :
					     !!inner(e, NFTA_SET_ELEM_EXPR);
	}
}

/* Counts one message of a dump into c->now. */
static void count(struct nft_state *c, struct nlmsghdr *nh)
{
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(struct nfgenmsg));
	struct nlattr *a = (void *)((char *)NLMSG_DATA(nh) +
				    NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	struct nlattr *list, *name, *h;
	unsigned int flags;

	switch (nh->nlmsg_type) {
	case NFT(NFT_MSG_NEWTABLE):
		c->now.n[C_TABLES]++;
		flags = be32_of(attr(a, len, NFTA_TABLE_FLAGS));
		c->now.n[C_DORMANT] += !!(flags & NFT_TABLE_F_DORMANT);
		c->now.n[C_OWNED] += !!(flags & NFT_TABLE_F_OWNER);
		break;
	case NFT(NFT_MSG_NEWCHAIN):
		c->now.n[C_CHAINS]++;
		c->now.n[C_HOOKED] += !!attr(a, len, NFTA_CHAIN_HOOK);
		/* NF_DROP is 0: the policy of a base chain only. */
		list = attr(a, len, NFTA_CHAIN_POLICY);
		c->now.n[C_DROP] += list && be32_of(list) == NF_DROP;
		name = attr(a, len, NFTA_CHAIN_NAME);
		h = attr(a, len, NFTA_CHAIN_HANDLE);
		if (name && h && !strcmp(payload(name), AUX))
			memcpy(&c->aux, payload(h), sizeof(c->aux));
		c->now.n[C_RENAMED] += name && !strcmp(payload(name), RENAMED);
		break;
	case NFT(NFT_MSG_NEWRULE):
		c->now.n[C_RULES]++;
		count_rule(c, a, len);
		break;
	case NFT(NFT_MSG_NEWSET):
		a = attr(a, len, NFTA_SET_NAME);
		if (a && c->now.n[C_SETS] < ARRAY_SIZE(c->sets))
			snprintf(c->sets[c->now.n[C_SETS]], sizeof(c->sets[0]),
				 "%s", (char *)payload(a));
		c->now.n[C_SETS]++;
		break;
	case NFT(NFT_MSG_NEWSETELEM):
		list = attr(a, len, NFTA_SET_ELEM_LIST_ELEMENTS);
		if (list)
			count_elems(c, list);
		break;
	case NFT(NFT_MSG_NEWOBJ):
		c->now.n[C_OBJS]++;
		c->now.n[C_OBJUSE] += be32_of(attr(a, len, NFTA_OBJ_USE));
		break;
	case NFT(NFT_MSG_NEWFLOWTABLE):
		c->now.n[C_FLOWTABLES]++;
		break;
	case NFT(NFT_MSG_NEWGEN):
		a = attr(a, len, NFTA_GEN_ID);
		if (a)
			c->gen = ntohl(*(unsigned int *)payload(a));
		break;
	}
}

/*
 * Sends the one request in c->b (not a batch) and reads its replies up to
 * NLMSG_DONE or its ack, counting each message (count()). Returns 0 or
 * -errno (an error reply, a failed read, -ETIME for a silent kernel).
 */
static int ask(struct nft_state *c)
{
	unsigned int seq = ++c->seq;

	c->b.nh->nlmsg_seq = seq;
	msg_end(&c->b);
	if (send(c->nl, c->b.buf, c->b.len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *nh = (void *)c->buf;
		ssize_t len;

		if (!fd_readable(c->nl, ARRIVE_MS))
			return -ETIME;
		len = recv(c->nl, c->buf, sizeof(c->buf), MSG_DONTWAIT);
		if (len < 0)
			return -errno;
		for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return nl_error(nh);
			count(c, nh);
		}
	}
}

/* The generation, NFT_MSG_GETGEN's, in *@gen; returns 0 or -errno. */
static int gen_of(struct nft_state *c, unsigned int *gen)
{
	int err;

	batch_reset(&c->b);
	msg(&c->b, NFT(NFT_MSG_GETGEN), AF_UNSPEC, NLM_F_ACK);
	c->gen = 0;
	err = ask(c);
	*gen = c->gen;
	return err;
}

/* Counts what the ruleset holds into c->now; returns 0 or -errno. */
static int census(struct nft_state *c)
{
	static const int dump[] = {
		NFT_MSG_GETTABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETRULE,
		NFT_MSG_GETSET,	  NFT_MSG_GETOBJ,   NFT_MSG_GETFLOWTABLE,
	};
	int i, nr = ARRAY_SIZE(dump), err = 0;

	memset(&c->now, 0, sizeof(c->now));
	c->ones = 0;
	/* Then the elements of each set the dump listed (a few at most). */
	for (i = 0; i < nr && !err; i++) {
		batch_reset(&c->b);
		if (i < ARRAY_SIZE(dump)) {
			msg(&c->b, NFT(dump[i]), NFPROTO_UNSPEC, NLM_F_DUMP);
		} else {
			msg(&c->b, NFT(NFT_MSG_GETSETELEM), NFPROTO_INET,
			    NLM_F_DUMP);
			put_str(&c->b, NFTA_SET_ELEM_LIST_TABLE, TABLE);
			put_str(&c->b, NFTA_SET_ELEM_LIST_SET,
				c->sets[i - ARRAY_SIZE(dump)]);
		}
		err = ask(c);
		if (i == ARRAY_SIZE(dump) - 1 && c->now.n[C_SETS])
			nr += c->now.n[C_SETS] > 1 ? ARRAY_SIZE(c->sets) : 1;
	}
	return err;
}

/* ---- the calls ------------------------------------------------------ */

/*
 * Whether the count is @before plus (@add) the variant's delta and the
 * generation gen0 plus @gen; else what differs, in @why.
 */
static bool census_is(struct nft_state *c, bool add, unsigned int gen,
		      char *why, size_t size)
{
	unsigned int now;
	int i, err = census(c);

	if (!err)
		err = gen_of(c, &now);
	if (err) {
		snprintf(why, size, "reading the ruleset back: %s",
			 strerror(-err));
		return false;
	}
	for (i = 0; i < C_NR; i++) {
		long want = c->before.n[i] + (add ? c->delta->n[i] : 0);

		if (c->now.n[i] == want)
			continue;
		snprintf(why, size, "%ld %s, expected %ld (%ld before)",
			 c->now.n[i], census_name[i], want, c->before.n[i]);
		return false;
	}
	if (now == c->gen0 + gen)
		return true;
	snprintf(why, size, "generation %u, expected %u (%u before)", now,
		 c->gen0 + gen, c->gen0);
	return false;
}

/*
 * Before each point: an empty ruleset (a flush: NFT_MSG_DELTABLE of no
 * name for every family), then the variant's state, counted, with its
 * generation; the batch of the call is built last.
 */
static void nft_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct nft_state *c = arg;

	c->sock = c->nl;
	batch_reset(&c->b);
	msg(&c->b, NFNL_MSG_BATCH_BEGIN, AF_UNSPEC, 0);
	msg(&c->b, NFT(NFT_MSG_DELTABLE), NFPROTO_UNSPEC, NLM_F_ACK);
	msg(&c->b, NFNL_MSG_BATCH_END, AF_UNSPEC, 0);
	msg_end(&c->b);
	ASSERT_EQ(0, batch_send(c));
	if (c->setup) {
		build(c, c->setup);
		ASSERT_EQ(0, batch_send(c));
	}
	ASSERT_EQ(0, census(c));
	c->before = c->now;
	ASSERT_EQ(0, gen_of(c, &c->gen0));
	build(c, c->act);
	if (!(c->act & P_OWNER))
		return;
	c->own = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	ASSERT_LE(0, c->own);
	c->sock = c->own;
}

/*
 * A batch whose last message is invalid (P_INVALID) has done what it must
 * when it is refused with that message's ENOENT, no reply lost: 0.
 */
static int batch_action(void *arg)
{
	struct nft_state *c = arg;
	int ret = batch_send(c);

	if (!(c->act & P_INVALID) || ret != -ENOENT)
		return ret;
	return c->lost ? -ENOBUFS : 0;
}

/*
 * A success added all the batch asks and advanced the generation once; a
 * failure left the ruleset and the generation as they were (nfnetlink
 * aborts the whole batch, net/netfilter/nfnetlink.c:581, 595). A batch
 * whose last message fails (P_INVALID: nf_tables_delchain() finds no
 * chain, ENOENT, net/netfilter/nf_tables_api.c:1735, 3020-3027) never
 * commits: refused, with every message before the last acked, or failed,
 * it leaves the ruleset and the generation as they were.
 * A table owned by a socket goes when that socket closes, in
 * nft_rcv_nl_event() (nf_tables_api.c:11582-11600), which does not touch
 * the generation: afterwards the count is as before.
 */
static bool batch_check(void *arg, int ret, char *why, size_t size)
{
	struct nft_state *c = arg;

	if (c->act & P_INVALID) {
		/* Refused: each message before the last was acked, undone. */
		if (ret >= 0 && c->acked != c->b.acks - 1) {
			snprintf(why, size, "%d of the %d messages acked",
				 c->acked, c->b.acks - 1);
			return false;
		}
		return census_is(c, false, 0, why, size);
	}
	if (!census_is(c, ret >= 0, ret >= 0, why, size))
		return false;
	if (!(c->act & P_OWNER))
		return true;
	close_fd(&c->own);
	if (census_is(c, false, ret >= 0, why, size))
		return true;
	strncat(why, ", after its owner closed", size - strlen(why) - 1);
	return false;
}

/* ---- the packet path ------------------------------------------------ */

static const char data[DGRAM_LEN] = "failnth nft";

/*
 * A sender of its own, bound to a new port, for each point: the datagram's
 * tuple is new, and its conntrack entry allocated under the fault.
 */
static void pkt_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct nft_state *c = arg;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1;

	nft_prepare(_metadata, arg);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c->snd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, c->snd);
	/*
	 * Without IP_RECVERR, udp_send_skb() reports an ENOBUFS from below
	 * (the loopback neighbour it could not allocate, say) as success
	 * (net/ipv4/udp.c:1051-1055, linux 6.12).
	 */
	ASSERT_EQ(0, setsockopt(c->snd, SOL_IP, IP_RECVERR, &one, sizeof(one)));
	ASSERT_EQ(0, bind(c->snd, (struct sockaddr *)&sa, sizeof(sa)));
}

static int pkt_action(void *arg)
{
	struct nft_state *c = arg;
	ssize_t len = sendto(c->snd, data, DGRAM_LEN, 0,
			     (struct sockaddr *)&c->rcv_addr,
			     sizeof(c->rcv_addr));

	return len < 0 ? -errno : len;
}

/*
 * A success delivers the datagram whole and the rule counts it once (its
 * conntrack entry is new); a failure delivers nothing and counts nothing.
 * The ruleset does not change: the generation stays.
 */
static bool pkt_check(void *arg, int ret, char *why, size_t size)
{
	static char got[DGRAM_LEN + 1];
	struct nft_state *c = arg;
	ssize_t len = -1;

	if (!census_is(c, ret >= 0, 0, why, size))
		return false;
	if (ret >= 0 && fd_readable(c->rcv, ARRIVE_MS))
		len = recv(c->rcv, got, sizeof(got), MSG_DONTWAIT);
	if (ret >= 0 && (len != DGRAM_LEN || memcmp(got, data, DGRAM_LEN))) {
		snprintf(why, size, "the datagram: %zd bytes, sent %d", len,
			 DGRAM_LEN);
		return false;
	}
	len = recv(c->rcv, got, sizeof(got), MSG_DONTWAIT);
	if (len < 0 && errno == EAGAIN)
		return true;
	snprintf(why, size, "%s: a datagram more arrived (%zd)",
		 ret < 0 ? "after a failed sendto" : "after the datagram", len);
	return false;
}

static void nft_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	close_fd(&((struct nft_state *)arg)->snd);
	close_fd(&((struct nft_state *)arg)->own);
}

FIXTURE(nft)
{
	struct nft_state ctx;
};

FIXTURE_VARIANT(nft)
{
	const struct failnth_scenario *op;
	/* What the state before the point holds, and what the call adds. */
	int setup, act;
	const struct set_spec *set;
	/* What a success adds to the count (packets: the datagram). */
	struct census delta;
	/* The datagram variant: a receiver on loopback. */
	bool pkt;
};

FIXTURE_SETUP(nft)
{
	const char *missing = failnth_missing();
	struct nft_state *c = &self->ctx;
	socklen_t alen = sizeof(c->rcv_addr);
	struct ifreq lo = { .ifr_name = "lo", .ifr_flags = IFF_UP };
	char msg[128];

	c->nl = -1;
	c->own = -1;
	c->rcv = -1;
	c->snd = -1;
	c->setup = variant->setup;
	c->act = variant->act;
	c->set = variant->set;
	c->delta = &variant->delta;
	if (missing)
		SKIP(return, "%s", missing);
	/* What the kernel lacks, with the errno it said it with. */
	if (unshare(CLONE_NEWNET))
		missing = "unshare(CLONE_NEWNET): needs CONFIG_NET_NS and root";
	else
		c->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			       NETLINK_NETFILTER);
	if (!missing && c->nl < 0)
		missing = "NETLINK_NETFILTER: needs CONFIG_NF_TABLES";
	else if (!missing && gen_of(c, &c->gen0))
		missing = "NFT_MSG_GETGEN: needs CONFIG_NF_TABLES_INET";
	if (missing) {
		snprintf(msg, sizeof(msg), "%s (%s)", missing, strerror(errno));
		SKIP(return, "%s", msg);
	}
	if (!variant->pkt)
		return;
	c->rcv_addr.sin_family = AF_INET;
	c->rcv_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c->rcv = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, c->rcv);
	/* The namespace's loopback device starts down. */
	ASSERT_EQ(0, ioctl(c->rcv, SIOCSIFFLAGS, &lo));
	ASSERT_EQ(0, bind(c->rcv, (struct sockaddr *)&c->rcv_addr, alen));
	ASSERT_EQ(0,
		  getsockname(c->rcv, (struct sockaddr *)&c->rcv_addr, &alen));
}

FIXTURE_TEARDOWN(nft)
{
	struct nft_state *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	close_fd(&c->nl);
	close_fd(&c->own);
	close_fd(&c->rcv);
	close_fd(&c->snd);
}

/* The scenario of every batch variant. */
#define BATCH                                            \
	.allowed = batch_errnos, .prepare = nft_prepare, \
	.action = batch_action, .check = batch_check, .cleanup = nft_cleanup

FAILNTH_VARIANT_MORE(nft, newtable,
		     (.act = P_TABLE, .delta.n = { [C_TABLES] = 1 }), BATCH);

FAILNTH_VARIANT_MORE(nft, newchain,
		     (.setup = P_TABLE, .act = P_AUX | P_BASE,
		      .delta.n = { [C_CHAINS] = 2, [C_HOOKED] = 1 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, newrule,
		     (.setup = P_TABLE | P_BASE, .act = P_RULE,
		      .delta.n = { [C_RULES] = 1, [C_EXPRS] = 6 }),
		     BATCH);

static const struct elem hash_elems[] = {
	{ .addr = { 10, 0, 0, 1 } },
	{ .addr = { 10, 0, 0, 2 } },
	{ .addr = { 10, 0, 0, 3 } },
};

static const struct set_spec hash_set = {
	.elems = hash_elems,
	.nr = ARRAY_SIZE(hash_elems),
};

/* Two ranges, each a start and an end element (rbtree). */
static const struct elem interval_elems[] = {
	{ .addr = { 10, 1, 0, 0 } },
	{ .addr = { 10, 1, 1, 0 }, .flags = NFT_SET_ELEM_INTERVAL_END },
	{ .addr = { 10, 2, 0, 0 } },
	{ .addr = { 10, 2, 1, 0 }, .flags = NFT_SET_ELEM_INTERVAL_END },
};

static const struct set_spec interval_set = {
	.flags = NFT_SET_INTERVAL,
	.elems = interval_elems,
	.nr = ARRAY_SIZE(interval_elems),
};

static const struct elem vmap_elems[] = {
	{ .addr = { 10, 3, 0, 1 }, .verdict = NFT_JUMP },
	{ .addr = { 10, 3, 0, 2 }, .verdict = NF_ACCEPT },
};

static const struct set_spec vmap_set = {
	.flags = NFT_SET_MAP,
	.dtype = NFT_DATA_VERDICT,
	.elems = vmap_elems,
	.nr = ARRAY_SIZE(vmap_elems),
};

static const struct elem timeout_elems[] = {
	{ .addr = { 10, 4, 0, 1 }, .timeout = true },
	{ .addr = { 10, 4, 0, 2 }, .timeout = true },
};

static const struct set_spec timeout_set = {
	.flags = NFT_SET_TIMEOUT,
	.elems = timeout_elems,
	.nr = ARRAY_SIZE(timeout_elems),
};

FAILNTH_VARIANT_MORE(nft, newset_hash,
		     (.setup = P_TABLE, .act = P_SET | P_ELEMS,
		      .set = &hash_set,
		      .delta.n = { [C_SETS] = 1, [C_ELEMS] = 3 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, newset_interval,
		     (.setup = P_TABLE, .act = P_SET | P_ELEMS,
		      .set = &interval_set,
		      .delta.n = { [C_SETS] = 1, [C_ELEMS] = 4 }),
		     BATCH);

/* pipapo: ranges of a concatenation, each element a key and a key end. */
static const struct elem concat_elems[] = {
	{ .addr = { 10, 5, 0, 1 }, .peer = { 10, 6, 0, 0 } },
	{ .addr = { 10, 5, 0, 2 }, .peer = { 10, 6, 1, 0 } },
};

static const struct set_spec concat_set = {
	.flags = NFT_SET_INTERVAL | NFT_SET_CONCAT,
	.elems = concat_elems,
	.nr = ARRAY_SIZE(concat_elems),
};

FAILNTH_VARIANT_MORE(nft, newset_concat,
		     (.setup = P_TABLE, .act = P_SET | P_ELEMS,
		      .set = &concat_set,
		      .delta.n = { [C_SETS] = 1, [C_ELEMS] = 2 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, newset_vmap,
		     (.setup = P_TABLE | P_AUX, .act = P_SET | P_ELEMS,
		      .set = &vmap_set,
		      .delta.n = { [C_SETS] = 1, [C_ELEMS] = 2 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, newsetelem_timeout,
		     (.setup = P_TABLE | P_SET, .act = P_ELEMS,
		      .set = &timeout_set, .delta.n = { [C_ELEMS] = 2 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, newobj,
		     (.setup = P_TABLE, .act = P_OBJS,
		      .delta.n = { [C_OBJS] = 3 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, newflowtable,
		     (.setup = P_TABLE, .act = P_FLOW,
		      .delta.n = { [C_FLOWTABLES] = 1 }),
		     BATCH);

/* All or nothing: none of the four exists after a failure. */
FAILNTH_VARIANT_MORE(nft, batch_atomic,
		     (.act = P_TABLE | P_BASE | P_SET | P_ELEMS | P_RULE,
		      .set = &hash_set,
		      .delta.n = { [C_TABLES] = 1,
				   [C_CHAINS] = 1,
				   [C_HOOKED] = 1,
				   [C_SETS] = 1,
				   [C_ELEMS] = 3,
				   [C_RULES] = 1,
				   [C_EXPRS] = 6 }),
		     BATCH);

/* A constant anonymous set, bound by the rule that looks it up. */
static const struct set_spec anon_set = {
	.flags = NFT_SET_ANONYMOUS | NFT_SET_CONSTANT,
	.elems = hash_elems,
	.nr = ARRAY_SIZE(hash_elems),
};

FAILNTH_VARIANT_MORE(nft, rule_anon_set,
		     (.setup = P_TABLE | P_BASE, .set = &anon_set,
		      .act = P_SET | P_ELEMS | P_LOOKUP,
		      .delta.n = { [C_SETS] = 1, [C_ELEMS] = 3, [C_RULES] = 1,
				   [C_EXPRS] = 3, }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, delsetelem,
		     (.setup = P_TABLE | P_SET | P_ELEMS, .act = P_DELELEMS,
		      .set = &hash_set, .delta.n = { [C_ELEMS] = -2 }),
		     BATCH);

/*
 * A dormant table woken up: its base chains' hooks registered
 * (nf_tables_table_enable(), net/netfilter/nf_tables_api.c:1205).
 */
FAILNTH_VARIANT_MORE(nft, table_wake,
		     (.setup = P_TABLE | P_DORMANT | P_AUX | P_BASE,
		      .act = P_WAKE, .delta.n = { [C_DORMANT] = -1 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, delrule,
		     (.setup = P_TABLE | P_BASE | P_RULE, .act = P_DELRULE,
		      .delta.n = { [C_RULES] = -1, [C_EXPRS] = -6 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, deltable,
		     (.setup = P_TABLE | P_AUX | P_BASE | P_SET | P_ELEMS |
			       P_RULE | P_OBJS,
		      .act = P_DELTABLE, .set = &hash_set,
		      .delta.n = { [C_TABLES] = -1,
				   [C_CHAINS] = -2,
				   [C_HOOKED] = -1,
				   [C_SETS] = -1,
				   [C_ELEMS] = -3,
				   [C_RULES] = -1,
				   [C_EXPRS] = -6,
				   [C_OBJS] = -3 }),
		     BATCH);

/* "accept" replaced by the six expressions of rule(). */
FAILNTH_VARIANT_MORE(nft, replace_rule,
		     (.setup = P_TABLE | P_BASE | P_ACCEPT, .act = P_REPLACE,
		      .delta.n = { [C_EXPRS] = 5 }),
		     BATCH);

/*
 * A rule that jumps to an anonymous chain made in its batch, bound to it
 * (nft_immediate_init(), net/netfilter/nft_immediate.c:73-80), with a rule
 * of its own; deleting the rule deletes the chain
 * (nft_immediate_deactivate(), nft_immediate.c:142-172).
 */
FAILNTH_VARIANT_MORE(nft, chain_binding,
		     (.setup = P_TABLE | P_BASE, .act = P_BIND,
		      .delta.n = { [C_CHAINS] = 1,
				   [C_RULES] = 2,
				   [C_EXPRS] = 2, }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, chain_binding_del,
		     (.setup = P_TABLE | P_BASE | P_BIND, .act = P_DELRULE,
		      .delta.n = { [C_CHAINS] = -1,
				   [C_RULES] = -2,
				   [C_EXPRS] = -2, }),
		     BATCH);

/* A verdict map of a key and a catch-all element, which has none. */
static const struct elem catchall_elems[] = {
	{ .addr = { 10, 3, 0, 1 }, .verdict = NFT_JUMP },
	{ .flags = NFT_SET_ELEM_CATCHALL, .verdict = NF_ACCEPT },
};

static const struct set_spec catchall_set = {
	.flags = NFT_SET_MAP,
	.dtype = NFT_DATA_VERDICT,
	.elems = catchall_elems,
	.nr = ARRAY_SIZE(catchall_elems),
};

FAILNTH_VARIANT_MORE(nft, newset_catchall,
		     (.setup = P_TABLE | P_AUX, .act = P_SET | P_ELEMS,
		      .set = &catchall_set,
		      .delta.n = { [C_SETS] = 1, [C_ELEMS] = 2 }),
		     BATCH);

/* A set of counters: each element holds one (NFTA_SET_EXPRESSIONS). */
static const struct set_spec counter_set = {
	/* Required of a set with expressions (nf_tables_api.c:5013-5020). */
	.flags = NFT_SET_EXPR,
	.counters = true,
	.elems = hash_elems,
	.nr = ARRAY_SIZE(hash_elems),
};

FAILNTH_VARIANT_MORE(nft, newset_counters,
		     (.setup = P_TABLE, .act = P_SET | P_ELEMS,
		      .set = &counter_set,
		      .delta.n = { [C_SETS] = 1,
				   [C_ELEMS] = 3,
				   [C_ELEMEXPRS] = 3, }),
		     BATCH);

/* A rule that uses the counter object "cnt": its use is one more. */
FAILNTH_VARIANT_MORE(nft, rule_objref,
		     (.setup = P_TABLE | P_BASE | P_OBJS, .act = P_OBJREF,
		      .delta.n = { [C_RULES] = 1,
				   [C_EXPRS] = 1,
				   [C_OBJUSE] = 1, }),
		     BATCH);

/* A map to the counter object "cnt": each element uses it. */
static const struct elem objmap_elems[] = {
	{ .addr = { 10, 7, 0, 1 }, .obj = "cnt" },
	{ .addr = { 10, 7, 0, 2 }, .obj = "cnt" },
};

/* NFT_SET_MAP with NFT_SET_OBJECT is EOPNOTSUPP (nf_tables_api.c:5136). */
static const struct set_spec objmap_set = {
	.flags = NFT_SET_OBJECT,
	.objtype = NFT_OBJECT_COUNTER,
	.elems = objmap_elems,
	.nr = ARRAY_SIZE(objmap_elems),
};

FAILNTH_VARIANT_MORE(nft, newset_objmap,
		     (.setup = P_TABLE | P_OBJS, .act = P_SET | P_ELEMS,
		      .set = &objmap_set,
		      .delta.n = { [C_SETS] = 1,
				   [C_ELEMS] = 2,
				   [C_OBJUSE] = 2, }),
		     BATCH);

/*
 * Three "accept", then the six expressions of rule() before the last one
 * (NFTA_RULE_POSITION without NLM_F_APPEND), or after all of them
 * (NLM_F_APPEND): nf_tables_newrule(), net/netfilter/nf_tables_api.c:4203-4213.
 */
FAILNTH_VARIANT_MORE(nft, rule_insert,
		     (.setup = P_TABLE | P_BASE | P_MANY, .act = P_INSERT,
		      .delta.n = { [C_RULES] = 1, [C_EXPRS] = 6, [C_AT] = 2 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, rule_append,
		     (.setup = P_TABLE | P_BASE | P_MANY, .act = P_APPEND,
		      .delta.n = { [C_RULES] = 1, [C_EXPRS] = 6, [C_AT] = 3 }),
		     BATCH);

/*
 * AUX renamed by its handle, and BASE's policy made drop, in one batch:
 * nf_tables_updchain(), net/netfilter/nf_tables_api.c:2761-2762, 2790.
 */
FAILNTH_VARIANT_MORE(nft, chain_update,
		     (.setup = P_TABLE | P_AUX | P_BASE,
		      .act = P_RENAME | P_POLICY,
		      .delta.n = { [C_RENAMED] = 1, [C_DROP] = 1 }),
		     BATCH);

/*
 * NFT_MSG_DESTROYSET of the set and its elements, and NFT_MSG_DESTROYOBJ
 * of an object that does not exist, which is no error
 * (nf_tables_delobj(), net/netfilter/nf_tables_api.c:8322-8325).
 */
FAILNTH_VARIANT_MORE(nft, destroy,
		     (.setup = P_TABLE | P_SET | P_ELEMS, .act = P_DESTROY,
		      .set = &hash_set,
		      .delta.n = { [C_SETS] = -1, [C_ELEMS] = -3 }),
		     BATCH);

/* No element named: all flushed (nft_set_flush(), nf_tables_api.c:7667). */
FAILNTH_VARIANT_MORE(nft, setelem_flush,
		     (.setup = P_TABLE | P_SET | P_ELEMS, .act = P_FLUSH,
		      .set = &hash_set, .delta.n = { [C_ELEMS] = -3 }),
		     BATCH);

/* A set with its elements made and deleted: only the generation moves. */
FAILNTH_VARIANT_MORE(nft, newset_delset,
		     (.setup = P_TABLE, .act = P_SET | P_ELEMS | P_DELSET,
		      .set = &hash_set),
		     BATCH);

/*
 * Messages that succeed, then one that fails (ENOENT, batch_action()): the
 * batch is aborted (nfnetlink.c:581, 595), nothing is left, the generation
 * stays. A success and a failure leave the same: only the acks differ.
 */
FAILNTH_VARIANT_MORE(nft, batch_invalid_last,
		     (.setup = P_TABLE,
		      .act = P_AUX | P_BASE | P_SET | P_ELEMS | P_RULE |
			     P_INVALID,
		      .set = &hash_set),
		     BATCH,
		     .success_unseen = "refused or failed, nothing is left");

/* A table owned by the socket that made it, with a base chain. */
FAILNTH_VARIANT_MORE(nft, table_owner,
		     (.act = P_TABLE | P_OWNER | P_BASE,
		      .delta.n = { [C_TABLES] = 1,
				   [C_OWNED] = 1,
				   [C_CHAINS] = 1,
				   [C_HOOKED] = 1 }),
		     BATCH);

FAILNTH_VARIANT_MORE(nft, ct_sendto,
		     (.setup = P_TABLE | P_CT, .pkt = true,
		      .delta.n = { [C_PKTS] = 1 }),
		     .allowed = pkt_errnos, .prepare = pkt_prepare,
		     .action = pkt_action, .check = pkt_check,
		     .cleanup = nft_cleanup);

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's batch or datagram fails in turn. The
 * call must succeed with all it says done, or fail with an allowed errno
 * having done nothing.
 */
FAILNTH_SWEEP_OP(nft, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
