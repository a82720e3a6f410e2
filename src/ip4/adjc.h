/* SPDX-License-Identifier: BSD-3-Clause */
/* ipN-rewrite's walk over a vector's adjacencies, both families: what a packet's adjacency
 * gives the rewrite (the adjacency, its MTU and tx slot, which it copies from its interface:
 * struct sl_adj, and its port).
 *
 * A vector sent to one adjacency (a route's next hop) keeps it in registers, read again only
 * when a packet names another. A vector spread over a few (ECMP's paths, whose packets
 * alternate at random) or many (hosts, subscriber sessions) reads each packet's own from
 * the adjacency table, the many fetched ahead: with the MTU and tx slot in the adjacency
 * that is as cheap as a cache of the few (which cost ECMP 2-4 instructions a packet more, and
 * the interface's line besides). Which one is chosen from the vector's first packets. */
#ifndef SL_IP4_ADJC_H
#define SL_IP4_ADJC_H
#include "ip4.h"
#include "../interface/iface.h"
#include <string.h>

/* Both rewrites' last step: adjacency adj's Ethernet header (its ethertype included) right
 * before the IP header at ip, as rte_pktmbuf_prepend would put it, without its test (the
 * caller checked the headroom). */
static __rte_always_inline void sl_adjc_prepend_eth(struct rte_mbuf *m, void *ip,
						    const struct sl_adj *adj)
{
	m->data_off -= RTE_ETHER_HDR_LEN;
	m->data_len += RTE_ETHER_HDR_LEN;
	m->pkt_len += RTE_ETHER_HDR_LEN;
	uint8_t *eth = (uint8_t *)ip - RTE_ETHER_HDR_LEN;
	memcpy(eth, adj->rewrite, 12);
	memcpy(eth + 12, adj->rewrite + 12, 2);
}

enum sl_adjc_spread { SL_ADJC_ONE, SL_ADJC_FEW, SL_ADJC_MANY };

/* Where a vector's adjacencies go, from its first 5 packets compared without a branch per
 * pair (a loop that counted distinct ones cost the many-adjacency path a clock a packet in
 * mispredictions): all one, some the same (which 4 paths always give), or all different.
 * A vector of 8 or fewer is taken as one. */
static inline enum sl_adjc_spread sl_adjc_spread(void **objs, uint16_t n)
{
	if (n <= 8)
		return SL_ADJC_ONE;
	uint32_t a[5];
	for (unsigned i = 0; i < 5; i++)
		a[i] = sl_meta(objs[i])->adj;
	bool same = false, differ = false;
	for (unsigned i = 0; i < 5; i++)
		for (unsigned j = i + 1; j < 5; j++)
			same |= a[i] == a[j];
	for (unsigned i = 1; i < 5; i++)
		differ |= a[i] != a[0];
	return !same ? SL_ADJC_MANY : differ ? SL_ADJC_FEW : SL_ADJC_ONE;
}

/* ipN-rewrite's work for packet m to adjacency adj, with its MTU, tx edge and port. */
typedef uint16_t (*sl_adjc_rw_fn)(struct sl_worker *w, struct rte_mbuf *m, uint32_t mtu,
				  uint16_t next, const struct sl_adj *adj, uint16_t port);

/* A vector to one adjacency: it, its MTU, edge and port in registers (one), filled again when
 * a packet names another. */
struct sl_adjc {
	uint32_t id;
	uint16_t mtu;
	uint16_t next; /* its tx edge from the rewrite node */
};

static inline const struct sl_adj *sl_adjc_fill(struct sl_adjc *c, uint32_t id, rte_edge_t tx0)
{
	const struct sl_adj *a = sl_adj_get(id);
	/* id made opaque: else the compiler, knowing the entry's id equal to the packet's when
	 * the fill is skipped, set it on both paths, and copied a register a packet to carry
	 * it (1 instruction a packet of the routed path) */
	__asm__("" : "+r"(id));
	c->id = id;
	c->mtu = sl_adj_mtu(a);
	c->next = sl_adj_tx_edge(a, tx0);
	return a;
}

static __rte_always_inline void sl_adjc_rw_one(struct sl_worker *w, void **objs, uint16_t *nexts,
					       uint16_t n, rte_edge_t tx0, sl_adjc_rw_fn rw)
{
	struct sl_adjc one = {.id = UINT32_MAX};
	const struct sl_adj *adj = NULL;
	uint16_t port = 0;
	for (uint16_t i = 0; i < n; i++) {
		uint32_t id = sl_meta(objs[i])->adj;
		if (unlikely(id != one.id)) {
			adj = sl_adjc_fill(&one, id, tx0);
			port = adj->port;
		}
		nexts[i] = rw(w, objs[i], one.mtu, one.next, adj, port);
	}
}

/* A vector over a few adjacencies (ECMP's paths) or many (ahead: fetch the adjacency's slot
 * in the table 8 packets ahead, the adjacency 4 ahead): each packet's own. The many also
 * fetch each packet's interface line for the nodes after the rewrite (a session's
 * pppoe-output, the interface-output arc's ACL and QoS), which reach it a vector later:
 * without it, 20,000 sessions' acl-output went from 14 to 31-33 clocks a packet while
 * ip4-rewrite saved 10 (a fetch 2 packets ahead, as the rewrite once did for itself, cost
 * 10 instructions a packet on 200 neighbours; at the packet's own turn, its port at hand, 4.6). */
static __rte_always_inline void sl_adjc_rw_each(struct sl_worker *w, void **objs, uint16_t *nexts,
						uint16_t n, rte_edge_t tx0, sl_adjc_rw_fn rw,
						bool ahead)
{
	for (uint16_t i = 0; i < n; i++) {
		if (ahead && i + 8 < n)
			rte_prefetch0(&sl_adj_tbl[sl_meta(objs[i + 8])->adj]);
		if (ahead && i + 4 < n)
			rte_prefetch0(sl_adj_get(sl_meta(objs[i + 4])->adj));
		struct rte_mbuf *m = objs[i];
		const struct sl_adj *a = sl_adj_get(sl_meta(m)->adj);
		if (ahead)
			rte_prefetch0(&sl_if_fast[a->port]);
		nexts[i] = rw(w, m, sl_adj_mtu(a), sl_adj_tx_edge(a, tx0), a, a->port);
	}
}

/* ipN-rewrite's process function `name`: each packet by rw, to tx edges counted from the
 * global tx0 (read once into a local: the header stores could alias it), by the loop the
 * vector's first packets choose. The loop over several adjacencies is a function of its own
 * (name##_each): inlined, it lost a register to what the process function holds across it
 * (the table's address, read again a packet: 1 instruction a packet of ECMP's). */
#define SL_ADJC_RW_PROCESS(name, rw, tx0)                                                     \
	static __rte_noinline void name##_each(struct sl_worker *w, void **objs,             \
					       uint16_t *nexts, uint16_t n, rte_edge_t t0,   \
					       bool ahead)                                   \
	{                                                                                    \
		if (ahead)                                                                   \
			sl_adjc_rw_each(w, objs, nexts, n, t0, rw, true);                    \
		else                                                                         \
			sl_adjc_rw_each(w, objs, nexts, n, t0, rw, false);                   \
	}                                                                                    \
	static uint16_t name(struct rte_graph *g, struct rte_node *node, void **objs,        \
			     uint16_t n)                                                     \
	{                                                                                    \
		struct sl_worker *w = sl_node_worker(node);                                  \
		uint16_t nexts[n ? n : 1];                                                   \
		const rte_edge_t t0 = tx0;                                                   \
		enum sl_adjc_spread spread = sl_adjc_spread(objs, n);                        \
		if (spread == SL_ADJC_ONE)                                                   \
			sl_adjc_rw_one(w, objs, nexts, n, t0, rw);                           \
		else /* a few (ECMP's paths), or many: each fetched ahead */                 \
			name##_each(w, objs, nexts, n, t0, spread == SL_ADJC_MANY);          \
		sl_enqueue_nexts(g, node, objs, nexts, n);                                   \
		return n;                                                                    \
	}

#endif
