/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6: one rte_fib6 (DIR-24-8 trie) per FIB table, beside IPv4's; the adjacencies and
 * load-balances are IPv4's (src/ip4/ip4.h), with an IPv6 rewrite; neighbour discovery. */
#ifndef SL_IP6_H
#define SL_IP6_H

#include "../ip4/route.h"
#include "../interface/iface.h"
#include "../runtime/cksum.h"
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_udp.h>

/* FIB table index t (shared with IPv4: sl_fib_ids) has this IPv6 FIB once an IPv6 address
 * or route went into it (table 0's is made at start-up), else NULL. */
extern struct rte_fib6 *sl_fib6s[SL_FIB_MAX];

/* ICMPv6 (RFC 4443, RFC 4861) */
#define SL_ICMP6_UNREACH 1
#define SL_ICMP6_TOO_BIG 2
#define SL_ICMP6_TIME_EXCEEDED 3
#define SL_ICMP6_PARAM 4
#define SL_ICMP6_ECHO 128
#define SL_ICMP6_ECHO_REPLY 129
#define SL_ICMP6_RS 133
#define SL_ICMP6_RA 134
#define SL_ICMP6_NS 135
#define SL_ICMP6_NA 136
#define SL_ICMP6_REDIRECT 137
#define SL_ICMP6_MLD_QUERY 130   /* RFC 2710 and 3810 */
#define SL_ICMP6_MLD_REPORT 131
#define SL_ICMP6_MLD_DONE 132
#define SL_ICMP6_MLD2_REPORT 143
/* destination unreachable codes */
#define SL_ICMP6_UNREACH_NOROUTE 0
#define SL_ICMP6_UNREACH_SCOPE 2
#define SL_ICMP6_UNREACH_PORT 4

#define SL_IP6_MIN_MTU 1280

static inline bool sl_ip6_is_mcast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static inline bool sl_ip6_is_ll(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static inline bool sl_ip6_is_zero(const uint8_t *a)
{
	static const uint8_t z[16];
	return !memcmp(a, z, 16);
}

static inline bool sl_ip6_is_loopback(const uint8_t *a)
{
	static const uint8_t lo[16] = {[15] = 1};
	return !memcmp(a, lo, 16);
}

/* Extension headers (RFC 8200 section 4) that sit between the IPv6 header and the upper
 * layer: hop-by-hop, routing, fragment, destination options. */
static inline bool sl_ip6_is_ext(uint8_t nh)
{
	return nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING || nh == IPPROTO_FRAGMENT ||
	       nh == IPPROTO_DSTOPTS;
}

/* The walk of a header chain: the upper-layer protocol and its offset from the IPv6 header,
 * or why it stopped. */
enum sl_ip6_walk_err {
	SL_IP6W_OK,
	SL_IP6W_TRUNC,    /* an extension header runs past the data */
	SL_IP6W_LONG,     /* more than SL_IP6_MAX_EXT extension headers */
	SL_IP6W_HBH_LATE, /* hop-by-hop not first (RFC 8200 4.1: parameter problem) */
};
#define SL_IP6_MAX_EXT 8
struct sl_ip6_walk {
	uint8_t proto;       /* the upper layer's next header value */
	uint8_t frag;        /* a fragment header was seen */
	uint16_t off;        /* its offset from the IPv6 header */
	uint16_t rh_off;     /* a routing header's offset (0: none) */
	uint16_t hbh_off;    /* the hop-by-hop header's (0: none; it is always at 40) */
	uint16_t nh_ptr;     /* offset of the next header field that names proto */
	uint16_t err_ptr;    /* offset of the field that stopped the walk */
};

/* The solicited-node group of address t (RFC 4291 2.7.1): ff02::1:ff and its low 24 bits. */
static inline void sl_ip6_sol_node(uint8_t out[16], const uint8_t t[16])
{
	static const uint8_t pre[13] = {0xff, 2, [11] = 1, [12] = 0xff};
	memcpy(out, pre, 13);
	memcpy(out + 13, t + 13, 3);
}

/* Walks the chain of the IPv6 header at p with len bytes of data (the first segment). */
static inline enum sl_ip6_walk_err sl_ip6_walk(const uint8_t *p, uint32_t len,
					       struct sl_ip6_walk *w)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	uint8_t nh = ip->proto;
	uint32_t off = sizeof(*ip);
	memset(w, 0, sizeof(*w));
	w->nh_ptr = 6;
	for (int k = 0; sl_ip6_is_ext(nh); k++) {
		if (k == SL_IP6_MAX_EXT) {
			w->err_ptr = (uint16_t)off;
			return SL_IP6W_LONG;
		}
		if (nh == IPPROTO_HOPOPTS && k != 0) {
			w->err_ptr = (uint16_t)(off);
			return SL_IP6W_HBH_LATE;
		}
		if (off + 8 > len) {
			w->err_ptr = (uint16_t)off;
			return SL_IP6W_TRUNC;
		}
		uint32_t hl = nh == IPPROTO_FRAGMENT ? 8 : (p[off + 1] + 1u) * 8;
		if (off + hl > len) {
			w->err_ptr = (uint16_t)(off + 1);
			return SL_IP6W_TRUNC;
		}
		if (nh == IPPROTO_FRAGMENT)
			w->frag = 1;
		else if (nh == IPPROTO_ROUTING)
			w->rh_off = (uint16_t)off;
		else if (nh == IPPROTO_HOPOPTS)
			w->hbh_off = (uint16_t)off;
		nh = p[off];
		w->nh_ptr = (uint16_t)off;
		off += hl;
	}
	w->proto = nh;
	w->off = (uint16_t)off;
	return SL_IP6W_OK;
}

/* The flow hash of an IPv6 packet computed: CRC32-C of the next header, the addresses and,
 * when the next header is a transport with ports (sl_l4_has_ports), the ports right after
 * the 40-byte header: the 5-tuple, as VPP's default (and Linux's L4 policy) takes it. With fl
 * (set ip6 flow-hash ... flowlabel at the default's fields), the flow label after the next
 * header. As IPv4's, a truncated transport header hashes the bytes after it, inside the
 * mbuf's data room. In C here; sl_flow_hash6_fields is the same on x86 in fewer
 * instructions (test_lb compares them). */
static __rte_always_inline uint32_t sl_flow_hash6_c(const struct rte_ipv6_hdr *ip, bool fl)
{
	const uint8_t *b = (const uint8_t *)ip;
	uint64_t h = ip->proto;
	uint32_t first, ports;
	uint64_t a0, a1, a2, a3; /* each in a register: an array would go through the stack */
	memcpy(&first, b, 4);
	memcpy(&a0, b + 8, 8);
	memcpy(&a1, b + 16, 8);
	memcpy(&a2, b + 24, 8);
	memcpy(&a3, b + 32, 8);
	const bool has = sl_l4_has_ports[h];
	if (fl) /* 8 bytes, the upper 4 zero: no zero-extension before the next step */
		h = sl_crc8(first & RTE_BE32(0x000fffff), h);
	h = sl_crc8(a0, h);
	h = sl_crc8(a1, h);
	h = sl_crc8(a2, h);
	h = sl_crc8(a3, h);
	if (has) {
		memcpy(&ports, b + 40, 4);
		h = sl_crc4(ports, h);
	}
	return (uint32_t)h;
}

/* sl_flow_hash6_c's value; on x86 one block of assembly. */
static __rte_always_inline uint32_t sl_flow_hash6_fields(const struct rte_ipv6_hdr *ip, bool fl)
{
#if defined(RTE_ARCH_X86) && defined(__SSE4_2__)
	const uint8_t *b = (const uint8_t *)ip;
	uint64_t h = ip->proto;
	/* In one block, the table's test before the first step: in C gcc copies the next
	 * header to another register for the test (1 instruction a packet); as a mask (an and
	 * with a table of 0 and all ones) it needs none, but ip6-lookup's ECMP took 0.3-0.9
	 * clocks more a packet in each of 5 pairs against the branch, the hash then waiting on
	 * the table's load. */
#define SL_FH6_STEPS                                                                              \
	"crc32q 8(%[b]), %[h]\n\t"                                                              \
	"crc32q 16(%[b]), %[h]\n\t"                                                             \
	"crc32q 24(%[b]), %[h]\n\t"                                                             \
	"crc32q 32(%[b]), %[h]\n\t"                                                             \
	"je 1f\n\t"                                                                             \
	"crc32l 40(%[b]), %k[h]\n"                                                               \
	"1:"
	/* two statements, not one with the label as an input: the label's step comes after the
	 * table's test, which indexes by h, and an input unused without fl would still be
	 * computed */
	if (fl) {
		uint32_t first;
		memcpy(&first, b, 4);
		/* 8 bytes, the upper 4 zero: no zero-extension before the next step */
		const uint64_t label = first & RTE_BE32(0x000fffff);
		asm("cmpb $0, (%[has], %[h])\n\t"
		    "crc32q %[l], %[h]\n\t" SL_FH6_STEPS
		    : [h] "+r"(h)
		    : [has] "r"(sl_l4_has_ports), [b] "r"(b), [l] "r"(label),
		      "m"(*(const uint8_t(*)[44])b)
		    : "cc");
	} else {
		asm("cmpb $0, (%[has], %[h])\n\t" SL_FH6_STEPS
		    : [h] "+r"(h)
		    : [has] "r"(sl_l4_has_ports), [b] "r"(b), "m"(*(const uint8_t(*)[44])b)
		    : "cc");
	}
#undef SL_FH6_STEPS
	return (uint32_t)h;
#else
	return sl_flow_hash6_c(ip, fl);
#endif
}

static inline uint32_t sl_flow_hash6_sw(const struct rte_ipv6_hdr *ip)
{
	return sl_flow_hash6_fields(ip, false);
}

/* As sl_flow_hash6_sw (the same value for SL_FH_DEFAULT6 and no seed), with the fields of
 * cfg (sl_fh6[t], set ip6 flow-hash) only, as sl_flow_hash4_cfg; the flow label, when cfg
 * has it, one step more after the next header. */
static inline uint32_t sl_flow_hash6_cfg(const struct rte_ipv6_hdr *ip, uint16_t cfg)
{
	const uint8_t *b = (const uint8_t *)ip;
	uint64_t s[2], d[2];
	uint32_t first, ports = 0;
	memcpy(&first, b, 4);
	memcpy(s, b + 8, 16);
	memcpy(d, b + 24, 16);
	const bool has = sl_l4_has_ports[ip->proto];
	if (has)
		memcpy(&ports, b + 40, 4);
	uint16_t sp = (uint16_t)ports, dp = (uint16_t)(ports >> 16);
	if (!(cfg & SL_FH_SRC))
		s[0] = s[1] = 0;
	if (!(cfg & SL_FH_DST))
		d[0] = d[1] = 0;
	sp = cfg & SL_FH_SPORT ? sp : 0;
	dp = cfg & SL_FH_DPORT ? dp : 0;
	/* reverse: the other direction's fields; symmetric: any order both directions agree on */
	bool swap = (cfg & SL_FH_REVERSE) != 0;
	if (cfg & SL_FH_SYMMETRIC)
		swap = d[0] < s[0] || (d[0] == s[0] && d[1] < s[1]);
	if (swap) {
		RTE_SWAP(s[0], d[0]);
		RTE_SWAP(s[1], d[1]);
	}
	if ((cfg & SL_FH_SYMMETRIC) ? dp < sp : (cfg & SL_FH_REVERSE) != 0)
		RTE_SWAP(sp, dp);
	uint64_t h = cfg & SL_FH_PROTO ? ip->proto : 0;
	if (cfg & SL_FH_FLOWLABEL)
		h = sl_crc8(first & RTE_BE32(0x000fffff), h);
	h = sl_crc8(s[0], h);
	h = sl_crc8(s[1], h);
	h = sl_crc8(d[0], h);
	h = sl_crc8(d[1], h);
	if (has && (cfg & (SL_FH_SPORT | SL_FH_DPORT)))
		h = sl_crc4(sp | (uint32_t)dp << 16, h);
	return sl_fh_seeded((uint32_t)h, cfg);
}

/* The port's RSS hash when it gave one, else computed. */
static inline uint32_t sl_flow_hash6(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip)
{
	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	return sl_flow_hash6_sw(ip);
}

/* The upper-layer checksum over the pseudo-header (RFC 8200 section 8.1), folded but not
 * complemented: 0xffff when a received packet's is right. */
static inline uint16_t sl_ip6_l4_sum(const struct rte_ipv6_hdr *ip, const void *l4, uint32_t len,
				     uint8_t proto)
{
	struct {
		uint32_t len, proto;
	} ph = {rte_cpu_to_be_32(len), rte_cpu_to_be_32(proto)};
	uint32_t s = sl_raw_cksum(ip->src_addr, 32);
	s += sl_raw_cksum(&ph, sizeof(ph));
	s += sl_raw_cksum(l4, len);
	return __rte_raw_cksum_reduce(s);
}

/* The source of what we send back to peer from interface f (echo replies to a group,
 * ICMPv6 errors): its link-local for a link-local peer or when it has no global address,
 * else its first global one. All zero: IPv6 is off on f. */
static inline const uint8_t *sl_ip6_src_of(const struct sl_iface *f, const uint8_t *peer)
{
	return sl_ip6_is_ll(peer) || f->naddr6 == 0 ? f->ip6_ll : f->addrs6[0];
}

/* A packet of ours to a link-local address leaves by the port it answers (the FIB cannot
 * choose among links): true when it goes to the main lcore for that (SL_PUNT_LL6). */
static inline bool sl_ip6_punt_ll(struct rte_mbuf *m, const struct rte_ipv6_hdr *ip)
{
	if (likely(!sl_ip6_is_ll(ip->dst_addr)))
		return false;
	sl_meta2(m)->punt = SL_PUNT_LL6;
	return true;
}

/* Neighbours (RFC 4861 section 7.3.2 states). */
enum sl_nd_state {
	SL_ND_INCOMPLETE,
	SL_ND_REACHABLE,
	SL_ND_STALE,
	SL_ND_DELAY,
	SL_ND_PROBE,
	SL_ND_STATIC,
	SL_ND_NB_STATES
};
extern const char *const sl_nd_state_names[SL_ND_NB_STATES];
/* RFC 4861 section 10 */
#define SL_ND_REACHABLE_MS 30000
#define SL_ND_DELAY_MS 5000
#define SL_ND_RETRANS_MS 1000
#define SL_ND_MAX_UCAST 3
#define SL_ND_MAX_MCAST 3
#define SL_ND_MAX 65536 /* neighbours; an IPv6 adjacency's nh names its neighbour's id */

struct sl_neigh6 {
	uint16_t port;
	uint8_t state;           /* enum sl_nd_state */
	uint8_t probes;          /* solicitations sent in this state */
	bool host_route;         /* /128 installed from this entry */
	bool router;             /* its last NA had the router flag */
	uint8_t ip[16];
	uint8_t mac[6];
	uint32_t id;
	uint32_t adj;
	uint32_t refcnt;         /* static routes through it */
	uint64_t created, since; /* when it entered its state */
	uint64_t last_req;
	uint8_t nheld;
	uint64_t held_since;
	struct rte_mbuf *held[SL_NEIGH_HOLD];
};

/* A static route's path. */
struct sl_rpath6 {
	uint8_t nh[16];
	uint16_t port;
	uint16_t weight;
};

struct sl_route6 {
	uint8_t pfx[16];
	uint8_t len;
	uint8_t present;         /* bit per source (SL_SRC_*, src/ip4/route.h) */
	uint16_t fib;
	uint16_t local_refs;     /* interfaces that have this /128 (link-locals may repeat) */
	uint8_t npaths;          /* static paths */
	uint32_t lb;             /* their load-balance when npaths > 1 */
	uint8_t *owner;          /* each bucket's path (npaths > 1) */
	struct sl_rpath6 *paths; /* npaths of them */
	uint32_t adj[SL_SRC_N];
};

/* Control plane (main lcore only). Return 0 or -errno. */
int sl_ip6_addr_add(uint16_t port, const uint8_t ip[16], uint8_t len);
int sl_ip6_addr_del(uint16_t port, const uint8_t ip[16], uint8_t len);
/* IPv6 on an interface: link-local from the MAC (EUI-64), or ll when given. */
int sl_ip6_enable(uint16_t port, const uint8_t *ll);
/* Main lcore, neighbour and router discovery, MLD: a frame out of port from src to dst (dmac,
 * or dst's multicast MAC when NULL), with hop_limit, a hop-by-hop header with the router
 * alert for MLD when alert, and its ICMPv6 message of icmp_len bytes zeroed at *icmp; NULL
 * when no buffer. sl_ip6_nd_frame: hop limit 255, no alert (ND). sl_ip6_nd_send checksums the
 * message and sends it. */
struct rte_mbuf *sl_ip6_ctl_frame(uint16_t port, const uint8_t *dmac, const uint8_t src[16],
				  const uint8_t dst[16], uint8_t hop_limit, bool alert,
				  uint16_t icmp_len, uint8_t **icmp);
struct rte_mbuf *sl_ip6_nd_frame(uint16_t port, const uint8_t *dmac, const uint8_t src[16],
				 const uint8_t dst[16], uint16_t icmp_len, uint8_t **icmp);
void sl_ip6_nd_send(struct rte_mbuf *m, uint16_t port);
/* out: in with the bits past len cleared (the prefix of length len) */
void sl_ip6_pfx_mask(uint8_t out[16], const uint8_t in[16], uint8_t len);
int sl_ip6_route_add_path(uint16_t fib, const uint8_t pfx[16], uint8_t len, const uint8_t nh[16],
			  int port, uint16_t weight);
int sl_ip6_route_del(uint16_t fib, const uint8_t pfx[16], uint8_t len);
/* A drop route (static, no paths: packets to it dropped and counted, no ICMPv6); -EEXIST
 * over a static route with paths, and a path over it. */
int sl_ip6_route_add_drop(uint16_t fib, const uint8_t pfx[16], uint8_t len);
int sl_ip6_route_del_path(uint16_t fib, const uint8_t pfx[16], uint8_t len, const uint8_t nh[16],
			  int port);
int sl_ip6_route_path_weight(uint16_t fib, const uint8_t pfx[16], uint8_t len,
			     const uint8_t nh[16], int port);
int sl_ip6_neigh_set(uint16_t port, const uint8_t ip[16], const uint8_t mac[6], bool is_static);
void sl_ip6_neigh_learn(uint16_t port, const uint8_t ip[16], const uint8_t mac[6]);
int sl_ip6_neigh_del(uint16_t port, const uint8_t ip[16]);
const struct sl_route6 *sl_ip6_rib_find(uint16_t fib, const uint8_t pfx[16], uint8_t len);
int sl_ip6_rib_walk(int (*fn)(const struct sl_route6 *r, void *arg), void *arg);
const struct sl_neigh6 *sl_ip6_neigh_find(uint16_t port, const uint8_t ip[16]);
const struct sl_neigh6 *sl_ip6_neigh_by_id(uint32_t id);
int sl_ip6_neigh_walk(int (*fn)(const struct sl_neigh6 *n, void *arg), void *arg);
uint32_t sl_ip6_route_count(void);
/* The table's FIB, made on first use (-ENOMEM), or -ENXIO for no table at that index. */
int sl_ip6_fib_get(uint16_t fib);
/* For IPv4's table code (one table index space for both families): table t goes, its IPv6
 * routes and FIB with it; an interface may move to another table only without IPv6
 * addresses, static neighbours or routes through it (busy: -EBUSY, why says which); move
 * drops what it learnt and takes its link-local into table fib. */
void sl_ip6_table_gone(uint16_t fib);
int sl_ip6_table_busy(uint16_t port, char *why, size_t len);
int sl_ip6_table_move(uint16_t port, uint16_t fib);
/* Frees the packets held for resolution (fuzzers, exit). */
void sl_ip6_held_flush(void);
/* Main lcore: as sl_ip4_send, an IPv6 packet it built (m's data: its header; m->port where a
 * drop is counted) by table fib's route to its destination, held while the next hop
 * resolves (leaving with its hop limit as it is now); a link-local destination is m->port's
 * neighbour, out of m->port. */
int sl_ip6_send(uint16_t fib, struct rte_mbuf *m);
/* Router advertisements on f every min to max seconds (RFC 4861 6.2.1: 4-1800, and 3 to
 * 0.75 max), the first at once (ip6 nd IFACE ra-interval; PPPoE sessions with IPv6CP). */
struct sl_iface;
void sl_ip6_ra_enable(struct sl_iface *f, uint16_t max, uint16_t min);

struct sl_trace_rec;
void sl_ip6_trace_fmt(char *buf, size_t len, const struct sl_trace_rec *r);
void sl_fmt_ip6(char *buf, const uint8_t ip[16]); /* 46 bytes */
/* From a constructor: UDP over IPv6 to one of our addresses and this port goes to node_name
 * (ip6-udp-local, after checking the checksum). */
void sl_udp6_port_register(uint16_t port, const char *node_name);
extern struct sl_dispatch sl_udp6_ports;
/* From a constructor: packets to one of our addresses whose upper layer (after any extension
 * headers) is proto go to node_name (ip6-local; ICMPv6 and UDP are its own). */
void sl_ip6_proto_register(uint8_t proto, const char *node_name);
extern struct sl_dispatch sl_ip6_protos;

/* For the nodes after ip6-local, whose walk found the chain sound: the upper layer's offset
 * in the IPv6 packet m begins with, and its protocol (*proto). */
static inline uint32_t sl_ip6_l4_off(const struct rte_mbuf *m, uint8_t *proto)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	*proto = p[6];
	if (likely(!sl_ip6_is_ext(*proto)))
		return sizeof(struct rte_ipv6_hdr);
	struct sl_ip6_walk wk;
	sl_ip6_walk(p, m->data_len, &wk);
	*proto = wk.proto;
	return wk.off;
}

/* A UDP datagram at off in IPv6 packet m (its header at p) as RFC 8200 8.1 has it: its
 * header and length within the packet, its checksum not zero and right (or a port's
 * offload said so). ip6-udp-local's checks, ip6-vxlan-bypass's too. */
enum sl_udp6_check { SL_UDP6_OK, SL_UDP6_SHORT, SL_UDP6_ZERO, SL_UDP6_BAD };
static inline enum sl_udp6_check sl_udp6_check(const struct rte_mbuf *m, const uint8_t *p,
					       uint32_t off)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	uint32_t room = sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(p + off);
	uint16_t ulen;
	if (unlikely(m->data_len < off + sizeof(*u) ||
		     (ulen = rte_be_to_cpu_16(u->dgram_len)) < sizeof(*u) || off + ulen > room ||
		     off + ulen > m->pkt_len))
		return SL_UDP6_SHORT;
	if (unlikely(u->dgram_cksum == 0))
		return SL_UDP6_ZERO;
	/* a port that checked the checksum says so (a NIC's offload; pg, memif and pcap do not) */
	uint64_t l4 = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return SL_UDP6_OK;
	if (unlikely(l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD))
		return SL_UDP6_BAD;
	/* the pseudo-header's and the datagram's sum: 0xffff when right */
	uint32_t s = sl_raw_cksum(ip->src_addr, 32) + rte_cpu_to_be_16(ulen) +
		     RTE_BE16(IPPROTO_UDP) + sl_raw_cksum_mbuf(m, off, ulen);
	return __rte_raw_cksum_reduce(s) == 0xffff ? SL_UDP6_OK : SL_UDP6_BAD;
}

#endif
