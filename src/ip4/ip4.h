/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv4: adjacencies read by workers, the FIB (rte_fib DIR-24-8 over rte_rib), routes, ARP. */
#ifndef SL_IP4_H
#define SL_IP4_H

#include "../sluice.h"
#include "../runtime/crc.h"
#include <rte_fib.h>
#include <rte_ip.h>

#define SL_ADJ_MAX (1u << 20)

enum sl_adj_type {
	SL_ADJ_DROP,        /* no route: ICMP unreachable */
	SL_ADJ_LOCAL,       /* one of our addresses */
	SL_ADJ_BLACKHOLE,   /* a drop route (ip route add P via drop): dropped, counted, no ICMP */
	SL_ADJ_GLEAN,       /* connected subnet: resolve the destination itself */
	SL_ADJ_INCOMPLETE,  /* next hop known, its MAC not yet */
	SL_ADJ_FORWARD,     /* complete rewrite */
	SL_ADJ_NB_TYPES     /* tunnels' encapsulations will be types of their own */
};
/* From a constructor: ip4-lookup sends packets whose adjacency has type t to node_name
 * (a type with no node: ICMP unreachable, as SL_ADJ_DROP). */
void sl_adj_type_register(enum sl_adj_type t, const char *node_name);
extern struct sl_dispatch sl_adj_types;
extern const char *const sl_adj_type_names[SL_ADJ_NB_TYPES];

/* Immutable once published: the control plane replaces the pointer, never the contents,
 * but for the copies of its interface's MTU and tx slot (sl_if_fast), which follow the
 * interface in place (adj_sync in route.c). ipN-rewrite reads them a packet where a vector's
 * adjacencies differ (ECMP's paths, hosts), rather than the interface's line beside. */
struct sl_adj {
	uint8_t rewrite[16];   /* dst MAC, src MAC, ethertype: copied before the IP header */
	uint8_t type;
	uint16_t port;
	uint32_t nh;           /* next hop to resolve (host order) */
	uint16_t mtu;          /* port's while type is SL_ADJ_FORWARD, else 0: the rewrite's
				* MTU test then takes its packets off the fast path */
	uint16_t tx_slot;      /* port's (sl_iface_tx_edge) while SL_ADJ_FORWARD, else 0 */
} __rte_aligned(32);
_Static_assert(sizeof(struct sl_adj) == 32, "adjacency is half a cache line");

extern struct sl_adj *sl_adj_tbl[SL_ADJ_MAX];

/* Adjacency a's MTU (0 when it is not complete: a packet to it fails every test against
 * it, and leaves the fast path there) and its tx edge from a node whose first interface
 * edge is tx0 (sl_iface_tx_edge's, for a complete one). Both follow the interface
 * (adj_sync in route.c). */
static __rte_always_inline uint16_t sl_adj_mtu(const struct sl_adj *a)
{
	return __atomic_load_n(&a->mtu, __ATOMIC_RELAXED);
}

static __rte_always_inline rte_edge_t sl_adj_tx_edge(const struct sl_adj *a, rte_edge_t tx0)
{
	return (rte_edge_t)(tx0 + __atomic_load_n(&a->tx_slot, __ATOMIC_RELAXED));
}

/* FIB tables (VRFs): table index t (an interface's fib, sl_meta2.fib) has the user's table
 * id sl_fib_ids[t]; index 0 is table 0, the default. One rte_fib DIR-24-8 per table. */
#define SL_FIB_MAX 256
extern struct rte_fib *sl_fibs[SL_FIB_MAX];
extern uint32_t sl_fib_ids[SL_FIB_MAX];
extern bool sl_fib_multi; /* a table other than 0 exists: ip4-lookup looks at each packet's */
/* Counts the changes of any FIB, IPv4 or IPv6 (release-stored after each): a node that
 * caches what a lookup gave (the tunnels' encapsulation) looks up again when it has moved. */
extern uint32_t sl_fib_gen;

#define SL_ADJ_ID_DROP 0
#define SL_ADJ_ID_LOCAL 1
#define SL_ADJ_ID_BLACKHOLE 2


/* ICMP types (RFC 792) */
#define SL_ICMP_ECHO_REPLY 0
#define SL_ICMP_UNREACH 3
#define SL_ICMP_ECHO 8
#define SL_ICMP_TIME_EXCEEDED 11
#define SL_ICMP_UNREACH_NEEDFRAG 4
#define SL_ICMP_UNREACH_PORT 3

/* From a constructor: packets for our addresses with IP protocol proto go from ip4-local to
 * node_name; UDP ones with destination port (host order) from ip4-udp-local. */
void sl_ip4_proto_register(uint8_t proto, const char *node_name);
void sl_udp_port_register(uint16_t port, const char *node_name);
extern struct sl_dispatch sl_ip4_protos, sl_udp_ports;

/* The checksum after the TTL (high byte of its 16-bit word) drops by one: the one's
 * complement sum plus 0x0100 with the carry folded back, as Linux's ip_decrease_ttl (RFC
 * 1141; a sum's byte order does not matter, so in the header's own). A result of 0xffff
 * (the sum's negative zero) becomes 0, what RFC 1624's eqn. 3 and a full recomputation give. */
static inline uint16_t sl_cksum_ttl_dec(uint16_t be_cksum)
{
	/* c + (c >= 0xffff) for c = be_cksum + k, as y - 1 + carry with y = c + 1 in 16 bits:
	 * an add and an add-with-carry (the compare, set, widen and add before: 4 more
	 * instructions a packet); test_cksum_ttl_dec checks all 65,536 checksums */
	const uint16_t k = RTE_BE16(0x0100);
	uint16_t y;
	const bool carry = __builtin_add_overflow(be_cksum, (uint16_t)(k + 1), &y);
	return (uint16_t)(y - 1 + carry);
}

/* ICMP errors of both families: a token bucket per worker, ICMP_RATE_PER_S a second with
 * bursts of SL_ICMP_BURST (RFC 1812 4.3.2.8, RFC 4443 2.4 f); now is the TSC. */
#define SL_ICMP_RATE_PER_S 1000
#define SL_ICMP_BURST 100u
static inline bool sl_icmp_allow(struct sl_worker *w, uint64_t now)
{
	uint64_t per = rte_get_tsc_hz() / SL_ICMP_RATE_PER_S;
	if (now - w->icmp_last >= per) {
		uint64_t add = (now - w->icmp_last) / per;
		w->icmp_tokens = RTE_MIN(SL_ICMP_BURST, w->icmp_tokens + add);
		w->icmp_last += add * per;
	}
	if (w->icmp_tokens == 0)
		return false;
	w->icmp_tokens--;
	return true;
}

/* One lookup, for the control plane and tests; workers use rte_fib_lookup_bulk. */
static inline uint32_t sl_ip4_fib_lookup(uint16_t fib, uint32_t ip)
{
	uint64_t nh = 0;
	rte_fib_lookup_bulk(sl_fibs[fib], &ip, &nh, 1);
	return (uint32_t)nh;
}

static inline const struct sl_adj *sl_adj_get(uint32_t id)
{
	return __atomic_load_n(&sl_adj_tbl[id], __ATOMIC_ACQUIRE);
}

/* ECMP and UCMP: a route with several paths has in the FIB SL_LB_FLAG | a load-balance id
 * (rte_fib's 4-byte next hops leave 31 bits; adjacency ids take 20). A load-balance object
 * is SL_LB_BUCKETS adjacency ids, each path owning buckets in proportion to its weight;
 * ip4-lookup takes the bucket of the packet's flow hash, so a flow stays on one path, and a
 * path removed moves only the flows of its buckets. Replaced whole, freed after a grace
 * period, as adjacencies are. */
#define SL_LB_FLAG (1u << 30)
#define SL_LB_MAX (1u << 16)
#define SL_LB_BUCKETS 256
#define SL_PATHS_MAX 64
struct sl_lb {
	uint32_t adj[SL_LB_BUCKETS];
	uint16_t npaths;              /* the distinct adjacencies of the buckets, for */
	uint16_t fib;                 /* its route's table: whose flow-hash fields apply */
	uint32_t path[SL_PATHS_MAX];  /* sl_lb_next */
};
extern struct sl_lb *sl_lb_tbl[SL_LB_MAX];
/* every bucket the drop adjacency: a load-balance freed since the FIB named it */
extern const struct sl_lb sl_lb_drop;

/* Protocols whose first 4 bytes are the ports (TCP, UDP, SCTP, UDP-Lite). */
extern const uint8_t sl_l4_has_ports[256];
/* The same for an IPv4 header's first 8 bytes: for such a protocol, the mask of what says
 * that the ports follow (version and IHL, the MF flag and the fragment offset); 0 for any
 * other, which no header matches. So one test says both: (first 8 bytes & sl_l4_ports4[proto])
 * == 0x45 for a 20-byte header that is not a fragment of a protocol with ports. */
#define SL_L4_PORTS4_MASK (0xffull | (uint64_t)RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK) << 48)
extern const uint64_t sl_l4_ports4[256];

/* The 5-tuple's hash computed: CRC32-C of the addresses (one 8-byte step), the protocol
 * and, for a header of 20 bytes that is not a fragment and whose protocol has ports, the
 * ports. ip4-input checked the header; a truncated transport header only hashes the bytes
 * after it, inside the mbuf's data room. */
static inline uint32_t sl_flow_hash4_sw(const struct rte_ipv4_hdr *ip)
{
	const uint8_t *b = (const uint8_t *)ip; /* 2-byte aligned after Ethernet: memcpy */
	uint64_t first, addrs;
	memcpy(&first, b, 8);
	memcpy(&addrs, b + 12, 8); /* src_addr, dst_addr */
	const uint8_t proto = ip->next_proto_id;
	uint64_t h = sl_crc8(addrs, proto);
	/* version/IHL 0x45 and neither MF nor an offset (bytes 0 and 6-7), ports in proto */
	if (likely((first & sl_l4_ports4[proto]) == 0x45)) {
		uint32_t ports; /* read here: the CRC step takes it from memory */
		memcpy(&ports, b + 20, 4);
		h = sl_crc4(ports, h);
	}
	return (uint32_t)h;
}

/* The 5-tuple's hash: the port's RSS hash when it gave one, else computed. */
static inline uint32_t sl_flow_hash4(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip)
{
	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		return m->hash.rss;
	return sl_flow_hash4_sw(ip);
}

/* What a table's ECMP flow hash takes (set ip flow-hash, VPP's bits and names): the
 * addresses, ports and protocol, src and dst swapped (reverse: the other direction's hash),
 * or ordered so that both directions hash alike (symmetric), and IPv6's flow label. Each
 * family's table index t has its fields in sl_fh4[t] or sl_fh6[t], with SL_FH_SEEDED while a
 * router id is set (sl_fh_seed, mixed into every hash, so that routers in a row do not all
 * split the same flows the same way). A table at its default (both families: the 5-tuple, as
 * VPP's; IPv6's flow label only when asked for) takes the lookups' own hash: the port's RSS
 * hash when it gave one, else sl_flow_hashN_sw, which sl_flow_hashN_cfg equals at the
 * default. */
enum {
	SL_FH_SRC = 1,
	SL_FH_DST = 2,
	SL_FH_SPORT = 4,
	SL_FH_DPORT = 8,
	SL_FH_PROTO = 16,
	SL_FH_REVERSE = 32,
	SL_FH_SYMMETRIC = 64,
	SL_FH_FLOWLABEL = 128,
	SL_FH_SEEDED = 256,
};
#define SL_FH_DEFAULT4 (SL_FH_SRC | SL_FH_DST | SL_FH_SPORT | SL_FH_DPORT | SL_FH_PROTO)
#define SL_FH_DEFAULT6 SL_FH_DEFAULT4 /* VPP's default: the 5-tuple, no flow label */
extern uint16_t sl_fh4[SL_FIB_MAX], sl_fh6[SL_FIB_MAX];
extern uint32_t sl_fh_seed;
/* Names of the bits from SL_FH_SRC up to SL_FH_FLOWLABEL, in order. */
extern const char *const sl_fh_names[8];
/* Control (main lcore): table index fib's fields for IPv4 (v6 false) or IPv6, without
 * SL_FH_SEEDED; the router id for both (0: none); a table deleted goes back to the
 * defaults. sl_fh_get gives the fields set. */
void sl_fh_set(bool v6, uint16_t fib, uint16_t fields);
uint16_t sl_fh_get(bool v6, uint16_t fib);
void sl_fh_seed_set(uint32_t seed);
void sl_fh_reset(uint16_t fib);
/* "src dst ..." for fields, into buf. */
void sl_fh_format(char *buf, size_t len, uint16_t fields);

/* A computed hash with the router id mixed in (cfg has SL_FH_SEEDED): a finaliser whose low
 * bits, the bucket, depend on every bit of h and of the seed (a seed XORed into a CRC would
 * only permute the buckets, the same for every flow). */
static inline uint32_t sl_fh_seeded(uint32_t h, uint16_t cfg)
{
	if (!(cfg & SL_FH_SEEDED))
		return h;
	h ^= __atomic_load_n(&sl_fh_seed, __ATOMIC_RELAXED);
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ h >> 16;
}

/* As sl_flow_hash4_sw (the same value for SL_FH_DEFAULT4 and no seed): the addresses, the
 * protocol and, for a 20-byte header that is not a fragment and whose protocol has ports,
 * the ports, each left out (0) unless cfg takes it (neither port: the ports' step too, so
 * that a protocol without ports hashes as one with them). */
static inline uint32_t sl_flow_hash4_cfg(const struct rte_ipv4_hdr *ip, uint16_t cfg)
{
	const uint8_t *b = (const uint8_t *)ip;
	uint64_t first, addrs; /* src_addr, dst_addr as in sl_flow_hash4_sw */
	uint32_t ports = 0;    /* src_port, dst_port */
	memcpy(&first, b, 8);
	memcpy(&addrs, b + 12, 8);
	bool has = (first & sl_l4_ports4[ip->next_proto_id]) == 0x45;
	if (has)
		memcpy(&ports, b + 20, 4);
	/* masks of cfg alone: worked out once per run where the hash is inlined in a loop */
	const uint64_t am = (cfg & SL_FH_SRC ? 0xffffffffull : 0) |
			    (cfg & SL_FH_DST ? 0xffffffffull << 32 : 0);
	const uint32_t pm = (cfg & SL_FH_SPORT ? 0xffffu : 0) | (cfg & SL_FH_DPORT ? 0xffff0000u : 0);
	addrs &= am;
	ports &= pm;
	if (cfg & SL_FH_REVERSE) {
		addrs = addrs >> 32 | addrs << 32;
		ports = ports >> 16 | ports << 16;
	}
	if (cfg & SL_FH_SYMMETRIC) { /* any order both directions agree on */
		uint32_t lo = (uint32_t)addrs, hi = (uint32_t)(addrs >> 32);
		uint32_t plo = ports & 0xffff, phi = ports >> 16;
		if (hi < lo)
			addrs = hi | (uint64_t)lo << 32;
		if (phi < plo)
			ports = phi | plo << 16;
	}
	uint64_t h = sl_crc8(addrs, cfg & SL_FH_PROTO ? ip->next_proto_id : 0);
	if (has && pm)
		h = sl_crc4(ports, h);
	return sl_fh_seeded((uint32_t)h, cfg);
}

/* Main lcore: FIB answer id's adjacency id, a load-balance's first path's (the router's own
 * packets: sl_ip4_send, sl_ip6_send, ping). */
static inline uint32_t sl_adj_first_path(uint32_t id)
{
	if (id & SL_LB_FLAG) {
		const struct sl_lb *lb = sl_lb_tbl[id & (SL_LB_MAX - 1)];
		id = lb ? lb->adj[0] : SL_ADJ_ID_DROP;
	}
	return id;
}

/* The next node of every path of lb when all have the same one (ipN-rewrite, usually), else
 * UINT16_MAX. Read once per run of packets, as a single path's type is. */
static inline uint16_t sl_lb_next(const struct sl_lb *lb, const uint16_t *type_next)
{
	uint16_t nx = type_next[sl_adj_get(lb->path[0])->type];
	for (unsigned p = 1; p < lb->npaths; p++)
		if (type_next[sl_adj_get(lb->path[p])->type] != nx)
			return UINT16_MAX;
	return nx;
}

/* ipN-lookup's edge 0 is icmpN-error: no route, which no_route counts and notes */
typedef void (*sl_no_route_fn)(struct sl_worker *w, struct rte_mbuf *m);

/* The next node of adjacency id (edge 0 for no route, counted by no_route). */
static __rte_always_inline uint16_t sl_lk_next(struct sl_worker *w, struct rte_mbuf *m, uint32_t id,
					       const uint16_t *type_next, sl_no_route_fn no_route)
{
	uint16_t nx = type_next[sl_adj_get(id)->type];
	if (unlikely(nx == 0))
		no_route(w, m);
	return nx;
}

/* The lookups' edges of packets from to to - 1: nx (gcc makes the loop wide stores). */
static __rte_always_inline void sl_lk_fill(uint16_t *nexts, size_t from, size_t to, uint16_t nx)
{
	for (size_t k = from; k < to; k++)
		nexts[k] = nx;
}

/* ipN-lookup's pass over the FIB's answers (hops): each packet's adjacency and next node,
 * read once per run of one value, the common case. It stops at the first run of a route with
 * several paths (SL_LB_FLAG) or of the drop adjacency (0, which sl_lk_paths looks up once
 * more), leaving it and the rest to the lookup's slow pass: returns that packet's index, n when
 * there is none. Both are one test, on a run's first packet only: an id in 1..SL_LB_FLAG-1
 * less one is below SL_LB_FLAG - 1, a 0 less one wraps above it.
 * While every run takes one node, as a routed vector does (its hosts' adjacencies all lead
 * to ipN-rewrite), no edge is written a packet: *one is that node for the packets before the
 * index returned, and nexts[] is left alone. The first run to another node (or to none, edge
 * 0: no route, counted a packet) writes the edges so far and the rest one a packet: *one is
 * then UINT16_MAX. */
_Static_assert(SL_ADJ_ID_DROP == 0, "sl_lk_runs stops at 0");
static __rte_always_inline uint16_t sl_lk_runs(struct sl_worker *w, void **objs, const uint64_t *hops,
					       uint16_t *nexts, uint16_t n, const uint16_t *type_next,
					       sl_no_route_fn no_route, uint16_t *one)
{
	uint32_t last = UINT32_MAX;
	uint16_t nx = UINT16_MAX, i = 0;
	for (; i < n; i++) { /* every run to one node so far (nx; UINT16_MAX before the first) */
		uint32_t id = (uint32_t)hops[i];
		if (id != last) {
			if (unlikely(id - 1 >= SL_LB_FLAG - 1)) {
				*one = nx;
				return i;
			}
			uint16_t x = type_next[sl_adj_get(id)->type];
			if (unlikely(x != nx && (nx != UINT16_MAX || x == 0)))
				break; /* another node, or none */
			last = id;
			nx = x;
		}
		sl_meta((struct rte_mbuf *)objs[i])->adj = id;
	}
	*one = UINT16_MAX;
	if (likely(i == n)) {
		*one = nx;
		return n;
	}
	sl_lk_fill(nexts, 0, i, nx);
	last = UINT32_MAX;
	for (; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint32_t id = (uint32_t)hops[i];
		if (id != last) {
			if (unlikely(id - 1 >= SL_LB_FLAG - 1))
				return i;
			last = id;
			nx = type_next[sl_adj_get(id)->type];
		}
		sl_meta(m)->adj = id;
		nexts[i] = nx;
		if (unlikely(nx == 0))
			no_route(w, m);
	}
	return n;
}

/* ipN-lookup, after sl_lk_runs stopped at packet i < n (its node one for those before) and
 * sl_lk_paths took the rest (its node u for them): the one node of the whole vector, or
 * UINT16_MAX with every edge written in nexts. */
static __rte_always_inline uint16_t sl_lk_join(uint16_t *nexts, uint16_t i, uint16_t n, uint16_t one,
					       uint16_t u)
{
	if (u != UINT16_MAX && (i == 0 || one == u))
		return u;
	/* plain loops, not sl_lk_fill: its wide stores inlined into ip6-lookup's process cost
	 * its routed loop 2 instructions a packet (registers) */
	for (uint16_t k = 0; one != UINT16_MAX && k < i; k++)
		nexts[k] = one;
	for (uint16_t k = i; u != UINT16_MAX && k < n; k++)
		nexts[k] = u;
	return UINT16_MAX;
}

/* ipN-lookup's vector out: all to node one (not UINT16_MAX) in one move, or by each packet's
 * edge in nexts. */
static __rte_always_inline void sl_lk_enqueue(struct rte_graph *g, struct rte_node *node, void **objs,
					      const uint16_t *nexts, uint16_t n, uint16_t one)
{
	if (likely(one != UINT16_MAX))
		sl_enqueue_all(g, node, objs, n, one);
	else
		sl_enqueue_nexts(g, node, objs, nexts, n);
}

/* A run of one load-balance from packet j to the mark after it (hops[j] on), in a table
 * whose flow-hash fields cfg are not the default: each packet's bucket by hash(m, cfg);
 * returns the index after the run. Inlined into each lookup's own out-of-line function
 * (sl_lk_cfg_run_fn), so that sl_lk_paths's default loops keep their registers. */
typedef size_t (*sl_lk_cfg_run_fn)(void **objs, const uint64_t *hops, uint16_t *nexts, size_t j,
				   const uint32_t *bucket, uint16_t nx, uint16_t cfg);
static __rte_always_inline size_t
sl_lk_cfg_run(void **objs, const uint64_t *hops, uint16_t *nexts, size_t j, const uint32_t *bucket,
	      uint16_t nx, uint16_t cfg, uint32_t (*hash)(const struct rte_mbuf *, uint16_t))
{
	const uint64_t h = hops[j];
	do {
		struct rte_mbuf *m = objs[j];
		sl_meta(m)->adj = bucket[hash(m, cfg) & (SL_LB_BUCKETS - 1)];
		nexts[j] = nx;
	} while (hops[++j] == h);
	return j;
}

#define SL_LK_NONE (UINT16_MAX - 1) /* sl_lk_paths: no packet's node yet */

/* sl_lk_paths's packets from start to i, all to node *uni while it is not UINT16_MAX (or
 * SL_LK_NONE: none yet), their edges not written: written now, and *uni UINT16_MAX. */
static inline void sl_lk_uni_out(uint16_t *nexts, uint16_t start, uint16_t i, uint16_t *uni)
{
	if (*uni == UINT16_MAX)
		return;
	if (*uni != SL_LK_NONE)
		sl_lk_fill(nexts, start, i, *uni);
	*uni = UINT16_MAX;
}

/* The rest of the vector from packet i on, once a route with several paths is in it: one
 * pass, so that ECMP pays for the flow hash and the bucket, not for a second walk. A
 * load-balance's packet takes the bucket of its flow hash; a run of one load-balance whose
 * paths all lead to one node takes that node with no look at the packet's adjacency;
 * otherwise (paths to different nodes, no route) each packet's own. hops has room for one
 * more (hops[n]): a run's end is marked there, so that its loop tests one thing a packet.
 * hash is the flow hash (the port's RSS hash when it gave one), sw_hash the one computed
 * (every packet's while no port is set up for RSS: sl_flow_rss);
 * a load-balance whose table's fields (fh[lb->fib]) are not fh_default takes cfg_hash's
 * (a run of one: cfg_run).
 * A drop is looked up once more (relook(m, ips, i): packet i's destination, from the node's
 * array ips, in its table; see sl_ip4_lookup_one).
 * Returns the node that every packet from i on goes to when they are all runs of
 * load-balances to one node (nexts[i..n) then not written), else UINT16_MAX (written). */
static __rte_always_inline uint16_t
sl_lk_paths(struct sl_worker *w, void **objs, const void *ips, uint64_t *hops, uint16_t *nexts,
	    uint16_t i, uint16_t n, const uint16_t *type_next,
	    uint32_t (*hash)(const struct rte_mbuf *), uint32_t (*sw_hash)(const struct rte_mbuf *),
	    const uint16_t *fh, uint16_t fh_default,
	    uint32_t (*cfg_hash)(const struct rte_mbuf *, uint16_t), sl_lk_cfg_run_fn cfg_run,
	    uint32_t (*relook)(struct rte_mbuf *, const void *, uint16_t),
	    sl_no_route_fn no_route)
{
	uint64_t last = UINT64_MAX;
	const struct sl_lb *lb = NULL;
	uint16_t nx = 0;
	bool each = true;
	/* while every run of one load-balance so far takes one node (uni), their edges are not
	 * written: the first packet otherwise writes them, and uni becomes UINT16_MAX */
	const uint16_t start = i;
	uint16_t uni = SL_LK_NONE;
	/* no port set up for RSS (sl_flow_rss): every hash computed, no packet tested for the
	 * port's. Else ports give it to all their packets or to none: the first says which the
	 * loops expect (the other out of their way). */
	const bool rss_on = __atomic_load_n(&sl_flow_rss, __ATOMIC_RELAXED);
	const bool rss = rss_on && ((struct rte_mbuf *)objs[i])->ol_flags & RTE_MBUF_F_RX_RSS_HASH;
	while (i < n) {
		uint64_t h = hops[i];
		if (unlikely(h == SL_ADJ_ID_DROP))
			h = hops[i] = relook(objs[i], ips, i);
		if (h != last) {
			last = h;
			if (h & SL_LB_FLAG) {
				lb = __atomic_load_n(&sl_lb_tbl[h & (SL_LB_MAX - 1)], __ATOMIC_ACQUIRE);
				if (unlikely(!lb))
					lb = &sl_lb_drop;
				nx = sl_lb_next(lb, type_next);
				each = nx == UINT16_MAX || nx == 0;
			} else {
				lb = NULL;
				nx = type_next[sl_adj_get((uint32_t)h)->type];
				each = nx == 0;
			}
		}
		if (likely(lb != NULL && !each)) { /* a run of one load-balance to one node */
			const uint32_t *bucket = lb->adj;
			size_t j = i;
			hops[n] = ~h;
			/* read here, not kept from the run's start: a value live across the loops
			 * cost the IPv6 loop a register (one instruction a packet) */
			uint16_t cfg = __atomic_load_n(&fh[lb->fib], __ATOMIC_RELAXED);
			if (unlikely(cfg != fh_default)) { /* set ip flow-hash */
				j = cfg_run(objs, hops, nexts, j, bucket, nx, cfg);
			} else if (rss) {
				do {
					struct rte_mbuf *m = objs[j];
					uint32_t x = m->hash.rss;
					if (unlikely(!(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)))
						x = sw_hash(m);
					sl_meta(m)->adj = bucket[x & (SL_LB_BUCKETS - 1)];
				} while (hops[++j] == h);
			} else if (rss_on) {
				do {
					struct rte_mbuf *m = objs[j];
					uint32_t x = unlikely(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
							     ? m->hash.rss
							     : sw_hash(m);
					sl_meta(m)->adj = bucket[x & (SL_LB_BUCKETS - 1)];
				} while (hops[++j] == h);
			} else {
				do {
					struct rte_mbuf *m = objs[j];
					sl_meta(m)->adj = bucket[sw_hash(m) & (SL_LB_BUCKETS - 1)];
				} while (hops[++j] == h);
			}
			if (likely(uni == nx || uni == SL_LK_NONE)) {
				uni = nx;
			} else {
				sl_lk_uni_out(nexts, start, i, &uni);
				if (likely(cfg == fh_default)) /* cfg_run wrote its own */
					sl_lk_fill(nexts, i, j, nx);
			}
			i = (uint16_t)j;
			continue;
		}
		sl_lk_uni_out(nexts, start, i, &uni);
		struct rte_mbuf *m = objs[i];
		uint32_t id = (uint32_t)h;
		if (lb) {
			uint16_t cfg = __atomic_load_n(&fh[lb->fib], __ATOMIC_RELAXED);
			id = lb->adj[(likely(cfg == fh_default) ? (rss_on ? hash(m) : sw_hash(m))
							       : cfg_hash(m, cfg)) &
				     (SL_LB_BUCKETS - 1)];
		}
		sl_meta(m)->adj = id;
		nexts[i] = unlikely(each) ? sl_lk_next(w, m, id, type_next, no_route) : nx;
		i++;
	}
	return uni;
}

/* Control plane, pure: the owners (path indexes) of the buckets for n paths of weights w.
 * Each path gets its share (largest remainder); with old (the owners before, remapped: the
 * new index of each bucket's path, or -1 for a path gone), a bucket keeps its path while
 * that path is within its share, so a change moves only the flows it must. */
void sl_lb_assign(uint8_t owner[SL_LB_BUCKETS], const int16_t *old, const uint16_t *w,
		  unsigned n);

/* Shared with IPv6 (main lcore): adjacencies (sl_adj_alloc frees a when the table is full;
 * an id released is recycled after a grace period) and load-balances (sl_lb_publish: bucket
 * b takes path_adj[owner[b]], fib is its route's table; sl_lb_free: named, a FIB entry may
 * have named it, so after a grace period). Return 0 or -errno. */
struct sl_adj *sl_adj_new(uint8_t type, uint16_t port, uint32_t nh, const uint8_t *dmac,
			  uint16_t ethertype);
int sl_adj_alloc(struct sl_adj *a, uint32_t *id);
void sl_adj_publish(uint32_t id, struct sl_adj *a);
void sl_adj_release(uint32_t id);
/* Tests: 0 when every complete adjacency's mtu and tx_slot are its interface's, else the
 * first id that is not plus one. */
uint32_t sl_adj_check(void);
int sl_lb_alloc(uint32_t *id);
int sl_lb_publish(uint32_t id, const uint8_t owner[SL_LB_BUCKETS], const uint32_t *path_adj,
		  uint16_t fib);
void sl_lb_free(uint32_t id, bool named);

/* Looks up ips[i] in packet i's table (its ingress interface's, or sl_meta2.fib), one bulk
 * call per run of packets in one table; a table gone gives the drop adjacency. */
void sl_ip4_lookup_tables(void **objs, uint32_t *ips, uint64_t *hops, uint16_t n);

/* rte_fib 22.11 zeroes a tbl8 group as soon as a delete (or an add) makes it uniform
 * (tbl8_recycle), right after pointing its tbl24 entry at the group's one next hop: a
 * lookup that read the tbl24 entry just before may read a zero, the drop adjacency, for a
 * destination that has a route (one packet of 17 million in a test of 100,000 route
 * changes). So a drop found is looked up once more, one packet at a time: the tbl24 entry
 * is then the new one (written before the zeroing), and the group cannot be reused before
 * this worker's next quiescent state (fib_delete waits for it). Packets with no route pay
 * the second look. This one looks ip up in packet m's table (a table gone: the drop). */
uint32_t sl_ip4_lookup_one(struct rte_mbuf *m, uint32_t ip);

struct sl_trace_rec;
/* Trace formatters: the IPv4 header; ip4-lookup's adds the adjacency it chose. */
void sl_ip4_trace_fmt(char *buf, size_t len, const struct sl_trace_rec *r);

/* Control plane (main lcore only). Return 0 or -errno. */
int sl_ip4_init(uint32_t max_routes, uint32_t tbl8s);
void sl_ip4_fini(void);
int sl_ip4_addr_add(uint16_t port, uint32_t ip, uint8_t len);
int sl_ip4_addr_del(uint16_t port, uint32_t ip, uint8_t len);
/* A static route's path: a second path (another next hop or interface) makes the route
 * ECMP, weight (1 if 0) makes it UCMP; the same path again only sets its weight. */
int sl_ip4_route_add(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port);
int sl_ip4_route_add_path(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port,
			  uint16_t weight);
/* Deletes a static route, all its paths. */
int sl_ip4_route_del(uint16_t fib, uint32_t pfx, uint8_t len);
/* A drop route (static, no paths: packets to it dropped and counted, no ICMP); -EEXIST over
 * a static route with paths, and a path over it. */
int sl_ip4_route_add_drop(uint16_t fib, uint32_t pfx, uint8_t len);
/* Deletes one path (port -1: the path via nh on any interface). */
int sl_ip4_route_del_path(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port);
/* The weight of a static route's path via nh (port -1: on any interface), or -ENOENT. */
int sl_ip4_route_path_weight(uint16_t fib, uint32_t pfx, uint8_t len, uint32_t nh, int port);
/* Tables by the user's id: add returns the index (an existing table's too) or -errno; del
 * refuses table 0 and a table with interfaces in it (why says so) and deletes its routes;
 * set moves an interface without addresses, static neighbours or routes to table index
 * fib. find returns the index or -1. */
int sl_ip4_table_add(uint32_t id);
int sl_ip4_table_del(uint32_t id, char *why, size_t len);
int sl_ip4_table_set(uint16_t ifx, uint16_t fib, char *why, size_t len);
int sl_ip4_table_find(uint32_t id);
/* From a constructor, by a module whose entries name tables (MPLS labels): non-zero, and
 * why, refuses the deletion of table index fib. */
void sl_table_user_register(int (*fn)(uint16_t fib, char *why, size_t len));
int sl_ip4_neigh_set(uint16_t port, uint32_t ip, const uint8_t mac[6], bool is_static);
int sl_ip4_neigh_del(uint16_t port, uint32_t ip);
/* Holds the neighbour ip on port for something that is not a route (an MPLS out-path), as a
 * static route does: *adj its adjacency, an ARP request sent while it is incomplete; unhold
 * lets go. */
int sl_ip4_neigh_hold(uint16_t port, uint32_t ip, uint32_t *adj);
void sl_ip4_neigh_unhold(uint16_t port, uint32_t ip);
/* ping (src/ip4/ping.c): the ICMP identifier of the ping running, in network order (0:
 * none); ip4-icmp-input and ip6-icmp-input punt the echo replies that carry it
 * (SL_PUNT_PING). */
extern uint16_t sl_ping_ident;
/* Handles a punted packet (ARP, or a packet waiting for resolution); frees it. */
void sl_ip4_punt(struct rte_mbuf *m);
/* Main lcore: IPv4 packet m (data at its header), routed to adjacency adj, a glean or an
 * incomplete one: ARP asked, and m held until the reply (a few a neighbour, for a second),
 * then sent as ip4-rewrite would (its TTL less one); else counted (on m->port's drops too)
 * and freed. */
void sl_ip4_hold(struct rte_mbuf *m, uint32_t adj);
/* Main lcore: an IPv4 packet it built (m's data: its header, checksum done; m->port the
 * interface a drop is counted on) sent by table fib's route to dst (a load-balance's first
 * path): the adjacency's Ethernet header, out of its interface; while the next hop resolves
 * it is held as routed packets are (sl_ip4_hold), leaving with the TTL it has now. Returns 0
 * (sent or held), or a negative value when dst has no route that leaves (no route, a drop,
 * a local address) or the interface's output refused it (m freed). */
int sl_ip4_send(uint16_t fib, struct rte_mbuf *m, uint32_t dst);
/* Main lcore, both families: m (its data at the IP header) out of adjacency a's interface
 * with a's Ethernet header; an adjacency that does not forward frees it: -EHOSTUNREACH. */
int sl_adj_inject(struct rte_mbuf *m, const struct sl_adj *a);
/* The source address for a packet of this router's to dst out of port (host order): its
 * address on dst's subnet, else its first; 0 when it has none. */
uint32_t sl_ip4_src_for(uint16_t port, uint32_t dst);
/* Frees the packets every neighbour holds while it resolves (counted as timed out). */
void sl_ip4_held_flush(void);
/* Periodic work: reclaim memory after RCU grace periods, age neighbours. */
void sl_ip4_tick(uint64_t now);
uint32_t sl_ip4_route_count(void);

#endif
