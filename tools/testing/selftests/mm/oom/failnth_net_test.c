// SPDX-License-Identifier: GPL-2.0
/*
 * IPv4 and IPv6 sockets and rtnetlink while their small allocations fail,
 * one at a time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h), in a network namespace
 * of the test's own with only its loopback device up: socket(), a TCP
 * connect(), accept() and send() over loopback, a UDP sendto(), a classic
 * BPF socket filter's SO_ATTACH_FILTER, an RTM_GETLINK dump, an RTM_SETLINK
 * that sets lo's MTU and alias, the RTM_NEWADDR and RTM_NEWROUTE requests
 * that add an address and a route, an RTM_NEWLINK that adds a sit tunnel
 * and an RTM_NEWNEXTHOP that adds a nexthop object (IPv4 only), and a
 * multicast group's join on lo; each of IPv4 and, but for the address,
 * IPv6 (whose new address becomes usable only after addrconf's work, out
 * of the caller's task).
 *
 * The call must succeed or fail with an allowed errno. A success did all
 * it says: the connection carries a byte, the bytes sent arrive and no
 * more, the filter is attached, the dump lists every link, lo has the new
 * MTU and alias, the address is listed and can be bound to, the route is
 * listed, the tunnel is the one new link, the nexthop is listed, lo is in
 * the group and the socket holds its membership. A failure did nothing:
 * no connection waits on the listener (after a failed accept(), the one
 * it was to take still does), no byte or datagram arrives, no filter is
 * attached, the socket serves the next dump, lo keeps its MTU and has no
 * alias, no address, route, link, nexthop or group membership is left
 * behind.
 *
 * Only allocations in the calling task count (fail-nth does not reach
 * softirq context), so the receive side of loopback traffic is not swept.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/nexthop.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "failnth.h"

/* Per variant; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* What send() and sendto() carry: below the smallest send buffer. */
#define STREAM_LEN 4096
#define DGRAM_LEN 512

/*
 * The bound on waiting for loopback data. A success whose first transmit
 * could not clone its skb is sent again by the retransmit timer.
 */
#define ARRIVE_MS 1000

/* The address and the routes the rtnetlink variants add, on lo. */
#define ADDR "10.9.0.1"
#define ADDR_PREFIX 24
#define ROUTE "10.10.0.0"
#define ROUTE_PREFIX 16
#define ROUTE6 "fd00:10::"
#define ROUTE6_PREFIX 32

/* What the RTM_SETLINK variant gives lo (whose MTU is 64K). */
#define LO_MTU 60000
#define LO_ALIAS "failnth"

/* A netlink reply's buffer: a dump's skb holds up to 16 KB. */
#define NL_BUF (32 * 1024)

/*
 * Clean failures of socket(AF_INET and AF_INET6). sock_alloc()'s failure is
 * ENFILE (net/socket.c:1526 "return -ENFILE;"); sk_alloc()'s is ENOMEM for
 * IPv4 (net/ipv4/af_inet.c:325) and ENOBUFS for IPv6
 * (net/ipv6/af_inet6.c:192, linux 6.12).
 */
static const int socket_errnos[] = { ENOMEM, ENFILE, ENOBUFS, 0 };

/*
 * Clean failures of connect(): tcp_connect() reports a SYN it cannot
 * allocate as ENOBUFS (net/ipv4/tcp_output.c:4158), and so does the route
 * lookup for an output route it cannot allocate (net/ipv4/route.c:2643,
 * linux 6.12).
 */
static const int connect_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of accept(): __sys_accept4_file() reports a socket it
 * cannot allocate as ENFILE (net/socket.c:1919), the file as ENOMEM.
 */
static const int accept_errnos[] = { ENOMEM, ENFILE, 0 };

/*
 * Clean failures of SO_ATTACH_FILTER: every allocation of
 * net/core/filter.c:sk_attach_filter() (the program, its copy of the
 * classic filter, its eBPF translation, the sk_filter) fails as ENOMEM
 * (filter.c:1478, 1514, 1526, linux 6.12).
 */
static const int filter_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of send(MSG_DONTWAIT): tcp_sendmsg_locked() waits for
 * memory when it cannot allocate an skb, and with no time to wait that is
 * EAGAIN (net/core/stream.c:sk_stream_wait_memory(), linux 6.12), when
 * nothing was copied; a partial copy is a short count.
 */
static const int send_errnos[] = { ENOMEM, ENOBUFS, EAGAIN, 0 };

/*
 * Clean failures of sendto() and of netlink requests: alloc_skb_with_frags()
 * reports a failed alloc_skb() as ENOBUFS (net/core/skbuff.c:6679), as do
 * netlink_sendmsg() (net/netlink/af_netlink.c:1872), netlink_dump()
 * (af_netlink.c:2266), inet_rtm_newaddr() for its ifa
 * (net/ipv4/devinet.c:888) and fib_table_insert() for its alias
 * (net/ipv4/fib_trie.c:1341), and ip6_route_info_create() for its fib6_info
 * (net/ipv6/route.c:3806, linux 6.12).
 */
static const int nl_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of IP_ADD_MEMBERSHIP and IPV6_ADD_MEMBERSHIP: the socket's
 * entry is ENOBUFS (net/ipv4/igmp.c:2273) or ENOMEM (net/ipv6/mcast.c:193),
 * the device's group ENOMEM (mcast.c:__ipv6_dev_mc_inc(), linux 6.12).
 */
static const int mcast_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * The sit tunnel the RTM_NEWLINK variant adds, and its remote end: one
 * without would be the namespace's fallback device sit0's twin, EEXIST.
 */
#define TUNNEL "failnth0"
#define TUNNEL_REMOTE "192.0.2.1"

/* The id of the nexthop object the RTM_NEWNEXTHOP variant adds. */
#define NEXTHOP_ID 77

/*
 * IFLA_IPTUN_REMOTE of linux/if_tunnel.h, which cannot be included here:
 * its linux/if.h redefines what net/if.h defines.
 */
#define TUNNEL_ATTR_REMOTE 3

/* The groups the membership variants join on lo. */
#define MCAST4 "239.1.2.3"
#define MCAST6 "ff0e::1:2:3"

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct net_ctx {
	/* AF_INET or AF_INET6, and its socket address's size. */
	int family;
	socklen_t alen;
	/* A TCP listener and a UDP receiver on loopback, for the sweep. */
	int lst, rcv;
	struct sockaddr_storage lst_addr, rcv_addr;
	/* A UDP sender and a NETLINK_ROUTE socket, for the sweep. */
	int snd, nl;
	/* The links of the namespace, counted before the sweep. */
	int nr_links;
	/* lo's MTU before the sweep; lo's MTU and alias as a dump found. */
	unsigned int lo_mtu, mtu;
	char alias[64];
	/* A point's client (or new socket) and the end accepted for it. */
	int fd, peer;
	/* Whether the dump under test ended with NLMSG_DONE. */
	bool done;
	/* Whether a read said replies were lost (ENOBUFS, netlink(7)). */
	bool lost;
	/*
	 * Membership: lo's index (if_nametoindex() opens a socket: not while
	 * armed); IPv4's group, and the port the point's socket has.
	 */
	unsigned int lo_index;
	struct sockaddr_in group;
	unsigned int seq;
	char buf[NL_BUF];
};

static char data[STREAM_LEN];

static void set_data(void)
{
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 3);
}

/* Whether @fd has something to read, or an error to report, within @ms. */
static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & (POLLIN | POLLERR));
}

/* Whether a non-blocking read of @fd finds nothing; else why in @why. */
static bool nothing_more(int fd, const char *what, char *why, size_t size)
{
	char byte;
	ssize_t len = recv(fd, &byte, 1, MSG_DONTWAIT);

	if (len < 0 && errno == EAGAIN)
		return true;
	snprintf(why, size, "%s: a read found %zd (%s), expected nothing", what,
		 len, len < 0 ? strerror(errno) : "data");
	return false;
}

/* Whether exactly the first @n bytes of data arrive on @fd. */
static bool stream_holds(int fd, size_t n, char *why, size_t size)
{
	static char got[STREAM_LEN];
	size_t have = 0;
	ssize_t len;

	while (have < n) {
		if (!readable(fd, ARRIVE_MS)) {
			snprintf(why, size, "%zu of %zu bytes arrived in %d ms",
				 have, n, ARRIVE_MS);
			return false;
		}
		len = recv(fd, got + have, n - have, MSG_DONTWAIT);
		if (len <= 0) {
			snprintf(why, size, "recv after %zu of %zu bytes: %s",
				 have, n, len ? strerror(errno) : "EOF");
			return false;
		}
		have += len;
	}
	if (memcmp(got, data, n)) {
		snprintf(why, size, "the %zu bytes that arrived differ", n);
		return false;
	}
	return nothing_more(fd, "after the bytes sent", why, size);
}

/* The loopback address of @family, port 0, in @sa; returns its size. */
static socklen_t loopback(int family, struct sockaddr_storage *sa)
{
	struct sockaddr_in6 *sin6 = (void *)sa;
	struct sockaddr_in *sin = (void *)sa;

	memset(sa, 0, sizeof(*sa));
	if (family == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		return sizeof(*sin6);
	}
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*sin);
}

/* A TCP socket that resets its connection when closed: no TIME_WAIT. */
static int tcp_socket(int family)
{
	const struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * A non-blocking socket of @family and @type bound to loopback on a port
 * the kernel picks, listening if it is a stream socket.
 */
static int bound_socket(int family, int type, struct sockaddr_storage *addr)
{
	socklen_t len = loopback(family, addr);
	int fd = socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)addr, len) ||
	    getsockname(fd, (struct sockaddr *)addr, &len) ||
	    (type == SOCK_STREAM && listen(fd, 16))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* ---- rtnetlink ---------------------------------------------------- */

struct nl_req {
	struct nlmsghdr nh;
	union {
		struct ifinfomsg ifi;
		struct ifaddrmsg ifa;
		struct rtmsg rtm;
		struct nhmsg nhm;
	};
	char attrs[64];
};

static void nl_attr(struct nl_req *r, unsigned short type, const void *val,
		    size_t len)
{
	struct rtattr *rta = (void *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), val, len);
	r->nh.nlmsg_len =
		NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/*
 * Reads the replies to request c->seq: for a dump, calls @match on each
 * message until NLMSG_DONE and returns how many it matched; for a request,
 * returns its acknowledgment's error. Other sequence numbers (the tail of
 * an earlier dump) are passed over. Returns -errno on an error reply or a
 * failed read; a reply that does not come within ARRIVE_MS is -ETIME. A
 * read that fails with ENOBUFS means the kernel could not allocate a reply
 * and dropped it (net/netlink/af_netlink.c:netlink_ack() sets sk_err):
 * c->lost says so.
 */
static int nl_replies(struct net_ctx *c,
		      bool (*match)(struct net_ctx *c, struct nlmsghdr *nh))
{
	int nr = 0;

	for (;;) {
		struct nlmsghdr *nh;
		ssize_t len;

		if (!readable(c->nl, ARRIVE_MS))
			return -ETIME;
		len = recv(c->nl, c->buf, sizeof(c->buf), MSG_DONTWAIT);
		if (len < 0) {
			c->lost = errno == ENOBUFS;
			return -errno;
		}
		for (nh = (void *)c->buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != c->seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE) {
				c->done = true;
				return nr;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				return e->error;
			}
			if (match && match(c, nh))
				nr++;
		}
	}
}

/*
 * Sends @r with a new sequence number and reads its replies (see
 * nl_replies()); a failed send is its -errno.
 */
static int nl_ask(struct net_ctx *c, struct nl_req *r,
		  bool (*match)(struct net_ctx *c, struct nlmsghdr *nh))
{
	c->done = false;
	c->lost = false;
	r->nh.nlmsg_seq = ++c->seq;
	if (send(c->nl, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	return nl_replies(c, match);
}

/* A dump request of @type for the family @family. */
static int nl_dump(struct net_ctx *c, int type, int family,
		   bool (*match)(struct net_ctx *c, struct nlmsghdr *nh))
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
	};

	/* Each dump's own header: a shorter one reads as old iproute2's. */
	if (type == RTM_GETLINK) {
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
		r.ifi.ifi_family = family;
	} else if (type == RTM_GETNEXTHOP) {
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct nhmsg));
		r.nhm.nh_family = family;
	} else if (type == RTM_GETADDR) {
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
		r.ifa.ifa_family = family;
	} else {
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
		r.rtm.rtm_family = family;
	}
	return nl_ask(c, &r, match);
}

static bool any_link(struct net_ctx *c, struct nlmsghdr *nh)
{
	return nh->nlmsg_type == RTM_NEWLINK;
}

/* Records lo's MTU and alias (empty if none) from a link dump. */
static bool lo_attrs(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	struct rtattr *rta = IFLA_RTA(ifi);

	if (nh->nlmsg_type != RTM_NEWLINK || ifi->ifi_index != 1)
		return false;
	c->mtu = 0;
	c->alias[0] = '\0';
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_MTU &&
		    RTA_PAYLOAD(rta) == sizeof(c->mtu))
			memcpy(&c->mtu, RTA_DATA(rta), sizeof(c->mtu));
		if (rta->rta_type == IFLA_IFALIAS)
			snprintf(c->alias, sizeof(c->alias), "%.*s",
				 (int)RTA_PAYLOAD(rta), (char *)RTA_DATA(rta));
	}
	return true;
}

/* An RTM_SETLINK of lo's MTU and alias ("": none), acknowledged. */
static int nl_setlink(struct net_ctx *c, unsigned int mtu, const char *alias)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_SETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.ifi.ifi_index = 1,
	};

	nl_attr(&r, IFLA_MTU, &mtu, sizeof(mtu));
	nl_attr(&r, IFLA_IFALIAS, alias, strlen(alias));
	return nl_ask(c, &r, NULL);
}

/*
 * An RTM_NEWLINK of the sit tunnel TUNNEL (IPv6 in IPv4, net/ipv6/sit.c),
 * or an RTM_DELLINK of it, acknowledged.
 */
static int nl_tunnel(struct net_ctx *c, int type)
{
	struct {
		struct rtattr kind_rta;
		char kind[4];
		struct rtattr data_rta, remote_rta;
		struct in_addr remote;
	} info = {
		.kind_rta = { RTA_LENGTH(sizeof(info.kind)), IFLA_INFO_KIND },
		.kind = "sit",
		.data_rta = { RTA_LENGTH(RTA_LENGTH(sizeof(struct in_addr))),
			      IFLA_INFO_DATA },
		.remote_rta = { RTA_LENGTH(sizeof(info.remote)),
				TUNNEL_ATTR_REMOTE },
	};
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags =
			NLM_F_REQUEST | NLM_F_ACK |
			(type == RTM_NEWLINK ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
	};

	inet_pton(AF_INET, TUNNEL_REMOTE, &info.remote);
	nl_attr(&r, IFLA_IFNAME, TUNNEL, sizeof(TUNNEL));
	if (type == RTM_NEWLINK)
		nl_attr(&r, IFLA_LINKINFO, &info, sizeof(info));
	return nl_ask(c, &r, NULL);
}

/*
 * An RTM_NEWNEXTHOP of a blackhole IPv4 nexthop object NEXTHOP_ID, or an
 * RTM_DELNEXTHOP of it, acknowledged.
 */
static int nl_nexthop(struct net_ctx *c, int type)
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
				  (type == RTM_NEWNEXTHOP ?
					   NLM_F_CREATE | NLM_F_EXCL :
					   0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct nhmsg)),
		.nhm.nh_family = type == RTM_NEWNEXTHOP ? AF_INET : AF_UNSPEC,
	};
	unsigned int id = NEXTHOP_ID;

	nl_attr(&r, NHA_ID, &id, sizeof(id));
	if (type == RTM_NEWNEXTHOP)
		nl_attr(&r, NHA_BLACKHOLE, NULL, 0);
	return nl_ask(c, &r, NULL);
}

static bool is_our_nexthop(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct nhmsg *nhm = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*nhm));
	struct rtattr *rta = (void *)((char *)nhm + NLMSG_ALIGN(sizeof(*nhm)));
	unsigned int id;

	if (nh->nlmsg_type != RTM_NEWNEXTHOP)
		return false;
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type != NHA_ID || RTA_PAYLOAD(rta) != sizeof(id))
			continue;
		memcpy(&id, RTA_DATA(rta), sizeof(id));
		return id == NEXTHOP_ID;
	}
	return false;
}

static bool is_our_tunnel(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	struct rtattr *rta = IFLA_RTA(ifi);

	if (nh->nlmsg_type != RTM_NEWLINK)
		return false;
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == IFLA_IFNAME &&
		    !strncmp(RTA_DATA(rta), TUNNEL, RTA_PAYLOAD(rta)))
			return true;
	return false;
}

/* The route a variant of @family adds: its destination and length. */
static int route_of(int family, void *dst)
{
	inet_pton(family, family == AF_INET6 ? ROUTE6 : ROUTE, dst);
	return family == AF_INET6 ? ROUTE6_PREFIX : ROUTE_PREFIX;
}

/*
 * Whether the attribute @type of @nh holds the address @want of @family.
 */
static bool has_addr(struct nlmsghdr *nh, size_t hdr, unsigned short type,
		     int family, const void *want)
{
	int len = nh->nlmsg_len - NLMSG_LENGTH(hdr);
	struct rtattr *rta =
		(void *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(hdr));
	size_t size = family == AF_INET6 ? sizeof(struct in6_addr) :
					   sizeof(struct in_addr);

	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == type && RTA_PAYLOAD(rta) == size &&
		    !memcmp(RTA_DATA(rta), want, size))
			return true;
	return false;
}

static bool is_our_addr(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	struct in_addr want;

	inet_pton(AF_INET, ADDR, &want);
	return nh->nlmsg_type == RTM_NEWADDR &&
	       ifa->ifa_prefixlen == ADDR_PREFIX &&
	       has_addr(nh, sizeof(*ifa), IFA_LOCAL, AF_INET, &want);
}

static bool is_our_route(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct rtmsg *rtm = NLMSG_DATA(nh);
	struct in6_addr want;
	int dst_len = route_of(c->family, &want);

	return nh->nlmsg_type == RTM_NEWROUTE && rtm->rtm_family == c->family &&
	       rtm->rtm_table == RT_TABLE_MAIN && rtm->rtm_dst_len == dst_len &&
	       has_addr(nh, sizeof(*rtm), RTA_DST, c->family, &want);
}

/* An RTM_NEWADDR or RTM_DELADDR of ADDR/ADDR_PREFIX on lo, acknowledged. */
static int nl_addr(struct net_ctx *c, int type)
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags =
			NLM_F_REQUEST | NLM_F_ACK |
			(type == RTM_NEWADDR ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
		.ifa.ifa_family = AF_INET,
		.ifa.ifa_prefixlen = ADDR_PREFIX,
		.ifa.ifa_index = 1,
	};
	struct in_addr a;

	inet_pton(AF_INET, ADDR, &a);
	nl_attr(&r, IFA_LOCAL, &a, sizeof(a));
	nl_attr(&r, IFA_ADDRESS, &a, sizeof(a));
	return nl_ask(c, &r, NULL);
}

/*
 * An RTM_NEWROUTE or RTM_DELROUTE of ROUTE/ROUTE_PREFIX (or, for IPv6,
 * ROUTE6/ROUTE6_PREFIX) via lo.
 */
static int nl_route(struct net_ctx *c, int type)
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags =
			NLM_F_REQUEST | NLM_F_ACK |
			(type == RTM_NEWROUTE ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
		.rtm.rtm_family = c->family,
		.rtm.rtm_table = RT_TABLE_MAIN,
		.rtm.rtm_protocol = RTPROT_STATIC,
		.rtm.rtm_scope = RT_SCOPE_LINK,
		.rtm.rtm_type = RTN_UNICAST,
	};
	struct in6_addr a;
	int oif = 1;

	r.rtm.rtm_dst_len = route_of(c->family, &a);
	nl_attr(&r, RTA_DST, &a,
		c->family == AF_INET6 ? sizeof(a) : sizeof(struct in_addr));
	nl_attr(&r, RTA_OIF, &oif, sizeof(oif));
	return nl_ask(c, &r, NULL);
}

/*
 * Whether the dump of @type lists the object @match looks for @want times
 * (0 or 1); else what it found in @why.
 */
static bool listed(struct net_ctx *c, int type,
		   bool (*match)(struct net_ctx *c, struct nlmsghdr *nh),
		   int want, const char *what, char *why, size_t size)
{
	int nr = nl_dump(c, type, c->family, match);

	if (nr == want)
		return true;
	snprintf(why, size, "%s: %d in the dump, expected %d%s%s", what,
		 nr < 0 ? 0 : nr, want, nr < 0 ? ": the dump failed: " : "",
		 nr < 0 ? strerror(-nr) : "");
	return false;
}

/* ---- the scenarios ------------------------------------------------ */

static int socket_action(void *arg)
{
	struct net_ctx *c = arg;
	int fd = socket(c->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

/* A success is a TCP socket that binds to the loopback address. */
static bool socket_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	struct sockaddr_storage sa;
	socklen_t len = sizeof(int);
	int proto = 0;

	if (ret < 0)
		return true;
	if (getsockopt(ret, SOL_SOCKET, SO_PROTOCOL, &proto, &len) ||
	    proto != IPPROTO_TCP) {
		snprintf(why, size, "fd %d is not a TCP socket: %s", ret,
			 proto ? "another protocol" : strerror(errno));
		return false;
	}
	if (bind(ret, (struct sockaddr *)&sa, loopback(c->family, &sa))) {
		snprintf(why, size, "the new socket cannot bind: %s",
			 strerror(errno));
		return false;
	}
	return true;
}

static void connect_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	c->fd = tcp_socket(c->family);
	ASSERT_LE(0, c->fd)
	{
		TH_LOG("TCP socket (unarmed): %s", strerror(errno));
	}
}

static int connect_action(void *arg)
{
	struct net_ctx *c = arg;

	if (connect(c->fd, (struct sockaddr *)&c->lst_addr, c->alen))
		return -errno;
	return 0;
}

/*
 * A success is a connection that the listener hands out and that carries
 * a byte; a failure leaves the socket unconnected and nothing waiting on
 * the listener.
 */
static bool connect_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	int peer_err;

	if (ret < 0) {
		if (!getpeername(c->fd, (struct sockaddr *)&sa, &len)) {
			snprintf(why, size,
				 "the socket is connected after the failure");
			return false;
		}
		if (readable(c->lst, 0)) {
			snprintf(why, size,
				 "a connection waits after the failure");
			return false;
		}
		return true;
	}
	if (!readable(c->lst, ARRIVE_MS)) {
		snprintf(why, size, "no connection on the listener in %d ms",
			 ARRIVE_MS);
		return false;
	}
	c->peer = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	peer_err = errno;
	if (c->peer < 0) {
		snprintf(why, size, "accept: %s", strerror(peer_err));
		return false;
	}
	if (send(c->fd, data, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) {
		snprintf(why, size, "a byte on the new connection: %s",
			 strerror(errno));
		return false;
	}
	return stream_holds(c->peer, 1, why, size);
}

static void stream_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	connect_prepare(_metadata, c);
	ASSERT_EQ(0, connect_action(c));
	c->peer = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	ASSERT_LE(0, c->peer)
	{
		TH_LOG("accept (unarmed): %s", strerror(errno));
	}
}

static int send_action(void *arg)
{
	struct net_ctx *c = arg;
	ssize_t len =
		send(c->fd, data, STREAM_LEN, MSG_DONTWAIT | MSG_NOSIGNAL);

	return len < 0 ? -errno : len;
}

/* Exactly the bytes send() counted arrive, and no more. */
static bool send_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;

	if (ret < 0)
		return nothing_more(c->peer, "after a failed send", why, size);
	return stream_holds(c->peer, ret, why, size);
}

static int sendto_action(void *arg)
{
	struct net_ctx *c = arg;
	ssize_t len = sendto(c->snd, data, DGRAM_LEN, 0,
			     (struct sockaddr *)&c->rcv_addr, c->alen);

	return len < 0 ? -errno : len;
}

/* A success delivers the one datagram whole; a failure delivers none. */
static bool sendto_check(void *arg, int ret, char *why, size_t size)
{
	static char got[DGRAM_LEN + 1];
	struct net_ctx *c = arg;
	ssize_t len;

	if (ret < 0)
		return nothing_more(c->rcv, "after a failed sendto", why, size);
	if (!readable(c->rcv, ARRIVE_MS)) {
		snprintf(why, size, "no datagram arrived in %d ms", ARRIVE_MS);
		return false;
	}
	len = recv(c->rcv, got, sizeof(got), MSG_DONTWAIT);
	if (len != DGRAM_LEN || memcmp(got, data, DGRAM_LEN)) {
		snprintf(why, size, "the datagram: %zd bytes (%s), sent %d",
			 len, len < 0 ? strerror(errno) : "read", DGRAM_LEN);
		return false;
	}
	return nothing_more(c->rcv, "after the datagram", why, size);
}

static void net_cleanup(struct __test_metadata *_metadata, void *arg, int ret);

/* A connection waiting on the listener, from the point's client. */
static void accept_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	connect_prepare(_metadata, c);
	ASSERT_EQ(0, connect_action(c));
}

static int accept_action(void *arg)
{
	struct net_ctx *c = arg;
	int fd = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Whether the client's connection, accepted as @fd, carries a byte. */
static bool carries(struct net_ctx *c, int fd, char *why, size_t size)
{
	if (send(c->fd, data, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) {
		snprintf(why, size, "a byte on the connection: %s",
			 strerror(errno));
		return false;
	}
	return stream_holds(fd, 1, why, size);
}

/*
 * A success is the client's connection; a failure lost nothing: the
 * connection still waits on the listener, and an accept() takes it.
 */
static bool accept_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;

	if (ret >= 0)
		return carries(c, ret, why, size);
	c->peer = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c->peer < 0) {
		snprintf(why, size,
			 "no connection waits after the failed accept: %s",
			 strerror(errno));
		return false;
	}
	return carries(c, c->peer, why, size);
}

static void accept_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	if (ret >= 0)
		EXPECT_EQ(0, close(ret));
	net_cleanup(_metadata, arg, ret);
}

/* A classic filter with a branch, so that its translation has work. */
static struct sock_filter filter_code[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
	BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0xffff),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

static void filter_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	c->fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, c->fd)
	{
		TH_LOG("UDP socket (unarmed): %s", strerror(errno));
	}
}

static int filter_action(void *arg)
{
	const struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter_code),
		.filter = filter_code,
	};
	struct net_ctx *c = arg;

	if (setsockopt(c->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)))
		return -errno;
	return 0;
}

/* SO_GET_FILTER with no room gives the filter's length: 0 for none. */
static bool filter_check(void *arg, int ret, char *why, size_t size)
{
	socklen_t want = ret < 0 ? 0 : ARRAY_SIZE(filter_code), len = 0;
	struct net_ctx *c = arg;

	if (getsockopt(c->fd, SOL_SOCKET, SO_GET_FILTER, NULL, &len)) {
		snprintf(why, size, "SO_GET_FILTER: %s", strerror(errno));
		return false;
	}
	if (len == want)
		return true;
	snprintf(why, size, "a filter of %u blocks attached, expected %u", len,
		 want);
	return false;
}

static int dump_action(void *arg)
{
	return nl_dump(arg, RTM_GETLINK, AF_UNSPEC, any_link);
}

/*
 * A success lists every link and ends; a failure does not end with
 * NLMSG_DONE, and the socket serves the next dump in full.
 */
static bool dump_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int nr;

	if (ret >= 0) {
		if (ret == c->nr_links && c->done)
			return true;
		snprintf(why, size, "the dump listed %d of %d links%s", ret,
			 c->nr_links, c->done ? "" : ", with no NLMSG_DONE");
		return false;
	}
	if (c->done) {
		snprintf(why, size, "a failed dump ended with NLMSG_DONE");
		return false;
	}
	nr = nl_dump(c, RTM_GETLINK, AF_UNSPEC, any_link);
	if (nr == c->nr_links)
		return true;
	snprintf(why, size, "the next dump: %s%d of %d links",
		 nr < 0 ? strerror(-nr) : "", nr < 0 ? 0 : nr, c->nr_links);
	return false;
}

/*
 * A request whose acknowledgment was dropped may have been carried out:
 * as a client must, ask (the fault has fired, nothing else fails) and
 * take what is listed as the outcome.
 */
static int resolve_lost(struct net_ctx *c, int ret, int type,
			bool (*match)(struct net_ctx *c, struct nlmsghdr *nh))
{
	if (!c->lost)
		return ret;
	return nl_dump(c, type, c->family, match) == 1 ? 0 : ret;
}

/* lo as it was before the sweep: its MTU, no alias. */
static void setlink_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	ASSERT_EQ(0, nl_setlink(c, c->lo_mtu, ""));
}

/*
 * The request sets the MTU before the alias (net/core/rtnetlink.c:
 * do_setlink(), lines 2992 and 3016, linux 6.12). A lost acknowledgment
 * is resolved by asking, as for the address.
 */
static int setlink_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_setlink(c, LO_MTU, LO_ALIAS);

	if (!c->lost)
		return ret;
	nl_dump(c, RTM_GETLINK, AF_UNSPEC, lo_attrs);
	return c->mtu == LO_MTU && !strcmp(c->alias, LO_ALIAS) ? 0 : ret;
}

/* A success gave lo both; a failure, neither. */
static bool setlink_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	unsigned int mtu = ret < 0 ? c->lo_mtu : LO_MTU;
	const char *alias = ret < 0 ? "" : LO_ALIAS;
	int nr = nl_dump(c, RTM_GETLINK, AF_UNSPEC, lo_attrs);

	if (nr == 1 && c->mtu == mtu && !strcmp(c->alias, alias))
		return true;
	snprintf(why, size,
		 "lo has MTU %u and alias \"%s\", expected %u and \"%s\"%s",
		 c->mtu, c->alias, mtu, alias, nr == 1 ? "" : " (no dump)");
	return false;
}

static int newaddr_action(void *arg)
{
	return resolve_lost(arg, nl_addr(arg, RTM_NEWADDR), RTM_GETADDR,
			    is_our_addr);
}

/* Whether a UDP socket can bind to ADDR: 0, or -errno. */
static int bind_addr(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	inet_pton(AF_INET, ADDR, &sa.sin_addr);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = -errno;
	close(fd);
	return err;
}

/*
 * A success lists the address and makes it local (a socket binds to it);
 * a failure leaves neither.
 */
static bool newaddr_check(void *arg, int ret, char *why, size_t size)
{
	int want = ret < 0 ? 0 : 1, err;

	if (!listed(arg, RTM_GETADDR, is_our_addr, want, ADDR, why, size))
		return false;
	err = bind_addr();
	if (ret >= 0 && err) {
		snprintf(why, size, "binding to the new %s: %s", ADDR,
			 strerror(-err));
		return false;
	}
	if (ret < 0 && err != -EADDRNOTAVAIL) {
		snprintf(why, size, "binding to %s after the failure: %s", ADDR,
			 err ? strerror(-err) : "it is local");
		return false;
	}
	return true;
}

static int newroute_action(void *arg)
{
	return resolve_lost(arg, nl_route(arg, RTM_NEWROUTE), RTM_GETROUTE,
			    is_our_route);
}

/* A success lists the route in the main table; a failure does not. */
static bool newroute_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;

	return listed(c, RTM_GETROUTE, is_our_route, ret < 0 ? 0 : 1,
		      c->family == AF_INET6 ? ROUTE6 : ROUTE, why, size);
}

/*
 * A new link: rtnl_newlink() allocates and registers a net_device, and
 * the stacks give it their per-device state (IPv4's and IPv6's, each with
 * its sysctl tables). A lost acknowledgment is resolved by asking.
 */
static int newlink_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_tunnel(c, RTM_NEWLINK);

	if (!c->lost)
		return ret;
	return nl_dump(c, RTM_GETLINK, AF_UNSPEC, is_our_tunnel) == 1 ? 0 : ret;
}

/* A success added TUNNEL and no other link; a failure added none. */
static bool newlink_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int want = ret < 0 ? 0 : 1;
	int ours = nl_dump(c, RTM_GETLINK, AF_UNSPEC, is_our_tunnel);
	int all = nl_dump(c, RTM_GETLINK, AF_UNSPEC, any_link);

	if (ours == want && all == c->nr_links + want)
		return true;
	snprintf(why, size,
		 "%d links named %s and %d in all, expected %d and %d", ours,
		 TUNNEL, all, want, c->nr_links + want);
	return false;
}

/* Removes the tunnel a point added (an absent one is ENODEV). */
static void newlink_cleanup(struct __test_metadata *_metadata, void *arg,
			    int ret)
{
	int err = nl_tunnel(arg, RTM_DELLINK);

	EXPECT_TRUE(!err || err == -ENODEV)
	{
		TH_LOG("removing %s: %s", TUNNEL, strerror(-err));
	}
}

/*
 * A nexthop object (net/ipv4/nexthop.c): its nexthop and nh_info, and the
 * fib_nh's per-CPU route caches. A lost acknowledgment is resolved by
 * asking.
 */
static int newnexthop_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_nexthop(c, RTM_NEWNEXTHOP);

	if (!c->lost)
		return ret;
	return nl_dump(c, RTM_GETNEXTHOP, AF_UNSPEC, is_our_nexthop) == 1 ? 0 :
									    ret;
}

/* A success: the nexthop is listed. A failure: it is not. */
static bool newnexthop_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int want = ret < 0 ? 0 : 1;
	int nr = nl_dump(c, RTM_GETNEXTHOP, AF_UNSPEC, is_our_nexthop);

	if (nr == want)
		return true;
	snprintf(why, size, "nexthop %d: %d in the dump, expected %d%s%s",
		 NEXTHOP_ID, nr < 0 ? 0 : nr, want,
		 nr < 0 ? ": the dump failed: " : "",
		 nr < 0 ? strerror(-nr) : "");
	return false;
}

/* Removes the nexthop a point added (an absent one is ENOENT). */
static void newnexthop_cleanup(struct __test_metadata *_metadata, void *arg,
			       int ret)
{
	int err = nl_nexthop(arg, RTM_DELNEXTHOP);

	EXPECT_TRUE(!err || err == -ENOENT)
	{
		TH_LOG("removing nexthop %d: %s", NEXTHOP_ID, strerror(-err));
	}
}

/*
 * Multicast membership, on lo: the socket's list of groups, and the
 * device's. IPv6 lists the device's in /proc/net/igmp6. IPv4's list,
 * /proc/net/igmp, needs CONFIG_IP_MULTICAST: instead, a datagram sent to
 * the group through lo is taken in only if lo is in it (the output route
 * is local only then: net/ipv4/route.c:__mkroute_output(), and loopback
 * keeps that route for the input), by any socket bound to the port
 * (IP_MULTICAST_ALL, the default, takes every group of the device).
 */
static void mcast_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;
	socklen_t len = sizeof(c->group);
	struct ip_mreqn lo = {};

	c->lo_index = if_nametoindex("lo");
	ASSERT_NE(0, c->lo_index);
	lo.imr_ifindex = c->lo_index;
	c->fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, c->fd);
	if (c->family != AF_INET)
		return;
	c->group.sin_family = AF_INET;
	c->group.sin_port = 0;
	c->group.sin_addr.s_addr = htonl(INADDR_ANY);
	ASSERT_EQ(0, bind(c->fd, (struct sockaddr *)&c->group, len));
	ASSERT_EQ(0, getsockname(c->fd, (struct sockaddr *)&c->group, &len));
	inet_pton(AF_INET, MCAST4, &c->group.sin_addr);
	ASSERT_EQ(0,
		  setsockopt(c->snd, SOL_IP, IP_MULTICAST_IF, &lo, sizeof(lo)));
}

/* Joins (or leaves) @c's group on lo with @c->fd: 0 or -errno. */
static int mcast_member(struct net_ctx *c, bool join)
{
	struct ipv6_mreq m6 = { .ipv6mr_interface = c->lo_index };
	struct ip_mreqn m4 = { .imr_ifindex = c->lo_index };
	int ret;

	if (c->family == AF_INET6) {
		inet_pton(AF_INET6, MCAST6, &m6.ipv6mr_multiaddr);
		ret = setsockopt(c->fd, SOL_IPV6,
				 join ? IPV6_ADD_MEMBERSHIP :
					IPV6_DROP_MEMBERSHIP,
				 &m6, sizeof(m6));
	} else {
		inet_pton(AF_INET, MCAST4, &m4.imr_multiaddr);
		ret = setsockopt(c->fd, SOL_IP,
				 join ? IP_ADD_MEMBERSHIP : IP_DROP_MEMBERSHIP,
				 &m4, sizeof(m4));
	}
	return ret ? -errno : 0;
}

/*
 * Whether a datagram to the IPv4 group reaches @fd: 1, 0, or -errno. A
 * datagram to c->rcv sent after it marks the end: lo delivers in order.
 */
static int mcast_delivered(struct net_ctx *c, int fd)
{
	char byte = 'g', got;
	ssize_t len;

	if (sendto(c->snd, &byte, 1, 0, (struct sockaddr *)&c->group,
		   sizeof(c->group)) != 1 ||
	    sendto(c->snd, &byte, 1, 0, (struct sockaddr *)&c->rcv_addr,
		   c->alen) != 1)
		return -errno;
	if (!readable(c->rcv, ARRIVE_MS))
		return -ETIME;
	if (recv(c->rcv, &got, 1, MSG_DONTWAIT) != 1)
		return -EPROTO;
	len = recv(fd, &got, 1, MSG_DONTWAIT);
	if (len < 0)
		return errno == EAGAIN ? 0 : -errno;
	return len == 1 && got == byte ? 1 : -EPROTO;
}

/* Whether lo is in @c's group, as procfs lists it: 1, 0, or -errno. */
static int mcast_listed(struct net_ctx *c)
{
	char buf[8192], want[40] = "";
	unsigned char a6[16];
	ssize_t len;
	int i;

	/* igmp6_mc_seq_show(): "%pi6", 32 hex digits. */
	inet_pton(AF_INET6, MCAST6, a6);
	for (i = 0; i < 16; i++)
		sprintf(want + 2 * i, "%02x", a6[i]);
	len = read_file("/proc/net/igmp6", buf, sizeof(buf));
	if (len < 0)
		return len;
	return !!strstr(buf, want);
}

/* Whether lo is in @c's group (IPv4: as @fd sees it): 1, 0, or -errno. */
static int mcast_in_group(struct net_ctx *c, int fd)
{
	return c->family == AF_INET6 ? mcast_listed(c) : mcast_delivered(c, fd);
}

static int mcast_action(void *arg)
{
	return mcast_member(arg, true);
}

/*
 * A success: lo is in the group, and the socket holds the membership (a
 * second join is EADDRINUSE). A failure: lo is not, and the socket holds
 * none (a leave is EADDRNOTAVAIL).
 */
static bool mcast_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	const char *group = c->family == AF_INET6 ? MCAST6 : MCAST4;
	int in = mcast_in_group(c, c->fd), again, want = ret < 0 ? 0 : 1;

	if (in < 0) {
		snprintf(why, size, "whether lo is in %s: %s", group,
			 strerror(-in));
		return false;
	}
	if (in != want) {
		snprintf(why, size, "lo is %sin %s, after a %s join",
			 in ? "" : "not ", group,
			 want ? "successful" : "failed");
		return false;
	}
	again = mcast_member(c, want);
	if (again != (want ? -EADDRINUSE : -EADDRNOTAVAIL)) {
		snprintf(why, size,
			 "the socket %s the membership of %s: a %s gave %s",
			 want ? "does not hold" : "holds", group,
			 want ? "second join" : "leave",
			 again ? strerror(-again) : "success");
		return false;
	}
	return true;
}

/*
 * Closing the socket leaves the group: lo is in it no more, as another
 * socket bound to the port sees it.
 */
static void mcast_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;
	struct sockaddr_in any = c->group;
	int fd = -1;

	close_fd(&c->fd);
	if (c->family == AF_INET) {
		any.sin_addr.s_addr = htonl(INADDR_ANY);
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ASSERT_EQ(0, bind(fd, (struct sockaddr *)&any, sizeof(any)));
	}
	EXPECT_EQ(0, mcast_in_group(c, fd))
	{
		TH_LOG("lo is still in the group after the socket closed");
	}
	close_fd(&fd);
}

/*
 * Closes what the point opened, and any connection the listener still
 * holds (one a check did not take), so that each point starts afresh.
 */
static void net_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;

	close_fd(&c->fd);
	close_fd(&c->peer);
	while ((c->peer = accept4(c->lst, NULL, NULL, SOCK_NONBLOCK)) >= 0)
		close_fd(&c->peer);
}

/* Puts lo back as it was. */
static void setlink_cleanup(struct __test_metadata *_metadata, void *arg,
			    int ret)
{
	struct net_ctx *c = arg;

	EXPECT_EQ(0, nl_setlink(c, c->lo_mtu, ""));
}

/*
 * Removes the address and the route a point may have added (an absent
 * one is EADDRNOTAVAIL or ESRCH, and not an error).
 */
static void rtnl_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;
	int err = c->family == AF_INET ? nl_addr(c, RTM_DELADDR) : 0;

	EXPECT_TRUE(!err || err == -EADDRNOTAVAIL)
	{
		TH_LOG("removing %s: %s", ADDR, strerror(-err));
	}
	err = nl_route(c, RTM_DELROUTE);
	EXPECT_TRUE(!err || err == -ESRCH)
	{
		TH_LOG("removing the route to %s: %s", ROUTE, strerror(-err));
	}
}

static void socket_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	if (ret >= 0)
		EXPECT_EQ(0, close(ret));
}

FIXTURE(net)
{
	struct net_ctx ctx;
};

FIXTURE_VARIANT(net)
{
	const struct failnth_scenario *op;
	/* AF_INET, or AF_INET6. */
	int family;
};

FAILNTH_VARIANT_MORE(net, socket_tcp, (.family = AF_INET),
		     .allowed = socket_errnos, .action = socket_action,
		     .check = socket_check, .cleanup = socket_cleanup);

FAILNTH_VARIANT_MORE(net, tcp_connect, (.family = AF_INET),
		     .allowed = connect_errnos, .prepare = connect_prepare,
		     .action = connect_action, .check = connect_check,
		     .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, tcp_accept, (.family = AF_INET),
		     .allowed = accept_errnos, .prepare = accept_prepare,
		     .action = accept_action, .check = accept_check,
		     .cleanup = accept_cleanup);

FAILNTH_VARIANT_MORE(net, tcp_send, (.family = AF_INET), .allowed = send_errnos,
		     .full = STREAM_LEN, .prepare = stream_prepare,
		     .action = send_action, .check = send_check,
		     .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, udp_sendto, (.family = AF_INET), .allowed = nl_errnos,
		     .full = DGRAM_LEN, .action = sendto_action,
		     .check = sendto_check, .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, so_attach_filter, (.family = AF_INET),
		     .allowed = filter_errnos, .prepare = filter_prepare,
		     .action = filter_action, .check = filter_check,
		     .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_getlink_dump, (.family = AF_INET),
		     .allowed = nl_errnos, .action = dump_action,
		     .check = dump_check, .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink, (.family = AF_INET),
		     .allowed = nl_errnos, .prepare = setlink_prepare,
		     .action = setlink_action, .check = setlink_check,
		     .cleanup = setlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newaddr, (.family = AF_INET),
		     .allowed = nl_errnos, .action = newaddr_action,
		     .check = newaddr_check, .cleanup = rtnl_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newroute, (.family = AF_INET),
		     .allowed = nl_errnos, .action = newroute_action,
		     .check = newroute_check, .cleanup = rtnl_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_sit, (.family = AF_INET),
		     .allowed = nl_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newnexthop, (.family = AF_INET),
		     .allowed = nl_errnos, .action = newnexthop_action,
		     .check = newnexthop_check, .cleanup = newnexthop_cleanup);

FAILNTH_VARIANT_MORE(net, ip_add_membership, (.family = AF_INET),
		     .allowed = mcast_errnos, .prepare = mcast_prepare,
		     .action = mcast_action, .check = mcast_check,
		     .cleanup = mcast_cleanup);

FAILNTH_VARIANT_MORE(net, socket_tcp6, (.family = AF_INET6),
		     .allowed = socket_errnos, .action = socket_action,
		     .check = socket_check, .cleanup = socket_cleanup);

FAILNTH_VARIANT_MORE(net, tcp6_connect, (.family = AF_INET6),
		     .allowed = connect_errnos, .prepare = connect_prepare,
		     .action = connect_action, .check = connect_check,
		     .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, tcp6_accept, (.family = AF_INET6),
		     .allowed = accept_errnos, .prepare = accept_prepare,
		     .action = accept_action, .check = accept_check,
		     .cleanup = accept_cleanup);

FAILNTH_VARIANT_MORE(net, tcp6_send, (.family = AF_INET6),
		     .allowed = send_errnos, .full = STREAM_LEN,
		     .prepare = stream_prepare, .action = send_action,
		     .check = send_check, .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, udp6_sendto, (.family = AF_INET6),
		     .allowed = nl_errnos, .full = DGRAM_LEN,
		     .action = sendto_action, .check = sendto_check,
		     .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newroute6, (.family = AF_INET6),
		     .allowed = nl_errnos, .action = newroute_action,
		     .check = newroute_check, .cleanup = rtnl_cleanup);

FAILNTH_VARIANT_MORE(net, ipv6_add_membership, (.family = AF_INET6),
		     .allowed = mcast_errnos, .prepare = mcast_prepare,
		     .action = mcast_action, .check = mcast_check,
		     .cleanup = mcast_cleanup);

/* Brings the namespace's loopback device up. */
static int lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		err = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (!err && ioctl(fd, SIOCSIFFLAGS, &ifr))
		err = -errno;
	close(fd);
	return err;
}

FIXTURE_SETUP(net)
{
	const char *missing = failnth_missing();
	struct net_ctx *c = &self->ctx;
	struct sockaddr_storage sa;
	int fd, one = 1;

	c->lst = -1;
	c->rcv = -1;
	c->snd = -1;
	c->nl = -1;
	c->fd = -1;
	c->peer = -1;
	c->family = variant->family;
	c->alen = loopback(c->family, &sa);
	set_data();
	if (missing)
		SKIP(return, "%s", missing);
	if (unshare(CLONE_NEWNET)) {
		char msg[128];

		snprintf(msg, sizeof(msg), "unshare(CLONE_NEWNET): %s: %s",
			 strerror(errno), "needs CONFIG_NET_NS and root");
		SKIP(return, "%s", msg);
	}
	fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 && errno == EAFNOSUPPORT) {
		const char *msg =
			c->family == AF_INET6 ?
				"IPv6 sockets missing: needs CONFIG_IPV6" :
				"IPv4 sockets missing: needs CONFIG_INET";

		SKIP(return, "%s", msg);
	}
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, lo_up());
	c->lst = bound_socket(c->family, SOCK_STREAM, &c->lst_addr);
	ASSERT_LE(0, c->lst);
	c->rcv = bound_socket(c->family, SOCK_DGRAM, &c->rcv_addr);
	ASSERT_LE(0, c->rcv);
	c->snd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, c->snd);
	/*
	 * Without IP_RECVERR, udp_send_skb() counts an ENOBUFS from below
	 * (a neighbour it could not allocate, say) in SndbufErrors and
	 * reports success (net/ipv4/udp.c:1051; IPv6: net/ipv6/udp.c:1360,
	 * linux 6.12): with it, a success is a datagram sent.
	 */
	ASSERT_EQ(0, c->family == AF_INET6 ?
			     setsockopt(c->snd, SOL_IPV6, IPV6_RECVERR, &one,
					sizeof(one)) :
			     setsockopt(c->snd, SOL_IP, IP_RECVERR, &one,
					sizeof(one)));
	c->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ASSERT_LE(0, c->nl);
	c->nr_links = nl_dump(c, RTM_GETLINK, AF_UNSPEC, any_link);
	ASSERT_LE(1, c->nr_links);
	ASSERT_EQ(1, nl_dump(c, RTM_GETLINK, AF_UNSPEC, lo_attrs));
	c->lo_mtu = c->mtu;
}

FIXTURE_TEARDOWN(net)
{
	struct net_ctx *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, failnth_knobs_restore());
	close_fd(&c->fd);
	close_fd(&c->peer);
	close_fd(&c->lst);
	close_fd(&c->rcv);
	close_fd(&c->snd);
	close_fd(&c->nl);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed with all it says done, or fail with an allowed errno having done
 * nothing: no connection, byte, datagram, address or route.
 */
FAILNTH_SWEEP_OP(net, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
