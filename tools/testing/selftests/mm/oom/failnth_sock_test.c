// SPDX-License-Identifier: GPL-2.0
/*
 * Packet, crypto (AF_ALG), SCTP, kernel TLS and XFRM (IPsec) sockets while
 * their small allocations fail, one at a time.
 *
 * Each variant runs one call with every failslab and fail_page_alloc point
 * on its path made to fail in turn (see failnth.h), in a network namespace
 * of the test's own with only its loopback device up:
 *
 *  - AF_PACKET: socket(), a receive ring (TPACKET_V3 and V2) and a
 *    transmit ring, a promiscuous membership of lo, a fanout group with
 *    rollover, and a sendto() of a frame on lo;
 *  - AF_ALG: the bind() of a sha256 hash and of a cbc(aes) cipher, the
 *    accept() of an operation socket of each, the accept() that clones a
 *    hash under way, the cipher's key, the send() of data to hash, and
 *    the sendmsg() of a block to encrypt and the recv() of its
 *    ciphertext;
 *  - SCTP over loopback, with authentication and stream reconfiguration
 *    on: socket(), a connect() to a listener, the accept() of the
 *    association, a send() on it, a shared key (SCTP_AUTH_KEY), the
 *    listener's addresses (SCTP_GET_LOCAL_ADDRS), the priority stream
 *    scheduler, the sender-dry event (SCTP_EVENTS), the reset of a stream
 *    (SCTP_RESET_STREAMS), all one-to-one style, and a user abort with a
 *    reason (SCTP_ABORT, one-to-many style);
 *  - kTLS (AES-GCM-128, TLS 1.2, software crypto) on a loopback TCP
 *    connection: TCP_ULP "tls", the TLS_TX and TLS_RX keys, a send() of a
 *    record, a sendmsg() of a handshake record (TLS_SET_RECORD_TYPE), and
 *    the recv() that decrypts a record;
 *  - XFRM over NETLINK_XFRM: XFRM_MSG_NEWSA of an ESP transport state on
 *    127.0.0.1 (rfc4106(gcm(aes)), and cbc(aes) with hmac(sha256)), its
 *    XFRM_MSG_UPDSA (a byte limit) and XFRM_MSG_DELSA, a GETSA dump, and
 *    XFRM_MSG_NEWPOLICY of an outbound policy with an ESP template.
 *
 * kTLS: a success attached the layer (TCP_ULP reads "tls"), set the key
 * (it reads back), or sent a record that the peer decrypts to the
 * message, of the type asked; a failure left the connection as it was:
 * no layer, no key (EBUSY), plain text still carried, nothing the peer
 * can read, the record still there to decrypt, and the next record
 * arrives whole. XFRM: a success is seen by GETSA or GETPOLICY (the SPI,
 * the cipher, the byte limit, the template); a failure left no state or
 * policy (or the old one, for UPDSA and DELSA), and the next unarmed
 * request succeeds.
 *
 * The call must succeed or fail with an allowed errno. A success did all
 * it says: the socket takes the frame its protocol hook is for, the ring
 * maps with the size asked, lo is promiscuous, the socket is in the
 * group, the frame arrives whole, the digests and the ciphertext are the
 * known ones, an operation socket holds its parent, the association
 * carries a message, the key can be made the active one, the addresses
 * are the listener's, the scheduler is the one asked, the events come,
 * the aborted association is gone at both ends. A failure did nothing:
 * the ring does not map, lo is not promiscuous, the socket is in no
 * group, no frame or message arrives, no operation socket holds the parent
 * (which can be bound again), a digest covers only the data sent before,
 * the cipher has no key, the data sent is still there to read, no
 * association waits on the listener (after a failed accept(), the one it
 * was to take still does), the key is unknown, the scheduler and the
 * subscriptions are as they were, no event comes, the association lives.
 *
 * fail-nth reaches the calling task's allocations and not softirq
 * context's: of the loopback traffic's receive side, only what a socket's
 * backlog holds until release_sock() in the caller is swept (SCTP's
 * INIT-ACK during connect(), the answer to a stream reset).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_alg.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sctp.h>
#include <linux/tls.h>
#include <linux/xfrm.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "failnth.h"

/* The bound on each test (its sweep ends 10 s before). */
#define SWEEP_TIMEOUT 90

/* The bound on waiting for loopback data (SCTP retransmits within it). */
#define ARRIVE_MS 1000

/* SOL_ALG and SOL_SCTP, which glibc's headers may lack. */
#ifndef SOL_ALG
#define SOL_ALG 279
#endif
#ifndef SOL_SCTP
#define SOL_SCTP 132
#endif

/* A local experimental EtherType (IEEE 802): no other handler takes it. */
#define ETH_P_FAILNTH 0x88b5

/*
 * A frame on lo: an Ethernet header (all-zero addresses) and a payload.
 * The paged one is a page long and a little more, so that
 * packet_alloc_skb() puts all but its header in a page fragment
 * (net/packet/af_packet.c:3040), one order-0 page.
 */
#define FRAME_LEN 128
#define FRAME_PAGED 4100

/*
 * The rings: four blocks of two pages, so that a block whose pages cannot
 * be had whole falls back to vzalloc() (af_packet.c:4535, linux 6.12).
 */
#define RING_BLOCK (2 * 4096)
#define RING_BLOCKS 4
#define RING_FRAME 2048
#define RING_LEN (RING_BLOCK * RING_BLOCKS)

/* The fanout group. */
#define FANOUT_ID 77

/* What an SCTP send carries. */
#define MSG_LEN 1000

/*
 * Clean failures of a new socket (socket(), accept()): sock_alloc()'s is
 * ENFILE (net/socket.c:1526, 1919 for accept()), the file's dentry ENOMEM
 * (fs/file_table.c:376) and the file ENFILE (file_table.c:252); sk_alloc()
 * is ENOBUFS for AF_PACKET (net/packet/af_packet.c:3467), ENOMEM for SCTP
 * (net/ipv4/af_inet.c:324), and so is sctp_init_sock()'s endpoint
 * (net/sctp/socket.c:5135, linux 6.12).
 */
static const int socket_errnos[] = { ENOMEM, ENFILE, ENOBUFS, 0 };

/*
 * Clean failures of PACKET_RX_RING and PACKET_TX_RING: packet_set_ring()
 * reports a failed alloc_pg_vec() and the V2 receive ring's frame bitmap
 * as ENOMEM (af_packet.c:4657, linux 6.12).
 */
static const int ring_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of PACKET_ADD_MEMBERSHIP: packet_mc_add()'s entry is
 * ENOBUFS (af_packet.c:3814); of PACKET_FANOUT: fanout_add()'s rollover
 * and group are ENOMEM (af_packet.c:1781, 1824, linux 6.12).
 */
static const int packet_opt_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of a packet sendto(): sock_alloc_send_pskb() reports a
 * failed alloc_skb_with_frags() as ENOBUFS (net/core/skbuff.c:6679, linux
 * 6.12).
 */
static const int sendto_errnos[] = { ENOBUFS, 0 };

/*
 * Clean failures of an AF_ALG bind(): crypto_alloc_tfm_node() reports a
 * tfm it cannot allocate as ENOMEM (crypto/api.c:521; the cipher's inner
 * tfm: api.c:417, linux 6.12).
 */
static const int alg_bind_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of an AF_ALG accept(): af_alg_accept()'s sk_alloc() and
 * the type's context are ENOMEM (crypto/af_alg.c:427,
 * crypto/algif_hash.c:417, crypto/algif_skcipher.c:365, 372), as is the
 * exported state of a hash accept()ed from an operation socket
 * (algif_hash.c:243); the new socket and its file as for socket() (linux
 * 6.12).
 */
static const int alg_accept_errnos[] = { ENOMEM, ENFILE, 0 };

/*
 * Clean failures of ALG_SET_KEY, of the hash's send() and of the cipher's
 * recv(): alg_setkey()'s copy of the key (crypto/af_alg.c:217), the digest
 * (crypto/algif_hash.c:43), the cipher's request (af_alg.c:1165) and its
 * list of source entries (crypto/algif_skcipher.c:143) are ENOMEM (linux
 * 6.12).
 */
static const int alg_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of the cipher's sendmsg(): ____sys_sendmsg()'s copy of
 * the control messages is ENOBUFS (net/socket.c:2601), af_alg_sendmsg()'s
 * scatterlist and page ENOMEM (crypto/af_alg.c:623, 1032, linux 6.12).
 */
static const int alg_sendmsg_errnos[] = { ENOMEM, ENOBUFS, 0 };

/*
 * Clean failures of an SCTP connect(): a failed autobind is EAGAIN
 * (net/sctp/socket.c:1121), the association and its peer ENOMEM
 * (socket.c:1131, 1139), and so is the INIT the state machine cannot make
 * (net/sctp/sm_sideeffect.c:1225, linux 6.12).
 */
static const int sctp_connect_errnos[] = { ENOMEM, EAGAIN, 0 };

/*
 * Clean failures of an SCTP accept(): sctp_accept()'s new socket is ENOMEM
 * (net/sctp/socket.c:4948), and so is sctp_sock_migrate()'s copy of the
 * bound addresses (net/sctp/bind_addr.c:sctp_bind_addr_dup()); the socket
 * and its file as for socket() (linux 6.12).
 */
static const int sctp_accept_errnos[] = { ENOMEM, ENFILE, 0 };

/*
 * Clean failures of an SCTP send(MSG_DONTWAIT): the stream's extension is
 * ENOMEM (net/sctp/stream.c:180), and so is a chunk
 * sctp_datamsg_from_user() cannot make (net/sctp/chunk.c:265, linux
 * 6.12).
 */
static const int sctp_send_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of the SCTP options and SCTP_ABORT: sctp_setsockopt()'s
 * copy of the option (net/sctp/socket.c:4651), SCTP_AUTH_KEY's shared key
 * and key (net/sctp/auth.c:924, 930), the priority scheduler's head
 * (net/sctp/stream_sched_prio.c:177), the sender-dry event
 * (socket.c:2304), SCTP_RESET_STREAMS' list and request (net/sctp/stream.c:
 * 331, 349) and the ABORT with its reason (socket.c:1814), all ENOMEM;
 * SCTP_GET_LOCAL_ADDRS' and SCTP_GET_ASSOC_ID_LIST's copies too
 * (socket.c:6359, 7221, linux 6.12).
 */
static const int sctp_opt_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of TCP_ULP "tls": tls_init()'s context is ENOMEM
 * (net/tls/tls_main.c:984, linux 6.12).
 */
static const int ulp_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of TLS_TX and TLS_RX: tls_set_sw_offload()'s context of
 * the direction is ENOMEM (net/tls/tls_sw.c:2835, 2844), as are its AEAD
 * tfm (crypto/api.c:521) and the receive side's stream parser
 * (net/tls/tls_strp.c:130, linux 6.12).
 */
static const int tls_key_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of a kTLS send(MSG_DONTWAIT): a record that
 * tls_sw_sendmsg() cannot get is ENOMEM (net/tls/tls_sw.c:1097); the
 * memory of a record it cannot fill, with no time to wait, EAGAIN
 * (net/core/stream.c:178, via tls_sw.c:1269, linux 6.12).
 */
static const int tls_send_errnos[] = { ENOMEM, EAGAIN, 0 };

/*
 * Clean failures of a kTLS recv(): the clear-text skb and the decryption
 * request of tls_decrypt_sg() are ENOMEM (net/tls/tls_sw.c:1601, 1618,
 * linux 6.12).
 */
static const int tls_recv_errnos[] = { ENOMEM, 0 };

/*
 * Clean failures of an XFRM request: netlink_sendmsg()'s skb and a
 * dump's are ENOBUFS (net/netlink/af_netlink.c:1872, 2266);
 * xfrm_state_construct()'s state is ENOMEM (net/xfrm/xfrm_user.c:845),
 * as are its copies of the algorithms (xfrm_user.c:574, 638, 668) and
 * ESP's AEAD tfm (crypto/api.c:521); xfrm_policy_construct()'s policy
 * (xfrm_user.c:2122) and the inexact bin it goes in
 * (net/xfrm/xfrm_policy.c:1242, 1250) are ENOMEM (linux 6.12).
 */
static const int xfrm_errnos[] = { ENOMEM, ENOBUFS, 0 };

/* SHA-256 of "abc" and of nothing (FIPS 180-2, appendix B.1). */
static const unsigned char sha256_abc[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
	0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
	0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};

static const unsigned char sha256_empty[32] = {
	0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4,
	0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b,
	0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
};

/* AES-128 CBC, NIST SP 800-38A F.2.1: key, IV, block and its cipher. */
static const unsigned char aes_key[16] = {
	0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
	0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
};

static const unsigned char aes_iv[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

static const unsigned char aes_plain[16] = {
	0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96,
	0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
};

static const unsigned char aes_cipher[16] = {
	0x76, 0x49, 0xab, 0xac, 0x81, 0x19, 0xb2, 0x46,
	0xce, 0xe9, 0x8e, 0x9b, 0x12, 0xe9, 0x19, 0x7d,
};

/*
 * XFRM: what the listed state or policy is: its SPI or port, the name of its
 * cipher, its byte limit, whether it has an ESP template.
 */
struct xfrm_seen {
	int nr;
	unsigned int spi;
	char alg[64];
	__u64 limit;
	bool tmpl;
};

/* Shared by the callbacks of a sweep; fds are -1 when closed. */
struct sock_ctx {
	/* The point's socket and the other end of its traffic. */
	int fd, peer;
	/*
	 * AF_PACKET: a sender and a receiver of ETH_P_FAILNTH on lo. AF_ALG:
	 * a bound parent (fd) of the hash or the cipher. SCTP: a listener.
	 */
	int snd, rcv, alg, lst;
	/* A NETLINK_ROUTE socket, for lo's promiscuity. */
	int nl;
	/* The variant's PACKET_VERSION, and what the sweep's ring is. */
	int version, ring_opt;
	/* AF_ALG: whether the parent is the cipher (else the hash). */
	bool cipher;
	/* lo's index (if_nametoindex() opens a socket: not while armed). */
	int lo;
	struct sockaddr_in lst_addr;
	/* The address of the point's socket, which connects to itself. */
	struct sockaddr_in self_addr;
	/* What the point's recv() read. */
	unsigned char out[16];
	char frame[FRAME_PAGED];
	/* The variant's frame length. */
	int frame_len;
	char msg[MSG_LEN];
	/* kTLS: what the point's recv() read. */
	char buf[MSG_LEN + 64];
	/* XFRM: the state's cipher is AEAD (else cbc(aes) with hmac). */
	bool aead;
	/* XFRM: the last request's sequence number, a lost reply. */
	unsigned int seq;
	bool lost;
	/* XFRM: what the last request listed, and its replies. */
	struct xfrm_seen seen;
	char nlbuf[8192];
};

/*
 * What @fd takes within ARRIVE_MS into @buf, at most @len bytes: a count,
 * or -1 with errno (ETIMEDOUT: nothing came).
 */
static ssize_t take(int fd, void *buf, size_t len)
{
	if (!fd_readable(fd, ARRIVE_MS)) {
		errno = ETIMEDOUT;
		return -1;
	}
	return recv(fd, buf, len, MSG_DONTWAIT);
}

/* Whether @fd has nothing to read now; else says what in @why. */
static bool quiet(int fd, const char *what, char *why, size_t size)
{
	char byte;
	ssize_t len = recv(fd, &byte, 1, MSG_DONTWAIT);

	if (len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return true;
	snprintf(why, size, "%s: a read gave %zd (%s), expected nothing", what,
		 len, len < 0 ? strerror(errno) : "data");
	return false;
}

/* Whether @fd takes exactly @len bytes of @want; else says why. */
static bool takes(int fd, const void *want, size_t len, const char *what,
		  char *why, size_t size)
{
	static char got[FRAME_PAGED + 1];
	ssize_t n = take(fd, got, sizeof(got));

	if (n == (ssize_t)len && !memcmp(got, want, len))
		return quiet(fd, what, why, size);
	snprintf(why, size, "%s: read %zd bytes (%s), expected %zu", what, n,
		 n < 0 ? strerror(errno) : "that differ", len);
	return false;
}

/* A socket's option @opt at level @level as an int, or -errno. */
static int sockopt(int fd, int level, int opt)
{
	socklen_t len = sizeof(int);
	int val = 0;

	if (getsockopt(fd, level, opt, &val, &len))
		return -errno;
	return val;
}

/* ---- AF_PACKET ---------------------------------------------------- */

/* A packet socket of @proto (0: takes no frame), or -1. */
static int packet_socket(int proto)
{
	return socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(proto));
}

/* Sends the frame from c->snd on lo: 0 or -errno. */
static int frame_send(struct sock_ctx *c)
{
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_FAILNTH),
		.sll_ifindex = c->lo,
		.sll_halen = ETH_ALEN,
	};
	ssize_t len = sendto(c->snd, c->frame, c->frame_len, 0,
			     (struct sockaddr *)&to, sizeof(to));

	return len < 0 ? -errno : len;
}

/* Whether the frame, sent, reaches c->rcv and @fd (@what) whole. */
static bool frame_reaches(struct sock_ctx *c, int fd, const char *what,
			  char *why, size_t size)
{
	int err = frame_send(c);

	if (err < 0) {
		snprintf(why, size, "sending a frame: %s", strerror(-err));
		return false;
	}
	return takes(c->rcv, c->frame, c->frame_len, "the receiver", why,
		     size) &&
	       takes(fd, c->frame, c->frame_len, what, why, size);
}

static int packet_socket_action(void *arg)
{
	return failnth_fd_ret(packet_socket(ETH_P_FAILNTH));
}

/*
 * A success is a raw packet socket whose protocol hook is registered: it
 * takes the frame sent on lo.
 */
static bool packet_socket_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0)
		return true;
	if (sockopt(ret, SOL_SOCKET, SO_DOMAIN) != AF_PACKET ||
	    sockopt(ret, SOL_SOCKET, SO_TYPE) != SOCK_RAW) {
		snprintf(why, size, "fd %d is not a raw packet socket", ret);
		return false;
	}
	return frame_reaches(c, ret, "the new socket", why, size);
}

/* A packet socket taking no frame, of the variant's version. */
static void packet_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	c->fd = packet_socket(0);
	ASSERT_LE(0, c->fd);
	ASSERT_EQ(0, setsockopt(c->fd, SOL_PACKET, PACKET_VERSION, &c->version,
				sizeof(c->version)));
}

static int ring_action(void *arg)
{
	struct sock_ctx *c = arg;
	struct tpacket_req3 req = {
		.tp_block_size = RING_BLOCK,
		.tp_block_nr = RING_BLOCKS,
		.tp_frame_size = RING_FRAME,
		.tp_frame_nr = RING_LEN / RING_FRAME,
		.tp_retire_blk_tov = 10,
	};
	socklen_t len = c->version == TPACKET_V3 ? sizeof(req) :
						   sizeof(struct tpacket_req);

	if (c->ring_opt == PACKET_TX_RING)
		req.tp_retire_blk_tov = 0;
	if (setsockopt(c->fd, SOL_PACKET, c->ring_opt, &req, len))
		return -errno;
	return 0;
}

/*
 * A success is a ring that maps with the size asked (packet_mmap() takes
 * exactly the rings' size), a failure one that does not map (no ring:
 * EINVAL).
 */
static bool ring_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	void *p = mmap(NULL, RING_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
		       c->fd, 0);
	int err = p == MAP_FAILED ? errno : 0;

	if (!err)
		munmap(p, RING_LEN);
	if (ret < 0 && err != EINVAL) {
		snprintf(why, size, "mmap after the failure: %s, expected %s",
			 err ? strerror(err) : "mapped", strerror(EINVAL));
		return false;
	}
	if (ret >= 0 && err) {
		snprintf(why, size, "mmap of the %d-byte ring: %s", RING_LEN,
			 strerror(err));
		return false;
	}
	return true;
}

/*
 * lo's promiscuity count, as an RTM_GETLINK reads it (IFLA_PROMISCUITY:
 * SIOCGIFFLAGS shows only the promiscuity set by the user), or -errno.
 */
static int lo_promisc(struct sock_ctx *c)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh.nlmsg_len = sizeof(req),
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.ifi.ifi_index = c->lo,
	};
	static char buf[8192];
	struct nlmsghdr *nh = (void *)buf;
	struct rtattr *rta;
	ssize_t len;
	int attrs;

	if (send(c->nl, &req, sizeof(req), 0) < 0)
		return -errno;
	len = take(c->nl, buf, sizeof(buf));
	if (len < 0)
		return -errno;
	if (!NLMSG_OK(nh, len) || nh->nlmsg_type != RTM_NEWLINK)
		return -EPROTO;
	attrs = IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA((struct ifinfomsg *)NLMSG_DATA(nh));
	     RTA_OK(rta, attrs); rta = RTA_NEXT(rta, attrs))
		if (rta->rta_type == IFLA_PROMISCUITY)
			return *(int *)RTA_DATA(rta);
	return -ENOENT;
}

static int promisc_action(void *arg)
{
	struct sock_ctx *c = arg;
	struct packet_mreq mr = {
		.mr_ifindex = c->lo,
		.mr_type = PACKET_MR_PROMISC,
	};

	if (setsockopt(c->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)))
		return -errno;
	return 0;
}

/* A success made lo promiscuous once; a failure did not. */
static bool promisc_check(void *arg, int ret, char *why, size_t size)
{
	int now = lo_promisc(arg), want = ret >= 0;

	if (now == want)
		return true;
	snprintf(why, size, "lo's promiscuity is %d%s%s after a %s membership",
		 now, now < 0 ? ": " : "", now < 0 ? strerror(-now) : "",
		 want ? "successful" : "failed");
	return false;
}

/* Closing the socket drops its membership: lo is not promiscuous. */
static bool promisc_settled(void *arg, char *why, size_t size)
{
	if (!lo_promisc(arg))
		return true;
	snprintf(why, size, "lo is still promiscuous after the socket closed");
	return false;
}

/* A socket taking the frames of ETH_P_FAILNTH: it runs, so it can fan. */
static void fanout_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	c->fd = packet_socket(ETH_P_FAILNTH);
	ASSERT_LE(0, c->fd);
}

#define FANOUT_ARG \
	(FANOUT_ID | (PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_ROLLOVER) << 16)

static int fanout_action(void *arg)
{
	struct sock_ctx *c = arg;
	int val = FANOUT_ARG;

	if (setsockopt(c->fd, SOL_PACKET, PACKET_FANOUT, &val, sizeof(val)))
		return -errno;
	return 0;
}

/*
 * A success put the socket in the group (PACKET_FANOUT reads it back), a
 * failure in none (0); either way the socket still takes the frame: the
 * group's hook, or its own again.
 */
static bool fanout_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int want = ret < 0 ? 0 : FANOUT_ARG;
	int now = sockopt(c->fd, SOL_PACKET, PACKET_FANOUT);

	if (now != want) {
		snprintf(why, size, "PACKET_FANOUT reads %#x, expected %#x",
			 now, want);
		return false;
	}
	return frame_reaches(c, c->fd, "the socket", why, size);
}

static int frame_action(void *arg)
{
	return frame_send(arg);
}

/* A success delivers the frame whole; a failure delivers none. */
static bool frame_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0)
		return quiet(c->rcv, "after a failed sendto", why, size);
	return takes(c->rcv, c->frame, c->frame_len, "the receiver", why, size);
}

/* ---- AF_ALG ------------------------------------------------------- */

/* Binds @fd to the sha256 hash, or to cbc(aes) if @cipher: 0 or -errno. */
static int alg_bind(int fd, bool cipher)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };

	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s",
		 cipher ? "skcipher" : "hash");
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s",
		 cipher ? "cbc(aes)" : "sha256");
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
}

static int alg_socket(void)
{
	return socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
}

/* The digest of "abc" by the operation socket @op: whether it is right. */
static bool digests(int op, char *why, size_t size)
{
	unsigned char md[32];

	if (send(op, "abc", 3, 0) != 3 || read(op, md, 32) != 32) {
		snprintf(why, size, "hashing \"abc\": %s", strerror(errno));
		return false;
	}
	if (memcmp(md, sha256_abc, 32)) {
		snprintf(why, size, "the digest of \"abc\" is not SHA-256's");
		return false;
	}
	return true;
}

/* Sends the block to encrypt to @op, with the IV: the count or -errno. */
static int encrypt_send(int op)
{
	char cbuf[CMSG_SPACE(sizeof(int)) +
		  CMSG_SPACE(sizeof(struct af_alg_iv) + 16)] = {};
	struct iovec iov = { (void *)aes_plain, sizeof(aes_plain) };
	struct msghdr m = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	struct af_alg_iv *iv;
	ssize_t len;

	cm->cmsg_level = SOL_ALG;
	cm->cmsg_type = ALG_SET_OP;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	*(int *)CMSG_DATA(cm) = ALG_OP_ENCRYPT;
	cm = CMSG_NXTHDR(&m, cm);
	cm->cmsg_level = SOL_ALG;
	cm->cmsg_type = ALG_SET_IV;
	cm->cmsg_len = CMSG_LEN(sizeof(*iv) + 16);
	iv = (void *)CMSG_DATA(cm);
	iv->ivlen = 16;
	memcpy(iv->iv, aes_iv, 16);
	len = sendmsg(op, &m, 0);
	return len < 0 ? -errno : len;
}

/* Whether @op reads the known ciphertext within ARRIVE_MS; else why. */
static bool ciphers(int op, char *why, size_t size)
{
	unsigned char out[16];
	ssize_t len = take(op, out, sizeof(out));

	if (len != 16 || memcmp(out, aes_cipher, 16)) {
		snprintf(why, size, "the ciphertext: %zd bytes (%s)", len,
			 len < 0 ? strerror(errno) : "not the known ones");
		return false;
	}
	return true;
}

/* Whether @op encrypts the block to the known ciphertext; else why. */
static bool encrypts(int op, char *why, size_t size)
{
	int err = encrypt_send(op);

	if (err != 16) {
		snprintf(why, size, "sending the block: %s",
			 err < 0 ? strerror(-err) : "short");
		return false;
	}
	return ciphers(op, why, size);
}

/* A fresh AF_ALG socket for the point, bound or not. */
static void alg_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	c->fd = alg_socket();
	ASSERT_LE(0, c->fd);
}

static void cipher_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	alg_prepare(_metadata, arg);
	ASSERT_EQ(0, alg_bind(c->fd, true));
}

static int hash_bind_action(void *arg)
{
	return alg_bind(((struct sock_ctx *)arg)->fd, false);
}

static int cipher_bind_action(void *arg)
{
	return alg_bind(((struct sock_ctx *)arg)->fd, true);
}

/*
 * A success bound the socket: an accept() gives an operation socket, one
 * that hashes "abc" right (the cipher's has no key yet: it is accepted
 * all the same). A failure left it unbound: accept() is EINVAL
 * (crypto/af_alg.c:422).
 */
static bool bind_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int op = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC), err = errno;
	bool ok = true;

	if (ret < 0 && !(op < 0 && err == EINVAL)) {
		snprintf(why, size, "accept after the failure: %s, expected %s",
			 op < 0 ? strerror(err) : "an fd", strerror(EINVAL));
		ok = false;
	} else if (ret >= 0 && op < 0) {
		snprintf(why, size, "accept after the bind: %s", strerror(err));
		ok = false;
	} else if (ret >= 0 && !c->cipher) {
		ok = digests(op, why, size);
	}
	close_fd(&op);
	return ok;
}

static int key_action(void *arg)
{
	struct sock_ctx *c = arg;

	if (setsockopt(c->fd, SOL_ALG, ALG_SET_KEY, aes_key, sizeof(aes_key)))
		return -errno;
	return 0;
}

/*
 * A success keyed the cipher: an operation socket encrypts the block to
 * the known ciphertext. A failure left it without a key: the operation
 * socket's send is ENOKEY (crypto/algif_skcipher.c:skcipher_check_key()).
 */
static bool key_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int op = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC), err;
	bool ok = false;

	if (op < 0) {
		snprintf(why, size, "accept: %s", strerror(errno));
		return false;
	}
	if (ret >= 0) {
		ok = encrypts(op, why, size);
	} else {
		err = encrypt_send(op);
		ok = err == -ENOKEY;
		if (!ok)
			snprintf(why, size,
				 "a block sent after the failure: %s",
				 err < 0 ? strerror(-err) : "taken");
	}
	close_fd(&op);
	return ok;
}

static int accept_action(void *arg)
{
	struct sock_ctx *c = arg;

	return failnth_fd_ret(accept4(c->alg, NULL, NULL, SOCK_CLOEXEC));
}

/*
 * A success is an operation socket that hashes or encrypts right, and
 * holds its parent: a bind() of the parent is EBUSY (af_alg.c:190). A
 * failure left no hold: the bind succeeds.
 */
static bool accept_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	bool cipher = c->cipher;
	int err = alg_bind(c->alg, cipher);

	if (ret < 0 && err) {
		snprintf(why, size, "binding the parent after the failure: %s",
			 strerror(-err));
		return false;
	}
	if (ret >= 0 && err != -EBUSY) {
		snprintf(why, size, "binding the parent: %s, expected %s",
			 err ? strerror(-err) : "bound", strerror(EBUSY));
		return false;
	}
	if (ret < 0)
		return true;
	return cipher ? encrypts(ret, why, size) : digests(ret, why, size);
}

/* The parent's key again: a cipher bound again in a check has none. */
static void accept_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	struct sock_ctx *c = arg;

	if (ret >= 0)
		EXPECT_EQ(0, close(ret));
	if (c->cipher)
		EXPECT_EQ(0, setsockopt(c->alg, SOL_ALG, ALG_SET_KEY, aes_key,
					sizeof(aes_key)));
}

/* An operation socket of the parent, for the point. */
static void op_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	c->fd = accept4(c->alg, NULL, NULL, SOCK_CLOEXEC);
	ASSERT_LE(0, c->fd);
}

static int hash_send_action(void *arg)
{
	ssize_t len = send(((struct sock_ctx *)arg)->fd, "abc", 3, 0);

	return len < 0 ? -errno : len;
}

/*
 * A success hashed "abc": the digest read is SHA-256's of it. A failure
 * hashed nothing: the digest is that of no data.
 */
static bool hash_send_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	unsigned char md[32];
	const unsigned char *want = ret < 0 ? sha256_empty : sha256_abc;

	if (read(c->fd, md, 32) != 32) {
		snprintf(why, size, "reading the digest: %s", strerror(errno));
		return false;
	}
	if (memcmp(md, want, 32)) {
		snprintf(why, size, "the digest is not that of %s",
			 ret < 0 ? "no data" : "\"abc\"");
		return false;
	}
	return true;
}

/* An operation socket with "abc" sent, more to come: one to clone. */
static void hash_more_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	op_prepare(_metadata, arg);
	ASSERT_EQ(3, send(c->fd, "abc", 3, MSG_MORE));
}

static int hash_clone_action(void *arg)
{
	struct sock_ctx *c = arg;

	return failnth_fd_ret(accept4(c->fd, NULL, NULL, SOCK_CLOEXEC));
}

/* Whether the hash of @fd, ended now, is that of "abc"; else why. */
static bool ends_abc(int fd, const char *what, char *why, size_t size)
{
	unsigned char md[32];

	if (read(fd, md, 32) == 32 && !memcmp(md, sha256_abc, 32))
		return true;
	snprintf(why, size, "%s: the digest is not that of \"abc\"", what);
	return false;
}

/*
 * A success cloned the hash (hash_accept() exports and imports its
 * state): both sockets end with the digest of "abc", and the clone holds
 * the parent (a bind() is EBUSY once the original is closed). A failure
 * left the original's state as it was, and no hold.
 */
static bool hash_clone_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int err;

	if (!ends_abc(c->fd, "the original", why, size) ||
	    (ret >= 0 && !ends_abc(ret, "the clone", why, size)))
		return false;
	close_fd(&c->fd);
	err = alg_bind(c->alg, false);
	if (err == (ret < 0 ? 0 : -EBUSY))
		return true;
	snprintf(why, size, "binding the parent: %s, expected %s",
		 err ? strerror(-err) : "bound",
		 ret < 0 ? "success" : strerror(EBUSY));
	return false;
}

static int recv_action(void *arg)
{
	struct sock_ctx *c = arg;
	ssize_t len = recv(c->fd, c->out, 16, 0);

	return len < 0 ? -errno : len;
}

static int encrypt_action(void *arg)
{
	return encrypt_send(((struct sock_ctx *)arg)->fd);
}

/*
 * A success queued the block: it reads back encrypted. A failure queued
 * nothing: there is nothing to read.
 */
static bool encrypt_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret >= 0)
		return ciphers(c->fd, why, size);
	return quiet(c->fd, "after a failed send", why, size);
}

/* An operation socket with the block sent, to be read encrypted. */
static void cipher_recv_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	op_prepare(_metadata, arg);
	ASSERT_EQ(16, encrypt_send(c->fd));
}

/*
 * A success read the ciphertext; a failure consumed nothing: a read again
 * gives it.
 */
static bool cipher_recv_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0)
		return ciphers(c->fd, why, size);
	if (memcmp(c->out, aes_cipher, 16)) {
		snprintf(why, size, "the ciphertext read is not the known one");
		return false;
	}
	return quiet(c->fd, "after the ciphertext", why, size);
}

/* ---- SCTP --------------------------------------------------------- */

/*
 * An SCTP socket whose retransmissions come well within ARRIVE_MS (the
 * RTO of RFC 4960 starts at 3 s) and whose close aborts (no SHUTDOWN to
 * wait for), or -1. A point whose fault drops an INIT-ACK or a DATA chunk
 * waits one RTO for the retransmission: 30 ms, 3 jiffies at the UML
 * kernel's HZ=100, against 100 before, took the SCTP sweeps from 22.6 s
 * to 13.7 s with the same points and verdicts, also with a second UML
 * running beside. On loopback the answer comes within the call, long
 * before a retransmission.
 */
static int sctp_socket_of(int type)
{
	const struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	const struct sctp_rtoinfo rto = {
		.srto_initial = 30,
		.srto_min = 20,
		.srto_max = 60,
	};
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, IPPROTO_SCTP);

	if (fd >= 0 &&
	    (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) ||
	     setsockopt(fd, SOL_SCTP, SCTP_RTOINFO, &rto, sizeof(rto)))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* One-to-one style (TCP-like), as most of the variants use. */
static int sctp_socket(void)
{
	return sctp_socket_of(SOCK_STREAM);
}

static int sctp_socket_action(void *arg)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_SCTP);

	return failnth_fd_ret(fd);
}

/*
 * A success is an SCTP socket with its endpoint: it connects to the
 * listener.
 */
static bool sctp_socket_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0)
		return true;
	if (sockopt(ret, SOL_SOCKET, SO_PROTOCOL) != IPPROTO_SCTP) {
		snprintf(why, size, "fd %d is not an SCTP socket", ret);
		return false;
	}
	if (connect(ret, (struct sockaddr *)&c->lst_addr,
		    sizeof(c->lst_addr))) {
		snprintf(why, size, "the new socket cannot connect: %s",
			 strerror(errno));
		return false;
	}
	return true;
}

static void sctp_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	c->fd = sctp_socket();
	ASSERT_LE(0, c->fd);
}

static int connect_action(void *arg)
{
	struct sock_ctx *c = arg;

	if (connect(c->fd, (struct sockaddr *)&c->lst_addr,
		    sizeof(c->lst_addr)))
		return -errno;
	return 0;
}

/* Whether the association of c->fd, accepted as @fd, carries c->msg. */
static bool carries(struct sock_ctx *c, int fd, char *why, size_t size)
{
	if (send(c->fd, c->msg, MSG_LEN, MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    MSG_LEN) {
		snprintf(why, size, "a message on the association: %s",
			 strerror(errno));
		return false;
	}
	return takes(fd, c->msg, MSG_LEN, "the accepted end", why, size);
}

/*
 * A success is an association that the listener hands out and that
 * carries a message; a failure leaves the socket unconnected and nothing
 * waiting on the listener.
 */
static bool connect_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (ret < 0) {
		if (!getpeername(c->fd, (struct sockaddr *)&sa, &len)) {
			snprintf(why, size, "connected after the failure");
			return false;
		}
		if (fd_readable(c->lst, 0)) {
			snprintf(why, size,
				 "an association waits after the failure");
			return false;
		}
		return true;
	}
	if (!fd_readable(c->lst, ARRIVE_MS)) {
		snprintf(why, size, "no association on the listener in %d ms",
			 ARRIVE_MS);
		return false;
	}
	c->peer = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c->peer < 0) {
		snprintf(why, size, "accept: %s", strerror(errno));
		return false;
	}
	return carries(c, c->peer, why, size);
}

/* An association from the point's socket, waiting on the listener. */
static void sctp_accept_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	sctp_prepare(_metadata, arg);
	ASSERT_EQ(0, connect_action(c));
	ASSERT_TRUE(fd_readable(c->lst, ARRIVE_MS));
}

static int sctp_accept_action(void *arg)
{
	struct sock_ctx *c = arg;

	return failnth_fd_ret(accept4(c->lst, NULL, NULL, SOCK_CLOEXEC));
}

/*
 * A success handed out the client's association, and the listener holds
 * no other. A failure lost nothing: the association still waits, and
 * carries a message once taken.
 */
static bool sctp_accept_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int fd = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int err = errno;

	if (ret >= 0 && fd >= 0) {
		close(fd);
		snprintf(why, size, "another association waits");
		return false;
	}
	if (ret < 0 && fd < 0) {
		snprintf(why, size, "after the failure, accept: %s",
			 strerror(err));
		return false;
	}
	c->peer = fd;
	return carries(c, ret >= 0 ? ret : fd, why, size);
}

/* The IP options of the listener of sctp_accept_ip_options: four NOPs. */
static const unsigned char ip_opts[4] = { 1, 1, 1, 1 };

/*
 * As sctp_accept_check(), and a success has the listener's IP options
 * (sctp_v4_copy_ip_options() copies them to the new socket).
 */
static bool ipopt_check(void *arg, int ret, char *why, size_t size)
{
	unsigned char got[40];
	socklen_t len = sizeof(got);

	if (!sctp_accept_check(arg, ret, why, size))
		return false;
	if (ret < 0)
		return true;
	if (getsockopt(ret, IPPROTO_IP, IP_OPTIONS, got, &len)) {
		snprintf(why, size, "IP_OPTIONS: %s", strerror(errno));
		return false;
	}
	if (len == sizeof(ip_opts) && !memcmp(got, ip_opts, len))
		return true;
	snprintf(why, size,
		 "the new socket has %u bytes of IP options, not %zu", len,
		 sizeof(ip_opts));
	return false;
}

/* An association, accepted: the point sends on it. */
static void sctp_send_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	sctp_accept_prepare(_metadata, arg);
	c->peer = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	ASSERT_LE(0, c->peer);
}

static int sctp_send_action(void *arg)
{
	struct sock_ctx *c = arg;
	ssize_t len = send(c->fd, c->msg, MSG_LEN, MSG_DONTWAIT | MSG_NOSIGNAL);

	return len < 0 ? -errno : len;
}

/* A success delivers the message whole; a failure delivers none. */
static bool sctp_send_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0)
		return quiet(c->peer, "after a failed send", why, size);
	return takes(c->peer, c->msg, MSG_LEN, "the accepted end", why, size);
}

#define SCTP_KEY_ID 5

static int sctp_key_action(void *arg)
{
	struct sock_ctx *c = arg;
	struct {
		struct sctp_authkey k;
		unsigned char key[16];
	} ak = {
		.k.sca_assoc_id = SCTP_FUTURE_ASSOC,
		.k.sca_keynumber = SCTP_KEY_ID,
		.k.sca_keylength = sizeof(ak.key),
	};

	memcpy(ak.key, aes_key, sizeof(ak.key));
	if (setsockopt(c->fd, SOL_SCTP, SCTP_AUTH_KEY, &ak, sizeof(ak)))
		return -errno;
	return 0;
}

/*
 * A success added the key: it can be made the active one. A failure did
 * not: making it active is EINVAL (net/sctp/auth.c:sctp_auth_set_active_key()).
 */
static bool sctp_key_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	struct sctp_authkeyid id = {
		.scact_assoc_id = SCTP_FUTURE_ASSOC,
		.scact_keynumber = SCTP_KEY_ID,
	};
	int err = 0;

	if (setsockopt(c->fd, SOL_SCTP, SCTP_AUTH_ACTIVE_KEY, &id, sizeof(id)))
		err = errno;

	if (err == (ret < 0 ? EINVAL : 0))
		return true;
	snprintf(why, size, "making key %d active: %s, expected %s",
		 SCTP_KEY_ID, err ? strerror(err) : "done",
		 ret < 0 ? strerror(EINVAL) : "done");
	return false;
}

/* The listener's addresses, as SCTP_GET_LOCAL_ADDRS reads them. */
static struct {
	struct sctp_getaddrs ga;
	struct sockaddr_in sin[4];
} laddrs;

/* No addresses yet: a check of a lying success finds none. */
static void laddrs_prepare(struct __test_metadata *_metadata, void *arg)
{
	memset(&laddrs, 0, sizeof(laddrs));
}

static int laddrs_action(void *arg)
{
	struct sock_ctx *c = arg;
	socklen_t len = sizeof(laddrs);

	if (getsockopt(c->lst, SOL_SCTP, SCTP_GET_LOCAL_ADDRS, &laddrs, &len))
		return -errno;
	return 0;
}

/* A success read the one address the listener is bound to. */
static bool laddrs_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	struct sockaddr_in *sin = &laddrs.sin[0];

	if (ret < 0)
		return true;
	if (laddrs.ga.addr_num == 1 && sin->sin_family == AF_INET &&
	    sin->sin_port == c->lst_addr.sin_port &&
	    sin->sin_addr.s_addr == c->lst_addr.sin_addr.s_addr)
		return true;
	snprintf(why, size, "%u addresses, the first %s:%u, expected %s:%u",
		 laddrs.ga.addr_num, inet_ntoa(sin->sin_addr),
		 ntohs(sin->sin_port), "127.0.0.1",
		 ntohs(c->lst_addr.sin_port));
	return false;
}

/* An association whose stream 0 has carried a message (it has its ext). */
static void sched_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;
	char why[256];

	sctp_send_prepare(_metadata, arg);
	ASSERT_TRUE(carries(c, c->peer, why, sizeof(why)))
	{
		TH_LOG("%s", why);
	}
}

/* The scheduler of the association of @fd, or -errno. */
static int sched_of(int fd)
{
	struct sctp_assoc_value av = {};
	socklen_t len = sizeof(av);

	if (getsockopt(fd, SOL_SCTP, SCTP_STREAM_SCHEDULER, &av, &len))
		return -errno;
	return av.assoc_value;
}

static int sched_action(void *arg)
{
	struct sock_ctx *c = arg;
	struct sctp_assoc_value av = { .assoc_value = SCTP_SS_PRIO };

	if (setsockopt(c->fd, SOL_SCTP, SCTP_STREAM_SCHEDULER, &av, sizeof(av)))
		return -errno;
	return 0;
}

/*
 * A success made the priority scheduler the association's; a failure left
 * first-come first-served (net/sctp/stream_sched.c:190). Either way the
 * association carries a message.
 */
static bool sched_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int want = ret < 0 ? SCTP_SS_FCFS : SCTP_SS_PRIO;
	int now = sched_of(c->fd);

	if (now != want) {
		snprintf(why, size, "the scheduler is %d, expected %d", now,
			 want);
		return false;
	}
	return carries(c, c->peer, why, size);
}

/*
 * Whether a notification of @type (a stream reset's: with @flags) comes on
 * @fd within @ms: 1, 0 (nothing to read), or -errno (-EPROTO: data, or
 * another notification).
 */
static int notified(int fd, int type, int flags, int ms)
{
	union {
		union sctp_notification sn;
		char buf[256];
	} u;
	struct iovec iov = { &u, sizeof(u) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t len;

	if (ms && !fd_readable(fd, ms))
		return 0;
	len = recvmsg(fd, &m, MSG_DONTWAIT);
	if (len < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (!(m.msg_flags & MSG_NOTIFICATION) || u.sn.sn_header.sn_type != type)
		return -EPROTO;
	if (type == SCTP_STREAM_RESET_EVENT &&
	    u.sn.sn_strreset_event.strreset_flags != flags)
		return -EPROTO;
	return 1;
}

static int events_action(void *arg)
{
	struct sock_ctx *c = arg;
	struct sctp_event_subscribe ev = { .sctp_sender_dry_event = 1 };

	if (setsockopt(c->fd, SOL_SCTP, SCTP_EVENTS, &ev, sizeof(ev)))
		return -errno;
	return 0;
}

/*
 * A success subscribed the socket to the sender-dry event, and the idle
 * association reported it at once. A failure did neither: no
 * subscription (SCTP_EVENTS reads it back), no event.
 */
static bool events_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	struct sctp_event_subscribe ev = {};
	socklen_t len = sizeof(ev);
	int want = ret >= 0;
	int event = notified(c->fd, SCTP_SENDER_DRY_EVENT, 0, 0);

	if (getsockopt(c->fd, SOL_SCTP, SCTP_EVENTS, &ev, &len)) {
		snprintf(why, size, "reading SCTP_EVENTS: %s", strerror(errno));
		return false;
	}
	if (ev.sctp_sender_dry_event == want && event == want)
		return true;
	snprintf(why, size, "sender-dry: subscribed %d, event %d%s%s, want %d",
		 ev.sctp_sender_dry_event, event, event < 0 ? ": " : "",
		 event < 0 ? strerror(-event) : "", want);
	return false;
}

/*
 * An association whose stream 0 has carried a message, that may reset its
 * streams, and whose accepted end takes the stream-reset events. Not the
 * client: the answer to its request is processed in the caller's task
 * (the socket's backlog, at release_sock()), and an event it cannot
 * allocate there is dropped (net/sctp/stream.c:sctp_process_strreset_resp(),
 * linux 6.12); the accepted end's comes from softirq context, unswept.
 */
static void reset_prepare(struct __test_metadata *_metadata, void *arg)
{
	const struct sctp_assoc_value av = {
		.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ,
	};
	const struct sctp_event_subscribe ev = { .sctp_stream_reset_event = 1 };
	struct sock_ctx *c = arg;

	sched_prepare(_metadata, arg);
	ASSERT_EQ(0, setsockopt(c->fd, SOL_SCTP, SCTP_ENABLE_STREAM_RESET, &av,
				sizeof(av)));
	ASSERT_EQ(0, setsockopt(c->peer, SOL_SCTP, SCTP_ENABLE_STREAM_RESET,
				&av, sizeof(av)));
	ASSERT_EQ(0,
		  setsockopt(c->peer, SOL_SCTP, SCTP_EVENTS, &ev, sizeof(ev)));
}

static int reset_action(void *arg)
{
	struct sock_ctx *c = arg;
	struct {
		struct sctp_reset_streams rs;
		__u16 list[1];
	} r = {
		.rs.srs_flags = SCTP_STREAM_RESET_OUTGOING,
		.rs.srs_number_streams = 1,
	};

	if (setsockopt(c->fd, SOL_SCTP, SCTP_RESET_STREAMS, &r, sizeof(r)))
		return -errno;
	return 0;
}

/*
 * A success sent the request: the accepted end reports the reset of its
 * incoming stream. A failure sent none: no event. Either way stream 0 is
 * open again and carries a message.
 */
static bool reset_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int want = ret >= 0;
	int event = notified(c->peer, SCTP_STREAM_RESET_EVENT,
			     SCTP_STREAM_RESET_INCOMING_SSN,
			     want ? ARRIVE_MS : 0);

	if (event != want) {
		snprintf(why, size, "stream-reset event: %d%s%s, expected %d",
			 event, event < 0 ? ": " : "",
			 event < 0 ? strerror(-event) : "", want);
		return false;
	}
	return carries(c, c->peer, why, size);
}

/*
 * A one-to-many socket (SCTP_ABORT is for that style only:
 * net/sctp/socket.c:1681) with an association to the listener, accepted.
 */
static void abort_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	c->fd = sctp_socket_of(SOCK_SEQPACKET);
	ASSERT_LE(0, c->fd);
	ASSERT_EQ(0, connect_action(c));
	ASSERT_TRUE(fd_readable(c->lst, ARRIVE_MS));
	c->peer = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	ASSERT_LE(0, c->peer);
}

/* A user abort of the association to the listener, with a reason. */
static int abort_action(void *arg)
{
	struct sock_ctx *c = arg;
	char cbuf[CMSG_SPACE(sizeof(struct sctp_sndinfo))] = {};
	struct iovec iov = { c->msg, 16 };
	struct msghdr m = {
		.msg_name = &c->lst_addr,
		.msg_namelen = sizeof(c->lst_addr),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = IPPROTO_SCTP;
	cm->cmsg_type = SCTP_SNDINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(struct sctp_sndinfo));
	((struct sctp_sndinfo *)CMSG_DATA(cm))->snd_flags = SCTP_ABORT;
	if (sendmsg(c->fd, &m, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

/*
 * Whether the accepted end's association is gone: its send fails, or the
 * ABORT that answers it (to an association the client no longer has)
 * resets it within ARRIVE_MS.
 */
static bool peer_aborted(struct sock_ctx *c)
{
	char byte;

	if (send(c->peer, c->msg, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
		return true;
	return fd_readable(c->peer, ARRIVE_MS) &&
	       recv(c->peer, &byte, 1, MSG_DONTWAIT) <= 0;
}

/*
 * A success ended the association at both ends: the client has none
 * (SCTP_GET_ASSOC_NUMBER), the accepted end's is reset. A failure ended
 * nothing: the client has its association, which carries a message from
 * the accepted end.
 */
static bool abort_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int nr = sockopt(c->fd, SOL_SCTP, SCTP_GET_ASSOC_NUMBER);
	int want = ret < 0 ? 1 : 0;

	if (nr != want) {
		snprintf(why, size,
			 "the client has %d associations, expected %d", nr,
			 want);
		return false;
	}
	if (ret < 0) {
		if (send(c->peer, c->msg, MSG_LEN,
			 MSG_DONTWAIT | MSG_NOSIGNAL) == MSG_LEN)
			return takes(c->fd, c->msg, MSG_LEN, "the client", why,
				     size);
		snprintf(why, size, "a message from the accepted end: %s",
			 strerror(errno));
		return false;
	}
	if (peer_aborted(c))
		return true;
	snprintf(why, size, "the accepted end's association is not reset");
	return false;
}

/*
 * A socket bound to loopback, to connect to itself: its INIT comes back
 * to it while connect() holds it, so the answering side's work (the
 * INIT-ACK and its cookie, the COOKIE-ECHO's association) is done in the
 * caller's task too, from the socket's backlog at release_sock().
 */
static void self_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;
	socklen_t len = sizeof(c->self_addr);

	sctp_prepare(_metadata, arg);
	c->self_addr = c->lst_addr;
	c->self_addr.sin_port = 0;
	ASSERT_EQ(0, bind(c->fd, (struct sockaddr *)&c->self_addr, len));
	ASSERT_EQ(0,
		  getsockname(c->fd, (struct sockaddr *)&c->self_addr, &len));
}

static int self_action(void *arg)
{
	struct sock_ctx *c = arg;

	if (connect(c->fd, (struct sockaddr *)&c->self_addr,
		    sizeof(c->self_addr)))
		return -errno;
	return 0;
}

/*
 * A success is an established association that carries a message from
 * the socket to itself; a failure left the socket unconnected.
 */
static bool self_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	struct sctp_status st = {};
	socklen_t len = sizeof(st);
	int err = 0;

	if (getsockopt(c->fd, SOL_SCTP, SCTP_STATUS, &st, &len))
		err = errno;
	if (ret < 0 && err != EINVAL) {
		snprintf(why, size, "an association after the failure: %s",
			 err ? strerror(err) : "its status reads");
		return false;
	}
	if (ret < 0)
		return true;
	if (err || st.sstat_state != SCTP_ESTABLISHED) {
		snprintf(why, size, "the association's state: %d (%s)",
			 st.sstat_state, err ? strerror(err) : "read");
		return false;
	}
	if (send(c->fd, c->msg, MSG_LEN, MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    MSG_LEN) {
		snprintf(why, size, "a message to itself: %s", strerror(errno));
		return false;
	}
	return takes(c->fd, c->msg, MSG_LEN, "the socket", why, size);
}

/* The ids of the one-to-many socket's associations, as it lists them. */
static struct {
	struct sctp_assoc_ids ids;
	sctp_assoc_t id[4];
} assoc_ids;

/* An association to list; none listed yet, for a lying success. */
static void ids_prepare(struct __test_metadata *_metadata, void *arg)
{
	memset(&assoc_ids, 0, sizeof(assoc_ids));
	abort_prepare(_metadata, arg);
}

static int ids_action(void *arg)
{
	struct sock_ctx *c = arg;
	socklen_t len = sizeof(assoc_ids);

	if (getsockopt(c->fd, SOL_SCTP, SCTP_GET_ASSOC_ID_LIST, &assoc_ids,
		       &len))
		return -errno;
	return 0;
}

/* A success listed one id, that of the association to the listener. */
static bool ids_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	struct sctp_status st = { .sstat_assoc_id = assoc_ids.id[0] };
	struct sockaddr_in *peer = (void *)&st.sstat_primary.spinfo_address;
	socklen_t len = sizeof(st);

	if (ret < 0)
		return true;
	if (assoc_ids.ids.gaids_number_of_ids == 1 &&
	    !getsockopt(c->fd, SOL_SCTP, SCTP_STATUS, &st, &len) &&
	    peer->sin_family == AF_INET &&
	    peer->sin_port == c->lst_addr.sin_port)
		return true;
	snprintf(why, size, "%u ids listed, the first %d: not the listener's",
		 assoc_ids.ids.gaids_number_of_ids, assoc_ids.id[0]);
	return false;
}

/*
 * A socket connected to itself: what it sends to itself is taken in from
 * its backlog at the end of send(), in the caller's task.
 */
static void self_send_prepare(struct __test_metadata *_metadata, void *arg)
{
	self_prepare(_metadata, arg);
	ASSERT_EQ(0, self_action(arg));
}

/*
 * As self_send_prepare(), with fragments of at most SELF_MAXSEG bytes: the
 * message is reassembled when taken in (net/sctp/ulpqueue.c).
 */
#define SELF_MAXSEG 500
static void self_frag_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sctp_assoc_value av = { .assoc_value = SELF_MAXSEG };
	struct sock_ctx *c = arg;

	self_send_prepare(_metadata, arg);
	ASSERT_EQ(0, setsockopt(c->fd, SOL_SCTP, SCTP_MAXSEG, &av, sizeof(av)));
}

/* A success delivers the message whole to the socket; a failure none. */
static bool self_send_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0)
		return quiet(c->fd, "after a failed send", why, size);
	return takes(c->fd, c->msg, MSG_LEN, "the socket", why, size);
}

/* ---- kTLS --------------------------------------------------------- */

/*
 * The TLS 1.2 AES-GCM-128 key of both directions (the AES key of SP
 * 800-38A), with record sequence number 0: what one end sends with TLS_TX
 * the other decrypts with TLS_RX.
 */
static const struct tls12_crypto_info_aes_gcm_128 tls_info = {
	.info.version = TLS_1_2_VERSION,
	.info.cipher_type = TLS_CIPHER_AES_GCM_128,
	.key = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7,
		 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c },
	.iv = { 1, 2, 3, 4, 5, 6, 7, 8 },
	.salt = { 9, 10, 11, 12 },
};

/* What a record of MSG_LEN bytes takes on the wire: header, nonce, tag. */
#define TLS_RECORD_LEN (5 + 8 + MSG_LEN + 16)

/* The TLS upper layer protocol on @fd: 0 or -errno. */
static int tls_ulp(int fd)
{
	return setsockopt(fd, SOL_TCP, TCP_ULP, "tls", sizeof("tls")) ? -errno :
									0;
}

/* The key of direction @opt (TLS_TX or TLS_RX) on @fd: 0 or -errno. */
static int tls_key(int fd, int opt)
{
	return setsockopt(fd, SOL_TLS, opt, &tls_info, sizeof(tls_info)) ?
		       -errno :
		       0;
}

/*
 * Whether @fd's key of direction @opt is tls_info (@set) or none: then
 * getsockopt() is EBUSY (net/tls/tls_main.c:467, linux 6.12).
 */
static bool tls_key_is(int fd, int opt, bool set, char *why, size_t size)
{
	struct tls12_crypto_info_aes_gcm_128 got = {};
	socklen_t len = sizeof(got);
	int err = getsockopt(fd, SOL_TLS, opt, &got, &len) ? errno : 0;

	if (set && !err && len == sizeof(got) &&
	    !memcmp(&got, &tls_info, sizeof(got)))
		return true;
	if (!set && err == EBUSY)
		return true;
	snprintf(why, size, "the %s key reads back %s%s, expected %s",
		 opt == TLS_TX ? "TLS_TX" : "TLS_RX", err ? "as " : "",
		 err ? strerror(err) : "set", set ? "the one set" : "EBUSY");
	return false;
}

/* Sends the message from @fd, whole: 0, or says why not in @why. */
static bool sends(int fd, char *msg, char *why, size_t size)
{
	ssize_t len = send(fd, msg, MSG_LEN, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (len == MSG_LEN)
		return true;
	snprintf(why, size, "sending %d bytes: %zd (%s)", MSG_LEN, len,
		 len < 0 ? strerror(errno) : "short");
	return false;
}

/*
 * Whether the message sent from @from arrives whole at @to, as it was
 * sent: in plain text, or decrypted by @to's TLS_RX.
 */
static bool carries_tls(struct sock_ctx *c, int from, int to, const char *what,
			char *why, size_t size)
{
	return sends(from, c->msg, why, size) &&
	       takes(to, c->msg, MSG_LEN, what, why, size);
}

/* A TCP connection over loopback: c->fd to the listener, c->peer. */
static void tcp_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	memset(c->buf, 0, sizeof(c->buf));
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, c->fd);
	ASSERT_EQ(0, connect(c->fd, (struct sockaddr *)&c->lst_addr,
			     sizeof(c->lst_addr)));
	ASSERT_TRUE(fd_readable(c->lst, ARRIVE_MS));
	c->peer = accept4(c->lst, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	ASSERT_LE(0, c->peer);
}

static int ulp_action(void *arg)
{
	struct sock_ctx *c = arg;

	return tls_ulp(c->fd);
}

/*
 * A success attached the TLS layer: TCP_ULP reads "tls", and TLS_TX can
 * be set. A failure attached none: TCP_ULP reads empty, SOL_TLS is
 * unknown (ENOPROTOOPT), and attaching again succeeds. Either way the
 * connection carries plain text as before.
 */
static bool ulp_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	const char *want = ret < 0 ? "" : "tls";
	char name[16] = "";
	socklen_t len = sizeof(name);
	int err;

	err = getsockopt(c->fd, SOL_TCP, TCP_ULP, name, &len) ? errno : 0;
	if (err || strcmp(name, want)) {
		snprintf(why, size,
			 "TCP_ULP reads \"%s\" (%s), expected \"%s\"", name,
			 err ? strerror(err) : "read", want);
		return false;
	}
	if (!carries_tls(c, c->fd, c->peer, "plain text to the peer", why,
			 size))
		return false;
	err = tls_key(c->fd, TLS_TX);
	if (ret < 0 && err != -ENOPROTOOPT) {
		snprintf(why, size, "TLS_TX without the layer: %s",
			 err ? strerror(-err) : "set");
		return false;
	}
	if (ret < 0)
		err = tls_ulp(c->fd);
	if (!err)
		return true;
	snprintf(why, size, "%s: %s", ret < 0 ? "attaching again" : "TLS_TX",
		 strerror(-err));
	return false;
}

/* A connection with the TLS layer on both ends, and no key yet. */
static void ulp_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	tcp_prepare(_metadata, arg);
	ASSERT_EQ(0, tls_ulp(c->fd));
	ASSERT_EQ(0, tls_ulp(c->peer));
}

static int tx_action(void *arg)
{
	struct sock_ctx *c = arg;

	return tls_key(c->fd, TLS_TX);
}

/*
 * A success set the key: it reads back. A failure set none: it reads back
 * as EBUSY, the socket still sends plain text, and setting the key again
 * succeeds. Then what the socket sends is a record that the peer, given
 * TLS_RX, decrypts to the message.
 */
static bool tx_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int err;

	if (!tls_key_is(c->fd, TLS_TX, ret >= 0, why, size))
		return false;
	if (ret < 0 && !carries_tls(c, c->fd, c->peer, "plain text to the peer",
				    why, size))
		return false;
	err = ret < 0 ? tls_key(c->fd, TLS_TX) : 0;
	if (!err)
		err = tls_key(c->peer, TLS_RX);
	if (err) {
		snprintf(why, size, "setting the keys after the call: %s",
			 strerror(-err));
		return false;
	}
	return carries_tls(c, c->fd, c->peer, "a record to the peer", why,
			   size);
}

/* The layer on both ends, the peer sending with the key. */
static void rx_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	ulp_prepare(_metadata, arg);
	ASSERT_EQ(0, tls_key(c->peer, TLS_TX));
}

static int rx_action(void *arg)
{
	struct sock_ctx *c = arg;

	return tls_key(c->fd, TLS_RX);
}

/*
 * A success set the key: it reads back. A failure set none: it reads back
 * as EBUSY, and setting it again succeeds. Then the peer's record arrives
 * decrypted.
 */
static bool rx_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int err;

	if (!tls_key_is(c->fd, TLS_RX, ret >= 0, why, size))
		return false;
	err = ret < 0 ? tls_key(c->fd, TLS_RX) : 0;
	if (err) {
		snprintf(why, size, "setting TLS_RX again: %s", strerror(-err));
		return false;
	}
	return carries_tls(c, c->peer, c->fd, "the peer's record", why, size);
}

/* The socket sends with the key, the peer decrypts with it. */
static void tls_send_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	ulp_prepare(_metadata, arg);
	ASSERT_EQ(0, tls_key(c->fd, TLS_TX));
	ASSERT_EQ(0, tls_key(c->peer, TLS_RX));
}

static int tls_send_action(void *arg)
{
	struct sock_ctx *c = arg;
	ssize_t len = send(c->fd, c->msg, MSG_LEN, MSG_DONTWAIT | MSG_NOSIGNAL);

	return len < 0 ? -errno : len;
}

/*
 * A success sent a record that the peer decrypts to the message; a short
 * count, one of what it counts. A failure sent nothing the peer can read.
 * Then the next record arrives whole: nothing half-sent is in the stream
 * before it, and both ends agree on the record sequence number.
 */
static bool tls_send_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0 &&
	    !quiet(c->peer, "the peer after a failed send", why, size))
		return false;
	if (ret >= 0 &&
	    !takes(c->peer, c->msg, ret, "the peer's record", why, size))
		return false;
	return carries_tls(c, c->fd, c->peer, "the next record", why, size);
}

/*
 * The socket decrypts with the key; the peer has sent it a record of the
 * message, which is there to read.
 */
static void tls_recv_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct sock_ctx *c = arg;

	rx_prepare(_metadata, arg);
	ASSERT_EQ(0, tls_key(c->fd, TLS_RX));
	ASSERT_EQ(MSG_LEN, send(c->peer, c->msg, MSG_LEN, MSG_DONTWAIT));
	ASSERT_TRUE(fd_readable(c->fd, ARRIVE_MS));
}

static int tls_recv_action(void *arg)
{
	struct sock_ctx *c = arg;
	ssize_t len = recv(c->fd, c->buf, MSG_LEN, MSG_DONTWAIT);

	return len < 0 ? -errno : len;
}

/*
 * A success read the message, decrypted; a short count, its start, and
 * the rest is there to read. A failure read nothing: the whole record is
 * still there, and decrypts. Then the connection carries the next record.
 */
static bool tls_recv_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int done = ret < 0 ? 0 : ret;

	if (memcmp(c->buf, c->msg, done)) {
		snprintf(why, size, "the %d bytes read differ from the message",
			 done);
		return false;
	}
	if (done < MSG_LEN && !takes(c->fd, c->msg + done, MSG_LEN - done,
				     "the record after the call", why, size))
		return false;
	if (done == MSG_LEN && !quiet(c->fd, "after the record", why, size))
		return false;
	return carries_tls(c, c->peer, c->fd, "the next record", why, size);
}

/* The record type of a handshake record (RFC 5246, 6.2.1). */
#define TLS_HANDSHAKE 22

/* A record of the handshake type, set with a control message. */
static int tls_type_action(void *arg)
{
	struct sock_ctx *c = arg;
	char cbuf[CMSG_SPACE(1)] = {};
	struct iovec iov = { c->msg, MSG_LEN };
	struct msghdr m = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	ssize_t len;

	cm->cmsg_level = SOL_TLS;
	cm->cmsg_type = TLS_SET_RECORD_TYPE;
	cm->cmsg_len = CMSG_LEN(1);
	*CMSG_DATA(cm) = TLS_HANDSHAKE;
	len = sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	return len < 0 ? -errno : len;
}

/*
 * Whether the peer takes a record of the handshake type holding the first
 * @len bytes of the message, within ARRIVE_MS; else says why.
 */
static bool takes_type(struct sock_ctx *c, int len, char *why, size_t size)
{
	char cbuf[CMSG_SPACE(1)] = {};
	struct iovec iov = { c->buf, sizeof(c->buf) };
	struct msghdr m = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t got = -1;
	int type = -1;

	errno = ETIMEDOUT;
	if (fd_readable(c->peer, ARRIVE_MS))
		got = recvmsg(c->peer, &m, MSG_DONTWAIT);
	cm = got < 0 ? NULL : CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_level == SOL_TLS &&
	    cm->cmsg_type == TLS_GET_RECORD_TYPE)
		type = *CMSG_DATA(cm);
	if (got == len && type == TLS_HANDSHAKE && !memcmp(c->buf, c->msg, len))
		return true;
	snprintf(why, size,
		 "the peer read %zd bytes (%s) of type %d, not %d of %d", got,
		 got < 0 ? strerror(errno) : "read", type, len, TLS_HANDSHAKE);
	return false;
}

/*
 * A success sent a handshake record that the peer decrypts to the message
 * (a short count, to what it counts), with its type; a failure sent
 * nothing the peer can read. Then the next record, of data, arrives
 * whole.
 */
static bool tls_type_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0 &&
	    !quiet(c->peer, "the peer after a failed send", why, size))
		return false;
	if (ret >= 0 && !takes_type(c, ret, why, size))
		return false;
	return carries_tls(c, c->fd, c->peer, "the next record", why, size);
}

/* ---- XFRM --------------------------------------------------------- */

/* The SPI of the variants' state, and of the one NEWSA adds beside it. */
#define XFRM_SPI 0x1000

/* The byte limit UPDSA sets, where the state had none. */
#define XFRM_LIMIT 1048576

/* What the states' algorithms need, for a kernel without them. */
#define XFRM_ALGS \
	"CONFIG_CRYPTO_GCM, CONFIG_CRYPTO_SEQIV, CONFIG_CRYPTO_HMAC and CONFIG_CRYPTO_SHA256"

/* The UDP port the policy's selector is for: no traffic goes to it. */
#define XFRM_PORT 4242

/* A request of NETLINK_XFRM, with room for its attributes. */
struct xfrm_req {
	struct nlmsghdr nh;
	union {
		struct xfrm_usersa_info sa;
		struct xfrm_usersa_id id;
		struct xfrm_userpolicy_info pol;
		struct xfrm_userpolicy_id pid;
		struct xfrm_usersa_flush flush;
	};
	char attrs[512];
};

/* Appends the attribute @type of @len bytes of @val to @r. */
static void *xfrm_attr(struct xfrm_req *r, unsigned short type, const void *val,
		       size_t len)
{
	struct rtattr *rta = (void *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memset(RTA_DATA(rta), 0, len);
	if (val)
		memcpy(RTA_DATA(rta), val, len);
	r->nh.nlmsg_len =
		NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return RTA_DATA(rta);
}

/* A request of @type with a header of @len bytes, acknowledged. */
static void xfrm_head(struct xfrm_req *r, int type, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->nh.nlmsg_len = NLMSG_LENGTH(len);
}

/* Records @nh, a state or a policy, in c->seen; counts it if ours. */
static void xfrm_record(struct sock_ctx *c, struct nlmsghdr *nh)
{
	struct xfrm_seen *s = &c->seen;
	struct rtattr *rta;
	int len;

	if (nh->nlmsg_type == XFRM_MSG_NEWSA) {
		struct xfrm_usersa_info *sa = NLMSG_DATA(nh);

		if (ntohl(sa->id.spi) != XFRM_SPI)
			return;
		s->spi = ntohl(sa->id.spi);
		s->limit = sa->lft.hard_byte_limit;
		rta = (void *)((char *)sa + NLMSG_ALIGN(sizeof(*sa)));
		len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*sa));
	} else if (nh->nlmsg_type == XFRM_MSG_NEWPOLICY) {
		struct xfrm_userpolicy_info *pol = NLMSG_DATA(nh);

		if (ntohs(pol->sel.dport) != XFRM_PORT)
			return;
		s->spi = XFRM_PORT;
		rta = (void *)((char *)pol + NLMSG_ALIGN(sizeof(*pol)));
		len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*pol));
	} else {
		return;
	}
	s->nr++;
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		struct xfrm_user_tmpl *t = RTA_DATA(rta);

		/* The cipher's name leads xfrm_algo and xfrm_algo_aead. */
		if (rta->rta_type == XFRMA_ALG_AEAD ||
		    rta->rta_type == XFRMA_ALG_CRYPT)
			snprintf(s->alg, sizeof(s->alg), "%.63s",
				 (char *)RTA_DATA(rta));
		if (rta->rta_type == XFRMA_TMPL &&
		    RTA_PAYLOAD(rta) >= sizeof(*t) &&
		    t->id.proto == IPPROTO_ESP)
			s->tmpl = true;
	}
}

/*
 * Sends @r with a new sequence number and reads its replies within
 * ARRIVE_MS each, recording each state or policy in c->seen: returns the
 * acknowledgment's error, 0 at the end of a dump or at the reply to a get,
 * or -errno. A read that fails with ENOBUFS means a reply could not be
 * allocated and was dropped (net/netlink/af_netlink.c:netlink_ack() sets
 * sk_err): c->lost says so.
 */
static int xfrm_ask(struct sock_ctx *c, struct xfrm_req *r)
{
	memset(&c->seen, 0, sizeof(c->seen));
	c->lost = false;
	r->nh.nlmsg_seq = ++c->seq;
	if (send(c->nl, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *nh;
		ssize_t len;

		if (!fd_readable(c->nl, ARRIVE_MS))
			return -ETIME;
		len = recv(c->nl, c->nlbuf, sizeof(c->nlbuf), MSG_DONTWAIT);
		if (len < 0) {
			c->lost = errno == ENOBUFS;
			return -errno;
		}
		for (nh = (void *)c->nlbuf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != c->seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nh))
					->error;
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			xfrm_record(c, nh);
			if (!(r->nh.nlmsg_flags & NLM_F_DUMP))
				return 0;
		}
	}
}

/*
 * An ESP state from and to 127.0.0.1, transport mode, SPI XFRM_SPI + @off,
 * with the byte limit @limit: of rfc4106(gcm(aes)) (c->aead) or of
 * cbc(aes) with hmac(sha256) truncated to 128 bits. @type: XFRM_MSG_NEWSA
 * or XFRM_MSG_UPDSA.
 */
static int xfrm_sa(struct sock_ctx *c, int type, int off, __u64 limit)
{
	struct xfrm_req r;
	struct xfrm_usersa_info *sa = &r.sa;

	xfrm_head(&r, type, sizeof(*sa));
	sa->sel.family = AF_INET;
	sa->id.daddr.a4 = htonl(INADDR_LOOPBACK);
	sa->id.spi = htonl(XFRM_SPI + off);
	sa->id.proto = IPPROTO_ESP;
	sa->saddr.a4 = htonl(INADDR_LOOPBACK);
	sa->family = AF_INET;
	sa->mode = XFRM_MODE_TRANSPORT;
	sa->reqid = 1;
	sa->replay_window = 32;
	sa->lft.soft_byte_limit = XFRM_INF;
	sa->lft.hard_byte_limit = limit;
	sa->lft.soft_packet_limit = XFRM_INF;
	sa->lft.hard_packet_limit = XFRM_INF;
	if (c->aead) {
		struct xfrm_algo_aead *a =
			xfrm_attr(&r, XFRMA_ALG_AEAD, NULL, sizeof(*a) + 20);

		snprintf(a->alg_name, sizeof(a->alg_name), "rfc4106(gcm(aes))");
		a->alg_key_len = 20 * 8;
		a->alg_icv_len = 128;
		memcpy(a->alg_key, aes_key, 16);
	} else {
		struct xfrm_algo *e =
			xfrm_attr(&r, XFRMA_ALG_CRYPT, NULL, sizeof(*e) + 16);
		struct xfrm_algo_auth *a = xfrm_attr(&r, XFRMA_ALG_AUTH_TRUNC,
						     NULL, sizeof(*a) + 32);

		snprintf(e->alg_name, sizeof(e->alg_name), "cbc(aes)");
		e->alg_key_len = 16 * 8;
		memcpy(e->alg_key, aes_key, 16);
		snprintf(a->alg_name, sizeof(a->alg_name), "hmac(sha256)");
		a->alg_key_len = 32 * 8;
		a->alg_trunc_len = 128;
		memcpy(a->alg_key, sha256_abc, 32);
	}
	return xfrm_ask(c, &r);
}

/* The name of the cipher of the variant's state. */
static const char *xfrm_alg(struct sock_ctx *c)
{
	return c->aead ? "rfc4106(gcm(aes))" : "cbc(aes)";
}

/* The state of SPI XFRM_SPI asked for (XFRM_MSG_GETSA), or deleted. */
static int xfrm_sa_id(struct sock_ctx *c, int type)
{
	struct xfrm_req r;

	xfrm_head(&r, type, sizeof(r.id));
	if (type == XFRM_MSG_GETSA)
		r.nh.nlmsg_flags = NLM_F_REQUEST;
	r.id.daddr.a4 = htonl(INADDR_LOOPBACK);
	r.id.spi = htonl(XFRM_SPI);
	r.id.family = AF_INET;
	r.id.proto = IPPROTO_ESP;
	return xfrm_ask(c, &r);
}

/* Every state listed (XFRM_MSG_GETSA with NLM_F_DUMP, no header). */
static int xfrm_dump(struct sock_ctx *c)
{
	struct xfrm_req r;

	xfrm_head(&r, XFRM_MSG_GETSA, 0);
	r.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	return xfrm_ask(c, &r);
}

/*
 * The selector of the policy: UDP from and to 127.0.0.1, to port
 * XFRM_PORT.
 */
static void xfrm_sel(struct xfrm_selector *sel)
{
	sel->daddr.a4 = htonl(INADDR_LOOPBACK);
	sel->saddr.a4 = htonl(INADDR_LOOPBACK);
	sel->dport = htons(XFRM_PORT);
	sel->dport_mask = 0xffff;
	sel->family = AF_INET;
	sel->prefixlen_d = 32;
	sel->prefixlen_s = 32;
	sel->proto = IPPROTO_UDP;
}

/* An outbound policy that requires ESP in transport mode (NEWPOLICY). */
static int xfrm_policy(struct sock_ctx *c)
{
	struct xfrm_req r;
	struct xfrm_userpolicy_info *pol = &r.pol;
	struct xfrm_user_tmpl *t;

	xfrm_head(&r, XFRM_MSG_NEWPOLICY, sizeof(*pol));
	xfrm_sel(&pol->sel);
	pol->lft.soft_byte_limit = XFRM_INF;
	pol->lft.hard_byte_limit = XFRM_INF;
	pol->lft.soft_packet_limit = XFRM_INF;
	pol->lft.hard_packet_limit = XFRM_INF;
	pol->priority = 1;
	pol->dir = XFRM_POLICY_OUT;
	pol->action = XFRM_POLICY_ALLOW;
	t = xfrm_attr(&r, XFRMA_TMPL, NULL, sizeof(*t));
	t->id.daddr.a4 = htonl(INADDR_LOOPBACK);
	t->id.proto = IPPROTO_ESP;
	t->family = AF_INET;
	t->saddr.a4 = htonl(INADDR_LOOPBACK);
	t->reqid = 1;
	t->mode = XFRM_MODE_TRANSPORT;
	t->aalgos = ~0U;
	t->ealgos = ~0U;
	t->calgos = ~0U;
	return xfrm_ask(c, &r);
}

/* The policy asked for (XFRM_MSG_GETPOLICY). */
static int xfrm_get_policy(struct sock_ctx *c)
{
	struct xfrm_req r;

	xfrm_head(&r, XFRM_MSG_GETPOLICY, sizeof(r.pid));
	r.nh.nlmsg_flags = NLM_F_REQUEST;
	xfrm_sel(&r.pid.sel);
	r.pid.dir = XFRM_POLICY_OUT;
	return xfrm_ask(c, &r);
}

/* Removes every ESP state and every policy: 0 or -errno. */
static int xfrm_flush(struct sock_ctx *c)
{
	struct xfrm_req r;
	int err;

	xfrm_head(&r, XFRM_MSG_FLUSHSA, sizeof(r.flush));
	r.flush.proto = IPPROTO_ESP;
	err = xfrm_ask(c, &r);
	if (err)
		return err;
	xfrm_head(&r, XFRM_MSG_FLUSHPOLICY, 0);
	return xfrm_ask(c, &r);
}

/*
 * A request whose acknowledgment was dropped may have been carried out:
 * as a client must, ask (the fault has fired, nothing else fails), and
 * take what is there as the outcome: a state of SPI XFRM_SPI with @limit
 * (@present), or none.
 */
static int xfrm_resolve(struct sock_ctx *c, int ret, bool present, __u64 limit)
{
	int err;

	if (!c->lost)
		return ret;
	err = xfrm_sa_id(c, XFRM_MSG_GETSA);
	if (present)
		return !err && c->seen.nr == 1 && c->seen.limit == limit ? 0 :
									   ret;
	return err == -ESRCH ? 0 : ret;
}

static int newsa_action(void *arg)
{
	struct sock_ctx *c = arg;

	return xfrm_resolve(c, xfrm_sa(c, XFRM_MSG_NEWSA, 0, XFRM_INF), true,
			    XFRM_INF);
}

/*
 * Whether GETSA finds the state of SPI XFRM_SPI (@present) with its
 * cipher and the byte limit @limit, or no state; else says why.
 */
static bool sa_is(struct sock_ctx *c, bool present, __u64 limit, char *why,
		  size_t size)
{
	const char *alg = xfrm_alg(c);
	int err = xfrm_sa_id(c, XFRM_MSG_GETSA);

	if (!present && err == -ESRCH)
		return true;
	if (present && !err && c->seen.nr == 1 && !strcmp(c->seen.alg, alg) &&
	    c->seen.limit == limit)
		return true;
	snprintf(why, size,
		 "GETSA: %s, %d states of \"%s\", byte limit %llu: %s",
		 strerror(-err), c->seen.nr, c->seen.alg,
		 (unsigned long long)c->seen.limit,
		 present ? "want one, the one set" : "want none (ESRCH)");
	return false;
}

/*
 * A success added the state: GETSA finds it, with its cipher. A failure
 * added none, and adding it again succeeds.
 */
static bool newsa_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int err;

	if (!sa_is(c, ret >= 0, XFRM_INF, why, size))
		return false;
	if (ret >= 0)
		return true;
	err = xfrm_sa(c, XFRM_MSG_NEWSA, 0, XFRM_INF);
	if (!err)
		return sa_is(c, true, XFRM_INF, why, size);
	snprintf(why, size, "adding the state again: %s", strerror(-err));
	return false;
}

/* Removes what the point added: every state and policy. */
static void xfrm_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	EXPECT_EQ(0, xfrm_flush(arg));
}

/* The state of SPI XFRM_SPI, with no byte limit. */
static void sa_prepare(struct __test_metadata *_metadata, void *arg)
{
	ASSERT_EQ(0, xfrm_sa(arg, XFRM_MSG_NEWSA, 0, XFRM_INF));
}

static int updsa_action(void *arg)
{
	struct sock_ctx *c = arg;

	return xfrm_resolve(c, xfrm_sa(c, XFRM_MSG_UPDSA, 0, XFRM_LIMIT), true,
			    XFRM_LIMIT);
}

/*
 * A success gave the state the byte limit; a failure left it as it was,
 * without one (not removed), and the update succeeds again.
 */
static bool updsa_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int err;

	if (!sa_is(c, true, ret < 0 ? XFRM_INF : XFRM_LIMIT, why, size))
		return false;
	if (ret >= 0)
		return true;
	err = xfrm_sa(c, XFRM_MSG_UPDSA, 0, XFRM_LIMIT);
	if (!err)
		return sa_is(c, true, XFRM_LIMIT, why, size);
	snprintf(why, size, "updating the state again: %s", strerror(-err));
	return false;
}

static int delsa_action(void *arg)
{
	struct sock_ctx *c = arg;

	return xfrm_resolve(c, xfrm_sa_id(c, XFRM_MSG_DELSA), false, 0);
}

/*
 * A success removed the state; a failure left it as it was, and removing
 * it again succeeds.
 */
static bool delsa_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int err;

	if (!sa_is(c, ret < 0, XFRM_INF, why, size))
		return false;
	if (ret >= 0)
		return true;
	err = xfrm_sa_id(c, XFRM_MSG_DELSA);
	if (!err)
		return sa_is(c, false, 0, why, size);
	snprintf(why, size, "removing the state again: %s", strerror(-err));
	return false;
}

/* The state, and another beside it: a dump of two. */
static void dump_prepare(struct __test_metadata *_metadata, void *arg)
{
	sa_prepare(_metadata, arg);
	ASSERT_EQ(0, xfrm_sa(arg, XFRM_MSG_NEWSA, 1, XFRM_INF));
}

static int dump_action(void *arg)
{
	return xfrm_dump(arg);
}

/* A success listed the state of SPI XFRM_SPI, once, with its cipher. */
static bool dump_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;

	if (ret < 0 || (c->seen.nr == 1 && !strcmp(c->seen.alg, xfrm_alg(c))))
		return true;
	snprintf(why, size, "the dump listed %d states of SPI %#x (\"%s\")",
		 c->seen.nr, XFRM_SPI, c->seen.alg);
	return false;
}

/*
 * Whether GETPOLICY finds the policy (@present), with its ESP template,
 * or none; else says why.
 */
static bool policy_is(struct sock_ctx *c, bool present, char *why, size_t size)
{
	int err = xfrm_get_policy(c);

	if (!present && err == -ENOENT)
		return true;
	if (present && !err && c->seen.nr == 1 && c->seen.tmpl)
		return true;
	snprintf(why, size,
		 "GETPOLICY: %s, %d policies (%s ESP template), expected %s",
		 strerror(-err), c->seen.nr, c->seen.tmpl ? "with" : "without",
		 present ? "one with its template" : "none (ENOENT)");
	return false;
}

static int policy_action(void *arg)
{
	struct sock_ctx *c = arg;
	int ret = xfrm_policy(c);

	if (!c->lost)
		return ret;
	return xfrm_get_policy(c) == 0 && c->seen.nr == 1 ? 0 : ret;
}

/*
 * A success added the policy: GETPOLICY finds it, with its template. A
 * failure added none, and adding it again succeeds.
 */
static bool policy_check(void *arg, int ret, char *why, size_t size)
{
	struct sock_ctx *c = arg;
	int err;

	if (!policy_is(c, ret >= 0, why, size))
		return false;
	if (ret >= 0)
		return true;
	err = xfrm_policy(c);
	if (!err)
		return policy_is(c, true, why, size);
	snprintf(why, size, "adding the policy again: %s", strerror(-err));
	return false;
}

/* ---- the fixture -------------------------------------------------- */

/*
 * Closes what the point opened, and any association the listener still
 * holds (one a check did not take), so that each point starts afresh.
 */
static void sock_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct sock_ctx *c = arg;

	close_fd(&c->fd);
	close_fd(&c->peer);
	while (c->lst >= 0 &&
	       (c->peer = accept4(c->lst, NULL, NULL, SOCK_NONBLOCK)) >= 0)
		close_fd(&c->peer);
}

/* Closes the fd a call made, then what the point opened. */
static void fd_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	if (ret >= 0)
		EXPECT_EQ(0, close(ret));
	sock_cleanup(_metadata, arg, ret);
}

enum sock_kind { PACKET, HASH, CIPHER, SCTP, TLS, XFRM };

FIXTURE(sock)
{
	struct sock_ctx ctx;
};

FIXTURE_VARIANT(sock)
{
	const struct failnth_scenario *op;
	enum sock_kind kind;
	/* AF_PACKET: PACKET_VERSION and the ring's option. */
	int version, ring_opt;
	/* AF_PACKET: the length of the frames sent, if not FRAME_LEN. */
	int frame_len;
	/* SCTP: the listener has IP options, for its new sockets to copy. */
	bool ip_options;
	/* XFRM: the state is of rfc4106(gcm(aes)). */
	bool aead;
};

FAILNTH_VARIANT_MORE(sock, packet_socket, (.kind = PACKET),
		     .allowed = socket_errnos, .action = packet_socket_action,
		     .check = packet_socket_check, .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(sock, packet_rx_ring_v3,
		     (.kind = PACKET, .version = TPACKET_V3,
		      .ring_opt = PACKET_RX_RING),
		     .allowed = ring_errnos, .prepare = packet_prepare,
		     .action = ring_action, .check = ring_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, packet_rx_ring_v2,
		     (.kind = PACKET, .version = TPACKET_V2,
		      .ring_opt = PACKET_RX_RING),
		     .allowed = ring_errnos, .prepare = packet_prepare,
		     .action = ring_action, .check = ring_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, packet_tx_ring,
		     (.kind = PACKET, .version = TPACKET_V2,
		      .ring_opt = PACKET_TX_RING),
		     .allowed = ring_errnos, .prepare = packet_prepare,
		     .action = ring_action, .check = ring_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, packet_mr_promisc,
		     (.kind = PACKET, .version = TPACKET_V1),
		     .allowed = packet_opt_errnos, .prepare = packet_prepare,
		     .action = promisc_action, .check = promisc_check,
		     .cleanup = sock_cleanup, .settled = promisc_settled);

FAILNTH_VARIANT_MORE(sock, packet_fanout, (.kind = PACKET),
		     .allowed = packet_opt_errnos, .prepare = fanout_prepare,
		     .action = fanout_action, .check = fanout_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, packet_sendto, (.kind = PACKET),
		     .allowed = sendto_errnos, .full = FRAME_LEN,
		     .action = frame_action, .check = frame_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, packet_sendto_paged,
		     (.kind = PACKET, .frame_len = FRAME_PAGED),
		     .allowed = sendto_errnos, .full = FRAME_PAGED,
		     .action = frame_action, .check = frame_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_hash_bind, (.kind = HASH),
		     .allowed = alg_bind_errnos, .prepare = alg_prepare,
		     .action = hash_bind_action, .check = bind_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_hash_accept, (.kind = HASH),
		     .allowed = alg_accept_errnos, .action = accept_action,
		     .check = accept_check, .cleanup = accept_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_hash_send, (.kind = HASH), .allowed = alg_errnos,
		     .full = 3, .prepare = op_prepare,
		     .action = hash_send_action, .check = hash_send_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_hash_clone, (.kind = HASH),
		     .allowed = alg_accept_errnos, .prepare = hash_more_prepare,
		     .action = hash_clone_action, .check = hash_clone_check,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_cipher_bind, (.kind = CIPHER),
		     .allowed = alg_bind_errnos, .prepare = alg_prepare,
		     .action = cipher_bind_action, .check = bind_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_cipher_setkey, (.kind = CIPHER),
		     .allowed = alg_errnos, .prepare = cipher_prepare,
		     .action = key_action, .check = key_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_cipher_accept, (.kind = CIPHER),
		     .allowed = alg_accept_errnos, .action = accept_action,
		     .check = accept_check, .cleanup = accept_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_cipher_encrypt, (.kind = CIPHER),
		     .allowed = alg_sendmsg_errnos, .full = 16,
		     .prepare = op_prepare, .action = encrypt_action,
		     .check = encrypt_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, alg_cipher_recv, (.kind = CIPHER),
		     .allowed = alg_errnos, .full = 16,
		     .prepare = cipher_recv_prepare, .action = recv_action,
		     .check = cipher_recv_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_socket, (.kind = SCTP),
		     .allowed = socket_errnos, .action = sctp_socket_action,
		     .check = sctp_socket_check, .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_connect, (.kind = SCTP),
		     .allowed = sctp_connect_errnos, .prepare = sctp_prepare,
		     .action = connect_action, .check = connect_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_accept, (.kind = SCTP),
		     .allowed = sctp_accept_errnos,
		     .prepare = sctp_accept_prepare,
		     .action = sctp_accept_action, .check = sctp_accept_check,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_accept_ip_options,
		     (.kind = SCTP, .ip_options = true),
		     .allowed = sctp_accept_errnos,
		     .prepare = sctp_accept_prepare,
		     .action = sctp_accept_action, .check = ipopt_check,
		     .cleanup = fd_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_send, (.kind = SCTP),
		     .allowed = sctp_send_errnos, .full = MSG_LEN,
		     .prepare = sctp_send_prepare, .action = sctp_send_action,
		     .check = sctp_send_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_auth_key, (.kind = SCTP),
		     .allowed = sctp_opt_errnos, .prepare = sctp_prepare,
		     .action = sctp_key_action, .check = sctp_key_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_get_local_addrs, (.kind = SCTP),
		     .allowed = sctp_opt_errnos,
		     .success_unseen = "a query changes nothing",
		     .prepare = laddrs_prepare, .action = laddrs_action,
		     .check = laddrs_check);

FAILNTH_VARIANT_MORE(sock, sctp_stream_scheduler, (.kind = SCTP),
		     .allowed = sctp_opt_errnos, .prepare = sched_prepare,
		     .action = sched_action, .check = sched_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_events_dry, (.kind = SCTP),
		     .allowed = sctp_opt_errnos, .prepare = sctp_send_prepare,
		     .action = events_action, .check = events_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_reset_streams, (.kind = SCTP),
		     .allowed = sctp_opt_errnos, .prepare = reset_prepare,
		     .action = reset_action, .check = reset_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_sendmsg_abort, (.kind = SCTP),
		     .allowed = sctp_opt_errnos, .prepare = abort_prepare,
		     .action = abort_action, .check = abort_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_connect_self, (.kind = SCTP),
		     .allowed = sctp_connect_errnos, .prepare = self_prepare,
		     .action = self_action, .check = self_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_get_assoc_id_list, (.kind = SCTP),
		     .allowed = sctp_opt_errnos,
		     .success_unseen = "a query changes nothing",
		     .prepare = ids_prepare, .action = ids_action,
		     .check = ids_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_send_self, (.kind = SCTP),
		     .allowed = sctp_send_errnos, .full = MSG_LEN,
		     .prepare = self_send_prepare, .action = sctp_send_action,
		     .check = self_send_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, sctp_send_self_fragments, (.kind = SCTP),
		     .allowed = sctp_send_errnos, .full = MSG_LEN,
		     .prepare = self_frag_prepare, .action = sctp_send_action,
		     .check = self_send_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, tls_ulp, (.kind = TLS), .allowed = ulp_errnos,
		     .prepare = tcp_prepare, .action = ulp_action,
		     .check = ulp_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, tls_tx, (.kind = TLS), .allowed = tls_key_errnos,
		     .prepare = ulp_prepare, .action = tx_action,
		     .check = tx_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, tls_rx, (.kind = TLS), .allowed = tls_key_errnos,
		     .prepare = rx_prepare, .action = rx_action,
		     .check = rx_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, tls_send, (.kind = TLS), .allowed = tls_send_errnos,
		     .full = MSG_LEN, .prepare = tls_send_prepare,
		     .action = tls_send_action, .check = tls_send_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, tls_sendmsg_record_type, (.kind = TLS),
		     .allowed = tls_send_errnos, .full = MSG_LEN,
		     .prepare = tls_send_prepare, .action = tls_type_action,
		     .check = tls_type_check, .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, tls_recv, (.kind = TLS), .allowed = tls_recv_errnos,
		     .full = MSG_LEN, .prepare = tls_recv_prepare,
		     .action = tls_recv_action, .check = tls_recv_check,
		     .cleanup = sock_cleanup);

FAILNTH_VARIANT_MORE(sock, xfrm_newsa_gcm, (.kind = XFRM, .aead = true),
		     .allowed = xfrm_errnos, .action = newsa_action,
		     .check = newsa_check, .cleanup = xfrm_cleanup);

FAILNTH_VARIANT_MORE(sock, xfrm_newsa_cbc_hmac, (.kind = XFRM),
		     .allowed = xfrm_errnos, .action = newsa_action,
		     .check = newsa_check, .cleanup = xfrm_cleanup);

FAILNTH_VARIANT_MORE(sock, xfrm_updsa, (.kind = XFRM, .aead = true),
		     .allowed = xfrm_errnos, .prepare = sa_prepare,
		     .action = updsa_action, .check = updsa_check,
		     .cleanup = xfrm_cleanup);

FAILNTH_VARIANT_MORE(sock, xfrm_delsa, (.kind = XFRM, .aead = true),
		     .allowed = xfrm_errnos, .prepare = sa_prepare,
		     .action = delsa_action, .check = delsa_check,
		     .cleanup = xfrm_cleanup);

FAILNTH_VARIANT_MORE(sock, xfrm_getsa_dump, (.kind = XFRM),
		     .allowed = xfrm_errnos,
		     .success_unseen = "a query changes nothing",
		     .prepare = dump_prepare, .action = dump_action,
		     .check = dump_check, .cleanup = xfrm_cleanup);

FAILNTH_VARIANT_MORE(sock, xfrm_newpolicy, (.kind = XFRM),
		     .allowed = xfrm_errnos, .action = policy_action,
		     .check = policy_check, .cleanup = xfrm_cleanup);

/* Sets IFF_UP on lo with the socket @fd: 0 or -errno. */
static int lo_up(int fd)
{
	struct ifreq ifr = { .ifr_name = "lo" };

	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(fd, SIOCSIFFLAGS, &ifr) ? -errno : 0;
}

/*
 * Why the variant's socket family is missing (socket() is EAFNOSUPPORT or,
 * for SCTP, EPROTONOSUPPORT; a missing algorithm is ENOENT), or NULL.
 */
static const char *sock_missing(struct sock_ctx *c, enum sock_kind kind)
{
	static const char *const need[] = {
		[PACKET] = "AF_PACKET missing: needs CONFIG_PACKET",
		[HASH] =
			"AF_ALG hash or sha256 missing: needs CONFIG_CRYPTO_USER_API_HASH and CONFIG_CRYPTO_SHA256",
		[CIPHER] =
			"AF_ALG skcipher or cbc(aes) missing: needs CONFIG_CRYPTO_USER_API_SKCIPHER, CONFIG_CRYPTO_CBC and CONFIG_CRYPTO_AES",
		[SCTP] = "SCTP missing: needs CONFIG_IP_SCTP",
		[TLS] = "kTLS missing: needs CONFIG_TLS",
		[XFRM] = "XFRM netlink missing: needs CONFIG_XFRM_USER",
	};
	int err;

	if (kind == PACKET) {
		c->snd = packet_socket(0);
		return c->snd < 0 && errno == EAFNOSUPPORT ? need[kind] : NULL;
	}
	if (kind == TLS) {
		c->lst = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		return NULL;
	}
	if (kind == XFRM) {
		c->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			       NETLINK_XFRM);
		return c->nl < 0 && errno == EPROTONOSUPPORT ? need[kind] :
							       NULL;
	}
	if (kind == SCTP) {
		c->lst = sctp_socket();
		return c->lst < 0 && errno == EPROTONOSUPPORT ? need[kind] :
								NULL;
	}
	c->alg = alg_socket();
	if (c->alg < 0)
		return errno == EAFNOSUPPORT ? need[kind] : NULL;
	err = alg_bind(c->alg, kind == CIPHER);
	return err == -ENOENT ? need[kind] : NULL;
}

/*
 * The TCP listener on loopback, non-blocking (cleanup takes what waits),
 * and a connection to it that takes the TLS layer: a kernel without it
 * has no "tls" ULP (ENOENT, net/ipv4/tcp_ulp.c:__tcp_ulp_find_autoload()).
 */
static void tls_setup(struct __test_metadata *_metadata, struct sock_ctx *c)
{
	socklen_t len = sizeof(c->lst_addr);
	int err;

	ASSERT_LE(0, c->lst);
	c->lst_addr.sin_family = AF_INET;
	c->lst_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(c->lst, (struct sockaddr *)&c->lst_addr, len));
	ASSERT_EQ(0,
		  getsockname(c->lst, (struct sockaddr *)&c->lst_addr, &len));
	ASSERT_EQ(0, listen(c->lst, 16));
	ASSERT_EQ(0, fcntl(c->lst, F_SETFL, O_NONBLOCK));
	tcp_prepare(_metadata, c);
	err = tls_ulp(c->fd);
	close_fd(&c->fd);
	close_fd(&c->peer);
	if (err == -ENOENT)
		SKIP(return, "kTLS missing: needs CONFIG_TLS");
	ASSERT_EQ(0, err);
}

/*
 * The NETLINK_XFRM socket, and a probe of the variant's state: without
 * ESP it is EPROTONOSUPPORT (net/xfrm/xfrm_state.c:__xfrm_init_state()),
 * without its algorithms ENOSYS (net/xfrm/xfrm_user.c:attach_aead()).
 */
static void xfrm_setup(struct __test_metadata *_metadata, struct sock_ctx *c)
{
	int err;

	ASSERT_LE(0, c->nl);
	err = xfrm_sa(c, XFRM_MSG_NEWSA, 0, XFRM_INF);
	if (err == -EPROTONOSUPPORT)
		SKIP(return, "ESP missing: needs CONFIG_INET_ESP");
	if (err == -ENOSYS || err == -ENOENT)
		SKIP(return, "%s missing: needs %s", xfrm_alg(c), XFRM_ALGS);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, xfrm_flush(c));
}

FIXTURE_SETUP(sock)
{
	const char *missing = failnth_missing();
	struct sock_ctx *c = &self->ctx;
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	socklen_t len = sizeof(c->lst_addr);
	char msg[128];
	size_t i;
	int fd;

	c->fd = -1;
	c->peer = -1;
	c->snd = -1;
	c->rcv = -1;
	c->alg = -1;
	c->lst = -1;
	c->nl = -1;
	c->version = variant->version;
	c->ring_opt = variant->ring_opt;
	c->cipher = variant->kind == CIPHER;
	c->aead = variant->aead;
	for (i = 0; i < MSG_LEN; i++)
		c->msg[i] = (char)(i * 7 + 3);
	/* All-zero addresses: lo's own, so lo takes it in (PACKET_HOST). */
	memcpy(c->frame + 2 * ETH_ALEN, "\x88\xb5", 2);
	for (i = ETH_HLEN; i < FRAME_PAGED; i++)
		c->frame[i] = (char)(i * 5 + 1);
	c->frame_len = variant->frame_len ?: FRAME_LEN;
	if (missing)
		SKIP(return, "%s", missing);
	if (unshare(CLONE_NEWNET)) {
		snprintf(msg, sizeof(msg), "unshare(CLONE_NEWNET): %s: %s",
			 strerror(errno), "needs CONFIG_NET_NS and root");
		SKIP(return, "%s", msg);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_up(fd));
	close(fd);
	/*
	 * Authentication and stream reconfiguration on (RFC 4895, 6525),
	 * for the keys, the AUTH chunk's and the stream reset's paths.
	 */
	if (variant->kind == SCTP &&
	    !access("/proc/sys/net/sctp/auth_enable", F_OK)) {
		ASSERT_EQ(0, write_file("/proc/sys/net/sctp/auth_enable", "1"));
		ASSERT_EQ(0,
			  write_file("/proc/sys/net/sctp/reconf_enable", "1"));
	}
	missing = sock_missing(c, variant->kind);
	if (missing)
		SKIP(return, "%s", missing);
	c->lo = if_nametoindex("lo");
	ASSERT_LT(0, c->lo);
	if (variant->kind == PACKET) {
		ASSERT_LE(0, c->snd);
		c->rcv = packet_socket(ETH_P_FAILNTH);
		ASSERT_LE(0, c->rcv);
		ll.sll_protocol = htons(ETH_P_FAILNTH);
		ll.sll_ifindex = c->lo;
		ASSERT_EQ(0, bind(c->rcv, (struct sockaddr *)&ll, sizeof(ll)));
		c->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			       NETLINK_ROUTE);
		ASSERT_LE(0, c->nl);
	} else if (variant->kind == TLS) {
		tls_setup(_metadata, c);
	} else if (variant->kind == XFRM) {
		xfrm_setup(_metadata, c);
	} else if (variant->kind == SCTP) {
		ASSERT_LE(0, c->lst);
		c->lst_addr.sin_family = AF_INET;
		c->lst_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ASSERT_EQ(0,
			  bind(c->lst, (struct sockaddr *)&c->lst_addr, len));
		ASSERT_EQ(0,
			  getsockname(c->lst, (struct sockaddr *)&c->lst_addr,
				      &len));
		ASSERT_EQ(0, listen(c->lst, 16));
		if (variant->ip_options)
			ASSERT_EQ(0, setsockopt(c->lst, IPPROTO_IP, IP_OPTIONS,
						ip_opts, sizeof(ip_opts)));
		/* Non-blocking: cleanup takes what waits, and no more. */
		ASSERT_EQ(0, fcntl(c->lst, F_SETFL, O_NONBLOCK));
	} else if (variant->kind == CIPHER) {
		ASSERT_EQ(0, setsockopt(c->alg, SOL_ALG, ALG_SET_KEY, aes_key,
					sizeof(aes_key)));
	}
}

FIXTURE_TEARDOWN(sock)
{
	struct sock_ctx *c = &self->ctx;

	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	close_fd(&c->fd);
	close_fd(&c->peer);
	close_fd(&c->snd);
	close_fd(&c->rcv);
	close_fd(&c->alg);
	close_fd(&c->lst);
	close_fd(&c->nl);
}

/*
 * The variant's call, with each of its small allocations (of both
 * allocators, or one, per mode) failed in turn: it succeeds whole, or
 * fails with an allowed errno and leaves no ring, membership, frame, key,
 * digest, association, event or message.
 */
FAILNTH_SWEEP_OP(sock, SWEEP_TIMEOUT, failnth_sweep)

TEST_HARNESS_MAIN
