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
 * Links: an RTM_NEWLINK of each kind (dummy, veth with its peer, bridge,
 * vlan, macvlan, ipvlan (l2 and l3) and vxlan on a dummy, a geneve, a
 * bond (active-backup, miimon), a vrf, an nlmon, a dummy made up), one
 * request of each (nl_newlink()); an RTM_SETLINK that brings a dummy or a
 * tap up, makes a dummy a bridge, bond or vrf port, renames it, or
 * lengthens an up tap's queue; an
 * RTM_NEWLINKPROP of an alternative name; an RTM_NEWMDB of a bridge
 * port's multicast group; TUNSETIFF of a tun and a tap, and a packet
 * written to each.
 *
 * Traffic control, on a dummy (tc_spec, one request of each): an
 * RTM_NEWQDISC of an htb, a prio (with a size table) or a pfifo_fast root
 * qdisc, or of an ingress or a clsact qdisc; an RTM_NEWTCLASS of an htb class with a rate estimator
 * under an htb root; an RTM_NEWTFILTER of a u32 filter with a key, a basic
 * filter, or a matchall filter with a gact or a mirred action, on clsact's
 * ingress; an RTM_NEWACTION of a gact action. Policy routing: an
 * RTM_NEWRULE of IPv4 and of IPv6, and a route in a table of its own.
 *
 * Neighbours, namespaces and sockets: an RTM_NEWNEIGH of a permanent ARP
 * entry and of an IPv6 proxy entry (NTF_PROXY) on an up dummy, and of a
 * vxlan's fdb entry (AF_BRIDGE, NDA_LLADDR and NDA_DST); an
 * RTM_NEWNSID of a peer namespace (one for each point); an RTM_SETLINK
 * that moves a dummy, up with an address, to a peer namespace
 * (IFLA_NET_NS_FD); a sock_diag dump (SOCK_DIAG_BY_FAMILY) of the
 * listening and established TCP sockets with their tcp_info; an IPv6
 * RTM_NEWADDR with finite lifetimes (IFA_CACHEINFO) on an up dummy. A
 * success: the dump lists the entry, permanent with its link-layer
 * address, or flagged proxy; RTM_GETNSID gives the peer the id asked for;
 * the link is gone from here with its procfs directories, and in the peer
 * has its name, its ifindex, is down with no address (as a move leaves
 * it) and has its procfs directories there; the dump lists the test's
 * three sockets, each with its ports, state and tcp_info, and ends; the
 * address is listed with its lifetimes, and its prefix route, expiring.
 * A failure: no entry; no id; the link is still here, up, with its
 * address and directories, and nothing of it is in the peer; the dump does
 * not end, and the next one lists all three; no address, no prefix route.
 *
 * The call must succeed or fail with an allowed errno. A success did all
 * it says: the connection carries a byte, the bytes sent arrive and no
 * more, the filter is attached, the dump lists every link, lo has the new
 * MTU and alias, the address is listed and can be bound to, the route is
 * listed, the tunnel is the one new link, the nexthop is listed, lo is in
 * the group and the socket holds its membership; a new link is listed, of
 * its kind, with its kind's attributes, on its lower link, with its peer
 * and its procfs and sysfs directories; an up link has its qdisc; a port
 * has the master and the master lists it (a bond in bonding/slaves); a
 * renamed link has its directories under the new name; a
 * queue has the new length; an alternative name finds the link; the mdb
 * lists the entry; a tun or tap is attached to its fd; a written packet
 * is received; a qdisc, class, filter, action or rule is listed with its
 * kind, parent, handle and options, its pfifo children, its estimator and
 * its action (a root qdisc is the link's). A failure did nothing:
 * no connection waits on the listener (after a failed accept(), the one
 * it was to take still does), no byte or datagram arrives, no filter is
 * attached, the socket serves the next dump, lo keeps its MTU and has no
 * alias, no address, route, link, nexthop or group membership is left
 * behind, no link or mdb entry is half made or half changed (a lower link
 * or a port keeps its flags, MTU and address), and no
 * qdisc, class, filter, action or rule is left, nor a child or an action
 * of one, and the link keeps its qdisc.
 *
 * Only allocations in the calling task count (fail-nth does not reach
 * softirq context), so the receive side of loopback traffic is not swept.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/filter.h>
#include <linux/gen_stats.h>
#include <linux/if_bridge.h>
#include <linux/nexthop.h>
#include <linux/netlink.h>
#include <linux/if_tun.h>
#include <linux/inet_diag.h>
#include <linux/neighbour.h>
#include <linux/net_namespace.h>
#include <linux/sock_diag.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_gact.h>
#include <linux/tc_act/tc_mirred.h>
#include <linux/veth.h>
#include <net/if_arp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
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
 * Clean failures of a new link, of a link brought up, made a bridge port,
 * renamed, given an alternative name or a longer queue, and of TUNSETIFF:
 * those of netlink (nl_errnos), rtnl_newlink()'s ENOMEM
 * (net/core/rtnetlink.c:3871) and rtnl_create_link()'s (3510), and
 * register_netdevice()'s: the name (dev_alloc_name(), ENOMEM,
 * net/core/dev.c:1192), the kinds' ndo_init (a veth's queues,
 * drivers/net/veth.c:1453; a macvlan's port, drivers/net/macvlan.c:1256;
 * a bridge's netpoll, net/bridge/br_device.c:311), and the NETDEV_REGISTER
 * and NETDEV_CHANGENAME notifiers, IPv4's and IPv6's, whose
 * neigh_sysctl_register() is ENOBUFS (net/core/neighbour.c:3890) and
 * snmp6_register_dev() ENOMEM (net/ipv6/proc.c:283). A vlan's group array
 * is ENOBUFS (net/8021q/vlan.c:72), its vlan_info ENOMEM
 * (net/8021q/vlan_core.c:331); a bridge port's bitmap and port ENOMEM
 * (net/bridge/br_if.c:412, 437); a tun device ENOMEM (drivers/net/tun.c:
 * 2859, its file 3503 and 3506, its ring 797); a rename's kobject ENOMEM
 * (lib/kobject.c:492, 497); an alternative name ENOMEM
 * (net/core/rtnetlink.c:4023, net/core/dev.c:346); a queue's qdisc rings
 * ENOMEM (include/linux/ptr_ring.h:662); an mdb group and port group
 * ENOMEM (net/bridge/br_multicast.c:1319, net/bridge/br_mdb.c:996); an
 * upper link's adjacency ENOMEM (net/core/dev.c:7949), a vxlan's default
 * fdb entry and its remote (drivers/net/vxlan/vxlan_core.c:906, 606), a
 * geneve's gro cells (net/core/gro_cells.c:78), an ipvlan's port and
 * stats (drivers/net/ipvlan/ipvlan_main.c:68, 155), a bond's and a bond
 * port's (drivers/net/bonding/bond_main.c:6549, 2075), a vrf's and its
 * fib rules' (drivers/net/vrf.c:1156, 1520), all ENOMEM (linux 6.12).
 */
static const int link_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of the tc and rule requests: those of netlink
 * (nl_errnos); a qdisc's ENOBUFS (net/sched/sch_generic.c:1003), its size
 * table's ENOMEM (net/sched/sch_api.c:547), htb's class hash's ENOMEM
 * (sch_api.c:738), a tcf_block's (net/sched/cls_api.c:1037, 1448),
 * ingress's and clsact's tcx entry's (net/sched/sch_ingress.c:93, 260),
 * prio's bands' (net/sched/sch_prio.c:203), pfifo_fast's rings'
 * (net/sched/sch_generic.c:934); an htb class's ENOBUFS
 * (net/sched/sch_htb.c:1846) and a rate estimator's
 * (net/core/gen_estimator.c:159); a filter's chain ENOMEM
 * (net/sched/cls_api.c:2352), its tcf_proto ENOBUFS (cls_api.c:382),
 * u32's hash and key nodes' ENOBUFS and ENOMEM (net/sched/cls_u32.c:369,
 * 375, 385, 1144, 1153), basic's and matchall's filter ENOBUFS
 * (net/sched/cls_basic.c:82, 198; net/sched/cls_matchall.c:194), their
 * tcf_exts' ENOMEM (cls_api.c:89, 3380), matchall's flow rule and action
 * cookie for the offload ENOMEM (cls_matchall.c:96, cls_api.c:3852); an
 * action's ENOMEM (net/sched/act_api.c:748), its cookie's (act_api.c:1423);
 * a rule's ENOMEM (net/core/fib_rules.c:552, linux 6.12).
 */
static const int tc_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of a write() to a tun or tap device: a tun's skb that
 * sock_alloc_send_pskb() cannot allocate is ENOBUFS (net/core/skbuff.c:6679),
 * a tap's page fragment or skb ENOMEM (drivers/net/tun.c:1617 and 1691,
 * linux 6.12).
 */
static const int tun_write_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of IP_ADD_MEMBERSHIP and IPV6_ADD_MEMBERSHIP: the socket's
 * entry is ENOBUFS (net/ipv4/igmp.c:2273) or ENOMEM (net/ipv6/mcast.c:193),
 * the device's group ENOMEM (mcast.c:__ipv6_dev_mc_inc(), linux 6.12).
 */
static const int mcast_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of a new neighbour entry: those of netlink (nl_errnos),
 * ___neigh_create()'s ENOBUFS (net/core/neighbour.c:652) and
 * pneigh_lookup()'s, a proxy entry's (neighbour.c:2045); a vxlan fdb
 * entry's and its remote's ENOMEM (drivers/net/vxlan/vxlan_core.c:906,
 * 606, linux 6.12).
 */
static const int neigh_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of RTM_NEWNSID: those of netlink (nl_errnos), and
 * alloc_netid()'s idr slot, ENOMEM (net/core/net_namespace.c:285, linux
 * 6.12).
 */
static const int nsid_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of a link's move to another namespace: those of netlink
 * (nl_errnos), and dev_index_reserve()'s for its ifindex there, ENOMEM
 * (net/core/dev.c:11825, linux 6.12).
 */
static const int netns_errnos[] = { ENOMEM, ENOBUFS, 0 };

/* Why the sock_diag variant skips. */
#define DIAG_MISSING \
	"no TCP sock_diag: needs CONFIG_INET_DIAG and CONFIG_INET_TCP_DIAG"

/* Why the sock_diag variant's success cannot be told from a failure. */
#define DIAG_QUERY "a query: success and failure leave the same state"

/*
 * The sit tunnel the RTM_NEWLINK variant adds, and its remote end
 * (192.0.2.1): one without would be the namespace's fallback device sit0's
 * twin, EEXIST.
 */
#define TUNNEL "failnth0"
static const unsigned char tunnel_remote[] = { 192, 0, 2, 1 };

/*
 * The qdisc dev_open() gives a dummy: noqueue, for IFF_NO_QUEUE
 * (drivers/net/dummy.c:111; net/sched/sch_generic.c:1236, linux 6.12).
 */
#define DUMMY_QDISC "noqueue"

/* How long an mdb group with no entry may take to go (mdb_count()). */
#define MDB_SETTLE_MS 200

/* The name a variant gives its lower link, and the alternative name. */
#define RENAMED "failnth_renamed"
#define ALT_NAME "failnth_altname"

/* The VLAN id of the vlan link a variant adds (IFLA_VLAN_ID). */
static const unsigned short vlan_id = 7;

/*
 * A vxlan's (and a geneve's) VNI, its local address and UDP port (4789,
 * network order); a bond's mode (1: active-backup, linux/if_bonding.h,
 * whose linux/if.h clashes with net/if.h) and MII interval in ms; an
 * ipvlan's modes; a vrf's table.
 */
static const unsigned int vxlan_id = 42;
static const unsigned char vxlan_local[] = { 198, 51, 100, 1 };
static const unsigned char vxlan_port[] = { 0x12, 0xb5 };
static const unsigned char bond_mode = 1;
static const unsigned int bond_miimon = 100;
static const unsigned short ipvlan_l2 = IPVLAN_MODE_L2;
static const unsigned short ipvlan_l3 = IPVLAN_MODE_L3;
static const unsigned int vrf_table = 10;

/* The tun or tap device TUNSETIFF makes. */
#define TUN_NAME "failnth_tun"
#define TUN_DEV "/dev/net/tun"

/*
 * What the write variants write to it: an IPv4 UDP datagram of TUN_DATA
 * bytes from TUN_PEER to TUN_ADDR, the device's address (and, to a tap, in
 * an Ethernet frame to its address).
 */
#define TUN_ADDR "198.18.0.1"
#define TUN_PEER "198.18.0.2"
#define TUN_DATA 32
#define TUN_IP_LEN (sizeof(struct iphdr) + sizeof(struct udphdr) + TUN_DATA)
#define TAP_HLEN 14

/*
 * The ids the RTM_NEWNSID variant gives its peer namespaces (from NSID,
 * one for each point, below NSID + NSID_SPAN); the IPv6
 * address the lifetime variant adds on the lower link, and its lifetimes
 * in seconds.
 */
#define NSID 5
#define NSID_SPAN 100000
#define ADDR6 "fd00:20::1"
#define ADDR6_PREFIX 64
#define ADDR6_VALID 1200
#define ADDR6_PREFERRED 600

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

/*
 * What the tc variants add on the lower link: the root qdisc 1: and its
 * class 1:10, filters of priority FILTER_PRIO, actions of index
 * ACT_INDEX; and the rule the rule variants add.
 */
#define TC_ROOT TC_H_MAKE(1 << 16, 0)
#define TC_CLASS TC_H_MAKE(1 << 16, 0x10)
#define FILTER_PRIO 1
#define ACT_INDEX 7
#define ACT_SETTLE_MS 1000
#define ACT_COOKIE "failnth cookie"
#define RULE_PRIO 1000
#define RULE_TABLE 100
#define RULE_MARK 7

/* An attribute of a link's IFLA_INFO_DATA: its type, length and value. */
struct link_attr {
	unsigned short type, len;
	const void *val;
};

/*
 * A link of a variant: of kind @kind (IFLA_INFO_KIND), named @name. The
 * RTM_NEWLINK variants add one; others make one before their call.
 */
struct link_spec {
	const char *kind;
	const char *name;
	/* What gives the kernel the kind: a skip names it. */
	const char *config;
	/*
	 * The attributes of IFLA_INFO_DATA, to one of type 0 (NULL: none);
	 * a dump of the link gives each back as it was.
	 */
	const struct link_attr *data;
	/* A veth's peer: VETH_INFO_PEER with this IFLA_IFNAME, or NULL. */
	const char *peer;
	/*
	 * The variant's lower link, made before the sweep: IFLA_LINK, or
	 * the attribute lower_attr of IFLA_INFO_DATA (a vxlan's).
	 */
	bool on_lower;
	unsigned short lower_attr;
	/* A master's file in sysfs that lists its ports by name, or NULL. */
	const char *ports_file;
	/* Made up (IFF_UP in ifi_flags and ifi_change), with this qdisc. */
	const char *up_qdisc;
};

/* What an RTM_GETLINK dump says of one link. */
struct link_state {
	int index, link, master;
	unsigned int flags;
	unsigned short type;
	/* IFLA_LINKINFO's IFLA_INFO_KIND and IFLA_INFO_SLAVE_KIND. */
	char kind[16], slave_kind[16];
	/* Whether IFLA_LINKINFO has IFLA_INFO_SLAVE_DATA (a port's). */
	bool slave_data;
	char qdisc[16];
	/* IFLA_STATS64's count of packets received. */
	unsigned long long rx_packets;
	/* Whether IFLA_PROP_LIST has ALT_NAME (IFLA_ALT_IFNAME). */
	bool alt_name;
	/* IFLA_TXQLEN, IFLA_MTU and IFLA_ADDRESS. */
	unsigned int txqlen, mtu;
	unsigned char addr[6];
	/* IFLA_LINKINFO's IFLA_INFO_DATA (its first bytes). */
	unsigned char data[512];
	int data_len;
};

struct nl_req;
struct neigh_spec;

/*
 * What a tc or rule variant adds with one request (RTM_NEWQDISC,
 * RTM_NEWTCLASS, RTM_NEWTFILTER or RTM_NEWACTION on the lower link, or
 * RTM_NEWRULE of the variant's family), and what the dumps of a success
 * show of it; its RTM_DEL and RTM_GET types follow its RTM_NEW type.
 */
struct tc_spec {
	int type;
	/* TCA_KIND (an action's TCA_ACT_KIND), and what gives the kind. */
	const char *kind, *config;
	/* tcm_parent and tcm_handle (0: the kernel picks it). */
	unsigned int parent, handle;
	/* The qdisc made on the lower link before the sweep, or NULL. */
	const struct tc_spec *base;
	/* Adds TCA_OPTIONS (and TCA_RATE) to the request. */
	void (*options)(struct nl_req *r);
	/* The attribute of TCA_OPTIONS a success dumps (0: not looked at). */
	unsigned short opt;
	/* The pfifo qdiscs a success adds under it: bands, a class's leaf. */
	int children;
	/* A success has a rate estimator (TCA_STATS2's TCA_STATS_RATE_EST). */
	bool est;
	/* A qdisc's size table (TCA_STAB), as a success dumps it. */
	bool stab;
	/* The action a success adds (at ACT_INDEX), of this kind, or NULL. */
	const char *act;
};

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
	/* The routing table of the route variants. */
	unsigned char table;
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
	/*
	 * Links: the one the variant adds (or makes for its call), its lower
	 * link and the bridge it joins, each made before the sweep and their
	 * indexes; the one a point made. is_named() looks for @look and
	 * keeps what the dump says of it in @ls.
	 */
	const struct link_spec *link, *lower, *master;
	int lower_index, master_index, link_index;
	const char *look;
	struct link_state ls, lower_ls;
	/*
	 * An mdb dump: the port groups of MCAST4 on the lower link, and the
	 * groups with neither a port nor the host.
	 */
	int mdb_ours, mdb_empty;
	/* TUNSETIFF's flags: IFF_TUN or IFF_TAP, with IFF_NO_PI. */
	short tun_flags;
	/*
	 * The variants of an up tun or tap (tun_up_setup()): its fd, a UDP
	 * socket bound to TUN_ADDR, its received packets before the point,
	 * and the packet (pkt_len bytes) to write.
	 */
	int tun, tun_rcv;
	struct sockaddr_in tun_addr;
	unsigned long long rx0;
	/* The device's tx_queue_len and qdisc, up, before the sweep. */
	unsigned int txqlen;
	char qdisc[16];
	unsigned char pkt[TAP_HLEN + TUN_IP_LEN];
	size_t pkt_len;
	/*
	 * A tc or rule variant (its lower link's qdisc, before the sweep, in
	 * qdisc): what tc_count() counts, and what it counted before.
	 */
	const struct tc_spec *tc;
	int tc_ours, tc_all, tc_qdiscs, tc_children, tc_acts;
	int tc_all0, tc_qdiscs0;
	bool tc_est;
	/*
	 * A neighbour variant's entry, and what a dump says of it: its
	 * state, flags and whether it has neigh_lladdr.
	 */
	const struct neigh_spec *neigh;
	unsigned short nd_state;
	unsigned char nd_flags;
	bool nd_lladdr;
	/*
	 * The namespace variants: the test's namespace and the peer (fds),
	 * a NETLINK_ROUTE socket in the peer and its links before the
	 * point; the peer's id as RTM_GETNSID says it, and the one asked for.
	 */
	int self_ns, peer_ns, peer_nl, peer_links, nsid, nsid_want;
	/*
	 * The sock_diag variant: its NETLINK_SOCK_DIAG socket, a client
	 * connected to the listener and the end accepted, the client's port
	 * (network order), and which of the three a dump listed whole.
	 */
	int diag, diag_cli, diag_acc;
	unsigned short diag_port;
	int diag_seen;
	/* Whether the IPv6 address, or its prefix route, expires. */
	bool addr6_lft;
	char buf[NL_BUF];
};

static char data[STREAM_LEN];

static void set_data(void)
{
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 3);
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
		if (!fd_readable(fd, ARRIVE_MS)) {
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
		struct br_port_msg bpm;
		struct tcmsg tcm;
		struct tcamsg tca;
		struct fib_rule_hdr frh;
		struct ndmsg ndm;
		struct rtgenmsg rtg;
		struct inet_diag_req_v2 idr;
	};
	char attrs[256];
};

static struct rtattr *nl_attr(struct nl_req *r, unsigned short type,
			      const void *val, size_t len)
{
	struct rtattr *rta = (void *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), val, len);
	r->nh.nlmsg_len =
		NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

/* Ends the nested attribute @nest (nl_attr()'s) where @r ends. */
static void nl_nest_end(struct nl_req *r, struct rtattr *nest)
{
	nest->rta_len = (char *)r + r->nh.nlmsg_len - (char *)nest;
}

/*
 * The action ACT_INDEX of @kind as the first in the list @type of @r: to
 * add (with the cookie ACT_COOKIE, and its parameters: a gact that passes
 * the packet on, a mirred that redirects it to lo), or, @add false, by
 * its index.
 */
static void nl_act(struct nl_req *r, unsigned short type, const char *kind,
		   bool add)
{
	struct rtattr *list = nl_attr(r, type, NULL, 0);
	struct rtattr *act = nl_attr(r, 1, NULL, 0), *opt;
	struct tc_mirred mirred = {
		.index = ACT_INDEX,
		.action = TC_ACT_STOLEN,
		.eaction = TCA_EGRESS_REDIR,
		.ifindex = 1,
	};
	struct tc_gact gact = { .index = ACT_INDEX, .action = TC_ACT_OK };
	unsigned int index = ACT_INDEX;

	nl_attr(r, TCA_ACT_KIND, kind, strlen(kind) + 1);
	if (add) {
		nl_attr(r, TCA_ACT_COOKIE, ACT_COOKIE, sizeof(ACT_COOKIE));
		opt = nl_attr(r, TCA_ACT_OPTIONS, NULL, 0);
		if (!strcmp(kind, "mirred"))
			nl_attr(r, TCA_MIRRED_PARMS, &mirred, sizeof(mirred));
		else
			nl_attr(r, TCA_GACT_PARMS, &gact, sizeof(gact));
		nl_nest_end(r, opt);
	} else {
		nl_attr(r, TCA_ACT_INDEX, &index, sizeof(index));
	}
	nl_nest_end(r, act);
	nl_nest_end(r, list);
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

		if (!fd_readable(c->nl, ARRIVE_MS))
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
	} else if (type == RTM_GETMDB) {
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct br_port_msg));
		r.bpm.family = family;
	} else if (type == RTM_GETADDR) {
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
		r.ifa.ifa_family = family;
	} else if (type == RTM_GETQDISC || type == RTM_GETTCLASS ||
		   type == RTM_GETTFILTER) {
		/* The lower link's; its filters of the variant's parent. */
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
		r.tcm.tcm_ifindex = c->lower_index;
		if (type == RTM_GETTFILTER)
			r.tcm.tcm_parent = c->tc->parent;
		/* Children made by a qdisc or class are not otherwise. */
		if (type == RTM_GETQDISC)
			nl_attr(&r, TCA_DUMP_INVISIBLE, NULL, 0);
	} else if (type == RTM_GETACTION) {
		/* The variant's kind (the dump passes the index over). */
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcamsg));
		nl_act(&r, TCA_ACT_TAB, c->tc->act, false);
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
 * An RTM_NEWLINK of @l, acknowledged: IFLA_IFNAME, IFLA_LINK (on_lower:
 * c->lower_index), IFLA_LINKINFO with IFLA_INFO_KIND and IFLA_INFO_DATA
 * (its attributes, the lower link's lower_attr, and a veth's
 * VETH_INFO_PEER: an ifinfomsg and the peer's IFLA_IFNAME,
 * drivers/net/veth.c:veth_newlink()).
 */
static int nl_newlink(struct net_ctx *c, const struct link_spec *l)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_NEWLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
				  NLM_F_EXCL,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.ifi.ifi_flags = l->up_qdisc ? IFF_UP : 0,
		.ifi.ifi_change = l->up_qdisc ? IFF_UP : 0,
	};
	const struct ifinfomsg peer = {};
	const int idx_len = sizeof(c->lower_index);
	struct rtattr *info, *data, *nest;
	const struct link_attr *a;

	nl_attr(&r, IFLA_IFNAME, l->name, strlen(l->name) + 1);
	if (l->on_lower && !l->lower_attr)
		nl_attr(&r, IFLA_LINK, &c->lower_index, idx_len);
	info = nl_attr(&r, IFLA_LINKINFO, NULL, 0);
	nl_attr(&r, IFLA_INFO_KIND, l->kind, strlen(l->kind) + 1);
	if (l->data || l->peer) {
		data = nl_attr(&r, IFLA_INFO_DATA, NULL, 0);
		for (a = l->data; a && a->type; a++)
			nl_attr(&r, a->type, a->val, a->len);
		if (l->on_lower && l->lower_attr)
			nl_attr(&r, l->lower_attr, &c->lower_index, idx_len);
		if (l->peer) {
			nest = nl_attr(&r, VETH_INFO_PEER, &peer, sizeof(peer));
			nl_attr(&r, IFLA_IFNAME, l->peer, strlen(l->peer) + 1);
			nl_nest_end(&r, nest);
		}
		nl_nest_end(&r, data);
	}
	nl_nest_end(&r, info);
	return nl_ask(c, &r, NULL);
}

/* An RTM_DELLINK of the link @name (and a veth's peer), acknowledged. */
static int nl_dellink(struct net_ctx *c, const char *name)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_DELLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
	};

	nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	return nl_ask(c, &r, NULL);
}

/*
 * An RTM_SETLINK of the link @index, acknowledged: its IFF_UP as @up, or
 * (@type not 0) the u32 attribute @type (IFLA_MASTER, IFLA_TXQLEN) as @val.
 */
static int nl_setlink_of(struct net_ctx *c, int index, bool up,
			 unsigned short type, unsigned int val)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_SETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.ifi.ifi_index = index,
		.ifi.ifi_flags = up ? IFF_UP : 0,
		.ifi.ifi_change = type ? 0 : IFF_UP,
	};

	if (type)
		nl_attr(&r, type, &val, sizeof(val));
	return nl_ask(c, &r, NULL);
}

/* An RTM_SETLINK of link @index's IFLA_IFNAME, acknowledged. */
static int nl_rename(struct net_ctx *c, int index, const char *name)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_SETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.ifi.ifi_index = index,
	};

	nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	return nl_ask(c, &r, NULL);
}

/*
 * An RTM_NEWLINKPROP or RTM_DELLINKPROP of link @index's alternative name
 * ALT_NAME, acknowledged.
 */
static int nl_alt_name(struct net_ctx *c, int type, int index)
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.ifi.ifi_index = index,
	};
	/* A nested attribute newer than the policy's strict start. */
	struct rtattr *list =
		nl_attr(&r, IFLA_PROP_LIST | NLA_F_NESTED, NULL, 0);

	nl_attr(&r, IFLA_ALT_IFNAME, ALT_NAME, sizeof(ALT_NAME));
	nl_nest_end(&r, list);
	return nl_ask(c, &r, NULL);
}

/*
 * An RTM_NEWMDB or RTM_DELMDB of the bridge's permanent entry for MCAST4
 * on the lower link, its port, acknowledged.
 */
static int nl_mdb(struct net_ctx *c, int type)
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags =
			NLM_F_REQUEST | NLM_F_ACK |
			(type == RTM_NEWMDB ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct br_port_msg)),
		.bpm.family = AF_BRIDGE,
		.bpm.ifindex = c->master_index,
	};
	struct br_mdb_entry e = {
		.ifindex = c->lower_index,
		.state = MDB_PERMANENT,
		.addr.proto = htons(ETH_P_IP),
	};

	inet_pton(AF_INET, MCAST4, &e.addr.u.ip4);
	nl_attr(&r, MDBA_SET_ENTRY, &e, sizeof(e));
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

static void rta_string(char *dst, size_t size, struct rtattr *rta)
{
	snprintf(dst, size, "%.*s", (int)RTA_PAYLOAD(rta),
		 (char *)RTA_DATA(rta));
}

static int rta_int(struct rtattr *rta)
{
	int val = 0;

	if (rta && RTA_PAYLOAD(rta) == sizeof(val))
		memcpy(&val, RTA_DATA(rta), sizeof(val));
	return val;
}

/* The first attribute of type @type among @len bytes from @rta, or NULL. */
static struct rtattr *rta_find(struct rtattr *rta, int len, unsigned short type)
{
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if ((rta->rta_type & NLA_TYPE_MASK) == type)
			return rta;
	return NULL;
}

/* The attribute of type @type nested in @nest (which may be NULL). */
static struct rtattr *rta_nested(struct rtattr *nest, unsigned short type)
{
	return nest ? rta_find(RTA_DATA(nest), RTA_PAYLOAD(nest), type) : NULL;
}

/* A filter's tcm_info: its priority and protocol (every one). */
static unsigned int tc_info(const struct tc_spec *s)
{
	return s->type == RTM_NEWTFILTER ?
		       TC_H_MAKE(FILTER_PRIO << 16, htons(ETH_P_ALL)) :
		       0;
}

/* IFLA_LINKINFO's kinds, and whether it holds a port's data. */
static void link_info(struct link_state *ls, struct rtattr *info)
{
	struct rtattr *rta = RTA_DATA(info);
	int len = RTA_PAYLOAD(info);

	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_INFO_KIND)
			rta_string(ls->kind, sizeof(ls->kind), rta);
		if (rta->rta_type == IFLA_INFO_SLAVE_KIND)
			rta_string(ls->slave_kind, sizeof(ls->slave_kind), rta);
		if (rta->rta_type == IFLA_INFO_SLAVE_DATA)
			ls->slave_data = true;
		if (rta->rta_type == IFLA_INFO_DATA) {
			ls->data_len = RTA_PAYLOAD(rta) < sizeof(ls->data) ?
					       RTA_PAYLOAD(rta) :
					       sizeof(ls->data);
			memcpy(ls->data, RTA_DATA(rta), ls->data_len);
		}
	}
}

/* Whether the property list @list holds ALT_NAME. */
static bool has_alt_name(struct rtattr *list)
{
	struct rtattr *rta = RTA_DATA(list);
	int len = RTA_PAYLOAD(list);

	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == IFLA_ALT_IFNAME &&
		    !strncmp(RTA_DATA(rta), ALT_NAME, RTA_PAYLOAD(rta)))
			return true;
	return false;
}

/* Whether @nh is the link named c->look; if so, what it says in c->ls. */
static bool is_named(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	struct rtattr *rta = IFLA_RTA(ifi);
	struct link_state ls = {
		.index = ifi->ifi_index,
		.flags = ifi->ifi_flags,
		.type = ifi->ifi_type,
	};
	bool named = false;

	if (nh->nlmsg_type != RTM_NEWLINK)
		return false;
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFLA_IFNAME)
			named = !strncmp(RTA_DATA(rta), c->look,
					 RTA_PAYLOAD(rta));
		if (rta->rta_type == IFLA_LINK)
			ls.link = rta_int(rta);
		if (rta->rta_type == IFLA_MASTER)
			ls.master = rta_int(rta);
		if (rta->rta_type == IFLA_TXQLEN)
			ls.txqlen = rta_int(rta);
		if (rta->rta_type == IFLA_MTU)
			ls.mtu = rta_int(rta);
		if (rta->rta_type == IFLA_ADDRESS &&
		    RTA_PAYLOAD(rta) == sizeof(ls.addr))
			memcpy(ls.addr, RTA_DATA(rta), sizeof(ls.addr));
		if (rta->rta_type == IFLA_QDISC)
			rta_string(ls.qdisc, sizeof(ls.qdisc), rta);
		if (rta->rta_type == IFLA_LINKINFO)
			link_info(&ls, rta);
		/* Filled as a nested attribute: NLA_F_NESTED. */
		if ((rta->rta_type & NLA_TYPE_MASK) == IFLA_PROP_LIST)
			ls.alt_name = has_alt_name(rta);
		if (rta->rta_type == IFLA_STATS64 &&
		    RTA_PAYLOAD(rta) >= sizeof(ls.rx_packets))
			memcpy(&ls.rx_packets, RTA_DATA(rta),
			       sizeof(ls.rx_packets));
	}
	if (named)
		c->ls = ls;
	return named;
}

/*
 * How many links (0 or 1) a dump of @family lists named @name, what it
 * says of it in c->ls; or -errno.
 */
static int links_named(struct net_ctx *c, int family, const char *name)
{
	c->look = name;
	memset(&c->ls, 0, sizeof(c->ls));
	return nl_dump(c, RTM_GETLINK, family, is_named);
}

/*
 * Whether the dump lists @want (0 or 1) links named @name, in @ls what it
 * says of it, and @all links in all; else what it found in @why.
 */
static bool links_are(struct net_ctx *c, const char *name, int want, int all,
		      struct link_state *ls, char *why, size_t size)
{
	int ours = links_named(c, AF_UNSPEC, name), nr;

	*ls = c->ls;
	nr = nl_dump(c, RTM_GETLINK, AF_UNSPEC, any_link);
	if (ours == want && nr == all)
		return true;
	snprintf(why, size,
		 "%d links named %s and %d in all, expected %d and %d", ours,
		 name, nr, want, all);
	return false;
}

/*
 * Makes the link @l: its index, or -errno. A kind the kernel lacks is
 * EOPNOTSUPP (net/core/rtnetlink.c:3857, linux 6.12).
 */
static int link_make(struct net_ctx *c, const struct link_spec *l)
{
	int err = nl_newlink(c, l);

	if (err)
		return err;
	if (links_named(c, AF_UNSPEC, l->name) != 1)
		return -ENODEV;
	return c->ls.index;
}

/*
 * Counts, in an mdb dump of the bridge, the port groups of MCAST4 on the
 * lower link and the groups listed with no entry, neither a port's nor the
 * host's (net/bridge/br_mdb.c:br_mdb_fill_info() nests each group's
 * entries in an MDBA_MDB_ENTRY; the dump's messages are RTM_GETMDB,
 * br_mdb.c:389, linux 6.12).
 */
static bool is_our_mdb(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct br_port_msg *bpm = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*bpm)), glen, elen;
	struct rtattr *mdb = (void *)((char *)bpm + NLMSG_ALIGN(sizeof(*bpm)));
	struct rtattr *group, *entry;
	struct br_mdb_entry e;
	struct in_addr want;

	inet_pton(AF_INET, MCAST4, &want);
	if (nh->nlmsg_type != RTM_GETMDB || bpm->ifindex != c->master_index)
		return false;
	for (; RTA_OK(mdb, len); mdb = RTA_NEXT(mdb, len)) {
		if ((mdb->rta_type & NLA_TYPE_MASK) != MDBA_MDB)
			continue;
		glen = RTA_PAYLOAD(mdb);
		for (group = RTA_DATA(mdb); RTA_OK(group, glen);
		     group = RTA_NEXT(group, glen)) {
			elen = RTA_PAYLOAD(group);
			entry = RTA_DATA(group);
			if (!RTA_OK(entry, elen))
				c->mdb_empty++;
			for (; RTA_OK(entry, elen);
			     entry = RTA_NEXT(entry, elen)) {
				if (RTA_PAYLOAD(entry) < sizeof(e))
					continue;
				memcpy(&e, RTA_DATA(entry), sizeof(e));
				if (e.ifindex == c->lower_index &&
				    e.addr.proto == htons(ETH_P_IP) &&
				    e.addr.u.ip4 == want.s_addr)
					c->mdb_ours++;
			}
		}
	}
	return true;
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
	       rtm->rtm_table == c->table && rtm->rtm_dst_len == dst_len &&
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
 * ROUTE6/ROUTE6_PREFIX) via lo, in the table c->table.
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
		.rtm.rtm_table = c->table,
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

/* ---- traffic control and policy routing --------------------------- */

/*
 * The request of @s (@add) or its removal, acknowledged. A rule sends
 * to the table RULE_TABLE the packets of mark RULE_MARK, at RULE_PRIO.
 */
static int tc_ask(struct net_ctx *c, const struct tc_spec *s, bool add)
{
	struct nl_req r = {
		.nh.nlmsg_type = add ? s->type : s->type + 1,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
				  (add ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.tcm.tcm_ifindex = c->lower_index,
		.tcm.tcm_parent = s->parent,
		.tcm.tcm_handle = s->handle,
		.tcm.tcm_info = tc_info(s),
	};
	unsigned int rule[] = { RULE_PRIO, RULE_TABLE, RULE_MARK };

	if (s->type == RTM_NEWRULE) {
		memset(&r.frh, 0, sizeof(r.frh));
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct fib_rule_hdr));
		r.frh.family = c->family;
		r.frh.action = FR_ACT_TO_TBL;
		nl_attr(&r, FRA_PRIORITY, &rule[0], sizeof(rule[0]));
		nl_attr(&r, FRA_TABLE, &rule[1], sizeof(rule[1]));
		nl_attr(&r, FRA_FWMARK, &rule[2], sizeof(rule[2]));
	} else if (s->type == RTM_NEWACTION) {
		memset(&r.tcm, 0, sizeof(r.tcm));
		r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcamsg));
		nl_act(&r, TCA_ACT_TAB, s->kind, add);
	} else {
		nl_attr(&r, TCA_KIND, s->kind, strlen(s->kind) + 1);
		if (add && s->options)
			s->options(&r);
	}
	return nl_ask(c, &r, NULL);
}

/*
 * Counts, in a qdisc, class or filter dump of the lower link, the objects
 * of the variant's type (c->tc_all) and those that are its object, with
 * its kind, parent, handle, priority and options; in a qdisc dump, all
 * qdiscs (c->tc_qdiscs) and the pfifo children of its handle's major;
 * whether the object has a rate estimator (c->tc_est).
 */
static bool is_our_tc(struct net_ctx *c, struct nlmsghdr *nh)
{
	const struct tc_spec *s = c->tc;
	struct tcmsg *t = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*t));
	struct rtattr *rta = (void *)((char *)t + NLMSG_ALIGN(sizeof(*t)));
	struct rtattr *kind = rta_find(rta, len, TCA_KIND);
	struct rtattr *stats = rta_find(rta, len, TCA_STATS2);
	char name[16] = "";

	if ((nh->nlmsg_type != RTM_NEWQDISC &&
	     nh->nlmsg_type != RTM_NEWTCLASS &&
	     nh->nlmsg_type != RTM_NEWTFILTER) ||
	    t->tcm_ifindex != c->lower_index)
		return false;
	if (kind)
		rta_string(name, sizeof(name), kind);
	if (nh->nlmsg_type == RTM_NEWQDISC) {
		c->tc_qdiscs++;
		if (!strcmp(name, "pfifo") && t->tcm_parent != TC_H_ROOT &&
		    TC_H_MAJ(t->tcm_parent) == TC_H_MAJ(s->handle))
			c->tc_children++;
	}
	if (nh->nlmsg_type != s->type)
		return false;
	c->tc_all++;
	if (strcmp(name, s->kind) || t->tcm_parent != s->parent ||
	    (s->handle && t->tcm_handle != s->handle) ||
	    (s->type == RTM_NEWTFILTER && t->tcm_info != tc_info(s)) ||
	    (s->opt && !rta_nested(rta_find(rta, len, TCA_OPTIONS), s->opt)) ||
	    (s->stab &&
	     !rta_nested(rta_find(rta, len, TCA_STAB), TCA_STAB_BASE)))
		return false;
	c->tc_est = rta_nested(stats, TCA_STATS_RATE_EST) ||
		    rta_nested(stats, TCA_STATS_RATE_EST64);
	return true;
}

/*
 * Counts, in an action dump (of c->tc's action kind), the actions of
 * index ACT_INDEX with the cookie ACT_COOKIE: their parameters
 * (TCA_GACT_PARMS and TCA_MIRRED_PARMS are both 2) start with tc_gen's
 * index.
 */
static bool is_our_act(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct tcamsg *t = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*t)), alen;
	struct rtattr *rta = (void *)((char *)t + NLMSG_ALIGN(sizeof(*t)));
	struct rtattr *tab = rta_find(rta, len, TCA_ACT_TAB), *act, *parms;
	struct rtattr *cookie;
	unsigned int index;

	if (nh->nlmsg_type != RTM_GETACTION || !tab)
		return false;
	alen = RTA_PAYLOAD(tab);
	for (act = RTA_DATA(tab); RTA_OK(act, alen);
	     act = RTA_NEXT(act, alen)) {
		parms = rta_nested(rta_nested(act, TCA_ACT_OPTIONS),
				   TCA_GACT_PARMS);
		cookie = rta_nested(act, TCA_ACT_COOKIE);
		if (!parms || RTA_PAYLOAD(parms) < sizeof(index) || !cookie ||
		    RTA_PAYLOAD(cookie) != sizeof(ACT_COOKIE) ||
		    memcmp(RTA_DATA(cookie), ACT_COOKIE, sizeof(ACT_COOKIE)))
			continue;
		memcpy(&index, RTA_DATA(parms), sizeof(index));
		if (index == ACT_INDEX)
			c->tc_acts++;
	}
	return true;
}

/* Counts the rules of the family (c->tc_all), and whether ours is one. */
static bool is_our_rule(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct fib_rule_hdr *f = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*f));
	struct rtattr *rta = (void *)((char *)f + NLMSG_ALIGN(sizeof(*f)));

	if (nh->nlmsg_type != RTM_NEWRULE || f->family != c->family)
		return false;
	c->tc_all++;
	return f->action == FR_ACT_TO_TBL &&
	       rta_int(rta_find(rta, len, FRA_PRIORITY)) == RULE_PRIO &&
	       rta_int(rta_find(rta, len, FRA_TABLE)) == RULE_TABLE &&
	       rta_int(rta_find(rta, len, FRA_FWMARK)) == RULE_MARK;
}

/*
 * Dumps what c->tc's variant looks at: its object (c->tc_ours), the
 * objects of its type, the lower link's qdiscs and children, its action.
 * Returns 0 or -errno.
 */
static int tc_count(struct net_ctx *c)
{
	const struct tc_spec *s = c->tc;
	int nr = 0;

	c->tc_ours = 0;
	c->tc_all = 0;
	c->tc_qdiscs = 0;
	c->tc_children = 0;
	c->tc_acts = 0;
	c->tc_est = false;
	if (s->type == RTM_NEWRULE) {
		nr = nl_dump(c, RTM_GETRULE, c->family, is_our_rule);
		c->tc_ours = nr;
		return nr < 0 ? nr : 0;
	}
	if (s->type != RTM_NEWACTION && s->type != RTM_NEWQDISC)
		nr = nl_dump(c, s->type + 2, AF_UNSPEC, is_our_tc);
	if (nr >= 0)
		c->tc_ours = nr;
	if (nr >= 0 && s->type != RTM_NEWACTION)
		nr = nl_dump(c, RTM_GETQDISC, AF_UNSPEC, is_our_tc);
	if (nr >= 0 && s->type == RTM_NEWQDISC)
		c->tc_ours = nr;
	if (nr >= 0 && s->act)
		nr = nl_dump(c, RTM_GETACTION, AF_UNSPEC, is_our_act);
	if (s->type == RTM_NEWACTION)
		c->tc_ours = c->tc_acts;
	return nr < 0 ? nr : 0;
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
		if (fd_readable(c->lst, 0)) {
			snprintf(why, size,
				 "a connection waits after the failure");
			return false;
		}
		return true;
	}
	if (!fd_readable(c->lst, ARRIVE_MS)) {
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
	if (!fd_readable(c->rcv, ARRIVE_MS)) {
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

/* A success lists the route in its table; a failure does not. */
static bool newroute_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;

	return listed(c, RTM_GETROUTE, is_our_route, ret < 0 ? 0 : 1,
		      c->family == AF_INET6 ? ROUTE6 : ROUTE, why, size);
}

/*
 * A new link: rtnl_newlink() allocates and registers a net_device, and
 * the stacks give it their per-device state (IPv4's and IPv6's, each with
 * its sysctl tables); then the kind's own (a veth's peer, a bridge's
 * hash tables, a vlan's group on its lower link, a macvlan's port on its
 * lower link), and, made up, dev_open()'s (the qdisc, the multicast
 * lists, addrconf's link-local address). A lost acknowledgment is
 * resolved by asking.
 */
static int newlink_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_newlink(c, c->link);

	if (!c->lost)
		return ret;
	return links_named(c, AF_UNSPEC, c->link->name) == 1 ? 0 : ret;
}

/* The per-device directories of procfs, named after the link. */
static const char *const name_dirs[] = {
	"/proc/sys/net/ipv4/conf", "/proc/sys/net/ipv4/neigh",
	"/proc/sys/net/ipv6/conf", "/proc/sys/net/ipv6/neigh",
	"/proc/net/dev_snmp6",
};

/*
 * Whether name_dirs hold @name (@want) or not; else which in @why. Those
 * of a protocol the kernel lacks (no IPv6) are not there at all.
 */
static bool name_dirs_are(const char *name, bool want, char *why, size_t size)
{
	char path[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(name_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", name_dirs[i], name);
		if (access(name_dirs[i], F_OK))
			continue;
		if (!access(path, F_OK) != want) {
			snprintf(why, size, "%s is %s", path,
				 want ? "missing" : "there");
			return false;
		}
	}
	return true;
}

/*
 * The test's namespace's /sys/class/net: sysfs shows the devices of the
 * network namespace that mounted it (fs/sysfs/mount.c:69, linux 6.12), so
 * the link variants mount one, in a mount namespace of their own, over
 * /tmp (which the test does not use).
 */
#define SYSFS "/tmp"
#define SYS_NET SYSFS "/class/net"

/*
 * Whether SYS_NET/@name/ holds @rel@other ("": the directory itself), as
 * @want says; else which in @why. A link's upper and lower links are
 * named there upper_NAME and lower_NAME (net/core/dev.c:
 * netdev_adjacent_sysfs_add(), linux 6.12).
 */
static bool sys_net_is(const char *name, const char *rel, const char *other,
		       bool want, char *why, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s/%s%s", SYS_NET, name, rel, other);
	if (!access(path, F_OK) == want)
		return true;
	snprintf(why, size, "%s is %s", path, want ? "missing" : "there");
	return false;
}

/*
 * Whether the dump's IFLA_INFO_DATA in @ls holds the attribute @type of
 * @l as @len bytes @val; else what it holds in @why.
 */
static bool data_has(const struct link_spec *l, const struct link_state *ls,
		     unsigned short type, const void *val, int len, char *why,
		     size_t size)
{
	struct rtattr *rta = rta_find((void *)ls->data, ls->data_len, type);

	if (rta && RTA_PAYLOAD(rta) == len && !memcmp(RTA_DATA(rta), val, len))
		return true;
	snprintf(why, size, "%s: IFLA_INFO_DATA's attribute %u is %s", l->name,
		 type, rta ? "another" : "missing");
	return false;
}

/*
 * Whether the lower link is as it was before the sweep (c->lower_ls):
 * listed, with no master, its flags, MTU and address; else what differs
 * in @why.
 */
static bool lower_as_before(struct net_ctx *c, char *why, size_t size)
{
	const struct link_state *was = &c->lower_ls, *ls = &c->ls;
	int nr = links_named(c, AF_UNSPEC, c->lower->name);
	bool addr = !memcmp(ls->addr, was->addr, sizeof(ls->addr));

	if (nr == 1 && !ls->master && ls->flags == was->flags &&
	    ls->mtu == was->mtu && addr)
		return true;
	snprintf(why, size,
		 "%s: %d listed, master %d, flags 0x%x, mtu %u%s; was 0x%x, %u",
		 c->lower->name, nr, ls->master, ls->flags, ls->mtu,
		 addr ? "" : ", another address", was->flags, was->mtu);
	return false;
}

/*
 * Whether the link @ls is what @l says: its kind, its lower link, up with
 * its qdisc attached (dev_activate(), net/sched/sch_generic.c:1308, linux
 * 6.12: a dummy's is noqueue, IFF_NO_QUEUE); else what differs in @why.
 */
static bool link_is(struct net_ctx *c, const struct link_spec *l,
		    const struct link_state *ls, char *why, size_t size)
{
	const struct link_attr *a;

	if (strcmp(ls->kind, l->kind)) {
		snprintf(why, size, "%s is of kind \"%s\", expected %s",
			 l->name, ls->kind, l->kind);
		return false;
	}
	for (a = l->data; a && a->type; a++)
		if (!data_has(l, ls, a->type, a->val, a->len, why, size))
			return false;
	if (l->lower_attr && !data_has(l, ls, l->lower_attr, &c->lower_index,
				       sizeof(c->lower_index), why, size))
		return false;
	if (l->on_lower && !l->lower_attr && ls->link != c->lower_index) {
		snprintf(why, size, "%s is on link %d, expected %s (%d)",
			 l->name, ls->link, c->lower->name, c->lower_index);
		return false;
	}
	if (l->up_qdisc &&
	    (!(ls->flags & IFF_UP) || strcmp(ls->qdisc, l->up_qdisc))) {
		snprintf(why, size,
			 "%s is %s with qdisc \"%s\", expected up, %s", l->name,
			 ls->flags & IFF_UP ? "up" : "down", ls->qdisc,
			 l->up_qdisc);
		return false;
	}
	return true;
}

/*
 * A success added the link as it was asked for (a veth: and its peer,
 * each the other's IFLA_LINK; the attributes of its kind), with its procfs
 * and sysfs directories (the lower link's upper_NAME), and no other; a
 * failure added none, and no directory, and left the lower link as it was.
 */
static bool newlink_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	const struct link_spec *l = c->link;
	int want = ret < 0 ? 0 : 1;
	int all = c->nr_links + (l->peer ? 2 : 1) * want;
	struct link_state ls, peer;

	if (!links_are(c, l->name, want, all, &ls, why, size) ||
	    (l->peer && !links_are(c, l->peer, want, all, &peer, why, size)) ||
	    !name_dirs_are(l->name, want, why, size) ||
	    (l->peer && !name_dirs_are(l->peer, want, why, size)) ||
	    !sys_net_is(l->name, "", "", want, why, size) ||
	    (l->peer && !sys_net_is(l->peer, "", "", want, why, size)) ||
	    (l->on_lower &&
	     !sys_net_is(c->lower->name, "upper_", l->name, want, why, size)))
		return false;
	if (!want)
		return !l->on_lower || lower_as_before(c, why, size);
	if (!link_is(c, l, &ls, why, size))
		return false;
	if (!l->peer || (!strcmp(peer.kind, l->kind) && ls.link == peer.index &&
			 peer.link == ls.index))
		return true;
	snprintf(why, size,
		 "%s (%d) has link %d, its peer %s (%d) of kind \"%s\" %d",
		 l->name, ls.index, ls.link, l->peer, peer.index, peer.kind,
		 peer.link);
	return false;
}

/* Removes the link a point added (an absent one is ENODEV). */
static void newlink_cleanup(struct __test_metadata *_metadata, void *arg,
			    int ret)
{
	struct net_ctx *c = arg;
	int err = nl_dellink(c, c->link->name);

	EXPECT_TRUE(!err || err == -ENODEV)
	{
		TH_LOG("removing %s: %s", c->link->name, strerror(-err));
	}
}

/* The name of the link made for each point: a tap's, or the variant's. */
static const char *made_name(struct net_ctx *c)
{
	return c->tun_flags ? TUN_NAME : c->link->name;
}

/*
 * The link made, down, before each point: the variant's (RTM_NEWLINK), or
 * a tap (TUNSETIFF, its fd in c->fd).
 */
static void madelink_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;
	struct ifreq ifr = { .ifr_flags = c->tun_flags };

	memcpy(ifr.ifr_name, TUN_NAME, sizeof(TUN_NAME));
	if (c->tun_flags) {
		c->fd = open(TUN_DEV, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, c->fd);
		ASSERT_EQ(0, ioctl(c->fd, TUNSETIFF, &ifr));
	} else {
		ASSERT_EQ(0, nl_newlink(c, c->link));
	}
	ASSERT_EQ(1, links_named(c, AF_UNSPEC, made_name(c)));
	c->link_index = c->ls.index;
}

/*
 * Brings the link up: dev_open() (net/core/dev.c:__dev_open()) attaches
 * its qdisc, joins its multicast groups, and the NETDEV_UP notifiers give
 * it IPv6's link-local address and IPv4's groups, in the caller's task.
 */
static int setlink_up_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_setlink_of(c, c->link_index, true, 0, 0);

	if (!c->lost)
		return ret;
	links_named(c, AF_UNSPEC, made_name(c));
	return c->ls.flags & IFF_UP ? 0 : ret;
}

/*
 * A success: the link is up, with its qdisc: a dummy's DUMMY_QDISC, a
 * tap's the default, pfifo_fast, or noqueue, where that could not be had
 * (attach_default_qdiscs() falls back, net/sched/sch_generic.c:1273,
 * linux 6.12); never noop, which drops every packet. A failure: it is
 * down. Either way it is the one link made for the point.
 */
static bool setlink_up_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	const char *name = made_name(c);
	bool up, want = ret >= 0, qdisc;
	struct link_state ls;

	if (!links_are(c, name, 1, c->nr_links + 1, &ls, why, size))
		return false;
	up = ls.flags & IFF_UP;
	qdisc = !strcmp(ls.qdisc, DUMMY_QDISC) ||
		(c->tun_flags && !strcmp(ls.qdisc, "pfifo_fast"));
	if (up == want && (!want || qdisc))
		return true;
	snprintf(why, size, "%s is %s with qdisc \"%s\" after the %s", name,
		 up ? "up" : "down", ls.qdisc, want ? "success" : "failure");
	return false;
}

static void tun_cleanup(struct __test_metadata *_metadata, void *arg, int ret);

/* Removes the link made for the point (a tap: closes its fd). */
static void madelink_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	struct net_ctx *c = arg;

	if (c->tun_flags)
		tun_cleanup(_metadata, arg, ret);
	else
		EXPECT_EQ(0, nl_dellink(c, c->link->name));
}

/*
 * The lower link joins the bridge: do_set_master() and br_add_if()
 * (net/bridge/br_if.c:571, linux 6.12): the port (new_nbp()), its kobject
 * and sysfs links, the rx handler, the upper link, the local address's
 * fdb entry, the port's vlan and multicast state.
 */
static int master_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_setlink_of(c, c->lower_index, false, IFLA_MASTER,
				c->master_index);

	if (!c->lost)
		return ret;
	links_named(c, AF_UNSPEC, c->lower->name);
	return c->ls.master == c->master_index ? 0 : ret;
}

/*
 * How many ports the master lists that are the lower link (0 or 1; -1:
 * others): a bridge's AF_BRIDGE dump (net/bridge/br_netlink.c:
 * br_getlink()), a bond's ports_file (bonding/slaves,
 * drivers/net/bonding/bond_sysfs.c:bonding_show_slaves(), linux 6.12);
 * another master's, its sysfs lower_NAME (want).
 */
static int ports_listed(struct net_ctx *c, int want)
{
	const struct link_spec *m = c->master;
	char path[128], buf[64];

	if (!strcmp(m->kind, "bridge"))
		return links_named(c, AF_BRIDGE, c->lower->name);
	if (!m->ports_file)
		return want;
	snprintf(path, sizeof(path), "%s/%s/%s", SYS_NET, m->name,
		 m->ports_file);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, c->lower->name) ? 1 : buf[0] ? -1 : 0;
}

/*
 * A success: the lower link's master is the master, and it is its port
 * (IFLA_INFO_SLAVE_KIND, its port data), as the master lists it (see
 * ports_listed()), each the other's lower and upper link in sysfs. A
 * failure: it has no master, the master no port, and the lower link its
 * flags, MTU and address as before. No link is added.
 */
static bool master_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int want = ret < 0 ? 0 : 1, ports;
	const char *lower = c->lower->name, *master = c->master->name;
	struct link_state ls;
	bool port, listed;

	if (!links_are(c, lower, 1, c->nr_links, &ls, why, size))
		return false;
	port = ls.master == c->master_index &&
	       !strcmp(ls.slave_kind, c->master->kind) && ls.slave_data;
	ports = ports_listed(c, want);
	listed = !want || c->ls.master == c->master_index;
	if (!sys_net_is(master, "lower_", lower, want, why, size) ||
	    !sys_net_is(lower, "upper_", master, want, why, size) ||
	    (!want && !lower_as_before(c, why, size)))
		return false;
	if (ls.master == (want ? c->master_index : 0) && port == want &&
	    ports == want && listed)
		return true;
	snprintf(why, size,
		 "%s: master %d, %sa port (\"%s\"%s), listed %d, expected %s",
		 lower, ls.master, port ? "" : "not ", ls.slave_kind,
		 ls.slave_data ? ", data" : "", ports,
		 want ? "its port" : "none");
	return false;
}

/* nomaster: the lower link leaves the bridge, if it joined. */
static void master_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	struct net_ctx *c = arg;

	EXPECT_EQ(0, nl_setlink_of(c, c->lower_index, false, IFLA_MASTER, 0));
}

/*
 * A tun or tap device: open() allocates the tun_file's socket and its
 * ptr_ring (drivers/net/tun.c:tun_chr_open()); TUNSETIFF, tun_set_iff(),
 * the net_device, registered (tun_net_init(): its flow table, tun_attach()
 * of the file, the ring resized). The fd stays open for the check.
 */
static int tun_action(void *arg)
{
	struct net_ctx *c = arg;
	struct ifreq ifr = { .ifr_flags = c->tun_flags };

	memcpy(ifr.ifr_name, TUN_NAME, sizeof(TUN_NAME));
	c->fd = open(TUN_DEV, O_RDWR | O_CLOEXEC);
	if (c->fd < 0 || ioctl(c->fd, TUNSETIFF, &ifr))
		return -errno;
	return 0;
}

/*
 * A success: the device is listed, a tun (ARPHRD_NONE) or a tap
 * (ARPHRD_ETHER) of kind tun, with its procfs directories, and the fd is
 * attached to it (TUNGETIFF). A failure: no link, no directory, and the
 * fd (if open) is attached to none: EBADFD
 * (tun.c:3177, linux 6.12).
 */
static bool tun_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int want = ret < 0 ? 0 : 1, got;
	unsigned short type = c->tun_flags & IFF_TAP ? ARPHRD_ETHER :
						       ARPHRD_NONE;
	struct ifreq ifr = {};
	struct link_state ls;

	if (!links_are(c, TUN_NAME, want, c->nr_links + want, &ls, why, size) ||
	    !name_dirs_are(TUN_NAME, want, why, size))
		return false;
	got = c->fd < 0 ? -EBADF : ioctl(c->fd, TUNGETIFF, &ifr) ? -errno : 0;
	if (!want && (c->fd < 0 || got == -EBADFD))
		return true;
	if (!want) {
		snprintf(why, size, "TUNGETIFF after the failure: %s",
			 got ? strerror(-got) : "attached");
		return false;
	}
	if (got || strcmp(ifr.ifr_name, TUN_NAME) ||
	    (ifr.ifr_flags & (IFF_TUN | IFF_TAP | IFF_NO_PI)) != c->tun_flags) {
		snprintf(why, size, "TUNGETIFF: %s, \"%s\", flags %#x",
			 got ? strerror(-got) : "attached", ifr.ifr_name,
			 ifr.ifr_flags);
		return false;
	}
	if (!strcmp(ls.kind, "tun") && ls.type == type)
		return true;
	snprintf(why, size,
		 "%s is of kind \"%s\" and type %u, expected tun, %u", TUN_NAME,
		 ls.kind, ls.type, type);
	return false;
}

/* Closing the fd removes the device (not persistent). */
static void tun_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;

	close_fd(&c->fd);
	EXPECT_EQ(0, links_named(c, AF_UNSPEC, TUN_NAME));
}

/*
 * The lower link is renamed: dev_change_name() (net/core/dev.c:1285,
 * linux 6.12): its device's kobject and sysfs links, then the
 * NETDEV_CHANGENAME notifiers, which register its sysctl tables (IPv4's,
 * IPv6's) and its /proc/net/dev_snmp6 entry again under the new name; a
 * failed notifier renames it back. A lost acknowledgment is resolved by
 * asking.
 */
static int rename_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_rename(c, c->lower_index, RENAMED);

	if (!c->lost)
		return ret;
	return links_named(c, AF_UNSPEC, RENAMED) == 1 ? 0 : ret;
}

/*
 * A success: the lower link is listed under the new name and not the old,
 * and its procfs directories follow. A failure: the old name, all of it.
 */
static bool rename_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	const char *name = ret < 0 ? c->lower->name : RENAMED;
	const char *other = ret < 0 ? RENAMED : c->lower->name;
	struct link_state ls, none;

	if (!links_are(c, name, 1, c->nr_links, &ls, why, size) ||
	    !links_are(c, other, 0, c->nr_links, &none, why, size))
		return false;
	if (ls.index != c->lower_index) {
		snprintf(why, size, "%s is link %d, expected %d", name,
			 ls.index, c->lower_index);
		return false;
	}
	return name_dirs_are(name, true, why, size) &&
	       name_dirs_are(other, false, why, size);
}

/* Gives the lower link its name back (a rename to its name is a no-op). */
static void rename_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	struct net_ctx *c = arg;

	EXPECT_EQ(0, nl_rename(c, c->lower_index, c->lower->name));
}

/*
 * An alternative name for the lower link: rtnl_newlinkprop() copies it
 * (nla_strdup()) and netdev_name_node_alt_create() adds its name node
 * (net/core/rtnetlink.c:4000, net/core/dev.c:336, linux 6.12).
 */
static int alt_name_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_alt_name(c, RTM_NEWLINKPROP, c->lower_index);

	if (!c->lost)
		return ret;
	links_named(c, AF_UNSPEC, c->lower->name);
	return c->ls.alt_name ? 0 : ret;
}

/*
 * A success: the lower link lists the name (IFLA_PROP_LIST), and a
 * request by it (IFLA_ALT_IFNAME) finds the link. A failure: neither.
 */
static bool alt_name_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	bool want = ret >= 0;
	struct link_state ls;
	struct nl_req r = {
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
	};
	int found;

	if (!links_are(c, c->lower->name, 1, c->nr_links, &ls, why, size))
		return false;
	/* The reply, then the acknowledgment: 0, or -errno. */
	nl_attr(&r, IFLA_ALT_IFNAME, ALT_NAME, sizeof(ALT_NAME));
	c->look = c->lower->name;
	memset(&c->ls, 0, sizeof(c->ls));
	found = nl_ask(c, &r, is_named);
	if (!found)
		found = c->ls.index == c->lower_index ? 1 : -ESRCH;
	if (ls.alt_name == want && (want ? found == 1 : found == -ENODEV))
		return true;
	snprintf(why, size, "%s %s %s, and a request by it found %s",
		 c->lower->name, ls.alt_name ? "lists" : "does not list",
		 ALT_NAME, found == 1 ? "it" : strerror(-found));
	return false;
}

/* Removes the name, if it was added (an absent one is ENOENT). */
static void alt_name_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	struct net_ctx *c = arg;
	int err = nl_alt_name(c, RTM_DELLINKPROP, c->lower_index);

	EXPECT_TRUE(!err || err == -ENOENT)
	{
		TH_LOG("removing %s: %s", ALT_NAME, strerror(-err));
	}
}

/* The bridge up, and the lower link its port, up. */
static void mdb_bridge_up(struct __test_metadata *_metadata, struct net_ctx *c)
{
	ASSERT_EQ(0, nl_setlink_of(c, c->lower_index, false, IFLA_MASTER,
				   c->master_index));
	ASSERT_EQ(0, nl_setlink_of(c, c->lower_index, true, 0, 0));
	ASSERT_EQ(0, nl_setlink_of(c, c->master_index, true, 0, 0));
}

/*
 * The mdb variant's bridge and port, up, and its entry added and removed
 * once: a bridge without multicast snooping has no mdb, EOPNOTSUPP
 * (net/bridge/br_private.h:1422, linux 6.12).
 */
static void mdb_setup(struct __test_metadata *_metadata, struct net_ctx *c)
{
	int err;

	mdb_bridge_up(_metadata, c);
	err = nl_mdb(c, RTM_NEWMDB);
	if (err == -EOPNOTSUPP)
		SKIP(return, "no mdb: needs CONFIG_BRIDGE_IGMP_SNOOPING");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, nl_mdb(c, RTM_DELMDB));
}

/*
 * Counts the mdb's entries (is_our_mdb()): 0, or -errno. A group whose
 * last port group was removed goes on the group's timer, due at once
 * (net/bridge/br_multicast.c:838, linux 6.12): an empty group is counted
 * only if it outlives MDB_SETTLE_MS.
 */
static int mdb_count(struct net_ctx *c)
{
	int nr, ms;

	for (ms = 0;; ms += 10) {
		c->mdb_ours = 0;
		c->mdb_empty = 0;
		nr = nl_dump(c, RTM_GETMDB, AF_BRIDGE, is_our_mdb);
		if (nr < 0 || !c->mdb_empty || ms >= MDB_SETTLE_MS)
			break;
		usleep(10 * 1000);
	}
	return nr < 0 ? nr : 0;
}

/*
 * A permanent mdb entry of the bridge, for its port: br_mdb_add()
 * (net/bridge/br_mdb.c:1022, linux 6.12) adds the group
 * (br_multicast_new_group(), in the bridge's hash table) and the port's
 * group (br_multicast_new_port_group(), in the port groups' table). A lost
 * acknowledgment is resolved by asking.
 */
static int mdb_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_mdb(c, RTM_NEWMDB);

	if (!c->lost)
		return ret;
	return !mdb_count(c) && c->mdb_ours == 1 ? 0 : ret;
}

/*
 * A success: the bridge lists the port's group. A failure: it does not,
 * and no group is left without an entry (one would take the group's
 * traffic out of the flood to every port: net/bridge/br_device.c:
 * br_dev_xmit(), br_multicast_flood()).
 */
static bool mdb_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int want = ret < 0 ? 0 : 1, err = mdb_count(c);

	if (!err && c->mdb_ours == want && !c->mdb_empty)
		return true;
	snprintf(why, size,
		 "mdb: %d of %s on %s, %d empty groups, expected %d%s%s",
		 c->mdb_ours, MCAST4, c->lower->name, c->mdb_empty, want,
		 err ? ": " : "", err ? strerror(-err) : "");
	return false;
}

/*
 * Removes the entry a point added. A group left behind is removed with
 * its bridge, made anew, so that the next point starts equal.
 */
static void mdb_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;

	if (ret >= 0)
		EXPECT_EQ(0, nl_mdb(c, RTM_DELMDB));
	ASSERT_EQ(0, mdb_count(c));
	if (!c->mdb_ours && !c->mdb_empty)
		return;
	ASSERT_EQ(0, nl_dellink(c, c->master->name));
	c->master_index = link_make(c, c->master);
	ASSERT_LT(0, c->master_index);
	mdb_bridge_up(_metadata, c);
}

/* The count of packets TUN_NAME received, before the point. */
static void tun_write_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	ASSERT_EQ(1, links_named(c, AF_UNSPEC, TUN_NAME));
	c->rx0 = c->ls.rx_packets;
}

/*
 * A packet written to the device: tun_get_user() (drivers/net/tun.c:1757,
 * linux 6.12) allocates its skb (a tap's built on a page fragment,
 * tun_build_skb()) and hands it to the stack in the writer's task
 * (tun_rx_batched(): IPv4's input route, UDP's delivery).
 */
static int tun_write_action(void *arg)
{
	struct net_ctx *c = arg;
	ssize_t len = write(c->tun, c->pkt, c->pkt_len);

	return len < 0 ? -errno : len;
}

/*
 * A success: the device counted the packet received. The stack may still
 * drop it (an allocation of its input path failed: a packet lost, as on a
 * wire), so the datagram arrives at most once, whole. A failure: the
 * device received nothing, and no datagram arrives.
 */
static bool tun_write_check(void *arg, int ret, char *why, size_t size)
{
	static char got[TUN_DATA + 1];
	struct net_ctx *c = arg;
	int want = ret < 0 ? 0 : 1;
	ssize_t len;

	if (links_named(c, AF_UNSPEC, TUN_NAME) != 1 ||
	    c->ls.rx_packets != c->rx0 + want) {
		snprintf(why, size, "%s received %llu packets, expected %llu",
			 TUN_NAME, c->ls.rx_packets - c->rx0,
			 (unsigned long long)want);
		return false;
	}
	len = recv(c->tun_rcv, got, sizeof(got), MSG_DONTWAIT);
	if (len < 0 && errno == EAGAIN)
		return true;
	if (!want) {
		snprintf(why, size, "a datagram (%zd) after the failed write",
			 len);
		return false;
	}
	if (len != TUN_DATA ||
	    memcmp(got, c->pkt + c->pkt_len - TUN_DATA, TUN_DATA)) {
		snprintf(why, size, "the datagram: %zd bytes (%s), sent %d",
			 len, len < 0 ? strerror(errno) : "read", TUN_DATA);
		return false;
	}
	return nothing_more(c->tun_rcv, "after the datagram", why, size);
}

/*
 * The device's transmit queue grows: dev_change_tx_queue_len()
 * (net/core/dev.c:9202, linux 6.12), whose NETDEV_CHANGE_TX_QUEUE_LEN
 * notifier resizes the tun's rings (tun_queue_resize()), then its qdisc's
 * (pfifo_fast's bands, an up device's); a failure of either puts the old
 * length back.
 */
static int txqlen_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_setlink_of(c, c->link_index, false, IFLA_TXQLEN,
				2 * c->txqlen);

	if (!c->lost)
		return ret;
	links_named(c, AF_UNSPEC, TUN_NAME);
	return c->ls.txqlen == 2 * c->txqlen ? 0 : ret;
}

/*
 * A success: the device has the new length, a failure the old; it is up
 * with its qdisc either way.
 */
static bool txqlen_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	unsigned int want = ret < 0 ? c->txqlen : 2 * c->txqlen;

	if (links_named(c, AF_UNSPEC, TUN_NAME) == 1 && c->ls.txqlen == want &&
	    c->ls.flags & IFF_UP && !strcmp(c->ls.qdisc, c->qdisc))
		return true;
	snprintf(why, size,
		 "%s has tx_queue_len %u and qdisc \"%s\", expected %u, \"%s\"",
		 TUN_NAME, c->ls.txqlen, c->ls.qdisc, want, c->qdisc);
	return false;
}

/* Gives the device its length back. */
static void txqlen_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	struct net_ctx *c = arg;

	EXPECT_EQ(0, nl_setlink_of(c, c->link_index, false, IFLA_TXQLEN,
				   c->txqlen));
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
	if (!fd_readable(c->rcv, ARRIVE_MS))
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

/*
 * Removes what a success added (with it, its children and action). A
 * filter's action goes with the filter after an RCU grace period, in a
 * work item (net/sched/cls_matchall.c:mall_destroy(), tcf_queue_work()):
 * waits, up to ACT_SETTLE_MS, for it to go, so that the next point
 * starts equal.
 */
static void tc_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;
	int ms;

	if (ret >= 0)
		EXPECT_EQ(0, tc_ask(c, c->tc, false));
	if (!c->tc->act || c->tc->type == RTM_NEWACTION)
		return;
	for (ms = 0; !tc_count(c) && c->tc_acts && ms < ACT_SETTLE_MS; ms += 10)
		usleep(10 * 1000);
	EXPECT_EQ(0, c->tc_acts)
	{
		TH_LOG("the %s action outlived its filter by %d ms", c->tc->act,
		       ms);
	}
}

/*
 * The lower link's qdisc (IFLA_QDISC), and what the dumps list, before
 * the sweep; c->tc's variant adds its base qdisc first, and its object
 * once (then removes it), or skips for a kind or family the kernel lacks:
 * ENOENT (a qdisc's, net/sched/sch_api.c:1310; a filter's,
 * net/sched/cls_api.c:tcf_proto_lookup_ops(); an action's,
 * net/sched/act_api.c:tc_action_load_ops()) or EAFNOSUPPORT (a rule's,
 * net/core/fib_rules.c:798, linux 6.12).
 */
static void tc_setup(struct __test_metadata *_metadata, struct net_ctx *c)
{
	const struct tc_spec *const need[] = { c->tc->base, c->tc };
	char msg[128];
	int i, err;

	for (i = 0; i < ARRAY_SIZE(need); i++) {
		if (!need[i])
			continue;
		err = tc_ask(c, need[i], true);
		if (err == -ENOENT || err == -EOPNOTSUPP ||
		    err == -EAFNOSUPPORT) {
			snprintf(msg, sizeof(msg), "no %s: %s: needs %s",
				 need[i]->kind, strerror(-err),
				 need[i]->config);
			SKIP(return, "%s", msg);
		}
		ASSERT_EQ(0, err);
	}
	tc_cleanup(_metadata, c, 0);
	if (c->lower_index) {
		ASSERT_EQ(1, links_named(c, AF_UNSPEC, c->lower->name));
		memcpy(c->qdisc, c->ls.qdisc, sizeof(c->qdisc));
	}
	ASSERT_EQ(0, tc_count(c));
	ASSERT_EQ(0, c->tc_ours);
	c->tc_all0 = c->tc_all;
	c->tc_qdiscs0 = c->tc_qdiscs;
}

/*
 * The request: a qdisc (net/sched/sch_api.c:qdisc_create(): the Qdisc,
 * the kind's init: htb's class hash and tcf_block, prio's bands' pfifo
 * qdiscs), an htb class (net/sched/sch_htb.c:htb_change_class(): the
 * class, its tcf_block, its rate estimator, its leaf pfifo), a filter
 * (net/sched/cls_api.c:tc_new_tfilter(): the chain, the tcf_proto and the
 * kind's init and change: u32's hash node and key node, basic's and
 * matchall's filter and their tcf_exts with the action's idr entry), an
 * action (net/sched/act_api.c:tcf_action_init_1(): its idr entry,
 * tcf_idr_create()) or a rule (net/core/fib_rules.c:fib_nl_newrule()). A
 * lost acknowledgment is resolved by asking.
 */
static int tc_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = tc_ask(c, c->tc, true);

	if (!c->lost)
		return ret;
	return !tc_count(c) && c->tc_ours == 1 ? 0 : ret;
}

/*
 * A success: the object is listed as it was asked for (kind, parent,
 * handle, options), with its children (a prio's bands, an htb class's
 * leaf), its rate estimator and its action; a new root qdisc is the
 * link's. A failure: no object, no child, no action, no other object of
 * its type (a half-made u32 hash node, say), and the link's qdisc as it
 * was.
 */
static bool tc_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	const struct tc_spec *s = c->tc;
	int want = ret < 0 ? 0 : 1, err = tc_count(c);
	int qdiscs = c->tc_qdiscs0 +
		     want * ((s->type == RTM_NEWQDISC) + s->children);
	const char *qdisc = want ? s->kind : c->qdisc;
	bool root = s->type == RTM_NEWQDISC && s->parent == TC_H_ROOT;

	if (err) {
		snprintf(why, size, "dumping %s: %s", s->kind, strerror(-err));
		return false;
	}
	if (c->tc_ours != want || (!want && c->tc_all != c->tc_all0) ||
	    (s->type == RTM_NEWRULE && c->tc_all != c->tc_all0 + want)) {
		snprintf(why, size, "%s: %d listed of %d, expected %d of %s%d",
			 s->kind, c->tc_ours, c->tc_all, want,
			 want && s->type != RTM_NEWRULE ? "" : "exactly ",
			 c->tc_all0 + want);
		return false;
	}
	if (s->type != RTM_NEWRULE && s->type != RTM_NEWACTION &&
	    (c->tc_qdiscs != qdiscs || c->tc_children != want * s->children)) {
		snprintf(why, size,
			 "%s: %d qdiscs, %d its pfifos, expected %d, %d",
			 s->kind, c->tc_qdiscs, c->tc_children, qdiscs,
			 want * s->children);
		return false;
	}
	if (s->est && c->tc_est != want) {
		snprintf(why, size, "%s %s a rate estimator", s->kind,
			 c->tc_est ? "has" : "lacks");
		return false;
	}
	if (s->act && s->type != RTM_NEWACTION && c->tc_acts != want) {
		snprintf(why, size, "%d %s actions of index %d, expected %d",
			 c->tc_acts, s->act, ACT_INDEX, want);
		return false;
	}
	if (!root)
		return true;
	if (links_named(c, AF_UNSPEC, c->lower->name) == 1 &&
	    !strcmp(c->ls.qdisc, qdisc))
		return true;
	snprintf(why, size, "%s has qdisc \"%s\", expected %s", c->lower->name,
		 c->ls.qdisc, qdisc);
	return false;
}

/* ---- neighbours, namespace ids, a link moved, sock_diag ----------- */

/*
 * A neighbour entry of a variant, on the lower link (up): a permanent
 * one with neigh_lladdr, or a proxy one (NTF_PROXY, no address).
 */
struct neigh_spec {
	int family;
	const char *dst;
	bool proxy;
	/*
	 * A vxlan's fdb entry (AF_BRIDGE, NTF_SELF) of neigh_lladdr, to the
	 * remote @dst of @family.
	 */
	bool fdb;
};

/* The ndm_family of @n's requests and of its dump. */
static int neigh_family(const struct neigh_spec *n)
{
	return n->fdb ? AF_BRIDGE : n->family;
}

static const unsigned char neigh_lladdr[6] = { 0x02, 0, 0, 0, 0x77, 0x01 };

/* An RTM_NEWNEIGH (permanent, exclusive) or RTM_DELNEIGH of c->neigh. */
static int nl_neigh(struct net_ctx *c, int type)
{
	const struct neigh_spec *n = c->neigh;
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags =
			NLM_F_REQUEST | NLM_F_ACK |
			(type == RTM_NEWNEIGH ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
		.ndm.ndm_family = neigh_family(n),
		.ndm.ndm_ifindex = c->lower_index,
		.ndm.ndm_state = NUD_PERMANENT,
		.ndm.ndm_flags = n->proxy ? NTF_PROXY : 0,
	};
	struct in6_addr a;

	if (n->fdb)
		r.ndm.ndm_flags = NTF_SELF;

	inet_pton(n->family, n->dst, &a);
	nl_attr(&r, NDA_DST, &a,
		n->family == AF_INET6 ? sizeof(a) : sizeof(struct in_addr));
	/* An fdb entry is deleted by its address (rtnl_fdb_del()). */
	if (!n->proxy && (type == RTM_NEWNEIGH || n->fdb))
		nl_attr(&r, NDA_LLADDR, neigh_lladdr, sizeof(neigh_lladdr));
	return nl_ask(c, &r, NULL);
}

/*
 * Whether @nh is c->neigh's entry on the lower link; if so, its state,
 * flags and whether it has neigh_lladdr, in c->nd_*.
 */
static bool is_our_neigh(struct net_ctx *c, struct nlmsghdr *nh)
{
	const struct neigh_spec *n = c->neigh;
	struct ndmsg *ndm = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ndm));
	struct rtattr *rta = (void *)((char *)ndm + NLMSG_ALIGN(sizeof(*ndm)));
	struct rtattr *ll = rta_find(rta, len, NDA_LLADDR);
	struct in6_addr want;

	inet_pton(n->family, n->dst, &want);
	if (nh->nlmsg_type != RTM_NEWNEIGH ||
	    ndm->ndm_family != neigh_family(n) ||
	    ndm->ndm_ifindex != c->lower_index ||
	    !has_addr(nh, sizeof(*ndm), NDA_DST, n->family, &want))
		return false;
	c->nd_state = ndm->ndm_state;
	c->nd_flags = ndm->ndm_flags;
	c->nd_lladdr =
		ll && RTA_PAYLOAD(ll) == sizeof(neigh_lladdr) &&
		!memcmp(RTA_DATA(ll), neigh_lladdr, sizeof(neigh_lladdr));
	return true;
}

/*
 * How many entries an RTM_GETNEIGH dump of c->neigh's family lists that
 * are c->neigh (0 or 1), or -errno. A proxy entry is listed only by a
 * dump that asks for them (NTF_PROXY: net/core/neighbour.c:2886, linux
 * 6.12).
 */
static int neigh_count(struct net_ctx *c)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_GETNEIGH,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
		.ndm.ndm_family = neigh_family(c->neigh),
		.ndm.ndm_flags = c->neigh->proxy ? NTF_PROXY : 0,
	};

	c->nd_state = 0;
	c->nd_flags = 0;
	c->nd_lladdr = false;
	return nl_ask(c, &r, is_our_neigh);
}

#define NEIGH_FMT \
	"neighbour %s: %d in the dump%s%s, state 0x%x, flags 0x%x, %s, expected %s"

/*
 * Whether c->neigh is there (@want), as it was made: permanent, with its
 * link-layer address (a proxy entry: flagged NTF_PROXY); else why not.
 */
static bool neigh_is(struct net_ctx *c, bool want, char *why, size_t size)
{
	int nr = neigh_count(c);
	bool whole = c->neigh->proxy ?
			     (c->nd_flags & NTF_PROXY) :
			     c->nd_state == NUD_PERMANENT && c->nd_lladdr;

	if (nr == want && (!want || whole))
		return true;
	snprintf(why, size, NEIGH_FMT, c->neigh->dst, nr < 0 ? 0 : nr,
		 nr < 0 ? ": " : "", nr < 0 ? strerror(-nr) : "", c->nd_state,
		 c->nd_flags, c->nd_lladdr ? "its lladdr" : "no lladdr",
		 want ? "it, whole" : "none");
	return false;
}

/*
 * A new entry: neigh_add() (net/core/neighbour.c:1972, linux 6.12) makes
 * it with ___neigh_create(), whose protocol constructor (arp's, ndisc's)
 * gives it its header ops, and may grow the hash table; a proxy entry is
 * pneigh_lookup()'s, with ndisc's pconstructor joining the solicited-node
 * group. A lost acknowledgment is resolved by asking.
 */
static int neigh_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_neigh(c, RTM_NEWNEIGH);

	if (!c->lost)
		return ret;
	return neigh_count(c) == 1 ? 0 : ret;
}

/* A success lists the entry, whole; a failure does not. */
static bool neigh_check(void *arg, int ret, char *why, size_t size)
{
	return neigh_is(arg, ret >= 0, why, size);
}

/* Removes the entry (an absent one is ENOENT). */
static void neigh_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;
	int err = nl_neigh(c, RTM_DELNEIGH);

	EXPECT_TRUE(!err || err == -ENOENT)
	{
		TH_LOG("removing neighbour %s: %s", c->neigh->dst,
		       strerror(-err));
	}
}

/*
 * After cleanup: no entry is left (a proxy entry asked for again is no
 * EEXIST, net/core/neighbour.c:2046, linux 6.12: one left behind would
 * pass unseen).
 */
static bool neigh_settled(void *arg, char *why, size_t size)
{
	return neigh_is(arg, false, why, size);
}

/*
 * Runs @fn on c with its netlink socket the one of the peer namespace
 * (c->peer_nl).
 */
static int in_peer(struct net_ctx *c, int (*fn)(struct net_ctx *c))
{
	int self = c->nl, ret;

	c->nl = c->peer_nl;
	ret = fn(c);
	c->nl = self;
	return ret;
}

/*
 * A new network namespace, the peer, its fd in c->peer_ns, and (@nl) a
 * netlink socket in it; the task goes back to its own namespace
 * (c->self_ns). Returns 0 or -errno.
 */
static int peer_make(struct net_ctx *c, bool nl)
{
	int err = 0;

	if (unshare(CLONE_NEWNET))
		return -errno;
	c->peer_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (c->peer_ns < 0)
		err = -errno;
	if (!err && nl) {
		c->peer_nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				    NETLINK_ROUTE);
		if (c->peer_nl < 0)
			err = -errno;
	}
	if (setns(c->self_ns, CLONE_NEWNET) && !err)
		err = -errno;
	return err;
}

/* An RTM_NEWNSID of NSID for the peer namespace, acknowledged. */
static int nl_newnsid(struct net_ctx *c)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_NEWNSID,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtgenmsg)),
		.rtg.rtgen_family = AF_UNSPEC,
	};
	unsigned int fd = c->peer_ns;
	int nsid = c->nsid_want;

	nl_attr(&r, NETNSA_FD, &fd, sizeof(fd));
	nl_attr(&r, NETNSA_NSID, &nsid, sizeof(nsid));
	return nl_ask(c, &r, NULL);
}

/* Keeps the NETNSA_NSID of an RTM_GETNSID's reply in c->nsid. */
static bool nsid_reply(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct rtgenmsg *g = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*g));
	struct rtattr *rta = (void *)((char *)g + NLMSG_ALIGN(sizeof(*g)));
	struct rtattr *id = rta_find(rta, len, NETNSA_NSID);

	if (nh->nlmsg_type != RTM_NEWNSID || !id)
		return false;
	c->nsid = rta_int(id);
	return true;
}

/*
 * The peer namespace's id here, as RTM_GETNSID says it
 * (NETNSA_NSID_NOT_ASSIGNED: none), in c->nsid; returns 0 or -errno.
 */
static int nsid_get(struct net_ctx *c)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_GETNSID,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtgenmsg)),
		.rtg.rtgen_family = AF_UNSPEC,
	};
	unsigned int fd = c->peer_ns;

	c->nsid = INT_MIN;
	nl_attr(&r, NETNSA_FD, &fd, sizeof(fd));
	return nl_ask(c, &r, nsid_reply);
}

/*
 * A peer namespace of its own for each point: an id, once given, stays
 * as long as both namespaces live (there is no RTM_DELNSID); and an id of
 * its own, since a closed peer gives its id back only once its cleanup
 * work has run (net/core/net_namespace.c:cleanup_net()).
 */
static void nsid_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	c->nsid_want = NSID + c->seq % NSID_SPAN;
	ASSERT_EQ(0, peer_make(c, false));
}

/*
 * rtnl_net_newid() (net/core/net_namespace.c:821, linux 6.12): the id's
 * slot in the namespace's idr (alloc_netid(), line 285), then the
 * notification. A lost acknowledgment is resolved by asking.
 */
static int nsid_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_newnsid(c);

	if (!c->lost)
		return ret;
	return !nsid_get(c) && c->nsid == c->nsid_want ? 0 : ret;
}

/* A success: RTM_GETNSID finds the id asked for. A failure: no id. */
static bool nsid_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int want = ret < 0 ? NETNSA_NSID_NOT_ASSIGNED : c->nsid_want;
	int err = nsid_get(c);

	if (!err && c->nsid == want)
		return true;
	snprintf(why, size, "the peer's nsid is %d%s%s, expected %d", c->nsid,
		 err ? ": RTM_GETNSID: " : "", err ? strerror(-err) : "", want);
	return false;
}

/* The peer goes (with it, in a work item, its id here). */
static void nsid_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;

	close_fd(&c->peer_ns);
}

/* The link the netns variant moves, made before each point. */
static const struct link_spec move_link = {
	.kind = "dummy",
	.name = "failnth_mv",
	.config = "CONFIG_DUMMY",
};

/* An RTM_NEWADDR or RTM_DELADDR of ADDR/ADDR_PREFIX on link @index. */
static int nl_addr_on(struct net_ctx *c, int type, int index)
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
		.ifa.ifa_family = AF_INET,
		.ifa.ifa_prefixlen = ADDR_PREFIX,
		.ifa.ifa_index = index,
	};
	struct in_addr a;

	inet_pton(AF_INET, ADDR, &a);
	nl_attr(&r, IFA_LOCAL, &a, sizeof(a));
	nl_attr(&r, IFA_ADDRESS, &a, sizeof(a));
	return nl_ask(c, &r, NULL);
}

/* Counts the IPv4 addresses of link c->link_index in a dump. */
static bool is_moved_addr(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct ifaddrmsg *ifa = NLMSG_DATA(nh);

	return nh->nlmsg_type == RTM_NEWADDR &&
	       ifa->ifa_index == (unsigned int)c->link_index;
}

static int moved_addrs(struct net_ctx *c)
{
	return nl_dump(c, RTM_GETADDR, AF_INET, is_moved_addr);
}

static int moved_named(struct net_ctx *c)
{
	return links_named(c, AF_UNSPEC, move_link.name);
}

static int all_links(struct net_ctx *c)
{
	return nl_dump(c, RTM_GETLINK, AF_UNSPEC, any_link);
}

/*
 * A peer namespace of its own for each point (with a netlink socket in
 * it, and its links counted), so that what one point leaves there cannot
 * change the next; the link to move: made here, with ADDR, up, its index
 * in c->link_index.
 */
static void netns_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct net_ctx *c = arg;

	ASSERT_EQ(0, peer_make(c, true));
	c->peer_links = in_peer(c, all_links);
	ASSERT_LE(1, c->peer_links);

	ASSERT_EQ(0, nl_newlink(c, &move_link));
	ASSERT_EQ(1, moved_named(c));
	c->link_index = c->ls.index;
	ASSERT_EQ(0, nl_addr_on(c, RTM_NEWADDR, c->link_index));
	ASSERT_EQ(0, nl_setlink_of(c, c->link_index, true, 0, 0));
}

/* An RTM_SETLINK of link c->link_index's IFLA_NET_NS_FD, the peer. */
static int nl_setns(struct net_ctx *c)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_SETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.ifi.ifi_index = c->link_index,
	};
	unsigned int fd = c->peer_ns;

	nl_attr(&r, IFLA_NET_NS_FD, &fd, sizeof(fd));
	return nl_ask(c, &r, NULL);
}

/*
 * The link moves to the peer namespace: __dev_change_net_namespace()
 * (net/core/dev.c:11749, linux 6.12) reserves its ifindex there (line
 * 11825), closes it, lets the NETDEV_UNREGISTER notifiers drop its
 * addresses and per-protocol state, renames its kobject, and the
 * NETDEV_REGISTER notifiers give it new state there. A lost
 * acknowledgment is resolved by asking the peer.
 */
static int netns_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_setns(c);

	if (!c->lost)
		return ret;
	return in_peer(c, moved_named) == 1 ? 0 : ret;
}

/* Whether name_dirs hold the moved link's name (@want) in the peer. */
static bool peer_dirs_are(struct net_ctx *c, bool want, char *why, size_t size)
{
	bool ok;

	/* /proc/sys/net is the one of the namespace that looks. */
	if (setns(c->peer_ns, CLONE_NEWNET)) {
		snprintf(why, size, "setns to the peer: %s", strerror(errno));
		return false;
	}
	ok = name_dirs_are(move_link.name, want, why, size);
	if (setns(c->self_ns, CLONE_NEWNET)) {
		snprintf(why, size, "setns back: %s", strerror(errno));
		return false;
	}
	return ok;
}

#define PEER_FMT \
	"the peer: %d links named %s (link %d, %s, %d addresses), %d links, expected %s"

/*
 * A success: the link is gone from here, with its procfs directories; in
 * the peer it is listed under its name, with its ifindex (free there:
 * the peer has lo and sit0 only), down (dev_close()) and without the
 * address (inetdev_destroy() on NETDEV_UNREGISTER), and has its procfs
 * directories there. A failure: it is here, up, with its address and
 * directories, and nothing of it is in the peer.
 */
static bool netns_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	bool moved = ret >= 0;
	int here = moved_named(c), there, addrs, nr, peer_nr;
	struct link_state ls = c->ls;

	if (here != !moved) {
		snprintf(why, size, "%d links named %s here after the %s", here,
			 move_link.name, moved ? "success" : "failure");
		return false;
	}
	if (!moved && (ls.index != c->link_index || !(ls.flags & IFF_UP))) {
		snprintf(why, size, "%s is link %d, %s, expected %d, up",
			 move_link.name, ls.index,
			 ls.flags & IFF_UP ? "up" : "down", c->link_index);
		return false;
	}
	addrs = moved_addrs(c);
	if (addrs != !moved) {
		snprintf(why, size, "%d addresses of link %d here, expected %d",
			 addrs, c->link_index, !moved);
		return false;
	}
	nr = all_links(c);
	if (nr != c->nr_links + !moved) {
		snprintf(why, size, "%d links here, expected %d", nr,
			 c->nr_links + !moved);
		return false;
	}
	if (!name_dirs_are(move_link.name, !moved, why, size))
		return false;
	there = in_peer(c, moved_named);
	ls = c->ls;
	addrs = in_peer(c, moved_addrs);
	peer_nr = in_peer(c, all_links);
	if (there != moved || peer_nr != c->peer_links + moved ||
	    (moved &&
	     (ls.index != c->link_index || (ls.flags & IFF_UP) || addrs))) {
		snprintf(why, size, PEER_FMT, there, move_link.name, ls.index,
			 ls.flags & IFF_UP ? "up" : "down", addrs, peer_nr,
			 moved ? "it, down, no address" : "none");
		return false;
	}
	return peer_dirs_are(c, moved, why, size);
}

/*
 * Removes the link, here or in the peer (where it is not: ENODEV), then
 * the peer.
 */
static void netns_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;
	int self = c->nl, here, there;

	here = nl_dellink(c, move_link.name);
	c->nl = c->peer_nl;
	there = nl_dellink(c, move_link.name);
	c->nl = self;
	EXPECT_TRUE((!here && there == -ENODEV) || (here == -ENODEV && !there))
	{
		TH_LOG("removing %s: here %s, in the peer %s", move_link.name,
		       strerror(-here), strerror(-there));
	}
	close_fd(&c->peer_nl);
	close_fd(&c->peer_ns);
}

/*
 * Counts, in a sock_diag dump, the test's three TCP sockets (the
 * listener, the client and the end accepted), each with its ports, its
 * state, and its INET_DIAG_INFO, a tcp_info of that state; c->diag_seen
 * has a bit for each one found whole.
 */
static bool is_our_sock(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct inet_diag_msg *m = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	struct rtattr *info =
		rta_find((void *)((char *)m + NLMSG_ALIGN(sizeof(*m))), len,
			 INET_DIAG_INFO);
	unsigned short lport = ((struct sockaddr_in *)&c->lst_addr)->sin_port;
	unsigned short sport = m->id.idiag_sport, dport = m->id.idiag_dport;
	int bit = 0;

	if (nh->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return false;
	if (sport == lport && !dport && m->idiag_state == TCP_LISTEN)
		bit = 1;
	else if (sport == c->diag_port && dport == lport &&
		 m->idiag_state == TCP_ESTABLISHED)
		bit = 2;
	else if (sport == lport && dport == c->diag_port &&
		 m->idiag_state == TCP_ESTABLISHED)
		bit = 4;
	if (!bit)
		return false;
	/* tcp_info's first member, tcpi_state, is the socket's state. */
	if (info && RTA_PAYLOAD(info) >= 8 &&
	    *(unsigned char *)RTA_DATA(info) == m->idiag_state)
		c->diag_seen |= bit;
	return true;
}

/*
 * A SOCK_DIAG_BY_FAMILY dump of the listening and established TCP
 * sockets of the family, with INET_DIAG_INFO: how many of the test's it
 * lists, or -errno.
 */
static int diag_dump(struct net_ctx *c)
{
	struct nl_req r = {
		.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct inet_diag_req_v2)),
		.idr.sdiag_family = c->family,
		.idr.sdiag_protocol = IPPROTO_TCP,
		.idr.idiag_ext = 1 << (INET_DIAG_INFO - 1),
		.idr.idiag_states = 1 << TCP_LISTEN | 1 << TCP_ESTABLISHED,
	};
	int self = c->nl, ret;

	c->diag_seen = 0;
	c->nl = c->diag;
	ret = nl_ask(c, &r, is_our_sock);
	c->nl = self;
	return ret;
}

/*
 * The sock_diag variant's sockets, made before the sweep: the listener
 * c->lst, a client connected to it (c->diag_cli) and the end accepted
 * (c->diag_acc); and its NETLINK_SOCK_DIAG socket (c->diag).
 */
static void diag_setup(struct __test_metadata *_metadata, struct net_ctx *c)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	int i;

	c->diag =
		socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	ASSERT_LE(0, c->diag);
	c->diag_cli = tcp_socket(c->family);
	ASSERT_LE(0, c->diag_cli);
	ASSERT_EQ(0, connect(c->diag_cli, (struct sockaddr *)&c->lst_addr,
			     c->alen));
	ASSERT_EQ(0, getsockname(c->diag_cli, (struct sockaddr *)&sa, &len));
	c->diag_port = ((struct sockaddr_in *)&sa)->sin_port;
	for (i = 0; i < ARRIVE_MS / 10 && c->diag_acc < 0; i++) {
		c->diag_acc = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC);
		if (c->diag_acc < 0)
			usleep(10 * 1000);
	}
	ASSERT_LE(0, c->diag_acc);
	/*
	 * No handler: ENOENT (net/core/sock_diag.c:246; for TCP,
	 * net/ipv4/inet_diag.c:1284, linux 6.12).
	 */
	if (diag_dump(c) == -ENOENT)
		SKIP(return, "%s", DIAG_MISSING);
}

/*
 * inet_diag_dump_start()'s state (net/ipv4/inet_diag.c:1311, linux 6.12),
 * then each skb of the dump, with the sockets' tcp_info.
 */
static int diag_action(void *arg)
{
	return diag_dump(arg);
}

/*
 * A success lists the three sockets, whole, and ends; a failure does not
 * end with NLMSG_DONE, and the next dump lists them all.
 */
static bool diag_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int nr;

	if (ret >= 0) {
		if (ret == 3 && c->diag_seen == 7 && c->done)
			return true;
		snprintf(why, size,
			 "the dump listed %d of our 3 sockets (whole: 0x%x)%s",
			 ret, c->diag_seen, c->done ? "" : ", no NLMSG_DONE");
		return false;
	}
	if (c->done) {
		snprintf(why, size, "a failed dump ended with NLMSG_DONE");
		return false;
	}
	nr = diag_dump(c);
	if (nr == 3 && c->diag_seen == 7 && c->done)
		return true;
	snprintf(why, size,
		 "the next dump: %s%d of our 3 sockets (whole: 0x%x)",
		 nr < 0 ? strerror(-nr) : "", nr < 0 ? 0 : nr, c->diag_seen);
	return false;
}

/*
 * An RTM_NEWADDR of ADDR6/64 on the lower link (up), valid for
 * ADDR6_VALID s and preferred for ADDR6_PREFERRED s (IFA_CACHEINFO), with
 * no duplicate address detection; or its RTM_DELADDR.
 */
static int nl_addr6(struct net_ctx *c, int type)
{
	struct nl_req r = {
		.nh.nlmsg_type = type,
		.nh.nlmsg_flags =
			NLM_F_REQUEST | NLM_F_ACK |
			(type == RTM_NEWADDR ? NLM_F_CREATE | NLM_F_EXCL : 0),
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
		.ifa.ifa_family = AF_INET6,
		.ifa.ifa_prefixlen = ADDR6_PREFIX,
		.ifa.ifa_flags = IFA_F_NODAD,
		.ifa.ifa_index = c->lower_index,
	};
	struct ifa_cacheinfo ci = {
		.ifa_prefered = ADDR6_PREFERRED,
		.ifa_valid = ADDR6_VALID,
	};
	struct in6_addr a;

	inet_pton(AF_INET6, ADDR6, &a);
	nl_attr(&r, IFA_ADDRESS, &a, sizeof(a));
	if (type == RTM_NEWADDR)
		nl_attr(&r, IFA_CACHEINFO, &ci, sizeof(ci));
	return nl_ask(c, &r, NULL);
}

/*
 * Whether @nh is ADDR6 on the lower link; whether its lifetimes are
 * finite and no longer than asked for in c->addr6_lft.
 */
static bool is_our_addr6(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifa));
	struct rtattr *rta = IFA_RTA(ifa), *ci;
	struct ifa_cacheinfo got;
	struct in6_addr want;

	inet_pton(AF_INET6, ADDR6, &want);
	if (nh->nlmsg_type != RTM_NEWADDR || ifa->ifa_family != AF_INET6 ||
	    ifa->ifa_index != (unsigned int)c->lower_index ||
	    ifa->ifa_prefixlen != ADDR6_PREFIX ||
	    !has_addr(nh, sizeof(*ifa), IFA_ADDRESS, AF_INET6, &want))
		return false;
	ci = rta_find(rta, len, IFA_CACHEINFO);
	if (ci && RTA_PAYLOAD(ci) >= sizeof(got)) {
		memcpy(&got, RTA_DATA(ci), sizeof(got));
		c->addr6_lft = got.ifa_valid && got.ifa_valid <= ADDR6_VALID &&
			       got.ifa_prefered &&
			       got.ifa_prefered <= ADDR6_PREFERRED;
	}
	return true;
}

/*
 * Whether @nh is ADDR6's prefix route, on the lower link; whether it
 * expires (RTA_CACHEINFO's rta_expires, net/ipv6/route.c:rt6_fill_node(),
 * linux 6.12) in c->addr6_lft.
 */
static bool is_prefix6(struct net_ctx *c, struct nlmsghdr *nh)
{
	struct rtmsg *rtm = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));
	struct rtattr *rta = RTM_RTA(rtm), *ci;
	struct rta_cacheinfo cache;
	struct in6_addr want;

	inet_pton(AF_INET6, ADDR6, &want);
	memset(want.s6_addr + ADDR6_PREFIX / 8, 0, 16 - ADDR6_PREFIX / 8);
	if (nh->nlmsg_type != RTM_NEWROUTE || rtm->rtm_family != AF_INET6 ||
	    rtm->rtm_dst_len != ADDR6_PREFIX ||
	    rta_int(rta_find(rta, len, RTA_OIF)) != c->lower_index ||
	    !has_addr(nh, sizeof(*rtm), RTA_DST, AF_INET6, &want))
		return false;
	ci = rta_find(rta, len, RTA_CACHEINFO);
	c->addr6_lft = ci && RTA_PAYLOAD(ci) >= sizeof(cache) &&
		       (memcpy(&cache, RTA_DATA(ci), sizeof(cache)),
			cache.rta_expires);
	return true;
}

/* An RTM_DELROUTE of ADDR6's prefix route, on the lower link. */
static int nl_prefix6_del(struct net_ctx *c)
{
	struct nl_req r = {
		.nh.nlmsg_type = RTM_DELROUTE,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)),
		.rtm.rtm_family = AF_INET6,
		.rtm.rtm_dst_len = ADDR6_PREFIX,
		.rtm.rtm_table = RT_TABLE_MAIN,
	};
	struct in6_addr a;

	inet_pton(AF_INET6, ADDR6, &a);
	memset(a.s6_addr + ADDR6_PREFIX / 8, 0, 16 - ADDR6_PREFIX / 8);
	nl_attr(&r, RTA_DST, &a, sizeof(a));
	nl_attr(&r, RTA_OIF, &c->lower_index, sizeof(c->lower_index));
	return nl_ask(c, &r, NULL);
}

/*
 * inet6_addr_add() (net/ipv6/addrconf.c:3046, linux 6.12): the address
 * (ipv6_add_addr()), its prefix route, which expires with it
 * (addrconf_prefix_route()), and the lifetime work that ends them. A lost
 * acknowledgment is resolved by asking.
 */
static int addr6_action(void *arg)
{
	struct net_ctx *c = arg;
	int ret = nl_addr6(c, RTM_NEWADDR);

	if (!c->lost)
		return ret;
	return nl_dump(c, RTM_GETADDR, AF_INET6, is_our_addr6) == 1 ? 0 : ret;
}

#define ADDR6_FMT \
	"%s: %d addresses (%s lifetime), %d prefix routes (%s expiry), expected %d"

/*
 * A success: the address is listed with its finite lifetimes, and its
 * prefix route, expiring. A failure: neither.
 */
static bool addr6_check(void *arg, int ret, char *why, size_t size)
{
	struct net_ctx *c = arg;
	int want = ret >= 0, addrs, routes;
	bool addr_lft, route_lft;

	c->addr6_lft = false;
	addrs = nl_dump(c, RTM_GETADDR, AF_INET6, is_our_addr6);
	addr_lft = c->addr6_lft;
	c->addr6_lft = false;
	routes = nl_dump(c, RTM_GETROUTE, AF_INET6, is_prefix6);
	route_lft = c->addr6_lft;
	if (addrs == want && routes == want &&
	    (!want || (addr_lft && route_lft)))
		return true;
	snprintf(why, size, ADDR6_FMT, ADDR6, addrs,
		 addr_lft ? "its" : "no finite", routes,
		 route_lft ? "an" : "no", want);
	return false;
}

/*
 * Removes the address, then its prefix route: ipv6_del_addr() removes
 * the prefix route only of an address that does not expire
 * (IFA_F_PERMANENT, net/ipv6/addrconf.c:1342, linux 6.12). Absent ones
 * are EADDRNOTAVAIL and ESRCH.
 */
static void addr6_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct net_ctx *c = arg;
	int err = nl_addr6(c, RTM_DELADDR);

	EXPECT_TRUE(!err || err == -EADDRNOTAVAIL)
	{
		TH_LOG("removing %s: %s", ADDR6, strerror(-err));
	}
	err = nl_prefix6_del(c);
	EXPECT_TRUE(!err || err == -ESRCH)
	{
		TH_LOG("removing the prefix route of %s: %s", ADDR6,
		       strerror(-err));
	}
	EXPECT_EQ(0, nl_dump(c, RTM_GETROUTE, AF_INET6, is_prefix6));
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
	/*
	 * The link the variant adds or makes; its lower link and the bridge
	 * it joins, made before the sweep.
	 */
	const struct link_spec *link, *lower, *master;
	/* The variant opens TUN_DEV: TUNSETIFF's flags. */
	short tun_flags;
	/* The device, made up before the sweep (tun_up_setup()). */
	bool tun_up;
	/* The bridge and its port, made up before the sweep. */
	bool mdb;
	/* What a tc or rule variant adds (on the lower link). */
	const struct tc_spec *tc;
	/* The route variants' table, if not the main one. */
	unsigned char table;
	/* The lower link is made up before the sweep. */
	bool lower_up;
	/* The neighbour entry a variant adds, on the lower link. */
	const struct neigh_spec *neigh;
	/* Peer namespaces, one for each point: the test's own is kept. */
	bool peer;
	/* The sock_diag variant's sockets (diag_setup()). */
	bool diag;
};

/*
 * The IFLA_INFO_DATA of the kinds: a sit's remote, a vlan's id; a
 * vxlan's VNI, remote, local address and UDP port, a geneve's VNI and
 * remote; a bond's mode and MII interval, an ipvlan's mode, a vrf's table.
 */
static const struct link_attr sit_data[] = {
	{ TUNNEL_ATTR_REMOTE, sizeof(tunnel_remote), tunnel_remote },
	{},
};

static const struct link_attr vlan_data[] = {
	{ IFLA_VLAN_ID, sizeof(vlan_id), &vlan_id },
	{},
};

static const struct link_attr vxlan_data[] = {
	{ IFLA_VXLAN_ID, sizeof(vxlan_id), &vxlan_id },
	{ IFLA_VXLAN_GROUP, sizeof(tunnel_remote), tunnel_remote },
	{ IFLA_VXLAN_LOCAL, sizeof(vxlan_local), vxlan_local },
	{ IFLA_VXLAN_PORT, sizeof(vxlan_port), vxlan_port },
	{},
};

static const struct link_attr geneve_data[] = {
	{ IFLA_GENEVE_ID, sizeof(vxlan_id), &vxlan_id },
	{ IFLA_GENEVE_REMOTE, sizeof(tunnel_remote), tunnel_remote },
	{},
};

static const struct link_attr bond_data[] = {
	{ IFLA_BOND_MODE, sizeof(bond_mode), &bond_mode },
	{ IFLA_BOND_MIIMON, sizeof(bond_miimon), &bond_miimon },
	{},
};

static const struct link_attr ipvlan_l2_data[] = {
	{ IFLA_IPVLAN_MODE, sizeof(ipvlan_l2), &ipvlan_l2 },
	{},
};

static const struct link_attr ipvlan_l3_data[] = {
	{ IFLA_IPVLAN_MODE, sizeof(ipvlan_l3), &ipvlan_l3 },
	{},
};

static const struct link_attr vrf_data[] = {
	{ IFLA_VRF_TABLE, sizeof(vrf_table), &vrf_table },
	{},
};

static const struct link_spec sit_link = {
	.kind = "sit",
	.name = TUNNEL,
	.config = "CONFIG_IPV6_SIT",
	.data = sit_data,
};

static const struct link_spec dummy_link = {
	.kind = "dummy",
	.name = "failnth_dummy",
	.config = "CONFIG_DUMMY",
};

static const struct link_spec dummy_up_link = {
	.kind = "dummy",
	.name = "failnth_up",
	.config = "CONFIG_DUMMY",
	.up_qdisc = DUMMY_QDISC,
};

static const struct link_spec lower_link = {
	.kind = "dummy",
	.name = "failnth_lower",
	.config = "CONFIG_DUMMY",
};

static const struct link_spec veth_link = {
	.kind = "veth",
	.name = "failnth_veth",
	.config = "CONFIG_VETH",
	.peer = "failnth_peer",
};

static const struct link_spec bridge_link = {
	.kind = "bridge",
	.name = "failnth_br",
	.config = "CONFIG_BRIDGE",
};

static const struct link_spec vlan_link = {
	.kind = "vlan",
	.name = "failnth_vlan",
	.config = "CONFIG_VLAN_8021Q",
	.data = vlan_data,
	.on_lower = true,
};

static const struct link_spec macvlan_link = {
	.kind = "macvlan",
	.name = "failnth_mv",
	.config = "CONFIG_MACVLAN",
	.on_lower = true,
};

/* A vxlan on the lower link (IFLA_VXLAN_LINK), and one on none. */
static const struct link_spec vxlan_link = {
	.kind = "vxlan",
	.name = "failnth_vx",
	.config = "CONFIG_VXLAN",
	.data = vxlan_data,
	.on_lower = true,
	.lower_attr = IFLA_VXLAN_LINK,
};

static const struct link_spec vxlan_fdb_link = {
	.kind = "vxlan",
	.name = "failnth_vxfdb",
	.config = "CONFIG_VXLAN",
	.data = vxlan_data,
};

static const struct link_spec geneve_link = {
	.kind = "geneve",
	.name = "failnth_gnv",
	.config = "CONFIG_GENEVE",
	.data = geneve_data,
};

static const struct link_spec bond_link = {
	.kind = "bond",
	.name = "failnth_bond",
	.config = "CONFIG_BONDING",
	.data = bond_data,
	.ports_file = "bonding/slaves",
};

static const struct link_spec ipvlan_l2_link = {
	.kind = "ipvlan",
	.name = "failnth_ipvl",
	.config = "CONFIG_IPVLAN",
	.data = ipvlan_l2_data,
	.on_lower = true,
};

static const struct link_spec ipvlan_l3_link = {
	.kind = "ipvlan",
	.name = "failnth_ipvl",
	.config = "CONFIG_IPVLAN",
	.data = ipvlan_l3_data,
	.on_lower = true,
};

static const struct link_spec vrf_link = {
	.kind = "vrf",
	.name = "failnth_vrf",
	.config = "CONFIG_NET_VRF",
	.data = vrf_data,
};

static const struct link_spec nlmon_link = {
	.kind = "nlmon",
	.name = "failnth_nlmon",
	.config = "CONFIG_NLMON",
};

/* An htb root qdisc 1: whose unclassified packets go to class 1:10. */
static void htb_options(struct nl_req *r)
{
	struct tc_htb_glob glob = {
		.version = TC_HTB_PROTOVER,
		.rate2quantum = 10,
		.defcls = TC_H_MIN(TC_CLASS),
	};
	struct rtattr *opt = nl_attr(r, TCA_OPTIONS, NULL, 0);

	nl_attr(r, TCA_HTB_INIT, &glob, sizeof(glob));
	nl_nest_end(r, opt);
}

/*
 * Three bands, pfifo each, with the default priority map; and a size
 * table that adds 4 bytes of overhead to each packet (TCA_STAB).
 */
static void prio_options(struct nl_req *r)
{
	struct tc_prio_qopt qopt = {
		.bands = 3,
		.priomap = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 },
	};
	struct tc_sizespec size = { .overhead = 4 };
	struct rtattr *stab;

	nl_attr(r, TCA_OPTIONS, &qopt, sizeof(qopt));
	stab = nl_attr(r, TCA_STAB, NULL, 0);
	nl_attr(r, TCA_STAB_BASE, &size, sizeof(size));
	nl_nest_end(r, stab);
}

/* 1 Mbit/s, and a rate estimator (every second, averaged over 4). */
static void htb_class_options(struct nl_req *r)
{
	struct tc_htb_opt hopt = {
		.rate.rate = 125000,
		.rate.linklayer = TC_LINKLAYER_ETHERNET,
		.ceil.rate = 125000,
		.ceil.linklayer = TC_LINKLAYER_ETHERNET,
		.buffer = 10000,
		.cbuffer = 10000,
	};
	struct tc_estimator est = { .interval = 0, .ewma_log = 2 };
	struct rtattr *opt = nl_attr(r, TCA_OPTIONS, NULL, 0);

	nl_attr(r, TCA_HTB_PARMS, &hopt, sizeof(hopt));
	nl_nest_end(r, opt);
	nl_attr(r, TCA_RATE, &est, sizeof(est));
}

/* One key: IPv4 packets to 10.0.0.0/8 (the destination, at offset 16). */
static void u32_options(struct nl_req *r)
{
	char sel[sizeof(struct tc_u32_sel) + sizeof(struct tc_u32_key)] = {};
	struct tc_u32_sel hdr = { .flags = TC_U32_TERMINAL, .nkeys = 1 };
	struct tc_u32_key key = {
		.mask = htonl(0xff000000),
		.val = htonl(0x0a000000),
		.off = 16,
	};
	struct rtattr *opt = nl_attr(r, TCA_OPTIONS, NULL, 0);

	memcpy(sel, &hdr, sizeof(hdr));
	memcpy(sel + sizeof(hdr), &key, sizeof(key));
	nl_attr(r, TCA_U32_SEL, sel, sizeof(sel));
	nl_nest_end(r, opt);
}

/* Every packet to class 1:1. */
static void basic_options(struct nl_req *r)
{
	unsigned int classid = TC_H_MAKE(TC_ROOT, 1);
	struct rtattr *opt = nl_attr(r, TCA_OPTIONS, NULL, 0);

	nl_attr(r, TCA_BASIC_CLASSID, &classid, sizeof(classid));
	nl_nest_end(r, opt);
}

/* Every packet to the action ACT_INDEX: a gact's pass, or a mirred's. */
static void matchall_options(struct nl_req *r, const char *act)
{
	struct rtattr *opt = nl_attr(r, TCA_OPTIONS, NULL, 0);

	nl_act(r, TCA_MATCHALL_ACT, act, true);
	nl_nest_end(r, opt);
}

static void matchall_gact_options(struct nl_req *r)
{
	matchall_options(r, "gact");
}

static void matchall_mirred_options(struct nl_req *r)
{
	matchall_options(r, "mirred");
}

static const struct tc_spec htb_qdisc = {
	.type = RTM_NEWQDISC,
	.kind = "htb",
	.config = "CONFIG_NET_SCH_HTB",
	.parent = TC_H_ROOT,
	.handle = TC_ROOT,
	.options = htb_options,
	.opt = TCA_HTB_INIT,
};

static const struct tc_spec prio_qdisc = {
	.type = RTM_NEWQDISC,
	.kind = "prio",
	.config = "CONFIG_NET_SCH_PRIO",
	.parent = TC_H_ROOT,
	.handle = TC_ROOT,
	.options = prio_options,
	.children = 3,
	.stab = true,
};

/* Its three bands' rings, of the link's tx_queue_len each. */
static const struct tc_spec pfifo_fast_qdisc = {
	.type = RTM_NEWQDISC,
	.kind = "pfifo_fast",
	.config = "CONFIG_NET_SCHED",
	.parent = TC_H_ROOT,
	.handle = TC_ROOT,
};

static const struct tc_spec ingress_qdisc = {
	.type = RTM_NEWQDISC,
	.kind = "ingress",
	.config = "CONFIG_NET_SCH_INGRESS",
	.parent = TC_H_INGRESS,
	.handle = TC_H_MAKE(TC_H_INGRESS, 0),
};

static const struct tc_spec clsact_qdisc = {
	.type = RTM_NEWQDISC,
	.kind = "clsact",
	.config = "CONFIG_NET_SCH_INGRESS",
	.parent = TC_H_CLSACT,
	.handle = TC_H_MAKE(TC_H_CLSACT, 0),
};

static const struct tc_spec htb_class = {
	.type = RTM_NEWTCLASS,
	.kind = "htb",
	.config = "CONFIG_NET_SCH_HTB",
	.parent = TC_H_ROOT,
	.handle = TC_CLASS,
	.base = &htb_qdisc,
	.options = htb_class_options,
	.opt = TCA_HTB_PARMS,
	.children = 1,
	.est = true,
};

static const struct tc_spec u32_filter = {
	.type = RTM_NEWTFILTER,
	.kind = "u32",
	.config = "CONFIG_NET_CLS_U32",
	.parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
	.base = &clsact_qdisc,
	.options = u32_options,
	.opt = TCA_U32_SEL,
};

static const struct tc_spec basic_filter = {
	.type = RTM_NEWTFILTER,
	.kind = "basic",
	.config = "CONFIG_NET_CLS_BASIC",
	.parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
	.handle = 1,
	.base = &clsact_qdisc,
	.options = basic_options,
	.opt = TCA_BASIC_CLASSID,
};

static const struct tc_spec matchall_gact_filter = {
	.type = RTM_NEWTFILTER,
	.kind = "matchall",
	.config = "CONFIG_NET_CLS_MATCHALL and CONFIG_NET_ACT_GACT",
	.parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
	.handle = 1,
	.base = &clsact_qdisc,
	.options = matchall_gact_options,
	.opt = TCA_MATCHALL_ACT,
	.act = "gact",
};

static const struct tc_spec matchall_mirred_filter = {
	.type = RTM_NEWTFILTER,
	.kind = "matchall",
	.config = "CONFIG_NET_CLS_MATCHALL and CONFIG_NET_ACT_MIRRED",
	.parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
	.handle = 1,
	.base = &clsact_qdisc,
	.options = matchall_mirred_options,
	.opt = TCA_MATCHALL_ACT,
	.act = "mirred",
};

static const struct tc_spec gact_action = {
	.type = RTM_NEWACTION,
	.kind = "gact",
	.config = "CONFIG_NET_ACT_GACT",
	.act = "gact",
};

static const struct tc_spec rule4 = {
	.type = RTM_NEWRULE,
	.kind = "rule",
	.config = "CONFIG_IP_MULTIPLE_TABLES",
};

static const struct tc_spec rule6 = {
	.type = RTM_NEWRULE,
	.kind = "rule",
	.config = "CONFIG_IPV6_MULTIPLE_TABLES",
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

FAILNTH_VARIANT_MORE(net, rtm_newlink_sit,
		     (.family = AF_INET, .link = &sit_link),
		     .allowed = nl_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_dummy,
		     (.family = AF_INET, .link = &dummy_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_veth,
		     (.family = AF_INET, .link = &veth_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_bridge,
		     (.family = AF_INET, .link = &bridge_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_vlan,
		     (.family = AF_INET, .link = &vlan_link,
		      .lower = &lower_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_macvlan,
		     (.family = AF_INET, .link = &macvlan_link,
		      .lower = &lower_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_vxlan,
		     (.family = AF_INET, .link = &vxlan_link,
		      .lower = &lower_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_geneve,
		     (.family = AF_INET, .link = &geneve_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_bond,
		     (.family = AF_INET, .link = &bond_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_ipvlan_l2,
		     (.family = AF_INET, .link = &ipvlan_l2_link,
		      .lower = &lower_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_ipvlan_l3,
		     (.family = AF_INET, .link = &ipvlan_l3_link,
		      .lower = &lower_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_vrf,
		     (.family = AF_INET, .link = &vrf_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_nlmon,
		     (.family = AF_INET, .link = &nlmon_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlink_dummy_up,
		     (.family = AF_INET, .link = &dummy_up_link),
		     .allowed = link_errnos, .action = newlink_action,
		     .check = newlink_check, .cleanup = newlink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_up,
		     (.family = AF_INET, .link = &dummy_link),
		     .allowed = link_errnos, .prepare = madelink_prepare,
		     .action = setlink_up_action, .check = setlink_up_check,
		     .cleanup = madelink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_master,
		     (.family = AF_INET, .lower = &lower_link,
		      .master = &bridge_link),
		     .allowed = link_errnos, .action = master_action,
		     .check = master_check, .cleanup = master_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_master_bond,
		     (.family = AF_INET, .lower = &lower_link,
		      .master = &bond_link),
		     .allowed = link_errnos, .action = master_action,
		     .check = master_check, .cleanup = master_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_master_vrf,
		     (.family = AF_INET, .lower = &lower_link,
		      .master = &vrf_link),
		     .allowed = link_errnos, .action = master_action,
		     .check = master_check, .cleanup = master_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newmdb,
		     (.family = AF_INET, .lower = &lower_link,
		      .master = &bridge_link, .mdb = true),
		     .allowed = link_errnos, .action = mdb_action,
		     .check = mdb_check, .cleanup = mdb_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_name,
		     (.family = AF_INET, .lower = &lower_link),
		     .allowed = link_errnos, .action = rename_action,
		     .check = rename_check, .cleanup = rename_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newlinkprop,
		     (.family = AF_INET, .lower = &lower_link),
		     .allowed = link_errnos, .action = alt_name_action,
		     .check = alt_name_check, .cleanup = alt_name_cleanup);

FAILNTH_VARIANT_MORE(net, tun_setiff,
		     (.family = AF_INET, .tun_flags = IFF_TUN | IFF_NO_PI),
		     .allowed = link_errnos, .action = tun_action,
		     .check = tun_check, .cleanup = tun_cleanup);

FAILNTH_VARIANT_MORE(net, tap_setiff,
		     (.family = AF_INET, .tun_flags = IFF_TAP | IFF_NO_PI),
		     .allowed = link_errnos, .action = tun_action,
		     .check = tun_check, .cleanup = tun_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_up_tap,
		     (.family = AF_INET, .tun_flags = IFF_TAP | IFF_NO_PI),
		     .allowed = link_errnos, .prepare = madelink_prepare,
		     .action = setlink_up_action, .check = setlink_up_check,
		     .cleanup = madelink_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_txqlen,
		     (.family = AF_INET, .tun_flags = IFF_TAP | IFF_NO_PI,
		      .tun_up = true),
		     .allowed = link_errnos, .action = txqlen_action,
		     .check = txqlen_check, .cleanup = txqlen_cleanup);

FAILNTH_VARIANT_MORE(net, tun_write,
		     (.family = AF_INET, .tun_flags = IFF_TUN | IFF_NO_PI,
		      .tun_up = true),
		     .allowed = tun_write_errnos, .full = TUN_IP_LEN,
		     .prepare = tun_write_prepare, .action = tun_write_action,
		     .check = tun_write_check, .cleanup = net_cleanup);

FAILNTH_VARIANT_MORE(net, tap_write,
		     (.family = AF_INET, .tun_flags = IFF_TAP | IFF_NO_PI,
		      .tun_up = true),
		     .allowed = tun_write_errnos, .full = TAP_HLEN + TUN_IP_LEN,
		     .prepare = tun_write_prepare, .action = tun_write_action,
		     .check = tun_write_check, .cleanup = net_cleanup);

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

FAILNTH_VARIANT_MORE(net, rtm_newqdisc_htb,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &htb_qdisc),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newqdisc_prio,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &prio_qdisc),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newqdisc_pfifo_fast,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &pfifo_fast_qdisc),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newqdisc_ingress,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &ingress_qdisc),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newqdisc_clsact,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &clsact_qdisc),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newtclass_htb,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &htb_class),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newtfilter_u32,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &u32_filter),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newtfilter_basic,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &basic_filter),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newtfilter_mall_gact,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &matchall_gact_filter),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newtfilter_mall_mirr,
		     (.family = AF_INET, .lower = &lower_link,
		      .tc = &matchall_mirred_filter),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

/*
 * A route in a table of its own: the table is made with it
 * (fib_new_table(), whose failure is ENOBUFS, net/ipv4/fib_frontend.c:913;
 * IPv6's fib6_new_table(), net/ipv6/route.c:3806, linux 6.12), and stays.
 */
FAILNTH_VARIANT_MORE(net, rtm_newroute_table,
		     (.family = AF_INET, .table = RULE_TABLE),
		     .allowed = nl_errnos, .action = newroute_action,
		     .check = newroute_check, .cleanup = rtnl_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newroute6_table,
		     (.family = AF_INET6, .table = RULE_TABLE),
		     .allowed = nl_errnos, .action = newroute_action,
		     .check = newroute_check, .cleanup = rtnl_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newaction_gact,
		     (.family = AF_INET, .tc = &gact_action),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newrule, (.family = AF_INET, .tc = &rule4),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_newrule6, (.family = AF_INET6, .tc = &rule6),
		     .allowed = tc_errnos, .action = tc_action,
		     .check = tc_check, .cleanup = tc_cleanup);

static const struct neigh_spec neigh4 = {
	.family = AF_INET,
	.dst = "10.11.0.2",
};

static const struct neigh_spec neigh6_proxy = {
	.family = AF_INET6,
	.dst = "fd00:11::3",
	.proxy = true,
};

static const struct neigh_spec vxlan_fdb = {
	.family = AF_INET,
	.dst = "192.0.2.9",
	.fdb = true,
};

FAILNTH_VARIANT_MORE(net, rtm_newneigh,
		     (.family = AF_INET, .lower = &lower_link, .lower_up = true,
		      .neigh = &neigh4),
		     .allowed = neigh_errnos, .action = neigh_action,
		     .check = neigh_check, .cleanup = neigh_cleanup,
		     .settled = neigh_settled);

FAILNTH_VARIANT_MORE(net, rtm_newneigh6_proxy,
		     (.family = AF_INET6, .lower = &lower_link,
		      .lower_up = true, .neigh = &neigh6_proxy),
		     .allowed = neigh_errnos, .action = neigh_action,
		     .check = neigh_check, .cleanup = neigh_cleanup,
		     .settled = neigh_settled);

FAILNTH_VARIANT_MORE(net, rtm_newneigh_vxlan_fdb,
		     (.family = AF_INET, .lower = &vxlan_fdb_link,
		      .neigh = &vxlan_fdb),
		     .allowed = neigh_errnos, .action = neigh_action,
		     .check = neigh_check, .cleanup = neigh_cleanup,
		     .settled = neigh_settled);

FAILNTH_VARIANT_MORE(net, rtm_newnsid, (.family = AF_INET, .peer = true),
		     .allowed = nsid_errnos, .prepare = nsid_prepare,
		     .action = nsid_action, .check = nsid_check,
		     .cleanup = nsid_cleanup);

FAILNTH_VARIANT_MORE(net, rtm_setlink_netns, (.family = AF_INET, .peer = true),
		     .allowed = netns_errnos, .prepare = netns_prepare,
		     .action = netns_action, .check = netns_check,
		     .cleanup = netns_cleanup);

FAILNTH_VARIANT_MORE(net, sock_diag_tcp, (.family = AF_INET, .diag = true),
		     .allowed = nl_errnos, .action = diag_action,
		     .check = diag_check, .success_unseen = DIAG_QUERY);

FAILNTH_VARIANT_MORE(net, rtm_newaddr6_lifetime,
		     (.family = AF_INET6, .lower = &lower_link,
		      .lower_up = true),
		     .allowed = nl_errnos, .action = addr6_action,
		     .check = addr6_check, .cleanup = addr6_cleanup);

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

/*
 * Makes the variant's lower link and bridge, and its link once (then
 * removes it), or skips for a kind the kernel lacks; a tun variant needs
 * TUN_DEV.
 */
static void links_setup(struct __test_metadata *_metadata, struct net_ctx *c)
{
	const struct link_spec *const need[] = { c->lower, c->master, c->link };
	int i, idx[ARRAY_SIZE(need)] = {};
	char msg[128];

	for (i = 0; i < ARRAY_SIZE(need); i++) {
		if (!need[i])
			continue;
		idx[i] = link_make(c, need[i]);
		if (idx[i] == -EOPNOTSUPP) {
			snprintf(msg, sizeof(msg),
				 "no link of kind %s: needs %s", need[i]->kind,
				 need[i]->config);
			SKIP(return, "%s", msg);
		}
		ASSERT_LT(0, idx[i])
		{
			TH_LOG("making %s: %s", need[i]->name,
			       strerror(-idx[i]));
		}
		if (need[i] == c->lower) {
			c->lower_index = idx[i];
			c->lower_ls = c->ls;
		} else if (need[i] == c->master) {
			c->master_index = idx[i];
		} else {
			ASSERT_EQ(0, nl_dellink(c, c->link->name));
		}
	}
	if (c->tun_flags) {
		int fd = open(TUN_DEV, O_RDWR | O_CLOEXEC);

		if (fd < 0 && (errno == ENOENT || errno == ENODEV)) {
			snprintf(msg, sizeof(msg), "%s: %s: needs CONFIG_TUN",
				 TUN_DEV, strerror(errno));
			SKIP(return, "%s", msg);
		}
		ASSERT_LE(0, fd);
		close(fd);
	}
}

static unsigned short ip_checksum(const void *buf, size_t len)
{
	const unsigned short *w = buf;
	unsigned int sum = 0;

	for (; len > 1; len -= 2)
		sum += *w++;
	sum = (sum >> 16) + (sum & 0xffff);
	sum += sum >> 16;
	return ~sum;
}

/*
 * For a variant of an up device: TUN_NAME (its fd in c->tun), up with
 * TUN_ADDR, a UDP socket bound there, the packet to write to it
 * (unchecksummed UDP: IPv4 allows it), and its tx_queue_len and qdisc.
 */
static void tun_up_setup(struct __test_metadata *_metadata, struct net_ctx *c)
{
	struct ifreq ifr = { .ifr_flags = c->tun_flags };
	struct sockaddr_in *sin = (void *)&ifr.ifr_addr;
	socklen_t len = sizeof(c->tun_addr);
	unsigned char *at = c->pkt;
	struct udphdr *udp;
	struct iphdr *ip;

	memcpy(ifr.ifr_name, TUN_NAME, sizeof(TUN_NAME));
	c->tun = open(TUN_DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, c->tun);
	ASSERT_EQ(0, ioctl(c->tun, TUNSETIFF, &ifr));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, TUN_ADDR, &sin->sin_addr);
	ASSERT_EQ(0, ioctl(c->snd, SIOCSIFADDR, &ifr));
	c->tun_addr = *sin;
	ASSERT_EQ(0, ioctl(c->snd, SIOCGIFFLAGS, &ifr));
	ifr.ifr_flags |= IFF_UP;
	ASSERT_EQ(0, ioctl(c->snd, SIOCSIFFLAGS, &ifr));
	c->tun_rcv = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, c->tun_rcv);
	ASSERT_EQ(0, bind(c->tun_rcv, (struct sockaddr *)&c->tun_addr, len));
	ASSERT_EQ(0, getsockname(c->tun_rcv, (struct sockaddr *)&c->tun_addr,
				 &len));
	if (c->tun_flags & IFF_TAP) {
		ASSERT_EQ(0, ioctl(c->snd, SIOCGIFHWADDR, &ifr));
		/* To the tap, from a made-up address, of IPv4 (0x0800). */
		memcpy(at, ifr.ifr_hwaddr.sa_data, 6);
		memcpy(at + 6, "\x02\x00\x00\x00\x00\x01\x08\x00", 8);
		at += TAP_HLEN;
	}
	ip = (void *)at;
	udp = (void *)(ip + 1);
	ip->version = 4;
	ip->ihl = sizeof(*ip) / 4;
	ip->tot_len = htons(TUN_IP_LEN);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	inet_pton(AF_INET, TUN_PEER, &ip->saddr);
	ip->daddr = c->tun_addr.sin_addr.s_addr;
	ip->check = ip_checksum(ip, sizeof(*ip));
	udp->source = htons(9);
	udp->dest = c->tun_addr.sin_port;
	udp->len = htons(sizeof(*udp) + TUN_DATA);
	memcpy(udp + 1, data, TUN_DATA);
	c->pkt_len = at + TUN_IP_LEN - c->pkt;
	ASSERT_EQ(1, links_named(c, AF_UNSPEC, TUN_NAME));
	c->link_index = c->ls.index;
	c->txqlen = c->ls.txqlen;
	memcpy(c->qdisc, c->ls.qdisc, sizeof(c->qdisc));
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
	c->tun = -1;
	c->tun_rcv = -1;
	c->self_ns = -1;
	c->peer_ns = -1;
	c->peer_nl = -1;
	c->diag = -1;
	c->diag_cli = -1;
	c->diag_acc = -1;
	c->family = variant->family;
	c->table = variant->table ? variant->table : RT_TABLE_MAIN;
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
	if (variant->link || variant->master) {
		char why[128];

		ASSERT_EQ(0, private_mounts(why, sizeof(why)))
		{
			TH_LOG("%s", why);
		}
		ASSERT_EQ(0, mount("sysfs", SYSFS, "sysfs", 0, NULL))
		{
			TH_LOG("mounting sysfs on %s: %s", SYSFS,
			       strerror(errno));
		}
	}
	c->link = variant->link;
	c->lower = variant->lower;
	c->master = variant->master;
	c->tun_flags = variant->tun_flags;
	links_setup(_metadata, c);
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	if (variant->tun_up)
		tun_up_setup(_metadata, c);
	if (variant->mdb)
		mdb_setup(_metadata, c);
	c->tc = variant->tc;
	if (c->tc && _metadata->exit_code != KSFT_SKIP)
		tc_setup(_metadata, c);
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	c->neigh = variant->neigh;
	if (variant->lower_up)
		ASSERT_EQ(0, nl_setlink_of(c, c->lower_index, true, 0, 0));
	if (variant->peer) {
		c->self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, c->self_ns);
	}
	if (variant->diag)
		diag_setup(_metadata, c);
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	c->nr_links = nl_dump(c, RTM_GETLINK, AF_UNSPEC, any_link);
	ASSERT_LE(1, c->nr_links);
	ASSERT_EQ(1, nl_dump(c, RTM_GETLINK, AF_UNSPEC, lo_attrs));
	c->lo_mtu = c->mtu;
}

FIXTURE_TEARDOWN(net)
{
	struct net_ctx *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	close_fd(&c->fd);
	close_fd(&c->peer);
	close_fd(&c->lst);
	close_fd(&c->rcv);
	close_fd(&c->snd);
	close_fd(&c->nl);
	close_fd(&c->tun);
	close_fd(&c->tun_rcv);
	close_fd(&c->self_ns);
	close_fd(&c->peer_ns);
	close_fd(&c->peer_nl);
	close_fd(&c->diag);
	close_fd(&c->diag_cli);
	close_fd(&c->diag_acc);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. The call must
 * succeed with all it says done, or fail with an allowed errno having done
 * nothing: no connection, byte, datagram, address or route.
 */
FAILNTH_SWEEP_OP(net, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
