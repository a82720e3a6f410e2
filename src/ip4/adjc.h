/* SPDX-License-Identifier: BSD-3-Clause */
/* ipN-rewrite's adjacency cache, both families: what a packet's adjacency gives the rewrite
 * (the adjacency, its interface's MTU and tx edge), worked out again only when a packet names
 * another adjacency than the entry holds.
 *
 * A vector sent to one adjacency (a route's next hop) keeps one entry. A vector spread over
 * a few (ECMP's paths, whose packets alternate at random) takes the entry of the id's low
 * bits, so that each path is worked out once a vector rather than on 3 packets of 4 (a fill
 * is some 10 instructions; the way costs 3: 8-byte entries and the adjacencies apart, both
 * indexed by the addressing's scale). A vector to many (hosts, subscriber sessions) fills on
 * every packet and fetches ahead. Which one is chosen from the vector's first packets. */
#ifndef SL_IP4_ADJC_H
#define SL_IP4_ADJC_H
#include "ip4.h"
#include "../interface/iface.h"
#include <string.h>

struct sl_adjc {
	uint32_t id;
	uint16_t mtu;  /* the output interface's; 0 when the adjacency is not SL_ADJ_FORWARD */
	uint16_t next; /* its tx edge from the rewrite node (tx0 + its slot) */
};
_Static_assert(sizeof(struct sl_adjc) == 8, "entries indexed by the addressing's scale");

#define SL_ADJC_WAYS 8 /* a power of 2 */

/* Entry c and *adj (kept apart: 8-byte entries) for adjacency id. */
static inline void sl_adjc_fill(struct sl_adjc *c, const struct sl_adj **adj, uint32_t id,
				rte_edge_t tx0)
{
	const struct sl_adj *a = sl_adj_get(id);
	*adj = a;
	c->id = id;
	/* an adjacency that is not (or no longer) complete: MTU 0, so that every packet to it
	 * leaves the fast path by the MTU's test (ip4-rewrite drops it there by name) */
	c->mtu = a->type == SL_ADJ_FORWARD ? sl_if_fast[a->port].mtu : 0;
	c->next = sl_iface_tx_edge(tx0, a->port);
}

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

static inline void sl_adjc_reset(struct sl_adjc *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		c[i].id = UINT32_MAX;
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

/* ipN-rewrite's work for packet m to adjacency adj, its entry c, its interface port. */
typedef uint16_t (*sl_adjc_rw_fn)(struct sl_worker *w, struct rte_mbuf *m,
				  const struct sl_adjc *c, const struct sl_adj *adj, uint16_t port);

/* A vector to one adjacency, or anything but a few: one entry, the adjacency and its port in
 * registers. */
static __rte_always_inline void sl_adjc_rw_one(struct sl_worker *w, void **objs, uint16_t *nexts,
					       uint16_t n, rte_edge_t tx0, sl_adjc_rw_fn rw)
{
	struct sl_adjc one = {.id = UINT32_MAX};
	const struct sl_adj *adj = NULL;
	uint16_t port = 0;
	for (uint16_t i = 0; i < n; i++) {
		uint32_t id = sl_meta(objs[i])->adj;
		if (unlikely(id != one.id)) {
			sl_adjc_fill(&one, &adj, id, tx0);
			port = adj->port;
		}
		nexts[i] = rw(w, objs[i], &one, adj, port);
	}
}

/* A vector over a few adjacencies (ECMP's paths): SL_ADJC_WAYS entries and adjacencies, both
 * indexed by the id's low bits. */
static __rte_always_inline void sl_adjc_rw_few(struct sl_worker *w, void **objs, uint16_t *nexts,
					       uint16_t n, rte_edge_t tx0, sl_adjc_rw_fn rw)
{
	struct sl_adjc c[SL_ADJC_WAYS];
	const struct sl_adj *a[SL_ADJC_WAYS];
	sl_adjc_reset(c, SL_ADJC_WAYS);
	for (uint16_t i = 0; i < n; i++) {
		uint32_t id = sl_meta(objs[i])->adj;
		uint32_t way = id & (SL_ADJC_WAYS - 1);
		if (unlikely(id != c[way].id))
			sl_adjc_fill(&c[way], &a[way], id, tx0);
		nexts[i] = rw(w, objs[i], &c[way], a[way], a[way]->port);
	}
}

#endif
