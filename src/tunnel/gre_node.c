/* SPDX-License-Identifier: BSD-3-Clause */
/* gre4-input (ip4-local, protocol 47) and ipip4-input (protocols 4 and 41) decapsulate into
 * their tunnel interface, and gre6-input and ipip6-input the same over IPv6 (ip6-local);
 * gre4-encap, ipip4-encap, gre6-encap and ipip6-encap are their types' output nodes. */
#include "gre.h"
#include "../runtime/cksum.h"
#include "../runtime/feature.h"

/* the inner packet's next node when it is IP on an L3 tunnel, or a frame on a teb one (its
 * mode's node, ethernet-input when routed); device-input-features when the tunnel has
 * features on that arc (tun_rx) */
#define TUN_NEXT_NODES "ip4-input", "ip6-input", "device-input-features", SL_MODE_NODES
enum { TUN_NEXT_DROP, TUN_NEXT_IP4, TUN_NEXT_IP6, TUN_NEXT_FEAT, TUN_NEXT_MODES,
       TUN_NB_NEXT = TUN_NEXT_MODES + SL_NB_MODES };
/* gre4-input's one more: MPLS (RFC 4023), popped by its label from any sender, as MPLS over
 * UDP */
#define GI_NEXT_MPLS TUN_NB_NEXT

struct tun_cache {
	struct sl_tun_key key;
	struct sl_tun_key6 key6;
	uint16_t ifx;
};
#define TUN_CACHE_INIT {.key = {.fib = UINT16_MAX}, .key6 = {.fib = UINT16_MAX}, .ifx = UINT16_MAX}

/* The outer header's length (to the upper layer, after any IPv6 extension headers) and the
 * protocol it names (*proto). */
static inline uint32_t tun_outer_len(const struct rte_mbuf *m, bool v6, uint8_t *proto)
{
	if (v6)
		return sl_ip6_l4_off(m, proto);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	*proto = ip->next_proto_id;
	return (ip->version_ihl & 0xf) * 4u;
}

/* The tunnel of kind, id and keyed between the outer header's addresses in its table (cached
 * for runs of one tunnel), or UINT16_MAX. */
static inline uint16_t tun_lookup(struct tun_cache *c, struct rte_mbuf *m, bool v6,
				  uint8_t kind, uint32_t id, uint8_t keyed)
{
	if (v6) {
		const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
		struct sl_tun_key6 k6 = {.id = id, .fib = sl_pkt_fib(m), .kind = kind, .keyed = keyed};
		memcpy(k6.remote, ip6->src_addr, 16);
		memcpy(k6.local, ip6->dst_addr, 16);
		if (unlikely(memcmp(&k6, &c->key6, sizeof(k6)))) {
			c->key6 = k6;
			c->ifx = sl_tun_find6(&k6);
		}
		return c->ifx;
	}
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	struct sl_tun_key k = {.remote = ip->src_addr, .local = ip->dst_addr, .id = id,
			       .fib = sl_pkt_fib(m), .kind = kind, .keyed = keyed};
	if (unlikely(memcmp(&k, &c->key, sizeof(k)))) {
		c->key = k;
		c->ifx = sl_tun_find(&k);
	}
	return c->ifx;
}

/* A decapsulation node's process function: one_fn(worker, mbuf, cache, v6). */
#define TUN_PROCESS(name, one_fn, v6)                                                       \
	static uint16_t name(struct rte_graph *g, struct rte_node *node, void **objs,       \
			     uint16_t n)                                                    \
	{                                                                                   \
		struct sl_worker *w = sl_node_worker(node);                                 \
		uint16_t nexts[n];                                                          \
		struct tun_cache c = TUN_CACHE_INIT;                                        \
		for (uint16_t i = 0; i < n; i++)                                            \
			nexts[i] = one_fn(w, objs[i], &c, v6);                              \
		sl_enqueue_nexts(g, node, objs, nexts, n);                                  \
		return n;                                                                   \
	}

/* m, its outer headers (off bytes) stripped, received on tunnel ifx; returns its edge: next,
 * or while the tunnel has device-input features (an input ACL, a policer), the first of them
 * through device-input-features, which read a frame: an L3 tunnel's IP packet (next
 * TUN_NEXT_IP4 or TUN_NEXT_IP6) gets an Ethernet header to and from the tunnel's MAC, in the
 * room of its outer headers (20 bytes at least), and the arc's end, the tunnel's mode
 * (ethernet-input), takes it off again. */
static inline uint16_t tun_rx(struct sl_worker *w, struct rte_mbuf *m, uint16_t ifx,
			      uint16_t off, uint16_t next)
{
	rte_pktmbuf_adj(m, off);
	m->port = ifx;
	m->ol_flags &= ~sl_flag_fib;
	w->ifc[ifx].rx_pkts++;
	w->ifc[ifx].rx_bytes += m->pkt_len;
	if (likely(!sl_if_features(ifx, SL_ARC_DEVICE_INPUT)))
		return next;
	if (next == TUN_NEXT_IP4 || next == TUN_NEXT_IP6) {
		struct rte_ether_hdr *e =
			(struct rte_ether_hdr *)rte_pktmbuf_prepend(m, RTE_ETHER_HDR_LEN);
		e->dst_addr = e->src_addr = sl_ifaces[ifx].mac;
		e->ether_type = next == TUN_NEXT_IP4 ? RTE_BE16(RTE_ETHER_TYPE_IPV4)
						     : RTE_BE16(RTE_ETHER_TYPE_IPV6);
	}
	return TUN_NEXT_FEAT;
}

/* ---- gre4-input ---- */

#define GI_ERRORS(X)                                                                \
	X(GI_ERR_SHORT, "GRE packet truncated")                                     \
	X(GI_ERR_FLAGS, "GRE flags or version not supported (RFC 2784, 2890)")      \
	X(GI_ERR_CKSUM, "GRE checksum bad")                                         \
	X(GI_ERR_NO_TUNNEL, "no tunnel for the addresses and key")                  \
	X(GI_ERR_DOWN, "tunnel down")                                               \
	X(GI_ERR_PROTO, "inner protocol not carried by the tunnel")
enum { GI_ERRORS(SL_ERR_ENUM) GI_NB_ERR };
static const char *const gi_reasons[] = {GI_ERRORS(SL_ERR_STR)};
static uint16_t gi_err, gi6_err;

static __rte_always_inline uint16_t gi_one(struct sl_worker *w, struct rte_mbuf *m,
					   struct tun_cache *c, bool v6)
{
	uint8_t proto;
	uint32_t hl = tun_outer_len(m, v6, &proto), off = 4;
	const uint8_t *g = rte_pktmbuf_mtod(m, const uint8_t *) + hl;
	uint16_t e;
	if (unlikely(m->data_len < hl + 4)) {
		e = GI_ERR_SHORT;
		goto drop;
	}
	/* C, K and S may be set; routing, strict source route, recursion, flags and a version
	 * other than 0 are RFC 1701's, not supported */
	if (unlikely((g[0] & 0x4f) || g[1])) {
		e = GI_ERR_FLAGS;
		goto drop;
	}
	bool ck = g[0] & 0x80, keyed = g[0] & 0x20;
	off += ck ? 4 : 0;
	uint32_t key = 0;
	if (keyed) {
		if (unlikely(m->data_len < hl + off + 4)) {
			e = GI_ERR_SHORT;
			goto drop;
		}
		memcpy(&key, g + off, 4);
		key = rte_be_to_cpu_32(key);
		off += 4;
	}
	off += (g[0] & 0x10) ? 4 : 0;
	if (unlikely(m->data_len < hl + off)) {
		e = GI_ERR_SHORT;
		goto drop;
	}
	/* RFC 2784 2.5: the checksum covers the GRE header and the payload */
	if (unlikely(ck) && (m->nb_segs != 1 ||
			     sl_raw_cksum(g, m->pkt_len - hl) != 0xffff)) {
		e = GI_ERR_CKSUM;
		goto drop;
	}
	uint16_t type;
	memcpy(&type, g + 2, 2);
	if (type == RTE_BE16(RTE_ETHER_TYPE_MPLS)) {
		rte_pktmbuf_adj(m, (uint16_t)(hl + off));
		return GI_NEXT_MPLS;
	}
	uint16_t ifx = tun_lookup(c, m, v6, SL_TUN_GRE, key, keyed);
	if (unlikely(ifx == UINT16_MAX)) {
		e = GI_ERR_NO_TUNNEL;
		goto drop;
	}
	const struct sl_iface *f = &sl_ifaces[ifx];
	if (unlikely(!f->up)) {
		e = GI_ERR_DOWN;
		goto drop;
	}
	bool teb = !f->p2p;
	if (teb && type == RTE_BE16(SL_ETHER_TYPE_TEB) &&
	    m->data_len >= hl + off + RTE_ETHER_HDR_LEN) {
		return tun_rx(w, m, ifx, (uint16_t)(hl + off),
			      (uint16_t)(TUN_NEXT_MODES + __atomic_load_n(&f->mode, __ATOMIC_ACQUIRE)));
	}
	if (!teb && (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
		     type == RTE_BE16(RTE_ETHER_TYPE_IPV6))) {
		return tun_rx(w, m, ifx, (uint16_t)(hl + off),
			      type == RTE_BE16(RTE_ETHER_TYPE_IPV4) ? TUN_NEXT_IP4 : TUN_NEXT_IP6);
	}
	e = GI_ERR_PROTO;
drop:
	sl_set_error(m, (v6 ? gi6_err : gi_err) + e);
	return TUN_NEXT_DROP;
}

TUN_PROCESS(gi_process, gi_one, false)
TUN_PROCESS(gi6_process, gi_one, true)

static struct rte_node_register gi_node = {
	.name = "gre4-input",
	.process = gi_process,
	.init = sl_node_init,
	.nb_edges = TUN_NB_NEXT + 1,
	.next_nodes = {[TUN_NEXT_DROP] = "error-drop", TUN_NEXT_NODES,
		       [GI_NEXT_MPLS] = "mpls-gre-input"},
};
SL_NODE_REGISTER(gi_node)

static struct rte_node_register gi6_node = {
	.name = "gre6-input",
	.process = gi6_process,
	.init = sl_node_init,
	.nb_edges = TUN_NB_NEXT + 1,
	.next_nodes = {[TUN_NEXT_DROP] = "error-drop", TUN_NEXT_NODES,
		       [GI_NEXT_MPLS] = "mpls-gre-input"},
};
SL_NODE_REGISTER(gi6_node)

/* ---- ipip4-input ---- */

#define II_ERRORS(X)                                                  \
	X(II_ERR_NO_TUNNEL, "no tunnel for the addresses")            \
	X(II_ERR_DOWN, "tunnel down")
enum { II_ERRORS(SL_ERR_ENUM) II_NB_ERR };
static const char *const ii_reasons[] = {II_ERRORS(SL_ERR_STR)};
static uint16_t ii_err, ii6_err;

static __rte_always_inline uint16_t ii_one(struct sl_worker *w, struct rte_mbuf *m,
					   struct tun_cache *c, bool v6)
{
	uint8_t proto;
	uint32_t hl = tun_outer_len(m, v6, &proto);
	uint16_t ifx = tun_lookup(c, m, v6, SL_TUN_IPIP, 0, 0), e;
	if (unlikely(ifx == UINT16_MAX)) {
		e = II_ERR_NO_TUNNEL;
		goto drop;
	}
	if (unlikely(!sl_ifaces[ifx].up)) {
		e = II_ERR_DOWN;
		goto drop;
	}
	/* ipN-input checks what is inside */
	return tun_rx(w, m, ifx, (uint16_t)hl, proto == IPPROTO_IPIP ? TUN_NEXT_IP4 : TUN_NEXT_IP6);
drop:
	sl_set_error(m, (v6 ? ii6_err : ii_err) + e);
	return TUN_NEXT_DROP;
}

TUN_PROCESS(ii_process, ii_one, false)
TUN_PROCESS(ii6_process, ii_one, true)

static struct rte_node_register ii_node = {
	.name = "ipip4-input",
	.process = ii_process,
	.init = sl_node_init,
	.nb_edges = TUN_NB_NEXT,
	.next_nodes = {[TUN_NEXT_DROP] = "error-drop", TUN_NEXT_NODES},
};
SL_NODE_REGISTER(ii_node)

static struct rte_node_register ii6_node = {
	.name = "ipip6-input",
	.process = ii6_process,
	.init = sl_node_init,
	.nb_edges = TUN_NB_NEXT,
	.next_nodes = {[TUN_NEXT_DROP] = "error-drop", TUN_NEXT_NODES},
};
SL_NODE_REGISTER(ii6_node)

/* ---- gre4-encap, ipip4-encap, gre6-encap, ipip6-encap ---- */

#define TE_ERRORS(X)                                                            \
	X(TE_ERR_DOWN, "tunnel down")                                           \
	X(TE_ERR_MTU, "frame longer than the tunnel's MTU")                     \
	X(TE_ERR_NOT_IP, "not IPv4 or IPv6 (a point-to-point tunnel carries IP)") \
	X(TE_ERR_HEADROOM, "no headroom for the outer headers")
enum { TE_ERRORS(SL_ERR_ENUM) TE_NB_ERR };
static const char *const te_reasons[] = {TE_ERRORS(SL_ERR_STR)};
static uint16_t te_err[2][2]; /* [v6][gre] */

enum { TE_NEXT_DROP, TE_NEXT_LOOKUP, TE_NB_STATIC };
static rte_edge_t te_tx0[2][2]; /* the underlay interface's output: + its tx_slot */

static __rte_always_inline uint16_t te_one(struct sl_worker *w, struct rte_mbuf *m,
					   struct sl_tun_cache *c, uint32_t gen, bool gre, bool v6)
{
	uint16_t ifx = sl_meta(m)->tx_if, e, next;
	const struct sl_iface *f = &sl_ifaces[ifx];
	const struct sl_tun *t = sl_tun_by_if[ifx];
	if (unlikely(!t || !f->up)) {
		e = TE_ERR_DOWN;
		goto drop;
	}
	uint16_t type = RTE_BE16(SL_ETHER_TYPE_TEB);
	if (t->eth) {
		/* routed packets were checked against the MTU by ipN-rewrite; frames here */
		if (unlikely(m->pkt_len > f->mtu + (uint32_t)RTE_ETHER_HDR_LEN)) {
			e = TE_ERR_MTU;
			goto drop;
		}
	} else {
		memcpy(&type, rte_pktmbuf_mtod_offset(m, const uint8_t *, 12), 2);
		if (unlikely(type != RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
			     type != RTE_BE16(RTE_ETHER_TYPE_IPV6))) {
			e = TE_ERR_NOT_IP;
			goto drop;
		}
	}
	/* MPLS over GRE (RFC 4023): the label's TTL is the IP packet's, after ipN-rewrite's hop
	 * (RFC 3443 uniform) */
	uint8_t ttl = t->mpls ? rte_pktmbuf_mtod(m, const uint8_t *)[
		RTE_ETHER_HDR_LEN + (type == RTE_BE16(RTE_ETHER_TYPE_IPV4) ? 8 : 7)] : 0;
	w->ifc[ifx].tx_pkts++;
	w->ifc[ifx].tx_bytes += m->pkt_len - (t->eth ? 0 : RTE_ETHER_HDR_LEN);
	uint8_t proto = gre ? IPPROTO_GRE
			    : type == RTE_BE16(RTE_ETHER_TYPE_IPV4) ? IPPROTO_IPIP : IPPROTO_IPV6;
	uint8_t *h = v6 ? sl_tun_encap6(m, t, t->hlen, proto, c, gen, te_tx0[1][gre],
					TE_NEXT_LOOKUP, &next)
			: sl_tun_encap(m, t, t->hlen, proto, c, gen, te_tx0[0][gre], TE_NEXT_LOOKUP,
				       &next);
	if (unlikely(!h)) {
		e = TE_ERR_HEADROOM;
		goto drop;
	}
	if (unlikely(t->mpls)) /* the template's protocol is 0x8847; the label is last */
		h[t->hlen - sl_tun_iplen(t) - 1] = ttl;
	else if (gre && !t->eth)
		memcpy(h + 2, &type, 2);
	return next;
drop:
	w->ifc[ifx].drops++;
	sl_set_error(m, te_err[v6][gre] + e);
	return TE_NEXT_DROP;
}

#define TE_ONE(name, gre, v6)                                                               \
	static inline uint16_t name(struct sl_worker *w, struct rte_mbuf *m,                \
				    struct sl_tun_cache *c, uint32_t gen)                   \
	{                                                                                   \
		return te_one(w, m, c, gen, gre, v6);                                       \
	}
TE_ONE(ge, true, false)
TE_ONE(ie, false, false)
TE_ONE(ge6, true, true)
TE_ONE(ie6, false, true)
SL_TUN_ENCAP_PROCESS(ge6_process, ge6)
SL_TUN_ENCAP_PROCESS(ie6_process, ie6)

/* gre4-encap's fast way (the run's tunnel: its header's length, teb or not, MPLS or not): the
 * outer headers from the run's copy, then an IP packet's protocol type or, under MPLS, the
 * label's TTL (te_one's per-packet fields) */
static __rte_always_inline bool ge_fast(const struct sl_tun_run *r, struct rte_mbuf *m)
{
	const uint8_t *fr = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type = 0;
	uint8_t ttl = 0;
	if (!r->eth && unlikely(!sl_tun_inner_ip(fr, &type, &ttl)))
		return false;
	uint8_t *h = sl_tun_run_put(r, m, r->hlen, r->eth);
	if (unlikely(r->mpls)) /* the template's protocol is 0x8847; the label is last */
		h[r->hlen - sizeof(struct rte_ipv4_hdr) - 1] = ttl;
	else if (!r->eth)
		memcpy(h + 2, &type, 2);
	return true;
}

SL_TUN_ENCAP_RUNS(ge_process, ge, ge_fast, 0, false, IPPROTO_GRE, te_tx0[0][1], false)

/* ipip4-encap's fast way: IPv4 inside (protocol 4, the run template's); IPv6 inside (41) is
 * te_one's */
static __rte_always_inline bool ie_fast(const struct sl_tun_run *r, struct rte_mbuf *m)
{
	uint16_t type;
	memcpy(&type, rte_pktmbuf_mtod_offset(m, const uint8_t *, 12), 2);
	if (type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return false;
	sl_tun_run_put(r, m, sizeof(struct rte_ipv4_hdr), false);
	return true;
}

SL_TUN_ENCAP_RUNS(ie_process, ie, ie_fast, sizeof(struct rte_ipv4_hdr), false, IPPROTO_IPIP,
		  te_tx0[0][0], false)

static struct rte_node_register ge_node = {
	.name = "gre4-encap",
	.process = ge_process,
	.init = sl_node_init,
	.nb_edges = TE_NB_STATIC,
	.next_nodes = {[TE_NEXT_DROP] = "error-drop", [TE_NEXT_LOOKUP] = "ip4-lookup"},
};
SL_NODE_REGISTER(ge_node)

static struct rte_node_register ie_node = {
	.name = "ipip4-encap",
	.process = ie_process,
	.init = sl_node_init,
	.nb_edges = TE_NB_STATIC,
	.next_nodes = {[TE_NEXT_DROP] = "error-drop", [TE_NEXT_LOOKUP] = "ip4-lookup"},
};
SL_NODE_REGISTER(ie_node)

static struct rte_node_register ge6_node = {
	.name = "gre6-encap",
	.process = ge6_process,
	.init = sl_node_init,
	.nb_edges = TE_NB_STATIC,
	.next_nodes = {[TE_NEXT_DROP] = "error-drop", [TE_NEXT_LOOKUP] = "ip6-lookup"},
};
SL_NODE_REGISTER(ge6_node)

static struct rte_node_register ie6_node = {
	.name = "ipip6-encap",
	.process = ie6_process,
	.init = sl_node_init,
	.nb_edges = TE_NB_STATIC,
	.next_nodes = {[TE_NEXT_DROP] = "error-drop", [TE_NEXT_LOOKUP] = "ip6-lookup"},
};
SL_NODE_REGISTER(ie6_node)

RTE_INIT(gre_nodes_init)
{
	static const char *const enc[2][2] = {{"ipip4-encap", "gre4-encap"},
					      {"ipip6-encap", "gre6-encap"}};
	gi_err = sl_error_register("gre4-input", gi_reasons, GI_NB_ERR);
	ii_err = sl_error_register("ipip4-input", ii_reasons, II_NB_ERR);
	gi6_err = sl_error_register("gre6-input", gi_reasons, GI_NB_ERR);
	ii6_err = sl_error_register("ipip6-input", ii_reasons, II_NB_ERR);
	for (int v6 = 0; v6 < 2; v6++)
		for (int gre = 0; gre < 2; gre++) {
			te_err[v6][gre] = sl_error_register(enc[v6][gre], te_reasons, TE_NB_ERR);
			sl_iface_tx_user(enc[v6][gre], &te_tx0[v6][gre]);
		}
	sl_ip4_proto_register(IPPROTO_GRE, "gre4-input");
	sl_ip4_proto_register(IPPROTO_IPIP, "ipip4-input");
	sl_ip4_proto_register(IPPROTO_IPV6, "ipip4-input");
	sl_ip6_proto_register(IPPROTO_GRE, "gre6-input");
	sl_ip6_proto_register(IPPROTO_IPIP, "ipip6-input");
	sl_ip6_proto_register(IPPROTO_IPV6, "ipip6-input");
	sl_iface_output_register(SL_IF_GRE, "gre4-encap");
	sl_iface_output_register(SL_IF_MPLSGRE, "gre4-encap");
	sl_iface_output_register(SL_IF_IPIP, "ipip4-encap");
	sl_iface_output_register(SL_IF_GRE6, "gre6-encap");
	sl_iface_output_register(SL_IF_MPLSGRE6, "gre6-encap");
	sl_iface_output_register(SL_IF_IPIP6, "ipip6-encap");
}
