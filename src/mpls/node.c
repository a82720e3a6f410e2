/* SPDX-License-Identifier: BSD-3-Clause */
/* mpls-input (ethertype 0x8847), mpls4-udp-input and mpls6-udp-input (UDP 6635, RFC 7510)
 * and mpls-gre-input (GRE protocol 0x8847, RFC 4023) pop a bottom-of-stack label into the
 * table its local label names, or swap a label for an out-path's and send it to its next
 * hop; mplsudp4-encap and mplsudp6-encap are the MPLS-over-UDP tunnels' output nodes (the
 * label pushed, RFC 3032, then UDP and IPv4 or IPv6). */
#include "mpls.h"
#include "../ethernet/ethernet.h"

#include <rte_udp.h>

#define MI_ERRORS(X)                                                             \
	X(MI_ERR_OFF, "MPLS not enabled on the interface")                       \
	X(MI_ERR_SHORT, "MPLS packet truncated")                                 \
	X(MI_ERR_LABEL, "no local label for the label and its S bit")        \
	X(MI_ERR_DEEP, "label stack deeper than 4 labels")                  \
	X(MI_ERR_TTL, "MPLS TTL expired")                                        \
	X(MI_ERR_NOT_IP, "not IPv4 or IPv6 under the bottom label")              \
	X(MI_ERR_UNRESOLVED, "out-path: next hop not resolved (ARP asked)")          \
	X(MI_ERR_SWAP_GONE, "out-path deleted")                             \
	X(MI_ERR_HEADROOM, "out-path: no headroom for the labels")                   \
	X(MI_ERR_IP_TTL, "pop and forward: IP TTL expired")
enum { MI_ERRORS(SL_ERR_ENUM) MI_NB_ERR };
static const char *const mi_reasons[] = {MI_ERRORS(SL_ERR_STR)};
static uint16_t mi_err, mu_err, mu6_err;
static rte_edge_t mi_tx0, mu_tx0, mu6_tx0, mg_tx0; /* swaps: the interfaces' outputs */

enum { MI_NEXT_DROP, MI_NEXT_IP4, MI_NEXT_IP6, MI_NB_NEXT };

struct label_cache {
	uint32_t word; /* the last outer label stack entry's label, TC and S bits, as sent */
	bool table;    /* its local label pops into a table (data: SL_MPLS_POP_LOOKUP) */
	uint64_t data;
};

#define MPLS_DEPTH_MAX 4

/* The local label of a stack entry w (host order): its label and S bit. */
static inline uint64_t entry_find(uint32_t w)
{
	return sl_mpls_find(w >> 12, w & 0x100);
}

/* The IP packet under a bottom label popped to be forwarded: one hop off its TTL (as routing
 * would take; the label's is not copied in: RFC 3443's pipe model, as on pop and lookup). */
static inline bool ip_hop(struct rte_mbuf *m, uint16_t *e)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t v = l3[0] >> 4;
	if (unlikely((v != 4 || m->data_len < 20) && (v != 6 || m->data_len < 40))) {
		*e = MI_ERR_NOT_IP;
		return false;
	}
	uint8_t *ttl = &l3[v == 4 ? 8 : 7];
	if (unlikely(*ttl <= 1)) {
		*e = MI_ERR_IP_TTL;
		return false;
	}
	(*ttl)--;
	if (v == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		ip->hdr_checksum = sl_cksum_ttl_dec(ip->hdr_checksum);
	}
	return true;
}

/* Swaps the label popped (its entry w, data its local label's) for its out-path's labels,
 * TTL less one, the S bit kept (RFC 3032, RFC 3443); an out-path without labels forwards
 * the IP packet under a bottom label. */
static inline uint16_t mpls_swap(struct rte_mbuf *m, uint32_t w, uint64_t data, rte_edge_t tx0,
				 uint16_t *e)
{
	const struct sl_mpls_out *o =
		__atomic_load_n(&sl_mpls_outs[(uint16_t)data], __ATOMIC_ACQUIRE);
	if (unlikely(!o)) {
		*e = MI_ERR_SWAP_GONE;
		return UINT16_MAX;
	}
	if (o->n == 0 && !ip_hop(m, e))
		return UINT16_MAX;
	bool unresolved;
	uint16_t next = sl_mpls_push(m, o, (uint8_t)((w & 0xff) - 1), w & 0x100, tx0, &unresolved);
	if (unlikely(next == UINT16_MAX))
		*e = unresolved ? MI_ERR_UNRESOLVED : MI_ERR_HEADROOM;
	return next;
}

/* m's data is a label stack: pop its labels (non-eos ones look the next label up) until the
 * bottom one, whose local label names the table the IP packet under it is looked up in, or
 * one whose local label swaps it. */
static inline uint16_t mpls_pop(struct rte_mbuf *m, struct label_cache *c, uint16_t err,
				rte_edge_t tx0)
{
	uint16_t e;
	for (unsigned depth = 0;; depth++) {
		if (unlikely(m->data_len < 5)) {
			e = MI_ERR_SHORT;
			goto drop;
		}
		if (unlikely(depth == MPLS_DEPTH_MAX)) {
			e = MI_ERR_DEEP;
			goto drop;
		}
		uint32_t w;
		memcpy(&w, rte_pktmbuf_mtod(m, const void *), 4);
		uint32_t word = w & RTE_BE32(0xffffff00);
		w = rte_be_to_cpu_32(w);
		uint64_t data;
		if (depth == 0) { /* runs of one outer label are the rule */
			if (word != c->word) {
				c->word = word;
				c->data = entry_find(w);
				c->table = c->data >> 32 == SL_MPLS_POP_LOOKUP;
			}
			data = c->data;
		} else {
			data = entry_find(w);
		}
		if (unlikely(!data)) {
			e = MI_ERR_LABEL;
			goto drop;
		}
		if (unlikely((w & 0xff) <= 1)) { /* RFC 3032 2.4.1: not forwarded with TTL 0 or 1 */
			e = MI_ERR_TTL;
			goto drop;
		}
		rte_pktmbuf_adj(m, 4);
		if (data >> 32 == SL_MPLS_POP_MPLS) /* only non-eos entries have it */
			continue;
		if (data >> 32 == SL_MPLS_SWAP) {
			uint16_t next = mpls_swap(m, w, data, tx0, &e);
			if (unlikely(next == UINT16_MAX))
				goto drop;
			return next;
		}
		uint8_t v = *rte_pktmbuf_mtod(m, const uint8_t *) >> 4;
		if (unlikely(v != 4 && v != 6)) {
			e = MI_ERR_NOT_IP;
			goto drop;
		}
		sl_meta2(m)->fib = (uint16_t)data;
		m->ol_flags |= sl_flag_fib;
		return v == 4 ? MI_NEXT_IP4 : MI_NEXT_IP6;
	}
drop:
	sl_set_error(m, err + e);
	return MI_NEXT_DROP;
}

/* The rule at once: off bytes (an outer header) then the run's outer label, cached, a bottom
 * label that pops into a table, its TTL over 1, IPv4 or IPv6 under it; the outer header
 * and the label off in one step. Anything else (the cache's first packet, a deeper stack, a
 * swap, every error) walks the stack in mpls_pop, which fills the cache. */
static __rte_always_inline uint16_t mpls_pop_at(struct rte_mbuf *m, struct label_cache *c,
						uint32_t off, uint16_t err, rte_edge_t tx0)
{
	const uint8_t *p = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	uint32_t w;
	memcpy(&w, p, 4);
	uint8_t v = p[4] >> 4;
	if (likely(m->data_len >= off + 5 && (w & RTE_BE32(0xffffff00)) == c->word && c->table &&
		   p[3] > 1 && (v == 4 || v == 6))) {
		uint16_t k = (uint16_t)(off + 4);
		m->data_off += k;
		m->data_len -= k;
		m->pkt_len -= k;
		sl_meta2(m)->fib = (uint16_t)c->data;
		m->ol_flags |= sl_flag_fib;
		return v == 4 ? MI_NEXT_IP4 : MI_NEXT_IP6;
	}
	if (unlikely(m->data_len < off)) { /* ipN-udp-local checked it; kept for the fuzzer */
		sl_set_error(m, err + MI_ERR_SHORT);
		return MI_NEXT_DROP;
	}
	rte_pktmbuf_adj(m, (uint16_t)off);
	return mpls_pop(m, c, err, tx0);
}

static inline uint16_t mi_one(struct rte_mbuf *m, struct label_cache *c)
{
	if (unlikely(!__atomic_load_n(&sl_ifaces[m->port].mpls, __ATOMIC_RELAXED))) {
		sl_set_error(m, mi_err + MI_ERR_OFF);
		return MI_NEXT_DROP;
	}
	return mpls_pop_at(m, c, 0, mi_err, mi_tx0);
}

static uint16_t mi_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	uint16_t nexts[n];
	struct label_cache c = {.word = UINT32_MAX};
	for (uint16_t i = 0; i < n; i++)
		nexts[i] = mi_one(objs[i], &c);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register mi_node = {
	.name = "mpls-input",
	.process = mi_process,
	.init = sl_node_init,
	.nb_edges = MI_NB_NEXT,
	.next_nodes = {[MI_NEXT_DROP] = "error-drop", [MI_NEXT_IP4] = "ip4-input",
		       [MI_NEXT_IP6] = "ip6-input"},
};
SL_NODE_REGISTER(mi_node)

/* ---- mpls4-udp-input: from any sender, as VPP's udp decap (the label decides) ---- */

static __rte_always_inline uint16_t mu_any(struct rte_mbuf *m, struct label_cache *c, bool v6)
{
	uint32_t off;
	if (v6) { /* after any extension headers */
		uint8_t proto;
		off = sl_ip6_l4_off(m, &proto) + sizeof(struct rte_udp_hdr);
	} else {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
		off = (ip->version_ihl & 0xf) * 4u + sizeof(struct rte_udp_hdr);
	}
	return mpls_pop_at(m, c, off, v6 ? mu6_err : mu_err, v6 ? mu6_tx0 : mu_tx0);
}

#define MU_PROCESS(name, v6)                                                                \
	static uint16_t name(struct rte_graph *g, struct rte_node *node, void **objs,       \
			     uint16_t n)                                                    \
	{                                                                                   \
		uint16_t nexts[n];                                                          \
		struct label_cache c = {.word = UINT32_MAX};                                \
		for (uint16_t i = 0; i < n; i++)                                            \
			nexts[i] = mu_any(objs[i], &c, v6);                                 \
		sl_enqueue_nexts(g, node, objs, nexts, n);                                  \
		return n;                                                                   \
	}
MU_PROCESS(mu_process, false)
MU_PROCESS(mu6_process, true)

static struct rte_node_register mu_node = {
	.name = "mpls4-udp-input",
	.process = mu_process,
	.init = sl_node_init,
	.nb_edges = MI_NB_NEXT,
	.next_nodes = {[MI_NEXT_DROP] = "error-drop", [MI_NEXT_IP4] = "ip4-input",
		       [MI_NEXT_IP6] = "ip6-input"},
};
SL_NODE_REGISTER(mu_node)

static struct rte_node_register mu6_node = {
	.name = "mpls6-udp-input",
	.process = mu6_process,
	.init = sl_node_init,
	.nb_edges = MI_NB_NEXT,
	.next_nodes = {[MI_NEXT_DROP] = "error-drop", [MI_NEXT_IP4] = "ip4-input",
		       [MI_NEXT_IP6] = "ip6-input"},
};
SL_NODE_REGISTER(mu6_node)

/* ---- mpls-gre-input: gre4-input has stripped the GRE header (RFC 4023) ---- */

static uint16_t mg_err;

static uint16_t mg_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	uint16_t nexts[n];
	struct label_cache c = {.word = UINT32_MAX};
	for (uint16_t i = 0; i < n; i++)
		nexts[i] = mpls_pop_at(objs[i], &c, 0, mg_err, mg_tx0);
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register mg_node = {
	.name = "mpls-gre-input",
	.process = mg_process,
	.init = sl_node_init,
	.nb_edges = MI_NB_NEXT,
	.next_nodes = {[MI_NEXT_DROP] = "error-drop", [MI_NEXT_IP4] = "ip4-input",
		       [MI_NEXT_IP6] = "ip6-input"},
};
SL_NODE_REGISTER(mg_node)

/* ---- mplsudp4-encap, mplsudp6-encap ---- */

#define ME_ERRORS(X)                                                              \
	X(ME_ERR_DOWN, "tunnel down")                                             \
	X(ME_ERR_NOT_IP, "not IPv4 or IPv6 (a point-to-point tunnel carries IP)") \
	X(ME_ERR_HEADROOM, "no headroom for the outer headers")
enum { ME_ERRORS(SL_ERR_ENUM) ME_NB_ERR };
static const char *const me_reasons[] = {ME_ERRORS(SL_ERR_STR)};
static uint16_t me_err, me6_err;

enum { ME_NEXT_DROP, ME_NEXT_LOOKUP, ME_NB_STATIC };
static rte_edge_t me_tx0, me6_tx0;

static __rte_always_inline uint16_t me_any(struct sl_worker *w, struct rte_mbuf *m,
					   struct sl_tun_cache *c, uint32_t gen, bool v6)
{
	uint16_t ifx = sl_meta(m)->tx_if, e, next;
	const struct sl_tun *t = sl_tun_by_if[ifx];
	if (unlikely(!t || !sl_ifaces[ifx].up)) {
		e = ME_ERR_DOWN;
		goto drop;
	}
	const uint8_t *fr = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;
	uint8_t ttl; /* the label's (RFC 3443 uniform) */
	if (unlikely(!sl_tun_inner_ip(fr, &type, &ttl))) {
		e = ME_ERR_NOT_IP;
		goto drop;
	}
	uint16_t sport = sl_tun_sport(m, fr);
	w->ifc[ifx].tx_pkts++;
	w->ifc[ifx].tx_bytes += m->pkt_len - RTE_ETHER_HDR_LEN;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(
		v6 ? sl_tun_encap6(m, t, SL_MPLSUDP6_ENCAP_LEN, IPPROTO_UDP, c, gen, me6_tx0,
				   ME_NEXT_LOOKUP, &next)
		   : sl_tun_encap(m, t, SL_MPLSUDP_ENCAP_LEN, IPPROTO_UDP, c, gen, me_tx0,
				  ME_NEXT_LOOKUP, &next));
	if (unlikely(!u)) {
		e = ME_ERR_HEADROOM;
		goto drop;
	}
	u->src_port = rte_cpu_to_be_16(sport);
	((uint8_t *)(u + 1))[3] = ttl;
	sl_tun_udp_finish(m, t, u, v6); /* over IPv6 the checksum covers the label too */
	return next;
drop:
	w->ifc[ifx].drops++;
	sl_set_error(m, (v6 ? me6_err : me_err) + e);
	return ME_NEXT_DROP;
}

SL_TUN_ENCAP_ONE_FAM(me, me_any, false)

/* The fast way over IPv4 (an IP packet): the outer headers from the run's copy, then the UDP
 * port and length and the label's TTL */
static __rte_always_inline bool me_fast(const struct sl_tun_run *r, struct rte_mbuf *m)
{
	const uint8_t *fr = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;
	uint8_t ttl;
	if (unlikely(!sl_tun_inner_ip(fr, &type, &ttl)))
		return false;
	uint16_t sport = sl_tun_sport(m, fr);
	struct rte_udp_hdr *u =
		(struct rte_udp_hdr *)sl_tun_run_put(r, m, SL_MPLSUDP_ENCAP_LEN, false);
	sl_tun_run_udp(m, u, sport);
	((uint8_t *)(u + 1))[3] = ttl;
	return true;
}

SL_TUN_ENCAP_RUNS(me_process, me_one, me_fast, SL_MPLSUDP_ENCAP_LEN, false, IPPROTO_UDP, me_tx0, false)
SL_TUN_ENCAP_PROCESS_FAM(me6_process, me_any, true)

static struct rte_node_register me_node = {
	.name = "mplsudp4-encap",
	.process = me_process,
	.init = sl_node_init,
	.nb_edges = ME_NB_STATIC,
	.next_nodes = {[ME_NEXT_DROP] = "error-drop", [ME_NEXT_LOOKUP] = "ip4-lookup"},
};
SL_NODE_REGISTER(me_node)

static struct rte_node_register me6_node = {
	.name = "mplsudp6-encap",
	.process = me6_process,
	.init = sl_node_init,
	.nb_edges = ME_NB_STATIC,
	.next_nodes = {[ME_NEXT_DROP] = "error-drop", [ME_NEXT_LOOKUP] = "ip6-lookup"},
};
SL_NODE_REGISTER(me6_node)

RTE_INIT(mpls_nodes_init)
{
	mi_err = sl_error_register("mpls-input", mi_reasons, MI_NB_ERR);
	mu_err = sl_error_register("mpls4-udp-input", mi_reasons, MI_NB_ERR);
	mg_err = sl_error_register("mpls-gre-input", mi_reasons, MI_NB_ERR);
	me_err = sl_error_register("mplsudp4-encap", me_reasons, ME_NB_ERR);
	mu6_err = sl_error_register("mpls6-udp-input", mi_reasons, MI_NB_ERR);
	me6_err = sl_error_register("mplsudp6-encap", me_reasons, ME_NB_ERR);
	sl_udp6_port_register(SL_MPLS_UDP_PORT, "mpls6-udp-input");
	sl_iface_output_register(SL_IF_MPLSUDP6, "mplsudp6-encap");
	sl_iface_tx_user("mplsudp6-encap", &me6_tx0);
	sl_iface_tx_user("mpls6-udp-input", &mu6_tx0);
	sl_eth_type_register(RTE_ETHER_TYPE_MPLS, "mpls-input");
	sl_udp_port_register(SL_MPLS_UDP_PORT, "mpls4-udp-input");
	sl_iface_output_register(SL_IF_MPLSUDP, "mplsudp4-encap");
	sl_iface_tx_user("mplsudp4-encap", &me_tx0);
	sl_iface_tx_user("mpls-input", &mi_tx0);
	sl_iface_tx_user("mpls4-udp-input", &mu_tx0);
	sl_iface_tx_user("mpls-gre-input", &mg_tx0);
}
