/* SPDX-License-Identifier: BSD-3-Clause */
/* ip4-glean: packets whose next hop has no MAC yet (a connected host, or a route's next hop
 * still resolving) go to the main lcore, which holds them and sends ARP (route.c). */
#include "ip4.h"
#include "../runtime/trace.h"

enum { GL_NEXT_PUNT, GL_NB_NEXT };

static uint16_t gl_process(struct rte_graph *g, struct rte_node *node, void **objs, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		sl_meta2(objs[i])->punt = SL_PUNT_GLEAN;
	rte_node_next_stream_move(g, node, GL_NEXT_PUNT);
	return n;
}

static struct rte_node_register gl_node = {
	.name = "ip4-glean",
	.process = gl_process,
	.init = sl_node_init,
	.nb_edges = GL_NB_NEXT,
	.next_nodes = {[GL_NEXT_PUNT] = "punt"},
};
SL_NODE_REGISTER(gl_node)

RTE_INIT(gl_register)
{
	sl_trace_format_register("ip4-glean", sl_ip4_trace_fmt);
	sl_adj_type_register(SL_ADJ_GLEAN, "ip4-glean");
	sl_adj_type_register(SL_ADJ_INCOMPLETE, "ip4-glean");
}
