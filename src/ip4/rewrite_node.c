/* SPDX-License-Identifier: BSD-3-Clause */
/* ip4-rewrite: TTL decrement with incremental checksum, MTU check, and the adjacency's
 * precomputed Ethernet header in one copy. */
#include "../interface/iface.h"
#include "adjc.h"
#include "../runtime/trace.h"
#include <rte_ip.h>

#define RW_ERRORS(X)                                                          \
	X(RW_ERR_TTL, "TTL expired in transit (ICMP time exceeded follows)")  \
	X(RW_ERR_DF, "too big with DF set (ICMP frag needed follows)")        \
	X(RW_ERR_ADJ, "adjacency no longer complete")                         \
	X(RW_ERR_HEADROOM, "no headroom for the L2 header")
enum { RW_ERRORS(SL_ERR_ENUM) RW_NB_ERR };
static const char *const rw_reasons[] = {RW_ERRORS(SL_ERR_STR)};
static uint16_t rw_err;

enum { RW_NEXT_DROP, RW_NEXT_ICMP, RW_NEXT_FRAG, RW_NB_STATIC };
static rte_edge_t rw_tx0; /* interface i's output is rw_tx0 + its tx_slot */

/* The rare outcomes, out of the loop: their error's index is not worked out per packet. */
static __rte_noinline __rte_cold uint16_t rw_drop(struct rte_mbuf *m, unsigned reason)
{
	sl_set_error(m, (uint16_t)(rw_err + reason));
	return RW_NEXT_DROP;
}

static __rte_noinline __rte_cold uint16_t rw_icmp(struct sl_worker *w, struct rte_mbuf *m,
						    const struct rte_ipv4_hdr *ip, uint16_t mtu,
						    const struct sl_adj *adj)
{
	if (adj->type != SL_ADJ_FORWARD) /* its entry's MTU is 0 (sl_adjc_fill) */
		return rw_drop(m, RW_ERR_ADJ);
	if (ip->time_to_live <= 1) { /* RFC 1812 5.3.1 */
		w->errors[rw_err + RW_ERR_TTL]++;
		sl_meta2(m)->icmp = SL_ICMP_TIME_EXCEEDED << 8;
		return RW_NEXT_ICMP;
	}
	/* over the MTU. RFC 1812 5.2.7.1 / RFC 1191: DF set -> fragmentation needed with our
	 * MTU; else fragmented */
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG)) {
		w->errors[rw_err + RW_ERR_DF]++;
		sl_meta2(m)->icmp = SL_ICMP_UNREACH << 8 | SL_ICMP_UNREACH_NEEDFRAG;
		sl_meta2(m)->mtu = mtu;
		return RW_NEXT_ICMP;
	}
	return RW_NEXT_FRAG;
}

/* Packet m to adjacency adj, whose entry is c (filled for it) and interface port. */
static inline uint16_t rw_one(struct sl_worker *w, struct rte_mbuf *m, const struct sl_adjc *c,
			      const struct sl_adj *adj, uint16_t port)
{
	struct sl_meta *mt = sl_meta(m);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	/* an adjacency no longer complete has MTU 0 in its entry: rw_icmp drops its packets */
	if (unlikely(ip->time_to_live <= 1 || rte_pktmbuf_pkt_len(m) > c->mtu))
		return rw_icmp(w, m, ip, c->mtu, adj);
	if (unlikely(m->data_off < RTE_ETHER_HDR_LEN))
		return rw_drop(m, RW_ERR_HEADROOM);
	ip->time_to_live--;
	ip->hdr_checksum = sl_cksum_ttl_dec(ip->hdr_checksum);
	sl_adjc_prepend_eth(m, ip, adj);
	mt->tx_if = port;
	return c->next;
}

/* A vector to many adjacencies: the entry, its adjacency and port together, filled for the
 * packet inside its call (the loop's registers go to the fetching ahead). */
struct rw_many {
	struct sl_adjc c;
	const struct sl_adj *adj;
	uint16_t port;
};

static inline uint16_t rw_many_one(struct sl_worker *w, struct rte_mbuf *m, struct rw_many *k,
				   rte_edge_t tx0)
{
	uint32_t id = sl_meta(m)->adj;
	if (unlikely(id != k->c.id)) {
		sl_adjc_fill(&k->c, &k->adj, id, tx0);
		k->port = k->adj->port;
	}
	return rw_one(w, m, &k->c, k->adj, k->port);
}

static uint16_t rw_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	const rte_edge_t tx0 = rw_tx0; /* a local: the header stores could alias the global */
	enum sl_adjc_spread spread = sl_adjc_spread(objs, n);
	if (spread == SL_ADJC_ONE) {
		sl_adjc_rw_one(w, objs, nexts, n, tx0, rw_one);
	} else if (spread == SL_ADJC_FEW) {
		sl_adjc_rw_few(w, objs, nexts, n, tx0, rw_one);
	} else {
		/* many adjacencies: each packet's adjacency slot, adjacency and output
		 * interface fetched a few packets ahead, in three steps since each gives the
		 * next's address */
		struct rw_many k = {.c = {.id = UINT32_MAX}};
		for (uint16_t i = 0; i < n; i++) {
			if (i + 8 < n)
				rte_prefetch0(&sl_adj_tbl[sl_meta(objs[i + 8])->adj]);
			if (i + 4 < n) {
				const struct sl_adj *a = sl_adj_get(sl_meta(objs[i + 4])->adj);
				if (a)
					rte_prefetch0(a);
			}
			if (i + 2 < n) {
				const struct sl_adj *a = sl_adj_get(sl_meta(objs[i + 2])->adj);
				if (a)
					rte_prefetch0(&sl_if_fast[a->port]);
			}
			nexts[i] = rw_many_one(w, objs[i], &k, tx0);
		}
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register rw_node = {
	.name = "ip4-rewrite",
	.process = rw_process,
	.init = sl_node_init,
	.nb_edges = RW_NB_STATIC,
	.next_nodes = {[RW_NEXT_DROP] = "error-drop", [RW_NEXT_ICMP] = "icmp4-error",
		       [RW_NEXT_FRAG] = "ip4-frag"},
};
SL_NODE_REGISTER(rw_node)

RTE_INIT(rw_errors)
{
	sl_trace_format_register("ip4-rewrite", sl_ip4_trace_fmt);
	rw_err = sl_error_register("ip4-rewrite", rw_reasons, RW_NB_ERR);
	sl_iface_tx_user("ip4-rewrite", &rw_tx0);
	sl_adj_type_register(SL_ADJ_FORWARD, "ip4-rewrite");
}
