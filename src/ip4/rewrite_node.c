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
	if (adj->type != SL_ADJ_FORWARD) /* its MTU is 0 (struct sl_adj) */
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

/* Packet m to adjacency adj, with its MTU, tx edge next and interface port. */
static inline uint16_t rw_one(struct sl_worker *w, struct rte_mbuf *m, uint32_t mtu, uint16_t next,
			      const struct sl_adj *adj, uint16_t port)
{
	struct sl_meta *mt = sl_meta(m);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	/* an adjacency no longer complete has MTU 0 (struct sl_adj): rw_icmp drops its packets */
	if (unlikely(ip->time_to_live <= 1 || rte_pktmbuf_pkt_len(m) > mtu))
		return rw_icmp(w, m, ip, mtu, adj);
	if (unlikely(m->data_off < RTE_ETHER_HDR_LEN))
		return rw_drop(m, RW_ERR_HEADROOM);
	ip->time_to_live--;
	ip->hdr_checksum = sl_cksum_ttl_dec(ip->hdr_checksum);
	sl_adjc_prepend_eth(m, ip, adj);
	mt->tx_if = port;
	return next;
}

SL_ADJC_RW_PROCESS(rw_process, rw_one, rw_tx0)

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
