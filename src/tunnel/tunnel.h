/* SPDX-License-Identifier: BSD-3-Clause */
/* Tunnels (VXLAN, GRE, IP-in-IP, MPLS over UDP or GRE), what they share: each is a logical
 * interface of its kind's type, found on decapsulation in a lock-free rte_hash per outer
 * family keyed by (kind, outer table, remote, local, kind's id: VNI or GRE key), with a
 * template of its outer headers (IPv4 or IPv6, and the kind's own) that its encapsulation
 * node copies in front of each packet before sending it, by the remote's adjacency, straight
 * to the underlay output (sl_tun_encap, sl_tun_encap6; VXLAN, MPLS over UDP, GRE and IP-in-IP over
 * IPv4, and VXLAN over IPv6, by runs of one tunnel, SL_TUN_ENCAP_RUNS). */
#ifndef SL_TUNNEL_H
#define SL_TUNNEL_H

#include "../interface/iface.h"
#include "../ip4/ip4.h"
#include "../ip6/ip6.h"
#include "../runtime/cksum.h"

#include <rte_ip.h>
#include <rte_udp.h>

#define SL_TUN_HDR_MAX 56 /* outer IPv4 (20) or IPv6 (40) and the kind's header (VXLAN 16,
			   * GRE at most 8, MPLS over UDP 12) */

enum sl_tun_kind {
	SL_TUN_VXLAN,
	SL_TUN_GRE,
	SL_TUN_IPIP,
	SL_TUN_MPLSUDP,
	SL_TUN_MPLSGRE,
	SL_TUN_NB_KINDS
};

/* Decapsulation's key (8-byte aligned: rte_hash_crc reads it 8 bytes at a time). */
struct __rte_aligned(8) sl_tun_key {
	uint32_t remote, local; /* network order */
	uint32_t id;            /* VXLAN: the VNI; GRE: the key (0: none); IP-in-IP: 0;
				 * MPLS over UDP or GRE: the label pushed */
	uint16_t fib;           /* the outer packet's table */
	uint8_t kind;           /* enum sl_tun_kind */
	uint8_t keyed;          /* GRE: the key is present (key 0 and no key differ) */
};

/* The same over IPv6 (the second table). */
struct __rte_aligned(8) sl_tun_key6 {
	uint8_t remote[16], local[16];
	uint32_t id;
	uint16_t fib;
	uint8_t kind;
	uint8_t keyed;
};

struct sl_tun {
	uint8_t hdr[SL_TUN_HDR_MAX]; /* the outer headers; lengths and checksums left 0 */
	uint8_t hlen;                /* their length */
	bool v6;                     /* the outer header is IPv6 */
	bool eth;                    /* the inner packet keeps its Ethernet header (VXLAN, GRE
				      * teb); else the inner IP packet replaces it */
	bool has_key;                /* GRE: the key is in the header */
	bool mpls;                   /* the header ends with a label whose TTL is the inner
				      * packet's (MPLS over UDP or GRE) */
	uint32_t hdr_sum;            /* IPv4: rte_raw_cksum of hdr's IPv4 header, protocol 0;
				      * IPv6: of its two addresses (the UDP pseudo-header's) */
	uint16_t fib;                /* encap table's index */
	uint16_t ifx;
	struct sl_tun_key key;       /* IPv6: addresses 0, the rest as key6's */
	struct sl_tun_key6 key6;     /* IPv6 only */
	uint32_t table_id;
	int32_t pos;                 /* its key's slot, freed after the grace period */
};

/* The tunnel of interface ifx (workers: while the interface is up). */
extern struct sl_tun *sl_tun_by_if[SL_IF_MAX];
/* ifx of the tunnel with key k, or UINT16_MAX. */
uint16_t sl_tun_find(const struct sl_tun_key *k);
uint16_t sl_tun_find6(const struct sl_tun_key6 *k);
/* How many tunnels of a kind there are; of all kinds. */
uint32_t sl_tun_count(enum sl_tun_kind kind);
uint32_t sl_tun_total(void);

/* Control. Creates interface PREFIX<inst> (the first free instance when inst < 0) of type
 * type for a tunnel t (from sl_tun_begin, its kind's header written at hdr + the outer IP
 * header's length and hlen grown by it; eth, has_key filled; the IP header is written here)
 * with MAC 02:fe:m4:m5:instance and MTU mtu; answers its name, or an error (the tunnel is
 * freed then). */
int sl_tun_create(struct sl_out *o, struct sl_tun *t, enum sl_if_type type,
		  const char *prefix, int64_t inst, const uint8_t mac45[2], uint16_t mtu);
/* Control, the create commands' common arguments: src A, dst B (both IPv4 or both IPv6),
 * instance N, the table keyword (encap-vrf-id, outer-table-id) T and del. */
struct sl_tun_args {
	uint32_t src, dst, table_id; /* host order; 0: not given */
	uint8_t src6[16], dst6[16];
	uint8_t fam_src, fam_dst;    /* 4 or 6; 0: not given */
	int64_t inst;                /* -1: the first free */
	bool del;
};
#define SL_TUN_ARGS_INIT {.inst = -1}
/* Takes a (and its value val) when it is one of them: returns how many arguments it took
 * (1 or 2), 0 when a is none of them, -1 after answering an error. */
int sl_tun_arg(struct sl_out *o, const char *a, const char *val, const char *table_kw,
	       struct sl_tun_args *ta);
/* After the arguments: src and dst given, and of one family (else -1 after answering why
 * not). */
int sl_tun_ends(struct sl_out *o, const struct sl_tun_args *ta, const char *usage);
/* After sl_tun_ends (k's kind, id and keyed set): checks src and dst, finds the table and
 * fills k (and the tunnel's key6 for IPv6); with del deletes the tunnel. Returns a new tunnel
 * (v6 and hlen, the outer IP header's length, set) to fill and sl_tun_create, or NULL with
 * *rc what the command returns (0 deleted, -1 after answering an error). */
struct sl_tun *sl_tun_begin(struct sl_out *o, struct sl_tun_key *k, const struct sl_tun_args *ta,
			    int *rc);
/* Control: show KIND tunnel (cmd; no arguments): each tunnel's name, src, dst, the kind's
 * own columns (extra fills them: nextra strings), table, MTU and state. */
int sl_tun_show(struct sl_out *o, int argc, const char *cmd, enum sl_tun_kind kind, int nextra,
		const char *const *cols, void (*extra)(const struct sl_tun *t, char (*vals)[48]));
/* The length of t's outer IP header: where its own header begins in its template. */
static inline unsigned sl_tun_iplen(const struct sl_tun *t)
{
	return t->v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
}

/* The local addresses of the VXLAN tunnels over IPv4, with their outer table: what
 * ip4-vxlan-bypass (set interface ip vxlan-bypass) takes straight to vxlan4-input. The main
 * lcore adds an address with its first tunnel and removes it with its last; the workers scan
 * the first n keys (written before n is raised; a removed one is overwritten by the last,
 * which stays where it was too, so that a scan begun before finds it). The first
 * SL_VTEP_MAX addresses only: a packet to any other takes the arc on to ip4-lookup, as
 * without the bypass. */
#define SL_VTEP_MAX 64
struct sl_vteps {
	uint32_t n;
	uint64_t key[SL_VTEP_MAX]; /* sl_vtep_key */
};
extern struct sl_vteps sl_vx_vteps;

static inline uint64_t sl_vtep_key(uint16_t fib, uint32_t addr_be)
{
	return (uint64_t)fib << 32 | addr_be;
}

static inline bool sl_vtep_has(const struct sl_vteps *v, uint64_t key)
{
	uint32_t n = __atomic_load_n(&v->n, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++)
		if (__atomic_load_n(&v->key[i], __ATOMIC_RELAXED) == key)
			return true;
	return false;
}

/* The same over IPv6, for ip6-vxlan-bypass: every local address of a VXLAN tunnel over IPv6
 * with its outer table, in an array the main lcore replaces whole on each change (the old one
 * freed after a grace period); NULL when there is none. */
struct sl_vtep6 {
	uint8_t addr[16];
	uint16_t fib;
	uint32_t refs; /* its tunnels (the main lcore's count) */
};
struct sl_vteps6 {
	uint32_t n;
	struct sl_vtep6 e[];
};
extern struct sl_vteps6 *sl_vx_vteps6;

static inline bool sl_vtep6_has(uint16_t fib, const uint8_t *addr)
{
	const struct sl_vteps6 *v = __atomic_load_n(&sl_vx_vteps6, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; v && i < v->n; i++)
		if (v->e[i].fib == fib && !memcmp(v->e[i].addr, addr, 16))
			return true;
	return false;
}

/* Per worker: what the encap table's lookup of the last tunnel's remote gave, while no FIB
 * has changed (sl_fib_gen). */
struct sl_tun_cache {
	uint32_t gen;
	uint32_t adj;
	uint16_t ifx;
} __rte_cache_aligned;
extern struct sl_tun_cache sl_tun_cache[SL_MAX_WORKERS];

static inline uint32_t sl_tun_adj(struct sl_tun_cache *c, const struct sl_tun *t, uint32_t gen)
{
	if (likely(c->ifx == t->ifx && c->gen == gen))
		return c->adj;
	uint64_t nh = SL_ADJ_ID_DROP;
	if (t->v6) { /* the remote in the encap table's IPv6 FIB */
		uint8_t ip6[1][16];
		memcpy(ip6[0], t->key6.remote, 16);
		struct rte_fib6 *f6 = __atomic_load_n(&sl_fib6s[t->fib], __ATOMIC_ACQUIRE);
		if (f6)
			rte_fib6_lookup_bulk(f6, ip6, &nh, 1);
	} else {
		uint32_t ip = rte_be_to_cpu_32(t->key.remote);
		struct rte_fib *f = __atomic_load_n(&sl_fibs[t->fib], __ATOMIC_ACQUIRE);
		if (f)
			rte_fib_lookup_bulk(f, &ip, &nh, 1);
	}
	c->ifx = t->ifx;
	c->gen = gen;
	c->adj = (uint32_t)nh;
	return c->adj;
}

/* A UDP tunnel's source port from a hash of the inner frame, 49152-65535 (RFC 7348 5, RFC
 * 7510 3), so that the underlay's ECMP spreads the tunnel's flows (a hash of the outer headers alone would put
 * them all on one path). The port's RSS hash when it gave one. */
static inline uint16_t sl_tun_sport(const struct rte_mbuf *m, const uint8_t *fr)
{
	uint32_t h;
	uint16_t type;
	memcpy(&type, fr + 12, 2);
	if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
		h = m->hash.rss;
	else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
		 m->data_len >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		h = sl_flow_hash4(m, (const struct rte_ipv4_hdr *)(fr + RTE_ETHER_HDR_LEN));
	else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
		 m->data_len >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))
		h = sl_flow_hash6(m, (const struct rte_ipv6_hdr *)(fr + RTE_ETHER_HDR_LEN));
	else {
		uint64_t a, b;
		memcpy(&a, fr, 8);
		memcpy(&b, fr + 4, 8);
		h = sl_crc8(b, sl_crc8(a, 0));
	}
	return (uint16_t)(0xc000 | ((h ^ h >> 16) & 0x3fff));
}

/* An encapsulation node's process function `name`, up to its loop: the worker w, its cache c,
 * the FIB generation gen read once per vector, and the edges nexts[n]. */
#define SL_TUN_ENCAP_HEAD(name)                                                             \
	static uint16_t name(struct rte_graph *g, struct rte_node *node, void **objs,       \
			     uint16_t n)                                                    \
	{                                                                                   \
		struct sl_worker *w = sl_node_worker(node);                                 \
		struct sl_tun_cache *c = &sl_tun_cache[w->id];                              \
		uint32_t gen = __atomic_load_n(&sl_fib_gen, __ATOMIC_ACQUIRE);          \
		uint16_t nexts[n];

/* An encapsulation node's process function `name`: one_fn(worker, mbuf, the worker's cache,
 * the IPv4 FIB generation read once per vector) gives each packet's edge. */
#define SL_TUN_ENCAP_PROCESS(name, one_fn)                                                  \
	SL_TUN_ENCAP_HEAD(name)                                                             \
		for (uint16_t i = 0; i < n; i++)                                            \
			nexts[i] = one_fn(w, objs[i], c, gen);                              \
		sl_enqueue_nexts(g, node, objs, nexts, n);                                  \
		return n;                                                                   \
	}

/* Both families' encapsulation, first: room for t's outer headers (hlen bytes, and an
 * Ethernet header for a kind that keeps the inner one) in front of m, where the outer
 * Ethernet header goes (NULL: no headroom); *a the remote's adjacency when it is one, and
 * whether the packet goes the fast way (one resolved next hop, the outer packet of *tl bytes
 * within the interface's MTU). */
static inline uint8_t *sl_tun_room(struct rte_mbuf *m, const struct sl_tun *t, unsigned hlen,
				   struct sl_tun_cache *c, uint32_t gen, const struct sl_adj **a,
				   uint16_t *tl, bool *fast)
{
	uint16_t grow = (uint16_t)(t->eth ? hlen + RTE_ETHER_HDR_LEN : hlen);
	uint8_t *d = (uint8_t *)rte_pktmbuf_prepend(m, grow);
	if (unlikely(!d))
		return NULL;
	uint32_t id = sl_tun_adj(c, t, gen);
	*a = likely(!(id & SL_LB_FLAG)) ? sl_adj_get(id) : NULL;
	*tl = (uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN);
	*fast = *a && (*a)->type == SL_ADJ_FORWARD && *tl <= sl_ifaces[(*a)->port].mtu;
	return d;
}

/* Then, the outer IP header written: the fast way writes the outer Ethernet header at d and
 * sends m to the underlay interface's output (tx0 + its slot); the other hands it to the
 * lookup (edge lookup) in the encap table. *out: the edge. */
static inline void sl_tun_send(struct rte_mbuf *m, const struct sl_tun *t, uint8_t *d,
			       const struct sl_adj *a, bool fast, rte_edge_t tx0, uint16_t lookup,
			       uint16_t *out)
{
	if (likely(fast)) {
		memcpy(d, a->rewrite, RTE_ETHER_HDR_LEN);
		sl_meta(m)->tx_if = a->port;
		*out = (uint16_t)(tx0 + sl_if_fast[a->port].tx_slot);
	} else {
		rte_pktmbuf_adj(m, RTE_ETHER_HDR_LEN);
		sl_meta2(m)->fib = t->fib;
		m->ol_flags |= sl_flag_fib;
		*out = lookup;
	}
}

/* name##_one(worker, mbuf, cache, generation): any_fn(..., v6) for one outer family, v6 a
 * constant here. */
#define SL_TUN_ENCAP_ONE_FAM(name, any_fn, v6)                                              \
	static inline uint16_t name##_one(struct sl_worker *w, struct rte_mbuf *m,         \
					  struct sl_tun_cache *c, uint32_t gen)            \
	{                                                                                   \
		return any_fn(w, m, c, gen, v6);                                            \
	}

/* The same for a node of one outer family: any_fn(worker, mbuf, cache, generation, v6). */
#define SL_TUN_ENCAP_PROCESS_FAM(name, any_fn, v6)                                          \
	SL_TUN_ENCAP_ONE_FAM(name, any_fn, v6)                                              \
	SL_TUN_ENCAP_PROCESS(name, name##_one)

/* A point-to-point tunnel's inner packet (frame fr): IPv4 or IPv6 (false if neither), its
 * ethertype in *type and its TTL or hop limit in *ttl (RFC 3443 uniform: a label pushed on it
 * takes that TTL, ipN-rewrite having taken its hop already). */
static inline bool sl_tun_inner_ip(const uint8_t *fr, uint16_t *type, uint8_t *ttl)
{
	memcpy(type, fr + 12, 2);
	bool v4 = *type == RTE_BE16(RTE_ETHER_TYPE_IPV4);
	if (unlikely(!v4 && *type != RTE_BE16(RTE_ETHER_TYPE_IPV6)))
		return false;
	*ttl = fr[RTE_ETHER_HDR_LEN + (v4 ? 8 : 7)];
	return true;
}

/* Encapsulates m (its data: the inner frame, Ethernet header first) in t's outer headers
 * (hlen = t->hlen), the outer IPv4 header's protocol proto.
 * With t->eth the frame is kept whole; else its Ethernet header's room is reused and the
 * inner IP packet follows the outer headers. Returns where the kind's header begins (for
 * the node to fill the per-packet fields), or NULL when there is no headroom. *out is set to
 * the edge: with one resolved next hop in the encap table and an outer packet within its
 * interface's MTU, the outer Ethernet header is written and *out is the underlay interface's
 * output (tx0 + its slot); else (several paths, a neighbour being resolved, too long) the
 * packet goes to ip4-lookup (edge lookup) in the encap table, with one more hop of TTL for
 * ip4-rewrite to take off. */
static inline uint8_t *sl_tun_encap(struct rte_mbuf *m, const struct sl_tun *t, unsigned hlen,
				    uint8_t proto, struct sl_tun_cache *c, uint32_t gen,
				    rte_edge_t tx0, uint16_t lookup, uint16_t *out)
{
	const struct sl_adj *a;
	uint16_t tl;
	bool fast;
	uint8_t *d = sl_tun_room(m, t, hlen, c, gen, &a, &tl, &fast);
	if (unlikely(!d))
		return NULL;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + RTE_ETHER_HDR_LEN);
	memcpy(ip, t->hdr, hlen); /* t->hlen: a constant where the kind fixes it */
	ip->total_length = rte_cpu_to_be_16(tl);
	ip->next_proto_id = proto;
	/* the template's sum, the length, the protocol (the TTL's 16-bit word), and one more hop
	 * of TTL for the routing path's way */
	uint32_t s = t->hdr_sum + ip->total_length + rte_cpu_to_be_16(proto) +
		     (fast ? 0 : RTE_BE16(0x0100));
	ip->time_to_live += !fast;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	ip->hdr_checksum = (uint16_t)~s;
	sl_tun_send(m, t, d, a, fast, tx0, lookup, out);
	return (uint8_t *)ip + sizeof(*ip);
}

/* Runs of packets to one tunnel whose remote resolves to one next hop: what every packet
 * of the run shares, worked out once (sl_tun_run_begin), so that each packet costs a copy of
 * the outer headers and its own few fields (sl_tun_run_put). The kind fixes hlen and whether
 * the inner Ethernet header is kept (eth); anything out of the way (the tunnel down, several
 * paths or a neighbour being resolved, a frame too long for the fast way, too little headroom)
 * is the node's per-packet function's, which sl_tun_encap serves. */
struct sl_tun_run {
	uint8_t tmpl[96] __rte_aligned(32); /* the outer Ethernet header and t's headers, the
					     * protocol set, lengths and checksum 0 */
	uint32_t sum;                       /* IPv4: the header checksum's sum less the total
					     * length; IPv6: the UDP pseudo-header's sum less
					     * the length */
	uint32_t max_len;                   /* the longest frame (pkt_len) that goes fast; 0:
					     * none (the run does not go the fast way) */
	uint16_t ifx;                       /* the run's tunnel interface; UINT16_MAX: none */
	uint16_t port;                      /* the underlay interface */
	uint16_t next;                      /* its output's edge */
	uint8_t hlen;                       /* the tunnel's hlen, eth and mpls (for a kind */
	bool eth, mpls;                     /* that does not fix them: GRE) */
};

/* A run's packets and bytes (counted by the node as it goes) added to its interface */
static inline void sl_tun_run_count(struct sl_worker *w, const struct sl_tun_run *r,
				    uint32_t *pkts, uint32_t *bytes)
{
	if (*pkts) {
		sl_add2(&w->ifc[r->ifx].tx_pkts, *pkts, &w->ifc[r->ifx].tx_bytes, *bytes);
		*pkts = *bytes = 0;
	}
}

/* A run to tunnel interface ifx begins (the last one counted): r->max_len 0 unless it goes
 * the fast way. hlen and eth: the kind's, or hlen 0 for the tunnel's own (r->hlen, r->eth);
 * v6: the node's outer family. */
static inline void sl_tun_run_begin(struct sl_tun_run *r, uint16_t ifx, unsigned hlen, bool eth,
				    uint8_t proto, struct sl_tun_cache *c, uint32_t gen,
				    rte_edge_t tx0, bool v6)
{
	r->ifx = ifx;
	r->max_len = 0;
	const struct sl_iface *f = &sl_ifaces[ifx];
	const struct sl_tun *t = sl_tun_by_if[ifx];
	if (unlikely(!t || !f->up || t->v6 != v6 || (hlen && t->hlen != hlen)))
		return;
	if (!hlen) {
		hlen = t->hlen;
		eth = t->eth;
	}
	r->hlen = (uint8_t)hlen;
	r->eth = eth;
	r->mpls = t->mpls;
	uint32_t id = sl_tun_adj(c, t, gen);
	if (unlikely(id & SL_LB_FLAG))
		return;
	const struct sl_adj *a = sl_adj_get(id);
	if (unlikely(a->type != SL_ADJ_FORWARD))
		return;
	memcpy(r->tmpl, a->rewrite, RTE_ETHER_HDR_LEN);
	memcpy(r->tmpl + RTE_ETHER_HDR_LEN, t->hdr, hlen);
	if (v6)
		((struct rte_ipv6_hdr *)(r->tmpl + RTE_ETHER_HDR_LEN))->proto = proto;
	else
		((struct rte_ipv4_hdr *)(r->tmpl + RTE_ETHER_HDR_LEN))->next_proto_id = proto;
	r->sum = t->hdr_sum + rte_cpu_to_be_16(proto);
	/* the outer packet, pkt_len + grow - 14 bytes, within the underlay's MTU; a frame kept
	 * whole within the tunnel's (routed packets were checked by ipN-rewrite) */
	unsigned grow = eth ? hlen + RTE_ETHER_HDR_LEN : hlen;
	uint32_t max = sl_ifaces[a->port].mtu + RTE_ETHER_HDR_LEN - grow;
	if (eth)
		max = RTE_MIN(max, f->mtu + (uint32_t)RTE_ETHER_HDR_LEN);
	r->max_len = max;
	r->port = a->port;
	r->next = (uint16_t)(tx0 + sl_if_fast[a->port].tx_slot);
}

/* m goes the run's fast way: within max_len, with headroom for the outer headers. */
static __rte_always_inline bool sl_tun_run_fits(const struct sl_tun_run *r,
						const struct rte_mbuf *m, unsigned hlen, bool eth)
{
	return likely(m->pkt_len <= r->max_len &&
		      rte_pktmbuf_headroom(m) >= (eth ? hlen + RTE_ETHER_HDR_LEN : hlen));
}

/* m grown by the run's outer headers (hlen bytes, and an Ethernet header for eth; the
 * template's first `first` bytes and its last 32 copied: hlen + 14 from 32 to first + 32):
 * the new start */
static __rte_always_inline uint8_t *sl_tun_run_grow(const struct sl_tun_run *r,
						    struct rte_mbuf *m, unsigned hlen, bool eth,
						    unsigned first)
{
	const unsigned grow = eth ? hlen + RTE_ETHER_HDR_LEN : hlen;
	const unsigned wr = hlen + RTE_ETHER_HDR_LEN; /* written from the new start */
	m->data_off = (uint16_t)(m->data_off - grow);
	m->data_len = (uint16_t)(m->data_len + grow);
	m->pkt_len += grow;
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(d, r->tmpl, first);
	memcpy(d + wr - 32, r->tmpl + wr - 32, 32);
	return d;
}

/* Encapsulates m (sl_tun_run_fits) for the run: returns where the kind's header begins. */
static __rte_always_inline uint8_t *sl_tun_run_put(const struct sl_tun_run *r,
						   struct rte_mbuf *m, unsigned hlen, bool eth)
{
	uint8_t *d = sl_tun_run_grow(r, m, hlen, eth, 32);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + RTE_ETHER_HDR_LEN);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN));
	uint32_t s = r->sum + ip->total_length;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	ip->hdr_checksum = (uint16_t)~s;
	sl_meta(m)->tx_if = r->port;
	return (uint8_t *)(ip + 1);
}

/* The same over IPv6 (hlen + 14 from 64 to 96 bytes): the payload length written. */
static __rte_always_inline uint8_t *sl_tun_run_put6(const struct sl_tun_run *r,
						    struct rte_mbuf *m, unsigned hlen, bool eth)
{
	uint8_t *d = sl_tun_run_grow(r, m, hlen, eth, 64);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + RTE_ETHER_HDR_LEN);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN - sizeof(*ip)));
	sl_meta(m)->tx_if = r->port;
	return (uint8_t *)(ip + 1);
}

/* A UDP tunnel's run over IPv6 (sl_tun_run_put6 gave its UDP header u): the source port,
 * the length and the checksum (RFC 8200 8.1), the pseudo-header's sum the run's. */
static __rte_always_inline void sl_tun_run_udp6(const struct sl_tun_run *r,
						const struct rte_mbuf *m, struct rte_udp_hdr *u,
						uint16_t sport)
{
	uint16_t ulen = (uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN - sizeof(struct rte_ipv6_hdr));
	u->src_port = rte_cpu_to_be_16(sport);
	u->dgram_len = rte_cpu_to_be_16(ulen);
	uint32_t s = r->sum + rte_cpu_to_be_16(ulen) +
		     sl_raw_cksum_mbuf(m, RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr), ulen);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	uint16_t ck = (uint16_t)~s;
	u->dgram_cksum = ck ? ck : 0xffff;
}

/* A UDP tunnel's run (sl_tun_run_put gave its UDP header u, m's frame now the outer one): the
 * source port and the length; the checksum stays 0 over IPv4 (RFC 7348 5, RFC 7510 3). */
static __rte_always_inline void sl_tun_run_udp(const struct rte_mbuf *m, struct rte_udp_hdr *u,
					       uint16_t sport)
{
	u->src_port = rte_cpu_to_be_16(sport);
	u->dgram_len = rte_cpu_to_be_16(
		(uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN - sizeof(struct rte_ipv4_hdr)));
}

/* A tunnel's encapsulation node `name` by runs: fast_fn(run, mbuf) encapsulates a packet the
 * fast way (sl_tun_run_put or sl_tun_run_put6 and the kind's own fields; it leaves by the
 * run's edge), or answers false to hand it to one_fn(worker, mbuf, cache, generation), which
 * does anything. HLEN and ETH: the kind's (constants), or HLEN 0 for each tunnel's own (the
 * run's); V6: the outer family (the node's). */
#define SL_TUN_ENCAP_RUNS(name, one_fn, fast_fn, HLEN, ETH, proto, tx0, V6)                 \
	SL_TUN_ENCAP_HEAD(name)                                                             \
		struct sl_tun_run r;                                                        \
		uint32_t pkts = 0, bytes = 0;                                               \
		r.ifx = UINT16_MAX;                                                         \
		r.max_len = 0;                                                              \
		for (uint16_t i = 0; i < n; i++) {                                          \
			struct rte_mbuf *m = objs[i];                                       \
			uint16_t ifx = sl_meta(m)->tx_if;                                   \
			uint32_t len = m->pkt_len;                                          \
			if (unlikely(ifx != r.ifx)) {                                       \
				sl_tun_run_count(w, &r, &pkts, &bytes);                     \
				sl_tun_run_begin(&r, ifx, HLEN, ETH, proto, c, gen, tx0, V6); \
			}                                                                   \
			const unsigned hl_ = (HLEN) ? (HLEN) : r.hlen;                      \
			const bool eth_ = (HLEN) ? (ETH) : r.eth;                           \
			if (likely(sl_tun_run_fits(&r, m, hl_, eth_) && fast_fn(&r, m))) {  \
				pkts++;                                                     \
				bytes += len - (eth_ ? 0 : RTE_ETHER_HDR_LEN);              \
				nexts[i] = r.next;                                          \
			} else                                                              \
				nexts[i] = one_fn(w, m, c, gen);                            \
		}                                                                           \
		sl_tun_run_count(w, &r, &pkts, &bytes);                                     \
		sl_enqueue_nexts(g, node, objs, nexts, n);                                  \
		return n;                                                                   \
	}

/* sl_tun_encap over IPv6: the outer IPv6 header's payload length and next header proto
 * written, the hop limit one more on the routing path's way (ip6-lookup in the encap table,
 * whose ip6-rewrite takes it off; ICMPv6 packet too big from there when the outer packet
 * exceeds its interface's MTU). The kind's checksums are the node's. */
static inline uint8_t *sl_tun_encap6(struct rte_mbuf *m, const struct sl_tun *t, unsigned hlen,
				     uint8_t proto, struct sl_tun_cache *c, uint32_t gen,
				     rte_edge_t tx0, uint16_t lookup, uint16_t *out)
{
	const struct sl_adj *a;
	uint16_t tl;
	bool fast;
	uint8_t *d = sl_tun_room(m, t, hlen, c, gen, &a, &tl, &fast);
	if (unlikely(!d))
		return NULL;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + RTE_ETHER_HDR_LEN);
	memcpy(ip, t->hdr, hlen);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(tl - sizeof(*ip)));
	ip->proto = proto;
	ip->hop_limits += !fast;
	sl_tun_send(m, t, d, a, fast, tx0, lookup, out);
	return (uint8_t *)(ip + 1);
}

/* A UDP tunnel's last per-packet fields, its header at u right after the outer IP header
 * (every other byte written): the length, and over IPv6 the checksum (mandatory: RFC 8200
 * 8.1) over the rest of the packet, the pseudo-header from t's addresses; over IPv4 the
 * checksum stays 0 (RFC 7348 5, RFC 7510 3). */
static inline void sl_tun_udp_finish(const struct rte_mbuf *m, const struct sl_tun *t,
				     struct rte_udp_hdr *u, bool v6)
{
	if (!v6) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)u - 1;
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->total_length) -
							   sizeof(*ip)));
		return;
	}
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)u - 1;
	uint16_t ulen = rte_be_to_cpu_16(ip->payload_len);
	u->dgram_len = ip->payload_len;
	uint16_t raw = sl_raw_cksum_mbuf(
		m, (uint32_t)((const uint8_t *)u - rte_pktmbuf_mtod(m, const uint8_t *)), ulen);
	uint32_t s = t->hdr_sum + raw + rte_cpu_to_be_16(ulen) + RTE_BE16(IPPROTO_UDP);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	uint16_t ck = (uint16_t)~s;
	u->dgram_cksum = ck ? ck : 0xffff;
}

#endif
