/* SPDX-License-Identifier: BSD-3-Clause */
/* ip6-rewrite: hop limit, scope and MTU checks (a router does not fragment IPv6: packet too
 * big), then the adjacency's precomputed Ethernet header in one copy. */
#include "../interface/iface.h"
#include "ip6.h"
#include "../ip4/adjc.h"
#include "../runtime/trace.h"

#define RW_ERRORS(X)                                                                      \
	X(RW_ERR_HLIM, "hop limit expired in transit (ICMPv6 time exceeded follows)")     \
	X(RW_ERR_BIG, "larger than the egress MTU (ICMPv6 packet too big follows)")       \
	X(RW_ERR_SCOPE, "link-local source not forwarded (ICMPv6 unreachable follows)")   \
	X(RW_ERR_UNSPEC, "unspecified source not forwarded (RFC 4291 2.5.2)")             \
	X(RW_ERR_ADJ, "adjacency no longer complete")                                     \
	X(RW_ERR_HEADROOM, "no headroom for the L2 header")
enum { RW_ERRORS(SL_ERR_ENUM) RW_NB_ERR };
static const char *const rw_reasons[] = {RW_ERRORS(SL_ERR_STR)};
static uint16_t rw_err;

enum { RW_NEXT_DROP, RW_NEXT_ICMP, RW_NB_STATIC };
static rte_edge_t rw_tx0;

/* The rare outcomes, out of the loop. A packet whose adjacency is no longer complete (its
 * MTU is 0: struct sl_adj) comes here by one of the tests too, and is dropped by name
 * whatever else it is. */
static __rte_noinline __rte_cold uint16_t rw_icmp(struct sl_worker *w, struct rte_mbuf *m,
						    uint16_t e, uint16_t icmp, uint16_t mtu,
						    const struct sl_adj *adj)
{
	if (adj->type != SL_ADJ_FORWARD) {
		sl_set_error(m, rw_err + RW_ERR_ADJ);
		return RW_NEXT_DROP;
	}
	w->errors[rw_err + e]++;
	sl_meta2(m)->icmp = icmp;
	sl_meta2(m)->mtu = mtu;
	return RW_NEXT_ICMP;
}

/* Packet m to adjacency adj, with its MTU, tx edge next and interface port. */
static inline uint16_t rw_one(struct sl_worker *w, struct rte_mbuf *m, uint32_t mtu, uint16_t next,
			      const struct sl_adj *adj, uint16_t port)
{
	struct sl_meta *mt = sl_meta(m);
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	/* RFC 4291 2.5.6: a link-local source never leaves its link */
	if (unlikely(ip->src_addr[0] == 0xfe || ip->src_addr[0] == 0)) {
		if (sl_ip6_is_ll(ip->src_addr))
			return rw_icmp(w, m, RW_ERR_SCOPE,
				       SL_ICMP6_UNREACH << 8 | SL_ICMP6_UNREACH_SCOPE, 0, adj);
		if (sl_ip6_is_zero(ip->src_addr)) {
			sl_set_error(m, rw_err + RW_ERR_UNSPEC);
			return RW_NEXT_DROP;
		}
	}
	/* RFC 8200 3: the hop limit is decremented by one by each node that forwards it, and
	 * the packet discarded when it reaches zero */
	if (unlikely(ip->hop_limits <= 1))
		return rw_icmp(w, m, RW_ERR_HLIM, SL_ICMP6_TIME_EXCEEDED << 8, 0, adj);
	/* RFC 8200 5 */
	if (unlikely(rte_pktmbuf_pkt_len(m) > mtu))
		return rw_icmp(w, m, RW_ERR_BIG, SL_ICMP6_TOO_BIG << 8, (uint16_t)mtu, adj);
	if (unlikely(m->data_off < RTE_ETHER_HDR_LEN)) {
		sl_set_error(m, rw_err + RW_ERR_HEADROOM);
		return RW_NEXT_DROP;
	}
	ip->hop_limits--;
	sl_adjc_prepend_eth(m, ip, adj);
	mt->tx_if = port;
	return next;
}

SL_ADJC_RW_PROCESS(rw_process, rw_one, rw_tx0)

static struct rte_node_register rw_node = {
	.name = "ip6-rewrite",
	.process = rw_process,
	.init = sl_node_init,
	.nb_edges = RW_NB_STATIC,
	.next_nodes = {[RW_NEXT_DROP] = "error-drop", [RW_NEXT_ICMP] = "icmp6-error"},
};
SL_NODE_REGISTER(rw_node)

RTE_INIT(rw6_register)
{
	sl_trace_format_register("ip6-rewrite", sl_ip6_trace_fmt);
	rw_err = sl_error_register("ip6-rewrite", rw_reasons, RW_NB_ERR);
	sl_iface_tx_user("ip6-rewrite", &rw_tx0);
}
