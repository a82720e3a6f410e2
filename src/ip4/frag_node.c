/* SPDX-License-Identifier: BSD-3-Clause */
/* ip4-frag: splits packets larger than the egress MTU (DF clear) with rte_ip_frag; the
 * fragments go back to ip4-rewrite, which decrements each one's TTL. */
#include "../interface/iface.h"
#include "ip4.h"
#include "../runtime/trace.h"
#include <rte_ip_frag.h>

#define FRAG_ERRORS(X)                                          \
	X(FR_ERR_FAIL, "fragmentation failed (no buffers)")     \
	X(FR_MADE, "fragments made")
enum { FRAG_ERRORS(SL_ERR_ENUM) FR_NB_ERR };
static const char *const fr_reasons[] = {FRAG_ERRORS(SL_ERR_STR)};
static uint16_t fr_err;

struct rte_mempool *sl_pool, *sl_indirect_pool;

enum { FR_NEXT_DROP, FR_NEXT_REWRITE, FR_NB_NEXT };
#define FR_MAX 64

static uint16_t fr_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	struct sl_worker *w = sl_node_worker(node);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i], *out[FR_MAX];
		struct sl_meta mt = *sl_meta(m);
		struct sl_meta2 mt2 = *sl_meta2(m);
		const struct sl_adj *adj = sl_adj_get(mt.adj);
		uint16_t mtu = sl_ifaces[adj->port].mtu & ~7u;
		int k = rte_ipv4_fragment_packet(m, out, FR_MAX, mtu, sl_pool, sl_indirect_pool);
		if (k <= 0) {
			sl_set_error(m, fr_err + FR_ERR_FAIL);
			rte_node_enqueue_x1(g, node, FR_NEXT_DROP, m);
			continue;
		}
		for (int j = 0; j < k; j++) {
			*sl_meta(out[j]) = mt;
			*sl_meta2(out[j]) = mt2;
			out[j]->port = m->port;
		}
		w->errors[fr_err + FR_MADE] += (uint64_t)k;
		rte_pktmbuf_free(m);
		rte_node_enqueue(g, node, FR_NEXT_REWRITE, (void **)out, (uint16_t)k);
	}
	return n;
}

static struct rte_node_register fr_node = {
	.name = "ip4-frag",
	.process = fr_process,
	.init = sl_node_init,
	.nb_edges = FR_NB_NEXT,
	.next_nodes = {[FR_NEXT_DROP] = "error-drop", [FR_NEXT_REWRITE] = "ip4-rewrite"},
};
SL_NODE_REGISTER(fr_node)

RTE_INIT(fr_errors)
{
	sl_trace_format_register("ip4-frag", sl_ip4_trace_fmt);
	fr_err = sl_error_register("ip4-frag", fr_reasons, FR_NB_ERR);
}
