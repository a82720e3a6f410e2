/* SPDX-License-Identifier: BSD-3-Clause */
/* ip4-lookup: longest-prefix match of the whole vector in one bulk call, then dispatch by
 * the adjacency's type. */
#include "ip4.h"
#include <rte_ip.h>

#define LOOKUP_ERRORS(X) X(LK_NO_ROUTE, "no route (ICMP unreachable follows)")
enum { LOOKUP_ERRORS(SL_ERR_ENUM) LK_NB_ERR };
static const char *const lk_reasons[] = {LOOKUP_ERRORS(SL_ERR_STR)};
static uint16_t lk_err;

enum { LK_NEXT_ICMP, LK_NEXT_REWRITE, LK_NEXT_LOCAL, LK_NEXT_PUNT, LK_NB_NEXT };

static const uint16_t type_next[] = {
	[SL_ADJ_DROP] = LK_NEXT_ICMP,       [SL_ADJ_LOCAL] = LK_NEXT_LOCAL,
	[SL_ADJ_GLEAN] = LK_NEXT_PUNT,      [SL_ADJ_INCOMPLETE] = LK_NEXT_PUNT,
	[SL_ADJ_FORWARD] = LK_NEXT_REWRITE,
};

static uint16_t lk_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	uint16_t nexts[n];
	uint32_t ips[n];
	uint64_t hops[n];
	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod((struct rte_mbuf *)objs[i],
								  const struct rte_ipv4_hdr *);
		ips[i] = rte_be_to_cpu_32(ip->dst_addr);
	}
	rte_fib_lookup_bulk(sl_fib, ips, hops, n);
	uint32_t last = UINT32_MAX;
	uint16_t nx = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		uint32_t id = (uint32_t)hops[i]; /* default_nh: the drop adjacency */
		if (id != last) { /* runs of one next hop are the common case */
			nx = type_next[sl_adj_get(id)->type];
			last = id;
		}
		struct sl_meta *mt = sl_meta(m);
		mt->adj = id;
		nexts[i] = nx;
		if (unlikely(nx == LK_NEXT_ICMP)) {
			w->errors[lk_err + LK_NO_ROUTE]++;
			mt->icmp = SL_ICMP_UNREACH << 8 | 0; /* net unreachable */
		} else if (unlikely(nexts[i] == LK_NEXT_PUNT)) {
			mt->aux = SL_PUNT_GLEAN;
		}
	}
	sl_enqueue_nexts(g, node, objs, nexts, n);
	return n;
}

static struct rte_node_register lk_node = {
	.name = "ip4-lookup",
	.process = lk_process,
	.init = sl_node_init,
	.nb_edges = LK_NB_NEXT,
	.next_nodes = {[LK_NEXT_ICMP] = "icmp4-error", [LK_NEXT_REWRITE] = "ip4-rewrite",
		       [LK_NEXT_LOCAL] = "ip4-local", [LK_NEXT_PUNT] = "punt"},
};
RTE_NODE_REGISTER(lk_node);

RTE_INIT(lk_errors)
{
	lk_err = sl_error_register("ip4-lookup", lk_reasons, LK_NB_ERR);
}
